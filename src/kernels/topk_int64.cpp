// TopK for the 64-bit integers: one of the units the kernel is compiled in (see topk_run.hpp).

#include "kernels/topk_run.hpp"

namespace irlite {

IRLITE_TOPK_INSTANTIATE_BOTH(std::int64_t)
IRLITE_TOPK_INSTANTIATE_BOTH(std::uint64_t)

}  // namespace irlite

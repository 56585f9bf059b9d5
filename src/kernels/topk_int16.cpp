// TopK for the 16-bit integers: one of the units the kernel is compiled in (see topk_run.hpp).

#include "kernels/topk_run.hpp"

namespace irlite {

IRLITE_TOPK_INSTANTIATE_BOTH(std::int16_t)
IRLITE_TOPK_INSTANTIATE_BOTH(std::uint16_t)

}  // namespace irlite

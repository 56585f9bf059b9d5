// TopK for float and double: one of the units the kernel is compiled in (see topk_run.hpp).

#include "kernels/topk_run.hpp"

namespace irlite {

IRLITE_TOPK_INSTANTIATE_BOTH(float)
IRLITE_TOPK_INSTANTIATE_BOTH(double)

}  // namespace irlite

// TopK for the 16-bit floats: one of the units the kernel is compiled in (see topk_run.hpp).

#include "kernels/topk_run.hpp"

namespace irlite {

IRLITE_TOPK_INSTANTIATE_BOTH(float16)
IRLITE_TOPK_INSTANTIATE_BOTH(bfloat16)

}  // namespace irlite

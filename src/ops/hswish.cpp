// HSwish-4: x * min(max(x + 3, 0), 6) / 6, on floating-point types only (its specification's);
// f16 and bf16 are computed in float and rounded once.

#include "ops/op_list.hpp"
#include "ops/unary_op.hpp"

namespace irlite {
namespace {

struct HSwish {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    const C r = x + C(3);
    const C c = r < C(0) ? C(0) : (r > C(6) ? C(6) : r);
    return x * c / C(6);
  }
};

}  // namespace

// Not monotonic (it dips below zero between -3 and 0), so integer bounds do not propagate.
OpDef hswish_op() {
  return unary_def<PlainFn<HSwish, /*integers=*/false, /*monotonic=*/false>>("HSwish", 4, 4);
}

}  // namespace irlite

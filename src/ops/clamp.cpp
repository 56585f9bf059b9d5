// Clamp-1: each element limited to [min, max], two double attributes. As OpenVINO does, the
// bounds are converted to the data's type first: for integers, min rounded up and max rounded
// down, each then limited to the type's range; for floating-point types, rounded to the type.
// An element below min becomes min, else one above max becomes max; NaN passes through. min
// above max (or either NaN) is refused.

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "core/text.hpp"
#include "ops/op_list.hpp"
#include "ops/unary_op.hpp"

namespace irlite {
namespace {

/// The bound `value` in integer type T: rounded by `round` (ceil or floor), then limited to
/// T's range.
template <class T, class R>
T integer_bound(double value, R round) {
  const double r = round(value);
  if (r <= static_cast<double>(std::numeric_limits<T>::lowest()))
    return std::numeric_limits<T>::lowest();
  if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

template <class C>
struct ClampKernel {
  C lo;
  C hi;
  IRLITE_INLINE C operator()(C x) const { return x < lo ? lo : (x > hi ? hi : x); }
};

struct ClampFn {
  static constexpr bool integers = true;
  static constexpr bool monotonic = true;
  double min = 0;
  double max = 0;

  void visit(AttributeVisitor& v) {
    v.on("min", min);
    v.on("max", max);
    if (!(min <= max))
      throw Error(ErrorCode::format,
                  fmt::format("attribute 'min' ({}) must be less than or equal to 'max' ({})",
                              number_text(min), number_text(max)));
  }

  template <class T, class Run>
  void apply(Run run) const {
    using C = compute_t<T>;
    if constexpr (std::is_integral_v<T>) {
      run(ClampKernel<T>{integer_bound<T>(min, [](double v) { return std::ceil(v); }),
                         integer_bound<T>(max, [](double v) { return std::floor(v); })});
    } else if constexpr (std::is_same_v<C, float>) {
      // Through float, as OpenVINO builds its f16 and bf16 bounds.
      const C lo = static_cast<C>(T(static_cast<float>(min)));
      const C hi = static_cast<C>(T(static_cast<float>(max)));
      run(Lifted<T, ClampKernel<C>>{{lo, hi}});
    } else {
      run(ClampKernel<T>{min, max});
    }
  }
};

}  // namespace

OpDef clamp_op() {
  return unary_def<ClampFn>("Clamp", 1, 1);
}

}  // namespace irlite

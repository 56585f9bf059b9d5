// Round-5: each element rounded to the nearest integer, halves to even (half_to_even) or away
// from zero (half_away_from_zero). Integers are kept as they are.

#include <cmath>
#include <string>
#include <type_traits>

#include "core/attribute_visitor.hpp"
#include "ops/op_list.hpp"
#include "ops/unary_op.hpp"

namespace irlite {
namespace {

enum class RoundMode { half_to_even, half_away_from_zero };
constexpr std::string_view kModeWords[] = {"half_to_even", "half_away_from_zero"};

struct HalfToEven {
  // nearbyint rounds in the current rounding mode, which irlite never changes from the
  // default, to nearest with ties to even; it keeps -0, infinities and NaN.
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::nearbyint(x);
    else
      return x;
  }
};

struct HalfAwayFromZero {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return round_half_away_value(x);
    else
      return x;
  }
};

struct RoundFn {
  static constexpr bool integers = true;
  static constexpr bool monotonic = true;
  // The specification makes `mode` required.
  RoundMode mode = RoundMode::half_to_even;
  void visit(AttributeVisitor& v) { v.on("mode", mode, kModeWords); }

  template <class T, class Run>
  void apply(Run run) const {
    if (mode == RoundMode::half_to_even)
      run(Lifted<T, HalfToEven>{});
    else
      run(Lifted<T, HalfAwayFromZero>{});
  }
};

}  // namespace

OpDef round_op() {
  return unary_def<RoundFn>("Round", 5, 5);
}

}  // namespace irlite

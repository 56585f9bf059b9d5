// Clamp-1: each element limited to [min, max], two double attributes. As OpenVINO does, the
// bounds are converted to the data's type first: for integers, min rounded up and max rounded
// down, each then limited to the type's range; for floating-point types, rounded to the type.
// An element below min becomes min, else one above max becomes max; NaN passes through. min
// above max (or either NaN) is refused.

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "core/attributes.hpp"
#include "core/text.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"
#include "ops/unary_op.hpp"

namespace irlite {
namespace {

/// A required double attribute: the whole text (blanks around it aside) in the form strtod
/// reads, "inf" and "-inf" included.
double get_double(const Attributes& a, std::string_view name) {
  const std::string& text = a.text(name);
  const std::string_view t = trim_blanks(text);
  const auto bad = [&] {
    throw Error(ErrorCode::format, fmt::format("attribute '{}' = '{}': not a number", name, text));
  };
  const char* begin = t.data();
  const char* end = t.data() + t.size();
  if (begin == end) bad();
  if (*begin == '+') {  // from_chars takes no '+'; "+-1" stays an error
    ++begin;
    if (begin == end || *begin == '-') bad();
  }
  double value = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end) bad();
  return value;
}

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

  std::vector<std::pair<std::string, std::string>> attributes() const {
    return {{"min", number_text(min)}, {"max", number_text(max)}};
  }

  static std::string number_text(double v) {
    Tensor t(ElementType::f64, Shape{});
    t.data<double>()[0] = v;
    return value_text(t, 0);
  }
};

std::unique_ptr<const Op> create_clamp(const Attributes& a) {
  const double min = get_double(a, "min");
  const double max = get_double(a, "max");
  if (!(min <= max))
    throw Error(ErrorCode::format,
                fmt::format("attribute 'min' ({}) must be less than or equal to 'max' ({})",
                            ClampFn::number_text(min), ClampFn::number_text(max)));
  return std::make_unique<UnaryOp<ClampFn>>(ClampFn{min, max});
}

}  // namespace

OpDef clamp_op() {
  return {
      .type = "Clamp",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create_clamp,
      .input_types = {{"data", numeric_types()}},
      .output_types = {{"output", numeric_types()}},
  };
}

}  // namespace irlite

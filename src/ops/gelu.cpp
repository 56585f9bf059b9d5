// Gelu-2 and Gelu-7: x * Phi(x), Phi the standard normal distribution function, computed exactly
// with erf (approximation_mode erf, Gelu-2's only mode) or with OpenVINO's tanh approximation
// (approximation_mode tanh). As in OpenVINO's reference, every type is computed in double and
// rounded once; floating-point types only.

#include <cmath>
#include <numbers>
#include <string>

#include "core/attribute_visitor.hpp"
#include "ops/op_list.hpp"
#include "ops/unary_op.hpp"

namespace irlite {
namespace {

enum class GeluMode { erf, tanh };
constexpr std::string_view kModeWords[] = {"erf", "tanh"};

struct GeluErf {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    const double d = x;
    return static_cast<C>(0.5 * d * (1.0 + std::erf(d / std::sqrt(2.0))));
  }
};

struct GeluTanh {
  template <class C>
  IRLITE_INLINE C operator()(C x) const {
    const double d = x;
    const double k = std::sqrt(2.0 / std::numbers::pi);
    return static_cast<C>(0.5 * d * (1.0 + std::tanh(k * (d + 0.044715 * std::pow(d, 3.0)))));
  }
};

struct GeluFn {
  static constexpr bool integers = false;
  static constexpr bool monotonic = false;
  // Gelu-7's, optional, erf by default; OpenVINO writes the words in upper case. Gelu-2 has
  // erf only, and shows it.
  GeluMode mode = GeluMode::erf;
  void visit(AttributeVisitor& v) { v.on("approximation_mode", mode, kModeWords, GeluMode::erf); }

  template <class T, class Run>
  void apply(Run run) const {
    if (mode == GeluMode::tanh)
      run(Lifted<T, GeluTanh>{});
    else
      run(Lifted<T, GeluErf>{});
  }
};

std::unique_ptr<const Op> create_gelu_v2(const Attributes&) {
  return std::make_unique<UnaryOp<GeluFn>>(GeluFn{});
}

}  // namespace

OpDef gelu_v2_op() {
  return {
      .type = "Gelu",
      .version = 2,
      .since_opset = 2,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create_gelu_v2,
      .input_types = {{"data", real_types()}},
      .output_types = {{"output", real_types()}},
  };
}

OpDef gelu_v7_op() {
  return unary_def<GeluFn>("Gelu", 7, 7);
}

}  // namespace irlite

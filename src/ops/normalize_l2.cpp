// NormalizeL2-1: each element of floating-point data divided by the L2 norm of its group along
// `axes` (a scalar or 1-D integer input), sqrt(sum + eps) with eps_mode add or
// sqrt(max(sum, eps)) with max.
//
// With empty axes each element is "divided by itself", as the specification puts it; OpenVINO's
// reference writes 0 for a zero element and 1 for any other (NaN included), not x / sqrt(x^2 +
// eps), and irlite does the same. The axes are read by the kernel only: the output has the
// data's shape whatever they are.

#include <fmt/format.h>

#include "core/attribute_visitor.hpp"
#include "kernels/normalize.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

constexpr std::string_view kL2EpsModeWords[] = {"add", "max"};

struct NormalizeL2Attributes {
  double eps = 0;
  L2EpsMode eps_mode = L2EpsMode::add;
  void visit(AttributeVisitor& v) {
    v.on("eps", eps);
    v.require("eps", std::isfinite(eps) && eps >= 0, "expected a finite number >= 0");
    v.on("eps_mode", eps_mode, kL2EpsModeWords);
  }
};

/// Empty axes: 0 for a zero element, 1 for any other.
template <class T>
void signless_ones(const Parallel& parallel, const T* in, T* out, std::size_t n) {
  using C = compute_t<T>;
  parallel.for_range(n, std::size_t{1} << 15, [&](std::size_t begin, std::size_t end, std::size_t) {
    for (std::size_t i = begin; i < end; ++i)
      out[i] = static_cast<T>(static_cast<C>(in[i]) == C(0) ? C(0) : C(1));
  });
}

class NormalizeL2Op final : public Op {
 public:
  explicit NormalizeL2Op(const NormalizeL2Attributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& axes = inputs[1];
    if (axes.shape.rank_is_static() && axes.shape.rank() > 1)
      input_error(1, "axes must be a scalar or 1-D, got " + to_string(axes.shape));
    if (data.shape.rank_is_static()) {
      const std::int64_t rank = data.shape.rank();
      if (axes.shape.rank() == 1 && axes.shape[0].min() > rank)
        input_error(1, fmt::format("axes {} names more axes than the data {} has",
                                   to_string(axes.shape), to_string(data.shape)));
      if (axes.value) {
        std::string why;
        if (!axes_mask(integer_values(*axes.value), rank, &why)) bad_value(phase, 1, why);
      }
    }
    return {{data.type, data.shape}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const std::vector<std::int64_t> axes = integer_values(inputs[1]);
    std::string why;
    const auto mask = axes_mask(axes, static_cast<std::int64_t>(data.rank()), &why);
    if (!mask) value_error(1, why);
    const GroupPlan plan = plan_groups(data.shape(), *mask);
    // As OpenVINO's op keeps it: a float.
    const double eps = static_cast<float>(attributes_.eps);
    const bool ok = dispatch_float(data.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (axes.empty())
        signless_ones<T>(context.parallel, data.data<T>(), outputs[0].data<T>(), data.size());
      else
        normalize_l2<T>(context.parallel, plan, data.data<T>(), outputs[0].data<T>(), eps,
                        attributes_.eps_mode);
    });
    if (!ok) no_kernel(0, data.element_type());
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  NormalizeL2Attributes attributes_;
};

std::unique_ptr<const Op> create_normalize_l2(const Attributes& a) {
  return std::make_unique<NormalizeL2Op>(read_attributes<NormalizeL2Attributes>(a));
}

}  // namespace

OpDef normalize_l2_op() {
  return {
      .type = "NormalizeL2",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create_normalize_l2,
      .input_types = {{"data", real_types()}, {"axes", integral_types()}},
      .output_types = {{"output", real_types()}},
  };
}

}  // namespace irlite

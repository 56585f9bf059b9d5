// MVN-1 and MVN-6: mean-variance normalisation of floating-point data over a set of axes. Each
// group of elements the axes span has its mean subtracted and, with normalize_variance, is
// divided by its standard deviation with eps added inside the square root (MVN-1 always;
// MVN-6's eps_mode inside_sqrt) or outside it (outside_sqrt).
//
// MVN-1 (OpenVINO's v0::MVN, which opset2 introduced) takes the axes from its reduction_axes
// attribute, or when that is absent or empty from across_channels: axes 1 onwards when true,
// axes 2 onwards when false. MVN-6 takes them from its `axes` input, which only the kernel
// reads: the output has the data's shape whatever the axes.

#include <fmt/format.h>

#include "core/attribute_visitor.hpp"
#include "kernels/normalize.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

constexpr std::string_view kEpsModeWords[] = {"inside_sqrt", "outside_sqrt"};

struct MvnAttributes {
  int version = 6;  // not an attribute: which ones the layer has
  double eps = 0;
  bool normalize_variance = true;
  // MVN-1 only.
  bool across_channels = false;
  std::vector<std::int64_t> reduction_axes;
  // MVN-6 only.
  MvnEpsMode eps_mode = MvnEpsMode::inside_sqrt;

  void visit(AttributeVisitor& v) {
    v.on("eps", eps);
    v.require("eps", std::isfinite(eps) && eps >= 0, "expected a finite number >= 0");
    v.on("normalize_variance", normalize_variance, true);
    if (version == 1) {
      v.on("across_channels", across_channels, false);
      v.on("reduction_axes", reduction_axes, {});
    } else {
      v.on("eps_mode", eps_mode, kEpsModeWords);
    }
  }
};

template <class T>
void run_mvn(const Parallel& parallel, const GroupPlan& plan, const Tensor& in, Tensor& out,
             const MvnAttributes& a) {
  // MVN-6 keeps eps as a float, as OpenVINO's op does.
  const double eps = a.version == 6 ? static_cast<double>(static_cast<float>(a.eps)) : a.eps;
  mvn<T>(parallel, plan, in.data<T>(), out.data<T>(), a.normalize_variance, eps,
         a.version == 6 ? a.eps_mode : MvnEpsMode::inside_sqrt);
}

class MvnOp final : public Op {
 public:
  explicit MvnOp(const MvnAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    if (attributes_.version == 1) {
      if (data.shape.rank_is_static()) (void)v1_mask(data.shape.rank());
      return {{data.type, data.shape}};
    }
    const ValueInfo& axes = inputs[1];
    if (axes.shape.rank_is_static() && axes.shape.rank() != 1)
      input_error(1, "axes must be 1-D, got " + to_string(axes.shape));
    if (data.shape.rank_is_static()) {
      const std::int64_t rank = data.shape.rank();
      if (axes.shape.rank_is_static() && axes.shape[0].min() > rank)
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
    const auto rank = static_cast<std::int64_t>(data.rank());
    std::vector<bool> mask;
    if (attributes_.version == 1) {
      mask = v1_mask(rank);
    } else {
      std::string why;
      auto m = axes_mask(integer_values(inputs[1]), rank, &why);
      if (!m) value_error(1, why);
      mask = std::move(*m);
    }
    const GroupPlan plan = plan_groups(data.shape(), mask);
    const bool ok = dispatch_float(data.element_type(), [&](auto tag) {
      run_mvn<typename decltype(tag)::type>(context.parallel, plan, data, outputs[0], attributes_);
    });
    if (!ok) no_kernel(0, data.element_type());
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  /// MVN-1's axes for data of `rank`.
  std::vector<bool> v1_mask(std::int64_t rank) const {
    if (!attributes_.reduction_axes.empty()) {
      std::string why;
      auto m = axes_mask(attributes_.reduction_axes, rank, &why);
      if (!m) op_error("reduction_axes: " + why);
      return *m;
    }
    std::vector<bool> mask(static_cast<std::size_t>(rank), false);
    for (std::int64_t i = attributes_.across_channels ? 1 : 2; i < rank; ++i)
      mask[static_cast<std::size_t>(i)] = true;
    return mask;
  }

  MvnAttributes attributes_;
};

template <int Version>
std::unique_ptr<const Op> create_mvn(const Attributes& a) {
  MvnAttributes initial;
  initial.version = Version;
  return std::make_unique<MvnOp>(read_attributes(a, initial));
}

}  // namespace

// OpenVINO's v0::MVN, introduced in opset2.
OpDef mvn_v1_op() {
  return {
      .type = "MVN",
      .version = 1,
      .since_opset = 2,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create_mvn<1>,
      .input_types = {{"data", real_types()}},
      .output_types = {{"output", real_types()}},
  };
}

OpDef mvn_v6_op() {
  return {
      .type = "MVN",
      .version = 6,
      .since_opset = 6,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create_mvn<6>,
      .input_types = {{"data", real_types()}, {"axes", index_types()}},
      .output_types = {{"output", real_types()}},
  };
}

}  // namespace irlite

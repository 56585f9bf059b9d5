// FakeQuantize-1: x quantized onto `levels` values, its limits input_low, input_high,
// output_low and output_high broadcast into x's shape (auto_broadcast numpy, the default; none,
// where each must have x's shape; or pdpd). The output has x's type and shape. The formula is in
// kernels/fake_quantize.hpp; input_low may exceed input_high (the bounds are their minimum and
// maximum, the range keeps its sign).
//
// Floating-point types only: f32, f16, bf16 and f64, the 16-bit ones computed in float and
// rounded once. A limit of another floating-point type than x's (an f32 Const beside f16 data,
// as compressed IR has) is converted to x's type first, rounded once, as PReLU's slope.
//
// OpenVINO merges the limits' shapes with x's only to check them and gives the output x's shape;
// irlite refuses a limit that would make x larger (an extent other than 1 or x's, a leading
// extent other than 1 beyond x's rank), at the limit's port.

#include "kernels/fake_quantize.hpp"

#include <fmt/format.h>

#include <array>
#include <type_traits>

#include "core/attribute_visitor.hpp"
#include "ops/broadcast_rules.hpp"
#include "ops/op_list.hpp"

namespace irlite {
namespace {

constexpr std::array<const char*, 5> kPortNames = {"data", "input_low", "input_high", "output_low",
                                                   "output_high"};

struct FakeQuantizeAttributes {
  std::int64_t levels = 0;
  BroadcastSpec spec;
  void visit(AttributeVisitor& v) {
    v.on("levels", levels);
    v.require("levels", levels >= 2, "must be at least 2");
    spec.visit(v);
  }
};

/// Whether a limit of shape `limit` may broadcast into the data's shape `data` under `spec`
/// without enlarging it. While loading, dims that may fit pass; at run time every dim is known.
bool fits(const PartialShape& data, const PartialShape& limit, const BroadcastSpec& spec) {
  if (spec.type != AutoBroadcast::numpy) return broadcast_shapes(data, limit, spec).has_value();
  if (!data.rank_is_static() || !limit.rank_is_static()) return true;
  const std::int64_t extra = limit.rank() - data.rank();
  for (std::int64_t i = 0; i < limit.rank(); ++i) {
    const Dimension& d = limit[static_cast<std::size_t>(i)];
    if (d.contains(1)) continue;
    if (i < extra || !d.compatible(data[static_cast<std::size_t>(i - extra)])) return false;
  }
  return true;
}

class FakeQuantizeOp final : public Op {
 public:
  explicit FakeQuantizeOp(const FakeQuantizeAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& data = inputs[0];
    for (std::size_t i = 1; i < inputs.size(); ++i)
      if (!fits(data.shape, inputs[i].shape, attributes_.spec))
        input_error(i, fmt::format("{} {} does not broadcast to the data's shape {} "
                                   "(auto_broadcast={})",
                                   kPortNames[i], to_string(inputs[i].shape), to_string(data.shape),
                                   to_string(attributes_.spec.type)));
    return {{data.type, data.shape}};
  }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor>,
                            unsigned) const override {
    const Scratch counting = Scratch::counting();
    dispatch_float(inputs[0].element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (std::size_t i = 1; i < inputs.size(); ++i) (void)limit_of<T>(inputs, i, counting);
    });
    return counting.bytes();
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& x = inputs[0];
    Tensor& out = outputs[0];
    const std::size_t rank = x.shape().size();
    std::array<Shape, kMaxElementwiseInputs> aligned;
    aligned[0] = x.shape();
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      Shape s = inputs[i].shape();
      // numpy: leading extents beyond x's rank are 1 (the shape rule checked it).
      if (attributes_.spec.type == AutoBroadcast::numpy && s.size() > rank)
        s.erase(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(s.size() - rank));
      aligned[i] = align_shape(s, rank, attributes_.spec);
    }
    const ElementwisePlan plan =
        plan_elementwise(x.shape(), std::span<const Shape>(aligned.data(), inputs.size()));
    const bool ok = dispatch_float(x.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      QuantizeInputs<T> in;
      in.x = x.data<T>();
      in.in_low = limit_of<T>(inputs, 1, context.scratch);
      in.in_high = limit_of<T>(inputs, 2, context.scratch);
      in.out_low = limit_of<T>(inputs, 3, context.scratch);
      in.out_high = limit_of<T>(inputs, 4, context.scratch);
      fake_quantize(context.parallel, plan, in, out.data<T>(), attributes_.levels);
    });
    if (!ok) no_kernel(0, x.element_type());
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  /// Limit `i` in x's type T: its own data, or a copy in scratch converted from its type.
  template <class T>
  static const T* limit_of(std::span<const Tensor> inputs, std::size_t i, const Scratch& scratch) {
    const Tensor& limit = inputs[i];
    if (limit.element_type() == inputs[0].element_type()) return limit.data<T>();
    const std::span<T> copy = scratch.take<T>(limit.size());
    dispatch_float(limit.element_type(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      const S* from = limit.data<S>();
      for (std::size_t k = 0; k < copy.size(); ++k)
        copy[k] = static_cast<T>(static_cast<double>(from[k]));
    });
    return copy.data();
  }

  FakeQuantizeAttributes attributes_;
};

std::unique_ptr<const Op> create_fake_quantize(const Attributes& a) {
  return std::make_unique<FakeQuantizeOp>(read_attributes<FakeQuantizeAttributes>(a));
}

}  // namespace

OpDef fake_quantize_op() {
  std::vector<OpPortInfo> ports;
  for (const char* name : kPortNames) ports.push_back({name, real_types()});
  return {
      .type = "FakeQuantize",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 5,
      .max_inputs = 5,
      .num_outputs = 1,
      .create = create_fake_quantize,
      .input_types = ports,
      .output_types = {{"output", real_types()}},
  };
}

}  // namespace irlite

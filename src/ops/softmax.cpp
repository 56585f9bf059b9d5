// Softmax-1 and Softmax-8: exp(x) / sum(exp(x)) along one axis, float types only. Softmax-1
// takes an axis in [0, rank), Softmax-8 also a negative one counted from the end. LogSoftmax-5:
// (x - max) - log(sum(exp(x - max))) along one axis, negative axes as Softmax-8's; the kernel
// is Softmax's (kernels/softmax.hpp).

#include "kernels/softmax.hpp"

#include <fmt/format.h>

#include "core/attribute_visitor.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

struct SoftmaxAttributes {
  int version = 8;   // not an attribute: Softmax-1 refuses a negative axis
  bool log = false;  // not an attribute: LogSoftmax
  std::int64_t axis = 1;
  void visit(AttributeVisitor& v) {
    v.on("axis", axis, 1);
    if (version == 1 && axis < 0)
      throw Error(ErrorCode::format,
                  fmt::format("attribute 'axis' must not be negative in Softmax-1, got {}", axis));
  }
};

class SoftmaxOp final : public Op {
 public:
  explicit SoftmaxOp(const SoftmaxAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& data = inputs[0];
    if (data.shape.rank_is_static()) (void)axis_of(data.shape.rank());
    return {{data.type, data.shape}};
  }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor>,
                            unsigned threads) const override {
    const Layout l = layout(inputs[0].shape());
    std::size_t bytes = 0;
    dispatch_float(inputs[0].element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      bytes = softmax_scratch<T>(l.len, l.inner, threads);
    });
    return bytes;
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const Layout l = layout(data.shape());
    if (!dispatch_float(data.element_type(), [&](auto tag) {
          using T = typename decltype(tag)::type;
          if (attributes_.log)
            softmax<T, true>(context.parallel, context.scratch, data.data<T>(),
                             outputs[0].data<T>(), l.outer, l.len, l.inner);
          else
            softmax<T>(context.parallel, context.scratch, data.data<T>(), outputs[0].data<T>(),
                       l.outer, l.len, l.inner);
        }))
      no_kernel(0, data.element_type());
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  struct Layout {
    std::int64_t outer = 1, len = 1, inner = 1;
  };

  /// The axis in [0, rank); a shape error when out of range.
  std::int64_t axis_of(std::int64_t rank) const {
    if (attributes_.version == 1 && attributes_.axis < 0)
      op_error(fmt::format("axis must not be negative in Softmax-1, got {} (rank {})",
                           attributes_.axis, rank));
    const auto a = normalize_axis(attributes_.axis, rank);
    if (!a) op_error(axis_range_message(attributes_.axis, rank));
    return *a;
  }

  Layout layout(const Shape& shape) const {
    const auto axis = static_cast<std::size_t>(axis_of(static_cast<std::int64_t>(shape.size())));
    Layout l;
    l.len = shape[axis];
    // Sizes derived from the output (allocated, so it fits), not multiplied out blindly.
    const std::int64_t size = element_count(shape).value_or(0);
    for (std::size_t i = axis + 1; i < shape.size(); ++i) l.inner *= shape[i];
    if (size == 0) {
      l.outer = 0;
    } else {
      l.outer = size / (l.len * l.inner);
    }
    return l;
  }

  SoftmaxAttributes attributes_;
};

template <int Version, bool Log = false>
std::unique_ptr<const Op> create(const Attributes& a) {
  return std::make_unique<SoftmaxOp>(
      read_attributes(a, SoftmaxAttributes{.version = Version, .log = Log}));
}

}  // namespace

OpDef softmax_v1_op() {
  return {
      .type = "Softmax",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create<1>,
      .input_types = {{"data", real_types()}},
      .output_types = {{"output", real_types()}},
  };
}

OpDef softmax_v8_op() {
  return {
      .type = "Softmax",
      .version = 8,
      .since_opset = 8,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create<8>,
      .input_types = {{"data", real_types()}},
      .output_types = {{"output", real_types()}},
  };
}

OpDef log_softmax_op() {
  return {
      .type = "LogSoftmax",
      .version = 5,
      .since_opset = 5,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create<5, true>,
      .input_types = {{"data", real_types()}},
      .output_types = {{"output", real_types()}},
  };
}

}  // namespace irlite

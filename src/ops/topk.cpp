// TopK-1, TopK-3, TopK-11: the k largest or smallest elements along an axis, with their indices.
// The three versions share one implementation; they differ in the k types they accept
// (TopK-1: i8/i32/i64), the index types (TopK-1: i32 only) and the `stable` attribute (TopK-11).

#include "kernels/topk.hpp"

#include <fmt/format.h>

#include <limits>
#include <optional>

#include "core/attribute_visitor.hpp"
#include "kernels/element.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

constexpr std::string_view kModeWords[] = {"max", "min"};
constexpr std::string_view kSortWords[] = {"value", "index", "none"};

/// The attributes, read and printed from this one description.
struct TopKAttributes {
  int version = 11;  // not an attribute: which ones the layer has
  std::int64_t axis = 0;
  TopKMode mode = TopKMode::max;
  TopKSort sort = TopKSort::none;
  ElementType index_element_type = ElementType::i32;
  // Accepted for display only: ties always go to the lower index, which is already stable.
  bool stable = false;

  void visit(AttributeVisitor& v) {
    v.on("axis", axis);
    v.on("mode", mode, kModeWords);
    v.on("sort", sort, kSortWords);
    v.on("index_element_type", index_element_type, ElementType::i32);
    if (version == 11) v.on("stable", stable, false);
    v.require("index_element_type",
              index_element_type == ElementType::i32 || index_element_type == ElementType::i64,
              "expected i32 or i64");
    v.require("index_element_type", version != 1 || index_element_type == ElementType::i32,
              "TopK-1 produces i32 indices only");
    v.require("stable", !stable || sort != TopKSort::none,
              "a stable TopK needs sort = value or index, got sort = none");
  }
};

class TopKOp final : public Op {
 public:
  explicit TopKOp(const TopKAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& k = inputs[1];
    if (data.shape.rank_is_static() && data.shape.rank() == 0)
      input_error(0, "data must have rank 1 or more, got a scalar");
    // OpenVINO rejects a one-element 1-D k as well: k is a scalar.
    if (k.shape.rank_is_static() && k.shape.rank() != 0)
      input_error(1, "k must be a scalar, got " + to_string(k.shape));

    // The data's real shape is known at run time, and while loading when the data is a Const:
    // k is then checked against it as early.
    std::optional<std::int64_t> k_value;
    if (k.value) {
      k_value = integer_at(*k.value, 0);
      if (*k_value < 0) {
        std::string message = fmt::format("k must be non-negative, got {}", *k_value);
        bad_value(phase, 1, std::move(message));
      }
    }
    if (!data.shape.rank_is_static()) {
      return {{data.type, PartialShape::dynamic_rank()},
              {attributes_.index_element_type, PartialShape::dynamic_rank()}};
    }
    const std::int64_t axis = normalized_axis(data.shape.rank());
    PartialShape out = data.shape;
    Dimension& dim = out[static_cast<std::size_t>(axis)];
    if (k_value) {
      // No clamping to the axis length while loading (OpenVINO's shape rule); a k beyond it is
      // an error once the data is known.
      if ((phase == Phase::run || data.value) && dim.is_static() && *k_value > dim.value())
        bad_value(phase, 1, exceeds(*k.value, dim.value(), axis));
      dim = Dimension(*k_value);
    } else if (const std::optional<Dimension> kb = known_dimension(k)) {
      // k unknown but bounded (from a ShapeOf): OpenVINO's rule, where an unbounded axis
      // keeps its upper bound open.
      const std::int64_t hi = !dim.has_upper_bound()   ? Dimension::unbounded
                              : !kb->has_upper_bound() ? dim.max()
                                                       : std::min(dim.max(), kb->max());
      dim = Dimension(std::min(dim.min(), kb->min()), hi);
    } else {
      dim = Dimension(0, dim.max());
    }
    return {{data.type, out}, {attributes_.index_element_type, out}};
  }

  // Only k decides the output shape; the data's values are the kernel's business.
  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 1; }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor>,
                            unsigned threads) const override {
    const Tensor& data = inputs[0];
    const Shape& shape = data.shape();
    if (data.empty() || inputs[1].size() != 1) return 0;  // execute() refuses or does nothing
    const std::int64_t axis = normalized_axis(static_cast<std::int64_t>(shape.size()));
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (static_cast<std::int64_t>(i) < axis) outer *= shape[i];
      if (static_cast<std::int64_t>(i) > axis) inner *= shape[i];
    }
    const std::int64_t n = shape[static_cast<std::size_t>(axis)];
    const std::int64_t k = integer_at(inputs[1], 0);
    std::size_t bytes = 0;
    dispatch_numeric(data.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      bytes = topk_scratch<T>(outer, n, inner, k, threads);
    });
    return bytes;
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const Shape& shape = data.shape();
    const std::int64_t axis = normalized_axis(static_cast<std::int64_t>(shape.size()));
    const std::int64_t k = integer_at(inputs[1], 0);
    const std::int64_t n = shape[static_cast<std::size_t>(axis)];
    if (k < 0) value_error(1, fmt::format("k must be non-negative, got {}", k));
    if (k > n) value_error(1, exceeds(inputs[1], n, axis));
    // Empty outputs: nothing to do, and the product of the other extents of an empty tensor
    // ([0, 2^40, 2^40]) may not fit int64.
    if (k == 0 || data.empty()) return;
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (static_cast<std::int64_t>(i) < axis) outer *= shape[i];
      if (static_cast<std::int64_t>(i) > axis) inner *= shape[i];
    }
    const bool data_ok = dispatch_numeric(data.element_type(), [&](auto data_tag) {
      using T = typename decltype(data_tag)::type;
      dispatch_index(attributes_.index_element_type, [&](auto index_tag) {
        using TIndex = typename decltype(index_tag)::type;
        if (k > 0 && n - 1 > std::numeric_limits<TIndex>::max())
          value_error(0, fmt::format("dimension {} of axis {} is too long for {} indices", n, axis,
                                     to_string(attributes_.index_element_type)));
        topk(context.parallel, data.data<T>(), outer, n, inner, k, attributes_.mode,
             attributes_.sort, outputs[0].data<T>(), outputs[1].data<TIndex>(), context.scratch);
      });
    });
    if (!data_ok) no_kernel(0, data.element_type());
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  std::int64_t normalized_axis(std::int64_t rank) const {
    const auto axis = normalize_axis(attributes_.axis, rank);
    if (!axis) op_error(axis_range_message(attributes_.axis, rank));
    return *axis;
  }

  // Quotes k as stored: integer_at() saturates a u64 k above INT64_MAX.
  static std::string exceeds(const Tensor& k, std::int64_t dim, std::int64_t axis) {
    return fmt::format("k ({}) exceeds dimension {} of axis {}", value_text(k, 0), dim, axis);
  }

  TopKAttributes attributes_;
};

template <int Version>
std::unique_ptr<const Op> create_topk_version(const Attributes& a) {
  return std::make_unique<TopKOp>(read_attributes(a, TopKAttributes{.version = Version}));
}

}  // namespace

OpDef topk_v1_op() {
  using enum ElementType;
  return {
      .type = "TopK",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 2,
      .create = create_topk_version<1>,
      .input_types = {{"data", numeric_types()}, {"k", {i8, i32, i64}}},
      .output_types = {{"values", numeric_types()}, {"indices", {i32}}},
  };
}

OpDef topk_v3_op() {
  return {
      .type = "TopK",
      .version = 3,
      .since_opset = 3,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 2,
      .create = create_topk_version<3>,
      .input_types = {{"data", numeric_types()}, {"k", integral_types()}},
      .output_types = {{"values", numeric_types()}, {"indices", index_types()}},
  };
}

OpDef topk_v11_op() {
  return {
      .type = "TopK",
      .version = 11,
      .since_opset = 11,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 2,
      .create = create_topk_version<11>,
      .input_types = {{"data", numeric_types()}, {"k", integral_types()}},
      .output_types = {{"values", numeric_types()}, {"indices", index_types()}},
  };
}

}  // namespace irlite

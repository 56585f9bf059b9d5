// Concat-1: the inputs joined along `axis` (negative counts from the end). Every input has the
// same element type (any type) and rank, and the same extents off the axis; the axis extents
// add up, as intervals while loading.

#include <fmt/format.h>

#include <limits>

#include "core/attribute_visitor.hpp"
#include "kernels/data_movement.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_family.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

struct ConcatAttributes {
  std::int64_t axis = 0;
  void visit(AttributeVisitor& v) { v.on("axis", axis); }
};

class ConcatOp final : public Op {
 public:
  explicit ConcatOp(const ConcatAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ElementType type = inputs[0].type;
    if (type == ElementType::undefined) input_error(0, "input has no element type");
    for (std::size_t i = 1; i < inputs.size(); ++i)
      if (inputs[i].type != type)
        input_error(i, fmt::format("every input must have input 0's element type {}, got {}",
                                   to_string(type), to_string(inputs[i].type)));
    // The first input of known rank sets the rank; inputs of unknown rank add an unknown
    // extent on the axis.
    const PartialShape* first = nullptr;
    std::size_t first_index = 0;
    for (std::size_t i = 0; i < inputs.size() && !first; ++i)
      if (inputs[i].shape.rank_is_static()) {
        first = &inputs[i].shape;
        first_index = i;
      }
    if (!first) return {{type, PartialShape::dynamic_rank()}};
    const std::int64_t rank = first->rank();
    const std::optional<std::int64_t> axis = normalize_axis(attributes_.axis, rank);
    if (!axis)
      input_error(first_index,
                  fmt::format("{} of input {} {}", axis_range_message(attributes_.axis, rank),
                              first_index, to_string(*first)));
    const auto ax = static_cast<std::size_t>(*axis);
    std::vector<Dimension> dims = first->dims();
    Dimension total(0);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const PartialShape& s = inputs[i].shape;
      if (!s.rank_is_static()) {
        total = add(total, Dimension());
        continue;
      }
      if (s.rank() != rank)
        input_error(i, fmt::format("every input must have rank {} as input {} {}, got {}", rank,
                                   first_index, to_string(*first), to_string(s)));
      for (std::size_t d = 0; d < dims.size(); ++d) {
        if (d == ax) continue;
        if (!dims[d].compatible(s[d]))
          input_error(i, fmt::format("dimension {} of {} differs from the other inputs' {}: only "
                                     "the concatenation axis {} may differ",
                                     d, to_string(s), to_string(dims[d]), *axis));
        dims[d] = *intersect(dims[d], s[d]);
      }
      total = add(total, s[ax]);
    }
    dims[ax] = total;
    return {{type, PartialShape(std::move(dims))}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& out = outputs[0];
    const auto rank = static_cast<std::int64_t>(out.rank());
    const auto ax = static_cast<std::size_t>(*normalize_axis(attributes_.axis, rank));
    std::size_t outer = 1;
    for (std::size_t d = 0; d < ax; ++d) outer *= static_cast<std::size_t>(out.shape()[d]);
    std::vector<const void*> sources;
    std::vector<std::size_t> blocks;
    for (const Tensor& t : inputs) {
      sources.push_back(t.data());
      // Each input's row: its elements over the outer extent (which all inputs share).
      blocks.push_back(outer == 0 ? 0 : t.byte_size() / outer);
    }
    concat_bytes(context.parallel, sources, blocks, outer, outputs[0].data());
  }

  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    return monotonic_bounds(*this, inputs, output);
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  ConcatAttributes attributes_;
};

std::unique_ptr<const Op> create_concat(const Attributes& a) {
  return std::make_unique<ConcatOp>(read_attributes<ConcatAttributes>(a));
}

}  // namespace

// Any number of inputs: the one port entry stands for all of them.
OpDef concat_op() {
  return {
      .type = "Concat",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 1,
      .max_inputs = std::numeric_limits<int>::max(),
      .num_outputs = 1,
      .create = create_concat,
      .input_types = {{"inputs", all_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite

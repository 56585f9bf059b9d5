// Tile-1: the data repeated along each axis as many times as `repeats` says. Repeats shorter
// than the data's rank apply to its last axes; longer ones add leading axes. A negative repeat
// counts as 0 (OpenVINO clamps it).

#include <fmt/format.h>

#include <algorithm>

#include "core/attributes.hpp"
#include "kernels/data_movement.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_family.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

class TileOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& repeats = inputs[1];
    if (repeats.shape.rank_is_static() && repeats.shape.rank() != 1)
      input_error(1, "repeats must be a 1-D tensor, got " + to_string(repeats.shape));
    const PartialShape& in = data.shape;
    if (!in.rank_is_static()) return {{data.type, PartialShape::dynamic_rank()}};
    const std::size_t rank = in.dims().size();
    if (repeats.value || (repeats.lower && repeats.upper)) {
      // Each repeat from its value or, while loading, its bounds.
      const std::size_t n = (repeats.value ? repeats.value : repeats.lower)->size();
      std::vector<Dimension> reps(n);
      for (std::size_t i = 0; i < n; ++i) {
        if (repeats.value)
          reps[i] = Dimension(std::max<std::int64_t>(0, integer_at(*repeats.value, i)));
        else
          reps[i] = known_dimension(repeats, i).value_or(Dimension());
      }
      const std::size_t out_rank = std::max(rank, n);
      std::vector<Dimension> dims(out_rank);
      for (std::size_t i = 0; i < out_rank; ++i) {
        const Dimension d = i + rank >= out_rank ? in[i + rank - out_rank] : Dimension(1);
        const Dimension r = i + n >= out_rank ? reps[i + n - out_rank] : Dimension(1);
        std::int64_t extent = 0;
        if (d.is_static() && r.is_static() && __builtin_mul_overflow(d.value(), r.value(), &extent))
          bad_value(phase, 1,
                    fmt::format("repeating dimension {} of extent {} {} times overflows", i,
                                d.value(), r.value()));
        dims[i] = multiply(d, r);
      }
      return {{data.type, PartialShape(std::move(dims))}};
    }
    if (repeats.shape.rank_is_static() && repeats.shape[0].is_static())
      return {{data.type, PartialShape(std::vector<Dimension>(std::max(
                              rank, static_cast<std::size_t>(repeats.shape[0].value()))))}};
    return {{data.type, PartialShape::dynamic_rank()}};
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 1; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const std::vector<std::int64_t> given = integer_values(inputs[1]);
    const std::size_t out_rank = outputs[0].rank();
    // Both padded with leading 1s to the output's rank.
    Shape shape(out_rank, 1);
    std::vector<std::int64_t> reps(out_rank, 1);
    std::copy(data.shape().begin(), data.shape().end(),
              shape.end() - static_cast<std::ptrdiff_t>(data.rank()));
    for (std::size_t i = 0; i < given.size(); ++i)
      reps[out_rank - given.size() + i] = std::max<std::int64_t>(0, given[i]);
    tile_bytes(context.parallel, data.data(), shape, reps, element_size(data.element_type()),
               outputs[0].data());
  }

  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    return monotonic_bounds(*this, inputs, output);
  }
};

std::unique_ptr<const Op> create_tile(const Attributes&) {
  return std::make_unique<TileOp>();
}

}  // namespace

OpDef tile_op() {
  return {
      .type = "Tile",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create_tile,
      .input_types = {{"data", all_types()}, {"repeats", integral_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite

// DepthToSpace-1 and SpaceToDepth-1: data [N, C, D1, ..., DK] of rank K + 2 >= 3 and any
// element type. DepthToSpace moves blocks of block_size^K channels into block_size-wide tiles
// of the spatial axes ([N, C / b^K, D1 * b, ..., DK * b]); SpaceToDepth is its inverse
// ([N, C * b^K, D1 / b, ..., DK / b]). `mode` says where the block offsets sit among the
// channels: blocks_first (the block index is the outer part of the channel index) or
// depth_first (the inner part).
//
// Both are one transposition of the data viewed with the channel (or each spatial axis) split
// in two, so they run on the transposition kernel, threaded and exact.

#include <fmt/format.h>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "kernels/data_movement.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_family.hpp"

namespace irlite {
namespace {

enum class BlockMode { blocks_first, depth_first };
constexpr std::string_view kBlockModeWords[] = {"blocks_first", "depth_first"};

struct BlockAttributes {
  BlockMode mode = BlockMode::blocks_first;
  std::int64_t block_size = 1;
  void visit(AttributeVisitor& v) {
    v.on("mode", mode, kBlockModeWords);
    v.on("block_size", block_size, 1);
    v.require("block_size", block_size > 0, "expected a positive block size");
  }
};

/// d divided by k where only multiples of k are valid extents; nullopt when the interval holds
/// none.
std::optional<Dimension> divide_exactly(const Dimension& d, std::int64_t k) {
  if (d.is_static())
    return d.value() % k == 0 ? std::optional(Dimension(d.value() / k)) : std::nullopt;
  const std::int64_t lo = d.min() / k + (d.min() % k != 0);
  if (!d.has_upper_bound()) return Dimension(lo, Dimension::unbounded);
  const std::int64_t hi = d.max() / k;
  return hi < lo ? std::nullopt : std::optional(Dimension(lo, hi));
}

template <bool ToSpace>
class BlockOp final : public Op {
 public:
  explicit BlockOp(const BlockAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& data = inputs[0];
    if (!data.shape.rank_is_static()) return {{data.type, data.shape}};
    if (data.shape.rank() < 3)
      input_error(0, fmt::format("data must have rank 3 or more ([N, C, D1, ...]), got {}",
                                 to_string(data.shape)));
    const std::size_t k = data.shape.dims().size() - 2;
    const std::int64_t b = attributes_.block_size;
    std::int64_t volume = 1;  // b^K
    for (std::size_t i = 0; i < k; ++i) volume = saturating_mul(volume, b);
    if (volume == std::numeric_limits<std::int64_t>::max())
      op_error(fmt::format("block_size {} to the power {} overflows int64", b, k));
    std::vector<Dimension> dims = data.shape.dims();
    if constexpr (ToSpace) {
      const auto c = divide_exactly(dims[1], volume);
      if (!c)
        input_error(0, fmt::format("the channels {} of data {} must divide by block_size^{} = {}",
                                   to_string(dims[1]), to_string(data.shape), k, volume));
      dims[1] = *c;
      for (std::size_t i = 2; i < dims.size(); ++i) dims[i] = multiply(dims[i], Dimension(b));
    } else {
      dims[1] = multiply(dims[1], Dimension(volume));
      for (std::size_t i = 2; i < dims.size(); ++i) {
        const auto d = divide_exactly(dims[i], b);
        if (!d)
          input_error(0, fmt::format("extent {} of data {} along axis {} must divide by "
                                     "block_size = {}",
                                     to_string(dims[i]), to_string(data.shape), i, b));
        dims[i] = *d;
      }
    }
    return {{data.type, PartialShape(std::move(dims))}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const Shape& shape = data.shape();
    const std::size_t k = shape.size() - 2;
    const std::int64_t b = attributes_.block_size;
    const bool blocks_first = attributes_.mode == BlockMode::blocks_first;
    // The data viewed with its channel (DepthToSpace) or spatial axes (SpaceToDepth) split, and
    // the order of that view's axes that the output's layout walks.
    Shape view{shape[0]};
    std::vector<std::int64_t> order{0};
    const auto ax = [](std::size_t i) { return static_cast<std::int64_t>(i); };
    if constexpr (ToSpace) {
      std::int64_t channels = shape[1];
      for (std::size_t i = 0; i < k; ++i) channels /= b;
      // blocks_first: [N, b, ..., b, C', D1..DK]; depth_first: [N, C', b, ..., b, D1..DK].
      if (!blocks_first) view.push_back(channels);
      for (std::size_t i = 0; i < k; ++i) view.push_back(b);
      if (blocks_first) view.push_back(channels);
      for (std::size_t i = 0; i < k; ++i) view.push_back(shape[2 + i]);
      // Output [N, C', D1, b1, ..., DK, bK].
      order.push_back(blocks_first ? ax(1 + k) : 1);
      for (std::size_t i = 0; i < k; ++i) {
        order.push_back(ax(2 + k + i));
        order.push_back(blocks_first ? ax(1 + i) : ax(2 + i));
      }
    } else {
      // [N, C, D1 / b, b, ..., DK / b, b].
      view.push_back(shape[1]);
      for (std::size_t i = 0; i < k; ++i) {
        view.push_back(shape[2 + i] / b);
        view.push_back(b);
      }
      // blocks_first: output [N, b1..bK, C, D1..DK]; depth_first: [N, C, b1..bK, D1..DK].
      if (!blocks_first) order.push_back(1);
      for (std::size_t i = 0; i < k; ++i) order.push_back(ax(3 + 2 * i));
      if (blocks_first) order.push_back(1);
      for (std::size_t i = 0; i < k; ++i) order.push_back(ax(2 + 2 * i));
    }
    transpose_bytes(context.parallel, data.data(), view, order, element_size(data.element_type()),
                    outputs[0].data());
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  BlockAttributes attributes_;
};

template <bool ToSpace>
std::unique_ptr<const Op> create_block(const Attributes& a) {
  return std::make_unique<BlockOp<ToSpace>>(read_attributes<BlockAttributes>(a));
}

}  // namespace

OpDef depth_to_space_op() {
  return {
      .type = "DepthToSpace",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create_block<true>,
      .input_types = {{"data", all_types()}},
      .output_types = {{"output", all_types()}},
  };
}

OpDef space_to_depth_op() {
  return {
      .type = "SpaceToDepth",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create_block<false>,
      .input_types = {{"data", all_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite

// EmbeddingSegmentsSum-3 (spec: sparse/embedding-segments-sum-3): sums of embedding-table rows
// gathered into segments.

#include "kernels/embedding_segments_sum.hpp"

#include <fmt/format.h>

#include <optional>

#include "core/attributes.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

constexpr std::size_t kTable = 0;
constexpr std::size_t kIndices = 1;
constexpr std::size_t kSegmentIds = 2;
constexpr std::size_t kNumSegments = 3;
constexpr std::size_t kDefaultIndex = 4;
constexpr std::size_t kWeights = 5;

std::string range_text(std::uint64_t bound) {
  return fmt::format("[0, {})", bound);
}

[[noreturn]] void index_error(const EmbeddingIndexProblem& p) {
  using Input = EmbeddingIndexProblem::Input;
  switch (p.input) {
    case Input::indices:
      value_error(kIndices, fmt::format("indices[{}] = {} is out of the embedding table range {}",
                                        p.position, p.value, range_text(p.bound)));
    case Input::segment_ids:
      value_error(kSegmentIds, fmt::format("segment_ids[{}] = {} is out of the segment range {}",
                                           p.position, p.value, range_text(p.bound)));
    case Input::default_index:
      break;
  }
  value_error(kDefaultIndex,
              fmt::format("default_index = {} is out of the embedding table range {} (-1 fills "
                          "empty segments with zeros)",
                          p.value, range_text(p.bound)));
}

// Checks the known values of index input `input` against [0, bound) (bound unknown: only
// against 0): those of Consts at load time. At run time the rule does not get them; the kernel
// checks them before it writes anything.
void check_known_indices(const ValueInfo& info, std::size_t input, std::string_view name,
                         std::optional<std::int64_t> bound, bool minus_one_allowed) {
  if (!info.value) return;
  const std::vector<std::int64_t> values = integer_values(*info.value);
  const bool scalar = info.value->rank() == 0;
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::int64_t v = values[k];
    if (minus_one_allowed && v == -1) continue;
    if (v >= 0 && (!bound || v < *bound)) continue;
    const std::string where = scalar ? std::string(name) : fmt::format("{}[{}]", name, k);
    if (!bound) value_error(input, fmt::format("{} = {} is negative", where, v));
    EmbeddingIndexProblem p{};
    p.input = input == kIndices      ? EmbeddingIndexProblem::Input::indices
              : input == kSegmentIds ? EmbeddingIndexProblem::Input::segment_ids
                                     : EmbeddingIndexProblem::Input::default_index;
    p.position = k;
    p.value = v;
    p.bound = static_cast<std::uint64_t>(*bound);
    index_error(p);
  }
}

class EmbeddingSegmentsSumOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& table = inputs[kTable];
    const ValueInfo& indices = inputs[kIndices];
    const ValueInfo& ids = inputs[kSegmentIds];
    const ValueInfo& num = inputs[kNumSegments];
    const ValueInfo* def = inputs.size() > kDefaultIndex ? &inputs[kDefaultIndex] : nullptr;
    const ValueInfo* weights = inputs.size() > kWeights ? &inputs[kWeights] : nullptr;

    // Each input's type is in the OpDef's lists; here, those that must agree.
    if (ids.type != indices.type)
      input_error(kSegmentIds,
                  fmt::format("segment_ids element type ({}) must match indices element type ({})",
                              to_string(ids.type), to_string(indices.type)));
    if (num.type != ids.type)
      input_error(kNumSegments, fmt::format("num_segments element type ({}) must match "
                                            "segment_ids element type ({})",
                                            to_string(num.type), to_string(ids.type)));
    if (def && def->type != indices.type)
      input_error(kDefaultIndex, fmt::format("default_index element type ({}) must match "
                                             "indices element type ({})",
                                             to_string(def->type), to_string(indices.type)));
    if (weights && weights->type != table.type)
      input_error(kWeights, fmt::format("per_sample_weights element type ({}) must match "
                                        "embedding table element type ({})",
                                        to_string(weights->type), to_string(table.type)));

    // Shapes.
    const auto rank_is = [](const PartialShape& s, std::int64_t r) {
      return !s.rank_is_static() || s.rank() == r;
    };
    if (!rank_is(indices.shape, 1))
      input_error(kIndices, fmt::format("indices must be 1D, got {}", to_string(indices.shape)));
    if (!rank_is(ids.shape, 1))
      input_error(kSegmentIds, fmt::format("segment_ids must be 1D, got {}", to_string(ids.shape)));
    if (!indices.shape.compatible(ids.shape))
      input_error(kSegmentIds, fmt::format("indices and segment_ids must have the same shape, "
                                           "got {} and {}",
                                           to_string(indices.shape), to_string(ids.shape)));
    if (!may_be_scalar(num.shape))
      input_error(kNumSegments,
                  fmt::format("num_segments must be a scalar, got {}", to_string(num.shape)));
    if (def && !may_be_scalar(def->shape))
      input_error(kDefaultIndex,
                  fmt::format("default_index must be a scalar, got {}", to_string(def->shape)));
    if (weights) {
      if (!rank_is(weights->shape, 1))
        input_error(kWeights, fmt::format("per_sample_weights must be 1D, got {}",
                                          to_string(weights->shape)));
      if (!indices.shape.compatible(weights->shape))
        input_error(kWeights, fmt::format("indices and per_sample_weights must have the same "
                                          "shape, got {} and {}",
                                          to_string(indices.shape), to_string(weights->shape)));
    }
    if (table.shape.rank_is_static() && table.shape.rank() == 0)
      input_error(kTable, "emb_table cannot be a scalar");

    // Values, as far as they are known.
    std::optional<std::int64_t> num_segments;
    if (num.value && num.value->size() == 1) {
      num_segments = integer_at(*num.value, 0);
      if (*num_segments < 0)
        value_error(kNumSegments, fmt::format("num_segments = {} is negative", *num_segments));
    }
    std::optional<std::int64_t> num_emb;
    if (table.shape.rank_is_static() && table.shape[0].is_static())
      num_emb = table.shape[0].value();
    check_known_indices(indices, kIndices, "indices", num_emb, false);
    check_known_indices(ids, kSegmentIds, "segment_ids", num_segments, false);
    if (def) check_known_indices(*def, kDefaultIndex, "default_index", num_emb, true);

    if (!table.shape.rank_is_static()) return {{table.type, PartialShape::dynamic_rank()}};
    PartialShape out = table.shape;
    // Without the value, the range value propagation knows (num_segments from a ShapeOf).
    const std::optional<Dimension> bounded = known_dimension(num);
    out[0] = num_segments ? Dimension(*num_segments) : bounded.value_or(Dimension::dynamic());
    return {{table.type, std::move(out)}};
  }

  // num_segments is the output's first dimension; the indices are the kernel's to check.
  bool shape_needs_value(std::size_t index, std::size_t) const override {
    return index == kNumSegments;
  }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                            unsigned threads) const override {
    const Tensor& out = outputs[0];
    const auto num_segments = static_cast<std::size_t>(out.shape()[0]);
    const std::size_t row = row_size(out, inputs[kTable]);
    std::size_t bytes = 0;
    dispatch_numeric(out.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      bytes = embedding_segments_sum_scratch<T>(num_segments, row, threads);
    });
    return bytes;
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& table = inputs[kTable];
    const Tensor& indices = inputs[kIndices];
    const Tensor& ids = inputs[kSegmentIds];
    const Tensor* def = inputs.size() > kDefaultIndex ? &inputs[kDefaultIndex] : nullptr;
    const Tensor* weights = inputs.size() > kWeights ? &inputs[kWeights] : nullptr;
    Tensor& out = outputs[0];
    const auto num_emb = static_cast<std::size_t>(table.shape()[0]);
    const auto num_segments = static_cast<std::size_t>(out.shape()[0]);
    const std::size_t row = row_size(out, table);
    std::optional<EmbeddingIndexProblem> problem;
    dispatch_numeric(table.element_type(), [&](auto data_tag) {
      using T = typename decltype(data_tag)::type;
      dispatch_index(indices.element_type(), [&](auto index_tag) {
        using I = typename decltype(index_tag)::type;
        problem = embedding_segments_sum(context.parallel, table.data<T>(), num_emb, row,
                                         indices.data<I>(), ids.data<I>(), indices.size(),
                                         num_segments, def ? def->data<I>() : nullptr,
                                         weights ? weights->data<T>() : nullptr, out.data<T>(),
                                         embedding_fast::kGrain, context.scratch);
      });
    });
    if (problem) index_error(*problem);
  }
};

}  // namespace

OpDef embedding_segments_sum_op() {
  return {
      .type = "EmbeddingSegmentsSum",
      .version = 3,
      .since_opset = 3,
      .min_inputs = 4,
      .max_inputs = 6,
      .num_outputs = 1,
      .create = [](const Attributes&) -> std::unique_ptr<const Op> {
        return std::make_unique<EmbeddingSegmentsSumOp>();
      },
      .input_types = {{"emb_table", numeric_types()},
                      {"indices", index_types()},
                      {"segment_ids", index_types()},
                      {"num_segments", index_types()},
                      {"default_index", index_types()},
                      {"per_sample_weights", numeric_types()}},
      .output_types = {{"output", numeric_types()}},
  };
}

}  // namespace irlite

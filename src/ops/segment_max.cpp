// SegmentMax-16 (spec: arithmetic/segment-max-16): the maximum of each segment of rows.

#include "kernels/segment_max.hpp"

#include <fmt/format.h>

#include <limits>

#include "core/attribute_visitor.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

enum class FillMode { zero, lowest };
constexpr std::string_view kFillWords[] = {"zero", "lowest"};

struct SegmentMaxAttributes {
  FillMode fill_mode = FillMode::zero;
  // The spec's examples spell the attribute `empty_segment_value`; OpenVINO reads and writes
  // `fill_mode`. Both are accepted, and must agree when both are present.
  void visit(AttributeVisitor& v) {
    v.on("fill_mode", "empty_segment_value", fill_mode, kFillWords);
  }
};

constexpr std::size_t kData = 0;
constexpr std::size_t kSegmentIds = 1;
constexpr std::size_t kNumSegments = 2;

[[noreturn]] void segment_id_error(const SegmentIdProblem& p) {
  if (p.kind == SegmentIdProblem::Kind::negative)
    value_error(kSegmentIds, fmt::format("segment_ids[{}] = {} is negative", p.position, p.value));
  value_error(kSegmentIds,
              fmt::format("segment_ids must be sorted: segment_ids[{}] = {} is less than "
                          "segment_ids[{}] = {}",
                          p.position, p.value, p.position - 1, p.previous));
}

// Checks known ids; returns max(ids) + 1, the segment count when num_segments is absent.
std::int64_t checked_segment_count(const Tensor& ids, bool count_needed) {
  std::int64_t count = 0;
  dispatch_index(ids.element_type(), [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* v = ids.data<I>();
    const std::size_t n = ids.size();
    if (auto problem = check_sorted_segment_ids(v, n)) segment_id_error(*problem);
    if (n == 0 || !count_needed) return;
    // Sorted, so the last id is the largest.
    if (v[n - 1] == std::numeric_limits<I>::max())
      value_error(kSegmentIds,
                  fmt::format("segment_ids[{}] = {} is too large: the number of segments "
                              "max(segment_ids) + 1 overflows",
                              n - 1, v[n - 1]));
    count = static_cast<std::int64_t>(v[n - 1]) + 1;
  });
  return count;
}

class SegmentMaxOp final : public Op {
 public:
  explicit SegmentMaxOp(const SegmentMaxAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& data = inputs[kData];
    const ValueInfo& ids = inputs[kSegmentIds];
    const ValueInfo* num = inputs.size() > kNumSegments ? &inputs[kNumSegments] : nullptr;

    if (data.shape.rank_is_static() && data.shape.rank() == 0)
      input_error(kData, "the data input cannot be a scalar");
    if (ids.shape.rank_is_static() && ids.shape.rank() != 1)
      input_error(kSegmentIds,
                  fmt::format("segment_ids must be a 1D input, got {}", to_string(ids.shape)));
    if (data.shape.rank_is_static() && ids.shape.rank_is_static() &&
        !data.shape[0].compatible(ids.shape[0]))
      input_error(kSegmentIds,
                  fmt::format("the number of elements in segment_ids must match the first "
                              "dimension of data: segment_ids {}, data {}",
                              to_string(ids.shape), to_string(data.shape)));
    if (num && !may_be_scalar(num->shape))
      input_error(kNumSegments, fmt::format("num_segments must be a scalar input, got {}",
                                            to_string(num->shape)));

    // Known values: ids at load time when they are a Const, and at run time when they give the
    // segment count.
    std::optional<std::int64_t> ids_count;
    if (ids.value) ids_count = checked_segment_count(*ids.value, num == nullptr);
    std::optional<std::int64_t> num_value;
    if (num && num->value && num->value->size() == 1) {
      num_value = integer_at(*num->value, 0);
      if (*num_value < 0)
        value_error(kNumSegments, fmt::format("num_segments = {} is negative", *num_value));
    }

    if (!data.shape.rank_is_static()) return {{data.type, PartialShape::dynamic_rank()}};
    PartialShape out = data.shape;
    if (num_value)
      out[0] = Dimension(*num_value);
    else if (!num && ids_count)
      out[0] = Dimension(*ids_count);
    else if (const auto bounded = num ? known_dimension(*num) : std::nullopt)
      out[0] = *bounded;  // num_segments from a ShapeOf: its range
    else
      out[0] = Dimension::dynamic();
    return {{data.type, std::move(out)}};
  }

  // num_segments gives the output's first dimension; without it, max(segment_ids) + 1 does. The
  // kernel checks the ids (sorted, non-negative) in any case.
  bool shape_needs_value(std::size_t index, std::size_t count) const override {
    return index == kNumSegments || (index == kSegmentIds && count <= kNumSegments);
  }

  std::size_t scratch_bytes(std::span<const Tensor>, std::span<const Tensor>,
                            unsigned threads) const override {
    return segment_max_scratch(threads);
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[kData];
    const Tensor& ids = inputs[kSegmentIds];
    Tensor& out = outputs[0];
    const auto rows = static_cast<std::size_t>(data.shape()[0]);
    const auto num_segments = static_cast<std::size_t>(out.shape()[0]);
    const std::size_t row = row_size(out, data);
    std::optional<SegmentIdProblem> problem;
    dispatch_numeric(data.element_type(), [&](auto data_tag) {
      using T = typename decltype(data_tag)::type;
      const T fill = attributes_.fill_mode == FillMode::zero ? T{} : lowest_value<T>();
      dispatch_index(ids.element_type(), [&](auto index_tag) {
        using I = typename decltype(index_tag)::type;
        problem =
            segment_max(context.parallel, data.data<T>(), ids.data<I>(), rows, row, num_segments,
                        fill, out.data<T>(), segment_max_fast::kGrainElements, context.scratch);
      });
    });
    if (problem) segment_id_error(*problem);
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  SegmentMaxAttributes attributes_;
};

}  // namespace

OpDef segment_max_op() {
  return {
      .type = "SegmentMax",
      .version = 16,
      .since_opset = 16,
      .min_inputs = 2,
      .max_inputs = 3,
      .num_outputs = 1,
      .create = [](const Attributes& a) -> std::unique_ptr<const Op> {
        return std::make_unique<SegmentMaxOp>(read_attributes<SegmentMaxAttributes>(a));
      },
      .input_types = {{"data", numeric_types()},
                      {"segment_ids", index_types()},
                      {"num_segments", index_types()}},
      .output_types = {{"output", numeric_types()}},
  };
}

}  // namespace irlite

// StridedSlice-1: NumPy's basic slicing, x[b0:e0:s0, ..., :, None, i, ...], written as begin,
// end and stride tensors plus five bit masks (lists of 0 and 1, one per entry of begin):
// begin_mask and end_mask ignore the given begin or end (the whole axis in the stride's
// direction), new_axis_mask inserts an axis of 1, shrink_axis_mask takes the single element at
// begin and drops the axis, ellipsis_mask stands for as many whole axes as the entries leave
// over (at most one). Axes after the entries are taken whole.
//
// Where OpenVINO's shape rule and its kernel disagree (an entry that is both the ellipsis and a
// new axis: the rule expands the ellipsis, the kernel inserts an axis), irlite follows the rule
// in both. A shrunk axis whose begin is out of range is an error (OpenVINO's kernel refuses it;
// its shape rule lets it pass).

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "core/attribute_visitor.hpp"
#include "core/text.hpp"
#include "kernels/indexing.hpp"
#include "kernels/strided_copy.hpp"
#include "ops/indexing_slice.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

constexpr const char* kInputNames[] = {"data", "begin", "end", "stride"};
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

/// The five masks; begin_mask and end_mask are required, the others empty when absent.
struct StridedSliceAttributes {
  std::vector<bool> begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask;
  void visit(AttributeVisitor& v) {
    v.on("begin_mask", begin_mask);
    v.on("end_mask", end_mask);
    v.on("new_axis_mask", new_axis_mask, {});
    v.on("shrink_axis_mask", shrink_axis_mask, {});
    v.on("ellipsis_mask", ellipsis_mask, {});
  }
};

/// What an entry of begin/end/stride does.
enum class Entry { slice, new_axis, shrink, ellipsis };

class StridedSliceOp final : public Op {
 public:
  explicit StridedSliceOp(StridedSliceAttributes attributes) : attributes_(std::move(attributes)) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      if (inputs[i].shape.rank_is_static() && inputs[i].shape.rank() != 1)
        input_error(
            i, fmt::format("{} must be 1-D, got {}", kInputNames[i], to_string(inputs[i].shape)));
    }
    // The number of entries, from whatever tells it: the shapes of begin, end and stride, or the
    // stride's value. They must agree.
    std::optional<std::int64_t> entries;
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      std::optional<std::int64_t> n;
      if (inputs[i].value)
        n = static_cast<std::int64_t>(inputs[i].value->size());
      else if (inputs[i].shape.rank_is_static() && inputs[i].shape[0].is_static())
        n = inputs[i].shape[0].value();
      if (!n) continue;
      if (entries && *entries != *n)
        input_error(i, fmt::format("{} must have as many elements as begin, {}, got {}",
                                   kInputNames[i], *entries, *n));
      entries = n;
    }
    if (!data.shape.rank_is_static() || !entries)
      return {{data.type, PartialShape::dynamic_rank()}};

    const std::int64_t rank = data.shape.rank();
    const std::vector<Entry> kinds = entry_kinds(*entries, rank);
    const auto begin = bounds_of(inputs[1], *entries);
    const auto end = bounds_of(inputs[2], *entries);
    std::optional<std::vector<std::int64_t>> stride;
    if (inputs.size() > 3) {
      if (inputs[3].value) stride = integer_values(*inputs[3].value);
    } else {
      stride = std::vector<std::int64_t>(static_cast<std::size_t>(*entries), 1);
    }

    std::vector<Dimension> out;
    std::size_t in = 0;  // the data axis the next entry applies to
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      switch (kinds[k]) {
        case Entry::ellipsis:
          for (std::int64_t h = hidden_axes(kinds, rank); h > 0; --h)
            out.push_back(data.shape[in++]);
          break;
        case Entry::new_axis:
          out.emplace_back(1);
          break;
        case Entry::shrink: {
          const Dimension& dim = data.shape[in];
          // The element taken must exist, once the extent and begin are known.
          if (begin && (*begin)[k].first == (*begin)[k].second && dim.is_static()) {
            const std::int64_t b = (*begin)[k].first;
            if (b < -dim.value() || b >= dim.value()) {
              std::string message =
                  fmt::format("begin {} of shrunk axis {} is out of the range [{}, {})", b, in,
                              -dim.value(), dim.value());
              bad_value(phase, 1, std::move(message));
            }
          }
          ++in;
          break;
        }
        case Entry::slice: {
          const Dimension& dim = data.shape[in];
          if (begin && end && stride) {
            const std::int64_t s = (*stride)[k];
            if (s == 0) {
              std::string message = fmt::format("stride {} must not be 0", k);
              bad_value(phase, 3, std::move(message));
            }
            out.push_back(sliced_dimension(dim, start_of(k, s, dim, (*begin)[k]),
                                           stop_of(k, s, dim, (*end)[k]), s));
          } else {
            out.emplace_back(0, dim.max());
          }
          ++in;
          break;
        }
      }
    }
    for (; in < static_cast<std::size_t>(rank); ++in) out.push_back(data.shape[in]);
    return {{data.type, PartialShape(std::move(out))}};
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index > 0; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const auto entries = static_cast<std::int64_t>(inputs[1].size());
    for (std::size_t i = 2; i < inputs.size(); ++i)
      if (static_cast<std::int64_t>(inputs[i].size()) != entries)
        input_error(i, fmt::format("{} must have as many elements as begin, {}, got {}",
                                   kInputNames[i], entries, inputs[i].size()));
    Shape shape = data.shape();
    const auto rank = static_cast<std::int64_t>(shape.size());
    const std::vector<Entry> kinds = entry_kinds(entries, rank);
    const std::vector<std::int64_t> begin = integer_values(inputs[1]);
    const std::vector<std::int64_t> end = integer_values(inputs[2]);
    const std::vector<std::int64_t> stride =
        inputs.size() > 3 ? integer_values(inputs[3])
                          : std::vector<std::int64_t>(static_cast<std::size_t>(entries), 1);
    // One StridedAxis per data axis, in order.
    std::vector<StridedAxis> axes;
    std::size_t in = 0;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      switch (kinds[k]) {
        case Entry::ellipsis:
          for (std::int64_t h = hidden_axes(kinds, rank); h > 0; --h, ++in)
            axes.push_back({0, 1, shape[in]});
          break;
        case Entry::new_axis:
          break;
        case Entry::shrink: {
          const std::int64_t n = shape[in];
          const std::int64_t b = begin[k];
          if (b < -n || b >= n)
            value_error(1, fmt::format("begin {} of shrunk axis {} is out of the range [{}, {})", b,
                                       in, -n, n));
          axes.push_back({b < 0 ? b + n : b, 1, 1});
          ++in;
          break;
        }
        case Entry::slice: {
          if (stride[k] == 0) value_error(3, fmt::format("stride {} must not be 0", k));
          const std::int64_t n = shape[in];
          const SliceBounds b{begin[k], begin[k]}, e{end[k], end[k]};
          const Dimension d(n);
          axes.push_back(slice_axis(n, start_of(k, stride[k], d, b).first,
                                    stop_of(k, stride[k], d, e).first, stride[k]));
          ++in;
          break;
        }
      }
    }
    for (; in < shape.size(); ++in) axes.push_back({0, 1, shape[in]});
    Tensor& out = outputs[0];
    std::size_t count = 1;
    for (const StridedAxis& a : axes) count *= static_cast<std::size_t>(a.count);
    if (count != out.size())
      op_error(fmt::format("the output holds {} elements, the slice {}", out.size(), count));
    if (out.empty()) return;
    // A scalar is a one-element axis.
    if (shape.empty()) {
      shape.push_back(1);
      axes.push_back({0, 1, 1});
    }
    const bool ok = dispatch_word(data.element_type(), [&](auto tag) {
      using W = typename decltype(tag)::type;
      strided_copy(context.parallel, data.data<W>(), shape, axes, out.data<W>());
    });
    if (!ok) input_error(0, "data has no element type");
  }

  // With begin, end and stride known, each output element is one of the data's.
  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    for (std::size_t i = 1; i < inputs.size(); ++i)
      if (!inputs[i].value) return std::nullopt;
    return monotonic_bounds(*this, inputs, output);
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  static bool bit(const std::vector<bool>& mask, std::size_t k) {
    return k < mask.size() && mask[k];
  }

  /// What each of `entries` entries does, checked against the data's rank.
  std::vector<Entry> entry_kinds(std::int64_t entries, std::int64_t rank) const {
    std::vector<Entry> kinds;
    std::int64_t ellipses = 0, real = 0, new_axes = 0;
    for (std::size_t k = 0; k < static_cast<std::size_t>(entries); ++k) {
      if (bit(attributes_.ellipsis_mask, k)) {
        kinds.push_back(Entry::ellipsis);
        ++ellipses;
      } else if (bit(attributes_.new_axis_mask, k)) {
        kinds.push_back(Entry::new_axis);
        ++new_axes;
      } else {
        kinds.push_back(bit(attributes_.shrink_axis_mask, k) ? Entry::shrink : Entry::slice);
        ++real;
      }
    }
    if (ellipses > 1)
      op_error(fmt::format("ellipsis_mask may set one entry, got {} ({})", ellipses,
                           mask_text(attributes_.ellipsis_mask)));
    if (real > rank)
      op_error(fmt::format(
          "begin, end and stride slice {} axes (besides {} new ones), more than the data's rank {}",
          real, new_axes, rank));
    return kinds;
  }

  /// The data axes the ellipsis stands for: those no other entry takes.
  static std::int64_t hidden_axes(const std::vector<Entry>& kinds, std::int64_t rank) {
    std::int64_t real = 0;
    for (const Entry e : kinds) real += e == Entry::shrink || e == Entry::slice;
    return rank - real;
  }

  /// The values or bounds of begin or end, one range per entry; nullopt when unknown.
  static std::optional<std::vector<SliceBounds>> bounds_of(const ValueInfo& in,
                                                           std::int64_t entries) {
    const Tensor* lo = in.value ? in.value : in.lower;
    const Tensor* hi = in.value ? in.value : in.upper;
    if (!lo || !hi || static_cast<std::int64_t>(lo->size()) != entries) return std::nullopt;
    std::vector<SliceBounds> b;
    const std::int64_t type_max = integer_type_max(in.type);
    for (std::size_t i = 0; i < lo->size(); ++i) {
      const std::int64_t h = integer_at(*hi, i);
      // An unbounded upper bound: any index, as far as the end.
      b.emplace_back(integer_at(*lo, i), !in.value && h >= type_max ? kMax : h);
    }
    return b;
  }

  /// The start of entry k: the given begin, or with begin_mask the whole axis's first index in
  /// the stride's direction (OpenVINO's sentinels on an unbounded axis).
  SliceBounds start_of(std::size_t k, std::int64_t stride, const Dimension& dim,
                       SliceBounds given) const {
    if (!bit(attributes_.begin_mask, k)) return given;
    if (stride > 0) return {0, 0};
    const std::int64_t n = dim.has_upper_bound() ? dim.max() : kMax;
    return {n, n};
  }

  SliceBounds stop_of(std::size_t k, std::int64_t stride, const Dimension& dim,
                      SliceBounds given) const {
    if (!bit(attributes_.end_mask, k)) return given;
    const std::int64_t n = dim.has_upper_bound() ? dim.max() : kMax;
    if (stride > 0) return {n, n};
    const std::int64_t before = n == kMax ? kMin : -1 - n;
    return {before, before};
  }

  StridedSliceAttributes attributes_;
};

std::unique_ptr<const Op> create_strided_slice(const Attributes& a) {
  return std::make_unique<StridedSliceOp>(read_attributes<StridedSliceAttributes>(a));
}

}  // namespace

OpDef strided_slice_v1_op() {
  return {
      .type = "StridedSlice",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 3,
      .max_inputs = 4,
      .num_outputs = 1,
      .create = create_strided_slice,
      .input_types = {{"data", all_types()},
                      {"begin", integral_types()},
                      {"end", integral_types()},
                      {"stride", integral_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite

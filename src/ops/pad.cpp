// Pad-1/12: extends each axis of a tensor by pads_begin[d] elements before and pads_end[d]
// after, filled by pad_mode: constant (pad_value, or zero without it), edge (the nearest edge
// element), reflect (mirrored about the edge element, which is not repeated) or symmetric
// (mirrored with the edge element repeated). Pad-12 also takes negative pads, which remove
// elements from that end (the mirror modes still reflect the whole input; an axis cropped past
// its extent is empty). Any element type, booleans included (OpenVINO's checks allow them): the
// kernel moves elements without looking at them.

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "kernels/element.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

enum class PadMode { constant, edge, reflect, symmetric };
constexpr std::string_view kPadModeWords[] = {"constant", "edge", "reflect", "symmetric"};

struct PadAttributes {
  int version = 1;  // not an attribute: the op's version
  PadMode mode = PadMode::constant;

  void visit(AttributeVisitor& v) { v.on("pad_mode", mode, std::span(kPadModeWords)); }
};

/// The element count of a shape the caller has already validated.
std::size_t elements(const Shape& s) {
  std::size_t n = 1;
  for (const std::int64_t d : s) n *= static_cast<std::size_t>(d);
  return n;
}

/// An axis of extent n padded by `begin` and `end` (negative ones crop): never below 0 (Pad-12's
/// max(..., 0)), saturating rather than overflowing near the ends of i64.
std::int64_t padded_extent(std::int64_t n, std::int64_t begin, std::int64_t end) {
  return std::max<std::int64_t>(0, saturating_add(saturating_add(n, begin), end));
}

/// The input coordinate output coordinate o reads along an axis of n input elements padded by
/// `begin` before; -1 for the constant.
std::int64_t source_index(PadMode mode, std::int64_t o, std::int64_t begin, std::int64_t n) {
  const std::int64_t c = o - begin;
  if (c >= 0 && c < n) return c;
  switch (mode) {
    case PadMode::constant:
      return -1;
    case PadMode::edge:
      return c < 0 ? 0 : n - 1;
    case PadMode::reflect:
      return c < 0 ? -c : 2 * (n - 1) - c;
    case PadMode::symmetric:
      return c < 0 ? -c - 1 : 2 * n - 1 - c;
  }
  return -1;
}

class PadOp final : public Op {
 public:
  explicit PadOp(const PadAttributes& a) : a_(a) {}

  bool shape_needs_value(std::size_t index, std::size_t) const override {
    return index == 1 || index == 2;
  }

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    if (inputs.size() > 3) {
      if (inputs[3].type != data.type)
        input_error(3, fmt::format("pad_value must be {} as the data is, got {}",
                                   to_string(data.type), to_string(inputs[3].type)));
      if (a_.mode == PadMode::constant && inputs[3].shape.rank_is_static() &&
          inputs[3].shape.rank() != 0)
        input_error(3,
                    fmt::format("pad_value must be a scalar, got {}", to_string(inputs[3].shape)));
    }
    for (std::size_t i = 1; i < 3; ++i) {
      const PartialShape& s = inputs[i].shape;
      if (s.rank_is_static() && s.rank() != 1)
        input_error(i, fmt::format("must be 1-D, got {}", to_string(s)));
    }
    if (!data.shape.rank_is_static()) return {{data.type, PartialShape::dynamic_rank()}};
    const auto rank = static_cast<std::size_t>(data.shape.rank());
    for (std::size_t i = 1; i < 3; ++i) {
      const PartialShape& s = inputs[i].shape;
      if (s.rank_is_static() && s.rank() == 1 && s[0].is_static() &&
          s[0].value() != static_cast<std::int64_t>(rank))
        input_error(i, fmt::format("{} {} must hold one value per axis of the data {}", name(i),
                                   to_string(s), to_string(data.shape)));
    }
    std::vector<Dimension> dims;
    for (std::size_t d = 0; d < rank; ++d) {
      const std::optional<Bounds> b = bounds(inputs[1], d), e = bounds(inputs[2], d);
      if (!b || !e) {
        dims.emplace_back();
        continue;
      }
      const Dimension& n = data.shape[d];
      if (b->known) check_pad(phase, 1, b->lo, n, d);
      if (e->known) check_pad(phase, 2, e->lo, n, d);
      if (n.is_static() && b->known && e->known) {
        // Cropping more than the axis holds leaves it empty.
        dims.emplace_back(padded_extent(n.value(), b->lo, e->lo));
        continue;
      }
      const std::int64_t lo = padded_extent(n.min(), b->lo, e->lo);
      const bool bounded =
          n.has_upper_bound() && b->hi != Dimension::unbounded && e->hi != Dimension::unbounded;
      dims.emplace_back(lo, bounded ? std::max<std::int64_t>(
                                          lo, saturating_add(saturating_add(n.max(), b->hi), e->hi))
                                    : Dimension::unbounded);
    }
    return {{data.type, PartialShape(std::move(dims))}};
  }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                            unsigned) const override {
    const Scratch counting = Scratch::counting();
    take_maps(counting, outputs[0].shape());
    (void)inputs;
    return counting.bytes();
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const Shape& in = data.shape();
    const Shape& out = outputs[0].shape();
    const std::size_t rank = in.size();
    const std::vector<std::int64_t> begin = integer_values(inputs[1]);
    const std::vector<std::int64_t> end = integer_values(inputs[2]);
    if (begin.size() != rank || end.size() != rank)
      value_error(begin.size() != rank ? 1 : 2, "must hold one value per axis of the data");
    for (std::size_t d = 0; d < rank; ++d) {
      const auto n = static_cast<std::int64_t>(in[d]);
      check_pad(Phase::run, 1, begin[d], n, d);
      check_pad(Phase::run, 2, end[d], n, d);
      if (padded_extent(n, begin[d], end[d]) != out[d])
        value_error(1,
                    fmt::format("pads of axis {} do not give the output's extent {}", d, out[d]));
    }
    const std::size_t size = element_size(data.element_type());
    // The constant's bytes: pad_value's, or zero.
    std::byte fill[8] = {};
    if (inputs.size() > 3 && a_.mode == PadMode::constant)
      std::memcpy(fill, inputs[3].data(), size);
    const std::span<std::int64_t> maps = take_maps(context.scratch, out);
    std::size_t at = 0;
    std::vector<std::size_t> offset(rank);  // where each axis's map starts
    for (std::size_t d = 0; d < rank; ++d) {
      offset[d] = at;
      for (std::int64_t o = 0; o < out[d]; ++o)
        maps[at++] = source_index(a_.mode, o, begin[d], static_cast<std::int64_t>(in[d]));
    }
    const bool ok = dispatch_word(size, [&](auto tag) {
      using W = typename decltype(tag)::type;
      W value;
      std::memcpy(&value, fill, sizeof(W));
      copy<W>(context.parallel, in, out, maps.data(), offset, static_cast<const W*>(data.data()),
              static_cast<W*>(outputs[0].data()), value, begin.empty() ? 0 : begin[rank - 1]);
    });
    if (!ok) no_kernel(0, data.element_type());
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(a_);
  }

 private:
  struct Bounds {
    std::int64_t lo = 0, hi = 0;
    bool known = false;  // the value itself, not a range
  };

  static std::string_view name(std::size_t i) { return i == 1 ? "pads_begin" : "pads_end"; }

  /// Element d of a pads input: its value, its range from value propagation, or nullopt.
  static std::optional<Bounds> bounds(const ValueInfo& in, std::size_t d) {
    if (in.value) {
      if (d >= in.value->size()) return std::nullopt;
      const std::int64_t v = integer_values(*in.value)[d];
      return Bounds{v, v, true};
    }
    if (!in.lower || !in.upper || d >= in.lower->size()) return std::nullopt;
    const std::int64_t hi = integer_values(*in.upper)[d];
    return Bounds{integer_values(*in.lower)[d],
                  hi >= integer_type_max(in.type) ? Dimension::unbounded : hi, false};
  }

  /// A pad of input `port` for axis d of extent n: Pad-1's not negative, and the mirror modes'
  /// within OpenVINO's limits (reflect below the extent, symmetric at most it).
  void check_pad(Phase phase, std::size_t port, std::int64_t pad, const Dimension& n,
                 std::size_t d) const {
    if (a_.version == 1 && pad < 0)
      bad_value(phase, port,
                fmt::format("{} {} of axis {} is negative (Pad-12 crops; Pad-1 cannot)", name(port),
                            pad, d));
    if (pad <= 0 || !n.is_static()) return;
    const std::int64_t e = n.value();
    if (a_.mode == PadMode::edge && e < 1)
      bad_value(phase, port, fmt::format("edge padding of axis {} needs at least one element", d));
    if (a_.mode == PadMode::reflect && pad >= e)
      bad_value(phase, port,
                fmt::format("reflect padding needs {} {} of axis {} below its extent {}",
                            name(port), pad, d, e));
    if (a_.mode == PadMode::symmetric && pad > e)
      bad_value(phase, port,
                fmt::format("symmetric padding needs {} {} of axis {} at most its extent {}",
                            name(port), pad, d, e));
  }

  /// Every axis's map from output to input coordinate, one after the other.
  static std::span<std::int64_t> take_maps(const Scratch& scratch, const Shape& out) {
    std::size_t n = 0;
    for (const std::size_t d : out) n += d;
    return scratch.take<std::int64_t>(n);
  }

  /// Output rows (the last axis) split over threads: a row whose other coordinates all read
  /// the input copies its middle in one piece and maps its two ends; any other row is the
  /// constant.
  template <class W>
  static void copy(const Parallel& parallel, const Shape& in, const Shape& out,
                   const std::int64_t* maps, const std::vector<std::size_t>& offset, const W* src,
                   W* dst, W value, std::int64_t last_begin) {
    const std::size_t rank = in.size();
    const std::size_t total = elements(out);
    if (total == 0) return;
    if (rank == 0) {
      dst[0] = src[0];
      return;
    }
    const std::size_t width = out[rank - 1];
    const std::size_t rows = total / width;
    const auto in_width = static_cast<std::int64_t>(in[rank - 1]);
    // The output columns that read input columns in order: [lo, hi).
    const std::int64_t lo =
        std::clamp<std::int64_t>(last_begin, 0, static_cast<std::int64_t>(width));
    const std::int64_t hi =
        std::clamp<std::int64_t>(last_begin + in_width, lo, static_cast<std::int64_t>(width));
    const std::int64_t* last = maps + offset[rank - 1];
    const std::size_t grain =
        std::max<std::size_t>(1, (std::size_t{1} << 14) / std::max<std::size_t>(width, 1));
    parallel.for_range(rows, grain, [&](std::size_t b, std::size_t e, std::size_t) {
      for (std::size_t r = b; r < e; ++r) {
        W* row = dst + r * width;
        // The input row this output row reads, or none.
        std::size_t rest = r;
        std::int64_t from = 0, stride = in_width;
        bool inside = true;
        for (std::size_t d = rank - 1; d-- > 0;) {
          const std::int64_t o = static_cast<std::int64_t>(rest % out[d]);
          rest /= out[d];
          const std::int64_t i = maps[offset[d] + static_cast<std::size_t>(o)];
          if (i < 0) {
            inside = false;
            break;
          }
          from += i * stride;
          stride *= static_cast<std::int64_t>(in[d]);
        }
        if (!inside) {
          std::fill(row, row + width, value);
          continue;
        }
        const W* line = src + from;
        for (std::int64_t x = 0; x < lo; ++x) row[x] = last[x] < 0 ? value : line[last[x]];
        if (hi > lo)
          std::memcpy(row + lo, line + (lo - last_begin),
                      static_cast<std::size_t>(hi - lo) * sizeof(W));
        for (auto x = static_cast<std::size_t>(hi); x < width; ++x)
          row[x] = last[x] < 0 ? value : line[last[x]];
      }
    });
  }

  PadAttributes a_;
};

template <int Version>
std::unique_ptr<const Op> create(const Attributes& attributes) {
  PadAttributes initial;
  initial.version = Version;
  return std::make_unique<PadOp>(read_attributes(attributes, initial));
}

template <int Version>
OpDef pad_def() {
  return {
      .type = "Pad",
      .version = Version,
      .since_opset = Version,
      .min_inputs = 3,
      .max_inputs = 4,
      .num_outputs = 1,
      .create = create<Version>,
      .input_types = {{"data", all_types()},
                      {"pads_begin", integral_types()},
                      {"pads_end", integral_types()},
                      {"pad_value", all_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace

OpDef pad_v1_op() {
  return pad_def<1>();
}
OpDef pad_v12_op() {
  return pad_def<12>();
}

}  // namespace irlite

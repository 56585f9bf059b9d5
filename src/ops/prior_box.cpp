// PriorBox-1/8 and PriorBoxClustered-1: the SSD anchor boxes of a feature map. Both take the
// map's [height, width] and the image's [height, width] (1-D integer tensors of two elements)
// and give an f32 [2, height * width * priors * 4] tensor whatever the model's precision: row 0
// holds each prior's [xmin, ymin, xmax, ymax] normalised to the image, cell by cell, row 1 its
// four variances. The output's length comes from the map size's value, so the shape rule reads
// it (a Const, or a value folded from ShapeOf of a static shape, while loading).
//
// PriorBox places, at each cell, boxes of each min_size (and sqrt(min_size * max_size)) in each
// aspect ratio, with the fixed_size / fixed_ratio / density grids of extra boxes; PriorBox-8's
// min_max_aspect_ratios_order puts the max_size box after the aspect-ratio boxes when false.
// PriorBoxClustered places one box of each (width, height) pair. The arithmetic is float, in
// the order OpenVINO's reference does it, so that the priors match it bit for bit.
//
// OpenVINO sizes PriorBox's output by a count of priors per cell that some attribute mixes
// (fixed_size with min_size, more max_size than min_size values, fixed_ratio with as many
// aspect ratios) do not generate: those layers are refused, naming both counts.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

/// Refuses a list attribute with a value that is not positive (or not finite).
void require_positive(AttributeVisitor& v, std::string_view name,
                      const std::vector<double>& values) {
  for (const double x : values)
    v.require(name, std::isfinite(x) && x > 0, "expected positive numbers");
}

/// Variances are none (0.1 for all four), one (for all four) or four.
void require_variance(AttributeVisitor& v, const std::vector<double>& variance) {
  v.require("variance", variance.empty() || variance.size() == 1 || variance.size() == 4,
            "expected no, one or four values");
}

struct PriorBoxAttributes {
  int version = 1;  // not an attribute: the op's version
  std::vector<double> min_size, max_size, aspect_ratio, density, fixed_ratio, fixed_size, variance;
  bool flip = false, clip = false, scale_all_sizes = true, min_max_aspect_ratios_order = true;
  double step = 0, offset = 0;

  void visit(AttributeVisitor& v) {
    v.on("min_size", min_size, {});
    require_positive(v, "min_size", min_size);
    v.on("max_size", max_size, {});
    require_positive(v, "max_size", max_size);
    v.on("aspect_ratio", aspect_ratio, {});
    require_positive(v, "aspect_ratio", aspect_ratio);
    v.on("flip", flip, false);
    v.on("clip", clip, false);
    v.on("step", step, 0.0);
    v.on("offset", offset);
    v.on("variance", variance, {});
    require_variance(v, variance);
    v.on("scale_all_sizes", scale_all_sizes, true);
    v.on("fixed_size", fixed_size, {});
    require_positive(v, "fixed_size", fixed_size);
    v.on("fixed_ratio", fixed_ratio, {});
    require_positive(v, "fixed_ratio", fixed_ratio);
    v.on("density", density, {});
    // A density is a count of boxes per side (its whole part).
    for (const double d : density)
      v.require("density", std::isfinite(d) && d >= 1 && d < 65536,
                "expected numbers from 1 to 65535");
    v.require("density", fixed_size.empty() || density.size() == fixed_size.size(),
              "expected one value per fixed_size");
    if (version >= 8) v.on("min_max_aspect_ratios_order", min_max_aspect_ratios_order, true);
  }
};

struct PriorBoxClusteredAttributes {
  std::vector<double> width = {1.0}, height = {1.0}, variance;
  bool clip = true;
  double step = 0, step_w = 0, step_h = 0, offset = 0;

  // Real IR files carry a `flip` the op does not define; it is not read, as for every op.
  void visit(AttributeVisitor& v) {
    v.on("width", width, {1.0});
    require_positive(v, "width", width);
    v.on("height", height, {1.0});
    require_positive(v, "height", height);
    v.require("height", height.size() == width.size(), "expected one value per width");
    v.on("clip", clip, true);
    v.on("step", step, 0.0);
    v.on("step_w", step_w, 0.0);
    v.on("step_h", step_h, 0.0);
    v.on("offset", offset);
    v.on("variance", variance, {});
    require_variance(v, variance);
  }
};

/// The map and image sizes a run reads.
struct Sizes {
  std::int64_t h = 0, w = 0, image_h = 0, image_w = 0;
};

/// The part both ops share: the inputs' shape rule, the output's shape, and the checks of the
/// sizes' values. `priors` is the count per cell.
class PriorsOp : public Op {
 public:
  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 0; }

 protected:
  virtual std::int64_t priors() const = 0;
  /// The rules on the attributes' combination, as shape errors.
  virtual void check_attributes() const {}
  /// Writes the boxes and variances of every cell into `out`, [2, h * w * priors * 4].
  virtual void fill(const Sizes& sizes, float* out) const = 0;

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    check_attributes();
    static constexpr const char* kNames[] = {"the feature map's size", "the image's size"};
    for (std::size_t i = 0; i < 2; ++i) {
      const PartialShape& s = inputs[i].shape;
      if (!s.rank_is_static()) continue;
      if (s.rank() != 1 || !s[0].contains(2))
        input_error(i, fmt::format("{} must be a 1-D tensor of two values [height, width], got {}",
                                   kNames[i], to_string(s)));
    }
    for (std::size_t i = 0; i < 2; ++i)
      if (inputs[i].value) check_values(phase, i, *inputs[i].value);
    Dimension length;
    if (inputs[0].value) {
      const std::int64_t h = integer_at(*inputs[0].value, 0);
      const std::int64_t w = integer_at(*inputs[0].value, 1);
      length = Dimension(saturating_mul(saturating_mul(h, w), priors() * 4));
    } else {
      const auto h = known_dimension(inputs[0], 0);
      const auto w = known_dimension(inputs[0], 1);
      if (h && w) length = product(product(*h, *w), Dimension(priors() * 4));
    }
    return {{ElementType::f32, PartialShape({Dimension(2), length})}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext&) const override {
    check_values(Phase::run, 0, inputs[0]);
    check_values(Phase::run, 1, inputs[1]);
    const Sizes sizes{integer_at(inputs[0], 0), integer_at(inputs[0], 1), integer_at(inputs[1], 0),
                      integer_at(inputs[1], 1)};
    fill(sizes, outputs[0].data<float>());
  }

 private:
  /// Map sizes are not negative; image sizes are positive (the boxes are divided by them).
  static void check_values(Phase phase, std::size_t index, const Tensor& t) {
    if (t.size() != 2) return;  // the shape rule says it
    for (std::size_t k = 0; k < 2; ++k) {
      const std::int64_t v = integer_at(t, k);
      if (index == 0 && v < 0)
        bad_value(phase, 0,
                  fmt::format("the feature map's {} is {}; it must not be negative",
                              k == 0 ? "height" : "width", value_text(t, k)));
      if (index == 1 && v <= 0)
        bad_value(phase, 1,
                  fmt::format("the image's {} is {}; it must be positive",
                              k == 0 ? "height" : "width", value_text(t, k)));
    }
  }

  /// a * b over intervals, unbounded when either is.
  static Dimension product(const Dimension& a, const Dimension& b) {
    const std::int64_t lo = saturating_mul(a.min(), b.min());
    if (!a.has_upper_bound() || !b.has_upper_bound()) return Dimension(lo, Dimension::unbounded);
    return Dimension(lo, saturating_mul(a.max(), b.max()));
  }
};

/// Writes the variance row of `count` priors: the one value everywhere, or the four per prior.
void fill_variances(const std::vector<double>& variance, std::size_t count, float* row) {
  if (variance.size() == 4) {
    for (std::size_t i = 0; i < count; ++i)
      for (std::size_t j = 0; j < 4; ++j) row[i * 4 + j] = static_cast<float>(variance[j]);
  } else {
    const float v = variance.empty() ? 0.1f : static_cast<float>(variance[0]);
    std::fill(row, row + count * 4, v);
  }
}

std::vector<float> floats(const std::vector<double>& values) {
  return std::vector<float>(values.begin(), values.end());
}

class PriorBoxOp final : public PriorsOp {
 public:
  explicit PriorBoxOp(const PriorBoxAttributes& a)
      : a_(a),
        min_size_(floats(a.min_size)),
        max_size_(floats(a.max_size)),
        fixed_size_(floats(a.fixed_size)),
        fixed_ratio_(floats(a.fixed_ratio)) {
    // The aspect ratios in the order the boxes take them: 1, then each new ratio (one within
    // 1e-6 of a listed one is a duplicate) followed by its inverse when flip is set.
    ratios_.push_back(1.0f);
    for (const double r : a.aspect_ratio) {
      const auto ratio = static_cast<float>(r);
      const bool listed = std::any_of(ratios_.begin(), ratios_.end(),
                                      [&](float e) { return std::fabs(ratio - e) < 1e-6f; });
      if (listed) continue;
      ratios_.push_back(ratio);
      if (a.flip) ratios_.push_back(1.0f / ratio);
    }
    for (const double d : a.density) density_.push_back(static_cast<std::int64_t>(d));
    priors_ = openvino_count();
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(a_);
  }

 protected:
  std::int64_t priors() const override { return priors_; }

  void check_attributes() const override {
    const std::int64_t made = generated();
    if (made != priors_)
      op_error(
          fmt::format("these attributes make {} priors per cell but OpenVINO sizes the "
                      "output for {}: min_size, max_size, aspect_ratio, fixed_size, "
                      "fixed_ratio and density do not fit together",
                      made, priors_));
  }

  void fill(const Sizes& s, float* out) const override {
    const std::size_t count = static_cast<std::size_t>(s.h * s.w * priors_);
    float* boxes = out;
    // mxnet-like priors (scale_all_sizes false): sizes and step in units of the image height.
    float step = static_cast<float>(a_.step);
    float scale = 1.0f;
    if (!a_.scale_all_sizes) {
      step = step == -1.0f ? 1.0f * static_cast<float>(s.image_h) / static_cast<float>(s.h)
                           : step * static_cast<float>(s.image_h);
      scale = static_cast<float>(s.image_h);
    }
    const float inv_w = 1.0f / static_cast<float>(s.image_w);
    const float inv_h = 1.0f / static_cast<float>(s.image_h);
    const float step_x = step == 0 ? static_cast<float>(s.image_w) / static_cast<float>(s.w) : step;
    const float step_y = step == 0 ? static_cast<float>(s.image_h) / static_cast<float>(s.h) : step;
    // One box centred at (cx, cy) of half-extents (bw, bh); `edges` keeps the mins at or above
    // 0 and the maxes at or below 1, as the fixed_size grids do.
    const auto box = [&](float cx, float cy, float bw, float bh, bool edges) {
      float x0 = (cx - bw) * inv_w, y0 = (cy - bh) * inv_h;
      float x1 = (cx + bw) * inv_w, y1 = (cy + bh) * inv_h;
      if (edges) {
        x0 = std::max(x0, 0.0f);
        y0 = std::max(y0, 0.0f);
        x1 = std::min(x1, 1.0f);
        y1 = std::min(y1, 1.0f);
      }
      *boxes++ = x0;
      *boxes++ = y0;
      *boxes++ = x1;
      *boxes++ = y1;
    };
    for (std::int64_t h = 0; h < s.h; ++h) {
      for (std::int64_t w = 0; w < s.w; ++w) {
        const float cx = step == 0 ? (static_cast<float>(w) + 0.5f) * step_x
                                   : (static_cast<float>(a_.offset) + static_cast<float>(w)) * step;
        const float cy = step == 0 ? (static_cast<float>(h) + 0.5f) * step_y
                                   : (static_cast<float>(a_.offset) + static_cast<float>(h)) * step;
        for (std::size_t k = 0; k < fixed_size_.size(); ++k)
          fixed_grid(k, density_[k], cx, cy, box);
        for (std::size_t k = 0; k < min_size_.size(); ++k) {
          const float min_size = min_size_[k] * scale;
          box(cx, cy, min_size * 0.5f, min_size * 0.5f, false);
          const auto max_box = [&] {
            if (k >= max_size_.size()) return;
            const float half = std::sqrt(min_size * max_size_[k]) * 0.5f;
            box(cx, cy, half, half, false);
          };
          if (a_.min_max_aspect_ratios_order) max_box();
          // mxnet-like priors take the aspect ratios once, of the first size, after the last.
          if (a_.scale_all_sizes || k + 1 == min_size_.size()) {
            const float base = a_.scale_all_sizes ? min_size : min_size_[0] * scale;
            for (const float ratio : ratios_) {
              if (std::fabs(ratio - 1.0f) < 1e-6f) continue;
              const float root = std::sqrt(ratio);
              box(cx, cy, base * 0.5f * root, base * 0.5f / root, false);
            }
          }
          if (!a_.min_max_aspect_ratios_order) max_box();
        }
      }
    }
    if (a_.clip)
      for (std::size_t i = 0; i < count * 4; ++i) out[i] = std::min(std::max(out[i], 0.0f), 1.0f);
    fill_variances(a_.variance, count, out + count * 4);
  }

 private:
  /// OpenVINO's count of priors per cell, which sizes the output.
  std::int64_t openvino_count() const {
    // The distinct ratios, each rounded to 1e-6, with 1 and the inverses when flipped.
    std::vector<float> unique = {1.0f};
    for (const double r : a_.aspect_ratio) {
      const auto ratio = static_cast<float>(r);
      unique.push_back(static_cast<float>(std::round(ratio * 1e6) / 1e6));
      if (a_.flip) unique.push_back(static_cast<float>(std::round(1 / ratio * 1e6) / 1e6));
    }
    std::sort(unique.begin(), unique.end());
    const auto ratios =
        static_cast<std::int64_t>(std::unique(unique.begin(), unique.end()) - unique.begin());
    const auto mins = static_cast<std::int64_t>(a_.min_size.size());
    const auto maxes = static_cast<std::int64_t>(a_.max_size.size());
    std::int64_t n = a_.scale_all_sizes ? ratios * mins + maxes : ratios + mins - 1;
    if (!a_.fixed_size.empty()) n = ratios * static_cast<std::int64_t>(a_.fixed_size.size());
    for (const std::int64_t d : density_)
      n += (a_.fixed_ratio.empty() ? ratios : static_cast<std::int64_t>(a_.fixed_ratio.size())) *
           (d * d - 1);
    return n;
  }

  /// The priors per cell fill() writes.
  std::int64_t generated() const {
    const auto ratios = static_cast<std::int64_t>(ratios_.size());
    std::int64_t n = 0;
    for (std::size_t k = 0; k < fixed_size_.size(); ++k) {
      const std::int64_t d2 = density_[k] * density_[k];
      n += (fixed_ratio_.empty() ? ratios : static_cast<std::int64_t>(fixed_ratio_.size())) * d2;
    }
    for (std::size_t k = 0; k < min_size_.size(); ++k) {
      n += 1 + (k < max_size_.size() ? 1 : 0);
      if (a_.scale_all_sizes || k + 1 == min_size_.size()) n += ratios - 1;
    }
    return n;
  }

  /// The density x density grid of boxes of fixed size k around (cx, cy): of each fixed ratio,
  /// or square and then of each aspect ratio but 1.
  template <class Box>
  void fixed_grid(std::size_t k, std::int64_t density, float cx, float cy, const Box& box) const {
    const float size = fixed_size_[k];
    // OpenVINO truncates the size to whole pixels for the grid's origin and the square boxes.
    const auto whole = static_cast<std::uint64_t>(size);
    const auto shift = static_cast<std::int64_t>(size / static_cast<float>(density));
    const auto grid = [&](float bw, float bh) {
      for (std::int64_t r = 0; r < density; ++r) {
        for (std::int64_t c = 0; c < density; ++c) {
          float x = cx - static_cast<float>(whole / 2);
          x = x + static_cast<float>(shift) / 2.f;
          x = x + static_cast<float>(c * shift);
          float y = cy - static_cast<float>(whole / 2);
          y = y + static_cast<float>(shift) / 2.f;
          y = y + static_cast<float>(r * shift);
          box(x, y, bw, bh, true);
        }
      }
    };
    if (!fixed_ratio_.empty()) {
      for (const float ratio : fixed_ratio_) {
        const float root = std::sqrt(ratio);
        grid(size * 0.5f * root, size * 0.5f / root);
      }
      return;
    }
    const float half = static_cast<float>(whole) * 0.5f;
    grid(half, half);
    for (const float ratio : ratios_) {
      if (std::fabs(ratio - 1.0f) < 1e-6f) continue;
      const float root = std::sqrt(ratio);
      grid(size * 0.5f * root, size * 0.5f / root);
    }
  }

  PriorBoxAttributes a_;
  std::vector<float> min_size_, max_size_, fixed_size_, fixed_ratio_, ratios_;
  std::vector<std::int64_t> density_;  // the densities' whole parts
  std::int64_t priors_ = 0;
};

class PriorBoxClusteredOp final : public PriorsOp {
 public:
  explicit PriorBoxClusteredOp(const PriorBoxClusteredAttributes& a)
      : a_(a), width_(floats(a.width)), height_(floats(a.height)) {}

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(a_);
  }

 protected:
  std::int64_t priors() const override { return static_cast<std::int64_t>(width_.size()); }

  void fill(const Sizes& s, float* out) const override {
    const std::size_t count = static_cast<std::size_t>(s.h * s.w * priors());
    // step_w and step_h default to step; both zero, they are the image's size over the map's.
    float step_w = a_.step_w == 0 ? static_cast<float>(a_.step) : static_cast<float>(a_.step_w);
    float step_h = a_.step_h == 0 ? static_cast<float>(a_.step) : static_cast<float>(a_.step_h);
    if (step_w == 0 && step_h == 0) {
      step_w = static_cast<float>(s.image_w) / static_cast<float>(s.w);
      step_h = static_cast<float>(s.image_h) / static_cast<float>(s.h);
    }
    const auto image_w = static_cast<float>(s.image_w);
    const auto image_h = static_cast<float>(s.image_h);
    const auto offset = static_cast<float>(a_.offset);
    float* boxes = out;
    for (std::int64_t h = 0; h < s.h; ++h) {
      for (std::int64_t w = 0; w < s.w; ++w) {
        const float cx = (static_cast<float>(w) + offset) * step_w;
        const float cy = (static_cast<float>(h) + offset) * step_h;
        for (std::size_t k = 0; k < width_.size(); ++k) {
          float v[4] = {(cx - width_[k] / 2.0f) / image_w, (cy - height_[k] / 2.0f) / image_h,
                        (cx + width_[k] / 2.0f) / image_w, (cy + height_[k] / 2.0f) / image_h};
          for (float& x : v) {
            if (a_.clip) x = std::min(std::max(x, 0.0f), 1.0f);
            *boxes++ = x;
          }
        }
      }
    }
    fill_variances(a_.variance, count, out + count * 4);
  }

 private:
  PriorBoxClusteredAttributes a_;
  std::vector<float> width_, height_;
};

template <int Version>
std::unique_ptr<const Op> create_prior_box(const Attributes& attributes) {
  PriorBoxAttributes initial;
  initial.version = Version;
  return std::make_unique<PriorBoxOp>(read_attributes(attributes, initial));
}

std::unique_ptr<const Op> create_prior_box_clustered(const Attributes& attributes) {
  return std::make_unique<PriorBoxClusteredOp>(
      read_attributes<PriorBoxClusteredAttributes>(attributes));
}

OpDef priors_def(std::string_view type, int version,
                 std::function<std::unique_ptr<const Op>(const Attributes&)> create) {
  return {
      .type = type,
      .version = version,
      .since_opset = version,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = std::move(create),
      .input_types = {{"output_size", integral_types()}, {"image_size", integral_types()}},
      .output_types = {{"output", {ElementType::f32}}},
  };
}

}  // namespace

OpDef prior_box_v1_op() {
  return priors_def("PriorBox", 1, create_prior_box<1>);
}
OpDef prior_box_v8_op() {
  return priors_def("PriorBox", 8, create_prior_box<8>);
}
OpDef prior_box_clustered_op() {
  return priors_def("PriorBoxClustered", 1, create_prior_box_clustered);
}

}  // namespace irlite

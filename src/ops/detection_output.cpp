// DetectionOutput-1/8: an SSD's detections from its box codes ([N, priors * loc_classes * 4]),
// class confidences ([N, priors * classes]) and priors ([1 or N, 2 or 1, priors * 4 or 5]),
// with the optional confidences and codes of a first stage (RefineDet's ARM: [N, priors * 2] and
// the codes' shape). The output is [1, 1, rows, 7], of the box codes' type, rows being
// N * keep_top_k, or N * top_k * classes when keep_top_k is -1, or N * priors * classes. -8
// drops num_classes, which comes from the shapes. The kernel is in kernels/detection_output.cpp.
//
// The shape rule follows OpenVINO's: the counts of priors and classes are taken from whichever
// dimension gives them first and every other dimension must agree.

#include "kernels/detection_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "kernels/element.hpp"
#include "ops/op_list.hpp"

namespace irlite {
namespace {

enum class CodeType { corner, center_size };
// Read in any letter case, as every word attribute is.
constexpr std::string_view kCodeWords[] = {"caffe.priorboxparameter.corner",
                                           "caffe.priorboxparameter.center_size"};

struct DetectionOutputAttributes {
  int version = 1;  // not an attribute: the op's version
  std::int64_t num_classes = 0, background_label_id = 0, top_k = -1;
  std::int64_t input_height = 1, input_width = 1;
  std::vector<std::int64_t> keep_top_k;
  CodeType code_type = CodeType::corner;
  bool variance_encoded_in_target = false, share_location = true, clip_after_nms = false,
       clip_before_nms = false, decrease_label_id = false, normalized = false;
  double nms_threshold = 0, confidence_threshold = 0, objectness_score = 0;

  void visit(AttributeVisitor& v) {
    if (version == 1) {
      v.on("num_classes", num_classes);
      v.require("num_classes", num_classes > 0, "expected a positive number");
    }
    v.on("background_label_id", background_label_id, 0);
    v.on("top_k", top_k, -1);
    v.on("variance_encoded_in_target", variance_encoded_in_target, false);
    v.on("keep_top_k", keep_top_k, {});
    v.require("keep_top_k", !keep_top_k.empty(), "expected at least one value");
    v.on("code_type", code_type, kCodeWords, CodeType::corner);
    v.on("share_location", share_location, true);
    v.on("nms_threshold", nms_threshold);
    v.on("confidence_threshold", confidence_threshold, 0.0);
    v.on("clip_after_nms", clip_after_nms, false);
    v.on("clip_before_nms", clip_before_nms, false);
    v.on("decrease_label_id", decrease_label_id, false);
    v.on("normalized", normalized, false);
    // The priors are divided by these when not normalized.
    v.on("input_height", input_height, 1);
    v.require("input_height", input_height > 0, "expected a positive number");
    v.on("input_width", input_width, 1);
    v.require("input_width", input_width > 0, "expected a positive number");
    v.on("objectness_score", objectness_score, 0.0);
  }
};

enum Port : std::size_t { kLocation, kConfidence, kPriors, kArmConfidence, kArmLocation };

/// a * b over intervals, unbounded when either is.
Dimension product(const Dimension& a, const Dimension& b) {
  const std::int64_t lo = saturating_mul(a.min(), b.min());
  if (!a.has_upper_bound() || !b.has_upper_bound()) return Dimension(lo, Dimension::unbounded);
  return Dimension(lo, saturating_mul(a.max(), b.max()));
}

class DetectionOutputOp final : public Op {
 public:
  explicit DetectionOutputOp(const DetectionOutputAttributes& a) : a_(a) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    if (inputs.size() == 4)
      op_error(
          "DetectionOutput takes 3 inputs, or 5 with the first stage's confidences and box "
          "codes; got 4");
    check_types(inputs);
    const Counts n = counts(inputs);
    Dimension rows;
    const std::int64_t keep = a_.keep_top_k[0];
    if (keep > 0)
      rows = product(n.images, Dimension(keep));
    else if (keep == -1 && a_.top_k > 0)
      rows = product(product(n.images, Dimension(a_.top_k)), n.classes);
    else
      rows = product(product(n.images, n.priors), n.classes);
    return {{inputs[kLocation].type, PartialShape({1, 1, rows, 7})}};
  }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                            unsigned) const override {
    const DetectionParams p = params(inputs, outputs[0]);
    const Scratch counting = Scratch::counting();
    dispatch_float(inputs[kLocation].element_type(), [&](auto tag) {
      using C = compute_t<typename decltype(tag)::type>;
      (void)in_compute_type<C>(inputs, outputs[0], nullptr, counting, true);
      take_detection_scratch<C>(p, counting);
    });
    return counting.bytes();
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const DetectionParams p = params(inputs, outputs[0]);
    const bool ok = dispatch_float(inputs[kLocation].element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = compute_t<T>;
      C* direct = nullptr;
      if constexpr (std::is_same_v<T, C>) direct = outputs[0].data<C>();
      const Converted<C> c = in_compute_type<C>(inputs, outputs[0], direct, context.scratch, false);
      detection_output<C>(p, c.in, c.out, context.scratch);
      if constexpr (!std::is_same_v<T, C>) {
        T* out = outputs[0].data<T>();
        for (std::size_t i = 0; i < outputs[0].size(); ++i) out[i] = static_cast<T>(c.out[i]);
      }
    });
    if (!ok) no_kernel(kLocation, inputs[kLocation].element_type());
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(a_);
  }

 private:
  /// Counts read off the shapes: 0 or a dynamic dimension where they are not known.
  struct Counts {
    Dimension images, priors, classes;
  };

  /// The inputs and the output in the compute type C.
  template <class C>
  struct Converted {
    DetectionInputs<C> in;
    C* out = nullptr;
  };

  /// The class and prior box inputs are of the box codes' type; the priors of any real type.
  static void check_types(std::span<const ValueInfo> inputs) {
    const ElementType t = inputs[kLocation].type;
    const auto same = [&](std::size_t i, const char* what) {
      if (i < inputs.size() && inputs[i].type != t)
        input_error(i, fmt::format("{} must be {} as the box codes are, got {}", what, to_string(t),
                                   to_string(inputs[i].type)));
    };
    same(kConfidence, "the class confidences");
    same(kArmConfidence, "the first stage's confidences");
    same(kArmLocation, "the first stage's box codes");
  }

  /// The priors' and classes' counts, and every rule on the inputs' shapes.
  Counts counts(std::span<const ValueInfo> inputs) const {
    static constexpr std::int64_t kRanks[] = {2, 2, 3, 2, 2};
    static constexpr const char* kWhat[] = {"the box codes", "the class confidences", "the priors",
                                            "the first stage's confidences",
                                            "the first stage's box codes"};
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const PartialShape& s = inputs[i].shape;
      if (s.rank_is_static() && s.rank() != kRanks[i])
        input_error(i,
                    fmt::format("{} must have rank {}, got {}", kWhat[i], kRanks[i], to_string(s)));
    }
    const bool arm = inputs.size() == 5;
    const PartialShape& loc = inputs[kLocation].shape;
    const PartialShape& conf = inputs[kConfidence].shape;
    const PartialShape& priors = inputs[kPriors].shape;
    const std::int64_t box_size = a_.normalized ? 4 : 5;
    std::int64_t num_priors = 0;
    std::int64_t num_classes = a_.version == 1 ? a_.num_classes : 0;
    const auto require_multiple = [](std::size_t port, std::int64_t value, std::int64_t of,
                                     const char* what) {
      if (of <= 0 || value % of != 0)
        input_error(port, fmt::format("{} ({}) must be a multiple of {}", what, value, of));
    };
    if (a_.version != 1) {
      // -8: the priors from the priors' length, or the first stage's confidences; the classes
      // from the confidences, or the unshared box codes.
      if (priors.rank_is_static() && priors[2].is_static()) {
        require_multiple(kPriors, priors[2].value(), box_size, "the priors' length");
        num_priors = priors[2].value() / box_size;
      } else if (arm && inputs[kArmConfidence].shape.rank_is_static() &&
                 inputs[kArmConfidence].shape[1].is_static()) {
        const std::int64_t d = inputs[kArmConfidence].shape[1].value();
        require_multiple(kArmConfidence, d, 2, "the first stage's confidences per image");
        num_priors = d / 2;
      }
      if (num_priors > 0 && conf.rank_is_static() && conf[1].is_static()) {
        require_multiple(kConfidence, conf[1].value(), num_priors,
                         "the class confidences per image");
        num_classes = conf[1].value() / num_priors;
      } else if (num_priors > 0 && !a_.share_location && loc.rank_is_static() &&
                 loc[1].is_static()) {
        require_multiple(kLocation, loc[1].value(), num_priors * 4, "the box codes per image");
        num_classes = loc[1].value() / (num_priors * 4);
      }
    }
    const std::int64_t loc_classes = a_.share_location ? 1 : num_classes;
    Dimension images;
    if (loc.rank_is_static()) {
      images = loc[0];
      if (num_priors == 0 && loc[1].is_static() && loc_classes > 0) {
        require_multiple(kLocation, loc[1].value(), loc_classes * 4, "the box codes per image");
        num_priors = loc[1].value() / (loc_classes * 4);
      }
      if (num_priors > 0 && loc_classes > 0 && !loc[1].contains(num_priors * loc_classes * 4))
        input_error(
            kLocation,
            fmt::format("the box codes {} must hold {} per image ({} priors, {} classes)",
                        to_string(loc), num_priors * loc_classes * 4, num_priors, loc_classes));
    }
    if (conf.rank_is_static()) {
      images = batch(kConfidence, "the class confidences", conf, images);
      if (conf[1].is_static() && num_classes > 0) {
        if (num_priors == 0) {
          require_multiple(kConfidence, conf[1].value(), num_classes,
                           "the class confidences per image");
          num_priors = conf[1].value() / num_classes;
        } else if (conf[1].value() != num_priors * num_classes) {
          input_error(
              kConfidence,
              fmt::format("the class confidences {} must hold {} per image ({} priors, "
                          "{} classes)",
                          to_string(conf), num_priors * num_classes, num_priors, num_classes));
        }
      }
    }
    if (priors.rank_is_static()) {
      if (!priors[0].contains(1) && !priors[0].compatible(images))
        input_error(kPriors, fmt::format("the priors {} must have a batch of 1 or {}",
                                         to_string(priors), to_string(images)));
      const std::int64_t rows = a_.variance_encoded_in_target ? 1 : 2;
      if (!priors[1].contains(rows))
        input_error(kPriors, fmt::format("the priors {} must have {} row{} ({})", to_string(priors),
                                         rows, rows == 1 ? "" : "s",
                                         a_.variance_encoded_in_target
                                             ? "the variances are encoded in the target"
                                             : "boxes and variances"));
      if (priors[2].is_static()) {
        if (num_priors == 0) {
          require_multiple(kPriors, priors[2].value(), box_size, "the priors' length");
          num_priors = priors[2].value() / box_size;
        } else if (priors[2].value() != num_priors * box_size) {
          input_error(kPriors,
                      fmt::format("the priors {} must hold {} values per row ({} "
                                  "priors of {})",
                                  to_string(priors), num_priors * box_size, num_priors, box_size));
        }
      }
    }
    if (arm) {
      const PartialShape& arm_conf = inputs[kArmConfidence].shape;
      if (arm_conf.rank_is_static()) {
        images = batch(kArmConfidence, "the first stage's confidences", arm_conf, images);
        if (num_priors > 0 && !arm_conf[1].contains(num_priors * 2))
          input_error(kArmConfidence,
                      fmt::format("the first stage's confidences {} must hold {} per image ({} "
                                  "priors, 2 classes)",
                                  to_string(arm_conf), num_priors * 2, num_priors));
        if (arm_conf[1].is_static()) num_priors = arm_conf[1].value() / 2;
      }
      const PartialShape& arm_loc = inputs[kArmLocation].shape;
      if (!arm_loc.compatible(loc))
        input_error(kArmLocation,
                    fmt::format("the first stage's box codes {} must have the box codes' shape {}",
                                to_string(arm_loc), to_string(loc)));
    }
    return {images, num_priors > 0 ? Dimension(num_priors) : Dimension(),
            num_classes > 0 ? Dimension(num_classes) : Dimension()};
  }

  /// The batch `s` gives, checked against what the inputs before it gave.
  static Dimension batch(std::size_t port, const char* what, const PartialShape& s,
                         const Dimension& images) {
    if (!s[0].compatible(images))
      input_error(port, fmt::format("{} {} must have the batch of the box codes ({})", what,
                                    to_string(s), to_string(images)));
    return images.is_static() ? images : s[0];
  }

  DetectionParams params(std::span<const Tensor> inputs, const Tensor& output) const {
    DetectionParams p;
    const Shape& loc = inputs[kLocation].shape();
    const Shape& priors = inputs[kPriors].shape();
    p.images = static_cast<std::size_t>(loc[0]);
    p.priors = static_cast<std::size_t>(priors[2] / (a_.normalized ? 4 : 5));
    p.classes = a_.version == 1 ? static_cast<std::size_t>(a_.num_classes)
                : p.priors == 0
                    ? 0
                    : static_cast<std::size_t>(inputs[kConfidence].shape()[1]) / p.priors;
    p.loc_classes = a_.share_location ? 1 : p.classes;
    p.prior_batches = static_cast<std::size_t>(priors[0]);
    p.results = static_cast<std::size_t>(output.shape()[2]);
    p.normalized = a_.normalized;
    p.variance_encoded = a_.variance_encoded_in_target;
    p.center_size = a_.code_type == CodeType::center_size;
    p.share_location = a_.share_location;
    p.clip_before_nms = a_.clip_before_nms;
    p.clip_after_nms = a_.clip_after_nms;
    p.decrease_label_id = a_.decrease_label_id;
    p.background = a_.background_label_id;
    p.top_k = a_.top_k;
    p.keep_top_k = a_.keep_top_k[0];
    p.nms_threshold = static_cast<float>(a_.nms_threshold);
    p.confidence_threshold = static_cast<float>(a_.confidence_threshold);
    p.objectness_score = static_cast<float>(a_.objectness_score);
    p.input_width = static_cast<double>(a_.input_width);
    p.input_height = static_cast<double>(a_.input_height);
    return p;
  }

  /// The inputs and the output in C: the tensors of type C themselves (`out` is the output's
  /// data when it is of type C), copies taken from `scratch` of the others. The input copies
  /// are filled unless `scratch` is counting.
  template <class C>
  static Converted<C> in_compute_type(std::span<const Tensor> inputs, const Tensor& output, C* out,
                                      const Scratch& scratch, bool counting) {
    Converted<C> c;
    const C** ptrs[5] = {&c.in.location, &c.in.confidence, &c.in.priors, &c.in.arm_confidence,
                         &c.in.arm_location};
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = inputs[i];
      if (t.element_type() == (std::is_same_v<C, double> ? ElementType::f64 : ElementType::f32)) {
        *ptrs[i] = t.data<C>();
        continue;
      }
      const std::span<C> copy = scratch.take<C>(t.size());
      *ptrs[i] = copy.data();
      if (counting) continue;
      dispatch_float(t.element_type(), [&](auto tag) {
        using S = typename decltype(tag)::type;
        const S* from = t.data<S>();
        for (std::size_t k = 0; k < copy.size(); ++k)
          copy[k] = static_cast<C>(static_cast<double>(from[k]));
      });
    }
    c.out = out ? out : scratch.take<C>(output.size()).data();
    return c;
  }

  DetectionOutputAttributes a_;
};

template <int Version>
std::unique_ptr<const Op> create(const Attributes& attributes) {
  DetectionOutputAttributes initial;
  initial.version = Version;
  return std::make_unique<DetectionOutputOp>(read_attributes(attributes, initial));
}

template <int Version>
OpDef detection_output_def() {
  return {
      .type = "DetectionOutput",
      .version = Version,
      .since_opset = Version,
      .min_inputs = 3,
      .max_inputs = 5,
      .num_outputs = 1,
      .create = create<Version>,
      .input_types = {{"box_logits", real_types()},
                      {"class_preds", real_types()},
                      {"proposals", real_types()},
                      {"aux_class_preds", real_types()},
                      {"aux_box_preds", real_types()}},
      .output_types = {{"output", real_types()}},
  };
}

}  // namespace

OpDef detection_output_v1_op() {
  return detection_output_def<1>();
}
OpDef detection_output_v8_op() {
  return detection_output_def<8>();
}

}  // namespace irlite

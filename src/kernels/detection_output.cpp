#include "kernels/detection_output.hpp"

#include <algorithm>
#include <cmath>

namespace irlite {
namespace {

template <class C>
struct Box {
  C xmin, ymin, xmax, ymax;
};

/// A candidate or a kept detection.
template <class C>
struct Detection {
  C score;
  std::int64_t label;
  std::int64_t prior;
};

/// Descending confidence, then ascending prior, then ascending label: a total order.
template <class C>
bool by_score(const Detection<C>& a, const Detection<C>& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.prior != b.prior) return a.prior < b.prior;
  return a.label < b.label;
}

/// Ascending label, then by_score(): the rows' order within an image.
template <class C>
bool by_label(const Detection<C>& a, const Detection<C>& b) {
  if (a.label != b.label) return a.label < b.label;
  return by_score(a, b);
}

/// The pieces the kernel takes, in the order it takes them.
template <class C>
struct Pieces {
  std::span<Box<C>> boxes;             // the decoded boxes of one image: [loc_classes][priors]
  std::span<Detection<C>> candidates;  // one NMS's candidates
  std::span<Detection<C>> kept;        // one image's detections
};

/// Most detections one image keeps before keep_top_k.
std::size_t kept_capacity(const DetectionParams& p) {
  const std::size_t per_nms =
      p.top_k > -1 ? std::min(p.priors, static_cast<std::size_t>(p.top_k)) : p.priors;
  return p.decrease_label_id ? per_nms : per_nms * p.classes;
}

template <class C>
Pieces<C> take_pieces(const DetectionParams& p, const Scratch& scratch) {
  Pieces<C> pieces;
  pieces.boxes = scratch.take<Box<C>>(p.loc_classes * p.priors);
  pieces.candidates = scratch.take<Detection<C>>(p.priors);
  pieces.kept = scratch.take<Detection<C>>(kept_capacity(p));
  return pieces;
}

template <class C>
C clamp01(C x) {
  return std::max<C>(0, std::min<C>(1, x));
}

template <class C>
C box_size(const Box<C>& b) {
  if (b.xmax < b.xmin || b.ymax < b.ymin) return 0;
  return (b.xmax - b.xmin) * (b.ymax - b.ymin);
}

/// Intersection over union; 0 for boxes that only touch or do not meet.
template <class C>
C overlap(const Box<C>& a, const Box<C>& b) {
  if (b.xmin > a.xmax || b.xmax < a.xmin || b.ymin > a.ymax || b.ymax < a.ymin) return 0;
  const C width = std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin);
  const C height = std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin);
  if (!(width > 0 && height > 0)) return 0;
  const C intersection = width * height;
  return intersection / (box_size(a) + box_size(b) - intersection);
}

/// The box `code` (4 values) encodes relative to `prior`, with the prior's variances (null when
/// they are encoded in the target).
template <class C>
Box<C> decode(const DetectionParams& p, Box<C> prior, const C* variance, const C* code) {
  if (!p.normalized) {
    prior.xmin /= static_cast<C>(p.input_width);
    prior.ymin /= static_cast<C>(p.input_height);
    prior.xmax /= static_cast<C>(p.input_width);
    prior.ymax /= static_cast<C>(p.input_height);
  }
  C v[4] = {1, 1, 1, 1};
  if (variance) std::copy(variance, variance + 4, v);
  // Without variances the codes are used as they are (no multiplication by 1).
  const auto scaled = [&](int k) { return variance ? v[k] * code[k] : code[k]; };
  Box<C> b;
  if (!p.center_size) {
    b = {prior.xmin + scaled(0), prior.ymin + scaled(1), prior.xmax + scaled(2),
         prior.ymax + scaled(3)};
  } else {
    const C width = prior.xmax - prior.xmin;
    const C height = prior.ymax - prior.ymin;
    const C cx = (prior.xmin + prior.xmax) / 2;
    const C cy = (prior.ymin + prior.ymax) / 2;
    const C x = scaled(0) * width + cx;
    const C y = scaled(1) * height + cy;
    const C w = static_cast<C>(std::exp(scaled(2))) * width;
    const C h = static_cast<C>(std::exp(scaled(3))) * height;
    b = {x - w / 2, y - h / 2, x + w / 2, y + h / 2};
  }
  if (p.clip_before_nms) b = {clamp01(b.xmin), clamp01(b.ymin), clamp01(b.xmax), clamp01(b.ymax)};
  return b;
}

/// One image's work.
template <class C>
class ImageDetector {
 public:
  ImageDetector(const DetectionParams& p, const DetectionInputs<C>& in, const Pieces<C>& pieces,
                std::size_t image)
      : p_(p), pieces_(pieces) {
    const std::size_t loc_size = p.priors * p.loc_classes * 4;
    location_ = in.location + image * loc_size;
    arm_location_ = in.arm_location ? in.arm_location + image * loc_size : nullptr;
    confidence_ = in.confidence + image * p.priors * p.classes;
    arm_confidence_ = in.arm_confidence ? in.arm_confidence + image * p.priors * 2 : nullptr;
    const std::size_t prior_size = p.normalized ? 4 : 5;
    const std::size_t batch = p.prior_batches == 1 ? 0 : image;
    priors_ = in.priors + batch * p.priors * prior_size * (p.variance_encoded ? 1 : 2);
  }

  /// Decodes the boxes, runs the NMS and keep_top_k; returns the detections in row order.
  std::span<const Detection<C>> run() {
    decode_all();
    const std::size_t n = p_.decrease_label_id ? mxnet_nms() : caffe_nms();
    std::span<Detection<C>> kept = pieces_.kept.first(n);
    if (p_.keep_top_k > -1 && n > static_cast<std::size_t>(p_.keep_top_k)) {
      const auto keep = static_cast<std::ptrdiff_t>(p_.keep_top_k);
      std::partial_sort(kept.begin(), kept.begin() + keep, kept.end(), by_score<C>);
      kept = kept.first(static_cast<std::size_t>(keep));
    }
    std::sort(kept.begin(), kept.end(), by_label<C>);
    return kept;
  }

  const Box<C>& box(std::int64_t label, std::int64_t prior) const {
    const std::size_t set = p_.share_location ? 0 : static_cast<std::size_t>(label);
    return pieces_.boxes[set * p_.priors + static_cast<std::size_t>(prior)];
  }

  /// Class c's confidence at prior i; with ARM inputs, a prior the first stage finds no object
  /// in is all background.
  C score(std::size_t c, std::size_t i) const {
    if (arm_confidence_ && arm_confidence_[i * 2 + 1] < static_cast<C>(p_.objectness_score))
      return static_cast<std::int64_t>(c) == p_.background ? C(1) : C(0);
    return confidence_[i * p_.classes + c];
  }

 private:
  void decode_all() {
    const std::size_t prior_size = p_.normalized ? 4 : 5;
    const std::size_t skip = p_.normalized ? 0 : 1;
    const C* variances = p_.variance_encoded ? nullptr : priors_ + p_.priors * prior_size;
    for (std::size_t set = 0; set < p_.loc_classes; ++set) {
      // Without shared locations the background's boxes are never used.
      if (!p_.share_location && static_cast<std::int64_t>(set) == p_.background) continue;
      for (std::size_t i = 0; i < p_.priors; ++i) {
        const C* q = priors_ + i * prior_size + skip;
        Box<C> prior{q[0], q[1], q[2], q[3]};
        const C* variance = variances ? variances + i * 4 : nullptr;
        const std::size_t at = (i * p_.loc_classes + set) * 4;
        // Cascade regression: the first stage's codes move the prior, the second's the result.
        if (arm_location_) prior = decode(p_, prior, variance, arm_location_ + at);
        pieces_.boxes[set * p_.priors + i] = decode(p_, prior, variance, location_ + at);
      }
    }
  }

  /// Sorts `count` candidates and keeps at most top_k of them, in order.
  std::span<Detection<C>> best(std::size_t count) {
    std::span<Detection<C>> c = pieces_.candidates.first(count);
    if (p_.top_k > -1 && static_cast<std::size_t>(p_.top_k) < count) {
      const auto k = static_cast<std::ptrdiff_t>(p_.top_k);
      std::partial_sort(c.begin(), c.begin() + k, c.end(), by_score<C>);
      return c.first(static_cast<std::size_t>(k));
    }
    std::sort(c.begin(), c.end(), by_score<C>);
    return c;
  }

  /// Greedy suppression of `candidates` (in order) against the detections of the same label
  /// kept since `from`, appended to the kept list from `n`; returns the new count.
  std::size_t suppress(std::span<const Detection<C>> candidates, std::size_t from, std::size_t n) {
    const C threshold = static_cast<C>(p_.nms_threshold);
    for (const Detection<C>& d : candidates) {
      const Box<C>& b = box(d.label, d.prior);
      bool keep = true;
      for (std::size_t k = from; k < n && keep; ++k)
        if (pieces_.kept[k].label == d.label &&
            overlap(b, box(d.label, pieces_.kept[k].prior)) > threshold)
          keep = false;
      if (keep) pieces_.kept[n++] = d;
    }
    return n;
  }

  /// Caffe's way: each class but the background on its own, candidates above the threshold.
  std::size_t caffe_nms() {
    const C threshold = static_cast<C>(p_.confidence_threshold);
    std::size_t n = 0;
    for (std::size_t c = 0; c < p_.classes; ++c) {
      if (static_cast<std::int64_t>(c) == p_.background) continue;
      std::size_t count = 0;
      for (std::size_t i = 0; i < p_.priors; ++i) {
        const C s = score(c, i);
        if (s > threshold)
          pieces_.candidates[count++] = {s, static_cast<std::int64_t>(c),
                                         static_cast<std::int64_t>(i)};
      }
      n = suppress(best(count), n, n);
    }
    return n;
  }

  /// MXNet's way: each prior's best class from 1 on (not the background), at or above the
  /// threshold, all classes in one ranking.
  std::size_t mxnet_nms() {
    const C threshold = static_cast<C>(p_.confidence_threshold);
    std::size_t count = 0;
    for (std::size_t i = 0; i < p_.priors; ++i) {
      C best_score = -1;
      std::int64_t label = 0;
      for (std::size_t c = 1; c < p_.classes; ++c) {
        if (p_.background > -1 && static_cast<std::int64_t>(c) == p_.background) continue;
        const C s = score(c, i);
        if (s > best_score) {
          best_score = s;
          label = static_cast<std::int64_t>(c);
        }
      }
      if (label > 0 && best_score >= threshold)
        pieces_.candidates[count++] = {best_score, label, static_cast<std::int64_t>(i)};
    }
    return suppress(best(count), 0, 0);
  }

  const DetectionParams& p_;
  const Pieces<C>& pieces_;
  const C* location_ = nullptr;
  const C* arm_location_ = nullptr;
  const C* confidence_ = nullptr;
  const C* arm_confidence_ = nullptr;
  const C* priors_ = nullptr;
};

}  // namespace

template <class C>
void take_detection_scratch(const DetectionParams& p, const Scratch& counting) {
  (void)take_pieces<C>(p, counting);
}

template <class C>
void detection_output(const DetectionParams& p, const DetectionInputs<C>& in, C* out,
                      const Scratch& scratch) {
  const Pieces<C> pieces = take_pieces<C>(p, scratch);
  std::fill(out, out + p.results * 7, C(0));
  std::size_t row = 0;
  for (std::size_t image = 0; image < p.images; ++image) {
    ImageDetector<C> detector(p, in, pieces, image);
    for (const Detection<C>& d : detector.run()) {
      if (row == p.results) break;  // the shape rule leaves room for every detection
      Box<C> b = detector.box(d.label, d.prior);
      if (p.clip_after_nms)
        b = {clamp01(b.xmin), clamp01(b.ymin), clamp01(b.xmax), clamp01(b.ymax)};
      C* r = out + row * 7;
      r[0] = static_cast<C>(image);
      r[1] = static_cast<C>(p.decrease_label_id ? d.label - 1 : d.label);
      r[2] = d.score;
      r[3] = b.xmin;
      r[4] = b.ymin;
      r[5] = b.xmax;
      r[6] = b.ymax;
      ++row;
    }
  }
  if (row < p.results) out[row * 7] = C(-1);
}

template void take_detection_scratch<float>(const DetectionParams&, const Scratch&);
template void take_detection_scratch<double>(const DetectionParams&, const Scratch&);
template void detection_output<float>(const DetectionParams&, const DetectionInputs<float>&, float*,
                                      const Scratch&);
template void detection_output<double>(const DetectionParams&, const DetectionInputs<double>&,
                                       double*, const Scratch&);

}  // namespace irlite

#pragma once
// A plain reference for DetectionOutput-1/8, written from the specification and the behaviour of
// OpenVINO's reference implementation, in double: decode every box, rank and suppress per
// class (or per prior's best class for decrease_label_id), keep the best keep_top_k, list the
// rows by label. Stable sorts on (confidence descending) over candidates listed by prior index
// give the ties to the lower prior.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

namespace irlite::test::reference {

struct DetectionSpec {
  std::int64_t classes = 2, background = 0, top_k = -1, keep_top_k = -1;
  bool share_location = true, variance_encoded = false, center_size = false,
       clip_before_nms = false, clip_after_nms = false, decrease_label_id = false,
       normalized = true;
  double nms_threshold = 0.5, confidence_threshold = 0, objectness_score = 0;
  double input_width = 1, input_height = 1;
};

using RefBox = std::array<double, 4>;

inline double ref_area(const RefBox& b) {
  return b[2] < b[0] || b[3] < b[1] ? 0 : (b[2] - b[0]) * (b[3] - b[1]);
}

inline double ref_iou(const RefBox& a, const RefBox& b) {
  const double w = std::min(a[2], b[2]) - std::max(a[0], b[0]);
  const double h = std::min(a[3], b[3]) - std::max(a[1], b[1]);
  if (b[0] > a[2] || b[2] < a[0] || b[1] > a[3] || b[3] < a[1] || w <= 0 || h <= 0) return 0;
  return w * h / (ref_area(a) + ref_area(b) - w * h);
}

/// The output rows ([image, label, score, box]) for `images` images; `rows` is the output's row
/// count; arm_conf and arm_loc are empty without the first stage.
inline std::vector<double> detection_output(const DetectionSpec& s, std::size_t images,
                                            std::size_t priors, const std::vector<double>& loc,
                                            const std::vector<double>& conf,
                                            const std::vector<double>& prior_data,
                                            std::size_t prior_batches,
                                            const std::vector<double>& arm_conf,
                                            const std::vector<double>& arm_loc, std::size_t rows) {
  const auto classes = static_cast<std::size_t>(s.classes);
  const std::size_t sets = s.share_location ? 1 : classes;
  const std::size_t width = s.normalized ? 4 : 5;
  const bool arm = !arm_conf.empty();
  const auto decode = [&](RefBox p, const double* var, const double* code) {
    if (!s.normalized) {
      p = {p[0] / s.input_width, p[1] / s.input_height, p[2] / s.input_width,
           p[3] / s.input_height};
    }
    double c[4];
    for (int k = 0; k < 4; ++k) c[k] = var ? var[k] * code[k] : code[k];
    RefBox b;
    if (s.center_size) {
      const double pw = p[2] - p[0], ph = p[3] - p[1];
      const double x = c[0] * pw + (p[0] + p[2]) / 2, y = c[1] * ph + (p[1] + p[3]) / 2;
      const double w = std::exp(c[2]) * pw, h = std::exp(c[3]) * ph;
      b = {x - w / 2, y - h / 2, x + w / 2, y + h / 2};
    } else {
      b = {p[0] + c[0], p[1] + c[1], p[2] + c[2], p[3] + c[3]};
    }
    if (s.clip_before_nms)
      for (double& v : b) v = std::clamp(v, 0.0, 1.0);
    return b;
  };
  std::vector<double> out(rows * 7, 0.0);
  std::size_t row = 0;
  for (std::size_t n = 0; n < images; ++n) {
    const double* pr = prior_data.data() +
                       (prior_batches == 1 ? 0 : n) * priors * width * (s.variance_encoded ? 1 : 2);
    // boxes[set][prior]
    std::vector<std::vector<RefBox>> boxes(sets, std::vector<RefBox>(priors));
    for (std::size_t set = 0; set < sets; ++set) {
      for (std::size_t i = 0; i < priors; ++i) {
        const double* q = pr + i * width + (s.normalized ? 0 : 1);
        RefBox p = {q[0], q[1], q[2], q[3]};
        const double* var = s.variance_encoded ? nullptr : pr + priors * width + i * 4;
        const std::size_t at = n * priors * sets * 4 + (i * sets + set) * 4;
        if (arm) p = decode(p, var, arm_loc.data() + at);
        boxes[set][i] = decode(p, var, loc.data() + at);
      }
    }
    const auto score = [&](std::size_t c, std::size_t i) {
      if (arm && arm_conf[n * priors * 2 + i * 2 + 1] < static_cast<float>(s.objectness_score))
        return static_cast<std::int64_t>(c) == s.background ? 1.0 : 0.0;
      return conf[n * priors * classes + i * classes + c];
    };
    const auto box_of = [&](std::size_t c, std::size_t i) -> const RefBox& {
      return boxes[s.share_location ? 0 : c][i];
    };
    struct Kept {
      double score;
      std::size_t label, prior;
    };
    std::vector<Kept> kept;
    // Ranks candidates (listed by prior), cuts to top_k and suppresses per label.
    const auto nms = [&](std::vector<Kept> cand) {
      std::stable_sort(cand.begin(), cand.end(),
                       [](const Kept& a, const Kept& b) { return a.score > b.score; });
      if (s.top_k > -1 && cand.size() > static_cast<std::size_t>(s.top_k))
        cand.resize(static_cast<std::size_t>(s.top_k));
      std::map<std::size_t, std::vector<std::size_t>> by_label;
      for (const Kept& k : cand) {
        bool keep = true;
        for (const std::size_t j : by_label[k.label])
          keep = keep && !(ref_iou(box_of(k.label, k.prior), box_of(k.label, j)) >
                           static_cast<float>(s.nms_threshold));
        if (!keep) continue;
        by_label[k.label].push_back(k.prior);
        kept.push_back(k);
      }
    };
    const double threshold = static_cast<float>(s.confidence_threshold);
    if (!s.decrease_label_id) {
      for (std::size_t c = 0; c < classes; ++c) {
        if (static_cast<std::int64_t>(c) == s.background) continue;
        std::vector<Kept> cand;
        for (std::size_t i = 0; i < priors; ++i)
          if (score(c, i) > threshold) cand.push_back({score(c, i), c, i});
        nms(cand);
      }
    } else {
      std::vector<Kept> cand;
      for (std::size_t i = 0; i < priors; ++i) {
        double best = -1;
        std::size_t label = 0;
        for (std::size_t c = 1; c < classes; ++c)
          if (static_cast<std::int64_t>(c) != s.background && score(c, i) > best) {
            best = score(c, i);
            label = c;
          }
        if (label > 0 && best >= threshold) cand.push_back({best, label, i});
      }
      nms(cand);
    }
    if (s.keep_top_k > -1 && kept.size() > static_cast<std::size_t>(s.keep_top_k)) {
      std::stable_sort(kept.begin(), kept.end(), [](const Kept& a, const Kept& b) {
        if (a.score != b.score) return a.score > b.score;
        return a.prior < b.prior;
      });
      kept.resize(static_cast<std::size_t>(s.keep_top_k));
    }
    std::stable_sort(kept.begin(), kept.end(), [](const Kept& a, const Kept& b) {
      if (a.label != b.label) return a.label < b.label;
      if (a.score != b.score) return a.score > b.score;
      return a.prior < b.prior;
    });
    for (const Kept& k : kept) {
      RefBox b = box_of(k.label, k.prior);
      if (s.clip_after_nms)
        for (double& v : b) v = std::clamp(v, 0.0, 1.0);
      double* r = out.data() + row * 7;
      r[0] = static_cast<double>(n);
      r[1] = static_cast<double>(k.label) - (s.decrease_label_id ? 1 : 0);
      r[2] = k.score;
      std::copy(b.begin(), b.end(), r + 3);
      ++row;
    }
  }
  if (row < rows) out[row * 7] = -1;
  return out;
}

}  // namespace irlite::test::reference

#pragma once
// Plain references for PriorBox-1/8 and PriorBoxClustered-1, written from the specifications
// and OpenVINO's documented behaviour, in double: the boxes one by one into a list, then the
// variances. The op computes in float, so comparisons allow a few float ulps.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace irlite::test::reference {

struct PriorBoxSpec {
  std::vector<double> min_size, max_size, aspect_ratio, density, fixed_ratio, fixed_size, variance;
  bool flip = false, clip = false, scale_all_sizes = true, min_max_aspect_ratios_order = true;
  double step = 0, offset = 0.5;
};

struct PriorBoxClusteredSpec {
  std::vector<double> width = {1.0}, height = {1.0}, variance;
  bool clip = true;
  double step = 0, step_w = 0, step_h = 0, offset = 0.5;
};

/// Row 0 (the boxes) then row 1 (the variances) of the [2, n * 4] output.
inline std::vector<double> with_variances(const std::vector<std::array<double, 4>>& boxes,
                                          const std::vector<double>& variance) {
  std::vector<double> out;
  for (const auto& b : boxes) out.insert(out.end(), b.begin(), b.end());
  for (std::size_t i = 0; i < boxes.size(); ++i)
    for (std::size_t j = 0; j < 4; ++j)
      out.push_back(variance.empty() ? 0.1 : variance.size() == 1 ? variance[0] : variance[j]);
  return out;
}

/// PriorBox over a map of h x w cells and an image of ih x iw pixels.
inline std::vector<double> prior_box(const PriorBoxSpec& s, std::int64_t h, std::int64_t w,
                                     std::int64_t ih, std::int64_t iw) {
  // Aspect ratios: 1 first, then each one not yet listed (within 1e-6), then its inverse.
  std::vector<double> ratios = {1.0};
  for (double r : s.aspect_ratio) {
    r = static_cast<float>(r);
    bool seen = false;
    for (const double e : ratios) seen = seen || std::fabs(r - e) < 1e-6;
    if (seen) continue;
    ratios.push_back(r);
    if (s.flip) ratios.push_back(1.0 / r);
  }
  std::vector<std::array<double, 4>> boxes;
  const auto add = [&](double cx, double cy, double half_w, double half_h, bool edges) {
    std::array<double, 4> b = {
        (cx - half_w) / static_cast<double>(iw), (cy - half_h) / static_cast<double>(ih),
        (cx + half_w) / static_cast<double>(iw), (cy + half_h) / static_cast<double>(ih)};
    if (edges) {
      b[0] = std::max(b[0], 0.0);
      b[1] = std::max(b[1], 0.0);
      b[2] = std::min(b[2], 1.0);
      b[3] = std::min(b[3], 1.0);
    }
    boxes.push_back(b);
  };
  double step = static_cast<float>(s.step);
  double scale = 1;
  if (!s.scale_all_sizes) {
    step = step == -1 ? static_cast<double>(ih) / static_cast<double>(h)
                      : step * static_cast<double>(ih);
    scale = static_cast<double>(ih);
  }
  const double offset = static_cast<float>(s.offset);
  for (std::int64_t y = 0; y < h; ++y) {
    for (std::int64_t x = 0; x < w; ++x) {
      const double cx = step == 0 ? (static_cast<double>(x) + 0.5) * static_cast<double>(iw) /
                                        static_cast<double>(w)
                                  : (offset + static_cast<double>(x)) * step;
      const double cy = step == 0 ? (static_cast<double>(y) + 0.5) * static_cast<double>(ih) /
                                        static_cast<double>(h)
                                  : (offset + static_cast<double>(y)) * step;
      for (std::size_t k = 0; k < s.fixed_size.size(); ++k) {
        const double size = static_cast<float>(s.fixed_size[k]);
        const auto d = static_cast<std::int64_t>(s.density[k]);
        const double whole = std::floor(size);
        const double shift = std::floor(size / static_cast<double>(d));
        std::vector<std::array<double, 2>> halves;
        if (!s.fixed_ratio.empty()) {
          for (double r : s.fixed_ratio) {
            r = static_cast<float>(r);
            halves.push_back({size / 2 * std::sqrt(r), size / 2 / std::sqrt(r)});
          }
        } else {
          halves.push_back({whole / 2, whole / 2});
          for (const double r : ratios)
            if (std::fabs(r - 1) >= 1e-6)
              halves.push_back({size / 2 * std::sqrt(r), size / 2 / std::sqrt(r)});
        }
        const double x0 = cx - std::floor(whole / 2) + shift / 2;
        const double y0 = cy - std::floor(whole / 2) + shift / 2;
        for (const auto& half : halves)
          for (std::int64_t r = 0; r < d; ++r)
            for (std::int64_t c = 0; c < d; ++c)
              add(x0 + static_cast<double>(c) * shift, y0 + static_cast<double>(r) * shift, half[0],
                  half[1], true);
      }
      for (std::size_t k = 0; k < s.min_size.size(); ++k) {
        const double m = static_cast<float>(s.min_size[k]) * scale;
        add(cx, cy, m / 2, m / 2, false);
        const bool has_max = k < s.max_size.size();
        const double max_half = has_max ? std::sqrt(m * static_cast<float>(s.max_size[k])) / 2 : 0;
        if (has_max && s.min_max_aspect_ratios_order) add(cx, cy, max_half, max_half, false);
        if (s.scale_all_sizes || k + 1 == s.min_size.size()) {
          const double base = s.scale_all_sizes ? m : static_cast<float>(s.min_size[0]) * scale;
          for (const double r : ratios)
            if (std::fabs(r - 1) >= 1e-6)
              add(cx, cy, base / 2 * std::sqrt(r), base / 2 / std::sqrt(r), false);
        }
        if (has_max && !s.min_max_aspect_ratios_order) add(cx, cy, max_half, max_half, false);
      }
    }
  }
  if (s.clip)
    for (auto& b : boxes)
      for (double& v : b) v = std::clamp(v, 0.0, 1.0);
  return with_variances(boxes, s.variance);
}

/// PriorBoxClustered over a map of h x w cells and an image of ih x iw pixels.
inline std::vector<double> prior_box_clustered(const PriorBoxClusteredSpec& s, std::int64_t h,
                                               std::int64_t w, std::int64_t ih, std::int64_t iw) {
  double step_w = s.step_w != 0 ? s.step_w : s.step;
  double step_h = s.step_h != 0 ? s.step_h : s.step;
  if (step_w == 0 && step_h == 0) {
    step_w = static_cast<double>(iw) / static_cast<double>(w);
    step_h = static_cast<double>(ih) / static_cast<double>(h);
  }
  std::vector<std::array<double, 4>> boxes;
  for (std::int64_t y = 0; y < h; ++y) {
    for (std::int64_t x = 0; x < w; ++x) {
      const double cx = (static_cast<double>(x) + s.offset) * step_w;
      const double cy = (static_cast<double>(y) + s.offset) * step_h;
      for (std::size_t k = 0; k < s.width.size(); ++k) {
        std::array<double, 4> b = {(cx - s.width[k] / 2) / static_cast<double>(iw),
                                   (cy - s.height[k] / 2) / static_cast<double>(ih),
                                   (cx + s.width[k] / 2) / static_cast<double>(iw),
                                   (cy + s.height[k] / 2) / static_cast<double>(ih)};
        if (s.clip)
          for (double& v : b) v = std::clamp(v, 0.0, 1.0);
        boxes.push_back(b);
      }
    }
  }
  return with_variances(boxes, s.variance);
}

}  // namespace irlite::test::reference

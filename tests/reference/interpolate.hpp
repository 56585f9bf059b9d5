#pragma once
// A plain reference for Interpolate-4/11 (Interpolate-1 is mapped onto it by the tests), written
// from the specification and OpenVINO's reference numerics: every output element worked out on
// its own, its coordinates, taps and weights computed afresh, in float as OpenVINO computes
// them, so the op's results must match it bit for bit. Taps of weight zero are left out (the op
// documents that choice). The Pillow modes follow Pillow's two passes on each plane in double.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "irlite/shape.hpp"

namespace irlite::test::reference {

struct InterpolateRef {
  std::string mode = "nearest";  // nearest, linear, linear_onnx, cubic, *_pillow
  std::string coord = "half_pixel";
  std::string nearest = "round_prefer_floor";
  bool antialias = false;
  float cube = -0.75f;
  std::vector<std::int64_t> pads_begin, pads_end;  // one per axis
  std::vector<std::int64_t> axes;
  std::vector<float> scales;  // one per listed axis
  Shape input, output;
  // The element type's kind: integers round (linear, pillow) or truncate (the others) and
  // saturate to [lo, hi].
  bool integral = false;
  double lo = 0, hi = 0;
  // A floating-point value rounded to the element type (the Pillow modes' intermediate).
  std::function<double(double)> round = [](double v) { return v; };
};

namespace interp_detail {

inline float source(const std::string& mode, float x, float scale, float out, float in) {
  if (scale == 1.0f || out == in) return x;
  if (mode == "pytorch_half_pixel") return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
  if (mode == "asymmetric") return x / scale;
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5f) / scale;
  if (mode == "align_corners") return out == 1 ? 0.0f : x * (in - 1) / (out - 1);
  return (x + 0.5f) / scale - 0.5f;
}

inline std::int64_t nearest(const std::string& mode, float c, bool down) {
  const auto i = [](double v) { return static_cast<std::int64_t>(v); };
  if (mode == "round_prefer_ceil") return i(std::round(c));
  if (mode == "floor") return i(std::floor(c));
  if (mode == "ceil") return i(std::ceil(c));
  if (mode == "simple") return down ? i(std::ceil(c)) : i(c);
  // round_prefer_floor: halfway goes down.
  if (c == static_cast<float>(i(c)) + 0.5f) return i(std::floor(c));
  return i(std::round(c));
}

inline double saturate(const InterpolateRef& r, double v) {
  if (std::isnan(v)) return 0;
  return std::clamp(v, r.lo, r.hi);
}

struct Tap {
  std::int64_t index;
  float weight;
};

}  // namespace interp_detail

/// Interpolate on `data` (row-major, of shape r.input); returns r.output's elements.
inline std::vector<double> interpolate(const InterpolateRef& r, const std::vector<double>& data) {
  using namespace interp_detail;
  const std::size_t rank = r.input.size();
  // Zero padding first.
  Shape in(rank);
  for (std::size_t d = 0; d < rank; ++d)
    in[d] = r.input[d] + static_cast<std::size_t>(r.pads_begin[d] + r.pads_end[d]);
  const auto index = [](const Shape& s, const std::vector<std::int64_t>& c) {
    std::int64_t i = 0;
    for (std::size_t d = 0; d < s.size(); ++d) i = i * static_cast<std::int64_t>(s[d]) + c[d];
    return static_cast<std::size_t>(i);
  };
  const auto coords = [](const Shape& s, std::size_t i) {
    std::vector<std::int64_t> c(s.size());
    for (std::size_t d = s.size(); d-- > 0;) {
      c[d] = static_cast<std::int64_t>(i % s[d]);
      i /= s[d];
    }
    return c;
  };
  std::size_t in_count = 1, raw_count = 1, out_count = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    in_count *= in[d];
    raw_count *= r.input[d];
    out_count *= r.output[d];
  }
  std::vector<double> x(in_count, 0.0);
  for (std::size_t i = 0; i < raw_count; ++i) {
    std::vector<std::int64_t> c = coords(r.input, i);
    for (std::size_t d = 0; d < rank; ++d) c[d] += r.pads_begin[d];
    x[index(in, c)] = data[i];
  }
  std::vector<double> out(out_count, 0.0);
  if (r.mode == "bilinear_pillow" || r.mode == "bicubic_pillow") {
    const bool cubic = r.mode == "bicubic_pillow";
    const double support = cubic ? 2.0 : 1.0, a = r.cube;
    const auto filter = [&](double t) {
      t = std::fabs(t);
      if (!cubic) return t < 1.0 ? 1.0 - t : 0.0;
      if (t < 1.0) return ((a + 2.0) * t - (a + 3.0)) * t * t + 1;
      if (t < 2.0) return (((t - 5) * t + 8) * t - 4) * a;
      return 0.0;
    };
    const auto store = [&](double v) {
      if (!r.integral) return v;
      return saturate(r,
                      static_cast<double>(static_cast<std::int64_t>(v >= 0 ? v + 0.5 : v - 0.5)));
    };
    // Pillow's coefficients for one output coordinate: first input index and weights.
    const auto coeffs = [&](std::int64_t n, std::int64_t m, std::int64_t o, std::int64_t& first) {
      const double scale = static_cast<double>(static_cast<float>(n)) / static_cast<double>(m);
      const double fs = std::max(scale, 1.0), sup = support * fs;
      const double centre = (static_cast<double>(o) + 0.5) * scale;
      std::int64_t lo = static_cast<std::int64_t>(centre - sup + 0.5);
      std::int64_t hi = static_cast<std::int64_t>(centre + sup + 0.5);
      lo = std::max<std::int64_t>(lo, 0);
      hi = std::min(hi, n);
      std::vector<double> w;
      double sum = 0;
      for (std::int64_t t = lo; t < hi; ++t) {
        w.push_back(filter((static_cast<double>(t) - centre + 0.5) * (1.0 / fs)));
        sum += w.back();
      }
      if (sum != 0)
        for (double& v : w) v /= sum;
      first = lo;
      return w;
    };
    const auto h = static_cast<std::size_t>(r.axes[0]), w = static_cast<std::size_t>(r.axes[1]);
    const auto hn = static_cast<std::int64_t>(in[h]), wn = static_cast<std::int64_t>(in[w]);
    const auto hm = static_cast<std::int64_t>(r.output[h]),
               wm = static_cast<std::int64_t>(r.output[w]);
    if (hm == 0 || wm == 0) return out;
    for (std::size_t i = 0; i < out_count; ++i) {
      std::vector<std::int64_t> oc = coords(r.output, i);
      if (oc[h] != 0 || oc[w] != 0) continue;  // once per plane
      std::vector<std::int64_t> ic = oc;
      const auto at = [&](std::int64_t y, std::int64_t xx) {
        ic[h] = y;
        ic[w] = xx;
        return x[index(in, ic)];
      };
      // Horizontal pass over every row (or none when the width stays).
      std::vector<double> mid(static_cast<std::size_t>(hn * wm));
      for (std::int64_t y = 0; y < hn; ++y)
        for (std::int64_t xx = 0; xx < wm; ++xx) {
          if (wm == wn) {
            mid[static_cast<std::size_t>(y * wm + xx)] = at(y, xx);
            continue;
          }
          std::int64_t first = 0;
          const std::vector<double> k = coeffs(wn, wm, xx, first);
          double s = 0;
          for (std::size_t t = 0; t < k.size(); ++t)
            s += at(y, first + static_cast<std::int64_t>(t)) * k[t];
          // The horizontal pass is stored in the data's type.
          mid[static_cast<std::size_t>(y * wm + xx)] = r.integral ? store(s) : r.round(s);
        }
      for (std::int64_t y = 0; y < hm; ++y)
        for (std::int64_t xx = 0; xx < wm; ++xx) {
          double v;
          if (hm == hn) {
            v = mid[static_cast<std::size_t>(y * wm + xx)];
          } else {
            std::int64_t first = 0;
            const std::vector<double> k = coeffs(hn, hm, y, first);
            double s = 0;
            for (std::size_t t = 0; t < k.size(); ++t)
              s += mid[static_cast<std::size_t>((first + static_cast<std::int64_t>(t)) * wm + xx)] *
                   k[t];
            v = store(s);
          }
          oc[h] = y;
          oc[w] = xx;
          out[index(r.output, oc)] = v;
        }
    }
    return out;
  }
  bool shrinking = false;
  for (const float s : r.scales) shrinking = shrinking || s < 1.0f;
  const bool aa = r.mode == "linear" && r.antialias && shrinking;
  float init = 1.0f;
  if (r.mode == "linear")
    for (const float s : r.scales) init *= aa ? s : 1.0f;
  for (std::size_t i = 0; i < out_count; ++i) {
    const std::vector<std::int64_t> oc = coords(r.output, i);
    std::vector<std::int64_t> base = oc;
    std::vector<std::vector<Tap>> taps;
    for (std::size_t j = 0; j < r.axes.size(); ++j) {
      const auto d = static_cast<std::size_t>(r.axes[j]);
      const auto n = static_cast<std::int64_t>(in[d]);
      const float c = source(r.coord, static_cast<float>(oc[d]), r.scales[j],
                             static_cast<float>(r.output[d]), static_cast<float>(n));
      std::vector<Tap> t;
      if (r.mode == "nearest") {
        t.push_back(
            {std::clamp<std::int64_t>(nearest(r.nearest, c, r.scales[j] < 1.0f), 0, n - 1), 1});
      } else if (r.mode == "linear") {
        const float a = aa ? r.scales[j] : 1.0f;
        const auto reach = r.scales[j] > 1.0f ? 2 : static_cast<std::int64_t>(std::ceil(2.0f / a));
        const auto mid = static_cast<std::int64_t>(std::round(c));
        for (std::int64_t k = mid - reach; k <= mid + reach; ++k) {
          if (k < 0 || k >= n) continue;
          const float w = std::max(0.0f, 1.0f - std::fabs(a * (c - static_cast<float>(k))));
          if (w != 0.0f) t.push_back({k, w});
        }
      } else if (r.mode == "linear_onnx") {
        const float v = std::max(0.0f, std::min(c, static_cast<float>(n - 1)));
        const std::int64_t i1 = std::min(static_cast<std::int64_t>(v), n - 1);
        const std::int64_t i2 = std::min(i1 + 1, n - 1);
        float d1 = std::fabs(v - static_cast<float>(i1)),
              d2 = std::fabs(v - static_cast<float>(i2));
        if (i1 == i2) d1 = d2 = 0.5f;
        if (d2 != 0.0f) t.push_back({i1, d2});
        if (d1 != 0.0f) t.push_back({i2, d1});
      } else {  // cubic
        const auto b = static_cast<std::int64_t>(std::floor(c));
        const float s = std::fabs(c - static_cast<float>(b)), A = r.cube;
        const float w[4] = {((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A,
                            ((A + 2) * s - (A + 3)) * s * s + 1,
                            ((A + 2) * (1 - s) - (A + 3)) * (1 - s) * (1 - s) + 1,
                            ((A * (2 - s) - 5 * A) * (2 - s) + 8 * A) * (2 - s) - 4 * A};
        for (std::int64_t k = 0; k < 4; ++k)
          if (w[k] != 0.0f) t.push_back({std::clamp<std::int64_t>(b + k - 1, 0, n - 1), w[k]});
      }
      taps.push_back(t);
    }
    if (r.mode == "nearest") {
      for (std::size_t j = 0; j < r.axes.size(); ++j)
        base[static_cast<std::size_t>(r.axes[j])] = taps[j][0].index;
      out[i] = x[index(in, base)];
      continue;
    }
    if (r.axes.empty()) {
      out[i] = x[index(in, base)];
      continue;
    }
    float sum = 0, wsum = 0;
    std::function<void(std::size_t, float)> walk = [&](std::size_t j, float coeff) {
      for (const Tap& t : taps[j]) {
        base[static_cast<std::size_t>(r.axes[j])] = t.index;
        const float c = coeff * t.weight;
        if (j + 1 == taps.size()) {
          sum += c * static_cast<float>(x[index(in, base)]);
          wsum += c;
        } else {
          walk(j + 1, c);
        }
      }
    };
    walk(0, init);
    float v = sum;
    if (r.mode == "linear") v = wsum == 0.0f ? 0.0f : sum / wsum;
    if (!r.integral) {
      out[i] = v;
    } else {
      out[i] = saturate(r, r.mode == "linear" ? std::round(v) : std::trunc(v));
    }
  }
  return out;
}

}  // namespace irlite::test::reference

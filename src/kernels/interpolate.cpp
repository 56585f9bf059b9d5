#include "kernels/interpolate.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <type_traits>

#include "irlite/element_dispatch.hpp"
#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite {

float interpolate_source_coordinate(CoordMode mode, float x, float scale, float out, float in) {
  // An axis whose extent does not change, or whose scale is 1, maps every coordinate to itself.
  if (scale == 1.0f || out == in) return x;
  switch (mode) {
    case CoordMode::half_pixel:
      return (x + 0.5f) / scale - 0.5f;
    case CoordMode::pytorch_half_pixel:
      return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case CoordMode::asymmetric:
      return x / scale;
    case CoordMode::tf_half_pixel_for_nn:
      return (x + 0.5f) / scale;
    case CoordMode::align_corners:
      return out == 1 ? 0.0f : x * (in - 1) / (out - 1);
  }
  return x;
}

namespace {

/// The element count of a shape the caller has already validated.
std::size_t elements(const Shape& s) {
  std::size_t n = 1;
  for (const std::int64_t d : s) n *= static_cast<std::size_t>(d);
  return n;
}

/// A float coordinate as an int64 without undefined conversions: NaN as 0, the rest clamped to
/// a range no index reaches.
std::int64_t to_index(float v) {
  constexpr float kLimit = 4.0e18f;
  if (!(v == v)) return 0;
  return static_cast<std::int64_t>(std::clamp(v, -kLimit, kLimit));
}

}  // namespace

std::int64_t interpolate_nearest_index(NearestMode mode, float c, bool downsampling) {
  switch (mode) {
    case NearestMode::round_prefer_floor:
      // A tie (n + 0.5, n the value truncated) goes down; everything else rounds half away from
      // zero, as std::round does.
      if (c == static_cast<float>(to_index(c)) + 0.5f) return to_index(std::floor(c));
      return to_index(std::round(c));
    case NearestMode::round_prefer_ceil:
      return to_index(std::round(c));
    case NearestMode::floor:
      return to_index(std::floor(c));
    case NearestMode::ceil:
      return to_index(std::ceil(c));
    case NearestMode::simple:
      return downsampling ? to_index(std::ceil(c)) : to_index(c);
  }
  return 0;
}

namespace {

bool is_pillow(InterpMode m) {
  return m == InterpMode::bilinear_pillow || m == InterpMode::bicubic_pillow;
}

/// Strides of a row-major shape, in elements.
std::vector<std::int64_t> strides_of(const Shape& s) {
  std::vector<std::int64_t> st(s.size(), 1);
  for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * static_cast<std::int64_t>(s[i]);
  return st;
}

/// Linear mode antialiases when asked to and some listed axis shrinks.
bool antialiasing(const InterpolateSpec& s) {
  if (s.mode != InterpMode::linear || !s.antialias) return false;
  return std::any_of(s.scales.begin(), s.scales.end(), [](float v) { return v < 1.0f; });
}

/// Linear mode's filter width factor for listed axis j: its scale when antialiasing, else 1.
float linear_a(const InterpolateSpec& s, std::size_t j) {
  return antialiasing(s) ? s.scales[j] : 1.0f;
}

/// Linear mode's reach r (taps from round(c) - r to round(c) + r), limited to `limit`.
std::int64_t linear_reach(const InterpolateSpec& s, std::size_t j, std::int64_t limit) {
  if (s.scales[j] > 1.0f) return std::min<std::int64_t>(2, limit);
  const float q = std::ceil(2.0f / linear_a(s, j));
  if (!(q < static_cast<float>(limit))) return limit;
  return std::max<std::int64_t>(0, static_cast<std::int64_t>(q));
}

/// The most taps any output coordinate of a listed axis j gets.
std::int64_t max_taps(const InterpolateSpec& s, std::size_t j, std::int64_t in) {
  switch (s.mode) {
    case InterpMode::nearest:
      return 1;
    case InterpMode::linear_onnx:
      return 2;
    case InterpMode::cubic:
      return 4;
    case InterpMode::linear:
      return std::min<std::int64_t>(2 * linear_reach(s, j, in) + 1, in);
    default:
      return 0;
  }
}

/// The taps of one axis: output coordinate o reads input offsets offset[start[o]..start[o+1])
/// (already multiplied by the axis's stride) with their weights.
struct AxisTable {
  std::span<std::int64_t> start;
  std::span<std::int64_t> offset;
  std::span<float> weight;
};

AxisTable take_table(const Scratch& scratch, std::int64_t out, std::int64_t taps) {
  AxisTable t;
  t.start = scratch.take<std::int64_t>(static_cast<std::size_t>(out + 1));
  t.offset = scratch.take<std::int64_t>(static_cast<std::size_t>(out * taps));
  t.weight = scratch.take<float>(static_cast<std::size_t>(out * taps));
  return t;
}

/// An axis that is not resized: each coordinate reads itself with weight 1.
void fill_identity(AxisTable& t, std::int64_t out, std::int64_t stride) {
  for (std::int64_t o = 0; o < out; ++o) {
    t.start[static_cast<std::size_t>(o)] = o;
    t.offset[static_cast<std::size_t>(o)] = o * stride;
    t.weight[static_cast<std::size_t>(o)] = 1.0f;
  }
  t.start[static_cast<std::size_t>(out)] = out;
}

/// The four cubic weights of taps floor(c) - 1 .. floor(c) + 2 at fraction f, in OpenVINO's
/// reference's order of operations.
void cubic_weights(float f, float a, float (&w)[4]) {
  w[0] = ((a * (f + 1) - 5 * a) * (f + 1) + 8 * a) * (f + 1) - 4 * a;
  w[1] = ((a + 2) * f - (a + 3)) * f * f + 1;
  w[2] = ((a + 2) * (1 - f) - (a + 3)) * (1 - f) * (1 - f) + 1;
  w[3] = ((a * (2 - f) - 5 * a) * (2 - f) + 8 * a) * (2 - f) - 4 * a;
}

/// Fills listed axis j's table (axis spec.axes[j]). Taps of weight zero are left out.
void fill_table(const InterpolateSpec& s, std::size_t j, std::int64_t stride, AxisTable& t) {
  const auto axis = static_cast<std::size_t>(s.axes[j]);
  const auto in = static_cast<std::int64_t>(s.padded[axis]);
  const auto out = static_cast<std::int64_t>(s.output[axis]);
  const float scale = s.scales[j];
  std::size_t n = 0;
  const auto add = [&](std::int64_t index, float w) {
    if (w == 0.0f) return;
    t.offset[n] = index * stride;
    t.weight[n] = w;
    ++n;
  };
  const float a = s.mode == InterpMode::linear ? linear_a(s, j) : 1.0f;
  const std::int64_t reach = s.mode == InterpMode::linear ? linear_reach(s, j, in) : 0;
  const auto cube = static_cast<float>(s.cube_coeff);
  for (std::int64_t o = 0; o < out; ++o) {
    t.start[static_cast<std::size_t>(o)] = static_cast<std::int64_t>(n);
    const float c = interpolate_source_coordinate(s.coord, static_cast<float>(o), scale,
                                                  static_cast<float>(out), static_cast<float>(in));
    switch (s.mode) {
      case InterpMode::nearest: {
        const std::int64_t i = interpolate_nearest_index(s.nearest, c, scale < 1.0f);
        t.offset[n] = std::clamp<std::int64_t>(i, 0, in - 1) * stride;
        t.weight[n] = 1.0f;
        ++n;
        break;
      }
      case InterpMode::linear: {
        const std::int64_t centre = to_index(std::round(c));
        const std::int64_t first = std::max<std::int64_t>(0, centre - reach);
        const std::int64_t last = std::min<std::int64_t>(in - 1, centre + reach);
        for (std::int64_t k = first; k <= last; ++k) {
          const float dz = c - static_cast<float>(k);
          add(k, std::max(0.0f, 1.0f - std::fabs(a * dz)));
        }
        break;
      }
      case InterpMode::linear_onnx: {
        const float x = std::max(0.0f, std::min(c, static_cast<float>(in - 1)));
        const std::int64_t i1 = std::min(to_index(x), in - 1);
        const std::int64_t i2 = std::min(i1 + 1, in - 1);
        float d1 = std::fabs(x - static_cast<float>(i1));
        float d2 = std::fabs(x - static_cast<float>(i2));
        if (i1 == i2) d1 = d2 = 0.5f;
        // The lower neighbour takes the distance to the upper one, and the other way round.
        add(i1, d2);
        add(i2, d1);
        break;
      }
      case InterpMode::cubic: {
        const std::int64_t base = to_index(std::floor(c));
        const float f = std::fabs(c - static_cast<float>(base));
        float w[4];
        cubic_weights(f, cube, w);
        for (std::int64_t i = 0; i < 4; ++i)
          add(std::clamp<std::int64_t>(base + i - 1, 0, in - 1), w[i]);
        break;
      }
      default:
        break;
    }
  }
  t.start[static_cast<std::size_t>(out)] = static_cast<std::int64_t>(n);
}

/// The float result of a weighted mode as T: linear's divided by its weights' sum (0 when
/// none), integers rounded (linear, half away from zero) or truncated (the others, as the
/// reference converts) and held to T's range.
template <class T>
T finish(float v) {
  if constexpr (std::is_integral_v<T>) {
    if (!(v == v)) return T(0);
    const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());
    const double d = static_cast<double>(v);
    if (d <= lo) return std::numeric_limits<T>::lowest();
    if (d >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(d);
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
T finish_weighted(InterpMode mode, float sum, float wsum) {
  if (mode == InterpMode::linear) {
    if (wsum == 0.0f) return T{};
    const float v = sum / wsum;
    if constexpr (std::is_integral_v<T>) return finish<T>(std::round(v));
    return finish<T>(v);
  }
  if constexpr (std::is_integral_v<T>) return finish<T>(std::trunc(sum));
  return finish<T>(sum);
}

template <class T>
float load(T v) {
  return static_cast<float>(static_cast<compute_t<T>>(v));
}

/// The weight every tap product starts from: linear's product of the axes' `a` (the
/// antialiasing widths), 1 otherwise.
float initial_weight(const InterpolateSpec& s) {
  if (s.mode != InterpMode::linear) return 1.0f;
  float p = 1.0f;
  for (std::size_t j = 0; j < s.axes.size(); ++j) p *= linear_a(s, j);
  return p;
}

/// Whether listed axis d of a 4-D resize leaves every coordinate reading itself alone, weight
/// 1, so that the fast path may skip it: an unchanged extent in a mode whose other taps weigh
/// zero there.
bool trivial_axis(const InterpolateSpec& s, std::size_t j) {
  const auto d = static_cast<std::size_t>(s.axes[j]);
  if (s.padded[d] != s.output[d]) return false;
  if (s.mode == InterpMode::linear_onnx) return false;  // its last coordinate takes 0.5 twice
  if (s.mode == InterpMode::linear && linear_a(s, j) < 1.0f) return false;
  if (s.mode == InterpMode::cubic) {
    // The outer weights at a whole coordinate are zero only up to rounding for some a.
    float w[4];
    cubic_weights(0.0f, static_cast<float>(s.cube_coeff), w);
    return w[0] == 0.0f && w[1] == 1.0f && w[2] == 0.0f && w[3] == 0.0f;
  }
  return true;
}

bool any_pads(const InterpolateSpec& s) {
  return s.padded != s.input;
}

/// Everything the kernel takes from scratch, in one order for counting and for running.
template <class T>
struct Layout {
  std::span<T> padded;                     // the zero-padded data, when there is padding
  std::vector<AxisTable> tables;           // listed axes (general) or H and W (fast path)
  std::span<std::int64_t> counters;        // per chunk, one coordinate per axis (general path)
  std::span<double> pil_w, pil_h;          // Pillow coefficients
  std::span<std::int64_t> pil_wb, pil_hb;  // Pillow bounds (first tap, count)
  std::span<T> pil_temp;                   // per chunk, the horizontal pass's rows
  // The fast path's weighted modes: W's taps as slots (slot t of column x: its t-th tap, or
  // none), and per chunk the gathered inputs of every slot and the two running sums.
  std::span<float> slot_weight;
  std::span<std::int32_t> slot_valid;
  std::span<std::int64_t> slot_offset;
  std::span<float> rows;
  std::int64_t slots = 0;
  std::int64_t pil_wk = 0, pil_hk = 0;  // Pillow taps per output coordinate
};

struct PilFilter {
  double support;
  double a;
  bool cubic;
  double operator()(double x) const {
    if (x < 0.0) x = -x;
    if (!cubic) return x < 1.0 ? 1.0 - x : 0.0;
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
  }
};

PilFilter pil_filter(const InterpolateSpec& s) {
  const bool cubic = s.mode == InterpMode::bicubic_pillow;
  return {cubic ? 2.0 : 1.0, s.cube_coeff, cubic};
}

/// Pillow's taps per output coordinate for a resize of `in` to `out`.
std::int64_t pil_ksize(const PilFilter& f, std::int64_t in, std::int64_t out) {
  if (out <= 0) return 0;
  double scale = static_cast<double>(static_cast<float>(in)) / static_cast<double>(out);
  if (scale < 1.0) scale = 1.0;
  return static_cast<std::int64_t>(std::ceil(f.support * scale)) * 2 + 1;
}

/// Pillow's coefficients (normalised to sum 1) and bounds, as its precompute_coeffs does.
void pil_coeffs(const PilFilter& f, std::int64_t in, std::int64_t out, std::int64_t ksize,
                std::span<std::int64_t> bounds, std::span<double> kk) {
  const double scale = static_cast<double>(static_cast<float>(in)) / static_cast<double>(out);
  const double filterscale = scale < 1.0 ? 1.0 : scale;
  const double support = f.support * filterscale;
  for (std::int64_t xx = 0; xx < out; ++xx) {
    const double centre = (static_cast<double>(xx) + 0.5) * scale;
    const double ss = 1.0 / filterscale;
    std::int64_t xmin = static_cast<std::int64_t>(centre - support + 0.5);  // truncated, as C
    if (xmin < 0) xmin = 0;
    std::int64_t xmax = static_cast<std::int64_t>(centre + support + 0.5);
    if (xmax > in) xmax = in;
    xmax = std::max<std::int64_t>(0, std::min(xmax - xmin, ksize));
    double* k = kk.data() + xx * ksize;
    double ww = 0.0;
    for (std::int64_t x = 0; x < xmax; ++x) {
      const double w = f((static_cast<double>(x + xmin) - centre + 0.5) * ss);
      k[x] = w;
      ww += w;
    }
    for (std::int64_t x = 0; x < xmax; ++x)
      if (ww != 0.0) k[x] /= ww;
    for (std::int64_t x = xmax; x < ksize; ++x) k[x] = 0.0;
    bounds[static_cast<std::size_t>(2 * xx)] = xmin;
    bounds[static_cast<std::size_t>(2 * xx + 1)] = xmax;
  }
}

/// Chunks the Pillow path splits its planes into.
std::size_t pil_chunks(unsigned threads, std::int64_t planes) {
  return std::max<std::size_t>(
      1,
      std::min<std::size_t>(threads, static_cast<std::size_t>(std::max<std::int64_t>(planes, 0))));
}

/// Output elements below which a chunk is not worth a thread.
constexpr std::size_t kGrain = std::size_t{1} << 13;

std::size_t general_chunks(const InterpolateSpec& s, unsigned threads) {
  const std::size_t n = elements(s.output);
  const std::size_t by_grain = n / kGrain;
  return std::max<std::size_t>(1, std::min<std::size_t>(threads, by_grain));
}

/// The fast path's output rows, and the rows per chunk below which a thread is not worth it.
std::size_t fast_rows_count(const InterpolateSpec& s) {
  return static_cast<std::size_t>(s.output[0] * s.output[1] * s.output[2]);
}
std::size_t fast_grain(const InterpolateSpec& s) {
  return std::max<std::size_t>(
      1, kGrain / static_cast<std::size_t>(std::max<std::int64_t>(s.output[3], 1)));
}
/// How many chunks the fast path's rows split into (Parallel::chunks()).
std::size_t fast_chunks(const InterpolateSpec& s, unsigned threads) {
  return std::max<std::size_t>(1,
                               std::min<std::size_t>(threads, fast_rows_count(s) / fast_grain(s)));
}

template <class T>
Layout<T> take_layout(const InterpolateSpec& s, const Scratch& scratch, unsigned threads) {
  Layout<T> l;
  if (any_pads(s)) l.padded = scratch.take<T>(elements(s.padded));
  if (is_pillow(s.mode)) {
    const PilFilter f = pil_filter(s);
    const auto h = static_cast<std::size_t>(s.axes[0]), w = static_cast<std::size_t>(s.axes[1]);
    const auto hin = static_cast<std::int64_t>(s.padded[h]),
               win = static_cast<std::int64_t>(s.padded[w]);
    const auto hout = static_cast<std::int64_t>(s.output[h]),
               wout = static_cast<std::int64_t>(s.output[w]);
    l.pil_wk = pil_ksize(f, win, wout);
    l.pil_hk = pil_ksize(f, hin, hout);
    l.pil_wb = scratch.take<std::int64_t>(static_cast<std::size_t>(2 * wout));
    l.pil_hb = scratch.take<std::int64_t>(static_cast<std::size_t>(2 * hout));
    l.pil_w = scratch.take<double>(static_cast<std::size_t>(wout * l.pil_wk));
    l.pil_h = scratch.take<double>(static_cast<std::size_t>(hout * l.pil_hk));
    const std::int64_t planes =
        hin * win == 0 ? 0 : static_cast<std::int64_t>(elements(s.padded)) / (hin * win);
    l.pil_temp =
        scratch.take<T>(pil_chunks(threads, planes) * static_cast<std::size_t>(hin * wout));
    return l;
  }
  if (interpolate_takes_fast_path(s)) {
    for (std::size_t d = 2; d < 4; ++d) {
      const auto it = std::find(s.axes.begin(), s.axes.end(), static_cast<std::int64_t>(d));
      const std::int64_t taps = it == s.axes.end()
                                    ? 1
                                    : max_taps(s, static_cast<std::size_t>(it - s.axes.begin()),
                                               static_cast<std::int64_t>(s.padded[d]));
      l.tables.push_back(take_table(scratch, static_cast<std::int64_t>(s.output[d]), taps));
      if (d == 3) l.slots = taps;
    }
    if (s.mode != InterpMode::nearest) {
      const auto wout = static_cast<std::size_t>(s.output[3]);
      const auto n = static_cast<std::size_t>(l.slots) * wout;
      l.slot_weight = scratch.take<float>(n);
      l.slot_valid = scratch.take<std::int32_t>(n);
      l.slot_offset = scratch.take<std::int64_t>(n);
      l.rows = scratch.take<float>(fast_chunks(s, threads) * (n + 2 * wout));
    }
    return l;
  }
  for (std::size_t j = 0; j < s.axes.size(); ++j) {
    const auto d = static_cast<std::size_t>(s.axes[j]);
    l.tables.push_back(take_table(scratch, static_cast<std::int64_t>(s.output[d]),
                                  max_taps(s, j, static_cast<std::int64_t>(s.padded[d]))));
  }
  l.counters = scratch.take<std::int64_t>(general_chunks(s, threads) * s.output.size());
  return l;
}

/// Copies the data into the middle of the zero-padded buffer.
template <class T>
void pad_into(const InterpolateSpec& s, const T* in, T* padded) {
  std::fill(padded, padded + elements(s.padded), T{});
  const std::size_t rank = s.input.size();
  if (elements(s.input) == 0) return;
  const std::vector<std::int64_t> st = strides_of(s.padded);
  const std::int64_t row = static_cast<std::int64_t>(s.input[rank - 1]);
  const std::size_t rows = elements(s.input) / static_cast<std::size_t>(row);
  std::vector<std::int64_t> c(rank, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < rank; ++d) off += (c[d] + s.pads_begin[d]) * st[d];
    std::copy(in + r * static_cast<std::size_t>(row), in + (r + 1) * static_cast<std::size_t>(row),
              padded + off);
    for (std::size_t d = rank - 1; d-- > 0;) {
      if (++c[d] < static_cast<std::int64_t>(s.input[d])) break;
      c[d] = 0;
    }
  }
}

/// sum[x] (and wsum[x] when `weights`) += c * g[x] with c = ch * w[x], where slot x is valid
/// (valid[x] != 0); the others keep their sums bit for bit.
IRLITE_MULTIVERSION void add_slot(float* __restrict sum, float* __restrict wsum,
                                  const float* __restrict g, const float* __restrict w,
                                  const std::int32_t* __restrict valid, float ch, std::int64_t n,
                                  bool weights) {
  std::int64_t x = 0;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  const simd::vec<float> vch = simd::broadcast(ch);
  for (; x + L <= n; x += L) {
    const simd::vec<float> c = vch * simd::load(w + x);
    const auto m = simd::load(valid + x) != simd::vec<std::int32_t>{};
    const simd::vec<float> s = simd::load(sum + x);
    simd::store(sum + x, m ? s + c * simd::load(g + x) : s);
    if (weights) {
      const simd::vec<float> ws = simd::load(wsum + x);
      simd::store(wsum + x, m ? ws + c : ws);
    }
  }
  for (; x < n; ++x) {
    if (!valid[x]) continue;
    const float c = ch * w[x];
    sum[x] += c * g[x];
    if (weights) wsum[x] += c;
  }
}

/// The fast path: [N * C] planes, H and W tables. Nearest gathers each row (copying the one
/// before when it reads the same input row); the weighted modes lay W's taps out as slots once,
/// then per output row gather each H tap's inputs slot by slot and add them in vectors, masked
/// where a column has fewer taps, in the general path's order for every element.
template <class T, InterpMode Mode>
void fast_rows(const Parallel& parallel, const InterpolateSpec& s, const Layout<T>& l,
               const AxisTable& ht, const AxisTable& wt, const T* in, T* out) {
  const auto hin = static_cast<std::int64_t>(s.padded[2]),
             win = static_cast<std::int64_t>(s.padded[3]);
  const auto hout = static_cast<std::int64_t>(s.output[2]),
             wout = static_cast<std::int64_t>(s.output[3]);
  const std::int64_t* hs = ht.start.data();
  const std::int64_t* ho = ht.offset.data();
  const float* hw = ht.weight.data();
  const std::int64_t* ws = wt.start.data();
  const std::int64_t* wo = wt.offset.data();
  const float* ww = wt.weight.data();
  std::int64_t slots = 0;
  if constexpr (Mode != InterpMode::nearest) {
    for (std::int64_t x = 0; x < wout; ++x) slots = std::max(slots, ws[x + 1] - ws[x]);
    for (std::int64_t t = 0; t < slots; ++t)
      for (std::int64_t x = 0; x < wout; ++x) {
        const std::int64_t i = ws[x] + t;
        const bool valid = i < ws[x + 1];
        const auto at = static_cast<std::size_t>(t * wout + x);
        l.slot_weight[at] = valid ? ww[i] : 0.0f;
        l.slot_valid[at] = valid ? -1 : 0;
        l.slot_offset[at] = valid ? wo[i] : 0;
      }
  }
  const float init = initial_weight(s);
  const std::size_t row_floats = static_cast<std::size_t>(l.slots * wout + 2 * wout);
  parallel.for_range(
      fast_rows_count(s), fast_grain(s),
      [&](std::size_t begin, std::size_t end, std::size_t chunk) {
        for (std::size_t r = begin; r < end; ++r) {
          const auto row = static_cast<std::int64_t>(r);
          const std::int64_t p = row / hout, oh = row % hout;
          const T* src = in + p * hin * win;
          T* dst = out + row * wout;
          if constexpr (Mode == InterpMode::nearest) {
            // Upsampling repeats rows: copy the previous one when it read the same input row.
            if (r > begin && oh > 0 && ho[hs[oh]] == ho[hs[oh - 1]]) {
              std::memcpy(dst, dst - wout, static_cast<std::size_t>(wout) * sizeof(T));
              continue;
            }
            const T* line = src + ho[hs[oh]];
            for (std::int64_t x = 0; x < wout; ++x) dst[x] = line[wo[ws[x]]];
          } else {
            float* gathered = l.rows.data() + chunk * row_floats;
            float* sum = gathered + l.slots * wout;
            float* wsum = sum + wout;
            std::fill(sum, sum + 2 * wout, 0.0f);
            for (std::int64_t th = hs[oh]; th < hs[oh + 1]; ++th) {
              const float ch = init * hw[th];
              const T* line = src + ho[th];
              for (std::int64_t t = 0; t < slots; ++t) {
                const std::int64_t* offset = l.slot_offset.data() + t * wout;
                float* g = gathered + t * wout;
                for (std::int64_t x = 0; x < wout; ++x) g[x] = load(line[offset[x]]);
              }
              for (std::int64_t t = 0; t < slots; ++t)
                add_slot(sum, wsum, gathered + t * wout, l.slot_weight.data() + t * wout,
                         l.slot_valid.data() + t * wout, ch, wout, Mode == InterpMode::linear);
            }
            for (std::int64_t x = 0; x < wout; ++x)
              dst[x] = finish_weighted<T>(Mode, sum[x], wsum[x]);
          }
        }
      });
}

/// The general path's accumulation over the taps of listed axes j.. for one output element.
template <class T, bool Weighted>
void accumulate(const std::vector<AxisTable>& tables, const std::int64_t* oc, std::size_t j,
                const T* in, std::int64_t off, float coeff, float& sum, float& wsum) {
  const AxisTable& t = tables[j];
  const std::int64_t o = oc[j];
  const std::int64_t b = t.start[static_cast<std::size_t>(o)],
                     e = t.start[static_cast<std::size_t>(o + 1)];
  for (std::int64_t i = b; i < e; ++i) {
    const float c = coeff * t.weight[static_cast<std::size_t>(i)];
    const std::int64_t at = off + t.offset[static_cast<std::size_t>(i)];
    if (j + 1 == tables.size()) {
      sum += c * load(in[at]);
      if constexpr (Weighted) wsum += c;
    } else {
      accumulate<T, Weighted>(tables, oc, j + 1, in, at, c, sum, wsum);
    }
  }
}

template <class T>
void general(const Parallel& parallel, const InterpolateSpec& s, const Layout<T>& l, const T* in,
             T* out) {
  const std::size_t rank = s.output.size();
  const std::size_t n = elements(s.output);
  const std::size_t k = s.axes.size();
  const std::vector<std::int64_t> ist = strides_of(s.padded);
  std::vector<bool> listed(rank, false);
  for (const std::int64_t a : s.axes) listed[static_cast<std::size_t>(a)] = true;
  const float init = initial_weight(s);
  const std::size_t parts = general_chunks(s, parallel.threads());
  // The chunks are for_range's with a grain that yields exactly `parts` of them.
  const std::size_t grain = parts == 1 ? std::max<std::size_t>(n, 1) : kGrain;
  parallel.for_range(n, grain, [&](std::size_t begin, std::size_t end, std::size_t chunk) {
    std::int64_t* c = l.counters.data() + chunk * rank;
    // The output coordinate of `begin`, then one step at a time.
    std::size_t rest = begin;
    for (std::size_t d = rank; d-- > 0;) {
      c[d] = static_cast<std::int64_t>(rest % s.output[d]);
      rest /= s.output[d];
    }
    // Listed axes' coordinates in list order, for the tables (at most rank of them).
    std::int64_t oc[16];
    std::vector<std::int64_t> oc_heap;  // ranks beyond 16 only
    std::int64_t* ocp = oc;
    if (k > 16) {
      oc_heap.resize(k);
      ocp = oc_heap.data();
    }
    for (std::size_t i = begin; i < end; ++i) {
      std::int64_t base = 0;
      for (std::size_t d = 0; d < rank; ++d)
        if (!listed[d]) base += c[d] * ist[d];
      for (std::size_t j = 0; j < k; ++j) ocp[j] = c[static_cast<std::size_t>(s.axes[j])];
      if (k == 0) {
        out[i] = in[base];
      } else if (s.mode == InterpMode::nearest) {
        std::int64_t at = base;
        for (std::size_t j = 0; j < k; ++j)
          at += l.tables[j].offset[static_cast<std::size_t>(
              l.tables[j].start[static_cast<std::size_t>(ocp[j])])];
        out[i] = in[at];
      } else {
        float sum = 0.0f, wsum = 0.0f;
        if (s.mode == InterpMode::linear)
          accumulate<T, true>(l.tables, ocp, 0, in, base, init, sum, wsum);
        else
          accumulate<T, false>(l.tables, ocp, 0, in, base, init, sum, wsum);
        out[i] = finish_weighted<T>(s.mode, sum, wsum);
      }
      for (std::size_t d = rank; d-- > 0;) {
        if (++c[d] < static_cast<std::int64_t>(s.output[d])) break;
        c[d] = 0;
      }
    }
  });
}

template <class T>
T pil_store(double v) {
  if constexpr (std::is_integral_v<T>) {
    // Rounded half away from zero, then held to T's range, as Pillow stores pixels.
    const double r = v >= 0.0 ? v + 0.5 : v - 0.5;
    const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (!(r == r)) return T(0);
    if (r <= lo) return std::numeric_limits<T>::lowest();
    if (r >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(static_cast<std::int64_t>(r));
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return static_cast<T>(v);
  } else {
    return static_cast<T>(static_cast<float>(v));
  }
}

template <class T>
double pil_load(T v) {
  return static_cast<double>(static_cast<compute_t<T>>(v));
}

template <class T>
void pillow(const Parallel& parallel, const InterpolateSpec& s, const Layout<T>& l, const T* in,
            T* out) {
  const PilFilter f = pil_filter(s);
  const auto h = static_cast<std::size_t>(s.axes[0]), w = static_cast<std::size_t>(s.axes[1]);
  const auto hin = static_cast<std::int64_t>(s.padded[h]),
             win = static_cast<std::int64_t>(s.padded[w]);
  const auto hout = static_cast<std::int64_t>(s.output[h]),
             wout = static_cast<std::int64_t>(s.output[w]);
  if (hout == 0 || wout == 0 || elements(s.output) == 0) return;
  pil_coeffs(f, win, wout, l.pil_wk, l.pil_wb, l.pil_w);
  pil_coeffs(f, hin, hout, l.pil_hk, l.pil_hb, l.pil_h);
  const bool need_w = wout != win, need_h = hout != hin;
  const std::vector<std::int64_t> ist = strides_of(s.padded), ost = strides_of(s.output);
  // The planes: every coordinate of the other axes, in row-major order.
  std::vector<std::size_t> others;
  for (std::size_t d = 0; d < s.output.size(); ++d)
    if (d != h && d != w) others.push_back(d);
  const std::size_t planes = elements(s.output) / static_cast<std::size_t>(hout * wout);
  const std::int64_t first_row = l.pil_hb[0];
  const std::int64_t last_row = l.pil_hb[static_cast<std::size_t>(2 * hout - 2)] +
                                l.pil_hb[static_cast<std::size_t>(2 * hout - 1)];
  const std::size_t parts = pil_chunks(parallel.threads(), static_cast<std::int64_t>(planes));
  parallel.for_range(
      planes, planes / parts, [&](std::size_t begin, std::size_t end, std::size_t chunk) {
        T* temp = l.pil_temp.data() + chunk * static_cast<std::size_t>(hin * wout);
        for (std::size_t q = begin; q < end; ++q) {
          std::int64_t ib = 0, ob = 0;
          std::size_t rest = q;
          for (std::size_t i = others.size(); i-- > 0;) {
            const std::size_t d = others[i];
            const auto cd = static_cast<std::int64_t>(rest % s.output[d]);
            rest /= s.output[d];
            ib += cd * ist[d];
            ob += cd * ost[d];
          }
          const T* src = in + ib;
          T* dst = out + ob;
          if (need_w) {
            for (std::int64_t y = first_row; y < last_row; ++y)
              for (std::int64_t xx = 0; xx < wout; ++xx) {
                const std::int64_t xmin = l.pil_wb[static_cast<std::size_t>(2 * xx)];
                const std::int64_t cnt = l.pil_wb[static_cast<std::size_t>(2 * xx + 1)];
                const double* k = l.pil_w.data() + xx * l.pil_wk;
                double ss = 0.0;
                for (std::int64_t x = 0; x < cnt; ++x)
                  ss += pil_load(src[y * ist[h] + (x + xmin) * ist[w]]) * k[x];
                temp[(y - first_row) * wout + xx] = pil_store<T>(ss);
              }
          }
          if (need_h) {
            for (std::int64_t yy = 0; yy < hout; ++yy) {
              const std::int64_t ymin = l.pil_hb[static_cast<std::size_t>(2 * yy)];
              const std::int64_t cnt = l.pil_hb[static_cast<std::size_t>(2 * yy + 1)];
              const double* k = l.pil_h.data() + yy * l.pil_hk;
              for (std::int64_t xx = 0; xx < wout; ++xx) {
                double ss = 0.0;
                for (std::int64_t y = 0; y < cnt; ++y) {
                  const T v = need_w ? temp[(y + ymin - first_row) * wout + xx]
                                     : src[(y + ymin) * ist[h] + xx * ist[w]];
                  ss += pil_load(v) * k[y];
                }
                dst[yy * ost[h] + xx * ost[w]] = pil_store<T>(ss);
              }
            }
          } else {
            for (std::int64_t y = 0; y < hout; ++y)
              for (std::int64_t x = 0; x < wout; ++x)
                dst[y * ost[h] + x * ost[w]] =
                    need_w ? temp[(y - first_row) * wout + x] : src[y * ist[h] + x * ist[w]];
          }
        }
      });
}

template <class T>
void run(const Parallel& parallel, const Scratch& scratch, const InterpolateSpec& s, const T* in,
         T* out) {
  const Layout<T> l = take_layout<T>(s, scratch, parallel.threads());
  if (elements(s.output) == 0) return;
  if (any_pads(s)) {
    pad_into(s, in, l.padded.data());
    in = l.padded.data();
  }
  if (is_pillow(s.mode)) return pillow(parallel, s, l, in, out);
  const std::vector<std::int64_t> ist = strides_of(s.padded);
  if (interpolate_takes_fast_path(s)) {
    std::vector<AxisTable> t = l.tables;
    for (std::size_t d = 2; d < 4; ++d) {
      const auto it = std::find(s.axes.begin(), s.axes.end(), static_cast<std::int64_t>(d));
      if (it == s.axes.end())
        fill_identity(t[d - 2], static_cast<std::int64_t>(s.output[d]), ist[d]);
      else
        fill_table(s, static_cast<std::size_t>(it - s.axes.begin()), ist[d], t[d - 2]);
    }
    switch (s.mode) {
      case InterpMode::nearest:
        return fast_rows<T, InterpMode::nearest>(parallel, s, l, t[0], t[1], in, out);
      case InterpMode::linear:
        return fast_rows<T, InterpMode::linear>(parallel, s, l, t[0], t[1], in, out);
      case InterpMode::linear_onnx:
        return fast_rows<T, InterpMode::linear_onnx>(parallel, s, l, t[0], t[1], in, out);
      default:
        return fast_rows<T, InterpMode::cubic>(parallel, s, l, t[0], t[1], in, out);
    }
  }
  Layout<T> filled = l;
  for (std::size_t j = 0; j < s.axes.size(); ++j)
    fill_table(s, j, ist[static_cast<std::size_t>(s.axes[j])], filled.tables[j]);
  general(parallel, s, filled, in, out);
}

}  // namespace

bool interpolate_takes_fast_path(const InterpolateSpec& s) {
  if (!s.allow_fast_path || s.output.size() != 4 || is_pillow(s.mode)) return false;
  std::ptrdiff_t hpos = -1, wpos = -1;
  for (std::size_t j = 0; j < s.axes.size(); ++j) {
    const std::int64_t d = s.axes[j];
    if (d == 2)
      hpos = static_cast<std::ptrdiff_t>(j);
    else if (d == 3)
      wpos = static_cast<std::ptrdiff_t>(j);
    else if (!trivial_axis(s, j))
      return false;
  }
  // The weights multiply in the listed order, H's first.
  return hpos < 0 || wpos < 0 || hpos < wpos;
}

std::size_t interpolate_scratch_bytes(const InterpolateSpec& spec, ElementType type,
                                      unsigned threads) {
  const Scratch counting = Scratch::counting();
  dispatch_numeric(
      type, [&](auto tag) { take_layout<typename decltype(tag)::type>(spec, counting, threads); });
  return counting.bytes();
}

void interpolate(const Parallel& parallel, const Scratch& scratch, const InterpolateSpec& spec,
                 ElementType type, const void* in, void* out) {
  dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run<T>(parallel, scratch, spec, static_cast<const T*>(in), static_cast<T*>(out));
  });
}

}  // namespace irlite

#pragma once
// Softmax along one axis of a dense row-major tensor, viewed as [outer, len, inner]:
// y = exp(x - max) / sum(exp(x - max)) over the len elements of each slice, the maximum taken
// first so that exp never overflows; and LogSoftmax, y = (x - max) - log(sum(exp(x - max))) in
// that order, as OpenVINO's reference, which never takes the logarithm of a tiny quotient. A NaN in
// a slice makes the whole slice NaN (its exp spreads into the sum), as in OpenVINO's reference; so
// does +inf (inf - inf).
//
// The last axis (inner == 1): each slice is a contiguous row, walked three times (maximum,
// exponentials with their sum, division). Another axis: a slice's elements are `inner` apart, so
// the kernel walks a block of columns of a [len, inner] matrix row by row, keeping a running
// maximum and sum per column: every access is contiguous. Threads split rows or (outer, column
// block) pairs and never a slice, whose sum's order depends on its length only, so results do
// not depend on the thread count. Floats (and the 16-bit floats, computed in float through a
// float copy of the slice) take their exponentials from a vectorised polynomial (exp_lanes);
// f64 from std::exp.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "core/buffer.hpp"
#include "core/parallel.hpp"
#include "irlite/scratch.hpp"
#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite {

namespace softmax_detail {

/// Columns per task when the axis is not the last one.
inline constexpr std::int64_t kColumns = 256;
/// Elements below which a task is not worth a thread.
inline constexpr std::int64_t kGrain = std::int64_t{1} << 14;

/// e^x lane by lane for x <= 0 or NaN (what softmax feeds it: x minus the maximum): Cephes'
/// method, 2^n times a polynomial of the remainder, within a few ulp of std::exp. Below -87.3,
/// where e^x is not a normal float, it gives 0; NaN stays NaN.
IRLITE_INLINE simd::vec<float> exp_lanes(simd::vec<float> x) {
  using V = simd::vec<float>;
  using VI = simd::vec<std::int32_t>;
  constexpr float kLow = -87.3365f;
  const V zero{};
  const auto nan = x != x;
  const auto tiny = x < kLow;
  V z = (tiny | nan) ? zero : x;
  const V fx = z * 1.44269504088896341f + 0.5f;
  V t = __builtin_convertvector(__builtin_convertvector(fx, VI), V);
  t = t > fx ? t - 1.0f : t;  // floor
  z = z - t * 0.693359375f;
  z = z + t * 2.12194440e-4f;
  V y = zero + 1.9875691500e-4f;
  y = y * z + 1.3981999507e-3f;
  y = y * z + 8.3334519073e-3f;
  y = y * z + 4.1665795894e-2f;
  y = y * z + 1.6666665459e-1f;
  y = y * z + 5.0000001201e-1f;
  y = y * (z * z) + z + 1.0f;
  const VI scale = (__builtin_convertvector(t, VI) + 127) << 23;
  V r = y * simd::bit_cast<V>(scale);
  r = tiny ? zero : r;
  return nan ? x : r;
}

/// y[j] = e^(x[j] - m[j * m_step]) and s[j * s_step] += y[j] for j < n: m and s are one value
/// (step 0; the sum then runs lane by lane, the lanes added at the end) or one per element
/// (step 1). Tails go through a padded vector, so every element is
/// computed by the same instructions.
IRLITE_MULTIVERSION inline void exp_f32(const float* x, const float* m, std::int64_t m_step,
                                        float* y, float* s, std::int64_t s_step, std::int64_t n) {
  using V = simd::vec<float>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  V mv = simd::broadcast(m[0]);
  V lanes{};  // a single sum's partial sums, lane by lane
  std::int64_t j = 0;
  for (; j + L <= n; j += L) {
    if (m_step) mv = simd::load(m + j);
    const V e = exp_lanes(simd::load(x + j) - mv);
    simd::store(y + j, e);
    if (s_step)
      simd::store(s + j, simd::load(s + j) + e);
    else
      lanes = lanes + e;
  }
  if (!s_step)
    for (std::int64_t l = 0; l < L; ++l) s[0] += lanes[l];
  if (j < n) {
    float xb[L] = {}, mb[L] = {};
    for (std::int64_t l = 0; l < n - j; ++l) {
      xb[l] = x[j + l];
      mb[l] = m[(j + l) * m_step];
    }
    const V e = exp_lanes(simd::load(xb) - simd::load(mb));
    for (std::int64_t l = 0; l < n - j; ++l) {
      y[j + l] = e[l];
      s[(j + l) * s_step] += e[l];
    }
  }
}

/// y[i] = exp(x[i] - m) for i < n; returns their sum, in an order that depends on n only.
template <class C>
C exp_shifted(const C* x, C m, C* y, std::int64_t n) {
  C sum = 0;
  if constexpr (std::is_same_v<C, float>) {
    exp_f32(x, &m, 0, y, &sum, 0, n);
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      y[i] = std::exp(x[i] - m);
      sum += y[i];
    }
  }
  return sum;
}

/// The maximum of x[0..n), NaN ignored (a NaN reaches the output through exp anyway).
template <class C>
IRLITE_MULTIVERSION C row_max(const C* __restrict x, std::int64_t n) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<C>);
  C m = -std::numeric_limits<C>::infinity();
  std::int64_t i = 0;
  if (n >= L) {
    simd::vec<C> v = simd::broadcast(m);
    for (; i + L <= n; i += L) v = simd::max(v, simd::load(x + i));
    m = simd::max_lane(v);
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

/// y[i] = y[i] / s for i < n.
template <class C>
IRLITE_MULTIVERSION void divide(C* __restrict y, C s, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = y[i] / s;
}

/// One slice along the last axis: x and y of n elements in the compute type (y may be x).
template <class C>
void softmax_row(const C* x, C* y, std::int64_t n) {
  const C m = row_max(x, n);
  const C sum = exp_shifted(x, m, y, n);
  divide(y, sum, n);
}

/// Softmax of `rows` rows of `len` floats each, len below a vector (face detection's 10,112 rows
/// of two classes): several rows' shifted values share each vector of exponentials, where
/// softmax_row() would take three calls a row. The same operations as softmax_row(): the
/// maximum in order, NaN ignored; e^(x - max) by exp_lanes(); the sum from zero in order; each
/// value divided by it.
IRLITE_MULTIVERSION inline void softmax_short_rows(const float* x, float* y, std::int64_t rows,
                                                   std::int64_t len) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  constexpr std::int64_t kBlock = 8 * L;  // floats per batch of rows
  const std::int64_t batch = kBlock / len;
  alignas(32) float shifted[kBlock];
  for (std::int64_t r0 = 0; r0 < rows; r0 += batch) {
    const std::int64_t count = std::min(batch, rows - r0) * len;
    const float* xb = x + r0 * len;
    float* yb = y + r0 * len;
    for (std::int64_t i = 0; i < count; i += len) {
      float m = -std::numeric_limits<float>::infinity();
      for (std::int64_t k = 0; k < len; ++k) m = xb[i + k] > m ? xb[i + k] : m;
      for (std::int64_t k = 0; k < len; ++k) shifted[i + k] = xb[i + k] - m;
    }
    std::fill(shifted + count, shifted + kBlock, 0.0f);
    for (std::int64_t v = 0; v < kBlock; v += L)
      simd::store(shifted + v, exp_lanes(simd::load(shifted + v)));
    for (std::int64_t i = 0; i < count; i += len) {
      float sum = 0.0f;
      for (std::int64_t k = 0; k < len; ++k) sum += shifted[i + k];
      for (std::int64_t k = 0; k < len; ++k) yb[i + k] = shifted[i + k] / sum;
    }
  }
}

/// m[j] = the maximum of x[i * stride + j] over i < len, for j < w (NaN ignored).
template <class C>
IRLITE_MULTIVERSION void column_max(const C* __restrict x, std::int64_t len, std::int64_t w,
                                    std::int64_t stride, C* __restrict m) {
  for (std::int64_t j = 0; j < w; ++j) m[j] = -std::numeric_limits<C>::infinity();
  for (std::int64_t i = 0; i < len; ++i) {
    const C* __restrict xi = x + i * stride;
    for (std::int64_t j = 0; j < w; ++j) m[j] = xi[j] > m[j] ? xi[j] : m[j];
  }
}

/// y[i * stride + j] /= s[j] for i < len, j < w.
template <class C>
IRLITE_MULTIVERSION void column_divide(C* __restrict y, std::int64_t len, std::int64_t w,
                                       std::int64_t stride, const C* __restrict s) {
  for (std::int64_t i = 0; i < len; ++i) {
    C* __restrict yi = y + i * stride;
    for (std::int64_t j = 0; j < w; ++j) yi[j] = yi[j] / s[j];
  }
}

/// y[i * stride + j] = exp(x[i * stride + j] - m[j]) for i < len, j < w (y may be x), and
/// s[j] their sum over i, in order.
template <class C>
void column_exp(const C* x, C* y, std::int64_t len, std::int64_t w, std::int64_t stride, const C* m,
                C* s) {
  std::fill_n(s, w, C(0));
  for (std::int64_t i = 0; i < len; ++i) {
    const C* xi = x + i * stride;
    C* yi = y + i * stride;
    if constexpr (std::is_same_v<C, float>) {
      exp_f32(xi, m, 1, yi, s, 1, w);
    } else {
      for (std::int64_t j = 0; j < w; ++j) {
        yi[j] = std::exp(xi[j] - m[j]);
        s[j] += yi[j];
      }
    }
  }
}

/// Columns [0, w) of a [len, stride] block: x and y in the compute type (y may be x), `m` and
/// `s` w elements each.
template <class C>
void softmax_columns(const C* x, C* y, std::int64_t len, std::int64_t w, std::int64_t stride, C* m,
                     C* s) {
  column_max(x, len, w, stride, m);
  column_exp(x, y, len, w, stride, m, s);
  column_divide(y, len, w, stride, s);
}

/// LogSoftmax of one slice along the last axis: x and y of n elements of storage type T, `work`
/// n elements of the compute type C (y itself when T is C; x may then not be y).
template <class T, class C>
void log_softmax_row(const T* x, T* y, C* work, std::int64_t n) {
  const C* xc = nullptr;
  if constexpr (std::is_same_v<C, T>) {
    xc = x;
  } else {
    for (std::int64_t i = 0; i < n; ++i) work[i] = static_cast<C>(x[i]);
    xc = work;
  }
  const C m = row_max(xc, n);
  const C log_sum = std::log(exp_shifted(xc, m, work, n));
  for (std::int64_t i = 0; i < n; ++i) y[i] = T((static_cast<C>(x[i]) - m) - log_sum);
}

/// LogSoftmax of columns [0, w) of a [len, stride] block of storage type T; `m` and `s` w
/// elements each, `copy` len * w elements when T is not the compute type C.
template <class T, class C>
void log_softmax_columns(const T* x, T* y, std::int64_t len, std::int64_t w, std::int64_t stride,
                         C* m, C* s, C* copy) {
  const C* xc = nullptr;
  C* work = nullptr;
  std::int64_t cs = stride;
  if constexpr (std::is_same_v<C, T>) {
    xc = x;
    work = y;
  } else {
    for (std::int64_t i = 0; i < len; ++i)
      for (std::int64_t j = 0; j < w; ++j) copy[i * w + j] = static_cast<C>(x[i * stride + j]);
    xc = work = copy;
    cs = w;
  }
  column_max(xc, len, w, cs, m);
  column_exp(xc, work, len, w, cs, m, s);
  for (std::int64_t j = 0; j < w; ++j) s[j] = std::log(s[j]);
  for (std::int64_t i = 0; i < len; ++i)
    for (std::int64_t j = 0; j < w; ++j)
      y[i * stride + j] = T((static_cast<C>(x[i * stride + j]) - m[j]) - s[j]);
}

}  // namespace softmax_detail

/// The memory softmax() allocates on `threads` threads.
/// The kernel's scratch, per chunk of its split: the running maxima and sums of a block of
/// columns, and a 16-bit type's slice (or block) copied into float.
template <class C>
struct SoftmaxScratch {
  std::span<C> max, sum, copy;
  std::size_t columns = 0;  ///< max and sum elements per chunk
  std::size_t copied = 0;   ///< copy elements per chunk
};

/// Takes the kernel's scratch for `threads` chunks: what softmax() uses and, on a counting
/// Scratch, what the op declares.
template <class T>
SoftmaxScratch<compute_t<T>> take_softmax_scratch(const Scratch& scratch, std::int64_t len,
                                                  std::int64_t inner, unsigned threads) {
  using C = compute_t<T>;
  namespace d = softmax_detail;
  SoftmaxScratch<C> s;
  const auto cols = static_cast<std::size_t>(std::min(inner, d::kColumns));
  s.columns = inner == 1 ? 0 : cols;
  if constexpr (!std::is_same_v<C, T>)
    s.copied = saturating_mul(static_cast<std::size_t>(len), inner == 1 ? 1 : cols);
  s.max = scratch.take<C>(saturating_mul(s.columns, threads));
  s.sum = scratch.take<C>(saturating_mul(s.columns, threads));
  s.copy = scratch.take<C>(saturating_mul(s.copied, threads));
  return s;
}

/// The bytes softmax() takes from its Scratch.
template <class T>
std::size_t softmax_scratch(std::int64_t len, std::int64_t inner, unsigned threads) {
  const Scratch counting = Scratch::counting();
  (void)take_softmax_scratch<T>(counting, len, inner, threads);
  return counting.bytes();
}

/// Softmax (LogSoftmax when Log) of a tensor viewed as [outer, len, inner] along its middle
/// axis.
template <class T, bool Log = false>
void softmax(const Parallel& par, const Scratch& scratch, const T* in, T* out, std::int64_t outer,
             std::int64_t len, std::int64_t inner) {
  using C = compute_t<T>;
  namespace d = softmax_detail;
  if (outer == 0 || len == 0 || inner == 0) return;
  const SoftmaxScratch<C> buffers = take_softmax_scratch<T>(scratch, len, inner, par.threads());
  if (inner == 1) {
    if constexpr (std::is_same_v<T, float> && !Log) {
      if (len < static_cast<std::int64_t>(simd::lanes<float>)) {
        par.for_range(static_cast<std::size_t>(outer),
                      static_cast<std::size_t>(std::max<std::int64_t>(1, d::kGrain / len)),
                      [&](std::size_t b, std::size_t e, std::size_t) {
                        const auto first = static_cast<std::int64_t>(b);
                        d::softmax_short_rows(in + first * len, out + first * len,
                                              static_cast<std::int64_t>(e) - first, len);
                      });
        return;
      }
    }
    par.for_range(static_cast<std::size_t>(outer),
                  static_cast<std::size_t>(std::max<std::int64_t>(1, d::kGrain / len)),
                  [&](std::size_t b, std::size_t e, std::size_t chunk) {
                    C* copy = buffers.copy.data() + chunk * buffers.copied;
                    for (std::size_t r = b; r < e; ++r) {
                      const T* x = in + static_cast<std::int64_t>(r) * len;
                      T* y = out + static_cast<std::int64_t>(r) * len;
                      if constexpr (Log) {
                        C* work = nullptr;
                        if constexpr (std::is_same_v<C, T>)
                          work = y;
                        else
                          work = copy;
                        d::log_softmax_row(x, y, work, len);
                      } else if constexpr (std::is_same_v<C, T>) {
                        d::softmax_row(x, y, len);
                      } else {
                        for (std::int64_t i = 0; i < len; ++i) copy[i] = static_cast<C>(x[i]);
                        d::softmax_row(copy, copy, len);
                        for (std::int64_t i = 0; i < len; ++i) y[i] = T(copy[i]);
                      }
                    }
                  });
    return;
  }
  const std::int64_t blocks = (inner + d::kColumns - 1) / d::kColumns;
  const std::int64_t cols = std::min(inner, d::kColumns);
  par.for_range(static_cast<std::size_t>(outer * blocks),
                static_cast<std::size_t>(std::max<std::int64_t>(1, d::kGrain / (len * cols))),
                [&](std::size_t b, std::size_t e, std::size_t chunk) {
                  C* m = buffers.max.data() + chunk * buffers.columns;
                  C* s = buffers.sum.data() + chunk * buffers.columns;
                  C* copy = buffers.copy.data() + chunk * buffers.copied;
                  for (std::size_t t = b; t < e; ++t) {
                    const std::int64_t o = static_cast<std::int64_t>(t) / blocks;
                    const std::int64_t c0 = static_cast<std::int64_t>(t) % blocks * d::kColumns;
                    const std::int64_t w = std::min(d::kColumns, inner - c0);
                    const T* x = in + o * len * inner + c0;
                    T* y = out + o * len * inner + c0;
                    if constexpr (Log) {
                      d::log_softmax_columns(x, y, len, w, inner, m, s, copy);
                    } else if constexpr (std::is_same_v<C, T>) {
                      d::softmax_columns(x, y, len, w, inner, m, s);
                    } else {
                      for (std::int64_t i = 0; i < len; ++i)
                        for (std::int64_t j = 0; j < w; ++j)
                          copy[static_cast<std::size_t>(i * w + j)] =
                              static_cast<C>(x[i * inner + j]);
                      d::softmax_columns(copy, copy, len, w, w, m, s);
                      for (std::int64_t i = 0; i < len; ++i)
                        for (std::int64_t j = 0; j < w; ++j)
                          y[i * inner + j] = T(copy[static_cast<std::size_t>(i * w + j)]);
                    }
                  }
                });
}

}  // namespace irlite

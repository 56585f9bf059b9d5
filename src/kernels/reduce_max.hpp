#pragma once
// ReduceMax: the maximum of a dense row-major tensor over a set of axes, on vectors and threads.
//
// The input is viewed as alternating blocks of kept and reduced axes (reduce_plan.hpp), so the
// innermost loop always runs over the last block, which is contiguous:
//   - last block reduced: each row's maximum is a contiguous scan into one output element;
//   - last block kept: runs of rows fold element-wise into an output row.
// Threads split whatever keeps every output element in one thread's hands: the outermost block
// when it is kept, else the columns of a kept last block; a reduction to few outputs (all axes,
// say) splits the rows and merges the partial maxima, which is exact.
// NaN propagates: a slice holding a NaN gives NaN (NumPy's and PyTorch's `max`; OpenVINO's
// reference skips NaN instead). Reducing an empty extent gives lowest_value<T>() as OpenVINO does.
// The sign of a zero maximum never depends on the thread count: contiguous scans, whose split
// does, order floats by their bits (+0 above -0); element-wise folds meet rows in the same order
// on any number of threads. kernels/reference/reduce_max.hpp is the plain version these results
// are tested against.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "core/buffer.hpp"
#include "core/parallel.hpp"
#include "kernels/element.hpp"
#include "kernels/reduce_plan.hpp"
#include "kernels/simd.hpp"

namespace irlite {

namespace reduce_max_detail {

/// The start value of a running maximum: -inf for floats (a slice of -inf gives -inf), the
/// lowest value for integers.
template <class C>
C start_value() {
  if constexpr (std::is_floating_point_v<C>)
    return -std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::lowest();
}

/// a > b, and for floats also +0 > -0, so that the maximum of a set of zeros does not depend on
/// the order in which they are met.
template <class C>
bool greater(C a, C b) {
  if constexpr (std::is_floating_point_v<C>)
    return a > b || (a == b && std::signbit(b) && !std::signbit(a));
  else
    return a > b;
}

/// A running maximum of part of a slice: the largest number and whether a NaN was seen.
template <class C>
struct Partial {
  C max = start_value<C>();
  bool nan = false;

  /// Takes in another part's maximum; of two zeros, +0 wins.
  void merge(const Partial& o) {
    max = greater(o.max, max) ? o.max : max;
    nan = nan || o.nan;
  }
  C value() const { return nan ? std::numeric_limits<C>::quiet_NaN() : max; }
};

/// The maximum of x[0..n), n >= 0, for the native types: four vectors of running maxima and,
/// for floats, a vector of NaN flags; one pass. Floats are compared as integer keys that order
/// like the values with -0 below +0 (the sign bit flips the magnitude bits), which makes the
/// result independent of how the lanes and the threads split the slice.
template <class T>
IRLITE_MULTIVERSION Partial<T> scan_native(const T* __restrict x, std::int64_t n) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<T>);
  Partial<T> p;
  std::int64_t i = 0;
  if constexpr (std::is_floating_point_v<T>) {
    using I = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
    using VI = simd::vec<I>;
    constexpr int kShift = sizeof(I) * 8 - 1;
    constexpr I kMagnitude = std::numeric_limits<I>::max();
    const auto key = [](simd::vec<T> v) {
      const VI b = std::bit_cast<VI>(v);
      return b ^ ((b >> kShift) & kMagnitude);
    };
    if (n >= 4 * L) {
      VI m0 = simd::broadcast(std::numeric_limits<I>::min());
      VI m1 = m0, m2 = m0, m3 = m0;
      simd::mask<T> nan{};
      for (; i + 4 * L <= n; i += 4 * L) {
        const auto a = simd::load(x + i), b = simd::load(x + i + L);
        const auto c = simd::load(x + i + 2 * L), d = simd::load(x + i + 3 * L);
        m0 = simd::max(m0, key(a));
        m1 = simd::max(m1, key(b));
        m2 = simd::max(m2, key(c));
        m3 = simd::max(m3, key(d));
        nan |= simd::is_nan(a) | simd::is_nan(b) | simd::is_nan(c) | simd::is_nan(d);
      }
      const I best = simd::max_lane(simd::max(simd::max(m0, m1), simd::max(m2, m3)));
      p.max = std::bit_cast<T>(static_cast<I>(best ^ ((best >> kShift) & kMagnitude)));
      p.nan = simd::any(nan);
    }
    for (; i < n; ++i) {
      p.max = greater(x[i], p.max) ? x[i] : p.max;
      p.nan = p.nan || x[i] != x[i];
    }
  } else {
    if (n >= 4 * L) {
      using V = simd::vec<T>;
      V m0 = simd::broadcast(start_value<T>());
      V m1 = m0, m2 = m0, m3 = m0;
      for (; i + 4 * L <= n; i += 4 * L) {
        m0 = simd::max(m0, simd::load(x + i));
        m1 = simd::max(m1, simd::load(x + i + L));
        m2 = simd::max(m2, simd::load(x + i + 2 * L));
        m3 = simd::max(m3, simd::load(x + i + 3 * L));
      }
      p.max = simd::max_lane(simd::max(simd::max(m0, m1), simd::max(m2, m3)));
    }
    for (; i < n; ++i) p.max = x[i] > p.max ? x[i] : p.max;
  }
  return p;
}

/// The maximum of x[0..n) in the compute type.
template <class T>
Partial<compute_t<T>> scan(const T* x, std::int64_t n) {
  using C = compute_t<T>;
  if constexpr (simd::has_vec<T>) {
    return scan_native(x, n);
  } else {
    // The 16-bit floats: converted one by one, a plain loop.
    Partial<C> p;
    for (std::int64_t i = 0; i < n; ++i) {
      const C v = static_cast<C>(x[i]);
      p.max = greater(v, p.max) ? v : p.max;
      p.nan = p.nan || std::isnan(v);
    }
    return p;
  }
}

/// acc[j] = max(acc[j], rows[r * stride + j]) for r < rows, j < n, NaN-propagating: a NaN in acc
/// stays, a NaN in a row replaces. An acc that stays in L1 is cheap to load and store again, so
/// rows then fold one by one, in memory order, which the hardware prefetcher follows best
/// ([64,1024,1024] over axis 1: 11.6 -> 8.1 ms at one thread against eight rows a pass). A larger
/// acc is passed over once per eight rows, to load and store it an eighth as often ([4096,16384]
/// over axis 0: 9.8 ms against 17 ms row by row, and 16 rows a pass were slower again).
template <class T>
IRLITE_MULTIVERSION void fold_native(T* __restrict acc, const T* __restrict x, std::int64_t rows,
                                     std::int64_t n, std::int64_t stride) {
  using V = simd::vec<T>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<T>);
  const auto step = [](V a, V v) {
    if constexpr (std::is_floating_point_v<T>)
      return ((v > a) | simd::is_nan(v)) ? v : a;
    else
      return v > a ? v : a;
  };
  const auto step1 = [](T a, T v) {
    if constexpr (std::is_floating_point_v<T>)
      return (v > a || v != v) ? v : a;
    else
      return v > a ? v : a;
  };
  constexpr std::size_t kL1Bytes = 16384;  // what acc may take of L1 to be folded row by row
  const bool row_by_row = static_cast<std::size_t>(n) * sizeof(T) <= kL1Bytes;
  std::int64_t r = 0;
  for (; !row_by_row && r + 8 <= rows; r += 8) {
    const T* x0 = x + r * stride;
    std::int64_t j = 0;
    for (; j + L <= n; j += L) {
      V a = simd::load(acc + j);
      for (int q = 0; q < 8; ++q) a = step(a, simd::load(x0 + q * stride + j));
      simd::store(acc + j, a);
    }
    for (; j < n; ++j) {
      T a = acc[j];
      for (int q = 0; q < 8; ++q) a = step1(a, x0[q * stride + j]);
      acc[j] = a;
    }
  }
  for (; r < rows; ++r) {
    const T* xr = x + r * stride;
    std::int64_t j = 0;
    for (; j + L <= n; j += L) simd::store(acc + j, step(simd::load(acc + j), simd::load(xr + j)));
    for (; j < n; ++j) acc[j] = step1(acc[j], xr[j]);
  }
}

/// fold_native for every type: the 16-bit floats accumulate in float.
template <class T>
void fold(compute_t<T>* acc, const T* x, std::int64_t rows, std::int64_t n, std::int64_t stride) {
  if constexpr (simd::has_vec<T>) {
    fold_native(acc, x, rows, n, stride);
  } else {
    for (std::int64_t r = 0; r < rows; ++r) {
      const T* xr = x + r * stride;
      for (std::int64_t j = 0; j < n; ++j) {
        const float v = static_cast<float>(xr[j]);
        acc[j] = (v > acc[j] || std::isnan(v)) ? v : acc[j];
      }
    }
  }
}

/// Work below this many input elements per thread is not worth waking a thread for.
inline constexpr std::int64_t kGrain = std::int64_t{1} << 16;

/// The output of a reduction in progress, in the compute type (the output itself, or a float
/// copy for the 16-bit floats).
template <class T>
struct Accumulator {
  using C = compute_t<T>;
  std::vector<C> scratch;
  C* acc = nullptr;

  Accumulator(T* out, std::int64_t size) {
    if constexpr (std::is_same_v<C, T>) {
      acc = out;
    } else {
      scratch.resize(static_cast<std::size_t>(size));
      acc = scratch.data();
    }
  }
};

/// The reduction of the outer blocks [first, first + count) of dims[0] (all of it when
/// outer_rank is 0), columns [c0, c1) of the last block when it is kept, into acc. `acc` holds
/// start values on entry for what this call touches.
template <class T>
void reduce_part(const T* in, const ReduceMaxPlan& plan, compute_t<T>* acc, std::int64_t first,
                 std::int64_t count, std::int64_t c0, std::int64_t c1) {
  const bool last_reduced = plan.reduced.back();
  const std::int64_t n = plan.dims.back();
  const std::int64_t run = last_reduced ? 1 : plan.dims[plan.dims.size() - 2];
  const std::size_t outer_rank = plan.dims.size() - (last_reduced ? 1 : 2);
  std::vector<std::int64_t> out_stride(outer_rank), pos(outer_rank, 0), in_stride(outer_rank);
  std::int64_t s = last_reduced ? 1 : n;
  std::int64_t t = run * n;
  for (std::size_t d = outer_rank; d-- > 0;) {
    out_stride[d] = plan.reduced[d] ? 0 : s;
    if (!plan.reduced[d]) s *= plan.dims[d];
    in_stride[d] = t;
    t *= plan.dims[d];
  }
  // The odometer walks the outer blocks from `first` along dims[0] and tracks where each row
  // (last block reduced) or run of rows (last block kept) lands in the output.
  std::int64_t steps = 1;
  std::int64_t in_offset = 0, out_offset = 0;
  if (outer_rank > 0) {
    steps = count * (in_stride[0] / (run * n));
    pos[0] = first;
    in_offset = first * in_stride[0];
    out_offset = first * out_stride[0];
  }
  for (std::int64_t step = 0; step < steps; ++step) {
    const T* x = in + in_offset;
    if (last_reduced) {
      auto& a = acc[out_offset];
      const compute_t<T> v = scan(x, n).value();
      a = (greater(v, a) || std::isnan(v)) ? v : a;
    } else {
      fold(acc + out_offset + c0, x + c0, run, c1 - c0, n);
    }
    in_offset += run * n;
    for (std::size_t d = outer_rank; d-- > 0;) {
      out_offset += out_stride[d];
      if (++pos[d] < plan.dims[d]) break;
      out_offset -= out_stride[d] * plan.dims[d];
      pos[d] = 0;
    }
  }
}

}  // namespace reduce_max_detail

/// The most memory reduce_max() allocates besides its output of `output_size` elements on
/// `threads` threads: a float copy of the output for 16-bit floats, and a partial maximum per
/// thread.
template <class T>
std::size_t reduce_max_scratch(std::size_t output_size, unsigned threads) {
  using C = compute_t<T>;
  const std::size_t copy = std::is_same_v<C, T> ? 0 : saturating_mul(output_size, sizeof(C));
  return saturating_add(copy, std::size_t{threads} * sizeof(reduce_max_detail::Partial<C>));
}

/// Writes plan.output_size maxima to `out` (the kept axes in order; keep_dims does not change
/// the layout), using the threads of `par` for work of `grain` input elements a thread or more
/// (tests lower it to split small inputs).
template <class T>
void reduce_max(const Parallel& par, const T* in, const ReduceMaxPlan& plan, T* out,
                std::int64_t grain = reduce_max_detail::kGrain) {
  using C = compute_t<T>;
  namespace detail = reduce_max_detail;
  if (plan.output_size == 0) return;
  if (plan.input_size == 0) {
    std::fill_n(out, plan.output_size, lowest_value<T>());
    return;
  }
  if (std::find(plan.reduced.begin(), plan.reduced.end(), true) == plan.reduced.end()) {
    std::copy_n(in, plan.input_size, out);  // nothing (or only size-1 axes) to reduce
    return;
  }
  detail::Accumulator<T> a(out, plan.output_size);
  C* acc = a.acc;
  const bool last_reduced = plan.reduced.back();
  const std::int64_t n = plan.dims.back();
  const auto grain_of = [&](std::int64_t units) {
    const std::int64_t per_unit = std::max<std::int64_t>(plan.input_size / units, 1);
    return static_cast<std::size_t>((grain + per_unit - 1) / per_unit);
  };
  const std::size_t outer_rank = plan.dims.size() - (last_reduced ? 1 : 2);

  if (outer_rank > 0 && !plan.reduced[0]) {
    // The outermost block is kept: each thread owns a range of it, and its outputs.
    const std::int64_t d0 = plan.dims[0];
    const std::int64_t out_per = plan.output_size / d0;
    par.for_range(static_cast<std::size_t>(d0), grain_of(d0),
                  [&](std::size_t b, std::size_t e, std::size_t) {
                    const auto first = static_cast<std::int64_t>(b);
                    const auto count = static_cast<std::int64_t>(e - b);
                    std::fill_n(acc + first * out_per, count * out_per, detail::start_value<C>());
                    detail::reduce_part(in, plan, acc, first, count, 0, n);
                  });
  } else if (!last_reduced) {
    // The last block is kept: each thread owns a range of its columns.
    std::fill_n(acc, plan.output_size, detail::start_value<C>());
    const std::int64_t d0 = outer_rank > 0 ? plan.dims[0] : 1;
    par.for_range(static_cast<std::size_t>(n), grain_of(n),
                  [&](std::size_t b, std::size_t e, std::size_t) {
                    detail::reduce_part(in, plan, acc, 0, d0, static_cast<std::int64_t>(b),
                                        static_cast<std::int64_t>(e));
                  });
  } else if (plan.dims.size() == 1) {
    // Everything into one value: each thread scans a range, and the partial maxima merge.
    std::vector<detail::Partial<C>> parts(par.threads());
    par.for_range(static_cast<std::size_t>(n), static_cast<std::size_t>(grain),
                  [&](std::size_t b, std::size_t e, std::size_t c) {
                    parts[c] = detail::scan(in + b, static_cast<std::int64_t>(e - b));
                  });
    detail::Partial<C> total;
    for (const auto& p : parts) total.merge(p);
    acc[0] = total.value();
  } else {
    std::fill_n(acc, plan.output_size, detail::start_value<C>());
    detail::reduce_part(in, plan, acc, 0, plan.dims[0], 0, n);
  }
  if constexpr (!std::is_same_v<C, T>) {
    for (std::int64_t i = 0; i < plan.output_size; ++i) out[i] = T(acc[i]);
  }
}

/// Reduces a tensor of `shape` over `axes` (normalised into [0, rank), duplicates allowed).
template <class T>
void reduce_max(const Parallel& par, const T* in, std::span<const std::int64_t> shape,
                std::span<const std::int64_t> axes, T* out) {
  reduce_max(par, in, plan_reduce_max(shape, axes), out);
}

}  // namespace irlite

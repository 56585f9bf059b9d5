#pragma once
// ReduceMax, the plain kernel: the test oracle of kernels/reduce_max.hpp.
//
// The maximum of a dense row-major tensor over a set of axes.
//
// The input is viewed as alternating blocks of kept and reduced axes (size-1 axes dropped,
// neighbouring axes of the same kind merged), so the innermost loop always runs over the last
// block, which is contiguous in memory:
//   - last block reduced (e.g. reduce over the last axes): each row's maximum is a contiguous
//     scan, folded into one output element;
//   - last block kept (e.g. reduce over the first or middle axes): each input row is folded
//     element-wise into an output row.
// NaN propagates: a slice holding a NaN gives NaN (NumPy's and PyTorch's `max`; OpenVINO's
// reference skips NaN instead). Reducing an empty extent gives lowest_value<T>() as OpenVINO does.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "kernels/element.hpp"
#include "kernels/reduce_plan.hpp"

namespace irlite::test::reference {

namespace reduce_max_impl {

/// The start value of a running maximum: -inf for floats (so that a slice of -inf gives -inf),
/// the lowest value for integers.
template <class C>
C start_value() {
  if constexpr (std::is_floating_point_v<C>)
    return -std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::lowest();
}

/// Independent accumulators per vectorised loop: enough to hide the latency of the compare
/// (eight 16-byte registers' worth), without spilling.
template <class C>
inline constexpr int kLanes = static_cast<int>(128 / sizeof(C));

/// Whether x[0..n) holds a NaN. Integer lanes of the element's width, because the compiler turns
/// `x != x` into one vector compare per lane group that way.
template <class C>
bool any_nan(const C* x, std::int64_t n) {
  using Flag = std::conditional_t<sizeof(C) == 4, std::int32_t, std::int64_t>;
  constexpr int L = kLanes<C>;
  Flag lane[L] = {};
  std::int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int l = 0; l < L; ++l) lane[l] |= static_cast<Flag>(x[i + l] != x[i + l]);
  }
  Flag any = 0;
  for (; i < n; ++i) any |= static_cast<Flag>(x[i] != x[i]);
  for (int l = 0; l < L; ++l) any |= lane[l];
  return any != 0;
}

/// The maximum of x[0..n), n >= 1, ignoring NaN. Several accumulators, because the compiler
/// only vectorises a float maximum (which must keep `v > m ? v : m` exactly) written this way.
template <class C>
C max_ignoring_nan(const C* x, std::int64_t n) {
  constexpr int L = kLanes<C>;
  C lane[L];
  std::fill_n(lane, L, start_value<C>());
  std::int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int l = 0; l < L; ++l) lane[l] = x[i + l] > lane[l] ? x[i + l] : lane[l];
  }
  C m = start_value<C>();
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  for (int l = 0; l < L; ++l) m = lane[l] > m ? lane[l] : m;
  return m;
}

/// Rows shorter than this are not worth the vectorised passes' set-up.
inline constexpr std::int64_t kShortRow = 32;

/// The maximum of x[0..n), n >= 1; NaN if any element is NaN.
template <class T>
compute_t<T> row_max(const T* x, std::int64_t n) {
  using C = compute_t<T>;
  if constexpr (std::is_floating_point_v<C>) {
    if constexpr (std::is_same_v<C, T>) {
      if (n >= kShortRow) {
        // Two vectorised passes per cache-sized chunk beat one pass doing both.
        constexpr std::int64_t kChunk = 2048;
        C m = start_value<C>();
        for (std::int64_t i = 0; i < n; i += kChunk) {
          const std::int64_t len = std::min(kChunk, n - i);
          if (any_nan(x + i, len)) return std::numeric_limits<C>::quiet_NaN();
          const C c = max_ignoring_nan(x + i, len);
          m = c > m ? c : m;
        }
        return m;
      }
    }
    // Short rows, and 16-bit floats (where the conversion dominates): one plain pass.
    C m = start_value<C>();
    bool nan = false;
    for (std::int64_t i = 0; i < n; ++i) {
      const C v = static_cast<C>(x[i]);
      m = v > m ? v : m;
      nan |= std::isnan(v);
    }
    return nan ? std::numeric_limits<C>::quiet_NaN() : m;
  } else {
    C m = x[0];
    for (std::int64_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
    return m;
  }
}

/// max(a, v), NaN-propagating.
template <class C>
C nan_max(C a, C v) {
  if constexpr (std::is_floating_point_v<C>)
    return (v > a || std::isnan(v)) ? v : a;
  else
    return v > a ? v : a;
}

/// acc[j] = max(acc[j], x[r * n + j]) over `rows` consecutive rows of n, NaN-propagating. Four
/// rows per pass, so that the accumulator row is loaded and stored a quarter as often. A NaN
/// already in acc survives `v > a ? v : a`, so rows without NaN (checked first, cheaply) take
/// that plain maximum, which is one vector instruction.
template <class T>
void fold_rows(compute_t<T>* acc, const T* x, std::int64_t rows, std::int64_t n) {
  using C = compute_t<T>;
  std::int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const T* x0 = x + r * n;
    const T* x1 = x0 + n;
    const T* x2 = x1 + n;
    const T* x3 = x2 + n;
    bool exact = std::is_floating_point_v<C>;
    if constexpr (std::is_same_v<C, T> && std::is_floating_point_v<C>) exact = any_nan(x0, 4 * n);
    if (exact) {
      for (std::int64_t j = 0; j < n; ++j) {
        C a = acc[j];
        a = nan_max(a, static_cast<C>(x0[j]));
        a = nan_max(a, static_cast<C>(x1[j]));
        a = nan_max(a, static_cast<C>(x2[j]));
        acc[j] = nan_max(a, static_cast<C>(x3[j]));
      }
    } else {
      for (std::int64_t j = 0; j < n; ++j) {
        C a = acc[j];
        a = x0[j] > a ? x0[j] : a;
        a = x1[j] > a ? x1[j] : a;
        a = x2[j] > a ? x2[j] : a;
        acc[j] = x3[j] > a ? x3[j] : a;
      }
    }
  }
  for (; r < rows; ++r) {
    const T* xr = x + r * n;
    for (std::int64_t j = 0; j < n; ++j) acc[j] = nan_max(acc[j], static_cast<C>(xr[j]));
  }
}

}  // namespace reduce_max_impl

/// Writes plan.output_size maxima to `out` (the kept axes in order; keep_dims does not change
/// the layout).
template <class T>
void reduce_max(const T* in, const ReduceMaxPlan& plan, T* out) {
  using C = compute_t<T>;
  namespace impl = reduce_max_impl;
  if (plan.output_size == 0) return;
  if (plan.input_size == 0) {
    std::fill_n(out, plan.output_size, lowest_value<T>());
    return;
  }
  if (std::find(plan.reduced.begin(), plan.reduced.end(), true) == plan.reduced.end()) {
    std::copy_n(in, plan.input_size, out);  // nothing (or only size-1 axes) to reduce
    return;
  }
  // 16-bit floats accumulate in float and are rounded once at the end.
  std::vector<C> scratch;
  C* acc = nullptr;
  if constexpr (std::is_same_v<C, T>) {
    acc = out;
  } else {
    scratch.resize(static_cast<std::size_t>(plan.output_size));
    acc = scratch.data();
  }
  std::fill_n(acc, plan.output_size, impl::start_value<C>());

  // The innermost block is contiguous. When it is reduced, each row of it gives one output
  // element; when it is kept, the block before it is reduced (blocks alternate), so runs of
  // consecutive rows fold into one output row. The odometer walks the remaining outer blocks
  // and tracks where each row or run lands in the output (stride 0 along reduced blocks).
  const bool last_reduced = plan.reduced.back();
  const std::int64_t n = plan.dims.back();
  const std::int64_t run = last_reduced ? 1 : plan.dims[plan.dims.size() - 2];
  const std::size_t outer_rank = plan.dims.size() - (last_reduced ? 1 : 2);
  std::vector<std::int64_t> out_stride(outer_rank), pos(outer_rank, 0);
  std::int64_t s = last_reduced ? 1 : n;
  for (std::size_t d = outer_rank; d-- > 0;) {
    out_stride[d] = plan.reduced[d] ? 0 : s;
    if (!plan.reduced[d]) s *= plan.dims[d];
  }
  const std::int64_t steps = plan.input_size / (run * n);
  std::int64_t out_offset = 0;
  for (std::int64_t step = 0; step < steps; ++step) {
    const T* x = in + step * run * n;
    if (last_reduced)
      acc[out_offset] = impl::nan_max(acc[out_offset], impl::row_max(x, n));
    else
      impl::fold_rows(acc + out_offset, x, run, n);
    for (std::size_t d = outer_rank; d-- > 0;) {
      out_offset += out_stride[d];
      if (++pos[d] < plan.dims[d]) break;
      out_offset -= out_stride[d] * plan.dims[d];
      pos[d] = 0;
    }
  }
  if constexpr (!std::is_same_v<C, T>) {
    for (std::int64_t i = 0; i < plan.output_size; ++i) out[i] = T(acc[i]);
  }
}

/// Reduces a tensor of `shape` over `axes` (normalised into [0, rank), duplicates allowed).
template <class T>
void reduce_max(const T* in, std::span<const std::int64_t> shape,
                std::span<const std::int64_t> axes, T* out) {
  reduce_max(in, plan_reduce_max(shape, axes), out);
}

}  // namespace irlite::test::reference

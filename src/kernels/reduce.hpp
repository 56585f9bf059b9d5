#pragma once
// The reductions of a dense row-major tensor over a set of axes (ReduceMax, ReduceMin,
// ReduceSum, ReduceProd, ReduceMean, ReduceL1, ReduceL2), on vectors and threads. One machinery
// walks the input; each reduction is a policy that says how to start, how to take in an element
// (on scalars and on vectors), how to scan a contiguous row and fold rows element-wise, and how
// to finish (Mean divides, L2 takes the square root).
//
// The input is viewed as alternating blocks of kept and reduced axes (reduce_plan.hpp), so the
// innermost loop always runs over the last block, which is contiguous:
//   - last block reduced: each row is a contiguous scan into one output element;
//   - last block kept: runs of rows fold element-wise into an output row.
// Threads split whatever keeps every output element in one thread's hands: the outermost block
// when it is kept, else the columns of a kept last block. A reduction to one value splits the
// input into blocks whose bounds depend on the input's size only, and the blocks' partial results
// are combined in order. So every output element is computed in the same order on any number of
// threads, which a sum needs to give the same bits.
//
// Max and Min propagate NaN (a slice holding a NaN gives NaN: NumPy's and PyTorch's behaviour;
// OpenVINO's reference skips NaN instead). Their contiguous scans order floats by their bits
// (+0 above -0), so the sign of a zero result does not depend on how lanes split a row. Sums and
// products of integers wrap as the type does; 16-bit floats accumulate in float and are rounded
// once at the end. tests/reference/reduce_max.hpp is the plain version of ReduceMax these
// results are tested against; the other reductions are tested against plain loops in the tests.

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
#include "irlite/scratch.hpp"
#include "kernels/element.hpp"
#include "kernels/reduce_plan.hpp"
#include "kernels/reduce_steps.hpp"
#include "kernels/simd.hpp"

namespace irlite {

/// A maximum (kMin false) or minimum. Reducing an empty extent gives, as OpenVINO's reference
/// does, the type's lowest value for a maximum and +inf (the largest value for integers) for a
/// minimum.
template <bool kMin>
struct ReduceExtremum {
  template <class C>
  static C start() {
    return reduce_detail::extremum_start<kMin, C>();
  }
  template <class T>
  static T empty() {
    return kMin ? reduce_detail::highest_value<T>() : lowest_value<T>();
  }
  /// Takes in a partial result; of two zeros, +0 wins a maximum and -0 a minimum.
  template <class C>
  static C combine(C a, C v) {
    if constexpr (std::is_floating_point_v<C>)
      return (reduce_detail::beats<kMin>(v, a) || v != v) ? v : a;
    else
      return reduce_detail::beats<kMin>(v, a) ? v : a;
  }
  template <class T>
  static compute_t<T> scan(const T* x, std::int64_t n, std::int64_t readable) {
    if constexpr (simd::has_vec<T>) {
      return reduce_detail::scan_extremum<T, kMin>(x, n, readable);
    } else {
      // The 16-bit floats: converted one by one, a plain loop.
      float best = start<float>();
      bool nan = false;
      for (std::int64_t i = 0; i < n; ++i) {
        const float v = static_cast<float>(x[i]);
        best = reduce_detail::beats<kMin>(v, best) ? v : best;
        nan = nan || std::isnan(v);
      }
      return nan ? std::numeric_limits<float>::quiet_NaN() : best;
    }
  }
  template <class T>
  static void fold(compute_t<T>* acc, const T* x, std::int64_t rows, std::int64_t n,
                   std::int64_t stride) {
    using Step = reduce_detail::ExtremumStep<kMin>;
    if constexpr (simd::has_vec<T>) {
      reduce_detail::fold_native<T, Step>(acc, x, rows, n, stride);
    } else {
      for (std::int64_t r = 0; r < rows; ++r) {
        const T* xr = x + r * stride;
        for (std::int64_t j = 0; j < n; ++j) acc[j] = Step::one(acc[j], static_cast<float>(xr[j]));
      }
    }
  }
  /// Nothing to do once every element is in.
  static constexpr bool kFinish = false;
  template <class C>
  static C finish(C v, std::int64_t) {
    return v;
  }
};

using ReduceMaxKind = ReduceExtremum<false>;
using ReduceMinKind = ReduceExtremum<true>;

/// What an additive or multiplicative reduction does at the end.
enum class Finish { none, mean, sqrt };

/// A sum or product of mapped elements, then a final touch: ReduceSum, ReduceProd, ReduceMean
/// (the sum divided by the count: integer division for integers, NaN for floats over an empty
/// extent and 0 for integers), ReduceL1 (the sum of magnitudes), ReduceL2 (the square root of
/// the sum of squares; for integers rounded toward zero, and 0 when the sum wrapped negative).
template <bool kProduct, reduce_detail::Map kMap, Finish kFinishWith>
struct ReduceArithmetic {
  using Step = reduce_detail::ArithmeticStep<kProduct, kMap>;
  template <class C>
  static C start() {
    return Step::template start<C>();
  }
  template <class T>
  static T empty() {
    if constexpr (kFinishWith == Finish::mean && is_float_storage_v<T>)
      return T(std::numeric_limits<float>::quiet_NaN());
    else
      return T(static_cast<compute_t<T>>(kProduct ? 1 : 0));
  }
  template <class C>
  static C combine(C a, C v) {
    return Step::merge(a, v);
  }
  template <class T>
  static compute_t<T> scan(const T* x, std::int64_t n, std::int64_t readable) {
    if constexpr (simd::has_vec<T>) {
      return reduce_detail::scan_native<T, Step>(x, n, readable);
    } else {
      float r = start<float>();
      for (std::int64_t i = 0; i < n; ++i) r = Step::one(r, static_cast<float>(x[i]));
      return r;
    }
  }
  template <class T>
  static void fold(compute_t<T>* acc, const T* x, std::int64_t rows, std::int64_t n,
                   std::int64_t stride) {
    if constexpr (simd::has_vec<T>) {
      reduce_detail::fold_native<T, Step>(acc, x, rows, n, stride);
    } else {
      for (std::int64_t r = 0; r < rows; ++r) {
        const T* xr = x + r * stride;
        for (std::int64_t j = 0; j < n; ++j) acc[j] = Step::one(acc[j], static_cast<float>(xr[j]));
      }
    }
  }
  static constexpr bool kFinish = kFinishWith != Finish::none;
  /// The result from the accumulated value of `count` elements (count > 0).
  template <class C>
  static C finish(C v, std::int64_t count) {
    if constexpr (kFinishWith == Finish::mean) {
      if constexpr (std::is_floating_point_v<C>)
        return v / static_cast<C>(count);
      else if constexpr (std::is_signed_v<C>)
        return static_cast<C>(static_cast<std::int64_t>(v) / count);
      else
        return static_cast<C>(static_cast<std::uint64_t>(v) / static_cast<std::uint64_t>(count));
    } else if constexpr (kFinishWith == Finish::sqrt) {
      if constexpr (std::is_floating_point_v<C>)
        return std::sqrt(v);
      else if constexpr (std::is_signed_v<C>)
        return v < 0 ? C(0) : static_cast<C>(std::sqrt(static_cast<double>(v)));  // wrapped
      else
        return static_cast<C>(std::sqrt(static_cast<double>(v)));
    } else {
      return v;
    }
  }
};

using ReduceSumKind = ReduceArithmetic<false, reduce_detail::Map::identity, Finish::none>;
using ReduceProdKind = ReduceArithmetic<true, reduce_detail::Map::identity, Finish::none>;
using ReduceMeanKind = ReduceArithmetic<false, reduce_detail::Map::identity, Finish::mean>;
using ReduceL1Kind = ReduceArithmetic<false, reduce_detail::Map::abs, Finish::none>;
using ReduceL2Kind = ReduceArithmetic<false, reduce_detail::Map::square, Finish::sqrt>;

namespace reduce_detail {

/// Work below this many input elements per thread is not worth waking a thread for.
inline constexpr std::int64_t kGrain = std::int64_t{1} << 16;

/// The blocks a reduction to one value splits its n elements into: as many as there are
/// `grain`s in n (at least one), whatever the thread count.
inline std::int64_t block_count(std::int64_t n, std::int64_t grain) {
  return std::max<std::int64_t>(1, n / std::max<std::int64_t>(grain, 1));
}

/// The reduction of the outer blocks [first, first + count) of dims[0] (all of it when
/// outer_rank is 0), columns [c0, c1) of the last block when it is kept, into acc. `acc` holds
/// start values on entry for what this call touches.
template <class K, class T>
void reduce_part(const T* in, const ReducePlan& plan, compute_t<T>* acc, std::int64_t first,
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
      a = K::combine(a, K::scan(x, n, plan.input_size - in_offset));
    } else {
      K::fold(acc + out_offset + c0, x + c0, run, c1 - c0, n);
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

}  // namespace reduce_detail

namespace reduce_detail {

/// The rows a range of a row split takes at least: 16, and enough for `grain` elements.
inline std::size_t row_grain(const ReducePlan& plan, std::int64_t grain) {
  const std::int64_t n = plan.dims.back();
  return static_cast<std::size_t>(
      std::max<std::int64_t>(16, (grain + n - 1) / std::max<std::int64_t>(n, 1)));
}

/// Into how many row ranges a reduction of [rows, n] over its rows splits, one per thread (1:
/// split the columns instead). Only a maximum or minimum can: what the ranges' partial results
/// give when folded in order does not depend on the split (the first of equal values stays, a
/// NaN becomes the quiet NaN either way), where a sum's rounding would. Each range takes at
/// least `grain` elements and 16 rows, so that the partial results stay small beside the input.
template <class K, class T>
std::size_t row_split(const Parallel& par, const ReducePlan& plan, std::int64_t grain) {
  constexpr bool order_free = std::is_same_v<K, ReduceMaxKind> || std::is_same_v<K, ReduceMinKind>;
  if constexpr (!order_free || !std::is_same_v<compute_t<T>, T>) {
    return 1;
  } else {
    if (plan.dims.size() != 2 || !plan.reduced[0] || plan.reduced[1]) return 1;
    return par.chunks(static_cast<std::size_t>(plan.dims[0]), row_grain(plan, grain));
  }
}

}  // namespace reduce_detail

/// The scratch memory of a reduction: a float copy of the output for 16-bit floats (the
/// accumulator), a partial result per block of a reduction to one value, and an output-sized
/// partial result per thread but one when rows are split between threads. Every piece is
/// taken whichever way the reduction goes, so that the op's declared size is what the kernel
/// takes.
template <class C>
struct ReduceScratch {
  std::span<C> copy, blocks, partials;
};

/// Takes a reduction's scratch for an input of `input_size` elements and an output of
/// `output_size` on `threads` threads: what reduce() uses and, on a counting Scratch, what the
/// op declares (reduce_scratch()).
template <class T>
ReduceScratch<compute_t<T>> take_reduce_scratch(const Scratch& scratch, std::size_t input_size,
                                                std::size_t output_size, unsigned threads,
                                                std::int64_t grain) {
  using C = compute_t<T>;
  ReduceScratch<C> s;
  s.copy = scratch.take<C>(std::is_same_v<C, T> ? 0 : output_size);
  s.blocks = scratch.take<C>(static_cast<std::size_t>(reduce_detail::block_count(
      static_cast<std::int64_t>(std::min<std::size_t>(input_size, INT64_MAX)), grain)));
  s.partials = scratch.take<C>(saturating_mul(std::max(threads, 1u) - 1, output_size));
  return s;
}

/// The bytes of scratch reduce() takes.
template <class T>
std::size_t reduce_scratch(std::size_t input_size, std::size_t output_size, unsigned threads,
                           std::int64_t grain = reduce_detail::kGrain) {
  const Scratch counting = Scratch::counting();
  (void)take_reduce_scratch<T>(counting, input_size, output_size, threads, grain);
  return counting.bytes();
}

/// Writes plan.output_size results of reduction K (ReduceMaxKind, ReduceSumKind...) to `out`
/// (the kept axes in order; keep_dims does not change the layout), using the threads of `par`
/// for work of `grain` input elements a thread or more (tests lower it to split small inputs),
/// and reduce_scratch() bytes of `scratch`.
template <class K, class T>
void reduce(const Parallel& par, const T* in, const ReducePlan& plan, T* out,
            std::int64_t grain = reduce_detail::kGrain, const Scratch& scratch = Scratch()) {
  using C = compute_t<T>;
  namespace detail = reduce_detail;
  if (plan.output_size == 0) return;
  if (plan.input_size == 0) {
    std::fill_n(out, plan.output_size, K::template empty<T>());
    return;
  }
  const std::int64_t count = plan.input_size / plan.output_size;  // elements per result
  if (std::find(plan.reduced.begin(), plan.reduced.end(), true) == plan.reduced.end()) {
    // Nothing (or only size-1 axes) to reduce: each result is one element.
    if constexpr (std::is_same_v<K, ReduceMaxKind> || std::is_same_v<K, ReduceMinKind> ||
                  std::is_same_v<K, ReduceSumKind> || std::is_same_v<K, ReduceProdKind> ||
                  std::is_same_v<K, ReduceMeanKind>) {
      std::copy_n(in, plan.input_size, out);
    } else {
      for (std::int64_t i = 0; i < plan.input_size; ++i) {
        const C one = K::combine(K::template start<C>(), K::scan(in + i, 1, 1));
        out[i] = T(K::finish(one, 1));
      }
    }
    return;
  }
  const ReduceScratch<C> buffers =
      take_reduce_scratch<T>(scratch, static_cast<std::size_t>(plan.input_size),
                             static_cast<std::size_t>(plan.output_size), par.threads(), grain);
  C* acc = nullptr;
  if constexpr (std::is_same_v<C, T>)
    acc = out;
  else
    acc = buffers.copy.data();
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
                    const auto cnt = static_cast<std::int64_t>(e - b);
                    std::fill_n(acc + first * out_per, cnt * out_per, K::template start<C>());
                    detail::reduce_part<K>(in, plan, acc, first, cnt, 0, n);
                  });
  } else if (const std::size_t ranges = detail::row_split<K, T>(par, plan, grain); ranges > 1) {
    // Rows [r0, r1) of [rows, n] fold into one partial result per thread, in the output for the
    // first; the partials then fold into it in order. The threads read long runs of whole rows
    // instead of pieces of every row (a column split), which the memory system serves faster:
    // [4096,16384] over axis 0 at two threads, 6.6 ms against 7.3.
    const std::int64_t rows = plan.dims[0];
    C* const partial = buffers.partials.data();
    par.for_range(static_cast<std::size_t>(rows), detail::row_grain(plan, grain),
                  [&](std::size_t b, std::size_t e, std::size_t c) {
                    C* part = c == 0 ? acc : partial + (c - 1) * static_cast<std::size_t>(n);
                    std::fill_n(part, n, K::template start<C>());
                    K::fold(part, in + static_cast<std::int64_t>(b) * n,
                            static_cast<std::int64_t>(e - b), n, n);
                  });
    for (std::size_t c = 1; c < ranges; ++c) {
      // One more row each, in thread order: ties keep the earlier rows' value, as one thread
      // folding every row would.
      K::fold(acc, partial + (c - 1) * static_cast<std::size_t>(n), 1, n, n);
    }
  } else if (!last_reduced) {
    // The last block is kept: each thread owns a range of its columns.
    std::fill_n(acc, plan.output_size, K::template start<C>());
    const std::int64_t d0 = outer_rank > 0 ? plan.dims[0] : 1;
    par.for_range(static_cast<std::size_t>(n), grain_of(n),
                  [&](std::size_t b, std::size_t e, std::size_t) {
                    detail::reduce_part<K>(in, plan, acc, 0, d0, static_cast<std::int64_t>(b),
                                           static_cast<std::int64_t>(e));
                  });
  } else if (plan.dims.size() == 1) {
    // Everything into one value: fixed blocks scanned by whichever thread, their partial
    // results then combined in block order.
    const std::int64_t blocks = detail::block_count(n, grain);
    const std::span<C> parts = buffers.blocks.first(static_cast<std::size_t>(blocks));
    const auto block_begin = [&](std::int64_t b) {
      return n / blocks * b + std::min(b, n % blocks);
    };
    par.for_range(static_cast<std::size_t>(blocks), 1,
                  [&](std::size_t b, std::size_t e, std::size_t) {
                    for (std::size_t k = b; k < e; ++k) {
                      const std::int64_t lo = block_begin(static_cast<std::int64_t>(k));
                      const std::int64_t hi = block_begin(static_cast<std::int64_t>(k) + 1);
                      parts[k] = K::scan(in + lo, hi - lo, n - lo);
                    }
                  });
    C total = K::template start<C>();
    for (const C& p : parts) total = K::combine(total, p);
    acc[0] = total;
  } else {
    std::fill_n(acc, plan.output_size, K::template start<C>());
    detail::reduce_part<K>(in, plan, acc, 0, plan.dims[0], 0, n);
  }
  if constexpr (K::kFinish) {
    for (std::int64_t i = 0; i < plan.output_size; ++i) acc[i] = K::finish(acc[i], count);
  }
  if constexpr (!std::is_same_v<C, T>) {
    for (std::int64_t i = 0; i < plan.output_size; ++i) out[i] = T(acc[i]);
  }
}

/// Reduces a tensor of `shape` over `axes` (normalised into [0, rank), duplicates allowed).
template <class K, class T>
void reduce(const Parallel& par, const T* in, std::span<const std::int64_t> shape,
            std::span<const std::int64_t> axes, T* out) {
  reduce<K>(par, in, plan_reduce(shape, axes), out);
}

}  // namespace irlite

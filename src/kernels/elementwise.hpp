#pragma once
// Element-wise kernels over broadcast inputs: the binary ops, Select and Broadcast (and the plan
// FakeQuantize walks its five inputs with).
//
// Every input is first aligned to the output's rank (ops/broadcast_rules.hpp), so each of its
// dims is the output's or 1. The plan then drops the output's unit dims and joins neighbouring
// dims along which every input is either read in full or broadcast in the same way, so that:
//   - equal shapes become one contiguous run;
//   - a scalar operand becomes one run against a repeated value;
//   - an operand broadcast along leading dims ([C] against [N,C]) becomes rows that are
//     contiguous in both;
//   - an operand broadcast along trailing dims ([N,1] against [N,C]) becomes rows against one
//     value each;
//   - anything else keeps the output's dims, with a stride per input and dim (0 where it is
//     broadcast), walked row by row.
// The innermost dim is always a run whose inputs advance by 1 or 0 elements, handled by loops
// specialised for each case. Threads split the output's elements into contiguous ranges, and an
// element's value never depends on the split.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "core/parallel.hpp"
#include "irlite/shape.hpp"
#include "kernels/element.hpp"
#include "kernels/simd.hpp"

namespace irlite {

/// The most inputs a plan maps: three for Select, five for FakeQuantize.
inline constexpr std::size_t kMaxElementwiseInputs = 5;

/// How the output's elements map onto the inputs'.
struct ElementwisePlan {
  std::size_t inputs = 0;
  /// The output's dims after joining (innermost last); at least one.
  std::vector<std::int64_t> dims;
  /// strides[d][k]: how far input k advances, in elements, along dim d (0 where broadcast).
  std::vector<std::array<std::int64_t, kMaxElementwiseInputs>> strides;
  /// Output elements.
  std::int64_t total = 0;
};

/// The plan for an output of shape `out` read from inputs of shapes `aligned` (each of the
/// output's rank, each dim equal to the output's or 1).
inline ElementwisePlan plan_elementwise(const Shape& out, std::span<const Shape> aligned) {
  ElementwisePlan p;
  p.inputs = aligned.size();
  p.total = 1;
  for (const std::int64_t d : out) p.total *= d;
  const std::size_t rank = out.size();
  // Row-major strides of each input, 0 where it is broadcast.
  std::vector<std::array<std::int64_t, kMaxElementwiseInputs>> full(rank);
  for (std::size_t k = 0; k < aligned.size(); ++k) {
    std::int64_t stride = 1;
    for (std::size_t d = rank; d-- > 0;) {
      const bool broadcast = aligned[k][d] == 1 && out[d] != 1;
      full[d][k] = broadcast ? 0 : stride;
      stride *= aligned[k][d];
    }
  }
  for (std::size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;  // every input has 1 here: the dim moves nothing
    if (!p.dims.empty()) {
      // Joinable when every input is broadcast along both dims or read along both: then the
      // outer dim's stride is the inner one's times its extent (or 0 for both).
      bool same = true;
      for (std::size_t k = 0; k < p.inputs; ++k)
        same = same && ((p.strides.back()[k] == 0) == (full[d][k] == 0));
      if (same) {
        p.dims.back() *= out[d];
        p.strides.back() = full[d];
        continue;
      }
    }
    p.dims.push_back(out[d]);
    p.strides.push_back(full[d]);
  }
  if (p.dims.empty()) {
    p.dims.push_back(1);
    p.strides.emplace_back().fill(1);
  }
  return p;
}

/// Output elements per thread's range, at least.
inline constexpr std::size_t kElementwiseGrain = std::size_t{1} << 15;

/// Calls run(offsets, out_offset, count) for every run of the output: `count` consecutive
/// output elements from `out_offset`, input k starting at offsets[k] and advancing by
/// plan.strides.back()[k] (0 or 1). Runs are split over the threads.
template <class F>
void for_each_run(const Parallel& parallel, const ElementwisePlan& plan, F&& run) {
  if (plan.total <= 0) return;
  const std::size_t rank = plan.dims.size();
  const std::int64_t inner = plan.dims.back();
  parallel.for_range(static_cast<std::size_t>(plan.total), kElementwiseGrain,
                     [&](std::size_t begin, std::size_t end, std::size_t) {
                       auto pos = static_cast<std::int64_t>(begin);
                       const auto stop = static_cast<std::int64_t>(end);
                       std::int64_t row = pos / inner;
                       std::int64_t col = pos % inner;
                       // The row's index over the outer dims.
                       std::vector<std::int64_t> index(rank - 1, 0);
                       for (std::size_t d = rank - 1; d-- > 0;) {
                         index[d] = row % plan.dims[d];
                         row /= plan.dims[d];
                       }
                       while (pos < stop) {
                         std::array<std::int64_t, kMaxElementwiseInputs> offsets{};
                         for (std::size_t k = 0; k < plan.inputs; ++k) {
                           std::int64_t o = col * plan.strides[rank - 1][k];
                           for (std::size_t d = 0; d + 1 < rank; ++d)
                             o += index[d] * plan.strides[d][k];
                           offsets[k] = o;
                         }
                         const std::int64_t count = std::min(inner - col, stop - pos);
                         run(offsets, pos, count);
                         pos += count;
                         col = 0;
                         for (std::size_t d = rank - 1; d-- > 0;) {
                           if (++index[d] < plan.dims[d]) break;
                           index[d] = 0;
                         }
                       }
                     });
}

/// Elements per block of binary_run's loops: a loop of a length known to the compiler
/// vectorises at -O2 (GCC's cheap cost model takes no loop that needs a scalar remainder).
inline constexpr std::int64_t kBinaryBlock = 64;

/// One run of a binary op: out[i] = f(a[i * sa], b[i * sb]), sa and sb each 0 or 1.
template <class F, class T, class R>
IRLITE_MULTIVERSION void binary_run(F f, const T* __restrict a, std::int64_t sa,
                                    const T* __restrict b, std::int64_t sb, R* __restrict out,
                                    std::int64_t n) {
  std::int64_t i = 0;
  if (sa == 1 && sb == 1) {
    for (; i + kBinaryBlock <= n; i += kBinaryBlock) {
      const T* __restrict x = a + i;
      const T* __restrict y = b + i;
      R* __restrict o = out + i;
      for (std::int64_t j = 0; j < kBinaryBlock; ++j) o[j] = f(x[j], y[j]);
    }
    for (; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (sa == 0 && sb == 1) {
    const T x = a[0];
    for (; i + kBinaryBlock <= n; i += kBinaryBlock) {
      const T* __restrict y = b + i;
      R* __restrict o = out + i;
      for (std::int64_t j = 0; j < kBinaryBlock; ++j) o[j] = f(x, y[j]);
    }
    for (; i < n; ++i) out[i] = f(x, b[i]);
  } else if (sa == 1) {
    const T y = b[0];
    for (; i + kBinaryBlock <= n; i += kBinaryBlock) {
      const T* __restrict x = a + i;
      R* __restrict o = out + i;
      for (std::int64_t j = 0; j < kBinaryBlock; ++j) o[j] = f(x[j], y);
    }
    for (; i < n; ++i) out[i] = f(a[i], y);
  } else {
    const R v = f(a[0], b[0]);
    for (; i < n; ++i) out[i] = v;
  }
}

/// out = f(a, b) element-wise over the plan (two inputs).
template <class F, class T, class R>
void binary_elementwise(const Parallel& parallel, const ElementwisePlan& plan, F f, const T* a,
                        const T* b, R* out) {
  const std::int64_t sa = plan.strides.back()[0];
  const std::int64_t sb = plan.strides.back()[1];
  for_each_run(parallel, plan, [&](const auto& off, std::int64_t o, std::int64_t n) {
    binary_run(f, a + off[0], sa, b + off[1], sb, out + o, n);
  });
}

/// One run of Select on elements of U (an unsigned type of the element's size).
template <class U>
IRLITE_MULTIVERSION void select_run(const std::uint8_t* __restrict c, std::int64_t sc,
                                    const U* __restrict a, std::int64_t sa, const U* __restrict b,
                                    std::int64_t sb, U* __restrict out, std::int64_t n) {
  if (sc == 1 && sa == 1 && sb == 1) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = c[i] != 0 ? a[i] : b[i];
  } else if (sc == 0) {
    const U* src = c[0] != 0 ? a : b;
    const std::int64_t s = c[0] != 0 ? sa : sb;
    if (s == 1) {
      std::memcpy(out, src, static_cast<std::size_t>(n) * sizeof(U));
    } else {
      const U v = src[0];
      for (std::int64_t i = 0; i < n; ++i) out[i] = v;
    }
  } else {
    for (std::int64_t i = 0; i < n; ++i) out[i] = c[i] != 0 ? a[i * sa] : b[i * sb];
  }
}

/// Select over the plan (three inputs: condition, then, else), elements of U.
template <class U>
void select_elementwise(const Parallel& parallel, const ElementwisePlan& plan,
                        const std::uint8_t* cond, const U* a, const U* b, U* out) {
  const auto& s = plan.strides.back();
  for_each_run(parallel, plan, [&](const auto& off, std::int64_t o, std::int64_t n) {
    select_run(cond + off[0], s[0], a + off[1], s[1], b + off[2], s[2], out + o, n);
  });
}

/// One run of a broadcast copy on elements of U.
template <class U>
IRLITE_MULTIVERSION void copy_run(const U* __restrict src, std::int64_t s, U* __restrict out,
                                  std::int64_t n) {
  if (s == 1) {
    std::memcpy(out, src, static_cast<std::size_t>(n) * sizeof(U));
  } else {
    const U v = src[0];
    for (std::int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

/// The output filled from one input over the plan, elements of U.
template <class U>
void broadcast_copy(const Parallel& parallel, const ElementwisePlan& plan, const U* src, U* out) {
  const std::int64_t s = plan.strides.back()[0];
  for_each_run(parallel, plan, [&](const auto& off, std::int64_t o, std::int64_t n) {
    copy_run(src + off[0], s, out + o, n);
  });
}

/// out[i] = !in[i] for booleans (any non-zero byte is true).
template <class B>
IRLITE_MULTIVERSION void logical_not_run(const B* __restrict in, B* __restrict out,
                                         std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = in[i] == 0 ? 1 : 0;
}

}  // namespace irlite

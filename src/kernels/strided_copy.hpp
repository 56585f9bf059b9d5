#pragma once
// A strided view of a dense row-major tensor copied into a dense output: the kernel of
// StridedSlice and Slice. Along each input axis the view takes `count` elements from `start` on,
// `step` apart (negative steps walk backwards); the output holds them in the same axis order
// (new axes of size 1 and removed axes only reshape it).
//
// Elements move as words of their size (W), so one kernel serves every element type. The output
// is split into rows (the last axis); threads take contiguous ranges of rows, each row written
// by one thread from the same source, so the result does not depend on the thread count.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/parallel.hpp"

namespace irlite {

struct StridedAxis {
  std::int64_t start = 0;  ///< the first index taken, in [0, extent) unless count is 0
  std::int64_t step = 1;   ///< non-zero
  std::int64_t count = 0;  ///< elements taken
};

/// Copies the view `axes` (one per axis of `shape`, at least one) of `data` into `out`, which
/// holds the product of the counts. Nothing happens when that product is 0.
template <class W>
void strided_copy(const Parallel& parallel, const W* data, const std::vector<std::int64_t>& shape,
                  const std::vector<StridedAxis>& axes, W* out) {
  const std::size_t rank = shape.size();
  for (const StridedAxis& a : axes)
    if (a.count == 0) return;
  // Element strides of the input.
  std::vector<std::int64_t> stride(rank, 1);
  for (std::size_t d = rank - 1; d-- > 0;) stride[d] = stride[d + 1] * shape[d + 1];
  std::int64_t rows = 1;
  for (std::size_t d = 0; d + 1 < rank; ++d) rows *= axes[d].count;
  const StridedAxis last = axes[rank - 1];
  const auto row_len = static_cast<std::size_t>(last.count);
  const std::size_t grain =
      std::max<std::size_t>(1, (std::size_t{16} << 10) / (row_len * sizeof(W)));
  parallel.for_range(static_cast<std::size_t>(rows), grain,
                     [&](std::size_t begin, std::size_t end, std::size_t) {
                       // The coordinates of row `begin` over the outer axes, then advanced row by
                       // row.
                       std::vector<std::int64_t> coord(rank, 0);
                       std::size_t rest = begin;
                       for (std::size_t d = rank - 1; d-- > 0;) {
                         const auto n = static_cast<std::size_t>(axes[d].count);
                         coord[d] = static_cast<std::int64_t>(rest % n);
                         rest /= n;
                       }
                       std::int64_t base = 0;
                       for (std::size_t d = 0; d + 1 < rank; ++d)
                         base += (axes[d].start + coord[d] * axes[d].step) * stride[d];
                       W* dst = out + begin * row_len;
                       for (std::size_t r = begin; r < end; ++r) {
                         const W* src = data + base + last.start;
                         if (last.step == 1) {
                           std::memcpy(dst, src, row_len * sizeof(W));
                         } else {
                           const std::int64_t step = last.step;
                           for (std::size_t k = 0; k < row_len; ++k)
                             dst[k] = src[static_cast<std::int64_t>(k) * step];
                         }
                         dst += row_len;
                         // Next row: the innermost outer axis moves on, carrying into the ones
                         // before it.
                         for (std::size_t d = rank - 1; d-- > 0;) {
                           base += axes[d].step * stride[d];
                           if (++coord[d] < axes[d].count) break;
                           base -= axes[d].count * axes[d].step * stride[d];
                           coord[d] = 0;
                         }
                       }
                     });
}

}  // namespace irlite

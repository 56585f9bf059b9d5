#pragma once
// Gather: rows of `inner` elements picked along an axis by an index tensor, as OpenVINO's
// Gather-1/7/8 compute them. The data is viewed as [batch, outer, axis, inner] and the indices
// as [batch, count]; the output is [batch, outer, count, inner]. An index outside
// [-axis, axis) gives a row of zeros (OpenVINO's reference), a negative one counts from the end.
//
// Elements move as words of their size (W), so one kernel serves every element type; the
// index type I is a template parameter, so the indices are read without a per-element switch.
// Threads split the output rows into contiguous ranges: each row is written by one thread
// from the same source, so the result does not depend on the thread count.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/parallel.hpp"
#include "kernels/indexing.hpp"
#include "kernels/simd.hpp"

namespace irlite {

struct GatherPlan {
  std::int64_t batch = 1;      ///< the product of the batch dims
  std::int64_t outer = 1;      ///< the product of the data dims between the batch dims and axis
  std::int64_t axis_size = 0;  ///< the data's extent along the axis
  std::int64_t count = 1;      ///< indices per batch
  std::int64_t inner = 1;      ///< elements per row: the product of the dims after the axis
};

/// Copies the rows [begin, end) of the output (a row being `inner` elements). Not multiversioned:
/// a long row is one memcpy, which picks its own vector code, and a one-element row is a load
/// and a store that no vector width speeds up.
template <class W, class I>
void gather_rows(const W* __restrict data, const I* __restrict indices, W* __restrict out,
                 const GatherPlan& p, std::size_t begin, std::size_t end) {
  const auto inner = static_cast<std::size_t>(p.inner);
  const auto count = static_cast<std::size_t>(p.count);
  const auto outer = static_cast<std::size_t>(p.outer);
  const auto axis_size = static_cast<std::size_t>(p.axis_size);
  // The row's coordinates, advanced with the row rather than divided out each time.
  std::size_t i = begin % count;
  std::size_t o = begin / count % outer;
  std::size_t b = begin / count / outer;
  W* dst = out + begin * inner;
  for (std::size_t r = begin; r < end; ++r) {
    const std::int64_t index = wrap_index(indices[b * count + i], p.axis_size);
    if (index < 0) {
      for (std::size_t k = 0; k < inner; ++k) dst[k] = 0;
    } else {
      const W* src = data + ((b * outer + o) * axis_size + static_cast<std::size_t>(index)) * inner;
      if (inner == 1)
        dst[0] = src[0];
      else
        std::memcpy(dst, src, inner * sizeof(W));
    }
    dst += inner;
    if (++i == count) {
      i = 0;
      if (++o == outer) {
        o = 0;
        ++b;
      }
    }
  }
}

/// The whole output, split over the threads. The plan's extents must describe non-empty data
/// and indices (an empty output has nothing to write).
template <class W, class I>
void gather(const Parallel& parallel, const W* data, const I* indices, W* out,
            const GatherPlan& p) {
  const auto rows = static_cast<std::size_t>(p.batch * p.outer * p.count);
  // About 16 KiB of output per chunk at least, so that small gathers stay on one thread.
  const std::size_t grain = std::max<std::size_t>(
      1, (std::size_t{16} << 10) / (static_cast<std::size_t>(p.inner) * sizeof(W)));
  parallel.for_range(rows, grain, [&](std::size_t begin, std::size_t end, std::size_t) {
    gather_rows(data, indices, out, p, begin, end);
  });
}

}  // namespace irlite

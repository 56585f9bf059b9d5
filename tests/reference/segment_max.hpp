#pragma once
// SegmentMax-16, the plain kernel: the test oracle of kernels/segment_max.hpp.
// The element-wise maximum of the rows of `data` that share a segment id.
// The ids are sorted, so every segment is one run of consecutive rows: the kernel reads the data
// once, copies the first row of a run and max-accumulates the others into the same output row.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernels/element.hpp"
#include "kernels/segments.hpp"

namespace irlite::test::reference {

/// out[s, :] = max of data[i, :] over the rows i with ids[i] == s, for s < num_segments; rows
/// whose id is num_segments or more are dropped; segments without rows are `fill`.
/// data: [rows, row_size]; ids: [rows], non-negative and sorted; out: [num_segments, row_size],
/// every element written. Checks the ids before writing anything and returns the first bad one.
template <class T, class I>
[[nodiscard]] std::optional<SegmentIdProblem> segment_max(const T* data, const I* ids,
                                                          std::size_t rows, std::size_t row_size,
                                                          std::size_t num_segments, T fill,
                                                          T* out) {
  using segment_max_detail::max_nan;
  if (auto problem = check_sorted_segment_ids(ids, rows)) return problem;
  std::size_t next = 0;  // the first output segment not written yet
  std::size_t i = 0;
  while (i < rows) {
    const I id = ids[i];
    const auto s = static_cast<std::uint64_t>(id);
    if (s >= num_segments) break;  // sorted: every later id is out of range as well
    std::fill_n(out + next * row_size, (s - next) * row_size, fill);
    T* dst = out + s * row_size;
    const T* src = data + i * row_size;
    std::copy_n(src, row_size, dst);
    for (++i; i < rows && ids[i] == id; ++i) {
      src = data + i * row_size;
      for (std::size_t j = 0; j < row_size; ++j) dst[j] = max_nan(dst[j], src[j]);
    }
    next = s + 1;
  }
  std::fill_n(out + next * row_size, (num_segments - next) * row_size, fill);
  return std::nullopt;
}

}  // namespace irlite::test::reference

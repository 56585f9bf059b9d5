#pragma once
// SegmentMax-16: the element-wise maximum of the rows of `data` that share a segment id.
// The ids are sorted, so every segment is one run of consecutive rows: the kernel reads the data
// once, copies the first row of a run and max-accumulates the others into the same output row.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernels/element.hpp"

namespace irlite {

/// A segment id SegmentMax refuses: `value` at `position`, negative or smaller than the id
/// before it (`previous`).
struct SegmentIdProblem {
  enum class Kind { negative, unsorted };
  Kind kind;
  std::size_t position;
  std::int64_t value;
  std::int64_t previous;
};

/// The first id that is negative or breaks the non-decreasing order the spec requires.
template <class I>
std::optional<SegmentIdProblem> check_sorted_segment_ids(const I* ids, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (ids[i] < 0) return SegmentIdProblem{SegmentIdProblem::Kind::negative, i, ids[i], 0};
    if (i > 0 && ids[i] < ids[i - 1])
      return SegmentIdProblem{SegmentIdProblem::Kind::unsorted, i, ids[i], ids[i - 1]};
  }
  return std::nullopt;
}

namespace segment_max_detail {

// The 16-bit floats are compared on their bit patterns: mapped to an unsigned key that orders
// like the values (negatives reversed below the positives), the maximum is exact and needs no
// conversion to float per element. `inf_bits` is +infinity; larger magnitudes are NaN.
template <class T, std::uint16_t inf_bits>
inline T max_nan_bits(T acc, T x) {
  const auto key = [](std::uint16_t b) {
    return static_cast<std::uint16_t>((b & 0x8000u) ? 0xffffu - b : b | 0x8000u);
  };
  const bool acc_nan = (acc.bits & 0x7fffu) > inf_bits;
  const bool x_nan = (x.bits & 0x7fffu) > inf_bits;
  return !acc_nan && (x_nan || key(acc.bits) < key(x.bits)) ? x : acc;
}

// max() that lets a NaN win from either side, as NumPy's maximum and PyTorch's segment_reduce do
// (OpenVINO's reference drops NaNs; irlite propagates them on purpose).
template <class T>
inline T max_nan(T acc, T x) {
  if constexpr (std::is_same_v<T, float16>)
    return max_nan_bits<T, 0x7c00>(acc, x);
  else if constexpr (std::is_same_v<T, bfloat16>)
    return max_nan_bits<T, 0x7f80>(acc, x);
  else if constexpr (std::is_floating_point_v<T>)
    return (acc < x || x != x) ? x : acc;
  else
    return acc < x ? x : acc;
}

}  // namespace segment_max_detail

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

}  // namespace irlite

#pragma once
// What the SegmentMax kernels share: the check of sorted segment ids, and a maximum that lets
// NaN win from either side.

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

}  // namespace irlite

#pragma once
// The slicing arithmetic StridedSlice and Slice share: how many elements start:stop:step takes
// from an axis, on a known extent (run time) and on an interval dimension with start and stop
// known only as ranges (load time, OpenVINO's partial rule).

#include <cstdint>
#include <utility>

#include "irlite/shape.hpp"
#include "kernels/strided_copy.hpp"

namespace irlite {

/// A start or stop known as a range [first, second] (equal when the value is known).
using SliceBounds = std::pair<std::int64_t, std::int64_t>;

/// The elements start:stop:step takes from an axis of `extent` elements, NumPy's way: negative
/// start and stop count from the end, then both are clamped (to [0, extent] forward, to
/// [-1, extent - 1] backward). `step` is non-zero.
StridedAxis slice_axis(std::int64_t extent, std::int64_t start, std::int64_t stop,
                       std::int64_t step);

/// The extent a slice gives on `dim` (an interval, maybe unbounded) when start and stop lie in
/// the given ranges: OpenVINO's rule (slice::make_dim), so that partial shapes match its own.
/// The sentinels INT64_MAX and INT64_MIN mean "to the end" and "from the start".
Dimension sliced_dimension(const Dimension& dim, SliceBounds start, SliceBounds stop,
                           std::int64_t step);

}  // namespace irlite

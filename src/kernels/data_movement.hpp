#pragma once
// Kernels that move elements without looking at them (Reshape, Squeeze, Unsqueeze, Concat,
// Transpose, Tile): they work on bytes, by element size, so one instantiation serves every
// element type, boolean included. Large copies are split over threads in ranges that depend only
// on the sizes and the thread count; every output byte is written exactly once (Tile's doubling
// copies aside), so the result is the same on any number of threads.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/parallel.hpp"
#include "irlite/shape.hpp"

namespace irlite {

/// Bytes a thread copies at least before a copy is split: below this, threads cost more than
/// they save.
inline constexpr std::size_t kCopyGrainBytes = std::size_t{1} << 18;

/// Copies `bytes` bytes from `src` to `dst` (not overlapping), split over threads when large.
void parallel_copy(const Parallel& parallel, void* dst, const void* src, std::size_t bytes);

/// Concatenation along an axis of tensors viewed as [outer, block_i]: output row o is input 0's
/// row o (block_bytes[0] bytes), then input 1's, and so on.
void concat_bytes(const Parallel& parallel, std::span<const void* const> inputs,
                  std::span<const std::size_t> block_bytes, std::size_t outer, void* dst);

/// The reverse of concat_bytes (Split, VariadicSplit): input row o, of the blocks' total bytes,
/// goes block_bytes[i] bytes to output i's row o, for each output in turn.
void split_bytes(const Parallel& parallel, const void* src, std::size_t outer,
                 std::span<const std::size_t> block_bytes, std::span<void* const> outputs);

/// Transposition: output axis i is input axis order[i]; `shape` is the input's, `order` a
/// permutation of [0, rank). Elements of `element_size` bytes (1, 2, 4 or 8; others go byte by
/// byte through the general walk).
void transpose_bytes(const Parallel& parallel, const void* src, const Shape& shape,
                     std::span<const std::int64_t> order, std::size_t element_size, void* dst);

/// Tiling: `shape` and `repeats` of the same rank (the caller pads the shorter with leading 1s);
/// output extent i is shape[i] * repeats[i], every repeat a copy of the input along that axis.
void tile_bytes(const Parallel& parallel, const void* src, const Shape& shape,
                std::span<const std::int64_t> repeats, std::size_t element_size, void* dst);

}  // namespace irlite

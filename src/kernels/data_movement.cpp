#include "kernels/data_movement.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/simd.hpp"

namespace irlite {

void parallel_copy(const Parallel& parallel, void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  auto* d = static_cast<std::byte*>(dst);
  const auto* s = static_cast<const std::byte*>(src);
  parallel.for_range(bytes, kCopyGrainBytes, [&](std::size_t begin, std::size_t end, std::size_t) {
    std::memcpy(d + begin, s + begin, end - begin);
  });
}

void concat_bytes(const Parallel& parallel, std::span<const void* const> inputs,
                  std::span<const std::size_t> block_bytes, std::size_t outer, void* dst) {
  std::size_t row_bytes = 0;
  for (const std::size_t b : block_bytes) row_bytes += b;
  if (row_bytes == 0 || outer == 0) return;
  auto* out = static_cast<std::byte*>(dst);
  if (outer == 1) {
    // One row: each input is one block, large enough to split on its own.
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      parallel_copy(parallel, out, inputs[i], block_bytes[i]);
      out += block_bytes[i];
    }
    return;
  }
  const std::size_t grain = std::max<std::size_t>(1, kCopyGrainBytes / row_bytes);
  parallel.for_range(outer, grain, [&](std::size_t begin, std::size_t end, std::size_t) {
    std::byte* d = out + begin * row_bytes;
    for (std::size_t o = begin; o < end; ++o)
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::size_t b = block_bytes[i];
        if (b == 0) continue;
        std::memcpy(d, static_cast<const std::byte*>(inputs[i]) + o * b, b);
        d += b;
      }
  });
}

void split_bytes(const Parallel& parallel, const void* src, std::size_t outer,
                 std::span<const std::size_t> block_bytes, std::span<void* const> outputs) {
  std::size_t row_bytes = 0;
  for (const std::size_t b : block_bytes) row_bytes += b;
  if (row_bytes == 0 || outer == 0) return;
  const auto* in = static_cast<const std::byte*>(src);
  if (outer == 1) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      parallel_copy(parallel, outputs[i], in, block_bytes[i]);
      in += block_bytes[i];
    }
    return;
  }
  const std::size_t grain = std::max<std::size_t>(1, kCopyGrainBytes / row_bytes);
  parallel.for_range(outer, grain, [&](std::size_t begin, std::size_t end, std::size_t) {
    const std::byte* s = in + begin * row_bytes;
    for (std::size_t o = begin; o < end; ++o)
      for (std::size_t i = 0; i < outputs.size(); ++i) {
        const std::size_t b = block_bytes[i];
        if (b == 0) continue;
        std::memcpy(static_cast<std::byte*>(outputs[i]) + o * b, s, b);
        s += b;
      }
  });
}

namespace {

/// A transposition reduced to its essentials: axes of extent 1 dropped and input axes that stay
/// adjacent and in order merged. `shape` is the input's, `order` as for transpose_bytes.
struct TransposePlan {
  Shape shape;                      // input extents after merging
  std::vector<std::int64_t> order;  // output axis i reads input axis order[i]
};

TransposePlan simplify(const Shape& shape, std::span<const std::int64_t> order) {
  // Input axes that remain, in input order, with their new index.
  const std::size_t rank = shape.size();
  std::vector<std::int64_t> kept_order;
  for (const std::int64_t a : order)
    if (shape[static_cast<std::size_t>(a)] != 1) kept_order.push_back(a);
  // Merge runs a, a+1, ... that appear consecutively in the output order (over the kept axes,
  // whose input positions skip only extent-1 axes, which do not change the layout).
  std::vector<std::int64_t> next_kept(rank, -1);  // the next kept input axis after a
  std::int64_t last = -1;
  for (std::size_t a = rank; a-- > 0;) {
    next_kept[a] = last;
    if (shape[a] != 1) last = static_cast<std::int64_t>(a);
  }
  std::vector<std::vector<std::int64_t>> groups;  // in output order, each a run of input axes
  for (const std::int64_t a : kept_order) {
    if (!groups.empty() && next_kept[static_cast<std::size_t>(groups.back().back())] == a)
      groups.back().push_back(a);
    else
      groups.push_back({a});
  }
  // Number the groups by their first input axis.
  std::vector<std::size_t> by_input(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) by_input[g] = g;
  std::sort(by_input.begin(), by_input.end(),
            [&](std::size_t x, std::size_t y) { return groups[x][0] < groups[y][0]; });
  TransposePlan plan;
  plan.shape.resize(groups.size());
  plan.order.resize(groups.size());
  for (std::size_t i = 0; i < by_input.size(); ++i) {
    const auto& grp = groups[by_input[i]];
    std::int64_t extent = 1;
    for (const std::int64_t a : grp) extent *= shape[static_cast<std::size_t>(a)];
    plan.shape[i] = extent;
    plan.order[by_input[i]] = static_cast<std::int64_t>(i);
  }
  return plan;
}

/// The general walk: output elements in order, the input position carried by a counter over
/// the output's axes. Output range [begin, end) of `count` elements of U.
template <class U>
void walk(const U* __restrict src, const TransposePlan& plan, std::size_t begin, std::size_t end,
          U* __restrict dst) {
  const std::size_t rank = plan.shape.size();
  std::vector<std::int64_t> in_stride(rank, 1);
  for (std::size_t a = rank - 1; a-- > 0;) in_stride[a] = in_stride[a + 1] * plan.shape[a + 1];
  std::vector<std::int64_t> extent(rank), stride(rank), index(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    extent[i] = plan.shape[static_cast<std::size_t>(plan.order[i])];
    stride[i] = in_stride[static_cast<std::size_t>(plan.order[i])];
  }
  // The starting output coordinates and input offset.
  std::size_t rest = begin;
  std::int64_t offset = 0;
  for (std::size_t i = rank; i-- > 0;) {
    index[i] = static_cast<std::int64_t>(rest % static_cast<std::size_t>(extent[i]));
    rest /= static_cast<std::size_t>(extent[i]);
    offset += index[i] * stride[i];
  }
  const std::int64_t inner_extent = extent[rank - 1];
  const std::int64_t inner_stride = stride[rank - 1];
  std::size_t o = begin;
  while (o < end) {
    // Along the innermost output axis: a strided read, a contiguous write.
    const std::int64_t run =
        std::min<std::int64_t>(inner_extent - index[rank - 1], static_cast<std::int64_t>(end - o));
    const U* s = src + offset;
    U* d = dst + o;
    for (std::int64_t j = 0; j < run; ++j) d[j] = s[j * inner_stride];
    o += static_cast<std::size_t>(run);
    offset += run * inner_stride;
    index[rank - 1] += run;
    // Carry into the outer axes.
    for (std::size_t i = rank - 1; i > 0 && index[i] == extent[i]; --i) {
      offset -= extent[i] * stride[i];
      index[i] = 0;
      ++index[i - 1];
      offset += stride[i - 1];
    }
  }
}

/// One 2-D transpose, restricted to input columns [c_begin, c_end): dst[c * dst_stride + r] =
/// src[r * src_stride + c] for r in [0, rows). In square tiles, so that both the reads and the
/// writes stay within a few cache lines and pages.
template <class U>
IRLITE_MULTIVERSION void transpose_2d(const U* __restrict src, std::int64_t src_stride,
                                      std::int64_t rows, std::int64_t c_begin, std::int64_t c_end,
                                      std::int64_t dst_stride, U* __restrict dst) {
  constexpr std::int64_t kTile = 32;
  for (std::int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const std::int64_t r1 = rows < r0 + kTile ? rows : r0 + kTile;
    for (std::int64_t c0 = c_begin; c0 < c_end; c0 += kTile) {
      const std::int64_t c1 = c_end < c0 + kTile ? c_end : c0 + kTile;
      for (std::int64_t c = c0; c < c1; ++c)
        for (std::int64_t r = r0; r < r1; ++r) dst[c * dst_stride + r] = src[r * src_stride + c];
    }
  }
}

/// A general transposition whose innermost axes both move: for every combination of the other
/// axes, a 2-D tiled transpose between the input's innermost axis (contiguous reads) and the
/// output's (contiguous writes). Needs rank >= 3 after simplification.
template <class U>
void transpose_tiled(const Parallel& parallel, const U* src, const TransposePlan& plan,
                     std::size_t total, U* dst) {
  const std::size_t rank = plan.shape.size();
  std::vector<std::int64_t> in_stride(rank, 1), out_stride(rank, 1), out_extent(rank);
  for (std::size_t a = rank - 1; a-- > 0;) in_stride[a] = in_stride[a + 1] * plan.shape[a + 1];
  for (std::size_t i = 0; i < rank; ++i)
    out_extent[i] = plan.shape[static_cast<std::size_t>(plan.order[i])];
  for (std::size_t i = rank - 1; i-- > 0;) out_stride[i] = out_stride[i + 1] * out_extent[i + 1];
  const auto q = static_cast<std::size_t>(plan.order[rank - 1]);  // the output's innermost
  std::size_t p = 0;  // where the input's innermost axis goes
  while (plan.order[p] != static_cast<std::int64_t>(rank - 1)) ++p;
  const std::int64_t rows = plan.shape[q], cols = plan.shape[rank - 1];
  const std::int64_t src_stride = in_stride[q], dst_stride = out_stride[p];
  // The other output axes, outermost first: extents and strides on both sides.
  std::vector<std::int64_t> extent, from, to;
  for (std::size_t i = 0; i < rank - 1; ++i) {
    if (i == p) continue;
    extent.push_back(out_extent[i]);
    from.push_back(in_stride[static_cast<std::size_t>(plan.order[i])]);
    to.push_back(out_stride[i]);
  }
  const std::size_t outer = total / static_cast<std::size_t>(rows * cols);
  const std::size_t grain =
      std::max<std::size_t>(1, kCopyGrainBytes / sizeof(U) / static_cast<std::size_t>(rows * cols));
  parallel.for_range(outer, grain, [&](std::size_t begin, std::size_t end, std::size_t) {
    for (std::size_t o = begin; o < end; ++o) {
      std::size_t rest = o;
      std::int64_t s = 0, d = 0;
      for (std::size_t k = extent.size(); k-- > 0;) {
        const auto coord = static_cast<std::int64_t>(rest % static_cast<std::size_t>(extent[k]));
        rest /= static_cast<std::size_t>(extent[k]);
        s += coord * from[k];
        d += coord * to[k];
      }
      transpose_2d(src + s, src_stride, rows, 0, cols, dst_stride, dst + d);
    }
  });
}

template <class U>
void transpose_typed(const Parallel& parallel, const U* src, const TransposePlan& plan,
                     std::size_t total, U* dst) {
  const std::size_t rank = plan.shape.size();
  const bool batched_2d = rank >= 2 &&
                          plan.order[rank - 1] == static_cast<std::int64_t>(rank - 2) &&
                          plan.order[rank - 2] == static_cast<std::int64_t>(rank - 1) &&
                          (rank == 2 || (rank == 3 && plan.order[0] == 0));
  if (batched_2d) {
    const std::int64_t rows = plan.shape[rank - 2], cols = plan.shape[rank - 1];
    const std::size_t batches = total / static_cast<std::size_t>(rows * cols);
    const std::size_t plane = static_cast<std::size_t>(rows * cols);
    if (batches >= parallel.threads() || rows < 64) {
      const std::size_t grain = std::max<std::size_t>(1, kCopyGrainBytes / sizeof(U) / plane);
      parallel.for_range(batches, grain, [&](std::size_t begin, std::size_t end, std::size_t) {
        for (std::size_t b = begin; b < end; ++b)
          transpose_2d(src + b * plane, cols, rows, 0, cols, rows, dst + b * plane);
      });
    } else {
      // Few large planes: split each plane's output rows (input columns) over threads.
      const std::size_t grain =
          std::max<std::size_t>(32, kCopyGrainBytes / sizeof(U) / static_cast<std::size_t>(rows));
      for (std::size_t b = 0; b < batches; ++b)
        parallel.for_range(static_cast<std::size_t>(cols), grain,
                           [&](std::size_t begin, std::size_t end, std::size_t) {
                             transpose_2d(src + b * plane, cols, rows,
                                          static_cast<std::int64_t>(begin),
                                          static_cast<std::int64_t>(end), rows, dst + b * plane);
                           });
    }
    return;
  }
  // Both innermost axes long enough for tiles to pay: tiled; else the plain walk.
  const std::size_t q = static_cast<std::size_t>(plan.order[rank - 1]);
  if (plan.shape[q] >= 8 && plan.shape[rank - 1] >= 8)
    return transpose_tiled(parallel, src, plan, total, dst);
  const std::size_t grain = std::max<std::size_t>(1, kCopyGrainBytes / sizeof(U));
  parallel.for_range(total, grain, [&](std::size_t begin, std::size_t end, std::size_t) {
    walk(src, plan, begin, end, dst);
  });
}

/// Copies rows of `block` bytes: output row r (of the merged output axes but the last, which the
/// block holds) comes from the input row the plan's order gives. The innermost axis is kept.
void transpose_blocks(const Parallel& parallel, const std::byte* src, const TransposePlan& plan,
                      std::size_t block, std::size_t rows, std::byte* dst) {
  // The outer axes as their own transposition of row indices.
  TransposePlan outer;
  outer.shape.assign(plan.shape.begin(), plan.shape.end() - 1);
  outer.order.assign(plan.order.begin(), plan.order.end() - 1);
  const std::size_t rank = outer.shape.size();
  std::vector<std::int64_t> in_stride(rank, 1);
  for (std::size_t a = rank - 1; a-- > 0;) in_stride[a] = in_stride[a + 1] * outer.shape[a + 1];
  const std::size_t grain = std::max<std::size_t>(1, kCopyGrainBytes / block);
  parallel.for_range(rows, grain, [&](std::size_t begin, std::size_t end, std::size_t) {
    std::vector<std::int64_t> index(rank);
    for (std::size_t r = begin; r < end; ++r) {
      std::size_t rest = r;
      std::int64_t in_row = 0;
      for (std::size_t i = rank; i-- > 0;) {
        const auto e =
            static_cast<std::size_t>(outer.shape[static_cast<std::size_t>(outer.order[i])]);
        in_row += static_cast<std::int64_t>(rest % e) *
                  in_stride[static_cast<std::size_t>(outer.order[i])];
        rest /= e;
      }
      std::memcpy(dst + r * block, src + static_cast<std::size_t>(in_row) * block, block);
    }
  });
}

}  // namespace

void transpose_bytes(const Parallel& parallel, const void* src, const Shape& shape,
                     std::span<const std::int64_t> order, std::size_t element_size, void* dst) {
  std::size_t total = 1;
  for (const std::int64_t d : shape) total *= static_cast<std::size_t>(d);
  if (total == 0) return;
  TransposePlan plan = simplify(shape, order);
  const std::size_t rank = plan.shape.size();
  const auto* s = static_cast<const std::byte*>(src);
  auto* d = static_cast<std::byte*>(dst);
  // Nothing moves (identity after merging): one copy.
  bool identity = true;
  for (std::size_t i = 0; i < rank; ++i)
    identity = identity && plan.order[i] == static_cast<std::int64_t>(i);
  if (identity) return parallel_copy(parallel, dst, src, total * element_size);
  // Innermost axis kept in place: rows of contiguous bytes move as blocks.
  if (plan.order[rank - 1] == static_cast<std::int64_t>(rank - 1)) {
    const std::size_t block = static_cast<std::size_t>(plan.shape[rank - 1]) * element_size;
    return transpose_blocks(parallel, s, plan, block, total * element_size / block, d);
  }
  switch (element_size) {
    case 1:
      return transpose_typed(parallel, reinterpret_cast<const std::uint8_t*>(s), plan, total,
                             reinterpret_cast<std::uint8_t*>(d));
    case 2:
      return transpose_typed(parallel, reinterpret_cast<const std::uint16_t*>(s), plan, total,
                             reinterpret_cast<std::uint16_t*>(d));
    case 4:
      return transpose_typed(parallel, reinterpret_cast<const std::uint32_t*>(s), plan, total,
                             reinterpret_cast<std::uint32_t*>(d));
    case 8:
      return transpose_typed(parallel, reinterpret_cast<const std::uint64_t*>(s), plan, total,
                             reinterpret_cast<std::uint64_t*>(d));
    default: {
      // Any other size: its elements are blocks of bytes; make the element an innermost axis.
      Shape bytes_shape = plan.shape;
      bytes_shape.push_back(static_cast<std::int64_t>(element_size));
      std::vector<std::int64_t> bytes_order = plan.order;
      bytes_order.push_back(static_cast<std::int64_t>(rank));
      return transpose_bytes(parallel, src, bytes_shape, bytes_order, 1, dst);
    }
  }
}

void tile_bytes(const Parallel& parallel, const void* src, const Shape& shape,
                std::span<const std::int64_t> repeats, std::size_t element_size, void* dst) {
  const std::size_t rank = shape.size();
  std::size_t out_total = 1;
  for (std::size_t i = 0; i < rank; ++i)
    out_total *= static_cast<std::size_t>(shape[i] * repeats[i]);
  if (out_total == 0) return;
  const auto* s = static_cast<const std::byte*>(src);
  auto* d = static_cast<std::byte*>(dst);
  if (rank == 0) {
    std::memcpy(d, s, element_size);
    return;
  }
  // Each output row (the innermost axis) is the input row its outer coordinates map to, repeated
  // repeats[rank - 1] times. Rows are independent, so threads split them.
  const std::size_t in_row = static_cast<std::size_t>(shape[rank - 1]) * element_size;
  const std::size_t out_row = in_row * static_cast<std::size_t>(repeats[rank - 1]);
  const std::size_t rows = out_total * element_size / out_row;
  std::vector<std::int64_t> in_stride(rank, 1);  // in rows, over the axes but the last
  for (std::size_t a = rank - 1; a-- > 1;) in_stride[a - 1] = in_stride[a] * shape[a];
  const std::size_t grain = std::max<std::size_t>(1, kCopyGrainBytes / out_row);
  parallel.for_range(rows, grain, [&](std::size_t begin, std::size_t end, std::size_t) {
    for (std::size_t r = begin; r < end; ++r) {
      std::size_t rest = r;
      std::int64_t in_r = 0;
      for (std::size_t a = rank - 1; a-- > 0;) {
        const auto out_extent = static_cast<std::size_t>(shape[a] * repeats[a]);
        const auto coord = static_cast<std::int64_t>(rest % out_extent);
        rest /= out_extent;
        in_r += (coord % shape[a]) * in_stride[a];
      }
      std::byte* row = d + r * out_row;
      std::memcpy(row, s + static_cast<std::size_t>(in_r) * in_row, in_row);
      // Doubling: each copy takes everything written so far.
      for (std::size_t filled = in_row; filled < out_row;) {
        const std::size_t n = std::min(filled, out_row - filled);
        std::memcpy(row + filled, row, n);
        filled += n;
      }
    }
  });
}

}  // namespace irlite

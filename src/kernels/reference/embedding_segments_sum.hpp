#pragma once
// EmbeddingSegmentsSum-3, the plain kernel: the test oracle of
// kernels/embedding_segments_sum.hpp.
// out[segment_ids[k], :] += table[indices[k], :] * weights[k], without
// building the gathered rows. Segments that receive no index get the default row or zeros.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "kernels/element.hpp"
#include "kernels/embedding.hpp"

namespace irlite::reference {

/// table: [num_emb, row_size]; indices, segment_ids and weights (nullptr = ones): [num_indices];
/// default_index: nullptr or a scalar (-1 = zeros); out: [num_segments, row_size], every element
/// written. Segment ids need not be sorted. Checks every index before writing anything and
/// returns the first bad one.
template <class T, class I>
[[nodiscard]] std::optional<EmbeddingIndexProblem> embedding_segments_sum(
    const T* table, std::size_t num_emb, std::size_t row_size, const I* indices,
    const I* segment_ids, std::size_t num_indices, std::size_t num_segments, const I* default_index,
    const T* weights, T* out) {
  using embedding_detail::add_row;
  if (auto problem = check_embedding_segments(indices, segment_ids, num_indices, num_emb,
                                              num_segments, default_index))
    return problem;
  if (row_size == 0) return std::nullopt;  // nothing to write, however many segments

  using A = embedding_detail::sum_t<T>;
  // f16/bf16 sum in a float copy of the output; every other type sums in the output itself.
  constexpr bool in_place = !std::is_same_v<T, float16> && !std::is_same_v<T, bfloat16>;
  std::vector<A> scratch(in_place ? 0 : num_segments * row_size);
  std::vector<unsigned char> filled(num_segments, 0);

  for (std::size_t k = 0; k < num_indices; ++k) {
    if (k + embedding_detail::kPrefetchDistance < num_indices)
      embedding_detail::prefetch_row<1>(
          table +
              static_cast<std::size_t>(indices[k + embedding_detail::kPrefetchDistance]) * row_size,
          row_size);
    const auto s = static_cast<std::size_t>(segment_ids[k]);
    const T* src = table + static_cast<std::size_t>(indices[k]) * row_size;
    const bool first = !filled[s];
    filled[s] = 1;
    A w{};
    if (weights) w = static_cast<A>(weights[k]);
    const A* wp = weights ? &w : nullptr;
    if constexpr (in_place)
      add_row<A>(out + s * row_size, src, row_size, wp, first);
    else
      add_row<A>(scratch.data() + s * row_size, src, row_size, wp, first);
  }

  const T* default_row = default_index && *default_index >= 0
                             ? table + static_cast<std::size_t>(*default_index) * row_size
                             : nullptr;
  for (std::size_t s = 0; s < num_segments; ++s) {
    T* dst = out + s * row_size;
    if (filled[s]) {
      if constexpr (!in_place) {
        const A* acc = scratch.data() + s * row_size;
        for (std::size_t j = 0; j < row_size; ++j) dst[j] = T(acc[j]);
      }
    } else if (default_row) {
      // The default row is copied as is: the spec applies weights to pooled indices only.
      std::copy_n(default_row, row_size, dst);
    } else {
      std::fill_n(dst, row_size, T{});
    }
  }
  return std::nullopt;
}

}  // namespace irlite::reference

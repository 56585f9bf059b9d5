#pragma once
// EmbeddingSegmentsSum-3, the plain kernel: the test oracle of
// kernels/embedding_segments_sum.hpp, sharing none of its code.
// out[segment_ids[k], :] += table[indices[k], :] * weights[k] for k in index order, without
// building the gathered rows. Segments that receive no index get the default row or zeros.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "kernels/element.hpp"
#include "kernels/embedding.hpp"

namespace irlite::test::reference {

/// table: [num_emb, row_size]; indices, segment_ids and weights (nullptr = ones): [num_indices];
/// default_index: nullptr or a scalar (-1 = zeros); out: [num_segments, row_size], every element
/// written. Segment ids need not be sorted. Checks every index before writing anything and
/// returns the first bad one (indices first, then segment ids, then the default index).
///
/// Each segment's first row is taken as row * weight, and every later one added as
/// sum + row * weight: in the type itself for f32 and f64, in float for f16 and bf16 (rounded
/// once at the end), and for integers in 64 bits, which wrap as the element type does.
template <class T, class I>
[[nodiscard]] std::optional<EmbeddingIndexProblem> embedding_segments_sum(
    const T* table, std::size_t num_emb, std::size_t row_size, const I* indices,
    const I* segment_ids, std::size_t num_indices, std::size_t num_segments, const I* default_index,
    const T* weights, T* out) {
  using Input = EmbeddingIndexProblem::Input;
  const auto outside = [](I v, std::size_t bound) {
    return v < 0 || static_cast<std::uint64_t>(v) >= bound;
  };
  for (std::size_t k = 0; k < num_indices; ++k)
    if (outside(indices[k], num_emb))
      return EmbeddingIndexProblem{Input::indices, k, indices[k], num_emb};
  for (std::size_t k = 0; k < num_indices; ++k)
    if (outside(segment_ids[k], num_segments))
      return EmbeddingIndexProblem{Input::segment_ids, k, segment_ids[k], num_segments};
  if (default_index && *default_index != -1 && outside(*default_index, num_emb))
    return EmbeddingIndexProblem{Input::default_index, 0, *default_index, num_emb};

  using A = std::conditional_t<is_float_storage_v<T>, compute_t<T>, std::uint64_t>;
  const auto wide = [](T v) {
    if constexpr (is_float_storage_v<T>)
      return static_cast<A>(v);
    else if constexpr (std::is_signed_v<T>)
      return static_cast<A>(static_cast<std::int64_t>(v));
    else
      return static_cast<A>(v);
  };
  std::vector<A> sums(num_segments * row_size);
  std::vector<bool> filled(num_segments, false);
  for (std::size_t k = 0; k < num_indices; ++k) {
    const auto s = static_cast<std::size_t>(segment_ids[k]);
    const T* row = table + static_cast<std::size_t>(indices[k]) * row_size;
    A* sum = sums.data() + s * row_size;
    for (std::size_t j = 0; j < row_size; ++j) {
      const A term = weights ? A(wide(row[j]) * wide(weights[k])) : wide(row[j]);
      sum[j] = filled[s] ? A(sum[j] + term) : term;
    }
    filled[s] = true;
  }
  for (std::size_t s = 0; s < num_segments; ++s) {
    T* dst = out + s * row_size;
    if (filled[s]) {
      for (std::size_t j = 0; j < row_size; ++j) dst[j] = static_cast<T>(sums[s * row_size + j]);
    } else if (default_index && *default_index >= 0) {
      // The default row is copied as is: the spec applies weights to pooled indices only.
      std::copy_n(table + static_cast<std::size_t>(*default_index) * row_size, row_size, dst);
    } else {
      std::fill_n(dst, row_size, T{});
    }
  }
  return std::nullopt;
}

}  // namespace irlite::test::reference

#pragma once
// EmbeddingSegmentsSum-3: out[segment_ids[k], :] += table[indices[k], :] * weights[k], without
// building the gathered rows. Segments that receive no index get the default row or zeros.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "kernels/element.hpp"

namespace irlite {

/// An index EmbeddingSegmentsSum refuses: `value` at `position` of `input` lies outside
/// [0, bound) (default_index: and is not -1).
struct EmbeddingIndexProblem {
  enum class Input { indices, segment_ids, default_index };
  Input input;
  std::size_t position;
  std::int64_t value;
  std::uint64_t bound;
};

/// The position of the first value outside [0, bound).
template <class I>
std::optional<std::size_t> first_outside(const I* values, std::size_t n, std::uint64_t bound) {
  for (std::size_t i = 0; i < n; ++i)
    if (values[i] < 0 || static_cast<std::uint64_t>(values[i]) >= bound) return i;
  return std::nullopt;
}

/// Checks indices against [0, num_emb), segment ids against [0, num_segments) and the default
/// index (nullptr when absent) against [0, num_emb) or -1.
template <class I>
std::optional<EmbeddingIndexProblem> check_embedding_segments(
    const I* indices, const I* segment_ids, std::size_t num_indices, std::uint64_t num_emb,
    std::uint64_t num_segments, const I* default_index) {
  using Input = EmbeddingIndexProblem::Input;
  if (auto k = first_outside(indices, num_indices, num_emb))
    return EmbeddingIndexProblem{Input::indices, *k, indices[*k], num_emb};
  if (auto k = first_outside(segment_ids, num_indices, num_segments))
    return EmbeddingIndexProblem{Input::segment_ids, *k, segment_ids[*k], num_segments};
  if (default_index && *default_index != -1 && first_outside(default_index, 1, num_emb))
    return EmbeddingIndexProblem{Input::default_index, 0, *default_index, num_emb};
  return std::nullopt;
}

namespace embedding_detail {

// What the sums are computed in: float for the 16-bit floats (rounded once at the end), the
// type itself for f32/f64, and for integers an unsigned type at least as wide as int, so that
// overflow wraps as the element type does without signed-overflow UB or promotion to int.
template <class T, bool = is_float_storage_v<T>>
struct sum_type {
  using type = compute_t<T>;
};
template <class T>
struct sum_type<T, false> {
  using type = std::make_unsigned_t<std::conditional_t<(sizeof(T) < sizeof(int)), int, T>>;
};
template <class T>
using sum_t = typename sum_type<T>::type;

// dst[j] (+)= src[j] (* w), four loops so that no test is left in the inner one.
template <class A, class D, class T>
inline void add_row(D* dst, const T* src, std::size_t n, const A* w, bool first) {
  if (w) {
    const A wv = *w;
    if (first)
      for (std::size_t j = 0; j < n; ++j) dst[j] = static_cast<D>(static_cast<A>(src[j]) * wv);
    else
      for (std::size_t j = 0; j < n; ++j)
        dst[j] = static_cast<D>(static_cast<A>(dst[j]) + static_cast<A>(src[j]) * wv);
  } else {
    if (first)
      for (std::size_t j = 0; j < n; ++j) dst[j] = static_cast<D>(static_cast<A>(src[j]));
    else
      for (std::size_t j = 0; j < n; ++j)
        dst[j] = static_cast<D>(static_cast<A>(dst[j]) + static_cast<A>(src[j]));
  }
}

// Table rows are gathered in random order, so the hardware prefetcher cannot see them coming:
// ask for the row a few indices ahead (its first lines; a long row's tail streams anyway).
template <class T>
inline void prefetch_row(const T* row, std::size_t row_size) {
  constexpr std::size_t kLine = 64;
  constexpr std::size_t kMaxBytes = 1024;
  const auto* p = reinterpret_cast<const char*>(row);
  const std::size_t bytes = std::min(row_size * sizeof(T), kMaxBytes);
  for (std::size_t b = 0; b < bytes; b += kLine) __builtin_prefetch(p + b);
}

constexpr std::size_t kPrefetchDistance = 8;

}  // namespace embedding_detail

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
      embedding_detail::prefetch_row(
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

}  // namespace irlite

#pragma once
// What the EmbeddingSegmentsSum kernels share: the checks of indices and segment ids, the type
// sums are computed in, and the row arithmetic.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

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
template <class T>
using sum_t = wrap_wide_t<T>;

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
// Locality is __builtin_prefetch's: 3 into every level, 1 into the outer levels only.
// Always inlined: GCC 12 takes a function whose only effect is a prefetch for one without
// effects, and deletes the calls to it that it has not inlined yet.
template <int Locality, class T>
[[gnu::always_inline]] inline void prefetch_row(const T* row, std::size_t row_size) {
  constexpr std::size_t kLine = 64;
  constexpr std::size_t kMaxBytes = 1024;
  const auto* p = reinterpret_cast<const char*>(row);
  const std::size_t bytes = std::min(row_size * sizeof(T), kMaxBytes);
  for (std::size_t b = 0; b < bytes; b += kLine) __builtin_prefetch(p + b, 0, Locality);
}

constexpr std::size_t kPrefetchDistance = 8;  // for the plain kernel, into L2

}  // namespace embedding_detail

}  // namespace irlite

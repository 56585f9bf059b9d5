#pragma once
// TopK: the k largest (or smallest) elements of every 1-D slice along one axis, with their
// positions in the slice, on vectors and threads.
//
// Ordering (TopK-1/3/11 spec, OpenVINO's reference comparator): among equal values the lower
// index wins and comes first. NaN ranks above every number (PyTorch's `topk`): first for max,
// last for min; -0 and +0 are equal. That is a strict total order on (value, index), so the
// answer is unique: every strategy below, and every split over threads, gives the same bits.
// Values are copied from the input by index, never converted.
//
// Strategies (topk_filter.hpp, topk_select.hpp; topk_run.hpp picks one):
//   - k small against the slice: a threshold filter. The k best so far sit in a bounded heap,
//     and vectors of elements are compared against the worst of them; only the rare lanes that
//     beat it touch the heap. Slices along the innermost axis are scanned along their length,
//     slices along an outer axis as blocks of neighbouring columns, one vector lane per slice.
//   - larger k: every element gets an unsigned key that is larger the better it is; a radix
//     select on the keys finds the k-th best, one more pass picks the k best in index order, and
//     a stable radix sort puts them in value order.
// Threads split the slices (rows, or blocks of columns), or the length of a single long slice
// when there are fewer slices than threads, merging the partial results exactly.
// tests/reference/topk.hpp is the plain version these results are tested against.

#include <cstddef>
#include <cstdint>

#include "core/parallel.hpp"
#include "irlite/scratch.hpp"
#include "kernels/topk_mode.hpp"

namespace irlite {

/// TopK over the middle axis of `in` viewed as [outer, n, inner]; `values` and `indices` are
/// [outer, k, inner]. Requires 0 <= k <= n and n - 1 representable in TIndex (the op checks).
/// Instantiated for every numeric storage type and TIndex = int32_t, int64_t.
template <class T, class TIndex>
void topk(const Parallel& parallel, const T* in, std::int64_t outer, std::int64_t n,
          std::int64_t inner, std::int64_t k, TopKMode mode, TopKSort sort, T* values,
          TIndex* indices, const Scratch& scratch = Scratch());

/// The scratch topk() takes for these extents on `threads` threads: the filters' heaps, or
/// the radix selection's keys and entries per thread. 0 for
/// empty outputs and for a k outside [0, n], which topk() is never given; SIZE_MAX when the
/// count does not fit in a size_t.
template <class T>
std::size_t topk_scratch(std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t k,
                         unsigned threads);

namespace topk_detail {

/// topk() with (key, index) pairs kept apart whatever the slice length: what slices of 2^32
/// elements or more get, where an index no longer fits beside a 32-bit key. Exposed so that
/// tests can check that form on small slices.
template <class T, class TIndex>
void topk_unpacked(const Parallel& parallel, const T* in, std::int64_t outer, std::int64_t n,
                   std::int64_t inner, std::int64_t k, TopKMode mode, TopKSort sort, T* values,
                   TIndex* indices, const Scratch& scratch = Scratch());

}  // namespace topk_detail

}  // namespace irlite

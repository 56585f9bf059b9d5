#pragma once
// ReduceMax: the maximum of a dense row-major tensor over a set of axes, one instance of the
// reductions' kernel (kernels/reduce.hpp), kept under its own names.
//
// NaN propagates: a slice holding a NaN gives NaN (NumPy's and PyTorch's `max`; OpenVINO's
// reference skips NaN instead). Reducing an empty extent gives lowest_value<T>() as OpenVINO does.
// tests/reference/reduce_max.hpp is the plain version these results are tested against.

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/parallel.hpp"
#include "kernels/reduce.hpp"
#include "kernels/reduce_plan.hpp"

namespace irlite {

/// Writes plan.output_size maxima to `out` (the kept axes in order; keep_dims does not change
/// the layout), using the threads of `par` for work of `grain` input elements a thread or more
/// (tests lower it to split small inputs).
template <class T>
void reduce_max(const Parallel& par, const T* in, const ReducePlan& plan, T* out,
                std::int64_t grain = reduce_detail::kGrain) {
  reduce<ReduceMaxKind>(par, in, plan, out, grain);
}

/// Reduces a tensor of `shape` over `axes` (normalised into [0, rank), duplicates allowed).
template <class T>
void reduce_max(const Parallel& par, const T* in, std::span<const std::int64_t> shape,
                std::span<const std::int64_t> axes, T* out) {
  reduce<ReduceMaxKind>(par, in, plan_reduce(shape, axes), out);
}

}  // namespace irlite

#pragma once
// Short text summaries of tensors for `irlite run`, and the seeded random inputs it feeds.

#include <cstddef>
#include <cstdint>
#include <string>

#include "irlite/tensor.hpp"

namespace irlite::cli {

/// `min=-0.5 max=0.9 mean=0.12 nan=0 inf=0` over the non-NaN values (the NaN and infinity
/// counts for floating-point tensors only); "empty" for a tensor without elements.
std::string summary_stats(const Tensor& tensor);

/// The first `count` values, `[0.1, -0.5, ...]`.
std::string summary_values(const Tensor& tensor, std::size_t count);

/// A tensor of random values, the same for the same (seed, stream): floating-point uniform in
/// [-1, 1), integers uniform in [0, 10) so that they are valid as small indices, booleans 0 or 1.
Tensor random_tensor(ElementType type, const Shape& shape, std::uint64_t seed,
                     std::uint64_t stream);

}  // namespace irlite::cli

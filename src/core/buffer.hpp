#pragma once
// The memory behind the tensors irlite allocates for itself.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/saturating.hpp"  // saturating_mul and saturating_add, for sizes
#include "irlite/tensor.hpp"

namespace irlite {

/// The machine's physical memory in bytes; SIZE_MAX when the system does not say.
std::size_t physical_memory();

/// Buffers from this size up are mapped on their own, 2 MiB aligned, with transparent huge pages
/// requested: a large output then costs a few hundred page faults instead of thousands.
inline constexpr std::size_t kHugePageThreshold = std::size_t{4} << 20;

/// Asks for transparent huge pages on the whole 2 MiB steps inside [data, data + bytes), when
/// that range is at least kHugePageThreshold long: for a large array that is about to be filled
/// (the loader's nodes of a model with 10^5 layers), a few faults instead of thousands. Only a
/// request, and the memory must be a mapping of its own (as malloc gives for large blocks).
void advise_huge_pages(void* data, std::size_t bytes);

/// `bytes` of memory (at least one), aligned to 64 bytes, owned by the returned pointer and
/// freed with its last copy. The contents are unspecified unless `zeroed`. Throws
/// std::bad_alloc.
std::shared_ptr<void> allocate_buffer(std::size_t bytes, bool zeroed = false);

/// A tensor on a fresh buffer whose elements are unspecified: for an output its writer fills
/// entirely (an op's execute(), a copy). Throws Error when the byte size overflows and
/// std::bad_alloc when memory runs out.
Tensor uninitialized_tensor(ElementType type, Shape shape);

}  // namespace irlite

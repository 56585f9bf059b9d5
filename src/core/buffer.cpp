#include "core/buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <new>

namespace irlite {

std::size_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return SIZE_MAX;
  return saturating_mul(static_cast<std::size_t>(pages), static_cast<std::size_t>(page));
}
namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kPage = 4096;

std::size_t round_up(std::size_t n, std::size_t to) {
  return (n + to - 1) / to * to;
}

// A mapping of its own, starting on a huge-page boundary so that the kernel can back every whole
// 2 MiB of it with one huge page. The slack mapped to find that boundary is unmapped again, and
// the end is not rounded up to a huge page: the tail takes ordinary pages, so the resident size
// stays the buffer's size. Anonymous mappings start zeroed.
std::shared_ptr<void> map_huge(std::size_t bytes) {
  const std::size_t length = round_up(bytes, kPage);
  if (length > SIZE_MAX - kHugePage) throw std::bad_alloc();
  const std::size_t span = length + kHugePage;
  void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t start = round_up(base, kHugePage);
  const std::size_t head = start - base;
  if (head != 0) ::munmap(raw, head);
  if (span - head > length) ::munmap(reinterpret_cast<void*>(start + length), span - head - length);
  void* p = reinterpret_cast<void*>(start);
#ifdef MADV_HUGEPAGE
  // Only a request: without huge pages (THP disabled, memory fragmented) ordinary pages serve.
  ::madvise(p, length, MADV_HUGEPAGE);
#endif
  // Should the control block fail to allocate, shared_ptr calls the deleter itself.
  return std::shared_ptr<void>(p, [length](void* q) { ::munmap(q, length); });
}

// madvise(advice) on the `step`-aligned pages that lie wholly inside [data, data + bytes): the
// partial pages at either end may hold other objects' bytes.
[[maybe_unused]] void advise_whole_pages(void* data, std::size_t bytes, std::size_t step,
                                         int advice) {
  const auto base = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t start = round_up(base, step);
  const std::uintptr_t end = (base + bytes) / step * step;
  if (start < end) ::madvise(reinterpret_cast<void*>(start), end - start, advice);
}

}  // namespace

void advise_huge_pages(void* data, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (bytes >= kHugePageThreshold) advise_whole_pages(data, bytes, kHugePage, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

std::shared_ptr<void> allocate_buffer(std::size_t bytes, bool zeroed) {
  if (bytes >= kHugePageThreshold) return map_huge(bytes);
  void* p = ::operator new (bytes ? bytes : 1, std::align_val_t{kAlignment});
  if (zeroed) std::memset(p, 0, bytes);
  return std::shared_ptr<void>(
      p, [](void* q) { ::operator delete (q, std::align_val_t{kAlignment}); });
}

Tensor uninitialized_tensor(ElementType type, Shape shape) {
  // A view of no memory first: it checks that the byte size fits before anything is allocated.
  Tensor t = Tensor::view(type, std::move(shape), static_cast<void*>(nullptr));
  std::shared_ptr<void> buffer = allocate_buffer(t.byte_size());
  void* data = buffer.get();
  return Tensor::view(type, t.shape(), data, std::move(buffer));
}

}  // namespace irlite

// Memory helpers: the huge-page request for large arrays leaves their contents and the ranges
// around them alone, whatever their size and alignment.

#include "core/buffer.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace irlite {

TEST_CASE("advise_huge_pages keeps the contents of large and small, aligned and unaligned arrays") {
  for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{1000},
                                  kHugePageThreshold / sizeof(std::uint64_t) + 3,
                                  3 * kHugePageThreshold / sizeof(std::uint64_t)}) {
    std::vector<std::uint64_t> values(count + 1);
    std::iota(values.begin(), values.end(), std::uint64_t{7});
    // From the first element and from one byte in: neither end on a page boundary.
    advise_huge_pages(values.data(), count * sizeof(std::uint64_t));
    advise_huge_pages(reinterpret_cast<unsigned char*>(values.data()) + 1,
                      count * sizeof(std::uint64_t));
    bool kept = true;
    for (std::size_t i = 0; i < values.size(); ++i) kept = kept && values[i] == 7 + i;
    CHECK(kept);
    // Memory that is written after the request reads back as written.
    std::vector<std::uint64_t> fresh;
    fresh.reserve(count);
    advise_huge_pages(fresh.data(), count * sizeof(std::uint64_t));
    fresh.resize(count, 5);
    CHECK(std::count(fresh.begin(), fresh.end(), std::uint64_t{5}) ==
          static_cast<std::ptrdiff_t>(count));
  }
}

}  // namespace irlite

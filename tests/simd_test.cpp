// The vector helpers the kernels are built on: mask queries, loads and lane maxima.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>

#include "kernels/simd.hpp"

using namespace irlite;

namespace {

// For every lane count of T's vectors: a mask with no lane set, and with each lane (and each
// lane together with a later one) set.
template <class T>
void check_mask_queries() {
  constexpr std::size_t L = simd::lanes<T>;
  T a[L] = {};
  const auto v = simd::load(a);
  CHECK_FALSE(simd::any(v != v));
  CHECK(simd::byte_bits(v == v) == 0xffffffffu);
  for (std::size_t i = 0; i < L; ++i) {
    for (std::size_t j = i; j < L; ++j) {
      T b[L] = {};
      b[i] = T(1);
      b[j] = T(1);
      const auto m = simd::load(b) != v;
      CHECK(simd::any(m));
      CHECK(simd::first_lane(m) == i);
      CHECK(simd::lane_bits(m) == ((1u << i) | (1u << j)));
    }
  }
}

}  // namespace

TEST_CASE("simd: any, first_lane and lane_bits on masks of every lane width") {
  check_mask_queries<std::int8_t>();
  check_mask_queries<std::uint16_t>();
  check_mask_queries<std::int32_t>();
  check_mask_queries<float>();
  check_mask_queries<std::int64_t>();
  check_mask_queries<double>();
}

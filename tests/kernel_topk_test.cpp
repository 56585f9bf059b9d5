// The TopK kernel (kernels/topk.hpp) against the plain kernel it replaced
// (tests/reference/topk.hpp): every element and index type, both modes, every sort, inner,
// middle and outer axes, shapes that reach each strategy (row and column filters, radix
// selection, short slices, vector tails), inputs full of NaN, infinities, signed zeros and ties;
// and the same bytes on any number of threads, including splits of one long slice.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/parallel.hpp"
#include "kernels/element.hpp"
#include "reference/topk.hpp"
#include "kernels/topk.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

/// How the test data are laid out along a slice.
enum class Pattern {
  random,      // specials and few distinct values: NaN, ±inf, ±0 and many ties
  wide,        // random bit patterns (floats: any exponent, subnormals, NaN payloads)
  ascending,   // every element beats the ones before it: the filters' worst case
  descending,
};

template <class T>
T from_double(double v) {
  if constexpr (is_float_storage_v<T>)
    return T(static_cast<compute_t<T>>(v));
  else
    return static_cast<T>(v);
}

template <class T>
T random_value(std::mt19937_64& rng, Pattern pattern) {
  using C = compute_t<T>;
  if (pattern == Pattern::wide) {
    const std::uint64_t bits = rng();
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
      return T::from_bits(static_cast<std::uint16_t>(bits));
    } else {
      T v;
      std::memcpy(&v, &bits, sizeof v);
      return v;
    }
  }
  const int p = std::uniform_int_distribution<int>(0, 39)(rng);
  if constexpr (std::is_floating_point_v<C>) {
    constexpr C nan = std::numeric_limits<C>::quiet_NaN();
    constexpr C inf = std::numeric_limits<C>::infinity();
    switch (p) {
      case 0: return T(nan);
      case 1: return T(-nan);
      case 2: return T(inf);
      case 3: return T(-inf);
      case 4: return T(C(-0.0));
      case 5: return T(C(0.0));
      default: break;
    }
    return T(static_cast<C>(std::uniform_int_distribution<int>(-12, 12)(rng)) / C(4));
  } else {
    if (p == 0) return std::numeric_limits<T>::max();
    if (p == 1) return std::numeric_limits<T>::lowest();
    return static_cast<T>(std::uniform_int_distribution<int>(std::is_signed_v<T> ? -5 : 0, 5)(rng));
  }
}

template <class T>
std::vector<T> make_input(std::mt19937_64& rng, std::int64_t outer, std::int64_t n,
                          std::int64_t inner, Pattern pattern) {
  std::vector<T> in(static_cast<std::size_t>(outer * n * inner));
  if (pattern == Pattern::random || pattern == Pattern::wide) {
    for (T& v : in) v = random_value<T>(rng, pattern);
    return in;
  }
  // Steps of 1 along the axis, wrapping within the type's exact range; ties across slices.
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t step = (pattern == Pattern::ascending ? j : n - 1 - j) % 100;
      for (std::int64_t i = 0; i < inner; ++i)
        in[static_cast<std::size_t>((o * n + j) * inner + i)] = from_double<T>(static_cast<double>(step + i % 3));
    }
  }
  return in;
}

struct Output {
  std::vector<std::uint8_t> values;  // bytes, so that NaN payloads and zero signs compare too
  std::vector<std::int64_t> indices;
};

/// Runs a kernel and returns its outputs as bytes and widened indices.
template <class T, class TIndex, class Kernel>
Output run_kernel(const std::vector<T>& in, std::int64_t outer, std::int64_t n,
                  std::int64_t inner, std::int64_t k, TopKMode mode, TopKSort sort,
                  Kernel kernel) {
  const auto size = static_cast<std::size_t>(outer * k * inner);
  std::vector<T> values(size);
  std::vector<TIndex> indices(size, TIndex{-1});
  if (size > 0) std::memset(static_cast<void*>(values.data()), 0xA5, size * sizeof(T));
  kernel(in.data(), outer, n, inner, k, mode, sort, values.data(), indices.data());
  Output out;
  out.values.resize(size * sizeof(T));
  if (size > 0) std::memcpy(out.values.data(), values.data(), out.values.size());
  out.indices.assign(indices.begin(), indices.end());
  return out;
}

const char* mode_name(TopKMode mode) { return mode == TopKMode::max ? "max" : "min"; }
const char* sort_name(TopKSort sort) {
  return sort == TopKSort::value ? "value" : sort == TopKSort::index ? "index" : "none";
}

/// The first position where two outputs differ, or -1.
std::int64_t first_difference(const Output& a, const Output& b, std::size_t element_size) {
  for (std::size_t p = 0; p < a.indices.size(); ++p) {
    if (a.indices[p] != b.indices[p] ||
        std::memcmp(&a.values[p * element_size], &b.values[p * element_size], element_size) != 0)
      return static_cast<std::int64_t>(p);
  }
  return -1;
}

struct Shape3 {
  std::int64_t outer, n, inner;
};

/// The optimised kernel (packed or unpacked entries, on `parallel`) against the plain one.
template <class T, class TIndex>
void check(std::mt19937_64& rng, const Shape3& s, std::int64_t k, TopKMode mode, TopKSort sort,
           Pattern pattern, bool unpacked = false, const Parallel& parallel = Parallel()) {
  const std::vector<T> in = make_input<T>(rng, s.outer, s.n, s.inner, pattern);
  const Output want = run_kernel<T, TIndex>(in, s.outer, s.n, s.inner, k, mode, sort,
                                            [](auto... args) { reference::topk(args...); });
  const Output got = run_kernel<T, TIndex>(
      in, s.outer, s.n, s.inner, k, mode, sort, [&](auto... args) {
        if (unpacked)
          topk_detail::topk_unpacked(parallel, args...);
        else
          topk(parallel, args...);
      });
  const std::int64_t p = first_difference(got, want, sizeof(T));
  if (p >= 0) {
    FAIL("[" << s.outer << ", " << s.n << ", " << s.inner << "] k " << k << " "
             << std::string(mode_name(mode)) << "/" << std::string(sort_name(sort))
             << " pattern " << static_cast<int>(pattern)
             << std::string(unpacked ? " unpacked" : "") << " threads "
             << parallel.threads() << ": position " << p << " index " << got.indices[p]
             << ", want " << want.indices[p]);
  }
}

/// k values that reach each strategy for a slice of n: 0, 1, 2, a few (filters when n allows),
/// the largest the filters take, the smallest the selection takes, n / 2, n - 1, n.
std::vector<std::int64_t> ks_for(std::int64_t n) {
  std::vector<std::int64_t> ks = {0, 1, 2, 5, n / 16, n / 16 + 1, n / 2, n - 1, n};
  std::vector<std::int64_t> out;
  for (std::int64_t k : ks) {
    if (k >= 0 && k <= n && std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

template <class T, class TIndex>
void check_type(std::mt19937_64& rng, bool all_shapes) {
  // Innermost axis: long rows (filter over vector blocks, selection from 256 elements on, with
  // a finer histogram from 4096) and short ones; lengths that leave vector tails. Outer axes: column blocks wider and narrower
  // than a vector, a middle axis.
  const std::vector<Shape3> shapes = {{3, 1001, 1}, {2, 300, 1}, {1, 4500, 1}, {4, 37, 1},
                                      {1, 1, 1},    {1, 97, 150}, {3, 40, 5},  {1, 260, 3},
                                      {2, 19, 70}};
  const std::vector<Shape3> few = {{3, 1001, 1}, {2, 300, 1}, {1, 97, 150}, {3, 40, 5}};
  constexpr TopKSort sorts[] = {TopKSort::value, TopKSort::index, TopKSort::none};
  int turn = 0;
  for (const Shape3& s : all_shapes ? shapes : few) {
    for (std::int64_t k : ks_for(s.n)) {
      for (TopKMode mode : {TopKMode::max, TopKMode::min}) {
        check<T, TIndex>(rng, s, k, mode, sorts[turn++ % 3], Pattern::random);
        check<T, TIndex>(rng, s, k, mode, sorts[turn++ % 3], Pattern::wide);
      }
    }
    // The filters' worst and best cases: every element (or none) beats the kept ones.
    for (Pattern pattern : {Pattern::ascending, Pattern::descending}) {
      for (TopKMode mode : {TopKMode::max, TopKMode::min})
        check<T, TIndex>(rng, s, std::min<std::int64_t>(s.n, 3), mode, TopKSort::value, pattern);
    }
  }
}

}  // namespace

TEST_CASE("TopK kernel: every element type against the plain kernel") {
  std::mt19937_64 rng(3);
  check_type<float, std::int32_t>(rng, true);
  check_type<float, std::int64_t>(rng, false);
  check_type<double, std::int64_t>(rng, true);
  check_type<float16, std::int32_t>(rng, true);
  check_type<bfloat16, std::int64_t>(rng, true);
  check_type<std::int8_t, std::int32_t>(rng, true);
  check_type<std::int16_t, std::int64_t>(rng, false);
  check_type<std::int32_t, std::int32_t>(rng, true);
  check_type<std::int64_t, std::int64_t>(rng, true);
  check_type<std::uint8_t, std::int64_t>(rng, false);
  check_type<std::uint16_t, std::int32_t>(rng, false);
  check_type<std::uint32_t, std::int64_t>(rng, true);
  check_type<std::uint64_t, std::int32_t>(rng, false);
}

TEST_CASE("TopK kernel: unpacked entries agree with the plain kernel") {
  // 32-bit keys pack an index below 2^32 beside them; longer slices keep the two apart. That
  // form is checked here on short slices.
  std::mt19937_64 rng(5);
  const std::vector<Shape3> shapes = {{2, 700, 1}, {2, 300, 9}, {3, 50, 1}};
  for (const Shape3& s : shapes) {
    for (std::int64_t k : ks_for(s.n)) {
      for (TopKMode mode : {TopKMode::max, TopKMode::min}) {
        for (TopKSort sort : {TopKSort::value, TopKSort::index}) {
          check<float, std::int32_t>(rng, s, k, mode, sort, Pattern::random, true);
          check<float16, std::int64_t>(rng, s, k, mode, sort, Pattern::random, true);
          check<std::int16_t, std::int32_t>(rng, s, k, mode, sort, Pattern::random, true);
          check<std::uint32_t, std::int64_t>(rng, s, k, mode, sort, Pattern::wide, true);
        }
      }
    }
  }
}

TEST_CASE("TopK kernel: the same bytes on any number of threads") {
  static ThreadPool two(2), three(3), eight(8);
  const std::vector<ThreadPool*> pools = {nullptr, &two, &three, &eight};
  std::mt19937_64 rng(9);
  struct Case {
    Shape3 shape;
    std::int64_t k;
  };
  // Rows split over threads; one or three long rows split along their length (parts of 2^16
  // elements at least); column blocks, also for a single outer index; radix selection over rows
  // and over column blocks.
  const std::vector<Case> cases = {{{40, 3000, 1}, 7},      {{1, 300000, 1}, 10},
                                   {{3, 140000, 1}, 2},     {{1, 200000, 1}, 1},
                                   {{1, 500, 300}, 4},      {{5, 64, 100}, 3},
                                   {{12, 3000, 1}, 1000},   {{1, 2000, 40}, 500},
                                   {{2, 1000, 3}, 900}};
  for (const Case& c : cases) {
    for (TopKMode mode : {TopKMode::max, TopKMode::min}) {
      const TopKSort sort = mode == TopKMode::max ? TopKSort::value : TopKSort::index;
      const Shape3& s = c.shape;
      const std::vector<float> in = make_input<float>(rng, s.outer, s.n, s.inner, Pattern::random);
      const Output want = run_kernel<float, std::int64_t>(
          in, s.outer, s.n, s.inner, c.k, mode, sort,
          [](auto... args) { reference::topk(args...); });
      for (ThreadPool* pool : pools) {
        const Parallel parallel(pool);
        const Output got = run_kernel<float, std::int64_t>(
            in, s.outer, s.n, s.inner, c.k, mode, sort,
            [&](auto... args) { topk(parallel, args...); });
        CAPTURE(s.outer);
        CAPTURE(s.n);
        CAPTURE(s.inner);
        CAPTURE(c.k);
        CAPTURE(parallel.threads());
        CHECK(first_difference(got, want, sizeof(float)) == -1);
      }
    }
  }
  // Other types through the split of one long row and through column blocks.
  for (ThreadPool* pool : pools) {
    const Parallel parallel(pool);
    check<double, std::int32_t>(rng, {1, 150000, 1}, 5, TopKMode::min, TopKSort::value,
                                Pattern::random, false, parallel);
    check<float16, std::int64_t>(rng, {2, 140000, 1}, 3, TopKMode::max, TopKSort::none,
                                 Pattern::wide, false, parallel);
    check<std::int8_t, std::int32_t>(rng, {1, 300, 200}, 6, TopKMode::max, TopKSort::index,
                                     Pattern::random, false, parallel);
    check<std::uint64_t, std::int64_t>(rng, {2, 900, 20}, 400, TopKMode::min, TopKSort::value,
                                       Pattern::wide, false, parallel);
  }
}

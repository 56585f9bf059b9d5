// The reductions other than ReduceMax (tested in op_reduce_max_test.cpp): ReduceMin, ReduceSum,
// ReduceProd, ReduceMean, ReduceL1, ReduceL2, ReduceLogicalAnd and ReduceLogicalOr. Shape rule
// and errors, empty extents, NaN, integer wrapping, and the kernel against plain loops on random
// inputs of several element types and shapes, on any number of threads.

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/attributes.hpp"
#include "graph/op.hpp"
#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "kernels/reduce.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "ops/registry.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;

std::unique_ptr<const Op> make_op(const char* type, bool keep_dims = false,
                                  const char* opset = "opset4") {
  return op_def(type, opset).create(Attributes(Attrs{{"keep_dims", keep_dims ? "true" : "false"}}));
}

Tensor axes_tensor(const std::vector<std::int64_t>& axes) {
  return ints(ElementType::i64, {static_cast<std::int64_t>(axes.size())}, axes);
}

Tensor run_op(const char* type, const Tensor& data, const std::vector<std::int64_t>& axes,
              bool keep_dims = false) {
  return run(*make_op(type, keep_dims), {data, axes_tensor(axes)});
}

std::string error_of(const char* type, ElementType data_type, const char* data_shape,
                     const Tensor* axes, const char* axes_shape = "[1]",
                     ElementType axes_type = ElementType::i64) {
  auto op = make_op(type);
  const auto e = caught([&] {
    (void)op->infer(
        std::vector<ValueInfo>{info(data_type, data_shape),
                               info(axes ? axes->element_type() : axes_type, axes_shape, axes)});
  });
  return e ? e->what() : "";
}

/// The element type whose storage type is T.
template <class T>
ElementType type_of() {
  for (ElementType e : kNumericTypes) {
    bool match = false;
    dispatch_numeric(e, [&](auto tag) { match = std::is_same_v<typename decltype(tag)::type, T>; });
    if (match) return e;
  }
  return ElementType::undefined;
}

const char* const kNumericOps[] = {"ReduceMin",  "ReduceSum", "ReduceProd",
                                   "ReduceMean", "ReduceL1",  "ReduceL2"};

// ---- The oracle: every input element visited once, accumulated per output element. ----

enum class K { min, sum, prod, mean, l1, l2 };

template <class T>
struct wide {
  using type = double;
};
template <class T>
requires std::is_integral_v<T>
struct wide<T> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using wide_t = typename wide<T>::type;

/// The reduction of `in` over the `reduced` axes: floats accumulated in double, integers in
/// their unsigned type (wrapping as the type does).
template <class T>
std::vector<double> oracle(const std::vector<T>& in, const Shape& shape,
                           const std::vector<bool>& reduced, K kind) {
  using W = wide_t<compute_t<T>>;
  std::size_t out_size = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d]) out_size *= static_cast<std::size_t>(shape[d]);
  std::vector<W> acc(out_size, kind == K::prod ? W(1) : W(0));
  std::vector<double> mins(out_size, std::numeric_limits<double>::infinity());
  std::vector<bool> nan(out_size, false);
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::size_t rest = i, o = 0, scale = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
      const auto extent = static_cast<std::size_t>(shape[d]);
      const std::size_t coord = rest % extent;
      rest /= extent;
      if (!reduced[d]) {
        o += coord * scale;
        scale *= extent;
      }
    }
    const auto v = static_cast<compute_t<T>>(in[i]);
    const W w = static_cast<W>(v);
    switch (kind) {
      case K::min:
        if (v != v) nan[o] = true;
        mins[o] = std::min(mins[o], static_cast<double>(v));
        break;
      case K::sum:
      case K::mean:
        acc[o] = static_cast<W>(acc[o] + w);
        break;
      case K::prod:
        acc[o] = static_cast<W>(acc[o] * w);
        break;
      case K::l1:
        acc[o] = static_cast<W>(acc[o] + (v < 0 ? static_cast<W>(W(0) - w) : w));
        break;
      case K::l2:
        acc[o] = static_cast<W>(acc[o] + w * w);
        break;
    }
  }
  const std::size_t count = out_size == 0 ? 0 : in.size() / out_size;
  std::vector<double> out(out_size);
  for (std::size_t o = 0; o < out_size; ++o) {
    if (kind == K::min) {
      out[o] = nan[o] ? std::nan("") : mins[o];
      continue;
    }
    const T as_t = static_cast<T>(static_cast<compute_t<T>>(acc[o]));  // wrapped into T
    double r = static_cast<double>(acc[o]);
    if constexpr (std::is_integral_v<T>) {
      r = static_cast<double>(as_t);
      if (kind == K::mean)
        r = static_cast<double>(static_cast<std::int64_t>(as_t) / static_cast<std::int64_t>(count));
      if (kind == K::l2) r = r < 0 ? 0 : std::floor(std::sqrt(r));  // a wrapped sum gives 0
    } else {
      if (kind == K::mean) r /= static_cast<double>(count);
      if (kind == K::l2) r = std::sqrt(r);
    }
    out[o] = r;
  }
  return out;
}

template <class T>
T random_value(std::mt19937& rng, bool nan) {
  using C = compute_t<T>;
  if constexpr (std::is_floating_point_v<C>) {
    if (nan && std::uniform_int_distribution<int>(0, 99)(rng) == 0)
      return T(std::numeric_limits<C>::quiet_NaN());
    return T(static_cast<C>(std::uniform_real_distribution<double>(-1.0, 1.0)(rng)));
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(std::uniform_int_distribution<int>(-3, 3)(rng));
  } else {
    return static_cast<T>(std::uniform_int_distribution<int>(0, 5)(rng));
  }
}

template <class T>
void check_kind(std::mt19937& rng, const char* type, K kind, const Shape& shape,
                const std::vector<bool>& reduced, bool nan) {
  using C = compute_t<T>;
  std::size_t size = 1;
  for (auto d : shape) size *= static_cast<std::size_t>(d);
  std::vector<T> in(size);
  for (T& v : in) v = random_value<T>(rng, nan);
  std::vector<std::int64_t> axes;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) axes.push_back(static_cast<std::int64_t>(d));
  Tensor data(type_of<T>(), shape);
  std::memcpy(data.data(), in.data(), size * sizeof(T));
  const Tensor got = run_op(type, data, axes);
  const std::vector<double> want = oracle(in, shape, reduced, kind);
  REQUIRE(got.size() == want.size());
  // 16-bit results are rounded from float; float sums are accumulated in another order.
  const double tol = std::is_same_v<T, bfloat16>  ? 1e-2
                     : std::is_same_v<T, float16> ? 2e-3
                     : std::is_same_v<T, float>   ? 1e-5
                     : std::is_same_v<T, double>  ? 1e-12
                                                  : 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto g = static_cast<double>(static_cast<C>(got.data<T>()[i]));
    const double w = want[i];
    const bool ok = (std::isnan(g) && std::isnan(w)) || g == w ||
                    std::fabs(g - w) <= tol * (1 + std::fabs(w) + (kind == K::l2 ? 0 : 4));
    if (!ok)
      FAIL(type << " " << to_string(type_of<T>()) << " shape " << to_string(shape) << " element "
                << i << ": got " << g << ", want " << w);
  }
  // Any thread count, with work split down to a few elements a thread, gives the same bits.
  std::vector<T> one(want.size());
  const ReducePlan plan = plan_reduce(shape, axes);
  const auto run_kernel = [&](const Parallel& par, T* out) {
    switch (kind) {
      case K::min:
        reduce<ReduceMinKind>(par, in.data(), plan, out, 5);
        break;
      case K::sum:
        reduce<ReduceSumKind>(par, in.data(), plan, out, 5);
        break;
      case K::prod:
        reduce<ReduceProdKind>(par, in.data(), plan, out, 5);
        break;
      case K::mean:
        reduce<ReduceMeanKind>(par, in.data(), plan, out, 5);
        break;
      case K::l1:
        reduce<ReduceL1Kind>(par, in.data(), plan, out, 5);
        break;
      case K::l2:
        reduce<ReduceL2Kind>(par, in.data(), plan, out, 5);
        break;
    }
  };
  run_kernel(Parallel(), one.data());
  for (ThreadPool* pool : test_pools()) {
    std::vector<T> split(want.size());
    run_kernel(Parallel(pool), split.data());
    if (!want.empty() && std::memcmp(split.data(), one.data(), one.size() * sizeof(T)) != 0)
      FAIL(type << " shape " << to_string(shape) << ": " << pool->size()
                << " threads differ from one");
  }
}

template <class T>
void check_all_kinds(std::mt19937& rng, const Shape& shape, const std::vector<bool>& reduced) {
  const std::pair<const char*, K> kinds[] = {{"ReduceMin", K::min},   {"ReduceSum", K::sum},
                                             {"ReduceProd", K::prod}, {"ReduceMean", K::mean},
                                             {"ReduceL1", K::l1},     {"ReduceL2", K::l2}};
  for (const auto& [type, kind] : kinds) {
    // Products of many random factors vanish or wrap to 0: short extents keep them telling.
    if (kind == K::prod) {
      std::size_t count = 1;
      for (std::size_t d = 0; d < shape.size(); ++d)
        if (reduced[d]) count *= static_cast<std::size_t>(shape[d]);
      if (count > 40) continue;
    }
    check_kind<T>(rng, type, kind, shape, reduced, kind == K::min);
  }
}

}  // namespace

TEST_CASE("Reductions: registry entries") {
  for (const char* type : {"ReduceMin", "ReduceSum", "ReduceProd", "ReduceMean", "ReduceLogicalAnd",
                           "ReduceLogicalOr"}) {
    CAPTURE(type);
    CHECK(op_def(type, "opset1").version == 1);
  }
  for (const char* type : {"ReduceL1", "ReduceL2"}) {
    CAPTURE(type);
    CHECK(op_def(type, "opset4").version == 4);
    std::string why;
    CHECK(resolve_op(type, "opset3", &why) == nullptr);
  }
  CHECK_THROWS_WITH_AS(
      op_def("ReduceSum", "opset1").create(Attributes(Attrs{{"keep_dims", "maybe"}})),
      doctest::Contains("keep_dims"), Error);
}

TEST_CASE("Reductions: shape rule") {
  const Tensor a12 = axes_tensor({1, -1});
  for (const char* type : kNumericOps) {
    CAPTURE(type);
    auto op = make_op(type);
    auto keep = make_op(type, true);
    CHECK(inferred(*op, {info(ElementType::f32, "[3,4,5]"), info(a12)}) == "f32 [3]");
    CHECK(inferred(*keep, {info(ElementType::i32, "[3,4,5]"), info(a12)}) == "i32 [3,1,1]");
    CHECK(inferred(*op, {info(ElementType::f16, "[?,2..6,5]"), info(a12)}) == "f16 [?]");
    CHECK(inferred(*keep, {info(ElementType::f16, "[2..3,?,5]"), info(a12)}) == "f16 [2..3,1,1]");
    // Axes not known: the rank is, with keep_dims or a single axis.
    CHECK(inferred(*op, {info(ElementType::f32, "[3,4,5]"), info(ElementType::i64, "[1]")}) ==
          "f32 [?,?]");
    CHECK(inferred(*keep, {info(ElementType::f32, "[3,4,5]"), info(ElementType::i64, "[2]")}) ==
          "f32 [?,?,?]");
    CHECK(inferred(*op, {info(ElementType::f32, "[3,4,5]"), info(ElementType::i64, "[?]")}) ==
          "f32 [...]");
    CHECK(inferred(*op, {info(ElementType::f32, "[...]"), info(a12)}) == "f32 [...]");
    CHECK(inferred(*keep, {info(ElementType::f32, "[...]"), info(ElementType::i32, "[2]")}) ==
          "f32 [...]");
  }
  const Tensor bad = axes_tensor({3});
  CHECK(error_of("ReduceSum", ElementType::f32, "[3,4,5]", &bad).find("out of the tensor rank") !=
        std::string::npos);
  CHECK(error_of("ReduceSum", ElementType::boolean, "[3]", nullptr).find("must be a numeric tensor") !=
        std::string::npos);
  CHECK(error_of("ReduceMean", ElementType::f32, "[3]", nullptr, "[1]", ElementType::f32)
            .find("axes must be an integer") != std::string::npos);
  CHECK(error_of("ReduceProd", ElementType::f32, "[3]", nullptr, "[1,1]").find("scalar or 1-D") !=
        std::string::npos);
  CHECK(error_of("ReduceLogicalAnd", ElementType::f32, "[3]", nullptr).find("must be boolean") !=
        std::string::npos);
  // An out-of-range axis seen only at run time is a value error.
  const auto e = caught([] {
    (void)run_op("ReduceMin", tensor(ElementType::f32, {2}, {1, 2}), {1});
  });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
}

TEST_CASE("Reductions: values on a small example") {
  const Tensor x = tensor(ElementType::f32, {2, 3}, {1, -2, 3, 4, 5, -6});
  CHECK(doubles(run_op("ReduceSum", x, {1})) == std::vector<double>{2, 3});
  CHECK(doubles(run_op("ReduceSum", x, {0})) == std::vector<double>{5, 3, -3});
  CHECK(doubles(run_op("ReduceProd", x, {1})) == std::vector<double>{-6, -120});
  CHECK(doubles(run_op("ReduceMin", x, {0, 1})) == std::vector<double>{-6});
  CHECK(doubles(run_op("ReduceMean", x, {0})) == std::vector<double>{2.5, 1.5, -1.5});
  CHECK(doubles(run_op("ReduceL1", x, {1})) == std::vector<double>{6, 15});
  CHECK(doubles(run_op("ReduceL2", tensor(ElementType::f32, {2, 2}, {3, 4, 6, -8}), {1})) ==
        std::vector<double>{5, 10});
  // Integer mean divides as integers do (toward zero).
  const Tensor i = tensor(ElementType::i32, {2, 3}, {1, 2, 4, -1, -2, -4});
  CHECK(doubles(run_op("ReduceMean", i, {1})) == std::vector<double>{2, -2});
  // Only size-1 axes reduced: each result is its one element, mapped.
  CHECK(doubles(run_op("ReduceL1", tensor(ElementType::f32, {3, 1}, {-1, 2, -3}), {1})) ==
        std::vector<double>{1, 2, 3});
  // Integer sums and products wrap as the type does.
  CHECK(doubles(run_op("ReduceSum", tensor(ElementType::i8, {3}, {100, 100, 100}), {0})) ==
        std::vector<double>{44});
  CHECK(doubles(run_op("ReduceProd", tensor(ElementType::u8, {2}, {16, 17}), {0})) ==
        std::vector<double>{16});
}

TEST_CASE("Reductions: empty extents") {
  const Tensor f = tensor(ElementType::f32, {2, 0}, {});
  CHECK(doubles(run_op("ReduceSum", f, {1})) == std::vector<double>{0, 0});
  CHECK(doubles(run_op("ReduceProd", f, {1})) == std::vector<double>{1, 1});
  const std::vector<double> inf(2, std::numeric_limits<double>::infinity());
  CHECK(doubles(run_op("ReduceMin", f, {1})) == inf);
  for (double m : doubles(run_op("ReduceMean", f, {1}))) CHECK(std::isnan(m));
  CHECK(doubles(run_op("ReduceMin", tensor(ElementType::i16, {0}, {}), {0})) ==
        std::vector<double>{32767});
  CHECK(doubles(run_op("ReduceMean", tensor(ElementType::i32, {0}, {}), {0})) ==
        std::vector<double>{0});
  CHECK(doubles(run_op("ReduceMin", tensor(ElementType::f16, {0, 3}, {}), {0})) ==
        std::vector<double>(3, std::numeric_limits<double>::infinity()));
  // A kept zero extent: an empty output.
  CHECK(run_op("ReduceSum", tensor(ElementType::f32, {0, 4}, {}), {1}).size() == 0);
}

TEST_CASE("Reductions: NaN and infinities") {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  for (ElementType type : {ElementType::f32, ElementType::f16, ElementType::f64}) {
    CAPTURE(to_string(type));
    // ReduceMin propagates NaN on the vector path (a long row) and the plain one.
    std::vector<double> v(70, 1.0);
    v[37] = nan;
    v[3] = -5;
    const Tensor long_row = tensor(type, {70}, v);
    CHECK(std::isnan(doubles(run_op("ReduceMin", long_row, {0}))[0]));
    CHECK(std::isnan(doubles(run_op("ReduceSum", long_row, {0}))[0]));
    const Tensor t = tensor(type, {2, 3}, {inf, 1, -inf, 2, nan, 3});
    const std::vector<double> m = doubles(run_op("ReduceMin", t, {0}));
    CHECK(m[0] == 2);
    CHECK(std::isnan(m[1]));
    CHECK(m[2] == -inf);
    CHECK(std::isnan(doubles(run_op("ReduceSum", t, {1}))[0]));  // inf + -inf
    CHECK(doubles(run_op("ReduceSum", tensor(type, {2}, {inf, 1}), {0}))[0] == inf);
  }
  // -0 is the minimum of zeros, whatever their order.
  const Tensor z = tensor(ElementType::f32, {40}, std::vector<double>(40, 0.0));
  Tensor zs = z;
  zs.data<float>()[29] = -0.0f;
  CHECK(std::signbit(run_op("ReduceMin", zs, {0}).data<float>()[0]));
}

/// The extremum of x under the order of float bits (-0 below +0), or NaN if x holds one.
template <class T>
T bit_order_extremum(const std::vector<T>& x, bool min) {
  T best = min ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  for (const T v : x) {
    if (std::isnan(v)) return std::numeric_limits<T>::quiet_NaN();
    const bool above = v > best || (v == best && !std::signbit(v) && std::signbit(best));
    const bool below = v < best || (v == best && std::signbit(v) && !std::signbit(best));
    if (min ? below : above) best = v;
  }
  return best;
}

/// Rows drawn from values that break naive vector extrema: both zeros, NaNs of both signs and
/// payloads, infinities, subnormals and the extreme finite values; all-negative and
/// all-non-negative rows too. The vector scan gives the maximum and minimum under the order of
/// the bits (so the sign of a zero result does not depend on lanes or threads), and NaN for any
/// NaN; folding rows element-wise gives the same values (zeros compare equal there) and NaN.
template <class T>
void check_extrema_on_hostile_values(std::mt19937& rng) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  const auto from_bits = [](Bits b) { return std::bit_cast<T>(b); };
  const T qnan = std::numeric_limits<T>::quiet_NaN();
  const Bits sign = Bits(1) << (sizeof(T) * 8 - 1);
  const std::vector<T> pool = {T(0),
                               -T(0),
                               T(1.5),
                               T(-1.5),
                               T(-2.5),
                               std::numeric_limits<T>::infinity(),
                               -std::numeric_limits<T>::infinity(),
                               std::numeric_limits<T>::max(),
                               std::numeric_limits<T>::lowest(),
                               std::numeric_limits<T>::denorm_min(),
                               -std::numeric_limits<T>::denorm_min(),
                               qnan,
                               from_bits(std::bit_cast<Bits>(qnan) | sign),       // -NaN
                               from_bits(std::bit_cast<Bits>(qnan) | Bits(1)),    // payload
                               from_bits(std::bit_cast<Bits>(-qnan) | Bits(3))};  // both
  const std::size_t nans = 11;  // pool[nans..] are NaN
  for (int trial = 0; trial < 400; ++trial) {
    const auto n = std::uniform_int_distribution<std::size_t>(1, 300)(rng);
    // Which values a row may take: NaN rarely, and some rows of one sign only.
    const int flavour = trial % 5;
    std::vector<T> row(n);
    for (T& v : row) {
      std::size_t k;
      do {
        k = std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng);
      } while ((k >= nans && (flavour != 0 || rng() % 50 != 0)) ||
               (flavour == 1 && !std::signbit(pool[k])) ||
               (flavour == 2 && std::signbit(pool[k])) || (flavour == 3 && pool[k] != 0));
      v = pool[k];
    }
    CAPTURE(n);
    CAPTURE(flavour);
    const Shape shape{static_cast<std::int64_t>(n)};
    const std::vector<std::int64_t> axes{0};
    T got_max, got_min;
    reduce<ReduceMaxKind>(Parallel(), row.data(), shape, axes, &got_max);
    reduce<ReduceMinKind>(Parallel(), row.data(), shape, axes, &got_min);
    const T want_max = bit_order_extremum(row, false), want_min = bit_order_extremum(row, true);
    if (std::isnan(want_max)) {
      CHECK(std::isnan(got_max));
      CHECK(std::isnan(got_min));
    } else {
      CHECK(std::bit_cast<Bits>(got_max) == std::bit_cast<Bits>(want_max));
      CHECK(std::bit_cast<Bits>(got_min) == std::bit_cast<Bits>(want_min));
    }
    // The same values as 40 rows to fold element-wise; wide rows take two rows a pass, and
    // threads split the rows (40 rows: two ranges of at least 16).
    const std::size_t width = trial % 2 == 0 ? n : 4500;
    constexpr std::size_t kRows = 40;
    std::vector<T> rows(kRows * width);
    for (T& v : rows) v = row[std::uniform_int_distribution<std::size_t>(0, n - 1)(rng)];
    const Shape shape2{static_cast<std::int64_t>(kRows), static_cast<std::int64_t>(width)};
    std::vector<T> fold_max(width), fold_min(width);
    reduce<ReduceMaxKind>(Parallel(), rows.data(), shape2, axes, fold_max.data());
    reduce<ReduceMinKind>(Parallel(), rows.data(), shape2, axes, fold_min.data());
    for (std::size_t j = 0; j < width; ++j) {
      std::vector<T> column(kRows);
      for (std::size_t r = 0; r < kRows; ++r) column[r] = rows[r * width + j];
      const T m = bit_order_extremum(column, false), mn = bit_order_extremum(column, true);
      if (std::isnan(m)) {
        REQUIRE(std::isnan(fold_max[j]));
        REQUIRE(std::isnan(fold_min[j]));
      } else {
        REQUIRE(fold_max[j] == m);
        REQUIRE(fold_min[j] == mn);
      }
    }
    // Any thread count, rows or columns split, gives the same bits (zero signs and NaN included).
    if (trial % 4 == 0) {  // every flavour in turn
      for (ThreadPool* threads : test_pools()) {
        std::vector<T> split_max(width), split_min(width);
        const ReducePlan plan = plan_reduce(shape2, axes);
        reduce<ReduceMaxKind>(Parallel(threads), rows.data(), plan, split_max.data(), 3);
        reduce<ReduceMinKind>(Parallel(threads), rows.data(), plan, split_min.data(), 3);
        REQUIRE(std::memcmp(split_max.data(), fold_max.data(), width * sizeof(T)) == 0);
        REQUIRE(std::memcmp(split_min.data(), fold_min.data(), width * sizeof(T)) == 0);
      }
    }
  }
}

TEST_CASE("Reductions: ReduceMax and ReduceMin on zeros of both signs, NaNs and extremes") {
  std::mt19937 rng(11);
  check_extrema_on_hostile_values<float>(rng);
  check_extrema_on_hostile_values<double>(rng);
}

/// The bytes of a boolean tensor.
std::vector<std::int64_t> bools(const Tensor& t) {
  REQUIRE(t.element_type() == ElementType::boolean);
  std::vector<std::int64_t> v(t.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<const std::uint8_t*>(t.data())[i];
  return v;
}

TEST_CASE("Reductions: logical") {
  const Tensor b = tensor(ElementType::u8, {2, 3}, {1, 1, 0, 1, 1, 1});
  Tensor data(ElementType::boolean, {2, 3});
  std::memcpy(data.data(), b.data(), 6);
  CHECK(bools(run(*make_op("ReduceLogicalAnd", false, "opset1"), {data, axes_tensor({1})})) ==
        std::vector<std::int64_t>{0, 1});
  CHECK(bools(run(*make_op("ReduceLogicalOr", false, "opset1"), {data, axes_tensor({0})})) ==
        std::vector<std::int64_t>{1, 1, 1});
  const Tensor out = run(*make_op("ReduceLogicalAnd", true, "opset1"), {data, axes_tensor({0})});
  CHECK(out.element_type() == ElementType::boolean);
  CHECK(out.shape() == Shape{1, 3});
  CHECK(bools(out) == std::vector<std::int64_t>{1, 1, 0});
  Tensor empty(ElementType::boolean, {0});
  CHECK(bools(run(*make_op("ReduceLogicalAnd", false, "opset1"), {empty, axes_tensor({0})})) ==
        std::vector<std::int64_t>{1});
  CHECK(bools(run(*make_op("ReduceLogicalOr", false, "opset1"), {empty, axes_tensor({0})})) ==
        std::vector<std::int64_t>{0});
}

TEST_CASE("Reductions: kernel against plain loops on random inputs") {
  std::mt19937 rng(7);
  const std::vector<std::pair<Shape, std::vector<bool>>> cases = {
      {{37}, {true}},
      {{1003}, {true}},
      {{5, 67}, {false, true}},
      {{67, 5}, {true, false}},
      {{3, 41, 7}, {false, true, false}},
      {{3, 41, 7}, {true, false, true}},
      {{4, 3, 5, 9}, {false, true, false, true}},
      {{2, 1, 33}, {true, true, true}},
      {{130, 9}, {true, false}},
  };
  for (const auto& [extents, reduced] : cases) {
    const auto& shape = extents;  // CAPTURE cannot take a structured binding
    CAPTURE(to_string(shape));
    check_all_kinds<float>(rng, shape, reduced);
    check_all_kinds<float16>(rng, shape, reduced);
    check_all_kinds<bfloat16>(rng, shape, reduced);
    check_all_kinds<double>(rng, shape, reduced);
    check_all_kinds<std::int32_t>(rng, shape, reduced);
    check_all_kinds<std::int8_t>(rng, shape, reduced);
    check_all_kinds<std::uint8_t>(rng, shape, reduced);
    check_all_kinds<std::int64_t>(rng, shape, reduced);
    check_all_kinds<std::uint16_t>(rng, shape, reduced);
  }
}

TEST_CASE("Reductions: a large sum is the same on any number of threads") {
  // Above the default grain, so that the kernel itself splits the work.
  std::mt19937 rng(3);
  std::vector<float> in(300007);
  for (float& v : in) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  const Shape shape{static_cast<std::int64_t>(in.size())};
  const std::vector<std::int64_t> axes{0};
  float one = 0;
  reduce<ReduceSumKind>(Parallel(), in.data(), shape, axes, &one);
  double want = 0;
  for (float v : in) want += v;
  CHECK(std::fabs(one - want) < 1e-2);
  for (ThreadPool* pool : test_pools()) {
    float split = 0;
    reduce<ReduceSumKind>(Parallel(pool), in.data(), shape, axes, &split);
    CHECK(std::memcmp(&split, &one, sizeof one) == 0);
  }
}

TEST_CASE("Reductions: ReduceMin and ReduceMax carry integer bounds") {
  for (const char* type : {"ReduceMin", "ReduceMax"}) {
    CAPTURE(type);
    auto op = make_op(type, false, "opset1");
    const Tensor lower = ints(ElementType::i64, {3}, {1, 2, 3});
    const Tensor upper = ints(ElementType::i64, {3}, {4, 8, 9});
    const Tensor axes = axes_tensor({0});
    ValueInfo data{ElementType::i64, ps("[3]"), nullptr, &lower, &upper};
    const std::vector<ValueInfo> inputs{data, info(axes)};
    const OutputInfo out = op->infer(inputs)[0];
    const auto bounds = op->infer_bounds(inputs, out);
    REQUIRE(bounds);
    const bool min = std::string(type) == "ReduceMin";
    CHECK(integers(bounds->lower) == std::vector<std::int64_t>{min ? 1 : 3});
    CHECK(integers(bounds->upper) == std::vector<std::int64_t>{min ? 4 : 9});
    // Unknown axes: nothing known.
    const std::vector<ValueInfo> unknown{data, info(ElementType::i64, "[1]")};
    CHECK_FALSE(op->infer_bounds(unknown, out));
  }
  // A sum does not carry bounds (it may wrap).
  auto sum = make_op("ReduceSum", false, "opset1");
  const Tensor lower = ints(ElementType::i64, {2}, {1, 2});
  const Tensor axes = axes_tensor({0});
  ValueInfo data{ElementType::i64, ps("[2]"), nullptr, &lower, &lower};
  const std::vector<ValueInfo> inputs{data, info(axes)};
  CHECK_FALSE(sum->infer_bounds(inputs, sum->infer(inputs)[0]));
}

TEST_CASE("Reductions: end to end through a model") {
  OpTester t("ReduceMean", "opset1");
  t.attr("keep_dims", true);
  t.input_parameter("data",
                    tensor(ElementType::f32, {2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  t.input_const("axes", ints(ElementType::i64, {2}, {0, 2}));
  const std::vector<Tensor> out = t.run();
  REQUIRE(out.size() == 1);
  CHECK(out[0].shape() == Shape{1, 3, 1});
  CHECK(doubles(out[0]) == std::vector<double>{4.5, 6.5, 8.5});

  OpTester s("ReduceSum", "opset1");
  s.input_parameter("data", tensor(ElementType::i64, {4}, {1, 2, 3, 4}), ps("[?]"));
  s.input_const("axes", ints(ElementType::i32, {}, {0}));
  const std::vector<Tensor> sum = s.run();
  CHECK(sum[0].shape() == Shape{});
  CHECK(integers(sum[0]) == std::vector<std::int64_t>{10});
}

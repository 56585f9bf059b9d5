// The element-wise unary ops and Convert: registry entries, the shared shape rule, each kernel
// against a plain oracle on random inputs of several element types (NaN, infinities, -0 and
// ties among them), Convert between every pair of types, integer bounds, thread-count
// invariance and whole models.

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/attributes.hpp"
#include "graph/op.hpp"
#include "graph_builder.hpp"
#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "kernels/unary.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "ops/registry.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;

std::unique_ptr<const Op> make_op(const char* type, const char* opset, Attrs attrs = {}) {
  return op_def(type, opset).create(Attributes(std::move(attrs)));
}

constexpr ElementType kAllTypes[] = {
    ElementType::boolean, ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64,
    ElementType::i8,      ElementType::i16, ElementType::i32,  ElementType::i64, ElementType::u8,
    ElementType::u16,     ElementType::u32, ElementType::u64};

/// The floating-point values every float test includes: signed zeros, infinities, NaN, ties,
/// values near the integer types' limits.
const std::vector<double> kSpecial = {0.0,
                                      -0.0,
                                      0.5,
                                      -0.5,
                                      1.5,
                                      -1.5,
                                      2.5,
                                      -2.5,
                                      0.49999997,
                                      1.0,
                                      -1.0,
                                      3.7,
                                      -3.7,
                                      127.9,
                                      -128.9,
                                      255.5,
                                      256.0,
                                      -129.0,
                                      65535.0,
                                      65536.0,
                                      2147483520.0,
                                      2147483648.0,
                                      -2147483648.0,
                                      -2147483904.0,
                                      4294967296.0,
                                      9.2233720368547758e18,
                                      -9.2233720368547758e18,
                                      1.8446744073709552e19,
                                      3e19,
                                      1e30,
                                      -1e30,
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::quiet_NaN()};

/// `n` random elements of storage type T: for floats, values in [-20, 20] in steps of 1/8 and
/// (when `special`) the special values above; for integers, any value of the type.
template <class T>
std::vector<T> random_values(std::mt19937& rng, std::size_t n, bool special) {
  std::vector<T> v(n);
  using C = compute_t<T>;
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<C>) {
      if (special && i < kSpecial.size())
        v[i] = T(static_cast<C>(kSpecial[i]));
      else
        v[i] = T(static_cast<C>(std::uniform_int_distribution<int>(-160, 160)(rng)) / C(8));
    } else {
      v[i] = static_cast<T>(std::uniform_int_distribution<std::uint64_t>()(rng));
    }
  }
  return v;
}

/// Small integers, where the integer versions of the functions are not all 0 or overflowing.
template <class T>
std::vector<T> small_integers(std::mt19937& rng, std::size_t n) {
  std::vector<T> v(n);
  const int lo = std::is_signed_v<T> ? -30 : 0;
  for (T& x : v) x = static_cast<T>(std::uniform_int_distribution<int>(lo, 60)(rng));
  return v;
}

template <class T>
Tensor tensor_of(ElementType type, const std::vector<T>& v) {
  Tensor t(type, Shape{static_cast<std::int64_t>(v.size())});
  if (!v.empty()) std::memcpy(t.data(), v.data(), v.size() * sizeof(T));
  return t;
}

template <class T>
double as_double(T x) {
  return static_cast<double>(static_cast<compute_t<T>>(x));
}

/// Runs `op` on `in` and checks each element against oracle(x), which returns storage T.
template <class T, class Oracle>
void check_against(const Op& op, ElementType type, const std::vector<T>& in, Oracle oracle) {
  const Tensor out = run(op, {tensor_of(type, in)});
  REQUIRE(out.element_type() == type);
  REQUIRE(out.size() == in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const T want = oracle(in[i]);
    const T got = out.data<T>()[i];
    if (!same_value(got, want))
      FAIL(to_string(type) << " element " << i << " of " << in.size() << ": input "
                           << as_double(in[i]) << " gave " << as_double(got) << ", want "
                           << as_double(want));
  }
}

/// The conversion a C++ static_cast from a float compiles to on x86-64, written out: the
/// truncated value where it fits a 32-bit (for 8- to 32-bit signed and 8- and 16-bit unsigned
/// results) or a 64-bit signed integer (u32, i64), else that integer's lowest value, wrapped
/// to the result; u64 takes [2^63, 2^64) exactly too, and gives 0 above it.
template <class To>
To x86_float_to_int(double x) {
  const double t = std::trunc(x);
  const bool narrow = sizeof(To) < 4 || std::is_same_v<To, std::int32_t>;
  if (narrow) {
    const std::int32_t r = (std::isnan(t) || t < -2147483648.0 || t > 2147483647.0)
                               ? std::numeric_limits<std::int32_t>::min()
                               : static_cast<std::int32_t>(t);
    return static_cast<To>(r);
  }
  if (std::is_same_v<To, std::uint64_t> && t >= 9223372036854775808.0)
    return t < 18446744073709551616.0 ? static_cast<To>(t) : To(0);
  const std::int64_t r = (std::isnan(t) || t < -9223372036854775808.0 || t >= 9223372036854775808.0)
                             ? std::numeric_limits<std::int64_t>::min()
                             : static_cast<std::int64_t>(t);
  return static_cast<To>(r);
}

/// A plain oracle for a float-valued function on storage T: computed in the compute type,
/// rounded once to T; integers go through double and x86_float_to_int, after `round_ints`.
template <class T>
T through(T x, const std::function<double(double)>& f, bool round_ints) {
  using C = compute_t<T>;
  if constexpr (std::is_floating_point_v<C>) {
    return T(static_cast<C>(f(static_cast<double>(static_cast<C>(x)))));
  } else {
    const double r = f(static_cast<double>(x));
    return x86_float_to_int<T>(round_ints ? std::round(r) : r);
  }
}

/// Checks a table op on random values of every type it takes against `oracle`, given each
/// element's value in double (exact for the inputs used) and returning the exact result.
template <class OracleFactory>
void check_numeric_op(const char* type, const char* opset, bool integers, OracleFactory factory,
                      Attrs attrs = {}) {
  const auto op = make_op(type, opset, attrs);
  std::mt19937 rng(7);
  for (const ElementType et : kNumericTypes) {
    if (!integers && !is_real(et)) continue;
    CAPTURE(to_string(et));
    dispatch_numeric(et, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto oracle = factory(tag);
      for (const std::size_t n :
           {std::size_t{0}, std::size_t{1}, std::size_t{37}, std::size_t{1003}})
        check_against<T>(*op, et, random_values<T>(rng, n, true), oracle);
      if constexpr (std::is_integral_v<T>)
        check_against<T>(*op, et, small_integers<T>(rng, 301), oracle);
    });
  }
}

}  // namespace

// ---- Registry and shape rule ----

TEST_CASE("unary: registry entries") {
  struct Entry {
    const char* type;
    const char* opset;
    int version;
  };
  for (const Entry e :
       {Entry{"Relu", "opset1", 1}, Entry{"ReLU", "opset1", 1}, Entry{"Convert", "opset1", 1},
        Entry{"Sigmoid", "opset1", 1}, Entry{"Tanh", "opset1", 1}, Entry{"Exp", "opset1", 1},
        Entry{"Log", "opset1", 1}, Entry{"Sqrt", "opset1", 1}, Entry{"Abs", "opset1", 1},
        Entry{"Negative", "opset1", 1}, Entry{"Floor", "opset1", 1}, Entry{"Ceiling", "opset1", 1},
        Entry{"Round", "opset5", 5}, Entry{"Clamp", "opset1", 1}, Entry{"Erf", "opset1", 1},
        Entry{"Sin", "opset1", 1}, Entry{"Cos", "opset1", 1}, Entry{"SoftPlus", "opset4", 4},
        Entry{"HSwish", "opset4", 4}}) {
    CAPTURE(e.type);
    const OpDef& def = op_def(e.type, e.opset);
    CHECK(def.version == e.version);
    CHECK(def.min_inputs == 1);
    CHECK(def.max_inputs == 1);
    CHECK(def.num_outputs == 1);
    CHECK(&op_def(e.type, "opset16") == &def);
  }
  std::string why;
  CHECK(resolve_op("Round", "opset4", &why) == nullptr);
  CHECK(resolve_op("SoftPlus", "opset3", &why) == nullptr);
}

TEST_CASE("unary: the shape rule keeps the type and the shape, static or not") {
  for (const char* type : {"Relu", "Exp", "Floor", "Abs", "Negative", "Sigmoid", "Sqrt"}) {
    CAPTURE(type);
    const auto op = make_op(type, "opset1");
    CHECK(inferred(*op, {info(ElementType::f32, "[2,3,4]")}) == "f32 [2,3,4]");
    CHECK(inferred(*op, {info(ElementType::i64, "[?,3]")}) == "i64 [?,3]");
    CHECK(inferred(*op, {info(ElementType::f16, "[1..5,2..]")}) == "f16 [1..5,2..]");
    CHECK(inferred(*op, {info(ElementType::u8, "[...]")}) == "u8 [...]");
    CHECK(inferred(*op, {info(ElementType::bf16, "[]")}) == "bf16 []");
  }
  const auto round = make_op("Round", "opset5", {{"mode", "half_to_even"}});
  CHECK(inferred(*round, {info(ElementType::f64, "[0,?]")}) == "f64 [0,?]");
  const auto clamp = make_op("Clamp", "opset1", {{"min", "-1"}, {"max", "1"}});
  CHECK(inferred(*clamp, {info(ElementType::i8, "[...]")}) == "i8 [...]");
  const auto convert = make_op("Convert", "opset1", {{"destination_type", "f16"}});
  CHECK(inferred(*convert, {info(ElementType::boolean, "[2..3,?]")}) == "f16 [2..3,?]");
  CHECK(inferred(*convert, {info(ElementType::i64, "[...]")}) == "f16 [...]");
}

TEST_CASE("unary: element type errors") {
  for (const char* type : {"Relu", "Exp", "Floor", "Abs", "Negative", "Erf", "Tanh"}) {
    CAPTURE(type);
    const auto op = make_op(type, "opset1");
    const auto e =
        caught([&] { op->infer(std::vector<ValueInfo>{info(ElementType::boolean, "[2]")}); });
    REQUIRE(e);
    CHECK(e->code() == ErrorCode::shape);
    CHECK(std::string(e->what()).find("data must be a numeric tensor, got boolean") != std::string::npos);
  }
  for (const char* type : {"SoftPlus", "HSwish"}) {
    CAPTURE(type);
    const auto op = make_op(type, "opset4");
    CHECK(inferred(*op, {info(ElementType::bf16, "[2]")}) == "bf16 [2]");
    const auto e =
        caught([&] { op->infer(std::vector<ValueInfo>{info(ElementType::i32, "[2]")}); });
    REQUIRE(e);
    CHECK(std::string(e->what()).find("data must be a floating-point tensor, got i32") !=
          std::string::npos);
    // execute() refuses it too, before writing.
    const auto run_error = caught([&] { run(*op, {ints(ElementType::i32, {2}, {1, 2})}); });
    CHECK(run_error);
  }
  const auto convert = make_op("Convert", "opset1", {{"destination_type", "i32"}});
  CHECK(
      caught([&] { convert->infer(std::vector<ValueInfo>{info(ElementType::undefined, "[2]")}); }));
}

TEST_CASE("unary: attribute errors") {
  CHECK_THROWS_WITH_AS(make_op("Convert", "opset1"), doctest::Contains("destination_type"), Error);
  CHECK_THROWS_WITH_AS(make_op("Convert", "opset1", {{"destination_type", "f33"}}),
                       doctest::Contains("destination_type"), Error);
  CHECK_THROWS_WITH_AS(make_op("Round", "opset5"), doctest::Contains("mode"), Error);
  CHECK_THROWS_WITH_AS(make_op("Round", "opset5", {{"mode", "half_up"}}), doctest::Contains("mode"),
                       Error);
  CHECK_THROWS_WITH_AS(make_op("Clamp", "opset1", {{"min", "0"}}), doctest::Contains("'max'"),
                       Error);
  CHECK_THROWS_WITH_AS(make_op("Clamp", "opset1", {{"min", "1x"}, {"max", "2"}}),
                       doctest::Contains("attribute 'min' = '1x': not a number"), Error);
  CHECK_THROWS_WITH_AS(make_op("Clamp", "opset1", {{"min", "+-1"}, {"max", "2"}}),
                       doctest::Contains("not a number"), Error);
  CHECK_THROWS_WITH_AS(make_op("Clamp", "opset1", {{"min", "3"}, {"max", "2.5"}}),
                       doctest::Contains("'min' (3) must be less than or equal to 'max' (2.5)"),
                       Error);
  CHECK_THROWS_WITH_AS(make_op("Clamp", "opset1", {{"min", "nan"}, {"max", "2"}}),
                       doctest::Contains("must be less than or equal"), Error);
  // Infinite and equal bounds are fine; '+' and blanks are accepted as for integers.
  CHECK(make_op("Clamp", "opset1", {{"min", "-inf"}, {"max", " +1e3 "}})->attributes() ==
        Attrs{{"min", "-inf"}, {"max", "1000"}});
  CHECK(make_op("Clamp", "opset1", {{"min", "0.2"}, {"max", "0.2"}})->attributes() ==
        Attrs{{"min", "0.2"}, {"max", "0.2"}});
  CHECK(make_op("Round", "opset5", {{"mode", "HALF_AWAY_FROM_ZERO"}})->attributes() ==
        Attrs{{"mode", "half_away_from_zero"}});
  CHECK(make_op("Convert", "opset1", {{"destination_type", "FP16"}})->attributes() ==
        Attrs{{"destination_type", "f16"}});
}

// ---- Kernels against plain oracles ----

TEST_CASE("Relu, Abs, Negative, Floor, Ceiling against oracles") {
  check_numeric_op("Relu", "opset1", true, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x) {
      const double v = as_double(x);
      if constexpr (is_float_storage_v<T>)
        return v > 0 ? x : T(compute_t<T>(0));  // NaN and -0 give +0
      else
        return v > 0 ? x : T(0);
    };
  });
  check_numeric_op("Abs", "opset1", true, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x) -> T {
      if constexpr (is_float_storage_v<T>) {
        return T(static_cast<compute_t<T>>(std::fabs(as_double(x))));
      } else if constexpr (std::is_signed_v<T>) {
        if (x == std::numeric_limits<T>::min()) return x;  // wraps
        return x < 0 ? static_cast<T>(-x) : x;
      } else {
        return x;
      }
    };
  });
  check_numeric_op("Negative", "opset1", true, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x) -> T {
      if constexpr (is_float_storage_v<T>) {
        return T(static_cast<compute_t<T>>(-as_double(x)));
      } else {
        // Modulo 2^N.
        const auto u = static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
        return static_cast<T>(~u + 1);
      }
    };
  });
  for (const bool floor : {true, false}) {
    check_numeric_op(floor ? "Floor" : "Ceiling", "opset1", true, [floor](auto tag) {
      using T = typename decltype(tag)::type;
      return [=](T x) -> T {  // floor is unused for integers
        if constexpr (is_float_storage_v<T>)
          return T(static_cast<compute_t<T>>(floor ? std::floor(as_double(x))
                                                   : std::ceil(as_double(x))));
        else
          return x;
      };
    });
  }
}

TEST_CASE("Relu, Abs, Negative, Floor and Ceiling: signed zeros and NaN") {
  const Tensor in = tensor(ElementType::f32, {4}, {-0.0, 0.0, -0.25, NAN});
  const auto bits = [](const Tensor& t) {
    std::vector<bool> neg;
    for (const float v : t.values<float>()) neg.push_back(std::signbit(v));
    return neg;
  };
  const Tensor relu = run(*make_op("Relu", "opset1"), {in});
  CHECK(bits(relu) == std::vector<bool>{false, false, false, false});
  CHECK(doubles(relu) == std::vector<double>{0, 0, 0, 0});  // NaN is not above 0
  const Tensor abs = run(*make_op("Abs", "opset1"), {in});
  CHECK(bits(abs) == std::vector<bool>{false, false, false, false});
  CHECK(std::isnan(abs.data<float>()[3]));
  const Tensor neg = run(*make_op("Negative", "opset1"), {in});
  CHECK(bits(neg) == std::vector<bool>{false, true, false, true});
  const Tensor ceil = run(*make_op("Ceiling", "opset1"), {in});
  CHECK(bits(ceil) == std::vector<bool>{true, false, true, false});
  CHECK(doubles(ceil)[2] == 0.0);
}

TEST_CASE("Sigmoid, Tanh, Exp, Log, Sqrt, Erf, Sin, Cos against oracles") {
  struct Case {
    const char* type;
    double (*f)(double);
    bool round_ints;
  };
  const Case cases[] = {
      {"Tanh", [](double v) { return std::tanh(v); }, true},
      {"Exp", [](double v) { return std::exp(v); }, false},
      {"Log", [](double v) { return std::log(v); }, false},
      {"Sqrt", [](double v) { return std::sqrt(v); }, true},
      {"Erf", [](double v) { return std::erf(v); }, true},
      {"Sin", [](double v) { return std::sin(v); }, false},
      {"Cos", [](double v) { return std::cos(v); }, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.type);
    check_numeric_op(c.type, "opset1", true, [&c](auto tag) {
      using T = typename decltype(tag)::type;
      return [&c](T x) {
        using C = compute_t<T>;
        if constexpr (std::is_same_v<C, float>) {
          // The kernels call the float functions for float: so does the oracle.
          float r = 0;
          const float v = static_cast<float>(x);
          if (std::string(c.type) == "Tanh") r = std::tanh(v);
          if (std::string(c.type) == "Exp") r = std::exp(v);
          if (std::string(c.type) == "Log") r = std::log(v);
          if (std::string(c.type) == "Sqrt") r = std::sqrt(v);
          if (std::string(c.type) == "Erf") r = std::erf(v);
          if (std::string(c.type) == "Sin") r = std::sin(v);
          if (std::string(c.type) == "Cos") r = std::cos(v);
          return T(r);
        } else {
          return through<T>(x, c.f, c.round_ints);
        }
      };
    });
  }
  check_numeric_op("Sigmoid", "opset1", true, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x) -> T {
      using C = compute_t<T>;
      if constexpr (std::is_floating_point_v<C>) {
        const C v = static_cast<C>(x);
        return T(C(1) / (C(1) + std::exp(-v)));
      } else {
        // 1 / (1 + exp(-x)) in integers, an unsigned x read as signed.
        return static_cast<std::make_signed_t<T>>(x) > 0 ? T(1) : T(0);
      }
    };
  });
}

TEST_CASE("integer inputs of the float functions") {
  const Tensor in = ints(ElementType::i32, {7}, {-3, -1, 0, 1, 2, 4, 30});
  CHECK(integers(run(*make_op("Sigmoid", "opset1"), {in})) ==
        std::vector<std::int64_t>{0, 0, 0, 1, 1, 1, 1});
  CHECK(integers(run(*make_op("Tanh", "opset1"), {in})) ==
        std::vector<std::int64_t>{-1, -1, 0, 1, 1, 1, 1});
  // Truncated: exp(2) = 7.39; exp(30) overflows i32 (the lowest value, as a cast gives on x86).
  CHECK(integers(run(*make_op("Exp", "opset1"), {in})) ==
        std::vector<std::int64_t>{0, 0, 1, 2, 7, 54, std::numeric_limits<std::int32_t>::min()});
  // Rounded: sqrt(2) = 1.41 -> 1, sqrt(30) = 5.48 -> 5; the square root of a negative is NaN.
  CHECK(integers(run(*make_op("Sqrt", "opset1"), {in})) ==
        std::vector<std::int64_t>{INT32_MIN, INT32_MIN, 0, 1, 1, 2, 5});
  // Sin truncates (sin(2) = 0.91 -> 0), Cos rounds (cos(1) = 0.54 -> 1), as the reference.
  CHECK(integers(run(*make_op("Sin", "opset1"), {in})) ==
        std::vector<std::int64_t>{0, 0, 0, 0, 0, 0, 0});
  CHECK(integers(run(*make_op("Cos", "opset1"), {in})) ==
        std::vector<std::int64_t>{-1, 1, 1, 1, 0, -1, 0});
  CHECK(integers(run(*make_op("Log", "opset1"), {ints(ElementType::i64, {3}, {1, 3, 1000})})) ==
        std::vector<std::int64_t>{0, 1, 6});
}

TEST_CASE("SoftPlus and HSwish against oracles") {
  const auto op = make_op("SoftPlus", "opset4");
  std::mt19937 rng(3);
  dispatch_numeric(ElementType::f32, [&](auto) {
    std::vector<float> in = random_values<float>(rng, 500, true);
    in.push_back(88.0f);
    in.push_back(89.0f);
    check_against<float>(*op, ElementType::f32, in, [](float x) {
      return x < std::log(std::numeric_limits<float>::max()) ? std::log(std::exp(x) + 1.0f) : x;
    });
  });
  {
    std::vector<float16> in = random_values<float16>(rng, 300, true);
    in.push_back(float16(11.0f));
    in.push_back(float16(11.5f));
    check_against<float16>(*op, ElementType::f16, in, [](float16 x) {
      const float v = x;
      const float threshold = float16(std::log(65504.0f));
      return float16(v < threshold ? std::log(std::exp(v) + 1.0f) : v);
    });
  }
  {
    const std::vector<double> in = random_values<double>(rng, 300, true);
    check_against<double>(*op, ElementType::f64, in, [](double x) {
      return x < std::log(std::numeric_limits<double>::max()) ? std::log(std::exp(x) + 1.0) : x;
    });
  }
  const auto hswish = make_op("HSwish", "opset4");
  // x * min(max(x + 3, 0), 6) / 6, in float for f32 and the 16-bit floats.
  const auto oracle = [](float x) { return x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; };
  check_against<float>(*hswish, ElementType::f32, random_values<float>(rng, 777, true), oracle);
  check_against<bfloat16>(*hswish, ElementType::bf16, random_values<bfloat16>(rng, 333, true),
                          [&](bfloat16 x) { return bfloat16(oracle(x)); });
}

TEST_CASE("Round-5: ties to even or away from zero") {
  const auto even = make_op("Round", "opset5", {{"mode", "half_to_even"}});
  const auto away = make_op("Round", "opset5", {{"mode", "half_away_from_zero"}});
  const std::vector<double> in = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 2.6, -2.4, 1e30};
  for (const ElementType et : {ElementType::f32, ElementType::f64, ElementType::f16}) {
    CAPTURE(to_string(et));
    const Tensor t = tensor(et, {10}, in);
    const std::vector<double> v = doubles(t);  // the inputs as the type holds them
    std::vector<double> want_even, want_away;
    for (const double x : v) {
      want_even.push_back(std::nearbyint(x));
      want_away.push_back(std::round(x));
    }
    CHECK(doubles(run(*even, {t})) == want_even);
    CHECK(doubles(run(*away, {t})) == want_away);
  }
  CHECK(doubles(run(*even, {tensor(ElementType::f32, {6}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5})})) ==
        std::vector<double>{0, 2, 2, -0.0, -2, -2});
  CHECK(doubles(run(*away, {tensor(ElementType::f32, {6}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5})})) ==
        std::vector<double>{1, 2, 3, -1, -2, -3});
  // -0.4 rounds to -0; NaN and infinities stay.
  const Tensor special = run(*even, {tensor(ElementType::f32, {3}, {-0.4, NAN, -INFINITY})});
  CHECK(std::signbit(special.data<float>()[0]));
  CHECK(std::isnan(special.data<float>()[1]));
  CHECK(special.data<float>()[2] == -INFINITY);
  for (const bool to_even : {true, false}) {
    check_numeric_op(
        "Round", "opset5", true,
        [to_even](auto tag) {
          using T = typename decltype(tag)::type;
          return [=](T x) -> T {  // to_even is unused for integers
            if constexpr (is_float_storage_v<T>) {
              const double v = as_double(x);
              return T(static_cast<compute_t<T>>(to_even ? std::nearbyint(v) : std::round(v)));
            } else {
              return x;  // integers are kept
            }
          };
        },
        {{"mode", to_even ? "half_to_even" : "half_away_from_zero"}});
  }
}

TEST_CASE("Clamp-1: bounds converted to the type, NaN kept") {
  {
    const auto op = make_op("Clamp", "opset1", {{"min", "-1.5"}, {"max", "2.7"}});
    // Integers: min rounded up to -1, max down to 2.
    CHECK(integers(run(*op, {ints(ElementType::i32, {6}, {-5, -2, -1, 0, 2, 3})})) ==
          std::vector<std::int64_t>{-1, -1, -1, 0, 2, 2});
    // Unsigned: min limited to the type's 0.
    CHECK(doubles(run(*op, {tensor(ElementType::u8, {4}, {0, 1, 3, 255})})) ==
          std::vector<double>{0, 1, 2, 2});
    const Tensor f = run(*op, {tensor(ElementType::f32, {5}, {-3, -1.5, 0.25, 9, NAN})});
    CHECK(doubles(f)[0] == -1.5);
    CHECK(doubles(f)[3] == 2.7f);
    CHECK(std::isnan(doubles(f)[4]));
  }
  {
    // Bounds beyond the type's range are limited to it.
    const auto op = make_op("Clamp", "opset1", {{"min", "-1e30"}, {"max", "1e30"}});
    CHECK(integers(run(*op, {ints(ElementType::i64, {2}, {INT64_MIN, INT64_MAX})})) ==
          std::vector<std::int64_t>{INT64_MIN, INT64_MAX});
    // In f16 the bounds round to infinity: nothing changes.
    CHECK(doubles(run(*op, {tensor(ElementType::f16, {2}, {-65504, 65504})})) ==
          std::vector<double>{-65504, 65504});
  }
  {
    // min 0.5 and max 0.7 become 1 and 0 for integers: below 1 gives 1, else above 0 gives 0,
    // as OpenVINO's reference compares.
    const auto op = make_op("Clamp", "opset1", {{"min", "0.5"}, {"max", "0.7"}});
    CHECK(integers(run(*op, {ints(ElementType::i64, {3}, {-4, 0, 5})})) ==
          std::vector<std::int64_t>{1, 1, 0});
  }
  {
    // f16 bounds are the attribute rounded to f16 (0.1 -> 0.0999755859375).
    const auto op = make_op("Clamp", "opset1", {{"min", "0.1"}, {"max", "0.2"}});
    const Tensor h = run(*op, {tensor(ElementType::f16, {3}, {0, 0.15, 1})});
    CHECK(doubles(h) == std::vector<double>{static_cast<float>(float16(0.1f)),
                                            static_cast<float>(float16(0.15f)),
                                            static_cast<float>(float16(0.2f))});
  }
  check_numeric_op("Clamp", "opset1", true,
                   [](auto tag) {
                     using T = typename decltype(tag)::type;
                     return [](T x) -> T {
                       if constexpr (is_float_storage_v<T>) {
                         using C = compute_t<T>;
                         const C lo = static_cast<C>(T(static_cast<C>(-3.25)));
                         const C v = static_cast<C>(x);
                         return v < lo ? T(lo) : v > C(7) ? T(C(7)) : x;
                       } else {
                         const double v = as_double(x);
                         const double lo = std::is_signed_v<T> ? -3 : 0;
                         return v < lo ? static_cast<T>(lo) : v > 7 ? T(7) : x;
                       }
                     };
                   },
                   {{"min", "-3.25"}, {"max", "7"}});
}

// ---- Convert ----

namespace {

/// Storage of a test element: T, or std::uint8_t for boolean (flagged apart).
template <class T>
double value_of(T x, bool boolean) {
  if (boolean) return x != T(0) ? 1.0 : 0.0;
  return as_double(x);
}

/// The oracle of one conversion, written from the rules rather than from the kernel: `x` is
/// the source element (its storage), `from_bool` / `to_bool` flag the boolean type.
template <class From, class To>
To expected_convert(From x, bool from_bool, bool to_bool) {
  if (from_bool) {
    const bool b = x != From(0);
    if (to_bool) return To(b ? 1 : 0);
    if constexpr (is_float_storage_v<To>)
      return To(b ? 1.0f : 0.0f);
    else
      return static_cast<To>(b ? 1 : 0);
  }
  if (to_bool) {
    const double v = as_double(x);
    return To(v != 0.0 || std::isnan(v) ? 1 : 0);
  }
  if constexpr (std::is_same_v<To, float16> || std::is_same_v<To, bfloat16>) {
    // Through float, as OpenVINO builds its 16-bit floats.
    if constexpr (is_float_storage_v<From>)
      return To(static_cast<float>(static_cast<compute_t<From>>(x)));
    else
      return To(static_cast<float>(x));
  } else if constexpr (std::is_floating_point_v<To>) {
    if constexpr (is_float_storage_v<From>)
      return static_cast<To>(static_cast<compute_t<From>>(x));
    else
      return static_cast<To>(x);
  } else if constexpr (is_float_storage_v<From>) {
    return x86_float_to_int<To>(as_double(x));
  } else {
    // Integers: the value modulo 2^N (two's complement).
    return static_cast<To>(static_cast<std::uint64_t>(x));
  }
}

/// Calls f(type_tag<T>{}) with the test's storage of any element type (u8 for boolean).
template <class F>
void dispatch_test(ElementType type, F&& f) {
  if (type == ElementType::boolean)
    f(type_tag<std::uint8_t>{});
  else
    REQUIRE(dispatch_numeric(type, f));
}

template <class T>
std::vector<T> convert_inputs(std::mt19937& rng, bool boolean) {
  if (boolean) {
    std::vector<T> v = {T(0), T(1), T(2), T(255), T(0), T(1)};  // any non-zero byte is true
    return v;
  }
  std::vector<T> v = random_values<T>(rng, 200, true);
  if constexpr (std::is_integral_v<T>) {
    const std::vector<T> small = small_integers<T>(rng, 50);
    v.insert(v.end(), small.begin(), small.end());
    v.push_back(std::numeric_limits<T>::min());
    v.push_back(std::numeric_limits<T>::max());
  } else {
    // Above the 16-bit floats' rounding limits and ties of theirs.
    for (const float f : {65519.0f, 65520.0f, 1.00048828125f, 1.00146484375f, 1.00390625f,
                          1.01171875f, 5.9604645e-8f, 3e38f, -3.4e38f})
      v.push_back(T(static_cast<compute_t<T>>(f)));
  }
  return v;
}

}  // namespace

TEST_CASE("Convert-1: every pair of element types against the oracle") {
  std::mt19937 rng(11);
  for (const ElementType from : kAllTypes) {
    for (const ElementType to : kAllTypes) {
      CAPTURE(to_string(from));
      CAPTURE(to_string(to));
      const auto op =
          make_op("Convert", "opset1", {{"destination_type", std::string(to_string(to))}});
      dispatch_test(from, [&](auto from_tag) {
        using From = typename decltype(from_tag)::type;
        const bool from_bool = from == ElementType::boolean;
        const std::vector<From> in = convert_inputs<From>(rng, from_bool);
        const Tensor out = run(*op, {tensor_of(from, in)});
        REQUIRE(out.element_type() == to);
        REQUIRE(out.size() == in.size());
        dispatch_test(to, [&](auto to_tag) {
          using To = typename decltype(to_tag)::type;
          const bool to_bool = to == ElementType::boolean;
          for (std::size_t i = 0; i < in.size(); ++i) {
            To want = from == to && !from_bool ? static_cast<To>(in[i]) : To{};
            if (from != to || from_bool)
              want = expected_convert<From, To>(in[i], from_bool, to_bool);
            const To got = out.data<To>()[i];
            const bool both_nan =
                is_float_storage_v<To> && std::isnan(as_double(got)) && std::isnan(as_double(want));
            if (!both_nan && std::memcmp(&got, &want, sizeof(To)) != 0)
              FAIL("element " << i << ": input " << value_of(in[i], from_bool) << " gave "
                              << value_of(got, to_bool) << ", want " << value_of(want, to_bool));
          }
        });
      });
    }
  }
}

TEST_CASE("Convert-1: the decided cases, spelled out") {
  const auto to = [](ElementType type) {
    return make_op("Convert", "opset1", {{"destination_type", std::string(to_string(type))}});
  };
  const Tensor f = tensor(ElementType::f32, {8}, {2.9, -2.9, 300, -1, NAN, 3e9, -0.0, 1e20});
  // Truncation toward zero; out of range and NaN as x86-64 converts (through 32 bits for i8).
  CHECK(integers(run(*to(ElementType::i32), {f})) ==
        std::vector<std::int64_t>{2, -2, 300, -1, INT32_MIN, INT32_MIN, 0, INT32_MIN});
  CHECK(doubles(run(*to(ElementType::u8), {f})) ==
        std::vector<double>{2, 254, 44, 255, 0, 0, 0, 0});
  CHECK(integers(run(*to(ElementType::i64), {f})) ==
        std::vector<std::int64_t>{2, -2, 300, -1, INT64_MIN, 3000000000, 0, INT64_MIN});
  const Tensor u64 = run(*to(ElementType::u64), {f});
  CHECK(u64.data<std::uint64_t>()[3] == UINT64_MAX);
  CHECK(u64.data<std::uint64_t>()[4] == std::uint64_t{1} << 63);
  CHECK(u64.data<std::uint64_t>()[5] == 3000000000u);
  CHECK(u64.data<std::uint64_t>()[7] == 0);  // 1e20 is beyond 2^64
  // Booleans: non-zero (NaN included) is true, -0 is false.
  CHECK(doubles(run(*to(ElementType::f32), {run(*to(ElementType::boolean), {f})})) ==
        std::vector<double>{1, 1, 1, 1, 1, 1, 0, 1});
  // Integers wrap.
  CHECK(doubles(run(*to(ElementType::u8), {ints(ElementType::i32, {3}, {257, -1, -256})})) ==
        std::vector<double>{1, 255, 0});
  // f32 to f16 and bf16: nearest, ties to even; beyond f16's range, infinity.
  const Tensor h =
      run(*to(ElementType::f16),
          {tensor(ElementType::f32, {5}, {65519, 65520, 1.00048828125, 1.00146484375, -1e10})});
  CHECK(doubles(h) == std::vector<double>{65504, INFINITY, 1, 1.001953125, -INFINITY});
  const Tensor b = run(*to(ElementType::bf16),
                       {tensor(ElementType::f32, {3}, {1.00390625, 1.01171875, 3.4e38})});
  CHECK(doubles(b) == std::vector<double>{1, 1.015625, static_cast<float>(bfloat16(3.4e38f))});
  // f64 to f16 goes through float, as in OpenVINO: 1 + 2^-11 + 2^-40 rounds to float's
  // 1 + 2^-11, a tie in f16, which goes to even (1) rather than up.
  const Tensor d =
      tensor(ElementType::f64, {1}, {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)});
  CHECK(doubles(run(*to(ElementType::f16), {d})) == std::vector<double>{1.0});
}

TEST_CASE("Convert-1: the same type keeps the bits") {
  const auto op = make_op("Convert", "opset1", {{"destination_type", "f16"}});
  Tensor in(ElementType::f16, Shape{2});
  in.data<float16>()[0] = float16::from_bits(0x7d01);  // a signalling NaN's payload
  in.data<float16>()[1] = float16::from_bits(0x8000);
  const Tensor out = run(*op, {in});
  CHECK(out.data<float16>()[0].bits == 0x7d01);
  CHECK(out.data<float16>()[1].bits == 0x8000);
}

// ---- Bounds ----

TEST_CASE("unary: integer bounds through monotonic ops and Convert") {
  const Tensor lower = ints(ElementType::i64, {3}, {-5, 2, 0});
  const Tensor upper =
      ints(ElementType::i64, {3}, {3, 9, std::numeric_limits<std::int64_t>::max()});
  ValueInfo in{ElementType::i64, ps("[3]"), nullptr, &lower, &upper};
  const OutputInfo out_i64{ElementType::i64, ps("[3]")};

  const auto relu = make_op("Relu", "opset1");
  auto b = relu->infer_bounds(std::vector<ValueInfo>{in}, out_i64);
  REQUIRE(b);
  CHECK(integers(b->lower) == std::vector<std::int64_t>{0, 2, 0});
  CHECK(integers(b->upper) == std::vector<std::int64_t>{3, 9, INT64_MAX});

  const auto clamp = make_op("Clamp", "opset1", {{"min", "1"}, {"max", "4.5"}});
  b = clamp->infer_bounds(std::vector<ValueInfo>{in}, out_i64);
  REQUIRE(b);
  CHECK(integers(b->lower) == std::vector<std::int64_t>{1, 2, 1});
  CHECK(integers(b->upper) == std::vector<std::int64_t>{3, 4, 4});

  for (const char* type : {"Floor", "Ceiling"}) {
    b = make_op(type, "opset1")->infer_bounds(std::vector<ValueInfo>{in}, out_i64);
    REQUIRE(b);
    CHECK(integers(b->upper) == integers(upper));
  }
  // Not monotonic: nothing known.
  CHECK_FALSE(make_op("Abs", "opset1")->infer_bounds(std::vector<ValueInfo>{in}, out_i64));
  CHECK_FALSE(make_op("Negative", "opset1")->infer_bounds(std::vector<ValueInfo>{in}, out_i64));

  const auto to_i32 = make_op("Convert", "opset1", {{"destination_type", "i32"}});
  const OutputInfo out_i32{ElementType::i32, ps("[3]")};
  b = to_i32->infer_bounds(std::vector<ValueInfo>{in}, out_i32);
  REQUIRE(b);
  CHECK(integers(b->lower) == std::vector<std::int64_t>{-5, 2, 0});
  // The unbounded i64 upper bound stays unbounded: i32's largest value.
  CHECK(integers(b->upper) == std::vector<std::int64_t>{3, 9, INT32_MAX});
  // A negative lower bound would wrap in u8: nothing known.
  const auto to_u8 = make_op("Convert", "opset1", {{"destination_type", "u8"}});
  CHECK_FALSE(to_u8->infer_bounds(std::vector<ValueInfo>{in}, {ElementType::u8, ps("[3]")}));
  // A finite upper bound beyond the type would wrap too.
  const Tensor big = ints(ElementType::i64, {3}, {3, 9, std::int64_t{1} << 40});
  CHECK_FALSE(to_i32->infer_bounds(
      std::vector<ValueInfo>{{ElementType::i64, ps("[3]"), nullptr, &lower, &big}}, out_i32));
  // A known value converts as is.
  const Tensor value = ints(ElementType::i64, {3}, {1, 2, 3});
  b = to_i32->infer_bounds(std::vector<ValueInfo>{info(value)}, out_i32);
  REQUIRE(b);
  CHECK(integers(b->upper) == std::vector<std::int64_t>{1, 2, 3});
}

// ---- Threads ----

TEST_CASE("unary: the same bits on any number of threads") {
  std::mt19937 rng(5);
  const std::size_t n = 300007;
  struct Case {
    const char* type;
    const char* opset;
    Attrs attrs;
    ElementType input;
  };
  const std::vector<Case> cases = {
      {"Relu", "opset1", {}, ElementType::f32},
      {"Exp", "opset1", {}, ElementType::f16},
      {"Negative", "opset1", {}, ElementType::i32},
      {"Round", "opset5", {{"mode", "half_to_even"}}, ElementType::f64},
      {"Clamp", "opset1", {{"min", "-2"}, {"max", "3"}}, ElementType::bf16},
      {"Convert", "opset1", {{"destination_type", "f16"}}, ElementType::f32},
      {"Convert", "opset1", {{"destination_type", "i32"}}, ElementType::i64},
      {"Convert", "opset1", {{"destination_type", "u8"}}, ElementType::f32},
  };
  for (const Case& c : cases) {
    CAPTURE(c.type);
    CAPTURE(to_string(c.input));
    const auto op = make_op(c.type, c.opset, c.attrs);
    Tensor in;
    dispatch_numeric(c.input, [&](auto tag) {
      using T = typename decltype(tag)::type;
      in = tensor_of(c.input, random_values<T>(rng, n, true));
    });
    const std::vector<Tensor> inputs{in};
    const std::vector<OutputInfo> outs = infer_at_run_time(*op, inputs, 1);
    const Tensor one = allocate_and_execute(*op, inputs, outs)[0];
    for (ThreadPool* pool : test_pools()) {
      const Tensor many = allocate_and_execute(*op, inputs, outs, ExecContext{Parallel(pool)})[0];
      CHECK_MESSAGE(std::memcmp(one.data(), many.data(), one.byte_size()) == 0,
                    pool->size() << " threads differ from one");
    }
  }
}

// ---- Whole models ----

TEST_CASE("unary: ReLU and Relu load and run") {
  for (const char* spelling : {"ReLU", "Relu", "relu"}) {
    CAPTURE(spelling);
    OpTester t(spelling, "opset1");
    t.input_parameter("data", tensor(ElementType::f32, {2, 3}, {-1, 2, -0.5, 0, 3.5, NAN}));
    const std::vector<Tensor> out = t.run();
    REQUIRE(out.size() == 1);
    CHECK(out[0].shape() == Shape{2, 3});
    CHECK(doubles(out[0]) == std::vector<double>{0, 2, 0, 0, 3.5, 0});
  }
}

TEST_CASE("unary: a chain of Convert, Relu, Clamp and Round with a dynamic input") {
  GraphBuilder g;
  const auto data = g.parameter("data", ElementType::f32, ps("?,3"));
  const auto round = g.layer("Round", "opset5", {{"mode", "half_away_from_zero"}}, {data},
                             {ElementType::f32}, "round");
  const auto convert = g.layer("Convert", "opset1", {{"destination_type", "i32"}}, {round[0]},
                               {ElementType::i32}, "convert");
  const auto relu = g.layer("ReLU", "opset1", {}, {convert[0]}, {ElementType::i32}, "relu");
  const auto clamp = g.layer("Clamp", "opset1", {{"min", "0"}, {"max", "4"}}, {relu[0]},
                             {ElementType::i32}, "clamp");
  const auto to_f16 = g.layer("Convert", "opset1", {{"destination_type", "f16"}}, {clamp[0]},
                              {ElementType::f16}, "to_f16");
  g.result(to_f16[0], "out");
  const Model m = g.load();
  CHECK(m.outputs()[0].element_type == ElementType::f16);
  CHECK(m.outputs()[0].shape == ps("?,3"));
  Session s(m);
  const auto out =
      s.run({{"data", tensor(ElementType::f32, {2, 3}, {-2.5, 0.5, 1.5, 2.5, 3.49, 9})}});
  CHECK(out.at("out").element_type() == ElementType::f16);
  CHECK(out.at("out").shape() == Shape{2, 3});
  CHECK(doubles(out.at("out")) == std::vector<double>{0, 1, 2, 3, 3, 4});
}

TEST_CASE("unary: a Convert of a Const is folded at load and gives TopK its k") {
  GraphBuilder g;
  const auto data = g.parameter("data", ElementType::f32, ps("2,8"));
  const auto kf = g.constant("kf", tensor(ElementType::f32, {}, {3.9}));
  const auto k =
      g.layer("Convert", "opset1", {{"destination_type", "i64"}}, {kf}, {ElementType::i64}, "k");
  const auto topk = g.layer("TopK", "opset11", {{"axis", "1"}, {"mode", "max"}, {"sort", "value"}},
                            {data, k[0]}, {ElementType::f32, ElementType::i32}, "topk");
  g.result(topk[0], "values");
  g.result(topk[1], "indices");
  const Model m = g.load();
  CHECK(m.outputs()[0].shape == ps("2,3"));
  CHECK_FALSE(m.is_dynamic());
}

TEST_CASE("unary kernels: the branch-free f16 conversions match float16's") {
  // Every f16 bit pattern widens to float16::to_float's bits.
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float want = float16::to_float(static_cast<std::uint16_t>(h));
    const float got = half_to_float(static_cast<std::uint16_t>(h));
    if (std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(want))
      FAIL("f16 bits " << h << ": got " << got << ", want " << want);
  }
  // Floats across the whole bit range (every 251st pattern, and every pattern around the
  // subnormal, normal and overflow boundaries) narrow to float16::from_float's bits.
  const auto check = [](std::uint32_t u) {
    const float f = std::bit_cast<float>(u);
    const std::uint16_t want = float16::from_float(f);
    const std::uint16_t got = float_to_half(f);
    if (got != want) FAIL("float bits " << u << " (" << f << "): got " << got << ", want " << want);
  };
  for (std::uint64_t u = 0; u <= 0xffffffffu; u += 251) check(static_cast<std::uint32_t>(u));
  for (const std::uint32_t center :
       {0x33000000u, 0x38800000u, 0x477fe000u, 0x477ff000u, 0x47800000u, 0x7f800000u}) {
    for (std::uint32_t d = 0; d < 0x4000; ++d) {
      check(center + d - 0x2000);
      check((center + d - 0x2000) | 0x80000000u);
    }
  }
}

TEST_CASE("Gelu-2 and Gelu-7 against oracles") {
  CHECK(op_def("Gelu", "opset2").version == 2);
  CHECK(op_def("Gelu", "opset6").version == 2);
  CHECK(op_def("Gelu", "opset7").version == 7);
  CHECK(make_op("Gelu", "opset7")->attributes() == Attrs{{"approximation_mode", "erf"}});
  CHECK(make_op("Gelu", "opset7", {{"approximation_mode", "TANH"}})->attributes() ==
        Attrs{{"approximation_mode", "tanh"}});
  CHECK_THROWS_WITH_AS(make_op("Gelu", "opset7", {{"approximation_mode", "fast"}}),
                       doctest::Contains("approximation_mode"), Error);
  const auto bad = caught([&] {
    make_op("Gelu", "opset7")->infer(std::vector<ValueInfo>{info(ElementType::i32, "[2]")});
  });
  REQUIRE(bad);
  CHECK(std::string(bad->what()).find("floating-point") != std::string::npos);

  const double pi = 3.14159265358979323846;
  const auto erf_gelu = [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); };
  const auto tanh_gelu = [pi](double x) {
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * std::pow(x, 3.0))));
  };
  std::mt19937 rng(9);
  for (const bool tanh : {false, true}) {
    CAPTURE(tanh);
    const auto op = make_op("Gelu", "opset7", {{"approximation_mode", tanh ? "tanh" : "erf"}});
    const auto f = [&](double x) { return tanh ? tanh_gelu(x) : erf_gelu(x); };
    check_against<float>(*op, ElementType::f32, random_values<float>(rng, 501, true),
                         [&](float x) { return static_cast<float>(f(x)); });
    check_against<double>(*op, ElementType::f64, random_values<double>(rng, 501, true), f);
    check_against<float16>(*op, ElementType::f16, random_values<float16>(rng, 301, true),
                           [&](float16 x) { return float16(static_cast<float>(f(x))); });
  }
  // Known values: Gelu(1) = 0.8413447460685429, Gelu(-1) = -0.15865525393145707.
  const Tensor out = run(*make_op("Gelu", "opset2"), {tensor(ElementType::f64, {2}, {1.0, -1.0})});
  CHECK(doubles(out)[0] == doctest::Approx(0.8413447460685429).epsilon(1e-15));
  CHECK(doubles(out)[1] == doctest::Approx(-0.15865525393145707).epsilon(1e-15));
}

TEST_CASE("Swish-4: beta optional, a scalar of the data's type") {
  const OpDef& def = op_def("Swish", "opset4");
  CHECK(def.min_inputs == 1);
  CHECK(def.max_inputs == 2);
  const auto op = make_op("Swish", "opset4");
  CHECK(inferred(*op, {info(ElementType::f32, "[?,2..4]")}) == "f32 [?,2..4]");
  CHECK(inferred(*op, {info(ElementType::f16, "[...]"), info(ElementType::f16, "[...]")}) ==
        "f16 [...]");
  const auto message = [&](std::vector<ValueInfo> inputs) {
    const auto e = caught([&] { op->infer(inputs); });
    REQUIRE(e);
    return std::string(e->what());
  };
  CHECK(message({info(ElementType::i32, "[2]")}).find("floating-point") != std::string::npos);
  CHECK(message({info(ElementType::f32, "[2]"), info(ElementType::f16, "[]")})
            .find("beta must have the data's type f32, got f16") != std::string::npos);
  CHECK(message({info(ElementType::f32, "[2]"), info(ElementType::f32, "[1]")})
            .find("beta must be a scalar, got [1]") != std::string::npos);
  // A run-time beta of rank 1 (declared with dynamic rank) is refused too.
  CHECK(caught([&] {
    const Tensor data = tensor(ElementType::f32, {2}, {1, 2});
    const Tensor beta = tensor(ElementType::f32, {1}, {1});
    Tensor out(ElementType::f32, Shape{2});
    std::vector<Tensor> outs{out};
    op->execute(std::vector<Tensor>{data, beta}, outs, ExecContext{});
  }));

  std::mt19937 rng(13);
  const std::vector<float> in = random_values<float>(rng, 700, true);
  check_against<float>(*op, ElementType::f32, in,
                       [](float x) { return x / (1.0f + std::exp(-x)); });
  const Tensor beta = tensor(ElementType::f32, {}, {0.75});
  const Tensor out = run(*op, {tensor_of(ElementType::f32, in), beta});
  for (std::size_t i = 0; i < in.size(); ++i) {
    const float want = in[i] / (1.0f + std::exp(-in[i] * 0.75f));
    CHECK(same_value(out.data<float>()[i], want));
  }
  const std::vector<bfloat16> bin = random_values<bfloat16>(rng, 300, true);
  const Tensor bout =
      run(*op, {tensor_of(ElementType::bf16, bin), tensor(ElementType::bf16, {}, {2.0})});
  for (std::size_t i = 0; i < bin.size(); ++i) {
    const float x = bin[i];
    CHECK(same_value(bout.data<bfloat16>()[i], bfloat16(x / (1.0f + std::exp(-x * 2.0f)))));
  }
}

// Element-wise binary ops, LogicalNot, Select and Broadcast: broadcasting rules on partial shapes,
// kernels against plain loops on random inputs, integer division and NaN edge cases, value
// bounds, thread-count invariance and whole models.

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "core/attributes.hpp"
#include "graph_builder.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

std::unique_ptr<const Op> make_op(std::string_view type, const Attributes& a = {},
                                  std::string_view opset = "opset3") {
  return op_def(type, opset).create(a);
}

std::string error_of(const Op& op, const std::vector<ValueInfo>& inputs) {
  const auto e = caught([&] { op.infer(inputs); });
  return e ? e->what() : "";
}

/// Row-major index into `in` (aligned to `out`'s rank by padding on the left) of output element i.
std::size_t source_index(const Shape& out, const Shape& in_aligned, std::size_t i) {
  std::size_t src = 0, stride = 1;
  for (std::size_t d = out.size(); d-- > 0;) {
    const auto o = static_cast<std::size_t>(out[d]);
    const std::size_t coord = i % o;
    i /= o;
    if (in_aligned[d] != 1) src += coord * stride;
    stride *= static_cast<std::size_t>(in_aligned[d]);
  }
  return src;
}

Shape pad_left(const Shape& s, std::size_t rank) {
  Shape r(rank - s.size(), 1);
  r.insert(r.end(), s.begin(), s.end());
  return r;
}

Shape numpy_shape(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  const Shape pa = pad_left(a, rank), pb = pad_left(b, rank);
  Shape out(rank);
  for (std::size_t d = 0; d < rank; ++d) out[d] = pa[d] == 1 ? pb[d] : pa[d];
  return out;
}

/// Random values valid for `type`: floats in [-4, 4), signed integers in [-20, 20], unsigned in
/// [0, 40]; `nonzero` avoids 0.
Tensor random_tensor(ElementType type, const Shape& shape, std::mt19937& rng, bool nonzero = false,
                     double lo = -20, double hi = 20) {
  std::vector<double> v(static_cast<std::size_t>(element_count(shape).value()));
  for (double& x : v) {
    do {
      if (is_real(type)) {
        x = std::uniform_real_distribution<double>(lo / 5, hi / 5)(rng);
      } else {
        const double l = is_signed_integral(type) ? lo : 0;
        const double h = is_signed_integral(type) ? hi : hi - lo;
        x = static_cast<double>(
            std::uniform_int_distribution<int>(static_cast<int>(l), static_cast<int>(h))(rng));
      }
    } while (nonzero && x == 0);
  }
  return tensor(type, shape, v);
}

/// What the oracle computes for one pair, in double (floats) or int64 (integers), before the
/// result is brought to the type.
using Oracle = std::function<double(double, double)>;

/// value rounded to the element type as the kernels store it (integers wrap).
double to_type(ElementType type, double v) {
  Tensor t(type, {1});
  dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_storage_v<T>)
      t.data<T>()[0] = T(static_cast<compute_t<T>>(v));
    else
      t.data<T>()[0] = static_cast<T>(static_cast<std::int64_t>(v));
  });
  return doubles(t)[0];
}

void check_binary(const char* type_name, ElementType type, const Oracle& oracle, const Shape& sa,
                  const Shape& sb, std::mt19937& rng, bool nonzero_b = false, Attributes attrs = {},
                  double lo = -20, double hi = 20) {
  const auto op = make_op(type_name, attrs);
  const Tensor a = random_tensor(type, sa, rng, false, lo, hi);
  const Tensor b = random_tensor(type, sb, rng, nonzero_b, lo, hi);
  const Tensor out = run(*op, {a, b});
  const Shape shape = numpy_shape(sa, sb);
  REQUIRE(out.shape() == shape);
  const std::vector<double> va = doubles(a), vb = doubles(b), vo = doubles(out);
  const Shape pa = pad_left(sa, shape.size()), pb = pad_left(sb, shape.size());
  const double tol = type == ElementType::f16 || type == ElementType::bf16 ? 1e-2
                     : type == ElementType::f32                            ? 1e-5
                                                                           : 1e-12;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double x = va[source_index(shape, pa, i)], y = vb[source_index(shape, pb, i)];
    const double expected = to_type(type, oracle(x, y));
    const double got = vo[i];
    INFO(type_name << " " << to_string(type) << " " << to_string(sa) << " " << to_string(sb)
                   << " at " << i << ": f(" << x << ", " << y << ")");
    if (std::isnan(expected)) {
      CHECK(std::isnan(got));
    } else if (is_real(type)) {
      CHECK(std::abs(got - expected) <= tol * std::max(1.0, std::abs(expected)));
    } else {
      CHECK(got == expected);
    }
  }
}

const std::vector<std::pair<Shape, Shape>> kShapePairs = {
    {{3, 5, 7}, {3, 5, 7}},                    // equal
    {{}, {3, 5, 7}},                           // scalar first
    {{3, 5, 7}, {1}},                          // scalar-like second
    {{3, 5, 7}, {7}},                          // leading dims broadcast
    {{3, 5, 7}, {3, 5, 1}},                    // trailing dim broadcast
    {{3, 1, 7}, {1, 5, 1}},                    // both, general case
    {{2, 1, 4, 1}, {3, 1, 5}}, {{0, 3}, {3}},  // empty output
};

const ElementType kTypes[] = {ElementType::f32, ElementType::f16, ElementType::bf16,
                              ElementType::f64, ElementType::i32, ElementType::i8,
                              ElementType::u8,  ElementType::i64, ElementType::u64};

double floor_div(double a, double b) {
  return std::floor(a / b);
}

}  // namespace

TEST_CASE("broadcast rules: numpy merges as OpenVINO, with intervals and dynamic rank") {
  const auto add = make_op("Add");
  const auto f = ElementType::f32;
  CHECK(inferred(*add, {info(f, "[2,3]"), info(f, "[3]")}) == "f32 [2,3]");
  CHECK(inferred(*add, {info(f, "[2,1]"), info(f, "[1,3]")}) == "f32 [2,3]");
  CHECK(inferred(*add, {info(f, "[]"), info(f, "[4,5]")}) == "f32 [4,5]");
  // A dynamic dim may be 1: against N it gives N, against another dynamic one stays dynamic.
  CHECK(inferred(*add, {info(f, "[?,3]"), info(f, "[5,3]")}) == "f32 [5,3]");
  CHECK(inferred(*add, {info(f, "[?,3]"), info(f, "[?,1]")}) == "f32 [?,3]");
  CHECK(inferred(*add, {info(f, "[1,3]"), info(f, "[?,3]")}) == "f32 [?,3]");
  // Intervals without 1 intersect; with 1 on both sides they span both.
  CHECK(inferred(*add, {info(f, "[2..6]"), info(f, "[4..10]")}) == "f32 [4..6]");
  CHECK(inferred(*add, {info(f, "[1..4]"), info(f, "[0..8]")}) == "f32 [..8]");
  CHECK(inferred(*add, {info(f, "[1..4]"), info(f, "[3..8]")}) == "f32 [3..8]");
  CHECK(inferred(*add, {info(f, "[2..]"), info(f, "[5]")}) == "f32 [5]");
  CHECK(inferred(*add, {info(f, "[...]"), info(f, "[5]")}) == "f32 [...]");
  CHECK(error_of(*add, {info(f, "[2,3]"), info(f, "[4]")}).find("cannot be broadcast together") !=
        std::string::npos);
  CHECK(error_of(*add, {info(f, "[2..3]"), info(f, "[4..5]")}).find("[2..3]") != std::string::npos);
  CHECK(error_of(*add, {info(f, "[2]"), info(ElementType::i32, "[2]")})
            .find("element types must match") != std::string::npos);
  CHECK(error_of(*add, {info(ElementType::boolean, "[2]"), info(ElementType::boolean, "[2]")})
            .find("numeric") != std::string::npos);
}

TEST_CASE("broadcast rules: none and pdpd") {
  const auto f = ElementType::f32;
  const auto none = make_op("Multiply", Attributes{{"auto_broadcast", "none"}});
  CHECK(inferred(*none, {info(f, "[2,?]"), info(f, "[?,3]")}) == "f32 [2,3]");
  CHECK(inferred(*none, {info(f, "[2..5]"), info(f, "[4..9]")}) == "f32 [4..5]");
  CHECK(inferred(*none, {info(f, "[...]"), info(f, "[2,3]")}) == "f32 [2,3]");
  CHECK(error_of(*none, {info(f, "[2,3]"), info(f, "[3]")}).find("auto_broadcast=none") !=
        std::string::npos);
  CHECK(error_of(*none, {info(f, "[2,3]"), info(f, "[2,1]")}).find("cannot") != std::string::npos);
  const auto explicit_none = make_op("Add", Attributes{{"auto_broadcast", "explicit"}});
  CHECK(inferred(*explicit_none, {info(f, "[2]"), info(f, "[2]")}) == "f32 [2]");

  const auto pdpd = make_op("Add", Attributes{{"auto_broadcast", "pdpd"}, {"axis", "1"}});
  CHECK(inferred(*pdpd, {info(f, "[2,3,4,5]"), info(f, "[3,4]")}) == "f32 [2,3,4,5]");
  CHECK(inferred(*pdpd, {info(f, "[2,3,4,5]"), info(f, "[3,1]")}) == "f32 [2,3,4,5]");
  CHECK(inferred(*pdpd, {info(f, "[2,?,4,5]"), info(f, "[3,4]")}) == "f32 [2,?,4,5]");
  CHECK(error_of(*pdpd, {info(f, "[2,3,4,5]"), info(f, "[4,4]")}).find("axis=1") !=
        std::string::npos);
  CHECK(error_of(*pdpd, {info(f, "[3]"), info(f, "[3,4]")}).find("pdpd") != std::string::npos);
  const auto pdpd_right = make_op("Add", Attributes{{"auto_broadcast", "pdpd"}});
  CHECK(inferred(*pdpd_right, {info(f, "[2,3,4,5]"), info(f, "[4,5]")}) == "f32 [2,3,4,5]");
  CHECK(inferred(*pdpd_right, {info(f, "[...]"), info(f, "[4,5]")}) == "f32 [...]");
  CHECK(caught([] { make_op("Add", Attributes{{"auto_broadcast", "pdpd"}, {"axis", "-2"}}); }));
  CHECK(caught([] { make_op("Add", Attributes{{"auto_broadcast", "sideways"}}); }));
  // The largest axis does not fit, and adding the second rank to it must not overflow.
  const auto pdpd_max =
      make_op("Add", Attributes{{"auto_broadcast", "pdpd"}, {"axis", "9223372036854775807"}});
  CHECK(error_of(*pdpd_max, {info(f, "[2,3]"), info(f, "[3]")}).find("pdpd") != std::string::npos);

  // pdpd values: the second input placed at axis 1 of the first.
  Tensor a = tensor(f, {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Tensor b = tensor(f, {3}, {100, 200, 300});
  CHECK(doubles(run(*pdpd, {a, b})) ==
        std::vector<double>{100, 101, 202, 203, 304, 305, 106, 107, 208, 209, 310, 311});
  Tensor c = tensor(f, {3, 1}, {100, 200, 300});
  CHECK(doubles(run(*pdpd, {a, c}))[5] == 305);
}

TEST_CASE("arithmetic ops: kernels against plain loops, every broadcast pattern and type") {
  std::mt19937 rng(7);
  const std::vector<std::pair<const char*, Oracle>> ops = {
      {"Add", [](double x, double y) { return x + y; }},
      {"Subtract", [](double x, double y) { return x - y; }},
      {"Multiply", [](double x, double y) { return x * y; }},
      {"Maximum", [](double x, double y) { return x > y ? x : y; }},
      {"Minimum", [](double x, double y) { return x < y ? x : y; }},
  };
  for (const auto& [name, oracle] : ops)
    for (const ElementType type : kTypes)
      for (const auto& [sa, sb] : kShapePairs) check_binary(name, type, oracle, sa, sb, rng);
}

TEST_CASE("Divide: floats, integer floor and truncation, against plain loops") {
  std::mt19937 rng(11);
  for (const ElementType type : kTypes) {
    for (const auto& [sa, sb] : kShapePairs) {
      if (is_real(type)) {
        check_binary(
            "Divide", type, [](double x, double y) { return x / y; }, sa, sb, rng, true);
      } else {
        check_binary("Divide", type, floor_div, sa, sb, rng, true);
        check_binary(
            "Divide", type, [](double x, double y) { return std::trunc(x / y); }, sa, sb, rng, true,
            Attributes{{"m_pythondiv", "false"}});
      }
    }
  }
}

TEST_CASE("Divide: integer edge cases") {
  const auto floor_op = make_op("Divide");
  const auto trunc_op = make_op("Divide", Attributes{{"m_pythondiv", "false"}});
  const auto i32 = ElementType::i32;
  const Tensor a = ints(i32, {6}, {-7, 7, -7, 7, 0, std::numeric_limits<std::int32_t>::min()});
  const Tensor b = ints(i32, {6}, {2, -2, -2, 2, -3, -1});
  CHECK(integers(run(*floor_op, {a, b})) ==
        std::vector<std::int64_t>{-4, -4, 3, 3, 0, std::numeric_limits<std::int32_t>::min()});
  CHECK(integers(run(*trunc_op, {a, b})) ==
        std::vector<std::int64_t>{-3, -3, 3, 3, 0, std::numeric_limits<std::int32_t>::min()});
  const Tensor i64min = ints(ElementType::i64, {1}, {std::numeric_limits<std::int64_t>::min()});
  const Tensor minus1 = ints(ElementType::i64, {1}, {-1});
  CHECK(integers(run(*floor_op, {i64min, minus1}))[0] == std::numeric_limits<std::int64_t>::min());
  // Division by zero is an error, found before any output is written; floats give infinities.
  const auto e = caught([&] { run(*floor_op, {a, ints(i32, {}, {0})}); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
  CHECK(std::string(e->what()).find("division by zero") != std::string::npos);
  const Tensor inf =
      run(*floor_op, {tensor(ElementType::f32, {2}, {1, -1}), tensor(ElementType::f32, {1}, {0})});
  CHECK(std::isinf(inf.data<float>()[0]));
  CHECK(inf.data<float>()[1] < 0);
}

TEST_CASE("Power: floats and integers against plain loops") {
  std::mt19937 rng(13);
  const auto pow_oracle = [](double x, double y) { return std::pow(x, y); };
  for (const ElementType type : {ElementType::f32, ElementType::f64, ElementType::f16}) {
    check_binary("Power", type, pow_oracle, {4, 5}, {5}, rng, false, {}, 1, 10);
  }
  for (const ElementType type : {ElementType::i32, ElementType::i64, ElementType::u8}) {
    check_binary("Power", type, pow_oracle, {4, 5}, {4, 1}, rng, false, {}, 0, 4);
  }
  const auto op = make_op("Power");
  const Tensor base = ints(ElementType::i32, {6}, {2, 1, -1, -1, 3, 0});
  const Tensor exp = ints(ElementType::i32, {6}, {-1, -5, -3, -2, 0, -1});
  CHECK(integers(run(*op, {base, exp})) ==
        std::vector<std::int64_t>{0, 1, -1, 1, 1, std::numeric_limits<std::int32_t>::max()});
  // Exact beyond what a double holds.
  CHECK(integers(run(*op, {ints(ElementType::i64, {1}, {3}),
                           ints(ElementType::i64, {1}, {39})}))[0] == 4052555153018976267);
}

TEST_CASE("Maximum and Minimum: NaN as OpenVINO's reference (a NaN first gives the other)") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor a(ElementType::f32, {3});
  Tensor b(ElementType::f32, {3});
  const float av[] = {nan, 1, nan}, bv[] = {2, nan, nan};
  std::copy(av, av + 3, a.data<float>());
  std::copy(bv, bv + 3, b.data<float>());
  for (const char* name : {"Maximum", "Minimum"}) {
    const Tensor out = run(*make_op(name), {a, b});
    CHECK(out.data<float>()[0] == 2);
    CHECK(std::isnan(out.data<float>()[1]));
    CHECK(std::isnan(out.data<float>()[2]));
  }
}

TEST_CASE("comparisons: every type, boolean out, NaN unordered") {
  std::mt19937 rng(17);
  const std::vector<std::pair<const char*, Oracle>> ops = {
      {"Equal", [](double x, double y) { return x == y ? 1.0 : 0.0; }},
      {"NotEqual", [](double x, double y) { return x != y ? 1.0 : 0.0; }},
      {"Less", [](double x, double y) { return x < y ? 1.0 : 0.0; }},
      {"LessEqual", [](double x, double y) { return x <= y ? 1.0 : 0.0; }},
      {"Greater", [](double x, double y) { return x > y ? 1.0 : 0.0; }},
      {"GreaterEqual", [](double x, double y) { return x >= y ? 1.0 : 0.0; }},
  };
  for (const auto& [name, oracle] : ops) {
    const auto op = make_op(name);
    for (const ElementType type : kTypes) {
      for (const auto& [sa, sb] : kShapePairs) {
        // Few distinct values, so that equality happens.
        const Tensor a = random_tensor(type, sa, rng, false, -2, 2);
        const Tensor b = random_tensor(type, sb, rng, false, -2, 2);
        Tensor ra = a, rb = b;
        if (is_real(type)) {  // whole numbers, so that equal values meet
          ra = tensor(type, sa, [&] {
            auto v = doubles(a);
            for (double& x : v) x = std::round(x * 2);
            return v;
          }());
          rb = tensor(type, sb, [&] {
            auto v = doubles(b);
            for (double& x : v) x = std::round(x * 2);
            return v;
          }());
        }
        const Tensor out = run(*op, {ra, rb});
        REQUIRE(out.element_type() == ElementType::boolean);
        const Shape shape = numpy_shape(sa, sb);
        const auto va = doubles(ra), vb = doubles(rb);
        for (std::size_t i = 0; i < out.size(); ++i) {
          const double x = va[source_index(shape, pad_left(sa, shape.size()), i)];
          const double y = vb[source_index(shape, pad_left(sb, shape.size()), i)];
          CHECK(out.data<std::uint8_t>()[i] == oracle(x, y));
        }
      }
    }
    // NaN: only NotEqual holds.
    Tensor n(ElementType::f32, {1});
    n.data<float>()[0] = std::numeric_limits<float>::quiet_NaN();
    CHECK(run(*op, {n, n}).data<std::uint8_t>()[0] == (std::string(name) == "NotEqual" ? 1 : 0));
  }
  // Booleans compare as truth values.
  Tensor t(ElementType::boolean, {2});
  t.data<std::uint8_t>()[0] = 1;
  t.data<std::uint8_t>()[1] = 0;
  Tensor u(ElementType::boolean, {2});
  u.data<std::uint8_t>()[0] = 1;
  u.data<std::uint8_t>()[1] = 1;
  const Tensor eq = run(*make_op("Equal"), {t, u});
  CHECK(eq.data<std::uint8_t>()[0] == 1);
  CHECK(eq.data<std::uint8_t>()[1] == 0);
  CHECK(inferred(*make_op("Less"), {info(ElementType::i64, "[?,1]"),
                                    info(ElementType::i64, "[4]")}) == "boolean [?,4]");
}

TEST_CASE("logical ops: boolean only, broadcast, LogicalNot") {
  Tensor a(ElementType::boolean, {2, 2});
  Tensor b(ElementType::boolean, {2});
  const std::uint8_t av[] = {0, 0, 1, 1}, bv[] = {0, 1};
  std::copy(av, av + 4, a.data<std::uint8_t>());
  std::copy(bv, bv + 2, b.data<std::uint8_t>());
  const auto values = [](const Tensor& t) {
    return std::vector<int>(t.data<std::uint8_t>(), t.data<std::uint8_t>() + t.size());
  };
  CHECK(values(run(*make_op("LogicalAnd"), {a, b})) == std::vector<int>{0, 0, 0, 1});
  CHECK(values(run(*make_op("LogicalOr"), {a, b})) == std::vector<int>{0, 1, 1, 1});
  CHECK(values(run(*make_op("LogicalXor"), {a, b})) == std::vector<int>{0, 1, 1, 0});
  CHECK(values(run(*make_op("LogicalNot"), {a})) == std::vector<int>{1, 1, 0, 0});
  const auto f = ElementType::f32;
  CHECK(error_of(*make_op("LogicalAnd"), {info(f, "[2]"), info(f, "[2]")}).find("boolean") !=
        std::string::npos);
  CHECK(error_of(*make_op("LogicalNot"), {info(f, "[2]")}).find("boolean") != std::string::npos);
  CHECK(inferred(*make_op("LogicalNot"), {info(ElementType::boolean, "[?,2..3]")}) ==
        "boolean [?,2..3]");
}

TEST_CASE("binary ops: bounds of integer results") {
  const auto i64 = ElementType::i64;
  const Tensor lo_a = ints(i64, {2}, {1, 2}), hi_a = ints(i64, {2}, {4, 5});
  const Tensor lo_b = ints(i64, {1}, {10}), hi_b = ints(i64, {1}, {20});
  const Tensor big = ints(i64, {1}, {std::numeric_limits<std::int64_t>::max()});
  const ValueInfo a{i64, ps("[2]"), nullptr, &lo_a, &hi_a};
  const ValueInfo b{i64, ps("[1]"), nullptr, &lo_b, &hi_b};
  const ValueInfo open_b{i64, ps("[1]"), nullptr, &lo_b, &big};
  const OutputInfo out{i64, ps("[2]")};
  const auto bounds = [&](const char* name, const ValueInfo& x, const ValueInfo& y) {
    return make_op(name)->infer_bounds(std::vector<ValueInfo>{x, y}, out);
  };
  auto r = bounds("Add", a, b);
  REQUIRE(r);
  CHECK(integers(r->lower) == std::vector<std::int64_t>{11, 12});
  CHECK(integers(r->upper) == std::vector<std::int64_t>{24, 25});
  r = bounds("Subtract", b, a);
  REQUIRE(r);
  CHECK(integers(r->lower) == std::vector<std::int64_t>{6, 5});
  CHECK(integers(r->upper) == std::vector<std::int64_t>{19, 18});
  r = bounds("Multiply", a, b);
  REQUIRE(r);
  CHECK(integers(r->lower) == std::vector<std::int64_t>{10, 20});
  CHECK(integers(r->upper) == std::vector<std::int64_t>{80, 100});
  r = bounds("Maximum", a, open_b);
  REQUIRE(r);
  CHECK(integers(r->upper)[0] == std::numeric_limits<std::int64_t>::max());
  r = bounds("Minimum", a, open_b);
  REQUIRE(r);
  CHECK(integers(r->upper) == std::vector<std::int64_t>{4, 5});
  r = bounds("Add", a, open_b);
  REQUIRE(r);
  CHECK(integers(r->upper)[1] == std::numeric_limits<std::int64_t>::max());
  // An unbounded subtrahend leaves no lower bound; a possibly negative factor no simple bounds.
  CHECK_FALSE(bounds("Subtract", a, open_b));
  const Tensor neg = ints(i64, {1}, {-1});
  CHECK_FALSE(bounds("Multiply", a, ValueInfo{i64, ps("[1]"), nullptr, &neg, &hi_b}));
  CHECK_FALSE(bounds("Divide", a, b));
}

TEST_CASE("binary ops: the same bits on any number of threads") {
  std::mt19937 rng(19);
  const std::vector<std::pair<Shape, Shape>> shapes = {{{300, 401}, {300, 401}},
                                                       {{300, 401}, {401}},
                                                       {{300, 401}, {300, 1}},
                                                       {{7, 90, 201}, {7, 1, 201}},
                                                       {{120001}, {}}};
  for (const char* name : {"Add", "Divide", "Greater"}) {
    const auto op = make_op(name);
    for (const auto& [sa, sb] : shapes) {
      const Tensor a = random_tensor(ElementType::f32, sa, rng);
      const Tensor b = random_tensor(ElementType::f32, sb, rng, true);
      const Tensor one = run(*op, {a, b});
      for (ThreadPool* pool : test_pools()) {
        const auto infos = infer_at_run_time(*op, {a, b}, 1);
        const Tensor many =
            allocate_and_execute(*op, {a, b}, infos, ExecContext{Parallel(pool)})[0];
        REQUIRE(many.byte_size() == one.byte_size());
        CHECK(std::memcmp(many.data(), one.data(), one.byte_size()) == 0);
      }
    }
  }
}

TEST_CASE("binary ops: whole models, with and without <data>") {
  OpTester t("Add", "opset1");
  t.input_parameter("a", tensor(ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  t.input_const("b", tensor(ElementType::f32, {3}, {10, 20, 30}));
  CHECK(doubles(t.run()[0]) == std::vector<double>{11, 22, 33, 14, 25, 36});

  OpTester d("Divide", "opset1");
  d.attr("auto_broadcast", "numpy").attr("m_pythondiv", false);
  d.input_parameter("a", tensor(ElementType::i32, {2}, {-7, 7}));
  d.input_parameter("b", tensor(ElementType::i32, {}, {2}));
  CHECK(integers(d.run()[0]) == std::vector<std::int64_t>{-3, 3});

  OpTester g("GreaterEqual", "opset1");
  g.input_parameter("a", ElementType::f32, ps("[?,2]"));
  g.input_const("b", tensor(ElementType::f32, {2}, {0, 1}));
  const auto out = g.run({{"a", tensor(ElementType::f32, {2, 2}, {1, 1, -1, 2})}});
  REQUIRE(out[0].element_type() == ElementType::boolean);
  CHECK(std::vector<int>(out[0].data<std::uint8_t>(), out[0].data<std::uint8_t>() + 4) ==
        std::vector<int>{1, 1, 0, 1});
}

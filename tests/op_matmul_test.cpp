// MatMul-1: shape rule (transposes, 1-D operands, batch broadcasting with intervals and
// dynamic rank, errors), and the packed kernel against a plain triple loop on random inputs of
// several element types and odd sizes, on any number of threads; Softmax-1 and Softmax-8: shape
// rule, errors, values against a plain loop in double, NaN and infinities, thread counts.

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
#include "core/buffer.hpp"
#include "graph/op.hpp"
#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "kernels/gemm.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "ops/registry.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;

std::unique_ptr<const Op> matmul(bool ta = false, bool tb = false) {
  return op_def("MatMul", "opset1")
      .create(Attributes(
          Attrs{{"transpose_a", ta ? "true" : "false"}, {"transpose_b", tb ? "true" : "false"}}));
}

std::string mm_shape(const char* a, const char* b, bool ta = false, bool tb = false) {
  return to_string(
      infer_outputs(*matmul(ta, tb), {info(ElementType::f32, a), info(ElementType::f32, b)})[0]
          .shape);
}

std::string mm_error(const char* a, const char* b, bool ta = false, bool tb = false,
                     ElementType bt = ElementType::f32) {
  auto op = matmul(ta, tb);
  const auto e = caught([&] {
    (void)op->infer(std::vector<ValueInfo>{info(ElementType::f32, a), info(bt, b)});
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

template <class T>
T random_value(std::mt19937& rng) {
  if constexpr (is_float_storage_v<T>)
    return T(static_cast<compute_t<T>>(std::uniform_real_distribution<double>(-1, 1)(rng)));
  else if constexpr (std::is_signed_v<T>)
    return static_cast<T>(std::uniform_int_distribution<int>(-20, 20)(rng));
  else
    return static_cast<T>(std::uniform_int_distribution<int>(0, 40)(rng));
}

template <class T>
Tensor random_tensor(std::mt19937& rng, const Shape& shape) {
  Tensor t(type_of<T>(), shape);
  for (std::size_t i = 0; i < t.size(); ++i) t.data<T>()[i] = random_value<T>(rng);
  return t;
}

/// What the oracle multiplies in: the compute type, or the unsigned type of an integer's width.
template <class T>
struct product {
  using type = compute_t<T>;
};
template <class T>
requires std::is_integral_v<T>
struct product<T> {
  using type = std::make_unsigned_t<T>;
};

/// The oracle: a plain triple loop per output matrix, summing over k in increasing order from
/// zero in the compute type (integers in their unsigned type, wrapping), with the batch index
/// of each operand worked out from its own shape. f32, f16 and bf16 go through the float GEMM,
/// whose steps are fused multiply-adds where the CPU has them (kernels/gemm.hpp): the loop
/// then takes std::fma, so that the comparison stays exact; f64 and integers multiply, round,
/// then add.
template <class T>
std::vector<T> oracle(const Tensor& a, const Tensor& b, bool ta, bool tb, const Shape& out_shape) {
  using C = typename product<T>::type;
  Shape as = a.shape(), bs = b.shape();
  const bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) {
    as.insert(as.begin(), 1);
    ta = false;
  }
  if (b1) {
    bs.push_back(1);
    tb = false;
  }
  const std::int64_t m = ta ? as.back() : as[as.size() - 2];
  const std::int64_t k = ta ? as[as.size() - 2] : as.back();
  const std::int64_t n = tb ? bs[bs.size() - 2] : bs.back();
  const std::size_t rank = std::max(as.size(), bs.size());
  as.insert(as.begin(), rank - as.size(), 1);
  bs.insert(bs.begin(), rank - bs.size(), 1);
  std::int64_t batches = 1;
  for (std::size_t i = 0; i + 2 < rank; ++i) batches *= std::max(as[i], bs[i]);
  std::vector<T> out;
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  for (std::int64_t bi = 0; bi < batches; ++bi) {
    // Coordinates of the batch, then each operand's matrix index (broadcast axes give 0).
    std::int64_t rest = bi, ia = 0, ib = 0, sa = 1, sb = 1;
    for (std::size_t d = rank - 2; d-- > 0;) {
      const std::int64_t extent = std::max(as[d], bs[d]);
      const std::int64_t c = rest % extent;
      rest /= extent;
      ia += (as[d] == 1 ? 0 : c) * sa;
      ib += (bs[d] == 1 ? 0 : c) * sb;
      sa *= as[d];
      sb *= bs[d];
    }
    const T* ma = pa + ia * m * k;
    const T* mb = pb + ib * k * n;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        C acc = 0;
        for (std::int64_t q = 0; q < k; ++q) {
          const auto x =
              static_cast<C>(static_cast<compute_t<T>>(ta ? ma[q * m + i] : ma[i * k + q]));
          const auto y =
              static_cast<C>(static_cast<compute_t<T>>(tb ? mb[j * k + q] : mb[q * n + j]));
          if constexpr (std::is_same_v<C, float>)
            acc = gemm_fuses(gemm_isa()) ? std::fma(x, y, acc) : acc + x * y;
          else
            acc = static_cast<C>(acc + static_cast<C>(x * y));
        }
        out.push_back(static_cast<T>(acc));
      }
  }
  REQUIRE(static_cast<std::int64_t>(out.size()) == element_count(out_shape).value_or(-1));
  return out;
}

template <class T>
void check_matmul(std::mt19937& rng, const Shape& as, const Shape& bs, bool ta, bool tb) {
  CAPTURE(to_string(type_of<T>()));
  CAPTURE(to_string(as));
  CAPTURE(to_string(bs));
  CAPTURE(ta);
  CAPTURE(tb);
  const Tensor a = random_tensor<T>(rng, as);
  const Tensor b = random_tensor<T>(rng, bs);
  auto op = matmul(ta, tb);
  const std::vector<Tensor> inputs{a, b};
  const std::vector<OutputInfo> outs = infer_at_run_time(*op, inputs, 1);
  const Tensor got = allocate_and_execute(*op, inputs, outs)[0];
  const std::vector<T> want = oracle<T>(a, b, ta, tb, got.shape());
  // The same sums in the same order: the same bits.
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!same_value(got.data<T>()[i], want[i]))
      FAIL("element " << i << ": got "
                      << static_cast<double>(static_cast<compute_t<T>>(got.data<T>()[i]))
                      << ", want " << static_cast<double>(static_cast<compute_t<T>>(want[i])));
  for (ThreadPool* pool : test_pools()) {
    ExecContext context{Parallel(pool)};
    const Tensor split = allocate_and_execute(*op, inputs, outs, context)[0];
    CHECK(std::memcmp(split.data(), got.data(), got.byte_size()) == 0);
  }
  // In a Scratch of exactly the bytes the op declares, as a Session runs it: taking more
  // throws.
  std::vector<Parallel> pars{Parallel()};
  for (ThreadPool* pool : test_pools()) pars.emplace_back(pool);
  for (const Parallel& par : pars) {
    CAPTURE(par.threads());
    const std::vector<Tensor> out{Tensor(outs[0].type, outs[0].shape.to_shape())};
    const std::size_t bytes = op->scratch_bytes(inputs, out, par.threads());
    const std::shared_ptr<void> arena = allocate_buffer(bytes);
    const ExecContext context{par, Scratch(arena.get(), bytes)};
    const Tensor lent = allocate_and_execute(*op, inputs, outs, context)[0];
    CHECK(std::memcmp(lent.data(), got.data(), got.byte_size()) == 0);
  }
}

std::unique_ptr<const Op> softmax(const char* opset, std::int64_t axis) {
  return op_def("Softmax", opset).create(Attributes(Attrs{{"axis", std::to_string(axis)}}));
}

}  // namespace

TEST_CASE("MatMul shape rule") {
  CHECK(mm_shape("[2,3]", "[3,4]") == "[2,4]");
  CHECK(mm_shape("[3,2]", "[3,4]", true) == "[2,4]");
  CHECK(mm_shape("[2,3]", "[4,3]", false, true) == "[2,4]");
  CHECK(mm_shape("[3,2]", "[4,3]", true, true) == "[2,4]");
  // 1-D operands: A a row, B a column, the temporary axes removed; transposes ignored.
  CHECK(mm_shape("[3]", "[3,4]") == "[4]");
  CHECK(mm_shape("[3]", "[3,4]", true) == "[4]");
  CHECK(mm_shape("[2,3]", "[3]") == "[2]");
  CHECK(mm_shape("[2,3]", "[3]", false, true) == "[2]");
  CHECK(mm_shape("[3]", "[3]") == "[]");
  CHECK(mm_shape("[3]", "[5,3,4]") == "[5,4]");
  CHECK(mm_shape("[5,2,3]", "[3]") == "[5,2]");
  // Batch axes broadcast.
  CHECK(mm_shape("[5,1,2,3]", "[7,3,4]") == "[5,7,2,4]");
  CHECK(mm_shape("[2,3]", "[6,3,4]") == "[6,2,4]");
  CHECK(mm_shape("[1,2,3]", "[6,3,4]") == "[6,2,4]");
  // Dynamic and interval dims.
  CHECK(mm_shape("[?,2,3]", "[6,3,4]") == "[6,2,4]");
  CHECK(mm_shape("[1..8,2,3]", "[4..10,3,4]") == "[4..8,2,4]");
  CHECK(mm_shape("[1,2,3]", "[4..10,3,4]") == "[4..10,2,4]");
  CHECK(mm_shape("[2..3,2,3]", "[5..6,3,4]") == "[?,2,4]");
  CHECK(mm_shape("[?,?]", "[?,?]") == "[?,?]");
  CHECK(mm_shape("[2..5,?]", "[3,1..9]") == "[2..5,1..9]");
  CHECK(mm_shape("[2,3..4]", "[5..6,7]") == "[2,7]");  // inner intervals apart: accepted
  CHECK(mm_shape("[...]", "[3,4]") == "[...]");
  CHECK(mm_shape("[2,3]", "[...]") == "[...]");
  // Errors.
  CHECK(mm_error("[2,3]", "[4,5]").find("inner dimensions differ") != std::string::npos);
  CHECK(mm_error("[2,3]", "[4,5]").find("has 3 columns") != std::string::npos);
  CHECK(mm_error("[3,2]", "[3,4]", true, true).find("has 4 rows") != std::string::npos);
  CHECK(mm_error("[3]", "[4]").find("inner dimensions differ") != std::string::npos);
  CHECK(mm_error("[2,2,3]", "[3,3,4]").find("do not broadcast: 2 and 3") != std::string::npos);
  CHECK(mm_error("[]", "[3,4]").find("A must not be a scalar") != std::string::npos);
  CHECK(mm_error("[3]", "[]").find("B must not be a scalar") != std::string::npos);
  CHECK(mm_error("[2,3]", "[3,4]", false, false, ElementType::f16).find("element type") !=
        std::string::npos);
  CHECK(mm_error("[2,3]", "[3,4]", false, false, ElementType::boolean)
            .find("a numeric tensor, got boolean") != std::string::npos);
  CHECK(matmul(true, false)->attributes() ==
        Attrs{{"transpose_a", "true"}, {"transpose_b", "false"}});
}

TEST_CASE("MatMul kernel against a plain triple loop") {
  std::mt19937 rng(11);
  struct Case {
    Shape a, b;
    bool ta, tb;
  };
  const std::vector<Case> cases = {
      {{1, 1}, {1, 1}, false, false},
      {{7, 5}, {5, 9}, false, false},
      {{13, 29}, {29, 37}, false, false},  // odd sizes: tails of rows and columns
      {{29, 13}, {29, 37}, true, false},
      {{13, 29}, {37, 29}, false, true},
      {{29, 13}, {37, 29}, true, true},
      {{3, 1, 50, 17}, {4, 17, 70}, false, false},  // batch broadcast both ways
      {{17}, {2, 17, 19}, false, false},            // 1-D A
      {{2, 6, 17}, {17}, false, true},              // 1-D B
      {{31}, {31}, false, false},
      {{2, 0, 4}, {4, 5}, false, false},  // empty output
      {{3, 0}, {0, 4}, false, false},     // k = 0: zeros
      {{100, 64}, {64, 200}, false, false},
  };
  for (const Case& c : cases) {
    check_matmul<float>(rng, c.a, c.b, c.ta, c.tb);
    check_matmul<double>(rng, c.a, c.b, c.ta, c.tb);
    check_matmul<float16>(rng, c.a, c.b, c.ta, c.tb);
    check_matmul<bfloat16>(rng, c.a, c.b, c.ta, c.tb);
    check_matmul<std::int32_t>(rng, c.a, c.b, c.ta, c.tb);
    check_matmul<std::int8_t>(rng, c.a, c.b, c.ta, c.tb);
    check_matmul<std::uint8_t>(rng, c.a, c.b, c.ta, c.tb);
    check_matmul<std::int64_t>(rng, c.a, c.b, c.ta, c.tb);
    check_matmul<std::uint16_t>(rng, c.a, c.b, c.ta, c.tb);
  }
  // Large enough for the kernel to split work over threads by itself.
  check_matmul<float>(rng, {3, 150, 130}, {130, 170}, false, false);
  check_matmul<float>(rng, {1, 300}, {2000, 300}, false, true);
  // A row or two times a matrix: the path without packing.
  check_matmul<float>(rng, {300}, {300, 2001}, false, false);
  check_matmul<double>(rng, {2, 2, 150}, {150, 1030}, false, false);
  check_matmul<float>(rng, {2, 7}, {3, 7, 5}, false, false);
}

TEST_CASE("MatMul packs a Const B when the model loads, with the same bits as B fed") {
  std::mt19937 rng(12);
  const auto check = [&](auto tag, const Shape& as, const Shape& bs, bool ta, bool tb) {
    using T = typename decltype(tag)::type;
    CAPTURE(to_string(type_of<T>()));
    CAPTURE(to_string(bs));
    const Tensor a = random_tensor<T>(rng, as);
    const Tensor b = random_tensor<T>(rng, bs);
    auto op = matmul(ta, tb);
    const std::vector<Tensor> inputs{a, b};
    const std::vector<OutputInfo> outs = infer_at_run_time(*op, inputs, 1);
    // The op's hook: data for a Const B of a float type, nothing for a B fed at run time.
    CHECK_FALSE(op->prepare(
        std::vector<ValueInfo>{info(a.element_type(), "[?,?]"), info(b.element_type(), "[?,?]")}));
    const std::shared_ptr<const PreparedData> prepared =
        op->prepare(std::vector<ValueInfo>{info(a.element_type(), "[?,?]"), info(b)});
    REQUIRE(prepared);
    std::vector<Tensor> out{Tensor(outs[0].type, outs[0].shape.to_shape())};
    op->execute_prepared(inputs, out, ExecContext{}, *prepared);
    const std::vector<T> want = oracle<T>(a, b, ta, tb, out[0].shape());
    CHECK(std::memcmp(out[0].data(), want.data(), out[0].byte_size()) == 0);
    for (ThreadPool* pool : test_pools()) {
      op->execute_prepared(inputs, out, ExecContext{Parallel(pool)}, *prepared);
      CHECK(std::memcmp(out[0].data(), want.data(), out[0].byte_size()) == 0);
    }
    // The packing is not the run's any more.
    CHECK(op->scratch_bytes_prepared(inputs, out, 1, *prepared) <
          op->scratch_bytes(inputs, out, 1));
    // Through a loaded model, the Const prepared by the loader.
    using irlite::test::OpTester;
    OpTester t("MatMul", "opset1");
    t.attr("transpose_a", ta);
    t.attr("transpose_b", tb);
    t.input_parameter("a", a);
    t.input_const("b", b);
    const Tensor got = t.run()[0];
    REQUIRE(got.byte_size() == out[0].byte_size());
    CHECK(std::memcmp(got.data(), want.data(), got.byte_size()) == 0);
  };
  check(type_tag<float>{}, {37, 70}, {70, 45}, false, false);
  check(type_tag<float>{}, {70, 37}, {45, 70}, true, true);
  check(type_tag<float>{}, {2, 3, 300}, {2, 300, 50}, false, false);
  check(type_tag<float>{}, {3, 300}, {300}, false, false);
  check(type_tag<float16>{}, {19, 33}, {33, 40}, false, false);
  check(type_tag<bfloat16>{}, {19, 33}, {40, 33}, false, true);
  // Integers keep their own kernel: nothing to prepare.
  const Tensor ib = random_tensor<std::int32_t>(rng, {4, 5});
  CHECK_FALSE(matmul()->prepare(std::vector<ValueInfo>{info(ElementType::i32, "[?,4]"), info(ib)}));
}

TEST_CASE("MatMul end to end, with a run-time batch mismatch") {
  OpTester t("MatMul", "opset1");
  t.attr("transpose_b", true);
  t.input_parameter("a", tensor(ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}), ps("[?,3]"));
  t.input_const("b", tensor(ElementType::f32, {2, 3}, {1, 0, 1, 0, 1, 0}));
  const std::vector<Tensor> out = t.run();
  REQUIRE(out.size() == 1);
  CHECK(out[0].shape() == Shape{2, 2});
  CHECK(doubles(out[0]) == std::vector<double>{4, 2, 10, 5});

  OpTester u("MatMul", "opset1");
  u.input_parameter("a", tensor(ElementType::f32, {2, 1, 2}, {1, 2, 3, 4}), ps("[?,1,2]"));
  u.input_parameter("b", tensor(ElementType::f32, {3, 2, 1}, {1, 1, 1, 1, 1, 1}), ps("[?,2,1]"));
  const auto e = caught([&] { (void)u.run(); });
  REQUIRE(e);
  CHECK(std::string(e->what()).find("do not broadcast") != std::string::npos);
}

TEST_CASE("Softmax shape rule and errors") {
  CHECK(inferred(*softmax("opset1", 1), {info(ElementType::f32, "[2,?,1..4]")}) ==
        "f32 [2,?,1..4]");
  CHECK(inferred(*softmax("opset8", -1), {info(ElementType::f16, "[2,3]")}) == "f16 [2,3]");
  CHECK(inferred(*softmax("opset8", 5), {info(ElementType::f32, "[...]")}) == "f32 [...]");
  const auto error = [](const Op& op, ElementType t, const char* shape) -> std::string {
    const auto e = caught([&] { (void)op.infer(std::vector<ValueInfo>{info(t, shape)}); });
    return e ? e->what() : "";
  };
  CHECK(error(*softmax("opset1", 2), ElementType::f32, "[2,3]").find("out of the tensor rank") !=
        std::string::npos);
  CHECK(error(*softmax("opset8", -3), ElementType::f32, "[2,3]").find("out of the tensor rank") !=
        std::string::npos);
  CHECK(error(*softmax("opset8", 0), ElementType::f32, "[]").find("out of the tensor rank") !=
        std::string::npos);
  CHECK(error(*softmax("opset8", 0), ElementType::i32, "[2]")
            .find("must be a floating-point tensor, got i32") != std::string::npos);
  CHECK_THROWS_WITH_AS(softmax("opset1", -1), doctest::Contains("must not be negative"), Error);
  CHECK(op_def("Softmax", "opset7").version == 1);
  CHECK(op_def("Softmax", "opset8").version == 8);
  CHECK(op_def("Softmax", "opset1").create(Attributes())->attributes() == Attrs{{"axis", "1"}});
}

TEST_CASE("Softmax values against a plain loop") {
  std::mt19937 rng(5);
  const std::vector<std::pair<Shape, std::int64_t>> cases = {
      {{3, 37}, 1}, {{37, 3}, 0}, {{2, 5, 7}, 1}, {{4, 300, 3}, 2}, {{2, 7, 513}, 1},
      {{1}, 0},     {{5, 1}, 1},  {{0, 4}, 1},    {{3, 4, 0}, 1}};
  for (const auto& c : cases) {
    const Shape& shape = c.first;  // not a structured binding: CAPTURE cannot take one
    const std::int64_t axis = c.second;
    for (ElementType type :
         {ElementType::f32, ElementType::f64, ElementType::f16, ElementType::bf16}) {
      CAPTURE(to_string(shape));
      CAPTURE(axis);
      CAPTURE(to_string(type));
      std::vector<double> values(static_cast<std::size_t>(element_count(shape).value()));
      for (double& v : values) v = std::uniform_real_distribution<double>(-20, 20)(rng);
      const Tensor x = tensor(type, shape, values);
      const std::vector<double> xs = doubles(x);
      const auto op = softmax("opset8", axis - static_cast<std::int64_t>(shape.size()));
      const Tensor y = run(*op, {x});
      REQUIRE(y.shape() == shape);
      std::int64_t inner = 1;
      for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < shape.size(); ++d)
        inner *= shape[d];
      const std::int64_t len = shape[static_cast<std::size_t>(axis)];
      const std::vector<double> got = doubles(y);
      const double tol = type == ElementType::bf16  ? 1e-2
                         : type == ElementType::f16 ? 1e-3
                         : type == ElementType::f32 ? 1e-5
                                                    : 1e-14;
      for (std::size_t i = 0; i < xs.size(); ++i) {
        const auto idx = static_cast<std::int64_t>(i);
        const std::int64_t base = idx / (len * inner) * len * inner + idx % inner;
        double m = -std::numeric_limits<double>::infinity();
        for (std::int64_t q = 0; q < len; ++q)
          m = std::max(m, xs[static_cast<std::size_t>(base + q * inner)]);
        double s = 0;
        for (std::int64_t q = 0; q < len; ++q)
          s += std::exp(xs[static_cast<std::size_t>(base + q * inner)] - m);
        const double want = std::exp(xs[i] - m) / s;
        if (std::fabs(got[i] - want) > tol * (want + 1e-3))
          FAIL("element " << i << ": got " << got[i] << ", want " << want);
      }
      for (ThreadPool* pool : test_pools()) {
        ExecContext context{Parallel(pool)};
        const std::vector<Tensor> inputs{x};
        const Tensor split =
            allocate_and_execute(*op, inputs, infer_at_run_time(*op, inputs, 1), context)[0];
        CHECK(std::memcmp(split.data(), y.data(), y.byte_size()) == 0);
      }
    }
  }
}

TEST_CASE("Softmax: large inputs, NaN and infinities") {
  const double inf = std::numeric_limits<double>::infinity();
  // Large values do not overflow: the maximum is subtracted first.
  const Tensor big = tensor(ElementType::f32, {1, 2}, {1000, 1000});
  CHECK(doubles(run(*softmax("opset1", 1), {big})) == std::vector<double>{0.5, 0.5});
  const Tensor t = tensor(ElementType::f32, {3, 3}, {1, std::nan(""), 2, -inf, 0, 0, inf, 1, 2});
  const std::vector<double> y = doubles(run(*softmax("opset8", -1), {t}));
  // A NaN spreads over its slice; -inf gives 0; +inf gives NaN (inf - inf), as the reference.
  for (int i = 0; i < 3; ++i) CHECK(std::isnan(y[static_cast<std::size_t>(i)]));
  CHECK(y[3] == 0);
  CHECK(y[4] == 0.5);
  CHECK(y[5] == 0.5);
  CHECK(std::isnan(y[6]));
  // The same along a non-last axis.
  const std::vector<double> z = doubles(run(*softmax("opset1", 0), {t}));
  CHECK(std::isnan(z[1]));
  CHECK(std::isnan(z[4]));
  CHECK(std::isnan(z[7]));
  CHECK(std::isnan(z[0]));  // +inf in column 0
  CHECK(z[5] == doctest::Approx(std::exp(-2.0) / (std::exp(-2.0) + std::exp(0.0) + 1)));
}

TEST_CASE("Softmax: short rows and the columns of their transpose give the same bits") {
  // Rows shorter than a vector share the exponentials' vectors (face detection's two classes);
  // a middle axis runs column by column. Both take the maximum, e^(x - max), the sum from zero
  // in order and the quotients: softmax along the rows of x and along the columns of its
  // transpose must agree bit for bit, NaN and infinities included.
  std::mt19937 rng(12);
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  for (std::int64_t len = 1; len <= 9; ++len) {
    CAPTURE(len);
    const std::int64_t rows = 203;
    std::vector<double> values(static_cast<std::size_t>(rows * len));
    for (double& v : values) v = std::uniform_real_distribution<double>(-30, 30)(rng);
    values[3] = nan;
    values[static_cast<std::size_t>(len * 7)] = inf;
    values[static_cast<std::size_t>(len * 11)] = -inf;
    std::vector<double> transposed(values.size());
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t k = 0; k < len; ++k)
        transposed[static_cast<std::size_t>(k * rows + r)] =
            values[static_cast<std::size_t>(r * len + k)];
    const Tensor by_rows =
        run(*softmax("opset8", 1), {tensor(ElementType::f32, {rows, len}, values)});
    const Tensor by_columns =
        run(*softmax("opset8", 0), {tensor(ElementType::f32, {len, rows}, transposed)});
    const float* a = by_rows.data<float>();
    const float* b = by_columns.data<float>();
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t k = 0; k < len; ++k) {
        CAPTURE(r);
        CAPTURE(k);
        REQUIRE(std::bit_cast<std::uint32_t>(a[r * len + k]) ==
                std::bit_cast<std::uint32_t>(b[k * rows + r]));
      }
  }
}

TEST_CASE("Softmax end to end") {
  OpTester t("SoftMax", "opset8");
  t.attr("axis", -1);
  t.input_parameter("x", tensor(ElementType::f32, {2, 2}, {0, 0, 0, std::log(3.0)}));
  const std::vector<Tensor> out = t.run();
  REQUIRE(out.size() == 1);
  const std::vector<double> y = doubles(out[0]);
  CHECK(y[0] == 0.5);
  CHECK(y[2] == doctest::Approx(0.25));
  CHECK(y[3] == doctest::Approx(0.75));
}

TEST_CASE("Softmax splits large inputs over threads with the same bits") {
  std::mt19937 rng(9);
  // Rows along the last axis, and column blocks of a middle axis: both above the kernel's grain.
  for (const auto& c :
       std::vector<std::pair<Shape, std::int64_t>>{{{64, 1027}, 1}, {{8, 64, 300}, 1}}) {
    const Shape& shape = c.first;  // not a structured binding: CAPTURE cannot take one
    const std::int64_t axis = c.second;
    for (ElementType type : {ElementType::f32, ElementType::bf16, ElementType::f64}) {
      CAPTURE(to_string(shape));
      CAPTURE(to_string(type));
      std::vector<double> values(static_cast<std::size_t>(element_count(shape).value()));
      for (double& v : values) v = std::uniform_real_distribution<double>(-5, 5)(rng);
      const Tensor x = tensor(type, shape, values);
      const auto op = softmax("opset8", axis);
      const Tensor y = run(*op, {x});
      // Each slice sums to 1.
      const std::vector<double> got = doubles(y);
      std::int64_t inner = 1;
      for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < shape.size(); ++d)
        inner *= shape[d];
      const std::int64_t len = shape[static_cast<std::size_t>(axis)];
      double sum = 0;
      for (std::int64_t q = 0; q < len; ++q) sum += got[static_cast<std::size_t>(q * inner)];
      CHECK(sum == doctest::Approx(1).epsilon(type == ElementType::bf16 ? 0.05 : 1e-5));
      for (ThreadPool* pool : test_pools()) {
        ExecContext context{Parallel(pool)};
        const std::vector<Tensor> inputs{x};
        const Tensor split =
            allocate_and_execute(*op, inputs, infer_at_run_time(*op, inputs, 1), context)[0];
        CHECK(std::memcmp(split.data(), y.data(), y.byte_size()) == 0);
      }
    }
  }
}

// Elu-1, Mish-4, HardSigmoid-1 and LogSoftmax-5: their formulas against double-precision
// oracles on every floating-point type, signed zeros, infinities and NaN, the attribute and input
// errors, large inputs that would overflow a naive formula, and the same bits on any number of
// threads. LogSoftmax on random shapes and axes is in reference_test.cpp.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/attributes.hpp"
#include "graph/op.hpp"
#include "irlite/irlite.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;


constexpr ElementType kFloatTypes[] = {ElementType::f16, ElementType::bf16, ElementType::f32,
                                       ElementType::f64};

const double inf = std::numeric_limits<double>::infinity();

/// Values the activations are checked on: both zeros, infinities, and numbers from tiny to
/// large of both signs.
std::vector<double> probe_values() {
  std::vector<double> v = {-0.0, 0.0, inf, -inf, 1e-3, -1e-3, 0.5, -0.5, 3, -3, 20, -20, 100};
  for (int i = -40; i <= 40; ++i) v.push_back(i * 0.37);
  return v;
}

/// Within a few roundings of the type of `want` (the formula in double), NaN matching NaN.
void check_near(ElementType type, const std::vector<double>& got, const std::vector<double>& want,
                const std::vector<double>& x) {
  const double eps = type == ElementType::bf16  ? 1.0 / 256
                     : type == ElementType::f16 ? 1.0 / 2048
                     : type == ElementType::f32 ? 1.2e-7
                                                : 2.3e-16;
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(x[i]);
    if (std::isnan(want[i])) {
      CHECK(std::isnan(got[i]));
    } else if (std::isinf(want[i])) {
      CHECK(got[i] == want[i]);
    } else {
      // Half of f16's smallest subnormal for results that round to one or to zero.
      const double floor = type == ElementType::f16 ? 3e-8 : 1e-300;
      CHECK(std::fabs(got[i] - want[i]) <= 4 * eps * std::fabs(want[i]) + floor);
    }
  }
}

/// The op on x of `type` (values rounded to it first) and the rounded inputs.
std::pair<std::vector<double>, std::vector<double>> apply(const Op& op, ElementType type,
                                                          const std::vector<double>& values,
                                                          const std::vector<Tensor>& extra = {}) {
  const Tensor x = tensor(type, {static_cast<std::int64_t>(values.size())}, values);
  std::vector<Tensor> inputs{x};
  inputs.insert(inputs.end(), extra.begin(), extra.end());
  return {doubles(run(op, inputs)), doubles(x)};
}

std::string infer_error(const Op& op, const std::vector<ValueInfo>& inputs) {
  const auto e = caught([&] { (void)op.infer(inputs); });
  return e ? e->what() : "";
}

/// One thread and each test pool give the same bytes on a large random input.
void check_threads(const Op& op, std::vector<Tensor> inputs) {
  const auto infos = infer_at_run_time(op, inputs, 1);
  const Tensor one = allocate_and_execute(op, inputs, infos)[0];
  for (ThreadPool* pool : test_pools()) {
    const Tensor many = allocate_and_execute(op, inputs, infos, ExecContext{Parallel(pool)})[0];
    CHECK(std::memcmp(one.data(), many.data(), one.byte_size()) == 0);
  }
}

std::vector<double> random_values(std::size_t n, double scale) {
  std::mt19937 rng(17);
  std::vector<double> v(n);
  for (double& e : v) e = std::uniform_real_distribution<double>(-scale, scale)(rng);
  return v;
}

}  // namespace

TEST_CASE("Elu-1: alpha * (exp(x) - 1) below zero, x elsewhere") {
  for (const double alpha : {1.0, 0.25, 0.0, 2.5}) {
    const auto op = make("Elu", "opset1", {{"alpha", std::to_string(alpha)}});
    for (const ElementType type : kFloatTypes) {
      CAPTURE(to_string(type));
      CAPTURE(alpha);
      const auto [got, x] = apply(*op, type, probe_values());
      std::vector<double> want;
      for (const double v : x) want.push_back(v < 0 ? alpha * std::expm1(v) : v);
      check_near(type, got, want, x);
      // -0 and NaN pass unchanged.
      CHECK(std::signbit(got[0]));
    }
  }
  const auto op = make("Elu", "opset1", {{"alpha", "1"}});
  CHECK(std::isnan(apply(*op, ElementType::f32, {std::nan("")}).first[0]));
  CHECK(apply(*op, ElementType::f32, {-inf}).first[0] == -1);
  // alpha is required; integer data are refused.
  const auto e = caught([] { (void)make("Elu", "opset1"); });
  REQUIRE(e);
  CHECK(std::string(e->what()).find("alpha") != std::string::npos);
  CHECK(infer_error(*op, {info(ElementType::i32, "[2]")}).find("data must be") !=
        std::string::npos);
  CHECK(inferred(*op, {info(ElementType::f16, "[?,3..4]")}) == "f16 [?,3..4]");
  CHECK(op->attributes() == std::vector<std::pair<std::string, std::string>>{{"alpha", "1"}});
  check_threads(*op, {tensor(ElementType::f32, {200003}, random_values(200003, 6))});
}

TEST_CASE("Mish-4: x * tanh(softplus(x)), without overflow for large x") {
  const auto op = make("Mish", "opset4");
  for (const ElementType type : kFloatTypes) {
    CAPTURE(to_string(type));
    const auto [got, x] = apply(*op, type, probe_values());
    std::vector<double> want;
    for (const double v : x) {
      // softplus written so that it neither overflows nor loses the small values.
      const double softplus = v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
      // -inf times tanh(0): NaN, as the formula gives.
      want.push_back(std::isinf(v) && v < 0 ? std::nan("") : v * std::tanh(softplus));
    }
    check_near(type, got, want, x);
  }
  // Large inputs: exp overflows, the result is x.
  const auto [large, rounded] = apply(*op, ElementType::f32, {100, 1e30});
  CHECK(large == rounded);
  CHECK(infer_error(*op, {info(ElementType::i64, "[2]")}).find("data must be") !=
        std::string::npos);
  check_threads(*op, {tensor(ElementType::f16, {200003}, random_values(200003, 8))});
}

TEST_CASE("HardSigmoid-1: max(0, min(1, alpha * x + beta)), alpha and beta scalar inputs") {
  const auto op = make("HardSigmoid", "opset1");
  for (const ElementType type : kFloatTypes) {
    CAPTURE(to_string(type));
    const Tensor alpha = tensor(type, {}, {0.2});
    const Tensor beta = tensor(type, {}, {0.5});
    const auto [got, x] = apply(*op, type, probe_values(), {alpha, beta});
    const double a = doubles(alpha)[0], b = doubles(beta)[0];
    std::vector<double> want;
    for (const double v : x) want.push_back(std::max(0.0, std::min(1.0, a * v + b)));
    check_near(type, got, want, x);
    // NaN gives 1: min(1, NaN) keeps 1, as the reference's std::min.
    CHECK(apply(*op, type, {std::nan("")}, {alpha, beta}).first[0] == 1);
  }
  // The 16-bit types compute alpha * x + beta in float and round once: 0.1 * 3 + 0.2 as f16.
  const Tensor a16 = tensor(ElementType::f16, {}, {0.1});
  const Tensor b16 = tensor(ElementType::f16, {}, {0.2});
  const float once =
      static_cast<float>(doubles(a16)[0]) * 3.0f + static_cast<float>(doubles(b16)[0]);
  CHECK(apply(*op, ElementType::f16, {3}, {a16, b16}).first[0] ==
        doubles(tensor(ElementType::f16, {}, {once}))[0]);
  // alpha and beta: scalars of the data's type, errors at their ports.
  CHECK(infer_error(*op, {info(ElementType::f32, "[2]"), info(ElementType::f16, "[]"),
                          info(ElementType::f32, "[]")})
            .find("input port 1: alpha must have the data's type f32, got f16") !=
        std::string::npos);
  CHECK(infer_error(*op, {info(ElementType::f32, "[2]"), info(ElementType::f32, "[]"),
                          info(ElementType::f32, "[1]")})
            .find("beta must be a scalar, got [1]") != std::string::npos);
  CHECK(inferred(*op, {info(ElementType::bf16, "[...]"), info(ElementType::bf16, "[...]"),
                       info(ElementType::bf16, "[]")}) == "bf16 [...]");
  // A beta whose rank is known only at run time is checked then, located at its port.
  OpTester t("HardSigmoid", "opset1", "hs");
  t.input_parameter("x", tensor(ElementType::f32, {2}, {1, 2}));
  t.input_const("alpha", tensor(ElementType::f32, {}, {0.5}));
  t.input_parameter("beta", ElementType::f32, ps("[...]"));
  const auto e = caught([&] { (void)t.run({{"beta", tensor(ElementType::f32, {2}, {0, 0})}}); });
  REQUIRE(e);
  CHECK(std::string(e->what()).find("'hs' (HardSigmoid-1), input port 2: beta must be a scalar") !=
        std::string::npos);
  CHECK(doubles(t.run({{"beta", tensor(ElementType::f32, {}, {0.25})}}).at(0)) ==
        std::vector<double>{0.75, 1});
  check_threads(*op, {tensor(ElementType::f32, {200003}, random_values(200003, 6)),
                      tensor(ElementType::f32, {}, {0.2}), tensor(ElementType::f32, {}, {0.5})});
}

TEST_CASE("LogSoftmax-5: stable for large values, NaN and infinities, axis errors") {
  const auto last = make("LogSoftmax", "opset5", {{"axis", "-1"}});
  // exp(1000) overflows; (x - max) - log(sum) does not.
  const std::vector<double> got =
      doubles(run(*last, {tensor(ElementType::f32, {1, 3}, {1000, 1001, 1002})}));
  const double lse = std::log(std::exp(-2.0) + std::exp(-1.0) + 1.0);
  const std::vector<double> want = {-2 - lse, -1 - lse, -lse};
  for (std::size_t i = 0; i < 3; ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-6));
  // A tiny probability keeps its logarithm rather than -inf.
  CHECK(doubles(run(*last, {tensor(ElementType::f32, {2}, {0, -200})}))[1] ==
        doctest::Approx(-200).epsilon(1e-6));
  // -inf gives -inf; a NaN or +inf makes the slice NaN, as Softmax.
  const std::vector<double> neg = doubles(run(*last, {tensor(ElementType::f32, {2}, {0, -inf})}));
  CHECK(neg[0] == 0);
  CHECK(neg[1] == -inf);
  for (const double bad : {std::nan(""), inf}) {
    const std::vector<double> v = doubles(run(*last, {tensor(ElementType::f16, {2}, {0, bad})}));
    CHECK(std::isnan(v[0]));
    CHECK(std::isnan(v[1]));
  }
  // The default axis is 1; axes lie in [-rank, rank).
  const auto fallback = make("LogSoftmax", "opset5");
  CHECK(fallback->attributes() == std::vector<std::pair<std::string, std::string>>{{"axis", "1"}});
  const std::vector<double> cols =
      doubles(run(*fallback, {tensor(ElementType::f32, {2, 2}, {0, 0, 5, 5})}));
  CHECK(cols[0] == doctest::Approx(-std::log(2.0)));
  CHECK(cols[3] == doctest::Approx(-std::log(2.0)));
  CHECK(infer_error(*make("LogSoftmax", "opset5", {{"axis", "-3"}}),
                    {info(ElementType::f32, "[2,?]")})
            .find("axis") != std::string::npos);
  CHECK(infer_error(*fallback, {info(ElementType::f32, "[4]")}).find("axis") != std::string::npos);
  CHECK(inferred(*fallback, {info(ElementType::bf16, "[?,?,3]")}) == "bf16 [?,?,3]");
  CHECK(infer_error(*fallback, {info(ElementType::i32, "[2,2]")}).find("data must be") !=
        std::string::npos);
  CHECK(op_def("LogSoftmax", "opset16").version == 5);
}

// BatchNormInference-1/5, MVN-1/6 and NormalizeL2-1: shape rules and their located errors,
// attributes, worked examples, and the kernels against plain double references
// (tests/reference/normalization.hpp) on random shapes, axes, attributes and element types;
// every result is also checked to be the same bits on any number of threads.

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "reference/normalization.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;

std::string error_text(const std::optional<Error>& e) {
  return e ? std::string(e->what()) : std::string();
}

/// Relative tolerance of a float type's results against a double reference.
double tolerance(ElementType type) {
  switch (type) {
    case ElementType::f16: return 4e-3;
    case ElementType::bf16: return 3e-2;
    case ElementType::f32: return 2e-5;
    default: return 1e-11;
  }
}

void check_close(const Tensor& got, const std::vector<double>& want, ElementType type,
                 double scale = 1) {
  const std::vector<double> g = doubles(got);
  REQUIRE(g.size() == want.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    CAPTURE(i);
    CAPTURE(g[i]);
    CAPTURE(want[i]);
    CHECK(std::fabs(g[i] - want[i]) <= tolerance(type) * (std::fabs(want[i]) + scale));
  }
}

/// The op's output on one thread, checked to be the same bits on every test pool.
Tensor run_everywhere(const Op& op, const std::vector<Tensor>& inputs) {
  const auto outs = infer_at_run_time(op, inputs, 1);
  const Tensor one = allocate_and_execute(op, inputs, outs)[0];
  for (ThreadPool* pool : test_pools()) {
    const Tensor many = allocate_and_execute(op, inputs, outs, ExecContext{Parallel(pool)})[0];
    for (std::size_t i = 0; i < one.size(); ++i) {
      CAPTURE(i);
      REQUIRE(same_bits(one, many, i));
    }
  }
  return one;
}

/// Random values of `type` in [lo, hi), rounded to the type, and their doubles.
Tensor random_tensor(ElementType type, const Shape& shape, std::mt19937& rng, double lo,
                     double hi) {
  std::vector<double> v(reference::count(shape));
  std::uniform_real_distribution<double> d(lo, hi);
  for (double& x : v) x = d(rng);
  return tensor(type, shape, v);
}

const ElementType kFloatTypes[] = {ElementType::f32, ElementType::f16, ElementType::bf16,
                                   ElementType::f64};

}  // namespace

TEST_CASE("BatchNormInference shape rule: input orders, channels, errors") {
  const auto v5 = make("BatchNormInference", "opset5", {{"epsilon", "0.001"}});
  const auto v1 = make("BatchNormInference", "opset1", {{"epsilon", "0.001"}});
  const auto f = ElementType::f32;
  CHECK(inferred(*v5, {info(f, "[2,3,4,5]"), info(f, "[3]"), info(f, "[3]"), info(f, "[3]"),
                       info(f, "[3]")}) == "f32 [2,3,4,5]");
  // The channel extent is learnt from the per-channel inputs.
  CHECK(inferred(*v5, {info(f, "[2,?]"), info(f, "[?]"), info(f, "[2..6]"), info(f, "[4..]"),
                       info(f, "[...]")}) == "f32 [2,4..6]");
  CHECK(inferred(*v1, {info(f, "[3]"), info(f, "[3]"), info(f, "[...]"), info(f, "[3]"),
                       info(f, "[3]")}) == "f32 [...]");
  const auto e1 = caught([&] {
    (void)v1->infer(std::vector<ValueInfo>{info(f, "[4]"), info(f, "[3]"), info(f, "[2,3]"),
                                           info(f, "[3]"), info(f, "[3]")});
  });
  CHECK(error_text(e1).find("gamma [4] must be as long as the channel axis (3) of data [2,3]") !=
        std::string::npos);
  CHECK(e1->context().port == 0);
  const auto e2 = caught([&] {
    (void)v5->infer(std::vector<ValueInfo>{info(f, "[2,3]"), info(f, "[3]"), info(f, "[3]"),
                                           info(f, "[3]"), info(f, "[1,3]")});
  });
  CHECK(error_text(e2).find("variance must be 1-D, got [1,3]") != std::string::npos);
  CHECK(e2->context().port == 4);
  const auto e3 = caught([&] {
    (void)v5->infer(std::vector<ValueInfo>{info(f, "[3]"), info(f, "[3]"), info(f, "[3]"),
                                           info(f, "[3]"), info(f, "[3]")});
  });
  CHECK(error_text(e3).find("data must have rank 2 or more") != std::string::npos);
  CHECK(e3->context().port == 0);
  const auto e4 = caught([&] {
    (void)v1->infer(std::vector<ValueInfo>{info(f, "[3]"), info(ElementType::f16, "[3]"),
                                           info(f, "[2,3]"), info(f, "[3]"), info(f, "[3]")});
  });
  CHECK(error_text(e4).find("beta must be f32 as the data is, got f16") != std::string::npos);
  CHECK(e4->context().port == 1);
  CHECK(error_text(caught([] { make("BatchNormInference", "opset5", {{"epsilon", "-1"}}); }))
            .find("expected a finite number >= 0") != std::string::npos);
  CHECK(error_text(caught([] { make("BatchNormInference", "opset5"); })).find("epsilon") !=
        std::string::npos);
}

TEST_CASE("BatchNormInference v1 and v5 compute the same from their own input orders") {
  const Tensor x = tensor(ElementType::f32, {1, 2, 2}, {1, 2, 3, 4});
  const Tensor gamma = tensor(ElementType::f32, {2}, {2, 0.5});
  const Tensor beta = tensor(ElementType::f32, {2}, {1, -1});
  const Tensor mean = tensor(ElementType::f32, {2}, {1.5, 3});
  const Tensor var = tensor(ElementType::f32, {2}, {0.25, 4});
  const auto v5 = make("BatchNormInference", "opset5", {{"epsilon", "0"}});
  const auto v1 = make("BatchNormInference", "opset1", {{"epsilon", "0"}});
  // Channel 0: (x - 1.5) / 0.5 * 2 + 1; channel 1: (x - 3) / 2 * 0.5 - 1.
  const std::vector<double> want{-1, 3, -1, -0.75};
  CHECK(doubles(run(*v5, {x, gamma, beta, mean, var})) == want);
  CHECK(doubles(run(*v1, {gamma, beta, x, mean, var})) == want);
  // Through the loader, v1's data at port 2.
  OpTester t("BatchNormInference", "opset1");
  t.attr("epsilon", "0");
  t.input_const("gamma", gamma).input_const("beta", beta);
  t.input_parameter("x", x, ps("[?,?,?]"));
  t.input_const("mean", mean).input_const("variance", var);
  CHECK(doubles(t.run()[0]) == want);
  const auto e = caught(
      [&] { t.run({{"x", tensor(ElementType::f32, {1, 3, 1}, {1, 2, 3})}}); });
  REQUIRE(e);
  CHECK(e->context().layer_name == "op");
}

TEST_CASE("BatchNormInference matches the reference on random shapes, types and threads") {
  std::mt19937 rng(5);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 40; ++iter) {
    const ElementType type = kFloatTypes[iter % 4];
    const bool v1 = iter % 3 == 0;
    Shape shape{pick(1, 3), pick(1, 6)};
    for (int r = pick(0, 3); r > 0; --r) shape.push_back(pick(1, 7));
    if (pick(0, 4) == 0) shape.back() *= 500;
    const auto c = static_cast<std::int64_t>(shape[1]);
    const double eps = pick(0, 1) ? 1e-5 : 0.5;
    CAPTURE(to_string(type));
    CAPTURE(to_string(shape));
    const Tensor x = random_tensor(type, shape, rng, -3, 3);
    const Tensor gamma = random_tensor(type, {c}, rng, -2, 2);
    const Tensor beta = random_tensor(type, {c}, rng, -2, 2);
    const Tensor mean = random_tensor(type, {c}, rng, -1, 1);
    const Tensor var = random_tensor(type, {c}, rng, 0.1, 3);
    const auto op = make("BatchNormInference", v1 ? "opset1" : "opset5",
                         {{"epsilon", std::to_string(eps)}});
    const Tensor got = v1 ? run_everywhere(*op, {gamma, beta, x, mean, var})
                          : run_everywhere(*op, {x, gamma, beta, mean, var});
    const auto want = reference::batch_norm(doubles(x), shape, doubles(gamma), doubles(beta),
                                            doubles(mean), doubles(var), std::stod(std::to_string(eps)));
    check_close(got, want, type, 4);
  }
}

TEST_CASE("MVN attributes, registry and shape rules") {
  std::string why;
  CHECK(resolve_op("MVN", "opset1", &why) == nullptr);  // v0::MVN came with opset2
  CHECK(resolve_op("MVN", "opset2", &why)->version == 1);
  CHECK(resolve_op("MVN", "opset5", &why)->version == 1);
  CHECK(resolve_op("MVN", "opset6", &why)->version == 6);
  const auto v6 = make("MVN", "opset6",
                       {{"eps", "1e-9"}, {"normalize_variance", "true"}, {"eps_mode", "OUTSIDE_SQRT"}});
  CHECK(v6->attributes() == Attrs{{"eps", "1e-09"}, {"normalize_variance", "true"},
                                  {"eps_mode", "outside_sqrt"}});
  const Tensor axes = i64s({2, 3});
  CHECK(inferred(*v6, {info(ElementType::f32, "[?,3,4..8,5]"), info(axes)}) ==
        "f32 [?,3,4..8,5]");
  const Tensor bad = i64s({1, -2});
  const auto e = caught([&] {
    (void)v6->infer(std::vector<ValueInfo>{info(ElementType::f32, "[2,3,4]"), info(bad)});
  });
  CHECK(error_text(e).find("axis 1 is given twice") != std::string::npos);
  CHECK(e->context().port == 1);
  const Tensor far = i64s({3});
  CHECK(error_text(caught([&] {
          (void)v6->infer(std::vector<ValueInfo>{info(ElementType::f32, "[2,3,4]"), info(far)});
        })).find("axis 3 is out of the tensor rank range [-3, 2]") != std::string::npos);
  CHECK(error_text(caught([&] {
          (void)v6->infer(
              std::vector<ValueInfo>{info(ElementType::f32, "[2,3]"), info(ElementType::i64, "[3]")});
        })).find("names more axes than the data [2,3] has") != std::string::npos);
  CHECK(error_text(caught([&] {
          (void)v6->infer(
              std::vector<ValueInfo>{info(ElementType::f32, "[2,3]"), info(ElementType::i64, "[]")});
        })).find("axes must be 1-D") != std::string::npos);
  CHECK(error_text(caught([] {
          make("MVN", "opset6", {{"eps", "1e-9"}, {"normalize_variance", "true"}, {"eps_mode", "inside"}});
        })).find("inside") != std::string::npos);
  CHECK(error_text(caught([] { make("MVN", "opset6", {{"eps", "1e-9"}}); })).find("eps_mode") !=
        std::string::npos);
  const auto v1 = make("MVN", "opset2", {{"eps", "1e-9"}, {"reduction_axes", "1,5"}});
  CHECK(error_text(caught([&] { (void)v1->infer(std::vector<ValueInfo>{info(ElementType::f32, "[2,3,4]")}); }))
            .find("reduction_axes: axis 5 is out of the tensor rank range") != std::string::npos);
  CHECK(inferred(*v1, {info(ElementType::f32, "[...]")}) == "f32 [...]");
}

TEST_CASE("MVN worked example: instance and layer normalisation") {
  const Tensor x = tensor(ElementType::f32, {1, 2, 2}, {1, 3, 0, 6});
  const auto inst = make("MVN", "opset2",
                         {{"eps", "0"}, {"across_channels", "false"}, {"normalize_variance", "true"}});
  CHECK(doubles(run(*inst, {x})) == std::vector<double>{-1, 1, -1, 1});
  const auto centred = make("MVN", "opset2", {{"eps", "0"}, {"across_channels", "true"},
                                              {"normalize_variance", "false"}});
  CHECK(doubles(run(*centred, {x})) == std::vector<double>{-1.5, 0.5, -2.5, 3.5});
  // outside_sqrt: (x - mean) / (std + eps), the standard deviations being 1 and 3.
  const auto v6 = make("MVN", "opset6",
                       {{"eps", "1"}, {"normalize_variance", "true"}, {"eps_mode", "outside_sqrt"}});
  CHECK(doubles(run(*v6, {x, i64s({-1})})) == std::vector<double>{-0.5, 0.5, -0.75, 0.75});
  // inside_sqrt: / sqrt(var + eps), var 1 and 9.
  const auto in6 = make("MVN", "opset6",
                        {{"eps", "3"}, {"normalize_variance", "true"}, {"eps_mode", "inside_sqrt"}});
  const auto r = doubles(run(*in6, {x, i64s({2})}));
  CHECK(r[0] == -0.5);
  CHECK(r[1] == 0.5);
  CHECK(r[2] == doctest::Approx(-3 / std::sqrt(12.0)));
  CHECK(r[3] == doctest::Approx(3 / std::sqrt(12.0)));
  const auto e = caught([&] { run(*v6, {x, i64s({0, 0})}); });
  CHECK(error_text(e).find("axis 0 is given twice") != std::string::npos);
  CHECK(e->code() == ErrorCode::value);
}

TEST_CASE("MVN matches the reference on random shapes, axes, attributes and threads") {
  std::mt19937 rng(17);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 80; ++iter) {
    const ElementType type = kFloatTypes[iter % 4];
    const bool v1 = iter % 3 == 0;
    const auto rank = static_cast<std::size_t>(pick(1, 5));
    Shape shape(rank);
    for (auto& d : shape) d = pick(1, 5);
    if (pick(0, 4) == 0) shape[rank - 1] *= 200;
    if (pick(0, 4) == 0) shape[0] *= 100;
    std::vector<bool> mask(rank, false);
    std::vector<std::int64_t> axes;
    bool across = false;
    // Half the cases take the common NCHW forms (a suffix of axes), half any set.
    if (pick(0, 1) || (v1 && pick(0, 1))) {
      across = pick(0, 1) == 1;
      for (std::size_t d = across ? 1 : 2; d < rank; ++d) {
        mask[d] = true;
        axes.push_back(static_cast<std::int64_t>(d));
      }
    } else {
      for (std::size_t d = 0; d < rank; ++d)
        if (pick(0, 1)) {
          mask[d] = true;
          axes.push_back(pick(0, 1) ? static_cast<std::int64_t>(d)
                                    : static_cast<std::int64_t>(d) - static_cast<std::int64_t>(rank));
        }
      std::shuffle(axes.begin(), axes.end(), rng);
    }
    const bool normalize_variance = pick(0, 3) != 0;
    const bool inside = v1 || pick(0, 1);
    const double eps = pick(0, 1) ? 1e-9 : 0.25;
    CAPTURE(to_string(type));
    CAPTURE(to_string(shape));
    CAPTURE(v1);
    CAPTURE(normalize_variance);
    const Tensor x = random_tensor(type, shape, rng, -4, 4);
    Attrs attrs{{"eps", eps == 0.25 ? "0.25" : "1e-9"},
                {"normalize_variance", normalize_variance ? "true" : "false"}};
    Tensor got;
    if (v1) {
      if (axes.empty() || pick(0, 1)) {
        attrs.push_back({"across_channels", across ? "true" : "false"});
        mask.assign(rank, false);
        for (std::size_t d = across ? 1 : 2; d < rank; ++d) mask[d] = true;
      } else {
        std::string list;
        for (const auto a : axes) list += (list.empty() ? "" : ",") + std::to_string(a);
        attrs.push_back({"reduction_axes", list});
      }
      got = run_everywhere(*make("MVN", "opset2", attrs), {x});
    } else {
      attrs.push_back({"eps_mode", inside ? "inside_sqrt" : "outside_sqrt"});
      got = run_everywhere(*make("MVN", "opset6", attrs),
                           {x, ints(ElementType::i32, {static_cast<std::int64_t>(axes.size())},
                                    axes)});
    }
    const auto want = reference::mvn(doubles(x), shape, mask, normalize_variance,
                                     eps == 0.25 ? 0.25 : static_cast<double>(static_cast<float>(1e-9)),
                                     inside);
    // Normalised values of a group are of order 1; a nearly constant group may amplify the
    // rounding of its mean, which the looser scale allows for.
    check_close(got, want, type, normalize_variance ? 8 : 4);
  }
}

TEST_CASE("NormalizeL2 shape rule, attributes and errors") {
  const auto op = make("NormalizeL2", "opset1", {{"eps", "1e-6"}, {"eps_mode", "max"}});
  CHECK(op->attributes() == Attrs{{"eps", "1e-06"}, {"eps_mode", "max"}});
  const Tensor axes = i64s({1});
  CHECK(inferred(*op, {info(ElementType::f16, "[?,3..4,5]"), info(axes)}) == "f16 [?,3..4,5]");
  const Tensor scalar_axis = ints(ElementType::i32, {}, {-1});
  CHECK(inferred(*op, {info(ElementType::f32, "[2,3]"), info(scalar_axis)}) == "f32 [2,3]");
  const Tensor bad = i64s({2});
  const auto e = caught([&] {
    (void)op->infer(std::vector<ValueInfo>{info(ElementType::f32, "[2,3]"), info(bad)});
  });
  CHECK(error_text(e).find("axis 2 is out of the tensor rank range [-2, 1]") != std::string::npos);
  CHECK(e->context().port == 1);
  CHECK(error_text(caught([&] {
          (void)op->infer(std::vector<ValueInfo>{info(ElementType::f32, "[2,3]"),
                                                 info(ElementType::i64, "[1,1]")});
        })).find("axes must be a scalar or 1-D") != std::string::npos);
  CHECK(error_text(caught([] { make("NormalizeL2", "opset1", {{"eps", "1e-6"}, {"eps_mode", "min"}}); }))
            .find("min") != std::string::npos);
  CHECK(error_text(caught([] { make("NormalizeL2", "opset1", {{"eps_mode", "add"}}); }))
            .find("eps") != std::string::npos);
}

TEST_CASE("NormalizeL2 worked examples, empty axes, through the loader") {
  const Tensor x = tensor(ElementType::f32, {2, 2}, {3, 4, 0, 0});
  const auto add = make("NormalizeL2", "opset1", {{"eps", "0"}, {"eps_mode", "add"}});
  // A zero row with eps 0 divides 0 by 0, as the formula says.
  const auto r = doubles(run(*add, {x, i64s({1})}));
  CHECK(r[0] == doctest::Approx(0.6));
  CHECK(r[1] == doctest::Approx(0.8));
  CHECK(std::isnan(r[2]));
  CHECK(std::isnan(r[3]));
  // max: the norm 5 is raised to sqrt(100).
  const auto mx = make("NormalizeL2", "opset1", {{"eps", "100"}, {"eps_mode", "max"}});
  const auto m = doubles(run(*mx, {x, i64s({1})}));
  CHECK(m[0] == doctest::Approx(0.3));
  CHECK(m[1] == doctest::Approx(0.4));
  CHECK(m[2] == 0);
  // No axes: 0 for a zero element, 1 for every other, whatever its sign.
  const Tensor y = tensor(ElementType::f32, {3}, {-2, 0, 5});
  const Tensor none = ints(ElementType::i64, {0}, {});
  CHECK(doubles(run(*add, {y, none})) == std::vector<double>{1, 0, 1});
  OpTester t("NormalizeL2", "opset1");
  t.attr("eps", "1e-12").attr("eps_mode", "add");
  t.input_parameter("x", ElementType::f32, ps("[?,?]"));
  t.input_parameter("axes", ElementType::i64, ps("[?]"));
  const auto out = t.run({{"x", x}, {"axes", i64s({0})}});
  CHECK(doubles(out[0])[0] == doctest::Approx(1));
  CHECK(doubles(out[0])[2] == 0);
  const auto e = caught([&] { t.run({{"x", x}, {"axes", i64s({7})}}); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
  CHECK(e->context().layer_name == "op");
  CHECK(e->context().port == 1);
}

TEST_CASE("NormalizeL2 matches the reference on random shapes, axes, modes and threads") {
  std::mt19937 rng(23);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 60; ++iter) {
    const ElementType type = kFloatTypes[iter % 4];
    const auto rank = static_cast<std::size_t>(pick(1, 4));
    Shape shape(rank);
    for (auto& d : shape) d = pick(1, 5);
    if (pick(0, 3) == 0) shape[0] *= 300;
    std::vector<bool> mask(rank, false);
    std::vector<std::int64_t> axes;
    for (std::size_t d = 0; d < rank; ++d)
      if (pick(0, 2) != 0) {
        mask[d] = true;
        axes.push_back(static_cast<std::int64_t>(d));
      }
    const bool add = pick(0, 1) == 1;
    const double eps = pick(0, 1) ? 1e-6 : 2.0;
    CAPTURE(to_string(type));
    CAPTURE(to_string(shape));
    CAPTURE(axes.size());
    const Tensor x = random_tensor(type, shape, rng, -3, 3);
    const auto op = make("NormalizeL2", "opset1",
                         {{"eps", eps == 2.0 ? "2" : "1e-6"}, {"eps_mode", add ? "add" : "max"}});
    const Tensor got = run_everywhere(
        *op, {x, ints(ElementType::i64, {static_cast<std::int64_t>(axes.size())}, axes)});
    const auto want = reference::normalize_l2(
        doubles(x), shape, mask, eps == 2.0 ? 2.0 : static_cast<double>(static_cast<float>(1e-6)),
        add, axes.empty());
    check_close(got, want, type, 1);
  }
}

TEST_CASE("MVN and NormalizeL2 on few large groups: each group split over threads, same bits") {
  // Two channels of 256 x 300: fewer groups than threads, so each group is summed in blocks.
  std::mt19937 rng(41);
  const Shape shape{1, 2, 256, 300};
  std::vector<bool> mask{false, false, true, true};
  for (const ElementType type : {ElementType::f32, ElementType::f16}) {
    CAPTURE(to_string(type));
    // Data with a large mean, where summing the squares around the mean matters.
    const Tensor x = random_tensor(type, shape, rng, 90, 110);
    const auto mvn = make("MVN", "opset6", {{"eps", "1e-9"}, {"normalize_variance", "true"},
                                            {"eps_mode", "inside_sqrt"}});
    check_close(run_everywhere(*mvn, {x, i64s({2, 3})}),
                reference::mvn(doubles(x), shape, mask, true, static_cast<float>(1e-9), true), type,
                8);
    const auto l2 = make("NormalizeL2", "opset1", {{"eps", "1e-6"}, {"eps_mode", "add"}});
    check_close(run_everywhere(*l2, {x, i64s({1, 2, 3})}),
                reference::normalize_l2(doubles(x), shape, {false, true, true, true},
                                        static_cast<float>(1e-6), true, false),
                type, 0);
  }
}

TEST_CASE("MVN through the loader on dynamic shapes, with axes given at run time") {
  OpTester v1("MVN", "opset2");
  v1.attr("eps", "1e-9").attr("across_channels", true).attr("normalize_variance", false);
  v1.input_parameter("x", ElementType::f32, ps("[?,?,?]"));
  auto out = v1.run({{"x", tensor(ElementType::f32, {2, 1, 2}, {1, 3, 10, 20})}});
  CHECK(doubles(out[0]) == std::vector<double>{-1, 1, -5, 5});
  out = v1.run({{"x", tensor(ElementType::f32, {1, 2, 1}, {4, 8})}});
  CHECK(doubles(out[0]) == std::vector<double>{-2, 2});
  OpTester v6("MVN", "opset6");
  v6.attr("eps", "0").attr("normalize_variance", false).attr("eps_mode", "inside_sqrt");
  v6.input_parameter("x", ElementType::f32, ps("[?,?]"));
  v6.input_parameter("axes", ElementType::i32, ps("[?]"));
  const Tensor x = tensor(ElementType::f32, {2, 2}, {1, 3, 10, 20});
  out = v6.run({{"x", x}, {"axes", ints(ElementType::i32, {1}, {0})}});
  CHECK(doubles(out[0]) == std::vector<double>{-4.5, -8.5, 4.5, 8.5});
  const auto e = caught([&] { v6.run({{"x", x}, {"axes", ints(ElementType::i32, {1}, {-3})}}); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
  CHECK(e->context().layer_name == "op");
  CHECK(e->context().port == 1);
  CHECK(std::string(e->message()).find("axis -3 is out of the tensor rank range [-2, 1]") !=
        std::string::npos);
}

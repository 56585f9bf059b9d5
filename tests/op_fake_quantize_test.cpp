// FakeQuantize-1: the formula and its branches, halves rounded to even, input_low above
// input_high, NaN and infinities, the floating-point types and limits of another one, the
// attributes, the shape rule under each auto_broadcast with its errors, and the kernel against a
// plain reference on random shapes, limits and values, on any number of threads.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
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
#include "reference/quantize.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

std::unique_ptr<const Op> make_fq(std::int64_t levels, const char* broadcast = "numpy") {
  Attributes a;
  a.add("levels", std::to_string(levels));
  a.add("auto_broadcast", broadcast);
  return op_def("FakeQuantize", "opset1").create(a);
}

/// FakeQuantize of f32 values with scalar limits.
std::vector<double> quantized(const std::vector<double>& x, double il, double ih, double ol,
                              double oh, std::int64_t levels) {
  const auto scalar = [](double v) { return tensor(ElementType::f32, {}, {v}); };
  const Tensor data = tensor(ElementType::f32, {static_cast<std::int64_t>(x.size())}, x);
  return doubles(run(*make_fq(levels), {data, scalar(il), scalar(ih), scalar(ol), scalar(oh)}));
}

std::string error_of(const Op& op, const std::vector<ValueInfo>& inputs) {
  const auto e = caught([&] { (void)op.infer(inputs); });
  return e ? e->what() : "";
}

}  // namespace

TEST_CASE("FakeQuantize: the formula, its branches and halves to even") {
  // [0, 4] onto 5 levels of [10, 50]: each level is 10 wide.
  CHECK(quantized({-1, 0, 0.25, 1, 3.9, 4, 4.5}, 0, 4, 10, 50, 5) ==
        std::vector<double>{10, 10, 10, 20, 50, 50, 50});
  // Halves go to the even level: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 3.5 -> 4 (with levels of 1 on
  // [0, 4], output = level).
  CHECK(quantized({0.5, 1.5, 2.5, 3.5}, 0, 4, 0, 4, 5) == std::vector<double>{0, 2, 2, 4});
  // x equal to input_low is the low branch; to input_high, the formula's top level.
  CHECK(quantized({2, 6}, 2, 6, -1, 1, 3) == std::vector<double>{-1, 1});
  // Two levels: binarisation at the middle (a half goes to 0, the even level).
  CHECK(quantized({-1, -0.1, 0, 0.1, 1}, -1, 1, 0, 1, 2) == std::vector<double>{0, 0, 0, 1, 1});
  // The output range may be reversed.
  CHECK(quantized({0, 1, 2, 3, 4}, 0, 4, 4, 0, 5) == std::vector<double>{4, 3, 2, 1, 0});
  // The formula's own arithmetic: (x - il) / (ih - il) * (levels - 1), not x times a scale.
  const float x = 0.3f, il = 0.1f, ih = 0.7f;
  const float level = std::nearbyint((x - il) / (ih - il) * 255.0f);
  CHECK(quantized({x}, il, ih, -2, 2, 256)[0] ==
        static_cast<double>(level / 255.0f * (2.0f - -2.0f) + -2.0f));
}

TEST_CASE("FakeQuantize: input_low above input_high, NaN and infinities") {
  // il = 4 > ih = 0: at or below 0 is output_low, above 4 output_high, and in between the
  // formula with a negative range counts the levels down from il.
  CHECK(quantized({-1, 0, 1, 2, 3, 4, 5}, 4, 0, 0, 4, 5) ==
        std::vector<double>{0, 0, 3, 2, 1, 0, 4});
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> got = quantized({std::nan(""), inf, -inf}, -1, 1, -5, 5, 256);
  CHECK(std::isnan(got[0]));
  CHECK(got[1] == 5);
  CHECK(got[2] == -5);
  // input_low == input_high: a threshold between the two outputs.
  CHECK(quantized({0.5, 1, 1.5}, 1, 1, -3, 3, 256) == std::vector<double>{-3, -3, 3});
}

TEST_CASE("FakeQuantize: f16, bf16 and f64, and limits of another floating-point type") {
  const std::vector<double> x = {-3, -0.7, 0.013, 0.5, 1.26, 2.9, 9};
  for (const ElementType type :
       {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64})
    for (const ElementType limit_type : {type, ElementType::f32, ElementType::f64}) {
      CAPTURE(to_string(type));
      CAPTURE(to_string(limit_type));
      OpTester t("FakeQuantize", "opset1", "fq");
      t.attr("levels", 17);
      t.input_parameter("x", tensor(type, {1, 1, 7}, x));
      t.input_const("il", tensor(limit_type, {}, {-0.9}));
      t.input_const("ih", tensor(limit_type, {1}, {2.1}));
      t.input_const("ol", tensor(limit_type, {1, 1}, {-1.3}));
      t.input_const("oh", tensor(limit_type, {}, {1.7}));
      const Tensor got = t.run().at(0);
      CHECK(got.element_type() == type);
      // The limits as their own type holds them, rounded to the data's type, then the formula
      // in its compute type.
      const auto as_type = [&](double v) {
        return tensor(type, {}, doubles(tensor(limit_type, {}, {v})));
      };
      Tensor want;
      dispatch_float(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        want = reference::fake_quantize<T>(
            tensor(type, {1, 1, 7}, x), {as_type(-0.9), as_type(2.1), as_type(-1.3), as_type(1.7)},
            17);
      });
      CHECK(std::memcmp(got.data(), want.data(), got.byte_size()) == 0);
      CHECK(doubles(got)[0] == doubles(as_type(-1.3))[0]);
    }
}

TEST_CASE("FakeQuantize: attributes") {
  const auto refused = [](std::vector<std::pair<const char*, const char*>> attrs) {
    Attributes a;
    for (const auto& [k, v] : attrs) a.add(k, v);
    const auto e = caught([&] { (void)op_def("FakeQuantize", "opset1").create(a); });
    return e ? std::string(e->what()) : std::string();
  };
  CHECK(refused({{"auto_broadcast", "numpy"}}).find("levels") != std::string::npos);
  CHECK(refused({{"levels", "1"}}).find("must be at least 2") != std::string::npos);
  CHECK(refused({{"levels", "-3"}}).find("must be at least 2") != std::string::npos);
  CHECK(refused({{"levels", "256"}, {"auto_broadcast", "sideways"}}).find("auto_broadcast") !=
        std::string::npos);
  // auto_broadcast defaults to numpy, and is shown.
  Attributes a;
  a.add("levels", "256");
  const auto op = op_def("FakeQuantize", "opset1").create(a);
  CHECK(op->attributes() == std::vector<std::pair<std::string, std::string>>{
                                {"levels", "256"}, {"auto_broadcast", "numpy"}});
}

TEST_CASE("FakeQuantize: shape rule and errors") {
  const auto fq = make_fq(256);
  const auto with = [](const char* data, const char* limit) {
    return std::vector<ValueInfo>{info(ElementType::f32, data), info(ElementType::f32, "[]"),
                                  info(ElementType::f32, limit), info(ElementType::f32, "[1]"),
                                  info(ElementType::f32, "[]")};
  };
  // The output is the data's shape, static or not.
  CHECK(inferred(*fq, with("[1,3,8,8]", "[1,3,1,1]")) == "f32 [1,3,8,8]");
  CHECK(inferred(*fq, with("[?,3,?,?]", "[3,1,1]")) == "f32 [?,3,?,?]");
  CHECK(inferred(*fq, with("[...]", "[1,3,1,1]")) == "f32 [...]");
  CHECK(inferred(*fq, with("[2,?]", "[1..4]")) == "f32 [2,?]");
  // Leading dims of 1 beyond the data's rank are accepted.
  CHECK(inferred(*fq, with("[3,4]", "[1,1,4]")) == "f32 [3,4]");
  // A limit that would enlarge the data is refused at its port.
  CHECK(error_of(*fq, with("[1,3,8,8]", "[1,5,1,1]"))
            .find("input_high [1,5,1,1] does not broadcast to the data's shape [1,3,8,8] "
                  "(auto_broadcast=numpy)") != std::string::npos);
  CHECK(error_of(*fq, with("[1,1,8]", "[2,1,8]")).find("input_high [2,1,8]") != std::string::npos);
  CHECK(error_of(*fq, with("[3,4]", "[2,1,4]")).find("does not broadcast") != std::string::npos);
  CHECK(error_of(*fq, with("[3,4]", "[5..9,1]")).find("does not broadcast") != std::string::npos);
  // Integer data or limits are refused by type.
  CHECK(error_of(*fq, {info(ElementType::i32, "[2]"), info(ElementType::f32, "[]"),
                       info(ElementType::f32, "[]"), info(ElementType::f32, "[]"),
                       info(ElementType::f32, "[]")})
            .find("data must be") != std::string::npos);
  CHECK(error_of(*fq, {info(ElementType::f32, "[2]"), info(ElementType::f32, "[]"),
                       info(ElementType::f32, "[]"), info(ElementType::i8, "[]"),
                       info(ElementType::f32, "[]")})
            .find("output_low must be") != std::string::npos);
  // none: every limit has the data's shape.
  const auto exact = make_fq(256, "none");
  CHECK(inferred(*exact, {info(ElementType::f32, "[2,?]"), info(ElementType::f32, "[2,3]"),
                          info(ElementType::f32, "[?,3]"), info(ElementType::f32, "[...]"),
                          info(ElementType::f32, "[2,1..4]")}) == "f32 [2,?]");
  const std::vector<ValueInfo> scalar_limits = {
      info(ElementType::f32, "[2,3]"), info(ElementType::f32, "[2,3]"),
      info(ElementType::f32, "[2,3]"), info(ElementType::f32, "[1]"),
      info(ElementType::f32, "[2,3]")};
  CHECK(error_of(*exact, scalar_limits)
            .find("output_low [1] does not broadcast to the data's shape [2,3] "
                  "(auto_broadcast=none)") != std::string::npos);
  // Dynamic dims that may fit pass while loading; the real shapes are checked at run time,
  // located at the limit's port.
  OpTester t("FakeQuantize", "opset1", "fq");
  t.attr("levels", 3);
  t.input_parameter("x", ElementType::f32, ps("[?,?]"));
  t.input_const("il", tensor(ElementType::f32, {}, {0}));
  t.input_const("ih", tensor(ElementType::f32, {}, {1}));
  t.input_parameter("ol", ElementType::f32, ps("[?]"));
  t.input_const("oh", tensor(ElementType::f32, {}, {1}));
  CHECK_NOTHROW(t.load());
  const auto e = caught([&] {
    (void)t.run({{"x", tensor(ElementType::f32, {2, 4}, std::vector<double>(8, 0.5))},
                 {"ol", tensor(ElementType::f32, {3}, {0, 0, 0})}});
  });
  REQUIRE(e);
  CHECK(std::string(e->what()).find("'fq' (FakeQuantize-1), input port 3: output_low [3]") !=
        std::string::npos);
  const std::vector<Tensor> good =
      t.run({{"x", tensor(ElementType::f32, {2, 4}, std::vector<double>(8, 0.5))},
             {"ol", tensor(ElementType::f32, {4}, {0, 0, 0.5, 0.5})}});
  CHECK(doubles(good.at(0)) == std::vector<double>{0.5, 0.5, 0.75, 0.75, 0.5, 0.5, 0.75, 0.75});
}

TEST_CASE("FakeQuantize: pdpd places the limits at the axis") {
  Attributes a;
  a.add("levels", "3");
  a.add("auto_broadcast", "pdpd");
  a.add("axis", "1");
  const auto op = op_def("FakeQuantize", "opset1").create(a);
  // Limits of shape [3] run along axis 1 of [2,3,2].
  const Tensor x = tensor(ElementType::f32, {2, 3, 2}, {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1});
  const Tensor zero = tensor(ElementType::f32, {}, {0});
  const Tensor one = tensor(ElementType::f32, {}, {1});
  const Tensor oh = tensor(ElementType::f32, {3}, {2, 4, 6});
  CHECK(doubles(run(*op, {x, zero, one, zero, oh})) ==
        std::vector<double>{0, 2, 0, 4, 0, 6, 0, 2, 0, 4, 0, 6});
  CHECK(error_of(*op, {info(ElementType::f32, "[2,3,2]"), info(ElementType::f32, "[]"),
                       info(ElementType::f32, "[]"), info(ElementType::f32, "[]"),
                       info(ElementType::f32, "[2]")})
            .find("output_high [2] does not broadcast") != std::string::npos);
}

TEST_CASE(
    "FakeQuantize: random shapes and limits against a plain reference, on any thread "
    "count") {
  std::mt19937 rng(2024);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int round = 0; round < 300; ++round) {
    // Every 15th round, large enough to split over threads: a long last axis.
    const bool large = round % 15 == 0;
    const auto rank = static_cast<std::size_t>(large ? pick(1, 3) : pick(0, 5));
    Shape shape;
    for (std::size_t d = 0; d < rank; ++d) shape.push_back(pick(1, 6));
    if (large) shape.back() = pick(6000, 12000);
    // Each limit: per tensor, per channel (axis 1), or the trailing dims with some set to 1.
    std::vector<Shape> limit_shapes(4);
    const int kind = pick(0, 2);
    for (Shape& ls : limit_shapes) {
      if (kind == 0 || rank == 0) {
        ls = pick(0, 1) ? Shape{} : Shape{1};
      } else if (kind == 1 && rank > 1) {
        ls = Shape(rank, 1);
        ls[1] = shape[1];
      } else {
        const auto keep = static_cast<std::size_t>(pick(0, static_cast<int>(rank)));
        for (std::size_t d = rank - keep; d < rank; ++d) ls.push_back(pick(0, 2) ? shape[d] : 1);
      }
    }
    constexpr ElementType kTypes[] = {ElementType::f32,  ElementType::f16, ElementType::f32,
                                      ElementType::bf16, ElementType::f32, ElementType::f64};
    const ElementType type = kTypes[round % 6];
    const std::int64_t levels = pick(0, 3) ? 256 : pick(2, 17);
    CAPTURE(to_string(shape));
    CAPTURE(levels);
    CAPTURE(to_string(type));
    std::size_t size = 1;
    for (auto d : shape) size *= static_cast<std::size_t>(d);
    std::vector<double> xs(size);
    for (double& v : xs) v = pick(-4000, 4000) / 1000.0;
    std::vector<Tensor> inputs{tensor(type, shape, xs)};
    for (std::size_t k = 0; k < 4; ++k) {
      std::size_t n = 1;
      for (auto d : limit_shapes[k]) n *= static_cast<std::size_t>(d);
      std::vector<double> v(n);
      // Inputs limits around [-2, 2], sometimes reversed; output limits anywhere.
      for (double& e : v)
        e = k < 2 ? (k == 0 ? -2 : 2) * pick(1, 1000) / 1000.0 * (pick(0, 5) ? 1 : -1)
                  : pick(-3000, 3000) / 1000.0;
      inputs.push_back(tensor(type, limit_shapes[k], v));
    }
    const auto op = make_fq(levels);
    const Tensor got = run(*op, inputs);
    Tensor want;
    dispatch_float(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      want = reference::fake_quantize<T>(inputs[0], {inputs.begin() + 1, inputs.end()}, levels);
    });
    for (std::size_t i = 0; i < size; ++i)
      if (!same_bits(got, want, i))
        FAIL("element " << i << ": got " << element_text(got, i) << ", want "
                        << element_text(want, i));
    const auto infos = infer_at_run_time(*op, inputs, 1);
    for (ThreadPool* pool : test_pools()) {
      const auto many = allocate_and_execute(*op, inputs, infos, ExecContext{Parallel(pool)});
      CHECK(std::memcmp(many[0].data(), got.data(), got.byte_size()) == 0);
    }
  }
}

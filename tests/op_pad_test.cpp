// Pad-1/12: every mode worked out by hand on a row, Pad-12's cropping, the kernel against the
// plain reference of tests/reference/pad.hpp on random shapes, pads, modes, element types and
// thread counts, shapes from Const, unknown and bounded pads, and the located errors.

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "reference/pad.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

/// Every element as a double, booleans included.
std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v(t.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = element_as_double(t, i);
  return v;
}

std::string error_of(const std::function<void()>& f) {
  const auto e = caught(f);
  return e ? e->what() : "";
}

Tensor row(const std::vector<double>& v) {
  return tensor(ElementType::f32, {static_cast<std::int64_t>(v.size())}, v);
}

std::vector<double> padded(const char* opset, const char* mode, const std::vector<double>& v,
                           std::int64_t b, std::int64_t e, double value = 0) {
  const auto op = make("Pad", opset, {{"pad_mode", mode}});
  return values_of(run(*op, {row(v), i64s({b}), i64s({e}), tensor(ElementType::f32, {}, {value})}));
}

}  // namespace

TEST_CASE("Pad: each mode on a row, by hand") {
  const std::vector<double> x = {1, 2, 3, 4};
  CHECK(padded("opset1", "constant", x, 2, 1, 9) == std::vector<double>{9, 9, 1, 2, 3, 4, 9});
  CHECK(padded("opset1", "edge", x, 2, 1) == std::vector<double>{1, 1, 1, 2, 3, 4, 4});
  CHECK(padded("opset1", "reflect", x, 3, 2) == std::vector<double>{4, 3, 2, 1, 2, 3, 4, 3, 2});
  CHECK(padded("opset1", "symmetric", x, 4, 2) ==
        std::vector<double>{4, 3, 2, 1, 1, 2, 3, 4, 4, 3});
  // Pad-12 crops with negative pads; the mirror still reflects the whole input.
  CHECK(padded("opset12", "constant", x, -1, -2) == std::vector<double>{2});
  CHECK(padded("opset12", "reflect", x, -2, 3) == std::vector<double>{3, 4, 3, 2, 1});
  CHECK(padded("opset12", "symmetric", x, 1, -4) == std::vector<double>{1});
  // Without pad_value the constant is zero; a 2-D pad fills whole rows.
  const auto op = make("Pad", "opset1", {{"pad_mode", "constant"}});
  const Tensor out =
      run(*op, {tensor(ElementType::i32, {1, 2}, {5, 6}), i64s({1, 0}), i64s({0, 1})});
  CHECK(out.shape() == Shape{2, 3});
  CHECK(values_of(out) == std::vector<double>{0, 0, 0, 5, 6, 0});
  // Booleans pad too.
  const Tensor b = run(*make("Pad", "opset12", {{"pad_mode", "edge"}}),
                       {tensor(ElementType::boolean, {2}, {1, 0}), i64s({1}), i64s({1})});
  CHECK(values_of(b) == std::vector<double>{1, 1, 0, 0});
}

TEST_CASE("Pad: random cases against the reference, on every element type and thread count") {
  std::mt19937 rng(12);
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* const modes[] = {"constant", "edge", "reflect", "symmetric"};
  const ElementType types[] = {ElementType::f32, ElementType::f16,    ElementType::bf16,
                               ElementType::f64, ElementType::i8,     ElementType::u8,
                               ElementType::i16, ElementType::i32,    ElementType::i64,
                               ElementType::u64, ElementType::boolean};
  for (int i = 0; i < 400; ++i) {
    const ElementType type = types[static_cast<std::size_t>(i) % std::size(types)];
    const bool v12 = pick(2) == 0;
    const std::string mode = modes[pick(4)];
    const std::size_t rank = static_cast<std::size_t>(pick(5));
    Shape in(rank);
    std::vector<std::int64_t> b(rank), e(rank);
    for (std::size_t d = 0; d < rank; ++d) {
      in[d] = static_cast<std::size_t>(1 + pick(5));
      const auto n = static_cast<std::int64_t>(in[d]);
      // Within the mode's limit; Pad-12 may crop (at most the whole extent, both ends together).
      const std::int64_t limit = mode == "reflect" ? n - 1 : mode == "symmetric" ? n : 3;
      b[d] = pick(static_cast<int>(limit) + 1);
      e[d] = pick(static_cast<int>(limit) + 1);
      if (v12 && pick(3) == 0) b[d] = -pick(static_cast<int>(n) + 1);
      if (v12 && pick(3) == 0) e[d] = -pick(static_cast<int>(n + b[d]) + 1);
      if (n + b[d] + e[d] < 0) e[d] = -(n + b[d]);
    }
    std::size_t n = 1;
    for (const auto d : in) n *= d;
    std::vector<double> values(n);
    for (double& v : values)
      v = type == ElementType::boolean ? pick(2) : is_real(type) ? pick(200) / 4.0 - 20 : pick(100);
    const double value = type == ElementType::boolean ? 1 : 7;
    const Tensor data = tensor(type, in, values);
    const Tensor pad_value = tensor(type, {}, {value});
    CAPTURE(fmt::format("Pad-{} {} {} {} begin {} end {}", v12 ? 12 : 1, mode, to_string(type),
                        to_string(in), fmt::join(b, ","), fmt::join(e, ",")));
    const auto op = make("Pad", v12 ? "opset12" : "opset1", {{"pad_mode", mode}});
    const std::vector<Tensor> inputs = {data, i64s(b), i64s(e), pad_value};
    const Tensor one = run(*op, inputs);
    CHECK(values_of(one) == reference::pad(mode, in, b, e, values, value));
    std::vector<ValueInfo> infos;
    for (const Tensor& t : inputs) infos.push_back(info(t));
    const std::vector<OutputInfo> outs = op->infer(infos, Phase::run);
    for (ThreadPool* pool : test_pools()) {
      const std::vector<Tensor> many =
          allocate_and_execute(*op, inputs, outs, ExecContext{Parallel(pool)});
      CHECK(std::memcmp(many[0].data(), one.data(), one.byte_size()) == 0);
    }
  }
}

TEST_CASE("Pad: output shapes from Const, unknown and bounded pads") {
  const auto op = make("Pad", "opset12", {{"pad_mode", "constant"}});
  const Tensor b = i64s({1, -1, 0}), e = i64s({2, 0, 3});
  CHECK(inferred(*op, {info(ElementType::f32, "[2,4,?]"), info(b), info(e)}) == "f32 [5,3,3..]");
  CHECK(inferred(*op, {info(ElementType::f32, "[2,4,1..5]"), info(b), info(e)}) ==
        "f32 [5,3,4..8]");
  CHECK(inferred(*op, {info(ElementType::f32, "[2,4,5]"), info(ElementType::i64, "[3]"),
                       info(e)}) == "f32 [?,?,?]");
  CHECK(inferred(*op, {info(ElementType::f32, "[...]"), info(b), info(e)}) == "f32 [...]");
  // Cropping past an axis's extent leaves it empty, as Pad-12's max(..., 0) says.
  const Tensor crop = i64s({-4, 0}), one = i64s({1, 1});
  CHECK(inferred(*op, {info(ElementType::f32, "[2,3]"), info(crop), info(one)}) == "f32 [0,4]");
  CHECK(run(*op, {tensor(ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}), crop, one}).shape() ==
        Shape{0, 4});
  // Pads bounded by value propagation give intervals.
  const Tensor lo = i64s({0, 1, 2}), hi = i64s({2, 1, 4});
  ValueInfo bounded = info(ElementType::i64, "[3]");
  bounded.lower = &lo;
  bounded.upper = &hi;
  CHECK(inferred(*op, {info(ElementType::f32, "[2,4,5]"), bounded, info(e)}) ==
        "f32 [4..6,5,10..12]");
  // Pads at the ends of i64 do not wrap: the extent saturates, or crops to empty.
  const Tensor huge = i64s({INT64_MAX, INT64_MIN}), far = i64s({INT64_MAX, INT64_MIN});
  CHECK(inferred(*op, {info(ElementType::f32, "[2,3]"), info(huge), info(far)}) ==
        fmt::format("f32 [{},0]", INT64_MAX));
  CHECK(inferred(*op, {info(ElementType::f32, "[2..4,?]"), info(huge), info(far)}) ==
        fmt::format("f32 [{},?]", INT64_MAX));
}

TEST_CASE("Pad: dynamic shapes and pads given at run time") {
  OpTester t("Pad", "opset12");
  t.attr("pad_mode", "symmetric");
  t.input_parameter("x", ElementType::f32, ps("[?,?]"));
  t.input_parameter("b", ElementType::i32, ps("[2]"));
  t.input_parameter("e", ElementType::i32, ps("[2]"));
  const Tensor x = tensor(ElementType::f32, {2, 2}, {1, 2, 3, 4});
  const auto out = t.run({{"x", x},
                          {"b", tensor(ElementType::i32, {2}, {1, 0})},
                          {"e", tensor(ElementType::i32, {2}, {0, -1})}});
  CHECK(out[0].shape() == Shape{3, 1});
  CHECK(values_of(out[0]) == std::vector<double>{1, 1, 3});
  // A pad beyond the limit at run time is the input's value error.
  const auto e = caught([&] {
    t.run({{"x", x},
           {"b", tensor(ElementType::i32, {2}, {3, 0})},
           {"e", tensor(ElementType::i32, {2}, {0, 0})}});
  });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
}

TEST_CASE("Pad: located errors") {
  const auto data = info(ElementType::f32, "[2,3]");
  const Tensor two = i64s({1, 1});
  CHECK(error_of([] {
          make("Pad", "opset1", {{"pad_mode", "wrap"}});
        }).find("pad_mode") != std::string::npos);
  const auto reflect = make("Pad", "opset1", {{"pad_mode", "reflect"}});
  const Tensor big = i64s({2, 0});
  CHECK(error_of([&] {
          infer_outputs(*reflect, {data, info(big), info(two)});
        }).find("reflect padding needs pads_begin 2 of axis 0 below its extent 2") !=
        std::string::npos);
  const auto symmetric = make("Pad", "opset1", {{"pad_mode", "symmetric"}});
  const Tensor over = i64s({0, 4});
  CHECK(error_of([&] {
          infer_outputs(*symmetric, {data, info(two), info(over)});
        }).find("at most its extent 3") != std::string::npos);
  CHECK_NOTHROW(infer_outputs(*symmetric, {data, info(two), info(i64s({2, 3}))}));
  const auto constant = make("Pad", "opset1", {{"pad_mode", "constant"}});
  const Tensor negative = i64s({-1, 0});
  CHECK(error_of([&] {
          infer_outputs(*constant, {data, info(negative), info(two)});
        }).find("Pad-1 cannot") != std::string::npos);
  const auto v12 = make("Pad", "opset12", {{"pad_mode", "constant"}});
  CHECK(error_of([&] {
          infer_outputs(*v12, {data, info(i64s({1})), info(two)});
        }).find("one value per axis") != std::string::npos);
  CHECK(error_of([&] {
          infer_outputs(*v12, {data, info(two), info(two), info(ElementType::f32, "[1]")});
        }).find("scalar") != std::string::npos);
  CHECK(error_of([&] {
          infer_outputs(*v12, {data, info(two), info(two), info(ElementType::i32, "[]")});
        }).find("pad_value must be f32") != std::string::npos);
  CHECK(error_of([&] {
          infer_outputs(*v12, {data, info(ElementType::i64, "[2,1]"), info(two)});
        }).find("1-D") != std::string::npos);
  const auto edge = make("Pad", "opset12", {{"pad_mode", "edge"}});
  CHECK(error_of([&] {
          infer_outputs(*edge, {info(ElementType::f32, "[0,3]"), info(two), info(two)});
        }).find("at least one element") != std::string::npos);
  // Through a model, the error names the layer.
  OpTester t("Pad", "opset1", "padder");
  t.attr("pad_mode", "reflect");
  t.input_parameter("x", ElementType::f32, ps("[2,3]"));
  t.input_const("b", big);
  t.input_const("e", two);
  const auto e = caught([&] { t.load(); });
  REQUIRE(e);
  CHECK(std::string(e->what()).find("padder") != std::string::npos);
}

TEST_CASE("Pad: a large pad split over threads matches the reference") {
  // Enough rows that the copy runs in several chunks.
  const Shape in = {3, 70, 90};
  std::vector<double> values(static_cast<std::size_t>(3 * 70 * 90));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 97);
  const std::vector<std::int64_t> b = {1, -3, 2}, e = {2, 5, -4};
  for (const char* mode : {"constant", "edge", "reflect", "symmetric"}) {
    CAPTURE(mode);
    const auto op = make("Pad", "opset12", {{"pad_mode", mode}});
    const std::vector<Tensor> inputs = {tensor(ElementType::f32, in, values), i64s(b), i64s(e),
                                        tensor(ElementType::f32, {}, {-1})};
    std::vector<ValueInfo> infos;
    for (const Tensor& t : inputs) infos.push_back(info(t));
    const std::vector<OutputInfo> outs = op->infer(infos, Phase::run);
    const std::vector<double> want = reference::pad(mode, in, b, e, values, -1);
    for (ThreadPool* pool : test_pools()) {
      const std::vector<Tensor> got =
          allocate_and_execute(*op, inputs, outs, ExecContext{Parallel(pool)});
      CHECK(values_of(got[0]) == want);
    }
  }
}

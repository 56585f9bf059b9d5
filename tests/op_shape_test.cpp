// The shape ops and data movement: ShapeOf-1/3, Reshape-1, Squeeze-1, Unsqueeze-1, Concat-1,
// Transpose-1, Tile-1. Shape rules (static, interval and dynamic dims, dynamic rank, errors),
// kernels against plain oracles on random bytes of several element types and thread counts,
// load-time bounds carried through a model, and run-time re-inference.

#include <doctest/doctest.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/attributes.hpp"
#include "graph/op.hpp"
#include "graph_builder.hpp"
#include "irlite/irlite.hpp"
#include "kernels/data_movement.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "ops/registry.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;
constexpr auto f32 = ElementType::f32;
constexpr auto i32 = ElementType::i32;
constexpr auto i64 = ElementType::i64;


/// A Const input as the loader sees it.
ValueInfo known(const Tensor& t) {
  return info(t);
}

/// The message of the Error f() throws; fails the test when it returns.
template <class F>
std::string error_of(F&& f) {
  const std::optional<Error> e = caught(std::forward<F>(f));
  if (!e) FAIL("no error");
  return e->what();
}

/// A tensor of random bytes (any element type: floats may hold NaN; booleans get 0/1).
Tensor random_tensor(std::mt19937& rng, ElementType type, const Shape& shape) {
  Tensor t(type, shape);
  auto* p = static_cast<unsigned char*>(t.data());
  for (std::size_t i = 0; i < t.byte_size(); ++i)
    p[i] = static_cast<unsigned char>(type == ElementType::boolean ? rng() & 1 : rng());
  return t;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.element_type() == b.element_type() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.byte_size()) == 0;
}

std::size_t flat(const Shape& shape, const std::vector<std::int64_t>& coords) {
  std::size_t index = 0;
  for (std::size_t d = 0; d < shape.size(); ++d)
    index = index * static_cast<std::size_t>(shape[d]) + static_cast<std::size_t>(coords[d]);
  return index;
}

/// The coordinates of flat index i in shape.
std::vector<std::int64_t> coords_of(const Shape& shape, std::size_t i) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    c[d] = static_cast<std::int64_t>(i % static_cast<std::size_t>(shape[d]));
    i /= static_cast<std::size_t>(shape[d]);
  }
  return c;
}

/// Copies element `from` of src to element `to` of dst.
void copy_element(const Tensor& src, std::size_t from, Tensor& dst, std::size_t to) {
  const std::size_t size = element_size(src.element_type());
  std::memcpy(static_cast<std::byte*>(dst.data()) + to * size,
              static_cast<const std::byte*>(src.data()) + from * size, size);
}

// ---- Plain oracles: one element at a time, by coordinates. ----

Tensor transpose_oracle(const Tensor& in, const std::vector<std::int64_t>& order) {
  Shape out_shape;
  for (const std::int64_t a : order) out_shape.push_back(in.shape()[static_cast<std::size_t>(a)]);
  Tensor out(in.element_type(), out_shape);
  for (std::size_t o = 0; o < out.size(); ++o) {
    const std::vector<std::int64_t> oc = coords_of(out_shape, o);
    std::vector<std::int64_t> ic(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) ic[static_cast<std::size_t>(order[i])] = oc[i];
    copy_element(in, flat(in.shape(), ic), out, o);
  }
  return out;
}

Tensor tile_oracle(const Tensor& in, std::vector<std::int64_t> reps) {
  Shape shape = in.shape();
  while (shape.size() < reps.size()) shape.insert(shape.begin(), 1);
  while (reps.size() < shape.size()) reps.insert(reps.begin(), 1);
  Shape out_shape(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i)
    out_shape[i] = shape[i] * std::max<std::int64_t>(0, reps[i]);
  Tensor out(in.element_type(), out_shape);
  for (std::size_t o = 0; o < out.size(); ++o) {
    std::vector<std::int64_t> c = coords_of(out_shape, o);
    for (std::size_t d = 0; d < c.size(); ++d) c[d] %= shape[d];
    copy_element(in, flat(shape, c), out, o);
  }
  return out;
}

Tensor concat_oracle(const std::vector<Tensor>& ins, std::size_t axis, const Shape& out_shape) {
  Tensor out(ins[0].element_type(), out_shape);
  for (std::size_t o = 0; o < out.size(); ++o) {
    std::vector<std::int64_t> c = coords_of(out_shape, o);
    std::size_t k = 0;
    while (c[axis] >= ins[k].shape()[axis]) c[axis] -= ins[k++].shape()[axis];
    copy_element(ins[k], flat(ins[k].shape(), c), out, o);
  }
  return out;
}

constexpr ElementType kMovedTypes[] = {ElementType::f32, ElementType::f16,     ElementType::i8,
                                       ElementType::i64, ElementType::boolean, ElementType::u16};

}  // namespace

// ---------------------------------------------------------------------------------------------
// ShapeOf

TEST_CASE("ShapeOf shape rule and attributes") {
  const auto v1 = make("ShapeOf", "opset1");
  const auto v3 = make("ShapeOf", "opset3", {{"output_type", "i32"}});
  CHECK(inferred(*v1, {info(f32, "[2,3,4]")}) == "i64 [3]");
  CHECK(inferred(*v1, {info(ElementType::boolean, "[]")}) == "i64 [0]");
  CHECK(inferred(*v1, {info(f32, "[...]")}) == "i64 [?]");
  CHECK(inferred(*v3, {info(f32, "[?,2..8]")}) == "i32 [2]");
  CHECK(inferred(*make("ShapeOf", "opset3"), {info(f32, "[1]")}) == "i64 [1]");
  CHECK(op_def("ShapeOf", "opset2").version == 1);
  CHECK(op_def("ShapeOf", "opset16").version == 3);
  CHECK_THROWS_WITH_AS(make("ShapeOf", "opset3", {{"output_type", "f32"}}),
                       doctest::Contains("expected i32 or i64"), Error);
  CHECK(v3->attributes() == Attrs{{"output_type", "i32"}});
}

TEST_CASE("ShapeOf values for every element type, and its bounds") {
  std::mt19937 rng(1);
  for (const ElementType type : kMovedTypes) {
    const Tensor data = random_tensor(rng, type, {3, 1, 5});
    CHECK(integers(run(*make("ShapeOf", "opset1"), {data})) == std::vector<std::int64_t>{3, 1, 5});
    const Tensor out = run(*make("ShapeOf", "opset3", {{"output_type", "i32"}}), {data});
    CHECK(out.element_type() == i32);
    CHECK(integers(out) == std::vector<std::int64_t>{3, 1, 5});
  }
  CHECK(run(*make("ShapeOf", "opset1"), {Tensor(f32, {})}).size() == 0);

  const auto v3 = make("ShapeOf", "opset3", {{"output_type", "i32"}});
  const std::vector<ValueInfo> in{info(f32, "[4,2..8,?,3..]")};
  const std::optional<ValueBounds> b = v3->infer_bounds(in, OutputInfo{i32, ps("[4]")});
  REQUIRE(b);
  CHECK(integers(b->lower) == std::vector<std::int64_t>{4, 2, 0, 3});
  CHECK(integers(b->upper) == std::vector<std::int64_t>{4, 8, INT32_MAX, INT32_MAX});
  CHECK_FALSE(
      v3->infer_bounds(std::vector<ValueInfo>{info(f32, "[...]")}, OutputInfo{i32, ps("[?]")})
          .has_value());
}

// ---------------------------------------------------------------------------------------------
// Reshape

namespace {

std::string reshape_shape(const char* data, const std::vector<std::int64_t>& target,
                          bool special_zero = false) {
  const Tensor t = i64s(target);
  return inferred(*make("Reshape", "opset1", {{"special_zero", special_zero ? "true" : "false"}}),
                  {info(f32, data), known(t)});
}

std::string reshape_error(const char* data, const std::vector<std::int64_t>& target,
                          bool special_zero = false) {
  const Tensor t = i64s(target);
  const auto op = make("Reshape", "opset1", {{"special_zero", special_zero ? "true" : "false"}});
  return error_of([&] { op->infer(std::vector<ValueInfo>{info(f32, data), known(t)}); });
}

}  // namespace

TEST_CASE("Reshape shape rule with a known target") {
  CHECK(reshape_shape("[2,3,4]", {6, 4}) == "f32 [6,4]");
  CHECK(reshape_shape("[2,3,4]", {-1, 4}) == "f32 [6,4]");
  CHECK(reshape_shape("[2,3,4]", {2, -1}) == "f32 [2,12]");
  CHECK(reshape_shape("[2,3,4]", {-1}) == "f32 [24]");
  // special_zero: 0 copies the input's extent; without it, 0 is an extent.
  CHECK(reshape_shape("[2,3,4]", {0, -1}, true) == "f32 [2,12]");
  CHECK(reshape_shape("[2,3,4]", {0, 0, 4}, true) == "f32 [2,3,4]");
  CHECK(reshape_shape("[0,3]", {0, -1}, false) == "f32 [0,1]");
  CHECK(reshape_shape("[0,3]", {0, -1}, true) == "f32 [0,3]");
  CHECK(reshape_shape("[0,3]", {-1}) == "f32 [0]");
  // Dynamic and interval dims.
  CHECK(reshape_shape("[?,3,4]", {0, -1}, true) == "f32 [?,12]");
  CHECK(reshape_shape("[?,3,4]", {-1, 12}) == "f32 [?,12]");
  CHECK(reshape_shape("[2..4,3]", {-1, 3}) == "f32 [2..4,3]");
  CHECK(reshape_shape("[2..4,3]", {-1, 2}) == "f32 [3..6,2]");
  CHECK(reshape_shape("[2..,3]", {3, -1}) == "f32 [3,2..]");
  // An element count near INT64_MAX rounds up without overflowing.
  CHECK(reshape_shape("[9223372036854775804..9223372036854775806]", {5, -1}) ==
        "f32 [5,1844674407370955161]");
  CHECK(reshape_shape("[...]", {2, -1, 0}, true) == "f32 [2,?,?]");
  CHECK(reshape_shape("[...]", {2, 0}) == "f32 [2,0]");
  // A scalar target holds 1 and gives a scalar.
  const Tensor one = ints(i64, {}, {1});
  const auto op = make("Reshape", "opset1", {{"special_zero", "false"}});
  CHECK(inferred(*op, {info(f32, "[1,1]"), known(one)}) == "f32 []");
}

TEST_CASE("Reshape shape rule with an unknown or bounded target") {
  const auto op = make("Reshape", "opset1", {{"special_zero", "true"}});
  CHECK(inferred(*op, {info(f32, "[2,3]"), info(i64, "[3]")}) == "f32 [?,?,?]");
  CHECK(inferred(*op, {info(f32, "[2,3]"), info(i32, "[?]")}) == "f32 [...]");
  CHECK(inferred(*op, {info(f32, "[2,3]"), info(i32, "[...]")}) == "f32 [...]");
  CHECK(inferred(*op, {info(f32, "[]"), info(i32, "[]")}) == "f32 []");
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2]"), info(i32, "[]")});
        }).find("must be a scalar when the shape is a scalar") != std::string::npos);
  // Bounds from value propagation: each entry is an interval, -1 exactly -1.
  const Tensor lower = i64s({2, -1, 3});
  const Tensor upper = i64s({8, -1, INT64_MAX});
  ValueInfo target{i64, ps("[3]"), nullptr, &lower, &upper};
  CHECK(inferred(*make("Reshape", "opset1"), {info(f32, "[?]"), target}) == "f32 [2..8,?,3..]");
  CHECK(inferred(*make("Reshape", "opset1"), {info(f32, "[48]"), target}) == "f32 [2..8,1..8,3..]");
  const Tensor bad_lower = i64s({-5});
  const Tensor bad_upper = i64s({-3});
  ValueInfo bad{i64, ps("[1]"), nullptr, &bad_lower, &bad_upper};
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[?]"), bad});
        }).find("invalid bounds [-5, -3]") != std::string::npos);
}

TEST_CASE("Reshape errors") {
  CHECK(reshape_error("[2,3]", {-1, -1}).find("-1 at indices 0 and 1") != std::string::npos);
  CHECK(reshape_error("[2,3]", {4, 2}).find("holds 8 elements but the input [2,3] holds 6") !=
        std::string::npos);
  CHECK(reshape_error("[2,3]", {4, -1}).find("not a multiple of 4") != std::string::npos);
  CHECK(reshape_error("[2,3]", {-2, 3}).find("shape[0] = -2 is invalid") != std::string::npos);
  CHECK(reshape_error("[2,3]", {0, -1}).find("hold no element") != std::string::npos);
  CHECK(reshape_error("[2,3]", {1, 6, 0}, true).find("copies input dimension 2") !=
        std::string::npos);
  CHECK(reshape_error("[2..3,5]", {-1, 16}).find("do not divide") != std::string::npos);
  const auto op = make("Reshape", "opset1");
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2]"), info(i64, "[2,1]")});
        }).find("1-D tensor or a scalar") != std::string::npos);
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2]"), info(f32, "[1]")});
        }).find("integer tensor") != std::string::npos);
  const Tensor two = ints(i64, {}, {2});
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2]"), known(two)});
        }).find("scalar shape must hold 1, got 2") != std::string::npos);
  CHECK_THROWS_WITH_AS(make("Reshape", "opset1", {{"special_zero", "maybe"}}),
                       doctest::Contains("special_zero"), Error);
  // At run time a bad value is the shape input's value error.
  const Tensor data(f32, {2, 3});
  const auto e = caught([&] { run(*op, {data, i64s({5, -1})}); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
}

TEST_CASE("Reshape copies the elements of every type") {
  std::mt19937 rng(2);
  for (const ElementType type : kMovedTypes) {
    CAPTURE(to_string(type));
    const Tensor data = random_tensor(rng, type, {3, 5, 7});
    const Tensor out = run(*make("Reshape", "opset1", {{"special_zero", "true"}}),
                           {data, ints(i32, {3}, {0, -1, 1})});
    REQUIRE(out.shape() == Shape{3, 35, 1});
    CHECK(std::memcmp(out.data(), data.data(), data.byte_size()) == 0);
  }
}

TEST_CASE("Reshape end to end, inferred again at run time for dynamic inputs") {
  OpTester t("Reshape", "opset1");
  t.attr("special_zero", true);
  t.input_parameter("data", f32, ps("[?,4]"));
  t.input_const("shape", i64s({0, 2, -1}));
  const Model m = t.load();
  CHECK(m.outputs()[0].shape == ps("[?,2,2]"));
  std::mt19937 rng(3);
  for (const std::int64_t rows : {1, 5, 0}) {
    const Tensor x = random_tensor(rng, f32, {rows, 4});
    const std::vector<Tensor> out = t.run({{"data", x}});
    CHECK(out[0].shape() == Shape{rows, 2, 2});
    CHECK(std::memcmp(out[0].data(), x.data(), x.byte_size()) == 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Squeeze and Unsqueeze

namespace {

std::string squeeze(const char* data, std::optional<std::vector<std::int64_t>> axes) {
  const auto op = make("Squeeze", "opset1");
  if (!axes) return to_string(infer_outputs(*op, {info(f32, data)})[0].shape);
  const Tensor a = i64s(*axes);
  return to_string(infer_outputs(*op, {info(f32, data), known(a)})[0].shape);
}

std::string unsqueeze(const char* data, const std::vector<std::int64_t>& axes) {
  const Tensor a = i64s(axes);
  return to_string(
      infer_outputs(*make("Unsqueeze", "opset1"), {info(f32, data), known(a)})[0].shape);
}

}  // namespace

TEST_CASE("Squeeze shape rule") {
  CHECK(squeeze("[1,3,1,4]", std::nullopt) == "[3,4]");
  CHECK(squeeze("[1,3,1,4]", std::vector<std::int64_t>{}) == "[3,4]");
  CHECK(squeeze("[1,3,1,4]", std::vector<std::int64_t>{0}) == "[3,1,4]");
  CHECK(squeeze("[1,3,1,4]", std::vector<std::int64_t>{-2, 0, 2}) == "[3,4]");
  CHECK(squeeze("[1]", std::vector<std::int64_t>{0}) == "[]");
  // Dynamic dims: one that may be 1 may be squeezed; without axes it makes the rank unknown.
  CHECK(squeeze("[?,3,2..5]", std::vector<std::int64_t>{0}) == "[3,2..5]");
  CHECK(squeeze("[?,3]", std::nullopt) == "[...]");
  CHECK(squeeze("[2..5,1]", std::nullopt) == "[2..5]");
  CHECK(squeeze("[...]", std::vector<std::int64_t>{0}) == "[...]");
  const auto op = make("Squeeze", "opset1");
  CHECK(inferred(*op, {info(f32, "[1,3]"), info(i64, "[1]")}) == "f32 [?]");
  CHECK(inferred(*op, {info(f32, "[2,3]"), info(i64, "[]")}) == "f32 [2,3]");
  CHECK(inferred(*op, {info(f32, "[1,3]"), info(i64, "[2]")}) == "f32 [...]");

  const Tensor one = i64s({1});
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[1,3]"), known(one)});
        }).find("only a dimension of extent 1 can be squeezed") != std::string::npos);
  const Tensor far = i64s({2});
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[1,3]"), known(far)});
        }).find("axis 2 is out of the tensor rank range [-2, 1]") != std::string::npos);
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[1,3]"), info(i64, "[1,1]")});
        }).find("scalar or 1-D") != std::string::npos);
  // At run time, squeezing a dimension that is not 1 is the axes' value error.
  const auto e = caught([&] { run(*op, {Tensor(f32, {2, 3}), i64s({0})}); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
}

TEST_CASE("Unsqueeze shape rule") {
  CHECK(unsqueeze("[2,3]", {0}) == "[1,2,3]");
  CHECK(unsqueeze("[2,3]", {-1}) == "[2,3,1]");
  CHECK(unsqueeze("[2,3]", {0, 3}) == "[1,2,3,1]");
  CHECK(unsqueeze("[2,3]", {3, 0, 0}) == "[1,2,3,1]");
  CHECK(unsqueeze("[2,3,4]", {4, -1}) == "[2,3,4,1]");
  CHECK(unsqueeze("[]", {0}) == "[1]");
  CHECK(unsqueeze("[?,2..5]", {1}) == "[?,1,2..5]");
  CHECK(unsqueeze("[...]", {1}) == "[...]");
  const auto op = make("Unsqueeze", "opset1");
  CHECK(inferred(*op, {info(f32, "[2,?]"), info(i64, "[1]")}) == "f32 [?,?,?]");
  CHECK(inferred(*op, {info(f32, "[2,?]"), info(i64, "[?]")}) == "f32 [...]");
  const Tensor far = i64s({3});
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2,3]"), known(far)});
        }).find("axis 3 is out of the tensor rank range [-3, 2]") != std::string::npos);
  const Tensor none = i64s({});
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2,3]"), known(none)});
        }).find("at least one axis") != std::string::npos);
}

TEST_CASE("Squeeze and Unsqueeze copy the elements of every type, end to end") {
  std::mt19937 rng(4);
  for (const ElementType type : kMovedTypes) {
    CAPTURE(to_string(type));
    const Tensor data = random_tensor(rng, type, {1, 7, 1, 3});
    const Tensor s = run(*make("Squeeze", "opset1"), {data});
    CHECK(s.shape() == Shape{7, 3});
    CHECK(std::memcmp(s.data(), data.data(), data.byte_size()) == 0);
    const Tensor u = run(*make("Unsqueeze", "opset1"), {data, ints(i32, {1}, {-1})});
    CHECK(u.shape() == Shape{1, 7, 1, 3, 1});
    CHECK(std::memcmp(u.data(), data.data(), data.byte_size()) == 0);
  }
  OpTester t("Squeeze", "opset1");
  t.input_parameter("data", f32, ps("[1,?]"));
  t.input_const("axes", i64s({0}));
  CHECK(t.load().outputs()[0].shape == ps("[?]"));
  const Tensor x = random_tensor(rng, f32, {1, 9});
  const std::vector<Tensor> out = t.run({{"data", x}});
  CHECK(out[0].shape() == Shape{9});
  CHECK(std::memcmp(out[0].data(), x.data(), x.byte_size()) == 0);
}

// ---------------------------------------------------------------------------------------------
// Concat

TEST_CASE("Concat shape rule") {
  const auto op = make("Concat", "opset1", {{"axis", "1"}});
  CHECK(inferred(*op, {info(f32, "[2,3]"), info(f32, "[2,5]")}) == "f32 [2,8]");
  CHECK(inferred(*op, {info(f32, "[2,3]")}) == "f32 [2,3]");
  CHECK(inferred(*op, {info(f32, "[?,2..3]"), info(f32, "[4,1..]"), info(f32, "[2..6,4]")}) ==
        "f32 [4,7..]");
  CHECK(inferred(*op, {info(f32, "[?,2..3]"), info(f32, "[1..5,4..6]")}) == "f32 [1..5,6..9]");
  CHECK(inferred(*op, {info(f32, "[...]"), info(f32, "[2,3]")}) == "f32 [2,3..]");
  CHECK(inferred(*op, {info(f32, "[...]"), info(f32, "[...]")}) == "f32 [...]");
  const auto neg = make("Concat", "opset1", {{"axis", "-2"}});
  CHECK(inferred(*neg, {info(ElementType::boolean, "[1,3]"),
                        info(ElementType::boolean, "[2,3]")}) == "boolean [3,3]");
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2,3]"), info(f32, "[3,3]")});
        }).find("dimension 0 of [3,3] differs") != std::string::npos);
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2,3]"), info(f32, "[2,3,1]")});
        }).find("rank 2") != std::string::npos);
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2,3]"), info(i64, "[2,3]")});
        }).find("element type f32, got i64") != std::string::npos);
  CHECK(error_of([&] {
          make("Concat", "opset1", {{"axis", "2"}})
              ->infer(std::vector<ValueInfo>{info(f32, "[2,3]"), info(f32, "[2,3]")});
        }).find("axis 2 is out of the tensor rank range [-2, 1]") != std::string::npos);
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[]")});
        }).find("out of the tensor rank range") != std::string::npos);
  CHECK_THROWS_WITH_AS(make("Concat", "opset1"), doctest::Contains("axis"), Error);
}

TEST_CASE("Concat values against a plain oracle, on any thread count") {
  std::mt19937 rng(5);
  struct Case {
    std::vector<Shape> shapes;
    std::int64_t axis;
  };
  const Case cases[] = {{{{3, 2, 5}, {3, 4, 5}, {3, 1, 5}}, 1},
                        {{{7}, {0}, {9}}, 0},
                        {{{2, 3}, {2, 3}}, -1},
                        {{{1, 3}, {4, 3}}, 0},
                        {{{300, 70}, {300, 3}, {300, 1}}, 1},
                        {{{2, 0}, {2, 0}}, 0}};
  for (const ElementType type : kMovedTypes)
    for (const Case& c : cases) {
      CAPTURE(to_string(type));
      CAPTURE(c.axis);
      std::vector<Tensor> ins;
      for (const Shape& s : c.shapes) ins.push_back(random_tensor(rng, type, s));
      const auto op = make("Concat", "opset1", {{"axis", std::to_string(c.axis)}});
      const Tensor out = run(*op, ins);
      const auto axis = static_cast<std::size_t>(c.axis < 0 ? c.axis + 2 : c.axis);
      CHECK(same_bytes(out, concat_oracle(ins, c.shapes[0].size() == 1 ? 0 : axis, out.shape())));
      for (ThreadPool* pool : test_pools()) {
        const std::vector<Tensor> split = allocate_and_execute(
            *op, ins, infer_at_run_time(*op, ins, 1), ExecContext{Parallel(pool)});
        CHECK(same_bytes(split[0], out));
      }
    }
}

// ---------------------------------------------------------------------------------------------
// Transpose

namespace {

std::string transpose(const char* data, const std::vector<std::int64_t>& order) {
  const Tensor o = i64s(order);
  return to_string(
      infer_outputs(*make("Transpose", "opset1"), {info(f32, data), known(o)})[0].shape);
}

}  // namespace

TEST_CASE("Transpose shape rule") {
  CHECK(transpose("[2,3,4]", {2, 0, 1}) == "[4,2,3]");
  CHECK(transpose("[2,3,4]", {}) == "[4,3,2]");
  CHECK(transpose("[?,2..5,4]", {1, 2, 0}) == "[2..5,4,?]");
  CHECK(transpose("[]", {}) == "[]");
  CHECK(transpose("[...]", {1, 0}) == "[?,?]");
  CHECK(transpose("[...]", {}) == "[...]");
  const auto op = make("Transpose", "opset1");
  CHECK(inferred(*op, {info(f32, "[2,3]"), info(i64, "[2]")}) == "f32 [?,?]");
  CHECK(inferred(*op, {info(f32, "[...]"), info(i64, "[3]")}) == "f32 [?,?,?]");
  CHECK(inferred(*op, {info(f32, "[...]"), info(i64, "[?]")}) == "f32 [...]");
  for (const std::vector<std::int64_t>& bad :
       std::vector<std::vector<std::int64_t>>{{0, 0, 1}, {0, 1, 3}, {-1, 0, 1}}) {
    const Tensor o = i64s(bad);
    CHECK(error_of([&] {
            op->infer(std::vector<ValueInfo>{info(f32, "[2,3,4]"), known(o)});
          }).find("is not a permutation") != std::string::npos);
  }
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2,3,4]"), info(i64, "[2]")});
        }).find("order must have shape [3]") != std::string::npos);
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2,3,4]"), info(i64, "[]")});
        }).find("1-D") != std::string::npos);
  const auto e = caught([&] { run(*op, {Tensor(f32, {2, 3}), i64s({1, 1})}); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
}

TEST_CASE("Transpose values against a plain oracle: fast paths and the general walk") {
  std::mt19937 rng(6);
  struct Case {
    Shape shape;
    std::vector<std::int64_t> order;
  };
  const Case cases[] = {
      {{5, 7}, {1, 0}},              // 2-D tiles
      {{3, 67, 45}, {0, 2, 1}},      // a batch of 2-D tiles
      {{130, 90}, {1, 0}},           // a large plane
      {{4, 5, 6}, {1, 0, 2}},        // innermost kept: block copies
      {{2, 3, 4, 5}, {2, 0, 1, 3}},  // innermost kept after merging
      {{2, 3, 4, 5}, {3, 1, 0, 2}},
      {{2, 3, 4, 5}, {2, 3, 0, 1}},        // merged into one 2-D transpose        // general walk
      {{9, 3, 10}, {2, 1, 0}},             // tiled between the two innermost axes
      {{10, 4, 12, 9}, {1, 3, 0, 2}},      // tiled, with other axes around
      {{2, 1, 3, 1, 4}, {4, 2, 0, 3, 1}},  // extent-1 axes dropped
      {{2, 3, 4}, {0, 1, 2}},              // identity
      {{6, 5, 4, 3, 2}, {4, 3, 2, 1, 0}},  // reversal
      {{3, 0, 2}, {2, 1, 0}},              // empty
      {{}, {}},                            // scalar
  };
  for (const ElementType type : kMovedTypes)
    for (const Case& c : cases) {
      CAPTURE(to_string(type));
      CAPTURE(to_string(c.shape));
      const Tensor in = random_tensor(rng, type, c.shape);
      const auto op = make("Transpose", "opset1");
      const std::vector<Tensor> args{in, i64s(c.order)};
      const Tensor out = run(*op, args);
      CHECK(same_bytes(out, transpose_oracle(in, c.order)));
      for (ThreadPool* pool : test_pools()) {
        const std::vector<Tensor> split = allocate_and_execute(
            *op, args, infer_at_run_time(*op, args, 1), ExecContext{Parallel(pool)});
        CHECK(same_bytes(split[0], out));
      }
    }
  // Large enough for every path to split over threads.
  for (const Case& c :
       {Case{{512, 600}, {1, 0}}, Case{{4, 300, 200}, {2, 0, 1}}, Case{{300, 4, 200}, {1, 0, 2}},
        Case{{3, 700, 300}, {0, 2, 1}}, Case{{300, 4, 200}, {2, 1, 0}}}) {
    const Tensor in = random_tensor(rng, f32, c.shape);
    const Tensor want = transpose_oracle(in, c.order);
    Tensor got(f32, want.shape());
    for (ThreadPool* pool : test_pools()) {
      transpose_bytes(Parallel(pool), in.data(), in.shape(), c.order, 4, got.data());
      CHECK(same_bytes(got, want));
    }
  }
  // An empty order reverses the axes, end to end.
  OpTester t("Transpose", "opset1");
  t.input_parameter("data", f32, ps("[?,3,2]"));
  t.input_const("order", i64s({}));
  CHECK(t.load().outputs()[0].shape == ps("[2,3,?]"));
  const Tensor x = random_tensor(rng, f32, {4, 3, 2});
  CHECK(same_bytes(t.run({{"data", x}})[0], transpose_oracle(x, {2, 1, 0})));
}

// ---------------------------------------------------------------------------------------------
// Tile

namespace {

std::string tile(const char* data, const std::vector<std::int64_t>& repeats) {
  const Tensor r = i64s(repeats);
  return to_string(infer_outputs(*make("Tile", "opset1"), {info(f32, data), known(r)})[0].shape);
}

}  // namespace

TEST_CASE("Tile shape rule") {
  CHECK(tile("[2,3]", {2, 3}) == "[4,9]");
  CHECK(tile("[2,3]", {2}) == "[2,6]");
  CHECK(tile("[2,3]", {2, 1, 1}) == "[2,2,3]");
  CHECK(tile("[2,3]", {-1, 2}) == "[0,6]");
  CHECK(tile("[?,2..4]", {2, 3}) == "[?,6..12]");
  CHECK(tile("[]", {3}) == "[3]");
  CHECK(tile("[...]", {2}) == "[...]");
  const auto op = make("Tile", "opset1");
  CHECK(inferred(*op, {info(f32, "[2,3]"), info(i64, "[3]")}) == "f32 [?,?,?]");
  CHECK(inferred(*op, {info(f32, "[2,3]"), info(i64, "[1]")}) == "f32 [?,?]");
  CHECK(inferred(*op, {info(f32, "[2,3]"), info(i64, "[?]")}) == "f32 [...]");
  const Tensor lower = i64s({1, 2});
  const Tensor upper = i64s({4, INT64_MAX});
  ValueInfo bounded{i64, ps("[2]"), nullptr, &lower, &upper};
  CHECK(inferred(*op, {info(f32, "[2,3]"), bounded}) == "f32 [2..8,6..]");
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[2,3]"), info(i64, "[]")});
        }).find("repeats must be a 1-D tensor") != std::string::npos);
  const Tensor huge = i64s({INT64_MAX / 2});
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(f32, "[3]"), known(huge)});
        }).find("overflows") != std::string::npos);
}

TEST_CASE("Tile values against a plain oracle, on any thread count") {
  std::mt19937 rng(7);
  struct Case {
    Shape shape;
    std::vector<std::int64_t> repeats;
  };
  const Case cases[] = {{{2, 3}, {2, 3}},    {{5}, {7}},       {{2, 3}, {3}},
                        {{2, 3}, {2, 1, 2}}, {{1, 1}, {5, 9}}, {{3, 4, 5}, {1, 1, 1}},
                        {{2, 3}, {0, 2}},    {{}, {4}},        {{3, 1, 2}, {2, 5, 1}},
                        {{200, 300}, {2, 3}}};
  for (const ElementType type : kMovedTypes)
    for (const Case& c : cases) {
      CAPTURE(to_string(type));
      CAPTURE(to_string(c.shape));
      const Tensor in = random_tensor(rng, type, c.shape);
      const auto op = make("Tile", "opset1");
      const std::vector<Tensor> args{in, i64s(c.repeats)};
      const Tensor out = run(*op, args);
      CHECK(same_bytes(out, tile_oracle(in, c.repeats)));
      for (ThreadPool* pool : test_pools()) {
        const std::vector<Tensor> split = allocate_and_execute(
            *op, args, infer_at_run_time(*op, args, 1), ExecContext{Parallel(pool)});
        CHECK(same_bytes(split[0], out));
      }
    }
  OpTester t("Tile", "opset1");
  t.input_parameter("data", ElementType::i16, ps("[?]"));
  t.input_const("repeats", ints(i32, {2}, {2, 2}));
  CHECK(t.load().outputs()[0].shape == ps("[2,?]"));
  const Tensor x = random_tensor(rng, ElementType::i16, {3});
  CHECK(same_bytes(t.run({{"data", x}})[0], tile_oracle(x, {2, 2})));
}

// ---------------------------------------------------------------------------------------------
// Value propagation through a model

TEST_CASE("bounds: ShapeOf -> Squeeze gives TopK's k a bounded range") {
  GraphBuilder g;
  const auto data = g.parameter("data", f32, ps("2..8"));
  const auto x = g.parameter("x", f32, ps("10"));
  const auto shape = g.layer("ShapeOf", "opset3", {{"output_type", "i32"}}, {data}, {i32});
  const auto zero = g.constant("zero", i64s({0}));
  const auto k = g.layer("Squeeze", "opset1", {}, {shape[0], zero}, {i32}, "k");
  const auto topk = g.layer("TopK", "opset11", {{"axis", "0"}, {"mode", "max"}, {"sort", "value"}},
                            {x, k[0]}, {f32, i32}, "topk");
  g.result(topk[0], "values");
  const Model m = g.load();
  CHECK(m.outputs()[0].shape == ps("2..8"));
  Session s(m);
  const auto out =
      s.run({{"data", Tensor(f32, {5})}, {"x", tensor(f32, {10}, {0, 9, 1, 8, 2, 7, 3, 6, 4, 5})}});
  CHECK(doubles(out.at("values")) == std::vector<double>{9, 8, 7, 6, 5});
}

TEST_CASE("bounds: ShapeOf of [?] and [2..8] through Concat and ReduceMax") {
  GraphBuilder g;
  const auto a = g.parameter("a", f32, ps("?"));
  const auto b = g.parameter("b", f32, ps("2..8"));
  const auto x = g.parameter("x", f32, ps("3,10"));
  const auto sa = g.layer("ShapeOf", "opset1", {}, {a}, {i64});
  const auto sb = g.layer("ShapeOf", "opset1", {}, {b}, {i64});
  const auto both = g.layer("Concat", "opset1", {{"axis", "0"}}, {sa[0], sb[0]}, {i64});
  // The smaller of two (here: their maximum through ReduceMax of the second alone, and the
  // Concat as Reshape's target).
  const auto axis = g.constant("axis", i64s({0}));
  const auto k =
      g.layer("ReduceMax", "opset1", {{"keep_dims", "false"}}, {both[0], axis}, {i64}, "k");
  const auto topk = g.layer("TopK", "opset11", {{"axis", "1"}, {"mode", "max"}, {"sort", "value"}},
                            {x, k[0]}, {f32, i32}, "topk");
  g.result(topk[0], "values");
  // Reshape's target from the same bounds: [?, 2..8] extents.
  const auto y = g.parameter("y", f32, ps("?"));
  const auto reshaped =
      g.layer("Reshape", "opset1", {{"special_zero", "false"}}, {y, both[0]}, {f32});
  g.result(reshaped[0], "reshaped");
  const Model m = g.load();
  // k lies in [2, unbounded): TopK's axis of 10 gives 2..10.
  CHECK(m.outputs()[0].shape == ps("3,2..10"));
  CHECK(m.outputs()[1].shape == ps("?,2..8"));
  Session s(m);
  const auto out = s.run({{"a", Tensor(f32, {4})},
                          {"b", Tensor(f32, {3})},
                          {"x", Tensor(f32, {3, 10})},
                          {"y", Tensor(f32, {12})}});
  CHECK(out.at("values").shape() == Shape{3, 4});
  CHECK(out.at("reshaped").shape() == Shape{4, 3});
}

TEST_CASE("bounds: Unsqueeze, Transpose and Tile carry bounds too") {
  const auto shape_of = make("ShapeOf", "opset1");
  const std::vector<ValueInfo> in{info(f32, "[2..8]")};
  const auto b = shape_of->infer_bounds(in, OutputInfo{i64, ps("[1]")});
  REQUIRE(b);
  const Tensor axes = i64s({0});
  ValueInfo bounded{i64, ps("[1]"), nullptr, &b->lower, &b->upper};
  const auto unsq = make("Unsqueeze", "opset1");
  const std::vector<ValueInfo> args{bounded, known(axes)};
  const auto ub = unsq->infer_bounds(args, OutputInfo{i64, ps("[1,1]")});
  REQUIRE(ub);
  CHECK(integers(ub->lower) == std::vector<std::int64_t>{2});
  CHECK(integers(ub->upper) == std::vector<std::int64_t>{8});
  const Tensor reps = i64s({3});
  const std::vector<ValueInfo> targs{bounded, known(reps)};
  const auto tb = make("Tile", "opset1")->infer_bounds(targs, OutputInfo{i64, ps("[3]")});
  REQUIRE(tb);
  CHECK(integers(tb->upper) == std::vector<std::int64_t>{8, 8, 8});
}

TEST_CASE("run time: a Reshape target computed by ShapeOf is inferred again on every run") {
  GraphBuilder g;
  const auto x = g.parameter("x", ElementType::u8, ps("?,?"));
  const auto y = g.parameter("y", f32, ps("?"));
  const auto target = g.layer("ShapeOf", "opset3", {{"output_type", "i32"}}, {x}, {i32});
  const auto reshaped =
      g.layer("Reshape", "opset1", {{"special_zero", "false"}}, {y, target[0]}, {f32}, "reshape");
  const auto order = g.constant("order", i64s({1, 0}));
  const auto transposed = g.layer("Transpose", "opset1", {}, {reshaped[0], order}, {f32});
  g.result(transposed[0], "out");
  const Model m = g.load();
  CHECK(m.outputs()[0].shape == ps("?,?"));
  CHECK(m.is_dynamic());
  Session s(m);
  std::mt19937 rng(8);
  for (const Shape& shape : {Shape{3, 4}, Shape{2, 5}, Shape{1, 1}, Shape{0, 3}}) {
    CAPTURE(to_string(shape));
    const Tensor values = random_tensor(rng, f32, {shape[0] * shape[1]});
    const auto out = s.run({{"x", Tensor(ElementType::u8, shape)}, {"y", values}});
    const Tensor want = transpose_oracle(Tensor::view(f32, shape, values.data()), {1, 0});
    CHECK(same_bytes(out.at("out"), want));
  }
  const auto e = caught([&] {
    s.run({{"x", Tensor(ElementType::u8, {2, 3})}, {"y", Tensor(f32, {5})}});
  });
  REQUIRE(e);
  CHECK(std::string(e->what()).find("holds 6 elements but the input [5] holds 5") !=
        std::string::npos);
}

// ReduceMax-1: shape rule, validation, kernel values for every element type, and the kernel
// against a plain reference on random inputs.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "kernels/reduce_max.hpp"
#include "reference/reduce_max.hpp"
#include "core/attributes.hpp"
#include "op_test_util.hpp"
#include "graph/op.hpp"
#include "ops/registry.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;

std::unique_ptr<const Op> make_op(bool keep_dims) {
  return op_def("ReduceMax", "opset1")
      .create(Attributes(Attrs{{"keep_dims", keep_dims ? "true" : "false"}}));
}

Tensor axes_tensor(const std::vector<std::int64_t>& axes, ElementType type = ElementType::i64,
                   bool scalar = false) {
  std::vector<double> v(axes.begin(), axes.end());
  return tensor(type, scalar ? Shape{} : Shape{static_cast<std::int64_t>(axes.size())}, v);
}

/// Shape inference while loading: axes is a Const when `axes` is given, else a Parameter.
OutputInfo infer(bool keep_dims, ElementType type, const char* data_shape, const char* axes_shape,
                 const Tensor* axes = nullptr, ElementType axes_type = ElementType::i64) {
  auto op = make_op(keep_dims);
  return infer_outputs(*op, {info(type, data_shape),
                             info(axes ? axes->element_type() : axes_type, axes_shape, axes)})[0];
}

std::string inferred(bool keep_dims, const char* data_shape,
                     const std::vector<std::int64_t>& axes) {
  const Tensor a = axes_tensor(axes);
  return to_string(infer(keep_dims, ElementType::f32, data_shape,
                         to_string(PartialShape::from_shape(a.shape())).c_str(), &a)
                       .shape);
}

/// Run time: infer with every value known, check that the output keeps the data's type, then
/// allocate and execute.
Tensor run(const Op& op, const Tensor& data, const Tensor& axes) {
  const std::vector<Tensor> inputs{data, axes};
  const std::vector<OutputInfo> outs = infer_at_run_time(op, inputs, 1);
  REQUIRE(outs[0].type == data.element_type());
  return allocate_and_execute(op, inputs, outs)[0];
}

Tensor run(bool keep_dims, const Tensor& data, const std::vector<std::int64_t>& axes) {
  return run(*make_op(keep_dims), data, axes_tensor(axes));
}

// ---- The reference: one pass over every input element, obviously correct. ----

template <class T>
std::vector<T> reference(const std::vector<T>& in, const Shape& shape,
                         const std::vector<bool>& reduced) {
  using C = compute_t<T>;
  std::size_t out_size = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d]) out_size *= static_cast<std::size_t>(shape[d]);
  std::vector<C> best(out_size);
  std::vector<bool> seen(out_size, false), nan(out_size, false);
  for (std::size_t i = 0; i < in.size(); ++i) {
    // Coordinates of element i, then the output index of its kept coordinates.
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
    const C v = static_cast<C>(in[i]);
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(v)) {
        nan[o] = true;
        continue;
      }
    }
    if (!seen[o] || v > best[o]) best[o] = v;
    seen[o] = true;
  }
  std::vector<T> out(out_size);
  for (std::size_t o = 0; o < out_size; ++o) {
    if (nan[o])
      out[o] = T(std::numeric_limits<C>::quiet_NaN());
    else if (!seen[o])
      out[o] = lowest_value<T>();
    else
      out[o] = T(best[o]);
  }
  return out;
}

template <class T>
T random_value(std::mt19937& rng, bool special) {
  using C = compute_t<T>;
  if constexpr (std::is_floating_point_v<C>) {
    std::uniform_int_distribution<int> pick(0, 199);
    if (special) {
      const int p = pick(rng);
      if (p == 0) return T(std::numeric_limits<C>::quiet_NaN());
      if (p == 1) return T(-std::numeric_limits<C>::infinity());
      if (p == 2) return T(std::numeric_limits<C>::infinity());
    }
    return T(static_cast<C>(std::uniform_int_distribution<int>(-1000, 1000)(rng)) / C(8));
  } else {
    return static_cast<T>(std::uniform_int_distribution<std::uint64_t>()(rng));
  }
}

template <class T>
void compare_with_reference(std::mt19937& rng, const Shape& shape, const std::vector<bool>& reduced,
                            bool special) {
  std::size_t size = 1;
  for (auto d : shape) size *= static_cast<std::size_t>(d);
  std::vector<T> in(size);
  for (T& v : in) v = random_value<T>(rng, special);
  std::vector<std::int64_t> axes;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) axes.push_back(static_cast<std::int64_t>(d));
  const std::vector<T> want = reference(in, shape, reduced);
  std::vector<T> got(want.size());
  reduce_max(Parallel(), in.data(), shape, axes, got.data());
  // The plain kernel the optimised one replaced agrees too.
  std::vector<T> plain(want.size());
  reference::reduce_max(in.data(), shape, axes, plain.data());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!same_value(got[i], want[i]) || !same_value(plain[i], want[i])) {
      FAIL("shape " << to_string(shape) << " element " << i << ": got "
                    << static_cast<double>(static_cast<compute_t<T>>(got[i])) << ", plain kernel "
                    << static_cast<double>(static_cast<compute_t<T>>(plain[i])) << ", want "
                    << static_cast<double>(static_cast<compute_t<T>>(want[i])));
    }
  }
  // Any thread count, with work split down to a few elements a thread, gives the same bits.
  for (ThreadPool* pool : test_pools()) {
    std::vector<T> split(want.size());
    reduce_max(Parallel(pool), in.data(), plan_reduce_max(shape, axes), split.data(), 3);
    if (!want.empty() && std::memcmp(split.data(), got.data(), got.size() * sizeof(T)) != 0)
      FAIL("shape " << to_string(shape) << ": " << pool->size() << " threads differ from one");
  }
}

}  // namespace

TEST_CASE("ReduceMax registry entry") {
  std::string why;
  const OpDef* def = resolve_op("ReduceMax", "opset1", &why);
  REQUIRE(def);
  CHECK(def->version == 1);
  CHECK(def->since_opset == 1);
  CHECK(def->min_inputs == 2);
  CHECK(def->max_inputs == 2);
  CHECK(def->num_outputs == 1);
  CHECK(def->kind == OpKind::compute);
  CHECK(resolve_op("ReduceMax", "opset16", &why) == def);
}

TEST_CASE("ReduceMax attributes") {
  CHECK(make_op(true)->attributes() ==
        std::vector<std::pair<std::string, std::string>>{{"keep_dims", "true"}});
  std::string why;
  const OpDef* def = resolve_op("ReduceMax", "opset1", &why);
  REQUIRE(def);
  CHECK(def->create(Attributes())->attributes() ==
        std::vector<std::pair<std::string, std::string>>{{"keep_dims", "false"}});
  CHECK_THROWS_WITH_AS(def->create(Attributes(Attrs{{"keep_dims", "yes"}})),
                       doctest::Contains("keep_dims"), Error);
}

TEST_CASE("ReduceMax shape rule with known axes") {
  CHECK(inferred(false, "[3,4,5]", {1, 2}) == "[3]");
  CHECK(inferred(true, "[3,4,5]", {1, 2}) == "[3,1,1]");
  CHECK(inferred(false, "[6,12,10,24]", {2, 3}) == "[6,12]");
  CHECK(inferred(true, "[6,12,10,24]", {2, 3}) == "[6,12,1,1]");
  CHECK(inferred(false, "[6,12,10,24]", {-2}) == "[6,12,24]");
  CHECK(inferred(false, "[6,12,10,24]", {1}) == "[6,10,24]");
  // Duplicates count once (the spec forbids them; OpenVINO accepts them).
  CHECK(inferred(false, "[3,4,5]", {1, 1}) == "[3,5]");
  CHECK(inferred(true, "[3,4,5]", {1, -2}) == "[3,1,5]");
  // Unreduced dynamic and interval dimensions pass through.
  CHECK(inferred(false, "[3,4,5,?]", {1, 2}) == "[3,?]");
  CHECK(inferred(true, "[3,4,5,?]", {1, 2}) == "[3,1,1,?]");
  CHECK(inferred(false, "[?,4,5,?]", {2, 3}) == "[?,4]");
  CHECK(inferred(true, "[?,4,5,?]", {2, 3}) == "[?,4,1,1]");
  CHECK(inferred(false, "[?,?,1,1,6,16,..8,..18,4..,14..,3..9,13..19]", {1, 3, 5, 7, 9, 11}) ==
        "[?,1,6,..8,4..,3..9]");
  CHECK(inferred(true, "[?,?,1,1,6,16,..8,..18,4..,14..,3..9,13..19]", {1, 3, 5, 7, 9, 11}) ==
        "[?,1,1,1,6,1,..8,1,4..,1,3..9,1]");
  // Every axis: one value; empty axes: identity.
  CHECK(inferred(false, "[2,3]", {0, 1}) == "[]");
  CHECK(inferred(true, "[2,3]", {1, 0}) == "[1,1]");
  CHECK(inferred(false, "[3,4,5]", {}) == "[3,4,5]");
  CHECK(inferred(true, "[3,?,5]", {}) == "[3,?,5]");
  CHECK(inferred(false, "[]", {}) == "[]");
  // A reduced zero-length axis is fine.
  CHECK(inferred(false, "[2,0,4]", {1, 2}) == "[2]");
  // A scalar axes Const.
  const Tensor scalar = axes_tensor({1}, ElementType::i64, true);
  CHECK(to_string(infer(false, ElementType::f32, "[3,4,5]", "[]", &scalar).shape) == "[3,5]");
  // Data rank unknown: the axes cannot be applied.
  CHECK(inferred(false, "[...]", {1, 2}) == "[...]");
  CHECK(inferred(true, "[...]", {1, 2}) == "[...]");
}

TEST_CASE("ReduceMax shape rule with unknown axes") {
  const auto f32 = ElementType::f32;
  // keep_dims: the rank survives, every dimension may be reduced.
  CHECK(to_string(infer(true, f32, "[3,4,5]", "[2]").shape) == "[?,?,?]");
  CHECK(to_string(infer(true, f32, "[3,4,5]", "[1]").shape) == "[?,?,?]");
  CHECK(to_string(infer(true, f32, "[...]", "[1]").shape) == "[...]");
  CHECK(to_string(infer(true, f32, "[]", "[0]").shape) == "[]");
  // Exactly one axis: the rank drops by one.
  CHECK(to_string(infer(false, f32, "[3,4,5]", "[1]").shape) == "[?,?]");
  CHECK(to_string(infer(false, f32, "[3,4,5]", "[]").shape) == "[?,?]");
  CHECK(to_string(infer(false, f32, "[3..4,4]", "[1]", nullptr, ElementType::u8).shape) == "[?]");
  // Otherwise nothing is known.
  CHECK(to_string(infer(false, f32, "[3,4,5]", "[2]", nullptr, ElementType::i32).shape) == "[...]");
  CHECK(to_string(infer(false, f32, "[3,4,5]", "[?]").shape) == "[...]");
  CHECK(to_string(infer(false, f32, "[3,4,5]", "[...]").shape) == "[...]");
  CHECK(to_string(infer(false, f32, "[...]", "[1]").shape) == "[...]");
  // The output type is the data type.
  CHECK(infer(false, ElementType::u16, "[3]", "[1]").type == ElementType::u16);
}

TEST_CASE("ReduceMax validation") {
  const Tensor axes01 = axes_tensor({0, 1});
  CHECK_THROWS_WITH_AS(infer(true, ElementType::boolean, "[1,2,3]", "[2]", &axes01),
                       doctest::Contains("data must be a numeric tensor, got boolean"), Error);
  CHECK_THROWS_WITH_AS(infer(true, ElementType::f32, "[1,2,3]", "[2]", nullptr, ElementType::f32),
                       doctest::Contains("axes must be an integer tensor, got f32"), Error);
  CHECK_THROWS_WITH_AS(
      infer(true, ElementType::f32, "[1,2,3]", "[2]", nullptr, ElementType::boolean),
      doctest::Contains("axes must be an integer tensor, got boolean"), Error);
  CHECK_THROWS_WITH_AS(infer(true, ElementType::f32, "[1,2,3]", "[2,1]"),
                       doctest::Contains("axes must be a scalar or 1-D, got [2,1]"), Error);
  const Tensor axes23 = axes_tensor({2, 3});
  CHECK_THROWS_WITH_AS(infer(false, ElementType::f32, "[1,2,3]", "[2]", &axes23),
                       doctest::Contains("axis 3 is out of the tensor rank range [-3, 2]"), Error);
  const Tensor minus4 = axes_tensor({-4});
  CHECK_THROWS_WITH_AS(infer(false, ElementType::f32, "[1,?,3]", "[1]", &minus4),
                       doctest::Contains("axis -4 is out of the tensor rank range [-3, 2]"), Error);
  const Tensor zero = axes_tensor({0});
  CHECK_THROWS_WITH_AS(infer(false, ElementType::f32, "[]", "[1]", &zero),
                       doctest::Contains("axis 0 is out of the tensor rank range [0, -1]"), Error);
  CHECK_THROWS_WITH_AS(infer(false, ElementType::f32, "[]", "[1]"),
                       doctest::Contains("data is a scalar"), Error);

  // While loading, a bad Const axis is a shape error on the axes input.
  try {
    infer(false, ElementType::f32, "[1,2,3]", "[2]", &axes23);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::shape);
    CHECK(e.context().port_kind == ErrorContext::PortKind::input);
    CHECK(e.context().port == 1);
  }
  // At run time it is a value error.
  const Tensor data = tensor(ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6});
  try {
    run(false, data, {0, 5});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::value);
    CHECK(e.message() == "axis 5 is out of the tensor rank range [-2, 1]");
    CHECK(e.context().port == 1);
  }
  // execute() checks the axes itself too.
  auto op = make_op(false);
  std::vector<Tensor> outputs{Tensor(ElementType::f32, {2})};
  const std::vector<Tensor> inputs{data, axes_tensor({-3})};
  CHECK_THROWS_WITH_AS(op->execute(inputs, outputs, {}),
                       doctest::Contains("axis -3 is out of the tensor rank range"), Error);
}

TEST_CASE("ReduceMax values") {
  const Tensor m = tensor(ElementType::f32, {3, 2}, {1, 2, 3, 4, 5, 6});
  CHECK(doubles(run(true, m, {0})) == std::vector<double>{5, 6});
  CHECK(run(true, m, {0}).shape() == Shape{1, 2});
  CHECK(doubles(run(false, m, {1})) == std::vector<double>{2, 4, 6});
  CHECK(run(false, m, {1}).shape() == Shape{3});
  CHECK(doubles(run(false, m, {0, 1})) == std::vector<double>{6});
  CHECK(run(false, m, {0, 1}).shape() == Shape{});
  CHECK(run(true, m, {1, 0}).shape() == Shape{1, 1});
  CHECK(doubles(run(false, m, {-1})) == std::vector<double>{2, 4, 6});
  CHECK(doubles(run(false, m, {-2, 0})) == std::vector<double>{5, 6});

  // [3,2,2]: first, middle, last axis and pairs of axes.
  const Tensor c = tensor(ElementType::f32, {3, 2, 2}, {1, 12, 3, 4, 5, 6, 7, 8, 9, 10, 11, 2});
  CHECK(doubles(run(false, c, {0})) == std::vector<double>{9, 12, 11, 8});
  CHECK(doubles(run(false, c, {1})) == std::vector<double>{3, 12, 7, 8, 11, 10});
  CHECK(doubles(run(false, c, {2})) == std::vector<double>{12, 4, 6, 8, 10, 11});
  CHECK(doubles(run(false, c, {0, 2})) == std::vector<double>{12, 11});
  CHECK(doubles(run(true, c, {0, 1})) == std::vector<double>{11, 12});
  CHECK(doubles(run(false, c, {0, 1, 2})) == std::vector<double>{12});

  // Axes of any integer type, scalar or 1-D.
  auto op = make_op(false);
  for (ElementType t : {ElementType::i8, ElementType::i16, ElementType::i32, ElementType::i64,
                        ElementType::u8, ElementType::u16, ElementType::u32, ElementType::u64}) {
    CAPTURE(to_string(t));
    CHECK(doubles(run(*op, c, axes_tensor({2}, t, true))) ==
          std::vector<double>{12, 4, 6, 8, 10, 11});
    CHECK(doubles(run(*op, c, axes_tensor({0, 1}, t))) == std::vector<double>{11, 12});
  }
}

TEST_CASE("ReduceMax on every element type") {
  for (ElementType type : kNumericTypes) {
    CAPTURE(to_string(type));
    // Values exact in every type, including the small ones.
    const Tensor d = tensor(type, {2, 3, 2}, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8});
    const Tensor last = run(false, d, {2});
    CHECK(last.element_type() == type);
    CHECK(doubles(last) == std::vector<double>{3, 4, 9, 6, 5, 8});
    CHECK(doubles(run(false, d, {0})) == std::vector<double>{3, 6, 5, 3, 5, 9});
    CHECK(doubles(run(true, d, {1})) == std::vector<double>{5, 9, 5, 8});
    CHECK(doubles(run(false, d, {0, 1, 2})) == std::vector<double>{9});
    // Empty reduction extent: the lowest value of the type.
    const Tensor empty = tensor(type, {2, 0, 4}, {});
    const Tensor low = run(false, empty, {1, 2});
    REQUIRE(low.shape() == Shape{2});
    dispatch_numeric(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (std::size_t i = 0; i < 2; ++i)
        CHECK(static_cast<compute_t<T>>(low.data<T>()[i]) ==
              static_cast<compute_t<T>>(lowest_value<T>()));
    });
  }
  // Signed extremes and large unsigned values are compared exactly.
  Tensor i64(ElementType::i64, {3});
  i64.data<std::int64_t>()[0] = std::numeric_limits<std::int64_t>::min();
  i64.data<std::int64_t>()[1] = std::numeric_limits<std::int64_t>::max() - 1;
  i64.data<std::int64_t>()[2] = std::numeric_limits<std::int64_t>::max();
  CHECK(run(false, i64, {0}).data<std::int64_t>()[0] == std::numeric_limits<std::int64_t>::max());
  Tensor u64(ElementType::u64, {3});
  u64.data<std::uint64_t>()[0] = 1;
  u64.data<std::uint64_t>()[1] = std::numeric_limits<std::uint64_t>::max();
  u64.data<std::uint64_t>()[2] = std::numeric_limits<std::uint64_t>::max() - 1;
  CHECK(run(false, u64, {0}).data<std::uint64_t>()[0] == std::numeric_limits<std::uint64_t>::max());
  const Tensor neg = tensor(ElementType::i8, {4}, {-128, -7, -100, -8});
  CHECK(doubles(run(false, neg, {0})) == std::vector<double>{-7});
  // The OpenVINO lowest values the conformance vectors expect.
  CHECK(doubles(run(false, tensor(ElementType::f16, {0}, {}), {0})) == std::vector<double>{-65504});
  CHECK(doubles(run(false, tensor(ElementType::f32, {0}, {}), {0})) ==
        std::vector<double>{static_cast<double>(std::numeric_limits<float>::lowest())});
  CHECK(doubles(run(false, tensor(ElementType::u32, {0}, {}), {0})) == std::vector<double>{0});
}

TEST_CASE("ReduceMax NaN and infinities") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (ElementType type :
       {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64}) {
    CAPTURE(to_string(type));
    // NaN propagates along the reduced axis, wherever it sits in the slice.
    const Tensor d = tensor(type, {2, 3}, {1, nan, 3, 4, 5, 6});
    auto last = doubles(run(false, d, {1}));
    CHECK(std::isnan(last[0]));
    CHECK(last[1] == 6);
    auto first = doubles(run(false, d, {0}));
    CHECK(first[0] == 4);
    CHECK(std::isnan(first[1]));
    CHECK(first[2] == 6);
    CHECK(std::isnan(doubles(run(false, d, {0, 1}))[0]));
    const Tensor lead = tensor(type, {1, 4}, {nan, 1, 2, 3});
    CHECK(std::isnan(doubles(run(false, lead, {1}))[0]));
    CHECK(std::isnan(doubles(run(false, lead, {0, 1}))[0]));
    // Identity keeps NaN (OpenVINO's reference would turn it into lowest()).
    auto same_shape = doubles(run(true, d, {}));
    CHECK(std::isnan(same_shape[1]));
    CHECK(same_shape[5] == 6);
    // A slice of -inf is -inf, not the lowest finite value.
    const Tensor ninf = tensor(type, {2, 2}, {-inf, -inf, -inf, 7});
    CHECK(doubles(run(false, ninf, {1})) == std::vector<double>{-inf, 7});
    CHECK(doubles(run(false, ninf, {0})) == std::vector<double>{-inf, 7});
    const Tensor pinf = tensor(type, {3}, {1, inf, 2});
    CHECK(doubles(run(false, pinf, {0})) == std::vector<double>{inf});
  }
  // A NaN in a long row, past the first chunk of the vectorised scan.
  std::vector<double> longrow(10000, 1.0);
  longrow[7777] = nan;
  longrow[3] = 5;
  CHECK(std::isnan(doubles(run(false, tensor(ElementType::f32, {10000}, longrow), {0}))[0]));
  longrow[7777] = 2;
  CHECK(doubles(run(false, tensor(ElementType::f64, {10000}, longrow), {0})) ==
        std::vector<double>{5});
}

TEST_CASE("ReduceMax empty tensors, scalars and size-1 axes") {
  // Empty output: nothing to do.
  const Tensor e = tensor(ElementType::f32, {2, 0, 4}, {});
  CHECK(run(false, e, {2}).shape() == Shape{2, 0});
  CHECK(run(true, e, {0}).shape() == Shape{1, 0, 4});
  CHECK(run(true, e, {}).shape() == Shape{2, 0, 4});
  // Scalar data: only the empty axes list applies.
  const Tensor s = tensor(ElementType::i32, {}, {-5});
  const Tensor out = run(false, s, {});
  CHECK(out.shape() == Shape{});
  CHECK(doubles(out) == std::vector<double>{-5});
  // Reducing size-1 axes only copies.
  const Tensor ones = tensor(ElementType::u8, {1, 3, 1}, {7, 8, 9});
  CHECK(doubles(run(false, ones, {0, 2})) == std::vector<double>{7, 8, 9});
  CHECK(run(true, ones, {0, 2}).shape() == Shape{1, 3, 1});
  const Tensor one = tensor(ElementType::u8, {1, 1}, {4});
  CHECK(doubles(run(false, one, {0, 1})) == std::vector<double>{4});
}

TEST_CASE("ReduceMax kernel against the reference on random inputs") {
  std::mt19937 rng(20240611);
  const std::vector<Shape> shapes = {{7},
                                     {1},
                                     {5, 1},
                                     {1, 6},
                                     {4, 5},
                                     {3, 1, 4},
                                     {2, 3, 4},
                                     {3, 4, 2, 5},
                                     {2, 1, 3, 1, 4},
                                     {6, 2, 1, 3, 2},
                                     {3, 0, 2},
                                     {33, 17},
                                     {5000},
                                     {3, 2100},
                                     {2100, 3},
                                     {19, 4500},     // output rows past 16 KiB: 8 rows a pass
                                     {2, 11, 2100},  // the same for 8-byte types only
                                     {2, 3, 5, 7, 2, 3}};
  for (const Shape& shape : shapes) {
    const std::size_t rank = shape.size();
    // Every subset of axes.
    for (std::uint32_t mask = 0; mask < (1u << rank); ++mask) {
      std::vector<bool> reduced(rank);
      for (std::size_t d = 0; d < rank; ++d) reduced[d] = (mask >> d) & 1u;
      CAPTURE(to_string(shape));
      CAPTURE(mask);
      compare_with_reference<float>(rng, shape, reduced, true);
      compare_with_reference<float>(rng, shape, reduced, false);
      compare_with_reference<std::int32_t>(rng, shape, reduced, false);
      compare_with_reference<std::uint8_t>(rng, shape, reduced, false);
      compare_with_reference<std::uint64_t>(rng, shape, reduced, false);
      compare_with_reference<std::int64_t>(rng, shape, reduced, false);
      compare_with_reference<float16>(rng, shape, reduced, true);
      compare_with_reference<bfloat16>(rng, shape, reduced, true);
      compare_with_reference<double>(rng, shape, reduced, true);
      compare_with_reference<std::int8_t>(rng, shape, reduced, false);
      compare_with_reference<std::uint16_t>(rng, shape, reduced, false);
    }
  }
}

TEST_CASE("ReduceMax plan merges neighbouring axes") {
  const Shape shape{2, 3, 1, 4, 5};
  const std::vector<std::int64_t> axes{1, 3};
  const ReduceMaxPlan p = plan_reduce_max(shape, axes);
  // The size-1 axis vanishes, so 3 and 4 merge into one reduced block of 12.
  CHECK(p.dims == std::vector<std::int64_t>{2, 12, 5});
  CHECK(p.reduced == std::vector<bool>{false, true, false});
  CHECK(p.input_size == 120);
  CHECK(p.output_size == 10);
  const std::vector<std::int64_t> dup{4, 4, 0};
  const ReduceMaxPlan q = plan_reduce_max(shape, dup);
  CHECK(q.dims == std::vector<std::int64_t>{2, 12, 5});
  CHECK(q.reduced == std::vector<bool>{true, false, true});
  CHECK(q.output_size == 12);
}

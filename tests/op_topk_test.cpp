// TopK-1, TopK-3, TopK-11: attributes, shape rule, validation, ordering (ties, NaN, sort modes),
// every element and index type, and both kernels (plain and optimised) against a sort-based
// reference on random inputs.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "reference/topk.hpp"
#include "kernels/topk.hpp"
#include "core/attributes.hpp"
#include "op_test_util.hpp"
#include "graph/op.hpp"
#include "ops/registry.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;

const OpDef& def_for(const char* opset) {
  return op_def("TopK", opset);
}

std::unique_ptr<const Op> make_op(int version, Attrs attrs) {
  return def_for(("opset" + std::to_string(version)).c_str()).create(Attributes(std::move(attrs)));
}

std::unique_ptr<const Op> make_op(int version, std::int64_t axis, const char* mode,
                                  const char* sort, const char* index_type = "i32") {
  return make_op(version, {{"axis", std::to_string(axis)},
                           {"mode", mode},
                           {"sort", sort},
                           {"index_element_type", index_type}});
}

Tensor k_tensor(std::int64_t k, ElementType type = ElementType::i64) {
  return tensor(type, {}, {static_cast<double>(k)});
}

/// Load-time inference: k is a Const when `k` is given, else a Parameter of `k_type`.
std::vector<OutputInfo> infer(const Op& op, ElementType type, const char* data_shape,
                              const char* k_shape, const Tensor* k = nullptr,
                              ElementType k_type = ElementType::i64) {
  auto out = infer_outputs(
      op, {info(type, data_shape), info(k ? k->element_type() : k_type, k_shape, k)}, 2);
  CHECK(out[0].shape == out[1].shape);
  return out;
}

std::string inferred(int version, std::int64_t axis, const char* data_shape,
                     std::optional<std::int64_t> k) {
  auto op = make_op(version, axis, "max", "value");
  const Tensor kt = k_tensor(k.value_or(0));
  return to_string(infer(*op, ElementType::f32, data_shape, "[]", k ? &kt : nullptr)[0].shape);
}

struct Result {
  Tensor values;
  Tensor indices;
};

/// Run time: infer with every value known, check that the values keep the data's type, then
/// allocate and execute.
Result run(const Op& op, const Tensor& data, const Tensor& k) {
  const std::vector<Tensor> inputs{data, k};
  const std::vector<OutputInfo> outs = infer_at_run_time(op, inputs, 2);
  REQUIRE(outs[0].type == data.element_type());
  const std::vector<Tensor> out = allocate_and_execute(op, inputs, outs);
  return {out[0], out[1]};
}

Result run(int version, std::int64_t axis, const char* mode, const char* sort, const Tensor& data,
           std::int64_t k, const char* index_type = "i32") {
  return run(*make_op(version, axis, mode, sort, index_type), data, k_tensor(k));
}

template <class F>
void expect_error(F&& f, ErrorCode code, const std::string& message, std::int64_t port) {
  try {
    f();
    FAIL("no error, expected: " << message);
  } catch (const Error& e) {
    CHECK(e.code() == code);
    CHECK(e.message() == message);
    CHECK(e.context().port == port);
  }
}

// ---- The reference: sort each slice by an explicit comparator on values, keep the first k. ----

/// Whether a ranks before b: the better value (NaN above every number), ties to the lower index.
template <class T>
bool ranks_before(T a, std::int64_t ia, T b, std::int64_t ib, bool largest) {
  using C = compute_t<T>;
  const C x = static_cast<C>(a), y = static_cast<C>(b);
  if constexpr (std::is_floating_point_v<C>) {
    const bool nx = std::isnan(x), ny = std::isnan(y);
    if (nx != ny) return largest ? nx : ny;
    if (nx) return ia < ib;
  }
  if (x != y) return largest ? x > y : x < y;
  return ia < ib;
}

template <class T>
void reference(const std::vector<T>& in, std::int64_t outer, std::int64_t n, std::int64_t inner,
               std::int64_t k, bool largest, bool by_index, std::vector<T>& values,
               std::vector<std::int64_t>& indices) {
  values.assign(static_cast<std::size_t>(outer * k * inner), T{});
  indices.assign(values.size(), -1);
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      const auto at = [&](std::int64_t j) {
        return in[static_cast<std::size_t>((o * n + j) * inner + i)];
      };
      std::vector<std::int64_t> order(static_cast<std::size_t>(n));
      for (std::int64_t j = 0; j < n; ++j) order[static_cast<std::size_t>(j)] = j;
      std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return ranks_before(at(a), a, at(b), b, largest);
      });
      order.resize(static_cast<std::size_t>(k));
      if (by_index) std::sort(order.begin(), order.end());
      for (std::int64_t r = 0; r < k; ++r) {
        const auto pos = static_cast<std::size_t>((o * k + r) * inner + i);
        values[pos] = at(order[static_cast<std::size_t>(r)]);
        indices[pos] = order[static_cast<std::size_t>(r)];
      }
    }
  }
}

template <class T>
T random_value(std::mt19937& rng, int spread) {
  using C = compute_t<T>;
  std::uniform_int_distribution<int> small(-spread, spread);
  if constexpr (std::is_floating_point_v<C>) {
    const int p = std::uniform_int_distribution<int>(0, 39)(rng);
    if (p == 0) return T(std::numeric_limits<C>::quiet_NaN());
    if (p == 1) return T(-std::numeric_limits<C>::quiet_NaN());
    if (p == 2) return T(-std::numeric_limits<C>::infinity());
    if (p == 3) return T(std::numeric_limits<C>::infinity());
    if (p == 4) return T(C(-0.0));
    return T(static_cast<C>(small(rng)) / C(4));
  } else {
    if (std::uniform_int_distribution<int>(0, 1)(rng))
      return static_cast<T>(small(rng));                                         // many ties
    return static_cast<T>(std::uniform_int_distribution<std::uint64_t>()(rng));  // full range
  }
}

/// Runs each kernel (both real ones by default) and the reference; values must match bit for
/// bit (all copy input elements) and indices exactly.
template <class T, class TIndex, class... Kernels>
void compare_with_reference(std::mt19937& rng, std::int64_t outer, std::int64_t n,
                            std::int64_t inner, std::int64_t k, TopKMode mode, TopKSort sort,
                            int spread, Kernels... kernels) {
  std::vector<T> in(static_cast<std::size_t>(outer * n * inner));
  for (T& v : in) v = random_value<T>(rng, spread);
  std::vector<T> want_values;
  std::vector<std::int64_t> want_indices;
  reference(in, outer, n, inner, k, mode == TopKMode::max, sort == TopKSort::index, want_values,
            want_indices);
  const auto check = [&](auto kernel, const char* name) {
    std::vector<T> values(want_values.size());
    std::vector<TIndex> indices(want_values.size());
    kernel(in.data(), outer, n, inner, k, mode, sort, values.data(), indices.data());
    for (std::size_t p = 0; p < values.size(); ++p) {
      if (indices[p] != want_indices[p] ||
          std::memcmp(&values[p], &want_values[p], sizeof(T)) != 0) {
        FAIL(std::string(name) << " kernel, outer " << outer << " n " << n << " inner " << inner << " k " << k
                  << " position " << p << ": index " << static_cast<std::int64_t>(indices[p])
                  << ", want " << want_indices[p]);
      }
    }
  };
  (check(kernels.first, kernels.second), ...);
}

/// The plain kernel (the oracle of the optimised one) and the optimised one, which the op runs.
template <class T, class TIndex>
void compare_with_reference(std::mt19937& rng, std::int64_t outer, std::int64_t n,
                            std::int64_t inner, std::int64_t k, TopKMode mode, TopKSort sort,
                            int spread = 3) {
  compare_with_reference<T, TIndex>(
      rng, outer, n, inner, k, mode, sort, spread,
      std::pair([](auto... args) { reference::topk(args...); }, "plain"),
      std::pair([](auto... args) { topk(Parallel(), args...); }, "optimised"));
}

}  // namespace

TEST_CASE("TopK registry entries") {
  for (const char* opset : {"opset1", "opset2"}) CHECK(def_for(opset).version == 1);
  for (const char* opset : {"opset3", "opset5", "opset10"}) CHECK(def_for(opset).version == 3);
  for (const char* opset : {"opset11", "opset13", "opset16"}) CHECK(def_for(opset).version == 11);
  for (const char* opset : {"opset1", "opset3", "opset11"}) {
    const OpDef& d = def_for(opset);
    CHECK(d.since_opset == d.version);
    CHECK(d.min_inputs == 2);
    CHECK(d.max_inputs == 2);
    CHECK(d.num_outputs == 2);
    CHECK(d.kind == OpKind::compute);
  }
}

TEST_CASE("TopK attributes") {
  const Attrs a1 = make_op(3, {{"axis", "-1"}, {"mode", "MIN"}, {"sort", "Index"}})->attributes();
  CHECK(a1 ==
        Attrs{{"axis", "-1"}, {"mode", "min"}, {"sort", "index"}, {"index_element_type", "i32"}});
  const Attrs a11 = make_op(11, {{"axis", "0"},
                                 {"mode", "max"},
                                 {"sort", "value"},
                                 {"index_element_type", "i64"},
                                 {"stable", "true"}})
                        ->attributes();
  CHECK(a11 == Attrs{{"axis", "0"},
                     {"mode", "max"},
                     {"sort", "value"},
                     {"index_element_type", "i64"},
                     {"stable", "true"}});
  CHECK(make_op(11, 0, "max", "none")->attributes().back() ==
        std::pair<std::string, std::string>{"stable", "false"});

  // Required attributes.
  CHECK_THROWS_WITH_AS(make_op(3, {{"mode", "max"}, {"sort", "value"}}),
                       doctest::Contains("missing required attribute 'axis'"), Error);
  CHECK_THROWS_WITH_AS(make_op(1, {{"axis", "0"}, {"sort", "value"}}),
                       doctest::Contains("missing required attribute 'mode'"), Error);
  CHECK_THROWS_WITH_AS(make_op(11, {{"axis", "0"}, {"mode", "min"}}),
                       doctest::Contains("missing required attribute 'sort'"), Error);
  // Bad values.
  CHECK_THROWS_WITH_AS(make_op(1, 0, "invalid_sort", "index"),
                       doctest::Contains("attribute 'mode' = 'invalid_sort'"), Error);
  CHECK_THROWS_WITH_AS(make_op(3, 0, "max", "invalid_mode"),
                       doctest::Contains("attribute 'sort' = 'invalid_mode'"), Error);
  CHECK_THROWS_WITH_AS(make_op(3, {{"axis", "x"}, {"mode", "max"}, {"sort", "value"}}),
                       doctest::Contains("attribute 'axis' = 'x'"), Error);
  for (int v : {1, 3, 11}) {
    CHECK_THROWS_WITH_AS(make_op(v, -2, "max", "value", "i16"),
                         doctest::Contains("attribute 'index_element_type' = 'i16': expected i32 "
                                           "or i64"),
                         Error);
    CHECK_THROWS_WITH_AS(make_op(v, -2, "max", "value", "f32"),
                         doctest::Contains("expected i32 or i64"), Error);
  }
  // TopK-1 produces i32 indices only.
  CHECK_THROWS_WITH_AS(make_op(1, 0, "max", "value", "i64"),
                       doctest::Contains("TopK-1 produces i32 indices only"), Error);
  CHECK_NOTHROW(make_op(1, 0, "max", "value", "I32"));
  CHECK_NOTHROW(make_op(3, 0, "max", "value", "i64"));
  // stable (TopK-11 only) needs an ordering.
  CHECK_THROWS_WITH_AS(
      make_op(11, {{"axis", "2"}, {"mode", "min"}, {"sort", "none"}, {"stable", "true"}}),
      doctest::Contains("a stable TopK needs sort = value or index, got sort = none"), Error);
  CHECK_NOTHROW(
      make_op(11, {{"axis", "2"}, {"mode", "min"}, {"sort", "none"}, {"stable", "false"}}));
  CHECK_NOTHROW(make_op(11, {{"axis", "2"}, {"mode", "min"}, {"sort", "index"}, {"stable", "1"}}));
  CHECK_THROWS_WITH_AS(
      make_op(11, {{"axis", "2"}, {"mode", "min"}, {"sort", "index"}, {"stable", "maybe"}}),
      doctest::Contains("attribute 'stable' = 'maybe'"), Error);
  try {
    make_op(1, 0, "max", "value", "i64");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::format);
  }
}

TEST_CASE("TopK shape rule") {
  for (int v : {1, 3, 11}) {
    CAPTURE(v);
    // Const k replaces the axis dimension, without clamping to it.
    CHECK(inferred(v, -2, "[1,2,3,4]", 2) == "[1,2,2,4]");
    CHECK(inferred(v, -1, "[1,2,3,4]", 2) == "[1,2,3,2]");
    CHECK(inferred(v, 3, "[1,2,3,4]", 3) == "[1,2,3,3]");
    CHECK(inferred(v, 0, "[1,2,3,4]", 3) == "[3,2,3,4]");
    CHECK(inferred(v, 3, "[1,3..4,4,2..6]", 3) == "[1,3..4,4,3]");
    CHECK(inferred(v, 0, "[?,..2]", 5) == "[5,..2]");
    CHECK(inferred(v, 0, "[2..12,..2]", 6) == "[6,..2]");
    CHECK(inferred(v, 1, "[2,3]", 0) == "[2,0]");
    // Unknown k: anything up to the dimension.
    CHECK(inferred(v, 1, "[2,10]", std::nullopt) == "[2,..10]");
    CHECK(inferred(v, 0, "[?,..2]", std::nullopt) == "[?,..2]");
    CHECK(inferred(v, 0, "[2..100,..2]", std::nullopt) == "[..100,..2]");
    CHECK(inferred(v, 0, "[2..,..2]", std::nullopt) == "[?,..2]");
    CHECK(inferred(v, -1, "[7]", std::nullopt) == "[..7]");
    // Unknown rank: unknown outputs, even for an axis that cannot be normalised yet.
    CHECK(inferred(v, 1, "[...]", std::nullopt) == "[...]");
    CHECK(inferred(v, -2, "[...]", 2) == "[...]");
  }
  // k of unknown shape and unknown rank.
  auto op = make_op(3, 0, "max", "value");
  CHECK(to_string(
            infer(*op, ElementType::f32, "[?,..2]", "[...]", nullptr, ElementType::i32)[0].shape) ==
        "[?,..2]");
  CHECK(to_string(infer(*op, ElementType::f32, "[...]", "[...]")[0].shape) == "[...]");
  // Output types: data type and the index type.
  for (const char* it : {"i32", "i64"}) {
    auto o = infer(*make_op(11, 1, "min", "index", it), ElementType::f16, "[2,3]", "[]");
    CHECK(o[0].type == ElementType::f16);
    CHECK(o[1].type == *parse_element_type(it));
  }
  CHECK(infer(*make_op(1, 0, "max", "value"), ElementType::u8, "[4]", "[]")[1].type ==
        ElementType::i32);
}

TEST_CASE("TopK validation") {
  auto v1 = make_op(1, 0, "max", "value");
  auto v3 = make_op(3, 0, "max", "value");
  auto v11 = make_op(11, 0, "max", "value");
  const auto f32 = ElementType::f32;
  for (const Op* op : {v1.get(), v3.get(), v11.get()}) {
    CHECK_THROWS_WITH_AS(infer(*op, ElementType::boolean, "[3]", "[]"),
                         doctest::Contains("data must be a numeric tensor, got boolean"), Error);
    CHECK_THROWS_WITH_AS(infer(*op, f32, "[]", "[]"),
                         doctest::Contains("data must have rank 1 or more, got a scalar"), Error);
    CHECK_THROWS_WITH_AS(infer(*op, f32, "[1,2,3]", "[1]"),
                         doctest::Contains("k must be a scalar, got [1]"), Error);
    CHECK_THROWS_WITH_AS(infer(*op, f32, "[1,2,3]", "[2]"),
                         doctest::Contains("k must be a scalar, got [2]"), Error);
    const Tensor minus1 = k_tensor(-1, ElementType::i8);
    CHECK_THROWS_WITH_AS(infer(*op, f32, "[?,..2]", "[]", &minus1),
                         doctest::Contains("k must be non-negative, got -1"), Error);
    // k beyond the axis is fine while the data is unknown (see the shape rule).
    const Tensor five = k_tensor(5);
    CHECK(to_string(infer(*op, f32, "[3]", "[]", &five)[0].shape) == "[5]");
  }
  // k types: TopK-1 takes i8/i32/i64, later versions any integer.
  CHECK_THROWS_WITH_AS(infer(*v1, f32, "[5,..2]", "[]", nullptr, ElementType::u32),
                       doctest::Contains("k must be i8, i32 or i64, got u32"), Error);
  CHECK_THROWS_WITH_AS(infer(*v1, f32, "[5,..2]", "[]", nullptr, ElementType::i16),
                       doctest::Contains("got i16"), Error);
  CHECK_THROWS_WITH_AS(infer(*v1, f32, "[5,..2]", "[]", nullptr, ElementType::f32),
                       doctest::Contains("k must be i8, i32 or i64, got f32"), Error);
  for (ElementType t : {ElementType::i8, ElementType::i32, ElementType::i64}) {
    const Tensor one = k_tensor(1, t);
    CHECK(to_string(infer(*v1, f32, "[5,..2]", "[]", &one)[0].shape) == "[1,..2]");
  }
  for (const Op* op : {v3.get(), v11.get()}) {
    CHECK_THROWS_WITH_AS(infer(*op, f32, "[1,2,3]", "[]", nullptr, ElementType::f32),
                         doctest::Contains("k must be an integer tensor, got f32"), Error);
    CHECK_THROWS_WITH_AS(infer(*op, f32, "[1,2,3]", "[]", nullptr, ElementType::boolean),
                         doctest::Contains("k must be an integer tensor, got boolean"), Error);
    for (ElementType t : {ElementType::u8, ElementType::u16, ElementType::u32, ElementType::u64,
                          ElementType::i16}) {
      const Tensor one = k_tensor(1, t);
      CHECK(to_string(infer(*op, f32, "[5,..2]", "[]", &one)[0].shape) == "[1,..2]");
    }
  }
  // Axis out of range: an error about the layer.
  auto far = make_op(3, 2, "max", "value");
  CHECK_THROWS_WITH_AS(infer(*far, f32, "[2,3]", "[]"),
                       doctest::Contains("axis 2 is out of the tensor rank range [-2, 1]"), Error);
  CHECK_THROWS_WITH_AS(infer(*make_op(1, -3, "max", "value"), f32, "[2,3]", "[]"),
                       doctest::Contains("axis -3 is out of the tensor rank range [-2, 1]"), Error);
  // Error codes and ports: a bad Const k while loading is a shape error on input 1.
  const Tensor minus2 = k_tensor(-2);
  expect_error([&] { infer(*v3, f32, "[3]", "[]", &minus2); }, ErrorCode::shape,
               "k must be non-negative, got -2", 1);
  expect_error([&] { infer(*v3, ElementType::boolean, "[3]", "[]"); }, ErrorCode::shape,
               "data must be a numeric tensor, got boolean", 0);
}

TEST_CASE("TopK run-time value errors") {
  const Tensor data = tensor(ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6});
  for (int v : {1, 3, 11}) {
    auto op = make_op(v, 1, "max", "value");
    expect_error([&] { run(*op, data, k_tensor(5)); }, ErrorCode::value,
                 "k (5) exceeds dimension 3 of axis 1", 1);
    expect_error([&] { run(*op, data, k_tensor(-1)); }, ErrorCode::value,
                 "k must be non-negative, got -1", 1);
    auto neg_axis = make_op(v, -2, "max", "value");
    expect_error([&] { run(*neg_axis, data, k_tensor(3)); }, ErrorCode::value,
                 "k (3) exceeds dimension 2 of axis 0", 1);
  }
  // A huge k is refused before any output is allocated.
  auto v3 = make_op(3, 1, "max", "value");
  Tensor huge(ElementType::u64, {});
  huge.data<std::uint64_t>()[0] = std::numeric_limits<std::uint64_t>::max();
  expect_error([&] { run(*v3, data, huge); }, ErrorCode::value,
               "k (18446744073709551615) exceeds dimension 3 of axis 1", 1);
  // execute() checks k itself, before writing anything.
  std::vector<Tensor> outputs{Tensor(ElementType::f32, {2, 3}), Tensor(ElementType::i32, {2, 3})};
  const std::vector<Tensor> inputs{data, k_tensor(4)};
  CHECK_THROWS_WITH_AS(v3->execute(inputs, outputs, {}),
                       doctest::Contains("k (4) exceeds dimension 3 of axis 1"), Error);
  CHECK(doubles(outputs[0]) == std::vector<double>(6, 0.0));
}

TEST_CASE("TopK ordering: ties, sort modes, examples") {
  for (int v : {1, 3, 11}) {
    CAPTURE(v);
    // The first of equal maxima wins.
    const Tensor d = tensor(ElementType::f32, {2, 4}, {1, 3, 2, 4, 1, 3, 3, 2});
    Result r = run(v, 1, "max", "value", d, 1);
    CHECK(doubles(r.values) == std::vector<double>{4, 3});
    CHECK(integers(r.indices) == std::vector<std::int64_t>{3, 1});
    CHECK(r.values.shape() == Shape{2, 1});
    // min/value: ascending, ties by index.
    const Tensor e = tensor(ElementType::f32, {7}, {5, 4, 3, 1, 7, 1, 3});
    r = run(v, 0, "min", "value", e, 3);
    CHECK(doubles(r.values) == std::vector<double>{1, 1, 3});
    CHECK(integers(r.indices) == std::vector<std::int64_t>{3, 5, 2});
    // min/index: the spec's example, chosen by value, output by index.
    const Tensor s = tensor(ElementType::f32, {6}, {5, 3, 1, 2, 5, 5});
    r = run(v, 0, "min", "index", s, 4);
    CHECK(doubles(r.values) == std::vector<double>{5, 3, 1, 2});
    CHECK(integers(r.indices) == std::vector<std::int64_t>{0, 1, 2, 3});
    // The mode/sort table on [3,1,2,5,4], k 3.
    const Tensor t = tensor(ElementType::f32, {5}, {3, 1, 2, 5, 4});
    r = run(v, 0, "max", "value", t, 3);
    CHECK(doubles(r.values) == std::vector<double>{5, 4, 3});
    CHECK(integers(r.indices) == std::vector<std::int64_t>{3, 4, 0});
    r = run(v, 0, "max", "index", t, 3);
    CHECK(doubles(r.values) == std::vector<double>{3, 5, 4});
    CHECK(integers(r.indices) == std::vector<std::int64_t>{0, 3, 4});
    r = run(v, 0, "min", "value", t, 3);
    CHECK(doubles(r.values) == std::vector<double>{1, 2, 3});
    CHECK(integers(r.indices) == std::vector<std::int64_t>{1, 2, 0});
    r = run(v, 0, "min", "index", t, 3);
    CHECK(doubles(r.values) == std::vector<double>{3, 1, 2});
    CHECK(integers(r.indices) == std::vector<std::int64_t>{0, 1, 2});
    // sort=none: irlite emits the sort=value order.
    r = run(v, 0, "max", "none", t, 3);
    CHECK(doubles(r.values) == std::vector<double>{5, 4, 3});
    CHECK(integers(r.indices) == std::vector<std::int64_t>{3, 4, 0});
    r = run(v, 0, "min", "none", t, 3);
    CHECK(integers(r.indices) == std::vector<std::int64_t>{1, 2, 0});
    // All equal: the lowest indices, in order, for every mode and sort.
    const Tensor flat = tensor(ElementType::i32, {6}, {7, 7, 7, 7, 7, 7});
    for (const char* mode : {"max", "min"})
      for (const char* sort : {"value", "index", "none"})
        CHECK(integers(run(v, 0, mode, sort, flat, 4).indices) ==
              std::vector<std::int64_t>{0, 1, 2, 3});
    // k = n sorts the whole slice.
    r = run(v, 0, "max", "value", t, 5);
    CHECK(integers(r.indices) == std::vector<std::int64_t>{3, 4, 0, 2, 1});
  }
  // TopK-11 with stable=true gives the same (already stable) answer.
  auto stable =
      make_op(11, {{"axis", "0"}, {"mode", "min"}, {"sort", "value"}, {"stable", "true"}});
  const Tensor e = tensor(ElementType::f32, {7}, {5, 4, 3, 1, 7, 1, 3});
  Result r = run(*stable, e, k_tensor(3));
  CHECK(integers(r.indices) == std::vector<std::int64_t>{3, 5, 2});
}

TEST_CASE("TopK along outer and middle axes") {
  // [2,3,2]: axis 1 is neither innermost nor outermost.
  const Tensor d = tensor(ElementType::f32, {2, 3, 2}, {1, 6, 5, 2, 3, 4, 9, 7, 8, 8, 7, 9});
  Result r = run(3, 1, "max", "value", d, 2);
  CHECK(r.values.shape() == Shape{2, 2, 2});
  CHECK(doubles(r.values) == std::vector<double>{5, 6, 3, 4, 9, 9, 8, 8});
  CHECK(integers(r.indices) == std::vector<std::int64_t>{1, 0, 2, 2, 0, 2, 1, 1});
  r = run(3, -2, "min", "index", d, 2);
  CHECK(doubles(r.values) == std::vector<double>{1, 2, 3, 4, 8, 7, 7, 8});
  CHECK(integers(r.indices) == std::vector<std::int64_t>{0, 1, 2, 2, 1, 0, 2, 1});
  // k = 1 along the first axis.
  r = run(1, 0, "max", "value", d, 1);
  CHECK(r.values.shape() == Shape{1, 3, 2});
  CHECK(doubles(r.values) == std::vector<double>{9, 7, 8, 8, 7, 9});
  CHECK(integers(r.indices) == std::vector<std::int64_t>{1, 1, 1, 1, 1, 1});
  r = run(11, 0, "min", "value", d, 1);
  CHECK(doubles(r.values) == std::vector<double>{1, 6, 5, 2, 3, 4});
  CHECK(integers(r.indices) == std::vector<std::int64_t>{0, 0, 0, 0, 0, 0});
}

TEST_CASE("TopK NaN ranks above every number, -0 equals +0") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (ElementType type :
       {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64}) {
    CAPTURE(to_string(type));
    const Tensor d = tensor(type, {6}, {1, nan, inf, -inf, nan, 0});
    // max: NaNs first (lower index first), then +inf.
    Result r = run(3, 0, "max", "value", d, 4);
    CHECK(integers(r.indices) == std::vector<std::int64_t>{1, 4, 2, 0});
    auto v = doubles(r.values);
    CHECK(std::isnan(v[0]));
    CHECK(std::isnan(v[1]));
    CHECK(v[2] == inf);
    // min: NaNs last.
    r = run(3, 0, "min", "value", d, 6);
    CHECK(integers(r.indices) == std::vector<std::int64_t>{3, 5, 0, 2, 1, 4});
    r = run(3, 0, "min", "value", d, 4);
    CHECK(integers(r.indices) == std::vector<std::int64_t>{3, 5, 0, 2});
    // k = 1 paths.
    CHECK(integers(run(3, 0, "max", "value", d, 1).indices) == std::vector<std::int64_t>{1});
    CHECK(integers(run(3, 0, "min", "value", d, 1).indices) == std::vector<std::int64_t>{3});
    // A NaN with the sign bit set ranks like any NaN.
    Tensor neg_nan = tensor(type, {3}, {2, -nan, 3});
    CHECK(integers(run(3, 0, "max", "value", neg_nan, 1).indices) == std::vector<std::int64_t>{1});
    CHECK(integers(run(3, 0, "min", "value", neg_nan, 3).indices) ==
          std::vector<std::int64_t>{0, 2, 1});
    // -0 and +0 tie, so the lower index wins whatever the sign.
    const Tensor zeros = tensor(type, {4}, {0.0, -0.0, 1, -1});
    CHECK(integers(run(3, 0, "max", "value", zeros, 3).indices) ==
          std::vector<std::int64_t>{2, 0, 1});
    const Tensor zeros2 = tensor(type, {3}, {-0.0, 0.0, -1});
    CHECK(integers(run(3, 0, "max", "value", zeros2, 1).indices) == std::vector<std::int64_t>{0});
    CHECK(integers(run(3, 0, "min", "value", zeros2, 3).indices) ==
          std::vector<std::int64_t>{2, 0, 1});
    // Values are copied, not converted: the sign of zero and NaN survive.
    r = run(3, 0, "max", "value", zeros2, 2);
    CHECK(std::signbit(doubles(r.values)[0]));
    CHECK_FALSE(std::signbit(doubles(r.values)[1]));
  }
}

TEST_CASE("TopK on every element type and both index types") {
  for (ElementType type : kNumericTypes) {
    for (const char* it : {"i32", "i64"}) {
      CAPTURE(to_string(type));
      CAPTURE(it);
      const Tensor d = tensor(type, {2, 5}, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3});
      auto op = make_op(it == std::string("i32") ? 1 : 3, 1, "max", "value", it);
      Result r = run(*op, d, k_tensor(3));
      CHECK(r.values.element_type() == type);
      CHECK(r.indices.element_type() == *parse_element_type(it));
      CHECK(doubles(r.values) == std::vector<double>{5, 4, 3, 9, 6, 5});
      CHECK(integers(r.indices) == std::vector<std::int64_t>{4, 2, 0, 0, 2, 3});
      r = run(11, 0, "min", "index", d, 1, it);
      CHECK(doubles(r.values) == std::vector<double>{3, 1, 4, 1, 3});
      CHECK(integers(r.indices) == std::vector<std::int64_t>{0, 0, 0, 0, 1});
      r = run(11, 1, "min", "index", d, 2, it);
      CHECK(doubles(r.values) == std::vector<double>{1, 1, 2, 3});
      CHECK(integers(r.indices) == std::vector<std::int64_t>{1, 3, 1, 4});
    }
  }
  // Extremes of the integer types order correctly.
  Tensor i64(ElementType::i64, {4});
  const auto lo = std::numeric_limits<std::int64_t>::min(),
             hi = std::numeric_limits<std::int64_t>::max();
  std::copy_n(std::vector<std::int64_t>{0, lo, hi, -1}.begin(), 4, i64.data<std::int64_t>());
  CHECK(integers(run(3, 0, "max", "value", i64, 4).indices) ==
        std::vector<std::int64_t>{2, 0, 3, 1});
  Tensor u64(ElementType::u64, {3});
  std::copy_n(std::vector<std::uint64_t>{1, ~std::uint64_t{0}, std::uint64_t{1} << 63}.begin(), 3,
              u64.data<std::uint64_t>());
  Result r = run(3, 0, "min", "value", u64, 3);
  CHECK(integers(r.indices) == std::vector<std::int64_t>{0, 2, 1});
  CHECK(r.values.data<std::uint64_t>()[2] == ~std::uint64_t{0});
  const Tensor i8 = tensor(ElementType::i8, {4}, {-128, 127, -1, 0});
  CHECK(integers(run(3, 0, "max", "value", i8, 4).indices) ==
        std::vector<std::int64_t>{1, 3, 2, 0});
  const Tensor u8 = tensor(ElementType::u8, {4}, {255, 0, 128, 127});
  CHECK(integers(run(3, 0, "min", "value", u8, 4).indices) ==
        std::vector<std::int64_t>{1, 3, 2, 0});
}

TEST_CASE("TopK empty tensors and k = 0") {
  const Tensor d = tensor(ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Result r = run(3, 1, "max", "value", d, 0);
  CHECK(r.values.shape() == Shape{2, 0});
  CHECK(r.indices.shape() == Shape{2, 0});
  // A zero-length axis takes only k = 0.
  const Tensor e = tensor(ElementType::i32, {2, 0, 3}, {});
  r = run(11, 1, "min", "index", e, 0);
  CHECK(r.values.shape() == Shape{2, 0, 3});
  CHECK_THROWS_WITH_AS(run(11, 1, "min", "index", e, 1),
                       doctest::Contains("k (1) exceeds dimension 0 of axis 1"), Error);
  // Other axes empty: empty outputs for any valid k.
  const Tensor f = tensor(ElementType::f16, {0, 4}, {});
  r = run(1, 1, "max", "value", f, 2);
  CHECK(r.values.shape() == Shape{0, 2});
  const Tensor g = tensor(ElementType::u16, {3, 0}, {});
  r = run(1, 0, "max", "value", g, 3);
  CHECK(r.values.shape() == Shape{3, 0});
}

TEST_CASE("TopK kernel against the reference on random inputs") {
  std::mt19937 rng(7);
  struct Case {
    std::int64_t outer, n, inner;
  };
  // Short and long slices, innermost and strided axes; k = 1 (scans), k <= n / 32 (bounded
  // heaps) and larger k (gathered slices, nth_element).
  const std::vector<Case> cases = {{1, 1, 1},    {3, 7, 1},    {2, 9, 5},   {4, 1, 3},
                                   {1, 50, 1},   {2, 33, 17},  {2, 100, 1}, {3, 100, 7},
                                   {1, 5000, 1}, {1, 4200, 3}, {3, 300, 40}};
  for (const Case& c : cases) {
    for (std::int64_t k : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{3},
                           c.n / 32, c.n / 32 + 1, c.n / 2, c.n - 1, c.n}) {
      if (k < 0 || k > c.n) continue;
      for (TopKMode mode : {TopKMode::max, TopKMode::min}) {
        for (TopKSort sort : {TopKSort::value, TopKSort::index, TopKSort::none}) {
          CAPTURE(c.outer);
          CAPTURE(c.n);
          CAPTURE(c.inner);
          CAPTURE(k);
          compare_with_reference<float, std::int32_t>(rng, c.outer, c.n, c.inner, k, mode, sort);
          compare_with_reference<std::int64_t, std::int64_t>(rng, c.outer, c.n, c.inner, k, mode,
                                                             sort);
          if (c.outer * c.n * c.inner > 2000) continue;
          compare_with_reference<float16, std::int64_t>(rng, c.outer, c.n, c.inner, k, mode, sort);
          compare_with_reference<bfloat16, std::int32_t>(rng, c.outer, c.n, c.inner, k, mode, sort);
          compare_with_reference<double, std::int32_t>(rng, c.outer, c.n, c.inner, k, mode, sort);
          compare_with_reference<std::uint64_t, std::int32_t>(rng, c.outer, c.n, c.inner, k, mode,
                                                              sort);
          compare_with_reference<std::int8_t, std::int64_t>(rng, c.outer, c.n, c.inner, k, mode,
                                                            sort);
          compare_with_reference<std::uint8_t, std::int32_t>(rng, c.outer, c.n, c.inner, k, mode,
                                                             sort);
          compare_with_reference<std::int16_t, std::int32_t>(rng, c.outer, c.n, c.inner, k, mode,
                                                             sort);
          compare_with_reference<std::uint16_t, std::int64_t>(rng, c.outer, c.n, c.inner, k, mode,
                                                              sort);
          compare_with_reference<std::int32_t, std::int64_t>(rng, c.outer, c.n, c.inner, k, mode,
                                                             sort);
          compare_with_reference<std::uint32_t, std::int32_t>(rng, c.outer, c.n, c.inner, k, mode,
                                                              sort);
        }
      }
    }
  }
  // Long slices of a strided axis: small k (heaps) and a k large enough that only a few slices
  // are gathered at a time; few distinct values, so many ties.
  compare_with_reference<float, std::int32_t>(rng, 1, 70000, 5, 3, TopKMode::max, TopKSort::value);
  compare_with_reference<float, std::int64_t>(rng, 1, 70000, 5, 3000, TopKMode::min,
                                              TopKSort::none);
  compare_with_reference<std::int32_t, std::int32_t>(rng, 2, 30000, 2, 10, TopKMode::min,
                                                     TopKSort::index, 2);
  compare_with_reference<std::uint8_t, std::int32_t>(rng, 2, 30000, 3, 20000, TopKMode::max,
                                                     TopKSort::index, 2);
}

TEST_CASE("TopK unpacked entries agree with the reference for 32-bit keys") {
  // Elements with 32-bit keys use the packed (key, index) form for every slice below 2^32
  // elements; the unpacked form they fall back to beyond is exercised here on small slices, in
  // both kernels.
  std::mt19937 rng(11);
  const auto wide = [](const auto* in, auto... rest) {
    using T = std::remove_cvref_t<decltype(*in)>;
    namespace impl = reference::topk_impl;
    impl::topk_with<impl::WideEntries<impl::key_type<T>>>(in, rest...);
  };
  const auto unpacked = [](auto... args) { topk_detail::topk_unpacked(Parallel(), args...); };
  for (std::int64_t k : {1, 2, 6, 20}) {  // scan, heap (n = 64), gathered, full sort
    for (TopKMode mode : {TopKMode::max, TopKMode::min}) {
      for (TopKSort sort : {TopKSort::value, TopKSort::index}) {
        const auto compare = [&](auto tag, std::int64_t outer, std::int64_t n,
                                 std::int64_t inner) {
          using T = typename decltype(tag)::first_type;
          using TIndex = typename decltype(tag)::second_type;
          compare_with_reference<T, TIndex>(rng, outer, n, inner, k, mode, sort, 3,
                                            std::pair(wide, "plain"),
                                            std::pair(unpacked, "optimised"));
        };
        compare(std::pair<float, std::int32_t>(), 3, 20, 1);
        compare(std::pair<float, std::int64_t>(), 2, 20, 3);
        compare(std::pair<std::int16_t, std::int32_t>(), 2, 64, 2);
        compare(std::pair<double, std::int32_t>(), 1, 64, 1);
      }
    }
  }
}

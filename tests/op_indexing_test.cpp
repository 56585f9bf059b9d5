// The indexing family: Gather-1/7/8, Range-4, StridedSlice-1. Shape rules on partial shapes
// (intervals, dynamic rank, unknown values), errors, kernels against plain oracles on random
// inputs of several element types, thread splits, value bounds and whole models.

#include <doctest/doctest.h>

#include <cmath>
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
#include "kernels/element.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "ops/indexing_slice.hpp"
#include "ops/registry.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;


/// The message of the irlite::Error f() throws ("" when it returns).
template <class F>
std::string error_of(F&& f) {
  const auto e = caught(std::forward<F>(f));
  return e ? std::string(e->what()) : std::string();
}

std::size_t shape_size(const Shape& s) {
  std::size_t n = 1;
  for (auto d : s) n *= static_cast<std::size_t>(d);
  return n;
}

/// A tensor of random bytes (booleans 0 or 1), for the data-movement ops, which compare bits.
Tensor random_tensor(std::mt19937& rng, ElementType type, const Shape& shape) {
  Tensor t(type, shape);
  auto* bytes = static_cast<unsigned char*>(t.data());
  for (std::size_t i = 0; i < t.byte_size(); ++i)
    bytes[i] = static_cast<unsigned char>(type == ElementType::boolean ? rng() % 2 : rng());
  return t;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.element_type() == b.element_type() && a.shape() == b.shape() &&
         (a.byte_size() == 0 || std::memcmp(a.data(), b.data(), a.byte_size()) == 0);
}

/// Row-major coordinates of flat index `i` in `shape`.
std::vector<std::int64_t> coords_of(std::size_t i, const Shape& shape) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    c[d] = static_cast<std::int64_t>(i % static_cast<std::size_t>(shape[d]));
    i /= static_cast<std::size_t>(shape[d]);
  }
  return c;
}

std::size_t flat_of(const std::vector<std::int64_t>& c, const Shape& shape) {
  std::size_t i = 0;
  for (std::size_t d = 0; d < shape.size(); ++d)
    i = i * static_cast<std::size_t>(shape[d]) + static_cast<std::size_t>(c[d]);
  return i;
}

// ---------------------------------------------------------------------------------------------
// Gather

/// The plain oracle: every output element found from its coordinates. Negative indices count
/// from the end, indices out of range give zero bytes.
Tensor gather_oracle(const Tensor& data, const Tensor& indices, std::int64_t axis,
                     std::int64_t batch_dims) {
  const Shape& ds = data.shape();
  const Shape& is = indices.shape();
  Shape os(ds.begin(), ds.begin() + axis);
  os.insert(os.end(), is.begin() + batch_dims, is.end());
  os.insert(os.end(), ds.begin() + axis + 1, ds.end());
  Tensor out(data.element_type(), os);
  const std::size_t es = element_size(data.element_type());
  const auto index_count = static_cast<std::int64_t>(is.size()) - batch_dims;
  for (std::size_t o = 0; o < out.size(); ++o) {
    const auto c = coords_of(o, os);
    std::vector<std::int64_t> ic(c.begin(), c.begin() + batch_dims);
    ic.insert(ic.end(), c.begin() + axis, c.begin() + axis + index_count);
    // integer_at saturates a u64 above INT64_MAX, which is out of range as it should be.
    std::int64_t v = integer_at(indices, flat_of(ic, is));
    if (v < 0) v += ds[static_cast<std::size_t>(axis)];
    auto* dst = static_cast<unsigned char*>(out.data()) + o * es;
    if (v < 0 || v >= ds[static_cast<std::size_t>(axis)]) {
      std::memset(dst, 0, es);
      continue;
    }
    std::vector<std::int64_t> dc(c.begin(), c.begin() + axis);
    dc.push_back(v);
    dc.insert(dc.end(), c.begin() + axis + index_count, c.end());
    std::memcpy(dst, static_cast<const unsigned char*>(data.data()) + flat_of(dc, ds) * es, es);
  }
  return out;
}

std::string gather_shape(std::string_view opset, std::int64_t batch_dims, const char* data,
                         const char* indices, const Tensor* axis, const char* axis_shape = "[]") {
  const auto op = make("Gather", opset, {{"batch_dims", std::to_string(batch_dims)}});
  return to_string(
      infer_outputs(*op, {info(ElementType::f32, data), info(ElementType::i64, indices),
                          info(ElementType::i64, axis_shape, axis)})[0]
          .shape);
}

std::string gather_shape(std::int64_t batch_dims, const char* data, const char* indices,
                         std::optional<std::int64_t> axis) {
  const Tensor a = ints(ElementType::i64, {}, {axis.value_or(0)});
  return gather_shape("opset8", batch_dims, data, indices, axis ? &a : nullptr);
}

}  // namespace

TEST_CASE("Gather registry entries") {
  std::string why;
  CHECK(resolve_op("Gather", "opset1", &why)->version == 1);
  CHECK(resolve_op("Gather", "opset6", &why)->version == 1);
  CHECK(resolve_op("Gather", "opset7", &why)->version == 7);
  CHECK(resolve_op("Gather", "opset8", &why)->version == 8);
  CHECK(resolve_op("gather", "opset16", &why)->version == 8);
  const OpDef& def = op_def("Gather", "opset8");
  CHECK(def.min_inputs == 3);
  CHECK(def.max_inputs == 3);
  CHECK(def.num_outputs == 1);
  CHECK(make("Gather", "opset7", {{"batch_dims", "-1"}})->attributes() ==
        Attrs{{"batch_dims", "-1"}});
  CHECK(make("Gather", "opset8")->attributes() == Attrs{{"batch_dims", "0"}});
  CHECK(make("Gather", "opset1")->attributes().empty());
  CHECK(error_of([] {
          make("Gather", "opset8", {{"batch_dims", "x"}});
        }).find("batch_dims") != std::string::npos);
}

TEST_CASE("Gather shape rule") {
  // The spec's examples.
  CHECK(gather_shape(0, "[6,12,10,24]", "[15,4,20,28]", 1) == "[6,15,4,20,28,10,24]");
  CHECK(gather_shape(1, "[2,64,128]", "[2,32,21]", 1) == "[2,32,21,128]");
  CHECK(gather_shape(1, "[2,1,5,4]", "[2,3]", 2) == "[2,1,3,4]");
  CHECK(gather_shape(2, "[2,2,5]", "[2,2,3]", 2) == "[2,2,3]");
  // Negative axis and batch_dims.
  CHECK(gather_shape(0, "[3,4,5]", "[7]", -1) == "[3,4,7]");
  CHECK(gather_shape(-1, "[2,5]", "[2,3]", 1) == "[2,3]");
  CHECK(gather_shape(-1, "[2,5,6]", "[2,3]", -2) == "[2,3,6]");
  // Scalar indices drop the axis.
  CHECK(gather_shape(0, "[4]", "[]", 0) == "[]");
  CHECK(gather_shape(0, "[3,4]", "[]", 1) == "[3]");
  // Intervals pass through; batch dims take the intersection.
  CHECK(gather_shape(0, "[?,2..5,7]", "[1..3]", 1) == "[?,1..3,7]");
  CHECK(gather_shape(1, "[2..6,5]", "[4..9,3]", 1) == "[4..6,3]");
  CHECK(gather_shape(1, "[?,5]", "[3..,3]", 1) == "[3..,3]");
  // Dynamic rank anywhere: dynamic rank.
  CHECK(gather_shape(0, "[...]", "[3]", 0) == "[...]");
  CHECK(gather_shape(0, "[3,4]", "[...]", 0) == "[...]");
  // Unknown axis: the rank is known, the dims after the batch ones are not.
  CHECK(gather_shape(0, "[3,4]", "[5,6]", std::nullopt) == "[?,?,?]");
  CHECK(gather_shape(1, "[2,4,5]", "[2..3,6]", std::nullopt) == "[2,?,?]");
  // An axis given as [1].
  const Tensor axis1 = ints(ElementType::i32, {1}, {1});
  CHECK(gather_shape("opset1", 0, "[3,4]", "[2]", &axis1, "[1]") == "[3,2]");
}

TEST_CASE("Gather shape rule errors") {
  const auto shape_error = [](std::int64_t b, const char* d, const char* i,
                              std::optional<std::int64_t> axis) {
    return error_of([&] { gather_shape(b, d, i, axis); });
  };
  CHECK(shape_error(0, "[3,4]", "[2]", 2).find("axis 2 is out of the tensor rank range [-2, 1]") !=
        std::string::npos);
  CHECK(shape_error(0, "[3,4]", "[2]", -3).find("axis -3") != std::string::npos);
  CHECK(shape_error(2, "[3,4,5]", "[3,4]", 1).find("batch_dims (2) must not exceed the axis (1)") !=
        std::string::npos);
  CHECK(shape_error(3, "[3,4,5,6]", "[3,4]", 3).find("out of the range [-2, 2]") !=
        std::string::npos);
  CHECK(shape_error(-3, "[3,4,5,6]", "[3,4]", 3).find("batch_dims (-3)") != std::string::npos);
  CHECK(shape_error(1, "[3,4]", "[2,5]", 1).find("same first 1 dimensions") != std::string::npos);
  CHECK(shape_error(1, "[3..4,4]", "[5..,5]", 1).find("dimension 0 differs") != std::string::npos);
  CHECK(shape_error(0, "[]", "[2]", std::nullopt).find("rank 1 or more") != std::string::npos);
  CHECK(shape_error(2, "[3]", "[3,4]", std::nullopt).find("exceeds the data rank") !=
        std::string::npos);
  const Tensor axis2 = ints(ElementType::i64, {2}, {0, 1});
  CHECK(error_of([&] {
          gather_shape("opset8", 0, "[3,4]", "[2]", &axis2, "[2]");
        }).find("axis must be a scalar or hold one element, got [2]") != std::string::npos);
  const auto op = make("Gather", "opset8");
  const Tensor axis = ints(ElementType::i64, {}, {0});
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(ElementType::f32, "[3]"),
                                           info(ElementType::f32, "[2]"), info(axis)});
        }).find("indices must be an integer tensor, got f32") != std::string::npos);
  CHECK(error_of([&] {
          op->infer(std::vector<ValueInfo>{info(ElementType::f32, "[3]"),
                                           info(ElementType::i32, "[2]"),
                                           info(ElementType::f32, "[]")});
        }).find("axis must be an integer tensor, got f32") != std::string::npos);
  // At run time an axis out of range is the axis value's error.
  const Tensor data = tensor(ElementType::f32, {3}, {1, 2, 3});
  const Tensor idx = ints(ElementType::i32, {1}, {0});
  const Tensor bad_axis = ints(ElementType::i64, {}, {1});
  const auto e = caught([&] { run(*op, {data, idx, bad_axis}); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
}

TEST_CASE("Gather values: the spec's examples, negative and out-of-range indices") {
  const auto op7 = make("Gather", "opset7", {{"batch_dims", "1"}});
  const Tensor data = tensor(ElementType::f32, {2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  const Tensor idx = ints(ElementType::i32, {2, 3}, {0, 0, 4, 4, 0, 0});
  const Tensor axis1 = ints(ElementType::i64, {}, {1});
  CHECK(doubles(run(*op7, {data, idx, axis1})) == std::vector<double>{1, 1, 5, 10, 6, 6});

  const auto op8 = make("Gather", "opset8");
  const Tensor d1 = tensor(ElementType::i32, {5}, {1, 2, 3, 4, 5});
  const Tensor axis0 = ints(ElementType::i64, {}, {0});
  // -1 is the last element, -5 the first; 5 and -6 are out of range: zeros.
  const Tensor neg = ints(ElementType::i64, {6}, {-1, -5, 5, -6, 2, 0});
  CHECK(doubles(run(*op8, {d1, neg, axis0})) == std::vector<double>{5, 1, 0, 0, 3, 1});
  // Gather-1 and Gather-7 compute the same (OpenVINO's reference is shared).
  const auto op1 = make("Gather", "opset1");
  CHECK(doubles(run(*op1, {d1, neg, axis0})) == std::vector<double>{5, 1, 0, 0, 3, 1});
  // Unsigned indices: never negative, the huge ones out of range.
  const Tensor u = ints(ElementType::u64, {3}, {4, -1, 1});
  CHECK(doubles(run(*op8, {d1, u, axis0})) == std::vector<double>{5, 0, 2});
  // Booleans move as bytes.
  const Tensor b = ints(ElementType::u8, {4}, {1, 0, 0, 1});
  Tensor flags(ElementType::boolean, {4});
  std::memcpy(flags.data(), b.data(), 4);
  const Tensor picked = run(*op8, {flags, ints(ElementType::i32, {3}, {3, 1, -4}), axis0});
  CHECK(picked.element_type() == ElementType::boolean);
  CHECK(std::vector<std::uint8_t>(picked.data<std::uint8_t>(), picked.data<std::uint8_t>() + 3) ==
        std::vector<std::uint8_t>{1, 0, 1});
  // Empty indices: an empty output; an empty axis with indices: all zeros.
  CHECK(run(*op8, {d1, ints(ElementType::i32, {0}, {}), axis0}).size() == 0);
  const Tensor empty_axis(ElementType::f32, {2, 0});
  CHECK(doubles(run(*op8, {empty_axis, ints(ElementType::i32, {2}, {0, 1}),
                           ints(ElementType::i64, {}, {1})})) == std::vector<double>{0, 0, 0, 0});
}

TEST_CASE("Gather kernel against the oracle on random inputs") {
  std::mt19937 rng(7);
  const ElementType data_types[] = {ElementType::f32, ElementType::f16,    ElementType::bf16,
                                    ElementType::i8,  ElementType::i64,    ElementType::u16,
                                    ElementType::f64, ElementType::boolean};
  const ElementType index_types[] = {ElementType::i32, ElementType::i64, ElementType::u8,
                                     ElementType::i16, ElementType::u64, ElementType::i8};
  struct Case {
    Shape data, indices;
    std::int64_t axis, batch_dims;
  };
  const Case cases[] = {
      {{7}, {5}, 0, 0},          {{3, 5, 7}, {4, 2}, 1, 0},
      {{3, 5, 7}, {3, 4}, 2, 1}, {{2, 3, 5, 3}, {2, 3, 6}, 2, 2},
      {{4, 9}, {}, 0, 0},        {{3, 1, 2}, {3, 5}, -1, -1},
      {{5, 3, 2}, {7}, -3, 0},   {{2, 3}, {2, 3, 0}, 1, 1},
  };
  for (const Case& c : cases)
    for (ElementType dt : data_types)
      for (ElementType it : index_types) {
        CAPTURE(to_string(c.data));
        CAPTURE(to_string(c.indices));
        CAPTURE(to_string(dt));
        CAPTURE(to_string(it));
        const Tensor data = random_tensor(rng, dt, c.data);
        const std::int64_t axis =
            c.axis < 0 ? c.axis + static_cast<std::int64_t>(c.data.size()) : c.axis;
        const std::int64_t bd = c.batch_dims < 0
                                    ? c.batch_dims + static_cast<std::int64_t>(c.indices.size())
                                    : c.batch_dims;
        const std::int64_t n = c.data[static_cast<std::size_t>(axis)];
        const bool is_signed = is_signed_integral(it);
        std::vector<std::int64_t> values(shape_size(c.indices));
        // Mostly in range, some negative (for signed types) and some beyond either end.
        std::uniform_int_distribution<std::int64_t> pick(is_signed ? -n - 2 : 0, n + 2);
        for (auto& v : values) v = pick(rng);
        const Tensor indices = ints(it, c.indices, values);
        const auto op = make("Gather", "opset8", {{"batch_dims", std::to_string(c.batch_dims)}});
        const Tensor got = run(*op, {data, indices, ints(ElementType::i64, {}, {c.axis})});
        CHECK(same_bytes(got, gather_oracle(data, indices, axis, bd)));
      }
}

TEST_CASE("Gather splits large work over threads with the same bits") {
  std::mt19937 rng(11);
  for (ElementType dt : {ElementType::f32, ElementType::u8, ElementType::i64}) {
    for (const Shape& shape : {Shape{64, 301, 3}, Shape{40000}, Shape{3, 2000, 17}}) {
      CAPTURE(to_string(shape));
      const Tensor data = random_tensor(rng, dt, shape);
      const std::int64_t n = shape[1 % shape.size()];
      std::vector<std::int64_t> values(5001);
      std::uniform_int_distribution<std::int64_t> pick(-n - 1, n);
      for (auto& v : values) v = pick(rng);
      const Tensor indices = ints(ElementType::i64, {5001}, values);
      const Tensor axis = ints(ElementType::i64, {}, {shape.size() > 1 ? 1 : 0});
      const auto op = make("Gather", "opset8");
      const std::vector<Tensor> inputs{data, indices, axis};
      const auto outs = infer_at_run_time(*op, inputs, 1);
      const Tensor one = allocate_and_execute(*op, inputs, outs)[0];
      CHECK(same_bytes(one, gather_oracle(data, indices, shape.size() > 1 ? 1 : 0, 0)));
      for (ThreadPool* pool : test_pools()) {
        ExecContext context{Parallel(pool)};
        CHECK(same_bytes(allocate_and_execute(*op, inputs, outs, context)[0], one));
      }
    }
  }
}

TEST_CASE("Gather bounds: each output element takes the bounds of the element it gathers") {
  const auto op = make("Gather", "opset8");
  // A shape-like i64 [4] with bounds per element, as a ShapeOf of [2, 3..8, ?, 5] gives.
  const Tensor lower = ints(ElementType::i64, {4}, {2, 3, 0, 5});
  const Tensor upper = ints(ElementType::i64, {4}, {2, 8, INT64_MAX, 5});
  ValueInfo data{ElementType::i64, ps("[4]"), nullptr, &lower, &upper};
  const Tensor idx = ints(ElementType::i64, {3}, {1, -2, 3});
  const Tensor axis = ints(ElementType::i64, {}, {0});
  const std::vector<ValueInfo> inputs{data, info(idx), info(axis)};
  const auto out = infer_outputs(*op, inputs)[0];
  CHECK(to_string(out.shape) == "[3]");
  const auto bounds = op->infer_bounds(inputs, out);
  REQUIRE(bounds);
  CHECK(integers(bounds->lower) == std::vector<std::int64_t>{3, 0, 5});
  CHECK(integers(bounds->upper) == std::vector<std::int64_t>{8, INT64_MAX, 5});
  // A scalar index: one element, as TopK's k takes it.
  const Tensor one = ints(ElementType::i32, {}, {1});
  const std::vector<ValueInfo> scalar{data, info(one), info(axis)};
  const auto s = op->infer_bounds(scalar, infer_outputs(*op, scalar)[0]);
  REQUIRE(s);
  CHECK(integers(s->lower) == std::vector<std::int64_t>{3});
  CHECK(integers(s->upper) == std::vector<std::int64_t>{8});
  // The indices unknown: nothing is known of the output.
  const std::vector<ValueInfo> unknown{data, info(ElementType::i64, "[3]"), info(axis)};
  CHECK_FALSE(op->infer_bounds(unknown, infer_outputs(*op, unknown)[0]));
}

TEST_CASE("Gather end to end: a model through the loader and a Session") {
  OpTester t("Gather", "opset8", "pick");
  t.attr("batch_dims", 0)
      .input_parameter("data", tensor(ElementType::f32, {3, 2}, {1, 2, 3, 4, 5, 6}))
      .input_parameter("indices", tensor(ElementType::i32, {2}, {2, -3}), ps("[?]"))
      .input_const("axis", tensor(ElementType::i64, {}, {0}));
  const auto out = t.run();
  REQUIRE(out.size() == 1);
  CHECK(out[0].shape() == Shape{2, 2});
  CHECK(doubles(out[0]) == std::vector<double>{5, 6, 1, 2});
  // Different indices on the same model.
  const auto again = t.run({{"indices", tensor(ElementType::i32, {3}, {1, 1, 7})}});
  CHECK(doubles(again[0]) == std::vector<double>{3, 4, 3, 4, 0, 0});
}

TEST_CASE("Gather of Consts is folded and gives TopK a static k") {
  GraphBuilder g;
  const auto data = g.parameter("data", ElementType::f32, ps("2,8"));
  const auto sizes = g.constant("sizes", ints(ElementType::i64, {3}, {7, 3, 5}));
  const auto which = g.constant("which", ints(ElementType::i64, {}, {-1}));
  const auto axis = g.constant("axis", ints(ElementType::i64, {}, {0}));
  const auto k = g.layer("Gather", "opset8", {{"batch_dims", "0"}}, {sizes, which, axis},
                         {ElementType::i64}, "k");
  const auto topk = g.layer("TopK", "opset11", {{"axis", "1"}, {"mode", "max"}, {"sort", "value"}},
                            {data, k[0]}, {ElementType::f32, ElementType::i32}, "topk");
  g.result(topk[0], "values");
  g.result(topk[1], "indices");
  const Model m = g.load();
  CHECK(m.outputs()[0].shape == ps("2,5"));
  CHECK_FALSE(m.is_dynamic());
  Session s(m);
  const auto out = s.run({{"data", tensor(ElementType::f32, {2, 8},
                                          {0, 9, 1, 8, 2, 7, 3, 6, 5, 4, 6, 3, 7, 2, 8, 1})}});
  CHECK(doubles(out.at("values")) == std::vector<double>{9, 8, 7, 6, 3, 8, 7, 6, 5, 4});
}

// ---------------------------------------------------------------------------------------------
// Range

namespace {

std::unique_ptr<const Op> range_op(const char* output_type) {
  return make("Range", "opset4", {{"output_type", output_type}});
}

/// Run-time Range on three scalars of the given types.
Tensor run_range(const char* output_type, double start, double stop, double step,
                 ElementType in_type = ElementType::f64) {
  const auto op = range_op(output_type);
  return run(*op, {tensor(in_type, {}, {start}), tensor(in_type, {}, {stop}),
                   tensor(in_type, {}, {step})});
}

std::string range_shape(const char* output_type, const Tensor* start, const Tensor* stop,
                        const Tensor* step) {
  const auto op = range_op(output_type);
  return to_string(
      infer_outputs(*op, {info(ElementType::i64, "[]", start), info(ElementType::i64, "[]", stop),
                          info(ElementType::i64, "[]", step)})[0]
          .shape);
}

}  // namespace

TEST_CASE("Range registry entry and attributes") {
  std::string why;
  CHECK(resolve_op("Range", "opset4", &why)->version == 4);
  CHECK(resolve_op("Range", "opset16", &why)->version == 4);
  CHECK(range_op("i32")->attributes() == Attrs{{"output_type", "i32"}});
  CHECK(error_of([] { make("Range", "opset4"); }).find("output_type") != std::string::npos);
  CHECK(error_of([] { range_op("boolean"); }).find("expected a numeric type") != std::string::npos);
}

TEST_CASE("Range shape rule") {
  const Tensor start = ints(ElementType::i64, {}, {2});
  const Tensor stop = ints(ElementType::i64, {}, {23});
  const Tensor step = ints(ElementType::i64, {}, {3});
  CHECK(range_shape("i32", &start, &stop, &step) == "[7]");
  // Any value unknown: a 1-D output of unknown length.
  CHECK(range_shape("i32", &start, nullptr, &step) == "[?]");
  CHECK(range_shape("f32", nullptr, nullptr, nullptr) == "[?]");
  const auto op = range_op("f32");
  // Inputs of different types, and of unknown rank.
  const Tensor fstop = tensor(ElementType::f16, {}, {2.5});
  const Tensor fstep = tensor(ElementType::f32, {}, {0.5});
  const Tensor one = ints(ElementType::i32, {}, {1});
  CHECK(inferred(*op, {info(one), info(fstop), info(fstep)}) == "f32 [3]");
  CHECK(inferred(*op, {info(ElementType::u8, "[...]"), info(fstop), info(fstep)}) == "f32 [?]");
  // Errors: shapes, types, values.
  CHECK(error_of([&] {
          inferred(*op, {info(ElementType::i32, "[1]"), info(fstop), info(fstep)});
        }).find("start must be a scalar, got [1]") != std::string::npos);
  CHECK(error_of([&] {
          inferred(*op, {info(one), info(ElementType::boolean, "[]"), info(fstep)});
        }).find("stop must be a numeric tensor, got boolean") != std::string::npos);
  const Tensor zero = tensor(ElementType::f32, {}, {0});
  CHECK(error_of([&] {
          inferred(*op, {info(one), info(fstop), info(zero)});
        }).find("step must not be zero") != std::string::npos);
  // A known zero step is refused even while the others are unknown.
  CHECK(error_of([&] {
          inferred(*op, {info(ElementType::i32, "[]"), info(fstop), info(zero)});
        }).find("step must not be zero") != std::string::npos);
  const Tensor nan = tensor(ElementType::f32, {}, {std::nan("")});
  CHECK(error_of([&] {
          inferred(*op, {info(nan), info(fstop), info(fstep)});
        }).find("start must be finite, got nan") != std::string::npos);
  const Tensor inf = tensor(ElementType::f64, {}, {INFINITY});
  CHECK(error_of([&] {
          inferred(*op, {info(one), info(inf), info(fstep)});
        }).find("stop must be finite, got inf") != std::string::npos);
  const Tensor tiny = tensor(ElementType::f64, {}, {1e-300});
  CHECK(error_of([&] {
          inferred(*op, {info(zero), info(fstop), info(tiny)});
        }).find("more than irlite allows") != std::string::npos);
  // A step that truncates to zero for an integer output.
  const auto iop = range_op("i32");
  const Tensor half = tensor(ElementType::f32, {}, {0.5});
  CHECK(error_of([&] {
          inferred(*iop, {info(one), info(fstop), info(half)});
        }).find("truncates to 0 in i32") != std::string::npos);
  // At run time, the same problems are the values' errors.
  const auto e = caught([&] { run(*op, {one, fstop, zero}); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
}

TEST_CASE("Range counts and values") {
  // The spec's examples.
  CHECK(doubles(run_range("i32", 2, 23, 3)) == std::vector<double>{2, 5, 8, 11, 14, 17, 20});
  CHECK(doubles(run_range("i32", 23, 2, -3)) == std::vector<double>{23, 20, 17, 14, 11, 8, 5});
  CHECK(doubles(run_range("f32", 1, 2.5, 0.5)) == std::vector<double>{1, 1.5, 2});
  // Empty ranges: equal ends, or a step pointing away.
  CHECK(run_range("i64", 4, 4, 1).shape() == Shape{0});
  CHECK(run_range("i64", 5, 1, 1).shape() == Shape{0});
  CHECK(run_range("f32", 1, 5, -0.5).shape() == Shape{0});
  // Float steps: the count is rounded up.
  CHECK(run_range("f64", 0, 1, 0.3).size() == 4);
  CHECK(doubles(run_range("f64", 1, -1, -0.5)) == std::vector<double>{1, 0.5, 0, -0.5});
  CHECK(run_range("f32", 0, 1, 0.25).size() == 4);
  // Integer outputs truncate the inputs toward zero first: 0.9, 5.7, 1.5 -> 0, 5, 1.
  CHECK(doubles(run_range("i32", 0.9, 5.7, 1.5)) == std::vector<double>{0, 1, 2, 3, 4});
  CHECK(doubles(run_range("i32", -0.9, -3.5, -1.9)) == std::vector<double>{0, -1, -2});
  // The same inputs with a float output keep their fractions: ceil(4.8 / 1.5) = 4.
  CHECK(doubles(run_range("f64", 0.9, 5.7, 1.5)) == std::vector<double>{0.9, 2.4, 3.9, 5.4});
  // Integer outputs wrap as the type does.
  CHECK(doubles(run_range("u8", 250, 260, 3, ElementType::i32)) ==
        std::vector<double>{250, 253, 0, 3});
  // Integer inputs beyond 2^53: the count comes from doubles, as OpenVINO computes it (2^60 + 1
  // and 2^60 + 1000 are 2^60 and 2^60 + 1024 as doubles), the values from the exact integers.
  const auto op = range_op("i64");
  const Tensor big = ints(ElementType::i64, {}, {(std::int64_t{1} << 60) + 1});
  const Tensor stop = ints(ElementType::i64, {}, {(std::int64_t{1} << 60) + 1000});
  const Tensor one = ints(ElementType::i64, {}, {1});
  const std::vector<std::int64_t> values = integers(run(*op, {big, stop, one}));
  REQUIRE(values.size() == 1024);
  CHECK(values[0] == (std::int64_t{1} << 60) + 1);
  CHECK(values[1023] == (std::int64_t{1} << 60) + 1024);
}

TEST_CASE("Range against an oracle on random inputs of several types") {
  std::mt19937 rng(3);
  for (const char* out_name : {"f32", "f16", "bf16", "f64", "i32", "i8", "u16", "i64"}) {
    const ElementType out_type = *parse_element_type(out_name);
    for (int trial = 0; trial < 40; ++trial) {
      CAPTURE(out_name);
      const bool integral = is_integral(out_type);
      std::uniform_int_distribution<int> pick(-60, 60);
      std::uniform_int_distribution<int> steps(1, 7);
      double start = pick(rng), stop = pick(rng);
      double step = steps(rng) * (rng() % 2 ? 1 : -1);
      if (!integral) {
        start /= 4;
        stop /= 4;
        step /= 8;
      }
      // No negative values for an unsigned output (the oracle's conversion could not wrap them).
      if (out_type == ElementType::u16) {
        start = std::fabs(start);
        stop = std::fabs(stop);
      }
      CAPTURE(start);
      CAPTURE(stop);
      CAPTURE(step);
      const Tensor got = run_range(out_name, start, stop, step);
      // The oracle: step from start while short of stop (exact here: quarters and eighths).
      std::vector<double> want;
      for (double v = start; step > 0 ? v < stop : v > stop; v += step) want.push_back(v);
      Tensor expect = tensor(out_type, {static_cast<std::int64_t>(want.size())}, want);
      REQUIRE(got.shape() == expect.shape());
      CHECK(same_bytes(got, expect));
    }
  }
}

TEST_CASE("Range in f16 rounds each element once and splits over threads with the same bits") {
  const auto op = range_op("f16");
  const Tensor start = tensor(ElementType::f32, {}, {0.1});
  const Tensor stop = tensor(ElementType::f32, {}, {3.0});
  const Tensor step = tensor(ElementType::f32, {}, {0.0007});
  const Tensor got = run(*op, {start, stop, step});
  const float s = static_cast<float>(float16(0.1f)), d = static_cast<float>(float16(0.0007f));
  // The count in double from the inputs' values, as OpenVINO computes it.
  REQUIRE(got.size() == static_cast<std::size_t>(std::ceil((3.0 - static_cast<double>(0.1f)) /
                                                           static_cast<double>(0.0007f))));
  for (std::size_t i = 0; i < got.size(); i += 97)
    CHECK(got.data<float16>()[i].bits == float16(s + static_cast<float>(i) * d).bits);

  const auto big = range_op("f32");
  const std::vector<Tensor> inputs{tensor(ElementType::f64, {}, {-3}),
                                   tensor(ElementType::f64, {}, {5e5}),
                                   tensor(ElementType::f64, {}, {0.75})};
  const auto outs = infer_at_run_time(*big, inputs, 1);
  const Tensor one = allocate_and_execute(*big, inputs, outs)[0];
  CHECK(one.data<float>()[1000] == -3.0f + 1000.0f * 0.75f);
  for (ThreadPool* pool : test_pools())
    CHECK(
        same_bytes(allocate_and_execute(*big, inputs, outs, ExecContext{Parallel(pool)})[0], one));
}

TEST_CASE("Range end to end: the length known at run time") {
  OpTester t("Range", "opset4", "range");
  t.attr("output_type", "i64")
      .input_const("start", tensor(ElementType::i32, {}, {1}))
      .input_parameter("stop", tensor(ElementType::f32, {}, {4.5}))
      .input_const("step", tensor(ElementType::i64, {}, {1}));
  const Model m = t.load();
  CHECK(m.is_dynamic());
  CHECK(m.outputs()[0].shape == ps("[?]"));
  CHECK(doubles(t.run()[0]) == std::vector<double>{1, 2, 3});
  CHECK(doubles(t.run({{"stop", tensor(ElementType::f32, {}, {-2})}})[0]).empty());
  const auto e = caught([&] {
    OpTester z("Range", "opset4");
    z.attr("output_type", "f32")
        .input_const("start", tensor(ElementType::f32, {}, {0}))
        .input_parameter("stop", tensor(ElementType::f32, {}, {1}))
        .input_parameter("step", tensor(ElementType::f32, {}, {0}));
    z.run();
  });
  REQUIRE(e);
  CHECK(std::string(e->what()).find("step must not be zero") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// StridedSlice

namespace {

constexpr std::int64_t kBig = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kSmall = std::numeric_limits<std::int64_t>::min();

struct Masks {
  std::string begin, end, new_axis, shrink, ellipsis;
};

std::unique_ptr<const Op> slice_op(const Masks& m) {
  Attrs attrs{{"begin_mask", m.begin}, {"end_mask", m.end}};
  if (!m.new_axis.empty()) attrs.emplace_back("new_axis_mask", m.new_axis);
  if (!m.shrink.empty()) attrs.emplace_back("shrink_axis_mask", m.shrink);
  if (!m.ellipsis.empty()) attrs.emplace_back("ellipsis_mask", m.ellipsis);
  return make("StridedSlice", "opset1", attrs);
}

/// The load-time shape of a StridedSlice of `data` with Const begin, end and stride.
std::string slice_shape(const Masks& m, const char* data, const std::vector<std::int64_t>& begin,
                        const std::vector<std::int64_t>& end,
                        const std::vector<std::int64_t>& stride) {
  const Tensor b = i64s(begin), e = i64s(end), s = i64s(stride);
  return to_string(
      infer_outputs(*slice_op(m), {info(ElementType::f32, data), info(b), info(e), info(s)})[0]
          .shape);
}

bool mask_bit(const std::string& mask, std::size_t k) {
  if (mask.empty()) return false;
  std::size_t i = 0;
  for (std::size_t p = 0; p <= mask.size(); ++p) {
    if (p == mask.size() || mask[p] == ',') {
      if (i == k) return mask.substr(p - 1, 1) == "1";
      ++i;
    }
  }
  return false;
}

/// The plain oracle: the list of indices each data axis takes, then every combination of them.
/// A backward slice clamps its start into [0, n - 1] as OpenVINO does (NumPy's x[-10::-1] on
/// five elements is empty; OpenVINO's takes element 0).
Tensor slice_oracle(const Tensor& data, const Masks& m, const std::vector<std::int64_t>& begin,
                    const std::vector<std::int64_t>& end, const std::vector<std::int64_t>& stride,
                    Shape* out_shape) {
  const Shape& ds = data.shape();
  std::vector<std::vector<std::int64_t>> picks;
  Shape os;
  std::size_t real = 0;
  for (std::size_t k = 0; k < begin.size(); ++k)
    if (!mask_bit(m.ellipsis, k) && !mask_bit(m.new_axis, k)) ++real;
  std::size_t in = 0;
  const auto whole = [&] {
    std::vector<std::int64_t> all;
    for (std::int64_t i = 0; i < ds[in]; ++i) all.push_back(i);
    picks.push_back(all);
    os.push_back(ds[in]);
    ++in;
  };
  for (std::size_t k = 0; k < begin.size(); ++k) {
    if (mask_bit(m.ellipsis, k)) {
      for (std::size_t h = 0; h < ds.size() - real; ++h) whole();
    } else if (mask_bit(m.new_axis, k)) {
      os.push_back(1);
    } else if (mask_bit(m.shrink, k)) {
      const std::int64_t n = ds[in];
      picks.push_back({begin[k] < 0 ? begin[k] + n : begin[k]});
      ++in;
    } else {
      const std::int64_t n = ds[in], s = stride[k];
      std::vector<std::int64_t> take;
      if (s > 0) {
        std::int64_t b = mask_bit(m.begin, k) ? 0 : begin[k];
        std::int64_t e = mask_bit(m.end, k) ? n : end[k];
        if (b < 0) b = std::max<std::int64_t>(0, b + n);
        if (e < 0) e = std::max<std::int64_t>(0, e + n);
        b = std::min(b, n);
        e = std::min(e, n);
        for (std::int64_t i = b; i < e; i += s) take.push_back(i);
      } else {
        std::int64_t b = mask_bit(m.begin, k) ? n - 1 : begin[k];
        std::int64_t e = mask_bit(m.end, k) ? -1 : end[k];
        if (b < 0) b = std::max<std::int64_t>(0, b + n);
        if (!mask_bit(m.end, k) && e < 0) e = std::max<std::int64_t>(-1, e + n);
        b = std::min(b, n - 1);
        e = std::min(e, n - 1);
        for (std::int64_t i = b; i > e && n > 0; i += s) take.push_back(i);
      }
      os.push_back(static_cast<std::int64_t>(take.size()));
      picks.push_back(take);
      ++in;
    }
  }
  while (in < ds.size()) whole();
  *out_shape = os;
  Shape pick_shape;
  for (const auto& p : picks) pick_shape.push_back(static_cast<std::int64_t>(p.size()));
  Tensor out(data.element_type(), os);
  const std::size_t es = element_size(data.element_type());
  for (std::size_t o = 0; o < out.size(); ++o) {
    const auto c = coords_of(o, pick_shape);
    std::vector<std::int64_t> src(c.size());
    for (std::size_t d = 0; d < c.size(); ++d) src[d] = picks[d][static_cast<std::size_t>(c[d])];
    std::memcpy(static_cast<unsigned char*>(out.data()) + o * es,
                static_cast<const unsigned char*>(data.data()) + flat_of(src, ds) * es, es);
  }
  return out;
}

}  // namespace

TEST_CASE("StridedSlice registry entry and attributes") {
  std::string why;
  CHECK(resolve_op("StridedSlice", "opset1", &why)->version == 1);
  CHECK(resolve_op("StridedSlice", "opset16", &why)->version == 1);
  CHECK(slice_op({"1,0", "0,1", "", "0,1", ""})->attributes() == Attrs{{"begin_mask", "1,0"},
                                                                       {"end_mask", "0,1"},
                                                                       {"new_axis_mask", ""},
                                                                       {"shrink_axis_mask", "0,1"},
                                                                       {"ellipsis_mask", ""}});
  CHECK(error_of([] {
          make("StridedSlice", "opset1", {{"begin_mask", "1"}});
        }).find("end_mask") != std::string::npos);
  CHECK(error_of([] {
          slice_op({"1,2", "0", "", "", ""});
        }).find("expected 0s and 1s") != std::string::npos);
}

TEST_CASE("StridedSlice shape rule with known values") {
  const Masks none{"0,0,0", "0,0,0", "", "", ""};
  CHECK(slice_shape(none, "[10,8,6]", {1, 0, 0}, {5, 8, 6}, {1, 2, 3}) == "[4,4,2]");
  // Negative begin and end count from the end; out-of-range ones clamp.
  CHECK(slice_shape(none, "[10,8,6]", {-3, -100, 2}, {-1, 100, 1000}, {1, 1, 1}) == "[2,8,4]");
  // Negative strides walk backwards.
  CHECK(slice_shape(none, "[10,8,6]", {9, -1, 5}, {0, -9, -100}, {-1, -3, -2}) == "[9,3,3]");
  // Fewer entries than axes: the rest are whole.
  CHECK(slice_shape({"0", "0", "", "", ""}, "[10,8,6]", {2}, {4}, {1}) == "[2,8,6]");
  // begin_mask and end_mask: the whole axis in the stride's direction.
  CHECK(slice_shape({"1,0", "0,1", "", "", ""}, "[10,8]", {7, 3}, {4, 0}, {1, -1}) == "[4,4]");
  CHECK(slice_shape({"1,1", "1,1", "", "", ""}, "[10,8]", {7, 3}, {4, 0}, {-2, 3}) == "[5,3]");
  // A new axis, a shrunk axis.
  CHECK(slice_shape({"0,0,0", "0,0,0", "0,1,0", "", ""}, "[2,3]", {0, 0, 0}, {2, 0, 3},
                    {1, 1, 1}) == "[2,1,3]");
  CHECK(slice_shape({"0,0", "0,0", "", "1,0", ""}, "[4,5]", {-1, 0}, {0, 5}, {1, 1}) == "[5]");
  // An ellipsis in the middle stands for the axes the other entries leave.
  CHECK(slice_shape({"0,0,0", "0,0,0", "", "", "0,1,0"}, "[2,3,4,5]", {0, 0, 1}, {1, 0, 3},
                    {1, 1, 1}) == "[1,3,4,2]");
  // An ellipsis followed by a new axis and a slice.
  CHECK(slice_shape({"0,0,0", "0,0,0", "0,1,0", "", "1,0,0"}, "[2,3,4]", {0, 0, 0}, {0, 0, 2},
                    {1, 1, 1}) == "[2,3,1,2]");
  // An ellipsis standing for no axis, and a scalar made into [1].
  CHECK(slice_shape({"0,0", "0,0", "", "", "1,0"}, "[4]", {0, 1}, {0, 3}, {1, 1}) == "[2]");
  CHECK(slice_shape({"0", "0", "1", "", ""}, "[]", {0}, {0}, {1}) == "[1]");
}

TEST_CASE("StridedSlice shape rule on partial shapes and unknown values") {
  const Masks none{"0,0", "0,0", "", "", ""};
  // Intervals and unbounded dims: OpenVINO's ranges.
  CHECK(slice_shape({"0", "0", "", "", ""}, "[2..8]", {1}, {4}, {1}) == "[1..3]");
  CHECK(slice_shape({"0", "0", "", "", ""}, "[?]", {1}, {kBig}, {1}) == "[?]");
  CHECK(slice_shape({"0", "0", "", "", ""}, "[?]", {-2}, {kBig}, {1}) == "[..2]");
  CHECK(slice_shape({"0", "0", "", "", ""}, "[?]", {0}, {3}, {1}) == "[..3]");
  CHECK(slice_shape({"0", "0", "", "", ""}, "[5..]", {0}, {3}, {1}) == "[3]");
  CHECK(slice_shape(none, "[?,10]", {0, 2}, {kBig, 8}, {1, 1}) == "[?,6]");
  CHECK(slice_shape({"0", "1", "", "", ""}, "[?]", {kBig}, {kSmall}, {-1}) == "[?]");
  // Dynamic rank: dynamic rank.
  CHECK(slice_shape(none, "[...]", {0, 0}, {1, 1}, {1, 1}) == "[...]");
  const auto op = slice_op(none);
  // Unknown begin: each sliced axis is at most its extent.
  const Tensor e = i64s({1, 1}), s = i64s({1, 1});
  CHECK(inferred(*op, {info(ElementType::f32, "[5,6..9,7]"), info(ElementType::i64, "[2]"), info(e),
                       info(s)}) == "f32 [..5,..9,7]");
  // Unknown length of begin, end and stride: unknown rank.
  CHECK(inferred(*op, {info(ElementType::f32, "[5,6]"), info(ElementType::i64, "[?]"),
                       info(ElementType::i64, "[?]"), info(ElementType::i64, "[?]")}) ==
        "f32 [...]");
  // No stride input: ones.
  const Tensor b = i64s({1, 0}), e2 = i64s({4, kBig});
  CHECK(inferred(*op, {info(ElementType::u8, "[5,6]"), info(b), info(e2)}) == "u8 [3,6]");
  // Begin known only by its bounds (computed from shapes): the count's range.
  const Tensor lo = i64s({1}), hi = i64s({3});
  ValueInfo bounded{ElementType::i64, ps("[1]"), nullptr, &lo, &hi};
  const Tensor e1 = i64s({8}), s1 = i64s({1});
  CHECK(inferred(*slice_op({"0", "0", "", "", ""}),
                 {info(ElementType::f32, "[10]"), bounded, info(e1), info(s1)}) == "f32 [5..7]");
}

TEST_CASE("StridedSlice with begin and end known by their bounds (OpenVINO's type_prop cases)") {
  // Begin or end taken from a ShapeOf of [0, 3..5] or [1, 5..7] / [2, 6..7], on [1, 10] data.
  const auto op = slice_op({"0,0", "0,0", "", "", ""});
  const Tensor b_lo = i64s({0, 3}), b_hi = i64s({0, 5});
  const Tensor e_lo = i64s({1, 5}), e_hi = i64s({1, 7});
  const Tensor e2_lo = i64s({2, 6}), e2_hi = i64s({2, 7});
  const ValueInfo data = info(ElementType::i64, "[1,10]");
  const ValueInfo begin_bounded{ElementType::i64, ps("[2]"), nullptr, &b_lo, &b_hi};
  const ValueInfo end_bounded{ElementType::i64, ps("[2]"), nullptr, &e_lo, &e_hi};
  const ValueInfo end2_bounded{ElementType::i64, ps("[2]"), nullptr, &e2_lo, &e2_hi};
  const Tensor zeros = i64s({0, 0}), ends = i64s({1, 7}), ones = i64s({1, 1});
  CHECK(inferred(*op, {data, info(zeros), end_bounded, info(ones)}) == "i64 [1,5..7]");
  CHECK(inferred(*op, {data, begin_bounded, info(ends), info(ones)}) == "i64 [1,2..4]");
  CHECK(inferred(*op, {data, begin_bounded, end2_bounded, info(ones)}) == "i64 [1,1..4]");
  // Begin and end at the end of every axis, with strides of both signs: all empty.
  CHECK(slice_shape({"0,0,0,0,0", "0,0,0,0,0", "", "", ""}, "[5,5,5,5,5]", {5, 5, 5, 5, 5},
                    {5, 5, 5, 5, 5}, {1, 2, 5, -2, -5}) == "[0,0,0,0,0]");
  // A new axis, then a shrunk one: [10,11,12] -> [1,5,12].
  CHECK(slice_shape({"0,0,0", "0,0,0", "1,0,0", "0,0,1", ""}, "[10,11,12]", {0, 0, 0, 0},
                    {1, 5, 20, 20}, {1, 1, 1, 1}) == "[1,5,12]");
}

TEST_CASE("StridedSlice errors") {
  const Masks none{"0,0", "0,0", "", "", ""};
  const auto err = [](const Masks& m, const char* data, std::vector<std::int64_t> b,
                      std::vector<std::int64_t> e, std::vector<std::int64_t> s) {
    return error_of([&] { slice_shape(m, data, b, e, s); });
  };
  CHECK(err(none, "[4,5]", {0, 0}, {1, 1}, {1, 0}).find("stride 1 must not be 0") !=
        std::string::npos);
  CHECK(err(none, "[4,5]", {0, 0}, {1}, {1, 1}).find("end must have as many elements as begin") !=
        std::string::npos);
  CHECK(err({"0,0,0", "0,0,0", "", "", ""}, "[4,5]", {0, 0, 0}, {1, 1, 1}, {1, 1, 1})
            .find("more than the data's rank 2") != std::string::npos);
  CHECK(err({"0,0", "0,0", "", "", "1,1"}, "[4,5]", {0, 0}, {1, 1}, {1, 1})
            .find("ellipsis_mask may set one entry") != std::string::npos);
  CHECK(err({"0,0", "0,0", "", "0,1", ""}, "[4,5]", {0, 5}, {1, 1}, {1, 1})
            .find("begin 5 of shrunk axis 1 is out of the range [-5, 5)") != std::string::npos);
  const auto op = slice_op(none);
  CHECK(error_of([&] {
          inferred(*op, {info(ElementType::f32, "[4]"), info(ElementType::i64, "[1,1]"),
                         info(ElementType::i64, "[1]")});
        }).find("begin must be 1-D, got [1,1]") != std::string::npos);
  CHECK(error_of([&] {
          inferred(*op, {info(ElementType::f32, "[4]"), info(ElementType::i64, "[1]"),
                         info(ElementType::f32, "[1]")});
        }).find("end must be an integer tensor, got f32") != std::string::npos);
  // At run time a bad value is the value's error.
  const auto e = caught([&] {
    run(*slice_op({"0", "0", "", "1", ""}),
        {tensor(ElementType::f32, {3}, {1, 2, 3}), i64s({-4}), i64s({0}), i64s({1})});
  });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
}

TEST_CASE("StridedSlice values") {
  const Tensor data = tensor(ElementType::i32, {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  // x[::-1, 1::2]
  CHECK(doubles(run(*slice_op({"1,0", "1,1", "", "", ""}),
                    {data, i64s({0, 1}), i64s({0, 0}), i64s({-1, 2})})) ==
        std::vector<double>{9, 11, 5, 7, 1, 3});
  // x[1, None, -2:] : shrink, new axis, negative begin.
  const Tensor row = run(*slice_op({"0,0,0", "0,0,1", "0,1,0", "1,0,0", ""}),
                         {data, i64s({1, 0, -2}), i64s({2, 0, 0}), i64s({1, 1, 1})});
  CHECK(row.shape() == Shape{1, 2});
  CHECK(doubles(row) == std::vector<double>{6, 7});
  // x[..., 3] on booleans: the last column.
  Tensor flags(ElementType::boolean, {2, 2});
  const std::uint8_t bits[] = {1, 0, 0, 1};
  std::memcpy(flags.data(), bits, 4);
  const Tensor col = run(*slice_op({"0,0", "0,0", "", "0,1", "1,0"}),
                         {flags, i64s({0, -1}), i64s({0, 0}), i64s({1, 1})});
  CHECK(col.shape() == Shape{2});
  CHECK(std::vector<std::uint8_t>(col.data<std::uint8_t>(), col.data<std::uint8_t>() + 2) ==
        std::vector<std::uint8_t>{0, 1});
  // OpenVINO clamps a backward start below the axis to its first element.
  CHECK(doubles(run(*slice_op({"0", "0", "", "", ""}),
                    {tensor(ElementType::f32, {5}, {0, 1, 2, 3, 4}), i64s({-10}), i64s({kSmall}),
                     i64s({-1})})) == std::vector<double>{0});
  // A scalar with a new axis.
  CHECK(doubles(run(*slice_op({"0", "0", "1", "", ""}),
                    {tensor(ElementType::f64, {}, {2.5}), i64s({0}), i64s({0}), i64s({1})})) ==
        std::vector<double>{2.5});
  // Empty results.
  CHECK(run(*slice_op({"0", "0", "", "", ""}), {data, i64s({3}), i64s({1}), i64s({1})}).shape() ==
        Shape{0, 4});
}

TEST_CASE("StridedSlice and Slice taking one element with an extreme stride") {
  // Only the first element is taken along each axis, so the stride never moves; it must not
  // overflow the copy's offsets either.
  const Tensor data = tensor(ElementType::f32, {2, 3}, {0, 1, 2, 3, 4, 5});
  const Tensor big = run(*slice_op({"0,0", "0,0", "", "", ""}),
                         {data, i64s({kSmall, kSmall}), i64s({kBig, kBig}), i64s({kBig, kBig})});
  CHECK(big.shape() == Shape{1, 1});
  CHECK(doubles(big) == std::vector<double>{0});
  const Tensor small = run(*make("Slice", "opset8"), {data, i64s({kBig, kSmall}),
                                                      i64s({kSmall, kBig}), i64s({kSmall, kBig})});
  CHECK(small.shape() == Shape{1, 1});
  CHECK(doubles(small) == std::vector<double>{3});
  // The plan of such an axis steps by 1.
  CHECK(slice_axis(3, 0, kBig, kBig).step == 1);
  CHECK(slice_axis(3, kBig, kSmall, kSmall).step == 1);
  CHECK(slice_axis(3, 2, kSmall, kSmall).start == 2);
}

TEST_CASE("StridedSlice against the oracle on random slices") {
  std::mt19937 rng(5);
  const ElementType types[] = {ElementType::f32, ElementType::f16,     ElementType::i8,
                               ElementType::i64, ElementType::boolean, ElementType::u32};
  for (int trial = 0; trial < 600; ++trial) {
    const std::size_t rank = 1 + rng() % 4;
    Shape ds;
    for (std::size_t d = 0; d < rank; ++d) ds.push_back(static_cast<std::int64_t>(rng() % 6));
    if (trial % 7 == 0) ds.back() = 11;  // an odd, longer last axis
    const ElementType type = types[trial % 6];
    const Tensor data = random_tensor(rng, type, ds);
    // Entries: some slices, maybe an ellipsis, new axes, shrinks.
    const std::size_t entries = 1 + rng() % (rank + 1);
    Masks m;
    std::vector<std::int64_t> begin, end, stride;
    bool ellipsis = false;
    std::size_t real = 0;
    std::vector<char> kind(entries, 's');
    for (std::size_t k = 0; k < entries; ++k) {
      const unsigned r = rng() % 10;
      if (r == 0 && !ellipsis) {
        kind[k] = 'e';
        ellipsis = true;
      } else if (r == 1) {
        kind[k] = 'n';
      } else if (real < rank) {
        kind[k] = r == 2 ? 'k' : 's';
        ++real;
      } else {
        kind[k] = 'n';
      }
    }
    // Which data axis each real entry meets, to pick a valid shrink begin.
    std::size_t in = 0;
    for (std::size_t k = 0; k < entries; ++k) {
      const auto sep = [&](std::string& s, bool on) {
        s += (k ? "," : "") + std::string(on ? "1" : "0");
      };
      const bool bm = rng() % 4 == 0, em = rng() % 4 == 0;
      sep(m.begin, bm);
      sep(m.end, em);
      sep(m.new_axis, kind[k] == 'n');
      sep(m.shrink, kind[k] == 'k');
      sep(m.ellipsis, kind[k] == 'e');
      std::int64_t n = kind[k] == 'e' || kind[k] == 'n' ? 0 : ds[in];
      if (kind[k] == 'e') in += rank - real;
      if (kind[k] == 's' || kind[k] == 'k') ++in;
      if (kind[k] == 'k' && n == 0) {  // nothing to take: make it a slice
        m.shrink.back() = '0';
        kind[k] = 's';
      }
      std::uniform_int_distribution<std::int64_t> idx(-n - 2, n + 2);
      std::int64_t b = idx(rng), e = idx(rng);
      if (rng() % 8 == 0) e = rng() % 2 ? kBig : kSmall;
      if (kind[k] == 'k') b = std::uniform_int_distribution<std::int64_t>(-n, n - 1)(rng);
      const std::int64_t steps[] = {-3, -2, -1, 1, 1, 2, 3};
      begin.push_back(b);
      end.push_back(e);
      stride.push_back(steps[rng() % 7]);
    }
    CAPTURE(to_string(ds));
    CAPTURE(m.begin + " | " + m.end + " | " + m.new_axis + " | " + m.shrink + " | " + m.ellipsis);
    CAPTURE(to_string(Shape(begin)));
    CAPTURE(to_string(Shape(end)));
    CAPTURE(to_string(Shape(stride)));
    Shape want_shape;
    const Tensor want = slice_oracle(data, m, begin, end, stride, &want_shape);
    const auto op = slice_op(m);
    const Tensor got = run(*op, {data, i64s(begin), i64s(end), i64s(stride)});
    REQUIRE(got.shape() == want_shape);
    CHECK(same_bytes(got, want));
    // The load-time rule on the same values agrees.
    CHECK(slice_shape(m, to_string(ds).c_str(), begin, end, stride) == to_string(want_shape));
  }
}

TEST_CASE("StridedSlice splits large work over threads with the same bits") {
  std::mt19937 rng(9);
  const Tensor data = random_tensor(rng, ElementType::f32, {64, 50, 37});
  const auto op = slice_op({"0,0,0", "0,0,0", "", "", ""});
  for (const std::vector<std::int64_t>& stride :
       {std::vector<std::int64_t>{1, 1, 1}, {2, -1, 3}, {-1, 2, -2}}) {
    const std::vector<Tensor> fixed{
        data, i64s({stride[0] > 0 ? 1 : 62, stride[1] > 0 ? 3 : 48, stride[2] > 0 ? 2 : 35}),
        i64s({stride[0] > 0 ? 64 : 0, stride[1] > 0 ? 50 : 1, stride[2] > 0 ? 37 : 0}),
        i64s(stride)};
    const auto outs = infer_at_run_time(*op, fixed, 1);
    const Tensor one = allocate_and_execute(*op, fixed, outs)[0];
    Shape shape;
    CHECK(same_bytes(one, slice_oracle(data, {"0,0,0", "0,0,0", "", "", ""}, integers(fixed[1]),
                                       integers(fixed[2]), stride, &shape)));
    for (ThreadPool* pool : test_pools())
      CHECK(
          same_bytes(allocate_and_execute(*op, fixed, outs, ExecContext{Parallel(pool)})[0], one));
  }
}

TEST_CASE("StridedSlice bounds: each output element takes the bounds of the element it slices") {
  const auto op = slice_op({"0", "0", "", "", ""});
  const Tensor lower = ints(ElementType::i64, {4}, {1, 3, 0, 5});
  const Tensor upper = ints(ElementType::i64, {4}, {1, 8, INT64_MAX, 5});
  ValueInfo data{ElementType::i64, ps("[4]"), nullptr, &lower, &upper};
  const Tensor b = i64s({-1}), e = i64s({0}), s = i64s({-2});
  const std::vector<ValueInfo> inputs{data, info(b), info(e), info(s)};
  const auto out = infer_outputs(*op, inputs)[0];
  CHECK(to_string(out.shape) == "[2]");
  const auto bounds = op->infer_bounds(inputs, out);
  REQUIRE(bounds);
  CHECK(integers(bounds->lower) == std::vector<std::int64_t>{5, 3});
  CHECK(integers(bounds->upper) == std::vector<std::int64_t>{5, 8});
  const std::vector<ValueInfo> unknown{data, info(ElementType::i64, "[1]"), info(e), info(s)};
  CHECK_FALSE(op->infer_bounds(unknown, out));
}

TEST_CASE("StridedSlice end to end") {
  OpTester t("StridedSlice", "opset1", "slice");
  t.attr("begin_mask", "0,1")
      .attr("end_mask", "0,1")
      .attr("shrink_axis_mask", "1,0")
      .input_parameter("data", tensor(ElementType::f32, {3, 2}, {1, 2, 3, 4, 5, 6}))
      .input_const("begin", tensor(ElementType::i64, {2}, {-1, 0}))
      .input_const("end", tensor(ElementType::i64, {2}, {0, 0}))
      .input_const("stride", tensor(ElementType::i64, {2}, {1, -1}));
  const Model m = t.load();
  CHECK(m.outputs()[0].shape == ps("[2]"));
  CHECK(doubles(t.run()[0]) == std::vector<double>{6, 5});

  // The end from a Parameter: the shape is known at run time only.
  OpTester d("StridedSlice", "opset1", "slice");
  d.attr("begin_mask", "0")
      .attr("end_mask", "0")
      .input_parameter("data", tensor(ElementType::i32, {5}, {1, 2, 3, 4, 5}))
      .input_const("begin", tensor(ElementType::i32, {1}, {1}))
      .input_parameter("end", tensor(ElementType::i32, {1}, {4}));
  CHECK(d.load().outputs()[0].shape == ps("[..5]"));
  CHECK(doubles(d.run()[0]) == std::vector<double>{2, 3, 4});
  CHECK(doubles(d.run({{"end", tensor(ElementType::i32, {1}, {-1})}})[0]) ==
        std::vector<double>{2, 3, 4});
}

// ---------------------------------------------------------------------------------------------
// Slice

namespace {

std::string slice8_shape(const char* data, const std::vector<std::int64_t>& start,
                         const std::vector<std::int64_t>& stop,
                         const std::vector<std::int64_t>& step,
                         std::optional<std::vector<std::int64_t>> axes = std::nullopt) {
  const auto op = make("Slice", "opset8");
  const Tensor a = i64s(start), b = i64s(stop), c = i64s(step);
  std::vector<ValueInfo> inputs{info(ElementType::f32, data), info(a), info(b), info(c)};
  const Tensor x = axes ? i64s(*axes) : Tensor();
  if (axes) inputs.push_back(info(x));
  return to_string(infer_outputs(*op, inputs)[0].shape);
}

/// Slice's oracle through StridedSlice's: every axis an entry, those not sliced whole.
Tensor slice8_oracle(const Tensor& data, const std::vector<std::int64_t>& start,
                     const std::vector<std::int64_t>& stop, const std::vector<std::int64_t>& step,
                     const std::vector<std::int64_t>& axes) {
  const std::size_t rank = data.rank();
  std::vector<std::int64_t> b(rank, 0), e(rank, kBig), s(rank, 1);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto a =
        static_cast<std::size_t>(axes[i] < 0 ? axes[i] + static_cast<std::int64_t>(rank) : axes[i]);
    b[a] = start[i];
    e[a] = stop[i];
    s[a] = step[i];
  }
  std::string zeros;
  for (std::size_t i = 0; i < rank; ++i) zeros += i ? ",0" : "0";
  Shape shape;
  return slice_oracle(data, {zeros, zeros, "", "", ""}, b, e, s, &shape);
}

}  // namespace

TEST_CASE("Slice shape rule") {
  CHECK(slice8_shape("[10,8,6]", {1}, {5}, {1}, std::vector<std::int64_t>{1}) == "[10,4,6]");
  CHECK(slice8_shape("[10,8,6]", {-1, 0}, {0, kBig}, {-2, 3}, std::vector<std::int64_t>{-1, 0}) ==
        "[4,8,3]");
  // Without axes, the first ones.
  CHECK(slice8_shape("[10,8,6]", {2, 1}, {4, -1}, {1, 1}) == "[2,6,6]");
  CHECK(slice8_shape("[?,2..9]", {1, 0}, {kBig, 3}, {1, 1}) == "[?,2..3]");
  CHECK(slice8_shape("[...]", {1}, {2}, {1}) == "[...]");
  const auto op = make("Slice", "opset8");
  const Tensor a = i64s({1}), b = i64s({3}), c = i64s({1}), ax = i64s({1});
  // Unknown axes: any axis may be sliced.
  CHECK(inferred(*op, {info(ElementType::f32, "[4,5]"), info(a), info(b), info(c),
                       info(ElementType::i64, "[1]")}) == "f32 [..4,..5]");
  // Unknown start: the sliced axis is at most its extent.
  CHECK(inferred(*op, {info(ElementType::f32, "[4,5]"), info(ElementType::i32, "[1]"), info(b),
                       info(c), info(ax)}) == "f32 [4,..5]");
  // Errors.
  const auto err = [](const char* d, std::vector<std::int64_t> s, std::vector<std::int64_t> e,
                      std::vector<std::int64_t> st, std::optional<std::vector<std::int64_t>> x) {
    return error_of([&] { slice8_shape(d, s, e, st, x); });
  };
  CHECK(err("[4,5]", {0}, {1}, {0}, std::nullopt).find("step 0 must not be 0") !=
        std::string::npos);
  CHECK(err("[4,5]", {0, 0}, {1, 1}, {1, 1}, std::vector<std::int64_t>{1, -1})
            .find("axes must be unique, but axis 1 appears twice") != std::string::npos);
  CHECK(err("[4,5]", {0}, {1}, {1}, std::vector<std::int64_t>{2})
            .find("axis 2 is out of the tensor rank range [-2, 1]") != std::string::npos);
  CHECK(err("[4]", {0, 0}, {1, 1}, {1, 1}, std::nullopt)
            .find("start has 2 elements, more than the data's rank 1") != std::string::npos);
  CHECK(err("[4,5]", {0, 0}, {1}, {1, 1}, std::nullopt)
            .find("stop must have as many elements as start") != std::string::npos);
  CHECK(error_of([&] {
          inferred(*op, {info(ElementType::f32, "[4]"), info(ElementType::i64, "[1,1]"), info(b),
                         info(c)});
        }).find("start must be 1-D, got [1,1]") != std::string::npos);
}

TEST_CASE("Slice against the oracle on random slices") {
  std::mt19937 rng(13);
  const ElementType types[] = {ElementType::f32, ElementType::bf16, ElementType::u8,
                               ElementType::i64, ElementType::boolean};
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t rank = 1 + rng() % 4;
    Shape ds;
    for (std::size_t d = 0; d < rank; ++d) ds.push_back(static_cast<std::int64_t>(rng() % 7));
    const Tensor data = random_tensor(rng, types[trial % 5], ds);
    // A random subset of the axes in a random order, some written negative.
    std::vector<std::int64_t> axes;
    for (std::size_t d = 0; d < rank; ++d)
      if (rng() % 2) axes.push_back(static_cast<std::int64_t>(d));
    std::shuffle(axes.begin(), axes.end(), rng);
    std::vector<std::int64_t> start, stop, step;
    for (auto& a : axes) {
      const std::int64_t n = ds[static_cast<std::size_t>(a)];
      std::uniform_int_distribution<std::int64_t> idx(-n - 2, n + 2);
      start.push_back(idx(rng));
      stop.push_back(rng() % 6 == 0 ? (rng() % 2 ? kBig : kSmall) : idx(rng));
      const std::int64_t steps[] = {-3, -1, 1, 1, 2, 4};
      step.push_back(steps[rng() % 6]);
      if (rng() % 3 == 0) a -= static_cast<std::int64_t>(rank);
    }
    CAPTURE(to_string(ds));
    CAPTURE(to_string(Shape(axes)));
    CAPTURE(to_string(Shape(start)));
    CAPTURE(to_string(Shape(stop)));
    CAPTURE(to_string(Shape(step)));
    const auto op = make("Slice", "opset8");
    const Tensor want = slice8_oracle(data, start, stop, step, axes);
    const Tensor got = run(*op, {data, i64s(start), i64s(stop), i64s(step), i64s(axes)});
    REQUIRE(got.shape() == want.shape());
    CHECK(same_bytes(got, want));
    CHECK(slice8_shape(to_string(ds).c_str(), start, stop, step, axes) == to_string(want.shape()));
  }
}

TEST_CASE("Slice splits large work over threads with the same bits, and carries bounds") {
  std::mt19937 rng(17);
  const Tensor data = random_tensor(rng, ElementType::u16, {300, 129});
  const auto op = make("Slice", "opset8");
  const std::vector<Tensor> inputs{data, i64s({-2, 1}), i64s({kSmall, kBig}), i64s({-1, 2}),
                                   i64s({0, 1})};
  const auto outs = infer_at_run_time(*op, inputs, 1);
  const Tensor one = allocate_and_execute(*op, inputs, outs)[0];
  CHECK(one.shape() == Shape{299, 64});
  CHECK(same_bytes(one, slice8_oracle(data, {-2, 1}, {kSmall, kBig}, {-1, 2}, {0, 1})));
  for (ThreadPool* pool : test_pools())
    CHECK(same_bytes(allocate_and_execute(*op, inputs, outs, ExecContext{Parallel(pool)})[0], one));

  const Tensor lower = ints(ElementType::i64, {3}, {1, 3, 0});
  const Tensor upper = ints(ElementType::i64, {3}, {1, 8, 9});
  ValueInfo shape_like{ElementType::i64, ps("[3]"), nullptr, &lower, &upper};
  const Tensor s = i64s({1}), e = i64s({kBig}), st = i64s({1});
  const std::vector<ValueInfo> in{shape_like, info(s), info(e), info(st)};
  const auto bounds = op->infer_bounds(in, infer_outputs(*op, in)[0]);
  REQUIRE(bounds);
  CHECK(integers(bounds->lower) == std::vector<std::int64_t>{3, 0});
  CHECK(integers(bounds->upper) == std::vector<std::int64_t>{8, 9});
}

TEST_CASE("Slice end to end") {
  OpTester t("Slice", "opset8", "slice");
  t.input_parameter("data", tensor(ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}))
      .input_const("start", tensor(ElementType::i64, {1}, {-1}))
      .input_const("stop", tensor(ElementType::i64, {1}, {0}))
      .input_const("step", tensor(ElementType::i64, {1}, {-2}))
      .input_const("axes", tensor(ElementType::i32, {1}, {1}));
  CHECK(t.load().outputs()[0].shape == ps("[2,1]"));
  CHECK(doubles(t.run()[0]) == std::vector<double>{3, 6});
}

TEST_CASE("StridedSlice and Slice of Consts are folded and give TopK a static k") {
  GraphBuilder g;
  const auto data = g.parameter("data", ElementType::f32, ps("2,8"));
  const auto sizes = g.constant("sizes", ints(ElementType::i64, {4}, {9, 4, 3, 6}));
  const auto b = g.constant("b", ints(ElementType::i64, {1}, {-1}));
  const auto e = g.constant("e", ints(ElementType::i64, {1}, {0}));
  const auto s = g.constant("s", ints(ElementType::i64, {1}, {-2}));
  // sizes[-1:0:-2] = [6, 4]; then [6, 4][1:2] = [4].
  const auto picked = g.layer("StridedSlice", "opset1", {{"begin_mask", "0"}, {"end_mask", "0"}},
                              {sizes, b, e, s}, {ElementType::i64}, "picked");
  const auto one = g.constant("one", ints(ElementType::i64, {1}, {1}));
  const auto two = g.constant("two", ints(ElementType::i64, {1}, {2}));
  const auto step = g.constant("step", ints(ElementType::i64, {1}, {1}));
  const auto k1 =
      g.layer("Slice", "opset8", {}, {picked[0], one, two, step}, {ElementType::i64}, "k1");
  // A scalar k: shrink the one-element vector.
  const auto zero = g.constant("zero", ints(ElementType::i64, {1}, {0}));
  const auto k = g.layer("StridedSlice", "opset1",
                         {{"begin_mask", "0"}, {"end_mask", "0"}, {"shrink_axis_mask", "1"}},
                         {k1[0], zero, one}, {ElementType::i64}, "k");
  const auto topk = g.layer("TopK", "opset11", {{"axis", "1"}, {"mode", "min"}, {"sort", "value"}},
                            {data, k[0]}, {ElementType::f32, ElementType::i32}, "topk");
  g.result(topk[0], "values");
  g.result(topk[1], "indices");
  const Model m = g.load();
  CHECK(m.outputs()[0].shape == ps("2,4"));
  CHECK_FALSE(m.is_dynamic());
  Session session(m);
  const auto out =
      session.run({{"data", tensor(ElementType::f32, {2, 8},
                                   {0, 9, 1, 8, 2, 7, 3, 6, 5, 4, 6, 3, 7, 2, 8, 1})}});
  CHECK(doubles(out.at("values")) == std::vector<double>{0, 1, 2, 3, 1, 2, 3, 4});
}

TEST_CASE("Gather-7 with batch_dims through the loader") {
  OpTester t("Gather", "opset7", "pick");
  t.attr("batch_dims", -1)
      .input_parameter("data", tensor(ElementType::i64, {2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}))
      .input_const("indices", tensor(ElementType::i32, {2, 3}, {0, 0, 4, 4, 0, 0}))
      .input_const("axis", tensor(ElementType::i32, {1}, {-1}));
  CHECK(t.load().outputs()[0].shape == ps("[2,3]"));
  CHECK(doubles(t.run()[0]) == std::vector<double>{1, 1, 5, 10, 6, 6});
}

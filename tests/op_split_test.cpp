// Split-1, VariadicSplit-1, DepthToSpace-1, SpaceToDepth-1 and Range-1: the shape rules on
// static, interval and dynamic shapes, their located errors, the layer's output count, and the
// kernels against plain references (tests/reference/split.hpp) on random shapes, attributes,
// element types and thread counts.

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "reference/split.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

std::string error_text(const std::optional<Error>& e) {
  return e ? std::string(e->what()) : std::string();
}

/// The shapes of the outputs as text, "f32 [2,3]; f32 [2,3]".
std::string shapes(const std::vector<OutputInfo>& outs) {
  std::string s;
  for (const OutputInfo& o : outs) s += (s.empty() ? "" : "; ") + output_text(o);
  return s;
}

std::string split_shapes(std::int64_t num_splits, const char* data, const Tensor* axis,
                         const char* axis_shape = "[]") {
  const auto op = make("Split", "opset1", {{"num_splits", std::to_string(num_splits)}});
  return shapes(op->infer(std::vector<ValueInfo>{info(ElementType::f32, data),
                                                 info(ElementType::i64, axis_shape, axis)}));
}

std::string vsplit_shapes(const char* data, const Tensor* axis, const Tensor* lengths,
                          const char* lengths_shape) {
  const auto op = make("VariadicSplit", "opset1");
  return shapes(op->infer(std::vector<ValueInfo>{info(ElementType::f32, data),
                                                 info(ElementType::i32, "[]", axis),
                                                 info(ElementType::i64, lengths_shape, lengths)}));
}

/// A tensor of `type` and `shape` with distinct, exactly representable values.
Tensor counting(ElementType type, const Shape& shape, std::mt19937& rng) {
  std::vector<double> v(reference::count(shape));
  // Small non-negative integers fit every type; booleans take 0 and 1.
  std::uniform_int_distribution<int> d(0, 100);
  for (double& x : v) x = type == ElementType::boolean ? d(rng) % 2 : d(rng);
  return tensor(type, shape, v);
}

void check_same(const Tensor& got, const Tensor& want) {
  REQUIRE(got.shape() == want.shape());
  REQUIRE(got.element_type() == want.element_type());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    REQUIRE(same_bits(got, want, i));
  }
}

/// Runs the op on one thread and on each test pool; every run must match `want`.
void check_runs(const Op& op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& want) {
  const auto outs = infer_at_run_time(op, inputs, want.size());
  std::vector<Parallel> parallels{Parallel()};
  for (ThreadPool* pool : test_pools()) parallels.emplace_back(pool);
  for (const Parallel& parallel : parallels) {
    const std::vector<Tensor> got =
        allocate_and_execute(op, inputs, outs, ExecContext{.parallel = parallel});
    for (std::size_t k = 0; k < want.size(); ++k) check_same(got[k], want[k]);
  }
}

}  // namespace

TEST_CASE("Split shape rule: static, interval and dynamic extents") {
  const Tensor axis1 = ints(ElementType::i64, {}, {1});
  const Tensor minus1 = ints(ElementType::i64, {}, {-1});
  CHECK(split_shapes(3, "[2,6,4]", &axis1) == "f32 [2,2,4]; f32 [2,2,4]; f32 [2,2,4]");
  CHECK(split_shapes(2, "[2,6,4]", &minus1) == "f32 [2,6,2]; f32 [2,6,2]");
  // Only multiples of num_splits can be the extent: 3..10 split in 3 is 1..3 each.
  CHECK(split_shapes(3, "[2,3..10]", &axis1) == "f32 [2,1..3]; f32 [2,1..3]; f32 [2,1..3]");
  CHECK(split_shapes(2, "[2,?]", &axis1) == "f32 [2,?]; f32 [2,?]");
  CHECK(split_shapes(2, "[2,3..]", &axis1) == "f32 [2,2..]; f32 [2,2..]");
  // A lower bound near INT64_MAX rounds up without overflowing.
  CHECK(split_shapes(4, "[2,9223372036854775805..]", &axis1) ==
        "f32 [2,2305843009213693952..]; f32 [2,2305843009213693952..]; "
        "f32 [2,2305843009213693952..]; f32 [2,2305843009213693952..]");
  // The axis unknown: the data's rank, no extent known.
  CHECK(split_shapes(2, "[2,6]", nullptr) == "f32 [?,?]; f32 [?,?]");
  CHECK(split_shapes(2, "[...]", &axis1) == "f32 [...]; f32 [...]");
  CHECK(split_shapes(1, "[5,7]", &axis1) == "f32 [5,7]");
}

TEST_CASE("Split errors: axis, uneven split, attribute") {
  const Tensor axis1 = ints(ElementType::i64, {}, {1});
  const Tensor axis5 = ints(ElementType::i64, {}, {5});
  const auto e1 = caught([&] { split_shapes(3, "[2,5]", &axis1); });
  CHECK(error_text(e1).find("extent 5 of data [2,5] along axis 1 does not divide into "
                            "num_splits = 3") != std::string::npos);
  CHECK(e1->context().port == 0);
  const auto e2 = caught([&] { split_shapes(2, "[2,4]", &axis5); });
  CHECK(error_text(e2).find("axis 5 is out of the tensor rank range [-2, 1]") !=
        std::string::npos);
  CHECK(e2->context().port == 1);
  CHECK(error_text(caught([&] { split_shapes(3, "[2,4..5]", &axis1); }))
            .find("no extent of data [2,4..5] along axis 1 divides") != std::string::npos);
  const Tensor vec = i64s({1});
  CHECK(error_text(caught([&] { split_shapes(2, "[2,4]", &vec, "[1]"); }))
            .find("axis must be a scalar, got [1]") != std::string::npos);
  CHECK(error_text(caught([] { make("Split", "opset1", {{"num_splits", "0"}}); }))
            .find("expected a positive number of outputs") != std::string::npos);
  CHECK(error_text(caught([] { make("Split", "opset1"); })).find("num_splits") !=
        std::string::npos);
}

TEST_CASE("Split through the loader: outputs counted by num_splits, located errors") {
  OpTester t("Split", "opset1");
  t.attr("num_splits", 3);
  t.input_parameter("x", tensor(ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  t.input_const("axis", ints(ElementType::i32, {}, {1}));
  const auto out = t.run();
  REQUIRE(out.size() == 3);
  CHECK(doubles(out[0]) == std::vector<double>{1, 4});
  CHECK(doubles(out[1]) == std::vector<double>{2, 5});
  CHECK(doubles(out[2]) == std::vector<double>{3, 6});
  // A layer whose output ports disagree with num_splits is the model's error.
  t.outputs(2);
  const auto e = caught([&] { t.load(); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::shape);
  CHECK(e->context().layer_name == "op");
  CHECK(std::string(e->message()).find("Split-1 gives 3 output(s) here, the layer declares 2") !=
        std::string::npos);
  // A run-time split whose extent does not divide: the data is dynamic.
  OpTester d("Split", "opset1");
  d.attr("num_splits", 2);
  d.input_parameter("x", ElementType::f32, ps("[2,?]"));
  d.input_const("axis", ints(ElementType::i64, {}, {-1}));
  d.outputs(2);
  const auto out2 = d.run({{"x", tensor(ElementType::f32, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}});
  CHECK(doubles(out2[1]) == std::vector<double>{3, 4, 7, 8});
  const auto e3 =
      caught([&] { d.run({{"x", tensor(ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6})}}); });
  REQUIRE(e3);
  CHECK(e3->context().layer_name == "op");
  CHECK(std::string(e3->message()).find("does not divide") != std::string::npos);
}

TEST_CASE("VariadicSplit shape rule: lengths, -1, intervals") {
  const Tensor axis0 = ints(ElementType::i32, {}, {0});
  const Tensor l1 = i64s({1, 3, 2});
  const Tensor l2 = i64s({1, -1, 2});
  const Tensor l3 = i64s({0, 6});
  CHECK(vsplit_shapes("[6,2]", &axis0, &l1, "[3]") == "f32 [1,2]; f32 [3,2]; f32 [2,2]");
  CHECK(vsplit_shapes("[6,2]", &axis0, &l2, "[3]") == "f32 [1,2]; f32 [3,2]; f32 [2,2]");
  CHECK(vsplit_shapes("[6,2]", &axis0, &l3, "[2]") == "f32 [0,2]; f32 [6,2]");
  CHECK(vsplit_shapes("[4..9,2]", &axis0, &l2, "[3]") == "f32 [1,2]; f32 [1..6,2]; f32 [2,2]");
  CHECK(vsplit_shapes("[?,2]", &axis0, &l2, "[3]") == "f32 [1,2]; f32 [?,2]; f32 [2,2]");
  CHECK(vsplit_shapes("[?,2]", &axis0, &l1, "[3]") == "f32 [1,2]; f32 [3,2]; f32 [2,2]");
  // Lengths unknown: their count gives the outputs, the axis extent is unknown.
  CHECK(vsplit_shapes("[6,2]", &axis0, nullptr, "[2]") == "f32 [?,2]; f32 [?,2]");
  CHECK(vsplit_shapes("[6,2]", nullptr, &l3, "[2]") == "f32 [?,?]; f32 [?,?]");
}

TEST_CASE("VariadicSplit takes the bounds of lengths computed from shapes") {
  const auto op = make("VariadicSplit", "opset1");
  const Tensor axis0 = ints(ElementType::i32, {}, {0});
  const Tensor lower = i64s({2, -1});
  const Tensor upper = i64s({5, 9});
  ValueInfo lengths = info(ElementType::i64, "[2]");
  lengths.lower = &lower;
  lengths.upper = &upper;
  const auto outs = op->infer(std::vector<ValueInfo>{info(ElementType::f32, "[?,3]"),
                                                     info(axis0), lengths});
  REQUIRE(outs.size() == 2);
  CHECK(to_string(outs[0].shape) == "[2..5,3]");
  // The second may be -1: its extent is unknown.
  CHECK(to_string(outs[1].shape) == "[?,3]");
}

TEST_CASE("VariadicSplit errors: sums, two -1, negative lengths, shapes") {
  const Tensor axis0 = ints(ElementType::i32, {}, {0});
  const Tensor axis2 = ints(ElementType::i32, {}, {2});
  const auto err = [](const auto& f) { return error_text(caught(f)); };
  const Tensor l1 = i64s({1, 3, 3});
  CHECK(err([&] { vsplit_shapes("[6,2]", &axis0, &l1, "[3]"); })
            .find("split_lengths [1,3,3] add up to 7, not the extent 6 of data [6,2] along "
                  "axis 0") != std::string::npos);
  const Tensor l2 = i64s({4, -1, 3});
  CHECK(err([&] { vsplit_shapes("[6,2]", &axis0, &l2, "[3]"); })
            .find("add up to 7, more than the extent 6") != std::string::npos);
  const Tensor l3 = i64s({-1, -1});
  CHECK(err([&] { vsplit_shapes("[6,2]", &axis0, &l3, "[2]"); })
            .find("may hold one -1, got two (elements 0 and 1)") != std::string::npos);
  const Tensor l4 = i64s({-2, 8});
  CHECK(err([&] { vsplit_shapes("[6,2]", &axis0, &l4, "[2]"); })
            .find("element 0 is -2") != std::string::npos);
  const Tensor l5 = i64s({6});
  const auto e = caught([&] { vsplit_shapes("[6,2]", &axis2, &l5, "[1]"); });
  CHECK(error_text(e).find("axis 2 is out of the tensor rank range [-2, 1]") != std::string::npos);
  CHECK(e->context().port == 1);
  CHECK(err([&] { vsplit_shapes("[6,2]", &axis0, nullptr, "[?]"); })
            .find("split_lengths must have a static length") != std::string::npos);
  CHECK(err([&] { vsplit_shapes("[6,2]", &axis0, nullptr, "[2,1]"); })
            .find("split_lengths must be 1-D") != std::string::npos);
  const auto e2 = caught([&] { vsplit_shapes("[6,2]", &axis0, &l1, "[3]"); });
  CHECK(e2->context().port == 2);
}

TEST_CASE("VariadicSplit through the loader, lengths given at run time") {
  OpTester t("VariadicSplit", "opset1");
  t.input_parameter("x", tensor(ElementType::i8, {5}, {1, 2, 3, 4, 5}));
  t.input_const("axis", ints(ElementType::i64, {}, {0}));
  t.input_parameter("lengths", ints(ElementType::i32, {2}, {-1, 2}));
  t.outputs(2);
  auto out = t.run();
  CHECK(doubles(out[0]) == std::vector<double>{1, 2, 3});
  CHECK(doubles(out[1]) == std::vector<double>{4, 5});
  out = t.run({{"lengths", ints(ElementType::i32, {2}, {5, 0})}});
  CHECK(doubles(out[0]) == std::vector<double>{1, 2, 3, 4, 5});
  CHECK(out[1].size() == 0);
  const auto e = caught([&] { t.run({{"lengths", ints(ElementType::i32, {2}, {5, 1})}}); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
  CHECK(e->context().port == 2);
}

TEST_CASE("Split and VariadicSplit match the reference on random shapes, types and threads") {
  std::mt19937 rng(77);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const ElementType types[] = {ElementType::f32, ElementType::f16,  ElementType::i64,
                               ElementType::u8,  ElementType::bf16, ElementType::boolean,
                               ElementType::f64};
  for (int iter = 0; iter < 60; ++iter) {
    const ElementType type = types[iter % std::size(types)];
    const auto rank = static_cast<std::size_t>(pick(1, 4));
    Shape shape(rank);
    for (auto& d : shape) d = pick(1, 5);
    const auto axis = static_cast<std::size_t>(pick(0, static_cast<int>(rank) - 1));
    const bool variadic = iter % 2 == 1;
    std::vector<std::int64_t> lengths;
    if (variadic) {
      const int n = pick(1, 4);
      std::int64_t total = 0;
      for (int i = 0; i < n; ++i) {
        lengths.push_back(pick(0, 4));
        total += lengths.back();
      }
      shape[axis] = total;
    } else {
      const int n = pick(1, 4);
      shape[axis] *= n;
      lengths.assign(static_cast<std::size_t>(n), shape[axis] / n);
    }
    if (axis != 0 && pick(0, 3) == 0) shape[0] *= 400;  // large enough to split over threads
    CAPTURE(to_string(type));
    CAPTURE(to_string(shape));
    CAPTURE(axis);
    const Tensor x = counting(type, shape, rng);
    const auto axis_value = static_cast<std::int64_t>(axis) - (pick(0, 1) ? static_cast<std::int64_t>(rank) : 0);
    const Tensor axis_t = ints(ElementType::i32, {}, {axis_value});
    const auto want = reference::split(x, axis, lengths);
    if (variadic) {
      std::vector<std::int64_t> given = lengths;
      if (pick(0, 1)) given[static_cast<std::size_t>(pick(0, static_cast<int>(given.size()) - 1))] = -1;
      const auto op = make("VariadicSplit", "opset1");
      check_runs(*op, {x, axis_t, i64s(given)}, want);
    } else {
      const auto op = make("Split", "opset1", {{"num_splits", std::to_string(lengths.size())}});
      check_runs(*op, {x, axis_t}, want);
    }
  }
}

TEST_CASE("DepthToSpace and SpaceToDepth shape rules") {
  const auto shape = [](const char* type, const char* mode, int b, const char* data) {
    const auto op = make(type, "opset1", {{"mode", mode}, {"block_size", std::to_string(b)}});
    return inferred(*op, {info(ElementType::f32, data)});
  };
  CHECK(shape("DepthToSpace", "blocks_first", 2, "[1,8,3,4]") == "f32 [1,2,6,8]");
  CHECK(shape("DepthToSpace", "depth_first", 2, "[1,16,3,4,5]") == "f32 [1,2,6,8,10]");
  CHECK(shape("DepthToSpace", "depth_first", 3, "[2,9,7]") == "f32 [2,3,21]");
  CHECK(shape("DepthToSpace", "blocks_first", 2, "[?,4..17,?,2..3]") == "f32 [?,1..4,?,4..6]");
  CHECK(shape("DepthToSpace", "blocks_first", 2, "[...]") == "f32 [...]");
  CHECK(shape("SpaceToDepth", "blocks_first", 2, "[1,3,4,6]") == "f32 [1,12,2,3]");
  CHECK(shape("SpaceToDepth", "depth_first", 2, "[1,3..,5..9,?]") == "f32 [1,12..,3..4,?]");
  const auto err = [&](const char* type, int b, const char* data) {
    return error_text(caught([&] { shape(type, "blocks_first", b, data); }));
  };
  CHECK(err("DepthToSpace", 2, "[1,6,3,4]")
            .find("the channels 6 of data [1,6,3,4] must divide by block_size^2 = 4") !=
        std::string::npos);
  CHECK(err("DepthToSpace", 2, "[1,8]").find("data must have rank 3 or more") !=
        std::string::npos);
  CHECK(err("SpaceToDepth", 2, "[1,3,4,5]")
            .find("extent 5 of data [1,3,4,5] along axis 3 must divide by block_size = 2") !=
        std::string::npos);
  CHECK(err("SpaceToDepth", 4, "[1,3,5..7]").find("along axis 2") != std::string::npos);
  CHECK(error_text(caught([] { make("DepthToSpace", "opset1", {{"mode", "sideways"}}); }))
            .find("sideways") != std::string::npos);
  CHECK(error_text(caught([] {
          make("SpaceToDepth", "opset1", {{"mode", "depth_first"}, {"block_size", "0"}});
        })).find("expected a positive block size") != std::string::npos);
  CHECK(make("DepthToSpace", "opset1", {{"mode", "DEPTH_FIRST"}})->attributes() ==
        std::vector<std::pair<std::string, std::string>>{{"mode", "depth_first"},
                                                         {"block_size", "1"}});
}

TEST_CASE("DepthToSpace worked example and inverse of SpaceToDepth") {
  // [1, 4, 1, 1] with b = 2 over one spatial axis pair: blocks_first puts channel (j1 * 2 + j2)
  // at (j1, j2), depth_first the same for a single output channel.
  const Tensor x = tensor(ElementType::f32, {1, 4, 1, 1}, {10, 11, 12, 13});
  for (const char* mode : {"blocks_first", "depth_first"}) {
    const auto op = make("DepthToSpace", "opset1", {{"mode", mode}, {"block_size", "2"}});
    CHECK(doubles(run(*op, {x})) == std::vector<double>{10, 11, 12, 13});
  }
  // Two output channels tell the modes apart.
  const Tensor y = tensor(ElementType::f32, {1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  const auto bf = make("DepthToSpace", "opset1", {{"mode", "blocks_first"}, {"block_size", "2"}});
  const auto df = make("DepthToSpace", "opset1", {{"mode", "depth_first"}, {"block_size", "2"}});
  CHECK(doubles(run(*bf, {y})) == std::vector<double>{0, 2, 4, 6, 1, 3, 5, 7});
  CHECK(doubles(run(*df, {y})) == std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("DepthToSpace and SpaceToDepth match the reference on random shapes and threads") {
  std::mt19937 rng(91);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const ElementType types[] = {ElementType::f32, ElementType::u8, ElementType::f16,
                               ElementType::i64, ElementType::boolean};
  for (int iter = 0; iter < 60; ++iter) {
    const ElementType type = types[iter % std::size(types)];
    const bool to_space = iter % 2 == 0;
    const bool blocks_first = pick(0, 1) == 1;
    const auto k = static_cast<std::size_t>(pick(1, 3));
    const int b = pick(1, k == 3 ? 2 : 3);
    std::int64_t volume = 1;
    for (std::size_t i = 0; i < k; ++i) volume *= b;
    Shape shape{pick(1, 3), pick(1, 3)};
    for (std::size_t i = 0; i < k; ++i) shape.push_back(pick(1, 4));
    if (to_space)
      shape[1] *= volume;
    else
      for (std::size_t i = 0; i < k; ++i) shape[2 + i] *= b;
    if (pick(0, 4) == 0) shape[0] *= 300;
    CAPTURE(to_string(shape));
    CAPTURE(b);
    CAPTURE(blocks_first);
    const Tensor x = counting(type, shape, rng);
    const auto op = make(to_space ? "DepthToSpace" : "SpaceToDepth", "opset1",
                         {{"mode", blocks_first ? "blocks_first" : "depth_first"},
                          {"block_size", std::to_string(b)}});
    const Tensor want = to_space ? reference::depth_to_space(x, b, blocks_first)
                                 : reference::space_to_depth(x, b, blocks_first);
    check_runs(*op, {x}, {want});
  }
}

TEST_CASE("DepthToSpace through the loader on a dynamic shape") {
  OpTester t("DepthToSpace", "opset1");
  t.attr("mode", "depth_first").attr("block_size", 2);
  t.input_parameter("x", ElementType::f32, ps("[1,?,1,1]"));
  const auto out = t.run({{"x", tensor(ElementType::f32, {1, 4, 1, 1}, {1, 2, 3, 4})}});
  CHECK(out[0].shape() == Shape{1, 1, 2, 2});
  const auto e = caught([&] { t.run({{"x", tensor(ElementType::f32, {1, 3, 1, 1}, {1, 2, 3})}}); });
  REQUIRE(e);
  CHECK(e->context().layer_name == "op");
  CHECK(e->context().port == 0);
}

TEST_CASE("Range-1: opset1's Range, typed by its inputs") {
  std::string why;
  CHECK(resolve_op("Range", "opset1", &why)->version == 1);
  CHECK(resolve_op("Range", "opset3", &why)->version == 1);
  CHECK(resolve_op("Range", "opset4", &why)->version == 4);
  const auto op = make("Range", "opset1");
  CHECK(op->attributes().empty());
  const Tensor start = tensor(ElementType::f32, {}, {1});
  const Tensor stop = tensor(ElementType::f32, {}, {2.5});
  const Tensor step = tensor(ElementType::f32, {}, {0.25});
  CHECK(inferred(*op, {info(start), info(stop), info(step)}) == "f32 [6]");
  CHECK(inferred(*op, {info(start), info(ElementType::f32, "[]"), info(step)}) == "f32 [?]");
  CHECK(doubles(run(*op, {start, stop, step})) ==
        std::vector<double>{1, 1.25, 1.5, 1.75, 2, 2.25});
  const Tensor a = ints(ElementType::i32, {}, {10});
  const Tensor b = ints(ElementType::i32, {}, {-3});
  const Tensor c = ints(ElementType::i32, {}, {-4});
  const Tensor out = run(*op, {a, b, c});
  CHECK(out.element_type() == ElementType::i32);
  CHECK(integers(out) == std::vector<std::int64_t>{10, 6, 2, -2});
  // The three inputs share one type.
  const Tensor stop64 = ints(ElementType::i64, {}, {3});
  const auto e = caught([&] { (void)op->infer(std::vector<ValueInfo>{info(a), info(stop64), info(c)}); });
  CHECK(error_text(e).find("stop must be i32 as start is, got i64") != std::string::npos);
  CHECK(e->context().port == 1);
  const Tensor zero = ints(ElementType::i32, {}, {0});
  CHECK(error_text(caught([&] { (void)op->infer(std::vector<ValueInfo>{info(a), info(b), info(zero)}); }))
            .find("step must not be zero") != std::string::npos);
  const Tensor vec = tensor(ElementType::f32, {1}, {1});
  CHECK(error_text(caught([&] { (void)op->infer(std::vector<ValueInfo>{info(vec), info(stop), info(step)}); }))
            .find("start must be a scalar") != std::string::npos);
  // Through the loader, as an IR's version="opset1" layer, with a run-time stop.
  OpTester t("Range", "opset1");
  t.input_const("start", ints(ElementType::i64, {}, {0}));
  t.input_parameter("stop", ints(ElementType::i64, {}, {5}));
  t.input_const("step", ints(ElementType::i64, {}, {2}));
  auto r = t.run();
  CHECK(r[0].element_type() == ElementType::i64);
  CHECK(integers(r[0]) == std::vector<std::int64_t>{0, 2, 4});
  r = t.run({{"stop", ints(ElementType::i64, {}, {7})}});
  CHECK(integers(r[0]) == std::vector<std::int64_t>{0, 2, 4, 6});
}

TEST_CASE("a Split layer without output ports is refused by the loader") {
  GraphBuilder g;
  const auto x = g.parameter("x", ElementType::f32, ps("[2,4]"));
  const auto axis = g.parameter("axis", ElementType::i64, ps("[]"));
  (void)g.layer("Split", "opset1", {{"num_splits", "2"}}, {x, axis}, {}, "the_split");
  g.result(x, "out");
  const auto e = caught([&] { (void)g.load(); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::format);
  CHECK(std::string(e->message()).find("Split-1 has at least 1 output(s), the layer declares 0") !=
        std::string::npos);
}

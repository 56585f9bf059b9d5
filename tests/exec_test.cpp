// The executor: output shapes fixed at load time for static layers, and run-time checks that
// stay where they were.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "api/model_impl.hpp"
#include "irlite/irlite.hpp"
#include "op_tester.hpp"

using namespace irlite;
using irlite::testing::make_tensor;
using irlite::testing::OpTester;

namespace {

// The plan step of the layer called `name`.
const ExecPlan::Step& step_of(const Model& m, std::string_view name) {
  const detail::ModelImpl& impl = m.impl();
  const auto it =
      std::find_if(impl.plan.steps.begin(), impl.plan.steps.end(),
                   [&](const ExecPlan::Step& s) { return impl.graph.nodes[s.node].name == name; });
  REQUIRE_MESSAGE(it != impl.plan.steps.end(), "no layer " << name);
  return *it;
}

Tensor ints64(Shape shape, const std::vector<std::int64_t>& values) {
  Tensor t(ElementType::i64, std::move(shape));
  REQUIRE(t.size() == values.size());
  std::copy(values.begin(), values.end(), t.data<std::int64_t>());
  return t;
}

}  // namespace

TEST_CASE("a static layer's output shapes come from the load, a dynamic one infers again") {
  OpTester t("EmbeddingSegmentsSum", "opset3", "bags");
  t.input_parameter("table", ElementType::f32, PartialShape{5, 2})
      .input_parameter("indices", ElementType::i64, PartialShape{4})
      .input_parameter("segment_ids", ElementType::i64, PartialShape{4})
      .input_const("num_segments", ints64({}, {3}))
      .outputs(1);
  const Model m = t.load();
  CHECK(step_of(m, "bags").shapes_fixed);
  // Only num_segments is read by the shape rule at run time.
  CHECK(step_of(m, "bags").value_inputs == std::vector<bool>{false, false, false, true});

  // num_segments from a Parameter: the output's first dimension is known only at run time.
  OpTester d("EmbeddingSegmentsSum", "opset3", "bags");
  d.input_parameter("table", ElementType::f32, PartialShape{5, 2})
      .input_parameter("indices", ElementType::i64, PartialShape{4})
      .input_parameter("segment_ids", ElementType::i64, PartialShape{4})
      .input_parameter("num_segments", ElementType::i64, PartialShape{})
      .outputs(1);
  const Model dm = d.load();
  CHECK_FALSE(step_of(dm, "bags").shapes_fixed);
  Session s(dm);
  const Tensor table = make_tensor(ElementType::f32, {5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor indices = ints64({4}, {0, 1, 2, 3});
  const Tensor ids = ints64({4}, {0, 0, 1, 1});
  for (std::int64_t segments : {2, 4}) {
    const auto out = s.run({{"table", table},
                            {"indices", indices},
                            {"segment_ids", ids},
                            {"num_segments", ints64({}, {segments})}});
    CHECK(out.at("out0").shape() == Shape{segments, 2});
  }

  // Dynamic input shapes: inferred again at every run, from the real shapes.
  OpTester r("ReduceMax", "opset1", "max");
  r.attr("keep_dims", false)
      .input_parameter("x", ElementType::f32, PartialShape{Dimension(), 2})
      .input_const("axes", ints64({1}, {1}))
      .outputs(1);
  const Model rm = r.load();
  CHECK_FALSE(step_of(rm, "max").shapes_fixed);
  Session rs(rm);
  CHECK(rs.run({{"x", make_tensor(ElementType::f32, {3, 2}, {1, 2, 3, 4, 5, 6})}})
            .at("out0")
            .shape() == Shape{3});
  CHECK(rs.run({{"x", make_tensor(ElementType::f32, {1, 2}, {1, 2})}}).at("out0").shape() ==
        Shape{1});
}

TEST_CASE("bad values are reported at the layer alike in static and dynamic models") {
  // Each case runs twice: with static input shapes (the layer skips its shape rule) and with a
  // dynamic first dimension (it runs the rule); the error is the same either way.
  const auto error_of = [](OpTester& t, const std::map<std::string, Tensor>& feeds) {
    try {
      t.run(feeds);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const bool dynamic : {false, true}) {
    CAPTURE(dynamic);
    const auto n = [&](std::int64_t extent) {
      return dynamic ? Dimension(1, 8) : Dimension(extent);
    };
    SUBCASE("EmbeddingSegmentsSum: indices and segment ids in range") {
      OpTester t("EmbeddingSegmentsSum", "opset3", "bags");
      t.input_parameter("table", ElementType::f32, PartialShape{5, 2})
          .input_parameter("indices", ElementType::i64, PartialShape{n(2)})
          .input_parameter("segment_ids", ElementType::i64, PartialShape{n(2)})
          .input_const("num_segments", ints64({}, {2}))
          .input_parameter("default_index", ElementType::i64, PartialShape{})
          .outputs(1);
      CHECK(step_of(t.load(), "bags").shapes_fixed == !dynamic);
      const Tensor table(ElementType::f32, {5, 2});
      const auto feeds = [&](std::vector<std::int64_t> indices, std::vector<std::int64_t> ids,
                             std::int64_t def) {
        return std::map<std::string, Tensor>{{"table", table},
                                             {"indices", ints64({2}, indices)},
                                             {"segment_ids", ints64({2}, ids)},
                                             {"default_index", ints64({}, {def})}};
      };
      const std::string at = "layer 5 'bags' (EmbeddingSegmentsSum-3), input port ";
      CHECK(error_of(t, feeds({0, 5}, {0, 1}, -1))
                .find(at + "1: indices[1] = 5 is out of the embedding table range [0, 5)") !=
            std::string::npos);
      CHECK(error_of(t, feeds({0, 1}, {-1, 1}, -1))
                .find(at + "2: segment_ids[0] = -1 is out of the segment range [0, 2)") !=
            std::string::npos);
      CHECK(error_of(t, feeds({0, 1}, {0, 1}, 7))
                .find(at + "4: default_index = 7 is out of the embedding table range") !=
            std::string::npos);
      CHECK(error_of(t, feeds({0, 1}, {0, 1}, 4)) == "no error");
    }
    SUBCASE("SegmentMax: sorted, non-negative segment ids") {
      OpTester t("SegmentMax", "opset16", "segments");
      t.attr("fill_mode", "zero")
          .input_parameter("data", ElementType::f32, PartialShape{n(3)})
          .input_parameter("segment_ids", ElementType::i32, PartialShape{n(3)})
          .input_const("num_segments", ints64({}, {2}))
          .outputs(1);
      CHECK(step_of(t.load(), "segments").shapes_fixed == !dynamic);
      const Tensor data = make_tensor(ElementType::f32, {3}, {1, 2, 3});
      const auto ids = [](std::initializer_list<double> v) {
        return make_tensor(ElementType::i32, {3}, v);
      };
      CHECK(error_of(t, {{"data", data}, {"segment_ids", ids({0, 1, 0})}})
                .find("layer 3 'segments' (SegmentMax-16), input port 1: segment_ids must be "
                      "sorted: segment_ids[2] = 0 is less than segment_ids[1] = 1") !=
            std::string::npos);
      CHECK(error_of(t, {{"data", data}, {"segment_ids", ids({-1, 0, 0})}})
                .find("input port 1: segment_ids[0] = -1 is negative") != std::string::npos);
    }
    SUBCASE("TopK: a Const k beyond the axis") {
      OpTester t("TopK", "opset11", "top");
      t.attr("axis", 0).attr("mode", "max").attr("sort", "value");
      t.input_parameter("data", ElementType::f32, PartialShape{n(3)})
          .input_const("k", ints64({}, {5}))
          .outputs(2);
      // The model loads (OpenVINO does not clamp k to a static dimension), and every run fails.
      const Model m = t.load();
      CHECK_FALSE(step_of(m, "top").shapes_fixed);
      CHECK(error_of(t, {{"data", make_tensor(ElementType::f32, {3}, {1, 2, 3})}})
                .find("layer 2 'top' (TopK-11), input port 1: k (5) exceeds dimension 3 of "
                      "axis 0") != std::string::npos);
    }
  }
}

// Load-time value propagation: layers whose inputs are all known are folded into Consts, and
// the values shape rules read (TopK's k, num_segments) may come from such layers.

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "graph_builder.hpp"
#include "op_test_util.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

const LayerInfo& layer_named(const Model& m, const std::string& name) {
  for (const LayerInfo& l : m.layers())
    if (l.name == name) return l;
  FAIL("no layer " << name);
  throw;
}

std::string attribute(const LayerInfo& l, const std::string& key) {
  for (const auto& [k, v] : l.attributes)
    if (k == key) return v;
  return "";
}

}  // namespace

TEST_CASE("value propagation: a k computed from Consts is folded and makes TopK's shape static") {
  GraphBuilder g;
  const auto data = g.parameter("data", ElementType::f32, ps("2,8"));
  const auto candidates = g.constant("candidates", ints(ElementType::i64, {3}, {3, 5, 2}));
  const auto axis = g.constant("axis", ints(ElementType::i64, {}, {0}));
  const auto k = g.layer("ReduceMax", "opset1", {{"keep_dims", "false"}}, {candidates, axis},
                         {ElementType::i64}, "k");
  const auto topk =
      g.layer("TopK", "opset11", {{"axis", "1"}, {"mode", "max"}, {"sort", "value"}},
              {data, k[0]}, {ElementType::f32, ElementType::i32}, "topk");
  g.result(topk[0], "values");
  g.result(topk[1], "indices");
  const Model m = g.load();

  const LayerInfo& folded = layer_named(m, "k");
  CHECK(folded.folded);
  CHECK(attribute(folded, "value") == "5");
  CHECK_FALSE(layer_named(m, "topk").folded);
  CHECK(m.outputs()[0].shape == ps("2,5"));
  CHECK(m.outputs()[1].shape == ps("2,5"));
  CHECK_FALSE(m.is_dynamic());

  Session s(m);
  const auto out = s.run({{"data", tensor(ElementType::f32, {2, 8},
                                          {0, 9, 1, 8, 2, 7, 3, 6, 5, 4, 6, 3, 7, 2, 8, 1})}});
  CHECK(doubles(out.at("values")) == std::vector<double>{9, 8, 7, 6, 3, 8, 7, 6, 5, 4});
}

TEST_CASE("value propagation: a folded layer's value error is the model's error, located") {
  GraphBuilder g;
  const auto data = g.constant("data", tensor(ElementType::f32, {3, 2}, {1, 2, 3, 4, 5, 6}));
  // Unsorted ids: SegmentMax refuses them whenever it sees them, here while loading.
  const auto ids = g.constant("ids", ints(ElementType::i32, {3}, {1, 0, 0}));
  const auto segmax =
      g.layer("SegmentMax", "opset16", {{"fill_mode", "ZERO"}}, {data, ids}, {ElementType::f32},
              "pool");
  g.result(segmax[0], "pooled");
  const auto error = caught([&] { g.load(); });
  REQUIRE(error);
  CHECK(std::string(error->what()).find("pool") != std::string::npos);
  CHECK(std::string(error->what()).find("sorted") != std::string::npos);
}

TEST_CASE("value propagation: folding is bounded by size and leaves multi-output layers to run") {
  GraphBuilder g;
  // 2^18 f32 elements = 1 MiB: at the limit, folded. One more row is not.
  Tensor big(ElementType::f32, {2, 1 << 18});
  for (std::size_t i = 0; i < big.size(); ++i) big.data<float>()[i] = static_cast<float>(i % 7);
  Tensor bigger(ElementType::f32, {2, (1 << 18) + 1});
  for (std::size_t i = 0; i < bigger.size(); ++i) bigger.data<float>()[i] = 1;
  const auto zero = g.constant("zero", ints(ElementType::i64, {}, {0}));
  const auto a = g.constant("a", big);
  const auto b = g.constant("b", bigger);
  const auto at_limit = g.layer("ReduceMax", "opset1", {{"keep_dims", "false"}}, {a, zero},
                                {ElementType::f32}, "at_limit");
  const auto over = g.layer("ReduceMax", "opset1", {{"keep_dims", "false"}}, {b, zero},
                            {ElementType::f32}, "over");
  const auto k = g.constant("k", ints(ElementType::i64, {}, {1}));
  const auto topk = g.layer("TopK", "opset11", {{"axis", "0"}, {"mode", "max"}, {"sort", "value"}},
                            {b, k}, {ElementType::f32, ElementType::i32}, "topk");
  g.result(at_limit[0], "x");
  g.result(over[0], "y");
  g.result(topk[0], "z");
  const Model m = g.load();
  CHECK(layer_named(m, "at_limit").folded);
  CHECK_FALSE(layer_named(m, "over").folded);
  CHECK_FALSE(layer_named(m, "topk").folded);
  Session s(m);
  const auto out = s.run({});
  CHECK(out.at("x").data<float>()[6] == 6.0f);
  CHECK(out.at("y").size() == (1u << 18) + 1);
  CHECK(out.at("z").data<float>()[0] == 1.0f);
}

TEST_CASE("value propagation: ShapeOf of a static input is folded, and a reshape infers it anew") {
  GraphBuilder g;
  const auto data = g.parameter("data", ElementType::f32, ps("2,6"));
  const auto shape =
      g.layer("ShapeOf", "opset3", {{"output_type", "i64"}}, {data}, {ElementType::i64}, "shape");
  const auto index = g.constant("index", ints(ElementType::i64, {}, {1}));
  const auto axis = g.constant("axis", ints(ElementType::i64, {}, {0}));
  const auto k = g.layer("Gather", "opset8", {{"batch_dims", "0"}}, {shape[0], index, axis},
                         {ElementType::i64}, "k");
  const auto topk = g.layer("TopK", "opset11", {{"axis", "1"}, {"mode", "max"}, {"sort", "value"}},
                            {data, k[0]}, {ElementType::f32, ElementType::i32}, "topk");
  g.result(topk[0], "values");
  g.result(topk[1], "indices");
  const Model m = g.load();

  // The shape is known, so ShapeOf is a Const [2, 6] and k one of 6.
  CHECK(layer_named(m, "shape").folded);
  CHECK(attribute(layer_named(m, "shape"), "value") == "[2,6]");
  CHECK(layer_named(m, "k").folded);
  CHECK(m.outputs()[0].shape == ps("2,6"));
  CHECK_FALSE(m.is_dynamic());

  // A reshape derives the folds again from the new shapes rather than keeping the old ones.
  const Model wider = m.reshape({{"data", ps("3,4")}});
  CHECK(attribute(layer_named(wider, "shape"), "value") == "[3,4]");
  CHECK(wider.outputs()[0].shape == ps("3,4"));
  // Only the first dim unknown: k is still exactly 4, folded from its bounds.
  const Model rows = m.reshape({{"data", ps("?,4")}});
  CHECK_FALSE(layer_named(rows, "shape").folded);
  CHECK(layer_named(rows, "k").folded);
  CHECK(rows.outputs()[0].shape == ps("?,4"));
  // k unknown: the model is dynamic, and a run takes k from the tensor it gets.
  const Model columns = m.reshape({{"data", ps("2,?")}});
  CHECK_FALSE(layer_named(columns, "k").folded);
  CHECK(columns.is_dynamic());
  Session s(columns);
  const auto out = s.run({{"data", tensor(ElementType::f32, {2, 3}, {1, 3, 2, 6, 5, 4})}});
  CHECK(out.at("values").shape() == Shape{2, 3});
  CHECK(doubles(out.at("values")) == std::vector<double>{3, 2, 1, 6, 5, 4});
}

// What a Session gives back and how a caller watches it: outputs in model order, outputs written
// into the caller's buffers, the per-layer profile and the layer observer.

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "graph_builder.hpp"
#include "irlite/irlite.hpp"
#include "tensors.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

const std::filesystem::path kModels = IRLITE_MODELS;

// The pipeline's input: the ids of models/inputs/pipeline_indices.npy.
Tensor pipeline_indices() {
  const std::vector<std::int32_t> ids{2, 7, 1, 0, 9, 4, 4, 8, 2, 6, 5, 9};
  Tensor t(ElementType::i32, {12});
  std::memcpy(t.data(), ids.data(), ids.size() * sizeof(std::int32_t));
  return t;
}

template <class T>
std::vector<T> values_of(const Tensor& t) {
  const auto v = t.values<T>();
  return {v.begin(), v.end()};
}

// x: f32 [?,4] -> ReduceMax over axis 1 (a Const) -> y: f32 [?], every port's dims declared.
GraphBuilder row_max_graph() {
  GraphBuilder g("row_max");
  const auto x = g.parameter("x", ElementType::f32, PartialShape{Dimension(), 4});
  const auto axes = g.constant("axes", i64s({1}));
  const auto y = g.layer("ReduceMax", "opset1", {{"keep_dims", "false"}}, {x, axes},
                         {ElementType::f32}, "row_max")[0];
  g.declare(y, ElementType::f32, PartialShape{Dimension()});
  g.result(y, "y");
  return g;
}

Model row_max_model() {
  return row_max_graph().load();
}

Tensor rows(std::int64_t n) {
  Tensor x(ElementType::f32, {n, 4});
  for (std::size_t i = 0; i < x.size(); ++i) x.data<float>()[i] = static_cast<float>(i);
  return x;
}

}  // namespace

TEST_CASE("session: outputs come in the model's order, not sorted by name") {
  const Model model = Model::load(kModels / "pipeline.xml");
  Session session(model);
  const Outputs out = session.run({{"indices", pipeline_indices()}});
  REQUIRE(out.size() == 3);
  std::vector<std::string> names;
  for (const auto& [name, tensor] : out) names.push_back(name);
  CHECK(names == std::vector<std::string>{"top_values", "top_indices", "group_max"});
  for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i].first == model.outputs()[i].name);
  CHECK(values_of<float>(out[0].second) == std::vector<float>{5.25f, 5, 4});
  CHECK(values_of<std::int32_t>(out.at("top_indices")) == std::vector<std::int32_t>{3, 1, 2});
  CHECK(out.at("top_indices").data() == out[1].second.data());
  CHECK(out.contains("group_max"));
  CHECK_FALSE(out.contains("group"));
  REQUIRE(out.find("group_max") != out.end());
  CHECK(out.find("group_max")->second.shape() == Shape{3, 8});
  CHECK(out.find("nope") == out.end());
  CHECK_THROWS_WITH_AS(
      out.at("nope"),
      "the run has no output 'nope' (outputs: 'top_values', 'top_indices', 'group_max')", Error);
  try {
    out.at("nope");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::usage);
  }
  CHECK(Outputs().empty());
}

TEST_CASE("session: a bound output is written straight into the caller's buffer") {
  const Model model = Model::load(kModels / "pipeline.xml");
  const Outputs want = Session(model).run({{"indices", pipeline_indices()}});
  Session session(model);
  std::vector<float> groups(24, -1);
  std::array<float, 3> top{};
  session.bind_output("group_max", Tensor::view(ElementType::f32, {3, 8}, groups.data()));
  session.bind_output("top_values", Tensor::view(ElementType::f32, {3}, top.data()));

  for (int run = 0; run < 3; ++run) {
    CAPTURE(run);
    std::fill(groups.begin(), groups.end(), -1.0f);
    const Outputs out = session.run({{"indices", pipeline_indices()}});
    CHECK(out.at("group_max").data() == groups.data());
    CHECK(out.at("top_values").data() == top.data());
    CHECK(values_of<float>(out.at("group_max")) == values_of<float>(want.at("group_max")));
    CHECK(std::vector<float>(top.begin(), top.end()) == std::vector<float>{5.25f, 5, 4});
    CHECK(values_of<std::int32_t>(out.at("top_indices")) == std::vector<std::int32_t>{3, 1, 2});
  }

  // Other inputs: the same buffer gets the new values.
  Tensor other = pipeline_indices();
  std::fill(other.data<std::int32_t>(), other.data<std::int32_t>() + 12, 0);
  const Outputs changed = session.run({{"indices", other}});
  CHECK(changed.at("group_max").data() == groups.data());
  CHECK(values_of<float>(changed.at("group_max")) ==
        values_of<float>(Session(model).run({{"indices", other}}).at("group_max")));

  // Unbound: the run's own memory again, and the caller's buffer is left alone.
  session.unbind_output("group_max");
  std::fill(groups.begin(), groups.end(), -1.0f);
  const Outputs unbound = session.run({{"indices", pipeline_indices()}});
  CHECK(unbound.at("group_max").data() != groups.data());
  CHECK(values_of<float>(unbound.at("group_max")) == values_of<float>(want.at("group_max")));
  CHECK(groups == std::vector<float>(24, -1));
  CHECK(unbound.at("top_values").data() == top.data());
}

TEST_CASE("session: binding refuses what cannot be the output") {
  Session session(Model::load(kModels / "pipeline.xml"));
  std::vector<float> buffer(32);
  CHECK_THROWS_WITH_AS(
      session.bind_output("group_max", Tensor::view(ElementType::f32, {4, 8}, buffer.data())),
      "output 'group_max' is f32 [3,8]: a tensor of f32 [4,8] cannot be bound to it", Error);
  CHECK_THROWS_WITH_AS(
      session.bind_output("top_indices", Tensor::view(ElementType::f32, {3}, buffer.data())),
      "output 'top_indices' is i32 [3]: a tensor of f32 [3] cannot be bound to it", Error);
  CHECK_THROWS_WITH_AS(
      session.bind_output("bags", Tensor::view(ElementType::f32, {4, 8}, buffer.data())),
      "the model has no output 'bags' (outputs: top_values, top_indices, group_max)", Error);
  CHECK_THROWS_WITH_AS(session.unbind_output("bags"),
                       doctest::Contains("the model has no output 'bags'"), Error);
  CHECK_THROWS_WITH_AS(
      session.bind_output(
          "group_max", Tensor::view(ElementType::f32, {3, 8}, static_cast<const void*>(nullptr))),
      "the tensor bound to output 'group_max' has no data", Error);
  session.unbind_output("group_max");  // not bound: nothing to do
}

TEST_CASE("session: a bound dynamic output whose shape changes fails before it is written") {
  Session session(row_max_model());
  std::array<float, 2> y{-1, -1};
  session.bind_output("y", Tensor::view(ElementType::f32, {2}, y.data()));
  const Outputs out = session.run({{"x", rows(2)}});
  CHECK(out.at("y").data() == y.data());
  CHECK(y == std::array<float, 2>{3, 7});

  y = {-1, -1};
  CHECK_THROWS_WITH_AS(session.run({{"x", rows(3)}}),
                       doctest::Contains("layer 2 'row_max' (ReduceMax-1), output port 2: output "
                                         "'y' is bound to a tensor of f32 [2], but the run "
                                         "produces f32 [3]"),
                       Error);
  CHECK(y == std::array<float, 2>{-1, -1});
  try {
    session.run({{"x", rows(3)}});
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::usage);
  }

  // Bound anew to the new shape, and unbound: each run works again.
  std::array<float, 3> y3{};
  session.bind_output("y", Tensor::view(ElementType::f32, {3}, y3.data()));
  CHECK(session.run({{"x", rows(3)}}).at("y").data() == y3.data());
  CHECK(y3 == std::array<float, 3>{3, 7, 11});
  session.unbind_output("y");
  CHECK(values_of<float>(session.run({{"x", rows(1)}}).at("y")) == std::vector<float>{3});
}

TEST_CASE("session: two outputs of one value bound to two buffers get a copy each") {
  // A second Result, named y2, reads the port whose tensor is y.
  GraphBuilder g = row_max_graph();
  g.at(g.result({2, 0}, "y")).name = "y2";
  const Model model = g.load();
  REQUIRE(model.outputs().size() == 2);
  REQUIRE(model.outputs()[1].name == "y2");
  Session session(model);
  std::array<float, 2> a{}, b{};
  session.bind_output("y", Tensor::view(ElementType::f32, {2}, a.data()));
  session.bind_output("y2", Tensor::view(ElementType::f32, {2}, b.data()));
  Outputs out = session.run({{"x", rows(2)}});
  CHECK(out.at("y").data() == a.data());
  CHECK(out.at("y2").data() == b.data());
  CHECK(a == std::array<float, 2>{3, 7});
  CHECK(b == std::array<float, 2>{3, 7});
  // Only the second bound: the first, fed by the same value, shares its buffer.
  session.unbind_output("y");
  b = {};
  out = session.run({{"x", rows(2)}});
  CHECK(out.at("y2").data() == b.data());
  CHECK(out.at("y").data() == b.data());
  CHECK(b == std::array<float, 2>{3, 7});
}

TEST_CASE("session: an output fed straight by an input is copied into its bound buffer") {
  Session session(Model::load(kModels / "dynamic_identity.xml"));
  std::array<float, 6> bound{};
  session.bind_output("x", Tensor::view(ElementType::f32, {2, 3}, bound.data()));
  Tensor x(ElementType::f32, {2, 3});
  for (std::size_t i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(10 + i);
  const Outputs out = session.run({{"x", x}});
  CHECK(out.at("x").data() == bound.data());
  CHECK(bound == std::array<float, 6>{10, 11, 12, 13, 14, 15});
  // The input itself bound as its output: nothing to copy.
  session.bind_output("x", x);
  CHECK(session.run({{"x", x}}).at("x").data() == x.data());
  // A shape the binding does not have: an error naming both.
  session.bind_output("x", Tensor::view(ElementType::f32, {2, 3}, bound.data()));
  CHECK_THROWS_WITH_AS(session.run({{"x", Tensor(ElementType::f32, {1, 3})}}),
                       doctest::Contains("output 'x' is bound to a tensor of f32 [2,3], but the "
                                         "run produces f32 [1,3]"),
                       Error);
}

TEST_CASE("session: the profile lists every compute layer of the run") {
  const Model model = Model::load(kModels / "pipeline.xml");
  Session quiet(model);
  quiet.run({{"indices", pipeline_indices()}});
  CHECK(quiet.profile().layers.empty());
  CHECK(quiet.profile().total_ns == 0);

  SessionOptions options;
  options.profile = true;
  Session session(model, options);
  for (int run = 0; run < 2; ++run) {
    session.run({{"indices", pipeline_indices()}});
    const RunProfile& profile = session.profile();
    std::vector<std::string> names;
    std::int64_t sum = 0, previous_end = 0;
    for (const LayerProfile& layer : profile.layers) {
      names.push_back(layer.name);
      REQUIRE(layer.layer < model.layers().size());
      const LayerInfo& info = model.layers()[layer.layer];
      CHECK(info.name == layer.name);
      CHECK(info.id == layer.id);
      CHECK(info.type == layer.type);
      CHECK(info.version == layer.version);
      CHECK(layer.duration_ns >= 0);
      CHECK(layer.start_ns >= previous_end);
      previous_end = layer.start_ns + layer.duration_ns;
      sum += layer.duration_ns;
    }
    CHECK(names == std::vector<std::string>{"bags", "bag_max", "top_bags", "group_max"});
    CHECK(sum <= profile.total_ns);
    CHECK(previous_end <= profile.total_ns);
    // TopK reads bag_max (f32 [4]) and k (an i64 scalar) and writes f32 [3] and i32 [3].
    const LayerProfile& topk = profile.layers[2];
    CHECK(topk.type == "TopK");
    CHECK(topk.version == 11);
    CHECK(topk.id == 8);
    CHECK(topk.input_bytes == 16 + 8);
    CHECK(topk.output_bytes == 12 + 12);
    CHECK(topk.input_shapes == std::vector<Shape>{{4}, {}});
    CHECK(topk.output_shapes == std::vector<Shape>{{3}, {3}});
    // EmbeddingSegmentsSum reads the table (f32 [20,8]), two i32 [12] and an i32 scalar.
    CHECK(profile.layers[0].input_bytes == 640 + 48 + 48 + 4);
    CHECK(profile.layers[0].output_bytes == 4 * 8 * 4);
  }
}

TEST_CASE("session: the observer sees every layer's outputs while the run happens") {
  const Model model = Model::load(kModels / "pipeline.xml");
  Session session(model);
  std::vector<std::string> seen;
  std::map<std::string, std::vector<Tensor>> values;
  const Outputs out = session.run({{"indices", pipeline_indices()}},
                                  [&](const LayerInfo& layer, std::span<const Tensor> outputs) {
                                    seen.push_back(layer.name);
                                    CHECK(outputs.size() == layer.outputs.size());
                                    for (const Tensor& t : outputs)
                                      values[layer.name].push_back(t.clone());
                                  });
  std::vector<std::string> want;
  for (const LayerInfo& layer : model.layers())
    if (layer.type != "Result") want.push_back(layer.name);
  CHECK(seen == want);
  REQUIRE(values["bag_max"].size() == 1);
  CHECK(values["bag_max"][0].shape() == Shape{4});
  REQUIRE(values["top_bags"].size() == 2);
  CHECK(values_of<float>(values["top_bags"][0]) == values_of<float>(out.at("top_values")));
  CHECK(values_of<std::int32_t>(values["top_bags"][1]) ==
        values_of<std::int32_t>(out.at("top_indices")));
  CHECK(values_of<std::int32_t>(values["indices"][0]) ==
        values_of<std::int32_t>(pipeline_indices()));
  CHECK(values["emb_table"][0].shape() == Shape{20, 8});

  // An observer's exception ends the run; the Session runs normally afterwards.
  CHECK_THROWS_WITH_AS(session.run({{"indices", pipeline_indices()}},
                                   [](const LayerInfo& layer, std::span<const Tensor>) {
                                     if (layer.name == "bag_max")
                                       throw Error(ErrorCode::usage, "stop");
                                   }),
                       "stop", Error);
  CHECK(values_of<float>(session.run({{"indices", pipeline_indices()}}).at("top_values")) ==
        std::vector<float>{5.25f, 5, 4});
}

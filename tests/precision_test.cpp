// InferencePrecision: f16 and bf16 layers compute in f32 by default, as OpenVINO's CPU plugin
// runs them, while the model's inputs and outputs keep their declared types; `declared` keeps
// each layer's rounding.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "graph_builder.hpp"
#include "irlite/irlite.hpp"
#include "tensors.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

LoadOptions with_precision(InferencePrecision precision) {
  LoadOptions options;
  options.inference_precision = precision;
  return options;
}

/// y = (x + big) - big in `type`, every port declared `type`: exact in f32, while `type`'s
/// rounding of x + big loses x's low bits.
GraphBuilder add_then_subtract(ElementType type, double big, const PartialShape& shape) {
  GraphBuilder g;
  const auto x = g.parameter("x", type, shape);
  const auto c = g.constant("big", tensor(type, {1}, {big}));
  const auto sum = g.layer("Add", "opset1", {}, {x, c}, {type}, "sum");
  const auto back = g.layer("Subtract", "opset1", {}, {sum[0], c}, {type}, "back");
  g.declare(sum[0], type, shape);
  g.declare(back[0], type, shape);
  g.result(back[0], "y");
  return g;
}

std::vector<double> run_one(const Model& model, const Tensor& x) {
  const Outputs out = Session(model).run({{"x", x}});
  return doubles(out.at(model.outputs()[0].name));
}

}  // namespace

TEST_CASE("precision: an f16 model computes in f32 inside and keeps f16 at its edges") {
  const GraphBuilder g = add_then_subtract(ElementType::f16, 2048, PartialShape{3});
  const Tensor x = tensor(ElementType::f16, {3}, {1, 3, 0.5});

  const Model wide = g.load();
  CHECK(wide.inputs()[0].element_type == ElementType::f16);
  CHECK(wide.outputs()[0].element_type == ElementType::f16);
  CHECK(wide.warnings().empty());
  const Outputs out = Session(wide).run({{"x", x}});
  CHECK(out.at("y").element_type() == ElementType::f16);
  CHECK(doubles(out.at("y")) == std::vector<double>{1, 3, 0.5});
  // The layers show what they compute in beside what the file declares, without a warning.
  for (const LayerInfo& layer : wide.layers()) {
    if (layer.name != "sum") continue;
    CHECK(layer.outputs[0].element_type == ElementType::f32);
    CHECK(layer.outputs[0].declared_element_type == ElementType::f16);
    CHECK_FALSE(layer.outputs[0].declared_differs);
  }

  // In f16, 2049 and 2051 round to 2048 and 2052 (ties to even), and 2048.5 to 2048.
  const Model narrow = g.load(with_precision(InferencePrecision::declared));
  CHECK(narrow.outputs()[0].element_type == ElementType::f16);
  CHECK(run_one(narrow, x) == std::vector<double>{0, 4, 0});
}

TEST_CASE("precision: a bf16 model computes in f32 inside too") {
  const GraphBuilder g = add_then_subtract(ElementType::bf16, 256, PartialShape{2});
  const Tensor x = tensor(ElementType::bf16, {2}, {1, 0.25});
  const Model wide = g.load();
  CHECK(wide.outputs()[0].element_type == ElementType::bf16);
  CHECK(run_one(wide, x) == std::vector<double>{1, 0.25});
  CHECK(run_one(g.load(with_precision(InferencePrecision::declared)), x) ==
        std::vector<double>{0, 0});
}

TEST_CASE("precision: a Convert to f16 inside the model converts to f32") {
  GraphBuilder g;
  const auto x = g.parameter("x", ElementType::f32, PartialShape{1});
  const auto half =
      g.layer("Convert", "opset1", {{"destination_type", "f16"}}, {x}, {ElementType::f16});
  const auto back =
      g.layer("Convert", "opset1", {{"destination_type", "f32"}}, {half[0]}, {ElementType::f32});
  g.result(back[0], "y");
  const Tensor third = tensor(ElementType::f32, {1}, {1.0 / 3});
  const double exact = static_cast<double>(static_cast<float>(1.0 / 3));
  const Model wide = g.load();
  CHECK(wide.outputs()[0].element_type == ElementType::f32);
  CHECK(run_one(wide, third) == std::vector<double>{exact});
  const double rounded = static_cast<double>(static_cast<float>(round_to_f16(1.0 / 3)));
  CHECK(rounded != exact);
  CHECK(run_one(g.load(with_precision(InferencePrecision::declared)), third) ==
        std::vector<double>{rounded});
}

TEST_CASE("precision: an f16 input read straight by a Result comes back as given") {
  GraphBuilder g;
  const auto x = g.parameter("x", ElementType::f16, PartialShape{4});
  g.declare(x, ElementType::f16, PartialShape{4});
  g.result(x, "y");
  const Model model = g.load();
  CHECK(model.outputs()[0].element_type == ElementType::f16);
  const Tensor given = tensor(ElementType::f16, {4}, {65504, -0.0, 6e-8, 0.1});
  const Outputs out = Session(model).run({{"x", given}});
  REQUIRE(out.at("y").element_type() == ElementType::f16);
  for (std::size_t i = 0; i < 4; ++i) CHECK(same_bits(out.at("y"), given, i));
}

TEST_CASE("precision: a narrowed output is written into the tensor bound to it") {
  const GraphBuilder g = add_then_subtract(ElementType::f16, 2048, PartialShape{3});
  const Model model = g.load();
  Session session(model);
  Tensor bound(ElementType::f16, {3});
  session.bind_output("y", bound);
  const Outputs out = session.run({{"x", tensor(ElementType::f16, {3}, {1, 3, 0.5})}});
  CHECK(out.at("y").data() == bound.data());
  CHECK(doubles(bound) == std::vector<double>{1, 3, 0.5});
  // An f32 tensor is not what the caller gets there.
  CHECK_THROWS_AS(session.bind_output("y", Tensor(ElementType::f32, {3})), Error);
}

TEST_CASE("precision: a reshaped f16 model still computes in f32") {
  const GraphBuilder g = add_then_subtract(ElementType::f16, 2048, PartialShape{Dimension()});
  const Model model = g.load().reshape({{"x", PartialShape{2}}});
  CHECK(model.inputs()[0].element_type == ElementType::f16);
  CHECK(run_one(model, tensor(ElementType::f16, {2}, {1, 3})) == std::vector<double>{1, 3});
}

TEST_CASE("precision: an f16 input is refused as f32, and an f32 one as f16") {
  const Model model = add_then_subtract(ElementType::f16, 2048, PartialShape{3}).load();
  Session session(model);
  CHECK_THROWS_WITH_AS(session.run({{"x", tensor(ElementType::f32, {3}, {1, 2, 3})}}),
                       doctest::Contains("input 'x' expects f16 [3], got f32 [3]"), Error);
}

TEST_CASE("precision: a port declared f16 whose layer gives integers keeps its integers") {
  GraphBuilder g;
  const auto x = g.parameter("x", ElementType::f16, PartialShape{2, 3});
  const auto shape =
      g.layer("ShapeOf", "opset3", {{"output_type", "i64"}}, {x}, {ElementType::i64}, "shape");
  g.declare(shape[0], ElementType::f16, PartialShape{2});
  g.result(shape[0], "y");
  const Model model = g.load();
  CHECK(model.outputs()[0].element_type == ElementType::i64);
  // The IR's word is wrong there, and a warning says so.
  REQUIRE(model.warnings().size() == 1);
  CHECK(std::string(model.warnings()[0].what()).find("declares f16") != std::string::npos);
  const Outputs out = Session(model).run({{"x", Tensor(ElementType::f16, {2, 3})}});
  CHECK(integers(out.at("y")) == std::vector<std::int64_t>{2, 3});
}

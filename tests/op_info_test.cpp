// What the public API tells about a model and the library beyond running it: the supported op
// list (supported_ops), Const values as Model::layers() shows them, and the <data> of layers
// irlite has no op for.

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "graph_builder.hpp"
#include "irlite/irlite.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

const OpInfo* find_op(const std::vector<OpInfo>& ops, std::string_view type, int version) {
  for (const OpInfo& op : ops)
    if (op.type == type && op.version == version) return &op;
  return nullptr;
}

bool has(const std::vector<ElementType>& types, ElementType t) {
  return std::find(types.begin(), types.end(), t) != types.end();
}

// A model of one Const of `value` feeding a Result.
Model const_model(const Tensor& value) {
  GraphBuilder g("c");
  g.result(g.constant("c", value), "c");
  return g.load();
}

std::string value_attribute(const Model& m) {
  for (const auto& [key, value] : m.layers()[0].attributes)
    if (key == "value") return value;
  return "(none)";
}

}  // namespace

TEST_CASE("supported_ops lists each op version with its opsets and element types") {
  const std::vector<OpInfo> ops = supported_ops();
  const OpInfo* v1 = find_op(ops, "TopK", 1);
  const OpInfo* v3 = find_op(ops, "TopK", 3);
  const OpInfo* v11 = find_op(ops, "TopK", 11);
  REQUIRE(v1);
  REQUIRE(v3);
  REQUIRE(v11);
  // A version holds until the next one takes over; the newest until the newest opset known.
  CHECK(v1->since_opset == 1);
  CHECK(v1->until_opset == 2);
  CHECK(v3->until_opset == 10);
  CHECK(v11->since_opset == 11);
  CHECK(v11->until_opset == 16);
  REQUIRE(v1->inputs.size() == 2);
  CHECK(v1->inputs[1].name == "k");
  CHECK(v1->inputs[1].element_types ==
        std::vector<ElementType>{ElementType::i8, ElementType::i32, ElementType::i64});
  CHECK(has(v3->inputs[1].element_types, ElementType::u16));
  REQUIRE(v1->outputs.size() == 2);
  CHECK(v1->outputs[1].element_types == std::vector<ElementType>{ElementType::i32});
  CHECK(v11->outputs[1].element_types ==
        std::vector<ElementType>{ElementType::i32, ElementType::i64});
  CHECK(has(v11->inputs[0].element_types, ElementType::bf16));
  CHECK_FALSE(has(v11->inputs[0].element_types, ElementType::boolean));

  // Every op names each of its inputs (max_inputs of them), and its outputs.
  for (const OpInfo& op : ops) {
    CAPTURE(op.type);
    // A variadic op (Concat: max_inputs is INT_MAX) names one port for all its inputs.
    CHECK((static_cast<int>(op.inputs.size()) == op.max_inputs ||
           (op.max_inputs == INT_MAX && op.inputs.size() == 1)));
    CHECK(op.min_inputs <= op.max_inputs);
    CHECK(op.since_opset <= op.until_opset);
    for (const auto* ports : {&op.inputs, &op.outputs})
      for (const OpPortInfo& port : *ports) {
        CHECK_FALSE(port.name.empty());
        CHECK_FALSE(port.element_types.empty());
      }
  }
  const OpInfo* segment_max = find_op(ops, "SegmentMax", 16);
  REQUIRE(segment_max);
  CHECK(segment_max->min_inputs == 2);
  CHECK(segment_max->max_inputs == 3);
  const OpInfo* parameter = find_op(ops, "Parameter", 1);
  REQUIRE(parameter);
  REQUIRE(parameter->outputs.size() == 1);
  CHECK(has(parameter->outputs[0].element_types, ElementType::boolean));
}

TEST_CASE("Const values show in the shortest form that reads back to the same value") {
  SUBCASE("f32") {
    float values[3] = {0.2f, -1.5f, 1e-7f};
    const Model m = const_model(Tensor::view(ElementType::f32, {3}, values));
    CHECK(value_attribute(m) == "[0.2,-1.5,1e-07]");
  }
  SUBCASE("f64") {
    double values[2] = {0.1, 1.0 / 3};
    const Model m = const_model(Tensor::view(ElementType::f64, {2}, values));
    CHECK(value_attribute(m) == "[0.1,0.3333333333333333]");
  }
  SUBCASE("f16 and bf16 through their float value") {
    float16 h[2] = {float16(0.1f), float16(2.0f)};
    const Model mh = const_model(Tensor::view(ElementType::f16, {2}, h));
    // 0.1 in f16 is 0.0999755859375, whose shortest float form is 0.099975586.
    CHECK(value_attribute(mh) == "[0.099975586,2]");
    bfloat16 b[1] = {bfloat16(0.2f)};
    const Model mb = const_model(Tensor::view(ElementType::bf16, {1}, b));
    CHECK(value_attribute(mb) == "[0.20019531]");
  }
  SUBCASE("NaN has no sign") {
    float values[2] = {-std::numeric_limits<float>::quiet_NaN(),
                       std::numeric_limits<float>::infinity()};
    REQUIRE(std::signbit(values[0]));
    const Model m = const_model(Tensor::view(ElementType::f32, {2}, values));
    CHECK(value_attribute(m) == "[nan,inf]");
  }
}

TEST_CASE("a layer irlite has no op for keeps its <data> in layers()") {
  const std::string xml =
      "<?xml version=\"1.0\"?>\n<net name=\"u\" version=\"11\"><layers>"
      "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"2\" "
      "element_type=\"f32\"/><output><port id=\"0\" precision=\"FP32\"><dim>2</dim></port>"
      "</output></layer>"
      "<layer id=\"1\" name=\"act\" type=\"Scramble\" version=\"opset4\"><data beta=\"1.5\" "
      "mode=\"fast\"/><input><port id=\"0\"><dim>2</dim></port></input><output><port id=\"1\" "
      "precision=\"FP32\"><dim>2</dim></port></output></layer>"
      "<layer id=\"2\" name=\"r\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"/>"
      "</input></layer></layers><edges>"
      "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>"
      "<edge from-layer=\"1\" from-port=\"1\" to-layer=\"2\" to-port=\"0\"/></edges></net>";
  LoadOptions keep;
  keep.keep_going = true;
  const Model m = Model::load_from_memory(xml, {}, keep, "u.xml");
  REQUIRE(m.problems().size() == 1);
  CHECK(m.problems()[0].code() == ErrorCode::unsupported);
  const LayerInfo& act = m.layers()[1];
  CHECK(act.type == "Scramble");
  CHECK(act.version == 0);
  using Attribute = std::pair<std::string, std::string>;
  CHECK(act.attributes == std::vector<Attribute>{{"beta", "1.5"}, {"mode", "fast"}});
  // A layer with an op shows the op's attributes, not the raw text.
  CHECK(m.layers()[0].attributes ==
        std::vector<Attribute>{{"element_type", "f32"}, {"shape", "[2]"}});
}

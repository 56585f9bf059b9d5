// The op contract: every op's OpDef lists the element types of its inputs, and the loader refuses
// an input of any other type before the op's shape rule runs, with an error located at that
// input. One walk over supported_ops() feeds each input of each op a type its list lacks.

#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "graph/op.hpp"
#include "graph_builder.hpp"
#include "irlite/irlite.hpp"

namespace irlite::test {
namespace {

// Attributes enough for every built-in op to be created: each op reads the ones it knows.
std::vector<std::pair<std::string, std::string>> attributes_for(std::string_view type) {
  const char* mode = type == "Round"         ? "half_to_even"
                     : type == "Broadcast"   ? "numpy"
                     : type == "Interpolate" ? "nearest"
                     : type == "DepthToSpace" || type == "SpaceToDepth" ? "blocks_first"
                                                                        : "max";
  const char* eps_mode = type == "MVN" ? "inside_sqrt" : "add";
  return {
      {"axis", "0"},
      {"mode", mode},
      {"fill_mode", "lowest"},
      {"sort", "value"},
      {"destination_type", "f32"},
      {"output_type", "i64"},
      {"special_zero", "false"},
      {"keep_dims", "false"},
      {"batch_dims", "0"},
      {"min", "0"},
      {"max", "1"},
      {"begin_mask", "0"},
      {"end_mask", "0"},
      {"auto_broadcast", "numpy"},
      {"kernel", "1"},
      {"strides", "1"},
      {"dilations", "1"},
      {"pads_begin", "0"},
      {"pads_end", "0"},
      {"levels", "256"},
      {"alpha", "1"},
      {"offset", "0.5"},
      {"num_classes", "2"},
      {"keep_top_k", "1"},
      {"nms_threshold", "0.5"},
      {"axes", "0"},
      {"shape_calculation_mode", "sizes"},
      {"pad_mode", "constant"},
      {"num_splits", "1"},
      {"epsilon", "0.001"},
      {"eps", "0.001"},
      {"eps_mode", eps_mode},
  };
}

bool listed(const OpPortInfo& port, ElementType type) {
  return std::ranges::find(port.element_types, type) != port.element_types.end();
}

std::vector<ElementType> every_type() {
  std::vector<ElementType> types = numeric_types();
  types.push_back(ElementType::boolean);
  return types;
}

}  // namespace

TEST_CASE("every op refuses an input whose element type its OpDef does not list") {
  std::size_t checked = 0;
  for (const OpInfo& op : supported_ops()) {
    if (op.type == "Parameter" || op.type == "Constant" || op.type == "Result") continue;
    const int count = op.max_inputs == INT_MAX ? 2 : op.max_inputs;
    for (int wrong = 0; wrong < count; ++wrong) {
      const OpPortInfo& port = op.inputs[std::min<std::size_t>(wrong, op.inputs.size() - 1)];
      ElementType bad = ElementType::undefined;
      for (const ElementType t : every_type())
        if (!listed(port, t)) {
          bad = t;
          break;
        }
      if (bad == ElementType::undefined) continue;  // the input takes every type
      CAPTURE(op.type);
      CAPTURE(op.version);
      CAPTURE(wrong);
      GraphBuilder g;
      std::vector<GraphBuilder::Port> inputs;
      for (int i = 0; i <= std::max(wrong, op.min_inputs - 1); ++i) {
        const OpPortInfo& p = op.inputs[std::min<std::size_t>(i, op.inputs.size() - 1)];
        const ElementType type = i == wrong ? bad : p.element_types.front();
        inputs.push_back(g.parameter("in" + std::to_string(i), type, PartialShape{Dimension(2)}));
      }
      std::vector<ElementType> outs;
      for (const OpPortInfo& p : op.outputs) outs.push_back(p.element_types.front());
      const auto layer = g.layer(std::string(op.type), "opset" + std::to_string(op.since_opset),
                                 attributes_for(op.type), inputs, outs, "the_op");
      for (std::size_t k = 0; k < outs.size(); ++k) g.result(layer[k], "out" + std::to_string(k));
      try {
        // The types as given: an f16 input is not widened to f32 here.
        LoadOptions declared;
        declared.inference_precision = InferencePrecision::declared;
        (void)g.load(declared);
        FAIL("loaded with input ", wrong, " of type ", to_string(bad));
      } catch (const Error& e) {
        CAPTURE(std::string(e.what()));
        CHECK(e.code() == ErrorCode::shape);
        CHECK(e.context().layer_name == "the_op");
        CHECK(e.context().port_kind == ErrorContext::PortKind::input);
        CHECK(e.context().port == wrong);
        CHECK(std::string(e.message()).starts_with(std::string(port.name) + " must be "));
        CHECK(std::string(e.message()).ends_with("got " + std::string(to_string(bad))));
      }
      ++checked;
    }
  }
  // Every compute op has at least one input with a type list short of every type.
  CHECK(checked > 80);
}

TEST_CASE("type lists read as words in messages") {
  CHECK(describe_types(numeric_types()) == "a numeric tensor");
  CHECK(describe_types(integral_types()) == "an integer tensor");
  CHECK(describe_types(real_types()) == "a floating-point tensor");
  const std::vector<ElementType> k1 = {ElementType::i8, ElementType::i32, ElementType::i64};
  CHECK(describe_types(k1) == "i8, i32 or i64");
  const std::vector<ElementType> index = {ElementType::i32, ElementType::i64};
  CHECK(describe_types(index) == "i32 or i64");
}

}  // namespace irlite::test

// Custom ops through the public API (irlite/custom_op.hpp): registration, shape inference at
// load and run time, values, and errors located like a built-in op's.

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "irlite/irlite.hpp"
#include "tensors.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

/// Scale: y = x * factor, for f32 x of any shape.
class Scale final : public CustomOp {
 public:
  explicit Scale(float factor) : factor_(factor) {}

  std::vector<CustomOutput> infer(std::span<const CustomInput> inputs) const override {
    if (inputs[0].element_type != ElementType::f32)
      fail_input(0, fmt::format("Scale takes f32, got {}", to_string(inputs[0].element_type)));
    return {{ElementType::f32, inputs[0].shape}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs) const override {
    const auto x = inputs[0].values<float>();
    const auto y = outputs[0].values<float>();
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] * factor_;
  }

 private:
  float factor_;
};

/// Repeat: the 1-D f32 `data` repeated `count` (a scalar i64) times. The output shape depends on
/// count's value.
class Repeat final : public CustomOp {
 public:
  std::vector<CustomOutput> infer(std::span<const CustomInput> inputs) const override {
    if (inputs[0].shape.rank_is_static() && inputs[0].shape.rank() != 1)
      fail_input(0, fmt::format("data must be 1-D, got {}", to_string(inputs[0].shape)));
    if (!inputs[1].value) return {{ElementType::f32, PartialShape{Dimension::dynamic()}}};
    const std::int64_t count = integer_at(*inputs[1].value, 0);
    if (count < 0) fail_value(1, fmt::format("count must not be negative, got {}", count));
    const Dimension n = inputs[0].shape.rank_is_static() ? inputs[0].shape[0] : Dimension();
    if (!n.is_static()) return {{ElementType::f32, PartialShape{Dimension::dynamic()}}};
    return {{ElementType::f32, PartialShape{n.value() * count}}};
  }

  bool shape_needs_value(std::size_t index) const override { return index == 1; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs) const override {
    const auto x = inputs[0].values<float>();
    const auto y = outputs[0].values<float>();
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = x[i % x.size()];
  }
};

/// Fails while running, with an exception that is not an irlite::Error.
class Throws final : public CustomOp {
 public:
  std::vector<CustomOutput> infer(std::span<const CustomInput> inputs) const override {
    return {{inputs[0].element_type, inputs[0].shape}};
  }
  void execute(std::span<const Tensor>, std::span<Tensor>) const override {
    throw std::runtime_error("the device is not ready");
  }
};

/// Replaces its output with a tensor of its own instead of writing into it.
class Replaces final : public CustomOp {
 public:
  std::vector<CustomOutput> infer(std::span<const CustomInput> inputs) const override {
    return {{inputs[0].element_type, inputs[0].shape}};
  }
  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs) const override {
    outputs[0] = inputs[0].clone();
  }
};

/// Gives two outputs where one is registered.
class TwoOutputs final : public CustomOp {
 public:
  std::vector<CustomOutput> infer(std::span<const CustomInput> inputs) const override {
    return {{inputs[0].element_type, inputs[0].shape}, {inputs[0].element_type, inputs[0].shape}};
  }
  void execute(std::span<const Tensor>, std::span<Tensor>) const override {}
};

CustomOps test_ops() {
  CustomOps ops;
  ops.add({.type = "Scale", .opset = "extension", .create = [](const LayerAttributes& a) {
             return std::make_shared<Scale>(static_cast<float>(a.get_float("factor")));
           }});
  ops.add({.type = "Repeat",
           .opset = "extension",
           .version = 2,
           .min_inputs = 2,
           .max_inputs = 2,
           .create = [](const LayerAttributes&) { return std::make_shared<Repeat>(); }});
  ops.add({.type = "Throws", .opset = "extension", .create = [](const LayerAttributes&) {
             return std::make_shared<Throws>();
           }});
  ops.add({.type = "Replaces", .opset = "extension", .create = [](const LayerAttributes&) {
             return std::make_shared<Replaces>();
           }});
  ops.add({.type = "TwoOutputs", .opset = "extension", .create = [](const LayerAttributes&) {
             return std::make_shared<TwoOutputs>();
           }});
  return ops;
}

/// x (f32 `shape`) -> `type` (version `opset`, `<data>` attributes `data`) -> Result. The
/// custom layer's `<data>` is on line 8.
std::string one_input_model(std::string_view shape, std::string_view type,
                            std::string_view data = "factor=\"2.5\"",
                            std::string_view opset = "extension",
                            std::string_view precision = "FP32") {
  return fmt::format(R"(<?xml version="1.0"?>
<net name="custom" version="11">
<layers>
<layer id="0" name="x" type="Parameter" version="opset1">
<data shape="{0}" element_type="{4}"/>
<output><port id="0" precision="{4}" names="x"/></output></layer>
<layer id="1" name="op" type="{1}" version="{3}">
<data {2}/>
<input><port id="0"/></input>
<output><port id="1" precision="FP32" names="y"/></output></layer>
<layer id="2" name="y/sink_port_0" type="Result" version="opset1">
<input><port id="0"/></input></layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
</edges>
</net>
)",
                     shape, type, data, opset, precision == "FP32" ? "f32" : precision);
}

/// data (f32 `shape`) and count (a Parameter, or a Const of value 3 when `count_const`) ->
/// Repeat -> Result.
std::string repeat_model(std::string_view shape, bool count_const) {
  const std::string count = count_const
                                ? R"(<layer id="1" name="count" type="Const" version="opset1">
<data element_type="i64" shape="" offset="0" size="8"/>
<output><port id="0" precision="I64" names="count"/></output></layer>)"
                                : R"(<layer id="1" name="count" type="Parameter" version="opset1">
<data shape="" element_type="i64"/>
<output><port id="0" precision="I64" names="count"/></output></layer>)";
  return fmt::format(R"(<?xml version="1.0"?>
<net name="custom" version="11">
<layers>
<layer id="0" name="data" type="Parameter" version="opset1">
<data shape="{}" element_type="f32"/>
<output><port id="0" precision="FP32" names="data"/></output></layer>
{}
<layer id="2" name="repeat" type="Repeat" version="extension">
<input><port id="0"/><port id="1"/></input>
<output><port id="2" precision="FP32" names="y"/></output></layer>
<layer id="3" name="y/sink_port_0" type="Result" version="opset1">
<input><port id="0"/></input></layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
</edges>
</net>
)",
                     shape, count);
}

const std::int64_t kThree = 3;
const std::span<const std::byte> kThreeBytes(reinterpret_cast<const std::byte*>(&kThree), 8);

Model load(const std::string& xml, std::span<const std::byte> weights = {}) {
  LoadOptions options;
  options.custom_ops = test_ops();
  return Model::load_from_memory(xml, weights, options, "custom.xml");
}

std::vector<float> floats(const Tensor& t) {
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("custom op: built from its attributes, inferred at load, run") {
  const Model m = load(one_input_model("2,3", "Scale"));
  CHECK(to_string(m.outputs()[0].shape) == "[2,3]");
  CHECK(m.outputs()[0].element_type == ElementType::f32);
  CHECK_FALSE(m.is_dynamic());
  const LayerInfo& layer = m.layers()[1];
  CHECK(layer.type == "Scale");
  CHECK(layer.version == 1);
  CHECK(layer.opset == "extension");
  CHECK(layer.attributes == std::vector<std::pair<std::string, std::string>>{{"factor", "2.5"}});
  Session s(m);
  const auto out = s.run({{"x", tensor(ElementType::f32, {2, 3}, {1, 2, 3, -4, 0, 0.5f})}});
  CHECK(floats(out.at("y")) == std::vector<float>{2.5f, 5, 7.5f, -10, 0, 1.25f});
}

TEST_CASE("custom op: dynamic shapes at load, static ones at each run") {
  const Model m = load(one_input_model("?,3", "Scale"));
  CHECK(to_string(m.outputs()[0].shape) == "[?,3]");
  CHECK(m.is_dynamic());
  Session s(m);
  CHECK(s.run({{"x", tensor(ElementType::f32, {1, 3}, {1, 2, 3})}}).at("y").shape() == Shape{1, 3});
  const auto out = s.run({{"x", tensor(ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6})}});
  CHECK(floats(out.at("y")) == std::vector<float>{2.5f, 5, 7.5f, 10, 12.5f, 15});
  // A reshaped copy still runs the custom op.
  const Model r = m.reshape({{"x", PartialShape{1, 3}}});
  CHECK(to_string(r.outputs()[0].shape) == "[1,3]");
  CHECK(floats(Session(r).run({{"x", tensor(ElementType::f32, {1, 3}, {4, 0, -2})}}).at("y")) ==
        std::vector<float>{10, 0, -5});
}

TEST_CASE("custom op: a shape that depends on a value, a Const's at load or a Parameter's at run") {
  SUBCASE("Const count: static at load") {
    const Model m = load(repeat_model("2", true), kThreeBytes);
    CHECK(to_string(m.outputs()[0].shape) == "[6]");
    CHECK_FALSE(m.is_dynamic());
    CHECK(m.layers()[2].type == "Repeat");
    CHECK(m.layers()[2].version == 2);
    const auto out = Session(m).run({{"data", tensor(ElementType::f32, {2}, {1, 2})}});
    CHECK(floats(out.at("y")) == std::vector<float>{1, 2, 1, 2, 1, 2});
  }
  SUBCASE("Parameter count: dynamic at load, inferred from the value at run") {
    const Model m = load(repeat_model("2", false));
    CHECK(to_string(m.outputs()[0].shape) == "[?]");
    CHECK(m.is_dynamic());
    Session s(m);
    const auto out = s.run({{"data", tensor(ElementType::f32, {2}, {1, 2})},
                            {"count", ints(ElementType::i64, {}, {2})}});
    CHECK(floats(out.at("y")) == std::vector<float>{1, 2, 1, 2});
    CHECK_THROWS_WITH_AS(
        s.run({{"data", tensor(ElementType::f32, {2}, {1, 2})},
               {"count", ints(ElementType::i64, {}, {-1})}}),
        "custom.xml:10:2: layer 2 'repeat' (Repeat-2), input port 1: count must not be negative, "
        "got -1",
        Error);
  }
}

TEST_CASE("custom op: attribute errors are located at the layer's <data>") {
  const auto error = [](std::string_view data) {
    try {
      load(one_input_model("2,3", "Scale", data));
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::format);
      CHECK(e.context().line == 8);
      return std::string(e.what());
    }
    FAIL("loaded");
    return std::string();
  };
  CHECK(error("factor=\"abc\"") ==
        "custom.xml:8:2: layer 1 'op' (Scale-1): attribute 'factor' = 'abc': not a finite "
        "decimal number");
  CHECK(error("factor=\"1e999\"") ==
        "custom.xml:8:2: layer 1 'op' (Scale-1): attribute 'factor' = '1e999': not a finite "
        "decimal number");
  CHECK(error("scale=\"2\"") ==
        "custom.xml:8:2: layer 1 'op' (Scale-1): missing required attribute 'factor'");
}

TEST_CASE("custom op: shape rule and kernel errors are located like a built-in op's") {
  CHECK_THROWS_WITH_AS(load(one_input_model("2,3", "Scale", "factor=\"2\"", "extension", "i32")),
                       "custom.xml:7:2: layer 1 'op' (Scale-1), input port 0: Scale takes f32, "
                       "got i32",
                       Error);
  // An exception other than irlite::Error becomes one, with the layer's place.
  Session s(load(one_input_model("2", "Throws", "")));
  try {
    s.run({{"x", tensor(ElementType::f32, {2}, {1, 2})}});
    FAIL("ran");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::value);
    CHECK(std::string(e.what()) ==
          "custom.xml:7:2: layer 1 'op' (Throws-1): custom op failed: the device is not ready");
  }
  // The outputs are written in place, not replaced.
  CHECK_THROWS_WITH_AS(Session(load(one_input_model("2", "Replaces", "")))
                           .run({{"x", tensor(ElementType::f32, {2}, {1, 2})}}),
                       "custom.xml:7:2: layer 1 'op' (Replaces-1): the custom op replaced output 0 "
                       "instead of writing into it",
                       Error);
  // The rule must give the registered number of outputs.
  CHECK_THROWS_WITH_AS(load(one_input_model("2", "TwoOutputs", "")),
                       "custom.xml:7:2: layer 1 'op' (TwoOutputs-1): the custom shape rule gave 2 "
                       "output(s), the op has 1",
                       Error);
}

TEST_CASE("custom op: layers match the registered type and version exactly") {
  CHECK_THROWS_WITH_AS(load(one_input_model("2", "Scale", "factor=\"2\"", "opset1")),
                       "custom.xml:7:2: layer 1 'op' (Scale): custom op Scale is registered for "
                       "version 'extension', not 'opset1'",
                       Error);
  CHECK_THROWS_WITH_AS(load(one_input_model("2", "scale")),
                       doctest::Contains("unsupported op type 'scale'"), Error);
  // Without the registration the type is unknown, as any op irlite lacks.
  CHECK_THROWS_WITH_AS(Model::load_from_memory(one_input_model("2", "Scale")),
                       doctest::Contains("unsupported op type 'Scale'"), Error);
}

TEST_CASE("custom op: the model keeps what it needs of the registration") {
  Model m = [] {
    LoadOptions options;
    options.custom_ops = test_ops();
    return Model::load_from_memory(one_input_model("2", "Scale"), {}, options);
  }();
  CHECK(floats(Session(m).run({{"x", tensor(ElementType::f32, {2}, {2, 4})}}).at("y")) ==
        std::vector<float>{5, 10});
}

TEST_CASE("custom op: registrations that would be ambiguous or unusable are refused") {
  const auto factory = [](const LayerAttributes&) { return std::make_shared<Throws>(); };
  CustomOps ops;
  ops.add({.type = "Mine", .opset = "extension", .create = factory});
  const auto refused = [&](CustomOpDef def) {
    try {
      ops.add(std::move(def));
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::usage);
      return std::string(e.what());
    }
    return std::string("added");
  };
  CHECK(refused({.type = "TopK", .opset = "extension", .create = factory}) ==
        "custom op 'TopK': irlite has a built-in op of that type");
  CHECK(refused({.type = "const", .opset = "opset1", .create = factory}) ==
        "custom op 'const': irlite has a built-in op of that type");
  CHECK(refused({.type = "Mine", .opset = "extension", .create = factory}) ==
        "custom op 'Mine' is already registered for 'extension'");
  CHECK(refused({.type = "Mine", .opset = "", .create = factory}) ==
        "a custom op needs a type and an opset (the layer's version attribute)");
  CHECK(refused(
            {.type = "Other", .opset = "x", .min_inputs = 2, .max_inputs = 1, .create = factory}) ==
        "custom op 'Other': inputs 2 to 1 and 1 output(s) are not a valid count");
  CHECK(refused({.type = "Other", .opset = "x"}) == "custom op 'Other' has no factory");
  // The same type under another version is a second op.
  CHECK(refused({.type = "Mine", .opset = "extension2", .create = factory}) == "added");
  CHECK(ops.defs().size() == 2);
}

TEST_CASE("custom op: attribute getters") {
  const LayerAttributes a({{"i", " -12 "},
                           {"f", "0.25"},
                           {"b", "True"},
                           {"list", "1, -2,3"},
                           {"empty", ""},
                           {"t", "FP16"},
                           {"bad", "1,,2"}});
  CHECK(a.get_int("i") == -12);
  CHECK(a.get_int("missing", 7) == 7);
  CHECK(a.get_float("f") == 0.25);
  CHECK(a.get_float("missing", 1.5) == 1.5);
  CHECK(a.get_bool("b"));
  CHECK_FALSE(a.get_bool("missing", false));
  CHECK(a.get_ints("list") == std::vector<std::int64_t>{1, -2, 3});
  CHECK(a.get_ints("empty").empty());
  CHECK(a.get_element_type("t") == ElementType::f16);
  CHECK(a.get_string("f") == "0.25");
  CHECK(a.get_string("missing", "x") == "x");
  CHECK(a.find("missing") == nullptr);
  CHECK_THROWS_WITH_AS(a.get_ints("bad"),
                       "attribute 'bad' = '1,,2': not a comma-separated list of int64 integers",
                       Error);
  CHECK_THROWS_WITH_AS(a.get_bool("missing"), "missing required attribute 'missing'", Error);
  CHECK_THROWS_WITH_AS(a.get_int("f"), doctest::Contains("attribute 'f' = '0.25'"), Error);
}

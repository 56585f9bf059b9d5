// The loader, graph checks, shape inference plumbing and the executor, through the public API.

#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "api/model_impl.hpp"
#include "graph_builder.hpp"
#include "irlite/irlite.hpp"
#include "temp_dir.hpp"
#include "tensors.hpp"
#include "test_fifo.hpp"

using namespace irlite;

namespace {

using test::GraphBuilder;
using Port = GraphBuilder::Port;

/// A Parameter named `name` whose tensor is `<name>_tensor`, its `shape` and `element_type`
/// written as given and its port (FP32, no dims) as the reader then infers it.
Port parameter(GraphBuilder& g, const std::string& name, const std::string& shape = "1",
               const std::string& type = "f32") {
  const Port p = g.parameter(name, ElementType::f32, PartialShape::dynamic_rank());
  g.at(p).data = {{"shape", shape}, {"element_type", type}};
  g.at(p).outputs[0].names = name + "_tensor";
  return p;
}

/// A Result named `name` (no `/sink_port_0`) reading `from`, whose tensor names stay.
std::size_t result(GraphBuilder& g, Port from, const std::string& name) {
  const std::string names = g.at(from).outputs.at(from.output).names;
  const std::size_t r = g.result(from, name);
  g.at(from).outputs.at(from.output).names = names;
  g.at(r).name = name;
  return r;
}

/// A Const with id `id` named `c<id>` (tensor `c`) whose `<data>` says the element type, the
/// shape and the place in the weights as given: the weights are the test's own.
Port constant(GraphBuilder& g, std::int64_t id, const std::string& type, const std::string& shape,
              std::uint64_t offset, std::uint64_t size) {
  const Port c = g.constant("c", Tensor(ElementType::u8, {0}));
  GraphBuilder::Layer& l = g.at(c);
  l.id = id;
  l.name = "c" + std::to_string(id);
  l.data = {{"element_type", type},
            {"shape", shape},
            {"offset", std::to_string(offset)},
            {"size", std::to_string(size)}};
  l.outputs[0].shape = PartialShape::dynamic_rank();
  l.outputs[0].precision = type;
  return c;
}

/// Parameter `x` (tensor `x_tensor`) of `type` and `shape`, as written, read by a Result.
GraphBuilder identity(const std::string& type, const std::string& shape, int version = 11) {
  GraphBuilder g("test", version);
  result(g, parameter(g, "x", shape, type), "x/sink_port_0");
  return g;
}

/// Const `c0` of `type` and `shape` at [offset, offset + size) of the weights, read by a Result.
GraphBuilder const_model(const std::string& type, const std::string& shape, std::uint64_t offset,
                         std::uint64_t size) {
  GraphBuilder g;
  result(g, constant(g, 0, type, shape, offset, size), "r");
  return g;
}

/// "test.xml:<line>:<column>" of the element whose start tag begins `xml`'s first `tag`: where
/// the loader says a problem of that element is.
std::string location_of(const std::string& xml, const std::string& tag) {
  const std::size_t at = xml.find(tag);
  REQUIRE(at != std::string::npos);
  const std::size_t line_start = xml.rfind('\n', at) + 1;  // 0 when there is no newline before
  return "test.xml:" +
         std::to_string(1 + std::count(xml.begin(), xml.begin() + static_cast<long>(at), '\n')) +
         ":" + std::to_string(at - line_start + 2);
}

Model load(const std::string& xml, std::span<const std::byte> weights = {}) {
  return Model::load_from_memory(xml, weights, {}, "test.xml");
}

Model load(const GraphBuilder& g) {
  return g.load();
}

/// Loads and returns the error message; fails the test if loading succeeds.
std::string load_error(const std::string& xml, std::span<const std::byte> weights = {}) {
  try {
    load(xml, weights);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("the model loaded");
  return {};
}

/// The same for a model with the weights of its Consts' values.
std::string load_error(const GraphBuilder& g) {
  try {
    load(g);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("the model loaded");
  return {};
}

}  // namespace

TEST_CASE("IR v10 and v11 load; rt_info, unknown attributes and comments are tolerated") {
  for (int v : {10, 11}) {
    const std::string xml =
        "<?xml version=\"1.0\"?><!-- a comment --><net name=\"m\" version=\"" +
        std::to_string(v) +
        "\"><layers><layer id=\"3\" name=\"in\" type=\"Parameter\" version=\"opset8\">"
        "<data shape=\"2\" element_type=\"f32\" cacheable=\"false\"/><rt_info><attribute "
        "name=\"x\" version=\"0\" value=\"y\"/></rt_info><output><port id=\"0\" precision=\"FP32\">"
        "<dim>2</dim><rt_info/></port></output></layer><layer id=\"1\" name=\"out\" "
        "type=\"Result\" version=\"opset1\"><data/><input><port id=\"0\"/></input></layer>"
        "</layers><edges><edge from-layer=\"3\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>"
        "</edges><rt_info><Runtime_version value=\"x\"/></rt_info></net>";
    const Model m = load(xml);
    CHECK(m.ir_version() == v);
    CHECK(m.name() == "m");
    REQUIRE(m.inputs().size() == 1);
    CHECK(m.inputs()[0].name == "in");
    CHECK(m.outputs()[0].name == "out");  // no tensor names on the port: the Result's name
    CHECK(m.warnings().empty());
  }
}

TEST_CASE("Parameter shapes: static, dynamic, intervals, dynamic rank, scalar") {
  const std::pair<const char*, const char*> cases[] = {
      {"1,3,224,224", "[1,3,224,224]"}, {"?,3", "[?,3]"},     {"-1,3", "[?,3]"},
      {"1,3..5,4", "[1,3..5,4]"},       {"..200", "[..200]"}, {"120..", "[120..]"},
      {"...", "[...]"},                 {"", "[]"},           {"[2, 3]", "[2,3]"},
  };
  for (const auto& [dims, printed] : cases) {
    const auto& text = dims;  // CAPTURE cannot take a structured binding
    CAPTURE(text);
    const Model m = load(identity("f32", text));
    CHECK(to_string(m.inputs()[0].shape) == printed);
    CHECK(to_string(m.outputs()[0].shape) == printed);
    CHECK(m.is_dynamic() == (std::string(printed).find_first_of("?.") != std::string::npos));
  }
  CHECK(load_error(identity("f32", "1,,2")).find("attribute 'shape' = '1,,2'") != std::string::npos);
  CHECK(load_error(identity("f32", "1s")).find("cannot parse dimension '1s'") != std::string::npos);
}

TEST_CASE("element types in both spellings; unknown ones are located errors") {
  CHECK(load(identity("FP16", "2")).inputs()[0].element_type == ElementType::f16);
  CHECK(load(identity("boolean", "2")).inputs()[0].element_type == ElementType::boolean);
  const GraphBuilder f17 = identity("f17", "2");
  const std::string e = load_error(f17);
  // Located at the <data> element that holds the attribute.
  CHECK(e.find(location_of(f17.xml(), "<data shape=\"2\" element_type=\"f17\"") + ":") == 0);
  CHECK(e.find("layer 0 'x' (Parameter-1)") != std::string::npos);
  CHECK(e.find("attribute 'element_type' = 'f17': unknown element type") != std::string::npos);
}

namespace {

/// The error loading `g` throws; fails the test if loading succeeds.
Error load_failure(const GraphBuilder& g) {
  try {
    load(g);
  } catch (const Error& e) {
    return e;
  }
  FAIL("the model loaded");
  return Error(ErrorCode::usage, "");
}

/// An f32 Parameter `x` [2] whose port says `precision`, read by a Result.
GraphBuilder port_precision(const std::string& precision) {
  GraphBuilder g;
  const Port x = parameter(g, "x", "2");
  g.at(x).outputs[0].precision = precision;
  result(g, x, "r");
  return g;
}

}  // namespace

TEST_CASE("valid IR element types irlite lacks are unsupported, not unknown") {
  for (const std::string type : {"u1", "u4", "i4", "nf4", "f8e4m3", "f8e5m2", "string", "dynamic",
                                 "U4", "NF4", "F8E4M3", "BIN"}) {
    CAPTURE(type);
    const Error e = load_failure(identity(type, "2"));
    CHECK(e.code() == ErrorCode::unsupported);
    CHECK(e.context().layer_id == 0);
    CHECK(std::string(e.what()).find("layer 0 'x' (Parameter-1): attribute 'element_type' = '" +
                                     type + "': unsupported element type '" + type + "'") !=
          std::string::npos);
    // The same word as a port's precision.
    const Error p = load_failure(port_precision(type));
    CHECK(p.code() == ErrorCode::unsupported);
    CHECK(p.context().port_kind == ErrorContext::PortKind::output);
    CHECK(p.context().port == 0);
    CHECK(p.message() == "unsupported element type '" + type + "'");
  }
  // Words that are no IR type stay format errors, in both places.
  for (const std::string type : {"f17", "u5", "fp32", "nf8", "F8E4M3FN"}) {
    CAPTURE(type);
    CHECK(load_failure(identity(type, "2")).code() == ErrorCode::format);
    const Error p = load_failure(port_precision(type));
    CHECK(p.code() == ErrorCode::format);
    CHECK(p.message() == "unknown precision '" + type + "'");
  }
}

TEST_CASE("malformed XML, wrong root and IR versions are refused") {
  CHECK(load_error("<net version=\"11\"><layers></net>").find("test.xml:1:") == 0);
  CHECK(load_error("<net version=\"11\"><layers></net>").find("malformed XML") != std::string::npos);
  CHECK(load_error("<model version=\"11\"/>").find("root element is <model>") != std::string::npos);
  CHECK(load_error(identity("f32", "2", 9)).find("unsupported IR version '9'") != std::string::npos);
  CHECK(load_error("<net><layers/></net>").find("no version attribute") != std::string::npos);
  CHECK(load_error("").find("malformed XML") != std::string::npos);
}

TEST_CASE("layers: mandatory attributes, duplicate ids, unknown ops and versions") {
  GraphBuilder no_id;
  no_id.raw_layer("<layer name=\"a\" type=\"Parameter\" version=\"opset1\"/>");
  CHECK(load_error(no_id).find("missing the mandatory attribute 'id'") != std::string::npos);
  GraphBuilder twice;
  const Port a = parameter(twice, "a");
  twice.at(parameter(twice, "b")).id = 0;
  result(twice, a, "r");
  CHECK(load_error(twice).find("duplicate layer id 0") != std::string::npos);
  GraphBuilder no_such_op;
  result(no_such_op,
         no_such_op.layer("NoSuchOp", "opset5", {}, {parameter(no_such_op, "a")},
                          {ElementType::f32}, "r")[0],
         "out");
  const std::string unknown = load_error(no_such_op);
  CHECK(unknown.find("layer 1 'r' (NoSuchOp)") != std::string::npos);
  // The message names the type alone: the list of what irlite has is supported_ops()'s.
  CHECK(unknown.ends_with("unsupported op type 'NoSuchOp'"));
  GraphBuilder opset99;
  const Port p = parameter(opset99, "a");
  opset99.at(p).version = "opset99";
  result(opset99, p, "out");
  const std::string opset = load_error(opset99);
  CHECK(opset.find("unsupported version 'opset99'") != std::string::npos);
  CHECK(opset.find("Parameter-1 (opset1)") != std::string::npos);
}

TEST_CASE("edges: missing layers and ports, ports fed twice or never, cycles, no Result") {
  // Parameter 0 and Result 1, with only the edge given.
  const auto with_edge = [](std::int64_t from, std::int64_t from_port, std::int64_t to,
                            std::int64_t to_port) {
    GraphBuilder g;
    result(g, parameter(g, "a"), "out");
    g.edges_from_inputs(false);
    g.edge(from, from_port, to, to_port);
    return g;
  };
  CHECK(load_error(with_edge(0, 0, 7, 0)).find("edge to layer 7, which does not exist") !=
        std::string::npos);
  CHECK(load_error(with_edge(5, 0, 1, 0)).find("edge from layer 5, which does not exist") !=
        std::string::npos);
  CHECK(load_error(with_edge(0, 3, 1, 0)).find("output port 3, which the layer does not have") !=
        std::string::npos);
  const std::string bad_in = load_error(with_edge(0, 0, 1, 4));
  CHECK(bad_in.find("layer 1 'out' (Result-1)") != std::string::npos);
  CHECK(bad_in.find("input port 4, which the layer does not have") != std::string::npos);
  GraphBuilder no_edge;
  result(no_edge, parameter(no_edge, "a"), "out");
  no_edge.edges_from_inputs(false);
  const std::string unfed = load_error(no_edge);
  CHECK(unfed.find("layer 1 'out' (Result-1), input port 0: input port is not fed") !=
        std::string::npos);
  GraphBuilder fed_twice;
  result(fed_twice, parameter(fed_twice, "a"), "out");
  fed_twice.edge(static_cast<std::int64_t>(parameter(fed_twice, "b").layer), 0, 1, 0);
  const std::string twice = load_error(fed_twice);
  CHECK(twice.find("input port 0: port is fed twice") != std::string::npos);
  GraphBuilder no_result;
  parameter(no_result, "a");
  CHECK(load_error(no_result).find("no Result layer") != std::string::npos);
  // Two Results feeding each other through made-up outputs would not be valid IR; a cycle needs
  // ops with inputs and outputs: use layers of an unknown type and collect every problem.
  GraphBuilder loop;
  const Port p = loop.layer("Foo", "opset1", {}, {Port{1, 0}}, {ElementType::f32}, "p")[0];
  const Port q = loop.layer("Foo", "opset1", {}, {p}, {ElementType::f32}, "q")[0];
  const std::size_t out = result(loop, q, "out");
  loop.at(p).id = 5;
  loop.at(q).id = 6;
  loop.at(out).id = 7;
  LoadOptions keep;
  keep.keep_going = true;
  const Model m = loop.load(keep);
  bool cycle = false;
  for (const Error& e : m.problems())
    cycle |= std::string(e.what()).find("on a cycle: 5 'p' -> 6 'q' -> 5 'p'") != std::string::npos ||
             std::string(e.what()).find("on a cycle: 6 'q' -> 5 'p' -> 6 'q'") != std::string::npos;
  CHECK(cycle);
  // The unknown type, once for its two layers, and the cycle.
  CHECK(m.problems().size() == 2);
  CHECK(std::string(m.problems()[0].what()).find("(2 layers have it; this is the first)") !=
        std::string::npos);
  CHECK_THROWS_AS(Session{m}, Error);
}

TEST_CASE("output ports: precision is mandatory, dims are integers >= -1") {
  CHECK(load_error(port_precision("FP99")).find("output port 0: unknown precision 'FP99'") !=
        std::string::npos);
  GraphBuilder g;
  const Port a = parameter(g, "a");
  g.at(a).outputs[0].dims = "<dim>-2</dim>";
  result(g, a, "r");
  CHECK(load_error(g).find("dimension '-2' must be an integer >= -1") != std::string::npos);
}

TEST_CASE("declared dims that contradict inference are warnings") {
  // The Parameter [2,3] (or [2..8,3]) whose port declares these dims.
  const auto declared = [](const std::string& shape, const PartialShape& dims) {
    GraphBuilder g;
    const Port a = parameter(g, "a", shape);
    g.declare(a, ElementType::f32, dims);
    result(g, a, "r");
    return g;
  };
  const Model m = load(declared("2,3", PartialShape{2, 4}));
  REQUIRE(m.warnings().size() == 1);
  CHECK(std::string(m.warnings()[0].what()).find("output port 0: the IR declares f32 [2,4] but "
                                                 "irlite infers f32 [2,3]") != std::string::npos);
  CHECK(m.layers()[0].outputs[0].declared_differs);
  // -1 for an interval dimension is how OpenVINO writes it: no warning.
  const Model ok = load(declared("2..8,3", PartialShape{Dimension(2, 8), 3}));
  CHECK(ok.warnings().empty());
}

TEST_CASE("layers that reach no Result are reported and not run") {
  std::vector<std::byte> w(4);
  GraphBuilder g;
  const Port a = parameter(g, "a");
  constant(g, 2, "f32", "1", 0, 4);
  g.at(result(g, a, "r")).id = 1;
  const Model m = load(g.xml(), w);
  REQUIRE(m.warnings().size() == 1);
  CHECK(std::string(m.warnings()[0].what()).find("layer 2 'c2' (Constant-1): the layer reaches no Result") !=
        std::string::npos);
  CHECK_FALSE(m.layers()[1].reaches_result);
  Session s(m);
  float x = 1.5f;
  CHECK(s.run({{"a", Tensor::view(ElementType::f32, {1}, &x)}}).size() == 1);
}

TEST_CASE("a layer that reaches no Result does not reject the model with its shape rule") {
  // A TopK over a Const of 3 values with a Const k of 5: refused when its values are an output,
  // loaded and run when nothing reads them.
  const auto model = [](bool live) {
    GraphBuilder g;
    const Port data = g.constant("c0", test::tensor(ElementType::f32, {3}, {1, 3, 2}));
    const Port k = g.constant("c1", test::ints(ElementType::i64, {}, {5}));
    const std::vector<Port> topk =
        g.layer("TopK", "opset11",
                {{"axis", "0"}, {"mode", "max"}, {"sort", "value"}, {"index_element_type", "i32"}},
                {data, k}, {ElementType::f32, ElementType::i32}, "dead_topk");
    g.declare(topk[0], ElementType::f32, PartialShape{5});
    g.declare(topk[1], ElementType::i32, PartialShape{5});
    const Port x = parameter(g, "x", "2");
    result(g, live ? topk[0] : x, "r");
    return g;
  };
  const Model m = load(model(false));
  CHECK(m.problems().empty());
  const LayerInfo& dead = m.layers()[2];
  CHECK(dead.name == "dead_topk");
  CHECK_FALSE(dead.reaches_result);
  // Its rule's refusal is a warning, its outputs unknown.
  CHECK(to_string(dead.outputs[0].shape) == "[...]");
  CHECK(dead.outputs[1].element_type == ElementType::undefined);
  int warnings = 0;
  for (const Error& e : m.warnings()) {
    if (e.context().layer_id != 2) continue;
    ++warnings;
    const std::string what = e.what();
    CHECK((e.message() == "the layer reaches no Result and is not run" ||
           what.find("layer 2 'dead_topk' (TopK-11), input port 1: the layer reaches no Result; "
                     "its shape rule would refuse it: ") != std::string::npos));
  }
  CHECK(warnings == 2);
  float x[2] = {4.0f, 5.0f};
  const auto out = Session(m).run({{"x", Tensor::view(ElementType::f32, {2}, x)}});
  CHECK(out.at("x_tensor").values<float>()[1] == 5.0f);
  // The same TopK feeding a Result is checked.
  const std::string live = load_error(model(true));
  CHECK(live.find("layer 2 'dead_topk' (TopK-11)") != std::string::npos);
}

TEST_CASE("Const: weights bounds, sizes and the missing .bin") {
  std::vector<std::byte> w(16);
  const auto model = [](std::uint64_t offset, std::uint64_t size, const std::string& shape = "2") {
    return const_model("i32", shape, offset, size).xml();
  };
  CHECK_NOTHROW(load(model(8, 8), w));
  CHECK(load_error(model(12, 8), w).find("needs bytes [12, 20) but the weights buffer has 16 bytes") !=
        std::string::npos);
  CHECK(load_error(model(18446744073709551615ull, 8), w).find("needs bytes") != std::string::npos);
  CHECK(load_error(model(0, 4), w).find("size 4 is too small for shape [2] of i32 (8 bytes needed)") !=
        std::string::npos);
  CHECK(load_error(model(0, 8)).find("no weights file") != std::string::npos);
  CHECK(load_error(model(0, 8, "4294967296,4294967296"), w).find("element count overflows") !=
        std::string::npos);
  // A Const that needs no bytes loads without weights, also when its other extents multiply
  // past int64: a zero extent anywhere makes it empty.
  CHECK_NOTHROW(load(model(0, 0, "0")));
  const std::int64_t big = std::int64_t{1} << 62;
  for (const Shape& shape : {Shape{0, big, big}, Shape{big, big, 0}}) {
    const std::string text = std::to_string(shape[0]) + "," + std::to_string(shape[1]) + "," +
                             std::to_string(shape[2]);
    CAPTURE(text);
    const auto out = Session(load(model(0, 0, text))).run({});
    CHECK(out.at("c").size() == 0);
    CHECK(out.at("c").shape() == shape);
  }
  LoadOptions keep;
  keep.keep_going = true;
  const Model m = Model::load_from_memory(model(0, 8), {}, keep, "test.xml");
  CHECK(m.problems().empty());
  REQUIRE(m.warnings().size() == 1);
  CHECK(std::string(m.warnings()[0].what()).find("no weights file") != std::string::npos);
  CHECK(to_string(m.outputs()[0].shape) == "[2]");
}

TEST_CASE("Const data are views into the weights when aligned") {
  alignas(8) std::int32_t values[3] = {7, -8, 9};
  const std::span<const std::byte> w(reinterpret_cast<const std::byte*>(values), sizeof values);
  const Model m = load(const_model("i32", "2", 4, 8).xml(), w);
  // The Const's value is a view; a Result fed by it gets a copy, so writing to an output never
  // touches the weights.
  CHECK(detail::ModelAccess::impl(m).graph.nodes[0].value.data() ==
        static_cast<const void*>(values + 1));
  Session s(m);
  auto out = s.run({});
  Tensor& t = out.at("c");
  CHECK(t.data() != static_cast<const void*>(values + 1));
  CHECK(t.values<std::int32_t>()[0] == -8);
  t.data<std::int32_t>()[0] = 5;
  CHECK(values[1] == -8);
  CHECK(m.layers()[0].attributes.back() == std::pair<std::string, std::string>{"value", "[-8,9]"});
  // An unaligned Const is copied, with the same values.
  std::vector<std::byte> odd(9);
  std::memcpy(odd.data() + 1, values, 8);
  const Model u = load(const_model("i32", "2", 1, 8).xml(), odd);
  const auto out2 = Session(u).run({});
  CHECK(out2.at("c").values<std::int32_t>()[1] == -8);
}

TEST_CASE("boolean Consts are normalised at load: any non-zero byte is 1") {
  const std::vector<std::byte> w{std::byte{2}, std::byte{0}, std::byte{255}, std::byte{1},
                                 std::byte{0}, std::byte{1}};
  const Model m = load(const_model("boolean", "3", 0, 3).xml(), w);
  const auto out = Session(m).run({});
  const Tensor& t = out.at("c");
  REQUIRE(t.size() == 3);
  const auto* bytes = static_cast<const std::uint8_t*>(t.data());
  CHECK(bytes[0] == 1);
  CHECK(bytes[1] == 0);
  CHECK(bytes[2] == 1);
  const auto* held =
      static_cast<const std::uint8_t*>(detail::ModelAccess::impl(m).graph.nodes[0].value.data());
  CHECK(held[0] == 1);
  CHECK(held[2] == 1);
  // The weights themselves are not written to.
  CHECK(w[0] == std::byte{2});
  // Bytes that are already 0 and 1 are viewed in place.
  const Model ok = load(const_model("boolean", "3", 3, 3).xml(), w);
  CHECK(detail::ModelAccess::impl(ok).graph.nodes[0].value.data() ==
        static_cast<const void*>(w.data() + 3));
}

TEST_CASE("files: the .bin next to the .xml, an explicit weights path, a missing file") {
  const test::TempDir temp("irlite_loader_test");
  const std::filesystem::path& dir = temp.path;
  std::ofstream(dir / "m.xml") << const_model("i64", "", 0, 8).xml();
  const std::int64_t v = 42;
  std::ofstream(dir / "m.bin", std::ios::binary).write(reinterpret_cast<const char*>(&v), 8);
  CHECK(Session(Model::load(dir / "m.xml")).run({}).at("c").values<std::int64_t>()[0] == 42);
  std::filesystem::rename(dir / "m.bin", dir / "other.bin");
  try {
    Model::load(dir / "m.xml");
    FAIL("loaded without weights");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::io);
    CHECK(std::string(e.what()).find("looked for " + (dir / "m.bin").string()) != std::string::npos);
  }
  LoadOptions opts;
  opts.weights = dir / "other.bin";
  CHECK(Session(Model::load(dir / "m.xml", opts)).run({}).at("c").values<std::int64_t>()[0] == 42);
  CHECK_THROWS_AS(Model::load(dir / "missing.xml"), Error);
}

namespace {

/// Writes `values` as the whole of `path`, as `cp` does: truncated first, then written.
void write_bin(const std::filesystem::path& path, const std::vector<float>& values) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(values.data()),
             static_cast<std::streamsize>(values.size() * sizeof(float)));
}

std::vector<float> run_floats(const Model& m) {
  const auto out = Session(m).run({});
  const auto v = out.at("c").values<float>();
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("copied weights are a snapshot: the .bin may be truncated or rewritten after load") {
  const test::TempDir temp("irlite_loader_snapshot");
  const std::filesystem::path& dir = temp.path;
  std::ofstream(dir / "m.xml") << const_model("f32", "4", 0, 16).xml();
  const std::vector<float> old_values{1, 2, 3, 4}, new_values{5, 6, 7, 8};
  // A small file is copied by default too.
  for (const WeightsMode mode : {WeightsMode::copy, WeightsMode::automatic}) {
    CAPTURE(static_cast<int>(mode));
    write_bin(dir / "m.bin", old_values);
    LoadOptions options;
    options.weights_mode = mode;
    const Model m = Model::load(dir / "m.xml", options);
    // Emptied (reading a mapping past the file's end would raise SIGBUS), then rewritten.
    std::filesystem::resize_file(dir / "m.bin", 0);
    CHECK(run_floats(m) == old_values);
    write_bin(dir / "m.bin", new_values);
    CHECK(run_floats(m) == old_values);
    CHECK(m.layers()[0].attributes.back() ==
          std::pair<std::string, std::string>{"value", "[1,2,3,4]"});
    // A fresh load reads the new file.
    CHECK(run_floats(Model::load(dir / "m.xml", options)) == new_values);
  }
  // A mapped file is read where it lies: bytes rewritten in place are seen by the next run, as
  // the map mode's contract says.
  write_bin(dir / "m.bin", old_values);
  LoadOptions map;
  map.weights_mode = WeightsMode::map;
  const Model mapped = Model::load(dir / "m.xml", map);
  CHECK(run_floats(mapped) == old_values);
  {
    std::fstream f(dir / "m.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.write(reinterpret_cast<const char*>(new_values.data()), 16);
  }
  CHECK(run_floats(mapped) == new_values);
  // Replacing the file by a rename leaves the mapping on the old one.
  write_bin(dir / "next.bin", {9, 9, 9, 9});
  std::filesystem::rename(dir / "next.bin", dir / "m.bin");
  CHECK(run_floats(mapped) == new_values);
}

TEST_CASE("load_from_memory with a keep-alive holds the weights for as long as they are used") {
  const std::string xml = const_model("f32", "4", 0, 16).xml();
  auto bytes = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4});
  const std::weak_ptr<std::vector<float>> watch = bytes;
  const std::span<const std::byte> view = std::as_bytes(std::span<const float>(*bytes));
  {
    const Model m = Model::load_from_memory(xml, bytes, view, {}, "test.xml");
    // The Const views the caller's bytes, which the model now keeps.
    CHECK(detail::ModelAccess::impl(m).graph.nodes[0].value.data() ==
          static_cast<const void*>(view.data()));
    bytes.reset();
    CHECK_FALSE(watch.expired());
    // Freed bytes would be a use after free under the sanitizers.
    CHECK(run_floats(m) == std::vector<float>{1, 2, 3, 4});
    const Model copy = m;
    CHECK(run_floats(copy) == std::vector<float>{1, 2, 3, 4});
  }
  // Nothing holds them once the model is gone.
  CHECK(watch.expired());
  // Without weights a keep-alive is simply kept.
  CHECK_NOTHROW(Model::load_from_memory(identity("f32", "2").xml(), nullptr, {}, {}, "test.xml"));
}

TEST_CASE("Parameter -> Result round-trips every element type without copying") {
  for (const char* type : {"f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16",
                           "u32", "u64", "boolean"}) {
    CAPTURE(type);
    const ElementType et = *parse_element_type(type);
    const Model m = load(identity(type, "2,3"));
    CHECK(m.inputs()[0].element_type == et);
    Tensor in(et, {2, 3});
    auto* bytes = static_cast<unsigned char*>(in.data());
    for (std::size_t i = 0; i < in.byte_size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 1);
    const auto out = Session(m).run({{"x", in}});
    const Tensor& t = out.at("x_tensor");
    CHECK(t.element_type() == et);
    CHECK(t.shape() == Shape{2, 3});
    CHECK(t.data() == in.data());
  }
}

TEST_CASE("Const -> Result round-trips every element type") {
  for (const char* type : {"f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16",
                           "u32", "u64", "boolean"}) {
    CAPTURE(type);
    const ElementType et = *parse_element_type(type);
    const std::size_t bytes = 3 * element_size(et);
    alignas(8) std::byte w[24];
    // Booleans are 0 and 1: other bytes are normalised (tested on their own).
    for (std::size_t i = 0; i < bytes; ++i)
      w[i] = static_cast<std::byte>(et == ElementType::boolean ? i % 2 : i * 13 + 5);
    const Model m =
        load(const_model(type, "3", 0, bytes).xml(), std::span<const std::byte>(w, bytes));
    const Tensor t = Session(m).run({}).at("c");
    CHECK(t.element_type() == et);
    CHECK(std::memcmp(t.data(), w, bytes) == 0);
  }
}

TEST_CASE("dynamic Parameters take inputs of different sizes in successive runs") {
  const Model m = load(identity("i32", "?,2..3"));
  Session s(m);
  for (std::int64_t rows : {1, 4, 0, 7}) {
    Tensor in(ElementType::i32, {rows, 3});
    const auto out = s.run({{"x_tensor", in}});
    CHECK(out.at("x_tensor").shape() == Shape{rows, 3});
  }
  const auto rejects = [&](Tensor in, const std::string& what) {
    try {
      s.run({{"x", in}});
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::input);
      CHECK(std::string(e.what()).find(what) != std::string::npos);
    }
  };
  rejects(Tensor(ElementType::i32, {2, 4}), "input 'x' expects i32 [?,2..3], got i32 [2,4]");
  rejects(Tensor(ElementType::f32, {2, 3}), "expects i32 [?,2..3], got f32 [2,3]");
  rejects(Tensor(ElementType::i32, {6}), "got i32 [6]");
  CHECK_THROWS_WITH_AS(s.run({}), doctest::Contains("input 'x' is not given"), Error);
  CHECK_THROWS_WITH_AS(s.run({{"y", Tensor(ElementType::i32, {1, 3})}}),
                       doctest::Contains("the model has no input 'y' (inputs: x)"), Error);
}

TEST_CASE("reshape sets input shapes and infers again") {
  const Model m = load(identity("f32", "?,3"));
  const Model r = m.reshape({{"x", PartialShape{5, 3}}});
  CHECK(to_string(r.inputs()[0].shape) == "[5,3]");
  CHECK(to_string(r.outputs()[0].shape) == "[5,3]");
  CHECK_FALSE(r.is_dynamic());
  CHECK(to_string(m.inputs()[0].shape) == "[?,3]");  // the original is unchanged
  CHECK(to_string(m.reshape({{"x_tensor", PartialShape{Dimension(2, 4), 3}}}).outputs()[0].shape) ==
        "[2..4,3]");
  CHECK_THROWS_WITH_AS(m.reshape({{"nope", PartialShape{1}}}), doctest::Contains("no input 'nope'"),
                       Error);
}

TEST_CASE("keep_going collects every problem in one pass") {
  LoadOptions keep;
  keep.keep_going = true;
  GraphBuilder g;
  const Port a = parameter(g, "a", "1", "f99");
  const Port b = parameter(g, "b", "1x");
  result(g, a, "r");
  result(g, b, "s");
  const Model m = g.load(keep);
  CHECK(m.problems().size() == 2);
  CHECK_THROWS_WITH_AS(Session{m}, doctest::Contains("cannot run a model that failed to load"), Error);
}

TEST_CASE("keep_going reports each unsupported op type once, at its first layer, with a count") {
  // A chain a -> Conv -> Pool -> Conv -> Conv -> r: two types irlite lacks, in four layers.
  GraphBuilder g;
  Port chain = parameter(g, "a");
  for (const char* type : {"Conv", "Pool", "Conv", "Conv"})
    chain =
        g.layer(type, "opset1", {}, {chain}, {ElementType::f32}, "l" + std::to_string(g.size()))[0];
  result(g, chain, "r");
  LoadOptions keep;
  keep.keep_going = true;
  const Model m = g.load(keep);
  REQUIRE(m.problems().size() == 2);
  CHECK(m.problems()[0].code() == ErrorCode::unsupported);
  CHECK(m.problems()[0].context().layer_id == 1);
  CHECK(std::string(m.problems()[0].what())
            .ends_with("layer 1 'l1' (Conv): unsupported op type 'Conv' (3 layers have it; this "
                       "is the first)"));
  CHECK(m.problems()[1].context().layer_id == 2);
  CHECK(std::string(m.problems()[1].what()).ends_with("unsupported op type 'Pool'"));
  // Without keep_going the first layer stops the load, with the same message and no count.
  CHECK(load_error(g).ends_with("layer 1 'l1' (Conv): unsupported op type 'Conv'"));
}

TEST_CASE("outputs keep distinct names when Results share a tensor") {
  GraphBuilder g;
  const Port x = parameter(g, "x", "2");
  result(g, x, "first");
  result(g, x, "second");
  const Model m = load(g);
  REQUIRE(m.outputs().size() == 2);
  CHECK(m.outputs()[0].name == "x_tensor");
  CHECK(m.outputs()[1].name == "second");
  float v[2] = {1, 2};
  CHECK(Session(m).run({{"x", Tensor::view(ElementType::f32, {2}, v)}}).size() == 2);
}

TEST_CASE("reshape keeps the loader's file warnings") {
  LoadOptions keep;
  keep.keep_going = true;
  GraphBuilder g;
  const Port x = parameter(g, "x", "?");
  const Port c = constant(g, 2, "f32", "1", 0, 4);
  g.at(result(g, x, "r")).id = 1;
  result(g, c, "s");
  const Model m = g.load(keep);
  REQUIRE(m.warnings().size() == 1);
  const Model r = m.reshape({{"x", PartialShape{3}}});
  REQUIRE(r.warnings().size() == 1);
  CHECK(r.warnings()[0].code() == ErrorCode::io);
}

TEST_CASE("port ids are unsigned integers used once per layer") {
  // The layers wired as usual, written with these port ids.
  GraphBuilder twice;
  const Port a = parameter(twice, "a");
  twice.at(a).raw =
      "<layer id=\"0\" name=\"a\" type=\"Parameter\" version=\"opset1\"><data shape=\"1\" "
      "element_type=\"f32\"/><output><port id=\"0\" precision=\"FP32\"/><port id=\"0\" "
      "precision=\"FP32\"/></output></layer>";
  result(twice, a, "r");
  const std::string dup = load_error(twice);
  CHECK(dup.find("port id 0 is used twice") != std::string::npos);
  GraphBuilder named;
  named.at(result(named, parameter(named, "a"), "r")).raw =
      "<layer id=\"1\" name=\"r\" type=\"Result\" version=\"opset1\"><input><port id=\"x\"/>"
      "</input></layer>";
  const std::string bad = load_error(named);
  CHECK(bad.find("layer 1 'r' (Result-1): input port id 'x' is not an unsigned integer") !=
        std::string::npos);
}

TEST_CASE("keep_going on a graph with an unfed port reports it and refuses to run") {
  LoadOptions keep;
  keep.keep_going = true;
  GraphBuilder g;
  result(g, parameter(g, "a"), "out");
  g.edges_from_inputs(false);
  const Model m = g.load(keep);
  REQUIRE(m.problems().size() == 1);
  CHECK(std::string(m.problems()[0].what()).find("not fed by any edge") != std::string::npos);
  CHECK_THROWS_AS(Session{m}, Error);
}

TEST_CASE("a keep_going model whose Consts lack weights cannot run") {
  LoadOptions keep;
  keep.keep_going = true;
  const Model m = const_model("f32", "2", 0, 8).load(keep);
  CHECK(m.problems().empty());
  CHECK_THROWS_WITH_AS(Session{m}, doctest::Contains("Consts have no weights"), Error);
}

TEST_CASE("reshape and run resolve input names alike; duplicate input names are told apart") {
  // Parameter 'a' has tensor name 'b'; Parameter 'b' exists too: the layer name wins.
  GraphBuilder two;
  const Port a = parameter(two, "a", "?");
  two.at(a).outputs[0].names = "b";
  const Port b = parameter(two, "b", "?");
  result(two, a, "ra");
  result(two, b, "rb");
  const Model m = load(two);
  CHECK(m.find_input("b") == 1);
  CHECK(m.find_input("a") == 0);
  CHECK_FALSE(m.find_input("zz"));
  const Model r = m.reshape({{"b", PartialShape{4}}});
  CHECK(to_string(r.inputs()[0].shape) == "[?]");
  CHECK(to_string(r.inputs()[1].shape) == "[4]");
  CHECK_THROWS_WITH_AS(m.reshape({{"b", PartialShape{Dimension(5, 2)}}}),
                       doctest::Contains("empty interval"), Error);
  // -1 is dynamic, as in the IR.
  CHECK(to_string(m.reshape({{"a", PartialShape{-1}}}).inputs()[0].shape) == "[?]");

  GraphBuilder same;
  const Port x1 = parameter(same, "x");
  const Port x2 = parameter(same, "x");
  result(same, x1, "r1");
  result(same, x2, "r2");
  const Model dup = load(same);
  REQUIRE(dup.inputs().size() == 2);
  CHECK(dup.inputs()[1].name == "x_2");
  CHECK(std::string(dup.warnings().at(0).what()).find("this one is input 'x_2'") != std::string::npos);
  float v[1] = {1};
  CHECK(Session(dup).run({{"x", Tensor::view(ElementType::f32, {1}, v)},
                          {"x_2", Tensor::view(ElementType::f32, {1}, v)}})
            .size() == 2);
}

TEST_CASE("opset names are opset followed by plain digits") {
  for (const char* bad : {"opset+1", "opset 1", "opset01", "opset", "opset1x", "Opset1"}) {
    CAPTURE(bad);
    GraphBuilder g;
    const Port a = parameter(g, "a");
    g.at(a).version = bad;
    result(g, a, "out");
    CHECK(load_error(g).find("unsupported version") != std::string::npos);
  }
}

TEST_CASE("a directory is not a model file") {
  CHECK_THROWS_WITH_AS(Model::load(std::filesystem::temp_directory_path()),
                       doctest::Contains("is a directory, not a model file"), Error);
}

namespace {

/// `n` Parameters (named `x`, or `x0`, `x1`... when `distinct`) feeding one WideOp, a layer
/// irlite lacks, with `n` input ports; `n` Results named `out` read its output (tensor `y`).
std::string wide_model(int n, bool distinct) {
  GraphBuilder g;
  std::vector<Port> inputs;
  for (int i = 0; i < n; ++i)
    inputs.push_back(parameter(g, distinct ? "x" + std::to_string(i) : "x"));
  const Port y =
      g.layer("WideOp", "opset1", {{"axis", "0"}}, inputs, {ElementType::f32}, "concat")[0];
  g.at(y).outputs[0].names = "y";
  g.declare(y, ElementType::f32, PartialShape{n});
  for (int i = 0; i < n; ++i) result(g, y, "out");
  return g.xml();
}

/// The least CPU time of three calls of f, in seconds.
template <class F>
double cpu_seconds(F f) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    timespec t0{}, t1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    f();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    best = std::min(best, static_cast<double>(t1.tv_sec - t0.tv_sec) +
                              static_cast<double>(t1.tv_nsec - t0.tv_nsec) * 1e-9);
  }
  return best;
}

/// A Result with n input ports all fed by one Parameter, and one port id used twice.
std::string many_ports_model(int n) {
  GraphBuilder g;
  const Port x = parameter(g, "x");
  GraphBuilder::Layer& r = g.at(result(g, x, "r"));
  r.inputs.assign(static_cast<std::size_t>(n), x);
  // The ports as the wiring has them, and port 77 again.
  r.raw = "<layer id=\"1\" name=\"r\" type=\"Result\" version=\"opset1\"><input>";
  for (int i = 0; i < n; ++i) r.raw += "<port id=\"" + std::to_string(i) + "\"/>";
  r.raw += "<port id=\"77\"/></input></layer>";
  return g.xml();
}

}  // namespace

// Each shape below once took time quadratic (or cubic) in its size. Loading eight times as much
// must take about eight times as long. Per element, a larger load costs more even when linear
// (its memory is fresh pages and misses the caches: measured 1.8x more per element at 10^5 than
// at 10^5/8), so the bound, 32x, sits halfway in ratio between that (about 14x) and the 64x of a
// quadratic load. CPU time, the best of three. The sanitizers' build, many times slower, loads a
// fifth as much.
TEST_CASE("wide layers load in time linear in their size") {
#if defined(__SANITIZE_ADDRESS__)
  constexpr int n = 20000;
#else
  constexpr int n = 100000;
#endif
  LoadOptions keep;
  keep.keep_going = true;
  const auto ratio = [&](auto make) {
    const std::string small = make(n / 8), large = make(n);
    const double t_small = cpu_seconds([&] { Model::load_from_memory(small, {}, keep, "s.xml"); });
    const double t_large = cpu_seconds([&] { Model::load_from_memory(large, {}, keep, "l.xml"); });
    return t_large / std::max(t_small, 1e-6);
  };
  CHECK(ratio([](int k) { return wide_model(k, false); }) < 32.0);  // one name for every input
  CHECK(ratio([](int k) { return wide_model(k, true); }) < 32.0);
  CHECK(ratio(many_ports_model) < 32.0);
}

// The same shapes at 10^5 load with the right names and problems.
TEST_CASE("10^5 inputs, outputs and ports of one layer load with the right names and problems") {
#if defined(__SANITIZE_ADDRESS__)
  constexpr int n = 20000;
#else
  constexpr int n = 100000;
#endif
  const std::string last = std::to_string(n);
  LoadOptions keep;
  keep.keep_going = true;
  for (const bool distinct : {false, true}) {
    CAPTURE(distinct);
    // WideOp is not an irlite op: the model loads with that one problem (and, having a problem,
    // without a run plan).
    const Model m = Model::load_from_memory(wide_model(n, distinct), {}, keep, "wide.xml");
    REQUIRE(m.problems().size() == 1);
    CHECK(std::string(m.problems()[0].what()).find("unsupported op type 'WideOp'") !=
          std::string::npos);
    REQUIRE(m.inputs().size() == n);
    REQUIRE(m.outputs().size() == n);
    CHECK(m.inputs()[0].name == (distinct ? "x0" : "x"));
    CHECK(m.inputs()[1].name == (distinct ? "x1" : "x_2"));
    CHECK(m.inputs()[n - 1].name == (distinct ? "x" + std::to_string(n - 1) : "x_" + last));
    CHECK(m.find_input(distinct ? "x4242" : "x_4243") == 4242);
    // The first Result takes the tensor name, the second its layer name, the others a suffix.
    CHECK(m.outputs()[0].name == "y");
    CHECK(m.outputs()[1].name == "out");
    CHECK(m.outputs()[2].name == "out_2");
    CHECK(m.outputs()[n - 1].name == "out_" + std::to_string(n - 1));
    CHECK(to_string(m.outputs()[0].shape) == "[" + last + "]");
    CHECK(m.warnings().size() == (distinct ? 0 : n - 1));
  }
  // A Result with 10^5 input ports, one of them used twice.
  const Model r = Model::load_from_memory(many_ports_model(n), {}, keep, "ports.xml");
  // The layer that is not a valid Result leaves the model without one.
  REQUIRE(r.problems().size() == 3);
  CHECK(std::string(r.problems()[0].what()).find("port id 77 is used twice") != std::string::npos);
  CHECK(std::string(r.problems()[1].what())
            .find("Result-1 takes 1 input(s), the layer declares " + last) != std::string::npos);
  CHECK(std::string(r.problems()[2].what()).find("no Result layer") != std::string::npos);
}

TEST_CASE("a file parsed in place keeps exact lines and columns, also after a newline in a tag") {
  const test::TempDir temp("irlite_loader_lines");
  const std::filesystem::path& dir = temp.path;
  // Parsing in place turns the newline after `<layer` into the name's terminator; the lines
  // are counted before. Enough layers that the start of the text is given back while reading.
  std::string layers;
  for (int i = 0; i < 20000; ++i)
    layers += "<layer\nid=\"" + std::to_string(i) + "\" name=\"p" + std::to_string(i) +
              "\"\ntype=\"Parameter\" version=\"opset1\"><data shape=\"1\" element_type=\"f32\"/>"
              "<output><port id=\"0\" precision=\"FP32\"/></output></layer>\n";
  layers +=
      "<layer id=\"7\" name=\"again\" type=\"Result\" version=\"opset1\">"
      "<input><port id=\"0\"/></input></layer>\n";
  const std::string xml =
      "<?xml version=\"1.0\"?>\n<net name=\"test\" version=\"11\">\n<layers>\n" + layers +
      "</layers>\n<edges>\n<edge from-layer=\"0\" from-port=\"0\" to-layer=\"7\" "
      "to-port=\"0\"/>\n</edges>\n<rt_info/>\n</net>\n";
  std::ofstream(dir / "lines.xml", std::ios::binary) << xml;
  const auto line_of = [&](std::size_t offset) {
    return std::to_string(1 +
                          std::count(xml.begin(), xml.begin() + static_cast<long>(offset), '\n'));
  };
  const std::string expected =
      (dir / "lines.xml").string() + ":" + line_of(xml.rfind("<layer id=\"7\"")) +
      ":2: layer 7 'again' (Result-1): duplicate layer id 7: already used by layer 'p7' at line " +
      line_of(xml.find("<layer\nid=\"7\""));
  try {
    Model::load(dir / "lines.xml");
    FAIL("loaded");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == expected);
  }
  // The same text from memory (pugixml parses a copy) says the same.
  try {
    Model::load_from_memory(xml, {}, {}, (dir / "lines.xml").string());
    FAIL("loaded");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == expected);
  }
}

TEST_CASE("a large file with its <edges> before its <layers> loads the same") {
  // A Parameter, a chain of ReduceMax with one shared Const axes, a Result: several megabytes,
  // so that text is given back while the layers are read, but not the edges' text before them.
  constexpr int n = 10000;
  GraphBuilder g("chain");
  Port chain = parameter(g, "x", "2,3");
  const Port axes = g.constant("axes", Tensor(ElementType::i64, {0}));
  for (int i = 2; i < n + 2; ++i) {
    const std::string name = "reduce" + std::to_string(i);
    chain = g.layer("ReduceMax", "opset1", {{"keep_dims", "false"}}, {chain, axes},
                    {ElementType::f32}, name)[0];
    g.at(chain).outputs[0].names = "t" + std::to_string(i);
    g.declare(chain, ElementType::f32, PartialShape{2, 3});
  }
  result(g, chain, "y");
  // The document, and the same with its <edges> moved before its <layers>.
  const std::string in_order = g.xml();
  const std::size_t layers_at = in_order.find("  <layers>"), edges_at = in_order.find("  <edges>"),
                    end = in_order.find("  <rt_info/>");
  REQUIRE(layers_at < edges_at);
  REQUIRE(edges_at < end);
  const std::string edges_before =
      in_order.substr(0, layers_at) + in_order.substr(edges_at, end - edges_at) +
      in_order.substr(layers_at, edges_at - layers_at) + in_order.substr(end);
  const test::TempDir temp("irlite_loader_order");
  const std::filesystem::path& dir = temp.path;
  for (const bool edges_first : {false, true}) {
    CAPTURE(edges_first);
    std::ofstream(dir / "chain.xml", std::ios::binary) << (edges_first ? edges_before : in_order);
    const Model m = Model::load(dir / "chain.xml");
    CHECK(m.warnings().empty());
    REQUIRE(m.outputs().size() == 1);
    CHECK(m.outputs()[0].name == "t" + std::to_string(n + 1));
    CHECK(to_string(m.outputs()[0].shape) == "[2,3]");
    CHECK(m.layers().size() == n + 3);
    float x[6] = {1, 2, 3, 4, 5, 6};
    const auto out = Session(m).run({{"x", Tensor::view(ElementType::f32, {2, 3}, x)}});
    CHECK(out.at("t" + std::to_string(n + 1)).values<float>()[5] == 6);
  }
}

namespace {

/// The Error(io) that `f` throws, as what() renders it.
template <class F>
std::string io_error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::io);
    return e.what();
  }
  FAIL("no error");
  return {};
}

/// `text` (ASCII) in UTF-16 or UTF-32 of either byte order, with or without a byte-order mark.
std::string widen(const std::string& text, int width, bool little, bool bom) {
  std::string out;
  const auto put = [&](std::uint32_t c) {
    for (int k = 0; k < width; ++k)
      out += static_cast<char>(c >> (8 * (little ? k : width - 1 - k)) & 0xff);
  };
  if (bom) put(0xfeff);
  for (const char c : text) put(static_cast<unsigned char>(c));
  return out;
}

}  // namespace

TEST_CASE("files: a FIFO, a device or a directory is refused at once, saying what it is") {
  test::TempDir dir("irlite_loader_special");
  std::ofstream(dir.path / "m.xml") << const_model("i64", "", 0, 8).xml();
  const std::string xml = (dir.path / "m.xml").string();
  {
    test::TestFifo fifo(dir.path / "fifo");
    REQUIRE(fifo.made());
    const auto start = std::chrono::steady_clock::now();
    CHECK(io_error_of([&] { Model::load(fifo.path()); }) ==
          fifo.path() + ": is a FIFO, not a model file");
    LoadOptions weights;
    weights.weights = fifo.path();
    CHECK(io_error_of([&] { Model::load(xml, weights); }) ==
          fifo.path() + ": is a FIFO, not a weights file");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  }
  LoadOptions zero;
  zero.weights = "/dev/zero";
  CHECK(io_error_of([&] { Model::load(xml, zero); }) ==
        "/dev/zero: is a character device, not a weights file");
  // /dev/null, which ends at once: /dev/zero would be read without end if the check failed.
  CHECK(io_error_of([&] { Model::load("/dev/null"); }) ==
        "/dev/null: is a character device, not a model file");
  CHECK(io_error_of([&] { Model::load(dir.path); }) ==
        dir.path.string() + ": is a directory, not a model file");
  LoadOptions folder;
  folder.weights = dir.path;
  CHECK(io_error_of([&] { Model::load(xml, folder); }) ==
        dir.path.string() + ": is a directory, not a weights file");
  // A path that cannot be opened says why, and an empty one is shown as such.
  CHECK(io_error_of([&] { Model::load(dir.path / "missing.xml"); }) ==
        (dir.path / "missing.xml").string() +
            ": cannot open model file: No such file or directory");
  CHECK(io_error_of([&] { Model::load(""); }) == "cannot open model file '': the path is empty");
  LoadOptions missing;
  missing.weights = dir.path / "missing.bin";
  CHECK(io_error_of([&] { Model::load(xml, missing); }) ==
        (dir.path / "missing.bin").string() +
            ": cannot open weights file: No such file or directory");
}

TEST_CASE("files: a .bin beside the model that is not a file is named as what it is") {
  test::TempDir dir("irlite_loader_bin_dir");
  std::ofstream(dir.path / "m.xml") << const_model("i64", "", 0, 8).xml();
  std::filesystem::create_directory(dir.path / "m.bin");
  const std::string expected =
      (dir.path / "m.bin").string() + " is a directory, not a weights file";
  const std::string error = io_error_of([&] { Model::load(dir.path / "m.xml"); });
  CHECK(error.find("this Const needs weights, but " + expected) != std::string::npos);
  CHECK(error.find("no weights file") == std::string::npos);
  LoadOptions keep;
  keep.keep_going = true;
  const Model m = Model::load(dir.path / "m.xml", keep);
  REQUIRE(m.warnings().size() == 1);
  CHECK(std::string(m.warnings()[0].what()).find(expected) != std::string::npos);
  // A model whose Consts need no bytes does not care.
  std::ofstream(dir.path / "m.xml") << identity("f32", "2").xml();
  CHECK(Model::load(dir.path / "m.xml").inputs().size() == 1);
}

TEST_CASE("a model in UTF-16 or UTF-32 is refused as such") {
  const std::string xml = identity("f32", "2").xml();
  struct Case {
    int width;
    bool little, bom;
    const char* name;
  };
  for (const Case c : {Case{2, true, true, "UTF-16LE"}, Case{2, false, true, "UTF-16BE"},
                       Case{2, true, false, "UTF-16LE"}, Case{2, false, false, "UTF-16BE"},
                       Case{4, true, true, "UTF-32LE"}, Case{4, false, true, "UTF-32BE"},
                       Case{4, true, false, "UTF-32LE"}, Case{4, false, false, "UTF-32BE"}}) {
    CAPTURE(c.name);
    CAPTURE(c.bom);
    const std::string wide = widen(xml, c.width, c.little, c.bom);
    CHECK(load_error(wide) == "test.xml: the file is " + std::string(c.name) +
                                  " text, which irlite does not read: IR files are UTF-8 "
                                  "(convert it with iconv -f " +
                                  c.name + " -t UTF-8)");
  }
  CHECK(load_error(std::string("\0\0\0\0<net/>", 10)).find("starts with NUL bytes") !=
        std::string::npos);
  // From a file, read in place.
  test::TempDir dir("irlite_loader_utf16");
  std::ofstream(dir.path / "m.xml", std::ios::binary) << widen(xml, 2, true, true);
  CHECK_THROWS_WITH_AS(
      Model::load(dir.path / "m.xml"),
      doctest::Contains(((dir.path / "m.xml").string() + ": the file is UTF-16LE text").c_str()),
      Error);
  // UTF-8 with a byte-order mark is still UTF-8.
  CHECK_NOTHROW(load("\xef\xbb\xbf" + xml));
}

TEST_CASE("a long cycle is one short line: its first layers and its length") {
  constexpr int n = 20000;
  // Layer i reads layer i - 1, and layer 0 the last.
  GraphBuilder g;
  for (std::size_t i = 0; i < n; ++i)
    g.layer("Foo", "opset1", {}, {Port{(i + n - 1) % n, 0}}, {ElementType::f32},
            "l" + std::to_string(i));
  result(g, Port{0, 0}, "out");
  LoadOptions keep;
  keep.keep_going = true;
  const Model m = g.load(keep);
  std::vector<std::string> cycles;
  for (const Error& e : m.problems())
    if (e.message().find("cycle") != std::string::npos) cycles.push_back(e.what());
  REQUIRE(cycles.size() == 1);
  CHECK(cycles[0].size() < 300);
  CHECK(
      cycles[0] ==
      location_of(g.xml(), "<layer id=\"1\"") +
          ": layer 1 'l1' (Foo): the layer is on a cycle of 20000 layers: 1 'l1' -> "
          "2 'l2' -> 3 'l3' -> 4 'l4' -> 5 'l5' -> 6 'l6' -> 7 'l7' -> 8 'l8' -> ... (19992 more) "
          "-> 1 'l1'");
}

TEST_CASE("names with control characters are escaped in what(), kept in the context") {
  // The layer wired as usual, its name written with a character reference.
  GraphBuilder g;
  const Port frob =
      g.layer("Frob", "opset1", {}, {parameter(g, "x", "2")}, {ElementType::f32}, "frob")[0];
  g.at(frob).raw =
      "<layer id=\"1\" name=\"evil\x1b[2K&#13;name\" type=\"Frob\" version=\"opset1\"><input>"
      "<port id=\"0\"/></input><output><port id=\"1\" precision=\"FP32\"/></output></layer>";
  result(g, frob, "out");
  try {
    load(g);
    FAIL("loaded an unknown op");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(what.find("layer 1 'evil\\x1b[2K\\rname'") != std::string::npos);
    CHECK(what.find_first_of("\x1b\r") == std::string::npos);
    CHECK(e.context().layer_name == "evil\x1b[2K\rname");
  }
}

// The `irlite` program's finer points, run as a user runs it: inspect's inputs column, op counts,
// weight bytes and structured diagnostics; run's report of every unsupported layer, a .bin
// given as the model, benchmark_app's argument forms and N-D values; ops' element types; and
// irlite_op_bench's command line.

#include <doctest/doctest.h>
#include <fmt/format.h>

#ifdef IRLITE_CLI

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "irlite/irlite.hpp"
#include "npy.hpp"

using namespace irlite;
using namespace irlite::test;
namespace fs = std::filesystem;

namespace {

// The line of `text` that contains `part` (empty when none does).
std::string line_with(const std::string& text, const std::string& part) {
  std::istringstream s(text);
  for (std::string line; std::getline(s, line);)
    if (contains(line, part)) return line;
  return {};
}

// A Parameter x (f32 [2,3]), a Const k (i64 scalar 2) and a Const of two f32 (0.2 and 0.5) that
// reaches no Result, a TopK-11 whose values output declares dims that differ from the inferred
// ones, an op irlite lacks (Scramble, with attributes) after it, and two Results.
constexpr const char* kInspectModel = R"(<?xml version="1.0"?>
<net name="polish" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data element_type="f32" shape="2,3"/>
      <output><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="1" name="k" type="Const" version="opset1">
      <data element_type="i64" shape="" offset="0" size="8"/>
      <output><port id="0" precision="I64"/></output>
    </layer>
    <layer id="2" name="top" type="TopK" version="opset11">
      <data axis="1" mode="max" sort="value" index_element_type="i32"/>
      <input><port id="0"><dim>2</dim><dim>3</dim></port><port id="1"/></input>
      <output>
        <port id="2" precision="FP32"><dim>2</dim><dim>7</dim></port>
        <port id="3" precision="I32"><dim>2</dim><dim>2</dim></port>
      </output>
    </layer>
    <layer id="3" name="act" type="Scramble" version="opset4">
      <data beta="1.5"/>
      <input><port id="0"><dim>2</dim><dim>2</dim></port></input>
      <output><port id="1" precision="FP32"><dim>2</dim><dim>2</dim></port></output>
    </layer>
    <layer id="4" name="values" type="Result" version="opset1">
      <input><port id="0"/></input>
    </layer>
    <layer id="5" name="indices" type="Result" version="opset1">
      <input><port id="0"/></input>
    </layer>
    <layer id="6" name="scale" type="Const" version="opset1">
      <data element_type="f32" shape="2" offset="8" size="8"/>
      <output><port id="0" precision="FP32"><dim>2</dim></port></output>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
    <edge from-layer="3" from-port="1" to-layer="4" to-port="0"/>
    <edge from-layer="2" from-port="3" to-layer="5" to-port="0"/>
  </edges>
</net>
)";

// Writes kInspectModel and its weights (k = 2, scale = 0.2, 0.5) into `dir`; returns the .xml.
std::string write_inspect_model(const TempDir& dir) {
  std::ofstream(dir / "polish.xml") << kInspectModel;
  std::ofstream bin(dir / "polish.bin", std::ios::binary);
  const std::int64_t k = 2;
  const float scale[2] = {0.2f, 0.5f};
  bin.write(reinterpret_cast<const char*>(&k), sizeof k);
  bin.write(reinterpret_cast<const char*>(scale), sizeof scale);
  return dir / "polish.xml";
}

// The column at which `part` starts on the line that contains `row`.
std::size_t column_of(const std::string& text, const std::string& row, const std::string& part) {
  return line_with(text, row).find(part);
}

}  // namespace

TEST_CASE("cli_polish: inspect shows inputs, op counts, weight bytes and kept attributes") {
  TempDir dir;
  const std::string model = write_inspect_model(dir);
  const Outcome o = cli({"inspect", model});
  CAPTURE(o.out);
  CAPTURE(o.err);
  CHECK(o.status == 1);  // Scramble is a problem
  // Where each input comes from, with its shape.
  CHECK(contains(line_with(o.out, "TopK-11"), "0:0 [2,3], 1:0 []"));
  CHECK(contains(line_with(o.out, "Scramble"), "2:2 [2,2]"));
  // The unsupported layer keeps its attributes; Const values in their shortest form.
  CHECK(contains(line_with(o.out, "Scramble"), "beta=1.5"));
  CHECK(contains(line_with(o.out, "scale"), "value=[0.2,0.5]"));
  CHECK(contains(line_with(o.out, "Constant-1"), "value=2"));
  // The declared dims that differ do not push the next column out of line.
  CHECK(contains(line_with(o.out, "TopK-11"), "f32 [2,2] (declared [2,7])"));
  const std::size_t attributes = column_of(o.out, "TopK-11", "axis=");
  CHECK(attributes != std::string::npos);
  CHECK(column_of(o.out, "scale", "element_type=") == attributes);
  CHECK(column_of(o.out, "Parameter-1", "element_type=") == attributes);
  CHECK(column_of(o.out, "  id  ", "attributes") == attributes);
  CHECK(column_of(o.out, "Scramble", "beta=") == attributes);
  // Op counts and the Consts' bytes: 8 for k, 8 for scale.
  CHECK(contains(o.out,
                 "ops: Constant-1 2, Parameter-1 1, Result-1 2, Scramble (opset4) 1, TopK-11 1"));
  CHECK(contains(o.out, "weights: 16 bytes"));
  const auto lines = o.err_lines();
  // The Const that reaches no Result, the declared dims, Scramble, and the hint to 'irlite ops'.
  REQUIRE(lines.size() == 4);
  CHECK(contains(lines[2], "irlite: error: "));
  CHECK(contains(lines[2], "Scramble"));
  CHECK(lines[3] == "irlite: hint: 'irlite ops' lists the op types and versions irlite has");
}

TEST_CASE("cli_polish: inspect --json gives counts, bytes and structured diagnostics") {
  TempDir dir;
  const std::string model = write_inspect_model(dir);
  const Outcome o = cli({"inspect", model, "--json"});
  CHECK(o.status == 1);
  const auto doc = nlohmann::json::parse(o.out);
  CHECK(doc["weight_bytes"] == 16);
  CHECK(doc["op_counts"]["Constant-1"] == 2);
  CHECK(doc["op_counts"]["TopK-11"] == 1);
  CHECK(doc["op_counts"]["Scramble (opset4)"] == 1);
  const auto& layers = doc["layers"];
  bool saw_swish = false;
  for (const auto& layer : layers) {
    if (layer["type"] != "Scramble") continue;
    saw_swish = true;
    CHECK(layer["attributes"]["beta"] == "1.5");
  }
  CHECK(saw_swish);

  REQUIRE(doc["problems"].size() == 1);
  const auto& p = doc["problems"][0];
  CHECK(p["code"] == "unsupported");
  CHECK(p["file"] == model);
  CHECK(p["line"] == 20);
  CHECK(p["column"].is_number());
  CHECK(p["layer_id"] == 3);
  CHECK(p["layer_name"] == "act");
  CHECK(p["port"].is_null());
  CHECK(contains(p["message"].get<std::string>(), "unsupported op type 'Scramble'"));
  // The text is the line stderr shows.
  CHECK(contains(o.err, "irlite: error: " + p["text"].get<std::string>()));

  REQUIRE(doc["warnings"].size() == 2);
  bool declared = false;
  for (const auto& w : doc["warnings"]) {
    CHECK(w["code"].is_string());
    CHECK(w["layer_id"].is_number());
    if (w["layer_id"] == 2) {
      declared = true;
      CHECK(w["layer_type"] == "TopK-11");
      CHECK(w["port"] == 2);
      CHECK(w["port_kind"] == "output");
    }
  }
  CHECK(declared);

  // A file that cannot be read at all: one problem, placed at the file.
  const Outcome missing = cli({"inspect", dir / "none.xml", "--json"});
  CHECK(missing.status == 1);
  const auto m = nlohmann::json::parse(missing.out);
  REQUIRE(m["problems"].size() == 1);
  CHECK(m["problems"][0]["code"] == "io");
  CHECK(m["problems"][0]["file"] == dir / "none.xml");
  CHECK(m["problems"][0]["line"].is_null());
}

TEST_CASE("cli_polish: run names every unsupported op type once, then points to ops and inspect") {
  const Outcome o = cli({"run", kCliData + "broken.xml"});
  CAPTURE(o.err);
  CHECK(o.status == 1);
  CHECK(o.out.empty());
  const auto lines = o.err_lines();
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind("irlite: error: ", 0) == 0);
  CHECK(contains(lines[0], "broken.xml:13:"));
  CHECK(contains(lines[0], "unsupported op type 'Frobnicate'"));
  CHECK(lines[1].rfind("irlite: error: ", 0) == 0);
  CHECK(contains(lines[1], "Defrobnicate"));
  CHECK(lines[2].rfind("irlite: hint: 2 op types cannot run; 'irlite ops' lists the ones irlite "
                       "has, and 'irlite inspect ",
                       0) == 0);
  CHECK(contains(lines[2], "broken.xml"));

  // One unsupported layer among otherwise good ones.
  TempDir dir;
  const Outcome one = cli({"run", write_inspect_model(dir)});
  const auto one_lines = one.err_lines();
  CHECK(one.status == 1);
  REQUIRE(one_lines.size() == 2);
  CHECK(contains(one_lines[0], "Scramble"));
  CHECK(contains(one_lines[1], "irlite: hint: 1 op type cannot run"));

  // Many layers of one missing type: one line for the type, at its first layer, with the count.
  std::string chain =
      "<?xml version=\"1.0\"?>\n<net name=\"m\" version=\"11\"><layers>"
      "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\">"
      "<data shape=\"2\" element_type=\"f32\"/><output><port id=\"0\" "
      "precision=\"FP32\"><dim>2</dim></port></output></layer>\n";
  std::string edges;
  for (int id = 1; id <= 40; ++id) {
    chain += fmt::format(
        "<layer id=\"{0}\" name=\"warp{0}\" type=\"Warp\" version=\"opset1\"><input>"
        "<port id=\"0\"><dim>2</dim></port></input><output><port id=\"1\" precision=\"FP32\">"
        "<dim>2</dim></port></output></layer>\n",
        id);
    edges += fmt::format("<edge from-layer=\"{}\" from-port=\"{}\" to-layer=\"{}\" to-port=\"0\"/>",
                         id - 1, id == 1 ? 0 : 1, id);
  }
  chain +=
      "<layer id=\"41\" name=\"r\" type=\"Result\" version=\"opset1\"><input><port "
      "id=\"0\"><dim>2</dim></port></input></layer></layers><edges>" +
      edges +
      "<edge from-layer=\"40\" from-port=\"1\" to-layer=\"41\" to-port=\"0\"/></edges></net>\n";
  std::ofstream(dir / "chain.xml") << chain;
  const Outcome many = cli({"run", dir / "chain.xml"});
  CAPTURE(many.err);
  const auto many_lines = many.err_lines();
  CHECK(many.status == 1);
  REQUIRE(many_lines.size() == 2);
  CHECK(contains(many_lines[0],
                 "layer 1 'warp1' (Warp): unsupported op type "
                 "'Warp' (40 layers have it; this is the first)"));
  CHECK(many_lines[0].size() < 200);
  CHECK(contains(many_lines[1], "irlite: hint: 1 op type cannot run"));
  // inspect lists every layer, and the same one problem, with the hint to 'irlite ops'.
  const Outcome inspected = cli({"inspect", dir / "chain.xml"});
  const auto inspected_lines = inspected.err_lines();
  REQUIRE(inspected_lines.size() == 2);
  CHECK(contains(inspected_lines[0], "(40 layers have it; this is the first)"));
  CHECK(inspected_lines[1] ==
        "irlite: hint: 'irlite ops' lists the op types and versions irlite has");
}

TEST_CASE("cli_polish: a .bin given as the model points to the .xml") {
  for (const char* command : {"run", "inspect"}) {
    CAPTURE(command);
    const Outcome o = cli({command, kCliData + "const.bin"});
    CHECK(o.status == 2);
    const auto lines = o.err_lines();
    REQUIRE(lines.size() == 1);
    CHECK(contains(lines[0], "irlite: error: " + kCliData + "const.bin is a weights file"));
    CHECK(contains(lines[0], "give the .xml (" + kCliData + "const.xml exists)"));
  }
  TempDir dir;
  std::ofstream(dir / "lone.BIN") << "x";
  const Outcome lone = cli({"run", dir / "lone.BIN"});
  CHECK(lone.status == 2);
  CHECK(contains(lone.err, "lone.BIN is a weights file; give the model's .xml"));
}

TEST_CASE("cli_polish: benchmark_app's -i NAME:FILE and --shape NAME[dims]") {
  TempDir dir;
  Tensor x(ElementType::f32, {2, 3});
  for (std::size_t i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i);
  npy::write(dir / "x.npy", x);

  const Outcome o = cli({"run", kCliData + "dynamic.xml", "-i", "x:" + (dir / "x.npy")});
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  CHECK(contains(o.out, dir / "x.npy"));
  CHECK(contains(o.out, "[[0, 1, 2], [3, 4, 5]]"));

  // A name before ':' that is no input is part of the file name.
  std::error_code ec;
  fs::copy_file(dir / "x.npy", dir / "y:x.npy", ec);
  REQUIRE(!ec);
  const Outcome path = cli({"run", kCliData + "dynamic.xml", "-i", dir / "y:x.npy"});
  CHECK(path.status == 0);
  CHECK(contains(path.out, dir / "y:x.npy"));
  const Outcome missing = cli({"run", kCliData + "dynamic.xml", "-i", "C:/nowhere.npy"});
  CHECK(missing.status == 1);
  CHECK(contains(missing.err, "C:/nowhere.npy: cannot open"));
  // x is the input, but x:\ starts a Windows path: the whole text is the file.
  const Outcome windows = cli({"run", kCliData + "dynamic.xml", "-i", "x:\\nowhere.npy"});
  CHECK(windows.status == 1);
  CHECK(contains(windows.err, "x:\\nowhere.npy: cannot open"));

  const Outcome shape = cli({"inspect", kCliData + "dynamic.xml", "--shape", "x[2..5,3]"});
  CHECK(shape.status == 0);
  CHECK(contains(shape.out, "x  f32 [2..5,3]"));
  const Outcome run = cli({"run", kCliData + "dynamic.xml", "--shape", "x[4,3]"});
  CHECK(run.status == 0);
  CHECK(contains(run.out, "f32 [4,3]"));
  const Outcome unknown = cli({"run", kCliData + "dynamic.xml", "--shape", "z[4,3]"});
  CHECK(unknown.status == 1);
  CHECK(contains(unknown.err, "'z'"));
}

TEST_CASE("cli_polish: run prints N-D values nested, within --values") {
  TempDir dir;
  Tensor x(ElementType::f32, {2, 3});
  for (std::size_t i = 0; i < 6; ++i) x.data<float>()[i] = 0.5f * static_cast<float>(i);
  npy::write(dir / "x.npy", x);
  const Outcome all = cli({"run", kCliData + "dynamic.xml", "-i", dir / "x.npy"});
  REQUIRE(all.status == 0);
  CHECK(contains(all.out, "[[0, 0.5, 1], [1.5, 2, 2.5]]"));
  const Outcome some = cli({"run", kCliData + "dynamic.xml", "-i", dir / "x.npy", "--values", "4"});
  REQUIRE(some.status == 0);
  CHECK(contains(some.out, "[[0, 0.5, 1], [1.5, ...]]"));
  const Outcome row = cli({"run", kCliData + "dynamic.xml", "-i", dir / "x.npy", "--values", "3"});
  CHECK(contains(row.out, "[[0, 0.5, 1], ...]"));
  const Outcome none = cli({"run", kCliData + "dynamic.xml", "-i", dir / "x.npy", "--values", "0"});
  CHECK(contains(none.out, "[...]"));
}

TEST_CASE("cli_polish: NaN prints as nan, never -nan") {
  TempDir dir;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  Tensor x(ElementType::f32, {1, 3});
  // -NaN, and infinities of both signs whose sum (the mean) is a NaN with its sign bit set.
  x.data<float>()[0] = -std::numeric_limits<float>::quiet_NaN();
  x.data<float>()[1] = kInf;
  x.data<float>()[2] = -kInf;
  npy::write(dir / "x.npy", x);
  const Outcome o = cli({"run", kCliData + "dynamic.xml", "-i", dir / "x.npy"});
  CAPTURE(o.out);
  REQUIRE(o.status == 0);
  CHECK(contains(o.out, "min=-inf max=inf mean=nan nan=1 inf=2"));
  CHECK(contains(o.out, "[[nan, inf, -inf]]"));
  CHECK_FALSE(contains(o.out, "-nan"));

  Tensor only(ElementType::f32, {1, 3});
  for (float& v : only.values<float>()) v = -std::numeric_limits<float>::quiet_NaN();
  npy::write(dir / "nan.npy", only);
  const Outcome n = cli({"run", kCliData + "dynamic.xml", "-i", dir / "nan.npy"});
  CHECK(contains(n.out, "min=nan max=nan mean=nan nan=3"));
  CHECK_FALSE(contains(n.out, "-nan"));
}

TEST_CASE("cli_polish: ops shows element types and opset ranges") {
  const Outcome o = cli({"ops"});
  REQUIRE(o.status == 0);
  const std::string v1 = line_with(o.out, "TopK-1 ");
  CHECK(contains(v1, "opset1..opset2"));
  CHECK(contains(v1, "data numeric, k i8|i32|i64"));
  CHECK(contains(v1, "values numeric, indices i32"));
  CHECK(contains(line_with(o.out, "TopK-11"), "indices i32|i64"));
  CHECK(contains(line_with(o.out, "TopK-11"), "opset11..opset16"));
  CHECK(contains(line_with(o.out, "SegmentMax-16"), "num_segments? i32|i64"));
  CHECK(contains(line_with(o.out, "Parameter-1"), "output any"));

  const Outcome j = cli({"ops", "--json"});
  REQUIRE(j.status == 0);
  const auto doc = nlohmann::json::parse(j.out);
  bool found = false;
  for (const auto& op : doc) {
    if (op["type"] != "TopK" || op["version"] != 3) continue;
    found = true;
    CHECK(op["since_opset"] == 3);
    CHECK(op["until_opset"] == 10);
    CHECK(op["input_types"][1]["name"] == "k");
    CHECK(op["input_types"][1]["element_types"].size() == 8);
    CHECK(op["output_types"][1]["element_types"] == nlohmann::json({"i32", "i64"}));
  }
  CHECK(found);
}

TEST_CASE("cli_polish: an unknown subcommand is named with the closest one") {
  const Outcome o = cli({"inspectt", "model.xml"});
  CHECK(o.status == 2);
  CHECK(contains(o.err, "unknown subcommand 'inspectt'; did you mean 'inspect'?"));
}

#ifdef IRLITE_OP_BENCH
TEST_CASE("cli_polish: irlite_op_bench --help, and bad arguments") {
  const Outcome help = run_program(IRLITE_OP_BENCH, {"--help"});
  CHECK(help.status == 0);
  CHECK(contains(help.out, "usage: irlite_op_bench"));
  CHECK(contains(help.out, "topk_rows"));
  CHECK(help.err.empty());
  const Outcome flag = run_program(IRLITE_OP_BENCH, {"--frob"});
  CHECK(flag.status == 2);
  CHECK(contains(flag.err, "unknown option '--frob'"));
  CHECK(flag.out.empty());
  const Outcome reps = run_program(IRLITE_OP_BENCH, {"--reps", "x"});
  CHECK(reps.status == 2);
  CHECK(contains(reps.err, "--reps needs a positive integer"));
  const Outcome workload = run_program(IRLITE_OP_BENCH, {"no_such_workload"});
  CHECK(workload.status == 2);
  CHECK(contains(workload.err, "unknown workload 'no_such_workload'"));
}
#endif

#endif  // IRLITE_CLI

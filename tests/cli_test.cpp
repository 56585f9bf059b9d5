// The `irlite` program, run as a user runs it: output, files written, exit statuses and the
// one-line diagnostics, on the small models under tests/data/cli/.

#include <doctest/doctest.h>
#include <fmt/format.h>

#ifdef IRLITE_CLI

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "npy.hpp"
#include "temp_dir.hpp"

using namespace irlite;
namespace fs = std::filesystem;

namespace {

const std::string kData = std::string(IRLITE_TEST_DATA) + "/cli/";

using test::TempDir;

struct Outcome {
  int status = -1;
  std::string out, err;
  std::vector<std::string> err_lines() const {
    std::vector<std::string> lines;
    std::istringstream s(err);
    for (std::string line; std::getline(s, line);) lines.push_back(line);
    return lines;
  }
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string shell_quote(const std::string& arg) {
  std::string q = "'";
  for (const char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs the tool with `args`, capturing stdout, stderr and the exit status; with a time limit in
// seconds, a run that takes longer is killed (status 124, as timeout(1) gives).
Outcome cli(const std::vector<std::string>& args, int time_limit = 0) {
  TempDir capture;
  std::string command = time_limit > 0 ? "timeout -k 5 " + std::to_string(time_limit) + " " : "";
  command += shell_quote(IRLITE_CLI);
  for (const std::string& a : args) command.append(" ").append(shell_quote(a));
  command.append(" >").append(shell_quote(capture / "out"));
  command.append(" 2>").append(shell_quote(capture / "err"));
  const int raw = std::system(command.c_str());
  Outcome o;
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  o.out = read_text(capture.path / "out");
  o.err = read_text(capture.path / "err");
  return o;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Checks a failed command: exactly one line on stderr, `irlite: error: ` and `what` in it.
void check_error(const Outcome& o, int status, const std::string& what) {
  CAPTURE(o.out);
  CAPTURE(o.err);
  CHECK(o.status == status);
  const auto lines = o.err_lines();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("irlite: error: ", 0) == 0);
  CHECK(contains(lines[0], what));
}

Tensor f32_tensor(Shape shape, float first) {
  Tensor t(ElementType::f32, std::move(shape));
  for (std::size_t i = 0; i < t.size(); ++i)
    t.data<float>()[i] = first + 0.25f * static_cast<float>(i);
  return t;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.element_type() == b.element_type() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.byte_size()) == 0;
}

}  // namespace

TEST_CASE("cli: --version and --help") {
  const Outcome v = cli({"--version"});
  CHECK(v.status == 0);
  CHECK(v.out == "irlite " + std::string(irlite::version()) + "\n");
  CHECK(v.err.empty());

  const Outcome h = cli({"--help"});
  CHECK(h.status == 0);
  CHECK(contains(h.out, "run"));
  CHECK(contains(h.out, "inspect"));
  CHECK(contains(h.out, "Examples:"));
  CHECK(h.err.empty());

  const Outcome r = cli({"run", "--help"});
  CHECK(r.status == 0);
  CHECK(contains(r.out, "irlite run model.xml -i"));
  CHECK(contains(r.out, "bf16"));
  CHECK(contains(r.out, "'<u2'"));
  const Outcome i = cli({"inspect", "--help"});
  CHECK(i.status == 0);
  CHECK(contains(i.out, "irlite inspect model.xml --json"));
}

TEST_CASE("cli: run with random inputs is seeded") {
  const Outcome a = cli({"run", kData + "dynamic.xml"});
  CAPTURE(a.err);
  REQUIRE(a.status == 0);
  CHECK(a.err.empty());
  // The dynamic dimension `?` of x takes 1.
  CHECK(contains(a.out, "x      f32 [1,3]  random (seed 0)"));
  CHECK(contains(a.out, "x/out  f32 [1,3]  min="));
  CHECK(contains(a.out, "nan=0 inf=0"));

  CHECK(cli({"run", kData + "dynamic.xml"}).out == a.out);
  CHECK(cli({"run", kData + "dynamic.xml", "--seed", "0"}).out == a.out);
  const Outcome b = cli({"run", kData + "dynamic.xml", "--seed", "12345678901234567890"});
  CHECK(b.status == 0);
  CHECK(contains(b.out, "random (seed 12345678901234567890)"));
  CHECK(b.out.substr(b.out.find("outputs:")) != a.out.substr(a.out.find("outputs:")));

  SUBCASE("every element type gets values in its range") {
    TempDir dir;
    const Outcome m = cli({"run", kData + "mixed.xml", "-o", dir / "out", "--seed", "3"});
    CAPTURE(m.err);
    REQUIRE(m.status == 0);
    CHECK(contains(m.out, "c    boolean [2,2]  random (seed 3)"));
    CHECK(contains(m.out, "e    u8 []          random (seed 3)"));

    const Tensor a_t = npy::read(dir / "out/a_t.npy");
    REQUIRE(a_t.element_type() == ElementType::f16);
    CHECK(a_t.shape() == Shape{2, 3});
    for (const float16 v : a_t.values<float16>()) {
      CHECK(static_cast<float>(v) >= -1.0f);
      CHECK(static_cast<float>(v) < 1.0f);
    }
    const Tensor b_t = npy::read(dir / "out/b_t.npy");
    REQUIRE(b_t.element_type() == ElementType::i64);
    for (const std::int64_t v : b_t.values<std::int64_t>()) {
      CHECK(v >= 0);
      CHECK(v < 10);
    }
    const Tensor c_t = npy::read(dir / "out/c_t.npy");
    REQUIRE(c_t.element_type() == ElementType::boolean);
    for (const std::uint8_t v : c_t.values<std::uint8_t>()) CHECK(v <= 1);
    // bf16 outputs are written as their raw bits.
    const Tensor d_t = npy::read(dir / "out/d_t.npy");
    REQUIRE(d_t.element_type() == ElementType::u16);
    CHECK(d_t.shape() == Shape{3});
    for (const std::uint16_t bits : d_t.values<std::uint16_t>()) {
      const float v = bfloat16::from_bits(bits);
      CHECK(v >= -1.0f);
      CHECK(v < 1.0f);
    }
    const Tensor e_t = npy::read(dir / "out/e_t.npy");
    REQUIRE(e_t.element_type() == ElementType::u8);
    CHECK(e_t.shape() == Shape{});
    CHECK(e_t.data<std::uint8_t>()[0] < 10);
  }
}

TEST_CASE("cli: run --threads sets the threads per layer, the output stays the same") {
  const std::string model = std::string(IRLITE_MODELS) + "/pipeline.xml";
  const Outcome one = cli({"run", model, "--threads", "1"});
  CAPTURE(one.err);
  REQUIRE(one.status == 0);
  for (const char* threads : {"2", "3", "0"}) {
    const Outcome many = cli({"run", model, "--threads", threads});
    CHECK(many.status == 0);
    CHECK(many.out == one.out);
  }
  const Outcome bad = cli({"run", model, "--threads", "-2"});
  CHECK(bad.status == 2);
  CHECK(contains(bad.err, "--threads"));
}

TEST_CASE("cli: run reads .npy inputs and writes .npy outputs") {
  TempDir dir;
  const Tensor x = f32_tensor({2, 3}, -1.0f);
  npy::write(dir / "x.npy", x);

  const Outcome o =
      cli({"run", kData + "dynamic.xml", "-i", "x=" + (dir / "x.npy"), "-o", dir / "results"});
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.err.empty());
  CHECK(contains(o.out, "x      f32 [2,3]  " + (dir / "x.npy")));
  CHECK(contains(o.out, "x/out  f32 [2,3]  min=-1 max=0.25 mean=-0.375 nan=0 inf=0"));
  CHECK(contains(o.out, "[[-1, -0.75, -0.5], [-0.25, 0, 0.25]]"));
  // The output's name "x/out" becomes the file name x_out.npy.
  CHECK(contains(o.out, "saved to " + (dir / "results/x_out.npy")));
  CHECK(same_bytes(npy::read(dir / "results/x_out.npy"), x));

  SUBCASE("the dynamic input takes another size in the next run, named by a tensor name") {
    const Tensor x5 = f32_tensor({5, 3}, 10.0f);
    npy::write(dir / "x5.npy", x5);
    const Outcome o5 = cli({"run", kData + "dynamic.xml", "-i", "x_alias=" + (dir / "x5.npy"), "-o",
                            dir / "results", "--values", "2"});
    CAPTURE(o5.err);
    REQUIRE(o5.status == 0);
    CHECK(contains(o5.out, "x/out  f32 [5,3]"));
    CHECK(contains(o5.out, "[10, 10.25, ...]"));
    CHECK(same_bytes(npy::read(dir / "results/x_out.npy"), x5));
  }
  SUBCASE("a bare file for a single-input model") {
    const Outcome bare = cli({"run", kData + "dynamic.xml", "-i", dir / "x.npy"});
    CHECK(bare.status == 0);
    CHECK(contains(bare.out, "x/out  f32 [2,3]"));
  }
  SUBCASE("--shape sets the shape of a random input") {
    const Outcome s = cli({"run", kData + "dynamic.xml", "--shape", "x=[4,3]"});
    CHECK(s.status == 0);
    CHECK(contains(s.out, "x      f32 [4,3]  random (seed 0)"));
    const Outcome unnamed = cli({"run", kData + "dynamic.xml", "--shape", "[2..7,3]"});
    CHECK(unnamed.status == 0);
    CHECK(contains(unnamed.out, "x      f32 [2,3]  random (seed 0)"));
  }
  SUBCASE("every input type from files, bf16 as raw uint16 bits") {
    Tensor a(ElementType::f16, {2, 3});
    for (std::size_t i = 0; i < a.size(); ++i)
      a.data<float16>()[i] = float16(0.5f * static_cast<float>(i) - 1.0f);
    Tensor b(ElementType::i64, {4});
    b.data<std::int64_t>()[0] = -5'000'000'000;
    b.data<std::int64_t>()[3] = 77;
    Tensor c(ElementType::boolean, {2, 2});
    c.data<std::uint8_t>()[1] = 1;
    Tensor d(ElementType::u16, {3});
    d.data<std::uint16_t>()[0] = bfloat16(1.5f).bits;
    d.data<std::uint16_t>()[1] = bfloat16(-2.0f).bits;
    d.data<std::uint16_t>()[2] = 0x7fc0;  // NaN
    Tensor e(ElementType::u8, {});
    e.data<std::uint8_t>()[0] = 200;
    for (const auto& [name, t] :
         {std::pair<std::string, Tensor>{"a", a}, {"b", b}, {"c", c}, {"d", d}, {"e", e}})
      npy::write(dir / (name + ".npy"), t);

    const Outcome m = cli({"run", kData + "mixed.xml", "-i", "a=" + (dir / "a.npy"), "-i",
                           "b_t=" + (dir / "b.npy"), "-i", "c=" + (dir / "c.npy"), "-i",
                           "d=" + (dir / "d.npy"), "-i", "e=" + (dir / "e.npy"), "-o", dir / "m"});
    CAPTURE(m.err);
    REQUIRE(m.status == 0);
    CHECK(contains(m.out, "b_t  i64 [4]        min=-5000000000 max=77 mean=-1.25e+09"));
    CHECK(contains(m.out, "c_t  boolean [2,2]  min=0 max=1 mean=0.25"));
    CHECK(contains(m.out, "d_t  bf16 [3]       min=-2 max=1.5 mean=-0.25 nan=1 inf=0"));
    CHECK(contains(m.out, "[1.5, -2, nan]"));
    CHECK(contains(m.out, "e_t  u8 []          min=200 max=200 mean=200"));
    CHECK(same_bytes(npy::read(dir / "m/a_t.npy"), a));
    CHECK(same_bytes(npy::read(dir / "m/b_t.npy"), b));
    CHECK(same_bytes(npy::read(dir / "m/c_t.npy"), c));
    CHECK(same_bytes(npy::read(dir / "m/d_t.npy"), d));
    CHECK(same_bytes(npy::read(dir / "m/e_t.npy"), e));
  }
}

TEST_CASE("cli: run a model with weights") {
  const Outcome o = cli({"run", kData + "const.xml"});
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  CHECK(contains(o.out, "inputs:\n  (none)\n"));
  CHECK(contains(o.out, "table_values  i32 [2,2]  min=-2 max=40000 mean=10074.8"));
  CHECK(contains(o.out, "[[1, -2], [300, 40000]]"));
  // Warnings go to stderr, one line each, and do not fail the run.
  for (const std::string& line : o.err_lines()) CHECK(line.rfind("irlite: warning: ", 0) == 0);
  CHECK(contains(o.err, "'unused' (Constant-1): the layer reaches no Result"));

  TempDir dir;
  {
    std::ofstream bin(dir / "other.bin", std::ios::binary);
    const std::int32_t values[] = {5, 6, 7, 8};
    bin.write(reinterpret_cast<const char*>(values), sizeof values);
  }
  const Outcome w =
      cli({"run", kData + "const.xml", "-w", dir / "other.bin", "-o", dir.path.string()});
  CAPTURE(w.err);
  REQUIRE(w.status == 0);
  CHECK(contains(w.out, "[[5, 6], [7, 8]]"));
  const Tensor t = npy::read(dir / "table_values.npy");
  REQUIRE(t.element_type() == ElementType::i32);
  CHECK(t.data<std::int32_t>()[3] == 8);
}

TEST_CASE("cli: inspect prints layers, shapes and warnings") {
  const Outcome o = cli({"inspect", kData + "const.xml"});
  CAPTURE(o.err);
  CHECK(o.status == 0);
  CHECK(contains(o.out, "model 'constants', IR version 11"));
  CHECK(contains(o.out, "layers (3, in run order):"));
  CHECK(contains(o.out, "table   Constant-1  -          i32 [2,2]"));
  CHECK(contains(o.out, "value=[1,-2,300,40000]"));
  CHECK(contains(o.out, "unused  Constant-1  -          i32 [3] (declared [5]) (not run)"));
  CHECK(contains(o.out, "out     Result-1"));
  const auto lines = o.err_lines();
  REQUIRE(lines.size() == 2);
  for (const std::string& line : lines) CHECK(line.rfind("irlite: warning: ", 0) == 0);

  const Outcome d = cli({"inspect", kData + "dynamic.xml"});
  CHECK(d.status == 0);
  CHECK(contains(d.out, "x  f32 [?,3]  (tensor names: x/out, x_alias)"));
  CHECK(d.err.empty());
  const Outcome r = cli({"inspect", kData + "dynamic.xml", "--shape", "x=[2..5,3]"});
  CHECK(r.status == 0);
  CHECK(contains(r.out, "x  f32 [2..5,3]"));

  SUBCASE("without its .bin, structure and shapes are still shown") {
    TempDir dir;
    fs::copy_file(kData + "const.xml", dir / "const.xml");
    const Outcome n = cli({"inspect", dir / "const.xml"});
    CHECK(n.status == 0);
    CHECK(contains(n.out, "table   Constant-1  -          i32 [2,2]"));
    CHECK(contains(n.err, "irlite: warning: "));
    CHECK_FALSE(contains(n.err, "irlite: error: "));
    // Running it does need the weights.
    check_error(cli({"run", dir / "const.xml"}), 1, "const.bin");
  }
}

TEST_CASE("cli: inspect --json") {
  const Outcome o = cli({"inspect", kData + "const.xml", "--json"});
  REQUIRE(o.status == 0);
  const auto doc = nlohmann::json::parse(o.out);
  CHECK(doc["name"] == "constants");
  CHECK(doc["ir_version"] == 11);
  CHECK(doc["inputs"].empty());
  REQUIRE(doc["outputs"].size() == 1);
  CHECK(doc["outputs"][0]["name"] == "table_values");
  CHECK(doc["outputs"][0]["element_type"] == "i32");
  CHECK(doc["outputs"][0]["shape"] == "[2,2]");
  const auto& layers = doc["layers"];
  REQUIRE(layers.size() == 3);
  CHECK(layers[0]["id"] == 0);
  CHECK(layers[0]["name"] == "table");
  CHECK(layers[0]["type"] == "Constant");
  CHECK(layers[0]["version"] == 1);
  CHECK(layers[0]["attributes"]["value"] == "[1,-2,300,40000]");
  CHECK(layers[0]["reaches_result"] == true);
  CHECK(layers[0]["outputs"][0]["port"] == 0);
  CHECK(layers[0]["outputs"][0]["shape"] == "[2,2]");
  CHECK_FALSE(layers[0]["outputs"][0].contains("declared_shape"));
  CHECK(layers[1]["reaches_result"] == false);
  CHECK(layers[1]["outputs"][0]["shape"] == "[3]");
  CHECK(layers[1]["outputs"][0]["declared_shape"] == "[5]");
  CHECK(layers[2]["type"] == "Result");
  CHECK(layers[2]["inputs"][0]["from_layer"] == 0);
  CHECK(doc["warnings"].size() == 2);
  CHECK(doc["problems"].empty());

  const Outcome d = cli({"inspect", kData + "dynamic.xml", "--json", "--shape", "x=[?,3..]"});
  REQUIRE(d.status == 0);
  const auto dyn = nlohmann::json::parse(d.out);
  CHECK(dyn["inputs"][0]["name"] == "x");
  CHECK(dyn["inputs"][0]["shape"] == "[?,3..]");
  CHECK(dyn["inputs"][0]["tensor_names"] == nlohmann::json({"x/out", "x_alias"}));
  CHECK(dyn["outputs"][0]["name"] == "x/out");
  CHECK(dyn["outputs"][0]["shape"] == "[?,3..]");
  CHECK(dyn["is_dynamic"] == true);
}

TEST_CASE("cli: inspect marks the layers folded while loading, with their values") {
  // Every input of the SegmentMax is a Const: it is computed at load time.
  const Outcome o = cli({"inspect", std::string(IRLITE_MODELS) + "/segment_max_example1.xml"});
  REQUIRE(o.status == 0);
  CHECK(contains(o.out, "f32 [2] (folded)  fill_mode=zero value=[-1.5,0]"));
  const Outcome j = cli({"inspect", std::string(IRLITE_MODELS) + "/segment_max_example1.xml", "--json"});
  REQUIRE(j.status == 0);
  const auto layers = nlohmann::json::parse(j.out)["layers"];
  REQUIRE(layers.size() == 5);
  CHECK(layers[0]["folded"] == false);
  CHECK(layers[3]["folded"] == true);
  CHECK(layers[3]["attributes"]["value"] == "[-1.5,0]");
}

TEST_CASE("cli: inspect reports every problem at once") {
  for (const bool json : {false, true}) {
    CAPTURE(json);
    std::vector<std::string> args{"inspect", kData + "broken.xml"};
    if (json) args.push_back("--json");
    const Outcome o = cli(args);
    CHECK(o.status == 1);
    const auto lines = o.err_lines();
    REQUIRE(lines.size() == 3);  // two unsupported op types, then the hint to 'irlite ops'
    CHECK(contains(lines[2], "irlite: hint: 'irlite ops' lists"));
    CHECK(lines[0].rfind("irlite: error: ", 0) == 0);
    CHECK(contains(lines[0], "broken.xml:13:"));
    CHECK(contains(lines[0], "layer 1 'first'"));
    CHECK(contains(lines[0], "Frobnicate"));
    CHECK(contains(lines[1], "broken.xml:25:"));
    CHECK(contains(lines[1], "Defrobnicate"));
    if (json) {
      const auto doc = nlohmann::json::parse(o.out);
      REQUIRE(doc["problems"].size() == 2);
      CHECK(lines[0] == "irlite: error: " + doc["problems"][0]["text"].get<std::string>());
      CHECK(doc["layers"].size() == 4);
    } else {
      CHECK(contains(o.out, "layers (4, in run order):"));
      CHECK(contains(o.out, "Frobnicate (opset1)"));
    }
  }

  // A file that cannot be loaded at all still gives a JSON document.
  TempDir dir;
  std::ofstream(dir / "bad.xml") << "<net name='x' version='11'><layers></net>";
  const Outcome bad = cli({"inspect", dir / "bad.xml", "--json"});
  CHECK(bad.status == 1);
  const auto doc = nlohmann::json::parse(bad.out);
  REQUIRE(doc["problems"].size() == 1);
  CHECK(doc["source"] == dir / "bad.xml");
  CHECK(doc["layers"].empty());
  check_error(bad, 1, dir / "bad.xml" + ":1:");
  check_error(cli({"inspect", dir / "bad.xml"}), 1, dir / "bad.xml" + ":1:");
}

TEST_CASE("cli: bad input files are errors naming the file and the input") {
  TempDir dir;
  const std::string model = kData + "dynamic.xml";

  check_error(cli({"run", model, "-i", "x=" + (dir / "missing.npy")}), 1,
              dir / "missing.npy" + ": cannot open .npy file: No such file or directory");

  {
    std::ofstream junk(dir / "junk.npy", std::ios::binary);
    junk << "this is not numpy data";
  }
  check_error(cli({"run", model, "-i", "x=" + (dir / "junk.npy")}), 1,
              dir / "junk.npy" + ": not a .npy file");

  std::string truncated = npy::encode(f32_tensor({2, 3}, 0));
  truncated.resize(truncated.size() - 4);
  std::ofstream(dir / "truncated.npy", std::ios::binary) << truncated;
  check_error(cli({"run", model, "-i", "x=" + (dir / "truncated.npy")}), 1, "truncated data");

  Tensor ints(ElementType::i32, {2, 3});
  npy::write(dir / "ints.npy", ints);
  check_error(cli({"run", model, "-i", "x=" + (dir / "ints.npy")}), 1,
              dir / "ints.npy" + ": input 'x' expects f32 [?,3], but the file holds i32 [2,3]");

  npy::write(dir / "wide.npy", f32_tensor({2, 4}, 0));
  check_error(cli({"run", model, "-i", "x=" + (dir / "wide.npy")}), 1,
              "input 'x' expects f32 [?,3], but the file holds f32 [2,4]");

  npy::write(dir / "f32.npy", f32_tensor({3}, 0));
  check_error(cli({"run", kData + "mixed.xml", "-i", "d=" + (dir / "f32.npy")}), 1,
              "input 'd' expects bf16 [3], but the file holds f32 [3] (a bf16 input is read from "
              "the raw bits as dtype '<u2'");

  check_error(cli({"run", model, "-i", "y=" + (dir / "wide.npy")}), 1,
              "the model has no input 'y' (inputs: x)");
}

TEST_CASE("cli: exit statuses and one-line errors") {
  TempDir dir;
  npy::write(dir / "x.npy", f32_tensor({2, 3}, 0));
  const std::string dynamic = kData + "dynamic.xml", mixed = kData + "mixed.xml";

  // Usage errors: 2.
  check_error(cli({}), 2, "subcommand is required");
  check_error(cli({"run"}), 2, "model is required");
  check_error(cli({"run", dynamic, "--frobnicate"}), 2, "--frobnicate");
  check_error(cli({"inspect", dynamic, "extra"}), 2, "extra");
  check_error(cli({"run", dynamic, "--shape", "x=[2,,3]"}), 2, "--shape 'x=[2,,3]'");
  check_error(cli({"run", dynamic, "--shape", "x=[a]"}), 2, "--shape 'x=[a]'");
  check_error(cli({"inspect", dynamic, "--shape", "=[1,3]"}), 2, "input name before '=' is empty");
  check_error(cli({"run", mixed, "--shape", "[2,3]"}), 2, "has no input name");
  check_error(cli({"run", mixed, "-i", dir / "x.npy"}), 2, "write -i NAME=FILE.npy");
  check_error(
      cli({"run", dynamic, "-i", "x=" + (dir / "x.npy"), "-i", "x_alias=" + (dir / "x.npy")}), 2,
      "input 'x' is given twice");
  check_error(cli({"run", dynamic, "-i", "x="}), 2, "-i 'x=': the file name is empty");
  check_error(cli({"run", dynamic, "--seed", "-1"}), 2, "--seed '-1'");
  check_error(cli({"run", dynamic, "--seed", "18446744073709551616"}), 2, "--seed");
  check_error(cli({"run", dynamic, "--values", "x"}), 2, "--values");

  // Model and file errors: 1.
  check_error(cli({"run", dir / "nothing.xml"}), 1,
              dir / "nothing.xml" + ": cannot open model file: No such file or directory");
  check_error(cli({"inspect", dir / "nothing.xml"}), 1,
              dir / "nothing.xml" + ": cannot open model file: No such file or directory");
  check_error(cli({"run", ""}), 1, "cannot open model file '': the path is empty");
  check_error(cli({"run", dynamic, "--shape", "nope=[1,3]"}), 1, "'nope'");
  check_error(cli({"run", dynamic, "--shape", "x=[...]"}), 1,
              "input 'x' has a dynamic rank; give its shape with --shape");
  std::ofstream(dir / "file") << "x";
  check_error(cli({"run", dynamic, "-o", dir / "file"}), 1, "output directory");

  // Nothing on stderr and nothing but the report on stdout when all is well.
  const Outcome ok = cli({"run", dynamic, "-i", dir / "x.npy"});
  CHECK(ok.status == 0);
  CHECK(ok.err.empty());
}

TEST_CASE("cli: FIFOs and devices are refused at once, as model, weights and inputs") {
  TempDir dir;
  const std::string fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Each would wait for a writer forever without the check: the time limit ends such a run.
  check_error(cli({"run", fifo}, 30), 1, fifo + ": is a FIFO, not a model file");
  check_error(cli({"inspect", fifo}, 30), 1, fifo + ": is a FIFO, not a model file");
  check_error(cli({"run", kData + "const.xml", "-w", fifo}, 30), 1,
              fifo + ": is a FIFO, not a weights file");
  check_error(cli({"run", kData + "dynamic.xml", "-i", "x=" + fifo}, 30), 1,
              fifo + ": is a FIFO, not a .npy file");
  check_error(cli({"inspect", "/dev/zero"}, 30), 1,
              "/dev/zero: is a character device, not a model file");
  const Outcome zero = cli({"run", kData + "const.xml", "-w", "/dev/zero"}, 30);
  check_error(zero, 1, "/dev/zero: is a character device, not a weights file");
  CHECK_FALSE(contains(zero.err, "Is a directory"));
}

TEST_CASE("cli: a .bin beside the model that is a directory is named as one") {
  TempDir dir;
  fs::copy_file(kData + "const.xml", dir / "const.xml");
  fs::create_directory(dir / "const.bin");
  const Outcome r = cli({"run", dir / "const.xml"});
  check_error(r, 1, dir / "const.bin" + " is a directory, not a weights file");
  CHECK_FALSE(contains(r.err, "no weights file"));
  const Outcome i = cli({"inspect", dir / "const.xml"});
  CHECK(i.status == 0);
  CHECK(contains(i.err, "irlite: warning: "));
  CHECK(contains(i.err, dir / "const.bin" + " is a directory, not a weights file"));
}

TEST_CASE("cli: an unknown subcommand is named, with the closest one") {
  check_error(cli({"frob"}), 2,
              "unknown subcommand 'frob'; did you mean 'run'? (subcommands: run, bench, inspect, "
              "ops; see 'irlite --help')");
  check_error(cli({"inspekt", kData + "dynamic.xml"}), 2,
              "unknown subcommand 'inspekt'; did you mean 'inspect'?");
  check_error(cli({"--frob", "opz"}), 2, "unknown subcommand 'opz'; did you mean 'ops'?");
  check_error(cli({}), 2, "subcommand is required");
}

TEST_CASE("cli: a random input that cannot be made names the input") {
  check_error(cli({"run", kData + "dynamic.xml", "--shape", "x=[4611686018427387904,3]"}), 1,
              "random input 'x' f32 [4611686018427387904,3] needs 2^64 or more bytes");
}

TEST_CASE("cli: control characters in names are escaped on the terminal, not in JSON") {
  TempDir dir;
  // ESC (raw: pugixml takes it) and CR (as a character reference: a raw one would be normalised).
  const std::string name = "in\x1b[2J&#13;put", raw_name = "in\x1b[2J\rput",
                    shown = "in\\x1b[2J\\rput";
  const std::string parameter = "<layer id=\"0\" name=\"" + name +
                                "\" type=\"Parameter\" version=\"opset1\"><data "
                                "element_type=\"f32\" shape=\"2\"/><output><port id=\"0\" "
                                "precision=\"FP32\" names=\"t\x1b[1m\"/></output></layer>";
  std::ofstream(dir / "evil.xml")
      << "<net name=\"evil\x1b]0;title\x07\" version=\"11\"><layers>" + parameter +
             "<layer id=\"1\" name=\"out\x1b[0m\" type=\"Result\" version=\"opset1\"><input>"
             "<port id=\"0\"/></input></layer></layers><edges>"
             "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/></edges></net>";
  const auto clean = [](const Outcome& o) {
    CAPTURE(o.out);
    CAPTURE(o.err);
    CHECK(o.out.find_first_of("\x1b\r\x07") == std::string::npos);
    CHECK(o.err.find_first_of("\x1b\r\x07") == std::string::npos);
  };
  const Outcome i = cli({"inspect", dir / "evil.xml"});
  CHECK(i.status == 0);
  clean(i);
  CHECK(contains(i.out, "model 'evil\\x1b]0;title\\x07'"));
  CHECK(contains(i.out, "  " + shown + "  f32 [2]  (tensor names: t\\x1b[1m)"));
  CHECK(contains(i.out, "0  " + shown + "  Parameter-1"));

  const Outcome r = cli({"run", dir / "evil.xml"});
  CHECK(r.status == 0);
  clean(r);
  CHECK(contains(r.out, "  " + shown + "  f32 [2]  random (seed 0)"));
  CHECK(contains(r.out, "  t\\x1b[1m" + std::string(6, ' ') + "  f32 [2]  min="));

  TempDir files;
  npy::write(files / "x.npy", f32_tensor({2}, 0));
  const Outcome e = cli({"run", dir / "evil.xml", "-i", "nope=" + (files / "x.npy")});
  clean(e);
  check_error(e, 1, "the model has no input 'nope' (inputs: " + shown + ")");

  // JSON has escapes of its own: the names come back exactly.
  const Outcome j = cli({"inspect", dir / "evil.xml", "--json"});
  REQUIRE(j.status == 0);
  const auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["name"] == "evil\x1b]0;title\x07");
  CHECK(doc["inputs"][0]["name"] == raw_name);
  CHECK(doc["layers"][1]["name"] == "out\x1b[0m");
}

TEST_CASE("cli: ops lists the registry") {
  const Outcome o = cli({"ops"});
  CHECK(o.status == 0);
  CHECK(contains(o.out, "Parameter-1"));
  CHECK(contains(o.out, "Result-1"));
  const Outcome j = cli({"ops", "--json"});
  REQUIRE(j.status == 0);
  const auto doc = nlohmann::json::parse(j.out);
  REQUIRE(doc.is_array());
  bool has_constant = false;
  for (const auto& op : doc) has_constant |= op["type"] == "Constant" && op["version"] == 1;
  CHECK(has_constant);
}

#endif  // IRLITE_CLI

TEST_CASE("cli: run --max-memory bounds the run and the random inputs") {
  const std::string dynamic = kData + "dynamic.xml";
  const std::string pipeline = std::string(IRLITE_MODELS) + "/pipeline.xml";
  // 6 GB of random floats are refused before any is made, naming the input.
  const auto started = std::chrono::steady_clock::now();
  check_error(cli({"run", dynamic, "--shape", "x=[500000000,3]", "--max-memory", "1G"}), 1,
              "layer 0 'x' (Parameter-1): random input 'x' f32 [500000000,3] needs 6000000000 "
              "bytes, more than the 1073741824 left of the memory budget of 1073741824 bytes "
              "(--max-memory)");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  check_error(cli({"run", dynamic, "--shape", "x=[100,3]", "--max-memory", "1k"}), 1,
              "random input 'x' f32 [100,3] needs 1200 bytes, more than the 1024 left");
  const Outcome ok = cli({"run", dynamic, "--shape", "x=[100,3]", "--max-memory", "2KiB"});
  CHECK(ok.status == 0);
  CHECK(ok.err.empty());

  // The pipeline's input takes 48 bytes, its embedding output 128: over a budget of 100.
  check_error(cli({"run", pipeline, "--max-memory", "100"}), 1,
              "layer 4 'bags' (EmbeddingSegmentsSum-3), output port 4: output f32 [4,8] needs 128 "
              "bytes while the run holds 0 bytes: 128 bytes, over the run's memory budget of 100 "
              "bytes");
  CHECK(cli({"run", pipeline, "--max-memory", "1M"}).status == 0);

  for (const char* bad : {"0", "12X", "1.5G", "-1", "2GB!", "16777216T", "G"})
    check_error(cli({"run", dynamic, "--max-memory", bad}), 2,
                fmt::format("--max-memory '{}': expected a positive number of bytes", bad));
}

// `irlite run --profile / --profile-json / --dump / -n`, run as a user runs them, on
// models/pipeline.xml.

#include <doctest/doctest.h>

#ifdef IRLITE_CLI

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
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

const std::string kPipeline = kModels + "pipeline.xml";
const std::string kIndices = "indices=" + kModels + "inputs/pipeline_indices.npy";

// The pipeline's compute layers in run order, with their type-versions.
const std::vector<std::pair<std::string, std::string>> kComputeLayers{
    {"bags", "EmbeddingSegmentsSum-3"},
    {"bag_max", "ReduceMax-1"},
    {"top_bags", "TopK-11"},
    {"group_max", "SegmentMax-16"}};

}  // namespace

TEST_CASE("cli profile: --profile prints every compute layer in run order, and totals by op") {
  const Outcome o = cli({"run", kPipeline, "-i", kIndices, "-n", "3", "--profile"});
  CAPTURE(o.out);
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.err.empty());
  const auto lines = lines_of(o.out);
  std::size_t at = 0;
  while (at < lines.size() && lines[at].rfind("profile of ", 0) != 0) ++at;
  REQUIRE(at < lines.size());
  CHECK(contains(lines[at], "median of 3 runs"));
  CHECK(contains(lines[at + 1], "time"));
  CHECK(contains(lines[at + 1], "GB/s"));
  // One row per compute layer, in run order, with its id, type-version, share and bytes.
  for (std::size_t i = 0; i < kComputeLayers.size(); ++i) {
    const std::string& row = lines.at(at + 2 + i);
    CAPTURE(row);
    CHECK(contains(row, " " + kComputeLayers[i].first + " "));
    CHECK(contains(row, kComputeLayers[i].second));
    CHECK(contains(row, "%"));
  }
  CHECK(contains(lines.at(at + 2 + 2), "24 B"));  // TopK's outputs: f32 [3] and i32 [3]
  REQUIRE(lines.at(at + 6) == "by op:");
  for (std::size_t i = 0; i < kComputeLayers.size(); ++i)
    CHECK(contains(lines.at(at + 7 + i), kComputeLayers[i].second + " "));
  CHECK(lines.at(at + 11).rfind("layers: ", 0) == 0);
  CHECK(contains(lines.at(at + 11), ", run: "));
  // The outputs are printed once, after the last run.
  std::size_t printed = 0;
  for (const std::string& line : lines) printed += line.rfind("  top_values ", 0) == 0;
  CHECK(printed == 1);

  const Outcome quiet = cli({"run", kPipeline, "-i", kIndices});
  REQUIRE(quiet.status == 0);
  CHECK_FALSE(contains(quiet.out, "profile of"));
}

TEST_CASE("cli profile: bench --profile prints the layers' medians over the timed runs") {
  TempDir dir;
  const Outcome o = cli({"bench", kPipeline, "-i", kIndices, "-n", "7", "--profile",
                         "--profile-json", dir / "trace.json"});
  CAPTURE(o.out);
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  const auto lines = lines_of(o.out);
  std::size_t at = 0;
  while (at < lines.size() && lines[at].rfind("profile of ", 0) != 0) ++at;
  REQUIRE(at < lines.size());
  CHECK(contains(lines[at], "median of 7 runs"));
  for (std::size_t i = 0; i < kComputeLayers.size(); ++i)
    CHECK(contains(lines.at(at + 2 + i), " " + kComputeLayers[i].first + " "));
  // The trace holds the timed runs only: a "run" event and one per compute layer for each.
  const auto trace = nlohmann::json::parse(read_bytes(dir.path / "trace.json"));
  std::size_t layer_events = 0;
  for (const auto& e : trace.at("traceEvents"))
    if (e.value("ph", "") == "X" && e.value("cat", "") != "run") ++layer_events;
  CHECK(layer_events == 7 * kComputeLayers.size());
}

TEST_CASE("cli profile: --profile-json writes a Chrome trace with an X event per layer and run") {
  TempDir dir;
  const Outcome o = cli(
      {"run", kPipeline, "-i", kIndices, "--repeat", "2", "--profile-json", dir / "trace.json"});
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  CHECK_FALSE(contains(o.out, "profile of"));  // the table only with --profile
  const auto trace = nlohmann::json::parse(read_bytes(dir.path / "trace.json"));
  REQUIRE(trace.contains("traceEvents"));
  const auto& events = trace["traceEvents"];
  REQUIRE(events.is_array());
  std::vector<std::string> layers;
  std::size_t runs = 0;
  double run_end = 0;
  for (const auto& e : events) {
    CHECK(e["ph"] == "X");
    CHECK(e["pid"].is_number_integer());
    CHECK(e["tid"].is_number_integer());
    REQUIRE(e["ts"].is_number());
    REQUIRE(e["dur"].is_number());
    CHECK(e["dur"].get<double>() >= 0);
    if (e["cat"] == "run") {
      ++runs;
      CHECK(e["ts"].get<double>() >= run_end);
      run_end = e["ts"].get<double>() + e["dur"].get<double>();
      continue;
    }
    CHECK(e["ts"].get<double>() + e["dur"].get<double>() <= run_end + 1e-3);
    layers.push_back(e["name"].get<std::string>());
    const auto& args = e["args"];
    const auto expected = std::find_if(kComputeLayers.begin(), kComputeLayers.end(),
                                       [&](const auto& l) { return l.first == layers.back(); });
    REQUIRE(expected != kComputeLayers.end());
    CHECK(args["type"] == expected->second);
    CHECK(e["cat"] == expected->second.substr(0, expected->second.find('-')));
    CHECK(args["id"].is_number_integer());
    CHECK(args.contains("input_shapes"));
    CHECK(args.contains("output_shapes"));
    if (layers.back() == "top_bags") {
      CHECK(args["id"] == 8);
      CHECK(args["output_shapes"] == "[3], [3]");
      CHECK(args["input_bytes"] == 24);
      CHECK(args["output_bytes"] == 24);
    }
  }
  CHECK(runs == 2);
  std::vector<std::string> want;
  for (int r = 0; r < 2; ++r)
    for (const auto& [name, type] : kComputeLayers) want.push_back(name);
  CHECK(layers == want);
}

TEST_CASE("cli profile: --dump saves every layer's outputs, as -o does the model's outputs") {
  TempDir dir;
  const std::string dump = dir / "nested/dump";  // created with its parent
  const Outcome o = cli({"run", kPipeline, "-i", kIndices, "--dump", dump, "-o", dir / "out"});
  CAPTURE(o.out);
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  CHECK(contains(o.out, "layer outputs: 12 files in "));

  const auto index = nlohmann::json::parse(read_bytes(fs::path(dump) / "index.json"));
  CHECK(index["model"] == kPipeline);
  const Model model = Model::load(kPipeline);
  std::map<std::string, std::string> file_of;  // "layer name:port" -> file
  std::set<std::string> files;
  std::vector<std::string> layer_names;
  for (const auto& entry : index["files"]) {
    const std::string file = entry["file"];
    CAPTURE(file);
    CHECK(files.insert(file).second);
    layer_names.push_back(entry["name"]);
    file_of[entry["name"].get<std::string>() + ":" + std::to_string(entry["port"].get<int>())] =
        file;
    const Tensor t = npy::read(fs::path(dump) / file);
    CHECK(std::string(to_string(t.element_type())) == entry["element_type"].get<std::string>());
    CHECK(t.shape() == entry["shape"].get<Shape>());
    const auto layer = std::find_if(model.layers().begin(), model.layers().end(),
                                    [&](const LayerInfo& l) { return l.name == entry["name"]; });
    REQUIRE(layer != model.layers().end());
    CHECK(entry["id"] == layer->id);
    CHECK(entry["type"] == layer->type + "-" + std::to_string(layer->version));
  }
  // Every layer but the Results, in run order.
  std::vector<std::string> want;
  for (const LayerInfo& layer : model.layers())
    for (std::size_t k = 0; k < layer.outputs.size(); ++k) want.push_back(layer.name);
  CHECK(layer_names == want);
  CHECK(file_of.at("top_bags:3") == "8_top_bags.out3.npy");
  CHECK(file_of.at("indices:0") == "0_indices.out0.npy");
  // The model's outputs are byte for byte what -o writes.
  CHECK(read_bytes(fs::path(dump) / file_of.at("top_bags:2")) ==
        read_bytes(dir.path / "out/top_values.npy"));
  CHECK(read_bytes(fs::path(dump) / file_of.at("top_bags:3")) ==
        read_bytes(dir.path / "out/top_indices.npy"));
  CHECK(read_bytes(fs::path(dump) / file_of.at("group_max:2")) ==
        read_bytes(dir.path / "out/group_max.npy"));
  const Tensor dumped = npy::read(fs::path(dump) / file_of.at("indices:0"));
  const Tensor given = npy::read(kModels + "inputs/pipeline_indices.npy");
  REQUIRE(dumped.shape() == given.shape());
  CHECK(std::memcmp(dumped.data(), given.data(), given.byte_size()) == 0);
  std::size_t on_disk = 0;
  for (const auto& f : fs::directory_iterator(dump)) on_disk += f.path().extension() == ".npy";
  CHECK(on_disk == files.size());
}

TEST_CASE("cli profile: bad --dump, --profile-json and -n values are clear errors") {
  TempDir dir;
  std::ofstream(dir.path / "file") << "x";
  Outcome o = cli({"run", kPipeline, "--dump", dir / "file"});
  CHECK(o.status == 1);
  CHECK(contains(o.err, "irlite: error: "));
  CHECK(contains(o.err, dir / "file"));
  CHECK(contains(o.err, "--dump: this exists and is not a directory"));
  CHECK(read_bytes(dir.path / "file") == "x");

  o = cli({"run", kPipeline, "--dump", dir / "file/sub"});
  CHECK(o.status == 1);
  CHECK(contains(o.err, "--dump: cannot create the directory"));

  o = cli({"run", kPipeline, "--profile-json", dir / "missing/trace.json"});
  CHECK(o.status == 1);
  CHECK(contains(o.err, "cannot write the trace file"));
  CHECK(contains(o.err, "missing/trace.json"));

  for (const char* n : {"0", "-1", "x"}) {
    o = cli({"run", kPipeline, "-n", n});
    CAPTURE(n);
    CHECK(o.status == 2);
    CHECK(contains(o.err, "irlite: error: "));
    CHECK(contains(o.err, "--repeat"));
  }
}

#endif  // IRLITE_CLI

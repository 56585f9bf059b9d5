// `irlite run --json`, run as a user runs it: one JSON document with the model, the inputs and
// their sources, the outputs with their statistics and files, and the timings.

#include <doctest/doctest.h>

#ifdef IRLITE_CLI

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "irlite/irlite.hpp"
#include "npy.hpp"

using namespace irlite;
using namespace irlite::test;

TEST_CASE("cli: run --json describes inputs, outputs and timings") {
  TempDir dir;
  const std::string indices = kModels + "inputs/pipeline_indices.npy";
  const Outcome o = cli({"run", kModels + "pipeline.xml", "-i", "indices=" + indices, "-o",
                         dir / "out", "--json", "--values", "2"});
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.err.empty());
  const auto doc = nlohmann::json::parse(o.out);
  CHECK(doc["model"] == kModels + "pipeline.xml");
  REQUIRE(doc["inputs"].size() == 1);
  const auto& in = doc["inputs"][0];
  CHECK(in["name"] == "indices");
  CHECK(in["type"] == "i32");
  CHECK(in["shape"] == nlohmann::json::array({12}));
  CHECK(in["source"] == "file");
  CHECK(in["file"] == indices);
  CHECK_FALSE(in.contains("seed"));

  REQUIRE(doc["outputs"].size() == 3);
  const auto& values = doc["outputs"][0];
  CHECK(values["name"] == "top_values");
  CHECK(values["type"] == "f32");
  CHECK(values["shape"] == nlohmann::json::array({3}));
  CHECK(values["min"] == 4);
  CHECK(values["max"] == 5.25);
  CHECK(values["mean"] == doctest::Approx(14.25 / 3));
  CHECK(values["nan"] == 0);
  CHECK(values["inf"] == 0);
  CHECK(values["values"] == nlohmann::json::array({5.25, 5}));
  CHECK(values["file"] == dir / "out/top_values.npy");
  const auto& top = doc["outputs"][1];
  CHECK(top["name"] == "top_indices");
  CHECK(top["type"] == "i32");
  CHECK(top["values"] == nlohmann::json::array({3, 1}));
  CHECK(top["min"] == 1);
  CHECK_FALSE(top.contains("nan"));
  CHECK(doc["outputs"][2]["shape"] == nlohmann::json::array({3, 8}));
  CHECK(doc["outputs"][2]["min"].get<double>() < -3e38);

  CHECK(doc["timings"]["load_ms"].get<double>() > 0);
  CHECK(doc["timings"]["run_ms"].get<double>() > 0);
  CHECK_FALSE(doc.contains("expect"));
}

TEST_CASE("cli: run --json: random inputs, NaN and infinities, booleans") {
  TempDir dir;
  Tensor a(ElementType::f16, {2, 3});
  const float values[] = {NAN, INFINITY, 1.0f, -2.0f, NAN, -INFINITY};
  for (std::size_t i = 0; i < 6; ++i) a.data<float16>()[i] = float16(values[i]);
  npy::write(dir / "a.npy", a);
  const Outcome o =
      cli({"run", kCliData + "mixed.xml", "-i", "a=" + dir / "a.npy", "--seed", "7", "--json"});
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  const auto doc = nlohmann::json::parse(o.out);
  REQUIRE(doc["inputs"].size() == 5);
  CHECK(doc["inputs"][0]["source"] == "file");
  CHECK(doc["inputs"][1]["source"] == "random");
  CHECK(doc["inputs"][1]["seed"] == 7);
  CHECK_FALSE(doc["inputs"][1].contains("file"));
  const auto& a_t = doc["outputs"][0];
  CHECK(a_t["nan"] == 2);
  CHECK(a_t["inf"] == 2);
  CHECK(a_t["min"] == "-inf");
  CHECK(a_t["max"] == "inf");
  CHECK(a_t["mean"] == "nan");  // inf + -inf
  CHECK(a_t["values"] == nlohmann::json::parse(R"(["nan", "inf", 1.0, -2.0, "nan", "-inf"])"));
  CHECK_FALSE(a_t.contains("file"));
  const auto& c_t = doc["outputs"][2];
  CHECK(c_t["type"] == "boolean");
  for (const auto& v : c_t["values"]) CHECK(v.is_boolean());
  CHECK(doc["outputs"][4]["shape"] == nlohmann::json::array());
}

#endif  // IRLITE_CLI

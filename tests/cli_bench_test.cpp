// `irlite bench`, run as a user runs it: the report's fields, the stopping rules and the
// command-line errors.

#include <doctest/doctest.h>

#ifdef IRLITE_CLI

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "irlite/irlite.hpp"
#include "npy.hpp"

using namespace irlite;
using namespace irlite::test;

TEST_CASE("cli: bench -n --json reports every field over exactly n timed runs") {
  const Outcome o =
      cli({"bench", kModels + "pipeline.xml", "-n", "200", "--json", "--threads", "1"});
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  // stderr is not a terminal here: no progress line.
  CHECK(o.err.empty());
  const auto doc = nlohmann::json::parse(o.out);
  CHECK(doc["model"] == kModels + "pipeline.xml");
  CHECK(doc["iterations"] == 200);
  CHECK(doc["warmup"] == 1);
  CHECK(doc["threads"] == 1);
  CHECK(doc["load_ms"].get<double>() > 0);
  CHECK(doc["first_run_ms"].get<double>() > 0);
  CHECK(doc["seconds"].get<double>() > 0);
  CHECK(doc["runs_per_s"].get<double>() > 0);
  CHECK(doc["peak_rss_bytes"].get<std::uint64_t>() > 1024 * 1024);
  const auto& l = doc["latency_ms"];
  CHECK(l["min"].get<double>() > 0);
  CHECK(l["min"] <= l["median"]);
  CHECK(l["median"] <= l["p90"]);
  CHECK(l["p90"] <= l["p99"]);
  CHECK(l["p99"] <= l["max"]);
  CHECK(l["min"] <= l["mean"]);
  CHECK(l["mean"] <= l["max"]);
  // The mean of the timed runs fits in their wall time.
  CHECK(l["mean"].get<double>() * 200 <= doc["seconds"].get<double>() * 1000 * 1.0001);
  REQUIRE(doc["inputs"].size() == 1);
  CHECK(doc["inputs"][0]["name"] == "indices");
  CHECK(doc["inputs"][0]["type"] == "i32");
  CHECK(doc["inputs"][0]["shape"] == nlohmann::json::array({12}));
  CHECK(doc["inputs"][0]["source"] == "random");
  CHECK(doc["inputs"][0]["seed"] == 0);
}

TEST_CASE("cli: bench text report") {
  const Outcome o = cli({"bench", kModels + "pipeline.xml", "-n", "20", "--warmup", "0", "-i",
                         "indices=" + kModels + "inputs/pipeline_indices.npy", "--seed", "3"});
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.err.empty());
  for (const char* part : {"load ", " ms\n", "first run ", "warmup      0 runs",
                           "timed       20 runs in ", "latency     min ", " median ", " p90 ",
                           " p99 ", " max ", "runs/s", "peak RSS ", " MiB", "threads "})
    CHECK_MESSAGE(contains(o.out, part), part);
  CHECK(contains(o.out, "indices i32 [12]  " + kModels + "inputs/pipeline_indices.npy"));
}

TEST_CASE("cli: bench stops after -t seconds, or by default at 1000 runs or 3 seconds") {
  const Outcome t = cli({"bench", kModels + "pipeline.xml", "-t", "0.3", "--json"});
  CAPTURE(t.err);
  REQUIRE(t.status == 0);
  const auto timed = nlohmann::json::parse(t.out);
  CHECK(timed["iterations"].get<std::uint64_t>() >= 1);
  CHECK(timed["seconds"].get<double>() >= 0.3);

  const Outcome d = cli({"bench", kModels + "pipeline.xml", "--json"});
  CAPTURE(d.err);
  REQUIRE(d.status == 0);
  const auto by_default = nlohmann::json::parse(d.out);
  const auto runs = by_default["iterations"].get<std::uint64_t>();
  CHECK(runs >= 1);
  CHECK(runs <= 1000);
  // Fewer than 1000 runs only when the 3 seconds ran out first.
  if (runs < 1000) CHECK(by_default["seconds"].get<double>() >= 3);
}

TEST_CASE("cli: bench shows a progress line on a terminal and erases it") {
  // script(1) gives the command a terminal; without it there is nothing to check.
  if (std::system("command -v script >/dev/null 2>&1") != 0) return;
  TempDir dir;
  const std::string command = shell_quote(IRLITE_CLI) + " bench " +
                              shell_quote(kModels + "pipeline.xml") + " -n 50 --json >" +
                              shell_quote(dir / "out.json");
  const int status = std::system(
      ("script -qec " + shell_quote(command) + " /dev/null >" + shell_quote(dir / "tty") + " 2>&1")
          .c_str());
  REQUIRE(status == 0);
  const std::string tty = read_bytes(dir / "tty");
  CAPTURE(tty);
  CHECK(tty.rfind("\rbench: 1 runs, ", 0) == 0);
  // Erased at the end: blanks over the line, the cursor back at its start.
  REQUIRE(tty.size() > 2);
  CHECK(tty.back() == '\r');
  CHECK(tty[tty.size() - 2] == ' ');
  CHECK(nlohmann::json::parse(read_bytes(dir / "out.json"))["iterations"] == 50);
}

TEST_CASE("cli: bench rejects bad options and inputs") {
  const std::string model = kModels + "pipeline.xml";
  check_error(cli({"bench", model, "-n", "5", "-t", "1"}), 2, {"excludes"});
  check_error(cli({"bench", model, "-n", "0"}), 2, {"--iterations"});
  check_error(cli({"bench", model, "-n", "many"}), 2, {"--iterations"});
  check_error(cli({"bench", model, "-t", "-1"}), 2, {"--time"});
  check_error(cli({"bench", model, "-t", "0"}), 2, {"--time"});
  check_error(cli({"bench", model, "--warmup", "x"}), 2, {"--warmup"});
  check_error(cli({"bench", model, "--seed", "-3"}), 2, {"--seed"});
  check_error(cli({"bench", model, "--profile", "--json"}), 2, {"--profile", "--json"});
  check_error(cli({"bench"}), 2, {"model"});
  check_error(cli({"bench", model, "--max-memory", "lots"}), 2, {"--max-memory"});
  check_error(cli({"bench", model, "-i", "nowhere=x.npy"}), 1, {"no input 'nowhere'"});
  check_error(cli({"bench", kCliData + "missing.xml"}), 1, {"missing.xml"});
  // A run error stops the benchmark with the run's diagnostic.
  TempDir dir;
  Tensor indices(ElementType::i32, {12});
  indices.data<std::int32_t>()[5] = 99;
  npy::write(dir / "bad.npy", indices);
  check_error(cli({"bench", model, "-i", dir / "bad.npy"}), 1, {"99"});
}

TEST_CASE("cli: bench --help documents the report") {
  const Outcome h = cli({"bench", "--help"});
  CHECK(h.status == 0);
  CHECK(contains(h.out, "irlite bench model.xml -t 10 --json"));
  CHECK(contains(h.out, "p99"));
  const Outcome top = cli({"--help"});
  CHECK(contains(top.out, "bench"));
}

#endif  // IRLITE_CLI

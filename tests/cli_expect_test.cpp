// `irlite run --expect` and `--expect-dir`, run as a user runs them: tolerances, NaN and
// infinities, type and shape mismatches, exit status 3, and the reference files' errors.

#include <doctest/doctest.h>

#ifdef IRLITE_CLI

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "irlite/irlite.hpp"
#include "npy.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

const std::string kPipeline = kModels + "pipeline.xml";
const std::string kIndices = "indices=" + kModels + "inputs/pipeline_indices.npy";
const std::string kMixed = kCliData + "mixed.xml";

}  // namespace

TEST_CASE("cli: run --expect passes within tolerance and exits 3 beyond it") {
  TempDir dir;
  REQUIRE(cli({"run", kPipeline, "-i", kIndices, "-o", dir / "out"}).status == 0);

  // One element one ulp up: within the default f32 tolerance, beyond atol 0 rtol 0.
  Tensor group_max = npy::read(dir / "out/group_max.npy").clone();
  REQUIRE(group_max.shape() == Shape{3, 8});
  float& v = group_max.data<float>()[2 * 8 + 6];
  REQUIRE(v == 4.0f);
  v = std::nextafter(v, INFINITY);
  npy::write(dir / "ulp.npy", group_max);
  const std::string expect = "group_max=" + dir / "ulp.npy";

  const Outcome within = cli({"run", kPipeline, "-i", kIndices, "--expect", expect});
  CAPTURE(within.err);
  CHECK(within.status == 0);
  CHECK(within.err.empty());
  CHECK(contains(within.out, "expected:\n"));
  CHECK(contains(within.out, "group_max    pass  atol 1e-06 rtol 1e-05, max abs err 4.77e-07"));
  CHECK(contains(within.out, "top_values   not compared (no reference)"));

  const Outcome beyond =
      cli({"run", kPipeline, "-i", kIndices, "--expect", expect, "--atol", "0", "--rtol", "0"});
  check_error(beyond, 3, {"1 of 1 compared outputs differ from their references: group_max"});
  CHECK(contains(beyond.out,
                 "group_max    FAIL  atol 0 rtol 0, max abs err 4.77e-07, max rel "
                 "err 1.19e-07, 1 of 24 elements differ, worst at [2, 6]: 4 "
                 "(expected 4.00000048)"));

  // A relative tolerance of one f32 ulp at 4 lets it pass again.
  CHECK(
      cli({"run", kPipeline, "-i", kIndices, "--expect", expect, "--atol", "0", "--rtol", "1.2e-7"})
          .status == 0);
  // A value that is not a number and an output given twice are command-line errors.
  check_error(cli({"run", kPipeline, "--expect", expect, "--atol", "-1"}), 2, {"--atol"});
  check_error(cli({"run", kPipeline, "--expect", expect, "--rtol", "x"}), 2, {"--rtol"});
  check_error(cli({"run", kPipeline, "--expect", expect, "--expect", expect}), 2,
              {"output 'group_max' is expected twice"});
}

TEST_CASE("cli: run --expect compares integers exactly, by tensor name too") {
  TempDir dir;
  REQUIRE(cli({"run", kPipeline, "-i", kIndices, "-o", dir / "out"}).status == 0);
  Tensor top = npy::read(dir / "out/top_indices.npy").clone();
  REQUIRE(top.values<std::int32_t>()[1] == 1);
  top.data<std::int32_t>()[1] = 2;
  npy::write(dir / "top.npy", top);
  const Outcome o = cli({"run", kPipeline, "-i", kIndices, "--expect",
                         "top_indices=" + dir / "top.npy", "--atol", "5"});
  check_error(o, 3, {"top_indices"});
  CHECK(contains(o.out,
                 "top_indices  FAIL  exact, max abs err 1, max rel err 0.5, 1 of 3 "
                 "elements differ, worst at [1]: 1 (expected 2)"));
}

TEST_CASE("cli: run --expect: NaN equals NaN, infinities must match, types and shapes too") {
  TempDir dir;
  // mixed.xml passes every input to an output: a (f16 [2,3]) becomes a_t.
  Tensor a(ElementType::f16, {2, 3});
  const float values[] = {0.5f, NAN, INFINITY, -INFINITY, 1.0f, -2.0f};
  for (std::size_t i = 0; i < 6; ++i) a.data<float16>()[i] = float16(values[i]);
  npy::write(dir / "a.npy", a);
  const std::string input = "a=" + dir / "a.npy";

  const Outcome same = cli({"run", kMixed, "-i", input, "--expect", "a_t=" + dir / "a.npy",
                            "--atol", "0", "--rtol", "0"});
  CAPTURE(same.err);
  CHECK(same.status == 0);
  CHECK(contains(same.out, "a_t  pass  atol 0 rtol 0, max abs err 0, max rel err 0"));

  SUBCASE("a number where NaN is expected") {
    Tensor b = a.clone();
    b.data<float16>()[1] = float16(0.0f);
    npy::write(dir / "b.npy", b);
    const Outcome o = cli({"run", kMixed, "-i", input, "--expect", "a_t=" + dir / "b.npy"});
    check_error(o, 3, {"a_t"});
    CHECK(contains(o.out, "max abs err inf"));
    CHECK(contains(o.out, "worst at [0, 1]: nan (expected 0)"));
  }
  SUBCASE("infinities of the other sign") {
    Tensor b = a.clone();
    b.data<float16>()[3] = float16(INFINITY);
    npy::write(dir / "b.npy", b);
    const Outcome o =
        cli({"run", kMixed, "-i", input, "--expect", "a_t=" + dir / "b.npy", "--atol", "1e30"});
    check_error(o, 3, {"a_t"});
    CHECK(contains(o.out, "worst at [1, 0]: -inf (expected inf)"));
  }
  SUBCASE("another shape") {
    npy::write(dir / "b.npy", Tensor(ElementType::f16, {3, 2}));
    const Outcome o = cli({"run", kMixed, "-i", input, "--expect", "a_t=" + dir / "b.npy"});
    check_error(o, 3, {"a_t"});
    CHECK(contains(o.out, "a_t  FAIL  the output is f16 [2,3], the reference f16 [3,2]"));
  }
  SUBCASE("another type") {
    npy::write(dir / "b.npy", Tensor(ElementType::f32, {2, 3}));
    const Outcome o = cli({"run", kMixed, "-i", input, "--expect", "a_t=" + dir / "b.npy"});
    check_error(o, 3, {"a_t"});
    CHECK(contains(o.out, "a_t  FAIL  the output is f16 [2,3], the reference f32 [2,3]"));
  }
  SUBCASE("--json carries the comparisons") {
    const Outcome o =
        cli({"run", kMixed, "-i", input, "--expect", "a_t=" + dir / "a.npy", "--json"});
    CAPTURE(o.err);
    REQUIRE(o.status == 0);
    const auto doc = nlohmann::json::parse(o.out);
    REQUIRE(doc["expect"].size() == 5);
    const auto& c = doc["expect"][0];
    CHECK(c["output"] == "a_t");
    CHECK(c["compared"] == true);
    CHECK(c["pass"] == true);
    CHECK(c["reference"] == dir / "a.npy");
    CHECK(c["atol"] == 1e-3);
    CHECK(c["elements"] == 6);
    CHECK(c["mismatches"] == 0);
    CHECK(c["max_abs_error"] == 0);
    CHECK(doc["expect"][1]["compared"] == false);
  }
}

TEST_CASE("cli: run --expect-dir takes the files -o DIR wrote") {
  TempDir dir;
  // Every element type, bf16 written as its raw bits among them.
  REQUIRE(cli({"run", kMixed, "--seed", "9", "-o", dir / "ref"}).status == 0);
  const Outcome same = cli({"run", kMixed, "--seed", "9", "--expect-dir", dir / "ref"});
  CAPTURE(same.err);
  CHECK(same.status == 0);
  for (const char* name : {"a_t", "b_t", "c_t", "d_t", "e_t"})
    CHECK_MESSAGE(contains(same.out, std::string(name) + "  pass  "), name);

  const Outcome other = cli({"run", kMixed, "--seed", "10", "--expect-dir", dir / "ref"});
  CHECK(other.status == 3);
  CHECK(contains(other.out, "a_t  FAIL  "));

  SUBCASE("an output without a file is not compared") {
    std::filesystem::remove(dir / "ref/c_t.npy");
    const Outcome o = cli({"run", kMixed, "--seed", "9", "--expect-dir", dir / "ref"});
    CHECK(o.status == 0);
    CHECK(contains(o.out, "c_t  not compared (no reference)"));
  }
  SUBCASE("a file naming no output is an error") {
    std::filesystem::copy_file(dir / "ref/a_t.npy", dir / "ref/zz.npy");
    check_error(cli({"run", kMixed, "--seed", "9", "--expect-dir", dir / "ref"}), 1,
                {dir / "ref/zz.npy", "names no output of the model (outputs: a_t, b_t"});
  }
  SUBCASE("with --expect for the same output") {
    check_error(cli({"run", kMixed, "--seed", "9", "--expect-dir", dir / "ref", "--expect",
                     "a_t=" + dir / "ref/a_t.npy"}),
                2, {"output 'a_t' is expected twice"});
  }
  SUBCASE("a missing folder") {
    check_error(cli({"run", kMixed, "--expect-dir", dir / "none"}), 1,
                {dir / "none", "--expect-dir"});
  }
}

TEST_CASE("cli: run --expect errors name the file and the output") {
  TempDir dir;
  check_error(cli({"run", kMixed, "--expect", "nothing=" + dir / "x.npy"}), 1,
              {"the model has no output 'nothing'"});
  check_error(cli({"run", kMixed, "--expect", dir / "x.npy"}), 2,
              {"the model has 5 outputs", "NAME=REF.npy"});
  check_error(cli({"run", kMixed, "--expect", "a_t=" + dir / "missing.npy"}), 1,
              {dir / "missing.npy"});
  check_error(cli({"run", kMixed, "--expect", "a_t="}), 2, {"the file name is empty"});
  // A single-output model takes the file alone.
  REQUIRE(cli({"run", kCliData + "dynamic.xml", "-o", dir / "out"}).status == 0);
  CHECK(cli({"run", kCliData + "dynamic.xml", "--expect", dir / "out/x_out.npy"}).status == 0);
}

TEST_CASE("cli: run --help documents --expect and the exit statuses") {
  const Outcome h = cli({"run", "--help"});
  CHECK(h.status == 0);
  CHECK(contains(h.out, "--expect"));
  CHECK(contains(h.out, "3 an output"));
  CHECK(contains(cli({"--help"}).out, "3 an output differs"));
}

#endif  // IRLITE_CLI

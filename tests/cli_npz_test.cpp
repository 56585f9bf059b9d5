// `irlite run -i FILE.npz` and `-o FILE.npz` as a user runs them: round trips, archives from
// NumPy's savez_compressed, archives mixed with other -i flags, and the errors.

#include <doctest/doctest.h>

#ifdef IRLITE_CLI

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_util.hpp"
#include "irlite/irlite.hpp"
#include "npy.hpp"
#include "npz.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

const std::string kCompressed = kCliData + "mixed_inputs.npz";

// The archive's offset of the first record with this 4-byte signature.
std::size_t find_record(const std::string& zip, const char* signature) {
  const std::size_t at = zip.find(std::string(signature, 4));
  REQUIRE(at != std::string::npos);
  return at;
}

void put32(std::string& zip, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) zip[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

}  // namespace

TEST_CASE("cli: run -o FILE.npz, then -i FILE.npz") {
  TempDir dir;
  const std::string mixed = kCliData + "mixed.xml";
  const Outcome first = cli({"run", mixed, "--seed", "4", "-o", dir / "a.npz"});
  CAPTURE(first.err);
  REQUIRE(first.status == 0);
  CHECK(contains(first.out, "saved to " + dir / "a.npz"));
  // Its outputs a_t... are tensor names of its inputs too: fed back, they come out the same.
  const Outcome second = cli({"run", mixed, "-i", dir / "a.npz", "-o", dir / "b.npz", "--json"});
  CAPTURE(second.err);
  REQUIRE(second.status == 0);
  CHECK(read_bytes(dir / "a.npz") == read_bytes(dir / "b.npz"));
  const auto doc = nlohmann::json::parse(second.out);
  CHECK(doc["inputs"][3]["source"] == "file");
  CHECK(doc["inputs"][3]["file"] == dir / "a.npz");
  CHECK(doc["inputs"][3]["array"] == "d_t");
  CHECK(doc["outputs"][3]["file"] == dir / "b.npz");
  // The same archive as references.
  CHECK(cli({"run", mixed, "--seed", "4", "--expect", dir / "a.npz"}).status == 0);
  CHECK(cli({"run", mixed, "--seed", "5", "--expect", dir / "a.npz"}).status == 3);

  const auto arrays = npz::read(dir / "a.npz");
  REQUIRE(arrays.size() == 5);
  CHECK(arrays[0].name == "a_t");
  CHECK(arrays[3].tensor.element_type() == ElementType::u16);  // bf16 as its raw bits
}

TEST_CASE("cli: run -i FILE.npz from NumPy's savez_compressed, mixed with other -i") {
  TempDir dir;
  const std::string mixed = kCliData + "mixed.xml";
  const Outcome o = cli({"run", mixed, "-i", kCompressed, "--json"});
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  const auto doc = nlohmann::json::parse(o.out);
  CHECK(doc["outputs"][0]["values"] ==
        nlohmann::json::parse(R"([0.5, -1.25, 2.0, "nan", "inf", -3.0])"));
  CHECK(doc["outputs"][1]["values"] == nlohmann::json::parse("[1, -2, 3, 1099511627776]"));
  CHECK(doc["outputs"][2]["values"] == nlohmann::json::parse("[true, false, false, true]"));
  CHECK(doc["outputs"][3]["values"] == nlohmann::json::parse("[1.0, -2.5, 0.15625]"));
  CHECK(doc["outputs"][4]["values"] == nlohmann::json::parse("[7]"));

  // An archive feeding some inputs, -i files the others.
  npz::write(dir / "part.npz", {{"a", npz::read(kCompressed)[0].tensor}});
  npy::write(dir / "b.npy", Tensor(ElementType::i64, {4}));
  const Outcome part = cli({"run", mixed, "-i", dir / "part.npz", "-i", "b=" + dir / "b.npy"});
  CAPTURE(part.err);
  CHECK(part.status == 0);
  CHECK(contains(part.out, dir / "part.npz:a\n"));

  check_error(cli({"run", mixed, "-i", dir / "part.npz", "-i", "a=" + dir / "b.npy"}), 2,
              {"input 'a' is given twice (-i " + dir / "part.npz and -i a="});
  check_error(cli({"run", mixed, "-i", kCompressed, "-i", dir / "part.npz"}), 2,
              {"input 'a' is given twice"});
  check_error(cli({"run", mixed, "-i", "a=" + dir / "part.npz"}), 2,
              {"a .npz feeds the inputs its arrays name; write -i " + dir / "part.npz"});

  npz::write(dir / "extra.npz", {{"a", npz::read(kCompressed)[0].tensor},
                                 {"zz", Tensor(ElementType::f32, {1})},
                                 {"yy", Tensor(ElementType::f32, {1})}});
  check_error(cli({"run", mixed, "-i", dir / "extra.npz"}), 1,
              {dir / "extra.npz", "arrays 'zz', 'yy' name no input of the model (inputs: a, b"});
  npz::write(dir / "wrong.npz", {{"b", Tensor(ElementType::f32, {4})}});
  check_error(cli({"run", mixed, "-i", dir / "wrong.npz"}), 1,
              {dir / "wrong.npz:b", "input 'b' expects i64 [4], but the file holds f32 [4]"});
}

TEST_CASE("cli: run -i with a corrupt or missing archive") {
  TempDir dir;
  const std::string mixed = kCliData + "mixed.xml";
  const std::string zip = read_bytes(kCompressed);
  write_bytes(dir / "cut.npz", zip.substr(0, zip.size() / 2));
  check_error(cli({"run", mixed, "-i", dir / "cut.npz"}), 1,
              {dir / "cut.npz", "no end-of-central-directory record"});
  std::string lying = zip;
  put32(lying, find_record(zip, "PK\x01\x02") + 24, 0xfffffff0u);
  write_bytes(dir / "lying.npz", lying);
  check_error(cli({"run", mixed, "-i", dir / "lying.npz"}), 1,
              {dir / "lying.npz", "member 'a.npy'", "more than deflate can produce"});
  check_error(cli({"run", mixed, "-i", dir / "none.npz"}), 1, {dir / "none.npz"});
  // -o into a folder that cannot be made.
  write_bytes(dir / "file", "x");
  check_error(cli({"run", mixed, "-o", dir / "file/out.npz"}), 1, {dir / "file/out.npz"});
}

#endif  // IRLITE_CLI

// The command's .npz reader and writer: round trips, archives from NumPy's savez_compressed, and
// the errors on truncated and corrupt archives.

#include "npz.hpp"

#include <doctest/doctest.h>
#include <zlib.h>

#include <cstddef>
#include <fstream>
#include <span>
#include <sstream>
#include <string>

#include "irlite/irlite.hpp"
#include "npy.hpp"

using namespace irlite;

namespace {

const std::string kCompressed = std::string(IRLITE_TEST_DATA) + "/cli/mixed_inputs.npz";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::span<const std::byte> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// The archive's offset of the first record with this 4-byte signature at or after `from`.
std::size_t find_record(const std::string& zip, const char* signature, std::size_t from = 0) {
  const std::size_t at = zip.find(std::string(signature, 4), from);
  REQUIRE(at != std::string::npos);
  return at;
}

void put32(std::string& zip, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) zip[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// Appends `v` as `width` little-endian bytes.
void append(std::string& out, std::uint64_t v, int width) {
  for (int i = 0; i < width; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// An archive of one stored member, x.npy, in the ZIP64 form: every 32-bit size, offset and count
// all ones, the real values in ZIP64 extra fields and the ZIP64 end record.
std::string zip64_archive(const std::string& image) {
  const auto crc = static_cast<std::uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(image.data()), static_cast<uInt>(image.size())));
  std::string out;
  append(out, 0x04034b50, 4);
  for (const std::uint64_t v : {45, 0, 0, 0, 0x21}) append(out, v, 2);
  append(out, crc, 4);
  append(out, 0xffffffff, 4);
  append(out, 0xffffffff, 4);
  append(out, 5, 2);
  append(out, 20, 2);
  out += "x.npy";
  append(out, 1, 2);
  append(out, 16, 2);
  append(out, image.size(), 8);
  append(out, image.size(), 8);
  out += image;
  const std::size_t directory = out.size();
  append(out, 0x02014b50, 4);
  for (const std::uint64_t v : {45, 45, 0, 0, 0, 0x21}) append(out, v, 2);
  append(out, crc, 4);
  append(out, 0xffffffff, 4);
  append(out, 0xffffffff, 4);
  for (const std::uint64_t v : {5, 28, 0, 0, 0}) append(out, v, 2);
  append(out, 0, 4);
  append(out, 0xffffffff, 4);
  out += "x.npy";
  append(out, 1, 2);
  append(out, 24, 2);
  append(out, image.size(), 8);
  append(out, image.size(), 8);
  append(out, 0, 8);
  const std::size_t end64 = out.size();
  append(out, 0x06064b50, 4);
  append(out, 44, 8);
  append(out, 45, 2);
  append(out, 45, 2);
  append(out, 0, 4);
  append(out, 0, 4);
  append(out, 1, 8);
  append(out, 1, 8);
  append(out, end64 - directory, 8);
  append(out, directory, 8);
  append(out, 0x07064b50, 4);
  append(out, 0, 4);
  append(out, end64, 8);
  append(out, 1, 4);
  append(out, 0x06054b50, 4);
  for (const std::uint64_t v : {0, 0, 0xffff, 0xffff}) append(out, v, 2);
  append(out, 0xffffffff, 4);
  append(out, 0xffffffff, 4);
  append(out, 0, 2);
  return out;
}

}  // namespace

TEST_CASE("npz: encode and decode round trip, deterministic") {
  Tensor a(ElementType::f32, {2, 2});
  for (std::size_t i = 0; i < 4; ++i) a.data<float>()[i] = 0.5f * static_cast<float>(i);
  Tensor b(ElementType::i64, {});
  b.data<std::int64_t>()[0] = -7;
  const std::string zip =
      npz::encode({{"a", a}, {"dir/b", b}, {"empty", Tensor(ElementType::u8, {0, 3})}});
  CHECK(zip == npz::encode({{"a", a}, {"dir/b", b}, {"empty", Tensor(ElementType::u8, {0, 3})}}));
  const auto arrays = npz::decode(as_bytes(zip), "t.npz");
  REQUIRE(arrays.size() == 3);
  CHECK(arrays[0].name == "a");
  CHECK(arrays[0].tensor.shape() == Shape{2, 2});
  CHECK(arrays[0].tensor.values<float>()[3] == 1.5f);
  CHECK(arrays[1].name == "dir/b");
  CHECK(arrays[1].tensor.values<std::int64_t>()[0] == -7);
  CHECK(arrays[2].tensor.shape() == Shape{0, 3});
  CHECK(npz::decode(as_bytes(npz::encode({})), "t.npz").empty());
  CHECK_THROWS_WITH_AS(npz::encode({{"a", a}, {"a", b}}), doctest::Contains("given twice"), Error);
}

TEST_CASE("npz: reads NumPy's savez_compressed") {
  const auto arrays = npz::read(kCompressed);
  REQUIRE(arrays.size() == 5);
  CHECK(arrays[0].name == "a");
  CHECK(arrays[0].tensor.element_type() == ElementType::f16);
  CHECK(static_cast<float>(arrays[0].tensor.values<float16>()[1]) == -1.25f);
  CHECK(arrays[1].tensor.values<std::int64_t>()[3] == std::int64_t{1} << 40);
  CHECK(arrays[3].tensor.element_type() == ElementType::u16);
  CHECK(arrays[4].tensor.shape() == Shape{});
}

TEST_CASE("npz: reads ZIP64 sizes, offsets and counts") {
  Tensor x(ElementType::i16, {3});
  x.data<std::int16_t>()[2] = -5;
  const std::string zip = zip64_archive(npy::encode(x));
  const auto arrays = npz::decode(as_bytes(zip), "t.npz");
  REQUIRE(arrays.size() == 1);
  CHECK(arrays[0].name == "x");
  CHECK(arrays[0].tensor.values<std::int16_t>()[2] == -5);
  // Without its locator, the end record points nowhere.
  std::string bad = zip;
  bad[zip.size() - 22 - 20] = 'X';
  CHECK_THROWS_WITH_AS(npz::decode(as_bytes(bad), "t.npz"),
                       doctest::Contains("defers to a ZIP64 record that is missing"), Error);
  // A ZIP64 extra field too short for the values it must hold.
  bad = zip;
  const std::size_t central = find_record(zip, "PK\x01\x02");
  bad[central + 46 + 5 + 2] = 8;
  CHECK_THROWS_WITH_AS(npz::decode(as_bytes(bad), "t.npz"),
                       doctest::Contains("member 'x.npy': its ZIP64 field is too short"), Error);
}

TEST_CASE("npz: every truncation and every corrupt byte is an error or a valid archive") {
  const std::string zip = read_file(kCompressed);
  for (std::size_t n = 0; n < zip.size(); ++n) {
    CAPTURE(n);
    CHECK_THROWS_AS(npz::decode(as_bytes(zip.substr(0, n)), "t.npz"), Error);
  }
  for (std::size_t i = 0; i < zip.size(); ++i) {
    for (const unsigned char flip : {0x01, 0x80, 0xff}) {
      std::string bad = zip;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      try {
        for (const auto& a : npz::decode(as_bytes(bad), "t.npz")) CHECK(a.tensor.size() <= 64);
      } catch (const Error& e) {
        CHECK(std::string(e.what()).find("t.npz") == 0);
      }
    }
  }
}

TEST_CASE("npz: errors name the archive and the member") {
  const std::string zip = read_file(kCompressed);
  const auto error = [](const std::string& bytes) {
    try {
      npz::decode(as_bytes(bytes), "t.npz");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("t.npz") == 0);
      return std::string(e.what());
    }
    FAIL("no error");
    return std::string();
  };
  CHECK(error("").find("not a .npz (ZIP) archive") != std::string::npos);
  CHECK(error(zip.substr(0, zip.size() - 1)).find("no end-of-central-directory") !=
        std::string::npos);
  CHECK(error(std::string(100, 'x')).find("no end-of-central-directory") != std::string::npos);

  const std::size_t central = find_record(zip, "PK\x01\x02");
  const std::size_t end = find_record(zip, "PK\x05\x06");
  SUBCASE("a member declaring more than deflate can produce") {
    std::string bad = zip;
    put32(bad, central + 24, 0xfffffff0u);
    CHECK(error(bad) ==
          "t.npz: member 'a.npy': declares 4294967280 bytes inflated from 82, "
          "more than deflate can produce");
  }
  SUBCASE("a member declaring fewer bytes than it inflates to") {
    std::string bad = zip;
    put32(bad, central + 24, 100);
    CHECK(error(bad) == "t.npz: member 'a.npy': inflates to more than the 100 bytes it declares");
  }
  SUBCASE("a member declaring more bytes than it inflates to") {
    std::string bad = zip;
    put32(bad, central + 24, 141);
    CHECK(error(bad) == "t.npz: member 'a.npy': inflates to 140 bytes, not the 141 it declares");
  }
  SUBCASE("deflate data cut short") {
    std::string bad = zip;
    put32(bad, central + 20, 40);
    CHECK(error(bad).find("t.npz: member 'a.npy': the deflate data ends early, after ") == 0);
  }
  SUBCASE("corrupt deflate data") {
    std::string bad = zip;
    const std::size_t data = find_record(zip, "PK\x03\x04") + 30 + 5 + 20;  // name, ZIP64 extra
    for (std::size_t i = 0; i < 8; ++i) bad[data + i] = '\xff';
    const std::string e = error(bad);
    CHECK(e.find("t.npz: member 'a.npy': ") == 0);
    CHECK((e.find("corrupt deflate data") != std::string::npos ||
           e.find("CRC-32 mismatch") != std::string::npos));
  }
  SUBCASE("a CRC that does not match") {
    std::string bad = zip;
    bad[central + 16] = static_cast<char>(bad[central + 16] ^ 1);
    CHECK(error(bad) == "t.npz: member 'a.npy': CRC-32 mismatch: the data is corrupt");
  }
  SUBCASE("an entry count beyond the directory") {
    std::string bad = zip;
    bad[end + 8] = bad[end + 10] = '\xfe';
    bad[end + 9] = bad[end + 11] = '\x7f';
    CHECK(error(bad).find("32766 entries cannot fit") != std::string::npos);
  }
  SUBCASE("a directory beyond the archive") {
    std::string bad = zip;
    put32(bad, end + 16, 0x7fffffff);
    CHECK(error(bad).find("the central directory") != std::string::npos);
  }
  SUBCASE("a local header beyond the archive") {
    std::string bad = zip;
    put32(bad, central + 42, 0x7ffffff0);
    CHECK(error(bad).find("t.npz: truncated or corrupt .npz: a member's local header") == 0);
  }
  SUBCASE("an unsupported method") {
    std::string bad = zip;
    bad[central + 10] = 12;
    CHECK(error(bad).find("member 'a.npy': compression method 12 is not supported") !=
          std::string::npos);
  }
  SUBCASE("encrypted") {
    std::string bad = zip;
    bad[central + 8] = 1;
    CHECK(error(bad) == "t.npz: member 'a.npy': encrypted members are not supported");
  }
  SUBCASE("a member that is not .npy") {
    std::string bad = zip;
    bad[central + 46 + 4] = 'z';
    CHECK(error(bad) == "t.npz: member 'a.npz' is not an array: .npz members are NAME.npy");
  }
  SUBCASE("a member named twice") {
    std::string bad = zip;
    const std::size_t second = find_record(zip, "PK\x01\x02", central + 1);
    bad[second + 46] = 'a';
    CHECK(error(bad) == "t.npz: member 'a.npy' appears twice");
  }
  SUBCASE("a bad .npy inside") {
    const Tensor x(ElementType::f32, {2});
    const std::string image = npy::encode(x);
    std::string wrong = image;
    wrong.replace(wrong.find("(2,)"), 4, "(9,)");
    std::string bad = npz::encode({{"x", x}});
    bad.replace(bad.find(image), image.size(), wrong);
    const auto crc = static_cast<std::uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(wrong.data()), static_cast<uInt>(wrong.size())));
    put32(bad, find_record(bad, "PK\x03\x04") + 14, crc);
    put32(bad, find_record(bad, "PK\x01\x02") + 16, crc);
    CHECK(error(bad).find("t.npz:x.npy: ") == 0);
  }
}

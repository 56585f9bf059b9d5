// The command's .npy reader and writer: round trips of every element type, header variants
// numpy writes, and every malformed file the reader must refuse.

#include "npy.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "temp_dir.hpp"
#include "test_fifo.hpp"

using namespace irlite;

namespace {

std::span<const std::byte> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

Tensor decode(const std::string& image) {
  return npy::decode(bytes_of(image), "t.npy");
}

// A .npy image with `dict` as the header, padded the way numpy pads, and `data` after it.
std::string image(const std::string& dict, const std::string& data, int major = 1) {
  const std::size_t preamble = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((preamble + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < preamble - 8; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

template <class T>
std::string raw(std::initializer_list<T> values) {
  std::string s;
  for (const T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
  return s;
}

// Expects decode(img) to fail with Error(input) naming t.npy and saying `what`.
void check_refused(const std::string& img, const std::string& what) {
  CAPTURE(what);
  try {
    decode(img);
    FAIL("decoded a malformed image");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::input);
    CHECK(e.context().file == "t.npy");
    CHECK(std::string(e.what()).rfind("t.npy: ", 0) == 0);
    CHECK_MESSAGE(e.message().find(what) != std::string::npos, std::string(e.what()));
  }
}

// Fills a tensor with values that differ per element, every byte of the storage involved.
Tensor patterned(ElementType type, Shape shape) {
  Tensor t(type, std::move(shape));
  auto* bytes = static_cast<std::uint8_t*>(t.data());
  for (std::size_t i = 0; i < t.byte_size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 37 + 11);
  if (type == ElementType::boolean)
    for (std::size_t i = 0; i < t.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i % 3 == 0);
  return t;
}

using test::TempDir;

}  // namespace

TEST_CASE("npy: every element type round-trips, with scalar, 1-D, empty and 3-D shapes") {
  const ElementType types[] = {
      ElementType::f16, ElementType::bf16, ElementType::f32,    ElementType::f64, ElementType::i8,
      ElementType::i16, ElementType::i32,  ElementType::i64,    ElementType::u8,  ElementType::u16,
      ElementType::u32, ElementType::u64,  ElementType::boolean};
  const Shape shapes[] = {{}, {5}, {0, 4}, {2, 3, 4}, {3, 0}};
  for (const ElementType type : types) {
    for (const Shape& shape : shapes) {
      CAPTURE(to_string(type));
      CAPTURE(to_string(shape));
      const Tensor t = patterned(type, shape);
      const std::string img = npy::encode(t);
      CHECK(img.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
      const std::size_t header_len = static_cast<std::uint8_t>(img[8]) |
                                     static_cast<std::size_t>(static_cast<std::uint8_t>(img[9]))
                                         << 8;
      CHECK((10 + header_len) % 64 == 0);
      CHECK(img[10 + header_len - 1] == '\n');
      CHECK(img.size() == 10 + header_len + t.byte_size());

      const Tensor back = decode(img);
      // bf16 has no NumPy dtype: it is written as its raw bits and read back as u16.
      CHECK(back.element_type() == (type == ElementType::bf16 ? ElementType::u16 : type));
      CHECK(back.shape() == shape);
      REQUIRE(back.byte_size() == t.byte_size());
      if (t.byte_size()) CHECK(std::memcmp(back.data(), t.data(), t.byte_size()) == 0);
    }
  }
}

TEST_CASE("npy: the header is the dict numpy writes") {
  Tensor t(ElementType::f32, {2, 3});
  const std::string img = npy::encode(t);
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  CHECK(img.substr(10, dict.size()) == dict);
  CHECK(img.size() == 128 + 24);  // 10 + 60 -> one 64-byte block is too small: two blocks
  CHECK(img.find_first_not_of(' ', 10 + dict.size()) == 127);

  CHECK(npy::encode(Tensor(ElementType::i64, {7})).find("'shape': (7,), }") != std::string::npos);
  CHECK(npy::encode(Tensor(ElementType::boolean, {})).find("'descr': '|b1'") != std::string::npos);
  CHECK(npy::encode(Tensor(ElementType::boolean, {})).find("'shape': (), }") != std::string::npos);
  CHECK(npy::descr(ElementType::bf16) == "<u2");
  CHECK(npy::descr(ElementType::i8) == "|i1");
  CHECK_THROWS_AS(npy::descr(ElementType::undefined), Error);
}

TEST_CASE("npy: values survive a round trip") {
  Tensor t(ElementType::f32, {2, 2});
  const float values[] = {1.5f, -0.25f, std::numeric_limits<float>::infinity(), -0.0f};
  std::memcpy(t.data(), values, sizeof values);
  const Tensor back = decode(npy::encode(t));
  REQUIRE(back.element_type() == ElementType::f32);
  CHECK(back.data<float>()[0] == 1.5f);
  CHECK(back.data<float>()[1] == -0.25f);
  CHECK(back.data<float>()[2] == std::numeric_limits<float>::infinity());
  CHECK(std::signbit(back.data<float>()[3]));
}

TEST_CASE("npy: header variants numpy and other writers produce") {
  SUBCASE("version 2.0 and 3.0 with a 32-bit header length") {
    for (const int major : {2, 3}) {
      const Tensor t = decode(image("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
                                    raw<std::int32_t>({-7, 123456}), major));
      REQUIRE(t.element_type() == ElementType::i32);
      CHECK(t.shape() == Shape{2});
      CHECK(t.data<std::int32_t>()[0] == -7);
      CHECK(t.data<std::int32_t>()[1] == 123456);
    }
  }
  SUBCASE("any key order, double quotes, extra blanks, no trailing comma") {
    const Tensor t =
        decode(image(" {  \"shape\" :(1 , 2) ,'fortran_order':False,\n"
                     "'descr':\"<u2\"}  ",
                     raw<std::uint16_t>({1, 65535})));
    REQUIRE(t.element_type() == ElementType::u16);
    CHECK(t.shape() == Shape{1, 2});
    CHECK(t.data<std::uint16_t>()[1] == 65535);
  }
  SUBCASE("byte order '=' and, for one-byte types, '<', '|' and '>'") {
    CHECK(
        decode(image("{'descr': '=f8', 'fortran_order': False, 'shape': (), }", raw<double>({2.5})))
            .data<double>()[0] == 2.5);
    for (const char* d : {"<i1", "|i1", ">i1", "=i1"}) {
      CAPTURE(d);
      const Tensor t = decode(
          image(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (1,), }",
                raw<std::int8_t>({-3})));
      CHECK(t.element_type() == ElementType::i8);
      CHECK(t.data<std::int8_t>()[0] == -3);
    }
  }
  SUBCASE("Python 2 long dimensions") {
    const Tensor t = decode(image("{'descr': '|u1', 'fortran_order': False, 'shape': (2L, 1L), }",
                                  raw<std::uint8_t>({4, 5})));
    CHECK(t.shape() == Shape{2, 1});
  }
  SUBCASE("no padding at all") {
    std::string img = "\x93NUMPY\x01";
    img += '\0';
    const std::string dict = "{'descr':'<i8','fortran_order':False,'shape':(1,)}";
    img += static_cast<char>(dict.size());
    img += '\0';
    img += dict + raw<std::int64_t>({-9});
    CHECK(decode(img).data<std::int64_t>()[0] == -9);
  }
  SUBCASE("booleans other than 0 read as true, as numpy does") {
    const Tensor t = decode(image("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                                  raw<std::uint8_t>({0, 1, 2})));
    REQUIRE(t.element_type() == ElementType::boolean);
    CHECK(t.data<std::uint8_t>()[0] == 0);
    CHECK(t.data<std::uint8_t>()[1] == 1);
    CHECK(t.data<std::uint8_t>()[2] == 1);
  }
}

TEST_CASE("npy: malformed files are refused with a clear error") {
  const std::string good_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string data = raw<float>({1, 2});

  SUBCASE("magic and version") {
    std::string img = image(good_dict, data);
    img[1] = 'M';
    check_refused(img, "magic string");
    check_refused("PK\x03\x04 not numpy at all", "magic string");
    check_refused("\x93NUM", "shorter than the smallest header");
    check_refused("", "shorter than the smallest header");
    img = image(good_dict, data);
    img[6] = 4;
    check_refused(img, "unsupported .npy format version 4.0");
    img = image(good_dict, data);
    img[7] = 1;
    check_refused(img, "unsupported .npy format version 1.1");
  }
  SUBCASE("truncated header") {
    const std::string img = image(good_dict, data);
    check_refused(img.substr(0, 40), "truncated header");
    check_refused(image(good_dict, data, 2).substr(0, 11), "truncated header");
    std::string lying = img;
    lying[9] = '\x7f';  // header length 0x7f40: far past the end
    check_refused(lying, "truncated header");
  }
  SUBCASE("bad dict") {
    check_refused(image("descr: <f4", data), "expected '{'");
    check_refused(image("{'descr': '<f4', 'fortran_order': False}", data), "'shape' is missing");
    check_refused(image("{'fortran_order': False, 'shape': (2,)}", data), "'descr' is missing");
    check_refused(image("{'descr': '<f4', 'shape': (2,)}", data), "'fortran_order' is missing");
    check_refused(image("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data),
                  "unexpected key 'x'");
    check_refused(
        image("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", data),
        "appears twice");
    check_refused(image("{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", data),
                  "expected True or False");
    check_refused(image("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", data),
                  "non-negative integer");
    check_refused(image("{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", data),
                  "expected '('");
    check_refused(image("{'descr': '<f4 , 'fortran_order': False, 'shape': (2,)}", data),
                  "expected ','");
    check_refused(image("{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}", data),
                  "expected ':'");
    check_refused(image("{'descr': '<f4', 'fortran_order': False, 'shape: (2,)}", data),
                  "unterminated string");
    check_refused(image("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", data),
                  "expected ','");
    check_refused(image("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", data),
                  "after the closing '}'");
    check_refused(image("{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", data),
                  "expected ','");
    check_refused(image("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", data),
                  "structured dtypes");
    check_refused(image("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(99999999999999999999,)}",
                        data),
                  "does not fit a 64-bit integer");
  }
  SUBCASE("dtypes") {
    check_refused(image("{'descr': '<c8', 'fortran_order': False, 'shape': (1,)}", data),
                  "unsupported dtype '<c8'");
    check_refused(image("{'descr': '|O', 'fortran_order': False, 'shape': (1,)}", data),
                  "unsupported dtype '|O'");
    check_refused(image("{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}", data),
                  "big-endian");
    check_refused(image("{'descr': '|f4', 'fortran_order': False, 'shape': (2,)}", data),
                  "has no byte order");
  }
  SUBCASE("fortran order") {
    check_refused(image("{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}", data),
                  "fortran_order is True");
  }
  SUBCASE("data size") {
    check_refused(image(good_dict, data.substr(0, 7)), "truncated data");
    check_refused(image(good_dict, ""), "needs 8 bytes but the file has 0");
    check_refused(image(good_dict, data + "x"), "needs exactly 8");
    check_refused(image("{'descr': '<f4', 'fortran_order': False, 'shape': (0,)}", "abcd"),
                  "needs exactly 0");
  }
  SUBCASE("a shape whose size overflows is refused before anything is allocated") {
    // 2^62 * 4 elements overflow int64; 2^62 f8 elements fit int64 but not in bytes.
    check_refused(image("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(4611686018427387904, 4)}",
                        data),
                  "truncated data");
    check_refused(image("{'descr': '<f8', 'fortran_order': False, 'shape': "
                        "(2305843009213693952, 2)}",
                        data),
                  "more than 2^63");
    check_refused(image("{'descr': '<i8', 'fortran_order': False, 'shape': (100000000000,)}", data),
                  "needs 800000000000 bytes");
  }
}

TEST_CASE("npy: files on disk") {
  TempDir dir;
  Tensor t(ElementType::i16, {3});
  t.data<std::int16_t>()[0] = -1;
  t.data<std::int16_t>()[2] = 300;
  const auto path = dir.path / "a.npy";
  npy::write(path, t);
  const Tensor back = npy::read(path);
  REQUIRE(back.element_type() == ElementType::i16);
  CHECK(back.shape() == Shape{3});
  CHECK(back.data<std::int16_t>()[0] == -1);
  CHECK(back.data<std::int16_t>()[2] == 300);

  {
    std::ofstream out(dir.path / "short.npy", std::ios::binary);
    const std::string img = npy::encode(t);
    out.write(img.data(), static_cast<std::streamsize>(img.size() - 1));
  }
  try {
    npy::read(dir.path / "short.npy");
    FAIL("read a truncated file");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::input);
    CHECK(e.context().file == (dir.path / "short.npy").string());
    CHECK(e.message().find("truncated data") != std::string::npos);
  }

  try {
    npy::read(dir.path / "missing.npy");
    FAIL("read a missing file");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::io);
    CHECK(e.context().file == (dir.path / "missing.npy").string());
    CHECK(e.message() == "cannot open .npy file: No such file or directory");
  }
  CHECK_THROWS_WITH_AS(npy::read(dir.path), doctest::Contains("is a directory, not a .npy file"),
                       Error);
  CHECK_THROWS_AS(npy::write(dir.path / "no_such_dir" / "x.npy", t), Error);
}

TEST_CASE("npy: every truncation and single-byte corruption decodes or throws Error") {
  Tensor t(ElementType::i32, {2, 3});
  const std::string img = npy::encode(t);
  std::size_t refused = 0, decoded = 0;
  const auto attempt = [&](const std::string& bytes) {
    try {
      const Tensor back = decode(bytes);
      CHECK(back.byte_size() <= bytes.size());
      ++decoded;
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::input);
      ++refused;
    }
  };
  for (std::size_t n = 0; n < img.size(); ++n) attempt(img.substr(0, n));
  for (std::size_t i = 0; i < img.size(); ++i) {
    for (const char c : {'\0', '\xff', '(', ')', '9', ' ', '\'', ',', '}', 'L'}) {
      std::string bad = img;
      bad[i] = c;
      attempt(bad);
    }
  }
  CHECK(refused >= img.size());  // every truncation at least
  CHECK(decoded > 0);            // corrupted data bytes and padding still decode
}

TEST_CASE("npy: a FIFO or a device is refused at once") {
  TempDir dir;
  test::TestFifo fifo(dir.path / "x.npy");
  REQUIRE(fifo.made());
  const auto start = std::chrono::steady_clock::now();
  try {
    npy::read(fifo.path());
    FAIL("read a FIFO");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::io);
    CHECK(std::string(e.what()) == fifo.path() + ": is a FIFO, not a .npy file");
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK_THROWS_WITH_AS(npy::read("/dev/zero"), "/dev/zero: is a character device, not a .npy file",
                       Error);
}

TEST_CASE("npy: headers longer than NumPy's 10000 bytes are refused before they are read") {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string data = raw<float>({1, 2});
  // A version 1.0 image whose header is exactly `length` bytes.
  const auto sized = [&](std::size_t length) {
    std::string img = "\x93NUMPY\x01";
    img += '\0';
    img += static_cast<char>(length & 0xff);
    img += static_cast<char>(length >> 8);
    return img + dict + std::string(length - dict.size() - 1, ' ') + "\n" + data;
  };
  CHECK(decode(sized(10000)).shape() == Shape{2});
  check_refused(sized(10001), "the header is 10001 bytes, more than the 10000 allowed");
  CHECK(npy::decode(bytes_of(sized(10001)), "t.npy", 20000).shape() == Shape{2});

  // A sparse file of 64 MiB whose version 2.0 header claims nearly all of it.
  TempDir dir;
  const auto path = dir.path / "sparse.npy";
  const std::uint32_t claimed = (std::uint32_t{1} << 26) - 12;
  {
    std::string head = "\x93NUMPY\x02";
    head += '\0';
    for (int i = 0; i < 4; ++i) head += static_cast<char>(claimed >> (8 * i) & 0xff);
    std::ofstream(path, std::ios::binary) << head;
  }
  std::filesystem::resize_file(path, std::uint64_t{1} << 26);
  try {
    npy::read(path);
    FAIL("read a 64 MiB header");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::input);
    CHECK(e.message() ==
          "the header is 67108852 bytes, more than the 10000 allowed (NumPy's "
          "max_header_size)");
  }
}

TEST_CASE("npy: a NUL or control character in the header is escaped, not cut") {
  const std::string data = raw<float>({1, 2});
  try {
    decode(image(std::string("{'descr': '<f\0\x1b', 'fortran_order': False, 'shape': (2,)}", 56),
                 data));
    FAIL("decoded a bad dtype");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "t.npy: unsupported dtype '<f\\x00\\x1b'; irlite reads <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 "
          "<u2 <u4 <u8 |b1");
  }
  check_refused(
      image("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), '\r\x1b[2J': 1}", data),
      "unexpected key '\\r\\x1b[2J'");
}

#include "npy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "files.hpp"
#include "irlite/error.hpp"
#include "irlite/input_file.hpp"

namespace irlite::npy {
namespace {

// The data is copied byte for byte, so little-endian files need a little-endian host.
static_assert(std::endian::native == std::endian::little,
              "the .npy reader assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";
// Magic, two version bytes, then the header length: 2 bytes in version 1.0, 4 in 2.0 and 3.0.
constexpr std::size_t kPreambleV1 = 10;
constexpr std::size_t kPreambleV2 = 12;
constexpr std::size_t kAlignment = 64;
constexpr std::string_view kReadable = "<f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1";

using cli::bad_content;

// Text from the file as it appears in messages: printable, and short enough for one line.
std::string shown(std::string_view text) {
  constexpr std::size_t kShown = 120;
  std::string s = escape_nonprintable(text.substr(0, kShown));
  if (text.size() > kShown) s += "...";
  return s;
}

std::string shape_text(const Shape& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

struct Header {
  std::string descr;
  bool fortran_order = false;
  Shape shape;
};

// Parses the Python dict literal numpy writes. Only the literal forms numpy produces are
// accepted (strings, True/False, tuples of non-negative integers), with any spacing and key
// order; numpy itself refuses keys other than the three below.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Header parse() {
    Header h;
    bool has_descr = false, has_order = false, has_shape = false;
    skip_blanks();
    expect('{');
    skip_blanks();
    while (!at('}')) {
      const std::string key = string_literal();
      skip_blanks();
      expect(':');
      skip_blanks();
      if (key == "descr") {
        if (at('[')) bad("structured dtypes (a list in 'descr') are not supported");
        mark(has_descr, key);
        h.descr = string_literal();
      } else if (key == "fortran_order") {
        mark(has_order, key);
        h.fortran_order = boolean_literal();
      } else if (key == "shape") {
        mark(has_shape, key);
        h.shape = tuple_literal();
      } else {
        bad(
            fmt::format("unexpected key '{}' (a .npy header has 'descr', 'fortran_order' and "
                        "'shape')",
                        shown(key)));
      }
      skip_blanks();
      if (!at('}')) {
        expect(',');
        skip_blanks();
      }
    }
    ++pos_;
    skip_blanks();
    if (pos_ != text_.size()) bad("unexpected text after the closing '}'");
    if (!has_descr) bad("key 'descr' is missing");
    if (!has_order) bad("key 'fortran_order' is missing");
    if (!has_shape) bad("key 'shape' is missing");
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    bad_content(source_, fmt::format("malformed .npy header: {} at offset {} of \"{}\"", what, pos_,
                                     shown(text_)));
  }
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void expect(char c) {
    if (!at(c)) bad(fmt::format("expected '{}'", c));
    ++pos_;
  }
  void skip_blanks() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  void mark(bool& seen, const std::string& key) const {
    if (seen) bad(fmt::format("key '{}' appears twice", key));
    seen = true;
  }
  std::string string_literal() {
    if (!at('\'') && !at('"')) bad("expected a quoted string");
    const char quote = text_[pos_++];
    const std::size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) bad("unterminated string");
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  bool boolean_literal() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    bad("expected True or False");
  }
  // "(2, 3)", "(5,)", "()"; Python 2 numpy wrote longs as "3L".
  Shape tuple_literal() {
    Shape shape;
    expect('(');
    skip_blanks();
    while (!at(')')) {
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
        bad("expected a non-negative integer dimension");
      std::int64_t n = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        const int digit = text_[pos_] - '0';
        if (n > (std::numeric_limits<std::int64_t>::max() - digit) / 10)
          bad("dimension does not fit a 64-bit integer");
        n = n * 10 + digit;
        ++pos_;
      }
      if (at('L')) ++pos_;
      shape.push_back(n);
      skip_blanks();
      if (!at(')')) {
        expect(',');
        skip_blanks();
      }
    }
    ++pos_;
    return shape;
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

// Maps a descr to an element type. The byte-order character may be '<' or '=' (this host is
// little-endian) or, for one-byte types where order means nothing, also '|' or '>'.
ElementType element_type_of(const std::string& descr, const std::string& source) {
  std::string_view code = descr;
  char order = '=';
  if (!code.empty() && std::string_view("<>|=").find(code[0]) != std::string_view::npos) {
    order = code[0];
    code.remove_prefix(1);
  }
  static constexpr std::array<std::pair<std::string_view, ElementType>, 12> kCodes{{
      {"f2", ElementType::f16},
      {"f4", ElementType::f32},
      {"f8", ElementType::f64},
      {"i1", ElementType::i8},
      {"i2", ElementType::i16},
      {"i4", ElementType::i32},
      {"i8", ElementType::i64},
      {"u1", ElementType::u8},
      {"u2", ElementType::u16},
      {"u4", ElementType::u32},
      {"u8", ElementType::u64},
      {"b1", ElementType::boolean},
  }};
  const auto it = std::find_if(kCodes.begin(), kCodes.end(),
                               [&](const auto& entry) { return entry.first == code; });
  if (it == kCodes.end())
    bad_content(source,
                fmt::format("unsupported dtype '{}'; irlite reads {}", shown(descr), kReadable));
  const ElementType type = it->second;
  if (element_size(type) > 1) {
    if (order == '>')
      bad_content(source,
                  fmt::format("big-endian data (dtype '{}') is not supported; save the array "
                              "as little-endian, e.g. a.astype('<{}')",
                              descr, code));
    if (order == '|')
      bad_content(source, fmt::format("dtype '{}' has no byte order, but a {}-byte type needs one",
                                      descr, element_size(type)));
  }
  return type;
}

// Reads `n` bytes at `offset` into `dst`; the caller has checked the range.
using ReadAt = std::function<void(std::uint64_t offset, std::size_t n, void* dst)>;

Tensor decode_from(std::uint64_t size, const ReadAt& read_at, const std::string& source,
                   std::size_t max_header) {
  if (size < kPreambleV1)
    bad_content(source,
                fmt::format("not a .npy file: {} bytes is shorter than the smallest header", size));
  std::array<unsigned char, kPreambleV2> pre{};
  read_at(0, static_cast<std::size_t>(std::min<std::uint64_t>(size, kPreambleV2)), pre.data());
  if (std::memcmp(pre.data(), kMagic.data(), kMagic.size()) != 0)
    bad_content(source, "not a .npy file: it does not start with the magic string \\x93NUMPY");
  const unsigned major = pre[6], minor = pre[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    bad_content(source,
                fmt::format("unsupported .npy format version {}.{} (irlite reads 1.0, 2.0 and "
                            "3.0)",
                            major, minor));
  const std::size_t preamble = major == 1 ? kPreambleV1 : kPreambleV2;
  if (size < preamble)
    bad_content(source, fmt::format("truncated header: the file ends after {} bytes", size));
  std::uint64_t header_len = std::uint64_t{pre[8]} | std::uint64_t{pre[9]} << 8;
  if (major != 1) header_len |= std::uint64_t{pre[10]} << 16 | std::uint64_t{pre[11]} << 24;
  if (header_len > size - preamble)
    bad_content(source,
                fmt::format("truncated header: it declares {} bytes but the file has only {} "
                            "after the preamble",
                            header_len, size - preamble));
  // The header is read whole before it is parsed: a length the file merely claims must not
  // decide how much memory that takes.
  if (header_len > max_header)
    bad_content(source, fmt::format("the header is {} bytes, more than the {} allowed (NumPy's "
                                    "max_header_size)",
                                    header_len, max_header));

  std::string text(static_cast<std::size_t>(header_len), '\0');
  read_at(preamble, text.size(), text.data());
  const Header header = HeaderParser(text, source).parse();
  const ElementType type = element_type_of(header.descr, source);
  if (header.fortran_order)
    bad_content(source,
                "fortran_order is True (column-major data) which irlite does not read; save a "
                "C-ordered array, e.g. np.save(f, np.ascontiguousarray(a))");

  // Checked against the file size before anything is allocated, so a lying shape cannot make
  // the reader allocate more than the file holds.
  const std::uint64_t offset = preamble + header_len;
  const std::uint64_t available = size - offset;
  const std::uint64_t width = element_size(type);
  const auto count = element_count(header.shape);
  if (!count || static_cast<std::uint64_t>(*count) > available / width)
    bad_content(source,
                fmt::format("truncated data: shape {} of '{}' needs {} bytes but the file has "
                            "{} after the header",
                            shape_text(header.shape), header.descr,
                            count && static_cast<std::uint64_t>(*count) <=
                                         std::numeric_limits<std::uint64_t>::max() / width
                                ? fmt::format("{}", static_cast<std::uint64_t>(*count) * width)
                                : std::string("more than 2^63"),
                            available));
  const std::uint64_t needed = static_cast<std::uint64_t>(*count) * width;
  if (needed != available)
    bad_content(source, fmt::format("the file has {} bytes after the header but shape {} of '{}' "
                                    "needs exactly {}",
                                    available, shape_text(header.shape), header.descr, needed));

  Tensor tensor(type, header.shape);
  if (needed) read_at(offset, static_cast<std::size_t>(needed), tensor.data());
  if (type == ElementType::boolean) {
    for (std::uint8_t& b : tensor.values<std::uint8_t>()) b = b != 0;
  }
  return tensor;
}

}  // namespace

std::string descr(ElementType type) {
  switch (type) {
    case ElementType::f16:
      return "<f2";
    case ElementType::bf16:
      return "<u2";
    case ElementType::f32:
      return "<f4";
    case ElementType::f64:
      return "<f8";
    case ElementType::i8:
      return "|i1";
    case ElementType::i16:
      return "<i2";
    case ElementType::i32:
      return "<i4";
    case ElementType::i64:
      return "<i8";
    case ElementType::u8:
      return "|u1";
    case ElementType::u16:
      return "<u2";
    case ElementType::u32:
      return "<u4";
    case ElementType::u64:
      return "<u8";
    case ElementType::boolean:
      return "|b1";
    case ElementType::undefined:
      break;
  }
  throw Error(ErrorCode::usage, "a tensor of undefined element type cannot be written as .npy");
}

Tensor decode(std::span<const std::byte> bytes, const std::string& source, std::size_t max_header) {
  return decode_from(
      bytes.size(),
      [&](std::uint64_t offset, std::size_t n, void* dst) {
        std::memcpy(dst, bytes.data() + offset, n);
      },
      source, max_header);
}

Tensor read(const std::filesystem::path& path, std::size_t max_header) {
  const InputFile file = InputFile::open(path, ".npy file");
  return decode_from(
      file.size(),
      [&](std::uint64_t offset, std::size_t n, void* dst) {
        if (file.read_at(offset, dst, n) != n)
          throw Error(ErrorCode::io,
                      fmt::format("the file ends before byte {}: it was {} bytes when opened",
                                  offset + n, file.size()),
                      cli::file_context(file.path()));
      },
      file.path(), max_header);
}

std::string encode(const Tensor& tensor) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                 descr(tensor.element_type()), shape_text(tensor.shape()));
  // numpy falls back to version 2.0 only when the header outgrows the 16-bit length field.
  std::size_t preamble = kPreambleV1;
  const auto padded = [&] {
    const std::size_t unpadded = preamble + dict.size() + 1;  // + the closing newline
    return (unpadded + kAlignment - 1) / kAlignment * kAlignment - preamble;
  };
  std::size_t header_len = padded();
  if (header_len > std::numeric_limits<std::uint16_t>::max()) {
    preamble = kPreambleV2;
    header_len = padded();
  }
  std::string out(kMagic);
  out += static_cast<char>(preamble == kPreambleV1 ? 1 : 2);
  out += '\0';
  const int len_bytes = preamble == kPreambleV1 ? 2 : 4;
  for (int i = 0; i < len_bytes; ++i) out += static_cast<char>((header_len >> (8 * i)) & 0xff);
  out += dict;
  out.append(header_len - dict.size() - 1, ' ');
  out += '\n';
  out.append(static_cast<const char*>(tensor.data()), tensor.byte_size());
  return out;
}

void write(const std::filesystem::path& path, const Tensor& tensor) {
  cli::write_file(path, encode(tensor));
}

}  // namespace irlite::npy

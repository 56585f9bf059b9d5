#include "loader/encoding.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <utility>

#include "irlite/error.hpp"

namespace irlite::loader {
namespace {

/// The encoding (iconv's name) of a text that starts as UTF-16 or UTF-32 does: a byte-order
/// mark, or the zero bytes of an ASCII character such as '<' encoded in them; nullptr for any
/// other text.
const char* wide_encoding(std::string_view text) {
  const auto b = [&](std::size_t i) {
    return i < text.size() ? static_cast<unsigned>(static_cast<unsigned char>(text[i])) : 0x100u;
  };
  if (b(0) == 0x00 && b(1) == 0x00 && b(2) == 0xfe && b(3) == 0xff) return "UTF-32BE";
  if (b(0) == 0xff && b(1) == 0xfe && b(2) == 0x00 && b(3) == 0x00) return "UTF-32LE";
  if (b(0) == 0xfe && b(1) == 0xff) return "UTF-16BE";
  if (b(0) == 0xff && b(1) == 0xfe) return "UTF-16LE";
  if (text.size() < 4) return nullptr;
  const bool z0 = b(0) == 0, z1 = b(1) == 0, z2 = b(2) == 0, z3 = b(3) == 0;
  if (z0 && z1 && z2 && !z3) return "UTF-32BE";
  if (!z0 && z1 && z2 && z3) return "UTF-32LE";
  if (z0 && !z1 && z2 && !z3) return "UTF-16BE";
  if (!z0 && z1 && !z2 && z3) return "UTF-16LE";
  return nullptr;
}

}  // namespace

void check_encoding(std::string_view xml, const std::string& file) {
  const char* encoding = wide_encoding(xml);
  const bool nul = xml.substr(0, 4).find('\0') != std::string_view::npos;
  if (!encoding && !nul) return;
  ErrorContext c;
  c.file = file;
  if (encoding)
    throw Error(ErrorCode::xml,
                fmt::format("the file is {0} text, which irlite does not read: IR files are "
                            "UTF-8 (convert it with iconv -f {0} -t UTF-8)",
                            encoding),
                std::move(c));
  throw Error(ErrorCode::xml,
              "the file starts with NUL bytes: it is not UTF-8 text, so not an IR file",
              std::move(c));
}

}  // namespace irlite::loader

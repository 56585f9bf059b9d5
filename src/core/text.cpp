#include "core/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace irlite {

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<std::uint64_t> parse_uint64(std::string_view text) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_int64(std::string_view text) {
  text = trim_blanks(text);
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    // from_chars would take the '-' of "+-1": one sign at most.
    if (!text.empty() && text.front() == '-') return std::nullopt;
  }
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string ascii_lower(std::string_view text) {
  std::string s(text);
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

namespace {

void append_hex(std::string& s, const char* prefix, std::uint32_t value, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  s += prefix;
  for (int d = digits - 1; d >= 0; --d) s += kHex[(value >> (4 * d)) & 0xf];
}

bool continuation(unsigned char c) {
  return (c & 0xc0) == 0x80;
}

/// The length of the well-formed UTF-8 sequence at the start of `text` and its code point
/// (no overlong forms, no surrogates, nothing past U+10FFFF); length 0 when there is none.
std::size_t utf8_sequence(std::string_view text, std::uint32_t& code) {
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = at(0);
  std::size_t n = 0;
  unsigned char low = 0x80, high = 0xbf;  // the range of the second byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    n = 2;
    code = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    n = 3;
    code = lead & 0x0fu;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    n = 4;
    code = lead & 0x07u;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (text.size() < n || at(1) < low || at(1) > high) return 0;
  for (std::size_t i = 1; i < n; ++i) {
    if (!continuation(at(i))) return 0;
    code = code << 6 | (at(i) & 0x3fu);
  }
  return n;
}

/// Code points a terminal acts on or that reorder or break the text around them.
bool disruptive(std::uint32_t code) {
  return code < 0xa0 ||                         // C1 controls
         code == 0x061c ||                      // Arabic letter mark
         code == 0x200e || code == 0x200f ||    // left-to-right and right-to-left marks
         code == 0x2028 || code == 0x2029 ||    // line and paragraph separators
         (code >= 0x202a && code <= 0x202e) ||  // embeddings and overrides
         (code >= 0x2066 && code <= 0x2069);    // isolates
}

}  // namespace

std::string escape_nonprintable(std::string_view text) {
  const auto plain = [](char c) { return c >= 0x20 && c < 0x7f; };
  if (std::all_of(text.begin(), text.end(), plain)) return std::string(text);
  std::string s;
  s.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (plain(c)) {
      s += c;
      ++i;
    } else if (c == '\n' || c == '\r' || c == '\t') {
      s += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
      ++i;
    } else if (u < 0x80) {
      append_hex(s, "\\x", u, 2);
      ++i;
    } else {
      std::uint32_t code = 0;
      const std::size_t n = utf8_sequence(text.substr(i), code);
      if (n == 0) {
        append_hex(s, "\\x", u, 2);
        ++i;
      } else {
        if (disruptive(code))
          append_hex(s, "\\u", code, 4);
        else
          s.append(text.substr(i, n));
        i += n;
      }
    }
  }
  return s;
}

std::string number_text(double v) {
  return std::isnan(v) ? "nan" : fmt::format("{}", v);
}

std::string mask_text(const std::vector<bool>& mask) {
  std::string text;
  for (std::size_t i = 0; i < mask.size(); ++i) {
    if (i > 0) text += ',';
    text += mask[i] ? '1' : '0';
  }
  return text;
}

}  // namespace irlite

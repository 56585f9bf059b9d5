#include "core/attributes.hpp"

#include <charconv>
#include <optional>

#include "core/ir_element_types.hpp"
#include "irlite/error.hpp"

namespace irlite {
namespace {

[[noreturn]] void bad(std::string_view name, std::string_view text, std::string_view what) {
  throw Error(ErrorCode::format, "attribute '" + std::string(name) + "' = '" + std::string(text) +
                                     "': " + std::string(what));
}

}  // namespace

const std::string* Attributes::find(std::string_view name) const {
  for (const auto& [k, v] : items_)
    if (k == name) return &v;
  return nullptr;
}

const std::string& Attributes::text(std::string_view name) const {
  const std::string* v = find(name);
  if (!v) throw Error(ErrorCode::format, "missing required attribute '" + std::string(name) + "'");
  return *v;
}

std::int64_t Attributes::get_int(std::string_view name) const {
  const std::string& t = text(name);
  auto v = parse_int64(t);
  if (!v) bad(name, t, "not an integer in the int64 range");
  return *v;
}

std::int64_t Attributes::get_int(std::string_view name, std::int64_t fallback) const {
  return has(name) ? get_int(name) : fallback;
}

std::uint64_t Attributes::get_uint(std::string_view name) const {
  const std::string& t = text(name);
  const auto v = parse_uint64(trim_blanks(t));
  if (!v) bad(name, t, "not an unsigned integer in the uint64 range");
  return *v;
}

namespace {

/// The number `word` (blanks trimmed) spells, as strtod reads it; nullopt when it is not one.
std::optional<double> parse_number(std::string_view word) {
  const char* begin = word.data();
  const char* end = word.data() + word.size();
  if (begin == end) return std::nullopt;
  if (*begin == '+') {  // from_chars takes no '+'; "+-1" stays an error
    ++begin;
    if (begin == end || *begin == '-') return std::nullopt;
  }
  double value = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

/// Calls `item` on each comma-separated piece of `text`, blanks trimmed; none for empty text.
template <class F>
void for_each_item(std::string_view text, F item) {
  std::string_view rest = trim_blanks(text);
  if (rest.empty()) return;
  while (true) {
    const std::size_t comma = rest.find(',');
    item(trim_blanks(rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
}

}  // namespace

double Attributes::get_double(std::string_view name) const {
  const std::string& t = text(name);
  const auto value = parse_number(trim_blanks(t));
  if (!value) bad(name, t, "not a number");
  return *value;
}

std::vector<double> Attributes::get_doubles(std::string_view name) const {
  const std::string& t = text(name);
  std::vector<double> values;
  for_each_item(t, [&](std::string_view item) {
    const auto value = parse_number(item);
    if (!value) bad(name, t, "expected numbers separated by commas");
    values.push_back(*value);
  });
  return values;
}

std::vector<std::int64_t> Attributes::get_ints(std::string_view name) const {
  const std::string& t = text(name);
  std::vector<std::int64_t> values;
  for_each_item(t, [&](std::string_view item) {
    const auto value = parse_int64(item);
    if (!value) bad(name, t, "expected int64 integers separated by commas");
    values.push_back(*value);
  });
  return values;
}

bool Attributes::get_bool(std::string_view name, bool fallback) const {
  const std::string* t = find(name);
  if (!t) return fallback;
  const std::string w = ascii_lower(trim_blanks(*t));
  if (w == "true" || w == "1") return true;
  if (w == "false" || w == "0") return false;
  bad(name, *t, "expected true, false, 1 or 0");
}

std::size_t Attributes::get_enum(std::string_view name,
                                 std::initializer_list<std::string_view> words) const {
  return get_enum(name, std::span<const std::string_view>(words.begin(), words.size()));
}

std::size_t Attributes::get_enum(std::string_view name,
                                 std::span<const std::string_view> words) const {
  const std::string& t = text(name);
  const std::string w = ascii_lower(trim_blanks(t));
  std::size_t i = 0;
  std::string list;
  for (std::string_view word : words) {
    if (w == word) return i;
    list += (i ? ", " : "") + std::string(word);
    ++i;
  }
  bad(name, t, "expected one of " + list);
}

ElementType Attributes::get_element_type(std::string_view name) const {
  const std::string& t = text(name);
  const std::string_view word = trim_blanks(t);
  auto type = parse_element_type(word);
  if (!type && is_unsupported_element_type(word))
    throw Error(ErrorCode::unsupported, "attribute '" + std::string(name) + "' = '" + t +
                                            "': unsupported element type '" + std::string(word) +
                                            "'");
  if (!type) bad(name, t, "unknown element type");
  return *type;
}

ElementType Attributes::get_element_type(std::string_view name, ElementType fallback) const {
  return has(name) ? get_element_type(name) : fallback;
}

PartialShape Attributes::get_partial_shape(std::string_view name) const {
  const std::string& t = text(name);
  std::string why;
  auto shape = parse_partial_shape(t, &why);
  if (!shape) bad(name, t, why);
  return *shape;
}

Shape Attributes::get_shape(std::string_view name) const {
  const std::string& t = text(name);
  std::string why;
  auto shape = parse_partial_shape(t, &why);
  if (!shape) bad(name, t, why);
  if (!shape->is_static()) bad(name, t, "expected a static shape");
  return shape->to_shape();
}

Shape Attributes::get_whole_numbers(std::string_view name) const {
  const std::string& t = text(name);
  Shape values;
  std::string_view rest = trim_blanks(t);
  if (rest.empty()) return values;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = trim_blanks(rest.substr(0, comma));
    if (const auto exact = parse_uint64(item)) {
      if (*exact > static_cast<std::uint64_t>(INT64_MAX)) bad(name, t, "a value is out of range");
      values.push_back(static_cast<std::int64_t>(*exact));
    } else {
      // A number with a zero fraction ("1.0"): read as a double, kept only when whole, so that
      // no text which means another value slips through.
      double v = 0;
      const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
      if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || !(v >= 0) ||
          v >= 0x1p53 || v != static_cast<double>(static_cast<std::int64_t>(v)))
        bad(name, t, "expected non-negative whole numbers separated by commas");
      values.push_back(static_cast<std::int64_t>(v));
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return values;
}

std::vector<bool> Attributes::get_mask(std::string_view name) const {
  std::vector<bool> mask;
  for (const std::int64_t v : get_shape(name)) {
    if (v != 0 && v != 1) bad(name, text(name), "expected 0s and 1s");
    mask.push_back(v == 1);
  }
  return mask;
}

}  // namespace irlite

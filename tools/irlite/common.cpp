#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>
#include <string_view>

#include "commands.hpp"

namespace irlite::cli {
namespace {

// Every diagnostic is one line, so that scripts can count and grep them, and reaches the
// terminal without control characters (names and paths in it come from files).
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return escape_nonprintable(text);
}

}  // namespace

void print_error(const std::string& message) {
  std::fflush(stdout);
  fmt::print(stderr, "irlite: error: {}\n", one_line(message));
}

void print_warning(const std::string& message) {
  std::fflush(stdout);
  fmt::print(stderr, "irlite: warning: {}\n", one_line(message));
}

void print_hint(const std::string& message) {
  std::fflush(stdout);
  fmt::print(stderr, "irlite: hint: {}\n", one_line(message));
}

std::vector<ShapeOverride> parse_shape_overrides(const std::vector<std::string>& texts) {
  std::vector<ShapeOverride> overrides;
  for (const std::string& text : texts) {
    // Dimensions never contain '=', so the last one separates the name, which may. Without
    // '=', benchmark_app's NAME[dims] is read the same way: the name ends at the last '['.
    ShapeOverride o;
    std::string dims = text;
    if (const auto eq = text.rfind('='); eq != std::string::npos) {
      o.name = text.substr(0, eq);
      dims = text.substr(eq + 1);
      if (o.name->empty())
        throw UsageError(fmt::format("--shape '{}': the input name before '=' is empty", text));
    } else if (const auto bracket = text.rfind('[');
               bracket != std::string::npos && bracket > 0 && text.back() == ']') {
      o.name = text.substr(0, bracket);
      dims = text.substr(bracket);
    }
    std::string why;
    const auto shape = parse_partial_shape(dims, &why);
    if (!shape)
      throw UsageError(
          fmt::format("--shape '{}': {}; expected NAME=[dims] with dims such as "
                      "1,3,224,224, ?, -1, 2..8 (e.g. x=[1,?,3])",
                      text, why));
    o.shape = *shape;
    overrides.push_back(std::move(o));
  }
  return overrides;
}

std::size_t parse_byte_size(const std::string& text, const std::string& option) {
  const auto bad = [&] {
    return UsageError(fmt::format(
        "{} '{}': expected a positive number of bytes below 2^64, optionally followed by K, M, "
        "G or T (powers of 1024), e.g. 512M or 2G",
        option, text));
  };
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  std::uint64_t value = 0;
  if (digits == 0 || std::from_chars(text.data(), text.data() + digits, value).ec != std::errc())
    throw bad();
  std::string unit = text.substr(digits);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // An optional power of 1024, then an optional "B" or "iB" ("iB" only after a power).
  int shift = 0;
  std::string_view rest = unit;
  if (const auto at = std::string_view("KMGT").find(rest.empty() ? ' ' : rest[0]);
      at != std::string_view::npos) {
    shift = 10 * (static_cast<int>(at) + 1);
    rest.remove_prefix(1);
    if (rest == "IB") rest = "B";
  }
  if (!rest.empty() && rest != "B") throw bad();
  if (value == 0 || value > (std::numeric_limits<std::uint64_t>::max() >> shift)) throw bad();
  return static_cast<std::size_t>(value << shift);
}

std::string input_list(const Model& model) {
  std::string s;
  for (const PortInfo& in : model.inputs()) s += (s.empty() ? "" : ", ") + in.name;
  return s.empty() ? "none" : s;
}

std::map<std::string, PartialShape> resolve_shape_overrides(
    const std::vector<ShapeOverride>& overrides, const Model& model) {
  std::map<std::string, PartialShape> shapes;
  std::vector<std::string> given(model.inputs().size());
  for (const ShapeOverride& o : overrides) {
    std::string name;
    if (o.name) {
      name = *o.name;
    } else {
      if (model.inputs().size() != 1)
        throw UsageError(
            fmt::format("--shape {} has no input name, but the model has {} inputs "
                        "({}); write --shape NAME=[dims]",
                        to_string(o.shape), model.inputs().size(), input_list(model)));
      name = model.inputs()[0].name;
    }
    // An unknown name is left to Model::reshape, which reports it with the model's inputs.
    if (const auto index = model.find_input(name)) {
      if (!given[*index].empty())
        throw UsageError(fmt::format("--shape is given twice for input '{}' (as '{}' and '{}')",
                                     model.inputs()[*index].name, given[*index], name));
      given[*index] = name;
    }
    shapes[name] = o.shape;
  }
  return shapes;
}

}  // namespace irlite::cli

#pragma once
// Small, strict text helpers shared by the shape parser, the attribute reader and the loader.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irlite/error.hpp"  // escape_nonprintable

namespace irlite {

/// `s` without leading and trailing blanks (spaces and tabs).
std::string_view trim_blanks(std::string_view s);

/// The whole of `text` as a decimal uint64: digits only (no sign, no blanks), no overflow.
std::optional<std::uint64_t> parse_uint64(std::string_view text);

/// The whole of `text` as a decimal int64, blanks around it and one leading sign ('+' or '-')
/// allowed; nullopt on junk ("+-1", "1 2", "0x1") or overflow.
std::optional<std::int64_t> parse_int64(std::string_view text);

/// Lower-cases ASCII letters.
std::string ascii_lower(std::string_view text);

/// The shortest text that reads back as `v` ("0.2", "-inf"); NaN is "nan" whatever its sign.
std::string number_text(double v);

/// A bit mask as the IR writes it: "1,0,1".
std::string mask_text(const std::vector<bool>& mask);

}  // namespace irlite

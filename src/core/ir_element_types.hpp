#pragma once
// Element type names that are valid in OpenVINO IR but that irlite does not support.

#include <string_view>

namespace irlite {

/// Whether `text` is an IR element type, in either spelling, that parse_element_type refuses:
/// sub-byte and 8-bit float types ("u4", "I4", "nf4", "f8e4m3"), strings, `dynamic`. A word
/// that is no IR type at all ("f17") is not one of them.
bool is_unsupported_element_type(std::string_view text);

}  // namespace irlite

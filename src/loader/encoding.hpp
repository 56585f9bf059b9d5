#pragma once
// The text's encoding, checked before anything parses it: IR files are UTF-8, and pugixml would
// read UTF-16 or UTF-32 as UTF-8 and report nonsense about tags.

#include <string>
#include <string_view>

namespace irlite::loader {

/// Throws Error(xml), placed at `file`, when `xml` is in UTF-16 or UTF-32 or starts with NUL
/// bytes.
void check_encoding(std::string_view xml, const std::string& file);

}  // namespace irlite::loader

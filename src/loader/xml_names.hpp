#pragma once
// Comparing the names pugixml gives elements and attributes with the ones the IR uses.

#include <cstddef>
#include <utility>

namespace irlite::loader {

/// Whether `name` (a pugixml name, never null) is `literal`. Inlined, unlike strcmp, and it
/// reads no further than the first difference.
template <std::size_t N, std::size_t... I>
bool named(const char* name, const char (&literal)[N], std::index_sequence<I...>) {
  return ((name[I] == literal[I]) && ...);  // unrolled; && stops at the first difference
}
template <std::size_t N>
bool named(const char* name, const char (&literal)[N]) {
  return named(name, literal, std::make_index_sequence<N>());
}

}  // namespace irlite::loader

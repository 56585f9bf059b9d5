#pragma once
// An IR text split so that its two long lists, the <layers> and the <edges>, are parsed a piece
// at a time. A DOM of the whole text is several times its size and every byte of it is a fresh
// page; pieces of a few tens of kilobytes reuse the same memory, which stays in the cache while
// the reader copies out what it needs.
//
// The split is found by looking at the text, not by parsing it, so it is only a guess that the
// parse confirms: the rest of the document (the skeleton, the lists' contents cut out) must
// parse with each list where the guess put it, and each piece must parse as a fragment that
// closes every element it opens. A text that passes is well-formed exactly when the skeleton is,
// and its DOM is the skeleton's with the pieces' nodes as the lists' children, so reading it in
// pieces gives what reading it whole gives. A text that does not pass (a comment that mentions
// "<layer", layers nested in a layer's body) is read whole.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace irlite {

/// Where a list's content is: the text from `begin` to `end`, between `<name ...>` at `open`
/// and `</name>` at `end`.
struct ListRegion {
  std::size_t open = 0;   ///< offset of the '<' of the start tag
  std::size_t begin = 0;  ///< offset just after the start tag's '>'
  std::size_t end = 0;    ///< offset of the '<' of the end tag
};

struct TextPieces {
  ListRegion layers;
  std::optional<ListRegion> edges;  ///< after the layers, when the text has a non-empty one
  /// The text with the lists' contents cut out.
  std::string skeleton;

  /// The offset in the text of an offset in the skeleton.
  std::size_t text_offset(std::size_t skeleton_offset) const;
};

/// The split of `text`; nullopt when it has no non-empty <layers> list to split.
std::optional<TextPieces> split_text(std::string_view text);

/// Where the piece of a list's content that starts at `from` ends: just before the first
/// `<item` start tag at or after `from + target`, or `end`.
std::size_t piece_end(std::string_view text, std::size_t from, std::size_t end,
                      std::string_view item, std::size_t target);

}  // namespace irlite

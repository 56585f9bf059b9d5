#pragma once
// Parsing the <layers> and <edges> lists a piece at a time, where loader/xml_pieces.hpp split
// the text. Each piece is copied and parsed as a fragment into a document of its own, which
// replaces the last one, and handed to the caller to read; the text positions are told where
// its nodes are. Whatever shows the split not to be the document throws NotInPieces, and the
// text is then read whole.

#include <cstddef>
#include <pugixml.hpp>
#include <string_view>
#include <vector>

#include "loader/text_positions.hpp"
#include "loader/xml_pieces.hpp"

namespace irlite::loader {

/// Thrown when the text does not split into pieces as expected: it is then read whole.
struct NotInPieces {};

class PieceParser {
 public:
  /// Parses the lists of `text`, split as `pieces` says, in pieces of about `piece_bytes`.
  /// `positions` maps the skeleton's nodes from now on, and each piece's as it is parsed. All
  /// must outlive the parser.
  PieceParser(std::string_view text, const TextPieces& pieces, std::size_t piece_bytes,
              TextPositions& positions)
      : text_(text), pieces_(pieces), piece_bytes_(piece_bytes), positions_(positions) {
    positions_.map_skeleton(pieces_);
  }

  const TextPieces& pieces() const { return pieces_; }

  /// Whether `list` is the skeleton's element for `region`: where the region's start tag is, and
  /// empty.
  bool is_cut_list(const pugi::xml_node& list, const ListRegion& region) const {
    return list && !list.first_child() &&
           positions_.text_offset(list) == static_cast<std::ptrdiff_t>(region.open + 1);
  }

  /// Parses the content of `region` a piece at a time, each cut before an `<item` start tag,
  /// and calls read(piece, end) after each, `piece` being its document and `end` where it ends
  /// in the text. Once the last piece of the text's last list has parsed, the text is confirmed.
  template <class Read>
  void for_each_piece(const ListRegion& region, std::string_view item, bool last_list,
                      Read&& read) {
    for (std::size_t begin = region.begin; begin < region.end;) {
      const std::size_t end = piece_end(text_, begin, region.end, item, piece_bytes_);
      parse_piece(begin, end);
      if (last_list && end == region.end) confirmed_ = true;
      read(static_cast<const pugi::xml_document&>(piece_), end);
      begin = end;
    }
  }

  /// Whether every piece parsed: the text is then what the pieces made of it, and an Error is
  /// the one reading it whole would give.
  bool confirmed() const { return confirmed_; }

  /// Frees the last piece's document, once everything has been copied out of it.
  void release() { piece_.reset(); }

 private:
  /// Parses text[begin, end) as a fragment into piece_, replacing the last piece.
  void parse_piece(std::size_t begin, std::size_t end);

  std::string_view text_;  ///< never written
  const TextPieces& pieces_;
  std::size_t piece_bytes_;
  TextPositions& positions_;
  std::vector<char> piece_text_;  ///< the current piece's copy, parsed in place
  pugi::xml_document piece_;
  bool confirmed_ = false;
};

}  // namespace irlite::loader

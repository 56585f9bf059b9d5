#include "loader/piece_parser.hpp"

#include "loader/ir_reader.hpp"

namespace irlite::loader {

void PieceParser::parse_piece(std::size_t begin, std::size_t end) {
  piece_text_.assign(text_.data() + begin, text_.data() + end);
  // parse_doctype keeps a <!DOCTYPE> as a node (it changes nothing else), to be seen below.
  const pugi::xml_parse_result parsed = piece_.load_buffer_inplace(
      piece_text_.data(), piece_text_.size(),
      kIrParseOptions | pugi::parse_fragment | pugi::parse_doctype, pugi::encoding_utf8);
  if (!parsed) throw NotInPieces{};
  // A fragment's top level is a document's: it takes a <!DOCTYPE> that inside <layers> is an
  // error. Only what element content holds may be there.
  for (pugi::xml_node n = piece_.first_child(); n; n = n.next_sibling()) {
    const pugi::xml_node_type type = n.type();
    if (type != pugi::node_element && type != pugi::node_pcdata && type != pugi::node_cdata)
      throw NotInPieces{};
  }
  positions_.map_piece(piece_, begin);
}

}  // namespace irlite::loader

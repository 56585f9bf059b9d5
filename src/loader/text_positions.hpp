#pragma once
// Where things are in the IR text, as a file:line:column for messages. pugixml gives byte
// offsets, of the document or of a piece of it (loader/xml_pieces.hpp); this maps them back to
// the text and turns them into lines and columns.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/graph.hpp"
#include "irlite/error.hpp"
#include "loader/xml_pieces.hpp"

namespace irlite::loader {

/// Number of bits set. std::popcount is a library call on baseline x86-64.
inline int count_ones(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

/// Line and column of a byte offset. pugixml reports offsets, and parsing in place overwrites
/// some of the text (a newline right after a name becomes its terminator), so the newlines are
/// noted beforehand: one bit per byte, and per block of 512 bytes the lines before it. The same
/// pass notes whether the text holds a NUL byte, where pugixml stops reading.
class LineIndex {
 public:
  LineIndex() = default;
  explicit LineIndex(std::string_view text);

  /// Whether the text holds a NUL byte.
  bool has_nul() const { return has_nul_; }

  // Inline: every layer is located as it is read.
  Location locate(std::size_t offset) const {
    const std::size_t word = offset / 64;
    if (word >= bits_.size()) return {};
    const std::size_t first = word - word % kBlockWords;
    Block b = blocks_[first / kBlockWords];
    for (std::size_t w = first; w < word; ++w) advance(b, w, bits_[w]);
    advance(b, word, bits_[word] & ((std::uint64_t{1} << (offset % 64)) - 1));
    return {static_cast<std::int64_t>(b.lines + 1),
            static_cast<std::int64_t>(offset - b.line_start + 1)};
  }

 private:
  static constexpr std::size_t kBlockWords = 8;
  struct Block {
    std::uint64_t lines = 0;       ///< newlines before the block
    std::uint64_t line_start = 0;  ///< offset of the line the block starts in
  };

  /// Moves `b` past word `w` of the bitmap, whose bits are `bits`.
  static void advance(Block& b, std::size_t w, std::uint64_t bits) {
    if (bits == 0) return;
    b.lines += static_cast<std::uint64_t>(count_ones(bits));
    b.line_start = 64 * w + static_cast<std::uint64_t>(std::bit_width(bits));
  }

  std::vector<std::uint64_t> bits_;
  std::vector<Block> blocks_;  ///< per kBlockWords words of bits_
  bool has_nul_ = false;
};

/// The positions of the elements of one IR text: its line index, and, when it is read in pieces,
/// how the offsets of the skeleton's and the current piece's nodes map back to the text.
class TextPositions {
 public:
  explicit TextPositions(std::string file) : file_(std::move(file)) {}

  /// Indexes `text`; to be called before it is parsed, which may overwrite it.
  void index(std::string_view text) { lines_ = LineIndex(text); }
  /// Drops the index, which is as large as the text: nothing is located afterwards.
  void clear() { lines_ = LineIndex(); }
  /// Whether the indexed text holds a NUL byte.
  bool has_nul() const { return lines_.has_nul(); }

  /// From now on, nodes not of the current piece are the skeleton's of `pieces`.
  void map_skeleton(const TextPieces& pieces) { pieces_ = &pieces; }
  /// From now on, the nodes of `piece` are text[base + their offset].
  void map_piece(const pugi::xml_document& piece, std::size_t base) {
    piece_ = &piece;
    piece_base_ = base;
  }

  /// Where `n` is in the text: parsed whole, its offset in the document; in pieces, the
  /// offset in the piece or the skeleton mapped back.
  std::ptrdiff_t text_offset(const pugi::xml_node& n) const {
    const std::ptrdiff_t offset = n.offset_debug();
    if (offset < 0 || !pieces_) return offset;
    if (piece_ && n.root() == *piece_) return offset + static_cast<std::ptrdiff_t>(piece_base_);
    return static_cast<std::ptrdiff_t>(pieces_->text_offset(static_cast<std::size_t>(offset)));
  }

  /// The file, placed at `offset` when it is one (not negative).
  ErrorContext at_offset(std::ptrdiff_t offset) const {
    ErrorContext c;
    c.file = file_;
    if (offset >= 0) {
      const Location l = lines_.locate(static_cast<std::size_t>(offset));
      c.line = l.line;
      c.column = l.column;
    }
    return c;
  }
  ErrorContext at(const pugi::xml_node& n) const { return at_offset(text_offset(n)); }
  /// `c` with its line and column those of `n`, as for a layer's context placed at one of its
  /// children.
  ErrorContext at(const pugi::xml_node& n, ErrorContext c) const {
    const ErrorContext where = at(n);
    c.line = where.line;
    c.column = where.column;
    return c;
  }
  Location location(const pugi::xml_node& n) const {
    const std::ptrdiff_t offset = text_offset(n);
    return offset < 0 ? Location{} : lines_.locate(static_cast<std::size_t>(offset));
  }

 private:
  std::string file_;
  LineIndex lines_;
  const TextPieces* pieces_ = nullptr;
  const pugi::xml_document* piece_ = nullptr;
  std::size_t piece_base_ = 0;
};

}  // namespace irlite::loader

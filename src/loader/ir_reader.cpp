#include "loader/ir_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <pugixml.hpp>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/attributes.hpp"
#include "core/buffer.hpp"
#include "core/file.hpp"
#include "core/ir_element_types.hpp"
#include "graph/order.hpp"
#include "loader/xml_pieces.hpp"

namespace irlite {
namespace {

constexpr std::size_t kNone = SIZE_MAX;
// A layer with up to this many ports has them searched one by one; one with more gets a hash
// index, so that a layer with 10^5 ports is not read in quadratic time.
constexpr std::size_t kFewPorts = 16;

/// Thrown when the text does not split into pieces as expected: it is then read whole.
struct NotInPieces {};

/// An id or port number: an unsigned decimal that fits int64.
std::optional<std::int64_t> parse_id(const char* text) {
  // Up to 18 digits cannot overflow: the common case, without the general parser.
  std::int64_t v = 0;
  std::size_t n = 0;
  for (; n < 18 && text[n] >= '0' && text[n] <= '9'; ++n) v = 10 * v + (text[n] - '0');
  if (n > 0 && text[n] == '\0') return v;
  const auto u = parse_uint64(text);
  if (!u || *u > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(*u);
}

/// A <dim>'s text as parse_int64 reads it, plain digits without the general parser.
std::optional<std::int64_t> parse_dim(const char* text) {
  std::int64_t v = 0;
  std::size_t n = 0;
  for (; n < 18 && text[n] >= '0' && text[n] <= '9'; ++n) v = 10 * v + (text[n] - '0');
  if (n > 0 && text[n] == '\0') return v;
  return parse_int64(text);
}

/// Splits a `names` attribute: commas separate, `\,` escapes a comma, blanks around each name
/// are trimmed.
std::vector<std::string> split_names(std::string_view text) {
  std::vector<std::string> names;
  if (text.find_first_of(",\\") == std::string_view::npos) {  // one name, the usual case
    const std::string_view name = trim_blanks(text);
    if (!name.empty()) names.emplace_back(name);
    return names;
  }
  std::string current;
  auto flush = [&] {
    const std::string_view name = trim_blanks(current);
    if (!name.empty()) names.emplace_back(name);
    current.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ',') {
      current += ',';
      ++i;
    } else if (text[i] == ',') {
      flush();
    } else {
      current += text[i];
    }
  }
  flush();
  return names;
}

/// The encoding (iconv's name) of a text that starts as UTF-16 or UTF-32 does: a byte-order
/// mark, or the zero bytes of an ASCII character such as '<' encoded in them; nullptr for any
/// other text.
const char* wide_encoding(std::string_view text) {
  const auto b = [&](std::size_t i) {
    return i < text.size() ? static_cast<unsigned>(static_cast<unsigned char>(text[i])) : 0x100u;
  };
  if (b(0) == 0x00 && b(1) == 0x00 && b(2) == 0xfe && b(3) == 0xff) return "UTF-32BE";
  if (b(0) == 0xff && b(1) == 0xfe && b(2) == 0x00 && b(3) == 0x00) return "UTF-32LE";
  if (b(0) == 0xfe && b(1) == 0xff) return "UTF-16BE";
  if (b(0) == 0xff && b(1) == 0xfe) return "UTF-16LE";
  if (text.size() < 4) return nullptr;
  const bool z0 = b(0) == 0, z1 = b(1) == 0, z2 = b(2) == 0, z3 = b(3) == 0;
  if (z0 && z1 && z2 && !z3) return "UTF-32BE";
  if (!z0 && z1 && z2 && z3) return "UTF-32LE";
  if (z0 && !z1 && z2 && !z3) return "UTF-16BE";
  if (!z0 && z1 && !z2 && z3) return "UTF-16LE";
  return nullptr;
}

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
  explicit LineIndex(std::string_view text) {
    const std::size_t words = text.size() / 64 + 1;  // one more: an offset may be text.size()
    // A bit per byte of text: megabytes for a large model, filled at once.
    bits_.reserve(words);
    advise_huge_pages(bits_.data(), words * sizeof(std::uint64_t));
    bits_.resize(words);
    blocks_.resize((words + kBlockWords - 1) / kBlockWords);
    // One pass: the blocks are counted while the words are fresh.
    const std::size_t whole = text.size() / 64;
    Block current;
    unsigned nuls = 0;
    for (std::size_t w = 0; w < whole; ++w) {
      const std::uint64_t bits = newlines(text.data() + 64 * w, nuls);
      bits_[w] = bits;
      if (w % kBlockWords == 0) blocks_[w / kBlockWords] = current;
      advance(current, w, bits);
    }
    std::uint64_t last = 0;
    for (std::size_t i = whole * 64; i < text.size(); ++i) {
      if (text[i] == '\n') last |= std::uint64_t{1} << (i % 64);
      nuls |= text[i] == '\0';
    }
    bits_[whole] = last;
    has_nul_ = nuls != 0;
    if (whole % kBlockWords == 0) blocks_[whole / kBlockWords] = current;
  }

  /// Whether the text holds a NUL byte.
  bool has_nul() const { return has_nul_; }

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

  /// Bit k: p[k] is a newline, for 64 bytes; `nuls` gets a bit set if one is NUL.
  static std::uint64_t newlines(const char* p, unsigned& nuls) {
#if defined(__SSE2__)
    const __m128i newline = _mm_set1_epi8('\n');
    std::uint64_t word = 0;
    __m128i zeros = _mm_setzero_si128();
    for (int k = 0; k < 4; ++k) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      const auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline)));
      word |= std::uint64_t{mask} << (16 * k);
      zeros = _mm_or_si128(zeros, _mm_cmpeq_epi8(v, _mm_setzero_si128()));
    }
    nuls |= static_cast<unsigned>(_mm_movemask_epi8(zeros));
    return word;
#else
    typedef signed char Bytes __attribute__((vector_size(16)));
    // Each byte's own bit within its half; the sum of a half's bytes is then its mask.
    const Bytes weights = {1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128};
    std::uint64_t word = 0;
    for (int k = 0; k < 4; ++k) {
      Bytes v;
      std::memcpy(&v, p + 16 * k, 16);
      const Bytes hits = (v == '\n') & weights;
      for (int b = 0; b < 16; ++b) nuls |= v[b] == 0;
      std::uint64_t half[2];
      std::memcpy(half, &hits, 16);
      for (int h = 0; h < 2; ++h)
        word |= ((half[h] * 0x0101010101010101ull) >> 56) << (16 * k + 8 * h);
    }
    return word;
#endif
  }

  std::vector<std::uint64_t> bits_;
  std::vector<Block> blocks_;  ///< per kBlockWords words of bits_
  bool has_nul_ = false;
};

/// Layer ids to node positions: a table for the small ids IR files use, a hash map for others.
class IdIndex {
 public:
  void reserve(std::size_t layers) { dense_.assign(2 * layers + 64, kNone); }
  /// Records `id` at `index` unless it is already there; returns the position it has.
  std::size_t insert(std::int64_t id, std::size_t index) {
    if (static_cast<std::uint64_t>(id) < dense_.size()) {
      std::size_t& slot = dense_[static_cast<std::size_t>(id)];
      if (slot == kNone) slot = index;
      return slot;
    }
    return sparse_.emplace(id, index).first->second;
  }
  std::size_t find(std::int64_t id) const {
    if (static_cast<std::uint64_t>(id) < dense_.size()) return dense_[static_cast<std::size_t>(id)];
    const auto it = sparse_.find(id);
    return it == sparse_.end() ? kNone : it->second;
  }

 private:
  std::vector<std::size_t> dense_;
  std::unordered_map<std::int64_t, std::size_t> sparse_;
};

/// The port ids seen so far on one layer.
class PortIdSet {
 public:
  void clear() {
    few_.clear();
    if (!many_.empty()) many_ = {};
  }
  /// Adds `id`; false when it is already there.
  bool insert(std::int64_t id) {
    if (!many_.empty()) return many_.insert(id).second;
    if (std::find(few_.begin(), few_.end(), id) != few_.end()) return false;
    few_.push_back(id);
    if (few_.size() > kFewPorts) many_.insert(few_.begin(), few_.end());
    return true;
  }

 private:
  std::vector<std::int64_t> few_;
  std::unordered_set<std::int64_t> many_;
};

/// Where an empty Const's tensor points: aligned for any element type, never read or written.
alignas(64) constexpr std::byte kNoBytes[64] = {};

/// Whether each of the `n` bytes at `data` is 0 or 1.
bool all_bits(const std::byte* data, std::uint64_t n) {
  std::byte seen{0};
  for (std::uint64_t i = 0; i < n; ++i) seen |= data[i];
  return (seen & ~std::byte{1}) == std::byte{0};
}

class Reader {
 public:
  Reader(const std::string& file, const Weights& weights, Diagnostics& diag, const OpCatalog& ops)
      : weights_(weights), diag_(diag), resolve_(ops.resolve) {
    graph_.file = file;
    graph_.op_owner = ops.owner;
    graph_.type_texts = type_texts_;
  }

  Graph read(std::string_view xml) {
    check_encoding(xml);
    lines_ = LineIndex(xml);
    return read_document(
        doc_.load_buffer(xml.data(), xml.size(), kIrParseOptions, pugi::encoding_utf8));
  }

  /// Reads `xml` with its lists parsed a piece at a time (xml_pieces.hpp). Throws NotInPieces,
  /// or an Error before text_confirmed(), when the text may not be what the pieces made of it:
  /// then it is to be read whole, which decides what is wrong with it.
  Graph read_in_pieces(std::string_view xml, TextPieces& pieces, std::size_t piece_bytes) {
    piece_bytes_ = piece_bytes;
    check_encoding(xml);
    lines_ = LineIndex(xml);
    // pugixml stops at a NUL: a piece would end there unnoticed, where the whole text fails.
    if (lines_.has_nul()) throw NotInPieces{};
    text_view_ = xml;
    pieces_ = &pieces;
    // The skeleton is parsed in place: it is of no use once read, whether or not the text then
    // has to be read whole.
    if (!doc_.load_buffer_inplace(pieces.skeleton.data(), pieces.skeleton.size(), kIrParseOptions,
                                  pugi::encoding_utf8))
      throw NotInPieces{};
    read_root();
    const pugi::xml_node layers = root_.child("layers");
    edges_ = root_.child("edges");
    if (!is_cut_list(layers, pieces.layers) ||
        (pieces.edges && !is_cut_list(edges_, *pieces.edges)))
      throw NotInPieces{};
    read_layers_in_pieces(layers);
    if (pieces.edges)
      read_edges_in_pieces();
    else
      read_edges();
    return finish();
  }

  /// Whether every piece parsed: the text is then what the pieces made of it, and an Error is
  /// the one reading it whole would give.
  bool text_confirmed() const { return confirmed_; }

  Graph read_in_place(XmlText& xml) {
    const std::span<char> bytes = xml.bytes();
    check_encoding(std::string_view(bytes.data(), bytes.size()));
    lines_ = LineIndex(std::string_view(bytes.data(), bytes.size()));
    text_ = &xml;
    return read_document(
        doc_.load_buffer_inplace(bytes.data(), bytes.size(), kIrParseOptions, pugi::encoding_utf8));
  }

 private:
  Graph read_document(const pugi::xml_parse_result& parsed) {
    if (!parsed) {
      // Nothing else can be read from a document that does not parse.
      throw Error(ErrorCode::xml, fmt::format("malformed XML: {}", parsed.description()),
                  at_offset(parsed.offset));
    }
    read_root();
    // Looked up first: reading the layers may give back the text of <net>'s earlier children.
    edges_ = root_.child("edges");
    read_layers();
    read_edges();
    return finish();
  }

  Graph finish() {
    // Everything the graph needs has been copied out of the document.
    doc_.reset();
    piece_doc_.reset();
    lines_ = LineIndex();
    port_maps_.clear();
    check_inputs_fed();
    sort_topologically(graph_, diag_);
    mark_reaching_results(graph_);
    attach_constants();
    return std::move(graph_);
  }

  /// Releases the text before element `n`: what the reader takes from the document it takes in
  /// document order, and copies. Only at every kReleaseEvery-th call: the text goes back in
  /// steps of megabytes, and finding an element's offset is not free.
  void release_before(const pugi::xml_node& n) {
    if (!text_ || ++release_calls_ % kReleaseEvery != 0) return;
    const std::ptrdiff_t offset = n.offset_debug();
    if (offset > 0) text_->release_before(static_cast<std::size_t>(offset - 1));
  }

  /// Refuses a text in UTF-16 or UTF-32, which pugixml would read as UTF-8 and report as
  /// nonsense about tags.
  void check_encoding(std::string_view xml) const {
    const char* encoding = wide_encoding(xml);
    const bool nul = xml.substr(0, 4).find('\0') != std::string_view::npos;
    if (!encoding && !nul) return;
    ErrorContext c;
    c.file = graph_.file;
    if (encoding)
      throw Error(ErrorCode::xml,
                  fmt::format("the file is {0} text, which irlite does not read: IR files are "
                              "UTF-8 (convert it with iconv -f {0} -t UTF-8)",
                              encoding),
                  std::move(c));
    throw Error(ErrorCode::xml,
                "the file starts with NUL bytes: it is not UTF-8 text, so not an IR file",
                std::move(c));
  }

  ErrorContext at_offset(std::ptrdiff_t offset) const {
    ErrorContext c;
    c.file = graph_.file;
    if (offset >= 0) {
      const Location l = lines_.locate(static_cast<std::size_t>(offset));
      c.line = l.line;
      c.column = l.column;
    }
    return c;
  }
  /// Where `n` is in the text: parsed whole, its offset in the document; in pieces, the
  /// offset in the piece or the skeleton mapped back.
  std::ptrdiff_t text_offset(const pugi::xml_node& n) const {
    const std::ptrdiff_t offset = n.offset_debug();
    if (offset < 0 || !pieces_) return offset;
    if (n.root() == piece_doc_) return offset + static_cast<std::ptrdiff_t>(piece_base_);
    return static_cast<std::ptrdiff_t>(pieces_->text_offset(static_cast<std::size_t>(offset)));
  }
  ErrorContext at(const pugi::xml_node& n) const { return at_offset(text_offset(n)); }
  Location location(const pugi::xml_node& n) const {
    const std::ptrdiff_t offset = text_offset(n);
    return offset < 0 ? Location{} : lines_.locate(static_cast<std::size_t>(offset));
  }
  /// The context of a layer, placed at element `n` (the layer itself or one of its children).
  ErrorContext at_layer(const Node& node, const pugi::xml_node& n) const {
    ErrorContext c = graph_.context(node);
    const ErrorContext where = at(n);
    c.line = where.line;
    c.column = where.column;
    return c;
  }

  void fail(ErrorCode code, std::string message, ErrorContext c) {
    diag_.report(Error(code, std::move(message), std::move(c)));
  }

  void read_root() {
    const pugi::xml_node root = doc_.document_element();
    if (!root || ascii_lower(root.name()) != "net")
      throw Error(ErrorCode::format,
                  fmt::format("not an OpenVINO IR: the root element is <{}>, expected <net>",
                              root ? root.name() : ""),
                  at(root));
    graph_.name = root.attribute("name").value();
    const pugi::xml_attribute version = root.attribute("version");
    const auto v = parse_int64(version.value());
    if (!version || !v || (*v != 10 && *v != 11))
      throw Error(ErrorCode::format,
                  version ? fmt::format("unsupported IR version '{}'; irlite reads versions 10 "
                                        "and 11",
                                        version.value())
                          : std::string("<net> has no version attribute; irlite reads IR versions "
                                        "10 and 11"),
                  at(root));
    graph_.ir_version = static_cast<int>(*v);
    root_ = root;
  }

  void read_layers() {
    const pugi::xml_node layers = root_.child("layers");
    if (!layers) throw Error(ErrorCode::format, "<net> has no <layers>", at(root_));
    std::size_t count = 0;
    for (pugi::xml_node n = layers.first_child(); n; n = n.next_sibling())
      count += named(n.name(), "layer");
    graph_.nodes.reserve(count);
    advise_huge_pages(graph_.nodes.data(), count * sizeof(Node));
    ids_.reserve(count);
    // The text before a layer is done with, unless the <edges> are in it.
    const bool release = !edges_ || edges_.offset_debug() > layers.offset_debug();
    for (pugi::xml_node n = layers.first_child(); n; n = n.next_sibling()) {
      if (!named(n.name(), "layer")) continue;
      if (release) release_before(n);
      read_layer(n);
    }
    check_results(layers);
  }

  void check_results(const pugi::xml_node& layers) {
    if (graph_.results.empty() && !graph_.nodes.empty())
      fail(ErrorCode::graph, "the model has no Result layer, so nothing would be computed",
           at(layers));
  }

  /// Whether `list` is the skeleton's element for `region`: where the region's start tag is, and
  /// empty.
  bool is_cut_list(const pugi::xml_node& list, const ListRegion& region) const {
    return list && !list.first_child() &&
           text_offset(list) == static_cast<std::ptrdiff_t>(region.open + 1);
  }

  /// Parses text[begin, end) as a fragment into piece_doc_, replacing the last piece.
  void parse_piece(std::size_t begin, std::size_t end) {
    piece_text_.assign(text_view_.data() + begin, text_view_.data() + end);
    // parse_doctype keeps a <!DOCTYPE> as a node (it changes nothing else), to be seen below.
    const pugi::xml_parse_result parsed = piece_doc_.load_buffer_inplace(
        piece_text_.data(), piece_text_.size(),
        kIrParseOptions | pugi::parse_fragment | pugi::parse_doctype, pugi::encoding_utf8);
    if (!parsed) throw NotInPieces{};
    // A fragment's top level is a document's: it takes a <!DOCTYPE> that inside <layers> is an
    // error. Only what element content holds may be there.
    for (pugi::xml_node n = piece_doc_.first_child(); n; n = n.next_sibling()) {
      const pugi::xml_node_type type = n.type();
      if (type != pugi::node_element && type != pugi::node_pcdata && type != pugi::node_cdata)
        throw NotInPieces{};
    }
    piece_base_ = begin;
  }

  /// Parses the content of `region` a piece at a time, each cut before an `<item` start tag,
  /// and calls read(end) after each, `end` being where the piece ends. Once the last piece of the
  /// text's last list has parsed, the text is confirmed.
  template <class Read>
  void for_each_piece(const ListRegion& region, std::string_view item, bool last_list,
                      Read&& read) {
    for (std::size_t begin = region.begin; begin < region.end;) {
      const std::size_t end = piece_end(text_view_, begin, region.end, item, piece_bytes_);
      parse_piece(begin, end);
      if (last_list && end == region.end) confirmed_ = true;
      read(end);
      begin = end;
    }
  }

  void read_layers_in_pieces(const pugi::xml_node& layers) {
    const ListRegion& region = pieces_->layers;
    for_each_piece(region, "layer", !pieces_->edges, [&](std::size_t end) {
      std::size_t count = 0;
      for (pugi::xml_node n = piece_doc_.first_child(); n; n = n.next_sibling())
        count += named(n.name(), "layer");
      make_room(count, end - region.begin, region.end - region.begin);
      for (pugi::xml_node n = piece_doc_.first_child(); n; n = n.next_sibling())
        if (named(n.name(), "layer")) read_layer(n);
    });
    check_results(layers);
  }

  /// Room for `count` more layers, read from a piece that ends `done` bytes into a list of
  /// `total`: as many as the list holds at the density seen so far, and a tenth more.
  void make_room(std::size_t count, std::size_t done, std::size_t total) {
    std::vector<Node>& nodes = graph_.nodes;
    const std::size_t needed = nodes.size() + count;
    if (needed <= nodes.capacity()) return;
    const double projected = static_cast<double>(needed) * static_cast<double>(total) /
                             static_cast<double>(std::max<std::size_t>(done, 1)) * 1.1;
    const std::size_t room =
        std::max({needed, 2 * nodes.capacity(), static_cast<std::size_t>(projected) + 16});
    const bool first = nodes.capacity() == 0;
    nodes.reserve(room);
    advise_huge_pages(nodes.data(), room * sizeof(Node));
    if (first) ids_.reserve(room);
  }

  void read_edges_in_pieces() {
    for_each_piece(*pieces_->edges, "edge", true, [&](std::size_t) {
      for (pugi::xml_node n = piece_doc_.first_child(); n; n = n.next_sibling())
        if (named(n.name(), "edge")) read_edge(n);
    });
  }

  /// The first child element of each name the reader looks at.
  struct LayerParts {
    pugi::xml_node data, input, output;
  };

  void read_layer(const pugi::xml_node& layer) {
    // The mandatory attributes in one pass; the first of a repeated name counts, as with
    // pugixml's attribute().
    static constexpr const char* kMandatory[] = {"id", "name", "type", "version"};
    const char* text[4] = {};
    for (pugi::xml_attribute a = layer.first_attribute(); a; a = a.next_attribute()) {
      const char* name = a.name();
      // The first letter tells which it can be; one comparison checks it.
      int k = -1;
      switch (name[0]) {
        case 'i':
          k = named(name, "id") ? 0 : -1;
          break;
        case 'n':
          k = named(name, "name") ? 1 : -1;
          break;
        case 't':
          k = named(name, "type") ? 2 : -1;
          break;
        case 'v':
          k = named(name, "version") ? 3 : -1;
          break;
        default:
          break;
      }
      if (k >= 0 && !text[k]) text[k] = a.value();
    }
    for (int k = 0; k < 4; ++k) {
      if (!text[k]) {
        fail(ErrorCode::format,
             fmt::format("<layer> is missing the mandatory attribute '{}'", kMandatory[k]),
             at(layer));
        return;
      }
    }
    const auto id = parse_id(text[0]);
    if (!id) {
      fail(ErrorCode::format, fmt::format("layer id '{}' is not an unsigned integer", text[0]),
           at(layer));
      return;
    }
    // Built in place: a Node is large, and the layers are many. The vector has room for every
    // layer (read_layers counted them), so references into it stay valid.
    const std::size_t index = graph_.nodes.size();
    Node& node = graph_.nodes.emplace_back();
    node.location = location(layer);
    node.id = *id;
    node.name = text[1];
    const LayerType& type = layer_type(text[2], text[3]);
    node.written = type.text;
    node.def = type.def;
    const std::size_t first = ids_.insert(node.id, index);
    if (first != index) {
      const Node& other = graph_.nodes[first];
      fail(ErrorCode::graph,
           fmt::format("duplicate layer id {}: already used by layer '{}' at line {}", node.id,
                       other.name, other.location.line),
           at_layer(node, layer));
      graph_.nodes.pop_back();  // kept_going: the layer is left out
      return;
    }

    if (!node.def) fail(ErrorCode::unsupported, type.why, at_layer(node, layer));

    LayerParts parts;
    for (pugi::xml_node child = layer.first_child(); child; child = child.next_sibling()) {
      const char* name = child.name();
      switch (name[0]) {
        case 'd':
          if (!parts.data && named(name, "data")) parts.data = child;
          break;
        case 'i':
          if (!parts.input && named(name, "input")) parts.input = child;
          break;
        case 'o':
          if (!parts.output && named(name, "output")) parts.output = child;
          break;
        default:
          break;
      }
    }
    read_ports(node, layer, parts);
    if (node.def) create_op(node, layer, parts.data);
    if (!node.op)
      for (pugi::xml_attribute a = parts.data.first_attribute(); a; a = a.next_attribute())
        node.data_attributes.emplace_back(a.name(), a.value());

    if (node.kind() == OpKind::parameter) graph_.parameters.push_back(index);
    if (node.kind() == OpKind::result) graph_.results.push_back(index);
  }

  /// A (type, opset) pair as written, with the op it resolves to (or why none does).
  struct LayerType {
    const LayerTypeText* text;
    const OpDef* def;
    std::string why;
  };

  /// The pair a layer writes, resolved once: a model has few, in layers that repeat them.
  const LayerType& layer_type(const char* type, const char* opset) {
    // The first few pairs are searched in place; the others through a hash map, so that a
    // model whose layers all have types of their own is not read in quadratic time.
    const std::size_t few = std::min(layer_types_.size(), kFewTypes);
    for (std::size_t k = 0; k < few; ++k) {
      const LayerType& t = layer_types_[k];
      if (std::strcmp(t.text->type.c_str(), type) == 0 &&
          std::strcmp(t.text->opset.c_str(), opset) == 0)
        return t;
    }
    std::string key;
    if (layer_types_.size() > kFewTypes) {
      // A NUL cannot be in either text: it separates them.
      key.append(type).push_back('\0');
      key.append(opset);
      const auto it = type_index_.find(key);
      if (it != type_index_.end()) return layer_types_[it->second];
    }
    type_texts_->push_back({type, opset});
    const LayerTypeText& text = type_texts_->back();
    LayerType& entry = layer_types_.emplace_back(LayerType{&text, nullptr, {}});
    entry.def = resolve_(text.type, text.opset, &entry.why);
    if (layer_types_.size() > kFewTypes) {
      if (key.empty()) {
        key.append(type).push_back('\0');
        key.append(opset);
      }
      type_index_.emplace(std::move(key), layer_types_.size() - 1);
    }
    return entry;
  }

  /// The attributes of a <port> the reader uses (the first of each name).
  struct PortAttributes {
    const char* id = "";
    pugi::xml_attribute precision;
    const char* names = "";
  };

  static PortAttributes port_attributes(const pugi::xml_node& port) {
    PortAttributes p;
    bool id = false, names = false;
    for (pugi::xml_attribute a = port.first_attribute(); a; a = a.next_attribute()) {
      const char* name = a.name();
      switch (name[0]) {
        case 'i':
          if (!id && named(name, "id")) {
            p.id = a.value();
            id = true;
          }
          break;
        case 'p':
          if (!p.precision && named(name, "precision")) p.precision = a;
          break;
        case 'n':
          if (!names && named(name, "names")) {
            p.names = a.value();
            names = true;
          }
          break;
        default:
          break;
      }
    }
    return p;
  }

  void read_ports(Node& node, const pugi::xml_node& layer, const LayerParts& parts) {
    // The ports are gathered in scratch vectors first, so that the node's own take one
    // allocation of the right size each.
    port_ids_.clear();
    inputs_.clear();
    for (pugi::xml_node port = parts.input.first_child(); port; port = port.next_sibling()) {
      if (!named(port.name(), "port")) continue;
      const auto id = port_id(node, port, port_attributes(port).id, "input");
      if (id) inputs_.push_back({*id});
    }
    node.inputs.assign(inputs_.begin(), inputs_.end());
    outputs_.clear();
    for (pugi::xml_node port = parts.output.first_child(); port; port = port.next_sibling()) {
      if (!named(port.name(), "port")) continue;
      const PortAttributes attributes = port_attributes(port);
      const auto id = port_id(node, port, attributes.id, "output");
      if (!id) continue;
      OutputPort& out = outputs_.emplace_back();
      out.id = *id;
      out.names = split_names(attributes.names);
      const pugi::xml_attribute precision = attributes.precision;
      const auto port_context = [&] {
        ErrorContext pc = at_layer(node, port);
        pc.port_kind = ErrorContext::PortKind::output;
        pc.port = *id;
        return pc;
      };
      if (!precision) {
        fail(ErrorCode::format, "output port has no precision attribute", port_context());
      } else if (auto t = precision_type(precision.value())) {
        out.declared_type = *t;
      } else if (is_unsupported_element_type(precision.value())) {
        fail(ErrorCode::unsupported,
             fmt::format("unsupported element type '{}'", precision.value()), port_context());
      } else {
        fail(ErrorCode::format, fmt::format("unknown precision '{}'", precision.value()),
             port_context());
      }
      dims_.clear();
      for (pugi::xml_node dim = port.first_child(); dim; dim = dim.next_sibling()) {
        if (!named(dim.name(), "dim")) continue;
        const char* text = dim.child_value();
        const auto d = parse_dim(text);
        if (!d || *d < -1) {
          fail(ErrorCode::format, fmt::format("dimension '{}' must be an integer >= -1", text),
               port_context());
          break;
        }
        dims_.push_back(*d);
      }
      out.declared_dims.assign(dims_.begin(), dims_.end());
    }
    node.outputs.assign(std::make_move_iterator(outputs_.begin()),
                        std::make_move_iterator(outputs_.end()));
    if (!node.def) return;
    const auto n_in = static_cast<int>(node.inputs.size());
    if (n_in < node.def->min_inputs || n_in > node.def->max_inputs) {
      const std::string expected =
          node.def->min_inputs == node.def->max_inputs
              ? std::to_string(node.def->min_inputs)
              : fmt::format("{} to {}", node.def->min_inputs, node.def->max_inputs);
      fail(ErrorCode::format,
           fmt::format("{} takes {} input(s), the layer declares {}", op_display_name(*node.def),
                       expected, n_in),
           at_layer(node, layer));
      node.def = nullptr;
      return;
    }
    if (static_cast<int>(node.outputs.size()) != node.def->num_outputs) {
      fail(ErrorCode::format,
           fmt::format("{} has {} output(s), the layer declares {}", op_display_name(*node.def),
                       node.def->num_outputs, node.outputs.size()),
           at_layer(node, layer));
      node.def = nullptr;
    }
  }

  /// parse_element_type, remembering the precisions seen: ports repeat a few, and alternate
  /// between them (an f32 input beside an i64 one), so one remembered answer is not enough.
  std::optional<ElementType> precision_type(const char* text) {
    const std::string_view precision(text);
    for (const KnownPrecision& k : precisions_)
      if (k.text == precision) return k.type;
    const std::optional<ElementType> type = parse_element_type(precision);
    if (precisions_.size() < kKnownPrecisions)
      precisions_.push_back({std::string(precision), type});
    return type;
  }

  /// The id of a <port>: an unsigned integer not used by another port of the layer.
  std::optional<std::int64_t> port_id(const Node& node, const pugi::xml_node& port,
                                      const char* text, std::string_view direction) {
    const auto id = parse_id(text);
    if (!id) {
      fail(ErrorCode::format,
           fmt::format("{} port id '{}' is not an unsigned integer", direction, text),
           at_layer(node, port));
      return std::nullopt;
    }
    if (!port_ids_.insert(*id)) {
      fail(ErrorCode::format, fmt::format("port id {} is used twice", *id), at_layer(node, port));
      return std::nullopt;
    }
    return id;
  }

  void create_op(Node& node, const pugi::xml_node& layer, const pugi::xml_node& data) {
    if (node.kind() == OpKind::parameter && !data) {
      fail(ErrorCode::format, "Parameter layer has no <data> (shape and element_type)",
           at_layer(node, layer));
      return;
    }
    // Ops are immutable: a layer with the same op and <data> as the last one of its op shares
    // that one's, as the layers of a repeated block do.
    LastOp* last = nullptr;
    for (LastOp& l : last_ops_)
      if (l.def == node.def) last = &l;
    if (!last) last = &last_ops_.emplace_back(LastOp{node.def, {}, nullptr});
    if (last->op && same_attributes(data, last->attributes.items())) {
      node.op = last->op;
      return;
    }
    attributes_.clear();
    for (pugi::xml_attribute a = data.first_attribute(); a; a = a.next_attribute())
      attributes_.add(a.name(), a.value());
    try {
      node.op = node.def->create(attributes_);
    } catch (const Error& e) {
      fail(e.code(), e.message(), at_layer(node, data ? data : layer));
      return;
    }
    std::swap(last->attributes, attributes_);
    last->op = node.op;
  }

  /// Whether the attributes of `data` are `items`, in the same order.
  static bool same_attributes(const pugi::xml_node& data,
                              const std::vector<std::pair<std::string, std::string>>& items) {
    std::size_t k = 0;
    for (pugi::xml_attribute a = data.first_attribute(); a; a = a.next_attribute(), ++k)
      if (k == items.size() || items[k].first != a.name() || items[k].second != a.value())
        return false;
    return k == items.size();
  }

  /// The context of an <edge>: its own line, and the layer it names when that exists.
  ErrorContext at_edge(const pugi::xml_node& edge, std::size_t node_index) const {
    if (node_index == kNone) return at(edge);
    return at_layer(graph_.nodes[node_index], edge);
  }

  void read_edges() {
    for (pugi::xml_node edge = edges_.first_child(); edge; edge = edge.next_sibling()) {
      if (!named(edge.name(), "edge")) continue;
      release_before(edge);
      read_edge(edge);
    }
  }

  /// Reads one <edge> element.
  void read_edge(const pugi::xml_node& edge) {
    static constexpr const char* kNames[4] = {"from-layer", "from-port", "to-layer", "to-port"};
    const char* text[4] = {};
    for (pugi::xml_attribute a = edge.first_attribute(); a; a = a.next_attribute()) {
      const char* name = a.name();
      int k = -1;
      if (name[0] == 'f')
        k = named(name, "from-layer") ? 0 : named(name, "from-port") ? 1 : -1;
      else if (name[0] == 't')
        k = named(name, "to-layer") ? 2 : named(name, "to-port") ? 3 : -1;
      if (k >= 0 && !text[k]) text[k] = a.value();
    }
    std::int64_t v[4];
    for (int i = 0; i < 4; ++i) {
      const auto id = parse_id(text[i] ? text[i] : "");
      if (!id) {
        fail(ErrorCode::format,
             fmt::format("<edge> attribute '{}' = '{}' is not an unsigned integer", kNames[i],
                         text[i] ? text[i] : ""),
             at(edge));
        return;
      }
      v[i] = *id;
    }
    connect(edge, v[0], v[1], v[2], v[3]);
  }

  /// Where port `id` of a node is: its position among the inputs or among the outputs.
  struct PortRef {
    bool output = false;
    std::size_t position = kNone;
  };

  PortRef find_port(std::size_t node_index, std::int64_t id) {
    const Node& node = graph_.nodes[node_index];
    if (node.inputs.size() + node.outputs.size() <= kFewPorts) {
      for (std::size_t k = 0; k < node.inputs.size(); ++k)
        if (node.inputs[k].id == id) return {false, k};
      for (std::size_t k = 0; k < node.outputs.size(); ++k)
        if (node.outputs[k].id == id) return {true, k};
      return {};
    }
    const auto [it, fresh] = port_maps_.try_emplace(node_index);
    auto& map = it->second;
    if (fresh) {
      map.reserve(node.inputs.size() + node.outputs.size());
      for (std::size_t k = 0; k < node.inputs.size(); ++k)
        map.emplace(node.inputs[k].id, PortRef{false, k});
      for (std::size_t k = 0; k < node.outputs.size(); ++k)
        map.emplace(node.outputs[k].id, PortRef{true, k});
    }
    const auto found = map.find(id);
    return found == map.end() ? PortRef{} : found->second;
  }

  /// Feeds input port `to_port` of layer `to_layer` from output `from_port` of `from_layer`.
  void connect(const pugi::xml_node& edge, std::int64_t from_layer, std::int64_t from_port,
               std::int64_t to_layer, std::int64_t to_port) {
    const std::size_t from = ids_.find(from_layer);
    const std::size_t to = ids_.find(to_layer);
    if (from == kNone) {
      fail(ErrorCode::graph, fmt::format("edge from layer {}, which does not exist", from_layer),
           at_edge(edge, to));
      return;
    }
    if (to == kNone) {
      fail(ErrorCode::graph, fmt::format("edge to layer {}, which does not exist", to_layer),
           at_edge(edge, from));
      return;
    }
    const PortRef out = find_port(from, from_port);
    if (out.position == kNone || !out.output) {
      fail(ErrorCode::graph,
           out.position != kNone
               ? fmt::format("edge leaves from port {}, which is an input port", from_port)
               : fmt::format("edge leaves from output port {}, which the layer does not "
                             "have",
                             from_port),
           at_edge(edge, from));
      return;
    }
    const PortRef in = find_port(to, to_port);
    if (in.position == kNone || in.output) {
      fail(ErrorCode::graph,
           in.position != kNone
               ? fmt::format("edge enters port {}, which is an output port", to_port)
               : fmt::format("edge enters input port {}, which the layer does not have", to_port),
           at_edge(edge, to));
      return;
    }
    InputPort& port = graph_.nodes[to].inputs[in.position];
    if (port.source_node != kNone) {
      const Node& first = graph_.nodes[port.source_node];
      ErrorContext c = at_edge(edge, to);
      c.port_kind = ErrorContext::PortKind::input;
      c.port = to_port;
      fail(ErrorCode::graph,
           fmt::format("port is fed twice: by layer {} port {} and by layer {} port {}", first.id,
                       first.outputs[port.source_output].id, from_layer, from_port),
           c);
      return;
    }
    port.source_node = from;
    port.source_output = out.position;
  }

  void check_inputs_fed() {
    for (Node& node : graph_.nodes) {
      for (const InputPort& in : node.inputs) {
        if (in.source_node != kNone) continue;
        ErrorContext c = graph_.context(node);
        c.port_kind = ErrorContext::PortKind::input;
        c.port = in.id;
        fail(ErrorCode::graph, "input port is not fed by any edge", c);
        node.failed = true;
      }
    }
  }

  void attach_constants() {
    bool warned_missing = false;
    for (Node& node : graph_.nodes) {
      if (node.kind() != OpKind::constant || !node.op) continue;
      const StoredValue* stored = node.op->stored_value();
      if (!stored) continue;
      const StoredValue& c = *stored;
      const std::uint64_t width = element_size(c.type);
      const auto count = static_cast<std::uint64_t>(*element_count(c.shape));
      if (count != 0 && width > UINT64_MAX / count) {
        fail(ErrorCode::weights,
             fmt::format("Const of shape {} and type {} is too large", to_string(c.shape),
                         to_string(c.type)),
             graph_.context(node));
        continue;
      }
      const std::uint64_t needed = count * width;
      if (c.size < needed) {
        fail(ErrorCode::weights,
             fmt::format("size {} is too small for shape {} of {} ({} bytes needed)", c.size,
                         to_string(c.shape), to_string(c.type), needed),
             graph_.context(node));
        continue;
      }
      if (needed == 0) {
        // No bytes to hold: a view of static memory rather than an allocation per Const (a
        // model may have many empty ones, such as the axes of reductions over nothing).
        node.value = Tensor::view(c.type, c.shape, static_cast<const void*>(kNoBytes), nullptr);
        node.has_value = true;
        continue;
      }
      if (!weights_.present) {
        if (diag_.keep_going) {
          // inspect works without the .bin: the Const's value is just unknown.
          if (!warned_missing)
            diag_.warnings.emplace_back(ErrorCode::io, missing_weights_message(),
                                        graph_.context(node));
          warned_missing = true;
          continue;
        }
        fail(ErrorCode::io, missing_weights_message(), graph_.context(node));
        continue;
      }
      const std::uint64_t total = weights_.bytes.size();
      if (c.size > total || c.offset > total - c.size) {
        fail(ErrorCode::weights,
             fmt::format("needs bytes [{}, {}{}) but {} has {} bytes", c.offset,
                         c.offset > UINT64_MAX - c.size ? "offset + " : "",
                         c.offset > UINT64_MAX - c.size ? c.size : c.offset + c.size,
                         weights_.path.empty() ? "the weights buffer" : weights_.path, total),
             graph_.context(node));
        continue;
      }
      const std::byte* data = weights_.bytes.data() + c.offset;
      if (c.type == ElementType::boolean && !all_bits(data, needed)) {
        // Kernels and outputs take a boolean byte to be 0 or 1, as .npy inputs are made.
        node.value = Tensor(c.type, c.shape);
        auto* out = static_cast<std::uint8_t*>(node.value.data());
        for (std::uint64_t i = 0; i < needed; ++i) out[i] = data[i] != std::byte{0};
      } else if (reinterpret_cast<std::uintptr_t>(data) % width == 0) {
        node.value = Tensor::view(c.type, c.shape, static_cast<const void*>(data), weights_.owner);
      } else {
        // The IR does not align Consts; an unaligned one is copied once so kernels can read
        // it with plain loads.
        node.value = Tensor(c.type, c.shape);
        std::memcpy(node.value.data(), data, needed);
      }
      node.has_value = true;
    }
  }

  /// Why a Const has no bytes: no weights file, or a path beside the model that is not one.
  std::string missing_weights_message() const {
    const std::string intro = "this Const needs weights, but ";
    if (weights_.path.empty()) return intro + "there is no weights file";
    const std::string kind = special_file_kind(weights_.path);
    if (!kind.empty()) return intro + weights_.path + " is " + kind + ", not a weights file";
    return intro + "there is no weights file (looked for " + weights_.path + ")";
  }

  struct LastOp {
    const OpDef* def;
    Attributes attributes;
    std::shared_ptr<const Op> op;
  };

  const Weights& weights_;
  Diagnostics& diag_;
  const OpResolver& resolve_;
  XmlText* text_ = nullptr;  ///< the text parsed in place, released as it is read
  // Reading in pieces: the text (never written), how it splits (doc_ holds the skeleton), and
  // the current piece's copy, document and offset in the text.
  std::string_view text_view_;
  const TextPieces* pieces_ = nullptr;
  std::vector<char> piece_text_;
  pugi::xml_document piece_doc_;
  std::size_t piece_base_ = 0;
  std::size_t piece_bytes_ = kIrPieceBytes;
  bool confirmed_ = false;
  static constexpr std::size_t kReleaseEvery = 64;
  std::size_t release_calls_ = 0;
  LineIndex lines_;
  pugi::xml_document doc_;
  pugi::xml_node root_, edges_;
  Graph graph_;
  IdIndex ids_;
  static constexpr std::size_t kFewTypes = 16;
  std::deque<LayerType> layer_types_;  ///< in order of first use; a deque keeps references
  std::unordered_map<std::string, std::size_t> type_index_;  ///< beyond the first kFewTypes
  /// Shared with the graph from the start; grows as pairs are met.
  std::shared_ptr<std::deque<LayerTypeText>> type_texts_ =
      std::make_shared<std::deque<LayerTypeText>>();
  std::vector<LastOp> last_ops_;  ///< one per op in use
  // Scratch space reused from layer to layer.
  PortIdSet port_ids_;
  std::vector<std::int64_t> dims_;
  struct KnownPrecision {
    std::string text;
    std::optional<ElementType> type;
  };
  static constexpr std::size_t kKnownPrecisions = 16;
  std::vector<KnownPrecision> precisions_;
  std::vector<InputPort> inputs_;
  std::vector<OutputPort> outputs_;
  Attributes attributes_;
  /// Port lookup for the nodes with many ports, built when an edge first needs it.
  std::unordered_map<std::size_t, std::unordered_map<std::int64_t, PortRef>> port_maps_;
};

/// Reads `xml` in pieces when it splits (xml_pieces.hpp); otherwise, or when the pieces turn out
/// not to be the document, calls `whole` to read it whole.
template <class Whole>
Graph read_either(std::string_view xml, const std::string& file, const Weights& weights,
                  Diagnostics& diagnostics, const OpCatalog& ops, std::size_t piece_bytes,
                  Whole whole) {
  if (piece_bytes == 0) return whole();
  std::optional<TextPieces> pieces = split_text(xml);
  if (!pieces) return whole();
  const std::size_t problems = diagnostics.problems.size();
  const std::size_t warnings = diagnostics.warnings.size();
  {
    Reader reader(file, weights, diagnostics, ops);
    try {
      return reader.read_in_pieces(xml, *pieces, piece_bytes);
    } catch (const NotInPieces&) {
    } catch (const Error&) {
      if (reader.text_confirmed()) throw;
    }
  }
  // What the attempt reported is reported again, or not, by the reading of the whole text.
  diagnostics.problems.erase(diagnostics.problems.begin() + static_cast<std::ptrdiff_t>(problems),
                             diagnostics.problems.end());
  diagnostics.warnings.erase(diagnostics.warnings.begin() + static_cast<std::ptrdiff_t>(warnings),
                             diagnostics.warnings.end());
  return whole();
}

}  // namespace

Graph read_ir(std::string_view xml, const std::string& file, const Weights& weights,
              Diagnostics& diagnostics, const OpCatalog& ops, std::size_t piece_bytes) {
  return read_either(xml, file, weights, diagnostics, ops, piece_bytes,
                     [&] { return Reader(file, weights, diagnostics, ops).read(xml); });
}

Graph read_ir_in_place(XmlText& xml, const std::string& file, const Weights& weights,
                       Diagnostics& diagnostics, const OpCatalog& ops, std::size_t piece_bytes) {
  const std::span<char> bytes = xml.bytes();
  return read_either(std::string_view(bytes.data(), bytes.size()), file, weights, diagnostics, ops,
                     piece_bytes,
                     [&] { return Reader(file, weights, diagnostics, ops).read_in_place(xml); });
}

}  // namespace irlite

#include "loader/xml_pieces.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace irlite {
namespace {

constexpr std::size_t kNotFound = std::string_view::npos;

/// Whether `c` can follow a tag's name.
bool ends_name(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '>' || c == '/';
}

/// The first `pattern` (a '<' and a name) in text[from, to) that a tag delimiter follows.
std::size_t find_tag(std::string_view text, std::string_view pattern, std::size_t from,
                     std::size_t to) {
  const std::string_view range = text.substr(0, to);
  for (std::size_t at = from;;) {
    const std::size_t pos = range.find(pattern, at);
    if (pos == kNotFound || pos + pattern.size() >= range.size()) return kNotFound;
    if (ends_name(range[pos + pattern.size()])) return pos;
    at = pos + 1;
  }
}

/// Bit k set: p[k] is '<', for 16 bytes.
unsigned opening_brackets(const char* p) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('<'))));
#else
  unsigned bits = 0;
  for (int k = 0; k < 16; ++k) bits |= unsigned{p[k] == '<'} << k;
  return bits;
#endif
}

/// The last `pattern` (a '<' and more) in `text`, found from the end 16 bytes at a time.
/// (std::string_view::rfind compares at every byte; memrchr from each '<' to the one before is
/// fast, but a checked build checks its whole range at every call, which makes it quadratic.)
std::size_t find_last(std::string_view text, std::string_view pattern) {
  const auto matches = [&](std::size_t pos) { return text.substr(pos, pattern.size()) == pattern; };
  std::size_t end = text.size();
  for (; end >= 16; end -= 16) {
    for (unsigned bits = opening_brackets(text.data() + end - 16); bits != 0;) {
      const int top = 31 - __builtin_clz(bits);
      if (matches(end - 16 + static_cast<std::size_t>(top)))
        return end - 16 + static_cast<std::size_t>(top);
      bits &= ~(1u << top);
    }
  }
  while (end-- > 0)
    if (text[end] == '<' && matches(end)) return end;
  return kNotFound;
}

/// The first non-empty `<name>` list from `from` on, closed by the text's last `</name>`.
std::optional<ListRegion> find_list(std::string_view text, std::string_view name,
                                    std::size_t from) {
  const std::string open_tag = "<" + std::string(name);
  const std::string close_tag = "</" + std::string(name);
  const std::size_t open = find_tag(text, open_tag, from, text.size());
  if (open == kNotFound) return std::nullopt;
  const std::size_t gt = text.find('>', open);
  if (gt == kNotFound || text[gt - 1] == '/') return std::nullopt;  // none, or <name/>
  // No attributes with values: a quoted '>' would end the tag elsewhere. IR lists have none.
  const std::string_view tag = text.substr(open, gt - open);
  if (tag.find_first_of("\"'") != kNotFound) return std::nullopt;
  // The last end tag: the list's own unless a later comment or text mentions one, and then a
  // piece holds an end tag it never opened, which fails its parse.
  const std::size_t end = find_last(text, close_tag);
  if (end == kNotFound || end <= gt) return std::nullopt;
  const std::size_t after = end + close_tag.size();
  if (after >= text.size() || !ends_name(text[after]) || text[after] == '/') return std::nullopt;
  return ListRegion{open, gt + 1, end};
}

}  // namespace

std::size_t TextPieces::text_offset(std::size_t skeleton_offset) const {
  std::size_t offset = skeleton_offset;
  // The cuts in text order: past each one's start, the skeleton is shorter by its length.
  if (offset >= layers.begin) offset += layers.end - layers.begin;
  if (edges && offset >= edges->begin) offset += edges->end - edges->begin;
  return offset;
}

std::optional<TextPieces> split_text(std::string_view text) {
  const std::optional<ListRegion> layers = find_list(text, "layers", 0);
  if (!layers || layers->begin == layers->end) return std::nullopt;
  TextPieces pieces;
  pieces.layers = *layers;
  if (auto edges = find_list(text, "edges", layers->end + 1); edges && edges->begin < edges->end)
    pieces.edges = edges;
  std::string& s = pieces.skeleton;
  const std::size_t cut =
      (layers->end - layers->begin) + (pieces.edges ? pieces.edges->end - pieces.edges->begin : 0);
  s.reserve(text.size() - cut);
  s.append(text.substr(0, layers->begin));
  if (pieces.edges) {
    s.append(text.substr(layers->end, pieces.edges->begin - layers->end));
    s.append(text.substr(pieces.edges->end));
  } else {
    s.append(text.substr(layers->end));
  }
  return pieces;
}

std::size_t piece_end(std::string_view text, std::size_t from, std::size_t end,
                      std::string_view item, std::size_t target) {
  if (end - from <= target) return end;
  const std::string pattern = "<" + std::string(item);
  const std::size_t next = find_tag(text, pattern, from + target, end);
  return next == kNotFound ? end : next;
}

}  // namespace irlite

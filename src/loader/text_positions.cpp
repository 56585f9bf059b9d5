#include "loader/text_positions.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/buffer.hpp"

namespace irlite::loader {
namespace {

/// Bit k: p[k] is a newline, for 64 bytes; `nuls` gets a bit set if one is NUL.
std::uint64_t newlines(const char* p, unsigned& nuls) {
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

}  // namespace

LineIndex::LineIndex(std::string_view text) {
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

}  // namespace irlite::loader

// Differential libFuzzer target for the loader's pieces (loader/xml_pieces.hpp): the input, as IR
// XML (up to the load target's FUZZ_NEXT_FIELD marker, so that its seeds serve), is read whole and
// in pieces of 1 to 64 bytes (its length says how many), with and without keep_going, and the two
// readings must agree on the graph, the problems and the error. A disagreement aborts.
//
//   scripts/dev.sh fuzz [SECONDS]   (builds build-asan with clang, runs every target)

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "read_outcome.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view xml(reinterpret_cast<const char*>(data), size);
  if (const auto at = xml.find("FUZZ_NEXT_FIELD"); at != std::string_view::npos)
    xml.remove_suffix(xml.size() - at);
  const std::size_t piece_bytes = 1 + size % 64;
  for (bool keep_going : {false, true}) {
    const std::string whole = irlite::test::read_outcome(xml, keep_going, 0);
    const std::string pieces = irlite::test::read_outcome(xml, keep_going, piece_bytes);
    if (pieces != whole) {
      std::fprintf(stderr, "pieces of %zu bytes (keep_going %d) read:\n%s\nwhole:\n%s\n",
                   piece_bytes, keep_going, pieces.c_str(), whole.c_str());
      std::abort();
    }
  }
  return 0;
}

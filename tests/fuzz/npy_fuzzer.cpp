// libFuzzer target for the command's .npy reader: any bytes as a .npy image. Any irlite::Error
// is a fine answer; a crash, a sanitizer report, a hang or another exception is a bug.
//
//   scripts/dev.sh fuzz [SECONDS]   (builds build-asan with clang, runs every target)

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "irlite/error.hpp"
#include "npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const irlite::Tensor t =
        irlite::npy::decode(std::span(reinterpret_cast<const std::byte*>(data), size), "fuzz.npy");
    // What was read must encode again and read back the same.
    const std::string image = irlite::npy::encode(t);
    const irlite::Tensor again = irlite::npy::decode(
        std::span(reinterpret_cast<const std::byte*>(image.data()), image.size()), "again.npy");
    if (again.shape() != t.shape() || again.element_type() != t.element_type() ||
        again.byte_size() != t.byte_size() ||
        (t.byte_size() > 0 && std::memcmp(again.data(), t.data(), t.byte_size()) != 0))
      __builtin_trap();
  } catch (const irlite::Error&) {
  }
  return 0;
}

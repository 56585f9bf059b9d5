// libFuzzer target for the command's .npz reader: any bytes as a .npz archive. Any irlite::Error
// is a fine answer; a crash, a sanitizer report, a hang or another exception is a bug.
//
//   scripts/dev.sh fuzz [SECONDS]   (builds build-asan with clang, runs every target)

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "irlite/error.hpp"
#include "npz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const std::vector<irlite::npz::Array> arrays =
        irlite::npz::decode(std::span(reinterpret_cast<const std::byte*>(data), size), "fuzz.npz");
    // What was read must encode again and read back the same.
    const std::string image = irlite::npz::encode(arrays);
    const std::vector<irlite::npz::Array> again = irlite::npz::decode(
        std::span(reinterpret_cast<const std::byte*>(image.data()), image.size()), "again.npz");
    if (again.size() != arrays.size()) __builtin_trap();
    for (std::size_t i = 0; i < arrays.size(); ++i) {
      const irlite::Tensor& a = arrays[i].tensor;
      const irlite::Tensor& b = again[i].tensor;
      if (again[i].name != arrays[i].name || b.shape() != a.shape() ||
          b.element_type() != a.element_type() || b.byte_size() != a.byte_size() ||
          (a.byte_size() > 0 && std::memcmp(a.data(), b.data(), a.byte_size()) != 0))
        __builtin_trap();
    }
  } catch (const irlite::Error&) {
  }
  return 0;
}

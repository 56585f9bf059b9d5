// libFuzzer target for the command's image reader: any bytes as a JPEG or PNG file, decoded and
// resized to a small size. Any irlite::Error is a fine answer; a crash, a sanitizer report, a
// hang, an allocation beyond the pixel limit or another exception is a bug.
//
//   scripts/dev.sh fuzz [SECONDS]   (builds build-asan with clang, runs every target)

#include <cstddef>
#include <cstdint>
#include <span>

#include "image.hpp"
#include "irlite/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace image = irlite::cli::image;
  try {
    const image::Image picture = image::decode(std::span(data, size), "fuzz.img");
    if (picture.width == 0 || picture.height == 0 ||
        picture.width > image::kMaxPixels / picture.height ||
        picture.rgb.size() != picture.width * picture.height * 3)
      __builtin_trap();
    const image::Image small = image::resize(picture, 1 + size % 7, 1 + size % 5);
    if (small.rgb.size() != small.width * small.height * 3) __builtin_trap();
  } catch (const irlite::Error&) {
  }
  return 0;
}

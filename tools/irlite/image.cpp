#include "image.hpp"

#include <fmt/format.h>
#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>

#include "files.hpp"
#include "irlite/input_file.hpp"

namespace irlite::cli::image {
namespace {

constexpr std::string_view kJpegSignature = "\xff\xd8\xff";
constexpr std::string_view kPngSignature = "\x89PNG\r\n\x1a\n";

std::vector<std::uint8_t> read_all(const std::string& path) {
  const InputFile file = InputFile::open(path, "image file");
  if (file.size() > physical_memory())
    bad_content(path, fmt::format("the file's {} bytes exceed the machine's memory", file.size()));
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(file.size()));
  if (file.read_at(0, bytes.data(), bytes.size()) != bytes.size())
    bad_content(path, "the file shrank while it was read");
  return bytes;
}

bool starts_with(std::span<const std::uint8_t> bytes, std::string_view signature) {
  return bytes.size() >= signature.size() &&
         std::memcmp(bytes.data(), signature.data(), signature.size()) == 0;
}

// Refuses a size with no pixels or with more than kMaxPixels, before anything is allocated: a
// few hundred bytes of header can claim a picture of gigabytes.
void check_size(const std::string& path, std::size_t width, std::size_t height) {
  if (width == 0 || height == 0) bad_content(path, "the image has no pixels");
  if (width > kMaxPixels / height)
    bad_content(path, fmt::format("a {}x{} image has more than the {} pixels an input image may "
                                  "have",
                                  width, height, kMaxPixels));
}

struct TjDeleter {
  void operator()(void* handle) const { tjDestroy(handle); }
};

Image decode_jpeg(std::span<const std::uint8_t> bytes, const std::string& path) {
  const std::unique_ptr<void, TjDeleter> tj(tjInitDecompress());
  if (!tj)
    bad_content(path, fmt::format("cannot start the JPEG decoder: {}", tjGetErrorStr2(nullptr)));
  const auto fail = [&](const char* what) {
    bad_content(path, fmt::format("{} JPEG image: {}", what, tjGetErrorStr2(tj.get())));
  };
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(tj.get(), bytes.data(), bytes.size(), &width, &height, &subsampling,
                          &colorspace) != 0)
    fail("bad");
  // A stream that ends before its frame header can pass as one of size 0.
  if (width <= 0 || height <= 0) bad_content(path, "bad JPEG image: no frame header");
  if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK)
    bad_content(path, "CMYK JPEG images are not supported; save it as RGB");
  Image image;
  image.width = static_cast<std::size_t>(width);
  image.height = static_cast<std::size_t>(height);
  check_size(path, image.width, image.height);
  image.rgb.resize(image.width * image.height * 3);
  // A warning (data missing at the end, a corrupt segment) stops the decoder: the pixels it
  // would fill in are not the photo's. So does a progressive file with more scans than any
  // encoder writes.
  if (tjDecompress2(tj.get(), bytes.data(), bytes.size(), image.rgb.data(), width, 0, height,
                    TJPF_RGB, TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS) != 0)
    fail("damaged or truncated");
  return image;
}

struct PngImage {
  png_image image;
  PngImage() {
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
  }
  ~PngImage() { png_image_free(&image); }
  PngImage(const PngImage&) = delete;
  PngImage& operator=(const PngImage&) = delete;
};

Image decode_png(std::span<const std::uint8_t> bytes, const std::string& path) {
  PngImage png;
  if (!png_image_begin_read_from_memory(&png.image, bytes.data(), bytes.size()))
    bad_content(path, fmt::format("bad PNG image: {}", png.image.message));
  // libpng's simplified API takes 16-bit samples for linear light and would re-encode them;
  // OpenCV keeps their top 8 bits. Rather than differ silently, such files are refused.
  if (png.image.format & PNG_FORMAT_FLAG_LINEAR)
    bad_content(path, "16-bit PNG images are not supported; save it with 8 bits per channel");
  const std::size_t width = png.image.width, height = png.image.height;
  check_size(path, width, height);
  // Read with its alpha channel, then dropped, as cv2.imread does: no blending with a background.
  png.image.format = PNG_FORMAT_RGBA;
  std::vector<std::uint8_t> rgba(PNG_IMAGE_SIZE(png.image));
  if (!png_image_finish_read(&png.image, nullptr, rgba.data(), 0, nullptr))
    bad_content(path, fmt::format("damaged or truncated PNG image: {}", png.image.message));
  Image image{width, height, std::vector<std::uint8_t>(width * height * 3)};
  for (std::size_t i = 0; i < width * height; ++i) std::memcpy(&image.rgb[i * 3], &rgba[i * 4], 3);
  return image;
}

// Where output pixel i of n samples the source of `in` pixels: the lower neighbour and the
// weight of the upper one.
struct Tap {
  std::size_t lo = 0, hi = 0;
  double w = 0;
};

std::vector<Tap> taps(std::size_t in, std::size_t n) {
  std::vector<Tap> t(n);
  const double ratio = static_cast<double>(in) / static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double s = std::max(0.0, (static_cast<double>(i) + 0.5) * ratio - 0.5);
    const auto lo = std::min(static_cast<std::size_t>(s), in - 1);
    t[i] = {lo, std::min(lo + 1, in - 1), lo + 1 < in ? s - static_cast<double>(lo) : 0.0};
  }
  return t;
}

}  // namespace

bool is_image_path(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.ends_with(".jpg") || lower.ends_with(".jpeg") || lower.ends_with(".png");
}

Image decode(std::span<const std::uint8_t> bytes, const std::string& path) {
  if (starts_with(bytes, kJpegSignature)) return decode_jpeg(bytes, path);
  if (starts_with(bytes, kPngSignature)) return decode_png(bytes, path);
  bad_content(path, "not a JPEG or PNG image (its first bytes are neither signature)");
}

Image read(const std::string& path) {
  return decode(read_all(path), path);
}

Image resize(const Image& image, std::size_t width, std::size_t height) {
  if (width == image.width && height == image.height) return image;
  const std::vector<Tap> xs = taps(image.width, width), ys = taps(image.height, height);
  Image out{width, height, std::vector<std::uint8_t>(width * height * 3)};
  const std::size_t stride = image.width * 3;
  for (std::size_t y = 0; y < height; ++y) {
    const std::uint8_t* top = &image.rgb[ys[y].lo * stride];
    const std::uint8_t* bottom = &image.rgb[ys[y].hi * stride];
    const double wy = ys[y].w;
    for (std::size_t x = 0; x < width; ++x) {
      const Tap& t = xs[x];
      for (std::size_t c = 0; c < 3; ++c) {
        const double upper = top[t.lo * 3 + c] + t.w * (top[t.hi * 3 + c] - top[t.lo * 3 + c]);
        const double lower =
            bottom[t.lo * 3 + c] + t.w * (bottom[t.hi * 3 + c] - bottom[t.lo * 3 + c]);
        const double v = upper + wy * (lower - upper);
        out.rgb[(y * width + x) * 3 + c] = static_cast<std::uint8_t>(std::floor(v + 0.5));
      }
    }
  }
  return out;
}

}  // namespace irlite::cli::image

#pragma once
// Photos as inputs: JPEG (libjpeg-turbo's TurboJPEG API) and PNG (libpng's simplified API)
// decoded to 8-bit RGB, resized bilinearly and laid out as a model's 4-D image input, the way
// the Open Model Zoo demos prepare a frame with OpenCV.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"

namespace irlite::cli::image {

/// A decoded picture: `width` x `height` pixels, 3 bytes each (R, G, B), row after row.
struct Image {
  std::size_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
};

/// Whether `path` names an image by its extension: .jpg, .jpeg or .png, in any case.
bool is_image_path(const std::string& path);

/// The most pixels a decoded image may have (16384 x 8192): more is refused before anything is
/// allocated, whatever size the file's header claims.
inline constexpr std::size_t kMaxPixels = std::size_t{1} << 27;

/// Decodes a JPEG or PNG file, told apart by their signatures, not by the name. Throws
/// Error(input) naming the file for anything else, a damaged or truncated image (a JPEG decoder
/// warning is an error), a 16-bit PNG, a CMYK JPEG or one of more than kMaxPixels; Error(io)
/// when the file cannot be read.
Image read(const std::string& path);

/// Decodes the bytes of a JPEG or PNG image as read() does; `path` names it in errors.
Image decode(std::span<const std::uint8_t> bytes, const std::string& path);

/// `image` resized to `width` x `height` by bilinear interpolation with half-pixel centres
/// (source x = (x + 0.5) * in_width / width - 0.5, clamped to the edge pixels), rounded to
/// 8 bits as OpenCV's cv2.resize with INTER_LINEAR does for an 8-bit image. The same image when
/// the size is its own.
Image resize(const Image& image, std::size_t width, std::size_t height);

/// How an image becomes an input: NCHW or NHWC, the channel order, and per channel
/// (value - mean) / scale, the channels counted in the input's order.
struct Layout {
  bool nhwc = false;
  bool rgb = false;
  std::array<double, 3> mean{0, 0, 0};
  std::array<double, 3> scale{1, 1, 1};
};

/// Parses the text of --mean or --scale: one number for every channel, or three separated by
/// commas. Throws UsageError naming `option` otherwise, and for a scale of 0 when `nonzero`.
std::array<double, 3> parse_channel_values(const std::string& text, const std::string& option,
                                           bool nonzero);

/// The tensor an image file gives input `port`: the image resized to the input's H and W (its
/// own size where they are dynamic), repeated over a static batch (1 where it is dynamic), in
/// `layout`, converted to the input's element type (integers rounded and saturated). Throws
/// Error(input) naming `path` when the input is not 4-D, its channels are not 3, its element
/// type is boolean, or the image's size does not fit the input's bounds.
Tensor to_tensor(const Image& image, const PortInfo& port, const Layout& layout,
                 const std::string& path);

}  // namespace irlite::cli::image

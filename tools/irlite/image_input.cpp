// An image laid out as a model's input: the half of image.hpp that knows tensors.

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "commands.hpp"
#include "files.hpp"
#include "image.hpp"

namespace irlite::cli::image {
namespace {

// The value an input of type T stores for v: integers rounded and saturated.
template <class T>
T convert(double v) {
  if constexpr (std::is_integral_v<T>) {
    constexpr auto lo = static_cast<double>(std::numeric_limits<T>::lowest());
    constexpr auto hi = static_cast<double>(std::numeric_limits<T>::max());
    if (std::isnan(v)) return T{0};
    const double r = std::round(v);
    if (r <= lo) return std::numeric_limits<T>::lowest();
    if (r >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
  } else if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    return T(static_cast<float>(v));
  }
}

[[noreturn]] void refuse(const std::string& path, const PortInfo& port, const Layout& layout,
                         const std::string& why) {
  bad_content(path,
              fmt::format("input '{}' {} {} ({}): {}", port.name, to_string(port.element_type),
                          to_string(port.shape), layout.nhwc ? "NHWC" : "NCHW", why));
}

// The extent a dimension takes: its own when static, else `wanted`.
std::int64_t extent(const Dimension& d, std::int64_t wanted) {
  return d.is_static() ? d.value() : wanted;
}

}  // namespace

std::array<double, 3> parse_channel_values(const std::string& text, const std::string& option,
                                           bool nonzero) {
  std::vector<double> values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    double v = 0;
    const char* first = text.data() + start;
    const char* last = text.data() + comma;
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (first == last || ec != std::errc() || ptr != last || !std::isfinite(v) ||
        (nonzero && v == 0))
      throw UsageError(
          fmt::format("{} '{}': expected one {}number, or three separated by commas "
                      "(one per channel)",
                      option, text, nonzero ? "nonzero " : ""));
    values.push_back(v);
    if (comma == text.size()) break;
    start = comma + 1;
  }
  if (values.size() == 1) return {values[0], values[0], values[0]};
  if (values.size() != 3)
    throw UsageError(
        fmt::format("{} '{}': expected one number, or three separated by commas "
                    "(one per channel), not {}",
                    option, text, values.size()));
  return {values[0], values[1], values[2]};
}

Tensor to_tensor(const Image& source, const PortInfo& port, const Layout& layout,
                 const std::string& path) {
  const PartialShape& ps = port.shape;
  if (!ps.rank_is_static() || ps.rank() != 4)
    refuse(path, port, layout, "an image feeds a 4-D input only");
  if (port.element_type == ElementType::boolean)
    refuse(path, port, layout, "an image cannot feed a boolean input");
  const auto& dims = ps.dims();
  const std::size_t c_axis = layout.nhwc ? 3 : 1, h_axis = layout.nhwc ? 1 : 2,
                    w_axis = layout.nhwc ? 2 : 3;
  if (!dims[c_axis].contains(3))
    refuse(path, port, layout,
           fmt::format("the image has 3 channels, the input {}{}", to_string(dims[c_axis]),
                       layout.nhwc ? "" : " (is its layout NHWC? see --layout)"));
  const Dimension& n_dim = dims[0];
  const std::int64_t n = extent(n_dim, std::max<std::int64_t>(n_dim.min(), 1));
  const std::int64_t h = extent(dims[h_axis], static_cast<std::int64_t>(source.height));
  const std::int64_t w = extent(dims[w_axis], static_cast<std::int64_t>(source.width));
  Shape shape = layout.nhwc ? Shape{n, h, w, 3} : Shape{n, 3, h, w};
  if (!ps.accepts(shape))
    refuse(path, port, layout,
           fmt::format("the {}x{} image gives {}, outside the input's bounds", source.width,
                       source.height, to_string(shape)));
  if (h == 0 || w == 0) refuse(path, port, layout, "the input has no pixels");

  const Image image = resize(source, static_cast<std::size_t>(w), static_cast<std::size_t>(h));
  Tensor tensor(port.element_type, shape);
  const std::size_t pixels = image.width * image.height;
  dispatch_numeric(port.element_type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = tensor.data<T>();
    for (std::size_t c = 0; c < 3; ++c) {
      // Channel c of the input is the image's R, G or B: reversed unless --rgb.
      const std::size_t from = layout.rgb ? c : 2 - c;
      for (std::size_t i = 0; i < pixels; ++i) {
        const double v = (image.rgb[i * 3 + from] - layout.mean[c]) / layout.scale[c];
        out[layout.nhwc ? i * 3 + c : c * pixels + i] = convert<T>(v);
      }
    }
    // The batch repeats the first image.
    for (std::int64_t b = 1; b < n; ++b)
      std::copy(out, out + pixels * 3, out + static_cast<std::size_t>(b) * pixels * 3);
  });
  return tensor;
}

}  // namespace irlite::cli::image

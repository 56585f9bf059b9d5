// `irlite run -i photo.png|photo.jpg`: image files decoded, resized, laid out and normalized as
// a model's input, checked through the values `run -o` writes for an identity model; and the
// errors for files and inputs an image cannot feed.

#include <doctest/doctest.h>

#ifdef IRLITE_CLI

#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "graph_builder.hpp"
#include "irlite/irlite.hpp"
#include "npy.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

// A picture as the tests write it: R, G, B bytes, row after row.
struct Picture {
  std::size_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
  std::uint8_t at(std::size_t x, std::size_t y, std::size_t c) const {
    return rgb[(y * width + x) * 3 + c];
  }
};

// Values that differ from pixel to pixel and channel to channel.
Picture pattern(std::size_t width, std::size_t height) {
  Picture p{width, height, std::vector<std::uint8_t>(width * height * 3)};
  for (std::size_t i = 0; i < p.rgb.size(); ++i)
    p.rgb[i] = static_cast<std::uint8_t>((i * 37 + i / 7 * 11) % 256);
  return p;
}

void write_png(const std::string& path, const Picture& p) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(p.width);
  image.height = static_cast<png_uint_32>(p.height);
  image.format = PNG_FORMAT_RGB;
  REQUIRE(png_image_write_to_file(&image, path.c_str(), 0, p.rgb.data(), 0, nullptr) != 0);
}

// The picture as a JPEG of quality 100, its colours unsubsampled; with `cmyk`, its bytes taken
// four at a time as C, M, Y, K (the picture's width must be a multiple of 4).
std::string jpeg_bytes(const Picture& p, bool cmyk = false) {
  tjhandle tj = tjInitCompress();
  REQUIRE(tj != nullptr);
  unsigned char* out = nullptr;
  unsigned long size = 0;
  const int width = static_cast<int>(cmyk ? p.width * 3 / 4 : p.width);
  const int rc = tjCompress2(tj, p.rgb.data(), width, 0, static_cast<int>(p.height),
                             cmyk ? TJPF_CMYK : TJPF_RGB, &out, &size, TJSAMP_444, 100, 0);
  std::string bytes;
  if (rc == 0) bytes.assign(reinterpret_cast<const char*>(out), size);
  tjFree(out);
  tjDestroy(tj);
  REQUIRE(rc == 0);
  return bytes;
}

// DIR/NAME.xml: a Parameter `x` of this type and shape, and a Result of it.
std::string identity_model(const TempDir& dir, const std::string& name, ElementType type,
                           const PartialShape& shape) {
  GraphBuilder g;
  g.result(g.parameter("x", type, shape), "y");
  write_bytes(dir / (name + ".xml"), g.xml());
  write_bytes(dir / (name + ".bin"), "");
  return dir / (name + ".xml");
}

// Runs the model on `args` and reads its output y.
Tensor run_output(const TempDir& dir, const std::string& model, std::vector<std::string> args) {
  std::filesystem::remove_all(dir.path / "out");
  args.insert(args.begin(), {"run", model, "-o", dir / "out"});
  const Outcome o = cli(args);
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  return npy::read(dir / "out/y.npy");
}

std::vector<float> floats(const Tensor& t) {
  REQUIRE(t.element_type() == ElementType::f32);
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

// The picture's value at (x, y) of input channel c, BGR unless `rgb`.
float pixel(const Picture& p, std::size_t x, std::size_t y, std::size_t c, bool rgb = false) {
  return p.at(x, y, rgb ? c : 2 - c);
}

}  // namespace

TEST_CASE("cli: run -i image.png feeds its exact pixels, BGR or RGB, NCHW or NHWC") {
  TempDir dir;
  const Picture p = pattern(5, 3);
  write_png(dir / "p.png", p);
  const std::string nchw = identity_model(dir, "nchw", ElementType::f32, {1, 3, 3, 5});

  const std::vector<float> bgr = floats(run_output(dir, nchw, {"-i", dir / "p.png"}));
  const std::vector<float> rgb =
      floats(run_output(dir, nchw, {"-i", "x=" + dir / "p.png", "--rgb"}));
  REQUIRE(bgr.size() == 45);
  REQUIRE(rgb.size() == 45);
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t y = 0; y < 3; ++y)
      for (std::size_t x = 0; x < 5; ++x) {
        CAPTURE(c);
        CAPTURE(y);
        CAPTURE(x);
        CHECK(bgr[(c * 3 + y) * 5 + x] == pixel(p, x, y, c));
        CHECK(rgb[(c * 3 + y) * 5 + x] == pixel(p, x, y, c, true));
      }

  // bench feeds the same inputs.
  const Outcome bench = cli({"bench", nchw, "-i", dir / "p.png", "-n", "1", "--rgb"});
  CAPTURE(bench.err);
  CHECK(bench.status == 0);
  for (const char* command : {"run", "bench"}) {
    const Outcome help = cli({command, "--help"});
    CHECK(contains(help.out, "--layout NCHW|NHWC "));
    CHECK(contains(help.out, std::string("irlite ") + command + " model.xml -i data=photo.jpg"));
  }

  const std::string nhwc = identity_model(dir, "nhwc", ElementType::f32, {1, 3, 5, 3});
  const std::vector<float> last =
      floats(run_output(dir, nhwc, {"-i", dir / "p.png", "--layout", "nhwc"}));
  REQUIRE(last.size() == 45);
  for (std::size_t y = 0; y < 3; ++y)
    for (std::size_t x = 0; x < 5; ++x)
      for (std::size_t c = 0; c < 3; ++c) CHECK(last[(y * 5 + x) * 3 + c] == pixel(p, x, y, c));
}

TEST_CASE("cli: run -i image.png with --mean and --scale, into f16, u8 and i8 inputs, batched") {
  TempDir dir;
  const Picture p = pattern(4, 2);
  write_png(dir / "p.png", p);
  const std::string f32 = identity_model(dir, "f32", ElementType::f32, {1, 3, 2, 4});
  const std::vector<float> v = floats(
      run_output(dir, f32, {"-i", dir / "p.png", "--mean", "10,20.5,-30", "--scale", "2,4,0.5"}));
  const double mean[] = {10, 20.5, -30}, scale[] = {2, 4, 0.5};
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t i = 0; i < 8; ++i)
      CHECK(v[c * 8 + i] == doctest::Approx((pixel(p, i % 4, i / 4, c) - mean[c]) / scale[c]));
  const std::vector<float> one =
      floats(run_output(dir, f32, {"-i", dir / "p.png", "--mean", "128", "--scale", "255"}));
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t i = 0; i < 8; ++i)
      CHECK(one[c * 8 + i] == doctest::Approx((pixel(p, i % 4, i / 4, c) - 128) / 255.0));

  const std::string f16 = identity_model(dir, "f16", ElementType::f16, {1, 3, 2, 4});
  const Tensor half = run_output(dir, f16, {"-i", dir / "p.png", "--scale", "4"});
  REQUIRE(half.element_type() == ElementType::f16);
  for (std::size_t i = 0; i < 24; ++i)
    CHECK(static_cast<float>(half.values<float16>()[i]) == pixel(p, i % 4, i / 4 % 2, i / 8) / 4);

  // Integers are rounded and saturated; a static batch repeats the image.
  const std::string u8 = identity_model(dir, "u8", ElementType::u8, {2, 3, 2, 4});
  const Tensor bytes = run_output(dir, u8, {"-i", dir / "p.png", "--mean", "100"});
  REQUIRE(bytes.element_type() == ElementType::u8);
  REQUIRE(bytes.size() == 48);
  for (std::size_t i = 0; i < 48; ++i) {
    const std::size_t c = i / 8 % 3, x = i % 4, y = i / 4 % 2;
    CHECK(bytes.values<std::uint8_t>()[i] == std::max(0.0f, pixel(p, x, y, c) - 100));
  }
  const std::string i8 = identity_model(dir, "i8", ElementType::i8, {1, 3, 2, 4});
  const Tensor small = run_output(dir, i8, {"-i", dir / "p.png", "--scale", "1.5"});
  for (std::size_t i = 0; i < 24; ++i)
    CHECK(small.values<std::int8_t>()[i] ==
          std::min(127.0, std::round(pixel(p, i % 4, i / 4 % 2, i / 8) / 1.5)));
}

namespace {

// Bilinear interpolation with half-pixel centres, as cv2.resize INTER_LINEAR defines it: the
// source point of output (x, y), kept inside the picture, weighs its four neighbours.
double bilinear(const Picture& p, std::size_t width, std::size_t height, std::size_t x,
                std::size_t y, std::size_t c) {
  const auto source = [](std::size_t i, std::size_t in, std::size_t out) {
    const double s =
        (static_cast<double>(i) + 0.5) * static_cast<double>(in) / static_cast<double>(out) - 0.5;
    return std::clamp(s, 0.0, static_cast<double>(in - 1));
  };
  const double sx = source(x, p.width, width), sy = source(y, p.height, height);
  const auto x0 = static_cast<std::size_t>(sx), y0 = static_cast<std::size_t>(sy);
  const std::size_t x1 = std::min(x0 + 1, p.width - 1), y1 = std::min(y0 + 1, p.height - 1);
  const double ax = sx - static_cast<double>(x0), ay = sy - static_cast<double>(y0);
  return (1 - ay) * ((1 - ax) * p.at(x0, y0, c) + ax * p.at(x1, y0, c)) +
         ay * ((1 - ax) * p.at(x0, y1, c) + ax * p.at(x1, y1, c));
}

}  // namespace

TEST_CASE("cli: run -i image.png resizes bilinearly to the input's size, or keeps its own") {
  TempDir dir;
  const Picture p = pattern(7, 5);
  write_png(dir / "p.png", p);
  // Wider and shorter: up in x, down in y.
  for (const auto& size : {std::pair<std::size_t, std::size_t>{3, 12}, {11, 4}, {1, 1}}) {
    const std::size_t h = size.first, w = size.second;
    CAPTURE(h);
    CAPTURE(w);
    const std::string model =
        identity_model(dir, "m", ElementType::f32,
                       {1, 3, static_cast<std::int64_t>(h), static_cast<std::int64_t>(w)});
    const std::vector<float> v = floats(run_output(dir, model, {"-i", dir / "p.png", "--rgb"}));
    REQUIRE(v.size() == 3 * h * w);
    for (std::size_t c = 0; c < 3; ++c)
      for (std::size_t y = 0; y < h; ++y)
        for (std::size_t x = 0; x < w; ++x) {
          const double want = bilinear(p, w, h, x, y, c), got = v[(c * h + y) * w + x];
          CAPTURE(c);
          CAPTURE(y);
          CAPTURE(x);
          // Rounded to 8 bits, as cv2.resize gives an 8-bit image.
          CHECK(got == std::round(got));
          CHECK(std::abs(got - want) <= 0.5 + 1e-9);
        }
    if (h == 1)
      CHECK(v == std::vector<float>{pixel(p, 3, 2, 0, true), pixel(p, 3, 2, 1, true),
                                    pixel(p, 3, 2, 2, true)});
  }

  // Dynamic height and width take the image's; a dynamic batch is 1.
  const std::string dynamic =
      identity_model(dir, "dyn", ElementType::f32, {Dimension(), 3, Dimension(), Dimension(1, 8)});
  const Tensor t = run_output(dir, dynamic, {"-i", dir / "p.png"});
  CHECK(t.shape() == Shape{1, 3, 5, 7});
  CHECK(floats(t)[0] == p.at(0, 0, 2));
  // --shape fixes them first.
  const Tensor s = run_output(dir, dynamic, {"-i", dir / "p.png", "--shape", "[1,3,2,2]"});
  CHECK(s.shape() == Shape{1, 3, 2, 2});
  check_error(
      cli({"run",
           identity_model(dir, "small", ElementType::f32, {1, 3, Dimension(), Dimension(1, 6)}),
           "-i", dir / "p.png"}),
      1,
      {dir / "p.png",
       "input 'x' f32 [1,3,?,1..6] (NCHW): the 7x5 image gives [1,3,5,7], outside the input's "
       "bounds"});
}

TEST_CASE("cli: run -i image.jpg decodes the JPEG") {
  TempDir dir;
  // A smooth picture, so that JPEG's loss at quality 100 stays within a step or two.
  Picture p{16, 8, std::vector<std::uint8_t>(16 * 8 * 3)};
  for (std::size_t y = 0; y < 8; ++y)
    for (std::size_t x = 0; x < 16; ++x) {
      p.rgb[(y * 16 + x) * 3 + 0] = static_cast<std::uint8_t>(40 + x * 8);
      p.rgb[(y * 16 + x) * 3 + 1] = static_cast<std::uint8_t>(200 - y * 10);
      p.rgb[(y * 16 + x) * 3 + 2] = 90;
    }
  write_bytes(dir / "p.JPG", jpeg_bytes(p));
  const std::string model = identity_model(dir, "m", ElementType::f32, {1, 3, 8, 16});
  const std::vector<float> v = floats(run_output(dir, model, {"-i", dir / "p.JPG"}));
  REQUIRE(v.size() == 384);
  float worst = 0;
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t i = 0; i < 128; ++i)
      worst = std::max(worst, std::abs(v[c * 128 + i] - pixel(p, i % 16, i / 16, c)));
  CHECK(worst <= 2);
}

TEST_CASE("cli: run -i image errors name the file: damaged, not an image, wrong input") {
  TempDir dir;
  const Picture p = pattern(16, 16);
  const std::string model = identity_model(dir, "m", ElementType::f32, {1, 3, 16, 16});
  const std::string jpeg = jpeg_bytes(p);
  write_bytes(dir / "cut.jpg", jpeg.substr(0, jpeg.size() / 2));
  check_error(cli({"run", model, "-i", dir / "cut.jpg"}), 1,
              {dir / "cut.jpg", "damaged or truncated JPEG image"});
  write_bytes(dir / "head.jpg", jpeg.substr(0, 4));
  check_error(cli({"run", model, "-i", dir / "head.jpg"}), 1, {dir / "head.jpg", "bad JPEG image"});
  // A header claiming 60000 x 60000 pixels (10 GB) over a few hundred bytes is refused before
  // anything of that size is allocated.
  std::string huge = jpeg;
  const std::size_t sof = huge.find("\xff\xc0");
  REQUIRE(sof != std::string::npos);
  for (const std::size_t at : {sof + 5, sof + 7}) {  // height, then width, big-endian
    huge[at] = static_cast<char>(60000 >> 8);
    huge[at + 1] = static_cast<char>(60000 & 0xff);
  }
  write_bytes(dir / "huge.jpg", huge);
  check_error(cli({"run", model, "-i", dir / "huge.jpg"}), 1,
              {dir / "huge.jpg", "a 60000x60000 image has more than the 134217728 pixels"});
  write_bytes(dir / "cmyk.jpg", jpeg_bytes(p, true));
  check_error(cli({"run", model, "-i", dir / "cmyk.jpg"}), 1,
              {dir / "cmyk.jpg", "CMYK JPEG images are not supported"});
  write_png(dir / "p.png", p);
  const std::string png = read_bytes(dir / "p.png");
  write_bytes(dir / "cut.png", png.substr(0, png.size() - 20));
  check_error(cli({"run", model, "-i", dir / "cut.png"}), 1,
              {dir / "cut.png", "damaged or truncated PNG image"});
  write_bytes(dir / "text.png", "P3 not an image\n");
  check_error(cli({"run", model, "-i", dir / "text.png"}), 1,
              {dir / "text.png", "not a JPEG or PNG image"});
  check_error(cli({"run", model, "-i", dir / "none.png"}), 1, {dir / "none.png"});

  // A PNG under a .jpg name is read by its signature.
  write_bytes(dir / "png.jpg", png);
  CHECK(floats(run_output(dir, model, {"-i", dir / "png.jpg"}))[0] == p.at(0, 0, 2));

  check_error(
      cli({"run", identity_model(dir, "flat", ElementType::f32, {3, 16}), "-i", dir / "p.png"}), 1,
      {dir / "p.png", "input 'x' f32 [3,16] (NCHW): an image feeds a 4-D input only"});
  check_error(
      cli({"run", identity_model(dir, "gray", ElementType::f32, {1, 1, 16, 16}), "-i",
           dir / "p.png"}),
      1,
      {dir / "p.png", "the image has 3 channels, the input 1 (is its layout NHWC? see --layout)"});
  check_error(cli({"run", model, "-i", dir / "p.png", "--layout", "NHWC"}), 1,
              {dir / "p.png", "(NHWC): the image has 3 channels, the input 16"});
  check_error(cli({"run", identity_model(dir, "bool", ElementType::boolean, {1, 3, 16, 16}), "-i",
                   dir / "p.png"}),
              1, {dir / "p.png", "an image cannot feed a boolean input"});
  check_error(cli({"run", model, "-i", dir / "p.png", "--scale", "1,0,1"}), 2,
              {"--scale '1,0,1': expected one nonzero number, or three"});
  check_error(
      cli({"run", model, "-i", dir / "p.png", "--mean", "1,2"}), 2,
      {"--mean '1,2': expected one number, or three separated by commas (one per channel), not 2"});
  check_error(cli({"run", model, "-i", dir / "p.png", "--mean", "1,,2"}), 2, {"--mean '1,,2'"});
  check_error(cli({"run", model, "--layout", "CHW"}), 2, {"--layout"});
}

// The case's input was prepared from the video frame the photo was cut from, by another
// decoder and an antialiasing resize: the values agree on average, not pixel for pixel (at
// sharp edges bilinear sampling and an averaging filter differ by tens of steps).
TEST_CASE("cli: run -i image.jpg: a photo against face-detection-adas' prepared input") {
  const std::filesystem::path shared =
      std::filesystem::path(IRLITE_TEST_DATA) / "../../../shared/real-models";
  const std::filesystem::path photo = shared / "photos/face_1s.jpg";
  const std::filesystem::path reference =
      shared / "cases/006_face-detection-adas-0001_frame01s/in/data.npy";
  if (!std::filesystem::exists(photo) || !std::filesystem::exists(reference)) {
    MESSAGE("skipped: " << photo.string() << " or its reference input is absent");
    return;
  }
  TempDir dir;
  const std::string model = identity_model(dir, "m", ElementType::f16, {1, 3, 384, 672});
  const Tensor got = run_output(dir, model, {"-i", photo.string()});
  const Tensor want = npy::read(reference);
  REQUIRE(want.element_type() == ElementType::f16);
  REQUIRE(got.shape() == want.shape());
  const std::size_t plane = got.size() / 3;
  double sum = 0;
  for (std::size_t c = 0; c < 3; ++c) {
    double bias = 0;
    for (std::size_t i = c * plane; i < (c + 1) * plane; ++i) {
      const double d = static_cast<float>(got.values<float16>()[i]) -
                       static_cast<float>(want.values<float16>()[i]);
      bias += d;
      sum += std::abs(d);
    }
    bias /= static_cast<double>(plane);
    MESSAGE("channel " << c << ": mean difference " << bias);
    CHECK(std::abs(bias) < 3);
  }
  const double mean = sum / static_cast<double>(got.size());
  MESSAGE("mean absolute difference " << mean);
  CHECK(mean < 3);
}

#endif  // IRLITE_CLI

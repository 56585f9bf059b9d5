// Finds the faces on a photo with a face detector (an SSD whose DetectionOutput gives
// [1, 1, N, 7]: image, label, confidence, box corners from 0 to 1), then five landmarks on each
// face with a landmarks regressor ([1, 10, 1, 1]: x, y of each point from 0 to 1 in the face's
// box), prints them, and writes the photo with the boxes and points drawn as a PNG.
//
//   irlite_face_landmarks DETECTOR.xml LANDMARKS.xml PHOTO.jpg|png OUT.png [THRESHOLD]
//
// Made for Open Model Zoo's face-detection-adas-0001 and landmarks-regression-retail-0009
// (FP32, FP16 or FP16-INT8), which take BGR pixels from 0 to 255, channels first. irlite is used
// through its public API only; the photo is read with libjpeg-turbo or libpng and resized here.

#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <irlite/irlite.hpp>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// 8-bit RGB pixels, row by row.
struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
};

/// A box in pixels: [x0, x1) x [y0, y1).
struct Box {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int width() const { return x1 - x0; }
  int height() const { return y1 - y0; }
};

/// Photos larger than this are refused before they are decoded.
constexpr std::int64_t kMaxPixels = std::int64_t{1} << 27;

void check_size(const std::string& path, std::int64_t width, std::int64_t height) {
  if (width <= 0 || height <= 0 || width * height > kMaxPixels)
    throw std::runtime_error(path + ": " + std::to_string(width) + "x" + std::to_string(height) +
                             " pixels, over the " + std::to_string(kMaxPixels) + " this reads");
}

Image read_jpeg(const std::string& path, const std::vector<unsigned char>& bytes) {
  tjhandle tj = tjInitDecompress();
  if (!tj) throw std::runtime_error("cannot start the JPEG decoder");
  Image image;
  int subsampling = 0, colorspace = 0;
  const auto size = static_cast<unsigned long>(bytes.size());
  int status = tjDecompressHeader3(tj, bytes.data(), size, &image.width, &image.height,
                                   &subsampling, &colorspace);
  if (status == 0) {
    try {
      check_size(path, image.width, image.height);
    } catch (...) {
      tjDestroy(tj);
      throw;
    }
    image.rgb.resize(static_cast<std::size_t>(image.width) * image.height * 3);
    status = tjDecompress2(tj, bytes.data(), size, image.rgb.data(), image.width, 0, image.height,
                           TJPF_RGB, TJFLAG_ACCURATEDCT);
  }
  const std::string error = status == 0 ? "" : tjGetErrorStr2(tj);
  tjDestroy(tj);
  if (status != 0) throw std::runtime_error(path + ": " + error);
  return image;
}

Image read_png(const std::string& path, const std::vector<unsigned char>& bytes) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()))
    throw std::runtime_error(path + ": " + png.message);
  png.format = PNG_FORMAT_RGB;
  Image image;
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  if (static_cast<std::int64_t>(png.width) * png.height > kMaxPixels) png_image_free(&png);
  check_size(path, png.width, png.height);
  image.rgb.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr))
    throw std::runtime_error(path + ": " + png.message);
  return image;
}

Image read_image(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                         std::istreambuf_iterator<char>());
  if (bytes.size() >= 8 && png_sig_cmp(bytes.data(), 0, 8) == 0) return read_png(path, bytes);
  return read_jpeg(path, bytes);
}

void write_png(const std::string& path, const Image& image) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&png, path.c_str(), 0, image.rgb.data(), 0, nullptr))
    throw std::runtime_error(path + ": " + png.message);
}

/// The pixels of `box` resized bilinearly (pixel centres aligned) to width x height, as a
/// model input wants them: [1, 3, height, width], channels in B, G, R order, 0 to 255.
std::vector<float> planar_bgr(const Image& image, const Box& box, int width, int height) {
  std::vector<float> out(static_cast<std::size_t>(3) * width * height);
  const double sx = static_cast<double>(box.width()) / width;
  const double sy = static_cast<double>(box.height()) / height;
  const std::size_t plane = static_cast<std::size_t>(width) * height;
  for (int y = 0; y < height; ++y) {
    const double fy = std::clamp((y + 0.5) * sy - 0.5, 0.0, box.height() - 1.0);
    const int y0 = static_cast<int>(fy), y1 = std::min(y0 + 1, box.height() - 1);
    const double wy = fy - y0;
    for (int x = 0; x < width; ++x) {
      const double fx = std::clamp((x + 0.5) * sx - 0.5, 0.0, box.width() - 1.0);
      const int x0 = static_cast<int>(fx), x1 = std::min(x0 + 1, box.width() - 1);
      const double wx = fx - x0;
      for (int c = 0; c < 3; ++c) {
        const auto at = [&](int px, int py) {
          const std::size_t i =
              (static_cast<std::size_t>(box.y0 + py) * image.width + (box.x0 + px)) * 3 + c;
          return static_cast<double>(image.rgb[i]);
        };
        const double top = at(x0, y0) * (1 - wx) + at(x1, y0) * wx;
        const double bottom = at(x0, y1) * (1 - wx) + at(x1, y1) * wx;
        out[(2 - c) * plane + static_cast<std::size_t>(y) * width + x] =
            static_cast<float>(top * (1 - wy) + bottom * wy);  // RGB -> BGR
      }
    }
  }
  return out;
}

/// Runs a one-input model on `pixels` of `box`, resized to the input's height and width.
irlite::Outputs run(irlite::Session& session, const irlite::Model& model, const Image& image,
                    const Box& box) {
  const irlite::PortInfo& input = model.inputs().at(0);
  const irlite::PartialShape& shape = input.shape;
  if (shape.rank() != 4 || !shape.is_static() || shape[1].value() != 3)
    throw std::runtime_error("the model's input " + input.name +
                             " is not one static [1, 3, H, W] image");
  const auto height = static_cast<int>(shape[2].value());
  const auto width = static_cast<int>(shape[3].value());
  std::vector<float> pixels = planar_bgr(image, box, width, height);
  const irlite::Shape dims = {1, 3, height, width};
  if (input.element_type == irlite::ElementType::f32)
    return session.run(
        {{input.name, irlite::Tensor::view(irlite::ElementType::f32, dims, pixels.data())}});
  if (input.element_type == irlite::ElementType::f16) {
    irlite::Tensor half(irlite::ElementType::f16, dims);
    std::transform(pixels.begin(), pixels.end(), half.values<irlite::float16>().begin(),
                   [](float v) { return irlite::float16(v); });
    return session.run({{input.name, half}});
  }
  throw std::runtime_error("the model's input " + input.name + " is " +
                           std::string(irlite::to_string(input.element_type)) + ", not f32 or f16");
}

/// The output's values as floats, whatever its float type.
std::vector<float> as_floats(const irlite::Tensor& t) {
  if (t.element_type() == irlite::ElementType::f32) {
    const auto v = t.values<float>();
    return {v.begin(), v.end()};
  }
  if (t.element_type() == irlite::ElementType::f16) {
    std::vector<float> out;
    for (const irlite::float16 h : t.values<irlite::float16>()) out.push_back(float(h));
    return out;
  }
  throw std::runtime_error("an output is " + std::string(irlite::to_string(t.element_type())) +
                           ", not f32 or f16");
}

void fill(Image& image, int x0, int y0, int x1, int y1, const std::uint8_t (&colour)[3]) {
  x0 = std::max(x0, 0), y0 = std::max(y0, 0);
  x1 = std::min(x1, image.width), y1 = std::min(y1, image.height);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x)
      std::copy_n(colour, 3, &image.rgb[(static_cast<std::size_t>(y) * image.width + x) * 3]);
}

void draw_box(Image& image, const Box& b, int t, const std::uint8_t (&colour)[3]) {
  fill(image, b.x0 - t, b.y0 - t, b.x1 + t, b.y0, colour);
  fill(image, b.x0 - t, b.y1, b.x1 + t, b.y1 + t, colour);
  fill(image, b.x0 - t, b.y0, b.x0, b.y1, colour);
  fill(image, b.x1, b.y0, b.x1 + t, b.y1, colour);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5 || argc > 6) {
    std::cerr << "usage: " << argv[0]
              << " DETECTOR.xml LANDMARKS.xml PHOTO.jpg|png OUT.png [THRESHOLD (0.5)]\n";
    return 2;
  }
  try {
    double threshold = 0.5;
    if (argc == 6) {
      char* end = nullptr;
      threshold = std::strtod(argv[5], &end);
      if (end == argv[5] || *end != '\0' || !(threshold >= 0 && threshold <= 1))
        throw std::runtime_error(std::string("THRESHOLD '") + argv[5] +
                                 "' is not a number from 0 to 1");
    }
    const irlite::Model detector = irlite::Model::load(argv[1]);
    const irlite::Model landmarks = irlite::Model::load(argv[2]);
    irlite::Session detect(detector), locate(landmarks);
    Image image = read_image(argv[3]);
    const Box whole{0, 0, image.width, image.height};

    // Each detection: image id (-1 ends the list), label, confidence, x0, y0, x1, y1.
    const std::vector<float> found = as_floats(run(detect, detector, image, whole)[0].second);
    const std::uint8_t box_colour[3] = {40, 220, 60}, point_colour[3] = {255, 40, 200};
    int faces = 0;
    for (std::size_t i = 0; i + 7 <= found.size(); i += 7) {
      const float* d = &found[i];
      if (d[0] < 0) break;
      if (d[2] < threshold) continue;
      const auto px = [&](float v, int extent) {
        return std::clamp(static_cast<int>(std::lround(v * extent)), 0, extent);
      };
      const Box face{px(d[3], image.width), px(d[4], image.height), px(d[5], image.width),
                     px(d[6], image.height)};
      if (face.width() < 2 || face.height() < 2) continue;
      const std::vector<float> points = as_floats(run(locate, landmarks, image, face)[0].second);
      std::cout << "face " << faces << ": confidence " << d[2] << ", box " << face.x0 << ","
                << face.y0 << " to " << face.x1 << "," << face.y1 << ", points";
      const int t = std::max(2, image.width / 400);
      draw_box(image, face, t, box_colour);
      for (std::size_t p = 0; p + 1 < points.size(); p += 2) {
        const int x = face.x0 + static_cast<int>(std::lround(points[p] * face.width()));
        const int y = face.y0 + static_cast<int>(std::lround(points[p + 1] * face.height()));
        std::cout << " " << x << "," << y;
        fill(image, x - 2 * t, y - 2 * t, x + 2 * t + 1, y + 2 * t + 1, point_colour);
      }
      std::cout << "\n";
      ++faces;
    }
    write_png(argv[4], image);
    std::cout << faces << (faces == 1 ? " face" : " faces") << ", written to " << argv[4] << " ("
              << image.width << "x" << image.height << ")\n";
  } catch (const irlite::Error& e) {  // a model error, with its file, layer and port
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}

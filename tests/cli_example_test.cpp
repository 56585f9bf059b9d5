// The embedding example tools/examples/face_landmarks.cpp, run as a user runs it: its errors, and
// on a real photo (when ../shared/real-models is beside the repository) the face it finds, the
// landmarks in their places and the picture it writes.

#if defined(IRLITE_FACE_EXAMPLE)

#include <png.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.hpp"

using namespace irlite::test;

namespace {

const std::filesystem::path kShared =
    std::filesystem::path(IRLITE_TEST_DATA) / "../../../shared/real-models";

Outcome example(const std::vector<std::string>& args) {
  return run_program(IRLITE_FACE_EXAMPLE, args);
}

struct Face {
  double confidence = 0;
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  std::vector<std::pair<int, int>> points;
};

/// The faces the example printed: "face I: confidence C, box X0,Y0 to X1,Y1, points X,Y ...".
std::vector<Face> faces_of(const std::string& out) {
  std::vector<Face> faces;
  for (std::string line : lines_of(out)) {
    if (line.rfind("face ", 0) != 0) continue;
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream s(line);
    Face f;
    std::string word;
    s >> word >> word >> word >> f.confidence >> word >> f.x0 >> f.y0 >> word >> f.x1 >> f.y1 >>
        word;
    for (int x = 0, y = 0; s >> x >> y;) f.points.emplace_back(x, y);
    faces.push_back(f);
  }
  return faces;
}

struct Picture {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
};

Picture read_png(const std::filesystem::path& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  REQUIRE(png_image_begin_read_from_file(&png, path.c_str()) != 0);
  png.format = PNG_FORMAT_RGB;
  Picture p{static_cast<int>(png.width), static_cast<int>(png.height), {}};
  p.rgb.resize(PNG_IMAGE_SIZE(png));
  REQUIRE(png_image_finish_read(&png, nullptr, p.rgb.data(), 0, nullptr) != 0);
  return p;
}

}  // namespace

TEST_CASE("example face_landmarks: usage and located errors") {
  CHECK(example({}).status == 2);
  CHECK(contains(example({}).err, "usage:"));
  TempDir dir;
  const Outcome missing = example({(dir / "none.xml"), (dir / "none.xml"), "p.jpg", "o.png"});
  CHECK(missing.status == 1);
  CHECK(contains(missing.err, (dir / "none.xml")));
  const std::string model = kModels + "pipeline.xml";
  const Outcome threshold = example({model, model, "p.jpg", (dir / "o.png"), "x"});
  CHECK(threshold.status == 1);
  CHECK(contains(threshold.err, "THRESHOLD 'x'"));
  write_bytes(dir / "photo.jpg", "not a jpeg");
  const Outcome bad_photo = example({model, model, (dir / "photo.jpg"), (dir / "o.png")});
  CHECK(bad_photo.status == 1);
  CHECK(contains(bad_photo.err, "photo.jpg"));
  // A model that does not take an image: said so, naming its input.
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = 4;
  png.height = 3;
  png.format = PNG_FORMAT_RGB;
  const std::vector<std::uint8_t> grey(4 * 3 * 3, 128);
  REQUIRE(png_image_write_to_file(&png, (dir / "p.png").c_str(), 0, grey.data(), 0, nullptr) != 0);
  const Outcome not_image = example({model, model, (dir / "p.png"), (dir / "o.png")});
  CHECK(not_image.status == 1);
  CHECK(contains(not_image.err, "is not one static [1, 3, H, W] image"));
  CHECK_FALSE(std::filesystem::exists(dir / "o.png"));
}

TEST_CASE("example face_landmarks: one face and its landmarks on a real photo") {
  const std::filesystem::path photo = kShared / "photos/face_1s.jpg";
  const std::filesystem::path detector = kShared / "models/face-detection-adas-0001.xml";
  if (!std::filesystem::exists(photo) || !std::filesystem::exists(detector)) {
    MESSAGE("skipped: " << kShared.string() << " (real models and photos) is absent");
    return;
  }
  for (const char* landmarks :
       {"landmarks-regression-retail-0009", "landmarks-regression-retail-0009-FP16-INT8"}) {
    CAPTURE(landmarks);
    TempDir dir;
    const std::filesystem::path out = dir / "faces.png";
    const Outcome o =
        example({detector.string(), (kShared / "models" / landmarks).string() + ".xml",
                 photo.string(), out.string()});
    CAPTURE(o.out);
    CAPTURE(o.err);
    REQUIRE(o.status == 0);
    CHECK(contains(o.out, "1 face, written to"));
    const std::vector<Face> faces = faces_of(o.out);
    REQUIRE(faces.size() == 1);
    const Face& f = faces[0];
    CHECK(f.confidence > 0.9);
    CHECK((0 <= f.x0 && f.x0 + 50 < f.x1 && f.x1 <= 1920));
    CHECK((0 <= f.y0 && f.y0 + 50 < f.y1 && f.y1 <= 1080));
    // Left eye, right eye, nose tip, lip corners: inside the box, the eyes above the nose above
    // the mouth, each pair left to right.
    REQUIRE(f.points.size() == 5);
    for (const auto& [x, y] : f.points) CHECK((f.x0 <= x && x <= f.x1 && f.y0 <= y && y <= f.y1));
    CHECK(f.points[0].first < f.points[1].first);
    CHECK(f.points[3].first < f.points[4].first);
    CHECK(std::max(f.points[0].second, f.points[1].second) < f.points[2].second);
    CHECK(f.points[2].second < std::min(f.points[3].second, f.points[4].second));

    const Picture picture = read_png(out);
    REQUIRE(picture.width == 1920);
    REQUIRE(picture.height == 1080);
    const auto pixel = [&](int x, int y) {
      const std::size_t i = (static_cast<std::size_t>(y) * picture.width + x) * 3;
      return std::vector<int>{picture.rgb[i], picture.rgb[i + 1], picture.rgb[i + 2]};
    };
    // The box's top-left corner is drawn in green, a landmark in magenta.
    CHECK(pixel(f.x0 - 1, f.y0 - 1) == std::vector<int>{40, 220, 60});
    CHECK(pixel(f.points[2].first, f.points[2].second) == std::vector<int>{255, 40, 200});
  }
}

#endif  // IRLITE_FACE_EXAMPLE

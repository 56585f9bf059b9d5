// Interpolate-1/4/11: small resizes worked out by hand, the kernels against the plain reference
// of tests/reference/interpolate.hpp on random shapes, modes, axes, pads, element types and
// thread counts (bit for bit), the fast path against the general one, shape inference with
// Const, unknown and bounded inputs, and the located errors.

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "graph_builder.hpp"
#include "irlite/irlite.hpp"
#include "kernels/interpolate.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "reference/interpolate.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

std::size_t elements(const Shape& s) {
  std::size_t n = 1;
  for (const std::int64_t d : s) n *= static_cast<std::size_t>(d);
  return n;
}

Tensor f32s(Shape shape, const std::vector<double>& v) {
  return tensor(ElementType::f32, std::move(shape), v);
}

AttributeList v4_attrs(const std::string& mode, const std::string& calc, AttributeList extra = {}) {
  AttributeList a = {{"mode", mode}, {"shape_calculation_mode", calc}};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::string error_of(const std::function<void()>& f) {
  const auto e = caught(f);
  return e ? e->what() : "";
}

}  // namespace

TEST_CASE("Interpolate: nearest and linear_onnx resizes worked out by hand") {
  const Tensor x = f32s({1, 1, 2, 2}, {1, 2, 3, 4});
  // Nearest x2, half_pixel, round_prefer_floor: source (o + 0.5) / 2 - 0.5 rounds to o / 2.
  {
    const auto op = make("Interpolate", "opset4", v4_attrs("nearest", "sizes"));
    const Tensor out = run(*op, {x, i64s({4, 4}), f32s({2}, {2, 2}), i64s({2, 3})});
    CHECK(out.shape() == Shape{1, 1, 4, 4});
    CHECK(doubles(out) == std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  }
  // linear_onnx x2, half_pixel (ONNX's Resize example): the borders clamp.
  {
    const auto op = make("Interpolate", "opset11", v4_attrs("linear_onnx", "scales"));
    const Tensor out = run(*op, {x, f32s({2}, {2, 2}), i64s({2, 3})});
    CHECK(doubles(out) == std::vector<double>{1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75,
                                              3.25, 3.5, 3, 3.25, 3.75, 4});
  }
  // align_corners linear on one axis: 0, 1/3, 2/3, 1 of the way.
  {
    const auto op =
        make("Interpolate", "opset11",
             v4_attrs("linear", "sizes", {{"coordinate_transformation_mode", "align_corners"}}));
    const std::vector<double> got = doubles(run(*op, {f32s({2}, {0, 3}), i64s({4}), i64s({0})}));
    REQUIRE(got.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) CHECK(got[i] == doctest::Approx(static_cast<double>(i)));
  }
  // Pads add zeros before resizing: [0, 1, 2, 0] read by asymmetric nearest at half size.
  {
    const auto op = make("Interpolate", "opset4",
                         v4_attrs("nearest", "scales",
                                  {{"pads_begin", "1"},
                                   {"pads_end", "1"},
                                   {"coordinate_transformation_mode", "asymmetric"}}));
    const Tensor out = run(*op, {f32s({2}, {1, 2}), i64s({0}), f32s({1}, {0.5})});
    CHECK(doubles(out) == std::vector<double>{0, 2});
  }
  // Scales give extents as OpenVINO's shape inference: 5 * (0.6 + 1e-6) truncated is 3.
  {
    const auto op = make("Interpolate", "opset11", v4_attrs("nearest", "scales"));
    const Tensor out = run(*op, {f32s({5}, {1, 2, 3, 4, 5}), f32s({1}, {0.6})});
    CHECK(out.shape() == Shape{3});
  }
}

TEST_CASE("Interpolate: bilinear_pillow halving a row, as Pillow's sums give it") {
  // Width 4 -> 2: scale 2 widens the triangle to support 2. Output 0 is centred on 1 and reads
  // inputs 0..2 with weights 0.75, 0.75, 0.25 (normalised by 1.75); output 1 is centred on 3
  // and reads 1..3 with 0.25, 0.75, 0.75.
  const auto op = make("Interpolate", "opset11", v4_attrs("bilinear_pillow", "sizes"));
  const Tensor out = run(*op, {f32s({1, 4}, {0, 4, 8, 12}), i64s({1, 2}), i64s({0, 1})});
  const std::vector<double> got = doubles(out);
  REQUIRE(got.size() == 2);
  CHECK(got[0] == doctest::Approx(20.0 / 7));
  CHECK(got[1] == doctest::Approx(64.0 / 7));
  // u8 rounds half away from zero: 2.857 -> 3, 9.143 -> 9.
  const Tensor u8 =
      run(*op, {tensor(ElementType::u8, {1, 4}, {0, 4, 8, 12}), i64s({1, 2}), i64s({0, 1})});
  CHECK(doubles(u8) == std::vector<double>{3, 9});
}

namespace {

/// Rounds a double to `type` as the kernel stores a float result: through float for the 16-bit
/// floats.
double to_type(ElementType type, double v) {
  if (type == ElementType::f16 || type == ElementType::bf16)
    return doubles(tensor(type, {1}, {static_cast<double>(static_cast<float>(v))}))[0];
  if (type == ElementType::f32) return static_cast<double>(static_cast<float>(v));
  return v;
}

struct Limits {
  double lo, hi;
};

Limits limits(ElementType type) {
  switch (type) {
    case ElementType::i8:
      return {-128, 127};
    case ElementType::u8:
      return {0, 255};
    case ElementType::i16:
      return {-32768, 32767};
    case ElementType::u16:
      return {0, 65535};
    case ElementType::i32:
      return {-2147483648.0, 2147483647.0};
    case ElementType::u32:
      return {0, 4294967295.0};
    case ElementType::i64:
      return {-9.2e18, 9.2e18};
    case ElementType::u64:
      return {0, 1.8e19};
    default:
      return {0, 0};
  }
}

const char* const kModes[] = {"nearest", "linear",          "linear_onnx",
                              "cubic",   "bilinear_pillow", "bicubic_pillow"};
const char* const kCoords[] = {"half_pixel", "pytorch_half_pixel", "asymmetric",
                               "tf_half_pixel_for_nn", "align_corners"};
const char* const kNearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
                                "simple"};

/// One random Interpolate-4 or -11 case: the op's attributes and inputs, and the reference's
/// description of it.
struct RandomCase {
  int version = 11;
  AttributeList attrs;
  std::vector<Tensor> inputs;
  reference::InterpolateRef ref;
  std::vector<double> data;
};

RandomCase random_case(std::mt19937& rng, ElementType type, bool feature_map) {
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  RandomCase c;
  c.version = pick(2) ? 11 : 4;
  std::string mode = kModes[pick(c.version == 11 ? 6 : 4)];
  const bool pillow = mode.find("pillow") != std::string::npos;
  const std::size_t rank = feature_map ? 4 : static_cast<std::size_t>(1 + pick(4));
  if (pillow && rank < 2) mode = "cubic";
  const bool is_pillow = mode.find("pillow") != std::string::npos;
  Shape in(rank);
  for (auto& d : in) d = static_cast<std::size_t>(1 + pick(feature_map ? 5 : 4));
  if (feature_map) in[0] = 1 + static_cast<std::size_t>(pick(2));
  // Axes: a random subset in random order (exactly two for Pillow; H and W, maybe with N and C
  // listed unchanged, for feature maps).
  std::vector<std::int64_t> axes;
  if (feature_map) {
    axes = pick(2) ? std::vector<std::int64_t>{2, 3} : std::vector<std::int64_t>{0, 1, 2, 3};
    if (pick(4) == 0) axes = {3};
    if (is_pillow) axes = {2, 3};
  } else {
    for (std::size_t d = 0; d < rank; ++d)
      if (pick(3) != 0) axes.push_back(static_cast<std::int64_t>(d));
    std::shuffle(axes.begin(), axes.end(), rng);
    if (is_pillow) {
      axes.clear();
      std::vector<std::int64_t> all(rank);
      for (std::size_t d = 0; d < rank; ++d) all[d] = static_cast<std::int64_t>(d);
      std::shuffle(all.begin(), all.end(), rng);
      axes = {all[0], all[1]};
    }
  }
  const bool scales_mode = pick(2) == 0;
  std::vector<std::int64_t> pb(rank, 0), pe(rank, 0);
  if (pick(3) == 0 && !feature_map)
    for (std::size_t d = 0; d < rank; ++d) {
      pb[d] = pick(2);
      pe[d] = pick(2);
    }
  Shape padded(rank), out(rank);
  for (std::size_t d = 0; d < rank; ++d)
    padded[d] = in[d] + static_cast<std::size_t>(pb[d] + pe[d]);
  out = padded;
  std::vector<float> scales;
  std::vector<std::int64_t> sizes;
  static const float kScales[] = {0.5f, 0.75f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 0.34f};
  for (const std::int64_t a : axes) {
    const auto d = static_cast<std::size_t>(a);
    if (feature_map && d < 2) {
      scales.push_back(1.0f);
      sizes.push_back(static_cast<std::int64_t>(padded[d]));
      continue;
    }
    if (scales_mode) {
      const float s = kScales[pick(8)];
      scales.push_back(s);
      const float v = static_cast<float>(padded[d]) * (s + 1.0e-6f);
      out[d] = s == 1.0f ? padded[d] : static_cast<std::size_t>(v);
    } else {
      out[d] = static_cast<std::size_t>(pick(7));
      if (out[d] == 0 && pick(3) != 0) out[d] = 1;
      scales.push_back(static_cast<float>(out[d]) / static_cast<float>(padded[d]));
    }
    sizes.push_back(static_cast<std::int64_t>(out[d]));
  }
  c.attrs = {{"mode", mode},
             {"shape_calculation_mode", scales_mode ? "scales" : "sizes"},
             {"coordinate_transformation_mode", kCoords[pick(5)]},
             {"nearest_mode", kNearest[pick(5)]},
             {"antialias", pick(2) ? "true" : "false"}};
  const float cube = pick(2) ? -0.75f : -0.5f;
  c.attrs.push_back({"cube_coeff", fmt::format("{}", cube)});
  std::string pbs, pes;
  for (std::size_t d = 0; d < rank; ++d) {
    pbs += (d ? "," : "") + std::to_string(pb[d]);
    pes += (d ? "," : "") + std::to_string(pe[d]);
  }
  c.attrs.push_back({"pads_begin", pbs});
  c.attrs.push_back({"pads_end", pes});
  // Data: small integers for integer types, fractions for floats.
  std::size_t n = 1;
  for (const auto d : in) n *= d;
  std::uniform_int_distribution<int> value(type == ElementType::u8 || type == ElementType::u16 ||
                                                   type == ElementType::u32 ||
                                                   type == ElementType::u64
                                               ? 0
                                               : -100,
                                           100);
  for (std::size_t i = 0; i < n; ++i) {
    double v = value(rng);
    if (is_real(type)) v = v / 8.0;
    c.data.push_back(v);
  }
  const Tensor data = tensor(type, in, c.data);
  const Tensor axes_t = i64s(axes);
  const Tensor scales_t = tensor(ElementType::f32, {static_cast<std::int64_t>(scales.size())},
                                 std::vector<double>(scales.begin(), scales.end()));
  const Tensor sizes_t = i64s(sizes);
  if (c.version == 4)
    c.inputs = {data, sizes_t, scales_t, axes_t};
  else
    c.inputs = {data, scales_mode ? scales_t : sizes_t, axes_t};
  auto& r = c.ref;
  r.mode = mode;
  for (const auto& [k, v] : c.attrs) {
    if (k == "coordinate_transformation_mode") r.coord = v;
    if (k == "nearest_mode") r.nearest = v;
    if (k == "antialias") r.antialias = v == "true";
  }
  r.cube = cube;
  r.pads_begin = pb;
  r.pads_end = pe;
  r.axes = axes;
  r.scales = scales;
  r.input = in;
  r.output = out;
  r.integral = is_integral(type);
  const Limits l = limits(type);
  r.lo = l.lo;
  r.hi = l.hi;
  r.round = [type](double v) { return to_type(type, v); };
  return c;
}

std::string describe(const RandomCase& c) {
  std::string s = fmt::format("Interpolate-{} in {} out {}", c.version, to_string(c.ref.input),
                              to_string(c.ref.output));
  for (const auto& [k, v] : c.attrs) s += fmt::format(" {}={}", k, v);
  s += " axes";
  for (const auto a : c.ref.axes) s += fmt::format(" {}", a);
  return s;
}

void check_random(const RandomCase& c, ElementType type) {
  CAPTURE(describe(c));
  const auto op = make("Interpolate", c.version == 4 ? "opset4" : "opset11", c.attrs);
  std::vector<double> want = reference::interpolate(c.ref, c.data);
  for (double& v : want) v = to_type(type, v);
  const Tensor one = run(*op, c.inputs);
  REQUIRE(one.shape() == c.ref.output);
  const std::vector<double> got = doubles(one);
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    // Equal, or both NaN.
    CHECK((got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i]))));
  }
  // Every thread count gives the same bits.
  std::vector<ValueInfo> infos;
  for (const Tensor& t : c.inputs) infos.push_back(info(t));
  const std::vector<OutputInfo> outs = op->infer(infos, Phase::run);
  for (ThreadPool* pool : test_pools()) {
    std::vector<Tensor> tensors = {Tensor(outs[0].type, outs[0].shape.to_shape())};
    const std::size_t bytes = op->scratch_bytes(c.inputs, tensors, pool->size());
    std::vector<std::byte> arena(bytes + 64);
    void* p = arena.data();
    std::size_t space = arena.size();
    std::align(64, bytes, p, space);
    op->execute(c.inputs, tensors, ExecContext{Parallel(pool), Scratch(p, bytes)});
    REQUIRE(tensors[0].byte_size() == one.byte_size());
    CHECK(std::memcmp(tensors[0].data(), one.data(), one.byte_size()) == 0);
  }
}

}  // namespace

TEST_CASE("Interpolate: random cases against the reference, on every element type") {
  std::mt19937 rng(20261126);
  const ElementType types[] = {ElementType::f32, ElementType::f16, ElementType::bf16,
                               ElementType::f64, ElementType::i8,  ElementType::u8,
                               ElementType::i32, ElementType::i64, ElementType::u16};
  for (int i = 0; i < 700; ++i) {
    const ElementType type = types[static_cast<std::size_t>(i) % std::size(types)];
    CAPTURE(to_string(type));
    check_random(random_case(rng, type, false), type);
  }
}

TEST_CASE("Interpolate: feature maps (the fast path) against the reference") {
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    const ElementType type = i % 3 == 0 ? ElementType::f16 : ElementType::f32;
    CAPTURE(to_string(type));
    check_random(random_case(rng, type, true), type);
  }
}

namespace {

InterpolateSpec feature_map_spec(InterpMode mode, std::int64_t c, std::int64_t h, std::int64_t w,
                                 std::int64_t oh, std::int64_t ow) {
  InterpolateSpec s;
  s.mode = mode;
  s.input = s.padded = {1, c, h, w};
  s.pads_begin = {0, 0, 0, 0};
  s.output = {1, c, oh, ow};
  s.axes = {2, 3};
  s.scales = {static_cast<float>(oh) / static_cast<float>(h),
              static_cast<float>(ow) / static_cast<float>(w)};
  return s;
}

std::vector<float> resized(const InterpolateSpec& s, const std::vector<float>& in,
                           ThreadPool* pool) {
  std::vector<float> out(elements(s.output));
  const std::size_t bytes = interpolate_scratch_bytes(s, ElementType::f32, pool ? pool->size() : 1);
  std::vector<std::byte> arena(bytes + 64);
  void* p = arena.data();
  std::size_t space = arena.size();
  std::align(64, bytes, p, space);
  interpolate(Parallel(pool), Scratch(p, bytes), s, ElementType::f32, in.data(), out.data());
  return out;
}

}  // namespace

TEST_CASE("Interpolate: the fast path gives the general path's bits") {
  // Up, down and mixed: height, width, output height, output width.
  const std::array<std::array<std::int64_t, 4>, 3> kSizes = {
      {{5, 7, 10, 14}, {9, 8, 4, 3}, {6, 6, 13, 5}}};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> v(-4, 4);
  for (const InterpMode mode :
       {InterpMode::nearest, InterpMode::linear, InterpMode::linear_onnx, InterpMode::cubic})
    for (const auto& [h, w, oh, ow] : kSizes) {
      InterpolateSpec s = feature_map_spec(mode, 3, h, w, oh, ow);
      s.antialias = mode == InterpMode::linear;
      std::vector<float> in(elements(s.input));
      for (float& x : in) x = v(rng);
      REQUIRE(interpolate_takes_fast_path(s));
      const std::vector<float> fast = resized(s, in, test_pools()[1]);
      s.allow_fast_path = false;
      REQUIRE_FALSE(interpolate_takes_fast_path(s));
      const std::vector<float> general = resized(s, in, nullptr);
      CHECK(std::memcmp(fast.data(), general.data(), fast.size() * sizeof(float)) == 0);
    }
  // Axes listed W before H multiply in that order: the general path.
  InterpolateSpec s = feature_map_spec(InterpMode::linear, 1, 4, 4, 8, 8);
  s.axes = {3, 2};
  CHECK_FALSE(interpolate_takes_fast_path(s));
}

TEST_CASE("Interpolate-1 runs as OpenVINO maps it onto Interpolate-4") {
  const Tensor x = f32s({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
  // Linear on a 4-D tensor's axes 2 and 3 without align_corners: linear_onnx, asymmetric.
  {
    const auto v1 = make("Interpolate", "opset1",
                         {{"axes", "2,3"}, {"mode", "linear"}, {"align_corners", "false"}});
    const auto v4 =
        make("Interpolate", "opset4",
             v4_attrs("linear_onnx", "sizes", {{"coordinate_transformation_mode", "asymmetric"}}));
    const Tensor a = run(*v1, {x, i64s({3, 5})});
    const Tensor b = run(*v4, {x, i64s({3, 5}), f32s({2}, {1.5, 5.0 / 3}), i64s({2, 3})});
    CHECK(doubles(a) == doubles(b));
  }
  // The default align_corners, nearest with nearest_mode simple.
  {
    const auto v1 = make("Interpolate", "opset1", {{"axes", "3,2"}, {"mode", "nearest"}});
    const auto v4 = make("Interpolate", "opset4",
                         v4_attrs("nearest", "sizes",
                                  {{"coordinate_transformation_mode", "align_corners"},
                                   {"nearest_mode", "simple"}}));
    const Tensor a = run(*v1, {x, i64s({4, 2})});
    const Tensor b = run(*v4, {x, i64s({4, 2}), f32s({2}, {2, 2.0 / 3}), i64s({2, 3})});
    CHECK(a.shape() == Shape{1, 1, 4, 2});
    CHECK(doubles(a) == doubles(b));
  }
  // Linear on other axes without pads: half_pixel.
  {
    const auto v1 =
        make("Interpolate", "opset1", {{"axes", "3"}, {"mode", "linear"}, {"align_corners", "0"}});
    const auto v4 =
        make("Interpolate", "opset4",
             v4_attrs("linear_onnx", "sizes", {{"coordinate_transformation_mode", "half_pixel"}}));
    const Tensor a = run(*v1, {x, i64s({5})});
    const Tensor b = run(*v4, {x, i64s({5}), f32s({1}, {5.0 / 3}), i64s({3})});
    CHECK(doubles(a) == doubles(b));
  }
}

TEST_CASE("Interpolate: output shapes from Const, unknown and bounded inputs") {
  const auto v4 = make("Interpolate", "opset4", v4_attrs("nearest", "sizes"));
  const Tensor sizes = i64s({7, 9});
  const Tensor axes = i64s({2, 3});
  const Tensor scales = f32s({2}, {2, 0.5});
  CHECK(inferred(*v4, {info(ElementType::f32, "[1,3,4,4]"), info(sizes), info(scales),
                       info(axes)}) == "f32 [1,3,7,9]");
  // Sizes unknown: the resized axes are dynamic.
  CHECK(inferred(*v4, {info(ElementType::f32, "[1,3,4,4]"), info(ElementType::i64, "[2]"),
                       info(scales), info(axes)}) == "f32 [1,3,?,?]");
  // Axes unknown: every dim.
  CHECK(inferred(*v4, {info(ElementType::f32, "[1,3,4,4]"), info(sizes), info(scales),
                       info(ElementType::i64, "[2]")}) == "f32 [?,?,?,?]");
  CHECK(inferred(*v4, {info(ElementType::f32, "[...]"), info(sizes), info(scales), info(axes)}) ==
        "f32 [...]");
  // Scales on intervals, each bound scaled; pads added first.
  const auto v11 =
      make("Interpolate", "opset11",
           v4_attrs("linear", "scales", {{"pads_begin", "0,0,1,0"}, {"pads_end", "0,0,1,0"}}));
  CHECK(inferred(*v11, {info(ElementType::f16, "[?,3,2..6,10..]"), info(scales), info(axes)}) ==
        "f16 [?,3,8..16,5..]");
  // Sizes bounded by value propagation (as from a ShapeOf): an interval.
  const Tensor lo = i64s({2, 3}), hi = i64s({4, 3});
  ValueInfo bounded = info(ElementType::i64, "[2]");
  bounded.lower = &lo;
  bounded.upper = &hi;
  const auto s11 = make("Interpolate", "opset11", v4_attrs("nearest", "sizes"));
  CHECK(inferred(*s11, {info(ElementType::f32, "[1,1,5,5]"), bounded, info(axes)}) ==
        "f32 [1,1,2..4,3]");
}

TEST_CASE("Interpolate: dynamic shapes run, sizes and axes given at run time") {
  OpTester t("Interpolate", "opset11");
  t.attr("mode", "linear_onnx").attr("shape_calculation_mode", "sizes");
  t.input_parameter("x", ElementType::f32, ps("[?,?,?,?]"));
  t.input_parameter("sizes", ElementType::i32, ps("[?]"));
  t.input_parameter("axes", ElementType::i64, ps("[?]"));
  const Tensor x = f32s({1, 1, 2, 2}, {1, 2, 3, 4});
  const auto out =
      t.run({{"x", x}, {"sizes", tensor(ElementType::i32, {2}, {4, 4})}, {"axes", i64s({2, 3})}});
  CHECK(out[0].shape() == Shape{1, 1, 4, 4});
  CHECK(doubles(out[0])[1] == 1.25);
  const auto again = t.run({{"x", f32s({1, 1, 1, 3}, {1, 2, 3})},
                            {"sizes", tensor(ElementType::i32, {1}, {6})},
                            {"axes", i64s({3})}});
  CHECK(again[0].shape() == Shape{1, 1, 1, 6});
  // A bad axis at run time is the input's value error, located.
  const auto e = caught([&] {
    t.run({{"x", x}, {"sizes", tensor(ElementType::i32, {1}, {2})}, {"axes", i64s({4})}});
  });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
  CHECK(std::string(e->what()).find("axis 4") != std::string::npos);
}

TEST_CASE("Interpolate: located errors for bad attributes, shapes and values") {
  const Tensor sizes = i64s({4, 4});
  const Tensor axes = i64s({2, 3});
  const Tensor scales = f32s({2}, {2, 2});
  const auto data = info(ElementType::f32, "[1,1,2,2]");
  CHECK(error_of([] {
          make("Interpolate", "opset4", v4_attrs("bilinear_pillow", "sizes"));
        }).find("mode") != std::string::npos);
  CHECK(error_of([] {
          make("Interpolate", "opset11", v4_attrs("nearest", "shapes"));
        }).find("shape_calculation_mode") != std::string::npos);
  CHECK(error_of([] {
          make("Interpolate", "opset11", v4_attrs("nearest", "sizes", {{"pads_begin", "-1"}}));
        }).find("negative") != std::string::npos);
  CHECK(error_of([] {
          make("Interpolate", "opset1", {{"axes", "2"}, {"mode", "area"}});
        }).find("area") != std::string::npos);
  const auto v11 = make("Interpolate", "opset11", v4_attrs("nearest", "sizes"));
  const Tensor bad_axes = i64s({2, 4});
  CHECK(error_of([&] {
          infer_outputs(*v11, {data, info(sizes), info(bad_axes)});
        }).find("axis 4") != std::string::npos);
  const Tensor twice = i64s({2, 2});
  CHECK(error_of([&] {
          infer_outputs(*v11, {data, info(sizes), info(twice)});
        }).find("twice") != std::string::npos);
  const Tensor negative_axis = i64s({-1});
  CHECK(error_of([&] {
          infer_outputs(*v11, {data, info(i64s({3})), info(negative_axis)});
        }).find("axis -1") != std::string::npos);
  const Tensor short_sizes = i64s({4});
  CHECK(error_of([&] {
          infer_outputs(*v11, {data, info(short_sizes), info(axes)});
        }).find("1 values but 2 axes") != std::string::npos);
  const Tensor negative = i64s({4, -2});
  CHECK(error_of([&] {
          infer_outputs(*v11, {data, info(negative), info(axes)});
        }).find("negative") != std::string::npos);
  CHECK(error_of([&] {
          infer_outputs(*v11, {data, info(scales), info(axes)});
        }).find("integer sizes") != std::string::npos);
  CHECK(error_of([&] {
          infer_outputs(*v11, {data, info(ElementType::i64, "[2,1]"), info(axes)});
        }).find("1-D") != std::string::npos);
  const auto pillow = make("Interpolate", "opset11", v4_attrs("bicubic_pillow", "scales"));
  const Tensor three = i64s({1, 2, 3});
  CHECK(error_of([&] {
          infer_outputs(*pillow, {data, info(f32s({3}, {1, 2, 2})), info(three)});
        }).find("exactly two axes") != std::string::npos);
  const auto scaled = make("Interpolate", "opset11", v4_attrs("nearest", "scales"));
  CHECK(error_of([&] {
          infer_outputs(*scaled, {data, info(f32s({2}, {-1, 2})), info(axes)});
        }).find("no valid extent") != std::string::npos);
  CHECK(
      error_of([&] {
        infer_outputs(*v11, {info(ElementType::f32, "[1,1,0,2]"), info(i64s({3, 3})), info(axes)});
      }).find("empty") != std::string::npos);
  const auto v1 = make("Interpolate", "opset1", {{"axes", "4"}, {"mode", "nearest"}});
  CHECK(error_of([&] {
          infer_outputs(*v1, {data, info(i64s({3}))});
        }).find("below the data's rank") != std::string::npos);
  // Through a model, the error names the layer.
  OpTester t("Interpolate", "opset11", "resize");
  t.attr("mode", "nearest").attr("shape_calculation_mode", "sizes");
  t.input_parameter("x", ElementType::f32, ps("[1,1,2,2]"));
  t.input_const("sizes", sizes);
  t.input_const("axes", bad_axes);
  const auto e = caught([&] { t.load(); });
  REQUIRE(e);
  CHECK(std::string(e->what()).find("resize") != std::string::npos);
}

namespace {

/// One of OpenVINO's own reference test vectors for Interpolate-4/11 (its template plugin's
/// op_reference tests, which take many from ONNX's): data, the resize, the expected output.
struct OvVector {
  const char* name;
  AttributeList attrs;
  ElementType type;
  Shape in;
  std::vector<double> data;
  Tensor target;  // sizes or scales
  std::vector<std::int64_t> axes;
  Shape out;
  std::vector<double> want;
};

void check_vector(const OvVector& v) {
  CAPTURE(v.name);
  const auto op = make("Interpolate", "opset11", v.attrs);
  const Tensor out = run(*op, {tensor(v.type, v.in, v.data), v.target, i64s(v.axes)});
  REQUIRE(out.shape() == v.out);
  const std::vector<double> got = doubles(out);
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    // The float vectors come from double computations: a few float ulps apart.
    CHECK(got[i] == doctest::Approx(v.want[i]).epsilon(2e-6));
  }
}

std::vector<double> range(int n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

}  // namespace

TEST_CASE("Interpolate: OpenVINO's reference test vectors") {
  const std::vector<double> x16 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const std::vector<double> pil_5x6 = {168, 92,  157, 111, 15,  138, 97,  47,  237, 25,
                                       163, 6,   72,  118, 121, 238, 22,  174, 182, 140,
                                       43,  121, 158, 242, 210, 73,  113, 111, 75,  132};
  const std::vector<double> nchw_3x5x6 = {
      37,  106, 71,  47,  72,  238, 7,   195, 203, 77,  193, 203, 192, 60,  163, 80,  204, 47,
      78,  170, 252, 171, 146, 125, 178, 137, 167, 84,  101, 80,  244, 235, 255, 103, 20,  255,
      0,   204, 170, 133, 255, 145, 83,  144, 23,  134, 191, 71,  99,  118, 121, 134, 101, 127,
      228, 20,  216, 80,  177, 146, 193, 128, 140, 184, 188, 126, 137, 32,  101, 30,  79,  37,
      112, 128, 129, 101, 174, 30,  237, 88,  116, 141, 25,  239, 239, 213, 254, 107, 50,  139};
  const std::vector<OvVector> vectors = {
      {"cubic downsample, scales 0.8",
       v4_attrs("cubic", "scales"),
       ElementType::f32,
       {1, 1, 4, 4},
       x16,
       f32s({2}, {0.8, 0.8}),
       {2, 3},
       {1, 1, 3, 3},
       {1.47119141, 2.78125, 4.08251953, 6.71142578, 8.02148438, 9.32275391, 11.91650391,
        13.2265625, 14.52783203}},
      {"cubic upsample, asymmetric",
       v4_attrs("cubic", "scales", {{"coordinate_transformation_mode", "asymmetric"}}),
       ElementType::f32,
       {1, 1, 4, 4},
       x16,
       f32s({2}, {2, 2}),
       {2, 3},
       {1, 1, 8, 8},
       {1.0,    1.40625,  2.0,    2.5,      3.0,    3.59375,  4.0,    4.09375,  2.625,  3.03125,
        3.625,  4.125,    4.625,  5.21875,  5.625,  5.71875,  5.0,    5.40625,  6.0,    6.5,
        7.0,    7.59375,  8.0,    8.09375,  7.0,    7.40625,  8.0,    8.5,      9.0,    9.59375,
        10.0,   10.09375, 9.0,    9.40625,  10.0,   10.5,     11.0,   11.59375, 12.0,   12.09375,
        11.375, 11.78125, 12.375, 12.875,   13.375, 13.96875, 14.375, 14.46875, 13.0,   13.40625,
        14.0,   14.5,     15.0,   15.59375, 16.0,   16.09375, 13.375, 13.78125, 14.375, 14.875,
        15.375, 15.96875, 16.375, 16.46875}},
      {"nearest downsample, tf_half_pixel_for_nn",
       v4_attrs("nearest", "sizes", {{"coordinate_transformation_mode", "tf_half_pixel_for_nn"}}),
       ElementType::f32,
       {1, 1, 4, 4},
       x16,
       i64s({3, 2}),
       {2, 3},
       {1, 1, 3, 2},
       {6, 8, 10, 12, 14, 16}},
      {"nearest upsample, ceil",
       v4_attrs("nearest", "sizes", {{"nearest_mode", "ceil"}}),
       ElementType::f32,
       {1, 1, 4, 4},
       x16,
       i64s({8, 8}),
       {2, 3},
       {1, 1, 8, 8},
       {1,  2,  2,  3,  3,  4,  4,  4,  5,  6,  6,  7,  7,  8,  8,  8,  5,  6,  6,  7,  7,  8,
        8,  8,  9,  10, 10, 11, 11, 12, 12, 12, 9,  10, 10, 11, 11, 12, 12, 12, 13, 14, 14, 15,
        15, 16, 16, 16, 13, 14, 14, 15, 15, 16, 16, 16, 13, 14, 14, 15, 15, 16, 16, 16}},
      {"linear_onnx downsample, pytorch_half_pixel to one column",
       v4_attrs("linear_onnx", "sizes", {{"coordinate_transformation_mode", "pytorch_half_pixel"}}),
       ElementType::f32,
       {1, 1, 4, 4},
       x16,
       i64s({3, 1}),
       {2, 3},
       {1, 1, 3, 1},
       {1.6666666, 7.0, 12.333333}},
      {"linear_onnx over the channels too",
       v4_attrs("linear_onnx", "scales"),
       ElementType::f32,
       {1, 2, 2, 2},
       {1, 2, 3, 4, 5, 6, 7, 8},
       f32s({4}, {1, 2, 2, 2}),
       {0, 1, 2, 3},
       {1, 4, 4, 4},
       {1.0, 1.25, 1.75, 2.0, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3.0, 3.25, 3.75, 4.0,
        2.0, 2.25, 2.75, 3.0, 2.5, 2.75, 3.25, 3.5, 3.5, 3.75, 4.25, 4.5, 4.0, 4.25, 4.75, 5.0,
        4.0, 4.25, 4.75, 5.0, 4.5, 4.75, 5.25, 5.5, 5.5, 5.75, 6.25, 6.5, 6.0, 6.25, 6.75, 7.0,
        5.0, 5.25, 5.75, 6.0, 5.5, 5.75, 6.25, 6.5, 6.5, 6.75, 7.25, 7.5, 7.0, 7.25, 7.75, 8.0}},
      {"bilinear_pillow u8 8x8 to 4x4",
       v4_attrs("bilinear_pillow", "sizes"),
       ElementType::u8,
       {8, 8},
       range(64),
       i64s({4, 4}),
       {0, 1},
       {4, 4},
       {7, 9, 11, 12, 21, 23, 25, 26, 37, 39, 41, 42, 51, 53, 55, 56}},
      {"bilinear_pillow u8 NCHW 5x6 to 2x4 (OpenVINO's 89 where Pillow gives 90)",
       v4_attrs("bilinear_pillow", "sizes"),
       ElementType::u8,
       {1, 3, 5, 6},
       nchw_3x5x6,
       i64s({2, 4}),
       {2, 3},
       {1, 3, 2, 4},
       {89,  138, 109, 168, 134, 171, 138, 116, 137, 169, 140, 161,
        119, 118, 130, 133, 129, 107, 113, 95,  178, 148, 106, 120}},
      {"bilinear_pillow i8 upsample by scales",
       v4_attrs("bilinear_pillow", "scales"),
       ElementType::i8,
       {4, 4},
       {7, 9, 11, 12, 21, 23, 25, 26, 37, 39, 41, 42, 51, 53, 55, 56},
       f32s({2}, {2, 2}),
       {0, 1},
       {8, 8},
       {7,  8,  9,  10, 11, 11, 12, 12, 11, 12, 13, 14, 15, 15, 16, 16, 18, 19, 20, 21, 22, 22,
        23, 23, 25, 26, 27, 28, 29, 29, 30, 30, 33, 34, 35, 36, 37, 37, 38, 38, 41, 42, 43, 44,
        45, 45, 46, 46, 48, 49, 50, 51, 52, 52, 53, 53, 51, 52, 53, 54, 55, 55, 56, 56}},
      {"bicubic_pillow u8 5x6 to 2x4, a = -0.5",
       v4_attrs("bicubic_pillow", "sizes", {{"cube_coeff", "-0.5"}}),
       ElementType::u8,
       {5, 6},
       pil_5x6,
       i64s({2, 4}),
       {0, 1},
       {2, 4},
       {99, 143, 105, 88, 146, 98, 123, 154}},
      {"bicubic_pillow u8 5x6 to 2x4, OpenVINO's default a",
       v4_attrs("bicubic_pillow", "sizes"),
       ElementType::u8,
       {5, 6},
       pil_5x6,
       i64s({2, 4}),
       {0, 1},
       {2, 4},
       {97, 144, 106, 88, 145, 98, 121, 153}},
      {"bicubic_pillow u8 upsample 4x4 to 8x8",
       v4_attrs("bicubic_pillow", "sizes", {{"cube_coeff", "-0.5"}}),
       ElementType::u8,
       {4, 4},
       {5, 6, 9, 10, 21, 22, 25, 26, 37, 38, 41, 42, 53, 54, 57, 58},
       i64s({8, 8}),
       {0, 1},
       {8, 8},
       {4,  4,  5,  6,  7,  8,  9,  9,  8,  8,  9,  10, 11, 12, 13, 13, 16, 16, 17, 18, 19, 20,
        21, 21, 25, 25, 26, 27, 28, 29, 30, 30, 33, 33, 34, 35, 36, 37, 38, 38, 42, 42, 43, 44,
        45, 46, 47, 47, 50, 50, 51, 52, 53, 54, 55, 55, 54, 54, 55, 56, 57, 58, 59, 59}},
      {"bicubic_pillow f32 upsample 2x4 to 5x6",
       v4_attrs("bicubic_pillow", "sizes", {{"cube_coeff", "-0.5"}}),
       ElementType::f32,
       {2, 4},
       {214.42, 66.97, 27.98, 76.41, 105.94, 208.44, 115.53, 23.53},
       i64s({5, 6}),
       {0, 1},
       {5, 6},
       {236.49521, 146.10538, 38.218796, 17.75709,  50.332058, 85.74947,  215.93185, 148.13255,
        63.085896, 35.050694, 51.983547, 75.524284, 161.65862, 153.48294, 128.71808, 80.69401,
        56.342354, 48.53678,  107.38538, 158.83333, 194.35027, 126.33732, 60.70116,  21.549273,
        86.82202,  160.8605,  219.21736, 143.63092, 62.35265,  11.32409}},
  };
  for (const OvVector& v : vectors) check_vector(v);
}

TEST_CASE("Interpolate: large resizes give the same bits on every thread count, both paths") {
  // Large enough that both paths split their work into several chunks.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> v(-4, 4);
  for (const InterpMode mode : {InterpMode::nearest, InterpMode::linear, InterpMode::linear_onnx,
                                InterpMode::cubic, InterpMode::bilinear_pillow})
    for (const bool fast : {true, false}) {
      CAPTURE(static_cast<int>(mode));
      CAPTURE(fast);
      InterpolateSpec s = feature_map_spec(mode, 8, 40, 50, 80, 75);
      s.allow_fast_path = fast;
      if (!fast) s.axes = {3, 2}, s.scales = {1.5f, 2.0f};  // W first: the general path
      s.antialias = true;
      std::vector<float> in(elements(s.input));
      for (float& x : in) x = v(rng);
      const std::vector<float> one = resized(s, in, nullptr);
      if (fast) {
        InterpolateSpec general = s;
        general.allow_fast_path = false;
        const std::vector<float> g = resized(general, in, test_pools()[2]);
        CHECK(std::memcmp(g.data(), one.data(), one.size() * sizeof(float)) == 0);
      }
      for (ThreadPool* pool : test_pools()) {
        const std::vector<float> many = resized(s, in, pool);
        CHECK(std::memcmp(many.data(), one.data(), one.size() * sizeof(float)) == 0);
      }
    }
}

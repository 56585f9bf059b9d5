// Convolution-1 and GroupConvolution-1: the shape rule (explicit and automatic padding, dynamic
// and interval dims, unknown ranks), located errors, a few cases worked out by hand, and the
// kernels against a plain nested-loop convolution in double on random geometries (1 to 3
// spatial axes, strides, dilations, pads, groups, depthwise, f32, f16 and bf16, filters Const
// or not), with the same bits on every thread count.

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/attributes.hpp"
#include "graph/op.hpp"
#include "irlite/irlite.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;

/// A list attribute's text: "1,2,3".
std::string list(const std::vector<std::int64_t>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + std::to_string(values[i]);
  return text;
}

/// One convolution's settings, as a test states them.
struct Conv {
  bool grouped = false;
  std::vector<std::int64_t> strides, dilations, pads_begin, pads_end;
  std::string auto_pad = "explicit";

  Attrs attrs() const {
    return {{"strides", list(strides)},
            {"dilations", list(dilations)},
            {"pads_begin", list(pads_begin)},
            {"pads_end", list(pads_end)},
            {"auto_pad", auto_pad}};
  }
  std::unique_ptr<const Op> op() const {
    return op_def(grouped ? "GroupConvolution" : "Convolution", "opset1")
        .create(Attributes(attrs()));
  }
  OpTester tester() const {
    OpTester t(grouped ? "GroupConvolution" : "Convolution", "opset1", "conv");
    for (const auto& [name, value] : attrs()) t.attr(name, value);
    return t;
  }
};

/// A 2-D convolution with these strides and pads (dilation 1).
Conv conv2d(std::int64_t stride = 1, std::int64_t pad = 0, std::string auto_pad = "explicit") {
  return {false, {stride, stride}, {1, 1}, {pad, pad}, {pad, pad}, std::move(auto_pad)};
}

std::string shape_of(const Conv& c, const char* data, const char* filters) {
  return to_string(
      infer_outputs(*c.op(), {info(ElementType::f32, data), info(ElementType::f32, filters)})[0]
          .shape);
}

std::string error_of(const Conv& c, const char* data, const char* filters,
                     ElementType filters_type = ElementType::f32) {
  auto op = c.op();
  const auto e = caught([&] {
    (void)op->infer(
        std::vector<ValueInfo>{info(ElementType::f32, data), info(filters_type, filters)});
  });
  return e ? e->what() : "";
}

// ---- The reference: the definition, in nested loops over doubles. ----

/// The padding before each spatial axis, and the output's extents, worked out from the
/// specification's formulas for the mode.
struct Resolved {
  std::vector<std::int64_t> out, pad_begin;
};

Resolved resolve(const Conv& c, const Shape& data, const Shape& filters) {
  Resolved r;
  const std::size_t s = c.strides.size();
  for (std::size_t i = 0; i < s; ++i) {
    const std::int64_t in = data[2 + i];
    const std::int64_t k = filters[filters.size() - s + i];
    const std::int64_t window = c.dilations[i] * (k - 1) + 1;
    if (c.auto_pad == "same_upper" || c.auto_pad == "same_lower") {
      const std::int64_t out = (in + c.strides[i] - 1) / c.strides[i];
      const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * c.strides[i] + window - in);
      r.out.push_back(out);
      r.pad_begin.push_back(c.auto_pad == "same_upper" ? total / 2 : (total + 1) / 2);
    } else {
      const bool valid = c.auto_pad == "valid";
      const std::int64_t pb = valid ? 0 : c.pads_begin[i], pe = valid ? 0 : c.pads_end[i];
      r.out.push_back((in + pb + pe - window) / c.strides[i] + 1);
      r.pad_begin.push_back(pb);
    }
  }
  return r;
}

/// y[n][g * cout + o][p...] = sum over input channels c of the group and kernel positions k of
/// x[n][g * cin + c][p * stride + k * dilation - pad] * w[g][o][c][k], zero outside the input.
std::vector<double> reference(const Conv& c, const Tensor& x, const Tensor& w, Shape* out_shape) {
  const Shape& xs = x.shape();
  const Shape& ws = w.shape();
  const std::size_t s = c.strides.size();
  const Resolved r = resolve(c, xs, ws);
  const std::int64_t groups = c.grouped ? ws[0] : 1;
  const std::int64_t cout = ws[c.grouped ? 1 : 0], cin = ws[c.grouped ? 2 : 1];
  // Spatial extents padded to three axes.
  std::int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  std::int64_t st[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pb[3] = {0, 0, 0};
  for (std::size_t i = 0; i < s; ++i) {
    const std::size_t a = 3 - s + i;
    in[a] = xs[2 + i];
    out[a] = r.out[i];
    k[a] = ws[ws.size() - s + i];
    st[a] = c.strides[i];
    dl[a] = c.dilations[i];
    pb[a] = r.pad_begin[i];
  }
  *out_shape = {xs[0], groups * cout};
  out_shape->insert(out_shape->end(), r.out.begin(), r.out.end());
  const std::vector<double> xv = doubles(x), wv = doubles(w);
  std::vector<double> y;
  for (std::int64_t n = 0; n < xs[0]; ++n)
    for (std::int64_t g = 0; g < groups; ++g)
      for (std::int64_t o = 0; o < cout; ++o)
        for (std::int64_t z = 0; z < out[0]; ++z)
          for (std::int64_t h = 0; h < out[1]; ++h)
            for (std::int64_t v = 0; v < out[2]; ++v) {
              double sum = 0;
              for (std::int64_t ci = 0; ci < cin; ++ci)
                for (std::int64_t a = 0; a < k[0]; ++a)
                  for (std::int64_t b = 0; b < k[1]; ++b)
                    for (std::int64_t e = 0; e < k[2]; ++e) {
                      const std::int64_t iz = z * st[0] + a * dl[0] - pb[0];
                      const std::int64_t ih = h * st[1] + b * dl[1] - pb[1];
                      const std::int64_t iv = v * st[2] + e * dl[2] - pb[2];
                      if (iz < 0 || iz >= in[0] || ih < 0 || ih >= in[1] || iv < 0 || iv >= in[2])
                        continue;
                      const std::int64_t channel = g * cin + ci;
                      const double xval = xv[static_cast<std::size_t>(
                          (((n * groups * cin + channel) * in[0] + iz) * in[1] + ih) * in[2] + iv)];
                      const double wval = wv[static_cast<std::size_t>(
                          ((((g * cout + o) * cin + ci) * k[0] + a) * k[1] + b) * k[2] + e)];
                      sum += xval * wval;
                    }
              y.push_back(sum);
            }
  return y;
}

/// The magnitudes' sum behind each reference element: the scale of its rounding error.
std::vector<double> magnitudes(const Conv& c, const Tensor& x, const Tensor& w) {
  const auto absolute = [](const Tensor& t) {
    std::vector<double> v = doubles(t);
    for (double& d : v) d = std::fabs(d);
    return tensor(ElementType::f64, t.shape(), v);
  };
  Shape unused;
  return reference(c, absolute(x), absolute(w), &unused);
}

Tensor random_tensor(std::mt19937& rng, ElementType type, const Shape& shape) {
  std::size_t count = 1;
  for (const std::int64_t d : shape) count *= static_cast<std::size_t>(d);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<double> values(count);
  for (double& v : values) v = value(rng);
  return tensor(type, shape, values);
}

/// Checks `got` against the reference: within the float sum's rounding over the terms'
/// magnitudes, plus one rounding to the output type.
void check_close(const Conv& c, const Tensor& x, const Tensor& w, const Tensor& got) {
  Shape want_shape;
  const std::vector<double> want = reference(c, x, w, &want_shape);
  REQUIRE(to_string(got.shape()) == to_string(want_shape));
  const std::vector<double> scale = magnitudes(c, x, w);
  const std::vector<double> values = doubles(got);
  // Half a unit in the last place of the output type, relative, and below its normal range
  // (f16's subnormals), absolute.
  const bool f16 = got.element_type() == ElementType::f16;
  const double unit = f16                                       ? std::ldexp(1.0, -11)
                      : got.element_type() == ElementType::bf16 ? std::ldexp(1.0, -8)
                                                                : 0.0;
  const double floor = f16 ? std::ldexp(1.0, -25) : 1e-30;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double tolerance = scale[i] * 1e-6 + std::fabs(want[i]) * unit + floor;
    if (!(std::fabs(values[i] - want[i]) <= tolerance))
      FAIL("element " << i << ": got " << values[i] << ", want " << want[i] << " (within "
                      << tolerance << ")");
  }
}

}  // namespace

TEST_CASE("Convolution shape rule: explicit, valid and automatic padding") {
  // ResNet's stem: 7x7, stride 2, pads 3.
  CHECK(shape_of(conv2d(2, 3), "[1,3,224,224]", "[64,3,7,7]") == "[1,64,112,112]");
  CHECK(shape_of(conv2d(1, 0), "[2,3,5,7]", "[4,3,3,3]") == "[2,4,3,5]");
  // Uneven pads and dilation: 10 + 1 + 2 - (2 * 2 + 1) = 8, / 3 + 1 = 3.
  CHECK(shape_of({false, {3, 1}, {2, 1}, {1, 0}, {2, 0}, "explicit"}, "[1,1,10,4]", "[1,1,3,1]") ==
        "[1,1,3,4]");
  // valid ignores the pads; notset reads as explicit.
  CHECK(shape_of(conv2d(1, 5, "valid"), "[1,3,5,7]", "[4,3,3,3]") == "[1,4,3,5]");
  CHECK(shape_of(conv2d(1, 1, "notset"), "[1,3,5,7]", "[4,3,3,3]") == "[1,4,5,7]");
  CHECK(shape_of(conv2d(1, 1, "NOTSET"), "[1,3,5,7]", "[4,3,3,3]") == "[1,4,5,7]");
  // same_*: ceil(in / stride) whatever the kernel and the pads.
  CHECK(shape_of(conv2d(2, 9, "same_upper"), "[1,3,7,8]", "[4,3,3,3]") == "[1,4,4,4]");
  CHECK(shape_of(conv2d(3, 0, "same_lower"), "[1,3,7,9]", "[4,3,5,5]") == "[1,4,3,3]");
  // 1-D and 3-D.
  CHECK(shape_of({false, {2}, {1}, {1}, {1}, "explicit"}, "[1,2,9]", "[3,2,3]") == "[1,3,5]");
  CHECK(shape_of({false, {1, 2, 2}, {1, 1, 1}, {0, 1, 1}, {0, 1, 1}, "explicit"}, "[1,2,4,8,8]",
                 "[5,2,3,3,3]") == "[1,5,2,4,4]");
}

TEST_CASE("Convolution shape rule: dynamic and interval dims, unknown ranks") {
  // A dynamic spatial dim gives a dynamic one; an interval gives its image.
  CHECK(shape_of(conv2d(2, 3), "[?,3,?,224]", "[64,3,7,7]") == "[?,64,?,112]");
  CHECK(shape_of(conv2d(1, 0), "[1,3,10..20,8]", "[4,3,3,3]") == "[1,4,8..18,6]");
  CHECK(shape_of(conv2d(2, 0, "same_upper"), "[1,3,15..,1..9]", "[4,3,3,3]") == "[1,4,8..,1..5]");
  // An interval that allows data smaller than the window starts at 0.
  CHECK(shape_of(conv2d(1, 0), "[1,3,1..6,8]", "[4,3,3,3]") == "[1,4,..4,6]");
  // Unknown channels are not checked; an unknown kernel gives an unknown extent.
  CHECK(shape_of(conv2d(), "[1,?,8,8]", "[4,3,?,3]") == "[1,4,?,6]");
  CHECK(shape_of(conv2d(), "[1,3,8,8]", "[?,3,3,3]") == "[1,?,6,6]");
  // same_* does not need the kernel.
  CHECK(shape_of(conv2d(2, 0, "same_lower"), "[1,3,8,8]", "[4,3,?,?]") == "[1,4,4,4]");
  // Unknown ranks: the strides say how many spatial axes there are.
  CHECK(shape_of(conv2d(), "[...]", "[4,3,3,3]") == "[?,4,?,?]");
  CHECK(shape_of(conv2d(), "[2,3,8,8]", "[...]") == "[2,?,?,?]");
  CHECK(shape_of(conv2d(), "[...]", "[...]") == "[?,?,?,?]");
}

TEST_CASE("GroupConvolution shape rule") {
  Conv c = conv2d(1, 1);
  c.grouped = true;
  // MobileNet's depthwise layer: 32 groups of one channel.
  CHECK(shape_of(c, "[1,32,112,112]", "[32,1,1,3,3]") == "[1,32,112,112]");
  CHECK(shape_of(c, "[2,12,5,5]", "[3,2,4,3,3]") == "[2,6,5,5]");
  // The output channels are groups x per group, also over intervals.
  CHECK(shape_of(c, "[1,?,5,5]", "[2..4,3,?,3,3]") == "[1,6..12,5,5]");
  CHECK(shape_of(c, "[1,?,5,5]", "[?,3,1,3,3]") == "[1,?,5,5]");
  CHECK(shape_of(c, "[...]", "[4,2,1,3,3]") == "[?,8,?,?]");
}

TEST_CASE("Convolution and GroupConvolution errors are located and say what is wrong") {
  Conv group = conv2d();
  group.grouped = true;
  // Channels that do not match.
  CHECK(error_of(conv2d(), "[1,3,8,8]", "[4,2,3,3]") ==
        "input port 1: filters [4,2,3,3] take 2 input channels, but data [1,3,8,8] has 3");
  CHECK(error_of(group, "[1,12,8,8]", "[4,2,2,3,3]") ==
        "input port 1: filters [4,2,2,3,3] take 4 groups of 2 input channels, but data "
        "[1,12,8,8] has 12 channels");
  // Ranks.
  CHECK(error_of(conv2d(), "[1,3]", "[4,3,3,3]") ==
        "input port 0: data must have rank 3, 4 or 5 (N, C and 1 to 3 spatial axes), got [1,3]");
  CHECK(error_of(conv2d(), "[1,3,8,8,8]", "[4,3,3,3]") ==
        "strides has 2 values, but data [1,3,8,8,8] has 3 spatial axes");
  CHECK(error_of(conv2d(), "[1,3,8,8]", "[4,3,3]") ==
        "input port 1: filters must have rank 4 ([C_OUT, C_IN, kernel...]) for 2 spatial axes, "
        "got [4,3,3]");
  CHECK(error_of(group, "[1,3,8,8]", "[3,1,3,3]") ==
        "input port 1: filters must have rank 5 ([GROUPS, C_OUT / GROUPS, C_IN / GROUPS, "
        "kernel...]) for 2 spatial axes, got [3,1,3,3]");
  // A window larger than the padded data; an empty kernel.
  CHECK(error_of(conv2d(1, 1), "[1,3,2,8]", "[4,3,5,3]") ==
        "input port 0: data [1,3,2,8] is smaller along spatial axis 0 (4) than the kernel's "
        "window (5)");
  CHECK(
      error_of({false, {1, 1}, {1, 3}, {0, 0}, {0, 0}, "explicit"}, "[1,3,8,1..6]", "[4,3,3,3]") ==
      "input port 0: data [1,3,8,1..6] is smaller along spatial axis 1 (at most 6) than the "
      "kernel's window (7, dilated)");
  CHECK(error_of(conv2d(), "[1,3,8,8]", "[4,3,0,3]") ==
        "input port 1: filters [4,3,0,3] have an empty kernel axis");
  // Types: the two inputs of one type, and the types the kernels have.
  CHECK(error_of(conv2d(), "[1,3,8,8]", "[4,3,3,3]", ElementType::f16) ==
        "input port 1: filters must have data's element type f32, got f16");
  {
    auto op = conv2d().op();
    const auto e = caught([&] {
      (void)op->infer(std::vector<ValueInfo>{info(ElementType::f64, "[1,3,8,8]"),
                                             info(ElementType::f64, "[4,3,3,3]")});
    });
    REQUIRE(e);
    CHECK(std::string(e->what()) == "input port 0: data must be f32, f16 or bf16, got f64");
  }
}

TEST_CASE("Convolution attributes are checked when the layer is built") {
  const auto built = [](Attrs attrs) -> std::string {
    const auto e = caught([&] { (void)op_def("Convolution", "opset1").create(Attributes(attrs)); });
    return e ? e->what() : "";
  };
  const Attrs good = conv2d().attrs();
  const auto with = [&](const std::string& name, const std::string& value) {
    Attrs a = good;
    for (auto& [n, v] : a)
      if (n == name) v = value;
    return a;
  };
  CHECK(built(good).empty());
  // Real IR spells the lists with spaces.
  CHECK(built(with("pads_begin", "1, 1")).empty());
  CHECK(built(with("strides", "0,1")) == "attribute 'strides' = '0,1': expected positive values");
  CHECK(built(with("strides", "1,1,1,1")) ==
        "attribute 'strides' = '1,1,1,1': expected 1 to 3 values, one per spatial axis");
  CHECK(built(with("dilations", "1")) ==
        "attribute 'dilations' = '1': expected one value per spatial axis, as many as strides has");
  CHECK(built(with("pads_end", "1")) ==
        "attribute 'pads_end' = '1': expected one value per spatial axis, as many as strides has");
  CHECK(built(with("auto_pad", "same")).find("attribute 'auto_pad' = 'same'") == 0);
  // The pads are not used with automatic padding, and not checked either.
  Attrs valid = with("auto_pad", "valid");
  for (auto& [n, v] : valid)
    if (n == "pads_end") v = "";
  CHECK(built(valid).empty());
}

TEST_CASE("Convolution errors in a model name the file, the layer and the port") {
  OpTester t = conv2d().tester();
  t.input_parameter("x", ElementType::f32, ps("[1,3,8,8]"));
  t.input_const("w", tensor(ElementType::f32, {4, 2, 3, 3}, std::vector<double>(72, 0.5)));
  const auto e = caught([&] { (void)t.load(); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::shape);
  CHECK(e->context().layer_name == "conv");
  CHECK(e->context().layer_type == "Convolution-1");
  CHECK(e->context().port == 1);
  CHECK(e->message() == "filters [4,2,3,3] take 2 input channels, but data [1,3,8,8] has 3");
}

TEST_CASE("Convolution and GroupConvolution on small cases worked out by hand") {
  // 1-D, pads 1 on both sides, the filter [1, 0, -1]: x[i - 1] - x[i + 1].
  {
    OpTester t = Conv{false, {1}, {1}, {1}, {1}, "explicit"}.tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 1, 5}, {1, 2, 3, 4, 5}));
    t.input_const("w", tensor(ElementType::f32, {1, 1, 3}, {1, 0, -1}));
    CHECK(doubles(t.run()[0]) == std::vector<double>{-2, -2, -2, -2, 4});
  }
  // 2-D, a 2x2 window of ones over 1..9.
  {
    OpTester t = conv2d().tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
    t.input_const("w", tensor(ElementType::f32, {1, 1, 2, 2}, {1, 1, 1, 1}));
    CHECK(doubles(t.run()[0]) == std::vector<double>{12, 16, 24, 28});
  }
  // Automatic padding with stride 2 over 1..4 and a window of three ones: one element of
  // padding, at the end (same_upper: 1+2+3, 3+4) or the beginning (same_lower: 1+2, 2+3+4).
  for (const auto& [pad, want] : {std::pair<const char*, std::vector<double>>{"same_upper", {6, 7}},
                                  {"same_lower", {3, 9}}}) {
    const char* const mode = pad;  // CAPTURE cannot take a structured binding
    CAPTURE(mode);
    OpTester t = Conv{false, {2}, {1}, {0}, {0}, mode}.tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 1, 4}, {1, 2, 3, 4}));
    t.input_const("w", tensor(ElementType::f32, {1, 1, 3}, {1, 1, 1}));
    CHECK(doubles(t.run()[0]) == want);
  }
  // Dilation 3 with two taps: x[i] + x[i + 3].
  {
    OpTester t = Conv{false, {1}, {3}, {0}, {0}, "explicit"}.tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 1, 5}, {1, 2, 3, 4, 5}));
    t.input_const("w", tensor(ElementType::f32, {1, 1, 2}, {1, 1}));
    CHECK(doubles(t.run()[0]) == std::vector<double>{5, 7});
  }
  // Depthwise: each channel scaled by its own 1x1 filter.
  {
    Conv c = conv2d();
    c.grouped = true;
    OpTester t = c.tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}));
    t.input_const("w", tensor(ElementType::f32, {2, 1, 1, 1, 1}, {2, -1}));
    CHECK(doubles(t.run()[0]) == std::vector<double>{2, 4, 6, 8, -5, -6, -7, -8});
  }
  // Depthwise 3x3 with pads 1 and an infinite right tap, on rows of ones: the tap skips the
  // padding (each row's last column is 2, not inf x 0 = NaN) and adds inf everywhere else. (The
  // depthwise loop; the GEMM paths multiply padding zeros.)
  {
    Conv c = conv2d(1, 1);
    c.grouped = true;
    OpTester t = c.tester();
    const double inf = std::numeric_limits<double>::infinity();
    t.input_parameter("x", tensor(ElementType::f32, {1, 2, 1, 20}, std::vector<double>(40, 1.0)));
    t.input_const("w", tensor(ElementType::f32, {2, 1, 1, 3, 3},
                              {0, 0, 0, 1, 1, inf, 0, 0, 0, 0, 0, 0, 1, 1, inf, 0, 0, 0}));
    std::vector<double> want(40, inf);
    want[19] = want[39] = 2;
    CHECK(doubles(t.run()[0]) == want);
  }
  // Two groups of two channels, one output each: the sums of their own channels.
  {
    Conv c = conv2d();
    c.grouped = true;
    OpTester t = c.tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 4, 1, 1}, {1, 2, 3, 4}));
    t.input_const("w", tensor(ElementType::f32, {2, 1, 2, 1, 1}, {1, 10, 100, 1000}));
    CHECK(doubles(t.run()[0]) == std::vector<double>{21, 4300});
  }
}

namespace {

/// A random geometry: 1 to 3 spatial axes, any padding mode, groups or not.
struct Case {
  Conv conv;
  Shape data, filters;
};

Case random_case(std::mt19937& rng) {
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  Case c;
  const auto spatial = static_cast<std::size_t>(pick(1, 3));
  const char* modes[] = {"explicit", "valid", "same_upper", "same_lower"};
  c.conv.auto_pad = modes[pick(0, 3)];
  const std::int64_t kind = pick(0, 3);  // plain, groups, depthwise, pointwise
  c.conv.grouped = kind == 1 || kind == 2;
  const std::int64_t groups = kind == 1 ? pick(2, 3) : kind == 2 ? pick(2, 6) : 1;
  const std::int64_t cin = kind == 2 ? 1 : pick(1, 5), cout = kind == 2 ? 1 : pick(1, 6);
  c.data = {pick(1, 2), groups * cin};
  c.filters = c.conv.grouped ? Shape{groups, cout, cin} : Shape{cout, cin};
  for (std::size_t i = 0; i < spatial; ++i) {
    const std::int64_t k = kind == 3 ? 1 : pick(1, spatial == 3 ? 2 : 4);
    c.conv.strides.push_back(kind == 3 ? 1 : pick(1, 3));
    c.conv.dilations.push_back(pick(1, 2));
    c.conv.pads_begin.push_back(kind == 3 ? 0 : pick(0, 2));
    c.conv.pads_end.push_back(kind == 3 ? 0 : pick(0, 2));
    const std::int64_t window = c.conv.dilations.back() * (k - 1) + 1;
    c.data.push_back(pick(window, window + (spatial == 3 ? 4 : 9)));
    c.filters.push_back(k);
  }
  if (kind == 3) c.conv.auto_pad = "explicit";
  return c;
}

}  // namespace

TEST_CASE("Convolution and GroupConvolution match a plain loop on random geometries") {
  std::mt19937 rng(20240611);
  for (int trial = 0; trial < 240; ++trial) {
    const Case c = random_case(rng);
    const ElementType types[] = {ElementType::f32, ElementType::f16, ElementType::bf16};
    const ElementType type = types[trial % 3];
    const bool const_filters = trial % 2 == 0;
    CAPTURE(trial);
    CAPTURE(to_string(type));
    CAPTURE(const_filters);
    CAPTURE(to_string(c.data));
    CAPTURE(to_string(c.filters));
    CAPTURE(list(c.conv.strides));
    CAPTURE(list(c.conv.dilations));
    CAPTURE(list(c.conv.pads_begin));
    CAPTURE(list(c.conv.pads_end));
    CAPTURE(c.conv.auto_pad);
    const Tensor x = random_tensor(rng, type, c.data);
    const Tensor w = random_tensor(rng, type, c.filters);
    OpTester t = c.conv.tester();
    t.input_parameter("x", x);
    if (const_filters)
      t.input_const("w", w);
    else
      t.input_parameter("w", w);
    check_close(c.conv, x, w, t.run()[0]);
  }
}

TEST_CASE("Depthwise 3x3, stride 1 or 2, one pixel of padding: every row width and height") {
  // The case whose rows are read in place: the first and last columns skip the taps outside the
  // row, whole vectors cover the columns between (for stride 2, split into even and odd
  // columns), then single columns. Padding after of 0 to 2 pixels, so that the last output rows
  // and columns have one, two or three taps inside, or none.
  std::mt19937 rng(31);
  for (const std::int64_t stride : {1, 2})
    for (const std::int64_t pad_end : {0, 1, 2})
      for (const std::int64_t h : {1, 2, 3, 5})
        for (std::int64_t w = 1; w <= 42; ++w) {
          if (h + 1 + pad_end < 3 || w + 1 + pad_end < 3) continue;  // smaller than the kernel
          Conv c = conv2d(stride, 1);
          c.grouped = true;
          c.pads_end = {pad_end, pad_end};
          const Shape data{1 + w % 2, 3, h, w}, filters{3, 1, 1, 3, 3};
          CAPTURE(stride);
          CAPTURE(pad_end);
          CAPTURE(to_string(data));
          const Tensor x = random_tensor(rng, ElementType::f32, data);
          const Tensor f = random_tensor(rng, ElementType::f32, filters);
          OpTester t = c.tester();
          t.input_parameter("x", x);
          if (w % 3 == 0)
            t.input_parameter("w", f);
          else
            t.input_const("w", f);
          check_close(c, x, f, t.run()[0]);
        }
}

TEST_CASE("Depthwise over the whole map, one output per plane: the general loop's sums") {
  // A kernel as large as the map (no padding before, dilations and strides of 1 or 2, 1 to 3
  // spatial axes) takes a loop of its own, eight planes at a time. Its sums must be the general
  // depthwise loop's, bit for bit: that loop gives the same window as the first of two outputs
  // on a map one column wider.
  std::mt19937 rng(47);
  const ElementType types[] = {ElementType::f32, ElementType::f16, ElementType::bf16};
  int trial = 0;
  for (const std::int64_t groups : {1, 7, 8, 13, 128})
    for (const std::size_t spatial : {1u, 2u, 3u})
      for (const std::int64_t dilation : {1, 2}) {
        const ElementType type = types[trial++ % 3];
        Conv c;
        c.grouped = true;
        Shape kernel, map{1 + trial % 2, groups}, wider, filters{groups, 1, 1};
        for (std::size_t i = 0; i < spatial; ++i) {
          const std::int64_t k = i + 1 == spatial ? 6 : 2;
          c.strides.push_back(1 + (trial + i) % 2);
          c.dilations.push_back(dilation);
          c.pads_begin.push_back(0);
          c.pads_end.push_back(0);
          filters.push_back(k);
          map.push_back((k - 1) * dilation + 1);
        }
        wider = map;
        wider.back() += c.strides.back();
        CAPTURE(to_string(type));
        CAPTURE(to_string(map));
        CAPTURE(list(c.strides));
        CAPTURE(dilation);
        const Tensor f = random_tensor(rng, type, filters);
        const Tensor big = random_tensor(rng, type, wider);
        // The map: the wider map without its last columns.
        Tensor x(type, map);
        const std::int64_t w = map.back(), wide_w = wider.back();
        const std::size_t element = element_size(type);
        const auto rows = static_cast<std::int64_t>(x.size()) / w;
        for (std::int64_t row = 0; row < rows; ++row)
          std::memcpy(static_cast<std::byte*>(x.data()) + row * w * element,
                      static_cast<const std::byte*>(big.data()) + row * wide_w * element,
                      static_cast<std::size_t>(w) * element);
        const auto run = [&](const Tensor& input, bool const_filters) {
          OpTester t = c.tester();
          t.input_parameter("x", input);
          if (const_filters)
            t.input_const("w", f);
          else
            t.input_parameter("w", f);
          return t.run()[0];
        };
        const Tensor one = run(x, trial % 2 == 0), two = run(big, true);
        REQUIRE(one.size() * 2 == two.size());
        check_close(c, x, f, one);
        const std::vector<double> got = doubles(one), general = doubles(two);
        for (std::size_t p = 0; p < got.size(); ++p) {
          CAPTURE(p);
          REQUIRE(std::bit_cast<std::uint64_t>(got[p]) ==
                  std::bit_cast<std::uint64_t>(general[2 * p]));
        }
      }
}

TEST_CASE("Depthwise 3x3 read in place: the sums of the general loop on a padded copy") {
  // The in-place loop skips the taps in the padding (or, in a row's first and last vectors,
  // adds a finite weight times zero); the general loop, given the input already padded with
  // zeros and no padding of its own, adds every tap. Both add in the same order, so the bits
  // must agree.
  std::mt19937 rng(53);
  for (const std::int64_t stride : {1, 2})
    for (const std::int64_t h : {1, 2, 5})
      for (const std::int64_t w : {7, 15, 16, 17, 24, 42, 45}) {
        CAPTURE(stride);
        CAPTURE(h);
        CAPTURE(w);
        const Shape data{2, 3, h, w}, padded_data{2, 3, h + 2, w + 2}, filters{3, 1, 1, 3, 3};
        const Tensor x = random_tensor(rng, ElementType::f32, data);
        const Tensor f = random_tensor(rng, ElementType::f32, filters);
        Tensor padded(ElementType::f32, padded_data);
        for (std::int64_t plane = 0; plane < 6; ++plane)
          for (std::int64_t r = 0; r < h; ++r)
            std::memcpy(padded.data<float>() + (plane * (h + 2) + r + 1) * (w + 2) + 1,
                        x.data<float>() + (plane * h + r) * w,
                        static_cast<std::size_t>(w) * sizeof(float));
        const auto run = [&](const Tensor& input, std::int64_t pad) {
          Conv c = conv2d(stride, pad);
          c.grouped = true;
          OpTester t = c.tester();
          t.input_parameter("x", input);
          t.input_const("w", f);
          return t.run()[0];
        };
        const Tensor in_place = run(x, 1), general = run(padded, 0);
        REQUIRE(in_place.shape() == general.shape());
        CHECK(std::memcmp(in_place.data(), general.data(), in_place.byte_size()) == 0);
      }
}

TEST_CASE("Convolution over many output rows works a block of rows at a time") {
  std::mt19937 rng(7);
  // Random data and Const filters of these shapes, against the reference.
  const auto check = [&](const Conv& c, ElementType type, const Shape& data, const Shape& filters) {
    const Tensor x = random_tensor(rng, type, data);
    const Tensor w = random_tensor(rng, type, filters);
    OpTester t = c.tester();
    t.input_parameter("x", x);
    t.input_const("w", w);
    check_close(c, x, w, t.run()[0]);
  };
  SUBCASE("im2col (bf16)") {
    // 64 channels under a 3x3 kernel, 64 pixels a row: a row of patches is 72 KiB of bf16, so
    // a block holds 14 of the 64 rows and the last block is short.
    check(conv2d(2, 1), ElementType::bf16, {1, 64, 128, 128}, {5, 64, 3, 3});
  }
  SUBCASE("shifted rows (stride 1)") {
    // 64 output channels of 42-wide rows (40 pixels and the 2 of padding) are 10.5 KiB a row,
    // so a block holds 97 of the 130 rows and the last block is short.
    check(conv2d(1, 1), ElementType::f32, {1, 8, 130, 40}, {64, 8, 3, 3});
  }
  SUBCASE("shifted rows (stride 2, in phases)") {
    // 130 x 40 outputs; a phase's rows are 41 wide (the last kernel column reaches one further),
    // so 64 channels make 10.3 KiB a row, a block holds 99 of the 130 rows.
    check(conv2d(2, 1), ElementType::f32, {1, 8, 260, 80}, {64, 8, 3, 3});
  }
}

TEST_CASE("Convolution gives the same bits on any number of threads, filters packed or not") {
  std::mt19937 rng(99);
  struct Geometry {
    Conv conv;
    Shape data, filters;
  };
  Conv depthwise = conv2d(2, 1);
  depthwise.grouped = true;
  Conv same_3x3 = conv2d(1, 1);
  same_3x3.grouped = true;
  Conv grouped = conv2d(1, 1, "same_upper");
  grouped.grouped = true;
  const Geometry geometries[] = {
      {conv2d(1, 0), {2, 40, 17, 19}, {70, 40, 1, 1}},  // pointwise
      {conv2d(1, 0), {1, 24, 9, 40}, {150, 24, 1, 1}},  // pointwise, B's blocks reused
      {conv2d(2, 1), {1, 16, 33, 31}, {40, 16, 3, 3}},  // stride 2: phases (f32), im2col
      {conv2d(2, 1), {1, 64, 80, 80}, {24, 64, 3, 3}},  // the same in several blocks
      {conv2d(3, 2), {1, 6, 31, 29}, {9, 6, 5, 5}},     // stride 3
      {conv2d(1, 1), {1, 8, 130, 40}, {64, 8, 3, 3}},   // shifted rows in several blocks
      {conv2d(1, 2), {1, 5, 9, 11}, {7, 5, 5, 3}},      // shifted rows, one short block
      {conv2d(1, 1), {1, 8, 9, 6}, {16, 8, 3, 3}},      // shifted rows of 6 columns padded
      // Rows that share their padding with the next: the reads past a row's end land on the
      // next row's left padding (none past the output's 8 columns; two of 5x5's four).
      {conv2d(2, 1), {1, 24, 15, 15}, {20, 24, 3, 3}},
      {conv2d(1, 2), {1, 6, 12, 13}, {9, 6, 5, 5}},
      {{false, {1, 1}, {2, 2}, {2, 1}, {2, 3}}, {1, 7, 11, 10}, {5, 7, 3, 3}},  // dilated
      {conv2d(1, 0), {2, 24, 4, 5}, {40, 24, 3, 3}},   // 6 pixels: filters as B on f32
      {conv2d(1, 0), {1, 151, 7, 7}, {6, 151, 3, 3}},  // 25: patches split inside a channel
      {conv2d(1, 0), {1, 70, 1, 1}, {30, 70, 1, 1}},   // 1 pixel, pointwise
      {depthwise, {2, 24, 30, 29}, {24, 1, 1, 3, 3}},  // depthwise, stride 2
      {same_3x3, {2, 24, 30, 29}, {24, 1, 1, 3, 3}},   // depthwise, stride 1: rows in place
      {grouped, {1, 24, 20, 21}, {3, 10, 8, 3, 3}},    // groups
      // 3-D: im2col's rows split over threads inside a channel's kernel positions.
      {{false, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, {1, 5, 8, 10, 16}, {6, 5, 3, 3, 3}},
  };
  for (const Geometry& g : geometries)
    for (const ElementType type : {ElementType::f32, ElementType::bf16}) {
      CAPTURE(to_string(g.data));
      CAPTURE(to_string(g.filters));
      CAPTURE(to_string(type));
      const Tensor x = random_tensor(rng, type, g.data);
      const Tensor w = random_tensor(rng, type, g.filters);
      auto op = g.conv.op();
      const std::vector<Tensor> inputs{x, w};
      const std::vector<OutputInfo> outs = infer_at_run_time(*op, inputs, 1);
      const Tensor one = allocate_and_execute(*op, inputs, outs)[0];
      check_close(g.conv, x, w, one);
      // Filters packed as when the model loads: with the data's shape unknown, and known (on
      // f32 an output of few pixels then takes the filters as the GEMM's B, else as its A).
      const std::vector<ValueInfo> dynamic{info(type, "[...]"), info(w)};
      const std::vector<ValueInfo> known{info(type, to_string(g.data)), info(w)};
      for (const auto* infos : {&dynamic, &known}) {
        const std::shared_ptr<const PreparedData> prepared = op->prepare(*infos);
        REQUIRE(prepared != nullptr);
        for (ThreadPool* pool : test_pools()) {
          const ExecContext context{Parallel(pool)};
          const Tensor split = allocate_and_execute(*op, inputs, outs, context)[0];
          CHECK(std::memcmp(split.data(), one.data(), one.byte_size()) == 0);
          Tensor packed(one.element_type(), one.shape());
          std::vector<Tensor> outputs{packed};
          op->execute_prepared(inputs, outputs, context, *prepared);
          CHECK(std::memcmp(outputs[0].data(), one.data(), one.byte_size()) == 0);
        }
      }
    }
}

TEST_CASE("Convolution through a Session: packed filters, threads and a dynamic input") {
  std::mt19937 rng(5);
  const Conv c = conv2d(2, 1, "same_lower");
  const Tensor w = random_tensor(rng, ElementType::f32, {8, 3, 3, 3});
  OpTester t = c.tester();
  t.input_parameter("x", ElementType::f32, ps("[?,3,?,?]"));
  t.input_const("w", w);
  std::vector<Tensor> results;
  for (const unsigned threads : {1u, 3u}) {
    Session session(t.load(), SessionOptions{.num_threads = threads});
    for (const Shape& shape : {Shape{1, 3, 9, 14}, Shape{2, 3, 16, 5}}) {
      const Tensor x = random_tensor(rng, ElementType::f32, shape);
      const Outputs out = session.run({{"x", x}});
      check_close(c, x, w, out[0].second);
    }
  }
}

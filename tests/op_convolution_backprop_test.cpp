// ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1: the shape rule (explicit, valid
// and automatic padding, output_padding, an output_shape input given as a Const or not, dynamic
// and interval dims, unknown ranks), located errors, small cases worked out by hand, and the
// kernel against the definition's scatter in double (tests/reference) on random geometries
// (1 to 3 spatial axes, strides, dilations, pads, groups, f32, f16 and bf16, filters Const or
// not), with the same bits on every thread count.

#include "graph/op.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/attributes.hpp"
#include "irlite/irlite.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "reference/convolution_backprop.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;

std::string list(const std::vector<std::int64_t>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + std::to_string(values[i]);
  return text;
}

/// One transposed convolution's settings, as a test states them.
struct Deconv {
  bool grouped = false;
  std::vector<std::int64_t> strides, dilations, pads_begin, pads_end, output_padding;
  std::string auto_pad = "explicit";

  const char* type() const {
    return grouped ? "GroupConvolutionBackpropData" : "ConvolutionBackpropData";
  }
  Attrs attrs() const {
    Attrs a{{"strides", list(strides)},
            {"dilations", list(dilations)},
            {"pads_begin", list(pads_begin)},
            {"pads_end", list(pads_end)},
            {"auto_pad", auto_pad}};
    if (!output_padding.empty()) a.emplace_back("output_padding", list(output_padding));
    return a;
  }
  std::unique_ptr<const Op> op() const {
    return op_def(type(), "opset1").create(Attributes(attrs()));
  }
  OpTester tester() const {
    OpTester t(type(), "opset1", "deconv");
    for (const auto& [name, value] : attrs()) t.attr(name, value);
    return t;
  }
};

/// A 2-D one with these strides and pads (dilation 1).
Deconv deconv2d(std::int64_t stride = 1, std::int64_t pad = 0, std::string auto_pad = "explicit") {
  return {false, {stride, stride}, {1, 1}, {pad, pad}, {pad, pad}, {}, std::move(auto_pad)};
}

Deconv grouped(Deconv d) {
  d.grouped = true;
  return d;
}

std::string shape_of(const Deconv& d, const char* data, const char* filters) {
  return to_string(
      infer_outputs(*d.op(), {info(ElementType::f32, data), info(ElementType::f32, filters)})[0]
          .shape);
}

/// With an output_shape input of shape `shape_shape`, its value `value` when given (a Const).
std::string shape_of(const Deconv& d, const char* data, const char* filters,
                     const char* shape_shape, const Tensor* value) {
  return to_string(
      infer_outputs(*d.op(), {info(ElementType::f32, data), info(ElementType::f32, filters),
                              info(ElementType::i64, shape_shape, value)})[0]
          .shape);
}

std::string error_of(const Deconv& d, std::vector<ValueInfo> inputs, Phase phase = Phase::load) {
  auto op = d.op();
  const auto e = caught([&] { (void)op->infer(inputs, phase); });
  return e ? e->what() : "";
}

std::string error_of(const Deconv& d, const char* data, const char* filters) {
  return error_of(d, {info(ElementType::f32, data), info(ElementType::f32, filters)});
}

// ---- The plan the reference runs: the output's extents and the padding, from the
// specification's formulas, worked out here apart from the op. ----

reference::BackpropPlan plan_of(const Deconv& d, const Shape& data, const Shape& filters,
                                const std::optional<std::vector<std::int64_t>>& given) {
  reference::BackpropPlan p;
  p.strides = d.strides;
  p.dilations = d.dilations;
  const std::size_t s = d.strides.size();
  const bool same = d.auto_pad == "same_upper" || d.auto_pad == "same_lower";
  for (std::size_t i = 0; i < s; ++i) {
    const std::int64_t k = filters[filters.size() - s + i];
    const std::int64_t full = (data[2 + i] - 1) * d.strides[i] + d.dilations[i] * (k - 1) + 1;
    const std::int64_t op = d.output_padding.empty() ? 0 : d.output_padding[i];
    const bool explicit_pads = d.auto_pad == "explicit";
    if (given) {
      const std::int64_t out = (*given)[i];
      p.out.push_back(out);
      if (same) {
        const std::int64_t total = std::max<std::int64_t>(0, full + op - out);
        p.pad_begin.push_back(d.auto_pad == "same_upper" ? (total + 1) / 2 : total / 2);
      } else {
        p.pad_begin.push_back(explicit_pads ? d.pads_begin[i] : 0);
      }
    } else {
      const std::int64_t pb = explicit_pads ? d.pads_begin[i] : 0;
      const std::int64_t pe = explicit_pads ? d.pads_end[i] : 0;
      p.out.push_back(full - pb - pe + op);
      p.pad_begin.push_back(pb);
    }
  }
  return p;
}

std::vector<double> expected(const Deconv& d, const Tensor& x, const Tensor& w,
                             const std::optional<std::vector<std::int64_t>>& given, Shape* shape) {
  const reference::BackpropPlan p = plan_of(d, x.shape(), w.shape(), given);
  const std::int64_t groups = d.grouped ? w.shape()[0] : 1;
  const std::int64_t cout = w.shape()[d.grouped ? 2 : 1];
  *shape = {x.shape()[0], groups * cout};
  shape->insert(shape->end(), p.out.begin(), p.out.end());
  return reference::convolution_backprop(doubles(x), x.shape(), doubles(w), w.shape(), groups, p);
}

Tensor absolute(const Tensor& t) {
  std::vector<double> v = doubles(t);
  for (double& d : v) d = std::fabs(d);
  return tensor(ElementType::f64, t.shape(), v);
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
void check_close(const Deconv& d, const Tensor& x, const Tensor& w, const Tensor& got,
                 const std::optional<std::vector<std::int64_t>>& given = std::nullopt) {
  Shape want_shape;
  const std::vector<double> want = expected(d, x, w, given, &want_shape);
  REQUIRE(to_string(got.shape()) == to_string(want_shape));
  Shape unused;
  const std::vector<double> scale = expected(d, absolute(x), absolute(w), given, &unused);
  const std::vector<double> values = doubles(got);
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

TEST_CASE("ConvolutionBackpropData shape rule without output_shape") {
  // (in - 1) * stride + (kernel - 1) * dilation + 1 - pads: a 2x upsampling 4x4 kernel.
  CHECK(shape_of(deconv2d(2, 1), "[1,64,8,8]", "[64,32,4,4]") == "[1,32,16,16]");
  CHECK(shape_of(deconv2d(1, 0), "[2,3,5,7]", "[3,4,3,3]") == "[2,4,7,9]");
  // The specification's examples: stride 2 with pads 1, and stride 3 with output_padding 2.
  CHECK(shape_of(deconv2d(2, 1), "[1,20,224,224]", "[20,10,3,3]") == "[1,10,447,447]");
  CHECK(shape_of({false, {3, 3}, {1, 1}, {0, 0}, {0, 0}, {2, 2}, "explicit"}, "[1,20,2,2]",
                 "[20,10,3,3]") == "[1,10,8,8]");

  // Uneven pads and dilation: (10 - 1) * 3 + 2 * 2 + 1 - 1 - 2 = 29.
  CHECK(shape_of({false, {3, 1}, {2, 1}, {1, 0}, {2, 0}, {}, "explicit"}, "[1,1,10,4]",
                 "[1,1,3,1]") == "[1,1,29,4]");
  // output_padding adds to the end.
  CHECK(shape_of({false, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 0}, "explicit"}, "[1,3,5,5]",
                 "[3,2,3,3]") == "[1,2,10,9]");
  // valid and same_* without output_shape: no padding (OpenVINO's rule), output_padding kept.
  CHECK(shape_of(deconv2d(2, 5, "valid"), "[1,3,5,7]", "[3,4,3,3]") == "[1,4,11,15]");
  CHECK(shape_of(deconv2d(2, 5, "same_upper"), "[1,3,5,7]", "[3,4,3,3]") == "[1,4,11,15]");
  CHECK(shape_of({false, {2, 2}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, "same_lower"}, "[1,3,5,7]",
                 "[3,4,3,3]") == "[1,4,12,16]");
  CHECK(shape_of(deconv2d(1, 1, "notset"), "[1,3,5,7]", "[3,4,3,3]") == "[1,4,5,7]");
  // 1-D and 3-D.
  CHECK(shape_of({false, {2}, {1}, {1}, {1}, {}, "explicit"}, "[1,2,9]", "[2,3,3]") == "[1,3,17]");
  CHECK(shape_of({false, {1, 2, 2}, {1, 1, 1}, {0, 1, 1}, {0, 1, 1}, {}, "explicit"}, "[1,2,4,8,8]",
                 "[2,5,3,3,3]") == "[1,5,6,15,15]");
  // Groups: data channels GROUPS * C_IN, output channels GROUPS * C_OUT.
  CHECK(shape_of(grouped(deconv2d(2, 1)), "[2,12,5,5]", "[3,4,2,4,4]") == "[2,6,10,10]");
}

TEST_CASE("ConvolutionBackpropData shape rule with output_shape") {
  const Tensor given = i64s({9, 12});
  // The values are the spatial extents, whatever the padding mode.
  CHECK(shape_of(deconv2d(2, 1), "[1,3,5,6]", "[3,4,3,3]", "[2]", &given) == "[1,4,9,12]");
  CHECK(shape_of(deconv2d(2, 0, "same_upper"), "[1,3,5,6]", "[3,4,3,3]", "[2]", &given) ==
        "[1,4,9,12]");
  CHECK(shape_of(grouped(deconv2d(2, 0, "valid")), "[?,6,?,?]", "[2,3,5,3,3]", "[2]", &given) ==
        "[?,10,9,12]");
  // Not a Const but with known bounds (as from a ShapeOf): the intervals they give.
  {
    const Tensor lower = i64s({4, 6}), upper = i64s({8, 6});
    ValueInfo bounded = info(ElementType::i64, "[2]");
    bounded.lower = &lower;
    bounded.upper = &upper;
    CHECK(to_string(
              infer_outputs(*deconv2d(2, 1).op(), {info(ElementType::f32, "[1,3,5,6]"),
                                                   info(ElementType::f32, "[3,4,3,3]"), bounded})[0]
                  .shape) == "[1,4,4..8,6]");
  }
  // Not a Const: as many unknown extents as it has values.
  CHECK(shape_of(deconv2d(2, 1), "[1,3,5,6]", "[3,4,3,3]", "[2]", nullptr) == "[1,4,?,?]");
  CHECK(shape_of(deconv2d(2, 1), "[1,3,5,6]", "[3,4,3,3]", "[?]", nullptr) == "[1,4,?,?]");
  CHECK(shape_of(deconv2d(2, 1), "[1,3,5,6]", "[3,4,3,3]", "[...]", nullptr) == "[1,4,?,?]");
}

TEST_CASE("ConvolutionBackpropData shape rule: dynamic and interval dims, unknown ranks") {
  // A dynamic extent is an interval from 0: the output is at least what one element gives.
  CHECK(shape_of(deconv2d(2, 1), "[?,3,?,8]", "[3,4,4,4]") == "[?,4,2..,16]");
  // An interval gives its image: (2..5 - 1) * 2 + 4 - 2 = 4..10.
  CHECK(shape_of(deconv2d(2, 1), "[1,3,2..5,8]", "[3,4,4,4]") == "[1,4,4..10,16]");
  CHECK(shape_of(deconv2d(2, 1), "[1,3,3..,8]", "[3,4,4,4]") == "[1,4,6..,16]");
  // An interval that allows no data starts where one element would put it.
  CHECK(shape_of(deconv2d(1, 0), "[1,3,..4,8]", "[3,4,3,3]") == "[1,4,3..6,10]");
  // Unknown kernel or channels.
  CHECK(shape_of(deconv2d(), "[1,3,8,8]", "[3,4,?,3]") == "[1,4,?,10]");
  CHECK(shape_of(deconv2d(), "[1,?,8,8]", "[3,?,3,3]") == "[1,?,10,10]");
  CHECK(shape_of(grouped(deconv2d()), "[1,?,5,5]", "[2..4,1,3,3,3]") == "[1,6..12,7,7]");
  // Unknown ranks: the strides say how many spatial axes there are.
  CHECK(shape_of(deconv2d(), "[...]", "[3,4,3,3]") == "[?,4,3..,3..]");
  CHECK(shape_of(deconv2d(), "[2,3,8,8]", "[...]") == "[2,?,?,?]");
  CHECK(shape_of(grouped(deconv2d()), "[...]", "[...]") == "[?,?,?,?]");
}

TEST_CASE("ConvolutionBackpropData errors are located and say what is wrong") {
  // Channels that do not match.
  CHECK(error_of(deconv2d(), "[1,3,8,8]", "[2,4,3,3]") ==
        "input port 1: filters [2,4,3,3] take 2 input channels, but data [1,3,8,8] has 3");
  CHECK(error_of(grouped(deconv2d()), "[1,12,8,8]", "[4,2,2,3,3]") ==
        "input port 1: filters [4,2,2,3,3] take 4 groups of 2 input channels, but data "
        "[1,12,8,8] has 12 channels");
  // Ranks.
  CHECK(error_of(deconv2d(), "[1,3]", "[3,4,3,3]") ==
        "input port 0: data must have rank 3, 4 or 5 (N, C and 1 to 3 spatial axes), got [1,3]");
  CHECK(error_of(deconv2d(), "[1,3,8,8,8]", "[3,4,3,3]") ==
        "strides has 2 values, but data [1,3,8,8,8] has 3 spatial axes");
  CHECK(error_of(deconv2d(), "[1,3,8,8]", "[3,4,3]") ==
        "input port 1: filters must have rank 4 ([C_IN, C_OUT, kernel...]) for 2 spatial axes, "
        "got [3,4,3]");
  CHECK(error_of(grouped(deconv2d()), "[1,3,8,8]", "[3,1,3,3]") ==
        "input port 1: filters must have rank 5 ([GROUPS, C_IN / GROUPS, C_OUT / GROUPS, "
        "kernel...]) for 2 spatial axes, got [3,1,3,3]");
  // An empty kernel, empty data, pads that remove the whole output.
  CHECK(error_of(deconv2d(), "[1,3,8,8]", "[3,4,0,3]") ==
        "input port 1: filters [3,4,0,3] have an empty kernel axis");
  CHECK(error_of(deconv2d(), "[1,3,8,0]", "[3,4,3,3]") ==
        "input port 0: data [1,3,8,0] has an empty spatial axis 1");
  CHECK(error_of(deconv2d(1, 2), "[1,3,2,8]", "[3,4,3,3]") ==
        "input port 0: data [1,3,2,8] along spatial axis 0 gives an output of 4 before the pads, "
        "not more than the 4 they remove");
  // Types.
  CHECK(error_of(deconv2d(),
                 {info(ElementType::f32, "[1,3,8,8]"), info(ElementType::f16, "[3,4,3,3]")}) ==
        "input port 1: filters must have data's element type f32, got f16");
  CHECK(error_of(deconv2d(),
                 {info(ElementType::f64, "[1,3,8,8]"), info(ElementType::f64, "[3,4,3,3]")}) ==
        "input port 0: data must be f32, f16 or bf16, got f64");
  CHECK(
      error_of(deconv2d(), {info(ElementType::f32, "[1,3,8,8]"),
                            info(ElementType::f32, "[3,4,3,3]"), info(ElementType::f32, "[2]")}) ==
      "input port 2: output_shape must be i32 or i64, got f32");
  // output_shape: its rank, its length, its values at load and at run time.
  CHECK(error_of(deconv2d(),
                 {info(ElementType::f32, "[1,3,8,8]"), info(ElementType::f32, "[3,4,3,3]"),
                  info(ElementType::i64, "[1,2]")}) ==
        "input port 2: output_shape must be 1-D (the output's spatial extents), got [1,2]");
  CHECK(
      error_of(deconv2d(), {info(ElementType::f32, "[1,3,8,8]"),
                            info(ElementType::f32, "[3,4,3,3]"), info(ElementType::i64, "[3]")}) ==
      "input port 2: output_shape must have 2 values, one per spatial axis, got 3");
  const Tensor negative = i64s({4, -1});
  for (const Phase phase : {Phase::load, Phase::run}) {
    auto op = deconv2d().op();
    const auto e = caught([&] {
      (void)op->infer(std::vector<ValueInfo>{info(ElementType::f32, "[1,3,8,8]"),
                                             info(ElementType::f32, "[3,4,3,3]"),
                                             info(ElementType::i64, "[2]", &negative)},
                      phase);
    });
    REQUIRE(e);
    CHECK(e->code() == (phase == Phase::load ? ErrorCode::shape : ErrorCode::value));
    CHECK(e->context().port == 2);
    CHECK(e->message() == "output_shape has a negative extent -1 at index 1");
  }
}

TEST_CASE("ConvolutionBackpropData attributes are checked when the layer is built") {
  const auto built = [](Attrs attrs) -> std::string {
    const auto e = caught(
        [&] { (void)op_def("ConvolutionBackpropData", "opset1").create(Attributes(attrs)); });
    return e ? e->what() : "";
  };
  const Attrs good = deconv2d().attrs();
  const auto with = [&](const std::string& name, const std::string& value) {
    Attrs a = good;
    bool found = false;
    for (auto& [n, v] : a)
      if (n == name) {
        v = value;
        found = true;
      }
    if (!found) a.emplace_back(name, value);
    return a;
  };
  CHECK(built(good).empty());
  CHECK(built(with("output_padding", "1, 0")).empty());
  CHECK(built(with("output_padding", "")).empty());
  CHECK(built(with("output_padding", "1")) ==
        "attribute 'output_padding' = '1': expected one value per spatial axis, as many as "
        "strides has");
  CHECK(built(with("strides", "0,1")) == "attribute 'strides' = '0,1': expected positive values");
  CHECK(built(with("dilations", "1")) ==
        "attribute 'dilations' = '1': expected one value per spatial axis, as many as strides has");
  CHECK(built(with("pads_begin", "1")) ==
        "attribute 'pads_begin' = '1': expected one value per spatial axis, as many as strides "
        "has");
  CHECK(built(with("auto_pad", "same")).find("attribute 'auto_pad' = 'same'") == 0);
}

TEST_CASE("ConvolutionBackpropData errors in a model name the layer and the port") {
  OpTester t = deconv2d().tester();
  t.input_parameter("x", ElementType::f32, ps("[1,3,8,8]"));
  t.input_const("w", tensor(ElementType::f32, {2, 4, 3, 3}, std::vector<double>(72, 0.5)));
  const auto e = caught([&] { (void)t.load(); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::shape);
  CHECK(e->context().layer_name == "deconv");
  CHECK(e->context().layer_type == "ConvolutionBackpropData-1");
  CHECK(e->context().port == 1);
  CHECK(e->message() == "filters [2,4,3,3] take 2 input channels, but data [1,3,8,8] has 3");
}

TEST_CASE("ConvolutionBackpropData on small cases worked out by hand") {
  // 1-D, stride 2, three ones over 1, 2, 3: x0 lands on 0..2, x1 on 2..4, x2 on 4..6.
  const auto run_1d = [](Deconv d, std::optional<std::vector<std::int64_t>> given) {
    OpTester t = d.tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 1, 3}, {1, 2, 3}));
    t.input_const("w", tensor(ElementType::f32, {1, 1, 3}, {1, 1, 1}));
    if (given) t.input_const("s", i64s(*given));
    return doubles(t.run()[0]);
  };
  const Deconv plain{false, {2}, {1}, {0}, {0}, {}, "explicit"};
  CHECK(run_1d(plain, std::nullopt) == std::vector<double>{1, 1, 3, 2, 5, 3, 3});
  // Pads cut both ends; output_padding adds a position past the full output, which nothing
  // lands on unless the pads at the end removed it.
  CHECK(run_1d({false, {2}, {1}, {1}, {1}, {}, "explicit"}, std::nullopt) ==
        std::vector<double>{1, 3, 2, 5, 3});
  CHECK(run_1d({false, {2}, {1}, {0}, {0}, {1}, "explicit"}, std::nullopt) ==
        std::vector<double>{1, 1, 3, 2, 5, 3, 3, 0});
  CHECK(run_1d({false, {2}, {1}, {1}, {1}, {1}, "explicit"}, std::nullopt) ==
        std::vector<double>{1, 3, 2, 5, 3, 3});
  // Explicit pads with output_shape: the pads at the beginning, then as many as asked.
  CHECK(run_1d({false, {2}, {1}, {2}, {0}, {}, "explicit"}, std::vector<std::int64_t>{3}) ==
        std::vector<double>{3, 2, 5});
  // same_*: the 7 trimmed to 4, the odd one of the 3 removed at the beginning for same_upper,
  // at the end for same_lower.
  CHECK(run_1d({false, {2}, {1}, {0}, {0}, {}, "same_upper"}, std::vector<std::int64_t>{4}) ==
        std::vector<double>{3, 2, 5, 3});
  CHECK(run_1d({false, {2}, {1}, {0}, {0}, {}, "same_lower"}, std::vector<std::int64_t>{4}) ==
        std::vector<double>{1, 3, 2, 5});
  // same_* without output_shape: no padding.
  CHECK(run_1d({false, {2}, {1}, {0}, {0}, {}, "same_upper"}, std::nullopt) ==
        std::vector<double>{1, 1, 3, 2, 5, 3, 3});
  // Larger than the full output: zeros past it.
  CHECK(run_1d({false, {2}, {1}, {0}, {0}, {}, "valid"}, std::vector<std::int64_t>{9}) ==
        std::vector<double>{1, 1, 3, 2, 5, 3, 3, 0, 0});
  // output_shape as i32, and an empty output.
  {
    OpTester t = Deconv{false, {2}, {1}, {0}, {0}, {}, "same_upper"}.tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 1, 3}, {1, 2, 3}));
    t.input_const("w", tensor(ElementType::f32, {1, 1, 3}, {1, 1, 1}));
    t.input_parameter("s", tensor(ElementType::i32, {1}, {4}));
    CHECK(doubles(t.run()[0]) == std::vector<double>{3, 2, 5, 3});
  }
  {
    OpTester t = Deconv{false, {2}, {1}, {0}, {0}, {}, "explicit"}.tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 1, 3}, {1, 2, 3}));
    t.input_const("w", tensor(ElementType::f32, {1, 1, 3}, {1, 1, 1}));
    t.input_parameter("s", tensor(ElementType::i64, {1}, {0}));
    CHECK(to_string(t.run()[0].shape()) == "[1,1,0]");
  }
  // No terms: data with an empty spatial axis, or no channels, gives zeros (every element
  // written: the output starts as junk).
  {
    auto op = Deconv{false, {2}, {1}, {0}, {0}, {}, "explicit"}.op();
    const Tensor out =
        run(*op, {tensor(ElementType::f32, {1, 1, 0}, {}),
                  tensor(ElementType::f32, {1, 2, 3}, {1, 1, 1, 1, 1, 1}), i64s({3})});
    CHECK(to_string(out.shape()) == "[1,2,3]");
    CHECK(doubles(out) == std::vector<double>(6, 0.0));
    const Tensor none = run(
        *op, {tensor(ElementType::bf16, {2, 0, 2}, {}), tensor(ElementType::bf16, {0, 1, 2}, {})});
    CHECK(to_string(none.shape()) == "[2,1,4]");
    CHECK(doubles(none) == std::vector<double>(8, 0.0));
  }
  // Dilation 2, two taps [1, 10] over 1, 2 with stride 1: 1, 2, 10, 20.
  {
    OpTester t = Deconv{false, {1}, {2}, {0}, {0}, {}, "explicit"}.tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 1, 2}, {1, 2}));
    t.input_const("w", tensor(ElementType::f32, {1, 1, 2}, {1, 10}));
    CHECK(doubles(t.run()[0]) == std::vector<double>{1, 2, 10, 20});
  }
  // Two groups, each of two input channels and one output channel, 1x1 kernels: each output
  // channel sums its own group's channels, weighted.
  {
    OpTester t = grouped(deconv2d()).tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 4, 1, 1}, {1, 2, 3, 4}));
    t.input_const("w", tensor(ElementType::f32, {2, 2, 1, 1, 1}, {1, 10, 100, 1000}));
    CHECK(doubles(t.run()[0]) == std::vector<double>{21, 4300});
  }
  // Two output channels from one input channel, 2x2 stride 2: each pixel becomes a 2x2 block.
  {
    OpTester t = deconv2d(2, 0).tester();
    t.input_parameter("x", tensor(ElementType::f32, {1, 1, 1, 2}, {1, 2}));
    t.input_const("w", tensor(ElementType::f32, {1, 2, 2, 2}, {1, 2, 3, 4, -1, -2, -3, -4}));
    CHECK(doubles(t.run()[0]) ==
          std::vector<double>{1, 2, 2, 4, 3, 4, 6, 8, -1, -2, -2, -4, -3, -4, -6, -8});
  }
}

namespace {

struct Case {
  Deconv deconv;
  Shape data, filters;
  std::optional<std::vector<std::int64_t>> given;
};

Case random_case(std::mt19937& rng) {
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  Case c;
  const auto spatial = static_cast<std::size_t>(pick(1, 3));
  const char* modes[] = {"explicit", "valid", "same_upper", "same_lower"};
  c.deconv.auto_pad = modes[pick(0, 3)];
  const std::int64_t kind = pick(0, 2);  // plain, groups, one channel per group
  c.deconv.grouped = kind != 0;
  const std::int64_t groups = kind == 1 ? pick(2, 3) : kind == 2 ? pick(2, 5) : 1;
  const std::int64_t cin = kind == 2 ? 1 : pick(1, 5), cout = kind == 2 ? 1 : pick(1, 5);
  c.data = {pick(1, 2), groups * cin};
  c.filters = c.deconv.grouped ? Shape{groups, cin, cout} : Shape{cin, cout};
  const bool with_output_padding = pick(0, 2) == 0;
  const bool given = pick(0, 2) == 0;
  std::vector<std::int64_t> extents;
  for (std::size_t i = 0; i < spatial; ++i) {
    const std::int64_t k = pick(1, spatial == 3 ? 3 : 4);
    const std::int64_t stride = pick(1, 3), dilation = pick(1, 2);
    const std::int64_t in = pick(1, spatial == 3 ? 4 : 7);
    c.deconv.strides.push_back(stride);
    c.deconv.dilations.push_back(dilation);
    const std::int64_t full = (in - 1) * stride + dilation * (k - 1) + 1;
    // Pads that leave at least one element.
    const std::int64_t pb = pick(0, std::min<std::int64_t>(2, (full - 1) / 2));
    const std::int64_t pe = pick(0, std::min<std::int64_t>(2, (full - 1) / 2));
    c.deconv.pads_begin.push_back(pb);
    c.deconv.pads_end.push_back(pe);
    c.deconv.output_padding.push_back(with_output_padding ? pick(0, stride - 1) : 0);
    extents.push_back(pick(1, full + 2));
    c.data.push_back(in);
    c.filters.push_back(k);
  }
  if (!with_output_padding) c.deconv.output_padding.clear();
  if (given) c.given = extents;
  return c;
}

}  // namespace

TEST_CASE("ConvolutionBackpropData matches the definition on random geometries") {
  std::mt19937 rng(20261126);
  for (int trial = 0; trial < 300; ++trial) {
    const Case c = random_case(rng);
    const ElementType types[] = {ElementType::f32, ElementType::f16, ElementType::bf16};
    const ElementType type = types[trial % 3];
    const bool const_filters = trial % 2 == 0;
    CAPTURE(trial);
    CAPTURE(to_string(type));
    CAPTURE(const_filters);
    CAPTURE(c.deconv.type());
    CAPTURE(to_string(c.data));
    CAPTURE(to_string(c.filters));
    CAPTURE(list(c.deconv.strides));
    CAPTURE(list(c.deconv.dilations));
    CAPTURE(list(c.deconv.pads_begin));
    CAPTURE(list(c.deconv.pads_end));
    CAPTURE(list(c.deconv.output_padding));
    CAPTURE(c.deconv.auto_pad);
    CAPTURE(c.given ? list(*c.given) : std::string("none"));
    const Tensor x = random_tensor(rng, type, c.data);
    const Tensor w = random_tensor(rng, type, c.filters);
    OpTester t = c.deconv.tester();
    t.input_parameter("x", x);
    if (const_filters)
      t.input_const("w", w);
    else
      t.input_parameter("w", w);
    if (c.given) {
      // A Const's values are read when the model loads, a Parameter's at every run.
      if (trial % 4 < 2)
        t.input_const("s", i64s(*c.given));
      else
        t.input_parameter("s", i64s(*c.given));
    }
    check_close(c.deconv, x, w, t.run()[0], c.given);
  }
}

TEST_CASE("ConvolutionBackpropData gives the same bits on any number of threads") {
  std::mt19937 rng(41);
  struct Geometry {
    Deconv deconv;
    Shape data, filters;
  };
  const Geometry geometries[] = {
      {deconv2d(2, 1), {2, 16, 17, 19}, {16, 12, 4, 4}},
      {deconv2d(1, 1), {1, 24, 20, 21}, {24, 8, 3, 3}},
      {grouped(deconv2d(2, 0, "valid")), {1, 12, 15, 13}, {3, 4, 5, 3, 3}},
      {{false, {2, 1, 3}, {1, 2, 1}, {1, 0, 1}, {0, 1, 2}, {1, 0, 2}, "explicit"},
       {1, 5, 6, 7, 8},
       {5, 6, 3, 2, 4}},
  };
  for (const Geometry& g : geometries)
    for (const ElementType type : {ElementType::f32, ElementType::bf16}) {
      CAPTURE(to_string(g.data));
      CAPTURE(to_string(type));
      const Tensor x = random_tensor(rng, type, g.data);
      const Tensor w = random_tensor(rng, type, g.filters);
      auto op = g.deconv.op();
      const std::vector<Tensor> inputs{x, w};
      const std::vector<OutputInfo> outs = infer_at_run_time(*op, inputs, 1);
      const Tensor one = allocate_and_execute(*op, inputs, outs)[0];
      check_close(g.deconv, x, w, one);
      // Filters packed as when the model loads.
      const std::vector<ValueInfo> infos{info(type, "[...]"), info(w)};
      const std::shared_ptr<const PreparedData> prepared = op->prepare(infos);
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

TEST_CASE("ConvolutionBackpropData through a Session: threads, dynamic data and output_shape") {
  std::mt19937 rng(6);
  const Deconv d = grouped(deconv2d(2, 0, "same_lower"));
  const Tensor w = random_tensor(rng, ElementType::f32, {2, 3, 4, 3, 3});
  OpTester t = d.tester();
  t.input_parameter("x", ElementType::f32, ps("[?,6,?,?]"));
  t.input_const("w", w);
  t.input_parameter("s", ElementType::i64, ps("[2]"));
  for (const unsigned threads : {1u, 3u}) {
    Session session(t.load(), SessionOptions{.num_threads = threads});
    for (const auto& [shape, given] :
         {std::pair<Shape, std::vector<std::int64_t>>{{1, 6, 9, 14}, {18, 28}},
          {{2, 6, 5, 4}, {11, 7}}}) {
      const Tensor x = random_tensor(rng, ElementType::f32, shape);
      const Outputs out = session.run({{"x", x}, {"s", i64s(given)}});
      check_close(d, x, w, out[0].second, given);
    }
  }
}

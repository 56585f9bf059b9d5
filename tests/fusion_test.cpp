// The load-time fusion of element-wise layers into the convolution or Add before them
// (LoadOptions::fuse_layers): the outputs are the same bits as with every layer run alone, the
// fused layers are named in Model::layers() and in profiles, and what must not fuse does not.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "graph_builder.hpp"
#include "irlite/irlite.hpp"
#include "tensors.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

/// Values in [-2, 2), some of them exactly 0 and some negative zeros.
Tensor random_f32(const Shape& shape, std::mt19937& rng) {
  std::uniform_real_distribution<double> d(-2, 2);
  std::vector<double> v(static_cast<std::size_t>(*element_count(shape)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i % 11 == 3 ? (i % 2 ? -0.0 : 0.0) : d(rng);
  return tensor(ElementType::f32, shape, v);
}

LoadOptions unfused() {
  LoadOptions o;
  o.fuse_layers = false;
  return o;
}

/// Runs `model` on `inputs` with `threads` threads, profiled.
Outputs run(const Model& model, const std::map<std::string, Tensor>& inputs, unsigned threads,
            RunProfile* profile = nullptr) {
  SessionOptions options;
  options.num_threads = threads;
  options.profile = profile != nullptr;
  Session session(model, options);
  Outputs out = session.run(inputs);
  if (profile) *profile = session.profile();
  return out;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.element_type() == b.element_type() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.byte_size()) == 0;
}

/// The index in `model.layers()` of the layer named `name`.
std::size_t layer_index(const Model& model, const std::string& name) {
  const auto& layers = model.layers();
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (layers[i].name == name) return i;
  FAIL("no layer " << name);
  return 0;
}

/// Layer "conv": a Convolution of x by filters w with a 1x1 kernel (stride 1, no padding),
/// whose output is `type`.
GraphBuilder::Port pointwise_conv(GraphBuilder& g, const GraphBuilder::Port& x,
                                  const GraphBuilder::Port& w,
                                  ElementType type = ElementType::f32) {
  return g.layer(
      "Convolution", "opset1",
      {{"strides", "1,1"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"dilations", "1,1"}},
      {x, w}, {type}, "conv")[0];
}

/// x [N, C_IN, 9, width] -> a convolution (GroupConvolution with `groups` > 1) to `channels`
/// channels -> bias Add [1, C, 1, 1] -> Relu -> Multiply [C, 1, 1] -> Add of one value ->
/// PReLU with a slope per channel -> Result y.
GraphBuilder conv_chain(std::int64_t groups, std::int64_t in_channels, std::int64_t channels,
                        const std::string& strides, std::int64_t width, std::mt19937& rng) {
  GraphBuilder g;
  const auto x = g.parameter("x", ElementType::f32, PartialShape{2, in_channels, 9, width});
  Shape filters = {channels, in_channels, 3, 3};
  std::string type = "Convolution";
  if (groups > 1) {
    filters = {groups, channels / groups, in_channels / groups, 3, 3};
    type = "GroupConvolution";
  }
  const auto w = g.constant("w", random_f32(filters, rng));
  const auto conv = g.layer(
      type, "opset1",
      {{"strides", strides}, {"pads_begin", "1,1"}, {"pads_end", "1,0"}, {"dilations", "1,1"}},
      {x, w}, {ElementType::f32}, "conv");
  const auto bias = g.constant("bias", random_f32({1, channels, 1, 1}, rng));
  const auto add = g.layer("Add", "opset1", {}, {conv[0], bias}, {ElementType::f32}, "bias_add");
  const auto relu = g.layer("Relu", "opset1", {}, {add[0]}, {ElementType::f32}, "relu");
  const auto scale = g.constant("scale", random_f32({channels, 1, 1}, rng));
  // The Const first: a Multiply reads its inputs in either order.
  const auto mul = g.layer("Multiply", "opset1", {}, {scale, relu[0]}, {ElementType::f32}, "mul");
  const auto shift = g.constant("shift", tensor(ElementType::f32, {1}, {-0.75}));
  const auto add2 = g.layer("Add", "opset1", {}, {mul[0], shift}, {ElementType::f32}, "shift_add");
  const auto slope = g.constant("slope", random_f32({channels}, rng));
  const auto prelu = g.layer("PReLU", "opset1", {}, {add2[0], slope}, {ElementType::f32}, "prelu");
  g.result(prelu[0], "y");
  return g;
}

/// Runs the fused model on 1 and 3 threads: output `out` has the bits of the layers run alone,
/// and one compute layer ran, `head`. Returns the names of the layers it took in.
std::vector<std::string> check_one_layer(const GraphBuilder& g, const Model& fused,
                                         const std::map<std::string, Tensor>& inputs,
                                         const std::string& out, const std::string& head) {
  const Tensor want = run(g.load(unfused()), inputs, 1).at(out);
  std::vector<std::string> names;
  for (unsigned threads : {1u, 3u}) {
    RunProfile profile;
    CHECK(same_bits(run(fused, inputs, threads, &profile).at(out), want));
    REQUIRE(profile.layers.size() == 1);
    CHECK(profile.layers[0].name == head);
    names.clear();
    for (std::size_t f : profile.layers[0].fused_layers) names.push_back(fused.layers()[f].name);
  }
  return names;
}

}  // namespace

TEST_CASE("fusion: a convolution's element-wise tail runs in its kernel, the same bits") {
  std::mt19937 rng(7);
  struct Case {
    std::int64_t groups, in_channels, channels;
    std::string strides;
    std::int64_t width = 7;
  };
  // A plain convolution, one with stride 2, grouped (a GEMM per group), depthwise (the general
  // loop, and 3x3 read in place with stride 1 and 2, whose sums take the steps before they are
  // stored: rows of 45 for vectors, the vector that ends the inner columns, and edges).
  for (const Case& c : {Case{1, 5, 6, "1,1"}, Case{1, 4, 3, "2,2"}, Case{2, 4, 6, "1,1"},
                        Case{8, 8, 8, "1,2"}, Case{8, 8, 8, "1,1", 45}, Case{8, 8, 8, "2,2", 45}}) {
    CAPTURE(c.groups);
    CAPTURE(c.strides);
    CAPTURE(c.width);
    const GraphBuilder g = conv_chain(c.groups, c.in_channels, c.channels, c.strides, c.width, rng);
    const Model fused = g.load();
    const Model alone = g.load(unfused());
    const std::map<std::string, Tensor> inputs{
        {"x", random_f32({2, c.in_channels, 9, c.width}, rng)}};
    const Tensor want = run(alone, inputs, 1).at("y");
    for (unsigned threads : {1u, 3u}) {
      RunProfile profile;
      const Outputs got = run(fused, inputs, threads, &profile);
      CHECK(same_bits(got.at("y"), want));
      // One compute layer ran, naming the five it took in.
      REQUIRE(profile.layers.size() == 1);
      CHECK(profile.layers[0].name == "conv");
      std::vector<std::string> names;
      for (std::size_t f : profile.layers[0].fused_layers) names.push_back(fused.layers()[f].name);
      CHECK(names == std::vector<std::string>{"bias_add", "relu", "mul", "shift_add", "prelu"});
    }
    const std::size_t conv = layer_index(fused, "conv");
    CHECK(fused.layers()[layer_index(fused, "prelu")].fused_into == conv);
    CHECK_FALSE(fused.layers()[conv].fused_into);
    CHECK_FALSE(alone.layers()[layer_index(alone, "prelu")].fused_into);
  }
}

TEST_CASE("fusion: the layers after an Add of two tensors run in its kernel, the same bits") {
  // A residual connection: x + y, then PReLU, Relu and a scale per channel. Inputs of one shape
  // are summed plane by plane (63 floats: whole vectors and a tail); a broadcast y takes the
  // plain kernel, then the steps.
  std::mt19937 rng(13);
  const auto build = [&](const std::string& type, const Shape& y_shape) {
    GraphBuilder g;
    const auto x = g.parameter("x", ElementType::f32, PartialShape{2, 5, 9, 7});
    const auto y = g.parameter("y", ElementType::f32, PartialShape::from_shape(y_shape));
    const auto sum = g.layer(type, "opset1", {}, {x, y}, {ElementType::f32}, "sum");
    const auto slope = g.constant("slope", random_f32({5}, rng));
    const auto prelu = g.layer("PReLU", "opset1", {}, {sum[0], slope}, {ElementType::f32}, "prelu");
    const auto relu = g.layer("Relu", "opset1", {}, {prelu[0]}, {ElementType::f32}, "relu");
    const auto scale = g.constant("scale", random_f32({1, 5, 1, 1}, rng));
    const auto mul = g.layer("Multiply", "opset1", {}, {relu[0], scale}, {ElementType::f32}, "mul");
    g.result(mul[0], "out");
    return g;
  };
  for (const Shape& y_shape : {Shape{2, 5, 9, 7}, Shape{1, 5, 1, 7}}) {
    CAPTURE(to_string(y_shape));
    const GraphBuilder g = build("Add", y_shape);
    const Model fused = g.load();
    const std::map<std::string, Tensor> inputs{{"x", random_f32({2, 5, 9, 7}, rng)},
                                               {"y", random_f32(y_shape, rng)}};
    CHECK(check_one_layer(g, fused, inputs, "out", "sum") ==
          std::vector<std::string>{"prelu", "relu", "mul"});
  }
  // Only Add takes steps: after a Subtract they stay layers of their own.
  const Model subtract = build("Subtract", {2, 5, 9, 7}).load();
  CHECK_FALSE(subtract.layers()[layer_index(subtract, "prelu")].fused_into);
}

TEST_CASE("fusion: the Add of a tensor computed before the convolution runs in its kernel") {
  // A residual connection: skip = Relu(x) (or x itself), then x -> convolution (same channels
  // and size) -> bias Add -> Add of skip -> PReLU. A 1x1 convolution on a map of 32 pixels or
  // more sums where its output lies, and its GEMM adds skip in its epilogue; the other kernels
  // (3x3, grouped, depthwise, few pixels) run the steps from that Add on after they finish.
  std::mt19937 rng(17);
  struct Case {
    std::int64_t groups, channels, kernel, height, width;
    bool skip_is_x;
  };
  for (const Case& c :
       {Case{1, 6, 1, 9, 7, false}, Case{1, 6, 1, 9, 7, true}, Case{1, 6, 1, 4, 5, false},
        Case{1, 5, 3, 9, 7, false}, Case{2, 6, 3, 9, 7, false}, Case{6, 6, 3, 9, 7, false},
        // Depthwise on planes of 2,400 outputs: the steps before the Add run on spans of rows
        // that end inside a plane too.
        Case{6, 6, 3, 50, 48, false}}) {
    CAPTURE(c.groups);
    CAPTURE(c.kernel);
    CAPTURE(c.height);
    CAPTURE(c.skip_is_x);
    const Shape shape = {2, c.channels, c.height, c.width};
    GraphBuilder g;
    const auto x = g.parameter("x", ElementType::f32, PartialShape::from_shape(shape));
    const auto skip =
        c.skip_is_x ? x : g.layer("Relu", "opset1", {}, {x}, {ElementType::f32}, "skip")[0];
    Shape filters = {c.channels, c.channels, c.kernel, c.kernel};
    std::string type = "Convolution";
    if (c.groups > 1) {
      filters = {c.groups, c.channels / c.groups, c.channels / c.groups, c.kernel, c.kernel};
      type = "GroupConvolution";
    }
    const std::string pad = c.kernel == 3 ? "1,1" : "0,0";
    const auto w = g.constant("w", random_f32(filters, rng));
    const auto conv =
        g.layer(type, "opset1",
                {{"strides", "1,1"}, {"pads_begin", pad}, {"pads_end", pad}, {"dilations", "1,1"}},
                {x, w}, {ElementType::f32}, "conv");
    const auto bias = g.constant("bias", random_f32({1, c.channels, 1, 1}, rng));
    const auto add = g.layer("Add", "opset1", {}, {conv[0], bias}, {ElementType::f32}, "bias_add");
    // The skip first: an Add reads its inputs in either order.
    const auto sum = g.layer("Add", "opset1", {}, {skip, add[0]}, {ElementType::f32}, "residual");
    const auto slope = g.constant("slope", random_f32({c.channels}, rng));
    const auto prelu = g.layer("PReLU", "opset1", {}, {sum[0], slope}, {ElementType::f32}, "prelu");
    g.result(prelu[0], "y");
    const Model fused = g.load();
    const std::map<std::string, Tensor> inputs{{"x", random_f32(shape, rng)}};
    const Tensor want = run(g.load(unfused()), inputs, 1).at("y");
    for (unsigned threads : {1u, 3u}) {
      RunProfile profile;
      CHECK(same_bits(run(fused, inputs, threads, &profile).at("y"), want));
      REQUIRE(profile.layers.size() == (c.skip_is_x ? 1u : 2u));
      const LayerProfile& layer = profile.layers.back();
      CHECK(layer.name == "conv");
      std::vector<std::string> names;
      for (std::size_t f : layer.fused_layers) names.push_back(fused.layers()[f].name);
      CHECK(names == std::vector<std::string>{"bias_add", "residual", "prelu"});
    }
  }
  // A tensor computed after the convolution cannot be added in its kernel: the chain stops
  // before that Add.
  GraphBuilder g;
  const auto x = g.parameter("x", ElementType::f32, PartialShape{1, 4, 8, 8});
  const auto w = g.constant("w", random_f32({4, 4, 1, 1}, rng));
  const auto conv = pointwise_conv(g, x, w);
  const auto relu = g.layer("Relu", "opset1", {}, {conv}, {ElementType::f32}, "relu");
  const auto later = g.layer("Sigmoid", "opset1", {}, {x}, {ElementType::f32}, "later");
  const auto sum = g.layer("Add", "opset1", {}, {relu[0], later[0]}, {ElementType::f32}, "sum");
  g.result(sum[0], "y");
  const Model model = g.load();
  CHECK(model.layers()[layer_index(model, "relu")].fused_into == layer_index(model, "conv"));
  CHECK_FALSE(model.layers()[layer_index(model, "sum")].fused_into);
  const std::map<std::string, Tensor> inputs{{"x", random_f32({1, 4, 8, 8}, rng)}};
  CHECK(same_bits(run(model, inputs, 2).at("y"), run(g.load(unfused()), inputs, 1).at("y")));
}

TEST_CASE("fusion: what cannot run in the kernel stays a layer of its own") {
  std::mt19937 rng(11);
  const auto build = [&](const std::string& variant) {
    GraphBuilder g;
    const auto x = g.parameter("x", ElementType::f32, PartialShape{1, 3, 5, 4});
    const auto w = g.constant("w", random_f32({4, 3, 1, 1}, rng));
    const auto conv = pointwise_conv(g, x, w);
    GraphBuilder::Port other = g.constant("per_column", random_f32({1, 1, 1, 4}, rng));
    if (variant == "parameter")
      other = g.parameter("b", ElementType::f32, PartialShape{1, 4, 1, 1});
    if (variant == "grows") other = g.constant("grows", random_f32({2, 4, 1, 1}, rng));
    if (variant == "per_channel") other = g.constant("bias", random_f32({4, 1, 1}, rng));
    const auto add = g.layer("Add", "opset1", {}, {conv, other}, {ElementType::f32}, "add");
    g.result(add[0], "y");
    // A second reader of the convolution's output: nothing may fuse into it.
    if (variant == "read_twice") g.result(conv, "conv_out");
    return g;
  };
  for (const std::string variant : {"per_column", "parameter", "grows", "read_twice"}) {
    CAPTURE(variant);
    const GraphBuilder g = build(variant);
    const Model model = g.load();
    CHECK_FALSE(model.layers()[layer_index(model, "add")].fused_into);
    std::map<std::string, Tensor> inputs{{"x", random_f32({1, 3, 5, 4}, rng)}};
    if (variant == "parameter") inputs.emplace("b", random_f32({1, 4, 1, 1}, rng));
    const Outputs got = run(model, inputs, 2);
    const Outputs want = run(g.load(unfused()), inputs, 1);
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(same_bits(got[i].second, want[i].second));
  }
  // The control: the same model with a bias per channel does fuse.
  const Model model = build("per_channel").load();
  CHECK(model.layers()[layer_index(model, "add")].fused_into == layer_index(model, "conv"));
}

TEST_CASE("fusion: only f32 values fuse; an f16 model fuses when it computes in f32") {
  GraphBuilder g;
  const auto x = g.parameter("x", ElementType::f16, PartialShape{1, 2, 3, 3});
  const auto w = g.constant("w", tensor(ElementType::f16, {2, 2, 1, 1}, {1, -1, 0.5, 2}));
  const auto conv = pointwise_conv(g, x, w, ElementType::f16);
  const auto relu = g.layer("Relu", "opset1", {}, {conv}, {ElementType::f16}, "relu");
  g.result(relu[0], "y");
  const Model wide = g.load();
  CHECK(wide.layers()[layer_index(wide, "relu")].fused_into == layer_index(wide, "conv"));
  LoadOptions declared;
  declared.inference_precision = InferencePrecision::declared;
  const Model narrow = g.load(declared);
  CHECK_FALSE(narrow.layers()[layer_index(narrow, "relu")].fused_into);
  std::vector<double> v(18);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) - 8.5;
  const std::map<std::string, Tensor> inputs{{"x", tensor(ElementType::f16, {1, 2, 3, 3}, v)}};
  CHECK(same_bits(run(wide, inputs, 1).at("y"), run(g.load(unfused()), inputs, 1).at("y")));
}

TEST_CASE(
    "fusion: an observer sees the chain's output under its last layer; a reshape fuses "
    "again") {
  std::mt19937 rng(3);
  const GraphBuilder g = conv_chain(1, 2, 3, "1,1", 7, rng);
  const Model model = g.load();
  const std::map<std::string, Tensor> inputs{{"x", random_f32({2, 2, 9, 7}, rng)}};
  std::vector<std::string> seen;
  Tensor last;
  Session session(model);
  const Outputs out = session.run(inputs, [&](const LayerInfo& layer, std::span<const Tensor> o) {
    if (layer.type == "Parameter" || layer.type == "Constant") return;
    seen.push_back(layer.name);
    last = o[0];
  });
  CHECK(seen == std::vector<std::string>{"prelu"});
  CHECK(same_bits(last, out.at("y")));

  const Model batch3 = model.reshape({{"x", PartialShape{3, 2, 9, 7}}});
  CHECK(batch3.layers()[layer_index(batch3, "prelu")].fused_into == layer_index(batch3, "conv"));
  const std::map<std::string, Tensor> three{{"x", random_f32({3, 2, 9, 7}, rng)}};
  CHECK(same_bits(
      run(batch3, three, 2).at("y"),
      run(g.load(unfused()).reshape({{"x", PartialShape{3, 2, 9, 7}}}), three, 1).at("y")));
}

TEST_CASE("fusion: a FakeQuantize after the convolution runs in its kernel, the same bits") {
  std::mt19937 rng(5);
  struct Case {
    std::int64_t groups, in_channels, channels;
    std::string strides;
    bool per_element;  // limits with a value per element: not a step, stays a layer
  };
  for (const Case& c : {Case{1, 5, 6, "1,1", false}, Case{2, 4, 6, "2,1", false},
                        Case{8, 8, 8, "2,2", false}, Case{1, 3, 4, "1,1", true}}) {
    CAPTURE(c.groups);
    CAPTURE(c.strides);
    CAPTURE(c.per_element);
    GraphBuilder g;
    const auto x = g.parameter("x", ElementType::f32, PartialShape{1, c.in_channels, 8, 6});
    Shape filters = {c.channels, c.in_channels, 3, 3};
    std::string type = "Convolution";
    if (c.groups > 1) {
      filters = {c.groups, c.channels / c.groups, c.in_channels / c.groups, 3, 3};
      type = "GroupConvolution";
    }
    const auto w = g.constant("w", random_f32(filters, rng));
    const auto conv = g.layer(
        type, "opset1",
        {{"strides", c.strides}, {"pads_begin", "1,1"}, {"pads_end", "1,1"}, {"dilations", "1,1"}},
        {x, w}, {ElementType::f32}, "conv");
    const auto relu = g.layer("Relu", "opset1", {}, {conv[0]}, {ElementType::f32}, "relu");
    // input_low 0 and a per-channel input_high (one of them below input_low), one output range
    // for all channels; or limits per element.
    std::vector<double> high(static_cast<std::size_t>(c.channels));
    for (std::size_t i = 0; i < high.size(); ++i) high[i] = i == 1 ? -0.5 : 0.75 + 0.5 * i;
    const Shape out_shape = {1, c.channels, 8, 6};  // the per-element case has stride 1
    const auto in_low = g.constant("il", tensor(ElementType::f32, {1}, {0.0}));
    const auto in_high =
        c.per_element ? g.constant("ih", random_f32(out_shape, rng))
                      : g.constant("ih", tensor(ElementType::f32, {1, c.channels, 1, 1}, high));
    const auto out_low = g.constant("ol", tensor(ElementType::f32, {}, {-1.0}));
    const auto out_high = g.constant("oh", tensor(ElementType::f32, {1, 1, 1}, {3.0}));
    const auto fq =
        g.layer("FakeQuantize", "opset1", {{"levels", "256"}, {"auto_broadcast", "numpy"}},
                {relu[0], in_low, in_high, out_low, out_high}, {ElementType::f32}, "fq");
    g.result(fq[0], "y");
    const Model fused = g.load();
    const std::size_t fq_layer = layer_index(fused, "fq");
    if (c.per_element)
      CHECK_FALSE(fused.layers()[fq_layer].fused_into);
    else
      CHECK(fused.layers()[fq_layer].fused_into == layer_index(fused, "conv"));
    const std::map<std::string, Tensor> inputs{{"x", random_f32({1, c.in_channels, 8, 6}, rng)}};
    const Tensor want = run(g.load(unfused()), inputs, 1).at("y");
    for (unsigned threads : {1u, 3u}) CHECK(same_bits(run(fused, inputs, threads).at("y"), want));
  }
}

TEST_CASE("fusion: a global depthwise layer runs its tail a vector of channels at a time") {
  // One output per channel (the kernel covers the 6x6 map): the steps run on blocks of eight
  // channels' sums. 20 channels end in a short block; with two images a block spans the last
  // channels of one and the first of the next, which takes the steps channel by channel.
  std::mt19937 rng(11);
  const std::int64_t channels = 20;
  for (const std::int64_t batch : {1, 2}) {
    CAPTURE(batch);
    GraphBuilder g;
    const auto x = g.parameter("x", ElementType::f32, PartialShape{batch, channels, 6, 6});
    const auto w = g.constant("w", random_f32({channels, 1, 1, 6, 6}, rng));
    const auto conv = g.layer(
        "GroupConvolution", "opset1",
        {{"strides", "1,1"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"dilations", "1,1"}},
        {x, w}, {ElementType::f32}, "conv");
    const Shape per_channel = {1, channels, 1, 1};
    const auto bias = g.constant("bias", random_f32(per_channel, rng));
    const auto add = g.layer("Add", "opset1", {}, {conv[0], bias}, {ElementType::f32}, "add");
    const auto slope = g.constant("slope", random_f32({channels}, rng));
    const auto prelu = g.layer("PReLU", "opset1", {}, {add[0], slope}, {ElementType::f32}, "prelu");
    const auto scale = g.constant("scale", random_f32(per_channel, rng));
    const auto mul =
        g.layer("Multiply", "opset1", {}, {prelu[0], scale}, {ElementType::f32}, "mul");
    const auto shift = g.constant("shift", random_f32(per_channel, rng));
    const auto add2 = g.layer("Add", "opset1", {}, {mul[0], shift}, {ElementType::f32}, "shift");
    std::vector<double> high(static_cast<std::size_t>(channels));
    for (std::size_t i = 0; i < high.size(); ++i) high[i] = i == 3 ? -0.25 : 0.5 + 0.125 * i;
    const auto in_low = g.constant("il", tensor(ElementType::f32, {1}, {-0.5}));
    const auto in_high = g.constant("ih", tensor(ElementType::f32, per_channel, high));
    const auto out_low = g.constant("ol", tensor(ElementType::f32, {}, {-1.0}));
    const auto out_high = g.constant("oh", tensor(ElementType::f32, per_channel, high));
    const auto fq =
        g.layer("FakeQuantize", "opset1", {{"levels", "16"}, {"auto_broadcast", "numpy"}},
                {add2[0], in_low, in_high, out_low, out_high}, {ElementType::f32}, "fq");
    g.result(fq[0], "y");
    const Model fused = g.load();
    CHECK(fused.layers()[layer_index(fused, "fq")].fused_into == layer_index(fused, "conv"));
    // Inputs scaled so that the sums spread over the quantization range and both PReLU sides.
    const std::map<std::string, Tensor> inputs{{"x", random_f32({batch, channels, 6, 6}, rng)}};
    const Tensor want = run(g.load(unfused()), inputs, 1).at("y");
    for (unsigned threads : {1u, 3u}) CHECK(same_bits(run(fused, inputs, threads).at("y"), want));
  }
}

TEST_CASE("fusion: a MatMul runs its bias and activations, the same bits") {
  // A fully connected layer ([M, K] x [K, N], a bias per column, then activations with values
  // per column), head pose's [1, 512] x [1, 512]^T with a bias of one value, and a batched
  // product whose values run along its axis 1 (the rows of each item's product).
  std::mt19937 rng(13);
  struct Case {
    Shape a, b;
    bool transpose_b;
    Shape values;  // the bias's and the scale's shape
  };
  for (const Case& c :
       {Case{{5, 7}, {7, 20}, false, {1, 20}}, Case{{1, 512}, {1, 512}, true, {1, 1}},
        Case{{2, 3, 4}, {4, 6}, false, {1, 3, 1}}}) {
    CAPTURE(to_string(c.a));
    GraphBuilder g;
    const auto x = g.parameter("x", ElementType::f32, PartialShape::from_shape(c.a));
    const auto w = g.constant("w", random_f32(c.b, rng));
    const auto mm =
        g.layer("MatMul", "opset1",
                {{"transpose_a", "false"}, {"transpose_b", c.transpose_b ? "true" : "false"}},
                {x, w}, {ElementType::f32}, "fc");
    const auto bias = g.constant("bias", random_f32(c.values, rng));
    const auto add = g.layer("Add", "opset1", {}, {mm[0], bias}, {ElementType::f32}, "bias_add");
    const auto relu = g.layer("Relu", "opset1", {}, {add[0]}, {ElementType::f32}, "relu");
    const auto scale = g.constant("scale", random_f32(c.values, rng));
    const auto mul = g.layer("Multiply", "opset1", {}, {relu[0], scale}, {ElementType::f32}, "mul");
    const auto shift = g.constant("shift_value", tensor(ElementType::f32, {1}, {-0.25}));
    const auto add2 = g.layer("Add", "opset1", {}, {mul[0], shift}, {ElementType::f32}, "shift");
    g.result(add2[0], "y");
    const Model fused = g.load();
    CHECK(fused.layers()[layer_index(fused, "shift")].fused_into == layer_index(fused, "fc"));
    const std::map<std::string, Tensor> inputs{{"x", random_f32(c.a, rng)}};
    CHECK(check_one_layer(g, fused, inputs, "y", "fc") ==
          std::vector<std::string>{"bias_add", "relu", "mul", "shift"});
  }
}

TEST_CASE("fusion: a MaxPool runs the scale, shift and FakeQuantize after it, the same bits") {
  // An INT8 landmarks model's pools: MaxPool -> Multiply [C, 1, 1] -> Add [1, C, 1, 1] ->
  // FakeQuantize, each channel's plane (10 x 12: whole vectors and a tail) through the steps.
  // MaxPool-8, whose indices are an output, stays a layer of its own.
  std::mt19937 rng(29);
  for (const char* opset : {"opset1", "opset8"}) {
    CAPTURE(opset);
    GraphBuilder g;
    const auto x = g.parameter("x", ElementType::f32, PartialShape{2, 4, 20, 24});
    const auto pool = g.layer("MaxPool", opset,
                              {{"kernel", "2,2"},
                               {"strides", "2,2"},
                               {"pads_begin", "0,0"},
                               {"pads_end", "0,0"},
                               {"rounding_type", "floor"}},
                              {x},
                              std::string(opset) == "opset8"
                                  ? std::vector<ElementType>{ElementType::f32, ElementType::i64}
                                  : std::vector<ElementType>{ElementType::f32},
                              "pool");
    const auto scale = g.constant("scale", random_f32({4, 1, 1}, rng));
    const auto mul = g.layer("Multiply", "opset1", {}, {pool[0], scale}, {ElementType::f32}, "mul");
    const auto shift = g.constant("shift", random_f32({1, 4, 1, 1}, rng));
    const auto add = g.layer("Add", "opset1", {}, {mul[0], shift}, {ElementType::f32}, "shift");
    const auto in_low = g.constant("il", tensor(ElementType::f32, {1}, {-0.5}));
    const auto in_high = g.constant("ih", tensor(ElementType::f32, {1}, {0.75}));
    const auto out_low = g.constant("ol", tensor(ElementType::f32, {1}, {-1.0}));
    const auto out_high = g.constant("oh", tensor(ElementType::f32, {1}, {1.0}));
    const auto fq =
        g.layer("FakeQuantize", "opset1", {{"levels", "256"}, {"auto_broadcast", "numpy"}},
                {add[0], in_low, in_high, out_low, out_high}, {ElementType::f32}, "fq");
    g.result(fq[0], "y");
    const Model fused = g.load();
    const std::map<std::string, Tensor> inputs{{"x", random_f32({2, 4, 20, 24}, rng)}};
    const Tensor want = run(g.load(unfused()), inputs, 1).at("y");
    const bool takes_steps = std::string(opset) == "opset1";
    for (unsigned threads : {1u, 3u}) {
      RunProfile profile;
      CHECK(same_bits(run(fused, inputs, threads, &profile).at("y"), want));
      if (!takes_steps) continue;
      REQUIRE(profile.layers.size() == 1);
      CHECK(profile.layers[0].name == "pool");
      std::vector<std::string> names;
      for (std::size_t f : profile.layers[0].fused_layers) names.push_back(fused.layers()[f].name);
      CHECK(names == std::vector<std::string>{"mul", "shift", "fq"});
    }
    const std::size_t fq_layer = fused.layers()[layer_index(fused, "fq")].fused_into.value_or(99);
    if (takes_steps)
      CHECK(fq_layer == layer_index(fused, "pool"));
    else
      CHECK_FALSE(fused.layers()[layer_index(fused, "mul")].fused_into);
  }
}

TEST_CASE("fusion: a Multiply by a value per channel runs the layers after it, the same bits") {
  // A detector's input scale and shift: Multiply by [1, C, 1, 1] (or [C, 1, 1] first) -> Add
  // [1, C, 1, 1] -> ReLU, each channel's plane (9 x 13: whole vectors and a tail) made and put
  // through the steps; a Multiply of two tensors of the output's shape fuses too, and one whose
  // other input broadcasts another way (a row) makes its product first.
  std::mt19937 rng(31);
  const Shape shape{2, 3, 9, 13};
  struct Case {
    Shape values;
    bool values_first;
  };
  for (const Case& c : {Case{{1, 3, 1, 1}, false}, Case{{3, 1, 1}, true}, Case{shape, false},
                        Case{{1, 1, 1, 13}, false}}) {
    CAPTURE(to_string(c.values));
    CAPTURE(c.values_first);
    GraphBuilder g;
    const auto x = g.parameter("x", ElementType::f32, PartialShape{2, 3, 9, 13});
    const auto scale = g.constant("scale", random_f32(c.values, rng));
    using Ports = std::vector<GraphBuilder::Port>;
    const auto mul =
        g.layer("Multiply", "opset1", {}, c.values_first ? Ports{scale, x} : Ports{x, scale},
                {ElementType::f32}, "mul");
    const auto shift = g.constant("shift", random_f32({1, 3, 1, 1}, rng));
    const auto add = g.layer("Add", "opset1", {}, {mul[0], shift}, {ElementType::f32}, "shift");
    const auto relu = g.layer("Relu", "opset1", {}, {add[0]}, {ElementType::f32}, "relu");
    g.result(relu[0], "y");
    const Model fused = g.load();
    const std::map<std::string, Tensor> inputs{{"x", random_f32(shape, rng)}};
    const Tensor want = run(g.load(unfused()), inputs, 1).at("y");
    for (unsigned threads : {1u, 3u}) {
      RunProfile profile;
      CHECK(same_bits(run(fused, inputs, threads, &profile).at("y"), want));
      REQUIRE(profile.layers.size() == 1);
      CHECK(profile.layers[0].name == "mul");
    }
  }
}

// PriorBox-1/8 and PriorBoxClustered-1: boxes worked out by hand, the output shape made static at
// load from ShapeOf -> StridedSlice as real SSD models compute it (and an interval from bounded
// dims), the located errors on bad attributes, shapes and values, and the kernels against the
// plain references of tests/reference/prior_box.hpp on random attributes and sizes.

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/attributes.hpp"
#include "graph/op.hpp"
#include "graph_builder.hpp"
#include "irlite/irlite.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "reference/prior_box.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::map<std::string, std::string>;

std::unique_ptr<const Op> make(const char* type, const char* opset, const Attrs& attrs) {
  std::vector<std::pair<std::string, std::string>> items(attrs.begin(), attrs.end());
  return op_def(type, opset).create(Attributes(std::move(items)));
}

std::vector<double> priors(const char* type, const char* opset, const Attrs& attrs, std::int64_t h,
                           std::int64_t w, std::int64_t ih, std::int64_t iw) {
  return doubles(run(*make(type, opset, attrs), {i64s({h, w}), i64s({ih, iw})}));
}

std::string list(const std::vector<double>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + fmt::format("{}", v[i]);
  return s;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(std::fabs(got[i] - want[i]) <= 2e-6 * (1 + std::fabs(want[i])));
  }
}

std::string error_of(const std::function<void()>& f) {
  const auto e = caught(f);
  return e ? e->what() : "";
}

}  // namespace

TEST_CASE("PriorBox: one cell worked out by hand, in both orders") {
  // A 1x1 map over a 4x4 image: centre (2, 2). min 2 -> half 1; max 8 -> sqrt(16) / 2 = 2;
  // ratio 4 -> half-width 1 * 2, half-height 1 / 2.
  const Attrs a = {{"min_size", "2"},
                   {"max_size", "8"},
                   {"aspect_ratio", "4"},
                   {"offset", "0.5"},
                   {"variance", "0.1,0.2,0.3,0.4"}};
  const std::vector<double> min_box = {0.25, 0.25, 0.75, 0.75}, max_box = {0, 0, 1, 1},
                            ratio_box = {0, 0.375, 1, 0.625};
  std::vector<double> want;
  for (const auto* b : {&min_box, &max_box, &ratio_box})
    want.insert(want.end(), b->begin(), b->end());
  for (int i = 0; i < 3; ++i) want.insert(want.end(), {0.1, 0.2, 0.3, 0.4});
  check_close(priors("PriorBox", "opset1", a, 1, 1, 4, 4), want);
  check_close(priors("PriorBox", "opset8", a, 1, 1, 4, 4), want);
  // PriorBox-8 with min_max_aspect_ratios_order false puts the max box last.
  Attrs b = a;
  b["min_max_aspect_ratios_order"] = "false";
  std::vector<double> swapped = min_box;
  swapped.insert(swapped.end(), ratio_box.begin(), ratio_box.end());
  swapped.insert(swapped.end(), max_box.begin(), max_box.end());
  swapped.insert(swapped.end(), want.begin() + 12, want.end());
  check_close(priors("PriorBox", "opset8", b, 1, 1, 4, 4), swapped);
  // PriorBox-1 does not define it: the attribute is not read.
  check_close(priors("PriorBox", "opset1", b, 1, 1, 4, 4), want);
  // flip adds 1/4 (half-width 0.5, half-height 2); clip cuts to [0, 1]; one variance for all.
  Attrs c = {{"min_size", "2"}, {"aspect_ratio", "4"}, {"flip", "1"},      {"clip", "1"},
             {"offset", "0.5"}, {"step", "4"},         {"variance", "0.5"}};
  check_close(priors("PriorBox", "opset1", c, 1, 1, 4, 4),
              {0.25, 0.25, 0.75, 0.75, 0,   0.375, 1,   0.625, 0.375, 0,   0.625, 1,
               0.5,  0.5,  0.5,  0.5,  0.5, 0.5,   0.5, 0.5,   0.5,   0.5, 0.5,   0.5});
}

TEST_CASE("PriorBoxClustered: boxes by hand, steps, clip by default, an ignored flip") {
  // 1x2 map over a 10x20 image, step 10: centres (5, 5) and (15, 5).
  const Attrs a = {{"width", "4,10"}, {"height", "2,30"}, {"step", "10"},
                   {"offset", "0.5"}, {"flip", "1"},      {"variance", "0.1,0.1,0.2,0.2"}};
  const std::vector<double> got = priors("PriorBoxClustered", "opset1", a, 1, 2, 10, 20);
  // Clip is on by default: the 30-pixel height reaches past both edges.
  const std::vector<double> boxes = {3.0 / 20,  0.4, 7.0 / 20,  0.6, 0,   0, 0.5, 1,
                                     13.0 / 20, 0.4, 17.0 / 20, 0.6, 0.5, 0, 1,   1};
  check_close(std::vector<double>(got.begin(), got.begin() + 16), boxes);
  Attrs b = a;
  b["clip"] = "0";
  b["step_w"] = "4";  // step_w wins over step; step_h falls back to it
  const std::vector<double> unclipped = priors("PriorBoxClustered", "opset1", b, 1, 2, 10, 20);
  CHECK(unclipped[5] == doctest::Approx(-1.0));
  CHECK(unclipped[8] == doctest::Approx((6.0 - 2) / 20));
}

namespace {

/// A model computing priors as SSD models do: the sizes taken from a feature map's and an
/// image's shapes (ShapeOf, then StridedSlice of dims 2 and 3).
Model priors_model(const char* type, const char* opset, const Attrs& attrs, const char* feature,
                   ElementType data_type = ElementType::f16) {
  GraphBuilder g;
  const auto map = g.parameter("map", data_type, ps(feature));
  const auto image = g.parameter("image", data_type, ps("1,3,30,50"));
  const auto begin = g.constant("begin", i64s({2}));
  const auto end = g.constant("end", i64s({4}));
  const auto stride = g.constant("stride", i64s({1}));
  const std::vector<std::pair<std::string, std::string>> masks = {{"begin_mask", "0"},
                                                                  {"end_mask", "0"}};
  std::vector<GraphBuilder::Port> sizes;
  for (const auto& in : {map, image}) {
    const auto shape =
        g.layer("ShapeOf", "opset3", {{"output_type", "i64"}}, {in}, {ElementType::i64});
    sizes.push_back(g.layer("StridedSlice", "opset1", masks, {shape[0], begin, end, stride},
                            {ElementType::i64})[0]);
  }
  const auto out = g.layer(type, opset, {attrs.begin(), attrs.end()}, {sizes[0], sizes[1]},
                           {ElementType::f32}, "priors");
  g.result(out[0], "priors");
  return g.load();
}

}  // namespace

TEST_CASE("PriorBox: the shape is static at load through ShapeOf -> StridedSlice, f32 in f16") {
  const Attrs box = {{"min_size", "4"},
                     {"max_size", "9"},
                     {"aspect_ratio", "2"},
                     {"flip", "1"},
                     {"offset", "0.5"}};
  // 4 priors per cell (1, 2, 1/2 and the max box) over 3x5 cells.
  const Model m = priors_model("PriorBox", "opset1", box, "1,8,3,5");
  CHECK(m.outputs()[0].shape == ps("2,240"));
  CHECK(m.outputs()[0].element_type == ElementType::f32);
  CHECK_FALSE(m.is_dynamic());
  const Attrs clustered = {{"width", "1,2,3"}, {"height", "1,2,3"}, {"offset", "0.5"}};
  CHECK(priors_model("PriorBoxClustered", "opset1", clustered, "1,8,3,5").outputs()[0].shape ==
        ps("2,180"));
  // Bounded dims give an interval, unbounded ones an unbounded one.
  CHECK(priors_model("PriorBox", "opset8", box, "1,8,2..4,5").outputs()[0].shape ==
        ps("2,160..320"));
  CHECK(priors_model("PriorBox", "opset8", box, "1,8,?,5").outputs()[0].shape == ps("2,?"));
  // The values computed at run time match the reference.
  Model dynamic = priors_model("PriorBox", "opset8", box, "1,8,?,5", ElementType::f32);
  Session session(dynamic);
  const auto out = session.run(
      {{"map", tensor(ElementType::f32, {1, 8, 2, 5}, std::vector<double>(80, 0))},
       {"image", tensor(ElementType::f32, {1, 3, 30, 50}, std::vector<double>(4500, 0))}});
  reference::PriorBoxSpec spec;
  spec.min_size = {4};
  spec.max_size = {9};
  spec.aspect_ratio = {2};
  spec.flip = true;
  check_close(doubles(out.at("priors")), reference::prior_box(spec, 2, 5, 30, 50));
}

TEST_CASE("PriorBox: errors on attributes, shapes and values, located") {
  // Attribute values.
  CHECK(error_of([] {
          (void)make("PriorBox", "opset1", {{"offset", "0.5"}, {"variance", "1,2"}});
        }).find("attribute 'variance' = '1,2': expected no, one or four values") !=
        std::string::npos);
  CHECK(error_of([] {
          (void)make("PriorBox", "opset1", {{"offset", "0.5"}, {"min_size", "-1"}});
        }).find("expected positive numbers") != std::string::npos);
  CHECK(error_of([] {
          (void)make("PriorBox", "opset1", {{"min_size", "1"}});
        }).find("missing required attribute 'offset'") != std::string::npos);
  CHECK(error_of([] {
          (void)make("PriorBox", "opset1",
                     {{"offset", "0.5"}, {"fixed_size", "4,8"}, {"density", "1"}});
        }).find("expected one value per fixed_size") != std::string::npos);
  CHECK(error_of([] {
          (void)make("PriorBoxClustered", "opset1",
                     {{"offset", "0.5"}, {"width", "1,2"}, {"height", "1"}});
        }).find("expected one value per width") != std::string::npos);
  // Attribute mixes OpenVINO sizes wrongly: more max sizes than min sizes.
  auto mixed =
      make("PriorBox", "opset1", {{"offset", "0.5"}, {"min_size", "2"}, {"max_size", "3,4"}});
  CHECK(error_of([&] {
          (void)mixed->infer(
              std::vector<ValueInfo>{info(ElementType::i64, "[2]"), info(ElementType::i64, "[2]")});
        }).find("these attributes make 2 priors per cell but OpenVINO sizes the output for 3") !=
        std::string::npos);
  // Shapes and types.
  auto op = make("PriorBox", "opset1", {{"offset", "0.5"}, {"min_size", "2"}});
  CHECK(error_of([&] {
          (void)op->infer(
              std::vector<ValueInfo>{info(ElementType::i64, "[3]"), info(ElementType::i64, "[2]")});
        }).find("the feature map's size must be a 1-D tensor of two values") != std::string::npos);
  CHECK(error_of([&] {
          (void)op->infer(
              std::vector<ValueInfo>{info(ElementType::i64, "[2]"), info(ElementType::f32, "[2]")});
        }).find("must be an integer tensor") != std::string::npos);
  CHECK(inferred(*op, {info(ElementType::i32, "[?]"), info(ElementType::u8, "[...]")}) ==
        "f32 [2,?]");
  // Values: a negative map size, a zero image size; at run time located at their ports.
  OpTester t("PriorBox", "opset1", "pb");
  t.attr("offset", "0.5").attr("min_size", "2");
  t.input_parameter("map", i64s({2, 2}));
  t.input_parameter("image", i64s({8, 8}));
  CHECK(t.run()[0].shape() == Shape{2, 16});
  CHECK(error_of([&] {
          (void)t.run({{"map", i64s({-1, 2})}});
        }).find("'pb' (PriorBox-1), input port 0: the feature map's height is -1") !=
        std::string::npos);
  CHECK(error_of([&] {
          (void)t.run({{"image", i64s({8, 0})}});
        }).find("input port 1: the image's width is 0; it must be positive") != std::string::npos);
  // A Const map size that is negative is the model's error while loading.
  OpTester c("PriorBoxClustered", "opset1", "pbc");
  c.attr("offset", "0.5");
  c.input_const("map", i64s({2, -3}));
  c.input_parameter("image", i64s({8, 8}));
  CHECK(error_of([&] { (void)c.load(); }).find("the feature map's width is -3") !=
        std::string::npos);
}

TEST_CASE("PriorBox and PriorBoxClustered: random attributes against the references") {
  std::mt19937 rng(2024);
  const auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  const auto count = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  const auto values = [&](int n, double lo, double hi) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back(std::round(uniform(lo, hi) * 100) / 100);
    return v;
  };
  int ran = 0;
  for (int round = 0; round < 300; ++round) {
    CAPTURE(round);
    const std::int64_t h = count(1, 4), w = count(1, 4), ih = count(8, 64), iw = count(8, 64);
    const std::vector<double> variance = values(count(0, 2) == 2 ? 4 : count(0, 1), 0.05, 0.5);
    if (round % 3 == 0) {
      reference::PriorBoxClusteredSpec s;
      const int n = count(1, 4);
      s.width = values(n, 1, 40);
      s.height = values(n, 1, 40);
      s.clip = count(0, 1) == 1;
      s.step = count(0, 1) ? values(1, 2, 10)[0] : 0;
      s.step_w = count(0, 2) == 0 ? values(1, 2, 10)[0] : 0;
      s.step_h = count(0, 2) == 0 ? values(1, 2, 10)[0] : 0;
      s.offset = values(1, 0, 1)[0];
      s.variance = variance;
      const Attrs a = {{"width", list(s.width)},     {"height", list(s.height)},
                       {"clip", s.clip ? "1" : "0"}, {"step", list({s.step})},
                       {"step_w", list({s.step_w})}, {"step_h", list({s.step_h})},
                       {"offset", list({s.offset})}, {"variance", list(variance)}};
      check_close(priors("PriorBoxClustered", "opset1", a, h, w, ih, iw),
                  reference::prior_box_clustered(s, h, w, ih, iw));
      ++ran;
      continue;
    }
    reference::PriorBoxSpec s;
    const bool v8 = count(0, 1) == 1;
    s.scale_all_sizes = count(0, 3) != 0;
    s.min_max_aspect_ratios_order = !v8 || count(0, 1) == 1;
    const int mins = count(1, 3);
    s.min_size = values(mins, s.scale_all_sizes ? 2 : 0.05, s.scale_all_sizes ? 30 : 0.9);
    // OpenVINO's count fits what is generated only with max sizes for some of the min sizes
    // (scale_all_sizes) or none (mxnet-like).
    if (s.scale_all_sizes && count(0, 1)) s.max_size = values(count(1, mins), 30, 60);
    s.aspect_ratio = values(count(0, 3), 0.3, 3);
    s.flip = count(0, 1) == 1;
    s.clip = count(0, 1) == 1;
    s.step = count(0, 2) == 0 ? 0 : values(1, 2, 12)[0];
    if (!s.scale_all_sizes) s.step = count(0, 1) ? -1 : values(1, 0.1, 0.5)[0];
    s.offset = values(1, 0, 1)[0];
    s.variance = variance;
    Attrs a = {{"min_size", list(s.min_size)},
               {"max_size", list(s.max_size)},
               {"aspect_ratio", list(s.aspect_ratio)},
               {"flip", s.flip ? "1" : "0"},
               {"clip", s.clip ? "1" : "0"},
               {"step", list({s.step})},
               {"offset", list({s.offset})},
               {"variance", list(variance)},
               {"scale_all_sizes", s.scale_all_sizes ? "1" : "0"}};
    if (v8) a["min_max_aspect_ratios_order"] = s.min_max_aspect_ratios_order ? "1" : "0";
    // fixed_size grids, with the same number of aspect ratios and fixed ratios when both are
    // given (OpenVINO's count needs it), on scale_all_sizes layers without min sizes' max.
    if (s.scale_all_sizes && s.max_size.empty() && count(0, 2) == 0) {
      s.min_size.clear();
      const int sizes = count(1, 2);
      s.fixed_size = values(sizes, 4, 20);
      s.density = values(sizes, 1, 3.9);
      if (count(0, 1)) {
        s.aspect_ratio.clear();
        s.fixed_ratio = {values(1, 0.5, 2)[0]};
      }
      a["min_size"] = "";
      a["aspect_ratio"] = list(s.aspect_ratio);
      a["fixed_size"] = list(s.fixed_size);
      a["density"] = list(s.density);
      a["fixed_ratio"] = list(s.fixed_ratio);
    }
    CAPTURE(list(s.min_size));
    CAPTURE(list(s.aspect_ratio));
    auto op = make("PriorBox", v8 ? "opset8" : "opset1", a);
    const auto got = caught([&] { (void)run(*op, {i64s({h, w}), i64s({ih, iw})}); });
    if (got) {
      // Only a refused attribute mix may fail: duplicates a rounding to 1e-6 merges.
      CHECK(std::string(got->what()).find("do not fit together") != std::string::npos);
      continue;
    }
    check_close(doubles(run(*op, {i64s({h, w}), i64s({ih, iw})})),
                reference::prior_box(s, h, w, ih, iw));
    ++ran;
  }
  CHECK(ran > 250);
}

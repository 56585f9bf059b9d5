// DetectionOutput-1/8: detections worked out by hand (decoding, suppression, ties going to the
// lower prior, keep_top_k, the closing -1 row), the shape rule's row counts and located errors,
// and the kernel against the plain reference of tests/reference/detection_output.hpp on random
// inputs over every attribute, the first stage's inputs, f16 codes with f32 priors.

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/attributes.hpp"
#include "graph/op.hpp"
#include "irlite/irlite.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "reference/detection_output.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::map<std::string, std::string>;

std::unique_ptr<const Op> make(const char* opset, const Attrs& attrs) {
  std::vector<std::pair<std::string, std::string>> items(attrs.begin(), attrs.end());
  return op_def("DetectionOutput", opset).create(Attributes(std::move(items)));
}

std::string error_of(const std::function<void()>& f) {
  const auto e = caught(f);
  return e ? e->what() : "";
}

/// The rows before the closing -1 row.
std::vector<std::vector<double>> rows_of(const std::vector<double>& out) {
  std::vector<std::vector<double>> rows;
  for (std::size_t r = 0; r * 7 < out.size() && out[r * 7] != -1; ++r)
    rows.emplace_back(out.begin() + static_cast<std::ptrdiff_t>(r * 7),
                      out.begin() + static_cast<std::ptrdiff_t>(r * 7 + 7));
  return rows;
}

}  // namespace

TEST_CASE("DetectionOutput: suppression, ties, keep_top_k and the closing row by hand") {
  // Three priors; the codes are added to the corners (CORNER, variances in the priors, all 1).
  // Priors 0 and 1 overlap almost fully, prior 2 stands apart.
  const Tensor priors = tensor(
      ElementType::f32, {1, 2, 12},
      {0, 0, 0.5, 0.5, 0.01, 0, 0.51, 0.5, 0.6, 0.6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  const Tensor loc = tensor(ElementType::f32, {1, 12}, std::vector<double>(12, 0));
  // Two classes besides the background 0: class 1 ties between priors 0 and 1.
  const Tensor conf =
      tensor(ElementType::f32, {1, 9}, {0.1, 0.8, 0.3, 0.2, 0.8, 0.6, 0.9, 0.05, 0.7});
  const Attrs a = {{"num_classes", "3"},
                   {"keep_top_k", "10"},
                   {"nms_threshold", "0.5"},
                   {"confidence_threshold", "0.1"},
                   {"normalized", "1"}};
  auto op = make("opset1", a);
  const std::vector<double> out = doubles(run(*op, {loc, conf, priors}));
  REQUIRE(out.size() == 70);
  const auto rows = rows_of(out);
  // Class 1: 0.8 at priors 0 and 1 tie, prior 0 (lower) wins and suppresses 1; prior 2 (0.05)
  // is under the threshold. Class 2: 0.7 at prior 2, then 0.6 at prior 1 (kept: apart from 2),
  // then 0.3 at prior 0 (suppressed by prior 1).
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] ==
        std::vector<double>{0, 1, doubles(tensor(ElementType::f32, {}, {0.8}))[0], 0, 0, 0.5, 0.5});
  CHECK(rows[1][1] == 2);
  CHECK(rows[1][6] == 1);
  CHECK(rows[2][1] == 2);
  CHECK(rows[2][0] == 0);
  CHECK(rows[2][3] == doctest::Approx(0.01));
  // After the -1 row, zeros.
  CHECK(out[21] == -1);
  for (std::size_t i = 22; i < out.size(); ++i) CHECK(out[i] == 0);
  // keep_top_k 2 keeps the two best (0.8 class 1, 0.7 class 2), listed by label.
  Attrs k = a;
  k["keep_top_k"] = "2";
  const auto kept = rows_of(doubles(run(*make("opset1", k), {loc, conf, priors})));
  REQUIRE(kept.size() == 2);
  CHECK(kept[0][1] == 1);
  CHECK(kept[1][1] == 2);
  CHECK(kept[1][2] == doctest::Approx(0.7));
  // keep_top_k 0 keeps nothing: the output is [1,1,N*priors*classes,7], the first row -1.
  k["keep_top_k"] = "0";
  const Tensor none = run(*make("opset1", k), {loc, conf, priors});
  CHECK(none.shape() == Shape{1, 1, 9, 7});
  CHECK(doubles(none)[0] == -1);
  // decrease_label_id: one class per prior (its best from 1 on), labels shifted down.
  Attrs mx = a;
  mx["decrease_label_id"] = "1";
  const auto m = rows_of(doubles(run(*make("opset1", mx), {loc, conf, priors})));
  REQUIRE(m.size() == 2);
  CHECK(m[0] ==
        std::vector<double>{0, 0, doubles(tensor(ElementType::f32, {}, {0.8}))[0], 0, 0, 0.5, 0.5});
  CHECK(m[1][1] == 1);
  CHECK(m[1][3] == doctest::Approx(0.6));
}

TEST_CASE("DetectionOutput: CENTER_SIZE decoding with variances, clipping, not normalized") {
  // One prior [0.2, 0.2, 0.6, 0.4] (centre 0.4, 0.3, size 0.4 x 0.2), variances 0.1 0.1 0.2 0.2;
  // codes 1, -1, ln 2 / 0.2, 0: centre 0.4 + 0.1 * 0.4 = 0.44, 0.3 - 0.1 * 0.2 = 0.28, width
  // 0.8, height 0.2.
  const Tensor priors =
      tensor(ElementType::f32, {1, 2, 4}, {0.2, 0.2, 0.6, 0.4, 0.1, 0.1, 0.2, 0.2});
  const Tensor loc = tensor(ElementType::f32, {1, 4}, {1, -1, std::log(2.0) / 0.2, 0});
  const Tensor conf = tensor(ElementType::f32, {1, 2}, {0, 0.9});
  Attrs a = {{"num_classes", "2"},
             {"keep_top_k", "-1"},
             {"nms_threshold", "0.5"},
             {"normalized", "true"},
             {"code_type", "caffe.PriorBoxParameter.CENTER_SIZE"}};
  const auto r = rows_of(doubles(run(*make("opset1", a), {loc, conf, priors})));
  REQUIRE(r.size() == 1);
  CHECK(r[0][3] == doctest::Approx(0.04));
  CHECK(r[0][4] == doctest::Approx(0.18));
  CHECK(r[0][5] == doctest::Approx(0.84));
  CHECK(r[0][6] == doctest::Approx(0.38));
  a["clip_after_nms"] = "1";
  a["code_type"] = "caffe.PriorBoxParameter.CENTER_SIZE";
  const Tensor far = tensor(ElementType::f32, {1, 4}, {30, 0, 0, 0});
  const auto c = rows_of(doubles(run(*make("opset1", a), {far, conf, priors})));
  CHECK(c[0][3] == 1);
  // Priors of 5 values (the first skipped) in pixels, divided by input_width / input_height.
  const Tensor pixels =
      tensor(ElementType::f32, {1, 2, 5}, {7, 20, 10, 60, 20, 0.1, 0.1, 0.2, 0.2, 0});
  Attrs p = {{"num_classes", "2"}, {"keep_top_k", "5"},    {"nms_threshold", "0.5"},
             {"normalized", "0"},  {"input_width", "100"}, {"input_height", "50"}};
  const auto q = rows_of(doubles(
      run(*make("opset1", p), {tensor(ElementType::f32, {1, 4}, {0, 0, 0, 0}), conf, pixels})));
  REQUIRE(q.size() == 1);
  CHECK(q[0][3] == doctest::Approx(0.2));
  CHECK(q[0][4] == doctest::Approx(0.2));
  CHECK(q[0][5] == doctest::Approx(0.6));
  CHECK(q[0][6] == doctest::Approx(0.4));
}

TEST_CASE("DetectionOutput: the shape rule and its located errors") {
  auto v1 = make("opset1", {{"num_classes", "3"},
                            {"keep_top_k", "-1"},
                            {"top_k", "5"},
                            {"nms_threshold", "0.5"},
                            {"normalized", "1"}});
  // keep_top_k -1 and top_k 5: N * top_k * classes rows.
  CHECK(inferred(*v1, {info(ElementType::f32, "[2,40]"), info(ElementType::f32, "[2,30]"),
                       info(ElementType::f32, "[1,2,40]")}) == "f32 [1,1,30,7]");
  CHECK(inferred(*v1, {info(ElementType::f16, "[?,40]"), info(ElementType::f16, "[?,?]"),
                       info(ElementType::f32, "[1,2,?]")}) == "f16 [1,1,?,7]");
  // -8 finds the classes from the shapes; keep_top_k > 0 gives N * keep_top_k.
  auto v8 = make("opset8", {{"keep_top_k", "7"}, {"nms_threshold", "0.5"}, {"normalized", "1"}});
  CHECK(inferred(*v8, {info(ElementType::f32, "[3,40]"), info(ElementType::f32, "[3,50]"),
                       info(ElementType::f32, "[3,2,40]")}) == "f32 [1,1,21,7]");
  auto all = make("opset8", {{"keep_top_k", "-1"}, {"nms_threshold", "0.5"}, {"normalized", "1"}});
  CHECK(inferred(*all, {info(ElementType::f32, "[3,40]"), info(ElementType::f32, "[3,50]"),
                        info(ElementType::f32, "[3,2,40]")}) == "f32 [1,1,150,7]");
  const auto error = [&](const Op& op, std::vector<ValueInfo> in) {
    return error_of([&] { (void)op.infer(in); });
  };
  CHECK(error(*v1, {info(ElementType::f32, "[2,40]"), info(ElementType::f32, "[2,31]"),
                    info(ElementType::f32, "[1,2,40]")})
            .find("the class confidences [2,31] must hold 30 per image") != std::string::npos);
  CHECK(error(*v1, {info(ElementType::f32, "[2,40]"), info(ElementType::f32, "[2,30]"),
                    info(ElementType::f32, "[1,1,40]")})
            .find("must have 2 rows") != std::string::npos);
  CHECK(error(*v1, {info(ElementType::f32, "[2,40]"), info(ElementType::f32, "[3,30]"),
                    info(ElementType::f32, "[1,2,40]")})
            .find("must have the batch of the box codes") != std::string::npos);
  CHECK(error(*v1, {info(ElementType::f32, "[2,40]"), info(ElementType::f16, "[2,30]"),
                    info(ElementType::f32, "[1,2,40]")})
            .find("the class confidences must be f32 as the box codes are, got f16") !=
        std::string::npos);
  CHECK(error(*v1, {info(ElementType::f32, "[2,40,1]"), info(ElementType::f32, "[2,30]"),
                    info(ElementType::f32, "[1,2,40]")})
            .find("the box codes must have rank 2") != std::string::npos);
  CHECK(error(*v1, {info(ElementType::f32, "[2,40]"), info(ElementType::f32, "[2,30]"),
                    info(ElementType::f32, "[1,2,40]"), info(ElementType::f32, "[2,20]")})
            .find("takes 3 inputs, or 5") != std::string::npos);
  CHECK(error(*v1, {info(ElementType::f32, "[2,40]"), info(ElementType::f32, "[2,30]"),
                    info(ElementType::f32, "[1,2,40]"), info(ElementType::f32, "[2,21]"),
                    info(ElementType::f32, "[2,40]")})
            .find("the first stage's confidences [2,21] must hold 20 per image") !=
        std::string::npos);
  CHECK(error_of([] {
          (void)make("opset1", {{"keep_top_k", "1"}, {"nms_threshold", "0.5"}});
        }).find("missing required attribute 'num_classes'") != std::string::npos);
  CHECK(error_of([] {
          (void)make("opset8", {{"keep_top_k", "1"}, {"nms_threshold", "0.5"}, {"code_type", "x"}});
        }).find("attribute 'code_type' = 'x'") != std::string::npos);
  // At run time, located at the port.
  OpTester t("DetectionOutput", "opset8", "det");
  t.attr("keep_top_k", "5").attr("nms_threshold", "0.5").attr("normalized", "1");
  t.input_parameter("loc", ElementType::f32, ps("[?,?]"));
  t.input_parameter("conf", ElementType::f32, ps("[?,?]"));
  t.input_parameter("priors", ElementType::f32, ps("[1,2,?]"));
  CHECK(error_of([&] {
          (void)t.run(
              {{"loc", tensor(ElementType::f32, {1, 8}, std::vector<double>(8, 0))},
               {"conf", tensor(ElementType::f32, {1, 6}, std::vector<double>(6, 0))},
               {"priors", tensor(ElementType::f32, {1, 2, 12}, std::vector<double>(24, 0))}});
        }).find("'det' (DetectionOutput-8), input port 0: the box codes [1,8] must hold 12") !=
        std::string::npos);
}

namespace {

/// Random values in [lo, hi) as f32 would hold them.
/// A dimension from a count.
std::int64_t dim(std::size_t n) {
  return static_cast<std::int64_t>(n);
}

std::vector<double> random_values(std::mt19937& rng, std::size_t n, double lo, double hi) {
  std::vector<double> v(n);
  for (double& x : v) x = static_cast<float>(std::uniform_real_distribution<double>(lo, hi)(rng));
  return v;
}

}  // namespace

TEST_CASE("DetectionOutput: random inputs and attributes against the reference") {
  std::mt19937 rng(77);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int with_rows = 0;
  for (int round = 0; round < 250; ++round) {
    CAPTURE(round);
    reference::DetectionSpec s;
    const bool v8 = pick(0, 1) == 1;
    const std::size_t images = static_cast<std::size_t>(pick(1, 3));
    const std::size_t priors = static_cast<std::size_t>(pick(1, 40));
    s.classes = pick(1, 5);
    s.background = pick(-1, 1);
    s.share_location = pick(0, 2) != 0;
    s.variance_encoded = pick(0, 3) == 0;
    s.center_size = pick(0, 1) == 1;
    s.clip_before_nms = pick(0, 3) == 0;
    s.clip_after_nms = pick(0, 3) == 0;
    s.decrease_label_id = pick(0, 4) == 0;
    s.normalized = pick(0, 3) != 0;
    s.top_k = pick(0, 2) == 0 ? -1 : pick(0, 30);
    s.keep_top_k = pick(0, 2) == 0 ? -1 : pick(0, 20);
    s.nms_threshold = pick(1, 9) / 10.0;
    s.confidence_threshold = pick(0, 6) / 10.0;
    s.input_width = pick(1, 300);
    s.input_height = pick(1, 300);
    const bool arm = pick(0, 3) == 0;
    s.objectness_score = pick(0, 5) / 10.0;
    const std::size_t sets = s.share_location ? 1 : static_cast<std::size_t>(s.classes);
    const std::size_t width = s.normalized ? 4 : 5;
    const std::size_t prior_batches = pick(0, 1) ? 1 : images;
    const std::size_t rows_per_batch = s.variance_encoded ? 1 : 2;
    // Boxes as [x, y, x + w, y + h] (in pixels when not normalized), variances after them.
    std::vector<double> prior_data;
    const double unit_w = s.normalized ? 1 : s.input_width,
                 unit_h = s.normalized ? 1 : s.input_height;
    for (std::size_t b = 0; b < prior_batches; ++b) {
      for (std::size_t i = 0; i < priors; ++i) {
        if (!s.normalized) prior_data.push_back(static_cast<double>(b));
        const auto xy = random_values(rng, 4, 0, 0.6);
        prior_data.push_back(static_cast<float>(xy[0] * unit_w));
        prior_data.push_back(static_cast<float>(xy[1] * unit_h));
        prior_data.push_back(static_cast<float>((xy[0] + 0.05 + xy[2] / 2) * unit_w));
        prior_data.push_back(static_cast<float>((xy[1] + 0.05 + xy[3] / 2) * unit_h));
      }
      if (rows_per_batch == 2) {
        const auto var = random_values(rng, priors * width, 0.05, 0.3);
        prior_data.insert(prior_data.end(), var.begin(), var.end());
      }
    }
    const std::size_t code_count = images * priors * sets * 4;
    const auto loc = random_values(rng, code_count, -1, 1);
    const auto conf =
        random_values(rng, images * priors * static_cast<std::size_t>(s.classes), 0, 1);
    const auto arm_conf =
        arm ? random_values(rng, images * priors * 2, 0, 1) : std::vector<double>{};
    const auto arm_loc = arm ? random_values(rng, code_count, -0.5, 0.5) : std::vector<double>{};
    Attrs a = {{"background_label_id", std::to_string(s.background)},
               {"top_k", std::to_string(s.top_k)},
               {"variance_encoded_in_target", s.variance_encoded ? "1" : "0"},
               {"keep_top_k", std::to_string(s.keep_top_k)},
               {"code_type", s.center_size ? "caffe.PriorBoxParameter.CENTER_SIZE"
                                           : "caffe.PriorBoxParameter.CORNER"},
               {"share_location", s.share_location ? "1" : "0"},
               {"nms_threshold", fmt::format("{}", s.nms_threshold)},
               {"confidence_threshold", fmt::format("{}", s.confidence_threshold)},
               {"clip_after_nms", s.clip_after_nms ? "1" : "0"},
               {"clip_before_nms", s.clip_before_nms ? "1" : "0"},
               {"decrease_label_id", s.decrease_label_id ? "1" : "0"},
               {"normalized", s.normalized ? "1" : "0"},
               {"input_height", fmt::format("{}", s.input_height)},
               {"input_width", fmt::format("{}", s.input_width)},
               {"objectness_score", fmt::format("{}", s.objectness_score)}};
    if (!v8) a["num_classes"] = std::to_string(s.classes);
    std::vector<Tensor> inputs = {
        tensor(ElementType::f32, {dim(images), dim(priors * sets * 4)}, loc),
        tensor(ElementType::f32, {dim(images), dim(priors) * s.classes}, conf),
        tensor(ElementType::f32, {dim(prior_batches), dim(rows_per_batch), dim(priors * width)},
               prior_data)};
    if (arm) {
      inputs.push_back(tensor(ElementType::f32, {dim(images), dim(priors * 2)}, arm_conf));
      inputs.push_back(tensor(ElementType::f32, {dim(images), dim(priors * sets * 4)}, arm_loc));
    }
    auto op = make(v8 ? "opset8" : "opset1", a);
    const Tensor out = run(*op, inputs);
    const auto rows = static_cast<std::size_t>(out.shape()[2]);
    const std::vector<double> want = reference::detection_output(
        s, images, priors, loc, conf, prior_data, prior_batches, arm_conf, arm_loc, rows);
    const std::vector<double> got = doubles(out);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      CHECK(std::fabs(got[i] - want[i]) <= 1e-5 * (1 + std::fabs(want[i])));
    }
    with_rows += rows_of(want).empty() ? 0 : 1;
    // f16 codes and confidences with f32 priors give the same detections, rounded to f16.
    if (round % 10 == 0 && !arm) {
      std::vector<Tensor> half = inputs;
      half[0] = tensor(ElementType::f16, inputs[0].shape(), doubles(inputs[0]));
      half[1] = tensor(ElementType::f16, inputs[1].shape(), doubles(inputs[1]));
      const Tensor h = run(*op, half);
      CHECK(h.element_type() == ElementType::f16);
      CHECK(h.shape() == out.shape());
    }
  }
  CHECK(with_rows > 150);
}

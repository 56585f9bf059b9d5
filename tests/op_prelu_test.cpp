// PReLU-1: the slope along the channel axis or broadcast NumPy-style, its element types, NaN and
// -0, i8 wrapping, shape errors on static and dynamic shapes, and the kernel against a plain
// loop on random shapes and slopes, on any number of threads.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
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

std::unique_ptr<const Op> make_prelu() {
  return op_def("PReLU", "opset1").create(Attributes());
}

std::vector<double> prelu(const Tensor& x, const Tensor& slope) {
  return doubles(run(*make_prelu(), {x, slope}));
}

std::string error_of(ElementType data_type, const char* data_shape, ElementType slope_type,
                     const char* slope_shape) {
  const auto e = caught([&] {
    (void)make_prelu()->infer(
        std::vector<ValueInfo>{info(data_type, data_shape), info(slope_type, slope_shape)});
  });
  return e ? e->what() : "";
}

/// The slope element each data element takes, the plain way: along the channel axis when the
/// slope is 1-D and as long as it, else by NumPy's alignment from the right.
std::size_t slope_index(const Shape& data, const Shape& slope, std::size_t flat) {
  std::vector<std::int64_t> coord(data.size());
  for (std::size_t d = data.size(); d-- > 0;) {
    coord[d] = static_cast<std::int64_t>(flat) % data[d];
    flat /= static_cast<std::size_t>(data[d]);
  }
  const std::size_t channel = data.size() > 1 ? 1 : 0;
  if (slope.size() == 1 && !data.empty() && data[channel] == slope[0])
    return static_cast<std::size_t>(coord[channel]);
  std::size_t index = 0;
  const std::size_t shift = data.size() - slope.size();
  for (std::size_t d = 0; d < slope.size(); ++d)
    index = index * static_cast<std::size_t>(slope[d]) +
            static_cast<std::size_t>(slope[d] == 1 ? 0 : coord[shift + d]);
  return index;
}

}  // namespace

TEST_CASE("PReLU: the slope along the channel axis or broadcast") {
  const Tensor x = tensor(ElementType::f32, {1, 3, 2}, {-1, 2, -3, 4, -5, 6});
  // One slope per channel.
  CHECK(prelu(x, tensor(ElementType::f32, {3}, {0.5, 2, 0})) ==
        std::vector<double>{-0.5, 2, -6, 4, 0, 6});
  // One slope for all, as a scalar or of shape [1].
  CHECK(prelu(x, tensor(ElementType::f32, {1}, {0.25})) ==
        std::vector<double>{-0.25, 2, -0.75, 4, -1.25, 6});
  CHECK(prelu(x, tensor(ElementType::f32, {}, {-1})) == std::vector<double>{1, 2, 3, 4, 5, 6});
  // A 1-D slope not as long as the channels broadcasts along the last axis.
  CHECK(prelu(x, tensor(ElementType::f32, {2}, {10, 100})) ==
        std::vector<double>{-10, 2, -30, 4, -50, 6});
  // The channel axis wins when both would fit: [2,3,3] with a slope of 3.
  const Tensor sq = tensor(ElementType::f32, {1, 3, 3}, {-1, -1, -1, -1, -1, -1, -1, -1, -1});
  CHECK(prelu(sq, tensor(ElementType::f32, {3}, {1, 2, 3})) ==
        std::vector<double>{-1, -1, -1, -2, -2, -2, -3, -3, -3});
  // Rank 1: the channel axis is axis 0.
  CHECK(prelu(tensor(ElementType::f32, {3}, {-1, -1, 1}),
              tensor(ElementType::f32, {3}, {1, 2, 3})) == std::vector<double>{-1, -2, 1});
  // A slope of the data's rank, broadcast along some axes.
  CHECK(prelu(x, tensor(ElementType::f32, {1, 3, 1}, {1, 2, 3})) ==
        std::vector<double>{-1, 2, -6, 4, -15, 6});
}

TEST_CASE("PReLU: element types, NaN, -0 and i8 wrapping") {
  const double nan = std::nan("");
  for (ElementType type :
       {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64}) {
    CAPTURE(to_string(type));
    const std::vector<double> got =
        prelu(tensor(type, {1, 2, 2}, {-1.5, nan, -0.0, 3}), tensor(type, {2}, {0.1, 2}));
    // -1.5 times the slope as the type holds it, in float (double for f64), rounded once.
    const double slope = doubles(tensor(type, {}, {0.1}))[0];
    const double product = type == ElementType::f64
                               ? -1.5 * slope
                               : static_cast<double>(-1.5f * static_cast<float>(slope));
    CHECK(got[0] == doubles(tensor(type, {}, {product}))[0]);
    CHECK(std::isnan(got[1]));
    CHECK(got[2] == 0);
    CHECK(got[3] == 3);
  }
  // -0 passes as -0: it is not below zero.
  const Tensor z = run(*make_prelu(),
                       {tensor(ElementType::f32, {1}, {-0.0}), tensor(ElementType::f32, {1}, {5})});
  CHECK(std::signbit(z.data<float>()[0]));
  CHECK(integers(run(*make_prelu(), {tensor(ElementType::i8, {1, 2}, {-100, 7}),
                                     tensor(ElementType::i8, {1}, {2})})) ==
        std::vector<std::int64_t>{56, 7});
}

TEST_CASE("PReLU: shape rule and errors") {
  auto op = make_prelu();
  CHECK(inferred(*op, {info(ElementType::f32, "[?,3,?]"), info(ElementType::f32, "[3]")}) ==
        "f32 [?,3,?]");
  CHECK(inferred(*op, {info(ElementType::f16, "[...]"), info(ElementType::f16, "[7]")}) ==
        "f16 [...]");
  // A floating-point slope may be of another floating-point type; integers must match.
  CHECK(inferred(*op, {info(ElementType::f16, "[1,3,4]"), info(ElementType::f32, "[3]")}) ==
        "f16 [1,3,4]");
  CHECK(error_of(ElementType::f32, "[1,3,4]", ElementType::i8, "[3]")
            .find("slope must be f32 as the data is, got i8") != std::string::npos);
  CHECK(error_of(ElementType::i8, "[1,3,4]", ElementType::f32, "[3]")
            .find("slope must be i8 as the data is, got f32") != std::string::npos);
  CHECK(error_of(ElementType::f32, "[1,3,4]", ElementType::f32, "[5]")
            .find("neither runs along the channel axis") != std::string::npos);
  CHECK(error_of(ElementType::f32, "[3]", ElementType::f32, "[1,3]")
            .find("neither runs along the channel axis") != std::string::npos);
  CHECK(error_of(ElementType::i32, "[3]", ElementType::i32, "[3]").find("data must be") !=
        std::string::npos);
  // Dynamic dims that might fit pass while loading; the real shapes are checked at run time,
  // located at the slope's port.
  OpTester t("PReLU", "opset1", "act");
  t.input_parameter("x", ElementType::f32, ps("[?,?]"));
  t.input_parameter("slope", ElementType::f32, ps("[5]"));
  CHECK_NOTHROW(t.load());
  const auto e = caught([&] {
    (void)t.run({{"x", tensor(ElementType::f32, {2, 4}, std::vector<double>(8, -1))},
                 {"slope", tensor(ElementType::f32, {5}, {1, 2, 3, 4, 5})}});
  });
  REQUIRE(e);
  CHECK(std::string(e->what()).find("'act' (PReLU-1), input port 1: slope [5]") !=
        std::string::npos);
}

TEST_CASE("PReLU: random shapes and slopes against a plain loop, on any thread count") {
  std::mt19937 rng(99);
  for (int round = 0; round < 200; ++round) {
    const auto rank = std::uniform_int_distribution<std::size_t>(1, 5)(rng);
    Shape shape;
    for (std::size_t d = 0; d < rank; ++d)
      shape.push_back(
          std::uniform_int_distribution<std::int64_t>(1, round % 10 == 0 ? 40 : 5)(rng));
    // A channel slope, or the trailing dims with some set to 1.
    Shape slope;
    if (round % 3 == 0) {
      slope = {shape[rank > 1 ? 1 : 0]};
    } else {
      const auto keep = std::uniform_int_distribution<std::size_t>(0, rank)(rng);
      for (std::size_t d = rank - keep; d < rank; ++d)
        slope.push_back(std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? 1 : shape[d]);
    }
    CAPTURE(to_string(shape));
    CAPTURE(to_string(slope));
    std::size_t size = 1, slope_size = 1;
    for (auto d : shape) size *= static_cast<std::size_t>(d);
    for (auto d : slope) slope_size *= static_cast<std::size_t>(d);
    std::vector<double> x(size), s(slope_size);
    for (double& v : x) v = std::uniform_int_distribution<int>(-20, 20)(rng) / 4.0;
    for (double& v : s) v = std::uniform_int_distribution<int>(-8, 8)(rng) / 8.0;
    const Tensor data = tensor(ElementType::f32, shape, x);
    const Tensor slopes = tensor(ElementType::f32, slope, s);
    const auto op = make_prelu();
    const Tensor got = run(*op, {data, slopes});
    const std::vector<double> values = doubles(got);
    for (std::size_t i = 0; i < size; ++i) {
      const double want = x[i] < 0 ? x[i] * s[slope_index(shape, slope, i)] : x[i];
      if (values[i] != want) FAIL("element " << i << ": got " << values[i] << ", want " << want);
    }
    const std::vector<Tensor> inputs{data, slopes};
    const auto infos = infer_at_run_time(*op, inputs, 1);
    for (ThreadPool* pool : test_pools()) {
      const auto many = allocate_and_execute(*op, inputs, infos, ExecContext{Parallel(pool)});
      CHECK(std::memcmp(many[0].data(), got.data(), got.byte_size()) == 0);
    }
  }
}

TEST_CASE("PReLU: a slope of another floating-point type is rounded to the data's type first") {
  // OpenVINO's FP16 IR gives f16 data an f32 slope Const. 0.1 is not an f16: the product is
  // x times the slope as f16 holds it, rounded once.
  for (const ElementType data : {ElementType::f16, ElementType::bf16, ElementType::f64})
    for (const ElementType slope : {ElementType::f32, ElementType::f64, ElementType::f16}) {
      if (slope == data) continue;
      CAPTURE(to_string(data));
      CAPTURE(to_string(slope));
      OpTester t("PReLU", "opset1", "act");
      t.input_parameter("x", data, ps("[1,2,3]"));
      t.input_parameter("slope", slope, ps("[2]"));
      const Tensor out = t.run({{"x", tensor(data, {1, 2, 3}, {-3, -1.5, 2, -7, 0.5, -0.25})},
                                {"slope", tensor(slope, {2}, {0.1, 1.7})}})
                             .at(0);
      CHECK(out.element_type() == data);
      const Tensor as_data = tensor(data, {2}, doubles(tensor(slope, {2}, {0.1, 1.7})));
      const std::vector<double> s = doubles(as_data);
      const std::vector<double> x = {-3, -1.5, 2, -7, 0.5, -0.25};
      std::vector<double> want(6);
      for (std::size_t i = 0; i < 6; ++i) {
        const double product = data == ElementType::f64
                                   ? x[i] * s[i / 3]
                                   : static_cast<double>(static_cast<float>(x[i]) *
                                                         static_cast<float>(s[i / 3]));
        want[i] = x[i] < 0 ? doubles(tensor(data, {}, {product}))[0] : x[i];
      }
      CHECK(doubles(out) == want);
    }
}

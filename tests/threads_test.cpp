// Sessions with different thread counts give the same outputs, bit for bit, on inputs large
// enough for every kernel to split its work.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "op_tester.hpp"

using namespace irlite;
using irlite::testing::OpTester;

namespace {

Tensor random_floats(Shape shape, std::mt19937& rng) {
  Tensor t(ElementType::f32, std::move(shape));
  std::uniform_int_distribution<int> d(-500, 500);
  for (float& v : t.values<float>()) v = static_cast<float>(d(rng)) / 64.0f;  // many ties
  if (t.size() > 10) t.data<float>()[t.size() / 3] = -0.0f;
  return t;
}

Tensor sorted_ids(std::int64_t n, std::int64_t bound, std::mt19937& rng) {
  Tensor t(ElementType::i64, {n});
  auto v = t.values<std::int64_t>();
  for (auto& x : v) x = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(bound));
  std::sort(v.begin(), v.end());
  return t;
}

Tensor scalar_i64(std::int64_t v) {
  Tensor t(ElementType::i64, {});
  t.data<std::int64_t>()[0] = v;
  return t;
}

Tensor i64s(std::vector<std::int64_t> v) {
  Tensor t(ElementType::i64, {static_cast<std::int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data<std::int64_t>());
  return t;
}

/// Runs `model` with 1, 2, 3 and 8 threads and checks that every output is the same.
void check_thread_invariance(const Model& model, const std::map<std::string, Tensor>& inputs) {
  Session one(model, SessionOptions{0, 1});
  CHECK(one.options().num_threads == 1);
  const auto want = one.run(inputs);
  for (unsigned threads : {2u, 3u, 8u}) {
    CAPTURE(threads);
    Session s(model, SessionOptions{0, threads});
    CHECK(s.options().num_threads == threads);
    const auto got = s.run(inputs);
    REQUIRE(got.size() == want.size());
    for (const auto& [name, tensor] : want) {
      CAPTURE(name);
      const Tensor& t = got.at(name);
      REQUIRE(t.shape() == tensor.shape());
      CHECK(std::memcmp(t.data(), tensor.data(), t.byte_size()) == 0);
    }
  }
}

}  // namespace

TEST_CASE("threads: ReduceMax gives the same bits on any number of threads") {
  std::mt19937 rng(1);
  const Tensor data = random_floats({300, 700}, rng);
  for (const auto& axes : {std::vector<std::int64_t>{1}, std::vector<std::int64_t>{0},
                           std::vector<std::int64_t>{0, 1}}) {
    OpTester t("ReduceMax", "opset1");
    t.attr("keep_dims", false).input_parameter("data", data).input_const("axes", i64s(axes));
    check_thread_invariance(t.load(), {{"data", data}});
  }
}

TEST_CASE("threads: SegmentMax gives the same bits on any number of threads") {
  std::mt19937 rng(2);
  for (std::int64_t row : {1, 24}) {
    const std::int64_t rows = 400000 / row;
    const Tensor data = random_floats({rows, row}, rng);
    const Tensor ids = sorted_ids(rows, rows / 7, rng);
    OpTester t("SegmentMax", "opset16");
    t.attr("fill_mode", "lowest")
        .input_parameter("data", data)
        .input_parameter("segment_ids", ids)
        .input_const("num_segments", scalar_i64(rows / 7 + 3));
    check_thread_invariance(t.load(), {{"data", data}, {"segment_ids", ids}});
  }
}

TEST_CASE("threads: EmbeddingSegmentsSum gives the same bits on any number of threads") {
  std::mt19937 rng(3);
  const Tensor table = random_floats({5000, 16}, rng);
  const std::int64_t n = 150000;
  Tensor indices(ElementType::i64, {n});
  for (auto& x : indices.values<std::int64_t>()) x = static_cast<std::int64_t>(rng() % 5000);
  const Tensor ids = sorted_ids(n, 9000, rng);
  const Tensor weights = random_floats({n}, rng);
  OpTester t("EmbeddingSegmentsSum", "opset3");
  t.input_parameter("table", table)
      .input_parameter("indices", indices)
      .input_parameter("segment_ids", ids)
      .input_const("num_segments", scalar_i64(9001))
      .input_const("default_index", scalar_i64(4))
      .input_parameter("weights", weights);
  check_thread_invariance(t.load(), {{"table", table},
                                     {"indices", indices},
                                     {"segment_ids", ids},
                                     {"weights", weights}});
}

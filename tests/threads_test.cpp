// Sessions with different thread counts give the same outputs, bit for bit, on inputs large
// enough for every kernel to split its work; Sessions on several threads share one Model.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "irlite/irlite.hpp"
#include "op_tester.hpp"

using namespace irlite;
using namespace irlite::test;

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
    for (const auto& [output, tensor] : want) {
      const std::string& name = output;  // CAPTURE cannot take a structured binding
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
        .input_const("num_segments", ints(ElementType::i64, {}, {rows / 7 + 3}));
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
      .input_const("num_segments", ints(ElementType::i64, {}, {9001}))
      .input_const("default_index", ints(ElementType::i64, {}, {4}))
      .input_parameter("weights", weights);
  check_thread_invariance(t.load(), {{"table", table},
                                     {"indices", indices},
                                     {"segment_ids", ids},
                                     {"weights", weights}});
}

namespace {

Tensor random_i32s(std::size_t n, std::uint32_t bound, bool sorted, std::mt19937& rng) {
  Tensor t(ElementType::i32, {static_cast<std::int64_t>(n)});
  auto v = t.values<std::int32_t>();
  for (auto& x : v) x = static_cast<std::int32_t>(rng() % bound);
  if (sorted) std::sort(v.begin(), v.end());
  return t;
}

/// Several application threads share one Model, each with its own Session (and thread pool),
/// on inputs of their own; every output must equal what a one-thread Session computed for the
/// same inputs beforehand. Built with ThreadSanitizer (scripts/dev.sh test --tsan), this finds
/// races between Sessions of one Model and inside a Session's pool.
void check_shared_model(const Model& model, bool dynamic) {
  constexpr int kThreads = 4;
  constexpr int kRuns = 40;
  std::vector<std::vector<std::map<std::string, Tensor>>> inputs(kThreads);
  std::vector<std::vector<Outputs>> want(kThreads);
  Session reference(model, [] {
    SessionOptions o;
    o.num_threads = 1;
    return o;
  }());
  for (int t = 0; t < kThreads; ++t) {
    std::mt19937 rng(static_cast<std::uint32_t>(100 + t));
    for (int r = 0; r < kRuns; ++r) {
      std::map<std::string, Tensor> in;
      const std::size_t n = dynamic ? 1 + rng() % 40 : 12;
      in["indices"] = random_i32s(n, 20, false, rng);
      if (dynamic) in["segment_ids"] = random_i32s(n, 4, true, rng);
      want[static_cast<std::size_t>(t)].push_back(reference.run(in));
      inputs[static_cast<std::size_t>(t)].push_back(std::move(in));
    }
  }
  std::vector<int> matches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const auto k = static_cast<std::size_t>(t);
      SessionOptions o;
      o.num_threads = 2;  // each Session's own pool runs too
      Session s(model, o);
      for (int r = 0; r < kRuns; ++r) {
        const auto got = s.run(inputs[k][static_cast<std::size_t>(r)]);
        const auto& expected = want[k][static_cast<std::size_t>(r)];
        bool same = got.size() == expected.size();
        for (const auto& [name, tensor] : expected) {
          const auto it = got.find(name);
          same = same && it != got.end() && it->second.shape() == tensor.shape() &&
                 std::memcmp(it->second.data(), tensor.data(), tensor.byte_size()) == 0;
        }
        matches[k] += same ? 1 : 0;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int m : matches) CHECK(m == kRuns);
}

}  // namespace

TEST_CASE("threads: Sessions on several threads share one Model of all four ops") {
  check_shared_model(Model::load(std::string(IRLITE_MODELS) + "/pipeline.xml"), false);
  check_shared_model(Model::load(std::string(IRLITE_MODELS) + "/pipeline_dynamic.xml"), true);
}

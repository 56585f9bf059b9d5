// The benchmark's input generator against the fingerprints the peer scripts publish (first
// values, last value and exact sums of each stream), so irlite is timed on the very inputs the
// peers are. The sums are exact: every value is a multiple of 2^-23 (data) or 2^-24 (weights).

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "workloads.hpp"

using namespace irlite::bench;

namespace {

// Whether `v` is the value printed as `printed`: closer to it than half the values' spacing.
bool is_printed(float v, double printed, double spacing) {
  return std::abs(static_cast<double>(v) - printed) < spacing / 2;
}

double sum(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += static_cast<double>(x);
  return s;
}

std::int64_t sum(const std::vector<std::int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), std::int64_t{0});
}

}  // namespace

TEST_CASE("bench inputs: SplitMix64 is the standard generator") {
  CHECK(splitmix64(0, 0) == 0xE220A8397B1DCDAFull);
  CHECK(splitmix64(0, 1) == 0x6E789E6AA1B965F4ull);
}

TEST_CASE("bench inputs: float data of topk_big_k and topk_axis0 (2^22 values, seed 1)") {
  std::vector<float> data(std::size_t{1} << 22);
  uniform_pm1(kSeedData, data);
  const double step = 0x1p-23;
  CHECK(is_printed(data[0], 0.13312304, step));
  CHECK(is_printed(data[1], 0.49156344, step));
  CHECK(is_printed(data[2], 0.9420054, step));
  CHECK(is_printed(data.back(), 0.5328306, step));
  CHECK(static_cast<double>(data[0]) == 1116717 * step);
  CHECK(static_cast<double>(data.back()) == 4469707 * step);
  CHECK(sum(data) == -502410624 * step);
}

TEST_CASE("bench inputs: segment ids (seed 2, sorted)") {
  SUBCASE("segmax_rows: 1 000 000 ids in [0, 100 000)") {
    std::vector<std::int64_t> ids(1000000);
    sorted_segment_ids(kSeedSegments, 100000, ids);
    CHECK(ids[0] == 0);
    CHECK(ids.back() == 99999);
    CHECK(std::is_sorted(ids.begin(), ids.end()));
    CHECK(sum(ids) == 49994322469);
  }
  SUBCASE("embsum: 2 000 000 ids in [0, 100 000)") {
    std::vector<std::int64_t> ids(2000000);
    sorted_segment_ids(kSeedSegments, 100000, ids);
    CHECK(ids.back() == 99999);
    CHECK(sum(ids) == 100046348363);
  }
}

TEST_CASE("bench inputs: embsum indices (seed 3) and per-sample weights (seed 4)") {
  std::vector<std::int64_t> indices(2000000);
  randint(kSeedIndices, 1000000, indices);
  CHECK(indices[0] == 139053);
  CHECK(indices[1] == 111561);
  CHECK(indices[2] == 937729);
  CHECK(indices.back() == 175842);
  CHECK(sum(indices) == 1000749792131);

  std::vector<float> weights(2000000);
  uniform_01(kSeedWeights, weights);
  const double step = 0x1p-24;
  CHECK(is_printed(weights[0], 0.43145579, step));
  CHECK(is_printed(weights[1], 0.89240682, step));
  CHECK(is_printed(weights[2], 0.85911709, step));
  CHECK(is_printed(weights.back(), 0.2497043, step));
  CHECK(static_cast<double>(weights[0]) == 7238627 * step);
  CHECK(sum(weights) == 16779592234161 * step);
}

TEST_CASE("bench inputs: the ten workloads in the peers' order and sizes, then the MatMuls") {
  const std::vector<std::string_view> names = {
      "topk_rows",  "topk_big_k",  "topk_axis0", "reduce_inner", "reduce_outer", "reduce_middle",
      "reduce_all", "segmax_rows", "segmax_1d",  "embsum",       "mm",           "mm1x1"};
  REQUIRE(workloads().size() == names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    CAPTURE(names[i]);
    CHECK(workloads()[i].name == names[i]);
    CHECK(find_workload(names[i]) == &workloads()[i]);
  }
  CHECK(find_workload("topk") == nullptr);
  // The sizes the fingerprint table gives for each data tensor.
  const auto count = [](std::string_view name) {
    return element_count(find_workload(name)->shape);
  };
  CHECK(count("topk_rows") == std::int64_t{1} << 24);
  CHECK(count("segmax_1d") == std::int64_t{1} << 24);
  CHECK(count("topk_big_k") == std::int64_t{1} << 22);
  CHECK(count("topk_axis0") == std::int64_t{1} << 22);
  for (std::string_view r : {"reduce_inner", "reduce_outer", "reduce_middle", "reduce_all"})
    CHECK(count(r) == std::int64_t{1} << 26);
  CHECK(count("segmax_rows") == 64000000);
  CHECK(count("embsum") == 64000000);
  CHECK(find_workload("embsum")->indices == 2000000);
  CHECK(find_workload("segmax_1d")->segments == 1048576);
  // The core-op comparison's shapes: [256, 1024] x [1024, 1024] and [3136, 64] x [64, 64].
  for (auto [label, m, k, n] :
       {std::tuple{"mm", 256, 1024, 1024}, std::tuple{"mm1x1", 3136, 64, 64}}) {
    const std::string name = label;  // a copy: CAPTURE cannot take a structured binding
    CAPTURE(name);
    const Workload* w = find_workload(name);
    CHECK(w->op == OpKind::matmul);
    CHECK(w->shape == std::vector<std::int64_t>{m, k});
    CHECK(w->n == n);
  }
}

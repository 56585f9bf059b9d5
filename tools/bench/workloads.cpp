#include "workloads.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

namespace irlite::bench {

void uniform_pm1(std::uint64_t seed, std::span<float> out) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto v = static_cast<std::int64_t>(splitmix64(seed, i) >> 40) - (std::int64_t{1} << 23);
    out[i] = static_cast<float>(v) * 0x1p-23f;
  }
}

void uniform_01(std::uint64_t seed, std::span<float> out) {
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<float>(splitmix64(seed, i) >> 40) * 0x1p-24f;
}

void randint(std::uint64_t seed, std::uint64_t bound, std::span<std::int64_t> out) {
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::int64_t>(splitmix64(seed, i) % bound);
}

void sorted_segment_ids(std::uint64_t seed, std::int64_t segments, std::span<std::int64_t> out) {
  // A counting sort: the ids are drawn, counted, and written back in order.
  std::vector<std::int64_t> counts(static_cast<std::size_t>(segments));
  const auto bound = static_cast<std::uint64_t>(segments);
  for (std::size_t i = 0; i < out.size(); ++i) ++counts[splitmix64(seed, i) % bound];
  auto it = out.begin();
  for (std::int64_t s = 0; s < segments; ++s)
    it = std::fill_n(it, counts[static_cast<std::size_t>(s)], s);
}

const std::vector<Workload>& workloads() {
  using enum OpKind;
  static const std::vector<Workload> all = {
      {.name = "topk_rows", .op = topk, .shape = {256, 65536}, .axis = 1, .k = 16},
      {.name = "topk_big_k", .op = topk, .shape = {1024, 4096}, .axis = 1, .k = 1024},
      {.name = "topk_axis0", .op = topk, .shape = {4096, 1024}, .axis = 0, .k = 8},
      {.name = "reduce_inner", .op = reduce, .shape = {4096, 16384}, .axis = 1},
      {.name = "reduce_outer", .op = reduce, .shape = {4096, 16384}, .axis = 0},
      {.name = "reduce_middle", .op = reduce, .shape = {64, 1024, 1024}, .axis = 1},
      {.name = "reduce_all", .op = reduce, .shape = {67108864}, .axis = 0},
      {.name = "segmax_rows", .op = segmax, .shape = {1000000, 64}, .segments = 100000},
      {.name = "segmax_1d", .op = segmax, .shape = {16777216}, .segments = 1048576},
      {.name = "embsum",
       .op = embsum,
       .shape = {1000000, 64},
       .segments = 100000,
       .indices = 2000000},
      // The core-op peers' names: ../shared/peers/core_ops times ONNX Runtime on them.
      {.name = "mm", .op = matmul, .shape = {256, 1024}, .n = 1024},
      {.name = "mm1x1", .op = matmul, .shape = {3136, 64}, .n = 64},
  };
  return all;
}

const Workload* find_workload(std::string_view name) {
  const auto& all = workloads();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const Workload& w) { return w.name == name; });
  return it == all.end() ? nullptr : &*it;
}

std::int64_t element_count(std::span<const std::int64_t> shape) {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

}  // namespace irlite::bench

#pragma once
// The benchmark workloads of the peer comparison (PyTorch, NumPy, ONNX Runtime) and their
// inputs, rebuilt bit for bit from the same SplitMix64 streams the peer scripts use.
//
// Element i of a tensor, in row-major order, is made from output i of its stream:
//   float data, emb_table  seed 1  float(int64(u >> 40) - 2^23) * 2^-23, in [-1, 1)
//   segment_ids            seed 2  u % num_segments, then sorted ascending
//   indices (embsum)       seed 3  u % num_emb
//   per_sample_weights     seed 4  float(u >> 40) * 2^-24, in [0, 1)
//   MatMul's B (a Const)   seed 5  as float data, in [-1, 1)
// Every value is exact in float32, so sums of them are exact in double: the fingerprints of the
// peers' generator can be checked exactly.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace irlite::bench {

inline constexpr std::uint64_t kSeedData = 1;
inline constexpr std::uint64_t kSeedSegments = 2;
inline constexpr std::uint64_t kSeedIndices = 3;
inline constexpr std::uint64_t kSeedWeights = 4;
inline constexpr std::uint64_t kSeedMatrix = 5;

/// Output `i` (0-based) of the SplitMix64 stream seeded with `seed`.
constexpr std::uint64_t splitmix64(std::uint64_t seed, std::uint64_t i) noexcept {
  std::uint64_t x = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// out[i] = float(int64(u_i >> 40) - 2^23) * 2^-23: float data and embedding tables.
void uniform_pm1(std::uint64_t seed, std::span<float> out);
/// out[i] = float(u_i >> 40) * 2^-24: per-sample weights.
void uniform_01(std::uint64_t seed, std::span<float> out);
/// out[i] = u_i % bound: embedding indices.
void randint(std::uint64_t seed, std::uint64_t bound, std::span<std::int64_t> out);
/// u_i % segments for every i, sorted ascending: segment ids.
void sorted_segment_ids(std::uint64_t seed, std::int64_t segments, std::span<std::int64_t> out);

enum class OpKind { topk, reduce, segmax, embsum, matmul };

/// One workload, as in the peers' workloads.json. The models are TopK-3 (mode max, sort value,
/// i64 indices), ReduceMax-1 (keep_dims false), SegmentMax-16 and EmbeddingSegmentsSum-3; and
/// the two MatMul-1 shapes of the core-op comparison with ONNX Runtime (B a Const).
struct Workload {
  std::string_view name;
  OpKind op;
  /// The data's shape; the embedding table's for embsum; A's [M, K] for matmul.
  std::vector<std::int64_t> shape;
  std::int64_t axis = 0;      ///< topk and reduce: the one axis
  std::int64_t k = 0;         ///< topk
  std::int64_t segments = 0;  ///< segmax and embsum: num_segments
  std::int64_t indices = 0;   ///< embsum: the length of indices, segment_ids and weights
  std::int64_t n = 0;         ///< matmul: B's columns
};

/// The ten workloads, in the peers' order, then the two MatMuls.
const std::vector<Workload>& workloads();
/// The workload called `name`, or nullptr.
const Workload* find_workload(std::string_view name);
/// Product of the dims.
std::int64_t element_count(std::span<const std::int64_t> shape);

}  // namespace irlite::bench

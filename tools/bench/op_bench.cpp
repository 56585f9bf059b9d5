// Times each seed op on the benchmark workloads (the shapes the peer comparison uses), random f32
// data, and prints the median over repeated runs of infer + allocate + execute. The kernels run on
// a pool of --threads threads (default 1), as a Session with that many threads would run them.
//
//   build/tools/irlite_op_bench [--reps N] [--threads N] [WORKLOAD...]   (--help: the workloads)

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/parallel.hpp"
#include "irlite/irlite.hpp"
#include "core/attributes.hpp"
#include "graph/op.hpp"
#include "ops/registry.hpp"

namespace {

using namespace irlite;

std::mt19937_64 rng(1);

Tensor random_f32(Shape shape) {
  Tensor t(ElementType::f32, std::move(shape));
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (float& v : t.values<float>()) v = d(rng);
  return t;
}

Tensor i64_scalar(std::int64_t v) {
  Tensor t(ElementType::i64, {});
  t.data<std::int64_t>()[0] = v;
  return t;
}

Tensor i64_vector(std::vector<std::int64_t> values) {
  Tensor t(ElementType::i64, {static_cast<std::int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.data<std::int64_t>());
  return t;
}

Tensor random_ids(std::int64_t n, std::int64_t bound, bool sorted) {
  Tensor t(ElementType::i64, {n});
  std::uniform_int_distribution<std::int64_t> d(0, bound - 1);
  auto v = t.values<std::int64_t>();
  for (auto& x : v) x = d(rng);
  if (sorted) std::sort(v.begin(), v.end());
  return t;
}

struct Case {
  std::string type, opset;
  Attributes attributes;
  std::vector<Tensor> inputs;
};

struct Workload {
  std::string_view name;
  std::function<Case()> make;
};

const std::vector<Workload>& workloads() {
  static const std::vector<Workload> all = {
      {"topk_rows",
       [] {
         return Case{"TopK",
                     "opset11",
                     {{"axis", "1"}, {"mode", "max"}, {"sort", "value"}},
                     {random_f32({256, 65536}), i64_scalar(16)}};
       }},
      {"topk_big_k",
       [] {
         return Case{"TopK",
                     "opset11",
                     {{"axis", "1"}, {"mode", "max"}, {"sort", "value"}},
                     {random_f32({1024, 4096}), i64_scalar(1024)}};
       }},
      {"topk_axis0",
       [] {
         return Case{"TopK",
                     "opset11",
                     {{"axis", "0"}, {"mode", "max"}, {"sort", "value"}},
                     {random_f32({4096, 1024}), i64_scalar(8)}};
       }},
      {"reduce_inner",
       [] {
         return Case{"ReduceMax",
                     "opset1",
                     {{"keep_dims", "false"}},
                     {random_f32({4096, 16384}), i64_vector({1})}};
       }},
      {"reduce_outer",
       [] {
         return Case{"ReduceMax",
                     "opset1",
                     {{"keep_dims", "false"}},
                     {random_f32({4096, 16384}), i64_vector({0})}};
       }},
      {"reduce_middle",
       [] {
         return Case{"ReduceMax",
                     "opset1",
                     {{"keep_dims", "false"}},
                     {random_f32({64, 1024, 1024}), i64_vector({1})}};
       }},
      {"reduce_all",
       [] {
         return Case{"ReduceMax",
                     "opset1",
                     {{"keep_dims", "false"}},
                     {random_f32({67108864}), i64_vector({0})}};
       }},
      {"segmax_rows",
       [] {
         return Case{
             "SegmentMax",
             "opset16",
             {{"fill_mode", "zero"}},
             {random_f32({1000000, 64}), random_ids(1000000, 100000, true), i64_scalar(100000)}};
       }},
      {"segmax_1d",
       [] {
         return Case{
             "SegmentMax",
             "opset16",
             {{"fill_mode", "zero"}},
             {random_f32({16777216}), random_ids(16777216, 1048576, true), i64_scalar(1048576)}};
       }},
      {"embsum",
       [] {
         return Case{"EmbeddingSegmentsSum",
                     "opset3",
                     {},
                     {random_f32({1000000, 64}), random_ids(2000000, 1000000, false),
                      random_ids(2000000, 100000, true), i64_scalar(100000)}};
       }},
      // A feature map upsampled twice, as detection and segmentation necks do.
      {"interp_nearest",
       [] {
         return Case{"Interpolate",
                     "opset11",
                     {{"mode", "nearest"}, {"shape_calculation_mode", "sizes"}},
                     {random_f32({1, 64, 80, 80}), i64_vector({160, 160}), i64_vector({2, 3})}};
       }},
      {"interp_linear",
       [] {
         return Case{"Interpolate",
                     "opset11",
                     {{"mode", "linear"}, {"shape_calculation_mode", "sizes"}},
                     {random_f32({1, 64, 80, 80}), i64_vector({160, 160}), i64_vector({2, 3})}};
       }},
      {"mvn_nchw",
       [] {
         return Case{"MVN",
                     "opset6",
                     {{"eps", "1e-9"}, {"normalize_variance", "true"}, {"eps_mode", "inside_sqrt"}},
                     {random_f32({8, 64, 56, 56}), i64_vector({2, 3})}};
       }},
      {"mvn_layer",
       [] {
         return Case{"MVN",
                     "opset6",
                     {{"eps", "1e-9"}, {"normalize_variance", "true"}, {"eps_mode", "inside_sqrt"}},
                     {random_f32({1, 64, 112, 112}), i64_vector({1, 2, 3})}};
       }},
      {"l2_channels",
       [] {
         return Case{"NormalizeL2",
                     "opset1",
                     {{"eps", "1e-10"}, {"eps_mode", "add"}},
                     {random_f32({8, 256, 28, 28}), i64_vector({1})}};
       }},
  };
  return all;
}

double median_ms(const Case& c, int reps, const ExecContext& context) {
  std::string why;
  const OpDef* def = resolve_op(c.type, c.opset, &why);
  if (!def) throw Error(ErrorCode::unsupported, why);
  const auto op = def->create(c.attributes);
  std::vector<ValueInfo> infos;
  for (const Tensor& t : c.inputs)
    infos.push_back({t.element_type(), PartialShape::from_shape(t.shape()), &t});
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<Tensor> outputs;
    for (const OutputInfo& o : op->infer(infos)) outputs.emplace_back(o.type, o.shape.to_shape());
    op->execute(c.inputs, outputs, context);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void print_usage() {
  fmt::print(
      "usage: irlite_op_bench [--reps N] [--threads N] [WORKLOAD...]\n"
      "Times each op on the benchmark workloads (median of N runs, default 7) on a pool of\n"
      "--threads threads (default 1); names run only those workloads.\n"
      "workloads:");
  for (const Workload& w : workloads()) fmt::print(" {}", w.name);
  fmt::print("\n");
}

// The count after --reps or --threads: a positive integer, else nullopt.
std::optional<int> positive(int argc, char** argv, int i) {
  if (i >= argc) return std::nullopt;
  const std::string_view text = argv[i];
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1) return std::nullopt;
  return value;
}

[[noreturn]] void usage_error(const std::string& message) {
  fmt::print(stderr, "irlite_op_bench: error: {} (see 'irlite_op_bench --help')\n", message);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 7;
  unsigned threads = 1;
  std::vector<std::string> wanted;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      print_usage();
      return 0;
    }
    if (arg == "--reps" || arg == "--threads") {
      const auto n = positive(argc, argv, ++i);
      if (!n) usage_error(fmt::format("{} needs a positive integer", arg));
      if (arg == "--reps")
        reps = *n;
      else
        threads = static_cast<unsigned>(*n);
      continue;
    }
    if (arg.starts_with("-")) usage_error(fmt::format("unknown option '{}'", arg));
    const auto& all = workloads();
    if (std::none_of(all.begin(), all.end(), [&](const Workload& w) { return w.name == arg; }))
      usage_error(fmt::format("unknown workload '{}'", arg));
    wanted.emplace_back(arg);
  }
  ThreadPool pool(threads);
  const ExecContext context{Parallel(&pool)};
  try {
    for (const Workload& w : workloads()) {
      if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), w.name) == wanted.end())
        continue;
      const Case c = w.make();
      fmt::print("{:<14} {:>9.2f} ms  (median of {}, {} thread{})\n", w.name,
                 median_ms(c, reps, context), reps, threads, threads == 1 ? "" : "s");
    }
  } catch (const Error& e) {
    fmt::print(stderr, "irlite_op_bench: error: {}\n", e.what());
    return 1;
  }
  return 0;
}

// Times whole Session::run calls on small generated models, one thread: what the executor costs
// around the kernels (per-layer overhead, allocation, page faults, shape inference). Prints the
// median run time and page faults per run.
//
//   build/tools/irlite_run_bench [--reps N] [--layers N] [--keep] [WORKLOAD...]
//
// Workloads:
//   chain        --layers ReduceMax layers (default 10000) with empty axes (the identity) on a
//                [2] f32 tensor: the executor's cost per layer
//   copy         one such ReduceMax on 25 MiB of f32: allocating and first-touching the output
//   embsum       EmbeddingSegmentsSum, table [1000000,64] f32, 2M indices, 100000 segments,
//                static shapes
//   embsum_dyn   the same with the indices and segment ids of dynamic length
// --keep holds each run's outputs until the next run has finished (a caller that keeps them).

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "irlite/irlite.hpp"

namespace {

using namespace irlite;

/// An IR v11 document built layer by layer, each layer with one output. Ports carry no dims:
/// irlite infers them.
class IrWriter {
 public:
  /// A Parameter; returns its layer id.
  int parameter(std::string_view name, std::string_view type, std::string_view shape) {
    layers_ += fmt::format(
        "<layer id=\"{}\" name=\"{}\" type=\"Parameter\" version=\"opset1\">"
        "<data shape=\"{}\" element_type=\"{}\"/><output><port id=\"0\" precision=\"{}\" "
        "names=\"{}\"/></output></layer>\n",
        output_port_.size(), name, shape, type, precision(type), name);
    return add(0);
  }
  /// A Const of no bytes (an empty tensor) or of `bytes` in the weights.
  int constant(std::string_view name, std::string_view type, std::string_view shape,
               const std::vector<std::byte>& bytes = {}) {
    layers_ += fmt::format(
        "<layer id=\"{}\" name=\"{}\" type=\"Const\" version=\"opset1\">"
        "<data element_type=\"{}\" shape=\"{}\" offset=\"{}\" size=\"{}\"/>"
        "<output><port id=\"0\" precision=\"{}\"/></output></layer>\n",
        output_port_.size(), name, type, shape, weights_.size(), bytes.size(), precision(type));
    weights_.insert(weights_.end(), bytes.begin(), bytes.end());
    while (weights_.size() % 8) weights_.push_back(std::byte{0});
    return add(0);
  }
  /// A layer fed by the layers in `inputs`, whose output has element type `output_type`.
  int layer(std::string_view type, std::string_view opset, std::string_view data,
            const std::vector<int>& inputs, std::string_view output_type,
            std::string_view output_name = {}) {
    const std::size_t id = output_port_.size();
    std::string ports;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      ports += fmt::format("<port id=\"{}\"/>", k);
      edge(inputs[k], id, k);
    }
    const std::string names =
        output_name.empty() ? std::string() : fmt::format(" names=\"{}\"", output_name);
    layers_ += fmt::format(
        "<layer id=\"{}\" name=\"l{}\" type=\"{}\" version=\"{}\"><data {}/><input>{}</input>"
        "<output><port id=\"{}\" precision=\"{}\"{}/></output></layer>\n",
        id, id, type, opset, data, ports, inputs.size(), precision(output_type), names);
    return add(inputs.size());
  }
  /// A Result of `from`'s output.
  void result(int from) {
    const std::size_t id = output_port_.size();
    layers_ += fmt::format(
        "<layer id=\"{}\" name=\"r{}\" type=\"Result\" version=\"opset1\"><input><port "
        "id=\"0\"/></input></layer>\n",
        id, id);
    edge(from, id, 0);
    add(0);
  }
  std::string xml() const {
    return "<?xml version=\"1.0\"?>\n<net name=\"bench\" version=\"11\"><layers>\n" + layers_ +
           "</layers><edges>\n" + edges_ + "</edges></net>\n";
  }
  const std::vector<std::byte>& weights() const { return weights_; }

 private:
  static std::string_view precision(std::string_view type) {
    return type == "f32" ? "FP32" : "I64";
  }
  int add(std::size_t output_port) {
    output_port_.push_back(output_port);
    return static_cast<int>(output_port_.size() - 1);
  }
  void edge(int from, std::size_t to, std::size_t to_port) {
    edges_ +=
        fmt::format("<edge from-layer=\"{}\" from-port=\"{}\" to-layer=\"{}\" to-port=\"{}\"/>\n",
                    from, output_port_[static_cast<std::size_t>(from)], to, to_port);
  }

  std::vector<std::size_t> output_port_;  // per layer id
  std::string layers_, edges_;
  std::vector<std::byte> weights_;
};

std::vector<std::byte> i64_bytes(std::int64_t v) {
  std::vector<std::byte> b(8);
  std::memcpy(b.data(), &v, 8);
  return b;
}

std::mt19937_64 rng(1);

Tensor random_f32(Shape shape) {
  Tensor t(ElementType::f32, std::move(shape));
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (float& v : t.values<float>()) v = d(rng);
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

struct Workload {
  IrWriter ir;
  std::map<std::string, Tensor> inputs;
  std::size_t layers = 1;
};

Workload make_chain(std::size_t layers) {
  Workload w;
  w.layers = layers;
  int x = w.ir.parameter("x", "f32", "2");
  const int axes = w.ir.constant("axes", "i64", "0");
  for (std::size_t i = 0; i < layers; ++i)
    x = w.ir.layer("ReduceMax", "opset1", "keep_dims=\"false\"", {x, axes}, "f32",
                   i + 1 == layers ? "y" : "");
  w.ir.result(x);
  w.inputs["x"] = random_f32({2});
  return w;
}

Workload make_copy() {
  Workload w;
  const std::int64_t n = std::int64_t{25} << 18;  // 25 MiB of f32
  const int x = w.ir.parameter("x", "f32", std::to_string(n));
  const int axes = w.ir.constant("axes", "i64", "0");
  w.ir.result(w.ir.layer("ReduceMax", "opset1", "keep_dims=\"false\"", {x, axes}, "f32", "y"));
  w.inputs["x"] = random_f32({n});
  return w;
}

Workload make_embsum(bool dynamic) {
  Workload w;
  const std::int64_t rows = 1000000, n = 2000000, segments = 100000;
  const int table = w.ir.parameter("table", "f32", "1000000,64");
  const std::string n_shape = dynamic ? "?" : std::to_string(n);
  const int indices = w.ir.parameter("indices", "i64", n_shape);
  const int ids = w.ir.parameter("segment_ids", "i64", n_shape);
  const int num = w.ir.constant("num_segments", "i64", "", i64_bytes(segments));
  w.ir.result(
      w.ir.layer("EmbeddingSegmentsSum", "opset3", "", {table, indices, ids, num}, "f32", "y"));
  w.inputs["table"] = random_f32({rows, 64});
  w.inputs["indices"] = random_ids(n, rows, false);
  w.inputs["segment_ids"] = random_ids(n, segments, true);
  return w;
}

long minor_faults() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

template <class T>
T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 21;
  std::size_t layers = 10000;
  bool keep = false;
  std::vector<std::string> wanted;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--reps" && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--layers" && i + 1 < argc)
      layers = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i])));
    else if (arg == "--keep")
      keep = true;
    else
      wanted.emplace_back(arg);
  }
  const std::vector<std::pair<std::string_view, std::function<Workload()>>> all = {
      {"chain", [&] { return make_chain(layers); }},
      {"copy", make_copy},
      {"embsum", [] { return make_embsum(false); }},
      {"embsum_dyn", [] { return make_embsum(true); }},
  };
  try {
    for (const auto& [name, make] : all) {
      if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), name) == wanted.end())
        continue;
      const Workload w = make();
      const std::vector<std::byte>& weights = w.ir.weights();
      const Model model = Model::load_from_memory(w.ir.xml(), weights);
      Session session(model, SessionOptions{0, 1});
      std::vector<double> ms;
      std::vector<long> faults;
      irlite::Outputs kept;
      for (int r = 0; r < reps; ++r) {
        const long f0 = minor_faults();
        const auto start = std::chrono::steady_clock::now();
        irlite::Outputs out = session.run(w.inputs);
        const auto stop = std::chrono::steady_clock::now();
        faults.push_back(minor_faults() - f0);
        ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
        if (keep) kept = std::move(out);
      }
      const double med = median(ms);
      fmt::print("{:<12} {:>9.3f} ms/run {:>9.1f} ns/layer {:>7} page faults/run  (median of {})\n",
                 name, med, med * 1e6 / static_cast<double>(w.layers), median(faults), reps);
    }
  } catch (const Error& e) {
    fmt::print(stderr, "irlite_run_bench: error: {}\n", e.what());
    return 1;
  }
  return 0;
}

// irlite_bench: the peer comparison's workloads run through irlite's public API.
//
// For each workload it writes a one-op IR v11 model (Parameters for the data, i64 Consts for
// k, axes, num_segments and default_index), loads it with Model::load, builds the peers' inputs
// (workloads.hpp), checks the outputs of one run against plain loops, then times Session::run
// with the peers' rules: 2 warm-up runs, then timed runs until at least 5 runs and 2 s, at most
// 30. It prints one JSON line per workload in the peers' format, so the peers' summarize.py
// lists irlite beside them.
//
// Exit status: 0 success, 1 a wrong output or an irlite error, 2 a command-line error.

#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "irlite/irlite.hpp"
#include "workloads.hpp"

namespace {

namespace fs = std::filesystem;
using irlite::ElementType;
using irlite::Tensor;
using namespace irlite::bench;

// ------------------------------------------------------------------------------ input buffers

// An uninitialised buffer aligned to 2 MiB and advised to use transparent huge pages, as NumPy
// does for its large arrays: the peers' inputs get huge pages, so irlite's get them too.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes) : bytes_(bytes) {
    constexpr std::size_t kAlign = std::size_t{1} << 21;
    const std::size_t rounded = std::max(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
    data_.reset(static_cast<std::byte*>(std::aligned_alloc(kAlign, rounded)));
    if (!data_) throw std::bad_alloc();
    madvise(data_.get(), rounded, MADV_HUGEPAGE);  // a hint: without THP it does nothing
  }
  template <class T>
  std::span<T> as() {
    return {reinterpret_cast<T*>(data_.get()), bytes_ / sizeof(T)};
  }
  std::size_t bytes() const { return bytes_; }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::size_t bytes_;
  std::unique_ptr<std::byte, Free> data_;
};

// ------------------------------------------------------------------------------ the IR model

// A value of the model: a Parameter, a Const or an output of the op.
struct Value {
  std::string name;
  ElementType type;
  std::vector<std::int64_t> shape;
};

struct Const {
  Value value;
  std::string bytes;  // the little-endian data, as the .bin holds it
};

// One op fed by Parameters and Consts, each of its outputs going to a Result.
struct Graph {
  std::string name;
  std::vector<Value> parameters;
  std::vector<Const> consts;
  std::string op_type, opset;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<std::string> op_inputs;  // Parameter or Const names, in port order
  std::vector<Value> outputs;
};

std::string precision(ElementType t) {
  return t == ElementType::f32 ? "FP32" : t == ElementType::i64 ? "I64" : "?";
}

// The bytes of `values`: the IR's weights are little-endian, as is every machine irlite is
// benchmarked on.
template <class T>
std::string bytes_of(std::span<const T> values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size_bytes());
}

std::string dims_xml(const std::vector<std::int64_t>& shape, std::string_view indent) {
  std::string s;
  for (std::int64_t d : shape) s += fmt::format("{}<dim>{}</dim>\n", indent, d);
  return s;
}

std::string port_xml(std::int64_t id, const Value& v, std::string_view names,
                     std::string_view indent) {
  const std::string attrs = fmt::format(R"(id="{}" precision="{}"{})", id, precision(v.type),
                                        names.empty() ? "" : fmt::format(R"( names="{}")", names));
  if (v.shape.empty()) return fmt::format("{}<port {}/>\n", indent, attrs);
  return fmt::format("{}<port {}>\n{}{}</port>\n", indent, attrs,
                     dims_xml(v.shape, std::string(indent) + "\t"), indent);
}

// Writes `path` through a temporary file, so that a reader never sees half a file.
void write_file(const fs::path& path, std::string_view bytes) {
  const fs::path tmp = fs::path(path).concat(".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", tmp.string()));
  }
  fs::rename(tmp, path);
}

// Writes DIR/NAME.xml and DIR/NAME.bin in the layout OpenVINO's serializer uses: Parameters,
// Consts, the op, one Result per output; input ports 0..n-1 and output ports n.. on the op.
fs::path write_model(const Graph& g, const fs::path& dir) {
  std::map<std::string, std::int64_t> layer_of;
  std::string layers, edges, weights;
  std::int64_t id = 0;
  for (const Value& p : g.parameters) {
    std::string shape;
    for (std::int64_t d : p.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
    layers += fmt::format(
        "\t\t<layer id=\"{}\" name=\"{}\" type=\"Parameter\" version=\"opset1\">\n"
        "\t\t\t<data shape=\"{}\" element_type=\"{}\"/>\n\t\t\t<output>\n{}\t\t\t</output>\n"
        "\t\t</layer>\n",
        id, p.name, shape, irlite::to_string(p.type), port_xml(0, p, p.name, "\t\t\t\t"));
    layer_of[p.name] = id++;
  }
  for (const Const& c : g.consts) {
    std::string shape;
    for (std::int64_t d : c.value.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    layers += fmt::format(
        "\t\t<layer id=\"{}\" name=\"{}\" type=\"Const\" version=\"opset1\">\n"
        "\t\t\t<data element_type=\"{}\" shape=\"{}\" offset=\"{}\" size=\"{}\"/>\n"
        "\t\t\t<output>\n{}\t\t\t</output>\n\t\t</layer>\n",
        id, c.value.name, irlite::to_string(c.value.type), shape, weights.size(), c.bytes.size(),
        port_xml(0, c.value, c.value.name, "\t\t\t\t"));
    weights += c.bytes;
    layer_of[c.value.name] = id++;
  }
  const std::int64_t op = id++;
  std::string attributes, inputs, outputs;
  for (const auto& [key, value] : g.attributes) attributes += fmt::format(" {}=\"{}\"", key, value);
  const auto n_in = static_cast<std::int64_t>(g.op_inputs.size());
  for (std::int64_t port = 0; port < n_in; ++port) {
    const std::string& name = g.op_inputs[static_cast<std::size_t>(port)];
    const auto p = std::find_if(g.parameters.begin(), g.parameters.end(),
                                [&](const Value& v) { return v.name == name; });
    const auto c = std::find_if(g.consts.begin(), g.consts.end(),
                                [&](const Const& k) { return k.value.name == name; });
    inputs += port_xml(port, p != g.parameters.end() ? *p : c->value, "", "\t\t\t\t");
    edges += fmt::format(
        "\t\t<edge from-layer=\"{}\" from-port=\"0\" to-layer=\"{}\" to-port=\"{}\"/>\n",
        layer_of.at(name), op, port);
  }
  std::string results;
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    const Value& out = g.outputs[i];
    const std::int64_t port = n_in + static_cast<std::int64_t>(i);
    outputs += port_xml(port, out, out.name, "\t\t\t\t");
    results += fmt::format(
        "\t\t<layer id=\"{}\" name=\"{}/sink_port_0\" type=\"Result\" version=\"opset1\">\n"
        "\t\t\t<input>\n{}\t\t\t</input>\n\t\t</layer>\n",
        id, out.name, port_xml(0, out, "", "\t\t\t\t"));
    edges += fmt::format(
        "\t\t<edge from-layer=\"{}\" from-port=\"{}\" to-layer=\"{}\" to-port=\"0\"/>\n", op, port,
        id++);
  }
  layers += fmt::format(
      "\t\t<layer id=\"{}\" name=\"{}\" type=\"{}\" version=\"{}\">\n"
      "{}\t\t\t<input>\n{}\t\t\t</input>\n\t\t\t<output>\n{}\t\t\t</output>\n\t\t</layer>\n",
      op, g.name, g.op_type, g.opset,
      attributes.empty() ? "" : fmt::format("\t\t\t<data{}/>\n", attributes), inputs, outputs);
  layers += results;
  const std::string xml = fmt::format(
      "<?xml version=\"1.0\"?>\n<net name=\"{}\" version=\"11\">\n\t<layers>\n{}\t</layers>\n"
      "\t<edges>\n{}\t</edges>\n\t<rt_info/>\n</net>\n",
      g.name, layers, edges);
  fs::create_directories(dir);
  const fs::path xml_path = dir / (std::string(g.name) + ".xml");
  write_file(xml_path, xml);
  write_file(dir / (std::string(g.name) + ".bin"), weights);
  return xml_path;
}

// ------------------------------------------------------------------------------ workloads

struct Case {
  Graph graph;
  std::vector<Buffer> buffers;  // the inputs' storage
  std::map<std::string, Tensor> inputs;
  std::size_t input_bytes = 0;
};

template <class T>
std::span<T> add_input(Case& c, const std::string& name, ElementType type,
                       std::vector<std::int64_t> shape) {
  const auto n = static_cast<std::size_t>(element_count(shape));
  Buffer& b = c.buffers.emplace_back(n * sizeof(T));
  c.inputs.emplace(name, Tensor::view(type, shape, static_cast<const void*>(b.as<T>().data())));
  c.graph.parameters.push_back({name, type, std::move(shape)});
  c.input_bytes += b.bytes();
  return b.as<T>();
}

void add_const(Case& c, const std::string& name, std::vector<std::int64_t> shape,
               const std::vector<std::int64_t>& data) {
  c.graph.consts.push_back(
      {{name, ElementType::i64, std::move(shape)}, bytes_of(std::span(data))});
}

Case make_case(const Workload& w) {
  Case c;
  c.graph.name = std::string(w.name);
  const std::vector<std::int64_t>& shape = w.shape;
  const auto axis = static_cast<std::size_t>(w.axis);
  switch (w.op) {
    case OpKind::topk: {
      uniform_pm1(kSeedData, add_input<float>(c, "data", ElementType::f32, shape));
      add_const(c, "k", {}, {w.k});
      std::vector<std::int64_t> out = shape;
      out[axis] = w.k;
      c.graph.op_type = "TopK";
      c.graph.opset = "opset3";
      c.graph.attributes = {{"axis", std::to_string(w.axis)},
                            {"mode", "max"},
                            {"sort", "value"},
                            {"index_element_type", "i64"}};
      c.graph.op_inputs = {"data", "k"};
      c.graph.outputs = {{"values", ElementType::f32, out}, {"indices", ElementType::i64, out}};
      break;
    }
    case OpKind::reduce: {
      uniform_pm1(kSeedData, add_input<float>(c, "data", ElementType::f32, shape));
      add_const(c, "axes", {1}, {w.axis});
      std::vector<std::int64_t> out = shape;
      out.erase(out.begin() + w.axis);
      c.graph.op_type = "ReduceMax";
      c.graph.opset = "opset1";
      c.graph.attributes = {{"keep_dims", "false"}};
      c.graph.op_inputs = {"data", "axes"};
      c.graph.outputs = {{"reduce_max", ElementType::f32, out}};
      break;
    }
    case OpKind::segmax: {
      uniform_pm1(kSeedData, add_input<float>(c, "data", ElementType::f32, shape));
      sorted_segment_ids(kSeedSegments, w.segments,
                         add_input<std::int64_t>(c, "segment_ids", ElementType::i64, {shape[0]}));
      add_const(c, "num_segments", {}, {w.segments});
      std::vector<std::int64_t> out = shape;
      out[0] = w.segments;
      c.graph.op_type = "SegmentMax";
      c.graph.opset = "opset16";
      // Empty segments (4 in segmax_rows) are 0, as NumPy and torch.scatter_reduce give.
      c.graph.attributes = {{"fill_mode", "zero"}};
      c.graph.op_inputs = {"data", "segment_ids", "num_segments"};
      c.graph.outputs = {{"segment_max", ElementType::f32, out}};
      break;
    }
    case OpKind::embsum: {
      uniform_pm1(kSeedData, add_input<float>(c, "emb_table", ElementType::f32, shape));
      randint(kSeedIndices, static_cast<std::uint64_t>(shape[0]),
              add_input<std::int64_t>(c, "indices", ElementType::i64, {w.indices}));
      sorted_segment_ids(kSeedSegments, w.segments,
                         add_input<std::int64_t>(c, "segment_ids", ElementType::i64, {w.indices}));
      uniform_01(kSeedWeights,
                 add_input<float>(c, "per_sample_weights", ElementType::f32, {w.indices}));
      add_const(c, "num_segments", {}, {w.segments});
      // The weights are input 5, so input 4 must be fed: -1 is "no default index" (an empty
      // segment is zeros; no segment is empty here).
      add_const(c, "default_index", {}, {-1});
      std::vector<std::int64_t> out = shape;
      out[0] = w.segments;
      c.graph.op_type = "EmbeddingSegmentsSum";
      c.graph.opset = "opset3";
      c.graph.op_inputs = {"emb_table",    "indices",       "segment_ids",
                           "num_segments", "default_index", "per_sample_weights"};
      c.graph.outputs = {{"embedding_segments_sum", ElementType::f32, out}};
      break;
    }
    case OpKind::matmul: {
      uniform_pm1(kSeedData, add_input<float>(c, "a", ElementType::f32, shape));
      // B is a Const, as a layer's weights are: a model may prepare it once at load.
      std::vector<float> b(static_cast<std::size_t>(shape[1] * w.n));
      uniform_pm1(kSeedMatrix, b);
      c.graph.consts.push_back(
          {{"b", ElementType::f32, {shape[1], w.n}}, bytes_of(std::span<const float>(b))});
      c.graph.op_type = "MatMul";
      c.graph.opset = "opset1";
      c.graph.attributes = {{"transpose_a", "false"}, {"transpose_b", "false"}};
      c.graph.op_inputs = {"a", "b"};
      c.graph.outputs = {{"y", ElementType::f32, {shape[0], w.n}}};
      break;
    }
  }
  return c;
}

// ------------------------------------------------------------------------------ checks

// A wrong output: the workload is not timed.
struct Mismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class... Args>
[[noreturn]] void mismatch(fmt::format_string<Args...> format, Args&&... args) {
  throw Mismatch(fmt::format(format, std::forward<Args>(args)...));
}

const Tensor& output(const irlite::Outputs& outputs, const Value& v) {
  const auto it = outputs.find(v.name);
  if (it == outputs.end()) mismatch("no output '{}'", v.name);
  const Tensor& t = it->second;
  if (t.element_type() != v.type || t.shape() != v.shape)
    mismatch("output '{}' is {} {}, expected {} {}", v.name, irlite::to_string(t.element_type()),
             irlite::to_string(t.shape()), irlite::to_string(v.type), irlite::to_string(v.shape));
  return t;
}

// The data seen as [outer, axis, inner].
struct Split {
  std::size_t outer = 1, extent = 1, inner = 1;
};

Split split(const std::vector<std::int64_t>& shape, std::size_t axis) {
  Split s;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const auto n = static_cast<std::size_t>(shape[d]);
    (d < axis ? s.outer : d == axis ? s.extent : s.inner) *= n;
  }
  return s;
}

// Every slice against a partial sort of it. Values must match exactly; an index must point at
// its value and appear once (among equal values any index may come first).
void check_topk(const Workload& w, std::span<const float> data, const Tensor& values,
                const Tensor& indices) {
  const Split s = split(w.shape, static_cast<std::size_t>(w.axis));
  const auto k = static_cast<std::size_t>(w.k);
  const float* v = values.data<float>();
  const std::int64_t* ix = indices.data<std::int64_t>();
  std::vector<std::pair<float, std::int64_t>> slice(s.extent);
  std::vector<std::int64_t> seen(k);
  for (std::size_t o = 0; o < s.outer; ++o) {
    for (std::size_t i = 0; i < s.inner; ++i) {
      for (std::size_t a = 0; a < s.extent; ++a)
        slice[a] = {data[(o * s.extent + a) * s.inner + i], static_cast<std::int64_t>(a)};
      std::partial_sort(slice.begin(), slice.begin() + static_cast<std::ptrdiff_t>(k), slice.end(),
                        [](const auto& x, const auto& y) {
                          return x.first > y.first || (x.first == y.first && x.second < y.second);
                        });
      for (std::size_t j = 0; j < k; ++j) {
        const std::size_t at = (o * k + j) * s.inner + i;
        if (v[at] != slice[j].first)
          mismatch("values[{}] = {}, expected {} (slice {}, rank {})", at, v[at], slice[j].first,
                   o * s.inner + i, j);
        const std::int64_t idx = ix[at];
        if (idx < 0 || static_cast<std::size_t>(idx) >= s.extent ||
            data[(o * s.extent + static_cast<std::size_t>(idx)) * s.inner + i] != v[at])
          mismatch("indices[{}] = {} does not point at its value {}", at, idx, v[at]);
        seen[j] = idx;
      }
      std::sort(seen.begin(), seen.end());
      if (std::adjacent_find(seen.begin(), seen.end()) != seen.end())
        mismatch("slice {}: an index appears twice", o * s.inner + i);
    }
  }
}

void check_reduce(const Workload& w, std::span<const float> data, const Tensor& out) {
  const Split s = split(w.shape, static_cast<std::size_t>(w.axis));
  std::vector<float> ref(s.outer * s.inner, -std::numeric_limits<float>::infinity());
  for (std::size_t o = 0; o < s.outer; ++o)
    for (std::size_t a = 0; a < s.extent; ++a)
      for (std::size_t i = 0; i < s.inner; ++i)
        ref[o * s.inner + i] =
            std::max(ref[o * s.inner + i], data[(o * s.extent + a) * s.inner + i]);
  const float* got = out.data<float>();
  for (std::size_t j = 0; j < ref.size(); ++j)
    if (got[j] != ref[j]) mismatch("reduce_max[{}] = {}, expected {}", j, got[j], ref[j]);
}

// Segments walked in order over the sorted ids: rows [begin, end) hold segment s.
template <class F>
void for_each_segment(std::span<const std::int64_t> ids, std::int64_t segments, F&& f) {
  std::size_t end = 0;
  for (std::int64_t s = 0; s < segments; ++s) {
    const std::size_t begin = end;
    while (end < ids.size() && ids[end] == s) ++end;
    f(static_cast<std::size_t>(s), begin, end);
  }
}

void check_segmax(const Workload& w, std::span<const float> data, std::span<const std::int64_t> ids,
                  const Tensor& out) {
  const std::size_t row = data.size() / ids.size();
  const float* got = out.data<float>();
  std::vector<float> ref(row);
  for_each_segment(ids, w.segments, [&](std::size_t s, std::size_t begin, std::size_t end) {
    std::fill(ref.begin(), ref.end(),
              begin == end ? 0.0f : -std::numeric_limits<float>::infinity());
    for (std::size_t r = begin; r < end; ++r)
      for (std::size_t c = 0; c < row; ++c) ref[c] = std::max(ref[c], data[r * row + c]);
    for (std::size_t c = 0; c < row; ++c)
      if (got[s * row + c] != ref[c])
        mismatch("segment_max[{}, {}] = {}, expected {} (rows {}..{})", s, c, got[s * row + c],
                 ref[c], begin, end);
  });
}

// Sums in double; a float sum of n products in any order is within about (n + 1) * 2^-24 of the
// sum of their magnitudes.
void check_embsum(const Workload& w, std::span<const float> table,
                  std::span<const std::int64_t> idx, std::span<const std::int64_t> ids,
                  std::span<const float> weights, const Tensor& out) {
  const auto row = static_cast<std::size_t>(w.shape[1]);
  const float* got = out.data<float>();
  std::vector<double> ref(row), magnitude(row);
  for_each_segment(ids, w.segments, [&](std::size_t s, std::size_t begin, std::size_t end) {
    std::fill(ref.begin(), ref.end(), 0.0);
    std::fill(magnitude.begin(), magnitude.end(), 0.0);
    for (std::size_t j = begin; j < end; ++j) {
      const float* r = &table[static_cast<std::size_t>(idx[j]) * row];
      for (std::size_t c = 0; c < row; ++c) {
        const double term = static_cast<double>(weights[j]) * static_cast<double>(r[c]);
        ref[c] += term;
        magnitude[c] += std::abs(term);
      }
    }
    const double n = static_cast<double>(end - begin);
    for (std::size_t c = 0; c < row; ++c) {
      const double g = static_cast<double>(got[s * row + c]);
      if (!(std::abs(g - ref[c]) <= (n + 2) * 0x1p-23 * magnitude[c]))
        mismatch("embedding_segments_sum[{}, {}] = {}, expected {} (indices {}..{})", s, c, g,
                 ref[c], begin, end);
    }
  });
}

// Sums in double against the float result, with the bound check_embsum uses: a float sum of K
// products in any order (blocked, fused multiply-adds) is within about (K + 1) * 2^-24 of the
// sum of their magnitudes.
void check_matmul(const Workload& w, std::span<const float> a, std::span<const float> b,
                  const Tensor& out) {
  const auto m = static_cast<std::size_t>(w.shape[0]);
  const auto k = static_cast<std::size_t>(w.shape[1]);
  const auto n = static_cast<std::size_t>(w.n);
  const float* got = out.data<float>();
  std::vector<double> ref(n), magnitude(n);
  for (std::size_t i = 0; i < m; ++i) {
    std::fill(ref.begin(), ref.end(), 0.0);
    std::fill(magnitude.begin(), magnitude.end(), 0.0);
    for (std::size_t p = 0; p < k; ++p) {
      const double x = a[i * k + p];
      for (std::size_t j = 0; j < n; ++j) {
        const double term = x * static_cast<double>(b[p * n + j]);
        ref[j] += term;
        magnitude[j] += std::abs(term);
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      const double g = static_cast<double>(got[i * n + j]);
      if (!(std::abs(g - ref[j]) <= (static_cast<double>(k) + 2) * 0x1p-23 * magnitude[j]))
        mismatch("y[{}, {}] = {}, expected {}", i, j, g, ref[j]);
    }
  }
}

void check(const Workload& w, Case& c, const irlite::Outputs& outputs) {
  const auto f32 = [&](std::size_t i) { return c.buffers[i].as<const float>(); };
  const auto i64 = [&](std::size_t i) { return c.buffers[i].as<const std::int64_t>(); };
  const std::vector<Value>& o = c.graph.outputs;
  switch (w.op) {
    case OpKind::topk:
      return check_topk(w, f32(0), output(outputs, o[0]), output(outputs, o[1]));
    case OpKind::reduce:
      return check_reduce(w, f32(0), output(outputs, o[0]));
    case OpKind::segmax:
      return check_segmax(w, f32(0), i64(1), output(outputs, o[0]));
    case OpKind::embsum:
      return check_embsum(w, f32(0), i64(1), i64(2), f32(3), output(outputs, o[0]));
    case OpKind::matmul: {
      const Const& b = c.graph.consts.at(0);
      return check_matmul(w, f32(0),
                          {reinterpret_cast<const float*>(b.bytes.data()), b.bytes.size() / 4},
                          output(outputs, o[0]));
    }
  }
}

// ------------------------------------------------------------------------------ timing

struct Timing {
  double median_ms = 0, min_ms = 0;
  std::size_t iters = 0;
};

// The peers' rules: 2 warm-up runs, then timed runs until at least 5 runs and 2 s, at most 30
// (or exactly `reps` runs). The outputs are released inside the timed region, as a Python
// caller's are when it drops the result.
Timing time_runs(irlite::Session& session, const std::map<std::string, Tensor>& inputs,
                 std::size_t reps) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < 2; ++i) session.run(inputs);
  std::vector<double> ms;
  const auto start = Clock::now();
  const auto more = [&] {
    if (reps > 0) return ms.size() < reps;
    return ms.size() < 30 && (ms.size() < 5 || Clock::now() - start < std::chrono::seconds(2));
  };
  while (more()) {
    const auto t0 = Clock::now();
    session.run(inputs);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  return {n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2, ms.front(), n};
}

// x rounded to `digits` decimals, as Python's round(): printed in the shortest form that reads
// back the same double, it has at most that many decimals.
double round_to(double x, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(x * scale) / scale;
}

// The process's peak resident set so far, in MB (10^6 bytes).
double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024 / 1e6;  // ru_maxrss is in KiB on Linux
}

// A field of /proc/self/status in MB ("VmRSS": resident now, "VmHWM": its peak); -1 where the
// system has no such file.
double status_mb(std::string_view field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with(field) && line.size() > field.size() && line[field.size()] == ':')
      return std::strtod(line.c_str() + field.size() + 1, nullptr) * 1024 / 1e6;  // in kB
  return -1;
}

// Makes VmHWM start again from the current resident set (Linux 4.0 and later).
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

void bench(const Workload& w, unsigned threads, std::size_t reps, const fs::path& dir) {
  // What the program holds before the workload: its code, the libraries, the heap's start.
  const double base_mb = status_mb("VmRSS");
  Case c = make_case(w);
  const irlite::Model model = irlite::Model::load(write_model(c.graph, dir));
  if (!model.warnings().empty())
    throw std::runtime_error(
        fmt::format("the generated model is not as intended: {}", model.warnings().front().what()));
  irlite::SessionOptions options;
  options.num_threads = threads;
  irlite::Session session(model, options);
  std::size_t output_bytes = 0;
  {
    const irlite::Outputs outputs = session.run(c.inputs);
    check(w, c, outputs);
    for (const auto& [name, t] : outputs) output_bytes += t.byte_size();
  }
  // The peak while the runs are timed: the inputs, the model, the session and each run's
  // outputs and intermediates, without what loading and the check above held for a while.
  reset_peak_rss();
  const Timing t = time_runs(session, c.inputs, reps);
  const double run_peak_mb = status_mb("VmHWM");
  fmt::print(
      "{{\"peer\": \"irlite\", \"workload\": \"{}\", \"threads\": {}, \"median_ms\": {}, "
      "\"min_ms\": {}, \"iters\": {}, \"impl\": \"irlite {}\", \"peak_rss_mb\": {}, "
      "\"io_mb\": {}, \"run_peak_rss_mb\": {}, \"base_rss_mb\": {}}}\n",
      w.name, session.options().num_threads, round_to(t.median_ms, 3), round_to(t.min_ms, 3),
      t.iters, irlite::version(), round_to(peak_rss_mb(), 1),
      round_to(static_cast<double>(c.input_bytes + output_bytes) / 1e6, 1),
      round_to(run_peak_mb, 1), round_to(base_mb, 1));
  std::fflush(stdout);
}

fs::path default_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return (ec ? fs::current_path() : exe.parent_path()) / "bench-models";
}

constexpr const char* kFooter = R"(
Prints one JSON line per workload, in the format of the peer scripts:
  {"peer": "irlite", "workload": ..., "threads": ..., "median_ms": ..., "min_ms": ...,
   "iters": ..., "impl": "irlite VERSION", "peak_rss_mb": ..., "io_mb": ...,
   "run_peak_rss_mb": ..., "base_rss_mb": ...}
peak_rss_mb is the process's peak resident set so far (run one workload per process to
get each one's own); io_mb is the bytes of the inputs and outputs; run_peak_rss_mb the peak
while the runs are timed, and base_rss_mb the resident set before the workload was made
(the program's code and libraries). MB = 10^6 bytes.
Every output is checked against plain loops before timing; a wrong one stops the program
with status 1. Exit status: 0 success, 1 wrong output or irlite error, 2 usage error.)";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"irlite_bench: time irlite on the peer comparison's workloads", "irlite_bench"};
  app.footer(kFooter);
  unsigned threads = 1;
  std::size_t reps = 0;
  std::string dir;
  std::vector<std::string> names;
  app.add_option("--threads", threads, "SessionOptions::num_threads (default 1; 0: one per CPU)")
      ->type_name("N")
      ->check(CLI::Range(0, 1024));
  app.add_option("--reps", reps,
                 "Time exactly R runs (default: at least 5 runs and 2 s, at most 30)")
      ->type_name("R")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--dir", dir,
                 "Where the models are written (default: bench-models beside the program)")
      ->type_name("DIR");
  bool list = false;
  app.add_flag("--list", list, "Print the workload names, one a line, and exit");
  std::string known;
  for (const Workload& w : workloads())
    known += fmt::format("{}{}", known.empty() ? "" : ", ", w.name);
  app.add_option("workloads", names, "Workloads to run (default: all): " + known)
      ->type_name("WORKLOAD");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e, std::cout, std::cerr);
    fmt::print(stderr, "irlite_bench: error: {} (see 'irlite_bench --help')\n", e.what());
    return 2;
  }
  if (list) {
    for (const Workload& w : workloads()) fmt::print("{}\n", w.name);
    return 0;
  }
  std::vector<const Workload*> selected;
  for (const std::string& name : names) {
    const Workload* w = find_workload(name);
    if (!w) {
      fmt::print(stderr, "irlite_bench: error: unknown workload '{}'; known: {}\n", name, known);
      return 2;
    }
    selected.push_back(w);
  }
  if (selected.empty())
    for (const Workload& w : workloads()) selected.push_back(&w);

  const fs::path models = dir.empty() ? default_dir() : fs::path(dir);
  for (const Workload* w : selected) {
    try {
      bench(*w, threads, reps, models);
    } catch (const Mismatch& e) {
      fmt::print(stderr, "irlite_bench: {}: wrong output: {}\n", w->name, e.what());
      return 1;
    } catch (const std::bad_alloc&) {
      fmt::print(stderr, "irlite_bench: {}: out of memory\n", w->name);
      return 1;
    } catch (const std::exception& e) {
      fmt::print(stderr, "irlite_bench: {}: error: {}\n", w->name, e.what());
      return 1;
    }
  }
  return 0;
}

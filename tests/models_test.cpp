// The sample models under models/: every valid one loads and runs, the specification examples
// give the results their comments promise, Consts come back bit for bit, and every broken model
// in models/invalid/ is refused with the error models/invalid/expected.txt names.

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "npy.hpp"

using namespace irlite;

namespace {

namespace fs = std::filesystem;

const fs::path kModels = IRLITE_MODELS;

std::vector<fs::path> xml_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".xml")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// A concrete shape inside a partial one: dynamic dimensions take 4, moved into their interval.
Shape concrete(const PartialShape& shape) {
  Shape out;
  for (const Dimension& d : shape.dims()) {
    std::int64_t n = std::max<std::int64_t>(d.min(), 4);
    if (d.has_upper_bound()) n = std::min(n, d.max());
    out.push_back(n);
  }
  return out;
}

// Deterministic values that are valid for every sample model: integers cycle through 0..3 (valid
// indices, segment ids below 4 and k values), reals through -5..5, booleans alternate.
Tensor deterministic(ElementType type, const Shape& shape) {
  Tensor t(type, shape);
  if (type == ElementType::boolean) {
    auto* p = t.data<std::uint8_t>();
    for (std::size_t i = 0; i < t.size(); ++i) p[i] = static_cast<std::uint8_t>(i % 2);
    return t;
  }
  const bool numeric = dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (std::size_t i = 0; i < t.size(); ++i) {
      if constexpr (is_float_storage_v<T>)
        p[i] = T(static_cast<compute_t<T>>(static_cast<int>((i * 7) % 11) - 5));
      else
        p[i] = static_cast<T>(i % 4);
    }
  });
  REQUIRE(numeric);
  return t;
}

std::map<std::string, Tensor> deterministic_inputs(const Model& model) {
  std::map<std::string, Tensor> inputs;
  for (const PortInfo& in : model.inputs())
    inputs[in.name] = deterministic(in.element_type, concrete(in.shape));
  return inputs;
}

Outputs run(const Model& model, const std::map<std::string, Tensor>& in) {
  Session session(model);
  return session.run(in);
}

Outputs run_file(const std::string& name, const std::map<std::string, Tensor>& in = {}) {
  return run(Model::load(kModels / name), in);
}

template <class T>
std::vector<T> values_of(const Tensor& t) {
  auto v = t.values<T>();
  return {v.begin(), v.end()};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot read " << path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Reads one of the example inputs under models/inputs/: a version 1.0 .npy file holding a 1-D
// little-endian int32 array, as generate_models.py writes them.
Tensor read_i32_npy(const fs::path& path) {
  const std::string bytes = read_text(path);
  REQUIRE(bytes.size() >= 10);
  REQUIRE(bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
  const std::size_t header_len =
      static_cast<unsigned char>(bytes[8]) + 256u * static_cast<unsigned char>(bytes[9]);
  const std::string header = bytes.substr(10, header_len);
  REQUIRE(header.find("'descr': '<i4'") != std::string::npos);
  REQUIRE(header.find("'fortran_order': False") != std::string::npos);
  const auto open = header.find("'shape': (");
  REQUIRE(open != std::string::npos);
  const std::int64_t n = std::stoll(header.substr(open + 10));
  const std::size_t data = 10 + header_len;
  REQUIRE(bytes.size() == data + static_cast<std::size_t>(n) * 4);
  Tensor t(ElementType::i32, {n});
  std::memcpy(t.data(), bytes.data() + data, t.byte_size());
  return t;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  if (a.element_type() != b.element_type() || a.shape() != b.shape()) return false;
  return a.byte_size() == 0 || std::memcmp(a.data(), b.data(), a.byte_size()) == 0;
}

}  // namespace

TEST_CASE("models: every sample model loads and runs on deterministic inputs") {
  std::vector<fs::path> files = xml_files(kModels);
  const std::vector<fs::path> types = xml_files(kModels / "types");
  files.insert(files.end(), types.begin(), types.end());
  REQUIRE(files.size() >= 20);
  for (const fs::path& file : files) {
    INFO("model: " << file.string());
    Model model = Model::load(file);
    CHECK(model.ir_version() == 11);
    CHECK(model.problems().empty());
    CHECK_FALSE(model.outputs().empty());
    Outputs outputs;
    REQUIRE_NOTHROW(outputs = run(model, deterministic_inputs(model)));
    REQUIRE(outputs.size() == model.outputs().size());
    for (const PortInfo& out : model.outputs()) {
      INFO("output: " << out.name);
      REQUIRE(outputs.contains(out.name));
      const Tensor& t = outputs.at(out.name);
      CHECK(t.element_type() == out.element_type);
      CHECK(out.shape.accepts(t.shape()));
    }
  }
}

TEST_CASE("models: identity models hand their input back unchanged") {
  std::vector<fs::path> files;
  for (const fs::path& f : xml_files(kModels / "types"))
    if (f.filename().string().rfind("identity_", 0) == 0) files.push_back(f);
  CHECK(files.size() == 13);
  files.push_back(kModels / "dynamic_identity.xml");
  files.push_back(kModels / "interval_identity.xml");
  for (const fs::path& file : files) {
    INFO("model: " << file.string());
    Model model = Model::load(file);
    REQUIRE(model.inputs().size() == 1);
    const auto inputs = deterministic_inputs(model);
    const auto outputs = run(model, inputs);
    REQUIRE(outputs.size() == 1);
    CHECK(same_bytes(outputs.begin()->second, inputs.begin()->second));
  }
}

TEST_CASE("models: dynamic and interval identities accept exactly the shapes they declare") {
  Model dynamic = Model::load(kModels / "dynamic_identity.xml");
  CHECK(dynamic.is_dynamic());
  CHECK(to_string(dynamic.inputs()[0].shape) == "[?,3]");
  for (std::int64_t n : {0, 1, 7}) {
    Tensor x = deterministic(ElementType::f32, {n, 3});
    CHECK(same_bytes(run(dynamic, {{"x", x}}).at("x"), x));
  }

  Model interval = Model::load(kModels / "interval_identity.xml");
  CHECK(interval.is_dynamic());
  CHECK(to_string(interval.inputs()[0].shape) == "[2..8,3]");
  for (std::int64_t n : {2, 8}) {
    Tensor x = deterministic(ElementType::f32, {n, 3});
    CHECK(same_bytes(run(interval, {{"x", x}}).at("x"), x));
  }
  for (std::int64_t n : {1, 9}) {
    INFO("rows: " << n);
    try {
      run(interval, {{"x", deterministic(ElementType::f32, {n, 3})}});
      FAIL("an input outside 2..8 rows was accepted");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::input);
    }
  }
}

TEST_CASE("models: SegmentMax-16 specification examples") {
  auto out = run_file("segment_max_example1.xml").at("segment_max");
  CHECK(out.element_type() == ElementType::f32);
  CHECK(out.shape() == Shape{2});
  CHECK(values_of<float>(out) == std::vector<float>{-1.5f, 0.0f});

  out = run_file("segment_max_example2.xml").at("segment_max");
  CHECK(out.shape() == Shape{8});
  CHECK(values_of<float>(out) == std::vector<float>{-1.5f, 0, 0.5f, 4, 0, 0, 0, 0});

  out = run_file("segment_max_example3.xml").at("segment_max");
  CHECK(out.element_type() == ElementType::i32);
  CHECK(out.shape() == Shape{2, 4});
  CHECK(values_of<std::int32_t>(out) == std::vector<std::int32_t>{1, 2, 3, 4, 5, 10, 7, 8});
}

TEST_CASE("models: EmbeddingSegmentsSum-3 specification example") {
  const Tensor out = run_file("embedding_segments_sum_example.xml").at("embedding_segments_sum");
  REQUIRE(out.element_type() == ElementType::f32);
  REQUIRE(out.shape() == Shape{3, 2});
  const std::vector<double> expected{-1.05, -1.2, -0.2, -0.6, -0.1, 0.4};
  const auto got = out.values<float>();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("element " << i);
    CHECK(std::fabs(static_cast<double>(got[i]) - expected[i]) <= 1e-6);
  }
}

TEST_CASE("models: ReduceMax-1 specification examples") {
  const std::vector<Shape> expected{{6, 12, 1, 1}, {6, 12}, {6, 10, 24}, {6, 12, 24}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const std::string name = "reduce_max_example" + std::to_string(i + 1) + ".xml";
    INFO("model: " << name);
    Model model = Model::load(kModels / name);
    REQUIRE(model.outputs().size() == 1);
    CHECK(model.outputs()[0].shape == PartialShape::from_shape(expected[i]));
    const Tensor out = run(model, deterministic_inputs(model)).at("reduce_max");
    CHECK(out.shape() == expected[i]);
  }

  // Example 2 (axes [2,3]): every output is the maximum of a 10x24 plane.
  Model model = Model::load(kModels / "reduce_max_example2.xml");
  const Tensor data = deterministic(ElementType::f32, {6, 12, 10, 24});
  const Tensor out = run(model, {{"data", data}}).at("reduce_max");
  const auto x = data.values<float>();
  const auto y = out.values<float>();
  for (std::size_t plane = 0; plane < 6 * 12; ++plane) {
    const auto begin = x.begin() + static_cast<std::ptrdiff_t>(plane * 240);
    CHECK(y[plane] == *std::max_element(begin, begin + 240));
  }
}

TEST_CASE("models: TopK-3 specification example") {
  Model model = Model::load(kModels / "topk_example.xml");
  CHECK(model.outputs()[0].shape == PartialShape{6, 3, 10, 24});
  CHECK(model.outputs()[1].shape == PartialShape{6, 3, 10, 24});
  Tensor data(ElementType::f32, {6, 12, 10, 24});
  // Distinct values, so that the selection is unique.
  float* d = data.data<float>();
  for (std::size_t i = 0; i < data.size(); ++i) d[i] = static_cast<float>((i * 7919) % data.size());
  const auto outputs = run(model, {{"data", data}});
  const Tensor& values = outputs.at("values");
  const Tensor& indices = outputs.at("indices");
  REQUIRE(values.shape() == Shape{6, 3, 10, 24});
  REQUIRE(indices.shape() == Shape{6, 3, 10, 24});
  REQUIRE(indices.element_type() == ElementType::i64);
  const auto v = values.values<float>();
  const auto k = indices.values<std::int64_t>();
  for (std::size_t outer = 0; outer < 6; ++outer) {
    for (std::size_t inner = 0; inner < 240; ++inner) {
      std::vector<float> slice;
      for (std::size_t j = 0; j < 12; ++j) slice.push_back(d[(outer * 12 + j) * 240 + inner]);
      std::sort(slice.begin(), slice.end(), std::greater<>());
      for (std::size_t j = 0; j < 3; ++j) {
        const std::size_t at = (outer * 3 + j) * 240 + inner;
        CHECK(v[at] == slice[j]);
        REQUIRE(k[at] >= 0);
        REQUIRE(k[at] < 12);
        CHECK(d[(outer * 12 + static_cast<std::size_t>(k[at])) * 240 + inner] == v[at]);
      }
    }
  }
}

TEST_CASE("models: TopK-11 examples") {
  Model model = Model::load(kModels / "topk11_example.xml");
  CHECK(model.outputs()[0].shape == PartialShape{1, 3, 224, 10});
  const auto outputs = run(model, deterministic_inputs(model));
  CHECK(outputs.at("values").shape() == Shape{1, 3, 224, 10});
  CHECK(outputs.at("indices").shape() == Shape{1, 3, 224, 10});
  CHECK(outputs.at("indices").element_type() == ElementType::i64);

  // The tie example of the TopK-11 specification: stable selection keeps the first 5.
  const auto stable = run_file("topk11_stable.xml");
  CHECK(values_of<float>(stable.at("values")) == std::vector<float>{5, 3, 1, 2});
  CHECK(values_of<std::int32_t>(stable.at("indices")) == std::vector<std::int32_t>{0, 1, 2, 3});
}

TEST_CASE("models: the pipeline gives the documented outputs, static and dynamic alike") {
  const Tensor indices = read_i32_npy(kModels / "inputs/pipeline_indices.npy");
  const Tensor segment_ids = read_i32_npy(kModels / "inputs/pipeline_segment_ids.npy");
  CHECK(values_of<std::int32_t>(indices) ==
        std::vector<std::int32_t>{2, 7, 1, 0, 9, 4, 4, 8, 2, 6, 5, 9});

  Model model = Model::load(kModels / "pipeline.xml");
  CHECK_FALSE(model.is_dynamic());
  const auto outputs = run(model, {{"indices", indices}});
  CHECK(values_of<float>(outputs.at("top_values")) == std::vector<float>{5.25f, 5, 4});
  CHECK(values_of<std::int32_t>(outputs.at("top_indices")) == std::vector<std::int32_t>{3, 1, 2});
  const Tensor& groups = outputs.at("group_max");
  REQUIRE(groups.shape() == Shape{3, 8});
  const float lowest = std::numeric_limits<float>::lowest();
  const std::vector<float> expected{-2.25f, 1.5f,   0,      5,      -1.5f,  -0.75f, 3,      2,
                                    lowest, lowest, lowest, lowest, lowest, lowest, lowest, lowest,
                                    3.75f,  3,      -0.25f, -2.25f, 1.5f,   5.25f,  4,      0.75f};
  CHECK(values_of<float>(groups) == expected);

  Model dynamic = Model::load(kModels / "pipeline_dynamic.xml");
  CHECK(dynamic.is_dynamic());
  // num_segments and the group ids are Consts, so every output shape is known at load time.
  for (const PortInfo& out : dynamic.outputs()) CHECK(out.shape.is_static());
  const auto dynamic_outputs = run(dynamic, {{"indices", indices}, {"segment_ids", segment_ids}});
  REQUIRE(dynamic_outputs.size() == outputs.size());
  for (const auto& [output, tensor] : outputs) {
    const std::string& name = output;  // INFO cannot take a structured binding
    INFO("output: " << name);
    CHECK(same_bytes(dynamic_outputs.at(name), tensor));
  }
}

namespace {

// The values generate_models.py writes into models/types/const_<type>.xml.
template <class T>
void check_const(const std::string& type, ElementType element_type, const std::vector<T>& want) {
  INFO("type: " << type);
  const Tensor out = run_file("types/const_" + type + ".xml").at("c");
  REQUIRE(out.element_type() == element_type);
  REQUIRE(out.shape() == Shape{2, 3});
  REQUIRE(out.byte_size() == want.size() * sizeof(T));
  CHECK(std::memcmp(out.data(), want.data(), out.byte_size()) == 0);
}

template <class H>
std::vector<H> halves(std::initializer_list<float> values) {
  std::vector<H> out;
  for (float v : values) out.push_back(H(v));
  return out;
}

}  // namespace

TEST_CASE("models: Const round trips return exactly their values") {
  check_const("f16", ElementType::f16,
              halves<float16>({0.0f, -0.0f, 1.5f, -2.25f, 65504.0f, 5.9604644775390625e-08f}));
  check_const("bf16", ElementType::bf16,
              halves<bfloat16>(
                  {0.0f, 1.0f, -2.5f, 0.15625f, 3.3895313892515355e38f, -1.1754943508222875e-38f}));
  check_const<float>("f32", ElementType::f32,
                     {0.0f, -1.5f, 3.14f, std::numeric_limits<float>::max(),
                      std::numeric_limits<float>::denorm_min(), -1e-10f});
  check_const<double>("f64", ElementType::f64,
                      {0.0, -1.5, 3.141592653589793, std::numeric_limits<double>::max(),
                       std::numeric_limits<double>::denorm_min(), -1e-300});
  check_const<std::int8_t>("i8", ElementType::i8, {-128, -1, 0, 1, 42, 127});
  check_const<std::int16_t>("i16", ElementType::i16, {-32768, -1, 0, 1, 1234, 32767});
  check_const<std::int32_t>("i32", ElementType::i32,
                            {std::numeric_limits<std::int32_t>::min(), -1, 0, 1, 123456789,
                             std::numeric_limits<std::int32_t>::max()});
  check_const<std::int64_t>("i64", ElementType::i64,
                            {std::numeric_limits<std::int64_t>::min(), -1, 0, 1, 1234567890123,
                             std::numeric_limits<std::int64_t>::max()});
  check_const<std::uint8_t>("u8", ElementType::u8, {0, 1, 2, 128, 200, 255});
  check_const<std::uint16_t>("u16", ElementType::u16, {0, 1, 2, 32768, 50000, 65535});
  check_const<std::uint32_t>("u32", ElementType::u32,
                             {0, 1, 2, 2147483648u, 3000000000u, 4294967295u});
  check_const<std::uint64_t>(
      "u64", ElementType::u64,
      {0, 1, 2, 9223372036854775808ull, 12345678901234567890ull, 18446744073709551615ull});
  check_const<std::uint8_t>("boolean", ElementType::boolean, {1, 0, 1, 1, 0, 0});
}

namespace {

struct Expectation {
  std::string file;
  std::string substring;
  std::string code;
};

std::vector<Expectation> read_expectations() {
  std::istringstream in(read_text(kModels / "invalid/expected.txt"));
  std::vector<Expectation> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    REQUIRE_MESSAGE(tab != std::string::npos, "expected.txt line without a tab: " << line);
    Expectation e;
    e.file = line.substr(0, tab);
    e.substring = line.substr(tab + 1);
    const auto tab2 = e.substring.find('\t');
    if (tab2 != std::string::npos) {
      e.code = e.substring.substr(tab2 + 1);
      e.substring.resize(tab2);
    }
    REQUIRE_MESSAGE(!e.substring.empty(), "expected.txt line without a substring: " << line);
    out.push_back(e);
  }
  return out;
}

}  // namespace

TEST_CASE("models: every broken model is refused with the expected error") {
  const std::vector<Expectation> expectations = read_expectations();
  REQUIRE(expectations.size() >= 20);

  // expected.txt and the folder list the same files.
  std::set<std::string> listed, present;
  for (const Expectation& e : expectations) CHECK_MESSAGE(listed.insert(e.file).second, e.file);
  for (const fs::path& f : xml_files(kModels / "invalid")) present.insert(f.filename().string());
  CHECK(listed == present);

  for (const Expectation& e : expectations) {
    INFO("model: invalid/" << e.file << ", expected '" << e.substring << "' (" << e.code << ")");
    std::string stage = "load";
    try {
      Model model = Model::load(kModels / "invalid" / e.file);
      stage = "run";
      run(model, deterministic_inputs(model));
      FAIL("the model loaded and ran without an error");
    } catch (const Error& error) {
      INFO("failed at " << stage << ": " << std::string(error.what()));
      CHECK(error.message().find(e.substring) != std::string::npos);
      if (!e.code.empty()) CHECK(to_string(error.code()) == e.code);
    }
  }
}

namespace {

// A model shaped like a real one, run on its example inputs (models/inputs/NAME_INPUT.npy):
// each output is compared with the NumPy result in models/expected/NAME/OUTPUT.npy, integers
// exactly and floats to a relative 1e-5 (NumPy's matrix products sum in another order).
void check_against_numpy(const std::string& name, const std::vector<std::string>& inputs) {
  INFO("model: " << name);
  const Model model = Model::load(kModels / (name + ".xml"));
  CHECK(model.problems().empty());
  std::map<std::string, Tensor> feed;
  for (const std::string& in : inputs)
    feed[in] = npy::read(kModels / "inputs" / (name + "_" + in + ".npy"));
  const Outputs outputs = run(model, feed);
  std::size_t checked = 0;
  for (const auto& entry : fs::directory_iterator(kModels / "expected" / name)) {
    const std::string output = entry.path().stem().string();
    INFO("output: " << output);
    const Tensor want = npy::read(entry.path());
    REQUIRE(outputs.contains(output));
    const Tensor& got = outputs.at(output);
    REQUIRE(got.element_type() == want.element_type());
    REQUIRE(got.shape() == want.shape());
    if (want.element_type() == ElementType::f32) {
      for (std::size_t i = 0; i < want.size(); ++i) {
        const float w = want.data<float>()[i], g = got.data<float>()[i];
        CHECK_MESSAGE(std::fabs(g - w) <= 1e-5f * std::max(1.0f, std::fabs(w)),
                      "element " << i << ": " << g << " vs " << w);
      }
    } else {
      CHECK(same_bytes(got, want));
    }
    ++checked;
  }
  CHECK(checked == model.outputs().size());
}

}  // namespace

TEST_CASE("models: a retrieval model matches NumPy") {
  check_against_numpy("retrieval", {"indices", "segment_ids"});
}

TEST_CASE("models: a graph-pooling model matches NumPy") {
  check_against_numpy("graph_pooling", {"node_features", "graph_ids"});
}

TEST_CASE("models: TopK's k computed from the input's shape is bounded at load and exact at run") {
  check_against_numpy("dynamic_topk", {"scores"});
  const Model model = Model::load(kModels / "dynamic_topk.xml");
  // k = min(n, 5) with n in [1, 1000]: the loader knows it lies in [1, 5] without knowing n.
  for (const PortInfo& out : model.outputs())
    CHECK(to_string(out.shape) == "[1..5]");
  // As in OpenVINO, an unbounded axis keeps TopK's output unbounded whatever bounds k has.
  const Model unbounded = model.reshape({{"scores", PartialShape({Dimension()})}});
  for (const PortInfo& out : unbounded.outputs())
    CHECK(to_string(out.shape) == "[?]");
  Tensor three(ElementType::f32, {3});
  for (int i = 0; i < 3; ++i) three.data<float>()[i] = static_cast<float>(i);
  const Outputs out = run(model, {{"scores", three}});
  CHECK(values_of<float>(out.at("best_scores")) == std::vector<float>{2, 1, 0});
  CHECK(values_of<std::int64_t>(out.at("best_indices")) == std::vector<std::int64_t>{2, 1, 0});
}

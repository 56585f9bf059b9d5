// Every case of the conformance vectors in tests/data/conformance (transcribed from OpenVINO's
// own op tests; the README there describes the format).
//
// Numeric files: each case becomes a one-op IR model (Const inputs where the case says
// `constant`, Parameters otherwise) that is loaded and run once per op version, first with the
// Parameters declared with their static shapes, then with every dimension dynamic so that the
// shapes are only known at run time. Shape files: the registered op's infer() alone, on partial
// shapes and Const values, as the loader calls it; a case whose input is known only as bounds
// loads the small subgraph the case names (ShapeOf, Squeeze, Concat, ReduceMin) before the op.
//
// Each file is one test case that prints a count line and, when something fails, one failure
// listing every failing case with its difference. Set IRLITE_CONFORMANCE_VERBOSE=1 to also print
// the message of every expected error and every skipped case.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "graph_builder.hpp"
#include "irlite/irlite.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"
#include "ops/registry.hpp"
#include "ops/shape_utils.hpp"

using namespace irlite;
using namespace irlite::test;
using json = nlohmann::json;

namespace {

// Upstream compares floats with a relative tolerance of 1e-2 (CommonReferenceTest's default
// threshold). Ops that only select or fill values (TopK, SegmentMax, ReduceMax) must reproduce
// the expected values bit for bit, since those are the same decimal literals as the inputs,
// rounded the same way; a tolerance would hide a wrong pick among close values. Arithmetic ops
// (EmbeddingSegmentsSum) get upstream's tolerance, and the largest difference seen is printed.
constexpr double kRelativeTolerance = 1e-2;
// Mismatching elements shown per output.
constexpr std::size_t kMaxDiffs = 8;

enum class FloatCompare { exact, tolerant };

// What the float comparisons of one run saw.
struct FloatStats {
  FloatCompare mode = FloatCompare::exact;
  bool has_float = false;
  bool bit_exact = true;
  double max_relative = 0;
};

bool verbose() {
  const char* v = std::getenv("IRLITE_CONFORMANCE_VERBOSE");
  return v && *v && std::string(v) != "0";
}

// Where the project's decisions differ from an upstream vector, the decision wins: the case's
// `expected` is replaced by `expected` below (JSON, same form as in the file; for a numeric case
// only an error can be expected) and the reason is printed with the file's count line. An empty
// version applies to every version of the case.
struct Deviation {
  std::string_view file;
  std::string_view case_name;
  std::string_view version;
  std::string_view expected;
  std::string_view reason;
};

const std::vector<Deviation> kDeviations = {
    // OpenVINO honours index_element_type on TopK-1 too; irlite's TopK-1 has i32 indices only
    // (the attribute belongs to TopK-3 on) and rejects i64 rather than silently ignoring it.
    {"topk_shapes.json", "default_ctor", "TopK-1", R"({"error": "i32 indices only"})",
     "TopK-1 produces i32 indices only; index_element_type=i64 is rejected"},
    {"topk_shapes.json", "negative_axis_support", "TopK-1", R"({"error": "i32 indices only"})",
     "TopK-1 produces i32 indices only; index_element_type=i64 is rejected"},
    // Not a deviation: `default_index_element_type/k_greater_than_dimension` (k 3 on a dimension
    // of 1) holds as upstream, because shape inference does not clamp k; irlite rejects k > dim
    // when the op runs, which no numeric vector exercises.
};

const Deviation* find_deviation(std::string_view file, std::string_view name,
                                std::string_view version) {
  for (const Deviation& d : kDeviations)
    if (d.file == file && d.case_name == name && (d.version.empty() || d.version == version))
      return &d;
  return nullptr;
}

json load_file(const std::string& file) {
  const std::string path = std::string(IRLITE_TEST_DATA) + "/conformance/" + file;
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  return json::parse(in);
}

struct OpVersion {
  std::string name;  // "TopK-11"
  std::string type;  // "TopK"
  int version = 0;   // 11
  std::string opset() const { return "opset" + std::to_string(version); }
};

OpVersion parse_op_version(const std::string& text) {
  const auto dash = text.rfind('-');
  REQUIRE_MESSAGE(dash != std::string::npos, "bad op version " << text);
  return {text, text.substr(0, dash), std::stoi(text.substr(dash + 1))};
}

std::vector<OpVersion> case_versions(const json& c) {
  std::vector<OpVersion> out;
  if (c.contains("op_versions"))
    for (const auto& v : c["op_versions"]) out.push_back(parse_op_version(v.get<std::string>()));
  if (c.contains("op_version")) out.push_back(parse_op_version(c["op_version"].get<std::string>()));
  return out;
}

std::string attr_text(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();  // integers (and any other number) in decimal
}

ElementType element_type_of(const std::string& name) {
  const auto t = parse_element_type(name);
  if (!t) throw std::invalid_argument("unknown element type '" + name + "'");
  return *t;
}

Shape shape_of(const json& dims) {
  return dims.get<std::vector<std::int64_t>>();
}

// The tensor of a numeric case's input or output, values or generator.
Tensor case_tensor(const json& t) {
  const ElementType type = element_type_of(t["element_type"].get<std::string>());
  const Shape shape = shape_of(t["shape"]);
  if (t.contains("generator") && !t["generator"].is_null()) {
    const json& g = t["generator"];
    if (g.value("kind", "") != "coordinate")
      throw std::invalid_argument("unknown generator " + g.dump());
    const auto axis = static_cast<std::size_t>(g["axis"].get<std::int64_t>());
    if (axis >= shape.size()) throw std::invalid_argument("generator axis out of range");
    // data[..., j, ...] = j along `axis`.
    const auto count = static_cast<std::size_t>(*element_count(shape));
    std::size_t inner = 1;
    for (std::size_t d = axis + 1; d < shape.size(); ++d)
      inner *= static_cast<std::size_t>(shape[d]);
    const auto extent = static_cast<std::size_t>(shape[axis]);
    json values = json::array();
    for (std::size_t i = 0; i < count; ++i) values.push_back((i / inner) % extent);
    return tensor_from_json(type, shape, values);
  }
  return tensor_from_json(type, shape, t["values"]);
}

std::string coords(const Shape& shape, std::size_t flat) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const auto n = static_cast<std::size_t>(shape[d]);
    c[d] = static_cast<std::int64_t>(n ? flat % n : 0);
    flat = n ? flat / n : 0;
  }
  return to_string(c);
}

// Compares one element: integers exactly; floats bit for bit, or equal as numbers (+0 and -0, two
// NaNs), or within the relative tolerance when the mode allows it.
bool element_matches(const Tensor& want, const Tensor& got, std::size_t i, FloatStats& stats) {
  if (same_bits(want, got, i)) return true;
  stats.bit_exact = false;
  if (!is_real(want.element_type())) return false;
  const double a = element_as_double(want, i);
  const double b = element_as_double(got, i);
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  const double relative = std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b));
  if (stats.mode == FloatCompare::exact) return false;
  stats.max_relative = std::max(stats.max_relative, relative);
  return relative <= kRelativeTolerance;
}

// Compares a whole output; appends readable differences to `diff`. Returns whether it matches.
bool compare_tensors(const std::string& label, const Tensor& want, const Tensor& got,
                     FloatStats& stats, std::string& diff) {
  if (want.element_type() != got.element_type()) {
    diff += "  " + label + ": element type " + std::string(to_string(got.element_type())) +
            ", expected " + std::string(to_string(want.element_type())) + "\n";
    return false;
  }
  if (want.shape() != got.shape()) {
    diff += "  " + label + ": shape " + to_string(got.shape()) + ", expected " +
            to_string(want.shape()) + "\n";
    return false;
  }
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (element_matches(want, got, i, stats)) continue;
    if (bad++ < kMaxDiffs)
      diff += "  " + label + " at " + coords(want.shape(), i) + ": got " + element_text(got, i) +
              ", expected " + element_text(want, i) + "\n";
  }
  if (bad > kMaxDiffs)
    diff += "  " + label + ": " + std::to_string(bad - kMaxDiffs) + " more mismatches (" +
            std::to_string(bad) + " of " + std::to_string(want.size()) + ")\n";
  return bad == 0;
}

// TopK with sort=none: the k results of a slice come in an unspecified order. Reorders every
// slice along `axis` by ascending index (indices within a slice are distinct), which makes the
// (value, index) multiset comparable element by element. Without an indices tensor, the values
// of each slice are sorted instead.
void canonicalize_slices(Tensor& values, Tensor* indices, std::size_t axis) {
  const Shape& shape = values.shape();
  if (axis >= shape.size()) return;
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= static_cast<std::size_t>(shape[d]);
  for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= static_cast<std::size_t>(shape[d]);
  const auto k = static_cast<std::size_t>(shape[axis]);
  const std::size_t vw = element_size(values.element_type());
  const std::size_t iw = indices ? element_size(indices->element_type()) : 0;
  Tensor v_src = values.clone();
  std::optional<Tensor> i_src;
  if (indices) i_src = indices->clone();
  auto* vb = static_cast<std::byte*>(values.data());
  const auto* vs = static_cast<const std::byte*>(v_src.data());
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t in = 0; in < inner; ++in) {
      auto at = [&](std::size_t j) { return (o * k + j) * inner + in; };
      std::vector<std::size_t> order(k);
      std::iota(order.begin(), order.end(), std::size_t{0});
      if (indices) {
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
          return integer_at(*i_src, at(a)) < integer_at(*i_src, at(b));
        });
      } else {
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
          return element_as_double(v_src, at(a)) < element_as_double(v_src, at(b));
        });
      }
      for (std::size_t j = 0; j < k; ++j) {
        std::memcpy(vb + at(j) * vw, vs + at(order[j]) * vw, vw);
        if (indices)
          std::memcpy(static_cast<std::byte*>(indices->data()) + at(j) * iw,
                      static_cast<const std::byte*>(i_src->data()) + at(order[j]) * iw, iw);
      }
    }
  }
}

struct Tally {
  std::string file;
  std::size_t cases = 0;
  std::size_t runs = 0;
  std::size_t passed = 0;
  std::size_t skipped = 0;
  FloatCompare float_mode = FloatCompare::exact;
  std::size_t float_runs = 0;       // runs with at least one float output compared
  std::size_t float_bit_exact = 0;  // ... whose float outputs were all bit-exact
  double float_max_relative = 0;    // largest relative difference accepted
  std::size_t substitutions = 0;    // "dynamic" element types replaced by f32
  std::vector<std::string> failures;
  std::vector<std::string> skips;
  std::vector<std::string> deviations;
  std::map<std::string, std::pair<std::string, std::size_t>> missing;  // version -> why, runs

  // A case that says `skip` (with the reason) is counted and listed, not run.
  bool skip(const json& c, const std::string& name, const OpVersion& v) {
    if (!c.contains("skip")) return false;
    ++skipped;
    skips.push_back(name + " (" + v.name + "): " + c["skip"].get<std::string>());
    return true;
  }

  // `text` is one line, or a block of "  "-indented difference lines.
  void fail(const std::string& header, const std::string& text) {
    const bool block = text.rfind("  ", 0) == 0;
    failures.push_back(header + (block ? ":\n" : ": ") + text);
  }

  void report() const {
    std::ostringstream line;
    line << "conformance: " << file << " " << cases << " cases x versions = " << runs << " runs, "
         << passed << " passed, " << skipped << " skipped";
    if (float_runs && float_mode == FloatCompare::exact)
      line << "; float outputs compared bit for bit (" << float_runs << " runs)";
    if (float_runs && float_mode == FloatCompare::tolerant)
      line << "; float outputs bit-exact in " << float_bit_exact << " of " << float_runs
           << " runs, others within relative " << kRelativeTolerance << " (largest seen "
           << float_max_relative << ")";
    if (substitutions)
      line << "; element type 'dynamic' taken as f32 " << substitutions << " times";
    std::cout << line.str() << "\n";
    for (const auto& d : deviations) std::cout << "  deviation: " << d << "\n";
    if (verbose())
      for (const auto& s : skips) std::cout << "  skipped: " << s << "\n";
    if (!skips.empty() && !verbose())
      std::cout << "  skipped: " << skips.size()
                << " runs (IRLITE_CONFORMANCE_VERBOSE=1 lists them with their reasons)\n";

    std::string all;
    for (const auto& [version, info] : missing)
      all += version + " is not available (" + std::to_string(info.second) +
             " runs cannot run): " + info.first + "\n";
    for (const auto& f : failures) all += f + "\n";
    if (passed + skipped != runs && all.empty()) all = "counts do not add up\n";
    // A file that runs nothing would otherwise pass without checking anything.
    if (passed == 0) all += "no case ran (" + std::to_string(cases) + " cases, " +
                            std::to_string(skipped) + " runs skipped)\n";
    if (!all.empty())
      FAIL(file << ": " << runs - passed - skipped << " of " << runs << " runs failed\n" << all);
  }
};

// Resolves an op version through the registry as the loader would; nullptr (with the reason
// recorded) when it is missing or resolves to another version.
const OpDef* registered(const OpVersion& v, Tally& tally) {
  std::string why;
  const OpDef* def = resolve_op(v.type, v.opset(), &why);
  if (def && def->version != v.version) {
    why = v.opset() + " resolves to " + op_display_name(*def);
    def = nullptr;
  }
  if (!def) {
    auto& entry = tally.missing[v.name];
    entry.first = why;
    ++entry.second;
  }
  return def;
}

// ---- numeric cases ---------------------------------------------------------------------------

// One run of a numeric case; returns the failure text, empty when it passed.
std::string run_numeric(const json& c, const OpVersion& v, const OpDef& def, bool dynamic_shapes,
                        FloatStats& stats) {
  OpTester t(v.type, v.opset());
  for (const auto& [name, value] : c["attrs"].items()) t.attr(name, attr_text(value));
  for (const auto& in : c["inputs"]) {
    Tensor value = case_tensor(in);
    const std::string name = in["name"].get<std::string>();
    if (in.value("constant", false)) {
      t.input_const(name, value);
    } else if (dynamic_shapes) {
      PartialShape shape = PartialShape::from_shape(value.shape());
      for (auto& d : shape.dims()) d = Dimension::dynamic();
      t.input_parameter(name, value, shape);
    } else {
      t.input_parameter(name, value);
    }
  }
  std::vector<std::string> names;
  for (int i = 0; i < def.num_outputs; ++i) names.push_back("out" + std::to_string(i));
  for (const auto& out : c["outputs"]) {
    const auto port = out.value("port", 0);
    if (port < 0 || port >= def.num_outputs)
      return "expected output port " + std::to_string(port) + " but " + op_display_name(def) +
             " has " + std::to_string(def.num_outputs) + " outputs";
    names[static_cast<std::size_t>(port)] = out["name"].get<std::string>();
  }
  t.outputs(names);

  const Model model = t.load();
  std::vector<Tensor> got = t.run();

  std::string diff;
  // A one-op model written the way OpenVINO writes IR loads without warnings.
  for (const Error& w : model.warnings()) diff += std::string("  load warning: ") + w.what() + "\n";
  std::vector<Tensor> want_all(got.size());
  std::vector<bool> listed(got.size(), false);
  for (const auto& out : c["outputs"]) {
    const auto port = static_cast<std::size_t>(out.value("port", 0));
    want_all[port] = case_tensor(out);
    listed[port] = true;
  }
  // Load-time inference must be consistent with what the run produced.
  for (std::size_t p = 0; p < got.size() && p < model.outputs().size(); ++p) {
    const PortInfo& info = model.outputs()[p];
    if (info.element_type != got[p].element_type() || !info.shape.accepts(got[p].shape()))
      diff += "  output " + std::to_string(p) + ": inferred at load time as " +
              std::string(to_string(info.element_type)) + to_string(info.shape) + ", run gave " +
              std::string(to_string(got[p].element_type())) + to_string(got[p].shape()) + "\n";
  }
  const bool unordered = c.value("order", "exact") == "unordered";
  if (unordered) {
    const auto axis_attr = c["attrs"].value("axis", std::int64_t{0});
    for (std::size_t p = 0; p < got.size(); ++p) {
      if (!listed[p]) continue;
      const auto axis = normalize_axis(axis_attr, static_cast<std::int64_t>(got[p].rank()));
      if (!axis || got[p].shape() != want_all[p].shape()) continue;  // reported below
      // TopK: port 0 values, port 1 indices; pair them when both are listed.
      if (p == 0 && got.size() > 1 && listed[1] && got[1].shape() == got[0].shape()) {
        got[0] = got[0].clone();
        got[1] = got[1].clone();
        canonicalize_slices(got[0], &got[1], static_cast<std::size_t>(*axis));
        canonicalize_slices(want_all[0], &want_all[1], static_cast<std::size_t>(*axis));
        break;
      }
      got[p] = got[p].clone();
      canonicalize_slices(got[p], nullptr, static_cast<std::size_t>(*axis));
      canonicalize_slices(want_all[p], nullptr, static_cast<std::size_t>(*axis));
    }
  }
  for (std::size_t p = 0; p < got.size(); ++p) {
    if (!listed[p]) continue;
    const std::string label = "output " + std::to_string(p) + " '" + t.output_names()[p] + "'" +
                              (unordered ? " (slices ordered by index)" : "");
    if (is_real(want_all[p].element_type())) stats.has_float = true;
    compare_tensors(label, want_all[p], got[p], stats, diff);
  }
  return diff;
}

void run_numeric_file(const std::string& file, FloatCompare float_mode) {
  const json doc = load_file(file);
  Tally tally;
  tally.file = file;
  tally.float_mode = float_mode;
  for (const auto& c : doc["cases"]) {
    ++tally.cases;
    const std::string name = c["name"].get<std::string>();
    const std::vector<OpVersion> versions = case_versions(c);
    if (versions.empty()) tally.fail(name, "names no op version, so nothing runs");
    for (const OpVersion& v : versions) {
      ++tally.runs;
      if (tally.skip(c, name, v)) continue;
      const OpDef* def = registered(v, tally);
      if (!def) continue;
      // A numeric deviation can only turn a case into an expected error (load or run).
      const Deviation* deviation = find_deviation(file, name, v.name);
      if (deviation)
        tally.deviations.push_back(name + " (" + v.name + "): " + std::string(deviation->reason));
      std::string failure, header;
      FloatStats stats;
      stats.mode = float_mode;
      for (const bool dynamic_shapes : {false, true}) {
        header = name + " (" + v.name + (dynamic_shapes ? ", dynamic input shapes)" : ")");
        try {
          const std::string diff = run_numeric(c, v, *def, dynamic_shapes, stats);
          if (deviation)
            failure = "expected an error (" + std::string(deviation->reason) + ")";
          else
            failure = diff;
        } catch (const Error& e) {
          if (!deviation) failure = std::string("model rejected: ") + e.what();
          if (deviation && verbose())
            std::cout << "  " << header << " rejected: " << e.what() << "\n";
        } catch (const std::exception& e) {
          failure = std::string("bad case data: ") + e.what();
        }
        if (!failure.empty()) break;
      }
      if (!failure.empty()) {
        tally.fail(header, failure);
        continue;
      }
      ++tally.passed;
      if (stats.has_float && !deviation) {
        ++tally.float_runs;
        if (stats.bit_exact) ++tally.float_bit_exact;
        tally.float_max_relative = std::max(tally.float_max_relative, stats.max_relative);
      }
    }
  }
  tally.report();
}

// ---- shape cases -----------------------------------------------------------------------------

PartialShape parse_shape(const json& text) {
  std::string why;
  const auto s = parse_partial_shape(text.get<std::string>(), &why);
  if (!s) throw std::invalid_argument("bad partial shape " + text.dump() + ": " + why);
  return *s;
}

ElementType shape_case_type(const json& name, Tally& tally) {
  // Upstream's typed ReduceMax suite uses element type "dynamic", which irlite does not have; any
  // numeric type gives the same shapes, so f32 stands in for it.
  if (name.get<std::string>() == "dynamic") {
    ++tally.substitutions;
    return ElementType::f32;
  }
  return element_type_of(name.get<std::string>());
}

// An input whose value is unknown but bounded comes from a subgraph, as in OpenVINO's test: the
// case names it ("Squeeze(ShapeOf(Parameter [10..20]), 0)"), and it is built here from the ops
// it names so that the loader's value propagation, not the test, derives the bounds.
GraphBuilder::Port bounded_input(GraphBuilder& g, const json& in,
                                 const std::map<std::string, GraphBuilder::Port>& inputs,
                                 Tally& tally) {
  const std::string text = in["value_from_subgraph"].get<std::string>();
  const ElementType type = shape_case_type(in["element_type"], tally);
  const std::string name = in["name"].get<std::string>();
  const std::string type_name(to_string(type));
  const auto shape_of = [&](GraphBuilder::Port from) {
    return g.layer("ShapeOf", "opset3", {{"output_type", type_name}}, {from}, {type},
                   name + "/shape")[0];
  };
  std::string_view rest = text;
  // Consumes `prefix` from the front of `rest` when it is there.
  const auto take = [&rest](std::string_view prefix) {
    if (rest.substr(0, prefix.size()) != prefix) return false;
    rest.remove_prefix(prefix.size());
    return true;
  };
  // Consumes the text up to `end` (excluded) and returns it; empty when `end` is missing.
  const auto until = [&rest](char end) {
    const std::size_t at = rest.find(end);
    if (at == std::string_view::npos) return std::string();
    std::string word(rest.substr(0, at));
    rest.remove_prefix(at);
    return word;
  };
  // Squeeze(ShapeOf(Parameter [TYPE ][SHAPE])[, 0])
  if (take("Squeeze(ShapeOf(Parameter ")) {
    ElementType source_type = ElementType::f32;
    if (!take("[")) {
      source_type = element_type_of(until(' '));
      take(" ");
      if (!take("[")) throw std::invalid_argument("no shape in " + text);
    }
    const std::string shape = "[" + until(']') + "]";
    if (!take("])")) throw std::invalid_argument("unrecognised value_from_subgraph: " + text);
    const auto source = g.parameter(name + "/source", source_type, parse_shape(json(shape)));
    std::vector<GraphBuilder::Port> args{shape_of(source)};
    if (take(", 0")) args.push_back(g.constant(name + "/axis", ints(ElementType::i64, {}, {0})));
    return g.layer("Squeeze", "opset1", {}, args, {type}, name)[0];
  }
  // ReduceMin(Concat(ShapeOf(INPUT), {N}), axis 0)
  if (take("ReduceMin(Concat(ShapeOf(")) {
    const std::string input = until(')');
    if (!take("), {")) throw std::invalid_argument("unrecognised value_from_subgraph: " + text);
    const std::string count = until('}');
    if (!take("}), axis 0)"))
      throw std::invalid_argument("unrecognised value_from_subgraph: " + text);
    const auto data = inputs.find(input);
    if (data == inputs.end()) throw std::invalid_argument("no input " + input);
    const auto tail = g.constant(name + "/tail", ints(type, {1}, {std::stoll(count)}));
    const auto concat = g.layer("Concat", "opset1", {{"axis", "0"}}, {shape_of(data->second), tail},
                                {type}, name + "/concat")[0];
    const auto axis = g.constant(name + "/axis", ints(ElementType::i64, {}, {0}));
    return g.layer("ReduceMin", "opset1", {{"keep_dims", "false"}}, {concat, axis}, {type},
                   name)[0];
  }
  throw std::invalid_argument("unrecognised value_from_subgraph: " + text);
}

// A shape case with a bounded input: the whole model is loaded and the layer's inferred outputs
// read back from Model::layers().
std::vector<OutputInfo> infer_with_subgraphs(const json& c, const OpVersion& v, Tally& tally) {
  GraphBuilder g;
  std::map<std::string, GraphBuilder::Port> inputs;
  std::vector<GraphBuilder::Port> args;
  for (const auto& in : c["inputs"]) {
    const std::string name = in["name"].get<std::string>();
    const ElementType type = shape_case_type(in["element_type"], tally);
    const PartialShape shape = parse_shape(in["partial_shape"]);
    GraphBuilder::Port port;
    if (in.contains("value_bounds"))
      port = bounded_input(g, in, inputs, tally);
    else if (in.contains("const_values"))
      port = g.constant(name, tensor_from_json(type, shape.to_shape(), in["const_values"]));
    else
      port = g.parameter(name, type, shape);
    inputs[name] = port;
    args.push_back(port);
  }
  std::vector<std::pair<std::string, std::string>> attrs;
  for (const auto& [name, value] : c["attrs"].items()) attrs.emplace_back(name, attr_text(value));
  const OpDef* def = registered(v, tally);
  if (!def) throw std::invalid_argument("no op " + v.name);
  const auto outs = g.layer(
      v.type, v.opset(), attrs, args,
      std::vector<ElementType>(static_cast<std::size_t>(def->num_outputs), ElementType::f32), "op");
  for (std::size_t i = 0; i < outs.size(); ++i) g.result(outs[i], "out" + std::to_string(i));
  const Model model = g.load();
  std::vector<OutputInfo> got;
  for (const LayerInfo& l : model.layers())
    if (l.name == "op")
      for (const LayerOutput& o : l.outputs) got.push_back({o.element_type, o.shape});
  return got;
}

std::string run_shape(const json& c, const json& expected, const OpVersion& v, Tally& tally) {
  bool bounded = false;
  for (const auto& in : c["inputs"]) bounded = bounded || in.contains("value_bounds");
  OpTester t(v.type, v.opset());
  for (const auto& [name, value] : c["attrs"].items()) t.attr(name, attr_text(value));
  for (const auto& in : c["inputs"]) {
    if (bounded) break;
    const ElementType type = shape_case_type(in["element_type"], tally);
    const PartialShape shape = parse_shape(in["partial_shape"]);
    const std::string name = in["name"].get<std::string>();
    if (in.contains("const_values")) {
      if (!shape.is_static()) return "const input " + name + " has a non-static shape";
      t.input_const(name, tensor_from_json(type, shape.to_shape(), in["const_values"]));
    } else {
      t.input_parameter(name, type, shape);
    }
  }

  std::vector<OutputInfo> got;
  std::optional<std::string> error;
  try {
    got = bounded ? infer_with_subgraphs(c, v, tally) : t.infer();
  } catch (const Error& e) {
    error = e.what();
  }

  if (expected.contains("error")) {
    if (!error) {
      std::string outs;
      for (const auto& o : got) outs += " " + std::string(to_string(o.type)) + to_string(o.shape);
      return "expected an error (upstream: \"" + expected["error"].get<std::string>() +
             "\"), got outputs" + outs;
    }
    if (verbose())
      std::cout << "  " << c["name"].get<std::string>() << " (" << v.name
                << ") rejected: " << *error << "\n";
    return {};
  }
  if (error) return "unexpected error: " + *error;
  const auto& outs = expected["outputs"];
  if (got.size() != outs.size())
    return std::to_string(got.size()) + " outputs, expected " + std::to_string(outs.size());
  std::string diff;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const ElementType want_type = shape_case_type(outs[i]["element_type"], tally);
    const PartialShape want_shape = parse_shape(outs[i]["partial_shape"]);
    if (got[i].type != want_type || !(got[i].shape == want_shape))
      diff += "  output " + std::to_string(i) + ": got " + std::string(to_string(got[i].type)) +
              to_string(got[i].shape) + ", expected " + std::string(to_string(want_type)) +
              to_string(want_shape) + "\n";
  }
  return diff;
}

void run_shape_file(const std::string& file) {
  const json doc = load_file(file);
  Tally tally;
  tally.file = file;
  for (const auto& c : doc["cases"]) {
    ++tally.cases;
    const std::string name = c["name"].get<std::string>();
    const std::vector<OpVersion> versions = case_versions(c);
    if (versions.empty()) tally.fail(name, "names no op version, so nothing runs");
    for (const OpVersion& v : versions) {
      ++tally.runs;
      if (tally.skip(c, name, v)) continue;
      if (!registered(v, tally)) continue;
      json expected = c["expected"];
      if (const Deviation* d = find_deviation(file, name, v.name)) {
        expected = json::parse(d->expected);
        tally.deviations.push_back(name + " (" + v.name + "): " + std::string(d->reason));
      }
      std::string failure;
      try {
        failure = run_shape(c, expected, v, tally);
      } catch (const std::exception& e) {
        failure = std::string("bad case data: ") + e.what();
      }
      if (!failure.empty()) {
        tally.fail(name + " (" + v.name + ")", failure);
        continue;
      }
      ++tally.passed;
    }
  }
  tally.report();
}

}  // namespace

TEST_CASE("conformance: topk.json") {
  run_numeric_file("topk.json", FloatCompare::exact);
}
TEST_CASE("conformance: segment_max.json") {
  run_numeric_file("segment_max.json", FloatCompare::exact);
}
TEST_CASE("conformance: reduce_max.json") {
  run_numeric_file("reduce_max.json", FloatCompare::exact);
}
TEST_CASE("conformance: embedding_segments_sum.json") {
  run_numeric_file("embedding_segments_sum.json", FloatCompare::tolerant);
}
TEST_CASE("conformance: topk_shapes.json") {
  run_shape_file("topk_shapes.json");
}
TEST_CASE("conformance: segment_max_shapes.json") {
  run_shape_file("segment_max_shapes.json");
}
TEST_CASE("conformance: reduce_max_shapes.json") {
  run_shape_file("reduce_max_shapes.json");
}
TEST_CASE("conformance: embedding_segments_sum_shapes.json") {
  run_shape_file("embedding_segments_sum_shapes.json");
}

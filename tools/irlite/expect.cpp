#include "expect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>

#include "commands.hpp"
#include "elements.hpp"
#include "files.hpp"
#include "npy.hpp"
#include "npz.hpp"
#include "outputs.hpp"

namespace irlite::cli {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A reference for one output and the file it came from.
struct Reference {
  std::string source;
  Tensor tensor;
};

// Collects the references, each output's once.
class References {
 public:
  explicit References(const Model& model)
      : model_(model), refs_(model.outputs().size()), origin_(model.outputs().size()) {}

  void add(std::size_t index, const std::string& origin, std::string source, Tensor tensor) {
    if (!origin_[index].empty())
      throw UsageError(fmt::format("output '{}' is expected twice ({} and {})",
                                   model_.outputs()[index].name, origin_[index], origin));
    origin_[index] = origin;
    refs_[index] = Reference{std::move(source), std::move(tensor)};
  }
  std::vector<std::optional<Reference>> take() { return std::move(refs_); }

 private:
  const Model& model_;
  std::vector<std::optional<Reference>> refs_;
  std::vector<std::string> origin_;
};

[[noreturn]] void no_output(const std::string& file, const std::string& what, const Model& model) {
  throw Error(ErrorCode::input,
              fmt::format("{} no output of the model (outputs: {})", what, output_list(model)),
              file_context(file));
}

// `--expect NAME=REF.npy`, `--expect REF.npy` (single-output model) or `--expect REF.npz`.
void add_expect(References& refs, const Model& model, const std::string& text) {
  const std::string origin = "--expect " + text;
  if (text.empty() || text.back() == '=')
    throw UsageError(fmt::format("--expect '{}': the file name is empty", text));
  for (std::size_t eq = text.find('='); eq != std::string::npos; eq = text.find('=', eq + 1)) {
    if (const auto index = find_output(model, text.substr(0, eq))) {
      const std::string path = text.substr(eq + 1);
      if (path.ends_with(".npz"))
        throw UsageError(fmt::format(
            "--expect {}: a .npz holds the references of the outputs its arrays name; write "
            "--expect {}",
            text, path));
      refs.add(*index, origin, path, npy::read(path));
      return;
    }
  }
  if (text.ends_with(".npz")) {
    std::vector<npz::Array> arrays = npz::read(text);
    std::string unknown;
    for (const npz::Array& a : arrays)
      if (!find_output(model, a.name))
        unknown += fmt::format("{}'{}'", unknown.empty() ? "" : ", ", a.name);
    if (!unknown.empty()) no_output(text, fmt::format("arrays {} name", unknown), model);
    for (npz::Array& a : arrays)
      refs.add(*find_output(model, a.name), origin, fmt::format("{}:{}", text, a.name),
               std::move(a.tensor));
    return;
  }
  const std::size_t eq = text.find('=');
  std::error_code ec;
  if (model.outputs().size() == 1 &&
      (eq == std::string::npos || std::filesystem::is_regular_file(text, ec))) {
    refs.add(0, origin, text, npy::read(text));
    return;
  }
  if (eq == std::string::npos)
    throw UsageError(
        fmt::format("--expect {}: the model has {} outputs ({}); write --expect "
                    "NAME=REF.npy",
                    text, model.outputs().size(), output_list(model)));
  throw Error(ErrorCode::input,
              fmt::format("--expect {}: the model has no output '{}' (outputs: {})", text,
                          text.substr(0, eq), output_list(model)));
}

// Every STEM.npy of `dir`, each naming an output as -o DIR names its file.
void add_expect_dir(References& refs, const Model& model, const std::string& dir) {
  const auto stems = output_file_stems(model);
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    throw Error(ErrorCode::io, fmt::format("cannot read the --expect-dir folder: {}", ec.message()),
                file_context(dir));
  }
  // Sorted, so that errors and duplicates are reported the same way on every file system.
  std::vector<std::filesystem::path> files;
  for (const auto& entry : it)
    if (entry.path().extension() == ".npy") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const std::string stem = path.stem().string();
    const auto found = std::find(stems.begin(), stems.end(), stem);
    if (found == stems.end()) no_output(path.string(), "names", model);
    refs.add(static_cast<std::size_t>(found - stems.begin()), "--expect-dir " + dir, path.string(),
             npy::read(path));
  }
}

std::vector<std::int64_t> unravel(std::size_t flat, const Shape& shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const auto extent = static_cast<std::size_t>(shape[d]);
    index[d] = static_cast<std::int64_t>(flat % extent);
    flat /= extent;
  }
  return index;
}

// Fills the error measures of `c` from the values; returns the flat index of the element
// furthest beyond its tolerance, none when every element is equal.
template <class T>
std::optional<std::size_t> compare_values(std::span<const T> actual, std::span<const T> expected,
                                          Comparison& c) {
  double worst_excess = -kInfinity;
  std::size_t worst = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const auto a = static_cast<double>(static_cast<compute_t<T>>(actual[i]));
    const auto e = static_cast<double>(static_cast<compute_t<T>>(expected[i]));
    double diff = 0, excess = 0;
    if constexpr (is_float_v<T>) {
      if (std::isnan(a) || std::isnan(e) || std::isinf(a) || std::isinf(e)) {
        const bool same = (std::isnan(a) && std::isnan(e)) || a == e;
        diff = excess = same ? 0 : kInfinity;
      } else {
        diff = std::abs(a - e);
        excess = diff - (c.tolerance.atol + c.tolerance.rtol * std::abs(e));
        c.max_rel = std::max(c.max_rel, e != 0 ? diff / std::abs(e) : diff > 0 ? kInfinity : 0);
      }
      if (excess > 0) ++c.mismatches;
    } else {
      const bool same = actual[i] == expected[i];
      diff = same ? 0 : std::abs(a - e);
      if (!same) {
        // Integers this far apart may round to the same double: still a mismatch.
        diff = std::max(diff, 1.0);
        excess = diff;
        ++c.mismatches;
        c.max_rel = std::max(c.max_rel, e != 0 ? diff / std::abs(e) : kInfinity);
      }
    }
    c.max_abs = std::max(c.max_abs, diff);
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = i;
    }
  }
  if (actual.empty() || c.max_abs == 0) return std::nullopt;
  c.worst_actual = static_cast<double>(static_cast<compute_t<T>>(actual[worst]));
  c.worst_expected = static_cast<double>(static_cast<compute_t<T>>(expected[worst]));
  return worst;
}

std::string value_text(double v, bool exact) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return exact ? fmt::format("{:.0f}", v) : fmt::format("{:.9g}", v);
}

std::string index_text(const std::vector<std::int64_t>& index) {
  return fmt::format("[{}]", fmt::join(index, ", "));
}

}  // namespace

Tolerance default_tolerance(ElementType type) {
  switch (type) {
    case ElementType::f64:
      return {1e-12, 1e-9};
    case ElementType::f32:
      return {1e-6, 1e-5};
    case ElementType::f16:
      return {1e-3, 1e-3};
    case ElementType::bf16:
      return {1e-2, 1e-2};
    default:
      return {0, 0};
  }
}

Comparison compare(const Tensor& actual, const Tensor& expected_file, Tolerance tolerance) {
  Comparison c;
  c.tolerance = tolerance;
  c.exact = !is_real(actual.element_type());
  if (c.exact) c.tolerance = {0, 0};
  Tensor expected = expected_file;
  // -o writes a bf16 output as its raw bits, dtype uint16.
  if (actual.element_type() == ElementType::bf16 && expected.element_type() == ElementType::u16) {
    auto owner = std::make_shared<Tensor>(expected);
    expected = Tensor::view(ElementType::bf16, owner->shape(), owner->data(), owner);
  }
  if (actual.element_type() != expected.element_type() || actual.shape() != expected.shape()) {
    c.pass = false;
    c.problem = fmt::format("the output is {} {}, the reference {} {}",
                            to_string(actual.element_type()), to_string(actual.shape()),
                            to_string(expected_file.element_type()), to_string(expected.shape()));
    return c;
  }
  c.count = actual.size();
  std::optional<std::size_t> worst;
  dispatch_all(actual.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    worst = compare_values<T>(actual.values<T>(), expected.values<T>(), c);
  });
  if (worst) c.worst_index = unravel(*worst, actual.shape());
  c.pass = c.mismatches == 0;
  return c;
}

std::vector<Comparison> check_outputs(const Model& model, const std::vector<Tensor>& outputs,
                                      const ExpectOptions& options) {
  References refs(model);
  for (const std::string& text : options.files) add_expect(refs, model, text);
  if (!options.dir.empty()) add_expect_dir(refs, model, options.dir);
  auto references = refs.take();
  std::vector<Comparison> comparisons;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const PortInfo& port = model.outputs()[i];
    if (!references[i]) {
      Comparison c;
      c.output = port.name;
      comparisons.push_back(std::move(c));
      continue;
    }
    Tolerance tolerance = default_tolerance(outputs[i].element_type());
    if (options.atol) tolerance.atol = *options.atol;
    if (options.rtol) tolerance.rtol = *options.rtol;
    Comparison c = compare(outputs[i], references[i]->tensor, tolerance);
    c.output = port.name;
    c.reference = references[i]->source;
    comparisons.push_back(std::move(c));
  }
  return comparisons;
}

int expect_status(const std::vector<Comparison>& comparisons) {
  std::vector<std::string> failed;
  std::size_t compared = 0;
  for (const Comparison& c : comparisons) {
    if (c.compared()) ++compared;
    if (!c.pass) failed.push_back(c.output);
  }
  if (failed.empty()) return kExitOk;
  print_error(fmt::format("{} of {} compared outputs differ from their references: {}",
                          failed.size(), compared, fmt::join(failed, ", ")));
  return kExitMismatch;
}

void print_comparisons(const std::vector<Comparison>& comparisons) {
  std::size_t width = 0;
  for (const Comparison& c : comparisons)
    width = std::max(width, escape_nonprintable(c.output).size());
  width = std::min<std::size_t>(width, 40);
  fmt::print("expected:\n");
  for (const Comparison& c : comparisons) {
    const std::string name = escape_nonprintable(c.output);
    if (!c.compared()) {
      fmt::print("  {:<{}}  not compared (no reference)\n", name, width);
      continue;
    }
    std::string line = fmt::format("  {:<{}}  {}  ", name, width, c.pass ? "pass" : "FAIL");
    if (!c.problem.empty()) {
      line += c.problem;
    } else {
      line += c.exact ? "exact"
                      : fmt::format("atol {:g} rtol {:g}", c.tolerance.atol, c.tolerance.rtol);
      line += fmt::format(", max abs err {:.3g}, max rel err {:.3g}", c.max_abs, c.max_rel);
      if (c.mismatches > 0)
        line += fmt::format(", {} of {} elements differ", c.mismatches, c.count);
      if (!c.worst_index.empty())
        line +=
            fmt::format(", worst at {}: {} (expected {})", index_text(c.worst_index),
                        value_text(c.worst_actual, c.exact), value_text(c.worst_expected, c.exact));
    }
    fmt::print("{}  vs {}\n", line, escape_nonprintable(c.reference));
  }
}

nlohmann::json json_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

nlohmann::json comparisons_json(const std::vector<Comparison>& comparisons) {
  auto list = nlohmann::json::array();
  for (const Comparison& c : comparisons) {
    nlohmann::json j = {{"output", c.output}, {"compared", c.compared()}};
    if (!c.compared()) {
      list.push_back(std::move(j));
      continue;
    }
    j["reference"] = c.reference;
    j["pass"] = c.pass;
    if (!c.problem.empty()) {
      j["problem"] = c.problem;
      list.push_back(std::move(j));
      continue;
    }
    j["exact"] = c.exact;
    j["atol"] = c.tolerance.atol;
    j["rtol"] = c.tolerance.rtol;
    j["elements"] = c.count;
    j["mismatches"] = c.mismatches;
    j["max_abs_error"] = json_number(c.max_abs);
    j["max_rel_error"] = json_number(c.max_rel);
    if (!c.worst_index.empty()) {
      j["worst_index"] = c.worst_index;
      j["worst_actual"] = json_number(c.worst_actual);
      j["worst_expected"] = json_number(c.worst_expected);
    }
    list.push_back(std::move(j));
  }
  return list;
}

}  // namespace irlite::cli

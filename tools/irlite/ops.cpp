// `irlite ops`: the op types and versions this build supports, the opsets that hold them and
// the element types of their inputs and outputs, from the library's op registry.

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "commands.hpp"

namespace irlite::cli {
namespace {

std::string display_name(const OpInfo& op) {
  return fmt::format("{}-{}", op.type, op.version);
}

// "f32", "i32|i64", or a word for the usual lists: "numeric" (every type but boolean),
// "integer", "any".
std::string types_text(const std::vector<ElementType>& types) {
  const auto all_of = [&](auto predicate) {
    std::size_t n = 0;
    for (int t = 0; t <= static_cast<int>(ElementType::u64); ++t)
      if (predicate(static_cast<ElementType>(t))) ++n;
    return n == types.size() && std::all_of(types.begin(), types.end(), predicate);
  };
  if (all_of([](ElementType t) { return t != ElementType::undefined; })) return "any";
  if (all_of([](ElementType t) { return is_numeric(t); })) return "numeric";
  if (all_of([](ElementType t) { return is_integral(t); })) return "integer";
  std::string s;
  for (const ElementType t : types) s += fmt::format("{}{}", s.empty() ? "" : "|", to_string(t));
  return s;
}

// "data numeric, k integer"; "-" for none.
std::string ports_text(const std::vector<OpPortInfo>& ports, int min_count) {
  std::string s;
  for (std::size_t i = 0; i < ports.size(); ++i)
    s += fmt::format("{}{}{} {}", s.empty() ? "" : ", ", ports[i].name,
                     static_cast<int>(i) >= min_count ? "?" : "",
                     types_text(ports[i].element_types));
  return s.empty() ? "-" : s;
}

nlohmann::ordered_json ports_json(const std::vector<OpPortInfo>& ports) {
  auto list = nlohmann::ordered_json::array();
  for (const OpPortInfo& port : ports) {
    auto types = nlohmann::ordered_json::array();
    for (const ElementType t : port.element_types) types.push_back(to_string(t));
    list.push_back({{"name", port.name}, {"element_types", std::move(types)}});
  }
  return list;
}

}  // namespace

int ops_command(bool json) {
  const auto ops = supported_ops();
  if (json) {
    auto doc = nlohmann::ordered_json::array();
    for (const OpInfo& op : ops)
      doc.push_back({{"type", op.type},
                     {"version", op.version},
                     {"since_opset", op.since_opset},
                     {"until_opset", op.until_opset},
                     {"inputs", {op.min_inputs, op.max_inputs}},
                     {"outputs", op.outputs.size()},
                     {"input_types", ports_json(op.inputs)},
                     {"output_types", ports_json(op.outputs)}});
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  std::size_t name_width = 2, opsets_width = 6, inputs_width = 19;  // the headings
  std::vector<std::string> opsets, inputs;
  for (const OpInfo& op : ops) {
    opsets.push_back(fmt::format("opset{}..opset{}", op.since_opset, op.until_opset));
    inputs.push_back(ports_text(op.inputs, op.min_inputs));
    name_width = std::max(name_width, display_name(op).size());
    opsets_width = std::max(opsets_width, opsets.back().size());
    inputs_width = std::max(inputs_width, inputs.back().size());
  }
  fmt::print("{:<{}}  {:<{}}  {:<{}}  {}\n", "op", name_width, "opsets", opsets_width,
             "inputs (? optional)", inputs_width, "outputs");
  for (std::size_t i = 0; i < ops.size(); ++i)
    fmt::print("{:<{}}  {:<{}}  {:<{}}  {}\n", display_name(ops[i]), name_width, opsets[i],
               opsets_width, inputs[i], inputs_width,
               ports_text(ops[i].outputs, static_cast<int>(ops[i].outputs.size())));
  return kExitOk;
}

}  // namespace irlite::cli

#include "run_json.hpp"

#include <cmath>
#include <type_traits>

#include "elements.hpp"

namespace irlite::cli {
namespace {

// A value of a tensor: integers exactly, floats as json_number does, booleans as true/false.
template <class T>
nlohmann::json value_json(compute_t<T> v, bool boolean) {
  if (boolean) return v != 0;
  if constexpr (is_float_v<T>)
    return json_number(static_cast<double>(v));
  else if constexpr (std::is_signed_v<T>)
    return static_cast<std::int64_t>(v);
  else
    return static_cast<std::uint64_t>(v);
}

template <class T>
void add_stats(std::span<const T> values, bool boolean, std::size_t shown, nlohmann::json& j) {
  const ValueStats<T> st = value_stats(values);
  if (st.counted > 0) {
    j["min"] = value_json<T>(st.lo, boolean);
    j["max"] = value_json<T>(st.hi, boolean);
    j["mean"] = json_number(st.sum / static_cast<double>(st.counted));
  }
  if constexpr (is_float_v<T>) {
    j["nan"] = st.nan;
    j["inf"] = st.inf;
  }
  auto first = nlohmann::json::array();
  for (std::size_t i = 0; i < std::min(shown, values.size()); ++i)
    first.push_back(value_json<T>(values[i], boolean));
  j["values"] = std::move(first);
}

}  // namespace

nlohmann::json tensor_json(const Tensor& tensor, std::size_t values) {
  nlohmann::json j = {{"type", to_string(tensor.element_type())}, {"shape", tensor.shape()}};
  const bool boolean = tensor.element_type() == ElementType::boolean;
  const auto add = [&](auto tag) {
    using T = typename decltype(tag)::type;
    add_stats<T>(tensor.values<T>(), boolean, values, j);
  };
  if (boolean)
    add(type_tag<std::uint8_t>{});
  else
    dispatch_numeric(tensor.element_type(), add);
  return j;
}

nlohmann::json inputs_json(const Model& model, const Inputs& inputs) {
  auto list = nlohmann::json::array();
  for (std::size_t i = 0; i < model.inputs().size(); ++i) {
    const PortInfo& port = model.inputs()[i];
    const Tensor& t = inputs.tensors.at(port.name);
    const InputSource& source = inputs.sources[i];
    nlohmann::json j = {{"name", port.name},
                        {"type", to_string(t.element_type())},
                        {"shape", t.shape()},
                        {"source", source.random() ? "random" : "file"}};
    if (source.random()) {
      j["seed"] = source.seed;
    } else {
      j["file"] = source.file;
      if (!source.member.empty()) j["array"] = source.member;
    }
    list.push_back(std::move(j));
  }
  return list;
}

nlohmann::json run_json(const RunReport& r) {
  const Model& model = *r.model;
  auto outputs = nlohmann::json::array();
  for (std::size_t i = 0; i < model.outputs().size(); ++i) {
    nlohmann::json j = {{"name", model.outputs()[i].name}};
    j.update(tensor_json((*r.outputs)[i], r.values));
    if (!r.saved.empty()) j["file"] = r.saved[i];
    outputs.push_back(std::move(j));
  }
  nlohmann::json doc = {{"model", model.source()},
                        {"inputs", inputs_json(model, *r.inputs)},
                        {"outputs", std::move(outputs)},
                        {"timings", {{"load_ms", r.load_ms}, {"run_ms", r.run_ms}}}};
  if (r.expected) doc["expect"] = comparisons_json(*r.expected);
  return doc;
}

}  // namespace irlite::cli

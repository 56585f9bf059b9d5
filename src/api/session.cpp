#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>

#include "api/model_impl.hpp"

namespace irlite {
namespace detail {

struct SessionState {
  std::vector<Tensor> slots;  // reused between runs
};

}  // namespace detail

namespace {

std::string input_names(const detail::ModelImpl& m) {
  std::string s;
  for (const PortInfo& in : m.inputs) s += (s.empty() ? "" : ", ") + in.name;
  return s.empty() ? "none" : s;
}

ErrorContext input_context(const detail::ModelImpl& m, std::size_t index) {
  ErrorContext c = m.graph.context(m.graph.nodes[m.graph.parameters[index]]);
  return c;
}

}  // namespace

Session::Session(Model model, SessionOptions options)
    : model_(std::move(model)), options_(options), state_(std::make_unique<detail::SessionState>()) {
  if (options_.max_tensor_bytes == 0) {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGESIZE);
    options_.max_tensor_bytes = pages > 0 && page_size > 0
                                    ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size)
                                    : SIZE_MAX;
  }
  const detail::ModelImpl& m = model_.impl();
  if (!m.problems.empty())
    throw Error(ErrorCode::usage, "cannot run a model that failed to load: " +
                                      std::string(m.problems.front().what()));
}

Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

std::map<std::string, Tensor> Session::run(const std::map<std::string, Tensor>& inputs) {
  const detail::ModelImpl& m = model_.impl();
  const Graph& graph = m.graph;
  std::vector<Tensor> fed(graph.parameters.size());
  std::vector<bool> given(graph.parameters.size(), false);
  for (const auto& [name, tensor] : inputs) {
    // A Parameter's layer name wins over another Parameter's tensor name.
    std::size_t index = SIZE_MAX;
    for (std::size_t p = 0; p < m.inputs.size() && index == SIZE_MAX; ++p)
      if (m.inputs[p].name == name) index = p;
    for (std::size_t p = 0; p < m.inputs.size() && index == SIZE_MAX; ++p) {
      const auto& names = m.inputs[p].tensor_names;
      if (std::find(names.begin(), names.end(), name) != names.end()) index = p;
    }
    if (index == SIZE_MAX)
      throw Error(ErrorCode::input, fmt::format("the model has no input '{}' (inputs: {})", name,
                                                input_names(m)));
    if (given[index])
      throw Error(ErrorCode::input,
                  fmt::format("input '{}' is given twice (as '{}')", m.inputs[index].name, name),
                  input_context(m, index));
    const PortInfo& port = m.inputs[index];
    if (tensor.element_type() != port.element_type || !port.shape.accepts(tensor.shape()))
      throw Error(ErrorCode::input,
                  fmt::format("input '{}' expects {} {}, got {} {}", port.name,
                              to_string(port.element_type), to_string(port.shape),
                              to_string(tensor.element_type()), to_string(tensor.shape())),
                  input_context(m, index));
    if (tensor.data() == nullptr && tensor.size() != 0)
      throw Error(ErrorCode::input, fmt::format("input '{}' has no data", port.name),
                  input_context(m, index));
    fed[index] = tensor;
    given[index] = true;
  }
  for (std::size_t p = 0; p < given.size(); ++p)
    if (!given[p])
      throw Error(ErrorCode::input, fmt::format("input '{}' is not given", m.inputs[p].name),
                  input_context(m, p));

  std::vector<Tensor> results = execute(graph, m.plan, std::move(fed), state_->slots, options_.max_tensor_bytes);
  std::map<std::string, Tensor> outputs;
  for (std::size_t r = 0; r < results.size(); ++r) outputs[m.outputs[r].name] = std::move(results[r]);
  state_->slots.assign(state_->slots.size(), Tensor());
  return outputs;
}

}  // namespace irlite

#include <fmt/format.h>

#include <algorithm>

#include "api/model_impl.hpp"
#include "core/buffer.hpp"
#include "core/parallel.hpp"

namespace irlite {

namespace detail {

/// What a Session keeps between runs: its threads, and the buffers and scratch space of the
/// executor.
struct SessionState {
  explicit SessionState(unsigned threads) : pool(threads) {}
  ThreadPool pool;
  ExecState exec;
  /// Per model output: the tensor bound to it, if any.
  std::vector<std::optional<Tensor>> bound;
  /// Whether some output is bound.
  bool any_bound = false;
  RunProfile profile;
};

}  // namespace detail

namespace {

ErrorContext input_context(const detail::ModelImpl& m, std::size_t index) {
  return m.graph.context(m.graph.nodes[m.graph.parameters[index]]);
}

/// The position of output `name` in Model::outputs(); Error(usage) when there is none.
std::size_t output_index(const detail::ModelImpl& m, std::string_view name) {
  for (std::size_t r = 0; r < m.outputs.size(); ++r)
    if (m.outputs[r].name == name) return r;
  std::string names;
  for (const PortInfo& port : m.outputs) names += (names.empty() ? "" : ", ") + port.name;
  throw Error(ErrorCode::usage,
              fmt::format("the model has no output '{}' (outputs: {})", name, names));
}

}  // namespace

Session::Session(Model model, SessionOptions options)
    : model_(std::move(model)), options_(options) {
  const detail::ModelImpl& m = detail::ModelAccess::impl(model_);
  if (!m.problems.empty())
    throw Error(ErrorCode::usage, "cannot run a model that failed to load: " +
                                      std::string(m.problems.front().what()));
  if (m.weights_missing)
    throw Error(ErrorCode::usage,
                "cannot run a model whose Consts have no weights (it was loaded with keep_going "
                "and its weights file is missing)");
  if (options_.max_memory_bytes == 0) options_.max_memory_bytes = physical_memory() / 2;
  if (options_.max_tensor_bytes == 0) options_.max_tensor_bytes = options_.max_memory_bytes;
  if (options_.num_threads == 0) options_.num_threads = available_cpus();
  state_ = std::make_unique<detail::SessionState>(options_.num_threads);
  state_->bound.resize(m.outputs.size());
}

Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

Outputs Session::run(const std::map<std::string, Tensor>& inputs) {
  return run(inputs, LayerObserver());
}

Outputs Session::run(const std::map<std::string, Tensor>& inputs, const LayerObserver& observer) {
  if (!state_) throw Error(ErrorCode::usage, "this Session was moved from: it cannot run");
  const detail::ModelImpl& m = detail::ModelAccess::impl(model_);
  const Graph& graph = m.graph;
  std::vector<Tensor> fed(graph.parameters.size());
  std::vector<bool> given(graph.parameters.size(), false);
  for (const auto& [name, tensor] : inputs) {
    const auto index = m.find_input(name);
    if (!index)
      throw Error(ErrorCode::input,
                  fmt::format("the model has no input '{}' (inputs: {})", name, m.input_names()));
    if (given[*index])
      throw Error(ErrorCode::input,
                  fmt::format("input '{}' is given twice (as '{}')", m.inputs[*index].name, name),
                  input_context(m, *index));
    const PortInfo& port = m.inputs[*index];
    if (tensor.element_type() != port.element_type || !port.shape.accepts(tensor.shape()))
      throw Error(ErrorCode::input,
                  fmt::format("input '{}' expects {} {}, got {} {}", port.name,
                              to_string(port.element_type), to_string(port.shape),
                              to_string(tensor.element_type()), to_string(tensor.shape())),
                  input_context(m, *index));
    if (tensor.data() == nullptr && tensor.size() != 0)
      throw Error(ErrorCode::input, fmt::format("input '{}' has no data", port.name),
                  input_context(m, *index));
    fed[*index] = tensor;
    given[*index] = true;
  }
  for (std::size_t p = 0; p < given.size(); ++p)
    if (!given[p])
      throw Error(ErrorCode::input, fmt::format("input '{}' is not given", m.inputs[p].name),
                  input_context(m, p));

  const MemoryLimits limits{options_.max_memory_bytes, options_.max_tensor_bytes};
  RunHooks hooks;
  if (state_->any_bound) {
    hooks.bound = state_->bound;
    hooks.outputs = m.outputs;
  }
  if (options_.profile || observer) hooks.layers = &model_.layers();
  if (options_.profile) hooks.profile = &state_->profile;
  if (observer) hooks.observer = &observer;
  std::vector<Tensor> results = execute(graph, m.plan, std::move(fed), limits,
                                        ExecContext{Parallel(&state_->pool)}, state_->exec, hooks);
  std::vector<Outputs::value_type> outputs;
  outputs.reserve(results.size());
  for (std::size_t r = 0; r < results.size(); ++r)
    outputs.emplace_back(m.outputs[r].name, std::move(results[r]));
  return Outputs(std::move(outputs));
}

void Session::bind_output(std::string_view name, Tensor tensor) {
  if (!state_) throw Error(ErrorCode::usage, "this Session was moved from: it cannot bind");
  const detail::ModelImpl& m = detail::ModelAccess::impl(model_);
  const std::size_t r = output_index(m, name);
  const PortInfo& port = m.outputs[r];
  if (tensor.element_type() != port.element_type || !port.shape.accepts(tensor.shape()))
    throw Error(ErrorCode::usage,
                fmt::format("output '{}' is {} {}: a tensor of {} {} cannot be bound to it",
                            port.name, to_string(port.element_type), to_string(port.shape),
                            to_string(tensor.element_type()), to_string(tensor.shape())));
  if (tensor.data() == nullptr && tensor.size() != 0)
    throw Error(ErrorCode::usage,
                fmt::format("the tensor bound to output '{}' has no data", port.name));
  state_->bound[r] = std::move(tensor);
  state_->any_bound = true;
}

void Session::unbind_output(std::string_view name) {
  if (!state_) throw Error(ErrorCode::usage, "this Session was moved from: it cannot unbind");
  state_->bound[output_index(detail::ModelAccess::impl(model_), name)].reset();
  state_->any_bound = std::any_of(state_->bound.begin(), state_->bound.end(),
                                  [](const std::optional<Tensor>& t) { return t.has_value(); });
}

const RunProfile& Session::profile() const {
  static const RunProfile none;
  return state_ ? state_->profile : none;
}

}  // namespace irlite

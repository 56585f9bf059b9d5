#include <fmt/format.h>

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
};

}  // namespace detail

namespace {

ErrorContext input_context(const detail::ModelImpl& m, std::size_t index) {
  return m.graph.context(m.graph.nodes[m.graph.parameters[index]]);
}

}  // namespace

Session::Session(Model model, SessionOptions options)
    : model_(std::move(model)), options_(options) {
  const detail::ModelImpl& m = model_.impl();
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
}

Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

std::map<std::string, Tensor> Session::run(const std::map<std::string, Tensor>& inputs) {
  if (!state_) throw Error(ErrorCode::usage, "this Session was moved from: it cannot run");
  const detail::ModelImpl& m = model_.impl();
  const Graph& graph = m.graph;
  std::vector<Tensor> fed(graph.parameters.size());
  std::vector<bool> given(graph.parameters.size(), false);
  for (const auto& [name, tensor] : inputs) {
    const auto index = m.find_input(name);
    if (!index)
      throw Error(ErrorCode::input, fmt::format("the model has no input '{}' (inputs: {})", name,
                                                m.input_names()));
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
  std::vector<Tensor> results = execute(graph, m.plan, std::move(fed), limits,
                                        ExecContext{Parallel(&state_->pool)}, state_->exec);
  std::map<std::string, Tensor> outputs;
  for (std::size_t r = 0; r < results.size(); ++r) outputs[m.outputs[r].name] = std::move(results[r]);
  return outputs;
}

}  // namespace irlite

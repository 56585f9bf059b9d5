#include "graph/order.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <vector>

namespace irlite {
namespace {

constexpr std::size_t kNone = SIZE_MAX;

void report_cycle(Graph& graph, Diagnostics& diagnostics, const std::vector<std::size_t>& pending,
                  std::vector<std::size_t>& order) {
  // Every layer left has an unsorted producer, so walking producers must come back to a layer
  // already seen: that loop is a cycle.
  std::size_t start = 0;
  while (pending[start] == 0) ++start;
  std::vector<std::size_t> seen_at(graph.nodes.size(), kNone);
  std::vector<std::size_t> path;
  std::size_t cur = start;
  while (seen_at[cur] == kNone) {
    seen_at[cur] = path.size();
    path.push_back(cur);
    for (const InputPort& in : graph.nodes[cur].inputs) {
      if (in.source_node != kNone && pending[in.source_node] != 0) {
        cur = in.source_node;
        break;
      }
    }
  }
  // The walk went from consumers to producers; print the loop in data-flow order. Of a long
  // loop only the first layers are named, so that the message stays one readable line.
  constexpr std::size_t kNamed = 8;
  const std::size_t length = path.size() - seen_at[cur];
  std::string members;
  for (std::size_t k = path.size(); k-- > seen_at[cur] && path.size() - k <= kNamed;) {
    const Node& m = graph.nodes[path[k]];
    members += fmt::format("{} '{}' -> ", m.id, m.name);
  }
  if (length > kNamed) members += fmt::format("... ({} more) -> ", length - kNamed);
  const Node& first = graph.nodes[path.back()];
  members += fmt::format("{} '{}'", first.id, first.name);
  diagnostics.report(
      Error(ErrorCode::graph,
            (length > kNamed ? fmt::format("the layer is on a cycle of {} layers: ", length)
                             : std::string("the layer is on a cycle: ")) +
                members,
            graph.context(first)));
  // With keep_going, the layers on or behind the cycle stay, unsorted and not inferred.
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (pending[i] != 0) {
      graph.nodes[i].failed = true;
      order.push_back(i);
    }
  }
}

void apply_order(Graph& graph, const std::vector<std::size_t>& order) {
  std::vector<std::size_t> new_index(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) new_index[order[k]] = k;
  std::vector<Node> sorted;
  sorted.reserve(order.size());
  for (std::size_t i : order) sorted.push_back(std::move(graph.nodes[i]));
  for (Node& node : sorted)
    for (InputPort& in : node.inputs)
      if (in.source_node != kNone) in.source_node = new_index[in.source_node];
  for (auto& p : graph.parameters) p = new_index[p];
  for (auto& r : graph.results) r = new_index[r];
  graph.nodes = std::move(sorted);
}

}  // namespace

void sort_topologically(Graph& graph, Diagnostics& diagnostics) {
  const std::size_t n = graph.nodes.size();
  // IR files list layers in an order that already runs (producers first); Kahn's algorithm
  // below would keep that order, so there is nothing to do.
  bool in_order = true;
  for (std::size_t i = 0; i < n && in_order; ++i)
    for (const InputPort& in : graph.nodes[i].inputs)
      if (in.source_node != kNone && in.source_node >= i) in_order = false;
  if (in_order) return;

  std::vector<std::size_t> pending(n, 0);
  // The consumers of node i are consumers[first[i] .. first[i + 1]).
  std::vector<std::size_t> first(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (const InputPort& in : graph.nodes[i].inputs) {
      if (in.source_node == kNone) continue;
      ++pending[i];
      ++first[in.source_node + 1];
    }
  }
  for (std::size_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<std::size_t> consumers(first[n]);
  std::vector<std::size_t> filled(first.begin(), first.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    for (const InputPort& in : graph.nodes[i].inputs)
      if (in.source_node != kNone) consumers[filled[in.source_node]++] = i;
  // Kahn's algorithm; among ready layers the earliest in the document goes first, so the
  // order is deterministic and follows the file where the edges allow.
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(i);
  std::vector<std::size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::size_t k = first[i]; k < first[i + 1]; ++k)
      if (--pending[consumers[k]] == 0) ready.push(consumers[k]);
  }
  if (order.size() < n) report_cycle(graph, diagnostics, pending, order);
  apply_order(graph, order);
}

void mark_reaching_results(Graph& graph) {
  for (Node& node : graph.nodes) node.reaches_result = false;
  std::vector<std::size_t> stack(graph.results.begin(), graph.results.end());
  while (!stack.empty()) {
    Node& node = graph.nodes[stack.back()];
    stack.pop_back();
    if (node.reaches_result) continue;
    node.reaches_result = true;
    for (const InputPort& in : node.inputs)
      if (in.source_node != kNone) stack.push_back(in.source_node);
  }
  // Parameters are model inputs whether or not anything reads them.
  for (std::size_t p : graph.parameters) graph.nodes[p].reaches_result = true;
}

}  // namespace irlite

#pragma once
// Edge wiring: each <edge> feeds one input port of a layer from an output port of another. The
// layers are read first (the schema reader fills the graph's nodes and the id index); the
// wiring then resolves each edge's layer and port ids, connects the ports, and, once every edge
// is read, reports the inputs left unfed.

#include <cstddef>
#include <cstdint>
#include <pugixml.hpp>
#include <unordered_map>

#include "graph/graph.hpp"
#include "loader/ids.hpp"
#include "loader/text_positions.hpp"

namespace irlite::loader {

class EdgeWiring {
 public:
  /// Wires the nodes of `graph`, found by id through `ids`; problems go to `diagnostics`,
  /// placed through `positions`. All four must outlive the wiring.
  EdgeWiring(Graph& graph, const IdIndex& ids, const TextPositions& positions,
             Diagnostics& diagnostics)
      : graph_(graph), ids_(ids), positions_(positions), diag_(diagnostics) {}

  /// Reads one <edge> element and connects the ports it names, or reports why it cannot.
  void read_edge(const pugi::xml_node& edge);

  /// Once every edge is read: reports each input port no edge feeds and marks its layer failed.
  /// The port lookups built for the edges are dropped first.
  void check_inputs_fed();

 private:
  /// Where port `id` of a node is: its position among the inputs or among the outputs.
  struct PortRef {
    bool output = false;
    std::size_t position = kNone;
  };

  PortRef find_port(std::size_t node_index, std::int64_t id);
  void connect(const pugi::xml_node& edge, std::int64_t from_layer, std::int64_t from_port,
               std::int64_t to_layer, std::int64_t to_port);
  ErrorContext at_edge(const pugi::xml_node& edge, std::size_t node_index) const;
  void fail(ErrorCode code, std::string message, ErrorContext c);

  Graph& graph_;
  const IdIndex& ids_;
  const TextPositions& positions_;
  Diagnostics& diag_;
  /// Port lookup for the nodes with many ports, built when an edge first needs it.
  std::unordered_map<std::size_t, std::unordered_map<std::int64_t, PortRef>> port_maps_;
};

}  // namespace irlite::loader

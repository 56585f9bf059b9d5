#include "loader/ir_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <pugixml.hpp>
#include <unordered_map>
#include <utility>

#include "core/buffer.hpp"
#include "core/ir_element_types.hpp"
#include "core/text.hpp"
#include "graph/order.hpp"
#include "loader/constants.hpp"
#include "loader/encoding.hpp"
#include "loader/ids.hpp"
#include "loader/layer_ops.hpp"
#include "loader/piece_parser.hpp"
#include "loader/text_positions.hpp"
#include "loader/wiring.hpp"
#include "loader/xml_names.hpp"
#include "loader/xml_pieces.hpp"

namespace irlite {
namespace {

using loader::IdIndex;
using loader::named;
using loader::NotInPieces;
using loader::parse_id;
using loader::PieceParser;
using loader::PortIdSet;
using loader::TextPositions;

/// A <dim>'s text as parse_int64 reads it, plain digits without the general parser.
std::optional<std::int64_t> parse_dim(const char* text) {
  std::int64_t v = 0;
  std::size_t n = 0;
  for (; n < 18 && text[n] >= '0' && text[n] <= '9'; ++n) v = 10 * v + (text[n] - '0');
  if (n > 0 && text[n] == '\0') return v;
  return parse_int64(text);
}

/// Splits a `names` attribute: commas separate, `\,` escapes a comma, blanks around each name
/// are trimmed.
std::vector<std::string> split_names(std::string_view text) {
  std::vector<std::string> names;
  if (text.find_first_of(",\\") == std::string_view::npos) {  // one name, the usual case
    const std::string_view name = trim_blanks(text);
    if (!name.empty()) names.emplace_back(name);
    return names;
  }
  std::string current;
  auto flush = [&] {
    const std::string_view name = trim_blanks(current);
    if (!name.empty()) names.emplace_back(name);
    current.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ',') {
      current += ',';
      ++i;
    } else if (text[i] == ',') {
      flush();
    } else {
      current += text[i];
    }
  }
  flush();
  return names;
}

class Reader {
 public:
  Reader(const std::string& file, const Weights& weights, Diagnostics& diag, const OpCatalog& ops)
      : weights_(weights), diag_(diag), positions_(file), layer_types_(ops.resolve) {
    graph_.file = file;
    graph_.op_owner = ops.owner;
    graph_.type_texts = layer_types_.texts();
  }

  Graph read(std::string_view xml) {
    loader::check_encoding(xml, graph_.file);
    positions_.index(xml);
    return read_document(
        doc_.load_buffer(xml.data(), xml.size(), kIrParseOptions, pugi::encoding_utf8));
  }

  /// Reads `xml` with its lists parsed a piece at a time (xml_pieces.hpp). Throws NotInPieces,
  /// or an Error before text_confirmed(), when the text may not be what the pieces made of it:
  /// then it is to be read whole, which decides what is wrong with it.
  Graph read_in_pieces(std::string_view xml, TextPieces& pieces, std::size_t piece_bytes) {
    loader::check_encoding(xml, graph_.file);
    positions_.index(xml);
    // pugixml stops at a NUL: a piece would end there unnoticed, where the whole text fails.
    if (positions_.has_nul()) throw NotInPieces{};
    pieces_.emplace(xml, pieces, piece_bytes, positions_);
    // The skeleton is parsed in place: it is of no use once read, whether or not the text then
    // has to be read whole.
    if (!doc_.load_buffer_inplace(pieces.skeleton.data(), pieces.skeleton.size(), kIrParseOptions,
                                  pugi::encoding_utf8))
      throw NotInPieces{};
    read_root();
    const pugi::xml_node layers = root_.child("layers");
    edges_ = root_.child("edges");
    if (!pieces_->is_cut_list(layers, pieces.layers) ||
        (pieces.edges && !pieces_->is_cut_list(edges_, *pieces.edges)))
      throw NotInPieces{};
    read_layers_in_pieces(layers);
    if (pieces.edges)
      read_edges_in_pieces();
    else
      read_edges();
    return finish();
  }

  /// Whether every piece parsed: the text is then what the pieces made of it, and an Error is
  /// the one reading it whole would give.
  bool text_confirmed() const { return pieces_ && pieces_->confirmed(); }

  Graph read_in_place(XmlText& xml) {
    const std::span<char> bytes = xml.bytes();
    loader::check_encoding(std::string_view(bytes.data(), bytes.size()), graph_.file);
    positions_.index(std::string_view(bytes.data(), bytes.size()));
    text_ = &xml;
    return read_document(
        doc_.load_buffer_inplace(bytes.data(), bytes.size(), kIrParseOptions, pugi::encoding_utf8));
  }

 private:
  Graph read_document(const pugi::xml_parse_result& parsed) {
    if (!parsed) {
      // Nothing else can be read from a document that does not parse.
      throw Error(ErrorCode::xml, fmt::format("malformed XML: {}", parsed.description()),
                  positions_.at_offset(parsed.offset));
    }
    read_root();
    // Looked up first: reading the layers may give back the text of <net>'s earlier children.
    edges_ = root_.child("edges");
    read_layers();
    read_edges();
    return finish();
  }

  Graph finish() {
    // Everything the graph needs has been copied out of the document.
    doc_.reset();
    if (pieces_) pieces_->release();
    positions_.clear();
    wiring_.check_inputs_fed();
    sort_topologically(graph_, diag_);
    mark_reaching_results(graph_);
    loader::attach_constants(graph_, weights_, diag_);
    return std::move(graph_);
  }

  /// Releases the text before element `n`: what the reader takes from the document it takes in
  /// document order, and copies. Only at every kReleaseEvery-th call: the text goes back in
  /// steps of megabytes, and finding an element's offset is not free.
  void release_before(const pugi::xml_node& n) {
    if (!text_ || ++release_calls_ % kReleaseEvery != 0) return;
    const std::ptrdiff_t offset = n.offset_debug();
    if (offset > 0) text_->release_before(static_cast<std::size_t>(offset - 1));
  }

  ErrorContext at(const pugi::xml_node& n) const { return positions_.at(n); }
  Location location(const pugi::xml_node& n) const { return positions_.location(n); }
  /// The context of a layer, placed at element `n` (the layer itself or one of its children).
  ErrorContext at_layer(const Node& node, const pugi::xml_node& n) const {
    return positions_.at(n, graph_.context(node));
  }

  void fail(ErrorCode code, std::string message, ErrorContext c) {
    diag_.report(Error(code, std::move(message), std::move(c)));
  }

  /// A layer of a type irlite does not have. A model stopped by one missing op has it in many
  /// layers: each type is reported once, at its first layer, with how many layers have it.
  void report_unsupported(const loader::LayerType& type, ErrorContext c) {
    const auto [it, first] = unsupported_.try_emplace(&type, Unsupported{diag_.problems.size(), 0});
    Unsupported& u = it->second;
    ++u.count;
    if (first) return fail(ErrorCode::unsupported, type.why, std::move(c));
    Error& problem = diag_.problems[u.problem];
    problem = Error(ErrorCode::unsupported,
                    fmt::format("{} ({} layers have it; this is the first)", type.why, u.count),
                    problem.context());
  }

  void read_root() {
    const pugi::xml_node root = doc_.document_element();
    if (!root || ascii_lower(root.name()) != "net")
      throw Error(ErrorCode::format,
                  fmt::format("not an OpenVINO IR: the root element is <{}>, expected <net>",
                              root ? root.name() : ""),
                  at(root));
    graph_.name = root.attribute("name").value();
    const pugi::xml_attribute version = root.attribute("version");
    const auto v = parse_int64(version.value());
    if (!version || !v || (*v != 10 && *v != 11))
      throw Error(ErrorCode::format,
                  version ? fmt::format("unsupported IR version '{}'; irlite reads versions 10 "
                                        "and 11",
                                        version.value())
                          : std::string("<net> has no version attribute; irlite reads IR versions "
                                        "10 and 11"),
                  at(root));
    graph_.ir_version = static_cast<int>(*v);
    root_ = root;
  }

  void read_layers() {
    const pugi::xml_node layers = root_.child("layers");
    if (!layers) throw Error(ErrorCode::format, "<net> has no <layers>", at(root_));
    std::size_t count = 0;
    for (pugi::xml_node n = layers.first_child(); n; n = n.next_sibling())
      count += named(n.name(), "layer");
    graph_.nodes.reserve(count);
    advise_huge_pages(graph_.nodes.data(), count * sizeof(Node));
    ids_.reserve(count);
    // The text before a layer is done with, unless the <edges> are in it.
    const bool release = !edges_ || edges_.offset_debug() > layers.offset_debug();
    for (pugi::xml_node n = layers.first_child(); n; n = n.next_sibling()) {
      if (!named(n.name(), "layer")) continue;
      if (release) release_before(n);
      read_layer(n);
    }
    check_results(layers);
  }

  void check_results(const pugi::xml_node& layers) {
    if (graph_.results.empty() && !graph_.nodes.empty())
      fail(ErrorCode::graph, "the model has no Result layer, so nothing would be computed",
           at(layers));
  }

  void read_layers_in_pieces(const pugi::xml_node& layers) {
    const ListRegion& region = pieces_->pieces().layers;
    pieces_->for_each_piece(region, "layer", !pieces_->pieces().edges,
                            [&](const pugi::xml_document& piece, std::size_t end) {
                              std::size_t count = 0;
                              for (pugi::xml_node n = piece.first_child(); n; n = n.next_sibling())
                                count += named(n.name(), "layer");
                              make_room(count, end - region.begin, region.end - region.begin);
                              for (pugi::xml_node n = piece.first_child(); n; n = n.next_sibling())
                                if (named(n.name(), "layer")) read_layer(n);
                            });
    check_results(layers);
  }

  /// Room for `count` more layers, read from a piece that ends `done` bytes into a list of
  /// `total`: as many as the list holds at the density seen so far, and a tenth more.
  void make_room(std::size_t count, std::size_t done, std::size_t total) {
    std::vector<Node>& nodes = graph_.nodes;
    const std::size_t needed = nodes.size() + count;
    if (needed <= nodes.capacity()) return;
    const double projected = static_cast<double>(needed) * static_cast<double>(total) /
                             static_cast<double>(std::max<std::size_t>(done, 1)) * 1.1;
    const std::size_t room =
        std::max({needed, 2 * nodes.capacity(), static_cast<std::size_t>(projected) + 16});
    const bool first = nodes.capacity() == 0;
    nodes.reserve(room);
    advise_huge_pages(nodes.data(), room * sizeof(Node));
    if (first) ids_.reserve(room);
  }

  void read_edges() {
    for (pugi::xml_node edge = edges_.first_child(); edge; edge = edge.next_sibling()) {
      if (!named(edge.name(), "edge")) continue;
      release_before(edge);
      wiring_.read_edge(edge);
    }
  }

  void read_edges_in_pieces() {
    pieces_->for_each_piece(*pieces_->pieces().edges, "edge", true,
                            [&](const pugi::xml_document& piece, std::size_t) {
                              for (pugi::xml_node n = piece.first_child(); n; n = n.next_sibling())
                                if (named(n.name(), "edge")) wiring_.read_edge(n);
                            });
  }

  /// The first child element of each name the reader looks at.
  struct LayerParts {
    pugi::xml_node data, input, output;
  };

  void read_layer(const pugi::xml_node& layer) {
    // The mandatory attributes in one pass; the first of a repeated name counts, as with
    // pugixml's attribute().
    static constexpr const char* kMandatory[] = {"id", "name", "type", "version"};
    const char* text[4] = {};
    for (pugi::xml_attribute a = layer.first_attribute(); a; a = a.next_attribute()) {
      const char* name = a.name();
      // The first letter tells which it can be; one comparison checks it.
      int k = -1;
      switch (name[0]) {
        case 'i':
          k = named(name, "id") ? 0 : -1;
          break;
        case 'n':
          k = named(name, "name") ? 1 : -1;
          break;
        case 't':
          k = named(name, "type") ? 2 : -1;
          break;
        case 'v':
          k = named(name, "version") ? 3 : -1;
          break;
        default:
          break;
      }
      if (k >= 0 && !text[k]) text[k] = a.value();
    }
    for (int k = 0; k < 4; ++k) {
      if (!text[k]) {
        fail(ErrorCode::format,
             fmt::format("<layer> is missing the mandatory attribute '{}'", kMandatory[k]),
             at(layer));
        return;
      }
    }
    const auto id = parse_id(text[0]);
    if (!id) {
      fail(ErrorCode::format, fmt::format("layer id '{}' is not an unsigned integer", text[0]),
           at(layer));
      return;
    }
    // Built in place: a Node is large, and the layers are many. The vector has room for every
    // layer (read_layers counted them), so references into it stay valid.
    const std::size_t index = graph_.nodes.size();
    Node& node = graph_.nodes.emplace_back();
    node.location = location(layer);
    node.id = *id;
    node.name = text[1];
    const loader::LayerType& type = layer_types_.resolve(text[2], text[3]);
    node.written = type.text;
    node.def = type.def;
    const std::size_t first = ids_.insert(node.id, index);
    if (first != index) {
      const Node& other = graph_.nodes[first];
      fail(ErrorCode::graph,
           fmt::format("duplicate layer id {}: already used by layer '{}' at line {}", node.id,
                       other.name, other.location.line),
           at_layer(node, layer));
      graph_.nodes.pop_back();  // kept_going: the layer is left out
      return;
    }

    if (!node.def) report_unsupported(type, at_layer(node, layer));

    LayerParts parts;
    for (pugi::xml_node child = layer.first_child(); child; child = child.next_sibling()) {
      const char* name = child.name();
      switch (name[0]) {
        case 'd':
          if (!parts.data && named(name, "data")) parts.data = child;
          break;
        case 'i':
          if (!parts.input && named(name, "input")) parts.input = child;
          break;
        case 'o':
          if (!parts.output && named(name, "output")) parts.output = child;
          break;
        default:
          break;
      }
    }
    read_ports(node, layer, parts);
    if (node.def) create_op(node, layer, parts.data);
    if (!node.op)
      for (pugi::xml_attribute a = parts.data.first_attribute(); a; a = a.next_attribute())
        node.data_attributes.emplace_back(a.name(), a.value());

    if (node.kind() == OpKind::parameter) graph_.parameters.push_back(index);
    if (node.kind() == OpKind::result) graph_.results.push_back(index);
  }

  /// The attributes of a <port> the reader uses (the first of each name).
  struct PortAttributes {
    const char* id = "";
    pugi::xml_attribute precision;
    const char* names = "";
  };

  static PortAttributes port_attributes(const pugi::xml_node& port) {
    PortAttributes p;
    bool id = false, names = false;
    for (pugi::xml_attribute a = port.first_attribute(); a; a = a.next_attribute()) {
      const char* name = a.name();
      switch (name[0]) {
        case 'i':
          if (!id && named(name, "id")) {
            p.id = a.value();
            id = true;
          }
          break;
        case 'p':
          if (!p.precision && named(name, "precision")) p.precision = a;
          break;
        case 'n':
          if (!names && named(name, "names")) {
            p.names = a.value();
            names = true;
          }
          break;
        default:
          break;
      }
    }
    return p;
  }

  void read_ports(Node& node, const pugi::xml_node& layer, const LayerParts& parts) {
    // The ports are gathered in scratch vectors first, so that the node's own take one
    // allocation of the right size each.
    port_ids_.clear();
    inputs_.clear();
    for (pugi::xml_node port = parts.input.first_child(); port; port = port.next_sibling()) {
      if (!named(port.name(), "port")) continue;
      const auto id = port_id(node, port, port_attributes(port).id, "input");
      if (id) inputs_.push_back({*id});
    }
    node.inputs.assign(inputs_.begin(), inputs_.end());
    outputs_.clear();
    for (pugi::xml_node port = parts.output.first_child(); port; port = port.next_sibling()) {
      if (!named(port.name(), "port")) continue;
      const PortAttributes attributes = port_attributes(port);
      const auto id = port_id(node, port, attributes.id, "output");
      if (!id) continue;
      OutputPort& out = outputs_.emplace_back();
      out.id = *id;
      out.names = split_names(attributes.names);
      const pugi::xml_attribute precision = attributes.precision;
      const auto port_context = [&] {
        ErrorContext pc = at_layer(node, port);
        pc.port_kind = ErrorContext::PortKind::output;
        pc.port = *id;
        return pc;
      };
      if (!precision) {
        fail(ErrorCode::format, "output port has no precision attribute", port_context());
      } else if (auto t = precision_type(precision.value())) {
        out.declared_type = *t;
      } else if (is_unsupported_element_type(precision.value())) {
        fail(ErrorCode::unsupported,
             fmt::format("unsupported element type '{}'", precision.value()), port_context());
      } else {
        fail(ErrorCode::format, fmt::format("unknown precision '{}'", precision.value()),
             port_context());
      }
      dims_.clear();
      for (pugi::xml_node dim = port.first_child(); dim; dim = dim.next_sibling()) {
        if (!named(dim.name(), "dim")) continue;
        const char* text = dim.child_value();
        const auto d = parse_dim(text);
        if (!d || *d < -1) {
          fail(ErrorCode::format, fmt::format("dimension '{}' must be an integer >= -1", text),
               port_context());
          break;
        }
        dims_.push_back(*d);
      }
      out.declared_dims.assign(dims_.begin(), dims_.end());
    }
    node.outputs.assign(std::make_move_iterator(outputs_.begin()),
                        std::make_move_iterator(outputs_.end()));
    if (!node.def) return;
    const auto n_in = static_cast<int>(node.inputs.size());
    if (n_in < node.def->min_inputs || n_in > node.def->max_inputs) {
      const std::string expected =
          node.def->min_inputs == node.def->max_inputs
              ? std::to_string(node.def->min_inputs)
              : fmt::format("{} to {}", node.def->min_inputs, node.def->max_inputs);
      fail(ErrorCode::format,
           fmt::format("{} takes {} input(s), the layer declares {}", op_display_name(*node.def),
                       expected, n_in),
           at_layer(node, layer));
      node.def = nullptr;
      return;
    }
    const auto n_out = static_cast<int>(node.outputs.size());
    const int max_out = std::max(node.def->num_outputs, node.def->max_outputs);
    if (n_out < node.def->num_outputs || n_out > max_out) {
      const std::string expected =
          node.def->num_outputs == max_out        ? std::to_string(max_out)
          : max_out == std::numeric_limits<int>::max() ? fmt::format("at least {}", node.def->num_outputs)
                                                       : fmt::format("{} to {}", node.def->num_outputs, max_out);
      fail(ErrorCode::format,
           fmt::format("{} has {} output(s), the layer declares {}", op_display_name(*node.def),
                       expected, n_out),
           at_layer(node, layer));
      node.def = nullptr;
    }
  }

  /// parse_element_type, remembering the precisions seen: ports repeat a few, and alternate
  /// between them (an f32 input beside an i64 one), so one remembered answer is not enough.
  std::optional<ElementType> precision_type(const char* text) {
    const std::string_view precision(text);
    for (const KnownPrecision& k : precisions_)
      if (k.text == precision) return k.type;
    const std::optional<ElementType> type = parse_element_type(precision);
    if (precisions_.size() < kKnownPrecisions)
      precisions_.push_back({std::string(precision), type});
    return type;
  }

  /// The id of a <port>: an unsigned integer not used by another port of the layer.
  std::optional<std::int64_t> port_id(const Node& node, const pugi::xml_node& port,
                                      const char* text, std::string_view direction) {
    const auto id = parse_id(text);
    if (!id) {
      fail(ErrorCode::format,
           fmt::format("{} port id '{}' is not an unsigned integer", direction, text),
           at_layer(node, port));
      return std::nullopt;
    }
    if (!port_ids_.insert(*id)) {
      fail(ErrorCode::format, fmt::format("port id {} is used twice", *id), at_layer(node, port));
      return std::nullopt;
    }
    return id;
  }

  void create_op(Node& node, const pugi::xml_node& layer, const pugi::xml_node& data) {
    if (node.kind() == OpKind::parameter && !data) {
      fail(ErrorCode::format, "Parameter layer has no <data> (shape and element_type)",
           at_layer(node, layer));
      return;
    }
    try {
      node.op = ops_.get(*node.def, data);
    } catch (const Error& e) {
      fail(e.code(), e.message(), at_layer(node, data ? data : layer));
    }
  }

  const Weights& weights_;
  Diagnostics& diag_;
  XmlText* text_ = nullptr;  ///< the text parsed in place, released as it is read
  static constexpr std::size_t kReleaseEvery = 64;
  std::size_t release_calls_ = 0;
  TextPositions positions_;
  std::optional<PieceParser> pieces_;  ///< reading in pieces: doc_ holds the skeleton
  pugi::xml_document doc_;
  pugi::xml_node root_, edges_;
  Graph graph_;
  IdIndex ids_;
  loader::EdgeWiring wiring_{graph_, ids_, positions_, diag_};
  loader::LayerTypes layer_types_;
  struct Unsupported {
    std::size_t problem;  ///< the index of its report in diag_.problems
    std::size_t count;    ///< the layers of the type so far
  };
  std::unordered_map<const loader::LayerType*, Unsupported> unsupported_;
  loader::SharedOps ops_;
  // Scratch space reused from layer to layer.
  PortIdSet port_ids_;
  std::vector<std::int64_t> dims_;
  struct KnownPrecision {
    std::string text;
    std::optional<ElementType> type;
  };
  static constexpr std::size_t kKnownPrecisions = 16;
  std::vector<KnownPrecision> precisions_;
  std::vector<InputPort> inputs_;
  std::vector<OutputPort> outputs_;
};

/// Reads `xml` in pieces when it splits (xml_pieces.hpp); otherwise, or when the pieces turn out
/// not to be the document, calls `whole` to read it whole.
template <class Whole>
Graph read_either(std::string_view xml, const std::string& file, const Weights& weights,
                  Diagnostics& diagnostics, const OpCatalog& ops, std::size_t piece_bytes,
                  Whole whole) {
  if (piece_bytes == 0) return whole();
  std::optional<TextPieces> pieces = split_text(xml);
  if (!pieces) return whole();
  const std::size_t problems = diagnostics.problems.size();
  const std::size_t warnings = diagnostics.warnings.size();
  {
    Reader reader(file, weights, diagnostics, ops);
    try {
      return reader.read_in_pieces(xml, *pieces, piece_bytes);
    } catch (const NotInPieces&) {
    } catch (const Error&) {
      if (reader.text_confirmed()) throw;
    }
  }
  // What the attempt reported is reported again, or not, by the reading of the whole text.
  diagnostics.problems.erase(diagnostics.problems.begin() + static_cast<std::ptrdiff_t>(problems),
                             diagnostics.problems.end());
  diagnostics.warnings.erase(diagnostics.warnings.begin() + static_cast<std::ptrdiff_t>(warnings),
                             diagnostics.warnings.end());
  return whole();
}

}  // namespace

Graph read_ir(std::string_view xml, const std::string& file, const Weights& weights,
              Diagnostics& diagnostics, const OpCatalog& ops, std::size_t piece_bytes) {
  return read_either(xml, file, weights, diagnostics, ops, piece_bytes,
                     [&] { return Reader(file, weights, diagnostics, ops).read(xml); });
}

Graph read_ir_in_place(XmlText& xml, const std::string& file, const Weights& weights,
                       Diagnostics& diagnostics, const OpCatalog& ops, std::size_t piece_bytes) {
  const std::span<char> bytes = xml.bytes();
  return read_either(std::string_view(bytes.data(), bytes.size()), file, weights, diagnostics, ops,
                     piece_bytes,
                     [&] { return Reader(file, weights, diagnostics, ops).read_in_place(xml); });
}

}  // namespace irlite

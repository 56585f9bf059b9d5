#include "graph_page.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <vector>

namespace irlite::cli {
namespace embedded {
std::string graph_js();
std::string graph_css();
std::string d3_dag_js();
}  // namespace embedded

namespace {

// JSON that may stand inside a <script> element: '<', '>' and '&' occur only inside strings, so
// their \u escapes keep the same value and no "</script>" or "<!--" can appear.
std::string script_safe_json(const Json& doc) {
  const std::string text = doc.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string text_of(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// A DOT string's contents: what the terminal output escapes (control characters, bytes that
// are not UTF-8), then '"' and '\'.
std::string dot_escape(const std::string& text) {
  std::string out;
  for (const char c : escape_nonprintable(text)) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string clip(const std::string& text, std::size_t n) {
  return text.size() > n ? text.substr(0, n - 3) + "..." : text;
}

std::string type_of(const Json& layer) {
  const int version = layer["version"].get<int>();
  const std::string type = layer["type"].get<std::string>();
  if (version > 0) return fmt::format("{}-{}", type, version);
  const std::string opset = layer["opset"].get<std::string>();
  return opset.empty() ? type : fmt::format("{} ({})", type, opset);
}

std::string where(const Json& d) {
  std::string s = d["file"].get<std::string>();
  if (!d["line"].is_null()) {
    s += fmt::format(":{}", d["line"].get<std::int64_t>());
    if (!d["column"].is_null()) s += fmt::format(":{}", d["column"].get<std::int64_t>());
  }
  return s;
}

}  // namespace

std::string graph_page(const Json& doc) {
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      // Nothing from the network: scripts and styles are the page's own.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src "
      "'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>irlite</title>\n<style>\n";
  page += embedded::graph_css();
  page +=
      "</style>\n</head>\n<body>\n<header>\n<h1 id=\"title\"></h1>\n"
      "<span id=\"source\" class=\"muted\"></span>\n<span id=\"counts\" class=\"muted\"></span>\n"
      "<input id=\"search\" type=\"search\" placeholder=\"Find a layer by name or type\" "
      "aria-label=\"Find a layer by name or type (Enter: next)\">\n<span id=\"found\"></span>\n"
      "<button id=\"fit\" type=\"button\">Fit to window</button>\n"
      "<span class=\"legend\"><span class=\"unsupported\">unsupported</span><span "
      "class=\"problem\">problem</span><span class=\"warning\">warning</span><span "
      "class=\"declared\">declared shape differs</span><span class=\"folded\">folded at "
      "load</span><span class=\"dead\">not run</span><span class=\"fused\">fused</span>";
  if (doc.contains("profile")) page += "<span class=\"time\">share of run time</span>";
  page +=
      "</span>\n</header>\n<div id=\"banner\"></div>\n<main>\n<aside id=\"profile\" "
      "hidden></aside>\n<svg id=\"view\" xmlns=\"http://www.w3.org/2000/svg\">\n<defs><marker "
      "id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" "
      "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" "
      "fill=\"#7d8696\"/></marker></defs>\n<g id=\"graph\"></g>\n</svg>\n<aside "
      "id=\"details\"><p>Click a layer for its attributes, inputs and outputs. Wheel: zoom; "
      "drag: pan; Enter in the search box: the next match.</p></aside>\n</main>\n"
      "<script type=\"application/json\" id=\"irlite-model\">";
  page += script_safe_json(doc);
  page += "</script>\n<script>\n";
  page += embedded::d3_dag_js();
  page += "\n</script>\n<script>\n";
  page += embedded::graph_js();
  page += "</script>\n</body>\n</html>\n";
  return page;
}

std::string graph_dot(const Json& doc) {
  const Json& layers = doc["layers"];
  std::map<std::int64_t, std::size_t> index;
  for (std::size_t i = 0; i < layers.size(); ++i) index[layers[i]["id"].get<std::int64_t>()] = i;
  std::vector<std::vector<std::size_t>> readers(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i)
    for (const Json& in : layers[i]["inputs"]) {
      const auto from = index.find(in["from_layer"].get<std::int64_t>());
      if (from != index.end()) readers[from->second].push_back(i);
    }
  // Consts read only by layers other than Results are drawn as labels of their readers.
  std::vector<bool> as_label(layers.size(), false);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i]["type"] != "Constant" || readers[i].empty()) continue;
    as_label[i] = true;
    for (const std::size_t r : readers[i])
      if (layers[r]["type"] == "Result") as_label[i] = false;
  }
  std::vector<std::vector<std::pair<std::string, const Json*>>> notes(layers.size());
  std::vector<std::pair<std::string, const Json*>> loose;
  for (const char* kind : {"problems", "warnings"})
    for (const Json& d : doc[kind]) {
      const std::string k = kind[0] == 'p' ? "problem" : "warning";
      const auto at =
          d["layer_id"].is_null() ? index.end() : index.find(d["layer_id"].get<std::int64_t>());
      (at != index.end() ? notes[at->second] : loose).emplace_back(k, &d);
    }

  std::string dot = fmt::format(
      "// irlite inspect --dot: {}\n// Render: dot -Tsvg model.dot -o model.svg\n"
      "digraph \"{}\" {{\n  graph [rankdir=TB, label=\"{}\", labelloc=t];\n"
      "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef2fb\", color=\"#55607a\", "
      "fontname=\"DejaVu Sans\", fontsize=10];\n"
      "  edge [color=\"#7d8696\", fontname=\"DejaVu Sans Mono\", fontsize=9, "
      "fontcolor=\"#3d5a99\"];\n",
      escape_nonprintable(doc["source"].get<std::string>()),
      dot_escape(doc["name"].get<std::string>()), dot_escape(doc["source"].get<std::string>()));
  for (const auto& [kind, d] : loose)
    dot += fmt::format("  // {}: {}\n", kind, escape_nonprintable((*d)["text"].get<std::string>()));

  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (as_label[i]) continue;
    const Json& l = layers[i];
    std::vector<std::string> lines{type_of(l), clip(l["name"].get<std::string>(), 48)};
    for (const Json& in : l["inputs"]) {
      const auto from = index.find(in["from_layer"].get<std::int64_t>());
      if (from == index.end() || !as_label[from->second]) continue;
      const Json& c = layers[from->second];
      std::string text = "Const";
      if (!c["outputs"].empty())
        text = fmt::format("{} {}", text_of(c["outputs"][0]["element_type"]),
                           text_of(c["outputs"][0]["shape"]));
      lines.push_back(clip(text + " " + c["name"].get<std::string>(), 48));
    }
    std::string fill, border;
    const auto mark = [&](const char* f, const char* b) {
      if (fill.empty()) {
        fill = f;
        border = b;
      }
    };
    bool unsupported = l["version"].get<int>() == 0, problem = false, warning = false;
    for (const auto& [kind, d] : notes[i]) {
      if (kind == "problem") problem = true;
      if (kind == "warning") warning = true;
      if (kind == "problem" && (*d)["code"] == "unsupported") unsupported = true;
    }
    bool declared = false;
    for (const Json& o : l["outputs"])
      if (o.contains("declared_shape")) {
        declared = true;
        lines.push_back(clip(fmt::format("declared {}, inferred {}", text_of(o["declared_shape"]),
                                         text_of(o["shape"])),
                             56));
      }
    const bool folded = l["folded"].get<bool>() && l["type"] != "Constant";
    const bool dead = !l["reaches_result"].get<bool>();
    if (folded) lines.emplace_back("folded at load");
    if (dead) lines.emplace_back("not run: reaches no Result");
    if (!l["fused_into"].is_null())
      lines.push_back(fmt::format("fused into {}", text_of(l["fused_into"])));
    for (const auto& [kind, d] : notes[i])
      lines.push_back(
          clip(fmt::format("{} {}: {}", kind, where(*d), (*d)["message"].get<std::string>()), 72));
    if (unsupported) mark("#ffc2c2", "#a40e0e");
    if (problem) mark("#ffe3e3", "#c62020");
    if (warning) mark("#fffbd0", "#b59a00");
    if (declared) mark("#fff1dc", "#d08300");
    if (folded) mark("#e4f3e4", "#4f8a4f");
    if (dead) mark("#f1f1f1", "#9a9a9a");
    if (!l["fused_into"].is_null()) mark("#efe8fb", "#7656b0");
    std::string label;
    for (const std::string& line : lines) label += (label.empty() ? "" : "\\n") + dot_escape(line);
    dot += fmt::format("  L{} [label=\"{}\"", l["id"].get<std::int64_t>(), label);
    if (!fill.empty())
      dot += fmt::format(", fillcolor=\"{}\", color=\"{}\", penwidth=2", fill, border);
    if (dead) dot += ", style=\"rounded,filled,dashed\"";
    dot += "];\n";
  }

  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (as_label[i]) continue;
    // One edge per output read, labelled with its inferred shape.
    std::set<std::pair<std::int64_t, std::int64_t>> seen;
    for (const Json& in : layers[i]["inputs"]) {
      const auto from = index.find(in["from_layer"].get<std::int64_t>());
      if (from == index.end() || as_label[from->second]) continue;
      const std::int64_t port = in["from_port"].get<std::int64_t>();
      if (!seen.emplace(from->second, port).second) continue;
      std::string shape;
      for (const Json& o : layers[from->second]["outputs"])
        if (o["port"].get<std::int64_t>() == port) shape = text_of(o["shape"]);
      dot += fmt::format("  L{} -> L{} [label=\"{}\"];\n",
                         layers[from->second]["id"].get<std::int64_t>(),
                         layers[i]["id"].get<std::int64_t>(), dot_escape(shape));
    }
  }
  dot += "}\n";
  return dot;
}

}  // namespace irlite::cli

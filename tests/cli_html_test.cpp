// `irlite inspect --html`, `--dot` and `bench --html`: the page is opened in headless Chromium,
// which runs a self-test added to a copy of the page and prints the document back
// (--dump-dom); console messages come on Chromium's stderr.

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli_util.hpp"

namespace irlite::test {
namespace {

using Json = nlohmann::json;

// The Chromium program: $IRLITE_CHROMIUM, else `chromium` on the PATH. Missing, the test fails
// saying so: scripts/dev.sh test installs Debian's chromium.
std::string chromium() {
  if (const char* own = std::getenv("IRLITE_CHROMIUM"); own && *own) return own;
  const Outcome which = run_program("sh", {"-c", "command -v chromium"});
  const std::string path = which.out.substr(0, which.out.find('\n'));
  if (which.status != 0 || path.empty())
    FAIL(
        "headless Chromium is needed and 'chromium' is not on the PATH: install Debian's "
        "chromium package (scripts/dev.sh test does) or set IRLITE_CHROMIUM");
  return path;
}

// Chromium's arguments for one headless page load: a profile of its own (tests run in
// parallel), no sandbox (the tests may run as root), console messages on stderr.
std::vector<std::string> chromium_args(const TempDir& profile) {
  return {"--headless",     "--no-sandbox",           "--disable-gpu",
          "--no-first-run", "--disable-extensions",   "--enable-logging=stderr",
          "--v=0",          "--window-size=1280,800", "--user-data-dir=" + (profile / "chromium")};
}

// The lines of Chromium's stderr that are messages of the page's console.
std::vector<std::string> console_lines(const std::string& err) {
  std::vector<std::string> found;
  for (const std::string& line : lines_of(err))
    if (contains(line, ":CONSOLE")) found.push_back(line);
  return found;
}

// Collects the page's uncaught errors and console.error calls, before any of its scripts.
constexpr const char* kErrorCatcher = R"(<script>
window.__errors = [];
window.addEventListener('error', (e) => window.__errors.push('error: ' + e.message));
</script>
)";

// Run after the page's scripts: counts what the first view put in the DOM; moves the view to
// every layer the page laid out and reads its box, which must then be in the DOM and on screen,
// and the edges drawn at its ends; searches for QUERY and goes to the first match; clicks the
// layer at INDEX, then clicks it again at its place after "Fit to window"; and writes what it
// saw as JSON in <pre id="selftest">.
constexpr const char* kSelfTest = R"(<script>
(function () {
  const out = {errors: window.__errors};
  try {
    const graph = window.irliteGraph;
    out.layers = graph.layers;
    out.drawn = graph.drawn;
    out.draw_ms = graph.drawMs;
    out.timings = graph.timings;
    out.laid_edges = graph.edges;
    out.dom_boxes = document.querySelectorAll('#graph g.layer').length;
    out.dom_edges = document.querySelectorAll('#graph path.edge').length;
    const title = (b) => b.querySelector('title').textContent;
    const view = document.getElementById('view').getBoundingClientRect();
    const titles = [], texts = [], edges = new Set();
    out.placed = 0;
    out.not_shown = [];
    for (let i = 0; i < graph.layers; ++i) {
      if (!graph.position(i)) continue;
      ++out.placed;
      graph.show(i);
      const found = document.querySelectorAll('#graph g.layer[data-index="' + i + '"]');
      const r = found.length === 1 ? found[0].getBoundingClientRect() : null;
      if (!r || r.right < view.left || r.left > view.right || r.bottom < view.top || r.top > view.bottom) {
        out.not_shown.push(i);
        continue;
      }
      titles.push(title(found[0]));
      texts.push([...found[0].querySelectorAll('text')].map((t) => t.textContent).join('\n'));
      for (const p of document.querySelectorAll('#graph path.edge[data-from="' + i + '"], #graph path.edge[data-to="' + i + '"]'))
        edges.add(p.getAttribute('data-from') + '>' + p.getAttribute('data-to'));
    }
    out.boxes = titles.length;
    out.titles = titles;
    out.box_text = texts;
    out.edges = edges.size;
    const search = document.getElementById('search');
    search.value = QUERY;
    search.dispatchEvent(new Event('input'));
    out.found_count = document.getElementById('found').textContent;
    search.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));
    out.matches = [...document.querySelectorAll('#graph g.layer.match')].map(title);
    out.found_text = document.getElementById('found').textContent;
    out.search_details = document.getElementById('details').textContent;
    graph.show(INDEX);
    const box = document.querySelector('#graph g.layer[data-index="' + INDEX + '"] rect');
    box.dispatchEvent(new MouseEvent('click', {bubbles: true}));
    out.click_details = document.getElementById('details').textContent;
    out.selected = document.querySelectorAll('#graph g.layer.selected').length;
    // Fit to window, then a click where the layer at INDEX is: selects it and shows it.
    document.getElementById('search').value = '';
    document.getElementById('details').replaceChildren();
    document.getElementById('fit').click();
    out.fit_overview = graph.overview();
    out.fit_dom_boxes = document.querySelectorAll('#graph g.layer').length;
    const place = graph.position(INDEX), ctm = document.getElementById('graph').getScreenCTM();
    const px = ctm.a * place.x + ctm.e, py = ctm.d * place.y + ctm.f;
    const under = document.elementFromPoint(px, py);
    if (under) under.dispatchEvent(new MouseEvent('click', {bubbles: true, clientX: px, clientY: py}));
    out.fit_click_details = document.getElementById('details').textContent;
    out.fit_click_shown = document.querySelectorAll('#graph g.layer.selected[data-index="' + INDEX + '"]').length;
    // Zoomed far out, a pixel holds several layers: the one selected, how far from the click.
    const chosen = [...document.querySelectorAll('#graph g.layer.selected')];
    out.fit_click_selected = chosen.length;
    if (chosen.length) {
      const at = graph.position(Number(chosen[0].getAttribute('data-index')));
      out.fit_click_off_px = Math.hypot(at.x - place.x, at.y - place.y) * ctm.a;
    }
    out.scripts = document.scripts.length;
    out.images = document.images.length;
    out.iframes = document.querySelectorAll('iframe, object, embed').length;
    out.pwned = typeof window.pwned;
    out.title = document.title;
    out.profile_rows = document.querySelectorAll('#profile tr[data-index]').length;
  } catch (e) {
    out.errors.push('self-test: ' + e);
  }
  const pre = document.createElement('pre');
  pre.id = 'selftest';
  pre.textContent = JSON.stringify(out);
  document.body.append(pre);
})();
</script>
)";

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// What the self-test saw, and Chromium's console lines.
struct PageResult {
  Json seen;
  std::vector<std::string> console;
  double wall_ms = 0;
};

// Opens a copy of `page` with the self-test added in headless Chromium.
PageResult open_page(const std::string& page, const std::string& query, std::size_t index) {
  TempDir dir;
  std::string html = page;
  const std::size_t head = html.find("<head>");
  REQUIRE(head != std::string::npos);
  html.insert(head + 6, kErrorCatcher);
  const std::size_t end = html.rfind("</body>");
  REQUIRE(end != std::string::npos);
  html.insert(end, replace_all(replace_all(kSelfTest, "QUERY", Json(query).dump()), "INDEX",
                               std::to_string(index)));
  write_bytes(dir / "page.html", html);
  std::vector<std::string> args = chromium_args(dir);
  args.push_back("--dump-dom");
  args.push_back("file://" + (dir / "page.html"));
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = run_program(chromium(), args);
  PageResult r;
  r.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  const std::size_t open = o.out.find("<pre id=\"selftest\">");
  REQUIRE_MESSAGE(open != std::string::npos, "the self-test did not run");
  const std::size_t from = open + std::string("<pre id=\"selftest\">").size();
  const std::size_t close = o.out.find("</pre>", from);
  REQUIRE(close != std::string::npos);
  // The serialized text: '&', '<' and '>' as entities, and non-breaking spaces.
  std::string text = o.out.substr(from, close - from);
  text = replace_all(text, "&lt;", "<");
  text = replace_all(text, "&gt;", ">");
  text = replace_all(text, "&nbsp;", "\u00a0");
  text = replace_all(text, "&amp;", "&");
  r.seen = Json::parse(text);
  r.console = console_lines(o.err);
  return r;
}

// The layers of `inspect --json` that the page draws as boxes: all but the Consts that only
// layers other than Results read.
std::vector<Json> drawn_layers(const Json& doc) {
  std::map<std::int64_t, std::vector<std::string>> readers;
  for (const Json& l : doc["layers"])
    for (const Json& in : l["inputs"])
      readers[in["from_layer"].get<std::int64_t>()].push_back(l["type"].get<std::string>());
  std::vector<Json> drawn;
  for (const Json& l : doc["layers"]) {
    const auto& r = readers[l["id"].get<std::int64_t>()];
    const bool label =
        l["type"] == "Constant" && !r.empty() && std::find(r.begin(), r.end(), "Result") == r.end();
    if (!label) drawn.push_back(l);
  }
  return drawn;
}

std::string type_version(const Json& l) {
  const int version = l["version"].get<int>();
  if (version > 0) return fmt::format("{}-{}", l["type"].get<std::string>(), version);
  return fmt::format("{} ({})", l["type"].get<std::string>(), l["opset"].get<std::string>());
}

// The page's index of the layer named `name` (its place in inspect's layer list).
std::size_t index_of(const Json& doc, const std::string& name) {
  for (std::size_t i = 0; i < doc["layers"].size(); ++i)
    if (doc["layers"][i]["name"] == name) return i;
  FAIL("no layer " << name);
  return 0;
}

// Every layer the page draws has a place, and its box is in the DOM and on screen, once, when
// the view moves to it, with its type-version and name; every other layer (a Const) is named in
// its readers' boxes.
void check_every_layer_drawn(const Json& doc, const Json& seen) {
  const std::vector<Json> drawn = drawn_layers(doc);
  CHECK(seen["drawn"] == drawn.size());
  CHECK(seen["placed"] == drawn.size());
  CHECK(seen["not_shown"].empty());
  CHECK(seen["boxes"] == drawn.size());
  CHECK(seen["layers"] == doc["layers"].size());
  std::multiset<std::string> titles;
  for (const Json& t : seen["titles"]) titles.insert(t.get<std::string>());
  for (const Json& l : drawn) {
    const std::string title = type_version(l) + " " + l["name"].get<std::string>();
    CHECK_MESSAGE(titles.count(title) == 1, title);
  }
  std::string all_text;
  for (const Json& t : seen["box_text"]) all_text += t.get<std::string>() + "\n";
  for (const Json& l : doc["layers"])
    if (l["type"] == "Constant")
      CHECK_MESSAGE(contains(all_text, l["name"].get<std::string>()), l["name"]);
}

Json inspect_json(const std::string& model) {
  const Outcome o = cli({"inspect", model, "--json"});
  return Json::parse(o.out);
}

// A chain of `blocks` blocks, each y = x + sigmoid(relu(x * w)) with a Const w of 8 floats
// (5 layers a block), between a Parameter and a Result; the .bin holds w once.
void write_chain_model(const std::filesystem::path& xml, int blocks) {
  std::string s = "<?xml version=\"1.0\"?>\n<net name=\"chain\" version=\"11\">\n<layers>\n";
  const auto port = [](int id, const char* precision) {
    return fmt::format("<port id=\"{}\" precision=\"{}\"><dim>1</dim><dim>8</dim></port>", id,
                       precision);
  };
  s += "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,8\" "
       "element_type=\"f32\"/><output>" +
       port(0, "FP32") + "</output></layer>\n";
  std::string edges;
  int prev = 0;
  for (int b = 0; b < blocks; ++b) {
    const int w = 1 + 5 * b, mul = w + 1, relu = w + 2, sig = w + 3, add = w + 4;
    s += fmt::format(
        "<layer id=\"{}\" name=\"w{}\" type=\"Const\" version=\"opset1\"><data "
        "element_type=\"f32\" shape=\"8\" offset=\"0\" size=\"32\"/><output><port id=\"0\" "
        "precision=\"FP32\"><dim>8</dim></port></output></layer>\n",
        w, b);
    s += fmt::format(
        "<layer id=\"{}\" name=\"mul{}\" type=\"Multiply\" version=\"opset1\"><input>{}<port "
        "id=\"1\"><dim>8</dim></port></input><output>{}</output></layer>\n",
        mul, b, port(0, "FP32"), port(2, "FP32"));
    for (const auto& [id, op] : {std::pair{relu, "Relu"}, std::pair{sig, "Sigmoid"}})
      s += fmt::format(
          "<layer id=\"{}\" name=\"{}{}\" type=\"{}\" version=\"opset1\"><input>{}</input>"
          "<output>{}</output></layer>\n",
          id, op, b, op, port(0, "FP32"), port(1, "FP32"));
    s += fmt::format(
        "<layer id=\"{}\" name=\"add{}\" type=\"Add\" version=\"opset1\"><input>{}{}</input>"
        "<output>{}</output></layer>\n",
        add, b, port(0, "FP32"), port(1, "FP32"), port(2, "FP32"));
    edges += fmt::format(
        "<edge from-layer=\"{0}\" from-port=\"{1}\" to-layer=\"{2}\" to-port=\"0\"/>\n"
        "<edge from-layer=\"{3}\" from-port=\"0\" to-layer=\"{2}\" to-port=\"1\"/>\n"
        "<edge from-layer=\"{2}\" from-port=\"2\" to-layer=\"{4}\" to-port=\"0\"/>\n"
        "<edge from-layer=\"{4}\" from-port=\"1\" to-layer=\"{5}\" to-port=\"0\"/>\n"
        "<edge from-layer=\"{0}\" from-port=\"{1}\" to-layer=\"{6}\" to-port=\"0\"/>\n"
        "<edge from-layer=\"{5}\" from-port=\"1\" to-layer=\"{6}\" to-port=\"1\"/>\n",
        prev, prev == 0 ? 0 : 2, mul, w, relu, sig, add);
    prev = add;
  }
  const int result = 1 + 5 * blocks;
  s += fmt::format(
      "<layer id=\"{}\" name=\"y\" type=\"Result\" version=\"opset1\"><input>{}</input>"
      "</layer>\n</layers>\n<edges>\n{}<edge from-layer=\"{}\" from-port=\"2\" to-layer=\"{}\" "
      "to-port=\"0\"/>\n</edges>\n</net>\n",
      result, port(0, "FP32"), edges, prev, result);
  write_bytes(xml, s);
  std::filesystem::path bin = xml;
  bin.replace_extension(".bin");
  write_bytes(bin, std::string(32, '\0'));
}

TEST_CASE("inspect --html draws models/pipeline.xml: every layer, search, click, no console") {
  TempDir dir;
  const std::string model = kModels + "pipeline.xml";
  const Outcome o = cli({"inspect", model, "--html", (dir / "pipeline.html")});
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.out.empty());
  const std::string page = read_bytes(dir / "pipeline.html");
  // Self-contained: nothing to fetch.
  CHECK_FALSE(contains(page, "src=\""));
  CHECK_FALSE(contains(page, "href=\""));
  CHECK(contains(page, "Content-Security-Policy\" content=\"default-src 'none';"));

  const Json doc = inspect_json(model);
  const PageResult r = open_page(page, "topk", index_of(doc, "bag_max"));
  CAPTURE(r.seen.dump());
  CHECK(r.console.empty());
  CHECK(r.seen["errors"].empty());
  check_every_layer_drawn(doc, r.seen);
  // A small graph is all in the DOM from the start.
  CHECK(r.seen["dom_boxes"] == r.seen["drawn"]);
  // Edges between drawn layers: indices -> bags -> bag_max, group_max; bag_max -> top_bags;
  // three Results.
  CHECK(r.seen["laid_edges"] == 7);
  CHECK(r.seen["dom_edges"] == 7);
  CHECK(r.seen["edges"] == 7);
  REQUIRE(r.seen["matches"].size() == 1);
  CHECK(r.seen["matches"][0] == "TopK-11 top_bags");
  CHECK(r.seen["found_text"] == "1 of 1");
  CHECK(contains(r.seen["search_details"].get<std::string>(), "top_bags"));
  // The clicked layer's attributes, inputs (its Const axes with its value) and outputs.
  const std::string details = r.seen["click_details"];
  CHECK(contains(details, "ReduceMax-1"));
  CHECK(contains(details, "keep_dims"));
  for (const Json& l : doc["layers"])
    if (l["name"] == "axes")
      CHECK(contains(details, fmt::format("Const {} axes", l["id"].get<int>())));
  CHECK(contains(details, "f32 [4]"));
  CHECK(r.seen["selected"] == 1);
  CHECK_FALSE(r.seen["fit_overview"].get<bool>());
  CHECK(contains(r.seen["fit_click_details"].get<std::string>(), "ReduceMax-1"));
  CHECK(r.seen["fit_click_shown"] == 1);
  CHECK(r.seen["title"] == "irlite: pipeline");
}

TEST_CASE("inspect --html: a screenshot of models/pipeline.xml's page") {
  TempDir dir;
  REQUIRE(cli({"inspect", kModels + "pipeline.xml", "--html", (dir / "p.html")}).status == 0);
  std::vector<std::string> args = chromium_args(dir);
  args.push_back("--screenshot=" + (dir / "p.png"));
  args.push_back("file://" + (dir / "p.html"));
  const Outcome o = run_program(chromium(), args);
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  CHECK(console_lines(o.err).empty());
  const std::string png = read_bytes(dir / "p.png");
  REQUIRE(png.size() > 8);
  CHECK(png.substr(0, 8) == "\x89PNG\r\n\x1a\n");
  // A drawn page, not a blank one: a blank 1280x800 PNG compresses to a few KiB.
  CHECK(png.size() > 20000);
}

TEST_CASE("inspect --html: names and attribute values from the model are text, never markup") {
  TempDir dir;
  // An op irlite lacks keeps its <data> as written: hostile attribute values reach the page.
  const std::string hostile_name =
      "</script><script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\">'q\x01\x1b[2J";
  const std::string xml_name =
      "&lt;/script&gt;&lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x "
      "onerror=&quot;window.pwned=2&quot;&gt;'q\x01\x1b[2J";
  write_bytes(
      dir / "evil.xml",
      "<?xml version=\"1.0\"?>\n<net name=\"&lt;script&gt;window.pwned=3&lt;/script&gt;\" "
      "version=\"11\"><layers>"
      "<layer id=\"0\" name=\"" +
          xml_name +
          "\" type=\"Parameter\" version=\"opset1\">"
          "<data shape=\"2\" element_type=\"f32\"/><output><port id=\"0\" precision=\"FP32\">"
          "<dim>2</dim></port></output></layer>"
          "<layer id=\"1\" name=\"evil\" type=\"Evil&lt;b&gt;\" version=\"opset1\">"
          "<data payload=\"&lt;img src=x onerror=&quot;window.pwned=4&quot;&gt;&amp;lt;\"/>"
          "<input><port id=\"0\"><dim>2</dim></port></input><output><port id=\"1\" "
          "precision=\"FP32\"><dim>2</dim></port></output></layer>"
          "<layer id=\"2\" name=\"out\" type=\"Result\" version=\"opset1\"><input><port "
          "id=\"0\"><dim>2</dim></port></input></layer></layers><edges>"
          "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>"
          "<edge from-layer=\"1\" from-port=\"1\" to-layer=\"2\" to-port=\"0\"/>"
          "</edges></net>\n");
  const std::string model = (dir / "evil.xml");
  // The op is unsupported: a problem, exit status 1, and still a page.
  const Outcome o = cli({"inspect", model, "--html", (dir / "evil.html")});
  CAPTURE(o.err);
  CHECK(o.status == 1);
  CHECK(contains(o.err, "Evil"));
  const std::string page = read_bytes(dir / "evil.html");
  CHECK_FALSE(contains(page, "<script>window.pwned"));
  CHECK_FALSE(contains(page, "<img"));
  CHECK_FALSE(contains(page, "\x1b"));
  std::size_t own_scripts = 0;
  for (std::size_t at = page.find("<script"); at != std::string::npos;
       at = page.find("<script", at + 1))
    ++own_scripts;
  CHECK(own_scripts == 3);

  const Json doc = inspect_json(model);
  const PageResult r = open_page(page, "evil", index_of(doc, hostile_name));
  CAPTURE(r.seen.dump());
  CHECK(r.console.empty());
  CHECK(r.seen["errors"].empty());
  CHECK(r.seen["pwned"] == "undefined");
  CHECK(r.seen["scripts"] == own_scripts + 2);  // the page's and the self-test's two
  CHECK(r.seen["images"] == 0);
  CHECK(r.seen["iframes"] == 0);
  CHECK(r.seen["boxes"] == 3);
  // The texts shown as they are, control characters as escapes.
  const std::string shown =
      "</script><script>window.pwned=1</script><img src=x "
      "onerror=\"window.pwned=2\">'q\\x01\\x1b[2J";
  CHECK(contains(r.seen["click_details"].get<std::string>(), shown));
  CHECK(r.seen["title"] == "irlite: <script>window.pwned=3</script>");
  // The unsupported layer, found by its type, with its attribute value as text.
  REQUIRE(r.seen["matches"].size() == 1);
  CHECK(r.seen["matches"][0] == "Evil<b> (opset1) evil");
  CHECK(contains(r.seen["search_details"].get<std::string>(),
                 "<img src=x onerror=\"window.pwned=4\">&lt;"));
}

TEST_CASE("inspect --html on a 5000-layer model: built, drawn and searched in seconds") {
  TempDir dir;
  const std::string model = (dir / "chain.xml");
  write_chain_model(model, 1000);  // 5002 layers, 4002 drawn (the Consts are labels)
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = cli({"inspect", model, "--html", (dir / "chain.html")});
  const double build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  const Json doc = inspect_json(model);
  REQUIRE(doc["layers"].size() == 5002);
  const PageResult r =
      open_page(read_bytes(dir / "chain.html"), "sigmoid617", index_of(doc, "add300"));
  CHECK(r.console.empty());
  CHECK(r.seen["errors"].empty());
  check_every_layer_drawn(doc, r.seen);
  CHECK(r.seen["laid_edges"] == 5001);
  CHECK(r.seen["edges"] == 5001);
  // Only the boxes in and near the first view are in the DOM.
  CHECK(r.seen["dom_boxes"] > 0);
  CHECK(r.seen["dom_boxes"] < 200);
  CHECK(r.seen["found_count"] == "1 found");
  REQUIRE(r.seen["matches"].size() == 1);
  CHECK(r.seen["matches"][0] == "Sigmoid-1 Sigmoid617");
  CHECK(contains(r.seen["search_details"].get<std::string>(), "Sigmoid617"));
  CHECK(contains(r.seen["click_details"].get<std::string>(), "add300"));
  // The whole graph fitted: bare boxes, one of which a click selects and zooms in on.
  CHECK(r.seen["fit_overview"].get<bool>());
  CHECK(r.seen["fit_dom_boxes"] == 0);
  CHECK(r.seen["fit_click_selected"] == 1);
  CHECK(r.seen["fit_click_off_px"].get<double>() <= 2);
  MESSAGE(
      fmt::format("5002 layers: page built in {:.0f} ms (irlite inspect --html), drawn in "
                  "{:.0f} ms (in the page, parse to the first view's SVG, {} boxes in the DOM; "
                  "parts: {}), Chromium run {:.0f} ms (with the self-test)",
                  build_ms, r.seen["draw_ms"].get<double>(), r.seen["dom_boxes"].get<int>(),
                  r.seen["timings"].dump(), r.wall_ms));
}

TEST_CASE("bench --profile --html colours the layers by their time and lists them") {
  TempDir dir;
  const Outcome o = cli(
      {"bench", kModels + "pipeline.xml", "-n", "5", "--profile", "--html", (dir / "bench.html")});
  CAPTURE(o.err);
  REQUIRE(o.status == 0);
  CHECK(contains(o.out, "profile of"));
  const std::string page = read_bytes(dir / "bench.html");
  CHECK(contains(page, "\"profile\":{\"runs\":5,"));
  const Json doc = inspect_json(kModels + "pipeline.xml");
  const PageResult r = open_page(page, "bags", index_of(doc, "top_bags"));
  CAPTURE(r.seen.dump());
  CHECK(r.console.empty());
  CHECK(r.seen["errors"].empty());
  // The four compute layers: EmbeddingSegmentsSum, ReduceMax, TopK, SegmentMax.
  CHECK(r.seen["profile_rows"] == 4);
  CHECK(contains(r.seen["click_details"].get<std::string>(), "of the run"));
}

TEST_CASE("inspect --dot: the graph for Graphviz, with the page's information") {
  TempDir dir;
  const Outcome o = cli({"inspect", kModels + "pipeline.xml", "--dot", (dir / "p.dot")});
  REQUIRE(o.status == 0);
  const std::string dot = read_bytes(dir / "p.dot");
  CHECK(contains(dot, "digraph \"pipeline\" {"));
  CHECK(contains(dot, "L8 [label=\"TopK-11\\ntop_bags\\ni64 [] k\"]"));
  CHECK(contains(dot, "L6 -> L8 [label=\"[4]\"]"));
  CHECK_FALSE(contains(dot, "L1 ["));  // emb_table, a Const shown in its reader's box

  // Quotes, backslashes and control characters escaped; a layer Graphviz reads back.
  write_bytes(dir / "q.xml",
              "<?xml version=\"1.0\"?>\n<net name=\"q\" version=\"11\"><layers>"
              "<layer id=\"0\" name=\"a&quot;b\\c\x01\" type=\"Parameter\" version=\"opset1\">"
              "<data shape=\"2\" element_type=\"f32\"/><output><port id=\"0\" precision=\"FP32\">"
              "<dim>2</dim></port></output></layer>"
              "<layer id=\"1\" name=\"out\" type=\"Result\" version=\"opset1\"><input><port "
              "id=\"0\"><dim>2</dim></port></input></layer></layers><edges>"
              "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>"
              "</edges></net>\n");
  REQUIRE(cli({"inspect", (dir / "q.xml"), "--dot", (dir / "q.dot")}).status == 0);
  const std::string q = read_bytes(dir / "q.dot");
  CHECK(contains(q, "a\\\"b\\\\c\\\\x01"));
  CHECK(q.find('\x01') == std::string::npos);
  const Outcome svg = run_program("dot", {"-Tsvg", (dir / "q.dot")});
  CAPTURE(svg.err);
  REQUIRE_MESSAGE(svg.status == 0, "Graphviz's dot (Debian graphviz) reads the file");
  CHECK(contains(svg.out, "a&quot;b\\c\\x01"));
}

}  // namespace
}  // namespace irlite::test

// Reading the <layers> and <edges> lists a piece at a time (loader/xml_pieces.hpp) gives what
// reading the whole text gives: the same graph, the same problems and warnings, the same error,
// for every piece size, on the sample models, the fuzzing seeds and texts made to mislead the
// split.

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "loader/ir_reader.hpp"
#include "loader/xml_pieces.hpp"
#include "ops/registry.hpp"
#include "read_outcome.hpp"
#include "temp_dir.hpp"

using namespace irlite;
using namespace std::string_literals;

namespace {

/// What reading `xml` gives: from memory, or, `in_place`, from a file as Model::load reads it.
std::string outcome(const std::string& xml, bool keep_going, std::size_t piece_bytes,
                    bool in_place) {
  if (!in_place) return test::read_outcome(xml, keep_going, piece_bytes);
  const test::TempDir dir("irlite_pieces_test");
  const std::filesystem::path path = dir.path / "m.xml";
  std::ofstream(path, std::ios::binary) << xml;
  XmlText text = XmlText::read_file(path);
  Diagnostics diagnostics;
  diagnostics.keep_going = keep_going;
  std::string s;
  try {
    s = test::describe(read_ir_in_place(text, "m.xml", Weights{}, diagnostics,
                                           OpCatalog{resolve_op, nullptr}, piece_bytes));
  } catch (const Error& e) {
    s = std::string("error: ") + e.what() + "\n";
  }
  return s + test::describe(diagnostics);
}

/// Checks that every piece size gives what the whole text gives.
void check_same(const std::string& xml, const std::string& what) {
  for (bool keep_going : {false, true}) {
    const std::string whole = outcome(xml, keep_going, 0, false);
    for (std::size_t piece_bytes :
         {std::size_t{1}, std::size_t{40}, std::size_t{300}, std::size_t{4096}, kIrPieceBytes}) {
      INFO(what << ", keep_going " << keep_going << ", pieces of " << piece_bytes << " bytes");
      CHECK(outcome(xml, keep_going, piece_bytes, false) == whole);
    }
    INFO(what << ", keep_going " << keep_going << ", in place");
    CHECK(outcome(xml, keep_going, 1, true) == whole);
  }
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string layer(int id, const std::string& type, const std::string& body,
                  const std::string& name = "") {
  return fmt::format(
      "\t\t<layer id=\"{}\" name=\"{}\" type=\"{}\" version=\"opset1\">\n{}"
      "\t\t</layer>\n",
      id, name.empty() ? fmt::format("l{}", id) : name, type, body);
}

const std::string kParameterBody =
    "\t\t\t<data shape=\"2,3\" element_type=\"f32\"/>\n"
    "\t\t\t<output>\n\t\t\t\t<port id=\"0\" precision=\"FP32\" names=\"x\">"
    "<dim>2</dim><dim>3</dim></port>\n\t\t\t</output>\n";
const std::string kReluBody =
    "\t\t\t<input>\n\t\t\t\t<port id=\"0\" precision=\"FP32\"><dim>2</dim><dim>3</dim></port>\n"
    "\t\t\t</input>\n\t\t\t<output>\n\t\t\t\t<port id=\"1\" precision=\"FP32\">"
    "<dim>2</dim><dim>3</dim></port>\n\t\t\t</output>\n";
const std::string kResultBody =
    "\t\t\t<input>\n\t\t\t\t<port id=\"0\" precision=\"FP32\"><dim>2</dim><dim>3</dim></port>\n"
    "\t\t\t</input>\n";

std::string edge(int from, int from_port, int to, int to_port) {
  return fmt::format(
      "\t\t<edge from-layer=\"{}\" from-port=\"{}\" to-layer=\"{}\" to-port=\"{}\"/>\n", from,
      from_port, to, to_port);
}

/// A Parameter, `relus` Relu layers in a chain, a Result; `extra_layers` and `extra_edges` go
/// at the lists' ends.
std::string chain(int relus, const std::string& extra_layers = "",
                  const std::string& extra_edges = "", const std::string& tail = "") {
  std::string layers = layer(0, "Parameter", kParameterBody);
  std::string edges;
  for (int i = 1; i <= relus; ++i) {
    layers += layer(i, "Relu", kReluBody);
    edges += edge(i - 1, i == 1 ? 0 : 1, i, 0);
  }
  layers += layer(relus + 1, "Result", kResultBody);
  edges += edge(relus, relus == 0 ? 0 : 1, relus + 1, 0);
  return "<?xml version=\"1.0\"?>\n<net name=\"chain\" version=\"11\">\n\t<layers>\n" + layers +
         extra_layers + "\t</layers>\n\t<edges>\n" + edges + extra_edges + "\t</edges>\n" + tail +
         "</net>\n";
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("pieces: the text splits at its lists, and skeleton offsets map back") {
  const std::string xml = chain(3);
  const auto pieces = split_text(xml);
  REQUIRE(pieces);
  CHECK(xml.substr(pieces->layers.open, 8) == "<layers>");
  CHECK(xml.substr(pieces->layers.begin - 1, 2) == ">\n");
  CHECK(xml.substr(pieces->layers.end, 9) == "</layers>");
  REQUIRE(pieces->edges);
  CHECK(xml.substr(pieces->edges->open, 7) == "<edges>");
  CHECK(xml.substr(pieces->edges->end, 8) == "</edges>");
  CHECK(pieces->skeleton.find("<layer ") == std::string::npos);
  CHECK(pieces->skeleton.find("<edge ") == std::string::npos);
  // Every byte of the skeleton is the text's byte at the mapped offset.
  for (std::size_t k = 0; k < pieces->skeleton.size(); ++k)
    REQUIRE(xml[pieces->text_offset(k)] == pieces->skeleton[k]);

  // A piece ends before a whole <layer start tag, not before <layers or inside a longer name.
  const std::string text = "<layerx/><layers/><layer id=\"1\"/><layer/>";
  CHECK(piece_end(text, 0, text.size(), "layer", 1) == text.find("<layer id"));
  CHECK(piece_end(text, 0, text.size(), "layer", 100) == text.size());

  CHECK_FALSE(split_text("<net version=\"11\"><layers/><edges/></net>"));
  CHECK_FALSE(split_text("<net version=\"11\"><layers></layers></net>"));
  CHECK_FALSE(split_text("<net version=\"11\"><layers a=\"x>y\"><layer/></layers></net>"));
}

TEST_CASE("pieces: the sample models read the same in pieces as whole") {
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(IRLITE_MODELS)) {
    if (entry.path().extension() != ".xml") continue;
    check_same(read_text(entry.path()), entry.path().filename().string());
    ++files;
  }
  CHECK(files > 20);
}

TEST_CASE("pieces: the fuzzing seeds read the same in pieces as whole") {
  const std::filesystem::path corpus =
      std::filesystem::path(IRLITE_TEST_DATA).parent_path() / "fuzz" / "corpus" / "load";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    std::string text = read_text(entry.path());
    // The fuzzer's weights come after this marker; the XML is what is read here.
    if (const auto at = text.find("FUZZ_NEXT_FIELD"); at != std::string::npos) text.resize(at);
    check_same(text, entry.path().filename().string());
    ++files;
  }
  CHECK(files > 20);
}

TEST_CASE("pieces: texts that mislead the split read the same as whole") {
  const std::string good = chain(6);
  check_same(good, "a chain");

  // Where the split guesses wrong, a piece or the skeleton fails to parse, or a list is not
  // where it was looked for, and the text is read whole.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a comment naming a layer tag",
       chain(4, "\t\t<!-- <layer id=\"9\"> -->\n\t\t<!-- </layer> <edge -->\n")},
      {"a comment naming the lists before them",
       replace_once(chain(4), "<net ", "<!-- <layers> <edges> -->\n<net ")},
      {"a comment naming the list's end tag after it",
       chain(4, "", "", "\t<!-- </layers> </edges> -->\n")},
      {"CDATA holding tags", chain(4, "\t\t<![CDATA[ <layer id=\"1\"> </layers> ]]>\n")},
      {"a processing instruction holding a tag", chain(4, "\t\t<?pi <layer id=\"77\"?>\n")},
      {"an attribute value holding a tag",
       replace_once(chain(4), "name=\"l2\"", "name=\"a &lt;b&gt; <layer id=&quot;3\"")},
      {"layers nested in a layer",
       chain(4, layer(50, "TensorIterator",
                      "\t\t\t<body><layers>" + layer(0, "Parameter", kParameterBody) +
                          "</layers><edges>" + edge(0, 0, 1, 0) + "</edges></body>\n"))},
      {"text between layers", chain(4, "\t\tsome text &amp; more\n")},
      // pugixml stops at a NUL, and takes a <!DOCTYPE> at a fragment's top level but not inside
      // an element: a piece would read on where the whole text fails.
      {"a NUL between layers", replace_once(chain(4), "</layer>\n\t\t<layer id=\"3\"",
                                            "</layer>\x1c\0\0\0layer id=\"3\""s)},
      {"a NUL at the end", chain(4) + "\0"s},
      {"a doctype among the layers", chain(4, "\t\t<!DOCTYPE x>\n")},
      {"a doctype among the edges", chain(4, "", "\t\t<!DOCTYPE x [ <!ELEMENT a ANY> ]>\n")},
      {"an element other than a layer", chain(4, "\t\t<note id=\"1\"><layer/></note>\n")},
      {"an attribute on the list", replace_once(chain(4), "<layers>", "<layers note=\"1\">")},
      {"a second layers list",
       chain(4, "", "", "\t<layers>" + layer(90, "Relu", kReluBody) + "</layers>\n")},
      {"edges before the layers",
       "<?xml version=\"1.0\"?>\n<net name=\"e\" version=\"11\"><edges>" + edge(0, 0, 1, 0) +
           "</edges><layers>" + layer(0, "Parameter", kParameterBody) +
           layer(1, "Result", kResultBody) + "</layers></net>\n"},
      {"no edges list",
       replace_once(chain(0), "\t<edges>\n" + edge(0, 0, 1, 0) + "\t</edges>\n", "")},
      {"an empty edges list",
       replace_once(chain(0), "\t<edges>\n" + edge(0, 0, 1, 0) + "\t</edges>\n", "<edges/>")},
      {"CRLF line ends",
       [&] {
         std::string s;
         for (char c : good) {
           if (c == '\n') s += '\r';
           s += c;
         }
         return s;
       }()},
      // Malformed texts: the error is the whole text's, wherever a piece boundary falls.
      {"an unclosed layer", replace_once(chain(4), "\t\t</layer>\n", "")},
      {"an unclosed comment at the end of the layers", chain(4, "\t\t<!-- open\n")},
      {"a stray end tag among the edges", chain(4, "", "\t\t</edge>\n")},
      {"a layer error before malformed XML",
       replace_once(chain(30, "", "\t\t<edge from-layer=\"1\n"), "id=\"3\"", "id=\"1\"")},
      {"malformed XML before the net closes", replace_once(chain(4), "</net>", "</nett>")},
      {"an unknown op and an unfed port", replace_once(chain(6), "type=\"Relu\"", "type=\"Frob\"")},
      {"a duplicate edge", chain(4, "", edge(2, 1, 3, 0))},
      {"an edge to a missing layer", chain(4, "", edge(2, 1, 99, 0))},
      {"no Result", replace_once(chain(4), "type=\"Result\"", "type=\"Relu\"")},
  };
  for (const auto& [what, xml] : cases) check_same(xml, what);
}

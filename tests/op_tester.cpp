#include "op_tester.hpp"

#include <cstring>
#include <stdexcept>

#include "core/attributes.hpp"
#include "ops/registry.hpp"
#include "ops/shape_utils.hpp"

namespace irlite::test {
namespace {

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Port names: a comma inside a tensor name is escaped as `\,` (IR convention).
std::string escape_names(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == ',') out += '\\';
    out += c;
  }
  return escape(out);
}

std::string port_xml(std::int64_t id, ElementType type, const PartialShape& shape,
                     std::string_view names, bool with_precision) {
  std::string s = "<port id=\"" + std::to_string(id) + "\"";
  if (with_precision) s += " precision=\"" + std::string(precision_name(type)) + "\"";
  if (!names.empty()) s += " names=\"" + escape_names(names) + "\"";
  // Dynamic rank is written with no <dim>, intervals as -1 (the IR writer's convention).
  if (!shape.rank_is_static() || shape.rank() == 0) return s + "/>";
  s += ">";
  for (const Dimension& d : shape.dims())
    s += "<dim>" + std::to_string(d.is_static() ? d.value() : -1) + "</dim>";
  return s + "</port>";
}

std::size_t align8(std::size_t n) {
  return (n + 7) / 8 * 8;
}

}  // namespace

std::string ir_shape_text(const PartialShape& shape) {
  if (!shape.rank_is_static()) return "...";
  const std::string s = to_string(shape);  // "[a,b]"
  return s.substr(1, s.size() - 2);
}

OpTester::OpTester(std::string type, std::string opset, std::string layer_name)
    : type_(std::move(type)), opset_(std::move(opset)), layer_name_(std::move(layer_name)) {}

OpTester& OpTester::attr(std::string_view name, std::string_view value) {
  for (auto& [k, v] : attrs_) {
    if (k == name) {
      v = std::string(value);
      changed();
      return *this;
    }
  }
  attrs_.emplace_back(std::string(name), std::string(value));
  changed();
  return *this;
}

OpTester& OpTester::input_parameter(std::string name, ElementType type, PartialShape shape) {
  inputs_.push_back({std::move(name), false, type, std::move(shape), std::nullopt});
  changed();
  return *this;
}

OpTester& OpTester::input_parameter(std::string name, Tensor value) {
  PartialShape shape = PartialShape::from_shape(value.shape());
  return input_parameter(std::move(name), std::move(value), std::move(shape));
}

OpTester& OpTester::input_parameter(std::string name, Tensor value, PartialShape shape) {
  if (!shape.accepts(value.shape()))
    throw std::invalid_argument("OpTester: input '" + name + "' of shape " +
                                to_string(value.shape()) + " does not fit " + to_string(shape));
  const ElementType type = value.element_type();
  inputs_.push_back({std::move(name), false, type, std::move(shape), std::move(value)});
  changed();
  return *this;
}

OpTester& OpTester::input_const(std::string name, Tensor value) {
  const ElementType type = value.element_type();
  PartialShape shape = PartialShape::from_shape(value.shape());
  inputs_.push_back({std::move(name), true, type, std::move(shape), std::move(value)});
  changed();
  return *this;
}

OpTester& OpTester::outputs(std::size_t n) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < n; ++i) names.push_back("out" + std::to_string(i));
  return outputs(std::move(names));
}

OpTester& OpTester::outputs(std::vector<std::string> names) {
  output_names_ = std::move(names);
  outputs_set_ = true;
  changed();
  return *this;
}

OpTester& OpTester::declare_output(std::size_t index, ElementType type, PartialShape shape) {
  declared_[index] = {type, std::move(shape)};
  changed();
  return *this;
}

std::size_t OpTester::output_count() const {
  return output_names().size();
}

const std::vector<std::string>& OpTester::output_names() const {
  if (!outputs_set_) {
    std::string why;
    const OpDef* def = resolve_op(type_, opset_, &why);
    const int n = def ? def->num_outputs : 1;
    output_names_.clear();
    for (int i = 0; i < n; ++i) output_names_.push_back("out" + std::to_string(i));
  }
  return output_names_;
}

std::vector<OutputInfo> OpTester::infer() const {
  std::string why;
  const OpDef* def = resolve_op(type_, opset_, &why);
  if (!def || !def->create) throw Error(ErrorCode::unsupported, why);
  const auto op = def->create(Attributes(attrs_));
  std::vector<ValueInfo> infos;
  for (const Input& in : inputs_)
    infos.push_back({in.type, in.shape, in.constant ? &*in.value : nullptr});
  return op->infer(infos);
}

std::string OpTester::xml() const {
  const auto& names = output_names();
  const std::size_t n_in = inputs_.size();
  const std::size_t n_out = names.size();

  // Output ports say what the op infers, as a real writer's file would; a test of a rejected
  // layer still gets a well-formed document.
  std::vector<OutputInfo> outs(
      n_out, {n_in ? inputs_[0].type : ElementType::f32, PartialShape::dynamic_rank()});
  try {
    const auto inferred = infer();
    for (std::size_t i = 0; i < n_out && i < inferred.size(); ++i) outs[i] = inferred[i];
  } catch (const Error&) {
  }
  for (const auto& [i, d] : declared_)
    if (i < n_out) outs[i] = {d.type, d.shape};

  std::string s = "<?xml version=\"1.0\"?>\n<net name=\"" + escape(layer_name_) +
                  "_test\" version=\"11\">\n  <layers>\n";
  std::size_t offset = 0;
  for (std::size_t i = 0; i < n_in; ++i) {
    const Input& in = inputs_[i];
    s += "    <layer id=\"" + std::to_string(i) + "\" name=\"" + escape(in.name) + "\" type=\"" +
         (in.constant ? "Const" : "Parameter") + "\" version=\"opset1\">\n      <data ";
    if (in.constant) {
      const std::size_t size = in.value->byte_size();
      s += "element_type=\"" + std::string(to_string(in.type)) + "\" shape=\"" +
           ir_shape_text(in.shape) + "\" offset=\"" + std::to_string(offset) + "\" size=\"" +
           std::to_string(size) + "\"/>\n";
      offset = align8(offset + size);
    } else {
      s += "shape=\"" + escape(ir_shape_text(in.shape)) + "\" element_type=\"" +
           std::string(to_string(in.type)) + "\"/>\n";
    }
    s += "      <output>" + port_xml(0, in.type, in.shape, in.name, true) + "</output>\n";
    s += "    </layer>\n";
  }

  const std::size_t op_id = n_in;
  s += "    <layer id=\"" + std::to_string(op_id) + "\" name=\"" + escape(layer_name_) +
       "\" type=\"" + escape(type_) + "\" version=\"" + escape(opset_) + "\">\n";
  if (!attrs_.empty()) {
    s += "      <data";
    for (const auto& [k, v] : attrs_) s += " " + k + "=\"" + escape(v) + "\"";
    s += "/>\n";
  }
  if (n_in) {
    s += "      <input>\n";
    for (std::size_t i = 0; i < n_in; ++i)
      s += "        " +
           port_xml(static_cast<std::int64_t>(i), inputs_[i].type, inputs_[i].shape, "", true) +
           "\n";
    s += "      </input>\n";
  }
  if (n_out) {
    s += "      <output>\n";
    for (std::size_t i = 0; i < n_out; ++i)
      s += "        " +
           port_xml(static_cast<std::int64_t>(n_in + i), outs[i].type, outs[i].shape, names[i],
                    true) +
           "\n";
    s += "      </output>\n";
  }
  s += "    </layer>\n";

  for (std::size_t i = 0; i < n_out; ++i) {
    s += "    <layer id=\"" + std::to_string(op_id + 1 + i) + "\" name=\"" + escape(names[i]) +
         "/sink_port_0\" type=\"Result\" version=\"opset1\">\n      <input>" +
         port_xml(0, outs[i].type, outs[i].shape, "", true) + "</input>\n    </layer>\n";
  }
  s += "  </layers>\n  <edges>\n";
  for (std::size_t i = 0; i < n_in; ++i)
    s += "    <edge from-layer=\"" + std::to_string(i) + "\" from-port=\"0\" to-layer=\"" +
         std::to_string(op_id) + "\" to-port=\"" + std::to_string(i) + "\"/>\n";
  for (std::size_t i = 0; i < n_out; ++i)
    s += "    <edge from-layer=\"" + std::to_string(op_id) + "\" from-port=\"" +
         std::to_string(n_in + i) + "\" to-layer=\"" + std::to_string(op_id + 1 + i) +
         "\" to-port=\"0\"/>\n";
  s += "  </edges>\n  <rt_info/>\n</net>\n";
  return s;
}

std::vector<std::byte> OpTester::weights() const {
  std::vector<std::byte> blob;
  for (const Input& in : inputs_) {
    if (!in.constant) continue;
    const std::size_t at = blob.size();
    blob.resize(align8(at + in.value->byte_size()));
    if (in.value->byte_size())
      std::memcpy(blob.data() + at, in.value->data(), in.value->byte_size());
  }
  return blob;
}

Model OpTester::load(const LoadOptions& options) {
  auto blob = std::make_shared<const std::vector<std::byte>>(weights());
  blobs_.push_back(blob);
  Model m = Model::load_from_memory(xml(), *blob, options, layer_name_ + ".xml");
  model_ = m;
  return m;
}

std::vector<Tensor> OpTester::run(const std::map<std::string, Tensor>& feeds) {
  if (!model_) load();
  std::map<std::string, Tensor> all;
  for (const Input& in : inputs_)
    if (!in.constant && in.value) all[in.name] = *in.value;
  for (const auto& [name, t] : feeds) all[name] = t;
  Session session(*model_);
  auto results = session.run(all);
  std::vector<Tensor> out;
  for (const std::string& name : output_names()) {
    auto it = results.find(name);
    if (it == results.end())
      throw std::runtime_error("OpTester: the model returned no output named '" + name + "'");
    out.push_back(it->second);
  }
  return out;
}

}  // namespace irlite::test

#include "op_tester.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "kernels/element.hpp"
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

// Rounds to float keeping a sticky bit (round to odd): rounding that float again to a format
// with at least 2 fewer significand bits (f16: 11, bf16: 8, against float's 24) gives the
// correctly rounded result of the double, which plain double->float->half does not (a value
// just above a half-way point can land exactly on it after the first rounding).
float round_to_odd_float(double d) {
  const float f = static_cast<float>(d);
  if (std::isnan(d) || std::isinf(f) || static_cast<double>(f) == d) return f;
  const float truncated =
      std::fabs(static_cast<double>(f)) > std::fabs(d) ? std::nextafter(f, 0.0f) : f;
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(truncated) | 1u);
}

template <class T>
T from_double(double d) {
  if constexpr (std::is_same_v<T, float16>) {
    return round_to_f16(d);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return round_to_bf16(d);
  } else {
    return static_cast<T>(d);
  }
}

template <class T>
bool fits(std::int64_t v) {
  if constexpr (std::is_signed_v<T>) {
    return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
  } else {
    return v >= 0 && static_cast<std::uint64_t>(v) <= std::numeric_limits<T>::max();
  }
}

template <class T>
bool fits_unsigned(std::uint64_t v) {
  return v <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
}

std::string where(std::size_t i) {
  return "value " + std::to_string(i);
}

}  // namespace

float16 round_to_f16(double d) {
  return float16(round_to_odd_float(d));
}
bfloat16 round_to_bf16(double d) {
  return bfloat16(round_to_odd_float(d));
}

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

Tensor make_tensor(ElementType type, Shape shape, std::initializer_list<double> values) {
  Tensor t(type, std::move(shape));
  if (values.size() != t.size())
    throw std::invalid_argument("make_tensor: " + std::to_string(values.size()) +
                                " values for shape " + to_string(t.shape()));
  std::size_t i = 0;
  if (type == ElementType::boolean) {
    for (double v : values) t.data<std::uint8_t>()[i++] = v != 0 ? 1 : 0;
    return t;
  }
  const bool ok = dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (double v : values) {
      if constexpr (!is_float_storage_v<T>) {
        // [-2^digits, 2^digits) for signed types, [0, 2^digits) for unsigned ones: exact bounds
        // even where max() is not a double.
        const double limit = std::ldexp(1.0, std::numeric_limits<T>::digits);
        const double low = std::is_signed_v<T> ? -limit : 0.0;
        if (!(v == std::floor(v) && v >= low && v < limit))
          throw std::invalid_argument("make_tensor: " + where(i) + " does not fit " +
                                      std::string(to_string(type)));
      }
      t.data<T>()[i++] = from_double<T>(v);
    }
  });
  if (!ok) throw std::invalid_argument("make_tensor: unsupported element type");
  return t;
}

Tensor tensor_from_json(ElementType type, const Shape& shape, const nlohmann::json& values) {
  Tensor t(type, shape);
  if (!values.is_array() || values.size() != t.size())
    throw std::invalid_argument("expected an array of " + std::to_string(t.size()) +
                                " values for shape " + to_string(shape) + ", got " +
                                values.dump().substr(0, 80));
  if (type == ElementType::boolean) {
    for (std::size_t i = 0; i < t.size(); ++i) {
      const auto& v = values[i];
      if (v.is_boolean()) {
        t.data<std::uint8_t>()[i] = v.get<bool>() ? 1 : 0;
      } else if (v.is_number_integer() &&
                 (v.get<std::int64_t>() == 0 || v.get<std::int64_t>() == 1)) {
        t.data<std::uint8_t>()[i] = static_cast<std::uint8_t>(v.get<std::int64_t>());
      } else {
        throw std::invalid_argument(where(i) + " is not a boolean: " + v.dump());
      }
    }
    return t;
  }
  const bool ok = dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = t.data<T>();
    for (std::size_t i = 0; i < t.size(); ++i) {
      const auto& v = values[i];
      if constexpr (is_float_storage_v<T>) {
        if (!v.is_number()) throw std::invalid_argument(where(i) + " is not a number: " + v.dump());
        // nlohmann keeps integers as 64-bit integers; convert them without going through a
        // lossy path other than the final rounding.
        double d = 0;
        if (v.is_number_unsigned()) {
          d = static_cast<double>(v.get<std::uint64_t>());
        } else if (v.is_number_integer()) {
          d = static_cast<double>(v.get<std::int64_t>());
        } else {
          d = v.get<double>();
        }
        out[i] = from_double<T>(d);
      } else {
        if (v.is_number_unsigned()) {
          const auto u = v.get<std::uint64_t>();
          if (!fits_unsigned<T>(u))
            throw std::invalid_argument(where(i) + " = " + v.dump() + " does not fit " +
                                        std::string(to_string(type)));
          out[i] = static_cast<T>(u);
        } else if (v.is_number_integer()) {
          const auto s = v.get<std::int64_t>();
          if (!fits<T>(s))
            throw std::invalid_argument(where(i) + " = " + v.dump() + " does not fit " +
                                        std::string(to_string(type)));
          out[i] = static_cast<T>(s);
        } else if (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()) &&
                   std::fabs(v.get<double>()) < 9.0e15 &&
                   fits<T>(static_cast<std::int64_t>(v.get<double>()))) {
          out[i] = static_cast<T>(static_cast<std::int64_t>(v.get<double>()));
        } else {
          throw std::invalid_argument(where(i) + " = " + v.dump() + " is not an integer of " +
                                      std::string(to_string(type)));
        }
      }
    }
  });
  if (!ok) throw std::invalid_argument("unsupported element type " + std::string(to_string(type)));
  return t;
}

std::string element_text(const Tensor& t, std::size_t i) {
  return value_text(t, i);
}

double element_as_double(const Tensor& t, std::size_t i) {
  double d = 0;
  if (t.element_type() == ElementType::boolean) return t.data<std::uint8_t>()[i];
  dispatch_numeric(t.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    d = static_cast<double>(static_cast<compute_t<T>>(t.data<T>()[i]));
  });
  return d;
}

bool same_bits(const Tensor& a, const Tensor& b, std::size_t i) {
  const std::size_t w = element_size(a.element_type());
  return std::memcmp(static_cast<const std::byte*>(a.data()) + i * w,
                     static_cast<const std::byte*>(b.data()) + i * w, w) == 0;
}

}  // namespace irlite::test

#include "op_tester.hpp"

#include <stdexcept>

#include "core/attributes.hpp"
#include "ops/registry.hpp"

namespace irlite::test {

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
    int n = def ? def->num_outputs : 1;
    // An op that counts its outputs (Split) gets as many as its rule gives.
    if (def && def->max_outputs > def->num_outputs) {
      try {
        n = static_cast<int>(infer().size());
      } catch (const Error&) {
      }
    }
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

GraphBuilder OpTester::graph() const {
  const auto& names = output_names();
  // Output ports say what the op infers, as a real writer's file would; a test of a rejected
  // layer still gets a well-formed document.
  std::vector<OutputInfo> outs(names.size(), {inputs_.empty() ? ElementType::f32 : inputs_[0].type,
                                              PartialShape::dynamic_rank()});
  try {
    const auto inferred = infer();
    for (std::size_t i = 0; i < outs.size() && i < inferred.size(); ++i) outs[i] = inferred[i];
  } catch (const Error&) {
  }
  for (const auto& [i, d] : declared_)
    if (i < outs.size()) outs[i] = {d.type, d.shape};

  GraphBuilder g(layer_name_ + "_test");
  std::vector<GraphBuilder::Port> ports;
  for (const Input& in : inputs_)
    ports.push_back(in.constant ? g.constant(in.name, *in.value)
                                : g.parameter(in.name, in.type, in.shape));
  std::vector<ElementType> types;
  for (const OutputInfo& o : outs) types.push_back(o.type);
  const auto op = g.layer(type_, opset_, attrs_, ports, types, layer_name_);
  for (std::size_t i = 0; i < names.size(); ++i) {
    g.declare(op[i], outs[i].type, outs[i].shape);
    g.result(op[i], names[i]);
  }
  return g;
}

std::string OpTester::xml() const {
  return graph().xml();
}

Model OpTester::load(const LoadOptions& options) {
  // An op is tested in the types it is given: f16 layers compute in f16 here.
  LoadOptions declared = options;
  declared.inference_precision = InferencePrecision::declared;
  model_ = graph().load(declared, layer_name_ + ".xml");
  return *model_;
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

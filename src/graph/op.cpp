#include "graph/op.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace irlite {

std::optional<ValueBounds> monotonic_bounds(const Op& op, std::span<const ValueInfo> inputs,
                                            const OutputInfo& output) {
  if (!output.shape.is_static()) return std::nullopt;
  std::vector<Tensor> lower, upper;
  for (const ValueInfo& in : inputs) {
    if (in.value) {
      lower.push_back(*in.value);
      upper.push_back(*in.value);
    } else if (in.lower && in.upper) {
      lower.push_back(*in.lower);
      upper.push_back(*in.upper);
    } else {
      return std::nullopt;
    }
  }
  // Only output 0 is kept; the others are computed because execute() writes every output.
  const auto evaluate = [&](std::span<const Tensor> args) -> std::optional<Tensor> {
    std::vector<OutputInfo> infos;
    std::vector<ValueInfo> arg_infos;
    for (const Tensor& t : args)
      arg_infos.push_back({t.element_type(), PartialShape::from_shape(t.shape()), &t});
    try {
      infos = op.infer(arg_infos, Phase::run);
      std::vector<Tensor> outs;
      for (const OutputInfo& info : infos) {
        if (!info.shape.is_static()) return std::nullopt;
        outs.emplace_back(info.type, info.shape.to_shape());
      }
      if (outs.empty() || outs[0].element_type() != output.type ||
          outs[0].shape() != output.shape.to_shape())
        return std::nullopt;
      op.execute(args, outs, ExecContext{});
      return std::move(outs[0]);
    } catch (const Error&) {
      return std::nullopt;
    }
  };
  std::optional<Tensor> lo = evaluate(lower);
  std::optional<Tensor> hi = lo ? evaluate(upper) : std::nullopt;
  if (!lo || !hi) return std::nullopt;
  return ValueBounds{std::move(*lo), std::move(*hi)};
}

std::string op_display_name(const OpDef& def) {
  return std::string(def.type) + "-" + std::to_string(def.version);
}

void op_error(std::string message) {
  throw Error(ErrorCode::shape, std::move(message));
}

namespace {
[[noreturn]] void port_error(ErrorCode code, std::size_t index, std::string message) {
  ErrorContext c;
  c.port_kind = ErrorContext::PortKind::input;
  c.port = static_cast<std::int64_t>(index);
  throw Error(code, std::move(message), std::move(c));
}
}  // namespace

void input_error(std::size_t index, std::string message) {
  port_error(ErrorCode::shape, index, std::move(message));
}

void no_kernel(std::size_t index, ElementType type) {
  port_error(ErrorCode::shape, index,
             fmt::format("no kernel for element type {}", to_string(type)));
}

void bad_value(Phase phase, std::size_t index, std::string message) {
  port_error(phase == Phase::run ? ErrorCode::value : ErrorCode::shape, index, std::move(message));
}

void value_error(std::size_t index, std::string message) {
  port_error(ErrorCode::value, index, std::move(message));
}

std::vector<ElementType> numeric_types() {
  using enum ElementType;
  return {f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64};
}

std::vector<ElementType> integral_types() {
  using enum ElementType;
  return {i8, i16, i32, i64, u8, u16, u32, u64};
}

std::vector<ElementType> index_types() {
  return {ElementType::i32, ElementType::i64};
}

std::vector<ElementType> real_types() {
  using enum ElementType;
  return {f16, bf16, f32, f64};
}

std::vector<ElementType> all_types() {
  std::vector<ElementType> types = numeric_types();
  types.push_back(ElementType::boolean);
  return types;
}

namespace {
bool same_set(std::span<const ElementType> a, const std::vector<ElementType>& b) {
  return a.size() == b.size() && std::all_of(a.begin(), a.end(), [&](ElementType t) {
           return std::ranges::count(b, t) == 1;
         });
}
}  // namespace

std::string describe_types(std::span<const ElementType> types) {
  if (same_set(types, numeric_types())) return "a numeric tensor";
  if (same_set(types, integral_types())) return "an integer tensor";
  if (same_set(types, real_types())) return "a floating-point tensor";
  if (same_set(types, all_types())) return "a tensor of a known element type";
  std::string text;
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (i > 0) text += i + 1 == types.size() ? " or " : ", ";
    text += to_string(types[i]);
  }
  return text;
}

namespace {
void check_types(std::span<const OpPortInfo> ports, std::span<const ValueInfo> inputs) {
  if (ports.empty()) return;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const OpPortInfo& port = ports[std::min(i, ports.size() - 1)];
    if (std::ranges::find(port.element_types, inputs[i].type) != port.element_types.end()) continue;
    input_error(i, fmt::format("{} must be {}, got {}", port.name,
                               describe_types(port.element_types), to_string(inputs[i].type)));
  }
}
}  // namespace

void check_input_types(const OpDef& def, std::span<const ValueInfo> inputs) {
  check_types(def.input_types, inputs);
}

std::vector<OutputInfo> Op::infer(std::span<const ValueInfo> inputs, Phase phase) const {
  if (input_types_) check_types(*input_types_, inputs);
  return infer_shapes(inputs, phase);
}

OpDef bind_contract(OpDef def) {
  if (def.input_types.empty() || !def.create) return def;
  auto types = std::make_shared<const std::vector<OpPortInfo>>(def.input_types);
  def.create = [create = std::move(def.create), types](const Attributes& attributes) {
    std::unique_ptr<const Op> op = create(attributes);
    // Every op is made non-const by its factory (make_unique<T>) and only then held as const.
    if (op) const_cast<Op&>(*op).input_types_ = types;
    return op;
  };
  return def;
}

}  // namespace irlite

#include "ops/custom_op.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <exception>
#include <new>
#include <utility>

#include "core/attributes.hpp"
#include "core/text.hpp"
#include "ops/registry.hpp"

namespace irlite {
namespace {

[[noreturn]] void bad(std::string_view name, std::string_view text, std::string_view what) {
  throw Error(ErrorCode::format, fmt::format("attribute '{}' = '{}': {}", name, text, what));
}

/// Runs `f`, turning any exception of the caller's code other than Error and bad_alloc into an
/// Error of `code`, so that the loader and the executor locate it like a built-in op's.
template <class F>
decltype(auto) guarded(ErrorCode code, F&& f) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(code, fmt::format("custom op failed: {}", e.what()));
  } catch (...) {
    throw Error(code, "custom op failed with an exception that is not a std::exception");
  }
}

/// A CustomOp behind the library's Op interface. It checks what the caller's shape rule returns,
/// since the executor relies on it: the output count, defined types, static shapes at run time.
class CustomOpAdapter final : public Op {
 public:
  CustomOpAdapter(std::shared_ptr<const CustomOp> op, int num_outputs,
                  std::vector<std::pair<std::string, std::string>> attributes)
      : op_(std::move(op)), num_outputs_(num_outputs), attributes_(std::move(attributes)) {}

  // The caller's compute may have effects of its own (counting calls, logging): it runs when
  // the model runs, never at load.
  bool foldable() const override { return false; }

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    std::vector<CustomInput> custom;
    custom.reserve(inputs.size());
    for (const ValueInfo& in : inputs) custom.push_back({in.type, in.shape, in.value});
    const std::vector<CustomOutput> outputs =
        guarded(ErrorCode::shape, [&] { return op_->infer(custom); });
    if (outputs.size() != static_cast<std::size_t>(num_outputs_))
      op_error(fmt::format("the custom shape rule gave {} output(s), the op has {}", outputs.size(),
                           num_outputs_));
    std::vector<OutputInfo> result;
    result.reserve(outputs.size());
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].element_type == ElementType::undefined)
        op_error(fmt::format("the custom shape rule gave output {} no element type", i));
      if (phase == Phase::run && !outputs[i].shape.is_static())
        op_error(fmt::format("the custom shape rule gave output {} the shape {} on static inputs",
                             i, to_string(outputs[i].shape)));
      result.push_back({outputs[i].element_type, outputs[i].shape});
    }
    return result;
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override {
    return op_->shape_needs_value(index);
  }

  // The adapter's own piece (where the outputs were) comes first, the caller's op's after it.
  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                            unsigned) const override {
    const Scratch counting = Scratch::counting();
    (void)counting.take<const void*>(outputs.size());
    (void)counting.rest();
    const std::size_t theirs =
        guarded(ErrorCode::value, [&] { return op_->scratch_bytes(inputs, outputs); });
    return theirs > SIZE_MAX - counting.bytes() ? SIZE_MAX : counting.bytes() + theirs;
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const std::span<const void*> buffers = context.scratch.take<const void*>(outputs.size());
    for (std::size_t i = 0; i < outputs.size(); ++i) buffers[i] = outputs[i].data();
    const Scratch theirs = context.scratch.rest();
    guarded(ErrorCode::value, [&] { op_->execute(inputs, outputs, theirs); });
    // The executor owns the outputs' buffers and reads what was written into them.
    for (std::size_t i = 0; i < outputs.size(); ++i)
      if (outputs[i].data() != buffers[i])
        throw Error(ErrorCode::usage,
                    fmt::format("the custom op replaced output {} instead of writing into it", i));
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return attributes_;
  }

 private:
  std::shared_ptr<const CustomOp> op_;
  int num_outputs_;
  std::vector<std::pair<std::string, std::string>> attributes_;
};

[[noreturn]] void usage_error(std::string message) {
  throw Error(ErrorCode::usage, std::move(message));
}

}  // namespace

const std::string* LayerAttributes::find(std::string_view name) const {
  for (const auto& [k, v] : items_)
    if (k == name) return &v;
  return nullptr;
}

const std::string& LayerAttributes::get_string(std::string_view name) const {
  const std::string* v = find(name);
  if (!v) throw Error(ErrorCode::format, fmt::format("missing required attribute '{}'", name));
  return *v;
}

std::string LayerAttributes::get_string(std::string_view name, std::string_view fallback) const {
  const std::string* v = find(name);
  return v ? *v : std::string(fallback);
}

std::int64_t LayerAttributes::get_int(std::string_view name) const {
  return Attributes(items_).get_int(name);
}

std::int64_t LayerAttributes::get_int(std::string_view name, std::int64_t fallback) const {
  return has(name) ? get_int(name) : fallback;
}

double LayerAttributes::get_float(std::string_view name) const {
  const std::string& text = get_string(name);
  const std::string_view word = trim_blanks(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (word.empty() || ec != std::errc() || end != word.data() + word.size() ||
      !std::isfinite(value))
    bad(name, text, "not a finite decimal number");
  return value;
}

double LayerAttributes::get_float(std::string_view name, double fallback) const {
  return has(name) ? get_float(name) : fallback;
}

bool LayerAttributes::get_bool(std::string_view name) const {
  get_string(name);  // present, or the missing-attribute error
  return Attributes(items_).get_bool(name, false);
}

bool LayerAttributes::get_bool(std::string_view name, bool fallback) const {
  return Attributes(items_).get_bool(name, fallback);
}

std::vector<std::int64_t> LayerAttributes::get_ints(std::string_view name) const {
  const std::string& text = get_string(name);
  std::vector<std::int64_t> values;
  if (trim_blanks(text).empty()) return values;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const auto v = parse_int64(rest.substr(0, comma));
    if (!v) bad(name, text, "not a comma-separated list of int64 integers");
    values.push_back(*v);
    if (comma == std::string_view::npos) return values;
    rest.remove_prefix(comma + 1);
  }
}

ElementType LayerAttributes::get_element_type(std::string_view name) const {
  return Attributes(items_).get_element_type(name);
}

void CustomOp::fail(std::string message) {
  op_error(std::move(message));
}

void CustomOp::fail_input(std::size_t index, std::string message) {
  input_error(index, std::move(message));
}

void CustomOp::fail_value(std::size_t index, std::string message) {
  value_error(index, std::move(message));
}

CustomOps& CustomOps::add(CustomOpDef def) {
  if (def.type.empty() || def.opset.empty())
    usage_error("a custom op needs a type and an opset (the layer's version attribute)");
  if (is_builtin_type(def.type))
    usage_error(fmt::format("custom op '{}': irlite has a built-in op of that type", def.type));
  for (const CustomOpDef& other : defs_)
    if (other.type == def.type && other.opset == def.opset)
      usage_error(
          fmt::format("custom op '{}' is already registered for '{}'", def.type, def.opset));
  if (def.min_inputs < 0 || def.max_inputs < def.min_inputs || def.num_outputs < 1)
    usage_error(
        fmt::format("custom op '{}': inputs {} to {} and {} output(s) are not a valid count",
                    def.type, def.min_inputs, def.max_inputs, def.num_outputs));
  if (!def.create) usage_error(fmt::format("custom op '{}' has no factory", def.type));
  defs_.push_back(std::move(def));
  return *this;
}

CustomOpTable::CustomOpTable(const CustomOps& ops) : custom_(ops.defs()) {
  defs_.reserve(custom_.size());
  for (const CustomOpDef& c : custom_) {
    const auto create = [factory = c.create, n = c.num_outputs](const Attributes& attributes) {
      const LayerAttributes layer(attributes.items());
      std::shared_ptr<const CustomOp> op =
          guarded(ErrorCode::format, [&] { return factory(layer); });
      if (!op) throw Error(ErrorCode::format, "the custom op's factory returned no op");
      return std::unique_ptr<const Op>(
          std::make_unique<CustomOpAdapter>(std::move(op), n, layer.items()));
    };
    // No port type lists: supported_ops() lists the built-in ops only.
    defs_.push_back(OpDef{.type = c.type,
                          .version = c.version,
                          .min_inputs = c.min_inputs,
                          .max_inputs = c.max_inputs,
                          .num_outputs = c.num_outputs,
                          .create = create});
  }
}

const OpDef* CustomOpTable::find(std::string_view type, std::string_view opset,
                                 std::string* why) const {
  std::string versions;
  for (std::size_t i = 0; i < custom_.size(); ++i) {
    if (custom_[i].type != type) continue;
    if (custom_[i].opset == opset) return &defs_[i];
    versions += (versions.empty() ? "'" : ", '") + custom_[i].opset + "'";
  }
  if (!versions.empty())
    *why =
        fmt::format("custom op {} is registered for version {}, not '{}'", type, versions, opset);
  return nullptr;
}

}  // namespace irlite

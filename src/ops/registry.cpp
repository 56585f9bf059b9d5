#include "ops/registry.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "core/attributes.hpp"
#include "ops/op_list.hpp"

namespace irlite {
namespace {

// The registry, in the order of ops/op_list.inc.
const std::array kOps{
#define IRLITE_OP(make) bind_contract(make()),
#include "ops/op_list.inc"
#undef IRLITE_OP
};

// The newest opset this registry knows; later opset names are refused rather than guessed.
constexpr int kNewestOpset = 16;

// IR spellings that differ from the op's canonical name.
std::string_view canonical_type(std::string_view lower) {
  if (lower == "const") return "constant";
  return lower;
}

/// N of "opsetN": plain decimal digits, no sign, blanks or leading zeros.
std::optional<int> opset_number(std::string_view opset) {
  if (opset.substr(0, 5) != "opset") return std::nullopt;
  const std::string_view digits = opset.substr(5);
  const auto n = parse_uint64(digits);
  if (!n || digits.front() == '0' || *n > 1000) return std::nullopt;
  return static_cast<int>(*n);
}

}  // namespace

std::span<const OpDef> registered_ops() {
  return kOps;
}

std::vector<OpInfo> supported_ops() {
  std::vector<OpInfo> ops;
  for (const OpDef& def : kOps) {
    // A version holds until the opset before the next version of the same op.
    int until = kNewestOpset;
    for (const OpDef& other : kOps)
      if (other.type == def.type && other.since_opset > def.since_opset)
        until = std::min(until, other.since_opset - 1);
    ops.push_back({def.type, def.version, def.since_opset, until, def.min_inputs, def.max_inputs,
                   def.input_types, def.output_types});
  }
  return ops;
}

const OpDef* resolve_op(std::string_view type, std::string_view opset, std::string* why) {
  const std::string wanted(canonical_type(ascii_lower(type)));
  std::string versions;
  bool known_type = false;
  for (const OpDef& def : kOps) {
    if (ascii_lower(def.type) != wanted) continue;
    known_type = true;
    versions += (versions.empty() ? "" : ", ") + op_display_name(def) + " (opset" +
                std::to_string(def.since_opset) + ")";
  }
  if (!known_type) {
    // The list of what irlite has is long and the same for every such layer: supported_ops()
    // gives it (and `irlite ops` prints it), rather than every message.
    *why = "unsupported op type '" + std::string(type) + "'";
    return nullptr;
  }
  const auto n = opset_number(opset);
  if (!n || *n > kNewestOpset) {
    *why = "unsupported version '" + std::string(opset) + "' for op " + std::string(type) +
           "; expected opset1..opset" + std::to_string(kNewestOpset) + " (irlite has " + versions +
           ")";
    return nullptr;
  }
  const OpDef* best = nullptr;
  for (const OpDef& def : kOps) {
    if (ascii_lower(def.type) != wanted || def.since_opset > *n) continue;
    if (!best || def.since_opset > best->since_opset) best = &def;
  }
  if (!best) {
    *why =
        "op " + std::string(type) + " is not in " + std::string(opset) + "; irlite has " + versions;
    return nullptr;
  }
  return best;
}

bool is_builtin_type(std::string_view type) {
  const std::string wanted(canonical_type(ascii_lower(type)));
  for (const OpDef& def : kOps)
    if (ascii_lower(def.type) == wanted) return true;
  return false;
}

}  // namespace irlite

#include "loader/constants.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "core/file.hpp"

namespace irlite::loader {
namespace {

/// Where an empty Const's tensor points: aligned for any element type, never read or written.
alignas(64) constexpr std::byte kNoBytes[64] = {};

/// Whether each of the `n` bytes at `data` is 0 or 1.
bool all_bits(const std::byte* data, std::uint64_t n) {
  std::byte seen{0};
  for (std::uint64_t i = 0; i < n; ++i) seen |= data[i];
  return (seen & ~std::byte{1}) == std::byte{0};
}

/// Why a Const has no bytes: no weights file, or a path beside the model that is not one.
std::string missing_weights_message(const Weights& weights) {
  const std::string intro = "this Const needs weights, but ";
  if (weights.path.empty()) return intro + "there is no weights file";
  const std::string kind = special_file_kind(weights.path);
  if (!kind.empty()) return intro + weights.path + " is " + kind + ", not a weights file";
  return intro + "there is no weights file (looked for " + weights.path + ")";
}

}  // namespace

void attach_constants(Graph& graph, const Weights& weights, Diagnostics& diagnostics) {
  const auto fail = [&](ErrorCode code, std::string message, ErrorContext c) {
    diagnostics.report(Error(code, std::move(message), std::move(c)));
  };
  bool warned_missing = false;
  for (Node& node : graph.nodes) {
    if (node.kind() != OpKind::constant || !node.op) continue;
    const StoredValue* stored = node.op->stored_value();
    if (!stored) continue;
    const StoredValue& c = *stored;
    const std::uint64_t width = element_size(c.type);
    const auto count = static_cast<std::uint64_t>(*element_count(c.shape));
    if (count != 0 && width > UINT64_MAX / count) {
      fail(ErrorCode::weights,
           fmt::format("Const of shape {} and type {} is too large", to_string(c.shape),
                       to_string(c.type)),
           graph.context(node));
      continue;
    }
    const std::uint64_t needed = count * width;
    if (c.size < needed) {
      fail(ErrorCode::weights,
           fmt::format("size {} is too small for shape {} of {} ({} bytes needed)", c.size,
                       to_string(c.shape), to_string(c.type), needed),
           graph.context(node));
      continue;
    }
    if (needed == 0) {
      // No bytes to hold: a view of static memory rather than an allocation per Const (a
      // model may have many empty ones, such as the axes of reductions over nothing).
      node.value = Tensor::view(c.type, c.shape, static_cast<const void*>(kNoBytes), nullptr);
      node.has_value = true;
      continue;
    }
    if (!weights.present) {
      if (diagnostics.keep_going) {
        // inspect works without the .bin: the Const's value is just unknown.
        if (!warned_missing)
          diagnostics.warnings.emplace_back(ErrorCode::io, missing_weights_message(weights),
                                            graph.context(node));
        warned_missing = true;
        continue;
      }
      fail(ErrorCode::io, missing_weights_message(weights), graph.context(node));
      continue;
    }
    const std::uint64_t total = weights.bytes.size();
    if (c.size > total || c.offset > total - c.size) {
      fail(ErrorCode::weights,
           fmt::format("needs bytes [{}, {}{}) but {} has {} bytes", c.offset,
                       c.offset > UINT64_MAX - c.size ? "offset + " : "",
                       c.offset > UINT64_MAX - c.size ? c.size : c.offset + c.size,
                       weights.path.empty() ? "the weights buffer" : weights.path, total),
           graph.context(node));
      continue;
    }
    const std::byte* data = weights.bytes.data() + c.offset;
    if (c.type == ElementType::boolean && !all_bits(data, needed)) {
      // Kernels and outputs take a boolean byte to be 0 or 1, as .npy inputs are made.
      node.value = Tensor(c.type, c.shape);
      auto* out = static_cast<std::uint8_t*>(node.value.data());
      for (std::uint64_t i = 0; i < needed; ++i) out[i] = data[i] != std::byte{0};
    } else if (reinterpret_cast<std::uintptr_t>(data) % width == 0) {
      node.value = Tensor::view(c.type, c.shape, static_cast<const void*>(data), weights.owner);
    } else {
      // The IR does not align Consts; an unaligned one is copied once so kernels can read
      // it with plain loads.
      node.value = Tensor(c.type, c.shape);
      std::memcpy(node.value.data(), data, needed);
    }
    node.has_value = true;
  }
}

}  // namespace irlite::loader

#include "graph/widen_floats.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/multiversion.hpp"
#include "irlite/element_dispatch.hpp"

namespace irlite {
namespace {

constexpr std::array kNarrow = {ElementType::f16, ElementType::bf16};

/// f16 bits to f32, the values float16::to_float() gives, in vectors of eight. A half's
/// exponent and mantissa bits moved to a float's places, read as a float, are the half's
/// magnitude times 2^-112 (its exponent bias is 15, a float's 127): a subnormal half lands on a
/// subnormal float, exactly, and the product by 2^112 is exact. Infinities and NaNs keep their
/// mantissa bits.
IRLITE_MULTIVERSION void widen_halves(const std::uint16_t* __restrict in, float* __restrict out,
                                      std::size_t n) {
  using Halves = std::uint16_t __attribute__((vector_size(16)));
  using Bits = std::uint32_t __attribute__((vector_size(32)));
  using Floats = float __attribute__((vector_size(32)));
  constexpr std::size_t kLanes = 8;
  constexpr std::uint32_t kInfinity = 0x7c00u << 13;  // a half's, in a float's places
  const auto widen = [](Halves h) {
    const Bits wide = __builtin_convertvector(h, Bits);
    const Bits bits = (wide & 0x7fffu) << 13;
    const auto finite = std::bit_cast<Bits>(std::bit_cast<Floats>(bits) * 0x1p112f);
    const auto special = std::bit_cast<Bits>(bits >= kInfinity);  // all ones where true
    return ((wide & 0x8000u) << 16) | (finite & ~special) | ((bits | 0x7f800000u) & special);
  };
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Halves h;
    std::memcpy(&h, in + i, sizeof h);
    const Bits out_bits = widen(h);
    std::memcpy(out + i, &out_bits, sizeof out_bits);
  }
  if (i == n) return;
  Halves h{};  // the last few, in a vector padded with zeros
  for (std::size_t j = i; j < n; ++j) h[j - i] = in[j];
  const Bits out_bits = widen(h);
  for (std::size_t j = i; j < n; ++j) out[j] = std::bit_cast<float>(out_bits[j - i]);
}

}  // namespace

void convert_floats(const Tensor& from, Tensor& to, const Parallel& parallel) {
  dispatch_float(from.element_type(), [&](auto from_tag) {
    dispatch_float(to.element_type(), [&](auto to_tag) {
      using From = typename decltype(from_tag)::type;
      using To = typename decltype(to_tag)::type;
      const From* in = from.data<From>();
      To* out = to.data<To>();
      parallel.for_range(
          from.size(), std::size_t{1} << 15, [&](std::size_t begin, std::size_t end, std::size_t) {
            if constexpr (std::is_same_v<From, float16> && std::is_same_v<To, float>) {
              static_assert(sizeof(float16) == sizeof(std::uint16_t));
              widen_halves(reinterpret_cast<const std::uint16_t*>(in) + begin, out + begin,
                           end - begin);
            } else {
              for (std::size_t i = begin; i < end; ++i) out[i] = To(static_cast<float>(in[i]));
            }
          });
    });
  });
}

Tensor widened(const Tensor& value) {
  if (!is_narrow_float(value.element_type())) return value;
  Tensor out(ElementType::f32, value.shape());
  convert_floats(value, out, Parallel());
  return out;
}

void widen_floats(Graph& graph) {
  graph.floats_widened = true;
  // A Parameter that only Results read is handed back as it came: nothing computes on it.
  std::vector<bool> computed_on(graph.nodes.size(), false);
  for (const Node& node : graph.nodes)
    for (const InputPort& in : node.inputs)
      if (in.source_node != SIZE_MAX && node.kind() != OpKind::result)
        computed_on[in.source_node] = true;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& node = graph.nodes[i];
    if (!node.op || (node.kind() == OpKind::parameter && !computed_on[i])) continue;
    for (ElementType from : kNarrow) {
      std::shared_ptr<const Op> op = node.op->retyped(from, ElementType::f32);
      if (!op) continue;
      node.op = std::move(op);
      if (node.kind() == OpKind::parameter) node.edge_type = from;
    }
    if (node.kind() == OpKind::constant && node.has_value) node.value = widened(node.value);
  }
  for (std::size_t r : graph.results) {
    Node& node = graph.nodes[r];
    if (node.inputs.empty() || node.inputs[0].source_node == SIZE_MAX) continue;
    const InputPort& in = node.inputs[0];
    const ElementType declared =
        graph.nodes[in.source_node].outputs[in.source_output].declared_type;
    if (is_narrow_float(declared)) node.edge_type = declared;
  }
}

void settle_edge_types(Graph& graph) {
  for (std::size_t r : graph.results) {
    Node& node = graph.nodes[r];
    if (node.edge_type == ElementType::undefined) continue;
    const InputPort& in = node.inputs[0];
    if (graph.nodes[in.source_node].outputs[in.source_output].type != ElementType::f32)
      node.edge_type = ElementType::undefined;
  }
}

}  // namespace irlite

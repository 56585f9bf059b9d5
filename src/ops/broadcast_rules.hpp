#pragma once
// Broadcasting rules shared by the element-wise binary ops, Select and Broadcast: the
// `auto_broadcast` attribute, OpenVINO's merging of partial shapes under it, and the alignment of
// an input's static shape with the output's for the kernels (kernels/elementwise.hpp).

#include <cstdint>
#include <optional>
#include <string>

#include "irlite/shape.hpp"

namespace irlite {

class AttributeVisitor;

/// How the inputs of an element-wise op are brought to one shape.
enum class AutoBroadcast {
  none,   ///< shapes must be equal (compatible dims merged)
  numpy,  ///< right-aligned, a dim of 1 stretches
  pdpd,   ///< the second shape is placed at `axis` of the first, which gives the output shape
};

struct BroadcastSpec {
  AutoBroadcast type = AutoBroadcast::numpy;
  /// pdpd only: where the second shape starts in the first; -1 aligns it to the right.
  std::int64_t axis = -1;

  /// The attributes: `auto_broadcast` ("none", "explicit" as a synonym of none, "numpy",
  /// "pdpd"; any letter case; numpy when absent) and, for pdpd, `axis` (default -1).
  void visit(AttributeVisitor& v);
};

/// The attribute's text: "none", "numpy", "pdpd".
std::string to_string(AutoBroadcast type);

/// OpenVINO's numpy merge of two dimensions: when both may be 1, the interval spanning both;
/// when one may be 1, the other; otherwise their intersection (nullopt when empty).
std::optional<Dimension> broadcast_merge(const Dimension& a, const Dimension& b);

/// `dst` merged with `src` under `spec`, as OpenVINO merges a node's inputs one after another
/// (none: ranks equal and dims intersected, an unknown rank taking the other; numpy: either rank
/// unknown gives an unknown rank; pdpd: `dst` is the result, `src` checked against it). nullopt
/// when the shapes cannot be broadcast together.
std::optional<PartialShape> broadcast_shapes(const PartialShape& dst, const PartialShape& src,
                                             const BroadcastSpec& spec);

/// "the shapes [2,3] and [4] cannot be broadcast together (auto_broadcast=numpy)"
std::string broadcast_error(const PartialShape& a, const PartialShape& b,
                            const BroadcastSpec& spec);

/// `in` given the output's rank under `spec`, for an input whose shapes were merged with
/// broadcast_shapes: numpy pads ones on the left, pdpd places `in` at the axis and pads ones on
/// both sides, none leaves it as is.
Shape align_shape(const Shape& in, std::size_t out_rank, const BroadcastSpec& spec);

}  // namespace irlite

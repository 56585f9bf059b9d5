#pragma once
// Small helpers shared by the ops' shape rules.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/op.hpp"
#include "irlite/element_type.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"

namespace irlite {

/// Normalises `axis` into [0, rank) for a tensor of `rank`; nullopt when out of [-rank, rank).
std::optional<std::int64_t> normalize_axis(std::int64_t axis, std::int64_t rank);

/// "axis 3 is out of the tensor rank range [-2, 1]"
std::string axis_range_message(std::int64_t axis, std::int64_t rank);

/// The axes a list names, as a mask over [0, rank): each in [-rank, rank), none twice. nullopt
/// with the reason in *why otherwise ("axis 4 is out of ...", "axis 1 is given twice").
std::optional<std::vector<bool>> axes_mask(const std::vector<std::int64_t>& axes,
                                           std::int64_t rank, std::string* why);

/// Reads every element of an integral tensor as int64 (u64 above INT64_MAX saturates).
std::vector<std::int64_t> integer_values(const Tensor& t);

/// Elements per row (everything after axis 0) of two tensors of rank >= 1 that share their
/// trailing dims, read off whichever has rows. Derived from sizes rather than multiplied out, so
/// that a zero extent cannot hide an overflowing product of the other ones.
std::size_t row_size(const Tensor& a, const Tensor& b);

/// The largest value of an integer element type, as int64 (u64's saturates): the upper bound
/// that value propagation reads as unbounded.
std::int64_t integer_type_max(ElementType type);

/// What load-time value propagation knows of element `i` of an integer input: its value, or the
/// range its bounds give (an upper bound at the type's largest value being unbounded, a negative
/// lower bound read as 0). nullopt when neither is known. For k, num_segments and the like,
/// which become a dimension.
std::optional<Dimension> known_dimension(const ValueInfo& in, std::size_t i = 0);

/// The dimensions both intervals allow; nullopt when they do not meet.
std::optional<Dimension> intersect(const Dimension& a, const Dimension& b);

/// Whether a partial shape can be a scalar (rank 0 or unknown rank).
inline bool may_be_scalar(const PartialShape& s) {
  return !s.rank_is_static() || s.rank() == 0;
}

/// Shortest text of a value for messages and Model::layers(): integers as is, floats in the
/// shortest form that reads back to the same value (`0.2`, not `0.200000003`; f16 and bf16 via
/// their float value), NaN as `nan` whatever its sign bit.
std::string value_text(const Tensor& t, std::size_t i);

}  // namespace irlite

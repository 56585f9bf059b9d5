#pragma once
// Tensors for tests, from plain numbers and back: the one way a test writes a tensor's values
// (tensor(), ints(), i64s(), or tensor_from_json() for the conformance vectors) and reads them
// (doubles(), integers(), element_text()).
//
// A maker that meets a bad argument (a value count that does not fit the shape, a value the
// element type cannot hold) throws std::invalid_argument saying which value, which stops the
// test case with that message: a mistake in a test is never mistaken for a result. They throw
// rather than REQUIRE so that tests may make tensors on any thread.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "kernels/element.hpp"

namespace irlite::test {

/// `d` rounded once to nearest-even in float16 (no double rounding through float).
float16 round_to_f16(double d);
/// `d` rounded once to nearest-even in bfloat16.
bfloat16 round_to_bf16(double d);

/// A tensor of any numeric or boolean type from doubles, row-major. Decimals are rounded once
/// to the element type; integer types require integral values in range; boolean takes any
/// non-zero value as 1. Values beyond 2^53 are not exact as doubles: use ints() for those.
Tensor tensor(ElementType type, Shape shape, const std::vector<double>& values);

/// An integer tensor (i8..u64) from exact integers, for indices, ids and counts, each value
/// converted as the type's own arithmetic does: modulo 2^bits, so -1 is a u64's largest value
/// and an i32 keeps a value's low 32 bits.
Tensor ints(ElementType type, Shape shape, const std::vector<std::int64_t>& values);

/// A 1-D i64 tensor of `values`: the usual axes, shapes and indices.
Tensor i64s(const std::vector<std::int64_t>& values);

/// A tensor from a flat JSON array, row-major. Integers are read as 64-bit (signed or
/// unsigned) and must fit the element type; decimals are rounded once to the element type;
/// booleans are true/false or 0/1.
Tensor tensor_from_json(ElementType type, const Shape& shape, const nlohmann::json& values);

/// The elements of a numeric tensor as doubles, row-major (16-bit floats through float; i64
/// and u64 beyond 2^53 rounded). All zeros for a non-numeric tensor.
std::vector<double> doubles(const Tensor& t);

/// The elements of an integer tensor (i8..u64) as int64, row-major, exactly (u64 above
/// INT64_MAX saturates, as integer_at does).
std::vector<std::int64_t> integers(const Tensor& t);

/// Element i as text (integers exactly, floats with 9 significant digits).
std::string element_text(const Tensor& t, std::size_t i);
/// Element i of a numeric or boolean tensor as a double (u64/i64 beyond 2^53 rounded).
double element_as_double(const Tensor& t, std::size_t i);
/// Whether element i of a and b have the same bytes (same element type assumed).
bool same_bits(const Tensor& a, const Tensor& b, std::size_t i);

/// Whether two elements are the same value: equal, or both NaN (a NaN's sign and payload
/// aside). +0 and -0 are the same value.
template <class T>
bool same_value(T a, T b) {
  if constexpr (is_float_storage_v<T>) {
    const auto x = static_cast<compute_t<T>>(a);
    const auto y = static_cast<compute_t<T>>(b);
    return (std::isnan(x) && std::isnan(y)) || x == y;
  } else {
    return a == b;
  }
}

}  // namespace irlite::test

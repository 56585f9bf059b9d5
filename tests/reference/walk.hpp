#pragma once
// Index arithmetic for the plain reference kernels: a dense row-major tensor's elements by their
// coordinates, one at a time. Slow and simple on purpose, so that a reference reads as the
// specification does and shares nothing with the optimised kernels it checks.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "irlite/irlite.hpp"

namespace irlite::test::reference {

/// How many elements a shape holds.
inline std::size_t count(const Shape& shape) {
  std::size_t n = 1;
  for (const std::int64_t d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

/// The coordinates of the element at row-major position `i`.
inline std::vector<std::size_t> coords(const Shape& shape, std::size_t i) {
  std::vector<std::size_t> c(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const auto n = static_cast<std::size_t>(shape[d]);
    c[d] = i % n;
    i /= n;
  }
  return c;
}

/// The row-major position of the element at coordinates `c`.
inline std::size_t position(const Shape& shape, const std::vector<std::size_t>& c) {
  std::size_t i = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) i = i * static_cast<std::size_t>(shape[d]) + c[d];
  return i;
}

/// The coordinates in an input of `input_rank` dims, aligned to the right of the output's and
/// broadcast along its dims of 1 (NumPy's rule), of the output element at `out`.
inline std::vector<std::size_t> broadcast_coords(const Shape& input,
                                                 const std::vector<std::size_t>& out) {
  std::vector<std::size_t> c(input.size());
  const std::size_t skip = out.size() - input.size();
  for (std::size_t d = 0; d < input.size(); ++d) c[d] = input[d] == 1 ? 0 : out[skip + d];
  return c;
}

}  // namespace irlite::test::reference

#pragma once
// Plain reference kernels of the ops that only move elements: Transpose, Tile, Concat and the
// strided views of Slice and StridedSlice. Each output element is found from its coordinates and
// copied by its bytes, so one function serves every element type.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "irlite/irlite.hpp"
#include "reference/walk.hpp"

namespace irlite::test::reference {

namespace detail {
inline void copy_element(const Tensor& from, std::size_t i, Tensor& to, std::size_t j) {
  const std::size_t size = element_size(from.element_type());
  std::memcpy(static_cast<std::byte*>(to.data()) + j * size,
              static_cast<const std::byte*>(from.data()) + i * size, size);
}
}  // namespace detail

/// Output dim d is input dim perm[d].
inline Tensor transpose(const Tensor& x, const std::vector<std::size_t>& perm) {
  Shape shape(perm.size());
  for (std::size_t d = 0; d < perm.size(); ++d) shape[d] = x.shape()[perm[d]];
  Tensor y(x.element_type(), shape);
  for (std::size_t i = 0; i < y.size(); ++i) {
    const std::vector<std::size_t> out = coords(shape, i);
    std::vector<std::size_t> in(perm.size());
    for (std::size_t d = 0; d < perm.size(); ++d) in[perm[d]] = out[d];
    detail::copy_element(x, position(x.shape(), in), y, i);
  }
  return y;
}

/// The input repeated repeats[d] times along each dim; the shorter of the input's shape and
/// `repeats` is padded with 1s on the left.
inline Tensor tile(const Tensor& x, const std::vector<std::int64_t>& repeats) {
  const std::size_t rank = std::max(x.shape().size(), repeats.size());
  Shape in_shape(rank, 1), reps(rank, 1), shape(rank);
  std::copy(x.shape().begin(), x.shape().end(), in_shape.end() - static_cast<std::ptrdiff_t>(x.rank()));
  std::copy(repeats.begin(), repeats.end(), reps.end() - static_cast<std::ptrdiff_t>(repeats.size()));
  for (std::size_t d = 0; d < rank; ++d) shape[d] = in_shape[d] * reps[d];
  Tensor y(x.element_type(), shape);
  for (std::size_t i = 0; i < y.size(); ++i) {
    std::vector<std::size_t> c = coords(shape, i);
    for (std::size_t d = 0; d < rank; ++d) c[d] %= static_cast<std::size_t>(in_shape[d]);
    detail::copy_element(x, position(in_shape, c), y, i);
  }
  return y;
}

/// The inputs one after the other along `axis`.
inline Tensor concat(const std::vector<Tensor>& xs, std::size_t axis) {
  Shape shape = xs.at(0).shape();
  shape[axis] = 0;
  for (const Tensor& x : xs) shape[axis] += x.shape()[axis];
  Tensor y(xs[0].element_type(), shape);
  for (std::size_t i = 0; i < y.size(); ++i) {
    std::vector<std::size_t> c = coords(shape, i);
    std::size_t k = 0;
    while (c[axis] >= static_cast<std::size_t>(xs[k].shape()[axis]))
      c[axis] -= static_cast<std::size_t>(xs[k++].shape()[axis]);
    detail::copy_element(xs[k], position(xs[k].shape(), c), y, i);
  }
  return y;
}

/// Along each dim d, count[d] elements from start[d] on, step[d] apart (negative: backwards).
inline Tensor strided_view(const Tensor& x, const std::vector<std::int64_t>& start,
                           const std::vector<std::int64_t>& step,
                           const std::vector<std::int64_t>& count) {
  const Shape shape(count.begin(), count.end());
  Tensor y(x.element_type(), shape);
  for (std::size_t i = 0; i < y.size(); ++i) {
    std::vector<std::size_t> c = coords(shape, i);
    for (std::size_t d = 0; d < c.size(); ++d)
      c[d] = static_cast<std::size_t>(start[d] + static_cast<std::int64_t>(c[d]) * step[d]);
    detail::copy_element(x, position(x.shape(), c), y, i);
  }
  return y;
}

}  // namespace irlite::test::reference

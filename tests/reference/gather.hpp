#pragma once
// Plain reference kernel of Gather-8: data[batch..., outer..., indices[batch..., j...], inner...]
// for every output coordinate, as the specification states it. A negative index counts from the
// end; one outside [-dim, dim) gives zero.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "irlite/irlite.hpp"
#include "reference/walk.hpp"

namespace irlite::test::reference {

/// `indices` holds any integer type; axis and batch_dims are already non-negative.
inline Tensor gather(const Tensor& data, const Tensor& indices, std::size_t axis,
                     std::size_t batch_dims) {
  const Shape& ds = data.shape();
  const Shape& is = indices.shape();
  Shape shape(ds.begin(), ds.begin() + static_cast<std::ptrdiff_t>(axis));
  shape.insert(shape.end(), is.begin() + static_cast<std::ptrdiff_t>(batch_dims), is.end());
  shape.insert(shape.end(), ds.begin() + static_cast<std::ptrdiff_t>(axis) + 1, ds.end());
  Tensor y(data.element_type(), shape);
  const std::size_t size = element_size(data.element_type());
  const std::size_t index_dims = is.size() - batch_dims;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const std::vector<std::size_t> c = coords(shape, i);
    std::vector<std::size_t> at(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(batch_dims));
    at.insert(at.end(), c.begin() + static_cast<std::ptrdiff_t>(axis),
              c.begin() + static_cast<std::ptrdiff_t>(axis + index_dims));
    std::int64_t index = integer_at(indices, position(is, at));
    const std::int64_t dim = ds[axis];
    if (index < 0) index += dim;
    std::byte* dst = static_cast<std::byte*>(y.data()) + i * size;
    if (index < 0 || index >= dim) {
      std::memset(dst, 0, size);
      continue;
    }
    std::vector<std::size_t> src(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(axis));
    src.push_back(static_cast<std::size_t>(index));
    src.insert(src.end(), c.begin() + static_cast<std::ptrdiff_t>(axis + index_dims), c.end());
    std::memcpy(dst, static_cast<const std::byte*>(data.data()) + position(ds, src) * size, size);
  }
  return y;
}

}  // namespace irlite::test::reference

#pragma once
// Plain references for Split/VariadicSplit and DepthToSpace/SpaceToDepth, written from the
// specifications' formulas: each output element found from its coordinates and copied by its
// bytes, so one function serves every element type.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "irlite/irlite.hpp"
#include "reference/walk.hpp"

namespace irlite::test::reference {

namespace split_detail {
inline void copy_one(const Tensor& from, std::size_t i, Tensor& to, std::size_t j) {
  const std::size_t size = element_size(from.element_type());
  std::memcpy(static_cast<std::byte*>(to.data()) + j * size,
              static_cast<const std::byte*>(from.data()) + i * size, size);
}
}  // namespace split_detail

/// The pieces of `x` along `axis` with these lengths (which add up to the axis extent).
inline std::vector<Tensor> split(const Tensor& x, std::size_t axis,
                                 const std::vector<std::int64_t>& lengths) {
  std::vector<Tensor> out;
  std::size_t start = 0;
  for (const std::int64_t len : lengths) {
    Shape shape = x.shape();
    shape[axis] = len;
    Tensor y(x.element_type(), shape);
    for (std::size_t i = 0; i < y.size(); ++i) {
      std::vector<std::size_t> c = coords(shape, i);
      c[axis] += start;
      split_detail::copy_one(x, position(x.shape(), c), y, i);
    }
    start += static_cast<std::size_t>(len);
    out.push_back(std::move(y));
  }
  return out;
}

/// DepthToSpace: out[n, c, d1 * b + j1, ..., dK * b + jK] = in[n, channel, d1, ..., dK], where
/// with J = j1 b^(K-1) + ... + jK the channel is J * C' + c (blocks_first) or c * b^K + J
/// (depth_first), C' being the output's channels.
inline Tensor depth_to_space(const Tensor& x, std::int64_t b, bool blocks_first) {
  const Shape& in = x.shape();
  const std::size_t k = in.size() - 2;
  std::int64_t volume = 1;
  for (std::size_t i = 0; i < k; ++i) volume *= b;
  Shape shape = in;
  shape[1] = in[1] / volume;
  for (std::size_t i = 0; i < k; ++i) shape[2 + i] = in[2 + i] * b;
  Tensor y(x.element_type(), shape);
  const auto bs = static_cast<std::size_t>(b);
  for (std::size_t i = 0; i < y.size(); ++i) {
    const std::vector<std::size_t> o = coords(shape, i);
    std::vector<std::size_t> c(in.size());
    c[0] = o[0];
    std::size_t block = 0;
    for (std::size_t d = 0; d < k; ++d) {
      c[2 + d] = o[2 + d] / bs;
      block = block * bs + o[2 + d] % bs;
    }
    c[1] = blocks_first ? block * static_cast<std::size_t>(shape[1]) + o[1]
                        : o[1] * static_cast<std::size_t>(volume) + block;
    split_detail::copy_one(x, position(in, c), y, i);
  }
  return y;
}

/// SpaceToDepth, the inverse: out[n, channel, d1, ..., dK] = in[n, c, d1 * b + j1, ...], the
/// channel being J * C + c (blocks_first) or c * b^K + J (depth_first).
inline Tensor space_to_depth(const Tensor& x, std::int64_t b, bool blocks_first) {
  const Shape& in = x.shape();
  const std::size_t k = in.size() - 2;
  std::int64_t volume = 1;
  for (std::size_t i = 0; i < k; ++i) volume *= b;
  Shape shape = in;
  shape[1] = in[1] * volume;
  for (std::size_t i = 0; i < k; ++i) shape[2 + i] = in[2 + i] / b;
  Tensor y(x.element_type(), shape);
  const auto bs = static_cast<std::size_t>(b);
  const auto channels = static_cast<std::size_t>(in[1]);
  for (std::size_t i = 0; i < y.size(); ++i) {
    const std::vector<std::size_t> o = coords(shape, i);
    const std::size_t block =
        blocks_first ? o[1] / channels : o[1] % static_cast<std::size_t>(volume);
    const std::size_t c1 = blocks_first ? o[1] % channels : o[1] / static_cast<std::size_t>(volume);
    std::vector<std::size_t> c(in.size());
    c[0] = o[0];
    c[1] = c1;
    std::size_t rest = block;
    for (std::size_t d = k; d-- > 0;) {
      c[2 + d] = o[2 + d] * bs + rest % bs;
      rest /= bs;
    }
    split_detail::copy_one(x, position(in, c), y, i);
  }
  return y;
}

}  // namespace irlite::test::reference

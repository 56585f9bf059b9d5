#pragma once
// A plain reference of FakeQuantize-1: each output element from its coordinates, the limits
// taken by NumPy's broadcasting, the specification's formula written out with its branches in
// the type the op computes in (float for f16 and bf16), rounded once to the element type.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "reference/walk.hpp"

namespace irlite::test::reference {

/// One element: x against its four limits, `steps` = levels - 1, in compute type C.
template <class C>
C fake_quantize_value(C x, C il, C ih, C ol, C oh, C steps) {
  const C low = il < ih ? il : ih;
  const C high = il < ih ? ih : il;
  if (x <= low) return ol;
  if (x > high) return oh;
  const C fraction = (x - il) / (ih - il);
  const C level = std::nearbyint(fraction * steps);
  return level / steps * (oh - ol) + ol;
}

/// FakeQuantize of x (storage type T) with limits `limits` (input_low, input_high, output_low,
/// output_high, of x's type, each broadcasting into x's shape NumPy-style).
template <class T>
Tensor fake_quantize(const Tensor& x, const std::vector<Tensor>& limits, std::int64_t levels) {
  using C = compute_t<T>;
  Tensor out(x.element_type(), x.shape());
  const Shape& shape = x.shape();
  // levels - 1 as the element type holds it.
  const C steps = static_cast<C>(T(static_cast<C>(levels - 1)));
  for (std::size_t i = 0; i < count(shape); ++i) {
    const std::vector<std::size_t> c = coords(shape, i);
    C v[4];
    for (std::size_t k = 0; k < 4; ++k) {
      const Shape& ls = limits[k].shape();
      // Extra leading dims of the limit (all 1) take coordinate 0.
      std::vector<std::size_t> lc(ls.size(), 0);
      const std::size_t extra = ls.size() > shape.size() ? ls.size() - shape.size() : 0;
      const Shape tail(ls.begin() + static_cast<std::ptrdiff_t>(extra), ls.end());
      const std::vector<std::size_t> bc = broadcast_coords(tail, c);
      std::copy(bc.begin(), bc.end(), lc.begin() + static_cast<std::ptrdiff_t>(extra));
      v[k] = static_cast<C>(limits[k].data<T>()[position(ls, lc)]);
    }
    const C r = fake_quantize_value(static_cast<C>(x.data<T>()[i]), v[0], v[1], v[2], v[3], steps);
    out.data<T>()[i] = T(r);
  }
  return out;
}

}  // namespace irlite::test::reference

#pragma once
// ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1, the plain kernel: the test
// oracle of ops/convolution_backprop.cpp. It follows the specification's definition, the
// scatter: each input element, times each filter tap, is added to the output element it lands
// on, in double. The kernel gathers instead, per output element.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "irlite/irlite.hpp"
#include "reference/walk.hpp"

namespace irlite::test::reference {

/// One transposed convolution, resolved: the output's spatial extents and the padding removed
/// before each spatial axis.
struct BackpropPlan {
  std::vector<std::int64_t> strides, dilations, pad_begin, out;
};

/// data [N, GROUPS * C_IN, in...], filters [GROUPS, C_IN, C_OUT, kernel...] (for the ungrouped
/// op, GROUPS = 1 and the leading 1 implied: pass `groups` = 1 and its filters as they are).
/// Returns y [N, GROUPS * C_OUT, out...] in row-major order: the full, unpadded output
/// (in - 1) * stride + (kernel - 1) * dilation + 1 along each axis, of which the element at
/// position p lands on output p - pad_begin, when that lies in [0, out).
inline std::vector<double> convolution_backprop(const std::vector<double>& x, const Shape& x_shape,
                                                const std::vector<double>& w, const Shape& w_shape,
                                                std::int64_t groups, const BackpropPlan& plan) {
  const std::size_t spatial = plan.strides.size();
  const Shape kernel(w_shape.end() - static_cast<std::ptrdiff_t>(spatial), w_shape.end());
  const std::int64_t cin = x_shape[1] / groups;
  const std::int64_t cout = w_shape[w_shape.size() - spatial - 1];
  Shape y_shape{x_shape[0], groups * cout};
  y_shape.insert(y_shape.end(), plan.out.begin(), plan.out.end());
  std::vector<double> y(count(y_shape), 0.0);
  const Shape x_spatial(x_shape.begin() + 2, x_shape.end());
  for (std::size_t xi = 0; xi < x.size(); ++xi) {
    const std::vector<std::size_t> xc = coords(x_shape, xi);
    const auto n = static_cast<std::int64_t>(xc[0]);
    const auto channel = static_cast<std::int64_t>(xc[1]);
    const std::int64_t g = channel / cin;
    const std::int64_t c = channel % cin;
    for (std::int64_t o = 0; o < cout; ++o)
      for (std::size_t ki = 0; ki < count(kernel); ++ki) {
        const std::vector<std::size_t> kc = coords(kernel, ki);
        std::vector<std::size_t> yc{static_cast<std::size_t>(n),
                                    static_cast<std::size_t>(g * cout + o)};
        bool inside = true;
        for (std::size_t a = 0; a < spatial; ++a) {
          const std::int64_t p = static_cast<std::int64_t>(xc[2 + a]) * plan.strides[a] +
                                 static_cast<std::int64_t>(kc[a]) * plan.dilations[a] -
                                 plan.pad_begin[a];
          if (p < 0 || p >= plan.out[a]) inside = false;
          yc.push_back(static_cast<std::size_t>(p));
        }
        if (!inside) continue;
        // Filters [groups, C_IN, C_OUT, kernel...] flattened: the same positions as
        // [C_IN, C_OUT, kernel...] when groups is 1.
        const std::size_t wi =
            static_cast<std::size_t>((g * cin + c) * cout + o) * count(kernel) + ki;
        y[position(y_shape, yc)] += x[xi] * w[wi];
      }
  }
  return y;
}

}  // namespace irlite::test::reference

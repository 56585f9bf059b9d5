#pragma once
// Plain reference kernels of the arithmetic ops with optimised kernels: MatMul, Softmax, the
// reductions, the element-wise binary ops with NumPy broadcasting and the unary math. Each output
// element is computed alone from its coordinates, in the most obvious way:
//
// - floating-point types in double (Softmax, MatMul, the reductions: their optimised kernels sum
//   in another order, so results are compared within a tolerance) or, for the element-wise ops,
//   in the type the op computes in (float for f16 and bf16) and rounded once, as the
//   specification asks;
// - integers in 64-bit unsigned arithmetic, which wraps as every narrower two's complement type
//   does, and truncated to the element type at the end; comparisons in long double, which holds
//   every 64-bit integer exactly.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "reference/walk.hpp"

namespace irlite::test::reference {

/// What a reference computes an element of storage type T in.
template <class T>
using wide_t = std::conditional_t<is_float_storage_v<T>, double, std::uint64_t>;

template <class T>
wide_t<T> widen(T v) {
  if constexpr (is_float_storage_v<T>)
    return static_cast<double>(static_cast<compute_t<T>>(v));
  else if constexpr (std::is_signed_v<T>)
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  else
    return static_cast<std::uint64_t>(v);
}

template <class T>
T narrow(wide_t<T> v) {
  if constexpr (is_float_storage_v<T>)
    return T(static_cast<compute_t<T>>(v));
  else
    return static_cast<T>(v);  // modulo 2^bits, as C++20 defines it
}

/// The value of an element as a number that orders every type correctly.
template <class T>
long double ordered(T v) {
  return static_cast<long double>(static_cast<compute_t<T>>(v));
}

/// What ReduceMin gives for an empty extent: +inf for floats, the largest integer otherwise.
template <class T>
T min_of_nothing() {
  if constexpr (is_float_storage_v<T>)
    return T(std::numeric_limits<float>::infinity());
  else
    return std::numeric_limits<T>::max();
}

/// The broadcast shape of two shapes (NumPy's rule; they are assumed compatible).
inline Shape broadcast_shape(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t x = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
    const std::int64_t y = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
    out[d] = x == 1 ? y : x;
  }
  return out;
}

/// MatMul-1 of operands of rank 2 or more: a batch of products, batch dims broadcast.
template <class T>
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b,
              ElementType type) {
  const Shape& as = a.shape();
  const Shape& bs = b.shape();
  const Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  const auto m = static_cast<std::size_t>(transpose_a ? as.back() : as[as.size() - 2]);
  const auto k = static_cast<std::size_t>(transpose_a ? as[as.size() - 2] : as.back());
  const auto n = static_cast<std::size_t>(transpose_b ? bs[bs.size() - 2] : bs.back());
  Shape shape = broadcast_shape(a_batch, b_batch);
  const Shape batch = shape;
  shape.push_back(static_cast<std::int64_t>(m));
  shape.push_back(static_cast<std::int64_t>(n));
  Tensor y(type, shape);
  for (std::size_t o = 0; o < y.size(); ++o) {
    const std::vector<std::size_t> c = coords(shape, o);
    const std::vector<std::size_t> bc(c.begin(), c.end() - 2);
    const std::size_t i = c[c.size() - 2], j = c.back();
    std::vector<std::size_t> ac = broadcast_coords(a_batch, bc),
                             bcc = broadcast_coords(b_batch, bc);
    ac.resize(ac.size() + 2);
    bcc.resize(bcc.size() + 2);
    wide_t<T> sum{};
    for (std::size_t p = 0; p < k; ++p) {
      ac[ac.size() - 2] = transpose_a ? p : i;
      ac.back() = transpose_a ? i : p;
      bcc[bcc.size() - 2] = transpose_b ? j : p;
      bcc.back() = transpose_b ? p : j;
      sum += widen(a.data<T>()[position(as, ac)]) * widen(b.data<T>()[position(bs, bcc)]);
    }
    y.data<T>()[o] = narrow<T>(sum);
  }
  return y;
}

/// Softmax along `axis`: exp(x - max) / sum(exp(x - max)) over each slice, in double.
template <class T>
std::vector<double> softmax(const Tensor& x, std::size_t axis) {
  const Shape& s = x.shape();
  const auto value = [&x](std::size_t i) { return static_cast<double>(ordered(x.data<T>()[i])); };
  std::vector<double> y(x.size());
  // Each slice's maximum and sum, found at its first element and kept by that position.
  std::vector<double> max(x.size()), sum(x.size());
  for (std::size_t o = 0; o < x.size(); ++o) {
    std::vector<std::size_t> c = coords(s, o);
    const std::size_t at = c[axis];
    c[axis] = 0;
    const std::size_t slice = position(s, c);
    if (at == 0) {
      double m = -std::numeric_limits<double>::infinity(), total = 0;
      for (c[axis] = 0; c[axis] < static_cast<std::size_t>(s[axis]); ++c[axis])
        m = std::max(m, value(position(s, c)));
      for (c[axis] = 0; c[axis] < static_cast<std::size_t>(s[axis]); ++c[axis])
        total += std::exp(value(position(s, c)) - m);
      max[slice] = m;
      sum[slice] = total;
    }
    y[o] = std::exp(value(o) - max[slice]) / sum[slice];
  }
  return y;
}

/// LogSoftmax along `axis`: log(exp(x) / sum(exp(x))) over each slice, in double, as the
/// logarithm of the quotient written out: x - log(sum(exp(x))), the sum taken relative to the
/// slice's maximum so that it is finite.
template <class T>
std::vector<double> log_softmax(const Tensor& x, std::size_t axis) {
  const Shape& s = x.shape();
  const auto value = [&x](std::size_t i) { return static_cast<double>(ordered(x.data<T>()[i])); };
  std::vector<double> y(x.size());
  for (std::size_t o = 0; o < x.size(); ++o) {
    std::vector<std::size_t> c = coords(s, o);
    double m = -std::numeric_limits<double>::infinity(), total = 0;
    for (c[axis] = 0; c[axis] < static_cast<std::size_t>(s[axis]); ++c[axis])
      m = std::max(m, value(position(s, c)));
    for (c[axis] = 0; c[axis] < static_cast<std::size_t>(s[axis]); ++c[axis])
      total += std::exp(value(position(s, c)) - m);
    y[o] = value(o) - (m + std::log(total));
  }
  return y;
}

enum class Reduction { max, min, sum, prod, mean, l1, l2 };

/// The reductions over `axes` (distinct, non-negative), the reduced dims kept as 1 or dropped.
/// Floats are reduced in double; integers wrap, Mean divides with truncation and L2 takes the
/// square root rounded toward zero. An empty extent gives the lowest finite value (Max),
/// min_of_nothing() (Min), 1 (Prod), NaN (Mean of floats) or 0.
template <class T>
Tensor reduce(Reduction kind, const Tensor& x, const std::set<std::size_t>& axes, bool keep_dims,
              ElementType type) {
  const Shape& s = x.shape();
  Shape kept;  // the output with every reduced dim kept as 1
  for (std::size_t d = 0; d < s.size(); ++d) kept.push_back(axes.count(d) ? 1 : s[d]);
  Shape shape;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (keep_dims || !axes.count(d)) shape.push_back(kept[d]);
  const std::size_t outputs = count(kept);
  std::vector<wide_t<T>> acc(outputs, kind == Reduction::prod ? wide_t<T>(1) : wide_t<T>(0));
  std::vector<long double> extreme(outputs, kind == Reduction::max
                                                ? -std::numeric_limits<long double>::infinity()
                                                : std::numeric_limits<long double>::infinity());
  std::vector<std::size_t> seen(outputs, 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::vector<std::size_t> c = coords(s, i);
    for (const std::size_t d : axes) c[d] = 0;
    const std::size_t o = position(kept, c);
    const T v = x.data<T>()[i];
    const wide_t<T> w = widen(v);
    ++seen[o];
    switch (kind) {
      case Reduction::max:
        extreme[o] = std::max(extreme[o], ordered(v));
        break;
      case Reduction::min:
        extreme[o] = std::min(extreme[o], ordered(v));
        break;
      case Reduction::sum:
      case Reduction::mean:
        acc[o] += w;
        break;
      case Reduction::prod:
        acc[o] *= w;
        break;
      case Reduction::l1:
        acc[o] += ordered(v) < 0 ? wide_t<T>(0) - w : w;
        break;
      case Reduction::l2:
        acc[o] += w * w;
        break;
    }
  }
  Tensor y(type, shape);
  for (std::size_t o = 0; o < outputs; ++o) {
    T& out = y.data<T>()[o];
    if (kind == Reduction::max || kind == Reduction::min) {
      out = seen[o] ? T(static_cast<compute_t<T>>(extreme[o]))
                    : (kind == Reduction::max ? lowest_value<T>() : min_of_nothing<T>());
    } else if (kind == Reduction::mean) {
      if constexpr (is_float_storage_v<T>)
        out = narrow<T>(seen[o] ? acc[o] / static_cast<double>(seen[o])
                                : std::numeric_limits<double>::quiet_NaN());
      else if constexpr (std::is_signed_v<T>)
        out = seen[o] ? static_cast<T>(static_cast<std::int64_t>(acc[o]) /
                                       static_cast<std::int64_t>(seen[o]))
                      : T{};
      else
        out = seen[o] ? static_cast<T>(acc[o] / seen[o]) : T{};
    } else if (kind == Reduction::l2) {
      if constexpr (is_float_storage_v<T>)
        out = narrow<T>(std::sqrt(acc[o]));
      else
        out = static_cast<T>(std::sqrt(static_cast<double>(acc[o])));
    } else {
      out = narrow<T>(acc[o]);
    }
  }
  return y;
}

/// An element-wise binary op over NumPy-broadcast inputs: out = f(a, b), f taking and giving
/// wide_t<T> for integers and compute_t<T> for floats.
template <class T, class F>
Tensor binary(const Tensor& a, const Tensor& b, F f) {
  const Shape shape = broadcast_shape(a.shape(), b.shape());
  Tensor y(a.element_type(), shape);
  for (std::size_t o = 0; o < y.size(); ++o) {
    const std::vector<std::size_t> c = coords(shape, o);
    const T x = a.data<T>()[position(a.shape(), broadcast_coords(a.shape(), c))];
    const T z = b.data<T>()[position(b.shape(), broadcast_coords(b.shape(), c))];
    if constexpr (is_float_storage_v<T>)
      y.data<T>()[o] = T(f(static_cast<compute_t<T>>(x), static_cast<compute_t<T>>(z)));
    else
      y.data<T>()[o] = static_cast<T>(f(widen(x), widen(z)));
  }
  return y;
}

/// An element-wise unary op: out = f(x), f taking and giving compute_t<T> for floats and
/// wide_t<T> for integers.
template <class T, class F>
Tensor unary(const Tensor& x, F f) {
  Tensor y(x.element_type(), x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const T v = x.data<T>()[i];
    if constexpr (is_float_storage_v<T>)
      y.data<T>()[i] = T(f(static_cast<compute_t<T>>(v)));
    else
      y.data<T>()[i] = static_cast<T>(f(widen(v)));
  }
  return y;
}

}  // namespace irlite::test::reference

#pragma once
// Plain references for BatchNormInference, MVN and NormalizeL2, written from the
// specifications' formulas in double on values given as doubles: each element's group (the
// elements that agree with it off the reduced axes) is named by its coordinates with the
// reduced ones set to 0, and its sums gathered in that slot. The ops round to the type, so
// comparisons allow a few ulps of it.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "irlite/irlite.hpp"
#include "reference/walk.hpp"

namespace irlite::test::reference {

/// (x - mean[c]) / sqrt(variance[c] + epsilon) * gamma[c] + beta[c], c the index along axis 1.
inline std::vector<double> batch_norm(const std::vector<double>& x, const Shape& shape,
                                      const std::vector<double>& gamma,
                                      const std::vector<double>& beta,
                                      const std::vector<double>& mean,
                                      const std::vector<double>& variance, double epsilon) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t c = coords(shape, i)[1];
    y[i] = (x[i] - mean[c]) / std::sqrt(variance[c] + epsilon) * gamma[c] + beta[c];
  }
  return y;
}

namespace norm_detail {
/// The group of element i: its position with every reduced coordinate set to 0, which elements
/// that agree off the reduced axes share.
inline std::size_t group_of(const Shape& shape, const std::vector<bool>& reduced, std::size_t i) {
  std::vector<std::size_t> c = coords(shape, i);
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) c[d] = 0;
  return position(shape, c);
}
}  // namespace norm_detail

/// MVN: x - mean over the group; with normalize_variance divided by sqrt(var + eps) when
/// `inside`, else by sqrt(var) + eps.
inline std::vector<double> mvn(const std::vector<double>& x, const Shape& shape,
                               const std::vector<bool>& reduced, bool normalize_variance,
                               double eps, bool inside) {
  std::vector<double> sum(x.size(), 0), n(x.size(), 0), var(x.size(), 0), y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t g = norm_detail::group_of(shape, reduced, i);
    sum[g] += x[i];
    n[g] += 1;
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t g = norm_detail::group_of(shape, reduced, i);
    const double d = x[i] - sum[g] / n[g];
    var[g] += d * d;
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t g = norm_detail::group_of(shape, reduced, i);
    y[i] = x[i] - sum[g] / n[g];
    if (!normalize_variance) continue;
    const double v = var[g] / n[g];
    y[i] /= inside ? std::sqrt(v + eps) : std::sqrt(v) + eps;
  }
  return y;
}

/// NormalizeL2: x / sqrt(sum + eps) (add) or x / sqrt(max(sum, eps)), the sum of the group's
/// squares; with no axes at all, 0 for a zero element and 1 for any other (OpenVINO's reading of
/// "each element divided by itself").
inline std::vector<double> normalize_l2(const std::vector<double>& x, const Shape& shape,
                                        const std::vector<bool>& reduced, double eps, bool add,
                                        bool no_axes) {
  std::vector<double> squares(x.size(), 0), y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    squares[norm_detail::group_of(shape, reduced, i)] += x[i] * x[i];
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (no_axes) {
      y[i] = x[i] == 0 ? 0.0 : 1.0;
      continue;
    }
    const double sum = squares[norm_detail::group_of(shape, reduced, i)];
    y[i] = x[i] / std::sqrt(add ? sum + eps : std::max(sum, eps));
  }
  return y;
}

}  // namespace irlite::test::reference

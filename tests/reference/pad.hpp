#pragma once
// A plain reference for Pad-1/12, from the specification: each output element found on its own
// by walking its coordinate back into the input along every axis (constant: outside is the pad
// value; edge: the nearest end; reflect: mirrored about the end element; symmetric: mirrored
// with the end element repeated). Negative pads start or stop the output inside the input.

#include <cstdint>
#include <string>
#include <vector>

#include "irlite/shape.hpp"

namespace irlite::test::reference {

inline std::vector<double> pad(const std::string& mode, const Shape& in,
                               const std::vector<std::int64_t>& begin,
                               const std::vector<std::int64_t>& end,
                               const std::vector<double>& data, double value) {
  const std::size_t rank = in.size();
  Shape out(rank);
  std::size_t count = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    out[d] = static_cast<std::size_t>(static_cast<std::int64_t>(in[d]) + begin[d] + end[d]);
    count *= out[d];
  }
  std::vector<double> result(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t rest = i;
    std::vector<std::int64_t> c(rank);
    for (std::size_t d = rank; d-- > 0;) {
      c[d] = static_cast<std::int64_t>(rest % out[d]);
      rest /= out[d];
    }
    bool outside = false;
    std::size_t at = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      const auto n = static_cast<std::int64_t>(in[d]);
      std::int64_t x = c[d] - begin[d];
      if (x < 0 || x >= n) {
        if (mode == "constant") {
          outside = true;
        } else if (mode == "edge") {
          x = x < 0 ? 0 : n - 1;
        } else if (mode == "reflect") {
          x = x < 0 ? -x : (n - 1) - (x - (n - 1));
        } else {  // symmetric
          x = x < 0 ? -1 - x : n - 1 - (x - n);
        }
      }
      at = at * in[d] + static_cast<std::size_t>(outside ? 0 : x);
    }
    result[i] = outside ? value : data[at];
  }
  return result;
}

}  // namespace irlite::test::reference

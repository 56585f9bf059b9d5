#include "irlite/outputs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "irlite/error.hpp"

namespace irlite {

Outputs::iterator Outputs::find(std::string_view name) {
  return std::find_if(items_.begin(), items_.end(),
                      [&](const value_type& item) { return item.first == name; });
}

Outputs::const_iterator Outputs::find(std::string_view name) const {
  return std::find_if(items_.begin(), items_.end(),
                      [&](const value_type& item) { return item.first == name; });
}

Tensor& Outputs::at(std::string_view name) {
  return const_cast<Tensor&>(std::as_const(*this).at(name));
}

const Tensor& Outputs::at(std::string_view name) const {
  const auto it = find(name);
  if (it != end()) return it->second;
  std::string names;
  for (const value_type& item : items_) names += (names.empty() ? "'" : ", '") + item.first + "'";
  throw Error(ErrorCode::usage, fmt::format("the run has no output '{}' (outputs: {})", name,
                                            names.empty() ? "none" : names));
}

}  // namespace irlite

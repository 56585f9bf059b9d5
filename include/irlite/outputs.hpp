#pragma once
// What a run returns: the model's outputs by name, in the model's order.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "irlite/tensor.hpp"

namespace irlite {

/// The outputs of a run: one (name, tensor) pair per model output, in Model::outputs() order.
/// Iterates like a map (`for (const auto& [name, tensor] : outputs)`, `it->second`) but keeps
/// the model's order instead of sorting the names. Lookups by name compare the whole name and
/// take the first output of that name.
class Outputs {
 public:
  using value_type = std::pair<std::string, Tensor>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  /// No outputs.
  Outputs() = default;
  /// The pairs, in the order given.
  explicit Outputs(std::vector<value_type> items) : items_(std::move(items)) {}

  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }

  /// The pair of output `index` (0-based, Model::outputs() order); not checked.
  value_type& operator[](std::size_t index) { return items_[index]; }
  const value_type& operator[](std::size_t index) const { return items_[index]; }

  /// The tensor of output `name`. Throws Error(usage) naming the outputs when there is none.
  Tensor& at(std::string_view name);
  const Tensor& at(std::string_view name) const;
  /// The pair of output `name`, or end().
  iterator find(std::string_view name);
  const_iterator find(std::string_view name) const;
  /// Whether an output is called `name`.
  bool contains(std::string_view name) const { return find(name) != end(); }

 private:
  std::vector<value_type> items_;
};

}  // namespace irlite

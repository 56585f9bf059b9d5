#pragma once
// Strict reading of a layer's <data> attributes. Every failure is an Error(format) that names the
// attribute and quotes its text; the loader adds the file, line and layer.

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/text.hpp"
#include "irlite/element_type.hpp"
#include "irlite/shape.hpp"

namespace irlite {

class Attributes {
 public:
  Attributes() = default;
  explicit Attributes(std::vector<std::pair<std::string, std::string>> items)
      : items_(std::move(items)) {}
  Attributes(std::initializer_list<std::pair<std::string, std::string>> items) : items_(items) {}

  /// Empties the list but keeps its storage, so that the loader can refill it for every layer.
  void clear() { items_.clear(); }
  void add(std::string_view name, std::string_view value) { items_.emplace_back(name, value); }

  bool has(std::string_view name) const { return find(name) != nullptr; }
  /// The raw text; nullptr when absent.
  const std::string* find(std::string_view name) const;
  /// The raw text of a required attribute.
  const std::string& text(std::string_view name) const;

  /// A decimal int64 (no junk, no overflow).
  std::int64_t get_int(std::string_view name) const;
  std::int64_t get_int(std::string_view name, std::int64_t fallback) const;
  /// A non-negative decimal integer that fits uint64.
  std::uint64_t get_uint(std::string_view name) const;
  /// A number, the whole text (blanks around it aside) in the form strtod reads, "inf" and
  /// "-inf" included.
  double get_double(std::string_view name) const;
  /// true/false/1/0, any letter case.
  bool get_bool(std::string_view name, bool fallback) const;
  /// One of `words`, any letter case; returns its index.
  std::size_t get_enum(std::string_view name, std::initializer_list<std::string_view> words) const;
  std::size_t get_enum(std::string_view name, std::span<const std::string_view> words) const;
  /// An element type in either spelling.
  ElementType get_element_type(std::string_view name) const;
  ElementType get_element_type(std::string_view name, ElementType fallback) const;
  /// A partial shape (`1,?,2..8`, `...`, empty = scalar).
  PartialShape get_partial_shape(std::string_view name) const;
  /// A static shape: comma-separated non-negative integers, empty = scalar.
  Shape get_shape(std::string_view name) const;
  /// A list of non-negative integers, each of which may also be written as a number with a zero
  /// fraction (`1.0,2.0`, as some converters write a pool's dilations); a fraction that is not
  /// zero ("1.5") is an error.
  Shape get_whole_numbers(std::string_view name) const;
  /// A list of numbers, each as get_double() reads one, separated by commas; empty = none.
  std::vector<double> get_doubles(std::string_view name) const;
  /// A list of decimal int64s, separated by commas; empty = none.
  std::vector<std::int64_t> get_ints(std::string_view name) const;
  /// A bit mask: a comma-separated list of 0s and 1s, empty = no bits.
  std::vector<bool> get_mask(std::string_view name) const;

  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

}  // namespace irlite

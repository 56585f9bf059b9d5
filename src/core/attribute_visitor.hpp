#pragma once
// One description of an op's attributes, used both to read them from a layer's <data> and to
// print them: an op keeps its attributes in a struct whose visit(AttributeVisitor&) names each
// field once, with its word list and default. AttributeReader fills the fields (strictly, as
// Attributes reads), AttributeWriter prints them in the same order, so the words an attribute
// is parsed from are the words it is shown with.
//
//   struct SoftmaxAttributes {
//     std::int64_t axis = 1;
//     void visit(AttributeVisitor& v) { v.on("axis", axis, 1); }
//   };
//   create:       auto attrs = read_attributes<SoftmaxAttributes>(layer_attributes);
//   attributes(): return print_attributes(attrs_);

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/attributes.hpp"
#include "irlite/element_type.hpp"

namespace irlite {

class AttributeVisitor {
 public:
  virtual ~AttributeVisitor() = default;

  /// A required integer, or an optional one with its default.
  virtual void on(std::string_view name, std::int64_t& value) = 0;
  virtual void on(std::string_view name, std::int64_t& value, std::int64_t fallback) = 0;
  /// An optional boolean (true/false/1/0, any letter case).
  virtual void on(std::string_view name, bool& value, bool fallback) = 0;
  /// A required element type, or an optional one with its default.
  virtual void on(std::string_view name, ElementType& value) = 0;
  virtual void on(std::string_view name, ElementType& value, ElementType fallback) = 0;
  /// One of `words` (any letter case when read), kept as its index; required when `fallback`
  /// is nullopt.
  virtual void on_word(std::string_view name, std::size_t& index,
                       std::span<const std::string_view> words,
                       std::optional<std::size_t> fallback) = 0;

  /// An enum whose values are the indexes of `words`.
  template <class E>
  void on(std::string_view name, E& value, std::span<const std::string_view> words) {
    std::size_t index = static_cast<std::size_t>(value);
    on_word(name, index, words, std::nullopt);
    value = static_cast<E>(index);
  }
  template <class E>
  void on(std::string_view name, E& value, std::span<const std::string_view> words, E fallback) {
    std::size_t index = static_cast<std::size_t>(value);
    on_word(name, index, words, static_cast<std::size_t>(fallback));
    value = static_cast<E>(index);
  }
};

/// Fills the fields from a layer's attributes; every failure is Attributes' Error(format).
class AttributeReader final : public AttributeVisitor {
 public:
  explicit AttributeReader(const Attributes& attributes) : attributes_(attributes) {}

  void on(std::string_view name, std::int64_t& value) override {
    value = attributes_.get_int(name);
  }
  void on(std::string_view name, std::int64_t& value, std::int64_t fallback) override {
    value = attributes_.get_int(name, fallback);
  }
  void on(std::string_view name, bool& value, bool fallback) override {
    value = attributes_.get_bool(name, fallback);
  }
  void on(std::string_view name, ElementType& value) override {
    value = attributes_.get_element_type(name);
  }
  void on(std::string_view name, ElementType& value, ElementType fallback) override {
    value = attributes_.get_element_type(name, fallback);
  }
  void on_word(std::string_view name, std::size_t& index, std::span<const std::string_view> words,
               std::optional<std::size_t> fallback) override {
    index = fallback && !attributes_.has(name) ? *fallback : attributes_.get_enum(name, words);
  }
  using AttributeVisitor::on;

 private:
  const Attributes& attributes_;
};

/// Prints the fields as (name, text) pairs, in the order visit() names them.
class AttributeWriter final : public AttributeVisitor {
 public:
  void on(std::string_view name, std::int64_t& value) override { add(name, std::to_string(value)); }
  void on(std::string_view name, std::int64_t& value, std::int64_t) override { on(name, value); }
  void on(std::string_view name, bool& value, bool) override {
    add(name, value ? "true" : "false");
  }
  void on(std::string_view name, ElementType& value) override {
    add(name, std::string(to_string(value)));
  }
  void on(std::string_view name, ElementType& value, ElementType) override { on(name, value); }
  void on_word(std::string_view name, std::size_t& index, std::span<const std::string_view> words,
               std::optional<std::size_t>) override {
    add(name, index < words.size() ? std::string(words[index]) : std::to_string(index));
  }
  using AttributeVisitor::on;

  std::vector<std::pair<std::string, std::string>> take() { return std::move(items_); }

 private:
  void add(std::string_view name, std::string text) { items_.emplace_back(name, std::move(text)); }
  std::vector<std::pair<std::string, std::string>> items_;
};

/// A struct of attributes read from a layer: `A` starts from `initial` (fields visit() does not
/// name keep their values, as a version number does), then each named field is read.
template <class A>
A read_attributes(const Attributes& attributes, A initial = {}) {
  AttributeReader reader(attributes);
  initial.visit(reader);
  return initial;
}

/// The attributes as `Op::attributes()` shows them.
template <class A>
std::vector<std::pair<std::string, std::string>> print_attributes(A attributes) {
  AttributeWriter writer;
  attributes.visit(writer);
  return writer.take();
}

}  // namespace irlite

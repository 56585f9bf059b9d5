#pragma once
// One description of an op's attributes, used both to read them from a layer's <data> and to
// print them: an op keeps its attributes in a struct whose visit(AttributeVisitor&) names each
// field once, with its kind, word list and default. AttributeReader fills the fields (strictly,
// as Attributes reads), AttributeWriter prints them in the same order, so the words an attribute
// is parsed from are the words it is shown with.
//
//   struct SoftmaxAttributes {
//     std::int64_t axis = 1;
//     void visit(AttributeVisitor& v) { v.on("axis", axis, 1); }
//   };
//   create:       auto attrs = read_attributes<SoftmaxAttributes>(layer_attributes);
//   attributes(): return print_attributes(attrs_);
//
// A rule on a value beyond its kind (an element type the op has no kernel for, min <= max) is
// said in visit() too, right after the attribute it is about, so that a layer's errors come in
// the order its attributes are read: require() for the usual "attribute 'x' = 'text': ..."
// message, a plain throw of Error(format) for a message of the op's own. Printing only meets
// values that were read through the same visit(), so it never refuses.

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
#include "irlite/shape.hpp"

namespace irlite {

class AttributeVisitor {
 public:
  virtual ~AttributeVisitor() = default;

  /// Whether the values are being read from a layer (else printed). For the rare attribute only
  /// one side sees: where a Const's bytes lie is read but not shown.
  virtual bool reading() const = 0;

  /// A required integer, or an optional one with its default.
  virtual void on(std::string_view name, std::int64_t& value) = 0;
  virtual void on(std::string_view name, std::int64_t& value, std::int64_t fallback) = 0;
  /// A required non-negative integer that fits uint64 (an offset, a size).
  virtual void on(std::string_view name, std::uint64_t& value) = 0;
  /// An optional boolean (true/false/1/0, any letter case).
  virtual void on(std::string_view name, bool& value, bool fallback) = 0;
  /// A required number, in the form strtod reads ("inf" and "-inf" included), or an optional
  /// one with its default.
  virtual void on(std::string_view name, double& value) = 0;
  virtual void on(std::string_view name, double& value, double fallback) = 0;
  /// A required element type, or an optional one with its default.
  virtual void on(std::string_view name, ElementType& value) = 0;
  virtual void on(std::string_view name, ElementType& value, ElementType fallback) = 0;
  /// A required partial shape (`1,?,2..8`, `...`, empty = scalar).
  virtual void on(std::string_view name, PartialShape& value) = 0;
  /// A required static shape, or list of non-negative integers (empty text = none).
  virtual void on(std::string_view name, Shape& value) = 0;
  /// An optional list of non-negative integers that may also be written with a zero fraction
  /// (`1.0,1.0`: Attributes::get_whole_numbers()), `fallback` when absent.
  virtual void on_whole_numbers(std::string_view name, Shape& value, const Shape& fallback) = 0;
  /// An optional list of numbers (`0.1,0.2`; empty text = none), `fallback` when absent.
  virtual void on(std::string_view name, std::vector<double>& values,
                  const std::vector<double>& fallback) = 0;
  /// An optional list of int64s (`-1`, `200,100`; empty text = none), `fallback` when absent.
  virtual void on(std::string_view name, std::vector<std::int64_t>& values,
                  const std::vector<std::int64_t>& fallback) = 0;
  /// A required bit mask, a list of 0s and 1s (`1,0,1`), or an optional one with its default.
  virtual void on(std::string_view name, std::vector<bool>& mask) = 0;
  virtual void on(std::string_view name, std::vector<bool>& mask,
                  const std::vector<bool>& fallback) = 0;
  /// One of `words` (any letter case when read), kept as its index; required when `fallback`
  /// is nullopt. A non-empty `alias` is a second name the layer may spell the attribute with
  /// (the two must then agree); it is printed under `name`.
  virtual void on_word(std::string_view name, std::string_view alias, std::size_t& index,
                       std::span<const std::string_view> words,
                       std::optional<std::size_t> fallback) = 0;

  /// An enum whose values are the indexes of `words`.
  template <class E>
  void on(std::string_view name, E& value, std::span<const std::string_view> words) {
    on_enum(name, {}, value, words, std::nullopt);
  }
  template <class E>
  void on(std::string_view name, E& value, std::span<const std::string_view> words, E fallback) {
    on_enum(name, {}, value, words, static_cast<std::size_t>(fallback));
  }
  /// The same, required, under `name` or `alias`.
  template <class E>
  void on(std::string_view name, std::string_view alias, E& value,
          std::span<const std::string_view> words) {
    on_enum(name, alias, value, words, std::nullopt);
  }
  /// An enum spelled `words[i]` for `values[i]`: a list may skip values (the ones an older
  /// version lacks) or give one several words (printed as the first).
  template <class E, std::size_t N>
  void on(std::string_view name, E& value, const std::string_view (&words)[N], const E (&values)[N],
          E fallback) {
    const auto index_of = [&](E e) {
      std::size_t i = 0;
      while (i < N && values[i] != e) ++i;
      return i;
    };
    std::size_t index = index_of(value);
    on_word(name, {}, index, words, index_of(fallback));
    if (index < N) value = values[index];
  }

  /// Refuses the value of `name` just named when `ok` is false: an Error(format) that quotes the
  /// layer's text, "attribute 'name' = 'text': what".
  void require(std::string_view name, bool ok, std::string_view what) {
    if (!ok) refuse(name, what);
  }

 protected:
  [[noreturn]] virtual void refuse(std::string_view name, std::string_view what) = 0;

 private:
  template <class E>
  void on_enum(std::string_view name, std::string_view alias, E& value,
               std::span<const std::string_view> words, std::optional<std::size_t> fallback) {
    std::size_t index = static_cast<std::size_t>(value);
    on_word(name, alias, index, words, fallback);
    value = static_cast<E>(index);
  }
};

/// Fills the fields from a layer's attributes; every failure is Attributes' Error(format).
class AttributeReader final : public AttributeVisitor {
 public:
  explicit AttributeReader(const Attributes& attributes) : attributes_(attributes) {}

  bool reading() const override { return true; }
  void on(std::string_view name, std::int64_t& value) override;
  void on(std::string_view name, std::int64_t& value, std::int64_t fallback) override;
  void on(std::string_view name, std::uint64_t& value) override;
  void on(std::string_view name, bool& value, bool fallback) override;
  void on(std::string_view name, double& value) override;
  void on(std::string_view name, double& value, double fallback) override;
  void on(std::string_view name, ElementType& value) override;
  void on(std::string_view name, ElementType& value, ElementType fallback) override;
  void on(std::string_view name, PartialShape& value) override;
  void on(std::string_view name, Shape& value) override;
  void on_whole_numbers(std::string_view name, Shape& value, const Shape& fallback) override;
  void on(std::string_view name, std::vector<double>& values,
          const std::vector<double>& fallback) override;
  void on(std::string_view name, std::vector<std::int64_t>& values,
          const std::vector<std::int64_t>& fallback) override;
  void on(std::string_view name, std::vector<bool>& mask) override;
  void on(std::string_view name, std::vector<bool>& mask,
          const std::vector<bool>& fallback) override;
  void on_word(std::string_view name, std::string_view alias, std::size_t& index,
               std::span<const std::string_view> words,
               std::optional<std::size_t> fallback) override;
  using AttributeVisitor::on;

 protected:
  [[noreturn]] void refuse(std::string_view name, std::string_view what) override;

 private:
  const Attributes& attributes_;
};

/// Prints the fields as (name, text) pairs, in the order visit() names them.
class AttributeWriter final : public AttributeVisitor {
 public:
  bool reading() const override { return false; }
  void on(std::string_view name, std::int64_t& value) override;
  void on(std::string_view name, std::int64_t& value, std::int64_t) override { on(name, value); }
  void on(std::string_view name, std::uint64_t& value) override;
  void on(std::string_view name, bool& value, bool) override;
  void on(std::string_view name, double& value) override;
  void on(std::string_view name, double& value, double) override { on(name, value); }
  void on(std::string_view name, ElementType& value) override;
  void on(std::string_view name, ElementType& value, ElementType) override { on(name, value); }
  void on(std::string_view name, PartialShape& value) override;
  void on(std::string_view name, Shape& value) override;
  void on_whole_numbers(std::string_view name, Shape& value, const Shape&) override {
    on(name, value);
  }
  void on(std::string_view name, std::vector<double>& values, const std::vector<double>&) override;
  void on(std::string_view name, std::vector<std::int64_t>& values,
          const std::vector<std::int64_t>&) override;
  void on(std::string_view name, std::vector<bool>& mask) override;
  void on(std::string_view name, std::vector<bool>& mask, const std::vector<bool>&) override {
    on(name, mask);
  }
  void on_word(std::string_view name, std::string_view alias, std::size_t& index,
               std::span<const std::string_view> words,
               std::optional<std::size_t> fallback) override;
  using AttributeVisitor::on;

  std::vector<std::pair<std::string, std::string>> take() { return std::move(items_); }

 protected:
  [[noreturn]] void refuse(std::string_view name, std::string_view what) override;

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

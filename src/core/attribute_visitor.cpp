#include "core/attribute_visitor.hpp"

#include "core/text.hpp"
#include "irlite/error.hpp"

namespace irlite {

// ---- AttributeReader ------------------------------------------------------------------------

void AttributeReader::on(std::string_view name, std::int64_t& value) {
  value = attributes_.get_int(name);
}

void AttributeReader::on(std::string_view name, std::int64_t& value, std::int64_t fallback) {
  value = attributes_.get_int(name, fallback);
}

void AttributeReader::on(std::string_view name, std::uint64_t& value) {
  value = attributes_.get_uint(name);
}

void AttributeReader::on(std::string_view name, bool& value, bool fallback) {
  value = attributes_.get_bool(name, fallback);
}

void AttributeReader::on(std::string_view name, double& value) {
  value = attributes_.get_double(name);
}

void AttributeReader::on(std::string_view name, double& value, double fallback) {
  value = attributes_.has(name) ? attributes_.get_double(name) : fallback;
}

void AttributeReader::on(std::string_view name, ElementType& value) {
  value = attributes_.get_element_type(name);
}

void AttributeReader::on(std::string_view name, ElementType& value, ElementType fallback) {
  value = attributes_.get_element_type(name, fallback);
}

void AttributeReader::on(std::string_view name, PartialShape& value) {
  value = attributes_.get_partial_shape(name);
}

void AttributeReader::on(std::string_view name, Shape& value) {
  value = attributes_.get_shape(name);
}

void AttributeReader::on_whole_numbers(std::string_view name, Shape& value, const Shape& fallback) {
  value = attributes_.has(name) ? attributes_.get_whole_numbers(name) : fallback;
}

void AttributeReader::on(std::string_view name, std::vector<double>& values,
                         const std::vector<double>& fallback) {
  values = attributes_.has(name) ? attributes_.get_doubles(name) : fallback;
}

void AttributeReader::on(std::string_view name, std::vector<std::int64_t>& values,
                         const std::vector<std::int64_t>& fallback) {
  values = attributes_.has(name) ? attributes_.get_ints(name) : fallback;
}

void AttributeReader::on(std::string_view name, std::vector<bool>& mask) {
  mask = attributes_.get_mask(name);
}

void AttributeReader::on(std::string_view name, std::vector<bool>& mask,
                         const std::vector<bool>& fallback) {
  mask = attributes_.has(name) ? attributes_.get_mask(name) : fallback;
}

void AttributeReader::on_word(std::string_view name, std::string_view alias, std::size_t& index,
                              std::span<const std::string_view> words,
                              std::optional<std::size_t> fallback) {
  // The attribute's own name wins; the alias is read when it alone is present.
  const bool by_alias = !alias.empty() && !attributes_.has(name) && attributes_.has(alias);
  const std::string_view source = by_alias ? alias : name;
  if (fallback && !attributes_.has(source)) {
    index = *fallback;
    return;
  }
  index = attributes_.get_enum(source, words);
  if (!alias.empty() && !by_alias && attributes_.has(alias) &&
      attributes_.get_enum(alias, words) != index)
    throw Error(ErrorCode::format, "attributes '" + std::string(name) + "' = '" +
                                       attributes_.text(name) + "' and '" + std::string(alias) +
                                       "' = '" + attributes_.text(alias) + "' disagree");
}

void AttributeReader::refuse(std::string_view name, std::string_view what) {
  throw Error(ErrorCode::format, "attribute '" + std::string(name) + "' = '" +
                                     attributes_.text(name) + "': " + std::string(what));
}

// ---- AttributeWriter ------------------------------------------------------------------------

void AttributeWriter::on(std::string_view name, std::int64_t& value) {
  add(name, std::to_string(value));
}

void AttributeWriter::on(std::string_view name, std::uint64_t& value) {
  add(name, std::to_string(value));
}

void AttributeWriter::on(std::string_view name, bool& value, bool) {
  add(name, value ? "true" : "false");
}

void AttributeWriter::on(std::string_view name, double& value) {
  add(name, number_text(value));
}

void AttributeWriter::on(std::string_view name, ElementType& value) {
  add(name, std::string(to_string(value)));
}

void AttributeWriter::on(std::string_view name, PartialShape& value) {
  add(name, to_string(value));
}

void AttributeWriter::on(std::string_view name, Shape& value) {
  add(name, to_string(value));
}

void AttributeWriter::on(std::string_view name, std::vector<double>& values,
                         const std::vector<double>&) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + number_text(values[i]);
  add(name, std::move(text));
}

void AttributeWriter::on(std::string_view name, std::vector<std::int64_t>& values,
                         const std::vector<std::int64_t>&) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + std::to_string(values[i]);
  add(name, std::move(text));
}

void AttributeWriter::on(std::string_view name, std::vector<bool>& mask) {
  add(name, mask_text(mask));
}

void AttributeWriter::on_word(std::string_view name, std::string_view, std::size_t& index,
                              std::span<const std::string_view> words, std::optional<std::size_t>) {
  add(name, index < words.size() ? std::string(words[index]) : std::to_string(index));
}

// Values printed were read through the same visit(), which refused the bad ones then.
void AttributeWriter::refuse(std::string_view name, std::string_view what) {
  throw Error(ErrorCode::format, "attribute '" + std::string(name) + "': " + std::string(what));
}

}  // namespace irlite

#include "loader/layer_ops.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace irlite::loader {
namespace {

/// Whether the attributes of `data` are `items`, in the same order.
bool same_attributes(const pugi::xml_node& data,
                     const std::vector<std::pair<std::string, std::string>>& items) {
  std::size_t k = 0;
  for (pugi::xml_attribute a = data.first_attribute(); a; a = a.next_attribute(), ++k)
    if (k == items.size() || items[k].first != a.name() || items[k].second != a.value())
      return false;
  return k == items.size();
}

}  // namespace

const LayerType& LayerTypes::resolve(const char* type, const char* opset) {
  // The first few pairs are searched in place; the others through a hash map, so that a
  // model whose layers all have types of their own is not read in quadratic time.
  const std::size_t few = std::min(types_.size(), kFewTypes);
  for (std::size_t k = 0; k < few; ++k) {
    const LayerType& t = types_[k];
    if (std::strcmp(t.text->type.c_str(), type) == 0 &&
        std::strcmp(t.text->opset.c_str(), opset) == 0)
      return t;
  }
  std::string key;
  if (types_.size() > kFewTypes) {
    // A NUL cannot be in either text: it separates them.
    key.append(type).push_back('\0');
    key.append(opset);
    const auto it = index_.find(key);
    if (it != index_.end()) return types_[it->second];
  }
  texts_->push_back({type, opset});
  const LayerTypeText& text = texts_->back();
  LayerType& entry = types_.emplace_back(LayerType{&text, nullptr, {}});
  entry.def = resolve_(text.type, text.opset, &entry.why);
  if (types_.size() > kFewTypes) {
    if (key.empty()) {
      key.append(type).push_back('\0');
      key.append(opset);
    }
    index_.emplace(std::move(key), types_.size() - 1);
  }
  return entry;
}

std::shared_ptr<const Op> SharedOps::get(const OpDef& def, const pugi::xml_node& data) {
  LastOp* last = nullptr;
  for (LastOp& l : last_ops_)
    if (l.def == &def) last = &l;
  if (!last) last = &last_ops_.emplace_back(LastOp{&def, {}, nullptr});
  if (last->op && same_attributes(data, last->attributes.items())) return last->op;
  attributes_.clear();
  for (pugi::xml_attribute a = data.first_attribute(); a; a = a.next_attribute())
    attributes_.add(a.name(), a.value());
  std::shared_ptr<const Op> op = def.create(attributes_);
  std::swap(last->attributes, attributes_);
  last->op = op;
  return op;
}

}  // namespace irlite::loader

#pragma once
// From a layer's type and <data> to its op. A model writes few (type, opset) pairs, in layers
// that repeat them, and repeats blocks of layers with the same <data>: each pair is resolved
// once, and a layer like the last one of its op shares that layer's op (ops are immutable).

#include <cstddef>
#include <deque>
#include <memory>
#include <pugixml.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/attributes.hpp"
#include "graph/graph.hpp"
#include "graph/op.hpp"

namespace irlite::loader {

/// A (type, opset) pair as written, with the op it resolves to (or why none does).
struct LayerType {
  const LayerTypeText* text;
  const OpDef* def;
  std::string why;
};

class LayerTypes {
 public:
  /// Resolves through `resolve`, which must outlive this.
  explicit LayerTypes(const OpResolver& resolve) : resolve_(resolve) {}

  /// The texts of the pairs met so far, in order of first use; the graph shares them from the
  /// start, and its nodes point into them.
  const std::shared_ptr<std::deque<LayerTypeText>>& texts() const { return texts_; }

  /// The pair a layer writes, resolved the first time it is met. The reference stays valid.
  const LayerType& resolve(const char* type, const char* opset);

 private:
  static constexpr std::size_t kFewTypes = 16;
  const OpResolver& resolve_;
  std::deque<LayerType> types_;  ///< in order of first use; a deque keeps references
  std::unordered_map<std::string, std::size_t> index_;  ///< beyond the first kFewTypes
  std::shared_ptr<std::deque<LayerTypeText>> texts_ = std::make_shared<std::deque<LayerTypeText>>();
};

class SharedOps {
 public:
  /// The op `def` makes of the attributes of `data` (none for a null node): the last one made
  /// for `def` when its attributes were the same, in the same order; otherwise a new one, which
  /// becomes the last. Throws what def.create throws.
  std::shared_ptr<const Op> get(const OpDef& def, const pugi::xml_node& data);

 private:
  struct LastOp {
    const OpDef* def;
    Attributes attributes;
    std::shared_ptr<const Op> op;
  };
  std::vector<LastOp> last_ops_;  ///< one per op in use
  Attributes attributes_;         ///< scratch space reused from layer to layer
};

}  // namespace irlite::loader

#pragma once
// The caller's custom ops (irlite/custom_op.hpp) as the loader and executor see them: an OpDef
// per registered op, whose ops adapt CustomOp to Op.

#include <string>
#include <string_view>
#include <vector>

#include "graph/op.hpp"
#include "irlite/custom_op.hpp"

namespace irlite {

/// The OpDefs of one load's custom ops. The graph holds it for as long as its nodes point into
/// it.
class CustomOpTable {
 public:
  explicit CustomOpTable(const CustomOps& ops);
  CustomOpTable(const CustomOpTable&) = delete;
  CustomOpTable& operator=(const CustomOpTable&) = delete;

  /// The op registered for exactly this layer type and version. nullptr when there is none:
  /// with the reason in *why when the type is registered for other versions only, with *why
  /// left empty when the type is not a custom one.
  const OpDef* find(std::string_view type, std::string_view opset, std::string* why) const;

 private:
  std::vector<CustomOpDef> custom_;
  std::vector<OpDef> defs_;  ///< defs_[i] is custom_[i]'s; type views custom_[i].type
};

}  // namespace irlite

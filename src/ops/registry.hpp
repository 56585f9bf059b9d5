#pragma once
// The explicit list of ops irlite has, keyed by (type, version), and the rule that maps a
// layer's `type` and `version="opsetN"` to one of them.

#include <span>
#include <string>
#include <string_view>

#include "graph/op.hpp"

namespace irlite {

/// Every registered op, in a stable order.
std::span<const OpDef> registered_ops();

/// The op for an IR layer: the type is matched case-insensitively (IR spellings such as `Const`
/// included), and `opsetN` selects the newest version introduced at or before opset N.
/// Returns nullptr with the reason (listing the versions irlite has) in *why.
const OpDef* resolve_op(std::string_view type, std::string_view opset, std::string* why);

/// Whether irlite has an op of this type, in any version: matched as layers are, without
/// letter case and with the IR's spellings (`Const`).
bool is_builtin_type(std::string_view type);

}  // namespace irlite

#pragma once
// The registry entry function of every op (ops/op_list.inc), declared for the ops' files and
// the registry.

#include "graph/op.hpp"

namespace irlite {

#define IRLITE_OP(make) OpDef make();
#include "ops/op_list.inc"
#undef IRLITE_OP

}  // namespace irlite

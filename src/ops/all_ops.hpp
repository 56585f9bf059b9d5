#pragma once
// The registry entry of every op, one function per (type, version), defined in the op's file.

#include "ops/op.hpp"

namespace irlite {

OpDef parameter_op();
OpDef constant_op();
OpDef result_op();
// Seed ops (declared by their files' authors):
OpDef segment_max_op();
OpDef embedding_segments_sum_op();
OpDef reduce_max_op();
OpDef topk_v1_op();
OpDef topk_v3_op();
OpDef topk_v11_op();

}  // namespace irlite

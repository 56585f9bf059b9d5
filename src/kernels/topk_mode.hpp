#pragma once
// The TopK attributes the kernels take, shared by the plain kernel (tests/reference/topk.hpp)
// and the optimised one (kernels/topk.hpp).

namespace irlite {

enum class TopKMode { max, min };
/// `none` leaves the order unspecified by the spec; irlite emits the `value` order so results
/// are deterministic.
enum class TopKSort { value, index, none };

}  // namespace irlite

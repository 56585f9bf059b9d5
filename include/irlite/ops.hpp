#pragma once
// What this build of irlite can run: the op types and versions, the opsets that hold them and
// the element types of their inputs and outputs.

#include <string_view>
#include <vector>

#include "irlite/element_type.hpp"

namespace irlite {

/// One input or output of an op and the element types it may have.
struct OpPortInfo {
  std::string_view name;  ///< as the op's specification calls it: "data", "k", "indices"
  std::vector<ElementType> element_types;
};

/// One supported op version.
struct OpInfo {
  std::string_view type;  ///< the canonical name: "TopK"
  int version = 0;        ///< 11 for TopK-11
  int since_opset = 0;    ///< the first opset that holds this version
  /// The last opset known to irlite that still holds this version: the opset before a newer
  /// version of the op takes over, else the newest opset irlite reads.
  int until_opset = 0;
  int min_inputs = 0;  ///< optional inputs come last
  int max_inputs = 0;
  /// One entry per input, max_inputs of them, then one per output; a variadic op (Concat),
  /// whose max_inputs is INT_MAX, has one entry for all its inputs. Where an input's type must
  /// equal another's (TopK's values and data), each lists every type it may have.
  std::vector<OpPortInfo> inputs;
  std::vector<OpPortInfo> outputs;
};

/// Every supported op version, in a stable order (the order `irlite ops` lists them).
std::vector<OpInfo> supported_ops();

}  // namespace irlite

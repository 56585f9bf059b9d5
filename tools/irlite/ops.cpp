// `irlite ops`: the op types and versions this build supports, from the library's registry.

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "ops/registry.hpp"

namespace irlite::cli {

int ops_command(bool json) {
  const auto ops = registered_ops();
  if (json) {
    auto doc = nlohmann::ordered_json::array();
    for (const OpDef& def : ops)
      doc.push_back({{"type", def.type},
                     {"version", def.version},
                     {"since_opset", def.since_opset},
                     {"inputs", {def.min_inputs, def.max_inputs}},
                     {"outputs", def.num_outputs}});
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  std::size_t width = 0;
  for (const OpDef& def : ops) width = std::max(width, op_display_name(def).size());
  for (const OpDef& def : ops) {
    const std::string inputs = def.min_inputs == def.max_inputs
                                   ? std::to_string(def.min_inputs)
                                   : fmt::format("{}..{}", def.min_inputs, def.max_inputs);
    // A version holds from its first opset until a newer version of the same op replaces it.
    int until = 0;
    for (const OpDef& other : ops)
      if (other.type == def.type && other.since_opset > def.since_opset &&
          (until == 0 || other.since_opset - 1 < until))
        until = other.since_opset - 1;
    const std::string opsets = until ? fmt::format("opset{}..opset{}", def.since_opset, until)
                                     : fmt::format("opset{}+", def.since_opset);
    fmt::print("{:<{}}  {:<16}  inputs {}  outputs {}\n", op_display_name(def), width, opsets,
               inputs, def.num_outputs);
  }
  return kExitOk;
}

}  // namespace irlite::cli

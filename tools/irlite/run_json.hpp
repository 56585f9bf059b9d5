#pragma once
// `irlite run --json` and the parts of it `irlite bench --json` shares: one JSON document with
// the model, its inputs and where they came from, the outputs with their statistics, the
// timings and the --expect comparisons.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "expect.hpp"
#include "inputs.hpp"

namespace irlite::cli {

/// The inputs fed: [{"name", "type", "shape", "source": "file"|"random", "file", "array",
/// "seed"}], "file" for data from a file ("array" too for a .npz) and "seed" for random data.
nlohmann::json inputs_json(const Model& model, const Inputs& inputs);

/// One tensor's type, shape and statistics: "min", "max", "mean" over the values that are not
/// NaN ("nan" and "inf" counts for floating-point types), and the first `values` values.
/// NaN and infinities appear as the strings "nan", "inf", "-inf".
nlohmann::json tensor_json(const Tensor& tensor, std::size_t values);

/// What `irlite run --json` prints.
struct RunReport {
  const Model* model = nullptr;
  const Inputs* inputs = nullptr;
  const std::vector<Tensor>* outputs = nullptr;
  std::vector<std::string> saved;                     ///< each output's file, when -o was given
  double load_ms = 0;                                 ///< Model::load, --shape and the Session
  double run_ms = 0;                                  ///< Session::run
  std::size_t values = 8;                             ///< values shown per output
  const std::vector<Comparison>* expected = nullptr;  ///< with --expect
};

nlohmann::json run_json(const RunReport& report);

}  // namespace irlite::cli

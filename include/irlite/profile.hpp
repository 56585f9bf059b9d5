#pragma once
// Where a run spent its time: one record per layer, read from Session::profile().

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "irlite/shape.hpp"

namespace irlite {

/// One layer of a profiled run. Times are steady_clock nanoseconds; a layer's time covers its
/// run-time shape rule, the allocation of its outputs and its kernel (not a layer observer).
struct LayerProfile {
  std::size_t layer = 0;  ///< index into Model::layers()
  std::int64_t id = 0;    ///< the IR layer id
  std::string name;
  std::string type;              ///< the op's canonical name: "TopK"
  int version = 0;               ///< the op version: 11 for TopK-11
  std::int64_t start_ns = 0;     ///< from the start of the run
  std::int64_t duration_ns = 0;  ///< never negative
  std::size_t input_bytes = 0;   ///< the bytes of every input the layer read
  std::size_t output_bytes = 0;  ///< the bytes of every output it wrote
  std::vector<Shape> input_shapes;
  std::vector<Shape> output_shapes;
  /// The layers that ran inside this one's kernel (LoadOptions::fuse_layers), as indices into
  /// Model::layers(), in order: their time is in this record's, the outputs are the last one's.
  std::vector<std::size_t> fused_layers;
};

/// A profiled run: its compute layers in the order they ran (Parameters, Consts and Results do
/// no work and are left out) and the time of the whole run, from the first layer to the last.
struct RunProfile {
  std::vector<LayerProfile> layers;
  std::int64_t total_ns = 0;
};

}  // namespace irlite

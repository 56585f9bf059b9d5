#pragma once
// `irlite run --dump DIR`: every layer's outputs of a run saved as .npy files, with an index.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"

namespace irlite::cli {

/// The file a layer's output is saved to: `ID_NAME.outPORT.npy`, NAME being the layer name made
/// safe (safe_file_stem) and cut to 100 characters, PORT the IR id of the output port.
std::string dump_file_name(const LayerInfo& layer, std::int64_t port);

/// Saves the outputs of each layer it is given (a Session::run observer) under a directory, and
/// then an index.json listing them.
class LayerDump {
 public:
  /// Creates `dir` when it is missing. Throws Error(io) naming it when it exists and is not a
  /// directory, or cannot be created.
  explicit LayerDump(std::filesystem::path dir);

  /// Writes each output of `layer` to dir/dump_file_name(layer, port). Throws Error(io) when a
  /// file cannot be written.
  void save(const LayerInfo& layer, std::span<const Tensor> outputs);

  /// Writes dir/index.json: {"model": source, "files": [...]}, one entry per file saved, in run
  /// order, with the layer's "id", "name", "type" (type-version), the output "port", its
  /// "element_type", "shape" and "file" (the name within dir). Throws Error(io) on failure.
  void write_index(const Model& model) const;

  const std::filesystem::path& dir() const { return dir_; }
  /// How many files save() wrote.
  std::size_t file_count() const { return entries_.size(); }

 private:
  struct Entry {
    std::int64_t id;
    std::string name;
    std::string type;
    std::int64_t port;
    ElementType element_type;
    Shape shape;
    std::string file;
  };
  std::filesystem::path dir_;
  std::vector<Entry> entries_;
};

}  // namespace irlite::cli

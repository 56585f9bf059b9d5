#pragma once
// What `irlite run` and `irlite bench` share before a run: loading the model with its --shape
// overrides, the Session's options, and the input tensors from -i files (.npy, or .npz archives
// feeding several inputs) or seeded random values.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "irlite/irlite.hpp"

namespace irlite::cli {

/// Loads `path` (weights from `weights`, or beside it when empty; f16 layers computing in
/// `precision`; element-wise layers fused into convolutions when `fuse`), prints its warnings
/// and applies the --shape texts. Throws UsageError for malformed --shape text. nullopt when ops irlite lacks
/// stop the model: every such layer has then been reported (see load_for_run).
std::optional<Model> load_model(const std::string& path, const std::string& weights,
                                InferencePrecision precision,
                                const std::vector<std::string>& shapes, bool fuse = true);

/// The Session's options from --threads (0: one per CPU) and the --max-memory text (empty: the
/// library's default).
SessionOptions session_options(unsigned threads, const std::string& max_memory);

/// Where an input's data came from.
struct InputSource {
  std::string file;        ///< the .npy, .npz or image file; empty for random data
  std::string member;      ///< the array's name in a .npz, else empty
  std::uint64_t seed = 0;  ///< for random data
  bool random() const { return file.empty(); }
  /// "x.npy", "in.npz:x" or "random (seed 7)".
  std::string describe() const;
};

/// The tensors a run is fed, by input name, and each input's source in Model::inputs() order.
struct Inputs {
  std::map<std::string, Tensor> tensors;
  std::vector<InputSource> sources;
};

/// Resolves the -i texts (`NAME=FILE.npy`, `FILE.npy` for a single-input model, `FILE.npz` for
/// every input its arrays name; a .jpg, .jpeg or .png file instead of a .npy is laid out as
/// `image` says) and makes random, seeded tensors for the inputs not given; those
/// must fit in `budget` bytes together. Throws UsageError for a malformed or repeated -i, and
/// Error(input) for a file that does not fit its input or names none.
Inputs prepare_inputs(const Model& model, const std::vector<std::string>& texts,
                      const ImageOptions& image, std::uint64_t seed, std::size_t budget);

}  // namespace irlite::cli

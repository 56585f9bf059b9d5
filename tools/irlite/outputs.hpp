#pragma once
// What `irlite run` does with the outputs of a run: their order, the files -o writes and
// --expect-dir reads, and the lookup of an output by name.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irlite/irlite.hpp"

namespace irlite::cli {

/// A file name stem from a name: characters other than ASCII letters, digits, '_', '-' and '.'
/// become '_', and a leading '.' (or an empty name) gets a '_' before it.
std::string safe_file_stem(const std::string& name);

/// The run's tensors, in Model::outputs() order.
std::vector<Tensor> output_tensors(const Outputs& results);

/// The output named `name` (PortInfo::name or one of its tensor names), as an index into
/// Model::outputs().
std::optional<std::size_t> find_output(const Model& model, std::string_view name);

/// "a, b, c", or "none".
std::string output_list(const Model& model);

/// The file name, without ".npy", that -o DIR gives each output, in Model::outputs() order:
/// characters a shell or a file system may trip on become '_', and a name made twice gets
/// `_2`, `_3`...
std::vector<std::string> output_file_stems(const Model& model);

/// Saves the outputs: into one uncompressed archive of NAME.npy arrays when `path` ends with
/// ".npz", else as DIR/STEM.npy files in the directory `path` (created when missing). Returns
/// each output's file: the archive, or its .npy. Throws Error(io) when a file cannot be written.
std::vector<std::string> save_outputs(const std::string& path, const Model& model,
                                      const std::vector<Tensor>& outputs);

}  // namespace irlite::cli

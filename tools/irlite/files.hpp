#pragma once
// The command's own files: where an error about one is placed, what an archive member may claim
// in memory, and writing an encoded image (.npy, .npz) out. Inputs are opened with the library's
// irlite::InputFile, regular files only.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "irlite/error.hpp"

namespace irlite::cli {

/// An error location that is a file alone: an input, an output or a folder the command uses.
inline ErrorContext file_context(std::string path) {
  ErrorContext context;
  context.file = std::move(path);
  return context;
}

/// An Error(input) about what a file holds (a bad .npy header, a corrupt archive), placed at
/// `source`.
[[noreturn]] void bad_content(const std::string& source, std::string message);

/// Writes `bytes` to `path`, replacing what it held. Throws Error(io) with the system's reason,
/// placed at the path, when it cannot be written.
void write_file(const std::filesystem::path& path, std::string_view bytes);

/// The machine's physical memory in bytes (SIZE_MAX when unknown): what a size read from a file
/// may ask the command to allocate at most.
std::size_t physical_memory();

}  // namespace irlite::cli

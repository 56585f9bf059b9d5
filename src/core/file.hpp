#pragma once
// Opening the files a user names (the model, its weights): InputFile, public so that the irlite
// command reads its .npy inputs the same way, and what a path that is not a regular file is.

#include <filesystem>
#include <string>

#include "irlite/input_file.hpp"

namespace irlite {

/// What `path` is when it exists and is not a regular file, e.g. "a directory" or "a FIFO";
/// empty otherwise.
std::string special_file_kind(const std::filesystem::path& path);

}  // namespace irlite

#pragma once
// A directory of the test's own under the system's temporary one. ctest runs test cases as
// separate processes side by side, so every name carries the process id and a counter: no two
// cases, and no two runs, ever share a file.

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace irlite::test {

/// A fresh directory, removed with everything in it when destroyed.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "irlite_test") {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  /// The path of `name` inside, as text (CLI arguments are text).
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

}  // namespace irlite::test

#include "files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

namespace irlite::cli {

void bad_content(const std::string& source, std::string message) {
  throw Error(ErrorCode::input, std::move(message), file_context(source));
}

void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (out) out.close();
  if (!out)
    throw Error(ErrorCode::io, fmt::format("cannot write: {}", std::strerror(errno)),
                file_context(path.string()));
}

std::size_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return SIZE_MAX;
  const auto n = static_cast<std::size_t>(pages), size = static_cast<std::size_t>(page);
  return n > SIZE_MAX / size ? SIZE_MAX : n * size;
}

}  // namespace irlite::cli

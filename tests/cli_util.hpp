#pragma once
// Running the `irlite` program from tests, as a user runs it: its output, exit status and
// one-line diagnostics. Only for test files built with IRLITE_CLI defined.

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace irlite::test {

/// The sample models of tests/data/cli/, with the trailing slash.
inline const std::string kCliData = std::string(IRLITE_TEST_DATA) + "/cli/";
/// The models of models/, with the trailing slash.
inline const std::string kModels = std::string(IRLITE_MODELS) + "/";

/// What a run of the program gave.
struct Outcome {
  int status = -1;
  std::string out, err;
  std::vector<std::string> err_lines() const;
};

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

inline std::string shell_quote(const std::string& arg) {
  std::string q = "'";
  for (const char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs `program` with `args` (stdout and stderr to files, so not a terminal) and a time limit
/// of 60 s.
inline Outcome run_program(const std::string& program, const std::vector<std::string>& args) {
  TempDir capture;
  std::string command = "timeout -k 5 60 " + shell_quote(program);
  for (const std::string& a : args) command.append(" ").append(shell_quote(a));
  command.append(" >").append(shell_quote(capture / "out"));
  command.append(" 2>").append(shell_quote(capture / "err"));
  const int raw = std::system(command.c_str());
  Outcome o;
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  o.out = read_bytes(capture.path / "out");
  o.err = read_bytes(capture.path / "err");
  return o;
}

/// Runs the irlite program with `args`, as run_program.
inline Outcome cli(const std::vector<std::string>& args) {
  return run_program(IRLITE_CLI, args);
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The lines of `text`, without their line ends.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream s(text);
  for (std::string line; std::getline(s, line);) lines.push_back(line);
  return lines;
}

inline std::vector<std::string> Outcome::err_lines() const {
  return lines_of(err);
}

/// Checks a failed command: exit `status`, exactly one line on stderr, `irlite: error: ` and
/// every one of `parts` in it.
inline void check_error(const Outcome& o, int status, const std::vector<std::string>& parts) {
  CAPTURE(o.out);
  CAPTURE(o.err);
  CHECK(o.status == status);
  const auto lines = o.err_lines();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("irlite: error: ", 0) == 0);
  for (const std::string& part : parts) CHECK_MESSAGE(contains(lines[0], part), part);
}

}  // namespace irlite::test

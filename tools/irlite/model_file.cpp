// Loading the model a subcommand is given: a weights file given in its place, and a model that
// cannot run because of ops irlite lacks, reported in full.

#include <fmt/format.h>

#include <filesystem>

#include "commands.hpp"

namespace irlite::cli {
namespace {

bool has_bin_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return ext == ".bin";
}

}  // namespace

void check_model_path(const std::string& path) {
  if (!has_bin_extension(path)) return;
  std::filesystem::path xml = path;
  xml.replace_extension(".xml");
  std::error_code ec;
  const std::string hint =
      std::filesystem::is_regular_file(xml, ec)
          ? fmt::format("; give the .xml ({} exists)", xml.string())
          : std::string("; give the model's .xml (the .bin is found beside it)");
  throw UsageError(path + " is a weights file" + hint);
}

std::optional<Model> load_for_run(const std::string& path, const LoadOptions& options) {
  check_model_path(path);
  std::optional<Error> first;
  try {
    return Model::load(path, options);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::unsupported) throw;
    first = e;
  }
  // Loading again past the first problem names every layer irlite cannot run, so that one
  // attempt shows all that the model needs.
  LoadOptions all = options;
  all.keep_going = true;
  const Model model = Model::load(path, all);
  std::size_t unsupported = 0;
  for (const Error& p : model.problems()) {
    if (p.code() != ErrorCode::unsupported) continue;
    print_error(p.what());
    ++unsupported;
  }
  if (unsupported == 0) throw *first;
  // The loader reports each missing op type once, with the count of its layers.
  print_hint(fmt::format(
      "{} op type{} cannot run; 'irlite ops' lists the ones irlite has, and 'irlite inspect {}' "
      "shows every layer and problem",
      unsupported, unsupported == 1 ? "" : "s", path));
  return std::nullopt;
}

}  // namespace irlite::cli

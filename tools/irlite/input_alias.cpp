// benchmark_app's `-i NAME:FILE`, accepted beside irlite's own `-i NAME=FILE`.

#include <filesystem>

#include "commands.hpp"

namespace irlite::cli {

std::string input_argument_alias(const std::string& text, const Model& model) {
  for (std::size_t eq = text.find('='); eq != std::string::npos; eq = text.find('=', eq + 1))
    if (model.find_input(text.substr(0, eq))) return text;
  std::error_code ec;
  if (std::filesystem::is_regular_file(text, ec)) return text;
  for (std::size_t colon = text.find(':'); colon != std::string::npos;
       colon = text.find(':', colon + 1)) {
    const std::string name = text.substr(0, colon);
    const bool drive_letter =
        name.size() == 1 && colon + 1 < text.size() && text[colon + 1] == '\\';
    if (!drive_letter && model.find_input(name)) return name + "=" + text.substr(colon + 1);
  }
  return text;
}

}  // namespace irlite::cli

#include "outputs.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "files.hpp"
#include "npy.hpp"
#include "npz.hpp"

namespace irlite::cli {

std::string safe_file_stem(const std::string& name) {
  std::string s = name;
  for (char& c : s) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '.';
    if (!safe) c = '_';
  }
  if (s.empty() || s[0] == '.') s = "_" + s;
  return s;
}

std::vector<Tensor> output_tensors(const Outputs& results) {
  std::vector<Tensor> outputs;
  for (const auto& [name, tensor] : results) outputs.push_back(tensor);
  return outputs;
}

std::optional<std::size_t> find_output(const Model& model, std::string_view name) {
  const auto& ports = model.outputs();
  for (std::size_t i = 0; i < ports.size(); ++i)
    if (ports[i].name == name) return i;
  for (std::size_t i = 0; i < ports.size(); ++i)
    for (const std::string& t : ports[i].tensor_names)
      if (t == name) return i;
  return std::nullopt;
}

std::string output_list(const Model& model) {
  std::string list;
  for (const PortInfo& p : model.outputs()) list += (list.empty() ? "" : ", ") + p.name;
  return list.empty() ? "none" : list;
}

std::vector<std::string> output_file_stems(const Model& model) {
  std::vector<std::string> stems;
  std::set<std::string> used;
  for (const PortInfo& out : model.outputs()) {
    std::string stem = safe_file_stem(out.name);
    for (int n = 2; used.count(stem); ++n)
      stem = safe_file_stem(out.name) + "_" + std::to_string(n);
    used.insert(stem);
    stems.push_back(std::move(stem));
  }
  return stems;
}

std::vector<std::string> save_outputs(const std::string& path, const Model& model,
                                      const std::vector<Tensor>& outputs) {
  const auto& ports = model.outputs();
  if (path.ends_with(".npz")) {
    std::vector<npz::Array> arrays;
    for (std::size_t i = 0; i < ports.size(); ++i) arrays.push_back({ports[i].name, outputs[i]});
    npz::write(path, arrays);
    return std::vector<std::string>(ports.size(), path);
  }
  const std::filesystem::path dir = path;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw Error(ErrorCode::io, fmt::format("cannot create the output directory: {}", ec.message()),
                file_context(path));
  }
  std::vector<std::string> files;
  const auto stems = output_file_stems(model);
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const auto file = dir / (stems[i] + ".npy");
    npy::write(file, outputs[i]);
    files.push_back(file.string());
  }
  return files;
}

}  // namespace irlite::cli

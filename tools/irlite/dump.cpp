#include "dump.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "files.hpp"
#include "npy.hpp"
#include "outputs.hpp"

namespace irlite::cli {
namespace {

Error io_error(const std::filesystem::path& path, std::string message) {
  return Error(ErrorCode::io, std::move(message), file_context(path.string()));
}

}  // namespace

std::string dump_file_name(const LayerInfo& layer, std::int64_t port) {
  // File systems take 255 bytes a name: the id keeps a cut name unique.
  return fmt::format("{}_{}.out{}.npy", layer.id, safe_file_stem(layer.name).substr(0, 100), port);
}

LayerDump::LayerDump(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  const auto status = std::filesystem::status(dir_, ec);
  if (std::filesystem::exists(status)) {
    if (!std::filesystem::is_directory(status))
      throw io_error(dir_, "--dump: this exists and is not a directory");
    return;
  }
  std::filesystem::create_directories(dir_, ec);
  if (ec)
    throw io_error(dir_, fmt::format("--dump: cannot create the directory: {}", ec.message()));
}

void LayerDump::save(const LayerInfo& layer, std::span<const Tensor> outputs) {
  for (std::size_t k = 0; k < outputs.size() && k < layer.outputs.size(); ++k) {
    const std::int64_t port = layer.outputs[k].port;
    const std::string file = dump_file_name(layer, port);
    npy::write(dir_ / file, outputs[k]);
    entries_.push_back({layer.id, layer.name, fmt::format("{}-{}", layer.type, layer.version), port,
                        outputs[k].element_type(), outputs[k].shape(), file});
  }
}

void LayerDump::write_index(const Model& model) const {
  using Json = nlohmann::ordered_json;
  Json files = Json::array();
  for (const Entry& e : entries_)
    files.push_back({{"id", e.id},
                     {"name", e.name},
                     {"type", e.type},
                     {"port", e.port},
                     {"element_type", std::string(to_string(e.element_type))},
                     {"shape", e.shape},
                     {"file", e.file}});
  const Json doc = {{"model", model.source()}, {"files", std::move(files)}};
  const auto path = dir_ / "index.json";
  std::ofstream out(path, std::ios::binary);
  // Names come from the model file and need not be valid UTF-8: replace bad bytes, never throw.
  if (out) out << doc.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
  out.close();
  if (!out) throw io_error(path, "cannot write the dump's index");
}

}  // namespace irlite::cli

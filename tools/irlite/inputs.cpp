#include "inputs.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <new>

#include "commands.hpp"
#include "files.hpp"
#include "image.hpp"
#include "npy.hpp"
#include "npz.hpp"
#include "summary.hpp"

namespace irlite::cli {
namespace {

// One -i argument resolved: an input and its .npy, or an archive.
struct InputArgument {
  std::size_t index = 0;  ///< into Model::inputs(); unused for an archive
  std::string path;
  bool archive = false;
};

bool is_archive(const std::string& path) {
  return path.ends_with(".npz");
}

// `-i NAME=FILE.npy`, `-i FILE.npy` or `-i FILE.npz`. Input and file names may both contain
// '=', so the split is the first '=' whose left side names an input of the model.
InputArgument resolve_input_file(const std::string& text, const Model& model) {
  if (text.empty() || text.back() == '=')
    throw UsageError(fmt::format("-i '{}': the file name is empty", text));
  for (std::size_t eq = text.find('='); eq != std::string::npos; eq = text.find('=', eq + 1)) {
    if (const auto index = model.find_input(text.substr(0, eq))) {
      std::string path = text.substr(eq + 1);
      if (is_archive(path))
        throw UsageError(
            fmt::format("-i {}: a .npz feeds the inputs its arrays name; write -i {}", text, path));
      return {*index, std::move(path)};
    }
  }
  if (is_archive(text)) return {0, text, true};
  const std::size_t n = model.inputs().size();
  const std::size_t eq = text.find('=');
  std::error_code ec;
  if (n == 1 && (eq == std::string::npos || std::filesystem::is_regular_file(text, ec)))
    return {0, text};
  if (eq == std::string::npos)
    throw UsageError(fmt::format("-i {}: the model has {} inputs ({}); write -i NAME=FILE.npy",
                                 text, n, input_list(model)));
  throw Error(ErrorCode::input, fmt::format("-i {}: the model has no input '{}' (inputs: {})", text,
                                            text.substr(0, eq), input_list(model)));
}

// Checks data read from `where` (a .npy, or an archive's member) against the model input, so
// that a mismatch names the file as well as the input.
Tensor fit_input(Tensor t, const PortInfo& port, const std::string& where) {
  // bf16 has no NumPy dtype: the file holds the raw bits as uint16.
  if (port.element_type == ElementType::bf16 && t.element_type() == ElementType::u16) {
    auto owner = std::make_shared<Tensor>(t);
    t = Tensor::view(ElementType::bf16, owner->shape(), owner->data(), owner);
  }
  if (t.element_type() != port.element_type || !port.shape.accepts(t.shape())) {
    std::string hint;
    if (port.element_type == ElementType::bf16)
      hint = " (a bf16 input is read from the raw bits as dtype '<u2', e.g. np.uint16)";
    else if (t.element_type() != port.element_type)
      hint = fmt::format(" (save it with dtype '{}')", npy::descr(port.element_type));
    throw Error(ErrorCode::input,
                fmt::format("input '{}' expects {} {}, but the file holds {} {}{}", port.name,
                            to_string(port.element_type), to_string(port.shape),
                            to_string(t.element_type()), to_string(t.shape()), hint),
                file_context(where));
  }
  return t;
}

// The shape a random input takes: each dynamic dimension its lower bound, or 1 when that is 0.
Shape random_shape(const PortInfo& port) {
  if (!port.shape.rank_is_static())
    throw Error(ErrorCode::input,
                fmt::format("input '{}' has a dynamic rank; give its shape with --shape {}=[dims] "
                            "or its data with -i {}=FILE.npy",
                            port.name, port.name, port.name));
  Shape shape;
  for (const Dimension& d : port.shape.dims())
    shape.push_back(d.is_static() || d.min() > 0 ? d.min() : 1);
  return shape;
}

// The bytes of a tensor of this shape, SIZE_MAX when they overflow.
std::size_t byte_size(const PortInfo& port, const Shape& shape) {
  const auto count = element_count(shape);
  const std::size_t width = element_size(port.element_type);
  if (!count || (width != 0 && static_cast<std::uint64_t>(*count) > SIZE_MAX / width))
    return SIZE_MAX;
  return static_cast<std::size_t>(*count) * width;
}

// The input's place in the model, for errors: the Parameter layer's.
ErrorContext input_context(const Model& model, std::size_t index) {
  for (const LayerInfo& layer : model.layers()) {
    if (layer.type != "Parameter" || layer.name != model.inputs()[index].name) continue;
    ErrorContext c;
    c.file = model.source();
    c.line = layer.line;
    c.column = layer.column;
    c.layer_id = layer.id;
    c.layer_name = layer.name;
    c.layer_type = fmt::format("{}-{}", layer.type, layer.version);
    return c;
  }
  ErrorContext c;
  c.file = model.source();
  return c;
}

// A random tensor for input `port`; a failure (a shape too large to allocate) names the input.
Tensor random_input(const PortInfo& port, const Shape& shape, std::uint64_t seed,
                    std::uint64_t stream) {
  try {
    return random_tensor(port.element_type, shape, seed, stream);
  } catch (const Error& e) {
    throw Error(e.code(),
                fmt::format("random input '{}' of {} {}: {}", port.name,
                            to_string(port.element_type), to_string(shape), e.message()),
                e.context());
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::input,
                fmt::format("random input '{}' of {} {}: out of memory", port.name,
                            to_string(port.element_type), to_string(shape)));
  }
}

// Collects the inputs given by -i, each once.
class Feeds {
 public:
  Feeds(const Model& model, Inputs& inputs)
      : model_(model), inputs_(inputs), origin_(model.inputs().size()) {}

  /// Records that -i `text` gives input `index`; throws UsageError when another -i gave it.
  void claim(std::size_t index, const std::string& text) {
    if (!origin_[index].empty())
      throw UsageError(fmt::format("input '{}' is given twice (-i {} and -i {})",
                                   model_.inputs()[index].name, origin_[index], text));
    origin_[index] = text;
  }
  void set(std::size_t index, Tensor tensor, InputSource source) {
    inputs_.tensors[model_.inputs()[index].name] = std::move(tensor);
    inputs_.sources[index] = std::move(source);
  }
  bool given(std::size_t index) const { return !origin_[index].empty(); }

 private:
  const Model& model_;
  Inputs& inputs_;
  std::vector<std::string> origin_;  ///< the -i text that gave each input
};

// Feeds every input an archive's arrays name; an array naming none is an error.
void add_archive(Feeds& feeds, const Model& model, const std::string& path) {
  std::vector<npz::Array> arrays = npz::read(path);
  std::string unknown;
  for (const npz::Array& a : arrays)
    if (!model.find_input(a.name))
      unknown += fmt::format("{}'{}'", unknown.empty() ? "" : ", ", a.name);
  if (!unknown.empty()) {
    throw Error(ErrorCode::input,
                fmt::format("arrays {} name no input of the model (inputs: {})", unknown,
                            input_list(model)),
                file_context(path));
  }
  for (const npz::Array& a : arrays) feeds.claim(*model.find_input(a.name), path);
  for (npz::Array& a : arrays) {
    const std::size_t index = *model.find_input(a.name);
    const std::string where = fmt::format("{}:{}", path, a.name);
    feeds.set(index, fit_input(std::move(a.tensor), model.inputs()[index], where),
              InputSource{path, a.name});
  }
}

}  // namespace

std::optional<Model> load_model(const std::string& path, const std::string& weights,
                                InferencePrecision precision,
                                const std::vector<std::string>& shapes, bool fuse) {
  const auto overrides = parse_shape_overrides(shapes);
  LoadOptions load;
  load.weights = weights;
  load.inference_precision = precision;
  load.fuse_layers = fuse;
  const auto loaded = load_for_run(path, load);
  if (!loaded) return std::nullopt;
  Model model = *loaded;
  for (const Error& w : model.warnings()) print_warning(w.what());
  if (!overrides.empty()) model = model.reshape(resolve_shape_overrides(overrides, model));
  return model;
}

SessionOptions session_options(unsigned threads, const std::string& max_memory) {
  SessionOptions options;
  options.num_threads = threads;
  if (!max_memory.empty()) options.max_memory_bytes = parse_byte_size(max_memory, "--max-memory");
  return options;
}

std::string InputSource::describe() const {
  if (random()) return fmt::format("random (seed {})", seed);
  return member.empty() ? file : fmt::format("{}:{}", file, member);
}

Inputs prepare_inputs(const Model& model, const std::vector<std::string>& texts,
                      const ImageOptions& image, std::uint64_t seed, std::size_t budget) {
  const auto& ports = model.inputs();
  image::Layout layout;
  layout.nhwc = image.nhwc;
  layout.rgb = image.rgb;
  if (!image.mean.empty()) layout.mean = image::parse_channel_values(image.mean, "--mean", false);
  if (!image.scale.empty())
    layout.scale = image::parse_channel_values(image.scale, "--scale", true);
  Inputs inputs;
  inputs.sources.resize(ports.size());
  Feeds feeds(model, inputs);
  for (const std::string& text : texts) {
    const InputArgument file = resolve_input_file(input_argument_alias(text, model), model);
    if (file.archive) {
      add_archive(feeds, model, file.path);
      continue;
    }
    feeds.claim(file.index, text);
    Tensor tensor =
        image::is_image_path(file.path)
            ? image::to_tensor(image::read(file.path), ports[file.index], layout, file.path)
            : fit_input(npy::read(file.path), ports[file.index], file.path);
    feeds.set(file.index, std::move(tensor), InputSource{file.path, ""});
  }

  // Random inputs, together, must fit in the budget too, checked before they are made: an input
  // of 10^9 elements would otherwise take seconds and gigabytes before any layer fails.
  std::size_t random_bytes = 0;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    if (feeds.given(i)) continue;
    const Shape shape = random_shape(ports[i]);
    const std::size_t bytes = byte_size(ports[i], shape);
    if (bytes > budget - random_bytes)
      throw Error(ErrorCode::input,
                  fmt::format("random input '{}' {} {} needs {} bytes, more than the {} left "
                              "of the memory budget of {} bytes (--max-memory); give its data "
                              "with -i {}=FILE.npy or a smaller --shape",
                              ports[i].name, to_string(ports[i].element_type), to_string(shape),
                              bytes == SIZE_MAX ? "2^64 or more" : std::to_string(bytes),
                              budget - random_bytes, budget, ports[i].name),
                  input_context(model, i));
    random_bytes += bytes;
    inputs.tensors[ports[i].name] = random_input(ports[i], shape, seed, i);
    inputs.sources[i].seed = seed;
  }
  return inputs;
}

}  // namespace irlite::cli

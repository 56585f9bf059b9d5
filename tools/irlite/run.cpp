// `irlite run`: feeds a model .npy files or seeded random inputs, prints a summary of every
// output and optionally saves the outputs as .npy files.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <new>
#include <set>

#include "commands.hpp"
#include "npy.hpp"
#include "summary.hpp"

namespace irlite::cli {
namespace {

struct InputFile {
  std::size_t index = 0;  ///< into Model::inputs()
  std::string path;
};

// `-i NAME=FILE.npy` or `-i FILE.npy`. Input and file names may both contain '=', so the
// split is the first '=' whose left side names an input of the model.
InputFile resolve_input_file(const std::string& text, const Model& model) {
  if (text.empty() || text.back() == '=')
    throw UsageError(fmt::format("-i '{}': the file name is empty", text));
  for (std::size_t eq = text.find('='); eq != std::string::npos; eq = text.find('=', eq + 1)) {
    if (const auto index = model.find_input(text.substr(0, eq)))
      return {*index, text.substr(eq + 1)};
  }
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

// Reads an input's .npy and checks it against the model input, so that a mismatch names the
// file as well as the input.
Tensor load_input(const InputFile& file, const PortInfo& port) {
  Tensor t = npy::read(file.path);
  ErrorContext context;
  context.file = file.path;
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
                std::move(context));
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

// A file name from an output name: path separators and other characters a shell or a file
// system may trip on become '_'.
std::string file_stem(const std::string& name) {
  std::string s = name;
  for (char& c : s) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '.';
    if (!safe) c = '_';
  }
  if (s.empty() || s[0] == '.') s = "_" + s;
  return s;
}

}  // namespace

int run_command(const RunOptions& options) {
  const auto overrides = parse_shape_overrides(options.shapes);
  SessionOptions session_options;
  session_options.num_threads = options.threads;
  if (!options.max_memory.empty())
    session_options.max_memory_bytes = parse_byte_size(options.max_memory, "--max-memory");
  LoadOptions load;
  load.weights = options.weights;
  const auto loaded = load_for_run(options.model, load);
  if (!loaded) return kExitError;
  Model model = *loaded;
  for (const Error& w : model.warnings()) print_warning(w.what());
  if (!overrides.empty()) model = model.reshape(resolve_shape_overrides(overrides, model));

  const auto& ports = model.inputs();
  std::vector<std::string> origin(ports.size()), source(ports.size());
  std::map<std::string, Tensor> feeds;
  for (const std::string& text : options.inputs) {
    const InputFile file = resolve_input_file(input_argument_alias(text, model), model);
    const PortInfo& port = ports[file.index];
    if (!origin[file.index].empty())
      throw UsageError(fmt::format("input '{}' is given twice (-i {} and -i {})", port.name,
                                   origin[file.index], text));
    origin[file.index] = text;
    source[file.index] = file.path;
    feeds[port.name] = load_input(file, port);
  }
  Session session(model, session_options);
  const std::size_t budget = session.options().max_memory_bytes;

  // Random inputs, together, must fit in the budget too, checked before they are made: an input
  // of 10^9 elements would otherwise take seconds and gigabytes before any layer fails.
  std::size_t random_bytes = 0;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    if (!origin[i].empty()) continue;
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
    feeds[ports[i].name] = random_input(ports[i], shape, options.seed, i);
    source[i] = fmt::format("random (seed {})", options.seed);
  }

  const auto results = session.run(feeds);

  std::filesystem::path dir;
  if (!options.output_dir.empty()) {
    dir = options.output_dir;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      ErrorContext context;
      context.file = options.output_dir;
      throw Error(ErrorCode::io,
                  fmt::format("cannot create the output directory: {}", ec.message()),
                  std::move(context));
    }
  }

  // Two aligned columns: the name, and the element type with the shape.
  std::vector<std::string> in_types, out_types;
  for (const PortInfo& p : ports) {
    const Tensor& t = feeds.at(p.name);
    in_types.push_back(fmt::format("{} {}", to_string(t.element_type()), to_string(t.shape())));
  }
  for (const PortInfo& p : model.outputs()) {
    const auto it = results.find(p.name);
    out_types.push_back(it == results.end()
                            ? std::string("?")
                            : fmt::format("{} {}", to_string(it->second.element_type()),
                                          to_string(it->second.shape())));
  }
  // Names come from the model and paths from the user: printed escaped, as diagnostics are.
  std::vector<std::string> in_names, out_names;
  for (const PortInfo& p : ports) in_names.push_back(escape_nonprintable(p.name));
  for (const PortInfo& p : model.outputs()) out_names.push_back(escape_nonprintable(p.name));
  std::size_t name_width = 0, type_width = 0;
  for (const auto* list : {&in_names, &out_names})
    for (const std::string& name : *list) name_width = std::max(name_width, name.size());
  for (const auto* list : {&in_types, &out_types})
    for (const std::string& t : *list) type_width = std::max(type_width, t.size());
  name_width = std::min<std::size_t>(name_width, 40);
  type_width = std::min<std::size_t>(type_width, 40);

  fmt::print("inputs:\n");
  if (ports.empty()) fmt::print("  (none)\n");
  for (std::size_t i = 0; i < ports.size(); ++i)
    fmt::print("  {:<{}}  {:<{}}  {}\n", in_names[i], name_width, in_types[i], type_width,
               escape_nonprintable(source[i]));
  fmt::print("outputs:\n");
  std::set<std::string> used_files;
  for (std::size_t i = 0; i < model.outputs().size(); ++i) {
    const PortInfo& out = model.outputs()[i];
    const auto it = results.find(out.name);
    if (it == results.end()) continue;
    const Tensor& t = it->second;
    fmt::print("  {:<{}}  {:<{}}  {}\n", out_names[i], name_width, out_types[i], type_width,
               summary_stats(t));
    if (!t.empty()) fmt::print("  {:<{}}  {}\n", "", name_width, summary_values(t, options.values));
    if (!dir.empty()) {
      std::string stem = file_stem(out.name);
      for (int n = 2; used_files.count(stem); ++n)
        stem = file_stem(out.name) + "_" + std::to_string(n);
      used_files.insert(stem);
      const auto path = dir / (stem + ".npy");
      npy::write(path, t);
      fmt::print("  {:<{}}  saved to {}\n", "", name_width, escape_nonprintable(path.string()));
    }
  }
  return kExitOk;
}

}  // namespace irlite::cli

// The `irlite` command: run and inspect OpenVINO IR models.
// Exit status: 0 success, 1 a model, input or file error, 2 a command-line error, 3 an output
// that differs from its `run --expect` reference.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "options.hpp"

namespace {

using namespace irlite::cli;

constexpr const char* kRunHelp = R"(
Inputs come from .npy files (-i NAME=FILE.npy, NAME being the input's Parameter layer
name or one of its tensor names; -i FILE.npy alone for a single-input model; images below;
benchmark_app's -i NAME:FILE.npy and --shape NAME[dims] are accepted too). Their
dtype must be the input's element type: f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 bool.
bf16 has no NumPy dtype: a bf16 input is read from the raw bits saved as uint16 ('<u2'),
and bf16 outputs are written as uint16 raw bits too; in NumPy,
(a.astype(np.uint32) << 16).view(np.float32) turns such bits into float32 values.
Inputs not given are random, the same for the same --seed: floats uniform in [-1, 1),
integers in [0, 10), booleans 0/1. A dynamic dimension takes the --shape given for the
input, else its lower bound, else 1.
--max-memory SIZE (bytes, or with K, M, G, T: 512M, 2G) bounds what the run allocates
(outputs, values between layers, kernels' scratch space) and, apart, the random inputs;
going over is an error, raised before anything that large is allocated.
For every output it prints the element type, shape, min, max, mean, NaN and infinity
counts and the first values (nested by dimension: [[1, 2], [3, ...]]); with -o DIR it
saves DIR/NAME.npy (characters of NAME other than letters, digits, '.', '-' and '_'
become '_'). A model with ops irlite lacks is refused with every such layer named.
-n N runs the model N times on the same inputs. --profile then prints each compute layer's
median time, share of the run, output bytes and GB/s ((input + output bytes) / time),
and the times by op type-version; --profile-json FILE writes the runs as a Chrome trace
(chrome://tracing, ui.perfetto.dev). --dump DIR saves every layer's outputs of the first
run as DIR/ID_NAME.outPORT.npy (PORT: the IR port id) and lists them in DIR/index.json.

Examples:
  irlite run model.xml
  irlite run model.xml -i input=x.npy -i k=k.npy -o out/
  irlite run model.xml -i photo.jpg --rgb --layout NHWC
  irlite run model.xml --shape 'x=[2,3]' --seed 7 --values 16
  irlite run model.xml -n 20 --profile --profile-json trace.json
  irlite run model.xml --dump layers/)";

constexpr const char* kInspectHelp = R"(
Prints the model's inputs and outputs, then one row per layer in run order: id, name,
type-version, inputs (the feeding layer id:port and its shape), inferred output element
types and shapes (with the dims the IR declares where they differ, "not run" for layers
that reach no Result and "folded" for layers computed while loading, their inputs being
all known) and key attributes; then the count of layers per op and the bytes of the Consts.
Every problem is reported at once, one line each on stderr, and the exit status is then 1.
--html FILE writes the graph instead, as one page that needs no network: a box per layer
(Consts shown in their readers' boxes), inferred shapes on the edges, and in colour the
unsupported ops, problems and warnings, declared shapes that differ, layers folded at load
and layers not run; click a layer for its attributes, search by name or type, wheel to zoom,
drag to pan. --dot FILE writes the same for Graphviz.
The model is inspected without its .bin when it is missing (shapes that depend on
Const values are then inferred without them).

Examples:
  irlite inspect model.xml
  irlite inspect model.xml --shape 'x=[1,3,224,224]'
  irlite inspect model.xml --json > model.json
  irlite inspect model.xml --html model.html
  irlite inspect model.xml --dot model.dot && dot -Tsvg model.dot -o model.svg)";

constexpr const char* kOpsHelp = R"(
Each op version with the opsets that select it and the element types of its inputs and
outputs ("numeric": every type but boolean; "integer"; "any"; '?' marks an optional input).

Examples:
  irlite ops
  irlite ops --json)";

constexpr const char* kMainHelp = R"(
Exit status: 0 success, 1 model, input or file error, 2 command-line error,
3 an output differs from its 'run --expect' reference.

Examples:
  irlite run model.xml -i x=x.npy -o out/
  irlite bench model.xml -n 500
  irlite inspect model.xml --shape 'x=[?,3]'
  irlite ops
Run 'irlite COMMAND --help' for a command's options.)";

std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end)
    throw UsageError(fmt::format("--seed '{}': expected an integer in [0, 2^64)", text));
  return value;
}

// Edit distance between two words, for suggesting the subcommand meant.
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The first word that is not an option, when it names no subcommand: CLI11 would only say that
// a subcommand is required.
std::optional<std::string> unknown_subcommand(int argc, char** argv,
                                              const std::vector<const CLI::App*>& subcommands) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (!word.empty() && word[0] == '-') continue;
    std::string names, closest;
    std::size_t best = SIZE_MAX;
    for (const CLI::App* sub : subcommands) {
      const std::string& name = sub->get_name();
      if (word == name) return std::nullopt;
      names += (names.empty() ? "" : ", ") + name;
      const std::size_t d = distance(word, name);
      if (d < best) {
        best = d;
        closest = name;
      }
    }
    return fmt::format(
        "unknown subcommand '{}'; did you mean '{}'? (subcommands: {}; see "
        "'irlite --help')",
        word, closest, names);
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"irlite: run and inspect OpenVINO IR models (.xml + .bin)", "irlite"};
  app.set_version_flag("--version", fmt::format("irlite {}", irlite::version()));
  app.require_subcommand(1);
  app.footer(kMainHelp);

  RunOptions run;
  std::string seed = "0";
  CLI::App* run_cmd = app.add_subcommand("run", "Run a model on .npy or random inputs");
  run_cmd->footer(kRunHelp);
  run_cmd->add_option("model", run.model, "The model's .xml file")
      ->required()
      ->type_name("MODEL.xml");
  run_cmd->add_option("-i,--input", run.inputs, "An input's data (repeatable)")
      ->type_name("[NAME=]FILE.npy|FILE.jpg|FILE.png")
      ->allow_extra_args(false);
  run_cmd->add_option("-o,--output-dir", run.output_dir, "Write every output to DIR/NAME.npy")
      ->type_name("DIR");
  run_cmd->add_option("--threads", run.threads, "Threads per layer (default: one per CPU)")
      ->type_name("N")
      ->check(CLI::Range(0u, 4096u));
  run_cmd->add_option("--seed", seed, "Seed of the random inputs (default 0)")->type_name("N");
  run_cmd->add_option("--shape", run.shapes, "Set an input's shape (repeatable)")
      ->type_name("[NAME=][DIMS]")
      ->allow_extra_args(false);
  run_cmd->add_option("-w,--weights", run.weights, "The .bin file (default: beside the .xml)")
      ->type_name("FILE.bin");
  add_precision_option(*run_cmd, run.precision);
  run_cmd
      ->add_option("--max-memory", run.max_memory,
                   "Memory budget of the run and of the random inputs (default: half the RAM)")
      ->type_name("SIZE");
  run_cmd->add_option("--values", run.values, "How many values to print per output (default 8)")
      ->type_name("N")
      ->check(CLI::Range(0, 1000000));
  run_cmd->add_option("-n,--repeat", run.repeat, "Run N times (default 1)")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000));
  run_cmd->add_flag("--profile", run.profile, "Print each layer's median time over the runs");
  run_cmd
      ->add_option("--profile-json", run.profile_json, "Write the runs' layers as a Chrome trace")
      ->type_name("FILE");
  run_cmd->add_option("--dump", run.dump_dir, "Save every layer's outputs to DIR (first run)")
      ->type_name("DIR");
  add_run_check_options(*run_cmd, run);
  add_image_options(*run_cmd, run.image);

  BenchOptions bench;
  std::string bench_seed = "0";
  CLI::App* bench_cmd = add_bench_subcommand(app, bench, bench_seed);

  InspectOptions inspect;
  CLI::App* inspect_cmd =
      app.add_subcommand("inspect", "Show a model's layers, inferred shapes and problems");
  inspect_cmd->footer(kInspectHelp);
  inspect_cmd->add_option("model", inspect.model, "The model's .xml file")
      ->required()
      ->type_name("MODEL.xml");
  inspect_cmd->add_option("--shape", inspect.shapes, "Reshape an input (repeatable)")
      ->type_name("[NAME=][DIMS]")
      ->allow_extra_args(false);
  inspect_cmd->add_flag("--json", inspect.json, "Print one JSON document instead of text");
  inspect_cmd
      ->add_option("--html", inspect.html,
                   "Write the graph as a self-contained page (layout, shapes, problems)")
      ->type_name("OUT.html");
  inspect_cmd->add_option("--dot", inspect.dot, "Write the graph for Graphviz (dot -Tsvg)")
      ->type_name("OUT.dot");
  inspect_cmd
      ->add_option("-w,--weights", inspect.weights, "The .bin file (default: beside the .xml)")
      ->type_name("FILE.bin");
  add_precision_option(*inspect_cmd, inspect.precision);

  bool ops_json = false;
  CLI::App* ops_cmd = app.add_subcommand("ops", "List the supported op types and versions");
  ops_cmd->footer(kOpsHelp);
  ops_cmd->add_flag("--json", ops_json, "Print JSON instead of text");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with status 0: print them to stdout.
    if (e.get_exit_code() == 0) return app.exit(e, std::cout, std::cerr);
    if (!run_cmd->parsed() && !bench_cmd->parsed() && !inspect_cmd->parsed() &&
        !ops_cmd->parsed()) {
      if (const auto unknown =
              unknown_subcommand(argc, argv, {run_cmd, bench_cmd, inspect_cmd, ops_cmd})) {
        print_error(*unknown);
        return kExitUsage;
      }
    }
    std::string hint = "irlite --help";
    for (const CLI::App* sub : {run_cmd, bench_cmd, inspect_cmd, ops_cmd})
      if (sub->parsed()) hint = fmt::format("irlite {} --help", sub->get_name());
    print_error(fmt::format("{} (see '{}')", e.what(), hint));
    return kExitUsage;
  }

  try {
    if (run_cmd->parsed()) {
      run.seed = parse_seed(seed);
      return run_command(run);
    }
    if (bench_cmd->parsed()) {
      bench.seed = parse_seed(bench_seed);
      return bench_command(bench);
    }
    if (inspect_cmd->parsed()) return inspect_command(inspect);
    return ops_command(ops_json);
  } catch (const UsageError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    print_error("out of memory");
    return kExitError;
  } catch (const std::exception& e) {
    // irlite::Error's what() already carries file:line:col and the layer.
    print_error(e.what());
    return kExitError;
  }
}

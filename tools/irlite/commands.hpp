#pragma once
// The subcommands of the `irlite` program and what they share: option structs, the usage error,
// --shape parsing and one-line diagnostics.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"

namespace irlite::cli {

/// A mistake in the command line itself: reported as an error, exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Exit statuses.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;  ///< a model, input or file problem
inline constexpr int kExitUsage = 2;
inline constexpr int kExitMismatch = 3;  ///< run --expect: an output differs from its reference

/// Prints `irlite: error: <message>` (or `warning`, `hint`) to stderr as one line.
void print_error(const std::string& message);
void print_warning(const std::string& message);
void print_hint(const std::string& message);

/// Throws UsageError when `path` names a weights file (.bin) rather than a model, pointing to
/// the .xml beside it when there is one.
void check_model_path(const std::string& path);

/// Model::load for a model that is to run. When ops irlite lacks stop it, every such layer is
/// reported (one error line each, then a hint) and the result is nullopt; other errors throw.
std::optional<Model> load_for_run(const std::string& path, const LoadOptions& options);

/// One --shape argument: `NAME=[dims]` (or benchmark_app's `NAME[dims]`), or `[dims]` alone
/// for a single-input model.
struct ShapeOverride {
  std::optional<std::string> name;
  PartialShape shape;
};

/// Parses the text of --shape arguments. Throws UsageError on malformed text.
std::vector<ShapeOverride> parse_shape_overrides(const std::vector<std::string>& texts);

/// The shapes keyed by input name, the nameless one given to the model's only input. Throws
/// UsageError when a nameless shape is given to a model without exactly one input or an input
/// is given twice.
std::map<std::string, PartialShape> resolve_shape_overrides(
    const std::vector<ShapeOverride>& overrides, const Model& model);

/// A byte count: digits, optionally followed by K, M, G or T (powers of 1024, any case, with
/// an optional B or iB after them: 512M, 2GiB, 1048576). Throws UsageError naming `option`
/// for anything else, 0 included, and for a count beyond 2^64 - 1.
std::size_t parse_byte_size(const std::string& text, const std::string& option);

/// An -i argument in benchmark_app's form `NAME:FILE` rewritten as `NAME=FILE`, when NAME is an
/// input of the model, no '=' already names one, and the text is neither a Windows path
/// (`C:\x`) nor an existing file; any other text as it is.
std::string input_argument_alias(const std::string& text, const Model& model);

/// "a, b, c", or "none".
std::string input_list(const Model& model);

/// How -i images become inputs, as given on the command line.
struct ImageOptions {
  bool nhwc = false;  ///< --layout NHWC
  bool rgb = false;   ///< --rgb
  std::string mean;   ///< --mean text; empty: 0
  std::string scale;  ///< --scale text; empty: 1
};

struct RunOptions {
  std::string model;
  /// Threads per layer; 0: one per CPU.
  unsigned threads = 0;
  std::string weights;
  InferencePrecision precision = InferencePrecision::f32;  ///< --precision
  std::vector<std::string> inputs;                         ///< `NAME=FILE.npy` or `FILE.npy`
  ImageOptions image;               ///< how image files among them are laid out
  std::vector<std::string> shapes;  ///< --shape texts
  std::string output_dir;
  std::uint64_t seed = 0;
  std::size_t values = 8;  ///< values printed per output
  /// --max-memory text: the run's memory budget, which the random inputs must fit in too.
  /// Empty: the library's default.
  std::string max_memory;
  /// How many times to run (--repeat); the outputs printed are the last run's.
  std::size_t repeat = 1;
  /// --profile: print each layer's median time over the runs.
  bool profile = false;
  /// --profile-json: the Chrome trace file to write; empty for none.
  std::string profile_json;
  /// --dump: the directory every layer's outputs of the first run are saved to; empty for none.
  std::string dump_dir;
  bool json = false;                 ///< one JSON document instead of the text summary
  std::vector<std::string> expect;   ///< --expect texts: `NAME=REF.npy`, `REF.npy`, `REF.npz`
  std::string expect_dir;            ///< --expect-dir: a folder of NAME.npy references
  std::optional<double> atol, rtol;  ///< tolerances for all floating-point outputs
};

struct BenchOptions {
  std::string model;
  unsigned threads = 0;  ///< threads per layer; 0: one per CPU
  std::string weights;
  InferencePrecision precision = InferencePrecision::f32;  ///< --precision
  std::vector<std::string> inputs;                         ///< as RunOptions::inputs
  ImageOptions image;                                      ///< as RunOptions::image
  std::vector<std::string> shapes;
  std::uint64_t seed = 0;
  std::string max_memory;  ///< as RunOptions::max_memory
  /// Timed runs: exactly `iterations`, or as many as fit in `seconds`; neither given, whichever
  /// of kBenchIterations and kBenchSeconds comes first.
  std::optional<std::size_t> iterations;
  std::optional<double> seconds;
  std::size_t warmup = 1;  ///< untimed runs after the first
  bool json = false;
  /// --profile: print each layer's median time over the timed runs (the first kBenchProfiles).
  bool profile = false;
  /// --profile-json: the Chrome trace of those runs; empty for none.
  std::string profile_json;
  /// --html: the graph page coloured by each layer's share of those runs; empty for none.
  std::string html;
};
inline constexpr std::size_t kBenchIterations = 1000;
/// The timed runs whose layer times --profile and --profile-json keep: the first this many.
inline constexpr std::size_t kBenchProfiles = 1000;
inline constexpr double kBenchSeconds = 3;

struct InspectOptions {
  std::string model;
  std::string weights;
  InferencePrecision precision = InferencePrecision::f32;  ///< --precision
  std::vector<std::string> shapes;
  bool json = false;
  std::string html;  ///< --html: the graph page to write; empty for none
  std::string dot;   ///< --dot: the Graphviz file to write; empty for none
};

/// Each returns the exit status; irlite::Error and UsageError propagate to main.
int run_command(const RunOptions& options);
int bench_command(const BenchOptions& options);
int inspect_command(const InspectOptions& options);
int ops_command(bool json);

}  // namespace irlite::cli

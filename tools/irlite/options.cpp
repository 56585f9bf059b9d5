#include "options.hpp"

#include <map>

namespace irlite::cli {
namespace {

constexpr const char* kCheckHelp = R"(

-i FILE.npz feeds every input named by an array of the archive (NAME.npy feeds input
NAME); -o FILE.npz writes every output into one uncompressed archive.

--expect NAME=REF.npy compares an output with a reference (--expect REF.npy for a
single-output model; --expect REF.npz for every output its arrays name); --expect-dir DIR
takes DIR/NAME.npy as -o DIR writes them (outputs without a file are not compared; a .npy
naming no output is an error). Types and shapes must match; integers and booleans must be
equal; NaN equals NaN and infinities must match; other floats pass when
|actual - expected| <= atol + rtol * |expected|, by default atol/rtol 1e-12/1e-9 (f64),
1e-6/1e-5 (f32), 1e-3/1e-3 (f16), 1e-2/1e-2 (bf16); --atol and --rtol set them for every
floating-point output. Each output's line gives the largest absolute and relative errors
and the worst element's index and values.
--json prints one JSON document instead of the text (see the README for its fields).
Exit status: 0 success, 1 model, input or file error, 2 command-line error, 3 an output
differs from its --expect reference.

  irlite run model.xml -i x.npy --expect y=ref.npy --atol 1e-4
  irlite run model.xml -i inputs.npz -o out.npz
  irlite run model.xml --expect-dir ref/ --json)";

constexpr const char* kBenchHelp = R"(
Times runs of the model on the inputs 'irlite run' would feed it (-i, --shape and --seed
as there). It loads the model, runs it once (the first run, timed apart), runs --warmup
more times untimed, then times -n ITERATIONS runs, or runs for -t SECONDS; without either,
it stops at 1000 runs or 3 seconds, whichever comes first. It prints the load and
first-run times, the latency of the timed runs (min, median, mean, p90, p99, max),
throughput, the peak resident memory and the thread count; --json prints one JSON
object instead (see the README for its fields). While it runs, a progress line is
shown on stderr when stderr is a terminal. --profile adds each compute layer's median
time over the timed runs (the first 1000 of them) as 'irlite run --profile' prints it,
and --profile-json FILE writes those runs as a Chrome trace (with --json, the one to use).
--html FILE writes the model's graph page (as 'irlite inspect --html') with each layer
coloured by its share of the median run and the per-layer times in a table beside it.

Examples:
  irlite bench model.xml
  irlite bench model.xml -i x=x.npy -n 500 --threads 1
  irlite bench model.xml -t 10 --json > bench.json
  irlite bench model.xml --profile --html profile.html)";

constexpr const char* kImageHelp = R"(

-i [NAME=]FILE.jpg (.jpeg, .png) feeds a 4-D image input: the photo, resized to the input's
height and width (its own size where they are dynamic) by bilinear interpolation with
half-pixel centres and rounded to 8 bits, as OpenCV's cv2.resize INTER_LINEAR; laid out
NCHW (--layout NHWC: channels last), channels B, G, R (--rgb: R, G, B); then per channel
(value - mean) / scale, --mean and --scale giving one number or three in the input's
channel order (defaults 0 and 1), converted to the input's element type (integers rounded
and saturated). A static batch gets the same image in every item.

  irlite )";

}  // namespace

void add_image_options(CLI::App& command, ImageOptions& options) {
  command.footer(command.get_footer() + kImageHelp + command.get_name() +
                 " model.xml -i data=photo.jpg --mean 104,117,123 --scale 58");
  const std::map<std::string, bool> layouts{{"NCHW", false}, {"NHWC", true}};
  command.add_option("--layout", options.nhwc, "Image inputs' layout: NCHW (default) or NHWC")
      ->transform(CLI::CheckedTransformer(layouts, CLI::ignore_case))
      ->option_text("NCHW|NHWC");
  command.add_flag("--rgb", options.rgb,
                   "Image inputs' channels in R, G, B order (default B, G, R)");
  command.add_option("--mean", options.mean, "Subtracted from image inputs' channels (default 0)")
      ->type_name("M|M0,M1,M2");
  command.add_option("--scale", options.scale, "Image inputs' channels divided by it (default 1)")
      ->type_name("S|S0,S1,S2");
}

void add_run_check_options(CLI::App& run, RunOptions& options) {
  run.footer(run.get_footer() + kCheckHelp);
  run.add_flag("--json", options.json, "Print one JSON document instead of the text summary");
  run.add_option("--expect", options.expect,
                 "Compare an output with a reference; exit 3 when they differ (repeatable)")
      ->type_name("[NAME=]REF.npy|REF.npz")
      ->allow_extra_args(false);
  run.add_option("--expect-dir", options.expect_dir,
                 "Compare outputs with DIR/NAME.npy as -o DIR writes them")
      ->type_name("DIR");
  run.add_option("--atol", options.atol, "Absolute tolerance of --expect for floats")
      ->type_name("A")
      ->check(CLI::NonNegativeNumber);
  run.add_option("--rtol", options.rtol, "Relative tolerance of --expect for floats")
      ->type_name("R")
      ->check(CLI::NonNegativeNumber);
}

CLI::App* add_bench_subcommand(CLI::App& app, BenchOptions& options, std::string& seed) {
  CLI::App* bench = app.add_subcommand("bench", "Time a model's runs: latency, throughput, memory");
  bench->footer(kBenchHelp);
  bench->add_option("model", options.model, "The model's .xml file")
      ->required()
      ->type_name("MODEL.xml");
  bench->add_option("-i,--input", options.inputs, "An input's data (repeatable)")
      ->type_name("[NAME=]FILE.npy|FILE.npz|FILE.jpg|FILE.png")
      ->allow_extra_args(false);
  bench->add_option("--shape", options.shapes, "Set an input's shape (repeatable)")
      ->type_name("[NAME=][DIMS]")
      ->allow_extra_args(false);
  bench->add_option("--threads", options.threads, "Threads per layer (default: one per CPU)")
      ->type_name("N")
      ->check(CLI::Range(0u, 4096u));
  CLI::Option* iterations =
      bench->add_option("-n,--iterations", options.iterations, "Time exactly N runs")
          ->type_name("N")
          ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40));
  bench->add_option("-t,--time", options.seconds, "Time runs for this many seconds")
      ->type_name("SECONDS")
      ->check(CLI::Range(1e-3, 1e6))
      ->excludes(iterations);
  bench->add_option("--warmup", options.warmup, "Untimed runs after the first (default 1)")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30));
  CLI::Option* json =
      bench->add_flag("--json", options.json, "Print one JSON object instead of text");
  bench
      ->add_flag("--profile", options.profile, "Print each layer's median time over the timed runs")
      ->excludes(json);
  bench
      ->add_option("--profile-json", options.profile_json, "Write the timed runs as a Chrome trace")
      ->type_name("FILE");
  bench
      ->add_option("--html", options.html,
                   "Write the graph page coloured by the layers' times over the timed runs")
      ->type_name("OUT.html");
  bench
      ->add_option("--max-memory", options.max_memory,
                   "Memory budget of a run and of the random inputs (default: half the RAM)")
      ->type_name("SIZE");
  bench->add_option("--seed", seed, "Seed of the random inputs (default 0)")->type_name("N");
  bench->add_option("-w,--weights", options.weights, "The .bin file (default: beside the .xml)")
      ->type_name("FILE.bin");
  add_precision_option(*bench, options.precision);
  add_image_options(*bench, options.image);
  return bench;
}

void add_precision_option(CLI::App& command, InferencePrecision& precision) {
  const std::map<std::string, InferencePrecision> words{{"f32", InferencePrecision::f32},
                                                        {"declared", InferencePrecision::declared}};
  command
      .add_option("--precision", precision,
                  "What f16/bf16 layers compute in: f32 (default, as OpenVINO's CPU plugin) or "
                  "declared")
      ->transform(CLI::CheckedTransformer(words, CLI::ignore_case))
      ->option_text("f32|declared");
}

}  // namespace irlite::cli

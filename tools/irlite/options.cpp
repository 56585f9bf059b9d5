#include "options.hpp"

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

}  // namespace

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

}  // namespace irlite::cli

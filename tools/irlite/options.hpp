#pragma once
// The command-line options of `irlite bench` and of `irlite run`'s checks (--json, --expect),
// declared apart from main.cpp's other options.

#include <CLI/CLI.hpp>
#include <string>

#include "commands.hpp"

namespace irlite::cli {

/// Adds `--json`, `--expect`, `--expect-dir`, `--atol` and `--rtol` to the `run` subcommand,
/// and their description to its help.
void add_run_check_options(CLI::App& run, RunOptions& options);

/// Adds `--precision f32|declared` (LoadOptions::inference_precision) to a subcommand.
void add_precision_option(CLI::App& command, InferencePrecision& precision);

/// Adds `--layout`, `--rgb`, `--mean` and `--scale` (how -i images become inputs) to a
/// subcommand, and their description to its help.
void add_image_options(CLI::App& command, ImageOptions& options);

/// Adds the `bench` subcommand; `seed` receives the --seed text.
CLI::App* add_bench_subcommand(CLI::App& app, BenchOptions& options, std::string& seed);

}  // namespace irlite::cli

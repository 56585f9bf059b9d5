#pragma once
// Per-layer timing reports of profiled runs: a text table and a Chrome trace.

#include <cstdio>
#include <filesystem>
#include <span>

#include "irlite/irlite.hpp"
#include "model_json.hpp"

namespace irlite::cli {

/// Prints to `out` one row per compute layer of `runs` (Session::profile() of runs of `model`
/// by one Session), in run order: its median time over the runs, its share of the median run
/// time, its output bytes and the rate at which it moved its input and output bytes (GB/s);
/// then the median times summed by op type-version, and the median run time. Prints nothing
/// for no runs.
void print_profile(const Model& model, std::span<const RunProfile> runs, std::FILE* out);

/// Writes `runs` to `path` as a Chrome trace (the JSON object format with "traceEvents", read by
/// chrome://tracing and Perfetto): the runs one after another, each as a "run N" event holding a
/// complete ("X") event per layer named after it, with the op type as category, times in
/// microseconds and the layer's id, type-version, shapes and bytes as args. Throws Error(io)
/// naming the file when it cannot be written.
/// The runs for the graph page: {"runs": count, "total_ns": median run time, "layers": one per
/// compute layer of the first run, {"id", "median_ns", "share" (percent of total_ns),
/// "fused": [ids of the layers its kernel ran]}}.
Json profile_json(const Model& model, std::span<const RunProfile> runs);

void write_chrome_trace(const Model& model, std::span<const RunProfile> runs,
                        const std::filesystem::path& path);

}  // namespace irlite::cli

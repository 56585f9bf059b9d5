// `irlite bench`: times a model's runs on the inputs `run` would feed it and reports the load
// time, the first run, the latency distribution of the timed runs, throughput and peak memory.

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>

#include "commands.hpp"
#include "files.hpp"
#include "graph_page.hpp"
#include "inputs.hpp"
#include "profile.hpp"
#include "run_json.hpp"

namespace irlite::cli {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One run whose outputs are dropped at once, so that the next run reuses their memory.
void run_once(Session& session, const Inputs& inputs) {
  const auto outputs = session.run(inputs.tensors);
}

// The latency distribution of the timed runs, in milliseconds.
struct Latency {
  double min = 0, median = 0, mean = 0, p90 = 0, p99 = 0, max = 0;
};

// `times` sorted in place. Percentiles are nearest-rank (the smallest time that at least p% of
// the runs did not exceed); the median of an even count is the mean of the middle two.
Latency summarize(std::vector<double>& times) {
  std::sort(times.begin(), times.end());
  const std::size_t n = times.size();
  const auto rank = [&](double p) {
    const auto r = static_cast<std::size_t>(std::ceil(p / 100 * static_cast<double>(n)));
    return times[std::clamp<std::size_t>(r, 1, n) - 1];
  };
  Latency l;
  l.min = times.front();
  l.max = times.back();
  l.median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  l.mean = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(n);
  l.p90 = rank(90);
  l.p99 = rank(99);
  return l;
}

// What a benchmark measured.
struct BenchResult {
  double load_ms = 0;       ///< Model::load, --shape and the Session
  double first_run_ms = 0;  ///< the first run, which allocates and first-touches its memory
  std::size_t iterations = 0;
  double seconds = 0;  ///< wall time of the timed runs
  Latency latency;
  std::size_t peak_rss_bytes = 0;
};

// The progress line on a terminal's stderr, rewritten in place at most every 100 ms and erased
// at the end; nothing when stderr is not a terminal.
class Progress {
 public:
  Progress() : enabled_(::isatty(STDERR_FILENO) == 1) {}
  ~Progress() { clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void update(std::size_t runs, double elapsed_s, double last_ms) {
    if (!enabled_ || Clock::now() < next_) return;
    next_ = Clock::now() + std::chrono::milliseconds(100);
    const std::string line =
        fmt::format("bench: {} runs, {:.1f} s, last {:.3f} ms", runs, elapsed_s, last_ms);
    fmt::print(stderr, "\r{:<{}}", line, width_);
    width_ = std::max(width_, line.size());
    std::fflush(stderr);
  }
  void clear() {
    if (!enabled_ || width_ == 0) return;
    fmt::print(stderr, "\r{:<{}}\r", "", width_);
    std::fflush(stderr);
    width_ = 0;
  }

 private:
  bool enabled_;
  std::size_t width_ = 0;
  Clock::time_point next_ = Clock::now();
};

// The timed runs, stopping as the options say; returns each run's time in milliseconds.
std::vector<double> timed_runs(Session& session, const Inputs& inputs, const BenchOptions& options,
                               double& seconds, std::vector<RunProfile>& profiles) {
  const std::size_t max_runs = options.iterations ? *options.iterations
                               : options.seconds  ? SIZE_MAX
                                                  : kBenchIterations;
  const double max_seconds = options.iterations ? INFINITY
                             : options.seconds  ? *options.seconds
                                                : kBenchSeconds;
  std::vector<double> times;
  times.reserve(std::min<std::size_t>(max_runs, 1 << 20));
  Progress progress;
  const auto start = Clock::now();
  for (;;) {
    const auto run_start = Clock::now();
    run_once(session, inputs);
    times.push_back(ms_since(run_start));
    if (session.options().profile && profiles.size() < kBenchProfiles)
      profiles.push_back(session.profile());
    seconds = ms_since(start) / 1000;
    if (times.size() >= max_runs || seconds >= max_seconds) break;
    progress.update(times.size(), seconds, times.back());
  }
  return times;
}

std::size_t peak_rss_bytes() {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // Linux counts KiB
}

double runs_per_second(const BenchResult& r) {
  return r.seconds > 0 ? static_cast<double>(r.iterations) / r.seconds : 0;
}

void print_text(const Model& model, const Session& session, const Inputs& inputs,
                const BenchOptions& options, const BenchResult& r) {
  fmt::print("model       {}\n", escape_nonprintable(model.source()));
  for (std::size_t i = 0; i < model.inputs().size(); ++i) {
    const Tensor& t = inputs.tensors.at(model.inputs()[i].name);
    fmt::print("input       {} {} {}  {}\n", escape_nonprintable(model.inputs()[i].name),
               to_string(t.element_type()), to_string(t.shape()),
               escape_nonprintable(inputs.sources[i].describe()));
  }
  fmt::print("threads     {}\n", session.options().num_threads);
  fmt::print("load        {:.3f} ms\n", r.load_ms);
  fmt::print("first run   {:.3f} ms\n", r.first_run_ms);
  fmt::print("warmup      {} run{}\n", options.warmup, options.warmup == 1 ? "" : "s");
  fmt::print("timed       {} run{} in {:.3g} s\n", r.iterations, r.iterations == 1 ? "" : "s",
             r.seconds);
  const Latency& l = r.latency;
  fmt::print(
      "latency     min {:.3f}  median {:.3f}  mean {:.3f}  p90 {:.3f}  p99 {:.3f}  "
      "max {:.3f} ms\n",
      l.min, l.median, l.mean, l.p90, l.p99, l.max);
  fmt::print("throughput  {:.1f} runs/s\n", runs_per_second(r));
  fmt::print("peak RSS    {:.1f} MiB\n", static_cast<double>(r.peak_rss_bytes) / (1 << 20));
}

nlohmann::json bench_json(const Model& model, const Session& session, const Inputs& inputs,
                          const BenchOptions& options, const BenchResult& r) {
  const Latency& l = r.latency;
  return {{"model", model.source()},
          {"inputs", inputs_json(model, inputs)},
          {"threads", session.options().num_threads},
          {"load_ms", r.load_ms},
          {"first_run_ms", r.first_run_ms},
          {"warmup", options.warmup},
          {"iterations", r.iterations},
          {"seconds", r.seconds},
          {"latency_ms",
           {{"min", l.min},
            {"median", l.median},
            {"mean", l.mean},
            {"p90", l.p90},
            {"p99", l.p99},
            {"max", l.max}}},
          {"runs_per_s", runs_per_second(r)},
          {"peak_rss_bytes", r.peak_rss_bytes}};
}

}  // namespace

int bench_command(const BenchOptions& options) {
  BenchResult r;
  const auto start = Clock::now();
  const auto loaded = load_model(options.model, options.weights, options.precision, options.shapes);
  if (!loaded) return kExitError;
  const Model& model = *loaded;
  SessionOptions settings = session_options(options.threads, options.max_memory);
  settings.profile = options.profile || !options.profile_json.empty() || !options.html.empty();
  Session session(model, settings);
  r.load_ms = ms_since(start);
  const Inputs inputs = prepare_inputs(model, options.inputs, options.image, options.seed,
                                       session.options().max_memory_bytes);

  const auto first = Clock::now();
  run_once(session, inputs);
  r.first_run_ms = ms_since(first);
  for (std::size_t i = 0; i < options.warmup; ++i) run_once(session, inputs);

  std::vector<RunProfile> profiles;
  std::vector<double> times = timed_runs(session, inputs, options, r.seconds, profiles);
  r.iterations = times.size();
  r.latency = summarize(times);
  r.peak_rss_bytes = peak_rss_bytes();

  if (options.json) {
    fmt::print("{}\n", bench_json(model, session, inputs, options, r).dump(2));
  } else {
    print_text(model, session, inputs, options, r);
    if (options.profile) print_profile(model, profiles, stdout);  // not with --json
  }
  if (!options.profile_json.empty()) write_chrome_trace(model, profiles, options.profile_json);
  if (!options.html.empty()) {
    Json doc = model_json(&model, model.source(), model.warnings(), {});
    doc["profile"] = profile_json(model, profiles);
    write_file(options.html, graph_page(doc));
  }
  return kExitOk;
}

}  // namespace irlite::cli

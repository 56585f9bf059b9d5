// Loading at scale: writes large IR models, and times irlite::Model::load against pugixml's bare
// parse of the same file, each run in a child process of its own so that peak RSS is the run's.
//
//   build/tools/irlite_load_bench gen SHAPE N FILE.xml   write a model (shapes below)
//   build/tools/irlite_load_bench [--reps N] FILE.xml    parse and load alternately, print medians
//   build/tools/irlite_load_bench parse|load FILE.xml    one run: "seconds peak_rss_kib"
//
// Shapes: chain (a Parameter, N ReduceMax-1 each with its own empty Const axes, a Result),
// chain-shared (the same with one Const for every ReduceMax), same-name (N Parameters all named
// x, each to a Result), params (N distinct Parameters, each to a Result), ports (a Parameter
// feeding N input ports of one Concat layer, which irlite lacks: load it with keep_going).

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "api/model_impl.hpp"
#include "irlite/irlite.hpp"
#include "loader/ir_reader.hpp"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void usage() {
  std::fputs(
      "usage: irlite_load_bench gen chain|chain-shared|same-name|params|ports N FILE.xml\n"
      "       irlite_load_bench [--reps N] FILE.xml\n"
      "       irlite_load_bench parse|load FILE.xml\n",
      stderr);
  std::exit(2);
}

/// Writes the model text piece by piece, without holding it all in memory.
class Writer {
 public:
  explicit Writer(const std::string& path) : file_(std::fopen(path.c_str(), "wb")) {
    if (!file_) {
      std::perror(path.c_str());
      std::exit(1);
    }
  }
  ~Writer() { std::fclose(file_); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  template <class... Args>
  void operator()(fmt::format_string<Args...> format, Args&&... args) {
    fmt::print(file_, format, std::forward<Args>(args)...);
  }

 private:
  std::FILE* file_;
};

constexpr std::string_view kDims = "\t\t\t\t\t<dim>2</dim>\n\t\t\t\t\t<dim>3</dim>\n";

void parameter(Writer& w, long id, std::string_view name) {
  w("\t\t<layer id=\"{}\" name=\"{}\" type=\"Parameter\" version=\"opset1\">\n"
    "\t\t\t<data shape=\"2,3\" element_type=\"f32\"/>\n"
    "\t\t\t<output>\n\t\t\t\t<port id=\"0\" precision=\"FP32\" names=\"{}\">\n{}"
    "\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>\n",
    id, name, name, kDims);
}

void result(Writer& w, long id, std::string_view name) {
  w("\t\t<layer id=\"{}\" name=\"{}\" type=\"Result\" version=\"opset1\">\n"
    "\t\t\t<input>\n\t\t\t\t<port id=\"0\" precision=\"FP32\">\n{}"
    "\t\t\t\t</port>\n\t\t\t</input>\n\t\t</layer>\n",
    id, name, kDims);
}

void axes(Writer& w, long id) {
  w("\t\t<layer id=\"{}\" name=\"axes_{}\" type=\"Const\" version=\"opset1\">\n"
    "\t\t\t<data element_type=\"i64\" shape=\"0\" offset=\"0\" size=\"0\"/>\n"
    "\t\t\t<output>\n\t\t\t\t<port id=\"0\" precision=\"I64\">\n\t\t\t\t\t<dim>0</dim>\n"
    "\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>\n",
    id, id);
}

void reduce_max(Writer& w, long id) {
  w("\t\t<layer id=\"{}\" name=\"reduce_{}\" type=\"ReduceMax\" version=\"opset1\">\n"
    "\t\t\t<data keep_dims=\"false\"/>\n"
    "\t\t\t<input>\n\t\t\t\t<port id=\"0\" precision=\"FP32\">\n{}\t\t\t\t</port>\n"
    "\t\t\t\t<port id=\"1\" precision=\"I64\">\n\t\t\t\t\t<dim>0</dim>\n\t\t\t\t</port>\n"
    "\t\t\t</input>\n"
    "\t\t\t<output>\n\t\t\t\t<port id=\"2\" precision=\"FP32\" names=\"reduce_{}\">\n{}"
    "\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>\n",
    id, id, kDims, id, kDims);
}

void edge(Writer& w, long from, long from_port, long to, long to_port) {
  w("\t\t<edge from-layer=\"{}\" from-port=\"{}\" to-layer=\"{}\" to-port=\"{}\"/>\n", from,
    from_port, to, to_port);
}

void generate(std::string_view shape, long n, const std::string& path) {
  Writer w(path);
  w("<?xml version=\"1.0\"?>\n<net name=\"{}\" version=\"11\">\n\t<layers>\n", shape);
  if (shape == "chain" || shape == "chain-shared") {
    // Layer ids: the Parameter 0, ReduceMax i at 2i, its Const at 2i - 1 (or the shared one at
    // 1), the Result after the last ReduceMax.
    const bool shared = shape == "chain-shared";
    parameter(w, 0, "x");
    if (shared) axes(w, 1);
    for (long i = 1; i <= n; ++i) {
      if (!shared) axes(w, 2 * i - 1);
      reduce_max(w, 2 * i);
    }
    result(w, 2 * n + 1, "y");
    w("\t</layers>\n\t<edges>\n");
    for (long i = 1; i <= n; ++i) {
      edge(w, i == 1 ? 0 : 2 * (i - 1), i == 1 ? 0 : 2, 2 * i, 0);
      edge(w, shared ? 1 : 2 * i - 1, 0, 2 * i, 1);
    }
    edge(w, 2 * n, 2, 2 * n + 1, 0);
  } else if (shape == "same-name" || shape == "params") {
    for (long i = 0; i < n; ++i)
      parameter(w, 2 * i, shape == "params" ? fmt::format("x{}", i) : std::string("x"));
    for (long i = 0; i < n; ++i) result(w, 2 * i + 1, fmt::format("r{}", i));
    w("\t</layers>\n\t<edges>\n");
    for (long i = 0; i < n; ++i) edge(w, 2 * i, 0, 2 * i + 1, 0);
  } else if (shape == "ports") {
    parameter(w, 0, "x");
    w("\t\t<layer id=\"1\" name=\"concat\" type=\"Concat\" version=\"opset1\">\n"
      "\t\t\t<data axis=\"0\"/>\n\t\t\t<input>\n");
    for (long i = 0; i < n; ++i) w("\t\t\t\t<port id=\"{}\" precision=\"FP32\"/>\n", i);
    w("\t\t\t</input>\n\t\t\t<output>\n\t\t\t\t<port id=\"{}\" precision=\"FP32\"/>\n"
      "\t\t\t</output>\n\t\t</layer>\n",
      n);
    result(w, 2, "y");
    w("\t</layers>\n\t<edges>\n");
    for (long i = 0; i < n; ++i) edge(w, 0, 0, 1, i);
    edge(w, 1, n, 2, 0);
  } else {
    usage();
  }
  w("\t</edges>\n\t<rt_info/>\n</net>\n");
}

/// The process's peak RSS in KiB and its CPU time (user and system) in seconds.
std::pair<long, double> resource_usage() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  return {u.ru_maxrss, seconds(u.ru_utime) + seconds(u.ru_stime)};
}

/// One run in this process; prints its wall-clock time (not counting the destruction of what it
/// loaded), the process's CPU time (start-up included) and peak RSS, and the layer count.
int run_once(std::string_view mode, const char* path) {
  const auto start = Clock::now();
  std::size_t count = 0;
  pugi::xml_document doc;
  std::optional<irlite::Model> model;
  if (mode == "parse") {
    const pugi::xml_parse_result parsed =
        doc.load_file(path, irlite::kIrParseOptions, pugi::encoding_utf8);
    if (!parsed) {
      std::fprintf(stderr, "%s: %s\n", path, parsed.description());
      return 1;
    }
    const pugi::xml_node layers = doc.document_element().child("layers");
    count = static_cast<std::size_t>(std::distance(layers.begin(), layers.end()));
  } else {
    irlite::LoadOptions options;
    options.keep_going = true;
    model = irlite::Model::load(path, options);
    count = irlite::detail::ModelAccess::impl(*model).graph.nodes.size();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const auto [rss, cpu] = resource_usage();
  std::printf("%.6f %.6f %ld %zu\n", seconds, cpu, rss, count);
  std::fflush(stdout);
  // The process ends without freeing them: that is not part of loading.
  std::_Exit(0);
}

struct Sample {
  double seconds = 0;
  double cpu = 0;
  long rss_kib = 0;
};

/// Runs `self mode path` in a child process and reads what it prints.
Sample run_child(const char* self, const char* mode, const char* path) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execl(self, self, mode, path, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  char buffer[256] = {};
  std::size_t used = 0;
  for (ssize_t got; used + 1 < sizeof buffer &&
                    (got = read(fds[0], buffer + used, sizeof buffer - 1 - used)) > 0;)
    used += static_cast<std::size_t>(got);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  Sample s;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      std::sscanf(buffer, "%lf %lf %ld", &s.seconds, &s.cpu, &s.rss_kib) != 3) {
    std::fprintf(stderr, "%s %s failed\n", mode, path);
    std::exit(1);
  }
  return s;
}

template <class T>
T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.size() == 4 && args[0] == "gen") {
    const long n = std::strtol(argv[3], nullptr, 10);
    if (n <= 0) usage();
    generate(args[1], n, argv[4]);
    return 0;
  }
  if (args.size() == 2 && (args[0] == "parse" || args[0] == "load"))
    return run_once(args[0], argv[2]);
  int reps = 7;
  std::size_t at = 0;
  if (args.size() == 3 && args[0] == "--reps") {
    reps = std::atoi(argv[2]);
    at = 2;
  }
  if (args.size() != at + 1 || reps <= 0) usage();
  const char* path = argv[at + 1];
  // /proc/self/exe rather than argv[0], which need not be a path.
  std::vector<char> self(4096);
  const ssize_t len = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (len <= 0) return 1;
  std::vector<Sample> parse, load;
  for (int r = 0; r < reps; ++r) {  // interleaved, so that a noisy moment hits both
    parse.push_back(run_child(self.data(), "parse", path));
    load.push_back(run_child(self.data(), "load", path));
  }
  const auto med = [](const std::vector<Sample>& v, auto field) {
    std::vector<double> x;
    for (const Sample& s : v) x.push_back(static_cast<double>(s.*field));
    return median(x);
  };
  const double tp = med(parse, &Sample::seconds), tl = med(load, &Sample::seconds);
  const double cp = med(parse, &Sample::cpu), cl = med(load, &Sample::cpu);
  const double mp = med(parse, &Sample::rss_kib) / 1024, ml = med(load, &Sample::rss_kib) / 1024;
  fmt::print("median of {} runs each    wall        CPU    peak RSS\n", reps);
  fmt::print("bare parse            {:8.3f} s {:8.3f} s {:8.1f} MiB\n", tp, cp, mp);
  fmt::print("Model::load           {:8.3f} s {:8.3f} s {:8.1f} MiB\n", tl, cl, ml);
  fmt::print("ratio                 {:8.2f}x  {:8.2f}x  {:8.2f}x\n", tl / tp, cl / cp, ml / mp);
  return 0;
}

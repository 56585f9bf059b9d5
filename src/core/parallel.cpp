#include "core/parallel.hpp"

#include <sched.h>

#include <chrono>

namespace irlite {

unsigned available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace {

/// How long a worker that finished a task keeps polling for the next one, and the caller for the
/// workers to finish, before sleeping on a condition variable. Waking a sleeping thread takes tens
/// of microseconds and more on a virtual machine whose idle CPU the host has descheduled, which
/// both delays the start of every parallel loop and skews its static split; a kernel of a
/// millisecond lost up to a third of its two-thread gain to it. Polling for 200 us costs at most
/// that much idle CPU per loop, as OpenMP and ONNX Runtime do by default.
constexpr auto kSpin = std::chrono::microseconds(200);

/// Polls `ready` for up to kSpin (not at all unless `spin`); whether it became true.
template <class F>
bool spin_until(bool spin, F ready) {
  if (!spin) return ready();
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (std::chrono::steady_clock::now() >= deadline) return ready();
  }
}

}  // namespace

// More threads than CPUs would take CPU time from each other by polling: they sleep at once.
ThreadPool::ThreadPool(unsigned threads) : spin_(threads <= available_cpus()) {
  const unsigned extra = threads > 1 ? threads - 1 : 0;
  workers_.reserve(extra);
  try {
    for (unsigned i = 0; i < extra; ++i) workers_.emplace_back([this, i] { worker(i + 1); });
  } catch (...) {
    // Could not start every thread: stop those that did start, then report.
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (std::thread& t : workers_) t.join();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_task(unsigned index) {
  try {
    task_(context_, index);
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
  }
}

void ThreadPool::run_erased(unsigned tasks, Task task, void* context) {
  tasks = std::min(tasks, size());
  task_ = task;
  context_ = context;
  tasks_ = tasks;
  // Every worker reports back, also those without a task, so that none can still be reading
  // this generation's task when the next one is written.
  pending_.store(size() - 1, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  {
    // A worker registers as a sleeper and checks generation_ under the mutex, so it either saw
    // the new generation or is counted here.
    std::lock_guard lock(mutex_);
    if (sleepers_ > 0) start_.notify_all();
  }
  run_task(0);
  const auto done = [this] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!spin_until(spin_, done)) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, done);
  }
  std::exception_ptr error;
  {
    std::lock_guard lock(mutex_);
    error = error_;
    error_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

void ThreadPool::worker(unsigned index) {
  std::size_t seen = 0;
  for (;;) {
    const auto ready = [&] {
      return stop_.load(std::memory_order_acquire) ||
             generation_.load(std::memory_order_acquire) != seen;
    };
    if (!spin_until(spin_, ready)) {
      std::unique_lock lock(mutex_);
      ++sleepers_;
      start_.wait(lock, ready);
      --sleepers_;
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    if (index < tasks_) run_task(index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // The caller may be asleep: notify under the mutex, where it checks pending_.
      std::lock_guard lock(mutex_);
      done_.notify_one();
    }
  }
}

}  // namespace irlite

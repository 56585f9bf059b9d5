#pragma once
// Intra-op parallelism: a fixed team of threads per Session, and work split into contiguous
// chunks that depend only on the work's size and the thread count, so that a kernel's result
// never depends on timing.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace irlite {

/// The threads a process may run on (its CPU affinity mask; hardware_concurrency() where that
/// cannot be read), at least 1.
unsigned available_cpus();

/// A team of `size()` threads, the calling thread among them: a pool of one starts no thread.
/// One caller at a time (a Session runs on one thread at a time).
class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Calls fn(t) for every t in [0, tasks) (tasks <= size()), task 0 on the calling thread, and
  /// returns when all are done. The first exception a task throws is rethrown here.
  template <class F>
  void run(unsigned tasks, F&& fn) {
    if (tasks <= 1) {
      if (tasks == 1) fn(0u);
      return;
    }
    using Fn = std::remove_reference_t<F>;
    run_erased(
        tasks, [](void* f, unsigned t) { (*static_cast<Fn*>(f))(t); },
        const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  using Task = void (*)(void*, unsigned);
  void run_erased(unsigned tasks, Task task, void* context);
  void worker(unsigned index);
  void run_task(unsigned index);

  // A task is published by bumping generation_; idle workers first poll it for a while (see
  // kSpin in parallel.cpp), then sleep on start_. The caller spins on pending_ the same way
  // before sleeping on done_. sleepers_ and error_ are guarded by mutex_; task_, context_ and
  // tasks_ are written before generation_ is bumped and read after it is seen.
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  std::atomic<std::size_t> generation_{0};
  std::atomic<unsigned> pending_{0};
  std::atomic<bool> stop_{false};
  unsigned sleepers_ = 0;
  unsigned tasks_ = 0;
  Task task_ = nullptr;
  void* context_ = nullptr;
  std::exception_ptr error_;
  const bool spin_;  // whether waits poll before sleeping
};

/// What a kernel gets to run parallel loops: a pool, or nothing (one thread).
class Parallel {
 public:
  /// Runs everything on the calling thread.
  Parallel() = default;
  explicit Parallel(ThreadPool* pool) : pool_(pool) {}

  unsigned threads() const { return pool_ ? pool_->size() : 1; }

  /// How many chunks for_range() splits `n` items into: at most threads(), and few enough that
  /// each holds at least `grain` items (one chunk when n < 2 * grain).
  std::size_t chunks(std::size_t n, std::size_t grain) const {
    const std::size_t by_grain = n / std::max<std::size_t>(grain, 1);
    return std::max<std::size_t>(1, std::min<std::size_t>(threads(), by_grain));
  }

  /// Splits [0, n) into chunks(n, grain) contiguous ranges of near-equal length and calls
  /// fn(begin, end, chunk) for each, concurrently. The ranges depend only on n, grain and
  /// threads().
  template <class F>
  void for_range(std::size_t n, std::size_t grain, F&& fn) const {
    const std::size_t parts = chunks(n, grain);
    const auto body = [&](unsigned c) {
      const std::size_t begin = n / parts * c + std::min<std::size_t>(c, n % parts);
      const std::size_t end = begin + n / parts + (c < n % parts ? 1 : 0);
      if (begin < end) fn(begin, end, static_cast<std::size_t>(c));
    };
    if (parts == 1) {
      if (n > 0) fn(std::size_t{0}, n, std::size_t{0});
      return;
    }
    pool_->run(static_cast<unsigned>(parts), body);
  }

 private:
  ThreadPool* pool_ = nullptr;
};

}  // namespace irlite

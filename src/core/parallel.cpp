#include "core/parallel.hpp"

#include <sched.h>

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

ThreadPool::ThreadPool(unsigned threads) {
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
  {
    std::lock_guard lock(mutex_);
    task_ = task;
    context_ = context;
    tasks_ = tasks;
    pending_ = tasks - 1;
    error_ = nullptr;
    ++generation_;
  }
  start_.notify_all();
  run_task(0);
  std::exception_ptr error;
  {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    error = error_;
    error_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

void ThreadPool::worker(unsigned index) {
  std::size_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= tasks_) continue;
    }
    run_task(index);
    bool last = false;
    {
      std::lock_guard lock(mutex_);
      last = --pending_ == 0;
    }
    if (last) done_.notify_one();
  }
}

}  // namespace irlite

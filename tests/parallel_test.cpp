// The thread pool and the work split the kernels rely on.

#include "core/parallel.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace irlite;

TEST_CASE("parallel: for_range covers every item once, in contiguous chunks") {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    ThreadPool pool(threads);
    const Parallel par(&pool);
    CHECK(par.threads() == threads);
    for (std::size_t n : {0u, 1u, 2u, 7u, 100u, 1001u}) {
      for (std::size_t grain : {1u, 3u, 64u}) {
        std::vector<std::atomic<int>> hits(n);
        std::mutex m;
        std::vector<std::pair<std::size_t, std::size_t>> ranges;
        par.for_range(n, grain, [&](std::size_t b, std::size_t e, std::size_t) {
          for (std::size_t i = b; i < e; ++i) ++hits[i];
          std::lock_guard lock(m);
          ranges.emplace_back(b, e);
        });
        for (std::size_t i = 0; i < n; ++i) CHECK(hits[i] == 1);
        CHECK(ranges.size() <= par.chunks(n, grain));
        CHECK(ranges.size() <= threads);
        for (const auto& [b, e] : ranges) {
          CHECK(b < e);
          if (ranges.size() > 1) CHECK(e - b >= grain);
        }
      }
    }
  }
}

TEST_CASE("parallel: the split depends only on the size, the grain and the thread count") {
  ThreadPool pool(3);
  const Parallel par(&pool);
  std::vector<std::pair<std::size_t, std::size_t>> first(3), second(3);
  par.for_range(1000, 10, [&](std::size_t b, std::size_t e, std::size_t c) { first[c] = {b, e}; });
  par.for_range(1000, 10, [&](std::size_t b, std::size_t e, std::size_t c) { second[c] = {b, e}; });
  CHECK(first == second);
  CHECK(first[0] == std::make_pair<std::size_t, std::size_t>(0, 334));
  CHECK(first[2].second == 1000);
}

TEST_CASE("parallel: tasks run on distinct threads, and a task's exception reaches the caller") {
  ThreadPool pool(2);
  std::vector<std::thread::id> ids(2);
  pool.run(2, [&](unsigned t) { ids[t] = std::this_thread::get_id(); });
  CHECK(ids[0] == std::this_thread::get_id());
  CHECK(ids[1] != ids[0]);
  CHECK_THROWS_WITH_AS(pool.run(2,
                                [](unsigned t) {
                                  if (t == 1) throw std::runtime_error("boom");
                                }),
                       "boom", std::runtime_error);
  // The pool still works after a failed run.
  std::atomic<int> count = 0;
  for (int i = 0; i < 100; ++i) pool.run(2, [&](unsigned) { ++count; });
  CHECK(count == 200);
}

TEST_CASE("parallel: workers pick up runs whether polling or asleep, with any number of tasks") {
  // Back-to-back runs meet polling workers; runs after a pause longer than the polling (200 us)
  // must wake sleeping ones. Fewer tasks than threads leave workers idle for a run, and the
  // next run must still reach them. The pools of 2 threads poll on this machine; those of 8
  // sleep at once (more threads than CPUs).
  for (unsigned threads : {2u, 3u, 8u}) {
    CAPTURE(threads);
    ThreadPool pool(threads);
    for (int round = 0; round < 60; ++round) {
      const unsigned tasks = 2 + static_cast<unsigned>(round) % (threads - 1);
      std::vector<std::atomic<int>> ran(threads);
      pool.run(tasks, [&](unsigned t) { ++ran[t]; });
      for (unsigned t = 0; t < threads; ++t) CHECK(ran[t] == (t < tasks ? 1 : 0));
      if (round % 10 == 9) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
}

TEST_CASE("parallel: a serial Parallel runs inline") {
  const Parallel par;
  CHECK(par.threads() == 1);
  std::thread::id id;
  par.for_range(10, 1,
                [&](std::size_t, std::size_t, std::size_t) { id = std::this_thread::get_id(); });
  CHECK(id == std::this_thread::get_id());
  CHECK(available_cpus() >= 1);
}

#pragma once
// A FIFO for the tests that check a reader refuses one at once. Should the code under test open
// it and wait for a writer after all, a writer comes after 10 s and goes at once: the reader
// then sees an empty file, and the test fails on its message instead of hanging.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

namespace irlite::test {

class TestFifo {
 public:
  explicit TestFifo(std::filesystem::path path) : path_(std::move(path)) {
    made_ = ::mkfifo(path_.c_str(), 0600) == 0;
    watchdog_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (stop_.wait_for(lock, std::chrono::seconds(10), [&] { return done_; })) return;
      while (!done_) {
        const int fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) ::close(fd);
        stop_.wait_for(lock, std::chrono::milliseconds(100));
      }
    });
  }
  TestFifo(const TestFifo&) = delete;
  TestFifo& operator=(const TestFifo&) = delete;
  ~TestFifo() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    stop_.notify_all();
    watchdog_.join();
    ::unlink(path_.c_str());
  }

  bool made() const { return made_; }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
  bool made_ = false;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool done_ = false;
  std::thread watchdog_;
};

}  // namespace irlite::test

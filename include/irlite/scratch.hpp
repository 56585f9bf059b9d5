#pragma once
// Scratch memory for a kernel: a slice of the Session's arena, handed out front to back.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "irlite/error.hpp"

namespace irlite {

/// The scratch memory of one kernel call. The executor keeps one arena per Session, as large as
/// the largest scratch a layer declared, and gives each call a Scratch over its declared bytes:
/// a kernel that takes its accumulators, index arrays and per-thread buffers from it allocates
/// nothing while it runs, and the run's memory budget holds by construction.
///
/// An op sizes its scratch with the code that takes it: a function that takes every piece the
/// kernel needs from a Scratch, run once on a counting Scratch (built without memory, whose
/// take() returns empty spans) gives the size to declare, and once on the real one gives the
/// pieces. Taking more than the slice holds throws Error(usage) naming both sizes: the op
/// declared less than its kernel takes.
///
/// take() is for the calling thread, before the work is split: per-thread buffers are taken as
/// one piece of threads * per_thread elements and indexed by the thread's part, so the layout
/// does not depend on which thread runs first.
class Scratch {
  enum class Mode { own, slice, count };

 public:
  /// Every piece starts on such a boundary: enough for any element type, and a cache line, so
  /// that pieces used by different threads do not share one.
  static constexpr std::size_t kAlign = 64;

  /// Without a slice: each piece is allocated on its own and freed with the Scratch. For calls
  /// outside a Session's run (constant folding while loading, a test calling a kernel).
  Scratch() = default;
  /// Over `size` bytes at `data`, aligned to kAlign.
  Scratch(void* data, std::size_t size)
      : data_(static_cast<std::byte*>(data)), size_(size), mode_(Mode::slice) {}
  /// A counting Scratch: take() returns empty spans and bytes() sums what they would hold.
  static Scratch counting() {
    Scratch s;
    s.mode_ = Mode::count;
    return s;
  }
  Scratch(Scratch&&) noexcept = default;
  Scratch& operator=(Scratch&&) noexcept = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  /// `count` default-initialised elements (plain values are left uninitialised), aligned to
  /// kAlign; an empty span when counting. The pieces live until the call returns, and are never
  /// destroyed: only for types that need no destruction.
  template <class T>
  std::span<T> take(std::size_t count) const {
    static_assert(std::is_nothrow_default_constructible_v<T> && std::is_trivially_destructible_v<T>,
                  "scratch memory holds values that need no destruction");
    const std::size_t start = align_up(used_);
    const std::size_t bytes = count > SIZE_MAX / sizeof(T) ? SIZE_MAX : count * sizeof(T);
    const std::size_t end = start > SIZE_MAX - bytes ? SIZE_MAX : start + bytes;
    if (mode_ == Mode::count) {
      used_ = end;
      return {};
    }
    T* first = nullptr;
    if (mode_ == Mode::own) {
      if (end == SIZE_MAX) throw std::bad_alloc();
      owned_.push_back(std::make_unique<Piece[]>((bytes + kAlign - 1) / kAlign));
      first = reinterpret_cast<T*>(owned_.back().get());
    } else {
      if (end > size_) overflow(end);
      first = reinterpret_cast<T*>(data_ + start);
    }
    used_ = end;
    // Begins the elements' lifetimes; no code runs for plain values.
    std::uninitialized_default_construct_n(first, count);
    return {first, count};
  }

  /// The rest of the slice as a Scratch of its own, from the next aligned byte: for code that
  /// takes its scratch after its caller's (a custom op after its adapter). This one is then used
  /// up. Outside a slice, a Scratch of the same kind; a counting one counts up to that byte.
  Scratch rest() const {
    const std::size_t start = align_up(used_);
    Scratch s;
    s.mode_ = mode_;
    if (mode_ == Mode::count) used_ = start;
    if (mode_ != Mode::slice) return s;
    const std::size_t from = std::min(start, size_);
    used_ = size_;
    return Scratch(data_ + from, size_ - from);
  }

  /// `count` pieces of `each` bytes, one per chunk of work split over threads, each a Scratch
  /// of its own (slices[c]) from which that chunk takes its buffers: the same layout whichever
  /// thread runs which chunk. `each` is what one chunk takes, counted with bytes_of().
  class Slices {
   public:
    /// Chunk c's Scratch (c < count).
    Scratch operator[](std::size_t c) const {
      if (mode_ == Mode::slice) return Scratch(base_ + c * stride_, stride_);
      Scratch s;
      s.mode_ = mode_;
      return s;
    }

   private:
    friend class Scratch;
    std::byte* base_ = nullptr;
    std::size_t stride_ = 0;
    Mode mode_ = Mode::own;
  };
  Slices slices(std::size_t count, std::size_t each) const {
    Slices s;
    s.mode_ = mode_;
    s.stride_ = align_up(each);
    const std::size_t total =
        s.stride_ != 0 && count > SIZE_MAX / s.stride_ ? SIZE_MAX : count * s.stride_;
    const std::size_t start = align_up(used_);
    const std::size_t end = start > SIZE_MAX - total ? SIZE_MAX : start + total;
    if (mode_ == Mode::slice) {
      if (end > size_) overflow(end);
      s.base_ = data_ + start;
    }
    if (mode_ != Mode::own) used_ = end;
    return s;
  }

  /// The bytes `layout(scratch)` takes: it is run on a counting Scratch.
  template <class Layout>
  static std::size_t bytes_of(Layout&& layout) {
    const Scratch counting = Scratch::counting();
    layout(counting);
    return counting.bytes();
  }

  /// The bytes taken so far, padding included: after a counting run of an op's layout
  /// function, the size the op declares. SIZE_MAX when it does not fit in a size_t.
  std::size_t bytes() const { return used_; }
  /// The bytes the slice holds.
  std::size_t size() const { return size_; }

 private:
  static std::size_t align_up(std::size_t n) {
    return n > SIZE_MAX - (kAlign - 1) ? SIZE_MAX : (n + kAlign - 1) / kAlign * kAlign;
  }
  [[noreturn]] void overflow(std::size_t end) const {
    throw Error(ErrorCode::usage, "the kernel took " + std::to_string(end) +
                                      " bytes of scratch memory, more than the " +
                                      std::to_string(size_) + " its op declared");
  }

  struct alignas(kAlign) Piece {
    std::byte bytes[kAlign];
  };

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  Mode mode_ = Mode::own;
  mutable std::size_t used_ = 0;
  mutable std::vector<std::unique_ptr<Piece[]>> owned_;
};

}  // namespace irlite

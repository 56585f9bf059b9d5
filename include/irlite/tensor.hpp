#pragma once
// A tensor: element type, concrete shape and a buffer that is owned, shared or borrowed.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "irlite/element_type.hpp"
#include "irlite/shape.hpp"

namespace irlite {

/// A dense row-major tensor. Copies share the buffer (a Tensor is a handle); use clone() for a
/// deep copy. The buffer is either allocated by irlite or borrowed from the caller.
class Tensor {
 public:
  /// An empty tensor of undefined type.
  Tensor() = default;
  /// Allocates a zero-filled buffer for `shape`. Throws irlite::Error when the byte size
  /// overflows.
  Tensor(ElementType type, Shape shape);
  /// Borrows `data` (at least byte_size bytes, aligned for the element type) without copying.
  /// `keep_alive`, when given, is held as long as any copy of the tensor lives.
  static Tensor view(ElementType type, Shape shape, void* data,
                     std::shared_ptr<const void> keep_alive = {});
  /// Borrows read-only data; writing through data() of such a tensor is the caller's error.
  static Tensor view(ElementType type, Shape shape, const void* data,
                     std::shared_ptr<const void> keep_alive = {});

  ElementType element_type() const { return type_; }
  const Shape& shape() const { return shape_; }
  std::size_t rank() const { return shape_.size(); }
  /// Number of elements.
  std::size_t size() const { return size_; }
  std::size_t byte_size() const { return size_ * element_size(type_); }
  bool empty() const { return size_ == 0; }

  void* data() { return data_; }
  const void* data() const { return data_; }
  /// Typed access; T must match the element type's storage (float16 for f16, bool-sized
  /// std::uint8_t for boolean...). Not checked: use element_type() first.
  template <class T>
  T* data() {
    return static_cast<T*>(data_);
  }
  template <class T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }
  template <class T>
  std::span<const T> values() const {
    return {data<T>(), size_};
  }
  template <class T>
  std::span<T> values() {
    return {data<T>(), size_};
  }
  /// A deep copy with its own buffer.
  Tensor clone() const;

 private:
  ElementType type_ = ElementType::undefined;
  Shape shape_;
  std::size_t size_ = 0;
  void* data_ = nullptr;
  std::shared_ptr<const void> owner_;
};

/// Reads element `i` of an integral tensor (i8..u64) as int64; u64 values above INT64_MAX
/// saturate. Used for small index-like inputs (k, axes, num_segments).
std::int64_t integer_at(const Tensor& t, std::size_t i);

}  // namespace irlite

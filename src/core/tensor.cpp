#include "irlite/tensor.hpp"

#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/buffer.hpp"
#include "irlite/error.hpp"

namespace irlite {
namespace {

std::size_t checked_size(ElementType type, const Shape& shape) {
  const auto n = element_count(shape);
  const std::size_t width = element_size(type);
  if (!n || (width && static_cast<std::uint64_t>(*n) > std::numeric_limits<std::size_t>::max() / width))
    throw Error(ErrorCode::shape, "tensor of shape " + to_string(shape) + " and type " +
                                      std::string(to_string(type)) + " is too large");
  return static_cast<std::size_t>(*n);
}

}  // namespace

Tensor::Tensor(ElementType type, Shape shape)
    : type_(type), shape_(std::move(shape)), size_(checked_size(type_, shape_)) {
  std::shared_ptr<void> buffer = allocate_buffer(byte_size(), true);
  data_ = buffer.get();
  owner_ = std::move(buffer);
}

Tensor Tensor::view(ElementType type, Shape shape, void* data,
                    std::shared_ptr<const void> keep_alive) {
  Tensor t;
  t.type_ = type;
  t.shape_ = std::move(shape);
  t.size_ = checked_size(type, t.shape_);
  t.data_ = data;
  t.owner_ = std::move(keep_alive);
  return t;
}

Tensor Tensor::view(ElementType type, Shape shape, const void* data,
                    std::shared_ptr<const void> keep_alive) {
  return view(type, std::move(shape), const_cast<void*>(data), std::move(keep_alive));
}

Tensor Tensor::clone() const {
  // Every byte is copied over: no need to zero them first.
  Tensor t = uninitialized_tensor(type_, shape_);
  if (byte_size()) std::memcpy(t.data_, data_, byte_size());
  return t;
}

std::int64_t integer_at(const Tensor& t, std::size_t i) {
  switch (t.element_type()) {
    case ElementType::i8: return t.data<std::int8_t>()[i];
    case ElementType::i16: return t.data<std::int16_t>()[i];
    case ElementType::i32: return t.data<std::int32_t>()[i];
    case ElementType::i64: return t.data<std::int64_t>()[i];
    case ElementType::u8: return t.data<std::uint8_t>()[i];
    case ElementType::u16: return t.data<std::uint16_t>()[i];
    case ElementType::u32: return t.data<std::uint32_t>()[i];
    case ElementType::u64: {
      const std::uint64_t v = t.data<std::uint64_t>()[i];
      return v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                 ? std::numeric_limits<std::int64_t>::max()
                 : static_cast<std::int64_t>(v);
    }
    default:
      throw Error(ErrorCode::usage, "integer_at: tensor of type " +
                                        std::string(to_string(t.element_type())) +
                                        " is not integral");
  }
}

}  // namespace irlite

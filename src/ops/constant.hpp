#pragma once
// Constant-1 (IR type `Const`): a tensor stored in the weights file at [offset, offset+size).

#include <cstdint>

#include "ops/op.hpp"

namespace irlite {

class ConstantOp final : public Op {
 public:
  ConstantOp(ElementType type, Shape shape, std::uint64_t offset, std::uint64_t size)
      : type_(type), shape_(std::move(shape)), offset_(offset), size_(size) {}
  ElementType element_type() const { return type_; }
  const Shape& shape() const { return shape_; }
  std::uint64_t offset() const { return offset_; }
  std::uint64_t size() const { return size_; }

  std::vector<OutputInfo> infer(std::span<const ValueInfo> inputs, Phase phase) const override;
  void execute(std::span<const Tensor>, std::span<Tensor>, const ExecContext&) const override {}
  std::vector<std::pair<std::string, std::string>> attributes() const override;

 private:
  ElementType type_;
  Shape shape_;
  std::uint64_t offset_;
  std::uint64_t size_;
};

}  // namespace irlite

#pragma once
// Parameter-1: a model input with a declared element type and partial shape.

#include "graph/op.hpp"

namespace irlite {

class ParameterOp final : public Op {
 public:
  ParameterOp(ElementType type, PartialShape shape) : type_(type), shape_(std::move(shape)) {}
  ElementType element_type() const { return type_; }
  const PartialShape& shape() const { return shape_; }

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override;
  void execute(std::span<const Tensor>, std::span<Tensor>, const ExecContext&) const override {}
  std::vector<std::pair<std::string, std::string>> attributes() const override;

 private:
  ElementType type_;
  PartialShape shape_;
};

}  // namespace irlite

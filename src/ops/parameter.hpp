#pragma once
// Parameter-1: a model input with a declared element type and partial shape.

#include "graph/op.hpp"

namespace irlite {

class AttributeVisitor;

struct ParameterAttributes {
  ElementType element_type = ElementType::undefined;
  PartialShape shape;
  void visit(AttributeVisitor& v);
};

class ParameterOp final : public Op {
 public:
  ParameterOp(ElementType type, PartialShape shape) : attributes_{type, std::move(shape)} {}
  ElementType element_type() const { return attributes_.element_type; }
  const PartialShape& shape() const { return attributes_.shape; }

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override;
  void execute(std::span<const Tensor>, std::span<Tensor>, const ExecContext&) const override {}
  std::vector<std::pair<std::string, std::string>> attributes() const override;
  std::shared_ptr<const Op> retyped(ElementType from, ElementType to) const override {
    if (attributes_.element_type != from) return nullptr;
    return std::make_shared<ParameterOp>(to, attributes_.shape);
  }

 private:
  ParameterAttributes attributes_;
};

}  // namespace irlite

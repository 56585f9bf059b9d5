#pragma once
// The element-wise unary ops (Relu, Exp, Floor, Round, Clamp...): one Op template over a
// function object that says which element types the op takes and gives the scalar kernel for
// each of them. The output has the input's type and shape.

#include <fmt/format.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/attribute_visitor.hpp"
#include "graph/op.hpp"
#include "kernels/element.hpp"
#include "kernels/unary.hpp"

namespace irlite {

/// Fn provides:
///   static constexpr bool integers;   whether integer inputs are accepted
///   static constexpr bool monotonic;  whether the output never decreases as the input grows
///                                     (integer bounds then propagate through it)
///   template <class T, class Run> void apply(Run run) const;  calls run(f) with the functor f
///                                     applied to each element of storage type T
///   void visit(AttributeVisitor& v);  names the attributes, read by create_unary() and shown by
///                                     attributes() (core/attribute_visitor.hpp)
template <class Fn>
class UnaryOp final : public Op {
 public:
  explicit UnaryOp(Fn fn) : fn_(std::move(fn)) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    // The input's type is one the OpDef lists (unary_def()): the output keeps it and the shape.
    return {{inputs[0].type, inputs[0].shape}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    Tensor& out = outputs[0];
    const bool ok = dispatch_numeric(data.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (Fn::integers || is_float_storage_v<T>)
        fn_.template apply<T>([&](auto f) {
          unary_map(context.parallel, data.data<T>(), out.data<T>(), data.size(), f);
        });
    });
    if (!ok || (!Fn::integers && !is_real(data.element_type()))) no_kernel(0, data.element_type());
  }

  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    if constexpr (Fn::monotonic)
      return monotonic_bounds(*this, inputs, output);
    else
      return std::nullopt;
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(fn_);
  }

 private:
  Fn fn_;
};

/// A stateless Fn built from a scalar function object F on compute types (float for the 16-bit
/// floats, the type itself otherwise).
template <class F, bool Integers, bool Monotonic>
struct PlainFn {
  static constexpr bool integers = Integers;
  static constexpr bool monotonic = Monotonic;
  template <class T, class Run>
  void apply(Run run) const {
    run(Lifted<T, F>{F{}});
  }
  void visit(AttributeVisitor&) {}
};

template <class Fn>
std::unique_ptr<const Op> create_unary(const Attributes& a) {
  return std::make_unique<UnaryOp<Fn>>(read_attributes<Fn>(a));
}

/// The registry entry of a unary op: one input, one output of the same type.
template <class Fn>
OpDef unary_def(std::string_view type, int version, int since_opset) {
  const std::vector<ElementType> types = Fn::integers ? numeric_types() : real_types();
  return {
      .type = type,
      .version = version,
      .since_opset = since_opset,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = create_unary<Fn>,
      .input_types = {{"data", types}},
      .output_types = {{"output", types}},
  };
}

}  // namespace irlite

#pragma once
// Scaffolding shared by the op tests (tests/op_*_test.cpp), which drive one Op directly rather
// than through a model: ValueInfo and PartialShape from text, the load-time path (infer on
// partial shapes, Const values only) and the run-time path (infer with every value known,
// allocate, execute), and catching irlite::Error. Header-only; the tensors come from
// tensors.hpp.
//
// A helper that meets a bad argument (a shape text that does not parse, an op that is not
// registered) stops the test case, so a mistake in a test
// is never mistaken for a result. The reference kernels the tests compare against stay in their
// own test files.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/attributes.hpp"
#include "graph/op.hpp"
#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "ops/registry.hpp"
#include "tensors.hpp"

namespace irlite::test {


/// Every numeric element type (f16, bf16, f32, f64, i8..i64, u8..u64): the types an op over
/// "any numeric type" must handle.
inline constexpr ElementType kNumericTypes[] = {
    ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64,
    ElementType::i8,  ElementType::i16,  ElementType::i32, ElementType::i64,
    ElementType::u8,  ElementType::u16,  ElementType::u32, ElementType::u64};

/// The registry entry a layer of `type` in `opset` ("opset11") resolves to. Stops the test,
/// with the registry's reason, when there is none.
inline const OpDef& op_def(std::string_view type, std::string_view opset) {
  std::string why;
  const OpDef* def = resolve_op(type, opset, &why);
  REQUIRE_MESSAGE(def, why);
  return *def;
}

/// An op's `<data>` attributes, in order.
using AttributeList = std::vector<std::pair<std::string, std::string>>;

/// The registered op `type` of `opset`, made from `attributes` as the loader makes it.
inline std::unique_ptr<const Op> make(std::string_view type, std::string_view opset,
                                      AttributeList attributes = {}) {
  return op_def(type, opset).create(Attributes(std::move(attributes)));
}

/// A partial shape from its text ("[2,?,1..4]", "[...]"). Stops the test when it does not parse.
inline PartialShape ps(std::string_view text) {
  std::string why;
  std::optional<PartialShape> shape = parse_partial_shape(text, &why);
  REQUIRE_MESSAGE(shape, text << ": " << why);
  return *shape;
}

/// An input whose type, static shape and value are `t`'s, as at run time or for a Const at
/// load time. Points at `t`, which must outlive the ValueInfo.
inline ValueInfo info(const Tensor& t) {
  return {t.element_type(), PartialShape::from_shape(t.shape()), &t};
}

/// An input as the loader sees it: a type, a partial shape from its text ("[2,?]") and a value
/// only when given (a Const). Stops the test when the shape does not parse.
inline ValueInfo info(ElementType type, std::string_view shape, const Tensor* value = nullptr) {
  return {type, ps(shape), value};
}

/// The op's outputs inferred from `inputs`. Stops the test unless there are `num_outputs`.
inline std::vector<OutputInfo> infer_outputs(const Op& op, const std::vector<ValueInfo>& inputs,
                                             std::size_t num_outputs = 1) {
  std::vector<OutputInfo> outputs = op.infer(inputs);
  REQUIRE(outputs.size() == num_outputs);
  return outputs;
}

/// An inferred output as text: its element type and partial shape ("f32 [?,12,81]").
inline std::string output_text(const OutputInfo& output) {
  return std::string(to_string(output.type)) + " " + to_string(output.shape);
}

/// The single output a single-output op infers from `inputs`, as text ("f32 [?,12,81]").
inline std::string inferred(const Op& op, const std::vector<ValueInfo>& inputs) {
  return output_text(infer_outputs(op, inputs, 1)[0]);
}

/// The first half of a run: the op infers its outputs at run time, as the executor does before
/// allocating: every input's shape known, and the values of those the op's shape rule needs.
/// Stops the test unless there are `num_outputs`, all with static shapes (which infer()
/// promises at run time).
inline std::vector<OutputInfo> infer_at_run_time(const Op& op, const std::vector<Tensor>& inputs,
                                                 std::size_t num_outputs) {
  std::vector<ValueInfo> infos;
  infos.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    infos.push_back(info(inputs[i]));
    if (!op.shape_needs_value(i, inputs.size())) infos.back().value = nullptr;
  }
  std::vector<OutputInfo> outputs = op.infer(infos, Phase::run);
  REQUIRE(outputs.size() == num_outputs);
  std::string shapes;
  for (const OutputInfo& o : outputs) shapes += output_text(o) + "; ";
  REQUIRE_MESSAGE(std::all_of(outputs.begin(), outputs.end(),
                              [](const OutputInfo& o) { return o.shape.is_static(); }),
                  "run-time outputs must be static: " << shapes);
  return outputs;
}

/// The second half: allocates `outputs` and executes the op into them. Every output byte starts
/// as 0xA5 rather than zero, so an element the kernel leaves unwritten shows as junk instead of
/// passing for a zero.
inline std::vector<Tensor> allocate_and_execute(const Op& op, const std::vector<Tensor>& inputs,
                                                const std::vector<OutputInfo>& outputs,
                                                const ExecContext& context = {}) {
  std::vector<Tensor> tensors;
  tensors.reserve(outputs.size());
  for (const OutputInfo& o : outputs) {
    Tensor t(o.type, o.shape.to_shape());
    if (t.byte_size() > 0) std::memset(t.data(), 0xA5, t.byte_size());
    tensors.push_back(std::move(t));
  }
  op.execute(inputs, tensors, context);
  return tensors;
}

/// A whole run of the op on `inputs`: infer_at_run_time, then allocate_and_execute. Returns the
/// `num_outputs` outputs in port order. An irlite::Error from infer() or execute() propagates.
inline std::vector<Tensor> run_all(const Op& op, const std::vector<Tensor>& inputs,
                                   std::size_t num_outputs) {
  return allocate_and_execute(op, inputs, infer_at_run_time(op, inputs, num_outputs));
}

/// run_all for a single-output op: its one output.
inline Tensor run(const Op& op, const std::vector<Tensor>& inputs) {
  return run_all(op, inputs, 1)[0];
}

/// Thread pools of 2, 3 and 8 threads, shared by the tests that check that kernels give the
/// same bits on any number of threads.
inline const std::vector<ThreadPool*>& test_pools() {
  static ThreadPool two(2), three(3), eight(8);
  static const std::vector<ThreadPool*> pools{&two, &three, &eight};
  return pools;
}

/// The irlite::Error `f()` throws, or nothing when it returns normally. Any other exception
/// propagates (and fails the test).
template <class F>
std::optional<Error> caught(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace irlite::test

// The reductions over the axes given by the second input: ReduceMax-1, ReduceMin-1,
// ReduceSum-1, ReduceProd-1, ReduceMean-1, ReduceL1-4, ReduceL2-4, ReduceLogicalAnd-1 and
// ReduceLogicalOr-1. They share one shape rule and one kernel (kernels/reduce.hpp); a table
// names each op's kind, its opset and its element types.

#include "kernels/reduce.hpp"

#include <fmt/format.h>

#include "core/attribute_visitor.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

enum class Kind { max, min, sum, prod, mean, l1, l2, logical_and, logical_or };

bool is_logical(Kind kind) {
  return kind == Kind::logical_and || kind == Kind::logical_or;
}

/// ReduceLogicalAnd and ReduceLogicalOr: the minimum and maximum of booleans, any non-zero byte
/// counting as true; an empty extent gives true and false, the identities of `and` and `or`.
template <bool kAnd>
struct ReduceLogicalKind : ReduceExtremum<kAnd> {
  template <class T>
  static T empty() {
    return kAnd ? 1 : 0;
  }
  static constexpr bool kFinish = true;
  template <class C>
  static C finish(C v, std::int64_t) {
    return v != 0 ? 1 : 0;
  }
};

template <class K>
inline constexpr bool kLogicalKind = false;
template <bool kAnd>
inline constexpr bool kLogicalKind<ReduceLogicalKind<kAnd>> = true;

/// Calls f(type_tag<K>{}) with the kernel policy of `kind`.
template <class F>
void dispatch_kind(Kind kind, F&& f) {
  switch (kind) {
    case Kind::max:
      f(type_tag<ReduceMaxKind>{});
      break;
    case Kind::min:
      f(type_tag<ReduceMinKind>{});
      break;
    case Kind::sum:
      f(type_tag<ReduceSumKind>{});
      break;
    case Kind::prod:
      f(type_tag<ReduceProdKind>{});
      break;
    case Kind::mean:
      f(type_tag<ReduceMeanKind>{});
      break;
    case Kind::l1:
      f(type_tag<ReduceL1Kind>{});
      break;
    case Kind::l2:
      f(type_tag<ReduceL2Kind>{});
      break;
    case Kind::logical_and:
      f(type_tag<ReduceLogicalKind<true>>{});
      break;
    case Kind::logical_or:
      f(type_tag<ReduceLogicalKind<false>>{});
      break;
  }
}

/// Calls f(type_tag<T>{}) with the storage type the reduction of `kind` runs on for data of
/// `type`: a numeric type's own, u8 for booleans under the logical reductions. False when the
/// type is not one the op takes.
template <class F>
bool dispatch_data(Kind kind, ElementType type, F&& f) {
  if (is_logical(kind)) {
    if (type != ElementType::boolean) return false;
    f(type_tag<std::uint8_t>{});
    return true;
  }
  return dispatch_numeric(type, std::forward<F>(f));
}

/// The axes normalised into [0, rank). Out-of-range axes are a shape error when found while
/// loading (OpenVINO rejects a Const axes the same way) and a value error at run time.
std::vector<std::int64_t> normalized_axes(const Tensor& axes, std::int64_t rank, Phase phase) {
  std::vector<std::int64_t> result = integer_values(axes);
  for (std::int64_t& a : result) {
    const auto n = normalize_axis(a, rank);
    if (!n) {
      std::string message = axis_range_message(a, rank);
      bad_value(phase, 1, std::move(message));
    }
    a = *n;
  }
  return result;
}

struct ReduceAttributes {
  bool keep_dims = false;
  void visit(AttributeVisitor& v) { v.on("keep_dims", keep_dims, false); }
};

class ReduceOp final : public Op {
 public:
  ReduceOp(Kind kind, const ReduceAttributes& attributes) : kind_(kind), attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& axes = inputs[1];
    if (axes.shape.rank_is_static() && axes.shape.rank() > 1)
      input_error(1, "axes must be a scalar or 1-D, got " + to_string(axes.shape));

    const PartialShape& in = data.shape;
    if (in.rank_is_static() && axes.value) {
      const std::int64_t rank = in.rank();
      // The reduced axes as bits: without an allocation for the ranks models have, as the rule
      // runs for every reduction at load and again when the run is planned.
      constexpr std::int64_t kWord = 64;
      std::uint64_t few = 0;
      std::vector<bool> many(static_cast<std::size_t>(rank > kWord ? rank : 0), false);
      const auto reduced = [&](std::int64_t i) {
        return rank > kWord ? static_cast<bool>(many[static_cast<std::size_t>(i)])
                            : (few >> i & 1) != 0;
      };
      // Duplicate axes are accepted (the spec forbids them, OpenVINO does not): one reduction.
      for (const std::int64_t a : normalized_axes(*axes.value, rank, phase)) {
        if (rank > kWord)
          many[static_cast<std::size_t>(a)] = true;
        else
          few |= std::uint64_t{1} << a;
      }
      std::vector<Dimension> dims;
      dims.reserve(static_cast<std::size_t>(rank));
      for (std::int64_t i = 0; i < rank; ++i) {
        if (!reduced(i))
          dims.push_back(in[static_cast<std::size_t>(i)]);
        else if (attributes_.keep_dims)
          dims.emplace_back(1);
      }
      // Moved into the result rather than copied out of an initializer list: the rule runs for
      // every reduction of a model at load, and again when the run is planned.
      std::vector<OutputInfo> result(1);
      result[0].type = data.type;
      result[0].shape = PartialShape(std::move(dims));
      return result;
    }
    // Axes unknown (or data rank unknown): OpenVINO's rule (reduce_shape_inference.hpp).
    if (attributes_.keep_dims) {
      if (!in.rank_is_static()) return {{data.type, PartialShape::dynamic_rank()}};
      return {{data.type, PartialShape(std::vector<Dimension>(in.dims().size()))}};
    }
    if (in.rank_is_static() && axes.shape.is_static() &&
        element_count(axes.shape.to_shape()) == 1) {
      if (in.rank() == 0)
        input_error(1, "axes holds one axis but data is a scalar, which has no axis to reduce");
      return {{data.type, PartialShape(std::vector<Dimension>(in.dims().size() - 1))}};
    }
    return {{data.type, PartialShape::dynamic_rank()}};
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 1; }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                            unsigned threads) const override {
    std::size_t bytes = 0;
    dispatch_data(kind_, inputs[0].element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      bytes = reduce_scratch<T>(inputs[0].size(), outputs[0].size(), threads);
    });
    return bytes;
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& data = inputs[0];
    const auto rank = static_cast<std::int64_t>(data.rank());
    const std::vector<std::int64_t> axes = normalized_axes(inputs[1], rank, Phase::run);
    const ReducePlan plan = plan_reduce(data.shape(), axes);
    Tensor& out = outputs[0];
    const bool known = dispatch_data(kind_, data.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      dispatch_kind(kind_, [&](auto kind_tag) {
        using K = typename decltype(kind_tag)::type;
        // The logical reductions run on booleans only, stored as u8.
        if constexpr (!kLogicalKind<K> || std::is_same_v<T, std::uint8_t>)
          reduce<K>(context.parallel, data.data<T>(), plan, out.data<T>(), reduce_detail::kGrain,
                    context.scratch);
      });
    });
    if (!known) no_kernel(0, data.element_type());
  }

  /// The maximum and minimum of integers grow with every element: a reduced ShapeOf keeps its
  /// bounds. Only with known axes, so that the bounds' shapes are the output's.
  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    if ((kind_ != Kind::max && kind_ != Kind::min) || !inputs[1].value) return std::nullopt;
    return monotonic_bounds(*this, inputs, output);
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  Kind kind_;
  ReduceAttributes attributes_;
};

/// The registry entry of a reduction.
OpDef reduce_def(std::string_view type, int version, Kind kind) {
  const std::vector<ElementType> types =
      is_logical(kind) ? std::vector<ElementType>{ElementType::boolean} : numeric_types();
  return {
      .type = type,
      .version = version,
      .since_opset = version,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = [kind](const Attributes& a) -> std::unique_ptr<const Op> {
        return std::make_unique<ReduceOp>(kind, read_attributes<ReduceAttributes>(a));
      },
      .input_types = {{"data", types}, {"axes", integral_types()}},
      .output_types = {{"output", types}},
  };
}

}  // namespace

OpDef reduce_max_op() {
  return reduce_def("ReduceMax", 1, Kind::max);
}
OpDef reduce_min_op() {
  return reduce_def("ReduceMin", 1, Kind::min);
}
OpDef reduce_sum_op() {
  return reduce_def("ReduceSum", 1, Kind::sum);
}
OpDef reduce_prod_op() {
  return reduce_def("ReduceProd", 1, Kind::prod);
}
OpDef reduce_mean_op() {
  return reduce_def("ReduceMean", 1, Kind::mean);
}
OpDef reduce_l1_op() {
  return reduce_def("ReduceL1", 4, Kind::l1);
}
OpDef reduce_l2_op() {
  return reduce_def("ReduceL2", 4, Kind::l2);
}
OpDef reduce_logical_and_op() {
  return reduce_def("ReduceLogicalAnd", 1, Kind::logical_and);
}
OpDef reduce_logical_or_op() {
  return reduce_def("ReduceLogicalOr", 1, Kind::logical_or);
}

}  // namespace irlite

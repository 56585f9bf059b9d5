// The element-wise binary ops with broadcasting (specs: arithmetic/add-1 ... power-1,
// comparison/equal-1 ... greater-equal-1, logical/logical-and-1 ... logical-xor-1) and
// LogicalNot-1. They differ only by their scalar function (kernels/binary_functions.hpp) and
// by the element types they take: arithmetic any numeric type, comparisons any type (boolean
// out), logical ops boolean.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>

#include "core/attribute_visitor.hpp"
#include "kernels/binary_functions.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/simd.hpp"
#include "ops/broadcast_rules.hpp"
#include "ops/channel_steps.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

enum class Kind {
  add,
  subtract,
  multiply,
  divide,
  maximum,
  minimum,
  power,
  equal,
  not_equal,
  less,
  less_equal,
  greater,
  greater_equal,
  logical_and,
  logical_or,
  logical_xor,
};

enum class Family { arithmetic, comparison, logical };

Family family_of(Kind k) {
  if (k <= Kind::power) return Family::arithmetic;
  if (k <= Kind::greater_equal) return Family::comparison;
  return Family::logical;
}

/// Calls f(functor) with the scalar function of `kind` for element type T.
template <class T, class F>
void with_function(Kind kind, bool pythondiv, bool booleans, F&& f) {
  using namespace binary_fn;
  const auto compare = [&](auto fn) {
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      // Booleans travel as bytes, as u8 does; they are compared as truth values.
      if (booleans) {
        f(OnBooleans<decltype(fn)>{fn});
        return;
      }
    }
    f(fn);
  };
  switch (kind) {
    case Kind::add:
      f(Add{});
      return;
    case Kind::subtract:
      f(Subtract{});
      return;
    case Kind::multiply:
      f(Multiply{});
      return;
    case Kind::divide:
      f(Divide{pythondiv});
      return;
    case Kind::maximum:
      f(Maximum{});
      return;
    case Kind::minimum:
      f(Minimum{});
      return;
    case Kind::power:
      f(Power{});
      return;
    case Kind::equal:
      compare(Equal{});
      return;
    case Kind::not_equal:
      compare(NotEqual{});
      return;
    case Kind::less:
      compare(Less{});
      return;
    case Kind::less_equal:
      compare(LessEqual{});
      return;
    case Kind::greater:
      compare(Greater{});
      return;
    case Kind::greater_equal:
      compare(GreaterEqual{});
      return;
    case Kind::logical_and:
      f(LogicalAnd{});
      return;
    case Kind::logical_or:
      f(LogicalOr{});
      return;
    case Kind::logical_xor:
      f(LogicalXor{});
      return;
  }
}

/// The input shapes aligned to the output's rank, and the plan over them.
ElementwisePlan plan_for(std::span<const Tensor> inputs, const Tensor& out,
                         const BroadcastSpec& spec) {
  std::array<Shape, kMaxElementwiseInputs> aligned;
  for (std::size_t k = 0; k < inputs.size(); ++k)
    aligned[k] = align_shape(inputs[k].shape(), out.rank(), spec);
  return plan_elementwise(out.shape(), std::span<const Shape>(aligned.data(), inputs.size()));
}

// ---- Value bounds -------------------------------------------------------------------------

/// What is known of one integer element: [lo, hi], hi unbounded when `open`.
struct Range {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  bool open = false;
};

/// Each element's range of an input with a value or bounds; empty when neither.
std::vector<Range> ranges_of(const ValueInfo& in) {
  const Tensor* lo = in.value ? in.value : in.lower;
  const Tensor* hi = in.value ? in.value : in.upper;
  if (!lo || !hi || lo->size() != hi->size()) return {};
  const std::int64_t type_max = integer_type_max(in.type);
  std::vector<Range> r(lo->size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i].lo = integer_at(*lo, i);
    r[i].hi = integer_at(*hi, i);
    r[i].open = !in.value && r[i].hi >= type_max;
  }
  return r;
}

/// The range of a op b from the ranges of a and b; nullopt when the op may leave the int64
/// range or the bounds cannot be had simply (a product with a possibly negative factor).
std::optional<Range> combine(Kind kind, const Range& a, const Range& b) {
  Range r;
  switch (kind) {
    case Kind::add:
      if (__builtin_add_overflow(a.lo, b.lo, &r.lo)) return std::nullopt;
      r.open = a.open || b.open;
      if (!r.open && __builtin_add_overflow(a.hi, b.hi, &r.hi)) return std::nullopt;
      return r;
    case Kind::subtract:
      // The lowest difference takes the other's highest value: unbounded, it has none.
      if (b.open || __builtin_sub_overflow(a.lo, b.hi, &r.lo)) return std::nullopt;
      r.open = a.open;
      if (!r.open && __builtin_sub_overflow(a.hi, b.lo, &r.hi)) return std::nullopt;
      return r;
    case Kind::multiply:
      if (a.lo < 0 || b.lo < 0) return std::nullopt;
      if (__builtin_mul_overflow(a.lo, b.lo, &r.lo)) return std::nullopt;
      r.open = a.open || b.open;
      if (!r.open && __builtin_mul_overflow(a.hi, b.hi, &r.hi)) return std::nullopt;
      return r;
    case Kind::maximum:
      r.lo = std::max(a.lo, b.lo);
      r.open = a.open || b.open;
      r.hi = std::max(a.hi, b.hi);
      return r;
    case Kind::minimum:
      r.lo = std::min(a.lo, b.lo);
      r.open = a.open && b.open;
      r.hi = a.open ? b.hi : b.open ? a.hi : std::min(a.hi, b.hi);
      return r;
    default:
      return std::nullopt;
  }
}

/// Writes v into element i of an integer tensor (v within the type's range).
void put_integer(Tensor& t, std::size_t i, std::int64_t v) {
  dispatch_numeric(t.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_same_v<T, std::uint64_t>) {
        // An open upper bound of u64 is its largest value, which int64 cannot hold.
        t.data<T>()[i] = v == std::numeric_limits<std::int64_t>::max()
                             ? std::numeric_limits<T>::max()
                             : static_cast<T>(v);
      } else {
        t.data<T>()[i] = static_cast<T>(v);
      }
    }
  });
}

std::int64_t integer_type_min(ElementType type) {
  std::int64_t m = 0;
  dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      m = static_cast<std::int64_t>(std::numeric_limits<T>::min());
  });
  return m;
}

// ---- The op ---------------------------------------------------------------------------------

struct BinaryAttributes {
  Kind kind = Kind::add;  // not an attribute
  BroadcastSpec spec;
  // Divide's only: whether an integer quotient is rounded down, as Python's (else toward zero).
  bool pythondiv = false;

  void visit(AttributeVisitor& v) {
    spec.visit(v);
    if (kind == Kind::divide) v.on("m_pythondiv", pythondiv, true);
  }
};

/// out = a + b on n floats, as the Add kernel gives them.
IRLITE_MULTIVERSION void add_floats(const float* a, const float* b, float* out, std::int64_t n) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  std::int64_t i = 0;
  for (; i + L <= n; i += L) simd::store(out + i, simd::load(a + i) + simd::load(b + i));
  for (; i < n; ++i) out[i] = a[i] + b[i];
}

/// out[i] = a[i] * b[i] on floats.
IRLITE_MULTIVERSION void multiply_floats(const float* a, const float* b, float* out,
                                         std::int64_t n) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  std::int64_t i = 0;
  for (; i + L <= n; i += L) simd::store(out + i, simd::load(a + i) * simd::load(b + i));
  for (; i < n; ++i) out[i] = a[i] * b[i];
}

/// out[i] = x[i] op v (or v op x[i] when `value_first`), op + or *, on floats: an input plane
/// with its channel's value.
template <bool Multiply>
IRLITE_MULTIVERSION void with_value(const float* x, float v, bool value_first, float* out,
                                    std::int64_t n) {
  const auto op = [](auto p, auto q) { return Multiply ? p * q : p + q; };
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  const auto vv = simd::broadcast(v);
  std::int64_t i = 0;
  if (value_first) {
    for (; i + L <= n; i += L) simd::store(out + i, op(vv, simd::load(x + i)));
    for (; i < n; ++i) out[i] = op(v, x[i]);
  } else {
    for (; i + L <= n; i += L) simd::store(out + i, op(simd::load(x + i), vv));
    for (; i < n; ++i) out[i] = op(x[i], v);
  }
}

/// Which of the inputs `a` and `b` of an output `out` (rank 2 or more) is one value per channel
/// (its dims 1 but the one that broadcasts to out's axis 1, which is out's channels) while the
/// other has out's shape: 0 or 1, or -1 when neither.
int per_channel_input(const Tensor& a, const Tensor& b, const Tensor& out) {
  const Shape& shape = out.shape();
  for (int k = 0; k < 2; ++k) {
    const Tensor& values = k == 0 ? a : b;
    const Tensor& data = k == 0 ? b : a;
    if (data.shape() != shape || values.size() != static_cast<std::size_t>(shape[1])) continue;
    const Shape& v = values.shape();
    if (v.size() > shape.size() || v.size() + 1 < shape.size()) continue;
    const std::size_t axis = 1 + v.size() - shape.size();  // out's axis 1 in values' dims
    bool ok = true;
    for (std::size_t j = 0; j < v.size(); ++j)
      if (j != axis && v[j] != 1) ok = false;
    if (ok) return k;
  }
  return -1;
}

class BinaryOp final : public Op {
 public:
  explicit BinaryOp(const BinaryAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& a = inputs[0];
    const ValueInfo& b = inputs[1];
    if (a.type != b.type)
      input_error(1, fmt::format("the inputs' element types must match: input 0 is {}, input 1 "
                                 "is {}",
                                 to_string(a.type), to_string(b.type)));
    const Family family = family_of(attributes_.kind);
    const std::optional<PartialShape> shape = broadcast_shapes(a.shape, b.shape, attributes_.spec);
    if (!shape) op_error(broadcast_error(a.shape, b.shape, attributes_.spec));
    const ElementType type = family == Family::arithmetic ? a.type : ElementType::boolean;
    return {{type, *shape}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Tensor& a = inputs[0];
    const Tensor& b = inputs[1];
    Tensor& out = outputs[0];
    if (out.empty()) return;
    if (!steps_.empty()) return run_fused(inputs, out, context);
    if (attributes_.kind == Kind::divide) check_divisor(b);
    const ElementwisePlan plan = plan_for(inputs, out, attributes_.spec);
    const auto typed = [&](auto tag) {
      using T = typename decltype(tag)::type;
      with_function<T>(attributes_.kind, attributes_.pythondiv,
                       a.element_type() == ElementType::boolean, [&](auto fn) {
                         using R = decltype(fn(T{}, T{}));
                         binary_elementwise(context.parallel, plan, fn, a.data<T>(), b.data<T>(),
                                            out.data<R>());
                       });
    };
    if (a.element_type() == ElementType::boolean) {
      if (family_of(attributes_.kind) == Family::arithmetic) no_kernel(0, ElementType::boolean);
      typed(type_tag<std::uint8_t>{});
      return;
    }
    if (family_of(attributes_.kind) == Family::logical)
      input_error(
          0, fmt::format("logical ops need boolean inputs, got {}", to_string(a.element_type())));
    if (!dispatch_numeric(a.element_type(), typed))
      input_error(0, fmt::format("unsupported element type {}", to_string(a.element_type())));
  }

  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    if (family_of(attributes_.kind) != Family::arithmetic || !output.shape.is_static())
      return std::nullopt;
    if (attributes_.kind == Kind::divide || attributes_.kind == Kind::power) return std::nullopt;
    const std::vector<Range> ra = ranges_of(inputs[0]);
    const std::vector<Range> rb = ranges_of(inputs[1]);
    if (ra.empty() || rb.empty()) return std::nullopt;
    const Shape out_shape = output.shape.to_shape();
    const Tensor* ta = inputs[0].value ? inputs[0].value : inputs[0].lower;
    const Tensor* tb = inputs[1].value ? inputs[1].value : inputs[1].lower;
    ValueBounds bounds{Tensor(output.type, out_shape), Tensor(output.type, out_shape)};
    std::array<Shape, 2> aligned{align_shape(ta->shape(), out_shape.size(), attributes_.spec),
                                 align_shape(tb->shape(), out_shape.size(), attributes_.spec)};
    const ElementwisePlan plan = plan_elementwise(out_shape, aligned);
    const std::int64_t type_min = integer_type_min(output.type);
    const std::int64_t type_max = integer_type_max(output.type);
    bool ok = true;
    for_each_run(Parallel{}, plan, [&](const auto& off, std::int64_t o, std::int64_t n) {
      for (std::int64_t i = 0; i < n && ok; ++i) {
        const auto ia = static_cast<std::size_t>(off[0] + i * plan.strides.back()[0]);
        const auto ib = static_cast<std::size_t>(off[1] + i * plan.strides.back()[1]);
        const std::optional<Range> r = combine(attributes_.kind, ra[ia], rb[ib]);
        // A result beyond the type's range wraps at run time: no bounds then.
        if (!r || r->lo < type_min || (!r->open && r->hi > type_max)) {
          ok = false;
          break;
        }
        const auto at = static_cast<std::size_t>(o + i);
        put_integer(bounds.lower, at, r->lo);
        put_integer(bounds.upper, at, r->open ? type_max : r->hi);
      }
    });
    if (!ok) return std::nullopt;
    return bounds;
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

  /// An Add or a Multiply runs the steps (a residual connection's activation, the shift after
  /// an input's scale) on each channel's plane of its output while the plane is in cache: in
  /// float, as the separate f32 layers would, so the bits are theirs.
  std::shared_ptr<const Op> fused(std::vector<ChannelStep> steps) const override {
    if ((attributes_.kind != Kind::add && attributes_.kind != Kind::multiply) ||
        steps_.size() + steps.size() > kMaxPlaneSteps)
      return nullptr;
    auto op = std::make_shared<BinaryOp>(*this);
    for (ChannelStep& step : steps) op->steps_.push_back(std::move(step));
    return op;
  }

 private:
  /// The Add or Multiply with its fused steps, on f32 (fused()'s contract): output plane by plane
  /// (a batch item's channel), each computed, when neither input is broadcast or one is a value
  /// per channel, then put through the steps. A tensor the steps add is an input after the two.
  void run_fused(std::span<const Tensor> inputs, Tensor& out, const ExecContext& context) const {
    const Tensor& a = inputs[0];
    const Tensor& b = inputs[1];
    const bool multiply = attributes_.kind == Kind::multiply;
    const bool in_place = a.shape() == out.shape() && b.shape() == out.shape();
    const int values = in_place ? -1 : per_channel_input(a, b, out);
    if (!in_place && values < 0) {
      const ElementwisePlan plan = plan_for(inputs.first(2), out, attributes_.spec);
      if (multiply)
        binary_elementwise(context.parallel, plan, binary_fn::Multiply{}, a.data<float>(),
                           b.data<float>(), out.data<float>());
      else
        binary_elementwise(context.parallel, plan, binary_fn::Add{}, a.data<float>(),
                           b.data<float>(), out.data<float>());
    }
    const std::int64_t channels = out.shape()[1];
    run_plane_steps(
        context.parallel, steps_, inputs, out, [&](std::int64_t at, float* y, std::int64_t plane) {
          if (in_place) {
            (multiply ? multiply_floats : add_floats)(a.data<float>() + at, b.data<float>() + at, y,
                                                      plane);
          } else if (values >= 0) {
            const float* x = (values == 0 ? b : a).data<float>() + at;
            const float v = (values == 0 ? a : b).data<float>()[at / plane % channels];
            (multiply ? with_value<true> : with_value<false>)(x, v, values == 0, y, plane);
          }
        });
  }

  /// Integer division by zero is an error, as in OpenVINO's reference, found before any output
  /// is written.
  static void check_divisor(const Tensor& b) {
    dispatch_numeric(b.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T>) {
        const T* p = b.data<T>();
        const std::size_t n = b.size();
        std::size_t zeros = 0;
        for (std::size_t i = 0; i < n; ++i) zeros += p[i] == 0 ? 1 : 0;
        if (zeros == 0) return;
        const std::size_t first = static_cast<std::size_t>(std::find(p, p + n, T{0}) - p);
        value_error(
            1, fmt::format("integer division by zero: the divisor holds 0 at element {}", first));
      }
    });
  }

  BinaryAttributes attributes_;
  /// Element-wise layers fused after this one (graph/fuse.hpp); empty for the layer's own op.
  std::vector<ChannelStep> steps_;
};

std::vector<ElementType> comparable_types() {
  return all_types();
}

OpDef binary_def(std::string_view type, Kind kind) {
  const Family family = family_of(kind);
  std::vector<ElementType> in = family == Family::arithmetic   ? numeric_types()
                                : family == Family::comparison ? comparable_types()
                                                               : std::vector{ElementType::boolean};
  std::vector<ElementType> out =
      family == Family::arithmetic ? numeric_types() : std::vector{ElementType::boolean};
  return {
      .type = type,
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = [kind](const Attributes& a) -> std::unique_ptr<const Op> {
        BinaryAttributes initial;
        initial.kind = kind;
        return std::make_unique<BinaryOp>(read_attributes(a, initial));
      },
      .input_types = {{"a", in}, {"b", in}},
      .output_types = {{"output", out}},
  };
}

// ---- LogicalNot ---------------------------------------------------------------------------

class LogicalNotOp final : public Op {
 public:
  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    return {{ElementType::boolean, inputs[0].shape}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    if (inputs[0].element_type() != ElementType::boolean) no_kernel(0, inputs[0].element_type());
    const auto* in = inputs[0].data<std::uint8_t>();
    auto* out = outputs[0].data<std::uint8_t>();
    context.parallel.for_range(
        outputs[0].size(), kElementwiseGrain, [&](std::size_t begin, std::size_t end, std::size_t) {
          logical_not_run(in + begin, out + begin, static_cast<std::int64_t>(end - begin));
        });
  }
};

}  // namespace

OpDef add_op() {
  return binary_def("Add", Kind::add);
}
OpDef subtract_op() {
  return binary_def("Subtract", Kind::subtract);
}
OpDef multiply_op() {
  return binary_def("Multiply", Kind::multiply);
}
OpDef divide_op() {
  return binary_def("Divide", Kind::divide);
}
OpDef maximum_op() {
  return binary_def("Maximum", Kind::maximum);
}
OpDef minimum_op() {
  return binary_def("Minimum", Kind::minimum);
}
OpDef power_op() {
  return binary_def("Power", Kind::power);
}
OpDef equal_op() {
  return binary_def("Equal", Kind::equal);
}
OpDef not_equal_op() {
  return binary_def("NotEqual", Kind::not_equal);
}
OpDef less_op() {
  return binary_def("Less", Kind::less);
}
OpDef less_equal_op() {
  return binary_def("LessEqual", Kind::less_equal);
}
OpDef greater_op() {
  return binary_def("Greater", Kind::greater);
}
OpDef greater_equal_op() {
  return binary_def("GreaterEqual", Kind::greater_equal);
}
OpDef logical_and_op() {
  return binary_def("LogicalAnd", Kind::logical_and);
}
OpDef logical_or_op() {
  return binary_def("LogicalOr", Kind::logical_or);
}
OpDef logical_xor_op() {
  return binary_def("LogicalXor", Kind::logical_xor);
}

OpDef logical_not_op() {
  return {
      .type = "LogicalNot",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 1,
      .max_inputs = 1,
      .num_outputs = 1,
      .create = [](const Attributes&) -> std::unique_ptr<const Op> {
        return std::make_unique<LogicalNotOp>();
      },
      .input_types = {{"arg", {ElementType::boolean}}},
      .output_types = {{"output", {ElementType::boolean}}},
  };
}

}  // namespace irlite

// MatMul-1: matrix products over the last two axes, with optional transposes, 1-D operands
// taken as a row (A) or column (B) vector, and batch axes broadcast NumPy-style.

#include "kernels/matmul.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <type_traits>
#include <vector>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "kernels/gemm.hpp"
#include "ops/channel_steps.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

/// The product's matrix axes after OpenVINO's steps: the transposes swap the last two axes of
/// an operand of rank 2 or more; a 1-D A becomes [1, k] and a 1-D B [k, 1].
std::vector<Dimension> as_matrix(const PartialShape& s, bool transpose, bool is_a) {
  std::vector<Dimension> dims = s.dims();
  if (dims.size() == 1) {
    if (is_a)
      dims.insert(dims.begin(), Dimension(1));
    else
      dims.emplace_back(1);
  } else if (transpose) {
    std::swap(dims[dims.size() - 2], dims[dims.size() - 1]);
  }
  return dims;
}

bool is_one(const Dimension& d) {
  return d.is_static() && d.value() == 1;
}

/// The element types that go through the float GEMM (kernels/gemm.hpp); the others through
/// kernels/matmul.hpp.
template <class T>
inline constexpr bool uses_gemm =
    std::is_same_v<T, float> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

/// The plan of one product, and the batch axes (right-aligned, a few words per axis) from which
/// the matrix indices are worked out.
struct Product {
  MatMulPlan plan;
  std::vector<std::int64_t> a_dims, b_dims, out_dims;
};

/// Which matrix of A and of B each output matrix takes: an odometer over the output's batch
/// axes tracks the matrix each operand gives.
void fill_indices(const Product& product, std::span<std::int64_t> a_index,
                  std::span<std::int64_t> b_index) {
  const std::vector<std::int64_t>& ad = product.a_dims;
  const std::vector<std::int64_t>& bd = product.b_dims;
  const std::vector<std::int64_t>& od = product.out_dims;
  const std::size_t rank = od.size();
  std::vector<std::int64_t> a_stride(rank), b_stride(rank), pos(rank, 0);
  std::int64_t sa = 1, sb = 1;
  for (std::size_t i = rank; i-- > 0;) {
    a_stride[i] = ad[i] == 1 ? 0 : sa;
    b_stride[i] = bd[i] == 1 ? 0 : sb;
    sa *= ad[i];
    sb *= bd[i];
  }
  std::int64_t ai = 0, bi = 0;
  for (std::size_t c = 0; c < a_index.size(); ++c) {
    a_index[c] = ai;
    b_index[c] = bi;
    for (std::size_t i = rank; i-- > 0;) {
      ai += a_stride[i];
      bi += b_stride[i];
      if (++pos[i] < od[i]) break;
      ai -= a_stride[i] * od[i];
      bi -= b_stride[i] * od[i];
      pos[i] = 0;
    }
  }
}

/// What execute() takes from its Scratch, by one function for the counting run
/// (scratch_bytes()) and the real one: the matrix indices, then the kernel's memory in a slice
/// of its own (the GEMM's, with B packed for the call unless it was packed at load, or the
/// other types' kernel's). Nothing for an empty output.
struct MatMulBuffers {
  std::span<std::int64_t> a_index, b_index;
  Scratch::Slices kernel;
};

template <class T>
MatMulBuffers take_buffers(const Scratch& s, const MatMulPlan& p, bool b_packed, unsigned threads) {
  MatMulBuffers b;
  if (p.batches == 0 || p.m == 0 || p.n == 0) return b;
  const auto batches = static_cast<std::size_t>(p.batches);
  b.a_index = s.take<std::int64_t>(batches);
  b.b_index = s.take<std::int64_t>(batches);
  std::size_t kernel = 0;
  if constexpr (uses_gemm<T>)
    kernel = gemm_scratch(p.m, p.n, p.k, b_packed ? 0 : p.b_count, threads);
  else
    kernel = matmul_scratch<T>(p, threads);
  b.kernel = s.slices(1, kernel);
  return b;
}

/// A Const B packed for the GEMM when the model loads.
struct PackedMatMulB final : PreparedData {
  PackedB b;
};

struct MatMulAttributes {
  bool transpose_a = false;
  bool transpose_b = false;
  void visit(AttributeVisitor& v) {
    v.on("transpose_a", transpose_a, false);
    v.on("transpose_b", transpose_b, false);
  }
};

class MatMulOp final : public Op {
 public:
  explicit MatMulOp(const MatMulAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const ValueInfo& a = inputs[0];
    const ValueInfo& b = inputs[1];
    if (b.type != a.type)
      input_error(1, fmt::format("B must have A's element type {}, got {}", to_string(a.type),
                                 to_string(b.type)));
    if (!a.shape.rank_is_static() || !b.shape.rank_is_static())
      return {{a.type, PartialShape::dynamic_rank()}};
    if (a.shape.rank() == 0) input_error(0, "A must not be a scalar");
    if (b.shape.rank() == 0) input_error(1, "B must not be a scalar");
    std::vector<Dimension> x = as_matrix(a.shape, attributes_.transpose_a, true);
    std::vector<Dimension> y = as_matrix(b.shape, attributes_.transpose_b, false);
    const Dimension& ka = x.back();
    const Dimension& kb = y[y.size() - 2];
    // Intervals that cannot meet are accepted, as OpenVINO does: only two static sizes clash.
    if (!intersect(ka, kb) && ka.is_static() && kb.is_static())
      op_error(fmt::format("the inner dimensions differ: A {}{} has {} columns, B {}{} has {} rows",
                           to_string(a.shape), attributes_.transpose_a ? " (transposed)" : "",
                           ka.value(), to_string(b.shape),
                           attributes_.transpose_b ? " (transposed)" : "", kb.value()));
    const std::size_t rank = std::max(x.size(), y.size());
    x.insert(x.begin(), rank - x.size(), Dimension(1));
    y.insert(y.begin(), rank - y.size(), Dimension(1));
    std::vector<Dimension> out(rank);
    for (std::size_t i = 0; i + 2 < rank; ++i) {
      if (is_one(x[i])) {
        out[i] = y[i];
      } else if (is_one(y[i])) {
        out[i] = x[i];
      } else if (const auto m = intersect(x[i], y[i])) {
        out[i] = *m;
      } else if (x[i].is_static() && y[i].is_static()) {
        op_error(fmt::format("the batch dimensions of A {} and B {} do not broadcast: {} and {}",
                             to_string(a.shape), to_string(b.shape), x[i].value(), y[i].value()));
      }  // else unknown, as OpenVINO leaves it
    }
    out[rank - 2] = x[rank - 2];
    out[rank - 1] = y[rank - 1];
    if (b.shape.rank() == 1) out.pop_back();
    if (a.shape.rank() == 1) out.erase(out.end() - (b.shape.rank() == 1 ? 1 : 2));
    return {{a.type, PartialShape(std::move(out))}};
  }

  std::size_t scratch_bytes(std::span<const Tensor> inputs, std::span<const Tensor>,
                            unsigned threads) const override {
    return scratch(inputs, threads, false);
  }

  std::size_t scratch_bytes_prepared(std::span<const Tensor> inputs, std::span<const Tensor>,
                                     unsigned threads, const PreparedData&) const override {
    return scratch(inputs, threads, true);
  }

  std::shared_ptr<const PreparedData> prepare(std::span<const ValueInfo> inputs) const override {
    const Tensor* b = inputs[1].value;
    if (!b || b->size() == 0) return nullptr;
    std::shared_ptr<const PreparedData> prepared;
    dispatch_numeric(b->element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (uses_gemm<T>) {
        const Shape& bs = b->shape();
        const bool b1 = bs.size() == 1;
        const bool tb = attributes_.transpose_b && !b1;
        const std::int64_t rows = b1 ? bs[0] : bs[bs.size() - 2], cols = b1 ? 1 : bs.back();
        const auto count = static_cast<std::int64_t>(b->size()) / (rows * cols);
        auto packed = std::make_shared<PackedMatMulB>();
        packed->b = PackedB(b->data<T>(), count, tb ? cols : rows, tb ? rows : cols, tb);
        prepared = std::move(packed);
      }
    });
    return prepared;
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    run(inputs, outputs, context, nullptr);
    run_steps(inputs, outputs[0], context);
  }

  void execute_prepared(std::span<const Tensor> inputs, std::span<Tensor> outputs,
                        const ExecContext& context, const PreparedData& prepared) const override {
    run(inputs, outputs, context, dynamic_cast<const PackedMatMulB*>(&prepared));
    run_steps(inputs, outputs[0], context);
  }

  /// A MatMul runs the element-wise layers after it (a fully connected layer's bias Add, its
  /// activation) on its output while that is in cache, in float, as the separate f32 layers
  /// would, so the bits are theirs. Their values run along the output's axis 1: the columns of
  /// a 2-D product, the rows of a batch item's product otherwise.
  std::shared_ptr<const Op> fused(std::vector<ChannelStep> steps) const override {
    if (steps_.size() + steps.size() > kMaxPlaneSteps) return nullptr;
    auto op = std::make_shared<MatMulOp>(*this);
    for (ChannelStep& step : steps) op->steps_.push_back(std::move(step));
    return op;
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  /// The memory execute() takes beyond its inputs and outputs; B's packing not counted when
  /// it was packed at load.
  std::size_t scratch(std::span<const Tensor> inputs, unsigned threads, bool b_packed) const {
    std::size_t bytes = 0;
    const Product product = plan(inputs[0].shape(), inputs[1].shape());
    dispatch_numeric(inputs[0].element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      bytes = Scratch::bytes_of(
          [&](const Scratch& s) { (void)take_buffers<T>(s, product.plan, b_packed, threads); });
    });
    return bytes;
  }

  /// The fused steps on the product (f32: the fusion pass fuses only f32 outputs).
  void run_steps(std::span<const Tensor> inputs, Tensor& out, const ExecContext& context) const {
    if (steps_.empty() || out.size() == 0) return;
    if (out.shape().size() == 2)
      run_row_steps(context.parallel, steps_, inputs, out);
    else
      run_plane_steps(context.parallel, steps_, inputs, out,
                      [](std::int64_t, float*, std::int64_t) {});
  }

  /// The product, with B as packed at load when `packed` is given.
  void run(std::span<const Tensor> inputs, std::span<Tensor> outputs, const ExecContext& context,
           const PackedMatMulB* packed) const {
    const Tensor& a = inputs[0];
    const Tensor& b = inputs[1];
    Product product = plan(a.shape(), b.shape());
    MatMulPlan& p = product.plan;
    if (!dispatch_numeric(a.element_type(), [&](auto tag) {
          using T = typename decltype(tag)::type;
          const MatMulBuffers buffers =
              take_buffers<T>(context.scratch, p, packed != nullptr, context.parallel.threads());
          if (buffers.a_index.empty()) return;  // an empty output
          fill_indices(product, buffers.a_index, buffers.b_index);
          p.a_index = buffers.a_index;
          p.b_index = buffers.b_index;
          const Scratch kernel = buffers.kernel[0];
          if constexpr (uses_gemm<T>) {
            GemmArgs<T> args;
            args.m = p.m;
            args.n = p.n;
            args.k = p.k;
            args.a = a.data<T>();
            args.transpose_a = p.transpose_a;
            args.c = outputs[0].data<T>();
            args.batches = p.batches;
            args.a_index = p.a_index.data();
            args.b_index = p.b_index.data();
            args.scratch = &kernel;
            if (packed)
              gemm(context.parallel, args, packed->b);
            else
              gemm(context.parallel, args, b.data<T>(), p.b_count, p.transpose_b);
          } else {
            matmul(context.parallel, a.data<T>(), b.data<T>(), p, outputs[0].data<T>(), kernel);
          }
        }))
      no_kernel(0, a.element_type());
  }

  /// The kernel's view of static shapes the shape rule accepted, without the matrix indices,
  /// and the batch axes to work them out from.
  Product plan(const Shape& as, const Shape& bs) const {
    Product product;
    MatMulPlan& p = product.plan;
    const bool a1 = as.size() == 1, b1 = bs.size() == 1;
    p.transpose_a = attributes_.transpose_a && !a1;
    p.transpose_b = attributes_.transpose_b && !b1;
    const std::int64_t a_rows = a1 ? 1 : as[as.size() - 2], a_cols = as.back();
    const std::int64_t b_rows = b1 ? bs[0] : bs[bs.size() - 2], b_cols = b1 ? 1 : bs.back();
    p.m = p.transpose_a ? a_cols : a_rows;
    p.k = p.transpose_a ? a_rows : a_cols;
    p.n = p.transpose_b ? b_rows : b_cols;
    // The batch axes, right-aligned.
    const std::size_t a_batch = a1 ? 0 : as.size() - 2, b_batch = b1 ? 0 : bs.size() - 2;
    const std::size_t rank = std::max(a_batch, b_batch);
    product.a_dims.assign(rank, 1);
    product.b_dims.assign(rank, 1);
    product.out_dims.resize(rank);
    std::copy_n(as.begin(), a_batch,
                product.a_dims.begin() + static_cast<std::ptrdiff_t>(rank - a_batch));
    std::copy_n(bs.begin(), b_batch,
                product.b_dims.begin() + static_cast<std::ptrdiff_t>(rank - b_batch));
    p.batches = 1;
    p.b_count = 1;
    for (std::size_t i = 0; i < rank; ++i) {
      const std::int64_t ad = product.a_dims[i], bd = product.b_dims[i];
      product.out_dims[i] = ad == 1 ? bd : ad;
      // Saturating: an empty operand may have batch axes whose product is no size.
      p.batches = saturating_mul(p.batches, product.out_dims[i]);
      p.b_count = saturating_mul(p.b_count, bd);
    }
    return product;
  }

  MatMulAttributes attributes_;
  std::vector<ChannelStep> steps_;
};

std::unique_ptr<const Op> create_matmul(const Attributes& a) {
  return std::make_unique<MatMulOp>(read_attributes<MatMulAttributes>(a));
}

}  // namespace

OpDef matmul_op() {
  return {
      .type = "MatMul",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create_matmul,
      .input_types = {{"A", numeric_types()}, {"B", numeric_types()}},
      .output_types = {{"output", numeric_types()}},
  };
}

}  // namespace irlite

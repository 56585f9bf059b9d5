// BatchNormInference-1 and -5: (x - mean) / sqrt(variance + epsilon) * gamma + beta, per
// channel (axis 1) of floating-point data of rank >= 2. The two versions differ only in the
// order of their inputs: v1 takes gamma, beta, data, mean, variance; v5 data, gamma, beta,
// mean, variance. The four per-channel inputs are 1-D, as long as the channel axis, and of the
// data's type.
//
// Each channel's factor gamma / sqrt(variance + epsilon) is worked out once in double; every
// element is then (x - mean) * factor + beta in compute_t<T> (float for f16 and bf16, rounded
// once), each element on its own, so any split over threads gives the same bits.

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "core/attribute_visitor.hpp"
#include "kernels/element.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

struct BatchNormAttributes {
  double epsilon = 0;
  void visit(AttributeVisitor& v) {
    v.on("epsilon", epsilon);
    v.require("epsilon", std::isfinite(epsilon) && epsilon >= 0, "expected a finite number >= 0");
  }
};

/// Where each input sits: data, gamma, beta, mean, variance.
struct Ports {
  std::size_t data, gamma, beta, mean, variance;
};
constexpr Ports kPortsV1{2, 0, 1, 3, 4};
constexpr Ports kPortsV5{0, 1, 2, 3, 4};
constexpr std::array<const char*, 5> kNamesV1{"gamma", "beta", "data", "mean", "variance"};
constexpr std::array<const char*, 5> kNamesV5{"data", "gamma", "beta", "mean", "variance"};

template <class T>
void batch_norm(const Parallel& parallel, const T* x, const T* gamma, const T* beta,
                const T* mean, const T* variance, double epsilon, std::size_t channels,
                std::size_t inner, std::size_t n, T* out) {
  using C = compute_t<T>;
  parallel.for_range(n, std::size_t{1} << 15, [&](std::size_t begin, std::size_t end, std::size_t) {
    std::size_t i = begin;
    while (i < end) {
      // One run of a channel: up to the end of its block or of the range.
      const std::size_t block = i / inner;
      const std::size_t c = block % channels;
      const std::size_t stop = std::min(end, (block + 1) * inner);
      const double factor = static_cast<double>(static_cast<C>(gamma[c])) /
                            std::sqrt(static_cast<double>(static_cast<C>(variance[c])) + epsilon);
      const auto f = static_cast<C>(factor);
      const auto m = static_cast<C>(mean[c]);
      const auto b = static_cast<C>(beta[c]);
      for (; i < stop; ++i) out[i] = static_cast<T>((static_cast<C>(x[i]) - m) * f + b);
    }
  });
}

class BatchNormOp final : public Op {
 public:
  BatchNormOp(const BatchNormAttributes& attributes, int version)
      : attributes_(attributes), version_(version) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs, Phase) const override {
    const Ports p = ports();
    const ValueInfo& data = inputs[p.data];
    for (const std::size_t i : {p.gamma, p.beta, p.mean, p.variance})
      if (inputs[i].type != data.type)
        input_error(i, fmt::format("{} must be {} as the data is, got {}", names()[i],
                                   to_string(data.type), to_string(inputs[i].type)));
    if (data.shape.rank_is_static() && data.shape.rank() < 2)
      input_error(p.data, "data must have rank 2 or more (the channels are axis 1), got " +
                              to_string(data.shape));
    // The channel extent as every input knows it.
    Dimension channels = data.shape.rank_is_static() ? data.shape[1] : Dimension::dynamic();
    for (const std::size_t i : {p.gamma, p.beta, p.mean, p.variance}) {
      const PartialShape& s = inputs[i].shape;
      if (!s.rank_is_static()) continue;
      if (s.rank() != 1)
        input_error(i, fmt::format("{} must be 1-D, got {}", names()[i], to_string(s)));
      const auto merged = intersect(channels, s[0]);
      if (!merged)
        input_error(i, fmt::format("{} {} must be as long as the channel axis ({}) of data {}",
                                   names()[i], to_string(s), to_string(channels),
                                   to_string(data.shape)));
      channels = *merged;
    }
    PartialShape out = data.shape;
    if (out.rank_is_static()) out[1] = channels;
    return {{data.type, out}};
  }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    const Ports p = ports();
    const Tensor& data = inputs[p.data];
    const Shape& shape = data.shape();
    const auto channels = static_cast<std::size_t>(shape[1]);
    const std::size_t inner = channels == 0 || shape[0] == 0
                                  ? 0
                                  : data.size() / static_cast<std::size_t>(shape[0]) / channels;
    if (inner == 0) return;
    const bool ok = dispatch_float(data.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      batch_norm<T>(context.parallel, data.data<T>(), inputs[p.gamma].data<T>(),
                    inputs[p.beta].data<T>(), inputs[p.mean].data<T>(),
                    inputs[p.variance].data<T>(), attributes_.epsilon, channels, inner,
                    data.size(), outputs[0].data<T>());
    });
    if (!ok) no_kernel(p.data, data.element_type());
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  Ports ports() const { return version_ == 1 ? kPortsV1 : kPortsV5; }
  const std::array<const char*, 5>& names() const { return version_ == 1 ? kNamesV1 : kNamesV5; }

  BatchNormAttributes attributes_;
  int version_;
};

template <int Version>
std::unique_ptr<const Op> create_batch_norm(const Attributes& a) {
  return std::make_unique<BatchNormOp>(read_attributes<BatchNormAttributes>(a), Version);
}

}  // namespace

OpDef batch_norm_inference_v1_op() {
  return {
      .type = "BatchNormInference",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 5,
      .max_inputs = 5,
      .num_outputs = 1,
      .create = create_batch_norm<1>,
      .input_types = {{"gamma", real_types()},
                      {"beta", real_types()},
                      {"data", real_types()},
                      {"mean", real_types()},
                      {"variance", real_types()}},
      .output_types = {{"output", real_types()}},
  };
}

OpDef batch_norm_inference_v5_op() {
  return {
      .type = "BatchNormInference",
      .version = 5,
      .since_opset = 5,
      .min_inputs = 5,
      .max_inputs = 5,
      .num_outputs = 1,
      .create = create_batch_norm<5>,
      .input_types = {{"data", real_types()},
                      {"gamma", real_types()},
                      {"beta", real_types()},
                      {"mean", real_types()},
                      {"variance", real_types()}},
      .output_types = {{"output", real_types()}},
  };
}

}  // namespace irlite

// Reshape-1: the data with a new shape given by the second input. One entry may be -1 (inferred
// from the element count); with special_zero, a 0 copies the input's extent at that index,
// otherwise it is a zero extent. The elements keep their row-major order: the kernel is a copy.

#include <fmt/format.h>

#include <optional>

#include "core/attribute_visitor.hpp"
#include "core/saturating.hpp"
#include "kernels/data_movement.hpp"
#include "ops/op_list.hpp"
#include "ops/shape_family.hpp"
#include "ops/shape_utils.hpp"

namespace irlite {
namespace {

/// One entry of the target shape: -1, or an extent (an interval when only its bounds are known).
struct PatternEntry {
  bool minus_one = false;
  Dimension dim;
};

std::string dims_text(const std::vector<Dimension>& dims) {
  return to_string(PartialShape(dims));
}

struct ReshapeAttributes {
  bool special_zero = false;
  void visit(AttributeVisitor& v) { v.on("special_zero", special_zero, false); }
};

class ReshapeOp final : public Op {
 public:
  explicit ReshapeOp(const ReshapeAttributes& attributes) : attributes_(attributes) {}

  std::vector<OutputInfo> infer_shapes(std::span<const ValueInfo> inputs,
                                       Phase phase) const override {
    const ValueInfo& data = inputs[0];
    const ValueInfo& target = inputs[1];
    if (target.shape.rank_is_static() && target.shape.rank() > 1)
      input_error(1, "shape must be a 1-D tensor or a scalar, got " + to_string(target.shape));

    const std::optional<std::vector<PatternEntry>> pattern = read_pattern(target, phase);
    if (!pattern) {
      // The target is unknown: only its length tells the output's rank.
      if (!target.shape.rank_is_static()) return {{data.type, PartialShape::dynamic_rank()}};
      if (target.shape.rank() == 0) {
        if (data.shape.rank_is_static() && data.shape.rank() != 0)
          input_error(
              0, "data must be a scalar when the shape is a scalar, got " + to_string(data.shape));
        return {{data.type, PartialShape()}};
      }
      const Dimension& length = target.shape[0];
      if (!length.is_static()) return {{data.type, PartialShape::dynamic_rank()}};
      return {{data.type,
               PartialShape(std::vector<Dimension>(static_cast<std::size_t>(length.value())))}};
    }
    return {{data.type, PartialShape(output_dims(data.shape, *pattern, phase))}};
  }

  bool shape_needs_value(std::size_t index, std::size_t) const override { return index == 1; }

  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const ExecContext& context) const override {
    // infer() has checked the target against the data's element count, and the executor
    // allocated the output from it; a mismatch here would overrun a buffer.
    if (outputs[0].byte_size() != inputs[0].byte_size())
      value_error(1, fmt::format("the output {} does not hold the data's {} elements",
                                 to_string(outputs[0].shape()), inputs[0].size()));
    parallel_copy(context.parallel, outputs[0].data(), inputs[0].data(), inputs[0].byte_size());
  }

  std::optional<ValueBounds> infer_bounds(std::span<const ValueInfo> inputs,
                                          const OutputInfo& output) const override {
    return monotonic_bounds(*this, inputs, output);
  }

  std::vector<std::pair<std::string, std::string>> attributes() const override {
    return print_attributes(attributes_);
  }

 private:
  /// The target's entries from its value or, at load time, its bounds; nullopt when neither is
  /// known. A scalar target counts as one entry.
  static std::optional<std::vector<PatternEntry>> read_pattern(const ValueInfo& target,
                                                               Phase phase) {
    if (!target.value && !(target.lower && target.upper)) return std::nullopt;
    const Tensor& t = target.value ? *target.value : *target.lower;
    std::vector<PatternEntry> pattern(t.size());
    std::optional<std::size_t> minus_one;
    const std::int64_t type_max = integer_type_max(target.type);
    for (std::size_t i = 0; i < t.size(); ++i) {
      const std::int64_t lo = integer_at(t, i);
      const std::int64_t hi = target.value ? lo : integer_at(*target.upper, i);
      PatternEntry& e = pattern[i];
      if (lo == -1 && hi == -1) {
        if (minus_one)
          bad_value(phase, 1,
                    fmt::format("shape holds -1 at indices {} and {}: at most one dimension "
                                "may be inferred",
                                *minus_one, i));
        minus_one = i;
        e.minus_one = true;
      } else if (lo >= 0 && hi >= lo) {
        e.dim = Dimension(lo, hi >= type_max && !target.value ? Dimension::unbounded : hi);
      } else if (lo == -1 || (lo < 0) != (hi < 0)) {
        // Bounds that straddle -1 (a value that may or may not be -1): any extent.
        e.dim = Dimension();
      } else {
        bad_value(phase, 1,
                  target.value ? fmt::format("shape[{}] = {} is invalid: an extent is -1 or "
                                             "non-negative",
                                             i, lo)
                               : fmt::format("shape[{}] has invalid bounds [{}, {}]", i, lo, hi));
      }
    }
    if (target.shape.rank_is_static() && target.shape.rank() == 0) {
      // A scalar target stands for a scalar output, and may only hold 1.
      if (pattern.size() != 1 || pattern[0].minus_one || pattern[0].dim != Dimension(1))
        bad_value(phase, 1,
                  fmt::format("a scalar shape must hold 1, got {}",
                              target.value ? value_text(t, 0) : std::string("a bounded value")));
      pattern.clear();
    }
    return pattern;
  }

  std::vector<Dimension> output_dims(const PartialShape& in,
                                     const std::vector<PatternEntry>& pattern, Phase phase) const {
    std::vector<Dimension> out;
    out.reserve(pattern.size());
    std::optional<std::size_t> minus_one;
    if (!in.rank_is_static()) {
      // Without the input's rank, a copied 0 and the -1 are unknown extents.
      for (std::size_t i = 0; i < pattern.size(); ++i) {
        const PatternEntry& e = pattern[i];
        const bool copied = attributes_.special_zero && !e.minus_one && e.dim == Dimension(0);
        out.push_back(e.minus_one || copied ? Dimension() : e.dim);
      }
      return out;
    }
    const std::size_t rank = in.dims().size();
    // Products over what the -1 must make up: the input's extents and the output's given
    // ones, both without the extents special_zero copies (they cancel out).
    Dimension in_product(1), out_product(1);
    std::vector<bool> copied(rank, false);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      const PatternEntry& e = pattern[i];
      if (e.minus_one) {
        minus_one = i;
        out.emplace_back();
      } else if (attributes_.special_zero && e.dim == Dimension(0)) {
        if (i >= rank)
          bad_value(phase, 1,
                    fmt::format("shape[{}] = 0 copies input dimension {} (special_zero), but "
                                "the input {} has rank {}",
                                i, i, to_string(in), rank));
        out.push_back(in[i]);
        copied[i] = true;
      } else {
        out.push_back(e.dim);
        out_product = multiply(out_product, e.dim);
      }
    }
    for (std::size_t i = 0; i < rank; ++i)
      if (!copied[i]) in_product = multiply(in_product, in[i]);

    if (minus_one) {
      out[*minus_one] = resolve_minus_one(in, out, in_product, out_product, phase);
    } else if (in.is_static() && PartialShape(out).is_static() && in_product != out_product) {
      bad_value(
          phase, 1,
          fmt::format("the shape {} holds {} elements but the input {} holds {}", dims_text(out),
                      element_text(PartialShape(out)), to_string(in), element_text(in)));
    }
    return out;
  }

  static std::string element_text(const PartialShape& s) {
    const std::optional<std::int64_t> n = element_count(s.to_shape());
    return n ? std::to_string(*n) : std::string("too many");
  }

  // The -1 extent: the input's element count over the product of the other output extents,
  // as an interval when those are intervals (OpenVINO's reshape rule).
  static Dimension resolve_minus_one(const PartialShape& in, const std::vector<Dimension>& out,
                                     const Dimension& in_product, const Dimension& out_product,
                                     Phase phase) {
    if (out_product.has_upper_bound() && out_product.max() == 0) {
      // The other extents hold no element: the input must hold none either, and the -1 is 1
      // (OpenVINO's choice; any extent would do).
      if (!in_product.has_upper_bound() || in_product.max() != 0)
        bad_value(phase, 1,
                  fmt::format("cannot infer the -1 in {}: the other dimensions hold no "
                              "element but the input {} is not empty",
                              dims_text(out), to_string(in)));
      return in.is_static() ? Dimension(1) : Dimension();
    }
    if (in_product.is_static() && out_product.is_static()) {
      if (in_product.value() % out_product.value() != 0)
        bad_value(
            phase, 1,
            fmt::format("cannot infer the -1 in {}: the input {} holds {} elements, "
                        "not a multiple of {}",
                        dims_text(out), to_string(in), in_product.value(), out_product.value()));
      return Dimension(in_product.value() / out_product.value());
    }
    const std::int64_t hi = !in_product.has_upper_bound() || out_product.min() == 0
                                ? Dimension::unbounded
                                : in_product.max() / out_product.min();
    std::int64_t lo = 0;
    if (!out_product.has_upper_bound())
      lo = in_product.min() > 0 ? 1 : 0;
    else
      lo = ceil_div(in_product.min(), out_product.max());
    if (hi != Dimension::unbounded && lo > hi)
      bad_value(phase, 1,
                fmt::format("cannot infer the -1 in {}: the other dimensions do not divide "
                            "the input {} evenly",
                            dims_text(out), to_string(in)));
    return Dimension(lo, hi);
  }

  ReshapeAttributes attributes_;
};

std::unique_ptr<const Op> create_reshape(const Attributes& a) {
  return std::make_unique<ReshapeOp>(read_attributes<ReshapeAttributes>(a));
}

}  // namespace

OpDef reshape_op() {
  return {
      .type = "Reshape",
      .version = 1,
      .since_opset = 1,
      .min_inputs = 2,
      .max_inputs = 2,
      .num_outputs = 1,
      .create = create_reshape,
      .input_types = {{"data", all_types()}, {"shape", integral_types()}},
      .output_types = {{"output", all_types()}},
  };
}

}  // namespace irlite

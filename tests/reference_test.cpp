// The production ops against the plain reference kernels of tests/reference/ on random inputs:
// for every op family with an optimised kernel, shapes with empty and broadcast dims, every
// element type the op takes (each type the shape rule accepts), on one thread and on several,
// which must give the same bytes. Integers and data movement must match exactly; floats too
// where the kernel computes each element alone (element-wise ops), within a few roundings of
// the type where it sums in another order (MatMul, Softmax, the reductions).

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/attributes.hpp"
#include "graph/op.hpp"
#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "op_test_util.hpp"
#include "ops/registry.hpp"
#include "reference/arithmetic.hpp"
#include "reference/data_movement.hpp"
#include "reference/gather.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;

/// Whether the op's shape rule takes these inputs (the types it accepts are found this way, so
/// that the test follows the op's own list).
bool takes(const Op& op, const std::vector<Tensor>& inputs) {
  std::vector<ValueInfo> infos;
  for (const Tensor& t : inputs) infos.push_back(info(t));
  return !caught([&] { (void)op.infer(infos, Phase::run); });
}

/// The op run on one thread; on each test pool it must give the same bytes.
std::vector<Tensor> run_everywhere(const Op& op, const std::vector<Tensor>& inputs,
                                   std::size_t num_outputs = 1) {
  const std::vector<OutputInfo> outputs = infer_at_run_time(op, inputs, num_outputs);
  std::vector<Tensor> one = allocate_and_execute(op, inputs, outputs);
  for (ThreadPool* pool : test_pools()) {
    const std::vector<Tensor> split =
        allocate_and_execute(op, inputs, outputs, ExecContext{Parallel(pool)});
    for (std::size_t p = 0; p < one.size(); ++p)
      CHECK(std::memcmp(split[p].data(), one[p].data(), one[p].byte_size()) == 0);
  }
  return one;
}

/// A random shape of `rank` dims in [0, max_dim], a dim 0 now and then.
Shape random_shape(std::mt19937& rng, std::size_t rank, std::int64_t max_dim = 5) {
  Shape s(rank);
  for (auto& d : s) d = rng() % 8 == 0 ? 0 : 1 + static_cast<std::int64_t>(rng() % max_dim);
  return s;
}

/// Random values of any numeric type: floats uniform in [-1, 1], integers in [-3, 3] ([0, 3]
/// for unsigned types), small enough that sums of a few are exact.
Tensor random_tensor(ElementType type, const Shape& shape, std::mt19937& rng) {
  const std::size_t n = reference::count(shape);
  std::vector<double> values(n);
  const bool real = is_real(type);
  const bool is_unsigned = type == ElementType::u8 || type == ElementType::u16 ||
                           type == ElementType::u32 || type == ElementType::u64;
  for (double& v : values)
    v = real ? std::uniform_real_distribution<double>(-1, 1)(rng)
             : static_cast<double>(static_cast<int>(rng() % 7) - (is_unsigned ? 0 : 3)) *
                   (is_unsigned ? 0.5 : 1);
  if (is_unsigned)
    for (double& v : values) v = std::floor(v);
  return tensor(type, shape, values);
}

/// Random bytes: for the ops that only move elements, whatever they hold (NaNs included).
Tensor random_bytes(ElementType type, const Shape& shape, std::mt19937& rng) {
  Tensor t(type, shape);
  auto* p = static_cast<unsigned char*>(t.data());
  for (std::size_t i = 0; i < t.byte_size(); ++i) p[i] = static_cast<unsigned char>(rng());
  return t;
}

/// Every element the same bits.
void check_exact(const Tensor& got, const Tensor& want) {
  REQUIRE(got.element_type() == want.element_type());
  REQUIRE(got.shape() == want.shape());
  CHECK(std::memcmp(got.data(), want.data(), got.byte_size()) == 0);
}

/// The same value, NaN matching NaN (element-wise float results computed the same way).
void check_same_values(const Tensor& got, const Tensor& want) {
  REQUIRE(got.element_type() == want.element_type());
  REQUIRE(got.shape() == want.shape());
  std::size_t bad = 0;
  dispatch_numeric(got.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!same_value(got.data<T>()[i], want.data<T>()[i])) ++bad;
  });
  CHECK(bad == 0);
}

/// Within `roundings` units of the type's precision of the reference, relative to the result
/// and to `scale` (the magnitude of what was summed). Sums taken in another order differ by
/// about the square root of their length in roundings, which the callers of sums allow.
void check_close(const Tensor& got, const std::vector<double>& want, double scale,
                 double roundings = 8) {
  REQUIRE(got.size() == want.size());
  const double eps = got.element_type() == ElementType::bf16  ? 1.0 / 256
                     : got.element_type() == ElementType::f16 ? 1.0 / 2048
                     : got.element_type() == ElementType::f32 ? 1.2e-7
                                                              : 2.3e-16;
  const std::vector<double> values = doubles(got);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]) ? std::isnan(values[i]) : values[i] == want[i]) continue;
    if (!(std::fabs(values[i] - want[i]) <= roundings * eps * (std::fabs(want[i]) + scale))) {
      if (bad++ < 4) MESSAGE("at " << i << ": got " << values[i] << ", expected " << want[i]);
    }
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("reference: Transpose, Tile and Concat move every element as the plain kernels do") {
  std::mt19937 rng(101);
  for (ElementType type : kNumericTypes) {
    CAPTURE(to_string(type));
    for (int trial = 0; trial < 12; ++trial) {
      const std::size_t rank = rng() % 5;
      // A large input now and then, so that the copies are split over threads.
      const Shape shape = trial == 0 && rank >= 2 ? Shape{300, 257} : random_shape(rng, rank);
      const Tensor x = random_bytes(type, shape, rng);
      CAPTURE(to_string(x.shape()));

      std::vector<std::size_t> perm(x.rank());
      std::iota(perm.begin(), perm.end(), std::size_t{0});
      std::shuffle(perm.begin(), perm.end(), rng);
      const auto transpose = make("Transpose", "opset1");
      const Tensor order = i64s(std::vector<std::int64_t>(perm.begin(), perm.end()));
      check_exact(run_everywhere(*transpose, {x, order})[0], reference::transpose(x, perm));

      std::vector<std::int64_t> repeats(rng() % (x.rank() + 2));
      for (auto& r : repeats) r = static_cast<std::int64_t>(rng() % 4);
      const auto tile = make("Tile", "opset1");
      check_exact(run_everywhere(*tile, {x, i64s(repeats)})[0], reference::tile(x, repeats));

      if (x.rank() == 0) continue;
      const std::size_t axis = rng() % x.rank();
      std::vector<Tensor> parts{x};
      for (std::size_t k = rng() % 3; k > 0; --k) {
        Shape s = x.shape();
        s[axis] = static_cast<std::int64_t>(rng() % 4);
        parts.push_back(random_bytes(type, s, rng));
      }
      const auto concat = make("Concat", "opset1", {{"axis", std::to_string(axis)}});
      check_exact(run_everywhere(*concat, parts)[0], reference::concat(parts, axis));
    }
  }
}

TEST_CASE("reference: Slice takes the strided view of the plain kernel") {
  std::mt19937 rng(102);
  for (ElementType type : kNumericTypes) {
    CAPTURE(to_string(type));
    for (int trial = 0; trial < 12; ++trial) {
      const std::size_t rank = 1 + rng() % 4;
      const Shape shape = trial == 0 ? Shape{600, 300} : random_shape(rng, rank);
      const Tensor x = random_bytes(type, shape, rng);
      CAPTURE(to_string(x.shape()));
      std::vector<std::int64_t> start, stop, step, axes, first, stride, count;
      for (std::size_t d = 0; d < x.rank(); ++d) {
        const std::int64_t n = x.shape()[d];
        const std::int64_t s = std::vector<std::int64_t>{1, 1, 2, 3, -1, -2}[rng() % 6];
        std::int64_t b = 0, e = 0, c = 0;
        if (n > 0 && s > 0) {
          b = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n));
          e = b + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n - b + 1));
          c = (e - b + s - 1) / s;
        } else if (n > 0) {
          b = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n));
          const std::int64_t last =
              static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(b + 2)) - 1;
          c = (b - last - s - 1) / -s;
          e = last < 0 ? -n - 1 : last;  // before the first element
        }
        start.push_back(b);
        stop.push_back(e);
        step.push_back(s);
        axes.push_back(static_cast<std::int64_t>(d));
        first.push_back(b);
        stride.push_back(s);
        count.push_back(c);
      }
      const auto slice = make("Slice", "opset8");
      const Tensor got =
          run_everywhere(*slice, {x, i64s(start), i64s(stop), i64s(step), i64s(axes)})[0];
      check_exact(got, reference::strided_view(x, first, stride, count));
    }
  }
}

TEST_CASE("reference: Gather-8 with batch dims, negative and outside indices") {
  std::mt19937 rng(103);
  for (ElementType type : kNumericTypes) {
    for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
      CAPTURE(to_string(type));
      CAPTURE(to_string(index_type));
      for (int trial = 0; trial < 10; ++trial) {
        const std::size_t rank = 1 + rng() % 4;
        const Shape shape = trial == 0 ? Shape{4, 500, 64} : random_shape(rng, rank);
        const Tensor data = random_bytes(type, shape, rng);
        // The large trial gathers 300 rows of 64 from each of 4 batches of 500.
        const std::size_t batch_dims = trial == 0 ? 1 : rng() % data.rank();
        const std::size_t axis = trial == 0 ? 1 : batch_dims + rng() % (data.rank() - batch_dims);
        Shape index_shape(data.shape().begin(),
                          data.shape().begin() + static_cast<std::ptrdiff_t>(batch_dims));
        if (trial == 0)
          index_shape.push_back(300);
        else
          for (std::size_t k = rng() % 3; k > 0; --k)
            index_shape.push_back(static_cast<std::int64_t>(rng() % 4));
        const std::int64_t dim = data.shape()[axis];
        std::vector<std::int64_t> values(reference::count(index_shape));
        for (auto& v : values)
          v = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(2 * dim + 3)) - dim - 1;
        const Tensor indices = ints(index_type, index_shape, values);
        CAPTURE(to_string(data.shape()));
        CAPTURE(to_string(index_shape));
        CAPTURE(axis);
        CAPTURE(batch_dims);
        const auto gather = make("Gather", "opset8", {{"batch_dims", std::to_string(batch_dims)}});
        const Tensor axis_t = ints(ElementType::i64, {}, {static_cast<std::int64_t>(axis)});
        check_exact(run_everywhere(*gather, {data, indices, axis_t})[0],
                    reference::gather(data, indices, axis, batch_dims));
      }
    }
  }
}

TEST_CASE("reference: MatMul with transposes, broadcast batches and empty sizes") {
  std::mt19937 rng(104);
  std::size_t types = 0;
  for (ElementType type : kNumericTypes) {
    CAPTURE(to_string(type));
    bool taken = false;
    for (int trial = 0; trial < 12; ++trial) {
      const bool ta = rng() % 2, tb = rng() % 2;
      const bool big = trial == 0;
      const auto m = big ? 67 : static_cast<std::int64_t>(rng() % 7);
      const auto k = big ? 130 : static_cast<std::int64_t>(rng() % 7);
      const auto n = big ? 71 : static_cast<std::int64_t>(rng() % 7);
      Shape batch = big ? Shape{} : random_shape(rng, rng() % 3, 3);
      Shape a_shape = batch, b_shape = batch;
      for (std::size_t d = 0; d < batch.size(); ++d) {
        if (rng() % 3 == 0)
          a_shape[d] = 1;
        else if (rng() % 3 == 0)
          b_shape[d] = 1;
      }
      if (!a_shape.empty() && rng() % 2) a_shape.erase(a_shape.begin());
      a_shape.push_back(ta ? k : m);
      a_shape.push_back(ta ? m : k);
      b_shape.push_back(tb ? n : k);
      b_shape.push_back(tb ? k : n);
      const Tensor a = random_tensor(type, a_shape, rng), b = random_tensor(type, b_shape, rng);
      CAPTURE(to_string(a_shape));
      CAPTURE(to_string(b_shape));
      CAPTURE(ta);
      CAPTURE(tb);
      const auto op =
          make("MatMul", "opset1",
               {{"transpose_a", ta ? "true" : "false"}, {"transpose_b", tb ? "true" : "false"}});
      if (!takes(*op, {a, b})) break;
      taken = true;
      const Tensor got = run_everywhere(*op, {a, b})[0];
      dispatch_numeric(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const Tensor want = reference::matmul<T>(a, b, ta, tb, type);
        if constexpr (is_float_storage_v<T>)
          check_close(got, doubles(want), static_cast<double>(k),
                      8 * std::sqrt(static_cast<double>(k) + 1));
        else
          check_exact(got, want);
      });
    }
    types += taken;
  }
  CHECK(types >= 4);
}

namespace {

/// Softmax-8 or LogSoftmax-5 (`type`, `opset`) against `reference(x, axis)` on random shapes
/// and axes of every type the op takes, within `ulps` units of the result's type.
template <class Reference>
void check_softmax_family(const char* type_name, const char* opset, unsigned seed, double ulps,
                          Reference reference) {
  std::mt19937 rng(seed);
  std::size_t types = 0;
  for (ElementType type : kNumericTypes) {
    CAPTURE(to_string(type));
    bool taken = false;
    for (int trial = 0; trial < 12; ++trial) {
      const std::size_t rank = 1 + rng() % 4;
      // A long last axis (rows split over threads) and a long first one (columns).
      const Shape shape = trial == 0   ? Shape{32, 1027}
                          : trial == 1 ? Shape{300, 301}
                                       : random_shape(rng, rank);
      const Tensor x = random_tensor(type, shape, rng);
      const auto axis = trial == 1 ? std::int64_t{-2}
                                   : static_cast<std::int64_t>(rng() % x.rank()) -
                                         (rng() % 2 ? 0 : static_cast<std::int64_t>(x.rank()));
      CAPTURE(to_string(shape));
      CAPTURE(axis);
      const auto op = make(type_name, opset, {{"axis", std::to_string(axis)}});
      if (!takes(*op, {x})) break;
      taken = true;
      const Tensor got = run_everywhere(*op, {x})[0];
      const auto a =
          static_cast<std::size_t>(axis < 0 ? axis + static_cast<std::int64_t>(x.rank()) : axis);
      dispatch_numeric(type, [&](auto tag) { check_close(got, reference(tag, x, a), ulps, 16); });
    }
    types += taken;
  }
  CHECK(types >= 3);
}

}  // namespace

TEST_CASE("reference: Softmax-8 on every axis") {
  check_softmax_family("Softmax", "opset8", 105, 1.0, [](auto tag, const Tensor& x, std::size_t a) {
    return reference::softmax<typename decltype(tag)::type>(x, a);
  });
}

TEST_CASE("reference: LogSoftmax-5 on every axis") {
  // The results are about -log(len): the roundings of x - max and of the logarithm are relative
  // to that.
  check_softmax_family("LogSoftmax", "opset5", 106, 8.0,
                       [](auto tag, const Tensor& x, std::size_t a) {
                         return reference::log_softmax<typename decltype(tag)::type>(x, a);
                       });
}

TEST_CASE("reference: the reductions over random axes, empty extents included") {
  struct Kind {
    const char* type;
    const char* opset;
    reference::Reduction reduction;
  };
  using R = reference::Reduction;
  const Kind kinds[] = {{"ReduceMax", "opset1", R::max},   {"ReduceMin", "opset1", R::min},
                        {"ReduceSum", "opset1", R::sum},   {"ReduceProd", "opset1", R::prod},
                        {"ReduceMean", "opset1", R::mean}, {"ReduceL1", "opset4", R::l1},
                        {"ReduceL2", "opset4", R::l2}};
  std::mt19937 rng(106);
  for (const Kind& kind : kinds) {
    std::size_t types = 0;
    for (ElementType type : kNumericTypes) {
      CAPTURE(kind.type);
      CAPTURE(to_string(type));
      bool taken = false;
      for (int trial = 0; trial < 10; ++trial) {
        const bool real = is_real(type);
        const std::size_t rank = rng() % (real ? 5 : 4);
        // Integers reduce at most 8 elements of at most 3, so that no sum of squares wraps.
        const Shape shape =
            trial == 0 && real ? Shape{50, 4000} : random_shape(rng, rank, real ? 5 : 2);
        const Tensor x = random_tensor(type, shape, rng);
        std::set<std::size_t> axes;
        for (std::size_t d = 0; d < x.rank(); ++d)
          if (rng() % 2) axes.insert(d);
        const bool keep = rng() % 2;
        std::vector<std::int64_t> axis_values;
        for (std::size_t d : axes)
          axis_values.push_back(static_cast<std::int64_t>(d) -
                                (rng() % 2 ? static_cast<std::int64_t>(x.rank()) : 0));
        CAPTURE(to_string(shape));
        CAPTURE(keep);
        const auto op = make(kind.type, kind.opset, {{"keep_dims", keep ? "true" : "false"}});
        const std::vector<Tensor> inputs{x, i64s(axis_values)};
        if (!takes(*op, inputs)) break;
        taken = true;
        const Tensor got = run_everywhere(*op, inputs)[0];
        std::size_t reduced = 1;
        for (std::size_t d : axes) reduced *= static_cast<std::size_t>(shape[d]);
        dispatch_numeric(type, [&](auto tag) {
          using T = typename decltype(tag)::type;
          const Tensor want = reference::reduce<T>(kind.reduction, x, axes, keep, type);
          REQUIRE(got.shape() == want.shape());
          const bool order_free = kind.reduction == R::max || kind.reduction == R::min;
          if constexpr (is_float_storage_v<T>) {
            if (order_free)
              check_same_values(got, want);
            else
              check_close(got, doubles(want), static_cast<double>(reduced),
                          8 * std::sqrt(static_cast<double>(reduced) + 1));
          } else {
            check_exact(got, want);
          }
        });
      }
      types += taken;
    }
    CHECK(types >= 4);
  }
}

TEST_CASE("reference: element-wise binary ops with NumPy broadcasting") {
  std::mt19937 rng(107);
  const char* const names[] = {"Add", "Subtract", "Multiply", "Maximum", "Minimum"};
  for (const char* name : names) {
    std::size_t types = 0;
    for (ElementType type : kNumericTypes) {
      CAPTURE(name);
      CAPTURE(to_string(type));
      bool taken = false;
      for (int trial = 0; trial < 12; ++trial) {
        const std::size_t rank = rng() % 5;
        const Shape out = trial == 0 ? Shape{3, 200, 177} : random_shape(rng, rank);
        // Each input drops some leading dims and broadcasts some others.
        Shape a_shape(out.begin() + static_cast<std::ptrdiff_t>(rng() % (out.size() + 1)),
                      out.end());
        Shape b_shape(out.begin() + static_cast<std::ptrdiff_t>(rng() % (out.size() + 1)),
                      out.end());
        for (auto& d : a_shape)
          if (rng() % 4 == 0) d = 1;
        for (auto& d : b_shape)
          if (rng() % 4 == 0) d = 1;
        const Tensor a = random_tensor(type, a_shape, rng), b = random_tensor(type, b_shape, rng);
        CAPTURE(to_string(a_shape));
        CAPTURE(to_string(b_shape));
        const auto op = make(name, "opset1");
        if (!takes(*op, {a, b})) break;
        taken = true;
        const Tensor got = run_everywhere(*op, {a, b})[0];
        dispatch_numeric(type, [&](auto tag) {
          using T = typename decltype(tag)::type;
          const std::string n = name;
          // Maximum and Minimum compare as the element type does.
          const auto less = [](auto x, auto y) {
            if constexpr (std::is_same_v<decltype(x), std::uint64_t> && std::is_signed_v<T>)
              return static_cast<std::int64_t>(x) < static_cast<std::int64_t>(y);
            else
              return x < y;
          };
          const Tensor want = reference::binary<T>(a, b, [&](auto x, auto y) {
            if (n == "Add") return decltype(x)(x + y);
            if (n == "Subtract") return decltype(x)(x - y);
            if (n == "Multiply") return decltype(x)(x * y);
            if (n == "Maximum") return less(x, y) ? y : x;
            return less(y, x) ? y : x;
          });
          check_same_values(got, want);
        });
      }
      types += taken;
    }
    CHECK(types >= 10);
  }
}

TEST_CASE("reference: element-wise unary math") {
  std::mt19937 rng(108);
  const char* const exact[] = {"Relu", "Abs", "Negative", "Floor", "Ceiling"};
  const char* const math[] = {"Exp", "Sigmoid", "Tanh"};
  for (const char* name : exact) {
    std::size_t types = 0;
    for (ElementType type : kNumericTypes) {
      CAPTURE(name);
      CAPTURE(to_string(type));
      const Shape shape = random_shape(rng, rng() % 4, 40);
      const Tensor x = random_tensor(type, shape, rng);
      const auto op = make(name, "opset1");
      if (!takes(*op, {x})) continue;
      ++types;
      const Tensor got = run_everywhere(*op, {x})[0];
      dispatch_numeric(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const std::string n = name;
        const Tensor want = reference::unary<T>(x, [&](auto v) {
          using V = decltype(v);
          bool negative = false;
          if constexpr (std::is_floating_point_v<V>)
            negative = v < V(0);
          else if constexpr (std::is_signed_v<T>)
            negative = static_cast<std::int64_t>(v) < 0;
          if (n == "Relu") return negative ? V(0) : v;
          if (n == "Abs") return negative ? V(V(0) - v) : v;
          if (n == "Negative") return V(V(0) - v);
          if constexpr (std::is_floating_point_v<V>)
            return n == "Floor" ? std::floor(v) : std::ceil(v);
          else
            return v;
        });
        check_same_values(got, want);
      });
    }
    CHECK(types >= 4);
  }
  for (const char* name : math) {
    for (ElementType type :
         {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64}) {
      CAPTURE(name);
      CAPTURE(to_string(type));
      const Shape shape = random_shape(rng, 1 + rng() % 3, 40);
      std::vector<double> values(reference::count(shape));
      for (double& v : values) v = std::uniform_real_distribution<double>(-6, 6)(rng);
      const Tensor x = tensor(type, shape, values);
      const auto op = make(name, "opset1");
      const Tensor got = run_everywhere(*op, {x})[0];
      const std::string n = name;
      std::vector<double> want(values.size());
      const std::vector<double> in = doubles(x);
      for (std::size_t i = 0; i < in.size(); ++i)
        want[i] = n == "Exp"    ? std::exp(in[i])
                  : n == "Tanh" ? std::tanh(in[i])
                                : 1 / (1 + std::exp(-in[i]));
      // Vectorised exp and tanh are allowed a few units in the last place, also of f64's.
      check_close(got, want, 0.0, type == ElementType::f64 ? 1e8 : 8);
    }
  }
}

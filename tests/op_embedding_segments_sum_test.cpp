// EmbeddingSegmentsSum-3: validation, the shape rule, index checks, wrapping integer sums, the
// kernel against a plain reference.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "kernels/embedding_segments_sum.hpp"
#include "reference/embedding_segments_sum.hpp"
#include "core/attributes.hpp"
#include "op_test_util.hpp"
#include "graph/op.hpp"
#include "ops/registry.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

const OpDef& ess_def() {
  return op_def("EmbeddingSegmentsSum", "opset3");
}

std::unique_ptr<const Op> make_op() {
  return ess_def().create(Attributes());
}

// The plain definition, one output element at a time: floats sum in compute_t (float for the
// 16-bit types) in index order and round once; integers sum modulo 2^64 and keep the low bits,
// which is what wrapping in the element type means.
template <class T, class I>
std::vector<T> reference_sum(const std::vector<T>& table, std::size_t row_size,
                             const std::vector<I>& indices, const std::vector<I>& ids,
                             std::size_t num_segments, std::optional<I> default_index,
                             const std::vector<T>* weights) {
  std::vector<T> out(num_segments * row_size);
  for (std::size_t s = 0; s < num_segments; ++s) {
    for (std::size_t j = 0; j < row_size; ++j) {
      bool any = false;
      if constexpr (is_float_storage_v<T>) {
        using C = compute_t<T>;
        C sum = 0;
        for (std::size_t k = 0; k < indices.size(); ++k) {
          if (static_cast<std::size_t>(ids[k]) != s) continue;
          C x = static_cast<C>(table[static_cast<std::size_t>(indices[k]) * row_size + j]);
          if (weights) x = x * static_cast<C>((*weights)[k]);
          sum = any ? sum + x : x;
          any = true;
        }
        out[s * row_size + j] = T(sum);
      } else {
        std::uint64_t sum = 0;
        for (std::size_t k = 0; k < indices.size(); ++k) {
          if (static_cast<std::size_t>(ids[k]) != s) continue;
          std::uint64_t x = static_cast<std::uint64_t>(
              table[static_cast<std::size_t>(indices[k]) * row_size + j]);
          if (weights) x *= static_cast<std::uint64_t>((*weights)[k]);
          sum += x;
          any = true;
        }
        out[s * row_size + j] = static_cast<T>(sum);
      }
      if (!any) {
        out[s * row_size + j] = default_index && *default_index >= 0
                                    ? table[static_cast<std::size_t>(*default_index) * row_size + j]
                                    : T{};
      }
    }
  }
  return out;
}

template <class T>
T random_value(std::mt19937& rng) {
  if constexpr (is_float_storage_v<T>) {
    std::uniform_real_distribution<float> d(-10.0f, 10.0f);
    return T(d(rng));
  } else if constexpr (std::is_signed_v<T>) {
    std::uniform_int_distribution<std::int64_t> d(std::numeric_limits<T>::min(),
                                                  std::numeric_limits<T>::max());
    return static_cast<T>(d(rng));
  } else {
    std::uniform_int_distribution<std::uint64_t> d(0, std::numeric_limits<T>::max());
    return static_cast<T>(d(rng));
  }
}

// The spec's example: table [5,2], indices [0,2,3,4], segments [0,0,2,2] of 3.
std::vector<Tensor> spec_inputs(ElementType type, ElementType index_type) {
  return {tensor(type, {5, 2}, {-0.2, -0.6, -0.1, -0.4, -1.9, -1.8, -1.0, 1.5, 0.8, -0.7}),
          ints(index_type, {4}, {0, 2, 3, 4}), ints(index_type, {4}, {0, 0, 2, 2}),
          ints(index_type, {}, {3})};
}

}  // namespace

TEST_CASE("EmbeddingSegmentsSum registry entry") {
  const OpDef& def = ess_def();
  CHECK(def.type == "EmbeddingSegmentsSum");
  CHECK(def.version == 3);
  CHECK(def.since_opset == 3);
  CHECK(def.min_inputs == 4);
  CHECK(def.max_inputs == 6);
  CHECK(def.num_outputs == 1);
  CHECK(def.kind == OpKind::compute);
  std::string why;
  CHECK(resolve_op("EmbeddingSegmentsSum", "opset16", &why) == &def);
  CHECK(resolve_op("EmbeddingSegmentsSum", "opset2", &why) == nullptr);
  CHECK(make_op()->attributes().empty());
}

TEST_CASE("EmbeddingSegmentsSum spec example") {
  const auto op = make_op();
  for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
    CAPTURE(to_string(index_type));
    std::vector<Tensor> in = spec_inputs(ElementType::f32, index_type);
    SUBCASE("default index and weights: the default row is not weighted") {
      in.push_back(ints(index_type, {}, {0}));
      in.push_back(tensor(ElementType::f32, {4}, {0.5, 0.5, 0.5, 0.5}));
      const Tensor out = run(*op, in);
      CHECK(out.shape() == Shape{3, 2});
      const std::vector<double> v = doubles(out);
      const std::vector<double> expected{-1.05, -1.2, -0.2, -0.6, -0.1, 0.4};
      for (std::size_t i = 0; i < 6; ++i) CHECK(v[i] == doctest::Approx(expected[i]).epsilon(1e-6));
    }
    SUBCASE("no default index: the empty segment is zeros") {
      const std::vector<double> v = doubles(run(*op, in));
      const std::vector<double> expected{-2.1, -2.4, 0, 0, -0.2, 0.8};
      for (std::size_t i = 0; i < 6; ++i) CHECK(v[i] == doctest::Approx(expected[i]).epsilon(1e-6));
    }
    SUBCASE("default index -1: zeros") {
      in.push_back(ints(index_type, {}, {-1}));
      const std::vector<double> v = doubles(run(*op, in));
      CHECK(v[2] == 0);
      CHECK(v[3] == 0);
      CHECK(v[4] == doctest::Approx(-0.2).epsilon(1e-6));
    }
    SUBCASE("default index -1 with weights") {
      in.push_back(ints(index_type, {}, {-1}));
      in.push_back(tensor(ElementType::f32, {4}, {2, 2, 2, 2}));
      const std::vector<double> v = doubles(run(*op, in));
      CHECK(v[0] == doctest::Approx(-4.2).epsilon(1e-6));
      CHECK(v[2] == 0);
      CHECK(v[3] == 0);
    }
  }
}

TEST_CASE("EmbeddingSegmentsSum: unsorted segment ids and repeated indices") {
  const auto op = make_op();
  const Tensor table = tensor(ElementType::i32, {3, 2}, {1, 2, 10, 20, 100, 200});
  const Tensor out = run(*op, {table, ints(ElementType::i64, {5}, {2, 0, 2, 1, 0}),
                               ints(ElementType::i64, {5}, {3, 0, 3, 0, 1}),
                               ints(ElementType::i64, {}, {4}), ints(ElementType::i64, {}, {1})});
  CHECK(doubles(out) == std::vector<double>{11, 22, 1, 2, 10, 20, 200, 400});
}

TEST_CASE("EmbeddingSegmentsSum: integer sums wrap as the element type does") {
  const auto op = make_op();
  const auto sum = [&](ElementType type, std::vector<double> table, std::vector<double> weights) {
    std::vector<Tensor> in{tensor(type, {2}, table), ints(ElementType::i32, {2}, {0, 1}),
                           ints(ElementType::i32, {2}, {0, 0}), ints(ElementType::i32, {}, {1})};
    if (!weights.empty()) {
      in.push_back(ints(ElementType::i32, {}, {-1}));
      in.push_back(tensor(type, {2}, weights));
    }
    return run(*op, in);
  };
  CHECK(sum(ElementType::i8, {100, 100}, {}).data<std::int8_t>()[0] == -56);
  CHECK(sum(ElementType::i8, {-100, -100}, {}).data<std::int8_t>()[0] == 56);
  CHECK(sum(ElementType::i8, {-1, 2}, {2, 100}).data<std::int8_t>()[0] == -58);  // -2 + 200
  CHECK(sum(ElementType::u8, {200, 100}, {}).data<std::uint8_t>()[0] == 44);
  CHECK(sum(ElementType::i16, {30000, 30000}, {}).data<std::int16_t>()[0] == -5536);
  CHECK(sum(ElementType::u16, {65535, 65535}, {65535, 65535}).data<std::uint16_t>()[0] == 2);
  CHECK(sum(ElementType::i32, {2147483647, 1}, {}).data<std::int32_t>()[0] ==
        std::numeric_limits<std::int32_t>::min());
  CHECK(sum(ElementType::i32, {65536, 0}, {65536, 0}).data<std::int32_t>()[0] == 0);
  CHECK(sum(ElementType::u32, {4294967295.0, 2}, {}).data<std::uint32_t>()[0] == 1);
  Tensor big(ElementType::i64, {2});
  big.data<std::int64_t>()[0] = std::numeric_limits<std::int64_t>::max();
  big.data<std::int64_t>()[1] = std::numeric_limits<std::int64_t>::max();
  const Tensor i64 =
      run(*op, {big, ints(ElementType::i64, {2}, {0, 1}), ints(ElementType::i64, {2}, {0, 0}),
                ints(ElementType::i64, {}, {1})});
  CHECK(i64.data<std::int64_t>()[0] == -2);
  Tensor ubig(ElementType::u64, {2});
  ubig.data<std::uint64_t>()[0] = std::numeric_limits<std::uint64_t>::max();
  ubig.data<std::uint64_t>()[1] = 3;
  const Tensor u64 =
      run(*op, {ubig, ints(ElementType::i64, {2}, {0, 1}), ints(ElementType::i64, {2}, {0, 0}),
                ints(ElementType::i64, {}, {1})});
  CHECK(u64.data<std::uint64_t>()[0] == 2);
}

TEST_CASE("EmbeddingSegmentsSum: f16 and bf16 sum in float and round once") {
  const auto op = make_op();
  // 2048 + 1 + 1: in f16 each step would round back to 2048 (spacing 2); in float it is 2050.
  const Tensor h =
      run(*op, {tensor(ElementType::f16, {2}, {2048, 1}), ints(ElementType::i32, {3}, {0, 1, 1}),
                ints(ElementType::i32, {3}, {0, 0, 0}), ints(ElementType::i32, {}, {1})});
  CHECK(doubles(h) == std::vector<double>{2050});
  // The same with bf16 around 256.
  const Tensor b =
      run(*op, {tensor(ElementType::bf16, {2}, {256, 1}), ints(ElementType::i64, {3}, {0, 1, 1}),
                ints(ElementType::i64, {3}, {0, 0, 0}), ints(ElementType::i64, {}, {1})});
  CHECK(doubles(b) == std::vector<double>{258});
  // Weighted: 0.1 * 3 summed 10 times rounds once.
  std::vector<std::int64_t> zeros(10, 0);
  const Tensor w =
      run(*op, {tensor(ElementType::f16, {1}, {0.1}), ints(ElementType::i32, {10}, zeros),
                ints(ElementType::i32, {10}, zeros), ints(ElementType::i32, {}, {1}),
                ints(ElementType::i32, {}, {0}),
                tensor(ElementType::f16, {10}, std::vector<double>(10, 3))});
  const float tenth = float16(0.1f);
  float total = 0;
  for (int i = 0; i < 10; ++i) total += tenth * 3.0f;
  const float expected = float16(total);
  CHECK(doubles(w)[0] == static_cast<double>(expected));
}

TEST_CASE("EmbeddingSegmentsSum: empty tensors") {
  const auto op = make_op();
  SUBCASE("no indices: every segment is the default row") {
    const Tensor out = run(*op, {tensor(ElementType::u16, {2, 2}, {1, 2, 3, 4}),
                                 ints(ElementType::i32, {0}, {}), ints(ElementType::i32, {0}, {}),
                                 ints(ElementType::i32, {}, {3}), ints(ElementType::i32, {}, {1})});
    CHECK(out.shape() == Shape{3, 2});
    CHECK(doubles(out) == std::vector<double>{3, 4, 3, 4, 3, 4});
  }
  SUBCASE("no indices, no default: zeros") {
    const Tensor out =
        run(*op, {tensor(ElementType::f64, {2, 2}, {1, 2, 3, 4}), ints(ElementType::i64, {0}, {}),
                  ints(ElementType::i64, {0}, {}), ints(ElementType::i64, {}, {2})});
    CHECK(doubles(out) == std::vector<double>{0, 0, 0, 0});
  }
  SUBCASE("an empty table with default -1") {
    const Tensor out =
        run(*op, {tensor(ElementType::f32, {0, 3}, {}), ints(ElementType::i64, {0}, {}),
                  ints(ElementType::i64, {0}, {}), ints(ElementType::i64, {}, {2}),
                  ints(ElementType::i64, {}, {-1})});
    CHECK(out.shape() == Shape{2, 3});
    CHECK(doubles(out) == std::vector<double>(6, 0));
  }
  SUBCASE("zero segments") {
    const Tensor out = run(
        *op, {tensor(ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}), ints(ElementType::i64, {0}, {}),
              ints(ElementType::i64, {0}, {}), ints(ElementType::i64, {}, {0})});
    CHECK(out.shape() == Shape{0, 3});
  }
  SUBCASE("empty rows and a huge segment count") {
    const Tensor out = run(*op, {tensor(ElementType::f32, {2, 0}, {}),
                                 ints(ElementType::i64, {1}, {1}), ints(ElementType::i64, {1}, {5}),
                                 ints(ElementType::i64, {}, {std::int64_t{1} << 60})});
    CHECK(out.shape() == Shape{std::int64_t{1} << 60, 0});
  }
}

TEST_CASE("EmbeddingSegmentsSum: indices, segment ids and the default index are checked") {
  const auto op = make_op();
  for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
    CAPTURE(to_string(index_type));
    const Tensor table = tensor(ElementType::f32, {5, 2}, std::vector<double>(10, 1));
    const auto in = [&](std::vector<std::int64_t> indices, std::vector<std::int64_t> ids,
                        std::int64_t num, std::optional<std::int64_t> def) {
      const auto n = static_cast<std::int64_t>(indices.size());
      std::vector<Tensor> v{table, ints(index_type, {n}, indices), ints(index_type, {n}, ids),
                            ints(index_type, {}, {num})};
      if (def) v.push_back(ints(index_type, {}, {*def}));
      return v;
    };
    const auto value_fails = [&](std::vector<Tensor> inputs, std::size_t port,
                                 std::string message) {
      CAPTURE(message);
      // At run time, through execute alone, and at load time with the index inputs as Consts.
      auto e = caught([&] { run(*op, inputs); });
      REQUIRE(e);
      CHECK(e->code() == ErrorCode::value);
      CHECK(e->context().port == static_cast<std::int64_t>(port));
      CHECK(e->message() == message);
      Tensor out(
          ElementType::f32,
          {static_cast<std::int64_t>(std::max<std::int64_t>(0, integer_at(inputs[3], 0))), 2});
      e = caught([&] { op->execute(inputs, std::span<Tensor>(&out, 1), {}); });
      if (port != 3) {
        REQUIRE(e);
        CHECK(e->message() == message);
      }
      std::vector<ValueInfo> infos{info(ElementType::f32, "[5,?]")};
      for (std::size_t i = 1; i < inputs.size(); ++i) infos.push_back(info(inputs[i]));
      e = caught([&] { op->infer(infos); });
      REQUIRE(e);
      CHECK(e->message() == message);
    };
    value_fails(in({0, 5}, {0, 0}, 2, {}), 1,
                "indices[1] = 5 is out of the embedding table range [0, 5)");
    value_fails(in({-1, 0}, {0, 0}, 2, {}), 1,
                "indices[0] = -1 is out of the embedding table range [0, 5)");
    value_fails(in({0, 1}, {0, 2}, 2, {}), 2,
                "segment_ids[1] = 2 is out of the segment range [0, 2)");
    value_fails(in({0, 1}, {-1, 0}, 2, {}), 2,
                "segment_ids[0] = -1 is out of the segment range [0, 2)");
    value_fails(in({0, 1}, {0, 0}, 2, 5), 4,
                "default_index = 5 is out of the embedding table range [0, 5) (-1 fills empty "
                "segments with zeros)");
    value_fails(in({0, 1}, {0, 0}, 2, -2), 4,
                "default_index = -2 is out of the embedding table range [0, 5) (-1 fills empty "
                "segments with zeros)");
    value_fails(in({0, 1}, {0, 0}, -1, {}), 3, "num_segments = -1 is negative");

    // Partly known values at load time: a negative index is wrong whatever the table size.
    const Tensor negative = ints(index_type, {2}, {0, -3});
    const auto e = caught([&] {
      op->infer(std::vector{info(ElementType::f32, "[?,2]"), info(negative),
                            info(index_type, "[2]"), info(index_type, "[]")});
    });
    REQUIRE(e);
    CHECK(e->message() == "indices[1] = -3 is negative");
  }
}

TEST_CASE("EmbeddingSegmentsSum: the kernel checks every index before writing") {
  const std::vector<float> table{1, 2, 3};
  const std::vector<std::int32_t> indices{0, 1, 2};
  const std::vector<std::int32_t> ids{0, 1, 0};
  const float* no_weights = nullptr;
  std::vector<float> out(2, 42.0f);
  const std::int32_t bad_default = 3;
  auto problem = embedding_segments_sum(Parallel(), table.data(), 3, 1, indices.data(), ids.data(), 3, 2,
                                        &bad_default, no_weights, out.data());
  REQUIRE(problem);
  CHECK(problem->input == EmbeddingIndexProblem::Input::default_index);
  CHECK(problem->value == 3);
  CHECK(problem->bound == 3);
  const std::vector<std::int32_t> bad_ids{0, 1, 2};
  const std::int32_t* no_default = nullptr;
  problem = embedding_segments_sum(Parallel(), table.data(), 3, 1, indices.data(), bad_ids.data(), 3, 2,
                                   no_default, no_weights, out.data());
  REQUIRE(problem);
  CHECK(problem->input == EmbeddingIndexProblem::Input::segment_ids);
  CHECK(problem->position == 2);
  CHECK(problem->value == 2);
  CHECK(problem->bound == 2);
  CHECK(out == std::vector<float>{42.0f, 42.0f});
  // Good ids: every element is written, the empty segment 2 too.
  std::vector<float> out3(3, 42.0f);
  problem = embedding_segments_sum(Parallel(), table.data(), 3, 1, indices.data(), ids.data(), 3, 3, no_default,
                                   no_weights, out3.data());
  CHECK_FALSE(problem);
  CHECK(out3 == std::vector<float>{4.0f, 2.0f, 0.0f});
}

TEST_CASE("EmbeddingSegmentsSum validation messages") {
  const auto op = make_op();
  using E = ElementType;
  const auto fails = [&](std::vector<ValueInfo> inputs, std::size_t port, std::string message) {
    CAPTURE(message);
    const auto e = caught([&] { op->infer(inputs); });
    REQUIRE(e);
    CHECK(e->code() == ErrorCode::shape);
    CHECK(e->context().port == static_cast<std::int64_t>(port));
    CHECK(e->message() == message);
  };
  const auto t = [](E type, std::string_view shape) { return info(type, shape); };
  // Every valid input, then one replaced at a time.
  const std::vector<ValueInfo> good{t(E::f32, "[5,2]"), t(E::i64, "[4]"), t(E::i64, "[4]"),
                                    t(E::i64, "[]"),    t(E::i64, "[]"),  t(E::f32, "[4]")};
  const auto with = [&](std::size_t i, ValueInfo v) {
    std::vector<ValueInfo> in = good;
    in[i] = v;
    return in;
  };
  CHECK(inferred(*op, good) == "f32 [?,2]");
  fails(with(1, t(E::f32, "[4]")), 1, "indices must be i32 or i64, got f32");
  fails(with(2, t(E::f32, "[4]")), 2, "segment_ids must be i32 or i64, got f32");
  fails(with(3, t(E::f32, "[]")), 3, "num_segments must be i32 or i64, got f32");
  fails(with(4, t(E::f32, "[]")), 4, "default_index must be i32 or i64, got f32");
  fails(with(1, t(E::i32, "[4]")), 2,
        "segment_ids element type (i64) must match indices element type (i32)");
  fails(with(4, t(E::i32, "[]")), 4,
        "default_index element type (i32) must match indices element type (i64)");
  fails(with(5, t(E::i64, "[4]")), 5,
        "per_sample_weights element type (i64) must match embedding table element type (f32)");
  fails(with(3, t(E::i32, "[]")), 3,
        "num_segments element type (i32) must match segment_ids element type (i64)");
  fails(with(0, t(E::boolean, "[5,2]")), 0, "emb_table must be a numeric tensor, got boolean");
  fails(with(5, t(E::f32, "[3]")), 5,
        "indices and per_sample_weights must have the same shape, got [4] and [3]");
  fails(with(3, t(E::i64, "[2]")), 3, "num_segments must be a scalar, got [2]");
  fails(with(3, t(E::i64, "[1]")), 3, "num_segments must be a scalar, got [1]");
  fails(with(4, t(E::i64, "[2]")), 4, "default_index must be a scalar, got [2]");
  fails(with(1, t(E::i64, "[4,2]")), 1, "indices must be 1D, got [4,2]");
  fails(with(2, t(E::i64, "[3,2]")), 2, "segment_ids must be 1D, got [3,2]");
  fails(with(2, t(E::i64, "[3]")), 2,
        "indices and segment_ids must have the same shape, got [4] and [3]");
  fails(with(5, t(E::f32, "[4,2]")), 5, "per_sample_weights must be 1D, got [4,2]");
  fails(with(0, t(E::f32, "[]")), 0, "emb_table cannot be a scalar");
  // The same with four inputs.
  const std::vector<ValueInfo> four(good.begin(), good.begin() + 4);
  CHECK(inferred(*op, four) == "f32 [?,2]");
  std::vector<ValueInfo> bad = four;
  bad[1] = t(E::f32, "[4]");
  fails(bad, 1, "indices must be i32 or i64, got f32");
}

TEST_CASE("EmbeddingSegmentsSum shape rule") {
  const auto op = make_op();
  using E = ElementType;
  const Tensor three = ints(E::i64, {}, {3});
  const Tensor zero = ints(E::i32, {}, {0});
  CHECK(inferred(*op, {info(E::f32, "[5,2,6]"), info(E::i64, "[4]"), info(E::i64, "[4]"),
                       info(E::i64, "[]"), info(E::i64, "[]"), info(E::f32, "[4]")}) ==
        "f32 [?,2,6]");
  CHECK(inferred(*op, {info(E::f32, "[5,?]"), info(E::i64, "[4]"), info(E::i64, "[4]"),
                       info(E::i64, "[]")}) == "f32 [?,?]");
  CHECK(inferred(*op, {info(E::f32, "[5,2]"), info(E::i64, "[4]"), info(E::i64, "[4]"),
                       info(three)}) == "f32 [3,2]");
  CHECK(inferred(*op, {info(E::u8, "[5..10,2..4,1..3]"), info(E::i32, "[?]"), info(E::i32, "[...]"),
                       info(zero)}) == "u8 [0,2..4,1..3]");
  CHECK(inferred(*op, {info(E::f16, "[...]"), info(E::i64, "[4]"), info(E::i64, "[4]"),
                       info(three)}) == "f16 [...]");
  CHECK(inferred(*op, {info(E::f16, "[...]"), info(E::i64, "[...]"), info(E::i64, "[...]"),
                       info(E::i64, "[...]"), info(E::i64, "[...]"), info(E::f16, "[...]")}) ==
        "f16 [...]");
  CHECK(inferred(*op, {info(E::i8, "[?]"), info(E::i64, "[2..5]"), info(E::i64, "[3..]"),
                       info(E::i64, "[]"), info(E::i64, "[]"), info(E::i8, "[..4]")}) == "i8 [?]");
  // The checks still run when the table rank is unknown.
  CHECK_THROWS_WITH_AS(op->infer(std::vector{info(E::f32, "[...]"), info(E::i64, "[4]"),
                                             info(E::i64, "[3]"), info(E::i64, "[]")}),
                       doctest::Contains("indices and segment_ids must have the same shape"),
                       Error);
}

TEST_CASE("EmbeddingSegmentsSum matches the reference on random inputs of every type") {
  std::mt19937 rng(3);
  const std::vector<Shape> row_shapes{{}, {1}, {2, 3}, {17}, {4, 2, 2}};
  for (ElementType type : kNumericTypes) {
    for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
      CAPTURE(to_string(type));
      CAPTURE(to_string(index_type));
      dispatch_numeric(type, [&](auto data_tag) {
        using T = typename decltype(data_tag)::type;
        dispatch_index(index_type, [&](auto index_tag) {
          using I = typename decltype(index_tag)::type;
          for (const Shape& row_shape : row_shapes) {
            for (int trial = 0; trial < 6; ++trial) {
              const std::size_t num_emb = 1 + rng() % 12;
              const std::size_t num_indices = rng() % 30;
              const std::size_t num_segments = rng() % 10 + (trial == 0 ? 0 : 1);
              std::size_t row_size = 1;
              for (auto d : row_shape) row_size *= static_cast<std::size_t>(d);
              Shape table_shape{static_cast<std::int64_t>(num_emb)};
              table_shape.insert(table_shape.end(), row_shape.begin(), row_shape.end());

              std::vector<T> table(num_emb * row_size);
              for (T& v : table) v = random_value<T>(rng);
              std::vector<I> indices(num_indices);
              std::vector<I> ids(num_indices);
              std::vector<T> weights(num_indices);
              for (std::size_t k = 0; k < num_indices; ++k) {
                indices[k] = static_cast<I>(rng() % num_emb);
                ids[k] = num_segments ? static_cast<I>(rng() % num_segments) : I{0};
                weights[k] = random_value<T>(rng);
              }
              if (num_segments == 0) {
                indices.clear();
                ids.clear();
                weights.clear();
              }
              // 4, 5 (default -1 or a row) and 6 inputs.
              const int variant = trial % 4;
              std::optional<I> def;
              if (variant >= 1) def = variant == 1 ? I{-1} : static_cast<I>(rng() % num_emb);
              const bool weighted = variant == 3;

              const auto n = static_cast<std::int64_t>(indices.size());
              Tensor table_t(type, table_shape);
              std::copy(table.begin(), table.end(), table_t.data<T>());
              Tensor indices_t(index_type, {n});
              std::copy(indices.begin(), indices.end(), indices_t.data<I>());
              Tensor ids_t(index_type, {n});
              std::copy(ids.begin(), ids.end(), ids_t.data<I>());
              std::vector<Tensor> inputs{
                  table_t, indices_t, ids_t,
                  ints(index_type, {}, {static_cast<std::int64_t>(num_segments)})};
              if (def) inputs.push_back(ints(index_type, {}, {*def}));
              if (weighted) {
                Tensor w(type, {n});
                std::copy(weights.begin(), weights.end(), w.data<T>());
                inputs.push_back(w);
              }
              const Tensor out = run(*make_op(), inputs);
              Shape expected_shape = table_shape;
              expected_shape[0] = static_cast<std::int64_t>(num_segments);
              REQUIRE(out.shape() == expected_shape);
              const std::vector<T> expected = reference_sum(
                  table, row_size, indices, ids, num_segments, def, weighted ? &weights : nullptr);
              REQUIRE(expected.size() == out.size());
              std::size_t mismatches = 0;
              for (std::size_t k = 0; k < expected.size(); ++k)
                if (!same_value(out.data<T>()[k], expected[k])) ++mismatches;
              CHECK(mismatches == 0);
            }
          }
        });
      });
    }
  }
}

TEST_CASE("EmbeddingSegmentsSum: the optimised kernel equals the plain one on any number of "
          "threads") {
  std::mt19937 rng(11);
  for (ElementType type : kNumericTypes) {
    for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
      CAPTURE(to_string(type));
      CAPTURE(to_string(index_type));
      dispatch_numeric(type, [&](auto data_tag) {
        using T = typename decltype(data_tag)::type;
        dispatch_index(index_type, [&](auto index_tag) {
          using I = typename decltype(index_tag)::type;
          for (std::size_t row_size : {1u, 5u, 8u, 64u}) {
            for (int trial = 0; trial < 8; ++trial) {
              const std::size_t num_emb = 1 + rng() % 50;
              const std::size_t num_indices = rng() % 300;
              const std::size_t num_segments = 1 + rng() % 60;
              std::vector<T> table(num_emb * row_size);
              for (T& v : table) v = random_value<T>(rng);
              std::vector<I> indices(num_indices), ids(num_indices);
              std::vector<T> weights(num_indices);
              for (std::size_t k = 0; k < num_indices; ++k) {
                indices[k] = static_cast<I>(rng() % num_emb);
                ids[k] = static_cast<I>(rng() % num_segments);
                weights[k] = random_value<T>(rng);
              }
              // Sorted ids (runs, and empty segments between them) but for the last trials.
              if (trial < 6) std::sort(ids.begin(), ids.end());
              const I minus_one = -1;
              const I some_row = static_cast<I>(rng() % num_emb);
              const I* def = trial % 3 == 0 ? nullptr : trial % 3 == 1 ? &minus_one : &some_row;
              const T* w = trial % 2 ? weights.data() : nullptr;
              std::vector<T> want(num_segments * row_size), one(want.size());
              REQUIRE_FALSE(reference::embedding_segments_sum(
                  table.data(), num_emb, row_size, indices.data(), ids.data(), num_indices,
                  num_segments, def, w, want.data()));
              REQUIRE_FALSE(embedding_segments_sum(Parallel(), table.data(), num_emb, row_size,
                                                   indices.data(), ids.data(), num_indices,
                                                   num_segments, def, w, one.data()));
              CHECK(std::memcmp(want.data(), one.data(), want.size() * sizeof(T)) == 0);
              for (ThreadPool* pool : test_pools()) {
                std::vector<T> split(want.size());
                REQUIRE_FALSE(embedding_segments_sum(
                    Parallel(pool), table.data(), num_emb, row_size, indices.data(), ids.data(),
                    num_indices, num_segments, def, w, split.data(), 7));
                CHECK(std::memcmp(split.data(), one.data(), one.size() * sizeof(T)) == 0);
              }
              if (num_indices == 0) continue;
              // A bad index or segment id is the same first one on any number of threads.
              std::vector<I> bad_indices = indices, bad_ids = ids;
              const std::size_t at = rng() % num_indices;
              if (trial % 2)
                bad_indices[at] = trial % 4 == 1 ? I{-2} : static_cast<I>(num_emb);
              else
                bad_ids[at] = trial % 4 == 0 ? I{-1} : static_cast<I>(num_segments);
              std::vector<T> scratch(want.size());
              const auto expected = reference::embedding_segments_sum(
                  table.data(), num_emb, row_size, bad_indices.data(), bad_ids.data(),
                  num_indices, num_segments, def, w, scratch.data());
              REQUIRE(expected);
              for (ThreadPool* pool : test_pools()) {
                const auto got = embedding_segments_sum(
                    Parallel(pool), table.data(), num_emb, row_size, bad_indices.data(),
                    bad_ids.data(), num_indices, num_segments, def, w, scratch.data(), 7);
                REQUIRE(got);
                CHECK(got->input == expected->input);
                CHECK(got->position == expected->position);
                CHECK(got->value == expected->value);
              }
            }
          }
        });
      });
    }
  }
}

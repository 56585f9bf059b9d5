// SegmentMax-16: attributes, validation, the shape rule, the kernel against a plain reference.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "reference/segment_max.hpp"
#include "kernels/segment_max.hpp"
#include "core/attributes.hpp"
#include "op_test_util.hpp"
#include "graph/op.hpp"
#include "ops/registry.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using AttrList = std::vector<std::pair<std::string, std::string>>;

const OpDef& segment_max_def() {
  return op_def("SegmentMax", "opset16");
}

std::unique_ptr<const Op> make_op(std::string fill_mode = "zero") {
  return segment_max_def().create(Attributes(AttrList{{"fill_mode", std::move(fill_mode)}}));
}

// The plain definition: the rows in order, each into its segment's running maximum (ids outside
// [0, num_segments) are dropped); a segment's first row starts it, and a NaN wins.
template <class T, class I>
std::vector<T> reference_segment_max(const std::vector<T>& data, const std::vector<I>& ids,
                                     std::size_t row_size, std::size_t num_segments, T fill) {
  using C = compute_t<T>;
  std::vector<T> out(num_segments * row_size, fill);
  std::vector<C> best(num_segments * row_size);
  std::vector<bool> any(num_segments, false);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto s = static_cast<std::size_t>(ids[i]);
    if (s >= num_segments) continue;
    for (std::size_t j = 0; j < row_size; ++j) {
      const C x = static_cast<C>(data[i * row_size + j]);
      C& b = best[s * row_size + j];
      if (!any[s]) {
        b = x;
      } else if constexpr (is_float_storage_v<T>) {
        if (!std::isnan(b) && (std::isnan(x) || x > b)) b = x;
      } else {
        if (x > b) b = x;
      }
    }
    any[s] = true;
  }
  for (std::size_t s = 0; s < num_segments; ++s)
    if (any[s])
      for (std::size_t j = 0; j < row_size; ++j) out[s * row_size + j] = T(best[s * row_size + j]);
  return out;
}

template <class T>
T random_value(std::mt19937& rng, bool allow_nan) {
  if constexpr (is_float_storage_v<T>) {
    if (allow_nan && rng() % 50 == 0) return T(std::numeric_limits<float>::quiet_NaN());
    if (rng() % 100 == 0) return T(-std::numeric_limits<float>::infinity());
    std::uniform_real_distribution<float> d(-100.0f, 100.0f);
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

}  // namespace

TEST_CASE("SegmentMax registry entry") {
  const OpDef& def = segment_max_def();
  CHECK(def.type == "SegmentMax");
  CHECK(def.version == 16);
  CHECK(def.since_opset == 16);
  CHECK(def.min_inputs == 2);
  CHECK(def.max_inputs == 3);
  CHECK(def.num_outputs == 1);
  CHECK(def.kind == OpKind::compute);
  std::string why;
  CHECK(resolve_op("segmentmax", "opset16", &why) == &def);
  CHECK(resolve_op("SegmentMax", "opset15", &why) == nullptr);
  CHECK(why.find("SegmentMax-16 (opset16)") != std::string::npos);
}

TEST_CASE("SegmentMax fill_mode attribute") {
  const OpDef& def = segment_max_def();
  const auto mode_of = [&](AttrList attrs) {
    return def.create(Attributes(std::move(attrs)))->attributes();
  };
  using Attrs = AttrList;
  CHECK(mode_of({{"fill_mode", "zero"}}) == Attrs{{"fill_mode", "zero"}});
  CHECK(mode_of({{"fill_mode", "ZERO"}}) == Attrs{{"fill_mode", "zero"}});
  CHECK(mode_of({{"fill_mode", "Lowest"}}) == Attrs{{"fill_mode", "lowest"}});
  CHECK(mode_of({{"empty_segment_value", "LOWEST"}}) == Attrs{{"fill_mode", "lowest"}});
  CHECK(mode_of({{"empty_segment_value", "zero"}}) == Attrs{{"fill_mode", "zero"}});
  CHECK(mode_of({{"fill_mode", "lowest"}, {"empty_segment_value", "LOWEST"}}) ==
        Attrs{{"fill_mode", "lowest"}});

  CHECK_THROWS_WITH_AS(def.create(Attributes()),
                       doctest::Contains("missing required attribute 'fill_mode'"), Error);
  CHECK_THROWS_WITH_AS(def.create(Attributes(AttrList{{"fill_mode", "max"}})),
                       doctest::Contains("attribute 'fill_mode' = 'max': expected one of zero, "
                                         "lowest"),
                       Error);
  CHECK_THROWS_WITH_AS(def.create(Attributes(AttrList{{"empty_segment_value", "0"}})),
                       doctest::Contains("attribute 'empty_segment_value' = '0'"), Error);
  CHECK_THROWS_WITH_AS(
      def.create(Attributes(AttrList{{"fill_mode", "zero"}, {"empty_segment_value", "lowest"}})),
      doctest::Contains("'fill_mode' = 'zero' and 'empty_segment_value' = 'lowest' disagree"),
      Error);
  const auto e = caught([&] { def.create(Attributes()); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::format);
}

TEST_CASE("SegmentMax spec examples") {
  const auto op = make_op("zero");
  const Tensor data = tensor(ElementType::f32, {5}, {1, 2, 3, 4, 5});
  const Tensor ids = ints(ElementType::i32, {5}, {0, 0, 2, 3, 3});

  SUBCASE("num_segments smaller than max + 1 drops segments") {
    const Tensor out = run(*op, {data, ids, ints(ElementType::i64, {}, {2})});
    CHECK(out.shape() == Shape{2});
    CHECK(doubles(out) == std::vector<double>{2, 0});
  }
  SUBCASE("num_segments larger than max + 1 pads with empty segments") {
    const Tensor out = run(*op, {data, ids, ints(ElementType::i64, {}, {8})});
    CHECK(out.shape() == Shape{8});
    CHECK(doubles(out) == std::vector<double>{2, 0, 3, 5, 0, 0, 0, 0});
  }
  SUBCASE("no num_segments: max + 1") {
    const Tensor out = run(*op, {data, ids});
    CHECK(doubles(out) == std::vector<double>{2, 0, 3, 5});
  }
  SUBCASE("2D data with LOWEST") {
    const auto lowest = make_op("LOWEST");
    const Tensor d = tensor(ElementType::i32, {3, 4}, {1, 2, 3, 4, 5, -6, 7, 8, -9, 10, 0, 12});
    const Tensor out = run(*lowest, {d, ints(ElementType::i64, {3}, {0, 2, 2})});
    CHECK(out.shape() == Shape{3, 4});
    const double low = std::numeric_limits<std::int32_t>::lowest();
    CHECK(doubles(out) == std::vector<double>{1, 2, 3, 4, low, low, low, low, 5, 10, 7, 12});
  }
  SUBCASE("the description's example, segments 2 and 4 empty") {
    const Tensor d = tensor(ElementType::f32, {8}, {1, 7, 3, 2, 9, 4, 6, 5});
    const Tensor i = ints(ElementType::i64, {8}, {0, 0, 0, 1, 1, 3, 5, 5});
    CHECK(doubles(run(*op, {d, i})) == std::vector<double>{7, 9, 0, 4, 0, 6});
  }
}

TEST_CASE("SegmentMax: a non-empty segment is its maximum, also when it is below the fill") {
  const Tensor data = tensor(ElementType::f32, {4, 2}, {-5, -1, -3, -7, -2, -2, 4, -8});
  const Tensor ids = ints(ElementType::i32, {4}, {0, 0, 2, 2});
  const Tensor num = ints(ElementType::i32, {}, {4});
  CHECK(doubles(run(*make_op("zero"), {data, ids, num})) ==
        std::vector<double>{-3, -1, 0, 0, 4, -2, 0, 0});
  const double low = std::numeric_limits<float>::lowest();
  CHECK(doubles(run(*make_op("lowest"), {data, ids, num})) ==
        std::vector<double>{-3, -1, low, low, 4, -2, low, low});
}

TEST_CASE("SegmentMax: LOWEST is the lowest finite value of every type") {
  const auto op = make_op("lowest");
  for (ElementType type : kNumericTypes) {
    CAPTURE(to_string(type));
    // Segment 0 holds one row, segment 1 is empty.
    const Tensor out = run(*op, {tensor(type, {1, 2}, {1, 2}), ints(ElementType::i64, {1}, {0}),
                                 ints(ElementType::i64, {}, {2})});
    dispatch_numeric(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* p = out.data<T>();
      CHECK(same_value(p[0], T(1)));
      CHECK(same_value(p[1], T(2)));
      const T low = lowest_value<T>();
      CHECK(std::memcmp(&p[2], &low, sizeof(T)) == 0);
      CHECK(std::memcmp(&p[3], &low, sizeof(T)) == 0);
    });
  }
  // The values openvino-ops 1.1 lists.
  CHECK(static_cast<float>(lowest_value<float16>()) == -65504.0f);
  CHECK(static_cast<float>(lowest_value<bfloat16>()) == -3.38953139e38f);
  const auto f = run(*op, {tensor(ElementType::f32, {1}, {1}), ints(ElementType::i32, {1}, {1})});
  CHECK(f.data<float>()[0] == std::numeric_limits<float>::lowest());
  CHECK(std::isfinite(f.data<float>()[0]));
}

TEST_CASE("SegmentMax: a NaN in a segment makes its maximum NaN") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (ElementType type :
       {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64}) {
    CAPTURE(to_string(type));
    // Segments: NaN first, NaN in the middle, NaN last, no NaN (with +inf), all NaN.
    const Tensor data = tensor(type, {11}, {nan, 1, 2, 3, nan, 4, 5, nan, -inf, inf, nan});
    const Tensor ids = ints(ElementType::i32, {11}, {0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4});
    const std::vector<double> out = doubles(run(*make_op("zero"), {data, ids}));
    REQUIRE(out.size() == 5);
    CHECK(std::isnan(out[0]));
    CHECK(std::isnan(out[1]));
    CHECK(std::isnan(out[2]));
    CHECK(out[3] == static_cast<double>(inf));
    CHECK(std::isnan(out[4]));
  }
}

TEST_CASE("SegmentMax: f16 and bf16 maxima are exact for every bit pattern") {
  // Every pattern (subnormals, infinities, NaNs, both zeros) meets two random ones in a segment.
  std::mt19937 rng(16);
  for (ElementType type : {ElementType::f16, ElementType::bf16}) {
    CAPTURE(to_string(type));
    dispatch_numeric(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
        const std::size_t segments = 65536;
        Tensor data(type, {3 * static_cast<std::int64_t>(segments)});
        Tensor ids(ElementType::i32, {3 * static_cast<std::int64_t>(segments)});
        for (std::size_t k = 0; k < segments; ++k) {
          data.data<T>()[3 * k] = T::from_bits(static_cast<std::uint16_t>(rng()));
          data.data<T>()[3 * k + 1] = T::from_bits(static_cast<std::uint16_t>(k));
          data.data<T>()[3 * k + 2] = T::from_bits(static_cast<std::uint16_t>(rng()));
          for (std::size_t r = 0; r < 3; ++r)
            ids.data<std::int32_t>()[3 * k + r] = static_cast<std::int32_t>(k);
        }
        const Tensor out = run(*make_op("zero"), {data, ids});
        const std::vector<T> expected =
            reference_segment_max(std::vector<T>(data.data<T>(), data.data<T>() + data.size()),
                                  std::vector<std::int32_t>(ids.data<std::int32_t>(),
                                                            ids.data<std::int32_t>() + ids.size()),
                                  1, segments, T{});
        REQUIRE(out.size() == segments);
        std::size_t mismatches = 0;
        for (std::size_t k = 0; k < segments; ++k)
          if (!same_value(out.data<T>()[k], expected[k])) ++mismatches;
        CHECK(mismatches == 0);
      }
    });
  }
}

TEST_CASE("SegmentMax: ids at or beyond num_segments are dropped") {
  const auto op = make_op("zero");
  const Tensor data = tensor(ElementType::i8, {6}, {1, 2, 3, 4, 5, 6});
  const Tensor ids = ints(ElementType::i64, {6}, {0, 1, 1, 3, 3, 9});
  CHECK(doubles(run(*op, {data, ids, ints(ElementType::i32, {}, {2})})) ==
        std::vector<double>{1, 3});
  CHECK(doubles(run(*op, {data, ids, ints(ElementType::i32, {}, {4})})) ==
        std::vector<double>{1, 3, 0, 5});
  const Tensor none = run(*op, {data, ids, ints(ElementType::i64, {}, {0})});
  CHECK(none.shape() == Shape{0});
  CHECK(doubles(run(*op, {data, ids})).size() == 10);
}

TEST_CASE("SegmentMax: empty tensors") {
  const auto op = make_op("lowest");
  SUBCASE("no rows, num_segments given: every segment is filled") {
    const Tensor out = run(*op, {tensor(ElementType::i16, {0, 3}, {}),
                                 ints(ElementType::i32, {0}, {}), ints(ElementType::i32, {}, {2})});
    CHECK(out.shape() == Shape{2, 3});
    CHECK(doubles(out) == std::vector<double>(6, -32768));
  }
  SUBCASE("no rows, no num_segments: no segments") {
    const Tensor out =
        run(*op, {tensor(ElementType::f32, {0, 3}, {}), ints(ElementType::i64, {0}, {})});
    CHECK(out.shape() == Shape{0, 3});
  }
  SUBCASE("empty rows") {
    const Tensor out =
        run(*op, {tensor(ElementType::u8, {3, 0}, {}), ints(ElementType::i64, {3}, {0, 4, 4})});
    CHECK(out.shape() == Shape{5, 0});
  }
  SUBCASE("empty rows and a huge segment count") {
    const Tensor out =
        run(*op, {tensor(ElementType::f32, {2, 0}, {}), ints(ElementType::i64, {2}, {0, 1}),
                  ints(ElementType::i64, {}, {std::int64_t{1} << 60})});
    CHECK(out.shape() == Shape{std::int64_t{1} << 60, 0});
  }
}

TEST_CASE("SegmentMax: segment ids must be sorted and non-negative") {
  const auto op = make_op("zero");
  const Tensor data = tensor(ElementType::f32, {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
    CAPTURE(to_string(index_type));
    const Tensor unsorted = ints(index_type, {4}, {0, 2, 1, 3});
    const Tensor negative = ints(index_type, {4}, {-1, 0, 0, 1});
    const Tensor negative_later = ints(index_type, {4}, {0, 0, -3, 1});

    SUBCASE("at run time") {
      auto e = caught([&] { run(*op, {data, unsorted}); });
      REQUIRE(e);
      CHECK(e->code() == ErrorCode::value);
      CHECK(e->context().port == 1);
      CHECK(e->message() ==
            "segment_ids must be sorted: segment_ids[2] = 1 is less than segment_ids[1] = 2");
      e = caught([&] { run(*op, {data, negative, ints(ElementType::i64, {}, {3})}); });
      REQUIRE(e);
      CHECK(e->code() == ErrorCode::value);
      CHECK(e->message() == "segment_ids[0] = -1 is negative");
      e = caught([&] { run(*op, {data, negative_later}); });
      REQUIRE(e);
      CHECK(e->message() == "segment_ids[2] = -3 is negative");
    }
    SUBCASE("at load time, when the ids are a Const") {
      const ValueInfo d = info(ElementType::f32, "[4,2]");
      auto e = caught([&] { op->infer(std::vector{d, info(unsorted)}); });
      REQUIRE(e);
      CHECK(e->code() == ErrorCode::value);
      CHECK(e->message().find("segment_ids must be sorted: segment_ids[2] = 1") == 0);
      // Even when num_segments is given and unknown.
      e = caught([&] { op->infer(std::vector{d, info(negative), info(ElementType::i32, "[]")}); });
      REQUIRE(e);
      CHECK(e->message() == "segment_ids[0] = -1 is negative");
    }
    SUBCASE("in execute as well, without infer") {
      Tensor out(ElementType::f32, {4, 2});
      std::vector<Tensor> inputs{data, unsorted};
      CHECK_THROWS_WITH_AS(op->execute(inputs, std::span<Tensor>(&out, 1), {}),
                           doctest::Contains("segment_ids[2] = 1 is less than"), Error);
    }
  }
  SUBCASE("the largest i64 id cannot give a segment count") {
    const Tensor big = ints(ElementType::i64, {1}, {std::numeric_limits<std::int64_t>::max()});
    CHECK_THROWS_WITH_AS(run(*op, {tensor(ElementType::f32, {1}, {1}), big}),
                         doctest::Contains("segment_ids[0] = 9223372036854775807 is too large"),
                         Error);
    // With num_segments it is simply dropped.
    CHECK(doubles(run(*op, {tensor(ElementType::f32, {1}, {1}), big,
                            ints(ElementType::i64, {}, {1})})) == std::vector<double>{0});
  }
}

TEST_CASE("SegmentMax: the kernels report the first bad id") {
  const std::vector<float> data{1, 2, 3};
  const std::vector<std::int64_t> ids{0, 1, 0};
  std::vector<float> out(2, 42.0f);
  // The plain kernel checks before writing; the optimised one checks while it reduces.
  const auto plain = reference::segment_max(data.data(), ids.data(), 3, 1, 2, 0.0f, out.data());
  REQUIRE(plain);
  CHECK(out == std::vector<float>{42.0f, 42.0f});
  const auto problem = segment_max(Parallel(), data.data(), ids.data(), 3, 1, 2, 0.0f, out.data());
  REQUIRE(problem);
  CHECK(problem->kind == SegmentIdProblem::Kind::unsorted);
  CHECK(problem->position == 2);
  CHECK(problem->value == 0);
  CHECK(problem->previous == 1);
  CHECK(plain->position == 2);
}

TEST_CASE("SegmentMax: the optimised kernel equals the plain one on any number of threads") {
  std::mt19937 rng(77);
  const auto check_type = [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t row_size : {1u, 3u, 8u, 17u, 64u}) {
      for (int trial = 0; trial < 6; ++trial) {
        const std::size_t rows = 1 + rng() % (trial < 3 ? 700 : 5000);
        std::vector<T> data(rows * row_size);
        for (T& v : data) v = random_value<T>(rng, true);
        // Sorted ids: runs of 1 to 40 rows, sometimes with gaps (empty segments).
        std::vector<std::int64_t> ids(rows);
        std::int64_t id = static_cast<std::int64_t>(rng() % 3);
        for (std::size_t i = 0; i < rows; ++i) {
          ids[i] = id;
          if (rng() % (1 + trial * 5) == 0) id += static_cast<std::int64_t>(rng() % 3);
        }
        // Fewer segments than ids (some dropped), as many, more (trailing empty ones).
        for (std::size_t segments : {static_cast<std::size_t>(ids.back() / 2),
                                     static_cast<std::size_t>(ids.back() + 1),
                                     static_cast<std::size_t>(ids.back() + 4)}) {
          const T fill = lowest_value<T>();
          std::vector<T> want(segments * row_size), one(want.size());
          REQUIRE_FALSE(reference::segment_max(data.data(), ids.data(), rows, row_size, segments,
                                               fill, want.data()));
          REQUIRE_FALSE(segment_max(Parallel(), data.data(), ids.data(), rows, row_size,
                                    segments, fill, one.data()));
          for (std::size_t k = 0; k < want.size(); ++k) REQUIRE(same_value(one[k], want[k]));
          {
            // The same with i32 ids (another vector width of ids).
            const std::vector<std::int32_t> narrow(ids.begin(), ids.end());
            std::vector<T> got(want.size());
            REQUIRE_FALSE(segment_max(Parallel(), data.data(), narrow.data(), rows, row_size,
                                      segments, fill, got.data()));
            for (std::size_t k = 0; k < want.size(); ++k) REQUIRE(same_value(got[k], want[k]));
          }
          for (ThreadPool* pool : test_pools()) {
            std::vector<T> split(want.size());
            REQUIRE_FALSE(segment_max(Parallel(pool), data.data(), ids.data(), rows, row_size,
                                      segments, fill, split.data(), 5));
            if (!one.empty())
              CHECK(std::memcmp(split.data(), one.data(), one.size() * sizeof(T)) == 0);
          }
          // A bad id anywhere is found at the same position on any number of threads.
          std::vector<std::int64_t> bad = ids;
          const std::size_t at = rng() % rows;
          bad[at] = (trial % 2) ? -1 : bad[at] - 1 - static_cast<std::int64_t>(rng() % 3);
          const auto expected = check_sorted_segment_ids(bad.data(), rows);
          for (ThreadPool* pool : test_pools()) {
            std::vector<T> scratch(want.size());
            const auto got = segment_max(Parallel(pool), data.data(), bad.data(), rows, row_size,
                                         segments, fill, scratch.data(), 5);
            REQUIRE(got.has_value() == expected.has_value());
            if (got) {
              CHECK(got->position == expected->position);
              CHECK(got->kind == expected->kind);
            }
          }
        }
      }
    }
  };
  check_type(type_tag<float>{});
  check_type(type_tag<double>{});
  check_type(type_tag<float16>{});
  check_type(type_tag<bfloat16>{});
  check_type(type_tag<std::int8_t>{});
  check_type(type_tag<std::uint8_t>{});
  check_type(type_tag<std::int16_t>{});
  check_type(type_tag<std::uint16_t>{});
  check_type(type_tag<std::int32_t>{});
  check_type(type_tag<std::uint32_t>{});
  check_type(type_tag<std::int64_t>{});
  check_type(type_tag<std::uint64_t>{});
}

TEST_CASE("SegmentMax: num_segments must be non-negative") {
  const auto op = make_op("zero");
  const Tensor data = tensor(ElementType::f32, {2}, {1, 2});
  const Tensor ids = ints(ElementType::i32, {2}, {0, 1});
  auto e = caught([&] { run(*op, {data, ids, ints(ElementType::i64, {}, {-1})}); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);
  CHECK(e->context().port == 2);
  CHECK(e->message() == "num_segments = -1 is negative");
  const Tensor num = ints(ElementType::i32, {}, {-4});
  e = caught([&] {
    op->infer(std::vector{info(ElementType::f32, "[?]"), info(ElementType::i32, "[?]"), info(num)});
  });
  REQUIRE(e);
  CHECK(e->message() == "num_segments = -4 is negative");
}

TEST_CASE("SegmentMax validation messages") {
  const auto op = make_op("lowest");
  const auto fails = [&](std::vector<ValueInfo> inputs, std::size_t port, std::string message) {
    CAPTURE(message);
    const auto e = caught([&] { op->infer(inputs); });
    REQUIRE(e);
    CHECK(e->code() == ErrorCode::shape);
    CHECK(e->context().port == static_cast<std::int64_t>(port));
    CHECK(e->message() == message);
  };
  using E = ElementType;
  fails({info(E::i32, "[3,12,225]"), info(E::i32, "[3]"), info(E::f32, "[]")}, 2,
        "num_segments must be i32 or i64, got f32");
  fails({info(E::i32, "[3,12,225]"), info(E::f32, "[3]"), info(E::i32, "[]")}, 1,
        "segment_ids must be i32 or i64, got f32");
  fails({info(E::i32, "[3,12,225]"), info(E::u64, "[3]")}, 1,
        "segment_ids must be i32 or i64, got u64");
  fails({info(E::boolean, "[3]"), info(E::i32, "[3]")}, 0,
        "data must be a numeric tensor, got boolean");
  fails({info(E::i32, "[3,12,225]"), info(E::i32, "[2,3]"), info(E::i32, "[]")}, 1,
        "segment_ids must be a 1D input, got [2,3]");
  fails({info(E::i32, "[3]"), info(E::i32, "[]")}, 1, "segment_ids must be a 1D input, got []");
  fails({info(E::i32, "[3,12,225]"), info(E::i32, "[3]"), info(E::i32, "[1]")}, 2,
        "num_segments must be a scalar input, got [1]");
  fails({info(E::i32, "[]"), info(E::i32, "[3]"), info(E::i32, "[]")}, 0,
        "the data input cannot be a scalar");
  fails({info(E::i32, "[3,12,225]"), info(E::i32, "[2]")}, 1,
        "the number of elements in segment_ids must match the first dimension of data: "
        "segment_ids [2], data [3,12,225]");
  fails({info(E::f32, "[2..4,5]"), info(E::i64, "[5..]")}, 1,
        "the number of elements in segment_ids must match the first dimension of data: "
        "segment_ids [5..], data [2..4,5]");
  // Shapes are checked before the ids' values (OpenVINO's order).
  const Tensor short_ids = ints(E::i32, {2}, {1, 0});
  fails({info(E::i32, "[3,12,225]"), info(short_ids), info(E::i32, "[]")}, 1,
        "the number of elements in segment_ids must match the first dimension of data: "
        "segment_ids [2], data [3,12,225]");
}

TEST_CASE("SegmentMax shape rule") {
  const auto op = make_op("zero");
  using E = ElementType;
  const Tensor ids012 = ints(E::i32, {3}, {0, 1, 2});
  const Tensor ids001 = ints(E::i32, {3}, {0, 0, 1});
  const Tensor empty_ids = ints(E::i64, {0}, {});
  const Tensor forty = ints(E::i32, {}, {40});
  const Tensor zero = ints(E::i32, {}, {0});
  const Tensor seven64 = ints(E::i64, {}, {7});

  // Unknown values: dim 0 is `?`.
  CHECK(inferred(*op, {info(E::i32, "[3,12,225]"), info(E::i64, "[3]")}) == "i32 [?,12,225]");
  CHECK(inferred(*op, {info(E::f32, "[3,12,81]"), info(E::i64, "[3]"), info(E::i64, "[]")}) ==
        "f32 [?,12,81]");
  // Known num_segments.
  CHECK(inferred(*op, {info(E::f32, "[3,12,81]"), info(ids001), info(forty)}) == "f32 [40,12,81]");
  CHECK(inferred(*op, {info(E::f32, "[3,12,81]"), info(ids012), info(zero)}) == "f32 [0,12,81]");
  CHECK(inferred(*op, {info(E::f32, "[3,12,81]"), info(E::i32, "[...]"), info(seven64)}) ==
        "f32 [7,12,81]");
  // Known ids and no num_segments: max + 1.
  CHECK(inferred(*op, {info(E::f32, "[3,12,81]"), info(ids012)}) == "f32 [3,12,81]");
  CHECK(inferred(*op, {info(E::f32, "[3,?,81]"), info(ids001)}) == "f32 [2,?,81]");
  CHECK(inferred(*op, {info(E::f32, "[0,4]"), info(empty_ids)}) == "f32 [0,4]");
  // Known ids but unknown num_segments: `?`.
  CHECK(inferred(*op, {info(E::f32, "[3,12,81]"), info(ids012), info(E::i64, "[]")}) ==
        "f32 [?,12,81]");
  CHECK(inferred(*op, {info(E::f32, "[3,?,81]"), info(ids012), info(E::i32, "[]")}) ==
        "f32 [?,?,81]");
  // Dynamic ranks and intervals.
  CHECK(inferred(*op, {info(E::f32, "[...]"), info(E::i64, "[...]"), info(E::i64, "[...]")}) ==
        "f32 [...]");
  CHECK(inferred(*op, {info(E::f32, "[...]"), info(E::i64, "[6]"), info(E::i64, "[]")}) ==
        "f32 [...]");
  CHECK(inferred(*op, {info(E::f32, "[...]"), info(ids012)}) == "f32 [...]");
  CHECK(inferred(*op, {info(E::f32, "[2..4,12..15,18..300]"), info(E::i64, "[2..4]"),
                       info(E::i64, "[...]")}) == "f32 [?,12..15,18..300]");
  CHECK(inferred(*op, {info(E::f32, "[3,12,81]"), info(E::i32, "[2..4]"), info(E::i32, "[]")}) ==
        "f32 [?,12,81]");
  CHECK(inferred(*op, {info(E::f32, "[3,?,81]"), info(E::i64, "[?]"), info(E::i64, "[]")}) ==
        "f32 [?,?,81]");
  CHECK(inferred(*op, {info(E::u16, "[?]"), info(E::i64, "[?]")}) == "u16 [?]");
  // The checks still run when the data rank is unknown.
  CHECK_THROWS_WITH_AS(op->infer(std::vector{info(E::f32, "[...]"), info(E::i32, "[2,2]")}),
                       doctest::Contains("segment_ids must be a 1D input"), Error);
  // num_segments and ids may differ in type.
  CHECK(inferred(*op, {info(E::f32, "[3,2]"), info(ids001), info(seven64)}) == "f32 [7,2]");
}

TEST_CASE("SegmentMax matches the reference on random inputs of every type") {
  std::mt19937 rng(20240516);
  const std::vector<Shape> row_shapes{{}, {1}, {3}, {4, 5}, {2, 3, 7}, {33}};
  for (ElementType type : kNumericTypes) {
    for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
      CAPTURE(to_string(type));
      CAPTURE(to_string(index_type));
      dispatch_numeric(type, [&](auto data_tag) {
        using T = typename decltype(data_tag)::type;
        dispatch_index(index_type, [&](auto index_tag) {
          using I = typename decltype(index_tag)::type;
          for (const Shape& row_shape : row_shapes) {
            for (int trial = 0; trial < 4; ++trial) {
              const std::size_t rows = rng() % 40;
              std::size_t row_size = 1;
              for (auto d : row_shape) row_size *= static_cast<std::size_t>(d);
              Shape shape{static_cast<std::int64_t>(rows)};
              shape.insert(shape.end(), row_shape.begin(), row_shape.end());

              Tensor data(type, shape);
              for (std::size_t i = 0; i < data.size(); ++i)
                data.data<T>()[i] = random_value<T>(rng, trial % 2 == 1);
              // Sorted ids with repeats and gaps.
              Tensor ids(index_type, {static_cast<std::int64_t>(rows)});
              I id = static_cast<I>(rng() % 3);
              for (std::size_t i = 0; i < rows; ++i) {
                ids.data<I>()[i] = id;
                if (rng() % 3 == 0) id = static_cast<I>(id + rng() % 4);
              }
              const std::size_t natural = rows ? static_cast<std::size_t>(id) + 1 : 0;
              const std::size_t last = rows ? static_cast<std::size_t>(ids.data<I>()[rows - 1]) : 0;
              // No num_segments, fewer, as many, more.
              const std::vector<std::int64_t> counts{-1, static_cast<std::int64_t>(last / 2),
                                                     static_cast<std::int64_t>(last + 1),
                                                     static_cast<std::int64_t>(natural + 3)};
              for (std::int64_t count : counts) {
                for (const char* mode : {"zero", "lowest"}) {
                  CAPTURE(count);
                  CAPTURE(mode);
                  const auto op = make_op(mode);
                  std::vector<Tensor> inputs{data, ids};
                  // The count's type alternates, independent of the ids' type.
                  if (count >= 0)
                    inputs.push_back(
                        ints(trial % 2 ? ElementType::i32 : ElementType::i64, {}, {count}));
                  const Tensor out = run(*op, inputs);
                  const std::size_t segments =
                      count >= 0 ? static_cast<std::size_t>(count) : (rows ? last + 1 : 0);
                  Shape expected_shape = shape;
                  expected_shape[0] = static_cast<std::int64_t>(segments);
                  REQUIRE(out.shape() == expected_shape);
                  const T fill = std::string(mode) == "zero" ? T{} : lowest_value<T>();
                  const std::vector<T> expected = reference_segment_max(
                      std::vector<T>(data.data<T>(), data.data<T>() + data.size()),
                      std::vector<I>(ids.data<I>(), ids.data<I>() + rows), row_size, segments,
                      fill);
                  REQUIRE(expected.size() == out.size());
                  std::size_t mismatches = 0;
                  for (std::size_t k = 0; k < expected.size(); ++k)
                    if (!same_value(out.data<T>()[k], expected[k])) ++mismatches;
                  CHECK(mismatches == 0);
                }
              }
            }
          }
        });
      });
    }
  }
}

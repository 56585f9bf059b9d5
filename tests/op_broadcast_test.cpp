// Select-1 and Broadcast-1/3: shape rules on partial shapes and values, bounds of target_shape,
// kernels against plain loops, threads and whole models.

#include <doctest/doctest.h>

#include <random>

#include "core/attributes.hpp"
#include "graph_builder.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

std::unique_ptr<const Op> make_op(std::string_view type, const Attributes& a = {},
                                  std::string_view opset = "opset3") {
  return op_def(type, opset).create(a);
}

std::string error_of(const Op& op, const std::vector<ValueInfo>& inputs) {
  const auto e = caught([&] { op.infer(inputs); });
  return e ? e->what() : "";
}

/// Index of output element i in an input whose shape is `in` aligned to `out`.
std::size_t source_index(const Shape& out, const Shape& in, std::size_t i) {
  std::size_t src = 0, stride = 1;
  for (std::size_t d = out.size(); d-- > 0;) {
    const auto o = static_cast<std::size_t>(out[d]);
    const std::size_t coord = i % o;
    i /= o;
    if (in[d] != 1) src += coord * stride;
    stride *= static_cast<std::size_t>(in[d]);
  }
  return src;
}

}  // namespace

TEST_CASE("Select: shape rules") {
  const auto b = ElementType::boolean, f = ElementType::f32;
  const auto numpy = make_op("Select", {}, "opset1");
  CHECK(inferred(*numpy, {info(b, "[2,1]"), info(f, "[3]"), info(f, "[1]")}) == "f32 [2,3]");
  CHECK(inferred(*numpy, {info(b, "[?,3]"), info(f, "[2..5,1]"), info(f, "[]")}) == "f32 [2..5,3]");
  CHECK(inferred(*numpy, {info(b, "[...]"), info(f, "[3]"), info(f, "[3]")}) == "f32 [...]");
  CHECK(error_of(*numpy, {info(f, "[3]"), info(f, "[3]"), info(f, "[3]")}).find("boolean") !=
        std::string::npos);
  CHECK(error_of(*numpy, {info(b, "[3]"), info(f, "[3]"), info(ElementType::i32, "[3]")})
            .find("one element type") != std::string::npos);
  CHECK(error_of(*numpy, {info(b, "[4]"), info(f, "[3]"), info(f, "[3]")}).find("condition") !=
        std::string::npos);
  CHECK(error_of(*numpy, {info(b, "[3]"), info(f, "[2]"), info(f, "[3]")}).find("then and else") !=
        std::string::npos);
  const auto none = make_op("Select", Attributes{{"auto_broadcast", "none"}}, "opset1");
  CHECK(inferred(*none, {info(b, "[?,3]"), info(f, "[2,?]"), info(f, "[...]")}) == "f32 [2,3]");
  CHECK(error_of(*none, {info(b, "[3]"), info(f, "[1]"), info(f, "[3]")}).find("none") !=
        std::string::npos);
  const auto pdpd = make_op("Select", Attributes{{"auto_broadcast", "pdpd"}}, "opset1");
  CHECK(inferred(*pdpd, {info(b, "[3]"), info(f, "[2,3]"), info(f, "[3]")}) == "f32 [2,3]");
}

TEST_CASE("Select: values against a plain loop, every type size, threads") {
  std::mt19937 rng(23);
  const std::vector<std::array<Shape, 3>> cases = {
      {{{4, 5}, {4, 5}, {4, 5}}}, {{{}, {4, 5}, {4, 5}}},        {{{4, 1}, {5}, {4, 5}}},
      {{{1, 5}, {4, 1}, {}}},     {{{3, 1, 6}, {1, 4, 1}, {6}}}, {{{300, 301}, {301}, {300, 1}}},
  };
  for (const ElementType type : {ElementType::f32, ElementType::f16, ElementType::i64,
                                 ElementType::u8, ElementType::boolean}) {
    for (const auto& shapes : cases) {
      Shape out;
      for (const Shape& s : shapes) {
        if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
        const std::size_t pad = out.size() - s.size();
        for (std::size_t d = 0; d < s.size(); ++d)
          if (s[d] != 1) out[pad + d] = s[d];
      }
      const auto random_values = [&](const Shape& s, int lo, int hi) {
        std::vector<double> v(static_cast<std::size_t>(element_count(s).value()));
        for (double& x : v) x = std::uniform_int_distribution<int>(lo, hi)(rng);
        return v;
      };
      const Tensor cond = tensor(ElementType::boolean, shapes[0], random_values(shapes[0], 0, 1));
      const auto make = [&](const Shape& s, int lo, int hi) {
        return tensor(
            type, s,
            type == ElementType::boolean ? random_values(s, 0, 1) : random_values(s, lo, hi));
      };
      const Tensor then = make(shapes[1], 0, 50), other = make(shapes[2], 60, 100);
      const auto op = make_op("Select", {}, "opset1");
      const Tensor result = run(*op, {cond, then, other});
      REQUIRE(result.shape() == out);
      const std::size_t bytes = element_size(type);
      const auto aligned = [&](const Shape& s) {
        Shape a(out.size() - s.size(), 1);
        a.insert(a.end(), s.begin(), s.end());
        return a;
      };
      for (std::size_t i = 0; i < result.size(); ++i) {
        const bool c = cond.data<std::uint8_t>()[source_index(out, aligned(shapes[0]), i)] != 0;
        const Tensor& src = c ? then : other;
        const std::size_t j = source_index(out, aligned(c ? shapes[1] : shapes[2]), i);
        CHECK(std::memcmp(static_cast<const char*>(result.data()) + i * bytes,
                          static_cast<const char*>(src.data()) + j * bytes, bytes) == 0);
      }
      for (ThreadPool* pool : test_pools()) {
        const auto infos = infer_at_run_time(*op, {cond, then, other}, 1);
        const Tensor many =
            allocate_and_execute(*op, {cond, then, other}, infos, ExecContext{Parallel(pool)})[0];
        CHECK(std::memcmp(many.data(), result.data(), result.byte_size()) == 0);
      }
    }
  }
}

TEST_CASE("Select: a whole model") {
  OpTester t("Select", "opset1");
  t.input_parameter("c", tensor(ElementType::boolean, {3}, {1, 0, 1}));
  t.input_parameter("a", tensor(ElementType::i32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  t.input_const("b", tensor(ElementType::i32, {}, {-1}));
  CHECK(integers(t.run()[0]) == std::vector<std::int64_t>{1, -1, 3, 4, -1, 6});
}

TEST_CASE("Broadcast: shape rules of every mode") {
  const auto f = ElementType::f32, i64 = ElementType::i64;
  const Tensor t234 = ints(i64, {3}, {2, 3, 4});
  const Tensor t14 = ints(i64, {2}, {1, 4});
  const auto numpy = make_op("Broadcast");
  CHECK(inferred(*numpy, {info(f, "[3,1]"), info(t234)}) == "f32 [2,3,4]");
  CHECK(inferred(*numpy, {info(f, "[?,4]"), info(t234)}) == "f32 [2,3,4]");
  CHECK(inferred(*numpy, {info(f, "[3,1]"), info(i64, "[3]")}) == "f32 [?,?,?]");
  CHECK(inferred(*numpy, {info(f, "[3,1]"), info(i64, "[?]")}) == "f32 [...]");
  CHECK(error_of(*numpy, {info(f, "[5,4]"), info(t234)}).find("cannot be broadcast") !=
        std::string::npos);
  CHECK(error_of(*numpy, {info(f, "[1,1,1,1]"), info(t234)}).find("fewer dims") !=
        std::string::npos);
  CHECK(error_of(*numpy, {info(f, "[3]"), info(i64, "[2,2]")}).find("1-D") != std::string::npos);
  CHECK(error_of(*numpy, {info(f, "[3]"), info(ints(i64, {1}, {-3}))}).find("negative") !=
        std::string::npos);

  const auto bidi = make_op("Broadcast", Attributes{{"mode", "bidirectional"}});
  CHECK(inferred(*bidi, {info(f, "[3,4]"), info(t14)}) == "f32 [3,4]");
  CHECK(inferred(*bidi, {info(f, "[2,3,1]"), info(t14)}) == "f32 [2,3,4]");
  CHECK(inferred(*bidi, {info(f, "[2,1,5]"), info(i64, "[2]")}) == "f32 [2,?,5]");
  CHECK(error_of(*bidi, {info(f, "[3,3]"), info(t14)}).find("bidirectional") != std::string::npos);
  CHECK(caught([] { make_op("Broadcast", Attributes{{"mode", "bidirectional"}}, "opset1"); }));

  const auto expl = make_op("Broadcast", Attributes{{"mode", "explicit"}});
  const Tensor axes1 = ints(i64, {1}, {1});
  CHECK(inferred(*expl, {info(f, "[3]"), info(t234), info(axes1)}) == "f32 [2,3,4]");
  CHECK(error_of(*expl, {info(f, "[4]"), info(t234), info(axes1)}).find("cannot be broadcast") !=
        std::string::npos);
  CHECK(error_of(*expl, {info(f, "[3,4]"), info(t234), info(axes1)}).find("rank") !=
        std::string::npos);
  CHECK(error_of(*expl, {info(f, "[3,4]"), info(t234), info(ints(i64, {2}, {1, 0}))})
            .find("increasing") != std::string::npos);
  CHECK(error_of(*expl, {info(f, "[3]"), info(t234), info(ints(i64, {1}, {3}))}).find("out of") !=
        std::string::npos);
  CHECK(error_of(*expl, {info(f, "[3]"), info(t234)}).find("axes_mapping") != std::string::npos);

  const auto pdpd = make_op("Broadcast", Attributes{{"mode", "pdpd"}, {"axis", "1"}});
  CHECK(inferred(*pdpd, {info(f, "[3,1]"), info(t234)}) == "f32 [2,3,4]");
  CHECK(inferred(*pdpd, {info(f, "[3]"), info(ints(i64, {3}, {2, 1, 4}))}) == "f32 [2,3,4]");
  CHECK(error_of(*pdpd, {info(f, "[5]"), info(t234)}).find("pdpd") != std::string::npos);
  // The largest axis does not fit, and adding the data's rank to it must not overflow.
  const auto pdpd_max =
      make_op("Broadcast", Attributes{{"mode", "pdpd"}, {"axis", "9223372036854775807"}});
  CHECK(error_of(*pdpd_max, {info(f, "[3]"), info(t234)}).find("does not fit") !=
        std::string::npos);
}

TEST_CASE("Broadcast: a target_shape known by its bounds gives interval dims") {
  const auto i64 = ElementType::i64;
  const Tensor lo = ints(i64, {2}, {2, 4});
  const Tensor hi = ints(i64, {2}, {6, std::numeric_limits<std::int64_t>::max()});
  const ValueInfo target{i64, ps("[2]"), nullptr, &lo, &hi};
  const auto numpy = make_op("Broadcast");
  CHECK(inferred(*numpy, {info(ElementType::f32, "[1]"), target}) == "f32 [2..6,4..]");
}

TEST_CASE("Broadcast: values of every mode, every element size, threads") {
  const auto i64 = ElementType::i64;
  const Tensor data = tensor(ElementType::f32, {3, 1}, {1, 2, 3});
  const auto numpy = make_op("Broadcast");
  CHECK(doubles(run(*numpy, {data, ints(i64, {3}, {2, 3, 2})})) ==
        std::vector<double>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
  const auto expl = make_op("Broadcast", Attributes{{"mode", "explicit"}}, "opset1");
  const Tensor row = tensor(ElementType::i32, {3}, {1, 2, 3});
  CHECK(integers(run(*expl, {row, ints(i64, {2}, {3, 2}), ints(i64, {1}, {0})})) ==
        std::vector<std::int64_t>{1, 1, 2, 2, 3, 3});
  const auto bidi = make_op("Broadcast", Attributes{{"mode", "bidirectional"}});
  CHECK(doubles(run(*bidi, {data, ints(i64, {1}, {2})})) == std::vector<double>{1, 1, 2, 2, 3, 3});
  const auto pdpd = make_op("Broadcast", Attributes{{"mode", "pdpd"}, {"axis", "0"}}, "opset1");
  CHECK(doubles(run(*pdpd, {data, ints(i64, {2}, {3, 2})})) ==
        std::vector<double>{1, 1, 2, 2, 3, 3});
  // A bad target at run time is the input's value error.
  const auto e = caught([&] { run(*numpy, {data, ints(i64, {2}, {4, 2})}); });
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::value);

  std::mt19937 rng(29);
  for (const ElementType type :
       {ElementType::boolean, ElementType::i16, ElementType::f32, ElementType::u64}) {
    const Shape in_shape{1, 37, 1, 5};
    Tensor in(type, in_shape);
    for (std::size_t i = 0; i < in.byte_size(); ++i)
      static_cast<std::uint8_t*>(in.data())[i] = type == ElementType::boolean
                                                     ? static_cast<std::uint8_t>(rng() & 1)
                                                     : static_cast<std::uint8_t>(rng());
    const Tensor target = ints(i64, {5}, {3, 40, 37, 300, 5});
    const Tensor one = run(*numpy, {in, target});
    const Shape out_shape{3, 40, 37, 300, 5};
    REQUIRE(one.shape() == out_shape);
    const std::size_t bytes = element_size(type);
    const Shape aligned{1, 1, 37, 1, 5};
    for (std::size_t i = 0; i < one.size(); i += 7) {
      const std::size_t j = source_index(out_shape, aligned, i);
      REQUIRE(std::memcmp(static_cast<const char*>(one.data()) + i * bytes,
                          static_cast<const char*>(in.data()) + j * bytes, bytes) == 0);
    }
    for (ThreadPool* pool : test_pools()) {
      const auto infos = infer_at_run_time(*numpy, {in, target}, 1);
      const Tensor many =
          allocate_and_execute(*numpy, {in, target}, infos, ExecContext{Parallel(pool)})[0];
      CHECK(std::memcmp(many.data(), one.data(), one.byte_size()) == 0);
    }
  }
}

TEST_CASE("Broadcast: whole models, a target from Consts and one fed at run time") {
  OpTester t("Broadcast", "opset3");
  t.attr("mode", "numpy");
  t.input_parameter("data", tensor(ElementType::f32, {2}, {5, 6}));
  t.input_const("shape", ints(ElementType::i64, {2}, {2, 2}));
  CHECK(doubles(t.run()[0]) == std::vector<double>{5, 6, 5, 6});
  CHECK(t.load().outputs()[0].shape == ps("[2,2]"));

  OpTester d("Broadcast", "opset3");
  d.input_parameter("data", tensor(ElementType::f32, {2}, {5, 6}));
  d.input_parameter("shape", ints(ElementType::i64, {3}, {1, 2, 2}));
  CHECK(d.load().outputs()[0].shape == ps("[?,?,?]"));
  const auto out = d.run();
  CHECK(out[0].shape() == Shape{1, 2, 2});
  CHECK(doubles(out[0]) == std::vector<double>{5, 6, 5, 6});

  // Add's integer bounds carried into Broadcast's target: a Const plus a Parameter of known
  // range is not known, but a folded one is.
  GraphBuilder g;
  const auto data = g.parameter("x", ElementType::f32, ps("[3]"));
  const auto a = g.constant("a", ints(ElementType::i64, {2}, {1, 2}));
  const auto b = g.constant("b", ints(ElementType::i64, {1}, {1}));
  const auto sum = g.layer("Add", "opset1", {}, {a, b}, {ElementType::i64}, "sum");
  const auto three = g.constant("three", ints(ElementType::i64, {1}, {3}));
  const auto shape = g.layer("Maximum", "opset1", {}, {sum[0], three}, {ElementType::i64}, "max");
  const auto bc = g.layer("Broadcast", "opset3", {}, {data, shape[0]}, {ElementType::f32}, "bc");
  g.result(bc[0], "y");
  const Model m = g.load();
  CHECK(m.outputs()[0].shape == ps("[3,3]"));
}

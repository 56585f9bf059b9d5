// The executor: output shapes fixed at load time for static layers, run-time checks that stay
// where they were, buffers shared within a run and kept across runs, and the memory that sharing
// may hold.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "api/model_impl.hpp"
#include "exec/step_profile.hpp"
#include "irlite/irlite.hpp"
#include "op_tester.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

const ExecPlan& plan_of(const Model& m) {
  return detail::ModelAccess::impl(m).plan;
}

// The plan step of the layer called `name`.
const ExecPlan::Step& step_of(const Model& m, std::string_view name) {
  const detail::ModelImpl& impl = detail::ModelAccess::impl(m);
  const auto it =
      std::find_if(impl.plan.steps.begin(), impl.plan.steps.end(),
                   [&](const ExecPlan::Step& s) { return impl.graph.nodes[s.node].name == name; });
  REQUIRE_MESSAGE(it != impl.plan.steps.end(), "no layer " << name);
  return *it;
}

// A chain of ReduceMax layers over `data_shape` f32, each reducing over the axes in `axes` (one
// Const per layer, a1..an; an empty list is the identity), named l1..ln, the last one's output
// named y.
Model reduce_chain(const PartialShape& data_shape,
                   const std::vector<std::vector<std::int64_t>>& axes) {
  GraphBuilder g("chain");
  GraphBuilder::Port previous = g.parameter("x", ElementType::f32, data_shape);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    const auto a = g.constant("a" + n, i64s(axes[i]));
    previous = g.layer("ReduceMax", "opset1", {{"keep_dims", "false"}}, {previous, a},
                       {ElementType::f32}, "l" + n)[0];
  }
  g.result(previous, "y");
  return g.load();
}

// Checks the plan's buffers against the memory a run holds without them: values sharing a
// buffer never live at the same time and have its size, and at every step the bytes held (live
// values, and buffers held while dead: between two of their values, and for a buffer kept across
// runs, after its last value and before its first) stay within the peak of live values alone.
void check_buffer_plan(const Model& m) {
  const detail::ModelImpl& impl = detail::ModelAccess::impl(m);
  const ExecPlan& plan = impl.plan;
  const std::size_t n = plan.steps.size();
  std::vector<std::size_t> born(plan.slot_count, SIZE_MAX), dies(plan.slot_count, SIZE_MAX);
  std::vector<bool> returned(plan.slot_count, false);
  for (std::size_t s = 0; s < n; ++s) {
    const ExecPlan::Step& step = plan.steps[s];
    const OpKind kind = impl.graph.nodes[step.node].kind();
    if (kind == OpKind::compute)
      for (std::size_t k = 0; k < step.output_count; ++k) born[step.first_output + k] = s;
    if (kind == OpKind::result) returned[step.inputs[0]] = true;
    for (std::size_t slot : step.release) dies[slot] = s;
  }
  std::vector<std::uint64_t> live(n, 0), held(n, 0);
  struct Use {
    std::size_t from, to;
  };
  std::map<std::size_t, std::vector<Use>> uses;
  for (std::size_t slot = 0; slot < plan.slot_count; ++slot) {
    if (born[slot] == SIZE_MAX || !plan.slots[slot].bytes) continue;
    const std::size_t to = returned[slot] ? n - 1 : dies[slot];
    REQUIRE(to != SIZE_MAX);
    for (std::size_t s = born[slot]; s <= to; ++s) live[s] += *plan.slots[slot].bytes;
    if (plan.slots[slot].buffer == SIZE_MAX) {
      for (std::size_t s = born[slot]; s <= to; ++s) held[s] += *plan.slots[slot].bytes;
      continue;
    }
    REQUIRE(plan.slots[slot].buffer < plan.buffers.size());
    CHECK(plan.buffers[plan.slots[slot].buffer].bytes == *plan.slots[slot].bytes);
    uses[plan.slots[slot].buffer].push_back({born[slot], to});
  }
  for (auto& [b, list] : uses) {
    std::sort(list.begin(), list.end(), [](const Use& a, const Use& c) { return a.from < c.from; });
    for (std::size_t i = 1; i < list.size(); ++i) CHECK(list[i - 1].to < list[i].from);
    const std::size_t first = list.front().from, last = list.back().to;
    for (std::size_t s = 0; s < n; ++s)
      if ((s >= first && s <= last) || plan.buffers[b].keep) held[s] += plan.buffers[b].bytes;
  }
  const std::uint64_t peak = *std::max_element(live.begin(), live.end());
  for (std::size_t s = 0; s < n; ++s) {
    CAPTURE(s);
    CHECK(held[s] <= peak);
  }
}

}  // namespace

TEST_CASE("a static layer's output shapes come from the load, a dynamic one infers again") {
  OpTester t("EmbeddingSegmentsSum", "opset3", "bags");
  t.input_parameter("table", ElementType::f32, PartialShape{5, 2})
      .input_parameter("indices", ElementType::i64, PartialShape{4})
      .input_parameter("segment_ids", ElementType::i64, PartialShape{4})
      .input_const("num_segments", ints(ElementType::i64, {}, {3}))
      .outputs(1);
  const Model m = t.load();
  CHECK(step_of(m, "bags").shapes_fixed);
  // Only num_segments is read by the shape rule at run time.
  CHECK(step_of(m, "bags").value_inputs == std::vector<bool>{false, false, false, true});

  // num_segments from a Parameter: the output's first dimension is known only at run time.
  OpTester d("EmbeddingSegmentsSum", "opset3", "bags");
  d.input_parameter("table", ElementType::f32, PartialShape{5, 2})
      .input_parameter("indices", ElementType::i64, PartialShape{4})
      .input_parameter("segment_ids", ElementType::i64, PartialShape{4})
      .input_parameter("num_segments", ElementType::i64, PartialShape{})
      .outputs(1);
  const Model dm = d.load();
  CHECK_FALSE(step_of(dm, "bags").shapes_fixed);
  Session s(dm);
  const Tensor table = tensor(ElementType::f32, {5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor indices = ints(ElementType::i64, {4}, {0, 1, 2, 3});
  const Tensor ids = ints(ElementType::i64, {4}, {0, 0, 1, 1});
  for (std::int64_t segments : {2, 4}) {
    const auto out = s.run({{"table", table},
                            {"indices", indices},
                            {"segment_ids", ids},
                            {"num_segments", ints(ElementType::i64, {}, {segments})}});
    CHECK(out.at("out0").shape() == Shape{segments, 2});
  }

  // Dynamic input shapes: inferred again at every run, from the real shapes.
  OpTester r("ReduceMax", "opset1", "max");
  r.attr("keep_dims", false)
      .input_parameter("x", ElementType::f32, PartialShape{Dimension(), 2})
      .input_const("axes", ints(ElementType::i64, {1}, {1}))
      .outputs(1);
  const Model rm = r.load();
  CHECK_FALSE(step_of(rm, "max").shapes_fixed);
  Session rs(rm);
  CHECK(rs.run({{"x", tensor(ElementType::f32, {3, 2}, {1, 2, 3, 4, 5, 6})}}).at("out0").shape() ==
        Shape{3});
  CHECK(rs.run({{"x", tensor(ElementType::f32, {1, 2}, {1, 2})}}).at("out0").shape() == Shape{1});
}

TEST_CASE("bad values are reported at the layer alike in static and dynamic models") {
  // Each case runs twice: with static input shapes (the layer skips its shape rule) and with a
  // dynamic first dimension (it runs the rule); the error is the same either way.
  const auto error_of = [](OpTester& t, const std::map<std::string, Tensor>& feeds) {
    try {
      t.run(feeds);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const bool dynamic : {false, true}) {
    CAPTURE(dynamic);
    const auto n = [&](std::int64_t extent) {
      return dynamic ? Dimension(1, 8) : Dimension(extent);
    };
    SUBCASE("EmbeddingSegmentsSum: indices and segment ids in range") {
      OpTester t("EmbeddingSegmentsSum", "opset3", "bags");
      t.input_parameter("table", ElementType::f32, PartialShape{5, 2})
          .input_parameter("indices", ElementType::i64, PartialShape{n(2)})
          .input_parameter("segment_ids", ElementType::i64, PartialShape{n(2)})
          .input_const("num_segments", ints(ElementType::i64, {}, {2}))
          .input_parameter("default_index", ElementType::i64, PartialShape{})
          .outputs(1);
      CHECK(step_of(t.load(), "bags").shapes_fixed == !dynamic);
      const Tensor table(ElementType::f32, {5, 2});
      const auto feeds = [&](std::vector<std::int64_t> indices, std::vector<std::int64_t> ids,
                             std::int64_t def) {
        return std::map<std::string, Tensor>{{"table", table},
                                             {"indices", ints(ElementType::i64, {2}, indices)},
                                             {"segment_ids", ints(ElementType::i64, {2}, ids)},
                                             {"default_index", ints(ElementType::i64, {}, {def})}};
      };
      const std::string at = "layer 5 'bags' (EmbeddingSegmentsSum-3), input port ";
      CHECK(error_of(t, feeds({0, 5}, {0, 1}, -1))
                .find(at + "1: indices[1] = 5 is out of the embedding table range [0, 5)") !=
            std::string::npos);
      CHECK(error_of(t, feeds({0, 1}, {-1, 1}, -1))
                .find(at + "2: segment_ids[0] = -1 is out of the segment range [0, 2)") !=
            std::string::npos);
      CHECK(error_of(t, feeds({0, 1}, {0, 1}, 7))
                .find(at + "4: default_index = 7 is out of the embedding table range") !=
            std::string::npos);
      CHECK(error_of(t, feeds({0, 1}, {0, 1}, 4)) == "no error");
    }
    SUBCASE("SegmentMax: sorted, non-negative segment ids") {
      OpTester t("SegmentMax", "opset16", "segments");
      t.attr("fill_mode", "zero")
          .input_parameter("data", ElementType::f32, PartialShape{n(3)})
          .input_parameter("segment_ids", ElementType::i32, PartialShape{n(3)})
          .input_const("num_segments", ints(ElementType::i64, {}, {2}))
          .outputs(1);
      CHECK(step_of(t.load(), "segments").shapes_fixed == !dynamic);
      const Tensor data = tensor(ElementType::f32, {3}, {1, 2, 3});
      const auto ids = [](std::initializer_list<double> v) {
        return tensor(ElementType::i32, {3}, v);
      };
      CHECK(error_of(t, {{"data", data}, {"segment_ids", ids({0, 1, 0})}})
                .find("layer 3 'segments' (SegmentMax-16), input port 1: segment_ids must be "
                      "sorted: segment_ids[2] = 0 is less than segment_ids[1] = 1") !=
            std::string::npos);
      CHECK(error_of(t, {{"data", data}, {"segment_ids", ids({-1, 0, 0})}})
                .find("input port 1: segment_ids[0] = -1 is negative") != std::string::npos);
    }
    SUBCASE("TopK: a Const k beyond the axis") {
      OpTester t("TopK", "opset11", "top");
      t.attr("axis", 0).attr("mode", "max").attr("sort", "value");
      t.input_parameter("data", ElementType::f32, PartialShape{n(3)})
          .input_const("k", ints(ElementType::i64, {}, {5}))
          .outputs(2);
      // The model loads (OpenVINO does not clamp k to a static dimension), and every run fails.
      const Model m = t.load();
      CHECK_FALSE(step_of(m, "top").shapes_fixed);
      CHECK(error_of(t, {{"data", tensor(ElementType::f32, {3}, {1, 2, 3})}})
                .find("layer 2 'top' (TopK-11), input port 1: k (5) exceeds dimension 3 of "
                      "axis 0") != std::string::npos);
    }
  }
}

TEST_CASE("a session reuses an output's memory once the caller drops it, never before") {
  OpTester t("ReduceMax", "opset1", "copy");
  t.attr("keep_dims", false)
      .input_parameter("x", ElementType::f32, PartialShape{4})
      .input_const("axes", Tensor(ElementType::i64, {0}))
      .outputs(1);
  const Model m = t.load();
  Session s(m);
  const Tensor a = tensor(ElementType::f32, {4}, {1, 2, 3, 4});
  const Tensor b = tensor(ElementType::f32, {4}, {5, 6, 7, 8});
  const void* first = s.run({{"x", a}}).at("out0").data();
  // Dropped: the next run writes into the same memory.
  const auto second = s.run({{"x", b}});
  CHECK(second.at("out0").data() == first);
  CHECK(second.at("out0").values<float>()[3] == 8);
  // Kept: the next run writes elsewhere, and the kept output still holds its values.
  const auto third = s.run({{"x", a}});
  CHECK(third.at("out0").data() != second.at("out0").data());
  CHECK(second.at("out0").values<float>()[0] == 5);
  CHECK(second.at("out0").values<float>()[3] == 8);
  CHECK(third.at("out0").values<float>()[3] == 4);
  // A copy of an output holds it as well.
  const Tensor copy = third.at("out0");
  const void* held = copy.data();
  const auto fourth = s.run({{"x", b}});
  CHECK(fourth.at("out0").data() != held);
  CHECK(copy.values<float>()[0] == 1);
}

TEST_CASE("layers of one size share buffers, and sharing holds no more than a run's peak") {
  SUBCASE("a chain of identities needs two buffers") {
    const Model m = reduce_chain(PartialShape{2}, std::vector<std::vector<std::int64_t>>(50));
    const ExecPlan& plan = plan_of(m);
    CHECK(plan.buffers.size() == 2);
    CHECK(std::all_of(plan.buffers.begin(), plan.buffers.end(),
                      [](const ExecPlan::Buffer& b) { return b.keep; }));
    check_buffer_plan(m);
    Session s(m);
    const Tensor x = tensor(ElementType::f32, {2}, {-1, 3});
    for (int run = 0; run < 3; ++run) {
      const auto out = s.run({{"x", x}});
      CHECK(out.at("y").values<float>()[1] == 3);
    }
  }
  SUBCASE("a large value that dies early is not kept for the next run") {
    // [64,64,64] -> [64,64] (16 KiB) -> [64] -> []: keeping the 16 KiB buffer past its last
    // reader would hold it beside the later values, above the peak.
    const Model m = reduce_chain(PartialShape{64, 64, 64}, {{0}, {0}, {0}});
    const ExecPlan& plan = plan_of(m);
    const ExecPlan::Slot& big = plan.slots[step_of(m, "l1").first_output];
    REQUIRE(big.bytes == std::size_t{16384});
    REQUIRE(big.buffer != SIZE_MAX);
    CHECK_FALSE(plan.buffers[big.buffer].keep);
    CHECK(plan.buffers[plan.slots[step_of(m, "l2").first_output].buffer].keep);
    check_buffer_plan(m);
    Session s(m);
    for (int run = 0; run < 2; ++run)
      CHECK(s.run({{"x", Tensor(ElementType::f32, {64, 64, 64})}}).at("y").shape() == Shape{});
  }
  SUBCASE("the sample models") {
    for (const char* name : {"pipeline.xml", "pipeline_dynamic.xml", "topk11_example.xml"})
      check_buffer_plan(Model::load(std::string(IRLITE_MODELS) + "/" + name));
  }
}

TEST_CASE("a run's memory budget counts the values alive together, not one at a time") {
  // x [1000] -> l1 -> l2 -> l3, identities of 4000 bytes each: l1 dies once l2 has run, so
  // at most two live together.
  const Model m = reduce_chain(PartialShape{1000}, std::vector<std::vector<std::int64_t>>(3));
  const Tensor x(ElementType::f32, {1000});
  SessionOptions options;
  options.num_threads = 1;
  // A tensor fits alone, two do not: the second layer fails before allocating its output.
  options.max_memory_bytes = 7999;
  try {
    Session(m, options).run({{"x", x}});
    FAIL("ran");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::value);
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.find("layer 4 'l2' (ReduceMax-1), output port 2: output f32 [1000] needs 4000 "
                    "bytes while the run holds 4000 bytes: 8000 bytes, over the run's memory "
                    "budget of 7999 bytes") != std::string::npos);
  }
  // Two outputs and a kernel's bookkeeping fit; the third value comes after the first died.
  options.max_memory_bytes = 8000 + 1024;
  Session s(m, options);
  CHECK(s.options().max_memory_bytes == 8000 + 1024);
  for (int run = 0; run < 2; ++run) CHECK(s.run({{"x", x}}).at("y").shape() == Shape{1000});
}

namespace {

// x f32 [64,10000] -> TopK-11 (axis 0, k 1): values [1,10000] and indices [1,10000] i32, which
// nothing reads -> SegmentMax (ids {0}, 4 segments) -> y [4,10000] f32.
Model unused_indices_model() {
  GraphBuilder g("unused");
  const auto x = g.parameter("x", ElementType::f32, PartialShape{64, 10000});
  const auto k = g.constant("k", ints(ElementType::i64, {}, {1}));
  const auto top =
      g.layer("TopK", "opset11",
              {{"axis", "0"}, {"mode", "max"}, {"sort", "value"}, {"index_element_type", "i32"}},
              {x, k}, {ElementType::f32, ElementType::i32}, "top");
  const auto ids = g.constant("ids", i64s({0}));
  const auto num = g.constant("num", ints(ElementType::i64, {}, {4}));
  const auto seg = g.layer("SegmentMax", "opset16", {{"fill_mode", "zero"}}, {top[0], ids, num},
                           {ElementType::f32}, "seg");
  g.result(seg[0], "y");
  return g.load();
}

}  // namespace

TEST_CASE("an output nothing reads leaves the budget right after its layer") {
  const Model m = unused_indices_model();
  REQUIRE(to_string(m.outputs()[0].shape) == "[4,10000]");
  Tensor x(ElementType::f32, {64, 10000});
  for (std::size_t i = 0; i < x.size(); ++i) x.data<float>()[i] = static_cast<float>(i % 997);
  SessionOptions options;
  options.num_threads = 1;
  // TopK holds values and indices (80000 bytes) and its heaps (a few KiB); SegmentMax holds
  // values and its output (200000 bytes): 240000 with the indices still alive.
  options.max_memory_bytes = 210000;
  float top = 0;
  for (std::size_t r = 0; r < 64; ++r) top = std::max(top, x.data<float>()[r * 10000]);
  Session s(m, options);
  for (int run = 0; run < 2; ++run) {
    const Tensor y = s.run({{"x", x}}).at("y");
    CHECK(y.shape() == Shape{4, 10000});
    CHECK(y.data<float>()[0] == top);
    CHECK(y.data<float>()[10000] == 0);  // an empty segment
  }
  // The budget does count what SegmentMax holds.
  options.max_memory_bytes = 199999;
  CHECK_THROWS_WITH_AS(Session(m, options).run({{"x", x}}),
                       doctest::Contains("layer 5 'seg' (SegmentMax-16), output port 3: output f32 "
                                         "[4,10000] needs 160000 bytes while the run holds 40000"),
                       Error);
}

TEST_CASE("a model is dynamic when a layer's outputs are, even with static inputs") {
  // k from a Parameter: the inputs are static, the outputs [2,..1000].
  OpTester t("TopK", "opset11", "top");
  t.attr("axis", 1).attr("mode", "max").attr("sort", "value");
  t.input_parameter("data", ElementType::f32, PartialShape{2, 1000})
      .input_parameter("k", ElementType::i64, PartialShape{})
      .outputs({"values", "indices"});
  const Model m = t.load();
  REQUIRE(to_string(m.inputs()[0].shape) == "[2,1000]");
  REQUIRE(to_string(m.inputs()[1].shape) == "[]");
  CHECK(to_string(m.outputs()[0].shape) == "[2,..1000]");
  CHECK(m.is_dynamic());
  // And its shapes are inferred again on every run.
  CHECK_FALSE(step_of(m, "top").shapes_fixed);
  Session s(m);
  const Tensor data(ElementType::f32, {2, 1000});
  for (const std::int64_t k : {3, 7, 0})
    CHECK(s.run({{"data", data}, {"k", ints(ElementType::i64, {}, {k})}}).at("values").shape() ==
          Shape{2, k});

  // With a Const k nothing is dynamic, and nothing is inferred at run time.
  OpTester c("TopK", "opset11", "top");
  c.attr("axis", 1).attr("mode", "max").attr("sort", "value");
  c.input_parameter("data", ElementType::f32, PartialShape{2, 1000})
      .input_const("k", ints(ElementType::i64, {}, {5}))
      .outputs(2);
  const Model fixed = c.load();
  CHECK_FALSE(fixed.is_dynamic());
  for (const ExecPlan::Step& step : plan_of(fixed).steps)
    if (detail::ModelAccess::impl(fixed).graph.nodes[step.node].kind() == OpKind::compute)
      CHECK(step.shapes_fixed);
}

TEST_CASE("the step profile's range sums and maxima equal a plain array's") {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t n = 1 + random() % 700;
    std::vector<double> plain(n);
    for (double& b : plain)
      b = random() % 10 == 0 ? std::numeric_limits<double>::infinity()
                             : static_cast<double>(random() % 1000);
    StepProfile profile(plain);
    for (int op = 0; op < 2000; ++op) {
      std::size_t lo = random() % n, hi = random() % n;
      if (op % 3 == 0) hi = std::min(n - 1, lo + random() % 3);  // the usual short hold
      CAPTURE(n);
      CAPTURE(lo);
      CAPTURE(hi);
      if (random() % 2 == 0) {
        const auto bytes = static_cast<double>(random() % 500);
        profile.add(lo, hi, bytes);
        for (std::size_t i = lo; i <= hi; ++i) plain[i] += bytes;
      } else {
        double expected = 0;
        for (std::size_t i = lo; i <= hi; ++i) expected = std::max(expected, plain[i]);
        REQUIRE(profile.max(lo, hi) == expected);
      }
    }
  }
}

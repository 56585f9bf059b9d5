// Session behaviour beyond plain runs: limits on what a layer may allocate.

#include <doctest/doctest.h>

#include "irlite/irlite.hpp"
#include "op_tester.hpp"

using namespace irlite;
using irlite::testing::OpTester;

TEST_CASE("a layer that would allocate more than the session allows fails before allocating") {
  Tensor ids(ElementType::i64, {2});
  ids.data<std::int64_t>()[1] = 1;
  Tensor num(ElementType::i64, {});
  num.data<std::int64_t>()[0] = std::int64_t{1} << 40;
  OpTester t("SegmentMax", "opset16", "huge");
  t.attr("fill_mode", "zero")
      .input_parameter("data", ElementType::f32, PartialShape{2, 4})
      .input_const("segment_ids", ids)
      .input_const("num_segments", num)
      .outputs(1);
  const Model m = t.load();
  CHECK(to_string(m.outputs()[0].shape) == "[1099511627776,4]");
  Session s(m, SessionOptions{1 << 20});
  try {
    s.run({{"data", Tensor(ElementType::f32, {2, 4})}});
    FAIL("ran");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::value);
    const std::string what = e.what();
    CHECK(what.find("layer ") != std::string::npos);
    CHECK(what.find("'huge' (SegmentMax-16), output port 3: output f32 [1099511627776,4] would "
                    "take more than 1048576 bytes") != std::string::npos);
  }
  // The default limit is the machine's memory: 16 TiB is refused too.
  CHECK_THROWS_WITH_AS(Session(m).run({{"data", Tensor(ElementType::f32, {2, 4})}}),
                       doctest::Contains("would take more than"), Error);
}

#include <limits>
#include <map>

#include "api/model_impl.hpp"

TEST_CASE("every intermediate tensor is released right after its last consumer") {
  const Model m = Model::load(std::string(IRLITE_MODELS) + "/pipeline.xml");
  const detail::ModelImpl& impl = m.impl();
  const ExecPlan& plan = impl.plan;
  REQUIRE_FALSE(plan.steps.empty());
  // Where each slot is last read, worked out independently of make_plan.
  std::map<std::size_t, std::size_t> last_read;
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    for (std::size_t slot : plan.steps[s].inputs) last_read[slot] = s;
  std::map<std::size_t, std::size_t> released_at;
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    for (std::size_t slot : plan.steps[s].release) {
      CHECK(released_at.count(slot) == 0);  // released once
      released_at[slot] = s;
    }
  CHECK(released_at == last_read);
  // The pipeline has fan-out (the embedding output feeds ReduceMax and SegmentMax): that slot
  // lives until its second consumer.
  bool fan_out = false;
  for (const auto& [slot, step] : last_read) {
    std::size_t readers = 0;
    for (const auto& st : plan.steps)
      for (std::size_t in : st.inputs) readers += in == slot;
    fan_out |= readers > 1;
  }
  CHECK(fan_out);
}

TEST_CASE("empty tensors whose other extents multiply past int64 run without overflow") {
  const std::int64_t big = std::int64_t{1} << 40;
  const Tensor data(ElementType::f32, {0, big, big});
  const auto k_tensor = [](std::int64_t k) {
    Tensor t(ElementType::i64, {});
    t.data<std::int64_t>()[0] = k;
    return t;
  };
  for (const auto& [axis, k] : {std::pair{"2", 3}, std::pair{"0", 0}, std::pair{"1", 5}}) {
    CAPTURE(axis);
    OpTester t("TopK", "opset11");
    t.attr("axis", axis).attr("mode", "max").attr("sort", "value");
    t.input_parameter("data", ElementType::f32, PartialShape{0, big, big})
        .input_const("k", k_tensor(k))
        .outputs(2);
    const auto out = t.run({{"data", data}});
    REQUIRE(out.size() == 2);
    CHECK(out[0].size() == 0);
    CHECK(out[1].size() == 0);
  }
  Tensor axes(ElementType::i64, {1});
  axes.data<std::int64_t>()[0] = 2;
  OpTester r("ReduceMax", "opset1");
  r.attr("keep_dims", "false")
      .input_parameter("data", ElementType::f32, PartialShape{0, big, big})
      .input_const("axes", axes)
      .outputs(1);
  const auto out = r.run({{"data", data}});
  CHECK(out[0].shape() == Shape{0, big});
  // Reducing the empty axis of [0, 4] gives the lowest value in each of the 4 places.
  Tensor axes0(ElementType::i64, {1});
  OpTester r0("ReduceMax", "opset1");
  r0.attr("keep_dims", "false")
      .input_parameter("data", ElementType::f32, PartialShape{0, 4})
      .input_const("axes", axes0)
      .outputs(1);
  const auto lowest = r0.run({{"data", Tensor(ElementType::f32, {0, 4})}});
  REQUIRE(lowest[0].shape() == Shape{4});
  CHECK(lowest[0].values<float>()[3] == std::numeric_limits<float>::lowest());
}

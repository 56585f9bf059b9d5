// Session behaviour beyond plain runs: limits on what a layer may allocate.

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <map>
#include <string>

#include "irlite/irlite.hpp"
#include "op_tester.hpp"

using namespace irlite;
using namespace irlite::test;

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
  // The default budget is half the machine's memory: 16 TiB is refused too, as over budget.
  CHECK_THROWS_WITH_AS(Session(m).run({{"data", Tensor(ElementType::f32, {2, 4})}}),
                       doctest::Contains("output f32 [1099511627776,4] needs 17592186044416 "
                                         "bytes while the run holds 0 bytes"),
                       Error);
}

TEST_CASE("the memory budget defaults to half the machine's memory and bounds every tensor") {
  const Model m = OpTester("ReduceMax", "opset1")
                      .input_parameter("data", ElementType::f32, PartialShape{2})
                      .input_const("axes", Tensor(ElementType::i64, {0}))
                      .load();
  const Session s(m);
  const auto pages = static_cast<std::size_t>(::sysconf(_SC_PHYS_PAGES));
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  CHECK(s.options().max_memory_bytes == pages * page / 2);
  CHECK(s.options().max_tensor_bytes == s.options().max_memory_bytes);
  SessionOptions options;
  options.max_memory_bytes = 1000;
  CHECK(Session(m, options).options().max_tensor_bytes == 1000);
  // A per-tensor limit above the budget changes nothing; below it, it is kept.
  options.max_tensor_bytes = 5000;
  CHECK(Session(m, options).options().max_tensor_bytes == 5000);
}

namespace {

// The message of the Error `run` throws; fails the test when it throws none.
template <class F>
std::string error_of(F&& run) {
  try {
    run();
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::value);
    return e.what();
  }
  FAIL("no error");
  return {};
}

}  // namespace

TEST_CASE("a data-dependent output beyond the budget is refused before it is allocated") {
  // A scalar num_segments input asking for 5 * 10^9 segments of 8 bytes of data: 20 GB.
  Tensor ids(ElementType::i64, {2});
  ids.data<std::int64_t>()[0] = 0;
  ids.data<std::int64_t>()[1] = 1;
  OpTester t("SegmentMax", "opset16", "seg");
  t.attr("fill_mode", "zero")
      .input_parameter("data", ElementType::f32, PartialShape{2})
      .input_const("segment_ids", ids)
      .input_parameter("num_segments", ElementType::i64, PartialShape{})
      .outputs(1);
  const Model m = t.load();
  SessionOptions options;
  options.max_memory_bytes = std::size_t{1} << 30;
  Tensor n(ElementType::i64, {});
  n.data<std::int64_t>()[0] = 5'000'000'000;
  const std::string what = error_of([&] {
    Session(m, options).run({{"data", Tensor(ElementType::f32, {2})}, {"num_segments", n}});
  });
  CHECK(what.find("layer 3 'seg' (SegmentMax-16), output port 3: output f32 [5000000000] needs "
                  "20000000000 bytes while the run holds 0 bytes: 20000000000 bytes, over the "
                  "run's memory budget of 1073741824 bytes") != std::string::npos);

  // EmbeddingSegmentsSum with num_segments = 2^31 - 1.
  OpTester e("EmbeddingSegmentsSum", "opset3", "bags");
  e.input_parameter("emb_table", ElementType::f32, PartialShape{4, 8})
      .input_parameter("indices", ElementType::i32, PartialShape{2})
      .input_parameter("segment_ids", ElementType::i32, PartialShape{2})
      .input_parameter("num_segments", ElementType::i32, PartialShape{})
      .outputs(1);
  const Model em = e.load();
  Tensor big(ElementType::i32, {});
  big.data<std::int32_t>()[0] = 2147483647;
  const std::string what_e = error_of([&] {
    Session(em, options)
        .run({{"emb_table", Tensor(ElementType::f32, {4, 8})},
              {"indices", Tensor(ElementType::i32, {2})},
              {"segment_ids", Tensor(ElementType::i32, {2})},
              {"num_segments", big}});
  });
  CHECK(what_e.find("'bags' (EmbeddingSegmentsSum-3), output port 4: output f32 [2147483647,8] "
                    "needs 68719476704 bytes") != std::string::npos);
  CHECK(what_e.find("budget of 1073741824 bytes") != std::string::npos);
}

TEST_CASE("a kernel's scratch space is counted before the kernel runs") {
  // Unsorted segment ids send EmbeddingSegmentsSum to its plain kernel, which sums 16-bit
  // floats in a float copy of the output: twice the output's bytes more, and a flag per segment.
  const std::int64_t segments = 4096, row = 64;
  const std::size_t out_bytes = segments * row * 2;
  Tensor table(ElementType::f16, {8, row});
  Tensor indices(ElementType::i32, {4});
  Tensor ids(ElementType::i32, {4});
  const std::int32_t id_values[] = {3, 1, 4095, 0};
  for (int i = 0; i < 4; ++i) {
    indices.data<std::int32_t>()[i] = i;
    ids.data<std::int32_t>()[i] = id_values[i];
  }
  Tensor num(ElementType::i32, {});
  num.data<std::int32_t>()[0] = segments;
  const std::map<std::string, Tensor> feeds = {
      {"emb_table", table}, {"indices", indices}, {"segment_ids", ids}, {"num_segments", num}};
  for (const ElementType type : {ElementType::f16, ElementType::f32}) {
    CAPTURE(to_string(type));
    OpTester e("EmbeddingSegmentsSum", "opset3", "bags");
    e.input_parameter("emb_table", type, PartialShape{8, row})
        .input_parameter("indices", ElementType::i32, PartialShape{4})
        .input_parameter("segment_ids", ElementType::i32, PartialShape{4})
        .input_const("num_segments", num)
        .outputs(1);
    const Model m = e.load();
    std::map<std::string, Tensor> f = feeds;
    f["emb_table"] = Tensor(type, {8, row});
    f.erase("num_segments");
    const std::size_t output = out_bytes * element_size(type) / 2;
    SessionOptions options;
    options.num_threads = 2;
    // The output, a flag per segment and a little bookkeeping: enough for f32, which sums in
    // place.
    options.max_memory_bytes = output + 8192;
    if (type == ElementType::f32) {
      CHECK(Session(m, options).run(f).at("out0").shape() == Shape{segments, row});
      continue;
    }
    const std::string what = error_of([&] { Session(m, options).run(f); });
    CHECK(what.find("'bags' (EmbeddingSegmentsSum-3): the kernel's scratch space needs") !=
          std::string::npos);
    CHECK(what.find(fmt::format("while the run holds {} bytes", output)) != std::string::npos);
    // The float copy and the flags fit beside the output.
    options.max_memory_bytes = output + 2 * output + 8192;
    const Tensor out = Session(m, options).run(f).at("out0");
    CHECK(out.shape() == Shape{segments, row});
  }
}

#include <limits>
#include <map>

#include "api/model_impl.hpp"

TEST_CASE("every intermediate tensor is released right after its last consumer") {
  const Model m = Model::load(std::string(IRLITE_MODELS) + "/pipeline.xml");
  const detail::ModelImpl& impl = detail::ModelAccess::impl(m);
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
  for (const auto& [along, k] : {std::pair{"2", 3}, std::pair{"0", 0}, std::pair{"1", 5}}) {
    const char* const axis = along;  // CAPTURE cannot take a structured binding
    CAPTURE(axis);
    OpTester t("TopK", "opset11");
    t.attr("axis", axis).attr("mode", "max").attr("sort", "value");
    t.input_parameter("data", ElementType::f32, PartialShape{0, big, big})
        .input_const("k", ints(ElementType::i64, {}, {k}))
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

TEST_CASE("TopK's radix selection counts its keys and entries as scratch") {
  // k = n / 2 over one row selects by radix: 4-byte keys, and 4-byte positions with two
  // 8-byte entry arrays per element, beside 4 n bytes of outputs.
  const std::int64_t n = std::int64_t{1} << 16;
  Tensor k(ElementType::i64, {});
  k.data<std::int64_t>()[0] = n / 2;
  OpTester t("TopK", "opset11", "top");
  t.attr("axis", 0).attr("mode", "max").attr("sort", "value").attr("index_element_type", "i32");
  t.input_parameter("data", ElementType::f32, PartialShape{n})
      .input_const("k", k)
      .outputs({"values", "indices"});
  const Model m = t.load();
  Tensor data(ElementType::f32, {n});
  for (std::int64_t i = 0; i < n; ++i) data.data<float>()[i] = static_cast<float>((i * 7919) % n);
  const auto outputs = static_cast<std::size_t>(4 * n);
  SessionOptions options;
  options.num_threads = 2;
  options.max_memory_bytes = outputs + 65536;
  const std::string what = error_of([&] { Session(m, options).run({{"data", data}}); });
  CHECK(what.find("'top' (TopK-11): the kernel's scratch space needs") != std::string::npos);
  options.max_memory_bytes = outputs + static_cast<std::size_t>(24 * n) + 1024;
  const auto out = Session(m, options).run({{"data", data}});
  CHECK(out.at("values").data<float>()[0] == static_cast<float>(n - 1));
}

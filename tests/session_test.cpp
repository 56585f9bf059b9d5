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

// Element types, 16-bit floats, shapes and tensors.

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/attribute_visitor.hpp"
#include "core/attributes.hpp"
#include "core/saturating.hpp"
#include "graph/widen_floats.hpp"
#include "irlite/irlite.hpp"

using namespace irlite;

TEST_CASE("element types parse in both spellings") {
  CHECK(parse_element_type("f32") == ElementType::f32);
  CHECK(parse_element_type("FP32") == ElementType::f32);
  CHECK(parse_element_type("BOOL") == ElementType::boolean);
  CHECK(parse_element_type("boolean") == ElementType::boolean);
  CHECK(parse_element_type("bf16") == ElementType::bf16);
  CHECK(parse_element_type("U64") == ElementType::u64);
  CHECK_FALSE(parse_element_type("fp32"));
  CHECK_FALSE(parse_element_type("f8e4m3"));
  CHECK_FALSE(parse_element_type(""));
  CHECK(element_size(ElementType::bf16) == 2);
  CHECK(precision_name(ElementType::i64) == "I64");
  CHECK_FALSE(is_numeric(ElementType::boolean));
}

TEST_CASE("float16 round-trips every bit pattern and rounds to nearest even") {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto h = float16::from_bits(static_cast<std::uint16_t>(b));
    const float f = h;
    if (std::isnan(f)) {
      CHECK(std::isnan(static_cast<float>(float16(f))));
      continue;
    }
    REQUIRE(float16(f).bits == b);
  }
  CHECK(float16(1.0f).bits == 0x3c00);
  CHECK(float16(65504.0f).bits == 0x7bff);
  CHECK(float16(65520.0f).bits == 0x7c00);  // halfway to the next binade rounds up to inf
  CHECK(float16(65519.0f).bits == 0x7bff);
  CHECK(float16(-0.2f).bits == 0xb266);  // -0.199951171875
  CHECK(static_cast<float>(float16(-0.2f)) == -0.199951171875f);
  CHECK(float16(std::ldexp(1.0f, -25)).bits == 0);              // tie to even: 0
  CHECK(float16(std::ldexp(3.0f, -25)).bits == 0x0002);         // 1.5 ulp -> 2
  CHECK(float16(1.0f + std::ldexp(1.0f, -11)).bits == 0x3c00);  // tie to even
  CHECK(float16(1.0f + std::ldexp(3.0f, -11)).bits == 0x3c02);
}

TEST_CASE("a run widens every f16 bit pattern to the float float16 gives, bit for bit") {
  // convert_floats() takes a vector loop of its own for f16 to f32 (every f16 model input).
  Tensor halves(ElementType::f16, Shape{0x10000});
  for (std::uint32_t b = 0; b < 0x10000; ++b)
    halves.data<float16>()[b] = float16::from_bits(static_cast<std::uint16_t>(b));
  Tensor floats(ElementType::f32, Shape{0x10000});
  convert_floats(halves, floats, Parallel());
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    CAPTURE(b);
    REQUIRE(std::bit_cast<std::uint32_t>(floats.data<float>()[b]) ==
            std::bit_cast<std::uint32_t>(float16::to_float(static_cast<std::uint16_t>(b))));
  }
}

TEST_CASE("bfloat16 rounds to nearest even") {
  CHECK(bfloat16(1.0f).bits == 0x3f80);
  CHECK(bfloat16(std::bit_cast<float>(0x3f808000u)).bits == 0x3f80);  // tie, even stays
  CHECK(bfloat16(std::bit_cast<float>(0x3f818000u)).bits == 0x3f82);  // tie, odd rounds up
  CHECK(bfloat16(std::bit_cast<float>(0x3f808001u)).bits == 0x3f81);
  CHECK(std::isnan(static_cast<float>(bfloat16(std::nanf("")))));
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const float f = bfloat16::from_bits(static_cast<std::uint16_t>(b));
    if (!std::isnan(f)) REQUIRE(bfloat16(f).bits == b);
  }
}

TEST_CASE("partial shapes print and parse as OpenVINO does") {
  CHECK(to_string(PartialShape{Dimension(), Dimension(3, 5), 4}) == "[?,3..5,4]");
  CHECK(to_string(PartialShape::dynamic_rank()) == "[...]");
  CHECK(to_string(PartialShape{}) == "[]");
  CHECK(to_string(Dimension(0, 8)) == "..8");
  CHECK(to_string(Dimension(2, Dimension::unbounded)) == "2..");
  auto s = parse_partial_shape("1,?,..200,120..,-1,2..8");
  REQUIRE(s);
  CHECK(to_string(*s) == "[1,?,..200,120..,?,2..8]");
  CHECK(parse_partial_shape("[2,3]") == PartialShape{2, 3});
  CHECK(parse_partial_shape("")->rank() == 0);
  CHECK_FALSE(parse_partial_shape("...")->rank_is_static());
  std::string why;
  CHECK_FALSE(parse_partial_shape("1,,2", &why));
  CHECK_FALSE(parse_partial_shape("1s"));
  CHECK_FALSE(parse_partial_shape("1..g"));
  CHECK_FALSE(parse_partial_shape("...,..."));
  CHECK_FALSE(parse_partial_shape("5..2"));
  CHECK_FALSE(parse_partial_shape("-2"));
  CHECK(PartialShape{Dimension(2, 8), 3}.accepts({5, 3}));
  CHECK_FALSE(PartialShape{Dimension(2, 8), 3}.accepts({9, 3}));
  CHECK_FALSE(PartialShape{2}.accepts({2, 1}));
}

TEST_CASE("element counts detect overflow") {
  CHECK(element_count({2, 3, 4}) == 24);
  CHECK(element_count({}) == 1);
  CHECK(element_count({0, 5}) == 0);
  CHECK_FALSE(element_count({1LL << 40, 1LL << 40}));
  CHECK_FALSE(element_count({2, -1}));
  CHECK_THROWS_AS(Tensor(ElementType::f32, {1LL << 40, 1LL << 30}), Error);
}

TEST_CASE("a zero extent makes the element count 0 wherever it is") {
  const std::int64_t big = std::int64_t{1} << 62;
  CHECK(element_count({big, big, 0}) == 0);
  CHECK(element_count({0, big, big}) == 0);
  CHECK(element_count({big, 0, big}) == 0);
  CHECK_FALSE(element_count({big, big, 1}));
  // A negative extent is never a count, also beside a zero.
  CHECK_FALSE(element_count({0, -1}));
  CHECK_FALSE(element_count({-1, 0}));
  const Tensor empty(ElementType::f64, {big, big, 0});
  CHECK(empty.size() == 0);
  CHECK(empty.byte_size() == 0);
  CHECK(Tensor(ElementType::f64, {0, big, big}).size() == 0);
}

TEST_CASE("tensors own, share and borrow buffers") {
  Tensor t(ElementType::i32, {2, 2});
  CHECK(t.size() == 4);
  CHECK(t.byte_size() == 16);
  CHECK(t.values<std::int32_t>()[3] == 0);
  Tensor shared = t;
  shared.data<std::int32_t>()[0] = 7;
  CHECK(t.data<std::int32_t>()[0] == 7);
  Tensor copy = t.clone();
  copy.data<std::int32_t>()[0] = 1;
  CHECK(t.data<std::int32_t>()[0] == 7);
  std::int64_t buf[3] = {4, -5, 6};
  Tensor v = Tensor::view(ElementType::i64, {3}, buf);
  CHECK(v.data() == buf);
  CHECK(integer_at(v, 1) == -5);
}

TEST_CASE("errors render like compiler diagnostics") {
  ErrorContext c;
  c.file = "model.xml";
  c.line = 57;
  c.column = 5;
  c.layer_id = 12;
  c.layer_name = "scores";
  c.layer_type = "TopK-11";
  c.port_kind = ErrorContext::PortKind::input;
  c.port = 1;
  Error e(ErrorCode::shape, "k must be a scalar, got [2]", c);
  CHECK(std::string(e.what()) ==
        "model.xml:57:5: layer 12 'scores' (TopK-11), input port 1: k must be a scalar, got [2]");
  CHECK(e.code() == ErrorCode::shape);
  CHECK(e.message() == "k must be a scalar, got [2]");
}

TEST_CASE("attributes are parsed strictly") {
  Attributes a({{"axis", "-1"},
                {"junk", "3x"},
                {"big", "99999999999999999999"},
                {"mode", "MAX"},
                {"flag", "True"},
                {"bad_flag", "yes"},
                {"et", "FP16"},
                {"shape", "1, 2"}});
  CHECK(a.get_int("axis") == -1);
  CHECK_THROWS_WITH_AS(a.get_int("junk"), doctest::Contains("'junk' = '3x'"), Error);
  CHECK_THROWS_AS(a.get_int("big"), Error);
  CHECK_THROWS_WITH_AS(a.get_int("missing"),
                       doctest::Contains("missing required attribute 'missing'"), Error);
  CHECK(a.get_int("missing", 4) == 4);
  CHECK(a.get_enum("mode", {"min", "max"}) == 1);
  CHECK_THROWS_WITH_AS(a.get_enum("junk", {"min", "max"}),
                       doctest::Contains("expected one of min, max"), Error);
  CHECK(a.get_bool("flag", false));
  CHECK_THROWS_AS(a.get_bool("bad_flag", false), Error);
  CHECK(a.get_element_type("et") == ElementType::f16);
  CHECK(a.get_shape("shape") == Shape{1, 2});
}

TEST_CASE("integer attributes take one optional sign") {
  const std::vector<std::pair<std::string, std::int64_t>> accepted{
      {"-1", -1},
      {"+1", 1},
      {"7", 7},
      {" -3 ", -3},
      {"+0", 0},
      {"-0", 0},
      {"-9223372036854775808", INT64_MIN},
      {"+9223372036854775807", INT64_MAX}};
  for (const auto& [number, value] : accepted) {
    const std::string& text = number;  // CAPTURE cannot take a structured binding
    CAPTURE(text);
    CHECK(Attributes({{"axis", text}}).get_int("axis") == value);
  }
  for (const std::string text :
       {"+-1", "-+1", "--1", "++1", "+", "-", "", "1-", "+ 1", "- 1", "1+1", "0x1"}) {
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(Attributes({{"axis", text}}).get_int("axis"),
                         doctest::Contains("not an integer"), Error);
  }
}

namespace {

enum class Fill { zero, lowest };
enum class Rule { none, numpy, pdpd };
constexpr std::string_view kFillWords[] = {"zero", "lowest"};
constexpr std::string_view kRuleWords[] = {"none", "explicit", "numpy", "pdpd"};
constexpr Rule kRules[] = {Rule::none, Rule::none, Rule::numpy, Rule::pdpd};

// One field of every kind the visitor knows, described once for reading and printing.
struct Everything {
  std::int64_t axis = 0;
  std::int64_t batch = 0;
  std::uint64_t offset = 0;
  bool flag = false;
  double min = 0;
  ElementType type = ElementType::undefined;
  ElementType index = ElementType::undefined;
  PartialShape partial;
  Shape shape;
  std::vector<bool> begin, end;
  Fill fill = Fill::zero;
  Rule rule = Rule::numpy;

  void visit(AttributeVisitor& v) {
    v.on("axis", axis);
    v.on("batch", batch, 7);
    if (v.reading()) v.on("offset", offset);
    v.on("flag", flag, true);
    v.on("min", min);
    v.on("type", type);
    v.on("index", index, ElementType::i32);
    v.require("index", index == ElementType::i32 || index == ElementType::i64,
              "expected i32 or i64");
    v.on("partial", partial);
    v.on("shape", shape);
    v.on("begin", begin);
    v.on("end", end, {});
    v.on("fill", "fill_alias", fill, kFillWords);
    v.on("rule", rule, kRuleWords, kRules, Rule::numpy);
  }
};

using Items = std::vector<std::pair<std::string, std::string>>;

Items required() {
  return {{"axis", "-2"},          {"min", " -inf "},        {"type", "FP16"},
          {"partial", "1,?,2..8"}, {"shape", "3, 4"},        {"begin", "1,0"},
          {"offset", "64"},        {"fill_alias", "LOWEST"}, {"rule", "Explicit"}};
}

// `items` with `name` set to `text`.
Items with(Items items, const std::string& name, const std::string& text) {
  for (auto& [k, v] : items)
    if (k == name) {
      v = text;
      return items;
    }
  items.emplace_back(name, text);
  return items;
}

}  // namespace

TEST_CASE("an attribute description reads a layer and prints what it read") {
  const Everything read = read_attributes<Everything>(Attributes(required()));
  CHECK(read.offset == 64);
  CHECK(read.fill == Fill::lowest);
  CHECK(read.rule == Rule::none);
  // Printed in the order visit() names them, with the defaults taken; the offset is read only.
  CHECK(print_attributes(read) == Items{{"axis", "-2"},
                                        {"batch", "7"},
                                        {"flag", "true"},
                                        {"min", "-inf"},
                                        {"type", "f16"},
                                        {"index", "i32"},
                                        {"partial", "[1,?,2..8]"},
                                        {"shape", "[3,4]"},
                                        {"begin", "1,0"},
                                        {"end", ""},
                                        {"fill", "lowest"},
                                        {"rule", "none"}});
  // What was printed reads back as the same values.
  Items printed = print_attributes(read);
  printed.emplace_back("offset", "64");
  for (auto& [name, text] : printed)
    if (name == "partial" || name == "shape") text = text.substr(1, text.size() - 2);
  CHECK(print_attributes(read_attributes<Everything>(Attributes(printed))) ==
        print_attributes(read));
}

TEST_CASE("an attribute description refuses what its kinds and rules refuse") {
  const auto error = [](const Items& items) {
    try {
      read_attributes<Everything>(Attributes(items));
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::format);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(error(required()) == "accepted");
  Items no_axis = required();
  no_axis.erase(no_axis.begin());
  CHECK(error(no_axis) == "missing required attribute 'axis'");
  CHECK(error(with(required(), "index", "f32")) ==
        "attribute 'index' = 'f32': expected i32 or i64");
  CHECK(error(with(required(), "end", "0,2")) == "attribute 'end' = '0,2': expected 0s and 1s");
  CHECK(error(with(required(), "rule", "bidirectional")) ==
        "attribute 'rule' = 'bidirectional': expected one of none, explicit, numpy, pdpd");
  // The alias and the name may both be given when they agree.
  CHECK(error(with(required(), "fill", "lowest")) == "accepted");
  CHECK(error(with(required(), "fill", "zero")) ==
        "attributes 'fill' = 'zero' and 'fill_alias' = 'LOWEST' disagree");
  CHECK_THROWS_WITH_AS(Attributes({{"min", "+-1"}}).get_double("min"),
                       "attribute 'min' = '+-1': not a number", Error);
}

TEST_CASE("dispatch_numeric gives each numeric element type its C++ storage type") {
  const auto storage = [](ElementType type) {
    std::string name = "none";
    const bool called = dispatch_numeric(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      CHECK(sizeof(T) == element_size(type));
      if constexpr (std::is_same_v<T, float16>)
        name = "float16";
      else if constexpr (std::is_same_v<T, bfloat16>)
        name = "bfloat16";
      else if constexpr (std::is_floating_point_v<T>)
        name = "float" + std::to_string(sizeof(T) * 8);
      else
        name = (std::is_signed_v<T> ? "int" : "uint") + std::to_string(sizeof(T) * 8);
    });
    CHECK(called == (name != "none"));
    return name;
  };
  CHECK(storage(ElementType::f16) == "float16");
  CHECK(storage(ElementType::bf16) == "bfloat16");
  CHECK(storage(ElementType::f32) == "float32");
  CHECK(storage(ElementType::f64) == "float64");
  CHECK(storage(ElementType::i8) == "int8");
  CHECK(storage(ElementType::i16) == "int16");
  CHECK(storage(ElementType::i32) == "int32");
  CHECK(storage(ElementType::i64) == "int64");
  CHECK(storage(ElementType::u8) == "uint8");
  CHECK(storage(ElementType::u16) == "uint16");
  CHECK(storage(ElementType::u32) == "uint32");
  CHECK(storage(ElementType::u64) == "uint64");
  // Booleans and undefined are not numeric: f is not called.
  CHECK(storage(ElementType::boolean) == "none");
  CHECK(storage(ElementType::undefined) == "none");
}

TEST_CASE("saturating_add on extents and negative pads never overflows") {
  // A Pad's upper bound adds pads that may be negative to an unbounded extent (a fuzzed model).
  CHECK(irlite::saturating_add(INT64_MAX, std::int64_t{-2}) == INT64_MAX - 2);
  CHECK(irlite::saturating_add(INT64_MAX, std::int64_t{2}) == INT64_MAX);
  CHECK(irlite::saturating_add(INT64_MIN, std::int64_t{-2}) == INT64_MIN);
  CHECK(irlite::saturating_add(std::int64_t{5}, std::int64_t{-7}) == -2);
}

TEST_CASE("ceil_div rounds up without overflowing near INT64_MAX") {
  CHECK(irlite::ceil_div(7, 2) == 4);
  CHECK(irlite::ceil_div(8, 2) == 4);
  CHECK(irlite::ceil_div(0, 3) == 0);
  CHECK(irlite::ceil_div(INT64_MAX, 2) == INT64_MAX / 2 + 1);
  CHECK(irlite::ceil_div(INT64_MAX, INT64_MAX) == 1);
}

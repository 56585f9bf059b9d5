// Models written the way OpenVINO's own serializer and tests write them (IR v10 and v11, tab
// indentation, layers without <data>, attributes the reader ignores, port ids that do not start at
// 0, escaped commas in tensor names, op types spelled `ReLU`), built from the core ops such files
// use: each loads, infers the shapes OpenVINO infers and runs to the values OpenVINO computes.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "op_test_util.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

std::vector<float> float_values(const Tensor& t) {
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("real IR: IR v10, three Parameters summed by two Adds without <data>") {
  const char* xml = R"(<?xml version="1.0" ?>
<net name="sum_of_three" version="10">
	<layers>
		<layer id="0" name="a" type="Parameter" version="opset1">
			<data shape="2,2" element_type="f32"/>
			<output><port id="0" precision="FP32" names="a"><dim>2</dim><dim>2</dim></port></output>
		</layer>
		<layer id="1" name="b" type="Parameter" version="opset1">
			<data shape="2,2" element_type="f32"/>
			<output><port id="0" precision="FP32" names="b"><dim>2</dim><dim>2</dim></port></output>
		</layer>
		<layer id="2" name="a_plus_b" type="Add" version="opset1">
			<input><port id="0"><dim>2</dim><dim>2</dim></port><port id="1"><dim>2</dim><dim>2</dim></port></input>
			<output><port id="2" precision="FP32" names="ab"><dim>2</dim><dim>2</dim></port></output>
		</layer>
		<layer id="3" name="c" type="Parameter" version="opset1">
			<data shape="2,2" element_type="f32"/>
			<output><port id="0" precision="FP32" names="c"><dim>2</dim><dim>2</dim></port></output>
		</layer>
		<layer id="4" name="sum" type="Add" version="opset1">
			<input><port id="0"><dim>2</dim><dim>2</dim></port><port id="1"><dim>2</dim><dim>2</dim></port></input>
			<output><port id="2" precision="FP32" names="sum"><dim>2</dim><dim>2</dim></port></output>
		</layer>
		<layer id="5" name="sum/sink_port_0" type="Result" version="opset1">
			<input><port id="0"><dim>2</dim><dim>2</dim></port></input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
		<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
		<edge from-layer="2" from-port="2" to-layer="4" to-port="0"/>
		<edge from-layer="3" from-port="0" to-layer="4" to-port="1"/>
		<edge from-layer="4" from-port="2" to-layer="5" to-port="0"/>
	</edges>
</net>
)";
  const Model m = Model::load_from_memory(xml);
  CHECK(m.ir_version() == 10);
  CHECK(m.problems().empty());
  Session s(m);
  const auto out = s.run({{"a", tensor(ElementType::f32, {2, 2}, {1, 2, 3, 4})},
                          {"b", tensor(ElementType::f32, {2, 2}, {10, 20, 30, 40})},
                          {"c", tensor(ElementType::f32, {2, 2}, {0.5f, -0.5f, 100, -100})}});
  CHECK(float_values(out.at("sum")) == std::vector<float>{11.5f, 21.5f, 133, -56});
}

TEST_CASE("real IR: a Const read from the weights transposes the input (IR v11)") {
  const char* xml = R"(<?xml version="1.0"?>
<net name="permute" version="11">
    <layers>
        <layer id="0" name="input" type="Parameter" version="opset1">
            <data element_type="f32" shape="1,2,3,4"/>
            <output><port id="0" precision="FP32" names="input"><dim>1</dim><dim>2</dim><dim>3</dim><dim>4</dim></port></output>
        </layer>
        <layer id="1" name="order" type="Const" version="opset1">
            <data element_type="i64" shape="4" offset="0" size="32"/>
            <output><port id="0" precision="I64"><dim>4</dim></port></output>
        </layer>
        <layer id="2" name="permute" type="Transpose" version="opset1">
            <input>
                <port id="0" precision="FP32"><dim>1</dim><dim>2</dim><dim>3</dim><dim>4</dim></port>
                <port id="1" precision="I64"><dim>4</dim></port>
            </input>
            <output><port id="2" precision="FP32" names="permuted"><dim>1</dim><dim>4</dim><dim>3</dim><dim>2</dim></port></output>
        </layer>
        <layer id="3" name="permuted/sink_port_0" type="Result" version="opset1">
            <input><port id="0" precision="FP32"><dim>1</dim><dim>4</dim><dim>3</dim><dim>2</dim></port></input>
        </layer>
    </layers>
    <edges>
        <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
        <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
        <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
    </edges>
</net>
)";
  const std::vector<std::int64_t> order{0, 3, 2, 1};
  std::vector<std::byte> weights(32);
  std::memcpy(weights.data(), order.data(), 32);
  const Model m = Model::load_from_memory(xml, weights);
  CHECK(m.problems().empty());
  REQUIRE(m.outputs().size() == 1);
  CHECK(m.outputs()[0].shape == ps("1,4,3,2"));
  std::vector<double> in(24);
  for (std::size_t i = 0; i < 24; ++i) in[i] = static_cast<double>(i);
  Session s(m);
  const auto out = s.run({{"input", tensor(ElementType::f32, {1, 2, 3, 4}, in)}});
  const Tensor& t = out.at("permuted");
  REQUIRE(t.shape() == Shape{1, 4, 3, 2});
  // out[0][d][c][b] = in[0][b][c][d]
  for (std::size_t d = 0; d < 4; ++d)
    for (std::size_t c = 0; c < 3; ++c)
      for (std::size_t b = 0; b < 2; ++b)
        CHECK(t.data<float>()[(d * 3 + c) * 2 + b] == in[(b * 3 + c) * 4 + d]);
}

TEST_CASE("real IR: ReLU spelled as IR writes it, with escaped commas in tensor names") {
  const char* xml = R"(<?xml version="1.0"?>
<net name="names" version="11">
    <layers>
        <layer id="0" name="x" type="Parameter" version="opset1">
            <data element_type="f32" shape="5"/>
            <output><port id="0" precision="FP32" names="x"><dim>5</dim></port></output>
        </layer>
        <layer id="1" name="activation" type="ReLU" version="opset1">
            <input><port id="0" precision="FP32"><dim>5</dim></port></input>
            <output><port id="1" precision="FP32" names="act\,out, act_alias"><dim>5</dim></port></output>
        </layer>
        <layer id="2" name="activation/sink_port_0" type="Result" version="opset1">
            <input><port id="0" precision="FP32"><dim>5</dim></port></input>
        </layer>
    </layers>
    <edges>
        <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
        <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
    </edges>
</net>
)";
  const Model m = Model::load_from_memory(xml);
  CHECK(m.problems().empty());
  Session s(m);
  const auto out = s.run({{"x", tensor(ElementType::f32, {5}, {-2, -0.0f, 0.5f, 3, -7})}});
  CHECK(float_values(out.at("act,out")) == std::vector<float>{0, 0, 0.5f, 3, 0});
  // The output is named by its first tensor name; the model lists both.
  REQUIRE(m.outputs().size() == 1);
  CHECK(m.outputs()[0].tensor_names == std::vector<std::string>{"act,out", "act_alias"});
}

TEST_CASE("real IR: Round-5 under opset8 keeps interval dims and rounds f16 half to even") {
  const char* xml = R"(<net name="rounding" version="11">
    <layers>
        <layer name="in" type="Parameter" id="0" version="opset8">
            <data element_type="f16" shape="1,2,2..6,1..4"/>
            <output><port id="0" precision="FP16" names="in"><dim>1</dim><dim>2</dim><dim>-1</dim><dim>-1</dim></port></output>
        </layer>
        <layer name="round" id="1" type="Round" version="opset8">
            <data mode="half_to_even"/>
            <input><port id="1" precision="FP16"><dim>1</dim><dim>2</dim><dim>-1</dim><dim>-1</dim></port></input>
            <output><port id="2" precision="FP16" names="rounded"><dim>1</dim><dim>2</dim><dim>-1</dim><dim>-1</dim></port></output>
        </layer>
        <layer name="out" type="Result" id="2" version="opset8">
            <input><port id="0" precision="FP16"><dim>1</dim><dim>2</dim><dim>-1</dim><dim>-1</dim></port></input>
        </layer>
    </layers>
    <edges>
        <edge from-layer="0" from-port="0" to-layer="1" to-port="1"/>
        <edge from-layer="1" from-port="2" to-layer="2" to-port="0"/>
    </edges>
</net>
)";
  const Model m = Model::load_from_memory(xml);
  CHECK(m.problems().empty());
  REQUIRE(m.outputs().size() == 1);
  CHECK(m.outputs()[0].shape == ps("1,2,2..6,1..4"));
  CHECK(m.outputs()[0].element_type == ElementType::f16);
  const std::vector<float> in{0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.25f, 3.75f, -2.5f};
  const std::vector<float> want{0, 2, 2, -0.0f, -2, 2, 4, -2};
  Tensor x(ElementType::f16, {1, 2, 2, 2});
  for (std::size_t i = 0; i < in.size(); ++i) x.data<float16>()[i] = float16(in[i]);
  Session s(m);
  const auto out = s.run({{"in", x}});
  const Tensor& t = out.at("rounded");
  REQUIRE(t.shape() == Shape{1, 2, 2, 2});
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(static_cast<float>(t.data<float16>()[i]) == want[i]);
    CHECK(std::signbit(static_cast<float>(t.data<float16>()[i])) == std::signbit(want[i]));
  }
  // Outside the declared interval: refused.
  CHECK(caught([&] { s.run({{"in", Tensor(ElementType::f16, {1, 2, 7, 1})}}); }));
}

TEST_CASE("real IR: ShapeOf feeds Reshape (IR v10, special_zero, one output read twice)") {
  const char* xml = R"(<?xml version="1.0"?>
<net name="reshape_to_own_shape" version="10">
	<layers>
		<layer id="0" name="data" type="Parameter" version="opset1">
			<data cacheable="false" shape="2,1,3" element_type="f32" />
			<output><port id="0" precision="FP32"><dim>2</dim><dim>1</dim><dim>3</dim></port></output>
		</layer>
		<layer id="1" name="positive" type="Relu" version="opset1">
			<data />
			<input><port id="0"><dim>2</dim><dim>1</dim><dim>3</dim></port></input>
			<output><port id="1" precision="FP32"><dim>2</dim><dim>1</dim><dim>3</dim></port></output>
		</layer>
		<layer id="2" name="shape" type="ShapeOf" version="opset3">
			<data output_type="i64" />
			<input><port id="0"><dim>2</dim><dim>1</dim><dim>3</dim></port></input>
			<output><port id="1" precision="I64"><dim>3</dim></port></output>
		</layer>
		<layer id="3" name="reshaped" type="Reshape" version="opset1">
			<data special_zero="true" />
			<input><port id="0"><dim>2</dim><dim>1</dim><dim>3</dim></port><port id="1"><dim>3</dim></port></input>
			<output><port id="2" precision="FP32"><dim>2</dim><dim>1</dim><dim>3</dim></port></output>
		</layer>
		<layer id="4" name="result" type="Result" version="opset1">
			<data />
			<input><port id="0"><dim>2</dim><dim>1</dim><dim>3</dim></port></input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
		<edge from-layer="0" from-port="0" to-layer="2" to-port="0" />
		<edge from-layer="1" from-port="1" to-layer="3" to-port="0" />
		<edge from-layer="2" from-port="1" to-layer="3" to-port="1" />
		<edge from-layer="3" from-port="2" to-layer="4" to-port="0" />
	</edges>
</net>
)";
  const Model m = Model::load_from_memory(xml);
  CHECK(m.problems().empty());
  CHECK_FALSE(m.is_dynamic());
  REQUIRE(m.outputs().size() == 1);
  CHECK(m.outputs()[0].shape == ps("2,1,3"));
  Session s(m);
  const auto out = s.run({{"data", tensor(ElementType::f32, {2, 1, 3}, {-1, 2, -3, 4, -5, 6})}});
  REQUIRE(out.size() == 1);
  const Tensor& t = out.begin()->second;
  CHECK(t.shape() == Shape{2, 1, 3});
  CHECK(float_values(t) == std::vector<float>{0, 2, 0, 4, 0, 6});
}

"""Shared by the Python tests: where the sample models are, and small models written here."""

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"


@pytest.fixture
def models():
    return MODELS


def _port(port_id, precision, dims, names=None):
    named = f' names="{names}"' if names else ""
    inner = "".join(f"<dim>{d}</dim>" for d in dims)
    return f'<port id="{port_id}" precision="{precision}"{named}>{inner}</port>'


def matmul_xml(n):
    """IR XML of a model multiplying two f32 [n,n] inputs `a` and `b` (no weights)."""
    dims = [n, n]
    return f"""<?xml version="1.0"?>
<net name="matmul" version="11">
  <layers>
    <layer id="0" name="a" type="Parameter" version="opset1">
      <data shape="{n},{n}" element_type="f32"/>
      <output>{_port(0, "FP32", dims, "a")}</output>
    </layer>
    <layer id="1" name="b" type="Parameter" version="opset1">
      <data shape="{n},{n}" element_type="f32"/>
      <output>{_port(0, "FP32", dims, "b")}</output>
    </layer>
    <layer id="2" name="product" type="MatMul" version="opset1">
      <data transpose_a="false" transpose_b="false"/>
      <input>{_port(0, "FP32", dims)}{_port(1, "FP32", dims)}</input>
      <output>{_port(2, "FP32", dims, "product")}</output>
    </layer>
    <layer id="3" name="product/sink_port_0" type="Result" version="opset1">
      <input>{_port(0, "FP32", dims)}</input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
  </edges>
</net>
"""


def reduce_max_xml():
    """IR XML of ReduceMax over axis 0 of an f32 input `x` of shape [?] (an i64 axes Const of 8
    bytes, value 0, at offset 0 of the weights), giving a scalar `m`."""
    return f"""<?xml version="1.0"?>
<net name="reduce_max_vector" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="?" element_type="f32"/>
      <output>{_port(0, "FP32", [-1], "x")}</output>
    </layer>
    <layer id="1" name="axes" type="Const" version="opset1">
      <data element_type="i64" shape="1" offset="0" size="8"/>
      <output>{_port(0, "I64", [1], "axes")}</output>
    </layer>
    <layer id="2" name="m" type="ReduceMax" version="opset1">
      <data keep_dims="false"/>
      <input>{_port(0, "FP32", [-1])}{_port(1, "I64", [1])}</input>
      <output>{_port(2, "FP32", [], "m")}</output>
    </layer>
    <layer id="3" name="m/sink_port_0" type="Result" version="opset1">
      <input>{_port(0, "FP32", [])}</input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
  </edges>
</net>
"""


_PRECISIONS = {"boolean": "BOOL", "f16": "FP16", "f32": "FP32", "f64": "FP64"}


def identity_xml(element_type):
    """IR XML of a model handing back its input `x`, of `element_type` and shape [?,?], as its
    output `x`: the output is the input's tensor, so it shares the memory irlite read."""
    precision = _PRECISIONS.get(element_type, element_type.upper())
    dims = [-1, -1]
    return f"""<?xml version="1.0"?>
<net name="identity_{element_type}" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="?,?" element_type="{element_type}"/>
      <output>{_port(0, precision, dims, "x")}</output>
    </layer>
    <layer id="1" name="x/sink_port_0" type="Result" version="opset1">
      <input>{_port(0, precision, dims)}</input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
  </edges>
</net>
"""

"""Errors: every irlite error is an irlite.Error subclass carrying its location, and inputs of the
wrong dtype, shape or name are refused before anything runs."""

import numpy as np
import pytest

import irlite
from conftest import MODELS


def test_a_model_error_carries_its_location():
    path = MODELS / "invalid" / "k_not_scalar.xml"
    with pytest.raises(irlite.ShapeError) as info:
        irlite.load(path)
    e = info.value
    assert isinstance(e, irlite.Error) and isinstance(e, Exception)
    assert e.code == "shape"
    assert e.file == str(path)
    assert (e.line, e.column) == (24, 4)
    assert (e.layer, e.layer_id, e.layer_type) == ("topk", 2, "TopK-11")
    assert (e.port, e.port_kind) == (1, "input")
    assert e.message == "k must be a scalar, got [2]"
    assert str(e) == f"{path}:24:4: layer 2 'topk' (TopK-11), input port 1: k must be a scalar, got [2]"


def test_a_missing_file_is_an_io_error():
    with pytest.raises(irlite.IoError) as info:
        irlite.load(MODELS / "no_such_model.xml")
    assert info.value.code == "io" and info.value.line is None and info.value.layer is None


@pytest.fixture
def pipeline():
    return irlite.load(MODELS / "pipeline.xml").session()


def test_wrong_dtype_is_refused_with_the_fix(pipeline):
    with pytest.raises(irlite.InputError) as info:
        pipeline.run({"indices": np.arange(12)})  # int64, the input is i32
    e = info.value
    assert "input 'indices' is i32 (numpy.int32), got an array of i64 (numpy.int64)" in e.message
    assert ".astype(numpy.int32)" in e.message
    assert e.layer == "indices" and e.line is not None and e.file.endswith("pipeline.xml")
    with pytest.raises(irlite.InputError, match="float32"):
        pipeline.run({"indices": np.zeros(12, np.float32)})


def test_wrong_shape_is_refused(pipeline):
    with pytest.raises(irlite.InputError, match=r"input 'indices' expects i32 \[12\], got i32 \[11\]"):
        pipeline.run({"indices": np.zeros(11, np.int32)})
    model = irlite.load(MODELS / "interval_identity.xml").session()
    for rows in (1, 9):
        with pytest.raises(irlite.InputError, match=r"\[2\.\.8,3\]"):
            model.run([np.zeros((rows, 3), np.float32)])


def test_wrong_or_missing_names_are_refused(pipeline):
    with pytest.raises(irlite.InputError, match=r"the model has no input 'indexes' \(inputs: indices\)"):
        pipeline.run({"indexes": np.zeros(12, np.int32)})
    with pytest.raises(irlite.InputError, match="input 'indices' is not given"):
        pipeline.run({})
    with pytest.raises(irlite.InputError, match="given 2 inputs, the model has 1"):
        pipeline.run([np.zeros(12, np.int32)] * 2)
    with pytest.raises(TypeError):
        pipeline.run({1: np.zeros(12, np.int32)})
    with pytest.raises(TypeError):
        pipeline.run("indices")


def test_lists_are_converted_when_their_values_fit(pipeline):
    out = pipeline.run({"indices": [2, 7, 1, 0, 9, 4, 4, 8, 2, 6, 5, 9]})
    assert out["top_values"].tolist() == [5.25, 5, 4]
    with pytest.raises(irlite.InputError, match="another kind"):
        pipeline.run({"indices": [0.5] * 12})
    with pytest.raises(irlite.InputError, match="do not fit"):
        pipeline.run({"indices": [2**40] * 12})
    with pytest.raises(irlite.InputError, match="not numbers"):
        pipeline.run({"indices": ["a"] * 12})


def test_a_value_out_of_range_is_a_range_error(pipeline):
    with pytest.raises(irlite.RangeError) as info:
        pipeline.run({"indices": np.full(12, 99, np.int32)})
    assert info.value.layer is not None


def test_the_memory_budget_is_enforced():
    model = irlite.load(MODELS / "topk_example.xml")
    data = np.zeros((6, 12, 10, 24), np.float32)
    # Its two outputs need 6*3*10*24 * (4 + 8) bytes = 51840.
    with pytest.raises(irlite.RangeError) as info:
        model.session(max_memory=40000).run([data])
    assert "40000" in info.value.message
    assert info.value.layer == "topk"
    out = model.session(max_memory=1 << 20).run([data])
    assert out["values"].shape == (6, 3, 10, 24)


def test_errors_can_be_caught_by_base_class_and_raised_by_hand():
    e = irlite.InputError("text", message="m", file="f.xml", line=3)
    assert (e.code, e.message, e.file, e.line, e.column) == ("input", "m", "f.xml", 3, None)
    assert issubclass(irlite.RangeError, irlite.Error) and irlite.RangeError.code == "value"

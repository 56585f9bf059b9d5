"""Errors: every irlite error is an irlite.Error subclass carrying its location, and inputs of a
dtype that is not converted, of the wrong shape or name are refused before anything runs."""

import numpy as np
import pytest

import irlite
from conftest import MODELS, identity_xml


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


def test_a_dtype_not_converted_is_refused_with_the_fix(pipeline):
    with pytest.raises(irlite.InputError) as info:
        pipeline.run({"indices": np.zeros(12, np.float32)})  # the input is i32
    e = info.value
    assert e.message == (
        "input 'indices' is i32 (numpy.int32), got an array of f32 (numpy.float32), which is not "
        "converted (NumPy's casting rule 'same_kind' refuses it); convert it with "
        ".astype(numpy.int32)")
    assert e.layer == "indices" and e.line is not None and e.file.endswith("pipeline.xml")
    # NumPy's default int64 is of the same kind: converted, not refused.
    out = pipeline.run({"indices": np.array([2, 7, 1, 0, 9, 4, 4, 8, 2, 6, 5, 9])})
    assert out["top_values"].tolist() == [5.25, 5, 4]


@pytest.mark.parametrize("element_type, value, got, fix", [
    ("i32", np.ones((1, 2), np.float64), "an array of f64 (numpy.float64)", "numpy.int32"),
    ("i64", np.ones((1, 2), np.float16), "an array of f16 (numpy.float16)", "numpy.int64"),
    ("u8", np.ones((1, 2), np.int8), "an array of i8 (numpy.int8)", "numpy.uint8"),
    ("u64", np.ones((1, 2), np.int64), "an array of i64 (numpy.int64)", "numpy.uint64"),
    ("boolean", np.ones((1, 2), np.uint8), "an array of u8 (numpy.uint8)", "numpy.bool_"),
    ("f32", np.ones((1, 2), np.complex64), "an array of dtype complex64", "numpy.float32"),
    ("f64", np.ones((1, 2), np.complex128), "an array of dtype complex128", "numpy.float64"),
    ("f32", np.array([[1.0, None]], object), "an array of dtype object", "numpy.float32"),
    ("f32", np.array([["1", "2"]]), "an array of dtype <U1", "numpy.float32"),
    ("i32", np.array([[b"1"]]), "an array of dtype |S1", "numpy.int32"),
    ("f32", np.zeros((1, 2), "i4,f4"), "an array of dtype [('f0', '<i4'), ('f1', '<f4')]",
     "numpy.float32"),
    ("i64", np.zeros((1, 2), "datetime64[s]"), "an array of dtype datetime64[s]", "numpy.int64"),
    ("i32", [[0.5, 1.5]], "f64 (numpy.float64) values (from a list)", "numpy.int32"),
    ("f32", [["a"]], "dtype <U1 values (from a list)", "numpy.float32"),
])
def test_dtypes_not_of_the_same_kind_are_refused(element_type, value, got, fix):
    session = irlite.load_from_memory(identity_xml(element_type)).session()
    with pytest.raises(irlite.InputError) as info:
        session.run({"x": value})
    e = info.value
    wanted = session.model.inputs[0]
    assert e.message == (
        f"input 'x' is {element_type} (numpy.{fix[6:]}), got {got}, which is not converted "
        f"(NumPy's casting rule 'same_kind' refuses it); convert it with .astype({fix})")
    assert np.dtype(getattr(np, fix[6:])) == wanted.dtype
    assert e.layer == "x" and e.layer_type == "Parameter-1"


def test_bf16_takes_uint16_bit_patterns_only():
    session = irlite.load_from_memory(identity_xml("bf16")).session()
    bits = np.array([[0x3F80, 0xC000]], np.uint16)  # 1.0 and -2.0
    assert np.shares_memory(session.run([bits])["x"], bits)
    for value, got in ((np.ones((1, 2), np.float32), "f32 (numpy.float32)"),
                       (np.ones((1, 2), np.uint8), "u8 (numpy.uint8)"),
                       (np.ones((1, 2), np.float16), "f16 (numpy.float16)")):
        with pytest.raises(irlite.InputError) as info:
            session.run([value])
        assert info.value.message == (
            f"input 'x' is bf16 (numpy.uint16), got an array of {got}; bf16 inputs take their bit "
            "patterns as numpy.uint16 (the high half of each float32's bits), which irlite does "
            "not make from other dtypes")


def test_integers_that_do_not_fit_are_refused_not_wrapped():
    session = irlite.load_from_memory(identity_xml("i8")).session()
    assert session.run([np.array([[-128, 127]], np.int64)])["x"].tolist() == [[-128, 127]]
    for value, got in ((np.array([[-129, 5]], np.int64), "an array of i64 (numpy.int64)"),
                       (np.array([[200]], np.uint8), "an array of u8 (numpy.uint8)"),
                       (np.array([[2**63]], np.uint64), "an array of u64 (numpy.uint64)")):
        with pytest.raises(irlite.InputError) as info:
            session.run([value])
        assert info.value.message == (
            f"input 'x' is i8 (numpy.int8), got {got} with values from {value.min()} to "
            f"{value.max()}, which do not fit it (integers are never wrapped)")
    # uint64 beyond int64 is refused even where a comparison in float64 would round.
    i64 = irlite.load_from_memory(identity_xml("i64")).session()
    with pytest.raises(irlite.InputError, match="do not fit"):
        i64.run([np.array([[2**63]], np.uint64)])
    assert i64.run([np.array([[2**63 - 1]], np.uint64)])["x"].tolist() == [[2**63 - 1]]


def test_a_value_numpy_cannot_read_is_an_input_error(pipeline):
    with pytest.raises(irlite.InputError, match="got a value NumPy does not make an array of"):
        pipeline.run({"indices": [[1], [2, 3]]})


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
    with pytest.raises(irlite.InputError, match=r"got f64 \(numpy\.float64\) values \(from a list"):
        pipeline.run({"indices": [0.5] * 12})
    with pytest.raises(irlite.InputError, match="do not fit"):
        pipeline.run({"indices": [2**40] * 12})
    with pytest.raises(irlite.InputError, match=r"\.astype\(numpy\.int32\)"):
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

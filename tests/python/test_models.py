"""The sample models under models/ through the Python module: every valid one runs, the examples
give the outputs models/README.md documents and models/expected/ holds, and every broken one
raises the irlite.Error subclass models/invalid/expected.txt names."""

import numpy as np
import pytest

import irlite
from conftest import MODELS

VALID = sorted(MODELS.glob("*.xml")) + sorted((MODELS / "types").glob("*.xml"))


def concrete(shape):
    """A concrete shape inside a partial one: dynamic dims take 4, moved into their interval."""
    dims = []
    for d in shape:
        if isinstance(d, int):
            dims.append(d)
        elif d is None:
            dims.append(4)
        else:
            lo, hi = d
            n = max(lo, 4)
            dims.append(n if hi is None else min(n, hi))
    return tuple(dims)


def deterministic(port):
    """Values valid for every sample model: integers cycle through 0..3, reals through -5..5,
    booleans alternate (as tests/models_test.cpp feeds them)."""
    shape = concrete(port.shape)
    i = np.arange(int(np.prod(shape, dtype=np.int64)))
    if port.element_type == "boolean":
        values = i % 2 == 1
    elif port.element_type in ("f16", "f32", "f64"):
        values = ((i * 7) % 11 - 5).astype(port.dtype)
    elif port.element_type == "bf16":
        values = (((i * 7) % 11 - 5).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    else:
        values = i % 4
    return np.ascontiguousarray(values.astype(port.dtype).reshape(shape))


def run(model, inputs=None):
    return model.session().run(inputs if inputs is not None else {})


def test_the_sample_models_are_all_there():
    assert len(VALID) >= 20


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.relative_to(MODELS).as_posix())
def test_every_sample_model_runs(path):
    model = irlite.load(path)
    assert model.ir_version == 11
    assert model.problems == []
    assert model.outputs
    outputs = run(model, {p.name: deterministic(p) for p in model.inputs})
    assert list(outputs) == [p.name for p in model.outputs]
    for port in model.outputs:
        array = outputs[port.name]
        assert isinstance(array, np.ndarray)
        assert array.dtype == port.dtype
        assert len(array.shape) == len(port.shape)
        for got, want in zip(array.shape, port.shape):
            if isinstance(want, int):
                assert got == want
            elif want is not None:
                assert want[0] <= got and (want[1] is None or got <= want[1])


@pytest.mark.parametrize(
    "path", sorted((MODELS / "types").glob("identity_*.xml")), ids=lambda p: p.stem
)
def test_identity_models_hand_the_input_back_in_the_same_memory(path):
    model = irlite.load(path)
    x = deterministic(model.inputs[0])
    out = run(model, [x])[model.outputs[0].name]
    assert out.dtype == x.dtype and out.shape == x.shape
    assert np.array_equal(out, x)
    # The input was read in place, and the output is that same memory.
    assert np.shares_memory(out, x)


@pytest.mark.parametrize("path", sorted((MODELS / "types").glob("const_*.xml")), ids=lambda p: p.stem)
def test_const_models_return_their_weights_bit_for_bit(path):
    model = irlite.load(path)
    out = run(model)["c"]
    assert out.shape == (2, 3)
    assert out.dtype == model.outputs[0].dtype
    assert out.tobytes() == path.with_suffix(".bin").read_bytes()[: out.nbytes]


def test_element_types_map_to_numpy_dtypes():
    want = {
        "f16": np.float16, "bf16": np.uint16, "f32": np.float32, "f64": np.float64,
        "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
        "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "boolean": np.bool_,
    }
    for element_type, dtype in want.items():
        model = irlite.load(MODELS / "types" / f"const_{element_type}.xml")
        assert model.outputs[0].element_type == element_type
        assert model.outputs[0].dtype == np.dtype(dtype)
        assert run(model)["c"].dtype == np.dtype(dtype)
    f16 = run(irlite.load(MODELS / "types" / "const_f16.xml"))["c"]
    assert f16[1, 1] == np.float16(65504)
    bf16 = run(irlite.load(MODELS / "types" / "const_bf16.xml"))["c"]
    as_f32 = (bf16.astype(np.uint32) << 16).view(np.float32)
    assert as_f32[0, 1] == 1.0 and as_f32[0, 2] == -2.5
    boolean = run(irlite.load(MODELS / "types" / "const_boolean.xml"))["c"]
    assert boolean.tolist() == [[True, False, True], [True, False, False]]


def test_the_pipeline_gives_the_documented_outputs_static_and_dynamic():
    indices = np.load(MODELS / "inputs" / "pipeline_indices.npy")
    segment_ids = np.load(MODELS / "inputs" / "pipeline_segment_ids.npy")
    out = run(irlite.load(MODELS / "pipeline.xml"), {"indices": indices})
    assert out["top_values"].tolist() == [5.25, 5, 4]
    assert out["top_indices"].dtype == np.int32
    assert out["top_indices"].tolist() == [3, 1, 2]
    lowest = np.finfo(np.float32).min
    np.testing.assert_array_equal(
        out["group_max"],
        np.array([[-2.25, 1.5, 0, 5, -1.5, -0.75, 3, 2], [lowest] * 8,
                  [3.75, 3, -0.25, -2.25, 1.5, 5.25, 4, 0.75]], dtype=np.float32))
    dynamic = irlite.load(MODELS / "pipeline_dynamic.xml")
    assert dynamic.is_dynamic
    out2 = run(dynamic, {"indices": indices, "segment_ids": segment_ids})
    assert list(out2) == list(out)
    for name in out:
        np.testing.assert_array_equal(out2[name], out[name])


def test_the_specification_examples():
    seg = lambda n: run(irlite.load(MODELS / f"segment_max_example{n}.xml"))["segment_max"]
    assert seg(1).tolist() == [-1.5, 0]
    assert seg(2).tolist() == [-1.5, 0, 0.5, 4, 0, 0, 0, 0]
    assert seg(3).dtype == np.int32 and seg(3).tolist() == [[1, 2, 3, 4], [5, 10, 7, 8]]
    emb = run(irlite.load(MODELS / "embedding_segments_sum_example.xml"))["embedding_segments_sum"]
    np.testing.assert_allclose(emb, [[-1.05, -1.2], [-0.2, -0.6], [-0.1, 0.4]], atol=1e-6)
    stable = run(irlite.load(MODELS / "topk11_stable.xml"))
    assert stable["values"].tolist() == [5, 3, 1, 2]
    assert stable["indices"].tolist() == [0, 1, 2, 3]
    model = irlite.load(MODELS / "reduce_max_example2.xml")
    data = deterministic(model.inputs[0])
    np.testing.assert_array_equal(run(model, [data])["reduce_max"], data.max(axis=(2, 3)))


@pytest.mark.parametrize(
    "name, inputs",
    [("retrieval", ["indices", "segment_ids"]), ("graph_pooling", ["node_features", "graph_ids"]),
     ("dynamic_topk", ["scores"])])
def test_real_shaped_models_match_their_committed_numpy_outputs(name, inputs):
    model = irlite.load(MODELS / f"{name}.xml")
    feed = {i: np.load(MODELS / "inputs" / f"{name}_{i}.npy") for i in inputs}
    out = run(model, feed)
    expected = sorted((MODELS / "expected" / name).glob("*.npy"))
    assert len(expected) == len(model.outputs)
    for path in expected:
        want = np.load(path)
        got = out[path.stem]
        assert got.dtype == want.dtype and got.shape == want.shape
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(got, want)


def read_expectations():
    rows = []
    for line in (MODELS / "invalid" / "expected.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            file, substring, *code = line.split("\t")
            rows.append((file, substring, code[0] if code else None))
    return rows


ERROR_CLASSES = {
    "io": irlite.IoError, "xml": irlite.XmlError, "format": irlite.FormatError,
    "unsupported": irlite.UnsupportedError, "graph": irlite.GraphError,
    "weights": irlite.WeightsError, "shape": irlite.ShapeError, "value": irlite.RangeError,
    "input": irlite.InputError, "usage": irlite.UsageError,
}


def test_expected_txt_lists_every_broken_model():
    listed = {row[0] for row in read_expectations()}
    assert listed == {p.name for p in (MODELS / "invalid").glob("*.xml")}


@pytest.mark.parametrize("file, substring, code", read_expectations(), ids=lambda v: str(v))
def test_every_broken_model_raises_its_error(file, substring, code):
    with pytest.raises(irlite.Error) as info:
        model = irlite.load(MODELS / "invalid" / file)
        run(model, {p.name: deterministic(p) for p in model.inputs})
    error = info.value
    assert substring in error.message
    assert error.message in str(error)
    if code:
        assert error.code == code
        assert type(error) is ERROR_CLASSES[code]

"""The module's API: loading (from a file and from memory), the description of a model, reshape,
sessions and their options, profiles, the op list and the version."""

import os
import pathlib
import re
import struct

import numpy as np
import pytest

import irlite
from conftest import MODELS, reduce_max_xml


def test_version_is_the_projects():
    cmake = (MODELS.parent / "CMakeLists.txt").read_text()
    assert irlite.__version__ == re.search(r"project\(irlite VERSION ([0-9.]+)", cmake).group(1)


def test_inputs_and_outputs_describe_the_ports():
    model = irlite.load(MODELS / "pipeline.xml")
    assert model.name == "pipeline"
    assert model.source.endswith("pipeline.xml")
    assert [p.name for p in model.inputs] == ["indices"]
    port = model.inputs[0]
    assert port.tensor_names == ["indices"]
    assert port.element_type == "i32" and port.dtype == np.int32
    assert port.shape == (12,)
    assert [p.name for p in model.outputs] == ["top_values", "top_indices", "group_max"]
    assert model.outputs[2].shape == (3, 8)
    assert "indices" in repr(port)


def test_dynamic_dimensions_are_none_and_intervals_are_pairs():
    assert irlite.load(MODELS / "dynamic_identity.xml").inputs[0].shape == (None, 3)
    assert irlite.load(MODELS / "interval_identity.xml").inputs[0].shape == ((2, 8), 3)
    topk = irlite.load(MODELS / "dynamic_topk.xml")
    assert topk.inputs[0].shape == ((1, 1000),)
    assert [p.shape for p in topk.outputs] == [((1, 5),), ((1, 5),)]
    unbounded = topk.reshape({"scores": [(3, None)]})
    assert unbounded.inputs[0].shape == ((3, None),)
    assert irlite.load(MODELS / "types" / "const_f32.xml").outputs[0].shape == (2, 3)


def test_layers_show_the_inferred_shapes_as_inspect_does():
    model = irlite.load(MODELS / "invalid" / "k_not_scalar.xml", keep_going=True)
    assert len(model.problems) == 1 and "k must be a scalar" in model.problems[0]
    layers = model.layers()
    assert [(l.id, l.name, l.type, l.version) for l in layers] == [
        (0, "x", "Parameter", 1), (1, "k", "Constant", 1), (2, "topk", "TopK", 11),
        (3, "values/sink_port_0", "Result", 1), (4, "indices/sink_port_0", "Result", 1)]
    assert layers[1].attributes["value"] == "[3,4]"
    assert layers[2].opset == "opset11" and layers[2].line == 24
    assert layers[2].inputs == [(0, 0, 0), (1, 1, 0)]
    assert layers[0].outputs[0].shape == (2, 10) and layers[0].outputs[0].dtype == np.float32
    with pytest.raises(irlite.UsageError, match="cannot run a model that failed to load"):
        model.session()

    pipeline = irlite.load(MODELS / "pipeline.xml").layers()
    assert all(l.reaches_result for l in pipeline)
    topk = next(l for l in pipeline if l.type == "TopK")
    assert [o.shape for o in topk.outputs] == [(3,), (3,)]
    assert [o.element_type for o in topk.outputs] == ["f32", "i32"]


def test_reshape_takes_tuples_none_pairs_and_text():
    model = irlite.load(MODELS / "dynamic_identity.xml")
    fixed = model.reshape({"x": (5, 3)})
    assert fixed.inputs[0].shape == (5, 3) and not fixed.is_dynamic
    assert model.reshape({"x": "[2..4,3]"}).inputs[0].shape == ((2, 4), 3)
    assert model.reshape({"x": [None, 3]}).inputs[0].shape == (None, 3)
    assert model.inputs[0].shape == (None, 3)  # the original is unchanged
    with pytest.raises(irlite.InputError, match="no input 'y'"):
        model.reshape({"y": (1, 3)})
    with pytest.raises(irlite.UsageError, match="cannot be read"):
        model.reshape({"x": "[1,,"})
    # The pipeline's segment ids are a Const of 12: 13 indices do not fit them.
    with pytest.raises(irlite.Error):
        irlite.load(MODELS / "pipeline.xml").reshape({"indices": (13,)})


def test_load_options_are_keywords():
    path = MODELS / "pipeline.xml"
    for mode in ("auto", "copy", "map"):
        model = irlite.load(str(path), weights=path.with_suffix(".bin"), weights_mode=mode)
        assert run_pipeline(model)["top_values"].tolist() == [5.25, 5, 4]
    assert irlite.load(pathlib.Path(path), precision="declared", fuse_layers=False).inputs
    with pytest.raises(irlite.UsageError, match="weights_mode"):
        irlite.load(path, weights_mode="mmap")
    with pytest.raises(irlite.UsageError, match="precision"):
        irlite.load(path, precision="f16")
    with pytest.raises(TypeError):
        irlite.load(path, None, "copy")  # options are keyword-only


def run_pipeline(model):
    return model.session().run({"indices": np.load(MODELS / "inputs" / "pipeline_indices.npy")})


def test_load_from_memory_reads_bytes_and_buffers():
    xml = (MODELS / "pipeline.xml").read_bytes()
    weights = (MODELS / "pipeline.bin").read_bytes()
    for w in (weights, memoryview(weights), bytearray(weights), np.frombuffer(weights, np.uint8)):
        model = irlite.load_from_memory(xml, w, name="pipe")
        assert model.source == "pipe"
        assert run_pipeline(model)["top_values"].tolist() == [5.25, 5, 4]
    assert irlite.load_from_memory(xml.decode(), weights).name == "pipeline"

    # The weights are not copied: the model reads the buffer it was given.
    axes = bytearray(struct.pack("<q", 0))
    model = irlite.load_from_memory(reduce_max_xml(), axes)
    x = np.arange(5, dtype=np.float32)
    assert model.session().run({"x": x})["m"] == 4.0
    del axes  # the model keeps the buffer alive
    assert model.session().run({"x": x})["m"] == 4.0

    with pytest.raises(irlite.WeightsError):
        irlite.load_from_memory(xml, weights[:8])
    with pytest.raises(irlite.XmlError) as info:
        irlite.load_from_memory(b"<net", name="broken.xml")
    assert info.value.file == "broken.xml"


def test_sessions_resolve_their_options():
    model = irlite.load(MODELS / "pipeline.xml")
    session = model.session(threads=2, max_memory=1 << 20)
    assert session.threads == 2 and session.max_memory == 1 << 20
    assert model.session().threads >= 1 and model.session().max_memory > 0
    assert session.model.name == "pipeline"
    with pytest.raises(TypeError):
        model.session(2)  # keyword-only
    for wrong in (0, -1, 2**70):
        with pytest.raises(irlite.UsageError, match="max_memory must be a positive number"):
            model.session(max_memory=wrong)
    for wrong in ("1G", 1e6):
        with pytest.raises(TypeError, match="max_memory must be an int"):
            model.session(max_memory=wrong)
    assert model.session(max_memory=np.int64(1 << 20)).max_memory == 1 << 20


def test_profile_lists_the_layers_of_the_last_run():
    model = irlite.load(MODELS / "pipeline.xml")
    indices = np.load(MODELS / "inputs" / "pipeline_indices.npy")
    plain = model.session()
    plain.run([indices])
    assert plain.profile().layers == []
    session = model.session(profile=True)
    session.run([indices])
    profile = session.profile()
    types = [l.type for l in profile.layers]
    assert types == ["EmbeddingSegmentsSum", "ReduceMax", "TopK", "SegmentMax"] or sorted(types) == sorted(
        ["EmbeddingSegmentsSum", "ReduceMax", "TopK", "SegmentMax"])
    assert profile.total_ns > 0
    assert all(l.duration_ns >= 0 for l in profile.layers)
    topk = next(l for l in profile.layers if l.type == "TopK")
    assert topk.output_shapes == [(3,), (3,)]
    assert topk.output_bytes == 24


def test_supported_ops_match_the_command():
    ops = irlite.supported_ops()
    assert len(ops) >= 100
    names = {f"{o.type}-{o.version}" for o in ops}
    assert {"TopK-11", "SegmentMax-16", "MatMul-1", "Parameter-1"} <= names
    topk = next(o for o in ops if o.type == "TopK" and o.version == 11)
    assert topk.since_opset == 11
    assert topk.inputs[1][0] == "k"
    concat = next(o for o in ops if o.type == "Concat")
    assert concat.max_inputs is None


def test_help_reads_well():
    assert "NumPy" in irlite.__doc__
    for f in (irlite.load, irlite.load_from_memory, irlite.Model.session, irlite.Session.run):
        assert f.__doc__ and len(f.__doc__) > 40
    stub = pathlib.Path(irlite.__file__).with_name("irlite.pyi")
    assert stub.is_file(), "the type stubs are installed beside the module"
    text = stub.read_text()
    for name in ("def load(", "def load_from_memory(", "class Session", "class Model",
                 "def supported_ops(", "class RangeError"):
        assert name in text

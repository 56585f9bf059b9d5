"""No copies: inputs of the right dtype are read in place, outputs are arrays over irlite's own
memory that stay valid and writable after the session and the model are gone, and a run on a
64 MiB input grows the process's peak memory by its outputs only. Inputs of another layout or of
a dtype NumPy's 'same_kind' rule converts are copied exactly once."""

import gc
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import irlite
from conftest import MODELS, identity_xml


def identity():
    return irlite.load(MODELS / "dynamic_identity.xml").session()


def test_a_contiguous_input_is_read_in_place():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = identity().run({"x": x})["x"]
    # The identity hands back the input tensor: the same memory proves it was not copied.
    assert np.shares_memory(out, x)
    assert out.__array_interface__["data"][0] == x.__array_interface__["data"][0]


@pytest.mark.parametrize("element_type, dtype", [
    ("f32", np.float32), ("f64", np.float64), ("f16", np.float16), ("bf16", np.uint16),
    ("i8", np.int8), ("i32", np.int32), ("i64", np.int64), ("u8", np.uint8), ("u64", np.uint64),
    ("boolean", np.bool_),
])
def test_the_inputs_dtype_is_read_in_place_for_every_type(element_type, dtype):
    x = np.ones((3, 4), dtype)
    out = irlite.load_from_memory(identity_xml(element_type)).session().run([x])["x"]
    assert out.dtype == dtype and np.shares_memory(out, x)


def test_any_buffer_is_read_in_place():
    raw = bytearray(np.arange(6, dtype=np.float32).tobytes())
    view = memoryview(raw).cast("f", (2, 3))
    out = identity().run([view])["x"]
    assert out.tolist() == [[0, 1, 2], [3, 4, 5]]
    raw[0:4] = np.float32(42).tobytes()
    assert out[0, 0] == 42  # same memory as the bytearray


def test_a_non_contiguous_input_is_copied_once():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)[:, ::2]
    assert not x.flags.c_contiguous
    out = identity().run([x])["x"]
    np.testing.assert_array_equal(out, x)
    assert not np.shares_memory(out, x)
    fortran = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(4, 3))
    np.testing.assert_array_equal(identity().run([fortran])["x"], fortran)


def _converted(element_type, x):
    return irlite.load_from_memory(identity_xml(element_type)).session().run([x])["x"]


@pytest.mark.parametrize("given, element_type, wanted", [
    (np.float64, "f32", np.float32), (np.float32, "f16", np.float16),
    (np.float16, "f32", np.float32), (np.int64, "i32", np.int32), (np.int32, "f32", np.float32),
    (np.int64, "f64", np.float64), (np.int8, "f16", np.float16), (np.uint8, "i8", np.int8),
    (np.uint64, "i64", np.int64), (np.uint32, "u8", np.uint8), (np.bool_, "f32", np.float32),
    (np.bool_, "i64", np.int64), (np.bool_, "u8", np.uint8), (">f4", "f32", np.float32),
    (">i8", "i32", np.int32),
])
def test_a_dtype_of_the_same_kind_is_converted_once(given, element_type, wanted):
    rng = np.random.default_rng(7)
    # Values every pair holds exactly or rounds as astype does: small integers, and fractions.
    values = rng.integers(0, 100, size=(5, 6)) if np.dtype(given).kind in "iub" else \
        rng.random((5, 6)) * 200 - 100
    x = values.astype(given)
    out = _converted(element_type, x)
    expected = x.astype(wanted)
    assert out.dtype == wanted and out.flags.c_contiguous
    np.testing.assert_array_equal(out, expected)
    assert out.tobytes() == expected.tobytes()  # the same bits: the same rounding
    assert not np.shares_memory(out, x)


def test_a_non_contiguous_array_of_another_dtype_is_converted():
    x = (np.arange(48, dtype=np.float64) / 3).reshape(6, 8)[::2, 1::3]
    assert not x.flags.c_contiguous
    out = _converted("f32", x)
    np.testing.assert_array_equal(out, x.astype(np.float32))
    assert not np.shares_memory(out, x)


def test_lists_and_scalars_are_converted():
    assert _converted("f32", [[1, 2.5]]).tolist() == [[1, 2.5]]
    assert _converted("i8", [[True, -3]]).tolist() == [[1, -3]]
    assert _converted("f16", np.float64(1 / 3).reshape(1, 1)).tolist() == [[np.float16(1 / 3)]]


def test_a_read_only_input_gives_a_read_only_output_when_shared():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    x.setflags(write=False)
    out = identity().run([x])["x"]
    assert np.shares_memory(out, x)
    assert not out.flags.writeable


def test_outputs_own_their_memory_and_outlive_the_session():
    model = irlite.load(MODELS / "pipeline.xml")
    session = model.session()
    indices = np.load(MODELS / "inputs" / "pipeline_indices.npy")
    out = session.run({"indices": indices})
    group = out["group_max"]
    assert group.flags.writeable and group.flags.c_contiguous
    assert not group.flags.owndata and group.base is not None  # the base holds irlite's tensor
    del session, model, out
    gc.collect()
    assert group[2].tolist() == [3.75, 3, -0.25, -2.25, 1.5, 5.25, 4, 0.75]
    group[0, 0] = 123.0
    assert group[0, 0] == 123.0


def test_a_later_run_never_overwrites_outputs_kept():
    session = irlite.load(MODELS / "pipeline.xml").session()
    indices = np.load(MODELS / "inputs" / "pipeline_indices.npy")
    first = session.run([indices])["top_values"]
    kept = first.copy()
    for _ in range(3):
        second = session.run([np.zeros(12, np.int32)])["top_values"]
    np.testing.assert_array_equal(first, kept)
    assert not np.shares_memory(first, second)


PEAK_RSS_SCRIPT = """
import resource, struct, sys
import numpy as np
sys.path[:0] = {path!r}
import irlite
from conftest import reduce_max_xml
model = irlite.load_from_memory(reduce_max_xml(), struct.pack("<q", 0))
session = model.session(threads=1)
{setup}
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = session.run([x])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert out["m"] == {expected}
print({size}, (after - before) * 1024)
"""


def peak_rss_growth(setup, expected, size):
    """In a fresh process, so that the peak RSS is this run's: a ReduceMax session, `setup`
    (which warms it and makes the input x), then one run on x, whose output must be `expected`.
    Returns the value of `size` and by how many bytes the run grew the peak RSS."""
    script = PEAK_RSS_SCRIPT.format(path=sys.path, setup=textwrap.dedent(setup),
                                    expected=expected, size=size)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=str(MODELS.parent / "tests" / "python"))
    assert result.returncode == 0, result.stderr
    measured, growth = map(int, result.stdout.split())
    return measured, growth


def test_a_64_mib_input_costs_no_copy():
    # The input is allocated and touched first, then the run may add its outputs (a scalar) and
    # the Session's small state, but not a second 64 MiB.
    nbytes, growth = peak_rss_growth("""
        session.run([np.zeros(16, np.float32)])
        x = np.random.default_rng(0).random(16 << 20, dtype=np.float32)
    """, expected="x.max()", size="x.nbytes")
    assert nbytes == 64 << 20
    assert growth < 4 << 20, f"peak RSS grew by {growth} bytes on a {nbytes}-byte input"


def test_a_conversion_copies_the_input_once():
    # A float64 array read through steps (a non-contiguous view of 128 MiB, 64 MiB of it taken)
    # into an f32 input: one astype makes the 32 MiB the run reads. Making it contiguous first
    # and converting second would cost 64 MiB more.
    converted, growth = peak_rss_growth("""
        session.run([np.zeros(16, np.float64)])
        base = np.random.default_rng(0).random(16 << 20)
        x = base[::2]
    """, expected="x.astype(np.float32).max()", size="x.size * 4")
    assert converted == 32 << 20
    assert converted // 2 < growth < converted * 3 // 2, \
        f"peak RSS grew by {growth} bytes converting into {converted} bytes"

"""No copies: inputs are read in place, outputs are arrays over irlite's own memory that stay
valid and writable after the session and the model are gone, and a run on a 64 MiB input grows
the process's peak memory by its outputs only."""

import gc
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import irlite
from conftest import MODELS


def identity():
    return irlite.load(MODELS / "dynamic_identity.xml").session()


def test_a_contiguous_input_is_read_in_place():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = identity().run({"x": x})["x"]
    # The identity hands back the input tensor: the same memory proves it was not copied.
    assert np.shares_memory(out, x)
    assert out.__array_interface__["data"][0] == x.__array_interface__["data"][0]


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


def test_a_64_mib_input_costs_no_copy():
    # In a fresh process, so that the peak RSS is this run's: the input is allocated and touched
    # first, then the run may add its outputs (a scalar) and the Session's small state, but not a
    # second 64 MiB.
    script = textwrap.dedent(f"""
        import resource, struct, sys
        import numpy as np
        sys.path[:0] = {sys.path!r}
        import irlite
        from conftest import reduce_max_xml
        model = irlite.load_from_memory(reduce_max_xml(), struct.pack("<q", 0))
        session = model.session(threads=1)
        session.run([np.zeros(16, np.float32)])
        x = np.random.default_rng(0).random(16 << 20, dtype=np.float32)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = session.run([x])
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        assert out["m"] == x.max()
        print(x.nbytes, (after - before) * 1024)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=str(MODELS.parent / "tests" / "python"))
    assert result.returncode == 0, result.stderr
    nbytes, growth = map(int, result.stdout.split())
    assert nbytes == 64 << 20
    assert growth < 4 << 20, f"peak RSS grew by {growth} bytes on a {nbytes}-byte input"

"""irlite: run OpenVINO IR models (.xml + .bin) from Python, with NumPy arrays."""

import os
from typing import Any, Mapping, Optional, Sequence, Tuple, Union

import numpy

__version__: str

# A dimension: an int (static), None (dynamic) or a (lo, hi) interval, hi None when unbounded.
Dim = Union[int, None, Tuple[int, Optional[int]]]
# A partial shape: a tuple of dimensions, or None for a dynamic rank.
PartialShape = Optional[Tuple[Dim, ...]]
# What reshape takes: dimensions as above (-1 is dynamic too), or text such as "[1,3..5,?]".
ShapeLike = Union[str, None, Sequence[Union[int, None, Tuple[Optional[int], Optional[int]]]]]
# An input value: read in place when it is a C-contiguous buffer of the input's dtype, else made
# into one with a single copy (Session.run says which dtypes convert); lists and scalars too.
ArrayLike = Any
# What load_from_memory reads weights from, without a copy: any object with the buffer protocol.
_Buffer = Union[bytes, bytearray, memoryview, numpy.ndarray]

class Error(Exception):
    """An error reported by irlite. str(error) is the whole one-line diagnostic."""

    code: Optional[str]
    message: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    layer: Optional[str]
    layer_id: Optional[int]
    layer_type: Optional[str]
    port: Optional[int]
    port_kind: Optional[str]

class IoError(Error): ...
class XmlError(Error): ...
class FormatError(Error): ...
class UnsupportedError(Error): ...
class GraphError(Error): ...
class WeightsError(Error): ...
class ShapeError(Error): ...
class RangeError(Error): ...
class InputError(Error): ...
class UsageError(Error): ...

class Port:
    """A model input (a Parameter) or output (a Result)."""

    @property
    def name(self) -> str: ...
    @property
    def tensor_names(self) -> list[str]: ...
    @property
    def element_type(self) -> str: ...
    @property
    def dtype(self) -> Optional[numpy.dtype[Any]]: ...
    @property
    def shape(self) -> PartialShape: ...

class LayerOutput:
    """One output of a layer, as inferred."""

    @property
    def port(self) -> int: ...
    @property
    def tensor_names(self) -> list[str]: ...
    @property
    def element_type(self) -> str: ...
    @property
    def dtype(self) -> Optional[numpy.dtype[Any]]: ...
    @property
    def shape(self) -> PartialShape: ...
    @property
    def declared_shape(self) -> Tuple[Optional[int], ...]: ...
    @property
    def declared_differs(self) -> bool: ...

class Layer:
    """One layer of a model with its inferred outputs."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def opset(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def attributes(self) -> dict[str, str]: ...
    @property
    def inputs(self) -> list[Tuple[int, int, int]]: ...
    @property
    def outputs(self) -> list[LayerOutput]: ...
    @property
    def reaches_result(self) -> bool: ...
    @property
    def folded(self) -> bool: ...
    @property
    def fused_into(self) -> Optional[int]: ...

class LayerProfile:
    """One layer of a profiled run."""

    @property
    def layer(self) -> int: ...
    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def start_ns(self) -> int: ...
    @property
    def duration_ns(self) -> int: ...
    @property
    def input_bytes(self) -> int: ...
    @property
    def output_bytes(self) -> int: ...
    @property
    def input_shapes(self) -> list[Tuple[int, ...]]: ...
    @property
    def output_shapes(self) -> list[Tuple[int, ...]]: ...
    @property
    def fused_layers(self) -> list[int]: ...

class RunProfile:
    """A profiled run: its compute layers in run order and its time."""

    @property
    def layers(self) -> list[LayerProfile]: ...
    @property
    def total_ns(self) -> int: ...

class OpInfo:
    """One op version irlite runs."""

    @property
    def type(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def since_opset(self) -> int: ...
    @property
    def until_opset(self) -> int: ...
    @property
    def min_inputs(self) -> int: ...
    @property
    def max_inputs(self) -> Optional[int]: ...
    @property
    def inputs(self) -> list[Tuple[str, Tuple[str, ...]]]: ...
    @property
    def outputs(self) -> list[Tuple[str, Tuple[str, ...]]]: ...

class Session:
    """Running state for one thread; make one per thread with Model.session()."""

    def run(
        self, inputs: Union[Mapping[str, ArrayLike], Sequence[ArrayLike], None] = None
    ) -> dict[str, numpy.ndarray]:
        """Runs the model; returns {output name: array} in Model.outputs order.

        An input that is C-contiguous and of the input's dtype is read in place. Other arrays
        are copied once: another layout as it is, another dtype by astype when
        numpy.can_cast(given, wanted, "same_kind") is true and integer values fit; other dtypes
        raise InputError. A bf16 input takes numpy.uint16 bit patterns only.
        """
    def profile(self) -> RunProfile:
        """The last run's layers and times (profile=True sessions)."""
    @property
    def model(self) -> Model: ...
    @property
    def threads(self) -> int: ...
    @property
    def max_memory(self) -> int: ...

class Model:
    """A loaded model: immutable, and safe to share between threads."""

    @property
    def name(self) -> str: ...
    @property
    def ir_version(self) -> int: ...
    @property
    def source(self) -> str: ...
    @property
    def inputs(self) -> list[Port]: ...
    @property
    def outputs(self) -> list[Port]: ...
    def layers(self) -> list[Layer]:
        """Every layer in run order with its inferred output types and shapes."""
    @property
    def warnings(self) -> list[str]: ...
    @property
    def problems(self) -> list[str]: ...
    @property
    def is_dynamic(self) -> bool: ...
    def reshape(self, shapes: Mapping[str, ShapeLike]) -> Model:
        """A copy of the model with new input shapes, inferred again."""
    def session(
        self, *, threads: int = 0, max_memory: Optional[int] = None, profile: bool = False
    ) -> Session:
        """A new Session for running the model."""

def load(
    path: Union[str, os.PathLike[str]],
    weights: Union[str, os.PathLike[str], None] = None,
    *,
    weights_mode: str = "auto",
    precision: str = "f32",
    fuse_layers: bool = True,
    keep_going: bool = False,
) -> Model:
    """Loads an IR model from its .xml path (weights: the .bin beside it unless given)."""

def load_from_memory(
    xml: Union[str, bytes],
    weights: Optional[_Buffer] = None,
    *,
    name: str = "<memory>",
    precision: str = "f32",
    fuse_layers: bool = True,
    keep_going: bool = False,
) -> Model:
    """Loads a model from its XML text and its weights buffer (not copied)."""

def supported_ops() -> list[OpInfo]:
    """Every op version irlite runs, in the order `irlite ops` lists them."""

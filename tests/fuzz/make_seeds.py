#!/usr/bin/env python3
"""Writes the load_fuzzer seeds for the element-wise, reduction, compute, indexing, shape,
resizing, padding and normalisation ops into tests/fuzz/corpus/load/ (Python standard library
only).

A seed is IR XML, then the marker FUZZ_NEXT_FIELD and the weights bytes. The seeds are small
models that reach each op with its attributes, Consts for the value inputs, dynamic and interval
dims, and chains such as ShapeOf -> Gather -> Concat -> Reshape. Output ports carry a precision
but no dims, so the seeds stay small and the loader infers every shape. The sample models
retrieval, graph_pooling and dynamic_topk are copied in too, without comments or indentation.

    tests/fuzz/make_seeds.py      (rewrites the seeds named here; leaves the others alone)
"""

import pathlib
import re
import struct

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fuzz" / "corpus" / "load"
MARKER = b"FUZZ_NEXT_FIELD"

PRECISION = {"f32": "FP32", "f16": "FP16", "bf16": "BF16", "f64": "FP64", "i8": "I8",
             "i16": "I16", "i32": "I32", "i64": "I64", "u8": "U8", "u16": "U16", "u32": "U32",
             "u64": "U64", "boolean": "BOOL"}
PACK = {"f32": "f", "f16": "e", "f64": "d", "i8": "b", "i16": "h", "i32": "i", "i64": "q",
        "u8": "B", "u16": "H", "u32": "I", "u64": "Q", "boolean": "?"}


def pack(type_, values):
    if type_ == "bf16":
        return b"".join(struct.pack("<f", v)[2:] for v in values)
    return struct.pack("<%d%s" % (len(values), PACK[type_]), *values)


class Net:
    def __init__(self, name):
        self.name = name
        self.layers = []
        self.edges = []
        self.weights = bytearray()
        self.consts = {}

    def _layer(self, type_, version, data, inputs, out_types):
        id_ = len(self.layers)
        attrs = "".join(' %s="%s"' % kv for kv in data.items())
        xml = '<layer id="%d" name="%d" type="%s" version="%s">' % (id_, id_, type_, version)
        if data:
            xml += "<data%s/>" % attrs
        if inputs:
            xml += "<input>%s</input>" % "".join('<port id="%d"/>' % i
                                                 for i in range(len(inputs)))
        if out_types:
            xml += "<output>%s</output>" % "".join(
                '<port id="%d" precision="%s"/>' % (len(inputs) + i, PRECISION[t])
                for i, t in enumerate(out_types))
        self.layers.append(xml + "</layer>")
        for i, (src, port) in enumerate(inputs):
            self.edges.append('<edge from-layer="%d" from-port="%d" to-layer="%d" to-port="%d"/>'
                              % (src, port, id_, i))
        return [(id_, len(inputs) + i) for i in range(len(out_types))]

    def param(self, type_, shape):
        return self._layer("Parameter", "opset1", {"shape": shape, "element_type": type_}, [],
                           [type_])[0]

    def const(self, type_, values, shape=None):
        if shape is None:
            shape = str(len(values))
        key = (type_, tuple(values), shape)
        if key in self.consts:
            return self.consts[key]
        blob = pack(type_, values)
        data = {"element_type": type_, "shape": shape, "offset": len(self.weights),
                "size": len(blob)}
        self.weights += blob
        self.consts[key] = self._layer("Const", "opset1", data, [], [type_])[0]
        return self.consts[key]

    def op(self, type_, version, inputs, out_types, **data):
        outs = self._layer(type_, "opset%d" % version, data, inputs, out_types)
        return outs[0] if len(outs) == 1 else outs

    def result(self, src):
        self._layer("Result", "opset1", {}, [src], [])

    def bytes(self):
        xml = '<net name="%s" version="11"><layers>%s</layers><edges>%s' \
              '</edges></net>\n' % (self.name, "".join(self.layers), "".join(self.edges))
        return xml.encode() + MARKER + bytes(self.weights)


def binary():
    seeds = []
    for type_, ops in (("f32", ["Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum",
                                "Power"]),
                       ("i32", ["Add", "Subtract", "Multiply", "Divide", "Power", "Minimum"]),
                       ("u8", ["Subtract", "Divide", "Power"]),
                       ("bf16", ["Add", "Divide", "Power"])):
        n = Net("binary_" + type_)
        a = n.param(type_, "?,1..4,3")
        b = n.const(type_, [1, 2, 3])
        x = a
        for op in ops:
            x = n.op(op, 1, [x, b], [type_], auto_broadcast="numpy")
        n.result(x)
        c = n.param(type_, "2,3")
        n.result(n.op("Add", 1, [c, n.const(type_, [5], "1")], [type_], auto_broadcast="pdpd",
                      axis="1"))
        n.result(n.op("Multiply", 1, [c, c], [type_], auto_broadcast="none"))
        seeds.append(n)
    n = Net("compare_logical")
    a = n.param("f32", "?,4")
    b = n.const("f32", [0.0, 1.0, float("nan"), -1.0])
    outs = [n.op(op, 1, [a, b], ["boolean"], auto_broadcast="numpy")
            for op in ("Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual")]
    x = n.op("LogicalAnd", 1, [outs[0], outs[1]], ["boolean"])
    x = n.op("LogicalOr", 1, [x, outs[2]], ["boolean"])
    x = n.op("LogicalXor", 1, [x, outs[3]], ["boolean"])
    x = n.op("LogicalNot", 1, [x], ["boolean"])
    n.result(n.op("Select", 1, [x, a, b], ["f32"], auto_broadcast="numpy"))
    seeds.append(n)
    n = Net("divide_int_zero")
    a = n.param("i64", "3")
    n.result(n.op("Divide", 1, [n.const("i64", [7, -7, 9]), a], ["i64"], m_pythondiv="true"))
    n.result(n.op("Divide", 1, [n.const("i8", [-128, 5, 1]), n.const("i8", [-1, 3, 2])], ["i8"],
                  m_pythondiv="false"))
    seeds.append(n)
    return seeds


def broadcast():
    seeds = []
    n = Net("broadcast_v3")
    a = n.param("f32", "?,1")
    for mode in ("numpy", "bidirectional"):
        n.result(n.op("Broadcast", 3, [a, n.const("i64", [2, 3, 4])], ["f32"], mode=mode))
    shape = n.op("ShapeOf", 3, [a], ["i32"], output_type="i32")
    n.result(n.op("Broadcast", 3, [n.const("f32", [1.5]), shape], ["f32"], mode="numpy"))
    n.result(n.op("Broadcast", 3, [n.const("i8", [1, 2]), n.const("i64", [3, 2]),
                                   n.const("i64", [1])], ["i8"], mode="explicit"))
    seeds.append(n)
    n = Net("broadcast_v1")
    a = n.param("u16", "1..3")
    n.result(n.op("Broadcast", 1, [a, n.const("u64", [4, 3]), n.const("i32", [1])], ["u16"],
                  mode="explicit"))
    n.result(n.op("Broadcast", 1, [a, n.const("i64", [2, 2, 1])], ["u16"], mode="pdpd",
                  axis="2"))
    seeds.append(n)
    return seeds


def unary():
    seeds = []
    for type_ in ("f32", "f16", "f64"):
        n = Net("unary_" + type_)
        x = n.param(type_, "?,2..5")
        for op in ("Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Abs", "Negative", "Floor",
                   "Ceiling", "Erf", "Sin", "Cos"):
            x = n.op(op, 1, [x], [type_])
        n.result(x)
        seeds.append(n)
        n = Net("activation_" + type_)
        x = n.param(type_, "?,2..5")
        x = n.op("Round", 5, [x], [type_], mode="half_to_even")
        x = n.op("Round", 5, [x], [type_], mode="half_away_from_zero")
        x = n.op("Clamp", 1, [x], [type_], min="-1.5", max="2")
        x = n.op("SoftPlus", 4, [x], [type_])
        x = n.op("HSwish", 4, [x], [type_])
        x = n.op("Gelu", 2, [x], [type_])
        x = n.op("Gelu", 7, [x], [type_], approximation_mode="tanh")
        x = n.op("Swish", 4, [x], [type_])
        x = n.op("Swish", 4, [x, n.const(type_, [0.5], "")], [type_])
        n.result(x)
        seeds.append(n)
    for type_ in ("i32", "u8", "i64"):
        n = Net("unary_" + type_)
        x = n.param(type_, "3")
        for op in ("Relu", "Abs", "Negative", "Sqrt", "Exp", "Floor"):
            x = n.op(op, 1, [x], [type_])
        x = n.op("Clamp", 1, [x], [type_], min="-3.7", max="200.2")
        n.result(x)
        seeds.append(n)
    n = Net("convert")
    x = n.param("f32", "?")
    for to in ("f16", "bf16", "i8", "u8", "i64", "u64", "boolean", "f64", "u32", "f32"):
        x = n.op("Convert", 1, [x], [to], destination_type=to)
    n.result(x)
    n.result(n.op("Convert", 1, [n.const("f32", [1e30, -1e30, float("nan"), 3.5])], ["i32"],
                  destination_type="i32"))
    seeds.append(n)
    return seeds


def reductions():
    seeds = []
    n = Net("reduce")
    x = n.param("f32", "?,3,1..4")
    for op, version, keep in (("ReduceMin", 1, "true"), ("ReduceSum", 1, "false"),
                              ("ReduceProd", 1, "true"), ("ReduceMean", 1, "false"),
                              ("ReduceL1", 4, "true"), ("ReduceL2", 4, "false"),
                              ("ReduceMax", 1, "false")):
        n.result(n.op(op, version, [x, n.const("i64", [-1, 0])], ["f32"], keep_dims=keep))
    seeds.append(n)
    n = Net("reduce_int")
    b = n.param("boolean", "2,?")
    for op in ("ReduceLogicalAnd", "ReduceLogicalOr"):
        n.result(n.op(op, 1, [b, n.const("i32", [1], "")], ["boolean"], keep_dims="true"))
    x = n.param("i8", "4,5")
    for op in ("ReduceSum", "ReduceProd", "ReduceMean"):
        n.result(n.op(op, 1, [x, n.const("i64", [], "0")], ["i8"], keep_dims="false"))
    y = n.param("f32", "...")
    n.result(n.op("ReduceSum", 1, [y, n.const("i64", [0])], ["f32"], keep_dims="true"))
    seeds.append(n)
    return seeds


def compute():
    seeds = []
    n = Net("matmul")
    a = n.param("f32", "?,3,4")
    n.result(n.op("MatMul", 1, [a, n.const("f32", [1.0] * 20, "4,5")], ["f32"]))
    n.result(n.op("MatMul", 1, [a, n.const("f32", [2.0] * 8, "2,4")], ["f32"],
                  transpose_b="true"))
    n.result(n.op("MatMul", 1, [a, n.const("f32", [1.0] * 3, "3")], ["f32"],
                  transpose_a="true"))
    v = n.param("i32", "4")
    n.result(n.op("MatMul", 1, [v, v], ["i32"]))
    seeds.append(n)
    n = Net("softmax")
    x = n.param("f32", "2,?,3")
    n.result(n.op("Softmax", 1, [x], ["f32"], axis="1"))
    n.result(n.op("Softmax", 8, [x], ["f32"], axis="-1"))
    h = n.param("f16", "?")
    n.result(n.op("Softmax", 8, [h], ["f16"], axis="0"))
    n.result(n.op("Squeeze", 1, [n.op("Softmax", 8, [x], ["f32"], axis="-3")], ["f32"]))
    seeds.append(n)
    return seeds


def indexing():
    seeds = []
    n = Net("gather")
    x = n.param("f32", "2,?,4")
    n.result(n.op("Gather", 1, [x, n.const("i32", [0, 1, 1]), n.const("i64", [0], "")], ["f32"]))
    n.result(n.op("Gather", 7, [x, n.const("i64", [3, 0, 2, 1], "2,2"), n.const("i64", [2], "")],
                  ["f32"], batch_dims="0"))
    idx = n.param("i64", "2,3")
    n.result(n.op("Gather", 8, [x, idx, n.const("i32", [-1], "")], ["f32"], batch_dims="-1"))
    n.result(n.op("Gather", 8, [x, n.const("i64", [-4, 3]), n.const("i64", [-1], "")], ["f32"],
                  batch_dims="0"))
    seeds.append(n)
    n = Net("range")
    n.result(n.op("Range", 4, [n.const("i64", [0], ""), n.const("i64", [10], ""),
                               n.const("i64", [3], "")], ["i32"], output_type="i32"))
    n.result(n.op("Range", 4, [n.const("f32", [1.0], ""), n.const("f32", [-2.0], ""),
                               n.const("f32", [-0.5], "")], ["f32"], output_type="f32"))
    p = n.param("f32", "?,7")
    last = n.op("Gather", 8, [n.op("ShapeOf", 3, [p], ["i64"]), n.const("i64", [0], ""),
                              n.const("i64", [0], "")], ["i64"])
    n.result(n.op("Range", 4, [n.const("i64", [0], ""), last, n.const("i64", [1], "")], ["u8"],
                  output_type="u8"))
    seeds.append(n)
    n = Net("strided_slice")
    x = n.param("f32", "?,6,1..5")
    b, e, s = n.const("i64", [1, -1, 0]), n.const("i64", [0, 0, 4]), n.const("i64", [1, -2, 2])
    n.result(n.op("StridedSlice", 1, [x, b, e, s], ["f32"], begin_mask="0,1,0", end_mask="1,0,0"))
    n.result(n.op("StridedSlice", 1, [x, n.const("i64", [0, -1, 0]), e], ["f32"],
                  begin_mask="1,0,0", end_mask="0,0,1",
                  new_axis_mask="0,1,0", shrink_axis_mask="1,0,0", ellipsis_mask="0,0,0"))
    n.result(n.op("StridedSlice", 1, [x, n.const("i32", [0, 0]), n.const("i32", [1, 1])],
                  ["f32"], begin_mask="", end_mask="", ellipsis_mask="1,0",
                  shrink_axis_mask="0,1"))
    seeds.append(n)
    n = Net("slice")
    x = n.param("i16", "?,6,3")
    n.result(n.op("Slice", 8, [x, n.const("i64", [5, -1]), n.const("i64", [-100, 0]),
                               n.const("i64", [-2, 1]), n.const("i64", [1, -1])], ["i16"]))
    n.result(n.op("Slice", 8, [x, n.const("i32", [0]), n.const("i32", [2]),
                               n.const("i32", [1])], ["i16"]))
    seeds.append(n)
    return seeds


def shapes():
    seeds = []
    n = Net("shape_chain")
    x = n.param("f32", "?,4,2..6")
    shape = n.op("ShapeOf", 1, [x], ["i64"])
    dims = n.op("Gather", 8, [shape, n.const("i64", [2, 0]), n.const("i64", [0], "")], ["i64"])
    target = n.op("Concat", 1, [dims, n.const("i64", [-1])], ["i64"], axis="0")
    n.result(n.op("Reshape", 1, [x, target], ["f32"], special_zero="false"))
    n.result(n.op("Broadcast", 3, [n.const("f32", [1.0]), dims], ["f32"], mode="numpy"))
    k = n.op("Gather", 8, [shape, n.const("i64", [1], ""), n.const("i64", [0], "")], ["i64"])
    values, indices = n.op("TopK", 11, [x, k], ["f32", "i32"], axis="1", mode="max",
                           sort="value", stable="true")
    n.result(values)
    n.result(indices)
    seeds.append(n)
    n = Net("shape_moves")
    x = n.param("u8", "1,?,3,1")
    sq = n.op("Squeeze", 1, [x, n.const("i64", [0, -1])], ["u8"])
    un = n.op("Unsqueeze", 1, [sq, n.const("i32", [0, 3])], ["u8"])
    tr = n.op("Transpose", 1, [un, n.const("i64", [3, 1, 0, 2])], ["u8"])
    n.result(n.op("Transpose", 1, [un, n.const("i64", [])], ["u8"]))
    n.result(n.op("Tile", 1, [tr, n.const("i64", [2, 1, 3])], ["u8"]))
    n.result(n.op("Concat", 1, [un, un, n.const("u8", [7, 8, 9], "1,1,3,1")], ["u8"],
                  axis="-3"))
    n.result(n.op("Reshape", 1, [tr, n.const("i64", [0, -1])], ["u8"], special_zero="true"))
    seeds.append(n)
    # Bounds carried through arithmetic, Convert, Slice and Squeeze to Range and Tile.
    n = Net("bounds_chain")
    x = n.param("f32", "1..8,3")
    shape = n.op("ShapeOf", 3, [x], ["i32"], output_type="i32")
    scaled = n.op("Convert", 1, [n.op("Multiply", 1, [shape, n.const("i32", [2])], ["i32"])],
                  ["i64"], destination_type="i64")
    first = n.op("Slice", 8, [scaled, n.const("i64", [0]), n.const("i64", [1]),
                              n.const("i64", [1])], ["i64"])
    stop = n.op("Squeeze", 1, [first, n.const("i64", [0])], ["i64"])
    n.result(n.op("Range", 4, [n.const("i64", [0], ""), stop, n.const("i64", [1], "")], ["f32"],
                  output_type="f32"))
    n.result(n.op("Tile", 1, [x, n.op("Subtract", 1, [scaled, n.const("i64", [1])], ["i64"])],
                  ["f32"]))
    seeds.append(n)
    return seeds


def resizing():
    """Interpolate-1/4/11 in their modes on fixed, dynamic and interval dims, and Pad-1/12."""
    seeds = []
    n = Net("interpolate")
    x = n.param("f32", "1,2,3..5,?")
    n.result(n.op("Interpolate", 4, [x, n.const("i64", [6, 8]), n.const("f32", [2.0, 2.0]),
                                     n.const("i64", [2, 3])], ["f32"], mode="nearest",
                  shape_calculation_mode="sizes", nearest_mode="floor"))
    n.result(n.op("Interpolate", 11, [x, n.const("f32", [0.5, 1.5]), n.const("i32", [3, 2])],
                  ["f32"], mode="linear", shape_calculation_mode="scales", antialias="true",
                  coordinate_transformation_mode="align_corners", pads_begin="0,0,1,0",
                  pads_end="0,0,0,1"))
    image = n.param("u8", "3..5,6")
    n.result(n.op("Interpolate", 11, [image, n.const("i64", [4, 4])], ["u8"],
                  mode="bicubic_pillow", shape_calculation_mode="sizes", cube_coeff="-0.5"))
    n.result(n.op("Interpolate", 1, [x, n.const("i64", [7])], ["f32"], axes="3", mode="cubic",
                  align_corners="0"))
    seeds.append(n)
    n = Net("pad")
    x = n.param("i16", "2,?,1..4")
    n.result(n.op("Pad", 1, [x, n.const("i64", [1, 0, 2]), n.const("i64", [0, 3, 1]),
                             n.const("i16", [-7], "")], ["i16"], pad_mode="constant"))
    n.result(n.op("Pad", 12, [x, n.const("i32", [-1, 1, 0]), n.const("i32", [1, -2, 0])],
                  ["i16"], pad_mode="symmetric"))
    n.result(n.op("Pad", 12, [x, n.const("i64", [1, 0, 0]), n.const("i64", [0, 0, 0])],
                  ["i16"], pad_mode="reflect"))
    seeds.append(n)
    return seeds


def normalization():
    seeds = []
    n = Net("split_moves")
    x = n.param("f32", "2,?,4,6")
    a, b = n.op("Split", 1, [x, n.const("i64", [-1], "")], ["f32", "f32"], num_splits="2")
    n.result(a)
    p, q, r = n.op("VariadicSplit", 1, [b, n.const("i32", [2], ""), n.const("i64", [1, -1, 2])],
                   ["f32", "f32", "f32"])
    n.result(p)
    n.result(r)
    n.result(n.op("DepthToSpace", 1, [x], ["f32"], mode="blocks_first", block_size="2"))
    n.result(n.op("SpaceToDepth", 1, [x], ["f32"], mode="depth_first", block_size="2"))
    n.result(n.op("Range", 1, [n.const("f32", [0.5], ""), n.const("f32", [4.0], ""),
                               n.const("f32", [0.75], "")], ["f32"]))
    seeds.append(n)
    n = Net("norms")
    x = n.param("f32", "?,3,5,4")
    c = [n.const("f32", v) for v in ([1.0, 0.5, 2.0], [0.0, 1.0, -1.0], [0.1, 0.2, 0.3],
                                     [1.0, 2.0, 0.5])]
    n.result(n.op("BatchNormInference", 5, [x] + c, ["f32"], epsilon="1e-5"))
    n.result(n.op("BatchNormInference", 1, c[:2] + [x] + c[2:], ["f32"], epsilon="0.001"))
    n.result(n.op("MVN", 2, [x], ["f32"], eps="1e-9", across_channels="false",
                  normalize_variance="true"))
    n.result(n.op("MVN", 6, [x, n.const("i64", [1, 3])], ["f32"], eps="1e-9",
                  normalize_variance="true", eps_mode="outside_sqrt"))
    n.result(n.op("NormalizeL2", 1, [x, n.const("i32", [1])], ["f32"], eps="1e-12",
                  eps_mode="max"))
    seeds.append(n)
    return seeds


MIN64, MAX64 = -2**63, 2**63 - 1


def regressions():
    """Inputs that once overflowed int64 arithmetic, kept as seeds."""
    seeds = []
    # The pdpd axis of a binary op and of Broadcast at INT64_MAX: axis + rank overflowed.
    n = Net("add_pdpd_axis_max")
    n.result(n.op("Add", 1, [n.param("f32", "2,3"), n.param("f32", "3")], ["f32"],
                  auto_broadcast="pdpd", axis=str(MAX64)))
    seeds.append(n)
    n = Net("broadcast_pdpd_axis_max")
    n.result(n.op("Broadcast", 3, [n.param("f32", "3"), n.const("i64", [3, 3])], ["f32"],
                  mode="pdpd", axis=str(MAX64)))
    seeds.append(n)
    # Slices taking one element per axis with an extreme step: step * stride overflowed.
    n = Net("slice_extreme_step")
    n.result(n.op("Slice", 8, [n.param("f32", "2,3"), n.const("i64", [MAX64, MIN64]),
                               n.const("i64", [MIN64, MAX64]), n.const("i64", [MIN64, MAX64])],
                  ["f32"]))
    seeds.append(n)
    n = Net("strided_slice_extreme_step")
    n.result(n.op("StridedSlice", 1, [n.param("f32", "2,3"), n.const("i64", [MIN64, MIN64]),
                                      n.const("i64", [MAX64, MAX64]),
                                      n.const("i64", [MAX64, MAX64])],
                  ["f32"], begin_mask="0,0", end_mask="0,0"))
    seeds.append(n)
    return seeds


def sample(name):
    """A sample model as one seed: its XML without comments or indentation, then its weights."""
    xml = (ROOT / "models" / (name + ".xml")).read_text()
    xml = re.sub(r"<!--.*?-->", "", xml, flags=re.S)
    xml = re.sub(r">\s+<", "><", xml).strip() + "\n"
    bin_ = ROOT / "models" / (name + ".bin")
    return xml.encode() + MARKER + (bin_.read_bytes() if bin_.exists() else b"")


def main():
    seeds = {}
    for family in (binary, broadcast, unary, reductions, compute, indexing, shapes, resizing,
                   normalization,
                   regressions):
        for net in family():
            seeds[net.name] = net.bytes()
    for name in ("retrieval", "graph_pooling", "dynamic_topk"):
        seeds[name] = sample(name)
    for name, data in seeds.items():
        (OUT / name).write_bytes(data)
        print("%-20s %5d bytes" % (name, len(data)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes irlite's sample models: IR v11 .xml files with their .bin weights.

Run from anywhere: `python3 models/generate_models.py`. The output is deterministic, so running
it again on an unchanged script leaves the repository unchanged. Standard library only, but
for the real-model section (5b), whose expected outputs come from NumPy.

The files follow what OpenVINO's serializer writes (IR v11): a comment before <net> says what the
model shows; layers are numbered in topological order (Parameters first, Results last); port ids
are inputs 0..n-1 then outputs n..; output ports carry `names`; Results are named
`<producer>/sink_port_0`; edges are sorted by source layer; <rt_info/> closes the net. One
deliberate difference: every Const's offset is a multiple of 8, so that irlite can view the
weights in place without copying (OpenVINO packs them without alignment).
"""

import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# element type -> (port precision, struct format, bytes per element)
TYPES = {
    "f16": ("FP16", "e", 2),
    "bf16": ("BF16", None, 2),
    "f32": ("FP32", "f", 4),
    "f64": ("FP64", "d", 8),
    "i8": ("I8", "b", 1),
    "i16": ("I16", "h", 2),
    "i32": ("I32", "i", 4),
    "i64": ("I64", "q", 8),
    "u8": ("U8", "B", 1),
    "u16": ("U16", "H", 2),
    "u32": ("U32", "I", 4),
    "u64": ("U64", "Q", 8),
    "boolean": ("BOOL", "B", 1),
}

F32_LOWEST = -3.4028234663852886e38


def bf16_bits(value):
    """bfloat16 bit pattern of a float: the f32 bits rounded to nearest, ties to even."""
    (u,) = struct.unpack("<I", struct.pack("<f", value))
    if (u & 0x7FFFFFFF) > 0x7F800000:
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def pack(etype, values):
    """Little-endian bytes of a flat list of values of element type `etype`."""
    if etype == "bf16":
        return b"".join(struct.pack("<H", bf16_bits(v)) for v in values)
    fmt = TYPES[etype][1]
    if etype == "boolean":
        values = [1 if v else 0 for v in values]
    return struct.pack("<%d%s" % (len(values), fmt), *values)


def f32(value):
    """Rounds a Python float to the nearest f32."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def text(values):
    """Values as a short readable list: integers without a fraction, floats as written."""
    def one(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            if v == F32_LOWEST:
                return "lowest"
            if v == int(v) and abs(v) < 1e15:
                return str(int(v))
            return repr(v)
        return str(v)
    return "[" + ", ".join(one(v) for v in values) + "]"


def nested(values, shape):
    """A flat list rendered with the nesting of `shape`."""
    if len(shape) <= 1:
        return text(values)
    step = count(shape[1:])
    return "[" + ", ".join(nested(values[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def rows(values, shape, indent):
    """A 2-D value, one row per line, continuation lines indented by `indent` spaces."""
    step = count(shape[1:])
    lines = [text(values[i * step:(i + 1) * step]) for i in range(shape[0])]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


class Port:
    def __init__(self, layer, index, etype, dims):
        self.layer = layer
        self.index = index  # position among the layer's outputs
        self.etype = etype
        self.dims = dims  # ints, -1 for dynamic


class Layer:
    def __init__(self, lid, name, ltype, version, data):
        self.id = lid
        self.name = name
        self.type = ltype
        self.version = version
        self.data = data  # list of (attribute, text), or None for no <data>
        self.inputs = []  # the Port feeding each input
        self.outputs = []  # list of (etype, dims, names)
        self.output_port_ids = []


class Net:
    """A model under construction. Layers are added in topological order."""

    def __init__(self, name):
        self.name = name
        self.layers = []
        self.edges = []  # (from_layer, from_port, to_layer, to_port)
        self.weights = bytearray()
        self.blobs = {}  # bytes -> offset, as the writer de-duplicates identical Consts
        self.has_const = False
        self.version = "11"  # None: no version attribute
        self.root = "net"

    def _layer(self, name, ltype, version, data):
        layer = Layer(len(self.layers), name, ltype, version, data)
        self.layers.append(layer)
        return layer

    def _outputs(self, layer, outputs):
        first = len(layer.inputs)
        ports = []
        for i, (etype, dims, names) in enumerate(outputs):
            layer.outputs.append((etype, dims, names))
            layer.output_port_ids.append(first + i)
            ports.append(Port(layer, i, etype, dims))
        return ports

    def parameter(self, name, etype, shape_text):
        """A Parameter; `shape_text` is its partial shape as written (`?,3`, `2..8,3`). Its port
        writes -1 for every dimension that is not static, intervals included."""
        layer = self._layer(name, "Parameter", "opset1",
                            [("shape", shape_text), ("element_type", etype)])
        dims = [-1 if ("?" in d or ".." in d) else int(d)
                for d in shape_text.split(",")] if shape_text else []
        return self._outputs(layer, [(etype, dims, name)])[0]

    def const(self, name, etype, shape, values):
        """A Const holding `values`; its blob starts at a multiple of 8."""
        assert len(values) == count(shape), name
        self.has_const = True
        blob = pack(etype, values)
        offset = self.blobs.get(blob)
        if offset is None:
            while len(self.weights) % 8:
                self.weights.append(0)
            offset = len(self.weights)
            self.weights += blob
            self.blobs[blob] = offset
        data = [("element_type", etype), ("shape", ", ".join(str(d) for d in shape)),
                ("offset", str(offset)), ("size", str(len(blob)))]
        layer = self._layer(name, "Const", "opset1", data)
        return self._outputs(layer, [(etype, list(shape), name)])[0]

    def op(self, name, ltype, version, data, inputs, outputs):
        """A compute layer fed by `inputs` (Ports); `outputs` = [(etype, dims, names)]."""
        layer = self._layer(name, ltype, version, data)
        for i, src in enumerate(inputs):
            layer.inputs.append(src)
            self.edges.append((src.layer.id, src.layer.output_port_ids[src.index], layer.id, i))
        return self._outputs(layer, outputs)

    def result(self, src):
        """A Result named after the first tensor name of the port it consumes."""
        name = src.layer.outputs[src.index][2].split(",")[0] + "/sink_port_0"
        layer = self._layer(name, "Result", "opset1", None)
        layer.inputs.append(src)
        self.edges.append((src.layer.id, src.layer.output_port_ids[src.index], layer.id, 0))
        return layer

    def xml(self, comment):
        assert "--" not in comment, "an XML comment cannot hold '--'"
        out = ['<?xml version="1.0"?>', "<!--"]
        out += [("  " + line).rstrip() for line in comment.strip("\n").split("\n")]
        out.append("-->")
        version = ' version="%s"' % self.version if self.version is not None else ""
        out.append('<%s name="%s"%s>' % (self.root, self.name, version))
        out.append("\t<layers>")
        for layer in self.layers:
            out.append('\t\t<layer id="%d" name="%s" type="%s" version="%s">'
                       % (layer.id, layer.name, layer.type, layer.version))
            if layer.data is not None:
                out.append("\t\t\t<data %s/>" % " ".join('%s="%s"' % kv for kv in layer.data))
            if layer.inputs:
                out.append("\t\t\t<input>")
                for i, src in enumerate(layer.inputs):
                    out += port_xml(i, TYPES[src.etype][0], src.dims, None)
                out.append("\t\t\t</input>")
            if layer.outputs:
                out.append("\t\t\t<output>")
                for pid, (etype, dims, names) in zip(layer.output_port_ids, layer.outputs):
                    out += port_xml(pid, TYPES[etype][0], dims, names)
                out.append("\t\t\t</output>")
            out.append("\t\t</layer>")
        out.append("\t</layers>")
        out.append("\t<edges>")
        for e in sorted(self.edges, key=lambda e: (e[0], e[1], e[2], e[3])):
            out.append('\t\t<edge from-layer="%d" from-port="%d" to-layer="%d" to-port="%d"/>' % e)
        out.append("\t</edges>")
        out.append("\t<rt_info/>")
        out.append("</%s>" % self.root)
        return "\n".join(out) + "\n"


def port_xml(pid, precision, dims, names):
    attrs = 'id="%d" precision="%s"' % (pid, precision)
    if names:
        attrs += ' names="%s"' % names
    if not dims:
        return ["\t\t\t\t<port %s/>" % attrs]
    return (["\t\t\t\t<port %s>" % attrs] + ["\t\t\t\t\t<dim>%d</dim>" % d for d in dims]
            + ["\t\t\t\t</port>"])


WRITTEN = []


def write(path, content):
    full = os.path.join(HERE, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    mode = "wb" if isinstance(content, (bytes, bytearray)) else "w"
    with open(full, mode) as f:
        f.write(content)
    WRITTEN.append(path)


def save(net, path, comment, write_bin=True):
    write(path, net.xml(comment))
    if net.has_const and write_bin:
        write(path[:-4] + ".bin", bytes(net.weights))


def npy(etype, shape, values):
    """A NumPy .npy file (format 1.0): magic, header dict padded to 64 bytes, raw data."""
    descr = {"i32": "<i4", "i64": "<i8", "f32": "<f4"}[etype]
    dims = "(%s)" % ("".join("%d," % d for d in shape) if len(shape) == 1
                      else ", ".join(str(d) for d in shape))
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, dims)
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + pack(
        etype, values)


# ------------------------------------------------------------------------------------------
# Reference computations for the expected outputs written into the comments.

def segment_max(data, shape, ids, num_segments, fill):
    inner = count(shape[1:])
    segments = num_segments if num_segments is not None else (ids[-1] + 1 if ids else 0)
    out = [None] * (segments * inner)
    for row, s in enumerate(ids):
        if s >= segments:
            continue
        for j in range(inner):
            v = data[row * inner + j]
            cur = out[s * inner + j]
            out[s * inner + j] = v if cur is None or v > cur else cur
    return [fill if v is None else v for v in out], [segments] + list(shape[1:])


def embedding_segments_sum(table, emb_dim, indices, ids, segments, default=None, weights=None):
    out = [[0.0] * emb_dim for _ in range(segments)]
    filled = [False] * segments
    for k, (index, s) in enumerate(zip(indices, ids)):
        w = weights[k] if weights else 1.0
        for j in range(emb_dim):
            out[s][j] = f32(out[s][j] + f32(table[index * emb_dim + j] * w))
        filled[s] = True
    for s in range(segments):
        if not filled[s] and default is not None:
            out[s] = [table[default * emb_dim + j] for j in range(emb_dim)]
    return [v for row in out for v in row]


# ------------------------------------------------------------------------------------------
# 1. SegmentMax-16 examples

SEGMENT_MAX_DATA = [-1.5, -2.0, 0.5, 4.0, 3.0]
SEGMENT_MAX_IDS = [0, 0, 2, 3, 3]


def segment_max_examples():
    for number, num_segments in ((1, 2), (2, 8)):
        expected, out_shape = segment_max(SEGMENT_MAX_DATA, [5], SEGMENT_MAX_IDS, num_segments,
                                          0.0)
        net = Net("segment_max_example%d" % number)
        data = net.const("data", "f32", [5], SEGMENT_MAX_DATA)
        ids = net.const("segment_ids", "i32", [5], SEGMENT_MAX_IDS)
        num = net.const("num_segments", "i64", [], [num_segments])
        (out,) = net.op("segment_max", "SegmentMax", "opset16", [("fill_mode", "zero")],
                        [data, ids, num], [("f32", out_shape, "segment_max")])
        net.result(out)
        relation = "<" if number == 1 else ">"
        comment = """
SegmentMax-16, example %d of the specification: num_segments %s max(segment_ids) + 1.
Every input is a Const, so running the model reproduces the example:
  data         f32 [5]  = %s
               (values chosen here: the specification gives only the shapes)
  segment_ids  i32 [5]  = %s
  num_segments i64 []   = %d
  fill_mode    zero
Expected output segment_max: f32 %s = %s
%s
Segment 0 holds only negative values: its maximum is -1.5, not the fill value 0.
""" % (number, relation, text(SEGMENT_MAX_DATA), text(SEGMENT_MAX_IDS), num_segments,
       out_shape, text(expected),
       "Segment 3 is cut off because num_segments is 2." if number == 1 else
       "Segments 1, 4, 5, 6 and 7 are empty and get 0.")
        save(net, "segment_max_example%d.xml" % number, comment)

    data3 = [1, 2, 3, 4, 5, -6, 7, 8, -9, 10, -11, 0]
    ids3 = [0, 1, 1]
    expected, out_shape = segment_max(data3, [3, 4], ids3, None, -2147483648)
    net = Net("segment_max_example3")
    data = net.const("data", "i32", [3, 4], data3)
    ids = net.const("segment_ids", "i64", [3], ids3)
    (out,) = net.op("segment_max", "SegmentMax", "opset16", [("fill_mode", "lowest")],
                    [data, ids], [("i32", out_shape, "segment_max")])
    net.result(out)
    comment = """
SegmentMax-16, example 3 of the specification: 2-D data, no num_segments input, so the number
of segments is max(segment_ids) + 1 = 2. Every input is a Const:
  data         i32 [3,4] = %s  (values chosen here)
  segment_ids  i64 [3]   = %s
  fill_mode    lowest
Expected output segment_max: i32 %s = %s
""" % (nested(data3, [3, 4]), text(ids3), out_shape, nested(expected, out_shape))
    save(net, "segment_max_example3.xml", comment)


# ------------------------------------------------------------------------------------------
# 2. ReduceMax-1 examples (shape examples)

REDUCE_MAX_EXAMPLES = [
    ([2, 3], True, [6, 12, 1, 1]),
    ([2, 3], False, [6, 12]),
    ([1], False, [6, 10, 24]),
    ([-2], False, [6, 12, 24]),
]


def reduce_max_examples():
    for number, (axes, keep_dims, out_shape) in enumerate(REDUCE_MAX_EXAMPLES, 1):
        net = Net("reduce_max_example%d" % number)
        data = net.parameter("data", "f32", "6,12,10,24")
        ax = net.const("axes", "i64", [len(axes)], axes)
        (out,) = net.op("reduce_max", "ReduceMax", "opset1",
                        [("keep_dims", "true" if keep_dims else "false")],
                        [data, ax], [("f32", out_shape, "reduce_max")])
        net.result(out)
        comment = """
ReduceMax-1, example %d of the specification (a shape example).
  data  f32 [6,12,10,24]  Parameter: any values
  axes  i64 [%d] = %s  Const
  keep_dims %s
Expected output reduce_max: f32 %s, the maximum of data over the axes %s.
""" % (number, len(axes), text(axes), "true" if keep_dims else "false", out_shape, text(axes))
        save(net, "reduce_max_example%d.xml" % number, comment)


# ------------------------------------------------------------------------------------------
# 3. EmbeddingSegmentsSum-3 example

EMB_TABLE = [-0.2, -0.6, -0.1, -0.4, -1.9, -1.8, -1.0, 1.5, 0.8, -0.7]


def embedding_segments_sum_example():
    indices = [0, 2, 3, 4]
    ids = [0, 0, 2, 2]
    weights = [0.5, 0.5, 0.5, 0.5]
    net = Net("embedding_segments_sum_example")
    table = net.const("emb_table", "f32", [5, 2], EMB_TABLE)
    ind = net.const("indices", "i32", [4], indices)
    seg = net.const("segment_ids", "i32", [4], ids)
    num = net.const("num_segments", "i32", [], [3])
    default = net.const("default_index", "i32", [], [0])
    w = net.const("per_sample_weights", "f32", [4], weights)
    (out,) = net.op("embedding_segments_sum", "EmbeddingSegmentsSum", "opset3", None,
                    [table, ind, seg, num, default, w],
                    [("f32", [3, 2], "embedding_segments_sum")])
    net.result(out)
    comment = """
EmbeddingSegmentsSum-3, the example of the specification. Every input is a Const:
  emb_table          f32 [5,2] = %s
  indices            i32 [4]   = %s
  segment_ids        i32 [4]   = %s  (segment 1 is empty)
  num_segments       i32 []    = 3
  default_index      i32 []    = 0  (the empty segment gets row 0, unweighted)
  per_sample_weights f32 [4]   = %s
Expected output embedding_segments_sum: f32 [3,2] = [[-1.05, -1.2], [-0.2, -0.6], [-0.1, 0.4]]
""" % (nested(EMB_TABLE, [5, 2]), text(indices), text(ids), text(weights))
    save(net, "embedding_segments_sum_example.xml", comment)


# ------------------------------------------------------------------------------------------
# 4. TopK examples

def topk_examples():
    net = Net("topk_example")
    data = net.parameter("data", "f32", "6,12,10,24")
    k = net.const("k", "i64", [], [3])
    values, indices = net.op(
        "topk", "TopK", "opset3",
        [("axis", "1"), ("mode", "max"), ("sort", "value"), ("index_element_type", "i64")],
        [data, k], [("f32", [6, 3, 10, 24], "values"), ("i64", [6, 3, 10, 24], "indices")])
    net.result(values)
    net.result(indices)
    comment = """
TopK-3, the example of the specification: the 3 largest values along axis 1.
  data  f32 [6,12,10,24]  Parameter: any values
  k     i64 [] = 3        Const
  axis 1, mode max, sort value, index_element_type i64
Expected outputs: values f32 [6,3,10,24] (descending along axis 1) and indices i64 [6,3,10,24]
(positions 0..11 along axis 1).
"""
    save(net, "topk_example.xml", comment)

    net = Net("topk11_example")
    data = net.parameter("data", "f32", "1,3,224,224")
    k = net.const("k", "i64", [], [10])
    values, indices = net.op(
        "topk", "TopK", "opset11",
        [("axis", "3"), ("mode", "max"), ("sort", "value"), ("stable", "true"),
         ("index_element_type", "i64")],
        [data, k], [("f32", [1, 3, 224, 10], "values"), ("i64", [1, 3, 224, 10], "indices")])
    net.result(values)
    net.result(indices)
    comment = """
TopK-11, the example of the specification: the 10 largest values along axis 3, stable.
  data  f32 [1,3,224,224]  Parameter: any values
  k     i64 [] = 10        Const
  axis 3, mode max, sort value, stable true, index_element_type i64
Expected outputs: values f32 [1,3,224,10] and indices i64 [1,3,224,10]; equal values keep
their input order (lower index first).
"""
    save(net, "topk11_example.xml", comment)

    stable_data = [5.0, 3.0, 1.0, 2.0, 5.0, 5.0]
    net = Net("topk11_stable")
    data = net.const("data", "f32", [6], stable_data)
    k = net.const("k", "i32", [], [4])
    values, indices = net.op(
        "topk", "TopK", "opset11",
        [("axis", "0"), ("mode", "min"), ("sort", "index"), ("stable", "true"),
         ("index_element_type", "i32")],
        [data, k], [("f32", [4], "values"), ("i32", [4], "indices")])
    net.result(values)
    net.result(indices)
    comment = """
TopK-11 with stable="true", the tie example of the TopK-11 specification. Every input is a
Const:
  data  f32 [6] = %s
  k     i32 []  = 4
  axis 0, mode min, sort index, stable true, index_element_type i32
The 4 smallest values are 1, 2, 3 and one of the three 5s; stable selection takes the 5 that
comes first (index 0), and sort index orders the result by position.
Expected outputs: values f32 [4] = [5, 3, 1, 2], indices i32 [4] = [0, 1, 2, 3]
""" % text(stable_data)
    save(net, "topk11_stable.xml", comment)


# ------------------------------------------------------------------------------------------
# 5. The pipeline: EmbeddingSegmentsSum -> ReduceMax -> TopK, with a SegmentMax branch

PIPE_NUM_EMB, PIPE_EMB_DIM, PIPE_SEGMENTS = 20, 8, 4
PIPE_TABLE = [((i * 7 + j * 5) % 23 - 11) * 0.25
              for i in range(PIPE_NUM_EMB) for j in range(PIPE_EMB_DIM)]
PIPE_SEGMENT_IDS = [0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3]
PIPE_INDICES = [2, 7, 1, 0, 9, 4, 4, 8, 2, 6, 5, 9]
PIPE_GROUP_IDS = [0, 0, 2, 2]


def pipeline_reference(indices, ids):
    bags = embedding_segments_sum(PIPE_TABLE, PIPE_EMB_DIM, indices, ids, PIPE_SEGMENTS)
    bag_max = [max(bags[s * PIPE_EMB_DIM:(s + 1) * PIPE_EMB_DIM]) for s in range(PIPE_SEGMENTS)]
    order = sorted(range(PIPE_SEGMENTS), key=lambda s: (-bag_max[s], s))[:3]
    top_values = [bag_max[s] for s in order]
    assert len(set(bag_max)) == len(bag_max), "the example must have no ties"
    groups, group_shape = segment_max(bags, [PIPE_SEGMENTS, PIPE_EMB_DIM], PIPE_GROUP_IDS, None,
                                      F32_LOWEST)
    return bags, bag_max, top_values, order, groups, group_shape


def pipeline(dynamic):
    name = "pipeline_dynamic" if dynamic else "pipeline"
    n = len(PIPE_INDICES)
    net = Net(name)
    if dynamic:
        indices = net.parameter("indices", "i32", "?")
        ids = net.parameter("segment_ids", "i32", "?")
    else:
        indices = net.parameter("indices", "i32", str(n))
    table = net.const("emb_table", "f32", [PIPE_NUM_EMB, PIPE_EMB_DIM], PIPE_TABLE)
    if not dynamic:
        ids = net.const("segment_ids", "i32", [n], PIPE_SEGMENT_IDS)
    num = net.const("num_segments", "i32", [], [PIPE_SEGMENTS])
    (bags,) = net.op("bags", "EmbeddingSegmentsSum", "opset3", None, [table, indices, ids, num],
                     [("f32", [PIPE_SEGMENTS, PIPE_EMB_DIM], "bags")])
    axes = net.const("axes", "i64", [1], [1])
    (bag_max,) = net.op("bag_max", "ReduceMax", "opset1", [("keep_dims", "false")], [bags, axes],
                        [("f32", [PIPE_SEGMENTS], "bag_max")])
    k = net.const("k", "i64", [], [3])
    top_values, top_indices = net.op(
        "top_bags", "TopK", "opset11",
        [("axis", "-1"), ("mode", "max"), ("sort", "value"), ("stable", "false"),
         ("index_element_type", "i32")],
        [bag_max, k], [("f32", [3], "top_values"), ("i32", [3], "top_indices")])
    group_ids = net.const("group_ids", "i32", [len(PIPE_GROUP_IDS)], PIPE_GROUP_IDS)
    (groups,) = net.op("group_max", "SegmentMax", "opset16", [("fill_mode", "lowest")],
                       [bags, group_ids], [("f32", [3, PIPE_EMB_DIM], "group_max")])
    net.result(top_values)
    net.result(top_indices)
    net.result(groups)

    bags_v, bag_max_v, top_v, order, groups_v, group_shape = pipeline_reference(
        PIPE_INDICES, PIPE_SEGMENT_IDS)
    assert group_shape == [3, PIPE_EMB_DIM]
    table_rule = "emb_table[i][j] = ((7 i + 5 j) mod 23 - 11) / 4"
    if dynamic:
        inputs = """\
  indices      i32 [?]  Parameter: row numbers into emb_table, in [0, 20)
  segment_ids  i32 [?]  Parameter: same length as indices, values in [0, 4)
Random inputs cannot satisfy these rules (the two lengths must match and the ids must be below
num_segments), so `irlite run` needs -i inputs, e.g. the example inputs of models/inputs/:
  indices      = inputs/pipeline_indices.npy      %s
  segment_ids  = inputs/pipeline_segment_ids.npy  %s
With these inputs the outputs are those of pipeline.xml (listed below).""" % (
            text(PIPE_INDICES), text(PIPE_SEGMENT_IDS))
    else:
        inputs = """\
  indices      i32 [12] Parameter: row numbers into emb_table, in [0, 20); random inputs
                        (drawn in [0, 10)) are valid
  segment_ids  i32 [12] Const = %s
Example input: inputs/pipeline_indices.npy = %s""" % (text(PIPE_SEGMENT_IDS), text(PIPE_INDICES))
    comment = """
A small recommender-style pipeline chaining the four ops%s:
  bags      = EmbeddingSegmentsSum-3(emb_table, indices, segment_ids, num_segments = 4)
                -> f32 [4,8], one summed embedding per bag
  bag_max   = ReduceMax-1(bags, axes = [1], keep_dims false)      -> f32 [4]
  top_bags  = TopK-11(bag_max, k = 3, axis -1, max, sort value)   -> top_values f32 [3],
                                                                     top_indices i32 [3]
  group_max = SegmentMax-16(bags, group_ids = %s, fill_mode lowest) -> f32 [3,8]
              (group 1 is empty and gets the lowest f32, -3.40282347e+38)
Inputs:
  emb_table    f32 [20,8] Const, %s
%s
Expected outputs for the example input:
  bags        = %s
  bag_max     = %s
  top_values  = %s
  top_indices = %s
  group_max   = %s
""" % (" with dynamic input lengths" if dynamic else "", text(PIPE_GROUP_IDS), table_rule,
       inputs, rows(bags_v, [4, 8], 16), text(bag_max_v), text(top_v), text(order),
       rows(groups_v, group_shape, 16))
    save(net, name + ".xml", comment)
    if not dynamic:
        write("inputs/pipeline_indices.npy", npy("i32", [n], PIPE_INDICES))
        write("inputs/pipeline_segment_ids.npy", npy("i32", [n], PIPE_SEGMENT_IDS))


# ------------------------------------------------------------------------------------------
# 5b. Models shaped like real ones: the four ops inside the glue that surrounds them in practice.
# Their expected outputs are computed with NumPy (the only section that needs it) and written
# as .npy files under expected/, next to the example inputs under inputs/.

def numpy_module():
    try:
        import numpy
    except ImportError:
        sys.exit("generate_models.py: the real-model section needs NumPy (apt-get install "
                 "python3-numpy)")
    return numpy


def npy_of(array):
    """A .npy file of a NumPy array of i32, i64 or f32."""
    etype = {"int32": "i32", "int64": "i64", "float32": "f32"}[str(array.dtype)]
    return npy(etype, list(array.shape), [v.item() for v in array.reshape(-1)])


def formula_table(np, rows, cols, seed, scale):
    """Deterministic f32 values: integers in [-16, 16] from a 64-bit LCG, times `scale` (a power
    of two, so exact in f32)."""
    state = seed
    values = []
    for _ in range(rows * cols):
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        values.append((state >> 33) % 33 - 16)
    return (np.array(values, dtype=np.float32) * np.float32(scale)).reshape(rows, cols)


def const_array(net, name, array):
    etype = {"int32": "i32", "int64": "i64", "float32": "f32"}[str(array.dtype)]
    return net.const(name, etype, list(array.shape), [v.item() for v in array.reshape(-1)])


def softmax(np, x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def assert_distinct_top(np, values, k, what):
    """The model's TopK must not hinge on rounding: its k-th and (k+1)-th values differ clearly."""
    ordered = np.sort(values, axis=-1)[..., ::-1]
    gaps = np.abs(ordered[..., :k] - ordered[..., 1:k + 1])
    assert (gaps > 1e-3 * np.abs(ordered[..., :k])).all(), what + ": near ties in the top k"


def retrieval_model():
    np = numpy_module()
    num_emb, emb_dim, hidden, items, bags, k = 64, 16, 24, 40, 4, 5
    table = formula_table(np, num_emb, emb_dim, 1, 0.125)
    w1 = formula_table(np, emb_dim, hidden, 2, 0.0625)
    b1 = (np.arange(hidden, dtype=np.float32) % 5 - 2) * np.float32(0.25)
    item_table = formula_table(np, items, hidden, 3, 0.015625)
    indices = np.array([3, 17, 42, 8, 8, 61, 5, 30, 12, 55, 0, 23, 47], dtype=np.int32)
    segment_ids = np.array([0, 0, 0, 1, 1, 1, 1, 2, 3, 3, 3, 3, 3], dtype=np.int32)

    # Reference, in f32 like the model: bags summed in index order.
    bag = np.zeros((bags, emb_dim), dtype=np.float32)
    for i, s in zip(indices, segment_ids):
        bag[s] += table[i]
    h = np.maximum(bag @ w1 + b1, np.float32(0))
    scores = h @ item_table.T
    probs = softmax(np, scores.astype(np.float64)).astype(np.float32)
    assert_distinct_top(np, probs, k, "retrieval")
    top_items = np.argsort(-probs, axis=-1, kind="stable")[:, :k].astype(np.int32)
    top_scores = np.take_along_axis(probs, top_items, axis=-1)

    net = Net("retrieval")
    p_indices = net.parameter("indices", "i32", "?")
    p_ids = net.parameter("segment_ids", "i32", "?")
    c_table = const_array(net, "item_history_table", table)
    c_num = net.const("num_queries", "i32", [], [bags])
    (bagged,) = net.op("queries", "EmbeddingSegmentsSum", "opset3", None,
                       [c_table, p_indices, p_ids, c_num], [("f32", [bags, emb_dim], "queries")])
    c_w1 = const_array(net, "dense_weights", w1)
    (dense,) = net.op("dense", "MatMul", "opset1",
                      [("transpose_a", "false"), ("transpose_b", "false")], [bagged, c_w1],
                      [("f32", [bags, hidden], "dense")])
    c_b1 = const_array(net, "dense_bias", b1)
    (biased,) = net.op("dense_bias_add", "Add", "opset1", [("auto_broadcast", "numpy")],
                       [dense, c_b1], [("f32", [bags, hidden], "dense_biased")])
    (relu,) = net.op("dense_relu", "ReLU", "opset1", None, [biased],
                     [("f32", [bags, hidden], "query_embedding")])
    c_items = const_array(net, "item_embeddings", item_table)
    (scores_p,) = net.op("scores", "MatMul", "opset1",
                         [("transpose_a", "false"), ("transpose_b", "true")], [relu, c_items],
                         [("f32", [bags, items], "scores")])
    (probs_p,) = net.op("probabilities", "Softmax", "opset8", [("axis", "-1")], [scores_p],
                        [("f32", [bags, items], "probabilities")])
    c_k = net.const("k", "i64", [], [k])
    top_v, top_i = net.op("top_items", "TopK", "opset11",
                          [("axis", "-1"), ("mode", "max"), ("sort", "value"),
                           ("stable", "false"), ("index_element_type", "i32")],
                          [probs_p, c_k], [("f32", [bags, k], "top_scores"),
                                           ("i32", [bags, k], "top_items")])
    net.result(top_v)
    net.result(top_i)
    comment = """
A retrieval model: each query is a bag of items a user saw, embedded and scored against %d items.
  queries       = EmbeddingSegmentsSum-3(item_history_table [%d,%d], indices, segment_ids,
                                         num_queries = %d)                  -> f32 [%d,%d]
  dense         = ReLU(MatMul(queries, dense_weights [%d,%d]) + dense_bias [%d])
  scores        = MatMul(dense, item_embeddings [%d,%d], transpose_b)      -> f32 [%d,%d]
  probabilities = Softmax-8(scores, axis -1)
  top_items     = TopK-11(probabilities, k = %d, axis -1, max, sort value) -> top_scores f32,
                                                                              top_items i32 [%d,%d]
Inputs (any length, equal for both; ids sorted, in [0, %d); indices in [0, %d)):
  indices      i32 [?]  example: inputs/retrieval_indices.npy = %s
  segment_ids  i32 [?]  example: inputs/retrieval_segment_ids.npy = %s
Expected outputs for the example (NumPy, f32): expected/retrieval/*.npy
  top_items  = %s
""" % (items, num_emb, emb_dim, bags, bags, emb_dim, emb_dim, hidden, hidden, items, hidden,
       bags, items, k, bags, k, bags, num_emb, text(indices.tolist()), text(segment_ids.tolist()),
       rows(top_items.reshape(-1).tolist(), [bags, k], 15))
    save(net, "retrieval.xml", comment)
    write("inputs/retrieval_indices.npy", npy_of(indices))
    write("inputs/retrieval_segment_ids.npy", npy_of(segment_ids))
    write("expected/retrieval/top_scores.npy", npy_of(top_scores))
    write("expected/retrieval/top_items.npy", npy_of(top_items))


def graph_pooling_model():
    np = numpy_module()
    features, hidden, graphs = 8, 16, 3
    weights = formula_table(np, features, hidden, 4, 0.125)
    nodes = formula_table(np, 10, features, 5, 0.25)
    graph_ids = np.array([0, 0, 0, 0, 2, 2, 2, 2, 2, 2], dtype=np.int32)

    h = np.maximum(nodes @ weights, np.float32(0))
    pooled = np.zeros((graphs, hidden), dtype=np.float32)  # an empty graph gets zeros
    for g in range(graphs):
        members = h[graph_ids == g]
        if len(members):
            pooled[g] = members.max(axis=0)

    net = Net("graph_pooling")
    p_nodes = net.parameter("node_features", "f32", "?,%d" % features)
    p_ids = net.parameter("graph_ids", "i32", "?")
    c_w = const_array(net, "node_weights", weights)
    (mm,) = net.op("node_transform", "MatMul", "opset1",
                   [("transpose_a", "false"), ("transpose_b", "false")], [p_nodes, c_w],
                   [("f32", [-1, hidden], "node_transform")])
    (relu,) = net.op("node_relu", "Relu", "opset1", None, [mm],
                     [("f32", [-1, hidden], "node_embedding")])
    c_num = net.const("num_graphs", "i32", [], [graphs])
    (pool,) = net.op("graph_pool", "SegmentMax", "opset16", [("fill_mode", "zero")],
                     [relu, p_ids, c_num], [("f32", [graphs, hidden], "graph_embedding")])
    net.result(pool)
    comment = """
Graph pooling: node features go through a dense layer, then SegmentMax pools each graph's nodes.
  node_embedding  = Relu(MatMul(node_features [?,%d], node_weights [%d,%d]))  -> f32 [?,%d]
  graph_embedding = SegmentMax-16(node_embedding, graph_ids, num_graphs = %d, fill_mode zero)
                                                                          -> f32 [%d,%d]
Inputs (graph ids sorted, one per node):
  node_features  f32 [?,%d]  example: inputs/graph_pooling_node_features.npy (10 nodes)
  graph_ids      i32 [?]    example: inputs/graph_pooling_graph_ids.npy = %s
                            (graph 1 has no node: its row is zeros)
Expected output for the example (NumPy, f32): expected/graph_pooling/graph_embedding.npy
""" % (features, features, hidden, hidden, graphs, graphs, hidden, features,
       text(graph_ids.tolist()))
    save(net, "graph_pooling.xml", comment)
    write("inputs/graph_pooling_node_features.npy", npy_of(nodes))
    write("inputs/graph_pooling_graph_ids.npy", npy_of(graph_ids))
    write("expected/graph_pooling/graph_embedding.npy", npy_of(pooled))


def dynamic_topk_model():
    np = numpy_module()
    limit = 5
    scores = np.array([0.5, -1.25, 3.0, 2.5, -0.75, 4.25, 1.0, 0.25, 3.5], dtype=np.float32)
    order = np.argsort(-scores, kind="stable")[:limit]

    net = Net("dynamic_topk")
    p = net.parameter("scores", "f32", "1..1000")
    (shape,) = net.op("length", "ShapeOf", "opset3", [("output_type", "i64")], [p],
                      [("i64", [1], "length")])
    c_limit = net.const("limit", "i64", [1], [limit])
    (both,) = net.op("length_and_limit", "Concat", "opset1", [("axis", "0")], [shape, c_limit],
                     [("i64", [2], "length_and_limit")])
    c_axis = net.const("axis", "i64", [], [0])
    (k,) = net.op("k", "ReduceMin", "opset1", [("keep_dims", "false")], [both, c_axis],
                  [("i64", [], "k")])
    top_v, top_i = net.op("best", "TopK", "opset11",
                          [("axis", "0"), ("mode", "max"), ("sort", "value"), ("stable", "true"),
                           ("index_element_type", "i64")],
                          [p, k], [("f32", [-1], "best_scores"), ("i64", [-1], "best_indices")])
    net.result(top_v)
    net.result(top_i)
    comment = """
TopK whose k is computed from the input's length: the best min(n, %d) of n scores.
  k    = ReduceMin-1(Concat(ShapeOf-3(scores), [%d]), axis 0)   -> i64 scalar
  best = TopK-11(scores, k, axis 0, max, sort value, stable)    -> best_scores f32 [1..%d],
                                                                    best_indices i64 [1..%d]
The loader propagates the bounds of k (1..%d) from the shape, so the outputs are [1..%d] before
any run (as in OpenVINO, only because the input's length is bounded: with [?] they would be [?]),
and the run gives min(n, %d) rows.
Input: scores f32 [1..1000]; example inputs/dynamic_topk_scores.npy = %s
Expected output for the example: best_scores = %s, best_indices = %s
""" % (limit, limit, limit, limit, limit, limit, limit, text(scores.tolist()),
       text(scores[order].tolist()), text(order.tolist()))
    save(net, "dynamic_topk.xml", comment)
    write("inputs/dynamic_topk_scores.npy", npy_of(scores))
    write("expected/dynamic_topk/best_scores.npy", npy_of(scores[order]))
    write("expected/dynamic_topk/best_indices.npy", npy_of(order.astype(np.int64)))


# ------------------------------------------------------------------------------------------
# 6. Element-type round trips and dynamic identities

CONST_VALUES = {
    "f16": [0.0, -0.0, 1.5, -2.25, 65504.0, 5.960464477539063e-08],
    "bf16": [0.0, 1.0, -2.5, 0.15625, 3.3895313892515355e38, -1.1754943508222875e-38],
    "f32": [0.0, -1.5, f32(3.14), 3.4028234663852886e38, 1.401298464324817e-45, f32(-1e-10)],
    "f64": [0.0, -1.5, math.pi, 1.7976931348623157e308, 5e-324, -1e-300],
    "i8": [-128, -1, 0, 1, 42, 127],
    "i16": [-32768, -1, 0, 1, 1234, 32767],
    "i32": [-2147483648, -1, 0, 1, 123456789, 2147483647],
    "i64": [-9223372036854775808, -1, 0, 1, 1234567890123, 9223372036854775807],
    "u8": [0, 1, 2, 128, 200, 255],
    "u16": [0, 1, 2, 32768, 50000, 65535],
    "u32": [0, 1, 2, 2147483648, 3000000000, 4294967295],
    "u64": [0, 1, 2, 9223372036854775808, 12345678901234567890, 18446744073709551615],
    "boolean": [True, False, True, True, False, False],
}


def type_models():
    for etype in TYPES:
        net = Net("identity_" + etype)
        x = net.parameter("x", etype, "2,3")
        net.result(x)
        save(net, "types/identity_%s.xml" % etype, """
Parameter -> Result round trip for element type %s (port precision %s), shape [2,3].
Expected output: the input, unchanged.
""" % (etype, TYPES[etype][0]))

        values = CONST_VALUES[etype]
        net = Net("const_" + etype)
        c = net.const("c", etype, [2, 3], values)
        net.result(c)
        save(net, "types/const_%s.xml" % etype, """
Const -> Result round trip for element type %s: the .bin holds %d little-endian bytes.
Expected output c: %s [2,3] = %s
""" % (etype, len(pack(etype, values)), etype, rows(values, [2, 3], 30)))

    net = Net("dynamic_identity")
    x = net.parameter("x", "f32", "?,3")
    net.result(x)
    save(net, "dynamic_identity.xml", """
Parameter -> Result with a dynamic first dimension: x is f32 [?,3]. Any [N,3] input is accepted
and returned unchanged.
""")

    net = Net("interval_identity")
    x = net.parameter("x", "f32", "2..8,3")
    net.result(x)
    save(net, "interval_identity.xml", """
Parameter -> Result with an interval dimension: x is f32 [2..8,3] (the port writes -1 for the
interval, as OpenVINO does; only the Parameter's shape keeps the bounds). Inputs [N,3] with
2 <= N <= 8 are accepted and returned unchanged; others are rejected.
""")


# ------------------------------------------------------------------------------------------
# 7. Invalid models: one problem each

# file, what is wrong, expected substring of the error message, expected error code
INVALID = []


def simple_topk(name, version="opset11", data=None, k_shape=(), k_values=(3,)):
    """Parameter f32 [2,10] -> TopK (k a Const) -> two Results; the TopK <data> is `data`."""
    net = Net(name)
    x = net.parameter("x", "f32", "2,10")
    k = net.const("k", "i64", list(k_shape), list(k_values))
    out_shape = [2, k_values[0] if not k_shape else -1]
    values, indices = net.op(
        "topk", "TopK", version,
        data or [("axis", "-1"), ("mode", "max"), ("sort", "value"), ("stable", "false"),
                 ("index_element_type", "i32")],
        [x, k], [("f32", out_shape, "values"), ("i32", out_shape, "indices")])
    net.result(values)
    net.result(indices)
    return net


def identity(name, result=True):
    """Parameter x f32 [2,3] -> Result, the base of most structural errors."""
    net = Net(name)
    x = net.parameter("x", "f32", "2,3")
    if result:
        net.result(x)
    return net, x


def save_invalid(net, path, what, substring, code, comment, edit=None, write_bin=True):
    """Writes a broken model; `edit` alters the XML text for problems the builder cannot make."""
    xml = net.xml("Broken on purpose: " + comment)
    if edit:
        edited = edit(xml)
        assert edited != xml, path
        xml = edited
    INVALID.append((path, what, substring, code))
    write("invalid/" + path, xml)
    if net.has_const and write_bin:
        write("invalid/" + path[:-4] + ".bin", bytes(net.weights))


def invalid_models():
    net, _ = identity("malformed_xml")
    save_invalid(net, "malformed_xml.xml", "XML not well formed: `</layer>` closes `<output>`",
                 "tags mismatch", "xml", "the XML is not well formed.",
                 lambda s: s.replace("\t\t\t</output>\n", "\t\t\t</layer>\n", 1))

    net, _ = identity("wrong_root")
    net.root = "model"
    save_invalid(net, "wrong_root.xml", "the root element is `<model>`, not `<net>`",
                 "root element is <model>", "format", "the root element is not <net>.")

    net, _ = identity("net_version_9")
    net.version = "9"
    save_invalid(net, "net_version_9.xml", "`<net version=\"9\">`: only IR versions 10 and 11 "
                 "are accepted", "IR version '9'", "format", "IR version 9.")

    net, _ = identity("missing_version")
    net.version = None
    save_invalid(net, "missing_version.xml", "`<net>` has no `version` attribute",
                 "no version attribute", "format", "<net> has no version attribute.")

    net, _ = identity("duplicate_layer_id")
    net.parameter("y", "f32", "2,3").layer.id = 1
    save_invalid(net, "duplicate_layer_id.xml", "Parameter `y` has id 1, the id of the Result",
                 "duplicate layer id 1", "graph", "the Parameter y reuses id 1 of the Result.")

    net, _ = identity("edge_missing_layer")
    net.edges.append((0, 0, 7, 0))
    save_invalid(net, "edge_missing_layer.xml", "an extra edge goes to layer 7, which does not "
                 "exist", "which does not exist", "graph",
                 "an edge leads to layer 7, which does not exist.")

    net, _ = identity("edge_missing_port")
    net.edges.append((0, 0, 1, 5))
    save_invalid(net, "edge_missing_port.xml", "an extra edge goes to input port 5 of the "
                 "Result, which has only port 0", "which the layer does not have", "graph",
                 "an edge leads to input port 5 of the Result, which has only port 0.")

    net, _ = identity("port_fed_twice")
    y = net.parameter("y", "f32", "2,3")
    net.edges.append((y.layer.id, 0, 1, 0))
    save_invalid(net, "port_fed_twice.xml", "input port 0 of the Result has two incoming edges "
                 "(from x and from y)", "fed twice", "graph",
                 "the Result's input port is fed by both x and y.")

    net = Net("unfed_input_port")
    x = net.parameter("x", "f32", "2,3")
    axes = net.const("axes", "i64", [1], [1])
    (out,) = net.op("reduce", "ReduceMax", "opset1", [("keep_dims", "true")], [x, axes],
                    [("f32", [2, 1], "reduce")])
    net.result(out)
    net.edges = [e for e in net.edges if e[0] != axes.layer.id]
    save_invalid(net, "unfed_input_port.xml", "input port 1 (axes) of the ReduceMax has no "
                 "incoming edge", "not fed by any edge", "graph",
                 "input port 1 of ReduceMax is never fed.")

    net = Net("cycle")
    x = net.parameter("x", "f32", "2,3")
    axes = net.const("axes", "i64", [1], [1])
    (a,) = net.op("reduce_a", "ReduceMax", "opset1", [("keep_dims", "true")], [x, axes],
                  [("f32", [2, 1], "reduce_a")])
    (b,) = net.op("reduce_b", "ReduceMax", "opset1", [("keep_dims", "true")], [a, axes],
                  [("f32", [2, 1], "reduce_b")])
    net.result(b)
    # reduce_a takes its data from reduce_b instead of x: reduce_a -> reduce_b -> reduce_a.
    net.edges = [e for e in net.edges if e[0] != x.layer.id] + [(b.layer.id, 2, a.layer.id, 0)]
    save_invalid(net, "cycle.xml", "reduce_a and reduce_b feed each other", "cycle", "graph",
                 "reduce_a and reduce_b feed each other.")

    net = Net("missing_bin")
    net.result(net.const("c", "f32", [2, 3], [1, 2, 3, 4, 5, 6]))
    save_invalid(net, "missing_bin.xml", "a Const needs `missing_bin.bin`, which does not exist",
                 "no weights file", "io", "a Const needs missing_bin.bin, which does not exist.",
                 write_bin=False)

    net = Net("const_outside_bin")
    net.result(net.const("c", "f32", [2, 3], [1, 2, 3, 4, 5, 6]))
    save_invalid(net, "const_outside_bin.xml", "the Const reads bytes 16..40 of a 24-byte .bin",
                 "needs bytes [16, 40)", "weights",
                 "the Const reads bytes 16..40 of a 24-byte .bin.",
                 lambda s: s.replace('offset="0"', 'offset="16"'))

    net = Net("const_size_mismatch")
    net.result(net.const("c", "f32", [2, 3], [1, 2, 3, 4, 5, 6]))
    save_invalid(net, "const_size_mismatch.xml", "a [2,3] f32 Const needs 24 bytes; its `size` "
                 "is 16", "too small", "weights", "a [2,3] f32 Const needs 24 bytes; size says 16.",
                 lambda s: s.replace('size="24"', 'size="16"'))

    net, x = identity("unknown_op_type", result=False)
    (out,) = net.op("frob", "Frobnicate", "opset1", None, [x], [("f32", [2, 3], "frob")])
    net.result(out)
    save_invalid(net, "unknown_op_type.xml", "layer type `Frobnicate` is in no opset",
                 "unsupported op type", "unsupported", "op type Frobnicate does not exist.")

    save_invalid(simple_topk("unknown_opset_topk", version="opset0"), "unknown_opset_topk.xml",
                 "TopK with `version=\"opset0\"`, an opset that does not exist",
                 "unsupported version", "unsupported", "TopK from opset0, which does not exist.")

    net = Net("segment_max_opset15")
    data = net.parameter("data", "f32", "4,2")
    ids = net.const("segment_ids", "i32", [4], [0, 0, 1, 1])
    (out,) = net.op("segment_max", "SegmentMax", "opset15", [("fill_mode", "zero")],
                    [data, ids], [("f32", [2, 2], "segment_max")])
    net.result(out)
    save_invalid(net, "segment_max_opset15.xml", "SegmentMax with `version=\"opset15\"`; it is "
                 "new in opset16", "not in opset15", "unsupported",
                 "SegmentMax is not in opset15 (it is new in opset16).")

    net, _ = identity("unknown_element_type")
    save_invalid(net, "unknown_element_type.xml", "Parameter `element_type=\"float32\"` (the IR "
                 "spells it f32)", "unknown element type", "format",
                 "element type float32 does not exist (the IR spells it f32).",
                 lambda s: s.replace('element_type="f32"', 'element_type="float32"'))

    net = Net("shape_overflow")
    net.result(net.const("c", "f32", [2, 3], [1, 2, 3, 4, 5, 6]))
    save_invalid(net, "shape_overflow.xml", "Const shape 4294967296 x 4294967296: the element "
                 "count overflows int64", "element count overflows", "format",
                 "the Const's element count 2^64 overflows.",
                 lambda s: s.replace('shape="2, 3"', 'shape="4294967296, 4294967296"'))

    attrs = [("axis", "-1"), ("mode", "max"), ("sort", "value"), ("stable", "false"),
             ("index_element_type", "i32")]

    def topk_attrs(**changes):
        out = [(k, changes.get(k, v)) for k, v in attrs if changes.get(k, v) is not None]
        return out

    save_invalid(simple_topk("non_integer_attribute", data=topk_attrs(axis="1x")),
                 "non_integer_attribute.xml", "TopK `axis=\"1x\"`", "not an integer", "format",
                 "TopK axis=\"1x\" is not an integer.")
    save_invalid(simple_topk("unknown_enum", data=topk_attrs(mode="maximum")),
                 "unknown_enum.xml", "TopK `mode=\"maximum\"` (max or min)", "expected one of",
                 "format", "TopK mode=\"maximum\" is neither max nor min.")
    save_invalid(simple_topk("missing_attribute", data=topk_attrs(mode=None)),
                 "missing_attribute.xml", "TopK has no `mode`, a required attribute",
                 "missing required attribute", "format", "TopK without its required mode.")
    save_invalid(simple_topk("stable_sort_none", data=topk_attrs(sort="none", stable="true")),
                 "stable_sort_none.xml", "TopK-11 `stable=\"true\"` with `sort=\"none\"`",
                 "stable TopK needs sort", "format",
                 "TopK-11 stable=\"true\" needs sort value or index.")
    save_invalid(simple_topk("k_not_scalar", k_shape=(2,), k_values=(3, 4)), "k_not_scalar.xml",
                 "TopK's k is a Const of shape [2]", "k must be a scalar", "shape",
                 "TopK's k has shape [2]; it must be a scalar.")

    net, _ = identity("no_result", result=False)
    save_invalid(net, "no_result.xml", "the model has no Result layer", "no Result layer", "graph",
                 "the model has no Result layer.")

    # Problems in values. The values are Consts, so irlite may report them while loading;
    # otherwise running the model must fail.
    save_invalid(simple_topk("k_exceeds_dimension", k_values=(12,)), "k_exceeds_dimension.xml",
                 "TopK k = 12 on an axis of extent 10", "k (12) exceeds", "value",
                 "k = 12 but the axis has 10 elements.")

    net = Net("index_out_of_range")
    table = net.const("emb_table", "f32", [5, 2], EMB_TABLE)
    ind = net.const("indices", "i32", [4], [0, 2, 7, 4])
    seg = net.const("segment_ids", "i32", [4], [0, 0, 2, 2])
    num = net.const("num_segments", "i32", [], [3])
    (out,) = net.op("embedding_segments_sum", "EmbeddingSegmentsSum", "opset3", None,
                    [table, ind, seg, num], [("f32", [3, 2], "embedding_segments_sum")])
    net.result(out)
    save_invalid(net, "index_out_of_range.xml", "EmbeddingSegmentsSum index 7 into a 5-row "
                 "emb_table", "= 7 is out of", "value", "indices holds 7 but emb_table has 5 rows.")

    net = Net("negative_segment_id")
    data = net.parameter("data", "f32", "4,2")
    ids = net.const("segment_ids", "i32", [4], [-1, 0, 1, 1])
    num = net.const("num_segments", "i32", [], [2])
    (out,) = net.op("segment_max", "SegmentMax", "opset16", [("fill_mode", "zero")],
                    [data, ids, num], [("f32", [2, 2], "segment_max")])
    net.result(out)
    save_invalid(net, "negative_segment_id.xml", "SegmentMax segment id -1", "-1 is negative",
                 "value", "segment_ids holds -1.")


def invalid_docs():
    lines = ["# Each broken model and a substring its error message must contain, then the",
             "# ErrorCode it must carry. Written by models/generate_models.py (edit the calls to",
             "# save_invalid() there and run it again); read by tests/models_test.cpp.",
             "# file<TAB>substring<TAB>code"]
    lines += ["%s\t%s\t%s" % (f, s, c) for f, _, s, c in INVALID]
    write("invalid/expected.txt", "\n".join(lines) + "\n")
    readme = ["# Broken models", "",
              "Each file here has exactly one problem; irlite must refuse it with an",
              "`irlite::Error` (never a crash). Most fail in `Model::load`; the last three can",
              "only be caught once values are known, so they may fail in `Session::run` instead",
              "(irlite reports them at load time when the values are Consts).", "",
              "`expected.txt` lists, per file, a substring the error message must contain and",
              "the `ErrorCode`; `tests/models_test.cpp` checks both. The files and this table",
              "are written by `../generate_models.py`.", "",
              "| file | what is wrong | message contains | code |",
              "| --- | --- | --- | --- |"]
    readme += ["| `%s` | %s | `%s` | %s |" % (f, w.replace("|", "\\|"), s, c)
               for f, w, s, c in INVALID]
    write("invalid/README.md", "\n".join(readme) + "\n")


def clean():
    """Removes the files a previous run wrote, so that renamed models leave nothing behind."""
    for sub in ("", "types", "invalid", "inputs", "expected/retrieval", "expected/graph_pooling",
                "expected/dynamic_topk"):
        folder = os.path.join(HERE, sub)
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            if name.endswith((".xml", ".bin", ".npy")) or (sub == "invalid" and name in (
                    "README.md", "expected.txt")):
                os.remove(os.path.join(folder, name))


def main():
    numpy_module()  # before clean(): without NumPy the models stay as they are
    clean()
    segment_max_examples()
    reduce_max_examples()
    embedding_segments_sum_example()
    topk_examples()
    pipeline(False)
    pipeline(True)
    retrieval_model()
    graph_pooling_model()
    dynamic_topk_model()
    type_models()
    invalid_models()
    invalid_docs()
    print("wrote %d files" % len(WRITTEN), file=sys.stderr)


if __name__ == "__main__":
    main()

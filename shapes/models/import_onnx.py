#!/usr/bin/python3
"""Imports any ONNX model's graph as an opmark model table (shapes/models/<model>.yaml), Benanza style.

    /usr/bin/python3 shapes/models/import_onnx.py MODEL.onnx [--out TABLE.yaml] [--name NAME] [--area AREA]
                                                  [--task TASK] [--inputs B=8,L=128] [--symbols batch_size=B,...]

Runs without a GPU and without PyTorch, on the `onnx` package (Debian's python3-onnx). Each node of the graph, in
its order, becomes the call of an opmark case through the same mapping the tracer applies to PyTorch's operators
(op_mapping.py): Conv, Gemm and MatMul, BatchNormalization, the element-wise ops and activations, Softmax,
LayerNormalization, the reductions, pooling, Gather, Transpose, Concat, Cast, and the attention pattern
(MatMul, an optional scale and mask, Softmax, MatMul) as one attention case (in the bshd layout where Transposes
bring Q, K and V from the tokens-outer order and O back to it: no copies, as PyTorch runs it; where
nn.MultiheadAttention's export splits a packed projection by Gathers and head Transposes, those are no calls and its
stacking Transpose stands for the one split kernel PyTorch's fused path runs), GELU spelled out
with Erf as one gelu call, a MatMul by a weight and the Add of its bias as the GEMM alone (PyTorch's addmm adds it in
cuBLASLt's epilogue, as ONNX's Gemm carries it), and LSTM, GRU and RNN as one layer of the rnn family each. A node
no family takes is kept as family `other` with its op type, so coverage is never hidden; nodes that only reshape
(Reshape, Flatten, Squeeze, Unsqueeze, Shape, Constant, Identity, Slice, Split) launch nothing in PyTorch and are
left out. Identical layers are one row with their count of calls.

The graph's dynamic input dimensions (dim_param) are the table's symbols: batch-like names become B, sequence-like
names L, others their own name in capitals (--symbols renames them). Shapes are fitted as expressions over the
symbols, as the tracer fits them: the graph is shape-inferred at the default inputs, again with each symbol
doubled, and checked at three times the inputs; a field no expression reproduces keeps its value at the defaults
and is counted in the header. `opmark-bench --opmark_models=TABLE.yaml` runs the table's unique cases and
`--opmark_inputs=B=16` sizes it.

--measured FILE adds the model's real time on a GPU to the table (its `measured:` entry, what `opmark-aggregate
scores` holds the bounds against) and the header lines on its kernel time: export_onnx.py --measure writes FILE.
A table imported again keeps the measured entries of the other GPUs and precisions it had.
"""
import argparse
import collections
import datetime
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import extract_models as em  # noqa: E402  (imports no torch)
import measured_entries  # noqa: E402
import onnx_fold  # noqa: E402
import op_mapping as om  # noqa: E402
from op_mapping import Record, TensorInfo  # noqa: E402

# Default sizes of the symbols a graph's dynamic dimensions become.
DEFAULT_SIZES = {"B": 8, "L": 128}
OTHER_DEFAULT_SIZE = 64

# ONNX element types -> the dtype names the mapping compares (bool and uint8 masks matter to Gather).
DTYPES = {1: "float32", 2: "uint8", 3: "int8", 5: "int16", 6: "int32", 7: "int64", 9: "bool", 10: "float16",
          11: "float64", 16: "bfloat16"}

# Nodes that only reinterpret, describe or slice a tensor: PyTorch runs them as views, no kernel.
VIEW_NODES = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Shape", "Constant", "Identity", "Slice", "Split",
              "Size", "Dropout"}
# ONNX op -> the aten operator op_mapping knows with the same bytes.
ACTIVATIONS = {"Relu": "relu", "Gelu": "gelu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Clip": "clamp",
               "LeakyRelu": "leaky_relu", "HardSigmoid": "clamp", "HardSwish": "clamp", "Elu": "clamp", "Selu": "clamp"}
BINARY = {"Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "Pow": "pow", "Min": "minimum",
          "Max": "maximum", "Equal": "eq", "Less": "lt", "Greater": "gt", "LessOrEqual": "le", "GreaterOrEqual": "ge",
          "And": "logical_and", "Or": "logical_or", "Mod": "fmod"}
UNARY = {"Neg": "neg", "Sqrt": "sqrt", "Exp": "exp", "Log": "log", "Reciprocal": "reciprocal", "Abs": "abs",
         "Erf": "erf", "Cos": "cos", "Sin": "sin", "Floor": "floor", "Ceil": "ceil", "Round": "round",
         "Not": "logical_not", "Sign": "sign", "IsNaN": "isnan", "IsInf": "isinf", "Softplus": "exp", "Mish": "exp"}
REDUCTIONS = {"ReduceMean": "mean", "ReduceSum": "sum", "ReduceMax": "amax"}
KNOWN = set(ACTIVATIONS) | set(BINARY) | set(UNARY) | set(REDUCTIONS) | {
    "Conv", "ConvTranspose", "Gemm", "MatMul", "Softmax", "LogSoftmax", "LayerNormalization", "BatchNormalization",
    "MaxPool", "AveragePool", "GlobalAveragePool", "Gather", "Transpose", "Concat", "Pad", "Expand", "Tile", "Cast",
    "Where", "Trilu", "LSTM", "GRU", "RNN"}
SYMBOL_NAME = re.compile(r"[^A-Za-z0-9_]")


def symbol_for(dim_param):
    """The table's symbol for a dynamic dimension's name: B for a batch, L for a sequence, else its own name."""
    low = dim_param.lower()
    if "batch" in low or low in ("n", "b", "bs"):
        return "B"
    if any(w in low for w in ("seq", "sequence", "length", "len", "token", "time")) or low in ("l", "s", "t"):
        return "L"
    name = SYMBOL_NAME.sub("_", dim_param).upper().strip("_") or "D"
    return name if name[0].isalpha() else "D" + name


def dynamic_dims(model, renames):
    """{dim_param: symbol} over the graph's inputs (initializers are no inputs)."""
    weights = {t.name for t in model.graph.initializer}
    out = {}
    for value in model.graph.input:
        if value.name in weights:
            continue
        for d in value.type.tensor_type.shape.dim:
            if d.dim_param and d.dim_param not in out:
                out[d.dim_param] = renames.get(d.dim_param, symbol_for(d.dim_param))
    return out


def with_sizes(model, dims, sizes):
    """A copy of `model` whose dynamic input dimensions have the sizes of their symbols, its shape arithmetic folded
    (onnx_fold) and shapes inferred."""
    import onnx
    m = onnx.ModelProto()
    m.CopyFrom(model)
    weights = {t.name for t in m.graph.initializer}
    for value in m.graph.input:
        if value.name in weights:
            continue
        for d in value.type.tensor_type.shape.dim:
            if d.dim_param:
                size = sizes[dims[d.dim_param]]
                d.Clear()
                d.dim_value = size
    del m.graph.value_info[:]
    for value in m.graph.output:
        value.type.tensor_type.ClearField("shape")
    return onnx_fold.fold(m, lambda x: onnx.shape_inference.infer_shapes(x, data_prop=True))


def tensor_infos(model):
    """{name: TensorInfo} of every value whose shape inference knows every dimension."""
    infos = {}
    for t in model.graph.initializer:
        infos[t.name] = TensorInfo(tuple(t.dims), dtype=DTYPES.get(t.data_type, "float32"))
    for value in list(model.graph.input) + list(model.graph.value_info) + list(model.graph.output):
        tt = value.type.tensor_type
        if not tt.HasField("shape"):
            continue
        dims = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else None for d in tt.shape.dim]
        if None in dims:
            continue
        infos[value.name] = TensorInfo(tuple(dims), dtype=DTYPES.get(tt.elem_type, "float32"))
    return infos


def attributes(node):
    import onnx
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def conv_padding(x, w, attrs, spatial):
    """ONNX's pads (begins, then ends) or auto_pad as PyTorch's symmetric padding; None where they differ."""
    kernel = list(w.shape[2:])
    stride = list(attrs.get("strides", [1] * spatial))
    dilation = list(attrs.get("dilations", [1] * spatial))
    auto = attrs.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = []
        for i in range(spatial):
            size = x.shape[2 + i]
            total = max((-(-size // stride[i]) - 1) * stride[i] + (kernel[i] - 1) * dilation[i] + 1 - size, 0)
            if total % 2:
                return None
            pads.append(total // 2)
        return stride, pads, dilation
    pads = list(attrs.get("pads", [0] * 2 * spatial))
    if pads[:spatial] != pads[spatial:]:
        return None
    return stride, pads[:spatial], dilation


def transposed_view(t):
    """The view t^T of a stored 2-D operand (ONNX Gemm's transA/transB): shape swapped, strides swapped."""
    return TensorInfo((t.shape[1], t.shape[0]), (t.strides[1], t.strides[0]), t.dtype)


def matmul_record(a, b):
    """MatMul as PyTorch's matmul runs it: a 2-D product, batched where both operands carry the batch, or the
    batch folded into the rows where the right operand is a matrix (a linear layer)."""
    if a.dim() >= 2 and b.dim() == 2:
        rows = a.numel() // a.shape[-1]
        return om.map_call("mm", [TensorInfo((rows, a.shape[-1]), dtype=a.dtype), b])
    if a.dim() >= 3 and b.dim() == a.dim() and a.shape[:-2] == b.shape[:-2]:
        batch = a.numel() // (a.shape[-2] * a.shape[-1])
        a3 = TensorInfo((batch,) + a.shape[-2:], dtype=a.dtype)
        b3 = TensorInfo((batch,) + b.shape[-2:], dtype=b.dtype)
        return om.map_call("bmm", [a3, b3])
    return Record("other", "onnx::MatMul (broadcast batch)")


def rnn_record(op, x, attrs):
    """One ONNX recurrent node: one layer of cuDNN's RNN (a stack is several nodes), its input projected (linear)."""
    text = lambda v: v.decode() if isinstance(v, bytes) else v  # noqa: E731
    direction = text(attrs.get("direction", "forward"))
    if direction == "reverse" or x.dim() != 3:
        return Record("other", f"onnx::{op} ({direction})")
    if op == "RNN":
        activations = [text(a).lower() for a in attrs.get("activations", [b"Tanh"])]
        if activations[0] not in ("tanh", "relu"):
            return Record("other", f"onnx::RNN ({activations[0]})")
        cell = "rnn_" + activations[0]
    else:
        cell = op.lower()
    steps, batch = (x.shape[1], x.shape[0]) if attrs.get("layout", 0) else (x.shape[0], x.shape[1])
    return Record("rnn", f"onnx::{op}", {"cell": cell, "hidden": attrs["hidden_size"], "batch": batch,
                                         "steps": steps, "input": x.shape[2], "layers": 1,
                                         "bidir": "yes" if direction == "bidirectional" else "no",
                                         "input_mode": "linear"})


def node_record(node, infos):
    """The opmark case of one node (a Record), None for a node that launches nothing."""
    op = node.op_type
    source = f"onnx::{op}"
    if op in VIEW_NODES:
        return None
    ins = [infos.get(n) if n else None for n in node.input]
    out = infos.get(node.output[0]) if node.output else None
    x = ins[0] if ins else None
    attrs = attributes(node)
    if op not in KNOWN:
        return Record("other", source)
    if x is None or out is None:
        return Record("other", source + " (shape unknown)")
    if op in ("Conv", "ConvTranspose") and len(ins) >= 2 and ins[1] is not None:
        padding = conv_padding(x, ins[1], attrs, x.dim() - 2)
        if padding is None:
            return Record("other", source + " (asymmetric padding)")
        stride, pads, dilation = padding
        rec = om.map_call("convolution", [x, ins[1], None, stride, pads, dilation, op == "ConvTranspose", [0],
                                          attrs.get("group", 1)], out=out)
    elif op == "Gemm":
        a = transposed_view(x) if attrs.get("transA", 0) else x
        b = transposed_view(ins[1]) if attrs.get("transB", 0) else ins[1]
        rec = om.map_call("mm", [a, b])
    elif op == "MatMul":
        rec = matmul_record(x, ins[1])
    elif op in ACTIVATIONS:
        rec = om.map_call(ACTIVATIONS[op], [x], out=out)
    elif op in BINARY and len(ins) >= 2 and ins[1] is not None:
        rec = om.map_call(BINARY[op], [x, ins[1]], out=out)
    elif op in UNARY:
        rec = om.map_call(UNARY[op], [x], out=out)
    elif op in ("Softmax", "LogSoftmax"):
        axis = attrs.get("axis", -1)
        rec = om.map_call("_log_softmax" if op == "LogSoftmax" else "_softmax", [x, axis, False], out=out)
    elif op == "LayerNormalization":
        axis = attrs.get("axis", -1) % x.dim()
        rec = om.map_call("native_layer_norm", [x, list(x.shape[axis:]), ins[1], ins[2] if len(ins) > 2 else x,
                                                attrs.get("epsilon", 1e-5)], out=out)
    elif op == "BatchNormalization":
        rec = om.map_call("_native_batch_norm_legit_no_training", [x] + ins[1:5] + [0.1, 1e-5], out=out)
    elif op in ("MaxPool", "AveragePool") and x.dim() == 4:
        kernel = list(attrs.get("kernel_shape", [1, 1]))
        padding = conv_padding(x, TensorInfo((1, 1) + tuple(kernel)), attrs, 2)
        ceil_mode = bool(attrs.get("ceil_mode", 0))
        if padding is None or (ceil_mode and op != "MaxPool"):
            return Record("other", source + " (asymmetric padding or ceil mode)")
        stride, pads, dilation = padding
        count_pad = bool(attrs.get("count_include_pad", 0)) or not any(pads)  # PyTorch's default counts the pads
        rec = om.map_call("max_pool2d" if op == "MaxPool" else "avg_pool2d",
                          [x, kernel, stride, pads] + ([dilation, ceil_mode] if op == "MaxPool" else
                                                       [False, count_pad]), out=out)
    elif op == "GlobalAveragePool" and x.dim() == 4:
        rec = om.map_call("adaptive_avg_pool2d", [x, [1, 1]], out=out)
    elif op in REDUCTIONS:
        axes = attrs.get("axes")
        if axes is None and len(ins) > 1 and ins[1] is not None:
            return Record("other", source + " (axes given as a tensor)")
        rec = om.map_call(REDUCTIONS[op], [x, list(axes) if axes is not None else [], bool(attrs.get("keepdims", 1))],
                          out=out)
    elif op == "Gather" and len(ins) >= 2 and ins[1] is not None:
        axis = attrs.get("axis", 0)
        if axis != 0:
            return Record("other", source + f" (axis {axis})")
        if x.dim() == 2:
            rec = om.map_call("embedding", [x, ins[1]], out=out)
        else:
            rec = om.map_call("index_select", [x, 0, ins[1]], out=out)
    elif op == "Transpose":
        perm = list(attrs.get("perm", reversed(range(x.dim()))))
        view = TensorInfo(tuple(x.shape[p] for p in perm), tuple(x.strides[p] for p in perm), x.dtype)
        rec = om.copy_record(source, view, out)
    elif op in ("Concat", "Pad", "Expand", "Tile"):
        rec = om.map_call({"Concat": "cat", "Pad": "constant_pad_nd"}.get(op, "repeat"), [x], out=out)
    elif op == "Cast":
        rec = om.map_call("_to_copy", [x], out=out)
    elif op in ("LSTM", "GRU", "RNN"):
        rec = rnn_record(op, x, attrs)
    elif op in ("Where", "Trilu"):
        rec = om.map_call("where" if op == "Where" else "triu", [x], out=out)
    else:
        return Record("other", source)
    if rec is None:
        return None
    rec.source_op = source
    return rec


def producers(graph):
    """{value name: the index of the node that writes it}."""
    return {out: i for i, node in enumerate(graph.node) for out in node.output}


def consumers(graph):
    used = collections.defaultdict(list)
    for i, node in enumerate(graph.node):
        for name in node.input:
            used[name].append(i)
    return used


def softmax_guard(graph, used, name):
    """(the nodes, the value) after a softmax's output `name` that only guard or convert it: a Cast, or torch's
    exported `where(isnan(p), 0, p)`."""
    nodes = []
    while True:
        nxt = used.get(name, [])
        kinds = sorted(graph.node[j].op_type for j in nxt)
        if kinds == ["Cast"]:
            nodes.append(nxt[0])
            name = graph.node[nxt[0]].output[0]
        elif kinds == ["IsNaN", "Where"]:
            isnan, where = sorted(nxt, key=lambda j: graph.node[j].op_type)
            if graph.node[isnan].output[0] not in graph.node[where].input:
                return nodes, name
            nodes += [isnan, where]
            name = graph.node[where].output[0]
        else:
            return nodes, name


def scaled_operand(graph, producer, used, weights, name):
    """(the scale node or None, the operand): torch's exported attention scales Q and K^T each by a constant
    before their product."""
    j = producer.get(name)
    if j is None or graph.node[j].op_type not in ("Mul", "Div") or len(used.get(name, [])) != 1:
        return None, name
    data = [n for n in graph.node[j].input if n not in weights]
    return (j, data[0]) if len(data) == 1 else (None, name)


def constant_names(graph):
    """The values fixed in the graph: its initializers and Constant nodes' outputs."""
    return {t.name for t in graph.initializer} | {n.output[0] for n in graph.node if n.op_type == "Constant"}


def scalar_value(graph, name):
    """A one-element constant's value, None where it is not one or its data is not in the graph."""
    import numpy as np
    from onnx import numpy_helper
    tensors = [t for t in graph.initializer if t.name == name]
    tensors += [a.t for n in graph.node if n.op_type == "Constant" and n.output[0] == name
                for a in n.attribute if a.name == "value"]
    try:
        values = numpy_helper.to_array(tensors[0]) if tensors else None
    except Exception:  # external data left out of a weightless graph
        return None
    return float(np.asarray(values).reshape(-1)[0]) if values is not None and np.size(values) == 1 else None


def gelu_groups(graph, infos):
    """{index of the last node: (the nodes, its Record)}: GELU as exporters spell it out, x * 0.5 * (1 + erf(x /
    sqrt(2))) in five nodes (Div or Mul, Erf, Add, then Mul by x and Mul by 0.5 in either order), which PyTorch runs
    as one gelu kernel: one gelu call."""
    producer = producers(graph)
    fixed = constant_names(graph)
    used = consumers(graph)

    def sole_use(name, op):
        nxt = used.get(name, [])
        return nxt[0] if len(nxt) == 1 and graph.node[nxt[0]].op_type == op else None

    def other_input(node, name):
        rest = [n for n in node.input if n != name]
        return rest[0] if len(rest) == 1 else None

    def near(name, want):  # a constant of this value, or one whose value the graph does not hold
        value = scalar_value(graph, name)
        return name in fixed and (value is None or abs(value - want) < 1e-3 * abs(want))

    groups = {}
    for i, erf in enumerate(graph.node):
        if erf.op_type != "Erf" or erf.input[0] not in producer or len(used.get(erf.input[0], [])) != 1:
            continue
        scale = producer[erf.input[0]]
        x, c = graph.node[scale].input[0], graph.node[scale].input[-1]
        if not ((graph.node[scale].op_type == "Div" and near(c, 2 ** 0.5)) or
                (graph.node[scale].op_type == "Mul" and near(c, 2 ** -0.5))):
            continue
        add = sole_use(erf.output[0], "Add")
        if add is None or not near(other_input(graph.node[add], erf.output[0]), 1.0):
            continue
        one_plus = graph.node[add].output[0]
        mul = sole_use(one_plus, "Mul")
        if mul is None:
            continue
        factor = other_input(graph.node[mul], one_plus)
        if factor == x:  # (x * (1 + erf)) * 0.5
            half = sole_use(graph.node[mul].output[0], "Mul")
            if half is None or not near(other_input(graph.node[half], graph.node[mul].output[0]), 0.5):
                continue
            nodes, last = {scale, i, add, mul, half}, half
        else:  # (x * 0.5) * (1 + erf)
            h = producer.get(factor)
            if (h is None or graph.node[h].op_type != "Mul" or x not in graph.node[h].input or
                    not near(other_input(graph.node[h], x), 0.5) or len(used.get(factor, [])) != 1):
                continue
            nodes, last = {scale, i, add, h, mul}, mul
        xi, out = infos.get(x), infos.get(graph.node[last].output[0])
        rec = om.map_call("gelu", [xi], out=out) if xi is not None and out is not None else None
        if rec is not None:
            rec.source_op = "onnx::Div+Erf+Add+Mul+Mul (gelu)"
            groups[last] = (nodes, rec)
    return groups


def bias_groups(graph, infos):
    """{index of the Add: (the MatMul and the Add, the MatMul's Record)}: a linear layer's product by a weight and
    the add of a bias vector along its last axis, which PyTorch's addmm has cuBLASLt add in the GEMM's epilogue (no
    kernel of its own; ONNX's Gemm carries its bias the same way): the GEMM's call, timed without the bias."""
    producer = producers(graph)
    weights = {t.name: tuple(t.dims) for t in graph.initializer}
    used = consumers(graph)
    groups = {}
    for i, node in enumerate(graph.node):
        if node.op_type != "Add" or len(node.input) != 2:
            continue
        for product, bias in (node.input, reversed(node.input)):
            j = producer.get(product)
            if (j is None or graph.node[j].op_type != "MatMul" or len(used.get(product, [])) != 1 or
                    len(weights.get(graph.node[j].input[1], ())) != 2 or len(weights.get(bias, ())) != 1):
                continue
            x, w = (infos.get(n) for n in graph.node[j].input)
            if x is None or w is None or weights[bias][0] != w.shape[1]:
                continue
            rec = matmul_record(x, w)
            if rec is None or rec.family != "gemm":
                continue
            rec.source_op = "onnx::MatMul+Add (the bias in the GEMM's epilogue)"
            groups[i] = ({j, i}, rec)
            break
    return groups


def data_readers(graph, used, name):
    """The nodes that read `name`'s data (a Shape node reads none)."""
    return [j for j in used.get(name, []) if graph.node[j].op_type != "Shape"]


def viewed_value(graph, producer, used, name, views=("Reshape",)):
    """The value that a chain of `views` nodes, each read alone, makes `name` a view of."""
    while (name in producer and graph.node[producer[name]].op_type in views and
           len(data_readers(graph, used, name)) == 1):
        name = graph.node[producer[name]].input[0]
    return name


def bshd_transposes(graph, producer, used, q, kt, v, out):
    """The Transpose nodes that take Q, K^T and V from the (batch, tokens, heads, dim) order of a fused projection
    and O back to it, each read by the attention alone: a fused attention kernel reads and writes that order itself
    (its bshd layout), as PyTorch's does through strided views. Empty unless all four are there."""
    def readers(name):
        return data_readers(graph, used, name)

    def past_reshapes(name):
        return viewed_value(graph, producer, used, name)

    def transpose(name, *perms):
        j = producer.get(name)
        if (j is None or graph.node[j].op_type != "Transpose" or len(readers(name)) != 1 or
                list(attributes(graph.node[j]).get("perm", [])) not in [list(p) for p in perms]):
            return None
        return j
    k_side = transpose(kt, [0, 2, 3, 1])
    if k_side is None:  # K to (b, h, s, d), then its last two axes swapped (the dynamo exporter: on a 3-D view)
        swap = transpose(past_reshapes(kt), [0, 1, 3, 2], [0, 2, 1])
        inner = transpose(past_reshapes(graph.node[swap].input[0]), [0, 2, 1, 3]) if swap is not None else None
        k_side = [swap, inner] if inner is not None else None
    nxt = readers(out)
    o_side = nxt[0] if (len(nxt) == 1 and graph.node[nxt[0]].op_type == "Transpose" and
                        list(attributes(graph.node[nxt[0]]).get("perm", [])) == [0, 2, 1, 3]) else None
    found = [transpose(q, [0, 2, 1, 3]), k_side, transpose(v, [0, 2, 1, 3]), o_side]
    if any(j is None for j in found):
        return []
    return [j for part in found for j in (part if isinstance(part, list) else [part])]


def packed_head_nodes(graph, producer, used, q, kt, v):
    """The nodes between a packed Q, K and V and the attention, where nn.MultiheadAttention's export splits them
    (its sequence-first path, taken by every exporter): the projection's output, stacked as (3, tokens, batch,
    embed), read by three Gathers along its first axis, each viewed as (tokens, batch x heads, dim) and transposed to
    heads outer, and K's transposed again for K^T. PyTorch's inference runs its fused path instead: one kernel splits
    the projection into Q, K and V by heads, and the attention reads them. That split is the stacking Transpose, which
    stays a call; the Gathers and the head Transposes are none. Empty unless all are there."""
    def past_views(name):
        return viewed_value(graph, producer, used, name, ("Reshape", "Unsqueeze", "Squeeze"))

    def node_of(name, op, perms=None):
        j = producer.get(name)
        if j is None or graph.node[j].op_type != op or len(data_readers(graph, used, name)) != 1:
            return None
        if perms is not None and list(attributes(graph.node[j]).get("perm", [])) not in [list(p) for p in perms]:
            return None
        return j

    def head_split(name):  # [the head Transpose, the Gather], and the stacked value the Gather reads
        t = node_of(past_views(name), "Transpose", [[1, 0, 2]])
        g = node_of(past_views(graph.node[t].input[0]), "Gather") if t is not None else None
        if g is None or attributes(graph.node[g]).get("axis", 0) != 0:
            return None, None
        return [t, g], graph.node[g].input[0]

    k_swap = node_of(past_views(kt), "Transpose", [[0, 1, 3, 2], [0, 2, 1]])
    parts = [head_split(q), head_split(graph.node[k_swap].input[0]) if k_swap is not None else (None, None),
             head_split(v)]
    stacked = {s for _, s in parts}
    if any(nodes is None for nodes, _ in parts) or len(stacked) != 1:
        return []
    return [k_swap] + [j for nodes, _ in parts for j in nodes]


def attention_groups(graph, infos):
    """{index of the second MatMul: (the nodes the attention case replaces, its Record)}: MatMul(Q, K^T) (each
    optionally scaled by a constant), an optional scale (Mul or Div) and additive mask (Add or Where), Softmax over
    the last axis, [Cast or a NaN guard], MatMul(P, V), with Q, K^T and V of 4 dimensions."""
    producer = producers(graph)
    weights = {t.name for t in graph.initializer}
    used = consumers(graph)
    groups = {}
    for i, node in enumerate(graph.node):
        if node.op_type != "Softmax" or attributes(node).get("axis", -1) not in (-1, 3):
            continue
        chain, mask, name = [i], "none", node.input[0]
        while name in producer and graph.node[producer[name]].op_type in ("Mul", "Div", "Add", "Where"):
            j = producer[name]
            step = graph.node[j]
            if step.op_type in ("Add", "Where"):
                mask = "causal" if any(graph.node[producer[n]].op_type == "Trilu" for n in step.input
                                       if n in producer) else "none"
            chain.append(j)
            data = [n for n in step.input if n in producer and graph.node[producer[n]].op_type in
                    ("MatMul", "Mul", "Div", "Add", "Where")]
            if not data:
                break
            name = data[0]
        if name not in producer or graph.node[producer[name]].op_type != "MatMul":
            continue
        first = producer[name]
        guard, after = softmax_guard(graph, used, node.output[0])
        chain += guard
        nxt = used.get(after, [])
        if len(nxt) != 1 or graph.node[nxt[0]].op_type != "MatMul":
            continue
        second = nxt[0]
        operands = [scaled_operand(graph, producer, used, weights, n) for n in graph.node[first].input]
        chain += [j for j, _ in operands if j is not None]
        q, kt = (infos.get(n) for _, n in operands)
        v = infos.get(graph.node[second].input[1])
        if not all(t is not None and t.dim() == 4 for t in (q, kt, v)):
            continue
        transposes = bshd_transposes(graph, producer, used, operands[0][1], operands[1][1],
                                     graph.node[second].input[1], graph.node[second].output[0])
        packed = [] if transposes else packed_head_nodes(graph, producer, used, operands[0][1], operands[1][1],
                                                         graph.node[second].input[1])
        rec = Record("attention", "onnx::MatMul+Softmax+MatMul (attention)", {
            "batch": q.shape[0], "heads_q": q.shape[1], "heads_kv": kt.shape[1], "seq_q": q.shape[2],
            "seq_kv": kt.shape[3], "head_dim": q.shape[3], "mask": mask, "layout": "bshd" if transposes else "bhsd"})
        if transposes:
            rec.source_op = "onnx::Transpose+MatMul+Softmax+MatMul+Transpose (attention)"
        if packed:
            rec.source_op = "onnx::Gather+Transpose+MatMul+Softmax+MatMul (attention on packed Q, K and V)"
        groups[transposes[-1] if transposes else second] = (
            set(chain) | {first, second} | set(transposes) | set(packed), rec)
    return groups


def graph_records(model):
    """The graph's nodes as Records, in order (attention and GELU patterns fused into one), each with `after`: the
    earlier records whose outputs it reads. A node that launches nothing (a view, or a node fused into a pattern's
    case) passes its inputs' producers on to its outputs."""
    infos = tensor_infos(model)
    groups = {**attention_groups(model.graph, infos), **gelu_groups(model.graph, infos),
              **bias_groups(model.graph, infos)}
    fused = set().union(*(nodes for nodes, _ in groups.values())) if groups else set()
    records = []
    producers = collections.defaultdict(set)  # value name -> the records that wrote it
    for i, node in enumerate(model.graph.node):
        reads = set().union(*(producers[n] for n in node.input if n)) if node.input else set()
        rec = groups[i][1] if i in groups else None if i in fused else node_record(node, infos)
        if rec is None:
            for out in node.output:
                producers[out] = set(reads)
            continue
        rec.after = sorted(reads)
        for out in node.output:
            producers[out] = {len(records)}
        records.append(rec)
    return records


def import_model(model, renames=None, sizes=None):
    """(records with fields as expressions, {symbol: default size}, fields kept constant, same call sequence)."""
    dims = dynamic_dims(model, renames or {})
    base = {s: (sizes or {}).get(s, DEFAULT_SIZES.get(s, OTHER_DEFAULT_SIZE)) for s in dict.fromkeys(dims.values())}
    records = graph_records(with_sizes(model, dims, base))
    if not base:
        return records, base, [], True
    doubled = {s: graph_records(with_sizes(model, dims, {**base, s: base[s] * 2})) for s in base}
    check_sizes = {s: v * 3 for s, v in base.items()}
    check = graph_records(with_sizes(model, dims, check_sizes))
    unfitted, same_shape = em.fit_records(records, doubled, check, base, check_sizes)
    return records, base, unfitted, same_shape


def write_table(path, name, source, area, task, records, base, unfitted, same_shape, nodes, real=None):
    """real: export_onnx.py's measured file ({"measured": entry, "header": [lines]}) or None."""
    import onnx
    counts = collections.Counter(r.family for r in records)
    other = collections.Counter(r.source_op for r in records if r.family == "other")
    mapped = sum(n for f, n in counts.items() if f != "other")
    lines = [
        f"# {name}: operator calls of one inference forward pass, imported by shapes/models/import_onnx.py",
        f"# ({datetime.date.today().isoformat()}, onnx {onnx.__version__}) from {os.path.basename(source)}: "
        f"{nodes} nodes, {len(records)} calls that launch work,",
        f"# {mapped} in benchmarked families and {counts.get('other', 0)} `other`" +
        (" (" + ", ".join(f"{op} {n}" for op, n in other.most_common(8)) + ")." if other else "."),
        "# Shapes are expressions over the inputs; " + (
            f"{len(unfitted)} field(s) kept constant (no expression reproduced the graph at 3x the inputs)."
            if unfitted else "every expression reproduced the graph at 3x the inputs." if same_shape
            else "the call sequence changes with the inputs: every shape is the constant at the defaults."),
        *(real or {}).get("header", []),
        f"model: {name}",
        f"area: {area}",
        f"task: {task}",
        f'source: "ONNX {os.path.basename(source)}"',
        "mode: inference",
    ]
    if base:
        lines.append("inputs: {" + ", ".join(f"{k}: {v}" for k, v in base.items()) + "}")
    if real:
        lines.append("measured:")
        lines.append("  - " + measured_entries.entry_text(real["measured"]))
    lines.append("ops:")
    rows = {}
    for rec, calls, _ in em.aggregate(records):
        rows[rec.key()] = len(rows)
        parts = [f"family: {rec.family}", f"calls: {calls}", f'source_op: "{rec.source_op}"']
        parts += [f"{k}: {em.yaml_value(v)}" for k, v in rec.fields.items()]
        lines.append("  - {" + ", ".join(parts) + "}")
    lines.append("# graph: one line a call, in order: its op row (from 0), then the earlier calls whose outputs it "
                 "reads")
    lines.append("graph:")
    lines += [f"  - {[rows[rec.key()]] + list(rec.after)}" for rec in records]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def parse_pairs(text, what, value=str):
    out = {}
    for item in filter(None, (text or "").split(",")):
        key, sep, v = item.partition("=")
        if not sep or not key or not v:
            raise SystemExit(f"import_onnx.py: {what} '{item}': expected NAME=VALUE")
        try:
            out[key.strip()] = value(v.strip())
        except ValueError:
            raise SystemExit(f"import_onnx.py: {what} '{item}': '{v.strip()}' is no {value.__name__}")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="the .onnx file")
    p.add_argument("--out", help="the table to write (default: <model>.yaml beside the .onnx file)")
    p.add_argument("--name", help="the model's name in the table (default: the file's name)")
    p.add_argument("--area", default="imported", help="the model's area (default: imported)")
    p.add_argument("--task", default="imported ONNX graph", help="what the model does")
    p.add_argument("--inputs", help="default sizes of the symbols, e.g. B=8,L=128")
    p.add_argument("--symbols", help="a dynamic dimension's symbol, e.g. batch_size=B,seq=L")
    p.add_argument("--measured", help="the model's real time on a GPU, from export_onnx.py --measure")
    args = p.parse_args(argv)
    try:
        import onnx
        import onnx.defs
    except ImportError:
        print("import_onnx.py: needs the onnx package (Debian: apt-get install python3-onnx, for /usr/bin/python3)",
              file=sys.stderr)
        return 2
    if not os.path.isfile(args.model):
        print(f"import_onnx.py: {args.model}: no such file", file=sys.stderr)
        return 2
    try:
        model = onnx.load(args.model)
    except Exception as e:  # a file that is no ONNX model: said with its name, not a protobuf trace
        print(f"import_onnx.py: {args.model}: not an ONNX model ({e})", file=sys.stderr)
        return 2
    newest = onnx.defs.onnx_opset_version()
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    if opset > newest:  # older onnx libraries crash in shape inference on a newer opset
        print(f"import_onnx.py: {args.model}: opset {opset}, newer than this onnx {onnx.__version__} knows "
              f"({newest}): import it with a newer onnx (pip install onnx), or export it at opset {newest}",
              file=sys.stderr)
        return 2
    real = None
    if args.measured:
        try:
            with open(args.measured) as f:
                real = json.load(f)
            measured_entries.entry_text(real["measured"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"import_onnx.py: --measured {args.measured}: {type(e).__name__}: {e}", file=sys.stderr)
            return 2
    stem = re.sub(r"\.graph$", "", os.path.splitext(os.path.basename(args.model))[0])  # export_onnx's weightless copy
    name = args.name or re.sub(r"\W", "_", stem)
    out = args.out or os.path.join(os.path.dirname(args.model), stem + ".yaml")
    records, base, unfitted, same_shape = import_model(model, parse_pairs(args.symbols, "--symbols"),
                                                       parse_pairs(args.inputs, "--inputs", int))
    if not records:
        print(f"import_onnx.py: {args.model}: no node launches work", file=sys.stderr)
        return 2
    previous = ""
    if os.path.exists(out):
        with open(out) as f:
            previous = f.read()
    write_table(out, name, args.model, args.area, args.task, records, base, unfitted, same_shape,
                len(model.graph.node), real)
    em.keep_other_entries(out, previous, real["measured"] if real else None)
    families = collections.Counter(r.family for r in records)
    print(f"{out}: {len(records)} calls ({', '.join(f'{f} {n}' for f, n in families.most_common())}); "
          f"{len(unfitted)} field(s) kept constant")
    return 0


if __name__ == "__main__":
    sys.exit(main())

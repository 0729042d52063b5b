"""Folds an ONNX graph's shape arithmetic into constants, as PyTorch computes it on the host.

An exported graph computes reshape targets, ranges and masks' sizes from `Shape` nodes: Shape, Gather, Unsqueeze,
Concat, Slice, Cast, integer arithmetic. PyTorch does this in Python ints and launches no kernel, and ONNX's shape
inference stops at the first such value it cannot propagate (every later node of Swin's window attention had no
shape). `fold` evaluates these nodes with numpy once the inputs' sizes are fixed, replaces them by initializers, and
infers shapes again, until nothing more folds. Only small values are folded (at most FOLD_MAX_ELEMENTS): a mask or a
position table built from a shape stays the device work it is.
"""
import numpy as np

FOLD_MAX_ELEMENTS = 4096
MAX_ROUNDS = 32


def _np_dtype(onnx_type):
    import onnx
    if hasattr(onnx.helper, "tensor_dtype_to_np_dtype"):
        return onnx.helper.tensor_dtype_to_np_dtype(onnx_type)
    return onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[onnx_type]


def _attrs(node):
    import onnx
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _axes(node, args, attrs, rank):
    axes = attrs.get("axes")
    if axes is None and len(args) > 1 and args[1] is not None:
        axes = args[1].tolist()
    return None if axes is None else [a + rank if a < 0 else a for a in axes]


def _slice(args):
    data, starts, ends = args[0], args[1], args[2]
    axes = args[3].tolist() if len(args) > 3 and args[3] is not None else list(range(len(starts)))
    steps = args[4].tolist() if len(args) > 4 and args[4] is not None else [1] * len(starts)
    index = [slice(None)] * data.ndim
    for s, e, a, st in zip(starts.tolist(), ends.tolist(), axes, steps):
        index[a + data.ndim if a < 0 else a] = slice(s, e, st)
    return data[tuple(index)]


def _divide(a, b):
    if np.issubdtype(a.dtype, np.integer):  # ONNX's integer Div truncates
        return np.trunc(a / b).astype(a.dtype)
    return a / b


def _reshape(a, shape):
    shape = [a.shape[i] if s == 0 else s for i, s in enumerate(shape.tolist())]
    return a.reshape(shape)


BINARY = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": _divide, "Equal": np.equal,
          "Less": np.less, "Greater": np.greater, "LessOrEqual": np.less_equal, "GreaterOrEqual": np.greater_equal,
          "Max": np.maximum, "Min": np.minimum, "Mod": np.mod, "And": np.logical_and, "Or": np.logical_or,
          "Pow": np.power}
UNARY = {"Neg": np.negative, "Abs": np.abs, "Sqrt": np.sqrt, "Floor": np.floor, "Ceil": np.ceil,
         "Not": np.logical_not, "Identity": lambda a: a, "Reciprocal": np.reciprocal}


def evaluate(node, args, shape_of):
    """The node's outputs from its inputs' values (numpy arrays, None for an absent optional input), or None where
    this evaluator does not know the op. shape_of(name) gives a value's shape for Shape and Size."""
    from onnx import numpy_helper
    op, attrs = node.op_type, _attrs(node)
    if op == "Shape":
        shape = shape_of(node.input[0])
        if shape is None:
            return None
        return [np.array(shape[attrs.get("start", 0):attrs.get("end", len(shape))], dtype=np.int64)]
    if op == "Size":
        shape = shape_of(node.input[0])
        return None if shape is None else [np.array(int(np.prod(shape)), dtype=np.int64)]
    if op == "Constant":
        if "value" in attrs:
            return [numpy_helper.to_array(attrs["value"])]
        for key, dtype in (("value_int", np.int64), ("value_ints", np.int64), ("value_float", np.float32),
                           ("value_floats", np.float32)):
            if key in attrs:
                return [np.array(attrs[key], dtype=dtype)]
        return None
    if any(a is None for a in args[:1]):
        return None
    a = args[0]
    if op in BINARY:
        return [np.asarray(BINARY[op](a, args[1]))]
    if op in UNARY:
        return [np.asarray(UNARY[op](a))]
    if op == "Cast":
        return [a.astype(_np_dtype(attrs["to"]))]
    if op == "Gather":
        return [np.take(a, args[1], axis=attrs.get("axis", 0))]
    if op == "Unsqueeze":
        raw = attrs["axes"] if "axes" in attrs else args[1].tolist()
        rank = a.ndim + len(raw)
        out = a
        for axis in sorted(x + rank if x < 0 else x for x in raw):
            out = np.expand_dims(out, axis)
        return [out]
    if op == "Squeeze":
        axes = _axes(node, args, attrs, a.ndim)
        return [np.squeeze(a, axis=tuple(axes)) if axes else np.squeeze(a)]
    if op == "Concat":
        return [np.concatenate([np.atleast_1d(x) for x in args], axis=attrs.get("axis", 0))]
    if op == "Slice":
        return [_slice(args)]
    if op == "Range":
        return [np.arange(a, args[1], args[2]).astype(a.dtype)]
    if op == "ConstantOfShape":
        value = numpy_helper.to_array(attrs["value"]) if "value" in attrs else np.zeros(1, np.float32)
        return [np.full(a.tolist(), value.reshape(-1)[0], dtype=value.dtype)]
    if op == "Reshape":
        return [_reshape(a, args[1])]
    if op == "Expand":
        return [np.array(a * np.ones(args[1].tolist(), dtype=a.dtype))]
    if op == "Where":
        return [np.where(a, args[1], args[2])]
    if op in ("ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin"):
        axes = _axes(node, args, attrs, a.ndim)
        fn = {"ReduceProd": np.prod, "ReduceSum": np.sum, "ReduceMax": np.max, "ReduceMin": np.min}[op]
        return [np.asarray(fn(a, axis=tuple(axes) if axes else None, keepdims=bool(attrs.get("keepdims", 1))))]
    return None


def _shapes(model):
    """{value name: shape} where shape inference knows every dimension."""
    out = {}
    for value in list(model.graph.input) + list(model.graph.value_info) + list(model.graph.output):
        tt = value.type.tensor_type
        if tt.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
            if None not in dims:
                out[value.name] = tuple(dims)
    for t in model.graph.initializer:
        out[t.name] = tuple(t.dims)
    return out


def fold_round(model, known):
    """Folds every node it can evaluate whose inputs are in `known` (name -> value, the values folded added to it);
    returns how many it folded."""
    from onnx import numpy_helper
    shapes = _shapes(model)
    keep, new = [], []
    for node in model.graph.node:
        inputs_known = all(not n or n in known for n in node.input)
        if node.op_type in ("Shape", "Size"):
            inputs_known = node.input[0] in shapes
        out = None
        if inputs_known and len(node.output) == 1:
            try:
                out = evaluate(node, [known.get(n) if n else None for n in node.input], shapes.get)
            except (ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, OverflowError):
                out = None  # a value numpy cannot form the way ONNX would: left to the graph
        if out is None or out[0].size > FOLD_MAX_ELEMENTS:
            keep.append(node)
            continue
        known[node.output[0]] = out[0]
        new.append(numpy_helper.from_array(np.asarray(out[0]), node.output[0]))
    if new:
        del model.graph.node[:]
        model.graph.node.extend(keep)
        model.graph.initializer.extend(new)
        folded = {t.name for t in new}
        kept = [v for v in model.graph.value_info if v.name not in folded]
        del model.graph.value_info[:]
        model.graph.value_info.extend(kept)
    return len(new)


def fold(model, infer):
    """The model with its shape arithmetic folded into initializers (see the module's doc); infer(model) runs shape
    inference and returns the inferred model."""
    from onnx import numpy_helper
    model = infer(model)
    known = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer
             if np.prod(t.dims, dtype=np.int64) <= FOLD_MAX_ELEMENTS}
    for _ in range(MAX_ROUNDS):
        if not fold_round(model, known):
            break
        model = infer(model)
    return model

#!/usr/bin/python3
"""The ONNX importer (shapes/models/import_onnx.py) on graphs built here with onnx.helper, no GPU and no PyTorch:
a small CNN (conv, batch norm, ReLU, pooling, a residual add, global pooling, a linear layer, softmax) and a
transformer block (layer norm, projections, the attention pattern, transposes, GELU's erf, an embedding lookup, a
reduction and an op no family takes), and an LSTM and a GRU. Each node maps to its family with shapes as expressions
over the graph's dynamic dimensions, the attention pattern is one case, the unknown op stays `other`, and
opmark-bench loads the tables (--opmark_validate) where its path is given.

    /usr/bin/python3 test/models/import_onnx_test.py [OPMARK_BENCH]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "shapes", "models"))

import export_onnx  # noqa: E402  (imports no torch until it exports)
import import_onnx  # noqa: E402

BENCH = sys.argv.pop(1) if len(sys.argv) > 1 else None


def weight(name, shape):
    return nh.from_array(np.random.default_rng(1).random(shape, dtype=np.float32), name)


def save(graph, path, extra_domains=()):
    opsets = [h.make_opsetid("", 17)] + [h.make_opsetid(d, 1) for d in extra_domains]
    onnx.save(h.make_model(graph, opset_imports=opsets), path)


def head_projections(source, shape, k_perm=(0, 2, 3, 1)):
    """Q, K and V (values q, k, v) as a tokens-outer projection makes them: MatMul by wq, wk or wv, Reshape to
    (batch, tokens, heads, dim), Transpose to heads outer (K by k_perm)."""
    nodes = []
    for t in "qkv":
        nodes += [h.make_node("MatMul", [source, f"w{t}"], [f"{t}0"]),
                  h.make_node("Reshape", [f"{t}0", shape], [f"{t}1"]),
                  h.make_node("Transpose", [f"{t}1"], [t], perm=list(k_perm) if t == "k" else [0, 2, 1, 3])]
    return nodes


def cnn(path):
    x = h.make_tensor_value_info("x", TP.FLOAT, ["batch_size", 3, 32, 32])
    y = h.make_tensor_value_info("y", TP.FLOAT, None)
    nodes = [
        h.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        h.make_node("BatchNormalization", ["c", "g", "b", "m", "v"], ["bn"]),
        h.make_node("Relu", ["bn"], ["r"]),
        h.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        h.make_node("Conv", ["p", "w2"], ["c2"], auto_pad="SAME_UPPER", kernel_shape=[3, 3]),
        h.make_node("Relu", ["c2"], ["r2"]),
        h.make_node("Add", ["r2", "p"], ["s"]),
        h.make_node("GlobalAveragePool", ["s"], ["gp"]),
        h.make_node("Flatten", ["gp"], ["f"]),
        h.make_node("Gemm", ["f", "fc", "fcb"], ["logits"], transB=1),
        h.make_node("Softmax", ["logits"], ["y"], axis=-1),
    ]
    weights = [weight("w", (16, 3, 3, 3)), weight("g", (16,)), weight("b", (16,)), weight("m", (16,)),
               weight("v", (16,)), weight("w2", (16, 16, 3, 3)), weight("fc", (10, 16)), weight("fcb", (10,))]
    save(h.make_graph(nodes, "cnn", [x], [y], weights), path)


def block(path):
    x = h.make_tensor_value_info("x", TP.FLOAT, ["batch", "sequence", 64])
    ids = h.make_tensor_value_info("ids", TP.INT64, ["batch", "sequence"])
    y = h.make_tensor_value_info("y", TP.FLOAT, None)
    consts = [nh.from_array(np.array([0, 0, 4, 16], dtype=np.int64), "shape4"),
              nh.from_array(np.array([0, 0, 64], dtype=np.int64), "shape3"),
              nh.from_array(np.array(4.0, dtype=np.float32), "scale")]
    nodes = [h.make_node("LayerNormalization", ["x", "ln_g", "ln_b"], ["n"], axis=-1)] + head_projections("n", "shape4")
    nodes += [
        h.make_node("MatMul", ["q", "k"], ["s"]), h.make_node("Div", ["s", "scale"], ["ss"]),
        h.make_node("Softmax", ["ss"], ["p"], axis=-1), h.make_node("MatMul", ["p", "v"], ["o"]),
        h.make_node("Transpose", ["o"], ["o1"], perm=[0, 2, 1, 3]), h.make_node("Reshape", ["o1", "shape3"], ["o2"]),
        h.make_node("MatMul", ["o2", "wo"], ["o3"]), h.make_node("Add", ["o3", "x"], ["r"]),
        h.make_node("Erf", ["r"], ["e"]), h.make_node("Mul", ["e", "r"], ["m"]),
        h.make_node("Gather", ["emb", "ids"], ["looked"]),
        h.make_node("ReduceMean", ["m"], ["y"], axes=[-1], keepdims=1),
        h.make_node("FancyOp", ["m"], ["z"], domain="custom"),
    ]
    weights = [weight("ln_g", (64,)), weight("ln_b", (64,)), weight("emb", (1000, 64))] + \
              [weight(f"w{t}", (64, 64)) for t in "qkvo"] + consts
    save(h.make_graph(nodes, "block", [x, ids], [y], weights), path, ["custom"])


def exported_block(path):
    """Attention as torch.onnx exports scaled_dot_product_attention (Q and K^T each scaled, a NaN guard after the
    softmax), with reshape targets and position ids computed from the input's Shape, as exported graphs do."""
    x = h.make_tensor_value_info("x", TP.FLOAT, ["batch", "sequence", 64])
    y = h.make_tensor_value_info("y", TP.FLOAT, None)
    ints = {n: nh.from_array(np.array(v, dtype=np.int64), n) for n, v in
            (("i0", 0), ("i1", 1), ("a0", [0]), ("c4", [4]), ("c16", [16]), ("c64", [64]), ("c2", 2), ("c128", [128]))}
    nodes = [h.make_node("Shape", ["x"], ["shape"]), h.make_node("Gather", ["shape", "i0"], ["b"]),
             h.make_node("Gather", ["shape", "i1"], ["l"]), h.make_node("Unsqueeze", ["b", "a0"], ["b1"]),
             h.make_node("Unsqueeze", ["l", "a0"], ["l1"]),
             h.make_node("Concat", ["b1", "l1", "c4", "c16"], ["heads_shape"], axis=0),
             h.make_node("Range", ["i0", "l", "i1"], ["positions"]),
             h.make_node("Gather", ["pos_table", "positions"], ["pos"]), h.make_node("Add", ["x", "pos"], ["xp"])]
    nodes += head_projections("xp", "heads_shape")
    nodes += [
        h.make_node("Mul", ["q", "scale"], ["qs"]), h.make_node("Mul", ["k", "scale"], ["ks"]),
        h.make_node("MatMul", ["qs", "ks"], ["s"]), h.make_node("Softmax", ["s"], ["p"], axis=-1),
        h.make_node("IsNaN", ["p"], ["nan"]), h.make_node("Where", ["nan", "zero", "p"], ["pg"]),
        h.make_node("MatMul", ["pg", "v"], ["o"]), h.make_node("Transpose", ["o"], ["o1"], perm=[0, 2, 1, 3]),
        # (B, L/2, 128): the sequence halved by a Div of the shape, past what shape inference propagates
        h.make_node("Div", ["l", "c2"], ["half"]), h.make_node("Unsqueeze", ["half", "a0"], ["half1"]),
        h.make_node("Concat", ["b1", "half1", "c128"], ["pairs_shape"], axis=0),
        h.make_node("Reshape", ["o1", "pairs_shape"], ["o2"]), h.make_node("MatMul", ["o2", "wo"], ["y"]),
    ]
    weights = [weight(f"w{t}", (64, 64)) for t in "qkv"] + [weight("wo", (128, 64)), weight("pos_table", (512, 64)),
               nh.from_array(np.array(0.5, dtype=np.float32), "scale"),
               nh.from_array(np.array(0.0, dtype=np.float32), "zero")] + list(ints.values())
    save(h.make_graph(nodes, "exported", [x], [y], weights), path)


def gelu_and_partial_attention(path):
    """GELU spelled out with Erf in both orders exporters write (x * (1 + erf) * 0.5 and (x * 0.5) * (1 + erf)), a
    near miss (Erf over x without the 1/sqrt(2)), and attention whose output stays in (b, h, s, d) order: no bshd."""
    x = h.make_tensor_value_info("x", TP.FLOAT, ["batch", "sequence", 64])
    y = h.make_tensor_value_info("y", TP.FLOAT, None)
    c = {n: nh.from_array(np.array(v, dtype=np.float32), n) for n, v in
         (("sqrt2", 2 ** 0.5), ("one", 1.0), ("half", 0.5))}
    nodes = [h.make_node("Div", ["x", "sqrt2"], ["d"]), h.make_node("Erf", ["d"], ["e"]),
             h.make_node("Add", ["e", "one"], ["e1"]), h.make_node("Mul", ["x", "e1"], ["m"]),
             h.make_node("Mul", ["m", "half"], ["g"]),
             h.make_node("Div", ["g", "sqrt2"], ["d2"]), h.make_node("Erf", ["d2"], ["f"]),
             h.make_node("Add", ["one", "f"], ["f1"]), h.make_node("Mul", ["g", "half"], ["gh"]),
             h.make_node("Mul", ["gh", "f1"], ["g2"]),
             h.make_node("Erf", ["g2"], ["near"]), h.make_node("Add", ["near", "one"], ["near1"]),
             h.make_node("Mul", ["g2", "near1"], ["t"]),
             h.make_node("Reshape", ["t", "shape4"], ["t4"])]
    for name in "qkv":
        nodes.append(h.make_node("Transpose", ["t4"], [name], perm=[0, 2, 3, 1] if name == "k" else [0, 2, 1, 3]))
    nodes += [h.make_node("MatMul", ["q", "k"], ["s"]), h.make_node("Softmax", ["s"], ["p"], axis=-1),
              h.make_node("MatMul", ["p", "v"], ["y"])]
    weights = list(c.values()) + [nh.from_array(np.array([0, 0, 4, 16], dtype=np.int64), "shape4")]
    save(h.make_graph(nodes, "gelu", [x], [y], weights), path)


def dynamo_attention(path):
    """Attention as the dynamo exporter writes it (opset 18 on): K^T through a 3-D view, Reshape, Transpose (0, 2, 1),
    Reshape, with a Shape node reading K; static sizes (batch 2, 8 tokens, 4 heads of 16)."""
    x = h.make_tensor_value_info("x", TP.FLOAT, [2, 8, 64])
    y = h.make_tensor_value_info("y", TP.FLOAT, None)
    shapes = {n: nh.from_array(np.array(v, dtype=np.int64), n) for n, v in
              (("s4", [2, 8, 4, 16]), ("s3", [8, 8, 16]), ("st", [2, 4, 16, 8]), ("so", [2, 8, 64]))}
    nodes = head_projections("x", "s4", k_perm=(0, 2, 1, 3))
    nodes += [h.make_node("Shape", ["k"], ["k_shape"]), h.make_node("Reshape", ["k", "s3"], ["k3"]),
              h.make_node("Transpose", ["k3"], ["k3t"], perm=[0, 2, 1]), h.make_node("Reshape", ["k3t", "st"], ["kt"]),
              h.make_node("Mul", ["q", "scale"], ["qs"]), h.make_node("Mul", ["kt", "scale"], ["ks"]),
              h.make_node("MatMul", ["qs", "ks"], ["s"]), h.make_node("Softmax", ["s"], ["p"], axis=-1),
              h.make_node("MatMul", ["p", "v"], ["o"]), h.make_node("Transpose", ["o"], ["o1"], perm=[0, 2, 1, 3]),
              h.make_node("Reshape", ["o1", "so"], ["y"])]
    weights = [weight(f"w{t}", (64, 64)) for t in "qkv"] + list(shapes.values()) + \
              [nh.from_array(np.array(0.5, dtype=np.float32), "scale")]
    save(h.make_graph(nodes, "dynamo", [x], [y], weights), path)


def packed_attention(path):
    """nn.MultiheadAttention (batch first, 4 heads of 16, batch 2, 8 tokens) as exporters write its sequence-first
    path: the input transposed to tokens outer, one projection of Q, K and V (MatMul, Add), stacked as (3, tokens,
    batch, embed) by Reshape, Unsqueeze, Transpose and Squeeze, split by three Gathers, each viewed as (tokens, batch x
    heads, dim) and transposed to heads outer, K^T by a last Transpose; O back to tokens outer, the output projection
    (Gemm), and back to batch first."""
    x = h.make_tensor_value_info("x", TP.FLOAT, [2, 8, 64])
    y = h.make_tensor_value_info("y", TP.FLOAT, None)
    ints = {n: nh.from_array(np.array(v, dtype=np.int64), n) for n, v in
            (("s_qkv", [8, 2, 3, 64]), ("a0", [0]), ("a3", [3]), ("s_heads", [8, 8, 16]), ("s4", [2, 4, 8, 16]),
             ("s_out", [16, 64]), ("s_back", [8, 2, 64]), ("i0", 0), ("i1", 1), ("i2", 2))}
    nodes = [h.make_node("Transpose", ["x"], ["xs"], perm=[1, 0, 2]),
             h.make_node("MatMul", ["xs", "w_in"], ["p0"]), h.make_node("Add", ["p0", "b_in"], ["p"]),
             h.make_node("Reshape", ["p", "s_qkv"], ["p1"]), h.make_node("Unsqueeze", ["p1", "a0"], ["p2"]),
             h.make_node("Transpose", ["p2"], ["p3"], perm=[3, 1, 2, 0, 4]),
             h.make_node("Squeeze", ["p3", "a3"], ["stacked"])]
    for t, i in (("q", "i0"), ("k", "i1"), ("v", "i2")):
        nodes += [h.make_node("Gather", ["stacked", i], [f"{t}0"], axis=0),
                  h.make_node("Reshape", [f"{t}0", "s_heads"], [f"{t}1"]),
                  h.make_node("Transpose", [f"{t}1"], [f"{t}2"], perm=[1, 0, 2]),
                  h.make_node("Reshape", [f"{t}2", "s4"], [t])]
    nodes += [h.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
              h.make_node("Mul", ["q", "scale"], ["qs"]), h.make_node("Mul", ["kt", "scale"], ["ks"]),
              h.make_node("MatMul", ["qs", "ks"], ["s"]), h.make_node("Softmax", ["s"], ["pr"], axis=-1),
              h.make_node("MatMul", ["pr", "v"], ["o"]), h.make_node("Transpose", ["o"], ["o1"], perm=[2, 0, 1, 3]),
              h.make_node("Reshape", ["o1", "s_out"], ["o2"]),
              h.make_node("Gemm", ["o2", "w_out", "b_out"], ["o3"], transB=1),
              h.make_node("Reshape", ["o3", "s_back"], ["o4"]), h.make_node("Transpose", ["o4"], ["y"], perm=[1, 0, 2])]
    weights = [weight("w_in", (64, 192)), weight("b_in", (192,)), weight("w_out", (64, 64)), weight("b_out", (64,)),
               nh.from_array(np.array(0.5, dtype=np.float32), "scale")] + list(ints.values())
    save(h.make_graph(nodes, "packed", [x], [y], weights), path)


def linear_layers(path):
    """Linear layers as exporters write them: MatMul by a weight, then Add of the bias (either operand order); and a
    product that is read again besides its Add, whose Add stays a call."""
    x = h.make_tensor_value_info("x", TP.FLOAT, ["batch", 64])
    y = h.make_tensor_value_info("y", TP.FLOAT, None)
    z = h.make_tensor_value_info("z", TP.FLOAT, None)
    nodes = [h.make_node("MatMul", ["x", "w1"], ["m1"]), h.make_node("Add", ["m1", "b1"], ["l1"]),
             h.make_node("MatMul", ["l1", "w2"], ["m2"]), h.make_node("Add", ["b2", "m2"], ["l2"]),
             h.make_node("MatMul", ["l2", "w2"], ["m3"]), h.make_node("Add", ["m3", "b2"], ["y"]),
             h.make_node("Relu", ["m3"], ["z"])]
    weights = [weight("w1", (64, 32)), weight("b1", (32,)), weight("w2", (32, 32)), weight("b2", (32,))]
    save(h.make_graph(nodes, "linear", [x], [y, z], weights), path)


def recurrent(path):
    x = h.make_tensor_value_info("x", TP.FLOAT, ["time", "batch", 32])
    y = h.make_tensor_value_info("y", TP.FLOAT, None)
    nodes = [h.make_node("LSTM", ["x", "w", "r"], ["y"], hidden_size=16, direction="bidirectional"),
             h.make_node("GRU", ["x", "gw", "gr"], ["g"], hidden_size=16)]
    weights = [weight("w", (2, 64, 32)), weight("r", (2, 64, 16)), weight("gw", (1, 48, 32)), weight("gr", (1, 48, 16))]
    save(h.make_graph(nodes, "recurrent", [x], [y], weights), path)


def ops_of(path):
    """The table's op rows as {field: text} maps, in order."""
    rows = []
    for line in open(path):
        m = re.match(r"  - \{(.*)\}$", line)
        if m:
            rows.append(dict(kv.split(": ", 1) for kv in re.split(r", (?=\w+: )", m.group(1))))
    return rows


class ImportOnnx(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.cnn, cls.block = os.path.join(cls.dir, "cnn.onnx"), os.path.join(cls.dir, "block.onnx")
        cls.recurrent = os.path.join(cls.dir, "recurrent.onnx")
        cls.exported = os.path.join(cls.dir, "exported.onnx")
        cls.gelu = os.path.join(cls.dir, "gelu.onnx")
        cls.dynamo = os.path.join(cls.dir, "dynamo.onnx")
        dynamo_attention(cls.dynamo)
        cls.linear = os.path.join(cls.dir, "linear.onnx")
        linear_layers(cls.linear)
        cls.packed = os.path.join(cls.dir, "packed.onnx")
        packed_attention(cls.packed)
        cnn(cls.cnn)
        block(cls.block)
        recurrent(cls.recurrent)
        exported_block(cls.exported)
        gelu_and_partial_attention(cls.gelu)
        for model in (cls.cnn, cls.block, cls.recurrent, cls.exported, cls.gelu, cls.dynamo, cls.linear, cls.packed):
            assert import_onnx.main([model, "--area", "imported"]) == 0

    def test_a_cnn_maps_every_node_with_the_batch_as_a_symbol(self):
        rows = ops_of(os.path.join(self.dir, "cnn.yaml"))
        families = [r["family"] for r in rows]
        self.assertEqual(families, ["conv", "batchnorm", "pointwise", "pool", "conv", "pointwise", "pointwise",
                                    "reduce", "gemm", "reduce"])
        self.assertEqual((rows[0]["n"], rows[0]["pad_h"], rows[0]["k"]), ("B", "1", "16"))
        self.assertEqual((rows[4]["h"], rows[4]["pad_w"]), ("16", "1"))  # SAME_UPPER: a symmetric pad of 1
        self.assertEqual(rows[6]["op"], "add")
        self.assertEqual((rows[7]["op"], rows[7]["rows"], rows[7]["cols"]), ("mean", "16*B", "256"))
        self.assertEqual((rows[8]["m"], rows[8]["n"], rows[8]["k"], rows[8]["ta"]), ("10", "B", "16", "T"))
        text = open(os.path.join(self.dir, "cnn.yaml")).read()
        self.assertIn("inputs: {B: 8}", text)
        self.assertIn("every expression reproduced the graph at 3x the inputs", text)

    def test_a_transformer_block_fuses_attention_and_keeps_the_unknown_op(self):
        rows = ops_of(os.path.join(self.dir, "block.yaml"))
        by_family = {}
        for r in rows:
            by_family.setdefault(r["family"], []).append(r)
        attention = by_family["attention"]
        self.assertEqual(len(attention), 1)
        a = attention[0]
        self.assertEqual((a["batch"], a["heads_q"], a["seq_q"], a["seq_kv"], a["head_dim"], a["mask"], a["layout"]),
                         ("B", "4", "L", "L", "16", "none", "bshd"))
        projections = [r for r in by_family["gemm"] if r["source_op"] == '"onnx::MatMul"']
        self.assertEqual([(r["n"], r["calls"]) for r in projections], [("B*L", "4")])  # identical layers: one row
        self.assertEqual(by_family["reduce"][0]["op"], "layernorm")
        self.assertEqual(by_family["gather"][0]["table_rows"], "1000")
        self.assertEqual(by_family["other"][0]["source_op"], '"onnx::FancyOp"')
        # Q, K and V come from the projections through transposes, and O goes back: a bshd attention reads and
        # writes that order itself, so the four transposes are no calls
        self.assertNotIn("permute", by_family)
        text = open(os.path.join(self.dir, "block.yaml")).read()
        self.assertIn("1 `other` (onnx::FancyOp 1)", text)
        # the dependency graph: one line a call; the attention case waits on the three projections before it
        graph = [[int(n) for n in re.findall(r"\d+", line)] for line in text.split("graph:\n", 1)[1].splitlines()]
        self.assertEqual(len(graph), sum(int(r["calls"]) for r in rows))
        attention_row = rows.index(a)
        waits = next(g[1:] for g in graph if g[0] == attention_row)
        self.assertEqual([rows[graph[w][0]]["family"] for w in waits], ["gemm"] * 3)

    def test_a_linear_layers_bias_add_is_in_its_gemm(self):
        rows = ops_of(os.path.join(self.dir, "linear.yaml"))
        fused = '"onnx::MatMul+Add (the bias in the GEMM\'s epilogue)"'
        self.assertEqual([(r["family"], r["source_op"], r["calls"]) for r in rows if r["family"] != "pointwise"],
                         [("gemm", fused, "1"), ("gemm", fused, "1"), ("gemm", '"onnx::MatMul"', "1")])
        self.assertEqual(sorted(r["source_op"] for r in rows if r["family"] == "pointwise"),
                         ['"onnx::Add"', '"onnx::Relu"'])  # the third product is read by the ReLU too

    def test_the_dynamo_exporters_attention_is_bshd_too(self):
        rows = ops_of(os.path.join(self.dir, "dynamo.yaml"))
        self.assertEqual(sorted(r["family"] for r in rows), ["attention", "gemm"])  # no permute left
        a = next(r for r in rows if r["family"] == "attention")
        self.assertEqual((a["batch"], a["heads_q"], a["seq_q"], a["head_dim"], a["layout"]),
                         ("2", "4", "8", "16", "bshd"))

    def test_multi_head_attentions_packed_q_k_and_v_are_split_by_one_permute(self):
        rows = ops_of(os.path.join(self.dir, "packed.yaml"))
        self.assertEqual([r["family"] for r in rows],
                         ["permute", "gemm", "permute", "attention", "permute", "gemm", "permute"])
        a = rows[3]
        self.assertEqual((a["batch"], a["heads_q"], a["seq_q"], a["head_dim"], a["layout"], a["source_op"]),
                         ("2", "4", "8", "16", "bhsd",
                          '"onnx::Gather+Transpose+MatMul+Softmax+MatMul (attention on packed Q, K and V)"'))
        self.assertEqual([(r["d1"], r["d2"], r["d3"], r["perm"]) for r in (rows[2], rows[4])],
                         [("16", "3", "64", '"0213"'), ("8", "8", "16", '"0213"')])
        # the attention waits on the split, and the split on the projection
        text = open(os.path.join(self.dir, "packed.yaml")).read()
        graph = [[int(n) for n in re.findall(r"\d+", line)] for line in text.split("graph:\n", 1)[1].splitlines()]
        self.assertEqual([g[1:] for g in graph], [[], [0], [1], [2], [3], [4], [5]])

    def test_gelu_spelled_out_is_one_gelu_call_and_attention_left_in_its_order_keeps_its_transposes(self):
        rows = ops_of(os.path.join(self.dir, "gelu.yaml"))
        gelu = [r for r in rows if r.get("op") == "gelu"]
        self.assertEqual([(r["calls"], r["rows"], r["cols"], r["source_op"]) for r in gelu],
                         [("2", "B*L", "64", '"onnx::Div+Erf+Add+Mul+Mul (gelu)"')])
        near_miss = [r["source_op"] for r in rows if r["source_op"] == '"onnx::Erf"']
        self.assertEqual(near_miss, ['"onnx::Erf"'])
        attention = [r for r in rows if r["family"] == "attention"]
        self.assertEqual([r["layout"] for r in attention], ["bhsd"])
        self.assertEqual(sorted(r["perm"] for r in rows if r["family"] == "permute"), ['"0213"', '"0231"'])

    def test_shape_arithmetic_is_folded_and_exported_attention_is_found(self):
        rows = ops_of(os.path.join(self.dir, "exported.yaml"))
        families = [r["family"] for r in rows]
        self.assertNotIn("other", families)  # every shape known; Shape, Gather, Concat, Range launch nothing
        self.assertEqual(sorted(set(r["source_op"] for r in rows)), sorted({
            '"onnx::Gather"', '"onnx::Add"', '"onnx::MatMul"',
            '"onnx::Transpose+MatMul+Softmax+MatMul+Transpose (attention)"'}))
        attention = [r for r in rows if r["family"] == "attention"]
        self.assertEqual([(a["batch"], a["heads_q"], a["seq_q"], a["head_dim"]) for a in attention],
                         [("B", "4", "L", "16")])
        self.assertEqual([r["rows"] for r in rows if r["family"] == "gather"], ["L"])  # positions 0..L-1
        out = [r for r in rows if r["family"] == "gemm" and r["k"] == "128"]
        self.assertEqual([(r["m"], r["n"]) for r in out], [("64", "B*L/2")])

    def test_the_weightless_graph_imports_as_the_model_does(self):
        light = os.path.join(self.dir, "block.graph.onnx")
        export_onnx.write_weightless(self.block, light)
        self.assertLess(os.path.getsize(light), os.path.getsize(self.block) / 2)  # the (1000, 64) table dropped
        self.assertEqual(import_onnx.main([light, "--out", os.path.join(self.dir, "light.yaml")]), 0)
        self.assertEqual(ops_of(os.path.join(self.dir, "light.yaml")), ops_of(os.path.join(self.dir, "block.yaml")))

    def test_hard_activations_are_pointwise(self):  # MobileNetV3's HardSwish was `other`
        x = h.make_tensor_value_info("x", TP.FLOAT, ["batch", 32])
        y = h.make_tensor_value_info("y", TP.FLOAT, None)
        path = os.path.join(self.dir, "hard.onnx")
        save(h.make_graph([h.make_node("HardSwish", ["x"], ["s"]), h.make_node("HardSigmoid", ["s"], ["y"])],
                          "hard", [x], [y]), path)
        self.assertEqual(import_onnx.main([path]), 0)
        rows = ops_of(os.path.join(self.dir, "hard.yaml"))
        self.assertEqual([(r["family"], r["rows"], r["cols"]) for r in rows], [("pointwise", "B", "32")] * 2)

    def test_a_ceil_mode_max_pool_is_the_padding_that_gives_its_windows(self):  # SqueezeNet's were `other`
        x = h.make_tensor_value_info("x", TP.FLOAT, ["batch", 8, 54, 54])
        y = h.make_tensor_value_info("y", TP.FLOAT, None)
        path = os.path.join(self.dir, "ceil.onnx")
        save(h.make_graph([h.make_node("MaxPool", ["x"], ["p"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
                           h.make_node("AveragePool", ["p"], ["y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)],
                          "ceil", [x], [y]), path)
        self.assertEqual(import_onnx.main([path]), 0)
        rows = ops_of(os.path.join(self.dir, "ceil.yaml"))
        # 54 -> 27 windows in ceil mode: floor mode gives 27 with a padding of 1
        self.assertEqual([(r["family"], r.get("h"), r.get("pad_h"), r.get("mode")) for r in rows],
                         [("pool", "54", "1", "max"), ("other", None, None, None)])

    def test_symbols_and_sizes_can_be_named(self):
        out = os.path.join(self.dir, "renamed.yaml")
        self.assertEqual(import_onnx.main([self.block, "--out", out, "--symbols", "sequence=T", "--inputs",
                                           "B=2,T=16"]), 0)
        text = open(out).read()
        self.assertIn("inputs: {B: 2, T: 16}", text)
        self.assertIn("seq_q: T", text)

    def test_a_file_that_is_no_model_is_an_error_naming_it(self):
        bad = os.path.join(self.dir, "bad.onnx")
        with open(bad, "w") as f:
            f.write("not a model")
        self.assertEqual(import_onnx.main([bad]), 2)
        self.assertEqual(import_onnx.main([os.path.join(self.dir, "missing.onnx")]), 2)
        newer = os.path.join(self.dir, "newer.onnx")
        model = onnx.load(self.cnn)
        model.opset_import[0].version = onnx.defs.onnx_opset_version() + 1
        onnx.save(model, newer)
        self.assertEqual(import_onnx.main([newer]), 2)  # a clear error, not the crash in shape inference
        with self.assertRaisesRegex(SystemExit, "--inputs 'B=eight': 'eight' is no int"):
            import_onnx.main([self.cnn, "--inputs", "B=eight"])
        with self.assertRaisesRegex(SystemExit, "--symbols 'batch': expected NAME=VALUE"):
            import_onnx.main([self.cnn, "--symbols", "batch"])

    def test_a_measured_file_gives_the_table_its_real_time(self):
        real = os.path.join(self.dir, "cnn.measured.json")
        with open(real, "w") as f:
            json.dump({"measured": {"device": "NVIDIA H200", "precision": "fp16", "graph_ms": 1.25, "eager_ms": 2.5,
                                    "kernel_ms": 1.2, "date": "2026-11-29", "software": "torch 2.11"},
                       "header": ["# Kernel time of one pass: 1.200 ms; in benchmarked families 1.100 ms (91.7%),"]},
                      f)
        out = os.path.join(self.dir, "cnn_measured.yaml")
        self.assertEqual(import_onnx.main([self.cnn, "--out", out, "--measured", real]), 0)
        text = open(out).read()
        self.assertIn('measured:\n  - {device: "NVIDIA H200", precision: fp16, graph_ms: 1.2500, eager_ms: 2.5000, '
                      'kernel_ms: 1.2000, date: "2026-11-29", software: "torch 2.11"}\nops:', text)
        self.assertIn("# Kernel time of one pass: 1.200 ms", text)
        self.assertEqual(import_onnx.main([self.cnn, "--out", out]), 0)  # imported again: the entry stays
        self.assertIn('  - {device: "NVIDIA H200", precision: fp16, graph_ms: 1.2500', open(out).read())
        with open(real, "w") as f:
            f.write('{"header": []}')
        self.assertEqual(import_onnx.main([self.cnn, "--out", out, "--measured", real]), 2)

    def test_recurrent_nodes_are_rnn_layers(self):
        lstm, gru = ops_of(os.path.join(self.dir, "recurrent.yaml"))
        self.assertEqual((lstm["family"], lstm["cell"], lstm["hidden"], lstm["batch"], lstm["steps"], lstm["input"],
                          lstm["bidir"]), ("rnn", "lstm", "16", "B", "L", "32", "yes"))
        self.assertEqual((gru["cell"], gru["bidir"], gru["layers"]), ("gru", "no", "1"))

    @unittest.skipUnless(BENCH, "no opmark-bench given")
    def test_opmark_bench_loads_the_tables(self):
        self.test_a_measured_file_gives_the_table_its_real_time()
        tables = ",".join(os.path.join(self.dir, n) for n in ("cnn.yaml", "block.yaml", "recurrent.yaml",
                                                               "cnn_measured.yaml"))
        run = subprocess.run([BENCH, "--opmark_validate", f"--opmark_models={tables}", "--opmark_inputs=B=4"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("4 models need", run.stderr)


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""The model tracer (shapes/models/op_mapping.py, extract_models.py) without PyTorch: operator calls recorded in
test/data/traces/ (op, arguments as shapes and strides, kernel us; the format extract_models.py --record-calls
writes) mapped to opmark's families, the RMSNorm pattern, the attention call's mask and layout, permutes, the
kernel attribution of a profiler trace, the coverage arithmetic and the table writer.

    python3 test/models/tracer_test.py
"""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "test", "data", "traces")
sys.path.insert(0, os.path.join(ROOT, "shapes", "models"))

import extract_models as em  # noqa: E402  (imports no torch)
import op_mapping as om  # noqa: E402
from op_mapping import TensorInfo as T  # noqa: E402

# The families and fields the tables may use (opmark's schemas, with issue 17's new families and ops).
SCHEMA = {
    "attention": {"batch", "heads_q", "heads_kv", "seq_q", "seq_kv", "head_dim", "mask", "layout"},
    "gather": {"rows", "cols", "table_rows"},
    "permute": {"d0", "d1", "d2", "d3", "perm"},
    "pointwise": {"op", "rows", "cols"},
    "reduce": {"op", "rows", "cols"},
    "gemm": {"m", "n", "k", "ta", "tb", "batch"},
}
POINTWISE_OPS = {"copy", "relu", "gelu", "silu", "sigmoid", "tanh", "add", "mul", "bias_add", "bias_relu",
                 "bias_gelu", "scale", "masked_fill"}
REDUCE_OPS = {"sum", "mean", "max", "sum_all", "softmax", "layernorm", "rmsnorm", "log_softmax", "add_layernorm",
              "add_rmsnorm"}


def load_calls(name):
    """The records of a recorded trace, each with its kernel time, RMSNorms fused as the tracer does."""
    records = []
    with open(os.path.join(DATA, name)) as f:
        for line in f:
            c = json.loads(line)
            rec = om.map_call(c["op"], om.decode(c["args"]), om.decode(c["kwargs"]), om.decode(c["out"]))
            for r in (rec if isinstance(rec, list) else [rec] if rec is not None else []):
                r.call, r.us = c["call"], c["us"]
                records.append(r)
    return om.fuse_rmsnorm(records)[0]


def check_schema(test, records):
    for r in records:
        if r.family == "other":
            continue
        test.assertIn(r.family, SCHEMA, r)
        test.assertEqual(set(r.fields) - SCHEMA[r.family], set(), r)
        if r.family == "pointwise":
            test.assertIn(r.fields["op"], POINTWISE_OPS, r)
        if r.family == "reduce":
            test.assertIn(r.fields["op"], REDUCE_OPS, r)


class Gpt2Layer(unittest.TestCase):
    """HF GPT2Model with sdpa: embeddings and one layer, B=2, L=8."""

    def setUp(self):
        self.records = load_calls("gpt2_layer.calls.jsonl")

    def test_families(self):
        check_schema(self, self.records)
        fams = [r.family for r in self.records]
        self.assertEqual(fams.count("gemm"), 4)
        self.assertEqual(fams.count("attention"), 1)
        self.assertEqual(fams.count("gather"), 2)
        self.assertEqual([r.source_op for r in self.records if r.family == "other"], ["aten::arange"])

    def test_attention_is_causal_bshd(self):
        att = next(r for r in self.records if r.family == "attention")
        self.assertEqual(att.fields, {"batch": 2, "heads_q": 12, "heads_kv": 12, "seq_q": 8, "seq_kv": 8,
                                      "head_dim": 64, "mask": "causal", "layout": "bshd"})
        self.assertEqual(att.direction, "fwd")

    def test_embeddings(self):
        wte, wpe = [r for r in self.records if r.family == "gather"]
        self.assertEqual(wte.fields, {"rows": 16, "cols": 768, "table_rows": 50257})
        self.assertEqual(wpe.fields, {"rows": 8, "cols": 768, "table_rows": 1024})
        # the position embeddings broadcast over the batch: one full-size operand
        self.assertEqual(self.records[3].fields, {"op": "scale", "rows": 16, "cols": 768})

    def test_gelu_new_is_eight_pointwise_calls(self):
        ops = [r.fields["op"] for r in self.records[11:19]]
        self.assertEqual(ops, ["scale", "scale", "scale", "add", "scale", "tanh", "scale", "mul"])
        self.assertTrue(all(r.fields["rows"] == 16 and r.fields["cols"] == 3072 for r in self.records[11:19]))

    def test_conv1d_gemm(self):
        qkv = self.records[5]
        self.assertEqual(qkv.fields, {"m": 2304, "n": 16, "k": 768, "ta": "N", "tb": "N", "batch": 1})

    def test_coverage(self):
        cov = om.coverage(self.records)
        self.assertAlmostEqual(cov["total_us"], 247.5)
        self.assertAlmostEqual(cov["other_us"], 1.5)
        self.assertAlmostEqual(cov["coverage"], 246 / 247.5)
        self.assertAlmostEqual(cov["families"]["attention"], 40.0)
        # kernels outside every recorded call count in the total, not in the covered time
        cov = om.coverage(self.records, total_us=300.0)
        self.assertAlmostEqual(cov["unattributed_us"], 52.5)
        self.assertAlmostEqual(cov["coverage"], 246 / 300)
        self.assertEqual(om.top_uncovered(self.records), [("aten::arange", 1.5)])


class LlamaLayer(unittest.TestCase):
    """HF LlamaModel (Llama-3-8B-like, GQA 32/8) with sdpa in fp16: decomposed RMSNorm, rotary, one layer."""

    def setUp(self):
        self.records = load_calls("llama_layer.calls.jsonl")

    def test_rmsnorm_pattern_fused(self):
        norms = [r for r in self.records if r.fields.get("op") == "rmsnorm"]
        self.assertEqual(len(norms), 2)
        for n in norms:
            self.assertEqual(n.family, "reduce")
            self.assertEqual(n.fields, {"op": "rmsnorm", "rows": 8, "cols": 4096})
            self.assertAlmostEqual(n.us, 8.0)  # the eight calls' kernel time
            self.assertEqual(n.source_op, "rmsnorm (_to_copy+pow+mean+add+rsqrt+mul+_to_copy+mul)")
        # nothing of the pattern is left behind
        self.assertFalse(any(r.source_op in ("aten::rsqrt", "aten::pow") for r in self.records))

    def test_gqa_attention(self):
        att = next(r for r in self.records if r.family == "attention")
        self.assertEqual(att.fields["heads_q"], 32)
        self.assertEqual(att.fields["heads_kv"], 8)
        self.assertEqual(att.fields["head_dim"], 128)
        self.assertEqual(att.fields["layout"], "bhsd")  # q and k from RoPE are bhsd, v is bshd: the majority
        self.assertEqual(att.fields["mask"], "causal")

    def test_permute_of_output(self):
        p = next(r for r in self.records if r.family == "permute")
        self.assertEqual(p.fields, {"d0": 1, "d1": 32, "d2": 8, "d3": 128, "perm": "0213"})

    def test_rope_and_mlp(self):
        check_schema(self, self.records)
        rope = [r.fields.get("op") for r in self.records if r.source_op in ("aten::neg", "aten::cat")]
        self.assertEqual(rope, ["copy", "scale", "copy", "scale", "copy"])  # the rotary table's cat first
        self.assertIn({"op": "silu", "rows": 8, "cols": 14336}, [r.fields for r in self.records])
        gate = next(r for r in self.records if r.family == "gemm" and r.fields["m"] == 14336)
        self.assertEqual(gate.fields, {"m": 14336, "n": 8, "k": 4096, "ta": "T", "tb": "N", "batch": 1})

    def test_coverage_above_95(self):
        cov = om.coverage(self.records)
        self.assertEqual([r.source_op for r in self.records if r.family == "other"], ["aten::arange"])
        self.assertGreater(cov["coverage"], 0.95)


class RmsNormPattern(unittest.TestCase):
    def rec(self, op, args, out, us=1.0):
        r = om.map_call(op, args, {}, out)
        r.us = us
        return r

    def core(self, rows=4, cols=64, dim=-1):
        x, r = T([rows, cols], dtype="float32"), T([rows, 1], dtype="float32")
        return [self.rec("pow", [x, 2], x), self.rec("mean", [x, [dim], True], r), self.rec("add", [r, 1e-6], r),
                self.rec("rsqrt", [r], r), self.rec("mul", [x, r], x)]

    def test_fp32_without_casts(self):
        x = T([4, 64], dtype="float32")
        records = self.core() + [self.rec("mul", [x, T([64], dtype="float32")], x)]
        fused, n = om.fuse_rmsnorm(records)
        self.assertEqual(n, 1)
        self.assertEqual(len(fused), 1)
        self.assertEqual(fused[0].fields, {"op": "rmsnorm", "rows": 4, "cols": 64})
        self.assertAlmostEqual(fused[0].us, 6.0)

    def test_without_weight_keeps_the_next_call(self):
        x = T([4, 64], dtype="float32")
        records = self.core() + [self.rec("relu", [x], x)]
        fused, n = om.fuse_rmsnorm(records)
        self.assertEqual(n, 1)
        self.assertEqual([r.fields["op"] for r in fused], ["rmsnorm", "relu"])

    def test_mean_over_other_dim_is_no_rmsnorm(self):
        fused, n = om.fuse_rmsnorm(self.core(dim=0))
        self.assertEqual(n, 0)
        self.assertEqual(len(fused), 5)

    def test_unknown_time_stays_unknown(self):
        records = self.core()
        records[2].us = None
        self.assertIsNone(om.fuse_rmsnorm(records)[0][0].us)


class ResidualNorm(unittest.TestCase):
    def test_add_then_norm(self):
        llama = load_calls("llama_layer.calls.jsonl")
        fused, n = om.fuse_residual_norm(llama)
        self.assertEqual(n, 1)  # the attention's residual add and the post-attention RMSNorm
        rec = next(r for r in fused if r.fields.get("op") == "add_rmsnorm")
        self.assertEqual(rec.fields, {"op": "add_rmsnorm", "rows": 8, "cols": 4096})
        self.assertAlmostEqual(rec.us, 2.0 + 8.0)
        self.assertEqual(len(fused), len(llama) - 1)
        gpt2, n = om.fuse_residual_norm(load_calls("gpt2_layer.calls.jsonl"))
        self.assertEqual(n, 1)
        self.assertEqual([r.fields["op"] for r in gpt2 if r.family == "reduce"], ["layernorm", "add_layernorm"])


class FusedRmsNorm(unittest.TestCase):
    """--fused-rmsnorm: the RMSNorm modules run torch's rms_norm, recorded whole, as the same reduce case."""

    def test_rms_norm_calls_are_the_rmsnorm_case(self):
        x, w = T([1, 8, 4096], dtype="float16"), T([4096], dtype="float16")
        decomposed = [r for r in load_calls("llama_layer.calls.jsonl") if r.fields.get("op") == "rmsnorm"][0]
        # F.rms_norm as the torch-function mode sees it (weight and eps by keyword), and torch's fused kernel as the
        # dispatcher sees it (a tuple: the output and rstd)
        seen = om.map_call("rms_norm", [x, [4096]], {"weight": w, "eps": 1e-5}, x)
        fused = om.map_call("_fused_rms_norm", [x, [4096], w, 1e-5], {}, [x, T([1, 8, 1], dtype="float32")])
        by_keyword = om.map_call("rms_norm", [x], {"normalized_shape": [4096], "weight": w}, x)
        for rec in (seen, fused, by_keyword):
            self.assertEqual((rec.family, rec.fields), ("reduce", decomposed.fields))
        self.assertEqual(seen.source_op, "aten::rms_norm")
        self.assertEqual(om.map_call("rms_norm", [T([6, 4, 64]), [4, 64]], {}, T([6, 4, 64])).fields,
                         {"op": "rmsnorm", "rows": 6, "cols": 256})
        self.assertIn("rms_norm", em.WHOLE_FUNCTIONS)  # one call on meta (where it decomposes) and on the GPU
        # the residual add before it still pairs with it under --fuse-residual-norm
        add = om.map_call("add", [x, x], {}, x)
        pair, n = om.fuse_residual_norm([add, seen])
        self.assertEqual((n, pair[0].fields["op"]), (1, "add_rmsnorm"))

    def test_modules_replaced(self):
        class LlamaRMSNorm:  # HF's
            def __init__(self):
                self.weight, self.variance_epsilon = T([4096], dtype="float16"), 1e-5

        class RMSNorm:  # model_zoo's and torch's nn.RMSNorm: eps
            def __init__(self, eps):
                self.weight, self.eps = T([64]), eps

        class LayerNorm:
            def __init__(self):
                self.weight, self.eps = T([64]), 1e-5

        class Model:
            def __init__(self, parts):
                self.parts = parts

            def modules(self):
                return [self] + self.parts

        no_weight = RMSNorm(1e-6)
        no_weight.weight = None
        llama, own, layer, no_eps = LlamaRMSNorm(), RMSNorm(1e-6), LayerNorm(), RMSNorm(None)
        calls = []
        n = em.use_fused_rmsnorm(Model([llama, own, layer, no_weight, no_eps]),
                                 rms_norm=lambda *a: calls.append(a) or "y")
        self.assertEqual(n, 2)
        self.assertFalse(hasattr(layer, "forward") or hasattr(no_weight, "forward") or hasattr(no_eps, "forward"))
        self.assertEqual(llama.forward("x"), "y")
        self.assertEqual(calls[-1], ("x", (4096,), llama.weight, 1e-5))
        own.weight = T([64], dtype="float16")  # the model cast after the patch: the call takes the weight it has now
        own.forward("x")
        self.assertEqual(calls[-1], ("x", (64,), own.weight, 1e-6))

    def test_model_without_rmsnorm_is_an_error(self):
        class Model:
            def modules(self):
                return [self]

        class Spec:
            name = "resnet50_fused_rmsnorm"
        saved, em.FUSED_RMSNORM = em.FUSED_RMSNORM, True
        try:
            with self.assertRaises(SystemExit) as e:
                em.as_configured(Spec, Model(), ())
        finally:
            em.FUSED_RMSNORM = saved
        self.assertIn("resnet50_fused_rmsnorm: --fused-rmsnorm: the model has no RMSNorm module", str(e.exception))
        model = Model()
        self.assertEqual(em.as_configured(Spec, model, ("ids",)), (model, ("ids",)))  # unchanged by default

    def test_a_variants_spec_is_the_model_renamed(self):
        class Zoo:
            class Spec:
                def __init__(self, name, area, task, source, defaults, build, inputs, mode="inference", uncovered=""):
                    self.name, self.area, self.task, self.source, self.mode = name, area, task, source, mode
                    self.defaults, self.build, self.inputs, self.uncovered = defaults, build, inputs, uncovered
        base = Zoo.Spec("llama7b", "nlp", "prefill", "hf", {"B": 1}, "build", "inputs", mode="inference",
                        uncovered="lm head")
        v = em.variant_spec(Zoo, base, "fused_rmsnorm", "RMSNorm fused")
        self.assertEqual((v.name, v.task), ("llama7b_fused_rmsnorm", "prefill, RMSNorm fused"))
        self.assertEqual((v.area, v.source, v.defaults, v.build, v.inputs, v.mode, v.uncovered),
                         ("nlp", "hf", {"B": 1}, "build", "inputs", "inference", "lm head"))

    def test_table_says_the_configuration(self):
        class Spec:
            name, area, task, source, mode = "tiny_fused_rmsnorm", "nlp", "test", "synthetic", "inference"
            defaults = {"B": 1, "L": 8}
        x = T([1, 8, 4096], dtype="float16")
        records = [om.map_call("rms_norm", [x, [4096]], {"weight": T([4096], dtype="float16"), "eps": 1e-5}, x)]
        texts = []
        saved = em.FUSED_RMSNORM
        try:
            for fused in (True, False):
                em.FUSED_RMSNORM = fused
                with tempfile.TemporaryDirectory() as tmp:
                    path = os.path.join(tmp, "t.yaml")
                    em.write_table(path, Spec, records, 0, True)
                    with open(path) as f:
                        texts.append(f.read())
        finally:
            em.FUSED_RMSNORM = saved
        self.assertIn("mode: inference\nframework_config: fused_rmsnorm\ninputs: {B: 1, L: 8}\n", texts[0])
        self.assertIn('- {family: reduce, calls: 1, source_op: "aten::rms_norm", op: rmsnorm, rows: 8, cols: 4096}',
                      texts[0])
        self.assertNotIn("framework_config", texts[1])


class Attention(unittest.TestCase):
    def setUp(self):
        self.records = load_calls("attention_calls.calls.jsonl")

    def test_masks(self):
        kinds = [(r.family, r.fields.get("mask")) for r in self.records[:5]]
        self.assertEqual(kinds, [("attention", "none"), ("attention", "causal"), ("other", None),
                                 ("other", None), ("attention", "none")])
        # a mask of another pattern, or one whose values the trace could not see (meta), is not guessed
        self.assertIn("neither none nor causal", self.records[2].source_op)

    def test_layouts(self):
        self.assertEqual(self.records[0].fields["layout"], "bshd")
        self.assertEqual(self.records[4].fields["layout"], "bhsd")

    def test_fused_back_ends_and_backward(self):
        flash, eff, cudnn, bwd, three_d = self.records[5:]
        for r in (flash, eff, cudnn):
            self.assertEqual(r.family, "attention")
            self.assertEqual(r.fields["mask"], "causal")
            self.assertEqual(r.direction, "fwd")
        self.assertEqual(flash.fields["layout"], "bhsd")
        self.assertEqual(eff.fields["layout"], "bshd")
        self.assertEqual(bwd.direction, "bwd")
        self.assertEqual(bwd.fields["mask"], "causal")
        self.assertEqual(bwd.fields["seq_kv"], 16)
        self.assertEqual(three_d.fields, {"batch": 1, "heads_q": 24, "heads_kv": 24, "seq_q": 16, "seq_kv": 16,
                                          "head_dim": 64, "mask": "none", "layout": "bhsd"})

    def test_mask_kind(self):
        self.assertEqual(om.mask_kind(None, True), "causal")
        self.assertEqual(om.mask_kind(T([8, 8], mask="causal"), False), "causal")
        self.assertIsNone(om.mask_kind(T([8, 8]), False))


class Permute(unittest.TestCase):
    @staticmethod
    def view(shape, perm):
        """storage.permute(perm) of a contiguous storage of `shape`."""
        strides = om.contiguous_strides(shape)
        return T([shape[p] for p in perm], [strides[p] for p in perm])

    def test_four_d(self):
        self.assertEqual(om.permute_of(self.view([2, 16, 12, 64], [0, 2, 1, 3])), ([2, 16, 12, 64], "0213"))
        self.assertEqual(om.permute_of(self.view([2, 16, 12, 64], [0, 1, 3, 2])), ([2, 16, 12, 64], "0132"))
        self.assertEqual(om.permute_of(self.view([2, 16, 12, 64], [0, 2, 3, 1])), ([2, 16, 12, 64], "0231"))
        self.assertEqual(om.permute_of(self.view([2, 16, 12, 64], [0, 3, 1, 2])), ([2, 16, 12, 64], "0312"))

    def test_small_and_merged(self):
        self.assertEqual(om.permute_of(self.view([32, 48], [1, 0])), ([1, 1, 32, 48], "0132"))
        self.assertEqual(om.permute_of(self.view([4, 3, 1024], [0, 2, 1])), ([1, 4, 3, 1024], "0132"))
        # five dimensions, two of which stay neighbours: they merge into one
        self.assertEqual(om.permute_of(self.view([2, 3, 4, 5, 6], [0, 1, 3, 2, 4])), ([6, 4, 5, 6], "0213"))
        self.assertEqual(om.permute_of(self.view([2, 16, 12, 64], [0, 1, 2, 3])), "copy")

    def test_orders_the_family_does_not_run_are_merged_into_one_it_does(self):
        # 2013 over [a, b, c, d] (ViT's class-token transpose) is 102 over [a*b, c, d]: 0213 padded
        self.assertEqual(om.permute_of(self.view([1, 8, 768, 197], [2, 0, 1, 3])), ([1, 8, 768, 197], "0213"))
        self.assertEqual(om.permute_of(self.view([3, 4, 5, 6], [2, 0, 1, 3])), ([1, 12, 5, 6], "0213"))
        self.assertEqual(om.permute_of(self.view([3, 4, 5, 6], [1, 2, 3, 0])), ([1, 1, 3, 120], "0132"))
        self.assertIsNone(om.permute_of(self.view([3, 4, 5, 6], [3, 2, 1, 0])))  # no neighbours: none it runs

    def test_not_a_permutation(self):
        self.assertIsNone(om.permute_of(T([2, 12, 16, 64], [0, 64, 0, 1])))  # expanded
        self.assertIsNone(om.permute_of(self.view([2, 3, 4, 5, 6], [4, 2, 0, 3, 1])))  # five dims stay

    def test_copies(self):
        v = self.view([2, 16, 12, 64], [0, 2, 1, 3])
        self.assertEqual(om.map_call("clone", [v], {}, T(v.shape)).family, "permute")
        self.assertEqual(om.map_call("copy_", [T(v.shape), v], {}, T(v.shape)).fields["perm"], "0213")
        expanded = T([2, 12, 16, 64], [0, 64, 0, 1])
        self.assertEqual(om.map_call("clone", [expanded], {}, T(expanded.shape)).fields,
                         {"op": "copy", "rows": 384, "cols": 64})


class OtherMappings(unittest.TestCase):
    def test_scalars_and_broadcasts(self):
        x = T([8, 16])
        self.assertEqual(om.map_call("div", [x, T([])], {}, x).fields["op"], "scale")  # a 0-dim tensor
        self.assertEqual(om.map_call("add", [x, T([16])], {}, x).fields["op"], "bias_add")
        self.assertEqual(om.map_call("sub", [x, x], {}, x).fields["op"], "add")
        self.assertEqual(om.map_call("mul", [T([8, 1]), T([1, 16])], {}, x).family, "other")

    def test_masked_fill_softmax_log_softmax(self):
        x = T([8, 16])
        self.assertEqual(om.map_call("masked_fill", [x, T([8, 16], dtype="bool"), -1e4], {}, x).fields,
                         {"op": "masked_fill", "rows": 8, "cols": 16})
        self.assertEqual(om.map_call("_log_softmax", [x, -1, False], {}, x).fields["op"], "log_softmax")

    def test_index_and_embedding_bag(self):
        pts = T([4, 1024, 3])
        out = om.map_call("index", [pts, [T([4, 1], dtype="int64"), T([4, 512], dtype="int64")]], {},
                          T([4, 512, 3]))
        self.assertEqual(out.fields, {"rows": 2048, "cols": 3, "table_rows": 4096})
        bag = om.map_call("_embedding_bag", [T([100000, 128]), T([2048], dtype="int64"), T([2048], dtype="int64")],
                          {}, [T([2048, 128])])
        self.assertEqual(bag.fields, {"rows": 2048, "cols": 128, "table_rows": 100000})

    def test_vision_and_point_cloud_calls(self):
        # BatchNorm1d on [B, C]: h = w = 1
        self.assertEqual(om.map_call("_native_batch_norm_legit_no_training", [T([32, 512]), T([512]), T([512]),
                                     T([512]), T([512]), 0.1, 1e-5], {}, [T([32, 512])]).fields,
                         {"n": 32, "c": 512, "h": 1, "w": 1, "mode": "inference"})
        # SSD's head: view(N, A, K, H, W).permute(0, 3, 4, 1, 2).reshape(N, -1, K): five dims merge to three
        v = Permute.view([8, 6, 21, 38, 38], [0, 3, 4, 1, 2])
        self.assertEqual(om.map_call("clone", [v], {}, T(v.shape)).fields,
                         {"d0": 1, "d1": 8, "d2": 126, "d3": 1444, "perm": "0132"})
        # DGCNN's edge features: permute(0, 3, 1, 2).contiguous()
        v = Permute.view([32, 1024, 20, 6], [0, 3, 1, 2])
        self.assertEqual(om.map_call("clone", [v], {}, T(v.shape)).fields["perm"], "0312")
        # a comparison with a scalar (PointNet++'s d > r^2) reads one tensor
        self.assertEqual(om.map_call("gt", [T([16, 512, 1024]), 0.04], {}, T([16, 512, 1024], dtype="bool")).fields,
                         {"op": "scale", "rows": 8192, "cols": 1024})

    def test_views_launch_nothing(self):
        self.assertIsNone(om.map_call("transpose", [T([2, 3]), 0, 1], {}, T([3, 2], [1, 3])))

    def test_channels_last_conv_is_nhwc(self):
        w = T([64, 32, 3, 3], [288, 1, 96, 32])
        x = T([2, 32, 8, 8], [2048, 1, 256, 32])  # torch.channels_last strides
        args = [x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1]
        self.assertEqual(om.map_call("convolution", args, {}, T([2, 64, 8, 8])).fields["layout"], "NHWC")
        plain = [T([2, 32, 8, 8]), T([64, 32, 3, 3])] + args[2:]
        self.assertNotIn("layout", om.map_call("convolution", plain, {}, T([2, 64, 8, 8])).fields)
        self.assertFalse(om.channels_last(T([2, 32, 1, 1], [32, 1, 32, 32])))  # 1x1: NCHW, the same memory

    def test_channels_last_batchnorm_and_pool_are_nhwc(self):
        x = T([2, 32, 8, 8], [2048, 1, 256, 32])  # torch.channels_last strides
        params = [T([32]), T([32]), T([32]), T([32])]
        inference = om.map_call("_native_batch_norm_legit_no_training", [x] + params + [0.1, 1e-5], {}, [x]).fields
        self.assertEqual(inference["layout"], "NHWC")
        self.assertNotIn("impl", inference)  # opmark's NHWC inference normalisation
        train = om.map_call("native_batch_norm", [x] + params + [True, 0.1, 1e-5], {}, [x]).fields
        self.assertEqual((train["layout"], train["impl"]), ("NHWC", "cudnn"))  # NHWC training is cuDNN's
        pool = om.map_call("max_pool2d_with_indices", [x, [3, 3], [2, 2], [1, 1]], {}, [T([2, 32, 4, 4])]).fields
        self.assertEqual((pool["layout"], pool["impl"], pool["mode"]), ("NHWC", "cudnn", "max"))
        # contiguous: no layout (NCHW, the default), opmark's kernels
        plain = T([2, 32, 8, 8])
        self.assertNotIn("layout", om.map_call("_native_batch_norm_legit_no_training", [plain] + params +
                                               [0.1, 1e-5], {}, [plain]).fields)
        self.assertNotIn("layout", om.map_call("max_pool2d_with_indices", [plain, [3, 3], [2, 2], [1, 1]], {},
                                               [T([2, 32, 4, 4])]).fields)
        # a channels_last model: every 4-D activation, whatever the shape trace's strides, but not at 1x1
        om.CHANNELS_LAST_MODEL = True
        try:
            self.assertEqual(om.map_call("avg_pool2d", [plain, [2, 2]], {}, T([2, 32, 4, 4])).fields["layout"], "NHWC")
            one_pixel = T([2, 32, 1, 1])
            self.assertNotIn("layout", om.map_call("_native_batch_norm_legit_no_training", [one_pixel] + params +
                                                   [0.1, 1e-5], {}, [one_pixel]).fields)
        finally:
            om.CHANNELS_LAST_MODEL = False

    def test_pooling_and_reductions(self):
        x = T([2, 512, 7, 7])
        self.assertEqual(om.map_call("_adaptive_avg_pool2d", [x, [7, 7]], {}, x).fields["op"], "copy")
        self.assertEqual(om.map_call("amax", [T([4, 64, 32]), [2]], {}, T([4, 64])).fields,
                         {"op": "max", "rows": 256, "cols": 32})
        self.assertEqual(om.map_call("max", [T([4, 64, 32]), 1], {}, [T([4, 32])]).family, "other")


class KernelAttribution(unittest.TestCase):
    def test_profile(self):
        with open(os.path.join(DATA, "profile_small.json")) as f:
            per_call, total, lost = om.attribute_kernels(json.load(f))
        self.assertEqual(per_call, {0: 7.0, 1: 4.0, 2: 2.0})  # call 1: a kernel and a memset
        self.assertAlmostEqual(total, 17.5)  # the range's GPU annotation is no kernel
        self.assertAlmostEqual(lost, 4.5)  # launched between the ranges, and one with no launch seen

    def test_kernel_names_per_call(self):
        with open(os.path.join(DATA, "profile_small.json")) as f:
            names = {}
            om.attribute_kernels(json.load(f), names)
        self.assertEqual(names[0], {"ampere_fp16_s16816gemm": 7.0})
        self.assertEqual(names[1], {"flash_fwd_kernel": 3.0})  # and a memset, which is no kernel

    def test_kernel_names_for_the_table(self):
        import extract_models as em
        names = em.kernel_names({"void cudnn::bn_fw_inf<__half, float>(float, float*)": 3.0, "short": 5.0,
                                 "a": 1.0, "b": 0.5})
        self.assertEqual(names, ["short", "void cudnn::bn_fw_inf<__half, float>", "a"])

    def test_kernel_totals(self):
        with open(os.path.join(DATA, "profile_small.json")) as f:
            totals = om.kernel_totals(json.load(f))
        # kernels only: the memset and the range's GPU annotation are not
        self.assertEqual(totals, {"ampere_fp16_s16816gemm": [1, 7.0], "flash_fwd_kernel": [1, 3.0],
                                  "elementwise_kernel": [1, 4.0], "vectorized_elementwise_kernel": [1, 2.0],
                                  "nccl_unlaunched": [1, 0.5]})


class GraphTimes(unittest.TestCase):
    """The tracer's bounds on graph_ms (extract_models.graph_suspicion) on this session's H100 numbers, and the
    --diagnose-graph listing."""

    def test_within_bounds(self):
        self.assertEqual(em.graph_suspicion(3.9338, 6.9135, 3.8726), "")  # resnet50
        self.assertEqual(em.graph_suspicion(None, 6.9, 3.8), "")  # no capture: nothing to doubt
        self.assertEqual(em.graph_suspicion(1.05, 1.0, 1.0), "")  # the bounds leave room for noise

    def test_slower_than_eager(self):
        line = em.graph_suspicion(39.8267, 8.4862, 7.8112)  # bert_base
        self.assertEqual(line, "# graph_ms suspect: the CUDA-graph replay (39.827 ms) is 4.69x the eager pass "
                               "(8.486 ms), which has the same kernels and the launch gaps besides; and 5.10x the "
                               "eager pass's profiled kernel time (7.811 ms); the score check uses kernel_ms "
                               "(7.811 ms) instead (graph_suspect: true).")

    def test_slower_than_its_kernels(self):
        line = em.graph_suspicion(16.4943, 15.7807, 14.0645)  # gpt2: within 5% of eager, 1.17x its kernels
        self.assertIn("(16.494 ms) is 1.17x the eager pass's profiled kernel time (14.065 ms);", line)
        self.assertNotEqual(em.graph_suspicion(65.7409, 64.5044, 57.8679), "")  # llama7b, 1.14x
        self.assertEqual(em.graph_suspicion(2.1925, 9.2083, 2.1160), "")  # mobilenet_v2, 1.04x

    def test_below_kernel_time_is_overlap(self):
        # deepspeech2: its GRU directions run on streams that overlap in the graph.
        self.assertEqual(em.graph_suspicion(32.6746, 112.3297, 48.2429), "")

    def test_flag_in_measured(self):
        class Spec:
            name, area, task, source, mode = "tiny", "nlp", "test", "synthetic", "inference"
            defaults = {"B": 2, "L": 8}
        records = load_calls("gpt2_layer.calls.jsonl")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tiny.yaml")
            em.write_table(path, Spec, records, 0, True, {"device": "GPU", "precision": "fp16", "graph_ms": 2.0,
                                                          "eager_ms": 0.9, "kernel_ms": 0.26, "graph_suspect": True},
                           [], "2.11.0")
            with open(path) as f:
                text = f.read()
        self.assertIn("graph_ms: 2.0000, eager_ms: 0.9000, kernel_ms: 0.2600, graph_suspect: true}", text)

    def test_kernels_side_by_side(self):
        graph = {"flash_fwd_kernel": [12, 9000.0], "gemm": [48, 4000.0], "math_sdpa_softmax": [12, 26000.0]}
        eager = {"flash_fwd_kernel": [12, 850.0], "gemm": [48, 4000.0]}
        lines = em.kernels_side_by_side(graph, eager, top=2, width=20).splitlines()
        self.assertEqual(lines[0], "graph replay: 72 kernels, 39000.0 us   | eager pass: 60 kernels, 4850.0 us")
        self.assertEqual(lines[2], "math_sdpa_softmax        12    26000.0 | gemm                     48     4000.0")
        self.assertEqual(lines[3], "flash_fwd_kernel         12     9000.0 | flash_fwd_kernel         12      850.0")
        self.assertEqual(len(lines), 4)  # top=2 rows under the two header lines


class Tables(unittest.TestCase):
    def test_fit_and_evaluate(self):
        base = {"B": 2, "L": 8}
        self.assertEqual(em.fit_expression({None: 16, "B": 32, "L": 32}, base, ["B", "L"]), "B*L")
        self.assertEqual(em.fit_expression({None: 12, "B": 24, "L": 12}, base, ["B", "L"]), "6*B")
        self.assertEqual(em.fit_expression({None: 4, "B": 4, "L": 8}, base, ["B", "L"]), "L/2")
        # 3 at B = 2 and 5 at B = 4: no monomial, B + 1 (fit_records checks every fit at 3x the inputs)
        self.assertEqual(em.fit_expression({None: 3, "B": 5, "L": 3}, base, ["B", "L"]), "B+1")
        self.assertIsNone(em.fit_expression({None: 3, "B": 4, "L": 3}, base, ["B", "L"]))
        self.assertEqual(em.evaluate("L/2", {"L": 24}), 12)

    def test_fit_records_keeps_choice_fields(self):
        def att(b, l):
            return om.map_call("scaled_dot_product_attention", [T([b, 12, l, 64])] * 3, {"is_causal": True},
                               T([b, 12, l, 64]))
        base, check = {"B": 2, "L": 8}, {"B": 6, "L": 24}
        records = [att(2, 8)]
        unfitted, same = em.fit_records(records, {"B": [att(4, 8)], "L": [att(2, 16)]}, [att(6, 24)], base, check)
        self.assertEqual((len(unfitted), same), (0, True))
        f = records[0].fields
        self.assertEqual((f["batch"], f["seq_q"], f["heads_q"], f["mask"]), ("B", "L", 12, "causal"))
        # A check trace the fit misses (25 tokens at 3x, not 24): seq_q and seq_kv stay constant, each named with its
        # traced values.
        records = [att(2, 8)]
        unfitted, _ = em.fit_records(records, {"B": [att(4, 8)], "L": [att(2, 16)]}, [att(6, 25)], base, check)
        self.assertEqual(len(unfitted), 2)
        self.assertEqual(unfitted[0], "aten::scaled_dot_product_attention seq_q {None: 8, 'B': 8, 'L': 16, '3x': 25}")
        self.assertEqual(records[0].fields["seq_q"], 8)

    def test_fit_expressions(self):
        base = {"B": 2, "L": 16}
        # monomials: B*L, a constant, L/2
        self.assertEqual(em.fit_expression({None: 32, "B": 64, "L": 64}, base, ["B", "L"]), "B*L")
        self.assertEqual(em.fit_expression({None: 768, "B": 768, "L": 768}, base, ["B", "L"]), "768")
        self.assertEqual(em.fit_expression({None: 8, "B": 8, "L": 16}, base, ["B", "L"]), "L/2")
        # affine in one symbol: GPT-2's training step concatenates L + 1 positions
        self.assertEqual(em.fit_expression({None: 17, "B": 17, "L": 33}, base, ["B", "L"]), "L+1")
        self.assertEqual(em.fit_expression({None: 31, "B": 31, "L": 63}, base, ["B", "L"]), "2*L-1")
        self.assertEqual(em.evaluate("L+1", {"B": 6, "L": 48}), 49)
        self.assertEqual(em.evaluate("2*L-1", {"L": 48}), 95)
        self.assertEqual(em.evaluate("B*L/4", {"B": 6, "L": 48}), 72)
        # neither: moved by two symbols, or not by a whole multiple
        self.assertIsNone(em.fit_expression({None: 19, "B": 21, "L": 35}, base, ["B", "L"]))
        self.assertIsNone(em.fit_expression({None: 17, "B": 17, "L": 40}, base, ["B", "L"]))

    def test_write_table(self):
        class Spec:
            name, area, task, source, mode = "tiny", "nlp", "test", "synthetic", "inference"
            defaults = {"B": 2, "L": 8}
        records = load_calls("gpt2_layer.calls.jsonl")
        cov = om.coverage(records, 260.0)
        header = em.coverage_comment(cov, om.top_uncovered(records), "why not")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tiny.yaml")
            em.write_table(path, Spec, records, 0, True, {"device": "NVIDIA H100 80GB HBM3", "precision": "fp16",
                                                          "graph_ms": 0.2, "eager_ms": 0.9, "kernel_ms": 0.26},
                           header, "2.11.0")
            text = open(path).read()
        self.assertIn('measured: {device: "NVIDIA H100 80GB HBM3", precision: fp16, graph_ms: 0.2000, '
                      'eager_ms: 0.9000, kernel_ms: 0.2600}', text)
        self.assertIn("in benchmarked families 0.246 ms (94.6%)", text)
        self.assertIn("# uncovered: why not", text)
        self.assertIn("- {family: attention, calls: 1, source_op: \"aten::scaled_dot_product_attention\", "
                      "traced_us: 40.000, batch: 2, heads_q: 12, heads_kv: 12, seq_q: 8, seq_kv: 8, head_dim: 64, "
                      "mask: causal, layout: bshd}", text)
        # perm strings such as 0213 must stay strings in YAML
        self.assertEqual(em.yaml_value("0213"), '"0213"')
        # identical calls merge, with their count
        self.assertIn("{family: pointwise, calls: 2, source_op: \"aten::add\", traced_us: 5.000, op: add, rows: 16, "
                      "cols: 768}", text)


if __name__ == "__main__":
    unittest.main()

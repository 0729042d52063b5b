#!/usr/bin/env python3
"""Exports models of torchvision and transformers to ONNX, built from their configs with random weights (no
download), for import_onnx.py: the models issue 55 imports, most of them in no committed table.

    python3 shapes/models/export_onnx.py --out DIR [--models vit_b_16,distilbert,...] [--measure] [--list]

Needs PyTorch, torchvision, transformers and onnx (the GPU machine's image has them; the export itself runs on the
CPU). Each model is exported with its batch (and for language models its sequence) as a dynamic dimension named
`batch` (`sequence`), which import_onnx.py makes the table's inputs B (L). A model that fails to export is named
with its error and the others go on; the exit status is 1 when any failed. Beside each MODEL.onnx it writes
MODEL.graph.onnx, the graph without its weights, which import_onnx.py imports as well (anywhere, without the GPU).

--measure (needs a GPU) also times each model on it, in --dtype (default fp16), at the inputs import_onnx.py gives
the table by default, as extract_models.py times the zoo's models, and writes DIR/<model>.measured.json for
`import_onnx.py --measured`: the table's measured entry (CUDA-graph replay, eager pass and profiled kernel time)
and header lines with the share of the kernel time in operators opmark's families take (the PyTorch pass traced
through the same op_mapping the importer uses).
"""
import argparse
import datetime
import json
import math
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import import_onnx  # noqa: E402  (the table's default input sizes)

IMAGE = (3, 224, 224)


def torchvision_model(name):
    import torchvision
    return getattr(torchvision.models, name)(weights=None).eval()


# transformers models built from their default configs: (model class, config class, input name).
HF_MODELS = {"bert_base": ("BertModel", "BertConfig", "input_ids"),
             "distilbert": ("DistilBertModel", "DistilBertConfig", "input_ids"),
             "roberta": ("RobertaModel", "RobertaConfig", "input_ids"),
             "albert": ("AlbertModel", "AlbertConfig", "input_ids"),
             "gpt2": ("GPT2Model", "GPT2Config", "input_ids"),
             "t5_encoder": ("T5EncoderModel", "T5Config", "input_ids"),
             "vit_hf": ("ViTModel", "ViTConfig", "pixel_values")}


# The input of the transformers models outside HF_MODELS.
OTHER_INPUTS = {"whisper_encoder": "input_features", "mixtral_block": "input_ids"}


def hf_model(kind):
    """A transformers model from its config alone (random weights)."""
    import transformers as tf
    if kind in HF_MODELS:
        model, config, _ = HF_MODELS[kind]
        return getattr(tf, model)(getattr(tf, config)())
    if kind == "whisper_encoder":
        return tf.WhisperModel(tf.WhisperConfig()).get_encoder()
    if kind == "mixtral_block":
        cfg = tf.MixtralConfig(hidden_size=1024, intermediate_size=3584, num_hidden_layers=1, num_attention_heads=16,
                               num_key_value_heads=4, num_local_experts=8, num_experts_per_tok=2)
        return tf.MixtralModel(cfg)
    raise KeyError(kind)


TORCHVISION = ["resnet50", "mobilenet_v3_large", "efficientnet_b0", "regnet_y_400mf", "convnext_tiny", "vit_b_16",
               "swin_t", "densenet121", "squeezenet1_0", "shufflenet_v2_x1_0", "mnasnet1_0", "alexnet", "vgg16"]
TRANSFORMERS = list(HF_MODELS) + ["whisper_encoder", "mixtral_block"]
MODELS = TORCHVISION + TRANSFORMERS


def input_kind(name):
    """What the model reads: "image" (3 x 224 x 224), "features" (Whisper's 80 mel bins over 3000 frames, fixed by
    its positions) or "tokens" (a sequence of ids)."""
    if name in TORCHVISION:
        return "image"
    which = HF_MODELS[name][2] if name in HF_MODELS else OTHER_INPUTS[name]
    return {"pixel_values": "image", "input_features": "features"}.get(which, "tokens")


def inputs_of(name, batch, length, device="cpu", dtype=None):
    """The model's inputs at these sizes, and the dynamic dimensions of each (batch, and a sequence's length)."""
    import torch
    kind = input_kind(name)
    if kind == "image":
        return (torch.randn(batch, *IMAGE, device=device, dtype=dtype),), {"x": {0: "batch"}}
    if kind == "features":
        return (torch.randn(batch, 80, 3000, device=device, dtype=dtype),), {"x": {0: "batch"}}
    return (torch.randint(0, 1000, (batch, length), device=device),), {"x": {0: "batch", 1: "sequence"}}


def build(name):
    """The model in eval mode."""
    return torchvision_model(name) if name in TORCHVISION else hf_model(name).eval()


def export(name, out_dir):
    import torch
    model = build(name)
    args, dynamic = inputs_of(name, 2, 64)  # batch 2, sequence 64: both dynamic in the graph
    path = os.path.join(out_dir, f"{name}.onnx")
    with torch.no_grad():
        try:  # the TorchScript exporter names dynamic axes directly
            torch.onnx.export(model, args, path, input_names=["x"], dynamic_axes=dynamic, opset_version=17,
                              dynamo=False)
        except Exception:  # newer torch: the dynamo exporter, dynamic shapes by torch.export.Dim
            dims = {axis: torch.export.Dim(label, min=1, max=4096) for axis, label in dynamic["x"].items()}
            torch.onnx.export(model, args, path, input_names=["x"], dynamic_shapes=({**dims},), dynamo=True)
    write_weightless(path, os.path.join(out_dir, f"{name}.graph.onnx"))
    return path


def write_weightless(path, out):
    """A copy of the graph without its weights (their shapes kept; the small constants the importer folds kept
    whole): what import_onnx.py needs, a few hundred kB where the model is hundreds of MB."""
    import onnx
    import onnx_fold
    model = onnx.load(path)
    for t in model.graph.initializer:
        if math.prod(t.dims) > onnx_fold.FOLD_MAX_ELEMENTS:
            for field in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "external_data"):
                t.ClearField(field)
            t.data_location = onnx.TensorProto.DEFAULT
    onnx.save(model, out)


def measure_spec(name):
    """The model as extract_models.py times a zoo model: built seeded on the device, at the table's default inputs
    (import_onnx.DEFAULT_SIZES: what a table imported from this export runs by default)."""
    import model_zoo
    b, length = import_onnx.DEFAULT_SIZES["B"], import_onnx.DEFAULT_SIZES["L"]
    defaults = {"B": b, "L": length} if input_kind(name) == "tokens" else {"B": b}
    return model_zoo.Spec(name, "imported", "exported to ONNX", f"export_onnx.py {name}", defaults,
                          lambda s, device: build(name).to(device),
                          lambda s, device, dtype: inputs_of(name, s["B"], s.get("L"), device, dtype)[0])


def measure(name, out_dir, precision):
    """DIR/<name>.measured.json: this GPU's measured entry and the coverage header lines (see --measure)."""
    import torch
    import extract_models as em
    import op_mapping
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[precision]
    torch.backends.cudnn.benchmark = True  # as extract_models.py times the zoo's models
    records, total, _, model, inputs, _ = em.timed_trace(measure_spec(name), "cuda", dtype)
    cov = op_mapping.coverage(records, total)
    header = em.coverage_comment(cov, op_mapping.top_uncovered(records), "")
    header = [line.replace("(torch.profiler)", "(torch.profiler, the PyTorch model this graph was exported from)")
              for line in header]
    measured, timing = em.real_times(model, inputs, total, precision)
    measured["date"] = datetime.date.today().isoformat()
    measured["software"] = em.software_versions()
    del model, inputs
    torch.cuda.empty_cache()
    path = os.path.join(out_dir, f"{name}.measured.json")
    with open(path, "w") as f:
        json.dump({"measured": measured, "header": header + timing}, f, indent=1)
    return f"{path}: graph {measured['graph_ms']} ms, kernel {measured['kernel_ms']:.3f} ms, " \
           f"{cov['coverage']:.1%} in families"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", help="the folder for the .onnx files (required unless --list)")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated (default: all)")
    p.add_argument("--measure", action="store_true",
                   help="also time each model on the GPU and write DIR/<model>.measured.json (see above)")
    p.add_argument("--dtype", default="fp16", choices=["fp16", "bf16", "fp32"], help="--measure's precision")
    p.add_argument("--list", action="store_true", help="print the model names and exit")
    a = p.parse_args()
    if a.list:
        print("\n".join(MODELS))
        return 0
    if not a.out:
        p.error("--out is required")
    os.makedirs(a.out, exist_ok=True)
    failed = 0
    for name in filter(None, a.models.split(",")):
        if name not in MODELS:
            print(f"export_onnx.py: unknown model '{name}' (known: {', '.join(MODELS)})", file=sys.stderr)
            return 2
        try:
            print(f"{name}: {export(name, a.out)}", flush=True)
            if a.measure:
                print(f"{name}: {measure(name, a.out, a.dtype)}", flush=True)
        except Exception as e:
            failed += 1
            print(f"{name}: FAILED: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", flush=True)
            traceback.print_exc(limit=3, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

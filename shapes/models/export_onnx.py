#!/usr/bin/env python3
"""Exports models of torchvision and transformers to ONNX, built from their configs with random weights (no
download), for import_onnx.py: the models issue 55 imports, most of them in no committed table.

    python3 shapes/models/export_onnx.py --out DIR [--models vit_b_16,distilbert,...] [--list]

Needs PyTorch, torchvision, transformers and onnx (the GPU machine's image has them; the export itself runs on the
CPU). Each model is exported with its batch (and for language models its sequence) as a dynamic dimension named
`batch` (`sequence`), which import_onnx.py makes the table's inputs B (L). A model that fails to export is named
with its error and the others go on; the exit status is 1 when any failed.
"""
import argparse
import os
import sys
import traceback

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


def hf_model(kind):
    """A transformers model from its config alone (random weights), and its example inputs' names."""
    import transformers as tf
    if kind in HF_MODELS:
        model, config, inputs = HF_MODELS[kind]
        return getattr(tf, model)(getattr(tf, config)()), [inputs]
    if kind == "whisper_encoder":
        return tf.WhisperModel(tf.WhisperConfig()).get_encoder(), ["input_features"]
    if kind == "mixtral_block":
        cfg = tf.MixtralConfig(hidden_size=1024, intermediate_size=3584, num_hidden_layers=1, num_attention_heads=16,
                               num_key_value_heads=4, num_local_experts=8, num_experts_per_tok=2)
        return tf.MixtralModel(cfg), ["input_ids"]
    raise KeyError(kind)


TORCHVISION = ["resnet50", "mobilenet_v3_large", "efficientnet_b0", "regnet_y_400mf", "convnext_tiny", "vit_b_16",
               "swin_t", "densenet121", "squeezenet1_0", "shufflenet_v2_x1_0", "mnasnet1_0", "alexnet", "vgg16"]
TRANSFORMERS = list(HF_MODELS) + ["whisper_encoder", "mixtral_block"]
MODELS = TORCHVISION + TRANSFORMERS


def example(name, model_inputs):
    """The example inputs (batch 2, sequence 64) and the dynamic dimensions of each."""
    import torch
    if name in TORCHVISION or model_inputs == ["pixel_values"]:
        return (torch.randn(2, *IMAGE),), {"x": {0: "batch"}}
    if model_inputs == ["input_features"]:  # Whisper: 80 mel bins over 3000 frames, fixed by its positions
        return (torch.randn(2, 80, 3000),), {"x": {0: "batch"}}
    return (torch.randint(0, 1000, (2, 64)),), {"x": {0: "batch", 1: "sequence"}}


def export(name, out_dir):
    import torch
    if name in TORCHVISION:
        model, inputs = torchvision_model(name), None
    else:
        model, inputs = hf_model(name)
        model = model.eval()
    args, dynamic = example(name, inputs)
    path = os.path.join(out_dir, f"{name}.onnx")
    with torch.no_grad():
        try:  # the TorchScript exporter names dynamic axes directly
            torch.onnx.export(model, args, path, input_names=["x"], dynamic_axes=dynamic, opset_version=17,
                              dynamo=False)
        except Exception:  # newer torch: the dynamo exporter, dynamic shapes by torch.export.Dim
            dims = {axis: torch.export.Dim(label, min=1, max=4096) for axis, label in dynamic["x"].items()}
            torch.onnx.export(model, args, path, input_names=["x"], dynamic_shapes=({**dims},), dynamo=True)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="the folder for the .onnx files")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated (default: all)")
    p.add_argument("--list", action="store_true", help="print the model names and exit")
    a = p.parse_args()
    if a.list:
        print("\n".join(MODELS))
        return 0
    os.makedirs(a.out, exist_ok=True)
    failed = 0
    for name in filter(None, a.models.split(",")):
        if name not in MODELS:
            print(f"export_onnx.py: unknown model '{name}' (known: {', '.join(MODELS)})", file=sys.stderr)
            return 2
        try:
            print(f"{name}: {export(name, a.out)}", flush=True)
        except Exception as e:
            failed += 1
            print(f"{name}: FAILED: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", flush=True)
            traceback.print_exc(limit=3, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""The models extract_models.py traces: name -> how to build it and its inputs, its area and task.

torchvision models come from torchvision, the transformers (bert_base, gpt2, llama7b, llama3_8b) from Hugging Face
transformers with attn_implementation="sdpa" (as users run them: one fused attention call per layer), all with
random weights (no downloads); the others are written here in plain PyTorch from their papers' architectures (no
library beyond torch needed), at their published sizes. The earlier plain-PyTorch transformers with the explicit
QK^T, mask, softmax and PV of 2019 stay as *_naive_attention (traced only when named).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


class Spec:
    """build(symbols, device) -> the model (it may build on `device` directly); inputs(symbols, device, dtype)."""

    def __init__(self, name, area, task, source, defaults, build, inputs, mode="inference", uncovered=""):
        self.name, self.area, self.task, self.source, self.mode = name, area, task, source, mode
        self.defaults, self.build, self.inputs = defaults, build, inputs
        self.uncovered = uncovered  # why the time outside opmark's families is not covered (the table says it)


def images(s, device, dtype):
    return (torch.randn(s["B"], 3, s["H"], s["W"], device=device, dtype=dtype),)


def tokens(vocab):
    def make(s, device, dtype):
        return (torch.randint(0, vocab, (s["B"], s["L"]), device=device),)
    return make


# ---- CV 2D: torchvision ----

class DetectorNetwork(nn.Module):
    """A detector's network (backbone and head), without the input transform and the box post-processing, whose
    shapes depend on the image content rather than its size."""

    def __init__(self, detector):
        super().__init__()
        self.backbone, self.head = detector.backbone, detector.head

    def forward(self, x):
        features = list(self.backbone(x).values())
        return self.head(features)


class TwoStageDetectorNetwork(nn.Module):
    """Faster R-CNN's network: the backbone with its FPN, the RPN head on every level, and the box head and predictor
    on a fixed number of regions per image (the RPN keeps 1000 proposals per image at inference). Left out: the
    input transform, anchor decoding, NMS, RoI pooling (its level assignment depends on the boxes) and box
    post-processing, whose work depends on the image content rather than its size."""

    def __init__(self, detector, regions=1000):
        super().__init__()
        self.backbone, self.rpn_head = detector.backbone, detector.rpn.head
        self.box_head, self.box_predictor = detector.roi_heads.box_head, detector.roi_heads.box_predictor
        self.regions = regions
        self.pooled = (self.backbone.out_channels, 7, 7)  # MultiScaleRoIAlign's output per region

    def forward(self, x):
        features = list(self.backbone(x).values())
        objectness, deltas = self.rpn_head(features)
        pooled = x.new_empty((x.shape[0] * self.regions,) + self.pooled)  # RoI pooling's output, no kernel
        return objectness, deltas, self.box_predictor(self.box_head(pooled))


def segmentation(builder):
    def build(s, device):
        return builder(weights=None, weights_backbone=None, aux_loss=False)
    return build


# ---- CV 3D: point clouds ----

class PointNet(nn.Module):
    """PointNet classification (Qi et al. 2017), vanilla: shared MLP 64-128-1024 over the points, max pooling,
    MLP 512-256-40 (no input and feature transforms)."""

    def __init__(self, classes=40):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(3, 64, 1), nn.Conv1d(64, 128, 1), nn.Conv1d(128, 1024, 1)])
        self.bns = nn.ModuleList([nn.BatchNorm1d(64), nn.BatchNorm1d(128), nn.BatchNorm1d(1024)])
        self.fc = nn.Sequential(nn.Linear(1024, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Linear(512, 256),
                                nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, classes))

    def forward(self, x):  # x: B x 3 x N
        for conv, bn in zip(self.convs, self.bns):
            x = F.relu(bn(conv(x)))
        return self.fc(torch.amax(x, dim=2))


class DGCNN(nn.Module):
    """DGCNN classification (Wang et al. 2019): four EdgeConv layers (64, 64, 128, 256) on k = 20 nearest
    neighbours, a 1024-channel shared MLP, max and mean pooling, MLP 512-256-40."""

    def __init__(self, k=20, classes=40):
        super().__init__()
        self.k = k
        widths = [(3, 64), (64, 64), (64, 128), (128, 256)]
        self.edges = nn.ModuleList([nn.Sequential(nn.Conv2d(2 * i, o, 1, bias=False), nn.BatchNorm2d(o),
                                                  nn.LeakyReLU(0.2)) for i, o in widths])
        self.embed = nn.Sequential(nn.Conv1d(512, 1024, 1, bias=False), nn.BatchNorm1d(1024), nn.LeakyReLU(0.2))
        self.fc = nn.Sequential(nn.Linear(2048, 512, bias=False), nn.BatchNorm1d(512), nn.LeakyReLU(0.2),
                                nn.Linear(512, 256), nn.BatchNorm1d(256), nn.LeakyReLU(0.2), nn.Linear(256, classes))

    def edge_features(self, x):  # x: B x C x N -> B x 2C x N x k
        b, c, n = x.shape
        inner = -2 * torch.matmul(x.transpose(2, 1), x)
        sq = torch.sum(x ** 2, dim=1, keepdim=True)
        idx = (-sq - inner - sq.transpose(2, 1)).topk(k=self.k, dim=-1)[1]  # B x N x k
        idx = (idx + torch.arange(b, device=x.device).view(-1, 1, 1) * n).view(-1)
        pts = x.transpose(2, 1).contiguous()
        neighbours = pts.view(b * n, -1)[idx].view(b, n, self.k, c)
        centre = pts.view(b, n, 1, c).expand(-1, -1, self.k, -1)
        return torch.cat((neighbours - centre, centre), dim=3).permute(0, 3, 1, 2).contiguous()

    def forward(self, x):
        outs = []
        for edge in self.edges:
            x = edge(self.edge_features(x)).amax(dim=-1)
            outs.append(x)
        x = self.embed(torch.cat(outs, dim=1))
        return self.fc(torch.cat((x.amax(dim=-1), x.mean(dim=-1)), dim=1))


class PointNetPlusPlus(nn.Module):
    """PointNet++ classification, single-scale grouping (Qi et al. 2017, the ssg configuration): set abstraction
    512 centroids / radius 0.2 / 32 neighbours / MLP 64-64-128, then 128 / 0.4 / 64 / 128-128-256, then all points
    through 256-512-1024, max pooling, MLP 512-256-40. Farthest point sampling is the reference loop (one step per
    centroid); the ball query keeps the nearest neighbours inside the radius with topk (same shapes as a sort)."""

    def __init__(self, classes=40):
        super().__init__()
        self.stages = [(512, 0.2, 32), (128, 0.4, 64), (None, None, None)]
        widths = [(3, [64, 64, 128]), (128 + 3, [128, 128, 256]), (256 + 3, [256, 512, 1024])]
        self.mlps = nn.ModuleList()
        for c, outs in widths:
            layers = []
            for o in outs:
                layers += [nn.Conv2d(c, o, 1), nn.BatchNorm2d(o), nn.ReLU()]
                c = o
            self.mlps.append(nn.Sequential(*layers))
        self.fc = nn.Sequential(nn.Linear(1024, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Linear(512, 256),
                                nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, classes))

    @staticmethod
    def farthest_points(xyz, count):  # xyz: B x N x 3 -> B x count indices
        b, n, _ = xyz.shape
        batch = torch.arange(b, device=xyz.device)
        chosen = torch.zeros(b, count, dtype=torch.long, device=xyz.device)
        distance = torch.full((b, n), float("inf"), device=xyz.device, dtype=xyz.dtype)  # fits fp16, unlike 1e10
        farthest = torch.zeros(b, dtype=torch.long, device=xyz.device)
        for i in range(count):
            chosen[:, i] = farthest
            centre = xyz[batch, farthest, :].view(b, 1, 3)
            distance = torch.minimum(distance, torch.sum((xyz - centre) ** 2, -1))
            farthest = torch.max(distance, -1)[1]
        return chosen

    @staticmethod
    def gather(points, idx):  # points: B x N x C, idx: B x ... -> B x ... x C
        batch = torch.arange(points.shape[0], device=points.device).view(-1, *([1] * (idx.dim() - 1)))
        return points[batch, idx, :]

    def forward(self, x):  # x: B x 3 x N
        xyz, features = x.transpose(1, 2).contiguous(), None
        for (count, radius, neighbours), mlp in zip(self.stages, self.mlps):
            if count is None:  # group all
                grouped = xyz.unsqueeze(1) if features is None else torch.cat((xyz, features), -1).unsqueeze(1)
                new_xyz = None
            else:
                new_xyz = self.gather(xyz, self.farthest_points(xyz, count))  # B x S x 3
                d = -2 * torch.matmul(new_xyz, xyz.transpose(1, 2))
                d = d + torch.sum(new_xyz ** 2, -1).unsqueeze(-1) + torch.sum(xyz ** 2, -1).unsqueeze(1)
                idx = d.masked_fill(d > radius ** 2, float("inf")).topk(neighbours, dim=-1, largest=False)[1]
                rel = self.gather(xyz, idx) - new_xyz.unsqueeze(2)  # B x S x K x 3
                grouped = rel if features is None else torch.cat((rel, self.gather(features, idx)), -1)
            out = mlp(grouped.permute(0, 3, 2, 1))  # B x C x K x S
            features = torch.max(out, 2)[0].transpose(1, 2)  # B x S x C
            xyz = new_xyz
        return self.fc(features.squeeze(1))


def points(s, device, dtype):
    return (torch.randn(s["B"], 3, s["N"], device=device, dtype=dtype),)


# ---- NLP: transformers ----

class Attention(nn.Module):
    def __init__(self, hidden, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)

    def forward(self, x):
        b, l, h = x.shape
        q, k, v = self.qkv(x).view(b, l, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        scores = torch.matmul(q, k.transpose(-1, -2)) / (h // self.heads) ** 0.5
        if self.causal:
            scores = scores + torch.triu(torch.full((l, l), float("-inf"), device=x.device, dtype=x.dtype), 1)
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.out(ctx.transpose(1, 2).reshape(b, l, h))


class EncoderLayer(nn.Module):
    """Post-norm (BERT) or pre-norm (GPT-2) transformer layer with a GELU MLP."""

    def __init__(self, hidden, heads, mlp, causal, pre_norm):
        super().__init__()
        self.attn, self.pre_norm = Attention(hidden, heads, causal), pre_norm
        self.norm1, self.norm2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.up, self.down = nn.Linear(hidden, mlp), nn.Linear(mlp, hidden)

    def forward(self, x):
        if self.pre_norm:
            x = x + self.attn(self.norm1(x))
            return x + self.down(F.gelu(self.up(self.norm2(x))))
        x = self.norm1(x + self.attn(x))
        return self.norm2(x + self.down(F.gelu(self.up(x))))


class Transformer(nn.Module):
    def __init__(self, vocab, hidden, heads, layers, mlp, positions, causal, pre_norm, lm_head):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, hidden), nn.Embedding(positions, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.layers = nn.ModuleList([EncoderLayer(hidden, heads, mlp, causal, pre_norm) for _ in range(layers)])
        self.head = nn.Linear(hidden, vocab, bias=False) if lm_head else None

    def forward(self, ids):
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))
        x = self.norm(x) if self.head is None else x
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x)) if self.head is not None else x


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps=1e-6, device=None):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(hidden, device=device)), eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class LlamaLayer(nn.Module):
    def __init__(self, hidden, heads, mlp, device):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = RMSNorm(hidden, device=device), RMSNorm(hidden, device=device)
        self.q, self.k, self.v, self.o = (nn.Linear(hidden, hidden, bias=False, device=device) for _ in range(4))
        self.gate = nn.Linear(hidden, mlp, bias=False, device=device)
        self.up = nn.Linear(hidden, mlp, bias=False, device=device)
        self.down = nn.Linear(mlp, hidden, bias=False, device=device)

    def rotate(self, x, cos, sin):
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin

    def forward(self, x, cos, sin):
        b, l, h = x.shape
        y = self.norm1(x)
        q, k, v = (p(y).view(b, l, self.heads, h // self.heads).transpose(1, 2) for p in (self.q, self.k, self.v))
        q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
        scores = torch.matmul(q, k.transpose(-1, -2)) / (h // self.heads) ** 0.5
        scores = scores + torch.triu(torch.full((l, l), float("-inf"), device=x.device, dtype=x.dtype), 1)
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, l, h)
        x = x + self.o(ctx)
        y = self.norm2(x)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


class Llama(nn.Module):
    """A Llama-style decoder (Touvron et al. 2023) at the 7B configuration: hidden 4096, 32 layers of 32 heads,
    SwiGLU MLP 11008, RMSNorm, rotary positions, vocabulary 32000."""

    def __init__(self, vocab=32000, hidden=4096, heads=32, layers=32, mlp=11008, device=None):
        super().__init__()  # built on the tracing device directly: 7B parameters do not fit a small host
        self.heads = heads
        self.embed = nn.Embedding(vocab, hidden, device=device)
        self.layers = nn.ModuleList([LlamaLayer(hidden, heads, mlp, device) for _ in range(layers)])
        self.norm = RMSNorm(hidden, device=device)
        self.head = nn.Linear(hidden, vocab, bias=False, device=device)

    def forward(self, ids):
        x = self.embed(ids)
        d = x.shape[-1] // self.heads
        pos = torch.arange(ids.shape[1], device=ids.device, dtype=x.dtype)
        inv = 1.0 / (10000 ** (torch.arange(0, d, 2, device=ids.device, dtype=x.dtype) / d))
        angles = torch.outer(pos, inv)
        cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.head(self.norm(x))


# ---- Hugging Face transformers, as users run them ----

# The attention-probability dropout of the transformers' training steps: None keeps the config's. Training tables
# are traced on the CPU, whose fused attention has no dropout (with it, SDPA falls back to the unfused math, whose
# backward is a dozen small calls); on the GPU the flash kernel applies it inside, so the CPU trace sets it to 0
# to record the fused forward and backward calls the GPU runs.
ATTENTION_DROPOUT = None


def hf_model(make_config):
    """A transformers base model (no task head) from its config, random weights, attn_implementation="sdpa", no
    KV cache, built on the tracing device directly (7B parameters do not fit a small host)."""
    def build(s, device):
        import transformers
        config = make_config(transformers)
        config.use_cache = False
        if ATTENTION_DROPOUT is not None:
            for attr in ("attention_probs_dropout_prob", "attn_pdrop", "attention_dropout"):
                if hasattr(config, attr):
                    setattr(config, attr, ATTENTION_DROPOUT)
        if str(device) != "meta":  # a shape trace on a real device (no meta trace) at 2x or 3x L: room for them
            for attr in ("max_position_embeddings", "n_positions"):
                if getattr(config, attr, None) is not None and getattr(config, attr) < s.get("L", 0):
                    setattr(config, attr, s["L"])
        with torch.device(device):
            return transformers.AutoModel.from_config(config, attn_implementation="sdpa")
    return build


def hf_source(name):
    try:
        import transformers
        version = transformers.__version__
    except ImportError:
        version = "?"
    return f"transformers {version} {name}, random weights, attn_implementation=sdpa, no KV cache"


def bert_config(t):
    return t.BertConfig()  # bert-base-uncased: vocab 30522, hidden 768, 12 layers of 12 heads, MLP 3072


def gpt2_config(t):
    return t.GPT2Config()  # gpt2 (small): vocab 50257, 1024 positions, hidden 768, 12 layers of 12 heads


def llama7b_config(t):
    return t.LlamaConfig(vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                         num_attention_heads=32, num_key_value_heads=32, max_position_embeddings=8192,
                         rms_norm_eps=1e-5)


def llama3_8b_config(t):
    return t.LlamaConfig(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                         num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=8192,
                         rms_norm_eps=1e-5, rope_theta=500000.0)


# ---- speech ----

class DeepSpeech2(nn.Module):
    """DeepSpeech2 (Amodei et al. 2016) as in DeepBench: two 2D convolutions over the spectrogram (161 bins), five
    bidirectional GRU layers of 800, a fully connected layer to 29 characters."""

    def __init__(self, bins=161, hidden=800, layers=5, chars=29):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 32, (41, 11), (2, 2), (20, 5)), nn.BatchNorm2d(32), nn.Hardtanh(0, 20),
                                  nn.Conv2d(32, 32, (21, 11), (2, 1), (10, 5)), nn.BatchNorm2d(32), nn.Hardtanh(0, 20))
        freq = ((bins + 2 * 20 - 41) // 2 + 1 + 2 * 10 - 21) // 2 + 1  # 161 bins -> 81 -> 41
        self.rnn = nn.GRU(32 * freq, hidden, layers, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, chars)

    def forward(self, x):  # x: B x 1 x 161 x T
        x = self.conv(x)
        b, c, f, t = x.shape
        x = x.view(b, c * f, t).permute(2, 0, 1)  # T x B x features
        x, _ = self.rnn(x)
        return self.fc(x)


def spectrogram(s, device, dtype):
    return (torch.randn(s["B"], 1, 161, s["T"], device=device, dtype=dtype),)


class LstmLM(nn.Module):
    """A word-level LSTM language model (Zaremba et al. 2014, large): 2 layers of 1500, vocabulary 10000."""

    def __init__(self, vocab=10000, hidden=1500, layers=2):
        super().__init__()
        self.embed, self.rnn = nn.Embedding(vocab, hidden), nn.LSTM(hidden, hidden, layers)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, ids):  # ids: B x L
        x, _ = self.rnn(self.embed(ids.t()))
        return torch.log_softmax(self.out(x), dim=-1)


# ---- recommendation ----

class DLRM(nn.Module):
    """DLRM (Naumov et al. 2019) at the MLPerf Criteo configuration, scaled to 26 tables of 100 000 rows: bottom MLP
    13-512-256-128, dot interactions, top MLP 1024-1024-512-256-1."""

    def __init__(self, tables=26, rows=100000, dim=128):
        super().__init__()
        self.embeddings = nn.ModuleList([nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(tables)])
        self.bottom = nn.Sequential(nn.Linear(13, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                                    nn.Linear(256, dim), nn.ReLU())
        pairs = (tables + 1) * tables // 2
        self.top = nn.Sequential(nn.Linear(dim + pairs, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                                 nn.Linear(1024, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 1))

    def forward(self, dense, sparse):
        x = self.bottom(dense)
        feats = [x] + [e(sparse[:, i:i + 1]) for i, e in enumerate(self.embeddings)]
        t = torch.stack(feats, dim=1)
        z = torch.bmm(t, t.transpose(1, 2))
        li, lj = torch.tril_indices(t.shape[1], t.shape[1], offset=-1, device=t.device)
        return torch.sigmoid(self.top(torch.cat((x, z[:, li, lj]), dim=1)))


def dlrm_inputs(s, device, dtype):
    return (torch.randn(s["B"], 13, device=device, dtype=dtype),
            torch.randint(0, 100000, (s["B"], 26), device=device))


IMG = {"B": 32, "H": 224, "W": 224}

MODELS = {spec.name: spec for spec in [
    Spec("resnet50", "cv_2d", "image classification", f"torchvision {torchvision.__version__} resnet50", IMG,
         lambda s, d: torchvision.models.resnet50(weights=None), images),
    Spec("vgg16", "cv_2d", "image classification", f"torchvision {torchvision.__version__} vgg16", IMG,
         lambda s, d: torchvision.models.vgg16(weights=None), images),
    Spec("mobilenet_v2", "cv_2d", "image classification", f"torchvision {torchvision.__version__} mobilenet_v2", IMG,
         lambda s, d: torchvision.models.mobilenet_v2(weights=None), images),
    Spec("ssd300", "cv_2d", "object detection",
         f"torchvision {torchvision.__version__} ssd300_vgg16, backbone and head (no transform, no box decoding)",
         {"B": 32, "H": 300, "W": 300},
         lambda s, d: DetectorNetwork(torchvision.models.detection.ssd300_vgg16(weights=None, weights_backbone=None)),
         images),
    Spec("fasterrcnn_resnet50_fpn", "cv_2d", "object detection",
         f"torchvision {torchvision.__version__} fasterrcnn_resnet50_fpn: backbone, FPN, RPN head, box head on 1000 "
         "regions per image (no transform, RoI pooling, NMS or box decoding)",
         {"B": 8, "H": 800, "W": 800},
         lambda s, d: TwoStageDetectorNetwork(torchvision.models.detection.fasterrcnn_resnet50_fpn(
             weights=None, weights_backbone=None)),
         images),
    Spec("fcn_resnet50", "cv_2d", "semantic segmentation", f"torchvision {torchvision.__version__} fcn_resnet50",
         {"B": 8, "H": 512, "W": 512}, segmentation(torchvision.models.segmentation.fcn_resnet50), images),
    Spec("deeplabv3_resnet50", "cv_2d", "semantic segmentation",
         f"torchvision {torchvision.__version__} deeplabv3_resnet50", {"B": 8, "H": 512, "W": 512},
         segmentation(torchvision.models.segmentation.deeplabv3_resnet50), images),
    Spec("pointnet", "cv_3d", "point cloud classification", "opmark model_zoo.py, after Qi et al. 2017",
         {"B": 32, "N": 1024}, lambda s, d: PointNet(), points),
    Spec("pointnet2", "cv_3d", "point cloud classification",
         "opmark model_zoo.py, PointNet++ ssg after Qi et al. 2017", {"B": 16, "N": 1024},
         lambda s, d: PointNetPlusPlus(), points),
    Spec("dgcnn", "cv_3d", "point cloud classification", "opmark model_zoo.py, after Wang et al. 2019",
         {"B": 32, "N": 1024}, lambda s, d: DGCNN(), points,
         uncovered="the k-nearest-neighbour search's topk over N x N distances is a selection no family has"),
    Spec("bert_base", "nlp", "masked language model encoder", hf_source("BertModel, bert-base configuration"),
         {"B": 32, "L": 512}, hf_model(bert_config), tokens(30522)),
    Spec("gpt2", "nlp", "causal language model", hf_source("GPT2Model, gpt2 (small) configuration, no LM head"),
         {"B": 16, "L": 1024}, hf_model(gpt2_config), tokens(50257)),
    Spec("llama7b", "nlp", "causal language model (prefill)",
         hf_source("LlamaModel, Llama-2-7B configuration (hidden 4096, 32 layers, 32 heads, MLP 11008, "
                   "vocabulary 32000), no LM head"),
         {"B": 1, "L": 2048}, hf_model(llama7b_config), tokens(32000)),
    Spec("llama3_8b", "nlp", "causal language model (prefill)",
         hf_source("LlamaModel, Llama-3-8B configuration (hidden 4096, 32 layers, 32 query and 8 key/value heads, "
                   "MLP 14336, vocabulary 128256), no LM head"),
         {"B": 1, "L": 2048}, hf_model(llama3_8b_config), tokens(128256)),
    Spec("bert_base_naive_attention", "nlp", "masked language model encoder",
         "opmark model_zoo.py, BERT-base configuration, naive attention (QK^T, softmax, PV as separate calls)",
         {"B": 32, "L": 512},
         lambda s, d: Transformer(30522, 768, 12, 12, 3072, 512, causal=False, pre_norm=False, lm_head=False),
         tokens(30522)),
    Spec("gpt2_naive_attention", "nlp", "causal language model",
         "opmark model_zoo.py, GPT-2 small configuration with LM head, naive attention (QK^T, mask, softmax, PV)",
         {"B": 16, "L": 1024},
         lambda s, d: Transformer(50257, 768, 12, 12, 3072, 1024, causal=True, pre_norm=True, lm_head=True),
         tokens(50257)),
    Spec("llama7b_naive_attention", "nlp", "causal language model (prefill)",
         "opmark model_zoo.py, Llama-7B configuration with LM head, naive attention (QK^T, mask, softmax, PV)",
         {"B": 1, "L": 2048}, lambda s, d: Llama(device=d), tokens(32000)),
    Spec("deepspeech2", "speech", "speech recognition", "opmark model_zoo.py, DeepSpeech2 as in DeepBench",
         {"B": 16, "T": 1500}, lambda s, d: DeepSpeech2(), spectrogram),
    Spec("lstm_lm", "speech", "language model for speech decoding", "opmark model_zoo.py, Zaremba et al. large",
         {"B": 64, "L": 35}, lambda s, d: LstmLM(), tokens(10000)),
    Spec("dlrm", "recommendation", "click-through prediction", "opmark model_zoo.py, DLRM (MLPerf-like, scaled)",
         {"B": 2048}, lambda s, d: DLRM(), dlrm_inputs,
         uncovered="26 embedding-bag lookups of one row each per sample are launch-bound gathers of a few KB; "
                   "the interaction's tril_indices and pair gather are small index kernels"),
]}

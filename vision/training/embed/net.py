"""The embedding net (``make_net``), its ONNX export with metadata (``export_onnx``, ``model_id``),
loading an exported one back to fine-tune it (``load_exported``), and float16 storage
(``halve_weights``). torch and onnx are imported inside the functions (the train extra)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ...read import CONTEXT
from .designs import HELD_OUT

SIZE = 48  # input side of the net
DIMS = 96  # embedding dimensions


def make_net(dims: int = DIMS, width: float = 1.0):
    """The embedding net; ``width`` multiplies every layer's channels (1.0: the shipped 0.31 M
    parameters; the reader's cost per die grows with its square)."""
    import torch
    import torch.nn as nn

    c = [max(8, int(round(n * width))) for n in (24, 32, 64, 128)]

    def block(cin, cout, stride=1):
        return [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True)]

    class EmbedNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = nn.Sequential(
                *block(3, c[0]), *block(c[0], c[1], 2),             # 48 -> 24
                *block(c[1], c[1]), nn.MaxPool2d(2),                # 24 -> 12
                *block(c[1], c[2]), *block(c[2], c[2]), nn.MaxPool2d(2),  # 12 -> 6
                *block(c[2], c[3]), *block(c[3], c[3]),
                nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.head = nn.Sequential(nn.Linear(c[3], dims), nn.BatchNorm1d(dims))

        def forward(self, x):
            return torch.nn.functional.normalize(self.head(self.trunk(x)), dim=1)

    return EmbedNet()


def load_exported(net, path: Path) -> str:
    """Copy the weights of an exported embedding (``export_onnx``) into ``net``, to fine-tune it.

    The export folds each batch norm of the trunk into its convolution (a weight and a bias). The
    convolution takes the folded weight, its batch norm becomes the folded bias (scale 1, mean 0,
    variance 1 - eps), so ``net`` in eval mode computes what the file computes; ``train`` keeps
    these batch norms frozen (batch statistics would undo the folding). Returns the file's model
    id."""
    import onnx
    import torch
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for node in model.graph.node:  # weights stored as float16 (``halve_weights``) and cast back
        if node.op_type == "Cast" and node.input[0] in weights:
            weights[node.output[0]] = weights[node.input[0]].astype(np.float32)
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    layers = [m for m in net.trunk if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in net.trunk if isinstance(m, torch.nn.BatchNorm2d)]
    if len(convs) != len(layers) or len(norms) != len(layers):
        raise ValueError(f"{path}: {len(convs)} convolutions, the net has {len(layers)}: not this "
                         "architecture")
    with torch.no_grad():
        for node, conv, bn in zip(convs, layers, norms):
            w = torch.from_numpy(weights[node.input[1]].copy())
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(f"{path}: weight {tuple(w.shape)} does not fit "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            bias = (weights[node.input[2]] if len(node.input) > 2
                    else np.zeros(w.shape[0], np.float32))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(bias.copy()))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        net.head.load_state_dict({k: torch.from_numpy(weights["head." + k].copy())
                                  for k in net.head.state_dict()
                                  if not k.endswith("num_batches_tracked")}, strict=False)
    meta = {p.key: p.value for p in model.metadata_props}
    return meta.get("model_id", "unknown")


def exported_width(path: Path) -> float:
    """The channel multiplier (``--width``) an exported embedding was trained with."""
    import onnx

    meta = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
    return float(json.loads(meta.get("width", "1.0")))


def model_id(net) -> str:
    """A short hash of the weights: dice-set files carry it, a file made with other weights is
    refused."""
    h = hashlib.sha256()
    for k, v in sorted(net.state_dict().items()):
        h.update(k.encode())
        h.update(v.detach().cpu().numpy().tobytes())
    return "face-embed-" + h.hexdigest()[:16]


def export_onnx(net, path: Path, info: dict) -> str:
    import onnx
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    mid = model_id(net)
    dummy = torch.zeros(1, 3, SIZE, SIZE)
    torch.onnx.export(net, dummy, str(path), input_names=["crops"], output_names=["embedding"],
                      dynamic_axes={"crops": {0: "n"}, "embedding": {0: "n"}}, opset_version=17,
                      dynamo=False)
    model = onnx.load(str(path))
    meta = {"model_id": mid, "kind": "face-embedding", "dims": str(DIMS), "size": str(SIZE),
            "context": str(CONTEXT),
            "input": f"standardised BGR crops 3x{SIZE}x{SIZE} (vision.read.standardise)",
            "output": f"embedding: L2-normalised, {DIMS} dims",
            "held_out": json.dumps(list(HELD_OUT)), **{k: json.dumps(v) for k, v in info.items()}}
    for k, v in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, str(path))
    return mid


def halve_weights(src: Path, dst: Path) -> int:
    """Store the float32 weights of an exported model as float16, each followed by a Cast back to
    float32: the file is half as large, onnxruntime folds the casts when it loads the model, and the
    net still computes in float32 (the embeddings move by ~1e-3, far below what separates faces).
    The metadata, model id included, is kept. Returns the new file's size in bytes."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    keep, casts = [], []
    for init in graph.initializer:
        w = numpy_helper.to_array(init)
        if w.dtype != np.float32 or w.size < 256:
            keep.append(init)
            continue
        half = numpy_helper.from_array(w.astype(np.float16), init.name + "_f16")
        keep.append(half)
        casts.append(helper.make_node("Cast", [half.name], [init.name], to=onnx.TensorProto.FLOAT,
                                      name=init.name + "_to_f32"))
    del graph.initializer[:]
    graph.initializer.extend(keep)
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(dst))
    return dst.stat().st_size

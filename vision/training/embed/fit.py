"""The training loop: CosFace over all classes plus a supervised contrastive loss over whole
designs, on-device augmentation, a time budget (``train``; torch from the train extra)."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

from .dataset import NOT_DIE
from .net import DIMS, load_exported, make_net


def _standardise(torch, x):
    """Standardise like ``vision.read.standardise`` (per crop), no augmentation: (n, 3, h, w)
    float."""
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    std = x.std(dim=(1, 2, 3), keepdim=True, unbiased=False).clamp_min(8.0)
    return (x - mean) / std


def _augment(torch, x, gen):
    """uint8 (n, h, w, 3) on the device -> standardised float (n, 3, h, w), like
    vision.read.standardise."""
    n = x.shape[0]
    dev = x.device
    x = x.permute(0, 3, 1, 2).float()
    r = torch.rand(n, 8, generator=gen, device=dev)
    k = (r[:, 0] * 4).long().clamp(max=3)
    out = torch.empty_like(x)
    for q in range(4):
        sel = k == q
        if bool(sel.any()):
            out[sel] = torch.rot90(x[sel], q, dims=(2, 3))
    x = out
    perm = torch.argsort(torch.rand(n, 3, generator=gen, device=dev), dim=1)
    x = x[torch.arange(n, device=dev)[:, None], perm]
    grey = x.mean(1, keepdim=True).expand_as(x)
    x = torch.where((r[:, 1] < 0.2)[:, None, None, None], grey, x)
    x = torch.where((r[:, 2] < 0.15)[:, None, None, None], 255 - x, x)
    x = x * (0.8 + 0.4 * r[:, 3])[:, None, None, None] + (r[:, 4] - 0.5)[:, None, None, None] * 50
    x = x + torch.randn(x.shape, generator=gen, device=dev) * (r[:, 5] * 4)[:, None, None, None]
    return _standardise(torch, x.clamp(0, 255))


def train(X, Y, n_classes: int, steps: int, batch: int, seed: int, device: str,
          progress: bool = True, threads: int | None = None, scale: float = 28.0,
          margin: float = 0.3, lr: float = 3e-3, budget_s: float | None = None,
          episodes: tuple[int, int] | None = None, tau: float = 0.1, init: Path | None = None,
          width: float = 1.0):
    """Train the net; ``budget_s`` (seconds) lowers the number of steps after timing steps 10-40.

    ``episodes`` = (designs, renders per face): the first designs x 6 x renders crops of X are the
    designs' renders in order. Three quarters of each batch are then whole designs (all six faces,
    two renders each) and a supervised contrastive loss (temperature ``tau``) over the batch adds
    to the CosFace loss: it asks directly for what teaching needs, the faces of one design apart
    and two renders of a face together. The last quarter is drawn from all crops (real, not a die).

    ``init`` (an exported embedding) fine-tunes it rather than starting afresh: its weights are
    loaded (``load_exported``), its batch norms stay frozen, and each class's CosFace weight starts
    at the mean embedding of the class's crops, so the first steps refine the embedding instead of
    pulling it towards random class directions."""
    import math

    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # deterministic cuBLAS
    import torch
    from tqdm import tqdm

    torch.manual_seed(seed)
    if threads:
        torch.set_num_threads(threads)
    if device.startswith("cuda"):
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.deterministic = True
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    dev = torch.device(device)
    gen = torch.Generator(device=dev).manual_seed(seed)
    cuda = dev.type == "cuda"
    net = make_net(width=width)
    init_id = load_exported(net, init) if init else None
    net = net.to(dev)
    if cuda:  # bf16 tensor cores want channels-last
        net = net.to(memory_format=torch.channels_last)
    W = torch.nn.Parameter((torch.randn(n_classes, DIMS,
                                        generator=torch.Generator().manual_seed(seed + 1))
                            * 0.05).to(dev))
    Xd = torch.from_numpy(X).to(dev)
    Yd = torch.from_numpy(Y.astype(np.int64)).to(dev)
    if init:  # imprint: each class starts at its crops' mean embedding
        net.eval()
        with torch.no_grad():
            sums = torch.zeros(n_classes, DIMS, device=dev)
            for i in range(0, len(Xd), 512):
                e = net(_standardise(torch, Xd[i:i + 512].permute(0, 3, 1, 2).float()))
                sums.index_add_(0, Yd[i:i + 512], e.float())
            seen = sums.norm(dim=1) > 0
            W.data[seen] = torch.nn.functional.normalize(sums[seen], dim=1) \
                * W.data[seen].norm(dim=1, keepdim=True)
    opt = torch.optim.AdamW([{"params": net.parameters(), "weight_decay": 5e-4},
                             {"params": [W], "weight_decay": 0.0}], lr=lr)
    warmup = max(1, min(200, steps // 10))
    total = steps
    bar = tqdm(total=total, desc="training", disable=not progress, file=sys.stderr, mininterval=2)
    net.train()
    if init:  # the folded batch norms stay as they are
        for m in net.modules():
            if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
                m.eval()
    avg_loss = avg_acc = None
    t_start = time.time()
    step = 0
    while step < total:
        if step == 10:
            t_ten = time.time()
        # the only choice that depends on the machine: say it in the metadata
        if budget_s and step == 40:
            per_step = (time.time() - t_ten) / 30
            fit = int((budget_s - (time.time() - t_start)) / per_step) + step
            if fit < total:
                total = max(min(60, total), fit)
                bar.total = total
                bar.refresh()
        f = (step + 1) / warmup if step < warmup else \
            0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))
        for g in opt.param_groups:
            g["lr"] = lr * f
        if episodes:
            n_des, per = episodes
            k = max(1, (batch * 3 // 4) // 12)
            des = torch.randint(0, n_des, (k,), generator=gen, device=dev)
            two = torch.argsort(torch.rand(k * 6, per, generator=gen, device=dev), dim=1)[:, :2]
            base = (des[:, None] * 6 + torch.arange(6, device=dev)[None]).reshape(-1, 1) * per
            ep_idx = (base + two).reshape(-1)
            idx = torch.cat([ep_idx,
                             torch.randint(0, len(Xd), (batch - len(ep_idx),), generator=gen,
                                           device=dev)])
        else:
            idx = torch.randint(0, len(Xd), (batch,), generator=gen, device=dev)
        xb = _augment(torch, Xd[idx], gen)
        yb = Yd[idx]
        if cuda:
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                emb = net(xb.contiguous(memory_format=torch.channels_last))
            emb = torch.nn.functional.normalize(emb.float(), dim=1)
        else:
            emb = net(xb)
        cos = emb @ torch.nn.functional.normalize(W, dim=1).T
        onehot = torch.nn.functional.one_hot(yb, n_classes).to(cos.dtype)
        loss = torch.nn.functional.cross_entropy(scale * (cos - margin * onehot), yb)
        if episodes:  # supervised contrastive over the batch
            sim = (emb @ emb.T) / tau
            eye = torch.eye(len(yb), device=dev, dtype=torch.bool)
            sim = sim.masked_fill(eye, -1e4)
            pos = (yb[:, None] == yb[None, :]) & ~eye
            logp = sim - torch.logsumexp(sim, dim=1, keepdim=True)
            npos = pos.sum(1)
            has = npos > 0
            supcon = -(logp * pos).sum(1)[has] / npos[has]
            loss = loss + supcon.mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 20 == 0 or step == total - 1:
            now_loss = float(loss.detach())
            now_acc = float((cos.detach().argmax(1) == yb).float().mean())
            avg_loss = now_loss if avg_loss is None else 0.9 * avg_loss + 0.1 * now_loss
            avg_acc = now_acc if avg_acc is None else 0.9 * avg_acc + 0.1 * now_acc
            bar.set_postfix(loss=f"{avg_loss:.3f}", acc=f"{avg_acc:.3f}")
        bar.update(1)
        step += 1
    bar.close()
    net.eval()
    net = net.to(memory_format=torch.contiguous_format)
    not_die = torch.nn.functional.normalize(W[NOT_DIE].detach(), dim=0).cpu().numpy()
    return net.cpu(), not_die, {"final_loss": round(avg_loss or 0.0, 4),
                                "final_train_acc": round(avg_acc or 0.0, 4), "steps_done": total,
                                **({"init": init_id} if init else {})}

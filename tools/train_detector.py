"""Train the class-agnostic tile localiser and export it to ONNX.

A small fully convolutional network over a letterboxed 320x320 image predicts, on a grid of
stride 4 (80x80): a centre heat map for face-up and for face-down tiles, each tile's box size,
the sub-cell offset of its centre, its orientation (where the face's top points: up,
right, down, left), and the face as a turned rectangle (angle within 45 degrees, two sides),
so that a slanted tile can be read along its own axes. Trained on synthetic scenes
(tools/scenes.py), a third of them laid with real tile crops of camerash-dev photos that no
evaluation uses, and (--real) on crops of the rf phone photos, whose labels are upright boxes
with no turn: there the turned rectangle learns its sides through its upright bounds, which
must match the box (`fit_loss`). The Rust pipeline decodes the maps (peaks, boxes,
orientation) and classifies each tile with the face classifier.

    python tools/train_detector.py [--scenes 3000] [--epochs 12] [--width 12] [--batch 16] [--lr 2e-3]

The defaults are the quick recipe (about 15 minutes on 2 CPU cores); stage 1 of the shipped
finder was --scenes 20000 --epochs 16 --batch 32 --lr 3e-3 (5 minutes on an H100), then
stage 2 and a last round on real photos with --closeup 0.25 (tools/train_all.sh,
models/README.md). A GPU is used when present; scenes are drawn on every CPU core
(--workers); SUANFAN_SHARED_DATA points at a copy of ../shared/data.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import faces
import qat
import realdata
import scenes
import slim_finder
import synth

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
SIZE, STRIDE = 320, 4
GRID = SIZE // STRIDE
# At inference the photo's long side is scaled to this (src/vision.rs, tools/eval.py): dense
# rows of 18 tiles are found far more reliably than at the training size (real labelled photos,
# recall 97.8% at 320, 99.8% at 416).
INFER_LONG_SIDE = 416


def conv(i, o, s=1, d=1):
    return nn.Sequential(nn.Conv2d(i, o, 3, s, padding=d, dilation=d, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class TileFinder(nn.Module):
    def __init__(self, w: int = 16):
        super().__init__()
        self.stem = nn.Sequential(conv(3, w, 2), conv(w, 2 * w, 2))  # stride 4
        self.s4 = nn.Sequential(conv(2 * w, 2 * w), conv(2 * w, 2 * w))
        self.s8 = nn.Sequential(conv(2 * w, 4 * w, 2), conv(4 * w, 4 * w), conv(4 * w, 4 * w, d=2))
        self.s16 = nn.Sequential(conv(4 * w, 4 * w, 2), conv(4 * w, 4 * w, d=2))
        self.up8 = conv(8 * w, 4 * w)
        self.up4 = conv(6 * w, 2 * w)
        self.head = conv(2 * w, 2 * w)
        self.heat = nn.Conv2d(2 * w, 2, 1)
        self.box = nn.Conv2d(2 * w, 4, 1)  # log size (2), offset (2)
        self.orient = nn.Conv2d(2 * w, 4, 1)
        self.rbox = nn.Conv2d(2 * w, 4, 1)  # cos 4a, sin 4a, log side along a, log side across (cells)
        nn.init.constant_(self.heat.bias, -2.2)

    def forward(self, x):
        a = self.s4(self.stem(x))
        b = self.s8(a)
        c = self.s16(b)
        b = self.up8(torch.cat([b, F.interpolate(c, scale_factor=2, mode="nearest")], 1))
        a = self.up4(torch.cat([a, F.interpolate(b, scale_factor=2, mode="nearest")], 1))
        h = self.head(a)
        return self.heat(h), self.box(h), self.orient(h), self.rbox(h)


class Exported(nn.Module):
    """What ships: RGB 0..255 in; heat (sigmoid), box (log w, log h in cells; dx, dy), orientation
    probabilities, and the turned box (cos 4a, sin 4a, log sides) out. `export` then folds the
    /255 into the first convolution and takes the softmax off (`slim_finder.py`)."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, image):
        heat, box, orient, rbox = self.net(image / 255.0)
        return torch.sigmoid(heat), box, torch.softmax(orient, 1), rbox


def targets(tiles, ignore=(), down_known=True):
    """Maps for one scene. A tile whose orientation is None (real photos labelled with upright
    boxes only) trains heat, box and offset but not orientation, nor the turned box unless its
    outline is known (`turn_known`: realdata.finder_sample, a tile square with its photo); where
    face-down tiles are not labelled (down_known False) the face-down heat is not trained; the
    `ignore` rectangles (tiles cut by the picture's edge) are neither tile nor background."""
    heat = np.zeros((2, GRID, GRID), np.float32)
    box = np.zeros((4, GRID, GRID), np.float32)
    orient = np.full((GRID, GRID), -1, np.int64)
    rbox = np.zeros((4, GRID, GRID), np.float32)
    mask = np.zeros((GRID, GRID), np.float32)
    rmask = np.zeros((GRID, GRID), np.float32)
    # Bit 0: face-up heat trained here; bit 1: face-down heat trained here.
    train = np.full((GRID, GRID), 3 if down_known else 1, np.uint8)
    for x0, y0, x1, y1 in ignore:
        train[max(0, int(y0 / STRIDE)) : int(math.ceil(y1 / STRIDE)), max(0, int(x0 / STRIDE)) : int(math.ceil(x1 / STRIDE))] = 0
    yy, xx = np.mgrid[0:GRID, 0:GRID]
    for t in tiles:
        xs = [p[0] for p in t["corners"]]
        ys = [p[1] for p in t["corners"]]
        x0, x1, y0, y1 = max(0, min(xs)), min(SIZE - 1, max(xs)), max(0, min(ys)), min(SIZE - 1, max(ys))
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        if t.get("judged"):
            # A face-down tile judged by a person on a real photo (or a place judged to hold
            # none): the face-down heat is trained over its box.
            train[int(y0 / STRIDE) : int(math.ceil(y1 / STRIDE)), int(x0 / STRIDE) : int(math.ceil(x1 / STRIDE))] |= 2
            if not t["face_down"]:
                continue
        cx, cy = (x0 + x1) / 2 / STRIDE, (y0 + y1) / 2 / STRIDE
        w, h = (x1 - x0) / STRIDE, (y1 - y0) / STRIDE
        ix, iy = int(cx), int(cy)
        if not (0 <= ix < GRID and 0 <= iy < GRID):
            continue
        sigma = max(0.6, min(w, h) / 5)
        g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma * sigma))
        ch = 1 if t["face_down"] else 0
        heat[ch] = np.maximum(heat[ch], g)
        heat[ch, iy, ix] = 1.0
        train[iy, ix] |= 1 << ch
        box[:, iy, ix] = [math.log(w), math.log(h), cx - ix, cy - iy]
        mask[iy, ix] = 1
        if t["orientation"] is not None:
            orient[iy, ix] = t["orientation"]
        if t["orientation"] is not None or t.get("turn_known"):
            rbox[:, iy, ix] = turned_box(t["corners"])
            rmask[iy, ix] = 1
    return heat.astype(np.float16), box, orient.astype(np.int8), rbox.astype(np.float16), mask.astype(np.uint8), rmask.astype(np.uint8), train


def turned_box(corners) -> list[float]:
    """The face as a turned rectangle: cos 4a, sin 4a, log side along a, log side across, in
    cells, where a (within +-45 degrees) is the turn of the side nearest the image's x axis.
    Through 4a the target does not care which of the four sides is the face's top; the
    orientation head says that."""
    c = np.asarray(corners, np.float64)
    right = ((c[1] - c[0]) + (c[2] - c[3])) / 2  # along the face's own x axis
    down = ((c[3] - c[0]) + (c[2] - c[1])) / 2
    psi = math.atan2(right[1], right[0])
    a = (psi + math.pi / 4) % (math.pi / 2) - math.pi / 4
    along, across = np.hypot(*right), np.hypot(*down)
    # Which of the face's sides lies along a: the one whose direction is within 45 degrees of it.
    if abs(math.cos(psi - a)) < 0.5:
        along, across = across, along
    return [math.cos(4 * a), math.sin(4 * a), math.log(max(along, 1.0) / STRIDE), math.log(max(across, 1.0) / STRIDE)]


def letterbox(img):
    w, h = img.size
    s = SIZE / max(w, h)
    nw, nh = round(w * s), round(h * s)
    from PIL import Image

    canvas = Image.new("RGB", (SIZE, SIZE), (114, 114, 114))
    canvas.paste(img.resize((nw, nh), Image.BILINEAR), ((SIZE - nw) // 2, (SIZE - nh) // 2))
    return canvas


_BANK: dict = {}
_REAL: list = []
_PHOTOS: list = []


def _scene(k: int):
    """Scene k: a drawn scene, a crop of a real labelled photo, or a picture with no tile
    (which one is fixed by k, see build)."""
    kind, seed = k % 100, k // 100
    if kind < _MIX[0] and _PHOTOS:
        rng = random.Random(seed)
        img, tiles, ign = realdata.finder_sample(_PHOTOS[seed % len(_PHOTOS)], rng, SIZE)
        return (np.asarray(img, np.uint8),) + targets(tiles, ign, down_known=False)
    if kind < _MIX[0] + _MIX[1]:
        img, tiles, ign = realdata.negative_sample(random.Random(seed), SIZE)
        return (np.asarray(img, np.uint8),) + targets(tiles, ign, down_known=True)
    img, tiles = scenes.make_scene(seed, SIZE, _BANK, _REAL)
    return (np.asarray(img, np.uint8),) + targets(tiles)


# Percent of scenes from real photos, and with no tile; the rest are drawn.
_MIX = (0, 0)


def build(n: int, seed: int, workers: int = 0, real: float = 0.0, negative: float = 0.0):
    global _BANK, _REAL, _PHOTOS, _MIX
    bank = faces.rendered_bank()
    # About a third of the drawn scenes are laid with real tile crops (scenes.SCENE_PHOTOS).
    crops = scenes.real_banks(scenes.SCENE_PHOTOS)
    if not crops:
        print("camerash-dev crops not found: scenes with drawn tiles only")
    photos = realdata.rf_photos("train") + realdata.rf_photos("valid-train") if real > 0 else []
    # The exporter's validation photos are untouched: their square tiles' outlines are known.
    for ph in photos:
        ph["turnable"] = ph["path"].parent.parent.name == "valid"
    # The face-down tiles judged on the train photos (never the validation photos': they
    # check the back output, tools/rf_labels.py check-backs).
    judged: dict = {}
    for path, corners, cls in realdata.labelled_backs(("train",)):
        judged.setdefault(path, []).append((corners, cls))
    for ph in photos:
        ph["backs"] = judged.get(ph["path"], [])
    if real > 0 and not photos:
        print(f"{realdata.RF} not found: no scenes from real photos")
    _BANK, _REAL, _PHOTOS, _MIX = bank, crops, photos, (round(real * 100), round(negative * 100))
    # Scene k of this run: kind k % 100 (real, negative, drawn by _MIX), seed from k // 100.
    keys = [(seed * 1_000_003 + k) * 100 + (k * 37) % 100 for k in range(n)]
    out = synth.parallel_map(_scene, keys, workers)
    return tuple(np.stack(a) for a in zip(*out))


def float_weights(graph) -> dict[str, np.ndarray]:
    """The graph's initializers as arrays, and the outputs of its DequantizeLinear nodes that
    read only initializers (the weights and biases of an 8-bit model, `quantize.py`) as the
    float values they stand for: the shipped 8-bit models start a training as float ones do."""
    from onnx import numpy_helper

    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    for node in graph.node:
        if node.op_type != "DequantizeLinear" or not all(i in init for i in node.input):
            continue
        q = init[node.input[0]].astype(np.float32)
        scale = init[node.input[1]].astype(np.float32)
        zero = init[node.input[2]].astype(np.float32) if len(node.input) > 2 else np.zeros_like(scale)
        if scale.ndim == 1 and q.ndim > 1:  # per output channel (axis 0, as quantize.py writes it)
            shape = (-1,) + (1,) * (q.ndim - 1)
            scale, zero = scale.reshape(shape), zero.reshape(shape)
        init[node.output[0]] = (q - zero) * scale
    return init


def in_module_order(net: nn.Module, convs: list) -> list:
    """The graph's convolutions in the order of `net`'s own, by the module path in each node's
    name (`/net/s4/s4.0/s4.0.0/Conv` is `s4.0.0`); as they stand where a name has none. An 8-bit
    model's graph lists them in another order (its float heads apart)."""
    order = {name: k for k, (name, mod) in enumerate(net.named_modules()) if isinstance(mod, nn.Conv2d)}
    paths = [n.name.split("/")[-2] if n.name.count("/") >= 2 else "" for n in convs]
    if sorted(order.get(p, -1) for p in paths) != sorted(order.values()):
        return convs
    return [n for _, n in sorted(zip(paths, convs), key=lambda pn: order[pn[0]])]


def init_from_onnx(net: nn.Module, path: Path) -> None:
    """Starts from a shipped finder: its ONNX graph has each convolution with the batch norm
    folded in, in the order of `net`'s own convolutions. Each folded weight goes to the
    convolution, its bias to the batch norm after it (made an identity otherwise)."""
    import onnx

    m = onnx.load(str(path))
    init = float_weights(m.graph)
    convs = in_module_order(net, [n for n in m.graph.node if n.op_type == "Conv"])
    # A slim finder (slim_finder.py, no division of the input) reads the picture's 0..255 in
    # its first convolution, whose weights are the network's (which reads 0..1) over 255.
    folded = not any(n.op_type == "Div" and n.input[0] == slim_finder.INPUT for n in m.graph.node)
    mods = [mod for mod in net.modules() if isinstance(mod, nn.Conv2d)]
    if len(convs) != len(mods):
        raise SystemExit(f"{path}: {len(convs)} convolutions, the network has {len(mods)}")
    bns = {}
    prev = None
    for mod in net.modules():
        if isinstance(mod, nn.Conv2d):
            prev = mod
        elif isinstance(mod, nn.BatchNorm2d) and prev is not None:
            bns[id(prev)] = mod
    with torch.no_grad():
        for k, (node, mod) in enumerate(zip(convs, mods)):
            w = torch.from_numpy(init[node.input[1]].copy())
            if folded and k == 0:
                w = w * 255.0
            b = torch.from_numpy(init[node.input[2]].copy()) if len(node.input) > 2 else torch.zeros(w.shape[0])
            if w.shape != mod.weight.shape:
                raise SystemExit(f"{path}: weight {tuple(w.shape)} where the network has {tuple(mod.weight.shape)}")
            mod.weight.copy_(w)
            bn = bns.get(id(mod))
            if mod.bias is not None:
                mod.bias.copy_(b)
            elif bn is not None:
                bn.weight.fill_(1.0)
                bn.bias.copy_(b)
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)


def freeze_norms(net: nn.Module) -> None:
    """Batch norms keep their statistics (a network started from folded weights)."""
    for mod in net.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.eval()


def focal(pred_logits, gt, train=None):
    """CenterNet's focal loss; `train` (0/1, same shape) leaves cells out."""
    p = torch.sigmoid(pred_logits).clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    neg = 1 - pos
    if train is not None:
        pos, neg = pos * train, neg * train
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p**2 * (1 - gt) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return (pos_loss.sum() + neg_loss.sum()) / n


def fit_loss(rbox, box):
    """How far the turned face's upright bounds are from the tile's upright box (log sides, L1,
    per cell; summed over the two sides). The real photos' labels are upright boxes with no
    turn, so the turned face learns its sides from them only through this: without it, it
    learned a drawn tile's shape alone and kept it on photos whose tiles are flatter (squeezed
    by an exporter, seen at a low angle). The turn is taken as predicted (not trained here)."""
    a = (torch.atan2(rbox[:, 1], rbox[:, 0]) / 4).detach()
    c, s = a.cos().abs(), a.sin().abs()
    along, across = rbox[:, 2].exp(), rbox[:, 3].exp()
    w = (along * c + across * s).clamp(min=1e-3).log()
    h = (along * s + across * c).clamp(min=1e-3).log()
    return (w - box[:, 0]).abs() + (h - box[:, 1]).abs()


def kept_maps_loss(teacher: nn.Module, x: torch.Tensor, out: tuple, temperature: float) -> torch.Tensor:
    """Distillation (--distill): how far the maps `out` of the scenes `x` are from the starting
    finder's maps of the same scenes. The heat maps are held to the teacher's probabilities
    everywhere (binary KL divergence, over as many cells as the teacher sees tiles in); the
    box, turned box and orientation where the teacher sees a tile, weighted by how sure it is.
    It keeps what the starting finder finds on sets it never saw (close-ups, photos with no
    tile) while the rounding of --qat is learnt."""
    with torch.no_grad():
        th, tb, to, tr = teacher(x)
        t_heat = torch.sigmoid(th)
        w = t_heat.amax(1, keepdim=True)
    ph, pb, po, pr = out
    n = w.sum().clamp(min=1)
    # Less the teacher's own entropy: a divergence, 0 where the maps agree.
    entropy = F.binary_cross_entropy_with_logits(th, t_heat, reduction="sum")
    l_heat = (F.binary_cross_entropy_with_logits(ph, t_heat, reduction="sum") - entropy) / n
    l_box = (F.l1_loss(pb, tb, reduction="none") * w).sum() / n
    l_turn = (F.l1_loss(pr, tr, reduction="none") * w).sum() / n
    t_or = F.softmax(to / temperature, dim=1)
    kl = (t_or * (torch.log(t_or.clamp(min=1e-8)) - F.log_softmax(po / temperature, dim=1))).sum(1, keepdim=True)
    l_or = (kl * w).sum() / n * temperature**2
    return l_heat + l_box + 0.5 * l_turn + 0.5 * l_or


def decode(heat, box, orient, thresh=0.3):
    """Boxes from the maps of one image (numpy), for evaluation: list of (x0,y0,x1,y1,down,orient,score)."""
    out = []
    hm = torch.from_numpy(heat)[None]
    peaks = (F.max_pool2d(hm, 3, 1, 1) == hm).float()[0].numpy() * heat
    for ch in range(2):
        ys, xs = np.where(peaks[ch] > thresh)
        for y, x in zip(ys, xs):
            w, h = math.exp(box[0, y, x]) * STRIDE, math.exp(box[1, y, x]) * STRIDE
            cx, cy = (x + box[2, y, x]) * STRIDE, (y + box[3, y, x]) * STRIDE
            out.append((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2, ch == 1, int(orient[:, y, x].argmax()), float(peaks[ch, y, x])))
    return out


def iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / u if u > 0 else 0


def match(pred, gt, thr=0.5):
    """(true positives, predictions, ground truths, orientation right among matches)."""
    used = set()
    tp = orient_ok = 0
    for g in gt:
        best, bi = 0, -1
        for i, p in enumerate(pred):
            if i in used:
                continue
            v = iou(p, g)
            if v > best:
                best, bi = v, i
        if best >= thr:
            used.add(bi)
            tp += 1
            orient_ok += int(pred[bi][5] == g[5])
    return tp, len(pred), len(gt), orient_ok


def export(net, args, TP, P, G) -> Path:
    """Writes the ONNX model and its card data (args.out and .json beside it)."""
    import onnx

    net = qat.plain(net).eval().cpu()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        Exported(net), torch.zeros(1, 3, SIZE, SIZE), str(out), input_names=["image"], output_names=["heat", "box", "orient", "rbox"],
        dynamic_axes={
            "image": {0: "n", 2: "h", 3: "w"},
            **{k: {0: "n", 2: "h/4", 3: "w/4"} for k in ("heat", "box", "orient", "rbox")},
        },
        opset_version=17, dynamo=False,
    )
    # The /255 into the first convolution, the turn's softmax left to suanfan (slim_finder.py).
    model = onnx.load(str(out))
    slim_finder.slim(model)
    onnx.save(model, str(out))
    meta = {
        "input": {
            "name": "image", "shape": ["n", 3, "h", "w"], "range": "RGB 0..255",
            "use": f"long side scaled to {INFER_LONG_SIDE}, each side padded with grey 114 to a multiple of 32",
            "trained_at": [SIZE, SIZE],
        },
        "outputs": {
            "heat": "n,2,h/4,w/4 sigmoid: face-up, face-down tile centres",
            "box": "n,4,h/4,w/4: log width, log height (in cells of 4 px), centre offset x, y (cells)",
            slim_finder.ORIENT_LOGITS: slim_finder.ORIENT_LOGITS_CARD,
            "rbox": "n,4,h/4,w/4: the face as a turned rectangle: cos 4a, sin 4a (a: turn of the side nearest the x axis, within 45 degrees), log side along a, log side across (cells)",
        },
        "stride": STRIDE,
        "training": {
            "scenes": args.scenes, "real": args.real, "negative": args.negative, "closeup": args.closeup, "seat": args.seat, "seat_turned": args.seat_turned,
            "negative_backdrops": args.negative_backdrops, "picture_tables": args.picture_tables, "real_turn": args.real_turn, "init": Path(args.init).name if args.init else None,
            "epochs": args.epochs, "batch": args.batch, "lr": args.lr, "width": args.width, "seed": args.seed, "qat": args.qat, "distill": args.distill,
        },
        "synthetic_val": {"precision": round(TP / max(P, 1), 4), "recall": round(TP / max(G, 1), 4)},
    }
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", type=int, default=3000)
    ap.add_argument("--val-scenes", type=int, default=150)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--width", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--export-each-epoch", action="store_true", help="write the ONNX model after every epoch (for runs that may be cut short)")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--workers", type=int, default=0, help="scene generation processes (0: one per CPU)")
    ap.add_argument("--real", type=float, default=0.55, help="share of scenes cut from real labelled photos (rf-chinese-mahjong)")
    ap.add_argument("--negative", type=float, default=0.08, help="share of scenes with no tile (tables, floors, keyboards, dominoes...)")
    ap.add_argument("--negative-backdrops", type=float, default=0.0, help="share of the scenes with no tile cut from Debian's real wallpapers and textures (realdata.backdrops, the half we train on)")
    ap.add_argument("--closeup", type=float, default=realdata.CLOSEUP_SHARE, help="share of the real-photo scenes drawn as close-ups")
    ap.add_argument("--seat", type=float, default=0.0, help="share of the drawn scenes that show a hand from the seat: standing tiles seen from the front, melds lying low")
    ap.add_argument("--picture-tables", type=float, default=0.0, help="share of the drawn scenes laid on a piece of a real picture of the half we train on (realdata.backdrop_piece) instead of a drawn table")
    ap.add_argument("--seat-turned", type=float, default=0.0, help="share of those seat scenes whose melds each lay a claimed tile sideways")
    ap.add_argument("--blur-share", type=float, help="share of the scenes blurred (default: 0.3 of the real-photo scenes, 0.4 of the drawn)")
    ap.add_argument("--blur-max", type=float, help="largest blur, Gaussian sigma in pixels of the 320-pixel scene (default: 1.3 real, 1.2 drawn)")
    ap.add_argument("--real-turn", type=float, default=0.0, help="share of the samples of untouched real photos turned up to 35 degrees (realdata.REAL_TURN; 0: none)")
    ap.add_argument("--noise-share", type=float, default=0.0, help="share of the real-photo scenes given sensor noise as a dim photo brightened shows it")
    ap.add_argument("--real-lean", type=float, default=0.0, help="share of the samples of real photos leaned up to --lean-max degrees, as taken from lower (realdata.REAL_LEAN; 0: none)")
    ap.add_argument("--lean-max", type=float, default=realdata.LEAN_MAX, help="most degrees a real photo is leaned")
    ap.add_argument("--squeeze-max", type=float, default=scenes.SQUEEZE_MAX, help="how much narrower the far side of a drawn scene may be (half the scenes, uniformly up to this)")
    ap.add_argument("--init", help="start from this finder (ONNX) instead of from scratch")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: default)")
    ap.add_argument("--qat", action="store_true", help="train with the rounding of tools/quantize.py --finder (tools/qat.py): for a finder to quantize")
    ap.add_argument("--distill", type=float, default=0.0, help="with --init: weight of a second loss keeping the maps near --init's own maps of the same scenes (kept_maps_loss; 0: none)")
    ap.add_argument("--distill-temperature", type=float, default=2.0, help="softening of the orientations in that loss")
    ap.add_argument("--out", default=str(REPO / "models" / "tile_finder.onnx"))
    args = ap.parse_args()
    if args.distill > 0 and not args.init:
        raise SystemExit("--distill needs --init: the finder whose maps are kept")
    torch.manual_seed(args.seed)
    realdata.CLOSEUP_SHARE = args.closeup
    realdata.BACKDROP_NEGATIVES = args.negative_backdrops
    scenes.SEAT_SHARE = args.seat
    scenes.SEAT_TURNED = args.seat_turned
    scenes.SQUEEZE_MAX = args.squeeze_max
    realdata.REAL_LEAN, realdata.LEAN_MAX = args.real_lean, args.lean_max
    scenes.PICTURE_TABLES = args.picture_tables
    scenes.TABLE_PICTURE = realdata.backdrop_piece
    if args.blur_share is not None:
        realdata.BLUR_SHARE = synth.BLUR_SHARE = args.blur_share
    if args.blur_max is not None:
        realdata.BLUR_MAX = synth.BLUR_MAX = args.blur_max
    realdata.NOISE_SHARE = args.noise_share
    realdata.REAL_TURN = args.real_turn
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    t0 = time.time()
    X, Hm, Bx, Or, Rb, Mk, Rm, Tr = build(args.scenes, args.seed, args.workers, args.real, args.negative)
    VX, VH, VB, VO, VR, VM, _, _ = build(args.val_scenes, args.seed + 1000, args.workers)
    print(f"{len(X)} training and {len(VX)} validation scenes in {time.time() - t0:.0f} s", flush=True)
    net = TileFinder(args.width)
    if args.init:
        init_from_onnx(net, Path(args.init))
        print(f"started from {args.init}")
    # The teacher of --distill finds as --init does: float, without --qat's rounding.
    teacher = qat.frozen_copy(net).to(device) if args.distill > 0 else None
    if args.qat:
        qat.prepare(net, concat_inputs=("up8", "up4"))
    net = net.to(device)
    print(f"parameters: {sum(p.numel() for p in net.parameters())}")
    bs = args.batch
    steps = args.epochs * math.ceil(len(X) / bs)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.1)
    rng = np.random.default_rng(args.seed)
    # The training set on the device (images as uint8), batches cut there.
    TX = torch.from_numpy(X).to(device)
    TT = [torch.from_numpy(a).to(device) for a in (Hm, Bx, Or, Rb, Mk, Rm, Tr)]
    for epoch in range(args.epochs):
        net.train()
        if args.init:
            freeze_norms(net)
        t = time.time()
        tot = fit = 0.0
        order = torch.from_numpy(rng.permutation(len(X))).to(device)
        for k in range(0, len(X), bs):
            j = order[k : k + bs]
            x = TX[j].permute(0, 3, 1, 2).float() / 255.0
            hm, bx, orr, rb, mk, rm, tr = (a[j] for a in TT)
            hm, bx, rb, mk, rm, orr = hm.float(), bx.float(), rb.float(), mk.float(), rm.float(), orr.long()
            tr = torch.stack([(tr & 1) > 0, (tr & 2) > 0], 1).float()
            ph, pb, po, pr = out = net(x)
            l_heat = focal(ph, hm, tr)
            m = mk[:, None]
            n = mk.sum().clamp(min=1)
            l_size = (F.l1_loss(pb[:, :2], bx[:, :2], reduction="none") * m).sum() / n
            l_off = (F.l1_loss(pb[:, 2:], bx[:, 2:], reduction="none") * m).sum() / n
            # A batch of real photos only has no orientation labels (the mean over none is NaN).
            l_or = F.cross_entropy(po, orr, ignore_index=-1) if (orr >= 0).any() else po.sum() * 0
            l_turn = (F.l1_loss(pr, rb, reduction="none") * rm[:, None]).sum() / rm.sum().clamp(min=1)
            l_fit = (fit_loss(pr, bx) * mk).sum() / n
            loss = l_heat + l_size + l_off + 0.5 * l_or + 0.5 * l_turn + 0.5 * l_fit
            if teacher is not None:
                loss = (1 - args.distill) * loss + args.distill * kept_maps_loss(teacher, x, out, args.distill_temperature)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(j)
            fit += l_fit.item() * len(j)
        # Validation: precision / recall at IoU 0.5.
        net.eval()
        TP = P = G = OK = 0
        turn_err = []
        with torch.no_grad():
            for k in range(0, len(VX), 16):
                x = torch.from_numpy(VX[k : k + 16]).permute(0, 3, 1, 2).float().to(device)
                h, b, o, r = Exported(net)(x)
                r = r.cpu().numpy()
                for i in range(len(x)):
                    # Turn of each labelled tile, read at its centre cell, in degrees.
                    ys, xs = np.where(VM[k + i] > 0)
                    a_pred = np.arctan2(r[i, 1, ys, xs], r[i, 0, ys, xs]) / 4
                    a_true = np.arctan2(VR[k + i, 1, ys, xs].astype(np.float32), VR[k + i, 0, ys, xs].astype(np.float32)) / 4
                    d = np.abs(a_pred - a_true)
                    turn_err += list(np.degrees(np.minimum(d, np.pi / 2 - d)))
                    pred = decode(h[i].cpu().numpy(), b[i].cpu().numpy(), o[i].cpu().numpy())
                    gt = []
                    hm_i, bx_i, or_i = VH[k + i], VB[k + i], VO[k + i]
                    ys, xs = np.where(VM[k + i] > 0)
                    for y, xg in zip(ys, xs):
                        w, hh = math.exp(bx_i[0, y, xg]) * STRIDE, math.exp(bx_i[1, y, xg]) * STRIDE
                        cx, cy = (xg + bx_i[2, y, xg]) * STRIDE, (y + bx_i[3, y, xg]) * STRIDE
                        gt.append((cx - w / 2, cy - hh / 2, cx + w / 2, cy + hh / 2, hm_i[1, y, xg] == 1, int(or_i[y, xg])))
                    tp, p, g, ok = match(pred, gt)
                    TP, P, G, OK = TP + tp, P + p, G + g, OK + ok
        print(
            f"epoch {epoch + 1}/{args.epochs}: loss {tot / len(X):.3f} (turned face to box {fit / len(X):.3f})  synthetic val precision {TP / max(P, 1):.3f} "
            f"recall {TP / max(G, 1):.3f} orientation {OK / max(TP, 1):.3f} turn error {np.mean(turn_err):.1f} deg  ({time.time() - t:.0f} s)",
            flush=True,
        )
        if args.export_each_epoch:
            export(net, args, TP, P, G)
    out = export(net, args, TP, P, G)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()

"""Train the tile face classifier (42 classes) and export it to ONNX.

Data: synthetic crops from the face bank (tools/faces.py, tools/synth.py) and the real
labelled crops of ../shared/data/camerash-dev from the training photos (augmented). The real
crops of the validation photos are never trained on; accuracy on them is printed per epoch.

    python tools/train_classifier.py [--epochs 12] [--per-class 500] [--seed 1] [--fold a|b|c]

The defaults are the quick recipe (20 to 30 minutes on 2 CPU cores); the shipped classifier is
--per-class 1000 --epochs 16 (7 minutes on an H100 shared with five other runs). A GPU is used
when present; crops are drawn on every CPU core (--workers). --fold b or c holds out another
third of the labelled photos: the three folds together estimate the accuracy on tile sets
never seen (cross-validation by photo).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import time
import zlib
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

import faces
import qat
import realdata
import synth

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
CAMERASH = faces.SHARED / "camerash-dev"
# Validation photos: never trained on. Together they hold all 42 faces.
VAL_PHOTOS = {"photos/9.jpg", "photos/3.png", "photos/6-1.png", "photos/6-2.png", "photos/6-3.png", "photos/6-4.png"}
# Cross-validation (--fold): the labelled photos in three groups, each photo's tile set in one
# group only. Fold "a" is VAL_PHOTOS, the split the shipped model is trained and measured on.
FOLDS = {
    "a": VAL_PHOTOS,
    "b": {"photos/2-1.jpg", "photos/2-2.jpg", "photos/2-3.jpg", "photos/2-4.jpg", "photos/2-5.jpg", "photos/4.jpg", "photos/5.jpg"},
    "c": {"photos/7.jpg", "photos/8.jpg", "photos/10.jpg", "photos/11.jpg"},
}


def real_crops() -> list[tuple[str, int, str]]:
    """(crop path, class, photo) for every labelled real crop."""
    out = []
    labels = CAMERASH / "labels.csv"
    if not labels.exists():
        print(f"{labels} not found: training on synthetic crops only")
        return out
    for row in csv.DictReader(labels.open()):
        out.append((str(CAMERASH / row["crop"]), faces.CLASSES.index(row["tile"]), row["photo"]))
    return out


def to_array(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("RGB").resize((synth.CROP_W, synth.CROP_H), Image.BILINEAR), dtype=np.uint8)


class TileNet(nn.Module):
    """A small CNN over 64x48 RGB crops: four conv stages, global average pooling, 42 logits."""

    def __init__(self, classes: int = 42, width: int = 24):
        super().__init__()

        def block(i, o):
            return nn.Sequential(
                nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                nn.Conv2d(o, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
            )

        w = width
        self.features = nn.Sequential(
            block(3, w), nn.MaxPool2d(2),
            block(w, 2 * w), nn.MaxPool2d(2),
            block(2 * w, 4 * w), nn.MaxPool2d(2),
            block(4 * w, 6 * w),
        )
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(6 * w, classes))

    def forward(self, x):  # x: N,3,64,48 in 0..1
        x = self.features(x)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


class Exported(nn.Module):
    """What ships: uint8-range RGB in, probabilities out."""

    def __init__(self, net: TileNet):
        super().__init__()
        self.net = net

    def forward(self, crops):  # N,3,64,48 float 0..255
        return torch.softmax(self.net(crops / 255.0), dim=1)


# What the worker processes of build_dataset read (set before they fork).
_BANK: dict[str, list[Image.Image]] = {}
_CHUNK = 50


def _synthetic_chunk(job: tuple[int, int, int, int]) -> list[np.ndarray]:
    c, start, n, seed = job
    rng = random.Random(seed * 1_000_003 + c * 10_007 + start)
    pool = _BANK[faces.CLASSES[c]]
    return [to_array(synth.crop_from_face(rng.choice(pool), rng)) for _ in range(n)]


def _real_augmented(job: tuple[str, int, int]) -> list[np.ndarray]:
    path, repeats, seed = job
    rng = random.Random(seed)
    img = Image.open(path).convert("RGB")
    return [to_array(img)] + [to_array(synth.augment_real(img, rng)) for _ in range(repeats)]


def load_bank() -> None:
    """The face bank for the workers (`_BANK`), rendered first when there is none."""
    global _BANK
    bank = faces.rendered_bank()
    for cls in faces.CLASSES:
        if not bank[cls]:
            raise SystemExit(f"no face rendered for {cls}: run tools/faces.py")
    _BANK = bank


def build_dataset(
    per_class: int, seed: int, real_repeats: int, workers: int = 0, val_photos: set[str] = VAL_PHOTOS, rf_copies: int = 0, none_drawn: int = 0,
    pipeline: tuple[str, int, int | None] | None = None, backs: tuple[int, int] = (0, 0), face_parts: tuple[str, ...] = ("valid-train",),
    none_backdrops: int = 0, bonus_per_class: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    load_bank()
    counts = [bonus_per_class if bonus_per_class and c >= realdata.BONUS_FIRST else per_class for c in range(len(faces.CLASSES))]
    jobs = [(c, s, min(_CHUNK, counts[c] - s), seed) for c in range(len(faces.CLASSES)) for s in range(0, counts[c], _CHUNK)]
    xs, ys = [], []
    for (c, _, _, _), chunk in zip(jobs, synth.parallel_map(_synthetic_chunk, jobs, workers)):
        xs += chunk
        ys += [c] * len(chunk)
    n_synth = len(xs)
    real = [(p, c) for p, c, photo in real_crops() if photo not in val_photos]
    jobs = [(p, real_repeats, seed * 7_919 + k) for k, (p, _) in enumerate(real)]
    for (_, c), chunk in zip(real, synth.parallel_map(_real_augmented, jobs, workers)):
        xs += chunk
        ys += [c] * len(chunk)
    n_cam = len(xs) - n_synth
    n_rf = n_none = 0
    if rf_copies:
        # Real phone photos (rf-chinese-mahjong): the faces of the exporter's validation photos
        # we train on (never those of the augmented train photos: turned and sheared, their
        # upright boxes hold parts of other tiles), each cut a few times with a detector's
        # jitter; and crops that are no whole tile from every photo.
        global _PHOTOS, _NONE_PHOTOS, _RF_COPIES
        _PHOTOS = realdata.rf_photos("valid-train")
        _NONE_PHOTOS, _RF_COPIES = realdata.rf_photos("valid-train") + realdata.rf_photos("train"), rf_copies
        jobs = [(k, seed) for k in range(len(_PHOTOS))]
        for chunk in synth.parallel_map(_rf_faces, jobs, workers):
            for a, c in chunk:
                xs.append(a)
                ys.append(c)
        n_rf = len(xs) - n_synth - n_cam
        jobs = [(k, seed) for k in range(len(_NONE_PHOTOS))]
        for chunk in synth.parallel_map(_rf_none, jobs, workers):
            xs += chunk
            ys += [realdata.NONE] * len(chunk)
        drawn = synth.parallel_map(_drawn_none, [(k, seed) for k in range(none_drawn // 50)], workers)
        for chunk in drawn:
            xs += chunk
            ys += [realdata.NONE] * len(chunk)
        # Debian's photo wallpapers and textures we train on (realdata.backdrops).
        more = backdrop_none(none_backdrops, seed, workers)
        xs += more
        ys += [realdata.NONE] * len(more)
        n_none = len(xs) - n_synth - n_cam - n_rf
    n_pipe = len(xs)
    if pipeline:
        # The same photos' faces cut along the outlines the finder draws (turned, tight), as
        # the classifier is given them in suanfan, rather than the labels' upright boxes; with
        # --train-faces also those of the augmented train photos whose orientation is known
        # (a mirrored one flipped back).
        for part in face_parts:
            px, py = pipeline_crops(pipeline[0], part, pipeline[1], seed, pipeline[2])
            xs += px
            ys += py
    n_pipe = len(xs) - n_pipe
    n_backs = len(xs)
    if backs[0]:
        # Face-down tiles: those the finder reported on the rf train photos, judged by a person
        # (a real back, or no tile), and drawn backs of every colour.
        for a, c in realdata.back_crops(realdata.labelled_backs(("train",)), random.Random(seed * 7_368_787), backs[0]):
            xs.append(a)
            ys.append(c)
        drawn = synth.parallel_map(_drawn_backs, [(k, seed) for k in range(backs[1] // 50)], workers)
        for chunk in drawn:
            xs += chunk
            ys += [realdata.BACK] * len(chunk)
    n_backs = len(xs) - n_backs
    print(
        f"training crops: {n_synth} synthetic, {n_cam} camerash-dev (augmented), {n_rf} rf photo faces, "
        f"{n_pipe} rf faces cut as suanfan cuts them, {n_none} not a tile, {n_backs} face-down (real and drawn)"
    )
    return np.stack(xs), np.array(ys, dtype=np.int64)


def pipeline_crops(bin_: str, part: str, copies: int, seed: int, bonus_copies: int | None = None) -> tuple[list[np.ndarray], list[int]]:
    """The faces of the rf photos of `part` cut where and as `suanfan scan` (the binary `bin_`
    with its models) finds them, named by the labels (realdata.pipeline_face_crops)."""
    photos = realdata.rf_photos(part)
    answers = scan_answers(bin_, part, photos)
    rng = random.Random(seed * 86_028_121)
    xs, ys = [], []
    for p in photos:
        v = answers.get(str(p["path"]))
        for a, c in realdata.pipeline_face_crops(p, v["tiles"], rng, copies, bonus_copies=bonus_copies) if v else []:
            xs.append(a)
            ys.append(c)
    return xs, ys


SCAN_ANSWERS: Path | None = None  # --scan-answers


def scan_answers(bin_: str, part: str, photos: list[dict]) -> dict[str, dict]:
    """`suanfan scan`'s answer for each photo of `part`, by its path. With --scan-answers DIR
    they are read from DIR/<part>.jsonl when it is there (keyed by file name, so a copy of the
    photos elsewhere finds them: a machine without the binary can train), else written there."""
    saved = SCAN_ANSWERS / f"{part}.jsonl" if SCAN_ANSWERS else None
    if saved and saved.exists():
        by_name = {}
        for line in saved.read_text().splitlines():
            v = json.loads(line)
            by_name[Path(v["image"]).name] = v
        print(f"scan answers of {len(by_name)} {part} photos read from {saved}")
        return {str(p["path"]): by_name[Path(p["path"]).name] for p in photos if Path(p["path"]).name in by_name}
    answers = realdata.scan(bin_, [p["path"] for p in photos])
    if saved:
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text("".join(json.dumps(v) + "\n" for v in answers.values()))
    return answers


_PHOTOS: list = []  # whose faces are cut
_NONE_PHOTOS: list = []  # where crops that are no tile are cut
_RF_COPIES = 3
_NONE_PER_PHOTO = 8  # --none-per-photo


def _rf_faces(job):
    k, seed = job
    rng = random.Random(seed * 15_485_863 + k)
    return [t for _ in range(_RF_COPIES) for t in realdata.face_crops(_PHOTOS[k], rng)]


def _rf_none(job):
    k, seed = job
    rng = random.Random(seed * 32_452_843 + k)
    return realdata.none_crops(_NONE_PHOTOS[k], rng, _NONE_PER_PHOTO)


def _backdrop_none(job):
    """Crops of one of Debian's pictures with no tile (the part we train on), as they are and
    of a piece of them blown up (a close look at a table)."""
    path, n, seed = job
    rng = random.Random(seed * 15_485_863 + zlib.crc32(str(path).encode()))
    img = realdata.load_backdrop(path)
    piece = realdata.random_piece(img, rng)
    return realdata.backdrop_none_crops(img, rng, n - n // 2) + realdata.backdrop_none_crops(piece, rng, n // 2)


def backdrop_none(per_picture: int, seed: int, workers: int) -> list[np.ndarray]:
    """`per_picture` "not a tile" crops from each of Debian's pictures we train on (none for 0)."""
    if not per_picture:
        return []
    jobs = [(p, per_picture, seed) for p in realdata.backdrops("train")]
    return [a for chunk in synth.parallel_map(_backdrop_none, jobs, workers) for a in chunk]


def _drawn_none(job):
    k, seed = job
    return realdata.distractor_crops(random.Random(seed * 49_979_687 + k), 50)


def _drawn_backs(job):
    k, seed = job
    return realdata.drawn_back_crops(random.Random(seed * 67_867_967 + k), 50)


def back_validation() -> tuple[np.ndarray, np.ndarray]:
    """The face-down tiles the finder reported on the rf validation photos (never trained on
    with --backs), cut as found: real backs and no tile, as a person judged them."""
    items = realdata.back_crops(realdata.labelled_backs(("valid-train", "holdout")), random.Random(0), 1)
    if not items:
        return np.zeros((0, synth.CROP_H, synth.CROP_W, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack([a for a, _ in items]), np.array([c for _, c in items], dtype=np.int64)


def face_down_check(net: nn.Module, x: np.ndarray, y: np.ndarray, device) -> str:
    """How many real backs would be kept and false ones dropped ("" without them)."""
    if not len(y):
        return ""
    _, p = evaluate(net, x, y, device)
    back, none = y == realdata.BACK, y == realdata.NONE
    return f", face-down: real backs kept {int((p[back] != realdata.NONE).sum())}/{int(back.sum())}, no tile dropped {int((p[none] == realdata.NONE).sum())}/{int(none.sum())}"


def rf_validation() -> tuple[np.ndarray, np.ndarray]:
    """Faces of the held-out rf photos, cut once without jitter, and crops that are no tile."""
    xs, ys = [], []
    rng = random.Random(5)
    for ph in realdata.rf_photos("holdout"):
        for a, c in realdata.face_crops(ph, rng, jitter=0.0):
            xs.append(a)
            ys.append(c)
        for a in realdata.none_crops(ph, rng, 4):
            xs.append(a)
            ys.append(realdata.NONE)
    if not xs:
        return np.zeros((0, synth.CROP_H, synth.CROP_W, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(xs), np.array(ys, dtype=np.int64)


def soften(xb: torch.Tensor, rng: np.random.Generator, blur_share: float, blur_max: float, noise_share: float) -> torch.Tensor:
    """A batch of crops (N, 3, H, W in 0..1) with `blur_share` of them out of focus (one
    Gaussian sigma per batch, 0.3 to `blur_max` pixels of the crop) and `noise_share` given
    sensor noise (sigma 1% to 5%), as soft and dim photos show them; 0 and 0: unchanged."""
    n = len(xb)
    if blur_share > 0 and blur_max > 0.3:
        sigma = float(rng.uniform(0.3, blur_max))
        r = max(1, int(math.ceil(2.5 * sigma)))
        t = torch.arange(-r, r + 1, device=xb.device, dtype=xb.dtype)
        k = torch.exp(-0.5 * (t / sigma) ** 2)
        k = k / k.sum()
        soft = F.pad(xb, (r, r, r, r), mode="replicate")
        soft = F.conv2d(soft, k.view(1, 1, 1, -1).repeat(3, 1, 1, 1), groups=3)
        soft = F.conv2d(soft, k.view(1, 1, -1, 1).repeat(3, 1, 1, 1), groups=3)
        pick = (torch.rand(n, 1, 1, 1, device=xb.device) < blur_share).to(xb.dtype)
        xb = pick * soft + (1 - pick) * xb
    if noise_share > 0:
        pick = (torch.rand(n, 1, 1, 1, device=xb.device) < noise_share).to(xb.dtype)
        level = torch.empty(n, 1, 1, 1, device=xb.device).uniform_(0.01, 0.05)
        xb = xb + pick * level * torch.randn_like(xb)
    return xb


def shake(xb: torch.Tensor, rng: np.random.Generator, share: float, longest: float) -> torch.Tensor:
    """A batch of crops (N, 3, H, W in 0..1) with `share` of them smeared as by a phone that
    moved while it took the photo: evenly along a line 1.5 to `longest` pixels of the crop long,
    at one random angle per batch; 0: unchanged."""
    if share <= 0 or longest < 1.5:
        return xb
    length, angle = float(rng.uniform(1.5, longest)), float(rng.uniform(0, math.pi))
    r = int(math.ceil(length / 2)) + 1
    size = 2 * r + 1
    k = torch.zeros(size, size, device=xb.device, dtype=xb.dtype)
    steps = max(3, int(math.ceil(length * 2)))
    for i in range(steps):
        t = (i / (steps - 1) - 0.5) * length
        x, y = r + t * math.cos(angle), r + t * math.sin(angle)
        x0, y0 = int(math.floor(x)), int(math.floor(y))
        fx, fy = x - x0, y - y0
        for dx, dy, wt in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
            if 0 <= x0 + dx < size and 0 <= y0 + dy < size:
                k[y0 + dy, x0 + dx] += wt
    k = k / k.sum()
    smeared = F.conv2d(F.pad(xb, (r, r, r, r), mode="replicate"), k.view(1, 1, size, size).repeat(3, 1, 1, 1), groups=3)
    pick = (torch.rand(len(xb), 1, 1, 1, device=xb.device) < share).to(xb.dtype)
    return pick * smeared + (1 - pick) * xb


def kept_reading_loss(teacher: nn.Module, clean: torch.Tensor, out: torch.Tensor, temperature: float) -> torch.Tensor:
    """Distillation: how far the outputs on the (maybe spoiled) crops are from the starting
    classifier's reading of the same crops unspoiled (KL divergence of both softened by
    `temperature`, scaled by its square). It keeps what the starting classifier reads right
    on tile sets it never saw while the new one learns soft and noisy crops."""
    with torch.no_grad():
        target = F.softmax(teacher(clean) / temperature, dim=1)
    return F.kl_div(F.log_softmax(out / temperature, dim=1), target, reduction="batchmean") * temperature**2


def init_from_onnx(net: nn.Module, path: Path) -> None:
    """Starts from a shipped classifier (its convolutions as train_detector.init_from_onnx
    loads them); the output layer keeps the classes both have, a new class starts at zero."""
    import onnx

    import train_detector

    train_detector.init_from_onnx(net, path)
    init = train_detector.float_weights(onnx.load(str(path)).graph)
    w, b = init["net.head.1.weight"], init["net.head.1.bias"]
    lin = net.head[1]
    rows = min(len(w), lin.weight.shape[0])  # a classifier with the back class starts one without
    with torch.no_grad():
        lin.weight[:rows] = torch.from_numpy(w[:rows].copy())
        lin.bias[:rows] = torch.from_numpy(b[:rows].copy())
        if lin.weight.shape[0] > len(w):
            lin.weight[len(w) :] = 0.0
            lin.bias[len(b) :] = float(b.mean())


def onnx_width(path: Path) -> int:
    """The width of a classifier saved as ONNX: its first convolution's output channels."""
    import onnx

    import train_detector

    graph = onnx.load(str(path)).graph
    init = train_detector.float_weights(graph)
    first = next(n for n in graph.node if n.op_type == "Conv")
    return int(init[first.input[1]].shape[0])


def loaded_classifier(path: Path, classes: int) -> TileNet:
    """A classifier saved as ONNX, loaded at its own width (the first `classes` outputs)."""
    net = TileNet(classes=classes, width=onnx_width(path))
    init_from_onnx(net, path)
    return net


def channel_worth(net: TileNet, x: np.ndarray) -> list[torch.Tensor]:
    """How much each convolution's output channel carries, one tensor per convolution: its mean
    activation over the crops `x` times the size of the weights that read it downstream (the
    next convolution's, or the output layer's for the last)."""
    relus = [m for m in net.features.modules() if isinstance(m, nn.ReLU)]
    means: list[torch.Tensor] = []
    hooks = [r.register_forward_hook(lambda _m, _i, out: means.append(out.mean((0, 2, 3)))) for r in relus]
    net.eval()
    with torch.no_grad():
        net(torch.from_numpy(x).permute(0, 3, 1, 2).float() / 255.0)
    for h in hooks:
        h.remove()
    convs = [m for m in net.features.modules() if isinstance(m, nn.Conv2d)]
    readers = [c.weight.detach().abs().sum((0, 2, 3)) for c in convs[1:]] + [net.head[1].weight.detach().abs().sum(0)]
    return [m * r for m, r in zip(means, readers)]


def pruned_start(net: TileNet, teacher: TileNet, x: np.ndarray) -> None:
    """Starts `net` (narrower than `teacher`, the same layers) from the teacher's channels that
    carry most (`channel_worth` over the crops `x`): each convolution keeps those of its output
    channels and of the channels it reads that the layer before kept; the batch norms start as
    the identity with the teacher's folded biases, as `init_from_onnx` leaves them."""
    worth = channel_worth(teacher, x)
    t_convs = [m for m in teacher.features.modules() if isinstance(m, nn.Conv2d)]
    t_bns = [m for m in teacher.features.modules() if isinstance(m, nn.BatchNorm2d)]
    s_convs = [m for m in net.features.modules() if isinstance(m, nn.Conv2d)]
    s_bns = [m for m in net.features.modules() if isinstance(m, nn.BatchNorm2d)]
    kept_in = torch.arange(3)
    with torch.no_grad():
        for w, tc, tb, sc, sb in zip(worth, t_convs, t_bns, s_convs, s_bns):
            kept = w.topk(sc.out_channels).indices.sort().values
            sc.weight.copy_(tc.weight[kept][:, kept_in])
            sb.weight.copy_(tb.weight[kept])
            sb.bias.copy_(tb.bias[kept])
            sb.running_mean.copy_(tb.running_mean[kept])
            sb.running_var.copy_(tb.running_var[kept])
            kept_in = kept
        net.head[1].weight.copy_(teacher.head[1].weight[:, kept_in])
        net.head[1].bias.copy_(teacher.head[1].bias)


def held_out_as_cut(net: nn.Module, x: np.ndarray, y: np.ndarray, device) -> str:
    """The accuracy on the held-out faces cut as suanfan cuts them ("" without them)."""
    if not len(y):
        return ""
    acc, _ = evaluate(net, x, y, device)
    return f", held-out faces as suanfan cuts them {acc:.3f}"


def validation_set(val_photos: set[str] = VAL_PHOTOS) -> tuple[np.ndarray, np.ndarray, list[str]]:
    rows = [r for r in real_crops() if r[2] in val_photos]
    if not rows:
        return np.zeros((0, synth.CROP_H, synth.CROP_W, 3), np.uint8), np.zeros(0, np.int64), []
    xs = np.stack([to_array(Image.open(p)) for p, _, _ in rows])
    return xs, np.array([c for _, c, _ in rows], dtype=np.int64), [p for p, _, _ in rows]


def rng_pick(n: int, k: int, seed: int) -> np.ndarray:
    """`k` of the indices below `n` (all of them when there are fewer), drawn with `seed`."""
    return np.sort(np.random.default_rng(seed).permutation(n)[:k])


def batches(x: np.ndarray, y: np.ndarray, bs: int, shuffle: bool, rng: np.random.Generator):
    idx = rng.permutation(len(x)) if shuffle else np.arange(len(x))
    for k in range(0, len(x), bs):
        j = idx[k : k + bs]
        xb = torch.from_numpy(x[j]).permute(0, 3, 1, 2).float()
        yield xb, torch.from_numpy(y[j])


def evaluate(net: nn.Module, x: np.ndarray, y: np.ndarray, device) -> tuple[float, np.ndarray]:
    net.eval()
    preds = []
    with torch.no_grad():
        for xb, _ in batches(x, y, 256, False, np.random.default_rng(0)):
            preds.append(net(xb.to(device) / 255.0).argmax(1).cpu().numpy())
    p = np.concatenate(preds) if preds else np.zeros(0, np.int64)
    return (float((p == y).mean()) if len(y) else float("nan")), p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--per-class", type=int, default=500)
    ap.add_argument("--real-repeats", type=int, default=25)
    ap.add_argument("--width", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: default)")
    ap.add_argument("--fold", choices=sorted(FOLDS), default="a", help="which photos are held out (a: the shipped split)")
    ap.add_argument("--workers", type=int, default=0, help="data generation processes (0: one per CPU)")
    ap.add_argument("--rf-copies", type=int, default=3, help="cuts of each face of the real rf photos we train on (0: none, and no 'not a tile' class)")
    ap.add_argument("--none-per-photo", type=int, default=8, help="crops that are no tile cut from each rf photo")
    ap.add_argument("--none-drawn", type=int, default=2000, help="drawn 'not a tile' crops (keyboards, dominoes, floors...)")
    ap.add_argument("--margin-share", type=float, default=0.0, help="share of the face crops cut with suanfan's margin (its second reading of each face)")
    ap.add_argument("--part-crops", action="store_true", help="parts of one tile's face (pips, characters) among the 'not a tile' crops")
    ap.add_argument("--pipeline-copies", type=int, default=0, help="cuts of each face of the rf photos we train on as `suanfan scan` finds and cuts it (0: none)")
    ap.add_argument("--bonus-per-class", type=int, help="synthetic crops of each flower and season instead of --per-class (their faces differ most between sets)")
    ap.add_argument("--bonus-copies", type=int, help="with --pipeline-copies: this many cuts of each flower and season instead (they are rare in the photos)")
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "suanfan"), help="the suanfan binary that finds the tiles for --pipeline-copies")
    ap.add_argument("--backs", type=int, default=0, help="cuts of each face-down tile of the rf train photos judged in datasets/labels/rf-backs.csv; adds a 44th class, a tile face down (0: none)")
    ap.add_argument("--backs-drawn", type=int, default=1500, help="with --backs: drawn face-down tiles of every colour")
    ap.add_argument("--backs-only", action="store_true", help="with --backs and --init: learn only the output of the new class from the classifier's own features; every other output stays as it was")
    ap.add_argument("--refit-none", action="store_true", help="with --backs-only: fit the 'not a tile' output again too, from where --init has it")
    ap.add_argument("--none-backdrops", type=int, default=0, help="'not a tile' crops from each of Debian's pictures with no tile we train on (realdata.backdrops): photo wallpapers and textures")
    ap.add_argument("--train-faces", action="store_true", help="learn faces from the augmented rf train photos too: those rf-train-orientation.csv knows the orientation of, mirrored ones flipped back")
    ap.add_argument("--init", help="start from this classifier (ONNX) instead of from scratch")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--blur-share", type=float, default=0.0, help="share of each batch's crops blurred on the fly (0: none, as before)")
    ap.add_argument("--blur-max", type=float, default=3.0, help="largest of that blur, Gaussian sigma in pixels of the 64x48 crop")
    ap.add_argument("--shake-share", type=float, default=0.0, help="share of each batch's crops smeared along a line on the fly, as by a phone that moved (0: none, as before)")
    ap.add_argument("--shake-max", type=float, default=8.0, help="longest of that smear, in pixels of the 64x48 crop")
    ap.add_argument("--noise-share", type=float, default=0.0, help="share of each batch's crops given sensor noise on the fly")
    ap.add_argument("--distill", type=float, default=0.0, help="with --init or --prune-from: weight of a second loss keeping the outputs near --init's (or --prune-from's) own reading of the unspoiled crop (0: none)")
    ap.add_argument("--teacher", help="with --distill: keep the outputs near this classifier's (ONNX, any width) instead of --init's or --prune-from's")
    ap.add_argument("--prune-from", help="start from this classifier (ONNX) made narrower: a --width smaller than its own keeps its channels that carry most (pruned_start); it is --distill's teacher")
    ap.add_argument("--distill-temperature", type=float, default=2.0, help="softening of both outputs in that loss")
    ap.add_argument("--scan-answers", type=Path, help="a folder keeping suanfan's answers on the rf photos for --pipeline-copies: read when there, written when not (for a machine without the binary)")
    ap.add_argument("--qat", action="store_true", help="train with the rounding of tools/quantize.py (tools/qat.py): for a classifier to quantize")
    ap.add_argument("--out", default=str(REPO / "models" / "tile_classifier.onnx"))
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    synth.MARGIN_SHARE = args.margin_share
    global SCAN_ANSWERS
    SCAN_ANSWERS = args.scan_answers
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.backs_only:
        if not (args.backs and args.init):
            raise SystemExit("--backs-only needs --backs and --init")
        train_back_row(args)
        return
    realdata.PART_CROPS = args.part_crops
    global _NONE_PER_PHOTO
    _NONE_PER_PHOTO = args.none_per_photo
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    t0 = time.time()
    val_photos = FOLDS[args.fold]
    pipeline = (args.bin, args.pipeline_copies, args.bonus_copies) if args.pipeline_copies else None
    if args.backs and not args.rf_copies:
        raise SystemExit("--backs needs the 'not a tile' class: give --rf-copies")
    backs = (args.backs, args.backs_drawn)
    face_parts = ("valid-train", "train-faces") if args.train_faces else ("valid-train",)
    x, y = build_dataset(
        args.per_class, args.seed, args.real_repeats, args.workers, val_photos, args.rf_copies, args.none_drawn, pipeline, backs, face_parts, args.none_backdrops,
        args.bonus_per_class,
    )
    vx, vy, vpaths = validation_set(val_photos)
    rx, ry = rf_validation() if args.rf_copies else (vx[:0], vy[:0])
    # The held-out photos' faces as suanfan cuts them: what the classifier reads in use.
    hx, hy = pipeline_crops(args.bin, "holdout", 1, 0) if pipeline else ([], [])
    hx, hy = (np.stack(hx), np.array(hy, dtype=np.int64)) if hx else (vx[:0], vy[:0])
    print(f"data ready in {time.time() - t0:.0f} s: {len(x)} train, {len(vx)} camerash-dev and {len(rx)} rf held-out validation crops")
    bx, by = back_validation() if args.backs else (vx[:0], vy[:0])
    classes = faces.CLASSES + (["none"] if args.rf_copies else []) + (["back"] if args.backs else [])
    net = TileNet(classes=len(classes), width=args.width)
    if args.init and args.prune_from:
        raise SystemExit("give --init or --prune-from, not both")
    # The teacher of --distill reads as --init (or --prune-from) does: float, without --qat's
    # rounding; --teacher names another.
    start = net
    if args.init:
        init_from_onnx(net, Path(args.init))
        print(f"started from {args.init}")
    if args.prune_from:
        start = loaded_classifier(Path(args.prune_from), len(classes))
        pruned_start(net, start, x[rng_pick(len(x), 4096, args.seed)])
        print(f"started from {args.prune_from} pruned to width {args.width}")
    if args.teacher and args.distill > 0:
        start = loaded_classifier(Path(args.teacher), len(classes))
    teacher = qat.frozen_copy(start).to(device) if args.distill > 0 else None
    if args.qat:
        qat.prepare(net)
    net = net.to(device)
    if args.distill > 0 and not (args.init or args.prune_from):
        raise SystemExit("--distill needs --init or --prune-from: the classifier whose readings are kept")
    print(f"parameters: {sum(p.numel() for p in net.parameters())}")
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * ((len(x) + 127) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    rng = np.random.default_rng(args.seed)
    # The whole training set on the device as uint8 (NHWC): batches are cut there.
    tx, ty = torch.from_numpy(x).to(device), torch.from_numpy(y).to(device)
    for epoch in range(args.epochs):
        net.train()
        if args.init or args.prune_from:
            import train_detector

            train_detector.freeze_norms(net)
        t = time.time()
        total, correct, loss_sum = 0, 0, 0.0
        order = torch.from_numpy(rng.permutation(len(x))).to(device)
        for k in range(0, len(x), 128):
            j = order[k : k + 128]
            xb, yb = tx[j].permute(0, 3, 1, 2).float() / 255.0, ty[j]
            # Cheap on-the-fly variation: brightness, colour cast, now and then grey, and a
            # shift of a pixel or two.
            xb = xb * torch.empty(len(xb), 1, 1, 1, device=device).uniform_(0.8, 1.2)
            xb = xb * torch.empty(len(xb), 3, 1, 1, device=device).uniform_(0.92, 1.08)
            grey = (torch.rand(len(xb), 1, 1, 1, device=device) < 0.08).float()
            xb = grey * xb.mean(1, keepdim=True) + (1 - grey) * xb
            if rng.random() < 0.5:
                xb = torch.roll(xb, shifts=(int(rng.integers(-2, 3)), int(rng.integers(-2, 3))), dims=(2, 3))
            clean = xb
            xb = soften(shake(xb, rng, args.shake_share, args.shake_max), rng, args.blur_share, args.blur_max, args.noise_share)
            out = net(xb.clamp(0, 1))
            loss = F.cross_entropy(out, yb, label_smoothing=0.05)
            if teacher is not None:
                loss = (1 - args.distill) * loss + args.distill * kept_reading_loss(teacher, clean.clamp(0, 1), out, args.distill_temperature)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            loss_sum += loss.item() * len(xb)
            correct += (out.argmax(1) == yb).sum().item()
            total += len(xb)
        acc, _ = evaluate(net, vx, vy, device)
        racc, rp = evaluate(net, rx, ry, device)
        none = ry == realdata.NONE
        print(
            f"epoch {epoch + 1}/{args.epochs}: loss {loss_sum / total:.3f} train acc {correct / total:.3f} real val acc {acc:.3f}; "
            f"rf held-out faces {float((rp[~none] == ry[~none]).mean()) if len(ry) else float('nan'):.3f}, "
            f"not-a-tile {float((rp[none] == ry[none]).mean()) if none.any() else float('nan'):.3f}, "
            f"faces called not-a-tile {float((rp[~none] == realdata.NONE).mean()) if len(ry) else float('nan'):.3f}"
            f"{held_out_as_cut(net, hx, hy, device)}{face_down_check(net, bx, by, device)} ({time.time() - t:.0f} s)",
            flush=True,
        )
    # The last epoch ships. Keeping the epoch that scores best on the validation photos would
    # overstate the accuracy: from one epoch to the next it moves by a crop or two of 122.
    acc, pred = evaluate(net, vx, vy, device)
    wrong = [(Path(p).name, classes[t], classes[q]) for p, t, q in zip(vpaths, vy, pred) if t != q]
    print(f"real validation accuracy of the last epoch: {acc:.4f} ({len(vy) - len(wrong)}/{len(vy)}); errors: {wrong}")

    meta = {
        "validation_photos": sorted(val_photos),
        "real_val_accuracy": round(acc, 4),
        "real_val_crops": int(len(vy)),
        "epochs": args.epochs,
        "seed": args.seed,
        "per_class": args.per_class,
        "bonus_per_class": args.bonus_per_class,
        "bonus_copies": args.bonus_copies,
        "margin_share": args.margin_share,
        "blur_share": args.blur_share,
        "blur_max": args.blur_max,
        "noise_share": args.noise_share,
        "shake_share": args.shake_share,
        "shake_max": args.shake_max,
        "distill": args.distill,
        "width": args.width,
        "pruned_from": Path(args.prune_from).name if args.prune_from else None,
        "teacher": Path(args.teacher).name if args.teacher else None,
        "qat": args.qat,
    }
    export(net, classes, Path(args.out), meta, t0)


def export(net: nn.Module, classes: list[str], out: Path, meta: dict, t0: float) -> None:
    """Writes the classifier as ONNX (uint8-range RGB in, probabilities out) and its card."""
    net = qat.plain(net).eval().cpu()
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, synth.CROP_H, synth.CROP_W)
    torch.onnx.export(
        Exported(net), dummy, str(out), input_names=["crops"], output_names=["probs"],
        dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"}}, opset_version=17, dynamo=False,
    )
    meta = {
        "input": {"name": "crops", "shape": ["n", 3, synth.CROP_H, synth.CROP_W], "range": "RGB 0..255"},
        "output": {"name": "probs", "shape": ["n", len(classes)]},
        "classes": classes,
        **meta,
    }
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) in {time.time() - t0:.0f} s")


def pooled(net: TileNet, x: np.ndarray) -> torch.Tensor:
    """The features the output layer reads (after global pooling), for uint8 NHWC crops."""
    net.eval()
    out = []
    with torch.no_grad():
        for k in range(0, len(x), 512):
            xb = torch.from_numpy(x[k : k + 512]).permute(0, 3, 1, 2).float() / 255.0
            out.append(F.adaptive_avg_pool2d(net.features(xb), 1).flatten(1))
    return torch.cat(out) if out else torch.zeros(0, net.head[1].in_features)


def back_row_data(args) -> tuple[np.ndarray, np.ndarray]:
    """Face-down tiles (real ones judged on the rf train photos, drawn ones) and what the back
    output must stay low on: drawn faces of every class, real faces and no-tile crops of the
    rf photos we train on, drawn distractors."""
    global _PHOTOS, _NONE_PHOTOS, _RF_COPIES
    load_bank()
    xs, ys = [], []
    for a, c in realdata.back_crops(realdata.labelled_backs(("train",)), random.Random(args.seed * 7_368_787), args.backs):
        xs.append(a)
        ys.append(c)
    parts = [
        (_drawn_backs, [(k, args.seed) for k in range(args.backs_drawn // 50)], lambda _c: realdata.BACK),
        (_synthetic_chunk, [(c, 0, args.per_class, args.seed) for c in range(len(faces.CLASSES))], None),
        (_drawn_none, [(k, args.seed) for k in range(args.none_drawn // 50)], lambda _c: realdata.NONE),
    ]
    for fn, jobs, label in parts:
        for job, chunk in zip(jobs, synth.parallel_map(fn, jobs, args.workers)):
            xs += chunk
            ys += [label(job) if label else job[0]] * len(chunk)
    _PHOTOS, _RF_COPIES = realdata.rf_photos("valid-train"), 1
    _NONE_PHOTOS = _PHOTOS + realdata.rf_photos("train")
    jobs = [(k, args.seed) for k in range(len(_NONE_PHOTOS))]
    for chunk in synth.parallel_map(_rf_none, jobs, args.workers):
        xs += chunk
        ys += [realdata.NONE] * len(chunk)
    for chunk in synth.parallel_map(_rf_faces, jobs[: len(_PHOTOS)], args.workers):
        for a, c in chunk:
            xs.append(a)
            ys.append(c)
    more = backdrop_none(args.none_backdrops, args.seed, workers=args.workers)
    xs += more
    ys += [realdata.NONE] * len(more)
    return np.stack(xs), np.array(ys, dtype=np.int64)


def train_back_row(args) -> None:
    """Adds "a tile face down" to a trained classifier without changing what it reads: the
    convolutions and the other outputs stay; the new output's weights are fitted (a logistic
    regression over the pooled features, against all the classes). A face or a look-alike
    whose new output stays near zero is read exactly as before. With `--refit-none` the
    "not a tile" output is fitted again too, from where the classifier has it (one that
    already has the back output starts that from its own as well)."""
    t0 = time.time()
    classes = faces.CLASSES + ["none", "back"]
    net = loaded_classifier(Path(args.init), len(classes))  # at --init's own width
    x, y = back_row_data(args)
    print(f"data ready in {time.time() - t0:.0f} s: {len(x)} crops, {int((y == realdata.BACK).sum())} face down, {int((y == realdata.NONE).sum())} no tile")
    feats = pooled(net, x)
    lin = net.head[1]
    fitted = 2 if args.refit_none else 1
    w_rest, b_rest = lin.weight[:-fitted].detach().clone(), lin.bias[:-fitted].detach().clone()
    w = lin.weight[-fitted:].detach().clone().requires_grad_(True)
    b = lin.bias[-fitted:].detach().clone().requires_grad_(True)
    opt = torch.optim.Adam([w, b], lr=args.lr)
    target = torch.from_numpy(y)
    weight = torch.ones(len(classes))
    weight[realdata.BACK] = float((y != realdata.BACK).sum()) / max(1, int((y == realdata.BACK).sum())) / 4
    for step in range(args.epochs):
        logits = torch.cat([feats @ w_rest.T + b_rest, feats @ w.T + b], 1)
        loss = F.cross_entropy(logits, target, weight=weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % max(1, args.epochs // 5) == 0 or step == args.epochs - 1:
            print(f"step {step + 1}/{args.epochs}: loss {loss.item():.4f}", flush=True)
    with torch.no_grad():
        lin.weight[-fitted:] = w
        lin.bias[-fitted:] = b
    bx, by = back_validation()
    print(f"validation{face_down_check(net, bx, by, torch.device('cpu')) or ': no judged backs'}")
    rx, ry = rf_validation()
    acc, _ = evaluate(net, rx, ry, torch.device("cpu"))
    print(f"rf held-out faces and no-tile crops: {acc:.3f}")
    card = Path(args.init).with_suffix(".json")
    meta = {k: v for k, v in json.loads(card.read_text()).items() if k not in ("input", "output", "classes")} if card.exists() else {}
    row = {
        "from": Path(args.init).name, "steps": args.epochs, "seed": args.seed, "margin_share": args.margin_share,
        "judged_backs": len(realdata.labelled_backs(("train",))), "backdrop_crops_each": args.none_backdrops,
    }
    meta["none_and_back_outputs" if args.refit_none else "back_output"] = row
    export(net, classes, Path(args.out), meta, t0)


if __name__ == "__main__":
    main()

"""Real labelled phone photos (../shared/data/rf-chinese-mahjong, CC BY 4.0) and drawn
distractors, for the finder and the classifier.

- `rf_photos(part)`: the photos with their boxes in this project's classes. The exporter's
  `valid/` photos are split by photo into a part we train on and a held-out part (`holdout`,
  a quarter of them, chosen by a hash of the file name) that only `tools/eval_photos.py` reads.
  The exporter's `train/` photos are augmented (mirrored, turned): the finder learns where
  tiles are from them, the classifier never reads their faces.
- `finder_sample`: one 320x320 training picture cut from a photo at a random zoom (tiles from
  about 10 to 110 pixels wide), so that rows far away and close-ups of a few tiles are both
  seen; drawn distractors (keyboards, dominoes, cards, dice, floor tiles, phones, glare) are
  pasted beside the tiles now and then.
- `negative_sample`: a picture with no tile at all: a drawn table or floor with distractors.
- `none_crops`: classifier crops of things that are not a tile: background, two half tiles,
  a tile's side, distractors.

Nothing from ../shared/data is written anywhere: photos are read in place.
"""

from __future__ import annotations

import colorsys
import csv
import hashlib
import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

import faces
import scenes
import synth

RF = faces.SHARED / "rf-chinese-mahjong"
# The exporter's class order (see its README) in this project's notation. HK sets print
# 梅1 蘭2 菊3 竹4: their flower 3 is our f4 (菊) and their flower 4 our f3 (竹).
RF_CLASSES = [
    "s1", "1m", "1p", "1s", "E", "s2", "2m", "2p", "2s", "S", "s3", "3m", "3p", "3s", "W",
    "s4", "4m", "4p", "4s", "N", "f1", "5m", "5p", "5s", "P", "f2", "6m", "6p", "6s", "F",
    "f4", "7m", "7p", "7s", "C", "f3", "8m", "8p", "8s", "9m", "9p", "9s",
]
NONE = len(faces.CLASSES)  # the classifier's "not a tile" class
BACK = NONE + 1  # the classifier's "a tile face down" class (with --backs)
BONUS_FIRST = faces.CLASSES.index("f1")  # flowers and seasons are the last eight classes
# Share of finder samples drawn as close-ups (the median tile 55 to 110 pixels wide); set by
# train_detector.py --closeup. The shipped finder had none (a second round with 0.35 was
# measured and not kept: models/README.md).
CLOSEUP_SHARE = 0.0
# Whether "not a tile" crops include parts of one tile's face (a pip, a character); set by
# train_classifier.py --part-crops. Off for the shipped classifier: with them it called big
# tiles of close-ups "not a tile" (models/README.md).
PART_CROPS = False
# Share of the finder's pictures with no tile cut from Debian's real pictures (`backdrops`, the
# half we train on); set by train_detector.py --negative-backdrops. 0 for the shipped finder.
BACKDROP_NEGATIVES = 0.0


def is_holdout(name: str) -> bool:
    """A quarter of the exporter's validation photos, by a hash of the name: never trained on."""
    return hashlib.sha1(name.encode()).digest()[0] % 4 == 0


CORRECTIONS = Path(__file__).resolve().parent.parent / "datasets" / "labels" / "rf-corrections.csv"
# Which augmented train photos are mirrored (tools/rf_labels.py orientation).
TRAIN_ORIENTATION = CORRECTIONS.parent / "rf-train-orientation.csv"
# Where the mirrored train photos are kept flipped back (made from ../shared/data on demand).
UNMIRRORED = Path(__file__).resolve().parent / ".cache" / "rf_unmirrored"


def _corrections() -> dict[tuple[str, int], tuple[str, str]]:
    """The project's corrections of the exporter's labels: (photo, box) -> (label, corrected)."""
    out = {}
    if CORRECTIONS.exists():
        lines = [l for l in CORRECTIONS.read_text().splitlines() if l and not l.startswith("#")]
        for row in csv.DictReader(lines):
            out[(row["photo"], int(row["box"]))] = (row["label"], row["corrected"])
    return out


def _corrected(name: str, rows: list[list[float]], fixes: dict) -> list[list[float]]:
    """A photo's label rows with the corrections applied (a class index, or the row dropped),
    each with its line in the label file appended. A correction whose label no longer matches
    the exporter's is left out, with a warning."""
    out = []
    for k, row in enumerate(rows):
        fix = fixes.get((name, k))
        if fix is not None:
            label, corrected = fix
            if RF_CLASSES[int(row[0])] != label:
                print(f"rf-corrections.csv: {name} box {k} is {RF_CLASSES[int(row[0])]}, not {label}: correction ignored")
            elif corrected == "drop":
                continue
            else:
                row = [float(RF_CLASSES.index(corrected))] + row[1:]
        out.append(row + [float(k)])
    return out


def rf_photos(part: str) -> list[dict]:
    """part: 'train' (exporter's train photos, augmented), 'train-faces' (those of them whose
    orientation is known, the mirrored ones flipped back: faces as they really are),
    'valid-train' (validation photos we train on), 'holdout'. Each: path, size, boxes (N x 5:
    class, x0, y0, x1, y1 in pixels), lines (each box's line in the exporter's label file, as
    rf-corrections.csv names it)."""
    if part == "train-faces":
        return _train_faces()
    folder = RF / ("train" if part == "train" else "valid")
    out = []
    if not folder.exists():
        return out
    fixes = _corrections()
    for img in sorted((folder / "images").glob("*.jpg")):
        if part != "train" and is_holdout(img.name) != (part == "holdout"):
            continue
        lab = folder / "labels" / (img.stem + ".txt")
        rows = []
        if lab.exists():
            for line in lab.read_text().split("\n"):
                v = line.split()
                if len(v) == 5:
                    rows.append([float(x) for x in v])
        rows = _corrected(img.name, rows, fixes) if part != "train" else [r + [float(k)] for k, r in enumerate(rows)]
        with Image.open(img) as im:
            W, H = im.size
        boxes = np.array(
            [[faces.CLASSES.index(RF_CLASSES[int(c)]), (x - w / 2) * W, (y - h / 2) * H, (x + w / 2) * W, (y + h / 2) * H] for c, x, y, w, h, _ in rows],
            np.float32,
        ).reshape(-1, 5)
        lines = [int(r[5]) for r in rows]
        out.append({"path": img, "size": (W, H), "boxes": boxes, "lines": lines})
    return out


ADDITIONS = CORRECTIONS.parent / "rf-additions.csv"


def rf_additions() -> dict[str, list[tuple[str, tuple[float, float, float, float]]]]:
    """Real tiles the labels of the held-out photos leave out (datasets/labels/rf-additions.csv),
    by photo: (face or "unsure", box)."""
    out: dict[str, list] = {}
    if ADDITIONS.exists():
        lines = [l for l in ADDITIONS.read_text().splitlines() if l and not l.startswith("#")]
        for r in csv.DictReader(lines):
            out.setdefault(r["photo"], []).append((r["tile"], tuple(float(r[k]) for k in ("x0", "y0", "x1", "y1"))))
    return out


def _train_faces() -> list[dict]:
    """The train photos rf-train-orientation.csv knows the orientation of, a mirrored one as a
    copy flipped back (written once to UNMIRRORED) with its boxes flipped with it."""
    if not TRAIN_ORIENTATION.exists():
        sys.exit(f"{TRAIN_ORIENTATION} not found: run tools/rf_labels.py orientation")
    lines = [l for l in TRAIN_ORIENTATION.read_text().splitlines() if l and not l.startswith("#")]
    verdict = {r["photo"]: r["orientation"] for r in csv.DictReader(lines)}
    out = []
    for ph in rf_photos("train"):
        v = verdict.get(ph["path"].name, "unknown")
        if v == "mirrored":
            q = flipped_copy(ph["path"], UNMIRRORED)
            boxes = ph["boxes"].copy()
            boxes[:, 1], boxes[:, 3] = ph["size"][0] - ph["boxes"][:, 3], ph["size"][0] - ph["boxes"][:, 1]
            ph = {**ph, "path": q, "boxes": boxes}
        if v != "unknown":
            out.append(ph)
    return out


def flipped_copy(path: Path, folder: Path) -> Path:
    """A copy of the picture at `path` flipped left to right, in `folder` (written once)."""
    folder.mkdir(parents=True, exist_ok=True)
    q = folder / path.name
    if not q.exists():
        Image.open(path).transpose(Image.Transpose.FLIP_LEFT_RIGHT).save(q, quality=95)
    return q


def outline_bounds(corners) -> tuple[float, float, float, float]:
    """The upright box around a tile's outline (suanfan's JSON corners)."""
    xs = [c[0] for c in corners]
    ys = [c[1] for c in corners]
    return (min(xs), min(ys), max(xs), max(ys))


# ---------------------------------------------------------------------------------------------
# Distractors: things on tables and floors that a tile finder must not take for tiles.

def _font(size: int):
    for f in ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"):
        if Path(f).exists():
            return ImageFont.truetype(f, max(6, size))
    return ImageFont.load_default()


def _keyboard(rng: random.Random, key: int) -> Image.Image:
    rows, cols = rng.randint(3, 6), rng.randint(6, 15)
    gap = max(1, key // rng.randint(6, 12))
    light = rng.random() < 0.55
    body = (rng.randint(200, 240),) * 3 if light else (rng.randint(20, 60),) * 3
    keyc = (rng.randint(225, 255),) * 3 if light else (rng.randint(30, 80),) * 3
    ink = (rng.randint(0, 80),) * 3 if light else (rng.randint(190, 255),) * 3
    kh = int(key * rng.uniform(0.9, 1.25))
    img = Image.new("RGBA", (cols * (key + gap) + gap, rows * (kh + gap) + gap), body + (255,))
    d = ImageDraw.Draw(img)
    f = _font(int(key * 0.45))
    for r in range(rows):
        off = rng.randint(0, key // 2)
        for c in range(cols):
            x, y = gap + c * (key + gap) + off, gap + r * (kh + gap)
            d.rounded_rectangle([x, y, x + key - 1, y + kh - 1], radius=max(1, key // 6), fill=tuple(int(v * 0.8) for v in keyc) + (255,))
            d.rounded_rectangle([x, y, x + key - 1, y + kh - max(2, kh // 6)], radius=max(1, key // 6), fill=keyc + (255,))
            d.text((x + key * 0.2, y + kh * 0.12), rng.choice("QWERTYUIOPASDFGHJKLZXCVBNM1234567890"), fill=ink, font=f)
    return img


def _dominoes(rng: random.Random, key: int) -> Image.Image:
    n = rng.randint(1, 6)
    black = rng.random() < 0.4
    w, h = key, 2 * key
    img = Image.new("RGBA", (n * (w + 3), h + 2), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    body, pip = ((20, 20, 20), (240, 240, 240)) if black else ((245, 242, 230), (20, 20, 20))
    for k in range(n):
        x = k * (w + 3)
        d.rounded_rectangle([x, 0, x + w - 1, h - 1], radius=max(1, w // 6), fill=body + (255,))
        d.line([x + 2, h // 2, x + w - 3, h // 2], fill=pip, width=max(1, w // 16))
        for half in (0, 1):
            for _ in range(rng.randint(0, 6)):
                px, py = x + rng.uniform(0.2, 0.8) * w, half * h / 2 + rng.uniform(0.2, 0.8) * h / 2
                r = max(1, w // 10)
                d.ellipse([px - r, py - r, px + r, py + r], fill=rng.choice([pip, (200, 30, 30)]) + (255,))
    return img


def _cards(rng: random.Random, key: int) -> Image.Image:
    n = rng.randint(1, 5)
    w, h = int(key * 1.2), int(key * 1.7)
    img = Image.new("RGBA", (w + n * w // 3 + 2, h + 2), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    f = _font(int(w * 0.3))
    for k in range(n):
        x = k * w // 3
        d.rounded_rectangle([x, 0, x + w - 1, h - 1], radius=max(1, w // 10), fill=(250, 250, 250, 255), outline=(120, 120, 120, 255))
        ink = rng.choice([(200, 20, 20), (10, 10, 10)])
        d.text((x + 3, 2), rng.choice(list("A23456789JQK")), fill=ink, font=f)
        cx, cy, r = x + w / 2, h / 2, w / 5
        d.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], fill=ink)
    return img


def _dice(rng: random.Random, key: int) -> Image.Image:
    s = max(6, int(key * 0.7))
    img = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([0, 0, s - 1, s - 1], radius=s // 5, fill=rng.choice([(245, 245, 245), (200, 30, 30), (240, 220, 180)]) + (255,))
    for _ in range(rng.randint(1, 6)):
        px, py, r = rng.uniform(0.2, 0.8) * s, rng.uniform(0.2, 0.8) * s, max(1, s // 10)
        d.ellipse([px - r, py - r, px + r, py + r], fill=rng.choice([(20, 20, 20), (200, 20, 20)]) + (255,))
    return img


def _phone(rng: random.Random, key: int) -> Image.Image:
    w, h = int(key * rng.uniform(1.8, 2.5)), int(key * rng.uniform(3.6, 5))
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=w // 6, fill=(15, 15, 20, 255))
    if rng.random() < 0.7:  # screen with an icon grid
        d.rectangle([w * 0.06, h * 0.05, w * 0.94, h * 0.95], fill=tuple(rng.randint(40, 200) for _ in range(3)))
        for r in range(5):
            for c in range(4):
                x, y = w * (0.12 + 0.2 * c), h * (0.1 + 0.15 * r)
                d.rounded_rectangle([x, y, x + w * 0.14, y + w * 0.14], radius=2, fill=tuple(rng.randint(0, 255) for _ in range(3)))
    return img


def _floor(rng: random.Random, size: int) -> Image.Image:
    """Square floor or wall tiles with grout, light and mottled, filling the picture."""
    t = rng.randint(14, 90)
    base = np.array(rng.choice([(225, 220, 210), (200, 190, 170), (240, 240, 240), (180, 170, 160), (150, 110, 80)]), np.float32)
    a = np.random.default_rng(rng.randint(0, 2**31)).normal(0, 6, (size, size, 3)).astype(np.float32) + base
    grout = np.array(rng.choice([(150, 150, 150), (90, 90, 90), (240, 240, 240)]), np.float32)
    g = max(1, t // 15)
    ox, oy = rng.randint(0, t), rng.randint(0, t)
    for k in range(-1, size // t + 2):
        p = ox + k * t
        a[:, max(0, p) : max(0, p + g)] = grout
        p = oy + k * t
        a[max(0, p) : max(0, p + g), :] = grout
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).rotate(rng.uniform(-30, 30), resample=Image.BILINEAR, expand=False, fillcolor=tuple(int(v) for v in base))


def _glare(img: Image.Image, rng: random.Random) -> None:
    """Bright reflections, as on a glass table."""
    W, H = img.size
    layer = Image.new("L", img.size, 0)
    d = ImageDraw.Draw(layer)
    for _ in range(rng.randint(1, 4)):
        x, y, r = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(4, W / 5)
        d.ellipse([x - r, y - r * rng.uniform(0.3, 1), x + r, y + r * rng.uniform(0.3, 1)], fill=rng.randint(80, 220))
    layer = layer.filter(ImageFilter.GaussianBlur(rng.uniform(2, 8)))
    img.paste(Image.new("RGB", img.size, (255, 255, 255)), (0, 0), layer)


DRAWERS = [_keyboard, _keyboard, _dominoes, _cards, _dice, _phone]


def distractor(rng: random.Random, key: int) -> Image.Image:
    im = rng.choice(DRAWERS)(rng, key)
    if rng.random() < 0.5:
        im = im.rotate(rng.uniform(-40, 40), resample=Image.BILINEAR, expand=True)
    return im


def paste_distractors(img: Image.Image, boxes: np.ndarray, rng: random.Random, key: int, n: int) -> None:
    """Pastes up to n distractors where they hide no labelled tile."""
    W, H = img.size
    for _ in range(n):
        im = distractor(rng, key)
        if im.width >= W or im.height >= H:
            continue
        for _try in range(8):
            x, y = rng.randint(0, W - im.width), rng.randint(0, H - im.height)
            b = np.array([x, y, x + im.width, y + im.height])
            if len(boxes) == 0 or not np.any((boxes[:, 1] < b[2]) & (boxes[:, 3] > b[0]) & (boxes[:, 2] < b[3]) & (boxes[:, 4] > b[1])):
                img.paste(im, (x, y), im)
                break


# ---------------------------------------------------------------------------------------------
# Finder samples.

# The finder's real-photo samples: the share blurred and the largest blur (Gaussian sigma in
# pixels of the 320-pixel sample; train_detector.py --blur-share, --blur-max), and the share
# given sensor noise as a dim photo brightened shows it (--noise-share; 0: none, as before).
BLUR_SHARE = 0.3
BLUR_MAX = 1.3
NOISE_SHARE = 0.0
# Share of the samples of an untouched photo (`turnable`: the exporter's validation photos we
# train on; its train photos were already turned with their labels left upright) that are
# turned by up to TURN_MAX degrees, so that the finder's turned outline learns real tiles'
# angles (train_detector.py --real-turn; 0: none, as the shipped finder). On such photos a tile
# whose box has the shape of most of the photo's boxes lies square with the picture: its
# outline turned is known exactly, and trains the turned box too (`turn_known`); the others
# (slanted in a heap, lying sideways) are neither tile nor background once turned.
REAL_TURN = 0.0
TURN_MAX = 35.0
# Share of the samples of real photos leaned by up to LEAN_MAX degrees (`leaned`: as taken
# from lower, the far side narrower; train_detector.py --real-lean; 0: none, as the shipped
# finder).
REAL_LEAN = 0.0
LEAN_MAX = 30.0
# How far (log of width over height) a box's shape may be from the photo's median to count
# as lying square with the picture.
SQUARE_SHAPE = 0.12


# How far (degrees) the line from a tile to its nearest neighbour may be from the picture's axes
# for the tile to count as lying square: a row running slantwise holds tiles all shaped alike
# whose upright boxes are not their outlines.
SQUARE_ROW = 5.0


def square_tiles(boxes: np.ndarray) -> np.ndarray:
    """Which boxes (N x 5, class and bounds) lie square with the picture: shaped as the
    photo's median box and in line with their nearest neighbour along one of the picture's
    axes, when at least 80% of them are (a photo of straight rows, not a heap)."""
    if len(boxes) < 2:
        return np.zeros(len(boxes), bool)
    w = np.maximum(boxes[:, 3] - boxes[:, 1], 1e-3)
    h = np.maximum(boxes[:, 4] - boxes[:, 2], 1e-3)
    shape = np.log(w / h)
    centres = np.stack([boxes[:, 1] + boxes[:, 3], boxes[:, 2] + boxes[:, 4]], 1) / 2
    gaps = centres[:, None] - centres[None]
    dist = np.hypot(gaps[..., 0], gaps[..., 1]) + np.eye(len(boxes)) * 1e9
    near = gaps[np.arange(len(boxes)), dist.argmin(1)]
    angle = np.degrees(np.arctan2(near[:, 1], near[:, 0]))
    off_axis = np.abs((angle + 45) % 90 - 45)
    square = (np.abs(shape - np.median(shape)) < SQUARE_SHAPE) & (off_axis < SQUARE_ROW)
    return square if square.mean() >= 0.8 else np.zeros(len(boxes), bool)


def _turned(img: Image.Image, corners: np.ndarray, degrees: float) -> tuple[Image.Image, np.ndarray]:
    """The picture turned about its centre (grown to hold it all, transparent outside) and
    the corners (N x 4 x 2) turned with it."""
    w, h = img.size
    out = img.convert("RGBA").rotate(degrees, resample=Image.BILINEAR, expand=True)
    a = math.radians(degrees)
    # PIL turns counter-clockwise on screen: in pixel coordinates (y down) a point turns by -a.
    c, s = math.cos(a), math.sin(a)
    x = corners[..., 0] - w / 2
    y = corners[..., 1] - h / 2
    turned = np.stack([x * c + y * s + out.width / 2, -x * s + y * c + out.height / 2], -1)
    return out, turned.astype(np.float32)


def lean_homography(w: float, h: float, degrees: float) -> np.ndarray:
    """The 3 x 3 map from a `w` x `h` photo to the picture the same phone would have taken
    pointed `degrees` nearer the horizon (focal length 0.75 of the long side, a phone's
    usual): the far side (the top) narrows and shrinks, the near side grows."""
    f = 0.75 * max(w, h)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    t = -math.radians(degrees)
    turn = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    return k @ turn @ np.linalg.inv(k)


def through(m: np.ndarray, points) -> np.ndarray:
    """`points` (... x 2) mapped by the homography `m`."""
    p = np.asarray(points, np.float64)
    q = np.concatenate([p, np.ones(p.shape[:-1] + (1,))], -1) @ m.T
    return q[..., :2] / q[..., 2:]


def leaned(img: Image.Image, degrees: float, fill=None) -> tuple[Image.Image, np.ndarray]:
    """`img` as by `lean_homography`, grown to hold all of it (outside it `fill`, or
    transparent), and the map from `img` to it."""
    w, h = img.size
    m = lean_homography(w, h, degrees)
    edge = through(m, [(0, 0), (w, 0), (w, h), (0, h)])
    x0, y0 = edge.min(axis=0)
    m = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ m
    size = tuple(int(math.ceil(v)) for v in edge.max(axis=0) - (x0, y0))
    back = np.linalg.inv(m)
    coeffs = tuple((back / back[2, 2]).ravel()[:8])
    if fill is None:
        return img.convert("RGBA").transform(size, Image.PERSPECTIVE, coeffs, Image.BILINEAR), m
    return img.transform(size, Image.PERSPECTIVE, coeffs, Image.BICUBIC, fillcolor=fill), m


def _photo_effects(img: Image.Image, rng: random.Random) -> Image.Image:
    a = np.asarray(img, np.float32)
    a = a * rng.uniform(0.65, 1.3) + rng.uniform(-20, 20)
    a = a * np.array([rng.uniform(0.88, 1.12) for _ in range(3)], np.float32)
    if rng.random() < NOISE_SHARE:
        a = a + np.random.default_rng(rng.randrange(1 << 30)).normal(0.0, rng.uniform(3, 14), a.shape).astype(np.float32)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if rng.random() < BLUR_SHARE:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, max(0.3, BLUR_MAX))))
    return img


def finder_sample(photo: dict, rng: random.Random, size: int = 320):
    """(image, tiles) for the finder: tiles as scenes.make_scene gives them (corners, face_down,
    orientation); orientation None where unknown. Zoom picked so that the photo's median tile
    is 10 to 110 pixels wide."""
    img = Image.open(photo["path"]).convert("RGB")
    W, H = img.size
    # Undo the exporter's square stretch at random: photos are 4:3, 3:4, 16:9 or square.
    ax = rng.choice([1.0, 4 / 3, 3 / 4, 16 / 9, 9 / 16, 1.0]) * rng.uniform(0.9, 1.1)
    boxes = photo["boxes"].copy()
    if len(boxes) == 0:
        return negative_sample(rng, size)
    fx, fy = (ax, 1.0) if ax > 1 else (1.0, 1 / ax)
    med = float(np.median(np.maximum((boxes[:, 3] - boxes[:, 1]) * fx, (boxes[:, 4] - boxes[:, 2]) * fy)))
    # A third of the samples are close-ups (a few tiles filling the picture).
    lo = 55 if rng.random() < CLOSEUP_SHARE else 10
    target = math.exp(rng.uniform(math.log(lo), math.log(110)))
    # Scale from the (aspect-corrected) photo to the sample.
    s = target / max(med, 1.0)
    sx, sy = s * fx, s * fy
    nw, nh = max(1, round(W * sx)), max(1, round(H * sy))
    if nw * nh > 4000 * 4000:
        s2 = math.sqrt(4000 * 4000 / (nw * nh))
        sx, sy = sx * s2, sy * s2
        nw, nh = max(1, round(W * sx)), max(1, round(H * sy))
    img = img.resize((nw, nh), Image.BILINEAR)
    b = boxes.copy()
    b[:, [1, 3]] *= nw / W
    b[:, [2, 4]] *= nh / H
    square = square_tiles(boxes) if photo.get("turnable") and REAL_TURN > 0 else np.zeros(len(b), bool)
    corners = np.stack([b[:, [1, 2]], b[:, [3, 2]], b[:, [3, 4]], b[:, [1, 4]]], 1)
    turned = square.any() and rng.random() < REAL_TURN
    if turned:
        img, corners = _turned(img, corners, rng.uniform(-TURN_MAX, TURN_MAX))
    elif REAL_LEAN and rng.random() < REAL_LEAN:
        # Bounds of the moved boxes stand for the leaned tiles (their turned outline unknown).
        img, m = leaned(img, rng.uniform(0, LEAN_MAX))
        corners = through(m, corners).astype(np.float32)
    if img.size != (nw, nh):
        nw, nh = img.size
        b[:, 1:3] = corners.min(1)
        b[:, 3:5] = corners.max(1)
    # Where the sample's window lies: around a random tile, or anywhere.
    if rng.random() < 0.75:
        t = b[rng.randrange(len(b))]
        cx, cy = (t[1] + t[3]) / 2 + rng.uniform(-size / 3, size / 3), (t[2] + t[4]) / 2 + rng.uniform(-size / 3, size / 3)
    else:
        cx, cy = rng.uniform(0, nw), rng.uniform(0, nh)
    x0, y0 = int(cx - size / 2), int(cy - size / 2)
    if nw <= size:
        x0 = -rng.randint(0, size - nw)
    if nh <= size:
        y0 = -rng.randint(0, size - nh)
    canvas = scenes.background(size, rng)
    piece = img.crop((max(0, x0), max(0, y0), min(nw, x0 + size), min(nh, y0 + size)))
    canvas.paste(piece, (max(0, -x0), max(0, -y0)), piece if piece.mode == "RGBA" else None)
    b[:, [1, 3]] -= x0
    b[:, [2, 4]] -= y0
    corners -= np.array([x0, y0], np.float32)
    area = (b[:, 3] - b[:, 1]) * (b[:, 4] - b[:, 2])
    cb = b.copy()
    cb[:, [1, 3]] = np.clip(cb[:, [1, 3]], 0, size)
    cb[:, [2, 4]] = np.clip(cb[:, [2, 4]], 0, size)
    vis = (cb[:, 3] - cb[:, 1]) * (cb[:, 4] - cb[:, 2]) / np.maximum(area, 1e-6)
    # Partly cut tiles are neither tiles nor background: their region is ignored; so are the
    # tiles of a turned photo whose outline turned is not known.
    seen = vis >= 0.55
    if turned:
        seen_unknown = seen & ~square
        seen = seen & square
    else:
        seen_unknown = np.zeros(len(b), bool)
    ignore = cb[((vis > 0.05) & (vis < 0.55)) | seen_unknown]
    if rng.random() < 0.3:
        paste_distractors(canvas, cb[vis >= 0.55], rng, int(max(8, target * rng.uniform(0.6, 1.4))), rng.randint(1, 3))
    if rng.random() < 0.1:
        _glare(canvas, rng)
    canvas = _photo_effects(canvas, rng)
    # A tile's turned outline is trained only where all of it is in the sample.
    whole = vis >= 0.999
    outlines = corners if turned else np.stack([cb[:, [1, 2]], cb[:, [3, 2]], cb[:, [3, 4]], cb[:, [1, 4]]], 1)
    tiles = [
        {"corners": [tuple(p) for p in c.tolist()], "face_down": False, "orientation": None, "turn_known": bool(k)}
        for c, k in zip(outlines[seen], (square & whole)[seen])
    ]
    if not turned:
        tiles += _judged_backs(photo.get("backs", ()), (nw / W, nh / H), (x0, y0), size)
    return canvas, tiles, [tuple(r[1:]) for r in ignore.tolist()]


def _judged_backs(backs, scale, origin, size: int) -> list[dict]:
    """The face-down tiles a person judged on this photo (rf-backs.csv), moved into the
    sample: a real back is a face-down tile, a false one a place with no face-down tile
    (`judged` marks both: the face-down heat is trained there though the photo's labels
    have no backs). Those cut by the sample's edge are left out."""
    out = []
    for corners, cls in backs:
        c = [((x * scale[0]) - origin[0], (y * scale[1]) - origin[1]) for x, y in corners]
        xs, ys = [p[0] for p in c], [p[1] for p in c]
        if min(xs) < 0 or min(ys) < 0 or max(xs) > size or max(ys) > size:
            continue
        out.append({"corners": c, "face_down": cls == BACK, "orientation": None, "judged": True})
    return out


def negative_sample(rng: random.Random, size: int = 320):
    """A picture with no tile: a table, cloth or floor with distractors; BACKDROP_NEGATIVES of
    them a piece of one of Debian's real pictures of the half we train on (`backdrops`)."""
    if rng.random() < BACKDROP_NEGATIVES:
        canvas = backdrop_piece(rng, size)
    elif rng.random() < 0.3:
        canvas = _floor(rng, size)
    else:
        canvas = scenes.background(size, rng)
    paste_distractors(canvas, np.zeros((0, 5), np.float32), rng, rng.randint(10, 60), rng.randint(1, 5))
    if rng.random() < 0.3:
        _glare(canvas, rng)
    return _photo_effects(canvas, rng), [], []


# ---------------------------------------------------------------------------------------------
# Classifier crops.

def face_crops(photo: dict, rng: random.Random, jitter: float = 0.06) -> list[tuple[np.ndarray, int]]:
    """Each labelled tile of a photo as a classifier crop (box cut with a little jitter)."""
    img = Image.open(photo["path"]).convert("RGB")
    out = []
    for c, x0, y0, x1, y1 in photo["boxes"].tolist():
        w, h = x1 - x0, y1 - y0
        j = lambda v: v * rng.uniform(-jitter, jitter)
        box = (x0 + j(w), y0 + j(h), x1 + j(w), y1 + j(h))
        if synth.MARGIN_SHARE and rng.random() < synth.MARGIN_SHARE:
            box = synth.grown_box(box, synth.MARGIN)
        crop = img.crop(box)
        out.append((np.asarray(crop.resize((synth.CROP_W, synth.CROP_H), Image.BILINEAR), np.uint8), int(c)))
    return out


def box_iou(a, b) -> float:
    """Intersection over union of two boxes (x0, y0, x1, y1)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / u if u > 0 else 0.0


def scan(bin_, paths: list, extra: list[str] = ()) -> dict[str, dict]:
    """`suanfan scan --format json` (the binary `bin_`) of each picture, by its path; exits
    with suanfan's message when it answers for none."""
    cmd = [str(bin_), "scan", "--format", "json", *extra, *map(str, paths)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    out = {}
    for line in res.stdout.splitlines():
        try:
            v = json.loads(line)
        except json.JSONDecodeError:
            continue
        out[v.get("image", "")] = v
    if not out:
        sys.exit(f"no answer from {' '.join(cmd[:4])}…: {res.stderr[-2000:]}")
    return out


def cut_along(img: Image.Image, corners, rng: random.Random | None = None, jitter: float = 0.0) -> np.ndarray:
    """A classifier crop cut as suanfan cuts it (src/vision/geometry.rs `sample_face`): along
    the outline's own axes, from its corners in the face's frame (top-left, top-right,
    bottom-right, bottom-left), averaged over several samples a pixel when it shrinks. With
    `rng`, each corner moves by up to `jitter` of the outline's sides (a finder's error)."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    if rng is not None and jitter > 0:
        w = np.linalg.norm(c[1] - c[0])
        h = np.linalg.norm(c[3] - c[0])
        c = c + np.array([[rng.uniform(-jitter, jitter) * w, rng.uniform(-jitter, jitter) * h] for _ in range(4)])
    quad = (*c[0], *c[3], *c[2], *c[1])  # PIL's order: top-left, bottom-left, bottom-right, top-right
    big = img.transform((synth.CROP_W * 4, synth.CROP_H * 4), Image.QUAD, quad, Image.BILINEAR)
    return np.asarray(big.resize((synth.CROP_W, synth.CROP_H), Image.BOX), np.uint8)


def grown_corners(corners, factor: float) -> list[list[float]]:
    """A tile's outline (four corners) grown by `factor` about its centre."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    m = c.mean(axis=0)
    return (m + (c - m) * factor).tolist()


def pipeline_face_crops(
    photo: dict, tiles: list[dict], rng: random.Random, copies: int, jitter: float = 0.03, bonus_copies: int | None = None
) -> list[tuple[np.ndarray, int]]:
    """The faces of a photo as suanfan sees them: each face-up tile that `suanfan scan` found
    (`tiles`, its JSON) where a label is (IoU >= 0.5 of the outline's bounds), cut along the
    found outline and named by the label. The labels' upright boxes are loose around turned
    tiles; these crops are the tight, turned ones the classifier is given."""
    img = Image.open(photo["path"]).convert("RGB")
    labels = photo["boxes"].tolist()
    used: set[int] = set()
    out = []
    for t in tiles:
        if t.get("face_down"):
            continue
        found = outline_bounds(t["corners"])
        best, bi = 0.5, -1
        for k, (_, x0, y0, x1, y1) in enumerate(labels):
            v = box_iou(found, (x0, y0, x1, y1))
            if k not in used and v >= best:
                best, bi = v, k
        if bi < 0:
            continue
        used.add(bi)
        face = int(labels[bi][0])
        n = bonus_copies if bonus_copies and face >= BONUS_FIRST else copies
        out.append((cut_along(img, t["corners"]), face))
        for _ in range(n - 1):
            corners = t["corners"]
            if synth.MARGIN_SHARE and rng.random() < synth.MARGIN_SHARE:
                corners = grown_corners(corners, synth.MARGIN)
            out.append((cut_along(img, corners, rng, jitter), face))
    return out


def none_crops(photo: dict, rng: random.Random, n: int) -> list[np.ndarray]:
    """Crops of a photo that are no whole tile: background, two half tiles, a tile's side or
    bottom half, and distractors; as large as the photo's tiles, in a tile's shape."""
    img = Image.open(photo["path"]).convert("RGB")
    W, H = img.size
    b = photo["boxes"]
    tw = float(np.median(b[:, 3] - b[:, 1])) if len(b) else W / 10
    th = float(np.median(b[:, 4] - b[:, 2])) if len(b) else W / 8
    out = []
    for _ in range(n * 4):
        if len(out) >= n:
            break
        kind = rng.random()
        w, h = tw * rng.uniform(0.8, 1.2), th * rng.uniform(0.8, 1.2)
        if kind < (0.35 if PART_CROPS else 0.45) or len(b) == 0:  # background
            x, y = rng.uniform(0, max(1, W - w)), rng.uniform(0, max(1, H - h))
        elif kind < 0.55 and PART_CROPS:  # part of one tile's face: a pip, a character, a corner number
            t = b[rng.randrange(len(b))]
            w, h = (t[3] - t[1]) * rng.uniform(0.25, 0.55), (t[4] - t[2]) * rng.uniform(0.25, 0.55)
            x, y = rng.uniform(t[1], t[3] - w), rng.uniform(t[2], t[4] - h)
            if min(w, h) < 6:
                continue
            out.append(np.asarray(img.crop((x, y, x + w, y + h)).resize((synth.CROP_W, synth.CROP_H), Image.BILINEAR), np.uint8))
            continue
        else:  # off a tile by half or more: two half tiles, a side, a bottom
            t = b[rng.randrange(len(b))]
            dx, dy = rng.choice([(0.5, 0), (-0.5, 0), (0, 0.6), (0, -0.6), (0.55, 0.55)])
            x, y = t[1] + dx * (t[3] - t[1]) * rng.uniform(0.9, 1.3), t[2] + dy * (t[4] - t[2]) * rng.uniform(0.9, 1.3)
            w, h = t[3] - t[1], t[4] - t[2]
        box = np.array([x, y, x + w, y + h])
        if len(b):
            ix = np.clip(np.minimum(b[:, 3], box[2]) - np.maximum(b[:, 1], box[0]), 0, None)
            iy = np.clip(np.minimum(b[:, 4], box[3]) - np.maximum(b[:, 2], box[1]), 0, None)
            if np.max(ix * iy / ((b[:, 3] - b[:, 1]) * (b[:, 4] - b[:, 2]) + 1e-6)) > 0.55:
                continue  # mostly one whole tile: not a "none"
        out.append(np.asarray(img.crop(tuple(box)).resize((synth.CROP_W, synth.CROP_H), Image.BILINEAR), np.uint8))
    return out


def distractor_crops(rng: random.Random, n: int) -> list[np.ndarray]:
    """Crops of drawn distractors and floors, cut as the finder would cut a 'tile' there."""
    out = []
    while len(out) < n:
        canvas = _floor(rng, 160) if rng.random() < 0.3 else scenes.background(160, rng)
        im = distractor(rng, rng.randint(20, 50))
        if im.width < 150 and im.height < 150:
            canvas.paste(im, (rng.randint(0, 160 - im.width), rng.randint(0, 160 - im.height)), im)
        for _ in range(4):
            w = rng.randint(16, 60)
            h = int(w * rng.uniform(1.1, 1.5))
            x, y = rng.randint(0, 160 - w), rng.randint(0, 160 - h)
            out.append(np.asarray(_photo_effects(canvas.crop((x, y, x + w, y + h)), rng).resize((synth.CROP_W, synth.CROP_H), Image.BILINEAR), np.uint8))
    return out[:n]


BACKS = Path(__file__).resolve().parent.parent / "datasets" / "labels" / "rf-backs.csv"


def labelled_backs(parts: tuple[str, ...]) -> list[tuple[Path, list[list[float]], int]]:
    """The face-down tiles the finder reported on the rf photos of `parts`, as a person judged
    them (datasets/labels/rf-backs.csv): (photo, outline corners, BACK or NONE)."""
    out = []
    if not BACKS.exists():
        return out
    lines = [line for line in BACKS.read_text().splitlines() if not line.startswith("#")]
    for row in csv.DictReader(lines):
        if row["part"] not in parts:
            continue
        folder = RF / ("train" if row["part"] == "train" else "valid") / "images"
        v = [float(x) for x in row["corners"].split()]
        corners = [v[k : k + 2] for k in range(0, 8, 2)]
        out.append((folder / row["photo"], corners, BACK if row["verdict"] == "back" else NONE))
    return out


def back_crops(items: list, rng: random.Random, copies: int, jitter: float = 0.06) -> list[tuple[np.ndarray, int]]:
    """Each labelled face-down detection cut as suanfan cuts it, once as found and
    `copies - 1` times with its corners moved (a finder's error; a share of them with
    suanfan's margin, synth.MARGIN_SHARE), each way up."""
    out = []
    for path, corners, cls in items:
        img = Image.open(path).convert("RGB")
        for k in range(copies):
            cut = corners
            if k and synth.MARGIN_SHARE and rng.random() < synth.MARGIN_SHARE:
                cut = grown_corners(corners, synth.MARGIN)
            a = cut_along(img, cut, rng if k else None, jitter)
            out.append((a if rng.random() < 0.5 else np.ascontiguousarray(a[::-1, ::-1]), cls))
    return out


def _back_color(rng: random.Random) -> tuple[int, int, int]:
    """A back of any hue, or one of the backs the finder's drawn scenes use (white and dark
    grey among them)."""
    kind = rng.random()
    if kind < 0.15:  # white, ivory, light grey
        v = rng.randint(205, 250)
        return v, v - rng.randint(0, 8), v - rng.randint(0, 20)
    if kind < 0.35:
        return synth._jitter_color(rng.choice(scenes.BACK_COLORS), rng, 12)
    r, g, b = colorsys.hsv_to_rgb(rng.random(), rng.uniform(0.35, 1.0), rng.uniform(0.35, 0.95))
    return int(r * 255), int(g * 255), int(b * 255)


def drawn_back_crops(rng: random.Random, n: int) -> list[np.ndarray]:
    """Drawn tiles lying face down in a row (a wall, a concealed kong), cut along the middle
    tile's top with a finder's error: backs of any colour, on any table."""
    out = []
    while len(out) < n:
        canvas = scenes.background(200, rng).convert("RGBA")
        tw = rng.randint(24, 52)
        th = int(tw * rng.uniform(1.25, 1.45))
        color = _back_color(rng)
        x0, y0 = rng.randint(0, 200 - 3 * tw - 4), rng.randint(0, 200 - th - 20)
        for k in range(3):
            sprite, depth = scenes.tile_sprite(None, tw, th, rng, color, True)
            canvas.alpha_composite(sprite, (x0 + k * (tw + rng.randint(0, 2)), y0))
        x, y = x0 + tw, y0
        corners = [[x, y], [x + tw, y], [x + tw, y + th], [x, y + th]]
        img = _photo_effects(canvas.convert("RGB"), rng)
        out.append(cut_along(img, corners, rng, 0.06))
    return out


# ---------------------------------------------------------------------------------------------
# Real pictures with no tile: Debian's photo wallpapers and texture patterns.

# Where Debian's packages put them (apt-get install ukui-wallpapers mate-backgrounds
# lomiri-wallpapers-20.04 plasma-workspace-wallpapers gimp-data). Each package's licence is
# its own (GPL, CC BY-SA and others): they are read in place when crops and pictures are made,
# never copied into the repository.
BACKDROP_GLOBS = (
    "/usr/share/backgrounds/**/*.jpg",
    "/usr/share/backgrounds/**/*.png",
    "/usr/share/wallpapers/*/contents/images/*.*",
    "/usr/share/gimp/2.0/patterns/*/*.pat",
)
# A pattern is laid side by side to fill a picture this size, each copy scaled so it is about
# BACKDROP_PATTERN_SIDE pixels wide (wood, stone or cloth as a table seen in a photo).
BACKDROP_SIZE = (1600, 1200)
BACKDROP_PATTERN_SIDE = 400


def _backdrop_name(path: Path) -> str:
    """One name a picture: a KDE wallpaper by its folder, others by their stem before any size."""
    if path.parts[:4] == ("/", "usr", "share", "wallpapers"):
        return "kde-" + path.parts[4]
    stem = path.stem.split("_")[0]
    return ("pattern-" if path.suffix == ".pat" else "wallpaper-") + stem


def backdrops(part: str) -> list[Path]:
    """Debian's photo wallpapers and texture patterns (the drawn "Legacy" patterns left out),
    one file a picture (the largest), split by a hash of the name: `holdout` (half of them,
    only `eval_photos.py --sets backdrops` reads it) or `train`."""
    import glob

    best: dict[str, Path] = {}
    for g in BACKDROP_GLOBS:
        for f in sorted(glob.glob(g, recursive=True)):
            p = Path(f)
            if "Legacy" in p.parts or "screenshot" in p.stem:
                continue
            name = _backdrop_name(p)
            if name not in best or p.stat().st_size > best[name].stat().st_size:
                best[name] = p
    held = {n for n in best if hashlib.sha1(n.encode()).digest()[0] % 2 == 0}
    return [best[n] for n in sorted(best) if (n in held) == (part == "holdout")]


def _gimp_pattern(path: Path) -> Image.Image:
    """A GIMP pattern file (.pat): a big-endian header (its size, version, width, height,
    bytes a pixel, "GPAT", a name), then the pixels."""
    raw = path.read_bytes()
    header, _version, w, h, depth = (int.from_bytes(raw[k : k + 4], "big") for k in range(0, 20, 4))
    if raw[20:24] != b"GPAT" or depth not in (1, 2, 3, 4):
        raise ValueError(f"{path}: not a GIMP pattern")
    a = np.frombuffer(raw[header : header + w * h * depth], np.uint8).reshape(h, w, depth)
    a = np.repeat(a[..., :1], 3, axis=2) if depth < 3 else a[..., :3]
    return Image.fromarray(np.ascontiguousarray(a))


def load_backdrop(path: Path) -> Image.Image:
    """A backdrop as a picture: a photo as it is (at most 4032 pixels long), a pattern laid
    side by side over BACKDROP_SIZE."""
    if path.suffix != ".pat":
        img = Image.open(path).convert("RGB")
        img.thumbnail((4032, 4032))
        return img
    tile = _gimp_pattern(path)
    k = max(1, round(BACKDROP_PATTERN_SIDE / tile.width))
    tile = tile.resize((tile.width * k, tile.height * k), Image.BICUBIC)
    img = Image.new("RGB", BACKDROP_SIZE)
    for y in range(0, BACKDROP_SIZE[1], tile.height):
        for x in range(0, BACKDROP_SIZE[0], tile.width):
            img.paste(tile, (x, y))
    return img


def random_piece(img: Image.Image, rng: random.Random) -> Image.Image:
    """A piece of a picture, a quarter to a half of its width and 0.6 to 1 times that tall (a
    close look at a table or floor), where it falls."""
    W, H = img.size
    w = rng.uniform(0.25, 0.5) * W
    h = min(H, w * rng.uniform(0.6, 1.0))
    x, y = rng.uniform(0, W - w), rng.uniform(0, H - h)
    return img.crop((int(x), int(y), int(x + w), int(y + h)))


def backdrop_piece(rng: random.Random, size: int) -> Image.Image:
    """A square piece of one of the backdrops we train on, from a tenth of its short side to
    all of it, scaled to `size`."""
    paths = _train_backdrops()
    img = load_backdrop(paths[rng.randrange(len(paths))])
    side = min(img.size) * rng.uniform(0.1, 1.0)
    x, y = rng.uniform(0, img.width - side), rng.uniform(0, img.height - side)
    return img.crop((int(x), int(y), int(x + side), int(y + side))).resize((size, size), Image.BILINEAR)


_TRAIN_BACKDROPS: list[Path] = []


def export_backdrops(dst: Path, side: int = 800) -> None:
    """Writes the backdrops we train on as JPEGs at most `side` pixels long into `dst`, to be
    carried to a machine without Debian's pictures (SUANFAN_BACKDROPS points at them there)."""
    dst.mkdir(parents=True, exist_ok=True)
    for path in backdrops("train"):
        img = load_backdrop(path)
        img.thumbnail((side, side))
        img.save(dst / f"{_backdrop_name(path)}.jpg", quality=85)


def _train_backdrops() -> list[Path]:
    """The backdrops we train on: those `export_backdrops` wrote into the folder named by
    SUANFAN_BACKDROPS (for a machine without Debian's pictures), else the train half."""
    if not _TRAIN_BACKDROPS:
        folder = os.environ.get("SUANFAN_BACKDROPS")
        _TRAIN_BACKDROPS.extend(sorted(Path(folder).glob("*.jpg")) if folder else backdrops("train"))
        if not _TRAIN_BACKDROPS:
            raise SystemExit("no backdrops: apt-get install ukui-wallpapers mate-backgrounds lomiri-wallpapers-20.04 plasma-workspace-wallpapers gimp-data")
    return _TRAIN_BACKDROPS


def backdrop_none_crops(img: Image.Image, rng: random.Random, n: int) -> list[np.ndarray]:
    """Crops of a picture with no tile, cut as suanfan would cut a tile there: tile-shaped
    outlines of any size from a twentieth of the picture to all of it, upright or lying and
    slanted up to 30 degrees, and now and then the whole picture or a box centred in it (what
    suanfan reads of a picture where it finds no tile, `src/vision/whole.rs`)."""
    W, H = img.size
    out = []
    for _ in range(n):
        if rng.random() < 0.2:
            share = rng.choice([1.0, 0.85, 0.7, 0.55])
            w, h = W * share, H * share
            x0, y0 = (W - w) / 2, (H - h) / 2
            corners = [[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]]
        else:
            th = min(W, H) * rng.uniform(0.05, 0.95)
            tw = th * rng.uniform(0.65, 0.85)
            turn = math.radians(rng.uniform(-30, 30) + rng.choice([0, 90]))
            cx, cy = rng.uniform(tw / 2, W - tw / 2), rng.uniform(th / 2, H - th / 2)
            cos, sin = math.cos(turn), math.sin(turn)
            corners = [[cx + x * cos - y * sin, cy + x * sin + y * cos] for x, y in ((-tw / 2, -th / 2), (tw / 2, -th / 2), (tw / 2, th / 2), (-tw / 2, th / 2))]
        if rng.random() < 0.5:
            corners = grown_corners(corners, 1.2)  # suanfan's second reading of each face
        out.append(cut_along(img, corners))
    return out


if __name__ == "__main__" and sys.argv[1:2] == ["export-backdrops"]:  # export-backdrops DIR
    export_backdrops(Path(sys.argv[2]))
elif __name__ == "__main__":  # python tools/realdata.py N: N finder samples with labels in /tmp/view
    out = Path("/tmp/view")
    out.mkdir(exist_ok=True)
    photos = rf_photos("valid-train") + rf_photos("train")
    rng = random.Random(1)
    sheet = Image.new("RGB", (320 * 4, 320 * ((int(sys.argv[1]) + 3) // 4)))
    for k in range(int(sys.argv[1])):
        img, tiles, ign = finder_sample(rng.choice(photos), rng) if k % 6 else negative_sample(rng)
        d = ImageDraw.Draw(img)
        for t in tiles:
            d.polygon(t["corners"], outline=(255, 0, 0))
        for g in ign:
            d.rectangle(g, outline=(255, 255, 0))
        sheet.paste(img, ((k % 4) * 320, (k // 4) * 320))
    sheet.save(out / "finder_samples.png")
    print(len(rf_photos("train")), len(rf_photos("valid-train")), len(rf_photos("holdout")))


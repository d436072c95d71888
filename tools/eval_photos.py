"""Recognition judged as a user sees it: whole real photos through `suanfan scan`, every tile
reported counted, false tiles against us.

    python tools/eval_photos.py [--bin target/release/suanfan] [--finder ONNX] [--classifier ONNX] [--soft-classifier ONNX]

Sets (none of them trained on):
- `rf-holdout`: the quarter of the rf-chinese-mahjong validation photos that training never
  reads (realdata.is_holdout): real phone photos of Chinese/HK sets, labelled with faces.
- `rf-holdout+`: the same photos with the real tiles the exporter's labels leave out added
  (datasets/labels/rf-additions.csv, each looked at): a readable face counts like a label,
  a tile reported on an "unsure" one (cut by the frame, in a heap) counts neither way.
- `closeup-1`, `closeup-few`: cut from the same held-out photos around one tile (filling 55 to
  90% of the frame) or two to four neighbouring tiles (filling most of it), scaled up to a
  phone photo's size; only the tiles wholly inside count.
- `no-tiles`: pieces of the held-out photos with no tile in them (table, floor, hands,
  things around), scaled up; every tile reported there is a false one.
- `crops`: the camerash-dev crops, each one tile filling the whole picture (some are of sets
  the classifier trains on: this measures finding a frame-filling tile more than faces).
- `glass`: rows of seven to nine real tiles of the camerash-dev validation sets (never trained
  on; real_hands.py's tiles) standing on a glass table, 12 MP, most mirrored in it (fainter,
  blurred, fading), half of the photos turned up to 8° as a phone held askew: a reflection
  reported as a tile counts against us.
- `seat`: winning hands of the scoring corpus photographed from the seat with the same real
  tiles (scenes.seat_view: standing tiles seen from the front at 15-30 degrees, their tops
  showing, melds lying low in front), 12 MP, half turned up to 6 degrees.
- `backdrops`: Debian's photo wallpapers and texture patterns (wood, stone, cloth, paper), the
  half never trained on, whole and a piece of each scaled up: no tile anywhere, so every tile
  reported, face down too, is a false one.
- `on-backdrops`: one or two rows of real tiles of the camerash-dev sets never trained on
  laid on those held-out wallpapers and textures, 3000 x 2250, half turned up to 8 degrees.
- `lone-new`, `few-new`: close-ups as a phone takes them of real tiles of the camerash-dev
  sets never trained on, on those held-out wallpapers and textures, 12 MP, sharp, turned up
  to 15 degrees: one tile alone, 20 to 70% of the short side tall, anywhere in the frame; or
  a row of big tiles running off the frame, two to four of them whole (the cut ones count
  neither way).
- `camerash`: the camerash-dev photos with boxes in datasets/labels (where tiles are, not which
  faces): localisation only.

Any set name followed by `@` and a way of spoiling the pictures measures how recognition holds
up when photos are worse than the set's (`degrade`): `@dark` (a dim room: a third of the light,
more noise), `@dim` (half the light, more noise), `@warm` (tungsten light: blue cut by a third, green by a tenth), `@blur` (out of focus or shaken: a
Gaussian blur of 0.2% of the long side; `@blur0.4`: 0.4%, any share in percent), `@shake` (the
phone moved: smeared along a line 0.5% of the long side long at a random angle; `@shake1`: 1%),
`@grain` (a phone's sensor in a dim room: half the light, grain of 8 grey levels and 3 of colour,
saved at JPEG 90), `@jpeg` (saved at quality 25), `@small` (half the
size), `@turned` (turned a quarter, as a photo whose EXIF turn was lost), `@upside` (turned half
round, as seen from across the table), `@tilt` (turned 20° anticlockwise, as by a phone held askew,
grown to hold the whole picture and filled out with its mean colour; `@tilt10`: any degrees; the
tiles reported are turned back and judged against the labels where they lay before the turn,
as the photo untouched is judged; the 13 rf photos the exporter stretched, sheared by a turn,
are read worse than a real photo would be, and the rf sets give photos read exactly among them
and among the others apart), `@lean` (as the same phone would have taken it pointed 20° nearer
the horizon: the far side narrows and shrinks; `@lean30`: any degrees). Ways may be chained,
applied left to right: `@lean@grain`. For example `--sets rf-holdout@dark,rf-holdout@warm`.

For each set: tile precision, recall and F1 (a tile counts as right when its outline overlaps
the label by IoU >= 0.5 and its face is the labelled one; face-down tiles are not counted on
photos whose labels have none), photos read exactly (every labelled tile right, nothing
else), and the scan time. Pictures are written to tools/.cache/eval_photos/ (not committed).
"""

from __future__ import annotations

import argparse
import collections
import csv
import fcntl
import gzip
import io
import json
import math
import random
import re
import subprocess
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

import faces
import real_hands
import realdata
import scenes

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / "tools" / ".cache" / "eval_photos"


def hold_cache():
    """Takes the picture folder for this run: a second run at once would rewrite and delete the
    pictures the first is reading. The lock goes when the process ends."""
    CACHE.mkdir(parents=True, exist_ok=True)
    lock = open(CACHE / ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SystemExit(f"another eval_photos.py run is using {CACHE}: its pictures are rewritten on every run, so wait for it to end")
    return lock


def write_set(name: str, items: list[tuple[Image.Image, list]]) -> list[tuple[Path, list]]:
    """Writes each picture as JPEG; returns (path, labels) where labels are (face or None, box)."""
    d = CACHE / name
    d.mkdir(parents=True, exist_ok=True)
    for old in d.glob("*.jpg"):
        old.unlink()
    out = []
    for k, (img, labels) in enumerate(items):
        p = d / f"{k:04d}.jpg"
        img.save(p, quality=92)
        out.append((p, labels))
    return out


def rf_holdout(added: bool = False) -> list[tuple[Image.Image, list]]:
    """The held-out rf photos with the exporter's labels; `added`: and the real tiles they
    leave out (datasets/labels/rf-additions.csv)."""
    items = []
    additions = realdata.rf_additions() if added else {}
    for ph in realdata.rf_photos("holdout"):
        img = Image.open(ph["path"]).convert("RGB")
        labels = [(faces.CLASSES[int(c)], (x0, y0, x1, y1)) for c, x0, y0, x1, y1 in ph["boxes"].tolist()]
        items.append((img, labels + additions.get(ph["path"].name, [])))
    return items


def _cut(img: Image.Image, boxes: np.ndarray, window, out_long: int):
    """The window of a photo scaled so its long side is out_long, with the labels wholly inside."""
    x0, y0, x1, y1 = window
    s = out_long / max(x1 - x0, y1 - y0)
    pic = img.crop((int(x0), int(y0), int(x1), int(y1))).resize((max(1, round((x1 - x0) * s)), max(1, round((y1 - y0) * s))), Image.BICUBIC)
    labels = []
    for c, bx0, by0, bx1, by1 in boxes.tolist():
        box = ((bx0 - x0) * s, (by0 - y0) * s, (bx1 - x0) * s, (by1 - y0) * s)
        if bx0 >= x0 - 1 and by0 >= y0 - 1 and bx1 <= x1 + 1 and by1 <= y1 + 1:
            labels.append((faces.CLASSES[int(c)], box))
        elif bx1 > x0 and by1 > y0 and bx0 < x1 and by0 < y1:
            # Cut by the frame: a tile reported here is neither right nor false.
            labels.append(("cut", tuple(np.clip(box, 0, [pic.width, pic.height, pic.width, pic.height]).tolist())))
    return pic, labels


def _clear(boxes: np.ndarray, win) -> bool:
    """No labelled tile overlaps the window."""
    if len(boxes) == 0:
        return True
    ix = np.clip(np.minimum(boxes[:, 3], win[2]) - np.maximum(boxes[:, 1], win[0]), 0, None)
    iy = np.clip(np.minimum(boxes[:, 4], win[3]) - np.maximum(boxes[:, 2], win[1]), 0, None)
    return not np.any(ix * iy > 0)


def closeups(few: bool, rng: random.Random) -> list[tuple[Image.Image, list]]:
    items = []
    for ph in realdata.rf_photos("holdout"):
        b = ph["boxes"]
        if len(b) == 0:
            continue
        img = Image.open(ph["path"]).convert("RGB")
        W, H = img.size
        t = b[rng.randrange(len(b))]
        tw, th = t[3] - t[1], t[4] - t[2]
        if min(tw, th) < 24:
            continue  # too small in the photo to make a sharp close-up
        if few:
            # Two to four tiles: the window spans the tile and its neighbours.
            span = rng.uniform(2.2, 3.5)
            w, h = tw * span, th * span * 0.8
        else:
            fill = rng.uniform(0.55, 0.9)
            h = th / fill
            w = max(tw / fill, h * 0.75)
        if w > W or h > H:
            continue
        # Centred on the tile, shifted to lie wholly inside the photo.
        x0 = min(max(0.0, (t[1] + t[3]) / 2 - w / 2), W - w)
        y0 = min(max(0.0, (t[2] + t[4]) / 2 - h / 2), H - h)
        win = (x0, y0, x0 + w, y0 + h)
        pic, labels = _cut(img, b, win, 1600)
        whole = [lab for lab in labels if lab[0] != "cut"]
        if not whole or (not few and len(whole) != 1):
            continue
        # Tiles cut by the window's edge are neither counted nor held against us.
        items.append((pic, labels))
    return items


def no_tiles(rng: random.Random) -> list[tuple[Image.Image, list]]:
    items = []
    for ph in realdata.rf_photos("holdout"):
        img = Image.open(ph["path"]).convert("RGB")
        W, H = img.size
        for _ in range(30):
            w = rng.uniform(0.25, 0.5) * W
            h = w * rng.uniform(0.6, 1.0)
            x, y = rng.uniform(0, W - w), rng.uniform(0, H - h)
            win = (x, y, x + w, y + h)
            # Clear of labelled tiles with a margin (half a tile) for unlabelled neighbours.
            m = float(np.median(ph["boxes"][:, 3] - ph["boxes"][:, 1])) / 2 if len(ph["boxes"]) else 0
            if _clear(ph["boxes"], (x - m, y - m, x + w + m, y + h + m)):
                items.append((img.crop(tuple(int(v) for v in win)).resize((1600, int(1600 * h / w)), Image.BICUBIC), []))
                break
    return items


def backdrops(rng: random.Random) -> list[tuple[Image.Image, list]]:
    """The held-out half of Debian's photo wallpapers and texture patterns
    (`realdata.backdrops`): each picture whole (photos up to 12 MP, patterns laid over 1600 x
    1200) and a piece of it, a quarter to a half of its width, scaled to 1600 pixels wide (a
    close look at a table or floor). No tile anywhere: every tile reported, face up or down,
    is a false one."""
    items = []
    for path in realdata.backdrops("holdout"):
        img = realdata.load_backdrop(path)
        piece = realdata.random_piece(img, rng)
        piece = piece.resize((1600, round(1600 * piece.height / piece.width)), Image.BICUBIC)
        items += [(img, []), (piece, [])]
    return items


def on_backdrops(n: int = 40) -> list[tuple[Image.Image, list]]:
    """One or two rows of real camerash-dev tiles of the sets never trained on laid on the
    held-out half of Debian's wallpapers and textures (`realdata.backdrops`: wood, stone,
    cloth, marble, photos), 3000 x 2250, half of them turned up to 8 degrees: tiles of sets
    never seen on tables never seen; each label is a face and its box."""
    banks, grounds = unseen_banks(), realdata.backdrops("holdout")
    if not banks or not grounds:
        return []
    items = []
    for seed in range(n):
        rng = random.Random(7000 + seed)
        bank = banks[rng.choice(sorted(banks))]
        w, h = 3000, 2250
        img = realdata.load_backdrop(grounds[seed % len(grounds)])
        scale = max(w / img.width, h / img.height)
        img = img.resize((math.ceil(img.width * scale), math.ceil(img.height * scale)), Image.BICUBIC).crop((0, 0, w, h)).convert("RGBA")
        th = rng.randint(150, 380)
        tw = int(th * rng.uniform(0.72, 0.8))
        labels, back = [], rng.choice(scenes.BACK_COLORS)
        y = rng.randint(100, h // 2 - th)
        for _row in range(rng.randint(1, 2)):
            count = rng.randint(5, min(14, (w - 200) // (tw + 10)))
            x = rng.randint(100, w - 100 - count * (tw + 10))
            for _ in range(count):
                face = rng.choice(sorted(bank))
                sprite, _ = scenes.tile_sprite(rng.choice(bank[face]), tw, th, rng, back, False)
                img.alpha_composite(sprite, (x, y))
                labels.append((face, (float(x), float(y), float(x + tw), float(y + th))))
                x += tw + rng.randint(2, 10)
            y += int(th * rng.uniform(1.6, 2.4))
            if y + th * 1.3 > h:
                break
        img = img.convert("RGB")
        if seed % 2:
            img, labels = scenes.turned(img, labels, rng.uniform(-8, 8))
        items.append((img, labels))
    return items


def closeups_unseen(few: bool, n: int = 40) -> list[tuple[Image.Image, list]]:
    """Close-ups of real camerash-dev tiles of the sets never trained on, on the held-out half
    of Debian's wallpapers and textures, as a phone takes them: 4000 x 3000 (every third
    upright, 3000 x 4000), sharp, turned up to 15 degrees. Not `few`: one tile alone, 20 to
    70% of the short side tall, anywhere in the frame. `few`: a row of tiles 30 to 60% of the
    short side tall running off the frame on one side or both, two to four of them whole;
    tiles cut by the frame are labelled "cut" (counted neither way)."""
    banks, grounds = unseen_banks(), realdata.backdrops("holdout")
    if not banks or not grounds:
        return []
    items = []
    for seed in range(n):
        rng = random.Random((9100 if few else 9000) + seed)
        bank = banks[rng.choice(sorted(banks))]
        w, h = (3000, 4000) if seed % 3 == 2 else (4000, 3000)
        img = realdata.load_backdrop(grounds[(seed * 7) % len(grounds)])
        scale = max(w / img.width, h / img.height)
        img = img.resize((math.ceil(img.width * scale), math.ceil(img.height * scale)), Image.BICUBIC).crop((0, 0, w, h)).convert("RGBA")
        short, back = min(w, h), rng.choice(scenes.BACK_COLORS)
        th = int(short * (rng.uniform(0.3, 0.6) if few else rng.uniform(0.2, 0.7)))
        tw = int(th * rng.uniform(0.72, 0.8))
        y = rng.randint(int(h * 0.05), h - int(th * 1.25) - int(h * 0.05))
        if few:
            whole = rng.randint(2, 4)
            gap = rng.randint(2, 10)
            span = whole * (tw + gap)
            if rng.random() < 0.5:  # the whole tiles end near the right edge
                first = rng.randint(max(20, w - span - tw // 2), w - 20) - span
            else:
                first = rng.randint(20, max(21, w - span - 20))
            xs = [first + k * (tw + gap) for k in range(-3, whole + 4)]
        else:
            xs = [rng.randint(int(w * 0.05), w - tw - int(w * 0.05))]
        labels = []
        for x in xs:
            if x + tw <= 0 or x >= w:
                continue
            face = rng.choice(sorted(bank))
            sprite, _ = scenes.tile_sprite(rng.choice(bank[face]), tw, th, rng, back, False)
            img.alpha_composite(sprite, (x, y))
            box = (float(x), float(y), float(x + tw), float(y + th))
            labels.append((face if 0 <= x and x + tw <= w else "cut", tuple(np.clip(box, 0, [w, h, w, h]).tolist())))
        if few and sum(f != "cut" for f, _ in labels) < 2:
            continue
        img, labels = scenes.turned(img.convert("RGB"), labels, rng.uniform(-15, 15))
        # A whole tile turned partly out of the frame is cut too.
        labels = [(f if f == "cut" or _inside(b, (0, 0, w, h)) > 0.97 else "cut", b) for f, b in labels]
        items.append((img, labels))
    return items


def unseen_banks() -> dict[str, dict[str, list[Image.Image]]]:
    """The real crops of each camerash-dev validation tile set (never trained on), by face,
    the faces its photos show only."""
    return {k: {c: v for c, v in b.items() if v} for k, b in real_hands.set_banks().items() if b}


def glass(n: int = 40) -> list[tuple[Image.Image, list]]:
    """Rows of real camerash-dev tiles on a glass table, three in four mirrored in it, every
    other photo turned (see the module's doc); each label is a face and its box. (The reflection rule's thresholds were set
    on 20 other such photos, seeds 1000 on.)"""
    banks = unseen_banks()
    if not banks:
        return []
    items = []
    for seed in range(n):
        rng = random.Random(5000 + seed)
        bank = banks[rng.choice(sorted(banks))]
        w, h = 4000, 3000
        tint = np.array([rng.randint(5, 120) for _ in range(3)], float)
        noise = np.random.default_rng(seed).normal(0, 4, (h, w, 3))
        img = Image.fromarray(np.clip(tint + noise, 0, 255).astype(np.uint8)).convert("RGBA")
        count, th = rng.randint(7, 9), rng.randint(260, 420)
        tw = int(th * rng.uniform(0.72, 0.8))
        row = Image.new("RGBA", (count * (tw + 10), int(th * 1.3)), (0, 0, 0, 0))
        x0, y0 = rng.randint(80, w - row.width - 80), rng.randint(500, 1400)
        labels, x, back = [], 0, rng.choice(scenes.BACK_COLORS)
        for _ in range(count):
            face = rng.choice(sorted(bank))
            sprite, _ = scenes.tile_sprite(rng.choice(bank[face]), tw, th, rng, back, False)
            row.alpha_composite(sprite, (x, 0))
            labels.append((face, (float(x0 + x), float(y0), float(x0 + x + tw), float(y0 + th))))
            x += tw + rng.randint(2, 10)
        img.alpha_composite(row, (x0, y0))
        if rng.random() < 0.75:
            mirror = np.array(row.transpose(Image.FLIP_TOP_BOTTOM).filter(ImageFilter.GaussianBlur(rng.uniform(1, 4)))).astype(float)
            mirror[..., 3] *= np.linspace(rng.uniform(0.15, 0.5), 0.03, mirror.shape[0])[:, None]
            img.alpha_composite(Image.fromarray(mirror.astype(np.uint8)), (x0, y0 + int(2.24 * th) - row.height + rng.randint(0, 12)))
            # (mirrored about the tiles' lower edge: a face about 0.12 of its height thick)
        img = img.convert("RGB")
        if seed % 2:
            img, labels = scenes.turned(img, labels, rng.uniform(-8, 8))
        items.append((img, labels))
    return items


def seat(n: int = 40) -> list[tuple[Image.Image, list]]:
    """Winning hands of the scoring corpus photographed from the seat (scenes.seat_view: the
    standing tiles seen from the front at 15-30 degrees, their tops showing, the melds lying in
    front, seen low), the faces real crops of the camerash-dev validation sets, 12 MP, half
    turned up to 6 degrees; each label is a face and its box. Hands with a concealed kong or
    a face the set's photos do not show are passed over."""
    banks = unseen_banks()
    if not banks or not real_hands.CORPUS.exists():
        return []
    hands = [json.loads(line)["hand"] for line in gzip.open(real_hands.CORPUS, "rt")]
    rng = random.Random(6000)
    items = []
    while len(items) < n:
        hand, bank = rng.choice(hands), banks[rng.choice(sorted(banks))]
        photo = real_hands.seat_photo(hand, bank, rng, len(items))
        if photo is not None:
            items.append(photo)
    return items


def crops() -> list[tuple[Image.Image, list]]:
    """The camerash-dev crops as they are: one tile filling the whole picture (the finder's
    hardest case; the classifier reads most of them alone)."""
    items = []
    table = faces.SHARED / "camerash-dev" / "labels.csv"
    if not table.exists():
        return items
    for row in csv.DictReader(table.open()):
        img = Image.open(table.parent / row["crop"]).convert("RGB")
        items.append((img, [(row["tile"], (0.0, 0.0, float(img.width), float(img.height)))]))
    return items


def camerash() -> list[tuple[Image.Image, list]]:
    items = []
    for lab in sorted((REPO / "datasets" / "labels").glob("*.json")):
        doc = json.loads(lab.read_text())
        photo = faces.SHARED / "camerash-dev" / "photos" / doc["photo"]
        if photo.exists():
            items.append((Image.open(photo).convert("RGB"), [(None if not t["face_down"] else "back", tuple(t["box"])) for t in doc["tiles"]]))
    return items


# Sets whose labels include face-down tiles (or that hold no tile at all): a back reported
# where no label is counts as a false tile there.
BACKS_LABELLED = ("camerash", "backdrops")


def outline_bounds(corners) -> list[int]:
    """The upright box around a tile's outline, in whole pixels."""
    return [round(v) for v in realdata.outline_bounds(corners)]


def counted(answer: dict, labels: list, backs_labelled: bool) -> tuple[list, list]:
    """The tiles reported that count (face, upright bounds) and the labels that count: tiles cut
    by the picture's edge ("cut") or mostly inside an "unsure" label count neither way, nor
    backs where the labels have none."""
    # A picture turned askew (`tilted`) is judged where it lay before the turn: the outlines
    # reported are turned back and compared with the labels as they were. The bounds of a
    # turned label would grow with its tile's own slant (rf labels are upright boxes) and
    # count a tile outlined right as outlined off.
    turn = next((getattr(box, "turn", None) for _, box in labels), None)
    if turn is not None:
        labels = [(face, box.before) for face, box in labels]
    preds = []
    for t in answer.get("tiles", []):
        back = t["tile"].startswith("back")
        if back and not backs_labelled:
            continue  # labels without face-down tiles: backs are neither right nor wrong
        outline = t["corners"] if turn is None else turned_back(t["corners"], turn)
        preds.append(("back" if back else t["tile"], tuple(outline_bounds(outline))))
    cut = [box for face, box in labels if face == "cut"]
    unsure = [box for face, box in labels if face == "unsure"]
    labels = [lab for lab in labels if lab[0] not in ("cut", "unsure")]
    preds = [p for p in preds if all(realdata.box_iou(p[1], c) < 0.3 for c in cut) and all(_inside(p[1], u) < 0.5 for u in unsure)]
    return preds, labels


def _inside(box, region) -> float:
    """The share of `box`'s area that lies inside `region`."""
    ix = max(0.0, min(box[2], region[2]) - max(box[0], region[0]))
    iy = max(0.0, min(box[3], region[3]) - max(box[1], region[1]))
    area = (box[2] - box[0]) * (box[3] - box[1])
    return ix * iy / area if area > 0 else 0.0


def error_kinds(answer: dict, labels: list, backs_labelled: bool) -> collections.Counter:
    """What went wrong on one photo, by kind: each label paired with the reported tile that
    overlaps it most (IoU >= 0.5: right or misread; 0.1 to 0.5: outline off), else missed; the
    reported tiles paired with no label are false."""
    preds, labels = counted(answer, labels, backs_labelled)
    kinds: collections.Counter = collections.Counter()
    used: set[int] = set()
    for face, box in labels:
        overlaps = [(realdata.box_iou(box, pb), i) for i, (_, pb) in enumerate(preds) if i not in used]
        v, i = max(overlaps, default=(0.0, -1))
        if v >= 0.5:
            used.add(i)
            kinds["misread" if preds[i][0] != face else "right"] += 1
        elif v >= 0.1:
            used.add(i)
            kinds["outline off"] += 1
        else:
            kinds["missed"] += 1
    kinds["false"] += len(preds) - len(used)
    return kinds


def score_photo(answer: dict, labels: list, faces_known: bool, backs_labelled: bool, any_face: bool = False):
    """(right, reported, labelled, exact) for one photo; with any_face, a tile found where a
    label is counts as right whatever face it was read as (localisation alone)."""
    preds, labels = counted(answer, labels, backs_labelled)
    used = set()
    right = 0
    for face, box in labels:
        best, bi = 0.5, -1
        for i, (pf, pb) in enumerate(preds):
            if i in used:
                continue
            v = realdata.box_iou(box, pb)
            ok = any_face or (not faces_known and face is None) or pf == face or (face == "back" and pf == "back")
            if v >= best and ok:
                best, bi = v, i
        if bi >= 0:
            used.add(bi)
            right += 1
    return right, len(preds), len(labels), right == len(labels) == len(preds)


DEGRADE = ("dark", "dim", "warm", "blur", "shake", "grain", "jpeg", "small", "turned", "upside", "tilt", "lean")


def degrade(img: Image.Image, labels: list, how: str, rng: random.Random) -> tuple[Image.Image, list]:
    """The picture `img` spoiled as `how` (DEGRADE), with its labels (face, (x0, y0, x1, y1))
    moved along where the picture's geometry changes."""
    if how in ("dark", "dim"):
        a = np.asarray(img, dtype=np.float32) / (3.0 if how == "dark" else 2.0)
        a += np.random.default_rng(rng.randrange(1 << 30)).normal(0.0, 4.0, a.shape)
        return Image.fromarray(a.clip(0, 255).astype(np.uint8)), labels
    if how == "warm":
        a = np.asarray(img, dtype=np.float32) * np.array([1.0, 0.9, 0.67], dtype=np.float32)
        return Image.fromarray(a.clip(0, 255).astype(np.uint8)), labels
    if how == "blur" or re.fullmatch(r"blur(\d+\.?\d*|\.\d+)", how):
        # `blur` is 0.2% of the long side; `blur0.4` names another share, in percent.
        share = float(how[4:]) / 100 if how != "blur" else 0.002
        return img.filter(ImageFilter.GaussianBlur(share * max(img.size))), labels
    if how == "shake" or re.fullmatch(r"shake(\d+\.?\d*|\.\d+)", how):
        # The phone moved while it took the photo: `shake` smears it along a line 0.5% of the
        # long side long at a random angle; `shake1` names another share, in percent.
        share = float(how[5:]) / 100 if how != "shake" else 0.005
        return shaken(img, share * max(img.size), rng.uniform(0, math.pi)), labels
    if how == "grain":
        # A phone's sensor in a dim room: the light halved, grain in every pixel (grey and a
        # little colour), saved as a phone saves it (JPEG 90).
        a = np.asarray(img, dtype=np.float32) / 2.0
        noise = np.random.default_rng(rng.randrange(1 << 30))
        a += noise.normal(0.0, 8.0, a.shape[:2])[..., None] + noise.normal(0.0, 3.0, a.shape)
        buf = io.BytesIO()
        Image.fromarray(a.clip(0, 255).astype(np.uint8)).save(buf, "JPEG", quality=90)
        return Image.open(io.BytesIO(buf.getvalue())).convert("RGB"), labels
    if how == "jpeg":
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=25)
        return Image.open(io.BytesIO(buf.getvalue())).convert("RGB"), labels
    if how == "small":
        w, h = img.size
        return img.resize((max(1, w // 2), max(1, h // 2)), Image.LANCZOS), [(f, tuple(v / 2 for v in b)) for f, b in labels]
    if how == "turned":
        # A quarter turn anticlockwise: (x, y) -> (y, w - x).
        w = img.size[0]
        return img.transpose(Image.ROTATE_90), [(f, (b[1], w - b[2], b[3], w - b[0])) for f, b in labels]
    if how == "upside":
        # Upside down (seen from across the table): (x, y) -> (w - x, h - y).
        w, h = img.size
        return img.transpose(Image.ROTATE_180), [(f, (w - b[2], h - b[3], w - b[0], h - b[1])) for f, b in labels]
    if how == "tilt" or re.fullmatch(r"tilt\d+", how):
        return tilted(img, labels, float(how[4:] or 20))
    if how == "lean" or re.fullmatch(r"lean\d+", how):
        return leaned(img, labels, float(how[4:] or 20))
    raise SystemExit(
        f"unknown way to spoil the pictures: @{how} (one of {', '.join(DEGRADE)}, or blur or shake followed by a share of the long side "
        "in percent, as blur0.4, or tilt or lean followed by degrees, as tilt30)"
    )


def shaken(img: Image.Image, length: float, angle: float) -> Image.Image:
    """`img` smeared evenly along a line `length` pixels long at `angle` (radians): the mean of
    copies of it shifted along the line, the edges repeated."""
    a = np.asarray(img, dtype=np.float32)
    steps = max(2, round(length))
    r = steps // 2 + 1
    padded = np.pad(a, ((r, r), (r, r), (0, 0)), mode="edge")
    h, w = a.shape[:2]
    out = np.zeros_like(a)
    for k in range(steps):
        t = k / (steps - 1) - 0.5
        dx, dy = round(t * length * math.cos(angle)), round(t * length * math.sin(angle))
        out += padded[r + dy : r + dy + h, r + dx : r + dx + w]
    return Image.fromarray((out / steps).round().clip(0, 255).astype(np.uint8))


def tilted(img: Image.Image, labels: list, degrees: float) -> tuple[Image.Image, list]:
    """`img` turned `degrees` anticlockwise (a phone held askew; `tilt` is 20), grown to hold all
    of it and filled out with its mean colour; each label becomes the bounds of its tile turned
    (of its box where the label keeps no corners: the rf photos')."""
    w, h = img.size
    fill = tuple(int(v) for v in np.asarray(img, dtype=np.float32).reshape(-1, 3).mean(axis=0))
    out = img.rotate(degrees, resample=Image.BICUBIC, expand=True, fillcolor=fill)
    centre, to = (w / 2, h / 2), (out.size[0] / 2, out.size[1] / 2)
    turned = scenes.turned_labels(labels, degrees, centre, to)
    for (_, before), (_, after) in zip(labels, turned):
        after.before, after.turn = before, (degrees, centre, to)
    return out, turned


def leaned(img: Image.Image, labels: list, degrees: float) -> tuple[Image.Image, list]:
    """`img` as the same phone would have taken it pointed `degrees` nearer the horizon
    (realdata.leaned), filled out with its mean colour; each label becomes the bounds of its
    box's corners moved."""
    fill = tuple(int(v) for v in np.asarray(img, dtype=np.float32).reshape(-1, 3).mean(axis=0))
    out, m = realdata.leaned(img, degrees, fill)
    boxes = []
    for face, b in labels:
        c = realdata.through(m, [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])])
        boxes.append((face, (*c.min(axis=0), *c.max(axis=0))))
    return out, boxes


def turned_back(corners, turn) -> list:
    """Points of a picture turned by `tilted` (`turn`: its degrees, the centre it was turned
    about, where that centre went) put back where they lay in the picture before the turn."""
    degrees, (cx, cy), (ox, oy) = turn
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return [(cx + (x - ox) * c - (y - oy) * s, cy + (x - ox) * s + (y - oy) * c) for x, y in corners]


def stretched(labels: list) -> bool:
    """Whether a photo is one the rf exporter stretched: its labelled tiles' median box (as
    labelled, before any turn) over three times as long one way as the other."""
    boxes = [getattr(box, "before", box) for _, box in labels]
    ratios = [(b[2] - b[0]) / (b[3] - b[1]) for b in boxes if b[2] > b[0] and b[3] > b[1]]
    return bool(ratios) and not 1 / 3 <= float(np.median(ratios)) <= 3


def print_by_stretch(exact: collections.Counter) -> None:
    """Photos read exactly among the rf photos the exporter stretched and among the others: a
    stretched photo turned askew is sheared, as no camera takes a table."""
    for kind, is_stretched in (("stretched by the exporter", True), ("not stretched", False)):
        n = exact[is_stretched, True] + exact[is_stretched, False]
        if n:
            print(f"{'':<12} {kind}: {exact[is_stretched, True]} of {n} read exactly ({exact[is_stretched, True] / n:.0%})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "suanfan"))
    ap.add_argument("--finder")
    ap.add_argument("--classifier")
    ap.add_argument("--soft-classifier", help="the classifier for soft photos (suanfan --soft-classifier-model)")
    ap.add_argument("--sets", default="rf-holdout,rf-holdout+,closeup-1,closeup-few,no-tiles,backdrops,camerash")
    ap.add_argument("--show", type=int, default=0, help="also annotate the first N photos of each set")
    ap.add_argument("--per-photo", help="write one JSON line per photo (set, file, right, reported, labelled, exact, labels, read) to this file")
    args = ap.parse_args()
    extra = (["--finder-model", args.finder] if args.finder else []) + (["--classifier-model", args.classifier] if args.classifier else [])
    extra += ["--soft-classifier-model", args.soft_classifier] if args.soft_classifier else []
    # The cut sets are drawn from one seeded sequence, always all three and in this order, so
    # that each is the same pictures whichever --sets are asked for.
    drawn: dict[str, list] = {}

    def cut(name: str) -> list:
        if not drawn:
            rng = random.Random(7)
            drawn["closeup-1"] = closeups(False, rng)
            drawn["closeup-few"] = closeups(True, rng)
            drawn["no-tiles"] = no_tiles(rng)
        return drawn[name]

    makers = {
        "rf-holdout": lambda: rf_holdout(),
        "rf-holdout+": lambda: rf_holdout(added=True),
        "closeup-1": lambda: cut("closeup-1"),
        "closeup-few": lambda: cut("closeup-few"),
        "no-tiles": lambda: cut("no-tiles"),
        "camerash": lambda: camerash(),
        "crops": lambda: crops(),
        "glass": lambda: glass(),
        "seat": lambda: seat(),
        "backdrops": lambda: backdrops(random.Random(8)),
        "on-backdrops": lambda: on_backdrops(),
        "lone-new": lambda: closeups_unseen(few=False),
        "few-new": lambda: closeups_unseen(few=True),
    }
    lock = hold_cache()  # noqa: F841 (held until the run ends)
    if args.per_photo:
        # Each set appends its lines below; a file left by an earlier run starts empty.
        open(args.per_photo, "w").close()
    print(f"{'set':<12} {'photos':>6} {'precision':>9} {'recall':>7} {'F1':>6} {'exact':>11} {'false tiles':>11} {'ms/photo':>8}  found (any face): P / R")
    for name in args.sets.split(","):
        base, _, how = name.partition("@")
        if base not in makers:
            raise SystemExit(f"unknown set {base!r} (one of {', '.join(makers)})")
        items = makers[base]()
        if how:
            rng = random.Random(11)
            for one in how.split("@"):
                items = [degrade(img, labels, one, rng) for img, labels in items]
        items = write_set(name, items)
        if not items:
            where = (
                "are Debian's wallpapers there? apt-get install ukui-wallpapers mate-backgrounds lomiri-wallpapers-20.04 plasma-workspace-wallpapers gimp-data"
                if base.endswith("backdrops")
                else "is ../shared/data there?"
            )
            print(f"{name:<12} no photos ({where})")
            continue
        answers = realdata.scan(Path(args.bin), [p for p, _ in items], extra)
        R = P = G = E = LR = 0
        exact_by_stretch = collections.Counter()
        kinds: collections.Counter = collections.Counter()
        ms = []
        detail = open(args.per_photo, "a") if args.per_photo else None
        for p, labels in items:
            a = answers.get(str(p), {})
            ms.append(a.get("ms", {}).get("total", 0) if isinstance(a.get("ms"), dict) else a.get("ms", 0) or 0)
            r, pr, g, ex = score_photo(a, labels, faces_known=base != "camerash", backs_labelled=base in BACKS_LABELLED)
            R, P, G, E = R + r, P + pr, G + g, E + ex
            exact_by_stretch[stretched(labels), ex] += 1
            LR += score_photo(a, labels, faces_known=False, backs_labelled=base in BACKS_LABELLED, any_face=True)[0]
            kinds += error_kinds(a, labels, backs_labelled=base in BACKS_LABELLED)
            if detail:
                read = [(t["tile"], round(t.get("p", 0), 2), outline_bounds(t["corners"])) for t in a.get("tiles", [])]
                detail.write(json.dumps({"set": name, "file": str(p), "right": r, "reported": pr, "labelled": g, "exact": bool(ex), "labels": [(f, [round(v) for v in b]) for f, b in labels], "read": read}) + "\n")
        prec, rec = R / max(P, 1), R / max(G, 1)
        f1 = 2 * prec * rec / max(prec + rec, 1e-9)
        print(f"{name:<12} {len(items):>6} {prec:>9.3f} {rec:>7.3f} {f1:>6.3f} {E:>4}/{len(items):<4} ({E / len(items):.0%}) {P - R:>5} {np.mean(ms):>8.1f}  {LR / max(P, 1):.3f} / {LR / max(G, 1):.3f}")
        if base != "camerash":
            down = sum(t.get("face_down", False) for p, _ in items for t in answers.get(str(p), {}).get("tiles", []))
            with_tiles = sum(bool(answers.get(str(p), {}).get("tiles")) for p, _ in items)
            print(
                f"{'':<12} wrong: {kinds['misread']} misread, {kinds['outline off']} outlined off (IoU 0.1-0.5), "
                f"{kinds['missed']} missed, {kinds['false']} reported where no label is; "
                + (f"{down} face-down tiles reported (the labels have no backs: counted neither way)" if base not in BACKS_LABELLED
                   else f"{down} of them face down; {with_tiles} pictures with a tile reported")
            )
        if base.startswith("rf-holdout"):
            print_by_stretch(exact_by_stretch)
        for p, _ in items[: args.show]:
            subprocess.run([args.bin, "scan", *extra, str(p), "--annotate", str(p.with_suffix(".annotated.png"))], capture_output=True)


if __name__ == "__main__":
    main()

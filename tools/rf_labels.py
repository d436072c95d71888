"""Checks the labels of the rf photos (`../shared/data/rf-chinese-mahjong`) against the
classifier and writes what disagrees as contact sheets, for a person to look at.

    python tools/rf_labels.py propose [--classifier ONNX] [--min-prob 0.5]
    python tools/rf_labels.py duplicates
    python tools/rf_labels.py backs [--bin target/release/suanfan]
    python tools/rf_labels.py check-backs [--classifier ONNX]
    python tools/rf_labels.py orientation [--bin target/release/suanfan]

writes `tools/.cache/rf_labels/proposals.csv` (photo, box, label, read, probability) and
`sheet-NN.png` (each crop numbered as in the CSV, with its label and the reading). The
corrections a person confirmed on the sheets go into `datasets/labels/rf-corrections.csv`
(photo, box, label, corrected; `corrected` is a face in this project's notation, or `drop`
for a box that is no whole tile, or the second box of a tile labelled twice, which
`duplicates` lists), which `realdata.rf_photos` applies for training and
evaluation alike. Only the exporter's validation photos are checked: the classifier never
trains on the faces of its augmented train photos.

`backs` lists every face-down tile `suanfan scan` finds on the rf photos (the labels have no
backs) to `backs.csv` and `backs-NN.png`: each tile numbered, in its surroundings with its
outline drawn, beside the crop the classifier is given. What a person saw on the sheets (a
real back, or no tile: felt between tiles, a tray, wood) goes into
`datasets/labels/rf-backs.csv` (photo, the outline's corners, `back` or `none`), which
`train_classifier.py` learns backs and false backs from (those of the exporter's train
photos only). `check-backs` scans the validation photos, never trained on for backs, and
counts how many of the judged face-down tiles `suanfan scan` still reports: the real backs
should stay, the false ones go.

`orientation` says which of the exporter's augmented train photos are mirrored (a horizontal
or vertical flip: a mirrored face is no real face), so that the classifier can learn the faces
of the others and of the mirrored ones flipped back. `suanfan scan` reads each photo as it is
and flipped left to right; the way that reads at least 2 more labelled tiles right is the
photo's own (`plain` or `mirrored`), anything closer is `unknown` and left out. Written to
`datasets/labels/rf-train-orientation.csv` (photo, tiles read right each way, labelled tiles,
verdict); `realdata.rf_photos("train-faces")` reads it.
"""

from __future__ import annotations

import argparse
import csv
import os
from pathlib import Path

import numpy as np

# Read once, when onnxruntime starts: its Linux wheel sends Microsoft usage events unless told
# not to (the suanfan binary sets it too, src/main.rs).
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
import onnxruntime as ort  # noqa: E402 (after the switch above)
from PIL import Image, ImageDraw

import faces
import realdata
import synth

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tools" / ".cache" / "rf_labels"
NAMES = faces.CLASSES + ["none"]


def crops_of(photo: dict) -> list[np.ndarray]:
    """Each labelled box cut as it is (no jitter); a box lying across is turned upright."""
    img = Image.open(photo["path"]).convert("RGB")
    out = []
    for _c, x0, y0, x1, y1 in photo["boxes"].tolist():
        crop = img.crop((x0, y0, x1, y1))
        if (x1 - x0) > 1.2 * (y1 - y0):
            crop = crop.transpose(Image.Transpose.ROTATE_90)
        out.append(np.asarray(crop.resize((synth.CROP_W, synth.CROP_H), Image.BILINEAR), np.uint8))
    return out


def read(session: ort.InferenceSession, x: np.ndarray) -> np.ndarray:
    """Probabilities of the crops and of the crops turned round; the more confident wins."""
    def run(a):
        return session.run(None, {"crops": a.transpose(0, 3, 1, 2).astype(np.float32)})[0]
    p, q = run(x), run(np.ascontiguousarray(x[:, ::-1, ::-1]))
    return np.where((q.max(1) > p.max(1))[:, None], q, p)


def sheet(items: list[tuple[int, np.ndarray, str]], path: Path, cols: int = 12, cw: int = 96, crop_h: int = 120) -> None:
    """Numbered crops on a contact sheet, `cols` a row, each `cw` wide and `crop_h` tall."""
    ch = crop_h + 30
    rows = (len(items) + cols - 1) // cols
    g = Image.new("RGB", (cols * cw, rows * ch), "white")
    d = ImageDraw.Draw(g)
    for j, (n, crop, text) in enumerate(items):
        x, y = (j % cols) * cw, (j // cols) * ch
        g.paste(Image.fromarray(crop).resize((cw - 6, crop_h)), (x + 3, y))
        d.text((x + 3, y + crop_h + 2), f"{n} {text}", fill="black")
    g.save(path)


def propose(args) -> None:
    session = ort.InferenceSession(args.classifier, providers=["CPUExecutionProvider"])
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("sheet-*.png"):
        old.unlink()
    rows, items = [], []
    photos = realdata.rf_photos("valid-train") + realdata.rf_photos("holdout")
    for ph in photos:
        if not len(ph["boxes"]):
            continue
        x = np.stack(crops_of(ph))
        p = read(session, x)
        for k, (lab, pr) in enumerate(zip(ph["boxes"][:, 0].astype(int), p)):
            top = int(pr.argmax())
            if top != lab and pr[top] >= args.min_prob:
                n = len(rows)
                rows.append([ph["path"].name, ph["lines"][k], NAMES[lab], NAMES[top], f"{pr[top]:.2f}"])
                items.append((n, x[k], f"{NAMES[lab]}>{NAMES[top]}"))
    with open(OUT / "proposals.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n", "photo", "box", "label", "read", "probability"])
        for n, r in enumerate(rows):
            w.writerow([n] + r)
    for s in range(0, len(items), 96):
        sheet(items[s : s + 96], OUT / f"sheet-{s // 96:02d}.png")
    print(f"{len(rows)} boxes of {sum(len(p['boxes']) for p in photos)} disagree with the classifier; see {OUT}")


def duplicates(_args) -> None:
    """Pairs of boxes of one photo that cover one tile (IoU >= 0.6): the exporter labelled
    some tiles twice, once with a wrong face. Written as a sheet of the two crops side by side,
    for a person to say which box to drop."""
    OUT.mkdir(parents=True, exist_ok=True)
    rows, items = [], []
    for ph in realdata.rf_photos("valid-train") + realdata.rf_photos("holdout"):
        b = ph["boxes"]
        crops = crops_of(ph) if len(b) else []
        for i in range(len(b)):
            for j in range(i + 1, len(b)):
                iou = realdata.box_iou(b[i, 1:], b[j, 1:])
                if iou >= 0.6:
                    n = len(rows)
                    rows.append([ph["path"].name, ph["lines"][i], ph["lines"][j], NAMES[int(b[i, 0])], NAMES[int(b[j, 0])], f"{iou:.2f}"])
                    items += [(n, crops[i], NAMES[int(b[i, 0])]), (n, crops[j], NAMES[int(b[j, 0])])]
    with open(OUT / "duplicates.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n", "photo", "box", "other box", "label", "other label", "iou"])
        for n, r in enumerate(rows):
            w.writerow([n] + r)
    if items:
        sheet(items, OUT / "duplicates.png")
    print(f"{len(rows)} pairs of boxes cover one tile; see {OUT / 'duplicates.csv'}")


def in_context(img: Image.Image, corners: list) -> np.ndarray:
    """The tile with as much around it on every side as it is large, its outline drawn."""
    xs, ys = [p[0] for p in corners], [p[1] for p in corners]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    box = (min(xs) - w, min(ys) - h, max(xs) + w, max(ys) + h)
    crop = img.crop(tuple(int(v) for v in box)).convert("RGB")
    d = ImageDraw.Draw(crop)
    d.polygon([(x - int(box[0]), y - int(box[1])) for x, y in corners], outline=(255, 0, 0))
    return np.asarray(crop.resize((synth.CROP_W * 2, synth.CROP_H * 2)), np.uint8)


def backs(args) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("backs-*.png"):
        old.unlink()
    rows, items = [], []
    for part in ("train", "valid-train", "holdout"):
        photos = realdata.rf_photos(part)
        answers = {}
        for s in range(0, len(photos), 64):
            answers.update(realdata.scan(args.bin, [p["path"] for p in photos[s : s + 64]]))
        for ph in photos:
            tiles = [t for t in answers.get(str(ph["path"]), {}).get("tiles", []) if t.get("face_down")]
            if not tiles:
                continue
            img = Image.open(ph["path"]).convert("RGB")
            for t in tiles:
                n = len(rows)
                corners = [[round(v, 1) for v in c] for c in t["corners"]]
                rows.append([part, ph["path"].name, " ".join(f"{x} {y}" for x, y in corners), f"{t['p']:.2f}"])
                both = np.zeros((synth.CROP_H * 2, synth.CROP_W * 3, 3), np.uint8)
                both[:, : synth.CROP_W * 2] = in_context(img, corners)
                both[: synth.CROP_H, synth.CROP_W * 2 :] = realdata.cut_along(img, corners)
                items.append((n, both, part[:5]))
    with open(OUT / "backs.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n", "part", "photo", "corners", "finder"])
        for n, r in enumerate(rows):
            w.writerow([n] + r)
    for s in range(0, len(items), 40):
        sheet(items[s : s + 40], OUT / f"backs-{s // 40:02d}.png", cols=8, cw=150, crop_h=100)
    print(f"{len(rows)} face-down tiles found; see {OUT}")


def check_backs(args) -> None:
    judged = realdata.labelled_backs(("valid-train", "holdout"))
    paths = sorted({p for p, _, _ in judged})
    extra = ["--classifier-model", args.classifier]
    answers = realdata.scan(args.bin, paths, extra)
    kept = {realdata.BACK: 0, realdata.NONE: 0}
    for path, corners, cls in judged:
        box = (min(c[0] for c in corners), min(c[1] for c in corners), max(c[0] for c in corners), max(c[1] for c in corners))
        for t in answers.get(str(path), {}).get("tiles", []):
            if t.get("face_down") and realdata.box_iou(box, realdata.outline_bounds(t["corners"])) >= 0.5:
                kept[cls] += 1
                break
    n_back = sum(c == realdata.BACK for _, _, c in judged)
    n_none = len(judged) - n_back
    down = sum(t.get("face_down", False) for a in answers.values() for t in a.get("tiles", []))
    print(f"{len(paths)} validation photos: real backs still reported {kept[realdata.BACK]}/{n_back}, "
          f"false backs still reported {kept[realdata.NONE]}/{n_none}; face-down tiles reported in all {down}")


def right_reads(answer: dict, boxes: np.ndarray, width: float, flipped: bool) -> int:
    """How many labelled tiles `answer` (suanfan's JSON) reads right; `flipped`: the answer is
    of the picture flipped left to right."""
    found = [(t["tile"], realdata.outline_bounds(t["corners"])) for t in answer.get("tiles", []) if not t.get("face_down")]
    n = 0
    for c, x0, y0, x1, y1 in boxes.tolist():
        if flipped:
            x0, x1 = width - x1, width - x0
        n += any(face == faces.CLASSES[int(c)] and realdata.box_iou((x0, y0, x1, y1), b) >= 0.5 for face, b in found)
    return n


def orientation(args) -> None:
    photos = realdata.rf_photos("train")
    flipped = [realdata.flipped_copy(ph["path"], OUT / "flipped") for ph in photos]
    rows = []
    for s in range(0, len(photos), 64):
        part = photos[s : s + 64]
        plain = realdata.scan(args.bin, [p["path"] for p in part])
        mirror = realdata.scan(args.bin, flipped[s : s + 64])
        for ph, q in zip(part, flipped[s : s + 64]):
            a = right_reads(plain.get(str(ph["path"]), {}), ph["boxes"], ph["size"][0], False)
            b = right_reads(mirror.get(str(q), {}), ph["boxes"], ph["size"][0], True)
            verdict = "plain" if a >= b + 2 else "mirrored" if b >= a + 2 else "unknown"
            rows.append([ph["path"].name, a, b, len(ph["boxes"]), verdict])
    with open(realdata.TRAIN_ORIENTATION, "w", newline="") as f:
        f.write("# Which rf train photos are mirrored: tools/rf_labels.py orientation (suanfan read each\n")
        f.write("# photo as it is and flipped left to right; the way with 2 or more tiles read right is its own).\n")
        w = csv.writer(f)
        w.writerow(["photo", "right_plain", "right_flipped", "labelled", "orientation"])
        w.writerows(rows)
    counts = {v: sum(r[4] == v for r in rows) for v in ("plain", "mirrored", "unknown")}
    print(f"{len(rows)} train photos: {counts}; written to {realdata.TRAIN_ORIENTATION}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["propose", "duplicates", "backs", "check-backs", "orientation"])
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "suanfan"))
    ap.add_argument("--classifier", default=str(REPO / "models" / "tile_classifier.onnx"))
    ap.add_argument("--min-prob", type=float, default=0.5)
    args = ap.parse_args()
    {"propose": propose, "duplicates": duplicates, "backs": backs, "check-backs": check_backs, "orientation": orientation}[args.command](args)


if __name__ == "__main__":
    main()

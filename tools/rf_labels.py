"""Checks the labels of the rf photos (`../shared/data/rf-chinese-mahjong`) against the
classifier and writes what disagrees as contact sheets, for a person to look at.

    python tools/rf_labels.py propose [--classifier ONNX] [--min-prob 0.5]
    python tools/rf_labels.py duplicates

writes `tools/.cache/rf_labels/proposals.csv` (photo, box, label, read, probability) and
`sheet-NN.png` (each crop numbered as in the CSV, with its label and the reading). The
corrections a person confirmed on the sheets go into `datasets/labels/rf-corrections.csv`
(photo, box, label, corrected; `corrected` is a face in this project's notation, or `drop`
for a box that is no whole tile, or the second box of a tile labelled twice, which
`duplicates` lists), which `realdata.rf_photos` applies for training and
evaluation alike. Only the exporter's validation photos are checked: the classifier never
trains on the faces of its augmented train photos.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np
import onnxruntime as ort
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


def sheet(items: list[tuple[int, np.ndarray, str]], path: Path) -> None:
    cols, cw, ch = 12, 96, 150
    rows = (len(items) + cols - 1) // cols
    g = Image.new("RGB", (cols * cw, rows * ch), "white")
    d = ImageDraw.Draw(g)
    for j, (n, crop, text) in enumerate(items):
        x, y = (j % cols) * cw, (j // cols) * ch
        g.paste(Image.fromarray(crop).resize((cw - 6, 120)), (x + 3, y))
        d.text((x + 3, y + 122), f"{n} {text}", fill="black")
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["propose", "duplicates"])
    ap.add_argument("--classifier", default=str(REPO / "models" / "tile_classifier.onnx"))
    ap.add_argument("--min-prob", type=float, default=0.5)
    args = ap.parse_args()
    {"propose": propose, "duplicates": duplicates}[args.command](args)


if __name__ == "__main__":
    main()

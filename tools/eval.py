"""Evaluate the shipped ONNX models the way the Rust pipeline uses them.

    python tools/eval.py [--scenes 200] [--finder ONNX] [--classifier ONNX]

Prints:
- localisation precision and recall (IoU >= 0.5) on synthetic validation scenes (a seed never
  used in training) and on the real photos labelled in datasets/labels/;
- face classification accuracy on the real crops of the validation photos (never trained on),
  overall and per class, and the most frequent confusions.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
from pathlib import Path

import numpy as np

# Read once, when onnxruntime starts: its Linux wheel sends Microsoft usage events unless told
# not to (the suanfan binary sets it too, src/main.rs).
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
import onnxruntime as ort  # noqa: E402 (after the switch above)
from PIL import Image

import faces
import scenes
import train_classifier as tc
import train_detector as td

REPO = Path(__file__).resolve().parent.parent
PHOTOS = faces.SHARED / "camerash-dev" / "photos"


def session(path: Path) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def covered(a, b) -> float:
    """How much of the smaller box lies inside the other (as src/vision.rs suppresses)."""
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return ix * iy / smaller if smaller > 0 else 0.0


def find_tiles(sess, img: Image.Image, thresh=0.3):
    """Boxes (x0, y0, x1, y1, face_down, orientation, score) in source pixels. As in Rust: the
    long side scaled to td.INFER_LONG_SIDE, each side padded grey to a multiple of 32."""
    W, H = img.size
    s = td.INFER_LONG_SIDE / max(W, H)
    nw, nh = max(1, round(W * s)), max(1, round(H * s))
    cw, ch = -(-nw // 32) * 32, -(-nh // 32) * 32
    px, py = (cw - nw) // 2, (ch - nh) // 2
    canvas = Image.new("RGB", (cw, ch), (114, 114, 114))
    canvas.paste(img.resize((nw, nh), Image.BILINEAR), (px, py))
    x = np.asarray(canvas, np.float32).transpose(2, 0, 1)[None]
    names = {o.name for o in sess.get_outputs()}
    # The turn's scores (slim_finder.py) or, from a finder before session 71, probabilities:
    # decode takes their argmax, the same either way.
    turn = "orient_logits" if "orient_logits" in names else "orient"
    heat, box, orient = sess.run(["heat", "box", turn], {"image": x})
    dets = td.decode(heat[0], box[0], orient[0], thresh)
    dets.sort(key=lambda d: -d[6])
    kept = []
    for d in dets:
        if all(td.iou(d, k) < 0.5 and covered(d, k) < 0.5 for k in kept):
            kept.append(d)
    return [((d[0] - px) / s, (d[1] - py) / s, (d[2] - px) / s, (d[3] - py) / s, d[4], d[5], d[6]) for d in kept]


def facedown_wrong(pred, gt) -> int:
    """Labelled tiles whose best-matching box (IoU >= 0.5) has the wrong face-down flag."""
    wrong = 0
    for g in gt:
        best = max(pred, key=lambda p: td.iou(p, g), default=None)
        if best is not None and td.iou(best, g) >= 0.5 and bool(best[4]) != bool(g[4]):
            wrong += 1
    return wrong


def localisation_synthetic(sess, n: int):
    bank = faces.load_bank()
    TP = P = G = 0
    for k in range(n):
        img, tiles = scenes.make_scene(987_654_321 + k, td.SIZE, bank)
        pred = find_tiles(sess, img)
        gt = []
        for t in tiles:
            xs = [p[0] for p in t["corners"]]
            ys = [p[1] for p in t["corners"]]
            gt.append((max(0, min(xs)), max(0, min(ys)), min(td.SIZE, max(xs)), min(td.SIZE, max(ys)), t["face_down"], t["orientation"]))
        gt = [g for g in gt if g[2] - g[0] >= 4 and g[3] - g[1] >= 4]
        tp, p, g, _ = td.match(pred, gt)
        TP, P, G = TP + tp, P + p, G + g
    return TP, P, G


def localisation_real():
    rows = []
    for lab in sorted((REPO / "datasets" / "labels").glob("*.json")):
        doc = json.loads(lab.read_text())
        photo = PHOTOS / doc["photo"]
        if not photo.exists():
            print(f"  {doc['photo']}: photo not found in {PHOTOS}, skipped")
            continue
        rows.append((doc["photo"], Image.open(photo).convert("RGB"), [tuple(t["box"]) + (t["face_down"], 0) for t in doc["tiles"]]))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=200)
    ap.add_argument("--finder", default=str(REPO / "models" / "tile_finder.onnx"))
    ap.add_argument("--classifier", default=str(REPO / "models" / "tile_classifier.onnx"))
    args = ap.parse_args()
    finder = session(Path(args.finder))
    classifier = session(Path(args.classifier))

    print("== localisation (IoU >= 0.5)")
    TP, P, G = localisation_synthetic(finder, args.scenes)
    print(f"synthetic validation scenes ({args.scenes}): precision {TP / max(P, 1):.3f} recall {TP / max(G, 1):.3f} ({TP}/{G} tiles, {P} found)")
    RT = RP = RG = RD = 0
    for name, img, gt in localisation_real():
        pred = find_tiles(finder, img)
        tp, p, g, _ = td.match(pred, gt)
        down = facedown_wrong(pred, gt)
        RT, RP, RG, RD = RT + tp, RP + p, RG + g, RD + down
        print(f"  real {name}: precision {tp / max(p, 1):.3f} recall {tp / max(g, 1):.3f} ({tp}/{g}, {p} found); face-down flag wrong on {down}")
    print(f"real labelled photos: precision {RT / max(RP, 1):.3f} recall {RT / max(RG, 1):.3f} ({RT}/{RG} tiles, {RP} found); face-down flag wrong on {RD}")

    print("== face classification on real crops of photos not trained on")
    x, y, paths = tc.validation_set()
    probs = classifier.run(None, {"crops": x.transpose(0, 3, 1, 2).astype(np.float32)})[0]
    rot = classifier.run(None, {"crops": x[:, ::-1, ::-1].transpose(0, 3, 1, 2).astype(np.float32).copy()})[0]
    # As the Rust pipeline does: a crop turned round wins only when clearly more confident.
    use_rot = rot.max(1) > probs.max(1) + 0.15
    pred = np.where(use_rot, rot.argmax(1), probs.argmax(1))
    acc = float((pred == y).mean())
    print(f"overall: {acc:.4f} ({int((pred == y).sum())}/{len(y)}) on photos {sorted(tc.VAL_PHOTOS)}")
    # "not a tile" follows the faces, then (a classifier with 44 outputs) a tile's back.
    names = faces.CLASSES + ["none", "back"]
    print(f"real crops called not a tile: {int((pred == 42).sum())}/{len(y)}")
    per = collections.defaultdict(lambda: [0, 0])
    conf = collections.Counter()
    for t, p in zip(y, pred):
        per[names[t]][1] += 1
        per[names[t]][0] += int(t == p)
        if t != p:
            conf[(names[t], names[p])] += 1
    is_bonus = y >= 34
    read_bonus = (np.where(use_rot, rot[:, 34:42].sum(1), probs[:, 34:42].sum(1)) >= 0.5) | ((pred >= 34) & (pred < 42))
    print(f"flower or season set aside as bonus: {int((read_bonus & is_bonus).sum())}/{int(is_bonus.sum())}; playing tiles kept in play: {int((~read_bonus & ~is_bonus).sum())}/{int((~is_bonus).sum())}")
    print("per class: " + " ".join(f"{c}:{per[c][0]}/{per[c][1]}" for c in faces.CLASSES if per[c][1]))
    print("confusions (true -> read): " + (", ".join(f"{a}->{b} x{n}" for (a, b), n in conf.most_common(12)) or "none"))


if __name__ == "__main__":
    main()

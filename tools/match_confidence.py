"""Sharpens (or softens) a classifier's outputs so that as many of its readings reach 0.95 as a
reference classifier's do, on the faces of the rf photos we train on cut as `suanfan scan`
cuts them. suanfan's rules were set with the shipped classifier's confidences (a face read
below 0.95 is read again with a margin, one below 0.8 sends the photo to a second reading):
a classifier that reads the same faces less surely trips them more often. The output layer's
weights and bias are scaled by one factor, so every face keeps its likeliest reading.

    python tools/match_confidence.py NEW.onnx --reference models/tile_classifier.onnx --out OUT.onnx [--scan-answers DIR]

Session 69: a narrower classifier (train_classifier.py --prune-from) read 55% of those faces at
0.95 or more against the shipped one's 67%; scaled by 1.013 it read 67%, and the held-out rf
photos read exactly went 70 -> 72 for the first round (models/README.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

import train_classifier

SURE = 0.95
HEAD = ("net.head.1.weight", "net.head.1.bias")


def readings(path: Path, crops: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return np.concatenate([session.run(None, {"crops": crops[k : k + 256]})[0] for k in range(0, len(crops), 256)])


def sure_share(log_probs: np.ndarray, scale: float) -> float:
    z = log_probs * scale
    z -= z.max(1, keepdims=True)
    p = np.exp(z)
    return float(np.mean((p / p.sum(1, keepdims=True)).max(1) >= SURE))


def matching_scale(log_probs: np.ndarray, goal: float) -> float:
    """The factor (0.5 to 3) whose scaled readings reach SURE as often as `goal` (bisection)."""
    lo, hi = 0.5, 3.0
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if sure_share(log_probs, mid) < goal else (lo, mid)
    return (lo + hi) / 2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", type=Path)
    ap.add_argument("--reference", type=Path, default=train_classifier.REPO / "models" / "tile_classifier.onnx")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--bin", default=str(train_classifier.REPO / "target" / "release" / "suanfan"))
    ap.add_argument("--scan-answers", type=Path, help="as train_classifier.py's: suanfan's answers kept in DIR")
    args = ap.parse_args()
    train_classifier.SCAN_ANSWERS = args.scan_answers
    x, _ = train_classifier.pipeline_crops(args.bin, "valid-train", 1, 0)
    crops = np.stack(x).transpose(0, 3, 1, 2).astype(np.float32)
    goal = float(np.mean(readings(args.reference, crops).max(1) >= SURE))
    log_probs = np.log(np.clip(readings(args.model, crops), 1e-12, 1.0))
    scale = matching_scale(log_probs, goal)
    print(f"{len(crops)} faces read at {SURE} or more: reference {goal:.3f}, {args.model.name} {sure_share(log_probs, 1.0):.3f}; scaled by {scale:.3f}: {sure_share(log_probs, scale):.3f}")
    model = onnx.load(str(args.model))
    found = [i for i in model.graph.initializer if i.name in HEAD]
    if len(found) != len(HEAD):
        raise SystemExit(f"{args.model}: no output layer named {HEAD[0]} (a classifier exported by train_classifier.py?)")
    for init in found:
        init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init) * np.float32(scale), init.name))
    onnx.save(model, str(args.out))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

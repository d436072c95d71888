"""Average the weights of models fine-tuned from one start into one model (a "model soup").

Two rounds of train_detector.py run from the same finder with different scene mixes end near
each other in weight space; their mean often keeps what each learned and loses less of what
either forgot. Every input must have the same graph (the same script, the same --width); the
floating-point initializers are averaged, everything else is taken from the first. The card
(`.json`) of the first is written beside the output with `average_of` naming each input's
training.

    python tools/average_models.py --out models/tile_finder.onnx /tmp/r1/finder.onnx /tmp/r2/finder.onnx
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper


def average(paths: list[Path]) -> onnx.ModelProto:
    """The first model with each floating-point initializer replaced by the mean over all."""
    models = [onnx.load(str(p)) for p in paths]
    first = models[0]
    names = [t.name for t in first.graph.initializer]
    for path, model in zip(paths[1:], models[1:]):
        if [t.name for t in model.graph.initializer] != names:
            raise SystemExit(f"{path}: its weights are not those of {paths[0]} (another graph or --width); only rounds of one model can be averaged")
    for i, tensor in enumerate(first.graph.initializer):
        arrays = [numpy_helper.to_array(m.graph.initializer[i]) for m in models]
        if arrays[0].dtype.kind != "f":
            continue
        if any(a.shape != arrays[0].shape for a in arrays):
            raise SystemExit(f"{tensor.name}: shapes differ between the models")
        mean = np.mean(np.stack(arrays), axis=0).astype(arrays[0].dtype)
        tensor.CopyFrom(numpy_helper.from_array(mean, tensor.name))
    return first


def card(paths: list[Path]) -> dict:
    """The first input's card, its training replaced by the list of every input's training."""
    cards = []
    for p in paths:
        c = p.with_suffix(".json")
        cards.append(json.loads(c.read_text()) if c.exists() else {"training": None})
    merged = dict(cards[0])
    merged["training"] = {"average_of": [{"model": p.name, **(c.get("training") or {})} for p, c in zip(paths, cards)]}
    merged.pop("synthetic_val", None)
    return merged


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+", type=Path, help="ONNX models of one graph")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if len(args.models) < 2:
        sys.exit("give two models or more to average")
    missing = [str(p) for p in args.models if not p.exists()]
    if missing:
        sys.exit(f"not found: {', '.join(missing)}")
    model = average(args.models)
    meta = card(args.models)
    onnx.save(model, str(args.out))
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB), the mean of {len(args.models)} models")


if __name__ == "__main__":
    main()

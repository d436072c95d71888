"""Take two steps out of a finder's ONNX graph that cost time and change nothing it finds.

- The division of the input by 255 goes into the first convolution's weights (its padding is
  zeros either way, so the arithmetic is the same up to rounding): ONNX Runtime spent 0.27 ms
  of a 416 x 320 look dividing.
- The softmax of the face's turn comes off: the output `orient` (probabilities) becomes
  `orient_logits` (the scores before the softmax), and suanfan takes the softmax of the four
  scores at the few cells where a tile is found (src/vision/mod.rs, `FinderMaps::turn`). ONNX
  Runtime spent 0.7 ms of the same look on it, over every cell.

`train_detector.py` writes its finders so (its `export`); this turns a finder written before
(session 71) into one. suanfan reads either kind; `train_detector.py --init` starts from either
(`init_from_onnx` scales a folded first convolution back).

    python tools/slim_finder.py models/tile_finder.onnx [--out OUT.onnx]   # in place by default
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

INPUT = "image"
ORIENT = "orient"
ORIENT_LOGITS = "orient_logits"
# How a finder's card (`.json`) describes `orient_logits` (train_detector.py's export too).
ORIENT_LOGITS_CARD = "n,4,h/4,w/4: scores of the face top pointing up, right, down, left (their softmax: the probabilities)"


def constant_value(graph: onnx.GraphProto, name: str) -> float | None:
    """The scalar `name` holds, as a Constant node's output or an initializer; None otherwise."""
    for node in graph.node:
        if node.op_type == "Constant" and node.output[0] == name and node.attribute:
            value = numpy_helper.to_array(node.attribute[0].t)
            return float(value) if value.size == 1 else None
    for init in graph.initializer:
        if init.name == name:
            value = numpy_helper.to_array(init)
            return float(value) if value.size == 1 else None
    return None


def consumers(graph: onnx.GraphProto, name: str) -> list[onnx.NodeProto]:
    return [n for n in graph.node if name in n.input]


def fold_input_scale(graph: onnx.GraphProto) -> bool:
    """Moves `image / c` into the one convolution that reads it; False when the graph has no
    such division (already folded, or another graph)."""
    div = next((n for n in graph.node if n.op_type == "Div" and n.input[0] == INPUT), None)
    if div is None:
        return False
    c = constant_value(graph, div.input[1])
    users = consumers(graph, div.output[0])
    if c is None or len(users) != 1 or users[0].op_type != "Conv" or len(consumers(graph, INPUT)) != 1:
        raise SystemExit(f"the input is divided by {div.input[1]} and read by {[u.op_type for u in users]}: not the finder's graph; nothing written")
    conv = users[0]
    weight = next(i for i in graph.initializer if i.name == conv.input[1])
    weight.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(weight) / np.float32(c), weight.name))
    conv.input[0] = INPUT
    graph.node.remove(div)
    for node in [n for n in graph.node if n.op_type == "Constant" and n.output[0] == div.input[1]]:
        if not consumers(graph, node.output[0]):
            graph.node.remove(node)
    return True


def drop_orient_softmax(graph: onnx.GraphProto) -> bool:
    """Gives the turn's scores before their softmax as `orient_logits`; False when there is no
    `orient` output made by a softmax."""
    softmax = next((n for n in graph.node if n.op_type == "Softmax" and n.output[0] == ORIENT), None)
    if softmax is None:
        return False
    scores = softmax.input[0]
    for node in graph.node:
        for k, name in enumerate(node.output):
            if name == scores:
                node.output[k] = ORIENT_LOGITS
        for k, name in enumerate(node.input):
            if name == scores:
                node.input[k] = ORIENT_LOGITS
    graph.node.remove(softmax)
    for out in graph.output:
        if out.name == ORIENT:
            out.name = ORIENT_LOGITS
    return True


def slim(model: onnx.ModelProto) -> list[str]:
    """Both steps, in place; what was done, in words."""
    done = []
    if fold_input_scale(model.graph):
        done.append("the input's scale folded into the first convolution")
    if drop_orient_softmax(model.graph):
        done.append("the turn's softmax taken off (output orient_logits)")
    onnx.checker.check_model(model)
    return done


def slim_card(card: dict) -> dict:
    """The card (`.json`) of a slimmed finder: its output named and described as it now is."""
    outputs = card.get("outputs", {})
    card["outputs"] = {(ORIENT_LOGITS if k == ORIENT else k): (ORIENT_LOGITS_CARD if k == ORIENT else v) for k, v in outputs.items()}
    return card


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", type=Path)
    ap.add_argument("--out", type=Path, help="where to write it (default: over the model, its card too)")
    args = ap.parse_args()
    out = args.out or args.model
    model = onnx.load(str(args.model))
    done = slim(model)
    if not done:
        print(f"{args.model}: nothing to take out (already slim)")
        return
    onnx.save(model, str(out))
    card = args.model.with_suffix(".json")
    if card.exists():
        out.with_suffix(".json").write_text(json.dumps(slim_card(json.loads(card.read_text())), indent=1) + "\n")
    print(f"{out}: " + "; ".join(done))


if __name__ == "__main__":
    main()

"""Writes tests/fixtures/models/*.onnx: tiny models that are not what suanfan expects, for the
tests that check each is refused with a message naming the problem (never a panic), and one
finder of the older kind that must still be read.

    python tools/make_bad_models.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "models"


def finder(outputs: tuple[str, ...], name: str) -> onnx.ModelProto:
    """Takes an image and gives maps at stride 4 named `outputs`, all zeros (a map named heat
    or maps has 2 channels, any other 4): it finds no tile, whatever its outputs' names."""
    x = helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, None, None])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, None, None, None]) for n in outputs]
    nodes = [
        helper.make_node("AveragePool", ["image"], ["pooled"], kernel_shape=[4, 4], strides=[4, 4]),
        helper.make_node("Mul", ["pooled", "zero"], ["nothing"]),
        helper.make_node("Slice", ["nothing", "s", "e", "ax"], ["one"]),
    ]
    for n in outputs:
        nodes.append(helper.make_node("Concat", ["one"] * (2 if n in ("heat", "maps") else 4), [n], axis=1))
    inits = [
        numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
        numpy_helper.from_array(np.array([0], np.int64), "s"),
        numpy_helper.from_array(np.array([1], np.int64), "e"),
        numpy_helper.from_array(np.array([1], np.int64), "ax"),
    ]
    g = helper.make_graph(nodes, name, [x], outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def classifier(width: int, name: str) -> onnx.ModelProto:
    """A crop in, `name` out: softmax over `width` classes."""
    x = helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, 64, 48])
    y = helper.make_tensor_value_info(name, TensorProto.FLOAT, ["n", width])
    w = numpy_helper.from_array(np.full((3, width), 0.01, np.float32), "w")
    nodes = [
        helper.make_node("ReduceMean", ["crops"], ["m"], axes=[2, 3], keepdims=0),
        helper.make_node("MatMul", ["m", "w"], ["logits"]),
        helper.make_node("Softmax", ["logits"], [name], axis=1),
    ]
    g = helper.make_graph(nodes, f"classifier_{width}_{name}", [x], [y], [w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    models = {
        "finder_without_heat.onnx": finder(("maps", "box", "orient"), "finder_without_heat"),
        "finder_without_turn.onnx": finder(("heat", "box"), "finder_without_turn"),
        # Not bad: a finder written before session 71 gives the turn's probabilities (`orient`),
        # since then its scores (`orient_logits`, tools/slim_finder.py); both are read.
        "finder_turn_probabilities.onnx": finder(("heat", "box", "orient"), "finder_turn_probabilities"),
        "classifier_10_classes.onnx": classifier(10, "probs"),
        "classifier_without_probs.onnx": classifier(42, "scores"),
    }
    for name, m in models.items():
        m.ir_version = 8
        onnx.checker.check_model(m)
        onnx.save(m, OUT / name)
        print(f"wrote {OUT / name}")
    (OUT / "not_a_model.onnx").write_bytes(b"this is not an ONNX file\n")
    print(f"wrote {OUT / 'not_a_model.onnx'}")


if __name__ == "__main__":
    main()

"""Quantize the models to 8-bit integers (ONNX Runtime's static quantization, QDQ format,
weights per channel), to measure what it gains and costs. **Not shipped** (models/README.md,
session 40): on 2 cores the classifier reads 28 crops in about a third of the float model's
time and the finder's 832-pixel look takes half, but the quantized classifier lost photos the
float one reads (a one-tile close-up, two rows on a backdrop; one calibration also reported
2 tiles on a picture with none), and the quantized finder reported tiles on pictures with none.
Models fine-tuned with the rounding first (`train_detector.py --qat`, `train_classifier.py
--qat`, `qat.py`; session 41) quantize closer to their own float readings, but the fine-tuning
itself lost other photos (models/README.md).

- Weights use 7 bits (`--weights s7`, the default): with 8, CPUs without VNNI (AVX2 only:
  Haswell to Comet Lake, AMD Zen 2 and 3) saturate in ONNX Runtime's u8 x s8 kernel. Checked
  by running both under `qemu-x86_64 -cpu Haswell`: with 8 bits 4% of 512 crops read another
  face than on a VNNI machine; with 7 bits every output was the same to the last bit. `u8`
  weights avoid it too but run as slowly as float.
- The layers that give the outputs (the classifier's last layer, the finder's 1x1 heads) stay
  float (`--float-heads`, the default).
- Activation ranges are calibrated on crops cut as suanfan cuts them (64 x 48, along the
  tile's box and grown by 1.2: the classifier reads both) of the rf-chinese-mahjong photos
  trained on, with crops that are no tile; with `--finder`, on those photos and Debian's
  backdrops trained on, scaled as suanfan's looks scale them (long side 832, 416, 192, 96,
  64) onto grey 114. Never on the held-out photos `eval_photos.py` reads.

    python tools/quantize.py [--photos 120] [--method minmax|entropy|percentile] [--weights s7|s8|u8] [--finder] [--out-dir DIR]
        [--finder-model ONNX] [--classifier-models ONNX ...]

It reads `models/<name>.onnx` (or the models named) and writes `<out-dir>/<name>.int8.onnx` (default
`tools/.cache/quantized`); compare with `tools/eval_photos.py --classifier ...
--soft-classifier ... [--finder ...]`. Runs on CPU in under a minute.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np
import onnx
from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process
from PIL import Image

import realdata

ROOT = Path(__file__).resolve().parent
MODELS = ROOT.parent / "models"
# The long sides of suanfan's looks (src/vision/mod.rs: LONG_SIDE, CLOSER_LOOK, COARSE_LOOKS).
LOOKS = (832, 416, 192, 96, 64)
ALIGN = 32
WINDOW = 416
GREY = 114.0
MARGIN = 1.2  # the classifier's second crop of each tile (src/vision/geometry.rs)
METHODS = {
    "minmax": CalibrationMethod.MinMax,
    "entropy": CalibrationMethod.Entropy,
    "percentile": CalibrationMethod.Percentile,
}


def letterboxed(img: Image.Image, long_side: int) -> np.ndarray:
    """The finder's input for one look: the picture scaled to `long_side`, centred on grey."""
    w, h = img.size
    s = long_side / max(w, h)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    iw, ih = -(-nw // ALIGN) * ALIGN, -(-nh // ALIGN) * ALIGN
    out = np.full((1, 3, ih, iw), GREY, np.float32)
    small = np.asarray(img.resize((nw, nh), Image.BILINEAR), np.float32).transpose(2, 0, 1)
    px, py = (iw - nw) // 2, (ih - nh) // 2
    out[0, :, py : py + nh, px : px + nw] = small
    return out


def calibration_pictures(n: int, n_scenes: int, rng: random.Random) -> list[Image.Image]:
    """Photos trained on: rf photos (the validation part trained on, then the exporter's train
    part) and backdrops trained on (no tile); with `n_scenes`, drawn scenes as well."""
    photos = realdata.rf_photos("valid-train") + rng.sample(realdata.rf_photos("train"), n)
    rng.shuffle(photos)
    pictures = [Image.open(p["path"]).convert("RGB") for p in photos[:n]]
    for path in realdata.backdrops("train")[: max(4, n // 10)]:
        pictures.append(realdata.random_piece(realdata.load_backdrop(path), rng))
    return pictures + drawn_scenes(n_scenes, rng)


def drawn_scenes(n: int, rng: random.Random) -> list[Image.Image]:
    """Scenes drawn as the finder trains on them (scenes.make_scene, with the real crops of the
    camerash-dev sets it trains on), half of them from the seat (standing tiles seen from the
    front, which rf photos rarely show), a third turned up to 20 degrees."""
    if n == 0:
        return []
    import faces
    import scenes

    bank = faces.rendered_bank()
    real = scenes.real_banks(scenes.SCENE_PHOTOS)
    out = []
    for k in range(n):
        scenes.SEAT_SHARE = 1.0 if k % 2 else 0.0
        img, _ = scenes.make_scene(rng.randrange(1 << 30), 640, bank, real)
        if k % 3 == 0:
            img, _ = scenes.turned(img, [], rng.uniform(-20, 20))
        out.append(img)
    scenes.SEAT_SHARE = 0.0
    return out


def finder_inputs(pictures: list[Image.Image], rng: random.Random) -> list[np.ndarray]:
    """Each picture at two of the looks' sizes (every size as often), each shown in one window
    of WINDOW pixels (a look bigger than that: a random part of it), so that every input has
    the same shape (the histogram calibrations need it)."""
    out = []
    for k, img in enumerate(pictures):
        for long_side in (LOOKS[k % len(LOOKS)], LOOKS[(k + 2) % len(LOOKS)]):
            look = letterboxed(img, long_side)
            window = np.full((1, 3, WINDOW, WINDOW), GREY, np.float32)
            _, _, h, w = look.shape
            y, x = rng.randint(0, max(0, h - WINDOW)), rng.randint(0, max(0, w - WINDOW))
            part = look[:, :, y : y + WINDOW, x : x + WINDOW]
            window[:, :, : part.shape[2], : part.shape[3]] = part
            out.append(window)
    rng.shuffle(out)
    return out


def classifier_inputs(n: int, rng: random.Random, batch: int = 64) -> list[np.ndarray]:
    """Batches of crops cut as suanfan cuts them: labelled tiles (as found and with a margin)
    and crops that are no tile."""
    crops = []
    for photo in rng.sample(realdata.rf_photos("valid-train"), n):
        img = Image.open(photo["path"]).convert("RGB")
        for _, x0, y0, x1, y1 in photo["boxes"].tolist():
            corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
            crops.append(realdata.cut_along(img, corners, rng, 0.03))
            crops.append(realdata.cut_along(img, realdata.grown_corners(corners, MARGIN)))
        crops.extend(realdata.none_crops(photo, rng, 4))
    rng.shuffle(crops)
    arrays = np.stack(crops).astype(np.float32).transpose(0, 3, 1, 2)
    return [arrays[i : i + batch] for i in range(0, len(arrays) - batch + 1, batch)]


class Feed(CalibrationDataReader):
    def __init__(self, name: str, inputs: list[np.ndarray]):
        self.items = iter([{name: x} for x in inputs])

    def get_next(self):
        return next(self.items, None)


def heads(path: Path) -> list[str]:
    """The nodes that give the model's outputs, and the convolutions just before them: the 1x1
    heads are cheap, and quantized they moved the finder's weakest peaks (false tiles)."""
    graph = onnx.load(str(path)).graph
    made_by = {o: n for n in graph.node for o in n.output}
    out = []
    for o in graph.output:
        node = made_by[o.name]
        out.append(node.name)
        if node.op_type != "Conv" and node.input and node.input[0] in made_by:
            out.append(made_by[node.input[0]].name)
    return out


def kept_float(path: Path, args: argparse.Namespace) -> list[str]:
    """The nodes left float: the heads (`--float-heads`) and every node whose name holds one of
    `--keep-float`'s strings (the finder ships with `head.`: its last 3x3 convolution float)."""
    names = [n.name for n in onnx.load(str(path)).graph.node]
    kept = heads(path) if args.float_heads else []
    kept += [n for n in names if n not in kept and any(k in n for k in args.keep_float)]
    return kept


def quantize(name: str, src: Path, input_name: str, inputs: list[np.ndarray], args: argparse.Namespace) -> Path:
    pre = args.out_dir / f"{name}.pre.onnx"
    out = args.out_dir / f"{name}.int8.onnx"
    quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
    quantize_static(
        str(pre),
        str(out),
        Feed(input_name, inputs),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QUInt8 if args.weights == "u8" else QuantType.QInt8,
        reduce_range=args.weights == "s7",
        nodes_to_exclude=kept_float(pre, args),
        calibrate_method=METHODS[args.method],
    )
    pre.unlink()
    print(f"{out}: {out.stat().st_size / 1e6:.2f} MB (float {src.stat().st_size / 1e6:.2f} MB)")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--photos", type=int, default=120)
    ap.add_argument("--method", choices=sorted(METHODS), default="minmax")
    ap.add_argument("--out-dir", type=Path, default=ROOT / ".cache" / "quantized")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--finder", action="store_true", help="the finder too")
    ap.add_argument("--finder-model", type=Path, default=MODELS / "tile_finder.onnx", help="the finder to quantize")
    ap.add_argument("--classifier-models", type=Path, nargs="*", default=[MODELS / f"{n}.onnx" for n in ("tile_classifier", "tile_classifier_soft")], help="the classifiers to quantize (none: only the finder)")
    ap.add_argument("--float-heads", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--scenes", type=int, default=0, help="with --finder: calibrate on this many drawn scenes too")
    ap.add_argument("--keep-float", nargs="*", default=[], help="leave float the nodes whose names hold these strings (mixed precision)")
    ap.add_argument("--weights", choices=["s8", "s7", "u8"], default="s7")
    args = ap.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    if args.finder:
        pictures = calibration_pictures(args.photos, args.scenes, rng)
        quantize("tile_finder", args.finder_model, "image", finder_inputs(pictures, rng), args)
    if args.classifier_models:
        crops = classifier_inputs(args.photos // 2, rng)
        for src in args.classifier_models:
            quantize(src.stem, src, "crops", crops, args)


if __name__ == "__main__":
    main()

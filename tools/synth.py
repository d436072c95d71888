"""Synthetic tile crops for the face classifier, reproducible from a seed.

A crop is what the Rust pipeline cuts out of a photo for one tile: the face rectified upright,
CROP_H x CROP_W pixels, with a little of the tile edge and whatever lies beside it. Each crop
is a face from the face bank laid on a drawn tile body (ivory to white, with gloss and an
uneven light), slightly rotated and warped, cut with the imprecision of a detector, then
blurred, noised and JPEG-compressed.
"""

from __future__ import annotations

import io
import random

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

CROP_H, CROP_W = 64, 48

BODY_COLORS = [(238, 232, 210), (245, 242, 232), (230, 224, 196), (250, 250, 246), (236, 236, 228), (226, 218, 190)]
EDGE_COLORS = [(40, 110, 70), (30, 70, 140), (200, 170, 60), (150, 40, 40), (60, 60, 60), (220, 220, 210), (120, 90, 60)]


def _jitter_color(c, rng: random.Random, amount: int = 14):
    return tuple(max(0, min(255, v + rng.randint(-amount, amount))) for v in c)


def tile_face_image(face: Image.Image, rng: random.Random, scale: int = 4) -> Image.Image:
    """The face on a tile body, upright, at scale x the crop size, RGB."""
    W, H = CROP_W * scale, CROP_H * scale
    body = _jitter_color(rng.choice(BODY_COLORS), rng)
    img = Image.new("RGB", (W, H), body)
    d = ImageDraw.Draw(img)
    # Uneven light: a soft gradient across the face.
    if rng.random() < 0.7:
        g = Image.linear_gradient("L").resize((W, H)).rotate(rng.uniform(0, 360))
        shade = Image.new("RGB", (W, H), _jitter_color((255, 255, 240), rng, 10) if rng.random() < 0.5 else (170, 160, 140))
        img = Image.composite(shade, img, g.point(lambda v: int(v * rng.uniform(0.05, 0.35))))
        d = ImageDraw.Draw(img)
    # The face, scaled to fill most of the tile.
    fh = int(H * rng.uniform(0.68, 0.9))
    fw = min(int(face.width * fh / face.height), int(W * 0.92))
    fh = min(fh, int(face.height * fw / face.width))
    f = face.resize((max(1, fw), max(1, fh)), Image.LANCZOS)
    if rng.random() < 0.3:
        # Faded or over-inked engraving.
        k = rng.uniform(0.75, 1.0)
        alpha = f.getchannel("A").point(lambda v: int(v * k))
        f.putalpha(alpha)
    x = (W - fw) // 2 + rng.randint(-W // 16, W // 16)
    y = (H - fh) // 2 + rng.randint(-H // 16, H // 16)
    img.paste(f, (x, y), f)
    # Corner index (many sets print one).
    if rng.random() < 0.15:
        d.text((rng.randint(2, 8), rng.randint(2, 8)), str(rng.randint(1, 9)), fill=(30, 40, 140))
    return img


# suanfan reads each face twice, cut along its outline and with a margin (src/vision/mod.rs
# MARGIN): this share of the training crops is cut with that margin (train_classifier.py
# --margin-share; 0 leaves every crop as before).
MARGIN = 1.2
MARGIN_SHARE = 0.0


def grown_box(box, factor: float) -> tuple[int, int, int, int]:
    """An upright box (x0, y0, x1, y1) grown by `factor` about its centre."""
    x0, y0, x1, y1 = box
    cx, cy, hw, hh = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) * factor / 2, (y1 - y0) * factor / 2
    return (round(cx - hw), round(cy - hh), round(cx + hw), round(cy + hh))


def crop_from_face(face: Image.Image, rng: random.Random) -> Image.Image:
    """A finished classifier crop (CROP_W x CROP_H, RGB) of a tile showing `face`."""
    scale = 4
    tile = tile_face_image(face, rng, scale)
    W, H = tile.size
    # Canvas: the tile with a border of table, neighbour tiles or the tile's own edge.
    pad = int(W * 0.25)
    bg = _jitter_color(rng.choice(EDGE_COLORS + [(25, 90, 50), (90, 60, 40), (200, 200, 200)]), rng, 30)
    canvas = Image.new("RGB", (W + 2 * pad, H + 2 * pad), bg)
    if rng.random() < 0.5:
        # Neighbouring tiles in a row.
        nb = _jitter_color(rng.choice(BODY_COLORS), rng)
        gap = rng.randint(0, pad // 3)
        ImageDraw.Draw(canvas).rectangle([0, pad, pad - gap, pad + H], fill=nb)
        ImageDraw.Draw(canvas).rectangle([pad + W + gap, pad, W + 2 * pad, pad + H], fill=nb)
    if rng.random() < 0.5:
        # The coloured back layer or the thickness below the face.
        edge = _jitter_color(rng.choice(EDGE_COLORS), rng, 20)
        th = rng.randint(H // 30, H // 8)
        ImageDraw.Draw(canvas).rectangle([pad, pad + H, pad + W, pad + H + th], fill=edge)
    mask = Image.new("L", (W, H), 0)
    ImageDraw.Draw(mask).rounded_rectangle([0, 0, W - 1, H - 1], radius=rng.randint(W // 20, W // 7), fill=255)
    canvas.paste(tile, (pad, pad), mask)
    # Rotation and a mild perspective.
    canvas = canvas.rotate(rng.uniform(-7, 7), resample=Image.BICUBIC, fillcolor=bg)
    # Detector imprecision: the box is off by a few percent on each side.
    j = lambda a: int(a * rng.uniform(-0.07, 0.07))
    box = (pad + j(W), pad + j(H), pad + W + j(W), pad + H + j(H))
    if MARGIN_SHARE and rng.random() < MARGIN_SHARE:
        box = grown_box(box, MARGIN)
    out = canvas.crop(box)
    if rng.random() < 0.35:
        # Perspective: squeeze the top or a side.
        w, h = out.size
        k = rng.uniform(0, 0.12)
        quad = rng.choice(
            [
                (k * w, 0, 0, h, w, h, w - k * w, 0),
                (0, 0, 0, h, w, h - k * h, w, k * h),
                (0, k * h, 0, h - k * h, w, h, w, 0),
            ]
        )
        out = out.transform(out.size, Image.QUAD, quad, resample=Image.BICUBIC, fillcolor=bg)
    out = out.resize((CROP_W, CROP_H), Image.BILINEAR)
    return photo_effects(out, rng)


# The share of pictures blurred and the largest blur (Gaussian sigma in pixels of the picture
# given): train_detector.py --blur-share and --blur-max set them for the drawn scenes.
BLUR_SHARE = 0.4
BLUR_MAX = 1.2


def photo_effects(img: Image.Image, rng: random.Random) -> Image.Image:
    """Light, white balance, blur, noise and JPEG."""
    img = ImageEnhance.Brightness(img).enhance(rng.uniform(0.6, 1.3))
    img = ImageEnhance.Contrast(img).enhance(rng.uniform(0.6, 1.3))
    img = ImageEnhance.Color(img).enhance(rng.uniform(0.5, 1.3))
    arr = np.asarray(img).astype(np.float32)
    arr *= np.array([rng.uniform(0.9, 1.1), rng.uniform(0.93, 1.07), rng.uniform(0.85, 1.1)], dtype=np.float32)
    if rng.random() < BLUR_SHARE:
        img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(rng.uniform(0.3, max(0.3, BLUR_MAX))))
        arr = np.asarray(img).astype(np.float32)
    if rng.random() < 0.6:
        arr += np.random.default_rng(rng.randint(0, 2**31)).normal(0, rng.uniform(1, 8), arr.shape)
    img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    if rng.random() < 0.6:
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=rng.randint(35, 90))
        img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
    return img


def augment_real(crop: Image.Image, rng: random.Random) -> Image.Image:
    """A real labelled crop, re-cut and re-lit as another photo might show it."""
    w, h = crop.size
    j = lambda a: int(a * rng.uniform(-0.08, 0.08))
    c = crop.rotate(rng.uniform(-6, 6), resample=Image.BICUBIC, expand=False, fillcolor=(200, 200, 190))
    c = c.crop((j(w), j(h), w + j(w), h + j(h)))
    c = c.resize((CROP_W, CROP_H), Image.BILINEAR)
    return photo_effects(c, rng)


def parallel_map(fn, items: list, workers: int = 0) -> list:
    """`[fn(x) for x in items]` over worker processes (forked, so they share what the parent
    loaded, such as the face bank). workers 0: one per CPU; 1: in this process. Each item
    must carry its own seed so that the result does not depend on the number of workers."""
    import multiprocessing as mp
    import os

    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(items) < 2:
        return [fn(x) for x in items]
    with mp.get_context("fork").Pool(workers) as pool:
        return pool.map(fn, items, chunksize=max(1, len(items) // (workers * 8)))

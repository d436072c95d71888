"""Renders datasets/samples/*.jpg: photos of known winning hands made by the project, for the
README and the `scan` tests. Faces come only from the public-domain unicode-color artwork and
from faces drawn with CJK fonts, so the images may be committed (no GPL tileset is used).

    python tools/make_samples.py

Each sample has a .json beside it with the hand it shows.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image

import faces
import scenes

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "datasets" / "samples"

SAMPLES = [
    # name, standing tiles, winning tile, melds [(tiles, sideways position or None, concealed?)], notation, seed
    ("hand-concealed", "123m456p789s11sEE", "E", [], "123m456p789s11sEEE", 4),
    ("hand-melds", "789s11sEE", "E", [("123m", 0), ("555s", 1)], "[123m,1][555s,2]789s11sEEE", 8),
]


def classes(s: str) -> list[int]:
    out, digits = [], ""
    for c in s:
        if c.isdigit():
            digits += c
        elif c in "mps":
            out += [faces.CLASSES.index(d + c) for d in digits]
            digits = ""
        else:
            out.append(faces.CLASSES.index(c))
    return out


def main():
    faces.rendered_bank()  # the faces rendered first when there are none
    # Only redistributable faces: the public-domain unicode-color artwork.
    bank = {c: [] for c in faces.CLASSES}
    for style in sorted(faces.CACHE.iterdir()):
        if style.is_dir() and style.name == "unicode-uni":
            for p in style.glob("*.png"):
                bank[p.stem].append(Image.open(p).convert("RGBA"))
    OUT.mkdir(parents=True, exist_ok=True)
    for name, standing, win, melds, notation, seed in SAMPLES:
        rng = random.Random(seed)
        size = 1024
        s = scenes.Scene(size, rng, bank)
        s.img = scenes.background(size, rng).convert("RGBA")
        n = len(classes(standing)) + 1
        tw = min(74, (size - 160) // (n + 1))
        th, gap = int(tw * 1.35), 1
        x, y = 60, 330
        for c in classes(standing):
            s.place(x, y, tw, th, 0, False, c)
            x += tw + gap
        x += 40
        s.place(x, y, tw, th, 0, False, classes(win)[0])
        x, y = 60, y + th + 70
        for tiles, side in melds:
            for k, c in enumerate(classes(tiles)):
                if k == side:
                    x += s.place(x, y + (th - tw), tw, th, 1, False, c) + gap
                else:
                    s.place(x, y, tw, th, 0, False, c)
                    x += tw + gap
            x += 50
        img, _ = s.finish()
        img = img.resize((1280, 1280), Image.BICUBIC).crop((0, 160, 1280, 1120))
        img.save(OUT / f"{name}.jpg", quality=90)
        (OUT / f"{name}.json").write_text(json.dumps({"hand": notation, "made_by": "tools/make_samples.py", "faces": "unicode-color (public domain) and CJK-font faces"}, ensure_ascii=False) + "\n")
        print(OUT / f"{name}.jpg")


if __name__ == "__main__":
    main()

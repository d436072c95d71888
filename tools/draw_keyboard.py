"""Draws a computer keyboard lying on a table, photographed askew and a little out of focus:
a picture with no tile that suanfan must answer with "no tiles found". The test fixture
`tests/fixtures/keyboard.jpg` is `python3 tools/draw_keyboard.py --seed 10 --out
tests/fixtures/keyboard.jpg` (1,000 pixels wide). Session 51 drew seeds 0 to 23 at 12 MP:
three of them were read as one tile filling the picture (a box over the keys read 8p or 1s at
0.88 to 0.94) until a slanted tile-shaped box needed something found beside it
(`src/vision/whole.rs`).

Only DejaVu Sans (Debian `fonts-dejavu-core`) is read, for the keys' letters.
"""

from __future__ import annotations

import argparse
import random

from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONTS = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
]
ROWS = ["`1234567890-=", "QWERTYUIOP[]", "ASDFGHJKL;'", "ZXCVBNM,./"]


def keyboard(seed: int, size: tuple[int, int] = (4000, 3000)) -> Image.Image:
    """A keyboard of light or dark keys on a plain table, turned up to 40° and blurred."""
    rng = random.Random(seed)
    light = rng.random() < 0.6
    key_col = tuple(rng.randint(215, 250) for _ in range(3)) if light else tuple([rng.randint(25, 60)] * 3)
    text = (40, 40, 40) if light else (230, 230, 230)
    frame = rng.choice([(40, 40, 45), (200, 200, 205), (150, 150, 155), (25, 25, 28)])
    table = rng.choice([(150, 110, 80), (90, 90, 100), (200, 195, 185), (60, 90, 60), (120, 70, 50)])
    im = Image.new("RGB", size, table)
    d = ImageDraw.Draw(im)
    key = rng.randint(150, 300)
    gap = key // 8
    kx, ky = rng.randint(-200, 400), rng.randint(200, 1200)
    d.rounded_rectangle((kx - 60, ky - 60, kx + 15 * (key + gap) + 60, ky + 5 * (key + gap) + 60), 40, fill=frame)
    font = ImageFont.truetype(rng.choice(FONTS), int(key * 0.4))
    shade = tuple(max(0, v - 40) for v in key_col)
    for r, row in enumerate(ROWS):
        for c, ch in enumerate(row):
            x, y = kx + c * (key + gap) + r * key // 3, ky + r * (key + gap)
            d.rounded_rectangle((x, y, x + key, y + key), key // 9, fill=shade)
            d.rounded_rectangle((x + key // 20, y + key // 28, x + key - key // 20, y + key - key // 8), key // 10, fill=key_col)
            d.text((x + key // 6, y + key // 8), ch, font=font, fill=text)
    y = ky + 4 * (key + gap)
    d.rounded_rectangle((kx + 3 * (key + gap), y, kx + 10 * (key + gap), y + key), key // 9, fill=key_col)
    im = im.rotate(rng.uniform(-40, 40), resample=Image.BICUBIC, fillcolor=table)
    return im.filter(ImageFilter.GaussianBlur(rng.uniform(0.5, 3)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--out", required=True)
    ap.add_argument("--width", type=int, default=1000, help="the picture's width (drawn at 4000 and reduced)")
    args = ap.parse_args()
    im = keyboard(args.seed)
    im.thumbnail((args.width, args.width))
    im.save(args.out, quality=85)


if __name__ == "__main__":
    main()

"""Face bank: one image per tile face per artwork style, rendered at generation time.

Sources (read in place, never committed; see ../shared/data/README.md):
- ../shared/data/tile-art/unicode-color (public domain): all 42 faces, two variants;
- ../shared/data/tile-art/fluffystuff (CC0): 34 faces, riichi style, two variants;
- KDE mahjongg tilesets (Debian kdegames-mahjongg-data-kf5, GPL; rendered, not committed);
- procedural faces drawn with CJK fonts (Debian fonts-arphic-*, fonts-wqy-zenhei), and flowers
  and seasons painted the way real sets print them (bonus_art) or drawn in outline strokes
  (bonus_line_art).

Output: tools/.cache/faces/<style>/<class>.png, RGBA, about 150 px tall, face only (no body).
"""

from __future__ import annotations

import gzip
import math
import os
import random
import re
import shutil
import subprocess
import sys
from io import BytesIO
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parent
# ../shared/data beside the repository; SUANFAN_SHARED_DATA points elsewhere (a copy carried to
# a training machine, say).
SHARED = Path(os.environ.get("SUANFAN_SHARED_DATA") or ROOT.parent.parent / "shared" / "data")
CACHE = ROOT / ".cache" / "faces"

# Model class order (same as src/detection.rs).
CLASSES = (
    [f"{r}m" for r in range(1, 10)]
    + [f"{r}p" for r in range(1, 10)]
    + [f"{r}s" for r in range(1, 10)]
    + list("ESWNCFP")
    + [f"f{i}" for i in range(1, 5)]
    + [f"s{i}" for i in range(1, 5)]
)

FACE_H = 150


def _save(img: Image.Image, style: str, cls: str) -> None:
    out = CACHE / style
    out.mkdir(parents=True, exist_ok=True)
    img = img.convert("RGBA")
    bbox = img.getbbox()
    if bbox:
        img = img.crop(bbox)
    scale = FACE_H / max(1, img.height)
    img = img.resize((max(1, round(img.width * scale)), FACE_H), Image.LANCZOS)
    img.save(out / f"{cls}.png")


def _svg_to_png(svg: bytes, height: int = 300) -> Image.Image:
    import cairosvg

    png = cairosvg.svg2png(bytestring=svg, output_height=height)
    return Image.open(BytesIO(png)).convert("RGBA")


def unicode_color() -> int:
    names = {
        **{f"t_ch{r}": f"{r}m" for r in range(1, 10)},
        **{f"t_do{r}": f"{r}p" for r in range(1, 10)},
        **{f"t_ba{r}": f"{r}s" for r in range(1, 10)},
        "t_wi_east": "E", "t_wi_south": "S", "t_wi_west": "W", "t_wi_north": "N",
        "t_dr_red": "C", "t_dr_green": "F", "t_dr_white": "P",
        "t_fl_plum": "f1", "t_fl_orchid": "f2", "t_fl_bamboo": "f3", "t_fl_chrysanthemum": "f4",
        "t_se_spring": "s1", "t_se_summer": "s2", "t_se_fall": "s3", "t_se_winter": "s4",
    }
    n = 0
    for variant in ("uni", "unib"):
        path = SHARED / "tile-art" / "unicode-color" / f"{variant}.svg"
        if not path.exists():
            continue
        text = path.read_text()
        # Face symbols reuse shared glyphs (<use xlink:href="#t_gN">): keep every definition.
        defs = re.search(r"<defs>(.*)</defs>", text, re.S)
        all_defs = defs.group(1) if defs else ""
        for m in re.finditer(r'<svg id="(t_[a-z_0-9]+)" viewBox="([^"]+)">(.*?)</svg>', text, re.S):
            sid, vb, body = m.groups()
            if sid not in names:
                continue
            svg = (
                f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="{vb}">'
                f'<defs>{all_defs}</defs>{body}</svg>'
            )
            try:
                _save(_svg_to_png(svg.encode()), f"unicode-{variant}", names[sid])
                n += 1
            except Exception as e:  # a face that does not render is skipped, not fatal
                print(f"skip {variant} {sid}: {e}", file=sys.stderr)
    return n


def fluffystuff() -> int:
    names = {
        **{f"Man{r}": f"{r}m" for r in range(1, 10)},
        **{f"Pin{r}": f"{r}p" for r in range(1, 10)},
        **{f"Sou{r}": f"{r}s" for r in range(1, 10)},
        "Ton": "E", "Nan": "S", "Shaa": "W", "Pei": "N", "Chun": "C", "Hatsu": "F", "Haku": "P",
    }
    n = 0
    # "Black" draws a light engraving for dark tiles; Chinese sets are light, so only Regular.
    for variant in ("Regular",):
        d = SHARED / "tile-art" / "fluffystuff" / variant
        for stem, cls in names.items():
            p = d / f"{stem}.svg"
            if p.exists():
                try:
                    img = _svg_to_png(p.read_bytes())
                    _save(img, f"fluffy-{variant.lower()}", cls)
                    n += 1
                except Exception as e:
                    print(f"skip fluffystuff {stem}: {e}", file=sys.stderr)
    return n


def kde() -> int:
    base = Path("/usr/share/kmahjongglib/tilesets")
    if not base.exists():
        print("KDE tilesets not installed (apt-get install kdegames-mahjongg-data-kf5): skipped", file=sys.stderr)
        return 0
    ids = {
        **{f"CHARACTER_{r}": f"{r}m" for r in range(1, 10)},
        **{f"ROD_{r}": f"{r}p" for r in range(1, 10)},
        **{f"BAMBOO_{r}": f"{r}s" for r in range(1, 10)},
        "WIND_1": "N", "WIND_2": "S", "WIND_3": "E", "WIND_4": "W",
        "DRAGON_1": "P", "DRAGON_2": "F", "DRAGON_3": "C",
        "FLOWER_1": "f1", "FLOWER_2": "f2", "FLOWER_3": "f4", "FLOWER_4": "f3",
        **{f"SEASON_{i}": f"s{i}" for i in range(1, 5)},
    }
    n = 0
    for name in ("default", "classic", "traditional"):
        p = base / f"{name}.svgz"
        if not p.exists():
            continue
        svg = gzip.decompress(p.read_bytes())
        tmp = CACHE / f"_{name}.svg"
        tmp.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(svg)
        for sid, cls in ids.items():
            if name == "classic" and cls in ("C", "F", "P"):
                continue  # drawn as creatures, unlike any Chinese set
            if name == "classic" and cls in ("f1", "f2"):
                cls = "f2" if cls == "f1" else "f1"
            try:
                png = subprocess.run(
                    ["rsvg-convert", "-i", sid, "-h", "300", str(tmp)], capture_output=True, check=True
                ).stdout
                _save(Image.open(BytesIO(png)), f"kde-{name}", cls)
                n += 1
            except Exception as e:
                print(f"skip kde {name} {sid}: {e}", file=sys.stderr)
        tmp.unlink()
    return n


FONTS = [
    "/usr/share/fonts/truetype/arphic/ukai.ttc",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
]
NUMERALS = "一二三四五六七八九"
HONOR_CHARS = {"E": "東", "S": "南", "W": "西", "N": "北", "C": "中", "F": "發"}
BONUS_CHARS = {"f1": "梅", "f2": "蘭", "f3": "竹", "f4": "菊", "s1": "春", "s2": "夏", "s3": "秋", "s4": "冬"}
BLUE, RED, GREEN, BLACK = (25, 40, 140), (190, 20, 25), (20, 120, 50), (20, 20, 20)


def _text(draw, xy, ch, font, fill):
    draw.text(xy, ch, font=font, fill=fill, anchor="mm")


def _dots(draw, r: int, w: int, h: int, rng: random.Random):
    pos = {
        1: [(0.5, 0.5)], 2: [(0.5, 0.28), (0.5, 0.72)], 3: [(0.25, 0.22), (0.5, 0.5), (0.75, 0.78)],
        4: [(0.28, 0.28), (0.72, 0.28), (0.28, 0.72), (0.72, 0.72)],
        5: [(0.28, 0.25), (0.72, 0.25), (0.5, 0.5), (0.28, 0.75), (0.72, 0.75)],
        6: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.55), (0.7, 0.55), (0.3, 0.82), (0.7, 0.82)],
        7: [(0.22, 0.15), (0.5, 0.25), (0.78, 0.35), (0.3, 0.6), (0.7, 0.6), (0.3, 0.85), (0.7, 0.85)],
        8: [(0.3, y) for y in (0.14, 0.38, 0.62, 0.86)] + [(0.7, y) for y in (0.14, 0.38, 0.62, 0.86)],
        9: [(x, y) for y in (0.18, 0.5, 0.82) for x in (0.2, 0.5, 0.8)],
    }[r]
    rad = {1: 0.36, 2: 0.2, 3: 0.15, 4: 0.18}.get(r, 0.12) * w
    colors = [BLUE, GREEN, RED]
    for i, (x, y) in enumerate(pos):
        c = colors[(i + rng.randint(0, 2)) % 3] if r > 1 else RED
        cx, cy = x * w, y * h
        draw.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], outline=c, width=max(2, int(rad * 0.3)))
        draw.ellipse([cx - rad * 0.35, cy - rad * 0.35, cx + rad * 0.35, cy + rad * 0.35], fill=c)


def _bamboo(draw, r: int, w: int, h: int, rng: random.Random):
    if r == 1:
        # The bird of 1s: an abstract green and red shape.
        draw.ellipse([w * 0.25, h * 0.3, w * 0.75, h * 0.75], fill=GREEN)
        draw.polygon([(w * 0.5, h * 0.15), (w * 0.7, h * 0.35), (w * 0.4, h * 0.35)], fill=RED)
        draw.line([(w * 0.5, h * 0.75), (w * 0.35, h * 0.92)], fill=BLUE, width=4)
        return
    cols = {2: 1, 3: 2, 4: 2, 5: 3, 6: 3, 7: 3, 8: 4, 9: 3}[r]
    rows = {2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3, 8: 2, 9: 3}[r]
    n = 0
    sw = w / (cols + 1) * 0.35
    for j in range(rows):
        for i in range(cols):
            if n >= r:
                break
            cx = w * (i + 1) / (cols + 1)
            y0, y1 = h * (0.08 + j * 0.9 / rows), h * (0.08 + (j + 1) * 0.9 / rows) - h * 0.04
            c = RED if (r in (5, 7, 9) and i == cols // 2 and rng.random() < 0.7) else GREEN
            draw.rounded_rectangle([cx - sw, y0, cx + sw, y1], radius=sw, fill=c)
            draw.line([(cx - sw, (y0 + y1) / 2), (cx + sw, (y0 + y1) / 2)], fill=(240, 240, 230), width=2)
            n += 1


def procedural(n_styles: int = 3, seed: int = 7) -> int:
    rng = random.Random(seed)
    fonts = [f for f in FONTS if Path(f).exists()]
    if not fonts:
        print("no CJK fonts (apt-get install fonts-arphic-ukai fonts-arphic-uming fonts-wqy-zenhei): skipped", file=sys.stderr)
        return 0
    n = 0
    for k in range(n_styles * len(fonts)):
        fpath = fonts[k % len(fonts)]
        W, H = 120, 160
        big = ImageFont.truetype(fpath, 78)
        mid = ImageFont.truetype(fpath, 62)
        small = ImageFont.truetype(fpath, 22)
        numeral_color = rng.choice([BLUE, BLACK, BLUE])
        wind_color = rng.choice([BLUE, BLACK, (20, 60, 30)])
        for cls in CLASSES:
            img = Image.new("RGBA", (W, H), (0, 0, 0, 0))
            d = ImageDraw.Draw(img)
            if cls.endswith("m"):
                r = int(cls[0])
                _text(d, (W / 2, H * 0.3), NUMERALS[r - 1], mid, numeral_color)
                _text(d, (W / 2, H * 0.72), "萬", mid, RED)
            elif cls.endswith("p") and cls[0].isdigit():
                _dots(d, int(cls[0]), W, H, rng)
            elif cls.endswith("s") and cls[0].isdigit():
                _bamboo(d, int(cls[0]), W, H, rng)
            elif cls in HONOR_CHARS:
                color = {"C": RED, "F": GREEN}.get(cls, wind_color)
                _text(d, (W / 2, H / 2), HONOR_CHARS[cls], big, color)
            elif cls == "P":
                m = rng.uniform(0.12, 0.22)
                d.rectangle([W * m, H * m, W * (1 - m), H * (1 - m)], outline=BLUE, width=rng.randint(4, 9))
                if rng.random() < 0.5:
                    d.rectangle([W * (m + 0.08), H * (m + 0.06), W * (1 - m - 0.08), H * (1 - m - 0.06)], outline=BLUE, width=2)
            else:
                color = GREEN if cls.startswith("f") else RED
                _text(d, (W / 2, H * 0.58), BONUS_CHARS[cls], big, color)
                _text(d, (W * 0.2, H * 0.12), str(BONUS_NUMBER[cls]), small, BLUE)
            _save(img, f"proc-{k}", cls)
            n += 1
    return n

# The numbers most sets print on bonus tiles: 梅1 蘭2 菊3 竹4, 春1 夏2 秋3 冬4. Sets differ, so the
# drawn faces follow this only most of the time and the character must be read as well.
BONUS_NUMBER = {"f1": 1, "f2": 2, "f3": 4, "f4": 3, "s1": 1, "s2": 2, "s3": 3, "s4": 4}
BONUS_VARIANTS = {"f2": "蘭兰", "s2": "夏"}
PINK, ORANGE, PURPLE = (215, 70, 120), (225, 130, 30), (150, 50, 140)


def _curve(d, p0, p1, bend, fill, width, steps=12):
    """A quadratic stroke from p0 to p1 bowed sideways by `bend` pixels."""
    (x0, y0), (x1, y1) = p0, p1
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    cx, cy = mx - (y1 - y0) / length * bend, my + (x1 - x0) / length * bend
    pts = []
    for i in range(steps + 1):
        t = i / steps
        pts.append(((1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t * t * x1, (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t * t * y1))
    d.line(pts, fill=fill, width=width, joint="curve")


def _blossom(d, x, y, r, petals, color, rng, filled):
    for a in range(petals):
        t = a * 2 * math.pi / petals + rng.uniform(-0.2, 0.2)
        px, py = x + r * math.cos(t), y + r * math.sin(t)
        box = [px - r * 0.7, py - r * 0.7, px + r * 0.7, py + r * 0.7]
        if filled:
            d.ellipse(box, fill=color)
        else:
            d.ellipse(box, outline=color, width=max(2, int(r / 4)))
    d.ellipse([x - r * 0.4, y - r * 0.4, x + r * 0.4, y + r * 0.4], fill=rng.choice([color, ORANGE, (230, 200, 40)]))


def _plant(d, kind, W, H, rng, lw, leaf, flower, filled):
    """A painted plant in the lower part of a bonus face."""
    top, bottom = H * rng.uniform(0.3, 0.42), H * 0.97
    cx = W * rng.uniform(0.4, 0.6)
    if kind == "bamboo":
        for k in range(rng.randint(2, 4)):
            x = cx + (k - 1) * W * rng.uniform(0.12, 0.2)
            y0 = top + rng.uniform(0, H * 0.15)
            d.line([(x, y0), (x + rng.uniform(-6, 6), bottom)], fill=leaf, width=lw + 2)
            for y in np.linspace(y0, bottom, rng.randint(3, 5))[1:-1]:
                d.line([(x - lw * 2, y), (x + lw * 2, y)], fill=leaf, width=max(1, lw - 1))
                s = rng.choice([-1, 1])
                _curve(d, (x, y), (x + s * W * 0.25, y - H * 0.08), rng.uniform(-8, 8), leaf, lw)
        return
    if kind == "orchid":
        for _ in range(rng.randint(4, 7)):
            x1 = cx + rng.uniform(-0.4, 0.4) * W
            _curve(d, (cx + rng.uniform(-6, 6), bottom), (x1, top + rng.uniform(0, H * 0.3)), rng.uniform(-25, 25), leaf, lw)
        for _ in range(rng.randint(1, 2)):
            _blossom(d, cx + rng.uniform(-20, 20), top + rng.uniform(H * 0.1, H * 0.3), rng.uniform(6, 10), 3, flower, rng, filled)
        return
    # Plum, chrysanthemum or any flowering plant: stems, leaves, one to three blossoms.
    n = rng.randint(1, 3)
    for i in range(n):
        bx = cx + rng.uniform(-0.25, 0.25) * W
        by = top + rng.uniform(0, H * 0.25)
        _curve(d, (cx + rng.uniform(-8, 8), bottom), (bx, by), rng.uniform(-20, 20), leaf, lw)
        for _ in range(rng.randint(1, 3)):
            ly = rng.uniform(by + 10, bottom - 5)
            s = rng.choice([-1, 1])
            lx = bx + (cx - bx) * (ly - by) / max(1.0, bottom - by)
            tip = (lx + s * rng.uniform(15, 30), ly - rng.uniform(5, 20))
            if rng.random() < 0.5:
                d.polygon([(lx, ly), tip, (lx + s * 6, ly + 8)], fill=leaf)
            else:
                _curve(d, (lx, ly), tip, rng.uniform(-6, 6), leaf, lw)
        petals = {"chrys": rng.randint(8, 12), "plum": 5}.get(kind, rng.randint(4, 7))
        r = rng.uniform(8, 15) if kind != "chrys" else rng.uniform(11, 17)
        _blossom(d, bx, by, r, petals, flower, rng, filled)


BONUS_CLASSES = [c for c in CLASSES if c[0] in "fs" and c[1:].isdigit()]
FLOWER_PLANT = {"f1": "plum", "f2": "orchid", "f3": "bamboo", "f4": "chrys"}


def _bonus_plant(cls: str, rng: random.Random, own_share: float) -> str:
    """The plant a bonus face shows: a flower's own plant that share of the time, else any; a
    season's any (real sets print any flower on them)."""
    if cls.startswith("f"):
        return FLOWER_PLANT[cls] if rng.random() < own_share else rng.choice(["plum", "chrys", "any"])
    return rng.choice(["plum", "chrys", "any", "any", "orchid"])


def _bonus_texts(cls: str, rng: random.Random, chinese_numbers: bool) -> tuple[str, str]:
    """A bonus face's character and its number (mostly the number most sets print)."""
    number = BONUS_NUMBER[cls] if rng.random() < 0.85 else int(cls[1])
    text_number = NUMERALS[number - 1] if chinese_numbers else str(number)
    return rng.choice(BONUS_VARIANTS.get(cls, BONUS_CHARS[cls])), text_number


def bonus_art(per_class: int = 24, seed: int = 11) -> int:
    """Flowers and seasons drawn the way real sets print them: a painted plant, the character
    small in one top corner and a number (1-4 or 一-四) in the other. The plant of a season
    carries no information (real sets use any flower), so the model must read the corners."""
    fonts = [f for f in FONTS if Path(f).exists()]
    if not fonts:
        return 0
    rng = random.Random(seed)
    n = 0
    for k in range(per_class):
        font = fonts[k % len(fonts)]
        char_font = ImageFont.truetype(font, rng.randint(32, 42))
        num_font = ImageFont.truetype(fonts[rng.randrange(len(fonts))], rng.randint(30, 42))
        chinese_numbers = rng.random() < 0.25
        lw = rng.randint(2, 4)
        leaf = rng.choice([GREEN, (30, 100, 40), (60, 140, 60)])
        flower = rng.choice([RED, RED, PINK, ORANGE, PURPLE, BLUE])
        filled = rng.random() < 0.4
        char_color = rng.choice([BLACK, BLUE, RED, GREEN])
        num_color = rng.choice([RED, BLUE, BLACK])
        only_char = rng.random() < 0.12
        for cls in BONUS_CLASSES:
            W, H = 120, 160
            img = Image.new("RGBA", (W, H), (0, 0, 0, 0))
            d = ImageDraw.Draw(img)
            _plant(d, _bonus_plant(cls, rng, 0.7), W, H, rng, lw, leaf, flower, filled)
            ch, text_number = _bonus_texts(cls, rng, chinese_numbers)
            char_left = cls.startswith("f") if rng.random() < 0.75 else not cls.startswith("f")
            cy = H * rng.uniform(0.11, 0.15)
            cx_char = W * (0.2 if char_left else 0.8)
            if only_char:
                cx_char = W * rng.choice([0.2, 0.8])
            _text(d, (cx_char, cy), ch, char_font, char_color)
            if not only_char:
                _text(d, (W - cx_char, cy), text_number, num_font, num_color)
            _save(img, f"bonus-{k}", cls)
            n += 1
    return n


def _leaf_outline(d, base, tip, width, color, fill, lw):
    """An almond-shaped leaf from `base` to `tip`, outlined (and filled or not) as printed."""
    (x0, y0), (x1, y1) = base, tip
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    nx, ny = -(y1 - y0) / length, (x1 - x0) / length
    side = []
    for sgn in (1, -1):
        for i in range(9):
            t = i / 8 if sgn == 1 else 1 - i / 8
            bulge = math.sin(math.pi * t) * width * sgn
            side.append((x0 + (x1 - x0) * t + nx * bulge, y0 + (y1 - y0) * t + ny * bulge))
    d.polygon(side, fill=fill, outline=color, width=lw)
    d.line([base, tip], fill=color, width=max(1, lw - 1))


def _rose(d, x, y, r, color, lw, rng):
    """A printed blossom in outline: a ring of round petals or a rose's nested curls."""
    if rng.random() < 0.5:
        petals = rng.randint(5, 9)
        for a in range(petals):
            t = a * 2 * math.pi / petals
            px, py = x + r * 0.62 * math.cos(t), y + r * 0.62 * math.sin(t)
            d.ellipse([px - r * 0.42, py - r * 0.42, px + r * 0.42, py + r * 0.42], outline=color, width=lw)
        d.ellipse([x - r * 0.3, y - r * 0.3, x + r * 0.3, y + r * 0.3], outline=color, width=lw)
        return
    for k in range(rng.randint(2, 4)):
        rr = r * (1 - k * 0.24)
        start = rng.uniform(0, 360)
        d.arc([x - rr, y - rr * 0.85, x + rr, y + rr * 0.85], start, start + rng.uniform(200, 320), fill=color, width=lw)


def _vase(d, cx, bottom, W, H, color, lw, rng):
    """A basket or bowl the plant stands in (winter and other seasons often have one)."""
    w, h = W * rng.uniform(0.22, 0.34), H * rng.uniform(0.1, 0.16)
    top = bottom - h
    d.polygon([(cx - w, top), (cx + w, top), (cx + w * 0.7, bottom), (cx - w * 0.7, bottom)], outline=color, width=lw)
    for i in range(1, rng.randint(2, 4)):
        y = top + h * i / 4
        d.line([(cx - w * (1 - 0.3 * i / 4), y), (cx + w * (1 - 0.3 * i / 4), y)], fill=color, width=max(1, lw - 1))
    return top


def _line_plant(d, kind, W, H, rng, lw, stem, blossom, leaf_fill):
    """A plant printed in outline, as most real sets' bonus tiles draw it: a stem and leaves in
    dark strokes, blossoms as outlined petals or rose curls, sometimes standing in a basket."""
    top, bottom = H * rng.uniform(0.3, 0.4), H * rng.uniform(0.9, 0.97)
    cx = W * rng.uniform(0.42, 0.58)
    if rng.random() < 0.25:
        bottom = _vase(d, cx, bottom, W, H, stem, lw, rng)
    if kind == "bamboo":
        for k in range(rng.randint(2, 3)):
            x = cx + (k - 1) * W * rng.uniform(0.12, 0.18)
            y0 = top + rng.uniform(0, H * 0.12)
            sw = rng.uniform(4, 7)
            d.rectangle([x - sw, y0, x + sw, bottom], outline=stem, width=lw)
            for y in np.linspace(y0, bottom, rng.randint(3, 5))[1:-1]:
                d.line([(x - sw, y), (x + sw, y)], fill=stem, width=lw)
                s = rng.choice([-1, 1])
                _leaf_outline(d, (x, y), (x + s * W * 0.25, y - H * 0.07), 7, stem, leaf_fill, max(1, lw - 1))
        return
    if kind == "orchid":
        for _ in range(rng.randint(3, 6)):
            x1 = cx + rng.uniform(-0.38, 0.38) * W
            _curve(d, (cx + rng.uniform(-5, 5), bottom), (x1, top + rng.uniform(0, H * 0.3)), rng.uniform(-22, 22), stem, lw)
        _rose(d, cx + rng.uniform(-18, 18), top + rng.uniform(H * 0.08, H * 0.25), rng.uniform(12, 18), blossom, lw, rng)
        return
    n = rng.randint(1, 3)
    for i in range(n):
        bx = cx + (rng.uniform(-0.22, 0.22) * W if n > 1 else rng.uniform(-8, 8))
        by = top + rng.uniform(H * 0.02, H * 0.22)
        _curve(d, (cx + rng.uniform(-6, 6), bottom), (bx, by), rng.uniform(-18, 18), stem, lw)
        for _ in range(rng.randint(2, 4)):
            ly = rng.uniform(by + 15, bottom - 4)
            s = rng.choice([-1, 1])
            lx = bx + (cx - bx) * (ly - by) / max(1.0, bottom - by)
            tip = (lx + s * rng.uniform(20, 38), ly - rng.uniform(4, 24))
            _leaf_outline(d, (lx, ly), tip, rng.uniform(6, 11), stem, leaf_fill, max(1, lw - 1))
        r = rng.uniform(15, 24) if i == 0 else rng.uniform(9, 15)
        _rose(d, bx, by, r, blossom, lw, rng)


def bonus_line_art(per_class: int = 48, seed: int = 23) -> int:
    """Flowers and seasons as most real sets print them (session 46): the plant drawn in outline
    strokes (dark green or black stems and leaves, a red or pink blossom of outlined petals or
    rose curls, sometimes in a basket), the character and the number (1-4 or 一-四) bold in the
    two top corners. The filled paintings of `bonus_art` alone left the classifier reading some
    unseen sets' seasons as 1s or 1p."""
    fonts = [f for f in FONTS if Path(f).exists()]
    if not fonts:
        return 0
    rng = random.Random(seed)
    n = 0
    for k in range(per_class):
        size = rng.randint(30, 44)
        char_font = ImageFont.truetype(fonts[k % len(fonts)], size)
        num_font = ImageFont.truetype(fonts[rng.randrange(len(fonts))], rng.randint(size - 6, size + 2))
        bold = rng.choice([0, 1, 1, 2])
        chinese_numbers = rng.random() < 0.25
        lw = rng.randint(2, 4)
        stem = rng.choice([(20, 90, 40), (30, 110, 50), (25, 60, 35), BLACK])
        blossom = rng.choice([RED, RED, RED, PINK, (200, 40, 60)])
        leaf_fill = rng.choice([None, None, (90, 170, 90), (150, 200, 140)])
        char_color = rng.choice([RED, RED, BLACK, BLUE, GREEN])
        num_color = rng.choice([BLACK, BLUE, RED, BLACK])
        char_left_flowers = rng.random() < 0.6
        margin = rng.uniform(0.17, 0.25)
        for cls in BONUS_CLASSES:
            W, H = 120, 160
            img = Image.new("RGBA", (W, H), (0, 0, 0, 0))
            d = ImageDraw.Draw(img)
            _line_plant(d, _bonus_plant(cls, rng, 0.6), W, H, rng, lw, stem, blossom, leaf_fill)
            ch, text_number = _bonus_texts(cls, rng, chinese_numbers)
            char_left = char_left_flowers if cls.startswith("f") else rng.random() < 0.3
            cy = H * rng.uniform(0.09, 0.13)
            x_char = W * (margin if char_left else 1 - margin)
            d.text((x_char, cy), ch, font=char_font, fill=char_color, anchor="mm", stroke_width=bold, stroke_fill=char_color)
            d.text((W - x_char, cy), text_number, font=num_font, fill=num_color, anchor="mm", stroke_width=bold, stroke_fill=num_color)
            _save(img, f"bonus-line-{k}", cls)
            n += 1
    return n


def build() -> None:
    # Start clean: a style left over from an earlier version of this script must not train.
    shutil.rmtree(CACHE, ignore_errors=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    counts = {
        "unicode-color": unicode_color(),
        "fluffystuff": fluffystuff(),
        "kde": kde(),
        "procedural": procedural(),
        "bonus art": bonus_art(),
        "bonus line art": bonus_line_art(),
    }
    print("faces rendered:", counts)
    missing = [name for name, n in counts.items() if n == 0]
    if missing and not os.environ.get("SUANFAN_PARTIAL_BANK"):
        # A bank without them trains a poorer classifier without saying so: refuse, and leave
        # no partial bank behind for the next run to pick up.
        shutil.rmtree(CACHE, ignore_errors=True)
        sys.exit(
            f"the face bank has no {', '.join(missing)} faces: install the packages tools/README.md names "
            "(apt-get install fonts-arphic-ukai fonts-arphic-uming fonts-wqy-zenhei kdegames-mahjongg-data-kf5 librsvg2-bin), "
            "or set SUANFAN_PARTIAL_BANK=1 to train on what there is"
        )


def load_bank() -> dict[str, list[Image.Image]]:
    """Every rendered face, by class."""
    bank: dict[str, list[Image.Image]] = {c: [] for c in CLASSES}
    for style in sorted(CACHE.iterdir()) if CACHE.exists() else []:
        if not style.is_dir():
            continue
        for p in style.glob("*.png"):
            if p.stem in bank:
                bank[p.stem].append(Image.open(p).convert("RGBA"))
    return bank


def rendered_bank() -> dict[str, list[Image.Image]]:
    """Every rendered face, by class; rendered first (`build`) when there is none."""
    bank = load_bank()
    if not any(bank.values()):
        build()
        bank = load_bank()
    return bank


if __name__ == "__main__":
    build()

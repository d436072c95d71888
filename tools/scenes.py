"""Synthetic table scenes for the tile localiser, reproducible from a seed.

A scene is a square image with tiles laid as players and sellers lay them:
- a hand: the standing row (tiles touching), melds to its right or in front with the claimed
  tile sideways, concealed kongs with two backs, the winning tile set apart, bonus tiles aside;
- a tight grid of a whole set, as in shop photos;
- scattered tiles, some sideways or face down;
on cloth, wood, felt, glass or plain tables, under a camera from top-down to oblique, with
blur, noise and JPEG. Labels: each tile's four corners (clockwise from the face's top left),
face-down flag, and orientation (0 up, 1 right, 2 down, 3 left: where the face's top points).
"""

from __future__ import annotations

import math
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

import faces
import synth

BACK_COLORS = [(30, 120, 70), (30, 80, 160), (220, 170, 40), (170, 40, 40), (240, 240, 235), (60, 60, 60), (120, 60, 160)]
if os.environ.get("SUANFAN_NO_WHITE_BACKS"):  # an experiment: no white-backed sets
    BACK_COLORS.remove((240, 240, 235))


def background(size: int, rng: random.Random) -> Image.Image:
    kind = rng.random()
    base = np.zeros((size, size, 3), np.float32)
    if kind < 0.3:  # felt / cloth
        c = rng.choice([(20, 110, 60), (20, 60, 120), (90, 30, 40), (40, 40, 45), (130, 120, 100)])
        base[:] = c
        base += np.random.default_rng(rng.randint(0, 2**31)).normal(0, 8, base.shape)
    elif kind < 0.55:  # wood: stripes
        c = np.array(rng.choice([(150, 100, 60), (110, 70, 40), (190, 150, 100)]), np.float32)
        y = np.linspace(0, rng.uniform(10, 40), size)[:, None]
        stripes = (np.sin(y + np.random.default_rng(rng.randint(0, 2**31)).normal(0, 0.3, (size, size))) * 18)[..., None]
        base[:] = c + stripes
    elif kind < 0.8:  # plain table, white or grey
        v = rng.randint(170, 250)
        base[:] = (v, v, v - rng.randint(0, 15))
    else:  # glass / dark
        v = rng.randint(20, 90)
        base[:] = (v, v, v + rng.randint(0, 20))
    return uneven_light(base, rng)


def uneven_light(base: np.ndarray, rng: random.Random) -> Image.Image:
    """A square table (float RGB, changed in place) under light falling off from one side to
    the other."""
    g = np.linspace(rng.uniform(0.7, 1.0), rng.uniform(0.9, 1.2), base.shape[0])
    base *= g[:, None, None] if rng.random() < 0.5 else g[None, :, None]
    return Image.fromarray(np.clip(base, 0, 255).astype(np.uint8))


def tile_sprite(face: Image.Image | None, tw: int, th: int, rng: random.Random, back: tuple, down: bool):
    """An upright tile seen from above and a little in front: face (or back) plus thickness.
    `face` is a face-bank image (RGBA, drawn on an ivory body here) or a real photo crop of a
    tile's top (RGB, used as the whole top)."""
    depth = max(1, int(th * rng.uniform(0.06, 0.2)))
    img = Image.new("RGBA", (tw, th + depth), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    r = max(1, tw // 8)
    if face is not None and not down and face.mode == "RGB":
        d.rounded_rectangle([0, depth, tw - 1, th + depth - 1], radius=r, fill=back + (255,))
        d.rounded_rectangle([0, depth // 2, tw - 1, th + depth // 2 - 1], radius=r, fill=(205, 200, 185, 255))
        mask = Image.new("L", (tw, th), 0)
        ImageDraw.Draw(mask).rounded_rectangle([0, 0, tw - 1, th - 1], radius=r, fill=255)
        img.paste(face.resize((tw, th), Image.BILINEAR), (0, 0), mask)
        return img, depth
    # Thickness: the coloured back layer and the ivory layer below the face.
    d.rounded_rectangle([0, depth, tw - 1, th + depth - 1], radius=r, fill=back + (255,))
    if down:
        d.rounded_rectangle([0, 0, tw - 1, th - 1], radius=r, fill=synth._jitter_color(back, rng, 15) + (255,))
        # A little texture and gloss on the back.
        d.line([(tw * 0.2, th * 0.15), (tw * 0.8, th * 0.15)], fill=(255, 255, 255, 60), width=max(1, tw // 12))
    else:
        ivory = synth._jitter_color(rng.choice(synth.BODY_COLORS), rng, 10)
        d.rounded_rectangle([0, depth // 2, tw - 1, th + depth // 2 - 1], radius=r, fill=tuple(int(v * 0.85) for v in ivory) + (255,))
        d.rounded_rectangle([0, 0, tw - 1, th - 1], radius=r, fill=ivory + (255,))
        if face is not None:
            fh = int(th * rng.uniform(0.7, 0.86))
            fw = min(int(face.width * fh / face.height), int(tw * 0.9))
            fh = min(fh, int(face.height * fw / max(1, face.width)))
            f = face.resize((max(1, fw), max(1, fh)), Image.BILINEAR)
            img.alpha_composite(f, ((tw - fw) // 2, (th - fh) // 2))
    return img, depth


def _body_side(tw: int, h: int, box: list, rng: random.Random, back: tuple):
    """A clear tw×h sprite with the tile's body side seen beside its face: `box`, rounded, in
    the back's colour. Returns the sprite, its drawer and an ivory for the layer next to the
    face."""
    img = Image.new("RGBA", (tw, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle(box, radius=max(1, tw // 8), fill=synth._jitter_color(back, rng, 12) + (255,))
    return img, d, synth._jitter_color(rng.choice(synth.BODY_COLORS), rng, 10)


def standing_sprite(face: Image.Image | None, tw: int, th: int, rng: random.Random, back: tuple, elevation: float):
    """A standing tile seen from the seat, `elevation` radians above the table: the face, fore-
    shortened to cos(elevation) of its height, under the tile's top side (the ivory layer next to
    the face, the back's colour beyond it), which shows sin(elevation) of the tile's depth.
    Returns the sprite and the height of the top side (the face starts there)."""
    fh = max(4, round(th * math.cos(elevation)))
    top = max(2, round(tw * rng.uniform(0.6, 0.75) * math.sin(elevation)))
    front, _ = tile_sprite(face, tw, fh, rng, back, False)
    r = max(1, tw // 8)
    img, d, ivory = _body_side(tw, top + fh, [0, 0, tw - 1, top + r], rng, back)
    d.rectangle([0, int(top * rng.uniform(0.3, 0.6)), tw - 1, top + r], fill=ivory + (255,))
    img.alpha_composite(front.crop((0, 0, tw, fh)), (0, top))
    return img, top


def low_flat_sprite(face: Image.Image | None, tw: int, th: int, rng: random.Random, back: tuple, elevation: float):
    """A tile lying face up seen from a low seat: the face squeezed to sin(elevation) of its
    length, above the tile's near side (ivory, then the back's colour), cos(elevation) of its
    depth. Returns the sprite and the face's height."""
    fh = max(3, round(th * math.sin(elevation)))
    side = max(2, round(tw * rng.uniform(0.6, 0.75) * math.cos(elevation)))
    front, _ = tile_sprite(face, tw, fh, rng, back, False)
    r = max(1, tw // 8)
    img, d, ivory = _body_side(tw, fh + side, [0, fh - r, tw - 1, fh + side - 1], rng, back)
    shade = tuple(int(v * rng.uniform(0.7, 0.9)) for v in ivory)
    d.rectangle([0, fh - r, tw - 1, fh + int(side * rng.uniform(0.35, 0.6))], fill=shade + (255,))
    img.alpha_composite(front.crop((0, 0, tw, fh)), (0, 0))
    return img, fh


def seat_view(img: Image.Image, standing: list, melds: list, rng: random.Random, tw: int, back: tuple, turned: list | None = None) -> list[dict]:
    """Draws onto the RGBA `img` what a player photographs from the seat, 15-30 degrees above
    the table: the standing hand (`standing`, (class, face image) each), tiles touching, seen
    from the front with their tops showing, the last tile a little apart, and the melds
    (`melds`, lists of the same) lying in front of it, seen low. Tiles that would leave the
    picture are not drawn. `turned`, when given, holds for each meld the place of its claimed
    tile, laid sideways (None: none turned). Returns the labels of the tiles drawn (corners of
    each face, clockwise from its top left), as Scene labels its tiles."""
    W, H = img.size
    elevation = math.radians(rng.uniform(15, 30))
    th = int(tw / rng.uniform(0.72, 0.8))
    tiles = []

    def put(sprite, x, y, face_top, face_h, cls, orientation=0):
        if x < 0 or y < 0 or x + sprite.width > W or y + sprite.height > H:
            return
        sh = Image.new("RGBA", sprite.size, (0, 0, 0, 0))
        sh.putalpha(sprite.getchannel("A").point(lambda a: a // 3))
        img.alpha_composite(sh.filter(ImageFilter.GaussianBlur(max(1, tw // 12))), (x + max(1, tw // 20), y + max(1, tw // 10)))
        img.alpha_composite(sprite, (x, y))
        x1, y0, y1 = x + sprite.width, y + face_top, y + face_top + face_h
        corners = [(x, y0), (x1, y0), (x1, y1), (x, y1)]
        k = (4 - orientation) % 4  # as Scene.place orders the corners of a turned face
        corners = corners[k:] + corners[:k]
        tiles.append({"corners": corners, "face_down": False, "orientation": orientation, "cls": cls})

    x0 = rng.randint(-tw * 2, max(-tw, W - (len(standing) + 1) * tw))
    y0 = rng.randint(int(H * 0.1), int(H * 0.5))
    x, bottom = x0, y0
    for k, (cls, face) in enumerate(standing):
        if k == len(standing) - 1:
            x += int(tw * rng.uniform(0.0, 0.8))  # the tile just drawn or claimed, set apart
        sprite, top = standing_sprite(face, tw, th, rng, back, elevation)
        put(sprite, x, y0, top, sprite.height - top, cls)
        x += tw + rng.choice([0, 0, 1, max(1, tw // 30)])
        bottom = y0 + sprite.height
    low = min(math.radians(80), elevation + math.radians(rng.uniform(5, 20)))
    mw = int(tw * rng.uniform(1.0, 1.15))
    span = sum(len(g) for g in melds) * (mw + 2) + len(melds) * mw
    mx, my = min(x0 + rng.randint(-tw, 2 * tw), W - span - tw // 2), bottom + int(th * rng.uniform(0.1, 0.5))
    mx = max(mx, tw // 4)
    mh = int(mw * th / tw)
    for g, group in enumerate(melds):
        for k, (cls, face) in enumerate(group):
            if turned and turned[g] == k:
                # The claimed tile lies across the meld: its face is as wide as the others are
                # long and as deep as they are wide, flush with their near side.
                quarter = rng.choice([1, 3])
                sprite, fh = low_flat_sprite(face.rotate(-90 * quarter, expand=True), mh, mw, rng, back, low)
                put(sprite, mx, my + round(mh * math.sin(low)) - fh, 0, fh, cls, quarter)
                mx += mh + rng.choice([0, 1, 2])
                continue
            sprite, fh = low_flat_sprite(face, mw, mh, rng, back, low)
            put(sprite, mx, my, 0, fh, cls)
            mx += mw + rng.choice([0, 1, 2])
        mx += int(mw * rng.uniform(0.3, 0.8))
    return tiles


# Share of drawn scenes laid on a piece of a real picture (a wallpaper, a texture) instead of a
# drawn table, and where that piece comes from (a function of rng and size). Both are set by
# `train_detector.py --picture-tables` (the piece: `realdata.backdrop_piece`); with a share of
# 0 every scene is drawn as before.
PICTURE_TABLES = 0.0
TABLE_PICTURE = None


def table(size: int, rng: random.Random) -> Image.Image:
    """The table under a drawn scene: a piece of a real picture (PICTURE_TABLES of them), under
    uneven light, else a drawn table (`background`)."""
    if PICTURE_TABLES and TABLE_PICTURE is not None and rng.random() < PICTURE_TABLES:
        return uneven_light(np.array(TABLE_PICTURE(rng, size), np.float64), rng)
    return background(size, rng)


class Scene:
    def __init__(self, size: int, rng: random.Random, bank):
        self.size, self.rng, self.bank = size, rng, bank
        self.img = table(size, rng).convert("RGBA")
        self.tiles = []  # dicts: corners, face_down, orientation, cls
        self.back = rng.choice(BACK_COLORS)
        self.occupied = []

    def face(self):
        cls = self.rng.randrange(42)
        pool = self.bank[faces.CLASSES[cls]]
        return cls, self.rng.choice(pool)

    def place(self, x, y, tw, th, orientation=0, down=False, cls=None):
        """Place a tile whose face box (before rotation) has top-left x, y; orientation in quarters."""
        if cls is None:
            cls, face = self.face()
        else:
            face = self.rng.choice(self.bank[faces.CLASSES[cls]])
        sprite, depth = tile_sprite(None if down else face, tw, th, self.rng, self.back, down)
        # Rotate the sprite by quarters; the thickness ends up on the right side of the turn.
        sprite = sprite.rotate(-90 * orientation, expand=True)
        w, h = (tw, th) if orientation % 2 == 0 else (th, tw)
        if x + sprite.width > self.size or y + sprite.height > self.size or x < 0 or y < 0:
            return 0
        # Shadow.
        sh = Image.new("RGBA", sprite.size, (0, 0, 0, 0))
        sh.putalpha(sprite.getchannel("A").point(lambda a: a // 3))
        self.img.alpha_composite(sh.filter(ImageFilter.GaussianBlur(2)), (int(x + 2), int(y + 2)))
        self.img.alpha_composite(sprite, (int(x), int(y)))
        # Face box corners in image space, clockwise from the face's top-left.
        if orientation == 2:
            fx, fy = x, y + sprite.height - h
        elif orientation == 1:
            fx, fy = x + sprite.width - w, y
        else:
            fx, fy = x, y
        box = [(fx, fy), (fx + w, fy), (fx + w, fy + h), (fx, fy + h)]
        k = orientation % 4
        corners = box[(4 - k) % 4:] + box[: (4 - k) % 4] if k else box
        self.tiles.append({"corners": corners, "face_down": down, "orientation": orientation, "cls": -1 if down else cls})
        return sprite.width

    # Layouts -----------------------------------------------------------------------------------

    def hand(self):
        rng = self.rng
        th = rng.randint(22, 60)
        tw = int(th * rng.uniform(0.68, 0.8))
        gap = rng.choice([0, 0, 1, 2])
        n = rng.choice([13, 13, 10, 7, 4, 1])
        x = rng.randint(4, max(5, self.size - (n + 6) * (tw + gap) - 4))
        y = rng.randint(4, max(5, self.size - 3 * th - 4))
        for _ in range(n):
            self.place(x, y, tw, th)
            x += tw + gap
        x += int(tw * rng.uniform(0.4, 1.0))
        self.place(x, y, tw, th)  # winning tile apart
        x += tw + int(tw * rng.uniform(0.5, 1.2))
        # Melds: to the right, or in a row in front.
        melds = rng.randint(0, 4)
        mx, my = (x, y) if rng.random() < 0.5 else (rng.randint(4, self.size // 3), y + th + rng.randint(6, th))
        for _ in range(melds):
            kind = rng.random()
            if kind < 0.2:  # concealed kong: two down, two up
                cls, _ = self.face()
                for k, down in enumerate([True, False, False, True]):
                    self.place(mx, my, tw, th, 0, down, cls)
                    mx += tw + gap
            else:
                size = 4 if kind > 0.85 else 3
                side = rng.randrange(size)
                for k in range(size):
                    if k == side:
                        self.place(mx, my + (th - tw), tw, th, rng.choice([1, 3]))
                        mx += th + gap
                    else:
                        self.place(mx, my, tw, th)
                        mx += tw + gap
            mx += int(tw * rng.uniform(0.3, 0.8))
        # Bonus tiles aside.
        if rng.random() < 0.4:
            bx, by = rng.randint(4, self.size // 2), min(self.size - th - 4, y + 2 * th + rng.randint(8, 30))
            for _ in range(rng.randint(1, 4)):
                self.place(bx, by, tw, th, 0, False, rng.randrange(34, 42))
                bx += tw + gap

    def grid(self):
        rng = self.rng
        th = rng.randint(20, 50)
        tw = int(th * rng.uniform(0.7, 0.82))
        gap = rng.choice([0, 1, 2, 3])
        cols = rng.randint(3, max(3, (self.size - 10) // (tw + gap)))
        rows = rng.randint(1, max(1, (self.size - 10) // (th + gap + th // 6)))
        x0, y0 = rng.randint(2, 20), rng.randint(2, 20)
        for r in range(rows):
            for c in range(cols):
                self.place(x0 + c * (tw + gap), y0 + r * (th + gap + th // 8), tw, th)

    def scatter(self):
        rng = self.rng
        th = rng.randint(20, 60)
        tw = int(th * rng.uniform(0.7, 0.8))
        for _ in range(rng.randint(3, 20)):
            o = rng.choice([0, 0, 0, 1, 2, 3])
            for _try in range(10):
                x, y = rng.randint(0, self.size - th), rng.randint(0, self.size - th)
                box = (x - 3, y - 3, x + th + 3, y + th + 3)
                if not any(_overlap(box, t["corners"]) for t in self.tiles):
                    self.place(x, y, tw, th, o, rng.random() < 0.15)
                    break

    def seat(self):
        """A hand photographed from the seat (seat_view), tiles 12 to 45 pixels wide."""
        rng = self.rng
        standing = [self.face() for _ in range(rng.choice([14, 14, 11, 8, 5, 2]))]
        melds = [[self.face() for _ in range(rng.choice([3, 3, 4]))] for _ in range(rng.randint(0, 4))]
        turned = [rng.randrange(len(m)) for m in melds] if SEAT_TURNED and rng.random() < SEAT_TURNED else None
        self.tiles += seat_view(self.img, standing, melds, rng, rng.randint(12, 45), self.back, turned)

    # Camera ------------------------------------------------------------------------------------

    def finish(self):
        rng = self.rng
        img = self.img.convert("RGB")
        S = self.size
        # Camera: a rotation and a perspective squeeze of the far side, applied to the labels too.
        r = rng.random()
        ang = math.radians(rng.uniform(-12, 12) if r < 0.55 else rng.uniform(-35, 35) if r < 0.7 else 0.0)
        squeeze = rng.uniform(0, SQUEEZE_MAX) if rng.random() < 0.5 else 0.0
        src = [(0, 0), (S, 0), (S, S), (0, S)]
        c = S / 2
        def fwd(p):
            x, y = p[0] - c, p[1] - c
            x, y = x * math.cos(ang) - y * math.sin(ang), x * math.sin(ang) + y * math.cos(ang)
            # Far side (top) narrower.
            t = (y + c) / S
            x *= 1 - squeeze * (1 - t)
            return (x + c, y + c)
        dst = [fwd(p) for p in src]
        # The image is warped by the homography through the four corners, so the labels go
        # through the same homography (not through `fwd`, which is not one: labels moved by it
        # sat up to a third of a tile below the tiles in squeezed scenes).
        coeffs = _perspective_coeffs(dst, src)
        img = img.transform((S, S), Image.PERSPECTIVE, coeffs, resample=Image.BILINEAR, fillcolor=tuple(np.asarray(img)[0, 0].tolist()))
        a, b, c_, d, e, f, g, h = _perspective_coeffs(src, dst)

        def homography(p):
            w = g * p[0] + h * p[1] + 1
            return [(a * p[0] + b * p[1] + c_) / w, (d * p[0] + e * p[1] + f) / w]

        for t in self.tiles:
            t["corners"] = [homography(p) for p in t["corners"]]
        img = synth.photo_effects(img, rng)
        return img, self.tiles


def _overlap(box, corners) -> bool:
    xs = [p[0] for p in corners]
    ys = [p[1] for p in corners]
    return not (box[2] <= min(xs) or box[0] >= max(xs) or box[3] <= min(ys) or box[1] >= max(ys))


def _perspective_coeffs(pa, pb):
    """PIL perspective coefficients mapping output points pa to input points pb."""
    m = []
    for (x, y), (u, v) in zip(pa, pb):
        m.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        m.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    a = np.array(m, dtype=np.float64)
    b = np.array([c for p in pb for c in p], dtype=np.float64)
    return np.linalg.solve(a, b).tolist()


# Real photos whose labelled crops may be laid into training scenes: camerash-dev photos that
# are neither classifier validation photos nor localisation-labelled (datasets/labels/).
# The share of drawn scenes that show a hand from the seat (Scene.seat); 0 draws none and leaves
# every other scene as it was (train_detector.py --seat).
SEAT_SHARE = 0.0
# Share of those seat scenes whose melds each lay one tile sideways, as claimed tiles lie
# (`train_detector.py --seat-turned`); 0 leaves the scenes as they were drawn before.
SEAT_TURNED = 0.0
# How much narrower the far side of a drawn scene may be, as a photo taken at a low angle
# shows a table (half of the scenes, uniformly up to this).
SQUEEZE_MAX = 0.18
SCENE_PHOTOS = ["photos/10.jpg", "photos/11.jpg", "photos/2-1.jpg", "photos/2-3.jpg", "photos/2-4.jpg", "photos/4.jpg", "photos/7.jpg", "photos/8.jpg"]


def real_banks(photos: list[str]) -> list[dict[str, list[Image.Image]]]:
    """Per photo (one tile set each): the labelled real crops of camerash-dev by class, RGB."""
    import csv

    root = faces.SHARED / "camerash-dev"
    if not (root / "labels.csv").exists():
        return []
    banks = {p: {} for p in photos}
    for row in csv.DictReader((root / "labels.csv").open()):
        if row["photo"] in banks:
            banks[row["photo"]].setdefault(row["tile"], []).append(Image.open(root / row["crop"]).convert("RGB"))
    return [banks[p] for p in photos if banks[p]]


def make_scene(seed: int, size: int, bank, real: list | None = None, p_real: float = 0.35) -> tuple[Image.Image, list[dict]]:
    """A scene; with probability p_real its tiles are the real crops of one photo of `real`
    (real_banks), where that photo shows the face, and drawn faces otherwise."""
    rng = random.Random(seed)
    if real and rng.random() < p_real:
        photo = rng.choice(real)
        bank = {c: photo.get(c) or bank[c] for c in faces.CLASSES}
    s = Scene(size, rng, bank)
    if SEAT_SHARE and rng.random() < SEAT_SHARE:
        s.seat()
        return s.finish()
    r = rng.random()
    if r < 0.5:
        s.hand()
        if rng.random() < 0.3:
            s.scatter()
    elif r < 0.8:
        s.grid()
    else:
        s.scatter()
    return s.finish()


class Bounds(tuple):
    """A label's upright bounds (x0, y0, x1, y1) that also keeps the four corners it was
    drawn with (`quad`), so that turning it again starts from the tile, not from its bounds
    (the bounds of turned bounds grow with each turn)."""

    quad: list

    @staticmethod
    def of(quad: list) -> Bounds:
        xs, ys = [p[0] for p in quad], [p[1] for p in quad]
        b = Bounds((min(xs), min(ys), max(xs), max(ys)))
        b.quad = quad
        return b


def corners(box) -> list:
    """The four corners of a label's box: those it was drawn with when it keeps them."""
    quad = getattr(box, "quad", None)
    if quad is not None:
        return quad
    x0, y0, x1, y1 = box
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def turned_labels(labels: list, degrees: float, centre: tuple, to: tuple) -> list:
    """`labels` turned `degrees` anticlockwise on the screen as PIL turns a picture, about
    `centre`, which goes to `to`: each box the upright bounds of its turned corners, kept with
    them (`Bounds`). A point (x, y) goes to to + R(-a) (p - centre)."""
    (cx, cy), (ox, oy), a = centre, to, np.radians(degrees)
    c, s = np.cos(a), np.sin(a)
    return [(face, Bounds.of([((x - cx) * c + (y - cy) * s + ox, -(x - cx) * s + (y - cy) * c + oy) for x, y in corners(box)])) for face, box in labels]


def turned(img: Image.Image, labels: list, degrees: float) -> tuple[Image.Image, list]:
    """`img` turned about its centre as a phone held a little askew turns it, and its labels
    with it (`turned_labels`)."""
    out = img.rotate(degrees, resample=Image.BILINEAR, fillcolor=img.getpixel((2, 2)))
    centre = (img.width / 2, img.height / 2)
    return out, turned_labels(labels, degrees, centre, centre)


if __name__ == "__main__":
    import sys

    bank = faces.load_bank()
    for k in range(int(sys.argv[1]) if len(sys.argv) > 1 else 4):
        img, tiles = make_scene(k, 384, bank)
        d = ImageDraw.Draw(img)
        for t in tiles:
            col = (255, 0, 0) if t["face_down"] else [(0, 255, 0), (0, 0, 255), (255, 0, 255), (255, 255, 0)][t["orientation"]]
            d.polygon([tuple(p) for p in t["corners"]], outline=col)
            d.ellipse([t["corners"][0][0] - 2, t["corners"][0][1] - 2, t["corners"][0][0] + 2, t["corners"][0][1] + 2], fill=col)
        img.save(f"/tmp/view/scene{k}.png")
        print(k, len(tiles))

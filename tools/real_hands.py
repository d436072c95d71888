"""Winning hands laid out with real tiles: an end-to-end check of `suanfan scan` on tile sets
the models never trained on.

Each image shows a hand of the scoring corpus (../shared/scoring/corpus-dev.jsonl.gz) laid as
players lay it: the standing row, the winning tile set apart, claimed melds in front of the hand
or to its right with the claimed tile sideways where the rules put it (left: from the left,
middle: from across, right: from the right), concealed kongs with two backs, flowers aside. The
tiles are the real crops of one validation set of camerash-dev (photos the classifier never
trained on, tools/train_classifier.py VAL_PHOTOS), on a drawn table, under a slight camera turn
and squeeze, blur, noise and JPEG. The layout is drawn; the tiles' pixels are real.

The images go to tools/.cache/real_hands/ (never committed: they are made of ../shared/data
pixels). Then `suanfan scan --format json` reads them all, and the script prints how many hands
were read exactly, how many tiles were read right, and what went wrong in the others.

    cargo build --release && python tools/real_hands.py [--n 60] [--seed 1]
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

import faces
import realdata
import scenes
from make_fixtures import tiles as expand

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
CAMERASH = faces.SHARED / "camerash-dev"
CORPUS = faces.SHARED.parent / "scoring" / "corpus-dev.jsonl.gz"
OUT = ROOT / ".cache" / "real_hands"
# The validation photos, by tile set (the four 6-* photos show one set).
SETS = {"9": ["photos/9.jpg"], "3": ["photos/3.png"], "6": ["photos/6-1.png", "photos/6-2.png", "photos/6-3.png", "photos/6-4.png"]}
FROM_DIGIT = {"left": 1, "across": 2, "right": 3}


def set_banks() -> dict[str, dict[str, list[Image.Image]]]:
    """The real crops of each validation tile set, by class."""
    out = {}
    for name, photos in SETS.items():
        merged: dict[str, list[Image.Image]] = collections.defaultdict(list)
        for bank in scenes.real_banks(photos):
            for c, crops in bank.items():
                merged[c] += crops
        out[name] = merged
    return out


def compact(tiles: list[str]) -> str:
    """Tiles in the project's compact notation, in the given order (runs of one suit merged)."""
    out, run, suit = [], "", None
    for t in tiles:
        if t[-1] in "mps" and t[0].isdigit():
            if suit not in (None, t[-1]):
                out.append(run + suit)
                run = ""
            run, suit = run + t[0], t[-1]
        else:
            if suit:
                out.append(run + suit)
                run, suit = "", None
            out.append(t)
    if suit:
        out.append(run + suit)
    return "".join(out)


def canonical(notation: str):
    """(sorted melds, sorted standing tiles, winning tile) of a bracket notation string."""
    body = notation.split("|")[0]
    melds = sorted(
        tuple(sorted(expand(m.split(",")[0]))) + ((m.split(",")[1],) if "," in m else ())
        for m in re.findall(r"\[([^\]]*)\]", body)
    )
    standing = expand(re.sub(r"\[[^\]]*\]", "", body))
    return melds, sorted(standing[:-1]), standing[-1] if standing else None


def truth(hand: dict) -> str:
    parts = []
    for m in hand["melds"]:
        tiles = compact(m["tiles"])
        if m["type"] == "chow":
            parts.append(f"[{tiles},{m['claimed'] + 1}]")
        elif m["type"] == "concealed_kong":
            parts.append(f"[{tiles}]")
        else:
            parts.append(f"[{tiles},{FROM_DIGIT[m['from']]}]")
    return "".join(parts) + compact(sorted(hand["concealed"], key=faces.CLASSES.index) + [hand["win_tile"]])


def lay_out(seed: int, hand: dict, bank: dict, flowers: list[str], labels: list | None = None) -> Image.Image:
    """The hand laid out and photographed; `labels`, when given, receives each tile's corners
    in the returned image (as scenes.Scene labels them)."""
    rng = random.Random(seed)
    size = 1600
    s = scenes.Scene(size, rng, {c: bank.get(c, []) for c in faces.CLASSES})
    th = rng.randint(64, 100)
    tw = int(th * rng.uniform(0.72, 0.8))
    gap = rng.choice([0, 1, 2])
    cls = faces.CLASSES.index
    standing = sorted(hand["concealed"], key=cls) if rng.random() < 0.7 else rng.sample(hand["concealed"], len(hand["concealed"]))
    x0, y0 = rng.randint(40, 120), rng.randint(450, 600)
    x = x0
    for t in standing:
        s.place(x, y0, tw, th, 0, False, cls(t))
        x += tw + gap
    x += int(tw * rng.uniform(0.5, 1.2))
    s.place(x, y0, tw, th, 0, False, cls(hand["win_tile"]))
    x += tw
    in_front = rng.random() < 0.6 or len(hand["melds"]) > 2
    mx, my = (x0 + rng.randint(0, tw), y0 + th + rng.randint(th // 3, th)) if in_front else (x + int(tw * rng.uniform(0.8, 1.5)), y0)
    for m in hand["melds"]:
        tiles = [cls(t) for t in m["tiles"]]
        if m["type"] == "concealed_kong":
            for k in range(4):
                s.place(mx, my, tw, th, 0, k in (0, 3), tiles[k])
                mx += tw + gap
        else:
            if m["type"] == "chow":
                side = m["claimed"]
            else:
                side = {"left": 0, "across": 1, "right": len(tiles) - 1}[m["from"]]
            for k, c in enumerate(tiles):
                if k == side:
                    mx += s.place(mx, my + (th - tw), tw, th, rng.choice([1, 3]), False, c) + gap
                else:
                    s.place(mx, my, tw, th, 0, False, c)
                    mx += tw + gap
        mx += int(tw * rng.uniform(0.3, 0.8))
    if flowers:
        fx, fy = x0 + rng.randint(0, 3 * tw), y0 - th - rng.randint(th // 3, th)
        for f in flowers:
            s.place(fx, fy, tw, th, 0, False, cls(f))
            fx += tw + gap
    img, tiles = s.finish()
    xs = [p[0] for t in tiles for p in t["corners"]]
    ys = [p[1] for t in tiles for p in t["corners"]]
    m = rng.randint(30, 120)
    box = (max(0, int(min(xs)) - m), max(0, int(min(ys)) - m), min(size, int(max(xs)) + m), min(size, int(max(ys)) + m))
    if labels is not None:
        for t in tiles:
            labels.append(dict(t, corners=[[p[0] - box[0], p[1] - box[1]] for p in t["corners"]]))
    return img.crop(box)


def claimed_place(meld: dict) -> int | None:
    """Where a claimed meld's claimed tile lies (0 = leftmost), as the rules lay it: a chow's
    claimed tile where the hand says; a pung's or kong's on the left from the left, in the
    middle from across, on the right from the right. None for a concealed kong."""
    if meld["type"] == "chow":
        return meld["claimed"]
    if meld["type"] == "concealed_kong":
        return None
    return {"left": 0, "across": 1, "right": len(meld["tiles"]) - 1}[meld["from"]]


def seat_photo(hand: dict, bank: dict, rng: random.Random, seed: int, turned: bool = False) -> tuple[Image.Image, list] | None:
    """The hand photographed from the seat (scenes.seat_view: the standing tiles seen from the
    front at 15-30 degrees, their tops showing, the melds lying in front, seen low), 12 MP,
    blurred, noisy, turned up to 6 degrees for odd `seed`s; with each tile's face and upright
    box. With `turned`, each meld's claimed tile lies sideways where the rules put it. None for a hand with a concealed kong or a face `bank` lacks, and where part of the
    hand would leave the picture."""
    melds = [m["tiles"] for m in hand["melds"]]
    standing = hand["concealed"] + [hand["win_tile"]]
    if any(m["type"] == "concealed_kong" for m in hand["melds"]) or any(not bank.get(t) for t in standing + sum(melds, [])):
        return None
    w, h = 4000, 3000
    img = scenes.background(1000, rng).resize((w, w), Image.BILINEAR).crop((0, 0, w, h)).convert("RGBA")
    faced = lambda names: [(t, rng.choice(bank[t])) for t in names]
    order = sorted(standing[:-1], key=faces.CLASSES.index) + standing[-1:]
    places = [claimed_place(m) for m in hand["melds"]] if turned else None
    tiles = scenes.seat_view(img, faced(order), [faced(m) for m in melds], rng, int(w * rng.uniform(0.45, 0.8) / 14), rng.choice(scenes.BACK_COLORS), places)
    if len(tiles) < len(standing) + sum(map(len, melds)):
        return None
    labels = [(t["cls"], tuple(float(v) for v in realdata.outline_bounds(t["corners"]))) for t in tiles]
    img = img.convert("RGB").filter(ImageFilter.GaussianBlur(rng.uniform(0.6, 2.0)))
    noise = np.random.default_rng(seed).normal(0, rng.uniform(2, 6), (h, w, 3))
    img = Image.fromarray(np.clip(np.asarray(img, float) + noise, 0, 255).astype(np.uint8))
    if seed % 2:
        img, labels = scenes.turned(img, labels, rng.uniform(-6, 6))
    return img, labels


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--binary", default=str(REPO / "target" / "release" / "suanfan"))
    ap.add_argument("--scan-args", default="", help="more flags for suanfan scan, e.g. '--finder-model F.onnx'")
    ap.add_argument("--show", type=int, default=5, help="print this many failed hands in full")
    ap.add_argument("--seat", action="store_true", help="photograph the hands from the seat (seat_photo) instead of from above; melds lie without a turned tile, so who gave each is not asked)")
    ap.add_argument("--save", type=Path, help="write each hand's expected notation and suanfan's JSON reading to this file, one JSON object a line")
    ap.add_argument("--turned", action="store_true", help="with --seat: each meld's claimed tile lies sideways where the rules put it, and who gave it is asked")
    args = ap.parse_args()
    if not (CAMERASH / "labels.csv").exists() or not CORPUS.exists():
        sys.exit(f"needs {CAMERASH} and {CORPUS} (../shared beside the repository)")
    banks = set_banks()
    hands = [json.loads(line)["hand"] for line in gzip.open(CORPUS, "rt")]
    rng = random.Random(args.seed)
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.jpg"):
        old.unlink()
    expected = {}
    names = sorted(SETS)
    k = 0
    while len(expected) < args.n:
        k += 1
        set_name = names[len(expected) % len(names)]
        bank = banks[set_name]
        hand = rng.choice(hands)
        tiles = hand["concealed"] + [hand["win_tile"]] + [t for m in hand["melds"] for t in m["tiles"]]
        if args.seat:
            photo = seat_photo(hand, bank, rng, len(expected), args.turned)
            if photo is None:
                continue
            path = OUT / f"seat-{len(expected):03d}-set{set_name}.jpg"
            photo[0].save(path, quality=rng.randint(75, 92))
            expected[str(path)] = (truth(hand), 0, collections.Counter(tiles))
            continue
        if any(not bank.get(t) for t in tiles):
            continue  # a face this set's photos do not show
        # Face up: a concealed kong shows two of its four tiles.
        face_up = hand["concealed"] + [hand["win_tile"]]
        for m in hand["melds"]:
            face_up += m["tiles"][1:3] if m["type"] == "concealed_kong" else m["tiles"]
        bonus = [c for c in faces.CLASSES[34:] if bank.get(c)]
        flowers = rng.sample(bonus, min(hand["flowers"], len(bonus)))
        path = OUT / f"hand-{len(expected):03d}-set{set_name}.jpg"
        labels: list = []
        img = lay_out(args.seed * 100_000 + k, hand, bank, flowers, labels)
        if len(labels) != len(tiles) + len(flowers):
            continue  # a meld ran off the drawn table: the photo would not show the whole hand
        img.save(path, quality=rng.randint(75, 92))
        expected[str(path)] = (truth(hand), len(flowers), collections.Counter(face_up + flowers))
    print(f"{len(expected)} hands written to {OUT}")

    run = subprocess.run([args.binary, "scan", "--format", "json", *args.scan_args.split(), str(OUT)], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(f"{args.binary} failed ({run.returncode}): {run.stderr.strip()}")
    got = {}
    for line in run.stdout.splitlines():
        doc = json.loads(line)
        got[doc["image"]] = doc
    if args.save:
        with args.save.open("w") as f:
            for path, (want, n_flowers, _) in expected.items():
                f.write(json.dumps({"image": path, "want": want, "flowers": n_flowers, "read": got.get(path)}) + "\n")
    exact = tiles_right = tiles_total = flowers_right = scored = 0
    failures = []
    for path, (want, n_flowers, want_tiles) in expected.items():
        doc = got.get(path)
        if doc is None or "error" in doc:
            failures.append((path, want, None, doc.get("error") if doc else "no output"))
            continue
        read = collections.Counter(t["tile"] for t in doc["tiles"] if t["tile"] != "back")
        tiles_total += sum(want_tiles.values())
        tiles_right += sum(min(n, read[t]) for t, n in want_tiles.items())
        flowers_read = None
        if doc.get("score"):
            suffix = doc["score"]["hand"].split("|")
            flowers_read = int(suffix[2]) if len(suffix) > 2 else 0
        flowers_right += flowers_read == n_flowers
        scored += doc.get("hand") is not None
        same = canonical(doc["hand"]) == canonical(want) if doc.get("hand") else False
        if args.seat and not args.turned and doc.get("hand"):
            # Melds lie without a turned tile: who gave each cannot be seen.
            same = canonical(re.sub(r",\d", "", doc["hand"])) == canonical(re.sub(r",\d", "", want))
        if same and flowers_read == n_flowers:
            exact += 1
        else:
            failures.append((path, want, doc.get("hand"), "; ".join(doc.get("issues", [])) or f"flowers read {flowers_read}, laid {n_flowers}"))
    n = len(expected)
    asked = "melds" if args.seat and not args.turned else "melds, who gave each claimed tile"
    print(f"hands read exactly ({asked}, standing tiles, winning tile, flowers): {exact}/{n} ({exact / n:.1%})")
    print(f"hands read as some valid win: {scored}/{n}; flower count right: {flowers_right}/{n}")
    print(f"tile faces among those laid face up and read as such (top reading after decode): {tiles_right}/{tiles_total} ({tiles_right / max(tiles_total, 1):.1%})")
    for path, want, read, why in failures[: args.show]:
        print(f"  {Path(path).name}: laid {want}, read {read}: {why}")


if __name__ == "__main__":
    main()

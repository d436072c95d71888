"""Box labels for real photos that show tiles in a regular grid (shop photos of whole sets).

    python tools/label_grid.py PHOTO ROWS COLS [--margin L T R B] [--show OUT.png]

Writes datasets/labels/<photo name>.json: the photo's name and source, and one box per tile
(x0, y0, x1, y1 in photo pixels), all face up and upright. The photo itself is not copied.
Check every label with --show before committing it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from PIL import Image, ImageDraw

REPO = Path(__file__).resolve().parent.parent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("photo")
    ap.add_argument("rows", type=int)
    ap.add_argument("cols", type=int)
    ap.add_argument("--margin", type=float, nargs=4, default=[0, 0, 0, 0], metavar=("L", "T", "R", "B"))
    ap.add_argument("--show")
    args = ap.parse_args()
    path = Path(args.photo)
    img = Image.open(path).convert("RGB")
    W, H = img.size
    l, t, r, b = args.margin
    cw, ch = (W - l - r) / args.cols, (H - t - b) / args.rows
    boxes = [[round(l + c * cw, 1), round(t + k * ch, 1), round(l + (c + 1) * cw, 1), round(t + (k + 1) * ch, 1)] for k in range(args.rows) for c in range(args.cols)]
    doc = {
        "photo": path.name,
        "source": "Camerash/mahjong-dataset (MIT), as ../shared/data/camerash-dev/photos",
        "size": [W, H],
        "tiles": [{"box": bx, "face_down": False, "orientation": "up"} for bx in boxes],
        "how": f"regular grid, {args.rows} rows x {args.cols} columns, margins {args.margin}, checked by eye",
    }
    out = REPO / "datasets" / "labels" / f"{path.stem}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    if args.show:
        d = ImageDraw.Draw(img)
        for bx in boxes:
            d.rectangle(bx, outline=(255, 0, 0), width=2)
        img.thumbnail((900, 900))
        img.save(args.show)
    print(f"{out}: {len(boxes)} tiles")


if __name__ == "__main__":
    main()

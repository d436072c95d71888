"""Writes tests/fixtures/*.json: recorded detections for the layout and decode tests.

Each fixture is what the vision stage would hand over for one photo: every tile's four
corners in image pixels, face-down flag, orientation and class probabilities (sparse: the
rest of the probability mass is spread over the other faces). The tables are laid out as
players lay them (seed 000, 第七条 八): claimed tiles sideways, concealed kongs with backs,
the winning tile set apart, bonus tiles aside.

    python tools/make_fixtures.py
"""

from __future__ import annotations

import json
import math
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
W, H = 60.0, 80.0  # tile size in pixels, upright


def tiles(s: str) -> list[str]:
    """'123m45pEE' -> ['1m','2m','3m','4p','5p','E','E']"""
    out, digits = [], ""
    for c in s:
        if c.isdigit():
            digits += c
        elif c in "mps":
            out += [d + c for d in digits]
            digits = ""
        else:
            out.append(c)
    return out


class Table:
    def __init__(self, origin=(100.0, 300.0)):
        self.dets = []
        self.x, self.y = origin

    def tile(self, face, sideways=False, down=False, p=0.97, alt=None, gap=2.0, y=None, orient=None, depth=None):
        """One tile; `depth`, an upright face's height where it looks squeezed (lying low, seen
        from the seat; a sideways face squeezed alike)."""
        squeeze = 1.0 if depth is None else depth / H
        w, h = (H, W * squeeze) if sideways else (W, H * squeeze)
        x0 = self.x
        y0 = (self.y if y is None else y) + (H - h)  # sideways tiles sit on the row's base line
        corners = [[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]]
        orientation = orient or ("left" if sideways else "up")
        if sideways:
            # Face top points left: the face's top-left corner is the image's bottom-left.
            corners = [corners[3], corners[0], corners[1], corners[2]]
        probs = {} if down else {face: p}
        if alt and not down:
            probs.update(alt)
        self.dets.append({"corners": corners, "score": 0.98, "face_down": down, "orientation": orientation, "probs": probs})
        self.x += w + gap

    def run(self, s, **kw):
        for t in tiles(s):
            self.tile(t, **kw)

    def space(self, k=0.8):
        self.x += W * k


def full_hand() -> Table:
    """13 standing tiles and the winning tile set apart: a hand that takes no more tiles."""
    t = Table()
    t.run("123m456p789s11sEE")
    t.space()
    t.tile("E")
    return t


def full_hand_and_flowers(above: float, face: str, **kw) -> Table:
    """A full hand, and `above` pixels over it two flowers and a tile of `face` beside them."""
    t = full_hand()
    t.x = 100.0
    t.y -= above
    t.tile("f1")
    t.tile("f2")
    t.tile(face, **kw)
    return t


def seat_table(standing: str, winning: str, melds: list[str], x: float, apart: float | None) -> Table:
    """From the seat: the `standing` tiles, the `winning` tile set apart, and in front of them,
    from `x`, the `melds` lying low (faces squeezed to half their height), `apart` tile widths
    between melds (None: touching)."""
    t = Table()
    t.run(standing)
    t.space()
    t.tile(winning)
    t.x, t.y = x, t.y + 60
    for meld in melds:
        t.run(meld, depth=H / 2)
        if apart:
            t.space(apart)
    return t


def turned(dets, degrees, dx=300.0):
    """The detections of a table turned by `degrees` about the origin, then moved right by dx."""
    a = math.radians(degrees)
    return [
        {**d, "corners": [[x * math.cos(a) - y * math.sin(a) + dx, x * math.sin(a) + y * math.cos(a)] for x, y in d["corners"]]}
        for d in dets
    ]


def rotate180(dets, cx=600, cy=400):
    out = []
    for d in dets:
        c = [[2 * cx - x, 2 * cy - y] for x, y in d["corners"]]
        o = {"up": "down", "down": "up", "left": "right", "right": "left"}[d["orientation"]]
        out.append({**d, "corners": c, "orientation": o})
    return out


def write(name, description, dets, expect, context=None):
    OUT.mkdir(parents=True, exist_ok=True)
    doc = {"description": description, "context": context, "detections": dets, "expect": expect}
    (OUT / f"{name}.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


def main():
    # 1. Concealed hand, winning tile set apart.
    t = Table()
    t.run("123m456p789s11sEE")
    t.space()
    t.tile("E")
    write("concealed_winning_apart", "13 standing tiles and the winning tile set apart", t.dets,
          {"hand": "123m456p789s11sEEE", "groups": ["hand", "winning"]})

    # 2. Claimed chow (sideways left), pung from across (middle), pung from the right (right).
    t = Table()
    t.run("789s11sEE")
    t.space()
    t.tile("E")
    t.space(1.2)
    t.tile("1m", sideways=True)
    t.run("23m")
    t.space()
    t.tile("5s")
    t.tile("5s", sideways=True)
    t.tile("5s")
    write("claimed_left_and_across", "a chow claimed from the left, a pung from across, melds right of the hand", t.dets,
          {"hand": "[123m,1][555s,2]789s11sEEE", "groups": ["hand", "chow", "pung", "winning"]})

    t = Table()
    t.run("123m11sEE")
    t.space()
    t.tile("E")
    t.space(1.2)
    t.run("99s")
    t.tile("9s", sideways=True)
    t.space()
    t.tile("7p", sideways=True)
    t.run("77p")
    write("claimed_right", "a pung from the right (sideways tile on the right)", t.dets,
          {"hand": "[999s,3][777p,1]123m11sEEE", "groups": ["hand", "pung", "pung", "winning"]})

    # 3. Kongs: exposed (one sideways), concealed with two backs, concealed with four backs.
    t = Table()
    t.run("123m45p11s")
    t.space()
    t.tile("6p")
    t.space(1.2)
    t.run("N")
    t.tile("N", sideways=True)
    t.run("NN")
    t.space()
    t.tile("C", down=True)
    t.run("CC")
    t.tile("C", down=True)
    write("kongs", "an exposed kong from across and a concealed kong shown with two backs", t.dets,
          {"hand": "[NNNN,2][CCCC]123m45p11s6p", "groups": ["hand", "kong", "concealed_kong", "winning"]})

    # 3a. A concealed kong of a set with pale backs: one back is read as a white dragon (P
    # 69%), as `real_hands.py` seed 3 showed (hands 39 and 45). Laid down, up, up, down, the
    # end read P is the second back.
    t = Table()
    t.run("123m45p11s")
    t.space()
    t.tile("6p")
    t.space(1.2)
    t.tile("P", p=0.69)
    t.run("CC")
    t.tile("C", down=True)
    t.space()
    t.run("999s")
    t.tile("9s", down=True)
    write("pale_back_read_as_a_face", "a concealed kong laid down, up, up, down whose first back, pale, is read as a white dragon", t.dets,
          {"hand": "[CCCC][9999s]123m45p11s6p", "groups": ["hand", "concealed_kong", "concealed_kong", "winning"],
           "assumed_contains": "the other end of a concealed kong"})

    # 3b. Face-down tiles that are no concealed kong: a back found in the gap before the
    # winning tile (the table between two tiles), one at the end of a claimed pung; and a
    # concealed kong laid against the hand with no gap.
    t = Table()
    t.run("123m456p789s11sEE")
    t.tile("E", down=True)
    t.tile("E")
    write("false_back_in_gap", "a face-down tile found in the gap before the winning tile: set aside, the hand kept", t.dets,
          {"hand": "123m456p789s11sEEE", "groups": ["hand", "stray", "winning"],
           "assumed_contains": "1 face-down tile(s) beside face-up tiles set aside", "no_issues": True})
    t = Table()
    t.run("123m456p789sE")
    t.space()
    t.tile("E")
    t.space(1.2)
    t.tile("S", sideways=True)
    t.run("SS")
    t.tile("S", down=True)
    write("false_back_beside_claimed_pung", "a face-down tile found at the end of a claimed pung: no concealed kong", t.dets,
          {"hand": "[SSS,1]123m456p789sEE", "groups": ["hand", "pung", "stray", "winning"], "no_issues": True})
    t = Table()
    t.run("123m456p11sEE")
    t.tile("C", down=True)
    t.run("CC")
    t.tile("C", down=True)
    t.space()
    t.tile("E")
    write("concealed_kong_against_hand", "a concealed kong laid against the hand, no gap between them", t.dets,
          {"hand": "[CCCC]123m456p11sEEE", "groups": ["hand", "concealed_kong", "winning"]})

    # 4. Bonus tiles aside, below the hand.
    t = Table()
    t.run("123m456p789s11sEE")
    t.space()
    t.tile("E")
    t.x = 100.0
    t.y += 160
    t.tile("f1")
    t.tile("s3")
    write("bonus_aside", "two flowers set aside in front of the hand", t.dets,
          {"hand": "123m456p789s11sEEE", "flowers": 2, "groups": ["hand", "winning", "bonus"]})

    # 5. One misread tile corrected by decode: the model prefers 6p for the 5p of 456p.
    t = Table()
    for face in tiles("123m4p"):
        t.tile(face)
    t.tile("6p", p=0.55, alt={"5p": 0.40})  # the misread tile: really 5p
    t.tile("6p")
    t.run("789s11sEE")
    t.space()
    t.tile("E")
    write("misread_corrected", "the 5p of 456p is read 6p (55%) over 5p (40%); only 5p makes a winning hand", t.dets,
          {"hand": "123m456p789s11sEEE", "changes": 1})

    # 5a. A claimed pung with one tile misread: read 5s 5s 6s, its faces look like a chow, but
    # no chow fits the two 5s read 97% sure; the pung needs the 6s to be 5s (35%).
    t = Table()
    t.run("123m789s11sEE")
    t.space()
    t.tile("E")
    t.space(1.2)
    t.tile("5s", sideways=True)
    t.tile("5s")
    t.tile("6s", p=0.6, alt={"5s": 0.35})
    write("claimed_pung_misread", "a pung claimed from the left read 5s 5s 6s (6s 60%, 5s 35%): a pung with the 6s read 5s, not a chow", t.dets,
          {"hand": "[555s,1]123m789s11sEEE", "changes": 1, "groups": ["hand", "pung", "winning"]})

    # 5b. A season taken for a claimed tile (sideways, read F at 12%) beside 1m 2m 3m: the four
    # make a kong only if the 2m and 3m, read 96% sure, were 1m, which the model gives 0.1%.
    t = Table()
    t.tile("F", sideways=True, p=0.12, alt={"1m": 0.0167, "s1": 0.09})
    t.tile("1m")
    t.tile("2m", p=0.96, alt={"1m": 0.0012})
    t.tile("3m", p=0.96, alt={"1m": 0.0012})
    t.space()
    t.run("567m345mNNNW")
    t.space()
    t.tile("W")
    write("kong_from_unsure_tiles", "a season read F (12%) lying beside 1m 2m 3m: no kong of 1m made of tiles read 96% sure as 2m and 3m", t.dets,
          {"hand": None, "issue_contains": "do not show one meld's faces"})

    # 6. Five copies of 5p, read confidently: no valid hand, and the message says why.
    t = Table()
    t.run("55555p", p=0.99)
    t.run("6p123m11sEE")
    t.space()
    t.tile("E")
    write("five_copies", "five copies of 5p read with confidence", t.dets,
          {"hand": None, "issue_contains": "copies"})

    # 7. Nineteen tiles.
    t = Table()
    t.run("123m456p789s123s11s99mEE")
    t.space()
    t.tile("E")
    write("nineteen_tiles", "19 tiles on the table", t.dets, {"hand": None, "issue_contains": "a winning hand has 14"})

    # 8. Photo from across the table: everything turned round.
    t = Table()
    t.run("456p789s11sEE")
    t.space()
    t.tile("E")
    t.space(1.2)
    t.tile("1m", sideways=True)
    t.run("23m")
    write("from_across", "the claimed-chow table photographed from across (all tiles upside down)", rotate180(t.dets),
          {"hand": "[123m,1]456p789s11sEEE", "groups": ["hand", "chow", "winning"]})

    # 9. Melds laid upright to the right, no tile set apart.
    t = Table()
    t.run("456p789s11sEEE")
    t.space(1.2)
    t.run("123m")
    write("upright_meld", "a chow laid upright right of the hand; the winning tile not set apart", t.dets,
          {"hand": "[123m,1]456p789s11sEEE", "assumed_min": 2})

    # 9b. A hand laid with gaps: two pairs apart from the rest are joined to it, said once.
    t = Table()
    t.run("123m456p789s")
    t.space()
    t.run("11s")
    t.space()
    t.run("EE")
    t.space()
    t.tile("E")
    write("hand_split_by_gaps", "the standing hand laid in three parts with gaps; the winning tile apart", t.dets,
          {"hand": "123m456p789s11sEEE", "assumed_contains": "4 tiles in 2 groups split from the hand by gaps"})

    # 10. Rotated photo: the whole table turned 20 degrees.
    t = Table()
    t.run("123m456p789s11sEE")
    t.space()
    t.tile("E")
    rot = turned(t.dets, 20)
    write("rotated", "the concealed table turned 20 degrees", rot, {"hand": "123m456p789s11sEEE", "groups": ["hand", "winning"]})

    # 11. A slanted row seen as the finder gives it: axis-aligned boxes around turned tiles.
    t = Table()
    t.run("777pEESSSWWWNN", gap=0.0)
    t.space()
    t.tile("N")
    slanted = []
    for d in turned(t.dets, 15):
        xs, ys = [p[0] for p in d["corners"]], [p[1] for p in d["corners"]]
        box = [[min(xs), min(ys)], [max(xs), min(ys)], [max(xs), max(ys)], [min(xs), max(ys)]]
        slanted.append({**d, "corners": box})
    write("slanted_boxes", "a row slanting 15 degrees, with upright boxes (as the finder gives them)", slanted,
          {"hand": "777pEESSSWWWNNN", "groups": ["hand", "winning"]})

    # 12. Flowers aside, one of them misread as a suit tile: it lies with the flowers.
    t = Table()
    t.run("123m456p789s11sEE")
    t.space()
    t.tile("E")
    t.x = 100.0
    t.y -= 160
    t.tile("1s", p=0.6, alt={"s4": 0.2, "f2": 0.1})
    t.tile("f1")
    t.tile("s3")
    write("flower_misread_aside", "three bonus tiles aside; the first read 1s (60%), 30% flower or season", t.dets,
          {"hand": "123m456p789s11sEEE", "flowers": 3, "groups": ["hand", "winning", "bonus"]})

    # 12b. A full hand and a lone tile apart: a season the model read as a suit tile, with
    # little chance of a bonus tile (5%), alone above the hand; and one with 1% lying beside
    # the flowers (the rule for tiles beside bonus tiles asks for 5% when the hand is not full).
    t = full_hand()
    t.x = 160.0
    t.y -= 200
    t.tile("1s", p=0.7, alt={"s3": 0.05, "7p": 0.03})
    write("season_misread_apart_from_full_hand", "a season read 1s (70%, 5% a season) alone above a full hand", t.dets,
          {"hand": "123m456p789s11sEEE", "flowers": 1, "groups": ["hand", "winning", "bonus"],
           "assumed_contains": "a lone tile apart from a full hand read as a flower or season"})
    t = full_hand_and_flowers(160, "1s", p=0.9, alt={"s3": 0.01, "7p": 0.08})
    write("season_misread_beside_flowers", "a full hand; a season read 1s (90%, 1% a season) beside two flowers", t.dets,
          {"hand": "123m456p789s11sEEE", "flowers": 3, "groups": ["hand", "winning", "bonus"],
           "assumed_contains": "beside the bonus tiles"})
    t = full_hand_and_flowers(90, "2m", p=0.9, alt={"3m": 0.095, "f3": 0.004})
    write("tile_beside_flowers_and_hand", "a full hand; a 2m beside two flowers just above the hand's tiles: a tile of the table, not a flower",
          t.dets, {"hand": "123m456p789s11sEEE", "flowers": 2, "groups": ["hand", "winning", "stray", "bonus"],
                   "assumed_contains": "1 tile(s) apart from a full hand left out"})
    t = Table()
    t.run("123m456p789s1s")
    t.space()
    t.tile("1s")
    t.space(1.2)
    t.tile("N")
    t.space(0.6)
    t.tile("N", sideways=True)
    t.run("NN")
    write("kong_split_by_gap", "a kong from across laid with a wide gap after its first tile; the hand full without it", t.dets,
          {"hand": "[NNNN,2]123m456p789s11s", "groups": ["hand", "kong", "winning"],
           "assumed_contains": "read as the fourth tile of a kong"})
    t = full_hand()
    t.x = 160.0
    t.y -= 200
    t.tile("5m", p=0.9, alt={"6m": 0.05})
    write("tile_apart_from_full_hand", "a full hand; a 5m alone above it (a discard): left out, the hand kept", t.dets,
          {"hand": "123m456p789s11sEEE", "flowers": 0, "groups": ["hand", "winning", "stray"],
           "assumed_contains": "1 tile(s) apart from a full hand left out"})

    # 13. Melds laid touching in a row in front of the hand, no gap between them; the last
    # pung has a wide gap inside it, after its sideways tile.
    t = Table()
    t.run("1s")
    t.space()
    t.tile("1s")
    t.x, t.y = 100.0, t.y + 120
    t.tile("1m", sideways=True)
    t.run("23m")
    t.run("7p")
    t.tile("7p", sideways=True)
    t.run("7p")
    t.run("99s")
    t.tile("9s", sideways=True)
    t.space(0.5)
    t.tile("C")
    t.tile("C", sideways=True)
    t.space(0.5)
    t.tile("C")
    write("melds_touching", "melds laid touching in front of the hand; a gap inside the last pung", t.dets,
          {"hand": "[123m,1][777p,2][999s,3][CCC,2]11s", "groups": ["hand", "chow", "pung", "pung", "pung", "winning"]})

    # 14. The 1s bird read as a flower, at the end of the hand row: set aside, the hand is a
    # tile short; taken as a playing tile, it completes the hand.
    t = Table()
    t.tile("s4", p=0.5, alt={"1s": 0.12, "f3": 0.1})
    t.run("23s456p789s11mEE")
    t.space()
    t.tile("E")
    write("bird_read_as_flower", "the 1s of 123s read s4 (50%, 1s 12%) at the end of the hand row", t.dets,
          {"hand": "123s456p789s11mEEE", "flowers": 0, "assumed_contains": "taken as a playing tile"})

    # 15. Melds in front, each claimed tile at the end or in the middle of its meld, laid flush
    # with the row's base line: a sideways tile's centre sits below its neighbours', which
    # must not be taken for a slant of the row.
    t = Table()
    t.run("5s")
    t.space(1.5)
    t.tile("5s")
    t.x, t.y = 140.0, t.y + 112
    t.run("WW")
    t.tile("W", sideways=True)
    t.space(0.9)
    t.run("7p", gap=6.0)
    t.tile("8p", sideways=True, gap=12.0)
    t.run("9p")
    t.space(0.9)
    t.run("33m")
    t.tile("3m", sideways=True)
    t.space(0.9)
    t.run("4s")
    t.tile("5s", sideways=True)
    t.run("6s")
    write("claimed_tiles_flush", "four melds in front, claimed tiles at the ends and in the middle, laid flush with the row's base line", t.dets,
          {"hand": "[WWW,3][789p,2][333m,3][456s,2]55s", "groups": ["hand", "pung", "chow", "pung", "chow", "winning"]})
    # 18, 19. Seen from the seat: the standing tiles' faces whole, the melds lying in front
    # of them squeezed to half their height. Four pungs laid apart and a pair standing (the
    # longest run is a meld), then two chows laid touching in front of a standing hand whose
    # tiles they would make up to 14.
    t = seat_table("6m", "6m", ["333m", "555p", "555s", "NNN"], 60.0, 0.5)
    write("seat_melds_lying", "from the seat: four pungs lying in front, squeezed, of a pair standing", t.dets,
          {"hand": "[333m,1][555p,1][555s,1][NNN,1]6m6m", "groups": ["hand", "pung", "pung", "pung", "pung", "winning"]})
    t = seat_table("45667p33s", "5p", ["678s", "678m"], 120.0, None)
    write("seat_melds_lying_touching", "from the seat: two chows lying touching in front of the standing hand", t.dets,
          {"hand": "[678s,1][678m,1]45667p33s5p", "groups": ["hand", "chow", "chow", "winning"], "assumed_contains": "6 tiles lying in front of the standing hand read as 2 melds"})
    # 20, 21. From the seat, a pung lying low whose claimed tile the finder turned along with
    # an upright tile (the middle one, its box as narrow and deep as its neighbours'), and one
    # whose upright tile it turned while leaving the claimed tile, wide and flat, upright.
    for name, marks, want, what in [
        ("seat_claimed_two_turned", [(False, None), (False, "left"), (True, None)], "[NNN,3]", "the middle tile turned too: the widest turned tile is the claimed one"),
        ("seat_claimed_upright_turned", [(False, "left"), (True, "up"), (False, None)], "[NNN,2]", "the left tile turned though no wider than the others, the middle one wide and flat: the middle one is the claimed one"),
    ]:
        t = seat_table("123m456p789s1s", "1s", [], 60.0, None)
        for wide, orient in marks:
            t.tile("N", sideways=wide, orient=orient, depth=H / 2)
        write(name, f"from the seat, a pung lying low: {what}", t.dets,
              {"hand": f"{want}123m456p789s1s1s", "groups": ["hand", "pung", "winning"]})
    # 16, 17. The whole table in view: the winner's hand among the other players' melds,
    # discards and standing hands (backs), every player's tiles facing them.
    whole_table()
    print(f"wrote {len(list(OUT.glob('*.json')))} fixtures to {OUT}")


def quarter_turn(dets, turns, cx=800.0, cy=800.0):
    """Detections turned clockwise by quarter turns about (cx, cy): the bottom player's tiles
    become the left player's after one turn, the top player's after two."""
    o_next = {"up": "right", "right": "down", "down": "left", "left": "up"}
    out = []
    for d in dets:
        c, o = d["corners"], d["orientation"]
        for _ in range(turns % 4):
            c = [[cx - (y - cy), cy + (x - cx)] for x, y in c]
            o = o_next[o]
        out.append({**d, "corners": c, "orientation": o})
    return out


def perspective(dets, a=0.8, size=1600.0):
    """Detections as a camera low at the bottom side sees them: a point's distance from the
    bottom edge and from the middle shrink by 1 + a * (its distance from the bottom) / size."""
    def see(x, y):
        d = 1.0 + a * (size - y) / size
        return [size / 2 + (x - size / 2) / d, size - (size - y) / d]
    return [{**d, "corners": [see(x, y) for x, y in d["corners"]]} for d in dets]


def discards(t, faces, x=614.0, y=1020.0):
    """Discards in rows of six in front of the player."""
    for k, face in enumerate(tiles(faces)):
        if k % 6 == 0:
            t.x, t.y = x, y + (k // 6) * (H + 6)
        t.tile(face)


def winner_table(thrown, x=330.0):
    """The winner (bottom): a claimed chow, the hand, the winning tile apart, discards."""
    win = Table(origin=(x, 1400.0))
    win.tile("1m", sideways=True)
    win.run("23m")
    win.space()
    win.run("456p789s11sEE")
    win.space()
    win.tile("E")
    discards(win, thrown)
    return win.dets


def left_player(meld_x=None):
    """The left player: a pung from across laid right of 10 standing tiles (at meld_x, or after
    a gap), 9 discards."""
    left = Table(origin=(330.0, 1400.0))
    left.run("1111111111m", down=True)
    if meld_x is None:
        left.space()
    else:
        left.x = meld_x
    left.tile("6p")
    left.tile("6p", sideways=True)
    left.tile("6p")
    discards(left, "7m8m9sSWP3p5p9s")
    return left


def whole_table():
    # Across (top): 13 standing tiles seen from above (backs), 15 discards.
    across = Table(origin=(400.0, 1400.0))
    across.run("1111111111111m", down=True)
    discards(across, "9p8m7pFF2m5s6s4m4m3sNN1p2p")
    left = left_player()
    # Right: 13 standing tiles, 8 discards.
    right = Table(origin=(400.0, 1400.0))
    right.run("1111111111111m", down=True)
    discards(right, "2s3s7s8pP4p6s7m")
    dets = winner_table("9m1p2s3pNC5m6m8s4sWS") + quarter_turn(across.dets, 2) + quarter_turn(left.dets, 1) + quarter_turn(right.dets, 3)
    write("whole_table", "the whole table from above: the winner at the bottom among three players' discards, melds and backs", dets,
          {"hand": "[123m,1]456p789s11sEEE", "groups": ["hand", "chow", "winning", "others"], "assumed_contains": "whole table"})
    # The same table with the winner's 5p read confidently as 9m: no side makes a winning hand.
    misread = [dict(d) for d in dets]
    misread[4] = {**misread[4], "probs": {"9m": 0.99}}
    write("whole_table_no_win", "the whole table, the winner's 5p read 9m (99%): no player's rows make a winning hand", misread,
          {"hand": None, "issue_contains": "no player's nearest rows make a winning hand"})
    # The same table seen by a camera low at the bottom side: the far side shrinks (a
    # homography, far edge 1/1.8 of the near edge), with the winner near and far.
    write("whole_table_perspective", "the whole table seen from a camera low at the bottom side, the winner near it", perspective(dets),
          {"hand": "[123m,1]456p789s11sEEE", "groups": ["hand", "chow", "winning", "others"], "assumed_contains": "whole table"})
    far = quarter_turn(dets, 2)
    write("whole_table_perspective_far", "the whole table seen from a camera low at one side, the winner across from it (small, upside down)", perspective(far),
          {"hand": "[123m,1]456p789s11sEEE", "groups": ["hand", "chow", "winning", "others"], "assumed_contains": "whole table"})
    # The left player's pung laid at the end of their row, by the winner's corner: its claimed
    # tile, sideways for them, faces the winner and lies in the winner's hand row, 4 tiles
    # along from the hand's first tile.
    corner = left_player(meld_x=1330.0)
    dets = winner_table("9m1p2s3pNC5m6m8s4sWS", x=430.0) + quarter_turn(across.dets, 2) + quarter_turn(corner.dets, 1) + quarter_turn(right.dets, 3)
    write("whole_table_meld_at_corner", "the whole table; the left player's claimed tile lies in the winner's hand row, facing the winner, apart from the hand", dets,
          {"hand": "[123m,1]456p789s11sEEE", "groups": ["hand", "chow", "winning", "others"], "assumed_contains": "whole table"})
    # During play: every player's hand standing (backs nearest them); the bottom player's 14
    # discards happen to make a winning hand, which must not be read as one.
    player = Table(origin=(400.0, 1400.0))
    player.run("1111111111111m", down=True)
    discards(player, "123m456p789s11sEE")
    player.x, player.y = 614.0 + 2 * (W + 2), 1020.0 + 2 * (H + 6)
    player.tile("E")
    dets = player.dets + quarter_turn(across.dets, 2) + quarter_turn(left.dets, 1) + quarter_turn(right.dets, 3)
    write("whole_table_in_play", "the whole table during play: every hand standing (backs), the bottom player's 14 discards a winning hand by chance", dets,
          {"hand": None, "issue_contains": "no player's nearest rows make a winning hand"})
    # The winner at the right of the picture, with 6 discards; the player across from them,
    # now at the left, has two pungs and 20 discards: more tiles face them than the winner.
    busy = Table(origin=(300.0, 1400.0))
    busy.run("1111111m", down=True)
    busy.space()
    busy.run("F")
    busy.tile("F", sideways=True)
    busy.run("F")
    busy.space()
    busy.tile("N", sideways=True)
    busy.run("NN")
    discards(busy, "9p8m7p2m5s6s4m4m3s1p2p3p4p5p7s9s8m2s3s4s")
    dets = quarter_turn(winner_table("9m1p2s3pNC"), 3) + quarter_turn(busy.dets, 1) + left.dets + quarter_turn(right.dets, 2)
    write("whole_table_turned", "the whole table turned: the winner at the right of the picture; more tiles face the player across", dets,
          {"hand": "[123m,1]456p789s11sEEE", "groups": ["hand", "chow", "winning", "others"], "assumed_contains": "whole table"})


if __name__ == "__main__":
    main()

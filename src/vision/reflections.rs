//! Reflections. On a glass or glossy table each tile of a row is mirrored just below it,
//! fainter, and the finder outlines the mirror image as one more tile, which the classifier
//! reads as the same face turned round (or, faint, as a face-down tile): a row of eight becomes
//! sixteen. A tile whose picture is the face-up tile just above it flipped upside down (their
//! columns and sizes alike, the lower one starting where the upper ends, all measured along
//! the upper tile's own sides: a phone held a little askew turns the tile and its reflection
//! alike; matched over small shifts, a linear fade taken out), clearly fainter, and read as
//! that face, weakly, or face down, is that tile's reflection and is dropped. Two real tiles
//! one above the other (a row and the melds laid in front of it) are lit alike, so the fainter
//! test keeps a symmetric face (a 4p under a 4p) that happens to lie below its twin; a real
//! face-down tile below a face (a concealed kong in front of the hand) is no flipped copy of it.
//!
//! Measured with `tools/eval_photos.py --sets glass` (rows of real tiles of sets never trained
//! on, on a drawn glass table, half of the photos turned up to 8°: 25 → 40 of 40 photos exact,
//! 90 → 0 false tiles; the thresholds were set on 20 other such photos; looked for straight
//! down the picture, 22 reflections of 20 photos turned 5–8° stayed; with the finder of stage
//! 2c one faded reflection outlined short stayed, now dropped: 39 → 40) and on every real set of
//! `tools/eval_photos.py`, the end-to-end hands and the judged backs, where nothing moved.
//!
//! A picture of a whole set laid in columns (`camerash` 0003, 156 tiles) has over a hundred
//! tiles lying under one of their own face, each compared over 49 shifts: they are shared
//! between two threads (88 → 32 ms there; every evaluation photo reads as before).

use image::RgbImage;

use super::CONFIDENT;
use crate::detection::Detection;

/// The two columns line up: their centres are at most this share of the upper tile's width
/// apart across it.
const SAME_COLUMN: f32 = 0.2;
/// Their heights (along the upper tile's downward side) differ by at most this share, or the
/// lower is shorter by up to FADED: a reflection fades out away from the tile, and the finder
/// outlines only the part still seen.
const SAME_SIZE: f32 = 0.25;
const FADED: f32 = 0.4;
/// The reflection starts at most this share of the upper tile's height below its bottom (the
/// tile's thickness and a gap), or overlaps it by at most `OVERLAP`.
const GAP: f32 = 0.8;
const OVERLAP: f32 = 0.2;
/// The lower picture flipped matches the upper with a correlation of at least this.
const MIRRORED: f32 = 0.5;
/// And its contrast is at most this share of the upper one's.
const FAINTER: f32 = 0.7;
/// The grid each face's grey levels are sampled on (inside its box, a tenth in from each side).
const GRID_W: usize = 12;
const GRID_H: usize = 16;
/// Points averaged along each side of a grid cell.
const SUB: usize = 3;
/// The lower face is also sampled shifted by up to this share of its sides, in SHIFTS steps
/// each way along each.
const SHIFT: f32 = 0.15;
const SHIFTS: i32 = 3;

/// `found` without the tiles that are reflections of the tile above them (see the module's
/// doc); `either_way`: the picture may be upside down, and a reflection may lie above its tile.
pub(super) fn drop_reflections(
    img: &RgbImage,
    found: Vec<Detection>,
    either_way: bool,
) -> Vec<Detection> {
    let pairs = lying_as_reflections(&found, either_way);
    let mirrored = mirrored_tiles(img, &found, &pairs);
    found
        .into_iter()
        .enumerate()
        .filter_map(|(j, d)| (!mirrored.contains(&j)).then_some(d))
        .collect()
}

/// Each tile that lies where a face-up tile's reflection would (`Frame::holds_reflection`)
/// and is read so (as that face, unsurely, or face down), with the frames of those tiles it
/// lies in.
fn lying_as_reflections(found: &[Detection], either_way: bool) -> Vec<(usize, Vec<Frame>)> {
    // Each tile's top face, read once: the pairs below ask for it many times.
    let tops: Vec<_> = found.iter().map(Detection::top).collect();
    let frames: Vec<Vec<Frame>> = found
        .iter()
        .map(|d| {
            if d.face_down {
                Vec::new()
            } else {
                Frame::of(d, either_way)
            }
        })
        .collect();
    (0..found.len())
        .filter_map(|j| {
            let uppers: Vec<Frame> = (0..found.len())
                .filter(|&i| i != j)
                .filter_map(|i| tops[i].map(|(face, _)| (i, face)))
                // A reflection reads as its tile turned round, as no face surely, or as a back.
                .filter(|&(_, face)| tops[j].is_none_or(|(seen, p)| seen == face || p < CONFIDENT))
                .flat_map(|(i, _)| frames[i].iter().copied())
                .filter(|f| f.holds_reflection(&found[j]))
                .collect();
            (!uppers.is_empty()).then_some((j, uppers))
        })
        .collect()
}

/// The tiles of `pairs` whose picture is that of a tile above them mirrored
/// (`is_reflection`), the pairs shared between two threads (a picture of a whole set laid
/// in columns, 156 tiles, has over a hundred, 0.6 ms each).
fn mirrored_tiles(
    img: &RgbImage,
    found: &[Detection],
    pairs: &[(usize, Vec<Frame>)],
) -> Vec<usize> {
    let mirrored = |part: &[(usize, Vec<Frame>)]| -> Vec<usize> {
        part.iter()
            .filter(|(j, uppers)| {
                uppers.iter().any(|frame| {
                    let upper = detrended(&grey_grid(img, frame));
                    is_reflection(img, &upper, &frame.moved_to(found[*j].center()))
                })
            })
            .map(|(j, _)| *j)
            .collect()
    };
    if pairs.len() < 2 || !super::has_two_cores() {
        return mirrored(pairs);
    }
    let (first, second) = pairs.split_at(pairs.len() / 2);
    std::thread::scope(|s| {
        let other = s.spawn(|| mirrored(second));
        let mut out = mirrored(first);
        out.extend(
            other
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
        );
        out
    })
}

/// A tile's outline as a centre and two sides: `down`, the side that points most nearly down
/// the picture (its mirror image lies that way), and `across`. A photo taken with the phone
/// a little turned turns both, and the reflection with them.
#[derive(Clone, Copy, Debug)]
struct Frame {
    centre: [f32; 2],
    down: [f32; 2],
    across: [f32; 2],
}

fn sub(p: [f32; 2], q: [f32; 2]) -> [f32; 2] {
    [p[0] - q[0], p[1] - q[1]]
}

fn dot(p: [f32; 2], q: [f32; 2]) -> f32 {
    p[0] * q[0] + p[1] * q[1]
}

fn length(p: [f32; 2]) -> f32 {
    dot(p, p).sqrt()
}

impl Frame {
    /// The frames a tile's reflection is looked for in: down the picture (and up it too,
    /// `either_way`); for a tile read sideways (a photo turned a quarter, or taken from the
    /// side of the table), along its face's own height, either way (which of left and right
    /// its top points to is the finder's weakest call).
    fn of(d: &Detection, either_way: bool) -> Vec<Frame> {
        let c = d.corners;
        let centre = d.center();
        let (down, across) = if d.orientation.is_sideways() {
            (sub(c[3], c[0]), sub(c[1], c[0]))
        } else {
            let (side_a, side_b) = (sub(c[1], c[0]), sub(c[3], c[0]));
            let downward = |v: [f32; 2]| v[1].abs() / length(v).max(f32::EPSILON);
            let (down, across) = if downward(side_b) >= downward(side_a) {
                (side_b, side_a)
            } else {
                (side_a, side_b)
            };
            (
                if down[1] < 0.0 {
                    [-down[0], -down[1]]
                } else {
                    down
                },
                across,
            )
        };
        let frame = Frame {
            centre,
            down,
            across,
        };
        if either_way || d.orientation.is_sideways() {
            let up = [-down[0], -down[1]];
            vec![frame, Frame { down: up, ..frame }]
        } else {
            vec![frame]
        }
    }

    /// The same frame about another centre.
    fn moved_to(&self, centre: [f32; 2]) -> Frame {
        Frame { centre, ..*self }
    }

    /// Where point `p` lies in this frame: (across, down), in shares of those sides, from the
    /// centre.
    fn local(&self, p: [f32; 2]) -> (f32, f32) {
        let v = sub(p, self.centre);
        let (la, ld) = (length(self.across), length(self.down));
        (
            dot(v, self.across) / (la * la).max(f32::EPSILON),
            dot(v, self.down) / (ld * ld).max(f32::EPSILON),
        )
    }

    /// The point at (`s`, `t`) of the outline, each 0 to 1 (`t` from its top).
    fn at(&self, s: f32, t: f32) -> [f32; 2] {
        let (s, t) = (s - 0.5, t - 0.5);
        [
            self.centre[0] + self.across[0] * s + self.down[0] * t,
            self.centre[1] + self.across[1] * s + self.down[1] * t,
        ]
    }

    /// Whether tile `d` lies just below this one, in its column and of its size (its centre
    /// one to two of this tile's heights down, counting the thickness and a gap).
    fn holds_reflection(&self, d: &Detection) -> bool {
        let (x, y) = self.local(d.center());
        let extent = |axis: [f32; 2]| {
            let ts = d
                .corners
                .map(|p| dot(sub(p, self.centre), axis) / dot(axis, axis));
            ts.iter().fold(f32::MIN, |m, &t| m.max(t)) - ts.iter().fold(f32::MAX, |m, &t| m.min(t))
        };
        let tall = extent(self.down);
        x.abs() <= SAME_COLUMN
            && (1.0 - FADED..=1.0 + SAME_SIZE).contains(&tall)
            && (1.0 - OVERLAP..=1.0 + GAP).contains(&y)
    }
}

/// Whether the picture in `frame` (a tile's frame moved onto the tile below it) is grey grid
/// `upper` flipped upside down and clearly fainter: of its grids shifted by up to SHIFT of
/// its sides each way and detrended (a reflection's face is seldom outlined exactly where the
/// mirror puts it), the one that best matches.
fn is_reflection(img: &RgbImage, upper: &[f32], frame: &Frame) -> bool {
    let step = SHIFT / SHIFTS as f32;
    let shifts = (-SHIFTS..=SHIFTS).flat_map(|i| (-SHIFTS..=SHIFTS).map(move |j| (i, j)));
    let best = shifts
        .map(|(i, j)| {
            let moved = frame.moved_to(frame.at(0.5 + step * i as f32, 0.5 + step * j as f32));
            let g = detrended(&grey_grid(img, &moved));
            (correlation(upper, &flip(&g)), spread(&g))
        })
        .max_by(|x, y| x.0.total_cmp(&y.0));
    let su = spread(upper);
    best.is_some_and(|(r, sl)| su > 0.0 && sl <= FAINTER * su && r >= MIRRORED)
}

/// Grid `g` upside down.
fn flip(g: &[f32]) -> Vec<f32> {
    g.chunks(GRID_W)
        .rev()
        .flat_map(|row| row.iter().copied())
        .collect()
}

/// Grid `g` less the plane that best fits it (a reflection fades downwards).
fn detrended(g: &[f32]) -> Vec<f32> {
    let m = mean(g);
    let coord = |k: usize| {
        (
            (k % GRID_W) as f32 - (GRID_W as f32 - 1.0) / 2.0,
            (k / GRID_W) as f32 - (GRID_H as f32 - 1.0) / 2.0,
        )
    };
    let (mut sxx, mut syy, mut sxv, mut syv) = (0.0, 0.0, 0.0, 0.0);
    for (k, v) in g.iter().enumerate() {
        let (x, y) = coord(k);
        sxx += x * x;
        syy += y * y;
        sxv += x * (v - m);
        syv += y * (v - m);
    }
    let (bx, by) = (sxv / sxx, syv / syy);
    g.iter()
        .enumerate()
        .map(|(k, v)| {
            let (x, y) = coord(k);
            v - m - bx * x - by * y
        })
        .collect()
}

/// Grey levels (0..1) on a GRID_W × GRID_H grid inside `frame`, a tenth in from each side,
/// row by row from its top: each the mean of SUB × SUB points of its cell (thin strokes fall
/// between single points).
fn grey_grid(img: &RgbImage, frame: &Frame) -> Vec<f32> {
    // Where the points lie along each side, worked out once (a picture of a whole set laid in
    // columns samples grids some 7,000 times).
    let along = |cell: usize, sub: usize, cells: usize| {
        0.1 + 0.8 * (cell as f32 + (sub as f32 + 0.5) / SUB as f32) / cells as f32
    };
    let ss: [f32; GRID_W * SUB] = std::array::from_fn(|k| along(k / SUB, k % SUB, GRID_W));
    let ts: [f32; GRID_H * SUB] = std::array::from_fn(|k| along(k / SUB, k % SUB, GRID_H));
    let pixels = Pixels::of(img);
    let mut out = Vec::with_capacity(GRID_W * GRID_H);
    for gy in 0..GRID_H {
        for gx in 0..GRID_W {
            let mut sum = 0.0;
            for &t in &ts[gy * SUB..(gy + 1) * SUB] {
                for &s in &ss[gx * SUB..(gx + 1) * SUB] {
                    let p = frame.at(s, t);
                    sum += pixels.grey(p[0], p[1]);
                }
            }
            out.push(sum / (SUB * SUB) as f32);
        }
    }
    out
}

/// A picture's pixels as grey levels are read from them.
struct Pixels<'a> {
    raw: &'a [u8],
    w: u32,
    h: u32,
}

impl<'a> Pixels<'a> {
    fn of(img: &'a RgbImage) -> Pixels<'a> {
        Pixels {
            raw: img.as_raw(),
            w: img.width(),
            h: img.height(),
        }
    }

    /// The grey level (0..1) of the pixel at `x`, `y` (the nearest inside the picture).
    fn grey(&self, x: f32, y: f32) -> f32 {
        let x = (x.max(0.0) as u32).min(self.w.saturating_sub(1));
        let y = (y.max(0.0) as u32).min(self.h.saturating_sub(1));
        let at = (y as usize * self.w as usize + x as usize) * 3;
        match self.raw.get(at..at + 3) {
            Some(&[r, g, b]) => {
                (0.299 * f32::from(r) + 0.587 * f32::from(g) + 0.114 * f32::from(b)) / 255.0
            }
            _ => 0.0,
        }
    }
}

fn mean(v: &[f32]) -> f32 {
    v.iter().sum::<f32>() / v.len().max(1) as f32
}

/// The standard deviation of `v`.
fn spread(v: &[f32]) -> f32 {
    let m = mean(v);
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f32>() / v.len().max(1) as f32).sqrt()
}

/// Pearson's correlation of `a` and `b` (0 when either is flat).
fn correlation(a: &[f32], b: &[f32]) -> f32 {
    let (ma, mb) = (mean(a), mean(b));
    let (sa, sb) = (spread(a), spread(b));
    if sa == 0.0 || sb == 0.0 {
        return 0.0;
    }
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - ma) * (y - mb))
        .sum::<f32>()
        / (a.len() as f32 * sa * sb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    fn tile(b: [f32; 4]) -> Detection {
        Detection::upright(b, vec![0.9])
    }

    /// A white tile at `b` with a dark bar across its top third, drawn with `ink` on `paper`,
    /// flipped upside down when `flip`.
    fn draw(img: &mut RgbImage, b: [u32; 4], paper: u8, ink: u8, flip: bool) {
        for y in b[1]..b[3] {
            for x in b[0]..b[2] {
                let t = (y - b[1]) as f32 / (b[3] - b[1]) as f32;
                let t = if flip { 1.0 - t } else { t };
                let bar = (0.15..0.4).contains(&t) || (x - b[0]) < (b[2] - b[0]) / 3;
                let v = if bar { ink } else { paper };
                img.put_pixel(x, y, Rgb([v, v, v]));
            }
        }
    }

    /// A tile at (50, 40)–(110, 120) on a dark table and its fainter mirror image below it,
    /// at (50, 130)–(110, 210).
    fn tile_and_mirror() -> RgbImage {
        let mut img = RgbImage::from_pixel(200, 300, Rgb([30, 30, 30]));
        draw(&mut img, [50, 40, 110, 120], 240, 20, false);
        draw(&mut img, [50, 130, 110, 210], 110, 60, true);
        img
    }

    #[test]
    fn a_fainter_mirror_image_below_a_tile_is_dropped() {
        let img = tile_and_mirror();
        let found = vec![
            tile([50.0, 40.0, 110.0, 120.0]),
            tile([50.0, 130.0, 110.0, 210.0]),
        ];
        let kept = drop_reflections(&img, found, false);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].bounds()[1], 40.0);
    }

    #[test]
    fn a_mirror_image_above_a_tile_is_dropped_only_in_a_picture_that_may_be_upside_down() {
        let img = image::imageops::rotate180(&tile_and_mirror());
        let found = vec![
            tile([90.0, 180.0, 150.0, 260.0]),
            tile([90.0, 90.0, 150.0, 170.0]),
        ];
        assert_eq!(drop_reflections(&img, found.clone(), false).len(), 2);
        let kept = drop_reflections(&img, found, true);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].bounds()[1], 180.0);
    }

    #[test]
    fn the_mirror_image_beside_a_tile_read_sideways_is_dropped() {
        // The picture turned a quarter clockwise: (x, y) goes to (300 - y, x); the tiles'
        // tops point right, their corners from the face's top left.
        let img = image::imageops::rotate90(&tile_and_mirror());
        let sideways = |b: [f32; 4]| {
            let turn = |p: [f32; 2]| [300.0 - p[1], p[0]];
            let mut d = tile(b);
            d.corners = [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]].map(turn);
            d.orientation = crate::detection::Orientation::Right;
            d
        };
        let found = vec![
            sideways([50.0, 40.0, 110.0, 120.0]),
            sideways([50.0, 130.0, 110.0, 210.0]),
        ];
        let kept = drop_reflections(&img, found, false);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].bounds()[0], 180.0);
    }

    #[test]
    fn a_mirror_image_outlined_short_where_it_fades_out_is_dropped() {
        // The finder outlines 70% of the mirror image: the rest has faded into the table.
        let img = tile_and_mirror();
        let found = vec![
            tile([50.0, 40.0, 110.0, 120.0]),
            tile([50.0, 130.0, 110.0, 186.0]),
        ];
        assert_eq!(drop_reflections(&img, found, false).len(), 1);
        // Half as tall is no mirror image of it.
        let upper = tile([50.0, 40.0, 110.0, 120.0]);
        assert!(!Frame::of(&upper, false)[0].holds_reflection(&tile([50.0, 130.0, 110.0, 170.0])));
    }

    #[test]
    fn a_faint_mirror_image_read_face_down_is_dropped_and_a_real_back_is_kept() {
        let img = tile_and_mirror();
        let down = |b| Detection {
            face_down: true,
            probs: Vec::new(),
            ..tile(b)
        };
        let found = vec![
            tile([50.0, 40.0, 110.0, 120.0]),
            down([50.0, 130.0, 110.0, 210.0]),
        ];
        assert_eq!(drop_reflections(&img, found.clone(), false).len(), 1);
        // A plain back below the face: no flipped copy of it.
        let mut img = RgbImage::from_pixel(200, 300, Rgb([30, 30, 30]));
        draw(&mut img, [50, 40, 110, 120], 240, 20, false);
        draw(&mut img, [50, 130, 110, 210], 90, 90, false);
        assert_eq!(drop_reflections(&img, found, false).len(), 2);
    }

    #[test]
    fn a_twin_lit_alike_or_not_mirrored_or_not_below_is_kept() {
        let found = || {
            vec![
                tile([50.0, 40.0, 110.0, 120.0]),
                tile([50.0, 130.0, 110.0, 210.0]),
            ]
        };
        // The same face mirrored below, as bright: a real tile.
        let mut img = RgbImage::from_pixel(200, 300, Rgb([30, 30, 30]));
        draw(&mut img, [50, 40, 110, 120], 240, 20, false);
        draw(&mut img, [50, 130, 110, 210], 240, 20, true);
        assert_eq!(drop_reflections(&img, found(), false).len(), 2);
        // Fainter but not mirrored: the same way up.
        let mut img = RgbImage::from_pixel(200, 300, Rgb([30, 30, 30]));
        draw(&mut img, [50, 40, 110, 120], 240, 20, false);
        draw(&mut img, [50, 130, 110, 210], 110, 60, false);
        assert_eq!(drop_reflections(&img, found(), false).len(), 2);
        // Mirrored and fainter, but a tile's width to the side, or two tiles down.
        let upper = tile([50.0, 40.0, 110.0, 120.0]);
        assert!(Frame::of(&upper, false)[0].holds_reflection(&tile([50.0, 130.0, 110.0, 210.0])));
        assert!(!Frame::of(&upper, false)[0].holds_reflection(&tile([110.0, 130.0, 170.0, 210.0])));
        assert!(!Frame::of(&upper, false)[0].holds_reflection(&tile([50.0, 230.0, 110.0, 310.0])));
    }

    #[test]
    fn in_a_photo_taken_turned_the_reflection_is_looked_for_along_the_tile() {
        // A tile turned 12° and its mirror image a little more than its height further along
        // its own side.
        let turn = |p: [f32; 2], a: f32| {
            let (s, c) = a.to_radians().sin_cos();
            [100.0 + p[0] * c - p[1] * s, 100.0 + p[0] * s + p[1] * c]
        };
        let outline = |dy: f32| {
            let at = |x: f32, y: f32| turn([x, y + dy], 12.0);
            Detection {
                corners: [
                    at(-30.0, -40.0),
                    at(30.0, -40.0),
                    at(30.0, 40.0),
                    at(-30.0, 40.0),
                ],
                ..tile([0.0, 0.0, 1.0, 1.0])
            }
        };
        let (upper, lower) = (outline(0.0), outline(90.0));
        assert!(Frame::of(&upper, false)[0].holds_reflection(&lower));
        // Upright boxes put it more than a fifth of a tile to the side.
        let (a, b) = (upper.bounds(), lower.bounds());
        assert!((b[0] - a[0]).abs() > 0.2 * (a[2] - a[0]));
    }
}

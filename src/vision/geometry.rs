//! Geometry of found tiles: turned rectangles, orientation by shape, overlaps, and cutting a
//! face out of the photo along its own axes.

use image::RgbImage;
use ndarray::ArrayViewMut3;

use super::{CROP_H, CROP_W};
use crate::detection::Orientation;

/// A sideways tile is wider than the tiles around it by about the square of a tile's aspect
/// (4:3 → 1.78×) when the camera squeezes every tile alike (from above, or tilted).
pub(super) const SIDEWAYS_RATIO: f32 = 1.4;

/// Seen from the seat, a tile lying across a meld lying low differs less: the finder draws its
/// box too deep and too short (its aspect 1.2–1.75× its row's, not 1.78×; 1.1–1.35× its
/// row's length). In such a row a box at least ACROSS_FLATTER flatter than its row, and
/// flatter times longer by ACROSS_SIGNS, lies across it. Measured on the boxes of the hands of
/// `tools/real_hands.py --seat --turned` seeds 1–3: the upright tiles of those rows are at
/// most 1.18 flatter, 1.20 both; 171 of 186 claimed tiles called sideways, none upright. (The
/// same rule with a lower quantile of the row for its typical tile: 179, and one upright tile
/// turned; the rest show the finder's box no other shape than an upright tile's.)
const ACROSS_FLATTER: f32 = 1.1;
const ACROSS_SIGNS: f32 = 1.3;

/// A found tile as `orientations` weighs it: its centre in the picture, its turned
/// rectangle's angle (radians, within ±45°) and sides (along that angle, across it), and the
/// finder's four probabilities.
pub(super) struct Seen {
    pub(super) centre: [f32; 2],
    pub(super) angle: f32,
    pub(super) sides: [f32; 2],
    pub(super) turn: [f32; 4],
}

impl Seen {
    fn aspect(&self) -> f32 {
        (self.sides[0] / self.sides[1].max(1e-3)).max(1e-3)
    }
}

/// Each box's orientation from the finder's four probabilities (up, right, down, left), checked
/// against its shape. Most tiles of a photo lie one way (the hand's row); a box whose aspect
/// differs from the typical aspect of its row by SIDEWAYS_RATIO or more lies across the row,
/// and one with the row's aspect lies with the photo's tiles. The finder alone often calls a
/// real sideways tile upright; its shape does not lie. The row's, not the photo's: from the
/// seat, the standing hand shows its faces whole and the melds lying in front of it squeezed,
/// and by the photo's typical shape one of the two rows looked sideways (`row_typical`; with
/// the layout's rule for rows lying in front, `tools/real_hands.py --seat` seeds 1–3: 76 → 113
/// of 120 hands read exactly; tiles misread on the `seat` photos of `tools/eval_photos.py`
/// 4 → 0; the other sets and the 180 hands seen from above as they were). In a row lying low,
/// smaller signs do (ACROSS_SIGNS; `--seat --turned` seeds 1–3: 80 → 110 of 120, 4–6: 101).
#[cfg(test)]
pub(super) fn orientations(boxes: &[Seen]) -> Vec<Orientation> {
    turns(boxes).into_iter().map(|t| t.0).collect()
}

/// Each box's orientation (`orientations`), and whether it was left upright in a row lying
/// low, where a tile across the row may show no other shape than an upright one (`read_faces`
/// then asks the classifier which way its face reads best).
pub(super) fn turns(boxes: &[Seen]) -> Vec<(Orientation, bool)> {
    const TURNS: [Orientation; 4] = [
        Orientation::Up,
        Orientation::Right,
        Orientation::Down,
        Orientation::Left,
    ];
    let argmax = |p: &[f32; 4], among: &[usize]| {
        among
            .iter()
            .copied()
            .max_by(|&i, &j| p[i].total_cmp(&p[j]))
            .unwrap_or(0)
    };
    if boxes.len() < 4 {
        return boxes
            .iter()
            .map(|b| (TURNS[argmax(&b.turn, &[0, 1, 2, 3])], false))
            .collect();
    }
    let rows = Rows::of(boxes);
    boxes
        .iter()
        .zip(rows.across())
        .map(|(b, (lies_across, low))| {
            let is_upright = lies_across != rows.typical_upright;
            let turn = TURNS[argmax(&b.turn, if is_upright { &[0, 2] } else { &[1, 3] })];
            (turn, low)
        })
        .collect()
}

/// The rows of a photo's boxes as `turns` weighs them.
struct Rows<'a> {
    boxes: &'a [Seen],
    /// The photo's typical aspect, and whether its typical tile stands upright.
    typical: f32,
    typical_upright: bool,
    /// Where each box lies across the rows (`spans_across_rows`).
    spans: Vec<(f32, f32)>,
    /// Which side of a box runs along its row.
    along: usize,
}

impl<'a> Rows<'a> {
    fn of(boxes: &'a [Seen]) -> Rows<'a> {
        let typical = median(boxes.iter().map(Seen::aspect).collect());
        // Which way the typical tile lies: the finder's vote over the boxes of typical shape.
        let (mut upright, mut across) = (0.0f32, 0.0f32);
        for b in boxes {
            let r = b.aspect() / typical;
            if r < SIDEWAYS_RATIO && r > 1.0 / SIDEWAYS_RATIO {
                upright += b.turn[0] + b.turn[2];
                across += b.turn[1] + b.turn[3];
            }
        }
        let typical_upright = upright >= across;
        Rows {
            boxes,
            typical,
            typical_upright,
            spans: spans_across_rows(boxes, typical_upright),
            along: usize::from(!typical_upright),
        }
    }

    /// An aspect as width along the row over depth across it.
    fn wide(&self, aspect: f32) -> f32 {
        if self.typical_upright {
            aspect
        } else {
            1.0 / aspect
        }
    }

    /// For each box, whether it lies across its row, and whether it was left upright in a
    /// row lying low: its faces wider than deep, where tiles apart from it show theirs deeper
    /// (standing; a close-up of a few tiles squeezed looks like such a row alone).
    fn across(&self) -> Vec<(bool, bool)> {
        let lying_low = |t: &RowShape| self.wide(t.aspect) > 1.0 && t.other_shape_apart;
        self.boxes
            .iter()
            .zip(&self.spans)
            .map(|(b, &span)| {
                let row = row_typical(span, &self.spans, self.boxes, self.along);
                let r = b.aspect() / row.map_or(self.typical, |t| t.aspect);
                let mut lies_across = r >= SIDEWAYS_RATIO || r <= 1.0 / SIDEWAYS_RATIO;
                // In a row lying low, a box flatter across the row and longer along it, by less.
                let low = row.filter(|t| !lies_across && lying_low(t));
                if let Some(t) = low {
                    let longer = b.sides[self.along] / t.length;
                    let flatter = self.wide(r);
                    lies_across = flatter >= ACROSS_FLATTER && flatter * longer >= ACROSS_SIGNS;
                }
                (lies_across, low.is_some() && !lies_across)
            })
            .collect()
    }
}

/// Where each box lies across the rows, and how far it reaches across them, measured square
/// to the photo's slant (the boxes' median angle): rows run along the tiles' `along` side
/// where the photo's tiles stand upright (`rows_along`), along their `across` side where they
/// lie across it.
fn spans_across_rows(boxes: &[Seen], rows_along: bool) -> Vec<(f32, f32)> {
    let (sin, cos) = median(boxes.iter().map(|b| b.angle).collect()).sin_cos();
    boxes
        .iter()
        .map(|o| {
            let (at, reach) = if rows_along {
                (-sin * o.centre[0] + cos * o.centre[1], o.sides[1])
            } else {
                (cos * o.centre[0] + sin * o.centre[1], o.sides[0])
            };
            (at - reach / 2.0, at + reach / 2.0)
        })
        .collect()
}

/// The typical shape of a row of tiles: its boxes' median aspect and median length along it,
/// and whether a tile outside the row has its face the other way (deeper than wide where the
/// row's are wider than deep: a row lying low in front of standing tiles, seen from the seat).
#[derive(Clone, Copy)]
struct RowShape {
    aspect: f32,
    length: f32,
    other_shape_apart: bool,
}

/// The typical shape of the row of the box spanning `(lo, hi)` across the rows: of the boxes
/// overlapping it there by half the smaller (`spans`, one per box). `None` for a tile alone
/// in its row, and for two of different shapes.
fn row_typical(
    (lo, hi): (f32, f32),
    spans: &[(f32, f32)],
    boxes: &[Seen],
    along: usize,
) -> Option<RowShape> {
    let (in_row, apart): (Vec<usize>, Vec<usize>) = (0..boxes.len()).partition(|&k| {
        let (olo, ohi) = spans[k];
        hi.min(ohi) - lo.max(olo) >= 0.5 * (hi - lo).min(ohi - olo)
    });
    let in_row: Vec<&Seen> = in_row.into_iter().map(|k| &boxes[k]).collect();
    let aspects: Vec<f32> = in_row.iter().map(|o| o.aspect()).collect();
    let (least, most) = aspects
        .iter()
        .fold((f32::MAX, 0.0f32), |(l, m), &a| (l.min(a), m.max(a)));
    match in_row.len() {
        0 | 1 => None,
        2 if most / least >= SIDEWAYS_RATIO => None,
        _ => {
            let aspect = median(aspects);
            Some(RowShape {
                aspect,
                length: median(in_row.iter().map(|o| o.sides[along]).collect()),
                other_shape_apart: apart
                    .iter()
                    .any(|&k| (boxes[k].aspect() - 1.0) * (aspect - 1.0) < 0.0),
            })
        }
    }
}

pub(super) fn median(mut v: Vec<f32>) -> f32 {
    v.sort_by(f32::total_cmp);
    v[v.len() / 2]
}

/// A tile's face as a turned rectangle in source pixels: `along` is the side turned by
/// `angle` (radians, within ±45°) from the x axis, `across` the other.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rect {
    pub centre: [f32; 2],
    pub angle: f32,
    pub along: f32,
    pub across: f32,
}

impl Rect {
    /// The corners, clockwise from the top left of the face as it reads when its top points
    /// `o`.
    pub fn corners(&self, o: Orientation) -> [[f32; 2]; 4] {
        let (sin, cos) = self.angle.sin_cos();
        let (ax, ay) = (cos * self.along / 2.0, sin * self.along / 2.0);
        let (bx, by) = (-sin * self.across / 2.0, cos * self.across / 2.0);
        let [cx, cy] = self.centre;
        // The rectangle's own top left, top right, bottom right, bottom left.
        let tl = [cx - ax - bx, cy - ay - by];
        let tr = [cx + ax - bx, cy + ay - by];
        let br = [cx + ax + bx, cy + ay + by];
        let bl = [cx - ax + bx, cy - ay + by];
        match o {
            Orientation::Up => [tl, tr, br, bl],
            Orientation::Right => [tr, br, bl, tl],
            Orientation::Down => [br, bl, tl, tr],
            Orientation::Left => [bl, tl, tr, br],
        }
    }
}

/// Cuts the face whose corners are given (clockwise from its top left) out of the photo,
/// upright, into `crop` (3 × CROP_H × CROP_W). Each crop pixel averages a grid of bilinear
/// samples as fine as the photo's pixels (up to 4×4), so that a big tile is shrunk smoothly.
/// The sample points' column terms are worked out once per crop and each row's once per row
/// (same sums in the same order, so the same values as working each out afresh).
pub(super) fn sample_face(img: &RgbImage, corners: &[[f32; 2]; 4], mut crop: ArrayViewMut3<f32>) {
    let Some(pixels) = Bilinear::of(img) else {
        return;
    };
    let FaceGrid { o, right, down, n } = FaceGrid::of(corners);
    let weight = 1.0 / (n * n) as f32;
    // Where each column's samples start: the corner plus the way along the top side.
    let cols: Vec<[f32; 2]> = (0..CROP_W * n)
        .map(|k| {
            let u = (k / n) as f32 + ((k % n) as f32 + 0.5) / n as f32;
            let u = u / CROP_W as f32;
            [o[0] + right[0] * u, o[1] + right[1] * u]
        })
        .collect();
    let mut sums = vec![[0.0f32; 3]; CROP_W];
    for y in 0..CROP_H {
        sums.fill([0.0; 3]);
        for sy in 0..n {
            let v = (y as f32 + (sy as f32 + 0.5) / n as f32) / CROP_H as f32;
            let along = [down[0] * v, down[1] * v];
            for (sum, samples) in sums.iter_mut().zip(cols.chunks_exact(n)) {
                for col in samples {
                    pixels.add([col[0] + along[0], col[1] + along[1]], sum);
                }
            }
        }
        for (x, sum) in sums.iter().enumerate() {
            for (c, a) in sum.iter().enumerate() {
                crop[[c, y, x]] = a * weight;
            }
        }
    }
}

/// Each byte as a float, looked up: converting each took a quarter of the face cut's time.
static AS_F32: [f32; 256] = {
    let mut t = [0.0; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i as f32;
        i += 1;
    }
    t
};

/// A photo's pixels read bilinearly, its sizes worked out once.
struct Bilinear<'a> {
    raw: &'a [u8],
    w: usize,
    h: usize,
    xmax: f32,
    ymax: f32,
}

impl<'a> Bilinear<'a> {
    /// `None` for an empty photo.
    fn of(img: &'a RgbImage) -> Option<Bilinear<'a>> {
        let (w, h) = (img.width() as usize, img.height() as usize);
        (w > 0 && h > 0).then(|| Bilinear {
            raw: img.as_raw(),
            w,
            h,
            xmax: (w - 1) as f32,
            ymax: (h - 1) as f32,
        })
    }

    /// Adds the photo's colour at `at` (pixel centres at +0.5; clamped to the photo), weighed
    /// bilinearly from its four nearest pixels, to `acc`.
    #[inline]
    fn add(&self, at: [f32; 2], acc: &mut [f32; 3]) {
        let stride = self.w * 3;
        let px = (at[0] - 0.5).clamp(0.0, self.xmax);
        let py = (at[1] - 0.5).clamp(0.0, self.ymax);
        let (x0, y0) = (px as usize, py as usize);
        let dx = if x0 + 1 < self.w { 3 } else { 0 };
        let dy = if y0 + 1 < self.h { stride } else { 0 };
        let (fx, fy) = (px - x0 as f32, py - y0 as f32);
        let (w00, w01) = ((1.0 - fx) * (1.0 - fy), fx * (1.0 - fy));
        let (w10, w11) = ((1.0 - fx) * fy, fx * fy);
        let i = y0 * stride + x0 * 3;
        let (top, bottom) = (&self.raw[i..i + dx + 3], &self.raw[i + dy..i + dy + dx + 3]);
        let (t0, t1, b0, b1) = (
            &top[..3],
            &top[dx..dx + 3],
            &bottom[..3],
            &bottom[dx..dx + 3],
        );
        let f = |v: u8| AS_F32[usize::from(v)];
        for c in 0..3 {
            acc[c] += f(t0[c]) * w00 + f(t1[c]) * w01 + f(b0[c]) * w10 + f(b1[c]) * w11;
        }
    }
}

/// How a face is sampled: from its top left corner `o`, along its top side (`right`) and its
/// left side (`down`), `n`×`n` samples a crop pixel, as fine as the photo's pixels (up to 4).
struct FaceGrid {
    o: [f32; 2],
    right: [f32; 2],
    down: [f32; 2],
    n: usize,
}

impl FaceGrid {
    fn of(corners: &[[f32; 2]; 4]) -> FaceGrid {
        let o = corners[0];
        let right = [corners[1][0] - o[0], corners[1][1] - o[1]];
        let down = [corners[3][0] - o[0], corners[3][1] - o[1]];
        let step =
            (right[0].hypot(right[1]) / CROP_W as f32).max(down[0].hypot(down[1]) / CROP_H as f32);
        let n = ((step / 2.0).ceil() as usize).clamp(1, 4);
        FaceGrid { o, right, down, n }
    }
}

/// How much of the smaller of two boxes lies inside the other (0..1).
pub(super) fn covered(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    let ix = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let iy = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let smaller = ((a[2] - a[0]) * (a[3] - a[1])).min((b[2] - b[0]) * (b[3] - b[1]));
    if smaller > 0.0 {
        ix * iy / smaller
    } else {
        0.0
    }
}

pub(super) fn iou(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    let ix = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let iy = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = ix * iy;
    let union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
    if union > 0.0 { inter / union } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array3, Array4, Axis};

    fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
        (a[0] - b[0]).hypot(a[1] - b[1])
    }

    #[test]
    fn a_turned_rect_lays_its_sides_along_its_angle() {
        let r = Rect {
            centre: [100.0, 80.0],
            angle: 30f32.to_radians(),
            along: 40.0,
            across: 20.0,
        };
        let c = r.corners(Orientation::Up);
        assert!((dist(c[0], c[1]) - 40.0).abs() < 1e-3);
        assert!((dist(c[1], c[2]) - 20.0).abs() < 1e-3);
        let top = (c[1][1] - c[0][1]).atan2(c[1][0] - c[0][0]).to_degrees();
        assert!((top - 30.0).abs() < 1e-3, "top edge at {top}°");
        // Turned a quarter: the face's top edge is the short side, and the corners go round.
        let side = r.corners(Orientation::Right);
        assert!((dist(side[0], side[1]) - 20.0).abs() < 1e-3);
        assert_eq!(side[0], c[1]);
        // Centred where the box was.
        let mid = [
            c.iter().map(|p| p[0]).sum::<f32>() / 4.0,
            c.iter().map(|p| p[1]).sum::<f32>() / 4.0,
        ];
        assert!(dist(mid, r.centre) < 1e-3);
    }

    /// A face turned by 25° whose top half is red and bottom half blue, on grey.
    fn turned_face(r: &Rect) -> RgbImage {
        let (sin, cos) = r.angle.sin_cos();
        RgbImage::from_fn(240, 200, |x, y| {
            let (dx, dy) = (x as f32 + 0.5 - r.centre[0], y as f32 + 0.5 - r.centre[1]);
            let (u, v) = (dx * cos + dy * sin, -dx * sin + dy * cos);
            if u.abs() > r.along / 2.0 || v.abs() > r.across / 2.0 {
                image::Rgb([128, 128, 128])
            } else if v < 0.0 {
                image::Rgb([220, 20, 20])
            } else {
                image::Rgb([20, 20, 220])
            }
        })
    }

    #[test]
    fn a_turned_face_is_cut_out_upright() {
        let r = Rect {
            centre: [120.0, 100.0],
            angle: 25f32.to_radians(),
            along: 90.0,
            across: 120.0,
        };
        let img = turned_face(&r);
        let mut crops = Array4::<f32>::zeros((2, 3, CROP_H, CROP_W));
        sample_face(
            &img,
            &r.corners(Orientation::Up),
            crops.index_axis_mut(Axis(0), 0),
        );
        sample_face(
            &img,
            &r.corners(Orientation::Down),
            crops.index_axis_mut(Axis(0), 1),
        );
        // Away from the edges and the middle line, every pixel is the face's colour.
        for y in (4..CROP_H / 2 - 4).chain(CROP_H / 2 + 4..CROP_H - 4) {
            for x in 4..CROP_W - 4 {
                let top = y < CROP_H / 2;
                let (red, blue) = (crops[[0, 0, y, x]], crops[[0, 2, y, x]]);
                assert_eq!(
                    red > blue,
                    top,
                    "upright crop at {x},{y}: red {red} blue {blue}"
                );
                let (red, blue) = (crops[[1, 0, y, x]], crops[[1, 2, y, x]]);
                assert_eq!(
                    red > blue,
                    !top,
                    "turned crop at {x},{y}: red {red} blue {blue}"
                );
                assert!(
                    crops[[0, 1, y, x]] < 60.0,
                    "grey background inside the crop at {x},{y}"
                );
            }
        }
    }

    /// `sample_face` worked out the plain way: every sample point afresh (on the same grid).
    fn plain_sample_face(img: &RgbImage, corners: &[[f32; 2]; 4]) -> Array3<f32> {
        let mut crop = Array3::<f32>::zeros((3, CROP_H, CROP_W));
        let (w, h) = img.dimensions();
        let FaceGrid { o, right, down, n } = FaceGrid::of(corners);
        for y in 0..CROP_H {
            for x in 0..CROP_W {
                let mut acc = [0.0f32; 3];
                for sy in 0..n {
                    let v = (y as f32 + (sy as f32 + 0.5) / n as f32) / CROP_H as f32;
                    for sx in 0..n {
                        let u = (x as f32 + (sx as f32 + 0.5) / n as f32) / CROP_W as f32;
                        let px =
                            (o[0] + right[0] * u + down[0] * v - 0.5).clamp(0.0, w as f32 - 1.0);
                        let py =
                            (o[1] + right[1] * u + down[1] * v - 0.5).clamp(0.0, h as f32 - 1.0);
                        let (x0, y0) = (px as u32, py as u32);
                        let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
                        let (fx, fy) = (px - x0 as f32, py - y0 as f32);
                        let (w00, w01) = ((1.0 - fx) * (1.0 - fy), fx * (1.0 - fy));
                        let (w10, w11) = ((1.0 - fx) * fy, fx * fy);
                        for (c, a) in acc.iter_mut().enumerate() {
                            let p = |x: u32, y: u32| f32::from(img.get_pixel(x, y)[c]);
                            *a += p(x0, y0) * w00
                                + p(x1, y0) * w01
                                + p(x0, y1) * w10
                                + p(x1, y1) * w11;
                        }
                    }
                }
                for (c, a) in acc.iter().enumerate() {
                    crop[[c, y, x]] = a * (1.0 / (n * n) as f32);
                }
            }
        }
        crop
    }

    #[test]
    fn the_face_cut_is_the_plain_bilinear_average_exactly() {
        let img = RgbImage::from_fn(300, 220, |x, y| {
            image::Rgb([(x * 7 + y) as u8, ((y * 5) ^ x) as u8, ((x * y) >> 3) as u8])
        });
        // Small, big (4×4 samples), turned, and partly outside the photo.
        for (centre, angle, along, across) in [
            ([150.0, 110.0], 0.0f32, 40.0, 50.0),
            ([140.0, 100.0], 25.0, 150.0, 200.0),
            ([60.0, 70.0], -40.0, 90.0, 70.0),
            ([5.0, 215.0], 60.0, 120.0, 160.0),
        ] {
            let r = Rect {
                centre,
                angle: angle.to_radians(),
                along,
                across,
            };
            let corners = r.corners(Orientation::Up);
            let mut crop = Array3::<f32>::zeros((3, CROP_H, CROP_W));
            sample_face(&img, &corners, crop.view_mut());
            let plain = plain_sample_face(&img, &corners);
            let differ = crop.iter().zip(&plain).filter(|(a, b)| a != b).count();
            assert_eq!(differ, 0, "{corners:?}: {differ} values differ");
        }
    }

    #[test]
    fn a_face_partly_outside_the_photo_is_cut_without_panicking() {
        let r = Rect {
            centre: [5.0, 195.0],
            angle: -40f32.to_radians(),
            along: 300.0,
            across: 500.0,
        };
        let img = RgbImage::from_pixel(240, 200, image::Rgb([10, 200, 10]));
        let mut crops = Array4::<f32>::zeros((1, 3, CROP_H, CROP_W));
        sample_face(
            &img,
            &r.corners(Orientation::Left),
            crops.index_axis_mut(Axis(0), 0),
        );
        assert!(crops.iter().all(|v| (0.0..=255.0).contains(v)));
        assert!((crops[[0, 1, 10, 10]] - 200.0).abs() < 1e-3);
    }

    /// A box at bounds `b` (its sides those of the bounds) with the finder's probabilities `p`.
    fn seen(b: [f32; 4], p: [f32; 4]) -> Seen {
        Seen {
            centre: [(b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0],
            angle: 0.0,
            sides: [b[2] - b[0], b[3] - b[1]],
            turn: p,
        }
    }

    /// Boxes of a row: `n` upright tiles 30×40 and, after them, the given extra boxes.
    fn row(n: usize, extra: &[([f32; 4], [f32; 4])]) -> Vec<Seen> {
        let mut v: Vec<_> = (0..n)
            .map(|i| {
                let x = i as f32 * 31.0;
                seen([x, 0.0, x + 30.0, 40.0], [0.9, 0.04, 0.03, 0.03])
            })
            .collect();
        v.extend(extra.iter().map(|&(b, p)| seen(b, p)));
        v
    }

    #[test]
    fn a_wide_box_in_an_upright_row_is_sideways_even_if_the_finder_says_up() {
        let wide = ([500.0, 10.0, 540.0, 40.0], [0.6, 0.15, 0.15, 0.1]);
        let o = orientations(&row(6, &[wide]));
        assert!(o[..6].iter().all(|&o| o == Orientation::Up), "{o:?}");
        assert_eq!(o[6], Orientation::Right);
    }

    #[test]
    fn a_tile_of_the_rows_shape_keeps_the_rows_axis() {
        // The finder thinks this upright-shaped tile points left; its shape says up or down.
        let odd = ([500.0, 0.0, 530.0, 40.0], [0.2, 0.1, 0.3, 0.4]);
        let o = orientations(&row(6, &[odd]));
        assert_eq!(o[6], Orientation::Down);
    }

    #[test]
    fn a_photo_turned_a_quarter_keeps_its_tiles_sideways() {
        // Every tile 40×30 and the finder says right: the typical tile lies across.
        let boxes: Vec<_> = (0..6)
            .map(|i| {
                let y = i as f32 * 31.0;
                seen([0.0, y, 40.0, y + 30.0], [0.05, 0.8, 0.05, 0.1])
            })
            .collect();
        assert!(
            orientations(&boxes)
                .iter()
                .all(|&o| o == Orientation::Right)
        );
    }

    #[test]
    fn from_the_seat_the_melds_lying_low_keep_their_axis_and_a_claimed_tile_turns() {
        // Eight standing tiles 30×40; in front of them, lying low, a meld squeezed to 32×22
        // and one whose middle tile, claimed, lies across it (42×17). By the photo's typical
        // shape the squeezed tiles looked sideways; the finder says up for all, surely.
        let mut boxes = standing_row();
        for (x, w, h) in [(0.0, 32.0, 22.0), (33.0, 32.0, 22.0), (66.0, 32.0, 22.0)] {
            boxes.push(seen([x, 50.0, x + w, 50.0 + h], SURE));
        }
        for (x, w, h) in [
            (110.0, 32.0, 22.0),
            (143.0, 42.0, 17.0),
            (186.0, 32.0, 22.0),
        ] {
            boxes.push(seen([x, 50.0 + 22.0 - h, x + w, 72.0], SURE));
        }
        all_up_but(&orientations(&boxes), 12);
    }

    #[test]
    fn from_the_seat_a_claimed_tile_lying_low_turns_though_its_box_is_drawn_too_deep() {
        // As the finder outlines a real one: 40×21 among tiles squeezed to 32×22, 1.31× their
        // aspect (1.78× drawn) and 1.25× their length along the row.
        let mut boxes = standing_row();
        for (k, w, h) in [
            (0, 32.0, 22.0),
            (1, 40.0, 21.0),
            (2, 32.0, 22.0),
            (3, 32.0, 22.0),
        ] {
            let x = k as f32 * 42.0;
            boxes.push(seen([x, 50.0 + 22.0 - h, x + w, 72.0], SURE));
        }
        all_up_but(&orientations(&boxes), 9);
        // The same row alone (a close-up of a few tiles squeezed): no standing tiles behind
        // it say it lies low, and the box, no claimed tile's shape, keeps the row's axis.
        all_up_but(&orientations(&boxes[8..]), usize::MAX);
    }

    #[test]
    fn a_box_a_little_long_among_faces_seen_whole_stays_upright() {
        // Seen from above, a box 1.15× long and 1.26× flat: the finder's error, no claimed
        // tile (that is 1.78× flatter); only a row lying low is judged by the smaller signs.
        let long = ([500.0, 4.0, 534.5, 40.0], [0.9, 0.04, 0.03, 0.03]);
        all_up_but(&orientations(&row(6, &[long])), usize::MAX);
    }

    /// The finder's call for every tile seen from the seat: up, surely.
    const SURE: [f32; 4] = [0.998, 0.001, 0.0005, 0.0005];

    /// Eight standing tiles 30×40, called up surely (SURE).
    fn standing_row() -> Vec<Seen> {
        row(8, &[])
            .into_iter()
            .map(|b| Seen { turn: SURE, ..b })
            .collect()
    }

    /// Every tile up but tile `claimed`, sideways (its top to the right).
    fn all_up_but(o: &[Orientation], claimed: usize) {
        for (k, o) in o.iter().enumerate() {
            let want = if k == claimed {
                Orientation::Right
            } else {
                Orientation::Up
            };
            assert_eq!(*o, want, "tile {k}");
        }
    }

    #[test]
    fn a_slanted_photo_keeps_its_rows_apart() {
        // Turned 0.5 rad: a row of six upright tiles 30×40 and a claimed tile 40×30 across it,
        // and in front of it six tiles lying low, squeezed to 32×22; the finder is unsure.
        let (sin, cos) = 0.5f32.sin_cos();
        let unsure = [0.6, 0.15, 0.15, 0.1];
        let at = |along: f32, across: f32| {
            [
                200.0 + cos * along - sin * across,
                100.0 + sin * along + cos * across,
            ]
        };
        let tile = |centre, sides| Seen {
            centre,
            angle: 0.5,
            sides,
            turn: unsure,
        };
        let mut boxes: Vec<Seen> = (0..6)
            .map(|i| tile(at(i as f32 * 31.0, 0.0), [30.0, 40.0]))
            .collect();
        boxes.push(tile(at(6.0 * 31.0 + 5.0, 5.0), [40.0, 30.0]));
        boxes.extend((0..6).map(|i| tile(at(i as f32 * 33.0, 55.0), [32.0, 22.0])));
        all_up_but(&orientations(&boxes), 6);
    }

    #[test]
    fn few_boxes_follow_the_finder() {
        let boxes = [seen([0.0, 0.0, 30.0, 40.0], [0.1, 0.1, 0.1, 0.7])];
        assert_eq!(orientations(&boxes), vec![Orientation::Left]);
    }
}

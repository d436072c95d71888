//! White dragons in a row of tiles in a dark, grainy picture. Brightened with its grain
//! (`exposure.rs`), a blank face looks to both classifiers like a patch of table, and the
//! finder is less sure of it; but it lies in a row or a column of tiles like any other, their
//! size, one pitch from them, as pale as their faces. A face-up box read as no tile whose
//! likeliest face is the white dragon is kept as one where all of that holds
//! (`blanks_between_tiles`): between two tiles, or at a row's end with two tiles going on from
//! it.
//!
//! Measured on the held-out rf photos at half their light with a sensor's grain
//! (`tools/eval_photos.py`, `rf-holdout+@grain`, session 66): the grids of 36 tiles of one set
//! lost 32 tiles, nearly all white dragons read as no tile at 0.74 to 0.97, found at 0.32 to
//! 0.92; 56 → 67 of 81 read exactly, no false tile more. Every other dark set (`@dark`,
//! `@dim`, `seat@dark`, `seat@grain`, `on-backdrops@dark`, `no-tiles@dark`) reads photo for
//! photo as before: in `seat@grain` the table showing between a hand's melds, found at 0.51
//! and 0.53, is darker than the faces beside it (AS_PALE).

use image::RgbImage;

use super::softness::percentile;
use super::{NOT_A_TILE, reads_white};
use crate::detection::Detection;

/// The finder must be at least this sure of the box (at 0.6, 62 of 81 `@grain` photos read
/// exactly; at 0.3, 64, neither with a false tile).
const SCORE: f32 = 0.3;
/// A neighbour's width and height are within this share of the box's.
const SAME_SIZE: f32 = 0.25;
/// The two neighbours' centres, mirrored through the box's, meet within this share of its
/// short side...
const MIRRORED: f32 = 0.25;
/// ...and lie at least this many of its short sides from it, at most this many of its long
/// sides: touching it, or a small gap away.
const NEAREST: f32 = 0.75;
const FARTHEST: f32 = 1.3;
/// The middle of the box is at least this share as bright as its neighbours' faces' pale
/// ground (PALE_GROUND of their middles): a blank face, not the table showing between tiles.
const AS_PALE: f32 = 0.85;
/// The quantile of a face's grey levels taken for its pale ground (its pips are darker).
const PALE_GROUND: f32 = 0.9;
/// Points looked at in a box's middle, a side.
const SAMPLES: u32 = 16;

/// The face-up boxes of `kept` read as no tile (`p_none`) that are white dragons in a row:
/// likeliest the blank face, found at SCORE or more (`may_be_blank`), with two boxes of their
/// size (SAME_SIZE) along a line (MIRRORED, NEAREST, FARTHEST), their middle as pale as those
/// boxes' faces (AS_PALE). The two lie on either side, one of them a face-up tile read as a
/// face and the other one too or such a box (the middle one of three white dragons); or both
/// are tiles read, on one side, the row going on from the box.
pub(super) fn blanks_between_tiles(
    img: &RgbImage,
    kept: &[Detection],
    p_none: &[f32],
) -> Vec<usize> {
    let read = |j: usize| !kept[j].face_down && p_none[j] < NOT_A_TILE;
    let blanks: Vec<usize> = (0..kept.len())
        .filter(|&i| p_none[i] >= NOT_A_TILE && may_be_blank(&kept[i]))
        .collect();
    let either: Vec<usize> = (0..kept.len())
        .filter(|&j| read(j) || blanks.contains(&j))
        .collect();
    blanks
        .iter()
        .copied()
        .filter(|&i| {
            let d = &kept[i];
            let near: Vec<usize> = either
                .iter()
                .copied()
                .filter(|&j| j != i && same_size(d, &kept[j]))
                .collect();
            let middle = grey_quantile(img, &d.bounds(), 0.5);
            near.iter().enumerate().any(|(a, &j)| {
                near[a + 1..].iter().any(|&k| {
                    in_a_row(d, (&kept[j], read(j)), (&kept[k], read(k)))
                        && middle
                            >= AS_PALE * pale_ground(img, &kept[j]).min(pale_ground(img, &kept[k]))
                })
            })
        })
        .collect()
}

/// Whether `d` lies in a row with `a` and `b` (each with whether it is a tile read): on either
/// side of it, one of them read; or both read, going on from it one way.
fn in_a_row(
    d: &Detection,
    (a, a_read): (&Detection, bool),
    (b, b_read): (&Detection, bool),
) -> bool {
    (a_read || b_read) && on_either_side(d, a, b)
        || a_read && b_read && (in_line_beyond(d, a, b) || in_line_beyond(d, b, a))
}

/// Whether a box may be a white dragon: face up, found at SCORE or more, the blank face its
/// likeliest.
fn may_be_blank(d: &Detection) -> bool {
    !d.face_down && d.score >= SCORE && reads_white(&d.probs)
}

/// Width and height of a box's bounds.
fn size(d: &Detection) -> [f32; 2] {
    let b = d.bounds();
    [b[2] - b[0], b[3] - b[1]]
}

/// Whether `other` is the size of `d` (SAME_SIZE).
fn same_size(d: &Detection, other: &Detection) -> bool {
    let (s, o) = (size(d), size(other));
    (0..2).all(|k| (o[k] / s[k].max(1.0) - 1.0).abs() <= SAME_SIZE)
}

/// Whether `a` and `b` lie on either side of `d` along a line, each touching it or a small
/// gap away (MIRRORED, NEAREST, FARTHEST).
fn on_either_side(d: &Detection, a: &Detection, b: &Detection) -> bool {
    let (c, ca, cb) = (d.center(), a.center(), b.center());
    let s = size(d);
    let (short, long) = (s[0].min(s[1]), s[0].max(s[1]));
    let off = (ca[0] + cb[0] - 2.0 * c[0]).hypot(ca[1] + cb[1] - 2.0 * c[1]);
    let reach = |p: [f32; 2]| (p[0] - c[0]).hypot(p[1] - c[1]);
    off <= MIRRORED * short
        && [ca, cb]
            .into_iter()
            .all(|p| (NEAREST * short..=FARTHEST * long).contains(&reach(p)))
}

/// Whether `a` lies beside `d`, touching it or a small gap away, and `b` beyond `a` as far
/// again along the same line: the row goes on from `d` one way.
fn in_line_beyond(d: &Detection, a: &Detection, b: &Detection) -> bool {
    let (c, ca, cb) = (d.center(), a.center(), b.center());
    let s = size(d);
    let (short, long) = (s[0].min(s[1]), s[0].max(s[1]));
    let off = (cb[0] - 2.0 * ca[0] + c[0]).hypot(cb[1] - 2.0 * ca[1] + c[1]);
    let reach = (ca[0] - c[0]).hypot(ca[1] - c[1]);
    off <= MIRRORED * short && (NEAREST * short..=FARTHEST * long).contains(&reach)
}

/// The pale ground of a tile's face: PALE_GROUND of the grey levels of its middle.
fn pale_ground(img: &RgbImage, d: &Detection) -> f32 {
    grey_quantile(img, &d.bounds(), PALE_GROUND)
}

/// The `q` quantile (0..1) of the grey levels on a grid of SAMPLES × SAMPLES over the middle
/// half of the box `b` (x0, y0, x1, y1); 0 for a box outside the picture.
fn grey_quantile(img: &RgbImage, b: &[f32; 4], q: f32) -> f32 {
    let (w, h) = (img.width(), img.height());
    if w == 0 || h == 0 {
        return 0.0;
    }
    let (bw, bh) = (b[2] - b[0], b[3] - b[1]);
    let mut levels = Vec::with_capacity((SAMPLES * SAMPLES) as usize);
    for j in 0..SAMPLES {
        for i in 0..SAMPLES {
            let x = b[0] + bw * (0.25 + 0.5 * (i as f32 + 0.5) / SAMPLES as f32);
            let y = b[1] + bh * (0.25 + 0.5 * (j as f32 + 0.5) / SAMPLES as f32);
            if x < 0.0 || y < 0.0 || x >= w as f32 || y >= h as f32 {
                continue;
            }
            let p = img.get_pixel(x as u32, y as u32).0;
            levels.push(p.iter().map(|&v| f32::from(v)).sum::<f32>() / 3.0);
        }
    }
    if levels.is_empty() {
        return 0.0;
    }
    percentile(&mut levels, q)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detection::{CLASS_COUNT, Face, Orientation};
    use crate::tile::Tile;

    const W: f32 = 40.0;
    const H: f32 = 56.0;
    const PITCH: f32 = 42.0;

    /// A box of the row at slot `slot` (a tile every PITCH pixels), likeliest `class`.
    fn at(slot: f32, class: usize, score: f32) -> Detection {
        let x = 20.0 + slot * PITCH;
        let mut probs = vec![0.001; CLASS_COUNT];
        probs[class] = 0.02;
        Detection {
            corners: [[x, 20.0], [x + W, 20.0], [x + W, 20.0 + H], [x, 20.0 + H]],
            score,
            face_down: false,
            orientation: Orientation::Up,
            probs,
        }
    }

    /// A dark table (40) with pale faces (200) at the boxes `pale` of `row`, a dark pip in
    /// the middle of each but the blanks (`blank`).
    fn picture(row: &[Detection], pale: &[usize], blank: &[usize]) -> RgbImage {
        let mut img = RgbImage::from_pixel(400, 100, image::Rgb([40, 40, 40]));
        for &i in pale {
            let b = row[i].bounds();
            for y in b[1] as u32..b[3] as u32 {
                for x in b[0] as u32..b[2] as u32 {
                    let pip = !blank.contains(&i) && (x as f32 - row[i].center()[0]).abs() < 4.0;
                    img.put_pixel(x, y, image::Rgb(if pip { [30, 60, 30] } else { [200; 3] }));
                }
            }
        }
        img
    }

    const WHITE: usize = 33;
    const EIGHT_DOTS: usize = 16;

    #[test]
    fn a_pale_blank_between_two_tiles_read_is_kept() {
        assert_eq!(Face::from_class(WHITE), Some(Face::Tile(Tile::P)));
        let row = vec![
            at(0.0, EIGHT_DOTS, 0.9),
            at(1.0, WHITE, 0.7),
            at(2.0, EIGHT_DOTS, 0.9),
            at(3.0, WHITE, 0.7),
        ];
        let p_none = [0.0, 0.9, 0.0, 0.9];
        let img = picture(&row, &[0, 1, 2, 3], &[1, 3]);
        // The one at the row's end has a tile on one side only.
        assert_eq!(blanks_between_tiles(&img, &row, &p_none), vec![1]);
    }

    #[test]
    fn a_blank_at_a_row_s_end_is_kept_where_two_tiles_go_on_from_it() {
        let row = vec![
            at(0.0, EIGHT_DOTS, 0.9),
            at(1.0, EIGHT_DOTS, 0.9),
            at(2.0, WHITE, 0.4),
        ];
        let p_none = [0.0, 0.0, 0.9];
        let img = picture(&row, &[0, 1, 2], &[2]);
        assert_eq!(blanks_between_tiles(&img, &row, &p_none), vec![2]);
        // One tile beside it is not a row.
        assert!(blanks_between_tiles(&img, &row[1..], &p_none[1..]).is_empty());
        // Nor two where the second is not in line.
        let mut bent = row.clone();
        bent[0].corners = bent[0].corners.map(|[x, y]| [x, y + 30.0]);
        assert!(blanks_between_tiles(&img, &bent, &p_none).is_empty());
    }

    #[test]
    fn three_white_dragons_beside_a_tile_keep_the_one_next_to_it() {
        let row = vec![
            at(0.0, EIGHT_DOTS, 0.9),
            at(1.0, WHITE, 0.7),
            at(2.0, WHITE, 0.7),
            at(3.0, WHITE, 0.7),
        ];
        let p_none = [0.0, 0.9, 0.9, 0.9];
        let img = picture(&row, &[0, 1, 2, 3], &[1, 2, 3]);
        // Between a tile read and another blank: kept; between two blanks: not.
        assert_eq!(blanks_between_tiles(&img, &row, &p_none), vec![1]);
    }

    #[test]
    fn the_table_between_tiles_an_unsure_box_and_another_face_are_not_kept() {
        let row = vec![
            at(0.0, EIGHT_DOTS, 0.9),
            at(1.0, WHITE, 0.7),
            at(2.0, EIGHT_DOTS, 0.9),
        ];
        let p_none = [0.0, 0.9, 0.0];
        // The table shows between the two tiles.
        let img = picture(&row, &[0, 2], &[]);
        assert!(blanks_between_tiles(&img, &row, &p_none).is_empty());
        let img = picture(&row, &[0, 1, 2], &[1]);
        let mut unsure = row.clone();
        unsure[1].score = 0.25;
        assert!(blanks_between_tiles(&img, &unsure, &p_none).is_empty());
        let mut other = row.clone();
        other[1].probs = at(1.0, EIGHT_DOTS, 0.7).probs;
        assert!(blanks_between_tiles(&img, &other, &p_none).is_empty());
        // A neighbour of another size is no neighbour.
        let mut small = row;
        small[2].corners = at(2.0, EIGHT_DOTS, 0.9).corners.map(|[x, y]| [x, y * 0.5]);
        assert!(blanks_between_tiles(&img, &small, &p_none).is_empty());
    }
}

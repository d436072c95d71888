//! A face cut short: the finder's outline of a tile sometimes stops short of one of its ends (a 4s
//! outlined over two of its four sticks, a 3m without its top stroke), and the face then reads as
//! another (2s, 2m) and weakly. Once the tiles of a picture are settled, a suited face from 2 to 8
//! read under WEAK is cut again with its outline grown by GROW of its length past each of its four
//! sides in turn, where the grown outline is not another tile's (at most OTHERS of it inside
//! another outline); where one of those reads a higher number of the same suit (at most twice the
//! number: a 1s grown into a 6s was a heap's fragment, `rf-holdout+@tilt` 0015), surer by GAIN (or
//! by half the doubt left), the tile takes that outline and reading. The same face read surer
//! changes nothing (the outline was not short of it), nor does another suit, an honour or a flower:
//! grown, a season of a set never trained on read weakly may read surer as a flower, squeezed into
//! the crop.
//! It runs once the reading of a photo is chosen (`stretch.rs`): run on every picture tried,
//! it swayed which picture's reading was chosen (a photo held askew read level or as taken).

use super::exposure::Evening;
use super::twice::share_inside;
use super::{Reading, Recognizer, VisionError, cut_faces, max};
use crate::detection::Detection;

/// A face read under this is tried with its outline grown.
const WEAK: f32 = 0.8;
/// How far an outline grows past one side: this share of the tile's length across that side.
const GROW: f32 = 0.35;
/// A grown outline wins when its face reads at least this much surer.
const GAIN: f32 = 0.15;
/// A grown outline is tried only where at most this share of it lies inside another tile's.
const OTHERS: f32 = 0.15;
/// The classifier's suited faces come first: 1m..9m, 1p..9p, 1s..9s.
const SUITED: usize = 27;

/// The outline `corners` (clockwise from the face's top left) grown past its top, bottom,
/// left and right side in turn; None where the grown outline leaves the `w` × `h` photo.
fn grown_outlines(corners: &[[f32; 2]; 4], (w, h): (u32, u32)) -> [Option<[[f32; 2]; 4]>; 4] {
    let [tl, tr, br, bl] = *corners;
    let away = |p: [f32; 2], from: [f32; 2]| {
        [
            p[0] + (p[0] - from[0]) * GROW,
            p[1] + (p[1] - from[1]) * GROW,
        ]
    };
    let inside = |c: [[f32; 2]; 4]| {
        c.iter()
            .all(|p| (0.0..=w as f32).contains(&p[0]) && (0.0..=h as f32).contains(&p[1]))
            .then_some(c)
    };
    [
        inside([away(tl, bl), away(tr, br), br, bl]),
        inside([tl, tr, away(br, tr), away(bl, tl)]),
        inside([away(tl, tr), tr, br, away(bl, br)]),
        inside([tl, away(tr, tl), away(br, bl), bl]),
    ]
}

/// The grown outlines of tile `i` of `kept` that leave the other tiles alone, each with `i`
/// (whose they are).
fn grown_tries(kept: &[Detection], i: usize, size: (u32, u32)) -> Vec<(usize, Detection)> {
    grown_outlines(&kept[i].corners, size)
        .into_iter()
        .flatten()
        .map(|corners| Detection {
            corners,
            ..kept[i].clone()
        })
        .filter(|grown| {
            (0..kept.len())
                .filter(|&j| j != i)
                .all(|j| share_inside(grown, &kept[j]) <= OTHERS)
        })
        .map(|grown| (i, grown))
        .collect()
}

impl Recognizer {
    /// The face-up tiles of `kept` read under WEAK, read again with their outlines grown (see
    /// the module's doc). The faces are cut from the photo evened as the first reading evened
    /// it (`exposure::Evening`: evened again here, only where a face is tried).
    pub(super) fn read_grown(
        &mut self,
        photo: &Evening,
        mut kept: Vec<Detection>,
    ) -> Result<Vec<Detection>, VisionError> {
        let img = photo.photo();
        let weak: Vec<usize> = (0..kept.len())
            .filter(|&i| !kept[i].face_down && max(&kept[i].probs) < WEAK)
            .filter(|&i| two_to_eight(&kept[i].probs))
            .collect();
        let (owners, outlines): (Vec<usize>, Vec<Detection>) = weak
            .iter()
            .flat_map(|&i| grown_tries(&kept, i, img.dimensions()))
            .unzip();
        if outlines.is_empty() {
            return Ok(kept);
        }
        let every: Vec<usize> = (0..outlines.len()).collect();
        let reads = self.classify_cuts(&cut_faces(photo.picture(), &outlines, &every))?;
        for &i in &weak {
            let best = (0..outlines.len())
                .filter(|&k| owners[k] == i)
                .max_by(|&a, &b| max(&reads[a].faces).total_cmp(&max(&reads[b].faces)));
            if let Some(k) = best.filter(|&k| wins(&reads[k], &kept[i].probs)) {
                kept[i].corners = outlines[k].corners;
                kept[i].probs = reads[k].faces.clone();
            }
        }
        Ok(kept)
    }
}

/// The class read most surely.
fn top_class(probs: &[f32]) -> Option<usize> {
    (0..probs.len()).max_by(|&a, &b| probs[a].total_cmp(&probs[b]))
}

/// Whether a reading's face is a suited one from 2 to 8 (one that a face cut short can be
/// read as: a 9 has no more to show, and a 1 grown was never a face cut short in the photos
/// measured: `rf-holdout+@upside` 0079, a 1m read 0.65 grew into a 2m).
fn two_to_eight(probs: &[f32]) -> bool {
    top_class(probs).is_some_and(|c| c < SUITED && (1..8).contains(&(c % 9)))
}

/// Whether a grown outline's reading `r` beats the reading `before`: more of the same suit,
/// at most twice as many (a face cut short shows fewer of its pips or strokes, never another
/// suit, honour or flower, and not under half of them), GAIN surer (or half the doubt left,
/// where that is less: a face read 0.79 need not be read 0.94), and more a face than no
/// tile.
fn wins(r: &Reading, before: &[f32]) -> bool {
    let (Some(now), Some(was)) = (top_class(&r.faces), top_class(before)) else {
        return false;
    };
    let (n_now, n_was) = (now % 9 + 1, was % 9 + 1);
    let same_suit = now < SUITED && now / 9 == was / 9;
    let more_of_it = same_suit && n_now > n_was && n_now <= 2 * n_was;
    let (p, was_p) = (max(&r.faces), max(before));
    let surer = p >= was_p + GAIN.min((1.0 - was_p) / 2.0);
    more_of_it && surer && p > r.none
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(a: [[f32; 2]; 4], b: [[f32; 2]; 4]) -> bool {
        a.iter()
            .zip(&b)
            .all(|(p, q)| (p[0] - q[0]).abs() < 1e-4 && (p[1] - q[1]).abs() < 1e-4)
    }

    #[test]
    fn an_outline_grows_past_each_side_in_turn_and_not_out_of_the_photo() {
        let c = [[10.0, 20.0], [30.0, 20.0], [30.0, 40.0], [10.0, 40.0]];
        let g = grown_outlines(&c, (100, 100));
        let top = [[10.0, 13.0], [30.0, 13.0], [30.0, 40.0], [10.0, 40.0]];
        let bottom = [[10.0, 20.0], [30.0, 20.0], [30.0, 47.0], [10.0, 47.0]];
        let left = [[3.0, 20.0], [30.0, 20.0], [30.0, 40.0], [3.0, 40.0]];
        let right = [[10.0, 20.0], [37.0, 20.0], [37.0, 40.0], [10.0, 40.0]];
        for (k, want) in [top, bottom, left, right].into_iter().enumerate() {
            assert!(near(g[k].expect("inside"), want), "side {k}: {:?}", g[k]);
        }
        let edge = [[2.0, 20.0], [30.0, 20.0], [30.0, 40.0], [2.0, 40.0]];
        assert!(grown_outlines(&edge, (100, 100))[2].is_none());
    }

    /// Probabilities over the 42 faces: `p` on class `c`.
    fn probs(c: usize, p: f32) -> Vec<f32> {
        let mut v = vec![0.0; 42];
        v[c] = p;
        v
    }

    #[test]
    fn a_grown_face_wins_with_up_to_twice_the_pips_of_its_suit_read_surer() {
        let read = |c: usize, p: f32| Reading {
            faces: probs(c, p),
            none: 0.05,
            back: 0.0,
        };
        // 2s (class 19) cut short of a 4s (21): won; a 3s (20) too.
        assert!(wins(&read(21, 0.9), &probs(19, 0.5)));
        assert!(wins(&read(20, 0.9), &probs(19, 0.5)));
        // Not five sticks from two, nor another suit, nor a lower number, nor barely surer.
        assert!(!wins(&read(22, 0.9), &probs(19, 0.5)));
        assert!(!wins(&read(12, 0.9), &probs(19, 0.5)));
        assert!(!wins(&read(18, 0.9), &probs(19, 0.5)));
        assert!(!wins(&read(21, 0.6), &probs(19, 0.5)));
        // Near WEAK, half the doubt left is enough: 0.79 -> 0.90, not 0.88.
        assert!(wins(&read(21, 0.90), &probs(19, 0.79)));
        assert!(!wins(&read(21, 0.88), &probs(19, 0.79)));
        // A 1s (18) grown into a 6s (23): a heap's fragment, not a face cut short.
        assert!(!wins(&read(23, 0.7), &probs(18, 0.3)));
    }

    #[test]
    fn only_suited_faces_from_two_to_eight_are_tried_grown() {
        // 2m, 5p, 8s are; 1m, 9p, 1s, east wind (27) and a flower (34) are not.
        for c in [1, 13, 25] {
            assert!(two_to_eight(&probs(c, 0.5)), "class {c}");
        }
        for c in [0, 17, 18, 27, 34] {
            assert!(!two_to_eight(&probs(c, 0.5)), "class {c}");
        }
    }
}

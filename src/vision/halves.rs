//! A tile found as two halves: in a close-up the finder sometimes takes the top and the bottom
//! half of one big tile for two tiles (a 4p read as two 2p, both sure, even as sideways tiles).
//! An upright tile is taller than wide, so two boxes about as wide as tall, one above the other,
//! as wide as each other and touching, that together are shaped as a tile and a third of the
//! picture tall or more, are read again as one box; when that box reads as a sure face that is
//! not "not a tile", it replaces them.
//!
//! Measured (`tools/eval_photos.py`): one-tile close-ups 57 → 58 of 67 read exactly, the other
//! sets unchanged. Without the size rule two whole squat tiles of a squeezed rf photo were
//! joined.

use super::{CONFIDENT, NOT_A_TILE, Recognizer, Timings, VisionError, max, without_marked};
use crate::detection::{Detection, Orientation};

/// A half is at least this wide for its height (a whole upright tile is about 0.75).
const SQUAT: f32 = 0.9;
/// Two halves differ in width by at most this share.
const SAME_WIDTH: f32 = 0.25;
/// Their centres lie this close across, as a share of the width, and their gap (or overlap)
/// is at most this share of a half's height.
const ALIGNED: f32 = 0.25;
/// Both together are shaped as an upright tile: height over width in this range.
const TILE_SHAPE: (f32, f32) = (1.1, 1.7);
/// Only big tiles are split so: both halves together are at least this share of the picture's
/// short side tall (squeezed photos have small squat tiles one above the other that are whole).
const BIG: f32 = 0.33;

/// Whether `a` and `b` are the top and the bottom half of one upright tile, in the picture's
/// axes: the classifier may read each half as a tile of its own, even a sideways one.
fn halves(a: &Detection, b: &Detection) -> bool {
    if a.face_down || b.face_down {
        return false;
    }
    let (ba, bb) = (a.bounds(), b.bounds());
    let (wa, ha) = (ba[2] - ba[0], ba[3] - ba[1]);
    let (wb, hb) = (bb[2] - bb[0], bb[3] - bb[1]);
    if wa < SQUAT * ha || wb < SQUAT * hb || (wa - wb).abs() > SAME_WIDTH * wa.max(wb) {
        return false;
    }
    let across = ((ba[0] + ba[2]) - (bb[0] + bb[2])).abs() / 2.0;
    let gap = bb[1] - ba[3];
    let (w, h) = (wa.max(wb), bb[3] - ba[1]);
    bb[1] > ba[1]
        && across < ALIGNED * w
        && gap.abs() < ALIGNED * ha.min(hb)
        && (TILE_SHAPE.0 * w..=TILE_SHAPE.1 * w).contains(&h)
}

/// The outline of both halves as one upright tile.
fn joined(a: &Detection, b: &Detection) -> Detection {
    let (ba, bb) = (a.bounds(), b.bounds());
    let (x0, y0) = (ba[0].min(bb[0]), ba[1]);
    let (x1, y1) = (ba[2].max(bb[2]), bb[3]);
    Detection {
        corners: [[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
        score: a.score.min(b.score),
        face_down: false,
        orientation: Orientation::Up,
        probs: Vec::new(),
    }
}

impl Recognizer {
    /// Pairs of halves of one tile replaced by the tile, where it reads as a sure face.
    pub(super) fn join_halves(
        &mut self,
        img: &image::RgbImage,
        found: Vec<Detection>,
        t: &mut Timings,
    ) -> Result<Vec<Detection>, VisionError> {
        let big = BIG * img.width().min(img.height()) as f32;
        let tall = |a: &Detection, b: &Detection| b.bounds()[3] - a.bounds()[1] >= big;
        let mut pairs = Vec::new();
        for i in 0..found.len() {
            for j in 0..found.len() {
                if i != j && halves(&found[i], &found[j]) && tall(&found[i], &found[j]) {
                    pairs.push((i, j));
                }
            }
        }
        if pairs.is_empty() {
            return Ok(found);
        }
        let mut whole: Vec<Detection> = pairs
            .iter()
            .map(|&(i, j)| joined(&found[i], &found[j]))
            .collect();
        let mut tm = Timings::default();
        let p_none = self.read_faces(img, &mut whole, &[], &mut tm)?;
        t.add_time(&tm);
        let mut gone = vec![false; found.len()];
        let mut add = Vec::new();
        for ((&(i, j), tile), p) in pairs.iter().zip(whole).zip(p_none) {
            if !gone[i] && !gone[j] && p < NOT_A_TILE && max(&tile.probs) >= CONFIDENT {
                gone[i] = true;
                gone[j] = true;
                add.push(tile);
            }
        }
        let mut found = without_marked(found, &gone);
        found.extend(add);
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(x0: f32, y0: f32, x1: f32, y1: f32) -> Detection {
        Detection {
            corners: [[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
            score: 0.9,
            face_down: false,
            orientation: Orientation::Up,
            probs: Vec::new(),
        }
    }

    #[test]
    fn the_top_and_bottom_halves_of_a_tile_pair_up() {
        // As measured on a close-up of a 4p read as two 2p.
        let (top, bottom) = (
            face(332.0, 386.0, 847.0, 847.0),
            face(325.0, 786.0, 850.0, 1249.0),
        );
        assert!(halves(&top, &bottom));
        assert!(!halves(&bottom, &top), "the upper one comes first");
        let one = joined(&top, &bottom);
        assert_eq!(one.corners[0], [325.0, 386.0]);
        assert_eq!(one.corners[2], [850.0, 1249.0]);
    }

    #[test]
    fn whole_tiles_and_tiles_side_by_side_do_not() {
        // Two whole tiles (taller than wide) one above the other.
        assert!(!halves(
            &face(100.0, 100.0, 250.0, 300.0),
            &face(100.0, 305.0, 250.0, 505.0)
        ));
        // Two squat faces side by side.
        assert!(!halves(
            &face(100.0, 100.0, 400.0, 300.0),
            &face(405.0, 100.0, 705.0, 300.0)
        ));
        // Far apart.
        assert!(!halves(
            &face(100.0, 100.0, 400.0, 300.0),
            &face(100.0, 600.0, 400.0, 800.0)
        ));
    }
}

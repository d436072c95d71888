//! Neighbours cut by the frame of a close-up. When a photo is taken close to a tile or two,
//! the tiles beside them are cut by the picture's edge; the finder still finds the part in
//! view and the classifier reads it weakly, as whatever a few pips resemble. In a close-up
//! (a sure tile at least a quarter of the picture's short side) a tile touching the picture's
//! edge and read less than surely (under CONFIDENT) is such a cut neighbour and is dropped,
//! and so is any tile under half
//! the size of the sure one, however surely read: a pip or a character of a neighbour (a
//! classifier that reads the faces better also reads a lone pip as a 1p more surely). In a
//! photo of small tiles the rule never applies: a weak tile at the edge of a photo of a whole
//! hand may be a real one.
//!
//! Under CONFIDENT rather than UNSURE since session 48: of the tiles touching the edge of a
//! close-up read 0.6 to 0.8 (`tools/eval_photos.py`, every set as taken, `lone-new` and
//! `few-new` at 120, six sets spoiled; close-ups judged by the tiles' upright bounds), 32 were
//! neighbours cut by the frame, 2 the stone floor under a row of big tiles read as a 1s
//! (`few-new` 0021, 0078), and 1 a whole tile (a white dragon at 0.78 in a row of 13,
//! `rf-holdout+@turned` 0064), which stays: measured along their outlines, that photo's tiles
//! make no close-up.

use super::{CONFIDENT, max};
use crate::detection::Detection;

/// A sure tile at least this share of the picture's short side makes the picture a close-up.
const CLOSE_UP: f32 = 0.25;
/// A tile whose outline comes this close to the picture's edge (a share of its short side)
/// touches it.
const EDGE: f32 = 0.01;
/// A tile of a close-up this much smaller than its biggest sure tile (shorter sides compared)
/// is a part of a tile: a pip or a character of a neighbour, found as a tile.
const PART: f32 = 0.5;

/// The tiles of a `w` × `h` picture without the weak ones cut by its edge, when it is a
/// close-up.
pub(super) fn drop_cut_neighbours(w: f32, h: f32, found: Vec<Detection>) -> Vec<Detection> {
    let short = w.min(h);
    let Some(biggest) = biggest_sure(&found) else {
        return found;
    };
    if biggest < CLOSE_UP * short {
        return found;
    }
    found
        .into_iter()
        .filter(|d| {
            let touches = touches_edge(&d.bounds(), w, h);
            let a_part = short_side(d) < PART * biggest;
            d.face_down || !a_part && (max(&d.probs) >= CONFIDENT || !touches)
        })
        .collect()
}

/// Whether upright bounds come within EDGE of the short side to the edge of a `w` × `h`
/// picture: a tile there may be cut by the frame.
pub(super) fn touches_edge(b: &[f32; 4], w: f32, h: f32) -> bool {
    let margin = EDGE * w.min(h);
    b[0] <= margin || b[1] <= margin || b[2] >= w - margin || b[3] >= h - margin
}

/// The shorter side of the biggest tile read with a sure face.
fn biggest_sure(found: &[Detection]) -> Option<f32> {
    found
        .iter()
        .filter(|d| !d.face_down && max(&d.probs) >= CONFIDENT)
        .map(short_side)
        .max_by(f32::total_cmp)
}

/// Whether a `w` × `h` picture is a close-up: a tile read with a sure face at least a
/// quarter of its short side.
pub(super) fn is_a_close_up(w: f32, h: f32, found: &[Detection]) -> bool {
    biggest_sure(found).is_some_and(|b| b >= CLOSE_UP * w.min(h))
}

/// The shorter side of a tile's outline (not of its upright box, which a turned tile
/// fills only in part).
pub(super) fn short_side(d: &Detection) -> f32 {
    let (across, along) = outline_sides(d);
    across.min(along)
}

/// The longer side of a tile's outline.
pub(super) fn long_side(d: &Detection) -> f32 {
    let (across, along) = outline_sides(d);
    across.max(along)
}

/// The lengths of a tile outline's top and left sides.
fn outline_sides(d: &Detection) -> (f32, f32) {
    let [a, b, _, c] = d.corners;
    (
        (b[0] - a[0]).hypot(b[1] - a[1]),
        (c[0] - a[0]).hypot(c[1] - a[1]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(b: [f32; 4], p: f32) -> Detection {
        let mut probs = vec![0.0; 42];
        probs[5] = p;
        Detection::upright(b, probs)
    }

    #[test]
    fn a_weak_tile_at_the_edge_of_a_close_up_is_dropped() {
        let found = vec![
            tile([300.0, 200.0, 700.0, 750.0], 0.95),
            tile([0.0, 200.0, 120.0, 750.0], 0.4),
            tile([720.0, 200.0, 1000.0, 750.0], 0.9),
            // The floor under the row, cut by the frame's bottom, read as a face at 0.7.
            tile([300.0, 760.0, 700.0, 1000.0], 0.7),
        ];
        let kept = drop_cut_neighbours(1000.0, 1000.0, found);
        assert_eq!(kept.len(), 2);
        assert!(kept.iter().all(|d| max(&d.probs) > 0.8));
    }

    #[test]
    fn a_pip_of_a_neighbour_in_a_close_up_is_dropped_however_surely_read() {
        let found = vec![
            tile([300.0, 300.0, 700.0, 850.0], 0.95),
            tile([400.0, 50.0, 520.0, 170.0], 0.4),
            tile([400.0, 50.0, 520.0, 170.0], 0.85),
            tile([720.0, 300.0, 980.0, 850.0], 0.5),
        ];
        let kept = drop_cut_neighbours(1000.0, 1000.0, found);
        assert_eq!(
            kept.len(),
            2,
            "the sure tile and the big weak one away from the edge"
        );
        assert!(kept.iter().all(|d| short_side(d) > 200.0));
    }

    #[test]
    fn a_close_up_has_a_sure_tile_a_quarter_of_the_short_side() {
        let big = vec![tile([300.0, 200.0, 560.0, 750.0], 0.95)];
        assert!(is_a_close_up(1000.0, 1000.0, &big));
        let weak = vec![tile([300.0, 200.0, 560.0, 750.0], 0.3)];
        assert!(!is_a_close_up(1000.0, 1000.0, &weak));
        let small = vec![tile([300.0, 200.0, 340.0, 250.0], 0.95)];
        assert!(!is_a_close_up(1000.0, 1000.0, &small));
    }

    #[test]
    fn a_weak_tile_at_the_edge_of_a_photo_of_small_tiles_is_kept() {
        let found = vec![
            tile([300.0, 200.0, 340.0, 250.0], 0.95),
            tile([0.0, 200.0, 40.0, 250.0], 0.4),
        ];
        assert_eq!(drop_cut_neighbours(1000.0, 1000.0, found).len(), 2);
    }
}

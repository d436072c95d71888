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
//!
//! A big sure tile makes no close-up when many tiles read confidently lie beside it, each
//! under half its size (SMALL_BESIDE): that is a heap or a hand with one outline drawn too big,
//! not one tile with its neighbours' pips. Taken for a close-up, such a photo lost every tile
//! but the big one's size (session 71: `rf-holdout+@lean` 0069, 16 tiles → 3 after a turned
//! reading outlined one tile a quarter of the picture tall). Over the 1,738 evaluation photos
//! (every set and spoiled set) the close-ups had at most 2 such tiles beside their big one,
//! those heaps 5 to 11.

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
/// So many tiles read confidently, each under PART of the biggest sure tile and with its
/// centre outside that tile's bounds, make the picture no close-up (a close-up had at most 2,
/// a heap with one outline too big 5 or more).
const SMALL_BESIDE: usize = 3;

/// The tiles of a `w` × `h` picture without the weak ones cut by its edge, when it is a
/// close-up.
pub(super) fn drop_cut_neighbours(w: f32, h: f32, found: Vec<Detection>) -> Vec<Detection> {
    let Some(biggest) = close_up_tile(w, h, &found).map(short_side) else {
        return found;
    };
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

/// The biggest tile read with a sure face (by its shorter side).
fn biggest_sure(found: &[Detection]) -> Option<&Detection> {
    found
        .iter()
        .filter(|d| !d.face_down && max(&d.probs) >= CONFIDENT)
        .max_by(|a, b| short_side(a).total_cmp(&short_side(b)))
}

/// The tile that makes a `w` × `h` picture a close-up, if one does: the biggest read with a
/// sure face, at least CLOSE_UP of the short side, without SMALL_BESIDE tiles beside it.
fn close_up_tile(w: f32, h: f32, found: &[Detection]) -> Option<&Detection> {
    biggest_sure(found)
        .filter(|big| short_side(big) >= CLOSE_UP * w.min(h))
        .filter(|big| small_tiles_beside(big, found) < SMALL_BESIDE)
}

/// How many tiles read confidently, each under PART of `big`, have their centre outside
/// `big`'s bounds.
fn small_tiles_beside(big: &Detection, found: &[Detection]) -> usize {
    let b = big.bounds();
    let limit = PART * short_side(big);
    found
        .iter()
        .filter(|d| !d.face_down && max(&d.probs) >= CONFIDENT && short_side(d) < limit)
        .filter(|d| {
            let [cx, cy] = d.center();
            !(b[0]..=b[2]).contains(&cx) || !(b[1]..=b[3]).contains(&cy)
        })
        .count()
}

/// Whether a `w` × `h` picture is a close-up: a tile read with a sure face at least a
/// quarter of its short side, without many smaller ones read confidently beside it.
pub(super) fn is_a_close_up(w: f32, h: f32, found: &[Detection]) -> bool {
    close_up_tile(w, h, found).is_some()
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
    fn a_big_tile_among_many_small_ones_read_surely_makes_no_close_up() {
        // A heap of tiles 120 pixels wide, one of them outlined 300 wide (a turned reading).
        let mut found = vec![tile([350.0, 350.0, 650.0, 700.0], 0.93)];
        for (x, y) in [(50.0, 50.0), (200.0, 50.0), (700.0, 80.0), (60.0, 800.0)] {
            found.push(tile([x, y, x + 120.0, y + 160.0], 0.95));
        }
        assert!(!is_a_close_up(1000.0, 1000.0, &found));
        assert_eq!(drop_cut_neighbours(1000.0, 1000.0, found.clone()).len(), 5);
        // With two of them only, as a close-up's neighbours' pips: a close-up.
        found.truncate(3);
        assert!(is_a_close_up(1000.0, 1000.0, &found));
        assert_eq!(drop_cut_neighbours(1000.0, 1000.0, found.clone()).len(), 1);
        // Its own pips read surely lie inside it and never count against it.
        for (x, y) in [
            (400.0, 400.0),
            (500.0, 400.0),
            (400.0, 550.0),
            (500.0, 550.0),
        ] {
            found.push(tile([x, y, x + 60.0, y + 60.0], 0.9));
        }
        assert!(is_a_close_up(1000.0, 1000.0, &found));
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

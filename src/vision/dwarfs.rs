//! Tiles far too small for the picture's other tiles. The tiles of one photo are of one set
//! and lie at much the same distance from the camera, so their sizes differ by less than two
//! to one; a thing the finder reports at a fraction of that size, read unsurely, is a mark on
//! the table or a fragment of a big tile: a glint of sunlight read as a white dragon beside a
//! close-up of a tile (`tools/eval_photos.py --sets lone-new` 0025, a sixth of its size), the
//! pips of big tiles held askew read as tiles of their own (`few-new` 0021, under a third).
//!
//! Measured on 17,910 readings of evaluation photos kept from sessions 41 to 45 (every set,
//! spoiled, askew and turned, the shipped models and rounds tried): of the face-up tiles read
//! under CONFIDENT, those under DWARF of the median size of the others read at least SIZED
//! are 62 readings of things that are no tile (or a neighbour cut by the frame) and no real
//! tile; the smallest real one so read is 0.52 of that size (a far 2m of a heap of 54 tiles,
//! in the dark), the next 0.55.

use super::{CONFIDENT, max, side};
use crate::detection::Detection;

/// A face-up tile read under CONFIDENT whose long side is under this share of the median long
/// side of the other face-up tiles read at least SIZED is dropped.
const DWARF: f32 = 0.4;
/// The other tiles read at least this surely give the size a dwarf is measured by (a flower
/// of a set never seen, the one real tile of a close-up, may be read at 0.6).
const SIZED: f32 = 0.5;

/// `found` without its dwarfs (see the module's doc).
pub(super) fn drop_dwarfs(found: Vec<Detection>) -> Vec<Detection> {
    let sizes: Vec<f32> = found.iter().map(|d| side(&d.bounds())).collect();
    let is_dwarf = |i: usize| {
        let d = &found[i];
        if d.face_down || max(&d.probs) >= CONFIDENT {
            return false;
        }
        let mut others: Vec<f32> = (0..found.len())
            .filter(|&j| j != i && !found[j].face_down && max(&found[j].probs) >= SIZED)
            .map(|j| sizes[j])
            .collect();
        if others.is_empty() {
            return false;
        }
        let mid = others.len() / 2;
        let median = *others.select_nth_unstable_by(mid, f32::total_cmp).1;
        sizes[i] < DWARF * median
    };
    let dwarfs: Vec<bool> = (0..found.len()).map(is_dwarf).collect();
    found
        .into_iter()
        .zip(dwarfs)
        .filter_map(|(d, dwarf)| (!dwarf).then_some(d))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detection::{CLASS_COUNT, Orientation};

    /// A tile `size` pixels tall (3/4 as wide) at `x`, read as class 3 at `p` (face down: None).
    fn tile(x: f32, size: f32, p: Option<f32>) -> Detection {
        let mut probs = vec![0.0; CLASS_COUNT];
        if let Some(p) = p {
            probs[3] = p;
        }
        let w = size * 0.75;
        Detection {
            corners: [[x, 0.0], [x + w, 0.0], [x + w, size], [x, size]],
            score: 0.9,
            face_down: p.is_none(),
            orientation: Orientation::Up,
            probs: if p.is_some() { probs } else { Vec::new() },
        }
    }

    #[test]
    fn a_small_unsure_tile_among_big_ones_goes() {
        let found = vec![
            tile(0.0, 800.0, Some(0.95)),
            tile(700.0, 780.0, Some(0.7)),
            tile(2000.0, 130.0, Some(0.62)),
        ];
        let kept = drop_dwarfs(found);
        assert_eq!(kept.len(), 2);
        assert!(kept.iter().all(|d| side(&d.bounds()) > 700.0));
    }

    #[test]
    fn small_tiles_stay_when_read_surely_or_not_so_small() {
        // Read surely, a small tile stays; so does an unsure one at half the others' size
        // (far tiles of a heap), and a face-down one.
        let found = vec![
            tile(0.0, 800.0, Some(0.95)),
            tile(700.0, 800.0, Some(0.9)),
            tile(2000.0, 130.0, Some(0.85)),
            tile(2200.0, 400.0, Some(0.3)),
            tile(2600.0, 100.0, None),
        ];
        assert_eq!(drop_dwarfs(found).len(), 5);
    }

    #[test]
    fn without_a_tile_read_well_nothing_is_a_dwarf() {
        // Tiles read under SIZED give no size to measure by.
        let found = vec![tile(0.0, 800.0, Some(0.45)), tile(900.0, 100.0, Some(0.3))];
        assert_eq!(drop_dwarfs(found).len(), 2);
    }
}

//! Face-down tiles where there are none. The finder reports a face-down tile in places that
//! hold no tile: the felt in a gap between two tiles, a dark tray, wood, the blank body of a
//! standing tile below its face (26 of the 48 it reported on the rf validation photos). With
//! a classifier that knows backs (a 44th class), each face-down tile is read too, and one it
//! calls no tile rather than a back is dropped, unless it lies beside a tile it calls a back
//! (a wall, a kong shown all face down: a doubted back among sure ones is a back) or ends a
//! kong laid as the rules lay it (down, up, up, down): there the layout is the stronger
//! evidence, and a white back the classifier doubts must not break the kong.
//!
//! Measured on the face-down tiles of the rf validation photos judged by a person
//! (`datasets/labels/rf-backs.csv`, `tools/rf_labels.py check-backs`): false backs reported
//! 27 → 4, real backs 14 → 13 (11 without the rule of the sure back beside).

use image::RgbImage;

use super::edges::short_side;
use super::{Reading, Recognizer, VisionError, cut_faces};
use crate::detection::Detection;

/// Tiles whose centres are at most this many short sides apart lie side by side.
const BESIDE: f32 = 1.5;

impl Recognizer {
    /// The face-down tiles the finder reported (`down`, indices into `kept`, whose face-up
    /// tiles are read already): one the classifier calls no tile rather than a back gets its
    /// "not a tile" probability in `p_none`, for the caller to drop.
    pub(super) fn check_backs(
        &mut self,
        img: &RgbImage,
        kept: &[Detection],
        down: &[usize],
        p_none: &mut [f32],
    ) -> Result<(), VisionError> {
        let reads = self.classify_cuts(&cut_faces(img, kept, down))?;
        for (i, none) in no_tiles(kept, down, &reads) {
            p_none[i] = none;
        }
        Ok(())
    }
}

/// The face-down tiles (`down`, read as `reads`) the classifier calls no tile more than a
/// back, with that probability; except one beside a tile it calls a back (a doubted back in a
/// wall, or in a kong shown all face down) and one that ends a laid kong.
fn no_tiles(kept: &[Detection], down: &[usize], reads: &[Reading]) -> Vec<(usize, f32)> {
    let none = |k: usize| reads[k].none * (1.0 - reads[k].back);
    let back = |k: usize| reads[k].back > none(k);
    (0..down.len())
        .filter(|&k| {
            let i = down[k];
            !back(k)
                && !(0..down.len()).any(|m| m != k && back(m) && beside(&kept[i], &kept[down[m]]))
                && !ends_a_laid_kong(kept, i)
        })
        .map(|k| (down[k], none(k)))
        .collect()
}

/// Whether face-down tile `i` ends a kong laid down, up, up, down: two face-up tiles of one
/// face in a line from it, and a face-down tile past them.
fn ends_a_laid_kong(dets: &[Detection], i: usize) -> bool {
    let next = |from: usize, not: usize, down: bool| {
        (0..dets.len()).filter(move |&j| {
            j != from && j != not && dets[j].face_down == down && beside(&dets[from], &dets[j])
        })
    };
    let face = |j: usize| dets[j].top().map(|(f, _)| f);
    next(i, i, false).any(|j| {
        next(j, i, false).any(|k| {
            face(j).is_some()
                && face(j) == face(k)
                && next(k, j, true)
                    .any(|l| l != i && dist(&dets[i], &dets[l]) > 2.5 * dist(&dets[i], &dets[j]))
        })
    })
}

fn beside(a: &Detection, b: &Detection) -> bool {
    dist(a, b) <= BESIDE * short_side(a).max(short_side(b))
}

fn dist(a: &Detection, b: &Detection) -> f32 {
    let (p, q) = (a.center(), b.center());
    (p[0] - q[0]).hypot(p[1] - q[1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detection::{CLASS_COUNT, Orientation};

    /// A tile 40 wide and 52 tall with its left edge at `x`, face down or read as class `face`.
    fn tile(x: f32, face: Option<usize>) -> Detection {
        let mut probs = Vec::new();
        if let Some(c) = face {
            probs = vec![0.0; CLASS_COUNT];
            probs[c] = 0.9;
        }
        Detection {
            corners: [[x, 0.0], [x + 40.0, 0.0], [x + 40.0, 52.0], [x, 52.0]],
            score: 0.8,
            face_down: face.is_none(),
            orientation: Orientation::Up,
            probs,
        }
    }

    #[test]
    fn the_backs_of_a_laid_kong_are_known_and_a_lone_back_is_not() {
        let row = [
            tile(0.0, None),
            tile(42.0, Some(27)),
            tile(84.0, Some(27)),
            tile(126.0, None),
            tile(300.0, None),
        ];
        assert!(ends_a_laid_kong(&row, 0));
        assert!(ends_a_laid_kong(&row, 3));
        assert!(!ends_a_laid_kong(&row, 4));
    }

    #[test]
    fn two_different_faces_between_backs_are_no_kong() {
        let row = [
            tile(0.0, None),
            tile(42.0, Some(27)),
            tile(84.0, Some(28)),
            tile(126.0, None),
        ];
        assert!(!ends_a_laid_kong(&row, 0));
        assert!(!ends_a_laid_kong(&row, 3));
    }

    fn read(none: f32, back: f32) -> Reading {
        Reading {
            faces: vec![0.0; CLASS_COUNT],
            none,
            back,
        }
    }

    #[test]
    fn a_doubted_back_beside_a_sure_one_stays_and_a_lone_one_goes() {
        let row = [tile(0.0, None), tile(42.0, None), tile(300.0, None)];
        // Tile 0 is read a back; 1 beside it and 2 alone are read "not a tile" at 0.8.
        let reads = [read(0.1, 0.9), read(0.8, 0.0), read(0.8, 0.0)];
        assert_eq!(no_tiles(&row, &[0, 1, 2], &reads), vec![(2, 0.8)]);
        // With no sure back beside it, tile 1 goes too.
        let reads = [read(0.8, 0.0), read(0.8, 0.0), read(0.8, 0.0)];
        assert_eq!(no_tiles(&row, &[0, 1, 2], &reads).len(), 3);
    }

    #[test]
    fn a_back_beside_a_pair_with_nothing_past_it_is_no_kong() {
        let row = [
            tile(0.0, None),
            tile(42.0, Some(27)),
            tile(84.0, Some(27)),
            tile(126.0, Some(3)),
        ];
        assert!(!ends_a_laid_kong(&row, 0));
    }
}

//! One tile filling the picture: a close-up of a single tile, its neighbours cut by the frame.
//! The finder learned tiles up to about a third of its look, and a tile touching the picture's
//! edges is sometimes found as nothing, as a pip, or read from a box that cuts its face. When
//! a picture gives no confident tile even after the stretch search, a few tile-shaped boxes
//! centred in the picture are read as they are; the best reading, if the classifier is sure
//! of it and does not call it "not a tile", is the picture's tile, and the weak tiles found
//! inside it go.

use super::{CONFIDENT, NOT_A_TILE, Recognizer, Timings, VisionError, inside, max};
use crate::detection::{Detection, Orientation};

/// The boxes tried, as shares of the picture's sides: the whole picture, then smaller boxes
/// centred in it (a tile filling 55 to 90% of a close-up).
const SHARES: [f32; 4] = [1.0, 0.85, 0.7, 0.55];
/// A picture this much wider than tall holds a tile lying sideways.
const WIDE: f32 = 1.15;

/// The outline of a box centred in a `w` × `h` picture, `share` of its sides, as a tile facing
/// `orientation` (corners clockwise from the top left of the face).
fn centred(w: f32, h: f32, share: f32, orientation: Orientation) -> [[f32; 2]; 4] {
    let (x0, x1) = (w * (1.0 - share) / 2.0, w * (1.0 + share) / 2.0);
    let (y0, y1) = (h * (1.0 - share) / 2.0, h * (1.0 + share) / 2.0);
    let (tl, tr, br, bl) = ([x0, y0], [x1, y0], [x1, y1], [x0, y1]);
    match orientation {
        Orientation::Up => [tl, tr, br, bl],
        Orientation::Right => [tr, br, bl, tl],
        Orientation::Down => [br, bl, tl, tr],
        Orientation::Left => [bl, tl, tr, br],
    }
}

impl Recognizer {
    /// The picture read as one tile filling it, when a centred box reads as a sure face; the
    /// tiles found inside that box are replaced by it. `None` when no box is sure.
    pub(super) fn one_tile_filling(
        &mut self,
        img: &image::RgbImage,
        found: &[Detection],
        t: &mut Timings,
    ) -> Result<Option<Vec<Detection>>, VisionError> {
        let (w, h) = (img.width() as f32, img.height() as f32);
        if w < 16.0 || h < 16.0 {
            return Ok(None);
        }
        let orientation = if w > WIDE * h {
            Orientation::Right
        } else {
            Orientation::Up
        };
        let mut boxes: Vec<Detection> = SHARES
            .iter()
            .map(|&s| Detection {
                corners: centred(w, h, s, orientation),
                score: 0.0,
                face_down: false,
                orientation,
                probs: Vec::new(),
            })
            .collect();
        let mut tm = Timings::default();
        let p_none = self.read_faces(img, &mut boxes, &mut tm)?;
        t.add_time(&tm);
        let sure: Vec<Detection> = boxes
            .into_iter()
            .zip(p_none)
            .filter(|(b, p)| *p < NOT_A_TILE && max(&b.probs) >= CONFIDENT)
            .map(|(b, _)| b)
            .collect();
        // The face of the surest reading; the outline of the smallest box read as that face
        // (the boxes go from the whole picture down).
        let best = sure
            .iter()
            .max_by(|a, b| max(&a.probs).total_cmp(&max(&b.probs)))
            .and_then(|b| b.top());
        let tile = best.and_then(|(face, _)| {
            sure.iter()
                .rev()
                .find(|b| b.top().is_some_and(|(f, _)| f == face))
                .cloned()
        });
        Ok(tile.map(|mut tile| {
            tile.score = max(&tile.probs);
            let mut out: Vec<Detection> = found
                .iter()
                .filter(|d| !inside(&d.bounds(), &tile.bounds()))
                .cloned()
                .collect();
            out.push(tile);
            out
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_centred_box_starts_at_the_top_left_of_its_face() {
        let up = centred(100.0, 200.0, 0.5, Orientation::Up);
        assert_eq!(
            up,
            [[25.0, 50.0], [75.0, 50.0], [75.0, 150.0], [25.0, 150.0]]
        );
        // A tile lying with its top to the right: the face's top left is the picture's top
        // right, and the corners go on clockwise.
        let right = centred(100.0, 200.0, 0.5, Orientation::Right);
        assert_eq!(right[0], [75.0, 50.0]);
        assert_eq!(right[1], [75.0, 150.0]);
    }

    fn tile(corners: [[f32; 2]; 4]) -> Detection {
        Detection {
            corners,
            score: 0.5,
            face_down: false,
            orientation: Orientation::Up,
            probs: Vec::new(),
        }
    }

    #[test]
    fn only_tiles_centred_inside_the_box_are_replaced() {
        let outline = tile(centred(100.0, 100.0, 0.7, Orientation::Up)).bounds();
        let at = |x: f32, y: f32| {
            tile([
                [x - 5.0, y - 5.0],
                [x + 5.0, y - 5.0],
                [x + 5.0, y + 5.0],
                [x - 5.0, y + 5.0],
            ])
        };
        assert!(inside(&at(50.0, 50.0).bounds(), &outline));
        assert!(!inside(&at(5.0, 50.0).bounds(), &outline));
    }
}

//! A photo taken from the side of the table, or turned a quarter with its EXIF turn lost: every
//! tile lies sideways in the picture. The finder learned sideways tiles as the one claimed tile
//! of a meld, and on a whole column of them it draws outlines too long, running into their
//! neighbours. When most face-up tiles are read sideways, the picture is turned a quarter so
//! that their tops point up, read again, and the tiles found there turned back, unless every
//! face already reads surely (`all_sure`).

use image::{RgbImage, imageops};

use super::{Recognizer, Timings, VisionError, max, turned};
use crate::detection::{Detection, Orientation};

/// A picture is turned only with at least this many face-up tiles...
const AT_LEAST: usize = 5;
/// ...and at least this share of them sideways.
const MOSTLY: f32 = 0.75;

/// A face read at least this surely gains nothing from reading the photo again turned
/// (here a quarter, level in `straighten.rs`).
const SURE: f32 = 0.8;

/// Whether every face-up tile of `found` is read at `SURE` or more. Of the 77 evaluation
/// photos turned a quarter and read again (rf-holdout with and without the added labels, as
/// taken, turned, askew; close-ups), 40 are; left as read, none of the 540 photos of those
/// sets reads otherwise.
pub(super) fn all_sure(found: &[Detection]) -> bool {
    found.iter().all(|d| d.face_down || max(&d.probs) >= SURE)
}

/// Which way to turn the picture of `found` so that its tiles' tops point up: when most lie
/// sideways (`mostly_sideways`) and some face may read better so (not `all_sure`).
fn turn_for(found: &[Detection]) -> Option<Orientation> {
    mostly_sideways(found).filter(|_| !all_sure(found))
}

/// Which way the tops of most face-up tiles of `found` point, when most lie sideways
/// (`AT_LEAST`, `MOSTLY`): left or right.
fn mostly_sideways(found: &[Detection]) -> Option<Orientation> {
    let up: Vec<&Detection> = found.iter().filter(|d| !d.face_down).collect();
    let left = up
        .iter()
        .filter(|d| d.orientation == Orientation::Left)
        .count();
    let right = up
        .iter()
        .filter(|d| d.orientation == Orientation::Right)
        .count();
    let enough = up.len() >= AT_LEAST && (left + right) as f32 >= MOSTLY * up.len() as f32;
    enough.then_some(if left >= right {
        Orientation::Left
    } else {
        Orientation::Right
    })
}

/// How many of the face-up tiles are likely read right less how many likely not: the sum of
/// `2p - 1` for the probability `p` of the face each is read as. More for more tiles read
/// surely; a tile read under one half counts against.
pub(super) fn surety(found: &[Detection]) -> f32 {
    found
        .iter()
        .filter(|d| !d.face_down)
        .map(|d| 2.0 * max(&d.probs) - 1.0)
        .sum()
}

/// `found`, or the tiles read in another picture of the photo (`more`, with its timings), put
/// back in the photo by `back`, whichever read more surely (`surety`); the time of both counts.
pub(super) fn surer(
    found: Vec<Detection>,
    (more, tm): (Vec<Detection>, Timings),
    t: &mut Timings,
    back: impl Fn(&Detection) -> Detection,
) -> Vec<Detection> {
    t.add_time(&tm);
    if surety(&more) <= surety(&found) {
        return found;
    }
    t.rejected = tm.rejected;
    more.iter().map(back).collect()
}

/// `d`, found in the picture turned a quarter clockwise (`tops` Left) or anticlockwise
/// (`tops` Right) from one `w` × `h`, in that picture.
fn turned_back(d: &Detection, tops: Orientation, (w, h): (f32, f32)) -> Detection {
    let clockwise = tops == Orientation::Left;
    // Turned clockwise, (x, y) went to (h - y, x); anticlockwise, to (y, w - x).
    let point = |p: [f32; 2]| {
        if clockwise {
            [p[1], h - p[0]]
        } else {
            [w - p[1], p[0]]
        }
    };
    let quarters = if clockwise { 3 } else { 1 };
    // Turned by as many quarters as the picture, its corners put where the picture had them.
    Detection {
        corners: d.corners.map(point),
        ..turned(d, quarters)
    }
}

impl Recognizer {
    /// `found`, or when most of its tiles lie sideways and some is read unsurely (`turn_for`),
    /// the tiles found in the picture turned so that their tops point up, turned back, if
    /// they are read more surely (`surety`).
    pub(super) fn upright_sideways(
        &mut self,
        img: &RgbImage,
        found: Vec<Detection>,
        t: &mut Timings,
    ) -> Result<Vec<Detection>, VisionError> {
        let Some(tops) = turn_for(&found) else {
            return Ok(found);
        };
        let turned = if tops == Orientation::Left {
            imageops::rotate90(img)
        } else {
            imageops::rotate270(img)
        };
        self.either_way = true;
        let read = self.find_and_read(&turned);
        self.either_way = false;
        let size = (img.width() as f32, img.height() as f32);
        Ok(surer(found, read?, t, |d| turned_back(d, tops, size)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detection::CLASS_COUNT;

    fn tile(orientation: Orientation) -> Detection {
        Detection {
            corners: [[10.0, 20.0], [30.0, 20.0], [30.0, 50.0], [10.0, 50.0]],
            score: 0.9,
            face_down: false,
            orientation,
            probs: vec![1.0 / CLASS_COUNT as f32; CLASS_COUNT],
        }
    }

    #[test]
    fn a_picture_is_turned_only_when_most_tiles_lie_sideways() {
        use Orientation::{Left, Right, Up};
        let mixed = [Left, Left, Left, Up, Up, Right].map(tile);
        assert_eq!(mostly_sideways(&mixed), None);
        let side = [Left, Left, Right, Left, Up, Left, Left, Left].map(tile);
        assert_eq!(mostly_sideways(&side), Some(Left));
        let few = [Right, Right, Right, Right].map(tile);
        assert_eq!(mostly_sideways(&few), None);
        let more = [Right, Right, Right, Right, Right].map(tile);
        assert_eq!(mostly_sideways(&more), Some(Right));
    }

    /// A tile read as face 0 with probability `p`.
    fn read(p: f32) -> Detection {
        let mut d = tile(Orientation::Up);
        d.probs = vec![0.0; CLASS_COUNT];
        d.probs[0] = p;
        d
    }

    #[test]
    fn a_sideways_picture_read_surely_is_not_turned() {
        let sideways = |p: f32| {
            let mut d = read(p);
            d.orientation = Orientation::Left;
            d
        };
        let sure = [0.95, 0.9, 0.99, 0.85, 0.97].map(sideways).to_vec();
        assert_eq!(mostly_sideways(&sure), Some(Orientation::Left));
        assert_eq!(turn_for(&sure), None);
        let mut doubt = sure.clone();
        doubt[2] = sideways(0.5);
        assert_eq!(turn_for(&doubt), Some(Orientation::Left));
    }

    #[test]
    fn a_few_tiles_read_surely_beat_many_pips_read_unsurely() {
        // Few-new 0021: a 4p, a flower and a tile cut by the frame read as the picture is,
        // against the 4p's pips and parts of the others read in the picture turned level.
        let first = [0.97, 0.71, 0.76, 0.69].map(read).to_vec();
        let pips = [0.74, 0.76, 0.83, 0.27, 0.54, 0.21, 0.28]
            .map(read)
            .to_vec();
        let kept = surer(
            first.clone(),
            (pips, Timings::default()),
            &mut Timings::default(),
            Clone::clone,
        );
        assert_eq!(kept.len(), first.len());
        // More tiles read as surely do win.
        let more = [0.97, 0.71, 0.76, 0.69, 0.9].map(read).to_vec();
        let kept = surer(
            first,
            (more, Timings::default()),
            &mut Timings::default(),
            Clone::clone,
        );
        assert_eq!(kept.len(), 5);
    }

    #[test]
    fn a_tile_found_in_the_turned_picture_goes_back_to_its_place() {
        // A 100 × 60 picture; a tile at x 10..30, y 20..50 whose top points left.
        let (w, h) = (100.0, 60.0);
        let mut d = tile(Orientation::Left);
        let turned = |p: [f32; 2]| [h - p[1], p[0]];
        // In the picture turned clockwise its top points up, its corners from its top left.
        let mut there = d.clone();
        there.orientation = Orientation::Up;
        there.corners = d.corners.map(turned);
        let back = turned_back(&there, Orientation::Left, (w, h));
        assert_eq!(back.orientation, Orientation::Left);
        for (a, b) in back.corners.iter().zip(&d.corners) {
            assert!((a[0] - b[0]).abs() < 1e-4 && (a[1] - b[1]).abs() < 1e-4);
        }
        // The same the other way round.
        d.orientation = Orientation::Right;
        let turned = |p: [f32; 2]| [p[1], w - p[0]];
        there.corners = d.corners.map(turned);
        let back = turned_back(&there, Orientation::Right, (w, h));
        assert_eq!(back.orientation, Orientation::Right);
        for (a, b) in back.corners.iter().zip(&d.corners) {
            assert!((a[0] - b[0]).abs() < 1e-4 && (a[1] - b[1]).abs() < 1e-4);
        }
    }
}

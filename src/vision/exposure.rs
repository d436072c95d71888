//! Dark pictures: a photo taken in a dim room, or a frame of a camera that has not caught up
//! with the light, shows its tiles grey instead of ivory. The finder learned tiles as the
//! brightest things on a table and misses most of them there, so a picture whose brightest
//! part is dim is brightened first: its bright end (BRIGHT_END) is raised to TARGET, by at
//! most MAX_GAIN. Under tungsten light the tiles are orange: a picture whose channels' bright
//! ends differ as a warm cast does (CAST) has them evened, by at most MAX_CAST_GAIN.
//!
//! Measured on the 81 held-out rf photos made darker (`tools/eval_photos.py`, tile precision /
//! recall, photos read exactly): at a third of their light (`rf-holdout+@dark`) 0.984 / 0.924,
//! 34 → 0.986 / 0.975, 56; at half (`@dim`) 0.988 / 0.959, 50 → 0.995 / 0.994, 70 (in good
//! light 0.996 / 0.996, 73); under warm light (`@warm`, blue cut by a third) 0.995 / 0.992, 67
//! → 0.995 / 0.995, 72. Every other set reads tile for tile as before, pictures without
//! tiles too. Only the finder's pass is brightened: a dark marble texture brightened and read
//! as one tile filling the picture (`whole.rs`) was a 1s at 0.88, so the reads of hard
//! pictures (`stretch.rs`) look at the photo as it is.

use image::RgbImage;

/// The share of pixels at or below a picture's bright end (brightest channel). A picture with
/// any bright patch over a thousandth of it (a lamp, glare on a tile) is left as it is: raised,
/// that patch would wash out (a 6p under glare in a dim photo was read as a white dragon with
/// the 99th percentile here).
const BRIGHT_END: f32 = 0.999;
/// A picture whose bright end is below this (of 255) is dark.
const DARK: u8 = 160;
/// ...and is brightened to bring its bright end here...
const TARGET: f32 = 230.0;
/// ...by this factor at most: a picture as good as black stays black (its noise is no tile).
const MAX_GAIN: f32 = 4.0;
/// Pixels looked at for the bright end, at most (a grid over the picture).
const SAMPLES: u32 = 256;

/// A picture whose brightest channel's bright end is this many times its dimmest one's has a
/// colour cast (tungsten light: white tiles shown orange)...
const CAST: f32 = 1.2;
/// ...and each channel is raised to the brightest one's end, by this factor at most.
const MAX_CAST_GAIN: f32 = 1.6;

/// A picture evened for reading (`evened`).
pub(super) struct Evened {
    pub picture: RgbImage,
    /// Whether it was brightened: what the classifier doubts in it, its faces raised with
    /// their noise, is read again by the classifier for soft photos (`dark.rs`).
    pub dark: bool,
}

/// A photo and, evened the first time it is asked for, its picture as the first reading
/// evened it: the steps after a photo's reading is chosen (`grown.rs`, `dark.rs`) cut faces
/// from it, only where a face is tried, and share one evening.
pub(super) struct Evening<'a> {
    photo: &'a RgbImage,
    evened: std::cell::OnceCell<Option<Evened>>,
}

impl<'a> Evening<'a> {
    pub(super) fn new(photo: &'a RgbImage) -> Evening<'a> {
        Evening {
            photo,
            evened: std::cell::OnceCell::new(),
        }
    }

    /// The photo as it is.
    pub(super) fn photo(&self) -> &'a RgbImage {
        self.photo
    }

    fn evened(&self) -> Option<&Evened> {
        self.evened.get_or_init(|| evened(self.photo)).as_ref()
    }

    /// The picture the faces are cut from: the photo evened, or as it is.
    pub(super) fn picture(&self) -> &RgbImage {
        self.evened().map_or(self.photo, |e| &e.picture)
    }

    /// Whether the photo was brightened for being dark.
    pub(super) fn dark(&self) -> bool {
        self.evened().is_some_and(|e| e.dark)
    }
}

/// The picture brightened when it is dark (DARK), and its channels evened when it has a
/// colour cast (CAST); else none.
pub(super) fn evened(img: &RgbImage) -> Option<Evened> {
    let ends = bright_ends(img)?;
    let (top, low) = (
        ends[0].max(ends[1]).max(ends[2]),
        ends[0].min(ends[1]).min(ends[2]),
    );
    let dark = top < DARK;
    // Only a warm cast (red over green over blue): a blue picture evened turns grey, and its
    // marks read as tiles.
    let warm = ends[0] >= ends[1] && ends[1] >= ends[2];
    let cast = warm && f32::from(top) > CAST * f32::from(low.max(1));
    if !dark && !cast {
        return None;
    }
    let level = if dark {
        (TARGET / f32::from(top.max(1))).min(MAX_GAIN)
    } else {
        1.0
    };
    let tables: [[u8; 256]; 3] = std::array::from_fn(|c| {
        let even = if cast {
            (f32::from(top) / f32::from(ends[c].max(1))).min(MAX_CAST_GAIN)
        } else {
            1.0
        };
        let gain = level * even;
        std::array::from_fn(|v| (v as f32 * gain).round().min(255.0) as u8)
    });
    let mut out = img.clone();
    for p in out.pixels_mut() {
        for (c, v) in p.0.iter_mut().enumerate() {
            *v = tables[c][usize::from(*v)];
        }
    }
    Some(Evened { picture: out, dark })
}

/// Each channel's value at BRIGHT_END of the picture's pixels, looked at on a grid of
/// SAMPLES × SAMPLES at most; none for an empty picture.
fn bright_ends(img: &RgbImage) -> Option<[u8; 3]> {
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 {
        return None;
    }
    let (nx, ny) = (w.min(SAMPLES), h.min(SAMPLES));
    let mut counts = [[0u32; 256]; 3];
    for j in 0..ny {
        for i in 0..nx {
            let p = img.get_pixel(i * w / nx, j * h / ny).0;
            for c in 0..3 {
                counts[c][usize::from(p[c])] += 1;
            }
        }
    }
    let below = (BRIGHT_END * (nx * ny) as f32) as u32;
    Some(std::array::from_fn(|c| {
        let mut seen = 0;
        (0..=255u8)
            .find(|&v| {
                seen += counts[c][usize::from(v)];
                seen > below
            })
            .unwrap_or(255)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grey table with a bright square (a tile) of `tile` over a fifth of it.
    fn table(grey: u8, tile: u8) -> RgbImage {
        RgbImage::from_fn(100, 100, |x, y| {
            let v = if x < 45 && y < 45 { tile } else { grey };
            image::Rgb([v, v, v])
        })
    }

    #[test]
    fn a_dim_picture_is_brightened_and_a_bright_or_black_one_is_not() {
        let dim = evened(&table(30, 75)).expect("a dim picture is brightened");
        assert!(dim.dark);
        assert_eq!(dim.picture.get_pixel(10, 10).0, [230, 230, 230]);
        assert_eq!(dim.picture.get_pixel(90, 90).0, [92, 92, 92]);
        assert!(evened(&table(60, 220)).is_none());
        // Near black: brightened by MAX_GAIN only.
        let black = evened(&table(2, 10)).expect("brightened");
        assert_eq!(black.picture.get_pixel(10, 10).0, [40, 40, 40]);
        assert!(evened(&RgbImage::new(0, 0)).is_none());
    }

    /// `table(grey, tile)` with its channels scaled by `rgb`.
    fn lit(rgb: [f32; 3]) -> RgbImage {
        let mut img = table(60, 240);
        for p in img.pixels_mut() {
            for (c, v) in p.0.iter_mut().enumerate() {
                *v = (f32::from(*v) * rgb[c]).round() as u8;
            }
        }
        img
    }

    #[test]
    fn a_warm_cast_is_evened_and_a_blue_picture_is_left() {
        let warm = evened(&lit([1.0, 0.9, 0.67])).expect("a warm cast is evened");
        assert!(!warm.dark, "a warm cast in good light is not dark");
        let tile = warm.picture.get_pixel(10, 10).0;
        assert!(tile.iter().all(|&v| v >= 238), "{tile:?}");
        assert!(evened(&lit([0.67, 0.85, 1.0])).is_none());
        assert!(evened(&lit([1.0, 0.97, 0.95])).is_none());
    }
}

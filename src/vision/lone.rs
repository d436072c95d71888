//! Pictures with next to nothing found: what the finder reports there alone, unsure, is most
//! often a patch of colour or a mark, not a tile. A hand is fourteen tiles or more, a wall many
//! backs, a close-up one tile filling much of the picture; a lone back or a lone small face
//! read unsurely is none of these.
//!
//! Measured on the held-out half of Debian's photo wallpapers and texture patterns, no tile
//! anywhere (`tools/eval_photos.py --sets backdrops`): 7 false backs in 5 pictures, found at
//! 0.31 to 0.51, and a stamp read 7p at 0.17 and a logo read white dragon at 0.58, each about
//! a twentieth of the picture; on the pieces of the held-out rf photos without labelled tiles,
//! a tile's side at 0.35 beside a wall of two real backs found at 0.77 and 0.60, which stay.
//! No tile of any other set (rf photos, close-ups, crops, rows on glass or on the backdrops,
//! hands from the seat) is alone and so small and unsure.
//!
//! A lone tile read unsurely must also show a face of no strong colour (`neutral_share`): every
//! tile's face is ivory or white behind its pips, grey in a dim photo. Of the 4,300 tiles read
//! on the held-out photos, close-ups, crops and drawn layouts (`tools/eval_photos.py`), the
//! least neutral shows 0.44 of its outline so; a repeating purple lightning texture, found as a
//! 9p at 0.73 and read filling the picture at 0.92 (`--sets backdrops` 0046), shows 0.15.
//! `backdrops` 128 → 129 of 130 pictures without a tile; every other set reads tile for tile as
//! before.
//!
//! A lone tile read unsurely must also be shaped like a tile's face (`elongation`): seen
//! face-on a face is 1.25 to 1.45 times as long as it is wide, and every lone tile read under
//! CONFIDENT on the close-ups and crops, dark ones included, is 1.33 to 1.38. A grey wave of
//! metal sheets (`--sets backdrops` 0014) was read as a 7s at 0.23 lying across most of the
//! picture, 1.94 times as long as wide. Lone tiles read surely keep any shape (a close-up seen
//! slanting: up to 2.17).
//!
//! A few tiles (FEW at most), every one face up, small (SMALL) and read unsurely, are no hand
//! either: a dial's teeth on an automatic table's console, blown up (`--sets no-tiles` 0033),
//! were found as two to four such tiles by finders fine-tuned in sessions 41 and 42 (read at
//! 0.02 to 0.73). Over 5,258 readings of evaluation photos kept from sessions 41 and 42 (every
//! set, the spoiled and askew ones, shipped models and rounds tried), every picture of 2 to 14
//! face-up tiles all small and unsure is that one; no real tile is so.
//!
//! Since session 51 any face-up tile read unsurely, not only a lone one, must show a face's
//! colours inside its outline (`neutral_share_inside`): a patch of leopard print beside a real
//! tile (`--sets lone-new` 0028) was found as a tile read 7s at 0.25, and the layout then took
//! it for a flower lying beside the season. Over every evaluation photo (the 13 sets, `lone-new`
//! and `few-new` at 120, the tilted and turned sets, and the dark, dim, warm and blurred ones:
//! 2,682 photos) it drops that patch, three more of the same print read 1s at 0.35 to 0.64 on
//! a blurred photo (`on-backdrops@blur` 0022), and no real tile.

use image::RgbImage;

use super::twice::in_outline;
use super::{CONFIDENT, max, side};
use crate::detection::Detection;

/// A tile's face is of no strong colour: ivory or white behind its pips and characters, grey in
/// a dim photo. A picture's lone tile read unsurely, and a tile read filling the picture
/// (`whole.rs`), must show at least this share of neutral pixels (NEUTRAL_VALUE,
/// NEUTRAL_SATURATION) inside its outline's bounds.
pub(super) const NEUTRAL_SHARE: f32 = 0.3;
/// A neutral pixel: not black, its brightest channel at least this (0..1, HSV value; the hue of
/// a near-black pixel is noise)...
const NEUTRAL_VALUE: f32 = 0.25;
/// ...and its saturation (HSV) at most this.
const NEUTRAL_SATURATION: f32 = 0.35;
/// Pixels looked at for the share, at most (a grid over the bounds).
const NEUTRAL_SAMPLES: u32 = 200;
/// A lone tile read unsurely whose outline is more than this many times as long as it is wide
/// is no tile (a face is 1.25 to 1.45 seen face-on).
const LONE_ELONGATION: f32 = 1.7;

/// A picture whose tiles are all face down keeps them only when the finder is at least this
/// sure of one.
const SURE_BACK: f32 = 0.55;
/// A lone face-up tile read less surely than CONFIDENT is dropped when its box's long side is
/// under this share of the picture's; so are a few (FEW) that all are.
const SMALL: f32 = 0.125;
/// At most this many face-up tiles, all small and read unsurely, are dropped together.
const FEW: usize = 4;

/// The tiles of picture `img`, or none when every one is face down and the finder is surer
/// than SURE_BACK of none of them (a back means something beside face-up tiles or among sure
/// backs), when there are a few (FEW) face up, all small (SMALL) and not confidently read, or
/// when the one tile is face up, not confidently read, and strongly coloured (NEUTRAL_SHARE: a
/// coloured texture read as a tile) or not shaped like a face (LONE_ELONGATION). Of the rest,
/// a face-up tile not confidently read whose outline is strongly coloured goes.
pub(super) fn drop_lone_doubts(found: Vec<Detection>, img: &RgbImage) -> Vec<Detection> {
    let long = img.width().max(img.height()) as f32;
    let weak_backs = found.iter().all(|d| d.face_down && d.score < SURE_BACK);
    let unsure = |d: &Detection| !d.face_down && max(&d.probs) < CONFIDENT;
    let few_small = found.len() <= FEW
        && found
            .iter()
            .all(|d| unsure(d) && side(&d.bounds()) < SMALL * long);
    let lone_doubt = match found.as_slice() {
        [d] if unsure(d) => {
            neutral_share(img, &d.bounds()) < NEUTRAL_SHARE || elongation(d) > LONE_ELONGATION
        }
        _ => false,
    };
    if weak_backs || few_small || lone_doubt {
        return Vec::new();
    }
    found
        .into_iter()
        .filter(|d| !(unsure(d) && neutral_share_inside(img, d) < NEUTRAL_SHARE))
        .collect()
}

/// How many times as long as it is wide a tile's outline is (its opposite sides averaged).
pub(super) fn elongation(d: &Detection) -> f32 {
    let c = &d.corners;
    let len = |a: usize, b: usize| (c[a][0] - c[b][0]).hypot(c[a][1] - c[b][1]);
    let (across, along) = ((len(0, 1) + len(2, 3)) / 2.0, (len(1, 2) + len(3, 0)) / 2.0);
    across.max(along) / across.min(along).max(1e-3)
}

/// The share of neutral pixels (NEUTRAL_VALUE, NEUTRAL_SATURATION) in the box `b` (x0, y0, x1, y1),
/// looked at on a grid of NEUTRAL_SAMPLES × NEUTRAL_SAMPLES at most; 0 for a box outside the picture.
pub(super) fn neutral_share(img: &RgbImage, b: &[f32; 4]) -> f32 {
    share_of_neutral(img, b, |_| true)
}

/// The share of neutral pixels inside a tile's outline (`twice::in_outline`): a tile lying
/// slanted on a coloured table shows the table in its bounds' corners.
fn neutral_share_inside(img: &RgbImage, d: &Detection) -> f32 {
    share_of_neutral(img, &d.bounds(), |p| in_outline(p, &d.corners))
}

/// The share of neutral pixels among the points of a grid over the box `b` (NEUTRAL_SAMPLES a
/// side at most) that `keep` keeps; 0 when it keeps none.
fn share_of_neutral(img: &RgbImage, b: &[f32; 4], keep: impl Fn([f32; 2]) -> bool) -> f32 {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let (x0, y0) = (b[0].clamp(0.0, w), b[1].clamp(0.0, h));
    let (x1, y1) = (b[2].clamp(0.0, w), b[3].clamp(0.0, h));
    let (nx, ny) = (
        ((x1 - x0) as u32).min(NEUTRAL_SAMPLES),
        ((y1 - y0) as u32).min(NEUTRAL_SAMPLES),
    );
    let (mut neutral, mut seen) = (0usize, 0usize);
    for j in 0..ny {
        for i in 0..nx {
            let x = x0 + (i as f32 + 0.5) * (x1 - x0) / nx as f32;
            let y = y0 + (j as f32 + 0.5) * (y1 - y0) / ny as f32;
            if !keep([x, y]) {
                continue;
            }
            let p = img.get_pixel(
                (x as u32).min(img.width() - 1),
                (y as u32).min(img.height() - 1),
            );
            let hi = f32::from(p.0.into_iter().max().unwrap_or(0));
            let lo = f32::from(p.0.into_iter().min().unwrap_or(0));
            seen += 1;
            if hi / 255.0 >= NEUTRAL_VALUE && (hi - lo) <= NEUTRAL_SATURATION * hi {
                neutral += 1;
            }
        }
    }
    if seen == 0 {
        return 0.0;
    }
    neutral as f32 / seen as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detection::{CLASS_COUNT, Orientation};

    /// A tile 40 wide and 52 tall with its left edge at `x`, found at `score`, face down or
    /// read as class 3 at `p`.
    fn tile(x: f32, score: f32, p: Option<f32>) -> Detection {
        let mut probs = Vec::new();
        if let Some(p) = p {
            probs = vec![0.0; CLASS_COUNT];
            probs[3] = p;
        }
        Detection {
            corners: [[x, 0.0], [x + 40.0, 0.0], [x + 40.0, 52.0], [x, 52.0]],
            score,
            face_down: p.is_none(),
            orientation: Orientation::Up,
            probs,
        }
    }

    /// A plain ivory picture, `w` × `h`.
    fn ivory(w: u32, h: u32) -> RgbImage {
        RgbImage::from_pixel(w, h, image::Rgb([235, 230, 215]))
    }

    /// Ivory with dark pips is a face's colour, and so is the grey of a face in a dim photo; a
    /// dark purple texture with pale streaks is not, nor a saturated colour however bright, nor
    /// black.
    #[test]
    fn a_face_is_of_no_strong_colour_and_a_coloured_or_black_picture_is_not() {
        let face = image::RgbImage::from_fn(120, 160, |x, y| {
            if (x / 20 + y / 20) % 3 == 0 {
                image::Rgb([30, 90, 40])
            } else {
                image::Rgb([235, 230, 215])
            }
        });
        let all = [0.0, 0.0, 120.0, 160.0];
        assert!(neutral_share(&face, &all) >= NEUTRAL_SHARE);
        // The sample photo's 4p: its face at about 100 of 255, barely coloured.
        let dim = image::RgbImage::from_pixel(120, 160, image::Rgb([95, 94, 89]));
        assert!(neutral_share(&dim, &all) >= NEUTRAL_SHARE);
        let black = image::RgbImage::from_pixel(120, 160, image::Rgb([20, 20, 20]));
        assert!(neutral_share(&black, &all) < NEUTRAL_SHARE);
        let storm = image::RgbImage::from_fn(120, 160, |x, _| {
            if x % 10 == 0 {
                image::Rgb([240, 220, 250])
            } else {
                image::Rgb([60, 20, 90])
            }
        });
        assert!(neutral_share(&storm, &all) < NEUTRAL_SHARE);
        let orange = image::RgbImage::from_pixel(120, 160, image::Rgb([250, 150, 40]));
        assert!(neutral_share(&orange, &all) < NEUTRAL_SHARE);
        // A box outside the picture holds nothing.
        assert_eq!(neutral_share(&face, &[200.0, 0.0, 300.0, 50.0]), 0.0);
    }

    #[test]
    fn weak_backs_alone_go_and_stay_beside_a_face_or_a_sure_back() {
        let weak = |x| tile(x, 0.4, None);
        let img = &ivory(2000, 1500);
        assert!(drop_lone_doubts(vec![weak(0.0), weak(42.0)], img).is_empty());
        let sure_back = tile(42.0, 0.8, None);
        assert_eq!(drop_lone_doubts(vec![weak(0.0), sure_back], img).len(), 2);
        let face = tile(42.0, 0.4, Some(0.9));
        assert_eq!(drop_lone_doubts(vec![weak(0.0), face], img).len(), 2);
        assert!(drop_lone_doubts(Vec::new(), img).is_empty());
    }

    #[test]
    fn a_lone_small_face_goes_when_unsure_and_stays_when_sure_or_big() {
        let unsure = tile(0.0, 0.6, Some(0.5));
        // 52 pixels tall: small in a 2000-pixel picture, a close-up in a 200-pixel one.
        let (big, small) = (&ivory(2000, 1500), &ivory(200, 150));
        assert!(drop_lone_doubts(vec![unsure.clone()], big).is_empty());
        assert_eq!(drop_lone_doubts(vec![unsure.clone()], small).len(), 1);
        let sure = tile(0.0, 0.6, Some(0.9));
        assert_eq!(drop_lone_doubts(vec![sure.clone()], big).len(), 1);
        // Beside a tile read surely it is no longer alone.
        let other = tile(42.0, 0.6, Some(0.9));
        assert_eq!(drop_lone_doubts(vec![unsure.clone(), other], big).len(), 2);
    }

    #[test]
    fn a_few_small_unsure_faces_go_together_and_stay_beside_a_sure_one_or_when_many() {
        let unsure = |x| tile(x, 0.6, Some(0.5));
        let (big, small) = (&ivory(2000, 1500), &ivory(200, 150));
        let few: Vec<Detection> = (0..FEW).map(|i| unsure(i as f32 * 42.0)).collect();
        assert!(drop_lone_doubts(few.clone(), big).is_empty());
        // Big in the picture, they stay (a close-up of a few tiles).
        assert_eq!(drop_lone_doubts(few.clone(), small).len(), FEW);
        let mut with_sure = few.clone();
        with_sure.push(tile(300.0, 0.6, Some(0.9)));
        assert_eq!(drop_lone_doubts(with_sure, big).len(), FEW + 1);
        let many: Vec<Detection> = (0..=FEW).map(|i| unsure(i as f32 * 42.0)).collect();
        assert_eq!(drop_lone_doubts(many, big).len(), FEW + 1);
    }

    /// A big lone tile read unsurely stays on a face's colours and goes on a coloured texture; a
    /// sure one stays on either.
    #[test]
    fn a_lone_unsure_face_goes_when_strongly_coloured() {
        let unsure = tile(0.0, 0.6, Some(0.5));
        assert_eq!(
            drop_lone_doubts(vec![unsure.clone()], &ivory(60, 60)).len(),
            1
        );
        let purple = image::RgbImage::from_pixel(60, 60, image::Rgb([60, 20, 90]));
        assert!(drop_lone_doubts(vec![unsure], &purple).is_empty());
        let sure = tile(0.0, 0.6, Some(0.9));
        assert_eq!(drop_lone_doubts(vec![sure], &purple).len(), 1);
    }

    /// Beside a sure tile, an unsure one goes when its outline shows strong colour and stays on
    /// a face's colours, also slanted on a coloured table (only what lies inside the outline
    /// counts); a sure one stays on colour.
    #[test]
    fn an_unsure_face_on_strong_colour_goes_beside_others_too() {
        // Ivory on the left half, orange on the right.
        let img = image::RgbImage::from_fn(200, 100, |x, _| {
            if x < 100 {
                image::Rgb([235, 230, 215])
            } else {
                image::Rgb([200, 120, 40])
            }
        });
        let sure = tile(0.0, 0.8, Some(0.9));
        let on_colour = tile(120.0, 0.6, Some(0.3));
        let kept = drop_lone_doubts(vec![sure.clone(), on_colour], &img);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].corners, sure.corners);
        let on_ivory = tile(50.0, 0.6, Some(0.3));
        assert_eq!(
            drop_lone_doubts(vec![sure.clone(), on_ivory], &img).len(),
            2
        );
        let sure_on_colour = tile(120.0, 0.6, Some(0.9));
        assert_eq!(
            drop_lone_doubts(vec![sure.clone(), sure_on_colour], &img).len(),
            2
        );
        // A tile turned 45° (a diamond) on an orange table: its bounds are half table, what
        // lies inside its outline all face.
        let table = image::RgbImage::from_fn(200, 100, |x, y| {
            let (dx, dy) = (
                (x as f32 - 99.0).abs() / 39.0,
                (y as f32 - 50.0).abs() / 40.0,
            );
            if dx + dy <= 1.0 {
                image::Rgb([235, 230, 215])
            } else {
                image::Rgb([200, 120, 40])
            }
        });
        let diamond = Detection {
            corners: [[60.0, 50.0], [99.0, 10.0], [138.0, 50.0], [99.0, 90.0]],
            ..tile(0.0, 0.6, Some(0.3))
        };
        assert!(neutral_share(&table, &diamond.bounds()) < 0.6);
        assert!(neutral_share_inside(&table, &diamond) > 0.9);
        assert_eq!(drop_lone_doubts(vec![sure, diamond], &table).len(), 2);
    }

    /// A big lone tile read unsurely goes when its outline is far longer than a face's (a grey
    /// wave across the picture), and stays when shaped like one; a sure one stays either way.
    #[test]
    fn a_lone_unsure_face_goes_when_not_shaped_like_a_face() {
        let stretched = |p: f32| Detection {
            corners: [[0.0, 0.0], [100.0, 0.0], [100.0, 52.0], [0.0, 52.0]],
            ..tile(0.0, 0.6, Some(p))
        };
        let img = &ivory(120, 100);
        assert!(elongation(&stretched(0.5)) > 1.9);
        assert!(drop_lone_doubts(vec![stretched(0.5)], img).is_empty());
        assert_eq!(drop_lone_doubts(vec![stretched(0.9)], img).len(), 1);
        let shaped = tile(0.0, 0.6, Some(0.5));
        assert!((elongation(&shaped) - 1.3).abs() < 0.01);
        assert_eq!(drop_lone_doubts(vec![shaped], img).len(), 1);
    }
}

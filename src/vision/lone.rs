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

use super::{CONFIDENT, max, side};
use crate::detection::Detection;

/// A picture whose tiles are all face down keeps them only when the finder is at least this
/// sure of one.
const SURE_BACK: f32 = 0.55;
/// A lone face-up tile read less surely than CONFIDENT is dropped when its box's long side is
/// under this share of the picture's.
const SMALL: f32 = 0.125;

/// The tiles of a `w` × `h` picture, or none when every one is face down and the finder is
/// surer than SURE_BACK of none of them (a back means something beside face-up tiles or among
/// sure backs), or when the one tile is face up, small (SMALL) and not confidently read.
pub(super) fn drop_lone_doubts(found: Vec<Detection>, w: f32, h: f32) -> Vec<Detection> {
    let weak_backs = found.iter().all(|d| d.face_down && d.score < SURE_BACK);
    let small_doubt = match found.as_slice() {
        [d] => !d.face_down && max(&d.probs) < CONFIDENT && side(&d.bounds()) < SMALL * w.max(h),
        _ => false,
    };
    if weak_backs || small_doubt {
        Vec::new()
    } else {
        found
    }
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

    #[test]
    fn weak_backs_alone_go_and_stay_beside_a_face_or_a_sure_back() {
        let weak = |x| tile(x, 0.4, None);
        let (w, h) = (2000.0, 1500.0);
        assert!(drop_lone_doubts(vec![weak(0.0), weak(42.0)], w, h).is_empty());
        let sure_back = tile(42.0, 0.8, None);
        assert_eq!(drop_lone_doubts(vec![weak(0.0), sure_back], w, h).len(), 2);
        let face = tile(42.0, 0.4, Some(0.9));
        assert_eq!(drop_lone_doubts(vec![weak(0.0), face], w, h).len(), 2);
        assert!(drop_lone_doubts(Vec::new(), w, h).is_empty());
    }

    #[test]
    fn a_lone_small_face_goes_when_unsure_and_stays_when_sure_or_big() {
        let unsure = tile(0.0, 0.6, Some(0.5));
        // 52 pixels tall: small in a 2000-pixel picture, a close-up in a 200-pixel one.
        assert!(drop_lone_doubts(vec![unsure.clone()], 2000.0, 1500.0).is_empty());
        assert_eq!(
            drop_lone_doubts(vec![unsure.clone()], 200.0, 150.0).len(),
            1
        );
        let sure = tile(0.0, 0.6, Some(0.9));
        assert_eq!(drop_lone_doubts(vec![sure], 2000.0, 1500.0).len(), 1);
        // Beside another tile it is no longer alone.
        let other = tile(42.0, 0.6, Some(0.9));
        assert_eq!(
            drop_lone_doubts(vec![unsure, other], 2000.0, 1500.0).len(),
            2
        );
    }
}

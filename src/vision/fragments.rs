//! Part of a big tile found as the tile: in a close-up of a few tiles the finder sometimes
//! outlines only the character of a 3m (the 萬, read 8m), the four bamboos of a 4s without
//! their margin, the middle of a 9m, or one tile as two parts (a 4p as a 4p and a 2p); the
//! classifier reads a part unsurely, often as another face. A big face-up tile read unsurely,
//! not touching the picture's edge (there it is a neighbour cut by the frame, `edges.rs`), is
//! read again along outlines grown in its own axes: wider, taller or both, the part at either
//! end or in the middle of the grown outline. The surest reading wins when it is a confident
//! face and not "not a tile", and the grown outline covers no other tile but unsure parts
//! lying mostly inside it, which go with it.
//!
//! Only tiles of at least FRAGMENT_SIZE of the picture's short side are tried: the small tiles
//! of photos of whole hands are left as they are.
//!
//! Measured (`tools/eval_photos.py`, stage-2d finder): close-ups of a few tiles 64 → 68 of 68
//! read exactly; held-out rf photos 70 → 71 of 81 (false tiles 19 → 17; a 7p read 9p and a 3s
//! read weakly in a heap, now both right); every other set as it was. Covering any unsure
//! tile (not only parts mostly inside) swallowed real tiles of rf heaps (two photos lost a
//! tile); growing the cut tiles at the edge read neighbours half out of the frame surely.

use std::time::Instant;

use super::edges::{short_side, touches_edge};
use super::twice::share_inside;
use super::{Recognizer, Timings, UNSURE, VisionError, cut_outlines, max, without_marked};
use crate::detection::Detection;

/// A face-up tile read under UNSURE is tried when its outline's short side is at least this
/// share of the picture's short side.
const FRAGMENT_SIZE: f32 = 0.12;
/// The factors each side of the outline is grown by (1: kept).
const GROWTHS: [f32; 3] = [1.0, 1.35, 1.7];
/// A grown outline may reach this far past the picture's edge (a share of its short side).
const PAST_EDGE: f32 = 0.02;
/// A grown outline covers another tile when it holds this share of the other's outline.
const COVERS: f32 = 0.2;
/// Another tile read unsurely with at least this share of its outline inside a grown outline
/// is another part of the same tile.
const PART_INSIDE: f32 = 0.6;
/// The grown outlines read surest at a first glance (one cut each) that are read in full.
const FINALISTS: usize = 3;

/// The outlines of `d` grown in its own axes: one side by a factor of GROWTHS, or both by
/// the same factor, with the old outline at the start, the middle or the end of each grown
/// side. (Both grown by different factors too: 42 outlines instead of 30, the same reads on
/// every set of `tools/eval_photos.py`, a close-up 10–30 ms slower.)
fn grown_outlines(d: &Detection) -> Vec<[[f32; 2]; 4]> {
    let [c0, c1, _, c3] = d.corners;
    let u = [c1[0] - c0[0], c1[1] - c0[1]];
    let v = [c3[0] - c0[0], c3[1] - c0[1]];
    let shifts = |g: f32| {
        if g == 1.0 {
            vec![0.0]
        } else {
            vec![0.0, (1.0 - g) / 2.0, 1.0 - g]
        }
    };
    let mut out = Vec::new();
    for gu in GROWTHS {
        for gv in GROWTHS {
            let neither = gu == 1.0 && gv == 1.0;
            let unlike = gu != 1.0 && gv != 1.0 && gu != gv;
            if neither || unlike {
                continue;
            }
            for a in shifts(gu) {
                for b in shifts(gv) {
                    let o = [c0[0] + a * u[0] + b * v[0], c0[1] + a * u[1] + b * v[1]];
                    let at =
                        |s: f32, t: f32| [o[0] + s * u[0] + t * v[0], o[1] + s * u[1] + t * v[1]];
                    out.push([at(0.0, 0.0), at(gu, 0.0), at(gu, gv), at(0.0, gv)]);
                }
            }
        }
    }
    out
}

/// Whether an outline stays within PAST_EDGE of a `w` × `h` picture.
fn inside_picture(c: &[[f32; 2]; 4], w: f32, h: f32) -> bool {
    let m = PAST_EDGE * w.min(h);
    c.iter()
        .all(|p| (-m..=w + m).contains(&p[0]) && (-m..=h + m).contains(&p[1]))
}

/// What another tile is to a grown outline `g`: apart from it (under COVERS of its outline
/// inside), a neighbour it covers (the grown outline is not read), or another part of the tile
/// `g` shows (read unsurely and PART_INSIDE inside: it goes when the grown outline wins).
#[derive(PartialEq)]
enum Beside {
    Apart,
    Covered,
    Part,
}

fn beside(g: &Detection, other: &Detection) -> Beside {
    let inside = share_inside(other, g);
    if inside < COVERS {
        Beside::Apart
    } else if !other.face_down && max(&other.probs) < UNSURE && inside >= PART_INSIDE {
        Beside::Part
    } else {
        Beside::Covered
    }
}

/// The grown outlines of tile `i` of `found` worth reading: inside the picture, covering no
/// other tile that stands alone.
fn candidates(found: &[Detection], i: usize, w: f32, h: f32) -> Vec<Detection> {
    grown_outlines(&found[i])
        .into_iter()
        .filter(|c| inside_picture(c, w, h))
        .map(|corners| Detection {
            corners,
            ..found[i].clone()
        })
        .filter(|g| {
            found
                .iter()
                .enumerate()
                .all(|(j, o)| j == i || beside(g, o) != Beside::Covered)
        })
        .collect()
}

impl Recognizer {
    /// Big tiles read unsurely replaced by a grown outline of theirs that reads as a
    /// confident face (see the module's doc).
    pub(super) fn regrow_fragments(
        &mut self,
        img: &image::RgbImage,
        mut found: Vec<Detection>,
        t: &mut Timings,
    ) -> Result<Vec<Detection>, VisionError> {
        let (w, h) = (img.width() as f32, img.height() as f32);
        let big = FRAGMENT_SIZE * w.min(h);
        let picks: Vec<usize> = (0..found.len())
            .filter(|&i| {
                let d = &found[i];
                let cut = touches_edge(&d.bounds(), w, h);
                !d.face_down && max(&d.probs) < UNSURE && short_side(d) >= big && !cut
            })
            .collect();
        let mut gone = vec![false; found.len()];
        for i in picks {
            if gone[i] {
                continue;
            }
            let Some(g) = self.best_grown(img, candidates(&found, i, w, h), t)? else {
                continue;
            };
            for (j, o) in found.iter().enumerate() {
                if j != i && beside(&g, o) == Beside::Part {
                    gone[j] = true;
                }
            }
            found[i] = g;
        }
        Ok(without_marked(found, &gone))
    }

    /// The grown outline that reads as the surest confident face and not "not a tile", if
    /// any: each is cut once along its outline, and the FINALISTS read surest so are read
    /// as every tile is (with a margin, turned round when unsure).
    fn best_grown(
        &mut self,
        img: &image::RgbImage,
        grown: Vec<Detection>,
        t: &mut Timings,
    ) -> Result<Option<Detection>, VisionError> {
        if grown.is_empty() {
            return Ok(None);
        }
        let outlines: Vec<&[[f32; 2]; 4]> = grown.iter().map(|g| &g.corners).collect();
        let crops = cut_outlines(img, &outlines);
        let t0 = Instant::now();
        let first = self.classify(crops.view(), self.is_soft())?;
        t.classifier += t0.elapsed().as_secs_f64() * 1e3;
        let mut order: Vec<usize> = (0..grown.len()).collect();
        order.sort_by(|&a, &b| max(&first[b].faces).total_cmp(&max(&first[a].faces)));
        let finalists: Vec<Detection> = order
            .into_iter()
            .take(FINALISTS)
            .map(|k| grown[k].clone())
            .collect();
        Ok(self
            .sure_readings(img, finalists, t)?
            .into_iter()
            .max_by(|a, b| max(&a.probs).total_cmp(&max(&b.probs))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(b: [f32; 4]) -> Detection {
        Detection::upright(b, vec![0.0; 42])
    }

    #[test]
    fn grown_outlines_hold_the_old_one_and_keep_the_corner_order() {
        let d = tile([100.0, 100.0, 200.0, 250.0]);
        let grown = grown_outlines(&d);
        // Width kept, height grown (3 shifts) twice; the same across; both grown alike, 2 × 9.
        assert_eq!(grown.len(), 2 * 3 + 2 * 3 + 2 * 9);
        for c in &grown {
            let g = Detection {
                corners: *c,
                ..d.clone()
            };
            let b = g.bounds();
            assert!(b[0] <= 100.0 + 1e-3 && b[1] <= 100.0 + 1e-3, "{b:?}");
            assert!(b[2] >= 200.0 - 1e-3 && b[3] >= 250.0 - 1e-3, "{b:?}");
            // Clockwise from the top left, as the outline it grew from.
            assert!(c[1][0] > c[0][0] && c[2][1] > c[1][1] && c[3][0] < c[2][0]);
        }
    }

    fn read(mut d: Detection, p: f32) -> Detection {
        d.probs[3] = p;
        d
    }

    #[test]
    fn a_grown_outline_over_a_neighbour_is_not_read() {
        // A part of a tile with a whole tile beside it on the right, read surely or not.
        for p in [0.9, 0.3] {
            let found = vec![
                tile([100.0, 100.0, 200.0, 250.0]),
                read(tile([230.0, 80.0, 380.0, 300.0]), p),
            ];
            let grown = candidates(&found, 0, 1000.0, 800.0);
            assert!(!grown.is_empty());
            for g in &grown {
                assert!(beside(g, &found[1]) == Beside::Apart, "{:?}", g.bounds());
            }
            // Grown rightwards to x = 300 it would hold half of the neighbour.
            let over = Detection {
                corners: [
                    [100.0, 100.0],
                    [300.0, 100.0],
                    [300.0, 250.0],
                    [100.0, 250.0],
                ],
                ..found[0].clone()
            };
            assert!(beside(&over, &found[1]) == Beside::Covered);
        }
    }

    #[test]
    fn another_unsure_part_of_the_grown_tile_goes_with_it() {
        // The top and the bottom of one tile, both read unsurely; grown downwards, the top
        // part holds the bottom one, which is not a neighbour to keep.
        let found = vec![
            read(tile([100.0, 100.0, 200.0, 180.0]), 0.4),
            read(tile([100.0, 185.0, 200.0, 230.0]), 0.4),
        ];
        let grown = candidates(&found, 0, 1000.0, 800.0);
        let whole = grown
            .iter()
            .find(|g| g.bounds()[3] >= 230.0 && g.bounds()[0] >= 99.0)
            .expect("an outline grown over the bottom part");
        assert!(beside(whole, &found[1]) == Beside::Part);
        // Read surely, the bottom one is a tile of its own.
        let sure = read(found[1].clone(), 0.9);
        assert!(beside(whole, &sure) == Beside::Covered);
    }

    #[test]
    fn outlines_past_the_picture_are_not_read() {
        let found = vec![tile([0.0, 0.0, 100.0, 150.0])];
        for g in candidates(&found, 0, 400.0, 300.0) {
            let b = g.bounds();
            assert!(b[0] >= -6.0 && b[1] >= -6.0, "{b:?}");
        }
    }
}

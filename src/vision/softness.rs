//! Soft photos: a photo out of focus or shaken, its tiles' pips run together. The classifier
//! that ships reads sharp faces of tile sets it never saw best, and blurred faces badly; a
//! second classifier, trained on the same faces blurred and noisy (`models/README.md`), reads
//! blurred faces far better and sharp ones of unseen sets a little worse. So a photo is read
//! with the second one only when its tiles are soft: the sharpness of the faces the finder
//! found, measured on the crops the classifier is given.
//!
//! Sharpness of a crop: the 90th percentile of the absolute Laplacian of its grey levels over
//! the spread of those levels (95th minus 5th percentile, at least SPREAD_FLOOR), so neither a
//! dim photo nor a pale face reads as soft. A photo's sharpness is the median over its faces
//! (at most SAMPLED of them).
//!
//! Measured on the photos of `tools/eval_photos.py` (median per photo): the 81 held-out rf
//! photos 0.23 and up, the same in the dark (`@dark`) 0.22 and up, rows on glass, on the
//! backdrops and hands from the seat (12 MP) 0.35 and up, the crops all but one 0.24 and up;
//! blurred by 0.2% of the long side (`@blur`) 38 of 81 under 0.15, by 0.4% 77 of 79. The
//! close-ups, blown up from 640-pixel photos, are soft as taken: 6 of 67 under 0.15, 10 under
//! 0.2; at 0.2 two of them (0051, 0053) went to the second classifier and were read wrong, at
//! 0.15 none is.
//!
//! A photo smeared one way by a phone that moved keeps its edges across the smear, and the
//! Laplacian with them: hands from the seat smeared along a line 0.5% of the long side long
//! (`@shake`) measure 0.15 to 0.37, as sharp as some photos as taken. So a photo is soft too
//! when its faces' sharpness along their weakest direction (`smeared`: the second difference
//! across, down and along both diagonals) has a median under SMEARED. Medians per photo (24 of
//! each set): hands from the seat 0.12 and up as taken, 0.03 to 0.13 (20 under 0.10) smeared;
//! rows on pictures 0.18 and up, smeared 0.08 to 0.18; glass, `few-new` and `lone-new` 0.11
//! and up. Under 0.10 but not soft by the Laplacian: 3 of 24 held-out rf photos (ones the
//! exporter stretched) and 4 of 24 close-ups, all read as before (session 62).

use ndarray::{Array4, ArrayView3, Axis};

use super::geometry::median;
use super::{CROP_H, CROP_W};

/// A photo whose faces' median sharpness is under this is soft.
pub(super) const SOFT: f32 = 0.15;
/// A photo whose faces' median sharpness along their weakest direction (`smeared`) is under
/// this is soft too: smeared by a phone that moved.
pub(super) const SMEARED: f32 = 0.10;
/// At most this many faces are measured (the finder's surest).
pub(super) const SAMPLED: usize = 12;
/// The smallest spread of grey levels a sharpness is divided by (a blank face).
const SPREAD_FLOOR: f32 = 10.0;

/// The median sharpness of the crops (n, 3, CROP_H, CROP_W; 0..255); `None` for none.
pub(super) fn median_sharpness(crops: &Array4<f32>) -> Option<f32> {
    median_over(crops, sharpness)
}

/// The median of `measure` over the crops; `None` for none.
fn median_over(crops: &Array4<f32>, measure: fn(ArrayView3<'_, f32>) -> f32) -> Option<f32> {
    let s: Vec<f32> = crops.axis_iter(Axis(0)).map(measure).collect();
    (!s.is_empty()).then(|| median(s))
}

/// The sharpness of one crop (3, CROP_H, CROP_W; 0..255).
fn sharpness(crop: ArrayView3<'_, f32>) -> f32 {
    let levels = grey_levels(crop);
    let grey = |y: usize, x: usize| levels[y * CROP_W + x];
    let mut edges = Vec::with_capacity((CROP_H - 2) * (CROP_W - 2));
    for y in 1..CROP_H - 1 {
        for x in 1..CROP_W - 1 {
            let around = grey(y - 1, x) + grey(y + 1, x) + grey(y, x - 1) + grey(y, x + 1);
            edges.push((4.0 * grey(y, x) - around).abs());
        }
    }
    percentile(&mut edges, 0.9) / spread(&levels)
}

/// The median over the crops of their sharpness along their weakest direction (`smeared`);
/// `None` for none.
pub(super) fn median_smear_sharpness(crops: &Array4<f32>) -> Option<f32> {
    median_over(crops, smeared)
}

/// The sharpness of one crop (3, CROP_H, CROP_W; 0..255) along the direction it is least
/// sharp in: the 90th percentile of the absolute second difference of its grey levels along
/// each of four directions (across, down and the two diagonals, these halved: their step is
/// longer), the least of the four, over the spread of the levels as `sharpness` has it. A
/// photo smeared by a moving phone keeps its edges across the smear and loses those along it.
fn smeared(crop: ArrayView3<'_, f32>) -> f32 {
    let levels = grey_levels(crop);
    let grey = |y: isize, x: isize| levels[y as usize * CROP_W + x as usize];
    let spread = spread(&levels);
    let along = |(dy, dx, weight): (isize, isize, f32)| {
        let mut edges = Vec::with_capacity((CROP_H - 2) * (CROP_W - 2));
        for y in 1..CROP_H as isize - 1 {
            for x in 1..CROP_W as isize - 1 {
                let second = 2.0 * grey(y, x) - grey(y - dy, x - dx) - grey(y + dy, x + dx);
                edges.push(weight * second.abs());
            }
        }
        percentile(&mut edges, 0.9) / spread
    };
    [(0, 1, 1.0), (1, 0, 1.0), (1, 1, 0.5), (1, -1, 0.5)]
        .map(along)
        .into_iter()
        .fold(f32::MAX, f32::min)
}

/// The grey levels of a crop (3, CROP_H, CROP_W; 0..255), row by row.
fn grey_levels(crop: ArrayView3<'_, f32>) -> Vec<f32> {
    let mut levels = Vec::with_capacity(CROP_H * CROP_W);
    for y in 0..CROP_H {
        for x in 0..CROP_W {
            levels.push((crop[[0, y, x]] + crop[[1, y, x]] + crop[[2, y, x]]) / 3.0);
        }
    }
    levels
}

/// The spread of grey levels a sharpness is divided by: the 95th percentile less the 5th, at
/// least SPREAD_FLOOR.
fn spread(levels: &[f32]) -> f32 {
    let mut sorted = levels.to_vec();
    (percentile(&mut sorted, 0.95) - percentile(&mut sorted, 0.05)).max(SPREAD_FLOOR)
}

/// The `q` quantile (0..1) of `v`, reordering it.
pub(super) fn percentile(v: &mut [f32], q: f32) -> f32 {
    let k = ((v.len() - 1) as f32 * q).round() as usize;
    *v.select_nth_unstable_by(k, f32::total_cmp).1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crop of dark pips on a pale face, blurred `times` times by a 3×3 box (8 times: about
    /// the blur of a 640-pixel photo blurred by 0.4% of its long side, as the crop sees it).
    fn pips(times: usize) -> Array4<f32> {
        let mut a = Array4::<f32>::from_shape_fn((1, 3, CROP_H, CROP_W), |(_, _, y, x)| {
            if (x / 6 + y / 6) % 2 == 0 {
                40.0
            } else {
                220.0
            }
        });
        for _ in 0..times {
            let b = a.clone();
            for c in 0..3 {
                for y in 1..CROP_H - 1 {
                    for x in 1..CROP_W - 1 {
                        let mut sum = 0.0;
                        for dy in 0..3 {
                            for dx in 0..3 {
                                sum += b[[0, c, y + dy - 1, x + dx - 1]];
                            }
                        }
                        a[[0, c, y, x]] = sum / 9.0;
                    }
                }
            }
        }
        a
    }

    /// The crop of `pips(0)` smeared across by a box `len` pixels wide (a phone moved
    /// sideways).
    fn pips_smeared(len: usize) -> Array4<f32> {
        let b = pips(0);
        Array4::from_shape_fn((1, 3, CROP_H, CROP_W), |(_, c, y, x)| {
            let xs = x.saturating_sub(len / 2)..(x + len / 2 + 1).min(CROP_W);
            let n = xs.len() as f32;
            xs.map(|x| b[[0, c, y, x]]).sum::<f32>() / n
        })
    }

    #[test]
    fn a_crop_smeared_one_way_keeps_its_edges_across_but_loses_them_along() {
        let sharp = median_smear_sharpness(&pips(0)).unwrap();
        let smeared = pips_smeared(7);
        let across = median_smear_sharpness(&smeared).unwrap();
        assert!(sharp > 3.0 * across, "{sharp} {across}");
        // The Laplacian sees the edges the smear leaves.
        assert!(median_sharpness(&smeared).unwrap() > SOFT);
        assert!(median_smear_sharpness(&Array4::zeros((0, 3, CROP_H, CROP_W))).is_none());
    }

    #[test]
    fn sharp_pips_are_sharp_and_blurred_ones_soft() {
        let sharp = median_sharpness(&pips(0)).unwrap();
        let soft = median_sharpness(&pips(8)).unwrap();
        assert!(sharp > SOFT, "{sharp}");
        assert!(soft < SOFT, "{soft}");
        // A dim copy of the sharp crop is as sharp: the spread divides the edges.
        let dim = median_sharpness(&(pips(0) * 0.3)).unwrap();
        assert!((dim - sharp).abs() < 0.01, "{dim} {sharp}");
        assert!(median_sharpness(&Array4::zeros((0, 3, CROP_H, CROP_W))).is_none());
    }
}

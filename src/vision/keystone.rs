//! A photo taken from low: the table runs away from the camera, its far tiles smaller and
//! flatter than its near ones (a keystone). The finder misses or misreads the far ones of a
//! heap or a far row. On a table seen in perspective a tile's outline grows in proportion to
//! its distance from the horizon line: the cube root of its area is linear across the
//! picture (the area of a projective map's image scales with the cube of its denominator).
//! When the face-up tiles' sizes so fitted change enough across them (`STRONG`), the picture
//! is drawn again with that projective part taken out about the tiles' middle, read again,
//! and the tiles found there put back, if their faces read more surely (`surety`) once a
//! close-up's parts of tiles are dropped (`drop_cut_neighbours`).

use image::RgbImage;

use super::edges::{drop_cut_neighbours, is_a_close_up};
use super::geometry::median;
use super::sideways::surety;
use super::twice::area;
use super::warp::{mean_colour, warped};
use super::{Recognizer, Timings, VisionError};
use crate::detection::Detection;

/// The sizes are fitted only over at least this many face-up tiles...
const AT_LEAST: usize = 5;
/// ...and the picture drawn again only when the fitted size of the biggest differs from the
/// smallest's by this factor at least. The 81 `rf-holdout+` photos as taken fit 1.0 to 1.64
/// (median 1.04), leaned 30° (`@lean30`) 1.0 to 2.4 (median 1.4); with 1.8 `@lean30` read 54
/// photos exactly, with 1.3 58 (48 before), the photos as taken the same 75 either way.
const STRONG: f32 = 1.3;
/// The map must keep every corner of the picture at least this far from the horizon (the
/// denominator's share of its value at the tiles' middle), else the far corner would be
/// blown up past use.
const FLOOR: f32 = 0.35;
/// A tile whose size is off the first fit by more than this many times the median miss (a
/// tile standing in a heap lying flat) is left out of the second.
const OUTLIER: f32 = 2.5;

/// The projective part of a picture's perspective about `mid`: a point `p` goes to
/// `mid + (p - mid) / w(p)`, where `w(p) = 1 + g (p - mid)x + h (p - mid)y`. Its inverse is
/// the same map with `-g` and `-h`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Keystone {
    mid: [f32; 2],
    g: f32,
    h: f32,
}

impl Keystone {
    /// The denominator at `p`: how big a tile there is beside one at `mid`.
    fn w(&self, p: [f32; 2]) -> f32 {
        1.0 + self.g * (p[0] - self.mid[0]) + self.h * (p[1] - self.mid[1])
    }

    fn apply(&self, p: [f32; 2]) -> [f32; 2] {
        let w = self.w(p);
        [
            self.mid[0] + (p[0] - self.mid[0]) / w,
            self.mid[1] + (p[1] - self.mid[1]) / w,
        ]
    }

    fn inverse(&self) -> Keystone {
        Keystone {
            g: -self.g,
            h: -self.h,
            ..*self
        }
    }
}

/// A tile's size (the cube root of its area) where it lies (its outline's centre).
type SizeAt = ([f32; 2], f32);

/// The plane `s = a + b dx + c dy` fitted by least squares to sizes `s` at points (`dx`, `dy`)
/// about their mean; `None` when the points lie on a line.
fn fit_plane(points: &[SizeAt]) -> Option<(f32, f32, f32, [f32; 2])> {
    let n = points.len() as f32;
    let mean = |f: fn(&SizeAt) -> f32| points.iter().map(f).sum::<f32>() / n;
    let (mx, my, ms) = (mean(|q| q.0[0]), mean(|q| q.0[1]), mean(|q| q.1));
    let (mut sxx, mut sxy, mut syy, mut sxs, mut sys) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for ([x, y], s) in points {
        let (dx, dy, ds) = (x - mx, y - my, s - ms);
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
        sxs += dx * ds;
        sys += dy * ds;
    }
    let det = sxx * syy - sxy * sxy;
    if det <= 1e-6 * (sxx * syy).max(1e-12) {
        return None;
    }
    let b = (sxs * syy - sys * sxy) / det;
    let c = (sys * sxx - sxs * sxy) / det;
    Some((ms, b, c, [mx, my]))
}

/// The keystone of the face-up tiles of `found`: the cube roots of their areas fitted as a
/// plane, once more without the tiles the first fit misses most (`OUTLIER`).
fn keystone_of(found: &[Detection]) -> Option<Keystone> {
    let mut points: Vec<SizeAt> = found
        .iter()
        .filter(|d| !d.face_down)
        .map(|d| (d.center(), area(d).cbrt()))
        .collect();
    if points.len() < AT_LEAST {
        return None;
    }
    let (a, b, c, mid) = fit_plane(&points)?;
    let miss = |q: &SizeAt| (q.1 - a - b * (q.0[0] - mid[0]) - c * (q.0[1] - mid[1])).abs();
    let typical = median(points.iter().map(miss).collect());
    points.retain(|q| miss(q) <= OUTLIER * typical);
    if points.len() < AT_LEAST {
        return None;
    }
    let (a, b, c, mid) = fit_plane(&points)?;
    (a > 0.0).then_some(Keystone {
        mid,
        g: b / a,
        h: c / a,
    })
}

/// Whether taking `k` out is worth a second reading of a `w` × `h` picture where `found`
/// was read: the tiles' fitted sizes differ by `STRONG` at least, and no corner of the picture
/// comes nearer the horizon than `FLOOR`.
fn worth_taking_out(k: &Keystone, found: &[Detection], (w, h): (f32, f32)) -> bool {
    let (lo, hi) = found
        .iter()
        .filter(|d| !d.face_down)
        .map(|d| k.w(d.center()))
        .fold((f32::MAX, f32::MIN), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let floor = picture_corners((w, h))
        .iter()
        .map(|&p| k.w(p))
        .fold(f32::MAX, f32::min);
    lo > 0.0 && hi / lo >= STRONG && floor >= FLOOR
}

/// The corners of a `w` × `h` picture.
fn picture_corners((w, h): (f32, f32)) -> [[f32; 2]; 4] {
    [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]]
}

/// Where the picture of `k` taken out goes on a canvas: the canvas's size and the map from
/// the photo to it (the picture taken out, shifted to the canvas and scaled by `scale`).
#[derive(Clone, Copy, Debug)]
struct Canvas {
    k: Keystone,
    origin: [f32; 2],
    scale: f32,
    size: (u32, u32),
}

impl Canvas {
    /// The canvas that holds all of a `w` × `h` picture with `k` taken out, no more pixels
    /// than the picture has.
    fn of(k: Keystone, (w, h): (f32, f32)) -> Canvas {
        let corners = picture_corners((w, h)).map(|p| k.apply(p));
        let lo = [0, 1].map(|i| corners.iter().map(|p| p[i]).fold(f32::MAX, f32::min));
        let hi = [0, 1].map(|i| corners.iter().map(|p| p[i]).fold(f32::MIN, f32::max));
        let (cw, ch) = (hi[0] - lo[0], hi[1] - lo[1]);
        let scale = ((w * h) / (cw * ch)).sqrt().min(1.0);
        Canvas {
            k,
            origin: lo,
            scale,
            size: ((cw * scale).ceil() as u32, (ch * scale).ceil() as u32),
        }
    }

    /// Where a point of the photo lies on the canvas (`back` undoes it).
    #[cfg(test)]
    fn on_canvas(&self, p: [f32; 2]) -> [f32; 2] {
        let q = self.k.apply(p);
        [
            (q[0] - self.origin[0]) * self.scale,
            (q[1] - self.origin[1]) * self.scale,
        ]
    }

    fn back(&self, q: [f32; 2]) -> [f32; 2] {
        self.k.inverse().apply([
            q[0] / self.scale + self.origin[0],
            q[1] / self.scale + self.origin[1],
        ])
    }
}

impl Recognizer {
    /// `found`, or, in a photo that is no close-up (`is_a_close_up`: a few big tiles and
    /// their pips give no table's perspective; `closeup-few` 0029's 8s was read surely along
    /// a warped outline), when its tiles' sizes show a strong keystone (`keystone_of`,
    /// `worth_taking_out`), the tiles found in the picture with it taken out, put back, if
    /// they are read more surely (`surety`) as a close-up would keep them.
    pub(super) fn take_out_keystone(
        &mut self,
        img: &RgbImage,
        found: Vec<Detection>,
        t: &mut Timings,
    ) -> Result<Vec<Detection>, VisionError> {
        let size = (img.width() as f32, img.height() as f32);
        if is_a_close_up(size.0, size.1, &found) {
            return Ok(found);
        }
        let Some(k) = keystone_of(&found).filter(|k| worth_taking_out(k, &found, size)) else {
            return Ok(found);
        };
        let canvas = Canvas::of(k, size);
        let back = move |q| canvas.back(q);
        let flat = warped(img, canvas.size, mean_colour(img), back, self.cfg.threads);
        let (read, tm) = self.find_and_read(&flat)?;
        t.add_time(&tm);
        let read: Vec<Detection> = read
            .into_iter()
            .map(|d| Detection {
                corners: d.corners.map(back),
                ..d
            })
            .collect();
        // Judged by what a close-up keeps: a near tile found only with the keystone taken
        // out makes a close-up of the photo, whose far tiles would then go as parts of tiles
        // (`rf-holdout+@lean10` 0064: 13 tiles read surely as taken, 4 so).
        let kept = |f: &[Detection]| surety(&drop_cut_neighbours(size.0, size.1, f.to_vec()));
        if kept(&read) <= kept(&found) {
            return Ok(found);
        }
        t.rejected = tm.rejected;
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detection::{CLASS_COUNT, Orientation};

    /// A face-up tile `side` pixels wide, centred at (`x`, `y`), as tall as a tile 40 wide
    /// and 4/3 as tall grown `side / 40` times as a table's perspective grows it: twice for
    /// its width, twice again for its foreshortening.
    fn tile(x: f32, y: f32, side: f32) -> Detection {
        let (a, b) = (side / 2.0, side * side / 60.0);
        Detection {
            corners: [
                [x - a, y - b],
                [x + a, y - b],
                [x + a, y + b],
                [x - a, y + b],
            ],
            score: 0.9,
            face_down: false,
            orientation: Orientation::Up,
            probs: vec![1.0 / CLASS_COUNT as f32; CLASS_COUNT],
        }
    }

    /// Rows of tiles on a table seen from low: a tile's width grows linearly down the picture,
    /// 40 pixels at the top row (y = 100) to `near` at the bottom (y = 900).
    fn table(near: f32) -> Vec<Detection> {
        let mut found = Vec::new();
        for row in 0..5 {
            let y = 100.0 + 200.0 * row as f32;
            let side = 40.0 + (near - 40.0) * (y - 100.0) / 800.0;
            for col in 0..6 {
                found.push(tile(200.0 + 250.0 * col as f32, y, side));
            }
        }
        found
    }

    #[test]
    fn a_tiles_area_is_its_outlines() {
        assert!((area(&tile(10.0, 10.0, 30.0)) - 30.0 * 30.0).abs() < 1e-2);
    }

    #[test]
    fn the_keystone_is_fitted_from_the_tiles_sizes() {
        // Sides 40 to 120 down the picture: the fit's denominator goes with them.
        let found = table(120.0);
        let k = keystone_of(&found).expect("a keystone");
        assert!(k.g.abs() < 1e-4, "{k:?}");
        let ratio = k.w([0.0, 900.0]) / k.w([0.0, 100.0]);
        assert!((ratio - 3.0).abs() < 0.05, "{ratio}");
        // One tile standing out (a tile seen from its side in a heap) does not move it.
        let mut odd = found.clone();
        odd[7] = tile(450.0, 300.0, 140.0);
        let k2 = keystone_of(&odd).expect("a keystone");
        assert!((k2.w([0.0, 900.0]) / k2.w([0.0, 100.0]) - 3.0).abs() < 0.1);
        // Too few tiles, or all on one line: nothing to fit.
        assert_eq!(keystone_of(&found[..4]), None);
        let line: Vec<Detection> = (0..6).map(|i| tile(100.0 * i as f32, 50.0, 40.0)).collect();
        assert_eq!(keystone_of(&line), None);
    }

    #[test]
    fn only_a_strong_keystone_is_taken_out() {
        let size = (1800.0, 1000.0);
        let strong = table(120.0);
        let k = keystone_of(&strong).expect("a keystone");
        assert!(worth_taking_out(&k, &strong, size));
        // Tiles 40 to 50 pixels wide: a photo taken from above, read as it is.
        let weak = table(50.0);
        let k = keystone_of(&weak).expect("a keystone");
        assert!(!worth_taking_out(&k, &weak, size));
        // So strong that the picture's top corners lie near the horizon: left alone.
        let steep = table(400.0);
        let k = keystone_of(&steep).expect("a keystone");
        assert!(k.w([0.0, 0.0]) < FLOOR);
        assert!(!worth_taking_out(&k, &steep, size));
    }

    #[test]
    fn taken_out_the_tiles_are_alike_and_go_back_to_their_places() {
        let size = (1800.0, 1000.0);
        let found = table(120.0);
        let k = keystone_of(&found).expect("a keystone");
        let canvas = Canvas::of(k, size);
        // The canvas holds no more pixels than the picture.
        let (cw, ch) = canvas.size;
        assert!(
            (cw as f32) * (ch as f32) <= size.0 * size.1 * 1.01,
            "{cw} x {ch}"
        );
        // Far and near tiles come out as wide, measured across their middles.
        let side = |d: &Detection| {
            let (y, [l, r]) = (d.center()[1], [d.corners[0][0], d.corners[1][0]]);
            let (a, b) = (canvas.on_canvas([l, y]), canvas.on_canvas([r, y]));
            (b[0] - a[0]).hypot(b[1] - a[1])
        };
        let (far, near) = (side(&found[0]), side(&found[29]));
        assert!((far / near - 1.0).abs() < 0.05, "{far} {near}");
        // And every point goes back where it was.
        for p in [[0.0, 0.0], [1800.0, 1000.0], [321.0, 654.0]] {
            let q = canvas.back(canvas.on_canvas(p));
            assert!(
                (q[0] - p[0]).abs() < 0.05 && (q[1] - p[1]).abs() < 0.05,
                "{p:?} {q:?}"
            );
        }
    }
}

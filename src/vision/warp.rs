//! Pictures drawn anew through a map of the plane: `straighten.rs` turns a photo held askew
//! level, `keystone.rs` takes the keystone out of one taken from low. Each pixel of the new
//! picture is sampled bilinearly where the map sends it back in the photo, in bands worked on
//! at once.

use image::{Rgb, RgbImage};

/// A `w` × `h` picture filled with `fill` and, where `back` sends its pixels' centres inside
/// `img`, with `img` sampled there; split in `bands` worked on at once.
pub(super) fn warped<M>(
    img: &RgbImage,
    (w, h): (u32, u32),
    fill: Rgb<u8>,
    back: M,
    bands: usize,
) -> RgbImage
where
    M: Fn([f32; 2]) -> [f32; 2] + Copy + Send,
{
    let mut out = RgbImage::from_pixel(w, h, fill);
    let row = w as usize * 3;
    let per_band = (h as usize).div_ceil(bands.max(1)).max(1) * row;
    std::thread::scope(|scope| {
        for (i, band) in out.chunks_mut(per_band).enumerate() {
            let first = i * per_band / row;
            scope.spawn(move || warp_rows(img, back, band, first, w as usize));
        }
    });
    out
}

/// Fills the rows of a `width`-pixel picture from row `first` on (`rows`, RGB) with `img`
/// sampled bilinearly where `back` maps their pixels' centres; pixels falling outside it are
/// left as they are.
fn warp_rows<M>(img: &RgbImage, back: M, rows: &mut [u8], first: usize, width: usize)
where
    M: Fn([f32; 2]) -> [f32; 2],
{
    let (w, h) = (img.width() as usize, img.height() as usize);
    let (xmax, ymax) = ((w - 1) as f32, (h - 1) as f32);
    let src = img.as_raw();
    for (j, row) in rows.chunks_mut(width * 3).enumerate() {
        let y = (first + j) as f32 + 0.5;
        for (i, px) in row.chunks_exact_mut(3).enumerate() {
            // The source of the pixel's centre, less half a pixel.
            let [sx, sy] = back([i as f32 + 0.5, y]);
            let (sx, sy) = (sx - 0.5, sy - 0.5);
            if sx >= 0.0 && sy >= 0.0 && sx < xmax && sy < ymax {
                let (x0, y0) = (sx as usize, sy as usize);
                let fx = ((sx - x0 as f32) * 256.0) as u32;
                let fy = ((sy - y0 as f32) * 256.0) as u32;
                let at = (y0 * w + x0) * 3;
                let (top, bottom) = (&src[at..at + 6], &src[at + w * 3..at + w * 3 + 6]);
                for c in 0..3 {
                    let t = u32::from(top[c]) * (256 - fx) + u32::from(top[c + 3]) * fx;
                    let b = u32::from(bottom[c]) * (256 - fx) + u32::from(bottom[c + 3]) * fx;
                    px[c] = ((t * (256 - fy) + b * fy + (1 << 15)) >> 16) as u8;
                }
            }
        }
    }
}

/// The mean colour of a picture, from every 7th pixel.
pub(super) fn mean_colour(img: &RgbImage) -> Rgb<u8> {
    let mut sum = [0u64; 3];
    let mut n = 0u64;
    for p in img.pixels().step_by(7) {
        for (s, v) in sum.iter_mut().zip(p.0) {
            *s += u64::from(v);
        }
        n += 1;
    }
    Rgb(sum.map(|s| (s / n.max(1)) as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_drawn_through_a_shift_moves_and_is_filled_out() {
        let img = RgbImage::from_fn(40, 30, |x, y| Rgb([x as u8 * 5, y as u8 * 7, 100]));
        let fill = Rgb([1, 2, 3]);
        let out = warped(&img, (50, 30), fill, |[x, y]| [x - 10.0, y], 3);
        // Pixel (10 + x, y) of the new picture is pixel (x, y) of the old.
        for (x, y) in [(0, 0), (5, 12), (28, 28)] {
            assert_eq!(out.get_pixel(10 + x, y), img.get_pixel(x, y));
        }
        // Left of the shifted picture: nothing to sample, the fill stays.
        assert_eq!(out.get_pixel(3, 10), &fill);
    }

    #[test]
    fn the_mean_colour_is_the_mean() {
        let img = RgbImage::from_fn(20, 20, |x, _| {
            if x < 10 {
                Rgb([0, 0, 0])
            } else {
                Rgb([200, 100, 50])
            }
        });
        let m = mean_colour(&img).0;
        assert!(
            m.iter()
                .zip([100, 50, 25])
                .all(|(&a, b)| a.abs_diff(b) <= 5),
            "{m:?}"
        );
    }
}

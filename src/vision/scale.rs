//! Pictures scaled down for the finder's looks.
//!
//! Every look sees the photo reduced to a few hundred pixels. Reducing a 2000×1500 photo five
//! times (once per look) cost 37 ms with `image`'s resize; now the photo is reduced once, to the
//! finder's first look, and the coarser looks are reduced from that picture (a hundredth of the
//! pixels). `fast_image_resize` does the reducing with SIMD, with the filter the finder was
//! trained with: Pillow's `BILINEAR`, whose support widens with the reduction (an average over
//! the pixels a target pixel covers). Measured on real photos (`tools/eval_photos.py`), it
//! reads as well as `image`'s area average and triangle filter did, or a little better.

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
use image::{RgbImage, imageops};

/// Reduces pictures, keeping its buffers between calls.
pub(crate) struct Scaler {
    resizer: Resizer,
}

impl Scaler {
    pub(crate) fn new() -> Scaler {
        Scaler {
            resizer: Resizer::new(),
        }
    }

    /// The picture scaled to `w`×`h` with Pillow's bilinear filter.
    pub(crate) fn scaled(&mut self, img: &RgbImage, w: u32, h: u32) -> RgbImage {
        let (w, h) = (w.max(1), h.max(1));
        if img.dimensions() == (w, h) {
            return img.clone();
        }
        self.fast(img, w, h)
            .unwrap_or_else(|| imageops::resize(img, w, h, imageops::FilterType::Triangle))
    }

    /// `None` should the fast resizer refuse a buffer (it never has; `image`'s own triangle
    /// filter then does it).
    fn fast(&mut self, img: &RgbImage, w: u32, h: u32) -> Option<RgbImage> {
        let src = ImageRef::new(img.width(), img.height(), img.as_raw(), PixelType::U8x3).ok()?;
        let mut dst = Image::new(w, h, PixelType::U8x3);
        let filter = ResizeAlg::Convolution(FilterType::Bilinear);
        let options = ResizeOptions::new().resize_alg(filter);
        self.resizer.resize(&src, &mut dst, &options).ok()?;
        RgbImage::from_raw(w, h, dst.into_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture with a bright square on dark, reduced by 4: the square's inside and the
    /// background keep their colours, and the picture's mean (the square's area) is kept.
    #[test]
    fn reduces_keeping_areas() {
        let img = RgbImage::from_fn(400, 300, |x, y| {
            if (100..200).contains(&x) && (80..160).contains(&y) {
                image::Rgb([240, 200, 20])
            } else {
                image::Rgb([10, 30, 60])
            }
        });
        let small = Scaler::new().scaled(&img, 100, 75);
        assert_eq!(small.dimensions(), (100, 75));
        assert_eq!(small.get_pixel(37, 30).0, [240, 200, 20]);
        assert_eq!(small.get_pixel(10, 10).0, [10, 30, 60]);
        let mean = |p: &RgbImage| {
            p.pixels().map(|q| f64::from(q.0[0])).sum::<f64>() / f64::from(p.width() * p.height())
        };
        assert!(
            (mean(&small) - mean(&img)).abs() < 1.0,
            "{} against {}",
            mean(&small),
            mean(&img)
        );
    }

    #[test]
    fn enlarges_and_keeps_the_size_asked() {
        let img = RgbImage::from_pixel(30, 20, image::Rgb([1, 2, 3]));
        let big = Scaler::new().scaled(&img, 64, 43);
        assert_eq!(big.dimensions(), (64, 43));
        assert!(big.pixels().all(|p| p.0 == [1, 2, 3]));
        assert_eq!(Scaler::new().scaled(&img, 0, 0).dimensions(), (1, 1));
    }
}

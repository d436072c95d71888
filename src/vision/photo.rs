//! Decoding photos: JPEG, PNG and WebP (HEIF through `heif.rs`), EXIF orientation,
//! reduced-scale decoding of large JPEGs, size limits.

use std::io::Cursor;
use std::path::Path;

use image::{DynamicImage, ImageDecoder, ImageReader, RgbImage};

use super::{MAX_JPEG_PIXELS, MAX_PIXELS, VisionError, heif};

/// A decoded photo, possibly at a reduced scale: source pixel = image pixel × `scale`.
#[derive(Debug)]
pub struct Photo {
    pub image: RgbImage,
    pub scale: f32,
    /// Width and height of the photo as stored (after EXIF orientation).
    pub source_size: (u32, u32),
}

/// Reads a photo (JPEG, PNG or WebP; HEIC, HEIF and AVIF through `heif.rs`), honouring its
/// orientation. Refuses images over `MAX_PIXELS` (baseline JPEGs over `MAX_JPEG_PIXELS`) before
/// decoding them. Large JPEGs are decoded at 1/2, 1/4 or 1/8 scale (tiles stay far above the 64
/// px the classifier reads); coordinates are given back in source pixels.
pub fn load_photo(path: &Path) -> Result<Photo, VisionError> {
    let err = |message: String| VisionError::Image {
        path: path.to_path_buf(),
        message,
    };
    // Read once: the checks and the decoders all work on these bytes.
    let bytes = std::fs::read(path).map_err(|e| err(format!("cannot open: {e}")))?;
    if heif::is_heif(&bytes) {
        // Refused before libheif decodes it whole, as a PNG would be.
        let size = heif::largest_size(&bytes);
        if let Some(message) = size.and_then(|size| too_large(size, false, &bytes)) {
            return Err(err(message));
        }
        // libheif has turned the pixels already: the EXIF turn it copies is not applied again.
        let jpeg = heif::to_jpeg(path).map_err(err)?;
        return decode(&jpeg, false).map_err(err);
    }
    decode(&bytes, true).map_err(err)
}

/// The photo in `bytes`, turned as its EXIF orientation says where `exif_turn`.
fn decode(bytes: &[u8], exif_turn: bool) -> Result<Photo, String> {
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("cannot read: {e}"))?;
    let jpeg = is_jpeg(reader.format(), bytes)?;
    let (w, h) = reader
        .into_dimensions()
        .map_err(|e| format!("not a readable image: {e}"))?;
    if let Some(message) = too_large((w, h), jpeg, bytes) {
        return Err(message);
    }
    let mut decoder = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("cannot read: {e}"))?
        .into_decoder()
        .map_err(|e| format!("not a readable image: {e}"))?;
    let orientation = decoder
        .orientation()
        .ok()
        .filter(|_| exif_turn)
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let k = reduction(w, h);
    let mut img = if jpeg && k > 1 {
        drop(decoder);
        DynamicImage::ImageRgb8(decode_jpeg_reduced(bytes, (w, h), k)?)
    } else {
        DynamicImage::from_decoder(decoder)
            .map_err(|e| format!("corrupt or truncated image: {e}"))?
    };
    let scale = w as f32 / img.width().max(1) as f32;
    img.apply_orientation(orientation);
    let rgb = img.into_rgb8();
    let source_size = (
        (rgb.width() as f32 * scale).round() as u32,
        (rgb.height() as f32 * scale).round() as u32,
    );
    Ok(Photo {
        image: rgb,
        scale,
        source_size,
    })
}

/// Whether a photo of `format` is a JPEG (else a PNG or a WebP); a message for any other
/// format, and for a JPEG cut short.
fn is_jpeg(format: Option<image::ImageFormat>, bytes: &[u8]) -> Result<bool, String> {
    match format {
        Some(image::ImageFormat::Jpeg) if !jpeg_is_complete(bytes) => Err(
            "truncated JPEG (the file ends before its image data does): copy or download it again"
                .to_string(),
        ),
        Some(image::ImageFormat::Jpeg) => Ok(true),
        Some(image::ImageFormat::Png | image::ImageFormat::WebP) => Ok(false),
        Some(f) => Err(format!(
            "{} images are not read: convert it to JPEG or PNG",
            f.extensions_str()
                .first()
                .map_or("these", |e| e)
                .to_uppercase()
        )),
        None => Err("not a JPEG, PNG, WebP or HEIC image".to_string()),
    }
}

/// Why a photo of `size` is refused, if it is: over `MAX_PIXELS` when it is decoded whole (a
/// PNG, a progressive JPEG), over `MAX_JPEG_PIXELS` when it is a baseline JPEG. The header is
/// read again only for photos over `MAX_PIXELS`.
fn too_large((w, h): (u32, u32), jpeg: bool, bytes: &[u8]) -> Option<String> {
    let pixels = u64::from(w) * u64::from(h);
    if pixels <= MAX_PIXELS {
        return None;
    }
    let whole = !jpeg || is_progressive(bytes);
    let limit = if whole { MAX_PIXELS } else { MAX_JPEG_PIXELS };
    (pixels > limit).then(|| {
        format!(
            "{w}×{h} is over {} megapixels{}: scale it down first",
            limit / 1_000_000,
            if jpeg && whole {
                " (a progressive JPEG is decoded whole; a baseline one may be larger)"
            } else {
                ""
            }
        )
    })
}

/// Whether a JPEG is progressive (its header read; `false` when it cannot be, and decoding
/// then says what is wrong).
fn is_progressive(bytes: &[u8]) -> bool {
    let mut jd = jpeg_decoder::Decoder::new(Cursor::new(bytes));
    jd.read_info().is_ok()
        && jd
            .info()
            .is_some_and(|i| i.coding_process == jpeg_decoder::CodingProcess::DctProgressive)
}

/// The factor a photo of `w` × `h` is decoded smaller by: 8 over 80 megapixels, 4 over 20, 2
/// over 5, else 1.
fn reduction(w: u32, h: u32) -> u32 {
    match u64::from(w) * u64::from(h) {
        p if p > MAX_PIXELS => 8,
        p if p > 20_000_000 => 4,
        p if p > 5_000_000 => 2,
        _ => 1,
    }
}

/// A JPEG of `size` decoded at 1/`k` scale (the decoder's own reduced decoding, which reads
/// a fraction of the coefficients), as RGB.
fn decode_jpeg_reduced(bytes: &[u8], (w, h): (u32, u32), k: u32) -> Result<RgbImage, String> {
    let mut jd = jpeg_decoder::Decoder::new(Cursor::new(bytes));
    jd.read_info().map_err(|e| format!("corrupt JPEG: {e}"))?;
    let req = |v: u32| u16::try_from(v.div_ceil(k)).unwrap_or(u16::MAX);
    let (sw, sh) = jd
        .scale(req(w), req(h))
        .map_err(|e| format!("corrupt JPEG: {e}"))?;
    let data = jd
        .decode()
        .map_err(|e| format!("corrupt or truncated image: {e}"))?;
    let info = jd.info().ok_or_else(|| "corrupt JPEG".to_string())?;
    RgbImage::from_raw(
        u32::from(sw),
        u32::from(sh),
        to_rgb(data, info.pixel_format),
    )
    .ok_or_else(|| "corrupt JPEG: pixel count".to_string())
}

/// Decoded JPEG samples of `format` as 8-bit RGB.
fn to_rgb(data: Vec<u8>, format: jpeg_decoder::PixelFormat) -> Vec<u8> {
    match format {
        jpeg_decoder::PixelFormat::RGB24 => data,
        jpeg_decoder::PixelFormat::L8 => data.iter().flat_map(|&v| [v, v, v]).collect(),
        jpeg_decoder::PixelFormat::L16 => data.chunks(2).flat_map(|c| [c[0], c[0], c[0]]).collect(),
        jpeg_decoder::PixelFormat::CMYK32 => data
            .chunks(4)
            .flat_map(|c| {
                let kk = 255 - u16::from(c[3]);
                [c[0], c[1], c[2]].map(|v| ((255 - u16::from(v)) * kk / 255) as u8)
            })
            .collect(),
    }
}

/// Reads a photo at full resolution (see `load_photo`).
pub fn load_image(path: &Path) -> Result<RgbImage, VisionError> {
    load_photo(path).map(|p| p.image)
}

/// Whether a JPEG file holds its whole image: the end-of-image marker follows the scan data.
/// Decoders fill a file cut short with grey and say nothing. Inside scan data a 0xFF byte is
/// always followed by 0x00 or a restart marker, so 0xFF 0xD9 there is the end; segments
/// before the first scan (an EXIF thumbnail has its own end marker) are skipped by length, and
/// data after the end (a phone's motion-photo trailer) does not matter.
pub fn jpeg_is_complete(b: &[u8]) -> bool {
    if !b.starts_with(&[0xFF, 0xD8]) {
        return false;
    }
    let mut i = 2;
    // Segments up to the first start of scan.
    loop {
        while i < b.len() && b[i] == 0xFF && b.get(i + 1) == Some(&0xFF) {
            i += 1; // fill bytes
        }
        if i + 4 > b.len() || b[i] != 0xFF {
            return false;
        }
        let marker = b[i + 1];
        let len = usize::from(b[i + 2]) << 8 | usize::from(b[i + 3]);
        i += 2 + len;
        if marker == 0xDA {
            break;
        }
    }
    // Searched from the end: in a whole file the end marker is there (or before a trailer).
    b.get(i..)
        .is_some_and(|rest| rest.windows(2).rev().any(|w| w == [0xFF, 0xD9]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jpeg(w: u32, h: u32) -> Vec<u8> {
        let img = RgbImage::from_fn(w, h, |x, y| {
            image::Rgb([(x * 7) as u8, (y * 3) as u8, ((x ^ y) * 5) as u8])
        });
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Jpeg)
            .unwrap_or_default();
        out.into_inner()
    }

    #[test]
    fn a_whole_jpeg_is_complete_and_any_cut_is_not() {
        let full = jpeg(320, 240);
        assert!(jpeg_is_complete(&full));
        for pct in [5, 25, 50, 75, 95, 99] {
            let cut = &full[..full.len() * pct / 100];
            assert!(!jpeg_is_complete(cut), "cut at {pct}% passed as complete");
        }
        // A trailer after the end (as phones append) is fine.
        let mut trailer = full.clone();
        trailer.extend_from_slice(b"ftypmp42 motion photo data");
        assert!(jpeg_is_complete(&trailer));
    }

    #[test]
    fn larger_photos_are_decoded_smaller() {
        assert_eq!(reduction(640, 480), 1);
        assert_eq!(reduction(4000, 3000), 2);
        assert_eq!(reduction(8000, 6000), 4);
        // A phone's 108 and 200 MP modes.
        assert_eq!(reduction(12000, 9000), 8);
        assert_eq!(reduction(16320, 12240), 8);
    }

    /// A JPEG of `w` × `h`, one colour (small and quick to write), in a file of its own.
    fn write_jpeg(name: &str, w: u32, h: u32) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("suanfan-{name}-{}.jpg", std::process::id()));
        RgbImage::from_pixel(w, h, image::Rgb([60, 120, 90]))
            .save(&p)
            .unwrap_or_default();
        p
    }

    #[test]
    fn a_baseline_jpeg_over_80_megapixels_is_read_at_an_eighth() {
        let p = write_jpeg("huge", 10400, 7800);
        let photo = load_photo(&p);
        let bytes = std::fs::read(&p).unwrap_or_default();
        std::fs::remove_file(&p).unwrap_or_default();
        let photo = photo.map_err(|e| e.to_string());
        assert!(
            photo
                .as_ref()
                .is_ok_and(|ph| ph.image.dimensions() == (1300, 975)
                    && ph.scale == 8.0
                    && ph.source_size == (10400, 7800)),
            "{:?}",
            photo.map(|ph| (ph.image.dimensions(), ph.scale, ph.source_size))
        );
        // The same header marked progressive (start of frame 2): decoded whole, so refused.
        let mut progressive = bytes;
        if let Some(i) = progressive.windows(2).position(|m| m == [0xFF, 0xC0]) {
            progressive[i + 1] = 0xC2;
        }
        let e = refusal("prog", &progressive);
        assert!(
            e.contains("over 80 megapixels") && e.contains("progressive"),
            "{e}"
        );
    }

    #[test]
    fn a_truncated_jpeg_is_refused_with_a_message() {
        let full = jpeg(640, 480);
        let e = refusal("cut", &full[..full.len() / 2]);
        assert!(e.contains("truncated JPEG"), "{e}");
    }

    /// What `load_photo` says of a file holding `bytes` (empty when it reads it).
    fn refusal(name: &str, bytes: &[u8]) -> String {
        let p = std::env::temp_dir().join(format!("suanfan-{name}-{}.jpg", std::process::id()));
        std::fs::write(&p, bytes).unwrap_or_default();
        let e = load_photo(&p)
            .map(|_| ())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        std::fs::remove_file(&p).unwrap_or_default();
        e
    }
}

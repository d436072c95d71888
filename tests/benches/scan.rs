//! Speed of `scan` on a 12-megapixel JPEG and on 1280×960, 1280×720 and 640×480 frames, split per stage:
//! `cargo bench --bench scan`. Needs ONNX Runtime (tools/install-onnxruntime.sh); skips without.
//! The sample hand with melds blown up to 12 MP has big tiles; the concealed hand's are smaller
//! (29 pixels in the finder's 416-pixel look, as in phone photos of a table), and a 12 MP photo
//! of them is also looked at closer (832 pixels). A phone's 12 MP photo carries sensor grain
//! and is saved at a high quality (a file of a few MB, not half of one): the big-tile hand
//! with grain added, saved at quality 92, shows what decoding such a file costs.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Instant;

use suanfan::scan::{Given, scan_file};
use suanfan::scoring::RuleSet;
use suanfan::vision::{Recognizer, VisionConfig};

fn main() {
    let mut rec = match Recognizer::new(VisionConfig::default()) {
        Ok(r) => r,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/samples/hand-melds.jpg");
    let src = image::open(&sample).unwrap().to_rgb8();
    let concealed =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/samples/hand-concealed.jpg");
    let concealed = image::open(&concealed).unwrap().to_rgb8();
    let tmp = std::env::temp_dir();
    let rules = RuleSet::default();
    for (name, w, h) in [
        ("12 MP JPEG (4000×3000)", 4000u32, 3000u32),
        ("12 MP, smaller tiles", 4000, 3000),
        ("12 MP phone-like (grain, q92)", 4000, 3000),
        ("1280×960 frame (JPEG)", 1280, 960),
        ("1280×720 frame (JPEG)", 1280, 720),
        ("640×480 frame (JPEG)", 640, 480),
    ] {
        let from = if name.contains("smaller") {
            &concealed
        } else {
            &src
        };
        let mut img = image::imageops::resize(from, w, h, image::imageops::FilterType::Triangle);
        let path = tmp.join(format!("suanfan-bench-{w}x{h}-{}.jpg", name.len()));
        if name.contains("grain") {
            add_grain(&mut img);
            let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            image::codecs::jpeg::JpegEncoder::new_with_quality(file, 92)
                .encode_image(&img)
                .unwrap();
        } else {
            img.save(&path).unwrap();
        }
        let runs = 10;
        let (mut dec, mut model, mut rest, mut total) = (0.0, 0.0, 0.0, 0.0);
        for _ in 0..runs {
            let t = Instant::now();
            let (o, _) = scan_file(&mut rec, &path, &Given::default(), &rules).unwrap();
            let all = t.elapsed().as_secs_f64() * 1e3;
            dec += o.ms_decode;
            model += o.ms_model;
            rest += all - o.ms_decode - o.ms_model;
            total += all;
        }
        let n = f64::from(runs);
        println!(
            "{name:<30} total {:>6.1} ms = image decode {:>6.1} + models {:>5.1} + layout/decode/score {:>4.1}  (mean of {runs})",
            total / n,
            dec / n,
            model / n,
            rest / n
        );
        // The models' share, split: the finder (with the resize), the crops, the classifier.
        let photo = suanfan::vision::load_photo(&path).unwrap();
        let (mut finder, mut crops, mut classifier) = (0.0, 0.0, 0.0);
        for _ in 0..runs {
            let (_, t) = rec.detect(&photo.image).unwrap();
            finder += t.finder;
            crops += t.crops;
            classifier += t.classifier;
        }
        println!(
            "{:<30} models: finder {:>5.1} + crops {:>4.1} + classifier {:>4.1}",
            "",
            finder / n,
            crops / n,
            classifier / n
        );
        let _ = std::fs::remove_file(&path);
    }
}

/// Sensor grain: each pixel made lighter or darker by up to 6 levels, the same in each channel
/// (a phone's processing takes out colour noise and leaves some grain in the light); a fixed
/// pseudo-random sequence, so every run decodes the same file (about 2.9 MB).
fn add_grain(img: &mut image::RgbImage) {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for p in img.pixels_mut() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let shift = (state % 13) as i16 - 6;
        for v in &mut p.0 {
            *v = (i16::from(*v) + shift).clamp(0, 255) as u8;
        }
    }
}

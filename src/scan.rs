//! One photo to an explained score: vision → layout → decode → scoring, and its outputs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, sync_channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::detection::{Detection, Face};
use crate::scoring::{RuleSet, Score, WinContext, score};
use crate::table::decode::Decoded;
use crate::table::layout::{GroupKind, TableReading};
use crate::table::read_and_decode;
use crate::tile::Tile;
use crate::vision::{Photo, Recognizer, VisionError, load_photo};
use crate::{explain, json as sjson, notation};

/// A tile read with less than this probability is doubtful: drawn in red with `?`, and a hand
/// read from a recording with such a tile is unsure.
pub const UNSURE_BELOW: f32 = 0.5;

/// What was seen and concluded for one photo.
#[derive(Debug)]
pub struct ScanOutcome {
    pub image: String,
    pub detections: Vec<Detection>,
    pub reading: TableReading,
    pub decoded: Decoded,
    pub score: Option<Score>,
    pub assumed: Vec<String>,
    pub issues: Vec<String>,
    /// Milliseconds: image decoding, both models, everything.
    pub ms_decode: f64,
    /// Source pixels per pixel of the decoded image (1, or 2 and 4 for large JPEGs).
    pub scale: f32,
    pub ms_model: f64,
    pub ms_total: f64,
    /// Things the finder took for tiles and the classifier called no tile at all (dropped).
    pub rejected: usize,
}

impl ScanOutcome {
    /// The tile each detection was read as in the decoded hand; empty when no valid hand was
    /// found (then every tile shows its own reading, not a forced one).
    pub fn read_as(&self) -> std::collections::HashMap<usize, crate::tile::Tile> {
        if self.decoded.hand.is_some() {
            self.decoded.tiles.iter().copied().collect()
        } else {
            std::collections::HashMap::new()
        }
    }

    /// The face detection `i` was read as, with the model's probability for it: the decoded
    /// tile where the hand was decoded; for a tile set aside as a bonus tile, its most probable
    /// flower or season; otherwise the model's top class. None for a face-down tile.
    pub fn face_of(&self, i: usize) -> Option<(Face, f32)> {
        let d = self.detections.get(i)?;
        if d.face_down {
            return None;
        }
        // The decoded tile, as `read_as` gives it (looked up without building the map).
        if self.decoded.hand.is_some() {
            if let Some(&(_, t)) = self.decoded.tiles.iter().find(|(k, _)| *k == i) {
                return Some((Face::Tile(t), d.p_tile(t)));
            }
        }
        let ranked = d.ranked();
        let set_aside = self
            .reading
            .of_kind(|k| k == GroupKind::Bonus)
            .any(|g| g.tiles.contains(&i));
        if set_aside {
            if let Some(&b) = ranked.iter().find(|(f, _)| matches!(f, Face::Bonus(_))) {
                return Some(b);
            }
        }
        ranked.first().copied()
    }
}

/// Circumstances given on the command line, and which of them were given at all.
#[derive(Clone, Copy, Debug, Default)]
pub struct Given {
    pub context: WinContext,
    pub flowers_given: bool,
    pub winds_given: bool,
    pub self_drawn_given: bool,
}

/// Scans one photo; the decoded photo comes back too (for `--annotate`).
pub fn scan_file(
    rec: &mut Recognizer,
    path: &Path,
    given: &Given,
    rules: &RuleSet,
) -> Result<(ScanOutcome, image::RgbImage), VisionError> {
    let t0 = Instant::now();
    let photo = load_photo(path)?;
    let ms_decode = t0.elapsed().as_secs_f64() * 1e3;
    scan_photo(rec, path, photo, ms_decode, given, rules)
}

/// Scans one photo already decoded (in `ms_decode` milliseconds, counted in its total).
pub fn scan_photo(
    rec: &mut Recognizer,
    path: &Path,
    photo: Photo,
    ms_decode: f64,
    given: &Given,
    rules: &RuleSet,
) -> Result<(ScanOutcome, image::RgbImage), VisionError> {
    let now = Instant::now();
    let t0 = now
        .checked_sub(Duration::from_secs_f64(ms_decode / 1e3))
        .unwrap_or(now);
    let (mut detections, t) = rec.detect(&photo.image)?;
    // Back to the photo's own pixels when it was decoded at a reduced scale.
    for d in &mut detections {
        for c in &mut d.corners {
            c[0] *= photo.scale;
            c[1] *= photo.scale;
        }
    }
    let img = photo.image;
    let ms_model = t.finder + t.crops + t.classifier;
    let mut o = finish(
        path.display().to_string(),
        detections,
        given,
        rules,
        ms_decode,
        ms_model,
        t0,
    );
    o.scale = photo.scale;
    o.rejected = t.rejected;
    Ok((o, img))
}

/// A photo decoded ahead: its path, the photo or why it cannot be read, and the milliseconds
/// its decoding took.
pub type DecodedPhoto = (PathBuf, Result<Photo, VisionError>, f64);

/// Decodes `files` in order on a thread of their own, one photo ahead of the reader: the first
/// decodes while the models load, and each next one while the models read the one before
/// (decoding a 12 MP JPEG is 30–50 ms of one core). Every file gives one item, in order; the
/// thread stops when the receiver is dropped.
pub fn decode_ahead(files: Vec<PathBuf>) -> Receiver<DecodedPhoto> {
    let (tx, rx) = sync_channel(1);
    std::thread::spawn(move || {
        for path in files {
            let t0 = Instant::now();
            let photo = load_photo(&path);
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            if tx.send((path, photo, ms)).is_err() {
                break;
            }
        }
    });
    rx
}

/// Everything after the models: layout, decoding, scoring. Public so that recorded
/// detections can be scanned without ONNX Runtime.
pub fn finish(
    image: String,
    detections: Vec<Detection>,
    given: &Given,
    rules: &RuleSet,
    ms_decode: f64,
    ms_model: f64,
    t0: Instant,
) -> ScanOutcome {
    let (reading, decoded, bonus_note) = read_and_decode(&detections, rules);
    let mut assumed = reading.assumed.clone();
    assumed.extend(decoded.assumed.iter().cloned());
    assumed.extend(bonus_note);
    let mut issues = reading.issues.clone();
    issues.extend(decoded.issues.iter().cloned());
    let mut ctx = given.context;
    if !given.flowers_given {
        ctx.flowers = decoded.flowers;
        if decoded.flowers > 0 {
            assumed.push(format!(
                "{} flower(s) counted from the picture",
                decoded.flowers
            ));
        }
    }
    if !given.self_drawn_given {
        assumed.push(
            "won on a discard: the picture cannot show a self-draw (use --self-drawn)".to_string(),
        );
    }
    if !given.winds_given {
        assumed.push(format!(
            "seat wind {} and prevalent wind {} (use --seat and --prevalent)",
            ctx.seat_wind, ctx.prevalent_wind
        ));
    }
    let score = match &decoded.hand {
        Some(h) => match score(h, &ctx, rules) {
            Ok(s) => Some(s),
            Err(e) => {
                issues.push(e.to_string());
                None
            }
        },
        None => None,
    };
    ScanOutcome {
        image,
        detections,
        reading,
        decoded,
        score,
        assumed,
        issues,
        ms_decode,
        scale: 1.0,
        ms_model,
        ms_total: t0.elapsed().as_secs_f64() * 1e3,
        rejected: 0,
    }
}

fn round(x: f32, k: f32) -> f64 {
    f64::from((x * k).round() / k)
}

/// The JSON line of a scan, as other tools read it.
pub fn to_json(o: &ScanOutcome) -> Value {
    let read = o.read_as();
    let tiles: Vec<Value> = o
        .detections
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let ranked = d.ranked();
            let (tile, p) = if d.face_down {
                // How sure the finder is of a face-down tile (the classifier never sees one).
                match read.get(&i) {
                    Some(t) => (format!("back:{t}"), d.score),
                    None => ("back".to_string(), d.score),
                }
            } else {
                o.face_of(i).map_or(("?".to_string(), 0.0), |(f, p)| (f.to_string(), p))
            };
            let alternatives: Vec<Value> = ranked.iter().filter(|(f, _)| f.to_string() != tile).take(3).map(|(f, p)| json!([f.to_string(), round(*p, 1e4)])).collect();
            json!({
                "tile": if d.face_down { "back".to_string() } else { tile },
                "p": round(p, 1e4),
                "alternatives": alternatives,
                "corners": d.corners.iter().map(|c| json!([round(c[0], 10.0), round(c[1], 10.0)])).collect::<Vec<_>>(),
                "orientation": d.orientation.as_str(),
                "face_down": d.face_down,
            })
        })
        .collect();
    let groups: Vec<Value> = o
        .reading
        .groups
        .iter()
        .map(|g| {
            let mut v = json!({"type": g.kind.name(), "tiles": g.tiles});
            match g.kind {
                GroupKind::Pung { from } | GroupKind::Kong { from } => {
                    v["from"] = json!(from.as_str())
                }
                GroupKind::Chow { claimed } => v["claimed"] = json!(claimed),
                _ => {}
            }
            v
        })
        .collect();
    json!({
        "image": o.image,
        "tiles": tiles,
        "groups": groups,
        "hand": o.decoded.hand.as_ref().map(notation::format_hand),
        "corrected": o.decoded.changes.iter().map(|c| json!({"tile": c.det, "read": c.read.to_string(), "p_read": round(c.p_read, 1e4), "top": c.top.to_string(), "p_top": round(c.p_top, 1e4)})).collect::<Vec<_>>(),
        "runner_ups": o.decoded.runner_ups.iter().map(|r| json!({"hand": r.notation, "relative_likelihood": round(r.relative, 1e4)})).collect::<Vec<_>>(),
        "score": o.score.as_ref().map(sjson::score_json),
        "assumed": o.assumed,
        "issues": o.issues,
        "rejected": o.rejected,
        "ms": {"decode": round(o.ms_decode as f32, 10.0), "model": round(o.ms_model as f32, 10.0), "total": round(o.ms_total as f32, 10.0)},
    })
}

/// The text a player reads.
pub fn to_text(o: &ScanOutcome) -> String {
    to_text_in(o, explain::Lang::En)
}

/// The text a player reads, with labels in `lang`.
pub fn to_text_in(o: &ScanOutcome, lang: explain::Lang) -> String {
    let l = |k: &str| lang.label(k);
    let mut s = String::new();
    let _ = writeln!(s, "{} {}", l("Photo"), o.image);
    let up = o.detections.iter().filter(|d| !d.face_down).count();
    let _ = writeln!(
        s,
        "{} {} tile(s), {} face down{}, in {:.0} ms (decode {:.0}, models {:.0})",
        l("Found"),
        o.detections.len(),
        o.detections.len() - up,
        if o.rejected > 0 {
            format!("; {} look-alike(s) rejected as no tile", o.rejected)
        } else {
            String::new()
        },
        o.ms_total,
        o.ms_decode,
        o.ms_model
    );
    if o.detections.is_empty() {
        // Nothing to read and nothing to assume about: the issue says what there is to say.
        for i in &o.issues {
            let _ = writeln!(s, "{} {i}", l("Issue"));
        }
        let _ = writeln!(s, "\nNo tiles found in this photo: nothing to score.");
        return s;
    }
    let seen: Vec<String> = o
        .reading
        .groups
        .iter()
        .map(|g| {
            let mut faces = String::new();
            let mut tiles: Vec<Tile> = Vec::new();
            for &i in &g.tiles {
                faces.push(match (o.detections[i].face_down, o.face_of(i)) {
                    (true, _) => '🀫',
                    (false, Some((Face::Tile(t), _))) => {
                        tiles.push(t);
                        t.unicode()
                    }
                    (false, Some((Face::Bonus(b), _))) => b.unicode(),
                    _ => '?',
                });
            }
            format!("{} {faces}", group_name(g.kind, &tiles))
        })
        .collect();
    let _ = writeln!(s, "{} {}", l("Read"), seen.join(" · "));
    for c in &o.decoded.changes {
        let _ = writeln!(
            s,
            "Doubtful tile {}: the model says {} ({:.0}%), the hand needs {} ({:.0}%)",
            c.det + 1,
            c.top,
            c.p_top * 100.0,
            c.read,
            c.p_read * 100.0
        );
    }
    for a in &o.assumed {
        let _ = writeln!(s, "{} {a}", l("Assumed"));
    }
    for i in &o.issues {
        let _ = writeln!(s, "{} {i}", l("Issue"));
    }
    for r in &o.decoded.runner_ups {
        let _ = writeln!(
            s,
            "Also possible: {} ({:.1}% as likely)",
            r.notation,
            r.relative * 100.0
        );
    }
    let _ = writeln!(s);
    match &o.score {
        Some(sc) => s.push_str(&explain::score_text_in(sc, lang)),
        None => {
            let _ = writeln!(s, "No valid winning hand could be read from this photo.");
        }
    }
    s
}

/// The name the "Read" line gives a group of `kind` whose face-up faces are `tiles`: three
/// tiles laid as a chow or a pung are named by what their faces make, and a "meld?" when they
/// make neither (a close-up of part of a row, 6m 8m N, is laid as a meld of three).
fn group_name(kind: GroupKind, tiles: &[Tile]) -> &'static str {
    let mut t = tiles.to_vec();
    t.sort();
    match kind {
        GroupKind::Chow { .. } | GroupKind::Pung { .. } if t.len() == 3 => {
            if t.iter().all(|&x| x == t[0]) {
                "pung"
            } else if t[0].next() == Some(t[1]) && t[1].next() == Some(t[2]) {
                "chow"
            } else {
                "meld?"
            }
        }
        _ => kind.name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_photo_without_tiles_says_so_and_assumes_nothing() {
        let o = finish(
            "empty.jpg".to_string(),
            Vec::new(),
            &Given::default(),
            &RuleSet::default(),
            1.0,
            2.0,
            Instant::now(),
        );
        let text = to_text_in(&o, explain::Lang::En);
        assert!(
            text.contains("Issue    no tiles found in the picture"),
            "{text}"
        );
        assert!(
            text.ends_with("No tiles found in this photo: nothing to score.\n"),
            "{text}"
        );
        assert!(
            !text.contains("Assumed") && !text.contains("Read "),
            "{text}"
        );
    }

    #[test]
    fn three_tiles_laid_as_a_meld_are_named_by_what_their_faces_make() {
        let t = |s: &str| Tile::parse(s).expect("a tile");
        let chow = GroupKind::Chow { claimed: 0 };
        assert_eq!(group_name(chow, &[t("8m"), t("6m"), t("7m")]), "chow");
        assert_eq!(group_name(chow, &[t("6m"), t("8m"), t("N")]), "meld?");
        assert_eq!(group_name(chow, &[t("E"), t("E"), t("E")]), "pung");
        let pung = GroupKind::Pung {
            from: crate::scoring::Seat::Left,
        };
        assert_eq!(group_name(pung, &[t("3s"), t("4s"), t("2s")]), "chow");
        assert_eq!(group_name(chow, &[t("6m"), t("8m")]), "chow");
        assert_eq!(
            group_name(GroupKind::Hand, &[t("1m"), t("5p"), t("E")]),
            "hand"
        );
    }

    #[test]
    fn photos_decoded_ahead_come_one_a_file_in_order_with_what_failed() {
        let dir = std::env::temp_dir().join(format!("suanfan-ahead-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let good = dir.join("good.png");
        image::RgbImage::from_pixel(8, 6, image::Rgb([200, 10, 10]))
            .save(&good)
            .expect("a PNG written");
        let bad = dir.join("bad.jpg");
        std::fs::write(&bad, b"not a picture").expect("a file written");
        let missing = dir.join("missing.jpg");
        let files = vec![bad.clone(), good.clone(), missing.clone(), good.clone()];
        let got: Vec<DecodedPhoto> = decode_ahead(files.clone()).into_iter().collect();
        std::fs::remove_dir_all(&dir).ok();
        let paths: Vec<&PathBuf> = got.iter().map(|(p, _, _)| p).collect();
        assert_eq!(paths, files.iter().collect::<Vec<_>>());
        let read: Vec<bool> = got.iter().map(|(_, r, _)| r.is_ok()).collect();
        assert_eq!(read, [false, true, false, true]);
        let (_, photo, ms) = &got[1];
        let photo = photo.as_ref().expect("the PNG decodes");
        assert_eq!(photo.image.dimensions(), (8, 6));
        assert!(*ms >= 0.0);
    }
}

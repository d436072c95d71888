//! Tiles in a photo: the ONNX models of `models/` run with ONNX Runtime.
//!
//! 1. `tile_finder.onnx` looks at the photo scaled to 416 pixels on its long side (padded
//!    grey to multiples of 32) and gives, on a grid of stride 4: a centre heat map for face-up
//!    and face-down tiles, box sizes and centre offsets, the orientation of each face, and the
//!    face as a turned rectangle (its angle within ±45° and its two sides). Peaks become turned
//!    outlines in source pixels; the letterbox never leaves this module.
//! 2. `tile_classifier.onnx` reads each face-up tile, sampled from the full-resolution photo
//!    along the face's own axes (so a slanted tile is read straight, 64×48), and gives
//!    probabilities over the 42 faces. Unsure and sideways tiles are also read turned round;
//!    the more confident reading wins, which corrects up/down confusions. A soft photo (out of
//!    focus, shaken: `softness.rs`) is read by `tile_classifier_soft.onnx` instead, the same
//!    classifier trained on blurred and noisy faces too.
//!
//! ONNX Runtime is loaded at run time from `libonnxruntime.so` (the PyPI wheel
//! `onnxruntime==1.31.1`): from `--onnxruntime`, `ORT_DYLIB_PATH`, the folder `install-onnxruntime`
//! fills, or the Python environment.

use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

use image::RgbImage;
use ndarray::{Array4, ArrayD};
use ort::environment::Environment;
use ort::session::{Session, SessionOutputs};
use ort::value::TensorRef;

use crate::detection::{CLASS_COUNT, Detection, Face, Orientation};
use crate::tile::Tile;

mod backs;
mod between;
mod dark;
mod dwarfs;
mod edges;
mod exposure;
mod fragments;
mod geometry;
mod grown;
mod halves;
mod heif;
mod keystone;
mod lone;
mod photo;
mod reflections;
mod runtime;
mod scale;
mod sessions;
mod sideways;
mod softness;
mod straighten;
mod stretch;
mod twice;
mod warp;
mod whole;

use geometry::{Rect, Seen, covered, iou, turns};
pub use photo::{Photo, load_image, load_photo};
pub use runtime::{data_dir, fetch_onnxruntime, find_onnxruntime};
use scale::Scaler;

/// The models, embedded so that `suanfan scan` works from any folder.
const FINDER: &[u8] = include_bytes!("../../models/tile_finder.onnx");
const CLASSIFIER: &[u8] = include_bytes!("../../models/tile_classifier.onnx");
/// The classifier for soft photos (`softness.rs`): the same classes, trained on blurred and
/// noisy faces too.
const SOFT_CLASSIFIER: &[u8] = include_bytes!("../../models/tile_classifier_soft.onnx");

/// The finder sees the photo scaled to this many pixels on its long side. It was trained on
/// 320-pixel scenes; 416 reads dense rows (18 tiles across) that 320 partly misses.
const LONG_SIDE: u32 = 416;
/// Further, coarser looks at the photo for tiles too big for the first one (a close-up of a
/// few tiles, one tile filling the frame): the finder is trained on tiles up to about 110
/// pixels. At 96 pixels even a tile as big as the photo is under 100. The two smallest looks are for one tile filling the frame (a close-up, a crop): at 64
/// pixels it is about as big as the biggest tiles the finder learned from, and with a thin
/// grey margin (0.9) its edges look like a tile's edges on a table. Measured on the 351
/// camerash-dev crops (`tools/eval_photos.py --sets crops`): 145 read right with the first
/// two looks alone, 344 with the 64-pixel look with a margin, 345 with both.
const COARSE_LOOKS: [Look; 4] = [
    Look {
        long_side: 192,
        fill: 1.0,
        from: 0.12,
        to: 0.45,
    },
    Look {
        long_side: 96,
        fill: 1.0,
        from: 0.3,
        to: 1.5,
    },
    Look {
        long_side: 64,
        fill: 1.0,
        from: 0.6,
        to: 1.5,
    },
    Look {
        long_side: 64,
        fill: 0.9,
        from: 0.6,
        to: 1.5,
    },
];

/// One look of the finder at the photo.
#[derive(Clone, Copy, Debug)]
struct Look {
    /// The long side of the finder's input.
    long_side: u32,
    /// The share of that long side the photo takes, centred on grey: below 1, a tile that
    /// fills the photo has a margin round it, as the tiles the finder learned from had.
    fill: f32,
    /// The tiles it keeps: the long side of a tile's box as a share of the photo's long side.
    from: f32,
    to: f32,
}

impl Look {
    /// Whether this coarse look is worth taking at a photo whose long side is `long`, where
    /// the fine look found many tiles of side `small` (`typical_small_tile`).
    fn wanted_beside(&self, small: Option<f32>, long: f32) -> bool {
        !small.is_some_and(|s| s <= SMALL_TILES_SHARE * self.from * long)
    }
}

/// The fine look keeps tiles up to this share: a quarter of the photo's long side is 104
/// pixels of its input, within the sizes the finder learned (up to about 110). At a fifth, the
/// tiles of a heap photographed close (128–137 pixels of a 640-pixel photo) fell between the
/// looks: too big for the fine look, and too faint for the coarse one's 0.5 (held-out rf photos,
/// `tools/eval_photos.py`: 19 tiles missed, 64 of 81 photos exact; at a quarter 2 and 66).
const FINE_MAX_SHARE: f32 = 0.25;
/// Photos whose typical tile is under this many pixels in the fine look get a closer look
/// too (`Recognizer::closer_look`).
const CLOSER_BELOW: f32 = 35.0;
/// ... a long side (as decoded: a photo over 5 MP is decoded at half size) longer than a
/// video frame's 1280 pixels: `live` keeps its speed (1280×720: 27 ms rather than 41 on 2
/// cores, `cargo bench --bench scan`) ...
pub(super) const CLOSER_FROM: u32 = 1300;
/// ... and at least this many tiles found by the fine look.
const CLOSER_AMONG: usize = 3;
/// The closer look reads this many of the typical tile's long side round the tiles the fine
/// look found (`closer_window`).
const CLOSER_REACH: f32 = 3.0;
/// The closer look: twice the fine look's size, for tiles up to half the fine look's largest.
const CLOSER_LOOK: Look = Look {
    long_side: 2 * LONG_SIDE,
    fill: 1.0,
    from: 0.0,
    to: FINE_MAX_SHARE / 2.0,
};
/// The fine look's peaks from this up to the finder's threshold are its doubts: something
/// that may be a tile (`Recognizer::closer_look`).
const DOUBT: f32 = 0.1;
/// A coarse look keeps tiles it is at least this sure of: a whole row of small tiles can look
/// like one big tile to it.
const COARSE_MIN_SCORE: f32 = 0.5;
/// A face-up tile the classifier gives at least this probability of being no tile at all
/// (a classifier with the extra "none" class) is dropped; so is a face-down one, when that
/// is also more than it gives a back (`backs.rs`).
const NOT_A_TILE: f32 = 0.5;
/// ...unless it is a white dragon found at least this surely by the finder...
const SURE_BLANK_SCORE: f32 = 0.8;
/// ...and read as no tile under this (`is_sure_blank`).
const SURE_BLANK_NONE: f32 = 0.8;
/// The classifier's classes past the 42 faces: "not a tile", then "a tile face down".
const WITH_NONE: usize = CLASS_COUNT + 1;
const WITH_BACK: usize = CLASS_COUNT + 2;
/// The finder's input sides are padded to a multiple of this (its deepest stride is 16).
const ALIGN: u32 = 32;
const STRIDE: f32 = 4.0;
pub(super) const CROP_H: usize = 64;
pub(super) const CROP_W: usize = 48;
/// Crops read by the classifier in one run at most, when there are many: a batch's activations
/// outgrow the caches (312 crops, a picture of 156 tiles: 24 at a time, about 104 ms on 2
/// cores, all at once 156 ms, 200 at the first run of that size).
const BATCH: usize = 24;
/// From this many crops on, they are cut on two threads (starting one costs tens of
/// microseconds; a crop of a big tile, hundreds).
const CUT_APART: usize = 4;
/// Photos larger than this many pixels are refused when they are decoded whole (PNG,
/// progressive JPEG: its coefficients are all held, 600 MB at 200 MP) ...
pub const MAX_PIXELS: u64 = 80_000_000;
/// ... and baseline JPEGs (every phone's) over this: they are decoded at 1/8 above
/// `MAX_PIXELS` (a phone's 200 MP mode, 16320×12240: 0.3 s, 32 MB).
pub const MAX_JPEG_PIXELS: u64 = 260_000_000;
/// The ONNX Runtime library the project is built and tested with.
pub const ORT_LIBRARY: &str = "libonnxruntime.so.1.31.1";

/// Why recognition could not run.
#[derive(Debug, Clone)]
pub enum VisionError {
    /// ONNX Runtime's library was not found or could not be loaded.
    Runtime(String),
    /// A model could not be loaded or run.
    Model(String),
    /// The file is not an image we can read.
    Image { path: PathBuf, message: String },
}

impl fmt::Display for VisionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VisionError::Runtime(m) => write!(f, "ONNX Runtime: {m}"),
            VisionError::Model(m) => write!(f, "model: {m}"),
            VisionError::Image { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl std::error::Error for VisionError {}

/// Settings for recognition.
#[derive(Clone, Debug)]
pub struct VisionConfig {
    pub onnxruntime: Option<PathBuf>,
    /// Replace the embedded models.
    pub finder_model: Option<PathBuf>,
    pub classifier_model: Option<PathBuf>,
    /// Replace the embedded classifier for soft photos.
    pub soft_classifier_model: Option<PathBuf>,
    pub threads: usize,
    /// Heat-map peaks below this are not tiles.
    pub min_score: f32,
}

impl Default for VisionConfig {
    fn default() -> Self {
        VisionConfig {
            onnxruntime: None,
            finder_model: None,
            classifier_model: None,
            soft_classifier_model: None,
            threads: 2,
            min_score: 0.3,
        }
    }
}

/// A reading less confident than this is tried again with the crop turned round.
const UNSURE: f32 = 0.6;
/// A face read at least this sure is a confident tile: the stretch search, the whole-picture
/// reading, joined halves and a close-up's sure tile all go by it.
const CONFIDENT: f32 = 0.8;
/// Each face is read twice, cut along its outline and along it grown by this factor, and the
/// two readings are averaged: the margin shows a stroke or pip the outline cuts off (a 3m
/// read as 2m, a 7s as 6s) and the tile's own edges. Measured on the 81 held-out rf photos
/// (`tools/eval_photos.py`): 61 → 62 read exactly, 27 → 24 false tiles; 1.15 and 1.22 gave the
/// same within a photo; a margin alone (no second reading) lost camerash-dev crops (345 →
/// 341 of 351) that the average keeps (344).
const MARGIN: f32 = 1.2;
/// A face read at least this surely along its outline is not read again with the margin
/// (session 52): the second reading is for faces in doubt. A picture of 156 tiles 190 → 155
/// ms; of 1,790 evaluation photos (the 13 sets, 8 spoiled) two read otherwise: a one-tile
/// close-up read right as taken and blurred (`closeup-1` 0057), a heap in the dark one tile
/// fewer (`rf-holdout+@dark` 0069, exact neither way); the end-to-end hands as before.
const ONE_CUT_SURE: f32 = 0.95;
/// An upright tile's reading turned round must beat the first by this much to win.
const TURN_MARGIN: f32 = 0.15;
/// The same for a tile first read as a flower or season and turned round as another face.
/// Upside down, its characters at the bottom, a flower's picture looks like another face (a
/// plant, a bird's 1s) more than a suit tile upside down does. Session 46
/// (`tools/eval_photos.py`): flowers and seasons read upright at 0.20 to 0.54 were turned round
/// by readings 0.16 to 0.25 surer, as 1s, as 5p, or as another flower; every one was right
/// upright. 0.3 for every face instead mended 7 photos and spoiled 5.
const BONUS_TURN_MARGIN: f32 = 0.3;
/// A tile left upright in a row lying low turns across it when its face, turned a quarter,
/// reads at least this much surer (`read_across`). Measured on the hands of
/// `tools/real_hands.py --seat --turned` seeds 1–3 (one crop along the outline): of 385
/// upright tiles of such rows, none read 0.25 surer turned; of the 15 claimed tiles the
/// finder's boxes left upright, 5 did. Hands read exactly: seeds 1–3 110 of 120 as before,
/// seeds 4–6 (not looked at) 101 → 103; seeds 7–8, flat melds, hands from above and every
/// `tools/eval_photos.py` set as they were. The classifier reads most faces well at any
/// quarter turn, so it tells few claimed tiles; the finder must learn the rest.
const ACROSS_READS: f32 = 0.25;

/// `found` without the tiles marked in `gone` (one flag per tile, in order).
fn without_marked(found: Vec<Detection>, gone: &[bool]) -> Vec<Detection> {
    found
        .into_iter()
        .zip(gone)
        .filter_map(|(d, &g)| (!g).then_some(d))
        .collect()
}

fn max(v: &[f32]) -> f32 {
    v.iter().copied().fold(0.0f32, f32::max)
}

/// Whether a face-up tile read again turned round (`turned`) reads it better than its first
/// reading: a sideways tile by any amount, an upright one by TURN_MARGIN, or by
/// BONUS_TURN_MARGIN when first read as a flower or season and turned as another face.
fn turned_wins(first: &[f32], turned: &[f32], sideways: bool) -> bool {
    let (was, now) = (likeliest(first), likeliest(turned));
    let margin = if sideways {
        0.0
    } else if now != was && matches!(was.and_then(Face::from_class), Some(Face::Bonus(_))) {
        BONUS_TURN_MARGIN
    } else {
        TURN_MARGIN
    };
    max(turned) > max(first) + margin
}

/// Whether `faces` are likeliest a white dragon: the blank face, the one a classifier can take
/// for a patch of table or a tile's side (`is_sure_blank`, `dark.rs`, `between.rs`).
fn reads_white(faces: &[f32]) -> bool {
    likeliest(faces).and_then(Face::from_class) == Some(Face::Tile(Tile::P))
}

/// The class a reading names likeliest.
fn likeliest(faces: &[f32]) -> Option<usize> {
    faces
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i)
}

/// Time spent in each step, in milliseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    pub finder: f64,
    pub crops: f64,
    pub classifier: f64,
    /// Found boxes the classifier called no tile at all, dropped.
    pub rejected: usize,
}

impl Timings {
    /// Adds the time of another pass (its rejected boxes are not added: they are of another
    /// reading of the picture).
    fn add_time(&mut self, other: &Timings) {
        self.finder += other.finder;
        self.crops += other.crops;
        self.classifier += other.classifier;
    }
}

/// The loaded models.
pub struct Recognizer {
    finder: Session,
    classifier: Session,
    /// Reads the faces of a soft photo (`softness.rs`); the embedded one is loaded when the
    /// first soft photo comes (`sessions.rs`).
    soft_classifier: Option<Session>,
    /// The environment the models run in, kept to load the soft classifier later.
    env: Environment,
    /// Whether the photo being read is soft: decided once a photo, from its first tiles found.
    soft: Option<bool>,
    /// Whether the picture being read may be upside down (a photo turned a quarter by
    /// `sideways.rs`, which way not known for sure): reflections may lie above their tiles.
    either_way: bool,
    cfg: VisionConfig,
    input: Array4<f32>,
    scaler: Scaler,
    /// The classifier's output width: 42 faces, 43 with a "not a tile" class, 44 with "a tile
    /// face down" after it.
    classes: usize,
}

impl fmt::Debug for Recognizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recognizer")
            .field("cfg", &self.cfg)
            .field("classes", &self.classes)
            .finish()
    }
}

fn model_err(e: impl fmt::Display) -> VisionError {
    VisionError::Model(e.to_string())
}

/// One output of a model run, by name, or an error naming the model and the missing output.
fn output(
    outputs: &SessionOutputs<'_>,
    model: &str,
    name: &str,
) -> Result<ArrayD<f32>, VisionError> {
    let v = outputs.get(name).ok_or_else(|| no_output(model, name))?;
    Ok(v.try_extract_array::<f32>()
        .map_err(|e| VisionError::Model(format!("{model} output `{name}`: {e}")))?
        .to_owned())
}

/// The error for a `model` without the output `name`.
fn no_output(model: &str, name: &str) -> VisionError {
    VisionError::Model(format!(
        "the {model} model has no output named `{name}`: it is not a suanfan {model} (see models/README.md)"
    ))
}

/// How a photo was scaled and padded for one look of the finder.
#[derive(Clone, Copy, Debug)]
struct Letterbox {
    /// Finder pixels per source pixel.
    s: f32,
    /// Where the photo's left and top edges lie in the finder's input, in finder pixels: the
    /// padding, or less than 0 when the input is a window of the look (`Recognizer::closer_look`).
    px: f32,
    py: f32,
    /// The finder's grid.
    grid_w: usize,
    grid_h: usize,
}

/// The photo's long side as one look sees it, without the margin.
fn look_long_side(look: Look) -> u32 {
    ((look.long_side as f32 * look.fill).round() as u32).max(1)
}

/// Finder pixels per source pixel in one look.
fn look_scale((w, h): (u32, u32), look: Look) -> f32 {
    look_long_side(look) as f32 / w.max(h).max(1) as f32
}

/// The photo's size in one look, without the margin and the padding.
fn look_size((w, h): (u32, u32), look: Look) -> (u32, u32) {
    let long_side = look_long_side(look);
    let s = look_scale((w, h), look);
    (
        ((w as f32 * s).round() as u32).clamp(1, long_side),
        ((h as f32 * s).round() as u32).clamp(1, long_side),
    )
}

/// The finder's input for one look at a photo of `size` source pixels: the photo's size there,
/// the input's (grown by the look's margin and padded to multiples of ALIGN), and where the
/// photo lies in it (centred).
fn look_input(size: (u32, u32), look: Look) -> ((u32, u32), (u32, u32), (u32, u32)) {
    let (nw, nh) = look_size(size, look);
    let margin = |n: u32| (n as f32 / look.fill).round() as u32;
    let (iw, ih) = (
        margin(nw).div_ceil(ALIGN) * ALIGN,
        margin(nh).div_ceil(ALIGN) * ALIGN,
    );
    ((nw, nh), (iw, ih), ((iw - nw) / 2, (ih - nh) / 2))
}

/// A tile the finder saw, before its face is read.
#[derive(Clone)]
struct Candidate {
    det: Detection,
    bounds: [f32; 4],
    turn: [f32; 4],
    rect: Rect,
}

/// The finder's output maps for one look, at stride 4: the heat of a face-up and a face-down
/// tile, the box (log width, log height, centre offset), the face's turn (scores before their
/// softmax where `orient_logits`, else probabilities), and (when the finder has it) the
/// turned box (angle as a cosine and sine of 4θ, log sides).
struct FinderMaps {
    heat: ArrayD<f32>,
    boxes: ArrayD<f32>,
    orient: ArrayD<f32>,
    orient_logits: bool,
    rbox: Option<ArrayD<f32>>,
}

impl FinderMaps {
    /// An error unless every map has the letterbox's grid.
    fn check(&self, lb: &Letterbox) -> Result<(), VisionError> {
        let (gw, gh) = (lb.grid_w, lb.grid_h);
        let want = [1, 2, gh, gw];
        if self.heat.shape() != want
            || self.boxes.shape() != [1, 4, gh, gw]
            || self.orient.shape() != [1, 4, gh, gw]
            || self
                .rbox
                .as_ref()
                .is_some_and(|r| r.shape() != [1, 4, gh, gw])
        {
            return Err(VisionError::Model(format!(
                "tile finder gave maps of shape {:?} for an input of {}×{}; expected {want:?}: \
                 the finder model must take any input size (multiples of {ALIGN}) at stride 4",
                self.heat.shape(),
                gw * 4,
                gh * 4
            )));
        }
        Ok(())
    }

    /// The tile found at grid cell (`gy`, `gx`) with heat `score`, in the source pixels of a
    /// picture of `(w, h)`; none when its box is under 2 pixels.
    fn candidate(
        &self,
        lb: &Letterbox,
        (w, h): (f32, f32),
        (gy, gx): (usize, usize),
        face_down: bool,
        score: f32,
    ) -> Option<Candidate> {
        let at = |a: &ArrayD<f32>, k: usize| a[[0, k, gy, gx]];
        let bw = at(&self.boxes, 0).exp() * STRIDE;
        let bh = at(&self.boxes, 1).exp() * STRIDE;
        let cx = (gx as f32 + at(&self.boxes, 2)) * STRIDE;
        let cy = (gy as f32 + at(&self.boxes, 3)) * STRIDE;
        // Back to source pixels.
        let to_src = |x: f32, y: f32| {
            [
                ((x - lb.px) / lb.s).clamp(0.0, w),
                ((y - lb.py) / lb.s).clamp(0.0, h),
            ]
        };
        let a = to_src(cx - bw / 2.0, cy - bh / 2.0);
        let b = to_src(cx + bw / 2.0, cy + bh / 2.0);
        if b[0] - a[0] < 2.0 || b[1] - a[1] < 2.0 {
            return None;
        }
        let centre = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
        let rect = match &self.rbox {
            Some(r) => Rect {
                centre,
                angle: at(r, 1).atan2(at(r, 0)) / 4.0,
                along: at(r, 2).exp() * STRIDE / lb.s,
                across: at(r, 3).exp() * STRIDE / lb.s,
            },
            None => Rect {
                centre,
                angle: 0.0,
                along: b[0] - a[0],
                across: b[1] - a[1],
            },
        };
        Some(Candidate {
            det: Detection {
                corners: rect.corners(Orientation::Up),
                score,
                face_down,
                orientation: Orientation::Up,
                probs: Vec::new(),
            },
            bounds: [a[0], a[1], b[0], b[1]],
            turn: self.turn(gy, gx),
            rect,
        })
    }

    /// The probabilities that the face's top points up, right, down and left at grid cell
    /// (`gy`, `gx`).
    fn turn(&self, gy: usize, gx: usize) -> [f32; 4] {
        let v: [f32; 4] = std::array::from_fn(|k| self.orient[[0, k, gy, gx]]);
        if self.orient_logits { softmax(v) } else { v }
    }
}

/// The softmax of four scores.
fn softmax(v: [f32; 4]) -> [f32; 4] {
    let top = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e = v.map(|x| (x - top).exp());
    let sum: f32 = e.iter().sum();
    e.map(|x| x / sum)
}

impl Recognizer {
    /// Loads ONNX Runtime and the models and checks that each gives the outputs suanfan
    /// reads. The embedded classifier for soft photos is loaded when the first soft photo
    /// comes (`sessions.rs`). The finder is not run here: its outputs are checked by name
    /// (`sessions::check_finder`). Warming it up on a blank picture made a one-photo `scan`
    /// slower by the clock (session 67, medians: a 640-pixel photo 212 against 178 ms, a
    /// 12 MP one 246 against 228; its runs took a core from the photo's decoding) and saved
    /// its first photo 0 to 6 ms.
    pub fn new(cfg: VisionConfig) -> Result<Recognizer, VisionError> {
        let lib = match find_onnxruntime(cfg.onnxruntime.as_deref()) {
            Ok(lib) => lib,
            // Nothing given and nothing found: fetch the pinned library once.
            Err(_) if cfg.onnxruntime.is_none() => runtime::fetch_onnxruntime()?,
            Err(e) => return Err(e),
        };
        let env = runtime::environment(&lib)?;
        let threads = cfg.threads.max(1);
        let finder = sessions::load(&env, FINDER, &cfg.finder_model, "tile finder", threads)?;
        sessions::check_finder(&finder)?;
        let classifier = sessions::load(
            &env,
            CLASSIFIER,
            &cfg.classifier_model,
            "tile classifier",
            threads,
        )?;
        let mut r = Recognizer {
            finder,
            classifier,
            soft_classifier: None,
            env,
            soft: None,
            either_way: false,
            cfg,
            input: Array4::zeros((1, 3, LONG_SIDE as usize, LONG_SIDE as usize)),
            scaler: Scaler::new(),
            classes: CLASS_COUNT,
        };
        r.classes = r.classifier_width(false)?;
        // A classifier given for soft photos is checked now; the embedded one, known to
        // match, waits for the first soft photo (most photos are sharp: 6 ms of loading saved).
        if r.cfg.soft_classifier_model.is_some() {
            r.load_soft_classifier()?;
        }
        Ok(r)
    }

    /// Finds and reads every tile of a picture taken as it is: one pass of every look, for
    /// video frames, without tiles far too small for the others (`dwarfs.rs`), faces cut short
    /// read again grown (`grown.rs`), and in a dark picture faces read weakly read again by
    /// the classifier for soft photos (`dark.rs`). Photos go through [`Recognizer::detect`],
    /// which also undoes a stretch.
    pub fn detect_frame(
        &mut self,
        img: &RgbImage,
    ) -> Result<(Vec<Detection>, Timings), VisionError> {
        let (found, t) = self.first_read(img)?;
        let photo = exposure::Evening::new(img);
        let found = self.read_grown(&photo, dwarfs::drop_dwarfs(found))?;
        Ok((self.doubted_faces_read_again(&photo, found)?, t))
    }

    /// Whether the photo being read was found soft (its faces go to the classifier for soft
    /// photos).
    fn is_soft(&self) -> bool {
        self.soft == Some(true)
    }

    /// The first reading of a photo or frame: whether it is soft is decided anew.
    fn first_read(&mut self, img: &RgbImage) -> Result<(Vec<Detection>, Timings), VisionError> {
        self.soft = None;
        self.find_and_read(img)
    }

    /// [`Recognizer::detect_frame`] for a picture of the photo being read: whether the photo is
    /// soft is decided on its first picture only.
    fn find_and_read(&mut self, img: &RgbImage) -> Result<(Vec<Detection>, Timings), VisionError> {
        let mut t = Timings::default();
        let t0 = Instant::now();
        let (w, h) = img.dimensions();
        if w == 0 || h == 0 {
            return Ok((Vec::new(), t));
        }
        let evened = exposure::evened(img);
        let dark = evened.as_ref().is_some_and(|e| e.dark);
        let img = evened.as_ref().map_or(img, |e| &e.picture);
        let long = w.max(h) as f32;
        let fine = Look {
            long_side: LONG_SIDE,
            fill: 1.0,
            from: 0.0,
            to: FINE_MAX_SHARE,
        };
        // Every look is reduced from the first look's picture when the photo is bigger.
        let reduced = (long > LONG_SIDE as f32).then(|| {
            let (nw, nh) = look_size((w, h), fine);
            self.scaler.scaled(img, nw, nh)
        });
        let pixels = reduced.as_ref().unwrap_or(img);
        let doubt = DOUBT.min(self.cfg.min_score);
        let (mut found, mut doubts): (Vec<_>, Vec<_>) = self
            .look((w, h), pixels, fine, doubt)?
            .into_iter()
            .partition(|c| c.det.score >= self.cfg.min_score);
        found.retain(|c| side(&c.bounds) <= FINE_MAX_SHARE * long);
        doubts.retain(|c| side(&c.bounds) <= FINE_MAX_SHARE * long);
        let missed = self.closer_look(img, &found, &doubts)?;
        found.extend(missed);
        let mut coarse = Vec::new();
        let small = typical_small_tile(&found, (w as f32, h as f32));
        for l in COARSE_LOOKS {
            if !l.wanted_beside(small, long) {
                continue;
            }
            let min_score = COARSE_MIN_SCORE.max(self.cfg.min_score);
            let mut more = self.look((w, h), pixels, l, min_score)?;
            more.retain(|c| (l.from * long..=l.to * long).contains(&side(&c.bounds)));
            coarse.extend(more);
        }
        let all = coarse.clone();
        coarse.retain(|c| fits_the_photo(c, &found, &all, (w as f32, h as f32)));
        let coarse = self.drop_look_alikes(img, suppress(coarse), &found)?;
        drop_parts(&mut found, &coarse);
        found.extend(coarse);
        let found = suppress(found);
        t.finder = t0.elapsed().as_secs_f64() * 1e3;
        let Oriented {
            tiles: mut kept,
            low,
        } = orient(found, w as f32, h as f32);
        let (up, crops) = cut_up_faces(img, &kept, &mut t);
        if self.soft.is_none() {
            self.soft = Some(is_soft(&kept, &up, &crops));
        }
        let mut p_none = self.read_cut_faces(img, &mut kept, &low, (&up, &crops), &mut t)?;
        if dark {
            self.white_dragons_kept(img, &mut kept, &mut p_none)?;
        }
        let before = kept.len();
        let mut k = 0;
        kept.retain(|d| {
            k += 1;
            p_none[k - 1] < NOT_A_TILE || is_sure_blank(d, p_none[k - 1])
        });
        t.rejected = before - kept.len();
        let kept = twice::drop_tiles_found_twice(kept);
        let kept = reflections::drop_reflections(img, kept, self.either_way);
        Ok((lone::drop_lone_doubts(kept, img), t))
    }

    /// The tiles a look at twice the fine look's size finds where the fine look found none, in
    /// a photo whose tiles are small there (`CLOSER_BELOW`): at 17 to 33 pixels the finder is
    /// unsure of a row's end tile on a busy background, at 40 sure. Only sure face-up ones are
    /// kept, and only beside a few tiles found (a texture's weak marks are no row of tiles).
    /// The fine look must have been unsure of something face up where it found nothing (one
    /// of its `doubts`): where it was not, the closer look found nothing more on any
    /// evaluation photo (session 63), and it was a 12 MP hand's largest cost.
    fn closer_look(
        &mut self,
        img: &RgbImage,
        fine: &[Candidate],
        doubts: &[Candidate],
    ) -> Result<Vec<Candidate>, VisionError> {
        let (w, h) = img.dimensions();
        let long = w.max(h) as f32;
        if !wants_closer_look(fine, long) || !unsure_of_more(fine, doubts) {
            return Ok(Vec::new());
        }
        let ((nw, nh), full, (px, py)) = look_input((w, h), CLOSER_LOOK);
        let pixels = self.scaler.scaled(img, nw, nh);
        let s = look_scale((w, h), CLOSER_LOOK);
        // The part of the whole look's input round the tiles found, cut on its grid: the
        // finder sees there what it sees in the whole input.
        let [x0, y0, x1, y1] = closer_window(fine, s, (px, py), full);
        self.fill_input(
            (x1 - x0, y1 - y0),
            &pixels,
            (x0.saturating_sub(px), y0.saturating_sub(py)),
            (px.saturating_sub(x0), py.saturating_sub(y0)),
        );
        let lb = Letterbox {
            s,
            px: px as f32 - x0 as f32,
            py: py as f32 - y0 as f32,
            grid_w: (x1 - x0) as usize / 4,
            grid_h: (y1 - y0) as usize / 4,
        };
        let mut more = self.find_in_input((w, h), &lb, COARSE_MIN_SCORE)?;
        more.retain(|c| {
            !c.det.face_down
                && side(&c.bounds) <= CLOSER_LOOK.to * long
                && fine.iter().all(|f| !overlaps(&c.bounds, &f.bounds))
        });
        Ok(suppress(more))
    }

    /// The big boxes of the coarse look that the classifier calls a tile (all of them with a
    /// classifier without "not a tile"): a big box over a row of tiles, read as no tile, must
    /// not hide the tiles the fine look found inside it. Nor may one read with no sure face,
    /// or one face down, over two or more tiles of the fine look (`tiles_covered`): two
    /// neighbours seen as one (two backs of a wall: 10 → 12 of the 14 judged real backs of
    /// the rf validation photos kept, `tools/rf_labels.py check-backs`; nothing else moved).
    /// Nor one over three or more where the fine look sees tiles that big (a meld lying low on
    /// a pale table seen as one sideways tile: `tools/real_hands.py --seat` seeds 1–3 113 → 114
    /// of 120; seeds 4–6 and everything else as they were). Nor one read weakly over many
    /// tiles much smaller than itself (`tiles_seen_as_one`).
    fn drop_look_alikes(
        &mut self,
        img: &RgbImage,
        coarse: Vec<Candidate>,
        fine: &[Candidate],
    ) -> Result<Vec<Candidate>, VisionError> {
        if self.classes == CLASS_COUNT || coarse.is_empty() {
            return Ok(coarse);
        }
        let (w, h) = img.dimensions();
        let mut probe = orient(coarse.clone(), w as f32, h as f32).tiles;
        let p_none = self.read_faces(img, &mut probe, &[], &mut Timings::default())?;
        Ok(coarse
            .into_iter()
            .zip(p_none)
            .zip(probe)
            .filter(|((c, p), d)| {
                // Two tiles seen as one: read with no sure face, or face down (it shows none).
                // Three or more, however surely read, where the fine look sees tiles that big
                // (under FINE_MAX_SHARE): a meld lying low on a pale table, seen as one
                // sideways tile. In a close-up the big tile is bigger, and its pips fill it.
                let weak = d.face_down || max(&d.probs) < WEAK_OVER_TILES;
                *p < NOT_A_TILE && !tiles_seen_as_one(c, fine, weak, w.max(h) as f32)
            })
            .map(|((c, _), _)| c)
            .collect())
    }

    /// One look of the finder at a photo of `size` source pixels, scaled to the look's long
    /// side from `pixels` (the photo itself or a reduction of it): the tiles it sees, in
    /// source pixels.
    fn look(
        &mut self,
        size: (u32, u32),
        pixels: &RgbImage,
        look: Look,
        min_score: f32,
    ) -> Result<Vec<Candidate>, VisionError> {
        let lb = self.letterbox(size, pixels, look);
        self.find_in_input(size, &lb, min_score)
    }

    /// The tiles the finder sees in its input as `lb` laid the photo of `size` source pixels
    /// into it, in source pixels.
    fn find_in_input(
        &mut self,
        size: (u32, u32),
        lb: &Letterbox,
        min_score: f32,
    ) -> Result<Vec<Candidate>, VisionError> {
        let outputs = self
            .finder
            .run(ort::inputs![
                TensorRef::from_array_view(&self.input).map_err(model_err)?
            ])
            .map_err(model_err)?;
        let heat = output(&outputs, "tile finder", "heat")?;
        let boxes = output(&outputs, "tile finder", "box")?;
        // Scores before their softmax from finders since session 71, probabilities before.
        let orient_logits = outputs.get(sessions::ORIENT_LOGITS).is_some();
        let orient = match orient_logits {
            true => output(&outputs, "tile finder", sessions::ORIENT_LOGITS)?,
            false => output(&outputs, "tile finder", sessions::ORIENT)?,
        };
        // The turned box (angle and sides of the face); a finder without it gives upright boxes.
        let rbox = match outputs.get("rbox") {
            Some(_) => Some(output(&outputs, "tile finder", "rbox")?),
            None => None,
        };
        drop(outputs);
        let maps = FinderMaps {
            heat,
            boxes,
            orient,
            orient_logits,
            rbox,
        };
        maps.check(lb)?;
        let size = (size.0 as f32, size.1 as f32);
        Ok(peaks(&maps.heat, min_score)
            .into_iter()
            .filter_map(|(ch, gy, gx, v)| maps.candidate(lb, size, (gy, gx), ch == 1, v))
            .collect())
    }

    /// Scales the picture (of `size` source pixels; `pixels` is it or a reduction of it) into
    /// the finder's input for one look, centred and padded grey to multiples of ALIGN.
    fn letterbox(&mut self, size: (u32, u32), pixels: &RgbImage, look: Look) -> Letterbox {
        let s = look_scale(size, look);
        let ((nw, nh), (iw, ih), (px, py)) = look_input(size, look);
        let scaled;
        let small = if pixels.dimensions() == (nw, nh) {
            pixels
        } else {
            scaled = self.scaler.scaled(pixels, nw, nh);
            &scaled
        };
        self.fill_input((iw, ih), small, (0, 0), (px, py));
        Letterbox {
            s,
            px: px as f32,
            py: py as f32,
            grid_w: iw as usize / 4,
            grid_h: ih as usize / 4,
        }
    }

    /// The finder's input made `iw`×`ih` grey, with the part of `small` from `from` on laid
    /// into it at `at` (as much of it as fits).
    fn fill_input(
        &mut self,
        (iw, ih): (u32, u32),
        small: &RgbImage,
        from: (u32, u32),
        at: (u32, u32),
    ) {
        let shape = [1, 3, ih as usize, iw as usize];
        if self.input.shape() != shape {
            self.input = Array4::zeros(shape);
        }
        self.input.fill(114.0);
        let plane = (iw * ih) as usize;
        let input = self
            .input
            .as_slice_mut()
            .unwrap_or_else(|| unreachable!("a new array is contiguous"));
        let (w, h) = small.dimensions();
        let cols = (w.saturating_sub(from.0)).min(iw - at.0) as usize;
        let rows = (h.saturating_sub(from.1)).min(ih - at.1);
        let raw = small.as_raw();
        for y in 0..rows {
            let src = (((from.1 + y) * w + from.0) * 3) as usize;
            let at = ((y + at.1) * iw + at.0) as usize;
            for (x, p) in raw[src..src + 3 * cols].chunks_exact(3).enumerate() {
                for c in 0..3 {
                    input[c * plane + at + x] = f32::from(p[c]);
                }
            }
        }
    }

    /// Reads the face of every face-up tile: a crop along the face's own axes and one with a
    /// margin, classified; unsure and sideways tiles are also read turned round, and those
    /// left upright in a row lying low (`low`, one per tile, or empty) turned a quarter
    /// (`read_across`). Gives each tile's probability of being no tile at all (0 for face-down
    /// tiles and a classifier without that class).
    fn read_faces(
        &mut self,
        img: &RgbImage,
        kept: &mut [Detection],
        low: &[bool],
        t: &mut Timings,
    ) -> Result<Vec<f32>, VisionError> {
        let (up, crops) = cut_up_faces(img, kept, t);
        self.read_cut_faces(img, kept, low, (&up, &crops), t)
    }

    /// [`Recognizer::read_faces`] with the face-up tiles' crops cut (`cut_up_faces`).
    fn read_cut_faces(
        &mut self,
        img: &RgbImage,
        kept: &mut [Detection],
        low: &[bool],
        (up, crops): (&[usize], &Array4<f32>),
        t: &mut Timings,
    ) -> Result<Vec<f32>, VisionError> {
        let t2 = Instant::now();
        let first = self.classify_cuts(crops)?;
        // An unsure reading is tried again turned round: the finder may have swapped top and
        // bottom. The turned reading wins only when clearly more confident.
        // Sideways tiles are always read both ways: which of left and right the face's top
        // points to is the finder's weakest call, and a claimed tile matters to the score.
        let sideways: Vec<bool> = up
            .iter()
            .map(|&i| kept[i].orientation.is_sideways())
            .collect();
        let unsure: Vec<usize> = (0..up.len())
            .filter(|&k| max(&first[k].faces) < UNSURE || sideways[k])
            .collect();
        let second = if unsure.is_empty() {
            Vec::new()
        } else {
            self.classify_cuts(&turned_round(crops, &unsure, up.len()))?
        };
        let mut p_none = vec![0.0; kept.len()];
        for (k, &i) in up.iter().enumerate() {
            let d = &mut kept[i];
            let mut read = &first[k];
            if let Some(j) = unsure.iter().position(|&u| u == k) {
                if turned_wins(&first[k].faces, &second[j].faces, sideways[k]) {
                    *d = turned(d, 2);
                    read = &second[j];
                }
            }
            d.probs = read.faces.clone();
            p_none[i] = read.none;
        }
        self.read_across(img, kept, low, &mut p_none)?;
        if self.classes == WITH_BACK {
            let down: Vec<usize> = (0..kept.len()).filter(|&i| kept[i].face_down).collect();
            self.check_backs(img, kept, &down, &mut p_none)?;
        }
        t.classifier = t2.elapsed().as_secs_f64() * 1e3;
        Ok(p_none)
    }

    /// The face-up tiles left upright in a row lying low (`low`) read again turned a quarter
    /// either way: seen from the seat, a tile laid across a meld lying low may show the finder
    /// no other shape than its upright neighbours, but its face reads clearly better turned.
    /// It turns where the better of the two readings is surer by ACROSS_READS.
    fn read_across(
        &mut self,
        img: &RgbImage,
        kept: &mut [Detection],
        low: &[bool],
        p_none: &mut [f32],
    ) -> Result<(), VisionError> {
        let picks: Vec<usize> = (0..kept.len())
            .filter(|&i| low.get(i) == Some(&true) && !kept[i].face_down)
            .filter(|&i| !kept[i].orientation.is_sideways())
            .collect();
        if picks.is_empty() {
            return Ok(());
        }
        let (turned, reads) = self.read_quarter_turns(img, picks.iter().map(|&i| &kept[i]))?;
        for (j, &i) in picks.iter().enumerate() {
            let k = if max(&reads[2 * j].faces) >= max(&reads[2 * j + 1].faces) {
                2 * j
            } else {
                2 * j + 1
            };
            if max(&reads[k].faces) >= max(&kept[i].probs) + ACROSS_READS {
                kept[i] = turned[k].clone();
                kept[i].probs = reads[k].faces.clone();
                p_none[i] = reads[k].none;
            }
        }
        Ok(())
    }

    /// Each of `tiles` turned a quarter one way and the other (`turned` by 1 and by 3
    /// quarters, in turn), and what the classifier reads in each (`classify_cuts`).
    pub(super) fn read_quarter_turns<'a>(
        &mut self,
        img: &RgbImage,
        tiles: impl IntoIterator<Item = &'a Detection>,
    ) -> Result<(Vec<Detection>, Vec<Reading>), VisionError> {
        let turned: Vec<Detection> = tiles
            .into_iter()
            .flat_map(|d| [turned(d, 1), turned(d, 3)])
            .collect();
        if turned.is_empty() {
            return Ok((turned, Vec::new()));
        }
        let every: Vec<usize> = (0..turned.len()).collect();
        let reads = self.classify_cuts(&cut_faces(img, &turned, &every))?;
        Ok((turned, reads))
    }

    /// What the classifier reads in crops cut by `cut_faces` (each face along its outline in
    /// the batch's first half, with a margin in its second): the first reading, averaged with
    /// the second where the first is not sure (`Reading::is_sure`).
    pub(super) fn classify_cuts(
        &mut self,
        crops: &Array4<f32>,
    ) -> Result<Vec<Reading>, VisionError> {
        self.classify_cuts_by(crops, self.is_soft())
    }

    /// [`Recognizer::classify_cuts`] by the classifier for soft photos where `soft`, by the
    /// first one otherwise.
    pub(super) fn classify_cuts_by(
        &mut self,
        crops: &Array4<f32>,
        soft: bool,
    ) -> Result<Vec<Reading>, VisionError> {
        let n = crops.shape()[0] / 2;
        let tight = crops.slice_axis(ndarray::Axis(0), ndarray::Slice::from(..n));
        let mut reads = self.classify(tight, soft)?;
        let doubtful: Vec<usize> = (0..n).filter(|&k| !reads[k].is_sure()).collect();
        let margins: Vec<usize> = doubtful.iter().map(|&k| n + k).collect();
        let wider = self.classify(crops.select(ndarray::Axis(0), &margins).view(), soft)?;
        for (&k, w) in doubtful.iter().zip(&wider) {
            reads[k].average_with(w);
        }
        Ok(reads)
    }

    /// What the classifier (the one for soft photos where `soft`) reads in each of a batch of
    /// upright crops: more than two `BATCH`es of them are read `BATCH` at a time.
    pub(super) fn classify(
        &mut self,
        crops: ndarray::ArrayView4<f32>,
        soft: bool,
    ) -> Result<Vec<Reading>, VisionError> {
        let n = crops.shape()[0];
        if n <= 2 * BATCH {
            return self.classify_batch(crops, soft);
        }
        let mut reads = Vec::with_capacity(n);
        for part in crops.axis_chunks_iter(ndarray::Axis(0), BATCH) {
            reads.extend(self.classify_batch(part, soft)?);
        }
        Ok(reads)
    }

    /// What the classifier (the one for soft photos where `soft`) reads in each of a batch of
    /// upright crops, in one run.
    fn classify_batch(
        &mut self,
        crops: ndarray::ArrayView4<f32>,
        soft: bool,
    ) -> Result<Vec<Reading>, VisionError> {
        let n = crops.shape()[0];
        if n == 0 {
            return Ok(Vec::new());
        }
        let classes = self.classes;
        let (classifier, what) = self.classifier_for(soft)?;
        let outputs = classifier
            .run(ort::inputs![
                TensorRef::from_array_view(crops).map_err(model_err)?
            ])
            .map_err(model_err)?;
        let probs = output(&outputs, what, "probs")?;
        if probs.shape() != [n, classes] {
            return Err(VisionError::Model(format!(
                "the {what} gave `probs` of shape {:?} for {n} crops; expected [{n}, {classes}]",
                probs.shape(),
            )));
        }
        let extra = |k: usize, class: usize| {
            if classes > class {
                probs[[k, class]]
            } else {
                0.0
            }
        };
        Ok((0..n)
            .map(|k| {
                // Faces and "not a tile" as a classifier without backs reads them: the back
                // class is for face-down tiles only, and is left out of the face-up reading.
                let back = extra(k, WITH_NONE);
                let rest = (1.0 - back).max(f32::EPSILON);
                Reading {
                    faces: (0..CLASS_COUNT).map(|c| probs[[k, c]] / rest).collect(),
                    none: extra(k, CLASS_COUNT) / rest,
                    back,
                }
            })
            .collect())
    }
}

/// The classifier's reading of one crop: the 42 faces and "not a tile" with the back class
/// left out (they sum to 1), and "a tile face down" (0 for a classifier without those classes).
pub(super) struct Reading {
    faces: Vec<f32>,
    none: f32,
    back: f32,
}

impl Reading {
    /// Whether one face, or the back, is read at ONE_CUT_SURE or more.
    fn is_sure(&self) -> bool {
        max(&self.faces) >= ONE_CUT_SURE || self.back >= ONE_CUT_SURE
    }

    /// This reading and `other`, of the same tile, averaged.
    fn average_with(&mut self, other: &Reading) {
        for (x, y) in self.faces.iter_mut().zip(&other.faces) {
            *x = (*x + y) / 2.0;
        }
        self.none = (self.none + other.none) / 2.0;
        self.back = (self.back + other.back) / 2.0;
    }
}

/// Whether a face-up tile read as no tile (`p_none`) is a white dragon the finder is sure of.
/// Its face is blank, the one face a classifier can take for a patch of table or a tile's
/// side, and in a dark photo brightened with its noise (`exposure.rs`) the two come near: of
/// the 20 white dragons lost on the held-out rf photos at a third of their light
/// (`tools/eval_photos.py` `@dark`), 19 were found at 0.84 or more and read as no tile at
/// 0.50 to 0.65, the white dragon the surest face (0.27 to 0.47). The finder's sure outline
/// decides. The surest look-alike read so on any set was a sliver at a stretched photo's
/// edge, found at 0.79 (SURE_BLANK_SCORE keeps it out).
fn is_sure_blank(d: &Detection, p_none: f32) -> bool {
    !d.face_down && d.score >= SURE_BLANK_SCORE && p_none < SURE_BLANK_NONE && reads_white(&d.probs)
}

/// Whether the faces of `found` (the finder's surest face-up ones, softness::SAMPLED at most)
/// are soft as cut for the classifier, out of focus or smeared one way by a phone that moved
/// (`softness.rs`); a picture without a face-up tile is not.
fn is_soft(found: &[Detection], up: &[usize], crops: &Array4<f32>) -> bool {
    let mut by_score: Vec<usize> = (0..up.len()).collect();
    by_score.sort_by(|&a, &b| found[up[b]].score.total_cmp(&found[up[a]].score));
    by_score.truncate(softness::SAMPLED);
    let sampled = crops.select(ndarray::Axis(0), &by_score);
    softness::median_sharpness(&sampled).is_some_and(|s| s < softness::SOFT)
        || softness::median_smear_sharpness(&sampled).is_some_and(|s| s < softness::SMEARED)
}

/// The face-up tiles of `kept` and their crops (`cut_faces`), the time taken in `t.crops`.
fn cut_up_faces(img: &RgbImage, kept: &[Detection], t: &mut Timings) -> (Vec<usize>, Array4<f32>) {
    let t1 = Instant::now();
    let up: Vec<usize> = (0..kept.len()).filter(|&i| !kept[i].face_down).collect();
    let crops = cut_faces(img, kept, &up);
    t.crops = t1.elapsed().as_secs_f64() * 1e3;
    (up, crops)
}

/// The crops of the face-up tiles `up` of `kept`: one each along its outline, then one each
/// with a margin (MARGIN; the outline again where the margin leaves the photo).
pub(super) fn cut_faces(img: &RgbImage, kept: &[Detection], up: &[usize]) -> Array4<f32> {
    let wide: Vec<Option<[[f32; 2]; 4]>> = up
        .iter()
        .map(|&i| with_margin(&kept[i], img.dimensions()))
        .collect();
    let outlines: Vec<&[[f32; 2]; 4]> = up
        .iter()
        .map(|&i| &kept[i].corners)
        .chain(
            up.iter()
                .zip(&wide)
                .map(|(&i, w)| w.as_ref().unwrap_or(&kept[i].corners)),
        )
        .collect();
    cut_outlines(img, &outlines)
}

/// The crops along `outlines`, in order (`geometry::sample_face`), cut on two threads when
/// there are several: the models' threads are idle meanwhile.
pub(super) fn cut_outlines(img: &RgbImage, outlines: &[&[[f32; 2]; 4]]) -> Array4<f32> {
    let mut crops = Array4::<f32>::zeros((outlines.len(), 3, CROP_H, CROP_W));
    let cut = |mut part: ndarray::ArrayViewMut4<f32>, outlines: &[&[[f32; 2]; 4]]| {
        for (crop, corners) in part.outer_iter_mut().zip(outlines) {
            geometry::sample_face(img, corners, crop);
        }
    };
    if has_two_cores() && outlines.len() >= CUT_APART {
        let half = outlines.len() / 2;
        let (first, second) = crops.view_mut().split_at(ndarray::Axis(0), half);
        std::thread::scope(|s| {
            s.spawn(|| cut(second, &outlines[half..]));
            cut(first, &outlines[..half]);
        });
    } else {
        cut(crops.view_mut(), outlines);
    }
    crops
}

/// Whether the machine has a second core, asked once: `available_parallelism` reads the
/// cgroup's files on Linux, too slow for every batch of crops.
pub(super) fn has_two_cores() -> bool {
    static TWO: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TWO.get_or_init(|| std::thread::available_parallelism().is_ok_and(|n| n.get() > 1))
}

/// The crops `picks` (indices among the `n` faces of a `cut_faces` batch, both cuts of each)
/// turned round, in the same layout.
fn turned_round(crops: &Array4<f32>, picks: &[usize], n: usize) -> Array4<f32> {
    let m = picks.len();
    let mut turned = Array4::<f32>::zeros((2 * m, 3, CROP_H, CROP_W));
    for v in 0..2 {
        for (j, &k) in picks.iter().enumerate() {
            for c in 0..3 {
                for y in 0..CROP_H {
                    for x in 0..CROP_W {
                        turned[[v * m + j, c, CROP_H - 1 - y, CROP_W - 1 - x]] =
                            crops[[v * n + k, c, y, x]];
                    }
                }
            }
        }
    }
    turned
}

/// A tile's face turned clockwise by `quarters` quarter turns within its outline: its top
/// points that many ways further round, and its top left corner moves that many corners on.
fn turned(d: &Detection, quarters: usize) -> Detection {
    const ROUND: [Orientation; 4] = [
        Orientation::Up,
        Orientation::Right,
        Orientation::Down,
        Orientation::Left,
    ];
    let at = ROUND.iter().position(|&o| o == d.orientation).unwrap_or(0);
    let c = d.corners;
    Detection {
        orientation: ROUND[(at + quarters) % 4],
        corners: std::array::from_fn(|k| c[(k + quarters) % 4]),
        ..d.clone()
    }
}

/// The face's outline grown by MARGIN about its centre, when that stays inside the photo (a
/// cut past its edge would smear the edge's pixels, and show nothing more).
fn with_margin(d: &Detection, (w, h): (u32, u32)) -> Option<[[f32; 2]; 4]> {
    let m = d.center();
    let grown = d
        .corners
        .map(|p| [m[0] + (p[0] - m[0]) * MARGIN, m[1] + (p[1] - m[1]) * MARGIN]);
    let inside =
        |p: &[f32; 2]| (0.0..=w as f32).contains(&p[0]) && (0.0..=h as f32).contains(&p[1]);
    grown.iter().all(inside).then_some(grown)
}

/// Whether the centre of box `a` lies in box `b`.
fn inside(a: &[f32; 4], b: &[f32; 4]) -> bool {
    let (cx, cy) = ((a[0] + a[2]) / 2.0, (a[1] + a[3]) / 2.0);
    cx > b[0] && cx < b[2] && cy > b[1] && cy < b[3]
}

/// A box inside a tile's box smaller than this share of its area is a part of its face (a
/// pip, a character).
const PART_SHARE: f32 = 0.5;

/// Whether box `a` is small enough beside box `b` to be a part of its face.
fn part_of(a: &[f32; 4], b: &[f32; 4]) -> bool {
    let area = |r: &[f32; 4]| (r[2] - r[0]) * (r[3] - r[1]);
    area(a) < PART_SHARE * area(b)
}

/// Whether a big box of a coarse look fits the tiles the fine look found elsewhere in the
/// `w` × `h` photo (outside every big box). Where five or more lie there and they are less
/// than 0.4 of its size, the photo's tiles are small and the big box is a row or block of them
/// seen as one. In a close-up the fine look finds only the parts of big tiles, which lie inside
/// them, and the neighbours cut by the frame, whose size in view says nothing of a tile's: those
/// touching the photo's edge are not counted.
fn fits_the_photo(
    c: &Candidate,
    fine: &[Candidate],
    big: &[Candidate],
    (w, h): (f32, f32),
) -> bool {
    if is_a_block(c, fine) {
        return false;
    }
    let mut outside: Vec<f32> = fine
        .iter()
        .filter(|f| {
            !inside(&f.bounds, &c.bounds)
                && !big.iter().any(|b| inside(&f.bounds, &b.bounds))
                && !edges::touches_edge(&f.bounds, w, h)
        })
        .map(|f| side(&f.bounds))
        .collect();
    if outside.len() < 5 {
        return true;
    }
    outside.sort_by(f32::total_cmp);
    outside[outside.len() / 2] >= 0.4 * side(&c.bounds)
}

/// The median side of the fine look's tiles when they are small and many: at least
/// SMALL_TILES_COUNT of them away from the picture's edges, the median at most
/// SMALL_TILES_SIDE of the photo's long side. A coarse look whose smallest tile (`Look::from`)
/// is bigger than that median by 1 / SMALL_TILES_SHARE (1.11) or more is not taken: a tile that big
/// among so many smaller ones is two of them seen as one, which `fits_the_photo` drops.
/// Close-ups, whose pips and strokes the fine look may find as tiles, never come here: their
/// boxes are bigger (the median over 0.125 in every `closeup-1`, `closeup-few`, `crops`,
/// `lone-new` and `few-new` look with 8 boxes or more). Session 70, the 22 evaluation sets
/// (1,738 photos, `tools/eval_photos.py`): of 5,162 passes of the finder (a photo turned is
/// looked at again), 969 leave out the three coarsest looks and 789 all four; one photo reads
/// otherwise (a leaned rf heap, exact neither way: a false tile fewer, a season misread), the
/// rest tile for tile as before. With SMALL_TILES_SHARE at 0.8 none moved, but a hand filling
/// a 640×480 frame (its tiles a tenth of the long side) kept the look from 0.12; leaving all
/// four out at a median up to 0.125 lost a photo (a turned rf photo's tiles 0.12 of its side,
/// outlined closer by that look) and moved four others.
fn typical_small_tile(fine: &[Candidate], (w, h): (f32, f32)) -> Option<f32> {
    let sides: Vec<f32> = fine
        .iter()
        .filter(|c| !edges::touches_edge(&c.bounds, w, h))
        .map(|c| side(&c.bounds))
        .collect();
    if sides.len() < SMALL_TILES_COUNT {
        return None;
    }
    let median = geometry::median(sides);
    (median <= SMALL_TILES_SIDE * w.max(h)).then_some(median)
}
const SMALL_TILES_COUNT: usize = 8;
const SMALL_TILES_SIDE: f32 = 0.125;
const SMALL_TILES_SHARE: f32 = 0.9;

/// A big box over at least BLOCK_COUNT tiles of the fine look, each smaller than BLOCK_SIDE
/// of its side (their median, measured along their own outlines), is a block of tiles seen as
/// one when they lie in a row (flatness under BLOCK_ROW) or are BLOCK_MANY or more. Measured
/// on the boxes of drawn hands of real tiles (a row of 14: a median of 0.09 to 0.11, flatness
/// under 0.14 or 14 tiles and more) and of close-ups and crops of one tile (the pips or
/// strokes the fine look may find on it: at most 11, a median of 0.1 to 0.5, flatness mostly
/// over 0.15).
const BLOCK_COUNT: usize = 5;
const BLOCK_SIDE: f32 = 0.2;
const BLOCK_ROW: f32 = 0.15;
const BLOCK_MANY: usize = 12;

/// Whether the big box `c` holds a block of the fine look's tiles, much smaller than itself.
fn is_a_block(c: &Candidate, fine: &[Candidate]) -> bool {
    small_tiles_inside(c, fine).is_some_and(|inner| {
        let centres: Vec<[f32; 2]> = inner.iter().map(|f| f.rect.centre).collect();
        inner.len() >= BLOCK_MANY || flatness(&centres) < BLOCK_ROW
    })
}

/// The fine look's boxes inside the big box `c` when they are at least BLOCK_COUNT and their
/// median side is under BLOCK_SIDE of its side: tiles much smaller than it, or the pips and
/// strokes of a big tile.
fn small_tiles_inside<'a>(c: &Candidate, fine: &'a [Candidate]) -> Option<Vec<&'a Candidate>> {
    let inner: Vec<&Candidate> = fine
        .iter()
        .filter(|f| inside(&f.bounds, &c.bounds))
        .collect();
    if inner.len() < BLOCK_COUNT {
        return None;
    }
    let sides: Vec<f32> = inner
        .iter()
        .map(|f| f.rect.along.max(f.rect.across))
        .collect();
    (geometry::median(sides) < BLOCK_SIDE * side(&c.bounds)).then_some(inner)
}

/// How far points lie from a line through them: the spread across their main axis over the
/// spread along it (0 for points on a line, 1 for points spread alike every way).
fn flatness(points: &[[f32; 2]]) -> f32 {
    let n = points.len() as f32;
    if points.len() < 2 {
        return 1.0;
    }
    let mx = points.iter().map(|p| p[0]).sum::<f32>() / n;
    let my = points.iter().map(|p| p[1]).sum::<f32>() / n;
    let (mut sxx, mut syy, mut sxy) = (0.0f32, 0.0f32, 0.0f32);
    for p in points {
        let (dx, dy) = (p[0] - mx, p[1] - my);
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    let mean = (sxx + syy) / 2.0;
    let d = (((sxx - syy) / 2.0).powi(2) + sxy * sxy).sqrt();
    let (major, minor) = (mean + d, (mean - d).max(0.0));
    if major <= 0.0 {
        1.0
    } else {
        (minor / major).sqrt()
    }
}

/// A big box read with a top face under this, over two tiles or more of the fine look, is
/// those tiles seen as one.
const WEAK_OVER_TILES: f32 = 0.5;
/// Boxes of the fine look inside a big one, each at least this share of its area and
/// together at least TILES_FILL of it, are tiles of their own, not pips or characters of it
/// (two tiles seen as one: each about half the box; a row of four flowers seen as one: each
/// about a fifth, held in `tools/real_hands.py --seed 1`; the pips of a 2p fill less).
const TILE_SHARE: f32 = 1.0 / 6.0;
const TILES_FILL: f32 = 0.6;

/// Whether the big box `c` of a coarse look is tiles of the fine look seen as one, in a
/// photo whose long side is `long`: read `weak`ly (no sure face, or face down) over two or
/// more tiles filling it, or over many much smaller (`small_tiles_inside`: a standing row and
/// a meld in front of it on a pale table, `tools/real_hands.py --seat --turned` seed 8); over
/// three or more however read where the fine look sees tiles that big (under FINE_MAX_SHARE).
fn tiles_seen_as_one(c: &Candidate, fine: &[Candidate], weak: bool, long: f32) -> bool {
    let tiles = tiles_covered(c, fine);
    let small = side(&c.bounds) < FINE_MAX_SHARE * long;
    (weak && (tiles >= 2 || small_tiles_inside(c, fine).is_some())) || (small && tiles >= 3)
}

/// How many of the fine look's boxes inside the big box `c` are tiles of their own
/// (TILE_SHARE, TILES_FILL); 0 when they do not fill it.
fn tiles_covered(c: &Candidate, fine: &[Candidate]) -> usize {
    let area = |r: &[f32; 4]| (r[2] - r[0]) * (r[3] - r[1]);
    let big = area(&c.bounds);
    let tiles: Vec<f32> = fine
        .iter()
        .filter(|f| inside(&f.bounds, &c.bounds))
        .map(|f| area(&f.bounds))
        .filter(|&a| a >= TILE_SHARE * big)
        .collect();
    if tiles.iter().sum::<f32>() >= TILES_FILL * big {
        tiles.len()
    } else {
        0
    }
}

/// Drops what the fine look saw inside a big tile of a coarse look: its pips and characters.
/// A big box that a surer tile of the fine look (not one of its parts) overlaps is dropped by
/// `suppress` anyway, and drops nothing: a box over a tile and a half of a row must not take
/// the tile it half covers with it (a real hand's 1p lost, `tools/real_hands.py --seed 2`).
fn drop_parts(fine: &mut Vec<Candidate>, coarse: &[Candidate]) {
    let is_part = |f: &Candidate, c: &Candidate| {
        inside(&f.bounds, &c.bounds) && part_of(&f.bounds, &c.bounds)
    };
    let outdone = |c: &Candidate| {
        fine.iter()
            .any(|f| f.det.score > c.det.score && !is_part(f, c) && overlaps(&f.bounds, &c.bounds))
    };
    let standing: Vec<&Candidate> = coarse.iter().filter(|c| !outdone(c)).collect();
    fine.retain(|f| !standing.iter().any(|c| is_part(f, c)));
}

/// Whether two boxes overlap as much as `suppress` lets one of them go.
fn overlaps(a: &[f32; 4], b: &[f32; 4]) -> bool {
    iou(a, b) >= 0.5 || covered(a, b) >= 0.5
}

/// Whether a photo whose long side is `long`, where the fine look found `fine`, gets a closer
/// look: a phone photo, a few tiles found, the typical one small.
fn wants_closer_look(fine: &[Candidate], long: f32) -> bool {
    let mut sides: Vec<f32> = fine.iter().map(|c| side(&c.bounds)).collect();
    sides.sort_by(f32::total_cmp);
    let Some(&typical) = sides.get(sides.len() / 2) else {
        return false;
    };
    long >= CLOSER_FROM as f32
        && fine.len() >= CLOSER_AMONG
        && typical * LONG_SIDE as f32 / long < CLOSER_BELOW
}

/// Whether the fine look saw something face up where it found no tile, too weakly to find it.
fn unsure_of_more(fine: &[Candidate], doubts: &[Candidate]) -> bool {
    doubts
        .iter()
        .any(|d| !d.det.face_down && fine.iter().all(|f| !overlaps(&d.bounds, &f.bounds)))
}

/// The part of the closer look's input it looks at: the bounds of the tiles the fine look
/// found, grown on every side by CLOSER_REACH of the typical one's long side, scaled by `s`
/// into the input of `size` where the photo lies at `at`, and cut on the input's grid of
/// ALIGN. The tiles it is for lie beside those found (a row's end tile, a meld in front of a
/// row); the rest of the photo costs the finder's time alone.
fn closer_window(fine: &[Candidate], s: f32, at: (u32, u32), size: (u32, u32)) -> [u32; 4] {
    let mut sides: Vec<f32> = fine.iter().map(|c| side(&c.bounds)).collect();
    sides.sort_by(f32::total_cmp);
    let reach = sides
        .get(sides.len() / 2)
        .map_or(f32::INFINITY, |t| t * CLOSER_REACH);
    let mut b = [
        f32::INFINITY,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NEG_INFINITY,
    ];
    for c in fine {
        for k in 0..2 {
            b[k] = b[k].min(c.bounds[k]);
            b[k + 2] = b[k + 2].max(c.bounds[k + 2]);
        }
    }
    let input = |v: f32, at: u32, max: u32| (v * s + at as f32).clamp(0.0, max as f32);
    let start = |v: f32, at: u32, max: u32| (input(v, at, max) as u32) / ALIGN * ALIGN;
    let end = |v: f32, at: u32, max: u32| (input(v, at, max).ceil() as u32).div_ceil(ALIGN) * ALIGN;
    [
        start(b[0] - reach, at.0, size.0),
        start(b[1] - reach, at.1, size.1),
        end(b[2] + reach, at.0, size.0).min(size.0),
        end(b[3] + reach, at.1, size.1).min(size.1),
    ]
}

/// The long side of a box.
fn side(b: &[f32; 4]) -> f32 {
    (b[2] - b[0]).max(b[3] - b[1])
}

/// Local maxima (3×3) of the heat maps at or above `min_score`: (channel, y, x, heat).
fn peaks(heat: &ArrayD<f32>, min_score: f32) -> Vec<(usize, usize, usize, f32)> {
    let (gh, gw) = (heat.shape()[2], heat.shape()[3]);
    let mut out = Vec::new();
    for ch in 0..2 {
        for gy in 0..gh {
            for gx in 0..gw {
                let v = heat[[0, ch, gy, gx]];
                if v < min_score {
                    continue;
                }
                let higher = (gy.saturating_sub(1)..(gy + 2).min(gh)).any(|yy| {
                    (gx.saturating_sub(1)..(gx + 2).min(gw))
                        .any(|xx| (yy, xx) != (gy, gx) && heat[[0, ch, yy, xx]] > v)
                });
                if !higher {
                    out.push((ch, gy, gx, v));
                }
            }
        }
    }
    out
}

/// Overlapping boxes (a tile seen as both face up and face down, a sideways tile seen also as
/// an upright one inside it, a tile seen by both looks): the stronger is kept.
fn suppress(mut found: Vec<Candidate>) -> Vec<Candidate> {
    found.sort_by(|a, b| b.det.score.total_cmp(&a.det.score));
    let mut kept: Vec<Candidate> = Vec::new();
    for f in found {
        if kept.iter().all(|k| !overlaps(&f.bounds, &k.bounds)) {
            kept.push(f);
        }
    }
    kept
}

/// Each tile's orientation, by the finder's four probabilities checked against the shape of
/// its turned box (which a slanted photo does not square up as it does upright boxes); the
/// outline then follows it.
fn orient(found: Vec<Candidate>, w: f32, h: f32) -> Oriented {
    let turned = turns(
        &found
            .iter()
            .map(|c| Seen {
                centre: c.rect.centre,
                angle: c.rect.angle,
                sides: [c.rect.along, c.rect.across],
                turn: c.turn,
            })
            .collect::<Vec<_>>(),
    );
    let low = turned.iter().map(|t| t.1).collect();
    let tiles = found
        .into_iter()
        .zip(turned)
        .map(|(c, (o, _))| {
            let mut d = c.det;
            d.orientation = o;
            d.corners = c
                .rect
                .corners(o)
                .map(|p| [p[0].clamp(0.0, w), p[1].clamp(0.0, h)]);
            d
        })
        .collect();
    Oriented { tiles, low }
}

/// Found tiles turned the way they read (`orient`), and for each whether it was left upright
/// in a row lying low (where its face may read better across the row).
struct Oriented {
    tiles: Vec<Detection>,
    low: Vec<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(b: [f32; 4], score: f32) -> Candidate {
        let rect = Rect {
            centre: [(b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0],
            angle: 0.0,
            along: b[2] - b[0],
            across: b[3] - b[1],
        };
        Candidate {
            det: Detection {
                corners: rect.corners(Orientation::Up),
                score,
                face_down: false,
                orientation: Orientation::Up,
                probs: Vec::new(),
            },
            bounds: b,
            turn: [1.0, 0.0, 0.0, 0.0],
            rect,
        }
    }

    #[test]
    fn the_pips_of_a_big_tile_are_dropped_and_its_neighbours_kept() {
        // A close-up: one tile 300×400; the fine look saw its four pips, and a neighbour.
        let big = cand([100.0, 100.0, 400.0, 500.0], 0.8);
        let mut fine = vec![
            cand([130.0, 140.0, 230.0, 240.0], 0.9),
            cand([270.0, 140.0, 370.0, 240.0], 0.9),
            cand([130.0, 340.0, 230.0, 440.0], 0.9),
            cand([270.0, 340.0, 370.0, 440.0], 0.9),
            cand([410.0, 100.0, 700.0, 500.0], 0.9),
        ];
        drop_parts(&mut fine, &[big]);
        assert_eq!(fine.len(), 1);
        assert_eq!(fine[0].bounds[0], 410.0);
    }

    #[test]
    fn a_big_box_over_a_tile_and_a_half_drops_no_tile() {
        // Three 1p in a slanted row (a real hand); the coarse look saw a box over the middle
        // one and half of the next, weaker than the next, which `suppress` lets go anyway.
        let big = cand([160.0, 237.0, 284.0, 350.0], 0.51);
        let mut fine = vec![
            cand([103.0, 229.0, 194.0, 305.0], 0.90),
            cand([167.0, 247.0, 246.0, 330.0], 0.81),
            cand([216.0, 266.0, 300.0, 360.0], 0.87),
        ];
        drop_parts(&mut fine, std::slice::from_ref(&big));
        assert_eq!(
            fine.len(),
            3,
            "the middle tile was taken for a part of the box"
        );
        // Stronger than its neighbours, the same box is a tile and its parts go.
        let strong = cand([160.0, 237.0, 284.0, 350.0], 0.95);
        drop_parts(&mut fine, &[strong]);
        assert_eq!(fine.len(), 2);
    }

    #[test]
    fn a_margin_grows_the_outline_about_its_centre_inside_the_photo_only() {
        let c = cand([10.0, 20.0, 50.0, 70.0], 0.9).det;
        let g = with_margin(&c, (100, 100)).expect("inside the photo");
        let (dw, dh) = (40.0 * (MARGIN - 1.0) / 2.0, 50.0 * (MARGIN - 1.0) / 2.0);
        assert!((g[0][0] - (10.0 - dw)).abs() < 1e-4 && (g[0][1] - (20.0 - dh)).abs() < 1e-4);
        assert!((g[2][0] - (50.0 + dw)).abs() < 1e-4 && (g[2][1] - (70.0 + dh)).abs() < 1e-4);
        // A tile touching the photo's edge is cut along its outline only.
        let edge = cand([0.0, 20.0, 40.0, 70.0], 0.9).det;
        assert!(with_margin(&edge, (100, 100)).is_none());
    }

    /// `fits_the_photo` in a photo big enough that no box comes near its edge.
    fn fits(c: &Candidate, fine: &[Candidate], big: &[Candidate]) -> bool {
        let away = |x: &Candidate| cand(x.bounds.map(|v| v + 1000.0), x.det.score);
        let fine: Vec<Candidate> = fine.iter().map(away).collect();
        let big: Vec<Candidate> = big.iter().map(away).collect();
        fits_the_photo(&away(c), &fine, &big, (4000.0, 4000.0))
    }

    #[test]
    fn the_neighbours_cut_by_a_close_ups_frame_say_nothing_of_its_tiles_size() {
        // A 1333×1600 close-up of a tile 670×880, and five parts of its neighbours cut by the
        // frame (about 200 pixels in view) that the fine look found all round it.
        let tile = cand([350.0, 380.0, 1020.0, 1260.0], 0.96);
        let cut = [
            cand([0.0, 0.0, 230.0, 260.0], 0.6),
            cand([1100.0, 0.0, 1333.0, 296.0], 0.3),
            cand([1200.0, 620.0, 1333.0, 785.0], 0.3),
            cand([530.0, 1406.0, 797.0, 1600.0], 0.3),
            cand([1090.0, 1407.0, 1333.0, 1600.0], 0.45),
        ];
        assert!(fits_the_photo(
            &tile,
            &cut,
            std::slice::from_ref(&tile),
            (1333.0, 1600.0)
        ));
        // The same five wholly in view, in a bigger photo, are five small tiles: the big box
        // does not fit it.
        assert!(!fits(&tile, &cut, std::slice::from_ref(&tile)));
    }

    #[test]
    fn a_big_box_over_a_row_of_small_tiles_does_not_fit_the_photo() {
        // A row of twelve tiles 40×60; a coarse look saw five of them as one big box.
        let row: Vec<Candidate> = (0..12)
            .map(|k| cand([k as f32 * 42.0, 0.0, k as f32 * 42.0 + 40.0, 60.0], 0.9))
            .collect();
        let big = cand([160.0, -40.0, 380.0, 150.0], 0.7);
        assert!(!fits(&big, &row, std::slice::from_ref(&big)));
        // A close-up: the fine look found only two small things outside the big tile...
        assert!(fits(&big, &row[..4], std::slice::from_ref(&big)));
        // ...or its small things lie inside other big tiles.
        let others = [
            big.clone(),
            cand([0.0, -40.0, 159.0, 150.0], 0.7),
            cand([381.0, -40.0, 600.0, 150.0], 0.7),
        ];
        assert!(fits(&big, &row, &others));
    }

    #[test]
    fn a_box_over_a_whole_hand_is_a_block_and_the_pips_of_a_close_up_are_not() {
        // Fourteen tiles 40×60 in a row, and one box over all of them.
        let row: Vec<Candidate> = (0..14)
            .map(|k| cand([k as f32 * 42.0, 0.0, k as f32 * 42.0 + 40.0, 60.0], 0.9))
            .collect();
        let hand = cand([0.0, -20.0, 590.0, 80.0], 0.7);
        assert!(!fits(&hand, &row, std::slice::from_ref(&hand)));
        // One tile 300×400 with its nine pips (60 pixels each) found by the fine look: small,
        // but not in a row.
        let pips: Vec<Candidate> = (0..9)
            .map(|k| {
                let (x, y) = (30.0 + 100.0 * (k % 3) as f32, 50.0 + 120.0 * (k / 3) as f32);
                cand([x, y, x + 60.0, y + 60.0], 0.6)
            })
            .collect();
        let tile = cand([0.0, 0.0, 300.0, 400.0], 0.8);
        assert!(fits(&tile, &pips, std::slice::from_ref(&tile)));
        // The same pips in one column are a row.
        let column: Vec<Candidate> = (0..6)
            .map(|k| {
                cand(
                    [120.0, 10.0 + 64.0 * k as f32, 180.0, 70.0 + 64.0 * k as f32],
                    0.6,
                )
            })
            .collect();
        assert!(!fits(&tile, &column, std::slice::from_ref(&tile)));
    }

    /// `n` boxes of the fine look (score 0.8) of `size`, the first at `from`, `pitch` apart
    /// along x.
    fn side_by_side(n: usize, from: [f32; 2], pitch: f32, size: [f32; 2]) -> Vec<Candidate> {
        (0..n)
            .map(|k| {
                let x = from[0] + pitch * k as f32;
                cand([x, from[1], x + size[0], from[1] + size[1]], 0.8)
            })
            .collect()
    }

    /// A close-up's tile 300×400 and its four pips (80 pixels each) as the fine look sees them.
    fn a_tile_and_four_pips() -> (Candidate, Vec<Candidate>) {
        let pips = (0..4)
            .map(|k| {
                let (x, y) = (40.0 + 140.0 * (k % 2) as f32, 60.0 + 180.0 * (k / 2) as f32);
                cand([x, y, x + 80.0, y + 80.0], 0.6)
            })
            .collect();
        (cand([0.0, 0.0, 300.0, 400.0], 0.8), pips)
    }

    #[test]
    fn a_big_box_over_two_tiles_covers_them_and_one_over_its_pips_does_not() {
        let pair = cand([0.0, 0.0, 200.0, 140.0], 0.7);
        let two = [
            cand([2.0, 2.0, 98.0, 138.0], 0.9),
            cand([102.0, 2.0, 198.0, 138.0], 0.9),
        ];
        assert_eq!(tiles_covered(&pair, &two), 2);
        assert_eq!(tiles_covered(&pair, &two[..1]), 0);
        let (tile, pips) = a_tile_and_four_pips();
        assert_eq!(tiles_covered(&tile, &pips), 0);
        // A row of four flowers seen as one box: each a fifth of it, together most of it.
        let row = cand([0.0, 0.0, 250.0, 80.0], 0.6);
        let four = side_by_side(4, [4.0, 6.0], 62.0, [56.0, 70.0]);
        assert_eq!(tiles_covered(&row, &four), 4);
        // A meld lying low seen as one box: three tiles, a third of it each.
        let meld = cand([0.0, 0.0, 300.0, 110.0], 0.9);
        let three = side_by_side(3, [2.0, 4.0], 100.0, [96.0, 102.0]);
        assert_eq!(tiles_covered(&meld, &three), 3);
        // Two big pips of a 2p, a fifth of the tile each, are not tiles of their own.
        let two_pips = [
            cand([60.0, 40.0, 240.0, 160.0], 0.6),
            cand([60.0, 240.0, 240.0, 360.0], 0.6),
        ];
        assert_eq!(tiles_covered(&tile, &two_pips), 0);
    }

    #[test]
    fn a_weak_box_over_a_row_and_a_meld_is_those_tiles_and_a_weak_tile_over_its_pips_is_not() {
        // Eight tiles of a standing row and two of a meld in front, 200×250 each, in a box
        // 1700×800 of a 4000-pixel photo: neither a row alone nor twelve.
        let mut fine = side_by_side(8, [1250.0, 1300.0], 220.0, [200.0, 250.0]);
        fine.extend(side_by_side(2, [1350.0, 1620.0], 280.0, [260.0, 180.0]));
        let big = cand([1230.0, 1020.0, 2930.0, 1820.0], 0.52);
        assert!(!is_a_block(&big, &fine));
        assert!(tiles_seen_as_one(&big, &fine, true, 4000.0));
        assert!(!tiles_seen_as_one(&big, &fine, false, 4000.0));
        // A close-up of one tile read weakly, over its four pips: the pips are not tiles.
        let (tile, pips) = a_tile_and_four_pips();
        assert!(!tiles_seen_as_one(&tile, &pips, true, 400.0));
    }

    #[test]
    fn a_hand_of_small_tiles_is_told_from_a_close_up_and_from_a_few_tiles() {
        // A 640×480 frame of a hand: 14 tiles 44×64, a tenth of the long side.
        let hand = side_by_side(14, [10.0, 200.0], 44.0, [44.0, 64.0]);
        let typical = typical_small_tile(&hand, (640.0, 480.0));
        assert_eq!(typical, Some(64.0));
        // No coarse look is taken: the smallest tile they look for is 0.12 × 640 = 77 pixels.
        let taken = |t: Option<f32>, long: f32| {
            COARSE_LOOKS
                .iter()
                .filter(|l| l.wanted_beside(t, long))
                .count()
        };
        assert_eq!(taken(typical, 640.0), 0);
        assert_eq!(taken(None, 640.0), COARSE_LOOKS.len());
        // Tiles of 75 pixels: the look for tiles from 77 is taken, not those from 192 up.
        let closer = side_by_side(12, [10.0, 200.0], 51.0, [51.0, 75.0]);
        assert_eq!(taken(typical_small_tile(&closer, (640.0, 480.0)), 640.0), 1);
        // The same hand seen further off (1280×720 with its tiles 60 pixels tall): none.
        let far = side_by_side(14, [100.0, 300.0], 42.0, [42.0, 60.0]);
        let typical = typical_small_tile(&far, (1280.0, 720.0));
        assert_eq!(typical, Some(60.0));
        assert_eq!(taken(typical, 1280.0), 0);
        // Seven tiles are too few to say.
        assert_eq!(typical_small_tile(&hand[..7], (640.0, 480.0)), None);
        // Tiles a fifth of the long side: a close-up of a few; bigger ones may be missed.
        let big = side_by_side(9, [10.0, 100.0], 70.0, [70.0, 128.0]);
        assert_eq!(typical_small_tile(&big, (640.0, 480.0)), None);
        // A row along the picture's top edge: only the tiles inside it count.
        let cut = side_by_side(9, [0.0, 0.0], 44.0, [44.0, 64.0]);
        assert_eq!(typical_small_tile(&cut, (640.0, 480.0)), None);
        // The four pips of a tile filling the frame.
        let (_, pips) = a_tile_and_four_pips();
        assert_eq!(typical_small_tile(&pips, (400.0, 500.0)), None);
    }

    #[test]
    fn a_turn_gives_the_outline_of_the_face_turned_each_way() {
        let rect = Rect {
            centre: [50.0, 40.0],
            angle: 0.2,
            along: 60.0,
            across: 30.0,
        };
        let d = Detection {
            corners: rect.corners(Orientation::Up),
            score: 0.9,
            face_down: false,
            orientation: Orientation::Up,
            probs: vec![0.5],
        };
        let right = turned(&d, 1);
        assert_eq!(right.orientation, Orientation::Right);
        assert_eq!(right.corners, rect.corners(Orientation::Right));
        let left = turned(&d, 3);
        assert_eq!(left.orientation, Orientation::Left);
        assert_eq!(left.corners, rect.corners(Orientation::Left));
        let down = turned(&right, 1);
        assert_eq!(down.corners, rect.corners(Orientation::Down));
        assert_eq!(turned(&down, 1).orientation, Orientation::Left);
        assert_eq!(right.probs, d.probs);
    }

    #[test]
    fn flatness_is_zero_on_a_line_and_one_on_a_square() {
        assert!(flatness(&[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]) < 1e-3);
        let square = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
        assert!((flatness(&square) - 1.0).abs() < 1e-3);
        assert_eq!(flatness(&[[5.0, 5.0]]), 1.0);
    }

    #[test]
    fn of_two_boxes_on_one_tile_the_stronger_is_kept() {
        let kept = suppress(vec![
            cand([0.0, 0.0, 100.0, 130.0], 0.6),
            cand([5.0, 5.0, 105.0, 135.0], 0.9),
            cand([120.0, 0.0, 220.0, 130.0], 0.7),
        ]);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].det.score, 0.9);
    }

    #[test]
    fn a_closer_look_is_for_big_photos_of_a_few_small_tiles() {
        // Tiles 120 pixels long in a 3000-pixel photo: 17 pixels in the fine look.
        let row = side_by_side(5, [200.0, 400.0], 125.0, [120.0, 120.0 / 0.75]);
        assert!(wants_closer_look(&row, 3000.0));
        // Two tiles are not enough; nothing found, nothing to look closer for.
        assert!(!wants_closer_look(&row[..2], 3000.0));
        assert!(!wants_closer_look(&[], 3000.0));
        // The same tiles in a 1000-pixel photo are 50 pixels there: big enough.
        assert!(!wants_closer_look(&row, 1000.0));
        // A video frame of 1280×720 is not looked at closer, however small its tiles.
        let small = side_by_side(5, [10.0, 10.0], 30.0, [25.0, 33.0]);
        assert!(!wants_closer_look(&small, 1280.0));
        assert!(wants_closer_look(&small, 1700.0));
    }

    #[test]
    fn a_closer_look_needs_a_doubt_where_no_tile_was_found() {
        let row = side_by_side(5, [200.0, 400.0], 125.0, [120.0, 120.0 / 0.75]);
        // A weak peak on a tile found is that tile; none at all, nothing to look for.
        let on_a_tile = cand(row[2].bounds, 0.2);
        assert!(!unsure_of_more(&row, &[on_a_tile]));
        assert!(!unsure_of_more(&row, &[]));
        // A weak peak where a sixth tile would end the row is worth a closer look ...
        let end = side_by_side(1, [200.0 + 5.0 * 125.0, 400.0], 125.0, [120.0, 160.0]);
        let mut weak_end = end[0].clone();
        weak_end.det.score = 0.15;
        assert!(unsure_of_more(&row, std::slice::from_ref(&weak_end)));
        // ... but not a weak back: the closer look keeps faces only.
        weak_end.det.face_down = true;
        assert!(!unsure_of_more(&row, &[weak_end]));
    }

    #[test]
    fn the_closer_look_looks_round_the_tiles_found() {
        // Five tiles 120×160 from (200, 400) to (820, 560) in a 3000×2000 photo, looked at
        // closer at a quarter (750×500, centred in an input of 768×512 at (9, 6)): three tile
        // lengths (480 pixels) round them, cut on the input's grid of 32.
        let row = side_by_side(5, [200.0, 400.0], 125.0, [120.0, 160.0]);
        let window = closer_window(&row, 0.25, (9, 6), (768, 512));
        // 1300 × 0.25 + 9 = 334 → 352; 1040 × 0.25 + 6 = 266 → 288.
        assert_eq!(window, [0, 0, 352, 288]);
        // A row in the middle: (1200, 900) − 480 → 189, 111 → 160, 96.
        let mid = side_by_side(5, [1200.0, 900.0], 125.0, [120.0, 160.0]);
        assert_eq!(
            closer_window(&mid, 0.25, (9, 6), (768, 512)),
            [160, 96, 608, 416]
        );
        // Reaching past the input's end stops there.
        let right = side_by_side(5, [2300.0, 1700.0], 125.0, [120.0, 160.0]);
        let [_, _, x1, y1] = closer_window(&right, 0.25, (9, 6), (768, 512));
        assert_eq!((x1, y1), (768, 512));
    }

    #[test]
    fn peaks_are_local_maxima_above_the_threshold() {
        let mut heat = ArrayD::<f32>::zeros(vec![1, 2, 5, 5]);
        heat[[0, 0, 2, 2]] = 0.9;
        heat[[0, 0, 2, 3]] = 0.5; // beside a higher one: no peak
        heat[[0, 1, 0, 0]] = 0.4;
        heat[[0, 1, 4, 4]] = 0.2; // under the threshold
        let p = peaks(&heat, 0.3);
        assert_eq!(p, vec![(0, 2, 2, 0.9), (1, 0, 0, 0.4)]);
    }

    fn reading(class: usize, p: f32) -> Vec<f32> {
        let mut faces = vec![0.01; CLASS_COUNT];
        faces[class] = p;
        faces
    }

    /// One grid cell's maps with the turn given as `orient` (logits or probabilities).
    fn one_cell_maps(orient: [f32; 4], orient_logits: bool) -> FinderMaps {
        let map = |c: usize, v: &[f32]| ArrayD::from_shape_vec(vec![1, c, 1, 1], v.to_vec());
        FinderMaps {
            heat: map(2, &[0.9, 0.0]).unwrap(),
            boxes: map(4, &[1.0, 1.5, 0.5, 0.5]).unwrap(),
            orient: map(4, &orient).unwrap(),
            orient_logits,
            rbox: None,
        }
    }

    #[test]
    fn a_slim_finders_turn_scores_give_the_probabilities_an_older_finder_gives() {
        let lb = Letterbox {
            s: 1.0,
            px: 0.0,
            py: 0.0,
            grid_w: 1,
            grid_h: 1,
        };
        let logits = [2.0_f32, -1.0, 0.5, 3.0];
        let e = logits.map(f32::exp);
        let total: f32 = e.iter().sum();
        let probs = e.map(|v| v / total);
        let turn = |maps: FinderMaps| {
            maps.check(&lb).unwrap();
            maps.candidate(&lb, (100.0, 100.0), (0, 0), false, 0.9)
                .unwrap()
                .turn
        };
        let slim = turn(one_cell_maps(logits, true));
        let old = turn(one_cell_maps(probs, false));
        for (a, b) in slim.iter().zip(&old) {
            assert!((a - b).abs() < 1e-6, "{slim:?} against {old:?}");
        }
        assert!((slim.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        // Scores far apart give no overflow: the likeliest turn takes it all.
        let sure = one_cell_maps([400.0, 0.0, -400.0, 0.0], true).turn(0, 0);
        assert_eq!(sure, [1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn a_flower_read_upright_turns_round_only_for_a_much_surer_reading() {
        let (s3, one_s, nine_m) = (40, 18, 8);
        // lone-new 0028 (session 46): an autumn read 0.54 upright, as 1s at 0.75 turned round.
        assert!(!turned_wins(
            &reading(s3, 0.54),
            &reading(one_s, 0.75),
            false
        ));
        assert!(turned_wins(&reading(s3, 0.3), &reading(one_s, 0.75), false));
        // A suit tile needs less; a sideways one turns for any better reading.
        assert!(turned_wins(
            &reading(nine_m, 0.54),
            &reading(nine_m, 0.75),
            false
        ));
        assert!(!turned_wins(
            &reading(nine_m, 0.54),
            &reading(nine_m, 0.65),
            false
        ));
        assert!(turned_wins(&reading(s3, 0.54), &reading(one_s, 0.55), true));
        // Read as the same flower either way, the surer way wins as for any face.
        assert!(turned_wins(&reading(s3, 0.3), &reading(s3, 0.5), false));
    }
}

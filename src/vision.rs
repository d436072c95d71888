//! Tiles in a photo: the two ONNX models of `models/` run with ONNX Runtime.
//!
//! 1. `tile_finder.onnx` looks at the photo scaled to 416 pixels on its long side (padded
//!    grey to multiples of 32) and gives, on a grid of stride 4: a centre heat map for face-up
//!    and face-down tiles, box sizes and centre offsets, the orientation of each face, and the
//!    face as a turned rectangle (its angle within ±45° and its two sides). Peaks become turned
//!    outlines in source pixels; the letterbox never leaves this module.
//! 2. `tile_classifier.onnx` reads each face-up tile, sampled from the full-resolution photo
//!    along the face's own axes (so a slanted tile is read straight, 64×48), and gives
//!    probabilities over the 42 faces. Unsure and sideways tiles are also read turned round;
//!    the more confident reading wins, which corrects up/down confusions.
//!
//! ONNX Runtime is loaded at run time from `libonnxruntime.so` (the PyPI wheel
//! `onnxruntime==1.31.1`): from `--onnxruntime`, `ORT_DYLIB_PATH`, the folder `install-onnxruntime`
//! fills, or the Python environment.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use image::{DynamicImage, ImageDecoder, ImageReader, RgbImage, imageops};
use ndarray::Array4;
use ort::session::Session;
use ort::value::TensorRef;

use crate::detection::{CLASS_COUNT, Detection, Orientation};

/// The models, embedded so that `suanfan scan` works from any folder.
const FINDER: &[u8] = include_bytes!("../models/tile_finder.onnx");
const CLASSIFIER: &[u8] = include_bytes!("../models/tile_classifier.onnx");

/// The finder sees the photo scaled to this many pixels on its long side. It was trained on
/// 320-pixel scenes; 416 reads dense rows (18 tiles across) that 320 partly misses.
const LONG_SIDE: u32 = 416;
/// The finder's input sides are padded to a multiple of this (its deepest stride is 16).
const ALIGN: u32 = 32;
const STRIDE: f32 = 4.0;
const CROP_H: usize = 64;
const CROP_W: usize = 48;
/// Photos larger than this many pixels are refused (memory stays bounded).
pub const MAX_PIXELS: u64 = 80_000_000;
/// The ONNX Runtime library the project is built and tested with.
pub const ORT_LIBRARY: &str = "libonnxruntime.so.1.31.1";

/// Why recognition could not run.
#[derive(Debug)]
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

fn install_hint() -> String {
    format!(
        "install it with `tools/install-onnxruntime.sh` (puts {ORT_LIBRARY} from the PyPI wheel onnxruntime==1.31.1 in ~/.local/share/suanfan), \
         or `pip install onnxruntime==1.31.1`, or pass --onnxruntime PATH, or set ORT_DYLIB_PATH"
    )
}

/// Where to look for ONNX Runtime, in order.
pub fn find_onnxruntime(explicit: Option<&Path>) -> Result<PathBuf, VisionError> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(VisionError::Runtime(format!(
                "{} does not exist; {}",
                p.display(),
                install_hint()
            )))
        };
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("ORT_DYLIB_PATH") {
        candidates.push(PathBuf::from(p));
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            candidates.push(dir.join(ORT_LIBRARY));
            candidates.push(dir.join("lib").join(ORT_LIBRARY));
        }
    }
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(
            PathBuf::from(home)
                .join(".local/share/suanfan")
                .join(ORT_LIBRARY),
        );
    }
    if let Some(p) = candidates.iter().find(|p| p.is_file()) {
        return Ok(p.clone());
    }
    // The Python environment, last (it costs a process start).
    for python in ["python3", "python"] {
        if let Ok(out) = std::process::Command::new(python)
            .args([
                "-c",
                "import onnxruntime, os; print(os.path.dirname(onnxruntime.__file__))",
            ])
            .output()
        {
            if out.status.success() {
                let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("capi");
                let p = dir.join(ORT_LIBRARY);
                if p.is_file() {
                    return Ok(p);
                }
            }
        }
    }
    Err(VisionError::Runtime(format!(
        "{ORT_LIBRARY} not found; {}",
        install_hint()
    )))
}

/// Settings for recognition.
#[derive(Clone, Debug)]
pub struct VisionConfig {
    pub onnxruntime: Option<PathBuf>,
    /// Replace the embedded models.
    pub finder_model: Option<PathBuf>,
    pub classifier_model: Option<PathBuf>,
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
            threads: 2,
            min_score: 0.3,
        }
    }
}

/// A reading less confident than this is tried again with the crop turned round.
const UNSURE: f32 = 0.6;
/// An upright tile's reading turned round must beat the first by this much to win.
const TURN_MARGIN: f32 = 0.15;

fn max(v: &[f32]) -> f32 {
    v.iter().copied().fold(0.0f32, f32::max)
}

/// Time spent in each step, in milliseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    pub finder: f64,
    pub crops: f64,
    pub classifier: f64,
}

/// The loaded models.
pub struct Recognizer {
    finder: Session,
    classifier: Session,
    cfg: VisionConfig,
    input: Array4<f32>,
}

impl fmt::Debug for Recognizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recognizer")
            .field("cfg", &self.cfg)
            .finish()
    }
}

fn model_err(e: impl fmt::Display) -> VisionError {
    VisionError::Model(e.to_string())
}

impl Recognizer {
    /// Loads ONNX Runtime and both models, and warms them up once.
    pub fn new(cfg: VisionConfig) -> Result<Recognizer, VisionError> {
        let lib = find_onnxruntime(cfg.onnxruntime.as_deref())?;
        let env = ort::init_from(&lib)
            .map_err(|e| {
                VisionError::Runtime(format!(
                    "cannot load {}: {e}; {}",
                    lib.display(),
                    install_hint()
                ))
            })?
            .with_name("suanfan")
            .build()
            .map_err(|e| {
                VisionError::Runtime(format!(
                    "cannot start ONNX Runtime from {}: {e}",
                    lib.display()
                ))
            })?;
        let load =
            |bytes: &[u8], path: &Option<PathBuf>, what: &str| -> Result<Session, VisionError> {
                let owned;
                let data = match path {
                    Some(p) => {
                        owned = std::fs::read(p)
                            .map_err(|e| VisionError::Model(format!("{}: {e}", p.display())))?;
                        &owned[..]
                    }
                    None => bytes,
                };
                Session::builder(&env)
                    .map_err(model_err)?
                    .with_intra_threads(cfg.threads.max(1))
                    .map_err(|e| model_err(e.to_string()))?
                    // The two sessions run one after the other: threads of one left spinning
                    // would take the cores from the other (measured: classifier 22 → 10 ms,
                    // finder 16 → 6 ms on 2 cores).
                    .with_intra_op_spinning(false)
                    .map_err(|e| model_err(e.to_string()))?
                    .commit_from_memory(data)
                    .map_err(|e| VisionError::Model(format!("{what}: {e}")))
            };
        let finder = load(FINDER, &cfg.finder_model, "tile finder")?;
        let classifier = load(CLASSIFIER, &cfg.classifier_model, "tile classifier")?;
        let mut r = Recognizer {
            finder,
            classifier,
            cfg,
            input: Array4::zeros((1, 3, LONG_SIDE as usize, LONG_SIDE as usize)),
        };
        // Warm up: the first run allocates.
        let blank = RgbImage::from_pixel(64, 64, image::Rgb([120, 120, 120]));
        r.detect(&blank)?;
        Ok(r)
    }

    /// Finds and reads every tile of a photo.
    pub fn detect(&mut self, img: &RgbImage) -> Result<(Vec<Detection>, Timings), VisionError> {
        let mut t = Timings::default();
        let t0 = Instant::now();
        let (w, h) = img.dimensions();
        if w == 0 || h == 0 {
            return Ok((Vec::new(), t));
        }
        // Letterbox: scale the long side to LONG_SIDE, pad grey to multiples of ALIGN.
        let s = LONG_SIDE as f32 / w.max(h) as f32;
        let (nw, nh) = (
            ((w as f32 * s).round() as u32).clamp(1, LONG_SIDE),
            ((h as f32 * s).round() as u32).clamp(1, LONG_SIDE),
        );
        let (iw, ih) = (nw.div_ceil(ALIGN) * ALIGN, nh.div_ceil(ALIGN) * ALIGN);
        let shape = [1, 3, ih as usize, iw as usize];
        if self.input.shape() != shape {
            // A new frame size (a webcam keeps one, so this happens once).
            self.input = Array4::zeros(shape);
        }
        let small = if w.max(h) >= 2 * LONG_SIDE {
            // Shrinking by 2 or more: an area average is smooth enough and several times
            // faster than `resize` (21 ms → a few for a 1280×960 frame).
            imageops::thumbnail(img, nw, nh)
        } else {
            imageops::resize(img, nw, nh, imageops::FilterType::Triangle)
        };
        let (px, py) = ((iw - nw) / 2, (ih - nh) / 2);
        let (grid_w, grid_h) = (iw as usize / 4, ih as usize / 4);
        self.input.fill(114.0);
        for (x, y, p) in small.enumerate_pixels() {
            for c in 0..3 {
                self.input[[0, c, (y + py) as usize, (x + px) as usize]] = f32::from(p[c]);
            }
        }
        let outputs = self
            .finder
            .run(ort::inputs![
                TensorRef::from_array_view(&self.input).map_err(model_err)?
            ])
            .map_err(model_err)?;
        let heat = outputs["heat"]
            .try_extract_array::<f32>()
            .map_err(model_err)?
            .to_owned();
        let boxes = outputs["box"]
            .try_extract_array::<f32>()
            .map_err(model_err)?
            .to_owned();
        let orient = outputs["orient"]
            .try_extract_array::<f32>()
            .map_err(model_err)?
            .to_owned();
        // The turned box (angle and sides of the face); a finder without it gives upright boxes.
        let rbox = match outputs.get("rbox") {
            Some(v) => Some(v.try_extract_array::<f32>().map_err(model_err)?.to_owned()),
            None => None,
        };
        drop(outputs);
        t.finder = t0.elapsed().as_secs_f64() * 1e3;
        let want = [1, 2, grid_h, grid_w];
        if heat.shape() != want
            || boxes.shape() != [1, 4, grid_h, grid_w]
            || orient.shape() != [1, 4, grid_h, grid_w]
            || rbox
                .as_ref()
                .is_some_and(|r| r.shape() != [1, 4, grid_h, grid_w])
        {
            return Err(VisionError::Model(format!(
                "tile finder gave maps of shape {:?} for an input of {iw}×{ih}; expected {want:?}: \
                 the finder model must take any input size (multiples of {ALIGN}) at stride 4",
                heat.shape()
            )));
        }

        let mut found: Vec<(Detection, [f32; 4], [f32; 4], Rect)> = Vec::new();
        for ch in 0..2 {
            for gy in 0..grid_h {
                for gx in 0..grid_w {
                    let v = heat[[0, ch, gy, gx]];
                    if v < self.cfg.min_score {
                        continue;
                    }
                    let mut peak = true;
                    for dy in -1i32..=1 {
                        for dx in -1i32..=1 {
                            let (yy, xx) = (gy as i32 + dy, gx as i32 + dx);
                            if (dx, dy) != (0, 0)
                                && yy >= 0
                                && xx >= 0
                                && (yy as usize) < grid_h
                                && (xx as usize) < grid_w
                                && heat[[0, ch, yy as usize, xx as usize]] > v
                            {
                                peak = false;
                            }
                        }
                    }
                    if !peak {
                        continue;
                    }
                    let bw = boxes[[0, 0, gy, gx]].exp() * STRIDE;
                    let bh = boxes[[0, 1, gy, gx]].exp() * STRIDE;
                    let cx = (gx as f32 + boxes[[0, 2, gy, gx]]) * STRIDE;
                    let cy = (gy as f32 + boxes[[0, 3, gy, gx]]) * STRIDE;
                    // Back to source pixels.
                    let to_src = |x: f32, y: f32| {
                        [
                            ((x - px as f32) / s).clamp(0.0, w as f32),
                            ((y - py as f32) / s).clamp(0.0, h as f32),
                        ]
                    };
                    let a = to_src(cx - bw / 2.0, cy - bh / 2.0);
                    let b = to_src(cx + bw / 2.0, cy + bh / 2.0);
                    if b[0] - a[0] < 2.0 || b[1] - a[1] < 2.0 {
                        continue;
                    }
                    let turn: [f32; 4] = std::array::from_fn(|i| orient[[0, i, gy, gx]]);
                    let bounds = [a[0], a[1], b[0], b[1]];
                    let centre = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
                    let rect = match &rbox {
                        Some(r) => {
                            let angle = r[[0, 1, gy, gx]].atan2(r[[0, 0, gy, gx]]) / 4.0;
                            let side = |k: usize| r[[0, k, gy, gx]].exp() * STRIDE / s;
                            Rect {
                                centre,
                                angle,
                                along: side(2),
                                across: side(3),
                            }
                        }
                        None => Rect {
                            centre,
                            angle: 0.0,
                            along: b[0] - a[0],
                            across: b[1] - a[1],
                        },
                    };
                    let det = Detection {
                        corners: rect.corners(Orientation::Up),
                        score: v,
                        face_down: ch == 1,
                        orientation: Orientation::Up,
                        probs: Vec::new(),
                    };
                    found.push((det, bounds, turn, rect));
                }
            }
        }
        // Overlapping boxes (a tile seen as both face up and face down, or a sideways tile
        // seen also as an upright one inside it): keep the stronger.
        found.sort_by(|a, b| b.0.score.total_cmp(&a.0.score));
        let mut boxes_kept: Vec<(Detection, [f32; 4], [f32; 4], Rect)> = Vec::new();
        for f in found {
            if boxes_kept
                .iter()
                .all(|(_, k, _, _)| iou(&f.1, k) < 0.5 && covered(&f.1, k) < 0.5)
            {
                boxes_kept.push(f);
            }
        }
        // Orientation by shape: the sides of the turned box, which a slanted photo does not
        // square up as it does the upright ones.
        let turned = orientations(
            &boxes_kept
                .iter()
                .map(|(_, _, p, r)| ([0.0, 0.0, r.along, r.across], *p))
                .collect::<Vec<_>>(),
        );
        let (fw, fh) = (w as f32, h as f32);
        let mut kept: Vec<Detection> = boxes_kept
            .into_iter()
            .zip(turned)
            .map(|((mut d, _, _, r), o)| {
                d.orientation = o;
                d.corners = r
                    .corners(o)
                    .map(|p| [p[0].clamp(0.0, fw), p[1].clamp(0.0, fh)]);
                d
            })
            .collect();

        // Crops of the face-up tiles, read off the full photo along the face's own axes.
        let t1 = Instant::now();
        let up: Vec<usize> = (0..kept.len()).filter(|&i| !kept[i].face_down).collect();
        let mut crops = Array4::<f32>::zeros((up.len(), 3, CROP_H, CROP_W));
        for (k, &i) in up.iter().enumerate() {
            sample_face(img, &kept[i].corners, &mut crops, k);
        }
        t.crops = t1.elapsed().as_secs_f64() * 1e3;
        let t2 = Instant::now();
        let first = self.classify(&crops)?;
        // An unsure reading is tried again turned round: the finder may have swapped top and
        // bottom. The turned reading wins only when clearly more confident.
        // Sideways tiles are always read both ways: which of left and right the face's top
        // points to is the finder's weakest call, and a claimed tile matters to the score.
        let sideways: Vec<bool> = up
            .iter()
            .map(|&i| matches!(kept[i].orientation, Orientation::Left | Orientation::Right))
            .collect();
        let unsure: Vec<usize> = (0..up.len())
            .filter(|&k| max(&first[k]) < UNSURE || sideways[k])
            .collect();
        let mut second = Vec::new();
        if !unsure.is_empty() {
            let mut turned = Array4::<f32>::zeros((unsure.len(), 3, CROP_H, CROP_W));
            for (j, &k) in unsure.iter().enumerate() {
                for c in 0..3 {
                    for y in 0..CROP_H {
                        for x in 0..CROP_W {
                            turned[[j, c, CROP_H - 1 - y, CROP_W - 1 - x]] = crops[[k, c, y, x]];
                        }
                    }
                }
            }
            second = self.classify(&turned)?;
        }
        for (k, &i) in up.iter().enumerate() {
            let d = &mut kept[i];
            d.probs = first[k].clone();
            if let Some(j) = unsure.iter().position(|&u| u == k) {
                let margin = if sideways[k] { 0.0 } else { TURN_MARGIN };
                if max(&second[j]) > max(&first[k]) + margin {
                    d.orientation = match d.orientation {
                        Orientation::Up => Orientation::Down,
                        Orientation::Down => Orientation::Up,
                        Orientation::Left => Orientation::Right,
                        Orientation::Right => Orientation::Left,
                    };
                    let c = d.corners;
                    d.corners = [c[2], c[3], c[0], c[1]];
                    d.probs = second[j].clone();
                }
            }
        }
        t.classifier = t2.elapsed().as_secs_f64() * 1e3;
        Ok((kept, t))
    }
}

impl Recognizer {
    /// Face probabilities for a batch of upright crops.
    fn classify(&mut self, crops: &Array4<f32>) -> Result<Vec<Vec<f32>>, VisionError> {
        if crops.shape()[0] == 0 {
            return Ok(Vec::new());
        }
        let outputs = self
            .classifier
            .run(ort::inputs![
                TensorRef::from_array_view(crops).map_err(model_err)?
            ])
            .map_err(model_err)?;
        let probs = outputs["probs"]
            .try_extract_array::<f32>()
            .map_err(model_err)?;
        Ok((0..crops.shape()[0])
            .map(|k| (0..CLASS_COUNT).map(|c| probs[[k, c]]).collect())
            .collect())
    }
}

/// A sideways tile is wider than the tiles around it by about the square of a tile's aspect
/// (4:3 → 1.78×), whatever the camera's tilt, since the tilt squeezes every tile alike.
const SIDEWAYS_RATIO: f32 = 1.4;

/// Each box's orientation from the finder's four probabilities (up, right, down, left), checked
/// against its shape. Most tiles of a photo lie one way (the hand's row); a box whose aspect
/// differs from the photo's typical aspect by SIDEWAYS_RATIO or more lies across them, and one
/// with the typical aspect lies with them. The finder alone often calls a real sideways tile
/// upright; its shape does not lie.
fn orientations(boxes: &[([f32; 4], [f32; 4])]) -> Vec<Orientation> {
    const TURNS: [Orientation; 4] = [
        Orientation::Up,
        Orientation::Right,
        Orientation::Down,
        Orientation::Left,
    ];
    let argmax = |p: &[f32; 4], among: &[usize]| {
        among
            .iter()
            .copied()
            .max_by(|&i, &j| p[i].total_cmp(&p[j]))
            .unwrap_or(0)
    };
    let aspect = |b: &[f32; 4]| ((b[2] - b[0]) / (b[3] - b[1]).max(1e-3)).max(1e-3);
    if boxes.len() < 4 {
        return boxes
            .iter()
            .map(|(_, p)| TURNS[argmax(p, &[0, 1, 2, 3])])
            .collect();
    }
    let mut aspects: Vec<f32> = boxes.iter().map(|(b, _)| aspect(b)).collect();
    aspects.sort_by(f32::total_cmp);
    let typical = aspects[aspects.len() / 2];
    // Which way the typical tile lies: the finder's vote over the boxes of typical shape.
    let (mut upright, mut across) = (0.0f32, 0.0f32);
    for (b, p) in boxes {
        let r = aspect(b) / typical;
        if r < SIDEWAYS_RATIO && r > 1.0 / SIDEWAYS_RATIO {
            upright += p[0] + p[2];
            across += p[1] + p[3];
        }
    }
    let typical_upright = upright >= across;
    boxes
        .iter()
        .map(|(b, p)| {
            let r = aspect(b) / typical;
            let is_upright = if r >= SIDEWAYS_RATIO || r <= 1.0 / SIDEWAYS_RATIO {
                !typical_upright
            } else {
                typical_upright
            };
            TURNS[argmax(p, if is_upright { &[0, 2] } else { &[1, 3] })]
        })
        .collect()
}

/// A tile's face as a turned rectangle in source pixels: `along` is the side turned by
/// `angle` (radians, within ±45°) from the x axis, `across` the other.
#[derive(Clone, Copy, Debug)]
struct Rect {
    centre: [f32; 2],
    angle: f32,
    along: f32,
    across: f32,
}

impl Rect {
    /// The corners, clockwise from the top left of the face as it reads when its top points
    /// `o`.
    fn corners(&self, o: Orientation) -> [[f32; 2]; 4] {
        let (sin, cos) = self.angle.sin_cos();
        let (ax, ay) = (cos * self.along / 2.0, sin * self.along / 2.0);
        let (bx, by) = (-sin * self.across / 2.0, cos * self.across / 2.0);
        let [cx, cy] = self.centre;
        // The rectangle's own top left, top right, bottom right, bottom left.
        let tl = [cx - ax - bx, cy - ay - by];
        let tr = [cx + ax - bx, cy + ay - by];
        let br = [cx + ax + bx, cy + ay + by];
        let bl = [cx - ax + bx, cy - ay + by];
        match o {
            Orientation::Up => [tl, tr, br, bl],
            Orientation::Right => [tr, br, bl, tl],
            Orientation::Down => [br, bl, tl, tr],
            Orientation::Left => [bl, tl, tr, br],
        }
    }
}

/// Cuts the face whose corners are given (clockwise from its top left) out of the photo,
/// upright, CROP_W×CROP_H, into `crops[k]`. Each crop pixel averages a grid of bilinear
/// samples as fine as the photo's pixels (up to 4×4), so that a big tile is shrunk smoothly.
fn sample_face(img: &RgbImage, corners: &[[f32; 2]; 4], crops: &mut Array4<f32>, k: usize) {
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 {
        return;
    }
    let raw = img.as_raw();
    let stride = w as usize * 3;
    let o = corners[0];
    let right = [corners[1][0] - o[0], corners[1][1] - o[1]];
    let down = [corners[3][0] - o[0], corners[3][1] - o[1]];
    let step =
        (right[0].hypot(right[1]) / CROP_W as f32).max(down[0].hypot(down[1]) / CROP_H as f32);
    let n = ((step / 2.0).ceil() as usize).clamp(1, 4);
    let weight = 1.0 / (n * n) as f32;
    let (xmax, ymax) = (w as f32 - 1.0, h as f32 - 1.0);
    for y in 0..CROP_H {
        for x in 0..CROP_W {
            let mut acc = [0.0f32; 3];
            for sy in 0..n {
                let v = (y as f32 + (sy as f32 + 0.5) / n as f32) / CROP_H as f32;
                for sx in 0..n {
                    let u = (x as f32 + (sx as f32 + 0.5) / n as f32) / CROP_W as f32;
                    // Pixel centres sit at +0.5.
                    let px = (o[0] + right[0] * u + down[0] * v - 0.5).clamp(0.0, xmax);
                    let py = (o[1] + right[1] * u + down[1] * v - 0.5).clamp(0.0, ymax);
                    let (x0, y0) = (px as usize, py as usize);
                    let dx = if x0 + 1 < w as usize { 3 } else { 0 };
                    let dy = if y0 + 1 < h as usize { stride } else { 0 };
                    let (fx, fy) = (px - x0 as f32, py - y0 as f32);
                    let i = y0 * stride + x0 * 3;
                    let (w00, w01) = ((1.0 - fx) * (1.0 - fy), fx * (1.0 - fy));
                    let (w10, w11) = ((1.0 - fx) * fy, fx * fy);
                    for (c, a) in acc.iter_mut().enumerate() {
                        let p = |j: usize| f32::from(raw[i + j + c]);
                        *a += p(0) * w00 + p(dx) * w01 + p(dy) * w10 + p(dy + dx) * w11;
                    }
                }
            }
            for (c, a) in acc.iter().enumerate() {
                crops[[k, c, y, x]] = a * weight;
            }
        }
    }
}

/// How much of the smaller of two boxes lies inside the other (0..1).
fn covered(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    let ix = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let iy = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let smaller = ((a[2] - a[0]) * (a[3] - a[1])).min((b[2] - b[0]) * (b[3] - b[1]));
    if smaller > 0.0 {
        ix * iy / smaller
    } else {
        0.0
    }
}

fn iou(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    let ix = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let iy = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = ix * iy;
    let union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
    if union > 0.0 { inter / union } else { 0.0 }
}

/// A decoded photo, possibly at a reduced scale: source pixel = image pixel × `scale`.
#[derive(Debug)]
pub struct Photo {
    pub image: RgbImage,
    pub scale: f32,
    /// Width and height of the photo as stored (after EXIF orientation).
    pub source_size: (u32, u32),
}

/// Reads a photo (JPEG or PNG), honouring the EXIF orientation. Refuses images over
/// `MAX_PIXELS` before decoding them. Large JPEGs are decoded at 1/2 or 1/4 scale (tiles stay
/// far above the 64 px the classifier reads); coordinates are given back in source pixels.
pub fn load_photo(path: &Path) -> Result<Photo, VisionError> {
    let err = |message: String| VisionError::Image {
        path: path.to_path_buf(),
        message,
    };
    let reader = ImageReader::open(path)
        .map_err(|e| err(format!("cannot open: {e}")))?
        .with_guessed_format()
        .map_err(|e| err(format!("cannot read: {e}")))?;
    let format = reader.format();
    if format.is_none() {
        return Err(err("not a JPEG or PNG image".to_string()));
    }
    let (w, h) = reader
        .into_dimensions()
        .map_err(|e| err(format!("not a readable image: {e}")))?;
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(err(format!(
            "{w}×{h} is over {} megapixels: scale it down first",
            MAX_PIXELS / 1_000_000
        )));
    }
    let mut decoder = ImageReader::open(path)
        .and_then(|r| r.with_guessed_format())
        .map_err(|e| err(format!("cannot read: {e}")))?
        .into_decoder()
        .map_err(|e| err(format!("not a readable image: {e}")))?;
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let pixels = u64::from(w) * u64::from(h);
    let k: u32 = if pixels > 20_000_000 {
        4
    } else if pixels > 5_000_000 {
        2
    } else {
        1
    };
    let mut img = if format == Some(image::ImageFormat::Jpeg) && k > 1 {
        drop(decoder);
        let file = std::fs::File::open(path).map_err(|e| err(format!("cannot open: {e}")))?;
        let mut jd = jpeg_decoder::Decoder::new(std::io::BufReader::new(file));
        jd.read_info()
            .map_err(|e| err(format!("corrupt JPEG: {e}")))?;
        let req = |v: u32| u16::try_from(v.div_ceil(k)).unwrap_or(u16::MAX);
        let (sw, sh) = jd
            .scale(req(w), req(h))
            .map_err(|e| err(format!("corrupt JPEG: {e}")))?;
        let data = jd
            .decode()
            .map_err(|e| err(format!("corrupt or truncated image: {e}")))?;
        let info = jd.info().ok_or_else(|| err("corrupt JPEG".to_string()))?;
        let (sw, sh) = (u32::from(sw), u32::from(sh));
        let rgb: Vec<u8> = match info.pixel_format {
            jpeg_decoder::PixelFormat::RGB24 => data,
            jpeg_decoder::PixelFormat::L8 => data.iter().flat_map(|&v| [v, v, v]).collect(),
            jpeg_decoder::PixelFormat::L16 => {
                data.chunks(2).flat_map(|c| [c[0], c[0], c[0]]).collect()
            }
            jpeg_decoder::PixelFormat::CMYK32 => data
                .chunks(4)
                .flat_map(|c| {
                    let kk = 255 - u16::from(c[3]);
                    [c[0], c[1], c[2]].map(|v| ((255 - u16::from(v)) * kk / 255) as u8)
                })
                .collect(),
        };
        let buf = RgbImage::from_raw(sw, sh, rgb)
            .ok_or_else(|| err("corrupt JPEG: pixel count".to_string()))?;
        DynamicImage::ImageRgb8(buf)
    } else {
        DynamicImage::from_decoder(decoder)
            .map_err(|e| err(format!("corrupt or truncated image: {e}")))?
    };
    let scale = w as f32 / img.width().max(1) as f32;
    img.apply_orientation(orientation);
    let rgb = img.to_rgb8();
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

/// Reads a photo at full resolution (see `load_photo`).
pub fn load_image(path: &Path) -> Result<RgbImage, VisionError> {
    load_photo(path).map(|p| p.image)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
        (a[0] - b[0]).hypot(a[1] - b[1])
    }

    #[test]
    fn a_turned_rect_lays_its_sides_along_its_angle() {
        let r = Rect {
            centre: [100.0, 80.0],
            angle: 30f32.to_radians(),
            along: 40.0,
            across: 20.0,
        };
        let c = r.corners(Orientation::Up);
        assert!((dist(c[0], c[1]) - 40.0).abs() < 1e-3);
        assert!((dist(c[1], c[2]) - 20.0).abs() < 1e-3);
        let top = (c[1][1] - c[0][1]).atan2(c[1][0] - c[0][0]).to_degrees();
        assert!((top - 30.0).abs() < 1e-3, "top edge at {top}°");
        // Turned a quarter: the face's top edge is the short side, and the corners go round.
        let side = r.corners(Orientation::Right);
        assert!((dist(side[0], side[1]) - 20.0).abs() < 1e-3);
        assert_eq!(side[0], c[1]);
        // Centred where the box was.
        let mid = [
            c.iter().map(|p| p[0]).sum::<f32>() / 4.0,
            c.iter().map(|p| p[1]).sum::<f32>() / 4.0,
        ];
        assert!(dist(mid, r.centre) < 1e-3);
    }

    /// A face turned by 25° whose top half is red and bottom half blue, on grey.
    fn turned_face(r: &Rect) -> RgbImage {
        let (sin, cos) = r.angle.sin_cos();
        RgbImage::from_fn(240, 200, |x, y| {
            let (dx, dy) = (x as f32 + 0.5 - r.centre[0], y as f32 + 0.5 - r.centre[1]);
            let (u, v) = (dx * cos + dy * sin, -dx * sin + dy * cos);
            if u.abs() > r.along / 2.0 || v.abs() > r.across / 2.0 {
                image::Rgb([128, 128, 128])
            } else if v < 0.0 {
                image::Rgb([220, 20, 20])
            } else {
                image::Rgb([20, 20, 220])
            }
        })
    }

    #[test]
    fn a_turned_face_is_cut_out_upright() {
        let r = Rect {
            centre: [120.0, 100.0],
            angle: 25f32.to_radians(),
            along: 90.0,
            across: 120.0,
        };
        let img = turned_face(&r);
        let mut crops = Array4::<f32>::zeros((2, 3, CROP_H, CROP_W));
        sample_face(&img, &r.corners(Orientation::Up), &mut crops, 0);
        sample_face(&img, &r.corners(Orientation::Down), &mut crops, 1);
        // Away from the edges and the middle line, every pixel is the face's colour.
        for y in (4..CROP_H / 2 - 4).chain(CROP_H / 2 + 4..CROP_H - 4) {
            for x in 4..CROP_W - 4 {
                let top = y < CROP_H / 2;
                let (red, blue) = (crops[[0, 0, y, x]], crops[[0, 2, y, x]]);
                assert_eq!(
                    red > blue,
                    top,
                    "upright crop at {x},{y}: red {red} blue {blue}"
                );
                let (red, blue) = (crops[[1, 0, y, x]], crops[[1, 2, y, x]]);
                assert_eq!(
                    red > blue,
                    !top,
                    "turned crop at {x},{y}: red {red} blue {blue}"
                );
                assert!(
                    crops[[0, 1, y, x]] < 60.0,
                    "grey background inside the crop at {x},{y}"
                );
            }
        }
    }

    #[test]
    fn a_face_partly_outside_the_photo_is_cut_without_panicking() {
        let r = Rect {
            centre: [5.0, 195.0],
            angle: -40f32.to_radians(),
            along: 300.0,
            across: 500.0,
        };
        let img = RgbImage::from_pixel(240, 200, image::Rgb([10, 200, 10]));
        let mut crops = Array4::<f32>::zeros((1, 3, CROP_H, CROP_W));
        sample_face(&img, &r.corners(Orientation::Left), &mut crops, 0);
        assert!(crops.iter().all(|v| (0.0..=255.0).contains(v)));
        assert!((crops[[0, 1, 10, 10]] - 200.0).abs() < 1e-3);
    }

    /// Boxes of a row: `n` upright tiles 30×40 and, after them, the given extra boxes.
    fn row(n: usize, extra: &[([f32; 4], [f32; 4])]) -> Vec<([f32; 4], [f32; 4])> {
        let mut v: Vec<_> = (0..n)
            .map(|i| {
                let x = i as f32 * 31.0;
                ([x, 0.0, x + 30.0, 40.0], [0.9, 0.04, 0.03, 0.03])
            })
            .collect();
        v.extend_from_slice(extra);
        v
    }

    #[test]
    fn a_wide_box_in_an_upright_row_is_sideways_even_if_the_finder_says_up() {
        let wide = ([500.0, 10.0, 540.0, 40.0], [0.6, 0.15, 0.15, 0.1]);
        let o = orientations(&row(6, &[wide]));
        assert!(o[..6].iter().all(|&o| o == Orientation::Up), "{o:?}");
        assert_eq!(o[6], Orientation::Right);
    }

    #[test]
    fn a_tile_of_the_rows_shape_keeps_the_rows_axis() {
        // The finder thinks this upright-shaped tile points left; its shape says up or down.
        let odd = ([500.0, 0.0, 530.0, 40.0], [0.2, 0.1, 0.3, 0.4]);
        let o = orientations(&row(6, &[odd]));
        assert_eq!(o[6], Orientation::Down);
    }

    #[test]
    fn a_photo_turned_a_quarter_keeps_its_tiles_sideways() {
        // Every tile 40×30 and the finder says right: the typical tile lies across.
        let boxes: Vec<_> = (0..6)
            .map(|i| {
                let y = i as f32 * 31.0;
                ([0.0, y, 40.0, y + 30.0], [0.05, 0.8, 0.05, 0.1])
            })
            .collect();
        assert!(
            orientations(&boxes)
                .iter()
                .all(|&o| o == Orientation::Right)
        );
    }

    #[test]
    fn few_boxes_follow_the_finder() {
        let boxes = [([0.0, 0.0, 30.0, 40.0], [0.1, 0.1, 0.1, 0.7])];
        assert_eq!(orientations(&boxes), vec![Orientation::Left]);
    }
}

//! Readings over time → a stable hand.
//!
//! One frame's reading flickers. The tracker keeps the frames of the current still stretch
//! (the picture barely changes and the number of tiles holds), fuses their tiles (each tile of
//! the newest frame matched to the nearest tile of every other frame, probabilities averaged),
//! and locks a hand when the picture has been still for `hold_seconds` and the fused reading
//! gives the same valid hand twice running. Motion for `unlock_frames` frames unlocks it.
//!
//! A hand is reported once: locking again on the same hand after it was only moved reports
//! nothing; after the table was cleared (fewer than `clear_tiles` tiles seen) or another hand
//! was locked, it is reported again.

use std::collections::VecDeque;

use image::RgbImage;

use crate::detection::Detection;

/// The tracker's settings.
#[derive(Debug, Clone, Copy)]
pub struct TrackConfig {
    /// Mean absolute difference of grey thumbnails (0–255) below which a frame is still.
    pub still_diff: f32,
    /// Median distance a tile moved since the last frame, in tile sizes, below which the tiles
    /// are still.
    pub still_drift: f32,
    /// Seconds the picture must be still before a hand can lock.
    pub hold_seconds: f64,
    /// Frames of the still stretch needed, at least.
    pub min_frames: usize,
    /// Frames fused at most (the newest).
    pub max_frames: usize,
    /// Moving frames in a row that unlock a locked hand.
    pub unlock_frames: usize,
    /// A frame with fewer tiles than this counts as a cleared table.
    pub clear_tiles: usize,
}

impl Default for TrackConfig {
    fn default() -> Self {
        TrackConfig {
            still_diff: 4.0,
            still_drift: 0.12,
            hold_seconds: 0.6,
            min_frames: 3,
            max_frames: 8,
            unlock_frames: 2,
            clear_tiles: 3,
        }
    }
}

/// A small grey picture of a frame, to tell whether anything moved.
#[derive(Debug, Clone, PartialEq)]
pub struct Thumb {
    pixels: Vec<u8>,
}

/// Thumbnail size: enough to see a hand move, cheap on a 12 MP frame (samples, not averages).
const THUMB_W: u32 = 64;
const THUMB_H: u32 = 48;
/// Samples averaged per thumbnail pixel along each axis.
const SAMPLES: u32 = 4;

impl Thumb {
    pub fn of(img: &RgbImage) -> Thumb {
        let (w, h) = img.dimensions();
        let mut pixels = Vec::with_capacity((THUMB_W * THUMB_H) as usize);
        let (gw, gh) = (THUMB_W * SAMPLES, THUMB_H * SAMPLES);
        for ty in 0..THUMB_H {
            for tx in 0..THUMB_W {
                let mut sum = 0u32;
                for sy in 0..SAMPLES {
                    for sx in 0..SAMPLES {
                        let x = ((tx * SAMPLES + sx) * 2 + 1) * w / (2 * gw);
                        let y = ((ty * SAMPLES + sy) * 2 + 1) * h / (2 * gh);
                        let p =
                            img.get_pixel(x.min(w.saturating_sub(1)), y.min(h.saturating_sub(1)));
                        sum +=
                            (u32::from(p[0]) * 77 + u32::from(p[1]) * 150 + u32::from(p[2]) * 29)
                                >> 8;
                    }
                }
                pixels.push((sum / (SAMPLES * SAMPLES)) as u8);
            }
        }
        Thumb { pixels }
    }

    /// Mean absolute difference, 0–255.
    pub fn diff(&self, other: &Thumb) -> f32 {
        let total: u32 = self
            .pixels
            .iter()
            .zip(&other.pixels)
            .map(|(&a, &b)| u32::from(a.abs_diff(b)))
            .sum();
        total as f32 / self.pixels.len().max(1) as f32
    }
}

/// One processed frame.
#[derive(Debug, Clone)]
pub struct Observation {
    pub seconds: f64,
    pub detections: Vec<Detection>,
    pub thumb: Thumb,
}

/// Where the tracker stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// The picture moves, or too little of it has been still.
    Searching { tiles: usize },
    /// Still, not yet locked.
    HoldStill { tiles: usize, still_seconds: f64 },
    /// A hand is locked (its key, as the decoder gave it).
    Locked { key: String },
}

/// A hand just locked, to report.
#[derive(Debug, Clone)]
pub struct Lock<T> {
    pub seconds: f64,
    pub key: String,
    /// What the decoder made of the fused tiles.
    pub payload: T,
    /// The fused tiles the hand was read from.
    pub fused: Vec<Detection>,
    /// Frames fused.
    pub frames: usize,
}

/// Tracks readings frame by frame.
#[derive(Debug)]
pub struct Tracker {
    cfg: TrackConfig,
    window: VecDeque<Observation>,
    prev: Option<(Thumb, Vec<Detection>)>,
    moving: usize,
    last_key: Option<String>,
    locked: Option<String>,
    /// Tiles seen when the hand locked.
    locked_tiles: usize,
    reported: Option<String>,
    cleared: bool,
}

impl Tracker {
    pub fn new(cfg: TrackConfig) -> Tracker {
        Tracker {
            cfg,
            window: VecDeque::new(),
            prev: None,
            moving: 0,
            last_key: None,
            locked: None,
            locked_tiles: 0,
            reported: None,
            cleared: true,
        }
    }

    /// Takes one frame's reading. `decode` reads fused tiles into a hand: its key (equal keys,
    /// equal hands) and whatever the caller wants back with a lock.
    pub fn push<T>(
        &mut self,
        obs: Observation,
        mut decode: impl FnMut(&[Detection]) -> Option<(String, T)>,
    ) -> (Status, Option<Lock<T>>) {
        let tiles = obs.detections.len();
        let still = self.note_motion(&obs);
        self.window.push_back(obs);
        while self.window.len() > self.cfg.max_frames {
            self.window.pop_front();
        }
        if let (false, Some(key)) = (still, &self.locked) {
            return (Status::Locked { key: key.clone() }, None);
        }
        let span = match (self.window.front(), self.window.back()) {
            (Some(a), Some(b)) => b.seconds - a.seconds,
            _ => 0.0,
        };
        if self.window.len() < self.cfg.min_frames || span + 1e-6 < self.cfg.hold_seconds {
            return (self.waiting(tiles, still, span), None);
        }
        let fused = fuse(&self.window);
        let Some((key, payload)) = decode(&fused) else {
            self.last_key = None;
            let status = Status::HoldStill {
                tiles,
                still_seconds: span,
            };
            return (status, None);
        };
        // A reading locks when two decodes in a row agree on it.
        let confirmed = self.last_key.as_deref() == Some(key.as_str());
        self.last_key = Some(key.clone());
        if !confirmed || self.locked.as_deref() == Some(key.as_str()) {
            return (self.waiting(tiles, true, span), None);
        }
        self.lock(key, payload, fused, tiles)
    }

    /// Takes in how the table changed with frame `obs`: a cleared table, or other tiles, end
    /// the lock; a frame that moved starts the still window again (and enough of them in a row
    /// end the lock). Whether the frame is still against the one before.
    fn note_motion(&mut self, obs: &Observation) -> bool {
        let tiles = obs.detections.len();
        if tiles < self.cfg.clear_tiles {
            self.cleared = true;
        }
        // A cleared table, or a table with other tiles, is no longer the locked hand.
        if self.cleared || self.locked_tiles.abs_diff(tiles) > 1 {
            self.locked = None;
        }
        let still = self.prev.as_ref().is_some_and(|(thumb, before)| {
            thumb.diff(&obs.thumb) < self.cfg.still_diff
                && before.len().abs_diff(tiles) <= 1
                && drift(before, &obs.detections) < self.cfg.still_drift
        });
        self.prev = Some((obs.thumb.clone(), obs.detections.clone()));
        if still {
            self.moving = 0;
        } else {
            self.window.clear();
            self.last_key = None;
            self.moving += 1;
            if self.moving >= self.cfg.unlock_frames {
                self.locked = None;
            }
        }
        still
    }

    /// The status while no new hand locks: the locked hand, else holding still for `span`
    /// seconds, else searching.
    fn waiting(&self, tiles: usize, still: bool, span: f64) -> Status {
        match &self.locked {
            Some(key) => Status::Locked { key: key.clone() },
            None if still => Status::HoldStill {
                tiles,
                still_seconds: span,
            },
            None => Status::Searching { tiles },
        }
    }

    /// Locks hand `key` read from the still window as `fused`, with `tiles` tiles; the lock is
    /// reported unless the same hand was reported last and the table was not cleared between.
    fn lock<T>(
        &mut self,
        key: String,
        payload: T,
        fused: Vec<Detection>,
        tiles: usize,
    ) -> (Status, Option<Lock<T>>) {
        self.locked = Some(key.clone());
        self.locked_tiles = tiles;
        let report = self.cleared || self.reported.as_deref() != Some(key.as_str());
        let status = Status::Locked { key: key.clone() };
        if !report {
            return (status, None);
        }
        self.reported = Some(key.clone());
        self.cleared = false;
        let seconds = self.window.back().map_or(0.0, |o| o.seconds);
        let frames = self.window.len();
        (
            status,
            Some(Lock {
                seconds,
                key,
                payload,
                fused,
                frames,
            }),
        )
    }
}

/// How far the tiles moved between two frames: the median over the tiles of `now` of the
/// distance to the nearest tile of `before`, in tile sizes (the tile's shorter side). 0 with
/// no tiles.
pub fn drift(before: &[Detection], now: &[Detection]) -> f32 {
    if before.is_empty() || now.is_empty() {
        return 0.0;
    }
    let mut moved: Vec<f32> = now
        .iter()
        .map(|d| {
            let c = d.center();
            let b = d.bounds();
            let size = (b[2] - b[0]).min(b[3] - b[1]).max(1.0);
            let nearest = before
                .iter()
                .map(|e| {
                    let e_c = e.center();
                    (e_c[0] - c[0]).hypot(e_c[1] - c[1])
                })
                .fold(f32::MAX, f32::min);
            nearest / size
        })
        .collect();
    moved.sort_by(f32::total_cmp);
    moved[moved.len() / 2]
}

/// The newest frame's tiles, each with the probabilities of its matches in the other frames
/// averaged in (a match: the nearest tile whose centre lies within half a tile).
pub fn fuse(window: &VecDeque<Observation>) -> Vec<Detection> {
    let Some(newest) = window.back() else {
        return Vec::new();
    };
    newest
        .detections
        .iter()
        .map(|d| {
            let c = d.center();
            let b = d.bounds();
            let reach = 0.5 * (b[2] - b[0]).min(b[3] - b[1]);
            let mut sum = d.probs.clone();
            let mut n = 1.0f32;
            let mut down_votes = i32::from(d.face_down) * 2 - 1;
            for o in window.iter().take(window.len() - 1) {
                let nearest = o
                    .detections
                    .iter()
                    .map(|e| {
                        let e_c = e.center();
                        (e, (e_c[0] - c[0]).hypot(e_c[1] - c[1]))
                    })
                    .filter(|(_, dist)| *dist <= reach)
                    .min_by(|a, b| a.1.total_cmp(&b.1));
                if let Some((e, _)) = nearest {
                    down_votes += i32::from(e.face_down) * 2 - 1;
                    if e.probs.len() == sum.len() {
                        for (s, p) in sum.iter_mut().zip(&e.probs) {
                            *s += p;
                        }
                        n += 1.0;
                    } else if sum.is_empty() {
                        sum = e.probs.clone();
                    }
                }
            }
            let mut f = d.clone();
            f.probs = sum.iter().map(|s| s / n).collect();
            f.face_down = down_votes > 0;
            if !f.face_down && f.probs.is_empty() {
                f.face_down = true;
            }
            f
        })
        .collect()
}

#[cfg(test)]
mod tests;

//! `live`: frames from a source, read by the models, tracked until a hand holds still, scored.
//!
//! Capture runs on its own thread. From a camera or a stream only the newest frame is kept
//! (the models never fall behind the table); from a file or a folder every sampled frame is
//! read, so a run is repeatable.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::Instant;

use image::RgbImage;

use crate::capture::{CaptureError, Frame, FrameSource};
use crate::detection::Detection;
use crate::notation;
use crate::scan::{Given, ScanOutcome, finish};
use crate::scoring::RuleSet;
use crate::track::{Lock, Observation, Status, Thumb, TrackConfig, Tracker};
use crate::vision::{Recognizer, VisionError};

/// What happened, in order, for the caller to show.
#[derive(Debug)]
pub enum Event {
    /// A frame was read: the tracker's status after it, and the frame's own tiles.
    Frame {
        index: u64,
        seconds: f64,
        status: Status,
        detections: Vec<Detection>,
        /// The picture (shared, not copied), for a window to show.
        image: Arc<RgbImage>,
    },
    /// A hand locked: the scan of the fused tiles.
    Locked(Box<Locked>),
    /// A frame could not be read (the source goes on).
    BadFrame(String),
}

/// A locked hand.
#[derive(Debug)]
pub struct Locked {
    pub seconds: f64,
    pub index: u64,
    pub outcome: ScanOutcome,
    /// Frames fused to read it.
    pub frames: usize,
    /// The lowest probability among the tiles read (how sure the weakest tile is).
    pub confidence: f32,
}

/// How a run ended.
#[derive(Debug, Default)]
pub struct Summary {
    pub frames: u64,
    /// Frames the models read (the others were skipped as idle).
    pub frames_read: u64,
    pub bad_frames: u64,
    pub locked: usize,
    /// Mean milliseconds per frame the models read.
    pub ms_per_frame: f64,
    /// Why the source stopped early, if it did.
    pub failure: Option<String>,
}

/// Frames from the capture thread.
type Feed = Receiver<Result<Frame, CaptureError>>;

/// Starts the capture thread. `newest_only`: drop frames the reader has not taken yet.
fn start_capture(mut source: Box<dyn FrameSource>, newest_only: bool) -> Feed {
    let (tx, rx): (SyncSender<_>, _) = sync_channel(if newest_only { 1 } else { 4 });
    std::thread::spawn(move || {
        while let Some(item) = source.next_frame() {
            let failed = matches!(item, Err(CaptureError::Failed(_)));
            let sent = if newest_only && item.is_ok() {
                match tx.try_send(item) {
                    Err(TrySendError::Disconnected(_)) => false,
                    // Full: the reader is busy; this frame is dropped for a newer one.
                    _ => true,
                }
            } else {
                tx.send(item).is_ok()
            };
            if !sent || failed {
                break;
            }
        }
    });
    rx
}

/// The scan of fused tiles, keyed by the hand it reads (None when no valid hand).
fn decode(fused: &[Detection], given: &Given, rules: &RuleSet) -> Option<(String, ScanOutcome)> {
    let o = finish(
        String::new(),
        fused.to_vec(),
        given,
        rules,
        0.0,
        0.0,
        Instant::now(),
    );
    let hand = o.decoded.hand.as_ref()?;
    o.score.as_ref()?;
    let key = format!("{}|{}", notation::format_hand(hand), o.decoded.flowers);
    Some((key, o))
}

/// The lowest probability among the tiles a decoded hand was read from.
pub(crate) fn weakest(o: &ScanOutcome) -> f32 {
    o.decoded
        .tiles
        .iter()
        .filter_map(|&(i, t)| o.detections.get(i).map(|d| (d, t)))
        .filter(|(d, _)| !d.face_down)
        .map(|(d, t)| d.p_tile(t))
        .fold(1.0, f32::min)
}

/// How `run` reads its source.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunOptions {
    /// Drop frames the models have not taken yet (cameras, streams).
    pub newest_only: bool,
    /// Which frames the models leave unread; the tracker gets the last tiles read for them.
    pub skip: Skip,
}

/// Frames `run` does not give the models: their tiles are the last frame's read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Skip {
    /// Every frame is read.
    #[default]
    Nothing,
    /// Frames no different from the last one read while a hand is locked or fewer than
    /// `clear_tiles` tiles were seen: reading them cannot change what is reported (`live`; a
    /// hand or a tile coming in moves the picture, and moving frames are read).
    Still,
    /// Those, and frames that moved since the previous one (audits of long recordings, where
    /// only the still moments count).
    StillAndMoving,
}

/// Decides which frames the models read (`Skip`).
#[derive(Debug, Default)]
struct Idle {
    /// The previous frame's thumbnail.
    prev: Option<Thumb>,
    /// The thumbnail and tiles of the last frame the models read.
    read: Option<(Thumb, Vec<Detection>)>,
    locked: bool,
}

impl Idle {
    /// The tiles to use for this frame without reading it, when `skip` lets it be skipped.
    fn skip(&self, thumb: &Thumb, track: &TrackConfig, skip: Skip) -> Option<Vec<Detection>> {
        if skip == Skip::Nothing {
            return None;
        }
        let (read_thumb, tiles) = self.read.as_ref()?;
        let moving = skip == Skip::StillAndMoving
            && self
                .prev
                .as_ref()
                .is_some_and(|p| p.diff(thumb) >= track.still_diff);
        let unchanged = read_thumb.diff(thumb) < track.still_diff / 2.0;
        let idle = self.locked || tiles.len() < track.clear_tiles;
        (moving || (unchanged && idle)).then(|| tiles.clone())
    }
}

/// Runs until the source ends, calling `on_event` for every frame and lock. Model failures
/// end the run with an error; a source that fails part-way ends it with a summary saying so.
pub fn run(
    source: Box<dyn FrameSource>,
    opts: RunOptions,
    rec: &mut Recognizer,
    given: &Given,
    rules: &RuleSet,
    track: TrackConfig,
    mut on_event: impl FnMut(Event),
) -> Result<Summary, VisionError> {
    let feed = start_capture(source, opts.newest_only);
    let mut tracker = Tracker::new(track);
    let mut summary = Summary::default();
    let mut idle = Idle::default();
    let mut ms_models = 0.0;
    for item in feed {
        let frame = match item {
            Ok(f) => f,
            Err(CaptureError::Failed(m)) | Err(CaptureError::Open(m)) => {
                summary.failure = Some(m);
                break;
            }
            Err(e) => {
                summary.bad_frames += 1;
                on_event(Event::BadFrame(e.to_string()));
                continue;
            }
        };
        summary.frames += 1;
        let t0 = Instant::now();
        let thumb = Thumb::of(&frame.image);
        let skipped = idle.skip(&thumb, &track, opts.skip);
        let read = skipped.is_none();
        let detections = match skipped {
            Some(d) => d,
            None => {
                let d = read_frame(rec, &frame)?;
                summary.frames_read += 1;
                idle.read = Some((thumb.clone(), d.clone()));
                d
            }
        };
        idle.prev = Some(thumb.clone());
        let ms_frame = t0.elapsed().as_secs_f64() * 1e3;
        if read {
            ms_models += ms_frame;
        }
        let obs = Observation {
            seconds: frame.seconds,
            detections: detections.clone(),
            thumb,
        };
        let (status, lock) = tracker.push(obs, |fused| decode(fused, given, rules));
        idle.locked = matches!(status, Status::Locked { .. });
        let (index, seconds, scale) = (frame.index, frame.seconds, frame.scale);
        on_event(Event::Frame {
            index,
            seconds,
            status,
            detections,
            image: Arc::new(frame.image),
        });
        if let Some(lock) = lock {
            summary.locked += 1;
            let mut l = locked(lock, index, ms_frame, t0);
            l.outcome.scale = scale;
            on_event(Event::Locked(Box::new(l)));
        }
    }
    if summary.frames > 0 {
        summary.ms_per_frame = ms_models / summary.frames_read.max(1) as f64;
    }
    Ok(summary)
}

/// One frame through the models, tiles in source pixels.
fn read_frame(rec: &mut Recognizer, frame: &Frame) -> Result<Vec<Detection>, VisionError> {
    let (mut detections, _) = rec.detect_frame(&frame.image)?;
    for d in &mut detections {
        for c in &mut d.corners {
            c[0] *= frame.scale;
            c[1] *= frame.scale;
        }
    }
    Ok(detections)
}

/// The tracker's lock as a reported hand.
fn locked(lock: Lock<ScanOutcome>, index: u64, ms_frame: f64, t0: Instant) -> Locked {
    let Lock {
        seconds,
        payload,
        frames,
        ..
    } = lock;
    let confidence = weakest(&payload);
    let mut outcome = payload;
    outcome.image = format!("frame {index} at {seconds:.1} s");
    outcome.ms_model = ms_frame;
    outcome.ms_total = t0.elapsed().as_secs_f64() * 1e3;
    Locked {
        seconds,
        index,
        outcome,
        frames,
        confidence,
    }
}

/// The JSON line of a locked hand: time, frame, confidence, frames fused, and the scan's own
/// fields (hand, fans, total…).
pub fn to_json(l: &Locked) -> serde_json::Value {
    let mut v = crate::scan::to_json(&l.outcome);
    if let Some(o) = v.as_object_mut() {
        o.remove("image");
        o.remove("ms");
        o.insert(
            "time".into(),
            serde_json::json!((l.seconds * 100.0).round() / 100.0),
        );
        o.insert("frame".into(), serde_json::json!(l.index));
        o.insert("frames_fused".into(), serde_json::json!(l.frames));
        o.insert(
            "confidence".into(),
            serde_json::json!((f64::from(l.confidence) * 1000.0).round() / 1000.0),
        );
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detection::Orientation;

    /// A picture that is all one grey: different greys are different pictures.
    fn picture(grey: u8) -> Thumb {
        Thumb::of(&RgbImage::from_pixel(
            320,
            240,
            image::Rgb([grey, grey, grey]),
        ))
    }

    /// `n` face-up tiles in a row.
    fn tiles(n: usize) -> Vec<Detection> {
        (0..n)
            .map(|i| {
                let x = 30.0 * i as f32;
                Detection {
                    corners: [[x, 0.0], [x + 28.0, 0.0], [x + 28.0, 40.0], [x, 40.0]],
                    score: 0.9,
                    face_down: false,
                    orientation: Orientation::Up,
                    probs: vec![1.0 / 42.0; 42],
                }
            })
            .collect()
    }

    /// The frames skipped after a frame of `grey` read with `n` tiles (`locked` or not), the
    /// previous frame `prev`: each of the next pictures `next` as `Skip` decides.
    fn skipped(n: usize, locked: bool, prev: u8, next: u8, skip: Skip) -> bool {
        let idle = Idle {
            prev: Some(picture(prev)),
            read: Some((picture(100), tiles(n))),
            locked,
        };
        idle.skip(&picture(next), &TrackConfig::default(), skip)
            .is_some_and(|d| d.len() == n)
    }

    #[test]
    fn live_skips_only_still_frames_of_a_locked_hand_or_an_empty_table() {
        // A locked hand, the picture as read: skipped (live and audits), read when nothing is
        // skipped.
        assert!(skipped(14, true, 100, 100, Skip::Still));
        assert!(skipped(14, true, 100, 100, Skip::StillAndMoving));
        assert!(!skipped(14, true, 100, 100, Skip::Nothing));
        // A table with no tiles, still: skipped.
        assert!(skipped(0, false, 100, 100, Skip::Still));
        // Tiles not locked yet: read, so that they can lock.
        assert!(!skipped(14, false, 100, 100, Skip::Still));
        // The picture changed since it was read (a hand coming in): read by live, skipped by
        // an audit while it moves.
        assert!(!skipped(14, true, 100, 160, Skip::Still));
        assert!(skipped(14, true, 100, 160, Skip::StillAndMoving));
        // Still again, but not as it was read: read by both.
        assert!(!skipped(14, true, 160, 160, Skip::Still));
        assert!(!skipped(14, true, 160, 160, Skip::StillAndMoving));
    }
}

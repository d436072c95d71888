//! Hands read from recordings: the still moments a complete winning hand lies in view, found
//! with the `live` pipeline (capture → models → tracker), and their matching to the sheet's
//! winning rows.
//!
//! A recording is decoded at a reduced rate (`fps`), and the models skip frames that cannot
//! change what is found (moving frames, a locked hand still in view, an empty table), so an
//! hour of video costs the still stretches, not the hour.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use image::RgbImage;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Row;
use crate::capture::{self, SourceOptions, probe_duration};
use crate::live::{self, Event, RunOptions};
use crate::scan::{Given, ScanOutcome, scan_file};
use crate::scoring::{Hand, RuleSet};
use crate::track::TrackConfig;
use crate::vision::{Recognizer, VisionConfig, VisionError};

/// A winning hand found still in a recording.
#[derive(Debug)]
pub struct Moment {
    /// The recording it was found in (as named on the command line).
    pub recording: String,
    /// Seconds into its recording.
    pub seconds: f64,
    /// Seconds from the start of the first recording, the recordings played one after another
    /// (the sheet's `time` column).
    pub at: f64,
    pub hand: Hand,
    /// Bonus tiles seen.
    pub flowers: u8,
    /// The lowest probability among the tiles read.
    pub confidence: f32,
    /// Frames fused to read it.
    pub frames: usize,
    /// Read from a photo of a folder (its place is the photo, not a time in a video).
    pub photo: bool,
    /// The reading (tiles in source pixels), and the frame it was locked on.
    pub outcome: ScanOutcome,
    pub frame: Arc<RgbImage>,
}

impl Moment {
    /// Where the hand was read: the photo, or the video and the time in it.
    pub fn place(&self) -> String {
        if self.photo {
            self.recording.clone()
        } else {
            format!("{} at {}", self.recording, super::clock(self.seconds))
        }
    }
}

/// What reading one recording gave.
#[derive(Debug, Default)]
pub struct Recording {
    pub name: String,
    pub moments: Vec<Arc<Moment>>,
    /// Frames decoded, frames the models read, frames that could not be decoded.
    pub frames: u64,
    pub frames_read: u64,
    pub bad_frames: u64,
    /// The time of the last frame decoded.
    pub last_seconds: Option<f64>,
    /// The length the file states, where it states one.
    pub duration: Option<f64>,
    /// Why the recording could not be read, or stopped early (truncated, failed).
    pub problem: Option<String>,
    /// A folder of photos (its frames are photos, not a video's).
    pub photos: bool,
}

impl Recording {
    /// Whether the recording ended before the length it states (a cut file).
    pub fn is_cut(&self, fps: f64) -> bool {
        match (self.last_seconds, self.duration) {
            (Some(last), Some(d)) => last + cut_slack(fps) < d,
            (None, Some(d)) => d > cut_slack(fps),
            _ => false,
        }
    }
}

/// How far before its stated length a recording may end and still be whole: a sampled frame
/// every 1/fps seconds, and container lengths that round up.
fn cut_slack(fps: f64) -> f64 {
    (2.0 / fps.max(0.1)).max(1.0)
}

/// How recordings are read.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// Frames a second decoded.
    pub fps: f64,
    pub track: TrackConfig,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            fps: 2.0,
            track: TrackConfig::default(),
        }
    }
}

/// Reads one recording (a video file or a folder of photos). `progress` is told the seconds
/// decoded so far. A recording that cannot be opened or ends early is said in `problem`; only
/// a model failure is an error. The moments' `at` is their `seconds` until `read_all` places
/// recordings one after another.
pub fn read(
    spec: &str,
    opts: ReadOptions,
    rec: &mut Recognizer,
    rules: &RuleSet,
    progress: impl FnMut(f64),
) -> Result<Recording, VisionError> {
    read_known(spec, stated_length(spec), opts, rec, rules, progress)
}

/// The length a video file states (None for a folder, or a file that states none).
fn stated_length(spec: &str) -> Option<f64> {
    if std::path::Path::new(spec).is_dir() {
        None
    } else {
        probe_duration(spec)
    }
}

/// `read`, the stated length already probed.
fn read_known(
    spec: &str,
    duration: Option<f64>,
    opts: ReadOptions,
    rec: &mut Recognizer,
    rules: &RuleSet,
    mut progress: impl FnMut(f64),
) -> Result<Recording, VisionError> {
    if std::path::Path::new(spec).is_dir() {
        return read_photos(spec, opts, rec, rules, progress);
    }
    let mut out = Recording {
        name: spec.to_string(),
        duration,
        ..Recording::default()
    };
    let source = match capture::open(
        spec,
        SourceOptions {
            fps: opts.fps,
            ..SourceOptions::default()
        },
    ) {
        Ok(s) => s,
        Err(e) => {
            out.problem = Some(format!("cannot be read: {e}"));
            return Ok(out);
        }
    };
    let mut last_frame: Option<Arc<RgbImage>> = None;
    let run = RunOptions {
        newest_only: false,
        skip: live::Skip::StillAndMoving,
    };
    let summary = live::run(
        source,
        run,
        rec,
        &Given::default(),
        rules,
        opts.track,
        |event| match event {
            Event::Frame { seconds, image, .. } => {
                out.last_seconds = Some(seconds);
                last_frame = Some(image);
                progress(seconds);
            }
            Event::Locked(l) => {
                if let Some(frame) = &last_frame {
                    out.moments
                        .extend(locked_moment(spec, *l, frame).map(Arc::new));
                }
            }
            Event::BadFrame(_) => {}
        },
    )?;
    out.frames = summary.frames;
    out.frames_read = summary.frames_read;
    out.bad_frames = summary.bad_frames;
    out.problem = video_problem(&out, summary.failure, opts.fps);
    Ok(out)
}

/// The moment a lock on a valid hand makes, shown with the last frame read.
fn locked_moment(spec: &str, l: live::Locked, frame: &Arc<RgbImage>) -> Option<Moment> {
    let hand = l.outcome.decoded.hand.clone()?;
    Some(Moment {
        recording: spec.to_string(),
        seconds: l.seconds,
        at: l.seconds,
        hand,
        flowers: l.outcome.decoded.flowers,
        confidence: l.confidence,
        frames: l.frames,
        photo: false,
        outcome: l.outcome,
        frame: Arc::clone(frame),
    })
}

/// What went wrong reading a video: cut short of its stated length, or stopped by a failure.
fn video_problem(out: &Recording, failure: Option<String>, fps: f64) -> Option<String> {
    let failure =
        failure.map(|f| format!("stopped at {:.1} s: {f}", out.last_seconds.unwrap_or(0.0)));
    if out.is_cut(fps) {
        Some(format!(
            "ends at {:.1} s but states a length of {:.1} s: the file is cut short{}",
            out.last_seconds.unwrap_or(0.0),
            out.duration.unwrap_or(0.0),
            failure.map_or(String::new(), |f| format!(" ({f})"))
        ))
    } else {
        failure
    }
}

/// Reads a folder photo by photo (a photo or a few per hand): each photo showing a valid hand
/// is a moment, the same hand in consecutive photos once. A photo that cannot be read counts
/// as a bad frame. Photo `k` is at `k / fps` seconds.
fn read_photos(
    dir: &str,
    opts: ReadOptions,
    rec: &mut Recognizer,
    rules: &RuleSet,
    mut progress: impl FnMut(f64),
) -> Result<Recording, VisionError> {
    let mut out = Recording {
        name: dir.to_string(),
        photos: true,
        ..Recording::default()
    };
    let files = match capture::images_in(std::path::Path::new(dir)) {
        Ok(f) => f,
        Err(e) => {
            out.problem = Some(format!("cannot be read: {e}"));
            return Ok(out);
        }
    };
    for (k, path) in files.iter().enumerate() {
        let seconds = k as f64 / opts.fps.max(0.01);
        out.frames += 1;
        out.last_seconds = Some(seconds);
        progress(seconds);
        let (outcome, image) = match scan_file(rec, path, &Given::default(), rules) {
            Ok(x) => x,
            Err(VisionError::Image { .. }) => {
                out.bad_frames += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        out.frames_read += 1;
        let (Some(hand), Some(_)) = (outcome.decoded.hand.clone(), &outcome.score) else {
            continue;
        };
        let same = out
            .moments
            .last()
            .is_some_and(|m| m.hand == hand && m.flowers == outcome.decoded.flowers);
        if !same {
            out.moments.push(Arc::new(Moment {
                recording: path.display().to_string(),
                seconds,
                at: seconds,
                hand,
                flowers: outcome.decoded.flowers,
                confidence: live::weakest(&outcome),
                frames: 1,
                photo: true,
                outcome,
                frame: Arc::new(image),
            }));
        }
    }
    Ok(out)
}

/// Reads several recordings, `jobs` at a time (each with its own models, the threads shared
/// out), with a progress bar per recording on stderr when `progress` is on. The recordings
/// keep their order; their moments' `at` counts from the start of the first.
pub fn read_all(
    specs: &[String],
    opts: ReadOptions,
    vision: &VisionConfig,
    rules: &RuleSet,
    jobs: usize,
    progress: bool,
) -> Result<Vec<Recording>, VisionError> {
    let jobs = jobs.clamp(1, specs.len().max(1));
    let threads = (vision.threads / jobs).max(1);
    let bars = MultiProgress::with_draw_target(if progress {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    });
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Recording, VisionError>>>> =
        Mutex::new((0..specs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let cfg = VisionConfig {
                    threads,
                    ..vision.clone()
                };
                let mut rec = Recognizer::new(cfg);
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(spec) = specs.get(k) else { break };
                    let read_one = match &mut rec {
                        Ok(rec) => {
                            let duration = stated_length(spec);
                            let bar = bars.add(bar_for(spec, duration, opts.fps));
                            let r = read_known(spec, duration, opts, rec, rules, |t| {
                                bar.set_position(t.max(0.0) as u64);
                            });
                            bar.finish();
                            r
                        }
                        Err(e) => Err(e.clone()),
                    };
                    if let Ok(mut all) = results.lock() {
                        all[k] = Some(read_one);
                    }
                }
            });
        }
    });
    let mut out = Vec::new();
    for r in results.into_inner().unwrap_or_default() {
        out.push(r.unwrap_or_else(|| Ok(Recording::default()))?);
    }
    place(&mut out, opts.fps);
    Ok(out)
}

/// A progress bar over a recording's stated length, in seconds (a spinner without one).
fn bar_for(spec: &str, duration: Option<f64>, fps: f64) -> ProgressBar {
    let name = std::path::Path::new(spec)
        .file_name()
        .map_or(spec.to_string(), |n| n.to_string_lossy().into_owned());
    let (bar, template) = match duration {
        Some(d) => (
            ProgressBar::new(d.ceil() as u64),
            "{prefix} [{bar:30}] {pos}/{len} s of video ({elapsed}, {eta} left)",
        ),
        None => (
            ProgressBar::new_spinner(),
            "{prefix} {spinner} {pos} s ({elapsed})",
        ),
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(format!("{name} at {fps}/s"));
    bar
}

/// Sets each moment's `at`: its time plus the lengths of the recordings before it.
fn place(recs: &mut [Recording], fps: f64) {
    let mut offset = 0.0;
    for r in recs.iter_mut() {
        for m in &mut r.moments {
            if let Some(m) = Arc::get_mut(m) {
                m.at = offset + m.seconds;
            }
        }
        offset += r
            .duration
            .or(r.last_seconds.map(|t| t + 1.0 / fps.max(0.1)))
            .unwrap_or(0.0);
    }
}

/// How far (seconds) a moment may lie from the time a row gives and still be its hand.
pub const TIME_SLACK: f64 = 120.0;

/// Matches moments to rows, both in order: each row at most one moment, each moment at most
/// one row, no crossing. `weight(row, moment)` is how well they fit (None: they cannot be the
/// same hand); the matching with the greatest total weight is returned, as the moment of each
/// row.
pub fn match_in_order(
    rows: usize,
    moments: usize,
    weight: impl Fn(usize, usize) -> Option<f64>,
) -> Vec<Option<usize>> {
    // best[i][j]: the greatest weight matching the first i rows with the first j moments.
    let mut best = vec![vec![0.0f64; moments + 1]; rows + 1];
    for i in 1..=rows {
        for j in 1..=moments {
            let take = weight(i - 1, j - 1).map_or(f64::MIN, |w| best[i - 1][j - 1] + w);
            best[i][j] = best[i - 1][j].max(best[i][j - 1]).max(take);
        }
    }
    let mut out = vec![None; rows];
    let (mut i, mut j) = (rows, moments);
    while i > 0 && j > 0 {
        if best[i][j] == best[i - 1][j] {
            i -= 1;
        } else if best[i][j] == best[i][j - 1] {
            j -= 1;
        } else {
            out[i - 1] = Some(j - 1);
            i -= 1;
            j -= 1;
        }
    }
    out
}

/// Whether a row's time (if it gives one) allows a moment at `at`.
pub fn time_fits(row: &Row, at: f64) -> bool {
    row.time.is_none_or(|t| (t - at).abs() <= TIME_SLACK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_are_matched_in_order_skipping_extras() {
        // Rows want moments 0 and 2; moment 1 is an extra reading.
        let fits = [[3.0, 1.0, 1.0], [1.0, 1.0, 3.0]];
        let m = match_in_order(2, 3, |r, k| Some(fits[r][k]));
        assert_eq!(m, vec![Some(0), Some(2)]);
    }

    #[test]
    fn a_row_without_a_moment_stays_unmatched() {
        let m = match_in_order(3, 2, |r, k| {
            (r != 1).then_some(if r / 2 == k { 3.0 } else { 1.0 })
        });
        assert_eq!(m, vec![Some(0), None, Some(1)]);
        assert_eq!(match_in_order(2, 0, |_, _| Some(1.0)), vec![None, None]);
    }

    #[test]
    fn matches_never_cross() {
        // Row 0 fits moment 1 best and row 1 fits moment 0 best: only one of them can be.
        let fits = [[1.0, 5.0], [5.0, 1.0]];
        let m = match_in_order(2, 2, |r, k| Some(fits[r][k]));
        assert!(
            m == vec![Some(1), None] || m == vec![None, Some(0)] || m == vec![Some(0), Some(1)]
        );
        if let (Some(a), Some(b)) = (m[0], m[1]) {
            assert!(a < b);
        }
    }

    #[test]
    fn a_recording_is_cut_when_it_ends_before_its_length() {
        let r = |last, d| Recording {
            last_seconds: last,
            duration: d,
            ..Recording::default()
        };
        assert!(r(Some(30.0), Some(50.0)).is_cut(2.0));
        assert!(!r(Some(49.5), Some(50.0)).is_cut(2.0));
        assert!(r(None, Some(50.0)).is_cut(2.0));
        assert!(!r(Some(3.0), None).is_cut(2.0));
    }

    #[test]
    fn a_time_far_from_the_row_does_not_fit() {
        let row = Row {
            time: Some(600.0),
            ..Row::default()
        };
        assert!(time_fits(&row, 650.0));
        assert!(!time_fits(&row, 60.0));
        assert!(time_fits(&Row::default(), 60.0));
    }
}

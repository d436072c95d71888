//! `suanfan live --headless` on a video assembled with ffmpeg from the project's two sample
//! photos (datasets/samples): hands laid, moved and swept between still moments. Needs ONNX
//! Runtime and ffmpeg; without them these tests show as ignored.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ffmpeg(args: &[&str], dir: &Path) {
    let out = Command::new("ffmpeg")
        .args(["-y", "-loglevel", "error"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ffmpeg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One segment of the match: what is on the table and for how long.
enum Shot {
    Empty(f64),
    Still(&'static str, f64),
    /// The photo sliding right 150 px a second over the empty table.
    Sliding(&'static str, f64),
    /// The photo shifted 150 px right, still.
    Moved(&'static str, f64),
}

/// The segments, and when each hand lies still (start, hand) for the checks.
const CONCEALED: &str = "hand-concealed.jpg";
const MELDS: &str = "hand-melds.jpg";

fn shots() -> Vec<Shot> {
    vec![
        Shot::Empty(1.0),
        Shot::Still(CONCEALED, 2.5),
        Shot::Sliding(CONCEALED, 1.0),
        Shot::Moved(CONCEALED, 2.5),
        Shot::Empty(1.0),
        Shot::Still(MELDS, 2.5),
        Shot::Empty(1.0),
        Shot::Still(CONCEALED, 2.5),
        Shot::Empty(1.0),
    ]
}

/// Builds the match video once (MJPEG in MKV, 10 frames a second, 1280×960).
fn match_video() -> PathBuf {
    static VIDEO: OnceLock<PathBuf> = OnceLock::new();
    VIDEO
        .get_or_init(|| {
            let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("live-match");
            std::fs::create_dir_all(&dir).unwrap();
            let samples = repo().join("datasets/samples");
            let bg = |d: f64| format!("color=c=0x305030:s=1280x960:r=10:d={d}");
            let enc = [
                "-c:v", "mjpeg", "-q:v", "3", "-pix_fmt", "yuvj420p", "-r", "10",
            ];
            let mut list = String::new();
            for (k, shot) in shots().iter().enumerate() {
                let name = format!("{k}.mkv");
                let photo = |p: &str| samples.join(p).display().to_string();
                let mut args: Vec<String> = Vec::new();
                let (d, overlay) = match shot {
                    Shot::Empty(d) => {
                        args.extend(["-f", "lavfi", "-i", &bg(*d)].map(String::from));
                        (*d, None)
                    }
                    Shot::Still(p, d) => {
                        args.extend(["-loop", "1", "-i"].map(String::from));
                        args.push(photo(p));
                        (*d, None)
                    }
                    Shot::Sliding(p, d) => (*d, Some((photo(p), "t*150"))),
                    Shot::Moved(p, d) => (*d, Some((photo(p), "150"))),
                };
                if let Some((p, x)) = overlay {
                    args.extend(
                        ["-f", "lavfi", "-i", &bg(d), "-loop", "1", "-i"].map(String::from),
                    );
                    args.push(p);
                    args.push("-filter_complex".into());
                    args.push(format!("[0][1]overlay=x='{x}':y=0:shortest=1"));
                }
                args.extend(["-t".to_string(), d.to_string()]);
                args.extend(enc.map(String::from));
                args.push(name.clone());
                let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                ffmpeg(&refs, &dir);
                list.push_str(&format!("file '{name}'\n"));
            }
            std::fs::write(dir.join("list.txt"), list).unwrap();
            ffmpeg(
                &["-f", "concat", "-i", "list.txt", "-c", "copy", "match.mkv"],
                &dir,
            );
            dir.join("match.mkv")
        })
        .clone()
}

/// When each still hand starts, and which sample it shows, from the shot list.
fn still_moments() -> Vec<(f64, &'static str)> {
    let mut t = 0.0;
    let mut out = Vec::new();
    for s in shots() {
        let d = match s {
            Shot::Empty(d) | Shot::Sliding(_, d) | Shot::Moved(_, d) => d,
            Shot::Still(p, d) => {
                out.push((t, p));
                d
            }
        };
        t += d;
    }
    out
}

fn live(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_suanfan"))
        .arg("live")
        .args(args)
        .output()
        .unwrap()
}

/// The hand a sample photo shows, from its label file.
fn truth(photo: &str) -> String {
    let label = repo()
        .join("datasets/samples")
        .join(photo)
        .with_extension("json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(label).unwrap()).unwrap();
    canonical(v["hand"].as_str().unwrap())
}

fn canonical(text: &str) -> String {
    common::canonical(&suanfan::notation::parse(text).unwrap().hand)
}

/// The locked hands of a headless JSON run: (time, canonical hand, total, hand as written).
fn locks(out: &Output) -> Vec<(f64, String, u64, String)> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            (
                v["time"].as_f64().unwrap(),
                canonical(v["hand"].as_str().unwrap()),
                v["score"]["total"].as_u64().unwrap(),
                v["hand"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Every hand laid still is locked once, in order, within 1.5 s, with the hand the photo
/// shows; nothing locks while the hand slides or when the same hand is only moved.
fn check_locks(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = locks(out);
    let want = still_moments();
    assert_eq!(
        got.iter().map(|g| g.1.clone()).collect::<Vec<_>>(),
        want.iter().map(|(_, p)| truth(p)).collect::<Vec<_>>(),
        "{got:?}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for ((t, hand, _, _), (start, _)) in got.iter().zip(&want) {
        assert!(
            *t >= *start && *t <= start + 1.5,
            "{hand} locked at {t} s, laid still at {start} s"
        );
    }
}

#[test]
#[cfg_attr(no_onnxruntime, ignore = "ONNX Runtime is not installed")]
#[cfg_attr(no_ffmpeg, ignore = "ffmpeg is not installed")]
fn a_video_locks_each_hand_once_in_order() {
    let video = match_video();
    let out = live(&["--headless", "--format", "json", video.to_str().unwrap()]);
    check_locks(&out);
    // The scores are those of the hands (the scoring itself is checked elsewhere).
    for (_, _, total, hand) in locks(&out) {
        let s = Command::new(env!("CARGO_BIN_EXE_suanfan"))
            .args(["score", "--format", "json", &hand])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&s.stdout).unwrap();
        assert_eq!(v["total"].as_u64(), Some(total), "{hand}");
    }
}

#[test]
#[cfg_attr(no_onnxruntime, ignore = "ONNX Runtime is not installed")]
#[cfg_attr(no_ffmpeg, ignore = "ffmpeg is not installed")]
fn a_folder_of_frames_with_a_corrupt_one_reads_the_same() {
    let video = match_video();
    let dir = video.with_file_name("frames");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    ffmpeg(
        &[
            "-i",
            video.to_str().unwrap(),
            "-vf",
            "fps=5",
            "-q:v",
            "3",
            "frames/%04d.jpg",
        ],
        video.parent().unwrap(),
    );
    // A frame in an empty stretch, cut short: reported, skipped, the run goes on.
    let bad = dir.join("0003.jpg");
    let bytes = std::fs::read(&bad).unwrap();
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    let out = live(&[
        "--headless",
        "--format",
        "json",
        "--fps",
        "5",
        dir.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("0003.jpg") && stderr.contains("skipped"),
        "{stderr}"
    );
    check_locks(&out);
}

#[test]
#[cfg_attr(no_ffmpeg, ignore = "ffmpeg is not installed")]
fn missing_sources_and_cameras_say_what_to_do() {
    let out = live(&["--headless", "/no/such/match.mp4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
    if !Path::new("/dev/video7").exists() {
        let out = live(&["--headless", "camera:7"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("no camera at /dev/video7"));
    }
    // A file that is not a video.
    let not_video = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("not-a-video.mkv");
    std::fs::write(&not_video, b"this is not a video").unwrap();
    let out = live(&["--headless", not_video.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("no video stream"));
}

/// A folder of one photo never holds still for a hand to lock: the run says so and points to
/// `scan` (the window scores that last frame as it is).
#[test]
#[cfg_attr(no_onnxruntime, ignore = "ONNX Runtime is not installed")]
fn a_folder_of_one_photo_says_no_hand_locked_and_points_to_scan() {
    let dir = std::env::temp_dir().join(format!("suanfan-one-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo().join("datasets/samples/hand-melds.jpg"),
        dir.join("hand.jpg"),
    )
    .unwrap();
    let out = live(&["--headless", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("0 hands locked") && stderr.contains("suanfan scan"),
        "{stderr}"
    );
}

#[test]
fn without_ffmpeg_a_video_asks_for_it() {
    let video = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("any.mkv");
    std::fs::write(&video, b"x").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_suanfan"))
        .args(["live", "--headless", video.to_str().unwrap()])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("install FFmpeg"), "{stderr}");
}

#[test]
#[cfg_attr(no_onnxruntime, ignore = "ONNX Runtime is not installed")]
#[cfg_attr(no_ffmpeg, ignore = "ffmpeg is not installed")]
fn a_truncated_video_reads_what_it_has_and_ends() {
    let video = match_video();
    let cut = video.with_file_name("cut.mkv");
    let bytes = std::fs::read(&video).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 5]).unwrap();
    let out = live(&["--headless", "--format", "json", cut.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("frames read"), "{stderr}");
    // The first hand lies in the part that is left.
    let got = locks(&out);
    assert!(
        !got.is_empty() && got[0].1 == truth(CONCEALED),
        "{got:?}\n{stderr}"
    );
}

#[test]
fn without_a_display_the_window_says_to_use_headless() {
    let out = Command::new(env!("CARGO_BIN_EXE_suanfan"))
        .args(["live", "datasets/samples"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--headless"), "{stderr}");
}

/// A stream that stops sending: a TCP server gives the first half of the match and then holds
/// the connection open, silent. The frames it sent come; then the source says the stream
/// stalled and ends, within the stall time (2 s here), never hanging.
#[test]
#[cfg_attr(no_ffmpeg, ignore = "ffmpeg is not installed")]
fn a_stream_that_stalls_is_said_and_ends() {
    use std::io::Write;
    use std::net::TcpListener;
    use std::time::{Duration, Instant};
    use suanfan::capture::{CaptureError, SourceOptions};

    let bytes = std::fs::read(match_video()).unwrap();
    let half = bytes[..bytes.len() / 2].to_vec();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        // ffprobe looks first, then ffmpeg reads: each gets the half, then silence.
        for conn in listener.incoming() {
            let Ok(mut c) = conn else { continue };
            let data = half.clone();
            std::thread::spawn(move || {
                let _ = c.write_all(&data);
                std::thread::sleep(Duration::from_secs(60));
            });
        }
    });
    let opts = SourceOptions {
        stall_seconds: 2.0,
        ..SourceOptions::default()
    };
    let mut src = suanfan::capture::open(&format!("tcp://127.0.0.1:{port}"), opts).unwrap();
    let (mut frames, mut end, mut last_frame) = (0, None, Instant::now());
    while let Some(item) = src.next_frame() {
        match item {
            Ok(_) => {
                frames += 1;
                last_frame = Instant::now();
            }
            Err(e) => {
                end = Some(e);
                break;
            }
        }
    }
    assert!(frames > 10, "{frames} frames before the stall");
    let waited = last_frame.elapsed();
    assert!(
        matches!(&end, Some(CaptureError::Failed(m)) if m.contains("stalled")),
        "{end:?}"
    );
    assert!(
        waited >= Duration::from_millis(1900) && waited < Duration::from_secs(10),
        "the stall was said {waited:?} after the last frame"
    );
}

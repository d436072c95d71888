//! Speed of `suanfan audit --recording` on a long 720p recording: `cargo bench --bench audit`.
//!
//! The recording is assembled with ffmpeg (H.264, 1280×720, 30 frames a second) from the
//! sample photos: per hand, 198 s of play (the tiles sliding about, with a 2 s pause of a half
//! hand every 10 s) and 30 s of the winning hand held still; 16 hands make the hour of a full
//! match. `SUANFAN_AUDIT_MINUTES` sets the length (default 60). Then two recordings of a
//! quarter of that are audited one at a time (`--jobs 1`) and at once (`--jobs 2`).
//! Needs ffmpeg and ONNX Runtime; says so and stops without them.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn ffmpeg(args: &[String], dir: &Path) -> bool {
    Command::new("ffmpeg")
        .args(["-y", "-loglevel", "error"])
        .args(args)
        .current_dir(dir)
        .status()
        .is_ok_and(|s| s.success())
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| (*x).to_string()).collect()
}

const ENC: [&str; 8] = [
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    "-r",
    "30",
];

/// Encodes one unit: `input` (ffmpeg's input arguments), `filter` (`-vf …` or
/// `-filter_complex …`), `seconds` long, into `out`.
fn unit(dir: &Path, input: &[String], filter: [&str; 2], seconds: &str, out: &str) -> bool {
    let mut a = input.to_vec();
    a.extend(s(&filter));
    a.extend(s(&["-t", seconds]));
    a.extend(s(&ENC));
    a.push(out.into());
    ffmpeg(&a, dir)
}

/// A 10 s unit of play: the hand photo sliding for 8 s, then half a hand still for 2 s; and
/// 30 s of each sample hand held still. Returns false when ffmpeg cannot make them.
fn units(dir: &Path, samples: &Path) -> bool {
    let photo = |name: &str| {
        s(&[
            "-loop",
            "1",
            "-i",
            &samples.join(name).display().to_string(),
        ])
    };
    let bg = "color=c=0x161618:s=1280x720:r=30:d=8";
    let mut play = s(&["-f", "lavfi", "-i", bg]);
    play.extend(photo("hand-concealed.jpg"));
    let slide =
        "[1]scale=960:720[p];[0][p]overlay=x='160+140*sin(t*1.3)':y='40*cos(t*0.9)':shortest=1";
    let half = "scale=960:720,crop=480:720:0:0,pad=1280:720:200:0:0x161618";
    let whole = "scale=960:720,pad=1280:720:160:0:0x161618";
    unit(dir, &play, ["-filter_complex", slide], "8", "moving.mkv")
        && unit(
            dir,
            &photo("hand-concealed.jpg"),
            ["-vf", half],
            "2",
            "pause.mkv",
        )
        && unit(
            dir,
            &photo("hand-concealed.jpg"),
            ["-vf", whole],
            "30",
            "still-0.mkv",
        )
        && unit(
            dir,
            &photo("hand-melds.jpg"),
            ["-vf", whole],
            "30",
            "still-1.mkv",
        )
}

/// Seconds of one hand: 19 units of play, 8 s more of it, and the hand held still 30 s.
const HAND_SECONDS: f64 = 19.0 * 10.0 + 8.0 + 30.0;

/// Joins the units into `name`, `minutes` long; returns the number of hands in it.
fn assemble(dir: &Path, name: &str, minutes: f64) -> usize {
    let mut list = String::new();
    let (mut t, mut hands) = (0.0, 0);
    while t + HAND_SECONDS <= minutes * 60.0 + HAND_SECONDS / 2.0 {
        for _ in 0..19 {
            list.push_str("file 'moving.mkv'\nfile 'pause.mkv'\n");
        }
        // The two sample hands in turn: the same hand twice running is one hand to the tracker.
        list.push_str(&format!(
            "file 'moving.mkv'\nfile 'still-{}.mkv'\n",
            hands % 2
        ));
        t += HAND_SECONDS;
        hands += 1;
    }
    let list_name = format!("{name}.txt");
    std::fs::write(dir.join(&list_name), list).unwrap();
    let args = s(&[
        "-f", "concat", "-safe", "0", "-i", &list_name, "-c", "copy", name,
    ]);
    assert!(ffmpeg(&args, dir), "ffmpeg could not join {name}");
    hands
}

/// A sheet of `hands` wins, each the sample hand won by the dealer on a discard (scores are
/// not what is measured).
fn sheet(dir: &Path, hands: usize) -> PathBuf {
    let mut text = String::from("# players: A, B, C, D\nhand,result,winner,from,total,A,B,C,D\n");
    for h in 1..=hands {
        text.push_str(&format!("{h},win,A,B,14,38,-22,-8,-8\n"));
    }
    let p = dir.join(format!("sheet-{hands}.csv"));
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs the audit; returns seconds and the JSON it printed.
fn audit(sheet: &Path, recordings: &[PathBuf], jobs: usize) -> (f64, serde_json::Value) {
    let t = Instant::now();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_suanfan"));
    cmd.arg("audit").arg(sheet);
    for r in recordings {
        cmd.arg("--recording").arg(r);
    }
    let out = cmd
        .args(["--quiet", "--format", "json", "--jobs", &jobs.to_string()])
        .output()
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    (secs, v)
}

fn report(what: &str, secs: f64, video_seconds: f64, v: &serde_json::Value) {
    let total = |field: &str| -> u64 {
        v["recordings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[field].as_u64().unwrap_or(0))
            .sum()
    };
    let (found, read) = (total("hands_found"), total("frames_read"));
    println!(
        "{what:<44} {:>6.1} s for {:.0} min of video ({:.0}× real time), {found} hands found, {read} frames read by the models",
        secs,
        video_seconds / 60.0,
        video_seconds / secs
    );
}

fn main() {
    if let Err(e) = suanfan::vision::Recognizer::new(suanfan::vision::VisionConfig::default()) {
        println!("skipped: {e}");
        return;
    }
    if !Command::new("ffmpeg")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        println!("skipped: ffmpeg is not installed");
        return;
    }
    let minutes: f64 = std::env::var("SUANFAN_AUDIT_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(60.0);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target/bench-audit");
    std::fs::create_dir_all(&dir).unwrap();
    assert!(
        units(&dir, &root.join("datasets/samples")),
        "ffmpeg could not render the units (libx264 needed)"
    );
    let hands = assemble(&dir, "long.mkv", minutes);
    let (secs, v) = audit(&sheet(&dir, hands), &[dir.join("long.mkv")], 1);
    report("one recording, 720p", secs, hands as f64 * HAND_SECONDS, &v);
    let quarter = assemble(&dir, "quarter.mkv", minutes / 4.0);
    let two = [dir.join("quarter.mkv"), dir.join("quarter.mkv")];
    let s2 = sheet(&dir, 2 * quarter);
    let video = 2.0 * quarter as f64 * HAND_SECONDS;
    for jobs in [1, 2] {
        let (secs, v) = audit(&s2, &two, jobs);
        report(&format!("two recordings, --jobs {jobs}"), secs, video, &v);
    }
}

//! Video files, streams and cameras through the `ffmpeg` program: a child process decodes,
//! samples `fps` frames a second and writes raw RGB to a pipe; a thread reads the pipe so
//! that a stream that stalls is noticed (no frame for `stall_seconds`) instead of blocking.

use std::io::Read;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use image::RgbImage;

use super::{CaptureError, Frame, FrameSource, SourceOptions};

/// Frames larger than this are scaled down by ffmpeg (the finder looks at 416 px anyway).
const MAX_SIDE: u32 = 1920;
/// Size asked of a camera.
const CAMERA_SIZE: (u32, u32) = (1280, 720);
/// How much of ffmpeg's error output is kept for messages.
const STDERR_KEEP: usize = 2000;

/// What the pipe reader hands over: a frame's bytes, or why there are no more.
type Chunk = Result<Vec<u8>, String>;

/// A video, stream or camera read through ffmpeg.
#[derive(Debug)]
pub struct Video {
    name: String,
    child: Child,
    frames: Receiver<Chunk>,
    stderr: Arc<Mutex<String>>,
    size: (u32, u32),
    fps: f64,
    index: u64,
    stall: Duration,
    ended: bool,
}

fn missing_ffmpeg(program: &str, e: &std::io::Error) -> CaptureError {
    CaptureError::Open(format!(
        "cannot run {program} ({e}): install FFmpeg (Debian/Ubuntu: apt install ffmpeg) to read videos, streams and cameras"
    ))
}

/// Width and height of the first video stream as shown (rotation metadata applied), and the
/// container's duration in seconds when it has one.
fn probe(src: &str) -> Result<((u32, u32), Option<f64>), CaptureError> {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0", "-show_entries"])
        .arg("stream=width,height:stream_tags=rotate:stream_side_data=rotation:format=duration")
        .args(["-of", "json", src])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| missing_ffmpeg("ffprobe", &e))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let stream = &v["streams"][0];
    let (Some(w), Some(h)) = (stream["width"].as_u64(), stream["height"].as_u64()) else {
        let why = String::from_utf8_lossy(&out.stderr);
        let why = why.trim();
        return Err(CaptureError::Open(format!(
            "{src}: no video stream found{}",
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({why})")
            }
        )));
    };
    let rotation = stream["side_data_list"][0]["rotation"]
        .as_f64()
        .or_else(|| {
            stream["tags"]["rotate"]
                .as_str()
                .and_then(|r| r.parse().ok())
        })
        .unwrap_or(0.0);
    let quarter = (rotation / 90.0).round() as i64;
    let (w, h) = (w as u32, h as u32);
    let size = if quarter % 2 != 0 { (h, w) } else { (w, h) };
    let duration = v["format"]["duration"]
        .as_str()
        .and_then(|d| d.parse::<f64>().ok());
    Ok((size, duration))
}

/// The duration of a video file in seconds, as its container states it (None when it does
/// not say, or ffprobe cannot read it). A truncated file may end before this.
pub fn probe_duration(src: &str) -> Option<f64> {
    probe(src).ok().and_then(|(_, d)| d)
}

/// `size` scaled so that its longer side is at most `MAX_SIDE`, both sides even.
fn bounded(size: (u32, u32)) -> (u32, u32) {
    let (w, h) = size;
    let long = w.max(h).max(1);
    let k = f64::from(MAX_SIDE.min(long)) / f64::from(long);
    let even = |x: u32| ((f64::from(x) * k / 2.0).round() as u32 * 2).max(2);
    (even(w), even(h))
}

impl Video {
    /// A video file or stream URL.
    pub fn open(src: &str, opts: SourceOptions) -> Result<Video, CaptureError> {
        let (shown, _) = probe(src)?;
        let size = bounded(shown);
        let mut input = Vec::new();
        if opts.realtime {
            input.push("-re".to_string());
        }
        input.extend(["-i".to_string(), src.to_string()]);
        Video::start(src, &input, size, opts)
    }

    /// A camera through ffmpeg's v4l2 input.
    pub fn open_camera(device: &str, opts: SourceOptions) -> Result<Video, CaptureError> {
        if !std::path::Path::new(device).exists() {
            return Err(CaptureError::Open(format!(
                "no camera at {device}: plug one in, or give a video file, a stream URL or a folder of images"
            )));
        }
        let input = ["-f", "v4l2", "-i", device].map(String::from);
        Video::start(device, &input, CAMERA_SIZE, opts)
    }

    fn start(
        name: &str,
        input: &[String],
        size: (u32, u32),
        opts: SourceOptions,
    ) -> Result<Video, CaptureError> {
        let fps = if opts.fps > 0.0 { opts.fps } else { 5.0 };
        let filter = format!("fps={fps},scale={}:{}", size.0, size.1);
        let mut child = Command::new("ffmpeg")
            .args(["-nostdin", "-hide_banner", "-loglevel", "error"])
            .args(input)
            .args([
                "-an", "-vf", &filter, "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| missing_ffmpeg("ffmpeg", &e))?;
        let stderr = Arc::new(Mutex::new(String::new()));
        if let Some(err) = child.stderr.take() {
            keep_stderr(err, Arc::clone(&stderr));
        }
        let Some(out) = child.stdout.take() else {
            return Err(CaptureError::Open(format!(
                "{name}: ffmpeg gave no output pipe"
            )));
        };
        let (tx, rx) = sync_channel(2);
        let frame_bytes = size.0 as usize * size.1 as usize * 3;
        std::thread::spawn(move || read_frames(out, frame_bytes, &tx));
        Ok(Video {
            name: name.to_string(),
            child,
            frames: rx,
            stderr,
            size,
            fps,
            index: 0,
            stall: Duration::from_secs_f64(opts.stall_seconds.max(0.1)),
            ended: false,
        })
    }

    /// ffmpeg's last words, for a message.
    fn stderr_tail(&self) -> String {
        let s = self
            .stderr
            .lock()
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        s.lines().last().unwrap_or("").to_string()
    }

    fn fail(&mut self, message: String) -> Option<Result<Frame, CaptureError>> {
        self.ended = true;
        let _ = self.child.kill();
        let _ = self.child.wait();
        Some(Err(CaptureError::Failed(message)))
    }
}

/// Keeps the end of ffmpeg's error output.
fn keep_stderr(mut err: ChildStderr, keep: Arc<Mutex<String>>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 1024];
        while let Ok(n) = err.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Ok(mut k) = keep.lock() {
                k.push_str(&String::from_utf8_lossy(&buf[..n]));
                if k.len() > STDERR_KEEP {
                    let cut = k.len() - STDERR_KEEP;
                    let cut = (cut..k.len()).find(|&i| k.is_char_boundary(i)).unwrap_or(0);
                    k.drain(..cut);
                }
            }
        }
    });
}

/// Reads whole frames from the pipe until it closes; a last partial frame is reported.
fn read_frames(mut out: impl Read, frame_bytes: usize, tx: &SyncSender<Chunk>) {
    loop {
        let mut buf = vec![0u8; frame_bytes];
        let mut got = 0;
        while got < frame_bytes {
            match out.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Err(format!("reading from ffmpeg: {e}")));
                    return;
                }
            }
        }
        if got == 0 {
            return;
        }
        if got < frame_bytes {
            let _ = tx.send(Err(format!(
                "the last frame was cut short ({got} of {frame_bytes} bytes)"
            )));
            return;
        }
        if tx.send(Ok(buf)).is_err() {
            return;
        }
    }
}

impl FrameSource for Video {
    fn next_frame(&mut self) -> Option<Result<Frame, CaptureError>> {
        if self.ended {
            return None;
        }
        match self.frames.recv_timeout(self.stall) {
            Ok(Ok(bytes)) => {
                let index = self.index;
                self.index += 1;
                let Some(image) = RgbImage::from_raw(self.size.0, self.size.1, bytes) else {
                    return Some(Err(CaptureError::Frame {
                        index,
                        message: "frame of the wrong size".to_string(),
                    }));
                };
                Some(Ok(Frame {
                    image,
                    scale: 1.0,
                    seconds: index as f64 / self.fps,
                    index,
                }))
            }
            Ok(Err(message)) => self.fail(format!("{}: {message}", self.name)),
            Err(RecvTimeoutError::Timeout) => self.fail(format!(
                "{}: no frame for {:.0} s: the stream stalled",
                self.name,
                self.stall.as_secs_f64()
            )),
            Err(RecvTimeoutError::Disconnected) => {
                self.ended = true;
                let status = self.child.wait().ok();
                if status.is_some_and(|s| !s.success()) {
                    let why = self.stderr_tail();
                    return Some(Err(CaptureError::Failed(format!(
                        "{}: ffmpeg stopped with an error{}",
                        self.name,
                        if why.is_empty() {
                            String::new()
                        } else {
                            format!(": {why}")
                        }
                    ))));
                }
                None
            }
        }
    }

    fn describe(&self) -> String {
        format!(
            "{} ({}×{}, {} frames/s taken)",
            self.name, self.size.0, self.size.1, self.fps
        )
    }
}

impl Drop for Video {
    fn drop(&mut self) {
        if !self.ended {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_bounded_and_even() {
        assert_eq!(bounded((1280, 720)), (1280, 720));
        assert_eq!(bounded((4000, 3000)), (1920, 1440));
        assert_eq!(bounded((641, 481)), (642, 482));
    }
}

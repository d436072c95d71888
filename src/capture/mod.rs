//! Where frames come from: a folder of images, a video file or stream (the `ffmpeg` program as a
//! child process writing raw RGB to a pipe), or a camera (through `ffmpeg`'s v4l2 input).
//!
//! A source hands out frames with their time; a frame that cannot be read is an error value
//! for that frame (the source goes on), and a source that fails or stalls says so and ends.

#[cfg(feature = "camera")]
mod camera;
mod folder;
mod video;

use std::fmt;
use std::path::Path;

use image::RgbImage;

pub use folder::{Folder, images_in, is_image_name};
pub use video::{Video, probe_duration};

/// One picture from a source.
#[derive(Debug, Clone)]
pub struct Frame {
    pub image: RgbImage,
    /// Source pixels per image pixel (a large JPEG is decoded at 1/2 or 1/4; otherwise 1).
    pub scale: f32,
    /// Seconds from the start of the source (nominal: frame number ÷ frame rate).
    pub seconds: f64,
    /// Frame number from 0, counting frames that could not be read.
    pub index: u64,
}

/// Why a source or one of its frames gave no picture.
#[derive(Debug, Clone, PartialEq)]
pub enum CaptureError {
    /// The source cannot be opened (missing file, no camera, no ffmpeg): nothing comes.
    Open(String),
    /// One frame could not be read; the next may be.
    Frame { index: u64, message: String },
    /// The source failed or stalled part-way: no more frames come.
    Failed(String),
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaptureError::Open(m) | CaptureError::Failed(m) => f.write_str(m),
            CaptureError::Frame { index, message } => write!(f, "frame {index}: {message}"),
        }
    }
}

impl std::error::Error for CaptureError {}

/// A source of frames.
pub trait FrameSource: Send {
    /// The next frame; `None` when the source has ended. After `Err(Failed)` it has ended too.
    fn next_frame(&mut self) -> Option<Result<Frame, CaptureError>>;
    /// What the source is, for messages.
    fn describe(&self) -> String;
}

/// How a source named on the command line is read.
#[derive(Debug, Clone, Copy)]
pub struct SourceOptions {
    /// Frames per second taken from a video (and the nominal rate of an image folder).
    pub fps: f64,
    /// Play a video file at its own speed, as a camera would deliver it.
    pub realtime: bool,
    /// Seconds without a frame after which a stream counts as stalled.
    pub stall_seconds: f64,
}

impl Default for SourceOptions {
    fn default() -> Self {
        SourceOptions {
            fps: 5.0,
            realtime: false,
            stall_seconds: 10.0,
        }
    }
}

/// Opens a source: `camera` or `camera:N` (the Nth camera, `/dev/videoN`), a `/dev/video*`
/// device, a folder of images, an image file, or a video file or stream URL.
pub fn open(spec: &str, opts: SourceOptions) -> Result<Box<dyn FrameSource>, CaptureError> {
    if let Some(device) = camera_device(spec) {
        return open_camera(&device, opts);
    }
    let path = Path::new(spec);
    if path.is_dir() {
        return Ok(Box::new(Folder::open(path, opts.fps)?));
    }
    if folder::is_image_name(path) {
        return Ok(Box::new(Folder::single(path)?));
    }
    if !spec.contains("://") && !path.exists() {
        return Err(CaptureError::Open(format!(
            "{spec}: no such file or folder (give a video, a folder of images, an image, a stream URL or `camera`)"
        )));
    }
    Ok(Box::new(Video::open(spec, opts)?))
}

/// A camera: through nokhwa with the `camera` feature, else through ffmpeg's v4l2 input.
fn open_camera(device: &str, opts: SourceOptions) -> Result<Box<dyn FrameSource>, CaptureError> {
    #[cfg(feature = "camera")]
    {
        let n = device
            .trim_start_matches("/dev/video")
            .parse::<u32>()
            .map_err(|_| CaptureError::Open(format!("{device}: not a camera device")))?;
        Ok(Box::new(camera::Camera::open(n, opts)?))
    }
    #[cfg(not(feature = "camera"))]
    {
        Ok(Box::new(Video::open_camera(device, opts)?))
    }
}

/// Whether `spec` names a camera (`camera`, `camera:N`, `/dev/videoN`).
pub fn is_camera(spec: &str) -> bool {
    camera_device(spec).is_some()
}

/// The device of a camera source, if `spec` names one.
fn camera_device(spec: &str) -> Option<String> {
    if spec == "camera" {
        return Some("/dev/video0".to_string());
    }
    if let Some(n) = spec.strip_prefix("camera:") {
        return Some(format!("/dev/video{n}"));
    }
    spec.starts_with("/dev/video").then(|| spec.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camera_names_map_to_devices() {
        assert_eq!(camera_device("camera").as_deref(), Some("/dev/video0"));
        assert_eq!(camera_device("camera:2").as_deref(), Some("/dev/video2"));
        assert_eq!(camera_device("/dev/video1").as_deref(), Some("/dev/video1"));
        assert_eq!(camera_device("match.mp4"), None);
    }

    #[test]
    fn a_missing_source_is_named() {
        let e = open("/no/such/video.mp4", SourceOptions::default()).err();
        assert!(matches!(&e, Some(CaptureError::Open(m)) if m.contains("/no/such/video.mp4")));
    }

    #[test]
    fn a_camera_that_is_not_there_is_an_open_error() {
        // These machines have no camera; where one exists at /dev/video9 this says nothing.
        if Path::new("/dev/video9").exists() {
            return;
        }
        let e = open("camera:9", SourceOptions::default()).err();
        assert!(
            matches!(&e, Some(CaptureError::Open(m)) if m.contains("/dev/video9")),
            "{e:?}"
        );
    }
}

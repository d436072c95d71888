//! A camera through `nokhwa` (the `camera` cargo feature; without it cameras go through
//! ffmpeg's v4l2 input). nokhwa's read has no timeout (an unplugged camera can block it for
//! ever), so a plain `Camera` runs on a thread of its own and hands frames over a channel;
//! the source waits at most `stall_seconds` for each and then says the camera stopped.

use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::{Duration, Instant};

use image::RgbImage;
use nokhwa::Camera as NokhwaCamera;
use nokhwa::pixel_format::RgbFormat;
use nokhwa::utils::{CameraIndex, RequestedFormat, RequestedFormatType};

use super::{CaptureError, Frame, FrameSource, SourceOptions};

/// Failed reads in a row after which the camera counts as gone.
const GIVE_UP_AFTER: u32 = 25;

/// What the camera thread hands over: a picture, or why there is none.
type Shot = Result<RgbImage, String>;

/// A camera read by nokhwa on its own thread.
#[derive(Debug)]
pub struct Camera {
    name: String,
    frames: Receiver<Shot>,
    stall: Duration,
    started: Instant,
    index: u64,
    ended: bool,
}

impl Camera {
    /// Opens camera number `n`; fails at once when it is not there or cannot stream.
    pub fn open(n: u32, opts: SourceOptions) -> Result<Camera, CaptureError> {
        let name = format!("/dev/video{n}");
        let (tx, rx) = sync_channel::<Shot>(1);
        let (ready_tx, ready_rx) = sync_channel::<Result<(), String>>(1);
        std::thread::spawn(move || {
            let requested =
                RequestedFormat::new::<RgbFormat>(RequestedFormatType::AbsoluteHighestFrameRate);
            let mut cam = match NokhwaCamera::new(CameraIndex::Index(n), requested)
                .and_then(|mut c| c.open_stream().map(|()| c))
            {
                Ok(c) => c,
                Err(e) => {
                    let _ = ready_tx.send(Err(e.to_string()));
                    return;
                }
            };
            let _ = ready_tx.send(Ok(()));
            let mut failures = 0;
            loop {
                let shot = cam
                    .frame()
                    .and_then(|f| f.decode_image::<RgbFormat>())
                    .map_err(|e| e.to_string())
                    .and_then(|img| {
                        let (w, h) = (img.width(), img.height());
                        RgbImage::from_raw(w, h, img.into_raw())
                            .ok_or_else(|| "a frame of the wrong size".to_string())
                    });
                failures = if shot.is_err() { failures + 1 } else { 0 };
                if failures >= GIVE_UP_AFTER {
                    // A camera that only fails is gone: ending the thread ends the source.
                    return;
                }
                if failures > 0 {
                    std::thread::sleep(Duration::from_millis(20));
                }
                // Only the newest frame is kept: a full channel drops this one.
                if let Err(std::sync::mpsc::TrySendError::Disconnected(_)) = tx.try_send(shot) {
                    return;
                }
            }
        });
        let stall = Duration::from_secs_f64(opts.stall_seconds.max(0.1));
        match ready_rx.recv_timeout(stall) {
            Ok(Ok(())) => Ok(Camera {
                name,
                frames: rx,
                stall,
                started: Instant::now(),
                index: 0,
                ended: false,
            }),
            Ok(Err(e)) => Err(CaptureError::Open(format!(
                "{name}: {e}: plug one in, or give a video file, a stream URL or a folder of images"
            ))),
            Err(_) => Err(CaptureError::Open(format!(
                "{name}: did not open within {:.0} s",
                stall.as_secs_f64()
            ))),
        }
    }
}

impl FrameSource for Camera {
    fn next_frame(&mut self) -> Option<Result<Frame, CaptureError>> {
        if self.ended {
            return None;
        }
        let index = self.index;
        match self.frames.recv_timeout(self.stall) {
            Ok(Ok(image)) => {
                self.index += 1;
                Some(Ok(Frame {
                    image,
                    scale: 1.0,
                    seconds: self.started.elapsed().as_secs_f64(),
                    index,
                }))
            }
            Ok(Err(message)) => {
                self.index += 1;
                Some(Err(CaptureError::Frame { index, message }))
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
                self.ended = true;
                Some(Err(CaptureError::Failed(format!(
                    "{}: no frame for {:.0} s: the camera stopped (unplugged?)",
                    self.name,
                    self.stall.as_secs_f64()
                ))))
            }
        }
    }

    fn describe(&self) -> String {
        format!("{} (nokhwa)", self.name)
    }
}

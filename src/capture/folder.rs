//! A folder of images played as frames, in file-name order, at a nominal frame rate.

use std::path::{Path, PathBuf};

use super::{CaptureError, Frame, FrameSource};
use crate::vision::load_photo;

/// Image files (JPEG, PNG, WebP, HEIC) played as frames.
#[derive(Debug)]
pub struct Folder {
    name: String,
    files: Vec<PathBuf>,
    next: usize,
    fps: f64,
}

/// Whether a file name looks like an image this program reads.
pub fn is_image_name(p: &Path) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        matches!(
            e.to_ascii_lowercase().as_str(),
            "jpg" | "jpeg" | "png" | "webp" | "heic" | "heif" | "avif"
        )
    })
}

/// The images of `dir` (`is_image_name`), sorted by name; an error when it cannot be listed or
/// holds none.
pub fn images_in(dir: &Path) -> Result<Vec<PathBuf>, CaptureError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| CaptureError::Open(format!("{}: cannot list: {e}", dir.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_image_name(p))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(CaptureError::Open(format!(
            "{}: no images in this folder (JPEG, PNG, WebP, HEIC)",
            dir.display()
        )));
    }
    Ok(files)
}

impl Folder {
    /// Every image of `dir` (`is_image_name`), sorted by name; `fps` sets their times.
    pub fn open(dir: &Path, fps: f64) -> Result<Folder, CaptureError> {
        let files = images_in(dir)?;
        Ok(Folder {
            name: dir.display().to_string(),
            files,
            next: 0,
            fps: if fps > 0.0 { fps } else { 1.0 },
        })
    }

    /// One image as a source of one frame.
    pub fn single(path: &Path) -> Result<Folder, CaptureError> {
        if !path.is_file() {
            return Err(CaptureError::Open(format!(
                "{}: no such image",
                path.display()
            )));
        }
        Ok(Folder {
            name: path.display().to_string(),
            files: vec![path.to_path_buf()],
            next: 0,
            fps: 1.0,
        })
    }
}

impl FrameSource for Folder {
    fn next_frame(&mut self) -> Option<Result<Frame, CaptureError>> {
        let path = self.files.get(self.next)?;
        let index = self.next as u64;
        self.next += 1;
        let seconds = index as f64 / self.fps;
        Some(match load_photo(path) {
            Ok(p) => Ok(Frame {
                image: p.image,
                scale: p.scale,
                seconds,
                index,
            }),
            Err(e) => Err(CaptureError::Frame {
                index,
                message: e.to_string(),
            }),
        })
    }

    fn describe(&self) -> String {
        format!("{} ({} images)", self.name, self.files.len())
    }
}

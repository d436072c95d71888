//! Build script: marks the tests that cannot run on this machine as ignored, so that the test
//! summary shows them as ignored rather than passed. Sets `no_shared` when `../shared` is not
//! beside the repository, and `no_onnxruntime` when the ONNX Runtime library is in none of the
//! places suanfan looks (unless `SUANFAN_REQUIRE_ONNXRUNTIME` is set: then the tests run and fail),
//! `no_ffmpeg` when the `ffmpeg` program does not run (unless `SUANFAN_REQUIRE_FFMPEG` is set),
//! and `no_xvfb` when there is no `Xvfb` to open the window in (unless `SUANFAN_REQUIRE_XVFB`).

use std::path::PathBuf;

const ORT_LIBRARY: &str = "libonnxruntime.so.1.31.1";

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_shared, no_onnxruntime, no_ffmpeg, no_xvfb)");
    println!("cargo::rerun-if-changed=src/build.rs");
    let repo = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let shared = repo.join("../shared/scoring");
    if shared.is_dir() {
        println!("cargo::rerun-if-changed={}", shared.display());
    } else {
        println!("cargo::rustc-cfg=no_shared");
    }
    for v in [
        "ORT_DYLIB_PATH",
        "HOME",
        "XDG_DATA_HOME",
        "SUANFAN_REQUIRE_ONNXRUNTIME",
        "SUANFAN_REQUIRE_FFMPEG",
        "SUANFAN_REQUIRE_XVFB",
        "PATH",
    ] {
        println!("cargo::rerun-if-env-changed={v}");
    }
    let env = |v: &str| {
        std::env::var_os(v)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
    };
    let mut places: Vec<PathBuf> = Vec::new();
    places.extend(env("ORT_DYLIB_PATH"));
    places.extend(env("XDG_DATA_HOME").map(|d| d.join("suanfan").join(ORT_LIBRARY)));
    places.extend(env("HOME").map(|h| h.join(".local/share/suanfan").join(ORT_LIBRARY)));
    for p in &places {
        if let Some(dir) = p.parent().filter(|d| d.is_dir()) {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
    }
    if !places.iter().any(|p| p.is_file()) && env("SUANFAN_REQUIRE_ONNXRUNTIME").is_none() {
        println!("cargo::rustc-cfg=no_onnxruntime");
    }
    let ffmpeg = std::process::Command::new("ffmpeg")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ffmpeg && env("SUANFAN_REQUIRE_FFMPEG").is_none() {
        println!("cargo::rustc-cfg=no_ffmpeg");
    }
    let xvfb = std::process::Command::new("Xvfb")
        .arg("-help")
        .output()
        .is_ok();
    if !xvfb && env("SUANFAN_REQUIRE_XVFB").is_none() {
        println!("cargo::rustc-cfg=no_xvfb");
    }
}

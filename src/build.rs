//! Build script: marks the tests that cannot run on this machine as ignored, so that the test
//! summary shows them as ignored rather than passed. Sets `no_shared` when `../shared` is not
//! beside the repository, and `no_onnxruntime` when the ONNX Runtime library is in none of the
//! places suanfan looks (unless `SUANFAN_REQUIRE_ONNXRUNTIME` is set: then the tests run and fail),
//! `no_ffmpeg` when the `ffmpeg` program does not run (unless `SUANFAN_REQUIRE_FFMPEG` is set),
//! `no_xvfb` when there is no `Xvfb` to open the window in (unless `SUANFAN_REQUIRE_XVFB`), and
//! `no_heif` when libheif's `heif-enc` and `heif-dec` (or `heif-convert`) are not both there
//! to make and read a HEIC photo (unless `SUANFAN_REQUIRE_HEIF`).

use std::path::PathBuf;

#[cfg(feature = "vision")]
#[path = "build/font.rs"]
mod font;

const ORT_LIBRARY: &str = "libonnxruntime.so.1.31.1";

fn main() {
    println!(
        "cargo::rustc-check-cfg=cfg(no_shared, no_onnxruntime, no_ffmpeg, no_xvfb, no_heif, embedded_font)"
    );
    #[cfg(feature = "vision")]
    embed_font();
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
        "SUANFAN_REQUIRE_HEIF",
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
    mark_missing_programs();
}

/// Sets `no_ffmpeg`, `no_xvfb` and `no_heif` for the programs that do not run here, unless
/// the matching `SUANFAN_REQUIRE_*` is set (then their tests run and fail).
fn mark_missing_programs() {
    // Whether `program` starts; ffmpeg must also say its version.
    let starts = |program: &str, arg: &str| std::process::Command::new(program).arg(arg).output();
    let required = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
    let ffmpeg = starts("ffmpeg", "-version").is_ok_and(|o| o.status.success());
    for (there, cfg, require) in [
        (ffmpeg, "no_ffmpeg", "SUANFAN_REQUIRE_FFMPEG"),
        (
            starts("Xvfb", "-help").is_ok(),
            "no_xvfb",
            "SUANFAN_REQUIRE_XVFB",
        ),
        (
            starts("heif-enc", "--help").is_ok()
                && (starts("heif-dec", "--help").is_ok()
                    || starts("heif-convert", "--help").is_ok()),
            "no_heif",
            "SUANFAN_REQUIRE_HEIF",
        ),
    ] {
        if !there && !required(require) {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}

/// Cuts the characters the sources use out of a CJK font into `$OUT_DIR/cjk-subset.ttf` and sets
/// `embedded_font`; without a font, says so (a failure when `SUANFAN_REQUIRE_CJK_FONT` is set).
#[cfg(feature = "vision")]
fn embed_font() {
    println!("cargo::rerun-if-env-changed=SUANFAN_CJK_FONT");
    println!("cargo::rerun-if-env-changed=SUANFAN_REQUIRE_CJK_FONT");
    println!("cargo::rerun-if-changed=src");
    let required = std::env::var_os("SUANFAN_REQUIRE_CJK_FONT").is_some_and(|v| !v.is_empty());
    let fail = |msg: String| {
        if required {
            println!("cargo::error={msg}");
            return;
        }
        println!("cargo::warning={msg}; Chinese text will need a CJK font installed at run time");
    };
    let Some(cjk) = font::cjk_source() else {
        return fail(format!(
            "no font to embed: install fonts-droid-fallback ({}) or set SUANFAN_CJK_FONT",
            font::CJK_CANDIDATES.join(", ")
        ));
    };
    let sources: Vec<(PathBuf, u32)> = font::latin_source().into_iter().chain([cjk]).collect();
    let mut data = Vec::new();
    for (path, _) in &sources {
        println!("cargo::rerun-if-changed={}", path.display());
        match std::fs::read(path) {
            Ok(d) => data.push(d),
            Err(e) => return fail(format!("cannot read the font {}: {e}", path.display())),
        }
    }
    let repo = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let chars = font::characters_used(&repo.join("src"));
    let fonts: Vec<(&[u8], u32)> = data
        .iter()
        .zip(&sources)
        .map(|(d, s)| (&d[..], s.1))
        .collect();
    let (bytes, mut missing) = match font::subset(&fonts, &chars) {
        Ok(r) => r,
        Err(e) => return fail(format!("cannot cut the fonts {sources:?}: {e}")),
    };
    // The mahjong tile characters (U+1F000…) are in tests only; no permissive font here has them.
    missing.retain(|c| !('\u{1F000}'..='\u{1F02F}').contains(c));
    if !missing.is_empty() {
        let list: String = missing.iter().collect();
        println!("cargo::warning=no font to embed has a glyph for: {list}");
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("cjk-subset.ttf");
    match std::fs::write(&out, bytes) {
        Ok(()) => println!("cargo::rustc-cfg=embedded_font"),
        Err(e) => fail(format!("cannot write {}: {e}", out.display())),
    }
}

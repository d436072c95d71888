//! Finding ONNX Runtime's library, and checking it before it is loaded.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ort::environment::Environment;

use super::{ORT_LIBRARY, VisionError};

/// The process's ONNX Runtime environment, once started. `ort` allows one per process, ever
/// (a second `build` fails even after the first is dropped), so every set of models shares it:
/// the window's live source and its photos, the audit's jobs.
static ENVIRONMENT: Mutex<Option<Environment>> = Mutex::new(None);

/// The process's ONNX Runtime environment, started from the library `lib` the first time (after
/// checking it); later calls share it, whatever library they name.
pub(super) fn environment(lib: &Path) -> Result<Environment, VisionError> {
    let mut started = ENVIRONMENT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(env) = started.as_ref() {
        return Ok(env.clone());
    }
    check_library(lib)?;
    let env = ort::init_from(lib)
        .map_err(|e| {
            VisionError::Runtime(format!(
                "cannot load {}: {e}; {}",
                lib.display(),
                install_hint()
            ))
        })?
        .with_name("suanfan")
        // The wheel's library sends Microsoft usage events unless told not to: this stops the
        // events of sessions; only ORT_DISABLE_TELEMETRY, set before it starts (`main.rs`),
        // stops the first one and the uploader.
        .with_telemetry(false)
        .build()
        .map_err(|e| {
            VisionError::Runtime(format!(
                "cannot start ONNX Runtime from {}: {e}",
                lib.display()
            ))
        })?;
    *started = Some(env.clone());
    Ok(env)
}

pub(super) fn install_hint() -> String {
    format!(
        "install it with `tools/install-onnxruntime.sh` (puts {ORT_LIBRARY} from the PyPI wheel onnxruntime==1.31.1 in ~/.local/share/suanfan), \
         or `pip install onnxruntime==1.31.1`, or pass --onnxruntime PATH, or set ORT_DYLIB_PATH"
    )
}

/// Where to look for ONNX Runtime, in order.
pub fn find_onnxruntime(explicit: Option<&Path>) -> Result<PathBuf, VisionError> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(VisionError::Runtime(format!(
                "{} does not exist; {}",
                p.display(),
                install_hint()
            )))
        };
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("ORT_DYLIB_PATH") {
        candidates.push(PathBuf::from(p));
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            candidates.push(dir.join(ORT_LIBRARY));
            candidates.push(dir.join("lib").join(ORT_LIBRARY));
        }
    }
    if let Some(dir) = data_dir() {
        candidates.push(dir.join(ORT_LIBRARY));
    }
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(
            PathBuf::from(home)
                .join(".local/share/suanfan")
                .join(ORT_LIBRARY),
        );
    }
    if let Some(p) = candidates.iter().find(|p| p.is_file()) {
        return Ok(p.clone());
    }
    // The Python environment, last (it costs a process start).
    for python in ["python3", "python"] {
        if let Ok(out) = std::process::Command::new(python)
            .args([
                "-c",
                "import onnxruntime, os; print(os.path.dirname(onnxruntime.__file__))",
            ])
            .output()
        {
            if out.status.success() {
                let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("capi");
                let p = dir.join(ORT_LIBRARY);
                if p.is_file() {
                    return Ok(p);
                }
            }
        }
    }
    Err(VisionError::Runtime(format!(
        "{ORT_LIBRARY} not found; {}",
        install_hint()
    )))
}

/// Checks a library file before it is loaded: loading a file cut short (an interrupted
/// install) would crash the process with SIGBUS, beyond any error handling. An ELF library
/// (Linux) must hold every segment and section table its header names; the pinned library
/// must also have its full size.
pub fn check_library(path: &Path) -> Result<(), VisionError> {
    let bad = |why: String| {
        VisionError::Runtime(format!(
            "{} is not a usable ONNX Runtime library: {why}. It may be an interrupted download: \
             delete it and {}",
            path.display(),
            install_hint()
        ))
    };
    let (head, len) = read_head(path).map_err(|e| bad(format!("cannot read it ({e})")))?;
    if path.file_name().is_some_and(|n| n == ORT_LIBRARY) && len != ORT_LIBRARY_SIZE as u64 {
        return Err(bad(format!(
            "{len} bytes where the library of onnxruntime==1.31.1 has {ORT_LIBRARY_SIZE}"
        )));
    }
    if head.starts_with(b"\x7fELF") {
        elf_complete(&head, len).map_err(bad)?;
    } else if cfg!(target_os = "linux") {
        return Err(bad("not an ELF shared library".to_string()));
    }
    Ok(())
}

/// Size and SHA-256 of `libonnxruntime.so.1.31.1` in the manylinux x86_64 wheel of
/// onnxruntime 1.31.1.
const ORT_LIBRARY_SIZE: usize = 29_352_200;
const ORT_LIBRARY_SHA256: &str = "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3";

/// The folder suanfan keeps ONNX Runtime in: `$XDG_DATA_HOME/suanfan`, else
/// `~/.local/share/suanfan`.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("suanfan"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share/suanfan"))
}

/// Python that fetches the pinned wheel with pip (the ordinary registry client, so a
/// configured index or proxy is honoured), takes the library out of it and prints its SHA-256.
const FETCH_PY: &str = r#"
import hashlib, os, shutil, subprocess, sys, tempfile, zipfile
dest, lib = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                    "--progress-bar", "on", "onnxruntime==1.31.1", "-d", tmp], check=True,
                   stdout=sys.stderr)
    wheel = next(os.path.join(tmp, f) for f in os.listdir(tmp) if f.endswith(".whl"))
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith("capi/" + lib))
        with z.open(name) as src, open(dest, "wb") as out:
            shutil.copyfileobj(src, out)
print(hashlib.sha256(open(dest, "rb").read()).hexdigest())
"#;

/// Fetches the pinned ONNX Runtime library into `data_dir()` the first time it is needed,
/// checking its SHA-256; says what it does on stderr. Refused when `SUANFAN_NO_FETCH` is set
/// and on platforms the pinned wheel does not serve.
pub fn fetch_onnxruntime() -> Result<PathBuf, VisionError> {
    let no = |why: String| {
        VisionError::Runtime(format!(
            "{ORT_LIBRARY} not found and {why}; {}",
            install_hint()
        ))
    };
    if std::env::var_os("SUANFAN_NO_FETCH").is_some() {
        return Err(no("SUANFAN_NO_FETCH is set".to_string()));
    }
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        return Err(no(
            "suanfan fetches it only on Linux x86-64; elsewhere give the ONNX Runtime 1.31 library of your platform with --onnxruntime"
                .to_string(),
        ));
    }
    let dir = data_dir().ok_or_else(|| no("there is no HOME to keep it in".to_string()))?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| no(format!("{} cannot be made ({e})", dir.display())))?;
    let part = dir.join(format!("{ORT_LIBRARY}.part"));
    eprintln!(
        "suanfan: ONNX Runtime not found; fetching {ORT_LIBRARY} (the PyPI wheel onnxruntime==1.31.1, about 17 MB) into {} with pip, once",
        dir.display()
    );
    let out = std::process::Command::new("python3")
        .args(["-c", FETCH_PY])
        .arg(&part)
        .arg(ORT_LIBRARY)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| no(format!("python3 cannot be run to fetch it ({e})")))?;
    let digest = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() {
        let _ = std::fs::remove_file(&part);
        return Err(no("fetching it with pip failed (no network?)".to_string()));
    }
    if digest != ORT_LIBRARY_SHA256 {
        let _ = std::fs::remove_file(&part);
        return Err(no(format!(
            "the fetched file has SHA-256 {digest}, not the pinned {ORT_LIBRARY_SHA256}"
        )));
    }
    let lib = dir.join(ORT_LIBRARY);
    std::fs::rename(&part, &lib)
        .map_err(|e| no(format!("{} cannot be written ({e})", lib.display())))?;
    eprintln!("suanfan: installed {}", lib.display());
    Ok(lib)
}

/// How much of a library `check_library` reads: its ELF header and the program headers that
/// follow it (a 29 MB library read whole cost 3–16 ms of every run, decoding beside it).
const HEAD: u64 = 64 << 10;

/// The first `HEAD` bytes of the file at `path` and its length.
fn read_head(path: &Path) -> std::io::Result<(Vec<u8>, u64)> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let mut head = Vec::with_capacity(HEAD.min(len) as usize);
    file.take(HEAD).read_to_end(&mut head)?;
    Ok((head, len))
}

/// Whether a 64-bit little-endian ELF file of `len` bytes, starting with `data`, holds everything
/// its headers point to (its program headers must lie within `data`).
fn elf_complete(data: &[u8], len: u64) -> Result<(), String> {
    let u16_at = |o: usize| {
        data.get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]) as u64)
    };
    let u64_at = |o: usize| {
        data.get(o..o + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
    };
    let short = || format!("cut short at {len} bytes");
    if data.get(4) != Some(&2) || data.get(5) != Some(&1) {
        return Err("not a 64-bit little-endian ELF file".to_string());
    }
    let (phoff, phsize, phnum) = (u64_at(0x20), u16_at(0x36), u16_at(0x38));
    let (shoff, shsize, shnum) = (u64_at(0x28), u16_at(0x3A), u16_at(0x3C));
    let (Some(phoff), Some(phsize), Some(phnum), Some(shoff), Some(shsize), Some(shnum)) =
        (phoff, phsize, phnum, shoff, shsize, shnum)
    else {
        return Err(short());
    };
    if phoff.saturating_add(phsize * phnum) > len || shoff.saturating_add(shsize * shnum) > len {
        return Err(short());
    }
    for k in 0..phnum {
        let o = (phoff + k * phsize) as usize;
        let (Some(off), Some(filesz)) = (u64_at(o + 8), u64_at(o + 32)) else {
            // Within the file (checked above) but past the part read: no library is made so.
            return Err(format!(
                "its program headers lie past the first {HEAD} bytes"
            ));
        };
        if off.saturating_add(filesz) > len {
            return Err(short());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_cut_short_is_refused_before_loading() {
        let Ok(lib) = find_onnxruntime(None) else {
            eprintln!("SKIPPED: ONNX Runtime not installed");
            return;
        };
        let Ok(full) = std::fs::read(&lib) else {
            return;
        };
        assert!(
            check_library(&lib).is_ok(),
            "the installed library must pass"
        );
        let dir = std::env::temp_dir().join(format!("suanfan-cut-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_default();
        for (k, cut) in [4096usize, 1 << 20, 10 << 20].into_iter().enumerate() {
            // Under another name too, so that the ELF check alone must catch it.
            for name in [ORT_LIBRARY, "libonnxruntime.so"] {
                let p = dir.join(format!("{k}-{name}"));
                std::fs::write(&p, &full[..cut.min(full.len())]).unwrap_or_default();
                let e = check_library(&p).map(|_| ()).err().map(|e| e.to_string());
                assert!(
                    e.as_deref()
                        .is_some_and(|m| m.contains("cut short") || m.contains("bytes where")),
                    "{cut} bytes of {name}: {e:?}"
                );
            }
        }
        std::fs::remove_dir_all(&dir).unwrap_or_default();
    }

    #[test]
    fn a_file_that_is_no_library_is_refused() {
        let p = std::env::temp_dir().join(format!("suanfan-notlib-{}.so", std::process::id()));
        std::fs::write(&p, b"hello").unwrap_or_default();
        assert!(check_library(&p).is_err());
        std::fs::remove_file(&p).unwrap_or_default();
    }
}

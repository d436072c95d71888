//! HEIF photos (HEIC, the iPhone's own format, and AVIF): no decoder for them is written in Rust,
//! so they are handed to libheif's `heif-dec` (or `heif-convert`, its older name), found on the
//! PATH at run time, which writes them out as a JPEG the usual decoding then reads. Where it is
//! missing, the message says how to install it or what to do instead.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The brands of an ISO file's `ftyp` box that name a HEIF image (HEVC, AV1 or a plain HEIF
/// image or sequence); a video (`isom`, `mp42`, `qt  `) is none of them.
const BRANDS: [&[u8; 4]; 10] = [
    b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1", b"avif", b"avis",
];

/// The JPEG quality libheif's program writes at: near lossless for reading faces, and a 12 MP
/// photo is written in a third of the time a PNG takes.
const QUALITY: &str = "95";

/// Whether `bytes` begin a HEIF file: an `ftyp` box whose major brand is a HEIF one.
pub(super) fn is_heif(bytes: &[u8]) -> bool {
    bytes.get(4..8) == Some(b"ftyp")
        && bytes
            .get(8..12)
            .is_some_and(|b| BRANDS.iter().any(|brand| &brand[..] == b))
}

/// The big-endian 32-bit word at `at` of `b` (which holds it).
fn word(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The boxes inside `bytes`: each one's type and body (after its header).
fn boxes(bytes: &[u8]) -> Vec<([u8; 4], &[u8])> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while rest.len() >= 8 {
        let word = |at: usize| word(rest, at);
        let kind = [rest[4], rest[5], rest[6], rest[7]];
        let (size, header) = match word(0) {
            0 => (rest.len(), 8),
            1 if rest.len() >= 16 => {
                let large = u64::from(word(8)) << 32 | u64::from(word(12));
                (usize::try_from(large).unwrap_or(usize::MAX), 16)
            }
            n => (n as usize, 8),
        };
        if size < header || size > rest.len() {
            break;
        }
        out.push((kind, &rest[header..size]));
        rest = &rest[size..];
    }
    out
}

/// The body of the first box of `kind` in `bytes`.
fn child<'a>(bytes: &'a [u8], kind: &[u8; 4]) -> Option<&'a [u8]> {
    boxes(bytes)
        .into_iter()
        .find(|(k, _)| k == kind)
        .map(|(_, body)| body)
}

/// The largest width × height a HEIF file's items say they have (its `ispe` properties, under
/// `meta`, `iprp`, `ipco`): read before it is decoded, to refuse a picture too large to
/// decode. None where the file says none.
pub(super) fn largest_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let meta = child(bytes, b"meta")?;
    let ipco = child(child(meta.get(4..)?, b"iprp")?, b"ipco")?;
    boxes(ipco)
        .into_iter()
        .filter(|(k, body)| k == b"ispe" && body.len() >= 12)
        .map(|(_, b)| (word(b, 4), word(b, 8)))
        .max_by_key(|&(w, h)| u64::from(w) * u64::from(h))
}

/// A file under the system's temporary folder, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    /// A fresh name, unique to this process and call.
    fn new(extension: &str) -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let name = format!("suanfan-{}-{n}.{extension}", std::process::id());
        Self(std::env::temp_dir().join(name))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// libheif's decoding program: `heif-dec` since libheif 1.17, `heif-convert` before (and
/// still, in some packages, beside it). The first found is run.
const PROGRAMS: [&str; 2] = ["heif-dec", "heif-convert"];

/// The HEIF photo at `path` as the bytes of a JPEG, its pixels turned as the file says
/// (libheif applies the HEIF's own rotation and mirroring, which a phone sets; the EXIF
/// orientation it copies into the JPEG says the same turn and must not be applied again).
pub(super) fn to_jpeg(path: &Path) -> Result<Vec<u8>, String> {
    let out = TempFile::new("jpg");
    for program in PROGRAMS {
        let run = Command::new(program)
            .args(["--quiet", "-q", QUALITY, "--"])
            .arg(path)
            .arg(&out.0)
            .output();
        let run = match run {
            Ok(run) => run,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("HEIF photo: cannot run {program}: {e}")),
        };
        if !run.status.success() {
            return Err(format!(
                "corrupt or unreadable HEIF photo ({program}: {})",
                first_line(&run.stderr, &run.stdout)
            ));
        }
        return std::fs::read(&out.0)
            .map_err(|e| format!("HEIF photo: {program} wrote no picture: {e}"));
    }
    Err(missing())
}

/// What to do without libheif's program.
fn missing() -> String {
    "HEIC/HEIF/AVIF photos are decoded by libheif's heif-dec (or heif-convert), which is not \
     installed: install it (Debian, Ubuntu: apt install libheif-examples; Fedora: dnf install \
     libheif-tools; macOS: brew install libheif) or export the photo as JPEG"
        .to_string()
}

/// The first line a failed run wrote, stderr before stdout.
fn first_line(stderr: &[u8], stdout: &[u8]) -> String {
    let (err, out) = (
        String::from_utf8_lossy(stderr),
        String::from_utf8_lossy(stdout),
    );
    err.lines()
        .chain(out.lines())
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("it gave no reason")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first 12 bytes of an ISO file: a box size, `ftyp` and the major brand.
    fn head(brand: &[u8; 4]) -> Vec<u8> {
        [&[0, 0, 0, 24][..], b"ftyp", brand].concat()
    }

    #[test]
    fn heif_brands_are_told_from_videos_and_other_files() {
        for b in [b"heic", b"mif1", b"avif"] {
            assert!(is_heif(&head(b)), "{}", String::from_utf8_lossy(b));
        }
        for b in [b"isom", b"mp42", b"qt  "] {
            assert!(!is_heif(&head(b)), "{}", String::from_utf8_lossy(b));
        }
        assert!(!is_heif(b"\xFF\xD8\xFF\xE0"));
        assert!(!is_heif(b"ftyp"));
    }

    /// A box of `kind` holding `body`.
    fn boxed(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let size = u32::try_from(body.len() + 8).unwrap().to_be_bytes();
        [&size[..], kind, body].concat()
    }

    /// An `ispe` property: version and flags, width, height.
    fn ispe(w: u32, h: u32) -> Vec<u8> {
        boxed(
            b"ispe",
            &[&[0; 4][..], &w.to_be_bytes(), &h.to_be_bytes()].concat(),
        )
    }

    #[test]
    fn the_largest_item_size_is_read_from_the_boxes() {
        let ipco = boxed(
            b"ipco",
            &[boxed(b"hvcC", &[1, 2, 3]), ispe(512, 512), ispe(4032, 3024)].concat(),
        );
        let iprp = boxed(b"iprp", &[ipco, boxed(b"ipma", &[0; 8])].concat());
        let meta = boxed(
            b"meta",
            &[&[0; 4][..], &boxed(b"hdlr", &[0; 20]), &iprp].concat(),
        );
        let file = [head(b"heic"), vec![0; 12], meta, boxed(b"mdat", &[7; 30])].concat();
        // `head` opened a box of 24 bytes: 12 here, 12 more after it.
        assert_eq!(largest_size(&file), Some((4032, 3024)));
        // Cut anywhere, it says a size or none, never panics.
        for n in 0..file.len() {
            let _ = largest_size(&file[..n]);
        }
        assert_eq!(largest_size(&head(b"heic")), None);
    }

    #[test]
    fn a_failed_run_is_told_by_its_first_line_said() {
        assert_eq!(first_line(b"\n  bad box\nmore", b"out"), "bad box");
        assert_eq!(first_line(b"", b"only out\n"), "only out");
        assert_eq!(first_line(b"", b""), "it gave no reason");
    }

    #[test]
    fn a_temporary_file_goes_when_dropped() {
        let t = TempFile::new("txt");
        std::fs::write(&t.0, b"x").unwrap();
        let p = t.0.clone();
        assert!(p.exists());
        drop(t);
        assert!(!p.exists());
    }
}

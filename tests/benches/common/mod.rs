//! What the benchmarks share.

use std::io::Read;
use std::path::Path;

/// The dev corpus (`../shared/scoring/corpus-dev.jsonl.gz`) as text; None when it is absent.
pub fn corpus_text() -> Option<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/scoring/corpus-dev.jsonl.gz");
    let file = std::fs::File::open(&path).ok()?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

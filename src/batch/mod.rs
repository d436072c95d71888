//! `score --batch`: one JSON answer line for every input line, in order, whatever the line
//! holds, on several threads.
//!
//! Each line is read by a fast reader of the common shape (`fast`); a line it does not take is
//! read by `serde_json` (`json::parse_batch_line`), which is the reference for what a line
//! means and for every error message. Answers of the fast path are written straight into a
//! buffer (`answer`) byte for byte as `serde_json` writes `json::corpus_answer`.

mod answer;
mod fast;

use std::io::{self, BufRead, Write};
use std::ops::Range;

use crate::json;
use crate::scoring::{self, Hand, RuleSet};
use crate::tile::Tile;

/// Batch lines longer than this get an error answer (memory stays bounded).
pub const MAX_LINE: usize = 1 << 20;

/// Lines read and answered together; each thread takes an equal share.
const LINES_PER_THREAD: usize = 8192;

/// What one input line turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Text,
    TooLong,
}

/// A run of input lines: their bytes, one after the other, and where each lies.
#[derive(Default, Debug)]
struct Chunk {
    bytes: Vec<u8>,
    lines: Vec<(Range<usize>, Kind)>,
}

impl Chunk {
    /// Reads up to `max` lines; false when the input had none left.
    fn fill(&mut self, input: &mut impl BufRead, max: usize) -> io::Result<bool> {
        self.bytes.clear();
        self.lines.clear();
        while self.lines.len() < max {
            let start = self.bytes.len();
            match next_line(input, &mut self.bytes)? {
                None => break,
                Some(kind) => self.lines.push((start..self.bytes.len(), kind)),
            }
        }
        Ok(!self.lines.is_empty())
    }
}

/// Appends the next line (without its newline, at most MAX_LINE bytes of it) to `buf`; None
/// at the end of input.
fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<Kind>> {
    let start = buf.len();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (part, done) = match memchr_newline(chunk) {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        if buf.len() - start + part.len() > MAX_LINE {
            too_long = true;
        } else {
            buf.extend_from_slice(part);
        }
        let used = done.unwrap_or(chunk.len());
        input.consume(used);
        if done.is_some() {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if too_long {
        buf.truncate(start);
        return Ok(Some(Kind::TooLong));
    }
    if buf.len() > start && buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(Kind::Text))
}

/// The first newline in `b`, eight bytes at a time.
fn memchr_newline(b: &[u8]) -> Option<usize> {
    let mut words = b.chunks_exact(8);
    for (k, w) in words.by_ref().enumerate() {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        let hit = fast::bytes_equal(u64::from_le_bytes(a), b'\n');
        if hit != 0 {
            return Some(k * 8 + hit.trailing_zeros() as usize / 8);
        }
    }
    let done = b.len() - words.remainder().len();
    words
        .remainder()
        .iter()
        .position(|&c| c == b'\n')
        .map(|i| done + i)
}

/// Answers `score --batch` lines from `input` to `out` on `threads` threads (1: this one),
/// one answer line per input line, in input order.
pub fn run(
    input: &mut impl BufRead,
    out: &mut impl Write,
    rules: &RuleSet,
    threads: usize,
) -> io::Result<()> {
    let threads = threads.max(1);
    let mut chunk = Chunk::default();
    let mut outs: Vec<Vec<u8>> = vec![Vec::new(); threads];
    let mut first = 1;
    while chunk.fill(input, LINES_PER_THREAD * threads)? {
        let share = chunk.lines.len().div_ceil(threads);
        let parts = chunk.lines.chunks(share);
        if threads == 1 || chunk.lines.len() < 64 {
            outs[0].clear();
            answer_lines(&chunk.bytes, &chunk.lines, first, rules, &mut outs[0]);
            out.write_all(&outs[0])?;
        } else {
            std::thread::scope(|s| {
                for ((k, lines), buf) in parts.enumerate().zip(outs.iter_mut()) {
                    let bytes = &chunk.bytes;
                    s.spawn(move || {
                        buf.clear();
                        answer_lines(bytes, lines, first + k * share, rules, buf);
                    });
                }
            });
            for buf in &outs {
                out.write_all(buf)?;
            }
        }
        first += chunk.lines.len();
    }
    out.flush()
}

/// Answers a run of lines, the first being line `first` of the input.
fn answer_lines(
    bytes: &[u8],
    lines: &[(Range<usize>, Kind)],
    first: usize,
    rules: &RuleSet,
    out: &mut Vec<u8>,
) {
    let mut hand = Hand {
        melds: Vec::with_capacity(4),
        concealed: Vec::with_capacity(14),
        win_tile: Tile::E,
    };
    for (k, (range, kind)) in lines.iter().enumerate() {
        answer_line(
            &bytes[range.clone()],
            *kind,
            first + k,
            rules,
            &mut hand,
            out,
        );
        out.push(b'\n');
    }
}

/// Writes the answer to line `n` (without its newline).
fn answer_line(
    line: &[u8],
    kind: Kind,
    n: usize,
    rules: &RuleSet,
    hand: &mut Hand,
    out: &mut Vec<u8>,
) {
    // The fast reader checks UTF-8 where it matters (inside strings); a line it leaves,
    // invalid UTF-8 among them, goes the reference way.
    if kind == Kind::Text
        && let Some(read) = fast::read_line(line, hand)
        && let Ok(t) = scoring::tally(hand, &read.ctx, rules)
    {
        answer::write(out, read.id, &t);
        return;
    }
    let v = reference_answer(line, kind, n, rules);
    // Writing a `Value` into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, &v);
}

/// The answer to one line by the reference path: `serde_json` reading, full `score`.
fn reference_answer(line: &[u8], kind: Kind, n: usize, rules: &RuleSet) -> serde_json::Value {
    if kind == Kind::TooLong {
        return json::corpus_error(
            None,
            &format!("line {n}: longer than {MAX_LINE} bytes, not read"),
        );
    }
    let Ok(line) = std::str::from_utf8(line) else {
        return json::corpus_error(None, &format!("line {n}: not valid UTF-8"));
    };
    if line.trim().is_empty() {
        return json::corpus_error(None, &format!("line {n}: empty line"));
    }
    match json::parse_batch_line(line) {
        Err(e) => json::corpus_error(e.id.as_ref(), &format!("line {n}: {}", e.error)),
        Ok(jh) => match jh.to_hand() {
            Err(e) => json::corpus_error(jh.id.as_ref(), &format!("line {n}: {e}")),
            Ok((hand, ctx)) => match scoring::score(&hand, &ctx, rules) {
                Ok(s) => json::corpus_answer(jh.id.as_ref(), &s),
                Err(e) => json::corpus_error(jh.id.as_ref(), &format!("line {n}: {e}")),
            },
        },
    }
}

#[cfg(test)]
mod tests;

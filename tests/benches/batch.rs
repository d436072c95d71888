//! `score --batch` speed, JSON in and out, in memory: `cargo bench --bench batch`.
//!
//! Takes the 20,000 hands of `../shared/scoring/corpus-dev.jsonl.gz` (skips with a message
//! when it is absent) in two forms: the corpus lines as they are (hand, id and the expected
//! answer, ~800 bytes) and bare hand objects (~330 bytes). Each form is answered by
//! `suanfan::batch::run`, the code behind `suanfan score --batch`, from bytes in memory into a
//! buffer, on one thread and on every core; reports µs per hand (wall time).
//! `SUANFAN_BENCH_ONLY=bare` (or `corpus`) measures that form on one thread only (for profiling).

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use suanfan::scoring::RuleSet;

/// The bare hand object of each corpus line.
fn bare_hands(corpus: &str) -> String {
    let mut out = String::new();
    for line in corpus.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("corpus line");
        out.push_str(&serde_json::to_string(&v["hand"]).expect("hand"));
        out.push('\n');
    }
    out
}

fn measure(name: &str, input: &[u8], lines: usize, threads: usize) {
    let rules = RuleSet::default();
    let mut out = Vec::with_capacity(input.len());
    let run = |out: &mut Vec<u8>| {
        out.clear();
        suanfan::batch::run(&mut &input[..], out, &rules, threads).expect("in memory");
    };
    run(&mut out);
    let start = Instant::now();
    let mut n = 0;
    // SUANFAN_BENCH_ONCE: one timed pass (two in all; for counting instructions under valgrind).
    let once = std::env::var_os("SUANFAN_BENCH_ONCE").is_some();
    while n == 0 || (!once && start.elapsed() < Duration::from_secs(3)) {
        run(&mut out);
        n += lines;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{name:<34} {threads} thread(s) {:>10.0} hands/s  {:>6.3} µs/hand  ({} bytes out per pass)",
        n as f64 / secs,
        secs * 1e6 / n as f64,
        out.len()
    );
}

fn main() {
    let Some(corpus) = common::corpus_text() else {
        println!(
            "skipped: ../shared/scoring/corpus-dev.jsonl.gz not found (it sits beside the repository in the team checkout)"
        );
        return;
    };
    let lines = corpus.lines().count();
    let bare = bare_hands(&corpus);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    println!("{lines} hands from the dev corpus, rules mil, {cores} cores");
    match std::env::var("SUANFAN_BENCH_ONLY").as_deref() {
        Ok("bare") => return measure("bare hand lines (~330 B)", bare.as_bytes(), lines, 1),
        Ok("corpus") => return measure("corpus lines (~800 B)", corpus.as_bytes(), lines, 1),
        _ => {}
    }
    for threads in [1, cores] {
        measure("bare hand lines (~330 B)", bare.as_bytes(), lines, threads);
        measure("corpus lines (~800 B)", corpus.as_bytes(), lines, threads);
        if cores == 1 {
            break;
        }
    }
}

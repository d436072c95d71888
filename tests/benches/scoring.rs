//! Scoring speed over the dev corpus, one thread: `cargo bench --bench scoring`.
//!
//! Reads `../shared/scoring/corpus-dev.jsonl.gz` (skips with a message when it is absent),
//! parses every hand once, then scores the whole corpus repeatedly and reports hands per second
//! for the fast path (`total_points`: the best reading and its total, no allocation) and for the
//! full `score` (fan list, exclusions and explanation data).

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use suanfan::json::parse_batch_line;
use suanfan::scoring::{Hand, RuleSet, WinContext, score, total_points};

fn load() -> Option<Vec<(Hand, WinContext)>> {
    let text = common::corpus_text()?;
    let parsed: Vec<(Hand, WinContext)> = text
        .lines()
        .filter_map(|l| parse_batch_line(l).ok())
        .filter_map(|j| j.to_hand().ok())
        .collect();
    // Parsing leaves each hand's tiles among the freed JSON values; copied once more, the
    // hands lie one after the other in memory, as a program scoring them would hold them.
    Some(parsed.to_vec())
}

fn measure(name: &str, hands: &[(Hand, WinContext)], mut f: impl FnMut(&Hand, &WinContext) -> u32) {
    // Warm up, then run whole passes for at least two seconds.
    let mut sink = 0u64;
    for (h, c) in hands {
        sink += u64::from(f(h, c));
    }
    let start = Instant::now();
    let mut n = 0u64;
    // SUANFAN_BENCH_ONCE: one pass only (for counting instructions under valgrind).
    let once = std::env::var_os("SUANFAN_BENCH_ONCE").is_some();
    while n == 0 || (!once && start.elapsed() < Duration::from_secs(2)) {
        for (h, c) in hands {
            sink += u64::from(f(h, c));
        }
        n += hands.len() as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{name:<28} {:>12.0} hands/s   {:>7.3} µs/hand   ({n} hands, checksum {sink})",
        n as f64 / secs,
        secs * 1e6 / n as f64
    );
}

fn main() {
    let Some(hands) = load() else {
        println!(
            "skipped: ../shared/scoring/corpus-dev.jsonl.gz not found (it sits beside the repository in the team checkout)"
        );
        return;
    };
    let rules = RuleSet::default();
    println!(
        "{} hands from the dev corpus, rules mil, one thread",
        hands.len()
    );
    measure("total_points (fast path)", &hands, |h, c| {
        total_points(h, c, &rules).unwrap_or(0)
    });
    if std::env::var_os("SUANFAN_BENCH_FAST_ONLY").is_none() {
        measure("score (full explanation)", &hands, |h, c| {
            score(h, c, &rules).map_or(0, |s| s.total)
        });
    }
}

//! Precomputed per-suit tables for the wait search.
//!
//! A suit's counts (nine digits 0..=4, or seven for the honors) index a table whose entry says
//! whether the suit splits into sets alone, or into sets and one pair, and which added tile
//! would make it do either. A regular hand waits on `x` when `x`'s suit becomes complete and
//! the other suits are complete with exactly one pair among all of them. The tables are built
//! once, on first use, by listing every complete suit (≤ 4 sets and an optional pair): about
//! fifty thousand shapes, a few milliseconds.

use std::sync::OnceLock;

/// Entry bits: complete without a pair.
pub const SETS: u32 = 1;
/// Complete with exactly one pair.
pub const SETS_AND_PAIR: u32 = 2;
/// Bits 2..11: adding rank r (bit 2 + r - 1) completes it without a pair.
pub const WAIT_SETS_SHIFT: u32 = 2;
/// Bits 11..20: adding rank r completes it with a pair.
pub const WAIT_PAIR_SHIFT: u32 = 11;

pub struct SuitTable {
    digits: usize,
    entries: Vec<u32>,
}

impl SuitTable {
    /// The key of a count vector (each count ≤ 4).
    #[inline]
    pub fn key(counts: &[u8]) -> usize {
        counts
            .iter()
            .rev()
            .fold(0usize, |k, &c| k * 5 + usize::from(c))
    }

    #[inline]
    pub fn get(&self, counts: &[u8]) -> u32 {
        debug_assert_eq!(counts.len(), self.digits);
        if counts.iter().any(|&c| c > 4) {
            return 0;
        }
        self.entries[Self::key(counts)]
    }

    fn build(digits: usize, chows: bool) -> SuitTable {
        let size = 5usize.pow(digits as u32);
        let mut entries = vec![0u32; size];
        // Set shapes: pungs of each rank, chows of each start.
        let mut shapes: Vec<Vec<usize>> = (0..digits).map(|r| vec![r, r, r]).collect();
        if chows {
            shapes.extend((0..digits.saturating_sub(2)).map(|r| vec![r, r + 1, r + 2]));
        }
        let mut counts = vec![0u8; digits];
        let mut visit = |counts: &mut Vec<u8>, entries: &mut Vec<u32>| {
            for pair in std::iter::once(None).chain((0..digits).map(Some)) {
                if let Some(p) = pair {
                    counts[p] += 2;
                }
                let bit = if pair.is_some() { SETS_AND_PAIR } else { SETS };
                let wait_shift = if pair.is_some() {
                    WAIT_PAIR_SHIFT
                } else {
                    WAIT_SETS_SHIFT
                };
                if counts.iter().all(|&c| c <= 5) {
                    if counts.iter().all(|&c| c <= 4) {
                        entries[Self::key(counts)] |= bit;
                    }
                    for x in 0..digits {
                        if counts[x] == 0 {
                            continue;
                        }
                        counts[x] -= 1;
                        if counts.iter().all(|&c| c <= 4) {
                            entries[Self::key(counts)] |= 1 << (wait_shift + x as u32);
                        }
                        counts[x] += 1;
                    }
                }
                if let Some(p) = pair {
                    counts[p] -= 2;
                }
            }
        };
        // Every multiset of up to four shapes, in nondecreasing shape order.
        fn rec(
            start: usize,
            left: usize,
            shapes: &[Vec<usize>],
            counts: &mut Vec<u8>,
            entries: &mut Vec<u32>,
            visit: &mut dyn FnMut(&mut Vec<u8>, &mut Vec<u32>),
        ) {
            visit(counts, entries);
            if left == 0 {
                return;
            }
            for s in start..shapes.len() {
                for &r in &shapes[s] {
                    counts[r] += 1;
                }
                if counts.iter().all(|&c| c <= 5) {
                    rec(s, left - 1, shapes, counts, entries, visit);
                }
                for &r in &shapes[s] {
                    counts[r] -= 1;
                }
            }
        }
        rec(0, 4, &shapes, &mut counts, &mut entries, &mut visit);
        SuitTable { digits, entries }
    }
}

/// The table for a numbered suit.
pub fn numbered() -> &'static SuitTable {
    static T: OnceLock<SuitTable> = OnceLock::new();
    T.get_or_init(|| SuitTable::build(9, true))
}

/// The table for the seven honors (no chows).
pub fn honors() -> &'static SuitTable {
    static T: OnceLock<SuitTable> = OnceLock::new();
    T.get_or_init(|| SuitTable::build(7, false))
}

/// Every tile that completes `counts` (13 − 3k tiles) as 4 − k sets and a pair, as a bit mask
/// over tile indices. A fifth copy of a tile counts, as in the reference.
pub fn regular_waits(counts: &[u8; 34]) -> u64 {
    let e = [
        numbered().get(&counts[0..9]),
        numbered().get(&counts[9..18]),
        numbered().get(&counts[18..27]),
        honors().get(&counts[27..34]),
    ];
    let mut waits = 0u64;
    for s in 0..4 {
        let (mut others_sets, mut others_pairs) = (true, 0);
        for (t, &x) in e.iter().enumerate() {
            if t == s {
                continue;
            }
            if x & SETS != 0 {
                continue;
            }
            others_sets = false;
            if x & SETS_AND_PAIR != 0 {
                others_pairs += 1;
            } else {
                others_pairs = 99;
            }
        }
        let base = 9 * s as u32;
        if others_sets {
            waits |= u64::from((e[s] >> WAIT_PAIR_SHIFT) & 0x1FF) << base;
        } else if others_pairs == 1 {
            waits |= u64::from((e[s] >> WAIT_SETS_SHIFT) & 0x1FF) << base;
        }
    }
    waits
}

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

    /// The entry of a suit's counts (0 when a count is over 4). The key is worked out eight
    /// counts at a time (`base5`), the ninth apart.
    #[inline]
    pub fn get(&self, counts: &[u8]) -> u32 {
        debug_assert_eq!(counts.len(), self.digits);
        let mut low = [0u8; 8];
        let n = counts.len().min(8);
        low[..n].copy_from_slice(&counts[..n]);
        let x = u64::from_le_bytes(low);
        let ninth = counts.get(8).copied().unwrap_or(0);
        if any_over_four(x) || ninth > 4 {
            return 0;
        }
        let key = base5(x) + u64::from(ninth) * 5u64.pow(8);
        self.entries.get(key as usize).copied().unwrap_or(0)
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

/// Whether a byte of `x` is over 4: adding 0x7B sets the high bit of a byte from 5 to 0x84;
/// a larger byte has it set already (and whatever it carries into the next byte does not matter).
#[inline]
fn any_over_four(x: u64) -> bool {
    (x | x.wrapping_add(0x7B7B_7B7B_7B7B_7B7B)) & 0x8080_8080_8080_8080 != 0
}

/// The number whose base-5 digits are the bytes of `x` (each at most 4), the first byte lowest:
/// neighbouring digits joined in pairs, then pairs of pairs, then the two halves.
#[inline]
fn base5(x: u64) -> u64 {
    const BYTES: u64 = 0x00FF_00FF_00FF_00FF;
    const HALVES: u64 = 0x0000_FFFF_0000_FFFF;
    let pairs = (x & BYTES) + ((x >> 8) & BYTES) * 5;
    let quads = (pairs & HALVES) + ((pairs >> 16) & HALVES) * 25;
    (quads & 0xFFFF_FFFF) + (quads >> 32) * 625
}

/// Every way a numbered suit's counts split into sets (pungs and chows) and, when the suit
/// holds 2 mod 3 tiles, one pair: the division search's per-suit lists. Only complete shapes
/// (at most four sets and a pair, about 22,000 of them) are kept, in an open-addressed hash of
/// 64 K slots on the suit's base-5 key (512 KB, held in a core's L2 cache).
pub struct SplitTable {
    /// 0 when empty; else the key + 1 (bits 0..21), the number of splits (bits 21..24) and the
    /// first split's place in `splits` (bits 24..40).
    slots: Vec<u64>,
    /// Splits, encoded by `encode_split`, each shape's listed together.
    splits: Vec<u32>,
}

/// Bits of a split: the number of sets (bits 0..3), the pair's rank index + 1 or 0 (bits 3..7),
/// then five bits a set from bit 7: its lowest rank index (4 bits) and whether it is a chow.
pub const SPLIT_SET_SHIFT: u32 = 7;

const SPLIT_SLOTS_LOG2: u32 = 16;
const KEY_BITS: u32 = 21;

impl SplitTable {
    /// The slot where probing for `key` starts (Fibonacci hashing).
    #[inline]
    fn home(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SPLIT_SLOTS_LOG2)) as usize
    }

    /// The splits of a numbered suit's nine counts (none when a count is over 4 or the shape
    /// is not complete).
    #[inline]
    pub fn get(&self, counts: &[u8]) -> &[u32] {
        let mut low = [0u8; 8];
        low.copy_from_slice(&counts[..8]);
        let x = u64::from_le_bytes(low);
        let ninth = counts[8];
        if any_over_four(x) || ninth > 4 {
            return &[];
        }
        let tag = base5(x) + u64::from(ninth) * 5u64.pow(8) + 1;
        let mask = self.slots.len() - 1;
        let mut i = Self::home(tag);
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                return &[];
            }
            if slot & ((1 << KEY_BITS) - 1) == tag {
                let len = ((slot >> KEY_BITS) & 7) as usize;
                let start = (slot >> 24) as usize;
                return self.splits.get(start..start + len).unwrap_or(&[]);
            }
            i = (i + 1) & mask;
        }
    }

    fn build() -> SplitTable {
        // Every multiset of up to four sets (pungs of ranks 0..9, then chows from 0..7), in
        // nondecreasing order, with or without a pair.
        let mut by_key: std::collections::BTreeMap<u64, Vec<u32>> = Default::default();
        let mut chosen = Vec::with_capacity(4);
        let mut counts = [0u8; 9];
        Self::collect(0, &mut chosen, &mut counts, &mut by_key);
        let mut t = SplitTable {
            slots: vec![0; 1 << SPLIT_SLOTS_LOG2],
            splits: Vec::new(),
        };
        let mask = t.slots.len() - 1;
        for (key, splits) in by_key {
            let tag = key + 1;
            let mut i = Self::home(tag);
            while t.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            let start = t.splits.len() as u64;
            t.slots[i] = tag | (splits.len() as u64) << KEY_BITS | start << 24;
            t.splits.extend(splits);
        }
        t
    }

    /// Records the shape of `chosen` (sets as 0..9 pung ranks, 9..16 chow starts), bare and
    /// with each pair, then extends it by one more set from `from` on.
    fn collect(
        from: usize,
        chosen: &mut Vec<usize>,
        counts: &mut [u8; 9],
        by_key: &mut std::collections::BTreeMap<u64, Vec<u32>>,
    ) {
        for pair in [None].into_iter().chain((0..9).map(Some)) {
            if let Some(p) = pair {
                counts[p] += 2;
            }
            if counts.iter().all(|&c| c <= 4) {
                let key = SuitTable::key(counts) as u64;
                by_key
                    .entry(key)
                    .or_default()
                    .push(encode_split(chosen, pair));
            }
            if let Some(p) = pair {
                counts[p] -= 2;
            }
        }
        if chosen.len() == 4 {
            return;
        }
        for set in from..16 {
            let ranks = if set < 9 {
                [set; 3]
            } else {
                [set - 9, set - 8, set - 7]
            };
            for &r in &ranks {
                counts[r] += 1;
            }
            if ranks.iter().all(|&r| counts[r] <= 4) {
                chosen.push(set);
                Self::collect(set, chosen, counts, by_key);
                chosen.pop();
            }
            for &r in &ranks {
                counts[r] -= 1;
            }
        }
    }
}

/// A split's bits (see `SPLIT_SET_SHIFT`), its sets ordered as the division search finds
/// them: by lowest rank, a pung before chows from the same rank.
fn encode_split(chosen: &[usize], pair: Option<usize>) -> u32 {
    let mut sets: Vec<u32> = chosen
        .iter()
        .map(|&s| if s < 9 { s as u32 } else { (s - 9) as u32 | 16 })
        .collect();
    sets.sort_by_key(|&s| ((s & 15) << 1) | (s >> 4));
    let mut bits = chosen.len() as u32 | pair.map_or(0, |p| p as u32 + 1) << 3;
    for (i, s) in sets.iter().enumerate() {
        bits |= s << (SPLIT_SET_SHIFT + 5 * i as u32);
    }
    bits
}

/// The splits of numbered suits.
pub fn splits() -> &'static SplitTable {
    static T: OnceLock<SplitTable> = OnceLock::new();
    T.get_or_init(SplitTable::build)
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
    // Suits complete only with a pair, and suits not complete at all (without branches: the
    // suits' shapes vary from hand to hand, so a branch on them is mispredicted often).
    let (mut with_pair, mut broken) = (0u32, 0u32);
    for (s, &x) in e.iter().enumerate() {
        let (complete, pairable) = (x & SETS != 0, x & SETS_AND_PAIR != 0);
        with_pair |= u32::from(!complete & pairable) << s;
        broken |= u32::from(!complete & !pairable) << s;
    }
    let mut waits = 0u64;
    for (s, &x) in e.iter().enumerate() {
        let others = !(1u32 << s);
        // The other suits all complete without a pair: this one takes the pair; exactly one
        // of them holds the pair: this one completes without.
        let pair_elsewhere = with_pair & others;
        let take_pair = (with_pair | broken) & others == 0;
        let take_sets = (broken & others == 0) & pair_elsewhere.is_power_of_two();
        let all = |b: bool| 0u64.wrapping_sub(u64::from(b));
        let suit_waits = (u64::from(x >> WAIT_PAIR_SHIFT) & all(take_pair))
            | (u64::from(x >> WAIT_SETS_SHIFT) & all(take_sets));
        waits |= (suit_waits & 0x1FF) << (9 * s);
    }
    waits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key worked out eight counts at a time equals the one digit by digit, and a count
    /// over 4 in any place gives no entry.
    #[test]
    fn word_keys_agree_with_digit_keys() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for _ in 0..20_000 {
            let c: Vec<u8> = (0..9).map(|_| next(5) as u8).collect();
            let mut low = [0u8; 8];
            low.copy_from_slice(&c[..8]);
            let key = base5(u64::from_le_bytes(low)) + u64::from(c[8]) * 5u64.pow(8);
            assert_eq!(key as usize, SuitTable::key(&c), "{c:?}");
            assert_eq!(numbered().get(&c), numbered().entries[SuitTable::key(&c)]);
            assert_eq!(
                honors().get(&c[..7]),
                honors().entries[SuitTable::key(&c[..7])]
            );
        }
        for i in 0..9 {
            for over in [5u8, 16, 0x84, 0x85, 0xFF] {
                let mut c = [4u8; 9];
                c[i] = over;
                assert_eq!(numbered().get(&c), 0, "{c:?}");
            }
        }
    }
}

//! The search for the best reading of a winning hand.
//!
//! Order of work (as the reference calculator, whose interpretation `mil` follows):
//! 1. special shapes of a concealed hand: 七对 / 连七对, 全不靠 / 七星不靠, 十三幺, then
//!    组合龙 + set + pair (also with one meld), then 九莲宝灯;
//! 2. if none was found, or it was 七对, every division into 4 sets + a pair, each scored;
//! 3. the highest total wins (就高不就低); on a tie a reading with 一色三同顺 or 三同刻, or a
//!    regular reading against 七对, is preferred.
//!
//! Each reading is scored in two steps: `raw` counts every fan it shows (with the structural
//! limits 不得相同 and 套算一次 applied while combining sets), then the exclusion table of the
//! rule set removes the fans implied by others (不重复). No allocation happens per hand.

use super::fan::{Exclusion, FAN_COUNT, Fan};
use super::hand::{Hand, HandError, MeldKind, WinContext};
use super::rules::{Compiled, ImpossibleFlags, MixedKongs, NineGatesExtras, RuleSet};
use crate::tile::{Counts, Suit, Tile};

/// How many times each fan is counted.
pub type FanCounts = [u8; FAN_COUNT];

/// The kind of one set of a reading.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum SetKind {
    Chow,
    Pung,
    Kong,
    Pair,
}

/// One set of a regular reading.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Set {
    pub kind: SetKind,
    /// The middle tile of a chow; the tile of a pung, kong or pair.
    pub tile: Tile,
    /// Claimed from another player (a declared chow, pung or exposed kong).
    pub exposed: bool,
    /// Declared before the win (a meld, exposed or a concealed kong).
    pub declared: bool,
}

impl Set {
    pub(crate) const EMPTY: Set = Set {
        kind: SetKind::Pair,
        tile: Tile::E,
        exposed: false,
        declared: false,
    };

    /// The tiles of the set.
    pub fn tiles(&self) -> Vec<Tile> {
        match self.kind {
            SetKind::Chow => [-1i8, 0, 1]
                .iter()
                .filter_map(|&k| self.tile.offset(k))
                .collect(),
            SetKind::Pung => vec![self.tile; 3],
            SetKind::Kong => vec![self.tile; 4],
            SetKind::Pair => vec![self.tile; 2],
        }
    }
    /// The lowest tile of the set.
    pub fn first(&self) -> Tile {
        match self.kind {
            SetKind::Chow => self.tile.prev().unwrap_or(self.tile),
            _ => self.tile,
        }
    }
}

/// How the hand was read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Reading {
    /// Four sets and a pair (the pair last); declared melds first.
    Regular([Set; 5]),
    SevenPairs,
    SevenShiftedPairs,
    ThirteenOrphans,
    /// 全不靠 or 七星不靠.
    HonorsAndKnitted,
    /// 组合龙 (the nine tiles, in suit order 147 258 369) + a set + a pair.
    KnittedStraight {
        knitted: [Tile; 9],
        set: Set,
        pair: Tile,
    },
    NineGates,
}

/// The win's circumstances after checking them against the tiles.
#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    self_drawn: bool,
    fourth_tile: bool,
    wall_last: bool,
    kong: bool,
}

/// What is known about the hand before any reading is tried.
struct Info<'a> {
    rules: &'a RuleSet,
    compiled: &'a Compiled,
    win: Tile,
    flags: Flags,
    ctx: WinContext,
    fixed: [Set; 4],
    n_fixed: usize,
    fixed_counts: Counts,
    standing: Counts,
    /// Fans that depend only on which tiles appear (suits, ranges, tile traits).
    traits: FanCounts,
    /// 四归一 count of a regular reading (kongs come only from declared melds).
    hogs: u8,
    /// A bit per tile held, standing or shown.
    present: u64,
}

/// The best reading found.
#[derive(Clone, Copy, Debug)]
pub struct Best {
    pub reading: Reading,
    /// Every fan the reading shows, before exclusions (a counted fan's count is its entry here).
    pub raw: FanCounts,
    /// A bit per fan of `raw` that is not zero.
    pub present: u128,
    /// A bit per fan counted (bit `i` for the fan of index `i`).
    pub counted: u128,
    /// Total without flowers.
    pub total: u32,
    /// Corrections made to the circumstances (see `Correction`).
    pub corrections: Corrections,
}

impl Best {
    /// The fans counted: the raw counts of the fans left after exclusions.
    pub fn fans(&self) -> FanCounts {
        let mut fans = [0u8; FAN_COUNT];
        let mut m = self.counted;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            fans[i] = self.raw[i];
            m &= m - 1;
        }
        fans
    }
}

/// Circumstances that were corrected because the tiles contradict them (under `mil`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Corrections {
    /// 和绝张 dropped: the player holds another copy of the winning tile.
    pub fourth_tile_dropped: bool,
    /// 和绝张 added: the player's own melds show the other three copies.
    pub fourth_tile_added: bool,
    /// 杠上开花 dropped: the player has no kong.
    pub kong_replacement_dropped: bool,
    /// 抢杠和 dropped: the player holds or shows another copy of the tile.
    pub robbing_dropped: bool,
}

fn counts_of(tiles: impl IntoIterator<Item = Tile>) -> Counts {
    let mut c = [0u8; Tile::COUNT];
    for t in tiles {
        c[t.index()] = c[t.index()].saturating_add(1);
    }
    c
}

/// Two tile counts added, eight tiles at a time, and whether any tile comes more than four
/// times. A count is at most 16 (four kongs of one tile), so no byte carries into the next.
fn merge_counts(a: &Counts, b: &Counts) -> (Counts, bool) {
    let mut out = [0u8; Tile::COUNT];
    let mut over = 0u64;
    for ((o, x), y) in out.chunks_mut(8).zip(a.chunks(8)).zip(b.chunks(8)) {
        let (mut wx, mut wy) = ([0u8; 8], [0u8; 8]);
        wx[..x.len()].copy_from_slice(x);
        wy[..y.len()].copy_from_slice(y);
        let sum = u64::from_le_bytes(wx) + u64::from_le_bytes(wy);
        // A byte of 5 or more gets its high bit set by adding 123.
        over |= sum.wrapping_add(0x7B7B_7B7B_7B7B_7B7B) & 0x8080_8080_8080_8080;
        o.copy_from_slice(&sum.to_le_bytes()[..o.len()]);
    }
    (out, over != 0)
}

/// The declared melds as sets, and the tiles they hold.
struct Declared {
    sets: [Set; 4],
    counts: Counts,
    kongs: u8,
}

/// The melds as sets of a reading; a meld the checks below refuse sends the hand to
/// `validate` for the message.
fn declared(hand: &Hand) -> Result<Declared, HandError> {
    let mut d = Declared {
        sets: [Set::EMPTY; 4],
        counts: [0u8; Tile::COUNT],
        kongs: 0,
    };
    for (i, m) in hand.melds.iter().enumerate() {
        let bad_chow = (m.kind == MeldKind::Chow)
            & (!m.tile.is_numbered() | (m.tile.rank() > 7) | (m.claimed > 2));
        if bad_chow {
            hand.validate()?;
        }
        let (kind, tile) = match m.kind {
            MeldKind::Chow => (SetKind::Chow, m.tile.next().unwrap_or(m.tile)),
            MeldKind::Pung => (SetKind::Pung, m.tile),
            MeldKind::Kong | MeldKind::ConcealedKong => (SetKind::Kong, m.tile),
        };
        if m.is_kong() {
            d.kongs += 1;
        }
        d.sets[i] = Set {
            kind,
            tile,
            exposed: m.is_exposed(),
            declared: true,
        };
        let i = m.tile.index();
        match m.kind {
            MeldKind::Chow => {
                for c in d.counts.iter_mut().skip(i).take(3) {
                    *c = c.saturating_add(1);
                }
            }
            MeldKind::Pung => d.counts[i] = d.counts[i].saturating_add(3),
            MeldKind::Kong | MeldKind::ConcealedKong => d.counts[i] = d.counts[i].saturating_add(4),
        }
    }
    Ok(d)
}

/// Checks the circumstances against the tiles (VARIANTS.md #13): under `mil` the ones the
/// tiles contradict are corrected (and said), under the rule sets that reject them an error.
fn check_flags(
    ctx: &WinContext,
    rules: &RuleSet,
    win: Tile,
    standing: &Counts,
    meld: &Declared,
) -> Result<(Flags, Corrections), HandError> {
    let mut corrections = Corrections::default();
    let mut flags = Flags {
        self_drawn: ctx.self_drawn,
        fourth_tile: ctx.fourth_tile,
        wall_last: ctx.last_tile,
        kong: ctx.kong,
    };
    let reject = rules.impossible_flags == ImpossibleFlags::Reject;
    if flags.fourth_tile && standing[win.index()] != 1 {
        if reject {
            return Err(HandError::ImpossibleFlag(
                "和绝张 (fourth tile) while holding another copy of the winning tile",
            ));
        }
        flags.fourth_tile = false;
        corrections.fourth_tile_dropped = true;
    }
    if meld.counts[win.index()] == 3 && !flags.fourth_tile {
        flags.fourth_tile = true;
        corrections.fourth_tile_added = true;
    }
    if flags.kong {
        if flags.self_drawn {
            if meld.kongs == 0 {
                if reject {
                    return Err(HandError::ImpossibleFlag(
                        "杠上开花 (win on a kong replacement) without a kong",
                    ));
                }
                flags.kong = false;
                corrections.kong_replacement_dropped = true;
            }
        } else if meld.counts[win.index()] != 0 || standing[win.index()] != 1 {
            if reject {
                return Err(HandError::ImpossibleFlag(
                    "抢杠和 (robbing a kong) while holding or showing another copy of the tile",
                ));
            }
            flags.kong = false;
            corrections.robbing_dropped = true;
        }
    }
    Ok((flags, corrections))
}

/// Finds and scores the best reading of a hand.
pub fn best_reading(hand: &Hand, ctx: &WinContext, rules: &RuleSet) -> Result<Best, HandError> {
    best_reading_with(hand, ctx, rules, &rules.compiled())
}

/// `best_reading` with the rule set's compiled masks already at hand.
pub(crate) fn best_reading_with(
    hand: &Hand,
    ctx: &WinContext,
    rules: &RuleSet,
    compiled: &Compiled,
) -> Result<Best, HandError> {
    if hand.melds.len() > 4 || hand.melds.len() * 3 + hand.concealed.len() != 13 {
        hand.validate()?;
    }
    if ctx.flowers > 8 {
        return Err(HandError::TooManyFlowers(ctx.flowers));
    }
    let meld = declared(hand)?;
    let mut standing = counts_of(hand.concealed.iter().copied());
    standing[hand.win_tile.index()] = standing[hand.win_tile.index()].saturating_add(1);
    let win = hand.win_tile;
    let (merged, over_four) = merge_counts(&standing, &meld.counts);
    if over_four {
        hand.validate()?;
    }
    let (flags, corrections) = check_flags(ctx, rules, win, &standing, &meld)?;

    let mut info = Info {
        rules,
        compiled,
        win,
        flags,
        ctx: *ctx,
        fixed: meld.sets,
        n_fixed: hand.melds.len(),
        fixed_counts: meld.counts,
        standing,
        traits: [0; FAN_COUNT],
        hogs: 0,
        present: 0,
    };
    info.hogs = tile_hogs(&merged, meld.kongs);
    info.present = present_tiles(&merged);
    info.traits = tile_trait_fans(&info);

    let special = special_reading(&info);
    let seven_pairs = special
        .as_ref()
        .is_some_and(|c| matches!(c.reading, Reading::SevenPairs));
    let best = if special.is_none() || seven_pairs {
        best_division(&info, special, seven_pairs)
    } else {
        special
    };
    match best {
        Some(c) => Ok(Best {
            reading: c.reading,
            raw: c.raw,
            present: c.shown,
            counted: c.mask,
            total: c.total,
            corrections,
        }),
        None => Err(HandError::NotWinning),
    }
}

/// The first special shape the hand takes, scored, in the reference's order: 七对 / 全不靠 /
/// 十三幺, 组合龙 (also with one meld), 九莲宝灯.
fn special_reading(info: &Info) -> Option<Cand> {
    let found = match info.n_fixed {
        0 => special_shape(info)
            .or_else(|| knitted_straight(info))
            .or_else(|| nine_gates(info)),
        1 => knitted_straight(info),
        _ => None,
    };
    found.map(|(reading, raw)| finish(info, reading, raw))
}

/// Every division into four sets and a pair scored, against `best` so far: the highest total
/// wins; on a tie a reading with 一色三同顺 or 三同刻, or any division against 七对.
fn best_division(info: &Info, mut best: Option<Cand>, seven_pairs: bool) -> Option<Cand> {
    let rules = info.rules;
    // Worked out only when a division shows a wait fan by shape.
    let mut single_wait = None;
    let literal_nine_gates =
        rules.nine_gates == NineGatesExtras::Literal && is_nine_gates(info).is_some();
    let mut divisions = Divisions::new();
    divide(&info.standing, &info.fixed, info.n_fixed, &mut divisions);
    for sets in &divisions.list[..divisions.len] {
        let mut raw = regular_raw(info, sets, &mut single_wait);
        if literal_nine_gates && rules.has(Fan::NineGates) {
            raw[Fan::NineGates.index()] = 1;
        }
        let cand = finish(info, Reading::Regular(*sets), raw);
        let replace = match &best {
            None => true,
            Some(b) => {
                cand.total > b.total
                    || (cand.total == b.total
                        && (cand.has(Fan::PureTripleChow)
                            || seven_pairs
                            || cand.has(Fan::TriplePung)))
            }
        };
        if replace {
            best = Some(cand);
        }
    }
    best
}

/// A scored reading: raw counts, the mask of fans counted after exclusions, the total.
#[derive(Clone, Copy)]
struct Cand {
    reading: Reading,
    raw: FanCounts,
    /// A bit per fan of `raw` that is not zero.
    shown: u128,
    mask: u128,
    total: u32,
}

impl Cand {
    fn has(&self, f: Fan) -> bool {
        self.mask & (1 << f.index()) != 0
    }
}

/// The high bit of each byte of `x` that is not zero.
#[inline]
fn nonzero_bytes(x: u64) -> u64 {
    ((x & 0x7F7F_7F7F_7F7F_7F7F).wrapping_add(0x7F7F_7F7F_7F7F_7F7F) | x) & 0x8080_8080_8080_8080
}

/// The high bit of each byte of `x` that equals `c`.
#[inline]
fn bytes_equal(x: u64, c: u8) -> u64 {
    nonzero_bytes(x ^ (0x0101_0101_0101_0101 * u64::from(c))) ^ 0x8080_8080_8080_8080
}

/// A bit per byte of `bytes` for which `marks` (given eight bytes at a time) sets the byte's
/// high bit, the first byte lowest.
#[inline]
fn byte_bits(bytes: &[u8], marks: impl Fn(u64) -> u64) -> u128 {
    // Gathers the eight high bits of a word into one byte.
    let gather = |hi: u64| u128::from((hi >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56);
    let mut m = 0u128;
    let mut words = bytes.chunks_exact(8);
    let mut k = 0;
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        m |= gather(marks(u64::from_le_bytes(b))) << k;
        k += 8;
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut b = [0u8; 8];
        b[..tail.len()].copy_from_slice(tail);
        let keep = u64::MAX >> (64 - 8 * tail.len());
        m |= gather(marks(u64::from_le_bytes(b)) & keep) << k;
    }
    m
}

/// A bit per fan whose count is not zero.
fn nonzero_mask(raw: &FanCounts) -> u128 {
    byte_bits(raw, nonzero_bytes)
}

/// A bit per tile held (standing or shown).
fn present_tiles(counts: &Counts) -> u64 {
    byte_bits(counts, nonzero_bytes) as u64
}

/// Applies the exclusions, then counts the points. 无番和 when nothing else is left.
fn finish(info: &Info, reading: Reading, mut raw: FanCounts) -> Cand {
    let c = info.compiled;
    let present = nonzero_mask(&raw);
    let mut missing = present & !c.has;
    while missing != 0 {
        let i = missing.trailing_zeros() as usize;
        raw[i] = 0;
        missing &= missing - 1;
    }
    let mut mask = present & c.has;
    // Highest fan first (the table order is the fan order); an excluded fan excludes nothing.
    let mut pending = mask & c.triggers;
    while pending != 0 {
        let i = pending.trailing_zeros() as usize;
        mask &= !c.excludes[i];
        pending &= pending - 1;
        pending &= mask;
    }
    let mut shown = present & c.has;
    if mask == 0 && c.has & (1 << Fan::ChickenHand.index()) != 0 {
        raw[Fan::ChickenHand.index()] = 1;
        mask = 1 << Fan::ChickenHand.index();
        shown |= mask;
    }
    let mut total = 0u32;
    let mut m = mask;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        total += u32::from(c.points[i]) * u32::from(raw[i]);
        m &= m - 1;
    }
    Cand {
        reading,
        raw,
        shown,
        mask,
        total,
    }
}

/// Applies the rule set's exclusions to raw counts, highest fan first; an excluded fan excludes
/// nothing. When `record` is given, every removal is written to it as (excluded, by), in the
/// exclusion table's order.
pub fn apply_exclusions(
    rules: &RuleSet,
    raw: &FanCounts,
    mut record: Option<&mut Vec<(Fan, Fan, &'static str)>>,
) -> FanCounts {
    let present = nonzero_mask(raw);
    let mask = exclude(&rules.compiled(), present, |x, e| {
        if let Some(r) = record.as_deref_mut() {
            r.push((x, e.by, e.reason));
        }
    });
    let mut fans = *raw;
    let mut gone = present & !mask;
    while gone != 0 {
        fans[gone.trailing_zeros() as usize] = 0;
        gone &= gone - 1;
    }
    fans
}

/// The exclusions the best reading went through, as `apply_exclusions` records them (its
/// fans shown are known already: no scan of the counts). The list is allocated at its length,
/// and not at all when nothing was excluded.
pub(crate) fn record_exclusions(c: &Compiled, best: &Best) -> Vec<(Fan, Fan, &'static str)> {
    // Noted on the stack first, then listed at its length. A fan is removed at most once, so
    // there are at most `FAN_COUNT` removals.
    let mut noted = [(Fan::ALL[0], Fan::ALL[0]); FAN_COUNT];
    let mut n = 0;
    exclude(c, best.present, |x, e| {
        if let Some(slot) = noted.get_mut(n) {
            *slot = (x, e.by);
            n += 1;
        }
    });
    noted[..n]
        .iter()
        .filter_map(|&(x, by)| c.entries[by.index()].map(|e| (x, by, e.reason)))
        .collect()
}

/// The fans of `present` left after the exclusions of `c`; each removal is told to `record`
/// as (the fan excluded, the exclusion that removed it).
fn exclude(c: &Compiled, present: u128, mut record: impl FnMut(Fan, &'static Exclusion)) -> u128 {
    let mut mask = present;
    // The table's order is the fan order: the lowest index is the highest fan.
    let mut pending = mask & c.triggers;
    while pending != 0 {
        let i = pending.trailing_zeros() as usize;
        pending &= pending - 1;
        let gone = mask & c.excludes[i];
        if gone == 0 {
            continue;
        }
        mask &= !gone;
        pending &= mask;
        if let Some(e) = c.entries[i] {
            for x in e.excluded {
                if gone & (1 << x.index()) != 0 {
                    record(*x, e);
                }
            }
        }
    }
    mask
}

// ---------------------------------------------------------------------------------------------
// Fans that depend only on which tiles appear.

/// 无字, 缺一门, 混一色, 清一色, 五门齐; 断幺, 推不倒, 绿一色, 字一色, 清幺九, 混幺九;
/// 大于五, 小于五, 全大, 全中, 全小.
fn tile_trait_fans(info: &Info) -> FanCounts {
    use crate::tile::masks::*;
    // Without branches: which tiles a hand holds varies from hand to hand, so each fan is
    // written as the 0 or 1 of its condition.
    let mut f = [0u8; FAN_COUNT];
    let mut set = |fan: Fan, applies: bool| f[fan.index()] = u8::from(applies);
    let present = info.present;
    let all_in = |m: u64| present & !m == 0;
    let honors = present & HONORS != 0;
    let voids = [CHARACTERS, BAMBOO, DOTS].map(|m| u8::from(present & m == 0));
    let voids = voids[0] + voids[1] + voids[2];
    let flush = voids == 2;
    set(Fan::NoHonors, !honors & !flush);
    set(Fan::HalfFlush, flush & honors);
    set(Fan::FullFlush, flush & !honors);
    let has = |m: u64| present & m != 0;
    set(Fan::AllTypes, (voids == 0) & has(WINDS) & has(DRAGONS));
    let simples = !has(TERMINALS_OR_HONORS);
    set(Fan::AllSimples, simples);
    set(Fan::ReversibleTiles, all_in(REVERSIBLE));
    set(Fan::AllGreen, all_in(GREEN));
    let all_honors = !simples & all_in(HONORS);
    let all_terminals = !simples & !all_honors & all_in(TERMINALS);
    set(Fan::AllHonors, all_honors);
    set(Fan::AllTerminals, all_terminals);
    set(
        Fan::AllTerminalsAndHonors,
        !simples & !all_honors & !all_terminals & all_in(TERMINALS_OR_HONORS),
    );
    // Bit r - 1 set when some tile of rank r appears.
    let ranks = (present | present >> 9 | present >> 18) & 0x1FF;
    let only = |allowed: u64| !honors & (ranks & !allowed == 0);
    let elementary = info.rules.elementary;
    let lower = only(0b1111);
    let lower_four = (ranks & 0b1000 != 0) | elementary;
    set(Fan::LowerFour, lower & lower_four);
    set(Fan::LowerTiles, lower & !lower_four);
    let upper = !lower & only(0b1_1110_0000);
    let upper_four = (ranks & 0b10_0000 != 0) | elementary;
    set(Fan::UpperFour, upper & upper_four);
    set(Fan::UpperTiles, upper & !upper_four);
    set(Fan::MiddleTiles, !lower & !upper & only(0b0_0011_1000));
    f[Fan::OneVoidedSuit.index()] = voids * u8::from(!flush);
    f
}

fn add(a: &mut FanCounts, b: &FanCounts) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = x.saturating_add(*y);
    }
}

/// 和绝张, 妙手回春, 海底捞月, 杠上开花, 抢杠和, 自摸 (each set to at least 1 when it applies; no
/// branch on the circumstances, which vary from hand to hand).
fn win_flag_fans(info: &Info, f: &mut FanCounts) {
    let fl = info.flags;
    let (drawn, claimed) = (fl.self_drawn, !fl.self_drawn);
    let mut at_least_one = |fan: Fan, applies: bool| {
        f[fan.index()] = f[fan.index()].max(u8::from(applies));
    };
    at_least_one(Fan::LastTile, fl.fourth_tile);
    at_least_one(Fan::SelfDrawn, drawn);
    at_least_one(Fan::LastTileDraw, drawn & fl.wall_last);
    at_least_one(Fan::OutWithReplacementTile, drawn & fl.kong);
    at_least_one(Fan::LastTileClaim, claimed & fl.wall_last);
    at_least_one(Fan::RobbingTheKong, claimed & fl.kong);
}

/// Tiles with all four copies in the hand, kongs aside (四归一).
fn tile_hogs(counts: &Counts, kongs: u8) -> u8 {
    (byte_bits(counts, |x| bytes_equal(x, 4)).count_ones() as u8).saturating_sub(kongs)
}

// ---------------------------------------------------------------------------------------------
// Special shapes.

/// The suit orders of the knitted straights: 147 of the first suit, 258 of the second, 369
/// of the third.
const KNITTED_ORDERS: [[Suit; 3]; 6] = [
    [Suit::Characters, Suit::Bamboo, Suit::Dots],
    [Suit::Characters, Suit::Dots, Suit::Bamboo],
    [Suit::Bamboo, Suit::Characters, Suit::Dots],
    [Suit::Bamboo, Suit::Dots, Suit::Characters],
    [Suit::Dots, Suit::Characters, Suit::Bamboo],
    [Suit::Dots, Suit::Bamboo, Suit::Characters],
];

/// The knitted straights 147 258 369 over the three suits, in the six suit orders.
fn knitted_sequences() -> impl Iterator<Item = [Tile; 9]> {
    KNITTED_ORDERS.into_iter().map(|o| {
        let mut seq = [Tile::E; 9];
        for (k, s) in o.iter().enumerate() {
            for j in 0..3 {
                seq[k * 3 + j] = Tile::numbered(*s, (k + 1 + 3 * j) as u8).unwrap_or(Tile::E);
            }
        }
        seq
    })
}

/// A bit per tile (by index) of each knitted straight of `knitted_sequences`, in its order.
const KNITTED_MASKS: [u64; 6] = {
    let mut masks = [0u64; 6];
    let mut i = 0;
    while i < 6 {
        let mut k = 0;
        while k < 3 {
            let first = match Tile::numbered(KNITTED_ORDERS[i][k], 1) {
                Some(t) => t.index(),
                None => 0,
            };
            // Ranks k+1, k+4, k+7 of the k-th suit of the order.
            masks[i] |= 0b100_1001 << k << first;
            k += 1;
        }
        i += 1;
    }
    masks
};

/// 七对 / 连七对, 全不靠 / 七星不靠, 十三幺 (concealed hands only).
fn special_shape(info: &Info) -> Option<(Reading, FanCounts)> {
    let rules = info.rules;
    let c = &info.standing;
    let mut f = [0u8; FAN_COUNT];
    let concealed_extra = |f: &mut FanCounts| {
        if rules.concealed_hand_on_special_shapes && !info.flags.self_drawn {
            f[Fan::ConcealedHand.index()] = 1;
        }
        if rules.elementary && info.flags.self_drawn {
            f[Fan::FullyConcealedHand.index()] = 1;
        }
    };
    if c.iter().all(|&n| n % 2 == 0) {
        let suit = info.win.suit();
        if suit != Suit::Honors && !rules.elementary && is_seven_shifted_pairs(c, info.win) {
            f[Fan::SevenShiftedPairs.index()] = 1;
            let one = Tile::numbered(suit, 1).map_or(0, |t| c[t.index()]);
            let nine = Tile::numbered(suit, 9).map_or(0, |t| c[t.index()]);
            if one == 0 && nine == 0 {
                f[Fan::AllSimples.index()] = 1;
            }
            win_flag_fans(info, &mut f);
            concealed_extra(&mut f);
            return Some((Reading::SevenShiftedPairs, f));
        }
        f[Fan::SevenPairs.index()] = 1;
        add(&mut f, &info.traits);
        f[Fan::TileHog.index()] = tile_hogs(c, 0);
        if !rules.seven_pairs_tile_hog_in_pure_hands
            && (f[Fan::AllGreen.index()] > 0 || f[Fan::AllTerminals.index()] > 0)
        {
            f[Fan::TileHog.index()] = 0;
        }
        win_flag_fans(info, &mut f);
        concealed_extra(&mut f);
        return Some((Reading::SevenPairs, f));
    }
    let distinct = c.iter().filter(|&&n| n > 0).count();
    if distinct == 14 {
        let mut numbered = 0u64;
        for (i, &n) in c[..27].iter().enumerate() {
            if n > 0 {
                numbered |= 1 << i;
            }
        }
        let n = numbered.count_ones();
        let in_knitted =
            |seq: [Tile; 9]| numbered & !seq.iter().fold(0u64, |m, t| m | 1 << t.index()) == 0;
        if (7..=9).contains(&n) && knitted_sequences().any(in_knitted) {
            if n == 7 && !rules.elementary {
                f[Fan::GreaterHonorsAndKnittedTiles.index()] = 1;
            } else {
                f[Fan::LesserHonorsAndKnittedTiles.index()] = 1;
                if n == 9 {
                    f[Fan::KnittedStraight.index()] = 1;
                }
            }
            win_flag_fans(info, &mut f);
            concealed_extra(&mut f);
            return Some((Reading::HonorsAndKnitted, f));
        }
    }
    if distinct == 13
        && !rules.elementary
        && Tile::all().all(|t| t.is_terminal_or_honor() == (c[t.index()] > 0))
    {
        f[Fan::ThirteenOrphans.index()] = 1;
        win_flag_fans(info, &mut f);
        concealed_extra(&mut f);
        return Some((Reading::ThirteenOrphans, f));
    }
    None
}

/// Seven consecutive pairs (exactly two each) in the suit of the winning tile.
fn is_seven_shifted_pairs(c: &Counts, win: Tile) -> bool {
    let suit = win.suit();
    (1..=3u8).any(|start| {
        (start..start + 7).all(|r| Tile::numbered(suit, r).is_some_and(|t| c[t.index()] == 2))
    })
}

/// The rank of the extra tile when the hand is 1112345678999 + one tile of the suit, won on
/// that tile (九莲宝灯 waits on all nine).
fn is_nine_gates(info: &Info) -> Option<u8> {
    if info.n_fixed != 0 || !info.win.is_numbered() {
        return None;
    }
    let suit = info.win.suit();
    let r = info.win.rank();
    let c = |rank: u8| Tile::numbered(suit, rank).map_or(0, |t| info.standing[t.index()]);
    let total: u8 = info.standing.iter().sum();
    let suit_total: u8 = (1..=9).map(c).sum();
    if suit_total != total {
        return None;
    }
    let base = |rank: u8| match rank {
        1 | 9 => 3,
        _ => 1,
    };
    (1..=9)
        .all(|rank| c(rank) == base(rank) + u8::from(rank == r))
        .then_some(r)
}

/// 九莲宝灯 with the reference's fixed extras by winning tile.
fn nine_gates(info: &Info) -> Option<(Reading, FanCounts)> {
    let rules = info.rules;
    if rules.nine_gates == NineGatesExtras::Literal {
        return None;
    }
    let r = is_nine_gates(info)?;
    let mut f = [0u8; FAN_COUNT];
    f[Fan::NineGates.index()] = 1;
    let terminal_pung = u8::from(rules.nine_gates == NineGatesExtras::Reference);
    match r {
        1 | 9 => {
            f[Fan::PureStraight.index()] = 1;
            f[Fan::TileHog.index()] = 1;
        }
        2 | 8 => {
            f[Fan::TwoConcealedPungs.index()] = 1;
            f[Fan::ShortStraight.index()] = 1;
            f[Fan::PungOfTerminalsOrHonors.index()] = terminal_pung;
        }
        5 => {
            f[Fan::TwoConcealedPungs.index()] = 1;
            f[Fan::PungOfTerminalsOrHonors.index()] = terminal_pung;
        }
        _ => f[Fan::ShortStraight.index()] = 1,
    }
    win_flag_fans(info, &mut f);
    Some((Reading::NineGates, f))
}

/// 组合龙 + a set + a pair; the set may be a meld.
fn knitted_straight(info: &Info) -> Option<(Reading, FanCounts)> {
    let rules = info.rules;
    if !rules.knitted_straight_shape || !rules.has(Fan::KnittedStraight) {
        return None;
    }
    let (seq, rest, sets) = knitted_division(info)?;
    let set = sets[3];
    let pair = sets[4].tile;
    let mut f = [0u8; FAN_COUNT];
    f[Fan::KnittedStraight.index()] = 1;
    knitted_set_fans(info, set, pair, &mut f);
    win_flag_fans(info, &mut f);
    knitted_concealment_fans(info, set, &mut f);
    knitted_wait_fans(info, &seq, &rest, &sets, &mut f);
    Some((
        Reading::KnittedStraight {
            knitted: seq,
            set,
            pair,
        },
        f,
    ))
}

/// The knitted straight held standing, what is left of the standing tiles without it, and the
/// one division of the rest (with a meld, if any) into a fourth set and a pair.
fn knitted_division(info: &Info) -> Option<([Tile; 9], Counts, [Set; 5])> {
    // Quick test: the nine tiles of one knitted straight are held. (`present` also counts a
    // meld's tiles, so a few more hands pass; the search below decides.)
    let held = info.present;
    if !KNITTED_MASKS.iter().any(|&m| m & !held == 0) {
        return None;
    }
    let c = &info.standing;
    if !c.iter().any(|&n| n >= 2) {
        return None;
    }
    let seq = knitted_sequences().find(|seq| seq.iter().all(|t| c[t.index()] > 0))?;
    let mut rest = *c;
    for t in seq {
        rest[t.index()] -= 1;
    }
    let mut divisions = Divisions::new();
    // The knitted straight stands for three sets: divide what is left into the fourth and a pair.
    let mut fixed = [Set::EMPTY; 4];
    fixed[3] = info.fixed[0];
    divide(&rest, &fixed, info.n_fixed + 3, &mut divisions);
    (divisions.len == 1).then(|| (seq, rest, divisions.list[0]))
}

/// Fans of the fourth set and the pair beside a knitted straight.
fn knitted_set_fans(info: &Info, set: Set, pair: Tile, f: &mut FanCounts) {
    let all = |t: Tile| info.fixed_counts[t.index()] + info.standing[t.index()];
    if set.kind == SetKind::Chow {
        if pair.is_numbered() {
            f[Fan::AllChows.index()] = 1;
        }
        if all(pair) == 4 {
            f[Fan::TileHog.index()] = 1;
        }
    } else if set.tile.is_honor() {
        if set.tile.is_wind() {
            f[Fan::PungOfTerminalsOrHonors.index()] = 1;
            wind_fans(info, set.tile, false, f);
            if pair.is_dragon() {
                f[Fan::AllTypes.index()] = 1;
            }
        } else {
            f[Fan::DragonPung.index()] = 1;
            if pair.is_wind() {
                f[Fan::AllTypes.index()] = 1;
            }
        }
    } else {
        if set.tile.is_terminal() {
            f[Fan::PungOfTerminalsOrHonors.index()] = 1;
        }
        if !pair.is_honor() {
            f[Fan::NoHonors.index()] = 1;
        }
        if set.kind != SetKind::Kong && all(set.tile) == 4 {
            f[Fan::TileHog.index()] = 1;
        }
    }
}

/// Kong fans of the fourth set, and 门前清 / 不求人 when it is not exposed.
fn knitted_concealment_fans(info: &Info, set: Set, f: &mut FanCounts) {
    if set.exposed {
        if set.kind == SetKind::Kong {
            f[Fan::MeldedKong.index()] = 1;
        }
        return;
    }
    if set.kind == SetKind::Kong {
        f[Fan::ConcealedKong.index()] = 1;
    }
    if info.flags.self_drawn {
        f[Fan::FullyConcealedHand.index()] = 1;
    } else {
        f[Fan::ConcealedHand.index()] = 1;
    }
}

/// The wait fan of a knitted-straight hand. A win inside the knitted body counts one only
/// under the rule sets that say so; with no meld the wait is read from the set and pair's
/// shape, with a meld it is a single wait.
fn knitted_wait_fans(
    info: &Info,
    seq: &[Tile; 9],
    rest: &Counts,
    sets: &[Set; 5],
    f: &mut FanCounts,
) {
    let win_in_body = seq.contains(&info.win);
    if win_in_body && !info.rules.knitted_body_wait_fans {
        return;
    }
    if info.n_fixed == 0 {
        let mut table = wait_table(rest);
        if unique_wait_in(&mut table, 4, info.win, false)
            && let Some(fan) = wait_shape_fan(&sets[3..5], info.win, false)
        {
            f[fan.index()] = 1;
        }
    } else if !win_in_body || info.standing[info.win.index()] == 3 {
        f[Fan::SingleWait.index()] = 1;
    }
}

// ---------------------------------------------------------------------------------------------
// Waits.

/// Tile counts widened to the wait search's cells, in which a count may wrap (see
/// `unique_wait_in`).
fn wait_table(counts: &Counts) -> [u16; Tile::COUNT] {
    counts.map(u16::from)
}

/// Whether the standing hand (before the winning tile) waits on exactly one tile, counting the
/// regular shape and, with 13 tiles, seven pairs. A tile of which all four are held still counts.
fn has_single_wait(info: &Info) -> bool {
    let mut c = info.standing;
    c[info.win.index()] -= 1;
    let mut waits = super::tables::regular_waits(&c);
    if info.n_fixed == 0 && waits.count_ones() <= 1 {
        waits |= seven_pairs_wait(&wait_table(&c));
    }
    waits.count_ones() == 1
}

/// The same by depth-first search over the sets, as the reference does it; kept for the
/// 组合龙 case (whose counts may wrap) and to check the tables in tests.
#[cfg(test)]
pub(crate) fn single_wait_search(standing: &Counts, win: Tile, n: usize) -> bool {
    let mut table = wait_table(standing);
    unique_wait_in(&mut table, n, win, n == 13)
}

#[cfg(test)]
pub(crate) fn single_wait_tables(standing: &Counts, win: Tile, n: usize) -> bool {
    let mut c = *standing;
    c[win.index()] -= 1;
    let mut waits = super::tables::regular_waits(&c);
    if n == 13 {
        waits |= seven_pairs_wait(&wait_table(&c));
    }
    waits.count_ones() == 1
}

/// Removes the winning tile from `table` (which holds it) and tells whether what is left waits
/// on one tile only. Counts wrap like the reference's unsigned counters, which matters only for
/// the 组合龙 case where the winning tile may sit in the knitted body.
fn unique_wait_in(table: &mut [u16; Tile::COUNT], n: usize, win: Tile, seven_pairs: bool) -> bool {
    let w = win.index();
    table[w] = table[w].wrapping_sub(1);
    let mut waits = 0u64;
    if seven_pairs {
        waits |= seven_pairs_wait(table);
    }
    regular_waits(table, n as isize, 0, &mut waits);
    table[w] = table[w].wrapping_add(1);
    waits.count_ones() == 1
}

fn seven_pairs_wait(table: &[u16; Tile::COUNT]) -> u64 {
    let pairs: u32 = table
        .iter()
        .map(|&n| match n {
            2 | 3 => 1,
            4 => 2,
            _ => 0,
        })
        .sum();
    if pairs == 6
        && let Some(i) = table.iter().position(|&n| n == 1 || n == 3)
    {
        return 1 << i;
    }
    0
}

/// What two tiles wait on to become a set: a pair waits on itself, two neighbours on both
/// ends, a gap on the middle. Only the first shape found counts.
fn partial_set_wait(table: &[u16; Tile::COUNT], waits: &mut u64) {
    for t in Tile::all() {
        let n = table[t.index()];
        if n < 1 {
            continue;
        }
        if n > 1 {
            *waits |= 1 << t.index();
            return;
        }
        if t.is_numbered() {
            let r = t.rank();
            if r > 1 && t.prev().is_some_and(|p| table[p.index()] != 0) {
                if let Some(x) = t.next() {
                    *waits |= 1 << x.index();
                }
                if let Some(x) = t.offset(-2) {
                    *waits |= 1 << x.index();
                }
                return;
            }
            if r > 2 && t.offset(-2).is_some_and(|p| table[p.index()] != 0) {
                if let Some(x) = t.prev() {
                    *waits |= 1 << x.index();
                }
                return;
            }
        }
    }
}

/// Set keys in the canonical order of a division: by first tile, a pung before a chow.
fn pung_key(t: Tile) -> u32 {
    2 * t.index() as u32 + 2
}
fn chow_key(t: Tile) -> u32 {
    2 * t.index() as u32 + 3
}

fn regular_waits(table: &mut [u16; Tile::COUNT], n: isize, prev: u32, waits: &mut u64) {
    if n == 1 {
        if let Some(i) = table.iter().position(|&c| c == 1) {
            *waits |= 1 << i;
        }
        return;
    }
    if n == 4 {
        for i in 0..Tile::COUNT {
            if table[i] < 2 {
                continue;
            }
            table[i] = table[i].wrapping_sub(2);
            partial_set_wait(table, waits);
            table[i] = table[i].wrapping_add(2);
        }
    }
    for t in Tile::all() {
        let i = t.index();
        if table[i] < 1 {
            continue;
        }
        if table[i] > 2 && pung_key(t) > prev {
            table[i] = table[i].wrapping_sub(3);
            regular_waits(table, n - 3, pung_key(t), waits);
            table[i] = table[i].wrapping_add(3);
        }
        if t.is_numbered()
            && t.rank() < 8
            && table[i + 1] != 0
            && table[i + 2] != 0
            && chow_key(t) >= prev
        {
            for k in 0..3 {
                table[i + k] = table[i + k].wrapping_sub(1);
            }
            regular_waits(table, n - 3, chow_key(t), waits);
            for k in 0..3 {
                table[i + k] = table[i + k].wrapping_add(1);
            }
        }
    }
}

/// 边张, 嵌张, 单钓将 from where the winning tile sits in the standing sets. At most one of
/// the three counts: edge before closed before single. With a single wait (mil, wmo2006) the
/// winning tile at either end of a chow is an edge, as the reference counts it; by shape alone
/// (china1998) only 12+3 and 89+7 are.
fn wait_shape_fan(standing_sets: &[Set], win: Tile, by_shape: bool) -> Option<Fan> {
    // Without branches: a chow's middle tile (rank 2 to 8) and its neighbours share its suit,
    // so the distance of the tile indices says where the winning tile sits.
    let (mut edge, mut closed, mut single) = (false, false, false);
    for s in standing_sets {
        let chow = s.kind == SetKind::Chow;
        let d = win.index() as isize - s.tile.index() as isize;
        let rank = s.tile.rank();
        let beside = if by_shape {
            (rank == 2) & (d == 1) | (rank == 8) & (d == -1)
        } else {
            d.abs() == 1
        };
        edge |= chow & beside;
        closed |= chow & (d == 0);
        single |= (s.kind == SetKind::Pair) & (d == 0);
    }
    const FANS: [Option<Fan>; 4] = [
        None,
        Some(Fan::SingleWait),
        Some(Fan::ClosedWait),
        Some(Fan::ClosedWait),
    ];
    if edge {
        Some(Fan::EdgeWait)
    } else {
        FANS[usize::from(closed) * 2 + usize::from(single)]
    }
}

// ---------------------------------------------------------------------------------------------
// Divisions into 4 sets and a pair.

const MAX_DIVISIONS: usize = 20;

struct Divisions {
    list: [[Set; 5]; MAX_DIVISIONS],
    len: usize,
}

impl Divisions {
    fn new() -> Self {
        Divisions {
            list: [[Set::EMPTY; 5]; MAX_DIVISIONS],
            len: 0,
        }
    }
}

/// Every division of `counts` into the sets missing after `n_fixed` declared ones, and a pair,
/// in the reference's order: lexicographic by the canonical keys of the standing sets. Each
/// numbered suit's splits come from the precomputed table; the honours split one way only.
fn divide(counts: &Counts, fixed: &[Set; 4], n_fixed: usize, out: &mut Divisions) {
    // Only a suit holding 2 mod 3 tiles can hold the pair; every other suit must hold 0 mod 3.
    let sums = [0, 9, 18, 27].map(|start| suit_sum(counts, start));
    let (mut pair_suits, mut broken) = (0u32, false);
    for (s, &n) in sums.iter().enumerate() {
        pair_suits |= u32::from(n % 3 == 2) << s;
        broken |= n % 3 == 1;
    }
    if broken || pair_suits.count_ones() != 1 {
        return;
    }
    // The division being built: its sets in places 0..4 (4..8 take what a suit writes past
    // its own sets), its pair in place 8.
    let mut work = [Set::EMPTY; 9];
    work[..4].copy_from_slice(fixed);
    let mut honors = SetList {
        list: [Set::EMPTY; 4],
        len: 0,
    };
    if sums[3] != 0 && !honor_split(counts, pair_suits == 8, &mut honors, &mut work[8]) {
        return;
    }
    let table = super::tables::splits();
    // An empty suit's one split (no sets) is in the table too.
    let lists = [0usize, 1, 2].map(|s| table.get(&counts[9 * s..9 * s + 9]));
    for &a in lists[0] {
        for &b in lists[1] {
            for &c in lists[2] {
                let mut k = n_fixed;
                for (s, split) in [a, b, c].into_iter().enumerate() {
                    k = place_split(split, 9 * s, k, &mut work);
                }
                let at = k.min(4);
                work[at..at + 4].copy_from_slice(&honors.list);
                k += honors.len;
                if k == 4 && out.len < MAX_DIVISIONS {
                    out.list[out.len] = [work[0], work[1], work[2], work[3], work[8]];
                    out.len += 1;
                }
            }
        }
    }
    sort_divisions(out, n_fixed);
}

/// Writes the honours' pungs to `pungs` (and, when they hold it, the pair to `pair`); false
/// when the honours do not split into pungs and that pair. The seven counts are read as one
/// word: every count must be 0, 2 or 3, with one 2 exactly when the honours hold the pair.
fn honor_split(counts: &Counts, with_pair: bool, pungs: &mut SetList, pair: &mut Set) -> bool {
    const SEVEN: u64 = 0x0080_8080_8080_8080;
    let mut b = [0u8; 8];
    b[..7].copy_from_slice(&counts[27..]);
    let x = u64::from_le_bytes(b);
    let (threes, twos) = (bytes_equal(x, 3) & SEVEN, bytes_equal(x, 2) & SEVEN);
    if threes | twos | (bytes_equal(x, 0) & SEVEN) != SEVEN
        || twos.count_ones() != u32::from(with_pair)
    {
        return false;
    }
    let honor = |bit: u64| Tile::from_index(27 + bit.trailing_zeros() as usize / 8);
    if let Some(t) = honor(twos) {
        *pair = concealed_set(SetKind::Pair, t);
    }
    let mut m = threes;
    while let Some(t) = honor(m) {
        if let Some(slot) = pungs.list.get_mut(pungs.len) {
            *slot = concealed_set(SetKind::Pung, t);
        }
        pungs.len += 1;
        m &= m - 1;
    }
    pungs.len <= 4
}

/// Up to four sets.
struct SetList {
    list: [Set; 4],
    len: usize,
}

/// A set made of standing tiles.
fn concealed_set(kind: SetKind, tile: Tile) -> Set {
    Set {
        kind,
        tile,
        exposed: false,
        declared: false,
    }
}

/// Writes a suit's split (see `tables::SPLIT_SET_SHIFT`; `base` is the suit's first tile index)
/// into `work` from place `k` on, its pair into `work[8]`; returns the next free place.
/// Without branches: four sets are always written (those past the split's own are overwritten
/// by the next suit or lie past place 4), and the pair is written back unchanged when the
/// suit has none.
fn place_split(split: u32, base: usize, k: usize, work: &mut [Set; 9]) -> usize {
    let tile = |rank: u32| Tile::from_index(base + rank as usize).unwrap_or(Tile::E);
    let pair = (split >> 3) & 15;
    let pair_set = concealed_set(SetKind::Pair, tile(pair.saturating_sub(1)));
    work[8] = if pair != 0 { pair_set } else { work[8] };
    let at = k.min(4);
    let mut sets = split >> super::tables::SPLIT_SET_SHIFT;
    for place in &mut work[at..at + 4] {
        let chow = sets & 16 != 0;
        let kind = if chow { SetKind::Chow } else { SetKind::Pung };
        *place = concealed_set(kind, tile((sets & 15) + u32::from(chow)));
        sets >>= 5;
    }
    k + (split & 7) as usize
}

/// Insertion sort of the divisions into the reference's order (there are few).
fn sort_divisions(out: &mut Divisions, n_fixed: usize) {
    let key = |d: &[Set; 5]| -> [u32; 4] {
        let mut k = [0u32; 4];
        for (j, s) in d[n_fixed..4].iter().enumerate() {
            k[j] = if s.kind == SetKind::Chow {
                chow_key(s.tile.prev().unwrap_or(s.tile))
            } else {
                pung_key(s.tile)
            };
        }
        k
    };
    for i in 1..out.len {
        let mut j = i;
        while j > 0 && key(&out.list[j - 1]) > key(&out.list[j]) {
            out.list.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// The number of tiles of the suit starting at `start` (the honours: seven tiles), eight counts
/// added at a time by one multiplication (a count is at most 16, the sum under 256).
fn suit_sum(counts: &Counts, start: usize) -> u8 {
    let end = (start + 9).min(Tile::COUNT);
    let mut low = [0u8; 8];
    let n = (end - start).min(8);
    low[..n].copy_from_slice(&counts[start..start + n]);
    let eight = (u64::from_le_bytes(low).wrapping_mul(0x0101_0101_0101_0101) >> 56) as u8;
    eight
        + if end - start > 8 {
            counts[start + 8]
        } else {
            0
        }
}

// ---------------------------------------------------------------------------------------------
// Scoring one regular division.

/// Sorts the two to four tiles of a set group (tile order is code order) by a sorting
/// network: fixed compare-and-swaps, each a minimum and a maximum, with no branch on the tiles.
fn sort_small(a: &mut [Tile]) {
    let mut swap = |i: usize, j: usize| {
        if let (Some(&x), Some(&y)) = (a.get(i), a.get(j)) {
            a[i] = x.min(y);
            a[j] = x.max(y);
        }
    };
    // For four: (0,1) (2,3) (0,2) (1,3) (1,2); the pairs reaching past a shorter slice do
    // nothing, which leaves the network for three, (0,1) (0,2) (1,2), and for two, (0,1).
    for (i, j) in [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)] {
        swap(i, j);
    }
}

const fn mixed_suits(a: Tile, b: Tile, c: Tile) -> bool {
    let (x, y, z) = (a.suit() as u8, b.suit() as u8, c.suit() as u8);
    x != y && x != z && y != z
}

/// Three ranks that are consecutive in some order.
const fn shifted_unordered(a: u8, b: u8, c: u8) -> bool {
    let [x, y, z] = sort3([a, b, c]);
    x + 1 == y && y + 1 == z
}

const fn sort3(mut r: [u8; 3]) -> [u8; 3] {
    let mut i = 0;
    while i < 2 {
        let mut j = 0;
        while j < 2 - i {
            if r[j] > r[j + 1] {
                let x = r[j];
                r[j] = r[j + 1];
                r[j + 1] = x;
            }
            j += 1;
        }
        i += 1;
    }
    r
}

/// Chow fans of two chows, by middle tiles (in either order): 喜相逢, 连六, 老少副, 一般高.
fn two_chows_fan(a: Tile, b: Tile) -> Option<Fan> {
    CHOW_FANS.two[usize::from(CHOW_SLOT[a.index()])][usize::from(CHOW_SLOT[b.index()])]
}

/// Chow fans of three chows, by middle tiles (in any order).
fn three_chows_fan(t: [Tile; 3]) -> Option<Fan> {
    let [a, b, c] = t.map(|x| usize::from(CHOW_SLOT[x.index()]));
    CHOW_FANS.three[a][b][c]
}

/// The chow tables' place of a chow by its middle tile (ranks 2 to 8): suit × 7 + rank − 2;
/// `CHOW_SLOTS - 1`, a slot with no fan, for any other tile.
const CHOW_SLOT: [u8; Tile::COUNT] = {
    let mut t = [CHOW_SLOTS as u8 - 1; Tile::COUNT];
    let mut slot = 0;
    while let Some(tile) = chow_of_slot(slot) {
        t[tile.index()] = slot as u8;
        slot += 1;
    }
    t
};
const CHOW_SLOTS: usize = 22;

/// The middle tile of a chow slot (`None` for the slot of no chow and past it): the one
/// statement of the slots, `CHOW_SLOT` is its inverse.
const fn chow_of_slot(slot: usize) -> Option<Tile> {
    if slot >= 21 {
        return None;
    }
    Tile::from_index(slot / 7 * 9 + slot % 7 + 1)
}

/// The fans of two and of three chows, by chow slot: a table look-up instead of a chain of
/// data-dependent comparisons.
struct ChowFans {
    two: [[Option<Fan>; CHOW_SLOTS]; CHOW_SLOTS],
    three: [[[Option<Fan>; CHOW_SLOTS]; CHOW_SLOTS]; CHOW_SLOTS],
}

static CHOW_FANS: ChowFans = {
    let mut t = ChowFans {
        two: [[None; CHOW_SLOTS]; CHOW_SLOTS],
        three: [[[None; CHOW_SLOTS]; CHOW_SLOTS]; CHOW_SLOTS],
    };
    let mut a = 0;
    while a < 21 {
        let mut b = 0;
        while b < 21 {
            if let (Some(x), Some(y)) = (chow_of_slot(a), chow_of_slot(b)) {
                t.two[a][b] = two_chows_fan_of(x, y);
                let mut c = 0;
                while c < 21 {
                    if let Some(z) = chow_of_slot(c) {
                        t.three[a][b][c] = three_chows_fan_of([x, y, z]);
                    }
                    c += 1;
                }
            }
            b += 1;
        }
        a += 1;
    }
    t
};

/// `two_chows_fan` worked out (for the table).
const fn two_chows_fan_of(a: Tile, b: Tile) -> Option<Fan> {
    let (ra, rb) = (a.rank(), b.rank());
    if a.suit() as u8 != b.suit() as u8 {
        return if ra == rb {
            Some(Fan::MixedDoubleChow)
        } else {
            None
        };
    }
    let (x, y) = (a.index(), b.index());
    if x + 3 == y || y + 3 == x {
        Some(Fan::ShortStraight)
    } else if (ra == 2 && rb == 8) || (ra == 8 && rb == 2) {
        Some(Fan::TwoTerminalChows)
    } else if x == y {
        Some(Fan::PureDoubleChow)
    } else {
        None
    }
}

/// `three_chows_fan` worked out (for the table).
const fn three_chows_fan_of(t: [Tile; 3]) -> Option<Fan> {
    let [a, b, c] = t;
    let [ra, rb, rc] = [a.rank(), b.rank(), c.rank()];
    if mixed_suits(a, b, c) {
        return if shifted_unordered(ra, rb, rc) {
            Some(Fan::MixedShiftedChows)
        } else if ra == rb && rb == rc {
            Some(Fan::MixedTripleChow)
        } else if matches!(sort3([ra, rb, rc]), [2, 5, 8]) {
            Some(Fan::MixedStraight)
        } else {
            None
        };
    }
    // The same suit: sorted by index, the steps between the chows name the fan.
    let [x, y, z] = sort3([a.index() as u8, b.index() as u8, c.index() as u8]);
    let same_suit = a.suit() as u8 == b.suit() as u8 && b.suit() as u8 == c.suit() as u8;
    if !same_suit {
        None
    } else if x + 3 == y && y + 3 == z {
        Some(Fan::PureStraight)
    } else if (x + 2 == y && y + 2 == z) || (x + 1 == y && y + 1 == z) {
        Some(Fan::PureShiftedChows)
    } else if x == y && y == z {
        Some(Fan::PureTripleChow)
    } else {
        None
    }
}

fn four_chows_fan(t: [Tile; 4]) -> Option<Fan> {
    let c = t.map(|x| x.code());
    let step = |k: u8| c[0] + k == c[1] && c[1] + k == c[2] && c[2] + k == c[3];
    if step(2) || step(1) {
        return Some(Fan::FourPureShiftedChows);
    }
    (c[0] == c[1] && c[1] == c[2] && c[2] == c[3]).then_some(Fan::QuadrupleChow)
}

const CHOW_PAIR_FANS: [Fan; 4] = [
    Fan::PureDoubleChow,
    Fan::MixedDoubleChow,
    Fan::ShortStraight,
    Fan::TwoTerminalChows,
];

/// 套算一次: of the pairwise chow fans found, keep at most `max`, dropping repeated kinds first,
/// from 老少副 back to 一般高.
fn cap_chow_pair_fans(found: &[Option<Fan>], max: usize, f: &mut FanCounts) {
    let mut table = [0usize; 4];
    let mut cnt = 0;
    for x in found.iter().flatten() {
        if let Some(k) = CHOW_PAIR_FANS.iter().position(|y| y == x) {
            table[k] += 1;
            cnt += 1;
        }
    }
    let mut limit: isize = 1;
    while cnt > max && limit >= 0 {
        let mut k = 4;
        while cnt > max && k > 0 {
            k -= 1;
            while table[k] as isize > limit && cnt > max {
                table[k] -= 1;
                cnt -= 1;
            }
        }
        limit -= 1;
    }
    for (k, fan) in CHOW_PAIR_FANS.iter().enumerate() {
        f[fan.index()] = table[k] as u8;
    }
}

fn allowed(rules: &RuleSet, fan: Option<Fan>) -> Option<Fan> {
    fan.filter(|f| rules.has(*f))
}

/// The fan a fourth chow adds beside a three-chow fan: at most one, 一般高 first.
fn extra_chow_fan(rules: &RuleSet, three: [Tile; 3], extra: Tile) -> Option<Fan> {
    let fans = three.map(|t| allowed(rules, two_chows_fan(t, extra)));
    CHOW_PAIR_FANS
        .into_iter()
        .find(|f| fans.contains(&Some(*f)))
}

fn four_chows(rules: &RuleSet, mut t: [Tile; 4], f: &mut FanCounts) {
    sort_small(&mut t);
    if let Some(fan) = allowed(rules, four_chows_fan(t)) {
        f[fan.index()] = 1;
        return;
    }
    for (a, b, c, x) in [(0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)] {
        let three = [t[a], t[b], t[c]];
        if let Some(fan) = allowed(rules, three_chows_fan(three)) {
            f[fan.index()] = 1;
            if let Some(e) = extra_chow_fan(rules, three, t[x]) {
                f[e.index()] = 1;
            }
            return;
        }
    }
    let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    let found = pairs.map(|(a, b)| allowed(rules, two_chows_fan(t[a], t[b])));
    let isolated = (0..4)
        .filter(|&k| {
            pairs
                .iter()
                .zip(&found)
                .all(|(&(a, b), fan)| fan.is_none() || (a != k && b != k))
        })
        .count();
    let max = 3usize.saturating_sub(isolated);
    if max > 0 {
        cap_chow_pair_fans(&found, max, f);
    }
}

fn three_chows(rules: &RuleSet, t: [Tile; 3], f: &mut FanCounts) {
    if let Some(fan) = allowed(rules, three_chows_fan(t)) {
        f[fan.index()] = 1;
        return;
    }
    let found = [(0, 1), (0, 2), (1, 2)].map(|(a, b)| allowed(rules, two_chows_fan(t[a], t[b])));
    cap_chow_pair_fans(&found, 2, f);
}

/// Pung fans of two pungs: 双同刻, 双箭刻.
fn two_pungs_fan(a: Tile, b: Tile) -> Option<Fan> {
    if a.is_numbered() && b.is_numbered() {
        return (a.rank() == b.rank()).then_some(Fan::DoublePung);
    }
    (a.is_dragon() && b.is_dragon()).then_some(Fan::TwoDragonsPungs)
}

/// Pung fans of three pungs (sorted by code).
fn three_pungs_fan(t: [Tile; 3]) -> Option<Fan> {
    let [a, b, c] = t;
    if a.is_numbered() && b.is_numbered() && c.is_numbered() {
        if mixed_suits(a, b, c) {
            if shifted_unordered(a.rank(), b.rank(), c.rank()) {
                return Some(Fan::MixedShiftedPungs);
            }
            if a.rank() == b.rank() && b.rank() == c.rank() {
                return Some(Fan::TriplePung);
            }
            return None;
        }
        return (a.code() + 1 == b.code() && b.code() + 1 == c.code())
            .then_some(Fan::PureShiftedPungs);
    }
    if a.is_wind() && b.is_wind() && c.is_wind() {
        return Some(Fan::BigThreeWinds);
    }
    (a == Tile::C && b == Tile::F && c == Tile::P).then_some(Fan::BigThreeDragons)
}

fn four_pungs_fan(t: [Tile; 4]) -> Option<Fan> {
    let c = t.map(|x| x.code());
    if t[0].is_numbered() && c[0] + 1 == c[1] && c[1] + 1 == c[2] && c[2] + 1 == c[3] {
        return Some(Fan::FourPureShiftedPungs);
    }
    (t == [Tile::E, Tile::S, Tile::W, Tile::N]).then_some(Fan::BigFourWinds)
}

fn pungs_fans(rules: &RuleSet, tiles: &mut [Tile], f: &mut FanCounts) {
    sort_small(tiles);
    if rules.elementary {
        return elementary_pungs_fans(tiles, f);
    }
    let pairwise = |tiles: &[Tile], f: &mut FanCounts| {
        for a in 0..tiles.len() {
            for b in a + 1..tiles.len() {
                if let Some(fan) = allowed(rules, two_pungs_fan(tiles[a], tiles[b])) {
                    f[fan.index()] += 1;
                }
            }
        }
    };
    match tiles.len() {
        4 => {
            let t = [tiles[0], tiles[1], tiles[2], tiles[3]];
            if let Some(fan) = allowed(rules, four_pungs_fan(t)) {
                f[fan.index()] = 1;
                return;
            }
            for (a, b, c, x) in [(0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)] {
                if let Some(fan) = allowed(rules, three_pungs_fan([t[a], t[b], t[c]])) {
                    f[fan.index()] = 1;
                    for k in 0..4 {
                        if k == x {
                            continue;
                        }
                        if let Some(e) = allowed(rules, two_pungs_fan(t[k], t[x])) {
                            f[e.index()] += 1;
                            break;
                        }
                    }
                    return;
                }
            }
            pairwise(tiles, f);
        }
        3 => {
            if let Some(fan) = allowed(rules, three_pungs_fan([tiles[0], tiles[1], tiles[2]])) {
                f[fan.index()] = 1;
                return;
            }
            pairwise(tiles, f);
        }
        2 => pairwise(tiles, f),
        _ => {}
    }
}

/// Elementary rules: 三风刻 once for three or four wind pungs, 双箭刻 once, 双同刻 for each two
/// pungs of one rank (a pung joins one 双同刻 only: 不得相同).
fn elementary_pungs_fans(tiles: &[Tile], f: &mut FanCounts) {
    if tiles.iter().filter(|t| t.is_wind()).count() >= 3 {
        f[Fan::BigThreeWinds.index()] = 1;
    }
    if tiles.iter().filter(|t| t.is_dragon()).count() >= 2 {
        f[Fan::TwoDragonsPungs.index()] = 1;
    }
    let mut same = 0;
    for r in 1..=9 {
        let n = tiles
            .iter()
            .filter(|t| t.is_numbered() && t.rank() == r)
            .count();
        same += n / 2;
    }
    f[Fan::DoublePung.index()] = same as u8;
}

/// 明杠, 暗杠, 双明杠, 明暗杠, 双暗杠, 三杠, 四杠; 双暗刻, 三暗刻, 四暗刻.
fn kong_and_concealed_pung_fans(
    rules: &RuleSet,
    concealed_pungs: u8,
    melded_kongs: u8,
    concealed_kongs: u8,
    f: &mut FanCounts,
) {
    let kongs = melded_kongs + concealed_kongs;
    let hidden = concealed_pungs + concealed_kongs;
    if rules.elementary {
        f[Fan::MeldedKong.index()] = melded_kongs;
        f[Fan::ConcealedKong.index()] = concealed_kongs;
        if hidden >= 2 {
            f[Fan::TwoConcealedPungs.index()] = 1;
        }
        return;
    }
    match kongs {
        0 | 1 => {
            if kongs == 1 {
                f[if melded_kongs == 1 {
                    Fan::MeldedKong
                } else {
                    Fan::ConcealedKong
                }
                .index()] = 1;
            }
        }
        2 => match concealed_kongs {
            0 => f[Fan::TwoMeldedKongs.index()] = 1,
            1 => match rules.mixed_kongs {
                MixedKongs::Combined(_) => f[Fan::ConcealedKongAndMeldedKong.index()] = 1,
                MixedKongs::Separate => {
                    f[Fan::MeldedKong.index()] = 1;
                    f[Fan::ConcealedKong.index()] = 1;
                }
            },
            _ => f[Fan::TwoConcealedKongs.index()] = 1,
        },
        3 => f[Fan::ThreeKongs.index()] = 1,
        _ => f[Fan::FourKongs.index()] = 1,
    }
    // Exactly two kongs, both concealed, are 双暗杠 alone; otherwise concealed sets count.
    let concealed_fan = match hidden {
        2 if !(kongs == 2 && concealed_kongs == 2) => Some(Fan::TwoConcealedPungs),
        3 => Some(Fan::ThreeConcealedPungs),
        4 => Some(Fan::FourConcealedPungs),
        _ => None,
    };
    if let Some(fan) = concealed_fan {
        f[fan.index()] = 1;
    }
}

/// 圈风刻 and 门风刻 for a wind pung; the pung then no longer counts as 幺九刻 unless that was
/// already taken back (`deducted`: 三风刻, 混幺九, 字一色, 小四喜).
fn wind_fans(info: &Info, wind: Tile, deducted: bool, f: &mut FanCounts) {
    let prevalent = info.ctx.prevalent_wind.tile();
    let seat = info.ctx.seat_wind.tile();
    let yj = Fan::PungOfTerminalsOrHonors.index();
    if wind == prevalent {
        f[Fan::PrevalentWind.index()] = 1;
        if !deducted {
            f[yj] = f[yj].saturating_sub(1);
        }
    }
    if wind == seat {
        f[Fan::SeatWind.index()] = 1;
        if prevalent != seat && !deducted {
            f[yj] = f[yj].saturating_sub(1);
        }
    }
}

/// The sets of a division sorted by kind: chows by middle tile, pungs and kongs by tile.
struct Census {
    chows: [Tile; 4],
    n_chows: usize,
    pungs: [Tile; 4],
    n_pungs: usize,
    concealed_pungs: u8,
    melded_kongs: u8,
    concealed_kongs: u8,
}

fn census(info: &Info, sets: &[Set; 5]) -> Census {
    let mut c = Census {
        chows: [Tile::E; 4],
        n_chows: 0,
        pungs: [Tile::E; 4],
        n_pungs: 0,
        concealed_pungs: 0,
        melded_kongs: 0,
        concealed_kongs: 0,
    };
    // Without branches: each set is written to both lists, and the counts say which holds it
    // (before the set `i`, each count is at most `i`, so `& 3` never wraps).
    let win = info.win;
    let (mut in_chow, mut win_pung) = (false, false);
    for s in &sets[..4] {
        let (chow, pung, kong) = (
            s.kind == SetKind::Chow,
            s.kind == SetKind::Pung,
            s.kind == SetKind::Kong,
        );
        c.chows[c.n_chows & 3] = s.tile;
        c.pungs[c.n_pungs & 3] = s.tile;
        c.n_chows += usize::from(chow);
        c.n_pungs += usize::from(pung | kong);
        c.concealed_pungs += u8::from(pung & !s.exposed);
        c.melded_kongs += u8::from(kong & s.exposed);
        c.concealed_kongs += u8::from(kong & !s.exposed);
        // A chow's middle tile (rank 2 to 8) is within one index of each of its tiles only.
        let near = win.index().abs_diff(s.tile.index()) <= 1;
        in_chow |= chow & !s.exposed & near;
        win_pung |= pung & !s.exposed & (s.tile == win);
    }
    // A pung completed by a discard is not concealed, unless the tile can be read in a chow.
    let by_discard = !info.flags.self_drawn & win_pung & !in_chow;
    c.concealed_pungs -= u8::from(by_discard);
    c
}

/// Raw fans of one division (before exclusions).
fn regular_raw(info: &Info, sets: &[Set; 5], single_wait: &mut Option<bool>) -> FanCounts {
    let rules = info.rules;
    // Start from the fans of the tiles themselves; the structural fans below never overlap them.
    let mut f = info.traits;
    let mut c = census(info, sets);
    let pair = sets[4].tile;
    win_flag_fans(info, &mut f);
    pung_fans(rules, &c, &mut f);
    combination_fans(rules, &mut c, pair, &mut f);
    concealment_fans(info, sets, &mut f);
    pair_fans(rules, c.n_chows, pair, &mut f);
    whole_hand_fans(sets, &mut f);
    if f[Fan::QuadrupleChow.index()] == 0 {
        f[Fan::TileHog.index()] = info.hogs;
    }
    if f[Fan::MeldedHand.index()] == 0 && f[Fan::FourKongs.index()] == 0 {
        let by_shape = !rules.wait_fans_need_single_wait;
        if let Some(fan) = wait_shape_fan(&sets[info.n_fixed..], info.win, by_shape)
            && (by_shape || *single_wait.get_or_insert_with(|| has_single_wait(info)))
        {
            f[fan.index()] = 1;
        }
    }
    wind_pung_fans(info, &c, &mut f);
    f
}

/// Kongs, concealed pungs, 碰碰和, 箭刻 and 幺九刻.
fn pung_fans(rules: &RuleSet, c: &Census, f: &mut FanCounts) {
    if c.n_pungs == 0 {
        return;
    }
    kong_and_concealed_pung_fans(
        rules,
        c.concealed_pungs,
        c.melded_kongs,
        c.concealed_kongs,
        f,
    );
    // 四杠 and 四暗刻 exclude it (the exclusion table says so and explains it).
    if c.n_pungs == 4 {
        f[Fan::AllPungs.index()] = 1;
    }
    // Counted by table: bits 0..4 count dragon pungs, bits 4..8 terminal or wind pungs.
    let sum: u8 = c.pungs[..c.n_pungs]
        .iter()
        .map(|t| PUNG_CLASS[t.index()])
        .sum();
    f[Fan::DragonPung.index()] += sum & 0xF;
    f[Fan::PungOfTerminalsOrHonors.index()] += sum >> 4;
}

/// `pung_fans`' count of a pung by its tile: 1 for a dragon (箭刻), 1 << 4 for a terminal or
/// a wind (幺九刻).
const PUNG_CLASS: [u8; Tile::COUNT] = {
    let mut t = [0u8; Tile::COUNT];
    let mut i = 0;
    while i < Tile::COUNT {
        t[i] = match Tile::from_index(i) {
            Some(x) if x.is_dragon() => 1,
            Some(x) if x.is_terminal() || x.is_wind() => 1 << 4,
            _ => 0,
        };
        i += 1;
    }
    t
};

/// The fans of chows and pungs together: 一色双龙会, 三色双龙会, the chow fans, the pung fans.
fn combination_fans(rules: &RuleSet, c: &mut Census, pair: Tile, f: &mut FanCounts) {
    let chows = c.chows;
    match c.n_chows {
        4 => {
            if is_three_suited_terminal_chows(&chows, pair) {
                f[Fan::ThreeSuitedTerminalChows.index()] = 1;
            } else if is_pure_terminal_chows(&chows, pair) {
                f[Fan::PureTerminalChows.index()] = 1;
            } else {
                four_chows(rules, chows, f);
            }
        }
        3 => three_chows(rules, [chows[0], chows[1], chows[2]], f),
        2 => {
            if let Some(fan) = allowed(rules, two_chows_fan(chows[0], chows[1])) {
                f[fan.index()] += 1;
            }
            pungs_fans(rules, &mut c.pungs[..2], f);
        }
        1 => pungs_fans(rules, &mut c.pungs[..3], f),
        _ => pungs_fans(rules, &mut c.pungs[..4], f),
    }
    if rules.elementary && f[Fan::TwoDragonsPungs.index()] > 0 {
        f[Fan::DragonPung.index()] = f[Fan::DragonPung.index()].saturating_sub(2);
    }
}

/// 不求人, 门前清, 全求人, 自摸.
fn concealment_fans(info: &Info, sets: &[Set; 5], f: &mut FanCounts) {
    let self_drawn = info.flags.self_drawn;
    let exposed = sets[..info.n_fixed].iter().filter(|s| s.exposed).count();
    let fan = match (exposed, self_drawn) {
        (0, true) => Some(Fan::FullyConcealedHand),
        (0, false) => Some(Fan::ConcealedHand),
        (4, false) => Some(Fan::MeldedHand),
        (_, true) => Some(Fan::SelfDrawn),
        _ => None,
    };
    if let Some(fan) = fan {
        f[fan.index()] = 1;
    }
}

/// 平和, 小三元, 小四喜 from the pair.
fn pair_fans(rules: &RuleSet, n_chows: usize, pair: Tile, f: &mut FanCounts) {
    if n_chows == 4 {
        if pair.is_numbered() {
            f[Fan::AllChows.index()] = 1;
        }
    } else if f[Fan::TwoDragonsPungs.index()] > 0 {
        if pair.is_dragon() && rules.has(Fan::LittleThreeDragons) {
            f[Fan::LittleThreeDragons.index()] = 1;
            f[Fan::TwoDragonsPungs.index()] = 0;
        }
    } else if f[Fan::BigThreeWinds.index()] > 0 && pair.is_wind() && rules.has(Fan::LittleFourWinds)
    {
        f[Fan::LittleFourWinds.index()] = 1;
        f[Fan::BigThreeWinds.index()] = 0;
    }
}

/// 全带幺, 全带五, 全双刻: what every set and the pair hold, counted by table (a set adds 1 to
/// the outside count, bits 0..4, the five count, bits 4..8, or the even-pung count, bits 8..12).
fn whole_hand_fans(sets: &[Set; 5], f: &mut FanCounts) {
    let sum: u16 = sets
        .iter()
        .map(|s| SET_CLASS[usize::from(s.kind == SetKind::Chow)][s.tile.index()])
        .sum();
    if sum & 0xF == 5 {
        f[Fan::OutsideHand.index()] = 1;
    } else if (sum >> 4) & 0xF == 5 {
        f[Fan::AllFive.index()] = 1;
    } else if sum >> 8 == 5 {
        f[Fan::AllEvenPungs.index()] = 1;
    }
}

/// `whole_hand_fans`' count of a set by its tile: `[0]` a pung, kong or pair, `[1]` a chow (by
/// its middle tile).
const SET_CLASS: [[u16; Tile::COUNT]; 2] = {
    let mut t = [[1u16; Tile::COUNT]; 2];
    let mut i = 0;
    while i < 27 {
        let rank = i % 9 + 1;
        t[0][i] = match rank {
            1 | 9 => 1,
            5 => 1 << 4,
            2 | 4 | 6 | 8 => 1 << 8,
            _ => 0,
        };
        t[1][i] = match rank {
            2 | 8 => 1,
            4..=6 => 1 << 4,
            _ => 0,
        };
        i += 1;
    }
    t
};

/// 圈风刻 and 门风刻; 三风刻's pungs and the seat and prevalent wind pungs are not also 幺九刻.
fn wind_pung_fans(info: &Info, c: &Census, f: &mut FanCounts) {
    let honors_all = f[Fan::AllHonors.index()] > 0 || f[Fan::AllTerminalsAndHonors.index()] > 0;
    if f[Fan::BigThreeWinds.index()] > 0 && !honors_all {
        let yj = Fan::PungOfTerminalsOrHonors.index();
        f[yj] = f[yj].saturating_sub(3);
    }
    if f[Fan::BigFourWinds.index()] == 0 {
        let deducted =
            f[Fan::BigThreeWinds.index()] > 0 || honors_all || f[Fan::LittleFourWinds.index()] > 0;
        for &t in &c.pungs[..c.n_pungs] {
            if t.is_wind() {
                wind_fans(info, t, deducted, f);
            }
        }
    }
}

/// 一色双龙会: 123 123 789 789 of one suit and a pair of 5 of the same suit.
fn is_pure_terminal_chows(chows: &[Tile; 4], pair: Tile) -> bool {
    pair.is_numbered()
        && pair.rank() == 5
        && chows.iter().all(|c| c.suit() == pair.suit())
        && chows.iter().filter(|c| c.rank() == 2).count() == 2
        && chows.iter().filter(|c| c.rank() == 8).count() == 2
}

/// 三色双龙会: 123 and 789 in each of two suits, and a pair of 5 of the third.
fn is_three_suited_terminal_chows(chows: &[Tile; 4], pair: Tile) -> bool {
    if !pair.is_numbered() || pair.rank() != 5 || chows.iter().any(|c| c.suit() == pair.suit()) {
        return false;
    }
    [Suit::Characters, Suit::Bamboo, Suit::Dots]
        .into_iter()
        .filter(|&s| s != pair.suit())
        .all(|s| {
            chows.iter().any(|c| c.suit() == s && c.rank() == 2)
                && chows.iter().any(|c| c.suit() == s && c.rank() == 8)
        })
        && chows.iter().all(|c| c.rank() == 2 || c.rank() == 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::Preset;

    /// A xorshift generator: each call gives the next number below `n`.
    fn xorshift(mut x: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        }
    }

    /// The constant masks are the tiles of the knitted straights, in the same order.
    #[test]
    fn knitted_masks_hold_the_knitted_straights() {
        let from_tiles: Vec<u64> = knitted_sequences()
            .map(|seq| seq.iter().fold(0u64, |m, t| m | 1 << t.index()))
            .collect();
        assert_eq!(from_tiles, KNITTED_MASKS.to_vec());
    }

    /// The divisions found by search, as before the split table: from the lowest tile up, each
    /// pair in turn.
    fn divide_by_search(
        counts: &mut Counts,
        fixed: &[Set; 4],
        n_fixed: usize,
        out: &mut Divisions,
    ) {
        // Only a suit holding 2 mod 3 tiles can hold the pair; every other suit must hold 0 mod 3.
        let sums = [0, 9, 18, 27].map(|start| suit_sum(counts, start));
        let mut pair_suit = None;
        for (s, &n) in sums.iter().enumerate() {
            match n % 3 {
                0 => {}
                2 if pair_suit.is_none() => pair_suit = Some(s),
                _ => return,
            }
        }
        let Some(ps) = pair_suit else { return };
        let range = if ps < 3 { ps * 9..ps * 9 + 9 } else { 27..34 };
        let mut work = [Set::EMPTY; 5];
        work[..4].copy_from_slice(fixed);
        let held_with_pair = present_tiles(counts);
        for p in range {
            if counts[p] < 2 {
                continue;
            }
            counts[p] -= 2;
            let held = if counts[p] == 0 {
                held_with_pair & !(1 << p)
            } else {
                held_with_pair
            };
            work[4] = Set {
                kind: SetKind::Pair,
                tile: Tile::from_index(p).unwrap_or(Tile::E),
                exposed: false,
                declared: false,
            };
            decompose(counts, held, n_fixed, &mut work, out);
            counts[p] += 2;
        }
        // Into the reference's order by the same sort as `divide`: what the test checks is
        // which divisions the table finds.
        sort_divisions(out, n_fixed);
    }

    /// Splits `counts` into sets from the lowest tile up: at each lowest tile, zero or one pung and
    /// the rest as chows starting there, so each split is found once. `held` has a bit per tile
    /// whose count is not zero.
    fn decompose(
        counts: &mut Counts,
        held: u64,
        idx: usize,
        work: &mut [Set; 5],
        out: &mut Divisions,
    ) {
        if held == 0 {
            if idx == 4 && out.len < MAX_DIVISIONS {
                out.list[out.len] = *work;
                out.len += 1;
            }
            return;
        }
        if idx == 4 {
            return;
        }
        let i = held.trailing_zeros() as usize;
        let Some(t) = Tile::from_index(i) else { return };
        let c = counts[i];
        for pungs in [1u8, 0] {
            if c < 3 * pungs {
                continue;
            }
            let chows = c - 3 * pungs;
            if usize::from(pungs + chows) + idx > 4 {
                continue;
            }
            if chows > 0
                && (!t.is_numbered()
                    || t.rank() > 7
                    || counts[i + 1] < chows
                    || counts[i + 2] < chows)
            {
                continue;
            }
            let mut k = idx;
            if pungs == 1 {
                work[k] = Set {
                    kind: SetKind::Pung,
                    tile: t,
                    exposed: false,
                    declared: false,
                };
                k += 1;
            }
            for _ in 0..chows {
                work[k] = Set {
                    kind: SetKind::Chow,
                    tile: Tile::from_index(i + 1).unwrap_or(t),
                    exposed: false,
                    declared: false,
                };
                k += 1;
            }
            counts[i] = 0;
            let mut rest = held & !(1 << i);
            if chows > 0 {
                counts[i + 1] -= chows;
                counts[i + 2] -= chows;
                for j in [i + 1, i + 2] {
                    if counts[j] == 0 {
                        rest &= !(1 << j);
                    }
                }
            }
            decompose(counts, rest, k, work, out);
            counts[i] = c;
            if chows > 0 {
                counts[i + 1] += chows;
                counts[i + 2] += chows;
            }
        }
    }

    /// Standing counts made of random sets and a pair after `n_fixed` melds (counts up to 4),
    /// or, one time in four, random tiles.
    fn random_standing(next: &mut impl FnMut(u64) -> u64, n_fixed: usize) -> Counts {
        loop {
            let mut c = [0u8; Tile::COUNT];
            if next(4) == 0 {
                for _ in 0..14 - 3 * n_fixed {
                    c[next(34) as usize] += 1;
                }
            } else {
                c[next(34) as usize] += 2;
                for _ in n_fixed..4 {
                    let suit = next(4) as usize;
                    if suit < 3 && next(2) == 0 {
                        let start = 9 * suit + next(7) as usize;
                        for n in &mut c[start..start + 3] {
                            *n += 1;
                        }
                    } else {
                        c[9 * suit + next(if suit < 3 { 9 } else { 7 }) as usize] += 3;
                    }
                }
            }
            if c.iter().all(|&n| n <= 4) {
                return c;
            }
        }
    }

    /// The divisions read from the split table are those of the search, in the same order,
    /// with the same sets in the same places.
    #[test]
    fn split_table_divisions_agree_with_the_search() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        let mut found = 0;
        for round in 0..200_000 {
            let n_fixed = [0, 0, 0, 1, 2, 3, 4][round % 7];
            let counts = random_standing(&mut next, n_fixed);
            let mut fixed = [Set::EMPTY; 4];
            for (i, f) in fixed.iter_mut().enumerate().take(n_fixed) {
                *f = Set {
                    kind: SetKind::Pung,
                    tile: Tile::from_index(i).unwrap_or(Tile::E),
                    exposed: true,
                    declared: true,
                };
            }
            let (mut table, mut search) = (Divisions::new(), Divisions::new());
            divide(&counts, &fixed, n_fixed, &mut table);
            let mut work = counts;
            divide_by_search(&mut work, &fixed, n_fixed, &mut search);
            assert_eq!(work, counts);
            assert_eq!(
                table.list[..table.len],
                search.list[..search.len],
                "{counts:?} after {n_fixed} melds"
            );
            found += table.len;
        }
        assert!(found > 100_000, "only {found} divisions in all");
    }

    /// The exclusion table walked entry by entry, as the rulebook reads.
    fn exclusions_by_table(
        rules: &RuleSet,
        raw: &FanCounts,
        record: &mut Vec<(Fan, Fan, &'static str)>,
    ) -> FanCounts {
        let mut fans = *raw;
        for e in rules.exclusions() {
            if fans[e.by.index()] == 0 {
                continue;
            }
            for x in e.excluded {
                if fans[x.index()] != 0 {
                    fans[x.index()] = 0;
                    record.push((*x, e.by, e.reason));
                }
            }
        }
        fans
    }

    /// Counts merged eight tiles at a time equal those added one by one, and a fifth copy is
    /// caught in every position, the last two tiles (the short last word) included.
    #[test]
    fn merged_counts_agree_with_adding_one_by_one() {
        let mut next = xorshift(7);
        for _ in 0..2000 {
            let (mut a, mut b) = ([0u8; Tile::COUNT], [0u8; Tile::COUNT]);
            for (x, y) in a.iter_mut().zip(b.iter_mut()) {
                *x = next(5) as u8;
                *y = next(5) as u8;
            }
            let (m, over) = merge_counts(&a, &b);
            for i in 0..Tile::COUNT {
                assert_eq!(m[i], a[i] + b[i]);
            }
            assert_eq!(over, m.iter().any(|&n| n > 4));
        }
        for i in 0..Tile::COUNT {
            let (mut a, b) = ([0u8; Tile::COUNT], [0u8; Tile::COUNT]);
            a[i] = 4;
            assert!(!merge_counts(&a, &b).1);
            a[i] = 5;
            assert!(merge_counts(&a, &b).1, "tile {i}");
        }
    }

    /// The bit-mask exclusions remove the same fans, recorded in the same order, as the
    /// table walked entry by entry, under every preset, on random sets of fans.
    #[test]
    fn exclusions_by_mask_agree_with_the_table() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        for preset in Preset::ALL {
            let rules = RuleSet::preset(preset);
            for _ in 0..20_000 {
                let mut raw = [0u8; FAN_COUNT];
                let dense = next(4) + 1;
                for (i, f) in raw.iter_mut().enumerate() {
                    if rules.has(Fan::ALL[i]) && next(6 * dense) == 0 {
                        *f = (next(3) + 1) as u8;
                    }
                }
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let fans = apply_exclusions(&rules, &raw, Some(&mut a));
                assert_eq!(
                    fans,
                    exclusions_by_table(&rules, &raw, &mut b),
                    "{preset:?}"
                );
                assert_eq!(a, b, "{preset:?}");
            }
        }
    }

    /// The wait tables give the same single-wait answer as the depth-first search over sets.
    #[test]
    fn wait_tables_agree_with_the_search() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
        let mut compared = 0;
        for _ in 0..200_000 {
            let melds = next(5) as usize;
            let n = 13 - 3 * melds;
            let mut c = [0u8; Tile::COUNT];
            // Bias towards few suits so that many hands are ready.
            let suits = 1 + next(3);
            let mut placed = 0;
            while placed < n + 1 {
                let s = next(suits) as usize;
                let i = if next(6) == 0 {
                    27 + next(7) as usize
                } else {
                    s * 9 + next(9) as usize
                };
                if c[i] < 4 {
                    c[i] += 1;
                    placed += 1;
                }
            }
            let Some(win) = Tile::all()
                .filter(|t| c[t.index()] > 0)
                .nth(next(4) as usize)
            else {
                continue;
            };
            assert_eq!(
                single_wait_search(&c, win, n),
                single_wait_tables(&c, win, n),
                "{c:?} {win}"
            );
            compared += 1;
        }
        assert!(compared > 100_000);
    }
}

//! The result of scoring: fans with the sets that make them, what was not counted and why,
//! totals, the minimum, and payments.

use super::engine::{
    Best, Corrections, Reading, Set, SetKind, apply_exclusions, best_reading, best_reading_with,
    record_exclusions,
};
use super::fan::{FAN_COUNT, Fan};
use super::hand::{Hand, HandError, WinContext};
use super::rules::{Compiled, Payments, RuleSet};
use crate::tile::Tile;

/// One counted fan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FanEntry {
    pub fan: Fan,
    /// Points of one count of the fan under the rule set.
    pub points: u16,
    pub count: u8,
    /// The sets of the reading that make the fan (indices into `Score::sets`); empty when the
    /// fan is about the whole hand or the way it was won.
    pub sets: SetList,
}

/// Which sets of a reading (at most five) make a fan, as one bit each: no allocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetList(u8);

impl SetList {
    /// The indices into `Score::sets`, lowest first.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..8).filter(move |&i| self.0 & (1 << i) != 0)
    }
    pub fn to_vec(self) -> Vec<usize> {
        self.iter().collect()
    }
}

/// The sets of a reading (at most five), held in place: no allocation. Reads as a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sets {
    sets: [Set; 5],
    len: u8,
}

impl Sets {
    const NONE: Sets = Sets {
        sets: [Set::EMPTY; 5],
        len: 0,
    };

    fn of(given: &[Set]) -> Sets {
        let mut s = Sets::NONE;
        let n = given.len().min(5);
        s.sets[..n].copy_from_slice(&given[..n]);
        s.len = n as u8;
        s
    }
}

impl std::ops::Deref for Sets {
    type Target = [Set];
    fn deref(&self) -> &[Set] {
        &self.sets[..usize::from(self.len)]
    }
}

impl FanEntry {
    pub fn total(&self) -> u32 {
        u32::from(self.points) * u32::from(self.count)
    }
}

/// A fan the hand shows but that is not counted, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotCounted {
    pub fan: Fan,
    pub by: Fan,
    pub reason: &'static str,
}

/// Who pays the winner how much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payment {
    /// Self-drawn: each of the three others pays this.
    SelfDrawn { each: u32 },
    /// On a discard: the discarder pays `discarder`, the two others `others` each.
    Discard { discarder: u32, others: u32 },
}

impl Payment {
    /// What the winner receives in all.
    pub fn received(&self) -> u32 {
        match *self {
            Payment::SelfDrawn { each } => 3 * each,
            Payment::Discard { discarder, others } => discarder + 2 * others,
        }
    }
}

/// A scored hand.
#[derive(Clone, Debug)]
pub struct Score {
    pub rules: RuleSet,
    pub hand: Hand,
    pub context: WinContext,
    pub reading: Reading,
    /// The sets of a regular reading (melds first, the pair last); empty for special shapes.
    pub sets: Sets,
    /// Counted fans, highest first, 花牌 last.
    pub fans: Vec<FanEntry>,
    pub not_counted: Vec<NotCounted>,
    /// Plain-language notes: corrected circumstances, deductions.
    pub notes: Vec<&'static str>,
    pub total: u32,
    pub total_no_flowers: u32,
    pub minimum: u32,
    pub meets_minimum: bool,
    /// `None` when the minimum is not met (错和: not a valid win).
    pub payment: Option<Payment>,
}

impl Score {
    /// The counted fans as (fan, count), for comparisons.
    pub fn fan_counts(&self) -> Vec<(Fan, u8)> {
        self.fans.iter().map(|e| (e.fan, e.count)).collect()
    }
}

/// Scores a winning hand under a rule set.
pub fn score(hand: &Hand, ctx: &WinContext, rules: &RuleSet) -> Result<Score, HandError> {
    // The rule set's masks looked up once, for the search and for the explanation.
    let compiled = rules.compiled();
    let best = best_reading_with(hand, ctx, rules, &compiled)?;
    Ok(build(hand, ctx, rules, &compiled, &best))
}

/// Scores a hand, returning only the total without flowers (no allocation): the fast path for
/// bulk checks and the benchmark.
pub fn total_points(hand: &Hand, ctx: &WinContext, rules: &RuleSet) -> Result<u32, HandError> {
    best_reading(hand, ctx, rules).map(|b| b.total)
}

/// The counted fans and totals of a hand, without the explanation (no allocation): what a
/// batch answer needs.
#[derive(Clone, Copy, Debug)]
pub struct Tally {
    /// (fan, points of one count, count), highest points first, rulebook order among equals,
    /// 花牌 last; the first `len` entries are used.
    list: [(Fan, u16, u8); FAN_COUNT],
    len: usize,
    pub total: u32,
    pub total_no_flowers: u32,
    pub meets_minimum: bool,
}

impl Tally {
    fn of(best: &Best, ctx: &WinContext, rules: &RuleSet) -> Tally {
        // Filled with the first fan (all bytes zero): a plain fill, cheaper than a pattern.
        let mut list = [(Fan::ALL[0], 0u16, 0u8); FAN_COUNT];
        let mut len = 0;
        for_each_counted(best, rules, |entry| {
            if let Some(slot) = list.get_mut(len) {
                *slot = entry;
                len += 1;
                sift_back(&mut list[..len], |e| e.1);
            }
        });
        if let (Some(entry), Some(slot)) = (flowers(ctx), list.get_mut(len)) {
            *slot = entry;
            len += 1;
        }
        let (total, total_no_flowers, meets_minimum) = totals(best, ctx, rules);
        Tally {
            list,
            len,
            total,
            total_no_flowers,
            meets_minimum,
        }
    }

    /// The counted fans as (fan, points of one count, count), in the order of `Score::fans`.
    pub fn fans(&self) -> &[(Fan, u16, u8)] {
        &self.list[..self.len]
    }
}

/// Scores a hand down to its counted fans and totals (no allocation): the same fans, order
/// and totals as `score`, without the sets, exclusions and notes.
pub fn tally(hand: &Hand, ctx: &WinContext, rules: &RuleSet) -> Result<Tally, HandError> {
    best_reading(hand, ctx, rules).map(|b| Tally::of(&b, ctx, rules))
}

/// Each counted fan as (fan, points of one count, count), in the rulebook's order (花牌 is
/// not one of them: see `flowers`).
fn for_each_counted(best: &Best, rules: &RuleSet, mut f: impl FnMut((Fan, u16, u8))) {
    let mut counted = best.counted;
    while counted != 0 {
        let i = counted.trailing_zeros() as usize;
        counted &= counted - 1;
        let fan = Fan::ALL[i];
        f((fan, rules.points(fan), best.raw[i]));
    }
}

/// 花牌 as a counted fan, one point a flower: listed after every other fan.
fn flowers(ctx: &WinContext) -> Option<(Fan, u16, u8)> {
    (ctx.flowers > 0).then_some((Fan::FlowerTiles, 1, ctx.flowers))
}

/// Moves the last entry of a list ordered by points, highest first, back past the entries of
/// fewer points: equal points keep their order.
fn sift_back<T>(list: &mut [T], points: impl Fn(&T) -> u16) {
    let Some(last) = list.len().checked_sub(1) else {
        return;
    };
    let p = points(&list[last]);
    let mut j = last;
    while j > 0 && points(&list[j - 1]) < p {
        list.swap(j - 1, j);
        j -= 1;
    }
}

/// The total, the total without flowers, whether the minimum is met.
fn totals(best: &Best, ctx: &WinContext, rules: &RuleSet) -> (u32, u32, bool) {
    let total_no_flowers = best.total;
    (
        total_no_flowers + u32::from(ctx.flowers),
        total_no_flowers,
        total_no_flowers >= rules.minimum,
    )
}

fn build(
    hand: &Hand,
    ctx: &WinContext,
    rules: &RuleSet,
    compiled: &Compiled,
    best: &Best,
) -> Score {
    let removed = record_exclusions(compiled, best);
    let sets = match best.reading {
        Reading::Regular(s) => {
            // Declared melds as given, then the standing sets in display order, the pair last.
            let mut v = Sets::of(&s);
            let declared = hand.melds.len().min(4);
            sort_for_display(&mut v.sets[declared..4]);
            v
        }
        Reading::KnittedStraight { set, pair, .. } => Sets::of(&[
            set,
            Set {
                kind: SetKind::Pair,
                tile: pair,
                exposed: false,
                declared: false,
            },
        ]),
        _ => Sets::NONE,
    };
    let traits = set_traits(&sets, ctx, hand.win_tile);
    let n = best.counted.count_ones() as usize + usize::from(ctx.flowers > 0);
    let mut fans: Vec<FanEntry> = Vec::with_capacity(n);
    for_each_counted(best, rules, |(fan, points, count)| {
        fans.push(FanEntry {
            fan,
            points,
            count,
            sets: sets_of(fan, &traits),
        });
        sift_back(&mut fans, |e| e.points);
    });
    if let Some((fan, points, count)) = flowers(ctx) {
        fans.push(FanEntry {
            fan,
            points,
            count,
            sets: SetList::default(),
        });
    }
    // The exclusions applied again leave the fans counted, but for 无番和, which is decided
    // after them.
    debug_assert!({
        let (fans, after) = (best.fans(), apply_exclusions(rules, &best.raw, None));
        Fan::ALL
            .iter()
            .all(|f| *f == Fan::ChickenHand || after[f.index()] == fans[f.index()])
    });
    let not_counted = removed
        .into_iter()
        .map(|(fan, by, reason)| NotCounted { fan, by, reason })
        .collect();
    let mut notes = Vec::new();
    correction_notes(&best.corrections, &mut notes);
    deduction_notes(best, &mut notes);
    let (total, total_no_flowers, meets_minimum) = totals(best, ctx, rules);
    let payment = meets_minimum.then(|| payment(rules, ctx.self_drawn, total));
    Score {
        rules: *rules,
        hand: hand.clone(),
        context: *ctx,
        reading: best.reading,
        sets,
        fans,
        not_counted,
        notes,
        total,
        total_no_flowers,
        minimum: rules.minimum,
        meets_minimum,
        payment,
    }
}

/// Sorts a reading's standing sets (at most four) into display order by their first tiles,
/// equal sets keeping their order: an insertion sort on one-byte keys.
fn sort_for_display(sets: &mut [Set]) {
    let key = |s: &Set| {
        let (suit, rank) = crate::notation::display_key(s.first());
        suit << 4 | rank
    };
    for i in 1..sets.len() {
        let mut j = i;
        while j > 0 && key(&sets[j - 1]) > key(&sets[j]) {
            sets.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// Payments by the seed's formula: (8 + total) from each on a self-draw; on a discard the
/// discarder pays 8 + total and the others 8 (seed 000). Elementary: total from each on a
/// self-draw, the discarder alone pays the total (seed 001).
pub fn payment(rules: &RuleSet, self_drawn: bool, total: u32) -> Payment {
    match (rules.payments, self_drawn) {
        (Payments::BasePlusEight, true) => Payment::SelfDrawn { each: 8 + total },
        (Payments::BasePlusEight, false) => Payment::Discard {
            discarder: 8 + total,
            others: 8,
        },
        (Payments::Elementary, true) => Payment::SelfDrawn { each: total },
        (Payments::Elementary, false) => Payment::Discard {
            discarder: total,
            others: 0,
        },
    }
}

fn correction_notes(c: &Corrections, notes: &mut Vec<&'static str>) {
    if c.fourth_tile_dropped {
        notes.push("和绝张 not counted: the hand holds another copy of the winning tile");
    }
    if c.fourth_tile_added {
        notes.push("和绝张 counted: the player's own melds show the other three copies");
    }
    if c.kong_replacement_dropped {
        notes.push("杠上开花 not counted: the hand has no kong");
    }
    if c.robbing_dropped {
        notes.push("抢杠和 not counted: the player holds or shows another copy of the tile");
    }
}

fn deduction_notes(best: &Best, notes: &mut Vec<&'static str>) {
    let counted = |f: Fan| best.counted & (1 << f.index()) != 0;
    if counted(Fan::PrevalentWind) || counted(Fan::SeatWind) {
        notes.push("the seat or prevalent wind pung scores 圈风刻/门风刻, not 幺九刻");
    }
    if counted(Fan::BigThreeWinds) {
        notes.push("the three wind pungs of 三风刻 do not also score 幺九刻");
    }
    if counted(Fan::DragonPung) {
        notes.push("a dragon pung scores 箭刻, not 幺九刻");
    }
}

/// What a set is, as bits, for telling which sets make a fan: each fan names the bits its
/// sets have (`SET_NEED`), and the sets that have all of them make it. Worked out once a hand,
/// so choosing a fan's sets is a few masks, with no branch on the fan.
mod set_bits {
    /// A set of the reading (every set has it; every fan that has sets asks for it).
    pub const SET: u16 = 1 << 0;
    /// A pung or a kong.
    pub const PUNG: u16 = 1 << 1;
    pub const KONG: u16 = 1 << 2;
    pub const CHOW: u16 = 1 << 3;
    pub const PAIR: u16 = 1 << 4;
    pub const DRAGON: u16 = 1 << 5;
    pub const WIND: u16 = 1 << 6;
    pub const NUMBERED: u16 = 1 << 7;
    /// Claimed from another player.
    pub const EXPOSED: u16 = 1 << 8;
    pub const CONCEALED: u16 = 1 << 9;
    /// Of the prevalent wind; of the seat wind.
    pub const PREVALENT: u16 = 1 << 10;
    pub const SEAT: u16 = 1 << 11;
    /// Of a terminal or of a wind that is neither the prevalent nor the seat wind.
    pub const PLAIN_TERMINAL_OR_WIND: u16 = 1 << 12;
    /// Of the winning tile (a pair waited on alone: 单钓将).
    pub const WIN_TILE: u16 = 1 << 13;
    /// A standing chow that holds the winning tile (边张, 坎张).
    pub const CHOW_OF_WIN: u16 = 1 << 14;
    /// No set has it: the fan is about the whole hand or the way it was won.
    pub const NONE: u16 = 1 << 15;
}

/// The bits a fan's sets have (see `set_bits`), by fan index.
const SET_NEED: [u16; FAN_COUNT] = {
    let mut t = [set_bits::NONE; FAN_COUNT];
    let mut i = 0;
    while i < FAN_COUNT {
        t[i] = set_need(Fan::ALL[i]);
        i += 1;
    }
    t
};

const fn set_need(fan: Fan) -> u16 {
    use Fan::*;
    use set_bits::*;
    let need = match fan {
        DragonPung | TwoDragonsPungs | BigThreeDragons => PUNG | DRAGON,
        LittleThreeDragons => DRAGON,
        BigThreeWinds | BigFourWinds => PUNG | WIND,
        LittleFourWinds => WIND,
        PrevalentWind => PUNG | PREVALENT,
        SeatWind => PUNG | SEAT,
        PungOfTerminalsOrHonors => PUNG | PLAIN_TERMINAL_OR_WIND,
        MeldedKong | TwoMeldedKongs => KONG | EXPOSED,
        ConcealedKong | TwoConcealedKongs => KONG | CONCEALED,
        ConcealedKongAndMeldedKong | ThreeKongs | FourKongs => KONG,
        TwoConcealedPungs | ThreeConcealedPungs | FourConcealedPungs => PUNG | CONCEALED,
        PureDoubleChow | MixedDoubleChow | ShortStraight | TwoTerminalChows | PureTripleChow
        | PureShiftedChows | PureStraight | MixedStraight | MixedTripleChow | MixedShiftedChows
        | QuadrupleChow | FourPureShiftedChows => CHOW,
        DoublePung | TriplePung | PureShiftedPungs | MixedShiftedPungs | FourPureShiftedPungs => {
            PUNG | NUMBERED
        }
        PureTerminalChows
        | ThreeSuitedTerminalChows
        | AllChows
        | AllPungs
        | OutsideHand
        | AllFive
        | AllEvenPungs => 0,
        SingleWait => PAIR | WIN_TILE,
        EdgeWait | ClosedWait => CHOW_OF_WIN,
        _ => NONE,
    };
    need | SET
}

/// The bits of a set's kind and tile class, by kind and tile.
const SET_CLASS: [[u16; Tile::COUNT]; 4] = {
    use set_bits::*;
    let mut t = [[0u16; Tile::COUNT]; 4];
    let kinds = [SetKind::Chow, SetKind::Pung, SetKind::Kong, SetKind::Pair];
    let mut k = 0;
    while k < 4 {
        let mut i = 0;
        while i < Tile::COUNT {
            let Some(tile) = Tile::from_index(i) else {
                break;
            };
            let mut b = SET;
            b |= match kinds[k] {
                SetKind::Chow => CHOW,
                SetKind::Pung => PUNG,
                SetKind::Kong => PUNG | KONG,
                SetKind::Pair => PAIR,
            };
            if tile.is_dragon() {
                b |= DRAGON;
            }
            if tile.is_wind() {
                b |= WIND;
            }
            if tile.is_numbered() {
                b |= NUMBERED;
            }
            if tile.is_terminal() || tile.is_wind() {
                b |= PLAIN_TERMINAL_OR_WIND;
            }
            t[kinds[k] as usize][i] = b;
            i += 1;
        }
        k += 1;
    }
    t
};

/// The bits of each set of a reading (none past the last set).
fn set_traits(sets: &[Set], ctx: &WinContext, win: Tile) -> [u16; 5] {
    use set_bits::*;
    let mut traits = [0u16; 5];
    let (prevalent, seat) = (ctx.prevalent_wind.tile(), ctx.seat_wind.tile());
    for (t, s) in traits.iter_mut().zip(sets) {
        let (pw, sw) = (s.tile == prevalent, s.tile == seat);
        let mut b = SET_CLASS[s.kind as usize][s.tile.index()];
        b |= if s.exposed { EXPOSED } else { CONCEALED };
        b |= (u16::from(pw) * PREVALENT) | (u16::from(sw) * SEAT);
        b &= !(u16::from(pw | sw) * PLAIN_TERMINAL_OR_WIND);
        b |= u16::from(s.tile == win) * WIN_TILE;
        // A chow's tile is its middle one, of rank 2 to 8: the tiles beside it are its suit's.
        let beside = win.index().wrapping_sub(s.tile.index()).wrapping_add(1) < 3;
        b |= u16::from((s.kind == SetKind::Chow) & !s.declared & beside) * CHOW_OF_WIN;
        *t = b;
    }
    traits
}

/// The sets behind a fan, for the explanation: those with every bit the fan needs.
fn sets_of(fan: Fan, traits: &[u16; 5]) -> SetList {
    let need = SET_NEED[fan.index()];
    SetList(
        traits
            .iter()
            .enumerate()
            .fold(0, |m, (i, &t)| m | u8::from(t & need == need) << i),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::Wind;

    /// The sets behind a fan as the rules say it, one predicate a fan group: the oracle of the
    /// bit tables.
    fn sets_by_rule(fan: Fan, sets: &[Set], ctx: &WinContext, win: Tile) -> Vec<usize> {
        let pungs = |s: &Set| matches!(s.kind, SetKind::Pung | SetKind::Kong);
        let (pw, sw) = (ctx.prevalent_wind.tile(), ctx.seat_wind.tile());
        use Fan::*;
        let p: Box<dyn Fn(&Set) -> bool> = match fan {
            DragonPung | TwoDragonsPungs | BigThreeDragons => {
                Box::new(move |s| pungs(s) && s.tile.is_dragon())
            }
            LittleThreeDragons => Box::new(|s| s.tile.is_dragon()),
            BigThreeWinds | BigFourWinds => Box::new(move |s| pungs(s) && s.tile.is_wind()),
            LittleFourWinds => Box::new(|s| s.tile.is_wind()),
            PrevalentWind => Box::new(move |s| pungs(s) && s.tile == pw),
            SeatWind => Box::new(move |s| pungs(s) && s.tile == sw),
            PungOfTerminalsOrHonors => Box::new(move |s| {
                pungs(s)
                    && (s.tile.is_terminal() || s.tile.is_wind())
                    && s.tile != pw
                    && s.tile != sw
            }),
            MeldedKong | TwoMeldedKongs => Box::new(|s| s.kind == SetKind::Kong && s.exposed),
            ConcealedKong | TwoConcealedKongs => {
                Box::new(|s| s.kind == SetKind::Kong && !s.exposed)
            }
            ConcealedKongAndMeldedKong | ThreeKongs | FourKongs => {
                Box::new(|s| s.kind == SetKind::Kong)
            }
            TwoConcealedPungs | ThreeConcealedPungs | FourConcealedPungs => {
                Box::new(move |s| pungs(s) && !s.exposed)
            }
            PureDoubleChow | MixedDoubleChow | ShortStraight | TwoTerminalChows
            | PureTripleChow | PureShiftedChows | PureStraight | MixedStraight
            | MixedTripleChow | MixedShiftedChows | QuadrupleChow | FourPureShiftedChows => {
                Box::new(|s| s.kind == SetKind::Chow)
            }
            DoublePung | TriplePung | PureShiftedPungs | MixedShiftedPungs
            | FourPureShiftedPungs => Box::new(move |s| pungs(s) && s.tile.is_numbered()),
            PureTerminalChows
            | ThreeSuitedTerminalChows
            | AllChows
            | AllPungs
            | OutsideHand
            | AllFive
            | AllEvenPungs => Box::new(|_| true),
            SingleWait => Box::new(move |s| s.kind == SetKind::Pair && s.tile == win),
            EdgeWait | ClosedWait => Box::new(move |s| {
                s.kind == SetKind::Chow
                    && !s.declared
                    && (s.tile == win || s.tile.next() == Some(win) || s.tile.prev() == Some(win))
            }),
            _ => Box::new(|_| false),
        };
        (0..sets.len()).filter(|&i| p(&sets[i])).collect()
    }

    /// Every fan's sets, chosen by the bit tables, are the sets the rules name, on 20,000
    /// random readings of one to five sets under random winds and winning tiles.
    #[test]
    fn set_bits_choose_the_sets_the_rules_name() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n) as usize
        };
        let kinds = [SetKind::Chow, SetKind::Pung, SetKind::Kong, SetKind::Pair];
        for _ in 0..20_000 {
            let mut sets = Vec::new();
            for _ in 0..1 + next(5) {
                let kind = kinds[next(4)];
                // A chow is told by its middle tile: ranks 2 to 8 of a numbered suit.
                let tile = if kind == SetKind::Chow {
                    Tile::from_index(next(3) * 9 + 1 + next(7))
                } else {
                    Tile::from_index(next(34))
                };
                let Some(tile) = tile else { continue };
                let declared = next(2) == 0;
                sets.push(Set {
                    kind,
                    tile,
                    exposed: declared && next(3) > 0,
                    declared,
                });
            }
            let ctx = WinContext {
                prevalent_wind: Wind::ALL[next(4)],
                seat_wind: Wind::ALL[next(4)],
                ..WinContext::default()
            };
            let Some(win) = Tile::from_index(next(34)) else {
                continue;
            };
            let traits = set_traits(&sets, &ctx, win);
            for &fan in Fan::ALL {
                assert_eq!(
                    sets_of(fan, &traits).to_vec(),
                    sets_by_rule(fan, &sets, &ctx, win),
                    "{fan:?} on {sets:?}, winning tile {win:?}, {ctx:?}"
                );
            }
        }
    }
}

//! The result of scoring: fans with the sets that make them, what was not counted and why,
//! totals, the minimum, and payments.

use super::engine::{
    Best, Corrections, Reading, Set, SetKind, apply_exclusions, best_reading, record_exclusions,
};
use super::fan::{FAN_COUNT, Fan};
use super::hand::{Hand, HandError, WinContext};
use super::rules::{Payments, RuleSet};
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
    pub sets: Vec<Set>,
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
    let best = best_reading(hand, ctx, rules)?;
    Ok(build(hand, ctx, rules, &best))
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
        let mut counted = best.counted;
        while counted != 0 {
            let i = counted.trailing_zeros() as usize;
            counted &= counted - 1;
            let (f, count) = (Fan::ALL[i], best.raw[i]);
            // Insertion by points, highest first; equal points keep the rulebook order.
            let points = rules.points(f);
            let mut j = len;
            while j > 0 && list[j - 1].1 < points {
                list[j] = list[j - 1];
                j -= 1;
            }
            list[j] = (f, points, count);
            len += 1;
        }
        if ctx.flowers > 0 && len < FAN_COUNT {
            list[len] = (Fan::FlowerTiles, 1, ctx.flowers);
            len += 1;
        }
        let total_no_flowers = best.total;
        Tally {
            list,
            len,
            total: total_no_flowers + u32::from(ctx.flowers),
            total_no_flowers,
            meets_minimum: total_no_flowers >= rules.minimum,
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

fn build(hand: &Hand, ctx: &WinContext, rules: &RuleSet, best: &Best) -> Score {
    // Room for the usual number of exclusions at once (a hand seldom shows more).
    let mut removed = Vec::with_capacity(16);
    record_exclusions(rules, best, &mut removed);
    let sets: Vec<Set> = match best.reading {
        Reading::Regular(s) => {
            // Declared melds as given, then the standing sets in display order, the pair last.
            let mut v = s.to_vec();
            let declared = hand.melds.len().min(4);
            sort_for_display(&mut v[declared..4]);
            v
        }
        Reading::KnittedStraight { set, pair, .. } => {
            vec![
                set,
                Set {
                    kind: SetKind::Pair,
                    tile: pair,
                    exposed: false,
                    declared: false,
                },
            ]
        }
        _ => Vec::new(),
    };
    let tally = Tally::of(best, ctx, rules);
    let fans: Vec<FanEntry> = tally
        .fans()
        .iter()
        .map(|&(fan, points, count)| FanEntry {
            fan,
            points,
            count,
            sets: if fan == Fan::FlowerTiles {
                SetList::default()
            } else {
                sets_of(fan, &sets, ctx, hand.win_tile)
            },
        })
        .collect();
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
    let Tally {
        total,
        total_no_flowers,
        meets_minimum,
        ..
    } = tally;
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

/// The sets behind a fan, for the explanation.
fn sets_of(fan: Fan, sets: &[Set], ctx: &WinContext, win: Tile) -> SetList {
    let pick = |p: &dyn Fn(&Set) -> bool| -> SetList {
        SetList(
            sets.iter()
                .take(8)
                .enumerate()
                .filter(|(_, s)| p(s))
                .fold(0, |m, (i, _)| m | 1 << i),
        )
    };
    let pungs = |s: &Set| matches!(s.kind, SetKind::Pung | SetKind::Kong);
    use Fan::*;
    match fan {
        DragonPung | TwoDragonsPungs | BigThreeDragons => pick(&|s| pungs(s) && s.tile.is_dragon()),
        LittleThreeDragons => pick(&|s| s.tile.is_dragon()),
        BigThreeWinds | BigFourWinds => pick(&|s| pungs(s) && s.tile.is_wind()),
        LittleFourWinds => pick(&|s| s.tile.is_wind()),
        PrevalentWind => pick(&|s| pungs(s) && s.tile == ctx.prevalent_wind.tile()),
        SeatWind => pick(&|s| pungs(s) && s.tile == ctx.seat_wind.tile()),
        PungOfTerminalsOrHonors => pick(&|s| {
            pungs(s)
                && (s.tile.is_terminal() || s.tile.is_wind())
                && s.tile != ctx.prevalent_wind.tile()
                && s.tile != ctx.seat_wind.tile()
        }),
        MeldedKong | TwoMeldedKongs => pick(&|s| s.kind == SetKind::Kong && s.exposed),
        ConcealedKong | TwoConcealedKongs => pick(&|s| s.kind == SetKind::Kong && !s.exposed),
        ConcealedKongAndMeldedKong | ThreeKongs | FourKongs => pick(&|s| s.kind == SetKind::Kong),
        TwoConcealedPungs | ThreeConcealedPungs | FourConcealedPungs => {
            pick(&|s| pungs(s) && !s.exposed)
        }
        PureDoubleChow | MixedDoubleChow | ShortStraight | TwoTerminalChows | PureTripleChow
        | PureShiftedChows | PureStraight | MixedStraight | MixedTripleChow | MixedShiftedChows
        | QuadrupleChow | FourPureShiftedChows => pick(&|s| s.kind == SetKind::Chow),
        DoublePung | TriplePung | PureShiftedPungs | MixedShiftedPungs | FourPureShiftedPungs => {
            pick(&|s| pungs(s) && s.tile.is_numbered())
        }
        PureTerminalChows
        | ThreeSuitedTerminalChows
        | AllChows
        | AllPungs
        | OutsideHand
        | AllFive
        | AllEvenPungs => pick(&|_| true),
        SingleWait => pick(&|s| s.kind == SetKind::Pair && s.tile == win),
        EdgeWait | ClosedWait => pick(&|s| {
            s.kind == SetKind::Chow
                && !s.declared
                && (s.tile == win || s.tile.next() == Some(win) || s.tile.prev() == Some(win))
        }),
        _ => SetList::default(),
    }
}

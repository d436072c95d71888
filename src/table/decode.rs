//! From per-tile probabilities and the table layout to the most probable valid hand.
//!
//! Each tile of the hand, the winning tile, and each meld (as a whole: a pung is one face three
//! times, a chow three consecutive faces in any order) is a unit with a few candidate readings,
//! scored by log-probability. A best-first search over the combinations asks the scoring engine
//! whether each one is a winning hand (≤ 4 copies, the right count, a winning shape) and stops
//! at the first that is. The next valid ones are kept as runner-ups. Every tile whose reading
//! differs from its top class is reported with both probabilities.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};

use super::layout::{GroupKind, TableReading, claimed_at, claimed_from};
use crate::detection::{Detection, Face};
use crate::notation;
use crate::scoring::{Hand, Meld, MeldKind, RuleSet, WinContext, best_reading};
use crate::tile::Tile;

/// Candidates kept per unit.
const PER_UNIT: usize = 5;
/// Combinations tried at most (each one is a scoring-engine call, about a microsecond).
const MAX_TRIES: usize = 20_000;
/// Probability floor, so that an unlikely face costs a lot but not infinitely.
const FLOOR: f32 = 1e-6;
/// A face the model gives less than this is no evidence: it is not tried as a correction.
const MIN_ALTERNATIVE: f32 = 0.01;
/// Readings less likely than the top reading by more than this factor (as a log) are not tried.
const MAX_DROP: f32 = 9.2;

/// A tile whose reading differs from the model's top class.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub det: usize,
    pub read: Tile,
    pub p_read: f32,
    pub top: Face,
    pub p_top: f32,
}

/// A valid hand that was not chosen.
#[derive(Clone, Debug, PartialEq)]
pub struct RunnerUp {
    pub notation: String,
    /// Likelihood relative to the chosen hand (≤ 1).
    pub relative: f32,
}

/// The outcome of decoding.
#[derive(Clone, Debug, Default)]
pub struct Decoded {
    pub hand: Option<Hand>,
    /// The tile each detection was read as (face-down tiles of a concealed kong included).
    pub tiles: Vec<(usize, Tile)>,
    pub changes: Vec<Change>,
    pub runner_ups: Vec<RunnerUp>,
    pub flowers: u8,
    pub issues: Vec<String>,
    pub assumed: Vec<String>,
    /// Each meld's tiles and the meld they were read as.
    pub melds: Vec<(Vec<usize>, Meld)>,
}

#[derive(Clone, Copy, Debug)]
enum UnitKind {
    Standing,
    Winning,
    Meld,
}

/// One candidate reading of a unit: the tile per detection, and the meld if any.
#[derive(Clone, Debug)]
struct Candidate {
    logp: f32,
    tiles: Vec<Tile>,
    meld: Option<Meld>,
}

struct Unit {
    kind: UnitKind,
    dets: Vec<usize>,
    cands: Vec<Candidate>,
}

fn lp(d: &Detection, t: Tile) -> f32 {
    if d.face_down || d.probs.is_empty() {
        return (1.0f32 / 34.0).ln();
    }
    d.p_tile(t).max(FLOOR).ln()
}

fn single_candidates(d: &Detection) -> Vec<Candidate> {
    let mut v: Vec<Candidate> = Tile::all()
        .map(|t| Candidate {
            logp: lp(d, t),
            tiles: vec![t],
            meld: None,
        })
        .collect();
    v.sort_by(|a, b| b.logp.total_cmp(&a.logp));
    let floor = MIN_ALTERNATIVE.ln();
    let keep = v.iter().skip(1).take_while(|c| c.logp >= floor).count() + 1;
    v.truncate(keep.min(PER_UNIT));
    v
}

/// The six orders of three items.
const PERMS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// The readings of a meld of `kind`. A claimed meld of three is a chow or a pung whichever
/// the layout called it from the faces read (three alike or not): one misread tile of a pung
/// makes it look like a chow, and the other way round, so both are candidates and the
/// probabilities (and the hand's validity) decide.
fn meld_candidates(dets: &[Detection], idx: &[usize], kind: GroupKind) -> Vec<Candidate> {
    let mut v = Vec::new();
    match kind {
        GroupKind::Chow { claimed } => {
            chow_candidates(dets, idx, usize::from(claimed), &mut v);
            let from = claimed_from(usize::from(claimed), 3);
            same_face_candidates(dets, idx, |t| Meld::pung(t, from), &mut v);
        }
        GroupKind::Pung { from } => {
            same_face_candidates(dets, idx, |t| Meld::pung(t, from), &mut v);
            chow_candidates(dets, idx, claimed_at(from), &mut v);
        }
        GroupKind::Kong { from } => {
            same_face_candidates(dets, idx, |t| Meld::kong(t, from), &mut v);
        }
        _ => same_face_candidates(dets, idx, Meld::concealed_kong, &mut v),
    }
    v.sort_by(|a, b| b.logp.total_cmp(&a.logp));
    // A kong whose four tiles are all face down may be any tile: keep them all.
    let all_down = idx.iter().all(|&i| dets[i].face_down);
    if !all_down {
        // Besides the most probable reading, keep those where every face-up tile gives its
        // face some weight: a sum over the tiles would let two tiles read 96% sure be made
        // another face the model gives 0.1% when the other two are sure of it.
        let top = v.remove(0);
        v.retain(|c| every_tile_allows(dets, idx, &c.tiles));
        v.insert(0, top);
        v.truncate(PER_UNIT);
    }
    v
}

/// Every chow `idx` may be, each tile given the face of the chow's order that fits it best;
/// `claimed` is where the sideways tile lies (0..3).
fn chow_candidates(dets: &[Detection], idx: &[usize], claimed: usize, v: &mut Vec<Candidate>) {
    if idx.len() != 3 {
        return;
    }
    for t in Tile::all().filter(|t| t.is_numbered() && t.rank() <= 7) {
        let faces = [t, t.offset(1).unwrap_or(t), t.offset(2).unwrap_or(t)];
        let best = PERMS
            .iter()
            .map(|p| {
                let s: f32 = idx
                    .iter()
                    .zip(p)
                    .map(|(&i, &k)| lp(&dets[i], faces[k]))
                    .sum();
                (s, p)
            })
            .max_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((s, p)) = best {
            let tiles: Vec<Tile> = p.iter().map(|&k| faces[k]).collect();
            let claimed_face = tiles[claimed.min(2)];
            let claimed_idx = (claimed_face.rank() - t.rank()).min(2);
            v.push(Candidate {
                logp: s,
                tiles,
                meld: Some(Meld::chow(t, claimed_idx)),
            });
        }
    }
}

/// Every face `idx` may show all alike, as the meld `meld` makes of it.
fn same_face_candidates(
    dets: &[Detection],
    idx: &[usize],
    meld: impl Fn(Tile) -> Meld,
    v: &mut Vec<Candidate>,
) {
    for t in Tile::all() {
        v.push(Candidate {
            logp: idx.iter().map(|&i| lp(&dets[i], t)).sum(),
            tiles: vec![t; idx.len()],
            meld: Some(meld(t)),
        });
    }
}

/// The kind of the layout's meld group `kind` read as `meld`: a group of three called a chow
/// by its faces and read as a pung (or the other way round) is one, its sideways tile where
/// it lies.
pub fn kind_as_read(kind: GroupKind, meld: &Meld) -> GroupKind {
    match (kind, meld.kind) {
        (GroupKind::Chow { claimed }, MeldKind::Pung) => GroupKind::Pung {
            from: claimed_from(usize::from(claimed), 3),
        },
        (GroupKind::Pung { from }, MeldKind::Chow) => GroupKind::Chow {
            claimed: claimed_at(from) as u8,
        },
        _ => kind,
    }
}

/// Whether each face-up tile of `idx` gives its face in `tiles` (in the same order) at least
/// `MIN_ALTERNATIVE`.
fn every_tile_allows(dets: &[Detection], idx: &[usize], tiles: &[Tile]) -> bool {
    let floor = MIN_ALTERNATIVE.ln();
    idx.iter()
        .zip(tiles)
        .all(|(&i, &t)| dets[i].face_down || lp(&dets[i], t) >= floor)
}

/// A combination: candidate index per unit, 3 bits each (≤ 5 candidates, ≤ 21 units).
#[derive(PartialEq)]
struct Node {
    logp: f32,
    choice: u64,
}

fn pick(choice: u64, k: usize) -> usize {
    ((choice >> (3 * k)) & 7) as usize
}
impl Eq for Node {}
impl PartialOrd for Node {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Node {
    fn cmp(&self, other: &Self) -> Ordering {
        self.logp
            .total_cmp(&other.logp)
            .then_with(|| other.choice.cmp(&self.choice))
    }
}

fn build_hand(units: &[Unit], choice: u64) -> Option<Hand> {
    let mut melds = Vec::new();
    let mut concealed = Vec::new();
    let mut win = None;
    for (k, u) in units.iter().enumerate() {
        let cand = &u.cands[pick(choice, k)];
        match u.kind {
            UnitKind::Standing => concealed.push(cand.tiles[0]),
            UnitKind::Winning => win = Some(cand.tiles[0]),
            UnitKind::Meld => melds.push(cand.meld?),
        }
    }
    Some(Hand {
        melds,
        concealed,
        win_tile: win?,
    })
}

/// Finds the most probable valid winning hand.
pub fn decode(dets: &[Detection], reading: &TableReading, rules: &RuleSet) -> Decoded {
    let mut out = Decoded {
        flowers: reading.bonus_count().min(8) as u8,
        ..Decoded::default()
    };
    let mut units = units_of(dets, reading, &mut out);
    if units.is_empty() {
        return out;
    }
    if let Some(issue) = count_issue(&units).or_else(|| meld_without_one_face(dets, &units)) {
        out.issues.push(issue);
        out.tiles = top_reading(&units);
        return out;
    }
    // Three bits per unit: at most 7 candidates each, at most 21 units (the count check above
    // allows 14).
    for u in &mut units {
        u.cands.truncate(7);
    }
    let (found, tries) = search(&units, rules);
    let Some((best_lp, hand, choice)) = found.first().cloned() else {
        out.issues.push(format!(
            "no valid winning hand is near what was read ({tries} readings tried)"
        ));
        out.tiles = top_reading(&units);
        explain_invalid(&units, rules, &mut out);
        return out;
    };
    take_choice(dets, &units, choice, &mut out);
    out.runner_ups = found[1..]
        .iter()
        .map(|(l, h, _)| RunnerUp {
            notation: notation::format_hand(h),
            relative: (l - best_lp).exp(),
        })
        .collect();
    out.hand = Some(hand);
    out
}

/// The units to choose faces for: each standing tile and the winning tile alone, each meld as
/// one. Stray tiles and face-down kongs are noted in `out`.
fn units_of(dets: &[Detection], reading: &TableReading, out: &mut Decoded) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    for g in &reading.groups {
        let single = match g.kind {
            GroupKind::Hand => Some(UnitKind::Standing),
            GroupKind::Winning => Some(UnitKind::Winning),
            _ => None,
        };
        if let Some(kind) = single {
            units.extend(g.tiles.iter().map(|&i| Unit {
                kind,
                dets: vec![i],
                cands: single_candidates(&dets[i]),
            }));
        } else if g.kind.is_meld() {
            if g.kind == GroupKind::ConcealedKong && g.tiles.iter().all(|&i| dets[i].face_down) {
                out.assumed.push(
                    "a concealed kong shows no face: its tile is whichever makes the hand valid"
                        .to_string(),
                );
            }
            units.push(Unit {
                kind: UnitKind::Meld,
                dets: g.tiles.clone(),
                cands: meld_candidates(dets, &g.tiles, g.kind),
            });
        } else if g.kind == GroupKind::Stray {
            // Face-down strays were already told of where the layout set them aside.
            let up = g.tiles.iter().filter(|&&i| !dets[i].face_down).count();
            if up > 0 {
                out.issues
                    .push(format!("{up} tile(s) that fit no group were left out"));
            }
        }
    }
    units
}

/// What is wrong with the count of tiles, if anything: melds count 3, the hand needs 14.
fn count_issue(units: &[Unit]) -> Option<String> {
    let melds = units
        .iter()
        .filter(|u| matches!(u.kind, UnitKind::Meld))
        .count();
    let standing = units.len() - melds;
    let count = melds * 3 + standing;
    if melds <= 4 && count == 14 {
        return None;
    }
    Some(format!(
        "{standing} standing tile(s) (with the winning tile) and {melds} meld(s) count as {count}: a winning hand has 14 (each meld counts 3){}",
        if count > 14 {
            "; some tiles may not belong to the hand"
        } else {
            "; tiles may be missing or hidden"
        }
    ))
}

/// A meld whose most probable reading makes some tile a face the model gives under
/// `MIN_ALTERNATIVE` (its tiles show no one meld: a bonus tile or a neighbour laid beside a
/// meld, or a meld read from tiles that are not one), said as an issue: the hand is not read
/// rather than read from a tile changed on no evidence.
fn meld_without_one_face(dets: &[Detection], units: &[Unit]) -> Option<String> {
    let unit = units.iter().find(|u| {
        matches!(u.kind, UnitKind::Meld) && !every_tile_allows(dets, &u.dets, &u.cands[0].tiles)
    })?;
    let faces: Vec<String> = unit
        .dets
        .iter()
        .map(|&i| match dets[i].top() {
            Some((face, p)) => format!("{face} {:.0}%", p * 100.0),
            None => "face down".to_string(),
        })
        .collect();
    Some(format!(
        "the tiles laid as a meld ({}) do not show one meld's faces: a tile beside them (a flower or season?) may have been taken for part of it",
        faces.join(", ")
    ))
}

/// A valid hand found: its log probability, the hand and the choice of candidates.
type Found = (f32, Hand, u64);

/// Best-first search over the units' candidates, most probable combination first: up to three
/// different valid winning hands, and how many combinations were tried.
fn search(units: &[Unit], rules: &RuleSet) -> (Vec<Found>, usize) {
    let top_logp: f32 = units.iter().map(|u| u.cands[0].logp).sum();
    let start = Node {
        logp: top_logp,
        choice: 0,
    };
    let mut heap = BinaryHeap::from([start]);
    let mut seen: HashSet<u64> = HashSet::new();
    let mut found: Vec<Found> = Vec::new();
    let mut found_keys: HashSet<String> = HashSet::new();
    let probe = WinContext::default();
    let mut tries = 0;
    while let Some(node) = heap.pop() {
        tries += 1;
        if tries > MAX_TRIES {
            break;
        }
        if let Some(hand) = build_hand(units, node.choice)
            && best_reading(&hand, &probe, rules).is_ok()
            && found_keys.insert(canonical(&hand))
        {
            found.push((node.logp, hand, node.choice));
            if found.len() >= 3 {
                break;
            }
        }
        for (k, unit) in units.iter().enumerate() {
            let c = pick(node.choice, k);
            if c + 1 < unit.cands.len() {
                let next = node.choice + (1 << (3 * k));
                let logp = node.logp - unit.cands[c].logp + unit.cands[c + 1].logp;
                if logp >= top_logp - MAX_DROP && seen.insert(next) {
                    heap.push(Node { logp, choice: next });
                }
            }
        }
        // Past the best found, only runner-ups far less likely remain: stop early.
        if let Some((best, ..)) = found.first()
            && heap.peek().is_some_and(|n| n.logp < best - 12.0)
        {
            break;
        }
    }
    (found, tries)
}

/// The tiles of the chosen candidates into `out`, with every tile read otherwise than the
/// classifier's first choice noted as a change.
fn take_choice(dets: &[Detection], units: &[Unit], choice: u64, out: &mut Decoded) {
    for (k, u) in units.iter().enumerate() {
        let cand = &u.cands[pick(choice, k)];
        if let Some(m) = cand.meld {
            out.melds.push((u.dets.clone(), m));
        }
        for (&i, &t) in u.dets.iter().zip(&cand.tiles) {
            out.tiles.push((i, t));
            let d = &dets[i];
            if let Some((top, p_top)) = d.top()
                && top != Face::Tile(t)
            {
                out.changes.push(Change {
                    det: i,
                    read: t,
                    p_read: d.p_tile(t),
                    top,
                    p_top,
                });
            }
        }
    }
}

fn top_reading(units: &[Unit]) -> Vec<(usize, Tile)> {
    let mut v = Vec::new();
    for u in units {
        for (&i, &t) in u.dets.iter().zip(&u.cands[0].tiles) {
            v.push((i, t));
        }
    }
    v
}

/// Says why the most probable reading is not a win.
fn explain_invalid(units: &[Unit], rules: &RuleSet, out: &mut Decoded) {
    if let Some(hand) = build_hand(units, 0)
        && let Err(e) = best_reading(&hand, &WinContext::default(), rules)
    {
        out.issues
            .push(format!("as read ({}): {e}", notation::format_hand(&hand)));
    }
}

fn canonical(h: &Hand) -> String {
    let mut c = h.concealed.clone();
    c.sort();
    let mut m: Vec<String> = h.melds.iter().map(notation::format_meld).collect();
    m.sort();
    format!("{}{}{}", m.concat(), notation::format_tiles(&c), h.win_tile)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::Seat;

    /// The sideways tile keeps its place when the kind read differs from the layout's:
    /// on the left from the left player, in the middle from across, on the right from the
    /// right; a kind read as the layout called it is left as it is.
    #[test]
    fn a_meld_read_as_the_other_kind_keeps_its_sideways_tile() {
        let Ok(t) = Tile::parse("5s") else {
            panic!("5s is a tile")
        };
        for (pos, from) in [(0, Seat::Left), (1, Seat::Across), (2, Seat::Right)] {
            let chow = GroupKind::Chow { claimed: pos };
            let pung = GroupKind::Pung { from };
            assert_eq!(kind_as_read(chow, &Meld::pung(t, from)), pung);
            assert_eq!(kind_as_read(pung, &Meld::chow(t, 1)), chow);
            assert_eq!(kind_as_read(chow, &Meld::chow(t, 1)), chow);
            assert_eq!(kind_as_read(pung, &Meld::pung(t, from)), pung);
        }
        let kong = GroupKind::Kong { from: Seat::Across };
        assert_eq!(kind_as_read(kong, &Meld::kong(t, Seat::Across)), kong);
    }
}

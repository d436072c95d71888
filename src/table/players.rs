//! The whole table in view (a webcam over the table, a recorded match): the winner's hand lies
//! among the other players' melds, discards and standing hands.
//!
//! Every player's tiles face that player: their melds, their discards (in rows in front of
//! them, towards the middle) and, once the hand is won, the winner's hand laid down. So the
//! tiles are sorted by the side they face, and for each side the rows nearest its player
//! (the hand, melds laid beside or in front of it) are read alone, as `layout` reads one hand.
//! The first side, most tiles first, whose nearest rows make a valid winning hand is the
//! winner's; every other tile is the other players' and is not scored.

use super::decode::{Decoded, decode};
use super::layout::{
    self, Group, GroupKind, Placed, TableReading, is_bonus, place, relative, row_angle, rows_of,
    tile_size,
};
use crate::detection::Detection;
use crate::scoring::RuleSet;

/// Tiles one hand holds at most, bonus tiles apart: four kongs and a pair.
const MAX_HAND: usize = 18;
/// A side is tried when at least this many face-up tiles face its player.
const MIN_FACING: usize = 4;
/// The rows nearest a player tried as their hand: the hand itself, then melds laid in front of
/// it, then a third row (a hand split in two, flowers).
const MAX_ROWS: usize = 3;
/// A tile that does not face the player belongs to their row only when it lies this close (in
/// tile widths) to one of the row's tiles that does: a claimed tile turned sideways, the backs of
/// a concealed kong.
const TOUCHING: f32 = 0.5;
/// Tiles of one player's row lie closer than this many tile widths apart.
const APART: f32 = 3.0;
/// A row of this many backs nearest a player is their hand, still standing.
const BACKS: usize = 5;
/// A flower or season facing the winner is theirs when it lies within this many tile heights of
/// their rows (theirs lie aside; a far one is a discard misread).
const BONUS_REACH: f32 = 3.0;

/// The winner's reading, when one side's nearest rows make a valid winning hand (the caller
/// checks first that the picture holds more than one player's tiles); the other tiles come
/// back as a group of `GroupKind::Others`.
pub(super) fn winner(dets: &[Detection], rules: &RuleSet) -> Option<(TableReading, Decoded)> {
    let facing = facing_counts(dets);
    let mut sides: Vec<u8> = (0..4u8)
        .filter(|&q| facing[usize::from(q)] >= MIN_FACING)
        .collect();
    sides.sort_by_key(|&q| std::cmp::Reverse(facing[usize::from(q)]));
    sides.into_iter().find_map(|up| {
        candidates(dets, up).into_iter().find_map(|among| {
            let reading = layout::read_among(dets, &among);
            let decoded = decode(dets, &reading, rules);
            decoded
                .hand
                .is_some()
                .then(|| (with_others(dets.len(), reading, &among, up), decoded))
        })
    })
}

/// Face-up tiles facing each side (quarter turns from upright in the picture).
fn facing_counts(dets: &[Detection]) -> [usize; 4] {
    let mut n = [0usize; 4];
    for d in dets.iter().filter(|d| !d.face_down) {
        n[usize::from(relative(d.orientation, 0))] += 1;
    }
    n
}

/// More tiles than one hand can hold, or tiles facing two sides, more than one hand's claimed
/// tiles (four at most) can face.
pub(super) fn several_players(dets: &[Detection]) -> bool {
    let playing = dets.iter().filter(|d| !is_bonus(d)).count();
    let sides = facing_counts(dets)
        .iter()
        .filter(|&&n| n > MIN_FACING)
        .count();
    playing > MAX_HAND || sides >= 2
}

/// The tiles tried as one player's: the nearest row, then the nearest two, then three, with the
/// flowers and seasons that face them.
fn candidates(dets: &[Detection], up: u8) -> Vec<Vec<usize>> {
    let faces_up = |i: usize| !dets[i].face_down && relative(dets[i].orientation, up) == 0;
    let own: Vec<usize> = (0..dets.len()).filter(|&i| faces_up(i)).collect();
    let (w, h) = tile_size(dets, &own);
    let angle = row_angle(dets, &own, up, w);
    let all: Vec<usize> = (0..dets.len()).collect();
    let mut rows = rows_of(place(dets, &all, up, angle), h);
    // Nearest the player first: the player sits where y is largest.
    rows.reverse();
    if still_standing(dets, &rows, &faces_up) {
        return Vec::new();
    }
    let bonus: Vec<Placed> = rows
        .iter()
        .flatten()
        .filter(|p| faces_up(p.idx) && is_bonus(&dets[p.idx]))
        .copied()
        .collect();
    let theirs: Vec<Vec<Placed>> = rows
        .iter()
        .map(|row| row_tiles(dets, row, w, &faces_up))
        .filter(|r| r.iter().any(|p| !is_bonus(&dets[p.idx])))
        .take(MAX_ROWS)
        .collect();
    (1..=theirs.len())
        .map(|k| {
            let rows = &theirs[..k];
            let far = rows.iter().flatten().map(|p| p.y).fold(f32::MAX, f32::min);
            let mut among: Vec<usize> = rows.iter().flatten().map(|p| p.idx).collect();
            among.extend(
                bonus
                    .iter()
                    .filter(|b| b.y >= far - BONUS_REACH * h)
                    .map(|b| b.idx),
            );
            among.sort_unstable();
            among.dedup();
            among
        })
        .collect()
}

/// Whether the player still stands their hand: the nearest row showing backs and none of
/// their tiles holds `BACKS` or more face-down tiles. Their discards, in front, could
/// otherwise be read as a hand.
fn still_standing(
    dets: &[Detection],
    rows: &[Vec<Placed>],
    faces_up: &dyn Fn(usize) -> bool,
) -> bool {
    rows.iter()
        .find(|row| row.iter().any(|p| dets[p.idx].face_down || faces_up(p.idx)))
        .is_some_and(|row| {
            !row.iter().any(|p| faces_up(p.idx))
                && row.iter().filter(|p| dets[p.idx].face_down).count() >= BACKS
        })
}

/// The tiles of one row that are the player's: those facing them, and those touching them that
/// lie sideways or face down (a claimed tile, a concealed kong's backs); a tile turned away from
/// the player (upside down for them) is someone else's.
fn row_tiles(
    dets: &[Detection],
    row: &[Placed],
    w: f32,
    faces_up: &dyn Fn(usize) -> bool,
) -> Vec<Placed> {
    let mut kept = largest_cluster(row.iter().filter(|p| faces_up(p.idx)).copied(), w);
    let mut rest: Vec<Placed> = row
        .iter()
        .filter(|p| !faces_up(p.idx) && (dets[p.idx].face_down || p.sideways))
        .copied()
        .collect();
    loop {
        let touching = |p: &Placed| {
            kept.iter()
                .any(|k| p.x0 - k.x1 < TOUCHING * w && k.x0 - p.x1 < TOUCHING * w)
        };
        let (near, far): (Vec<Placed>, Vec<Placed>) = rest.iter().partition(|p| touching(p));
        if near.is_empty() {
            return kept;
        }
        kept.extend(near);
        rest = far;
    }
}

/// The tiles of a row lying together: cut where a gap is wider than `APART` tile widths, the
/// part with the most tiles. A tile facing the player far along their row is another
/// player's: a claimed tile of the player beside them, laid sideways, faces them.
fn largest_cluster(tiles: impl Iterator<Item = Placed>, w: f32) -> Vec<Placed> {
    let mut sorted: Vec<Placed> = tiles.collect();
    sorted.sort_by(|a, b| a.x0.total_cmp(&b.x0));
    let mut parts: Vec<Vec<Placed>> = Vec::new();
    for p in sorted {
        match parts.last_mut() {
            Some(part) if part.last().is_some_and(|q| p.x0 - q.x1 <= APART * w) => part.push(p),
            _ => parts.push(vec![p]),
        }
    }
    parts.into_iter().max_by_key(Vec::len).unwrap_or_default()
}

/// The winner's reading with every other tile in one group of the others' tiles, and a note.
fn with_others(n: usize, mut reading: TableReading, among: &[usize], up: u8) -> TableReading {
    let others: Vec<usize> = (0..n).filter(|i| !among.contains(i)).collect();
    let side = ["bottom", "left", "top", "right"][usize::from(up % 4)];
    reading.assumed.insert(
        0,
        format!(
            "the whole table is in view: the hand read is the one facing the {side} of the picture \
             ({} tiles); the other {} tiles (the other players' melds, discards and hands) are not scored",
            among.len(),
            others.len()
        ),
    );
    if !others.is_empty() {
        reading.groups.push(Group {
            kind: GroupKind::Others,
            tiles: others,
        });
    }
    reading
}

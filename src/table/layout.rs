//! From tiles found in a picture to how they lie on the table: the standing hand, declared melds
//! (with who gave the claimed tile), concealed kongs, the winning tile set apart, bonus tiles.
//!
//! The conventions are the rules' own (seed 000, 第七条 八 and 第二章 单放):
//! - a claimed chow, pung or kong is laid with the claimed tile sideways: on the left if it came
//!   from the player on the left (上家), in the middle from across (对家), on the right from the
//!   right (下家);
//! - a concealed kong shows face-down tiles (two down and two up, or four down);
//! - a self-drawn winning tile is set apart from the hand; bonus tiles lie aside.
//!
//! Real photos do not always follow them, so the reading also accepts melds laid upright to the
//! right of the hand or in a row in front of it, and a winning tile that was not set apart. Every
//! such guess is written to `assumed`.

use crate::detection::{Detection, Face, Orientation};
use crate::scoring::Seat;
use crate::tile::Tile;

/// What a group of tiles is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GroupKind {
    /// The standing tiles.
    Hand,
    /// The winning tile, set apart (or taken as the last tile of the hand).
    Winning,
    /// A claimed chow; `claimed` is the position (0..3, left to right) of the sideways tile.
    Chow {
        claimed: u8,
    },
    Pung {
        from: Seat,
    },
    Kong {
        from: Seat,
    },
    ConcealedKong,
    /// Flowers and seasons set aside.
    Bonus,
    /// Tiles that fit nowhere (reported, not scored).
    Stray,
    /// With the whole table in view: the other players' tiles (their melds, discards and
    /// standing hands), not scored.
    Others,
}

impl GroupKind {
    pub fn name(self) -> &'static str {
        match self {
            GroupKind::Hand => "hand",
            GroupKind::Winning => "winning",
            GroupKind::Chow { .. } => "chow",
            GroupKind::Pung { .. } => "pung",
            GroupKind::Kong { .. } => "kong",
            GroupKind::ConcealedKong => "concealed_kong",
            GroupKind::Bonus => "bonus",
            GroupKind::Stray => "stray",
            GroupKind::Others => "others",
        }
    }
    pub fn is_meld(self) -> bool {
        matches!(
            self,
            GroupKind::Chow { .. }
                | GroupKind::Pung { .. }
                | GroupKind::Kong { .. }
                | GroupKind::ConcealedKong
        )
    }
}

/// A group of tiles, as indices into the detections, left to right as the player sees them.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Group {
    pub kind: GroupKind,
    pub tiles: Vec<usize>,
}

/// The table as read.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct TableReading {
    pub groups: Vec<Group>,
    /// Guesses made where the layout was ambiguous.
    pub assumed: Vec<String>,
    /// Problems seen (too many tiles, overlapping tiles, …).
    pub issues: Vec<String>,
}

impl TableReading {
    pub fn of_kind(&self, f: impl Fn(GroupKind) -> bool) -> impl Iterator<Item = &Group> {
        self.groups.iter().filter(move |g| f(g.kind))
    }
    pub fn bonus_count(&self) -> usize {
        self.of_kind(|k| k == GroupKind::Bonus)
            .map(|g| g.tiles.len())
            .sum()
    }
}

/// A tile in table coordinates: x along the rows (left to right as the player sees them),
/// y across them (away from the player is smaller).
#[derive(Clone, Copy, Debug)]
pub(super) struct Placed {
    pub(super) idx: usize,
    pub(super) x0: f32,
    pub(super) x1: f32,
    pub(super) y: f32,
    /// The face's extent across the row (its height for an upright tile).
    pub(super) depth: f32,
    pub(super) sideways: bool,
}

fn median(mut v: Vec<f32>) -> f32 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f32::total_cmp);
    v[v.len() / 2]
}

pub(super) fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// A tile beside bonus tiles only is read as one if the model gives it at least this much.
const MIN_P_BONUS_ASIDE: f32 = 0.05;

/// Reads the layout of a table from its detections.
pub fn read(dets: &[Detection]) -> TableReading {
    let all: Vec<usize> = (0..dets.len()).collect();
    read_among(dets, &all)
}

/// Reads the layout of some of the detections (indices into `dets`), as if the others were
/// not there: one player's tiles when the whole table is in view.
pub fn read_among(dets: &[Detection], among: &[usize]) -> TableReading {
    let mut out = TableReading::default();
    if among.is_empty() {
        out.issues.push("no tiles found in the picture".to_string());
        return out;
    }
    let (mut bonus, rest) = split_bonus(dets, among, &mut out);
    let up = player_up(dets, &rest, &mut out);
    let (w, h) = tile_size(dets, &rest);
    let angle = row_angle(dets, &rest, up, w);
    let rows = rows_of(place(dets, &rest, up, angle), h);
    let runs = runs_of(rows, w, &mut out);
    let plain = read_melds(dets, runs, &mut out);
    let more = read_hand(dets, &plain, &bonus, &mut out);
    bonus.extend(more);
    if !bonus.is_empty() {
        out.groups.push(Group {
            kind: GroupKind::Bonus,
            tiles: bonus,
        });
    }
    out
}

/// Whether the centres of tiles `i` and `j` lie closer than `sides` of `i`'s short side.
fn within(dets: &[Detection], i: usize, j: usize, sides: f32) -> bool {
    let k = &dets[i].corners;
    let side = dist(k[0], k[1]).min(dist(k[1], k[2]));
    dist(centre(k), centre(&dets[j].corners)) < sides * side
}

/// Whether tile `j` lies beside tile `i` (their centres closer than 1.6 of `i`'s short side).
fn beside(dets: &[Detection], i: usize, j: usize) -> bool {
    within(dets, i, j, 1.6)
}

/// Bonus tiles lie aside: they are taken out first (`bonus`, `rest`).
fn split_bonus(
    dets: &[Detection],
    among: &[usize],
    out: &mut TableReading,
) -> (Vec<usize>, Vec<usize>) {
    let mut bonus = Vec::new();
    let mut rest = Vec::new();
    for &i in among {
        if is_bonus(&dets[i]) {
            bonus.push(i);
        } else {
            rest.push(i);
        }
    }
    // A tile beside bonus tiles and beside nothing else lies in their row, aside from the
    // hand: take it as one of them when the model gives it some chance of being one (the
    // pictures of flowers and seasons differ most from set to set).
    loop {
        let beside = |i: usize, j: usize| beside(dets, i, j);
        let moved: Vec<usize> = rest
            .iter()
            .copied()
            .filter(|&i| {
                !dets[i].face_down
                    && dets[i].p_bonus() >= MIN_P_BONUS_ASIDE
                    && bonus.iter().any(|&j| beside(i, j))
                    && !rest.iter().any(|&j| j != i && beside(i, j))
            })
            .collect();
        if moved.is_empty() {
            break;
        }
        for &i in &moved {
            out.assumed.push(format!(
                "tile {i} lies with the flowers and seasons: read as one ({:.0}% by the model)",
                100.0 * dets[i].p_bonus()
            ));
        }
        rest.retain(|i| !moved.contains(i));
        bonus.extend(moved);
    }
    (bonus, rest)
}

/// A face-up tile read as a flower or season (its top face, or half its probability).
pub(super) fn is_bonus(d: &Detection) -> bool {
    let top_bonus = matches!(d.top(), Some((Face::Bonus(_), _)));
    !d.face_down && (top_bonus || d.p_bonus() >= 0.5)
}

/// Quarter turns clockwise from upright in the image.
pub(super) fn quarter(o: Orientation) -> u8 {
    match o {
        Orientation::Up => 0,
        Orientation::Right => 1,
        Orientation::Down => 2,
        Orientation::Left => 3,
    }
}

/// Quarter turns of a tile from the player's "up".
pub(super) fn relative(o: Orientation, up: u8) -> u8 {
    (quarter(o) + 4 - up) % 4
}

/// The player's "up": the orientation most tiles share, in quarter turns. Upside down in the
/// image means the photo was taken from across the table (or turned half round); sideways, from
/// the side (or turned a quarter, its EXIF turn lost). A tile turned a quarter from it is a
/// claimed tile.
fn player_up(dets: &[Detection], rest: &[usize], out: &mut TableReading) -> u8 {
    let mut votes = [0usize; 4];
    for &i in rest {
        votes[usize::from(quarter(dets[i].orientation))] += 1;
    }
    let majority = (0..4u8)
        .max_by_key(|&q| (votes[usize::from(q)], 4 - q))
        .unwrap_or(0);
    match majority {
        2 => out.assumed.push(
            "most tiles read upside down: the photo was taken from across the table, or turned \
             half round"
                .to_string(),
        ),
        1 | 3 => out.assumed.push(
            "most tiles read sideways: the photo was taken from the side of the table, or turned \
             a quarter (its EXIF turn lost)"
                .to_string(),
        ),
        _ => {}
    }
    majority
}

/// Tile size: the median short side of the tiles (their width along the row when upright)
/// and the median long side.
pub(super) fn tile_size(dets: &[Detection], rest: &[usize]) -> (f32, f32) {
    let sides = |pick: fn(f32, f32) -> f32| -> Vec<f32> {
        rest.iter()
            .map(|&i| {
                let k = &dets[i].corners;
                pick(dist(k[0], k[1]), dist(k[1], k[2]))
            })
            .collect()
    };
    let w = median(sides(f32::min)).max(1.0);
    let h = median(sides(f32::max)).max(w);
    (w, h)
}

/// Row direction: the top edges (corner 0 to 1) of the tiles that stand upright for the
/// player, refined by where neighbouring tiles sit: boxes may be axis-aligned, so a row
/// photographed at a slant shows its slant only in the line its tiles' centres follow.
pub(super) fn row_angle(dets: &[Detection], rest: &[usize], up: u8, w: f32) -> f32 {
    let angles: Vec<f32> = rest
        .iter()
        .filter(|&&i| relative(dets[i].orientation, up) == 0)
        .map(|&i| {
            let (a, b) = (dets[i].corners[0], dets[i].corners[1]);
            (b[1] - a[1]).atan2(b[0] - a[0])
        })
        .collect();
    let base = if angles.is_empty() {
        0.0
    } else {
        circular_mean(&angles)
    };
    let centres: Vec<[f32; 2]> = rest.iter().map(|&i| centre(&dets[i].corners)).collect();
    let across: Vec<bool> = rest
        .iter()
        .map(|&i| relative(dets[i].orientation, up) % 2 == 1)
        .collect();
    let mut slants = Vec::new();
    for (a, ca) in centres.iter().enumerate() {
        for (b, cb) in centres.iter().enumerate().skip(a + 1) {
            // A sideways tile's centre sits off the line of its upright neighbours' (the tiles
            // of a meld are laid flush on one side): only pairs lying alike show the slant.
            if across[a] != across[b] {
                continue;
            }
            let d = dist(*ca, *cb);
            if d > 1.6 * w || d < 0.3 * w {
                continue;
            }
            // The pair's direction relative to the row, folded into (-90°, 90°].
            let mut dev = (cb[1] - ca[1]).atan2(cb[0] - ca[0]) - base;
            while dev > std::f32::consts::FRAC_PI_2 {
                dev -= std::f32::consts::PI;
            }
            while dev <= -std::f32::consts::FRAC_PI_2 {
                dev += std::f32::consts::PI;
            }
            // Neighbours along the row, not across rows.
            if dev.abs() < 0.5 {
                slants.push(dev);
            }
        }
    }
    if slants.len() >= 2 {
        base + median(slants)
    } else {
        base
    }
}

/// The tiles in table coordinates, the rows turned to lie along x.
pub(super) fn place(dets: &[Detection], rest: &[usize], up: u8, angle: f32) -> Vec<Placed> {
    let (c, s) = (angle.cos(), angle.sin());
    let to_table = |p: [f32; 2]| [p[0] * c + p[1] * s, -p[0] * s + p[1] * c];
    rest.iter()
        .map(|&i| {
            let d = &dets[i];
            let pts: Vec<[f32; 2]> = d.corners.iter().map(|&p| to_table(p)).collect();
            let x0 = pts.iter().map(|p| p[0]).fold(f32::MAX, f32::min);
            let x1 = pts.iter().map(|p| p[0]).fold(f32::MIN, f32::max);
            let y = pts.iter().map(|p| p[1]).sum::<f32>() / 4.0;
            let y0 = pts.iter().map(|p| p[1]).fold(f32::MAX, f32::min);
            let y1 = pts.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
            Placed {
                idx: i,
                x0,
                x1,
                y,
                depth: y1 - y0,
                sideways: relative(d.orientation, up) % 2 == 1,
            }
        })
        .collect()
}

/// Rows: tiles whose centres lie within half a tile height of each other.
pub(super) fn rows_of(mut placed: Vec<Placed>, h: f32) -> Vec<Vec<Placed>> {
    placed.sort_by(|a, b| a.y.total_cmp(&b.y));
    let mut rows: Vec<Vec<Placed>> = Vec::new();
    for p in placed {
        match rows.last_mut() {
            Some(row)
                if (p.y - row.iter().map(|q| q.y).sum::<f32>() / row.len() as f32).abs()
                    < 0.55 * h =>
            {
                row.push(p)
            }
            _ => rows.push(vec![p]),
        }
    }
    rows
}

/// A run of tiles in one row, with the row's number.
type Run = (usize, Vec<Placed>);

/// Runs: tiles in a row with gaps under a third of a tile width between them; a row with
/// sideways tiles is cut into melds of 3 or 4 with one sideways tile each where it can be,
/// even when the player left no clear gap between melds (split_row).
fn runs_of(mut rows: Vec<Vec<Placed>>, w: f32, out: &mut TableReading) -> Vec<Run> {
    let mut runs = Vec::new();
    for (r, row) in rows.iter_mut().enumerate() {
        row.sort_by(|a, b| a.x0.total_cmp(&b.x0));
        for pair in row.windows(2) {
            if pair[1].x0 - pair[0].x1 < -0.4 * w {
                out.issues
                    .push(format!("tiles {} and {} overlap", pair[0].idx, pair[1].idx));
            }
        }
        for (a, b) in split_row(row, w) {
            runs.push((r, row[a..b].to_vec()));
        }
    }
    runs
}

/// Melds: runs with a sideways or face-down tile become groups; the other runs are returned.
fn read_melds(dets: &[Detection], runs: Vec<Run>, out: &mut TableReading) -> Vec<Run> {
    let mut plain = Vec::new();
    let runs: Vec<Run> = runs
        .into_iter()
        .flat_map(|run| set_backs_aside(dets, run, out))
        .collect();
    for (r, run) in runs {
        let n = run.len();
        let idx: Vec<usize> = run.iter().map(|p| p.idx).collect();
        let down = run.iter().filter(|p| dets[p.idx].face_down).count();
        if down > 0 {
            let group = face_down_group(idx, down, out);
            out.groups.push(group);
            continue;
        }
        let sideways: Vec<usize> = (0..n).filter(|&k| run[k].sideways).collect();
        if !sideways.is_empty() && (n == 3 || n == 4) {
            let group = claimed_meld(dets, &run, out);
            out.groups.push(group);
            continue;
        }
        if !sideways.is_empty() {
            out.issues.push(format!(
                "a sideways tile in a group of {n}: a claimed meld has 3 or 4 tiles"
            ));
        }
        plain.push((r, run));
    }
    plain
}

/// A run that mixes face-down and face-up tiles but is no concealed kong as a whole: the
/// concealed kongs laid in it (down, up, up, down) are taken out as groups, and every other
/// face-down tile is set aside as stray; the face-up tiles between them are returned as runs
/// of their own. A face-down tile found beside the hand (a gap between two tiles, the table
/// at a row's end) would otherwise make the whole row stray, and one beside a claimed pung
/// would make it a concealed kong. Other runs are returned as they are.
fn set_backs_aside(dets: &[Detection], (r, run): Run, out: &mut TableReading) -> Vec<Run> {
    let down = |p: &Placed| dets[p.idx].face_down;
    let n_down = run.iter().filter(|p| down(p)).count();
    let upright = |w: &[Placed]| w.iter().all(|p| down(p) || !p.sideways);
    // Inside a longer run only the kongs laid as the rules lay them: down at both ends.
    let laid_kong = |w: &[Placed]| w.len() == 4 && upright(w) && down(&w[0]) && down(&w[3]);
    if n_down == 0 || n_down == run.len() || (run.len() == 4 && upright(&run)) {
        return vec![(r, run)];
    }
    let (mut parts, mut part, mut aside) = (Vec::new(), Vec::new(), Vec::new());
    let mut k = 0;
    while k < run.len() {
        let window = run.get(k..k + 4).filter(|w| laid_kong(w));
        if let Some(w) = window {
            parts.push((r, std::mem::take(&mut part)));
            parts.push((r, w.to_vec()));
            k += 4;
        } else if down(&run[k]) {
            parts.push((r, std::mem::take(&mut part)));
            aside.push(run[k].idx);
            k += 1;
        } else {
            part.push(run[k]);
            k += 1;
        }
    }
    parts.push((r, part));
    parts.retain(|(_, p)| !p.is_empty());
    let note = format!(
        "{} face-down tile(s) beside face-up tiles set aside: only a concealed kong shows face-down tiles",
        aside.len()
    );
    leave_out(aside, note, out);
    parts
}

/// Tiles set aside as stray (reported, not scored), with what was assumed of them; nothing
/// when there are none.
fn leave_out(tiles: Vec<usize>, note: String, out: &mut TableReading) {
    if !tiles.is_empty() {
        out.assumed.push(note);
        out.groups.push(Group {
            kind: GroupKind::Stray,
            tiles,
        });
    }
}

/// A run with face-down tiles: a concealed kong, or stray tiles.
fn face_down_group(idx: Vec<usize>, down: usize, out: &mut TableReading) -> Group {
    let n = idx.len();
    let kind = if n == 4 && down >= 2 {
        GroupKind::ConcealedKong
    } else if n == 4 && down == 1 {
        out.assumed
            .push("a kong with one face-down tile read as a concealed kong".to_string());
        GroupKind::ConcealedKong
    } else {
        out.issues.push(format!("{down} face-down tile(s) in a group of {n}: only a concealed kong shows face-down tiles"));
        GroupKind::Stray
    };
    Group { kind, tiles: idx }
}

/// Who gave the claimed tile of a meld of `n` tiles, from the claimed tile's place `pos` (left
/// to right): the left player's on the left, across's in the middle, the right's on the right.
pub(super) fn claimed_from(pos: usize, n: usize) -> Seat {
    match (pos, n) {
        (0, _) => Seat::Left,
        (1, 3) => Seat::Across,
        (p, 4) if p == 1 || p == 2 => Seat::Across,
        _ => Seat::Right,
    }
}

/// Where the claimed tile of a meld of three given by `from` lies, left to right: the
/// inverse of `claimed_from` for three tiles.
pub(super) fn claimed_at(from: Seat) -> usize {
    match from {
        Seat::Left => 0,
        Seat::Across => 1,
        _ => 2,
    }
}

/// A run of 3 or 4 with a sideways tile: a claimed meld, the sideways tile saying who gave it
/// (`claimed_tile`).
fn claimed_meld(dets: &[Detection], meld: &[Placed], out: &mut TableReading) -> Group {
    let idx: Vec<usize> = meld.iter().map(|p| p.idx).collect();
    let n = idx.len();
    let pos = claimed_tile(meld);
    let from = claimed_from(pos, n);
    let kind = if n == 4 {
        GroupKind::Kong { from }
    } else if same_top_face(dets, &idx) {
        GroupKind::Pung { from }
    } else {
        GroupKind::Chow { claimed: pos as u8 }
    };
    if meld.iter().filter(|p| p.sideways).count() > 1 && n == 3 {
        out.assumed
            .push("a meld with two sideways tiles read as one claimed tile".to_string());
    }
    Group { kind, tiles: idx }
}

/// How much a claimed tile of a meld lying low, seen from the seat, stands out from its
/// meld's other tiles: at least this much flatter times longer along the row
/// (`across_signs`), every other tile of the meld under NOT_ACROSS. Measured on the pungs and
/// kongs of `tools/real_hands.py --seat --turned` seeds 1–6 read with their faces right: 196
/// of 199 claimed tiles at 1.14 or more. Not enough alone to call a tile sideways: of 109 melds
/// laid upright (`--seat` seeds 1–3), 9 have a tile at 1.25–1.54, the others under 1.2. It
/// only picks between tiles the finder turned, or replaces a turned tile whose shape says it
/// is not (`claimed_tile`).
const ACROSS_SHAPE: f32 = 1.25;
const NOT_ACROSS: f32 = 1.2;

/// For each tile of a meld (left to right), how much flatter (width along the row over depth)
/// times longer along the row it is than the mean of its meld's other tiles. Seen from above a
/// sideways tile is about 2.4; from the seat a claimed tile lying low 1.1–2.3, its box drawn
/// too deep and too short.
fn across_signs(meld: &[Placed]) -> Vec<f32> {
    let width = |p: &Placed| (p.x1 - p.x0).max(1e-3);
    let flat = |p: &Placed| width(p) / p.depth.max(1e-3);
    (0..meld.len())
        .map(|k| {
            let others = meld.iter().enumerate().filter(|&(j, _)| j != k);
            let n = (meld.len() - 1).max(1) as f32;
            let (f, w) = others.fold((0.0, 0.0), |(f, w), (_, p)| (f + flat(p), w + width(p)));
            flat(&meld[k]) / (f / n).max(1e-3) * width(&meld[k]) / (w / n).max(1e-3)
        })
        .collect()
}

/// The tile of a meld whose shape says it lies across the row (`ACROSS_SHAPE`), if one does,
/// from its tiles' `across_signs`.
fn lying_across(signs: &[f32]) -> Option<usize> {
    let best = (0..signs.len()).max_by(|&a, &b| signs[a].total_cmp(&signs[b]))?;
    let alone = (0..signs.len()).all(|k| k == best || signs[k] < NOT_ACROSS);
    (signs[best] >= ACROSS_SHAPE && alone).then_some(best)
}

/// The claimed tile of a meld with sideways tiles, by its place (left to right): of several
/// sideways tiles the one lying most across the row (`across_signs`); where that one is no
/// wider than its meld (the finder turned an upright tile) and another tile's shape says it
/// lies across (`lying_across`), that other tile.
fn claimed_tile(meld: &[Placed]) -> usize {
    let signs = across_signs(meld);
    let sideways = (0..meld.len()).filter(|&k| meld[k].sideways);
    let turned = sideways
        .max_by(|&a, &b| signs[a].total_cmp(&signs[b]))
        .unwrap_or(0);
    match lying_across(&signs) {
        Some(k) if signs[turned] < 1.0 => k,
        _ => turned,
    }
}

/// The hand is the longest run of upright tiles outside the rows lying in front of standing
/// tiles (`lying_rows`); its row is the hand row. The other upright runs are the winning tile
/// set apart, melds laid upright (those lying in front of the hand, touching, cut apart by
/// their faces), or parts of the hand. Gives the lone tiles read as flowers or seasons.
fn read_hand(
    dets: &[Detection],
    plain: &[Run],
    bonus_aside: &[usize],
    out: &mut TableReading,
) -> Vec<usize> {
    let lying = lying_rows(plain);
    let Some(main) = hand_run(plain, &lying) else {
        out.issues.push("no standing hand found".to_string());
        return Vec::new();
    };
    let hand_row = plain[main].0;
    let mut hand: Vec<usize> = plain[main].1.iter().map(|p| p.idx).collect();
    let mut others = nearest_the_hand_first(plain, main);
    let lying: Vec<usize> = lying.into_iter().filter(|&r| r != hand_row).collect();
    let cut = melds_lying_in_front(dets, plain, &lying, out);
    others.retain(|run| !cut.contains(&run.0));
    let (mut winning, parts) = runs_apart(dets, &others, hand_row, out);
    let bonus = join_parts(
        dets,
        plain,
        bonus_aside,
        parts,
        &mut hand,
        winning.is_some(),
        out,
    );
    if winning.is_none() && !hand.is_empty() {
        out.assumed.push(
            "no tile set apart: the rightmost tile of the hand is taken as the winning tile"
                .to_string(),
        );
        winning = hand.pop();
    }
    if let Some(wi) = winning {
        out.groups.push(Group {
            kind: GroupKind::Winning,
            tiles: vec![wi],
        });
    }
    out.groups.insert(
        0,
        Group {
            kind: GroupKind::Hand,
            tiles: hand,
        },
    );
    bonus
}

/// The hand's run: the longest run outside the `lying` rows (the first of equals), else the
/// longest of all; `None` when there is no run.
fn hand_run(plain: &[Run], lying: &[usize]) -> Option<usize> {
    let longest = |among: &mut dyn Iterator<Item = usize>| {
        among.max_by_key(|&k| (plain[k].1.len(), usize::MAX - k))
    };
    longest(&mut (0..plain.len()).filter(|&k| !lying.contains(&plain[k].0)))
        .or_else(|| longest(&mut (0..plain.len())))
}

/// The runs other than the hand's (`main`), nearest the hand first: in its row, then by how far
/// they start from its right end.
fn nearest_the_hand_first(plain: &[Run], main: usize) -> Vec<&Run> {
    let hand_row = plain[main].0;
    let hand_end = plain[main].1.last().map_or(0.0, |p| p.x1);
    let mut others: Vec<&Run> = plain
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != main)
        .map(|(_, r)| r)
        .collect();
    others.sort_by(|a, b| {
        let near = |r: &Run| (r.0 != hand_row, (r.1[0].x0 - hand_end).abs());
        near(a)
            .partial_cmp(&near(b))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    others
}

/// The runs apart from the hand, nearest first: a lone tile (in the hand row first) is the
/// winning tile, a run of 3 or 4 a meld laid upright (pushed to `out.groups`), anything else a
/// part of the hand split off by a gap. Gives the winning tile and those parts.
fn runs_apart(
    dets: &[Detection],
    others: &[&Run],
    hand_row: usize,
    out: &mut TableReading,
) -> (Option<usize>, Vec<Vec<usize>>) {
    let mut winning: Option<usize> = None;
    let mut parts = Vec::new();
    for (r, run) in others {
        let idx: Vec<usize> = run.iter().map(|p| p.idx).collect();
        match idx.len() {
            1 if winning.is_none() && *r == hand_row => winning = Some(idx[0]),
            3 | 4 => {
                let group = upright_meld(dets, idx, out);
                out.groups.push(group);
            }
            1 if winning.is_none() => {
                out.assumed.push(
                    "a lone tile away from the hand row read as the winning tile".to_string(),
                );
                winning = Some(idx[0]);
            }
            _ => parts.push(idx),
        }
    }
    (winning, parts)
}

/// Parts of the hand split by gaps are joined to it (said once for all such parts), while
/// the hand is not full: past 14 tiles a part cannot belong to it. A lone tile then is most
/// often a flower or season the model misread (their pictures differ most between sets):
/// one the model gives some chance of being one, or one lying beside the bonus tiles; or the
/// fourth tile of a pung beside it. Gives the lone tiles read as flowers or seasons.
fn join_parts(
    dets: &[Detection],
    plain: &[Run],
    bonus_aside: &[usize],
    parts: Vec<Vec<usize>>,
    hand: &mut Vec<usize>,
    has_winning: bool,
    out: &mut TableReading,
) -> Vec<usize> {
    let melds = out.groups.iter().filter(|g| g.kind.is_meld()).count();
    let (mut bonus, mut left_out) = (Vec::new(), Vec::new());
    let (mut joined_runs, mut joined_tiles) = (0, 0);
    // Beside them means in their row, away from the other tiles (as `split_bonus` asks): a
    // tile beside a flower and beside tiles of the hand or a meld is one of the table's (a 2m
    // upside down below a season in a grid of tiles, held-out rf photo 0018).
    let placed: Vec<usize> = plain
        .iter()
        .flat_map(|r| r.1.iter().map(|p| p.idx))
        .chain(out.groups.iter().flat_map(|g| g.tiles.iter().copied()))
        .collect();
    let by_bonus = |i: usize| {
        bonus_aside.iter().any(|&j| beside(dets, i, j))
            && !placed.iter().any(|&j| j != i && beside(dets, i, j))
    };
    for idx in parts {
        let full = hand.len() + usize::from(has_winning) + 3 * melds >= 14;
        match idx[..] {
            [i] if full && fourth_of_a_pung(dets, i, &mut out.groups) => {
                out.assumed.push(
                    "a lone tile beside a pung of its face, apart from a full hand, read as the fourth tile of a kong"
                        .to_string(),
                );
            }
            [i] if full && (dets[i].p_bonus() >= MIN_P_BONUS_ASIDE || by_bonus(i)) => {
                out.assumed.push(format!(
                    "a lone tile apart from a full hand{} read as a flower or season ({:.1}% by the model)",
                    if by_bonus(i) { ", beside the bonus tiles," } else { "" },
                    100.0 * dets[i].p_bonus()
                ));
                bonus.push(i);
            }
            _ if full => left_out.extend(idx),
            _ => {
                joined_runs += 1;
                joined_tiles += idx.len();
                hand.extend(idx);
            }
        }
    }
    if joined_runs > 0 {
        out.assumed.push(joined_note(joined_runs, joined_tiles));
    }
    let note = format!("{} tile(s) apart from a full hand left out", left_out.len());
    leave_out(left_out, note, out);
    bonus
}

/// How much flatter (depth over width) than a row behind them the faces of a row must look
/// to be taken as lying on the table while the row behind stands: seen from the seat, a
/// standing tile shows its face nearly whole (depth over width 1.1–1.4 at 15–30° above the
/// table) and one lying in front of it squeezed (0.4–1.1); seen from above, rows look alike,
/// and a slanted view squeezes the rows behind, not those in front.
const LYING: f32 = 0.85;

/// The rows (their numbers) of upright tiles that lie flat in front of standing tiles, as a
/// photo taken from the seat shows the melds laid in front of the hand: their faces are
/// flatter (LYING) than those of a row behind them. Such tiles are no part of the hand.
fn lying_rows(plain: &[Run]) -> Vec<usize> {
    let mut rows: Vec<(usize, f32)> = Vec::new();
    let numbers: std::collections::BTreeSet<usize> = plain.iter().map(|r| r.0).collect();
    for r in numbers {
        let shapes: Vec<f32> = plain
            .iter()
            .filter(|run| run.0 == r)
            .flat_map(|run| run.1.iter())
            .filter(|p| !p.sideways && p.x1 > p.x0)
            .map(|p| p.depth / (p.x1 - p.x0))
            .collect();
        if !shapes.is_empty() {
            rows.push((r, median(shapes)));
        }
    }
    // Row numbers grow towards the player (`rows_of` sorts rows by y).
    rows.iter()
        .filter(|&&(r, flat)| rows.iter().any(|&(b, tall)| b < r && flat < LYING * tall))
        .map(|&(r, _)| r)
        .collect()
}

/// The rows of tiles lying in front of the hand (`rows`) read as melds: each row's tiles, gaps
/// or none between them (the gaps a photo from the seat shows between tiles lying low are
/// unreliable), cut into melds by their faces (`cut_into_melds`), a sideways tile in a meld
/// saying who gave it. Gives the rows so read; a row no cut fits is left to be read run by run.
fn melds_lying_in_front(
    dets: &[Detection],
    plain: &[Run],
    rows: &[usize],
    out: &mut TableReading,
) -> Vec<usize> {
    let mut cut = Vec::new();
    for &r in rows {
        let runs: Vec<&Run> = plain.iter().filter(|run| run.0 == r).collect();
        let mut row: Vec<Placed> = runs.iter().flat_map(|run| run.1.iter().copied()).collect();
        row.sort_by(|a, b| a.x0.total_cmp(&b.x0));
        let Some(melds) = cut_into_melds(dets, &row) else {
            continue;
        };
        if melds.len() != runs.len() {
            out.assumed.push(format!(
                "{} tiles lying in front of the standing hand read as {} melds by their faces",
                row.len(),
                melds.len()
            ));
        }
        for m in melds {
            let meld: Vec<Placed> = m
                .iter()
                .filter_map(|&i| row.iter().find(|p| p.idx == i).copied())
                .collect();
            let group = if meld.iter().any(|p| p.sideways) {
                claimed_meld(dets, &meld, out)
            } else {
                upright_meld(dets, m, out)
            };
            out.groups.push(group);
        }
        cut.push(r);
    }
    cut
}

/// A run of tiles lying in front of the hand cut into melds of 3 or 4 tiles, each a
/// pung, kong or chow by the faces read; where several cuts fit, the one cutting at the
/// widest gaps. `None` when no cut makes every part a meld.
fn cut_into_melds(dets: &[Detection], run: &[Placed]) -> Option<Vec<Vec<usize>>> {
    let n = run.len();
    let tiles: Vec<Option<Tile>> = run
        .iter()
        .map(|p| match dets[p.idx].top() {
            Some((Face::Tile(t), _)) => Some(t),
            _ => None,
        })
        .collect();
    let gap = |k: usize| run[k + 1].x0 - run[k].x1; // between tile k and k + 1
    // best[end]: the widest gaps summed over the cuts of run[..end], and where its last meld starts.
    let mut best: Vec<Option<(f32, usize)>> = vec![None; n + 1];
    best[0] = Some((0.0, 0));
    for end in 3..=n {
        for size in [3, 4] {
            let Some(start) = end.checked_sub(size) else {
                continue;
            };
            let Some((before, _)) = best[start] else {
                continue;
            };
            if !is_meld(&tiles[start..end]) {
                continue;
            }
            let score = before + if start > 0 { gap(start - 1) } else { 0.0 };
            if best[end].is_none_or(|(b, _)| score > b) {
                best[end] = Some((score, start));
            }
        }
    }
    best[n]?;
    let mut melds = Vec::new();
    let mut end = n;
    while end > 0 {
        let (_, start) = best[end]?;
        melds.push(run[start..end].iter().map(|p| p.idx).collect());
        end = start;
    }
    melds.reverse();
    Some(melds)
}

/// Whether the faces make a pung (3 alike), a kong (4 alike) or a chow (3 of a suit in a
/// row, in any order).
fn is_meld(tiles: &[Option<Tile>]) -> bool {
    let Some(tiles) = tiles.iter().copied().collect::<Option<Vec<Tile>>>() else {
        return false;
    };
    if tiles.windows(2).all(|w| w[0] == w[1]) {
        return tiles.len() == 3 || tiles.len() == 4;
    }
    let mut ranks: Vec<u8> = tiles.iter().map(|t| t.rank()).collect();
    ranks.sort_unstable();
    tiles.len() == 3
        && tiles[0].is_numbered()
        && tiles.iter().all(|t| t.suit() == tiles[0].suit())
        && ranks.windows(2).all(|w| w[1] == w[0] + 1)
}

/// Whether lone tile `i` is the fourth tile of a pung beside it, laid with a gap: the same
/// face, near its first or last tile. The pung becomes a kong, who gave its claimed tile
/// read again from where that tile now lies (for a pung laid upright, where it was guessed).
fn fourth_of_a_pung(dets: &[Detection], i: usize, groups: &mut [Group]) -> bool {
    for g in groups.iter_mut() {
        let GroupKind::Pung { from } = g.kind else {
            continue;
        };
        let [a, b, c] = g.tiles[..] else { continue };
        if !same_top_face(dets, &[i, a, b, c]) {
            continue;
        }
        // Within about a tile's width of the pung's end (further than `beside`).
        let near = |j: usize| within(dets, i, j, 2.2);
        let at = if near(a) {
            0
        } else if near(c) {
            3
        } else {
            continue;
        };
        let claimed = claimed_at(from) + usize::from(at == 0);
        g.tiles.insert(at, i);
        g.kind = GroupKind::Kong {
            from: claimed_from(claimed, 4),
        };
        return true;
    }
    false
}

/// What was assumed of the upright tiles set apart from the hand by gaps and joined to it.
fn joined_note(runs: usize, tiles: usize) -> String {
    let tiles_word = if tiles == 1 { "tile" } else { "tiles" };
    if runs == 1 {
        format!("{tiles} {tiles_word} split from the hand by a gap read as part of it")
    } else {
        format!("{tiles} tiles in {runs} groups split from the hand by gaps read as part of it")
    }
}

/// Three or four upright tiles apart from the hand: a declared meld laid without turning the
/// claimed tile.
fn upright_meld(dets: &[Detection], idx: Vec<usize>, out: &mut TableReading) -> Group {
    let kind = if idx.len() == 4 {
        GroupKind::Kong { from: Seat::Left }
    } else if same_top_face(dets, &idx) {
        GroupKind::Pung { from: Seat::Left }
    } else {
        GroupKind::Chow { claimed: 0 }
    };
    out.assumed.push(format!(
        "{} upright tiles apart from the hand read as a declared meld; who gave the tile is unknown",
        idx.len()
    ));
    Group { kind, tiles: idx }
}

fn same_top_face(dets: &[Detection], idx: &[usize]) -> bool {
    let faces: Vec<Option<Face>> = idx.iter().map(|&i| dets[i].top().map(|f| f.0)).collect();
    faces.windows(2).all(|w| w[0] == w[1])
}

/// Cuts a row of tiles (sorted left to right) into runs, as `[start, end)` ranges. Without
/// sideways tiles: cut at every gap wider than a third of a tile. With them, the cut that
/// costs least, where a run holding sideways tiles must be a meld (3 or 4 tiles, one of them
/// sideways), cutting where tiles touch costs the missing gap, and a wide gap inside a meld
/// costs its excess. A row no such cut fits is cut at its gaps alone.
fn split_row(row: &[Placed], w: f32) -> Vec<(usize, usize)> {
    let n = row.len();
    let wide = 0.3 * w;
    let gap = |k: usize| row[k + 1].x0 - row[k].x1; // between tile k and k + 1
    let at_gaps = || {
        let mut out = Vec::new();
        let mut start = 0;
        for k in 0..n.saturating_sub(1) {
            if gap(k) > wide {
                out.push((start, k + 1));
                start = k + 1;
            }
        }
        if n > 0 {
            out.push((start, n));
        }
        out
    };
    if !row.iter().any(|p| p.sideways) {
        return at_gaps();
    }
    // best[i]: least cost of cutting row[..i]; from[i]: where its last run starts.
    let mut best = vec![f32::INFINITY; n + 1];
    let mut from = vec![usize::MAX; n + 1];
    best[0] = 0.0;
    for end in 1..=n {
        for start in (0..end).rev() {
            let k = end - start;
            let inner_wide = (start..end - 1).any(|j| gap(j) > wide);
            let sideways = row[start..end].iter().filter(|p| p.sideways).count();
            let cost = if sideways == 0 {
                if inner_wide {
                    continue; // a plain run never spans a wide gap
                }
                0.0
            } else if sideways == 1 && (k == 3 || k == 4) {
                (start..end - 1).map(|j| (gap(j) - wide).max(0.0)).sum()
            } else {
                continue;
            };
            let cut = if end < n {
                (wide - gap(end - 1)).max(0.0)
            } else {
                0.0
            };
            let total = best[start] + cost + cut;
            if total < best[end] {
                best[end] = total;
                from[end] = start;
            }
        }
    }
    if !best[n].is_finite() {
        return at_gaps();
    }
    let mut out = Vec::new();
    let mut end = n;
    while end > 0 {
        let start = from[end];
        out.push((start, end));
        end = start;
    }
    out.reverse();
    out
}

pub(super) fn centre(k: &[[f32; 2]; 4]) -> [f32; 2] {
    [
        k.iter().map(|p| p[0]).sum::<f32>() / 4.0,
        k.iter().map(|p| p[1]).sum::<f32>() / 4.0,
    ]
}

fn circular_mean(angles: &[f32]) -> f32 {
    let (s, c) = angles
        .iter()
        .fold((0.0f32, 0.0f32), |(s, c), a| (s + a.sin(), c + a.cos()));
    s.atan2(c)
}

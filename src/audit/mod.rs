//! `audit`: checks a match's score sheet hand by hand: the arithmetic of the payments, zero
//! sums, penalties, running totals, the minimum, winds against the hand number, and, where
//! the sheet gives the hand, its fans and total against our score.
//!
//! With recordings, the hand of each winning row is the one read from the recording (the
//! still moments matched to the rows in order, and by time where the sheet gives one).
//!
//! Every row gets a verdict, read or not.

pub mod merge;
pub mod recording;
pub mod report;
pub mod sheet;

use std::collections::HashMap;
use std::sync::Arc;

use crate::notation;
use crate::scoring::{Fan, Hand, Payment, RuleSet, Score, WinContext, payment, score};
use crate::tile::Wind;

pub use sheet::{Header, Row, Sheet, SheetError};

/// One thing wrong with a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// A stable code: `bad_row`, `hand_twice`, `winds`, `winner_is_discarder`,
    /// `below_minimum`, `payment`, `not_zero_sum`, `draw_with_points`, `penalty`,
    /// `running_total`, `fans_sum`, `hand_unreadable`, `total_differs`, `fans_differ`;
    /// with recordings also `hand_differs`, `flowers_differ`, and the doubts `hand_not_found`
    /// and `reading_unsure`.
    pub code: &'static str,
    pub message: String,
}

impl Finding {
    /// A doubt (the recording could not settle the row), not a disagreement.
    pub fn is_doubt(&self) -> bool {
        matches!(self.code, "hand_not_found" | "reading_unsure")
    }
}

/// Where a row stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Agrees,
    /// Something is wrong.
    Disagrees,
    /// Nothing found wrong, but the recording could not confirm the hand.
    Unsure,
}

/// Our score of a hand the sheet gives.
#[derive(Debug, Clone)]
pub struct Ours {
    pub hand: String,
    pub total: u32,
    pub fans: Vec<(Fan, u8)>,
}

/// The verdict on one row.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub row: Row,
    pub findings: Vec<Finding>,
    pub ours: Option<Ours>,
    /// The winds of the hand from its number: prevalent, and each player's seat wind.
    pub prevalent: Option<Wind>,
    pub seats: Option<[Wind; 4]>,
    /// The score changes the claimed total calls for.
    pub expected_changes: Option<[i64; 4]>,
    /// The moment of the recording the row's hand was read from.
    pub seen: Option<Arc<recording::Moment>>,
}

impl Verdict {
    pub fn agrees(&self) -> bool {
        self.findings.is_empty()
    }

    pub fn state(&self) -> State {
        if self.findings.iter().any(|f| !f.is_doubt()) {
            State::Disagrees
        } else if self.findings.is_empty() {
            State::Agrees
        } else {
            State::Unsure
        }
    }
}

/// What a recording gave, for the report.
#[derive(Debug, Clone)]
pub struct RecordingInfo {
    pub name: String,
    pub frames: u64,
    pub frames_read: u64,
    pub bad_frames: u64,
    pub hands_found: usize,
    pub last_seconds: Option<f64>,
    pub duration: Option<f64>,
    pub problem: Option<String>,
    /// A folder of photos rather than a video.
    pub photos: bool,
}

/// The audit of a sheet.
#[derive(Debug, Clone)]
pub struct Audit {
    pub header: Header,
    pub verdicts: Vec<Verdict>,
    /// Problems of the sheet as a whole (hands missing, …) and of the recordings.
    pub notes: Vec<String>,
    /// The recordings read, in order (empty for a sheet alone).
    pub recordings: Vec<RecordingInfo>,
}

impl Audit {
    pub fn disagreements(&self) -> usize {
        self.count(State::Disagrees)
    }

    /// Rows nothing was found wrong with but the recording could not confirm.
    pub fn unsure(&self) -> usize {
        self.count(State::Unsure)
    }

    fn count(&self, state: State) -> usize {
        self.verdicts.iter().filter(|v| v.state() == state).count()
    }
}

const WINDS: [Wind; 4] = [Wind::East, Wind::South, Wind::West, Wind::North];

/// The prevalent wind and each player's seat wind at hand `h` (1–16): four hands a round,
/// the dealer (East) moving to the next seat every hand.
pub fn winds_of(header: &Header, h: u32) -> (Wind, [Wind; 4]) {
    let h = h.clamp(1, 16) as usize - 1;
    let (round, dealer) = (h / 4, h % 4);
    let mut seats = [Wind::East; 4];
    for (pos, &player) in header.round_seats[round].iter().enumerate() {
        seats[player] = WINDS[(pos + 4 - dealer) % 4];
    }
    (WINDS[round], seats)
}

/// Each player's score change for a win with `total` points (flowers included).
pub fn changes_for(
    rules: &RuleSet,
    winner: usize,
    discarder: Option<usize>,
    total: u32,
) -> [i64; 4] {
    let mut c = [0i64; 4];
    match payment(rules, discarder.is_none(), total) {
        Payment::SelfDrawn { each } => {
            for (k, x) in c.iter_mut().enumerate() {
                *x = if k == winner {
                    3 * i64::from(each)
                } else {
                    -i64::from(each)
                };
            }
        }
        Payment::Discard {
            discarder: d,
            others,
        } => {
            let d_idx = discarder.unwrap_or(winner);
            for (k, x) in c.iter_mut().enumerate() {
                *x = if k == winner {
                    i64::from(d) + 2 * i64::from(others)
                } else if k == d_idx {
                    -i64::from(d)
                } else {
                    -i64::from(others)
                };
            }
        }
    }
    c
}

fn finding(code: &'static str, message: String) -> Finding {
    Finding { code, message }
}

/// Scores the hand a row gives, with the circumstances of the row (flags from the
/// notation's `|` suffix when it has one).
fn score_row(
    row: &Row,
    text: &str,
    seat: Wind,
    prevalent: Wind,
    rules: &RuleSet,
) -> Result<Score, String> {
    let parsed = notation::parse(text).map_err(|e| format!("notation '{text}': {e}"))?;
    let given = parsed.context.unwrap_or_default();
    if parsed.context.is_some() && (given.seat_wind != seat || given.prevalent_wind != prevalent) {
        return Err(format!(
            "notation '{text}' says seat {} and prevalent {}, the hand number says seat {seat} and prevalent {prevalent}",
            given.seat_wind, given.prevalent_wind
        ));
    }
    score_hand(row, &parsed.hand, given, seat, prevalent, rules)
        .map_err(|e| format!("hand '{text}': {e}"))
}

/// Scores a hand with the circumstances of a row (`given` adds what the row does not say).
fn score_hand(
    row: &Row,
    hand: &Hand,
    given: WinContext,
    seat: Wind,
    prevalent: Wind,
    rules: &RuleSet,
) -> Result<Score, crate::scoring::HandError> {
    let ctx = WinContext {
        self_drawn: row.discarder.is_none(),
        seat_wind: seat,
        prevalent_wind: prevalent,
        flowers: row.flowers,
        ..given
    };
    score(hand, &ctx, rules)
}

/// Names of fans with counts, for messages.
fn fan_list(fans: &[(Fan, u8)]) -> String {
    fans.iter()
        .map(|(f, n)| {
            if *n > 1 {
                format!("{} {}×{n}", f.zh(), f.en())
            } else {
                format!("{} {}", f.zh(), f.en())
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Fans in `a` beyond those in `b` (counts compared), 花牌 aside.
fn fans_beyond(a: &[(Fan, u8)], b: &[(Fan, u8)]) -> Vec<(Fan, u8)> {
    let count = |v: &[(Fan, u8)], f: Fan| v.iter().filter(|x| x.0 == f).map(|x| x.1).sum::<u8>();
    let mut out: Vec<(Fan, u8)> = Vec::new();
    for &(f, _) in a {
        if f == Fan::FlowerTiles || out.iter().any(|x| x.0 == f) {
            continue;
        }
        let extra = count(a, f).saturating_sub(count(b, f));
        if extra > 0 {
            out.push((f, extra));
        }
    }
    out
}

/// The checks that need only the claimed figures.
fn check_win(row: &Row, rules: &RuleSet, out: &mut Vec<Finding>) -> Option<[i64; 4]> {
    let (Some(w), Some(total)) = (row.winner, row.total) else {
        return None;
    };
    if row.discarder == Some(w) {
        out.push(finding(
            "winner_is_discarder",
            "the winner is also the discarder".into(),
        ));
        return None;
    }
    let flowers = u32::from(row.flowers);
    if total < flowers || total - flowers < rules.minimum {
        out.push(finding(
            "below_minimum",
            format!(
                "{} points without flowers is below the minimum of {}: a false win (错和)",
                total.saturating_sub(flowers),
                rules.minimum
            ),
        ));
    }
    if !row.fans.is_empty() {
        let sum: u32 = row
            .fans
            .iter()
            .map(|(f, n)| u32::from(rules.points(*f)) * u32::from(*n))
            .sum::<u32>()
            + if row.fans.iter().any(|f| f.0 == Fan::FlowerTiles) {
                0
            } else {
                flowers
            };
        if sum != total {
            out.push(finding(
                "fans_sum",
                format!("the fans claimed add up to {sum} (flowers included), not {total}"),
            ));
        }
    }
    Some(changes_for(rules, w, row.discarder, total))
}

/// The checks of a row's points: payments for the claimed total, zero sum, draws, penalties,
/// running totals (carried in `running`). Returns the changes the claimed total calls for.
fn check_points(
    row: &Row,
    header: &Header,
    running: &mut [i64; 4],
    findings: &mut Vec<Finding>,
) -> Option<[i64; 4]> {
    let expected = if row.win {
        check_win(row, &header.rules, findings)
    } else {
        if row.changes.iter().any(|&c| c != 0) {
            findings.push(finding(
                "draw_with_points",
                "a draw (荒牌) moves no points".into(),
            ));
        }
        None
    };
    if let Some(exp) = expected {
        if exp != row.changes {
            findings.push(finding(
                "payment",
                format!(
                    "for {} points the changes are {} (sheet: {})",
                    row.total.unwrap_or(0),
                    show_changes(header, &exp),
                    show_changes(header, &row.changes)
                ),
            ));
        }
    }
    let sum: i64 = row.changes.iter().sum();
    if sum != 0 {
        findings.push(finding(
            "not_zero_sum",
            format!("the changes add up to {sum}, not 0"),
        ));
    }
    if let Some(k) = row.penalties.iter().position(|&p| p > 0) {
        findings.push(finding(
            "penalty",
            format!(
                "a penalty is a deduction: {} has +{}",
                header.players[k], row.penalties[k]
            ),
        ));
    }
    for (k, r) in running.iter_mut().enumerate() {
        *r += row.changes[k] + row.penalties[k];
    }
    if let Some(r) = row.running {
        if r != *running {
            findings.push(finding(
                "running_total",
                format!(
                    "running totals should be {} (sheet: {})",
                    show_changes(header, running),
                    show_changes(header, &r)
                ),
            ));
            // Go on from the sheet's figures, so one slip is reported once.
            *running = r;
        }
    }
    expected
}

/// Audits every row of a sheet; a row that writes out its hand is scored from it.
pub fn audit(sheet: &Sheet) -> Audit {
    audit_recorded(sheet, None)
}

/// Audits a sheet, with the hands of its winning rows read from `recordings` when given
/// (rows the recordings do not show fall back on the hand the sheet writes out).
pub fn audit_recorded(sheet: &Sheet, recordings: Option<&[recording::Recording]>) -> Audit {
    let header = &sheet.header;
    let mut seen: HashMap<u32, usize> = HashMap::new();
    let mut running = [0i64; 4];
    let mut verdicts: Vec<Verdict> = sheet
        .rows
        .iter()
        .map(|row| check_row(row, header, &mut seen, &mut running))
        .collect();
    let mut notes = missing_hands(&seen);
    let mut infos = Vec::new();
    match recordings {
        Some(recs) => {
            notes.extend(compare_recorded(&mut verdicts, recs, &header.rules));
            infos = recs.iter().map(recording_info).collect();
        }
        None => {
            for v in &mut verdicts {
                score_notation(v, &header.rules);
            }
        }
    }
    Audit {
        header: header.clone(),
        verdicts,
        notes,
        recordings: infos,
    }
}

/// Every check of a row that needs no hand.
fn check_row(
    row: &Row,
    header: &Header,
    seen: &mut HashMap<u32, usize>,
    running: &mut [i64; 4],
) -> Verdict {
    let mut findings: Vec<Finding> = row
        .errors
        .iter()
        .map(|e| finding("bad_row", e.clone()))
        .collect();
    let (prevalent, seats) = match row.hand {
        Some(h) => {
            let (p, s) = winds_of(header, h);
            (Some(p), Some(s))
        }
        None => (None, None),
    };
    if let Some(h) = row.hand {
        if let Some(first) = seen.insert(h, row.line) {
            findings.push(finding(
                "hand_twice",
                format!("hand {h} is also on line {first}"),
            ));
        }
    }
    if let (Some(given), Some(p)) = (row.prevalent, prevalent) {
        if given != p {
            findings.push(finding(
                "winds",
                format!(
                    "prevalent wind {given}, but hand {} is in the {p} round",
                    row.hand.unwrap_or(0)
                ),
            ));
        }
    }
    let expected = check_points(row, header, running, &mut findings);
    Verdict {
        row: row.clone(),
        findings,
        ours: None,
        prevalent,
        seats,
        expected_changes: expected,
        seen: None,
    }
}

/// Hand numbers below the highest that no row has.
fn missing_hands(seen: &HashMap<u32, usize>) -> Vec<String> {
    let Some(max) = seen.keys().max() else {
        return Vec::new();
    };
    let missing: Vec<String> = (1..*max)
        .filter(|h| !seen.contains_key(h))
        .map(|h| h.to_string())
        .collect();
    if missing.is_empty() {
        Vec::new()
    } else {
        vec![format!("hands not on the sheet: {}", missing.join(", "))]
    }
}

/// The hand of a winning row, scored with the row's circumstances.
fn score_for(v: &Verdict, text: &str, rules: &RuleSet) -> Option<Result<Score, String>> {
    match (v.row.winner, v.seats, v.prevalent, v.row.win) {
        (Some(w), Some(s), Some(p), true) => Some(score_row(&v.row, text, s[w], p, rules)),
        _ => None,
    }
}

/// A hand read from a recording, scored with a winning row's circumstances.
fn score_read(v: &Verdict, hand: &Hand, rules: &RuleSet) -> Option<Score> {
    match (v.row.winner, v.seats, v.prevalent, v.row.win) {
        (Some(w), Some(s), Some(p), true) => {
            score_hand(&v.row, hand, WinContext::default(), s[w], p, rules).ok()
        }
        _ => None,
    }
}

/// Scores the hand the sheet writes out, if it does, and compares it with the claim.
fn score_notation(v: &mut Verdict, rules: &RuleSet) {
    let Some(text) = v.row.notation.clone() else {
        return;
    };
    match score_for(v, &text, rules) {
        Some(Ok(sc)) => v.ours = Some(compare(&v.row, &sc, &mut v.findings)),
        Some(Err(e)) => v.findings.push(finding("hand_unreadable", e)),
        None => {}
    }
}

/// Below this probability for its weakest tile, a hand read from a recording is unsure.
pub use crate::scan::UNSURE_BELOW;

/// `n` `noun`s, the noun singular for one: `1 hand`, `3 hands`, `0 wins`.
pub fn count(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// `n` and `verb` agreeing with it: `1 agrees`, `3 agree`, `0 disagree`.
pub fn count_verb(n: u64, verb: &str) -> String {
    format!("{n} {verb}{}", if n == 1 { "s" } else { "" })
}

/// Matches the recordings' moments to the winning rows and compares; returns notes for the
/// top of the report.
fn compare_recorded(
    verdicts: &mut [Verdict],
    recs: &[recording::Recording],
    rules: &RuleSet,
) -> Vec<String> {
    let moments: Vec<Arc<recording::Moment>> = recs
        .iter()
        .flat_map(|r| r.moments.iter().cloned())
        .collect();
    let wins: Vec<usize> = (0..verdicts.len())
        .filter(|&i| verdicts[i].row.win)
        .collect();
    let mut scores: Vec<Vec<Option<Score>>> = wins
        .iter()
        .map(|&i| {
            moments
                .iter()
                .map(|m| score_read(&verdicts[i], &m.hand, rules))
                .collect()
        })
        .collect();
    // The hands the sheet writes out, parsed once.
    let written: Vec<Option<Hand>> = wins
        .iter()
        .map(|&i| {
            let text = verdicts[i].row.notation.as_deref()?;
            notation::parse(text).ok().map(|p| p.hand)
        })
        .collect();
    let matched = recording::match_in_order(wins.len(), moments.len(), |r, k| {
        let v = &verdicts[wins[r]];
        let sc = scores[r][k].as_ref()?;
        let m = &moments[k];
        let on_time = recording::time_fits(&v.row, m.at);
        // A photo of a folder has no time of the match (the k-th counts as k/fps seconds,
        // right only for frames cut from a video at that rate): the row's time then only
        // prefers it, where a video's moment must keep to it.
        (on_time || m.photo)
            .then(|| fit(v, written[r].as_ref(), m, sc) + if on_time { ON_TIME } else { 0.0 })
    });
    let cut: Vec<String> = recs
        .iter()
        .filter_map(|r| r.problem.as_ref().map(|p| format!("{} {p}", r.name)))
        .collect();
    for (r, m) in matched.iter().enumerate() {
        let v = &mut verdicts[wins[r]];
        match m {
            Some(k) => {
                let sc = scores[r][*k].take();
                apply_moment(v, &moments[*k], sc);
            }
            None => not_found(v, &cut, rules),
        }
    }
    recording_notes(recs, &moments, &matched, wins.len())
}

/// What a moment read from a photo of a folder gains for lying within the row's `time`.
const ON_TIME: f64 = 0.25;

/// How well a moment fits a row: a match at all, and more when the hand read scores what
/// the sheet claims or is the hand the sheet writes out.
fn fit(v: &Verdict, written: Option<&Hand>, m: &recording::Moment, sc: &Score) -> f64 {
    let total = if v.row.total == Some(sc.total) {
        2.0
    } else {
        0.0
    };
    let written = written.is_some_and(|h| same_hand(h, &m.hand));
    1.0 + total + if written { 2.0 } else { 0.0 } + 0.5 * f64::from(m.confidence)
}

/// Two hands the same, whatever the order their tiles and melds are written in.
fn same_hand(a: &Hand, b: &Hand) -> bool {
    let key = |h: &Hand| {
        let mut melds: Vec<String> = h.melds.iter().map(notation::format_meld).collect();
        melds.sort();
        let mut tiles = h.concealed.clone();
        tiles.sort();
        (melds, tiles, h.win_tile)
    };
    key(a) == key(b)
}

/// A row's hand as read from the recording: scored with the row's circumstances and compared
/// with the claim, or reported unsure.
fn apply_moment(v: &mut Verdict, m: &Arc<recording::Moment>, sc: Option<Score>) {
    v.seen = Some(Arc::clone(m));
    let Some(sc) = sc else {
        return;
    };
    let read = notation::format_hand(&m.hand);
    let place = m.place();
    if m.confidence < UNSURE_BELOW {
        v.findings.push(finding(
            "reading_unsure",
            format!(
                "read {read} in {place}, but its least sure tile is only {:.0}% sure: it scores {} (sheet: {})",
                f64::from(m.confidence) * 100.0,
                sc.total,
                v.row.total.unwrap_or(0)
            ),
        ));
        v.ours = Some(ours_of(&sc));
        return;
    }
    if let Some(text) = &v.row.notation {
        if let Ok(p) = notation::parse(text) {
            if !same_hand(&p.hand, &m.hand) {
                v.findings.push(finding(
                    "hand_differs",
                    format!("the sheet writes {text}, the recording shows {read} ({place})"),
                ));
            }
        }
    }
    if m.flowers != v.row.flowers {
        v.findings.push(finding(
            "flowers_differ",
            format!(
                "the recording shows {} flowers, the sheet {} ({place})",
                m.flowers, v.row.flowers
            ),
        ));
    }
    v.ours = Some(compare(&v.row, &sc, &mut v.findings));
}

/// A winning row no moment matched.
fn not_found(v: &mut Verdict, cut: &[String], rules: &RuleSet) {
    score_notation(v, rules);
    let mut msg = "no winning hand held still in the recording matches this row".to_string();
    if !cut.is_empty() {
        msg.push_str(&format!(" ({})", cut.join("; ")));
    }
    v.findings.push(finding("hand_not_found", msg));
}

/// `m:ss` or `h:mm:ss`.
pub fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// Notes on the recordings: what each gave, its problems, hands read that no row has, and
/// counts that disagree.
fn recording_notes(
    recs: &[recording::Recording],
    moments: &[Arc<recording::Moment>],
    matched: &[Option<usize>],
    wins: usize,
) -> Vec<String> {
    let mut notes = Vec::new();
    for r in recs {
        if let Some(p) = &r.problem {
            notes.push(format!("recording {}: {p}", r.name));
        }
    }
    for (k, m) in moments.iter().enumerate() {
        if !matched.contains(&Some(k)) {
            notes.push(format!(
                "a winning hand read in {} ({}) matches no row of the sheet",
                m.place(),
                notation::format_hand(&m.hand)
            ));
        }
    }
    if moments.len() != wins {
        notes.push(format!(
            "the recordings show {}, the sheet has {}",
            count(moments.len() as u64, "winning hand"),
            count(wins as u64, "win")
        ));
    }
    notes
}

fn recording_info(r: &recording::Recording) -> RecordingInfo {
    RecordingInfo {
        name: r.name.clone(),
        frames: r.frames,
        frames_read: r.frames_read,
        bad_frames: r.bad_frames,
        hands_found: r.moments.len(),
        last_seconds: r.last_seconds,
        duration: r.duration,
        problem: r.problem.clone(),
        photos: r.photos,
    }
}

fn ours_of(sc: &Score) -> Ours {
    Ours {
        hand: notation::format_hand(&sc.hand) + &notation::format_context(&sc.context),
        total: sc.total,
        fans: sc.fans.iter().map(|e| (e.fan, e.count)).collect(),
    }
}

/// Our score against the claim: total, and the fans when the sheet lists them.
fn compare(row: &Row, sc: &Score, findings: &mut Vec<Finding>) -> Ours {
    let fans: Vec<(Fan, u8)> = sc.fans.iter().map(|e| (e.fan, e.count)).collect();
    let Some(claimed) = row.total else {
        // A total the sheet does not give (or gives unreadably) is reported as a bad row.
        return ours_of(sc);
    };
    if sc.total != claimed {
        let mut msg = format!(
            "the hand scores {} points, the sheet claims {claimed}",
            sc.total
        );
        if !row.fans.is_empty() {
            let missed = fans_beyond(&fans, &row.fans);
            let wrong = fans_beyond(&row.fans, &fans);
            if !missed.is_empty() {
                msg.push_str(&format!("; missed: {}", fan_list(&missed)));
            }
            if !wrong.is_empty() {
                msg.push_str(&format!("; claimed but not there: {}", fan_list(&wrong)));
            }
        }
        findings.push(finding("total_differs", msg));
    } else if !row.fans.is_empty() {
        let missed = fans_beyond(&fans, &row.fans);
        let wrong = fans_beyond(&row.fans, &fans);
        if !missed.is_empty() || !wrong.is_empty() {
            findings.push(finding(
                "fans_differ",
                format!(
                    "same total, other fans: ours add {}; the sheet's add {}",
                    fan_list(&missed),
                    fan_list(&wrong)
                ),
            ));
        }
    }
    ours_of(sc)
}

/// `A +38, B -8, …`
pub fn show_changes(header: &Header, c: &[i64; 4]) -> String {
    header
        .players
        .iter()
        .zip(c)
        .map(|(p, x)| format!("{p} {x:+}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;

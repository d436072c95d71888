//! `audit`: checks a match's score sheet hand by hand: the arithmetic of the payments, zero
//! sums, penalties, running totals, the minimum, winds against the hand number, and, where
//! the sheet gives the hand, its fans and total against our score.
//!
//! Every row gets a verdict, read or not. Reading hands from recordings is not built yet.

pub mod report;
pub mod sheet;

use std::collections::HashMap;

use crate::notation;
use crate::scoring::{Fan, Payment, RuleSet, Score, WinContext, payment, score};
use crate::tile::Wind;

pub use sheet::{Header, Row, Sheet, SheetError};

/// One thing wrong with a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// A stable code: `bad_row`, `hand_twice`, `winds`, `winner_is_discarder`,
    /// `below_minimum`, `payment`, `not_zero_sum`, `draw_with_points`, `penalty`,
    /// `running_total`, `fans_sum`, `hand_unreadable`, `total_differs`, `fans_differ`.
    pub code: &'static str,
    pub message: String,
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
}

impl Verdict {
    pub fn agrees(&self) -> bool {
        self.findings.is_empty()
    }
}

/// The audit of a sheet.
#[derive(Debug, Clone)]
pub struct Audit {
    pub header: Header,
    pub verdicts: Vec<Verdict>,
    /// Problems of the sheet as a whole (hands missing, …).
    pub notes: Vec<String>,
}

impl Audit {
    pub fn disagreements(&self) -> usize {
        self.verdicts.iter().filter(|v| !v.agrees()).count()
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
    let ctx = WinContext {
        self_drawn: row.discarder.is_none(),
        seat_wind: seat,
        prevalent_wind: prevalent,
        flowers: row.flowers,
        ..given
    };
    score(&parsed.hand, &ctx, rules).map_err(|e| format!("hand '{text}': {e}"))
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

/// Audits every row of a sheet.
pub fn audit(sheet: &Sheet) -> Audit {
    let header = &sheet.header;
    let rules = header.rules;
    let mut seen: HashMap<u32, usize> = HashMap::new();
    let mut running = [0i64; 4];
    let mut verdicts = Vec::new();
    for row in &sheet.rows {
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
        let expected = check_points(row, header, &mut running, &mut findings);
        let ours = match (&row.notation, row.winner, seats, prevalent, row.win) {
            (Some(text), Some(w), Some(s), Some(p), true) => {
                match score_row(row, text, s[w], p, &rules) {
                    Ok(sc) => Some(compare(row, &sc, &mut findings)),
                    Err(e) => {
                        findings.push(finding("hand_unreadable", e));
                        None
                    }
                }
            }
            _ => None,
        };
        verdicts.push(Verdict {
            row: row.clone(),
            findings,
            ours,
            prevalent,
            seats,
            expected_changes: expected,
        });
    }
    let mut notes = Vec::new();
    if let Some(max) = seen.keys().max() {
        let missing: Vec<String> = (1..*max)
            .filter(|h| !seen.contains_key(h))
            .map(|h| h.to_string())
            .collect();
        if !missing.is_empty() {
            notes.push(format!("hands not on the sheet: {}", missing.join(", ")));
        }
    }
    Audit {
        header: header.clone(),
        verdicts,
        notes,
    }
}

/// Our score against the claim: total, and the fans when the sheet lists them.
fn compare(row: &Row, sc: &Score, findings: &mut Vec<Finding>) -> Ours {
    let fans: Vec<(Fan, u8)> = sc.fans.iter().map(|e| (e.fan, e.count)).collect();
    let claimed = row.total.unwrap_or(0);
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
    Ours {
        hand: notation::format_hand(&sc.hand) + &notation::format_context(&sc.context),
        total: sc.total,
        fans,
    }
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

//! Score sheets (比赛成绩记录表) as CSV: the format is in the README and in
//! `datasets/score-sheet-template.csv`.
//!
//! Lines starting with `#` before the header give the players (`# players: A, B, C, D`, in
//! their seats East, South, West, North at hand 1), the rule set (`# rules: mil`) and seat
//! changes (`# seats round 2: B, A, D, C`). Then a header row names the columns, in any order:
//! `hand, prevalent, result, winner, from, total, flowers, fans, notation, penalties, time`,
//! one column per player (the score change of the hand, penalties apart) and optionally
//! `<player> total` (the running total after the hand, penalties included).

use std::collections::HashMap;

use crate::scoring::{Fan, Preset, RuleSet};
use crate::tile::Wind;

/// The sheet's header facts.
#[derive(Debug, Clone)]
pub struct Header {
    pub players: Vec<String>,
    pub rules: RuleSet,
    /// Seats (East, South, West, North) at the first hand of round 1–4, as player indices.
    pub round_seats: [[usize; 4]; 4],
}

/// One hand as the sheet records it.
#[derive(Debug, Clone, Default)]
pub struct Row {
    /// The sheet's line number (1-based, counting `#` lines and the header).
    pub line: usize,
    pub hand: Option<u32>,
    pub prevalent: Option<Wind>,
    pub win: bool,
    /// Player indices.
    pub winner: Option<usize>,
    /// The discarder; None when self-drawn (or a draw).
    pub discarder: Option<usize>,
    pub total: Option<u32>,
    pub flowers: u8,
    /// Fans claimed, with counts.
    pub fans: Vec<(Fan, u8)>,
    pub notation: Option<String>,
    /// Each player's score change, penalties apart.
    pub changes: [i64; 4],
    pub penalties: [i64; 4],
    /// Running totals after the hand, where the sheet gives them.
    pub running: Option<[i64; 4]>,
    /// Seconds into the recording.
    pub time: Option<f64>,
    /// Why fields could not be read (the row is still reported).
    pub errors: Vec<String>,
}

/// A sheet: its header and every row, readable or not.
#[derive(Debug, Clone)]
pub struct Sheet {
    pub header: Header,
    pub rows: Vec<Row>,
}

/// A sheet that cannot be read at all.
#[derive(Debug, Clone, PartialEq)]
pub struct SheetError(pub String);

impl std::fmt::Display for SheetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SheetError {}

fn preset(name: &str) -> Option<Preset> {
    Preset::ALL.iter().copied().find(|p| p.name() == name)
}

/// Player names from a comma-separated list.
fn names(list: &str) -> Vec<String> {
    list.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Reads the `#` lines; returns the header and the rest of the text with its first line
/// number.
fn read_header(text: &str) -> Result<(Header, &str, usize), SheetError> {
    let mut players = Vec::new();
    let mut rules = RuleSet::default();
    let mut changes: Vec<(usize, Vec<String>)> = Vec::new();
    let mut rest = text;
    let mut line_no = 1;
    while let Some(line) = rest.lines().next() {
        let t = line.trim_start_matches('\u{feff}').trim();
        if !(t.starts_with('#') || t.is_empty()) {
            break;
        }
        rest = rest[line.len()..]
            .trim_start_matches(['\r'])
            .strip_prefix('\n')
            .unwrap_or("");
        line_no += 1;
        let body = t.trim_start_matches('#').trim();
        let Some((key, value)) = body.split_once(':') else {
            continue;
        };
        let key = key.trim().to_lowercase();
        if key == "players" {
            players = names(value);
        } else if key == "rules" {
            let v = value.trim();
            rules = RuleSet::preset(preset(v).ok_or_else(|| {
                SheetError(format!(
                    "line {}: rules '{v}': use mil, wmo2006, china1998 or elementary",
                    line_no - 1
                ))
            })?);
        } else if let Some(r) = key.strip_prefix("seats round ") {
            let round: usize = r.trim().parse().unwrap_or(0);
            if !(2..=4).contains(&round) {
                return Err(SheetError(format!(
                    "line {}: '{key}': rounds 2 to 4 can have seat changes",
                    line_no - 1
                )));
            }
            changes.push((round, names(value)));
        }
    }
    check_players(&players)?;
    let round_seats = seats_by_round(&players, changes)?;
    Ok((
        Header {
            players,
            rules,
            round_seats,
        },
        rest,
        line_no,
    ))
}

/// Four different names, or the error that says how to write them.
fn check_players(players: &[String]) -> Result<(), SheetError> {
    let twice = players
        .iter()
        .any(|p| players.iter().filter(|q| *q == p).count() > 1);
    if players.len() != 4 || twice {
        return Err(SheetError(
            "the sheet needs a line `# players: A, B, C, D` before the header: four different names, in their seats East, South, West, North at hand 1"
                .to_string(),
        ));
    }
    Ok(())
}

/// Which player sits in each seat (East, South, West, North) in each round, from the
/// `# seats round N:` lines: a change holds from its round on.
fn seats_by_round(
    players: &[String],
    changes: Vec<(usize, Vec<String>)>,
) -> Result<[[usize; 4]; 4], SheetError> {
    let mut round_seats = [[0, 1, 2, 3]; 4];
    for (round, seat_names) in changes {
        let mut seats = [0; 4];
        for (k, name) in seat_names.iter().enumerate().take(4) {
            seats[k] = players.iter().position(|p| p == name).ok_or_else(|| {
                SheetError(format!(
                    "seats round {round}: '{name}' is not one of the players"
                ))
            })?;
        }
        if seat_names.len() != 4 || (0..4).any(|p| !seats.contains(&p)) {
            return Err(SheetError(format!(
                "seats round {round}: give the four players once each, East South West North"
            )));
        }
        for later in round_seats.iter_mut().skip(round - 1) {
            *later = seats;
        }
    }
    Ok(round_seats)
}

/// The columns the sheet has.
struct Columns {
    at: HashMap<String, usize>,
    player: [Option<usize>; 4],
    running: [Option<usize>; 4],
}

impl Columns {
    fn of(header: &csv::StringRecord, players: &[String]) -> Result<Columns, SheetError> {
        let mut at = HashMap::new();
        for (i, h) in header.iter().enumerate() {
            at.insert(h.trim().to_string(), i);
        }
        let mut player = [None; 4];
        let mut running = [None; 4];
        for (k, p) in players.iter().enumerate() {
            player[k] = at.get(p).copied();
            running[k] = at.get(&format!("{p} total")).copied();
        }
        for need in ["hand", "result"] {
            if !at.contains_key(need) {
                return Err(SheetError(format!(
                    "the header row has no '{need}' column (see the README's score-sheet format)"
                )));
            }
        }
        if let Some(k) = player.iter().position(Option::is_none) {
            return Err(SheetError(format!(
                "the header row has no column for player '{}' (their score change each hand)",
                players[k]
            )));
        }
        Ok(Columns {
            at,
            player,
            running,
        })
    }

    fn get<'r>(&self, rec: &'r csv::StringRecord, name: &str) -> &'r str {
        self.at
            .get(name)
            .and_then(|&i| rec.get(i))
            .map_or("", str::trim)
    }
}

/// A fan by its Chinese or English name (case and spaces ignored in English).
pub fn fan_named(name: &str) -> Option<Fan> {
    let flat = |s: &str| s.to_lowercase().replace([' ', '-', '\''], "");
    let n = flat(name);
    Fan::ALL
        .iter()
        .copied()
        .find(|f| f.zh() == name.trim() || flat(f.en()) == n)
}

/// `name`, `name×2`, `name x2`, `name*2`.
fn fan_with_count(s: &str) -> Result<(Fan, u8), String> {
    let s = s.trim();
    let (name, count) = match s.rsplit_once(['×', '*']).or_else(|| s.rsplit_once(" x")) {
        Some((n, c)) if c.trim().parse::<u8>().is_ok() => (n, c.trim().parse::<u8>().unwrap_or(1)),
        _ => (s, 1),
    };
    fan_named(name)
        .map(|f| (f, count))
        .ok_or_else(|| format!("fans: '{}' is not a fan name", name.trim()))
}

/// Seconds from `90`, `1:30`, `1:02:03` or `75.5`.
fn seconds(s: &str) -> Option<f64> {
    let mut t = 0.0;
    for part in s.split(':') {
        t = t * 60.0 + part.trim().parse::<f64>().ok().filter(|x| *x >= 0.0)?;
    }
    Some(t)
}

fn wind(s: &str) -> Option<Wind> {
    Wind::parse(s.trim())
}

/// Reads one record into a row; fields that cannot be read are noted in `errors`.
fn read_row(rec: &csv::StringRecord, cols: &Columns, players: &[String], line: usize) -> Row {
    let mut row = Row {
        line,
        ..Row::default()
    };
    read_outcome(&mut row, rec, cols, players);
    read_hand_fields(&mut row, rec, cols);
    read_changes(&mut row, rec, cols, players);
    read_penalties(&mut row, rec, cols, players);
    let time = cols.get(rec, "time");
    if !time.is_empty() {
        row.time = seconds(time);
        if row.time.is_none() {
            row.errors.push(format!(
                "time: '{time}' is not a time (seconds, m:ss or h:mm:ss)"
            ));
        }
    }
    row
}

/// The hand's number, the prevalent wind, and whether and how it was won: the winner, who
/// gave the tile, the total.
fn read_outcome(row: &mut Row, rec: &csv::StringRecord, cols: &Columns, players: &[String]) {
    let mut err = |e: String| row.errors.push(e);
    let player = |s: &str| players.iter().position(|p| p == s);
    let hand = cols.get(rec, "hand");
    match hand.parse::<u32>() {
        Ok(h) if (1..=16).contains(&h) => row.hand = Some(h),
        _ => err(format!("hand: '{hand}' is not a hand number 1 to 16")),
    }
    let prevalent = cols.get(rec, "prevalent");
    if !prevalent.is_empty() {
        row.prevalent = wind(prevalent);
        if row.prevalent.is_none() {
            err(format!("prevalent: '{prevalent}' is not a wind (E S W N)"));
        }
    }
    match cols.get(rec, "result").to_lowercase().as_str() {
        "win" | "和" | "和牌" => row.win = true,
        "draw" | "荒" | "荒牌" => {}
        other => err(format!("result: '{other}' is neither win nor draw")),
    }
    if !row.win {
        return;
    }
    let w = cols.get(rec, "winner");
    row.winner = player(w);
    if row.winner.is_none() {
        err(format!("winner: '{w}' is not one of the players"));
    }
    let from = cols.get(rec, "from");
    if !matches!(from.to_lowercase().as_str(), "self" | "自摸") {
        row.discarder = player(from);
        if row.discarder.is_none() {
            err(format!("from: '{from}' is neither a player nor 'self'"));
        }
    }
    let total = cols.get(rec, "total");
    row.total = total.parse().ok();
    if row.total.is_none() {
        err(format!("total: '{total}' is not a number of points"));
    }
}

/// The flowers, the fans claimed and the hand's notation.
fn read_hand_fields(row: &mut Row, rec: &csv::StringRecord, cols: &Columns) {
    let mut err = |e: String| row.errors.push(e);
    let flowers = cols.get(rec, "flowers");
    if !flowers.is_empty() {
        match flowers.parse::<u8>() {
            Ok(n) if n <= 8 => row.flowers = n,
            _ => err(format!("flowers: '{flowers}' is not 0 to 8")),
        }
    }
    for part in cols
        .get(rec, "fans")
        .split(';')
        .filter(|p| !p.trim().is_empty())
    {
        match fan_with_count(part) {
            Ok(f) => row.fans.push(f),
            Err(e) => err(e),
        }
    }
    let notation = cols.get(rec, "notation");
    row.notation = (!notation.is_empty()).then(|| notation.to_string());
}

/// Each player's score change, and the running totals when the sheet has them all.
fn read_changes(row: &mut Row, rec: &csv::StringRecord, cols: &Columns, players: &[String]) {
    let mut err = |e: String| row.errors.push(e);
    for (k, (col, name)) in cols.player.iter().zip(players).enumerate() {
        let v = col.and_then(|i| rec.get(i)).map_or("", str::trim);
        match v.parse::<i64>() {
            Ok(x) => row.changes[k] = x,
            Err(_) if v.is_empty() && !row.win => {}
            Err(_) => err(format!("{name}: '{v}' is not a score change")),
        }
    }
    let mut running = [0i64; 4];
    let mut has_running = true;
    for ((col, name), slot) in cols.running.iter().zip(players).zip(running.iter_mut()) {
        let v = col.and_then(|i| rec.get(i)).map_or("", str::trim);
        match v.parse::<i64>() {
            Ok(x) => *slot = x,
            Err(_) if v.is_empty() => has_running = false,
            Err(_) => err(format!("{name} total: '{v}' is not a number")),
        }
    }
    row.running = has_running.then_some(running);
}

/// Penalties, `player:points` separated by `;`.
fn read_penalties(row: &mut Row, rec: &csv::StringRecord, cols: &Columns, players: &[String]) {
    let player = |s: &str| players.iter().position(|p| p == s);
    for part in cols
        .get(rec, "penalties")
        .split(';')
        .filter(|p| !p.trim().is_empty())
    {
        match part
            .split_once(':')
            .map(|(p, v)| (player(p.trim()), v.trim().parse::<i64>()))
        {
            Some((Some(k), Ok(v))) => row.penalties[k] += v,
            _ => row.errors.push(format!(
                "penalties: '{}' is not `player:points`",
                part.trim()
            )),
        }
    }
}

/// Reads a sheet. Rows with bad fields are kept, with their errors; only a sheet without
/// players or a header is refused.
pub fn read(text: &str) -> Result<Sheet, SheetError> {
    let (header, rest, first_line) = read_header(text)?;
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(rest.as_bytes());
    let head = reader
        .headers()
        .map_err(|e| {
            SheetError(format!(
                "line {first_line}: cannot read the header row: {e}"
            ))
        })?
        .clone();
    let cols = Columns::of(&head, &header.players)?;
    let mut rows = Vec::new();
    for rec in reader.records() {
        match rec {
            Ok(rec) => {
                let line = first_line + rec.position().map_or(0, |p| p.line() as usize) - 1;
                if rec.iter().all(|f| f.trim().is_empty()) {
                    continue;
                }
                rows.push(read_row(&rec, &cols, &header.players, line));
            }
            Err(e) => {
                let line = first_line + e.position().map_or(0, |p| p.line() as usize) - 1;
                rows.push(Row {
                    line,
                    errors: vec![format!("cannot read this row: {e}")],
                    ..Row::default()
                });
            }
        }
    }
    Ok(Sheet { header, rows })
}

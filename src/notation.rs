//! The community bracket notation of MCR hands, as used by the most popular MCR helper app:
//!
//! ```text
//! [123m,1][EEE,2][SSSS,5]45mFF6m|ES1000|2
//! ```
//!
//! - Declared melds in brackets. After the comma, for a chow: which of its tiles was claimed
//!   (1–3); for a pung or kong: who gave it (1 left, 2 across, 3 right); 5–7: an added kong
//!   (加杠) given by left, across, right. Four equal tiles without a digit: a concealed kong.
//! - Then the standing tiles in compact form (`123m45p99sEE`); the last tile is the winning tile.
//! - Optionally `|` prevalent wind, seat wind and four 0/1 flags: self-drawn, fourth tile
//!   (和绝张), last tile of the wall, kong (杠上开花 / 抢杠和); and `|N` flowers.
//!
//! Unicode tiles (🀇…) are accepted wherever a standing tile is.

use std::fmt;

use crate::scoring::{Hand, Meld, MeldKind, Seat, WinContext};
use crate::tile::{Suit, Tile, Wind, honor_from_letter};

/// A notation error, with the 1-based character position where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotationError {
    pub position: usize,
    pub message: String,
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Control characters (a CR, an ESC) are shown escaped, never sent to the terminal.
        write!(f, "position {}: ", self.position)?;
        for c in self.message.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for NotationError {}

fn err<T>(position: usize, message: impl Into<String>) -> Result<T, NotationError> {
    Err(NotationError {
        position,
        message: message.into(),
    })
}

/// A parsed notation string: the hand and, when the `|` suffix was given, the circumstances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub hand: Hand,
    pub context: Option<WinContext>,
}

/// Parses a compact tile run like `123m45pEE` into tiles, reporting positions from `offset`.
fn parse_run(chars: &[(usize, char)]) -> Result<Vec<(usize, Tile)>, NotationError> {
    let mut out = Vec::new();
    let mut digits: Vec<(usize, char)> = Vec::new();
    for &(pos, c) in chars {
        match c {
            '0'..='9' => digits.push((pos, c)),
            'm' | 'p' | 's' | 'z' => {
                if digits.is_empty() {
                    return err(pos, format!("'{c}' has no numbers before it"));
                }
                for &(dpos, d) in &digits {
                    let text = format!("{d}{c}");
                    match Tile::parse(&text) {
                        Ok(t) => out.push((dpos, t)),
                        Err(_) => return err(dpos, format!("'{text}' is not a tile")),
                    }
                }
                digits.clear();
            }
            ' ' | '\t' => {}
            _ => {
                if let Some(t) = honor_from_letter(c).or_else(|| tile_from_unicode(c)) {
                    if let Some(&(dpos, _)) = digits.first() {
                        return err(dpos, "numbers without a suit letter (m, p or s) after them");
                    }
                    out.push((pos, t));
                } else {
                    return err(
                        pos,
                        format!("'{c}' is not a tile, suit letter or honor (E S W N C F P)"),
                    );
                }
            }
        }
    }
    if let Some(&(dpos, _)) = digits.first() {
        return err(dpos, "numbers without a suit letter (m, p or s) after them");
    }
    Ok(out)
}

/// The tile drawn by a Unicode mahjong character, if any.
pub fn tile_from_unicode(c: char) -> Option<Tile> {
    Tile::all().find(|t| t.unicode() == c)
}

fn parse_meld(body: &[(usize, char)], open: usize) -> Result<Meld, NotationError> {
    let comma = body.iter().position(|&(_, c)| c == ',');
    let (tiles_part, digit_part) = match comma {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let tiles = parse_run(tiles_part)?;
    let digit = meld_digit(digit_part, open)?;
    let ts: Vec<Tile> = tiles.iter().map(|&(_, t)| t).collect();
    let at = digit_part.and_then(|d| d.first()).map_or(open, |&(p, _)| p);
    match ts.as_slice() {
        [a, b, c] if a == b && b == c => Ok(Meld::pung(*a, pung_from(digit, at)?)),
        [a, b, c] => chow(*a, *b, *c, digit, open, at),
        [a, b, c, d] if a == b && b == c && c == d => kong(*a, digit, at),
        _ => err(
            open,
            format!("a meld has 3 or 4 tiles, this one has {}", ts.len()),
        ),
    }
}

/// The digit after a meld's comma (who offered it, or which tile was claimed), if any.
fn meld_digit(part: Option<&[(usize, char)]>, open: usize) -> Result<Option<u8>, NotationError> {
    let Some(d) = part else {
        return Ok(None);
    };
    let d: Vec<_> = d.iter().filter(|(_, c)| !c.is_whitespace()).collect();
    match d.as_slice() {
        [(_, c @ '0'..='9')] => Ok(Some((c.to_digit(10).unwrap_or(0)) as u8)),
        [(p, _), ..] => err(
            *p,
            "after the comma: one digit (1-3, or 5-7 for an added kong)",
        ),
        [] => err(open, "a comma with no digit after it"),
    }
}

/// Who offered a pung: 1 (or no digit) left, 2 across, 3 right.
fn pung_from(digit: Option<u8>, at: usize) -> Result<Seat, NotationError> {
    match digit {
        None | Some(1) => Ok(Seat::Left),
        Some(2) => Ok(Seat::Across),
        Some(3) => Ok(Seat::Right),
        Some(d) => err(
            at,
            format!("pung offer digit {d}: use 1 (left), 2 (across) or 3 (right)"),
        ),
    }
}

/// Three tiles in a run (in any order) with the claimed one named by `digit` (1-3).
fn chow(
    a: Tile,
    b: Tile,
    c: Tile,
    digit: Option<u8>,
    open: usize,
    at: usize,
) -> Result<Meld, NotationError> {
    let mut s = [a, b, c];
    s.sort();
    let run = s[0].is_numbered() && s[0].next() == Some(s[1]) && s[1].next() == Some(s[2]);
    if !run {
        return err(open, format!("[{a}{b}{c}] is neither a chow nor a pung"));
    }
    let claimed = match digit {
        None => 0,
        Some(d @ 1..=3) => d - 1,
        Some(d) => {
            return err(
                at,
                format!("chow claim digit {d}: use 1, 2 or 3 (which tile was claimed)"),
            );
        }
    };
    Ok(Meld::chow(s[0], claimed))
}

/// Four like tiles: concealed with no digit, else offered (1-3) or added to a pung (5-7).
fn kong(t: Tile, digit: Option<u8>, at: usize) -> Result<Meld, NotationError> {
    match digit {
        None => Ok(Meld::concealed_kong(t)),
        Some(n @ (1..=3 | 5..=7)) => {
            let from = match n {
                1 | 5 => Seat::Left,
                2 | 6 => Seat::Across,
                _ => Seat::Right,
            };
            let mut m = Meld::kong(t, from);
            m.added = n >= 5;
            Ok(m)
        }
        Some(n) => err(
            at,
            format!("kong offer digit {n}: use 1-3, or 5-7 for an added kong"),
        ),
    }
}

/// Parses a hand in bracket notation.
pub fn parse(input: &str) -> Result<Parsed, NotationError> {
    let chars: Vec<(usize, char)> = input.chars().enumerate().map(|(i, c)| (i + 1, c)).collect();
    let bar = chars.iter().position(|&(_, c)| c == '|');
    let (body, suffix) = match bar {
        Some(i) => (&chars[..i], Some(&chars[i + 1..])),
        None => (&chars[..], None),
    };
    let mut melds = Vec::new();
    let mut i = 0;
    let mut standing_chars: Vec<(usize, char)> = Vec::new();
    // Whether a standing tile has been written (kept as we go: checking the standing
    // characters again at each '[' made long inputs quadratic).
    let mut standing_started = false;
    while i < body.len() {
        let (pos, c) = body[i];
        if c == '[' {
            if standing_started {
                return err(pos, "melds in brackets must come before the standing tiles");
            }
            let close = body[i..].iter().position(|&(_, c)| c == ']');
            let Some(close) = close else {
                return err(pos, "'[' is never closed");
            };
            melds.push(parse_meld(&body[i + 1..i + close], pos)?);
            i += close + 1;
        } else if c == ']' {
            return err(pos, "']' without '['");
        } else {
            standing_started |= !c.is_whitespace();
            standing_chars.push((pos, c));
            i += 1;
        }
    }
    let mut standing = parse_run(&standing_chars)?;
    let Some((_, win_tile)) = standing.pop() else {
        return err(
            input.chars().count().max(1),
            "no standing tiles: the last tile written is the winning tile",
        );
    };
    let hand = Hand {
        melds,
        concealed: standing.into_iter().map(|(_, t)| t).collect(),
        win_tile,
    };
    let context = match suffix {
        None => None,
        Some(s) => Some(parse_suffix(s, bar.map_or(0, |i| chars[i].0))?),
    };
    Ok(Parsed { hand, context })
}

fn parse_suffix(s: &[(usize, char)], bar: usize) -> Result<WinContext, NotationError> {
    let mut ctx = WinContext::default();
    let parts: Vec<&[(usize, char)]> = s.split(|&(_, c)| c == '|').collect();
    // The position of the '|' that opens part k (the one before the suffix opens part 0).
    let bars: Vec<usize> = s
        .iter()
        .filter(|&&(_, c)| c == '|')
        .map(|&(p, _)| p)
        .collect();
    let start = bar;
    let bar_before = |k: usize| {
        if k == 0 {
            start
        } else {
            bars.get(k - 1).copied().unwrap_or(start)
        }
    };
    if parts.len() > 2 {
        return err(
            bar_before(2),
            "a third '|' section: write winds and flags, then '|' and the flower count",
        );
    }
    if let Some(k) = parts.iter().position(|p| p.is_empty()) {
        return err(
            bar_before(k),
            "nothing after '|': give the winds and flags (e.g. |ES1000), and |N for flowers",
        );
    }
    let first = parts.first().copied().unwrap_or(&[]);
    let wind = |k: usize| -> Result<Wind, NotationError> {
        match first.get(k) {
            Some(&(p, c)) => Wind::parse(&c.to_string())
                .map_or_else(|| err(p, format!("'{c}' is not a wind (E S W N)")), Ok),
            None => err(
                first.last().map_or(0, |x| x.0),
                "after '|': prevalent wind, seat wind, then four 0/1 flags",
            ),
        }
    };
    if !first.is_empty() {
        ctx.prevalent_wind = wind(0)?;
        ctx.seat_wind = wind(1)?;
        let mut flags = [false; 4];
        for (k, flag) in flags.iter_mut().enumerate() {
            match first.get(2 + k) {
                Some((_, '1')) => *flag = true,
                Some((_, '0')) | None => {}
                Some(&(p, c)) => return err(p, format!("flag '{c}': use 0 or 1")),
            }
        }
        if let Some(&(p, _)) = first.get(6) {
            return err(
                p,
                "too many flags: self-drawn, fourth tile, last tile, kong",
            );
        }
        [ctx.self_drawn, ctx.fourth_tile, ctx.last_tile, ctx.kong] = flags;
    }
    if let Some(fl) = parts.get(1) {
        let text: String = fl.iter().map(|&(_, c)| c).collect();
        if !text.is_empty() {
            match text.parse::<u8>() {
                Ok(n) if n <= 8 => ctx.flowers = n,
                _ => {
                    return err(
                        fl.first().map_or(0, |x| x.0),
                        format!("'{text}' is not a flower count (0-8)"),
                    );
                }
            }
        }
    }
    Ok(ctx)
}

/// Writes tiles compactly, grouped m, p, s, then honors (`123m45p EE` → `123m45pEE`).
pub fn format_tiles(tiles: &[Tile]) -> String {
    let mut sorted = tiles.to_vec();
    sorted.sort_by_key(|t| display_key(*t));
    let mut out = String::new();
    let mut pending: Option<Suit> = None;
    for t in sorted {
        if t.is_honor() {
            if let Some(s) = pending.take() {
                out.push(s.letter());
            }
            out.push_str(&t.to_string());
        } else {
            if pending.is_some_and(|s| s != t.suit()) {
                out.push(pending.map_or('?', |s| s.letter()));
            }
            pending = Some(t.suit());
            out.push(char::from(b'0' + t.rank()));
        }
    }
    if let Some(s) = pending {
        out.push(s.letter());
    }
    out
}

/// Display order: characters, dots, bamboo, honors.
pub fn display_key(t: Tile) -> (u8, u8) {
    let s = match t.suit() {
        Suit::Characters => 0,
        Suit::Dots => 1,
        Suit::Bamboo => 2,
        Suit::Honors => 3,
    };
    (s, t.rank())
}

/// Writes one meld in bracket notation.
pub fn format_meld(m: &Meld) -> String {
    let tiles: Vec<Tile> = m.tiles().collect();
    let body = format_tiles(&tiles);
    match m.kind {
        MeldKind::Chow => format!("[{body},{}]", m.claimed + 1),
        MeldKind::Pung => format!("[{body},{}]", seat_digit(m.from)),
        MeldKind::Kong => format!(
            "[{body},{}]",
            seat_digit(m.from) + if m.added { 4 } else { 0 }
        ),
        MeldKind::ConcealedKong => format!("[{body}]"),
    }
}

fn seat_digit(s: Seat) -> u8 {
    match s {
        Seat::Left => 1,
        Seat::Across => 2,
        Seat::Right => 3,
    }
}

/// Writes a hand in bracket notation (melds, sorted standing tiles, winning tile last).
pub fn format_hand(hand: &Hand) -> String {
    let mut out: String = hand.melds.iter().map(format_meld).collect();
    out.push_str(&format_tiles(&hand.concealed));
    out.push_str(&hand.win_tile.to_string());
    out
}

/// Writes the `|` suffix for the circumstances.
pub fn format_context(ctx: &WinContext) -> String {
    let b = |x: bool| if x { '1' } else { '0' };
    let mut s = format!(
        "|{}{}{}{}{}{}",
        ctx.prevalent_wind,
        ctx.seat_wind,
        b(ctx.self_drawn),
        b(ctx.fourth_tile),
        b(ctx.last_tile),
        b(ctx.kong)
    );
    if ctx.flowers > 0 {
        s.push_str(&format!("|{}", ctx.flowers));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Tile {
        Tile::parse(s).unwrap_or(Tile::P)
    }

    #[test]
    fn parses_the_issue_examples() {
        let p = parse("[123m,1][EEE,2][SSSS,5]45mFF6m").unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(p.hand.melds.len(), 3);
        assert_eq!(p.hand.melds[0], Meld::chow(t("1m"), 0));
        assert_eq!(p.hand.melds[1], Meld::pung(Tile::E, Seat::Across));
        assert!(p.hand.melds[2].added && p.hand.melds[2].kind == MeldKind::Kong);
        assert_eq!(p.hand.win_tile, t("6m"));
        assert_eq!(p.hand.concealed, vec![t("4m"), t("5m"), Tile::F, Tile::F]);

        let p = parse("[CCCC]123p789s456m11m").unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(p.hand.melds, vec![Meld::concealed_kong(Tile::C)]);
        assert_eq!(p.hand.win_tile, t("1m"));
        assert_eq!(p.hand.concealed.len(), 10);
    }

    #[test]
    fn errors_name_the_position() {
        let e = parse("123m0m").err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("position 5: '0m' is not a tile"));
        assert!(parse("[12m,1]3m").is_err());
        assert!(parse("[123m,4]").is_err());
        assert!(parse("[123m").is_err());
        assert!(parse("").is_err());
        assert!(parse("12").is_err());
        assert!(parse("x").is_err());
    }

    #[test]
    fn bad_suffix_sections_are_refused() {
        let third = parse("[123m,1]456p789s23s99m1s|ES1000|2|3").unwrap_err();
        assert_eq!(third.position, 34, "{third}");
        assert!(parse("[123m,1]456p789s23s99m1s|||||").is_err());
        assert_eq!(parse("123m456p789s23s99m1s|").unwrap_err().position, 21);
        assert!(parse("123m456p789s23s99m1s|ES1000|2").is_ok());
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        let e = parse("12m\u{1b}[31m\r").unwrap_err().to_string();
        assert!(!e.chars().any(char::is_control), "{e:?}");
    }

    #[test]
    fn long_inputs_parse_in_linear_time() {
        // 1 MB of melds: each '[' used to re-check every standing character before it.
        let s = "[123m] ".repeat(150_000) + "1m";
        let t = std::time::Instant::now();
        assert!(parse(&s).is_ok() || parse(&s).is_err());
        assert!(t.elapsed().as_secs_f64() < 5.0, "{:?}", t.elapsed());
    }

    #[test]
    fn suffix_sets_the_circumstances() {
        let p = parse("[EEE,2][SSSS,1]WWWNN55pN|ES1010|3").unwrap_or_else(|e| unreachable!("{e}"));
        let c = p.context.unwrap_or_default();
        assert_eq!((c.prevalent_wind, c.seat_wind), (Wind::East, Wind::South));
        assert!(c.self_drawn && !c.fourth_tile && c.last_tile && !c.kong);
        assert_eq!(c.flowers, 3);
    }

    #[test]
    fn formatting_round_trips() {
        for s in ["[123m,2][EEE,3][SSSS,5][CCCC]5p5p", "123m456p789s11sEEE"] {
            let p = parse(s).unwrap_or_else(|e| unreachable!("{e}"));
            let again = parse(&format_hand(&p.hand)).unwrap_or_else(|e| unreachable!("{e}"));
            let sorted = |h: &Hand| {
                let mut c = h.concealed.clone();
                c.sort();
                (h.melds.clone(), c, h.win_tile)
            };
            assert_eq!(sorted(&p.hand), sorted(&again.hand));
        }
        assert_eq!(
            format_tiles(&[t("5s"), Tile::E, t("1m"), t("2m"), t("9p")]),
            "12m9p5sE"
        );
    }

    #[test]
    fn unicode_tiles_parse() {
        let p = parse("🀇🀈🀉🀙🀚🀛🀐🀑🀒🀀🀀🀀🀄🀄").unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(p.hand.win_tile, Tile::C);
        assert_eq!(p.hand.concealed.len(), 13);
    }
}

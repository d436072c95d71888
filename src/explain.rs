//! Scores and waits as text a player reads at the table.

use std::fmt::Write as _;

use crate::notation::{self, display_key};
use crate::scoring::{MeldKind, Payment, Reading, Score, Set, SetKind, Wait};
use crate::tile::Tile;

/// Tiles as Unicode glyphs, in display order.
pub fn glyphs(tiles: &[Tile]) -> String {
    let mut t = tiles.to_vec();
    t.sort_by_key(|x| display_key(*x));
    t.iter().map(|x| x.unicode()).collect()
}

fn set_text(s: &Set) -> String {
    let tiles = s.tiles();
    let mark = match (s.kind, s.exposed, s.declared) {
        (SetKind::Kong, false, true) => " (concealed kong)",
        (_, true, _) => " (melded)",
        _ => "",
    };
    format!(
        "{} {}{}",
        glyphs(&tiles),
        notation::format_tiles(&tiles),
        mark
    )
}

/// Display width of a string in a terminal (CJK and mahjong glyphs take two columns).
fn width(s: &str) -> usize {
    s.chars()
        .map(|c| if (c as u32) >= 0x1100 { 2 } else { 1 })
        .sum()
}

fn pad(s: &str, w: usize) -> String {
    let mut out = s.to_string();
    for _ in width(s)..w {
        out.push(' ');
    }
    out
}

/// Who pays what, in words.
pub fn payment_text(p: &Payment) -> String {
    match *p {
        Payment::SelfDrawn { each } => {
            format!("each of the three others pays {each} ({} in all)", 3 * each)
        }
        Payment::Discard { discarder, others } if others > 0 => format!(
            "the discarder pays {discarder}, the two others {others} each ({} in all)",
            p.received()
        ),
        Payment::Discard { discarder, .. } => format!("the discarder pays {discarder}"),
    }
}

/// The language of the labels of text output (`--lang`); fan names are always given in
/// Chinese and English.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    /// A label of the text output, padded to the label column.
    pub fn label(self, key: &str) -> String {
        let zh = match key {
            "Hand" => "手牌",
            "Win" => "和牌",
            "Rules" => "规则",
            "Read as" => "组合",
            "Points" => "番数",
            "Fan" => "番种",
            "total" => "合计",
            "Not counted" => "不计",
            "Note" => "注",
            "Minimum" => "起和",
            "Photo" => "照片",
            "Found" => "找到",
            "Read" => "识别",
            "Assumed" => "假定",
            "Issue" => "问题",
            other => other,
        };
        match self {
            Lang::En => format!("{key:<8}"),
            // A CJK character takes two columns.
            Lang::Zh => format!(
                "{zh}{}",
                " ".repeat(8usize.saturating_sub(2 * zh.chars().count()))
            ),
        }
    }
}

pub fn score_text(s: &Score) -> String {
    score_text_in(s, Lang::En)
}

/// The score explained for players, with labels in `lang`.
pub fn score_text_in(s: &Score, lang: Lang) -> String {
    let mut o = String::new();
    write_hand_lines(&mut o, s, lang);
    let _ = writeln!(o);
    write_fan_table(&mut o, s, lang);
    write_not_counted(&mut o, s, lang);
    let _ = writeln!(o);
    write_minimum(&mut o, s, lang);
    o
}

/// The hand as tile pictures and notation, how it was won, the rule set and the reading.
fn write_hand_lines(o: &mut String, s: &Score, lang: Lang) {
    let l = |k: &str| lang.label(k);
    let h = &s.hand;
    let mut shown = String::new();
    for m in &h.melds {
        let tiles: Vec<Tile> = m.tiles().collect();
        let g = if m.kind == MeldKind::ConcealedKong {
            format!("🀫{}{}🀫", tiles[0].unicode(), tiles[0].unicode())
        } else {
            glyphs(&tiles)
        };
        let _ = write!(shown, "[{g}] ");
    }
    let _ = write!(shown, "{} + {}", glyphs(&h.concealed), h.win_tile.unicode());
    let c = &s.context;
    let _ = writeln!(o, "{} {shown}", l("Hand"));
    let _ = writeln!(
        o,
        "         {}{}",
        notation::format_hand(h),
        notation::format_context(c)
    );
    let how = match (c.self_drawn, c.kong, c.last_tile) {
        (true, true, _) => "self-drawn on a kong replacement",
        (true, false, true) => "self-drawn, last tile of the wall",
        (true, false, false) => "self-drawn",
        (false, true, _) => "robbing a kong",
        (false, false, true) => "on the last discard",
        (false, false, false) => "on a discard",
    };
    let _ = writeln!(
        o,
        "{} {how} on {} {}{} · seat {} · prevalent {} · {} flower(s)",
        l("Win"),
        h.win_tile.unicode(),
        h.win_tile,
        if c.fourth_tile {
            " (last of its kind)"
        } else {
            ""
        },
        c.seat_wind,
        c.prevalent_wind,
        c.flowers
    );
    let _ = writeln!(o, "{} {}", l("Rules"), s.rules.preset.name());
    let _ = writeln!(o, "{} {}", l("Read as"), reading_text(s));
}

/// The reading: its sets, or the special shape's name.
fn reading_text(s: &Score) -> String {
    match s.reading {
        Reading::Regular(_) | Reading::KnittedStraight { .. } => {
            let mut r: Vec<String> = Vec::new();
            if let Reading::KnittedStraight { knitted, .. } = s.reading {
                r.push(format!("{} knitted straight", glyphs(&knitted)));
            }
            r.extend(s.sets.iter().map(set_text));
            r.join(" · ")
        }
        Reading::SevenPairs => "seven pairs".to_string(),
        Reading::SevenShiftedPairs => "seven shifted pairs".to_string(),
        Reading::ThirteenOrphans => "thirteen orphans".to_string(),
        Reading::HonorsAndKnitted => "honors and knitted tiles".to_string(),
        Reading::NineGates => "nine gates".to_string(),
    }
}

/// One line per fan counted (points, names, count, the sets that make it), then the total.
fn write_fan_table(o: &mut String, s: &Score, lang: Lang) {
    let _ = match lang {
        Lang::En => writeln!(o, "  Points  Fan"),
        Lang::Zh => writeln!(o, "    番数  番种"),
    };
    for e in &s.fans {
        let name = format!("{} {}", e.fan.zh(), e.fan.en());
        let count = if e.count > 1 {
            format!("{} × {}", e.points, e.count)
        } else {
            String::new()
        };
        let sets: Vec<String> = e
            .sets
            .iter()
            .filter_map(|i| s.sets.get(i))
            .map(|x| notation::format_tiles(&x.tiles()))
            .collect();
        let _ = writeln!(
            o,
            "  {:>6}  {}{}{}",
            e.total(),
            pad(&name, 42),
            pad(&count, 8),
            sets.join(" ")
        );
    }
    let _ = writeln!(o, "  ------");
    let flowers = u32::from(s.context.flowers);
    let detail = if flowers > 0 {
        format!("  ({} + {} for flowers)", s.total_no_flowers, flowers)
    } else {
        String::new()
    };
    let _ = writeln!(
        o,
        "  {:>6}  {}{detail}",
        s.total,
        lang.label("total").trim_end()
    );
}

/// The fans the reading shows but does not count, and why; then the notes.
fn write_not_counted(o: &mut String, s: &Score, lang: Lang) {
    if !s.not_counted.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(o, "{}", lang.label("Not counted").trim_end());
        for n in &s.not_counted {
            let _ = writeln!(
                o,
                "  {} {} — implied by {}: {}",
                n.fan.zh(),
                n.fan.en(),
                n.by.zh(),
                n.reason
            );
        }
    }
    if !s.notes.is_empty() {
        let _ = writeln!(o);
        for n in &s.notes {
            let _ = writeln!(o, "{} {n}", lang.label("Note"));
        }
    }
}

/// Whether the minimum is met, and the payments (or 错和).
fn write_minimum(o: &mut String, s: &Score, lang: Lang) {
    let l = |k: &str| lang.label(k);
    if s.meets_minimum {
        let pay = s.payment.as_ref().map(payment_text).unwrap_or_default();
        let _ = writeln!(
            o,
            "{} {} points without flowers: met. {pay}.",
            l("Minimum"),
            s.minimum
        );
    } else {
        let _ = writeln!(
            o,
            "{} {} points without flowers: NOT met ({} points). This is 错和, a false win: no payment.",
            l("Minimum"),
            s.minimum,
            s.total_no_flowers
        );
    }
}

/// The waits of a hand as text.
pub fn waits_text(hand_text: &str, waits: &[Wait], rules: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Hand   {hand_text}   (rules {rules})");
    if waits.is_empty() {
        let _ = writeln!(
            o,
            "Waits on nothing: no tile completes this hand (it is not ready, 未听牌)."
        );
        return o;
    }
    let _ = writeln!(o, "Waits on {} tile(s):", waits.len());
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "  Tile     Left  Discard  Self-drawn  Best fans (discard)"
    );
    for w in waits {
        let top: Vec<String> = w
            .discard
            .fans
            .iter()
            .take(4)
            .map(|e| e.fan.zh().to_string())
            .collect();
        let mark = |s: &Score| {
            if s.meets_minimum {
                String::new()
            } else {
                " ✗".to_string()
            }
        };
        let _ = writeln!(
            o,
            "  {} {:<4}  {:>4}  {:>7}  {:>10}  {}",
            w.tile.unicode(),
            w.tile.to_string(),
            4 - w.held,
            format!("{}{}", w.discard.total, mark(&w.discard)),
            format!("{}{}", w.self_drawn.total, mark(&w.self_drawn)),
            top.join(" ")
        );
    }
    let _ = writeln!(o);
    if waits
        .iter()
        .any(|w| !w.discard.meets_minimum || !w.self_drawn.meets_minimum)
    {
        let _ = writeln!(
            o,
            "✗ below the minimum: winning on it would be 错和 (a false win)."
        );
    }
    for w in waits {
        if let Some(why) = &w.dropped {
            let _ = writeln!(o, "Note on {}: {why}", w.tile);
        }
    }
    let _ = writeln!(
        o,
        "Totals include flowers; circumstances as given (seat, prevalent wind, flowers, fourth tile, last tile, kong)."
    );
    o
}

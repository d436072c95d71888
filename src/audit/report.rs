//! The audit's outputs: text for the terminal, `audit.json`, `audit.csv` and a self-contained
//! `report.html`.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Audit, State, Verdict, clock, count, count_verb, show_changes};
use crate::tile::Tile;

/// The word for a verdict's state.
fn state_word(v: &Verdict) -> &'static str {
    match v.state() {
        State::Agrees => "agrees",
        State::Disagrees => "disagrees",
        State::Unsure => "unsure",
    }
}

/// `16 hands, 13 agree, 2 disagree, 1 unsure`.
fn counts(a: &Audit) -> String {
    let mut s = format!(
        "{}, {}, {}",
        count(a.verdicts.len() as u64, "hand"),
        count_verb(
            (a.verdicts.len() - a.disagreements() - a.unsure()) as u64,
            "agree"
        ),
        count_verb(a.disagreements() as u64, "disagree")
    );
    if a.unsure() > 0 {
        s.push_str(&format!(", {} could not be confirmed", a.unsure()));
    }
    s
}

/// One line per recording: what was read of it.
fn recording_lines(a: &Audit) -> Vec<String> {
    a.recordings
        .iter()
        .map(|r| {
            // A folder is told in photos; a video in frames, up to a time, hands held still.
            let (unit, span, found) = if r.photos {
                ("photo", String::new(), "shown")
            } else {
                let span = format!(" decoded up to {}", clock(r.last_seconds.unwrap_or(0.0)));
                ("frame", span, "held still")
            };
            let mut s = format!(
                "{}: {}{span}, {} read by the models, {} {found}",
                r.name,
                count(r.frames, unit),
                r.frames_read,
                count(r.hands_found as u64, "winning hand")
            );
            if r.bad_frames > 0 {
                s.push_str(&format!(", {} unreadable", count(r.bad_frames, unit)));
            }
            s
        })
        .collect()
}

/// One word for a verdict: `agrees`, or the code of its first finding.
pub fn verdict_word(v: &Verdict) -> &'static str {
    v.findings.first().map_or("agrees", |f| f.code)
}

fn hand_label(v: &Verdict) -> String {
    v.row
        .hand
        .map_or_else(|| format!("line {}", v.row.line), |h| format!("hand {h}"))
}

/// The terminal summary: one line per hand, the findings under it.
pub fn to_text(a: &Audit) -> String {
    let mut s = String::new();
    for r in recording_lines(a) {
        let _ = writeln!(s, "Recording {r}");
    }
    for n in &a.notes {
        let _ = writeln!(s, "Note: {n}");
    }
    for v in &a.verdicts {
        let _ = writeln!(
            s,
            "{:<9} line {:<4} {}",
            hand_label(v),
            v.row.line,
            match v.state() {
                State::Agrees => "agrees",
                State::Disagrees => "DISAGREES",
                State::Unsure => "UNSURE",
            }
        );
        if let Some(m) = &v.seen {
            let _ = writeln!(
                s,
                "          read in {}: {}",
                m.place(),
                crate::notation::format_hand(&m.hand)
            );
        }
        for f in &v.findings {
            let _ = writeln!(s, "          {}: {}", f.code, f.message);
        }
    }
    let _ = writeln!(s, "{}", counts(a));
    s
}

fn verdict_json(a: &Audit, v: &Verdict) -> Value {
    json!({
        "line": v.row.line,
        "hand": v.row.hand,
        "verdict": verdict_word(v),
        "state": state_word(v),
        "agrees": v.agrees(),
        "seen": v.seen.as_ref().map(|m| json!({
            "recording": m.recording,
            "time": (m.seconds * 100.0).round() / 100.0,
            "at": (m.at * 100.0).round() / 100.0,
            "hand": crate::notation::format_hand(&m.hand),
            "flowers": m.flowers,
            "confidence": (f64::from(m.confidence) * 1000.0).round() / 1000.0,
            "frames_fused": m.frames,
        })),
        "findings": v.findings.iter().map(|f| json!({"code": f.code, "message": f.message})).collect::<Vec<_>>(),
        "result": if v.row.win { "win" } else { "draw" },
        "winner": v.row.winner.map(|w| a.header.players[w].clone()),
        "from": v.row.winner.map(|_| v.row.discarder.map_or("self".to_string(), |d| a.header.players[d].clone())),
        "claimed_total": v.row.total,
        "our_total": v.ours.as_ref().map(|o| o.total),
        "our_hand": v.ours.as_ref().map(|o| o.hand.clone()),
        "our_fans": v.ours.as_ref().map(|o| o.fans.iter().map(|(f, n)| json!({"name": f.zh(), "name_en": f.en(), "count": n})).collect::<Vec<_>>()),
        "changes": v.row.changes,
        "expected_changes": v.expected_changes,
        "prevalent": v.prevalent.map(|w| w.to_string()),
        "seats": v.seats.map(|s| s.iter().map(|w| w.to_string()).collect::<Vec<_>>()),
        "time": v.row.time,
    })
}

/// `audit.json`: the players, sheet notes, and one record per hand.
pub fn to_json(a: &Audit) -> Value {
    json!({
        "players": a.header.players,
        "rules": a.header.rules.preset.name(),
        "notes": a.notes,
        "hands": a.verdicts.len(),
        "disagree": a.disagreements(),
        "unsure": a.unsure(),
        "recordings": a.recordings.iter().map(|r| json!({
            "name": r.name,
            "frames": r.frames,
            "frames_read": r.frames_read,
            "bad_frames": r.bad_frames,
            "hands_found": r.hands_found,
            "last_frame_time": r.last_seconds,
            "duration": r.duration,
            "problem": r.problem,
            "photos": r.photos,
        })).collect::<Vec<_>>(),
        "verdicts": a.verdicts.iter().map(|v| verdict_json(a, v)).collect::<Vec<_>>(),
    })
}

/// `audit.csv`: one row per hand.
pub fn to_csv(a: &Audit) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "line",
        "hand",
        "verdict",
        "claimed_total",
        "our_total",
        "expected_changes",
        "hand_read",
        "read_at",
        "findings",
    ])?;
    for v in &a.verdicts {
        let opt = |x: Option<u32>| x.map_or(String::new(), |n| n.to_string());
        w.write_record([
            v.row.line.to_string(),
            v.row.hand.map_or(String::new(), |h| h.to_string()),
            verdict_word(v).to_string(),
            opt(v.row.total),
            opt(v.ours.as_ref().map(|o| o.total)),
            v.expected_changes
                .map_or(String::new(), |c| show_changes(&a.header, &c)),
            v.seen
                .as_ref()
                .map_or(String::new(), |m| crate::notation::format_hand(&m.hand)),
            v.seen.as_ref().map_or(String::new(), |m| m.place()),
            v.findings
                .iter()
                .map(|f| format!("{}: {}", f.code, f.message))
                .collect::<Vec<_>>()
                .join(" | "),
        ])?;
    }
    w.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}

/// Text made safe inside HTML.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The tiles of the hand read from a frame that the models were less than
/// `scan::UNSURE_BELOW` sure of, with how sure.
fn doubtful_tiles(o: &crate::scan::ScanOutcome) -> Vec<(Tile, f32)> {
    o.decoded
        .tiles
        .iter()
        .filter_map(|&(i, t)| {
            let p = o.detections.get(i)?.p_tile(t);
            (p < crate::scan::UNSURE_BELOW).then_some((t, p))
        })
        .collect()
}

/// A hand in notation as tile pictures: each tile a small drawn card with its rank and suit
/// (no font with mahjong glyphs is needed), melds grouped. One card per entry of `doubtful`
/// (a tile read unsure) is outlined in red, with how sure it was read as its tooltip.
fn tiles_html(hand: &str, mut doubtful: Vec<(Tile, f32)>) -> String {
    let body = hand.split('|').next().unwrap_or("");
    let Ok(parsed) = crate::notation::parse(body) else {
        return format!("<code>{}</code>", esc(hand));
    };
    let mut card = |t: Tile, extra: &str| {
        let doubt = match doubtful.iter().position(|(d, _)| *d == t) {
            Some(k) => format!(
                " doubt\" title=\"read {:.0}% sure",
                f64::from(doubtful.swap_remove(k).1) * 100.0
            ),
            None => String::new(),
        };
        let s = t.to_string();
        let (rank, suit) = s.split_at(s.len().saturating_sub(1));
        let class = match suit {
            "m" => "m",
            "p" => "p",
            "s" => "s",
            _ => "z",
        };
        let face = if rank.is_empty() {
            suit.to_string()
        } else {
            rank.to_string()
        };
        format!(
            "<span class=\"t {class}{extra}{doubt}\">{}<small>{}</small></span>",
            esc(&face),
            esc(if rank.is_empty() { "" } else { suit })
        )
    };
    let mut out = String::new();
    for m in &parsed.hand.melds {
        out.push_str("<span class=\"meld\">");
        for t in m.tiles() {
            out.push_str(&card(t, ""));
        }
        out.push_str("</span>");
    }
    for &t in &parsed.hand.concealed {
        out.push_str(&card(t, ""));
    }
    out.push_str(&card(parsed.hand.win_tile, " win"));
    out
}

const STYLE: &str = "body{font-family:system-ui,'Noto Sans CJK SC','Droid Sans Fallback',sans-serif;margin:2em;background:#f4f1ea;color:#222}
h1{margin-top:0}.summary{font-size:1.1em;margin-bottom:1.5em}.card{background:#fff;border-radius:8px;padding:1em 1.2em;margin:0 0 1em;box-shadow:0 1px 3px #0002;border-left:6px solid #3a7d44}
.card.bad{border-left-color:#c0392b}.card.unsure{border-left-color:#d4a017}.unsure .verdict{color:#a67c00}.frame{max-width:min(100%,640px);border-radius:4px;margin:.4em 0;display:block}.seen{color:#555;font-size:.9em}.index{background:#fff;margin-bottom:1.5em;font-size:.92em}.index td:first-child{white-space:nowrap}.index .verdict{font-weight:bold}.index .bad .verdict{color:#c0392b}.index .ok .verdict{color:#3a7d44}.index .unsure .verdict{color:#a67c00}.card h2{margin:0 0 .4em;font-size:1.1em}.verdict{font-weight:bold}.bad .verdict{color:#c0392b}.ok .verdict{color:#3a7d44}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:.15em .7em;text-align:left;border-bottom:1px solid #eee}ul{margin:.3em 0}
.t{display:inline-block;width:1.7em;height:2.3em;margin:1px;border:1px solid #999;border-radius:4px;background:#fffdf5;text-align:center;font-weight:bold;line-height:1.3em;vertical-align:middle}
.t small{display:block;font-weight:normal;font-size:.7em}.t.m{color:#b22}.t.p{color:#126}.t.s{color:#272}.t.z{color:#333}.t.win{margin-left:.8em;border-color:#c80;border-width:2px}.t.doubt{border-color:#c0392b;border-width:2px;background:#fdecea}
.meld{margin-right:.6em;padding:2px;background:#e8e2d0;border-radius:4px;display:inline-block}";

/// `report.html`: a summary, then a card per hand. Self-contained (no scripts, no fetches).
pub fn to_html(a: &Audit) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html><html lang=\"zh\"><head><meta charset=\"utf-8\"><title>suanfan audit</title><style>{STYLE}</style></head><body>"
    );
    let _ = write!(
        h,
        "<h1>Score sheet audit</h1><div class=\"summary\">Players: {} · rules {} · <b>{}</b></div>",
        esc(&a.header.players.join(", ")),
        esc(a.header.rules.preset.name()),
        esc(&counts(a))
    );
    let lines: Vec<String> = recording_lines(a)
        .into_iter()
        .map(|r| format!("Recording {r}"))
        .chain(a.notes.iter().cloned())
        .collect();
    if !lines.is_empty() {
        h.push_str("<ul>");
        for n in &lines {
            let _ = write!(h, "<li>{}</li>", esc(n));
        }
        h.push_str("</ul>");
    }
    let fonts = a
        .verdicts
        .iter()
        .any(|v| v.seen.is_some())
        .then(crate::annotate::Fonts::load);
    index_html(&mut h, a);
    for v in &a.verdicts {
        card_html(&mut h, a, v, fonts.as_ref());
    }
    h.push_str("</body></html>\n");
    h
}

/// A line per hand, linking to its card: the verdict and the first finding.
fn index_html(h: &mut String, a: &Audit) {
    h.push_str("<table class=\"index\"><tr><th>hand</th><th>verdict</th><th></th></tr>");
    for v in &a.verdicts {
        let first = v
            .findings
            .first()
            .map_or(String::new(), |f| format!("{}: {}", f.code, f.message));
        let _ = write!(
            h,
            "<tr class=\"{}\"><td><a href=\"#line{}\">{}</a></td><td class=\"verdict\">{}</td><td>{}</td></tr>",
            state_class(v),
            v.row.line,
            esc(&hand_label(v)),
            state_word(v),
            esc(&first)
        );
    }
    h.push_str("</table>");
}

fn state_class(v: &Verdict) -> &'static str {
    match v.state() {
        State::Agrees => "ok",
        State::Disagrees => "bad",
        State::Unsure => "unsure",
    }
}

/// The frame a hand was read from, tiles outlined, as an `<img>` with the picture inside.
fn frame_html(m: &super::recording::Moment, fonts: &crate::annotate::Fonts) -> String {
    use base64::Engine as _;
    let pic = crate::annotate::outlined(&m.frame, &m.outcome, fonts, FRAME_SIDE);
    let mut jpeg = Vec::new();
    let mut enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 80);
    if enc.encode_image(&pic).is_err() {
        return String::new();
    }
    format!(
        "<img class=\"frame\" alt=\"the frame the hand was read from\" src=\"data:image/jpeg;base64,{}\">",
        base64::engine::general_purpose::STANDARD.encode(&jpeg)
    )
}

/// Long side of the frames in the report, in pixels.
const FRAME_SIDE: u32 = 720;

fn card_html(h: &mut String, a: &Audit, v: &Verdict, fonts: Option<&crate::annotate::Fonts>) {
    let _ = write!(
        h,
        "<div class=\"card {}\" id=\"line{}\"><h2>{} <span class=\"verdict\">{}</span></h2>",
        state_class(v),
        v.row.line,
        esc(&hand_label(v)),
        state_word(v)
    );
    if let (Some(m), Some(fonts)) = (&v.seen, fonts) {
        seen_html(h, m, fonts);
    }
    if let Some(o) = &v.ours {
        let doubtful = v
            .seen
            .as_ref()
            .map_or(Vec::new(), |m| doubtful_tiles(&m.outcome));
        let _ = write!(h, "<div>{}</div>", tiles_html(&o.hand, doubtful));
    } else if let Some(text) = &v.row.notation {
        let _ = write!(h, "<div>{}</div>", tiles_html(text, Vec::new()));
    }
    comparison_html(h, a, v);
    if !v.findings.is_empty() {
        h.push_str("<ul>");
        for f in &v.findings {
            let _ = write!(h, "<li><b>{}</b>: {}</li>", esc(f.code), esc(&f.message));
        }
        h.push_str("</ul>");
    }
    h.push_str("</div>");
}

/// The frame the hand was read in, and how sure the reading was.
fn seen_html(h: &mut String, m: &super::recording::Moment, fonts: &crate::annotate::Fonts) {
    h.push_str(&frame_html(m, fonts));
    // A photo is one picture: only a video's reading says how many frames it fused.
    let frames = match m.frames {
        _ if m.photo => String::new(),
        1 => " · 1 frame".to_string(),
        n => format!(" · {n} frames fused"),
    };
    let _ = write!(
        h,
        "<div class=\"seen\">read in {}{frames} · least sure tile {:.0}% (tiles read less than {:.0}% sure are outlined in red)</div>",
        esc(&m.place()),
        f64::from(m.confidence) * 100.0,
        f64::from(crate::scan::UNSURE_BELOW) * 100.0
    );
}

/// The sheet's total, fans and score changes beside ours.
fn comparison_html(h: &mut String, a: &Audit, v: &Verdict) {
    h.push_str("<table><tr><th></th><th>sheet</th><th>suanfan</th></tr>");
    let _ = write!(
        h,
        "<tr><td>total</td><td>{}</td><td>{}</td></tr>",
        v.row.total.map_or("—".into(), |t| t.to_string()),
        v.ours.as_ref().map_or("—".into(), |o| o.total.to_string())
    );
    let listed = |fans: &[(crate::scoring::Fan, u8)]| -> String {
        let names: Vec<String> = fans
            .iter()
            .map(|(f, n)| format!("{} ×{n}", f.zh()))
            .collect();
        esc(&names.join(", "))
    };
    let _ = write!(
        h,
        "<tr><td>fans</td><td>{}</td><td>{}</td></tr>",
        listed(&v.row.fans),
        v.ours.as_ref().map_or(String::new(), |o| listed(&o.fans))
    );
    let _ = write!(
        h,
        "<tr><td>changes</td><td>{}</td><td>{}</td></tr><tr><td></td><td></td><td><small>(payments for the total the sheet claims)</small></td></tr>",
        esc(&show_changes(&a.header, &v.row.changes)),
        v.expected_changes
            .map_or("—".into(), |c| esc(&show_changes(&a.header, &c)))
    );
    if let (Some(o), Some(w), Some(claimed)) = (&v.ours, v.row.winner, v.row.total) {
        if o.total != claimed && v.row.discarder != Some(w) {
            let ours = super::changes_for(&a.header.rules, w, v.row.discarder, o.total);
            let _ = write!(
                h,
                "<tr><td></td><td></td><td>{}<br><small>(payments for our total, {})</small></td></tr>",
                esc(&show_changes(&a.header, &ours)),
                o.total
            );
        }
    }
    h.push_str("</table>");
}

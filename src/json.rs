//! The JSON form of hands and scores used by `../shared/scoring/corpus-dev.jsonl.gz`.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::notation;
use crate::scoring::{
    FanEntry, Hand, Meld, MeldKind, Payment, Reading, Score, Seat, SetKind, WinContext,
};
use crate::tile::{Tile, Wind};

#[derive(Deserialize, Serialize, Clone, Debug, Default)]
pub struct JsonMeld {
    #[serde(rename = "type")]
    pub kind: String,
    pub tiles: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// A hand with its circumstances, as in the corpus.
#[derive(Deserialize, Serialize, Clone, Debug, Default)]
pub struct JsonHand {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    #[serde(default)]
    pub melds: Vec<JsonMeld>,
    pub concealed: Vec<String>,
    pub win_tile: String,
    #[serde(default)]
    pub self_drawn: bool,
    #[serde(default)]
    pub fourth_tile: bool,
    #[serde(default)]
    pub kong_related: bool,
    #[serde(default)]
    pub last_tile: bool,
    #[serde(default = "east")]
    pub seat_wind: String,
    #[serde(default = "east")]
    pub prevalent_wind: String,
    #[serde(default)]
    pub flowers: u8,
}

fn east() -> String {
    "E".to_string()
}

fn tile(s: &str, what: &str) -> Result<Tile, String> {
    Tile::parse(s).map_err(|e| format!("{what}: {e}"))
}

/// A declared meld from its JSON parts (`tiles` gets sorted); the error says what is wrong
/// with it, for the caller to prefix with which meld.
pub fn meld_of(
    kind: &str,
    tiles: &mut [Tile],
    claimed: Option<u8>,
    from: Option<&str>,
) -> Result<Meld, String> {
    tiles.sort();
    let first = *tiles.first().ok_or("no tiles")?;
    let from = match from {
        None => Seat::Left,
        Some(s) => Seat::parse(s)
            .ok_or_else(|| format!("'from' must be left, across or right, not '{s}'"))?,
    };
    let same = tiles.iter().all(|&t| t == first);
    Ok(match (kind, tiles.len()) {
        ("chow", 3) if first.next() == Some(tiles[1]) && tiles[1].next() == Some(tiles[2]) => {
            let claimed = claimed.unwrap_or(0);
            if claimed > 2 {
                return Err("'claimed' must be 0, 1 or 2".to_string());
            }
            Meld::chow(first, claimed)
        }
        ("pung", 3) if same => Meld::pung(first, from),
        ("kong", 4) if same => Meld::kong(first, from),
        ("concealed_kong", 4) if same => Meld::concealed_kong(first),
        (k, n) => return Err(format!("{n} tiles do not make a {k}")),
    })
}

impl JsonHand {
    /// Converts to the engine's types.
    pub fn to_hand(&self) -> Result<(Hand, WinContext), String> {
        let mut melds = Vec::new();
        for (i, m) in self.melds.iter().enumerate() {
            let what = || format!("meld {}", i + 1);
            let mut tiles = m
                .tiles
                .iter()
                .map(|t| tile(t, &what()))
                .collect::<Result<Vec<_>, _>>()?;
            let meld = meld_of(&m.kind, &mut tiles, m.claimed, m.from.as_deref())
                .map_err(|e| format!("{}: {e}", what()))?;
            melds.push(meld);
        }
        let concealed = self
            .concealed
            .iter()
            .map(|t| tile(t, "concealed"))
            .collect::<Result<Vec<_>, _>>()?;
        let win_tile = tile(&self.win_tile, "win_tile")?;
        let wind = |s: &str, what: &str| {
            Wind::parse(s).ok_or_else(|| format!("{what}: '{s}' is not a wind (E S W N)"))
        };
        let ctx = WinContext {
            self_drawn: self.self_drawn,
            fourth_tile: self.fourth_tile,
            kong: self.kong_related,
            last_tile: self.last_tile,
            seat_wind: wind(&self.seat_wind, "seat_wind")?,
            prevalent_wind: wind(&self.prevalent_wind, "prevalent_wind")?,
            flowers: self.flowers,
        };
        Ok((
            Hand {
                melds,
                concealed,
                win_tile,
            },
            ctx,
        ))
    }

    /// The JSON form of a hand and its circumstances.
    pub fn from_hand(hand: &Hand, ctx: &WinContext) -> JsonHand {
        let melds = hand
            .melds
            .iter()
            .map(|m| JsonMeld {
                kind: match m.kind {
                    MeldKind::Chow => "chow",
                    MeldKind::Pung => "pung",
                    MeldKind::Kong => "kong",
                    MeldKind::ConcealedKong => "concealed_kong",
                }
                .to_string(),
                tiles: m.tiles().map(|t| t.to_string()).collect(),
                claimed: (m.kind == MeldKind::Chow).then_some(m.claimed),
                from: matches!(m.kind, MeldKind::Pung | MeldKind::Kong)
                    .then(|| m.from.as_str().to_string()),
            })
            .collect();
        JsonHand {
            id: None,
            melds,
            concealed: hand.concealed.iter().map(|t| t.to_string()).collect(),
            win_tile: hand.win_tile.to_string(),
            self_drawn: ctx.self_drawn,
            fourth_tile: ctx.fourth_tile,
            kong_related: ctx.kong,
            last_tile: ctx.last_tile,
            seat_wind: ctx.seat_wind.to_string(),
            prevalent_wind: ctx.prevalent_wind.to_string(),
            flowers: ctx.flowers,
        }
    }
}

/// A batch line that cannot be read as a hand: the line's `id` where it has one, and why.
#[derive(Debug)]
pub struct LineError {
    pub id: Option<Value>,
    pub error: String,
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.error)
    }
}

impl std::error::Error for LineError {}

/// Reads one line of batch input: a corpus line (`{"hand": {...}, ...}`) or a bare hand.
pub fn parse_batch_line(line: &str) -> Result<JsonHand, LineError> {
    let v: Value = serde_json::from_str(line).map_err(|e| LineError {
        id: None,
        error: format!("not JSON: {e}"),
    })?;
    let id = v
        .get("id")
        .or_else(|| v.get("hand").and_then(|h| h.get("id")))
        .cloned();
    let h = match v.get("hand") {
        Some(h) => h.clone(),
        None => v,
    };
    let mut jh: JsonHand = serde_json::from_value(h).map_err(|e| LineError {
        id: id.clone(),
        error: format!("not a hand: {e}"),
    })?;
    if jh.id.is_none() {
        jh.id = id;
    }
    Ok(jh)
}

fn fan_json(e: &FanEntry) -> Value {
    json!({"name": e.fan.zh(), "name_en": e.fan.en(), "points": e.points, "count": e.count})
}

/// The corpus answer for a score: `ok`, `fans`, `total`, `total_no_flowers`, `meets_8`.
pub fn corpus_answer(id: Option<&Value>, s: &Score) -> Value {
    let mut v = json!({
        "ok": true,
        "fans": s.fans.iter().map(fan_json).collect::<Vec<_>>(),
        "total": s.total,
        "total_no_flowers": s.total_no_flowers,
        "meets_8": s.meets_minimum,
    });
    if let (Some(id), Some(obj)) = (id, v.as_object_mut()) {
        obj.insert("id".to_string(), id.clone());
    }
    v
}

/// The corpus answer for a hand that cannot be scored.
pub fn corpus_error(id: Option<&Value>, error: &str) -> Value {
    let mut v = json!({"ok": false, "error": error});
    if let (Some(id), Some(obj)) = (id, v.as_object_mut()) {
        obj.insert("id".to_string(), id.clone());
    }
    v
}

fn set_json(kind: SetKind, tiles: Vec<Tile>, exposed: bool) -> Value {
    let kind = match kind {
        SetKind::Chow => "chow",
        SetKind::Pung => "pung",
        SetKind::Kong => "kong",
        SetKind::Pair => "pair",
    };
    json!({"type": kind, "tiles": tiles.iter().map(|t| t.to_string()).collect::<Vec<_>>(), "exposed": exposed})
}

/// The full score as JSON: the corpus answer plus the reading, exclusions, notes and payments.
pub fn score_json(s: &Score) -> Value {
    let reading = match s.reading {
        Reading::Regular(_) => "regular",
        Reading::SevenPairs => "seven_pairs",
        Reading::SevenShiftedPairs => "seven_shifted_pairs",
        Reading::ThirteenOrphans => "thirteen_orphans",
        Reading::HonorsAndKnitted => "honors_and_knitted",
        Reading::KnittedStraight { .. } => "knitted_straight",
        Reading::NineGates => "nine_gates",
    };
    let payment = match s.payment {
        None => Value::Null,
        Some(Payment::SelfDrawn { each }) => {
            json!({"self_drawn": true, "each": each, "received": 3 * each})
        }
        Some(p @ Payment::Discard { discarder, others }) => {
            json!({"self_drawn": false, "discarder": discarder, "others": others, "received": p.received()})
        }
    };
    json!({
        "ok": true,
        "rules": s.rules.preset.name(),
        "hand": notation::format_hand(&s.hand) + &notation::format_context(&s.context),
        "reading": reading,
        "sets": s.sets.iter().map(|x| set_json(x.kind, x.tiles(), x.exposed)).collect::<Vec<_>>(),
        "fans": s.fans.iter().map(|e| {
            let mut v = fan_json(e);
            if let Some(o) = v.as_object_mut() {
                o.insert("sets".into(), json!(e.sets.to_vec()));
            }
            v
        }).collect::<Vec<_>>(),
        "not_counted": s.not_counted.iter().map(|n| json!({"name": n.fan.zh(), "name_en": n.fan.en(), "by": n.by.zh(), "reason": n.reason})).collect::<Vec<_>>(),
        "notes": s.notes,
        "total": s.total,
        "total_no_flowers": s.total_no_flowers,
        "minimum": s.minimum,
        "meets_minimum": s.meets_minimum,
        "meets_8": s.meets_minimum,
        "payment": payment,
    })
}

/// Reads detections from JSON: a list of objects with `corners` (four [x, y]), `face_down`,
/// `orientation` (up/down/left/right), optional `score`, and `probs` either as a list of 42
/// numbers in model order or as a map from face to probability (the rest of the mass is
/// spread evenly over the other faces).
pub fn detections_from_json(v: &Value) -> Result<Vec<crate::detection::Detection>, String> {
    use crate::detection::{CLASS_COUNT, Detection, Face, Orientation};
    let list = v.as_array().ok_or("detections: expected a list")?;
    let mut out = Vec::with_capacity(list.len());
    for (i, d) in list.iter().enumerate() {
        let what = format!("detection {}", i + 1);
        let corners_v = d["corners"]
            .as_array()
            .ok_or_else(|| format!("{what}: no corners"))?;
        if corners_v.len() != 4 {
            return Err(format!("{what}: 4 corners expected"));
        }
        let mut corners = [[0f32; 2]; 4];
        for (k, c) in corners_v.iter().enumerate() {
            let x = c[0]
                .as_f64()
                .ok_or_else(|| format!("{what}: corner {k} is not [x, y]"))?;
            let y = c[1]
                .as_f64()
                .ok_or_else(|| format!("{what}: corner {k} is not [x, y]"))?;
            corners[k] = [x as f32, y as f32];
        }
        let face_down = d["face_down"].as_bool().unwrap_or(false);
        let orientation = match d["orientation"].as_str() {
            None => Orientation::Up,
            Some(s) => Orientation::parse(s).ok_or_else(|| format!("{what}: orientation '{s}'"))?,
        };
        let probs = match &d["probs"] {
            Value::Array(a) => a.iter().map(|x| x.as_f64().unwrap_or(0.0) as f32).collect(),
            Value::Object(m) if !face_down && !m.is_empty() => {
                let mut p = vec![0f32; CLASS_COUNT];
                let mut mass = 0.0;
                for (k, x) in m {
                    let f = Face::parse(k).ok_or_else(|| format!("{what}: '{k}' is not a face"))?;
                    let x = x.as_f64().unwrap_or(0.0) as f32;
                    p[f.class()] = x;
                    mass += x;
                }
                let rest = ((1.0 - mass).max(0.0)) / (CLASS_COUNT - m.len()) as f32;
                for (c, x) in p.iter_mut().enumerate() {
                    if !m
                        .keys()
                        .any(|k| Face::parse(k).is_some_and(|f| f.class() == c))
                    {
                        *x = rest;
                    }
                }
                p
            }
            _ => Vec::new(),
        };
        let score = d["score"].as_f64().unwrap_or(1.0) as f32;
        out.push(Detection {
            corners,
            score,
            face_down,
            orientation,
            probs,
        });
    }
    Ok(out)
}

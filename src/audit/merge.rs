//! A tournament's audits in one summary. Each table is audited as an independent job (one
//! `suanfan audit SHEET --recording VIDEO --out DIR` per table, run by any job runner: GNU
//! parallel over ssh, Kubernetes Jobs…); `suanfan merge-audits` then reads every `DIR/audit.json`
//! and writes one summary: a line per table, and every hand that disagrees or is unsure.
//! A folder without a readable `audit.json` (a job that failed) is a line of its own.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::report::esc;
use super::{count, count_verb};

/// One table's audit, as its `audit.json` gives it.
#[derive(Debug, Clone)]
pub struct Table {
    /// The folder the job wrote.
    pub dir: PathBuf,
    pub players: Vec<String>,
    pub hands: u64,
    pub disagree: u64,
    pub unsure: u64,
    /// Notes of the sheet and the recordings.
    pub notes: Vec<String>,
    /// Hands that disagree or are unsure: (hand number or line, state, findings).
    pub flagged: Vec<(String, String, String)>,
    /// Why the folder could not be read (then the counts are 0).
    pub error: Option<String>,
}

/// Reads one job's folder.
pub fn read_table(dir: &Path) -> Table {
    let mut t = Table {
        dir: dir.to_path_buf(),
        players: Vec::new(),
        hands: 0,
        disagree: 0,
        unsure: 0,
        notes: Vec::new(),
        flagged: Vec::new(),
        error: None,
    };
    let path = dir.join("audit.json");
    let v: Value = match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|s| serde_json::from_str(&s).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            t.error = Some(format!(
                "{}: {e} (did this table's audit job finish?)",
                path.display()
            ));
            return t;
        }
    };
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    t.players = strings(&v["players"]);
    t.hands = v["hands"].as_u64().unwrap_or(0);
    t.disagree = v["disagree"].as_u64().unwrap_or(0);
    t.unsure = v["unsure"].as_u64().unwrap_or(0);
    t.notes = strings(&v["notes"]);
    for r in v["verdicts"].as_array().into_iter().flatten() {
        let state = r["state"].as_str().unwrap_or("disagrees");
        if state == "agrees" {
            continue;
        }
        let label = r["hand"].as_u64().map_or_else(
            || format!("line {}", r["line"].as_u64().unwrap_or(0)),
            |h| format!("hand {h}"),
        );
        let findings: Vec<String> = r["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| {
                format!(
                    "{}: {}",
                    f["code"].as_str().unwrap_or(""),
                    f["message"].as_str().unwrap_or("")
                )
            })
            .collect();
        t.flagged
            .push((label, state.to_string(), findings.join(" | ")));
    }
    t
}

/// Whether every table was read and every hand agrees.
pub fn all_agree(tables: &[Table]) -> bool {
    tables
        .iter()
        .all(|t| t.error.is_none() && t.disagree == 0 && t.unsure == 0)
}

/// `summary.json`.
pub fn to_json(tables: &[Table]) -> Value {
    json!({
        "tables": tables.len(),
        "hands": tables.iter().map(|t| t.hands).sum::<u64>(),
        "disagree": tables.iter().map(|t| t.disagree).sum::<u64>(),
        "unsure": tables.iter().map(|t| t.unsure).sum::<u64>(),
        "unreadable": tables.iter().filter(|t| t.error.is_some()).count(),
        "per_table": tables.iter().map(|t| json!({
            "dir": t.dir.display().to_string(),
            "players": t.players,
            "hands": t.hands,
            "disagree": t.disagree,
            "unsure": t.unsure,
            "notes": t.notes,
            "error": t.error,
            "flagged": t.flagged.iter().map(|(h, s, f)| json!({"hand": h, "state": s, "findings": f})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// `summary.csv`: a line per flagged hand, and a line per table with nothing flagged.
pub fn to_csv(tables: &[Table]) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["table", "players", "hand", "state", "findings"])?;
    for t in tables {
        let dir = t.dir.display().to_string();
        let players = t.players.join(" ");
        if let Some(e) = &t.error {
            w.write_record([dir.as_str(), "", "", "unreadable", e.as_str()])?;
        } else if t.flagged.is_empty() {
            let all = match t.hands {
                1 => "the hand agrees".to_string(),
                n => format!("all {n} hands agree"),
            };
            w.write_record([dir.as_str(), &players, "", "agrees", &all])?;
        }
        for (h, s, f) in &t.flagged {
            w.write_record([dir.as_str(), &players, h, s, f])?;
        }
    }
    w.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}

/// `index.html`: a line per table linking to its `report.html` (as written, relative to
/// where the summary is written when it can be), then the flagged hands.
pub fn to_html(tables: &[Table], out: &Path) -> String {
    let mut h = String::from(
        "<!doctype html><html lang=\"zh\"><head><meta charset=\"utf-8\"><title>suanfan tournament audit</title><style>body{font-family:system-ui,'Noto Sans CJK SC',sans-serif;margin:2em;background:#f4f1ea}table{border-collapse:collapse;background:#fff}td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}.bad{color:#c0392b}.unsure{color:#a67c00}</style></head><body><h1>Tournament audit</h1>",
    );
    let _ = write!(
        h,
        "<p><b>{}, {}, {}, {} could not be confirmed, {} unreadable</b></p>",
        count(tables.len() as u64, "table"),
        count(tables.iter().map(|t| t.hands).sum::<u64>(), "hand"),
        count_verb(tables.iter().map(|t| t.disagree).sum::<u64>(), "disagree"),
        tables.iter().map(|t| t.unsure).sum::<u64>(),
        count(
            tables.iter().filter(|t| t.error.is_some()).count() as u64,
            "table"
        )
    );
    h.push_str("<table><tr><th>table</th><th>players</th><th>hands</th><th>disagree</th><th>unsure</th><th>notes</th></tr>");
    for t in tables {
        let link = relative(out, &t.dir.join("report.html"));
        let notes = t.error.clone().unwrap_or_else(|| t.notes.join("; "));
        let _ = write!(
            h,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td class=\"bad\">{}</td><td class=\"unsure\">{}</td><td>{}</td></tr>",
            esc(&link),
            esc(&t.dir.display().to_string()),
            esc(&t.players.join(", ")),
            t.hands,
            t.disagree,
            t.unsure,
            esc(&notes)
        );
    }
    h.push_str("</table><h2>Hands to look at</h2><table><tr><th>table</th><th>hand</th><th>verdict</th><th>findings</th></tr>");
    for t in tables {
        for (hand, state, f) in &t.flagged {
            let class = if state == "unsure" { "unsure" } else { "bad" };
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td class=\"{class}\">{}</td><td>{}</td></tr>",
                esc(&t.dir.display().to_string()),
                esc(hand),
                esc(state),
                esc(f)
            );
        }
    }
    h.push_str("</table></body></html>\n");
    h
}

/// `to` as a path relative to the folder `from`, when both can be resolved; else `to` whole.
fn relative(from: &Path, to: &Path) -> String {
    let (Ok(a), Some(b)) = (
        from.canonicalize(),
        to.parent().and_then(|p| p.canonicalize().ok()),
    ) else {
        return to.display().to_string();
    };
    let common = a
        .components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .count();
    let mut rel = PathBuf::new();
    for _ in common..a.components().count() {
        rel.push("..");
    }
    for c in b.components().skip(common) {
        rel.push(c);
    }
    if let Some(name) = to.file_name() {
        rel.push(name);
    }
    rel.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(dir: &Path, disagree: u64) {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
        let v = json!({
            "players": ["A", "B", "C", "D"], "hands": 2, "disagree": disagree, "unsure": 0,
            "notes": [],
            "verdicts": [
                {"line": 4, "hand": 1, "state": "agrees", "findings": []},
                {"line": 5, "hand": 2, "state": if disagree > 0 { "disagrees" } else { "agrees" },
                 "findings": if disagree > 0 { json!([{"code": "payment", "message": "for 8 points…"}]) } else { json!([]) }},
            ],
        });
        std::fs::write(dir.join("audit.json"), v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn tables_are_merged_and_a_failed_job_is_a_line_of_its_own() {
        let root = std::env::temp_dir().join(format!("suanfan-merge-{}", std::process::id()));
        job(&root.join("t1"), 0);
        job(&root.join("t2"), 1);
        std::fs::create_dir_all(root.join("t3")).unwrap_or_else(|e| panic!("{e}"));
        let tables: Vec<Table> = ["t1", "t2", "t3"]
            .iter()
            .map(|t| read_table(&root.join(t)))
            .collect();
        assert!(!all_agree(&tables));
        let v = to_json(&tables);
        assert_eq!(v["hands"], 4);
        assert_eq!(v["disagree"], 1);
        assert_eq!(v["unreadable"], 1);
        assert_eq!(tables[1].flagged.len(), 1);
        assert!(tables[1].flagged[0].2.contains("payment"));
        assert!(
            tables[2]
                .error
                .as_deref()
                .is_some_and(|e| e.contains("audit.json"))
        );
        let csv = String::from_utf8(to_csv(&tables).unwrap_or_default()).unwrap_or_default();
        assert_eq!(csv.lines().count(), 4, "{csv}");
        let out = root.join("summary");
        std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
        let html = to_html(&tables, &out);
        assert!(html.contains("href=\"../t2/report.html\""), "{html}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn every_table_agreeing_is_all_agree() {
        let root = std::env::temp_dir().join(format!("suanfan-merge-ok-{}", std::process::id()));
        job(&root.join("t1"), 0);
        let tables = vec![read_table(&root.join("t1"))];
        assert!(all_agree(&tables));
        let _ = std::fs::remove_dir_all(&root);
    }
}

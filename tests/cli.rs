//! The real `suanfan` binary: outputs, exit codes, and one-line messages on bad input.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn suanfan(args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_suanfan"));
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start suanfan: {e}"));
    if let Some(mut input) = child.stdin.take()
        && let Some(text) = stdin
    {
        input
            .write_all(text.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn score_prints_a_table_a_player_can_read() {
    let o = suanfan(
        &[
            "score",
            "[123m,1][456m,1]789m1mEEE1m",
            "--self-drawn",
            "--flowers",
            "2",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for needle in [
        "清龙 Pure Straight",
        "混一色 Half Flush",
        "圈风刻",
        "自摸",
        "花牌",
        "total",
        "Rules    mil",
        "🀇",
    ] {
        assert!(out.contains(needle), "missing {needle} in\n{out}");
    }
    assert!(out.contains("30  total"), "{out}");
}

#[test]
fn score_json_has_the_corpus_fields() {
    let o = suanfan(
        &[
            "score",
            "111m222p333sEEE5p5p",
            "--self-drawn",
            "--format",
            "json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["ok"], true);
    assert_eq!(v["rules"], "mil");
    assert!(v["total"].as_u64().is_some_and(|t| t > 64));
    assert!(v["not_counted"].as_array().is_some_and(|a| !a.is_empty()));
    assert_eq!(v["fans"][0]["name"], "四暗刻");
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_problem() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["score", "123m0m456p789s11sE"],
            "position 5: '0m' is not a tile",
        ),
        (&["score", "11111m456p789s11sE"], "5 copies of 1m"),
        (&["score", "123m456p789s11sE"], "wrong number of tiles"),
        (&["score", "123m456p789s11sEEEE"], "wrong number of tiles"),
        (&["score", "123m456p789s11sESN"], "not a winning hand"),
        (
            &[
                "score",
                "[123m,1][456p,1][789s,1]23s99m1s",
                "--kong",
                "--self-drawn",
                "--rules",
                "wmo2006",
            ],
            "impossible",
        ),
        (&["score", "[12m,1]"], "a meld has 3 or 4 tiles"),
        (&["score", "[124m,1]5m"], "neither a chow nor a pung"),
        (&["waits", "123m456p789s11s"], "13 tiles"),
    ];
    for (args, needle) in cases {
        let o = suanfan(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn batch_answers_every_line_in_the_corpus_shape() {
    let good = r#"{"hand": {"id": 7, "melds": [], "concealed": ["2m","2m","3m","3m","2p","2p","2p","6p","7p","8p","2s","3s","4s"], "win_tile": "3m", "self_drawn": false, "last_tile": false, "kong_related": false, "fourth_tile": false, "seat_wind": "W", "prevalent_wind": "W", "flowers": 0}}"#;
    let bad = r#"{"hand": {"melds": [], "concealed": ["2m"], "win_tile": "3m"}}"#;
    let o = suanfan(
        &["score", "--batch"],
        Some(&format!("{good}\nnot json\n{bad}\n")),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_default())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["ok"], true);
    assert_eq!(lines[0]["id"], 7);
    assert_eq!(lines[0]["total"], 4);
    assert_eq!(lines[0]["meets_8"], false);
    assert_eq!(lines[0]["fans"][0]["name_en"], "Concealed Hand");
    assert_eq!(lines[1]["ok"], false);
    assert_eq!(lines[2]["ok"], false);
    assert!(
        lines[2]["error"]
            .as_str()
            .is_some_and(|e| e.contains("wrong number of tiles"))
    );
}

#[test]
fn waits_lists_tiles_and_scores() {
    let o = suanfan(&["waits", "[123m,1]456p789s23s99m"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Waits on 2 tile(s)"), "{out}");
    assert!(out.contains("1s") && out.contains("4s"), "{out}");
    let o = suanfan(
        &["waits", "[123m,1]456p789s24s9m9p", "--format", "json"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    assert_eq!(v["waits"].as_array().map(Vec::len), Some(0));
    let o = suanfan(&["waits", "[123m,1]456p789s24s9m9p"], None);
    assert!(stdout(&o).contains("Waits on nothing"));
}

#[test]
fn help_and_version_exit_0() {
    assert!(suanfan(&["--help"], None).status.success());
    assert!(suanfan(&["score", "--help"], None).status.success());
    assert!(suanfan(&["--version"], None).status.success());
}

fn suanfan_bytes(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_suanfan"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Every input line gets exactly one answer line, in order: bad UTF-8, blank lines and over-long
/// lines included (a bad UTF-8 line used to stop the run; blank lines got no answer).
#[test]
fn batch_answers_every_line_whatever_it_holds() {
    let good = r#"{"id":1,"hand":{"melds":[],"concealed":["1m","2m","3m","4p","5p","6p","7s","8s","9s","E","E","E","C"],"win_tile":"C"}}"#;
    let mut input = Vec::new();
    input.extend_from_slice(good.as_bytes());
    input.extend_from_slice(b"\n\n   \n\xff\xfe{\"id\":2}\n");
    input.extend_from_slice(br#"{"id":"x","hand":42}"#);
    input.extend_from_slice(b"\n");
    input.extend(std::iter::repeat_n(b'a', 3 << 20));
    input.extend_from_slice(b"\n");
    input.extend_from_slice(good.as_bytes());
    let o = suanfan_bytes(&["score", "--batch"], &input);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 7, "{}", stdout(&o));
    assert_eq!(lines[0]["id"], 1);
    for (k, why) in [
        (1, "empty line"),
        (2, "empty line"),
        (3, "not valid UTF-8"),
        (5, "longer than"),
    ] {
        assert_eq!(lines[k]["ok"], false);
        let e = lines[k]["error"].as_str().unwrap();
        assert!(
            e.contains(why) && e.contains(&format!("line {}", k + 1)),
            "{e}"
        );
    }
    // An error answer carries the line's id when it has one.
    assert_eq!(lines[4]["id"], "x");
    assert_eq!(lines[6]["id"], 1);
    assert_eq!(lines[6]["total"], lines[0]["total"]);
}

/// `| head -1` closes the pipe early: a quiet exit 0, not "Broken pipe" and exit 1.
#[test]
fn batch_into_a_closed_pipe_exits_quietly() {
    let good = r#"{"hand":{"melds":[],"concealed":["1m","2m","3m","4p","5p","6p","7s","8s","9s","E","E","E","C"],"win_tile":"C"}}"#;
    let input = format!("{good}\n").repeat(200_000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_suanfan"))
        .args(["score", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn waits_refuses_self_drawn_and_honours_the_fourth_tile_per_wait() {
    let o = suanfan(&["waits", "[123m,1]456p789s23s99m", "--self-drawn"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("both on a discard and self-drawn"),
        "{}",
        stderr(&o)
    );
    for rules in ["mil", "wmo2006", "china1998", "elementary"] {
        let o = suanfan(
            &[
                "waits",
                "[123m,1]456p789s23s99m",
                "--fourth",
                "--rules",
                rules,
            ],
            None,
        );
        assert!(o.status.success(), "{rules}: {}", stderr(&o));
        assert!(stdout(&o).contains("和绝张"), "{rules}: {}", stdout(&o));
    }
}

#[test]
fn score_refuses_extra_and_empty_suffix_sections_and_too_many_flowers() {
    for bad in [
        "[123m,1]456p789s23s99m1s|ES1000|2|3",
        "[123m,1]456p789s23s99m1s|||||",
    ] {
        let o = suanfan(&["score", bad], None);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert_eq!(stderr(&o).lines().count(), 1, "{bad}: {}", stderr(&o));
    }
    let o = suanfan(
        &["score", "[123m,1]456p789s23s99m1s", "--flowers", "300"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("0..=8"), "{}", stderr(&o));
}

/// Property: whatever bytes come in, `score --batch` answers each line once, in order, with
/// valid JSON (random lines of JSON pieces, notation, control bytes, invalid UTF-8, CRs).
#[test]
fn batch_answers_each_of_many_random_lines_once() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let pieces: [&[u8]; 14] = [
        br#"{"hand":"#,
        br#"{"id":3,"hand":{"concealed":["1m","2m"],"win_tile":"3m"}}"#,
        br#""concealed":["#,
        b"\"1m\",",
        b"]}",
        b"\xff",
        b"\xe4\xb8",
        b"\r",
        b"\x1b[31m",
        b" ",
        b"null",
        b"[123m,1]",
        b"{}",
        b"\"win_tile\":\"9p\"",
    ];
    let lines = 3000;
    let mut input = Vec::new();
    for _ in 0..lines {
        for _ in 0..(next() % 6) {
            input.extend_from_slice(pieces[(next() % pieces.len() as u64) as usize]);
        }
        input.push(b'\n');
    }
    let o = suanfan_bytes(&["score", "--batch"], &input);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), lines);
    for (k, l) in out.lines().enumerate() {
        let v: serde_json::Value =
            serde_json::from_str(l).unwrap_or_else(|e| panic!("line {k}: {e}: {l}"));
        assert!(v["ok"].is_boolean(), "{l}");
    }
}

/// `audit` on the template (agrees: exit 0) and on a sheet with planted mistakes (exit 1,
/// every row reported, the three report files written); a sheet it cannot read exits 2.
#[test]
fn audit_checks_every_row_and_writes_its_reports() {
    let root = env!("CARGO_MANIFEST_DIR");
    let template = format!("{root}/datasets/score-sheet-template.csv");
    let o = suanfan(&["audit", &template], None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("3 hands, 3 agree, 0 disagree"));

    let planted = format!("{root}/tests/fixtures/sheets/planted.csv");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("audit-planted");
    let _ = std::fs::remove_dir_all(&dir);
    let o = suanfan(
        &[
            "audit",
            &planted,
            "--format",
            "json",
            "--out",
            dir.to_str().unwrap_or(""),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    let verdicts: Vec<&str> = v["verdicts"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["verdict"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        verdicts,
        [
            "total_differs",
            "payment",
            "below_minimum",
            "winds",
            "hand_twice",
            "draw_with_points",
            "bad_row",
            "running_total"
        ]
    );
    for f in ["audit.csv", "audit.json", "report.html"] {
        let len = std::fs::metadata(dir.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 100, "{f}: {len} bytes");
    }

    let bad = dir.join("no-players.csv");
    std::fs::write(&bad, "hand,result\n1,draw\n").unwrap_or_default();
    let o = suanfan(&["audit", bad.to_str().unwrap_or("")], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("# players"), "{}", stderr(&o));
}

/// `merge-audits` over three audit jobs' folders: the template's (agrees), the planted
/// sheet's, and one whose job left nothing: every table is a line, exit code 1.
#[test]
fn merge_audits_sums_the_tables_and_names_a_failed_job() {
    let root = env!("CARGO_MANIFEST_DIR");
    let base = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("merge-audits");
    let _ = std::fs::remove_dir_all(&base);
    let jobs = [
        ("t1", format!("{root}/datasets/score-sheet-template.csv")),
        ("t2", format!("{root}/tests/fixtures/sheets/planted.csv")),
    ];
    for (name, sheet) in &jobs {
        let out = base.join(name);
        suanfan(&["audit", sheet, "--out", out.to_str().unwrap_or("")], None);
    }
    let (t1, t2, t3, summary) = (
        base.join("t1"),
        base.join("t2"),
        base.join("t3"),
        base.join("summary"),
    );
    let arg = |p: &std::path::Path| p.to_str().unwrap_or("").to_string();
    let o = suanfan(
        &[
            "merge-audits",
            &arg(&t1),
            &arg(&t2),
            &arg(&t3),
            "--out",
            &arg(&summary),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = std::fs::read_to_string(summary.join("summary.json")).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    assert_eq!(v["tables"], 3);
    assert_eq!(v["hands"], 11, "{v:#}");
    assert_eq!(v["disagree"], 8);
    assert_eq!(v["unreadable"], 1);
    let html = std::fs::read_to_string(summary.join("index.html")).unwrap_or_default();
    assert!(html.contains("href=\"../t2/report.html\""), "{html}");
    let o = suanfan(&["merge-audits", &arg(&t1), "--out", &arg(&summary)], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

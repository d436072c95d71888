use super::*;

/// A sheet with the template's header, and `rows` after the header row.
fn sheet(rows: &str) -> Sheet {
    let text = format!(
        "# players: A, B, C, D\n# rules: mil\nhand,prevalent,result,winner,from,total,flowers,fans,notation,A,B,C,D,penalties,A total,B total,C total,D total\n{rows}"
    );
    sheet::read(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn codes(a: &Audit) -> Vec<Vec<&'static str>> {
    a.verdicts
        .iter()
        .map(|v| v.findings.iter().map(|f| f.code).collect())
        .collect()
}

#[test]
fn a_right_sheet_agrees() {
    let s = sheet(
        "1,E,win,A,C,14,0,花龙;圈风刻;门风刻;门前清,123m456p11789sEEE,38,-8,-22,-8,,38,-8,-22,-8\n\
         2,E,draw,,,,,,,0,0,0,0,,38,-8,-22,-8\n\
         3,E,win,B,self,9,1,,,-17,51,-17,-17,D:-10,21,43,-39,-35\n",
    );
    let a = audit(&s);
    assert_eq!(codes(&a), vec![Vec::<&str>::new(); 3]);
    assert_eq!(a.disagreements(), 0);
}

#[test]
fn every_planted_mistake_is_found() {
    let s = sheet(
        // 1: the total misses 门前清 (12 claimed, 14 right); payments follow the claim.
        "1,E,win,A,C,12,0,花龙;圈风刻;门风刻,123m456p11789sEEE,36,-8,-20,-8,,,,,\n\
         2,E,win,B,A,10,0,,,-10,26,-8,-8,,,,,\n\
         3,E,win,C,self,6,0,,,-14,-14,42,-14,,,,,\n\
         4,S,win,D,B,10,0,,,-8,-18,-8,35,,,,,\n\
         4,E,win,D,D,10,0,,,0,0,0,0,,,,,\n\
         6,S,draw,,,,,,,0,5,0,-5,,,,,\n\
         7,S,win,X,A,ten,0,,,0,0,0,0,A:+5,,,,\n\
         8,S,win,A,B,16,0,,,40,-24,-8,-8,,10,10,10,10\n",
    );
    let a = audit(&s);
    let c = codes(&a);
    assert_eq!(c[0], vec!["total_differs"], "{:?}", a.verdicts[0].findings);
    assert!(a.verdicts[0].findings[0].message.contains("门前清"));
    assert_eq!(c[1], vec!["payment"]);
    assert_eq!(c[2], vec!["below_minimum"]);
    assert_eq!(c[3], vec!["winds", "payment", "not_zero_sum"]);
    assert_eq!(c[4], vec!["hand_twice", "winner_is_discarder"]);
    assert_eq!(c[5], vec!["draw_with_points"]);
    assert!(
        c[6].contains(&"bad_row") && c[6].contains(&"penalty"),
        "{:?}",
        c[6]
    );
    assert_eq!(c[7], vec!["running_total"]);
    assert_eq!(a.notes, vec!["hands not on the sheet: 5".to_string()]);
    assert_eq!(a.disagreements(), 8);
}

#[test]
fn seat_winds_follow_the_hand_number_and_seat_changes() {
    let s = sheet::read(
        "# players: A, B, C, D\n# seats round 2: B, A, D, C\nhand,result,A,B,C,D\n1,draw,0,0,0,0\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    use crate::tile::Wind::{East as E, North as N, South as S, West as W};
    assert_eq!(winds_of(&s.header, 1), (E, [E, S, W, N]));
    // Hand 2: the dealer moves to B.
    assert_eq!(winds_of(&s.header, 2), (E, [N, E, S, W]));
    // Hand 5: the South round starts with B East, A South, D West, C North.
    assert_eq!(winds_of(&s.header, 5), (S, [S, E, N, W]));
    // Rounds 3 and 4 keep the seats of round 2; hand 16: the dealer is C.
    assert_eq!(winds_of(&s.header, 16), (N, [W, S, E, N]));
}

#[test]
fn the_seat_wind_decides_the_score() {
    // Hand 2: A sits North, so EEE scores 圈风刻 but not 门风刻: 12 points, not 14.
    let s = sheet("2,E,win,A,C,12,0,,123m456p11789sEEE,36,-8,-20,-8,,,,,\n");
    let a = audit(&s);
    assert_eq!(
        codes(&a),
        vec![Vec::<&str>::new()],
        "{:?}",
        a.verdicts[0].findings
    );
    assert_eq!(a.verdicts[0].ours.as_ref().map(|o| o.total), Some(12));
}

#[test]
fn sheets_without_players_or_columns_are_refused_with_a_reason() {
    let e = sheet::read("hand,result\n1,draw\n").err();
    assert!(e.is_some_and(|e| e.0.contains("# players")));
    let e = sheet::read("# players: A, B, C, D\nhand,result,A,B,C\n").err();
    assert!(e.is_some_and(|e| e.0.contains("'D'")));
    let e = sheet::read("# players: A, B, C, D\n# rules: riichi\nhand,result,A,B,C,D\n").err();
    assert!(e.is_some_and(|e| e.0.contains("riichi")));
}

#[test]
fn the_template_sheet_agrees() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datasets/score-sheet-template.csv"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
    let a = audit(&sheet::read(&text).unwrap_or_else(|e| panic!("{e}")));
    assert_eq!(a.disagreements(), 0, "{}", report::to_text(&a));
    assert_eq!(a.verdicts[0].row.time, Some(250.0));
}

#[test]
fn reports_have_every_row() {
    let s = sheet("1,E,win,A,C,12,0,,123m456p11789sEEE,36,-8,-20,-8,,,,,\nx,,,,,,,,,,,,,\n");
    let a = audit(&s);
    let html = report::to_html(&a);
    assert!(html.contains("hand 1") && html.contains("line 5") && html.contains("disagrees"));
    assert!(!html.contains("<script"));
    let csv = String::from_utf8(report::to_csv(&a).unwrap_or_default()).unwrap_or_default();
    assert_eq!(csv.lines().count(), 3);
    let json = report::to_json(&a);
    assert_eq!(json["verdicts"].as_array().map(Vec::len), Some(2));
}

/// The elements of an HTML page in order, one per line: the tag, its class and id (text
/// and styles left out), indented by depth.
fn structure(html: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let attr = |tag: &str, name: &str| {
        tag.split(&format!("{name}=\""))
            .nth(1)
            .and_then(|r| r.split('"').next())
            .map(String::from)
    };
    for piece in html.split('<').skip(1) {
        let tag = piece.split('>').next().unwrap_or("");
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '!')
            .collect();
        if tag.starts_with('/') {
            depth = depth.saturating_sub(1);
            continue;
        }
        let mut line = format!("{}{name}", "  ".repeat(depth));
        if let Some(c) = attr(tag, "class") {
            line.push_str(&format!(".{}", c.replace(' ', ".")));
        }
        if let Some(i) = attr(tag, "id") {
            line.push_str(&format!("#{i}"));
        }
        out.push_str(&line);
        out.push('\n');
        let void = matches!(name.as_str(), "!doctype" | "meta" | "img" | "br");
        if !void {
            depth += 1;
        }
    }
    out
}

/// The HTML report of the planted sheet keeps its structure: summary, index, a card per
/// hand. A change shows as a diff; `SUANFAN_UPDATE_SNAPSHOTS=1` rewrites the snapshot after
/// a change that is meant.
#[test]
fn the_html_report_keeps_its_structure() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sheets");
    let text =
        std::fs::read_to_string(format!("{dir}/planted.csv")).unwrap_or_else(|e| panic!("{e}"));
    let a = audit(&sheet::read(&text).unwrap_or_else(|e| panic!("{e}")));
    let got = structure(&report::to_html(&a));
    let path = format!("{dir}/planted-report.structure");
    if std::env::var_os("SUANFAN_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &got).unwrap_or_else(|e| panic!("{e}"));
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (SUANFAN_UPDATE_SNAPSHOTS=1 writes it)"));
    if got != want {
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(g, w)| g != w)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "report.html's structure changed at element {}: got {:?}, snapshot {:?}",
            first + 1,
            got.lines().nth(first),
            want.lines().nth(first)
        );
    }
}

#[test]
fn counts_are_written_as_english_says_them() {
    assert_eq!(count(1, "hand"), "1 hand");
    assert_eq!(count(0, "win"), "0 wins");
    assert_eq!(count(3, "winning hand"), "3 winning hands");
    assert_eq!(count_verb(1, "agree"), "1 agrees");
    assert_eq!(count_verb(2, "disagree"), "2 disagree");
}

/// A hand read at `at` seconds of a recording, from a photo of a folder (`photo`) or a video.
fn moment(notation_text: &str, at: f64, photo: bool) -> Arc<recording::Moment> {
    let rules = RuleSet::default();
    let outcome = crate::scan::finish(
        String::new(),
        Vec::new(),
        &crate::scan::Given::default(),
        &rules,
        0.0,
        0.0,
        std::time::Instant::now(),
    );
    Arc::new(recording::Moment {
        recording: "table".to_string(),
        seconds: at,
        at,
        hand: notation::parse(notation_text).unwrap().hand,
        flowers: 0,
        confidence: 0.99,
        frames: 1,
        photo,
        outcome,
        frame: Arc::new(image::RgbImage::new(1, 1)),
    })
}

#[test]
fn photos_of_a_folder_are_matched_whatever_time_the_sheet_gives() {
    // Two wins timed by the clock of the match; a folder's photos count as 0 s and 0.5 s.
    let text = "# players: A, B, C, D\n# rules: mil\nhand,result,winner,from,total,A,B,C,D,time\n\
                1,win,A,C,14,38,-8,-22,-8,0:04:10\n\
                2,win,B,self,75,-83,249,-83,-83,0:09:55\n";
    let s = sheet::read(text).unwrap();
    let hands = ["123m456p11789sEEE", "111m222p333s444sEE"];
    let read = |photo: bool| recording::Recording {
        name: "table".to_string(),
        moments: vec![moment(hands[0], 0.0, photo), moment(hands[1], 0.5, photo)],
        ..recording::Recording::default()
    };
    let found = |a: &Audit| {
        a.verdicts
            .iter()
            .map(|v| v.seen.as_ref().map(|m| notation::format_hand(&m.hand)))
            .collect::<Vec<_>>()
    };
    let photos = audit_recorded(&s, Some(&[read(true)]));
    assert_eq!(
        codes(&photos),
        vec![Vec::<&str>::new(); 2],
        "{:?}",
        photos.verdicts
    );
    assert!(found(&photos).iter().all(Option::is_some));
    // From a video the times are the match's: 4 and 10 minutes in, nothing was shown.
    let video = audit_recorded(&s, Some(&[read(false)]));
    assert_eq!(codes(&video), vec![vec!["hand_not_found"]; 2]);
}

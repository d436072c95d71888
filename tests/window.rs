//! The `live` window's side panel, headless through AccessKit (`egui_kittest`): the fans of a
//! hand are shown, the circumstances rescore it, and a tile corrected by a click changes the
//! score. Uses recorded detections (no ONNX Runtime, no display).

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use suanfan::gui::panel::Panel;

fn panel_with(fixture: &str) -> Panel {
    let path = format!(
        "{}/tests/fixtures/{fixture}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let fx: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let dets = suanfan::json::detections_from_json(&fx["detections"]).unwrap();
    let mut p = Panel::default();
    p.set_hand(dets);
    p
}

fn harness(panel: Panel) -> Harness<'static, Panel> {
    // Chinese is drawn with a system font where one is installed; without one, as boxes
    // (the labels the tests read are the same either way).
    let mut h = Harness::builder()
        .with_size(egui::vec2(700.0, 900.0))
        .allow_missing_glyphs()
        .build_ui_state(|ui, p: &mut Panel| p.ui(ui), panel);
    suanfan::gui::install_cjk_font(&h.ctx);
    h.run();
    h
}

fn total(h: &Harness<'_, Panel>) -> u32 {
    h.state()
        .outcome
        .as_ref()
        .and_then(|o| o.score.as_ref())
        .map_or(0, |s| s.total)
}

#[test]
fn the_panel_shows_the_fans_of_the_hand() {
    let h = harness(panel_with("concealed_winning_apart"));
    assert_eq!(total(&h), 14);
    h.get_by_label("花龙");
    h.get_by_label("Mixed Straight");
    h.get_by_label("Total 14");
    h.get_by_label("Minimum of 8 met");
}

#[test]
fn circumstances_rescore_at_once() {
    let mut h = harness(panel_with("concealed_winning_apart"));
    h.get_by_label("Self-drawn").click();
    h.run();
    // 自摸 and 不求人 instead of 门前清: 14 - 2 + 4.
    assert_eq!(total(&h), 16);
    h.get_by_label("Total 16");
    h.get_by_label("不求人");
    h.get_by_label("中文").click();
    h.run();
    h.get_by_label("合计 16");
}

#[test]
fn a_tile_corrected_by_a_click_changes_the_score() {
    let mut h = harness(panel_with("concealed_winning_apart"));
    let before = total(&h);
    // The first 1m of the hand: read 1m, corrected to 7m (no longer a 花龙).
    h.get_all_by_label("1m").next().unwrap().click();
    h.run();
    h.get_by_label("any face").click();
    h.run();
    h.get_by_label("7m").click();
    h.run();
    let after = h.state().outcome.as_ref().map(|o| o.score.is_some());
    assert!(
        after == Some(false) || total(&h) != before,
        "total stayed {before}"
    );
    assert!(h.query_by_label("花龙").is_none(), "花龙 still shown");
}

/// One real window: `suanfan live none` under Xvfb (Mesa's software OpenGL) opens, draws and
/// stays up until it is closed; a screenshot of the screen is not blank.
#[test]
#[cfg_attr(no_xvfb, ignore = "Xvfb is not installed")]
fn the_window_opens_under_xvfb() {
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let display = ":87";
    let mut xvfb = Command::new("Xvfb")
        .args([display, "-screen", "0", "1280x800x24"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let mut window = Command::new(env!("CARGO_BIN_EXE_suanfan"))
        .args(["live", "none"])
        .env("DISPLAY", display)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(5));
    let alive = window.try_wait().unwrap().is_none();
    let shot = std::env::temp_dir().join("suanfan-window-test.xwd");
    let grabbed = Command::new("xwd")
        .args(["-root", "-display", display, "-out", shot.to_str().unwrap()])
        .status()
        .map(|s| s.success());
    let _ = window.kill();
    let out = window.wait_with_output().unwrap();
    let _ = xvfb.kill();
    let _ = xvfb.wait();
    assert!(
        alive,
        "the window closed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if grabbed.unwrap_or(false) {
        // An XWD dump: the pixels after the header must not all be one value.
        let bytes = std::fs::read(&shot).unwrap();
        let tail = &bytes[bytes.len() / 2..];
        assert!(tail.iter().any(|&b| b != tail[0]), "the screen is blank");
    }
}

/// "Next hand" writes the hand to the session log in the score-sheet format, with the winds
/// of the hand number, and `audit` agrees with the row.
#[test]
fn next_hand_keeps_the_hand_in_a_sheet_that_audit_reads() {
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("session-log.csv");
    let _ = std::fs::remove_file(&path);
    let players = ["甲", "乙", "丙", "丁"].map(String::from);
    let mut panel = panel_with("concealed_winning_apart");
    panel.session =
        Some(suanfan::gui::session::Session::create(&path, players, &Default::default()).unwrap());
    panel.rescore();
    let mut h = harness(panel);
    // Hand 1, 甲 (East) wins on 乙's discard: 14 points, as in the first test.
    assert_eq!(total(&h), 14);
    h.get_by_label("Next hand").click();
    h.run();
    assert!(h.state().outcome.is_none());
    assert_eq!(h.state().session.as_ref().map(|s| s.hand_number), Some(2));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("# players: 甲, 乙, 丙, 丁"), "{text}");
    let sheet = suanfan::audit::sheet::read(&text).unwrap();
    let audit = suanfan::audit::audit(&sheet);
    assert_eq!(audit.verdicts.len(), 1);
    assert!(
        audit.verdicts[0].agrees(),
        "{}",
        suanfan::audit::report::to_text(&audit)
    );
    assert_eq!(audit.verdicts[0].row.changes, [38, -22, -8, -8]);
}

/// The total of the hand built in the calculator (it must score).
fn calculator_total(h: &Harness<'_, Panel>) -> u32 {
    let result = h.state().calculator.result.as_ref().unwrap();
    result.as_ref().unwrap().total
}

#[test]
fn a_hand_built_from_the_palette_is_scored_without_a_picture() {
    let mut h = harness(Panel::default());
    h.get_by_label("No hand yet.");
    // Open from the start when there is no picture.
    for code in [
        "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "5p",
    ] {
        h.get_by_label(code).click();
        h.run();
    }
    // Thirteen tiles: not a hand yet, and the panel says why.
    assert!(h.state().calculator.result.as_ref().unwrap().is_err());
    h.get_by_label("5p").click();
    h.run();
    assert_eq!(h.state().calculator.text, "1m2m3m4m5m6m7m8m9m1p2p3p5p5p");
    let total = calculator_total(&h);
    h.get_by_label("Pure Straight");
    h.get_by_label(&format!("Total {total}"));
    // The circumstances apply to the built hand too.
    h.get_by_label("Self-drawn").click();
    h.run();
    let after = calculator_total(&h);
    assert!(after > total, "self-drawn: {total} → {after}");
    // The edit buttons: one tile back, then nothing.
    h.get_by_label("Back").click();
    h.run();
    assert_eq!(h.state().calculator.text, "1m2m3m4m5m6m7m8m9m1p2p3p5p");
    h.get_by_label("Clear").click();
    h.run();
    assert!(h.state().calculator.result.is_none());
}

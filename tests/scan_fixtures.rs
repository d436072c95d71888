//! Recorded detections (tests/fixtures, written by tools/make_fixtures.py) through `layout`
//! and `decode` (as `scan` runs them, with `read_and_decode`), without ONNX Runtime: every meld situation the rules describe, a misread tile
//! corrected, and impossible tables.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::collapsible_if
)]

mod common;

use std::path::PathBuf;

use common::canonical;
use serde_json::Value;
use suanfan::json::detections_from_json;
use suanfan::notation;
use suanfan::scoring::RuleSet;
use suanfan::table::decode::decode;
use suanfan::table::layout::{self, GroupKind};
use suanfan::table::read_and_decode;

fn fixtures() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut v: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                serde_json::from_str(&text).unwrap(),
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

#[test]
fn every_fixture_reads_as_expected() {
    let all = fixtures();
    assert!(
        all.len() >= 10,
        "fixtures missing: run python tools/make_fixtures.py"
    );
    let mut failures = Vec::new();
    for (name, fx) in &all {
        let dets = detections_from_json(&fx["detections"]).unwrap();
        let (reading, decoded, note) = read_and_decode(&dets, &RuleSet::default());
        let expect = &fx["expect"];
        let summary = format!(
            "{name}: groups {:?}, assumed {:?}, issues {:?} {:?}, hand {:?}",
            reading
                .groups
                .iter()
                .map(|g| g.kind.name())
                .collect::<Vec<_>>(),
            reading.assumed,
            reading.issues,
            decoded.issues,
            decoded.hand.as_ref().map(notation::format_hand)
        );
        match expect["hand"].as_str() {
            Some(h) => {
                let want = notation::parse(h).unwrap().hand;
                match &decoded.hand {
                    Some(got) if canonical(got) == canonical(&want) => {}
                    _ => failures.push(format!("{summary}: want {h}")),
                }
            }
            None => {
                if decoded.hand.is_some() {
                    failures.push(format!("{summary}: want no hand"));
                }
                if let Some(needle) = expect["issue_contains"].as_str() {
                    if !decoded
                        .issues
                        .iter()
                        .chain(&reading.issues)
                        .any(|i| i.contains(needle))
                    {
                        failures.push(format!("{summary}: want an issue with '{needle}'"));
                    }
                }
            }
        }
        if let Some(groups) = expect["groups"].as_array() {
            let mut want: Vec<&str> = groups.iter().filter_map(Value::as_str).collect();
            let mut got: Vec<&str> = reading.groups.iter().map(|g| g.kind.name()).collect();
            want.sort_unstable();
            got.sort_unstable();
            if want != got {
                failures.push(format!("{summary}: want groups {want:?}"));
            }
        }
        if let Some(n) = expect["flowers"].as_u64() {
            if u64::from(decoded.flowers) != n {
                failures.push(format!(
                    "{summary}: want {n} flowers, got {}",
                    decoded.flowers
                ));
            }
        }
        if let Some(n) = expect["changes"].as_u64() {
            if decoded.changes.len() as u64 != n {
                failures.push(format!(
                    "{summary}: want {n} corrected tiles, got {:?}",
                    decoded.changes
                ));
            }
        }
        // A tile is never read as a face the model gives less than 1%, whatever the layout.
        if let Some(c) = decoded.changes.iter().find(|c| c.p_read < 0.01) {
            failures.push(format!(
                "{summary}: tile {} changed from {:?} ({:.2}) to {} at {:.4}",
                c.det, c.top, c.p_top, c.read, c.p_read
            ));
        }
        if let Some(needle) = expect["assumed_contains"].as_str() {
            if !note
                .iter()
                .chain(&reading.assumed)
                .any(|a| a.contains(needle))
            {
                failures.push(format!("{summary}: want an assumption with '{needle}'"));
            }
        }
        let all_notes: Vec<&String> = reading.assumed.iter().chain(&decoded.assumed).collect();
        if let Some(twice) = all_notes
            .iter()
            .enumerate()
            .find(|(k, a)| all_notes[..*k].contains(a))
        {
            failures.push(format!("{summary}: '{}' is said twice", twice.1));
        }
        if expect["no_issues"].as_bool() == Some(true)
            && !(reading.issues.is_empty() && decoded.issues.is_empty())
        {
            failures.push(format!("{summary}: want no issue"));
        }
        if let Some(n) = expect["assumed_min"].as_u64() {
            if ((reading.assumed.len() + decoded.assumed.len()) as u64) < n {
                failures.push(format!("{summary}: want at least {n} assumptions"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_corrected_tile_is_reported_with_both_probabilities() {
    let (_, fx) = fixtures()
        .into_iter()
        .find(|(n, _)| n.starts_with("misread"))
        .unwrap();
    let dets = detections_from_json(&fx["detections"]).unwrap();
    let decoded = decode(&dets, &layout::read(&dets), &RuleSet::default());
    let c = &decoded.changes[0];
    assert_eq!(c.read.to_string(), "5p");
    assert_eq!(c.top.to_string(), "6p");
    assert!((c.p_top - 0.55).abs() < 1e-3 && (c.p_read - 0.40).abs() < 1e-3);
}

#[test]
fn claimed_tiles_give_who_discarded() {
    let (_, fx) = fixtures()
        .into_iter()
        .find(|(n, _)| n.starts_with("claimed_left"))
        .unwrap();
    let dets = detections_from_json(&fx["detections"]).unwrap();
    let reading = layout::read(&dets);
    let kinds: Vec<GroupKind> = reading.groups.iter().map(|g| g.kind).collect();
    assert!(kinds.contains(&GroupKind::Chow { claimed: 0 }));
    assert!(kinds.contains(&GroupKind::Pung {
        from: suanfan::scoring::Seat::Across
    }));
}

#[test]
fn an_empty_picture_says_so() {
    let reading = layout::read(&[]);
    assert!(reading.issues.iter().any(|i| i.contains("no tiles")));
    let decoded = decode(&[], &reading, &RuleSet::default());
    assert!(decoded.hand.is_none());
}

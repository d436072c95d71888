//! The points where the rule sets differ (`../shared/rules/VARIANTS.md`, table numbers in the
//! test names), each checked on a hand that shows it.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use suanfan::notation;
use suanfan::scoring::{Fan, HandError, Preset, RuleSet, Score, score};

fn run(text: &str, p: Preset) -> Result<Score, HandError> {
    let parsed = notation::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    score(
        &parsed.hand,
        &parsed.context.unwrap_or_default(),
        &RuleSet::preset(p),
    )
}

fn ok(text: &str, p: Preset) -> Score {
    run(text, p).unwrap_or_else(|e| panic!("{text} under {p}: {e}"))
}

fn count(s: &Score, f: Fan) -> u8 {
    s.fans.iter().find(|e| e.fan == f).map_or(0, |e| e.count)
}

fn points(s: &Score, f: Fan) -> u32 {
    s.fans.iter().find(|e| e.fan == f).map_or(0, |e| e.total())
}

#[test]
fn p01_one_melded_and_one_concealed_kong() {
    let hand = "[1111m][2222p,1]345s678sEE";
    assert_eq!(
        points(&ok(hand, Preset::Mil), Fan::ConcealedKongAndMeldedKong),
        5
    );
    assert_eq!(
        points(&ok(hand, Preset::Wmo2006), Fan::ConcealedKongAndMeldedKong),
        6
    );
    let c = ok(hand, Preset::China1998);
    assert_eq!(points(&c, Fan::ConcealedKongAndMeldedKong), 0);
    assert_eq!(
        points(&c, Fan::MeldedKong) + points(&c, Fan::ConcealedKong),
        3
    );
}

#[test]
fn p02_two_concealed_kongs_score_6_everywhere() {
    for p in [Preset::Mil, Preset::Wmo2006, Preset::China1998] {
        assert_eq!(
            points(&ok("[1111m][2222p]345s678sEE", p), Fan::TwoConcealedKongs),
            6,
            "{p}"
        );
    }
}

#[test]
fn p03_knitted_straight_as_a_special_chow() {
    let hand = "147m258p369s123mEE";
    assert_eq!(count(&ok(hand, Preset::Mil), Fan::KnittedStraight), 1);
    assert_eq!(count(&ok(hand, Preset::Wmo2006), Fan::KnittedStraight), 1);
    assert_eq!(
        run(hand, Preset::China1998).err(),
        Some(HandError::NotWinning)
    );
    // Inside 全不靠 it is a 组合龙 under every rule set.
    let inside = "147m258p369sESWNC";
    assert_eq!(
        count(&ok(inside, Preset::China1998), Fan::KnittedStraight),
        1
    );
    assert_eq!(
        count(
            &ok(inside, Preset::China1998),
            Fan::LesserHonorsAndKnittedTiles
        ),
        1
    );
}

#[test]
fn p04_knitted_body_tile_also_scores_a_wait_fan_only_under_mil() {
    let hand = "258m23469p14788s3p";
    assert_eq!(count(&ok(hand, Preset::Mil), Fan::ClosedWait), 1);
    assert_eq!(count(&ok(hand, Preset::Wmo2006), Fan::ClosedWait), 0);
}

#[test]
fn p05_all_terminals_and_triple_pung() {
    let hand = "[111m,1][111p,1][111s,1]999m9p9p";
    assert_eq!(count(&ok(hand, Preset::Mil), Fan::TriplePung), 1);
    assert_eq!(count(&ok(hand, Preset::Wmo2006), Fan::TriplePung), 1);
    assert_eq!(count(&ok(hand, Preset::China1998), Fan::TriplePung), 0);
    assert_eq!(count(&ok(hand, Preset::China1998), Fan::AllTerminals), 1);
}

#[test]
fn p06_seven_pairs_in_all_green_with_tile_hog() {
    let hand = "2222334466s88sFF";
    assert_eq!(count(&ok(hand, Preset::Mil), Fan::TileHog), 1);
    assert_eq!(count(&ok(hand, Preset::China1998), Fan::TileHog), 1);
    assert_eq!(count(&ok(hand, Preset::Wmo2006), Fan::TileHog), 0);
    assert_eq!(count(&ok(hand, Preset::Wmo2006), Fan::AllGreen), 1);
}

#[test]
fn p07_concealed_hand_on_necessarily_concealed_shapes() {
    let hand = "1133m5577p99sEECC";
    assert_eq!(count(&ok(hand, Preset::Mil), Fan::ConcealedHand), 0);
    assert_eq!(count(&ok(hand, Preset::China1998), Fan::ConcealedHand), 1);
    let drawn = "1133m5577p99sEECC|EE1000";
    for p in [Preset::Mil, Preset::China1998] {
        let s = ok(drawn, p);
        assert_eq!(
            (
                count(&s, Fan::FullyConcealedHand),
                count(&s, Fan::SelfDrawn)
            ),
            (0, 1),
            "{p}"
        );
    }
}

#[test]
fn p08_greater_honors_excludes_lesser_honors() {
    for p in [Preset::Mil, Preset::Wmo2006, Preset::China1998] {
        let s = ok("147m258p3sESWNCFP", p);
        assert_eq!(count(&s, Fan::GreaterHonorsAndKnittedTiles), 1);
        assert_eq!(count(&s, Fan::LesserHonorsAndKnittedTiles), 0);
    }
}

#[test]
fn p09_nine_gates_and_its_terminal_pungs() {
    let hand = "1112345678999m5m";
    let mil = ok(hand, Preset::Mil);
    assert_eq!(count(&mil, Fan::NineGates), 1);
    assert_eq!(
        count(&mil, Fan::PungOfTerminalsOrHonors),
        1,
        "one of the two deducted"
    );
    let wmo = ok(hand, Preset::Wmo2006);
    assert_eq!(count(&wmo, Fan::PungOfTerminalsOrHonors), 0);
    let china = ok(hand, Preset::China1998);
    assert_eq!(count(&china, Fan::NineGates), 1);
    assert_eq!(count(&china, Fan::FullFlush), 0);
    assert_eq!(
        count(&china, Fan::ConcealedHand),
        1,
        "the 1998 text excludes only 清一色"
    );
    assert!(china.total > mil.total);
}

#[test]
fn p10_wait_fans_need_a_single_wait_except_in_1998() {
    // 12345m waits on 3m and 6m: won on 3m, 123m is an edge by shape only.
    let hand = "[789s,1]12345m678p11s3m";
    assert_eq!(count(&ok(hand, Preset::Mil), Fan::EdgeWait), 0);
    assert_eq!(count(&ok(hand, Preset::Wmo2006), Fan::EdgeWait), 0);
    assert_eq!(count(&ok(hand, Preset::China1998), Fan::EdgeWait), 1);
    // A true single wait scores under every set.
    for p in [Preset::Mil, Preset::Wmo2006, Preset::China1998] {
        assert_eq!(
            count(&ok("[456m,1][345p,1][789s,1]12m99p3m", p), Fan::EdgeWait),
            1,
            "{p}"
        );
    }
}

#[test]
fn p11_kong_replacement_on_the_last_tile() {
    for p in [Preset::Mil, Preset::Wmo2006, Preset::China1998] {
        let s = ok("[123m,1][456p,1][7777s,1]23s99m1s|ES1011", p);
        assert_eq!(count(&s, Fan::OutWithReplacementTile), 1, "{p}");
        assert_eq!(count(&s, Fan::LastTileDraw), 1, "{p}");
        assert_eq!(count(&s, Fan::SelfDrawn), 0, "{p}");
    }
}

#[test]
fn p12_flowers_never_count_towards_the_minimum() {
    for p in Preset::ALL {
        let s = ok("[123m,1][345p,1][789s,2]67s99m8s|EE0000|8", p);
        assert_eq!(s.total, s.total_no_flowers + 8, "{p}");
        assert!(!s.meets_minimum, "{p}");
    }
}

#[test]
fn p13_impossible_circumstances() {
    // 和绝张 while holding another copy; 杠上开花 without a kong; 抢杠和 with own copies.
    let cases = [
        "[123m,1][456p,1][789s,1]EE11s1s|ES0100",
        "[123m,1][456p,1][789s,1]23s99m1s|ES1001",
        "[123m,1][456p,1][789s,1]11s99m1s|ES0001",
    ];
    for hand in cases {
        let s = ok(hand, Preset::Mil);
        assert!(!s.notes.is_empty(), "mil corrects and says so: {hand}");
        for p in [Preset::Wmo2006, Preset::China1998] {
            assert!(
                matches!(run(hand, p), Err(HandError::ImpossibleFlag(_))),
                "{p} rejects {hand}"
            );
        }
    }
}

#[test]
fn elementary_has_its_own_thirty_fans() {
    let s = ok("[123m,1][456m,1]789m1mEEE1m", Preset::Elementary);
    // 清龙 16 + 混一色 6; no 圈风刻, 门风刻 or 单钓将 in this table.
    assert_eq!(s.total, 22, "{:?}", s.fan_counts());
    assert_eq!(s.minimum, 6);
    // 七对 self-drawn adds 不求人 (seed 001).
    let s = ok("1133m5577p99sEECC|EE1000", Preset::Elementary);
    assert_eq!(count(&s, Fan::FullyConcealedHand), 1);
    // 三风刻, and 双箭刻 without 箭刻.
    let s = ok("[EEE,1][SSS,1]WWW123m9p9p", Preset::Elementary);
    assert_eq!(count(&s, Fan::BigThreeWinds), 1);
    let s = ok("[CCC,1][FFF,1]123m456p9s9s", Preset::Elementary);
    assert_eq!(
        (count(&s, Fan::TwoDragonsPungs), count(&s, Fan::DragonPung)),
        (1, 0)
    );
    // 十三幺 is not a winning shape here.
    assert_eq!(
        run("19m19p19sESWNCFP1m", Preset::Elementary).err(),
        Some(HandError::NotWinning)
    );
    // A hand with none of the 30 fans scores 0 and does not win.
    let s = ok("[123m,1][345p,1][789s,2]67s99m8s", Preset::Elementary);
    assert!(!s.meets_minimum);
    // Payments: self-drawn 3 × total, discard: the discarder alone.
    let s = ok("[123m,1][456m,1]789m1mEEE1m|EE1000", Preset::Elementary);
    assert_eq!(s.payment.map(|p| p.received()), Some(3 * s.total));
}

#[test]
fn every_preset_prints_its_name() {
    for p in Preset::ALL {
        assert_eq!(Preset::parse(p.name()), Some(p));
        assert_eq!(ok("[123m,1][456m,1]789m1mEEE1m", p).rules.preset, p);
    }
}

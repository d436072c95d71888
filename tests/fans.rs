//! One test per fan, written from the rulebook's definition: a hand that has the fan and a
//! near miss (a valid winning hand that does not score it). Circumstances default to a discard
//! win with East seat and East prevalent wind; a `|` suffix sets them (see `notation`).

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use suanfan::notation;
use suanfan::scoring::{Fan, Preset, RuleSet, Score, WinContext, score};

/// (fan, hand that has it, near miss).
const CASES: &[(&str, &str, &str)] = &[
    (
        "大四喜",
        "[EEE,1][SSS,2][WWW,3]NNN1m1m",
        "[EEE,1][SSS,2][WWW,3]NN1m1m1m",
    ),
    (
        "大三元",
        "[CCC,1][FFF,2]PPP123m5m5m",
        "[CCC,1][FFF,2]PP123m5m5m5m",
    ),
    (
        "绿一色",
        "[234s,1]666s888sFFF3s3s",
        "[234s,1]666s888sPPP3s3s",
    ),
    ("九莲宝灯", "1112345678999m5m", "[111m,1]2345678999m5m"),
    (
        "四杠",
        "[1111m,1][2222p,2][3333s,3][EEEE]SS",
        "[1111m,1][2222p,2][3333s,3]EEESS",
    ),
    ("连七对", "2233445566778m8m", "2233445566779m9m"),
    ("十三幺", "19m19p19sESWNCFP1m", "1199m1199p11sEENN"),
    (
        "清幺九",
        "[111m,1][999p,2]111s99s99m9m",
        "[111m,1][999p,2]111sEE99m9m",
    ),
    (
        "小四喜",
        "[EEE,1][SSS,2]WWW123mNN",
        "[EEE,1][SSS,2]WWW123mCC",
    ),
    (
        "小三元",
        "[CCC,1][FFF,2]PP123m555p",
        "[CCC,1][FFF,2]EE123m555p",
    ),
    (
        "字一色",
        "[EEE,1][SSS,2][CCC,3]FFFPP",
        "[EEE,1][SSS,2][CCC,3]FFF1m1m",
    ),
    (
        "四暗刻",
        "111m222p333sEEE5p5p|EE1000",
        "[111m,1]222p333sEEE5p5p|EE1000",
    ),
    ("一色双龙会", "1231237897895m5m", "123123789789m5p5p"),
    (
        "一色四同顺",
        "[123m,1][123m,1]123123mEE",
        "[123m,1][123m,1]123234mEE",
    ),
    (
        "一色四节高",
        "[111m,1][222m,1]333444mEE",
        "[111m,1][222m,1]333555mEE",
    ),
    (
        "一色四步高",
        "[123m,1][234m,1]345456mEE",
        "[123m,1][234m,1]345567mEE",
    ),
    (
        "三杠",
        "[1111m,1][2222p,2][3333s,3]EEESS",
        "[1111m,1][2222p,2][333s,3]EEESS",
    ),
    (
        "混幺九",
        "[111m,1][999p,2]EEE111sNN",
        "[111m,1][999p,2]EEE123sNN",
    ),
    ("七对", "1133m5577p99sEECC", "11333m555777p99s9s"),
    ("七星不靠", "147m258p3sESWNCFP", "147m258p36sESWNCF"),
    (
        "全双刻",
        "[222m,1][444p,2]666s888m2p2p",
        "[222m,1][444p,2]666s888m3p3p",
    ),
    (
        "清一色",
        "[123m,1][456m,2]7899911m1m",
        "[123m,1][456m,2]78999m11p1p",
    ),
    (
        "一色三同顺",
        "[123m,1][123m,1]123m789pEE",
        "[123m,1][123m,1]234m789pEE",
    ),
    (
        "一色三节高",
        "[111m,1][222m,1]333m789pEE",
        "[111m,1][222m,1]444m789pEE",
    ),
    (
        "全大",
        "[789m,1][789p,1]789s99m88p8p",
        "[789m,1][789p,1]678s99m88p8p",
    ),
    (
        "全中",
        "[456m,1][456p,1]456s55m44p4p",
        "[456m,1][456p,1]345s55m44p4p",
    ),
    (
        "全小",
        "[123m,1][123p,1]123s11m22p2p",
        "[123m,1][123p,1]234s11m22p2p",
    ),
    (
        "清龙",
        "[123m,1][456m,1]789m123pEE",
        "[123m,1][456m,1]789p123pEE",
    ),
    (
        "三色双龙会",
        "[123m,1][789m,1][123p,1]789p5s5s",
        "[123m,1][789m,1][123p,1]789p5m5m",
    ),
    (
        "一色三步高",
        "[123m,1][234m,1]345m789pEE",
        "[123m,1][234m,1]456m789pEE",
    ),
    (
        "全带五",
        "[345m,1][456p,1][567s,1]55m55p5p",
        "[345m,1][456p,1][567s,1]55m66p6p",
    ),
    (
        "三同刻",
        "[111m,1][111p,1][111s,1]234mEE",
        "[111m,1][111p,1][222s,1]234mEE",
    ),
    ("三暗刻", "111m222p333s456sEE", "[111m,1]222p333s456sEE"),
    ("全不靠", "147m258p36sESWNCF", "147m258p3sESWNCFP"),
    ("组合龙", "147m258p369s123mEE", "123m456p789s123mEE"),
    (
        "大于五",
        "[678m,1][789p,1]678s99m66p6p",
        "[678m,1][789p,1]456s99m66p6p",
    ),
    (
        "小于五",
        "[123m,1][234p,1]234s11m44p4p",
        "[123m,1][234p,1]345s11m44p4p",
    ),
    (
        "三风刻",
        "[EEE,1][SSS,1]WWW123m9p9p",
        "[EEE,1][SSS,1]CCC123m9p9p",
    ),
    (
        "花龙",
        "[123m,1][456p,1]789s123m9p9p",
        "[123m,1][456p,1]789p123s9p9p",
    ),
    (
        "推不倒",
        "[123p,1][456s,1]888s99pPPP",
        "[123p,1][567s,1]888s99pPPP",
    ),
    (
        "三色三同顺",
        "[123m,1][123p,1]123s789mEE",
        "[123m,1][123p,1]234s789mEE",
    ),
    (
        "三色三节高",
        "[111m,1][222p,1]333s789mEE",
        "[111m,1][222p,1]444s789mEE",
    ),
    (
        "无番和",
        "[123m,1][345p,1][789s,2]67sEE8s",
        "[123m,1][345p,1][789s,2]67s99m8s",
    ),
    (
        "妙手回春",
        "[123m,1][456p,1][789s,1]23s99m1s|ES1010",
        "[123m,1][456p,1][789s,1]23s99m1s|ES1000",
    ),
    (
        "海底捞月",
        "[123m,1][456p,1][789s,1]23s99m1s|ES0010",
        "[123m,1][456p,1][789s,1]23s99m1s|ES0000",
    ),
    (
        "杠上开花",
        "[123m,1][456p,1][7777s,1]23s99m1s|ES1001",
        "[123m,1][456p,1][7777s,1]23s99m1s|ES1000",
    ),
    (
        "抢杠和",
        "[123m,1][456p,1][789s,1]23s99m1s|ES0001",
        "[123m,1][456p,1][789s,1]23s99m1s|ES0000",
    ),
    (
        "双暗杠",
        "[1111m][2222p]345s678sEE",
        "[1111m][2222p,1]345s678sEE",
    ),
    (
        "碰碰和",
        "[111m,1][222p,1]333s555sEE",
        "[111m,1][222p,1]345s555sEE",
    ),
    (
        "混一色",
        "[123m,1][456m,1]789m1mEEE1m",
        "[123m,1][456m,1]789p1mEEE1m",
    ),
    (
        "三色三步高",
        "[123m,1][234p,1]345s789mEE",
        "[123m,1][234p,1]456s789mEE",
    ),
    (
        "五门齐",
        "[123m,1][456p,1][789s,1]EEECC",
        "[123m,1][456p,1][789s,1]EEENN",
    ),
    (
        "全求人",
        "[123m,1][456p,1][789s,1][EEE,1]CC",
        "[123m,1][456p,1][789s,1]EEECC",
    ),
    (
        "双箭刻",
        "[CCC,1][FFF,1]123m456p9s9s",
        "[CCC,1][EEE,1]123m456p9s9s",
    ),
    (
        "明暗杠",
        "[1111m][2222p,1]345s678sEE",
        "[1111m,1][2222p,1]345s678sEE",
    ),
    (
        "全带幺",
        "[123m,1][789p,1][111s,1]EE99s9s",
        "[123m,1][789p,1][111s,1]EE55s5s",
    ),
    (
        "不求人",
        "123m456p789s23s99m1s|ES1000",
        "[123m,1]456p789s23s99m1s|ES1000",
    ),
    (
        "双明杠",
        "[1111m,1][2222p,1]345s678sEE",
        "[1111m,1][222p,1]345s678sEE",
    ),
    (
        "和绝张",
        "[123m,1][456p,1][789s,1]EE23s1s|ES0100",
        "[123m,1][456p,1][789s,1]EE23s1s|ES0000",
    ),
    (
        "箭刻",
        "[CCC,1][123m,1]456p789s1s1s",
        "[EEE,1][123m,1]456p789s1s1s",
    ),
    (
        "圈风刻",
        "[EEE,1][123m,1]456p789s1s1s|EN0000",
        "[EEE,1][123m,1]456p789s1s1s|SN0000",
    ),
    (
        "门风刻",
        "[SSS,1][123m,1]456p789s1s1s|ES0000",
        "[SSS,1][123m,1]456p789s1s1s|EN0000",
    ),
    (
        "门前清",
        "123m456p789s23s99m1s|ES0000",
        "[123m,1]456p789s23s99m1s|ES0000",
    ),
    (
        "平和",
        "[123m,1][456p,1][789s,1]23s99m1s",
        "[123m,1][456p,1][789s,1]23sEE1s",
    ),
    (
        "四归一",
        "[234m,1][345p,1][789s,1]2223m3m",
        "[234m,1][345p,1][789s,1]5556m6m",
    ),
    (
        "双同刻",
        "[222m,1][222p,1]456s789sEE",
        "[222m,1][333p,1]456s789sEE",
    ),
    ("双暗刻", "222m555p456s789sEE", "[222m,1]555p456s789sEE"),
    (
        "暗杠",
        "[2222m][345p,1]456s789sEE",
        "[2222m,1][345p,1]456s789sEE",
    ),
    (
        "断幺",
        "[234m,1][456p,1]678s345s8m8m",
        "[234m,1][456p,1]678s345s9m9m",
    ),
    (
        "一般高",
        "[123m,1][123m,1]456p789sEE",
        "[123m,1][234m,1]456p789sEE",
    ),
    (
        "喜相逢",
        "[123m,1][123p,1]456p789sEE",
        "[123m,1][234p,1]456p789sEE",
    ),
    (
        "连六",
        "[123m,1][456m,1]567p789sEE",
        "[123m,1][567m,1]567p789sEE",
    ),
    (
        "老少副",
        "[123m,1][789m,1]456p345sEE",
        "[123m,1][678m,1]456p345sEE",
    ),
    (
        "幺九刻",
        "[111m,1][345m,1]456p789sEE",
        "[222m,1][345m,1]456p789sEE",
    ),
    (
        "明杠",
        "[1111m,1][345m,1]456p789sEE",
        "[111m,1][345m,1]456p789sEE",
    ),
    (
        "缺一门",
        "[123m,1][345m,1]456p789pEE",
        "[123m,1][345m,1]456p789sEE",
    ),
    (
        "无字",
        "[123m,1][345m,1]456p999s5s5s",
        "[123m,1][345m,1]456p999sEE",
    ),
    (
        "独听・边张",
        "[456m,1][345p,1][789s,1]12m99p3m",
        "[456m,1][345p,1][789s,1]23m99p1m",
    ),
    (
        "独听・嵌张",
        "[456m,1][345p,1][789s,1]13m99p2m",
        "[456m,1][345p,1][789s,1]12m99p3m",
    ),
    (
        "独听・单钓",
        "[456m,1][345p,1][789s,1]123mEE",
        "[456m,1][345p,1][789s,1]1234m1m",
    ),
    (
        "自摸",
        "[123m,1][456p,1][789s,1]23s99m1s|ES1000",
        "[123m,1][456p,1][789s,1]23s99m1s|ES0000",
    ),
];

fn score_of(text: &str, rules: &RuleSet) -> Result<Score, String> {
    let p = notation::parse(text).map_err(|e| format!("{text}: {e}"))?;
    let ctx = p.context.unwrap_or_default();
    score(&p.hand, &ctx, rules).map_err(|e| format!("{text}: {e}"))
}

fn counted(s: &Score, fan: Fan) -> u8 {
    s.fans.iter().find(|e| e.fan == fan).map_or(0, |e| e.count)
}

#[test]
fn every_fan_has_a_hand_and_a_near_miss() {
    let rules = RuleSet::default();
    let mut failures = Vec::new();
    for &(name, has, miss) in CASES {
        let Some(fan) = Fan::by_name(name) else {
            failures.push(format!("unknown fan {name}"));
            continue;
        };
        match score_of(has, &rules) {
            Ok(s) if counted(&s, fan) > 0 => {}
            Ok(s) => failures.push(format!("{name}: {has} scored {:?}", s.fan_counts())),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
        match score_of(miss, &rules) {
            Ok(s) if counted(&s, fan) == 0 => {}
            Ok(s) => failures.push(format!(
                "{name}: near miss {miss} scored {:?}",
                s.fan_counts()
            )),
            Err(e) => failures.push(format!("{name}: near miss {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_fan_of_the_table_is_tested() {
    for f in Fan::ALL {
        if *f == Fan::FlowerTiles {
            continue;
        }
        assert!(CASES.iter().any(|c| c.0 == f.zh()), "no test for {f}");
    }
}

#[test]
fn flowers_score_one_each_but_not_towards_the_minimum() {
    let rules = RuleSet::default();
    let s = score_of("[123m,1][345p,1][789s,2]67sEE8s|EE0000|3", &rules)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counted(&s, Fan::FlowerTiles), 3);
    assert_eq!((s.total, s.total_no_flowers), (11, 8));
    assert!(s.meets_minimum);
    let s = score_of("[123m,1][345p,1][789s,2]67s99m8s|EE0000|8", &rules)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.total_no_flowers, 2, "平和 alone");
    assert!(!s.meets_minimum, "8 flowers do not make up the minimum");
    assert!(s.payment.is_none());
}

#[test]
fn fans_are_counted_not_flagged() {
    let rules = RuleSet::default();
    // 幺九刻 ×2: pungs of 1m and 9p.
    let s = score_of("[111m,1][999p,1]456s789s5p5p", &rules).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counted(&s, Fan::PungOfTerminalsOrHonors), 2);
    // 四归一 ×2.
    let s = score_of("11112233m44445p6p", &rules).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counted(&s, Fan::TileHog), 2, "{:?}", s.fan_counts());
    // 双同刻 ×2: 2m 2p and 5m 5p.
    let s = score_of("[222m,1][222p,1][555m,1]555pEE", &rules).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counted(&s, Fan::DoublePung), 2);
    // 套算一次: 234567p 234567s is 喜相逢 ×2 + 连六 ×1 (or ×1/×2), three chow fans in all.
    let s = score_of("234567p23456s77m7s", &rules).unwrap_or_else(|e| panic!("{e}"));
    let chow_fans: u8 = [
        Fan::MixedDoubleChow,
        Fan::ShortStraight,
        Fan::PureDoubleChow,
        Fan::TwoTerminalChows,
    ]
    .iter()
    .map(|f| counted(&s, *f))
    .sum();
    assert_eq!(chow_fans, 3, "{:?}", s.fan_counts());
}

#[test]
fn exclusions_are_explained() {
    let s = score_of("111m222p333sEEE5p5p|EE1000", &RuleSet::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(counted(&s, Fan::FourConcealedPungs) == 1);
    assert!(counted(&s, Fan::AllPungs) == 0 && counted(&s, Fan::FullyConcealedHand) == 0);
    assert_eq!(
        counted(&s, Fan::SelfDrawn),
        1,
        "四暗刻 removes 不求人, the self-draw stays"
    );
    let why: Vec<_> = s.not_counted.iter().map(|n| (n.fan, n.by)).collect();
    assert!(
        why.contains(&(Fan::AllPungs, Fan::FourConcealedPungs)),
        "{why:?}"
    );
    assert!(
        why.contains(&(Fan::FullyConcealedHand, Fan::FourConcealedPungs)),
        "{why:?}"
    );
}

#[test]
fn minimum_and_payments_follow_the_seeds() {
    let mil = RuleSet::default();
    let s = score_of("[123m,1][456m,1]789m1mEEE1m", &mil).unwrap_or_else(|e| panic!("{e}"));
    // 清龙 16 + 混一色 6 + 圈风刻 2 + 门风刻 2 (East seat, East round) + 单钓将 1 = 27.
    assert_eq!(s.total, 27, "{:?}", s.fan_counts());
    assert_eq!(s.payment.map(|p| p.received()), Some(27 + 8 + 8 + 8));
    let s = score_of("[123m,1][456m,1]789m1mEEE1m|EE1000", &mil).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.payment.map(|p| p.received()), Some(3 * (28 + 8)));
    let el = RuleSet::preset(Preset::Elementary);
    let s = score_of("[123m,1][456m,1]789m1mEEE1m", &el).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.minimum, 6);
    assert_eq!(s.payment.map(|p| p.received()), Some(s.total));
}

#[test]
fn the_winning_tile_must_complete_the_hand() {
    let e = score_of("123m456p789s11sEEN", &RuleSet::default());
    assert!(e.is_err_and(|e| e.contains("not a winning hand")));
}

#[test]
fn default_context_is_a_discard_win_east_east() {
    let c = WinContext::default();
    assert!(!c.self_drawn && c.flowers == 0);
}

/// The explanation's sets: melds first as given, the standing sets in display order
/// (characters, dots, bamboo, honours), the pair last; each fan names the sets that make it.
#[test]
fn the_explanation_names_each_fans_sets() {
    use suanfan::scoring::SetKind;
    let s =
        score_of("[CCC,1]EEE789s123p5m5m", &RuleSet::default()).unwrap_or_else(|e| panic!("{e}"));
    let sets: Vec<String> = s
        .sets
        .iter()
        .map(|x| format!("{:?} {}", x.kind, notation::format_tiles(&x.tiles())))
        .collect();
    assert_eq!(
        sets,
        ["Pung CCC", "Chow 123p", "Chow 789s", "Pung EEE", "Pair 55m"].map(String::from),
        "{sets:?}"
    );
    assert!(s.sets[0].exposed && s.sets[0].declared && s.sets[4].kind == SetKind::Pair);
    let sets_of = |f: Fan| {
        s.fans
            .iter()
            .find(|e| e.fan == f)
            .map(|e| e.sets.to_vec())
            .unwrap_or_else(|| panic!("{f:?} not counted: {:?}", s.fan_counts()))
    };
    assert_eq!(sets_of(Fan::DragonPung), [0]);
    assert_eq!(sets_of(Fan::PrevalentWind), [3]);
    assert_eq!(sets_of(Fan::SeatWind), [3]);
    assert_eq!(sets_of(Fan::SingleWait), [4]);
}

//! Rule sets as values: the presets of `../shared/rules/VARIANTS.md`.

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use super::fan::{EXCLUSIONS, Exclusion, FAN_COUNT, Fan};

/// The named rule sets.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Preset {
    /// Modern competition practice, as the reference calculator of Botzone and the most popular
    /// MCR helper app implements it. The default.
    #[default]
    Mil,
    /// The 2006 World Mahjong Organization rules ("Green Book").
    Wmo2006,
    /// The 1998 national rules (中国麻将竞赛规则（试行）) read literally where they are explicit.
    China1998,
    /// The 30-fan elementary international rules (国际麻将竞赛初级规则, 2014).
    Elementary,
}

impl Preset {
    pub const ALL: [Preset; 4] = [
        Preset::Mil,
        Preset::Wmo2006,
        Preset::China1998,
        Preset::Elementary,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Mil => "mil",
            Preset::Wmo2006 => "wmo2006",
            Preset::China1998 => "china1998",
            Preset::Elementary => "elementary",
        }
    }
    pub fn parse(s: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == s)
    }
    pub fn rules(self) -> RuleSet {
        RuleSet::preset(self)
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How one melded plus one concealed kong score (VARIANTS.md #1).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MixedKongs {
    /// One combined fan 明暗杠 worth this many points.
    Combined(u16),
    /// 明杠 1 + 暗杠 2.
    Separate,
}

/// What 九莲宝灯 adds (VARIANTS.md #9).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NineGatesExtras {
    /// The reference's fixed extras by winning tile, with one 幺九刻 deducted.
    Reference,
    /// The same without any terminal-pung point.
    NoTerminalPungs,
    /// The best regular reading plus 九莲宝灯, excluding only 清一色.
    Literal,
}

/// How impossible circumstances are handled (VARIANTS.md #13).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ImpossibleFlags {
    /// Corrected silently, as the reference calculator does.
    Correct,
    /// Rejected with an error.
    Reject,
}

/// How the winner is paid.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Payments {
    /// Self-drawn: each pays 8 + total. Discard: the discarder 8 + total, the others 8.
    BasePlusEight,
    /// Self-drawn: each pays the total. Discard: the discarder alone pays the total.
    Elementary,
}

/// A complete rule set. Build one with [`RuleSet::preset`] and change fields to taste.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RuleSet {
    pub preset: Preset,
    /// Points needed to win, flowers excluded.
    pub minimum: u32,
    pub mixed_kongs: MixedKongs,
    /// 组合龙 + a set + a pair is a winning shape (#3). Otherwise 组合龙 only inside 全不靠.
    pub knitted_straight_shape: bool,
    /// A 组合龙 tile as the winning tile may also score 边张/嵌张/单钓将 (#4).
    pub knitted_body_wait_fans: bool,
    /// 清幺九 also excludes 三同刻 (#5).
    pub all_terminals_excludes_triple_pung: bool,
    /// 七对 in 绿一色 or 清幺九 still scores 四归一 (#6).
    pub seven_pairs_tile_hog_in_pure_hands: bool,
    /// Necessarily concealed hands score 门前清 on a discard (#7).
    pub concealed_hand_on_special_shapes: bool,
    pub nine_gates: NineGatesExtras,
    /// 边张/嵌张/单钓将 only when the hand waits on one tile (#10); otherwise by shape.
    pub wait_fans_need_single_wait: bool,
    pub impossible_flags: ImpossibleFlags,
    /// The 30-fan elementary table.
    pub elementary: bool,
    pub payments: Payments,
}

impl Default for RuleSet {
    fn default() -> Self {
        RuleSet::preset(Preset::Mil)
    }
}

/// The fans of the elementary rules (seed 001): 30 with 花牌.
const ELEMENTARY_FANS: &[Fan] = &[
    Fan::SevenPairs,
    Fan::FullFlush,
    Fan::PureStraight,
    Fan::PureShiftedChows,
    Fan::AllFive,
    Fan::LesserHonorsAndKnittedTiles,
    Fan::UpperFour,
    Fan::LowerFour,
    Fan::BigThreeWinds,
    Fan::MixedStraight,
    Fan::MixedTripleChow,
    Fan::OutWithReplacementTile,
    Fan::RobbingTheKong,
    Fan::AllPungs,
    Fan::HalfFlush,
    Fan::MixedShiftedChows,
    Fan::AllTypes,
    Fan::TwoDragonsPungs,
    Fan::FullyConcealedHand,
    Fan::LastTile,
    Fan::DragonPung,
    Fan::ConcealedHand,
    Fan::TileHog,
    Fan::DoublePung,
    Fan::TwoConcealedPungs,
    Fan::ConcealedKong,
    Fan::MeldedKong,
    Fan::OneVoidedSuit,
    Fan::NoHonors,
    Fan::FlowerTiles,
];

const CHINA1998_EXCLUSIONS: &[Exclusion] = &[
    // VARIANTS.md #7: the 1998 text does not exclude 门前清 from necessarily concealed hands.
    Exclusion {
        by: Fan::SevenShiftedPairs,
        excluded: &[
            Fan::SevenPairs,
            Fan::FullFlush,
            Fan::FullyConcealedHand,
            Fan::OneVoidedSuit,
            Fan::NoHonors,
            Fan::SingleWait,
        ],
        reason: "seven shifted pairs are seven concealed pairs of one suit",
    },
    Exclusion {
        by: Fan::ThirteenOrphans,
        excluded: &[Fan::AllTypes, Fan::FullyConcealedHand, Fan::SingleWait],
        reason: "thirteen orphans hold every type",
    },
    Exclusion {
        by: Fan::SevenPairs,
        excluded: &[Fan::FullyConcealedHand, Fan::SingleWait],
        reason: "seven pairs wait on a pair",
    },
    Exclusion {
        by: Fan::GreaterHonorsAndKnittedTiles,
        excluded: &[
            Fan::LesserHonorsAndKnittedTiles,
            Fan::AllTypes,
            Fan::FullyConcealedHand,
            Fan::SingleWait,
        ],
        reason: "it holds every type",
    },
    Exclusion {
        by: Fan::LesserHonorsAndKnittedTiles,
        excluded: &[Fan::AllTypes, Fan::FullyConcealedHand, Fan::SingleWait],
        reason: "it holds every type",
    },
];

static NINE_GATES_1998: Exclusion = Exclusion {
    by: Fan::NineGates,
    excluded: &[Fan::FullFlush],
    reason: "the 1998 text excludes only 清一色",
};

static ALL_TERMINALS_1998: Exclusion = Exclusion {
    by: Fan::AllTerminals,
    excluded: &[
        Fan::AllTerminalsAndHonors,
        Fan::AllPungs,
        Fan::OutsideHand,
        Fan::PungOfTerminalsOrHonors,
        Fan::NoHonors,
        Fan::DoublePung,
        Fan::TriplePung,
    ],
    reason: "only terminals; the 1998 text also excludes 同刻",
};

const ELEMENTARY_EXCLUSIONS: &[Exclusion] = &[
    Exclusion {
        by: Fan::SevenPairs,
        excluded: &[Fan::ConcealedHand],
        reason: "seven pairs are concealed (self-drawn adds 不求人)",
    },
    Exclusion {
        by: Fan::FullFlush,
        excluded: &[Fan::OneVoidedSuit, Fan::NoHonors],
        reason: "one suit only",
    },
    Exclusion {
        by: Fan::AllFive,
        excluded: &[Fan::NoHonors],
        reason: "every set holds a 5",
    },
    Exclusion {
        by: Fan::LesserHonorsAndKnittedTiles,
        excluded: &[Fan::AllTypes, Fan::ConcealedHand],
        reason: "seed 001: 不计五门齐、门前清",
    },
    Exclusion {
        by: Fan::UpperFour,
        excluded: &[Fan::NoHonors],
        reason: "seed 001: 不计无字",
    },
    Exclusion {
        by: Fan::LowerFour,
        excluded: &[Fan::NoHonors],
        reason: "seed 001: 不计无字",
    },
    Exclusion {
        by: Fan::RobbingTheKong,
        excluded: &[Fan::LastTile],
        reason: "seed 001: 不计和绝张",
    },
    Exclusion {
        by: Fan::HalfFlush,
        excluded: &[Fan::OneVoidedSuit],
        reason: "one suit and honors",
    },
    // 双箭刻 不计箭刻 covers its own two pungs; a third dragon pung still scores 箭刻, which the
    // engine handles while counting (there is no 大三元 in this table).
    Exclusion {
        by: Fan::FullyConcealedHand,
        excluded: &[Fan::ConcealedHand],
        reason: "it includes the concealed hand",
    },
];

impl RuleSet {
    pub fn preset(p: Preset) -> RuleSet {
        PRESETS[p as usize]
    }

    const fn make_preset(p: Preset) -> RuleSet {
        let mil = RuleSet {
            preset: Preset::Mil,
            minimum: 8,
            mixed_kongs: MixedKongs::Combined(5),
            knitted_straight_shape: true,
            knitted_body_wait_fans: true,
            all_terminals_excludes_triple_pung: false,
            seven_pairs_tile_hog_in_pure_hands: true,
            concealed_hand_on_special_shapes: false,
            nine_gates: NineGatesExtras::Reference,
            wait_fans_need_single_wait: true,
            impossible_flags: ImpossibleFlags::Correct,
            elementary: false,
            payments: Payments::BasePlusEight,
        };
        match p {
            Preset::Mil => mil,
            Preset::Wmo2006 => RuleSet {
                preset: p,
                mixed_kongs: MixedKongs::Combined(6),
                knitted_body_wait_fans: false,
                seven_pairs_tile_hog_in_pure_hands: false,
                nine_gates: NineGatesExtras::NoTerminalPungs,
                impossible_flags: ImpossibleFlags::Reject,
                ..mil
            },
            Preset::China1998 => RuleSet {
                preset: p,
                mixed_kongs: MixedKongs::Separate,
                knitted_straight_shape: false,
                knitted_body_wait_fans: false,
                all_terminals_excludes_triple_pung: true,
                concealed_hand_on_special_shapes: true,
                nine_gates: NineGatesExtras::Literal,
                wait_fans_need_single_wait: false,
                impossible_flags: ImpossibleFlags::Reject,
                ..mil
            },
            Preset::Elementary => RuleSet {
                preset: p,
                minimum: 6,
                mixed_kongs: MixedKongs::Separate,
                knitted_straight_shape: false,
                knitted_body_wait_fans: false,
                concealed_hand_on_special_shapes: false,
                nine_gates: NineGatesExtras::Literal,
                wait_fans_need_single_wait: true,
                impossible_flags: ImpossibleFlags::Reject,
                elementary: true,
                payments: Payments::Elementary,
                ..mil
            },
        }
    }

    /// Whether this rule set has the fan at all.
    pub fn has(&self, fan: Fan) -> bool {
        if self.elementary {
            return ELEMENTARY_FANS.contains(&fan);
        }
        match fan {
            Fan::ConcealedKongAndMeldedKong => self.mixed_kongs != MixedKongs::Separate,
            Fan::KnittedStraight => true,
            _ => true,
        }
    }

    /// Points of a fan under this rule set.
    pub fn points(&self, fan: Fan) -> u16 {
        match (fan, self.mixed_kongs) {
            (Fan::ConcealedKongAndMeldedKong, MixedKongs::Combined(p)) => p,
            _ => fan.base_points(),
        }
    }

    /// The exclusions in force, highest fan first.
    pub fn exclusions(&self) -> impl Iterator<Item = &'static Exclusion> + '_ {
        let (table, overrides): (&'static [Exclusion], &'static [Exclusion]) = if self.elementary {
            (ELEMENTARY_EXCLUSIONS, &[])
        } else if self.preset == Preset::China1998 {
            (EXCLUSIONS, CHINA1998_EXCLUSIONS)
        } else {
            (EXCLUSIONS, &[])
        };
        let all_terminals_extra = self.all_terminals_excludes_triple_pung;
        let overrides_nine_gates = self.nine_gates == NineGatesExtras::Literal;
        table.iter().map(move |e| {
            if let Some(o) = overrides.iter().find(|o| o.by == e.by) {
                return o;
            }
            if overrides_nine_gates && e.by == Fan::NineGates {
                return &NINE_GATES_1998;
            }
            if all_terminals_extra && e.by == Fan::AllTerminals {
                return &ALL_TERMINALS_1998;
            }
            e
        })
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.preset.name())
    }
}

/// The presets, in the order of `Preset`'s variants (`Preset::ALL`).
static PRESETS: [RuleSet; 4] = [
    RuleSet::make_preset(Preset::Mil),
    RuleSet::make_preset(Preset::Wmo2006),
    RuleSet::make_preset(Preset::China1998),
    RuleSet::make_preset(Preset::Elementary),
];

/// The presets' keys (`RuleSet::key`), to tell an unchanged preset with one comparison.
static PRESET_KEYS: [u64; 4] = [
    PRESETS[0].key(),
    PRESETS[1].key(),
    PRESETS[2].key(),
    PRESETS[3].key(),
];

impl RuleSet {
    /// Every field packed into one word: two rule sets are equal exactly when their keys are.
    const fn key(&self) -> u64 {
        let kongs = match self.mixed_kongs {
            MixedKongs::Combined(p) => p as u64,
            MixedKongs::Separate => 1 << 16,
        };
        let flags = [
            self.knitted_straight_shape,
            self.knitted_body_wait_fans,
            self.all_terminals_excludes_triple_pung,
            self.seven_pairs_tile_hog_in_pure_hands,
            self.concealed_hand_on_special_shapes,
            self.wait_fans_need_single_wait,
            self.elementary,
        ];
        let mut bits = 0u64;
        let mut i = 0;
        while i < flags.len() {
            bits |= (flags[i] as u64) << i;
            i += 1;
        }
        (self.minimum as u64)
            | kongs << 32
            | bits << 49
            | (self.preset as u64) << 56
            | (self.nine_gates as u64) << 58
            | (self.impossible_flags as u64) << 60
            | (self.payments as u64) << 62
    }
}

/// A rule set turned into bit masks for the hot loop.
#[derive(Clone, Debug)]
pub(crate) struct Compiled {
    pub has: u128,
    pub points: [u16; FAN_COUNT],
    /// For each fan, the fans it excludes (0 for none).
    pub excludes: [u128; FAN_COUNT],
    /// Fans that exclude something.
    pub triggers: u128,
    /// For each fan, its entry of the exclusion table (what it excludes, in the table's order,
    /// and why).
    pub entries: [Option<&'static Exclusion>; FAN_COUNT],
}

impl RuleSet {
    fn compile(&self) -> Compiled {
        let mut has = 0u128;
        let mut points = [0u16; FAN_COUNT];
        for &f in Fan::ALL {
            if self.has(f) {
                has |= 1 << f.index();
            }
            points[f.index()] = self.points(f);
        }
        let mut excludes = [0u128; FAN_COUNT];
        let mut triggers = 0u128;
        let mut entries = [None; FAN_COUNT];
        for e in self.exclusions() {
            excludes[e.by.index()] |= e.excluded.iter().fold(0u128, |m, x| m | 1 << x.index());
            triggers |= 1 << e.by.index();
            entries[e.by.index()] = Some(e);
        }
        Compiled {
            has,
            points,
            excludes,
            triggers,
            entries,
        }
    }

    /// The compiled form; cached for the unchanged presets.
    pub(crate) fn compiled(&self) -> Cow<'static, Compiled> {
        static CACHE: [OnceLock<Compiled>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let i = self.preset as usize;
        if self.key() == PRESET_KEYS[i] {
            Cow::Borrowed(CACHE[i].get_or_init(|| self.compile()))
        } else {
            Cow::Owned(self.compile())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Changing any one field of a preset changes its key, so the compiled-masks cache is
    /// never handed a changed rule set.
    #[test]
    fn a_changed_field_changes_the_key() {
        for p in Preset::ALL {
            let base = RuleSet::preset(p);
            let changed: [fn(&mut RuleSet); 14] = [
                |r| r.minimum += 1,
                |r| r.minimum = u32::MAX,
                |r| {
                    r.mixed_kongs = match r.mixed_kongs {
                        MixedKongs::Combined(p) => MixedKongs::Combined(p + 1),
                        MixedKongs::Separate => MixedKongs::Combined(0),
                    }
                },
                |r| {
                    r.mixed_kongs = match r.mixed_kongs {
                        MixedKongs::Separate => MixedKongs::Combined(1 << 15),
                        MixedKongs::Combined(_) => MixedKongs::Separate,
                    }
                },
                |r| r.knitted_straight_shape ^= true,
                |r| r.knitted_body_wait_fans ^= true,
                |r| r.all_terminals_excludes_triple_pung ^= true,
                |r| r.seven_pairs_tile_hog_in_pure_hands ^= true,
                |r| r.concealed_hand_on_special_shapes ^= true,
                |r| r.wait_fans_need_single_wait ^= true,
                |r| r.elementary ^= true,
                |r| {
                    r.nine_gates = match r.nine_gates {
                        NineGatesExtras::Literal => NineGatesExtras::Reference,
                        _ => NineGatesExtras::Literal,
                    }
                },
                |r| {
                    r.impossible_flags = match r.impossible_flags {
                        ImpossibleFlags::Reject => ImpossibleFlags::Correct,
                        ImpossibleFlags::Correct => ImpossibleFlags::Reject,
                    }
                },
                |r| {
                    r.payments = match r.payments {
                        Payments::Elementary => Payments::BasePlusEight,
                        Payments::BasePlusEight => Payments::Elementary,
                    }
                },
            ];
            assert_eq!(base.key(), PRESET_KEYS[p as usize]);
            for (i, change) in changed.iter().enumerate() {
                let mut r = base;
                change(&mut r);
                assert_ne!(r, base, "change {i} of {p:?}");
                assert_ne!(r.key(), base.key(), "change {i} of {p:?}");
                assert!(matches!(r.compiled(), std::borrow::Cow::Owned(_)));
            }
        }
    }
}

//! The fans (番种) of MCR as data: names, points, and what each one excludes, with the reason.
//!
//! Numbers in comments are the fan numbers of the 1998 rules (seed 000, 第四章) and the table of
//! the 2006 WMO rules; 明暗杠 is the extra combined kong fan of modern practice (VARIANTS.md #1).

use std::fmt;

macro_rules! fans {
    ($( $id:ident = $zh:literal, $en:literal, $pts:literal; )*) => {
        /// One fan. The order is the rulebook's: by points, then by its number.
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        #[allow(clippy::upper_case_acronyms)]
        pub enum Fan { $( $id ),* }

        impl Fan {
            /// Every fan, in rulebook order.
            pub const ALL: &'static [Fan] = &[ $( Fan::$id ),* ];
            const DATA: &'static [(&'static str, &'static str, u16)] = &[ $( ($zh, $en, $pts) ),* ];
        }
    };
}

fans! {
    // 88
    BigFourWinds = "大四喜", "Big Four Winds", 88;
    BigThreeDragons = "大三元", "Big Three Dragons", 88;
    AllGreen = "绿一色", "All Green", 88;
    NineGates = "九莲宝灯", "Nine Gates", 88;
    FourKongs = "四杠", "Four Kongs", 88;
    SevenShiftedPairs = "连七对", "Seven Shifted Pairs", 88;
    ThirteenOrphans = "十三幺", "Thirteen Orphans", 88;
    // 64
    AllTerminals = "清幺九", "All Terminals", 64;
    LittleFourWinds = "小四喜", "Little Four Winds", 64;
    LittleThreeDragons = "小三元", "Little Three Dragons", 64;
    AllHonors = "字一色", "All Honors", 64;
    FourConcealedPungs = "四暗刻", "Four Concealed Pungs", 64;
    PureTerminalChows = "一色双龙会", "Pure Terminal Chows", 64;
    // 48
    QuadrupleChow = "一色四同顺", "Quadruple Chow", 48;
    FourPureShiftedPungs = "一色四节高", "Four Pure Shifted Pungs", 48;
    // 32
    FourPureShiftedChows = "一色四步高", "Four Pure Shifted Chows", 32;
    ThreeKongs = "三杠", "Three Kongs", 32;
    AllTerminalsAndHonors = "混幺九", "All Terminals and Honors", 32;
    // 24
    SevenPairs = "七对", "Seven Pairs", 24;
    GreaterHonorsAndKnittedTiles = "七星不靠", "Greater Honors and Knitted Tiles", 24;
    AllEvenPungs = "全双刻", "All Even Pungs", 24;
    FullFlush = "清一色", "Full Flush", 24;
    PureTripleChow = "一色三同顺", "Pure Triple Chow", 24;
    PureShiftedPungs = "一色三节高", "Pure Shifted Pungs", 24;
    UpperTiles = "全大", "Upper Tiles", 24;
    MiddleTiles = "全中", "Middle Tiles", 24;
    LowerTiles = "全小", "Lower Tiles", 24;
    // 16
    PureStraight = "清龙", "Pure Straight", 16;
    ThreeSuitedTerminalChows = "三色双龙会", "Three-Suited Terminal Chows", 16;
    PureShiftedChows = "一色三步高", "Pure Shifted Chows", 16;
    AllFive = "全带五", "All Five", 16;
    TriplePung = "三同刻", "Triple Pung", 16;
    ThreeConcealedPungs = "三暗刻", "Three Concealed Pungs", 16;
    // 12
    LesserHonorsAndKnittedTiles = "全不靠", "Lesser Honors and Knitted Tiles", 12;
    KnittedStraight = "组合龙", "Knitted Straight", 12;
    UpperFour = "大于五", "Upper Four", 12;
    LowerFour = "小于五", "Lower Four", 12;
    BigThreeWinds = "三风刻", "Big Three Winds", 12;
    // 8
    MixedStraight = "花龙", "Mixed Straight", 8;
    ReversibleTiles = "推不倒", "Reversible Tiles", 8;
    MixedTripleChow = "三色三同顺", "Mixed Triple Chow", 8;
    MixedShiftedPungs = "三色三节高", "Mixed Shifted Pungs", 8;
    ChickenHand = "无番和", "Chicken Hand", 8;
    LastTileDraw = "妙手回春", "Last Tile Draw", 8;
    LastTileClaim = "海底捞月", "Last Tile Claim", 8;
    OutWithReplacementTile = "杠上开花", "Out with Replacement Tile", 8;
    RobbingTheKong = "抢杠和", "Robbing The Kong", 8;
    // 6
    TwoConcealedKongs = "双暗杠", "Two Concealed Kongs", 6;
    AllPungs = "碰碰和", "All Pungs", 6;
    HalfFlush = "混一色", "Half Flush", 6;
    MixedShiftedChows = "三色三步高", "Mixed Shifted Chows", 6;
    AllTypes = "五门齐", "All Types", 6;
    MeldedHand = "全求人", "Melded Hand", 6;
    TwoDragonsPungs = "双箭刻", "Two Dragons Pungs", 6;
    // 5 (6 under wmo2006; absent under china1998)
    ConcealedKongAndMeldedKong = "明暗杠", "Concealed Kong and Melded Kong", 5;
    // 4
    OutsideHand = "全带幺", "Outside Hand", 4;
    FullyConcealedHand = "不求人", "Fully Concealed Hand", 4;
    TwoMeldedKongs = "双明杠", "Two Melded Kongs", 4;
    LastTile = "和绝张", "Last Tile", 4;
    // 2
    DragonPung = "箭刻", "Dragon Pung", 2;
    PrevalentWind = "圈风刻", "Prevalent Wind", 2;
    SeatWind = "门风刻", "Seat Wind", 2;
    ConcealedHand = "门前清", "Concealed Hand", 2;
    AllChows = "平和", "All Chows", 2;
    TileHog = "四归一", "Tile Hog", 2;
    DoublePung = "双同刻", "Double Pung", 2;
    TwoConcealedPungs = "双暗刻", "Two Concealed Pungs", 2;
    ConcealedKong = "暗杠", "Concealed Kong", 2;
    AllSimples = "断幺", "All Simples", 2;
    // 1
    PureDoubleChow = "一般高", "Pure Double Chow", 1;
    MixedDoubleChow = "喜相逢", "Mixed Double Chow", 1;
    ShortStraight = "连六", "Short Straight", 1;
    TwoTerminalChows = "老少副", "Two Terminal Chows", 1;
    PungOfTerminalsOrHonors = "幺九刻", "Pung of Terminals or Honors", 1;
    MeldedKong = "明杠", "Melded Kong", 1;
    OneVoidedSuit = "缺一门", "One Voided Suit", 1;
    NoHonors = "无字", "No Honors", 1;
    EdgeWait = "独听・边张", "Edge Wait", 1;
    ClosedWait = "独听・嵌张", "Closed Wait", 1;
    SingleWait = "独听・单钓", "Single Wait", 1;
    SelfDrawn = "自摸", "Self-Drawn", 1;
    FlowerTiles = "花牌", "Flower Tiles", 1;
}

/// Number of fans in the table.
pub const FAN_COUNT: usize = Fan::ALL.len();

impl Fan {
    pub const fn index(self) -> usize {
        self as usize
    }
    /// The Chinese name, as printed by the reference calculator.
    pub fn zh(self) -> &'static str {
        Self::DATA[self.index()].0
    }
    /// The English name from the official translation.
    pub fn en(self) -> &'static str {
        Self::DATA[self.index()].1
    }
    /// Points under `mil` (the rule set may change a few: see `RuleSet::points`).
    pub fn base_points(self) -> u16 {
        Self::DATA[self.index()].2
    }
    /// Finds a fan by its Chinese or English name (case-insensitive for English).
    pub fn by_name(name: &str) -> Option<Fan> {
        Fan::ALL
            .iter()
            .copied()
            .find(|f| f.zh() == name || f.en().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Fan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.zh(), self.en())
    }
}

/// One exclusion rule: when `by` is counted, `excluded` is not, for `reason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exclusion {
    pub by: Fan,
    pub excluded: &'static [Fan],
    pub reason: &'static str,
}

use Fan::*;

/// The exclusions (不计) of the rulebook, in one place. They are applied from the highest fan
/// down; a fan that is itself excluded excludes nothing (so 四暗刻 removes 不求人, and the win
/// still scores 自摸). Rule sets add or change entries (see `RuleSet::exclusions`).
pub const EXCLUSIONS: &[Exclusion] = &[
    Exclusion {
        by: BigFourWinds,
        excluded: &[
            BigThreeWinds,
            AllPungs,
            PrevalentWind,
            SeatWind,
            PungOfTerminalsOrHonors,
        ],
        reason: "four wind pungs imply them",
    },
    Exclusion {
        by: BigThreeDragons,
        excluded: &[TwoDragonsPungs, DragonPung],
        reason: "three dragon pungs imply them",
    },
    Exclusion {
        by: AllGreen,
        excluded: &[HalfFlush, OneVoidedSuit],
        reason: "only bamboo and green dragons",
    },
    Exclusion {
        by: NineGates,
        excluded: &[
            FullFlush,
            ConcealedHand,
            FullyConcealedHand,
            OneVoidedSuit,
            NoHonors,
        ],
        reason: "nine gates is one suit and concealed",
    },
    Exclusion {
        by: FourKongs,
        excluded: &[AllPungs, SingleWait],
        reason: "four kongs leave only the pair to wait on",
    },
    Exclusion {
        by: SevenShiftedPairs,
        excluded: &[
            SevenPairs,
            FullFlush,
            ConcealedHand,
            FullyConcealedHand,
            OneVoidedSuit,
            NoHonors,
            SingleWait,
        ],
        reason: "seven shifted pairs are seven concealed pairs of one suit",
    },
    Exclusion {
        by: ThirteenOrphans,
        excluded: &[AllTypes, ConcealedHand, FullyConcealedHand, SingleWait],
        reason: "thirteen orphans hold every type and are concealed",
    },
    Exclusion {
        by: AllTerminals,
        excluded: &[
            AllTerminalsAndHonors,
            AllPungs,
            OutsideHand,
            PungOfTerminalsOrHonors,
            NoHonors,
            DoublePung,
        ],
        reason: "only terminals: all pungs of 1 and 9",
    },
    Exclusion {
        by: LittleFourWinds,
        excluded: &[BigThreeWinds, PungOfTerminalsOrHonors],
        reason: "three wind pungs and a wind pair imply them",
    },
    Exclusion {
        by: LittleThreeDragons,
        excluded: &[TwoDragonsPungs, DragonPung],
        reason: "two dragon pungs and a dragon pair imply them",
    },
    Exclusion {
        by: AllHonors,
        excluded: &[
            AllTerminalsAndHonors,
            AllPungs,
            OutsideHand,
            PungOfTerminalsOrHonors,
            OneVoidedSuit,
        ],
        reason: "only honors: all pungs, no suits",
    },
    Exclusion {
        by: FourConcealedPungs,
        excluded: &[AllPungs, ConcealedHand, FullyConcealedHand],
        reason: "four concealed pungs are all pungs and concealed",
    },
    Exclusion {
        by: PureTerminalChows,
        excluded: &[
            SevenPairs,
            FullFlush,
            AllChows,
            PureDoubleChow,
            TwoTerminalChows,
            OneVoidedSuit,
            NoHonors,
        ],
        reason: "its chows and pair imply them",
    },
    Exclusion {
        by: QuadrupleChow,
        excluded: &[PureTripleChow, PureShiftedPungs, PureDoubleChow, TileHog],
        reason: "four identical chows imply them",
    },
    Exclusion {
        by: FourPureShiftedPungs,
        excluded: &[PureTripleChow, PureShiftedPungs, AllPungs],
        reason: "four shifted pungs imply them",
    },
    Exclusion {
        by: FourPureShiftedChows,
        excluded: &[PureShiftedChows, TwoTerminalChows, ShortStraight],
        reason: "four shifted chows imply them",
    },
    Exclusion {
        by: AllTerminalsAndHonors,
        excluded: &[AllPungs, OutsideHand, PungOfTerminalsOrHonors],
        reason: "only terminals and honors: all pungs",
    },
    Exclusion {
        by: SevenPairs,
        excluded: &[ConcealedHand, FullyConcealedHand, SingleWait],
        reason: "seven pairs are concealed and wait on a pair",
    },
    Exclusion {
        by: GreaterHonorsAndKnittedTiles,
        excluded: &[
            LesserHonorsAndKnittedTiles,
            AllTypes,
            ConcealedHand,
            FullyConcealedHand,
            SingleWait,
        ],
        reason: "it is a concealed hand of every type",
    },
    Exclusion {
        by: AllEvenPungs,
        excluded: &[AllPungs, AllSimples, NoHonors],
        reason: "even pungs only: all pungs of simples",
    },
    Exclusion {
        by: FullFlush,
        excluded: &[OneVoidedSuit, NoHonors],
        reason: "one suit only",
    },
    Exclusion {
        by: PureTripleChow,
        excluded: &[PureShiftedPungs, PureDoubleChow],
        reason: "three identical chows imply them",
    },
    Exclusion {
        by: PureShiftedPungs,
        excluded: &[PureTripleChow],
        reason: "the same tiles read as pungs",
    },
    Exclusion {
        by: UpperTiles,
        excluded: &[UpperFour, NoHonors],
        reason: "7 8 9 only",
    },
    Exclusion {
        by: MiddleTiles,
        excluded: &[AllSimples, NoHonors],
        reason: "4 5 6 only",
    },
    Exclusion {
        by: LowerTiles,
        excluded: &[LowerFour, NoHonors],
        reason: "1 2 3 only",
    },
    Exclusion {
        by: ThreeSuitedTerminalChows,
        excluded: &[AllChows, NoHonors, MixedDoubleChow, TwoTerminalChows],
        reason: "its chows and pair imply them",
    },
    Exclusion {
        by: AllFive,
        excluded: &[AllSimples, NoHonors],
        reason: "every set holds a 5",
    },
    Exclusion {
        by: LesserHonorsAndKnittedTiles,
        excluded: &[AllTypes, ConcealedHand, FullyConcealedHand, SingleWait],
        reason: "it is a concealed hand of every type",
    },
    Exclusion {
        by: UpperFour,
        excluded: &[NoHonors],
        reason: "numbers only",
    },
    Exclusion {
        by: LowerFour,
        excluded: &[NoHonors],
        reason: "numbers only",
    },
    Exclusion {
        by: ReversibleTiles,
        excluded: &[OneVoidedSuit],
        reason: "no characters can be reversible",
    },
    Exclusion {
        by: LastTileDraw,
        excluded: &[SelfDrawn],
        reason: "the last tile was self-drawn",
    },
    Exclusion {
        by: OutWithReplacementTile,
        excluded: &[SelfDrawn],
        reason: "the replacement tile was self-drawn",
    },
    Exclusion {
        by: RobbingTheKong,
        excluded: &[LastTile],
        reason: "a robbed kong tile is always the last of its kind",
    },
    Exclusion {
        by: TwoConcealedKongs,
        excluded: &[ConcealedKong, TwoConcealedPungs],
        reason: "two concealed kongs imply them",
    },
    Exclusion {
        by: HalfFlush,
        excluded: &[OneVoidedSuit],
        reason: "one suit and honors",
    },
    Exclusion {
        by: MeldedHand,
        excluded: &[SingleWait],
        reason: "a melded hand always waits on its pair",
    },
    Exclusion {
        by: TwoDragonsPungs,
        excluded: &[DragonPung],
        reason: "two dragon pungs imply them",
    },
    Exclusion {
        by: ConcealedKongAndMeldedKong,
        excluded: &[ConcealedKong, MeldedKong],
        reason: "the two kongs make one fan",
    },
    Exclusion {
        by: FullyConcealedHand,
        excluded: &[SelfDrawn, ConcealedHand],
        reason: "it includes the self-draw",
    },
    Exclusion {
        by: TwoMeldedKongs,
        excluded: &[MeldedKong],
        reason: "two melded kongs imply it",
    },
    Exclusion {
        by: AllChows,
        excluded: &[NoHonors],
        reason: "four chows and a numbered pair",
    },
    Exclusion {
        by: AllSimples,
        excluded: &[NoHonors],
        reason: "simples only",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The fan of index `i` is `Fan::ALL[i]` (fan masks are read back this way).
    #[test]
    fn all_is_in_index_order() {
        for (i, f) in Fan::ALL.iter().enumerate() {
            assert_eq!(f.index(), i, "{}", f.en());
        }
    }
}

//! Tiles: the 34 playing faces, the 8 bonus tiles and the winds.
//!
//! A [`Tile`] is a dense index. The order is characters (m), bamboo (s), dots (p), then the honors
//! E S W N C F P — the canonical order of the reference MCR calculator, which decides how ties
//! between equally scored readings are broken, so the engine keeps it internally. Notation prints
//! suits in the usual m, p, s order.

use std::fmt;

/// A numbered suit, or the honors.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Suit {
    /// 万 characters, `m`.
    Characters,
    /// 条 bamboo, `s`.
    Bamboo,
    /// 饼 dots, `p`.
    Dots,
    /// 字 winds and dragons.
    Honors,
}

impl Suit {
    /// The notation letter of the suit (`z` for honors).
    pub const fn letter(self) -> char {
        match self {
            Suit::Characters => 'm',
            Suit::Bamboo => 's',
            Suit::Dots => 'p',
            Suit::Honors => 'z',
        }
    }
}

/// One of the 34 playing faces.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tile(u8);

/// Suit and rank of each index, looked up rather than divided (they sit on the hot path).
const SUITS: [Suit; Tile::COUNT] = {
    let mut t = [Suit::Honors; Tile::COUNT];
    let mut i = 0;
    while i < 27 {
        t[i] = match i / 9 {
            0 => Suit::Characters,
            1 => Suit::Bamboo,
            _ => Suit::Dots,
        };
        i += 1;
    }
    t
};
const RANKS: [u8; Tile::COUNT] = {
    let mut t = [0u8; Tile::COUNT];
    let mut i = 0;
    while i < Tile::COUNT {
        t[i] = if i < 27 {
            (i % 9) as u8 + 1
        } else {
            (i - 26) as u8
        };
        i += 1;
    }
    t
};

/// Honor letters in index order: winds E S W N, dragons C (red 中) F (green 發) P (white 白).
const HONOR_LETTERS: [char; 7] = ['E', 'S', 'W', 'N', 'C', 'F', 'P'];
const HONOR_ZH: [&str; 7] = ["东", "南", "西", "北", "中", "发", "白"];

impl Tile {
    /// Number of distinct faces.
    pub const COUNT: usize = 34;
    pub const E: Tile = Tile(27);
    pub const S: Tile = Tile(28);
    pub const W: Tile = Tile(29);
    pub const N: Tile = Tile(30);
    pub const C: Tile = Tile(31);
    pub const F: Tile = Tile(32);
    pub const P: Tile = Tile(33);

    /// Every face, in index order.
    pub fn all() -> impl Iterator<Item = Tile> {
        (0..Self::COUNT as u8).map(Tile)
    }

    /// The tile with this index (0..34).
    pub const fn from_index(i: usize) -> Option<Tile> {
        if i < Self::COUNT {
            Some(Tile(i as u8))
        } else {
            None
        }
    }

    /// A numbered tile; `rank` is 1..=9. `None` for honors or a bad rank.
    pub const fn numbered(suit: Suit, rank: u8) -> Option<Tile> {
        if rank < 1 || rank > 9 {
            return None;
        }
        let base = match suit {
            Suit::Characters => 0,
            Suit::Bamboo => 9,
            Suit::Dots => 18,
            Suit::Honors => return None,
        };
        Some(Tile(base + rank - 1))
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub const fn suit(self) -> Suit {
        SUITS[self.0 as usize]
    }

    /// 1..=9 for numbered tiles; 1..=7 for honors (E S W N C F P).
    #[inline]
    pub const fn rank(self) -> u8 {
        RANKS[self.0 as usize]
    }

    /// A number that grows with the index and leaves gaps between suits, so that `a + 1 == b`
    /// never links two suits (used for "shifted" sets).
    pub const fn code(self) -> u8 {
        let suit = match self.suit() {
            Suit::Characters => 1,
            Suit::Bamboo => 2,
            Suit::Dots => 3,
            Suit::Honors => 4,
        };
        suit * 16 + self.rank()
    }

    pub const fn is_numbered(self) -> bool {
        self.0 < 27
    }
    pub const fn is_honor(self) -> bool {
        self.0 >= 27
    }
    pub const fn is_wind(self) -> bool {
        self.0 >= 27 && self.0 <= 30
    }
    pub const fn is_dragon(self) -> bool {
        self.0 >= 31
    }
    /// 1 or 9 of a suit.
    pub const fn is_terminal(self) -> bool {
        self.is_numbered() && (self.rank() == 1 || self.rank() == 9)
    }
    pub const fn is_terminal_or_honor(self) -> bool {
        self.is_terminal() || self.is_honor()
    }
    /// The tiles of 绿一色: 2 3 4 6 8 bamboo and the green dragon.
    pub const fn is_green(self) -> bool {
        matches!(self.0, 10 | 11 | 12 | 14 | 16 | 32)
    }
    /// The tiles of 推不倒, whose faces look the same upside down: 1234589 dots, 245689 bamboo,
    /// the white dragon.
    pub const fn is_reversible(self) -> bool {
        match self.suit() {
            Suit::Dots => matches!(self.rank(), 1 | 2 | 3 | 4 | 5 | 8 | 9),
            Suit::Bamboo => matches!(self.rank(), 2 | 4 | 5 | 6 | 8 | 9),
            Suit::Honors => self.0 == 33,
            Suit::Characters => false,
        }
    }

    /// The next tile of the same suit (`None` after 9 or for honors).
    pub const fn next(self) -> Option<Tile> {
        if self.is_numbered() && self.rank() < 9 {
            Some(Tile(self.0 + 1))
        } else {
            None
        }
    }
    /// The previous tile of the same suit (`None` before 1 or for honors).
    pub const fn prev(self) -> Option<Tile> {
        if self.is_numbered() && self.rank() > 1 {
            Some(Tile(self.0 - 1))
        } else {
            None
        }
    }
    /// The tile `k` ranks further in the same suit, if it exists.
    pub const fn offset(self, k: i8) -> Option<Tile> {
        if !self.is_numbered() {
            return None;
        }
        let r = self.rank() as i8 + k;
        if r < 1 || r > 9 {
            None
        } else {
            Some(Tile((self.0 as i8 + k) as u8))
        }
    }

    /// The Unicode mahjong glyph (🀇 …).
    pub fn unicode(self) -> char {
        let cp = match self.suit() {
            Suit::Characters => 0x1F007 + u32::from(self.rank()) - 1,
            Suit::Bamboo => 0x1F010 + u32::from(self.rank()) - 1,
            Suit::Dots => 0x1F019 + u32::from(self.rank()) - 1,
            Suit::Honors => match self.0 {
                27 => 0x1F000,
                28 => 0x1F001,
                29 => 0x1F002,
                30 => 0x1F003,
                31 => 0x1F004,
                32 => 0x1F005,
                _ => 0x1F006,
            },
        };
        char::from_u32(cp).unwrap_or('?')
    }

    /// The Chinese name (五万, 东, 中 …).
    pub fn chinese(self) -> String {
        const DIGITS: [&str; 9] = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
        let r = usize::from(self.rank()) - 1;
        match self.suit() {
            Suit::Characters => format!("{}万", DIGITS[r]),
            Suit::Bamboo => format!("{}条", DIGITS[r]),
            Suit::Dots => format!("{}饼", DIGITS[r]),
            Suit::Honors => HONOR_ZH[r].to_string(),
        }
    }

    /// Parses one tile: `5m`, `1p`, `9s`, `E`…`P`, or the honors as `1z`…`7z`.
    pub fn parse(s: &str) -> Result<Tile, TileError> {
        Tile::from_code(s.as_bytes()).ok_or_else(|| TileError(s.to_string()))
    }

    /// The tile a code names (`1m`, `E`, `5z`, as `parse` reads them), from its bytes.
    pub fn from_code(code: &[u8]) -> Option<Tile> {
        match *code {
            [c] => honor_from_letter(char::from(c)),
            [d @ b'1'..=b'9', suit] => {
                let rank = d - b'0';
                match suit {
                    b'm' => Tile::numbered(Suit::Characters, rank),
                    b's' => Tile::numbered(Suit::Bamboo, rank),
                    b'p' => Tile::numbered(Suit::Dots, rank),
                    b'z' if rank <= 7 => Some(Tile(26 + rank)),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The honor whose letter is `c` (E S W N C F P).
pub fn honor_from_letter(c: char) -> Option<Tile> {
    HONOR_LETTERS
        .iter()
        .position(|&h| h == c)
        .map(|i| Tile(27 + i as u8))
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_honor() {
            write!(f, "{}", HONOR_LETTERS[usize::from(self.rank()) - 1])
        } else {
            write!(f, "{}{}", self.rank(), self.suit().letter())
        }
    }
}

impl fmt::Debug for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A string that is not a tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileError(pub String);

impl fmt::Display for TileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a tile (use 1m..9m, 1p..9p, 1s..9s, E S W N C F P)",
            self.0
        )
    }
}

impl std::error::Error for TileError {}

/// A wind, for the seat and the prevalent (round) wind.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Wind {
    #[default]
    East,
    South,
    West,
    North,
}

impl Wind {
    pub const ALL: [Wind; 4] = [Wind::East, Wind::South, Wind::West, Wind::North];

    /// The wind tile of this wind.
    pub const fn tile(self) -> Tile {
        Tile(27 + self as u8)
    }
    pub const fn letter(self) -> char {
        HONOR_LETTERS[self as usize]
    }
    pub fn parse(s: &str) -> Option<Wind> {
        match s {
            "E" | "e" | "east" | "East" | "东" => Some(Wind::East),
            "S" | "s" | "south" | "South" | "南" => Some(Wind::South),
            "W" | "w" | "west" | "West" | "西" => Some(Wind::West),
            "N" | "n" | "north" | "North" | "北" => Some(Wind::North),
            _ => None,
        }
    }
}

impl fmt::Display for Wind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A bonus tile: flowers 梅 兰 竹 菊 (`f1`..`f4`) and seasons 春 夏 秋 冬 (`s1`..`s4`).
/// In MCR each scores one point and none counts towards the minimum.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Bonus(u8);

impl Bonus {
    pub const COUNT: usize = 8;

    pub fn parse(s: &str) -> Option<Bonus> {
        let b = s.as_bytes();
        match b {
            [b'f', d @ b'1'..=b'4'] => Some(Bonus(d - b'1')),
            [b's', d @ b'1'..=b'4'] => Some(Bonus(4 + d - b'1')),
            _ => None,
        }
    }
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    pub fn from_index(i: usize) -> Option<Bonus> {
        (i < Self::COUNT).then_some(Bonus(i as u8))
    }
    pub fn unicode(self) -> char {
        char::from_u32(0x1F022 + u32::from(self.0)).unwrap_or('?')
    }
}

impl fmt::Display for Bonus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 < 4 {
            write!(f, "f{}", self.0 + 1)
        } else {
            write!(f, "s{}", self.0 - 3)
        }
    }
}

/// Bit masks over tile indices, for fast whole-hand tests.
pub mod masks {
    use super::Tile;

    const fn build(kind: u8) -> u64 {
        let mut m = 0u64;
        let mut i = 0;
        while i < Tile::COUNT {
            let t = Tile(i as u8);
            let yes = match kind {
                0 => t.is_honor(),
                1 => t.is_terminal(),
                2 => t.is_terminal_or_honor(),
                3 => t.is_green(),
                4 => t.is_reversible(),
                5 => t.is_wind(),
                _ => t.is_dragon(),
            };
            if yes {
                m |= 1 << i;
            }
            i += 1;
        }
        m
    }
    pub const HONORS: u64 = build(0);
    pub const TERMINALS: u64 = build(1);
    pub const TERMINALS_OR_HONORS: u64 = build(2);
    pub const GREEN: u64 = build(3);
    pub const REVERSIBLE: u64 = build(4);
    pub const WINDS: u64 = build(5);
    pub const DRAGONS: u64 = build(6);
    pub const CHARACTERS: u64 = 0x1FF;
    pub const BAMBOO: u64 = 0x1FF << 9;
    pub const DOTS: u64 = 0x1FF << 18;
}

/// Tile counts over the 34 faces.
pub type Counts = [u8; Tile::COUNT];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_face_round_trips_through_notation() {
        for t in Tile::all() {
            assert_eq!(Tile::parse(&t.to_string()), Ok(t));
        }
        assert_eq!(Tile::parse("5z"), Ok(Tile::C));
        assert!(Tile::parse("0m").is_err());
        assert!(Tile::parse("8z").is_err());
        assert!(Tile::parse("x").is_err());
    }

    #[test]
    fn predicates_follow_the_rulebook() {
        let t = |s| Tile::parse(s).unwrap_or(Tile::E);
        assert!(t("1m").is_terminal() && !t("2m").is_terminal() && !t("E").is_terminal());
        assert!(t("F").is_green() && t("8s").is_green() && !t("5s").is_green());
        assert!(t("P").is_reversible() && t("8p").is_reversible() && !t("6p").is_reversible());
        assert_eq!(t("9s").next(), None);
        assert_eq!(t("1p").unicode(), '🀙');
        assert_eq!(Tile::E.unicode(), '🀀');
        assert!(t("9m").code() + 1 != t("1s").code());
    }

    #[test]
    fn bonus_tiles_parse() {
        assert_eq!(Bonus::parse("f1").map(|b| b.to_string()), Some("f1".into()));
        assert_eq!(Bonus::parse("s4").map(|b| b.to_string()), Some("s4".into()));
        assert_eq!(Bonus::parse("f5"), None);
    }
}

//! A winning hand and the circumstances of the win.

use std::fmt;

use crate::tile::{Counts, Tile, Wind};

/// The player who discarded a claimed tile, seen from the winner.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Seat {
    /// 上家, the player on the left.
    #[default]
    Left,
    /// 对家, the player across.
    Across,
    /// 下家, the player on the right.
    Right,
}

impl Seat {
    pub fn as_str(self) -> &'static str {
        match self {
            Seat::Left => "left",
            Seat::Across => "across",
            Seat::Right => "right",
        }
    }
    pub fn parse(s: &str) -> Option<Seat> {
        match s {
            "left" => Some(Seat::Left),
            "across" => Some(Seat::Across),
            "right" => Some(Seat::Right),
            _ => None,
        }
    }
}

/// What kind of declared meld.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MeldKind {
    /// 吃: three consecutive tiles, one claimed from the left player.
    Chow,
    /// 碰: three equal tiles, one claimed.
    Pung,
    /// 明杠: four equal tiles, one claimed (or added to a claimed pung, 加杠).
    Kong,
    /// 暗杠: four equal tiles drawn by the player.
    ConcealedKong,
}

/// A declared meld (副露), including a concealed kong.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Meld {
    pub kind: MeldKind,
    /// The lowest tile of a chow; the tile of a pung or kong.
    pub tile: Tile,
    /// For a chow: which of its three tiles (0..=2) was claimed.
    pub claimed: u8,
    /// For a pung or exposed kong: who gave the tile.
    pub from: Seat,
    /// An exposed kong made by adding a drawn tile to a claimed pung (加杠).
    pub added: bool,
}

impl Meld {
    pub fn chow(lowest: Tile, claimed: u8) -> Meld {
        Meld {
            kind: MeldKind::Chow,
            tile: lowest,
            claimed,
            from: Seat::Left,
            added: false,
        }
    }
    pub fn pung(tile: Tile, from: Seat) -> Meld {
        Meld {
            kind: MeldKind::Pung,
            tile,
            claimed: 0,
            from,
            added: false,
        }
    }
    pub fn kong(tile: Tile, from: Seat) -> Meld {
        Meld {
            kind: MeldKind::Kong,
            tile,
            claimed: 0,
            from,
            added: false,
        }
    }
    pub fn concealed_kong(tile: Tile) -> Meld {
        Meld {
            kind: MeldKind::ConcealedKong,
            tile,
            claimed: 0,
            from: Seat::Left,
            added: false,
        }
    }

    /// The tiles of the meld.
    pub fn tiles(&self) -> impl Iterator<Item = Tile> + '_ {
        let n = match self.kind {
            MeldKind::Chow | MeldKind::Pung => 3,
            MeldKind::Kong | MeldKind::ConcealedKong => 4,
        };
        (0..n).map(move |i| match self.kind {
            MeldKind::Chow => self.tile.offset(i as i8).unwrap_or(self.tile),
            _ => self.tile,
        })
    }

    pub fn is_kong(&self) -> bool {
        matches!(self.kind, MeldKind::Kong | MeldKind::ConcealedKong)
    }

    /// Claimed from another player (everything but a concealed kong).
    pub fn is_exposed(&self) -> bool {
        self.kind != MeldKind::ConcealedKong
    }
}

/// A winning hand: declared melds, the standing tiles, and the winning tile.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Hand {
    pub melds: Vec<Meld>,
    /// The standing (concealed) tiles, without the winning tile.
    pub concealed: Vec<Tile>,
    pub win_tile: Tile,
}

/// The circumstances of the win.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct WinContext {
    /// 自摸: the winning tile was drawn; otherwise it was a discard (点和).
    pub self_drawn: bool,
    /// 和绝张: the winning tile is the last of its kind (three already shown).
    pub fourth_tile: bool,
    /// With `self_drawn`, 杠上开花 (the kong replacement tile); without, 抢杠和 (robbing a kong).
    pub kong: bool,
    /// With `self_drawn`, 妙手回春 (last tile of the wall); without, 海底捞月 (last discard).
    pub last_tile: bool,
    pub seat_wind: Wind,
    pub prevalent_wind: Wind,
    /// Flowers and seasons: one point each.
    pub flowers: u8,
}

/// Why a hand cannot be scored as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandError {
    /// Melds ×3 + standing tiles must make 13 before the winning tile.
    WrongTileCount {
        melds: usize,
        concealed: usize,
    },
    TooManyMelds(usize),
    /// More than four copies of one tile across melds, hand and winning tile.
    TooManyCopies {
        tile: Tile,
        count: u8,
    },
    /// A chow that does not fit its suit (e.g. starting at 8).
    BadChow(Tile),
    BadClaim {
        meld: usize,
        claimed: u8,
    },
    TooManyFlowers(u8),
    /// The tiles do not form a winning hand under the chosen rules.
    NotWinning,
    /// A circumstance that cannot have happened, under rules that reject them.
    ImpossibleFlag(&'static str),
}

impl fmt::Display for HandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandError::WrongTileCount { melds, concealed } => {
                let n = melds * 3 + concealed + 1;
                write!(
                    f,
                    "wrong number of tiles: {melds} meld(s) and {concealed} standing tile(s) plus the winning tile count as {n}, a winning hand has 14 (each meld counts 3)"
                )
            }
            HandError::TooManyMelds(n) => write!(f, "{n} melds: a hand has at most 4"),
            HandError::TooManyCopies { tile, count } => {
                write!(f, "{count} copies of {tile}: a set has only 4 of each tile")
            }
            HandError::BadChow(t) => write!(f, "no chow starts at {t}"),
            HandError::BadClaim { meld, claimed } => {
                write!(
                    f,
                    "meld {}: claimed tile {} is not 1, 2 or 3",
                    meld + 1,
                    claimed + 1
                )
            }
            HandError::TooManyFlowers(n) => write!(f, "{n} flowers: there are only 8 bonus tiles"),
            HandError::NotWinning => write!(
                f,
                "not a winning hand: the tiles do not form 4 sets and a pair or a special hand"
            ),
            HandError::ImpossibleFlag(why) => write!(f, "impossible circumstances: {why}"),
        }
    }
}

impl std::error::Error for HandError {}

impl Hand {
    /// Checks counts and copies (not whether the hand wins).
    pub fn validate(&self) -> Result<(), HandError> {
        if self.melds.len() > 4 {
            return Err(HandError::TooManyMelds(self.melds.len()));
        }
        if self.melds.len() * 3 + self.concealed.len() != 13 {
            return Err(HandError::WrongTileCount {
                melds: self.melds.len(),
                concealed: self.concealed.len(),
            });
        }
        for (i, m) in self.melds.iter().enumerate() {
            if m.kind == MeldKind::Chow {
                if !m.tile.is_numbered() || m.tile.rank() > 7 {
                    return Err(HandError::BadChow(m.tile));
                }
                if m.claimed > 2 {
                    return Err(HandError::BadClaim {
                        meld: i,
                        claimed: m.claimed,
                    });
                }
            }
        }
        let all = self.all_counts();
        if let Some(t) = Tile::all().find(|t| all[t.index()] > 4) {
            return Err(HandError::TooManyCopies {
                tile: t,
                count: all[t.index()],
            });
        }
        Ok(())
    }

    /// Counts of every tile: melds (kongs as 4), standing tiles and the winning tile.
    pub fn all_counts(&self) -> Counts {
        let mut c = [0u8; Tile::COUNT];
        for m in &self.melds {
            for t in m.tiles() {
                c[t.index()] = c[t.index()].saturating_add(1);
            }
        }
        for t in self.concealed.iter().chain(std::iter::once(&self.win_tile)) {
            c[t.index()] = c[t.index()].saturating_add(1);
        }
        c
    }

    /// Counts of the standing tiles including the winning tile.
    pub fn standing_counts(&self) -> Counts {
        let mut c = [0u8; Tile::COUNT];
        for t in self.concealed.iter().chain(std::iter::once(&self.win_tile)) {
            c[t.index()] = c[t.index()].saturating_add(1);
        }
        c
    }
}

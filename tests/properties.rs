//! Properties over many random winning hands, and no panic on any input.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use suanfan::notation;
use suanfan::scoring::{
    Fan, Hand, Meld, MeldKind, Preset, RuleSet, Seat, WinContext, score, tally,
};
use suanfan::tile::{Suit, Tile, Wind};

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

fn tile(i: usize) -> Tile {
    Tile::from_index(i).unwrap_or(Tile::E)
}

/// A random winning hand: 4 sets and a pair, some sets declared, at most 4 of each tile.
fn random_hand(rng: &mut Rng) -> Option<(Hand, WinContext)> {
    let mut counts = [0u8; 34];
    let mut melds = Vec::new();
    let mut concealed = Vec::new();
    for _ in 0..4 {
        let chow = rng.coin();
        let t = if chow {
            let s = [Suit::Characters, Suit::Bamboo, Suit::Dots][rng.below(3)];
            Tile::numbered(s, 1 + rng.below(7) as u8)?
        } else {
            tile(rng.below(34))
        };
        let tiles: Vec<Tile> = if chow {
            (0..3).filter_map(|k| t.offset(k)).collect()
        } else {
            vec![t; 3]
        };
        for x in &tiles {
            counts[x.index()] += 1;
        }
        if rng.below(3) == 0 {
            let m = if chow {
                Meld::chow(t, rng.below(3) as u8)
            } else {
                match rng.below(4) {
                    0 => {
                        counts[t.index()] += 1;
                        Meld::kong(t, Seat::Across)
                    }
                    1 => {
                        counts[t.index()] += 1;
                        Meld::concealed_kong(t)
                    }
                    _ => Meld::pung(t, Seat::Right),
                }
            };
            melds.push(m);
        } else {
            concealed.extend(tiles);
        }
    }
    let p = tile(rng.below(34));
    counts[p.index()] += 2;
    concealed.extend([p, p]);
    if counts.iter().any(|&c| c > 4) {
        return None;
    }
    let win = concealed.remove(rng.below(concealed.len()));
    let ctx = WinContext {
        self_drawn: rng.coin(),
        fourth_tile: rng.below(8) == 0,
        kong: rng.below(8) == 0,
        last_tile: rng.below(8) == 0,
        seat_wind: Wind::ALL[rng.below(4)],
        prevalent_wind: Wind::ALL[rng.below(4)],
        flowers: rng.below(4) as u8,
    };
    Some((
        Hand {
            melds,
            concealed,
            win_tile: win,
        },
        ctx,
    ))
}

fn relabel(t: Tile, map: [Suit; 3]) -> Tile {
    match t.suit() {
        Suit::Honors => t,
        s => Tile::numbered(map[s as usize], t.rank()).unwrap_or(t),
    }
}

fn hands(n: usize, seed: u64) -> Vec<(Hand, WinContext)> {
    let mut rng = Rng(seed);
    let mut v = Vec::new();
    while v.len() < n {
        if let Some(h) = random_hand(&mut rng) {
            v.push(h);
        }
    }
    v
}

#[test]
fn meld_and_tile_order_do_not_matter() {
    let rules = RuleSet::default();
    let mut rng = Rng(7);
    for (hand, ctx) in hands(3000, 1) {
        let a = score(&hand, &ctx, &rules);
        let mut h2 = hand.clone();
        h2.melds.reverse();
        let n = h2.concealed.len();
        for i in 0..n {
            h2.concealed.swap(i, rng.below(n));
        }
        let b = score(&h2, &ctx, &rules);
        match (a, b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.total, b.total, "{}", notation::format_hand(&hand));
                assert_eq!(
                    a.fan_counts(),
                    b.fan_counts(),
                    "{}",
                    notation::format_hand(&hand)
                );
            }
            (a, b) => assert_eq!(a.err(), b.err()),
        }
    }
}

#[test]
fn relabelling_the_suits_keeps_the_total() {
    let rules = RuleSet::default();
    let perms = [
        [Suit::Dots, Suit::Characters, Suit::Bamboo],
        [Suit::Bamboo, Suit::Dots, Suit::Characters],
        [Suit::Characters, Suit::Dots, Suit::Bamboo],
    ];
    // Only these fans depend on which suit is which.
    let asymmetric = [Fan::AllGreen, Fan::ReversibleTiles];
    let mut checked = 0;
    for (hand, ctx) in hands(3000, 2) {
        let Ok(a) = score(&hand, &ctx, &rules) else {
            continue;
        };
        for map in perms {
            let h2 = Hand {
                melds: hand
                    .melds
                    .iter()
                    .map(|m| Meld {
                        tile: relabel(m.tile, map),
                        ..*m
                    })
                    .collect(),
                concealed: hand.concealed.iter().map(|&t| relabel(t, map)).collect(),
                win_tile: relabel(hand.win_tile, map),
            };
            let b = score(&h2, &ctx, &rules)
                .unwrap_or_else(|e| panic!("{}: {e}", notation::format_hand(&h2)));
            let touches =
                |s: &suanfan::scoring::Score| s.fans.iter().any(|e| asymmetric.contains(&e.fan));
            if touches(&a) || touches(&b) {
                continue;
            }
            checked += 1;
            assert_eq!(
                a.total,
                b.total,
                "{} vs {}",
                notation::format_hand(&hand),
                notation::format_hand(&h2)
            );
        }
    }
    assert!(checked > 1000);
}

#[test]
fn totals_add_up_and_every_preset_scores_the_same_hands() {
    for (hand, ctx) in hands(2000, 3) {
        for p in [Preset::Mil, Preset::Wmo2006] {
            let Ok(s) = score(&hand, &ctx, &RuleSet::preset(p)) else {
                continue;
            };
            let sum: u32 = s.fans.iter().map(|e| e.total()).sum();
            assert_eq!(sum, s.total);
            assert_eq!(s.total, s.total_no_flowers + u32::from(ctx.flowers));
            assert!(!s.fans.is_empty());
        }
    }
}

/// The fan list is ordered as the rulebook lists a score: highest points first, the rulebook's
/// order among equal points, 花牌 last; the batch path's tally lists the same fans in the same
/// order, with the same totals.
#[test]
fn fans_come_highest_first_and_the_tally_agrees() {
    for (hand, ctx) in hands(3000, 11) {
        for p in Preset::ALL {
            let rules = RuleSet::preset(p);
            let Ok(s) = score(&hand, &ctx, &rules) else {
                continue;
            };
            let (flowers, others): (Vec<_>, Vec<_>) =
                s.fans.iter().partition(|e| e.fan == Fan::FlowerTiles);
            assert_eq!(flowers.len(), usize::from(ctx.flowers > 0), "{:?}", s.fans);
            if ctx.flowers > 0 {
                assert_eq!(s.fans.last().map(|e| e.fan), Some(Fan::FlowerTiles));
            }
            for w in others.windows(2) {
                let (a, b) = (w[0], w[1]);
                assert!(
                    a.points > b.points || (a.points == b.points && a.fan < b.fan),
                    "{:?} before {:?} under {p:?}",
                    a.fan,
                    b.fan
                );
            }
            let t = tally(&hand, &ctx, &rules).unwrap_or_else(|e| panic!("{e}"));
            let listed: Vec<(Fan, u16, u8)> =
                s.fans.iter().map(|e| (e.fan, e.points, e.count)).collect();
            assert_eq!(t.fans(), &listed[..], "under {p:?}");
            assert_eq!(
                (t.total, t.total_no_flowers, t.meets_minimum),
                (s.total, s.total_no_flowers, s.meets_minimum)
            );
        }
    }
}

#[test]
fn random_text_never_panics() {
    let alphabet: Vec<char> = "0123456789mpszESWNCFP[],|🀇🀀 x-".chars().collect();
    let mut rng = Rng(11);
    let mut parsed = 0;
    for _ in 0..30_000 {
        let len = rng.below(30);
        let text: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        if let Ok(p) = notation::parse(&text) {
            parsed += 1;
            for preset in Preset::ALL {
                let _ = score(
                    &p.hand,
                    &p.context.unwrap_or_default(),
                    &RuleSet::preset(preset),
                );
            }
        }
    }
    assert!(parsed > 0);
}

#[test]
fn random_tile_soup_never_panics_and_errors_are_typed() {
    let mut rng = Rng(13);
    for _ in 0..20_000 {
        let n_melds = rng.below(6);
        let melds: Vec<Meld> = (0..n_melds)
            .map(|_| {
                let t = tile(rng.below(34));
                match rng.below(4) {
                    0 => Meld {
                        kind: MeldKind::Chow,
                        tile: t,
                        claimed: rng.below(4) as u8,
                        from: Seat::Left,
                        added: false,
                    },
                    1 => Meld::pung(t, Seat::Left),
                    2 => Meld::kong(t, Seat::Right),
                    _ => Meld::concealed_kong(t),
                }
            })
            .collect();
        let n = rng.below(16);
        let concealed: Vec<Tile> = (0..n).map(|_| tile(rng.below(34))).collect();
        let hand = Hand {
            melds,
            concealed,
            win_tile: tile(rng.below(34)),
        };
        let ctx = WinContext {
            flowers: rng.below(12) as u8,
            kong: rng.coin(),
            fourth_tile: rng.coin(),
            ..WinContext::default()
        };
        for preset in Preset::ALL {
            if let Err(e) = score(&hand, &ctx, &RuleSet::preset(preset)) {
                assert!(!e.to_string().is_empty());
            }
        }
    }
}

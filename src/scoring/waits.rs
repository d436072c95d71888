//! Waits (听牌): which tiles complete a 13-tile hand, and what each would score.

use super::hand::{Hand, HandError, WinContext};
use super::rules::RuleSet;
use super::score::{Score, score};
use crate::tile::Tile;

/// One tile the hand waits on.
#[derive(Clone, Debug)]
pub struct Wait {
    pub tile: Tile,
    /// Copies of the tile the player already holds or shows (4 − this is what is left to win on).
    pub held: u8,
    /// Best score when the tile is a discard (点和).
    pub discard: Score,
    /// Best score when the tile is self-drawn (自摸).
    pub self_drawn: Score,
    /// Circumstances asked for that cannot hold when winning on this tile (a rule set that
    /// rejects impossible circumstances): they were left out for this wait, with why.
    pub dropped: Option<String>,
}

/// A hand before its winning tile: declared melds and the standing tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    pub melds: Vec<super::hand::Meld>,
    pub concealed: Vec<Tile>,
}

/// Every tile that completes the hand, with its best scores. A tile of which the player already
/// holds all four cannot be won on and is left out. An empty list means the hand waits on nothing.
pub fn waits(w: &Waiting, ctx: &WinContext, rules: &RuleSet) -> Result<Vec<Wait>, HandError> {
    if w.melds.len() > 4 {
        return Err(HandError::TooManyMelds(w.melds.len()));
    }
    if w.melds.len() * 3 + w.concealed.len() != 13 {
        return Err(HandError::WrongTileCount {
            melds: w.melds.len(),
            concealed: w.concealed.len().saturating_sub(1),
        });
    }
    let mut out = Vec::new();
    for t in Tile::all() {
        let hand = Hand {
            melds: w.melds.clone(),
            concealed: w.concealed.clone(),
            win_tile: t,
        };
        let held = hand.all_counts()[t.index()].saturating_sub(1);
        if held >= 4 {
            // A fifth copy cannot be won on.
            continue;
        }
        match score_both(&hand, ctx, rules) {
            Ok((discard, self_drawn)) => out.push(Wait {
                tile: t,
                held,
                discard,
                self_drawn,
                dropped: None,
            }),
            Err(HandError::ImpossibleFlag(why)) => {
                // The flags asked for cannot hold with this tile (a fourth tile the hand
                // itself holds three of, say): this wait is scored without them.
                let plain = WinContext {
                    fourth_tile: false,
                    last_tile: false,
                    kong: false,
                    ..*ctx
                };
                match score_both(&hand, &plain, rules) {
                    Ok((discard, self_drawn)) => out.push(Wait {
                        tile: t,
                        held,
                        discard,
                        self_drawn,
                        dropped: Some(format!(
                            "scored without fourth tile, last tile and kong: {why}"
                        )),
                    }),
                    Err(HandError::NotWinning) => {}
                    Err(e) => return Err(e),
                }
            }
            Err(HandError::NotWinning) => {}
            Err(HandError::TooManyCopies { tile, .. }) if tile == t => {}
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The hand's best scores on a discard and self-drawn, with the other circumstances of `ctx`
/// (a kong is 抢杠和 on a discard, 杠上开花 self-drawn).
fn score_both(hand: &Hand, ctx: &WinContext, rules: &RuleSet) -> Result<(Score, Score), HandError> {
    let discard = score(
        hand,
        &WinContext {
            self_drawn: false,
            ..*ctx
        },
        rules,
    )?;
    let drawn = score(
        hand,
        &WinContext {
            self_drawn: true,
            ..*ctx
        },
        rules,
    )?;
    Ok((discard, drawn))
}

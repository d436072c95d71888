//! A hand built by hand, for when there is no camera or the picture cannot be read: the bracket
//! notation typed or made from a tile palette, scored with the panel's circumstances.

use eframe::egui;

use crate::notation;
use crate::scoring::{self, RuleSet, Score, WinContext};
use crate::tile::Tile;

/// The notation being built and its score (or why it cannot be scored).
#[derive(Debug, Default)]
pub struct Calculator {
    /// Bracket notation: `[123m,1]456p…` (claimed melds in brackets, the last standing tile
    /// is the winning tile).
    pub text: String,
    pub result: Option<Result<Score, String>>,
}

/// The palette, one row a suit: what each button appends.
const ROWS: [&[&str]; 4] = [
    &["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m"],
    &["1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p"],
    &["1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s"],
    &["E", "S", "W", "N", "C", "F", "P"],
];

impl Calculator {
    /// Scores the notation again; `context` gives what the notation's own suffix does not.
    pub fn rescore(&mut self, context: WinContext, rules: &RuleSet) {
        let text = self.text.trim();
        if text.is_empty() {
            self.result = None;
            return;
        }
        self.result = Some(score_text(text, context, rules));
    }

    /// Takes the last tile off the notation (`123m` → `12m`, `5p5p` → `5p`), or the last
    /// other character (a bracket, a comma).
    pub fn back(&mut self) {
        let chars: Vec<char> = self.text.trim_end().chars().collect();
        let n = chars.len();
        let is_suit = |c: char| matches!(c, 'm' | 'p' | 's');
        let keep = match chars.as_slice() {
            [.., d, e, s] if is_suit(*s) && e.is_ascii_digit() && d.is_ascii_digit() => {
                // `…12m`: the last digit goes, the suit letter stays.
                let mut v = chars[..n - 2].to_vec();
                v.push(*s);
                v
            }
            [.., d, s] if is_suit(*s) && d.is_ascii_digit() => chars[..n - 2].to_vec(),
            [..] => chars[..n.saturating_sub(1)].to_vec(),
        };
        self.text = keep.into_iter().collect();
    }

    /// The notation field, the palette and the edit buttons; true when the notation changed.
    pub fn ui(&mut self, ui: &mut egui::Ui, zh: bool) -> bool {
        let before = self.text.clone();
        ui.add(
            egui::TextEdit::singleline(&mut self.text)
                .hint_text("[123m,1]456p789s11sEEE")
                .desired_width(f32::INFINITY),
        );
        for row in ROWS {
            ui.horizontal(|ui| {
                for &code in row {
                    let Ok(t) = Tile::parse(code) else { continue };
                    let look = super::tiles::Look {
                        height: 32.0,
                        ..super::tiles::Look::default()
                    };
                    let card = super::tiles::card(ui, crate::detection::Face::Tile(t), look);
                    if card.on_hover_text(t.chinese()).clicked() {
                        self.text.push_str(code);
                    }
                }
            });
        }
        ui.horizontal(|ui| {
            let (open, close, back, clear) = if zh {
                ("[ 副露", "]", "退格", "清空")
            } else {
                ("[ meld", "]", "Back", "Clear")
            };
            if ui.button(open).clicked() {
                self.text.push('[');
            }
            if ui.button(close).clicked() {
                self.text.push(']');
            }
            if ui.button(back).clicked() {
                self.back();
            }
            if ui.button(clear).clicked() {
                self.text.clear();
            }
        });
        self.text != before
    }
}

/// Scores a notation with the panel's circumstances where the notation gives none.
fn score_text(text: &str, context: WinContext, rules: &RuleSet) -> Result<Score, String> {
    let parsed = notation::parse(text).map_err(|e| format!("notation: {e}"))?;
    let ctx = parsed.context.unwrap_or(context);
    scoring::score(&parsed.hand, &ctx, rules).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_hand_is_scored_and_a_bad_one_says_why() {
        let rules = RuleSet::default();
        let mut c = Calculator {
            text: "123m456m789m123p55p".into(),
            ..Calculator::default()
        };
        c.rescore(WinContext::default(), &rules);
        let s = c.result.as_ref().unwrap().as_ref().unwrap();
        assert!(s.fans.iter().any(|f| f.fan.en() == "Pure Straight"));
        c.text = "123m4".into();
        c.rescore(WinContext::default(), &rules);
        assert!(c.result.as_ref().unwrap().is_err());
        c.text = "  ".into();
        c.rescore(WinContext::default(), &rules);
        assert!(c.result.is_none());
    }

    #[test]
    fn back_takes_off_the_last_tile() {
        let mut c = Calculator::default();
        for (before, after) in [
            ("123m", "12m"),
            ("5p5p", "5p"),
            ("[123m,1]E", "[123m,1]"),
            ("[123m,1]", "[123m,1"),
            ("1m", ""),
            ("", ""),
            ("中", ""),
        ] {
            c.text = before.into();
            c.back();
            assert_eq!(c.text, after, "{before}");
        }
    }

    #[test]
    fn every_palette_button_is_a_tile() {
        for row in ROWS {
            for code in row {
                assert!(Tile::parse(code).is_ok(), "{code}");
            }
        }
    }
}

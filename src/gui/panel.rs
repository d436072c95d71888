//! The side panel: the hand read as tiles (click one to correct it), the circumstances a
//! camera cannot see, and the score explained. Pure egui over plain data, so it is tested
//! headless (`egui_kittest`).

use eframe::egui::{self, Color32, RichText};

use crate::detection::{CLASS_COUNT, Detection, Face};
use crate::explain::Lang;
use crate::scan::{Given, ScanOutcome, finish};
use crate::scoring::{Preset, RuleSet, Seat, WinContext};
use crate::table::layout::{Group, GroupKind};
use crate::tile::Wind;

use super::calculator::Calculator;
use super::session::Session;
use super::tiles;

/// What a camera cannot see, set in the panel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Controls {
    pub context: WinContext,
    /// None: the flowers seen in the picture count.
    pub flowers: Option<u8>,
    pub preset: Preset,
    pub lang: Lang,
}

impl Default for Controls {
    fn default() -> Self {
        Controls {
            context: WinContext::default(),
            flowers: None,
            preset: Preset::Mil,
            lang: Lang::En,
        }
    }
}

/// The hand shown: its tiles, the corrections made by hand, and its score.
#[derive(Debug, Default)]
pub struct Panel {
    pub controls: Controls,
    detections: Vec<Detection>,
    corrections: Vec<(usize, Face)>,
    pub outcome: Option<ScanOutcome>,
    /// The tile whose correction menu is open.
    picked: Option<usize>,
    /// The session log, when the window keeps one: who won from whom at which hand.
    pub session: Option<Session>,
    /// What the last "Next hand" did.
    pub kept: Option<String>,
    /// A hand built by hand (palette or notation), scored with the same circumstances.
    pub calculator: Calculator,
}

fn label(lang: Lang, en: &'static str, zh: &'static str) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

fn group_colour(kind: GroupKind) -> Color32 {
    match kind {
        GroupKind::Hand => Color32::from_rgb(40, 160, 70),
        GroupKind::Winning => Color32::from_rgb(230, 130, 0),
        GroupKind::Chow { .. } | GroupKind::Pung { .. } | GroupKind::Kong { .. } => {
            Color32::from_rgb(40, 110, 230)
        }
        GroupKind::ConcealedKong => Color32::from_rgb(0, 170, 190),
        GroupKind::Bonus => Color32::from_rgb(170, 70, 200),
        GroupKind::Stray => Color32::GRAY,
        GroupKind::Others => Color32::from_rgb(100, 100, 160),
    }
}

impl Panel {
    /// Shows a new hand (the fused tiles of a locked hand, or a photo's).
    pub fn set_hand(&mut self, detections: Vec<Detection>) {
        self.detections = detections;
        self.corrections.clear();
        self.picked = None;
        self.rescore();
    }

    /// The bounds (x0, y0, x1, y1, source pixels) of the other players' tiles of the hand
    /// shown, when the whole table was in view.
    pub fn others_bounds(&self) -> Vec<[f32; 4]> {
        let Some(o) = &self.outcome else {
            return Vec::new();
        };
        o.reading
            .of_kind(|k| k == GroupKind::Others)
            .flat_map(|g| g.tiles.iter())
            .filter_map(|&i| o.detections.get(i))
            .map(|d| d.bounds())
            .collect()
    }

    /// The tiles with the corrections applied: a corrected tile is certain of its face.
    fn corrected(&self) -> Vec<Detection> {
        let mut d = self.detections.clone();
        for &(i, face) in &self.corrections {
            if let Some(t) = d.get_mut(i) {
                t.face_down = false;
                t.probs = vec![0.0; CLASS_COUNT];
                t.probs[face.class()] = 1.0;
            }
        }
        d
    }

    /// Scores the hand again with the controls and corrections.
    pub fn rescore(&mut self) {
        let c = self.controls;
        let mut context = c.context;
        context.flowers = c.flowers.unwrap_or(0);
        self.calculator.rescore(context, &RuleSet::preset(c.preset));
        if self.detections.is_empty() {
            self.outcome = None;
            return;
        }
        let given = Given {
            context,
            flowers_given: c.flowers.is_some(),
            winds_given: true,
            self_drawn_given: true,
        };
        let rules = RuleSet::preset(c.preset);
        let name = self
            .outcome
            .as_ref()
            .map(|o| o.image.clone())
            .unwrap_or_default();
        let o = finish(
            name,
            self.corrected(),
            &given,
            &rules,
            0.0,
            0.0,
            std::time::Instant::now(),
        );
        self.outcome = Some(o);
    }

    /// Sets tile `i` to `face` and scores again.
    pub fn correct(&mut self, i: usize, face: Face) {
        self.corrections.retain(|(k, _)| *k != i);
        self.corrections.push((i, face));
        self.picked = None;
        self.rescore();
    }

    /// Draws the panel; rescoring happens inside when anything changes.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.controls.lang;
        if self.controls_ui(ui) {
            self.rescore();
        }
        ui.separator();
        self.calculator_ui(ui);
        let Some(o) = &self.outcome else {
            ui.label(label(lang, "No hand yet.", "还没有手牌。"));
            return;
        };
        ui.heading(label(lang, "Hand", "手牌"));
        let mut clicked = None;
        let picked = self.picked;
        ui.horizontal_wrapped(|ui| {
            // The other players' tiles (the whole table in view) are outlined on the picture,
            // not listed with the hand.
            for g in o.reading.of_kind(|k| k != GroupKind::Others) {
                // A meld stays on one line; the standing tiles wrap.
                if g.kind != GroupKind::Hand
                    && ui.available_size_before_wrap().x < group_width(ui, g)
                {
                    ui.end_row();
                }
                clicked = clicked.or(group_cards(ui, o, g, picked));
                ui.add_space(8.0);
            }
        });
        let others = o
            .reading
            .of_kind(|k| k == GroupKind::Others)
            .map(|g| g.tiles.len())
            .sum::<usize>();
        if others > 0 {
            ui.label(match lang {
                Lang::En => format!("{others} tiles of the other players (not scored)"),
                Lang::Zh => format!("其他玩家的牌 {others} 张（不计分）"),
            });
        }
        if let Some(i) = clicked {
            self.picked = Some(i);
        }
        if let Some(i) = self.picked {
            if let Some(face) = self.correction_ui(ui, i) {
                self.correct(i, face);
            }
        }
        if let Some(o) = &self.outcome {
            score_ui(ui, o, lang);
        }
        self.next_hand_ui(ui);
    }

    /// The calculator, folded away unless opened or holding a hand.
    fn calculator_ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.controls.lang;
        let title = label(lang, "Build a hand", "手动输入手牌");
        // Open at first when there is nothing else to show (no camera, no photo yet).
        let open = !self.calculator.text.is_empty() || self.outcome.is_none();
        let changed = egui::CollapsingHeader::new(title)
            .default_open(open)
            .show(ui, |ui| {
                let changed = self.calculator.ui(ui, lang == Lang::Zh);
                match &self.calculator.result {
                    Some(Ok(s)) => fans_ui(ui, s, lang),
                    Some(Err(e)) => {
                        ui.label(RichText::new(e).color(Color32::RED));
                    }
                    None => {}
                }
                changed
            })
            .body_returned
            .unwrap_or(false);
        if changed {
            self.rescore();
        }
        ui.separator();
    }

    /// "Next hand": the hand shown goes to the session log, the panel clears.
    fn next_hand_ui(&mut self, ui: &mut egui::Ui) {
        let lang = self.controls.lang;
        let Some(session) = &mut self.session else {
            return;
        };
        let score = self.outcome.as_ref().and_then(|o| o.score.as_ref());
        ui.separator();
        let button = ui.add_enabled(
            score.is_some(),
            egui::Button::new(label(lang, "Next hand", "下一盘")),
        );
        if let (true, Some(s)) = (button.clicked(), score) {
            let hand = session.hand_number;
            let rules = RuleSet::preset(self.controls.preset);
            self.kept = Some(match session.keep(s, &rules) {
                Ok(()) => format!("hand {hand} kept in {}", session.path().display()),
                Err(e) => format!("cannot write {}: {e}", session.path().display()),
            });
            self.set_hand(Vec::new());
        }
        if let Some(k) = &self.kept {
            ui.label(RichText::new(k).small());
        }
    }

    /// The circumstances; true when one changed.
    fn controls_ui(&mut self, ui: &mut egui::Ui) -> bool {
        let c = &mut self.controls;
        let before = *c;
        let lang = c.lang;
        ui.horizontal(|ui| {
            ui.selectable_value(&mut c.lang, Lang::En, "English");
            ui.selectable_value(&mut c.lang, Lang::Zh, "中文");
            egui::ComboBox::new("rules", label(lang, "Rules", "规则"))
                .selected_text(c.preset.name())
                .show_ui(ui, |ui| {
                    for p in Preset::ALL {
                        ui.selectable_value(&mut c.preset, p, p.name());
                    }
                });
        });
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(&mut c.context.self_drawn, label(lang, "Self-drawn", "自摸"));
            ui.checkbox(
                &mut c.context.fourth_tile,
                label(lang, "Fourth tile", "和绝张"),
            );
            ui.checkbox(&mut c.context.last_tile, label(lang, "Last tile", "海底"));
            ui.checkbox(&mut c.context.kong, label(lang, "Kong", "杠"));
        });
        if let Some(session) = &mut self.session {
            session_ui(ui, session, lang);
            let (prevalent, seat) = session.winds();
            c.context.prevalent_wind = prevalent;
            c.context.seat_wind = seat;
            c.context.self_drawn = session.from.is_none();
            return *c != before;
        }
        ui.horizontal(|ui| {
            for (text, wind) in [
                (label(lang, "Seat", "门风"), &mut c.context.seat_wind),
                (
                    label(lang, "Prevalent", "圈风"),
                    &mut c.context.prevalent_wind,
                ),
            ] {
                egui::ComboBox::new(text, text)
                    .selected_text(wind.to_string())
                    .width(40.0)
                    .show_ui(ui, |ui| {
                        for w in [Wind::East, Wind::South, Wind::West, Wind::North] {
                            ui.selectable_value(wind, w, w.to_string());
                        }
                    });
            }
        });
        ui.horizontal(|ui| {
            let mut fixed = c.flowers.is_some();
            ui.checkbox(&mut fixed, label(lang, "Flowers", "花牌"));
            let mut n = c.flowers.unwrap_or(0);
            if fixed {
                ui.add(egui::Slider::new(&mut n, 0..=8));
            } else {
                ui.label(label(lang, "as seen", "按画面"));
            }
            c.flowers = fixed.then_some(n);
        });
        *c != before
    }

    /// The model's alternatives for tile `i`, then any face; the face chosen, if any.
    fn correction_ui(&self, ui: &mut egui::Ui, i: usize) -> Option<Face> {
        let d = self.detections.get(i)?;
        let mut chosen = None;
        ui.group(|ui| {
            ui.label(format!(
                "{} {}",
                label(self.controls.lang, "Correct tile", "更正牌"),
                i + 1
            ));
            ui.horizontal_wrapped(|ui| {
                for (face, p) in d.ranked().into_iter().take(4) {
                    if ui.button(format!("{face} {:.0}%", 100.0 * p)).clicked() {
                        chosen = Some(face);
                    }
                }
            });
            egui::ComboBox::new("any face", label(self.controls.lang, "any face", "其他牌"))
                .selected_text("…")
                .show_ui(ui, |ui| {
                    for c in 0..CLASS_COUNT {
                        if let Some(face) = Face::from_class(c) {
                            if ui.selectable_label(false, face.to_string()).clicked() {
                                chosen = Some(face);
                            }
                        }
                    }
                });
        });
        chosen
    }
}

/// Hand number, winner and discarder of the session log (they set the winds and self-drawn).
fn session_ui(ui: &mut egui::Ui, session: &mut Session, lang: Lang) {
    ui.horizontal(|ui| {
        let name = ui.label(label(lang, "Hand no.", "盘"));
        ui.add(egui::DragValue::new(&mut session.hand_number).range(1..=16))
            .labelled_by(name.id);
        let players = session.players.clone();
        egui::ComboBox::new("winner", label(lang, "Winner", "和牌者"))
            .selected_text(players[session.winner].as_str())
            .show_ui(ui, |ui| {
                for (k, p) in players.iter().enumerate() {
                    ui.selectable_value(&mut session.winner, k, p.as_str());
                }
            });
        let from_text = session
            .from
            .map_or(label(lang, "self-drawn", "自摸").to_string(), |d| {
                players[d].clone()
            });
        egui::ComboBox::new("from", label(lang, "From", "点和者"))
            .selected_text(from_text)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut session.from, None, label(lang, "self-drawn", "自摸"));
                for (k, p) in players.iter().enumerate() {
                    ui.selectable_value(&mut session.from, Some(k), p.as_str());
                }
            });
    });
}

/// Fans, what was not counted, total, minimum and payments.
fn score_ui(ui: &mut egui::Ui, o: &ScanOutcome, lang: Lang) {
    let Some(s) = &o.score else {
        ui.label(
            RichText::new(label(lang, "Not a valid winning hand.", "不是有效的和牌。"))
                .color(Color32::RED),
        );
        for issue in &o.issues {
            ui.label(issue);
        }
        return;
    };
    fans_ui(ui, s, lang);
    for a in &o.assumed {
        ui.label(RichText::new(a).small().weak());
    }
}

/// A score explained: the hand, each fan, the fans not counted, the total, the minimum, the
/// payments and the score's notes.
fn fans_ui(ui: &mut egui::Ui, s: &crate::scoring::Score, lang: Lang) {
    ui.label(RichText::new(crate::notation::format_hand(&s.hand)).monospace());
    ui.heading(label(lang, "Fans", "番种"));
    egui::Grid::new(ui.scope_id().with("fans"))
        .striped(true)
        .show(ui, |ui| {
            for e in &s.fans {
                ui.label(format!("{}", e.total()));
                ui.label(e.fan.zh());
                ui.label(e.fan.en());
                ui.label(if e.count > 1 {
                    format!("×{}", e.count)
                } else {
                    String::new()
                });
                ui.horizontal(|ui| fan_tiles(ui, s, e));
                ui.end_row();
            }
        });
    if !s.not_counted.is_empty() {
        ui.collapsing(label(lang, "Not counted", "不计"), |ui| {
            for n in &s.not_counted {
                ui.label(format!("{} {} — {}", n.fan.zh(), n.fan.en(), n.reason));
            }
        });
    }
    ui.label(
        RichText::new(format!("{} {}", label(lang, "Total", "合计"), s.total))
            .strong()
            .size(20.0),
    );
    let minimum = if s.meets_minimum {
        RichText::new(label(lang, "Minimum of 8 met", "够八番起和"))
            .color(Color32::from_rgb(40, 150, 60))
    } else {
        RichText::new(label(
            lang,
            "Below the minimum: a false win (错和)",
            "不够八番: 错和",
        ))
        .color(Color32::RED)
    };
    ui.label(minimum);
    if let Some(p) = s.payment {
        ui.label(crate::explain::payment_text(&p));
    }
    for a in &s.notes {
        ui.label(RichText::new(*a).small().weak());
    }
}

/// The cards of one group of the hand, bordered in its colour, its claimed tile turned;
/// the detection clicked, if any.
fn group_cards(
    ui: &mut egui::Ui,
    o: &ScanOutcome,
    g: &Group,
    picked: Option<usize>,
) -> Option<usize> {
    let claimed = claimed_position(g.kind, g.tiles.len());
    let mut clicked = None;
    for (k, &i) in g.tiles.iter().enumerate() {
        let doubtful = o.decoded.changes.iter().any(|c| c.det == i);
        let response = match o.face_of(i) {
            Some((face, _)) => tiles::card(
                ui,
                face,
                tiles::Look {
                    border: group_colour(g.kind),
                    doubtful,
                    selected: picked == Some(i),
                    turned: claimed == Some(k),
                    ..tiles::Look::default()
                },
            ),
            None => tiles::back(
                ui,
                tiles::Look {
                    border: group_colour(g.kind),
                    selected: picked == Some(i),
                    ..tiles::Look::default()
                },
            ),
        };
        if response.on_hover_text(g.kind.name()).clicked() {
            clicked = Some(i);
        }
    }
    clicked
}

/// The tiles of the sets that make a fan, small, one set after another (nothing for a fan
/// about the whole hand or the way it was won).
fn fan_tiles(ui: &mut egui::Ui, s: &crate::scoring::Score, e: &crate::scoring::FanEntry) {
    ui.spacing_mut().item_spacing.x = 1.0;
    for k in e.sets.iter() {
        let Some(set) = s.sets.get(k) else { continue };
        for t in set.tiles() {
            tiles::picture(ui, Face::Tile(t), FAN_TILE_HEIGHT);
        }
        ui.add_space(4.0);
    }
}

/// How high the fans' tiles are drawn, in points.
const FAN_TILE_HEIGHT: f32 = 20.0;

/// How wide a group's cards lie, spaces between them included.
fn group_width(ui: &egui::Ui, g: &Group) -> f32 {
    let claimed = claimed_position(g.kind, g.tiles.len());
    let cards: f32 = (0..g.tiles.len())
        .map(|k| {
            let look = tiles::Look {
                turned: claimed == Some(k),
                ..tiles::Look::default()
            };
            tiles::card_size(look).x
        })
        .sum();
    cards + g.tiles.len().saturating_sub(1) as f32 * ui.spacing().item_spacing.x
}

/// Which tile of a claimed meld of `n` tiles (left to right) lies turned: the claimed tile of
/// a chow where it was; for a pung or kong, by the usual way of laying it, the first tile
/// when the player on the left gave it, the second from across, the last from the right.
fn claimed_position(kind: GroupKind, n: usize) -> Option<usize> {
    match kind {
        GroupKind::Chow { claimed } => Some(usize::from(claimed)),
        GroupKind::Pung { from } | GroupKind::Kong { from } => Some(match from {
            Seat::Left => 0,
            Seat::Across => 1,
            Seat::Right => n.saturating_sub(1),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_claimed_tile_of_a_meld_lies_where_its_giver_sits() {
        let pung = |from| GroupKind::Pung { from };
        assert_eq!(claimed_position(GroupKind::Chow { claimed: 2 }, 3), Some(2));
        assert_eq!(claimed_position(pung(Seat::Left), 3), Some(0));
        assert_eq!(claimed_position(pung(Seat::Across), 3), Some(1));
        assert_eq!(claimed_position(pung(Seat::Right), 3), Some(2));
        let kong = GroupKind::Kong { from: Seat::Right };
        assert_eq!(claimed_position(kong, 4), Some(3));
        assert_eq!(claimed_position(GroupKind::ConcealedKong, 4), None);
        assert_eq!(claimed_position(GroupKind::Hand, 13), None);
    }
}

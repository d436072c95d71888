//! Tiles drawn as small cards, for the panel's hand and the calculator's palette, with their
//! face painted as on a real tile (`face_art`): the dots' circles and the bamboos' sticks in
//! their usual layouts, the characters' numeral over 萬, the honours' character, 白's frame
//! (letters where no font with Chinese was loaded). Screen readers and the UI tests read a
//! card by its short name (`5p`, `E`, `f1`).

use std::sync::atomic::{AtomicBool, Ordering};

use eframe::egui::{
    self, Color32, CornerRadius, Response, Sense, Stroke, StrokeKind, Vec2, WidgetInfo,
};

use super::face_art;
use crate::detection::Face;
use crate::tile::{Suit, Tile};

/// Whether a font with Chinese is loaded (set where the fonts are installed).
static CHINESE: AtomicBool = AtomicBool::new(false);

/// Says whether the cards may draw Chinese characters.
pub fn set_chinese(on: bool) {
    CHINESE.store(on, Ordering::Relaxed);
}

/// How a card is drawn beyond its face.
#[derive(Debug, Clone, Copy)]
pub struct Look {
    /// The border's colour (the group the tile belongs to in the panel).
    pub border: Color32,
    /// The reading is doubtful: a red corner mark.
    pub doubtful: bool,
    /// Picked for correction: drawn raised.
    pub selected: bool,
    /// Card height in points (the width is 3/4 of it).
    pub height: f32,
    /// Lying turned a quarter, its top to the left, as a claimed tile lies in its meld (the
    /// card is then `height` wide).
    pub turned: bool,
}

impl Default for Look {
    fn default() -> Self {
        Look {
            border: Color32::from_gray(120),
            doubtful: false,
            selected: false,
            height: 38.0,
            turned: false,
        }
    }
}

const IVORY: Color32 = Color32::from_rgb(255, 252, 238);
pub(super) const CHARACTERS: Color32 = Color32::from_rgb(178, 34, 34);
pub(super) const DOTS: Color32 = Color32::from_rgb(20, 60, 140);
pub(super) const BAMBOO: Color32 = Color32::from_rgb(30, 120, 50);
const HONOUR: Color32 = Color32::from_rgb(40, 40, 40);
pub(super) const BONUS: Color32 = Color32::from_rgb(150, 90, 10);

/// What is written on a card: the top line, the bottom line (may be empty) and the colour.
pub fn writing(face: Face, chinese: bool) -> (String, String, Color32) {
    const RANKS: [&str; 9] = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
    match face {
        Face::Tile(t) => tile_writing(t, chinese, &RANKS),
        Face::Bonus(b) => {
            let name = b.to_string();
            let zh = ["梅", "蘭", "竹", "菊", "春", "夏", "秋", "冬"];
            let top = if chinese {
                zh.get(b.index()).map_or(name.clone(), |s| (*s).to_string())
            } else {
                name
            };
            (top, String::new(), BONUS)
        }
    }
}

fn tile_writing(t: Tile, chinese: bool, ranks: &[&str; 9]) -> (String, String, Color32) {
    let r = usize::from(t.rank());
    let (suit_zh, suit_en, colour) = match t.suit() {
        Suit::Characters => ("萬", "m", CHARACTERS),
        Suit::Dots => ("筒", "p", DOTS),
        Suit::Bamboo => ("索", "s", BAMBOO),
        Suit::Honors => {
            const ZH: [&str; 7] = ["東", "南", "西", "北", "中", "發", "白"];
            let colour = match r {
                5 => CHARACTERS,
                6 => BAMBOO,
                7 => DOTS,
                _ => HONOUR,
            };
            let text = if chinese {
                ZH[r - 1].to_string()
            } else {
                t.to_string()
            };
            return (text, String::new(), colour);
        }
    };
    if chinese {
        (ranks[r - 1].to_string(), suit_zh.to_string(), colour)
    } else {
        (r.to_string(), suit_en.to_string(), colour)
    }
}

/// Draws one card; clicking it is the response's click.
pub fn card(ui: &mut egui::Ui, face: Face, look: Look) -> Response {
    let (rect, response) = ui.allocate_exact_size(card_size(look), Sense::click());
    let name = face.to_string();
    response.widget_info(|| WidgetInfo::labeled(egui::accesskit::Role::Button, true, &name));
    if ui.is_rect_visible(rect) {
        let rect = if look.selected {
            rect.translate(Vec2::new(0.0, -3.0))
        } else {
            rect
        };
        let width = if response.hovered() || look.selected {
            2.5
        } else {
            1.5
        };
        paint(ui.painter(), rect, face, look, width);
    }
    response
}

/// A face-down tile (of a concealed kong): its back, green, named "back" for screen readers.
pub fn back(ui: &mut egui::Ui, look: Look) -> Response {
    let (rect, response) = ui.allocate_exact_size(card_size(look), Sense::click());
    response.widget_info(|| WidgetInfo::labeled(egui::accesskit::Role::Button, true, "back"));
    if ui.is_rect_visible(rect) {
        let radius = CornerRadius::same((look.height / 8.0) as u8);
        paint_back(ui.painter(), rect, radius, look.border);
    }
    response
}

/// The back of a tile: a green body on an ivory base, bordered.
fn paint_back(painter: &egui::Painter, rect: egui::Rect, radius: CornerRadius, border: Color32) {
    painter.rect_filled(rect, radius, IVORY);
    let body = rect.with_max_y(rect.max.y - rect.height() * 0.12);
    painter.rect_filled(body, radius, Color32::from_rgb(30, 110, 70));
    painter.rect_stroke(rect, radius, Stroke::new(1.5, border), StrokeKind::Inside);
}

/// A small picture of a tile, not clickable and not a control of its own (the fans' tiles):
/// screen readers and the UI tests find the hand's cards alone by their names.
pub fn picture(ui: &mut egui::Ui, face: Face, height: f32) -> Response {
    let look = Look {
        height,
        ..Look::default()
    };
    let (rect, response) = ui.allocate_exact_size(card_size(look), Sense::hover());
    if ui.is_rect_visible(rect) {
        paint(ui.painter(), rect, face, look, 1.0);
    }
    response
}

/// A card's size: 3/4 as wide as high, or lying turned.
pub(super) fn card_size(look: Look) -> Vec2 {
    if look.turned {
        Vec2::new(look.height, look.height * 0.75)
    } else {
        Vec2::new(look.height * 0.75, look.height)
    }
}

/// Paints a card in `rect`: the ivory body, its border `width` thick, the face, the doubtful
/// mark.
fn paint(painter: &egui::Painter, rect: egui::Rect, face: Face, look: Look, width: f32) {
    let radius = CornerRadius::same((look.height / 8.0) as u8);
    painter.rect_filled(rect, radius, IVORY);
    painter.rect_stroke(
        rect,
        radius,
        Stroke::new(width, look.border),
        StrokeKind::Inside,
    );
    face_art::draw(
        painter,
        rect.shrink(look.height * 0.09),
        face,
        CHINESE.load(Ordering::Relaxed),
        look.turned,
    );
    if look.doubtful {
        let h = look.height;
        let c = rect.right_top() + Vec2::new(-h * 0.12, h * 0.12);
        painter.circle_filled(c, h * 0.1, Color32::from_rgb(220, 30, 30));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(s: &str) -> Face {
        Face::Tile(Tile::parse(s).unwrap_or_else(|e| panic!("{e}")))
    }

    #[test]
    fn cards_write_rank_and_suit() {
        assert_eq!(writing(face("5p"), false).0, "5");
        assert_eq!(writing(face("5p"), false).1, "p");
        assert_eq!(writing(face("5p"), true).0, "五");
        assert_eq!(writing(face("5p"), true).1, "筒");
        assert_eq!(writing(face("9m"), true).1, "萬");
        assert_eq!(writing(face("C"), true).0, "中");
        assert_eq!(writing(face("C"), true).2, CHARACTERS);
        assert_eq!(
            writing(face("F"), false),
            ("F".into(), String::new(), BAMBOO)
        );
    }
}

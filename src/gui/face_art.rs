//! A tile's face painted with egui's shapes, as a real tile shows it: the dots' circles and
//! the bamboos' sticks in their usual layouts (the 1 of bamboo as one tall stick, as some sets
//! draw it instead of the bird), the characters' numeral over 萬, the honours' character, 白
//! as its blue frame, a flower or season's character with its number in the corner. Where no
//! font with Chinese was loaded, letters stand for the characters (`5` over `m`, `E`).

use std::f32::consts::FRAC_PI_2;

use eframe::egui::{
    Color32, FontId, Painter, Pos2, Rect, Stroke, StrokeKind, Vec2, epaint::TextShape, pos2,
};

use super::tiles::{BAMBOO, BONUS, CHARACTERS, DOTS, writing};
use crate::detection::Face;
use crate::tile::{Suit, Tile};

/// Three rows of three: the 9 of dots and the 9 of bamboo.
const NINE: [(f32, f32); 9] = [
    (0.2, 0.17),
    (0.5, 0.17),
    (0.8, 0.17),
    (0.2, 0.5),
    (0.5, 0.5),
    (0.8, 0.5),
    (0.2, 0.83),
    (0.5, 0.83),
    (0.8, 0.83),
];

/// Where the pips of a dots tile lie, in shares of the face (x, y), by rank.
const DOT_LAYOUTS: [&[(f32, f32)]; 9] = [
    &[(0.5, 0.5)],
    &[(0.5, 0.25), (0.5, 0.75)],
    &[(0.22, 0.18), (0.5, 0.5), (0.78, 0.82)],
    &[(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    &[
        (0.25, 0.22),
        (0.75, 0.22),
        (0.5, 0.5),
        (0.25, 0.78),
        (0.75, 0.78),
    ],
    &[
        (0.27, 0.15),
        (0.73, 0.15),
        (0.27, 0.55),
        (0.73, 0.55),
        (0.27, 0.85),
        (0.73, 0.85),
    ],
    &[
        (0.2, 0.1),
        (0.5, 0.22),
        (0.8, 0.34),
        (0.28, 0.6),
        (0.72, 0.6),
        (0.28, 0.87),
        (0.72, 0.87),
    ],
    &[
        (0.28, 0.12),
        (0.72, 0.12),
        (0.28, 0.37),
        (0.72, 0.37),
        (0.28, 0.63),
        (0.72, 0.63),
        (0.28, 0.88),
        (0.72, 0.88),
    ],
    &NINE,
];

/// Where the sticks of a bamboo tile stand, in shares of the face (x, y of the stick's centre),
/// by rank; a stick is as tall as its row allows.
const STICK_LAYOUTS: [&[(f32, f32)]; 9] = [
    &[(0.5, 0.5)],
    &[(0.5, 0.27), (0.5, 0.73)],
    &[(0.5, 0.27), (0.28, 0.73), (0.72, 0.73)],
    &[(0.3, 0.27), (0.7, 0.27), (0.3, 0.73), (0.7, 0.73)],
    &[
        (0.22, 0.27),
        (0.78, 0.27),
        (0.5, 0.5),
        (0.22, 0.73),
        (0.78, 0.73),
    ],
    &[
        (0.2, 0.27),
        (0.5, 0.27),
        (0.8, 0.27),
        (0.2, 0.73),
        (0.5, 0.73),
        (0.8, 0.73),
    ],
    &[
        (0.5, 0.17),
        (0.2, 0.5),
        (0.5, 0.5),
        (0.8, 0.5),
        (0.2, 0.83),
        (0.5, 0.83),
        (0.8, 0.83),
    ],
    &[
        (0.14, 0.27),
        (0.38, 0.27),
        (0.62, 0.27),
        (0.86, 0.27),
        (0.14, 0.73),
        (0.38, 0.73),
        (0.62, 0.73),
        (0.86, 0.73),
    ],
    &NINE,
];

const RED: Color32 = Color32::from_rgb(196, 30, 40);
const GREEN: Color32 = Color32::from_rgb(20, 120, 60);
/// The numeral of a characters tile, and the winds.
const INK: Color32 = Color32::from_rgb(25, 35, 90);

/// The face of a card, upright or turned a quarter (its top to the left, as a claimed tile
/// lies in a meld): positions and sizes are given on the face, as if upright.
#[derive(Clone, Copy)]
struct Frame {
    area: Rect,
    turned: bool,
}

impl Frame {
    /// The face's width and height (the area's, swapped when turned).
    fn size(self) -> (f32, f32) {
        let (w, h) = (self.area.width(), self.area.height());
        if self.turned { (h, w) } else { (w, h) }
    }

    /// The point at shares (x, y) of the face.
    fn at(self, x: f32, y: f32) -> Pos2 {
        let a = self.area;
        if self.turned {
            pos2(a.left() + a.width() * y, a.bottom() - a.height() * x)
        } else {
            pos2(a.left() + a.width() * x, a.top() + a.height() * y)
        }
    }

    /// A box `w` wide and `h` tall on the face, centred on `c`.
    fn rect(self, c: Pos2, w: f32, h: f32) -> Rect {
        let size = if self.turned {
            Vec2::new(h, w)
        } else {
            Vec2::new(w, h)
        };
        Rect::from_center_size(c, size)
    }

    /// The face's left-to-right direction on screen.
    fn across(self) -> Vec2 {
        if self.turned {
            Vec2::new(0.0, -1.0)
        } else {
            Vec2::new(1.0, 0.0)
        }
    }

    /// `text` centred on `at`, `size` points high, turned with the face.
    fn text(self, painter: &Painter, at: Pos2, text: &str, size: f32, colour: Color32) {
        let galley = painter.layout_no_wrap(text.to_string(), FontId::proportional(size), colour);
        let half = galley.size() / 2.0;
        if self.turned {
            // Turned a quarter anticlockwise about its top left corner.
            let top_left = at - Vec2::new(half.y, -half.x);
            let shape = TextShape::new(top_left, galley, colour).with_angle(-FRAC_PI_2);
            painter.add(shape);
        } else {
            painter.galley(at - half, galley, colour);
        }
    }
}

/// Paints `face` inside `area` (the card less its margin), turned a quarter when `turned`.
pub fn draw(painter: &Painter, area: Rect, face: Face, chinese: bool, turned: bool) {
    let frame = Frame { area, turned };
    match face {
        Face::Tile(t) => match t.suit() {
            Suit::Dots => dots(painter, frame, t.rank()),
            Suit::Bamboo => bamboo(painter, frame, t.rank()),
            Suit::Characters => characters(painter, frame, face, chinese),
            Suit::Honors => honour(painter, frame, t, chinese),
        },
        Face::Bonus(b) => {
            let (name, _, _) = writing(face, chinese);
            let h = frame.size().1;
            frame.text(painter, frame.at(0.5, 0.5), &name, h * 0.42, BONUS);
            let number = (b.index() % 4 + 1).to_string();
            frame.text(painter, frame.at(0.86, 0.1), &number, h * 0.22, RED);
        }
    }
}

/// The pips of a dots tile: rings with a filled centre, in the rank's layout and colours.
fn dots(painter: &Painter, frame: Frame, rank: u8) {
    let layout = DOT_LAYOUTS[usize::from(rank - 1)];
    let w = frame.size().0;
    let r = match rank {
        1 => w * 0.42,
        2..=5 => w * 0.2,
        _ => w * 0.14,
    };
    for (k, &(x, y)) in layout.iter().enumerate() {
        let colour = dot_colour(rank, k);
        let c = frame.at(x, y);
        painter.circle_stroke(c, r * 0.8, Stroke::new((r * 0.3).max(1.0), colour));
        painter.circle_filled(c, r * 0.3, colour);
    }
}

/// The colour of pip `k` of a dots tile of `rank`, as most sets paint them.
fn dot_colour(rank: u8, k: usize) -> Color32 {
    match (rank, k) {
        (1, _) | (5, 2) => RED,
        (2, 0) | (3, 0) | (4, 0) | (4, 3) | (6, 0) | (6, 1) | (7, 0..=2) => GREEN,
        (3, 1) | (6, 2..) | (7, 3..) | (9, 3..=5) => RED,
        _ => DOTS,
    }
}

/// The sticks of a bamboo tile, each with its joints; the middle stick of 5, 7 and 9 red.
fn bamboo(painter: &Painter, frame: Frame, rank: u8) {
    let layout = STICK_LAYOUTS[usize::from(rank - 1)];
    let rows = if matches!(rank, 7 | 9) { 3.0 } else { 2.0 };
    let share = match rank {
        1 => 0.24,
        2..=4 => 0.18,
        5 | 6 => 0.15,
        8 => 0.12,
        _ => 0.13,
    };
    let height = if rank == 1 { 0.9 } else { 0.8 / rows };
    let (fw, fh) = frame.size();
    let (w, h) = (fw * share, fh * height);
    let joint = Stroke::new((w * 0.25).max(1.0), Color32::from_rgb(245, 245, 230));
    for (k, &(x, y)) in layout.iter().enumerate() {
        let red = matches!((rank, k), (5, 2) | (7, 0) | (9, 1) | (9, 4) | (9, 7));
        let colour = if red { RED } else { BAMBOO };
        let c = frame.at(x, y);
        painter.rect_filled(frame.rect(c, w, h), w * 0.4, colour);
        let half = frame.across() * (w / 2.0);
        painter.line_segment([c - half, c + half], joint);
    }
}

/// A characters tile: the numeral over 萬 (or the rank over `m`).
fn characters(painter: &Painter, frame: Frame, face: Face, chinese: bool) {
    let (top, bottom, _) = writing(face, chinese);
    let h = frame.size().1;
    frame.text(painter, frame.at(0.5, 0.28), &top, h * 0.42, INK);
    frame.text(painter, frame.at(0.5, 0.7), &bottom, h * 0.44, CHARACTERS);
}

/// An honour: its character in its colour; 白 (the white dragon) as a blue frame.
fn honour(painter: &Painter, frame: Frame, t: Tile, chinese: bool) {
    let (w, h) = frame.size();
    if t.rank() == 7 {
        let centre = frame.at(0.5, 0.5);
        let outer = frame.rect(centre, w * 0.8, h * 0.84);
        let stroke = Stroke::new((w * 0.08).max(1.0), DOTS);
        painter.rect_stroke(outer, 1.0, stroke, StrokeKind::Inside);
        let inner = frame.rect(centre, w * 0.48, h * 0.52);
        painter.rect_stroke(inner, 0.0, Stroke::new(1.0, DOTS), StrokeKind::Inside);
        return;
    }
    let (text, _, _) = writing(Face::Tile(t), chinese);
    let colour = match t.rank() {
        5 => RED,
        6 => GREEN,
        _ => INK,
    };
    frame.text(painter, frame.at(0.5, 0.5), &text, h * 0.62, colour);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rank_has_as_many_pips_and_sticks_as_it_says() {
        for rank in 1..=9u8 {
            assert_eq!(DOT_LAYOUTS[usize::from(rank - 1)].len(), usize::from(rank));
            assert_eq!(
                STICK_LAYOUTS[usize::from(rank - 1)].len(),
                usize::from(rank)
            );
        }
    }

    /// The shapes `draw` paints for `face`.
    fn painted(face: &str) -> Vec<eframe::egui::Shape> {
        let face = Face::parse(face).unwrap_or_else(|| panic!("{face}"));
        let ctx = eframe::egui::Context::default();
        let out = ctx.run_ui(eframe::egui::RawInput::default(), |ui| {
            let area = Rect::from_min_size(pos2(10.0, 10.0), Vec2::new(30.0, 40.0));
            let painter = ui.ctx().layer_painter(eframe::egui::LayerId::debug());
            draw(&painter, area, face, true, false);
        });
        out.shapes.into_iter().map(|c| c.shape).collect()
    }

    #[test]
    fn a_dots_tile_is_painted_as_its_pips_and_a_bamboo_tile_as_its_sticks() {
        use eframe::egui::Shape;
        let circles = |s: &[Shape]| s.iter().filter(|s| matches!(s, Shape::Circle(_))).count();
        let rects = |s: &[Shape]| s.iter().filter(|s| matches!(s, Shape::Rect(_))).count();
        // A ring and its centre for every pip.
        assert_eq!(circles(&painted("7p")), 14);
        assert_eq!(circles(&painted("1p")), 2);
        assert_eq!(rects(&painted("9s")), 9);
        assert_eq!(rects(&painted("1s")), 1);
        // 白 is its frame, not a character; the other honours are their character.
        assert_eq!(rects(&painted("P")), 2);
        assert!(painted("P").iter().all(|s| !matches!(s, Shape::Text(_))));
        assert!(painted("E").iter().any(|s| matches!(s, Shape::Text(_))));
    }

    #[test]
    fn pips_and_sticks_lie_on_the_face_and_do_not_repeat() {
        for layout in DOT_LAYOUTS.iter().chain(STICK_LAYOUTS.iter()) {
            for (k, a) in layout.iter().enumerate() {
                assert!((0.0..=1.0).contains(&a.0) && (0.0..=1.0).contains(&a.1));
                assert!(layout[..k].iter().all(|b| b != a), "{a:?} twice");
            }
        }
    }
}

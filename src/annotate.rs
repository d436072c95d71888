//! The annotated photo: every tile outlined and labelled, groups in colours, doubtful tiles
//! marked, and the fan table drawn beside the picture.
//!
//! Text uses the CJK font built into the program (the characters the sources use, cut at build
//! time from Droid Sans Fallback, Apache-2.0: see `src/build/font.rs`); a build made without one
//! looks on the system at run time: a CJK font when there is one (Chinese fan names), else DejaVu
//! Sans (English names), else none (outlines only, said on stderr).

use std::path::Path;

use ab_glyph::{Font, FontVec, PxScale, ScaleFont, point};
use image::{Rgb, RgbImage, imageops};

use crate::scan::ScanOutcome;
use crate::scoring::{Hand, Score};
use crate::table::layout::GroupKind;

/// The CJK font built into the program, when the build found one to cut from.
#[cfg(embedded_font)]
pub const EMBEDDED_FONT: Option<&[u8]> =
    Some(include_bytes!(concat!(env!("OUT_DIR"), "/cjk-subset.ttf")));
/// The CJK font built into the program, when the build found one to cut from.
#[cfg(not(embedded_font))]
pub const EMBEDDED_FONT: Option<&[u8]> = None;

/// A font with Chinese: the built-in one, else the first of `CJK_FONTS` installed.
pub fn cjk_font_bytes() -> Option<Vec<u8>> {
    EMBEDDED_FONT
        .map(<[u8]>::to_vec)
        .or_else(|| CJK_FONTS.iter().find_map(|p| std::fs::read(p).ok()))
}

/// Fonts with Chinese, where Debian puts them (the first found is used).
pub const CJK_FONTS: &[&str] = &[
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
];
const LATIN_FONTS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

/// A font and whether it has Chinese.
#[allow(missing_debug_implementations)]
pub struct Fonts {
    font: Option<FontVec>,
    cjk: bool,
}

impl Fonts {
    pub fn load() -> Fonts {
        let load = |b: Vec<u8>| FontVec::try_from_vec(b).ok();
        if let Some(f) = cjk_font_bytes().and_then(load) {
            return Fonts {
                font: Some(f),
                cjk: true,
            };
        }
        Fonts {
            font: LATIN_FONTS
                .iter()
                .find_map(|p| std::fs::read(p).ok().and_then(load)),
            cjk: false,
        }
    }
}

const WHITE: Rgb<u8> = Rgb([255, 255, 255]);
const INK: Rgb<u8> = Rgb([30, 30, 30]);
/// The panel's warnings: a false win, a doubtful tile, no hand read.
const WARN: Rgb<u8> = Rgb([200, 30, 30]);

fn colour(kind: GroupKind) -> Rgb<u8> {
    match kind {
        GroupKind::Hand => Rgb([40, 200, 80]),
        GroupKind::Winning => Rgb([255, 150, 0]),
        GroupKind::Chow { .. } | GroupKind::Pung { .. } | GroupKind::Kong { .. } => {
            Rgb([40, 120, 255])
        }
        GroupKind::ConcealedKong => Rgb([0, 200, 220]),
        GroupKind::Bonus => Rgb([190, 80, 220]),
        GroupKind::Stray => Rgb([128, 128, 128]),
        GroupKind::Others => Rgb([100, 100, 160]),
    }
}

fn put(img: &mut RgbImage, x: i64, y: i64, c: Rgb<u8>) {
    if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
        img.put_pixel(x as u32, y as u32, c);
    }
}

fn line(img: &mut RgbImage, a: [f32; 2], b: [f32; 2], c: Rgb<u8>, width: i64) {
    let n = ((b[0] - a[0]).abs().max((b[1] - a[1]).abs()).ceil() as i64).max(1);
    for i in 0..=n {
        let t = i as f32 / n as f32;
        let (x, y) = (
            (a[0] + (b[0] - a[0]) * t) as i64,
            (a[1] + (b[1] - a[1]) * t) as i64,
        );
        for dx in -(width / 2)..=(width / 2) {
            for dy in -(width / 2)..=(width / 2) {
                put(img, x + dx, y + dy, c);
            }
        }
    }
}

fn fill(img: &mut RgbImage, x0: i64, y0: i64, x1: i64, y1: i64, c: Rgb<u8>) {
    for y in y0.max(0)..y1.min(i64::from(img.height())) {
        for x in x0.max(0)..x1.min(i64::from(img.width())) {
            img.put_pixel(x as u32, y as u32, c);
        }
    }
}

/// Draws text with its top-left at (x, y); returns the width drawn.
fn text(img: &mut RgbImage, fonts: &Fonts, s: &str, x: f32, y: f32, size: f32, c: Rgb<u8>) -> f32 {
    let Some(font) = &fonts.font else { return 0.0 };
    let scaled = font.as_scaled(PxScale::from(size));
    let mut caret = x;
    for ch in s.chars() {
        let id = scaled.glyph_id(ch);
        let glyph =
            id.with_scale_and_position(PxScale::from(size), point(caret, y + scaled.ascent()));
        caret += scaled.h_advance(id);
        if let Some(outlined) = font.outline_glyph(glyph) {
            let bb = outlined.px_bounds();
            outlined.draw(|gx, gy, cov| {
                let (px, py) = (
                    bb.min.x as i64 + i64::from(gx),
                    bb.min.y as i64 + i64::from(gy),
                );
                if px >= 0
                    && py >= 0
                    && (px as u32) < img.width()
                    && (py as u32) < img.height()
                    && cov > 0.0
                {
                    let p = img.get_pixel_mut(px as u32, py as u32);
                    for k in 0..3 {
                        p[k] = (f32::from(p[k]) * (1.0 - cov) + f32::from(c[k]) * cov) as u8;
                    }
                }
            });
        }
    }
    caret - x
}

/// The longest side of the picture in an annotated photo, in pixels.
const SHOWN_MAX: f32 = 1600.0;
/// The panel beside the picture: width, and least height.
const PANEL_W: u32 = 560;
const PANEL_MIN_H: u32 = 700;

/// How the photo is shown: source pixels (what detections are given in) to pixels of the
/// annotated picture. The one mapping used for the picture and everything drawn over it.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// Shown pixels per source pixel.
    pub factor: f32,
    /// The picture's size, in shown pixels.
    pub width: u32,
    pub height: u32,
}

impl View {
    /// The view of a photo of `source` pixels, fitted within SHOWN_MAX on its long side (so a
    /// 1×80,000,000 image gives a bounded canvas).
    pub fn fit(source: (u32, u32)) -> View {
        View::fit_within(source, SHOWN_MAX)
    }

    /// The view of a photo of `source` pixels, its long side at most `max` pixels.
    pub fn fit_within(source: (u32, u32), max: f32) -> View {
        let long = source.0.max(source.1).max(1) as f32;
        let factor = (max / long).min(1.0);
        View {
            factor,
            width: ((source.0 as f32 * factor).round() as u32).max(1),
            height: ((source.1 as f32 * factor).round() as u32).max(1),
        }
    }

    pub fn to_shown(&self, p: [f32; 2]) -> [f32; 2] {
        [p[0] * self.factor, p[1] * self.factor]
    }
}

/// Writes the annotated photo. `photo` is the decoded picture, which may be smaller than the
/// source (`o.scale` source pixels per decoded pixel); detections are in source pixels.
pub fn write(photo: &RgbImage, o: &ScanOutcome, fonts: &Fonts, out: &Path) -> Result<(), String> {
    let img = render(photo, o, fonts);
    img.save(out).map_err(|e| format!("{}: {e}", out.display()))
}

/// The annotated photo as an image: the picture with outlines and labels, and the panel.
pub fn render(photo: &RgbImage, o: &ScanOutcome, fonts: &Fonts) -> RgbImage {
    let (view, pic) = shown(photo, o, SHOWN_MAX);
    let mut img = RgbImage::from_pixel(view.width + PANEL_W, view.height.max(PANEL_MIN_H), WHITE);
    imageops::replace(&mut img, &pic, 0, 0);
    draw_tiles(&mut img, o, fonts, &view);
    draw_panel(&mut img, o, fonts, view.width as f32 + 16.0);
    img
}

/// The picture alone with every tile outlined and labelled, its long side at most `max_side`
/// pixels (the audit report's frames).
pub fn outlined(photo: &RgbImage, o: &ScanOutcome, fonts: &Fonts, max_side: u32) -> RgbImage {
    let (view, mut pic) = shown(photo, o, max_side as f32);
    draw_tiles(&mut pic, o, fonts, &view);
    pic
}

/// The view of a photo within `max` pixels, and the photo resized to it.
fn shown(photo: &RgbImage, o: &ScanOutcome, max: f32) -> (View, RgbImage) {
    let (w, h) = photo.dimensions();
    let scale = o.scale.max(1e-3);
    let view = View::fit_within(
        (
            (w as f32 * scale).round() as u32,
            (h as f32 * scale).round() as u32,
        ),
        max,
    );
    let pic = imageops::resize(
        photo,
        view.width,
        view.height,
        imageops::FilterType::Triangle,
    );
    (view, pic)
}

/// Each tile's outline and label, coloured by its group; doubtful tiles (changed by the
/// decoder, or read with less than `UNSURE_BELOW`) in red with `?`.
fn draw_tiles(img: &mut RgbImage, o: &ScanOutcome, fonts: &Fonts, view: &View) {
    let read = o.read_as();
    let mut doubtful: std::collections::HashSet<usize> =
        o.decoded.changes.iter().map(|c| c.det).collect();
    doubtful.extend((0..o.detections.len()).filter(|&i| {
        o.face_of(i)
            .is_some_and(|(_, p)| p < crate::scan::UNSURE_BELOW)
    }));
    let mut kind_of = vec![GroupKind::Stray; o.detections.len()];
    for g in &o.reading.groups {
        for &i in &g.tiles {
            if i < kind_of.len() {
                kind_of[i] = g.kind;
            }
        }
    }
    let size = (view.height as f32 / 40.0).clamp(12.0, 28.0);
    for (i, d) in o.detections.iter().enumerate() {
        let c = d.corners.map(|p| view.to_shown(p));
        let col = if doubtful.contains(&i) {
            Rgb([230, 30, 30])
        } else {
            colour(kind_of[i])
        };
        for k in 0..4 {
            line(
                img,
                c[k],
                c[(k + 1) % 4],
                col,
                if doubtful.contains(&i) { 4 } else { 2 },
            );
        }
        let label = if d.face_down {
            read.get(&i)
                .map_or("back".to_string(), |t| format!("({t})"))
        } else {
            o.face_of(i).map_or("?".to_string(), |(f, _)| f.to_string())
        };
        let label = if doubtful.contains(&i) {
            format!("{label}?")
        } else {
            label
        };
        // The label sits above the outline's top left: the left one of its two highest
        // corners (next to the tile, also when the outline is turned).
        let mut by_height = c;
        by_height.sort_by(|a, b| a[1].total_cmp(&b[1]));
        let [left, top] = if by_height[0][0] <= by_height[1][0] {
            by_height[0]
        } else {
            by_height[1]
        };
        let ty = (top - size - 2.0).max(0.0);
        fill(
            img,
            left as i64,
            ty as i64,
            (left + size * 0.62 * label.len() as f32 + 4.0) as i64,
            (ty + size + 2.0) as i64,
            col,
        );
        text(img, fonts, &label, left + 2.0, ty, size, WHITE);
    }
}

/// The panel: the hand, the fans, assumptions and issues, from `x` on.
/// Writes the panel's lines one under another.
struct Pen<'a> {
    img: &'a mut RgbImage,
    fonts: &'a Fonts,
    x: f32,
    y: f32,
}

impl Pen<'_> {
    fn say(&mut self, s: &str, size: f32, c: Rgb<u8>) {
        text(self.img, self.fonts, s, self.x, self.y, size, c);
        self.y += size * 1.35;
    }

    /// `s` in lines of at most about 60 characters, broken between words.
    fn wrapped(&mut self, s: &str, size: f32, c: Rgb<u8>) {
        let mut line = String::new();
        for word in s.split(' ') {
            if line.len() + word.len() > 60 {
                self.say(&line, size, c);
                line.clear();
            }
            line.push_str(word);
            line.push(' ');
        }
        self.say(&line, size, c);
    }
}

fn draw_panel(img: &mut RgbImage, o: &ScanOutcome, fonts: &Fonts, x: f32) {
    let mut pen = Pen {
        img,
        fonts,
        x,
        y: 16.0,
    };
    // The rule set the score was worked out under, by the name `--rules` takes.
    let title = o.score.as_ref().map_or_else(
        || "suanfan".to_string(),
        |s| format!("suanfan · rules {}", s.rules.preset.name()),
    );
    pen.say(&title, 26.0, INK);
    match (&o.decoded.hand, &o.score) {
        (Some(hand), Some(s)) => write_score(&mut pen, hand, s),
        _ => pen.say("no valid winning hand read", 20.0, WARN),
    }
    pen.y += 8.0;
    for c in &o.decoded.changes {
        let doubt = format!(
            "doubtful: model {} {:.0}%, read {} {:.0}%",
            c.top,
            c.p_top * 100.0,
            c.read,
            c.p_read * 100.0
        );
        pen.say(&doubt, 15.0, WARN);
    }
    for a in o.assumed.iter().chain(&o.issues) {
        pen.wrapped(a, 14.0, Rgb([90, 90, 90]));
    }
}

/// The hand, each fan with its points, the total and a false win's warning.
fn write_score(pen: &mut Pen, hand: &Hand, s: &Score) {
    pen.say(&crate::notation::format_hand(hand), 20.0, INK);
    pen.y += 6.0;
    for e in &s.fans {
        let name = if pen.fonts.cjk {
            format!("{} {}", e.fan.zh(), e.fan.en())
        } else {
            e.fan.en().to_string()
        };
        let count = if e.count > 1 {
            format!(" x{}", e.count)
        } else {
            String::new()
        };
        pen.say(&format!("{:>3}  {name}{count}", e.total()), 18.0, INK);
    }
    pen.say(&format!("{:>3}  total", s.total), 22.0, Rgb([0, 90, 200]));
    if !s.meets_minimum {
        let warning = format!("below the {} point minimum: false win", s.minimum);
        pen.say(&warning, 18.0, WARN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detection::{Detection, Orientation};
    use crate::scan::{Given, finish};

    fn one_tile(corners: [[f32; 2]; 4], scale: f32) -> ScanOutcome {
        one_tile_read(corners, scale, 1.0)
    }

    /// One tile read as 1m with probability `p` (the rest spread over 2m, 3m and 4m).
    fn one_tile_read(corners: [[f32; 2]; 4], scale: f32, p: f32) -> ScanOutcome {
        let mut probs = vec![0.0; crate::detection::CLASS_COUNT];
        probs[0] = p;
        for q in &mut probs[1..4] {
            *q = (1.0 - p) / 3.0;
        }
        let d = Detection {
            corners,
            score: 0.9,
            face_down: false,
            orientation: Orientation::Up,
            probs,
        };
        let given = Given {
            context: crate::scoring::WinContext::default(),
            flowers_given: false,
            winds_given: false,
            self_drawn_given: false,
        };
        let rules = crate::scoring::RuleSet::default();
        let mut o = finish(
            "t".into(),
            vec![d],
            &given,
            &rules,
            0.0,
            0.0,
            std::time::Instant::now(),
        );
        o.scale = scale;
        o
    }

    fn no_fonts() -> Fonts {
        Fonts {
            font: None,
            cjk: false,
        }
    }

    fn is_grey(p: &Rgb<u8>) -> bool {
        p.0 == [100, 100, 100]
    }

    // Regression (issue #10): a photo over 5 MP is decoded at half size; the outlines were
    // drawn at twice their place because the decode scale shrank the picture as well.
    #[test]
    fn outlines_sit_where_the_corners_say_on_a_photo_decoded_at_half_size() {
        // A 4000×3000 photo decoded at 2000×1500; one tile at source x 2000..2400, y 1000..1500.
        let photo = RgbImage::from_pixel(2000, 1500, Rgb([100, 100, 100]));
        let o = one_tile(
            [
                [2000.0, 1000.0],
                [2400.0, 1000.0],
                [2400.0, 1500.0],
                [2000.0, 1500.0],
            ],
            2.0,
        );
        let img = render(&photo, &o, &no_fonts());
        let view = View::fit((4000, 3000));
        assert_eq!((view.width, view.height), (1600, 1200));
        // The picture fills its part of the canvas (grey there, not white).
        assert!(is_grey(img.get_pixel(1590, 1190)));
        // The outline's left edge, half-way down, is drawn at 0.4 × source.
        let [x, y] = view.to_shown([2000.0, 1250.0]);
        assert!(
            !is_grey(img.get_pixel(x as u32, y as u32)),
            "no outline at ({x}, {y})"
        );
        // Nothing at twice the place (where the old code drew it) nor at half of it.
        assert!(is_grey(
            img.get_pixel(x as u32 * 2 - 1, (y as u32 * 2).min(1199))
        ));
        assert!(is_grey(img.get_pixel(x as u32 / 2, y as u32 / 2)));
    }

    /// A tile read 40% sure is outlined in red (doubtful); one read 90% sure is not.
    #[test]
    fn a_tile_read_unsure_is_outlined_in_red() {
        let photo = RgbImage::from_pixel(400, 300, Rgb([100, 100, 100]));
        let corners = [
            [100.0, 100.0],
            [200.0, 100.0],
            [200.0, 250.0],
            [100.0, 250.0],
        ];
        let edge = |p: f32| {
            let img = render(&photo, &one_tile_read(corners, 1.0, p), &no_fonts());
            let view = View::fit((400, 300));
            let [x, y] = view.to_shown([100.0, 175.0]);
            img.get_pixel(x.round() as u32, y.round() as u32).0
        };
        assert_eq!(edge(0.4), [230, 30, 30]);
        assert_ne!(edge(0.9), [230, 30, 30]);
        assert_ne!(edge(0.9), [100, 100, 100], "an outline is drawn");
    }

    #[test]
    fn a_very_long_image_gives_a_bounded_canvas() {
        let photo = RgbImage::from_pixel(1, 80_000, Rgb([100, 100, 100]));
        let o = one_tile([[0.0, 0.0], [1.0, 0.0], [1.0, 2.0], [0.0, 2.0]], 1000.0);
        let img = render(&photo, &o, &no_fonts());
        assert!(
            img.width() <= 1600 + PANEL_W && img.height() <= 1600,
            "{:?}",
            img.dimensions()
        );
    }

    /// The built-in font draws every fan name, Chinese and English, with no missing glyph.
    #[test]
    #[cfg_attr(
        not(embedded_font),
        ignore = "this build has no built-in font (no fonts-droid-fallback when it was built)"
    )]
    fn the_built_in_font_draws_every_fan_name() {
        let bytes = EMBEDDED_FONT.unwrap_or_default().to_vec();
        let font =
            FontVec::try_from_vec(bytes).unwrap_or_else(|e| panic!("bad built-in font: {e}"));
        let mut drawn = 0;
        for fan in crate::scoring::Fan::ALL {
            for c in fan.zh().chars().chain(fan.en().chars()) {
                let glyph = font.glyph_id(c);
                assert_ne!(glyph.0, 0, "no glyph for {c:?} of {}", fan.en());
                if !c.is_whitespace() {
                    let g = glyph.with_scale_and_position(24.0, point(0.0, 20.0));
                    assert!(font.outline_glyph(g).is_some(), "{c:?} draws nothing");
                    drawn += 1;
                }
            }
        }
        assert!(drawn > 500, "{drawn} glyphs");
        let fonts = Fonts {
            font: Some(font),
            cjk: true,
        };
        let mut img = RgbImage::from_pixel(200, 40, WHITE);
        let width = text(&mut img, &fonts, "清一色 8 pts", 2.0, 2.0, 24.0, INK);
        let inked = img.pixels().filter(|p| p.0[0] < 128).count();
        assert!(
            width > 100.0 && inked > 150,
            "width {width}, {inked} dark pixels"
        );
    }
}

//! Build step: a small TrueType font holding only the characters suanfan's sources use (fan names,
//! labels, tile names, ASCII), cut from a CJK font of the build machine, so that the program shows
//! Chinese on a machine with no Chinese font. The glyph outlines are copied (composites flattened,
//! cubic curves of CFF fonts approximated by quadratic ones); hinting, kerning and layout tables
//! are left out. The font's licence must allow embedding: Droid Sans Fallback (Apache-2.0) is the
//! one looked for (`SUANFAN_CJK_FONT` names another: path, or path#index for a collection), with
//! DejaVu Sans for Latin, digits and symbols, which Droid Sans Fallback lacks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ttf_parser::{Face, GlyphId, OutlineBuilder};

/// Where Debian's `fonts-droid-fallback` puts its font (Apache-2.0): Chinese, no Latin.
pub const CJK_CANDIDATES: &[&str] = &["/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"];
/// Where Debian's `fonts-dejavu-core` puts DejaVu Sans (a permissive licence: Bitstream Vera's):
/// Latin, digits and symbols.
pub const LATIN_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

/// The CJK font to cut from: `SUANFAN_CJK_FONT` when set, else the first candidate found.
pub fn cjk_source() -> Option<(PathBuf, u32)> {
    if let Some(v) = std::env::var_os("SUANFAN_CJK_FONT").filter(|v| !v.is_empty()) {
        let v = v.to_string_lossy().into_owned();
        return Some(match v.rsplit_once('#') {
            Some((p, i)) if i.parse::<u32>().is_ok() => (PathBuf::from(p), i.parse().unwrap_or(0)),
            _ => (PathBuf::from(v), 0),
        });
    }
    first_found(CJK_CANDIDATES)
}

/// The Latin font whose glyphs come first, when one is installed.
pub fn latin_source() -> Option<(PathBuf, u32)> {
    first_found(LATIN_CANDIDATES)
}

fn first_found(paths: &[&str]) -> Option<(PathBuf, u32)> {
    paths
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .map(|p| (p, 0))
}

/// Printable ASCII and every other character written in the `.rs` files under `dir`.
pub fn characters_used(dir: &Path) -> BTreeSet<char> {
    let mut chars: BTreeSet<char> = (' '..='~').collect();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                chars.extend(text.chars().filter(|c| !c.is_control() && !c.is_ascii()));
            }
        }
    }
    chars
}

/// The subset font (TrueType bytes) and the characters none of the fonts has. Each character
/// comes from the first font that has it; the last font sets the units per em and the metrics,
/// the others' outlines are scaled to it.
pub fn subset(
    fonts: &[(&[u8], u32)],
    chars: &BTreeSet<char>,
) -> Result<(Vec<u8>, Vec<char>), String> {
    let faces = fonts
        .iter()
        .map(|&(data, index)| Face::parse(data, index).map_err(|e| format!("not a font: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let main = faces.last().ok_or("no font given")?;
    let scale = |f: &Face| f32::from(main.units_per_em()) / f32::from(f.units_per_em());
    let mut glyphs = vec![Glyph::read(main, GlyphId(0), 1.0)];
    let mut map = Vec::new();
    let mut missing = Vec::new();
    for &c in chars {
        let found = faces
            .iter()
            .find_map(|f| f.glyph_index(c).filter(|g| g.0 != 0).map(|g| (f, g)));
        match found {
            Some((f, g)) => {
                map.push((c as u32, glyphs.len() as u16));
                glyphs.push(Glyph::read(f, g, scale(f)));
            }
            None => missing.push(c),
        }
    }
    Ok((write_font(main, &glyphs, &map), missing))
}

/// One glyph: closed contours of points (x, y, on the curve) and its advance.
struct Glyph {
    contours: Vec<Vec<(i16, i16, bool)>>,
    advance: u16,
}

impl Glyph {
    fn read(face: &Face, id: GlyphId, scale: f32) -> Glyph {
        let mut pen = Pen::default();
        face.outline_glyph(id, &mut pen);
        let round = |(x, y, on): (f32, f32, bool)| {
            ((x * scale).round() as i16, (y * scale).round() as i16, on)
        };
        Glyph {
            contours: pen
                .contours
                .into_iter()
                .filter(|c| c.len() > 1)
                .map(|c| c.into_iter().map(round).collect())
                .collect(),
            advance: (f32::from(face.glyph_hor_advance(id).unwrap_or(0)) * scale).round() as u16,
        }
    }

    fn bbox(&self) -> Option<[i16; 4]> {
        let mut points = self.contours.iter().flatten();
        let &(x, y, _) = points.next()?;
        Some(points.fold([x, y, x, y], |b, &(x, y, _)| {
            [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)]
        }))
    }

    fn points(&self) -> usize {
        self.contours.iter().map(Vec::len).sum()
    }

    /// The `glyf` record: contour ends, no instructions, one flag per point, 16-bit deltas.
    fn encode(&self, out: &mut Vec<u8>) {
        let Some(b) = self.bbox() else { return };
        put16(out, self.contours.len() as u16);
        for v in b {
            put16(out, v as u16);
        }
        let mut end = 0usize;
        for c in &self.contours {
            end += c.len();
            put16(out, (end - 1) as u16);
        }
        put16(out, 0);
        out.extend(self.contours.iter().flatten().map(|p| u8::from(p.2)));
        for axis in [0, 1] {
            let mut last = 0i16;
            for &(x, y, _) in self.contours.iter().flatten() {
                let v = if axis == 0 { x } else { y };
                put16(out, v.wrapping_sub(last) as u16);
                last = v;
            }
        }
    }
}

/// Collects an outline as on- and off-curve points (quadratic curves).
#[derive(Default)]
struct Pen {
    contours: Vec<Vec<(f32, f32, bool)>>,
    at: (f32, f32),
}

impl Pen {
    fn push(&mut self, x: f32, y: f32, on: bool) {
        if let Some(c) = self.contours.last_mut() {
            c.push((x, y, on));
        }
        if on {
            self.at = (x, y);
        }
    }
}

impl OutlineBuilder for Pen {
    fn move_to(&mut self, x: f32, y: f32) {
        self.contours.push(Vec::new());
        self.push(x, y, true);
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.push(x, y, true);
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        self.push(x1, y1, false);
        self.push(x, y, true);
    }
    /// Two quadratic curves, one per half of the cubic (split at t = ½).
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let p0 = self.at;
        let mid = |a: (f32, f32), b: (f32, f32)| ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
        let (a, b, c) = (
            mid(p0, (x1, y1)),
            mid((x1, y1), (x2, y2)),
            mid((x2, y2), (x, y)),
        );
        let (d, e) = (mid(a, b), mid(b, c));
        let m = mid(d, e);
        let control = |s: (f32, f32), c1: (f32, f32), c2: (f32, f32), t: (f32, f32)| {
            (
                (3.0 * (c1.0 + c2.0) - s.0 - t.0) / 4.0,
                (3.0 * (c1.1 + c2.1) - s.1 - t.1) / 4.0,
            )
        };
        let q1 = control(p0, a, d, m);
        let q2 = control(m, e, c, (x, y));
        self.quad_to(q1.0, q1.1, m.0, m.1);
        self.quad_to(q2.0, q2.1, x, y);
    }
    fn close(&mut self) {
        if let Some(c) = self.contours.last_mut()
            && c.len() > 1
            && c.first().map(|p| (p.0, p.1)) == c.last().map(|p| (p.0, p.1))
        {
            c.pop();
        }
    }
}

fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// The whole font: the tables a TrueType reader needs, in tag order, with checksums.
fn write_font(face: &Face, glyphs: &[Glyph], map: &[(u32, u16)]) -> Vec<u8> {
    let (glyf, loca) = glyf_and_loca(glyphs);
    let tables: Vec<([u8; 4], Vec<u8>)> = vec![
        (*b"cmap", cmap(map)),
        (*b"glyf", glyf),
        (*b"head", head(face, glyphs)),
        (*b"hhea", hhea(face, glyphs)),
        (*b"hmtx", hmtx(glyphs)),
        (*b"loca", loca),
        (*b"maxp", maxp(glyphs)),
        (*b"post", post(face)),
    ];
    let n = tables.len() as u16;
    let search = 16 * (1u16 << (15 - n.leading_zeros()));
    let mut out = Vec::new();
    put32(&mut out, 0x0001_0000);
    for v in [n, search, 15 - n.leading_zeros() as u16, n * 16 - search] {
        put16(&mut out, v);
    }
    let mut offset = 12 + 16 * tables.len();
    for (tag, data) in &tables {
        out.extend_from_slice(tag);
        put32(&mut out, checksum(data));
        put32(&mut out, offset as u32);
        put32(&mut out, data.len() as u32);
        offset += data.len().next_multiple_of(4);
    }
    let mut head_at = 0;
    for (tag, data) in &tables {
        if tag == b"head" {
            head_at = out.len();
        }
        out.extend_from_slice(data);
        out.resize(out.len().next_multiple_of(4), 0);
    }
    let adjust = 0xB1B0_AFBAu32.wrapping_sub(checksum(&out));
    out[head_at + 8..head_at + 12].copy_from_slice(&adjust.to_be_bytes());
    out
}

fn checksum(data: &[u8]) -> u32 {
    data.chunks(4).fold(0u32, |sum, w| {
        let mut b = [0u8; 4];
        b[..w.len()].copy_from_slice(w);
        sum.wrapping_add(u32::from_be_bytes(b))
    })
}

fn glyf_and_loca(glyphs: &[Glyph]) -> (Vec<u8>, Vec<u8>) {
    let (mut glyf, mut loca) = (Vec::new(), Vec::new());
    for g in glyphs {
        put32(&mut loca, glyf.len() as u32);
        g.encode(&mut glyf);
        glyf.resize(glyf.len().next_multiple_of(4), 0);
    }
    put32(&mut loca, glyf.len() as u32);
    (glyf, loca)
}

/// Format 12 (segmented coverage), one group per character, for platform 3 encoding 10.
fn cmap(map: &[(u32, u16)]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in [0u16, 1, 3, 10] {
        put16(&mut out, v);
    }
    put32(&mut out, 12);
    put16(&mut out, 12);
    put16(&mut out, 0);
    put32(&mut out, 16 + 12 * map.len() as u32);
    put32(&mut out, 0);
    put32(&mut out, map.len() as u32);
    for &(c, g) in map {
        put32(&mut out, c);
        put32(&mut out, c);
        put32(&mut out, u32::from(g));
    }
    out
}

fn overall_bbox(glyphs: &[Glyph]) -> [i16; 4] {
    glyphs
        .iter()
        .filter_map(Glyph::bbox)
        .reduce(|a, b| {
            [
                a[0].min(b[0]),
                a[1].min(b[1]),
                a[2].max(b[2]),
                a[3].max(b[3]),
            ]
        })
        .unwrap_or([0; 4])
}

fn head(face: &Face, glyphs: &[Glyph]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in [0x0001_0000u32, 0x0001_0000, 0, 0x5F0F_3CF5] {
        put32(&mut out, v);
    }
    put16(&mut out, 0x0003);
    put16(&mut out, face.units_per_em());
    out.extend_from_slice(&[0; 16]);
    for v in overall_bbox(glyphs) {
        put16(&mut out, v as u16);
    }
    for v in [0u16, 8, 2, 1, 0] {
        put16(&mut out, v);
    }
    out
}

fn hhea(face: &Face, glyphs: &[Glyph]) -> Vec<u8> {
    let mut out = Vec::new();
    put32(&mut out, 0x0001_0000);
    for v in [face.ascender(), face.descender(), face.line_gap()] {
        put16(&mut out, v as u16);
    }
    let advance_max = glyphs.iter().map(|g| g.advance).max().unwrap_or(0);
    let bounds = glyphs
        .iter()
        .filter_map(|g| g.bbox().map(|b| (g.advance, b)));
    let min_lsb = bounds.clone().map(|(_, b)| b[0]).min().unwrap_or(0);
    let min_rsb = bounds
        .clone()
        .map(|(a, b)| a as i16 - b[2])
        .min()
        .unwrap_or(0);
    let max_extent = bounds.map(|(_, b)| b[2]).max().unwrap_or(0);
    put16(&mut out, advance_max);
    for v in [min_lsb, min_rsb, max_extent, 1, 0, 0, 0, 0, 0, 0, 0] {
        put16(&mut out, v as u16);
    }
    put16(&mut out, glyphs.len() as u16);
    out
}

fn hmtx(glyphs: &[Glyph]) -> Vec<u8> {
    let mut out = Vec::new();
    for g in glyphs {
        put16(&mut out, g.advance);
        put16(&mut out, g.bbox().map_or(0, |b| b[0]) as u16);
    }
    out
}

fn maxp(glyphs: &[Glyph]) -> Vec<u8> {
    let mut out = Vec::new();
    put32(&mut out, 0x0001_0000);
    let points = glyphs.iter().map(Glyph::points).max().unwrap_or(0);
    let contours = glyphs.iter().map(|g| g.contours.len()).max().unwrap_or(0);
    put16(&mut out, glyphs.len() as u16);
    put16(&mut out, points as u16);
    put16(&mut out, contours as u16);
    for v in [0u16, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0] {
        put16(&mut out, v);
    }
    out
}

fn post(face: &Face) -> Vec<u8> {
    let mut out = Vec::new();
    put32(&mut out, 0x0003_0000);
    put32(&mut out, 0);
    let (position, thickness) = face
        .underline_metrics()
        .map_or((0, 0), |m| (m.position, m.thickness));
    put16(&mut out, position as u16);
    put16(&mut out, thickness as u16);
    out.extend_from_slice(&[0; 20]);
    out
}

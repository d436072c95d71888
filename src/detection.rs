//! What the recognition stage hands to the rest of the pipeline: one `Detection` per tile, in
//! source-image pixels, with probabilities over the 42 faces.
//!
//! The types are plain data so that `layout` and `decode` can be tested with recorded
//! detections (JSON fixtures) and no ONNX Runtime.

use crate::tile::{Bonus, Tile};

/// The 42 classes of the recognition model, in its output order:
/// `1m..9m 1p..9p 1s..9s E S W N C F P f1..f4 s1..s4`.
pub const CLASS_COUNT: usize = 42;

/// A face the model can read.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Face {
    Tile(Tile),
    Bonus(Bonus),
}

impl Face {
    /// The face of model class `i`.
    pub fn from_class(i: usize) -> Option<Face> {
        use crate::tile::Suit;
        match i {
            0..=8 => Tile::numbered(Suit::Characters, i as u8 + 1).map(Face::Tile),
            9..=17 => Tile::numbered(Suit::Dots, (i - 9) as u8 + 1).map(Face::Tile),
            18..=26 => Tile::numbered(Suit::Bamboo, (i - 18) as u8 + 1).map(Face::Tile),
            27..=33 => Tile::from_index(i).map(Face::Tile),
            34..=41 => Bonus::from_index(i - 34).map(Face::Bonus),
            _ => None,
        }
    }

    /// The model class of a face.
    pub fn class(self) -> usize {
        use crate::tile::Suit;
        match self {
            Face::Tile(t) => match t.suit() {
                Suit::Characters => usize::from(t.rank()) - 1,
                Suit::Dots => 9 + usize::from(t.rank()) - 1,
                Suit::Bamboo => 18 + usize::from(t.rank()) - 1,
                Suit::Honors => t.index(),
            },
            Face::Bonus(b) => 34 + b.index(),
        }
    }

    pub fn parse(s: &str) -> Option<Face> {
        Tile::parse(s)
            .ok()
            .map(Face::Tile)
            .or_else(|| Bonus::parse(s).map(Face::Bonus))
    }
}

impl std::fmt::Display for Face {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Face::Tile(t) => write!(f, "{t}"),
            Face::Bonus(b) => write!(f, "{b}"),
        }
    }
}

/// Which way the top of the tile's face points in the image.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Orientation {
    /// Upright: the face reads normally.
    #[default]
    Up,
    /// Upside down.
    Down,
    /// Turned a quarter to the left (top of the face points left): a claimed tile.
    Left,
    /// Turned a quarter to the right.
    Right,
}

impl Orientation {
    pub fn is_sideways(self) -> bool {
        matches!(self, Orientation::Left | Orientation::Right)
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Orientation::Up => "up",
            Orientation::Down => "down",
            Orientation::Left => "left",
            Orientation::Right => "right",
        }
    }
    pub fn parse(s: &str) -> Option<Orientation> {
        match s {
            "up" => Some(Orientation::Up),
            "down" => Some(Orientation::Down),
            "left" => Some(Orientation::Left),
            "right" => Some(Orientation::Right),
            _ => None,
        }
    }
}

/// One tile found in the picture.
#[derive(Clone, Debug, PartialEq)]
pub struct Detection {
    /// The four corners of the tile's outline in source pixels, clockwise from the top left
    /// of the face as it reads.
    pub corners: [[f32; 2]; 4],
    /// Confidence that this is a tile at all.
    pub score: f32,
    pub face_down: bool,
    pub orientation: Orientation,
    /// Probabilities over the 42 classes (empty for a face-down tile).
    pub probs: Vec<f32>,
}

impl Detection {
    pub fn center(&self) -> [f32; 2] {
        let mut c = [0.0, 0.0];
        for p in &self.corners {
            c[0] += p[0] / 4.0;
            c[1] += p[1] / 4.0;
        }
        c
    }

    /// Axis-aligned bounds: (min x, min y, max x, max y).
    pub fn bounds(&self) -> [f32; 4] {
        let mut b = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
        for p in &self.corners {
            b[0] = b[0].min(p[0]);
            b[1] = b[1].min(p[1]);
            b[2] = b[2].max(p[0]);
            b[3] = b[3].max(p[1]);
        }
        b
    }

    /// Faces by probability, best first.
    pub fn ranked(&self) -> Vec<(Face, f32)> {
        let mut v: Vec<(Face, f32)> = self
            .probs
            .iter()
            .enumerate()
            .filter_map(|(i, &p)| Face::from_class(i).map(|f| (f, p)))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v
    }

    /// The most probable face, if the tile is face up.
    pub fn top(&self) -> Option<(Face, f32)> {
        if self.face_down {
            return None;
        }
        self.ranked().into_iter().next()
    }

    /// Probability that the tile is a flower or season, whichever (the classes of one bonus
    /// tile score the same, so their mass is summed).
    pub fn p_bonus(&self) -> f32 {
        self.probs.iter().skip(34).sum()
    }

    /// Probability of a playing tile (0 when the model gave none).
    pub fn p_tile(&self, t: Tile) -> f32 {
        self.probs
            .get(Face::Tile(t).class())
            .copied()
            .unwrap_or(0.0)
    }
}

#[cfg(test)]
impl Detection {
    /// A face-up upright tile over the box `b` (min x, min y, max x, max y) read as `probs`:
    /// the tiles the recognition rules' tests lay out.
    pub(crate) fn upright(b: [f32; 4], probs: Vec<f32>) -> Detection {
        Detection {
            corners: [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]],
            score: 0.9,
            face_down: false,
            orientation: Orientation::Up,
            probs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_round_trip() {
        for i in 0..CLASS_COUNT {
            let f = Face::from_class(i).unwrap_or(Face::Tile(Tile::E));
            assert_eq!(f.class(), i);
            assert_eq!(Face::parse(&f.to_string()), Some(f));
        }
        assert_eq!(
            Face::from_class(9).map(|f| f.to_string()).as_deref(),
            Some("1p")
        );
        assert_eq!(
            Face::from_class(27).map(|f| f.to_string()).as_deref(),
            Some("E")
        );
        assert_eq!(
            Face::from_class(34).map(|f| f.to_string()).as_deref(),
            Some("f1")
        );
    }
}

//! A dark photo, brightened for reading (`exposure.rs`): its faces are raised with their noise
//! and the blocks of its JPEG, and the classifier reads some of them weakly or as other faces,
//! or takes a white dragon for no tile. The classifier for soft photos, trained on blurred and
//! noisy faces, reads those better; but read whole by it, rows of tile sets never trained on
//! read worse (`on-backdrops@dark` 39 → 32 of 40 exactly, `rf-holdout+@dim` 72 → 70). So in a
//! dark picture only what the first classifier doubts is read again by the one for soft
//! photos: a box taken for no tile, kept where it reads a white dragon (`white_dragons_kept`,
//! while a picture is read), and a face read weakly, given its reading where surer
//! (`doubted_faces_read_again`, once the photo's reading is chosen: run on every picture
//! tried, the surer readings of a stretched picture kept it from being unstretched).

use image::RgbImage;

use super::between;
use super::exposure::Evening;
use super::{NOT_A_TILE, Reading, Recognizer, VisionError, cut_faces, likeliest, max, reads_white};
use crate::detection::Detection;

/// A face read under this is doubted.
const DOUBTFUL: f32 = 0.6;
/// A doubted face read as another face by the classifier for soft photos takes that reading
/// only when it is this much surer. On the held-out rf photos made dark or dim and grainy, and
/// rows of sets never trained on made dark, the other faces that were right read 0.09 to 0.27
/// surer; the one wrong one, a flower of a set never trained on read as another, 0.05.
const SWAP_GAIN: f32 = 0.08;

/// Whether a box the first classifier took for no tile is a white dragon to the classifier
/// for soft photos (`soft`): the blank face, the one a classifier takes for a patch of table.
/// Other faces so kept were false tiles at a picture's edge or on a table's pattern.
fn kept_as_white(soft: &Reading) -> bool {
    soft.none < NOT_A_TILE && reads_white(&soft.faces)
}

/// Whether `soft`, the reading of the classifier for soft photos, reads a face the first
/// read as `probs` more surely, and as a tile: as another face, surer by SWAP_GAIN.
fn soft_is_surer(soft: &Reading, probs: &[f32]) -> bool {
    let gain = if likeliest(&soft.faces) == likeliest(probs) {
        0.0
    } else {
        SWAP_GAIN
    };
    soft.none < NOT_A_TILE && max(&soft.faces) > max(probs) + gain
}

/// Faces read with "not a tile" likelier, read as a tile: each face's share of the faces.
fn as_a_tile(faces: &mut [f32]) {
    let sum: f32 = faces.iter().sum();
    if sum > 0.0 {
        faces.iter_mut().for_each(|p| *p /= sum);
    }
}

impl Recognizer {
    /// The readings of the classifier for soft photos of the tiles `picks` of `kept`, cut
    /// from `img`.
    fn read_soft(
        &mut self,
        img: &RgbImage,
        kept: &[Detection],
        picks: &[usize],
    ) -> Result<Vec<Reading>, VisionError> {
        self.classify_cuts_by(&cut_faces(img, kept, picks), true)
    }

    /// The face-up boxes of `kept` (read in a dark picture `img`, as brightened) that the
    /// first classifier took for no tile (`p_none`), read again by the classifier for soft
    /// photos, and given its reading where it reads a white dragon (`kept_as_white`); those
    /// still taken for no tile are kept as white dragons where they lie in a row of tiles
    /// (`between.rs`: the row decides, "no tile" is set to 0). A soft photo's faces were read
    /// by the soft classifier already.
    pub(super) fn white_dragons_kept(
        &mut self,
        img: &RgbImage,
        kept: &mut [Detection],
        p_none: &mut [f32],
    ) -> Result<(), VisionError> {
        let picks: Vec<usize> = (0..kept.len())
            .filter(|&i| !kept[i].face_down && p_none[i] >= NOT_A_TILE)
            .collect();
        if picks.is_empty() || self.is_soft() {
            return Ok(());
        }
        for (&i, soft) in picks.iter().zip(&self.read_soft(img, kept, &picks)?) {
            if kept_as_white(soft) {
                kept[i].probs = soft.faces.clone();
                p_none[i] = soft.none;
            }
        }
        for i in between::blanks_between_tiles(img, kept, p_none) {
            as_a_tile(&mut kept[i].probs);
            p_none[i] = 0.0;
        }
        Ok(())
    }

    /// The faces of `found` read under DOUBTFUL, in a `photo` that is dark, read again by
    /// the classifier for soft photos, cut from the picture brightened as the first reading
    /// brightened it (evened again here, only where a face is doubted); each takes that
    /// reading where it is surer (`soft_is_surer`).
    pub(super) fn doubted_faces_read_again(
        &mut self,
        photo: &Evening,
        mut found: Vec<Detection>,
    ) -> Result<Vec<Detection>, VisionError> {
        let picks: Vec<usize> = (0..found.len())
            .filter(|&i| !found[i].face_down && max(&found[i].probs) < DOUBTFUL)
            .collect();
        if picks.is_empty() || self.is_soft() || !photo.dark() {
            return Ok(found);
        }
        let reads = self.read_soft(photo.picture(), &found, &picks)?;
        for (&i, soft) in picks.iter().zip(&reads) {
            if soft_is_surer(soft, &found[i].probs) {
                found[i].probs = soft.faces.clone();
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detection::Face;
    use crate::tile::Tile;

    #[test]
    fn faces_read_as_a_tile_are_each_face_s_share() {
        let mut faces = vec![0.01, 0.03, 0.0];
        as_a_tile(&mut faces);
        assert_eq!(faces, vec![0.25, 0.75, 0.0]);
        let mut none = vec![0.0; 3];
        as_a_tile(&mut none);
        assert_eq!(none, vec![0.0; 3]);
    }

    fn reading(face: f32, none: f32) -> Reading {
        let mut faces = vec![0.0; crate::detection::CLASS_COUNT];
        faces[0] = face;
        Reading {
            faces,
            none,
            back: 0.0,
        }
    }

    #[test]
    fn a_doubted_face_takes_the_surer_soft_reading_of_a_tile() {
        let first = reading(0.4, 0.1);
        assert!(soft_is_surer(&reading(0.7, 0.1), &first.faces));
        assert!(!soft_is_surer(&reading(0.3, 0.1), &first.faces));
        // Another face: surer by SWAP_GAIN.
        let mut other = reading(0.0, 0.1);
        other.faces[1] = 0.45;
        assert!(!soft_is_surer(&other, &first.faces));
        other.faces[1] = 0.5;
        assert!(soft_is_surer(&other, &first.faces));
        // The soft classifier takes it for no tile: the first reading stays.
        assert!(!soft_is_surer(&reading(0.9, 0.6), &first.faces));
    }

    #[test]
    fn a_box_taken_for_no_tile_is_kept_only_as_a_white_dragon() {
        assert!(!kept_as_white(&reading(0.9, 0.05)));
        let mut white = reading(0.0, 0.05);
        white.faces[Face::Tile(Tile::P).class()] = 0.9;
        assert!(kept_as_white(&white));
        white.none = 0.6;
        assert!(!kept_as_white(&white));
    }
}

//! From the tiles found in a picture to a hand: `layout` reads how they lie (rows, melds and
//! who gave them, kongs, bonus tiles, the winning tile), `decode` finds the most probable valid
//! hand, and `players` finds the winner's tiles when the whole table is in view.
//! `read_and_decode` chains them.

pub mod decode;
pub mod layout;
mod players;

use crate::detection::Detection;
use crate::scoring::RuleSet;
use decode::{Decoded, decode};
use layout::{GroupKind, TableReading};

/// Layout and decoding. When no valid hand comes out, two more readings are tried, in turn:
/// a tile set aside as a flower or season taken as a playing tile (`with_bonus_in_play`), then,
/// when the picture holds more than one player's tiles, the winner's tiles read alone
/// (`players::winner`). The third item is a note on the first of those, when it was taken.
pub fn read_and_decode(
    detections: &[Detection],
    rules: &RuleSet,
) -> (TableReading, Decoded, Option<String>) {
    let (mut reading, mut decoded, note) = read_and_decode_all(detections, rules);
    kinds_as_read(&mut reading, &decoded);
    for notes in [
        &mut reading.assumed,
        &mut reading.issues,
        &mut decoded.assumed,
        &mut decoded.issues,
    ] {
        say_once(notes);
    }
    (reading, decoded, note)
}

/// Each meld group of `reading` given the kind its tiles were read as (`decode::kind_as_read`).
fn kinds_as_read(reading: &mut TableReading, decoded: &Decoded) {
    for g in &mut reading.groups {
        if let Some((_, meld)) = decoded.melds.iter().find(|(tiles, _)| *tiles == g.tiles) {
            g.kind = decode::kind_as_read(g.kind, meld);
        }
    }
}

/// A note made for several tiles or groups alike is said once, with how many times it applied
/// ("… (3 times)"), in the place of its first mention.
fn say_once(notes: &mut Vec<String>) {
    let mut counted: Vec<(String, usize)> = Vec::with_capacity(notes.len());
    for note in notes.drain(..) {
        match counted.iter_mut().find(|(n, _)| *n == note) {
            Some((_, times)) => *times += 1,
            None => counted.push((note, 1)),
        }
    }
    notes.extend(counted.into_iter().map(|(n, times)| match times {
        1 => n,
        _ => format!("{n} ({times} times)"),
    }));
}

fn read_and_decode_all(
    detections: &[Detection],
    rules: &RuleSet,
) -> (TableReading, Decoded, Option<String>) {
    let reading = layout::read(detections);
    let decoded = decode(detections, &reading, rules);
    if decoded.hand.is_some() {
        return (reading, decoded, None);
    }
    if let Some(found) = with_bonus_in_play(detections, &reading, rules) {
        return found;
    }
    if let Some(found) = with_kong_ends_down(detections, &reading, rules) {
        return found;
    }
    let mut decoded = decoded;
    if players::several_players(detections) {
        if let Some((r, d)) = players::winner(detections, rules) {
            return (r, d, None);
        }
        decoded.issues.push(
            "more tiles are in view than one hand holds (or they face more than one player), and no player's nearest rows make a winning hand"
                .to_string(),
        );
    }
    (reading, decoded, None)
}

/// At most this many tiles read as flowers or seasons are tried as playing tiles.
const BONUS_RETRIES: usize = 4;

/// A tile set aside as a bonus tile is tried in play only if some playing face has this much.
const MIN_PLAYING: f32 = 0.01;

/// A tile set aside as a flower or season that could be a playing tile (the model gives some
/// playing face at least 1%) tried in play: a 1s bird or an unusual painted tile read as a
/// flower otherwise leaves the hand a tile short. The first tile that completes a valid hand is
/// taken, and the note says so.
fn with_bonus_in_play(
    detections: &[Detection],
    reading: &TableReading,
    rules: &RuleSet,
) -> Option<(TableReading, Decoded, Option<String>)> {
    let mut aside: Vec<usize> = reading
        .of_kind(|k| k == GroupKind::Bonus)
        .flat_map(|g| g.tiles.iter().copied())
        .filter(|&i| {
            detections[i]
                .probs
                .iter()
                .take(34)
                .any(|&p| p >= MIN_PLAYING)
        })
        .collect();
    aside.sort_by(|&a, &b| detections[a].p_bonus().total_cmp(&detections[b].p_bonus()));
    for &i in aside.iter().take(BONUS_RETRIES) {
        let mut trial = detections.to_vec();
        let d = &mut trial[i];
        let playing: f32 = d.probs.iter().take(34).sum();
        for (k, p) in d.probs.iter_mut().enumerate() {
            *p = if k < 34 { *p / playing } else { 0.0 };
        }
        let r = layout::read(&trial);
        let dec = decode(&trial, &r, rules);
        if dec.hand.is_some() {
            let note = format!(
                "tile {i}, read as a flower or season ({:.0}%), taken as a playing tile: only so is the hand complete",
                100.0 * detections[i].p_bonus()
            );
            return Some((r, dec, Some(note)));
        }
    }
    None
}

/// The face-up end of each concealed kong read with one face-down tile at its other end, when
/// it is not read as the face of the kong's middle two tiles: the rules lay a concealed kong
/// down, up, up, down, and a pale back is read as a face (a white dragon, most often).
fn face_up_kong_ends(detections: &[Detection], reading: &TableReading) -> Vec<usize> {
    let face = |i: usize| detections[i].top().map(|(f, _)| f);
    reading
        .of_kind(|k| k == GroupKind::ConcealedKong)
        .filter_map(|g| {
            let t: &[usize] = &g.tiles;
            let down: Vec<bool> = t.iter().map(|&i| detections[i].face_down).collect();
            let end = match down.as_slice() {
                [true, false, false, false] => t[3],
                [false, false, false, true] => t[0],
                _ => return None,
            };
            let middle = face(t[1]).filter(|&f| face(t[2]) == Some(f));
            (middle.is_some() && face(end) != middle).then_some(end)
        })
        .collect()
}

/// The hand read again with the face-up ends of `face_up_kong_ends` taken as backs; when
/// that completes a valid hand, it is taken, and the note says so.
fn with_kong_ends_down(
    detections: &[Detection],
    reading: &TableReading,
    rules: &RuleSet,
) -> Option<(TableReading, Decoded, Option<String>)> {
    let ends = face_up_kong_ends(detections, reading);
    if ends.is_empty() {
        return None;
    }
    let mut trial = detections.to_vec();
    let mut read_as = Vec::new();
    for &i in &ends {
        if let Some((f, p)) = trial[i].top() {
            read_as.push(format!("tile {i} read as {f} ({:.0}%)", 100.0 * p));
        }
        trial[i].face_down = true;
        trial[i].probs.clear();
    }
    let r = layout::read(&trial);
    let dec = decode(&trial, &r, rules);
    dec.hand.is_some().then(|| {
        let note = format!(
            "{} taken as a back, the other end of a concealed kong laid down, up, up, down: only so is the hand complete",
            read_as.join(", ")
        );
        (r, dec, Some(note))
    })
}

#[cfg(test)]
mod tests {
    use super::say_once;

    #[test]
    fn a_note_repeated_is_said_once_with_its_count() {
        let mut notes: Vec<String> = ["a", "b", "a", "c", "a", "b"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        say_once(&mut notes);
        assert_eq!(notes, ["a (3 times)", "b (2 times)", "c"]);
    }
}

use super::*;
use crate::detection::Orientation;

/// A picture that is all one grey: different greys are different (moving) pictures.
fn picture(grey: u8) -> Thumb {
    Thumb::of(&RgbImage::from_pixel(
        320,
        240,
        image::Rgb([grey, grey, grey]),
    ))
}

/// `n` face-up tiles in a row at `x0`, each read as class `class` with probability 0.9.
fn tiles(n: usize, x0: f32, class: usize) -> Vec<Detection> {
    (0..n)
        .map(|i| {
            let x = x0 + 30.0 * i as f32;
            let mut probs = vec![0.1 / 41.0; 42];
            probs[class] = 0.9;
            Detection {
                corners: [[x, 100.0], [x + 28.0, 100.0], [x + 28.0, 140.0], [x, 140.0]],
                score: 0.9,
                face_down: false,
                orientation: Orientation::Up,
                probs,
            }
        })
        .collect()
}

/// A stand-in decoder: 14 tiles make a hand whose key is the top class of the first tile.
fn decode(d: &[Detection]) -> Option<(String, usize)> {
    if d.len() != 14 {
        return None;
    }
    let top = d[0].top().map(|(f, _)| format!("{f:?}"))?;
    Some((top, d.len()))
}

/// Feeds frames at 5 per second: (grey, tile count, x, class); returns the lock times.
fn run(t: &mut Tracker, frames: &[(u8, usize, f32, usize)], start: usize) -> Vec<(f64, String)> {
    let mut locks = Vec::new();
    for (k, &(grey, n, x, class)) in frames.iter().enumerate() {
        let obs = Observation {
            seconds: (start + k) as f64 / 5.0,
            detections: tiles(n, x, class),
            thumb: picture(grey),
        };
        if let (_, Some(lock)) = t.push(obs, decode) {
            locks.push((lock.seconds, lock.key));
        }
    }
    locks
}

fn still(n: usize, frames: usize, grey: u8, class: usize) -> Vec<(u8, usize, f32, usize)> {
    vec![(grey, n, 10.0, class); frames]
}

fn moving(frames: usize) -> Vec<(u8, usize, f32, usize)> {
    (0..frames)
        .map(|k| (40 * k as u8 + 20, 14, 10.0 + 25.0 * k as f32, 0))
        .collect()
}

#[test]
fn a_still_hand_locks_once_within_a_second() {
    let mut t = Tracker::new(TrackConfig::default());
    let locks = run(&mut t, &still(14, 20, 100, 0), 0);
    assert_eq!(locks.len(), 1, "{locks:?}");
    assert!(locks[0].0 <= 1.0, "locked at {} s", locks[0].0);
}

#[test]
fn moving_tiles_never_lock() {
    let mut t = Tracker::new(TrackConfig::default());
    assert!(run(&mut t, &moving(6), 0).is_empty());
}

#[test]
fn a_moved_hand_is_not_reported_again_but_a_new_deal_is() {
    let mut t = Tracker::new(TrackConfig::default());
    let mut frames = still(14, 8, 100, 0);
    frames.extend(moving(4));
    frames.extend(still(14, 8, 150, 0)); // the same hand, moved
    frames.extend(still(0, 4, 60, 0)); // swept away
    frames.extend(still(14, 8, 100, 0)); // the same hand dealt again
    frames.extend(moving(3));
    frames.extend(still(14, 8, 90, 5)); // another hand
    let locks = run(&mut t, &frames, 0);
    let keys: Vec<&str> = locks.iter().map(|(_, k)| k.as_str()).collect();
    assert_eq!(keys.len(), 3, "{locks:?}");
    assert_ne!(keys[0], keys[2]);
    assert_eq!(keys[0], keys[1]);
}

#[test]
fn an_incomplete_hand_holds_still_without_locking() {
    let mut t = Tracker::new(TrackConfig::default());
    let mut last = Status::Searching { tiles: 0 };
    for k in 0..10 {
        let obs = Observation {
            seconds: k as f64 / 5.0,
            detections: tiles(13, 10.0, 0),
            thumb: picture(100),
        };
        let (status, lock) = t.push(obs, decode);
        assert!(lock.is_none());
        last = status;
    }
    assert!(
        matches!(last, Status::HoldStill { tiles: 13, .. }),
        "{last:?}"
    );
}

#[test]
fn fusing_averages_the_matched_tiles() {
    let mut w = VecDeque::new();
    for class in [0, 0, 3] {
        w.push_back(Observation {
            seconds: 0.0,
            detections: tiles(2, 10.0, class),
            thumb: picture(0),
        });
    }
    let fused = fuse(&w);
    assert_eq!(fused.len(), 2);
    // Two frames say class 0 at 0.9, the newest says class 3: class 0 wins after fusing.
    assert!(fused[0].probs[0] > fused[0].probs[3]);
    assert!((fused[0].probs[0] - (0.9 + 0.9 + 0.1 / 41.0) / 3.0).abs() < 1e-5);
}

#[test]
fn tiles_sliding_under_a_steady_picture_are_not_still() {
    // The picture barely changes (same grey) but the tiles move 10 px a frame.
    let frames: Vec<_> = (0..10)
        .map(|k| (100, 14, 10.0 + 10.0 * k as f32, 0))
        .collect();
    let mut t = Tracker::new(TrackConfig::default());
    assert!(run(&mut t, &frames, 0).is_empty());
    assert!(drift(&tiles(14, 10.0, 0), &tiles(14, 20.0, 0)) > 0.3);
    assert_eq!(drift(&tiles(14, 10.0, 0), &tiles(14, 10.0, 0)), 0.0);
}

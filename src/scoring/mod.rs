//! The MCR scoring engine: pure, no I/O, no dependency beyond `std`.
//!
//! ```
//! use suanfan::notation;
//! use suanfan::scoring::{score, RuleSet, WinContext};
//!
//! let parsed = notation::parse("[123m,1][EEE,2]456p789s5m5m").unwrap();
//! let s = score(&parsed.hand, &WinContext::default(), &RuleSet::default()).unwrap();
//! assert!(s.total > 0);
//! ```

mod engine;
mod fan;
mod hand;
mod rules;
mod score;
mod tables;
mod waits;

pub use engine::{FanCounts, Reading, Set, SetKind, apply_exclusions, best_reading};
pub use fan::{EXCLUSIONS, Exclusion, FAN_COUNT, Fan};
pub use hand::{Hand, HandError, Meld, MeldKind, Seat, WinContext};
pub use rules::{ImpossibleFlags, MixedKongs, NineGatesExtras, Payments, Preset, RuleSet};
pub use score::{
    FanEntry, NotCounted, Payment, Score, SetList, Sets, Tally, payment, score, tally, total_points,
};
pub use waits::{Wait, Waiting, waits};

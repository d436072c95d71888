//! The window's session log: each hand kept with "Next hand" becomes a row of a score sheet in
//! the format `suanfan audit` reads (see the README), with the payments worked out.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::audit::{Header, changes_for, winds_of};
use crate::scoring::{RuleSet, Score};
use crate::tile::Wind;

/// Who won, from whom, at which hand; and the file the rows go to.
#[derive(Debug)]
pub struct Session {
    pub players: [String; 4],
    /// 1–16: sets the prevalent wind and every player's seat wind.
    pub hand_number: u32,
    pub winner: usize,
    /// The discarder; None: self-drawn.
    pub from: Option<usize>,
    path: PathBuf,
    started: Instant,
    pub rows: usize,
}

fn header(players: &[String; 4]) -> Header {
    Header {
        players: players.to_vec(),
        rules: RuleSet::default(),
        round_seats: [[0, 1, 2, 3]; 4],
    }
}

/// Appends one CSV record (quoted where a field needs it) to `path`.
fn append_record<I, T>(path: &Path, fields: I) -> std::io::Result<()>
where
    I: IntoIterator<Item = T>,
    T: AsRef<[u8]>,
{
    let file = std::fs::OpenOptions::new().append(true).open(path)?;
    let mut w = csv::Writer::from_writer(file);
    w.write_record(fields)?;
    w.flush()
}

impl Session {
    /// Starts a log at `path` (a new file gets the sheet's `#` lines and header row; an
    /// existing one is appended to).
    pub fn create(path: &Path, players: [String; 4], rules: &RuleSet) -> std::io::Result<Session> {
        let fresh = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        if fresh {
            writeln!(f, "# suanfan live session log (score sheet format)")?;
            writeln!(f, "# players: {}", players.join(", "))?;
            writeln!(f, "# rules: {}", rules.preset.name())?;
            let head = [
                "hand",
                "prevalent",
                "result",
                "winner",
                "from",
                "total",
                "flowers",
            ];
            let head = head.iter().map(|h| h.to_string());
            let tail = ["fans", "notation"].iter().map(|h| h.to_string());
            let columns: Vec<String> = head
                .chain(tail)
                .chain(players.iter().cloned())
                .chain(std::iter::once("time".to_string()))
                .collect();
            append_record(path, &columns)?;
        }
        Ok(Session {
            players,
            hand_number: 1,
            winner: 0,
            from: Some(1),
            path: path.to_path_buf(),
            started: Instant::now(),
            rows: 0,
        })
    }

    /// The prevalent wind and the winner's seat wind at this hand.
    pub fn winds(&self) -> (Wind, Wind) {
        let (prevalent, seats) = winds_of(&header(&self.players), self.hand_number);
        (prevalent, seats[self.winner])
    }

    /// Appends the hand as a row and moves to the next hand number.
    pub fn keep(&mut self, s: &Score, rules: &RuleSet) -> std::io::Result<()> {
        let from = self.from.filter(|&d| d != self.winner);
        let changes = changes_for(rules, self.winner, from, s.total);
        let fans: Vec<String> = s
            .fans
            .iter()
            .map(|e| {
                if e.count > 1 {
                    format!("{}×{}", e.fan.zh(), e.count)
                } else {
                    e.fan.zh().to_string()
                }
            })
            .collect();
        let notation = crate::notation::format_hand(&s.hand);
        let (prevalent, _) = self.winds();
        let record = [
            self.hand_number.to_string(),
            prevalent.to_string(),
            "win".to_string(),
            self.players[self.winner].clone(),
            from.map_or("self".to_string(), |d| self.players[d].clone()),
            s.total.to_string(),
            s.context.flowers.to_string(),
            fans.join(";"),
            notation,
            changes[0].to_string(),
            changes[1].to_string(),
            changes[2].to_string(),
            changes[3].to_string(),
            format!("{:.0}", self.started.elapsed().as_secs_f64()),
        ];
        append_record(&self.path, &record)?;
        self.rows += 1;
        self.hand_number = (self.hand_number % 16) + 1;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

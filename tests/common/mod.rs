//! Helpers shared by the integration tests.

use suanfan::notation;
use suanfan::scoring::Hand;

/// Melds sorted and standing tiles sorted, so that equal hands compare equal.
pub fn canonical(h: &Hand) -> String {
    let mut m: Vec<String> = h.melds.iter().map(notation::format_meld).collect();
    m.sort();
    let mut c = h.concealed.clone();
    c.sort();
    format!(
        "{}{} win {}",
        m.concat(),
        notation::format_tiles(&c),
        h.win_tile
    )
}

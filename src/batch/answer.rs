//! The batch answer of a scored line, written byte for byte as `serde_json` writes
//! `json::corpus_answer` (keys in sorted order, no spaces).

use std::sync::OnceLock;

use crate::scoring::{Fan, Tally};

/// `,"name":"…","name_en":"…","points":` of a fan, written once: the names are plain
/// text, which `fan_names_need_no_escapes` checks.
fn names(fan: Fan) -> &'static str {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    let all = NAMES.get_or_init(|| {
        Fan::ALL
            .iter()
            .map(|f| {
                format!(
                    ",\"name\":\"{}\",\"name_en\":\"{}\",\"points\":",
                    f.zh(),
                    f.en()
                )
            })
            .collect()
    });
    all.get(fan.index()).map_or("", String::as_str)
}

fn number(out: &mut Vec<u8>, mut n: u32) {
    // Counts, points and most totals: one or two digits.
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    if n < 100 {
        out.extend_from_slice(&[b'0' + (n / 10) as u8, b'0' + (n % 10) as u8]);
        return;
    }
    let mut digits = [0u8; 10];
    let mut k = digits.len();
    loop {
        k -= 1;
        digits[k] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[k..]);
}

fn boolean(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

/// Appends the answer: `id` is the line's id as written (an integer or a plain string).
pub fn write(out: &mut Vec<u8>, id: Option<&[u8]>, t: &Tally) {
    out.extend_from_slice(b"{\"fans\":[");
    for (k, &(fan, points, count)) in t.fans().iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"count\":");
        number(out, u32::from(count));
        out.extend_from_slice(names(fan).as_bytes());
        number(out, u32::from(points));
        out.push(b'}');
    }
    out.extend_from_slice(b"]");
    if let Some(id) = id {
        out.extend_from_slice(b",\"id\":");
        out.extend_from_slice(id);
    }
    out.extend_from_slice(b",\"meets_8\":");
    boolean(out, t.meets_minimum);
    out.extend_from_slice(b",\"ok\":true,\"total\":");
    number(out, t.total);
    out.extend_from_slice(b",\"total_no_flowers\":");
    number(out, t.total_no_flowers);
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use crate::scoring::Fan;

    #[test]
    fn numbers_are_written_as_serde_json_writes_them() {
        for n in (0..1000).chain([9_999, 10_000, 123_456, u32::MAX]) {
            let mut out = Vec::new();
            super::number(&mut out, n);
            assert_eq!(String::from_utf8(out).ok(), Some(n.to_string()));
        }
    }

    #[test]
    fn fan_names_need_no_escapes() {
        for f in Fan::ALL {
            for s in [f.zh(), f.en()] {
                assert_eq!(
                    serde_json::to_string(s).ok(),
                    Some(format!("\"{s}\"")),
                    "{s}"
                );
            }
        }
    }
}

//! The batch answer of a scored line, written byte for byte as `serde_json` writes
//! `json::corpus_answer` (keys in sorted order, no spaces).

use crate::scoring::Tally;

/// Appends a fan name: the names are plain text, which `fan_names_need_no_escapes` checks.
fn name(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
}

fn number(out: &mut Vec<u8>, mut n: u32) {
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
pub fn write(out: &mut Vec<u8>, id: Option<&str>, t: &Tally) {
    out.extend_from_slice(b"{\"fans\":[");
    for (k, &(fan, points, count)) in t.fans().iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"count\":");
        number(out, u32::from(count));
        out.extend_from_slice(b",\"name\":");
        name(out, fan.zh());
        out.extend_from_slice(b",\"name_en\":");
        name(out, fan.en());
        out.extend_from_slice(b",\"points\":");
        number(out, u32::from(points));
        out.push(b'}');
    }
    out.extend_from_slice(b"]");
    if let Some(id) = id {
        out.extend_from_slice(b",\"id\":");
        out.extend_from_slice(id.as_bytes());
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

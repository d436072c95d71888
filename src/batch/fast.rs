//! A reader for the common shape of a batch line, with no allocation: an object of the corpus
//! form (`{"hand": {...}, "id": ...}`) or a bare hand, plain strings (no escapes), integer or
//! string ids. Anything else, and every line with a mistake, answers `None`: the caller then
//! reads the line with `serde_json`, whose answer (and error message) is the reference. So
//! this reader only has to be right on what it accepts.

use crate::json::meld_of;
use crate::scoring::{Hand, WinContext};
use crate::tile::{Tile, Wind};

/// Objects nested deeper than this are left to `serde_json` (its own limit is 128).
const MAX_DEPTH: usize = 64;

/// A batch line read by the fast reader: the hand goes into the caller's `Hand` (reused).
#[derive(Debug)]
pub struct FastLine<'a> {
    pub ctx: WinContext,
    /// The id as it is written in the line (an integer or a plain string, quotes included).
    pub id: Option<&'a [u8]>,
}

const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` that equals `c` (exact for the lowest such byte; higher
/// ones may be marked spuriously after it, which callers ignore).
pub(super) fn bytes_equal(x: u64, c: u8) -> u64 {
    let y = x ^ (LOW * u64::from(c));
    y.wrapping_sub(LOW) & !y & HIGH
}

/// Not zero when some byte of `x` is below `n` (n ≤ 128).
fn bytes_below(x: u64, n: u8) -> u64 {
    x.wrapping_sub(LOW * u64::from(n)) & !x & HIGH
}

/// Whether `s` is UTF-8. Characters of one to three bytes whose every continuation is
/// valid whatever it is (most Chinese text: lead bytes E1–EC, EE, EF) are stepped over here;
/// from any other byte on, `std` decides.
pub(super) fn utf8_ok(s: &[u8]) -> bool {
    let cont = |i: usize| s.get(i).is_some_and(|&c| c & 0xC0 == 0x80);
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        match c {
            0..=0x7F => i += 1,
            0xE1..=0xEC | 0xEE | 0xEF if cont(i + 1) && cont(i + 2) => i += 3,
            _ => return std::str::from_utf8(&s[i..]).is_ok(),
        }
    }
    true
}

/// A cursor over the bytes of one line. The line need not be UTF-8: outside strings a byte
/// over 127 is a syntax error (left to `serde_json`), and a string holding such bytes is
/// checked as UTF-8 when it is read.
struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    fn ws(&mut self) {
        // Every byte of a token is above the space: one test in the usual case.
        while let Some(&c) = self.b.get(self.i)
            && c <= b' '
            && matches!(c, b' ' | b'\t' | b'\n' | b'\r')
        {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// A string without escapes or control characters, without its quotes; valid UTF-8.
    fn string(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        self.string_body()
    }

    /// The rest of a string whose opening quote the cursor has just passed.
    fn string_body(&mut self) -> Option<&'a [u8]> {
        let b = self.b;
        let start = self.i;
        // The high bits of the string's bytes: any set means UTF-8 to check.
        let mut high = 0u64;
        // Eight bytes at a time to the first quote, backslash or control character (the
        // lowest marked byte is exact), then byte by byte near the end of the line.
        while let Some(w) = b.get(self.i..self.i + 8) {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            let x = u64::from_le_bytes(a);
            let special = bytes_equal(x, b'"') | bytes_equal(x, b'\\') | bytes_below(x, 0x20);
            if special != 0 {
                let k = special.trailing_zeros() as usize / 8;
                // Only the bytes before the mark belong to the string.
                high |= x & !(u64::MAX << (8 * k));
                self.i += k;
                return self.string_end(start, high);
            }
            high |= x;
            self.i += 8;
        }
        loop {
            match *b.get(self.i)? {
                b'"' => break,
                c if c < 0x20 || c == b'\\' => return None,
                c => high |= u64::from(c),
            }
            self.i += 1;
        }
        self.string_end(start, high)
    }

    /// The string from `start` to the cursor, which must be at its closing quote.
    fn string_end(&mut self, start: usize, high: u64) -> Option<&'a [u8]> {
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        let out = &self.b[start..self.i];
        if high & HIGH != 0 && !utf8_ok(out) {
            return None;
        }
        self.i += 1;
        Some(out)
    }

    /// A string as text.
    fn text(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.string()?).ok()
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.ws();
        self.b[self.i..]
            .starts_with(word)
            .then(|| self.i += word.len())
    }

    fn boolean(&mut self) -> Option<bool> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|_| true),
            b'f' => self.literal(b"false").map(|_| false),
            _ => None,
        }
    }

    /// The text of a JSON number; `integer` refuses fractions and exponents.
    fn number(&mut self, integer: bool) -> Option<&'a [u8]> {
        self.ws();
        let b = self.b;
        let start = self.i;
        if b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        let digits = |i: &mut usize| {
            let from = *i;
            while b.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i - from
        };
        let int_start = self.i;
        let n = digits(&mut self.i);
        if n == 0 || (n > 1 && b[int_start] == b'0') {
            return None;
        }
        if b.get(self.i) == Some(&b'.') {
            if integer {
                return None;
            }
            self.i += 1;
            if digits(&mut self.i) == 0 {
                return None;
            }
        }
        if matches!(b.get(self.i), Some(b'e' | b'E')) {
            return None;
        }
        b.get(start..self.i)
    }

    fn small(&mut self) -> Option<u8> {
        std::str::from_utf8(self.number(true)?).ok()?.parse().ok()
    }

    /// Steps over any value, checking it as far as `serde_json` would; the value is at
    /// nesting `depth`. One loop with a bit per open container (1: object) instead of a call
    /// per value.
    fn skip(&mut self, depth: usize) -> Option<()> {
        let mut open = 0u64;
        let mut level = 0usize;
        loop {
            // A value.
            if depth + level > MAX_DEPTH {
                return None;
            }
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    self.string_body()?;
                }
                b't' | b'f' => {
                    self.boolean()?;
                }
                b'n' => self.literal(b"null")?,
                c @ (b'[' | b'{') => {
                    self.i += 1;
                    let close = if c == b'[' { b']' } else { b'}' };
                    if self.peek()? == close {
                        self.i += 1;
                    } else {
                        open = open << 1 | u64::from(c == b'{');
                        level += 1;
                        if c == b'{' {
                            self.key()?;
                        }
                        continue;
                    }
                }
                _ => {
                    self.number(false)?;
                }
            }
            // After a value: close what ends here, then a comma and the next value.
            loop {
                if level == 0 {
                    return Some(());
                }
                let object = open & 1 == 1;
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        if object {
                            self.key()?;
                        }
                        break;
                    }
                    b'}' if object => {}
                    b']' if !object => {}
                    _ => return None,
                }
                self.i += 1;
                open >>= 1;
                level -= 1;
            }
        }
    }

    /// A member's key and its colon.
    fn key(&mut self) -> Option<()> {
        self.string()?;
        self.eat(b':')
    }

    /// The items of an array after its `[`, each read by `item`.
    fn items(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if self.peek()? == b']' {
            self.i += 1;
            return Some(());
        }
        loop {
            item(self)?;
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The members of an object, each value read by `member` given its key.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            let key = self.string()?;
            self.eat(b':')?;
            member(self, key)?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The tiles of an array after its `[`, each given to `put` (false: too many).
    fn tiles(&mut self, mut put: impl FnMut(Tile) -> bool) -> Option<()> {
        self.items(|c| put(c.tile()?).then_some(()))
    }

    /// A tile: `"1m"` or `"E"` read in place (a code `Tile::from_code` accepts is plain
    /// text), any other string through `string`.
    fn tile(&mut self) -> Option<Tile> {
        self.ws();
        let b = self.b;
        let i = self.i;
        if b.get(i) == Some(&b'"') {
            for len in [2, 1] {
                if b.get(i + 1 + len) == Some(&b'"') {
                    let t = Tile::from_code(b.get(i + 1..i + 1 + len)?)?;
                    self.i = i + 2 + len;
                    return Some(t);
                }
            }
        }
        Tile::from_code(self.string()?)
    }

    /// An id: an integer or a plain string, as written.
    fn id(&mut self) -> Option<&'a [u8]> {
        let start = {
            self.ws();
            self.i
        };
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            // serde_json writes these back differently (-0 as 0, huge integers as floats).
            _ => {
                let n = self.number(true)?;
                if n == b"-0" || n.len() > 18 {
                    return None;
                }
            }
        }
        self.b.get(start..self.i)
    }
}

/// The fields of a hand object, each at most once.
#[derive(Default)]
struct Fields<'a> {
    seen: u32,
    id: Option<&'a [u8]>,
    ctx: WinContext,
    has_concealed: bool,
    has_win: bool,
}

impl<'a> Fields<'a> {
    /// Marks field `bit` as seen; a second copy is left to `serde_json`.
    fn once(&mut self, bit: u32) -> Option<()> {
        (self.seen & bit == 0).then(|| self.seen |= bit)
    }
}

/// Reads one hand field into `f` and `hand`; `Some(false)` when `key` is not a hand field.
fn hand_field<'a>(
    c: &mut Cur<'a>,
    key: &[u8],
    f: &mut Fields<'a>,
    hand: &mut Hand,
) -> Option<bool> {
    let wind = |c: &mut Cur| Wind::parse(c.text()?);
    match key {
        b"id" => {
            f.once(1)?;
            f.id = Some(c.id()?);
        }
        b"melds" => {
            f.once(2)?;
            c.eat(b'[')?;
            c.items(|c| {
                hand.melds.push(meld(c)?);
                (hand.melds.len() <= 4).then_some(())
            })?;
        }
        b"concealed" => {
            f.once(4)?;
            c.eat(b'[')?;
            c.tiles(|t| {
                hand.concealed.push(t);
                hand.concealed.len() <= 14
            })?;
            f.has_concealed = true;
        }
        b"win_tile" => {
            f.once(8)?;
            hand.win_tile = c.tile()?;
            f.has_win = true;
        }
        b"self_drawn" => {
            f.once(16)?;
            f.ctx.self_drawn = c.boolean()?;
        }
        b"fourth_tile" => {
            f.once(32)?;
            f.ctx.fourth_tile = c.boolean()?;
        }
        b"kong_related" => {
            f.once(64)?;
            f.ctx.kong = c.boolean()?;
        }
        b"last_tile" => {
            f.once(128)?;
            f.ctx.last_tile = c.boolean()?;
        }
        b"seat_wind" => {
            f.once(256)?;
            f.ctx.seat_wind = wind(c)?;
        }
        b"prevalent_wind" => {
            f.once(512)?;
            f.ctx.prevalent_wind = wind(c)?;
        }
        b"flowers" => {
            f.once(1024)?;
            f.ctx.flowers = c.small()?;
        }
        _ => return Some(false),
    }
    Some(true)
}

/// One declared meld: `{"type": ..., "tiles": [...], "claimed": n, "from": ...}`.
fn meld(c: &mut Cur) -> Option<crate::scoring::Meld> {
    let mut kind = None;
    let mut tiles = [Tile::E; 4];
    let mut n = None;
    let mut claimed = None;
    let mut from = None;
    c.object(|c, key| match key {
        b"type" if kind.is_none() => {
            kind = Some(c.text()?);
            Some(())
        }
        b"tiles" if n.is_none() => {
            let mut k = 0;
            c.eat(b'[')?;
            c.tiles(|t| {
                let Some(slot) = tiles.get_mut(k) else {
                    return false;
                };
                *slot = t;
                k += 1;
                true
            })?;
            n = Some(k);
            Some(())
        }
        b"claimed" if claimed.is_none() => {
            claimed = Some(c.small()?);
            Some(())
        }
        b"from" if from.is_none() => {
            from = Some(c.text()?);
            Some(())
        }
        b"type" | b"tiles" | b"claimed" | b"from" => None,
        _ => c.skip(1),
    })?;
    meld_of(kind?, &mut tiles[..n?], claimed, from).ok()
}

/// Reads a batch line into `hand` (cleared first). `None`: leave the line to `serde_json`.
pub fn read_line<'a>(line: &'a [u8], hand: &mut Hand) -> Option<FastLine<'a>> {
    hand.melds.clear();
    hand.concealed.clear();
    let mut c = Cur { b: line, i: 0 };
    let mut top = Fields::default();
    let mut inner: Option<Fields> = None;
    c.object(|c, key| {
        if key == b"hand" {
            if inner.is_some() || top.seen & !1 != 0 {
                return None;
            }
            // Hand fields before "hand" would have gone into `hand`: the top object's
            // fields were none but "id", checked above.
            let mut f = Fields::default();
            c.object(|c, key| {
                if hand_field(c, key, &mut f, hand)? {
                    Some(())
                } else {
                    c.skip(2)
                }
            })?;
            inner = Some(f);
            return Some(());
        }
        if inner.is_some() && key != b"id" {
            // After "hand", the top object's other members are not read by serde's path.
            return c.skip(1);
        }
        if hand_field(c, key, &mut top, hand)? {
            Some(())
        } else {
            c.skip(1)
        }
    })?;
    c.ws();
    if c.i != line.len() {
        return None;
    }
    let (f, id) = match inner {
        Some(f) => {
            let id = f.id.or(top.id);
            (f, id)
        }
        None => {
            let id = top.id;
            (top, id)
        }
    };
    (f.has_concealed && f.has_win).then_some(FastLine { ctx: f.ctx, id })
}

use super::*;
use crate::json::JsonHand;
use crate::notation;

fn empty_hand() -> Hand {
    Hand {
        melds: Vec::new(),
        concealed: Vec::new(),
        win_tile: Tile::E,
    }
}

/// The answer to a line by the batch path (fast where it can).
fn fast_answer(line: &str, n: usize) -> String {
    let mut hand = empty_hand();
    let mut out = Vec::new();
    answer_line(
        line.as_bytes(),
        Kind::Text,
        n,
        &RuleSet::default(),
        &mut hand,
        &mut out,
    );
    String::from_utf8(out).unwrap_or_default()
}

/// The answer by `serde_json` and the full `score` alone.
fn reference(line: &str, n: usize) -> String {
    serde_json::to_string(&reference_answer(
        line.as_bytes(),
        Kind::Text,
        n,
        &RuleSet::default(),
    ))
    .unwrap_or_default()
}

/// A bare hand line for a hand in bracket notation.
fn hand_line(text: &str) -> String {
    let parsed = notation::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    serde_json::to_string(&JsonHand::from_hand(
        &parsed.hand,
        &parsed.context.unwrap_or_default(),
    ))
    .unwrap_or_default()
}

const HANDS: &[&str] = &[
    "[123m,1][EEE,2]456p789s5m5m",
    "1122m3344p5566s7m7m|EE",
    "19m19p19s1234567zE|ES1000",
    "[FFF,1][CCC][PPP,3]123m4p4p|SW0100|5",
    "[5555s]123m456p78s9s|NE0001",
    "1112345678999m5m",
    "147m258s369p1234z5z",
    "22334455667788s",
];

#[test]
fn fast_answers_equal_the_reference_answers() {
    for h in HANDS {
        let line = hand_line(h);
        assert_eq!(fast_answer(&line, 1), reference(&line, 1), "{line}");
        assert!(
            fast::read_line(line.as_bytes(), &mut empty_hand()).is_some(),
            "fast path not taken for {line}"
        );
    }
}

/// `base` with `from` replaced, which must be in it.
fn changed(base: &str, from: &str, to: &str) -> String {
    assert!(base.contains(from), "{from} is not in {base}");
    base.replace(from, to)
}

/// Lines the fast reader may take or leave: the answer must always be the reference's.
#[test]
fn odd_lines_get_the_reference_answer() {
    let base = hand_line(HANDS[0]);
    let inner = base
        .trim_start_matches('{')
        .trim_end_matches('}')
        .to_string();
    let lines = [
        format!("{{\"hand\": {base}, \"id\": 7, \"ok\": true, \"fans\": []}}"),
        format!("{{\"id\": \"x-1\", \"hand\": {base}}}"),
        format!("{{\"id\": 5, {inner}}}"),
        format!("{{\"id\": -0, {inner}}}"),
        format!("{{\"id\": 12345678901234567890123, {inner}}}"),
        format!("{{\"id\": 1.5, {inner}}}"),
        format!("{{\"id\": null, {inner}}}"),
        format!("{{\"id\": \"a\\\"b\", {inner}}}"),
        format!("{{\"id\": [1, {{\"x\": 2}}], {inner}}}"),
        format!("{{\"hand\": {base}, \"hand\": {base}}}"),
        format!("{{{inner}, \"flowers\": 2}}"),
        format!("{{{inner}, \"flowers\": 300}}"),
        format!("{{{inner}, \"recipe\": \"x\\u00e9\"}}"),
        format!("  {{ {inner} }}  "),
        format!("{{{inner}}} x"),
        format!("{{{inner}"),
        changed(&base, "\"5m\"", "\"0m\""),
        changed(&base, "\"E\"", "\"east\""),
        changed(&base, "\"E\"", "\"Q\""),
        changed(&base, "false", "null"),
        changed(&base, "\"claimed\":0", "\"claimed\":null"),
        changed(&base, "\"claimed\":0", "\"claimed\":7"),
        changed(&base, "\"from\":\"across\"", "\"from\":\"up\""),
        changed(&base, "\"concealed\":[", "\"concealed\":[\"1m\","),
        changed(&base, "\"concealed\":[", "\"concealed\":[ "),
        changed(&base, "\"concealed\":[", "\"concealed\":[\"\","),
        changed(&base, "\"concealed\":[", "\"concealed\":[\"1mm\","),
        changed(&base, "\"concealed\":[", "\"concealed\":[\"m\","),
        changed(&base, "\"5m\",", "\"5m\" , "),
        changed(&base, "\"5m\",", "\"5m\",]"),
        changed(&base, "\"5m\",", "\"5\\u006d\","),
        changed(&base, "\"win_tile\":\"5m\",", ""),
        changed(&base, "\"type\":\"chow\"", "\"type\":\"pung\""),
        "[1, 2]".to_string(),
        "{}".to_string(),
        "null".to_string(),
        "{\"hand\": 3}".to_string(),
        "x".to_string(),
    ];
    for (k, line) in lines.iter().enumerate() {
        assert_eq!(fast_answer(line, k + 1), reference(line, k + 1), "{line}");
    }
}

#[test]
fn every_line_is_answered_in_order_on_any_number_of_threads() {
    let mut input = String::new();
    for k in 0..300 {
        input.push_str(&hand_line(HANDS[k % HANDS.len()]));
        input.push('\n');
        if k % 37 == 0 {
            input.push_str("not json\n\n");
        }
    }
    let run_with = |threads: usize| {
        let mut out = Vec::new();
        run(
            &mut input.as_bytes(),
            &mut out,
            &RuleSet::default(),
            threads,
        )
        .unwrap_or_default();
        String::from_utf8(out).unwrap_or_default()
    };
    let one = run_with(1);
    assert_eq!(one.lines().count(), input.lines().count());
    assert!(
        one.lines()
            .nth(1)
            .is_some_and(|l| l.contains("line 2: not JSON"))
    );
    assert_eq!(run_with(2), one);
    assert_eq!(run_with(7), one);
}

#[test]
fn newline_search_finds_the_first_newline() {
    for len in 0..40 {
        for at in 0..len {
            let mut b = vec![b'a'; len];
            b[at] = b'\n';
            if at + 3 < len {
                b[at + 3] = b'\n';
            }
            assert_eq!(memchr_newline(&b), Some(at), "len {len} at {at}");
        }
        assert_eq!(memchr_newline(&vec![b'x'; len]), None);
    }
}

#[test]
fn long_lines_and_bad_bytes_get_an_error_answer() {
    let mut input = vec![b'{'; MAX_LINE + 10];
    input.extend_from_slice(b"\n\xff\xfe\n");
    let mut out = Vec::new();
    run(&mut input.as_slice(), &mut out, &RuleSet::default(), 1).unwrap_or_default();
    let text = String::from_utf8(out).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].contains("line 1: longer than"), "{}", lines[0]);
    assert!(lines[1].contains("line 2: not valid UTF-8"), "{}", lines[1]);
}

/// The values after a corpus line's hand are stepped over by one loop: well-formed ones of
/// every kind and depth are answered fast, and every malformed one, or one too deep, gets the
/// reference's answer (its error) all the same.
#[test]
fn values_stepped_over_are_checked_as_serde_would() {
    let base = hand_line(HANDS[1]);
    let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let tails = [
        "\"fans\": [{\"name\": \"门前清\", \"points\": 2}, {}], \"ok\": true".to_string(),
        "\"x\": [[], {}, [{\"a\": [null, false, -1.5, 0, \"\"]}]]".to_string(),
        format!("\"x\": {}", deep(60)),
        format!("\"x\": {}", deep(70)),
        format!("\"x\": {}", deep(200)),
        "\"x\": [1,]".to_string(),
        "\"x\": [1 2]".to_string(),
        "\"x\": {\"a\" 1}".to_string(),
        "\"x\": {\"a\": 1,}".to_string(),
        "\"x\": {1: 2}".to_string(),
        "\"x\": [}".to_string(),
        "\"x\": {]".to_string(),
        "\"x\": [1".to_string(),
        "\"x\": 01".to_string(),
        "\"x\": 1e5".to_string(),
        "\"x\": tru".to_string(),
        "\"x\": \"a\\nb\"".to_string(),
        "\"x\": \"a\tb\"".to_string(),
    ];
    for (k, tail) in tails.iter().enumerate() {
        let line = format!("{{\"hand\": {base}, {tail}}}");
        assert_eq!(fast_answer(&line, k + 1), reference(&line, k + 1), "{line}");
    }
    let fast = format!("{{\"hand\": {base}, {}}}", tails[0]);
    assert!(fast::read_line(fast.as_bytes(), &mut empty_hand()).is_some());
    let too_deep = format!("{{\"hand\": {base}, {}}}", tails[4]);
    assert!(fast::read_line(too_deep.as_bytes(), &mut empty_hand()).is_none());
}

/// UTF-8 is checked inside strings only: bad bytes in a string that is read or stepped over,
/// or outside strings, send the line the reference way, which answers "not valid UTF-8".
#[test]
fn bad_utf8_anywhere_in_a_line_is_reported() {
    let base = hand_line(HANDS[2]);
    let lines: Vec<Vec<u8>> = vec![
        format!("{{\"hand\": {base}, \"x\": \"ab\u{00e9}\"}}").into_bytes(),
        [
            format!("{{\"hand\": {base}, \"x\": \"ab").as_bytes(),
            b"\xe9\xff",
            b"cdefghijk\"}",
        ]
        .concat(),
        [
            "{\"id\": \"".as_bytes(),
            b"\xc3",
            b"\", \"hand\": ",
            base.as_bytes(),
            b"}",
        ]
        .concat(),
        [
            format!("{{\"hand\": {base}, \"x\": ").as_bytes(),
            b"\xe9",
            b"}",
        ]
        .concat(),
    ];
    for (k, line) in lines.iter().enumerate() {
        let mut out = Vec::new();
        let mut hand = empty_hand();
        answer_line(
            line,
            Kind::Text,
            k + 1,
            &RuleSet::default(),
            &mut hand,
            &mut out,
        );
        let text = String::from_utf8(out).unwrap_or_default();
        let valid = std::str::from_utf8(line).is_ok();
        if valid {
            assert!(text.contains("\"ok\":true"), "{text}");
        } else {
            assert!(text.contains("not valid UTF-8"), "{text}");
            assert!(fast::read_line(line, &mut hand).is_none());
        }
    }
}

/// The short UTF-8 check agrees with `std` on random bytes weighted towards lead and
/// continuation bytes, and on every Chinese fan name.
#[test]
fn short_utf8_check_agrees_with_std() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let pool = [
        b'a', 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xC3, 0xE0, 0xE1, 0xE9, 0xED, 0xEF, 0xF0, 0xF4, 0xFF,
    ];
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = (x % 9) as usize;
        let s: Vec<u8> = (0..len)
            .map(|k| pool[((x >> (8 + 5 * k)) % pool.len() as u64) as usize])
            .collect();
        assert_eq!(fast::utf8_ok(&s), std::str::from_utf8(&s).is_ok(), "{s:x?}");
    }
    for f in crate::scoring::Fan::ALL {
        assert!(fast::utf8_ok(f.zh().as_bytes()), "{}", f.zh());
    }
}

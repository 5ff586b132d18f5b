//! Incremental parsing ([`ParseMemo`]) gives the parse of the whole text.

use super::{parse, parse_with, ParseMemo};
use proptest::prelude::*;

const PROGRAM: &str = "function r = f(a)\n  r = a * 2;\n  if r > 1\n    r = [1, 2; ...\n         3, 4];\n  end\nend\n\
                       function s = g(b)\n  s = b'; % a comment\n  t = {b, 'x(', \"y\"};\nend\n";

fn same(memo: &mut ParseMemo, text: &str) {
    let again = format!("{:?}", parse_with(text, memo));
    assert_eq!(again, format!("{:?}", parse(text)), "on:\n{text}");
}

#[test]
fn clauses_after_an_edit_are_reused_and_moved() {
    let mut memo = ParseMemo::default();
    same(&mut memo, PROGRAM);
    let clauses = memo.last_run.1;
    assert_eq!(memo.last_run.0, 0);
    // One more character in the first function's second line: only that clause is
    // parsed again; the one before it (whose bound ends before the edit) and every
    // one after it are reused.
    let edited = PROGRAM.replacen("a * 2", "a * 20", 1);
    same(&mut memo, &edited);
    assert_eq!(memo.last_run, (clauses - 1, 1));
    // An edit inside a bracket that spans lines parses the whole bracketed clause again.
    let edited = edited.replacen("3, 4]", "3, 5]", 1);
    same(&mut memo, &edited);
    assert_eq!(memo.last_run, (clauses - 1, 1));
    // The unchanged text again: every clause is reused.
    same(&mut memo, &edited);
    assert_eq!(memo.last_run, (clauses, 0));
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random insertions and deletions (of characters that open and close brackets,
    /// strings, comments, continuations and blocks) parse as the whole text does.
    #[test]
    fn incremental_parse_equals_a_full_parse(
        edits in prop::collection::vec(
            (0.0..=1.0f64, 0usize..6, prop::sample::select(vec![
                "(", ")", "[", "]", "{", "}", "'", "\"", "%", "%{\n", "%}\n", "...", "\n",
                "end\n", "if x\n", "function y = h(x)\n", " ", ";", ",", "x", "1",
            ])),
            1..8,
        )
    ) {
        let mut memo = ParseMemo::default();
        let mut text = PROGRAM.to_string();
        same(&mut memo, &text);
        for (at, delete, insert) in edits {
            let mut i = (text.len() as f64 * at) as usize;
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            let mut j = (i + delete).min(text.len());
            while !text.is_char_boundary(j) {
                j -= 1;
            }
            text = format!("{}{}{}", &text[..i], insert, &text[j..]);
            same(&mut memo, &text);
        }
    }
}

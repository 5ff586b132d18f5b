use crate::ast::{ExprKind, Item, Program, TypeAnnKind};
use crate::{parse, tokens};
use shapex_text::{Diagnostic, TokenKind};

fn clean(source: &str) -> Program {
    let parsed = parse(source);
    assert!(
        parsed.diagnostics.is_empty(),
        "unexpected diagnostics: {:#?}",
        parsed.diagnostics
    );
    parsed.program
}

fn errors(source: &str) -> Vec<Diagnostic> {
    parse(source).diagnostics
}

fn dims(ty: &TypeAnnKind) -> Option<Vec<Option<u64>>> {
    match ty {
        TypeAnnKind::Dyn => None,
        TypeAnnKind::Tensor(d) => Some(d.iter().map(|d| d.value).collect()),
    }
}

#[test]
fn tc1_verbatim_on_one_line() {
    // Spec 004 TC-1, as Figure 1 writes programs: declarations, then one return.
    let p = clean("x : TensorType([Dyn,2,Dyn]) y : TensorType([1,2,2]) return add(x, y)");
    let decls: Vec<_> = p.decls().collect();
    assert_eq!(decls.len(), 2);
    assert_eq!(decls[0].name.name, "x");
    assert_eq!(dims(&decls[0].ty.kind), Some(vec![None, Some(2), None]));
    assert_eq!(
        dims(&decls[1].ty.kind),
        Some(vec![Some(1), Some(2), Some(2)])
    );
    let ret = p.returns().next().expect("a return");
    match &ret.expr.kind {
        ExprKind::Add(a, b) => {
            assert!(matches!(&a.kind, ExprKind::Var(v) if v.name == "x"));
            assert!(matches!(&b.kind, ExprKind::Var(v) if v.name == "y"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_expression_form_and_both_tensor_spellings() {
    let source = "# a comment\nx : Dyn\nw : TensorType((4,))\nv : TensorType((1, 2, Dyn))\n\
                  return add(reshape(Conv2D(2, 3, (2, 2), x), TensorType([Dyn, 6])), w) # done";
    let p = clean(source);
    let decls: Vec<_> = p.decls().collect();
    assert_eq!(dims(&decls[0].ty.kind), None);
    assert_eq!(dims(&decls[1].ty.kind), Some(vec![Some(4)]));
    assert_eq!(dims(&decls[2].ty.kind), Some(vec![Some(1), Some(2), None]));
    let ret = p.returns().next().unwrap();
    let ExprKind::Add(a, _) = &ret.expr.kind else {
        panic!()
    };
    let ExprKind::Reshape { arg, target } = &a.kind else {
        panic!()
    };
    assert_eq!(dims(&target.kind), Some(vec![None, Some(6)]));
    let ExprKind::Conv2D {
        c_in,
        c_out,
        kernel,
        ..
    } = &arg.kind
    else {
        panic!()
    };
    assert_eq!(
        (c_in.value, c_out.value, kernel.0.value, kernel.1.value),
        (Some(2), Some(3), Some(2), Some(2))
    );
    assert_eq!(&source[ret.span.start..ret.span.start + 6], "return");
    assert!(source[ret.span.start..ret.span.end].ends_with(", w)"));
}

#[test]
fn a_bad_declaration_is_skipped_and_the_next_one_parses() {
    let source = "x : TensorType([1, 2\ny : Dyn\nreturn y";
    let parsed = parse(source);
    assert_eq!(parsed.diagnostics.len(), 1, "{:#?}", parsed.diagnostics);
    let d = &parsed.diagnostics[0];
    assert_eq!(d.code, "syntax.expected");
    assert!(d.message.starts_with("missing"), "{}", d.message);
    assert!(d.message.contains("`]`"), "{}", d.message);
    assert!(d.message.ends_with("after `2`"), "{}", d.message);
    assert_eq!(d.range.line, 1);
    let kinds: Vec<&str> = parsed
        .program
        .items
        .iter()
        .map(|i| match i {
            Item::Decl(_) => "decl",
            Item::Return(_) => "return",
            Item::Error(_) => "error",
        })
        .collect();
    assert_eq!(kinds, ["error", "decl", "return"]);
}

#[test]
fn diagnostics_say_what_is_missing() {
    let cases = [
        ("x TensorType([1])\nreturn x", "`:`"),
        ("x : Tensor\nreturn x", "a type"),
        ("x : TensorType([1, foo])\nreturn x", "a dimension"),
        ("x : Dyn\nreturn", "an expression"),
        ("x : Dyn\nreturn Conv2D(2, 2, 2, x)", "a kernel"),
        ("x : Dyn\nreturn add(x x)", "`,`"),
        ("x : Dyn\n] return x", "a declaration `x : τ` or `return e`"),
    ];
    for (source, want) in cases {
        let diags = errors(source);
        assert!(
            diags
                .iter()
                .any(|d| d.code == "syntax.expected" && d.message.contains(want)),
            "{source:?}: want {want}, got {diags:#?}"
        );
        for d in &diags {
            assert!(d.span.end <= source.len());
        }
    }
}

#[test]
fn a_reshape_target_with_two_dyns_is_a_syntax_error() {
    let source = "x : Dyn\nreturn reshape(x, TensorType([Dyn, 2, Dyn]))";
    let parsed = parse(source);
    assert_eq!(parsed.diagnostics.len(), 1, "{:#?}", parsed.diagnostics);
    let d = &parsed.diagnostics[0];
    assert_eq!(d.code, "syntax.reshape");
    assert_eq!(&source[d.span.start..d.span.end], "Dyn");
    assert_eq!(d.range.col, 39);
    // It is still in the tree, for the checker.
    assert_eq!(parsed.program.returns().count(), 1);
}

#[test]
fn the_order_decl_star_return_e_is_checked() {
    let d = errors("x : Dyn");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "syntax.return");
    let d = errors("x : Dyn\nreturn x\ny : Dyn");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "syntax.order");
    assert!(d[0].message.contains("`y`"));
    let d = errors("x : Dyn\nreturn x\nreturn x");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "syntax.order");
    assert_eq!(d[0].range.line, 3);
    // An empty file (or only comments) is no program yet, and no error.
    assert!(errors("").is_empty());
    assert!(errors("# nothing\n").is_empty());
}

#[test]
fn a_number_too_large_is_a_diagnostic_not_a_panic() {
    let parsed = parse("x : TensorType([99999999999999999999999])\nreturn x");
    assert_eq!(parsed.diagnostics.len(), 1);
    assert_eq!(parsed.diagnostics[0].code, "syntax.number");
}

#[test]
fn deep_nesting_is_one_diagnostic() {
    let source = format!(
        "x : Dyn\nreturn {}x{}",
        "add(".repeat(500),
        ", x)".repeat(500)
    );
    let parsed = parse(&source);
    assert!(
        parsed
            .diagnostics
            .iter()
            .any(|d| d.code == "syntax.nesting"),
        "{:#?}",
        parsed.diagnostics
    );
    assert_eq!(parsed.program.decls().count(), 1);
    // Just below the limit parses.
    let n = crate::MAX_NESTING - 1;
    let source = format!("x : Dyn\nreturn {}x{}", "add(".repeat(n), ", x)".repeat(n));
    assert!(parse(&source).diagnostics.is_empty());
}

#[test]
fn garbage_keeps_offsets_and_utf8() {
    let source = "é : ö\nx : Dyn\nreturn ü";
    let parsed = parse(source);
    assert!(!parsed.diagnostics.is_empty());
    for d in &parsed.diagnostics {
        assert!(source.is_char_boundary(d.span.start) && source.is_char_boundary(d.span.end));
    }
    assert_eq!(parsed.program.decls().count(), 1);
}

#[test]
fn tokens_cover_the_line_and_find_keywords_and_comments() {
    let line = "  return add(reshape(x, TensorType((2, Dyn))), y) # TC-1";
    let toks = tokens(line);
    let mut at = 0;
    for t in &toks {
        assert_eq!(t.start, at);
        at = t.end;
    }
    assert_eq!(at, line.len());
    let kind = |text: &str| {
        toks.iter()
            .find(|t| &line[t.start..t.end] == text)
            .map(|t| t.kind)
    };
    assert_eq!(kind("return"), Some(TokenKind::Keyword));
    assert_eq!(kind("TensorType"), Some(TokenKind::Keyword));
    assert_eq!(kind("Dyn"), Some(TokenKind::Keyword));
    assert_eq!(kind("x"), Some(TokenKind::Ident));
    assert_eq!(kind("2"), Some(TokenKind::Number));
    assert_eq!(kind("# TC-1"), Some(TokenKind::Comment));
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn token() -> impl Strategy<Value = &'static str> {
        prop::sample::select(
            &[
                "return",
                "reshape",
                "Conv2D",
                "add",
                "TensorType",
                "Dyn",
                "x",
                "y",
                ":",
                "1",
                "22",
                "(",
                ")",
                "[",
                "]",
                ",",
                " ",
                "\n",
                "#",
                "é",
                "\u{1}",
            ][..],
        )
    }

    fn check(source: &str) -> Result<(), TestCaseError> {
        let parsed = parse(source);
        for d in &parsed.diagnostics {
            prop_assert!(d.span.start <= d.span.end && d.span.end <= source.len());
            prop_assert!(source.is_char_boundary(d.span.start));
            prop_assert!(source.is_char_boundary(d.span.end));
            prop_assert!(d.code.starts_with("syntax."));
        }
        for item in &parsed.program.items {
            let s = item.span();
            prop_assert!(s.start <= s.end && s.end <= source.len());
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, .. ProptestConfig::default() })]

        #[test]
        fn token_soup_never_panics_and_spans_stay_in_the_source(
            tokens in prop::collection::vec(token(), 0..60)
        ) {
            check(&tokens.concat())?;
        }

        #[test]
        fn arbitrary_text_never_panics(source in "\\PC{0,200}") {
            check(&source)?;
        }

        #[test]
        fn tokens_always_cover_the_line(line in "[^\n]{0,80}") {
            let mut at = 0;
            for t in tokens(&line) {
                prop_assert_eq!(t.start, at);
                at = t.end;
            }
            prop_assert_eq!(at, line.len());
        }
    }
}

#[test]
fn python_lines_highlight_keywords_and_strings_on_char_boundaries() {
    use shapex_text::TokenKind;
    let line = "    def f(self, s='a\\é#', t=\"x\"):  # note";
    let toks = crate::tokens(line);
    assert!(toks
        .iter()
        .all(|t| line.is_char_boundary(t.start) && line.is_char_boundary(t.end)));
    let kinds: Vec<(TokenKind, &str)> = toks
        .iter()
        .map(|t| (t.kind, &line[t.start..t.end]))
        .collect();
    assert!(kinds.contains(&(TokenKind::Keyword, "def")));
    assert!(kinds.contains(&(TokenKind::String, "'a\\é#'")));
    assert!(kinds.contains(&(TokenKind::Comment, "# note")));
}

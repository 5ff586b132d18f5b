//! Unit tests for the MATLAB front end: one group per feature of the brief. Expressions
//! are compared through a small S-expression printer so the expected trees are written
//! by hand, independently of the parser's own output.

use super::ast::*;
use super::parse;
use shapex_text::Severity;

/// Parses and asserts there is no error diagnostic.
fn ok(src: &str) -> File {
    let p = parse(src);
    let errors: Vec<_> = p
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(
        errors.is_empty(),
        "unexpected errors for {src:?}: {errors:#?}"
    );
    p.file
}

/// The single top-level statement of `src`.
fn stmt(src: &str) -> Stmt {
    let f = ok(src);
    assert_eq!(
        f.body.len(),
        1,
        "expected one statement in {src:?}: {:#?}",
        f.body
    );
    f.body.into_iter().next().unwrap()
}

/// The right-hand side of `x = <src>`, as an S-expression.
fn sx(src: &str) -> String {
    match stmt(&format!("x = {src};")).kind {
        StmtKind::Assign { rhs, .. } => show(&rhs),
        other => panic!("not an assignment: {other:?}"),
    }
}

fn show(e: &Expr) -> String {
    let list = |xs: &[Expr]| xs.iter().map(show).collect::<Vec<_>>().join(" ");
    let rows = |rs: &[Vec<Expr>]| {
        rs.iter()
            .map(|r| format!("[{}]", list(r)))
            .collect::<Vec<_>>()
            .join("")
    };
    match &e.kind {
        ExprKind::Number { text, .. } => text.clone(),
        ExprKind::Str {
            value,
            double_quoted,
        } => {
            if *double_quoted {
                format!("\"{value}\"")
            } else {
                format!("'{value}'")
            }
        }
        ExprKind::Ident(i) => i.name.clone(),
        ExprKind::Colon => ":".into(),
        ExprKind::End => "end".into(),
        ExprKind::Binary { op, lhs, rhs } => {
            format!("({} {} {})", op.symbol(), show(lhs), show(rhs))
        }
        ExprKind::Unary { op, operand } => {
            let o = match op {
                UnOp::Neg => "neg",
                UnOp::Plus => "pos",
                UnOp::Not => "not",
            };
            format!("({o} {})", show(operand))
        }
        ExprKind::Postfix { op, operand } => {
            let o = match op {
                PostfixOp::CTranspose => "'",
                PostfixOp::Transpose => ".'",
            };
            format!("({o} {})", show(operand))
        }
        ExprKind::Range { start, step, stop } => match step {
            Some(s) => format!("(range {} {} {})", show(start), show(s), show(stop)),
            None => format!("(range {} {})", show(start), show(stop)),
        },
        ExprKind::Index { base, args } => format!("(idx {} {})", show(base), list(args)),
        ExprKind::CellIndex { base, args } => format!("(cidx {} {})", show(base), list(args)),
        ExprKind::Field { base, name } => format!("(. {} {})", show(base), name.name),
        ExprKind::DynField { base, name } => format!("(.() {} {})", show(base), show(name)),
        ExprKind::Matrix(r) => format!("(mat {})", rows(r)),
        ExprKind::Cell(r) => format!("(cell {})", rows(r)),
        ExprKind::FuncHandle(n) => format!("@{n}"),
        ExprKind::Lambda { params, body } => {
            let ps: Vec<_> = params.iter().map(|p| p.name.as_str()).collect();
            format!("(lambda ({}) {})", ps.join(" "), show(body))
        }
        ExprKind::AssignExpr {
            target,
            value,
            post_increment,
        } => format!(
            "({} {} {})",
            if *post_increment { "post=" } else { "=" },
            lv(target),
            show(value)
        ),
    }
}

fn lv(l: &LValue) -> String {
    match l {
        LValue::Tilde(_) => "~".into(),
        LValue::Path {
            base, accessors, ..
        } => {
            let mut s = base.name.clone();
            for a in accessors {
                match a {
                    Accessor::Paren(args) => {
                        s += &format!("({})", args.iter().map(show).collect::<Vec<_>>().join(","))
                    }
                    Accessor::Brace(args) => {
                        s += &format!(
                            "{{{}}}",
                            args.iter().map(show).collect::<Vec<_>>().join(",")
                        )
                    }
                    Accessor::Field(f) => s += &format!(".{}", f.name),
                    Accessor::DynField(e) => s += &format!(".({})", show(e)),
                }
            }
            s
        }
    }
}

fn slice(src: &str, span: shapex_text::Span) -> &str {
    &src[span.start..span.end]
}

// ------------------------------------------------------------------ precedence

#[test]
fn unary_minus_binds_looser_than_power() {
    assert_eq!(sx("-2^2"), "(neg (^ 2 2))");
    assert_eq!(sx("2^-1"), "(^ 2 (neg 1))");
    assert_eq!(sx("a^b'"), "(^ a (' b))");
    assert_eq!(sx("-a*b"), "(* (neg a) b)");
}

#[test]
fn binary_precedence_follows_matlab() {
    assert_eq!(sx("a || b && c"), "(|| a (&& b c))");
    assert_eq!(sx("a | b & c"), "(| a (& b c))");
    assert_eq!(sx("a & b == c"), "(& a (== b c))");
    assert_eq!(sx("a < b + c"), "(< a (+ b c))");
    assert_eq!(sx("a + b * c"), "(+ a (* b c))");
    assert_eq!(sx("a - b - c"), "(- (- a b) c)");
    assert_eq!(sx("a .* b ./ c .\\ d"), "(.\\ (./ (.* a b) c) d)");
    assert_eq!(sx("~a == b"), "(== (not a) b)");
    assert_eq!(sx("a ~= b"), "(~= a b)");
}

#[test]
fn ranges_have_two_or_three_parts_and_bind_below_plus() {
    assert_eq!(sx("1:n"), "(range 1 n)");
    assert_eq!(sx("1:2:n"), "(range 1 2 n)");
    assert_eq!(sx("a+1:b-1"), "(range (+ a 1) (- b 1))");
    assert_eq!(sx("(1:2):3"), "(range (range 1 2) 3)");
    assert_eq!(sx("x < 1:3"), "(< x (range 1 3))");
}

#[test]
fn octave_operator_spellings_are_normalised() {
    assert_eq!(sx("a != b"), "(~= a b)");
    assert_eq!(sx("!a"), "(not a)");
    assert_eq!(sx("a ** 2"), "(^ a 2)");
    assert_eq!(sx("a .** 2"), "(.^ a 2)");
}

// ------------------------------------------------------------------ transpose vs strings

#[test]
fn quote_after_value_is_transpose_otherwise_string() {
    assert_eq!(sx("a'"), "(' a)");
    assert_eq!(sx("a.'"), "(.' a)");
    assert_eq!(sx("a''"), "(' (' a))");
    assert_eq!(sx("x(1)'"), "(' (idx x 1))");
    assert_eq!(sx("[1 2]'"), "(' (mat [1 2]))");
    assert_eq!(sx("2'"), "(' 2)");
    assert_eq!(sx("'it''s'"), "'it's'");
    assert_eq!(sx("[a' b']"), "(mat [(' a) (' b)])");
    assert_eq!(sx("[a 'x']"), "(mat [a 'x'])");
    assert_eq!(sx("{'a', 'b'}"), "(cell ['a' 'b'])");
}

#[test]
fn double_quoted_strings_handle_escapes_and_doubling() {
    assert_eq!(sx(r#""a\tb""#), "\"a\tb\"");
    assert_eq!(sx(r#""say ""hi""""#), "\"say \"hi\"\"");
    assert_eq!(sx(r#""50%""#), "\"50%\"");
}

// ------------------------------------------------------------------ matrices

#[test]
fn matrix_whitespace_separates_elements_only_before_a_sign() {
    assert_eq!(sx("[1 -2]"), "(mat [1 (neg 2)])");
    assert_eq!(sx("[1 - 2]"), "(mat [(- 1 2)])");
    assert_eq!(sx("[a -b]"), "(mat [a (neg b)])");
    assert_eq!(sx("[a - b]"), "(mat [(- a b)])");
    assert_eq!(sx("[a-b]"), "(mat [(- a b)])");
    assert_eq!(sx("[a(1) (2)]"), "(mat [(idx a 1) 2])");
    assert_eq!(sx("[f (1)]"), "(mat [f 1])");
    assert_eq!(sx("[a ~b]"), "(mat [a (not b)])");
}

#[test]
fn matrix_rows_split_on_semicolons_and_newlines() {
    assert_eq!(sx("[1 2; 3 4]"), "(mat [1 2][3 4])");
    assert_eq!(sx("[1, 2\n 3, 4]"), "(mat [1 2][3 4])");
    assert_eq!(sx("[1 2 ...\n 3]"), "(mat [1 2 3])");
    assert_eq!(sx("[1 2 % c\n 3]"), "(mat [1 2][3])");
    assert_eq!(sx("[ ]"), "(mat )");
    assert_eq!(sx("[1, 2, ]"), "(mat [1 2])");
    assert_eq!(sx("[\n 1 2\n 3 4\n]"), "(mat [1 2][3 4])");
    assert_eq!(sx("{1, 'a'; 2 'b'}"), "(cell [1 'a'][2 'b'])");
    assert_eq!(sx("[[1 2]; [3 4]]"), "(mat [(mat [1 2])][(mat [3 4])])");
}

// ------------------------------------------------------------------ indexing

#[test]
fn indexing_fields_end_and_colon() {
    assert_eq!(sx("a(end)"), "(idx a end)");
    assert_eq!(sx("a(end-1, :)"), "(idx a (- end 1) :)");
    assert_eq!(sx("a(:)"), "(idx a :)");
    assert_eq!(sx("c{2}"), "(cidx c 2)");
    assert_eq!(sx("s.a.b(2).c"), "(. (idx (. (. s a) b) 2) c)");
    assert_eq!(sx("s.(name)"), "(.() s name)");
    assert_eq!(sx("f()"), "(idx f )");
    assert_eq!(sx("f (1, 2)"), "(idx f 1 2)");
    assert_eq!(sx("a(1:end)"), "(idx a (range 1 end))");
}

#[test]
fn handles_and_lambdas() {
    assert_eq!(sx("@sin"), "@sin");
    assert_eq!(sx("@pkg.fn"), "@pkg.fn");
    assert_eq!(sx("@(x) x.^2"), "(lambda (x) (.^ x 2))");
    assert_eq!(sx("@() 1"), "(lambda () 1)");
    assert_eq!(
        sx("{@(x, y) x + y, 2}"),
        "(cell [(lambda (x y) (+ x y)) 2])"
    );
}

#[test]
fn numbers_in_all_spellings() {
    let num = |src: &str| match stmt(&format!("x = {src};")).kind {
        StmtKind::Assign { rhs, .. } => match rhs.kind {
            ExprKind::Number { value, imag, .. } => (value, imag),
            k => panic!("{k:?}"),
        },
        k => panic!("{k:?}"),
    };
    assert_eq!(num("1e-3"), (1e-3, false));
    assert_eq!(num(".5"), (0.5, false));
    assert_eq!(num("3i"), (3.0, true));
    assert_eq!(num("0x1F"), (31.0, false));
    assert_eq!(num("1E+10j"), (1e10, true));
    assert_eq!(num("10_000"), (10000.0, false));
    assert_eq!(num("5."), (5.0, false));
    assert_eq!(sx("1./x"), "(./ 1 x)");
}

// ------------------------------------------------------------------ statements

#[test]
fn assignments_and_output_placeholders() {
    match stmt("[~, i] = max(x);").kind {
        StmtKind::Assign { lhs, rhs } => {
            assert_eq!(lhs.len(), 2);
            assert!(matches!(lhs[0], LValue::Tilde(_)));
            assert_eq!(lv(&lhs[1]), "i");
            assert_eq!(show(&rhs), "(idx max x)");
        }
        k => panic!("{k:?}"),
    }
    match stmt("s.a(2).b{3} = 1").kind {
        StmtKind::Assign { lhs, .. } => assert_eq!(lv(&lhs[0]), "s.a(2).b{3}"),
        k => panic!("{k:?}"),
    }
    match stmt("x (idx) = [];").kind {
        StmtKind::Assign { lhs, .. } => assert_eq!(lv(&lhs[0]), "x(idx)"),
        k => panic!("{k:?}"),
    }
}

#[test]
fn prints_is_false_only_after_semicolon() {
    let f = ok("a = 1\nb = 2;\nc = 3, d = 4;");
    let prints: Vec<bool> = f.body.iter().map(|s| s.prints).collect();
    assert_eq!(prints, [true, false, true, false]);
}

#[test]
fn octave_compound_assignment_and_increment_desugar() {
    match stmt("a += 2;").kind {
        StmtKind::Assign { lhs, rhs } => {
            assert_eq!(lv(&lhs[0]), "a");
            assert_eq!(show(&rhs), "(+ a 2)");
        }
        k => panic!("{k:?}"),
    }
    match stmt("x(i) *= 3").kind {
        StmtKind::Assign { lhs, rhs } => {
            assert_eq!(lv(&lhs[0]), "x(i)");
            assert_eq!(show(&rhs), "(* (idx x i) 3)");
        }
        k => panic!("{k:?}"),
    }
    match stmt("k++;").kind {
        StmtKind::Assign { rhs, .. } => assert_eq!(show(&rhs), "(+ k 1)"),
        k => panic!("{k:?}"),
    }
    match stmt("k--").kind {
        StmtKind::Assign { rhs, .. } => assert_eq!(show(&rhs), "(- k 1)"),
        k => panic!("{k:?}"),
    }
    assert_eq!(sx("v{i++}"), "(cidx v (post= i (+ i 1)))");
    // Octave's pre-increment inside an expression yields the new value (plot3.m's
    // `htmp(++idx) = …`); with a blank between the signs they stay unary plus/minus.
    assert_eq!(sx("h(++i)"), "(idx h (= i (+ i 1)))");
    assert_eq!(sx("[1 --i]"), "(mat [1 (= i (- i 1))])");
    assert_eq!(sx("+ +i"), "(pos (pos i))");
    assert_eq!(sx("(d = 3) + 1"), "(+ (= d 3) 1)");
}

#[test]
fn octave_chained_assignment_becomes_statements_innermost_first() {
    let src = "a = b(2) = 0;";
    let f = ok(src);
    let shown: Vec<String> = f
        .body
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Assign { lhs, rhs } => format!("{} = {}", lv(&lhs[0]), show(rhs)),
            k => panic!("{k:?}"),
        })
        .collect();
    assert_eq!(shown, ["b(2) = 0", "a = (idx b 2)"]);
    assert_eq!(slice(src, f.body[0].span), "b(2) = 0");
    assert_eq!(slice(src, f.body[1].span), "a = b(2) = 0");
}

#[test]
fn command_syntax() {
    let cmd = |src: &str| match stmt(src).kind {
        StmtKind::Command { name, args } => (name.name, args),
        k => panic!("not a command: {src:?} -> {k:?}"),
    };
    assert_eq!(cmd("hold on"), ("hold".into(), vec!["on".to_string()]));
    assert_eq!(
        cmd("format long"),
        ("format".into(), vec!["long".to_string()])
    );
    assert_eq!(
        cmd("warning off all;"),
        ("warning".into(), vec!["off".to_string(), "all".to_string()])
    );
    assert_eq!(
        cmd("pkg load statistics"),
        (
            "pkg".into(),
            vec!["load".to_string(), "statistics".to_string()]
        )
    );
    assert_eq!(cmd("disp 'a b'"), ("disp".into(), vec!["a b".to_string()]));
    // Not commands: an operator followed by a blank, `=`, `(`.
    assert!(matches!(stmt("a + b").kind, StmtKind::Expr(_)));
    assert!(matches!(stmt("a = b").kind, StmtKind::Assign { .. }));
    assert!(matches!(stmt("disp (x)").kind, StmtKind::Expr(_)));
    assert!(matches!(stmt("a == b").kind, StmtKind::Expr(_)));
}

#[test]
fn global_persistent_break_continue_return() {
    match stmt("global a b").kind {
        StmtKind::Global(names) => {
            assert_eq!(
                names.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(),
                ["a", "b"]
            )
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(stmt("persistent n").kind, StmtKind::Persistent(_)));
    let f = ok("while 1\n break\n continue\n return\nend");
    match &f.body[0].kind {
        StmtKind::While { body, .. } => {
            assert!(matches!(body[0].kind, StmtKind::Break));
            assert!(matches!(body[1].kind, StmtKind::Continue));
            assert!(matches!(body[2].kind, StmtKind::Return));
        }
        k => panic!("{k:?}"),
    }
}

// ------------------------------------------------------------------ control flow

#[test]
fn if_elseif_else() {
    let src = "if a > 1\n x = 1;\nelseif b\n x = 2;\nelse\n x = 3;\nend";
    let s = stmt(src);
    assert_eq!(slice(src, s.span), src);
    match s.kind {
        StmtKind::If { arms, else_body } => {
            assert_eq!(arms.len(), 2);
            assert_eq!(show(&arms[0].0), "(> a 1)");
            assert_eq!(show(&arms[1].0), "b");
            assert_eq!(else_body.map(|b| b.len()), Some(1));
        }
        k => panic!("{k:?}"),
    }
    // One-line forms and Octave closers.
    assert!(matches!(
        stmt("if x, y = 1; else y = 2; end").kind,
        StmtKind::If { .. }
    ));
    assert!(matches!(
        stmt("if (x)\n y = 1;\nendif").kind,
        StmtKind::If { .. }
    ));
}

#[test]
fn switch_with_cell_cases_and_otherwise() {
    let s =
        stmt("switch x\n case {1, 2}\n y = 1;\n case 'a'\n y = 2;\n otherwise\n y = 3;\nendswitch");
    match s.kind {
        StmtKind::Switch {
            subject,
            cases,
            otherwise,
        } => {
            assert_eq!(show(&subject), "x");
            assert_eq!(show(&cases[0].0), "(cell [1 2])");
            assert_eq!(show(&cases[1].0), "'a'");
            assert!(otherwise.is_some());
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn for_parfor_while_do_until() {
    for src in [
        "for i = 1:n\n x(i) = i;\nend",
        "for (i = 1:n)\n x(i) = i;\nendfor",
    ] {
        match stmt(src).kind {
            StmtKind::For {
                var, iter, parfor, ..
            } => {
                assert_eq!(lv(&var), "i");
                assert_eq!(show(&iter), "(range 1 n)");
                assert!(!parfor);
            }
            k => panic!("{k:?}"),
        }
    }
    assert!(matches!(
        stmt("parfor (i = 1:n, 4)\n x(i) = i;\nend").kind,
        StmtKind::For { parfor: true, .. }
    ));
    assert!(matches!(
        stmt("while k < 3\n k++;\nendwhile").kind,
        StmtKind::While { .. }
    ));
    match stmt("do\n k++;\nuntil k > 3").kind {
        StmtKind::DoUntil { body, cond } => {
            assert_eq!(body.len(), 1);
            assert_eq!(show(&cond), "(> k 3)");
        }
        k => panic!("{k:?}"),
    }
}

/// `do` and `until` are Octave's keywords, not MATLAB's: MATLAB code names variables
/// so (gpstuff's `gpla_g.m`: `do = false(nout,1)` … `if any(do)`), and such lines are
/// statements, while a clause that starts with either and assigns to nothing is still
/// Octave's loop.
#[test]
fn do_and_until_are_names_in_matlab_code() {
    for src in [
        "do = false(3, 1);",
        "do(2) = true;",
        "until = 4;",
        "x = find(do) + until;",
    ] {
        assert!(matches!(stmt(src).kind, StmtKind::Assign { .. }), "{src}");
    }
    let file = ok("do = false(3, 1);\nif any(do)\n  x = do;\nend\ndo\n  k = 1;\nuntil k > 0\n");
    assert!(matches!(file.body[2].kind, StmtKind::DoUntil { .. }));
}

#[test]
fn try_catch_and_unwind_protect() {
    match stmt("try\n x = 1;\ncatch err\n disp(err)\nend").kind {
        StmtKind::Try {
            catch_var,
            catch_body,
            ..
        } => {
            assert_eq!(catch_var.map(|v| v.name), Some("err".to_string()));
            assert_eq!(catch_body.len(), 1);
        }
        k => panic!("{k:?}"),
    }
    match stmt("try, x = 1; catch, x = 2; end").kind {
        StmtKind::Try {
            catch_var,
            catch_body,
            ..
        } => {
            assert!(catch_var.is_none());
            assert_eq!(catch_body.len(), 1);
        }
        k => panic!("{k:?}"),
    }
    match stmt("unwind_protect\n x = 1;\nunwind_protect_cleanup\n y = 2;\nend_unwind_protect").kind
    {
        StmtKind::UnwindProtect { body, cleanup } => {
            assert_eq!((body.len(), cleanup.len()), (1, 1))
        }
        k => panic!("{k:?}"),
    }
}

// ------------------------------------------------------------------ functions and files

#[test]
fn function_file_with_subfunctions_without_end() {
    let src = "function y = f(x)\n y = g(x);\n\nfunction z = g(~, w)\n z = w;\n";
    let f = ok(src);
    assert_eq!(f.kind, FileKind::Function);
    assert!(f.body.is_empty());
    assert_eq!(f.functions.len(), 2);
    assert_eq!(f.functions[0].name.name, "f");
    assert_eq!(f.functions[0].outputs[0].name, "y");
    assert!(!f.functions[0].has_end);
    assert_eq!(f.functions[1].inputs.len(), 2);
    assert!(f.functions[1].inputs[0].is_none());
    assert_eq!(slice(src, f.functions[1].header), "function z = g(~, w)");
}

#[test]
fn nested_functions_with_end() {
    let src = "function outer()\n  x = 1;\n  function inner()\n    y = 2;\n  end\n  if x\n    z = 3;\n  end\nend\nfunction sub()\nend\n";
    let f = ok(src);
    assert_eq!(f.functions.len(), 2);
    let outer = &f.functions[0];
    assert!(outer.has_end);
    assert_eq!(outer.nested.len(), 1);
    assert_eq!(outer.nested[0].name.name, "inner");
    assert_eq!(outer.body.len(), 2);
    assert!(slice(src, outer.span).ends_with("end\nend"));
    assert_eq!(f.functions[1].name.name, "sub");
}

#[test]
fn octave_script_defining_functions() {
    let src = "1;\nfunction r = sq(x)\n  r = x.^2;\nendfunction\ny = sq(3)\n";
    let f = ok(src);
    assert_eq!(f.kind, FileKind::Script);
    assert_eq!(f.functions.len(), 1);
    assert_eq!(f.body.len(), 2);
}

#[test]
fn function_header_forms() {
    let f = ok("function [a, b] = two (x, y)\nend\nfunction noargs\nend\nfunction r = dflt (x, n = 0)\nend");
    assert_eq!(f.functions[0].outputs.len(), 2);
    assert_eq!(f.functions[1].inputs.len(), 0);
    assert_eq!(f.functions[2].inputs.len(), 2);
}

#[test]
fn comments_block_comments_and_continuations() {
    let src = "% line\n# octave\n%{\nnot = code(\n%}\n#{\nalso not\n#}\nx = 1 + ... comment here\n  2; % trailing\n";
    let s = stmt(src);
    match s.kind {
        StmtKind::Assign { rhs, .. } => assert_eq!(show(&rhs), "(+ 1 2)"),
        k => panic!("{k:?}"),
    }
}

#[test]
fn arguments_blocks_are_kept_as_one_statement() {
    let f = ok(
        "function f(x)\n  arguments\n    x (1,:) double {mustBePositive} = 1\n  end\n  y = x;\nend",
    );
    let body = &f.functions[0].body;
    assert!(matches!(body[0].kind, StmtKind::Arguments));
    assert_eq!(body.len(), 2);
}

#[test]
fn classdef_is_recognised_not_analysed() {
    let p = parse("% a class\nclassdef Foo < handle\n properties\n  x\n end\nend\n");
    assert_eq!(p.file.kind, FileKind::Classdef);
    assert_eq!(p.diagnostics.len(), 1);
    assert_eq!(p.diagnostics[0].code, "syntax.classdef");
    assert_ne!(p.diagnostics[0].severity, Severity::Error);
}

// ------------------------------------------------------------------ spans

#[test]
fn spans_slice_back_to_the_source() {
    let src = "y = foo(a, b') + [1 2];\nz = s.f{3};";
    let f = ok(src);
    assert_eq!(slice(src, f.body[0].span), "y = foo(a, b') + [1 2]");
    match &f.body[0].kind {
        StmtKind::Assign { rhs, lhs } => {
            assert_eq!(slice(src, rhs.span), "foo(a, b') + [1 2]");
            let LValue::Path { span, .. } = &lhs[0] else {
                panic!()
            };
            assert_eq!(slice(src, *span), "y");
            let ExprKind::Binary {
                lhs: call,
                rhs: mat,
                ..
            } = &rhs.kind
            else {
                panic!()
            };
            assert_eq!(slice(src, call.span), "foo(a, b')");
            assert_eq!(slice(src, mat.span), "[1 2]");
            let ExprKind::Index { args, .. } = &call.kind else {
                panic!()
            };
            assert_eq!(slice(src, args[1].span), "b'");
        }
        k => panic!("{k:?}"),
    }
    match &f.body[1].kind {
        StmtKind::Assign { rhs, .. } => assert_eq!(slice(src, rhs.span), "s.f{3}"),
        k => panic!("{k:?}"),
    }
}

// ------------------------------------------------------------------ errors and recovery

fn errors(src: &str) -> Vec<(String, String)> {
    parse(src)
        .diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.code, d.message))
        .collect()
}

#[test]
fn three_bad_lines_among_ten_good_ones() {
    let src = "a = 1;\nb = 2;\nc = (3 + ;\nd = 4;\ne = 5;\nf = [1 2\ng = 6;\nh = 7;\ni = 'oops;\nj = 8;\nk = 9;\nl = 10;\nm = 11\n";
    let p = parse(src);
    let errs: Vec<_> = p
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert_eq!(errs.len(), 3, "{errs:#?}");
    let good = p
        .file
        .body
        .iter()
        .filter(|s| !matches!(s.kind, StmtKind::Error))
        .count();
    let bad = p.file.body.len() - good;
    assert_eq!((good, bad), (10, 3), "{:#?}", p.file.body);
}

#[test]
fn unbalanced_brackets_are_named_with_their_position() {
    let e = errors("x = 1;\ny = foo(a, (b + 1);\n");
    assert_eq!(e[0].0, "syntax.unbalanced");
    assert_eq!(
        e[0].1,
        "unbalanced bracket: '(' opened at 2:8 is never closed"
    );
    let e = errors("y = a + b);");
    assert_eq!(e[0].1, "unexpected ')' (no matching '(')");
    let e = errors("y = [a (b];");
    assert_eq!(e[0].1, "']' does not match '(' opened at 1:8");
}

#[test]
fn operator_without_operand() {
    let e = errors("y = a +\nz = 1;");
    assert_eq!(
        e,
        [(
            "syntax.invalid".into(),
            "expected an expression after '+'".into()
        )]
    );
}

#[test]
fn unterminated_string() {
    let e = errors("s = 'abc\nt = 1;");
    assert_eq!(e[0].0, "syntax.unterminated-string");
    assert!(e[0].1.starts_with("unterminated string"), "{e:?}");
}

#[test]
fn unexpected_token_is_quoted() {
    let e = errors("x = 3 4;");
    assert_eq!(e, [("syntax.unexpected".into(), "unexpected '4'".into())]);
}

#[test]
fn block_structure_errors() {
    let e = errors("x = 1;\nend\n");
    assert_eq!(
        e,
        [(
            "syntax.unexpected".into(),
            "'end' without a matching block".into()
        )]
    );
    let e = errors("x = 1;\nif x\n  y = 2;\n");
    assert_eq!(
        e,
        [(
            "syntax.missing-end".into(),
            "missing 'end' for 'if' opened at 2:1".into()
        )]
    );
    let e = errors("else\n");
    assert_eq!(e[0].1, "'else' without a matching 'if'");
    let e = errors("for i = 1:3\n x = i;\nendwhile");
    assert_eq!(e[0].1, "'endwhile' closes 'for' opened at 1:1");
}

#[test]
fn bad_block_header_keeps_its_end_paired() {
    // The `if` line is broken, but its `end` must not be reported as stray, and the
    // statements after it still parse.
    let p = parse("if (x\n  y = 1;\nend\nz = 2;\n");
    let errs: Vec<_> = p.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(errs, ["syntax.unbalanced"]);
    assert_eq!(p.file.body.len(), 3);
}

#[test]
fn pathological_inputs_do_not_panic() {
    for src in [
        "",
        "\u{feff}",
        "(((((",
        ")))))",
        "'",
        "\"",
        "[1 2",
        "x = @",
        "function",
        "end end end",
        "%{",
        "...",
        "a = ...",
        "x = 1 é 2",
        "é",
        "\r\n\r",
        "x = [1 2\r\n3 4];",
        "if\nelse\nend",
        "do\nend",
        "until x",
        "case 1",
        &"(".repeat(10_000),
        &"[".repeat(10_000),
        &"@(x) ".repeat(5_000),
        &"if x\n".repeat(2_000),
        &"-".repeat(10_000),
    ] {
        let _ = parse(src);
    }
}

mod fuzz {
    use super::super::parse;
    use proptest::prelude::*;

    /// A realistic file to garble: functions, blocks, matrices, strings, comments.
    pub(super) const SAMPLE: &str = r#"function [m, s] = stats (x, dim = 1)
  % STATS  mean and spread
  if (nargin < 1 || isempty (x))
    error ("stats: X must be non-empty");
  endif
  m = sum (x, dim) ./ size (x, dim);
  d = x - m;            # implicit expansion
  s = sqrt (sum (d.^2, dim) / (size (x, dim) - 1));
  for k = 1:numel (s)
    if s(k) == 0, s(k) = NaN; end
  end
  c = {@(v) v', 'a''b', [1 -2; 3 4]'};
  %{
  block comment
  %}
  switch class (x)
    case {'double', 'single'}
      t = x(end, :);
    otherwise
      t = [];
  end
  try
    q = s.field{2}(3).('dyn');
  catch err
    disp (err.message)
  end_try_catch
end
"#;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn garbled_real_file_never_panics(
            cut_at in 0usize..SAMPLE.len(),
            cut_len in 0usize..40,
            insert_at in 0usize..SAMPLE.len(),
            junk in "[\\[\\](){}'\"%.;,\n=+-]{0,4}",
        ) {
            let mut src: Vec<u8> = SAMPLE.as_bytes().to_vec();
            let end = (cut_at + cut_len).min(src.len());
            src.drain(cut_at..end);
            let at = insert_at.min(src.len());
            src.splice(at..at, junk.bytes());
            let src = String::from_utf8_lossy(&src).into_owned();
            let p = parse(&src);
            for d in &p.diagnostics {
                prop_assert!(d.span.start <= d.span.end && d.span.end <= src.len());
            }
            for s in &p.file.body {
                prop_assert!(s.span.end <= src.len());
            }
        }

        #[test]
        fn random_text_never_panics(s in "\\PC{0,200}") {
            let _ = parse(&s);
        }

        #[test]
        fn matlab_like_token_soup_never_panics(
            toks in prop::collection::vec(
                prop::sample::select(vec![
                    "x", "y", "1", "2.5", "'", "\"", "(", ")", "[", "]", "{", "}", "+",
                    "-", "*", ".^", "'s'", "=", "==", ",", ";", "\n", " ", ":", "end",
                    "if", "for", "function", "...", "%", "@", "~", ".", "++", "+=",
                ]),
                0..60,
            )
        ) {
            let src: String = toks.concat();
            let p = parse(&src);
            // Every diagnostic points inside the text.
            for d in &p.diagnostics {
                prop_assert!(d.span.start <= d.span.end && d.span.end <= src.len());
            }
        }
    }
}

#[test]
fn deepest_accepted_nesting_fits_the_stack() {
    // The deepest nesting the grammar accepts, in every flavour, parsed on a 1 MB
    // thread (wasm's whole stack; debug frames are several times larger than wasm's).
    let n = 64;
    let sources = [
        format!("x = {}1{};", "(".repeat(n), ")".repeat(n)),
        format!("x = {}1{};", "{".repeat(n), "}".repeat(n)),
        format!("x = {}1{};", "[".repeat(n), "]".repeat(n)),
        format!("x = {}1{};", "f(".repeat(n), ")".repeat(n)),
        format!("x = {}1;", "@(x) ".repeat(n)),
        format!("x = {}1{};", "@() f(".repeat(n / 2), ")".repeat(n / 2)),
        format!("x = {}1{};", "[@() a (".repeat(n / 3), ")]".repeat(n / 3)),
        format!("x = {}-1;", "-1 ^ ".repeat(120)),
    ];
    let parse_all = move || {
        for src in &sources {
            let p = parse(src);
            assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics.first());
        }
    };
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(parse_all)
        .expect("thread")
        .join()
        .expect("parsed");
}

#[test]
fn the_fuzz_sample_itself_parses_cleanly() {
    let f = ok(fuzz::SAMPLE);
    assert_eq!(f.functions.len(), 1);
    assert!(f.functions[0].has_end);
    // if, m, d, s, for, c, switch, try
    assert_eq!(f.functions[0].body.len(), 8);
}

#[test]
fn bare_keyword_asks_for_what_follows() {
    let e = errors("for\nend");
    assert_eq!(e[0].1, "expected 'variable = values' after 'for'");
    let e = errors("if\nend");
    assert_eq!(e[0].1, "expected a condition after 'if'");
}

// ------------------------------------------------------------------ nesting limits

/// The error diagnostics of `src`: (code, message, line:col of the span start).
fn located_errors(src: &str) -> Vec<(String, String, String)> {
    let index = shapex_text::LineIndex::new(src);
    parse(src)
        .diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let lc = index.line_col(d.span.start);
            (d.code, d.message, format!("{}:{}", lc.line, lc.col))
        })
        .collect()
}

#[test]
fn ten_thousand_unclosed_block_comment_openers() {
    // Used to backtrack exponentially (each unclosed opener was retried as a line
    // comment, and the rest re-scanned): 100 openers took over a minute.
    let src = format!("{}x = 1;\n", "%{\n".repeat(10_000));
    let p = parse(&src);
    assert_eq!(p.diagnostics.len(), 1, "{:#?}", p.diagnostics);
    let d = &p.diagnostics[0];
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.code, "syntax.unterminated-comment");
    assert_eq!(
        d.message,
        "unterminated block comment: the '%{' at 1:1 is never closed \
         (10000 nested block comments are open at the end of the file)"
    );
    assert_eq!((d.span.start, d.span.end), (0, 2));
    // As in MATLAB, an unclosed block comment runs to the end of the file.
    assert!(p.file.body.is_empty(), "{:#?}", p.file.body);
}

#[test]
fn ten_thousand_nested_block_comments_then_code() {
    let n = 10_000;
    let src = format!(
        "{}{}x = 1;\ny = [x x]'\n",
        "%{\n".repeat(n),
        "%}\n".repeat(n)
    );
    let f = ok(&src);
    assert_eq!(f.body.len(), 2, "{:#?}", f.body);
    assert_eq!(slice(&src, f.body[0].span), "x = 1");
    assert_eq!(slice(&src, f.body[1].span), "y = [x x]'");
    // With text (here unbalanced code) inside every level, and indented closers.
    let src = format!(
        "{}{}x = 1;\n",
        "%{\nnot = code(\n".repeat(n),
        "  %}  \n".repeat(n)
    );
    assert_eq!(ok(&src).body.len(), 1);
}

#[test]
fn block_comments_nest_and_must_be_alone_on_their_line() {
    // Octave `#{ … #}` too, indented, with CRLF line ends.
    let f = ok("#{\r\n  %{\r\n  x = [;\r\n  %}\r\n y = (\r\n#}\r\nz = 1;");
    assert_eq!(f.body.len(), 1);
    // After code, or followed by text, `%{` is an ordinary line comment.
    let f = ok("x = 1; %{\ny = 2;\n%{ not alone\nz = 3;\n%}\n");
    assert_eq!(f.body.len(), 3, "{:#?}", f.body);
    // The inner comment is closed, the outer one is not.
    let e = located_errors("x = 1;\n  %{\n%{\n%}\ny = 2;\n");
    assert_eq!(
        e,
        [(
            "syntax.unterminated-comment".into(),
            "unterminated block comment: the '%{' at 2:3 is never closed".into(),
            "2:3".into()
        )]
    );
    let p = parse("x = 1;\n  %{\n%{\n%}\ny = 2;\n");
    assert_eq!(p.file.body.len(), 1);
}

/// One error diagnostic for `src` followed by a good statement, and that statement
/// still parsed: (code, message, line:col).
fn one_error_then_good_statement(src: &str) -> (String, String, String) {
    let src = format!("{src}\nlast = 2;\n");
    let mut e = located_errors(&src);
    assert_eq!(e.len(), 1, "{e:?}");
    let f = parse(&src).file;
    let last = f.body.last().expect("statements");
    assert_eq!(slice(&src, last.span), "last = 2");
    assert!(matches!(last.kind, StmtKind::Assign { .. }));
    e.remove(0)
}

#[test]
fn ten_thousand_link_chains_are_one_error_each() {
    // None of these needs a bracket, but each builds a tree as deep as the chain is
    // long: the analysis recursed until the stack overflowed (and `^-` chains
    // overflowed the parser itself).
    let n = 10_000;
    for src in [
        format!("x = 1{};", " + ...\n  1".repeat(n)),
        format!("x = 1{};", "+1".repeat(n)),
        format!("x = {}1;", "-".repeat(n)),
        format!("x = {}1;", "~".repeat(n)),
        format!("x = 1{};", "^-1".repeat(n)),
        format!("x = a{};", "'".repeat(n)),
        format!("x = s{};", ".f".repeat(n)),
        format!("x = f{};", "(1)".repeat(n)),
        format!("x = a{};", " == a".repeat(n)),
        format!("s{} += 1;", ".f".repeat(n)),
        format!("y = v(1{})++;", "+1".repeat(n)),
    ] {
        let (code, message, at) = one_error_then_good_statement(&src);
        assert_eq!(
            (code.as_str(), message.as_str(), at.as_str()),
            (
                "syntax.too-deep",
                "expression is nested more than 256 deep",
                "1:1"
            ),
            "{}",
            &src[..20]
        );
    }
}

#[test]
fn deepest_accepted_expressions_are_analysed() {
    // Exactly at the limits, inside the deepest accepted blocks: parsed cleanly, and
    // analysed without exhausting a test thread's stack.
    let d = 256; // a leaf is depth 1
    let exprs = [
        format!("1{}", "+1".repeat(d - 1)),
        format!("{}1", "-".repeat(d - 1)),
        format!("s{}", ".f".repeat(d - 1)),
        format!("1{}", "^-1".repeat((d - 1) / 2)),
        format!("{}1{}", "(".repeat(64), ")".repeat(64)),
        format!("{}1{}", "{".repeat(64), "}".repeat(64)),
        format!("{}1", "@() ".repeat(64)),
    ];
    let ifs = "if a\n".repeat(31);
    let ends = "end\n".repeat(31);
    let body: String = exprs.iter().map(|e| format!("r = {e};\n")).collect();
    let src = format!("function r = f(a, s)\n{ifs}{body}{ends}r = 1;\nend\n");
    ok(&src);
    let over = format!("x = 1{};", "+1".repeat(d));
    assert_eq!(
        errors(&over),
        [(
            "syntax.too-deep".into(),
            "expression is nested more than 256 deep".into()
        )]
    );
}

#[test]
fn ten_thousand_nested_brackets_and_lambdas_are_one_error() {
    let n = 10_000;
    let brackets = "brackets are nested more than 64 deep";
    let lambdas = "anonymous functions are nested more than 64 deep";
    let both = "brackets and anonymous functions are nested more than 64 deep";
    let closed = |open: &str, close: &str| format!("x = {}1{};", open.repeat(n), close.repeat(n));
    for (src, message, at) in [
        (closed("(", ")"), brackets, "1:69"),
        (closed("[", "]"), brackets, "1:69"),
        (closed("{", "}"), brackets, "1:69"),
        (closed("f(...\n", ")"), brackets, "65:2"),
        (closed("(\n", ")"), brackets, "65:1"),
        (closed("@() f(", ")"), both, "1:197"),
        (format!("x = {}1;", "@(x) ".repeat(n)), lambdas, "1:325"),
        (format!("x = {}1;", "@(\n) ".repeat(n)), lambdas, "65:3"),
        // Closers inside strings do not hide the nesting.
        (closed("f(')', ", ")"), brackets, "1:454"),
        (
            format!("if' '{}1{}\nend", "(".repeat(n), ")".repeat(n)),
            brackets,
            "1:70",
        ),
    ] {
        let (code, msg, pos) = one_error_then_good_statement(&src);
        assert_eq!(
            (code.as_str(), msg.as_str(), pos.as_str()),
            ("syntax.too-deep", message, at),
            "{}",
            &src[..20]
        );
    }
    // Never closed: the rest of the file is part of the error.
    for src in ["(".repeat(n), format!("x = {}1;\ny = 2;", "{\n".repeat(n))] {
        let p = parse(&src);
        assert_eq!(p.diagnostics.len(), 1, "{:?}", p.diagnostics);
        assert_eq!(p.diagnostics[0].message, brackets);
        assert_eq!(p.file.body.len(), 1);
        // The reader is told why nothing after it is analysed.
        let help = p.diagnostics[0].help.as_deref().unwrap_or_default();
        assert_eq!(help.contains("never close"), src.contains('\n'), "{help}");
    }
}

#[test]
fn an_error_deep_inside_nested_lambdas_and_matrices_is_found_once() {
    // An anonymous function's body, or a binary operand in a matrix, that failed
    // deep inside used to be parsed again as `(@() a)(…)`, `(@() a) + …` or the
    // element `+…`: twice the work per level, so 30 levels took hours.
    for (open, close) in [
        ("@() f(", ")"),
        ("[@() a (", ")]"),
        ("{@() a {", "}}"),
        ("[@() a + ", "]"),
        ("[@() a 'x' + ", "]"),
        ("[1 + ", "]"),
        ("{a - {", "}}"),
        ("f(@() a + ", ")"),
    ] {
        for n in [30, 10_000] {
            let src = format!("x = {}${};\ny = 2;\n", open.repeat(n), close.repeat(n));
            let p = parse(&src);
            assert_eq!(p.diagnostics.len(), 1, "{open}: {:?}", p.diagnostics);
            assert_eq!(p.file.body.len(), 2, "{open}");
        }
        // Without the error, 20 levels are fine.
        let src = format!("x = {}1{};", open.repeat(20), close.repeat(20));
        ok(&src);
    }
}

#[test]
fn a_lambda_body_takes_all_it_can() {
    assert_eq!(sx("@() f(1) + 2"), "(lambda () (+ (idx f 1) 2))");
    assert_eq!(sx("1 + @() a'"), "(+ 1 (lambda () (' a)))");
    assert_eq!(sx("-@() a"), "(neg (lambda () a))");
    assert_eq!(sx("(@() a)(1)"), "(idx (lambda () a) 1)");
    assert_eq!(
        sx("[@() a (1) 'b' -c]"),
        "(mat [(lambda () (idx a 1)) 'b' (neg c)])"
    );
    assert_eq!(sx("{@() a {1}, 2}"), "(cell [(lambda () (cidx a 1)) 2])");
    assert_eq!(
        sx("[a - b, a -b, + c]"),
        "(mat [(- a b) a (neg b) (pos c)])"
    );
    assert_eq!(
        sx("f(@(x) x, @() 2)"),
        "(idx f (lambda (x) x) (lambda () 2))"
    );
}

#[test]
fn deepest_accepted_nesting_and_one_more() {
    for (open, close) in [("(", ")"), ("[", "]"), ("{", "}"), ("f(", ")"), ("a{", "}")] {
        let fits = format!("x = {}1{};", open.repeat(64), close.repeat(64));
        ok(&fits);
        let over = format!("x = {}1{};", open.repeat(65), close.repeat(65));
        let e = errors(&over);
        assert_eq!(
            e,
            [(
                "syntax.too-deep".into(),
                "brackets are nested more than 64 deep".into()
            )],
            "{over}"
        );
    }
}

#[test]
fn brackets_in_comments_and_strings_do_not_count_as_nesting() {
    let src = format!(
        "% {}\n%{{\n{}\n%}}\ns = '{}';\nt = \"{}\";\nx = 1; ... {}\nh = {{{}}};\ny = x';\n",
        "(".repeat(100),
        "{".repeat(100),
        "[".repeat(100),
        "{".repeat(100),
        "(".repeat(100),
        vec!["@sin"; 100].join(", "),
    );
    let f = ok(&src);
    assert_eq!(f.body.len(), 5, "{:#?}", f.body);
    ok(&format!("c = {{{}}};", vec!["@(x) x + 1"; 100].join(", ")));
    ok(&"disp('(');\n".repeat(100));
}

#[test]
fn ten_thousand_nested_blocks_are_reported_not_recursed() {
    for open in ["if x\n", "for i = 1:2\n", "try\n"] {
        let src = format!("{}y = 1;\n{}", open.repeat(10_000), "end\n".repeat(10_000));
        let e = located_errors(&src);
        assert_eq!(
            e[0],
            (
                "syntax.too-deep".into(),
                "blocks are nested more than 32 deep".into(),
                "33:1".into()
            )
        );
    }
}

use super::ast::*;
use super::parse;

const RESNET: &str = r#"import torch
import torch.nn as nn
from torch import Tensor


def conv3x3(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    """3x3 convolution with padding"""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride,
                     padding=1, bias=False)


class BasicBlock(nn.Module):
    expansion: int = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, *args, **kwargs):
        super(BasicBlock, self).__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        layers = [nn.Linear(4, 4) for _ in range(3)]
        self.seq = nn.Sequential(*layers)

    def forward(self, x: TensorType((Dyn, 3, 224, 224))) -> Tensor:
        identity = x
        out = self.conv1(x)
        if self.downsample is not None:
            identity = self.downsample(x)
        elif out.dim() == 4: pass
        else:
            raise ValueError("no")
        out += identity
        assert x.size(1) == 3, "three channels"
        y = out[:, None, ..., 1:3, ::2].view(-1, 2 ** 3 ** 2)
        return self.relu(out)
"#;

fn only(src: &str) -> Vec<Stmt> {
    let p = parse(src);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    p.module.body
}

fn expr(src: &str) -> Expr {
    match only(src).pop().map(|s| s.kind) {
        Some(StmtKind::Expr(e)) => e,
        other => panic!("not an expression statement: {other:?}"),
    }
}

#[test]
fn a_resnet_block_parses_without_diagnostics() {
    let body = only(RESNET);
    // three imports, a function, a class
    assert_eq!(body.len(), 5);
    let StmtKind::ClassDef {
        name, body, bases, ..
    } = &body[4].kind
    else {
        panic!("{:?}", body[4]);
    };
    assert_eq!(name.name, "BasicBlock");
    assert_eq!(bases.len(), 1);
    assert_eq!(body.len(), 3, "{body:#?}");
    let StmtKind::FunctionDef {
        params, body: init, ..
    } = &body[1].kind
    else {
        panic!();
    };
    let kinds: Vec<ParamKind> = params.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [
            ParamKind::Normal,
            ParamKind::Normal,
            ParamKind::Normal,
            ParamKind::Normal,
            ParamKind::Normal,
            ParamKind::VarArgs,
            ParamKind::KwArgs
        ]
    );
    assert_eq!(init.len(), 7);
    let StmtKind::FunctionDef {
        body: forward,
        params,
        ..
    } = &body[2].kind
    else {
        panic!();
    };
    assert!(params[1].annotation.is_some());
    let StmtKind::If { orelse, .. } = &forward[2].kind else {
        panic!("{:?}", forward[2]);
    };
    let StmtKind::If {
        orelse: inner,
        body: elif,
        ..
    } = &orelse[0].kind
    else {
        panic!();
    };
    assert!(matches!(elif[0].kind, StmtKind::Pass));
    assert!(matches!(inner[0].kind, StmtKind::Raise(Some(_))));
    assert!(matches!(
        forward[3].kind,
        StmtKind::AugAssign { op: BinOp::Add, .. }
    ));
    assert!(matches!(
        forward[4].kind,
        StmtKind::Assert { msg: Some(_), .. }
    ));
}

#[test]
fn spans_are_offsets_into_the_file() {
    let src = "x = 1\nclass A:\n    def f(self):\n        return self.w @ x\n";
    let body = only(src);
    let StmtKind::ClassDef { body, .. } = &body[1].kind else {
        panic!();
    };
    let StmtKind::FunctionDef { body, name, .. } = &body[0].kind else {
        panic!();
    };
    assert_eq!(&src[name.span.start..name.span.end], "f");
    let StmtKind::Return(Some(e)) = &body[0].kind else {
        panic!();
    };
    assert_eq!(&src[e.span.start..e.span.end], "self.w @ x");
    assert!(matches!(
        e.kind,
        ExprKind::BinOp {
            op: BinOp::MatMul,
            ..
        }
    ));
}

#[test]
fn precedence_and_associativity() {
    // 1 + 2 * 3 - 4 == (1 + (2 * 3)) - 4
    let ExprKind::BinOp {
        op: BinOp::Sub,
        left,
        ..
    } = expr("1 + 2 * 3 - 4").kind
    else {
        panic!();
    };
    assert!(matches!(left.kind, ExprKind::BinOp { op: BinOp::Add, .. }));
    // -2 ** 2 is -(2 ** 2); 2 ** 3 ** 2 is 2 ** (3 ** 2)
    let ExprKind::UnaryOp {
        op: UnaryOp::Neg,
        operand,
    } = expr("-2 ** 2").kind
    else {
        panic!();
    };
    assert!(matches!(
        operand.kind,
        ExprKind::BinOp { op: BinOp::Pow, .. }
    ));
    let ExprKind::BinOp { right, .. } = expr("2 ** 3 ** 2").kind else {
        panic!();
    };
    assert!(matches!(right.kind, ExprKind::BinOp { op: BinOp::Pow, .. }));
    // a if b else c if d else e
    let ExprKind::IfExp { orelse, .. } = expr("a if b else c if d else e").kind else {
        panic!();
    };
    assert!(matches!(orelse.kind, ExprKind::IfExp { .. }));
    assert!(matches!(
        expr("x is not None and not y in z").kind,
        ExprKind::BoolOp {
            op: BoolOp::And,
            ..
        }
    ));
}

#[test]
fn brackets_make_tuples_lists_and_comprehensions() {
    assert!(matches!(expr("(1)").kind, ExprKind::Int(1)));
    assert!(matches!(expr("(1,)").kind, ExprKind::Tuple(ref v) if v.len() == 1));
    let ExprKind::List(items) = expr("[(1, 2)]").kind else {
        panic!();
    };
    assert!(matches!(items[0].kind, ExprKind::Tuple(ref v) if v.len() == 2));
    assert!(matches!(
        expr("[f(i) for i in range(3) if i]").kind,
        ExprKind::Comprehension {
            kind: CompKind::List,
            ..
        }
    ));
    assert!(matches!(expr("{'a': 1, **d}").kind, ExprKind::Dict(ref v) if v.len() == 2));
    assert!(matches!(expr("{1, 2}").kind, ExprKind::Set(_)));
    let ExprKind::Call { args, .. } = expr("sum(x for x in y)").kind else {
        panic!();
    };
    assert!(matches!(
        args[0].expr().kind,
        ExprKind::Comprehension {
            kind: CompKind::Generator,
            ..
        }
    ));
    let ExprKind::Subscript { index, .. } = expr("x[:, 1:2, ::3, None]").kind else {
        panic!();
    };
    let ExprKind::Tuple(ix) = index.kind else {
        panic!()
    };
    assert!(matches!(
        ix[2].kind,
        ExprKind::Slice {
            step: Some(_),
            upper: None,
            lower: None
        }
    ));
    assert!(matches!(
        ix[1].kind,
        ExprKind::Slice {
            lower: Some(_),
            upper: Some(_),
            step: None
        }
    ));
}

#[test]
fn a_bad_line_is_one_error_and_the_rest_still_parses() {
    let src = "class A(nn.Module):\n    def f(self, x):\n        y = (x +\n        return x\n    def g(self):\n        z = 1 +* 2\n        return 3\n";
    let p = parse(src);
    assert!(!p.diagnostics.is_empty());
    let d = p
        .diagnostics
        .iter()
        .find(|d| d.code == "syntax.expected")
        .expect("a syntax error");
    assert!(d.message.contains("expected"), "{}", d.message);
    let StmtKind::ClassDef { body, .. } = &p.module.body[0].kind else {
        panic!("{:?}", p.module.body);
    };
    let StmtKind::FunctionDef { body: g, .. } = &body.last().expect("g").kind else {
        panic!();
    };
    assert!(matches!(
        g.last().map(|s| &s.kind),
        Some(StmtKind::Return(Some(_)))
    ));
}

#[test]
fn indentation_errors_and_unsupported_blocks_are_reported_not_fatal() {
    let p = parse("if x:\ny = 1\nwith open(f) as h:\n    z = 2\n  w = 3\n");
    let codes: Vec<&str> = p.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert!(codes.contains(&"syntax.block"), "{codes:?}");
    assert!(p
        .module
        .body
        .iter()
        .any(|s| matches!(&s.kind, StmtKind::Unsupported { what, body } if what.contains("with") && !body.is_empty())));
}

#[test]
fn hostile_nesting_is_refused_on_its_line() {
    let deep = format!("x = {}1{}\ny = 2\n", "(".repeat(5000), ")".repeat(5000));
    let p = parse(&deep);
    assert!(p.diagnostics.iter().any(|d| d.code == "syntax.nesting"));
    assert!(matches!(p.module.body[1].kind, StmtKind::Assign { .. }));
    let chain = format!("x = {}1\n", "not ".repeat(20_000));
    assert!(parse(&chain).diagnostics.is_empty());
    let pow = format!("x = 2{}\n", " ** 2".repeat(20_000));
    assert!(parse(&pow).diagnostics.is_empty());
    let blocks: String = (0..300)
        .map(|i| format!("{}if x:\n", " ".repeat(i)))
        .collect();
    let p = parse(&blocks);
    assert!(p.diagnostics.iter().any(|d| d.code == "syntax.nesting"));
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::parse;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        #[test]
        fn parsing_any_text_never_panics(src in "[ a-z0-9():=+\\-*/@,.\\[\\]{}'\"#\\\\\n\t]{0,120}") {
            let _ = parse(&src);
        }

        #[test]
        fn spans_stay_inside_the_text(src in "[ a-z0-9():=+*,.\\[\\]\n]{0,80}") {
            let p = parse(&src);
            for d in &p.diagnostics {
                prop_assert!(d.span.start <= d.span.end && d.span.end <= src.len());
            }
            for s in &p.module.body {
                prop_assert!(s.span.end <= src.len());
            }
        }
    }
}

/// The deepest nesting the parser accepts fits a 1 MiB stack (the browser worker's)
/// even in a debug build, for every bracket kind and for calls.
#[test]
fn the_deepest_accepted_line_fits_a_small_stack() {
    let n = super::MAX_DEPTH;
    let cases = [
        format!("x = {}1{}\n", "(".repeat(n), ")".repeat(n)),
        format!("x = {}1{}\n", "[".repeat(n), "]".repeat(n)),
        format!("x = {}1{}\n", "{".repeat(n), "}".repeat(n)),
        format!("x = {}1{}\n", "f(".repeat(n), ")".repeat(n)),
        format!("x = a{}\n", "[i".repeat(n) + &"]".repeat(n)),
        (0..super::MAX_BLOCKS - 1)
            .map(|i| format!("{}if x:\n", " ".repeat(i)))
            .collect::<String>()
            + &" ".repeat(super::MAX_BLOCKS - 1)
            + "pass\n",
    ];
    for src in cases {
        let ok = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || parse(&src).diagnostics.is_empty())
            .expect("spawn")
            .join()
            .expect("no stack overflow");
        assert!(ok);
    }
}

/// Parses every `.py` file under `$SHAPEX_PY_CORPUS` (real model code kept outside the
/// repository, see `tests/corpus/`) and prints how many have syntax errors and the
/// most common messages: `SHAPEX_PY_CORPUS=… cargo test -p shapex-migrate-syntax -- --ignored corpus --nocapture`.
#[test]
#[ignore]
fn corpus_syntax_errors() {
    let Ok(root) = std::env::var("SHAPEX_PY_CORPUS") else {
        return;
    };
    let mut stack = vec![std::path::PathBuf::from(root)];
    let (mut files, mut bad) = (0, 0);
    let mut messages: std::collections::BTreeMap<String, usize> = Default::default();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "py") {
                let Ok(src) = std::fs::read_to_string(&path) else {
                    continue;
                };
                files += 1;
                let p = parse(&src);
                if !p.diagnostics.is_empty() {
                    bad += 1;
                    for d in &p.diagnostics {
                        let line = src[..d.span.start.min(src.len())].matches('\n').count() + 1;
                        println!("{}:{line}: {}", path.display(), d.message);
                        *messages.entry(d.message.clone()).or_default() += 1;
                    }
                }
            }
        }
    }
    let mut common: Vec<_> = messages.into_iter().collect();
    common.sort_by_key(|c| std::cmp::Reverse(c.1));
    println!(
        "{files} files, {bad} with syntax errors; most common: {:?}",
        &common[..common.len().min(10)]
    );
}

#[test]
fn every_binary_operator_is_read_as_written() {
    for (src, op) in [
        ("a * b", BinOp::Mul),
        ("a *b", BinOp::Mul),
        ("a @ b", BinOp::MatMul),
        ("a // b", BinOp::FloorDiv),
        ("a / b", BinOp::Div),
        ("a % b", BinOp::Mod),
        ("a - b", BinOp::Sub),
        ("a << b", BinOp::LShift),
        ("a | b", BinOp::BitOr),
    ] {
        let ExprKind::BinOp { op: got, .. } = expr(src).kind else {
            panic!("{src}");
        };
        assert_eq!(got, op, "{src}");
    }
    let StmtKind::AugAssign { op, .. } = &only("x *= 2")[0].kind else {
        panic!();
    };
    assert_eq!(*op, BinOp::Mul);
}

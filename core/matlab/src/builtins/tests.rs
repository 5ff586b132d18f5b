use super::*;
use std::collections::HashSet;

fn table() -> BuiltinTable {
    BuiltinTable::standard()
}

#[test]
fn standard_table_parses_with_at_least_120_distinct_builtins() {
    let t = table();
    assert!(t.builtins().len() >= 120, "only {}", t.builtins().len());
    let names: HashSet<&str> = t.builtins().iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names.len(), t.builtins().len());
}

#[test]
fn every_category_has_a_default_rule() {
    let t = table();
    for c in t.categories() {
        assert!(
            t.default_rule(&c.name).is_some(),
            "{} has no default",
            c.name
        );
    }
}

#[test]
fn duplicates_unknown_categories_and_syntax_errors_are_rejected_with_lines() {
    let dup = "category c = scalar\nabs c\nabs c\n";
    assert_eq!(BuiltinTable::parse(dup).unwrap_err().line, 3);
    let unknown = "category c = scalar\nabs d\n";
    assert_eq!(BuiltinTable::parse(unknown).unwrap_err().line, 2);
    let bad = "category c = scalar\nabs c = same(\n";
    assert_eq!(BuiltinTable::parse(bad).unwrap_err().line, 2);
    let orphan = "category c < nope = scalar\n";
    assert!(BuiltinTable::parse(orphan).is_err());
}

#[test]
fn the_frequency_list_head_is_covered() {
    let t = table();
    for name in [
        "size", "length", "zeros", "ones", "numel", "isempty", "max", "min", "sum", "abs", "sqrt",
        "find", "round", "floor", "reshape", "mod", "any", "all", "repmat", "cat", "permute",
        "squeeze", "linspace", "eye", "rand", "diag", "kron", "cumsum", "prod", "mean", "disp",
        "error", "fprintf", "strcmp", "cos", "sin", "sprintf", "exp", "log", "double", "pi",
        "nargin", "nargout",
    ] {
        assert!(t.lookup(name).is_some(), "missing {name}");
    }
    // Every operator the lowering emits has a rule.
    for op in [
        "plus",
        "minus",
        "mtimes",
        "times",
        "mrdivide",
        "rdivide",
        "mldivide",
        "ldivide",
        "mpower",
        "power",
        "uminus",
        "uplus",
        "not",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "and",
        "or",
        "transpose",
        "ctranspose",
        "horzcat",
        "vertcat",
        "colon",
        "cellhorzcat",
        "logical",
        "true",
        "false",
        "isequal",
        "numel",
        "size",
    ] {
        assert!(t.lookup(op).is_some(), "missing operator {op}");
    }
}

#[test]
fn inherited_and_own_rules() {
    let t = table();
    let sqrt = t.lookup("sqrt").unwrap();
    assert_eq!(sqrt.source, RuleSource::Category("elementalUnary".into()));
    assert_eq!(
        sqrt.rule.output(1, 1, 0),
        Some(&ShapeExpr::SameAs(Arg::Nth(0)))
    );
    assert!(t.is_in("sqrt", "matrixFunction"));
    assert!(!t.is_in("sqrt", "impureFunction"));

    let plus = t.lookup("plus").unwrap();
    assert_eq!(
        plus.rule.output(2, 1, 0),
        Some(&ShapeExpr::Broadcast(vec![
            ArgSel::One(Arg::Nth(0)),
            ArgSel::One(Arg::Nth(1))
        ]))
    );
    let mtimes = t.lookup("mtimes").unwrap();
    assert_eq!(mtimes.source, RuleSource::Own);
    assert_eq!(
        mtimes.rule.output(2, 1, 0),
        Some(&ShapeExpr::MatMul(Arg::Nth(0), Arg::Nth(1)))
    );
}

#[test]
fn max_has_two_outputs_and_a_binary_form() {
    let max = table().lookup("max").unwrap().rule.clone();
    let c0 = ShapeExpr::Collapse {
        arg: Arg::Nth(0),
        dim: None,
    };
    assert_eq!(max.output(1, 2, 0), Some(&c0));
    assert_eq!(max.output(1, 2, 1), Some(&c0));
    assert_eq!(max.output(1, 3, 2), None);
    assert!(matches!(max.output(2, 1, 0), Some(ShapeExpr::Broadcast(_))));
    assert_eq!(
        max.output(3, 1, 0),
        Some(&ShapeExpr::Collapse {
            arg: Arg::Nth(0),
            dim: Some(Arg::Nth(2))
        })
    );
}

#[test]
fn size_depends_on_nargout() {
    let size = table().lookup("size").unwrap().rule.clone();
    assert_eq!(
        size.output(1, 1, 0),
        Some(&ShapeExpr::Dims(vec![
            Extent::Const(1),
            Extent::Ndims(Arg::Nth(0))
        ]))
    );
    // [r, c, p] = size(x): every output a scalar.
    for k in 0..3 {
        assert_eq!(size.output(1, 3, k), Some(&ShapeExpr::Scalar));
    }
}

#[test]
fn creation_concatenation_and_divergence() {
    let t = table();
    assert_eq!(
        t.lookup("zeros").unwrap().rule.output(2, 1, 0),
        Some(&ShapeExpr::FromDims { first: 0 })
    );
    assert_eq!(
        t.lookup("randi").unwrap().rule.output(3, 1, 0),
        Some(&ShapeExpr::FromDims { first: 1 })
    );
    assert_eq!(
        t.lookup("cat").unwrap().rule.output(3, 1, 0),
        Some(&ShapeExpr::Concat {
            dim: Extent::ArgValue(Arg::Nth(0)),
            first: 1
        })
    );
    assert_eq!(
        t.lookup("error").unwrap().rule.output(1, 0, 0),
        Some(&ShapeExpr::Diverges)
    );
    // disp returns nothing.
    assert_eq!(t.lookup("disp").unwrap().rule.output(1, 1, 0), None);
    assert_eq!(
        t.lookup("randperm").unwrap().rule.output(2, 1, 0),
        Some(&ShapeExpr::Dims(vec![
            Extent::Const(1),
            Extent::ArgValue(Arg::FromEnd(1))
        ]))
    );
}

#[test]
fn rule_language_parses_extents_conditions_and_guards() {
    let r = parse_rule(
        "in 2.., out 1 => dims(size(0, 1) * 2 + 1, ?) | if iscell(-1) then same(-1) else scalar",
    )
    .unwrap();
    assert_eq!(r.cases.len(), 2);
    assert_eq!(
        r.cases[0].guard,
        Guard {
            nargin: Some(Count { min: 2, max: None }),
            nargout: Some(Count {
                min: 1,
                max: Some(1)
            })
        }
    );
    assert_eq!(
        r.cases[0].outputs[0],
        ShapeExpr::Dims(vec![
            Extent::Add(
                Box::new(Extent::Mul(
                    Box::new(Extent::Size(Arg::Nth(0), 1)),
                    Box::new(Extent::Const(2))
                )),
                Box::new(Extent::Const(1))
            ),
            Extent::Unknown
        ])
    );
    assert!(matches!(
        &r.cases[1].outputs[0],
        ShapeExpr::If {
            pred: Pred::IsCell(Arg::FromEnd(1)),
            ..
        }
    ));
    assert!(r.select(1, 1).is_some_and(|c| c.guard.nargin.is_none()));
    assert!(parse_rule("same(").is_err());
    assert!(parse_rule("colon(0)").is_err());
}

#[test]
fn result_classes_come_from_the_table_nearest_line_first() {
    let t = BuiltinTable::standard();
    // A category's line covers its descendants; a nearer category's line wins.
    assert_eq!(t.class_rule("plus"), Some(ClassRule::Arith));
    assert_eq!(t.class_rule("isnan"), Some(ClassRule::Fixed("logical")));
    assert_eq!(t.class_rule("eq"), Some(ClassRule::LogicalOp));
    // A builtin's own line wins over its category's (`not` is elementalUnary).
    assert_eq!(t.class_rule("not"), Some(ClassRule::Fixed("logical")));
    assert_eq!(t.class_rule("transpose"), Some(ClassRule::Common));
    assert_eq!(t.class_rule("zeros"), Some(ClassRule::Fixed("double")));
    // Nothing is known of a function the table does not describe.
    assert_eq!(t.class_rule("isgood"), None);
    let twice = "category builtin = unknown\nclass_of builtin = double\nclass_of builtin = char\n";
    assert!(BuiltinTable::parse(twice)
        .unwrap_err()
        .message
        .contains("given twice"));
    let bad = "category builtin = unknown\nclass_of builtin = quaternion\n";
    assert!(BuiltinTable::parse(bad).is_err());
}

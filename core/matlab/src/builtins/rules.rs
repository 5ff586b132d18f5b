//! The pest parser for the builtin table and its shape-rule language.

use super::*;
use pest::iterators::Pair;
use pest::Parser;
use pest_derive::Parser;

#[derive(Parser)]
#[grammar = "builtins/rules.pest"]
struct RuleParser;

type P<'a> = Pair<'a, Rule>;

fn err(line: usize, message: impl Into<String>) -> TableError {
    TableError {
        line,
        message: message.into(),
    }
}

fn pest_err(e: pest::error::Error<Rule>, line_offset: usize) -> TableError {
    let line = match e.line_col {
        pest::error::LineColLocation::Pos((l, _))
        | pest::error::LineColLocation::Span((l, _), _) => l,
    };
    err(line + line_offset, e.variant.message().to_string())
}

/// Parses one rule written on its own (e.g. `in 1 => same(0) | unknown`).
pub fn parse_rule(text: &str) -> Result<ShapeRule, TableError> {
    let mut pairs = RuleParser::parse(Rule::rule_only, text).map_err(|e| pest_err(e, 0))?;
    let top = pairs.next().ok_or_else(|| err(1, "empty rule"))?;
    let rule = top
        .into_inner()
        .find(|p| p.as_rule() == Rule::rule)
        .ok_or_else(|| err(1, "empty rule"))?;
    build_rule(rule)
}

pub(super) fn parse_table(text: &str) -> Result<BuiltinTable, TableError> {
    let mut pairs = RuleParser::parse(Rule::table, text).map_err(|e| pest_err(e, 0))?;
    let table = pairs.next().ok_or_else(|| err(1, "empty table"))?;
    let mut categories: Vec<Category> = Vec::new();
    let mut raw: Vec<(String, String, Option<ShapeRule>, usize)> = Vec::new();
    let mut classes: HashMap<String, ClassRule> = HashMap::new();
    for entry in table.into_inner() {
        let line = entry.as_span().start_pos().line_col().0;
        match entry.as_rule() {
            Rule::category_decl => {
                let mut name = None;
                let mut parent = None;
                let mut rule = None;
                for p in entry.into_inner() {
                    match p.as_rule() {
                        Rule::name if name.is_none() => name = Some(p.as_str().to_string()),
                        Rule::name => parent = Some(p.as_str().to_string()),
                        Rule::rule => rule = Some(build_rule(p)?),
                        _ => {}
                    }
                }
                let name = name.ok_or_else(|| err(line, "category without a name"))?;
                if categories.iter().any(|c| c.name == name) {
                    return Err(err(line, format!("category `{name}` declared twice")));
                }
                if let Some(p) = &parent {
                    if !categories.iter().any(|c| &c.name == p) {
                        return Err(err(
                            line,
                            format!("parent category `{p}` must be declared first"),
                        ));
                    }
                }
                categories.push(Category {
                    name,
                    parent,
                    rule,
                    line,
                });
            }
            Rule::class_decl => {
                let mut it = entry.into_inner();
                let name = it.next().map(|p| p.as_str().to_string());
                let rule = it.next().and_then(|p| ClassRule::parse(p.as_str()));
                let (Some(name), Some(rule)) = (name, rule) else {
                    return Err(err(line, "a class line is `class_of name = class`"));
                };
                if classes.insert(name.clone(), rule).is_some() {
                    return Err(err(line, format!("class of `{name}` given twice")));
                }
            }
            Rule::builtin_decl => {
                let mut it = entry.into_inner();
                let name = it.next().map(|p| p.as_str().to_string());
                let cat = it.next().map(|p| p.as_str().to_string());
                let rule = it.next().map(build_rule).transpose()?;
                match (name, cat) {
                    (Some(n), Some(c)) => raw.push((n, c, rule, line)),
                    _ => return Err(err(line, "a builtin line is `name category [= rule]`")),
                }
            }
            _ => {}
        }
    }
    let partial = BuiltinTable::new(categories, vec![]);
    let mut builtins = Vec::with_capacity(raw.len());
    for (name, category, own, line) in raw {
        if partial.category(&category).is_none() {
            return Err(err(
                line,
                format!("unknown category `{category}` for `{name}`"),
            ));
        }
        if builtins.iter().any(|b: &Builtin| b.name == name) {
            return Err(err(line, format!("builtin `{name}` listed twice")));
        }
        let (rule, source) = match own {
            Some(r) => (r, RuleSource::Own),
            None => {
                let (r, from) = partial.default_rule(&category).ok_or_else(|| {
                    err(line, format!("category `{category}` has no default rule"))
                })?;
                (r.clone(), RuleSource::Category(from.to_string()))
            }
        };
        builtins.push(Builtin {
            name,
            category,
            rule,
            source,
            line,
        });
    }
    let mut table = BuiltinTable::new(partial.categories, builtins);
    table.classes = classes;
    Ok(table)
}

fn line_of(p: &P) -> usize {
    p.as_span().start_pos().line_col().0
}

fn build_rule(p: P) -> Result<ShapeRule, TableError> {
    let text = p.as_str().trim().to_string();
    let cases = p.into_inner().map(build_case).collect::<Result<_, _>>()?;
    Ok(ShapeRule { cases, text })
}

fn build_case(p: P) -> Result<RuleCase, TableError> {
    let mut guard = Guard::default();
    let mut outputs = Vec::new();
    let mut repeat_last = false;
    for part in p.into_inner() {
        match part.as_rule() {
            Rule::guard => {
                for item in part.into_inner() {
                    let mut it = item.into_inner();
                    let kind = it.next().map(|k| k.as_str()).unwrap_or("in");
                    let count = it.next().map(build_count).transpose()?;
                    if kind == "in" {
                        guard.nargin = count;
                    } else {
                        guard.nargout = count;
                    }
                }
            }
            Rule::outputs => (outputs, repeat_last) = build_outputs(part)?,
            _ => {}
        }
    }
    Ok(RuleCase {
        guard,
        outputs,
        repeat_last,
    })
}

/// A case's outputs, and whether the last repeats; a conditional list becomes a list
/// of conditional shapes.
fn build_outputs(p: P) -> Result<(Vec<ShapeExpr>, bool), TableError> {
    let line = line_of(&p);
    let mut outputs = Vec::new();
    let mut repeat_last = false;
    for o in p.into_inner() {
        match o.as_rule() {
            Rule::repeat => repeat_last = true,
            Rule::if_outputs => {
                let mut it = o.into_inner();
                let (Some(pred), Some(t), Some(e)) = (it.next(), it.next(), it.next()) else {
                    return Err(err(line, "`if` needs `then` and `else` outputs"));
                };
                let pred = build_pred(pred)?;
                let ((then, rt), (otherwise, re)) = (build_outputs(t)?, build_outputs(e)?);
                if rt || re {
                    return Err(err(line, "a conditional output list cannot repeat"));
                }
                for k in 0..then.len().max(otherwise.len()) {
                    let pick = |v: &[ShapeExpr]| v.get(k).cloned().unwrap_or(ShapeExpr::Unknown);
                    outputs.push(ShapeExpr::If {
                        pred: pred.clone(),
                        then: Box::new(pick(&then)),
                        otherwise: Box::new(pick(&otherwise)),
                    });
                }
            }
            _ => outputs.push(build_shape(o)?),
        }
    }
    Ok((outputs, repeat_last))
}

fn build_count(p: P) -> Result<Count, TableError> {
    let line = line_of(&p);
    let mut min = None;
    let mut max = None;
    let mut open = false;
    for part in p.into_inner() {
        match part.as_rule() {
            Rule::int if min.is_none() => min = Some(int(&part)?),
            Rule::int => max = Some(int(&part)?),
            Rule::dots => open = true,
            _ => {}
        }
    }
    let min = min.ok_or_else(|| err(line, "count without a number"))?;
    let max = if open { max } else { Some(min) };
    Ok(Count { min, max })
}

fn int(p: &P) -> Result<usize, TableError> {
    p.as_str()
        .parse()
        .map_err(|_| err(line_of(p), format!("bad number `{}`", p.as_str())))
}

fn arg(p: &P) -> Result<Arg, TableError> {
    let s = p.as_str();
    match s.strip_prefix('-') {
        Some(k) => {
            let k: usize = k.parse().map_err(|_| err(line_of(p), "bad argument"))?;
            if k == 0 {
                return Err(err(line_of(p), "-0 is not an argument"));
            }
            Ok(Arg::FromEnd(k))
        }
        None => Ok(Arg::Nth(
            s.parse().map_err(|_| err(line_of(p), "bad argument"))?,
        )),
    }
}

/// The `arg` and `from` children of a shape, and its extents, in order.
struct Parts<'a> {
    args: Vec<Arg>,
    from: Option<usize>,
    sels: Vec<ArgSel>,
    extents: Vec<Extent>,
    shapes: Vec<P<'a>>,
    pred: Option<P<'a>>,
    text: Option<String>,
}

fn parts(p: P) -> Result<Parts, TableError> {
    let mut out = Parts {
        args: vec![],
        from: None,
        sels: vec![],
        extents: vec![],
        shapes: vec![],
        pred: None,
        text: None,
    };
    for c in p.into_inner() {
        match c.as_rule() {
            Rule::arg => {
                let a = arg(&c)?;
                out.args.push(a);
                out.sels.push(ArgSel::One(a));
            }
            Rule::from => {
                let i = c
                    .into_inner()
                    .next()
                    .map(|n| int(&n))
                    .transpose()?
                    .unwrap_or(0);
                out.from = Some(i);
                out.sels.push(ArgSel::From(i));
            }
            Rule::extent => out.extents.push(build_extent(c)?),
            Rule::shape => out.shapes.push(c),
            Rule::pred => out.pred = Some(c),
            Rule::text => out.text = Some(c.as_str().trim_matches('"').to_string()),
            _ => {}
        }
    }
    Ok(out)
}

fn build_shape(p: P) -> Result<ShapeExpr, TableError> {
    let line = line_of(&p);
    // `shape` wraps exactly one alternative.
    let inner = p
        .into_inner()
        .next()
        .ok_or_else(|| err(line, "empty shape"))?;
    let kind = inner.as_rule();
    let x = parts(inner)?;
    let a = |i: usize| {
        x.args
            .get(i)
            .copied()
            .ok_or_else(|| err(line, "missing argument"))
    };
    let from = || x.from.ok_or_else(|| err(line, "missing `i..`"));
    Ok(match kind {
        Rule::same => ShapeExpr::SameAs(a(0)?),
        Rule::scalar => match x.shapes.into_iter().next() {
            Some(inner) => ShapeExpr::ScalarOf(Box::new(build_shape(inner)?)),
            None => ShapeExpr::Scalar,
        },
        Rule::square => ShapeExpr::Square(a(0)?),
        Rule::broadcast => ShapeExpr::Broadcast(x.sels.clone()),
        Rule::expand => ShapeExpr::Expand(x.sels.clone()),
        Rule::samesize => ShapeExpr::SameSize(x.sels.clone()),
        Rule::needs => {
            let mut shapes = x.shapes.into_iter();
            let (Some(c), Some(s)) = (shapes.next(), shapes.next()) else {
                return Err(err(line, "`needs` takes two shapes"));
            };
            ShapeExpr::Needs {
                needs: Box::new(build_shape(c)?),
                shape: Box::new(build_shape(s)?),
            }
        }
        Rule::fromdims => ShapeExpr::FromDims { first: from()? },
        Rule::collapse => ShapeExpr::Collapse {
            arg: a(0)?,
            dim: x.args.get(1).copied(),
        },
        Rule::transpose => ShapeExpr::Transpose(a(0)?),
        Rule::matmul => ShapeExpr::MatMul(a(0)?, a(1)?),
        Rule::mldivide => ShapeExpr::MLDivide(a(0)?, a(1)?),
        Rule::mrdivide => ShapeExpr::MRDivide(a(0)?, a(1)?),
        Rule::mpower => ShapeExpr::MPower(a(0)?, a(1)?),
        Rule::dims => ShapeExpr::Dims(x.extents.clone()),
        Rule::vector => ShapeExpr::Vector {
            like: a(0)?,
            len: x.extents.first().cloned().unwrap_or(Extent::Unknown),
        },
        Rule::colon => match x.args.as_slice() {
            [s, e] => ShapeExpr::Colon {
                start: *s,
                step: None,
                stop: *e,
            },
            [s, st, e] => ShapeExpr::Colon {
                start: *s,
                step: Some(*st),
                stop: *e,
            },
            _ => return Err(err(line, "colon takes 2 or 3 arguments")),
        },
        Rule::concat => ShapeExpr::Concat {
            dim: x.extents.first().cloned().unwrap_or(Extent::Unknown),
            first: from()?,
        },
        Rule::repmat => ShapeExpr::Repmat {
            arg: a(0)?,
            first: from()?,
        },
        Rule::reshape => ShapeExpr::Reshape {
            arg: a(0)?,
            first: from()?,
        },
        Rule::permute => ShapeExpr::Permute {
            arg: a(0)?,
            order: a(1)?,
        },
        Rule::squeeze => ShapeExpr::Squeeze(a(0)?),
        Rule::diag => ShapeExpr::Diag {
            arg: a(0)?,
            k: x.args.get(1).copied(),
        },
        Rule::unknown => ShapeExpr::Unknown,
        Rule::diverges => ShapeExpr::Diverges,
        Rule::checked => {
            let inner = x.shapes.into_iter().next();
            let inner = inner.ok_or_else(|| err(line, "`checked` needs a shape"))?;
            ShapeExpr::Checked {
                shape: Box::new(build_shape(inner)?),
                requirement: x.text.unwrap_or_default(),
            }
        }
        Rule::cond => {
            let pred = x.pred.ok_or_else(|| err(line, "missing predicate"))?;
            let pred = build_pred(pred)?;
            let mut shapes = x.shapes.into_iter();
            let (Some(t), Some(o)) = (shapes.next(), shapes.next()) else {
                return Err(err(line, "`if` needs `then` and `else` shapes"));
            };
            ShapeExpr::If {
                pred,
                then: Box::new(build_shape(t)?),
                otherwise: Box::new(build_shape(o)?),
            }
        }
        other => return Err(err(line, format!("unexpected {other:?}"))),
    })
}

fn build_pred(p: P) -> Result<Pred, TableError> {
    let line = line_of(&p);
    let mut it = p.into_inner().peekable();
    if it.peek().is_some_and(|o| o.as_rule() == Rule::option) {
        let mut o = it.next().into_iter().flat_map(|o| o.into_inner());
        let a = o
            .next()
            .map(|n| arg(&n))
            .transpose()?
            .ok_or_else(|| err(line, "option without argument"))?;
        let text = o.next().map_or("", |t| t.as_str()).trim_matches('"');
        return Ok(Pred::Option(a, text.to_string()));
    }
    let name = it
        .next()
        .map(|n| n.as_str().to_string())
        .unwrap_or_default();
    let a = it
        .next()
        .map(|n| arg(&n))
        .transpose()?
        .ok_or_else(|| err(line, "predicate without argument"))?;
    Ok(match name.as_str() {
        "iscell" => Pred::IsCell(a),
        "ischar" => Pred::IsChar(a),
        "isscalar" => Pred::IsScalar(a),
        "isvector" => Pred::IsVector(a),
        "ismatrix" => Pred::IsMatrix(a),
        "isrow" => Pred::IsRow(a),
        _ => Pred::IsEmpty(a),
    })
}

fn build_extent(p: P) -> Result<Extent, TableError> {
    let mut acc: Option<Extent> = None;
    let mut op = "+";
    for c in p.into_inner() {
        match c.as_rule() {
            Rule::addop => op = if c.as_str() == "-" { "-" } else { "+" },
            Rule::term => {
                let t = build_term(c)?;
                acc = Some(match acc {
                    None => t,
                    Some(a) if op == "-" => Extent::Sub(Box::new(a), Box::new(t)),
                    Some(a) => Extent::Add(Box::new(a), Box::new(t)),
                });
            }
            _ => {}
        }
    }
    Ok(acc.unwrap_or(Extent::Unknown))
}

fn build_term(p: P) -> Result<Extent, TableError> {
    let mut acc: Option<Extent> = None;
    for c in p.into_inner() {
        let f = build_factor(c)?;
        acc = Some(match acc {
            None => f,
            Some(a) => Extent::Mul(Box::new(a), Box::new(f)),
        });
    }
    Ok(acc.unwrap_or(Extent::Unknown))
}

fn build_factor(p: P) -> Result<Extent, TableError> {
    let line = line_of(&p);
    let kind = p.as_rule();
    if kind == Rule::int {
        return Ok(Extent::Const(int(&p)? as u64));
    }
    if kind == Rule::extent {
        return build_extent(p);
    }
    if kind == Rule::ext_named {
        return Ok(Extent::Named(
            p.as_str().trim_start_matches('?').to_string(),
        ));
    }
    if matches!(kind, Rule::ext_atmost | Rule::ext_min | Rule::ext_max) {
        let mut es = Vec::new();
        for e in p.into_inner() {
            es.push(Box::new(build_extent(e)?));
        }
        let mut es = es.into_iter();
        let first = es.next().ok_or_else(|| err(line, "missing extent"))?;
        return Ok(match (kind, es.next()) {
            (Rule::ext_atmost, _) => Extent::AtMost(first),
            (Rule::ext_min, Some(b)) => Extent::Min(first, b),
            (Rule::ext_max, Some(b)) => Extent::Max(first, b),
            _ => return Err(err(line, "min and max take two extents")),
        });
    }
    let mut it = p.into_inner();
    let mut next_arg = || -> Result<Arg, TableError> {
        let n = it.next().ok_or_else(|| err(line, "missing argument"))?;
        arg(&n)
    };
    Ok(match kind {
        Rule::ext_unknown => Extent::Unknown,
        Rule::ext_nargin => Extent::Nargin,
        Rule::ext_arg => Extent::ArgValue(next_arg()?),
        Rule::ext_numel => Extent::Numel(next_arg()?),
        Rule::ext_ndims => Extent::Ndims(next_arg()?),
        Rule::ext_size => {
            let a = next_arg()?;
            let k = it
                .next()
                .ok_or_else(|| err(line, "size needs a dimension"))?;
            Extent::Size(a, int(&k)?)
        }
        other => return Err(err(line, format!("unexpected {other:?} in extent"))),
    })
}

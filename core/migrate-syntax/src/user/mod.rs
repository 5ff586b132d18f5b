//! The user's constraints (issue #21 item 4), one per line: `x == Dyn`, `x != Dyn`,
//! `rank(x) == 4`, `x.shape == (b, 3, h, w)`, `s == Dyn`, `s != Dyn`, `s OP t` with
//! `OP` in `== != < > <= >=`, `s in (2, 4, 9)`, `s in (Dyn, 1)`. A term is an integer,
//! a name (a dimension symbol, or an integer variable of `forward`), `x.size(i)`,
//! `x.shape[i]`, or `+ - *` of terms. Blank lines and `#` comments are skipped; a line
//! that does not parse is reported with its line and column, and the others still count.

use pest::iterators::Pair;
use pest::Parser as _;
use pest_derive::Parser;

#[derive(Parser)]
#[grammar = "user/user.pest"]
struct LineParser;

/// How deep parentheses may nest in one line (the grammar recurses once per level).
const MAX_PARENS: usize = 16;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    Int(i64),
    Name(String),
    /// `x.size(i)` or `x.shape[i]` (negative from the end).
    Size(String, i64),
    Add(Box<Term>, Box<Term>),
    Sub(Box<Term>, Box<Term>),
    Mul(Box<Term>, Box<Term>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// One constraint. `name == Dyn` is [`UserConstraint::IsDyn`] whether the name is a
/// tensor or a dimension: the analysis knows which.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UserConstraint {
    IsDyn {
        term: Term,
        dyn_: bool,
    },
    Rank {
        var: String,
        cmp: Cmp,
        rank: u32,
    },
    Shape {
        var: String,
        dims: Vec<Option<Term>>,
    },
    Compare {
        left: Term,
        cmp: Cmp,
        right: Term,
    },
    /// `s in (…)`; `None` is `Dyn`.
    In {
        term: Term,
        options: Vec<Option<i64>>,
    },
}

/// A constraint with the text it was written as and its line (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub constraint: UserConstraint,
    pub text: String,
    pub line: u32,
}

/// A line that did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// Parses the constraints box (or the `--constraint`s joined by newlines).
pub fn parse(text: &str) -> (Vec<Written>, Vec<LineError>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        match parse_line(raw) {
            Ok(Some(c)) => out.push(Written {
                constraint: c,
                text: raw.split('#').next().unwrap_or("").trim().to_string(),
                line,
            }),
            Ok(None) => {}
            Err((column, message)) => errors.push(LineError {
                line,
                column,
                message,
            }),
        }
    }
    (out, errors)
}

/// One line: `Ok(None)` when blank or a comment; `Err((column, message))`.
pub fn parse_line(raw: &str) -> Result<Option<UserConstraint>, (u32, String)> {
    if raw.matches('(').count() > MAX_PARENS {
        return Err((1, format!("more than {MAX_PARENS} parentheses")));
    }
    let mut pairs = LineParser::parse(Rule::line, raw).map_err(|e| {
        let column = match e.line_col {
            pest::error::LineColLocation::Pos((_, c)) => c,
            pest::error::LineColLocation::Span((_, c), _) => c,
        };
        let message = "expected a constraint such as `x.shape == (b, 3, h, w)`, `rank(x) == 4`, `h <= 20`, `s in (2, 4)` or `x != Dyn`";
        (column as u32, message.to_string())
    })?;
    let line = pairs.next().into_iter().flat_map(Pair::into_inner);
    for p in line {
        if p.as_rule() == Rule::constraint {
            return build(p).map(Some).map_err(|m| (1, m));
        }
    }
    Ok(None)
}

fn build(p: Pair<Rule>) -> Result<UserConstraint, String> {
    let Some(inner) = p.into_inner().next() else {
        return Err("empty constraint".into());
    };
    let rule = inner.as_rule();
    let mut parts = inner.into_inner();
    let mut next = || {
        parts
            .next()
            .ok_or_else(|| "incomplete constraint".to_string())
    };
    match rule {
        Rule::rank => {
            let var = next()?.as_str().to_string();
            let cmp = cmp(next()?.as_str());
            let rank = next()?.as_str().parse().map_err(|_| "rank too large")?;
            Ok(UserConstraint::Rank { var, cmp, rank })
        }
        Rule::shape => {
            let var = next()?.as_str().to_string();
            let _eq = next()?;
            let mut dims = Vec::new();
            while let Ok(e) = next() {
                dims.push(entry(e)?);
            }
            Ok(UserConstraint::Shape { var, dims })
        }
        Rule::membership => {
            let term = term(next()?)?;
            let mut options = Vec::new();
            while let Ok(o) = next() {
                options.push(match o.into_inner().next() {
                    Some(v) if v.as_rule() == Rule::signed => Some(int(v.as_str())?),
                    _ => None,
                });
            }
            Ok(UserConstraint::In { term, options })
        }
        Rule::comparison => {
            let left = term(next()?)?;
            let c = cmp(next()?.as_str());
            let right = next()?;
            if right.as_rule() == Rule::dyn_ {
                return match c {
                    Cmp::Eq | Cmp::Ne => Ok(UserConstraint::IsDyn {
                        term: left,
                        dyn_: c == Cmp::Eq,
                    }),
                    _ => Err("Dyn is compared with == or != only".into()),
                };
            }
            Ok(UserConstraint::Compare {
                left,
                cmp: c,
                right: term(right)?,
            })
        }
        _ => Err("not a constraint".into()),
    }
}

fn entry(p: Pair<Rule>) -> Result<Option<Term>, String> {
    match p.into_inner().next() {
        Some(t) if t.as_rule() == Rule::term => term(t).map(Some),
        _ => Ok(None),
    }
}

fn int(s: &str) -> Result<i64, String> {
    s.parse().map_err(|_| format!("{s} is too large"))
}

fn cmp(s: &str) -> Cmp {
    match s {
        "==" => Cmp::Eq,
        "!=" => Cmp::Ne,
        "<" => Cmp::Lt,
        "<=" => Cmp::Le,
        ">" => Cmp::Gt,
        _ => Cmp::Ge,
    }
}

fn term(p: Pair<Rule>) -> Result<Term, String> {
    let mut parts = p.into_inner();
    let mut acc = product(parts.next().ok_or("empty term")?)?;
    while let (Some(op), Some(rhs)) = (parts.next(), parts.next()) {
        let rhs = Box::new(product(rhs)?);
        acc = if op.as_str() == "+" {
            Term::Add(Box::new(acc), rhs)
        } else {
            Term::Sub(Box::new(acc), rhs)
        };
    }
    Ok(acc)
}

fn product(p: Pair<Rule>) -> Result<Term, String> {
    let mut acc: Option<Term> = None;
    for f in p.into_inner().filter(|f| f.as_rule() == Rule::factor) {
        let t = factor(f)?;
        acc = Some(match acc {
            None => t,
            Some(a) => Term::Mul(Box::new(a), Box::new(t)),
        });
    }
    acc.ok_or_else(|| "empty product".into())
}

fn factor(p: Pair<Rule>) -> Result<Term, String> {
    let inner = p.into_inner().next().ok_or("empty factor")?;
    match inner.as_rule() {
        Rule::signed => Ok(Term::Int(int(inner.as_str())?)),
        Rule::name => Ok(Term::Name(inner.as_str().to_string())),
        Rule::size | Rule::index => {
            let mut it = inner.into_inner();
            let var = it.next().ok_or("no tensor")?.as_str().to_string();
            let i = int(it.next().ok_or("no index")?.as_str())?;
            Ok(Term::Size(var, i))
        }
        Rule::term => term(inner),
        _ => Err("unexpected term".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> UserConstraint {
        parse_line(s)
            .unwrap_or_else(|e| panic!("{s}: {e:?}"))
            .expect(s)
    }

    #[test]
    fn every_form_of_item_four() {
        assert_eq!(
            one("x == Dyn"),
            UserConstraint::IsDyn {
                term: Term::Name("x".into()),
                dyn_: true
            }
        );
        assert!(matches!(
            one("s != Dyn"),
            UserConstraint::IsDyn { dyn_: false, .. }
        ));
        assert_eq!(
            one("rank(x) == 4"),
            UserConstraint::Rank {
                var: "x".into(),
                cmp: Cmp::Eq,
                rank: 4
            }
        );
        assert_eq!(
            one("x.shape == (b, 3, Dyn, w)"),
            UserConstraint::Shape {
                var: "x".into(),
                dims: vec![
                    Some(Term::Name("b".into())),
                    Some(Term::Int(3)),
                    None,
                    Some(Term::Name("w".into()))
                ]
            }
        );
        assert_eq!(
            one("s in (Dyn, 1)"),
            UserConstraint::In {
                term: Term::Name("s".into()),
                options: vec![None, Some(1)]
            }
        );
        assert!(matches!(
            one("x.size(1) * 2 <= h - 1  # a comment"),
            UserConstraint::Compare {
                cmp: Cmp::Le,
                left: Term::Mul(..),
                right: Term::Sub(..)
            }
        ));
        assert!(matches!(
            one("x.shape[-1] > 2"),
            UserConstraint::Compare {
                left: Term::Size(_, -1),
                ..
            }
        ));
        assert_eq!(parse_line("   # only a comment"), Ok(None));
    }

    #[test]
    fn a_bad_line_says_where_and_the_rest_still_counts() {
        let (ok, bad) = parse("h <= 20\nx.shape == (b, \nrank(x) == 4\nh < Dyn");
        assert_eq!(ok.len(), 2);
        assert_eq!(bad.len(), 2);
        assert_eq!((bad[0].line, bad[0].column), (2, 16));
        assert_eq!(bad[1].line, 4);
        assert!(parse_line(&"(".repeat(10_000)).is_err());
    }
}

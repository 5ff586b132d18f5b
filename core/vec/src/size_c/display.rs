//! Printing SIZE_C terms with the sugar of spec §4.1 put back, as the thesis's SML
//! `display` does (spec §7, Appendix B): `pred (not (eq a b))` is `a = b`,
//! `let x <= t in u` with `x` not free in `u` is `check t then u`, nested checks are
//! `check a, b then t`, `~+ a b` is `a ~+ b`. The output parses back (spec §8.1's
//! grammar: `=` loosest, then `~+`, then application).

use shapex_vec_syntax::ast::{Term, TermKind};

/// `t` printed with SIZE_C's sugar re-introduced.
pub fn display(t: &Term) -> String {
    let mut out = String::new();
    go(t, Level::Term, &mut out);
    out
}

/// Where a term is printed, loosest first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    /// Anything, λ and `check` included (they extend to the right).
    Term,
    /// An operand of `=`.
    Equal,
    /// An operand of `~+`.
    Add,
    /// The function of an application.
    App,
    /// An argument.
    Atom,
}

fn name(t: &Term) -> Option<&str> {
    match &t.kind {
        TermKind::Var(x) => Some(&x.name),
        _ => None,
    }
}

/// `(f, a)` of `f a`.
fn applied(t: &Term) -> Option<(&Term, &Term)> {
    match &t.kind {
        TermKind::App { fun, arg, .. } => Some((fun, arg)),
        _ => None,
    }
}

/// `(a, b)` of `op a b`.
fn binary<'a>(t: &'a Term, op: &str) -> Option<(&'a Term, &'a Term)> {
    let (f, b) = applied(t)?;
    let (g, a) = applied(f)?;
    (name(g) == Some(op)).then_some((a, b))
}

/// `(a, b)` of `pred (not (eq a b))`.
pub(crate) fn equality(t: &Term) -> Option<(&Term, &Term)> {
    let (p, n) = applied(t)?;
    let (not, e) = applied(n)?;
    (name(p) == Some("pred") && name(not) == Some("not")).then_some(())?;
    binary(e, "eq")
}

fn free_in(t: &Term, x: &str) -> bool {
    match &t.kind {
        TermKind::Var(y) => y.name == x,
        TermKind::Lam { param, body } | TermKind::Rec { param, body } => {
            param.name.name != x && free_in(body, x)
        }
        TermKind::Let { name, value, body } => {
            free_in(value, x) || (name.name != x && free_in(body, x))
        }
        _ => t.children().into_iter().any(|c| free_in(c, x)),
    }
}

/// The condition and body of a check, `check c then b` or an unused `let`.
pub(crate) fn as_check(t: &Term) -> Option<(&Term, &Term)> {
    match &t.kind {
        TermKind::Check { cond, body } => Some((cond, body)),
        TermKind::Let { name, value, body } if !free_in(body, &name.name) => Some((value, body)),
        _ => None,
    }
}

fn go(t: &Term, at: Level, out: &mut String) {
    let (level, text) = piece(t);
    if level < at {
        out.push('(');
        out.push_str(&text);
        out.push(')');
    } else {
        out.push_str(&text);
    }
}

fn sub(t: &Term, at: Level) -> String {
    let mut s = String::new();
    go(t, at, &mut s);
    s
}

/// `t` printed, with the loosest level it may appear at unparenthesised.
fn piece(t: &Term) -> (Level, String) {
    if let Some((a, b)) = equality(t) {
        return (
            Level::Equal,
            format!("{} = {}", sub(a, Level::Equal), sub(b, Level::Add)),
        );
    }
    if let Some((a, b)) = binary(t, "~+") {
        return (
            Level::Add,
            format!("{} ~+ {}", sub(a, Level::Add), sub(b, Level::App)),
        );
    }
    if let Some((c, mut body)) = as_check(t) {
        let mut conds = vec![sub(c, Level::Term)];
        while let Some((c, b)) = as_check(body) {
            conds.push(sub(c, Level::Term));
            body = b;
        }
        let conds = conds.join(", ");
        return (
            Level::Term,
            format!("check {conds} then {}", sub(body, Level::Term)),
        );
    }
    let text = match &t.kind {
        TermKind::Var(x)
            if x.name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '\'') =>
        {
            x.name.clone()
        }
        TermKind::Var(x) => format!("({})", x.name),
        TermKind::Size(0) => "zero".into(),
        TermKind::Size(n) => format!("~{n}"),
        TermKind::Pair(a, b) => format!("<{}, {}>", sub(a, Level::Term), sub(b, Level::Term)),
        TermKind::App { fun, arg, .. } => {
            let s = format!("{} {}", sub(fun, Level::App), sub(arg, Level::Atom));
            return (Level::App, s);
        }
        TermKind::Lam { .. } => return (Level::Term, lambda(t)),
        TermKind::Let { name, value, body } => {
            let s = format!(
                "let {} <= {} in {}",
                name.name,
                sub(value, Level::Term),
                sub(body, Level::Term)
            );
            return (Level::Term, s);
        }
        _ => crate::print::term(t),
    };
    (Level::Atom, text)
}

/// `\x y. body` for consecutive λs.
fn lambda(mut t: &Term) -> String {
    let mut names = Vec::new();
    while let TermKind::Lam { param, body } = &t.kind {
        names.push(param.name.name.as_str());
        t = body;
    }
    format!("\\{}. {}", names.join(" "), sub(t, Level::Term))
}

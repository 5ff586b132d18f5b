//! The entry point a user names (issue #22 item 6), in MATLAB Coder's words:
//! `main(double[3x4], char[1x?], int32, struct)`. The named function is analysed from
//! arguments of those classes and sizes instead of symbolic ones.
//!
//! Grammar: `NAME` or `NAME(ARG, …)`; `ARG` is `?` (any value) or a class with an
//! optional size, `CLASS[D×D…]`, each `D` an integer, `?` (unknown) or `:N` / `:?` (at
//! most N, an unknown extent the analysis knows is at most N; at most anything); `x`, `X` and
//! `×` separate extents. A class without a size is a scalar (1×1), as in Coder.

use crate::values::Class;

/// The parsed entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub func: String,
    pub args: Vec<EntryArg>,
}

/// One argument: its class (`None`: any) and its extents (`None`: unknown); no
/// extents at all for `?`, a value of any shape. `bounds` holds, per extent, the most
/// an unknown one may be (`:10`); empty when none is bounded.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryArg {
    pub class: Class,
    pub dims: Option<Vec<Option<i64>>>,
    pub bounds: Vec<Option<i64>>,
}

/// The classes an argument may name: those a value's class may be, and `string`
/// (which the analysis treats as of unknown class).
fn classes() -> impl Iterator<Item = &'static str> {
    crate::values::UNION_CLASSES.into_iter().chain(["string"])
}

/// Why a text is not an entry point: what was expected, at which character (0-based).
#[derive(Clone, Debug, PartialEq)]
pub struct EntryError {
    pub at: usize,
    pub message: String,
}

impl Entry {
    pub fn parse(text: &str) -> Result<Entry, EntryError> {
        let mut p = Parser { text, at: 0 };
        let func = p
            .word()
            .ok_or_else(|| p.error("a function name"))?
            .to_string();
        let mut args = Vec::new();
        if p.eat('(') && !p.eat(')') {
            loop {
                args.push(p.arg()?);
                if p.eat(')') {
                    break;
                }
                if !p.eat(',') {
                    return Err(p.error("`,` or `)`"));
                }
            }
        }
        p.skip_spaces();
        match p.at < text.len() {
            true => Err(p.error("the end of the entry point")),
            false => Ok(Entry { func, args }),
        }
    }
}

/// One extent as written: its value when known, and its bound (`:10`) when not.
type Extent = (Option<i64>, Option<i64>);

struct Parser<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Parser<'t> {
    fn rest(&self) -> &'t str {
        &self.text[self.at..]
    }

    fn skip_spaces(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_spaces();
        match self.rest().starts_with(c) {
            true => {
                self.at += c.len_utf8();
                true
            }
            false => false,
        }
    }

    /// A name: a letter, then letters, digits and `_`.
    fn word(&mut self) -> Option<&'t str> {
        self.skip_spaces();
        let rest = self.rest();
        if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        self.at += len;
        Some(&rest[..len])
    }

    fn number(&mut self) -> Option<i64> {
        let rest = self.rest();
        let len = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let n = rest[..len].parse().ok()?;
        self.at += len;
        Some(n)
    }

    fn error(&self, expected: &str) -> EntryError {
        let found = match self.rest().chars().next() {
            Some(c) => format!("`{c}`"),
            None => "the end".to_string(),
        };
        EntryError {
            at: self.at,
            message: format!("expected {expected}, found {found}"),
        }
    }

    fn arg(&mut self) -> Result<EntryArg, EntryError> {
        if self.eat('?') {
            return Ok(EntryArg {
                class: None,
                dims: None,
                bounds: Vec::new(),
            });
        }
        let start = self.at;
        let name = self.word();
        let Some(class) = name.and_then(|n| classes().find(|c| *c == n)) else {
            self.at = start;
            self.skip_spaces();
            let all: Vec<&str> = classes().collect();
            return Err(self.error(&format!("a class ({}) or `?`", all.join(", "))));
        };
        let extents = match self.eat('[') {
            true => self.dims()?,
            false => vec![(Some(1), None); 2],
        };
        let (dims, mut bounds): (Vec<_>, Vec<_>) = extents.into_iter().unzip();
        if bounds.iter().all(Option::is_none) {
            bounds.clear();
        }
        Ok(EntryArg {
            class: Some(class),
            dims: Some(dims),
            bounds,
        })
    }

    /// The extents after `[`, through `]`: each known or not, and its bound.
    fn dims(&mut self) -> Result<Vec<Extent>, EntryError> {
        let mut dims = vec![self.dim()?];
        loop {
            if self.eat(']') {
                break;
            }
            if !(self.eat('x') || self.eat('X') || self.eat('×')) {
                return Err(self.error("`x` or `]`"));
            }
            dims.push(self.dim()?);
        }
        if dims.len() < 2 {
            return Err(self.error("two extents or more (`1x3`)"));
        }
        Ok(dims)
    }

    fn dim(&mut self) -> Result<Extent, EntryError> {
        self.skip_spaces();
        if self.eat('?') {
            return Ok((None, None));
        }
        if self.eat(':') {
            // A bound: the extent is at most it, and not known.
            if self.eat('?') {
                return Ok((None, None));
            }
            return match self.number() {
                Some(n) => Ok((None, Some(n))),
                None => Err(self.error("a bound (`:10`) or `:?`")),
            };
        }
        match self.number() {
            Some(n) => Ok((Some(n), None)),
            None => Err(self.error("an extent (a number, `?` or `:N`)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(class: &'static str, dims: &[Option<i64>]) -> EntryArg {
        EntryArg {
            class: Some(class),
            dims: Some(dims.to_vec()),
            bounds: Vec::new(),
        }
    }

    #[test]
    fn coder_style_signatures_parse() {
        let e = Entry::parse("main(double[3x4], char[1×?], int32, struct, ?, single[2x:10x5])")
            .unwrap();
        assert_eq!(e.func, "main");
        assert_eq!(
            e.args,
            vec![
                arg("double", &[Some(3), Some(4)]),
                arg("char", &[Some(1), None]),
                arg("int32", &[Some(1), Some(1)]),
                arg("struct", &[Some(1), Some(1)]),
                EntryArg {
                    class: None,
                    dims: None,
                    bounds: Vec::new(),
                },
                EntryArg {
                    bounds: vec![None, Some(10), None],
                    ..arg("single", &[Some(2), None, Some(5)])
                },
            ]
        );
        assert_eq!(
            Entry::parse("f(double[1x:?])").unwrap().args[0].bounds,
            vec![]
        );
        assert_eq!(Entry::parse(" run ").unwrap().args, vec![]);
        assert_eq!(Entry::parse("run()").unwrap().args, vec![]);
    }

    #[test]
    fn mistakes_say_what_was_expected_and_where() {
        let e = Entry::parse("main(double[3x4], dobule)").unwrap_err();
        assert_eq!(e.at, 18);
        assert!(e.message.starts_with("expected a class"), "{e:?}");
        let e = Entry::parse("main(double[3,4])").unwrap_err();
        assert_eq!(
            (e.at, e.message.as_str()),
            (13, "expected `x` or `]`, found `,`")
        );
        assert!(Entry::parse("main(double[3])").is_err());
        assert!(Entry::parse("main(double[3x4]").is_err());
        assert!(Entry::parse("3main").is_err());
        assert!(Entry::parse("").is_err());
        assert!(Entry::parse("main(double) extra").is_err());
    }
}

//! An abstract [`Value`] in a reader's words, for the Values view: its class, its shape
//! in the paper's notation (faces rewrite it in the reader's, as they do messages), and
//! what else the analysis knows of it — a constant, a text, known elements, the
//! function a handle calls. One function, so a new part of `Value` (a struct's fields,
//! a cell's elements) is one more arm here.

use super::Value;
use crate::shape::{Notation, Shape};
use shapex_dims::Dim;
use std::collections::HashMap;

/// The longest constant text or element list shown in full; longer ones end in `…`,
/// so a row stays one line however large the value.
const SHOWN_CHARS: usize = 40;
const SHOWN_ELEMS: usize = 8;

/// `double <3,4>`, `double <1,1> = 7`, `char <1,5> = 'hello'`, `function_handle =
/// @sin`; `?` for an unknown class or shape, `π` where the statement fails.
pub fn describe(value: &Value) -> String {
    describe_bounded(value, None, &Lambdas::new())
}

/// The source text of each anonymous function by its lifted name (`mc_tlambda1` →
/// `@(t) A*t`), so a closure is shown as written; one not listed shows as `@(…)`.
pub type Lambdas = HashMap<String, String>;

/// [`describe`] with the upper bounds of the value's extents (MATLAB Coder's
/// `double <1,:10>`, see `results::Bounds`) and anonymous functions as written.
pub fn describe_bounded(value: &Value, max: Option<&[Option<i64>]>, lambdas: &Lambdas) -> String {
    if value.cleared {
        return "cleared".to_string();
    }
    let union = value.union_classes().map(|u| u.join("|"));
    let class = value.class.or(union.as_deref()).unwrap_or("?");
    let shape = shape_text_bounded(&value.shape, value.open_rank, max);
    let handle = value.class == Some("function_handle") || value.handle.is_some();
    let known = constant(value, lambdas);
    // A handle is one object: its 1×1 says nothing its class does not.
    let mut out = match (handle, known.is_some()) {
        (true, true) => class.to_string(),
        _ => format!("{class} {shape}"),
    };
    if let Some(known) = known {
        out.push_str(" = ");
        out.push_str(&known);
    }
    if let Some(p) = &value.parts {
        out.push(' ');
        out.push_str(&parts_text(p, lambdas));
    }
    out
}

/// The fields or elements shown at most; more end in `…`.
const SHOWN_PARTS: usize = 6;

/// A struct's fields (`{a: double <3,4>, b: char <1,5> = 'hi'}`) or a cell's elements
/// (`{double <2,3>, char <1,3> = 'abc'}`, `{each: double <?,1>}`), each a part's value
/// with its unknown extents as `?`.
fn parts_text(p: &super::parts::Parts, lambdas: &Lambdas) -> String {
    use super::parts::{self, Parts};
    let part = |v: &Value| describe_bounded(&parts::shown(v), None, lambdas);
    let mut items: Vec<String> = match p {
        Parts::Fields { .. } | Parts::Elements { .. } => {
            // A struct array's: what every element's field holds.
            let (map, complete) = parts::fields_of(p).unwrap_or_default();
            let mut items: Vec<String> = map
                .iter()
                .take(SHOWN_PARTS)
                .map(|(k, v)| format!("{k}: {}", part(v)))
                .collect();
            if map.len() > SHOWN_PARTS || !complete {
                items.push("…".to_string());
            }
            return format!("{{{}}}", items.join(", "));
        }
        Parts::Each(values) | Parts::List(values) => {
            values.iter().take(SHOWN_PARTS).map(part).collect()
        }
        Parts::Any(v) => vec![format!("each: {}", part(v))],
    };
    if matches!(p, Parts::Each(v) | Parts::List(v) if v.len() > SHOWN_PARTS) {
        items.push("…".to_string());
    }
    format!("{{{}}}", items.join(", "))
}

/// The shape as the report shows a def's: an array of open rank (an input, or computed
/// from one element by element) may have more dimensions than its tuple, so it ends
/// in `…`; a symbolic extent with an upper bound `c` (`max`) is written `:c`, as
/// MATLAB Coder writes it (`<1,:10>`).
pub fn shape_text_bounded(shape: &Shape, open_rank: bool, max: Option<&[Option<i64>]>) -> String {
    let mut display = match (shape, max) {
        (Shape::Tuple(t), Some(max)) => {
            let parts: Vec<String> = t
                .dims()
                .iter()
                .enumerate()
                .map(|(k, d)| match max.get(k).copied().flatten() {
                    Some(c) if !d.is_known() => format!(":{c}"),
                    _ => d.to_string(),
                })
                .collect();
            format!("<{}>", parts.join(","))
        }
        _ => shape.display(Notation::Paper),
    };
    if open_rank && display.ends_with('>') {
        display.insert_str(display.len() - 1, &format!(",{MORE}"));
    }
    display
}

/// The extent that stands for "and maybe more dimensions".
pub const MORE: &str = "…";

/// What is known of the value beyond class and shape, as MATLAB would write it.
fn constant(value: &Value, lambdas: &Lambdas) -> Option<String> {
    if let Some(f) = &value.handle {
        return Some(format!("@{f}"));
    }
    if let Some(c) = &value.closure {
        let text = lambdas.get(&c.func).map(|t| {
            // One line without its continuations' `...` (and what follows them on
            // their line), as short as a string constant is shown.
            let words = t
                .lines()
                .flat_map(|l| l.split("...").next().unwrap_or(l).split_whitespace());
            shortened(&words.collect::<Vec<_>>().join(" "))
        });
        return Some(text.unwrap_or_else(|| "@(…)".to_string()));
    }
    if let Some(text) = &value.text {
        return Some(format!("'{}'", shortened(&text.replace('\'', "''"))));
    }
    if let Some(d) = &value.scalar {
        return Some(d.to_string());
    }
    if let Some(x) = value.number {
        return Some(number(x));
    }
    let elems = value.elems.as_ref()?;
    let column = value
        .shape
        .as_tuple()
        .is_some_and(|t| t.rank() == 2 && t.extent(0) != Dim::known(1));
    let mut shown: Vec<String> = elems.iter().take(SHOWN_ELEMS).map(Dim::to_string).collect();
    if elems.len() > SHOWN_ELEMS {
        shown.push("…".to_string());
    }
    Some(format!("[{}]", shown.join(if column { "; " } else { " " })))
}

/// A real constant as MATLAB prints it in code (`0.5`, `Inf`, `-Inf`, `NaN`).
fn number(x: f64) -> String {
    match x {
        x if x.is_nan() => "NaN".to_string(),
        x if x.is_infinite() && x > 0.0 => "Inf".to_string(),
        x if x.is_infinite() => "-Inf".to_string(),
        x => x.to_string(),
    }
}

fn shortened(text: &str) -> String {
    match text.chars().count() > SHOWN_CHARS {
        true => format!(
            "{}…",
            text.chars().take(SHOWN_CHARS - 1).collect::<String>()
        ),
        false => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(class: &'static str, dims: &[i64]) -> Value {
        let dims = dims.iter().map(|&d| Dim::known(d)).collect();
        Value::of_shape(Some(class), Shape::tuple(dims))
    }

    #[test]
    fn class_and_shape() {
        assert_eq!(describe(&of("double", &[3, 4])), "double <3,4>");
        assert_eq!(describe(&Value::unknown()), "? ?");
        let n = Value::of_shape(None, Shape::tuple(vec![Dim::sym("n"), Dim::known(2)]));
        assert_eq!(describe(&n), "? <n,2>");
    }

    #[test]
    fn constants_as_matlab_writes_them() {
        assert_eq!(
            describe(&Value::scalar(Some(Dim::known(7)))),
            "double <1,1> = 7"
        );
        let half = Value {
            number: Some(0.5),
            ..of("double", &[1, 1])
        };
        assert_eq!(describe(&half), "double <1,1> = 0.5");
        let inf = Value {
            number: Some(f64::NEG_INFINITY),
            ..of("double", &[1, 1])
        };
        assert_eq!(describe(&inf), "double <1,1> = -Inf");
        let text = Value {
            text: Some("it's".into()),
            ..of("char", &[1, 4])
        };
        assert_eq!(describe(&text), "char <1,4> = 'it''s'");
        let long = Value {
            text: Some("x".repeat(100)),
            ..of("char", &[1, 100])
        };
        assert!(describe(&long).ends_with("x…'"), "{}", describe(&long));
    }

    #[test]
    fn elements_of_rows_and_columns() {
        let known = |k: i64| (1..=k).map(Dim::known).collect::<Vec<_>>();
        let row = Value {
            elems: Some(known(2)),
            ..of("double", &[1, 2])
        };
        assert_eq!(describe(&row), "double <1,2> = [1 2]");
        let column = Value {
            elems: Some(known(2)),
            ..of("double", &[2, 1])
        };
        assert_eq!(describe(&column), "double <2,1> = [1; 2]");
        let long = Value {
            elems: Some(known(20)),
            ..of("double", &[1, 20])
        };
        assert_eq!(describe(&long), "double <1,20> = [1 2 3 4 5 6 7 8 …]");
    }

    #[test]
    fn handles_name_their_function() {
        let sin = Value {
            handle: Some("sin".into()),
            ..of("function_handle", &[1, 1])
        };
        assert_eq!(describe(&sin), "function_handle = @sin");
        assert_eq!(
            describe(&of("function_handle", &[1, 1])),
            "function_handle <1,1>"
        );
        // An anonymous function as written, on one line; unknown to the view: `@(…)`.
        let g = Value {
            closure: Some(std::rc::Rc::new(super::super::Closure {
                func: "mc_tlambda1".into(),
                captured: vec![],
            })),
            ..of("function_handle", &[1, 1])
        };
        let lambdas = Lambdas::from([("mc_tlambda1".into(), "@(t) A*t + ... % more\n  1".into())]);
        assert_eq!(
            describe_bounded(&g, None, &lambdas),
            "function_handle = @(t) A*t + 1"
        );
        assert_eq!(describe(&g), "function_handle = @(…)");
    }

    #[test]
    fn open_rank_and_failure() {
        let x = Value {
            open_rank: true,
            ..Value::of_shape(
                Some("double"),
                Shape::tuple(vec![Dim::sym("x_1"), Dim::sym("x_2")]),
            )
        };
        assert_eq!(describe(&x), "double <x_1,x_2,…>");
        assert_eq!(describe(&Value::of_shape(None, Shape::Illegal)), "? π");
        assert_eq!(describe(&Value::cleared()), "cleared");
    }

    #[test]
    fn fields_and_elements_with_unknown_extents_as_question_marks() {
        use crate::values::parts::{anonymous, Parts};
        use std::rc::Rc;
        let with = |v: Value, p: Parts| Value {
            parts: Some(Rc::new(p)),
            ..v
        };
        let fields = Parts::Fields {
            map: [("a".to_string(), of("double", &[3, 4]))]
                .into_iter()
                .collect(),
            complete: true,
        };
        assert_eq!(
            describe(&with(of("struct", &[1, 1]), fields)),
            "struct <1,1> {a: double <3,4>}"
        );
        let open = Parts::Fields {
            map: Default::default(),
            complete: false,
        };
        assert_eq!(
            describe(&with(of("struct", &[1, 1]), open)),
            "struct <1,1> {…}"
        );
        let column = Value::of_shape(
            Some("double"),
            Shape::tuple(vec![Dim::sym("n"), Dim::one()]),
        );
        let every = Parts::Any(anonymous(&column));
        assert_eq!(
            describe(&with(of("cell", &[1, 5]), every)),
            "cell <1,5> {each: double <?,1>}"
        );
        let each = Parts::Each(vec![of("double", &[2, 3]); 7]);
        assert_eq!(
            describe(&with(of("cell", &[1, 7]), each)),
            "cell <1,7> {double <2,3>, double <2,3>, double <2,3>, double <2,3>, double <2,3>, double <2,3>, …}"
        );
    }
}

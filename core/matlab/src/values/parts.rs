//! The parts of a struct or a cell array (issue #22 item 4; Dubrau 2012 §6.2's
//! struct and cell value sets): per field of a struct, per element of a small cell
//! array of known shape, or one value every element of a cell has.
//!
//! A part's value is exact within the function that built it (`c{1} = zeros(n, 1)`
//! keeps n). Where one value must stand for several (a join of two paths' parts, every
//! element of a cell, a part passed to or returned from a call) it is *anonymous*: its
//! extents that are not constants become placeholders, each read of the part minting
//! them afresh ([`instantiate`]), so two parts that merely look alike are never
//! equated, and a part's extents never name a symbol of another function.

use super::Value;
use crate::shape::Shape;
use shapex_dims::{Atom, Dim};
use std::collections::BTreeMap;
use std::rc::Rc;

/// What is known of a struct's fields or a cell array's elements.
// Parts live behind an `Rc` in their value (`Value::parts`): the largest variant's size
// is paid once per shared allocation, never per copy of a value.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Parts {
    /// A struct's fields by name. `complete`: the struct has no other field (it was
    /// built here, by `struct(…)` or by assignments to an empty value).
    Fields {
        map: BTreeMap<String, Value>,
        complete: bool,
    },
    /// Every element of a cell array, column-major; its shape is a tuple of constants
    /// whose product is their number.
    Each(Vec<Value>),
    /// A value every element of a cell array has (anonymous).
    Any(Value),
    /// The values of a comma-separated list of several (`c{:}`), in order: what a
    /// temporary holds that a call's arguments spread.
    List(Vec<Value>),
    /// The fields of each element of a struct array of at least two and at most
    /// [`MAX_PARTS`] elements, its shape's constants, column-major; every element has
    /// the same names. `complete` as for [`Parts::Fields`].
    Elements {
        each: Vec<BTreeMap<String, Value>>,
        complete: bool,
    },
}

/// A struct's fields as one map: a 1×1 struct's, or what every element's field of a
/// struct array holds (joined over [`Parts::Elements`]), and whether it has no others.
pub fn fields_of(p: &Parts) -> Option<(BTreeMap<String, Value>, bool)> {
    match p {
        Parts::Fields { map, complete } => Some((map.clone(), *complete)),
        Parts::Elements { each, complete } => {
            let names = each.first()?.keys();
            let every = |name: &String| {
                let values = each
                    .iter()
                    .map(|m| m.get(name).map(anonymous))
                    .collect::<Option<Vec<_>>>()?;
                values.into_iter().reduce(|a, b| join_values(&a, &b))
            };
            let map = names.filter_map(|k| Some((k.clone(), every(k)?))).collect();
            Some((map, *complete))
        }
        _ => None,
    }
}

/// The parts of a struct array whose elements' fields are `each` (one element: its
/// fields exactly; more than [`MAX_PARTS`]: what every element's holds).
pub fn of_elements(mut each: Vec<BTreeMap<String, Value>>, complete: bool) -> Parts {
    if each.len() == 1 {
        return Parts::Fields {
            map: each.remove(0),
            complete,
        };
    }
    let elements = Parts::Elements { each, complete };
    match &elements {
        Parts::Elements { each, .. } if each.len() > MAX_PARTS || each.is_empty() => {
            let (map, complete) = fields_of(&elements).unwrap_or_default();
            Parts::Fields { map, complete }
        }
        _ => elements,
    }
}

/// The most elements [`Parts::Each`] keeps, and fields [`Parts::Fields`].
pub const MAX_PARTS: usize = 64;

/// How deep parts nest (a struct in a cell in a struct): deeper values keep no parts,
/// so a loop building a list (`s.next = s`) reaches its fixed point.
pub const MAX_DEPTH: usize = 3;

/// The prefix of an anonymous part's unknown extents.
const PLACEHOLDER: &str = "⟂part";
/// The prefix of extents a join of two parts leaves unknown, before they are renamed.
const JOINED: &str = "⟂joined";

fn placeholder(k: usize) -> Dim {
    Dim::sym(&format!("{PLACEHOLDER}{k}"))
}

/// The number of placeholder `d` is, if it is one.
fn placeholder_index(d: &Dim) -> Option<usize> {
    match d.as_atom()? {
        Atom::Sym(s) => s.name().strip_prefix(PLACEHOLDER)?.parse().ok(),
        _ => None,
    }
}

/// `v` anonymous: every extent that is not a constant a placeholder (equal extents the
/// same one, numbered by first occurrence, so equal shapes give equal values), values
/// that are not constants forgotten, and closures that captured any dropped; its parts
/// anonymous too.
pub fn anonymous(v: &Value) -> Value {
    let mut seen: Vec<Dim> = Vec::new();
    let mut extent = |d: &Dim| {
        if d.is_known() {
            return d.clone();
        }
        let k = match seen.iter().position(|s| s == d) {
            Some(k) => k,
            None => {
                seen.push(d.clone());
                seen.len() - 1
            }
        };
        placeholder(k)
    };
    let shape = match v.shape.as_tuple() {
        Some(t) => Shape::tuple(t.dims().iter().map(&mut extent).collect()),
        None => v.shape.clone(),
    };
    let known = |d: &Option<Dim>| d.clone().filter(Dim::is_known);
    let closure = v.closure.clone().filter(|c| {
        c.captured.iter().all(|x| {
            anonymous(x)
                == Value {
                    origin: None,
                    ..x.clone()
                }
        })
    });
    Value {
        shape,
        trailing: v.trailing.as_ref().map(&mut extent),
        scalar: known(&v.scalar),
        elems: v.elems.clone().filter(|e| e.iter().all(Dim::is_known)),
        max: known(&v.max),
        closure,
        origin: None,
        // What it is true exactly when names symbols, as a symbolic scalar does.
        guard: None,
        parts: v.parts.as_ref().map(|p| Rc::new(map(p, &anonymous))),
        ..v.clone()
    }
}

/// `p` with every part's value mapped by `f`.
pub fn map(p: &Parts, f: &dyn Fn(&Value) -> Value) -> Parts {
    match p {
        Parts::Fields { map, complete } => Parts::Fields {
            map: map.iter().map(|(k, v)| (k.clone(), f(v))).collect(),
            complete: *complete,
        },
        Parts::Each(values) => Parts::Each(values.iter().map(f).collect()),
        Parts::Any(v) => Parts::Any(f(v)),
        Parts::List(values) => Parts::List(values.iter().map(f).collect()),
        Parts::Elements { each, complete } => Parts::Elements {
            each: each
                .iter()
                .map(|m| m.iter().map(|(k, v)| (k.clone(), f(v))).collect())
                .collect(),
            complete: *complete,
        },
    }
}

/// A part's value as read into a variable: its placeholders as extents `fresh(k)`
/// (fresh at every read, so two reads of an anonymous part are two unknowns).
pub fn instantiate(v: &Value, fresh: &dyn Fn(usize) -> Dim) -> Value {
    let extent = |d: &Dim| placeholder_index(d).map_or_else(|| d.clone(), fresh);
    Value {
        shape: match v.shape.as_tuple() {
            Some(t) => Shape::tuple(t.dims().iter().map(extent).collect()),
            None => v.shape.clone(),
        },
        trailing: v.trailing.as_ref().map(extent),
        ..v.clone()
    }
}

/// A part's value as shown: its anonymous extents `?`.
pub fn shown(v: &Value) -> Value {
    instantiate(v, &|_| Dim::sym("?"))
}

/// One value both of two parts' values are: `a` when they are equal, else their join,
/// anonymous.
pub fn join_values(a: &Value, b: &Value) -> Value {
    if a == b {
        return a.clone();
    }
    let joined = a.join(b, &mut |k| Dim::sym(&format!("{JOINED}{k}")));
    anonymous(&joined)
}

/// The parts of the join of two values: fields both have (complete when both are,
/// with the same names), elements pairwise, or one value for every element.
pub fn join(a: &Option<Rc<Parts>>, b: &Option<Rc<Parts>>) -> Option<Rc<Parts>> {
    let (a, b) = (a.as_ref()?, b.as_ref()?);
    if a == b {
        return Some(a.clone());
    }
    let parts = match (&**a, &**b) {
        (
            Parts::Fields {
                map: m,
                complete: c,
            },
            Parts::Fields {
                map: n,
                complete: d,
            },
        ) => Parts::Fields {
            map: m
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), join_values(v, n.get(k)?))))
                .collect(),
            complete: *c && *d && m.keys().eq(n.keys()),
        },
        (Parts::Each(x), Parts::Each(y)) if x.len() == y.len() => {
            Parts::Each(x.iter().zip(y).map(|(v, w)| join_values(v, w)).collect())
        }
        (
            Parts::Elements {
                each: x,
                complete: c,
            },
            Parts::Elements {
                each: y,
                complete: d,
            },
        ) if x.len() == y.len() => {
            let pair = |(m, n): (&BTreeMap<String, Value>, &BTreeMap<String, Value>)| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), join_values(v, n.get(k)?))))
                    .collect()
            };
            let same = match (x.first(), y.first()) {
                (Some(m), Some(n)) => m.keys().eq(n.keys()),
                _ => true,
            };
            Parts::Elements {
                each: x.iter().zip(y).map(pair).collect(),
                complete: *c && *d && same,
            }
        }
        // Struct arrays of other sizes, or one and a 1×1 struct: what every element's
        // field holds.
        (Parts::Elements { .. }, Parts::Fields { .. } | Parts::Elements { .. })
        | (Parts::Fields { .. }, Parts::Elements { .. }) => {
            let (m, c) = fields_of(a)?;
            let (n, d) = fields_of(b)?;
            Parts::Fields {
                complete: c && d && m.keys().eq(n.keys()),
                map: m
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), join_values(v, n.get(k)?))))
                    .collect(),
            }
        }
        (Parts::Fields { .. } | Parts::List(_) | Parts::Elements { .. }, _)
        | (_, Parts::Fields { .. } | Parts::List(_) | Parts::Elements { .. }) => return None,
        (x, y) => match (every(x), every(y)) {
            (Some(v), Some(w)) => Parts::Any(join_values(&v, &w)),
            (Some(v), None) | (None, Some(v)) => Parts::Any(v),
            (None, None) => Parts::Each(vec![]),
        },
    };
    Some(Rc::new(parts))
}

/// One value every element of a cell has (`None` when it has none), anonymous.
pub fn every(p: &Parts) -> Option<Value> {
    match p {
        Parts::Any(v) => Some(v.clone()),
        Parts::Each(values) => values
            .iter()
            .map(anonymous)
            .reduce(|a, b| join_values(&a, &b)),
        Parts::Fields { .. } | Parts::List(_) | Parts::Elements { .. } => None,
    }
}

/// How deeply `v`'s parts nest.
pub fn depth(v: &Value) -> usize {
    match v.parts.as_deref() {
        None => 0,
        Some(Parts::Fields { map, .. }) => 1 + map.values().map(depth).max().unwrap_or(0),
        Some(Parts::Each(values) | Parts::List(values)) => {
            1 + values.iter().map(depth).max().unwrap_or(0)
        }
        Some(Parts::Any(v)) => 1 + depth(v),
        Some(Parts::Elements { each, .. }) => {
            1 + each
                .iter()
                .flat_map(|m| m.values().map(depth))
                .max()
                .unwrap_or(0)
        }
    }
}

/// `v` as a part: without its origin, and without parts nested deeper than
/// [`MAX_DEPTH`] in all.
pub fn as_part(v: &Value) -> Value {
    fn cut(v: &Value, room: usize) -> Value {
        Value {
            origin: None,
            parts: match room {
                0 => None,
                _ => v
                    .parts
                    .as_ref()
                    .map(|p| Rc::new(map(p, &|x| cut(x, room - 1)))),
            },
            ..v.clone()
        }
    }
    cut(v, MAX_DEPTH - 1)
}

/// The value of `[]`: what a new element of a grown cell, or a new field, holds.
pub fn empty_double() -> Value {
    Value {
        integral: true,
        ..Value::of_shape(Some("double"), Shape::empty())
    }
}

/// The constant extents of `shape`, if every one is.
pub fn known_dims(shape: &Shape) -> Option<Vec<usize>> {
    shape
        .as_tuple()?
        .dims()
        .iter()
        .map(|d| d.as_known().and_then(|k| usize::try_from(k).ok()))
        .collect()
}

/// The number of elements of an array of extents `dims` (`None` past `usize`).
pub fn count(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

/// The 0-based column-major position of the element `subs` (1-based, one per
/// subscript; the last spans the dimensions past it) selects in an array of extents
/// `dims`; `None` when it is outside.
pub fn linear_position(dims: &[usize], subs: &[i64]) -> Option<usize> {
    let n = subs.len();
    if n == 0 {
        return None;
    }
    // The extents as the subscripts see them: the last one the product of the rest,
    // and 1 past the rank.
    let mut seen: Vec<usize> = (0..n - 1)
        .map(|k| dims.get(k).copied().unwrap_or(1))
        .collect();
    seen.push(count(dims.get(n - 1..).unwrap_or_default())?);
    let mut position = 0usize;
    let mut stride = 1usize;
    for (s, extent) in subs.iter().zip(&seen) {
        let s = usize::try_from(*s)
            .ok()
            .filter(|s| (1..=*extent).contains(s))?;
        position = position.checked_add((s - 1).checked_mul(stride)?)?;
        stride = stride.checked_mul(*extent)?;
    }
    Some(position)
}

/// The 0-based column-major positions of the elements `subs` select (each a list of
/// 1-based subscripts, the last spanning the dimensions past it), in the order of the
/// result; `None` when one is outside.
pub fn selected(dims: &[usize], subs: &[Vec<i64>]) -> Option<Vec<usize>> {
    let total = subs
        .iter()
        .try_fold(1usize, |n, l| n.checked_mul(l.len()))
        .filter(|&n| n <= MAX_PARTS)?;
    // Column-major: the first subscript varies fastest.
    (0..total)
        .map(|mut i| {
            let tuple: Vec<i64> = subs
                .iter()
                .map(|l| {
                    let s = l[i % l.len()];
                    i /= l.len();
                    s
                })
                .collect();
            linear_position(dims, &tuple)
        })
        .collect()
}

/// The 0-based column-major position of every element of an array of extents `old`
/// within the same array grown to `new` (same rank or more).
pub fn regrown(old: &[usize], new: &[usize]) -> Option<Vec<usize>> {
    let n = count(old).filter(|&n| n <= MAX_PARTS)?;
    count(new).filter(|&n| n <= MAX_PARTS)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let mut rest = i;
        let mut position = 0;
        let mut stride = 1;
        for (k, &n) in new.iter().enumerate() {
            let o = old.get(k).copied().unwrap_or(1);
            let sub = rest % o.max(1);
            rest /= o.max(1);
            if sub >= n {
                return None;
            }
            position += sub * stride;
            stride *= n;
        }
        out.push(position);
    }
    Some(out)
}

/// Whether `shape` is 1×1 for certain.
pub fn is_one_element(shape: &Shape) -> bool {
    known_dims(shape).is_some_and(|d| count(&d) == Some(1))
}

/// The parts of what the builtins that build structs and cells return
/// (`{a, b}`, `[c1; c2]`, `cell(n)`, `struct('f', v)`, `fieldnames(s)`, `num2cell(x)`),
/// and the answers that follow from a struct's fields (`isfield(s, 'f')`).
pub fn builtin_parts(func: &str, args: &[Value], values: &mut [Value]) {
    let Some(result) = values.first_mut() else {
        return;
    };
    match func {
        "cellhorzcat" | "cellvertcat" if result.class == Some("cell") => {
            let each: Vec<Value> = args.iter().map(as_part).collect();
            result.parts = elements_of(&result.shape, each);
        }
        "horzcat" | "vertcat" if result.class == Some("cell") => {
            result.parts = concatenated(func == "vertcat", args, &result.shape);
        }
        "cell" if result.class == Some("cell") => {
            let count = known_dims(&result.shape).and_then(|d| count(&d));
            result.parts = Some(Rc::new(match count {
                Some(n) if n <= MAX_PARTS => Parts::Each(vec![empty_double(); n]),
                _ => Parts::Any(anonymous(&empty_double())),
            }));
        }
        "num2cell" if result.class == Some("cell") => {
            let class = args.first().and_then(|a| a.class);
            result.parts =
                class.map(|c| Rc::new(Parts::Any(Value::of_shape(Some(c), Shape::scalar()))));
        }
        // Of name–value pairs: a struct array the size of the cells among the values
        // (a cell of one element is one value), whatever the rule could say.
        "struct" => {
            if let Some((shape, fields)) = struct_fields(args) {
                *result = Value {
                    parts: Some(Rc::new(fields)),
                    ..Value::of_shape(Some("struct"), shape)
                };
            }
        }
        "fieldnames" => {
            if let Some(names) = args.first().and_then(complete_fields) {
                // The names in the order the fields were made, which the map does not
                // keep: one value for every name, not each name in its place.
                let every = names
                    .keys()
                    .map(|n| anonymous(&char_row(n)))
                    .reduce(|a, b| join_values(&a, &b));
                let n = i64::try_from(names.len()).unwrap_or(i64::MAX);
                *result = Value {
                    parts: Some(Rc::new(every.map_or(Parts::Each(vec![]), Parts::Any))),
                    ..Value::of_shape(Some("cell"), Shape::tuple(vec![Dim::known(n), Dim::one()]))
                };
            }
        }
        "isfield" => {
            let (Some(s), Some(name)) = (args.first(), args.get(1).and_then(|n| n.text.as_ref()))
            else {
                return;
            };
            let Some((map, complete)) = s.parts.as_deref().and_then(fields_of) else {
                return;
            };
            let has = map.contains_key(name);
            if has || complete {
                *result = Value {
                    scalar: Some(Dim::known(i64::from(has))),
                    integral: true,
                    ..Value::of_shape(Some("logical"), Shape::scalar())
                };
            }
        }
        _ => {}
    }
}

/// A char row vector holding `text`.
fn char_row(text: &str) -> Value {
    let n = i64::try_from(text.chars().count()).unwrap_or(i64::MAX);
    Value {
        text: Some(text.to_string()),
        ..Value::of_shape(Some("char"), Shape::tuple(vec![Dim::one(), Dim::known(n)]))
    }
}

/// The fields of a struct that has no others.
fn complete_fields(s: &Value) -> Option<BTreeMap<String, Value>> {
    match fields_of(s.parts.as_deref()?)? {
        (map, true) if s.class == Some("struct") => Some(map),
        _ => None,
    }
}

/// A cell of shape `shape` whose elements, column-major, are `each`: one value per
/// element when there are few, else one for every element.
fn elements_of(shape: &Shape, each: Vec<Value>) -> Option<Rc<Parts>> {
    let count = known_dims(shape).and_then(|d| count(&d));
    if count == Some(each.len()) && each.len() <= MAX_PARTS {
        return Some(Rc::new(Parts::Each(each)));
    }
    let every = each
        .iter()
        .map(anonymous)
        .reduce(|a, b| join_values(&a, &b))?;
    Some(Rc::new(Parts::Any(every)))
}

/// The elements of `[c1, c2, …]` (or `[c1; c2; …]` with `vertical`) of cells whose
/// elements are followed; `None` when one is not.
fn concatenated(vertical: bool, args: &[Value], shape: &Shape) -> Option<Rc<Parts>> {
    let mut blocks: Vec<(Vec<usize>, &[Value])> = Vec::new();
    let mut any: Option<Value> = None;
    for a in args {
        if a.class != Some("cell") {
            return None;
        }
        let p = a.parts.as_deref()?;
        if let Some(v) = every(p) {
            any = Some(match any {
                Some(w) => join_values(&w, &v),
                None => v,
            });
        }
        match (p, known_dims(&a.shape)) {
            // `{}` adds nothing.
            (_, Some(d)) if count(&d) == Some(0) => {}
            (Parts::Each(values), Some(d)) if d.len() == 2 => blocks.push((d, values)),
            _ => blocks.clear(),
        }
    }
    let each = match vertical {
        false => Some(blocks.iter().flat_map(|(_, v)| v.iter().cloned()).collect()),
        true => stacked(&blocks),
    };
    match each {
        Some(each) if blocks.len() == args.iter().filter(|a| !is_empty_cell(a)).count() => {
            elements_of(shape, each)
        }
        _ => any.map(|v| Rc::new(Parts::Any(v))),
    }
}

fn is_empty_cell(a: &Value) -> bool {
    known_dims(&a.shape).is_some_and(|d| count(&d) == Some(0))
}

/// The elements, column-major, of blocks (rows × columns, their elements) stacked
/// vertically; `None` when their columns differ.
fn stacked(blocks: &[(Vec<usize>, &[Value])]) -> Option<Vec<Value>> {
    let columns = blocks.first()?.0[1];
    if blocks.iter().any(|(d, _)| d[1] != columns) {
        return None;
    }
    let mut each = Vec::new();
    for j in 0..columns {
        for (d, values) in blocks {
            each.extend_from_slice(values.get(j * d[0]..(j + 1) * d[0])?);
        }
    }
    Some(each)
}

/// The shape and fields of `struct(name, value, …)`, MATLAB's way: a cell value of
/// other than one element spreads, one element each (all such cells of one size, the
/// struct array's), a cell of one element is its element in every element, and any
/// other value is itself. Every name must be a constant, every value of a known class
/// and every cell's size known; a field of a struct array holds what every element's
/// holds (anonymous). `None` also for cells of different sizes
/// ([`struct_sizes_differ`]).
fn struct_fields(args: &[Value]) -> Option<(Shape, Parts)> {
    if !args.len().is_multiple_of(2) {
        return None;
    }
    let mut size: Option<&Shape> = None;
    let mut map = BTreeMap::new();
    // The fields whose cell gives each element its own value, and those values.
    let mut own: Vec<(String, &[Value])> = Vec::new();
    for pair in args.chunks(2) {
        let name = pair[0].text.clone()?;
        let value = &pair[1];
        let v = match value.class? {
            "cell" => {
                let n = count(&known_dims(&value.shape)?)?;
                if n != 1
                    && size
                        .replace(&value.shape)
                        .is_some_and(|s| *s != value.shape)
                {
                    return None;
                }
                if let (2.., Some(Parts::Each(e))) = (n, value.parts.as_deref()) {
                    own.push((name.clone(), e));
                }
                match (n, value.parts.as_deref()) {
                    (1, Some(Parts::Each(e))) if e.len() == 1 => e[0].clone(),
                    (_, Some(p)) => every(p).unwrap_or_else(Value::unknown),
                    // The elements of an empty cell: none to stand for.
                    (0, None) => empty_double(),
                    (_, None) => Value::unknown(),
                }
            }
            _ => as_part(value),
        };
        map.insert(name, v);
    }
    let shape = size.cloned().unwrap_or_else(Shape::scalar);
    let n = known_dims(&shape).and_then(|d| count(&d)).unwrap_or(0);
    if (2..=MAX_PARTS).contains(&n) {
        // Each element's fields: its own value where a cell gives one, else the one
        // value every element has.
        let element = |i: usize| {
            let mut m = map.clone();
            for (name, values) in &own {
                if let Some(v) = values.get(i) {
                    m.insert(name.clone(), as_part(v));
                }
            }
            m
        };
        return Some((shape, of_elements((0..n).map(element).collect(), true)));
    }
    let mut fields = Parts::Fields {
        map,
        complete: true,
    };
    if !is_one_element(&shape) {
        fields = self::map(&fields, &anonymous);
    }
    Some((shape, fields))
}

/// Whether `struct(name, value, …)` is given cells of other than one element whose
/// sizes differ (`struct('a', {1, 2}, 'b', {1, 2, 3})`): MATLAB's error on every run.
pub fn struct_sizes_differ(func: &str, args: &[Value]) -> bool {
    let mut sizes = args
        .iter()
        .skip(1)
        .step_by(2)
        .filter(|v| v.class == Some("cell"))
        .filter_map(|v| known_dims(&v.shape).filter(|d| count(d) != Some(1)));
    let first = sizes.next();
    let known = args.iter().all(|v| v.class.is_some());
    func == "struct"
        && known
        && args.len().is_multiple_of(2)
        && sizes.any(|d| Some(&d) != first.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn double(dims: &[Dim]) -> Value {
        Value::of_shape(Some("double"), Shape::tuple(dims.to_vec()))
    }

    #[test]
    fn anonymous_values_name_equal_extents_alike_and_forget_the_rest() {
        let n = Dim::sym("n");
        let v = Value {
            scalar: Some(n.clone()),
            ..double(&[n.clone(), n.clone(), Dim::known(3), Dim::sym("m")])
        };
        let a = anonymous(&v);
        let t = a.shape.as_tuple().unwrap();
        assert_eq!(t.dims()[0], t.dims()[1]);
        assert_ne!(t.dims()[0], t.dims()[3]);
        assert_eq!(t.dims()[2], Dim::known(3));
        assert_eq!(a.scalar, None);
        assert_eq!(anonymous(&a), a, "anonymous twice is anonymous once");
    }

    #[test]
    fn each_read_of_an_anonymous_part_is_a_new_unknown() {
        let a = anonymous(&double(&[Dim::sym("n"), Dim::sym("n")]));
        let first = instantiate(&a, &|k| Dim::sym(&format!("r1_{k}")));
        let second = instantiate(&a, &|k| Dim::sym(&format!("r2_{k}")));
        assert_ne!(first.shape, second.shape);
        let t = first.shape.as_tuple().unwrap();
        assert_eq!(t.dims()[0], t.dims()[1], "a square part stays square");
    }

    #[test]
    fn joined_parts_keep_what_both_have() {
        let field = |name: &str, v: Value| (name.to_string(), v);
        let s = |fields: Vec<(String, Value)>, complete| {
            Some(Rc::new(Parts::Fields {
                map: fields.into_iter().collect(),
                complete,
            }))
        };
        let three = double(&[Dim::known(3), Dim::one()]);
        let four = double(&[Dim::known(4), Dim::one()]);
        let a = s(
            vec![field("x", three.clone()), field("y", three.clone())],
            true,
        );
        let b = s(vec![field("x", four)], true);
        let Some(Parts::Fields { map, complete }) = join(&a, &b).as_deref().cloned() else {
            panic!("fields")
        };
        assert!(!complete);
        assert_eq!(map.keys().collect::<Vec<_>>(), ["x"]);
        let x = map["x"].shape.as_tuple().unwrap().dims().to_vec();
        assert!(placeholder_index(&x[0]).is_some());
        assert_eq!(x[1], Dim::one());
        // Different lengths: one value for every element.
        let c = Some(Rc::new(Parts::Each(vec![three.clone()])));
        let d = Some(Rc::new(Parts::Each(vec![three.clone(), three.clone()])));
        assert_eq!(join(&c, &d).as_deref(), Some(&Parts::Any(three)));
        assert_eq!(join(&c, &None), None);
    }

    #[test]
    fn positions_are_column_major_and_bounded() {
        assert_eq!(linear_position(&[2, 3], &[2, 3]), Some(5));
        assert_eq!(linear_position(&[2, 3], &[5]), Some(4));
        assert_eq!(linear_position(&[2, 3], &[7]), None);
        assert_eq!(linear_position(&[2, 3], &[1, 4]), None);
        assert_eq!(linear_position(&[2, 3, 2], &[2, 6]), Some(11));
        assert_eq!(linear_position(&[1, 2], &[1, 2, 1]), Some(1));
        assert_eq!(linear_position(&[1, 2], &[1, 2, 2]), None);
        // c(1, :) of a 2×2, c([2 1], 2), c(:, [3 1]) out of a 2×2.
        assert_eq!(selected(&[2, 2], &[vec![1], vec![1, 2]]), Some(vec![0, 2]));
        assert_eq!(selected(&[2, 2], &[vec![2, 1], vec![2]]), Some(vec![3, 2]));
        assert_eq!(
            selected(&[2, 2], &[vec![1, 2], vec![1, 2]]),
            Some(vec![0, 1, 2, 3])
        );
        assert_eq!(selected(&[2, 2], &[vec![1], vec![3]]), None);
        // A 2×2 grown to 3×2: (1,2) moves from 2 to 3.
        assert_eq!(regrown(&[2, 2], &[3, 2]), Some(vec![0, 1, 3, 4]));
        assert_eq!(regrown(&[1, 2], &[1, 3]), Some(vec![0, 1]));
        assert_eq!(regrown(&[0, 0], &[1, 1]), Some(vec![]));
    }

    #[test]
    fn struct_spreads_cells_of_one_size_into_elements() {
        let one = double(&[Dim::one(), Dim::one()]);
        let cell = |n: usize| Value {
            parts: Some(Rc::new(Parts::Each(vec![one.clone(); n]))),
            ..Value::of_shape(
                Some("cell"),
                Shape::tuple(vec![Dim::one(), Dim::known(n as i64)]),
            )
        };
        let args = [char_row("a"), cell(3), char_row("b"), cell(1)];
        let (shape, fields) = struct_fields(&args).expect("a struct array");
        assert_eq!(shape, Shape::tuple(vec![Dim::one(), Dim::known(3)]));
        let Parts::Elements { each, .. } = &fields else {
            panic!("each element's fields")
        };
        assert_eq!(each.len(), 3);
        let (map, complete) = fields_of(&fields).expect("fields");
        assert!(complete);
        assert_eq!(map["a"].shape, Shape::scalar());
        assert_eq!(map["b"].shape, Shape::scalar());
        assert!(!struct_sizes_differ("struct", &args));
        let mismatched = [char_row("a"), cell(2), char_row("b"), cell(3)];
        assert!(struct_sizes_differ("struct", &mismatched));
        assert_eq!(struct_fields(&mismatched), None);
    }

    #[test]
    fn parts_nest_at_most_max_depth() {
        let mut v = double(&[Dim::one(), Dim::one()]);
        for _ in 0..6 {
            v = as_part(&Value {
                parts: Some(Rc::new(Parts::Each(vec![v]))),
                ..Value::of_shape(Some("cell"), Shape::scalar())
            });
        }
        assert_eq!(depth(&v), MAX_DEPTH - 1);
    }
}

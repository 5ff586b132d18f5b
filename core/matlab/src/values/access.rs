//! Reads and writes of parts (issue #22 item 4): `s.f`, `s.f = v`, `c{k}`,
//! `c{k} = v`, and `c(k)` of a cell, following [`parts`]. What is not known of a part
//! (its field or element not followed, its subscript not a constant scalar) reads as
//! an unknown value, as before parts were followed.

use super::parts::{self, is_one_element, Parts, MAX_PARTS};
use super::results::Effect;
use super::state::ValueAnalysis;
use super::{bind_unknown, value_of, Env, Value};
use crate::shape::{Outcome, Rule, RuleInfo, Shape};
use crate::tame::{Field, Index, StmtId, Var};
use shapex_dims::{Constraint, Dim, Truth};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The field `field` names: its name, or the constant text of the variable `s.(v)`
/// reads.
fn field_name(env: &Env, field: &Field) -> Option<String> {
    match field {
        Field::Static(name) => Some(name.clone()),
        Field::Dynamic(v) => env.get(v)?.text.clone(),
    }
}

/// A subscript of a part: a constant (1-based), or a scalar whose value is not known;
/// `None` for anything that may select other than one element (`:`, a vector, a
/// logical or char subscript, a value of unknown class).
fn scalar_subscript(env: &Env, index: &Index) -> Option<Option<i64>> {
    let Index::Var(v) = index else { return None };
    let v = env.get(v)?;
    let numeric = v.class.is_some_and(|c| c != "logical" && c != "char");
    if !numeric || !is_one_element(&v.shape) {
        return None;
    }
    Some(v.scalar.as_ref().and_then(Dim::as_known))
}

impl ValueAnalysis<'_> {
    /// Whether the function being analysed is nested, sharing its parent's workspace:
    /// a variable it has not assigned may hold anything.
    pub(super) fn shares_workspace(&self) -> bool {
        self.template
            .borrow()
            .as_ref()
            .is_some_and(|f| f.kind == crate::tame::FunctionKind::Nested)
    }

    /// Whether a variable the function being analysed has not assigned is undefined
    /// for certain: not in a nested function (its parent's workspace) nor a script
    /// (its caller's, which may hold the variable already).
    fn owns_workspace(&self) -> bool {
        self.template.borrow().as_ref().is_some_and(|f| {
            !matches!(
                f.kind,
                crate::tame::FunctionKind::Nested | crate::tame::FunctionKind::Script
            )
        })
    }

    /// Binds `target` to the part `v` read at `id`, its anonymous extents fresh
    /// symbols of this statement named after `base`.
    fn read_part(&self, id: StmtId, env: &mut Env, base: &Var, target: &Var, v: &Value) {
        let stem = if self.is_temp(base) {
            "t~e".to_string()
        } else {
            format!("{base}~e")
        };
        let v = parts::instantiate(v, &|k| self.symbols.mint(&stem, k, id, false));
        self.bind(id, env, std::slice::from_ref(target), vec![v], &[]);
    }

    /// `[targets] = base.field`: the field's value where it is followed; `[]` for a
    /// part read only to assign into it that does not exist yet (MATLAB creates it).
    pub(super) fn dot_get(
        &self,
        id: StmtId,
        env: &mut Env,
        effect: &mut Effect,
        targets: &[Var],
        (base, field, update): (&Var, &Field, bool),
    ) {
        if !update && self.lacks_field(env, base, field) {
            effect.op = "field".to_string();
            effect.operands = env.get(base).map(|b| b.shape.clone()).into_iter().collect();
            effect.outcomes = vec![Outcome::illegal(
                Constraint::False,
                RuleInfo::extension(Rule::Field),
            )];
            return bind_unknown(env, targets);
        }
        if let ([target], false) = (targets, update) {
            if let Some(values) = self.field_list(env, base, field, target) {
                return self.bind_list(id, env, base, target, &values);
            }
        }
        let found = (|| {
            let name = field_name(env, field)?;
            // An undefined base is not read as `[]`: the code may read it before
            // (`if ~isempty(p.f), p.f(end, end+1) = 0; end` fails at the `if`).
            let b = env.get(base)?;
            if update && b.shape == Shape::empty() && b.class != Some("struct") {
                return Some(parts::empty_double());
            }
            if b.class != Some("struct") || !is_one_element(&b.shape) {
                return None;
            }
            let Parts::Fields { map, complete } = b.parts.as_deref()? else {
                return None;
            };
            match map.get(&name) {
                Some(v) => Some(v.clone()),
                None if update && *complete => Some(parts::empty_double()),
                None => None,
            }
        })();
        match (targets, found) {
            ([target], Some(v)) => {
                self.read_part(id, env, base, target, &v);
                // `found` is a field of a 1×1 struct: one value.
                if !update {
                    self.mark_one(env, target);
                }
            }
            _ => bind_unknown(env, targets),
        }
    }

    /// `base.f` of a struct array of a few elements, read into a temporary a call
    /// spreads (`[s.f]`, `{s.f}`, `g(s.f)`): a comma-separated list of the field's
    /// value in every element (one value standing for all, so each read afresh).
    fn field_list(&self, env: &Env, base: &Var, field: &Field, target: &Var) -> Option<Vec<Value>> {
        if !self.spread.borrow().contains(target) {
            return None;
        }
        let b = env.get(base)?;
        let name = field_name(env, field)?;
        if let Some(each) = elements(b) {
            return each.iter().map(|m| m.get(&name).cloned()).collect();
        }
        let (map, _) = parts::fields_of(b.parts.as_deref()?)?;
        let n = parts::count(&parts::known_dims(&b.shape)?)?;
        let v = map.get(&name)?;
        (b.class == Some("struct") && (2..=MAX_PARTS).contains(&n)).then(|| vec![v.clone(); n])
    }

    /// Binds `target`, a temporary a call spreads, to the comma-separated list
    /// `values` read out of `base`: each value's anonymous extents fresh, apart from
    /// the others'.
    fn bind_list(&self, id: StmtId, env: &mut Env, base: &Var, target: &Var, values: &[Value]) {
        let values = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let stem = format!("{}~e{i}", if self.is_temp(base) { "t" } else { base });
                parts::instantiate(v, &|k| self.symbols.mint(&stem, k, id, false))
            })
            .collect();
        let list = Value {
            parts: Some(Rc::new(Parts::List(values))),
            ..Value::unknown()
        };
        env.vars.insert(target.clone(), list);
    }

    /// `base.field` reads a field that `base`, a struct (array) of at least one
    /// element whose every field is known (`Parts::Fields::complete`), lacks: it fails
    /// on every run. (Of an empty struct array it is left alone.)
    fn lacks_field(&self, env: &Env, base: &Var, field: &Field) -> bool {
        (|| {
            let name = field_name(env, field)?;
            let b = env.get(base)?;
            let n = parts::count(&parts::known_dims(&b.shape)?)?;
            if b.class != Some("struct") || n == 0 {
                return None;
            }
            match parts::fields_of(b.parts.as_deref()?)? {
                (map, true) => Some(!map.contains_key(&name)),
                _ => None,
            }
        })()
        .unwrap_or(false)
    }

    /// `target`, a temporary a call may spread, holds exactly one value (see
    /// [`Value::one`]).
    fn mark_one(&self, env: &mut Env, target: &Var) {
        if self.spread.borrow().contains(target) {
            if let Some(v) = env.vars.get_mut(target) {
                v.one = true;
            }
        }
    }

    /// The fields `base` has after `base.field = rhs`, given what it held before
    /// (the transfer's `dot_set` has made its class and shape).
    pub(super) fn dot_set_parts(
        &self,
        env: &mut Env,
        before: Option<&Value>,
        base: &Var,
        field: &Field,
        rhs: &Var,
    ) {
        let fields = (|| {
            let after = env.get(base)?;
            if after.class != Some("struct") || !is_one_element(&after.shape) {
                return None;
            }
            let (mut map, complete) = match before {
                None => (BTreeMap::new(), self.owns_workspace()),
                // An empty struct array whose fields are known (or a new element of
                // one, read to assign into): the new element's other fields are `[]`.
                Some(b)
                    if b.shape == Shape::empty()
                        && matches!(b.parts.as_deref(), Some(Parts::Fields { .. })) =>
                {
                    let Some(Parts::Fields { map, complete }) = b.parts.as_deref() else {
                        return None;
                    };
                    let empty = |(k, _): (&String, &Value)| (k.clone(), parts::empty_double());
                    (map.iter().map(empty).collect(), *complete)
                }
                // An empty struct may have fields; an empty array of another class
                // has none.
                Some(b) if b.shape == Shape::empty() => (
                    BTreeMap::new(),
                    b.class.is_some() && b.class != Some("struct"),
                ),
                Some(b) => match b.parts.as_deref() {
                    Some(Parts::Fields { map, complete }) => (map.clone(), *complete),
                    _ => (BTreeMap::new(), false),
                },
            };
            let name = field_name(env, field)?;
            if map.len() >= MAX_PARTS && !map.contains_key(&name) {
                return None;
            }
            map.insert(name, parts::as_part(&value_of(env, rhs)));
            Some(Parts::Fields { map, complete })
        })();
        if let Some(v) = env.vars.get_mut(base) {
            v.parts = fields.map(Rc::new);
        }
    }

    /// `c{indices}`, one element: its value where it is followed (`None` otherwise).
    pub(super) fn element(
        &self,
        env: &Env,
        cell: &Var,
        indices: &[Index],
        update: bool,
    ) -> Option<Value> {
        let c = env.get(cell)?;
        if c.class != Some("cell") {
            return None;
        }
        let p = c.parts.as_deref()?;
        let subs: Vec<Option<i64>> = indices
            .iter()
            .map(|i| scalar_subscript(env, i))
            .collect::<Option<_>>()?;
        let known: Option<Vec<i64>> = subs.iter().copied().collect();
        match (p, known, parts::known_dims(&c.shape)) {
            (Parts::Each(values), Some(subs), Some(dims)) => {
                match parts::linear_position(&dims, &subs) {
                    Some(k) => values.get(k).cloned(),
                    // Outside: a read fails, and an update creates it.
                    None if update => Some(parts::empty_double()),
                    None => None,
                }
            }
            // An element read to assign into may be a new one.
            _ if update => None,
            _ => parts::every(p),
        }
    }

    /// `[targets] = c{indices}`.
    pub(super) fn cell_get(
        &self,
        id: StmtId,
        env: &mut Env,
        targets: &[Var],
        cell: &Var,
        indices: &[Index],
        update: bool,
    ) {
        // Only a temporary a call spreads holds a list (`x = c{:}` is not one).
        let spread = |t: &Var| self.spread.borrow().contains(t);
        if let ([target], false) = (targets, update) {
            let listed = self.list(env, cell, indices).filter(|_| spread(target));
            if let Some([value]) = listed.as_deref() {
                // One element (`c{:}` of a 1×1 cell): a list of one.
                self.read_part(id, env, cell, target, value);
                self.mark_one(env, target);
                return;
            }
            if let Some(values) = listed {
                return self.bind_list(id, env, cell, target, &values);
            }
        }
        let one = self.selects_one(env, cell, indices);
        match (targets, self.element(env, cell, indices, update)) {
            ([target], Some(v)) => {
                self.read_part(id, env, cell, target, &v);
                if one && !update {
                    self.mark_one(env, target);
                }
            }
            _ => bind_unknown(env, targets),
        }
    }

    /// `c{indices}` selects exactly one element (or fails): each subscript a scalar
    /// (a logical one may select none), or constant subscripts of a cell of known size
    /// that select one position (`c{:}` of a 1×1 cell).
    fn selects_one(&self, env: &Env, cell: &Var, indices: &[Index]) -> bool {
        let scalars = indices.iter().all(|i| match i {
            Index::Var(k) => env.get(k).is_some_and(|k| {
                k.shape == Shape::scalar() && k.class.is_some_and(|c| c != "logical")
            }),
            Index::Colon => false,
        });
        scalars
            || (|| {
                let dims = parts::known_dims(&env.get(cell)?.shape)?;
                let subs = constant_subscripts(env, &dims, indices)?;
                Some(parts::selected(&dims, &subs)?.len() == 1)
            })()
            .unwrap_or(false)
    }

    /// The elements `c{indices}` selects (`c{:}` of a cell whose elements are
    /// followed, its subscripts constants): a comma-separated list.
    fn list(&self, env: &Env, cell: &Var, indices: &[Index]) -> Option<Vec<Value>> {
        let c = env.get(cell)?;
        let (Some("cell"), Some(Parts::Each(values))) = (c.class, c.parts.as_deref()) else {
            return None;
        };
        let dims = parts::known_dims(&c.shape)?;
        let subs = constant_subscripts(env, &dims, indices)?;
        let positions = parts::selected(&dims, &subs)?;
        positions.iter().map(|&k| values.get(k).cloned()).collect()
    }

    /// The elements `cell` has after `cell{indices} = rhs`, given what it held before
    /// (`array_set` has made its shape).
    pub(super) fn cell_set_parts(
        &self,
        env: &mut Env,
        before: Option<&Value>,
        cell: &Var,
        indices: &[Index],
        rhs: &Var,
    ) {
        let elements = (|| {
            let after = env.get(cell)?;
            if after.class != Some("cell") {
                return None;
            }
            let (old, old_shape): (Parts, Shape) = match before {
                None if !self.owns_workspace() => return None,
                None => (Parts::Each(vec![]), Shape::empty()),
                Some(b) if b.shape == Shape::empty() && b.class != Some("cell") => {
                    (Parts::Each(vec![]), Shape::empty())
                }
                Some(b) if b.class == Some("cell") => {
                    ((*b.parts.clone()?).clone(), b.shape.clone())
                }
                Some(_) => return None,
            };
            let value = parts::as_part(&value_of(env, rhs));
            let subs: Option<Vec<Option<i64>>> =
                indices.iter().map(|i| scalar_subscript(env, i)).collect();
            let subs = subs?;
            let known: Option<Vec<i64>> = subs.iter().copied().collect();
            let dims = (
                parts::known_dims(&old_shape),
                parts::known_dims(&after.shape),
            );
            if let (Parts::Each(values), Some(subs), (Some(old_dims), Some(new_dims))) =
                (&old, &known, dims)
            {
                let count = parts::count(&new_dims).unwrap_or(usize::MAX);
                if count <= MAX_PARTS {
                    let mut each = vec![parts::empty_double(); count];
                    for (v, k) in values.iter().zip(parts::regrown(&old_dims, &new_dims)?) {
                        each[k] = v.clone();
                    }
                    each[parts::linear_position(&new_dims, subs)?] = value;
                    return Some(Parts::Each(each));
                }
            }
            // One value for every element: the old ones', the new one's, and `[]` for
            // the elements a growth past the end may create between them.
            let mut every = parts::anonymous(&value);
            if let Some(old_every) = parts::every(&old) {
                every = parts::join_values(&old_every, &every);
            }
            if !grows_by_one_at_most(&old_shape, &after.shape, &subs)
                && !appends(env, &old_shape, indices)
            {
                every = parts::join_values(&every, &parts::anonymous(&parts::empty_double()));
            }
            Some(Parts::Any(every))
        })();
        if let Some(v) = env.vars.get_mut(cell) {
            v.parts = elements.map(Rc::new);
        }
    }

    /// The fields of `s(k)` read only to assign into it (`s(k).f = v` reads it, sets
    /// its field, and writes it back), given whether `k` is within `s` (`within`,
    /// from the index's check): `s`'s every element's fields, or a new element's
    /// (every field `[]`), or either. An undefined `s` (`base` `None`) is a new struct
    /// array, which has only the fields assigned when the workspace is the function's.
    pub(super) fn element_to_update(
        &self,
        env: &Env,
        base: Option<&Value>,
        indices: &[Index],
        within: Truth,
    ) -> Option<Rc<Parts>> {
        let fields =
            |map: BTreeMap<String, Value>, complete| Some(Rc::new(Parts::Fields { map, complete }));
        let b = match base {
            None => return fields(BTreeMap::new(), self.owns_workspace()),
            Some(b) if b.shape == Shape::empty() && b.class.is_some_and(|c| c != "struct") => {
                return fields(BTreeMap::new(), true)
            }
            Some(b) if b.class == Some("struct") => b,
            Some(_) => return None,
        };
        if let (Some(m), Truth::Proven) = (one_element(env, b, indices), within) {
            return Some(Rc::new(Parts::Fields {
                map: m.clone(),
                complete: parts::fields_of(b.parts.as_deref()?)?.1,
            }));
        }
        let (map, complete) = parts::fields_of(b.parts.as_deref()?)?;
        let new = parts::anonymous(&parts::empty_double());
        let each =
            |f: &dyn Fn(&Value) -> Value| map.iter().map(|(k, v)| (k.clone(), f(v))).collect();
        match within {
            Truth::Proven => fields(map.clone(), complete),
            Truth::Refuted => fields(each(&|_| parts::empty_double()), complete),
            Truth::Unknown => fields(
                each(&|v| parts::join_values(&parts::anonymous(v), &new)),
                complete,
            ),
        }
    }

    /// The fields `array`, a struct array, has after `array(indices) = rhs` (`rhs` a
    /// struct; `s(k).f = v` writes `s(k)` back so), given what it held before
    /// (`array_set` has made its class and shape): each element's when they are
    /// followed and the subscripts are constants ([`set_element`]; one element: the
    /// new one's, exactly); else what every element's field holds — the old
    /// elements', the new one's, and `[]` for elements a growth creates between them
    /// or for a field one side lacks (MATLAB adds a field to every element).
    pub(super) fn struct_set_parts(
        &self,
        env: &mut Env,
        before: Option<&Value>,
        array: &Var,
        indices: &[Index],
        rhs: &Var,
    ) {
        let fields = (|| {
            let after = env.get(array)?;
            let rhs = value_of(env, rhs);
            if after.class == Some("struct") && rhs.class == Some("double") {
                // `s(k) = []` deletes elements: the others' fields are as they were,
                // their places not known.
                let kept = before.filter(|b| b.class == Some("struct"));
                let (map, complete) = parts::fields_of(kept?.parts.as_deref()?)?;
                return Some(Parts::Fields { map, complete });
            }
            let (Some("struct"), Some("struct")) = (after.class, rhs.class) else {
                return None;
            };
            let Parts::Fields {
                map: new,
                complete: new_complete,
            } = rhs.parts.as_deref()?
            else {
                return None;
            };
            let (old, old_complete, old_shape) = match before {
                None if !self.owns_workspace() => return None,
                None => (BTreeMap::new(), true, Shape::empty()),
                Some(b) if b.shape == Shape::empty() && b.class != Some("struct") => {
                    (BTreeMap::new(), b.class.is_some(), Shape::empty())
                }
                Some(b) if b.class == Some("struct") => {
                    let (map, complete) = parts::fields_of(b.parts.as_deref()?)?;
                    (map, complete, b.shape.clone())
                }
                Some(_) => return None,
            };
            let complete = *new_complete && old_complete;
            let old_count = parts::known_dims(&old_shape).and_then(|d| parts::count(&d));
            let old_each = match before {
                Some(b) if old_count == Some(1) => match b.parts.as_deref() {
                    Some(Parts::Fields { map, .. }) => Some(vec![map.clone()]),
                    _ => None,
                },
                Some(b) if old_count != Some(0) => elements(b).cloned(),
                _ => Some(vec![]),
            };
            let side = Side {
                old: (&old, old_complete),
                new: (new, *new_complete),
            };
            if let Some(p) =
                old_each.and_then(|e| set_element(env, e, &old_shape, after, indices, side))
            {
                return Some(p);
            }
            if is_one_element(&after.shape) && old_count.is_some_and(|n| n <= 1) {
                // The new element is the whole array: its fields exactly, and `[]` for
                // the old element's others when it has no others (MATLAB adds them).
                let mut map = new.clone();
                let others = old.keys().filter(|k| !new.contains_key(*k));
                for k in others.filter(|_| *new_complete) {
                    map.insert(k.clone(), parts::empty_double());
                }
                return Some(Parts::Fields { map, complete });
            }
            let subs: Option<Vec<Option<i64>>> =
                indices.iter().map(|i| scalar_subscript(env, i)).collect();
            let gaps = !subs.is_some_and(|s| grows_by_one_at_most(&old_shape, &after.shape, &s))
                && !appends(env, &old_shape, indices);
            let empty = parts::anonymous(&parts::empty_double());
            let mut map = BTreeMap::new();
            for name in old.keys().chain(new.keys()) {
                // A field a side lacks is `[]` there when that side's fields are all known.
                let side = |m: &BTreeMap<String, Value>, known: bool| match m.get(name) {
                    Some(v) => Some(parts::anonymous(v)),
                    None => known.then(|| empty.clone()),
                };
                let Some(mut every) = side(new, *new_complete) else {
                    continue;
                };
                if old_count != Some(0) {
                    let Some(v) = side(&old, old_complete) else {
                        continue;
                    };
                    every = parts::join_values(&v, &every);
                }
                if gaps {
                    every = parts::join_values(&every, &empty);
                }
                map.insert(name.clone(), every);
            }
            Some(Parts::Fields { map, complete })
        })();
        if let Some(v) = env.vars.get_mut(array) {
            if v.class == Some("struct") {
                v.parts = fields.map(Rc::new);
            }
        }
    }

    /// The parts of `c(indices)` (a cell) or `s(indices)` (a struct) of `base`.
    pub(super) fn selected_parts(
        &self,
        env: &Env,
        base: &Value,
        indices: &[Index],
    ) -> Option<Rc<Parts>> {
        let p = base.parts.as_deref()?;
        match (base.class, p) {
            // Of a struct array, what every element's field holds: what the
            // selected elements' hold.
            (Some("struct"), Parts::Fields { .. }) => base.parts.clone(),
            (Some("struct"), Parts::Elements { complete, .. }) => {
                let picked = elements(base).and_then(|each| {
                    let dims = parts::known_dims(&base.shape)?;
                    let subs = constant_subscripts(env, &dims, indices)?;
                    let ks = parts::selected(&dims, &subs)?;
                    ks.iter()
                        .map(|&k| each.get(k).cloned())
                        .collect::<Option<Vec<_>>>()
                });
                let p = match picked {
                    Some(each) if !each.is_empty() => parts::of_elements(each, *complete),
                    _ => {
                        let (map, complete) = parts::fields_of(p)?;
                        Parts::Fields { map, complete }
                    }
                };
                Some(Rc::new(p))
            }
            (Some("cell"), Parts::Each(values)) => {
                let dims = parts::known_dims(&base.shape)?;
                let positions = constant_subscripts(env, &dims, indices)
                    .and_then(|subs| parts::selected(&dims, &subs));
                match positions {
                    Some(ks) => Some(Rc::new(Parts::Each(
                        ks.iter()
                            .map(|&k| values.get(k).cloned())
                            .collect::<Option<_>>()?,
                    ))),
                    None => parts::every(p).map(|v| Rc::new(Parts::Any(v))),
                }
            }
            (Some("cell"), Parts::Any(_)) => base.parts.clone(),
            _ => None,
        }
    }
}

/// The fields of the one element `s(indices)` selects, of a struct array whose
/// elements' fields are followed one by one, its subscripts constants.
fn one_element<'v>(
    env: &Env,
    b: &'v Value,
    indices: &[Index],
) -> Option<&'v BTreeMap<String, Value>> {
    let each = elements(b)?;
    let dims = parts::known_dims(&b.shape)?;
    let subs: Option<Vec<i64>> = indices.iter().map(|i| scalar_subscript(env, i)?).collect();
    each.get(parts::linear_position(&dims, &subs?)?)
}

/// The fields before an assignment of a struct into a struct array, and the fields
/// of the struct assigned, each with whether it has no others.
struct Side<'a> {
    old: (&'a BTreeMap<String, Value>, bool),
    new: (&'a BTreeMap<String, Value>, bool),
}

/// The elements' fields after `s(indices) = t` into a struct array whose elements'
/// fields are `old_each` (shape `old_shape`; `after` its value now), each subscript a
/// constant and both sizes known and small: `t`'s fields at its position, the old
/// elements' where they moved, and `[]` in every field of an element a growth
/// creates; a name every element then has (`[]` where a side whose fields are all
/// known lacks it).
fn set_element(
    env: &Env,
    old_each: Vec<BTreeMap<String, Value>>,
    old_shape: &Shape,
    after: &Value,
    indices: &[Index],
    side: Side,
) -> Option<Parts> {
    let subs: Vec<i64> = indices
        .iter()
        .map(|i| scalar_subscript(env, i)?)
        .collect::<Option<_>>()?;
    let (old_dims, new_dims) = (
        parts::known_dims(old_shape)?,
        parts::known_dims(&after.shape)?,
    );
    let count = parts::count(&new_dims).filter(|&n| n <= MAX_PARTS)?;
    // Each element's fields and whether they are all known; `None` for a new one.
    let mut each: Vec<Option<(&BTreeMap<String, Value>, bool)>> = vec![None; count];
    for (m, k) in old_each.iter().zip(parts::regrown(&old_dims, &new_dims)?) {
        *each.get_mut(k)? = Some((m, side.old.1));
    }
    *each.get_mut(parts::linear_position(&new_dims, &subs)?)? = Some(side.new);
    let names: std::collections::BTreeSet<&String> =
        side.old.0.keys().chain(side.new.0.keys()).collect();
    let known = |name: &String| {
        each.iter()
            .all(|e| e.is_none_or(|(m, complete)| complete || m.contains_key(name)))
    };
    let names: Vec<&String> = names.into_iter().filter(|n| known(n)).collect();
    let fields = |e: &Option<(&BTreeMap<String, Value>, bool)>| -> BTreeMap<String, Value> {
        let value = |n: &String| e.and_then(|(m, _)| m.get(n).cloned());
        names
            .iter()
            .map(|n| ((*n).clone(), value(n).unwrap_or_else(parts::empty_double)))
            .collect()
    };
    Some(parts::of_elements(
        each.iter().map(fields).collect(),
        side.old.1 && side.new.1,
    ))
}

/// The fields of each element of `b`, a struct array of a few elements whose
/// elements' fields are followed one by one ([`Parts::Elements`]), column-major.
fn elements(b: &Value) -> Option<&Vec<BTreeMap<String, Value>>> {
    let Some(Parts::Elements { each, .. }) = b.parts.as_deref() else {
        return None;
    };
    let n = parts::count(&parts::known_dims(&b.shape)?)?;
    (b.class == Some("struct") && n == each.len()).then_some(each)
}

/// Every subscript's constant values (1-based; `:` all of its dimension, the last
/// spanning the dimensions past it), if each is a constant, a vector of constants, or
/// `:`.
fn constant_subscripts(env: &Env, dims: &[usize], indices: &[Index]) -> Option<Vec<Vec<i64>>> {
    let n = indices.len();
    indices
        .iter()
        .enumerate()
        .map(|(k, i)| match i {
            Index::Colon => {
                let extent = if k + 1 == n {
                    parts::count(dims.get(k..).unwrap_or_default())?
                } else {
                    dims.get(k).copied().unwrap_or(1)
                };
                (extent <= MAX_PARTS).then(|| (1..=extent as i64).collect())
            }
            Index::Var(v) => {
                let v = env.get(v)?;
                if !v.class.is_some_and(|c| c != "logical" && c != "char") {
                    return None;
                }
                if let Some(k) = v.scalar.as_ref().and_then(Dim::as_known) {
                    return is_one_element(&v.shape).then(|| vec![k]);
                }
                v.elems.as_ref()?.iter().map(Dim::as_known).collect()
            }
        })
        .collect()
}

/// Whether `c{k} = v` appends one element: `k` is `numel(c) + 1` (`c{end + 1} = v`).
fn appends(env: &Env, old: &Shape, indices: &[Index]) -> bool {
    let [Index::Var(k)] = indices else {
        return false;
    };
    let (Some(k), Some(t)) = (env.get(k).and_then(|v| v.scalar.clone()), old.as_tuple()) else {
        return false;
    };
    k == t.numel().add(&Dim::one())
}

/// Whether `c{subs} = v` leaves no element between the old ones and the new one that
/// neither set: the shape did not change, or one subscript one past the old count.
fn grows_by_one_at_most(old: &Shape, new: &Shape, subs: &[Option<i64>]) -> bool {
    if old == new {
        return true;
    }
    let (Some(old), [Some(k)]) = (parts::known_dims(old), subs) else {
        return false;
    };
    let n = parts::count(&old).unwrap_or(usize::MAX);
    usize::try_from(*k).is_ok_and(|k| k <= n.saturating_add(1))
}

//! VEC's types (spec 003 §2.1, the reconstruction) as trees: what schemes store, what
//! the analysis reports and prints. The strata of §2.1 are predicates here, not
//! separate types, because one type variable may range over any of them; which one is
//! its [`Kind`].

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// What a type variable may stand for. The order is by restriction: a `Theta`
/// variable is also `Data`, a `Data` one also `Any` (θ ⊂ τ ⊂ σ in spec §2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Kind {
    /// Any phrase type σ.
    Any,
    /// An arrow-free (ground) data type τ: what a vector may hold.
    Data,
    /// A ground, data-free type θ ::= un | sz | θ × θ: what `eq` may compare.
    Theta,
}

impl Kind {
    /// The stratum's name, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Any => "any type",
            Kind::Data => "arrow-free data",
            Kind::Theta => "a type built from `un`, `sz` and `*`",
        }
    }
}

/// A type: δ (`nat`, `bool`), `un`, `sz`, products, `vec τ`, arrows, and variables
/// (indices into their scheme's [`Scheme::kinds`]). `mat τ` is `vec (vec τ)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Ty {
    Nat,
    Bool,
    Un,
    Sz,
    Var(u32),
    Vec(Box<Ty>),
    Product(Box<Ty>, Box<Ty>),
    Arrow(Box<Ty>, Box<Ty>),
}

impl Ty {
    pub fn vec(t: Ty) -> Ty {
        Ty::Vec(Box::new(t))
    }
    pub fn product(a: Ty, b: Ty) -> Ty {
        Ty::Product(Box::new(a), Box::new(b))
    }
    pub fn arrow(a: Ty, b: Ty) -> Ty {
        Ty::Arrow(Box::new(a), Box::new(b))
    }

    /// A datum type δ (spec §2.1).
    pub fn is_datum(&self) -> bool {
        matches!(self, Ty::Nat | Ty::Bool)
    }

    /// Whether the type belongs to the stratum `kind`, a variable by its own kind
    /// (`kinds`, indexed by the variable): `Data` is "ground" (no arrow), `Theta` is θ.
    pub fn is_in(&self, kind: Kind, kinds: &[Kind]) -> bool {
        match (kind, self) {
            (Kind::Any, _) => true,
            (_, Ty::Var(v)) => kinds.get(*v as usize).is_some_and(|k| *k >= kind),
            (_, Ty::Un | Ty::Sz) => true,
            (Kind::Data, Ty::Nat | Ty::Bool) => true,
            (Kind::Data, Ty::Vec(t)) => t.is_in(kind, kinds),
            (_, Ty::Product(a, b)) => a.is_in(kind, kinds) && b.is_in(kind, kinds),
            _ => false,
        }
    }

    /// A phrase type σ: every vector holds arrow-free data (spec §2.1). Every type the
    /// analysis infers is one; the predicate states the invariant.
    pub fn is_phrase(&self, kinds: &[Kind]) -> bool {
        match self {
            Ty::Vec(t) => t.is_in(Kind::Data, kinds),
            Ty::Product(a, b) | Ty::Arrow(a, b) => a.is_phrase(kinds) && b.is_phrase(kinds),
            _ => true,
        }
    }

    /// The number of nodes.
    pub fn size(&self) -> usize {
        match self {
            Ty::Vec(t) => 1 + t.size(),
            Ty::Product(a, b) | Ty::Arrow(a, b) => 1 + a.size() + b.size(),
            _ => 1,
        }
    }
}

/// A type scheme ∀ᾱ. τ: the variables of `ty` are all quantified, each with its kind.
/// A subterm's type (free variables and all) is also shown as a scheme.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scheme {
    pub kinds: Vec<Kind>,
    pub ty: Ty,
}

impl Scheme {
    /// A type without variables.
    pub fn mono(ty: Ty) -> Scheme {
        Scheme {
            kinds: Vec::new(),
            ty,
        }
    }

    /// The same scheme with its variables numbered by first appearance, left to right,
    /// so two schemes equal up to renaming are equal (and print alike).
    pub fn canonical(&self) -> Scheme {
        fn go(t: &Ty, map: &mut HashMap<u32, u32>, old: &[Kind], kinds: &mut Vec<Kind>) -> Ty {
            match t {
                Ty::Var(v) => {
                    let next = map.len() as u32;
                    let n = *map.entry(*v).or_insert_with(|| {
                        kinds.push(old.get(*v as usize).copied().unwrap_or(Kind::Any));
                        next
                    });
                    Ty::Var(n)
                }
                Ty::Vec(a) => Ty::vec(go(a, map, old, kinds)),
                Ty::Product(a, b) => {
                    let a = go(a, map, old, kinds);
                    Ty::product(a, go(b, map, old, kinds))
                }
                Ty::Arrow(a, b) => {
                    let a = go(a, map, old, kinds);
                    Ty::arrow(a, go(b, map, old, kinds))
                }
                other => other.clone(),
            }
        }
        let mut kinds = Vec::new();
        let ty = go(&self.ty, &mut HashMap::new(), &self.kinds, &mut kinds);
        Scheme { kinds, ty }
    }

    /// Whether `specific` is an instance of `self` (a declared type against the
    /// inferred one): `Ok`, or `Err(None)` when the shapes differ, or `Err(Some(k))`
    /// when they match but `specific` lets a variable range wider than stratum `k`,
    /// which the definition needs.
    pub fn generalizes(&self, specific: &Scheme) -> Result<(), Option<Kind>> {
        let mut sub: Vec<Option<&Ty>> = vec![None; self.kinds.len()];
        let mut kind_clash = None;
        if self.matches(&self.ty, &specific.ty, specific, &mut sub, &mut kind_clash) {
            kind_clash.map_or(Ok(()), |k| Err(Some(k)))
        } else {
            Err(None)
        }
    }

    fn matches<'s>(
        &self,
        g: &Ty,
        s: &'s Ty,
        specific: &Scheme,
        sub: &mut Vec<Option<&'s Ty>>,
        kind_clash: &mut Option<Kind>,
    ) -> bool {
        match (g, s) {
            (Ty::Var(v), _) => {
                let v = *v as usize;
                if let Some(bound) = sub.get(v).copied().flatten() {
                    return bound == s;
                }
                let kind = self.kinds.get(v).copied().unwrap_or(Kind::Any);
                if !s.is_in(kind, &specific.kinds) && kind_clash.is_none() {
                    *kind_clash = Some(kind);
                }
                if let Some(slot) = sub.get_mut(v) {
                    *slot = Some(s);
                }
                true
            }
            (Ty::Vec(a), Ty::Vec(b)) => self.matches(a, b, specific, sub, kind_clash),
            (Ty::Product(a, b), Ty::Product(c, d)) | (Ty::Arrow(a, b), Ty::Arrow(c, d)) => {
                self.matches(a, c, specific, sub, kind_clash)
                    && self.matches(b, d, specific, sub, kind_clash)
            }
            _ => g == s && !matches!(s, Ty::Var(_)),
        }
    }
}

/// The type in the grammar's syntax (`vec 'a -> sz`), variables named `'a`, `'b`, …
/// by first appearance, `vec (vec τ)` as `mat τ`.
impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical().to_string_raw())
    }
}

impl Scheme {
    /// The type printed with its variables' own numbers (`Var(1)` is `'b`), for two
    /// types shown side by side with one naming.
    pub fn to_string_raw(&self) -> String {
        let mut out = String::new();
        print(&self.ty, Prec::Arrow, &mut out);
        out
    }
}

/// How loosely a position binds: an arrow's domain needs parentheses around an arrow,
/// a product's left operand around a product, `vec`'s argument around either.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Arrow,
    Product,
    Atom,
}

fn print(t: &Ty, prec: Prec, out: &mut String) {
    let own = match t {
        Ty::Arrow(..) => Prec::Arrow,
        Ty::Product(..) => Prec::Product,
        _ => Prec::Atom,
    };
    let paren = own < prec;
    if paren {
        out.push('(');
    }
    match t {
        Ty::Nat => out.push_str("nat"),
        Ty::Bool => out.push_str("bool"),
        Ty::Un => out.push_str("un"),
        Ty::Sz => out.push_str("sz"),
        Ty::Var(v) => out.push_str(&var_name(*v)),
        Ty::Vec(inner) => match &**inner {
            Ty::Vec(row) => {
                out.push_str("mat ");
                print(row, Prec::Atom, out);
            }
            _ => {
                out.push_str("vec ");
                print(inner, Prec::Atom, out);
            }
        },
        Ty::Product(a, b) => {
            print(a, Prec::Atom, out);
            out.push_str(" * ");
            print(b, Prec::Product, out);
        }
        Ty::Arrow(a, b) => {
            print(a, Prec::Product, out);
            out.push_str(" -> ");
            print(b, Prec::Arrow, out);
        }
    }
    if paren {
        out.push(')');
    }
}

/// `'a` … `'z`, then `'a1`, `'b1`, …
fn var_name(v: u32) -> String {
    let letter = (b'a' + (v % 26) as u8) as char;
    match v / 26 {
        0 => format!("'{letter}"),
        n => format!("'{letter}{n}"),
    }
}

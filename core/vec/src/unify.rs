//! The types being solved: an arena of nodes whose variables are bound by
//! unification (union–find). Nodes are shared, so a type is a DAG and every walk over
//! one keeps a visited set or a budget: a program can make a type whose tree is
//! exponentially larger than its DAG (`\x. (x, x)` applied to itself's results).

use crate::types::{Kind, Scheme, Ty};
use std::collections::{HashMap, HashSet};

/// A node's index in the [`Arena`].
pub(crate) type Id = usize;

/// Past this many tree nodes a type is not turned into a [`Ty`] (a scheme, a hover
/// type): see [`Arena::scheme`].
pub(crate) const TREE_LIMIT: usize = 2000;

#[derive(Clone, Debug)]
enum Node {
    Var { bound: Option<Id>, kind: Kind },
    Nat,
    Bool,
    Un,
    Sz,
    Vec(Id),
    Product(Id, Id),
    Arrow(Id, Id),
}

/// Why two types do not unify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Clash {
    /// Different constructors.
    Mismatch,
    /// A variable would contain itself (the occurs check).
    Infinite,
    /// A variable of this kind was bound to a type outside its stratum. The binding is
    /// made all the same, so the same mistake is not reported again further on.
    Kind(Kind),
}

/// A node's head, as [`Arena::view`] shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum View {
    Var(Kind),
    Nat,
    Bool,
    Un,
    Sz,
    Vec(Id),
    Product(Id, Id),
    Arrow(Id, Id),
}

#[derive(Default)]
pub(crate) struct Arena {
    nodes: Vec<Node>,
}

impl Arena {
    fn push(&mut self, node: Node) -> Id {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    pub(crate) fn fresh(&mut self, kind: Kind) -> Id {
        self.push(Node::Var { bound: None, kind })
    }
    pub(crate) fn nat(&mut self) -> Id {
        self.push(Node::Nat)
    }
    pub(crate) fn bool(&mut self) -> Id {
        self.push(Node::Bool)
    }
    pub(crate) fn un(&mut self) -> Id {
        self.push(Node::Un)
    }
    pub(crate) fn sz(&mut self) -> Id {
        self.push(Node::Sz)
    }
    pub(crate) fn vec(&mut self, t: Id) -> Id {
        self.push(Node::Vec(t))
    }
    pub(crate) fn product(&mut self, a: Id, b: Id) -> Id {
        self.push(Node::Product(a, b))
    }
    pub(crate) fn arrow(&mut self, a: Id, b: Id) -> Id {
        self.push(Node::Arrow(a, b))
    }

    /// The representative: `id` with bound variables followed.
    pub(crate) fn resolve(&self, mut id: Id) -> Id {
        while let Node::Var {
            bound: Some(next), ..
        } = self.nodes[id]
        {
            id = next;
        }
        id
    }

    pub(crate) fn view(&self, id: Id) -> View {
        match self.nodes[self.resolve(id)] {
            Node::Var { kind, .. } => View::Var(kind),
            Node::Nat => View::Nat,
            Node::Bool => View::Bool,
            Node::Un => View::Un,
            Node::Sz => View::Sz,
            Node::Vec(t) => View::Vec(t),
            Node::Product(a, b) => View::Product(a, b),
            Node::Arrow(a, b) => View::Arrow(a, b),
        }
    }

    /// Makes `a` and `b` equal. On a constructor clash or an infinite type nothing
    /// more is bound from the clashing pair on (what was bound before stays); on a
    /// kind clash the binding is made (see [`Clash::Kind`]) and unification goes on,
    /// reporting the first clash.
    pub(crate) fn unify(&mut self, a: Id, b: Id) -> Result<(), Clash> {
        let mut work = vec![(a, b)];
        let mut first = None;
        while let Some((a, b)) = work.pop() {
            let (a, b) = (self.resolve(a), self.resolve(b));
            if a == b {
                continue;
            }
            let outcome = match (self.nodes[a].clone(), self.nodes[b].clone()) {
                (Node::Var { kind: ka, .. }, Node::Var { kind: kb, .. }) => {
                    self.nodes[a] = Node::Var {
                        bound: Some(b),
                        kind: ka,
                    };
                    self.nodes[b] = Node::Var {
                        bound: None,
                        kind: ka.max(kb),
                    };
                    Ok(())
                }
                (Node::Var { kind, .. }, _) => self.bind(a, kind, b),
                (_, Node::Var { kind, .. }) => self.bind(b, kind, a),
                (Node::Vec(x), Node::Vec(y)) => {
                    work.push((x, y));
                    Ok(())
                }
                (Node::Product(x1, x2), Node::Product(y1, y2))
                | (Node::Arrow(x1, x2), Node::Arrow(y1, y2)) => {
                    work.push((x2, y2));
                    work.push((x1, y1));
                    Ok(())
                }
                (Node::Nat, Node::Nat)
                | (Node::Bool, Node::Bool)
                | (Node::Un, Node::Un)
                | (Node::Sz, Node::Sz) => Ok(()),
                _ => Err(Clash::Mismatch),
            };
            match outcome {
                Ok(()) => {}
                Err(Clash::Kind(k)) => {
                    first.get_or_insert(Clash::Kind(k));
                }
                Err(clash) => return Err(first.unwrap_or(clash)),
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// Binds the free variable `var` (of `kind`) to `to`.
    fn bind(&mut self, var: Id, kind: Kind, to: Id) -> Result<(), Clash> {
        if self.occurs(var, to) {
            return Err(Clash::Infinite);
        }
        let fits = self.restrict(to, kind);
        self.nodes[var] = Node::Var {
            bound: Some(to),
            kind,
        };
        if fits {
            Ok(())
        } else {
            Err(Clash::Kind(kind))
        }
    }

    fn occurs(&self, var: Id, within: Id) -> bool {
        let mut seen = HashSet::new();
        let mut work = vec![within];
        while let Some(id) = work.pop() {
            let id = self.resolve(id);
            if id == var {
                return true;
            }
            if seen.insert(id) {
                work.extend(self.children(id));
            }
        }
        false
    }

    fn children(&self, id: Id) -> Vec<Id> {
        match self.nodes[id] {
            Node::Vec(t) => vec![t],
            Node::Product(a, b) | Node::Arrow(a, b) => vec![a, b],
            _ => Vec::new(),
        }
    }

    /// Narrows `id` to the stratum `kind`: its variables' kinds are raised to it.
    /// False when the type has a constructor outside the stratum (an arrow in data; a
    /// datum, vector or arrow in θ).
    pub(crate) fn restrict(&mut self, id: Id, kind: Kind) -> bool {
        if kind == Kind::Any {
            return true;
        }
        let mut fits = true;
        let mut seen = HashSet::new();
        let mut work = vec![id];
        while let Some(id) = work.pop() {
            let id = self.resolve(id);
            if !seen.insert(id) {
                continue;
            }
            match self.nodes[id] {
                Node::Var {
                    bound: None,
                    kind: k,
                } => {
                    self.nodes[id] = Node::Var {
                        bound: None,
                        kind: k.max(kind),
                    }
                }
                Node::Var { .. } | Node::Un | Node::Sz => {}
                Node::Nat | Node::Bool => fits &= kind == Kind::Data,
                Node::Vec(t) => {
                    fits &= kind == Kind::Data;
                    work.push(t);
                }
                Node::Product(a, b) => work.extend([a, b]),
                Node::Arrow(..) => fits = false,
            }
        }
        fits
    }

    /// The type as a tree, its free variables numbered by first appearance, or `None`
    /// past [`TREE_LIMIT`] nodes. At the top level every free variable is generic, so
    /// this is also generalisation.
    pub(crate) fn scheme(&self, id: Id) -> Option<Scheme> {
        self.schemes(&[id]).map(|mut s| s.remove(0))
    }

    /// Several types with one numbering of their variables (both sides of a message).
    pub(crate) fn schemes(&self, ids: &[Id]) -> Option<Vec<Scheme>> {
        let mut vars = HashMap::new();
        let mut kinds = Vec::new();
        let mut budget = TREE_LIMIT;
        let tys = ids
            .iter()
            .map(|id| self.tree(*id, &mut vars, &mut kinds, &mut budget))
            .collect::<Option<Vec<_>>>()?;
        Some(
            tys.into_iter()
                .map(|ty| Scheme {
                    kinds: kinds.clone(),
                    ty,
                })
                .collect(),
        )
    }

    fn tree(
        &self,
        id: Id,
        vars: &mut HashMap<Id, u32>,
        kinds: &mut Vec<Kind>,
        budget: &mut usize,
    ) -> Option<Ty> {
        *budget = budget.checked_sub(1)?;
        let id = self.resolve(id);
        Some(match self.nodes[id] {
            Node::Var { kind, .. } => {
                let next = vars.len() as u32;
                Ty::Var(*vars.entry(id).or_insert_with(|| {
                    kinds.push(kind);
                    next
                }))
            }
            Node::Nat => Ty::Nat,
            Node::Bool => Ty::Bool,
            Node::Un => Ty::Un,
            Node::Sz => Ty::Sz,
            Node::Vec(t) => Ty::vec(self.tree(t, vars, kinds, budget)?),
            Node::Product(a, b) => {
                let a = self.tree(a, vars, kinds, budget)?;
                Ty::product(a, self.tree(b, vars, kinds, budget)?)
            }
            Node::Arrow(a, b) => {
                let a = self.tree(a, vars, kinds, budget)?;
                Ty::arrow(a, self.tree(b, vars, kinds, budget)?)
            }
        })
    }

    /// A fresh copy of `scheme`: each quantified variable a new variable of its kind.
    pub(crate) fn instantiate(&mut self, scheme: &Scheme) -> Id {
        let vars: Vec<Id> = scheme.kinds.iter().map(|k| self.fresh(*k)).collect();
        self.build(&scheme.ty, &vars)
    }

    fn build(&mut self, ty: &Ty, vars: &[Id]) -> Id {
        match ty {
            Ty::Var(v) => match vars.get(*v as usize) {
                Some(id) => *id,
                None => self.fresh(Kind::Any),
            },
            Ty::Nat => self.nat(),
            Ty::Bool => self.bool(),
            Ty::Un => self.un(),
            Ty::Sz => self.sz(),
            Ty::Vec(t) => {
                let t = self.build(t, vars);
                self.vec(t)
            }
            Ty::Product(a, b) => {
                let a = self.build(a, vars);
                let b = self.build(b, vars);
                self.product(a, b)
            }
            Ty::Arrow(a, b) => {
                let a = self.build(a, vars);
                let b = self.build(b, vars);
                self.arrow(a, b)
            }
        }
    }
}

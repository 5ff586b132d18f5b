//! A Hopcroft-style solver, beyond the paper (its authors left an O(s log s) method as
//! an open problem). It computes the same partition as [`crate::refine`], but instead
//! of re-splitting every block in every pass it works like Hopcroft's algorithm, from
//! what moved:
//!
//! - When vertices move to a new block, only their successors are *touched*; a block
//!   is re-examined only for its touched members. Its untouched members keep what the
//!   last examination established: each is uniform (all predecessors in the block), or
//!   non-uniform with the block's one key (context, predecessors' blocks), since none
//!   of their predecessors moved.
//! - Re-examining block D: the touched members are classified and keyed; those with
//!   D's old key (and all the untouched non-uniform ones) form group 0, which is never
//!   enumerated. Re-integration (decision D6) propagates only from the other groups,
//!   through D's uniform members (the set R it reaches); a member of R also reachable
//!   from group 0 (it has a predecessor in group 0 or in D outside R, then forward
//!   within R) goes to the one extra set L, like one reached from two groups. L is
//!   examined in full next.
//! - The largest piece keeps D's id (Hopcroft's rule; group 0 is listed only when a
//!   piece is larger than it, at no more cost than listing that piece), so a vertex
//!   changes block only into a piece at most half its old block's size: at most
//!   log₂ |V| times, and the touches its moves cause are O(|arcs| log |V|) in all.
//!
//! A re-examination costs O(touched + |R| + their arcs) rather than O(|D|). What is
//! not bounded is R: the uniform vertices re-integration walks may end up in the piece
//! that keeps the id, so the O(s log s) bound of Hopcroft's algorithm is not proved
//! here; `tests::solver_scaling` measures the work on generated procedures.

use crate::graph::{Context, ExtentGraph, VertexId, BOTTOM};
use crate::partition::Partition;
use std::collections::HashMap;

type Key = (Context, Vec<usize>);

const NONE: u32 = 0;
const MULTI: u32 = u32::MAX;

pub fn refine_hopcroft(graph: &ExtentGraph) -> Partition {
    let mut r = Refiner::new(graph);
    while let Some(d) = r.queue.pop() {
        r.queued[d] = false;
        r.examine(d);
    }
    Partition::from_blocks(&r.block_of)
}

struct Refiner<'g> {
    graph: &'g ExtentGraph,
    succs: Vec<Vec<VertexId>>,
    block_of: Vec<usize>,
    blocks: Vec<Vec<VertexId>>,
    /// Each vertex's index in its block's member list (for O(1) removal).
    pos: Vec<usize>,
    /// Per block: the common key of its non-uniform members, how many there are, its
    /// touched members, and whether every member counts as touched (new L, start).
    key: Vec<Option<Key>>,
    nonuniform_count: Vec<usize>,
    pending: Vec<Vec<VertexId>>,
    full: Vec<bool>,
    queued: Vec<bool>,
    queue: Vec<usize>,
    /// Per vertex: non-uniform at its last examination; touched since.
    nonuniform: Vec<bool>,
    touched: Vec<bool>,
    /// Scratch, reset after each examination: the group of a touched non-uniform
    /// member (`NONE` otherwise); the re-integration mark (group + 1, `MULTI`); and
    /// whether group 0 reaches a vertex of R.
    group: Vec<u32>,
    mark: Vec<u32>,
    old: Vec<bool>,
}

impl<'g> Refiner<'g> {
    fn new(graph: &'g ExtentGraph) -> Self {
        let n = graph.len();
        let rest: Vec<VertexId> = (0..n).filter(|&v| v != BOTTOM).collect();
        let mut blocks = vec![vec![BOTTOM]];
        if !rest.is_empty() {
            blocks.push(rest);
        }
        let mut block_of = vec![0; n];
        let mut pos = vec![0; n];
        for (id, members) in blocks.iter().enumerate() {
            for (i, &v) in members.iter().enumerate() {
                block_of[v] = id;
                pos[v] = i;
            }
        }
        let b = blocks.len();
        Refiner {
            graph,
            succs: graph.successors(),
            block_of,
            blocks,
            pos,
            key: vec![None; b],
            nonuniform_count: vec![0; b],
            pending: vec![Vec::new(); b],
            full: vec![true; b],
            queued: vec![true; b],
            queue: (0..b).collect(),
            nonuniform: vec![false; n],
            touched: vec![false; n],
            group: vec![NONE; n],
            mark: vec![NONE; n],
            old: vec![false; n],
        }
    }

    fn key_of(&self, v: VertexId) -> Key {
        let vertex = &self.graph.vertices[v];
        let preds = vertex.preds.iter().map(|&p| self.block_of[p]).collect();
        (vertex.context, preds)
    }

    /// Re-examines block `d` for its touched members (all of them when `full`).
    fn examine(&mut self, d: usize) {
        let full = std::mem::take(&mut self.full[d]);
        let mut touched = std::mem::take(&mut self.pending[d]);
        for &v in &touched {
            self.touched[v] = false;
        }
        if full {
            touched = self.blocks[d].clone();
        }
        let was_nonuniform = touched.iter().filter(|&&v| self.nonuniform[v]).count();
        let untouched = if full {
            0
        } else {
            self.nonuniform_count[d] - was_nonuniform
        };
        let (mut groups, mut keys) = self.group_touched(d, &touched, untouched);
        let nonuniform: usize = untouched + groups.iter().map(Vec::len).sum::<usize>();
        if groups.len() <= 1 {
            self.key[d] = keys.pop();
            self.nonuniform_count[d] = nonuniform;
            self.reset(&touched, &[]);
            return;
        }
        if untouched == 0 {
            self.make_largest_group_zero(&mut groups, &mut keys);
        }
        let reached = self.reintegrate(d, &groups);
        let mut extra = Vec::new();
        for &r in &reached {
            match self.mark[r] {
                m if m == MULTI || self.old[r] => extra.push(r),
                m => groups[(m - 1) as usize].push(r),
            }
        }
        self.reset(&touched, &reached);
        let mut pieces: Vec<(Vec<VertexId>, Option<Key>)> = groups
            .into_iter()
            .zip(keys.iter().cloned())
            .skip(1)
            .map(|(g, k)| (g, Some(k)))
            .collect();
        if !extra.is_empty() {
            pieces.push((extra, None));
        }
        self.key[d] = Some(keys[0].clone());
        self.keep_largest(d, &mut pieces, keys[0].clone());
        let mut moved = Vec::new();
        for (piece, key) in pieces {
            let is_extra = key.is_none();
            self.move_out(d, &piece, key, is_extra);
            moved.extend(piece);
        }
        self.nonuniform_count[d] =
            nonuniform - moved.iter().filter(|&&v| self.nonuniform[v]).count();
        for v in moved {
            for i in 0..self.succs[v].len() {
                self.touch(self.succs[v][i]);
            }
        }
    }

    /// Classifies the touched members of `d` and groups the non-uniform ones by key;
    /// group 0 is d's old key when untouched non-uniform members still carry it.
    fn group_touched(
        &mut self,
        d: usize,
        touched: &[VertexId],
        untouched: usize,
    ) -> (Vec<Vec<VertexId>>, Vec<Key>) {
        let mut index: HashMap<Key, usize> = HashMap::new();
        let mut groups: Vec<Vec<VertexId>> = Vec::new();
        let mut keys: Vec<Key> = Vec::new();
        if let (true, Some(k)) = (untouched > 0, self.key[d].clone()) {
            index.insert(k.clone(), 0);
            groups.push(Vec::new());
            keys.push(k);
        }
        for &v in touched {
            let uniform = self.graph.vertices[v]
                .preds
                .iter()
                .all(|&p| self.block_of[p] == d);
            self.nonuniform[v] = !uniform;
            if uniform {
                continue;
            }
            let k = self.key_of(v);
            let next = groups.len();
            let g = *index.entry(k.clone()).or_insert(next);
            if g == next {
                groups.push(Vec::new());
                keys.push(k);
            }
            groups[g].push(v);
            self.group[v] = g as u32;
        }
        (groups, keys)
    }

    /// Hopcroft's rule: the largest piece keeps the block's id, so a vertex changes
    /// block only into a piece at most half its block's size. When a moved piece is
    /// larger than group 0, group 0 (the block's other members) moves instead.
    fn keep_largest(&mut self, d: usize, pieces: &mut Vec<(Vec<VertexId>, Option<Key>)>, key: Key) {
        let moved: usize = pieces.iter().map(|(p, _)| p.len()).sum();
        let group_zero = self.blocks[d].len() - moved;
        let Some(big) = (0..pieces.len()).max_by_key(|&j| (pieces[j].0.len(), usize::MAX - j))
        else {
            return;
        };
        if pieces[big].0.len() <= group_zero {
            return;
        }
        // Group 0 is what no piece holds (marked in the scratch `mark`, reset after).
        for (piece, _) in pieces.iter() {
            for &v in piece {
                self.mark[v] = MULTI;
            }
        }
        let rest: Vec<VertexId> = self.blocks[d]
            .iter()
            .copied()
            .filter(|&v| self.mark[v] != MULTI)
            .collect();
        for (piece, _) in pieces.iter() {
            for &v in piece {
                self.mark[v] = NONE;
            }
        }
        let (_, kept_key) = pieces.swap_remove(big);
        pieces.push((rest, Some(key)));
        // The kept piece is L when it has no key: examined in full, like any L.
        self.full[d] = kept_key.is_none();
        if self.full[d] {
            self.enqueue(d);
        }
        self.key[d] = kept_key;
    }

    fn make_largest_group_zero(&mut self, groups: &mut [Vec<VertexId>], keys: &mut [Key]) {
        let big = (0..groups.len()).max_by_key(|&g| (groups[g].len(), usize::MAX - g));
        let big = big.unwrap_or(0);
        if big == 0 {
            return;
        }
        groups.swap(0, big);
        keys.swap(0, big);
        for g in [0, big] {
            for &v in &groups[g] {
                self.group[v] = g as u32;
            }
        }
    }

    /// The uniform members of `d` reached from groups 1.. (R), each marked with its
    /// group or `MULTI`, and `old` set on those group 0 also reaches.
    fn reintegrate(&mut self, d: usize, groups: &[Vec<VertexId>]) -> Vec<VertexId> {
        let mut reached = Vec::new();
        let mut work: Vec<(VertexId, u32)> = Vec::new();
        for (g, members) in groups.iter().enumerate().skip(1) {
            work.extend(members.iter().map(|&v| (v, g as u32 + 1)));
        }
        while let Some((y, m)) = work.pop() {
            for &s in &self.succs[y] {
                if self.block_of[s] != d || self.nonuniform[s] {
                    continue;
                }
                let next = match self.mark[s] {
                    NONE => {
                        reached.push(s);
                        m
                    }
                    cur if cur == m || cur == MULTI => continue,
                    _ => MULTI,
                };
                self.mark[s] = next;
                work.push((s, next));
            }
        }
        let mut stack: Vec<VertexId> = Vec::new();
        for &r in &reached {
            let from_group_zero = self.graph.vertices[r].preds.iter().any(|&p| {
                self.block_of[p] == d
                    && if self.nonuniform[p] {
                        self.group[p] == 0
                    } else {
                        self.mark[p] == NONE
                    }
            });
            if from_group_zero {
                self.old[r] = true;
                stack.push(r);
            }
        }
        while let Some(r) = stack.pop() {
            for &s in &self.succs[r] {
                if self.mark[s] != NONE && self.block_of[s] == d && !self.old[s] {
                    self.old[s] = true;
                    stack.push(s);
                }
            }
        }
        reached
    }

    fn reset(&mut self, touched: &[VertexId], reached: &[VertexId]) {
        for &v in touched {
            self.group[v] = NONE;
        }
        for &v in reached {
            self.mark[v] = NONE;
            self.old[v] = false;
        }
    }

    /// Moves `piece` out of block `d` into a new block (examined in full when it is L).
    fn move_out(&mut self, d: usize, piece: &[VertexId], key: Option<Key>, full: bool) {
        let id = self.blocks.len();
        for &v in piece {
            let i = self.pos[v];
            self.blocks[d].swap_remove(i);
            if let Some(&w) = self.blocks[d].get(i) {
                self.pos[w] = i;
            }
            self.block_of[v] = id;
        }
        for (i, &v) in piece.iter().enumerate() {
            self.pos[v] = i;
        }
        let count = piece.iter().filter(|&&v| self.nonuniform[v]).count();
        self.blocks.push(piece.to_vec());
        self.key.push(key);
        self.nonuniform_count.push(count);
        self.pending.push(Vec::new());
        self.full.push(full);
        self.queued.push(false);
        if full {
            self.enqueue(id);
        }
    }

    fn touch(&mut self, v: VertexId) {
        let b = self.block_of[v];
        if !self.touched[v] && !self.full[b] {
            self.touched[v] = true;
            self.pending[b].push(v);
        }
        self.enqueue(b);
    }

    fn enqueue(&mut self, b: usize) {
        if !self.queued[b] {
            self.queued[b] = true;
            self.queue.push(b);
        }
    }
}

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
//!
//! The work counted that way (touched members, R, listed group 0s, moves) is linear on
//! those procedures; what made the time grow faster (exponent 1.2 from 1,000 to
//! 100,000 vertices) was its constant: a cache miss per vertex read through the graph's
//! `Vertex` structs and their separately allocated lists, and a `HashMap` of freshly
//! allocated `Vec` keys (SipHash) per examination. The solver therefore reads the
//! graph from flat arrays ([`Flat`]), keeps 32-bit ids, groups keys in a reused
//! open-addressing table over one key buffer, and keeps its scratch lists between
//! examinations: an examination allocates only the blocks it creates.

use crate::graph::{ExtentGraph, BOTTOM};
use crate::partition::Partition;

/// A vertex or block id, 32 bits wide so that the per-vertex arrays stay small.
type Id = u32;
/// A key, (context, predecessors' blocks), as a range of a key buffer: the context
/// first, then one block per predecessor.
type KeyRange = (usize, usize);

const NONE: u32 = 0;
const MULTI: u32 = u32::MAX;

pub fn refine_hopcroft(graph: &ExtentGraph) -> Partition {
    let mut r = Refiner::new(graph);
    while let Some(d) = r.queue.pop() {
        r.queued[d as usize] = false;
        r.examine(d as usize);
    }
    Partition::from_dense_blocks(&r.block_of, r.blocks.len())
}

/// Adjacency lists in one array (compressed rows): the list of `v` is
/// `adj[off[v]..off[v + 1]]`. Contiguous, so walking arcs stays in cache.
struct Adjacency {
    off: Vec<u32>,
    adj: Vec<Id>,
}

impl Adjacency {
    fn of(&self, v: usize) -> &[Id] {
        &self.adj[self.off[v] as usize..self.off[v + 1] as usize]
    }
}

/// The graph as the solver reads it: contexts, predecessors and successors in flat
/// arrays (the `Vertex` structs and their separately allocated lists cost a cache
/// miss per vertex read, which made the time grow faster than the work).
struct Flat {
    context: Vec<u32>,
    preds: Adjacency,
    succs: Adjacency,
}

impl Flat {
    fn new(graph: &ExtentGraph) -> Self {
        let n = graph.len();
        assert!(n < u32::MAX as usize && graph.arcs() < u32::MAX as usize);
        let mut off = Vec::with_capacity(n + 1);
        let mut adj = Vec::with_capacity(graph.arcs());
        let mut succ_count = vec![0u32; n + 1];
        off.push(0);
        for vertex in &graph.vertices {
            for &p in &vertex.preds {
                adj.push(p as Id);
                succ_count[p + 1] += 1;
            }
            off.push(adj.len() as u32);
        }
        for v in 0..n {
            succ_count[v + 1] += succ_count[v];
        }
        // Successors in ascending order of vertex, each once per arc (as
        // `ExtentGraph::successors`).
        let mut fill = succ_count.clone();
        let mut succ = vec![0; adj.len()];
        for v in 0..n {
            for &p in &adj[off[v] as usize..off[v + 1] as usize] {
                succ[fill[p as usize] as usize] = v as Id;
                fill[p as usize] += 1;
            }
        }
        Flat {
            context: graph.vertices.iter().map(|v| v.context).collect(),
            preds: Adjacency { off, adj },
            succs: Adjacency {
                off: succ_count,
                adj: succ,
            },
        }
    }
}

/// Scratch buffers of one examination, kept between examinations so that an
/// examination allocates nothing but the new blocks.
#[derive(Default)]
struct Scratch {
    /// The keys of this examination's groups (and of a candidate), back to back.
    keys: Vec<u32>,
    /// Per group: its key and its hash.
    group_key: Vec<KeyRange>,
    group_hash: Vec<u64>,
    group_size: Vec<usize>,
    /// Open addressing table of group + 1 (0: empty), and the slots in use.
    table: Vec<u32>,
    used: Vec<usize>,
    /// The touched non-uniform members, in touched order.
    nonuniform: Vec<Id>,
    reached: Vec<Id>,
    work: Vec<(Id, u32)>,
    stack: Vec<Id>,
    /// The pieces to move, back to back, each a range of `members` and its key.
    members: Vec<Id>,
    pieces: Vec<(usize, usize, Option<KeyRange>)>,
    piece_of: Vec<u32>,
}

fn hash_key(key: &[u32]) -> u64 {
    let mut h: u64 = key.len() as u64;
    for &x in key {
        h = (h.rotate_left(5) ^ x as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    // The multiplications only carry upwards: mix the high bits into the low ones
    // that pick the slot (without this, keys differing in high bits only collide and
    // the probing grows quadratic).
    h ^= h >> 32;
    h = h.wrapping_mul(0x94_d0_49_bb_13_31_11_eb);
    h ^ (h >> 29)
}

struct Refiner {
    flat: Flat,
    block_of: Vec<Id>,
    blocks: Vec<Vec<Id>>,
    /// Each vertex's index in its block's member list (for O(1) removal).
    pos: Vec<u32>,
    /// Per block: the common key of its non-uniform members (a range of `key_store`),
    /// how many there are, its touched members, and whether every member counts as
    /// touched (new L, start).
    key: Vec<Option<KeyRange>>,
    key_store: Vec<u32>,
    nonuniform_count: Vec<usize>,
    pending: Vec<Vec<Id>>,
    full: Vec<bool>,
    queued: Vec<bool>,
    queue: Vec<Id>,
    /// Per vertex: non-uniform at its last examination; touched since.
    nonuniform: Vec<bool>,
    touched: Vec<bool>,
    /// Scratch, reset after each examination: the group of a touched non-uniform
    /// member (`NONE` otherwise); the re-integration mark (group + 1, `MULTI`); and
    /// whether group 0 reaches a vertex of R.
    group: Vec<u32>,
    mark: Vec<u32>,
    old: Vec<bool>,
    scratch: Scratch,
    /// The members examined (the touched ones, or the whole block).
    examined: Vec<Id>,
}

impl Refiner {
    fn new(graph: &ExtentGraph) -> Self {
        let n = graph.len();
        let rest: Vec<Id> = (0..n).filter(|&v| v != BOTTOM).map(|v| v as Id).collect();
        let mut blocks = vec![vec![BOTTOM as Id]];
        if !rest.is_empty() {
            blocks.push(rest);
        }
        let mut block_of = vec![0; n];
        let mut pos = vec![0; n];
        for (id, members) in blocks.iter().enumerate() {
            for (i, &v) in members.iter().enumerate() {
                block_of[v as usize] = id as Id;
                pos[v as usize] = i as u32;
            }
        }
        let b = blocks.len();
        Refiner {
            flat: Flat::new(graph),
            block_of,
            blocks,
            pos,
            key: vec![None; b],
            key_store: Vec::new(),
            nonuniform_count: vec![0; b],
            pending: vec![Vec::new(); b],
            full: vec![true; b],
            queued: vec![true; b],
            queue: (0..b as Id).collect(),
            nonuniform: vec![false; n],
            touched: vec![false; n],
            group: vec![NONE; n],
            mark: vec![NONE; n],
            old: vec![false; n],
            scratch: Scratch::default(),
            examined: Vec::new(),
        }
    }

    /// Re-examines block `d` for its touched members (all of them when `full`).
    fn examine(&mut self, d: usize) {
        let full = std::mem::take(&mut self.full[d]);
        let mut touched = std::mem::take(&mut self.examined);
        touched.clear();
        let mut pending = std::mem::take(&mut self.pending[d]);
        for &v in &pending {
            self.touched[v as usize] = false;
        }
        if full {
            touched.extend_from_slice(&self.blocks[d]);
        } else {
            touched.append(&mut pending);
        }
        // Give the (emptied) list back, keeping its capacity for later touches.
        pending.clear();
        self.pending[d] = pending;
        let was_nonuniform = touched
            .iter()
            .filter(|&&v| self.nonuniform[v as usize])
            .count();
        let untouched = if full {
            0
        } else {
            self.nonuniform_count[d] - was_nonuniform
        };
        let groups = self.group_touched(d, &touched, untouched);
        let nonuniform = untouched + self.scratch.nonuniform.len();
        if groups <= 1 {
            self.key[d] = match groups {
                0 => None,
                _ => Some(self.store_key(self.scratch.group_key[0])),
            };
            self.nonuniform_count[d] = nonuniform;
            self.reset(&touched);
            self.examined = touched;
            return;
        }
        if untouched == 0 {
            self.make_largest_group_zero();
        }
        self.reintegrate(d);
        self.collect_pieces(groups);
        self.reset(&touched);
        self.examined = touched;
        let key0 = self.scratch.group_key[0];
        self.key[d] = Some(self.store_key(key0));
        self.keep_largest(d, key0);
        let mut sc = std::mem::take(&mut self.scratch);
        let mut moved_nonuniform = 0;
        for &(start, end, key) in &sc.pieces {
            let key = key.map(|k| self.store_key_from(&sc.keys, k));
            moved_nonuniform += self.move_out(d, &sc.members[start..end], key);
        }
        self.nonuniform_count[d] = nonuniform - moved_nonuniform;
        for &(start, end, _) in &sc.pieces {
            for &v in &sc.members[start..end] {
                let (a, b) = (
                    self.flat.succs.off[v as usize] as usize,
                    self.flat.succs.off[v as usize + 1] as usize,
                );
                for i in a..b {
                    self.touch(self.flat.succs.adj[i] as usize);
                }
            }
        }
        sc.pieces.clear();
        sc.members.clear();
        self.scratch = sc;
    }

    fn store_key(&mut self, key: KeyRange) -> KeyRange {
        let sc = std::mem::take(&mut self.scratch);
        let k = self.store_key_from(&sc.keys, key);
        self.scratch = sc;
        k
    }

    fn store_key_from(&mut self, keys: &[u32], (start, end): KeyRange) -> KeyRange {
        let at = self.key_store.len();
        self.key_store.extend_from_slice(&keys[start..end]);
        (at, self.key_store.len())
    }

    /// Classifies the touched members of `d` and groups the non-uniform ones by key
    /// (listed in `scratch.nonuniform`, each with its `group`); group 0 is d's old key
    /// when untouched non-uniform members still carry it. Returns the number of groups.
    fn group_touched(&mut self, d: usize, touched: &[Id], untouched: usize) -> usize {
        let sc = &mut self.scratch;
        sc.keys.clear();
        sc.group_key.clear();
        sc.group_hash.clear();
        sc.group_size.clear();
        sc.nonuniform.clear();
        let need = (2 * (touched.len() + 1)).next_power_of_two();
        if sc.table.len() < need {
            sc.table = vec![0; need];
        }
        let mask = need - 1;
        let insert = |sc: &mut Scratch, start: usize| -> usize {
            let end = sc.keys.len();
            let h = hash_key(&sc.keys[start..end]);
            let mut slot = h as usize & mask;
            loop {
                match sc.table[slot] {
                    0 => break,
                    g1 => {
                        let g = g1 as usize - 1;
                        let (a, b) = sc.group_key[g];
                        if sc.group_hash[g] == h && sc.keys[a..b] == sc.keys[start..end] {
                            sc.keys.truncate(start);
                            return g;
                        }
                    }
                }
                slot = (slot + 1) & mask;
            }
            let g = sc.group_key.len();
            sc.table[slot] = g as u32 + 1;
            sc.used.push(slot);
            sc.group_key.push((start, end));
            sc.group_hash.push(h);
            sc.group_size.push(0);
            g
        };
        if let (true, Some((a, b))) = (untouched > 0, self.key[d]) {
            sc.keys.extend_from_slice(&self.key_store[a..b]);
            insert(sc, 0);
        }
        let d = d as Id;
        for &v in touched {
            let v = v as usize;
            let start = sc.keys.len();
            sc.keys.push(self.flat.context[v]);
            let mut uniform = true;
            for &p in self.flat.preds.of(v) {
                let b = self.block_of[p as usize];
                uniform &= b == d;
                sc.keys.push(b);
            }
            self.nonuniform[v] = !uniform;
            if uniform {
                sc.keys.truncate(start);
                continue;
            }
            let g = insert(sc, start);
            sc.group_size[g] += 1;
            sc.nonuniform.push(v as Id);
            self.group[v] = g as u32;
        }
        for &slot in &sc.used {
            sc.table[slot] = 0;
        }
        sc.used.clear();
        sc.group_key.len()
    }

    /// Hopcroft's rule: the largest piece keeps the block's id, so a vertex changes
    /// block only into a piece at most half its block's size. When a moved piece is
    /// larger than group 0, group 0 (the block's other members) moves instead.
    fn keep_largest(&mut self, d: usize, key0: KeyRange) {
        let sc = &mut self.scratch;
        let moved: usize = sc.pieces.iter().map(|&(a, b, _)| b - a).sum();
        let group_zero = self.blocks[d].len() - moved;
        let Some(big) =
            (0..sc.pieces.len()).max_by_key(|&j| (sc.pieces[j].1 - sc.pieces[j].0, usize::MAX - j))
        else {
            return;
        };
        if sc.pieces[big].1 - sc.pieces[big].0 <= group_zero {
            return;
        }
        // Group 0 is what no piece holds (marked in the scratch `mark`, reset after).
        for &v in &sc.members {
            self.mark[v as usize] = MULTI;
        }
        let start = sc.members.len();
        for &v in &self.blocks[d] {
            if self.mark[v as usize] != MULTI {
                sc.members.push(v);
            }
        }
        for &v in &sc.members[..start] {
            self.mark[v as usize] = NONE;
        }
        let (_, _, kept_key) = sc.pieces.swap_remove(big);
        sc.pieces.push((start, sc.members.len(), Some(key0)));
        // The kept piece is L when it has no key: examined in full, like any L.
        self.full[d] = kept_key.is_none();
        if self.full[d] {
            self.enqueue(d);
        }
        self.key[d] = kept_key.map(|k| self.store_key(k));
    }

    fn make_largest_group_zero(&mut self) {
        let sc = &mut self.scratch;
        let groups = sc.group_size.len();
        let big = (0..groups).max_by_key(|&g| (sc.group_size[g], usize::MAX - g));
        let big = big.unwrap_or(0);
        if big == 0 {
            return;
        }
        sc.group_size.swap(0, big);
        sc.group_key.swap(0, big);
        sc.group_hash.swap(0, big);
        for &v in &sc.nonuniform {
            let g = &mut self.group[v as usize];
            if *g == 0 {
                *g = big as u32;
            } else if *g == big as u32 {
                *g = 0;
            }
        }
    }

    /// The uniform members of `d` reached from groups 1.. (R, in `scratch.reached`),
    /// each marked with its group or `MULTI`, and `old` set on those group 0 also
    /// reaches.
    fn reintegrate(&mut self, d: usize) {
        let d = d as Id;
        let sc = &mut self.scratch;
        sc.reached.clear();
        sc.work.clear();
        for &v in &sc.nonuniform {
            let g = self.group[v as usize];
            if g != 0 {
                sc.work.push((v, g + 1));
            }
        }
        while let Some((y, m)) = sc.work.pop() {
            for &s in self.flat.succs.of(y as usize) {
                let su = s as usize;
                if self.block_of[su] != d || self.nonuniform[su] {
                    continue;
                }
                let next = match self.mark[su] {
                    NONE => {
                        sc.reached.push(s);
                        m
                    }
                    cur if cur == m || cur == MULTI => continue,
                    _ => MULTI,
                };
                self.mark[su] = next;
                sc.work.push((s, next));
            }
        }
        sc.stack.clear();
        for &r in &sc.reached {
            let from_group_zero = self.flat.preds.of(r as usize).iter().any(|&p| {
                let p = p as usize;
                self.block_of[p] == d
                    && if self.nonuniform[p] {
                        self.group[p] == 0
                    } else {
                        self.mark[p] == NONE
                    }
            });
            if from_group_zero {
                self.old[r as usize] = true;
                sc.stack.push(r);
            }
        }
        while let Some(r) = sc.stack.pop() {
            for &s in self.flat.succs.of(r as usize) {
                let su = s as usize;
                if self.mark[su] != NONE && self.block_of[su] == d && !self.old[su] {
                    self.old[su] = true;
                    sc.stack.push(s);
                }
            }
        }
    }

    /// The pieces that leave the block: groups 1.. (their touched members, then the
    /// members of R only they reach), then L (R reached from several groups or from
    /// group 0) when not empty, back to back in `scratch.members`.
    fn collect_pieces(&mut self, groups: usize) {
        let sc = &mut self.scratch;
        let extra = groups - 1;
        // Piece of each listed vertex: group g ≥ 1 → g − 1; L → groups − 1.
        sc.piece_of.clear();
        let mut size = vec![0usize; groups];
        for &v in &sc.nonuniform {
            let g = self.group[v as usize] as usize;
            if g != 0 {
                sc.piece_of.push(g as u32 - 1);
                size[g - 1] += 1;
            }
        }
        for &r in &sc.reached {
            let p = match self.mark[r as usize] {
                m if m == MULTI || self.old[r as usize] => extra,
                m => m as usize - 2,
            };
            sc.piece_of.push(p as u32);
            size[p] += 1;
        }
        let mut at = 0;
        sc.pieces.clear();
        for (p, &len) in size.iter().enumerate() {
            let key = (p < extra).then(|| sc.group_key[p + 1]);
            sc.pieces.push((at, at + len, key));
            at += len;
        }
        if size[extra] == 0 {
            sc.pieces.pop();
        }
        sc.members.clear();
        sc.members.resize(at, 0);
        let mut fill: Vec<usize> = sc.pieces.iter().map(|&(a, _, _)| a).collect();
        fill.resize(groups, at);
        let listed = sc
            .nonuniform
            .iter()
            .filter(|&&v| self.group[v as usize] != 0)
            .chain(sc.reached.iter());
        for (&v, &p) in listed.zip(&sc.piece_of) {
            sc.members[fill[p as usize]] = v;
            fill[p as usize] += 1;
        }
    }

    fn reset(&mut self, touched: &[Id]) {
        for &v in touched {
            self.group[v as usize] = NONE;
        }
        for &v in &self.scratch.reached {
            self.mark[v as usize] = NONE;
            self.old[v as usize] = false;
        }
        self.scratch.reached.clear();
    }

    /// Moves `piece` out of block `d` into a new block (examined in full when it is L,
    /// the piece without a key). Returns how many of its members are non-uniform.
    fn move_out(&mut self, d: usize, piece: &[Id], key: Option<KeyRange>) -> usize {
        let full = key.is_none();
        let id = self.blocks.len();
        for &v in piece {
            let i = self.pos[v as usize] as usize;
            self.blocks[d].swap_remove(i);
            if let Some(&w) = self.blocks[d].get(i) {
                self.pos[w as usize] = i as u32;
            }
            self.block_of[v as usize] = id as Id;
        }
        for (i, &v) in piece.iter().enumerate() {
            self.pos[v as usize] = i as u32;
        }
        let count = piece
            .iter()
            .filter(|&&v| self.nonuniform[v as usize])
            .count();
        self.blocks.push(piece.to_vec());
        self.key.push(key);
        self.nonuniform_count.push(count);
        self.pending.push(Vec::new());
        self.full.push(full);
        self.queued.push(false);
        if full {
            self.enqueue(id);
        }
        count
    }

    fn touch(&mut self, v: usize) {
        let b = self.block_of[v] as usize;
        if !self.touched[v] && !self.full[b] {
            self.touched[v] = true;
            self.pending[b].push(v as Id);
        }
        self.enqueue(b);
    }

    fn enqueue(&mut self, b: usize) {
        if !self.queued[b] {
            self.queued[b] = true;
            self.queue.push(b as Id);
        }
    }
}

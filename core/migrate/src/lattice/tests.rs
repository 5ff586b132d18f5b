use super::*;
use crate::forward::check_model;
use crate::migration::{Fuel, FUEL};
use crate::modules::build;
use crate::pytorch::Forward;
use shapex_migrate_syntax::python::parse;
use shapex_report::view::{Lattice, Payload};
use shapex_report::Options;
use std::cell::RefCell;
use std::collections::BTreeSet;

/// Eight `Dyn` positions (x's are 0–3, y's 4–7): x's channel count must be 2 for conv1
/// and 4 for conv2 (Listing 2), so a skeleton making position 1 a number is empty;
/// y's last extent must be 5 for the Linear layer.
const EIGHT: &str = "import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(2, 2, 2)
        self.conv2 = nn.Conv2d(4, 2, 2)
        self.fc = nn.Linear(5, 3)

    def forward(self, x: TensorType((Dyn, Dyn, Dyn, Dyn)), y: TensorType((Dyn, Dyn, Dyn, Dyn))):
        a = self.conv1(x)
        b = self.conv2(x)
        return self.fc(y)
";

/// The greedy chain: position 1 is skipped (empty), every other one kept; then the top.
const CHAIN: [u64; 10] = [0, 1, 3, 5, 0xd, 0x1d, 0x3d, 0x7d, 0xfd, 0xff];

fn poset_of(src: &str, expanded: &[u64]) -> Poset {
    poset_fuelled(src, expanded, FUEL)
}

fn poset_fuelled(src: &str, expanded: &[u64], units: u32) -> Poset {
    let parsed = parse(src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let built = build(&parsed.module, None);
    let checked = check_model(&built);
    let subject = Forward::new(src, &built, &checked);
    let (notes, fuel) = (RefCell::new(Vec::new()), Fuel::new(units));
    let m = Migration::new(&subject, &[], &notes, &fuel);
    poset(&m, None, expanded)
}

fn masks(p: &Poset) -> BTreeSet<u64> {
    p.nodes.iter().filter_map(|n| n.statics).collect()
}

fn state(p: &Poset, mask: u64) -> &Verdict {
    &p.nodes[p.index()[&mask]].state
}

/// Cover edges between skeletons, as (lower mask, upper mask).
fn covers(p: &Poset) -> BTreeSet<(u64, u64)> {
    let mask = |k: usize| p.nodes[k].statics;
    let pairs = p.covers.iter().map(|&(lo, hi)| (mask(lo), mask(hi)));
    pairs.filter_map(|(lo, hi)| Some((lo?, hi?))).collect()
}

/// Every cover edge is one position, and the states are downward closed along it.
fn assert_closed(p: &Poset) {
    for (lo, hi) in covers(p) {
        let (l, h) = (state(p, lo), state(p, hi));
        assert!(
            !matches!(h, Verdict::Sat(_)) || matches!(l, Verdict::Sat(_)),
            "{hi:x} inhabited above {lo:x}: {l:?}"
        );
        assert!(
            !matches!(l, Verdict::Unsat(_)) || matches!(h, Verdict::Unsat(_)),
            "{hi:x} not empty above the empty {lo:x}: {h:?}"
        );
    }
}

/// The edges from `new` nodes to the shown nodes one position away, as the Hasse
/// diagram of all the shown skeletons has them.
fn expected_covers(p: &Poset, new: &BTreeSet<u64>) -> BTreeSet<(u64, u64)> {
    let shown = masks(p);
    let mut out = BTreeSet::new();
    for &m in new {
        for b in 0..p.positions.len() {
            let other = m ^ (1 << b);
            if shown.contains(&other) {
                out.insert(if other < m { (other, m) } else { (m, other) });
            }
        }
    }
    out
}

#[test]
fn past_six_positions_the_chain_and_the_top_are_shown_first() {
    let p = poset_of(EIGHT, &[]);
    assert_eq!(p.positions.len(), 8);
    assert!(!p.complete);
    assert_eq!(masks(&p), CHAIN.into_iter().collect());
    for m in CHAIN {
        let empty = m == 3 || m == 0xff;
        assert_eq!(matches!(state(&p, m), Verdict::Unsat(_)), empty, "{m:x}");
    }
    assert!(
        p.expandable().iter().all(|&e| e),
        "every node has hidden neighbours"
    );
    assert_closed(&p);
}

#[test]
fn an_expanded_inhabited_node_brings_its_covers_projected_without_solving() {
    let chain = poset_of(EIGHT, &[]);
    let p = poset_of(EIGHT, &[1]);
    let new: BTreeSet<u64> = [9, 0x11, 0x21, 0x41, 0x81].into();
    assert_eq!(masks(&p), &masks(&chain) | &new);
    // Below the inhabited chain node 0xfd: inhabited, its migration projected.
    for &m in &new {
        let n = &p.nodes[p.index()[&m]];
        assert!(
            matches!(n.state, Verdict::Sat(_)) && !n.solved,
            "{m:x}: {n:?}"
        );
    }
    assert_eq!(p.order.len(), chain.order.len(), "no solver run");
    let added = &covers(&p) - &covers(&chain);
    assert_eq!(added, expected_covers(&p, &new));
    assert!(added.contains(&(1, 9)) && added.contains(&(9, 0xd)));
    assert!(
        !p.expandable()[p.index()[&1]],
        "all of 1's neighbours are shown"
    );
    assert_closed(&p);
}

#[test]
fn an_expanded_empty_node_brings_empty_upper_covers_and_solves_the_lower() {
    let chain = poset_of(EIGHT, &[]);
    let p = poset_of(EIGHT, &[3]);
    let upper: BTreeSet<u64> = [7, 0xb, 0x13, 0x23, 0x43, 0x83].into();
    let new = &upper | &[2].into();
    assert_eq!(masks(&p), &masks(&chain) | &new);
    for &m in &upper {
        let n = &p.nodes[p.index()[&m]];
        assert!(
            matches!(n.state, Verdict::Unsat(_)) && !n.solved,
            "{m:x}: {n:?}"
        );
    }
    // Only x's channels a number: no node decides it, the solver finds it empty.
    let two = &p.nodes[p.index()[&2]];
    assert!(
        matches!(two.state, Verdict::Unsat(_)) && two.solved,
        "{two:?}"
    );
    assert_eq!(p.order.len(), chain.order.len() + 1);
    assert_eq!(&covers(&p) - &covers(&chain), expected_covers(&p, &new));
    assert_closed(&p);
}

#[test]
fn out_of_fuel_an_expanded_node_is_unknown_never_a_guess() {
    // Fuel for the chain's runs (small sets, a unit each) and no more.
    let chain = poset_of(EIGHT, &[]);
    let units = chain.order.len() as u32;
    assert_eq!(
        poset_fuelled(EIGHT, &[], units),
        chain,
        "the chain has its fuel"
    );
    let p = poset_fuelled(EIGHT, &[3], units);
    let two = &p.nodes[p.index()[&2]];
    assert!(matches!(two.state, Verdict::Unknown(_)), "{two:?}");
    // Closure still decides what it can without the solver.
    assert!(matches!(state(&p, 7), Verdict::Unsat(_)));
    assert_closed(&p);
}

#[test]
fn a_node_shown_by_an_expansion_expands_too_whatever_the_order() {
    let p = poset_of(EIGHT, &parse_expanded("m9, 1"));
    assert_eq!(p, poset_of(EIGHT, &parse_expanded("1,9")));
    // 9's neighbours: 8 (below) and 0xb, 0x19, … (above) are shown now.
    assert!(masks(&p).contains(&8) && masks(&p).contains(&0x89));
    assert_closed(&p);
}

#[test]
fn stale_and_malformed_expansions_are_ignored() {
    assert_eq!(parse_expanded("zz, m, 1g, -1,, m3  a"), vec![3, 0xa]);
    assert_eq!(parse_expanded(""), Vec::<u64>::new());
    assert_eq!(parse_expanded("ffffffffffffffffff"), Vec::<u64>::new());
    // Not shown (0xf0), past the positions (1 << 9), or no skeleton at all.
    let chain = poset_of(EIGHT, &[]);
    assert_eq!(poset_of(EIGHT, &[0xf0, 1 << 9, u64::MAX]), chain);
}

fn lattice_of(src: &str, expand: &str) -> Lattice {
    let options = Options::new(crate::language::ID).with(crate::questions::EXPAND, expand);
    let report = crate::pytorch::report(src, &options);
    match report.view(crate::questions::LATTICE) {
        Some(Payload::Lattice(l)) => l.clone(),
        other => panic!("no lattice: {other:?}"),
    }
}

#[test]
fn vertex_ids_name_skeletons_and_mark_the_expandable() {
    let ids = |l: &Lattice| l.nodes.iter().map(|v| v.id.clone()).collect::<Vec<_>>();
    let chain = lattice_of(EIGHT, "");
    let want: Vec<String> = CHAIN.iter().map(|m| format!("m{m:x}")).collect();
    assert_eq!(ids(&chain), want);
    assert!(chain.nodes.iter().all(|v| v.expandable));
    let expanded = lattice_of(EIGHT, "m1, junk");
    assert!(ids(&expanded).starts_with(&want), "chain ids kept");
    assert!(ids(&expanded).contains(&"m81".to_string()));
    let m1 = expanded.nodes.iter().find(|v| v.id == "m1").unwrap();
    assert!(!m1.expandable);
    let edge = |a: &str, b: &str| expanded.covers.iter().any(|e| e.from == a && e.to == b);
    assert!(edge("m1", "m9") && edge("m9", "md"));
    // JSON stays as it was for a vertex that cannot be expanded.
    let json = serde_json::to_string(m1).unwrap();
    assert!(!json.contains("expandable"), "{json}");
}

#[test]
fn up_to_six_positions_every_node_is_shown_and_expand_changes_nothing() {
    let src = include_str!("../../../../tests/fixtures/py/listing2_conv.py");
    let full = lattice_of(src, "");
    assert_eq!(full.nodes.len(), 16);
    assert!(full.nodes.iter().all(|v| !v.expandable));
    assert_eq!(lattice_of(src, "m1,m3"), full);
}

#[test]
fn the_chain_edge_to_the_top_gives_way_to_the_nodes_shown_between() {
    // Two empty positions (x's channels, 1, and y's last extent, 7, wanted as 5 and as
    // 6): the chain ends at 0x7d, two positions below the top, so its edge to the top
    // spans both — but the chain's last try, the empty 0xfd, lies between them, so the
    // top hangs from it. Expanding 0x7d shows 0x7f between them too.
    let src = EIGHT
        .replace(
            "self.fc = nn.Linear(5, 3)",
            "self.fc = nn.Linear(5, 3)\n        self.fc2 = nn.Linear(6, 3)",
        )
        .replace(
            "return self.fc(y)",
            "c = self.fc2(y)\n        return self.fc(y)",
        );
    let chain = poset_of(&src, &[]);
    let edges = covers(&chain);
    assert!(
        edges.contains(&(0xfd, 0xff)) && !edges.contains(&(0x7d, 0xff)),
        "{edges:x?}"
    );
    let p = poset_of(&src, &[0x7d]);
    let edges = covers(&p);
    assert!(!edges.contains(&(0x7d, 0xff)), "{edges:x?}");
    assert!(
        edges.contains(&(0x7f, 0xff)) && edges.contains(&(0xfd, 0xff)),
        "{edges:x?}"
    );
    assert!(
        edges.iter().all(|(lo, hi)| (lo ^ hi).count_ones() == 1),
        "only covers: {edges:x?}"
    );
    assert_closed(&p);
}

#[test]
fn a_picked_node_shows_every_value_s_type_under_its_migration_or_why_it_has_none() {
    let l = lattice_of(EIGHT, "");
    let detail = |id: &str| l.nodes.iter().find(|v| v.id == id).unwrap().detail.clone();
    // The frontier node 0xfd: x's channels stay Dyn; conv1 and conv2 give 2 channels,
    // y's last extent is the Linear's 5, and the result its 3 features.
    let fd = detail("mfd");
    let lines: Vec<&str> = fd.lines().collect();
    assert_eq!(lines.len(), 5, "{fd}");
    assert!(
        lines[0].starts_with("x: TensorType((") && lines[0].contains(", Dyn, "),
        "{fd}"
    );
    assert!(
        lines[1].starts_with("y: TensorType((") && lines[1].ends_with(", 5))"),
        "{fd}"
    );
    assert!(
        lines[2].starts_with("a: TensorType((") && lines[2].contains(", 2, "),
        "{fd}"
    );
    assert!(
        lines[4].starts_with("return: TensorType((") && lines[4].ends_with(", 3))"),
        "{fd}"
    );
    // The empty node 3 (x's channels a number): both convolutions' requirements.
    let three = detail("m3");
    assert!(three.starts_with("no migration"), "{three}");
    assert!(
        three.contains("x[1] == 2") && three.contains("x[1] == 4"),
        "{three}"
    );
}

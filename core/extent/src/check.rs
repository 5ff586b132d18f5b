//! The checks (§7.3 with decision D3): only call-extent vertices with at least one
//! actual input and procedure-exit vertices are checked; a non-uniform one is an
//! error. ⊥-fed extents (out-only at calls, entry extents, `decl`s), merges and loop
//! heads are never checked: they are non-uniform by construction, or generalise.

use crate::errors::{Site, SizeError};
use crate::graph::{ExtentGraph, Origin, BOTTOM};
use crate::partition::Partition;

/// A name for each class: ⊥; the name of the entry or `decl` extent that generates
/// it; or τ1, τ2, … for the fresh ones, in class order. A name used twice is primed.
pub fn class_names(graph: &ExtentGraph, partition: &Partition) -> Vec<String> {
    let mut names: Vec<Option<String>> = vec![None; partition.count()];
    names[partition.of(BOTTOM).0 as usize] = Some("⊥".to_string());
    for (v, vertex) in graph.vertices.iter().enumerate() {
        let c = partition.of(v).0 as usize;
        if let (None, Origin::Entry { extent, .. } | Origin::Decl { extent, .. }) =
            (&names[c], &vertex.origin)
        {
            names[c] = Some(extent.clone());
        }
    }
    let mut fresh = 0;
    let mut used: std::collections::HashSet<String> = Default::default();
    names
        .into_iter()
        .map(|n| {
            let mut name = n.unwrap_or_else(|| {
                fresh += 1;
                format!("τ{fresh}")
            });
            while used.contains(&name) {
                name.push('′');
            }
            used.insert(name.clone());
            name
        })
        .collect()
}

pub fn check(
    graph: &ExtentGraph,
    partition: &Partition,
    names: &[String],
    procedure: &str,
) -> Vec<SizeError> {
    let mut errors = Vec::new();
    for (v, vertex) in graph.vertices.iter().enumerate() {
        let (site, extent, span) = match &vertex.origin {
            Origin::Call {
                callee,
                extent,
                span,
            } if !vertex.inputs.is_empty() => (
                Site::Call {
                    callee: callee.clone(),
                },
                extent,
                *span,
            ),
            Origin::Exit { extent, span } => (
                Site::Exit {
                    procedure: procedure.to_string(),
                },
                extent,
                *span,
            ),
            _ => continue,
        };
        if partition.uniform(graph, v) {
            continue;
        }
        let inputs = vertex
            .inputs
            .iter()
            .zip(&vertex.preds)
            .map(|(input, &p)| (input.to_string(), names[partition.of(p).0 as usize].clone()))
            .collect();
        errors.push(SizeError {
            site,
            extent: extent.clone(),
            inputs,
            vertex: v,
            span,
        });
    }
    errors
}

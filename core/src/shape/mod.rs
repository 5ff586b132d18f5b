//! Joisha et al. shape tuples: the canonical `ShapeTuple`, the illegal shape π, and the shape-tuple operators of Table 2 in paper and modern modes.

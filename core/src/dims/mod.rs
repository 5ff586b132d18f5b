//! Symbolic dimensions shared by the shape, extent and gradual analyses: `Dim` (integer, symbol or normalised expression), `Constraint`, and `Facts` that answer proven / refuted / unknown.

//! The front ends of Migeed et al.'s gradual tensor shapes: PyTorch model code
//! (`python`). No analysis here.

pub mod python;

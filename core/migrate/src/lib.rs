//! Migeed, Reed, Ansel & Palsberg's gradual tensor shapes for PyTorch (ECOOP 2024).

pub mod modules;

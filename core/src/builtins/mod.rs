//! The builtin framework: builtins as data (a table in the Tamer category tree), each naming its category and, where it differs, its own shape rule.

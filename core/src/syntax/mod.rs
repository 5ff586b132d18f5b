//! Front ends. Each language owns its pest grammar and its AST, and nothing else:
//! no analysis happens here.

pub mod matlab;

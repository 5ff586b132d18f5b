//! Derby & Zorn's Language T ("A Type System for Languages with Dynamic Arrays", 1998)
//! as a Shape Explorer plug-in: the T front end (`shapex-t-syntax`) parses, the shared
//! extent analysis (`shapex-extent`) checks, and [`language`] folds the result into
//! the house's `Report`.

pub mod language;

pub use language::LanguageT;

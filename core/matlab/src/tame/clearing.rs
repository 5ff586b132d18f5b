//! What `clear` and `clearvars` with literal arguments do to the workspace.
//!
//! Dubrau 2012 lists `clear` among the wild features, but with literal names (or none)
//! its effect is known: it removes variables, which are then undefined, as if never
//! assigned. Only the forms that select variables by a run-time value (`clear(name)`)
//! or by a pattern we do not evaluate (`-regexp`) stay wild or approximate. Both the
//! lowering (which warns) and the value analysis (which applies the effect) read the
//! words through [`clearing`], so they cannot disagree.

/// The effect of one `clear`/`clearvars` call whose arguments are known words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Clearing {
    /// The variables `include` selects (every variable when `None`) and `except` does
    /// not are removed. Patterns are names with the wildcards `*` and `?`.
    Remove {
        include: Option<Vec<String>>,
        except: Vec<String>,
    },
    /// The global variables (those `names` selects, or all) are removed when this
    /// workspace links them: whether it does at this point is not tracked, so they may
    /// or may not be defined afterwards.
    Globals(Option<Vec<String>>),
    /// Any variable may have been removed (`clear -regexp`, an item type whose effect on
    /// variables we do not model).
    Any,
    /// No variable changes (`clear functions`, `clear mex`, `clear import`).
    Nothing,
}

/// The item types of `clear` that remove every variable (MATLAB and Octave spellings).
const ALL_VARIABLES: &[&str] = &[
    "all",
    "-all",
    "-a",
    "variables",
    "-variables",
    "-v",
    "classes",
    "-classes",
    "-c",
];

/// The item types of `clear` that touch no variable.
const NO_VARIABLES: &[&str] = &["functions", "-functions", "-f", "mex", "import"];

/// The words `clear` reads as item types or options rather than as names.
const KEYWORDS: &[&str] = &[
    "all",
    "variables",
    "classes",
    "functions",
    "global",
    "import",
    "java",
    "mex",
];

/// The effect of `func(words…)` for `func` in `clear`/`clearvars`, or `None` for any
/// other function.
pub fn clearing(func: &str, words: &[&str]) -> Option<Clearing> {
    match func {
        "clear" => Some(clear(words)),
        "clearvars" => Some(clearvars(words)),
        _ => None,
    }
}

fn clear(words: &[&str]) -> Clearing {
    match words {
        [] => Clearing::Remove {
            include: None,
            except: vec![],
        },
        [w] if ALL_VARIABLES.contains(w) => Clearing::Remove {
            include: None,
            except: vec![],
        },
        [w] if NO_VARIABLES.contains(w) => Clearing::Nothing,
        [g, names @ ..] if matches!(*g, "global" | "-global" | "-g") => {
            if names.is_empty() {
                Clearing::Globals(None)
            } else if names.iter().all(|n| is_pattern(n)) {
                Clearing::Globals(Some(owned(names)))
            } else {
                Clearing::Any
            }
        }
        // Octave's `clear -x p…` removes the variables that do *not* match.
        [x, names @ ..] if matches!(*x, "-exclusive" | "-x") && !names.is_empty() => {
            if names.iter().all(|n| is_pattern(n)) {
                Clearing::Remove {
                    include: None,
                    except: owned(names),
                }
            } else {
                Clearing::Any
            }
        }
        names if names.iter().all(|n| is_pattern(n) && !KEYWORDS.contains(n)) => Clearing::Remove {
            include: Some(owned(names)),
            except: vec![],
        },
        _ => Clearing::Any,
    }
}

/// `clearvars [p…] [-except q…]`; other options (`-global`, `-regexp`) are approximated.
fn clearvars(words: &[&str]) -> Clearing {
    let (include, except) = match words.iter().position(|w| *w == "-except") {
        Some(k) => (&words[..k], &words[k + 1..]),
        None => (words, &[][..]),
    };
    if !include.iter().chain(except).all(|n| is_pattern(n)) {
        return Clearing::Any;
    }
    Clearing::Remove {
        include: (!include.is_empty()).then(|| owned(include)),
        except: owned(except),
    }
}

fn owned(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// A variable name, possibly with the wildcards `*` and `?` (Octave also takes `?`).
fn is_pattern(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '*' || c == '?')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '*' | '?'))
}

/// Whether `name` matches `pattern` (`*`: any run of characters, `?`: one character).
pub fn matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // The classic two-pointer wildcard match with backtracking to the last `*`: linear
    // in practice, quadratic at worst, no recursion.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

impl Clearing {
    /// Whether removal selects the variable `name` (for [`Clearing::Remove`]).
    pub fn selects(include: &Option<Vec<String>>, except: &[String], name: &str) -> bool {
        include
            .as_ref()
            .is_none_or(|ps| ps.iter().any(|p| matches(p, name)))
            && !except.iter().any(|p| matches(p, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remove(include: Option<&[&str]>, except: &[&str]) -> Clearing {
        Clearing::Remove {
            include: include.map(owned),
            except: owned(except),
        }
    }

    #[test]
    fn clear_forms() {
        assert_eq!(clearing("clear", &[]), Some(remove(None, &[])));
        assert_eq!(clearing("clear", &["all"]), Some(remove(None, &[])));
        assert_eq!(clearing("clear", &["variables"]), Some(remove(None, &[])));
        assert_eq!(clearing("clear", &["-v"]), Some(remove(None, &[])));
        assert_eq!(
            clearing("clear", &["x", "y"]),
            Some(remove(Some(&["x", "y"]), &[]))
        );
        assert_eq!(clearing("clear", &["a*"]), Some(remove(Some(&["a*"]), &[])));
        assert_eq!(clearing("clear", &["-x", "k"]), Some(remove(None, &["k"])));
        assert_eq!(clearing("clear", &["functions"]), Some(Clearing::Nothing));
        assert_eq!(
            clearing("clear", &["global"]),
            Some(Clearing::Globals(None))
        );
        assert_eq!(
            clearing("clear", &["global", "g"]),
            Some(Clearing::Globals(Some(owned(&["g"]))))
        );
        assert_eq!(clearing("clear", &["-regexp", "^a"]), Some(Clearing::Any));
        assert_eq!(clearing("clear", &["java"]), Some(Clearing::Any));
        assert_eq!(clearing("clear", &["all", "x"]), Some(Clearing::Any));
        assert_eq!(clearing("clear", &["x.y"]), Some(Clearing::Any));
        assert_eq!(clearing("close", &["all"]), None);
    }

    #[test]
    fn clearvars_forms() {
        assert_eq!(clearing("clearvars", &[]), Some(remove(None, &[])));
        assert_eq!(
            clearing("clearvars", &["x", "y"]),
            Some(remove(Some(&["x", "y"]), &[]))
        );
        assert_eq!(
            clearing("clearvars", &["-except", "k"]),
            Some(remove(None, &["k"]))
        );
        assert_eq!(
            clearing("clearvars", &["a*", "-except", "ab"]),
            Some(remove(Some(&["a*"]), &["ab"]))
        );
        assert_eq!(clearing("clearvars", &["-global"]), Some(Clearing::Any));
        assert_eq!(
            clearing("clearvars", &["-regexp", "^a"]),
            Some(Clearing::Any)
        );
    }

    #[test]
    fn wildcards() {
        assert!(matches("a*", "a"));
        assert!(matches("a*", "abc"));
        assert!(!matches("a*", "ba"));
        assert!(matches("*x*", "axb"));
        assert!(matches("a?c", "abc"));
        assert!(!matches("a?c", "ac"));
        assert!(matches("x", "x"));
        assert!(!matches("x", "xy"));
        assert!(matches("*", ""));
        assert!(Clearing::selects(&None, &owned(&["k"]), "x"));
        assert!(!Clearing::selects(&None, &owned(&["k"]), "k"));
        assert!(!Clearing::selects(&Some(owned(&["y"])), &[], "x"));
    }
}

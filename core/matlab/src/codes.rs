//! Every diagnostic code the MATLAB language reports, with the longer explanation
//! `shapex explain CODE` prints (and the app may show on hover). Shape errors are
//! `shape.` + a [`Rule`]'s code; the rest are listed here. A test checks that every code
//! the fixtures produce is explained.

use crate::shape::Rule;

/// Codes other than the per-rule shape errors: (code, explanation).
const CODES: &[(&str, &str)] = &[
    ("syntax.unexpected", "The parser met a token it cannot place here (Octave and MATLAB reject the statement too). The statement becomes an error statement; the rest of the file is still analysed."),
    ("syntax.unbalanced", "A bracket, parenthesis or brace is not closed, or closes one that was never opened."),
    ("syntax.missing-end", "A block (if, for, while, switch, try, function) has no matching `end`."),
    ("syntax.invalid", "The text is not valid MATLAB at this position."),
    ("syntax.unterminated-string", "A string literal runs to the end of the line without its closing quote."),
    ("syntax.unterminated-comment", "A block comment `%{` has no closing `%}` line."),
    ("syntax.too-deep", "Brackets or expressions are nested deeper than the front end accepts (64 brackets, 256 expression levels); the statement is reported instead of being parsed, so deep input cannot exhaust the stack."),
    ("syntax.classdef", "A classdef file: recognised, not analysed (class semantics are outside Joisha et al.'s shape analysis)."),
    ("tame.script", "A bare call (`setup;`) of a name that is neither a builtin nor a function of the file: it may be a script, which runs in the caller's workspace, so every variable is unknown after it. The Tamer does not analyse scripts calling scripts (Dubrau 2012, §1.4)."),
    ("entry.syntax", "The entry point (the option `entry`, `--entry` in the CLI) is not of the form `main(double[3x4], char[1x?], int32, struct)`: a function name, then its arguments' classes with optional sizes (`x` or `×` between extents, `?` unknown, `:10` at most 10), or `?` for any argument. It is ignored: every function's inputs are symbolic."),
    ("entry.unknown", "The entry point names a function the file does not define; it is ignored."),
    ("entry.nargin", "The entry point passes more arguments than the function declares inputs (and it has no `varargin`); it is ignored."),
    ("call.nargin", "A call of a function of the file passes more arguments than the function declares inputs (and it has no `varargin`): MATLAB stops every run of the call with \"Too many input arguments\"."),
    ("call.nargout", "A call of a function of the file asks for more outputs than the function declares (and it has no `varargout`): MATLAB stops every run of the call with \"Too many output arguments\"."),
    ("tame.wild.eval", "A call the Tamer calls wild (eval, evalin, assignin, load, …): it may create or change any variable, so every variable of the function becomes unknown after it (Dubrau 2012, §4)."),
    ("tame.clear.approximate", "`clear -regexp …` (or another form whose effect on variables is not modelled, such as `clear java`) may remove any variable: every variable becomes unknown after it. `clear` with names, wildcards or none, `clearvars`, `clear global` and `clear functions` are analysed exactly and give no note."),
    ("tame.unsupported.multi", "An assignment form the Tame IR does not model; the statement's targets become unknown."),
    ("tame.unsupported.classdef", "Class definitions are not lowered to the Tame IR."),
    ("tame.end.outside", "`end` used outside an indexing expression, where it has no array to refer to."),
    ("shape.prealloc", "An array grows inside a loop on every iteration; preallocating it (zeros before the loop) avoids a copy per iteration (Joisha et al. §12, Figures 7–8)."),
    ("shape.loop", "Something about a loop the analysis can tell from simulating it (for example, a shape that changes only on the first iteration)."),
    ("shape.loop.iteration", "A statement in a loop fails on a particular iteration; the message names the iteration and the loop variable's value."),
    ("extent.size", "A function with declared sizes (an `arguments` block, or `%! size A[N,M]` annotations) makes a call that needs two extents equal that its declarations name independently (Derby & Zorn's extent graph: the call's extent vertex is not uniform). For sizes the declarations allow with those extents different, the call fails whenever it runs, so it is a warning, not an error of every run. Give the extents one name if they must agree, or check before the call. Only declared names and literal sizes count: `:` and sizes the analysis cannot follow never give this warning."),
    ("extent.exit", "A function with declared output sizes may return an output whose size comes from other declared extents than the ones its declaration names (Derby & Zorn's exit check)."),
    ("class.mixed", "A definite error of the operands' classes (issue #22 item 3): an arithmetic operation (`+ - .* ./ .\\ .^ * / \\ ^`, `rem`, `mod`, `idivide`, `bitand`, `bitor`, `bitxor`) on integers of two different classes, such as `int8(1) + int16(2)`. MATLAB stops every run with \"Integers can only be combined with integers of the same class, or scalar doubles\" and Octave with \"binary operator '+' not implemented for 'int8' by 'int16' operations\". Convert one operand (`int16(a) + b`), or both to double. Claimed only when both classes are known exactly; comparisons (`int8(1) == int16(1)`) and concatenation (`[int8(1) int16(2)]`: the leftmost integer class wins) are allowed, and `&`, `|`, `min` and `max`, where MATLAB and Octave disagree, are never flagged."),
    ("class.integer-matrix", "A definite error of the operands' classes (issue #22 item 3): a matrix product or division (`*`, `/`, `\\`) with an integer array and another array, neither a scalar, such as `int32(ones(2)) * ones(2)`, or a matrix power (`^`) with an integer operand and an operand that is not a scalar, such as `int8([1 2; 3 4])^2` (\"MPOWER (^) is not fully supported for integer classes\"). MATLAB multiplies and divides integer arrays as matrices only by a scalar (\"MTIMES (*) is not fully supported for integer classes. At least one argument must be scalar\"), and Octave has no such operator for integer matrices. Use the element-wise operator (`.*`), or convert to double first (`double(A) * B`). Claimed only when both classes are known and the operands are surely not 1×1 (for `^`, one of them)."),
    ("shape.capped", "A number used as a size, rank or count is too large to analyse (a rank over 64, a size list longer than that, more than 1,024 known elements): the shape is left unknown and the check to run time, never a false error or proof."),
];

/// The explanation of `code`, or `None` for a code MATLAB never reports.
pub fn explain(code: &str) -> Option<String> {
    if let Some((_, text)) = CODES.iter().find(|(c, _)| *c == code) {
        return Some(text.to_string());
    }
    if let Some(func) = code.strip_prefix("tame.wild.") {
        return Some(format!(
            "`{func}` is a wild call (Dubrau 2012, §4): it may create or change any variable, so every variable of the function becomes unknown after it."
        ));
    }
    let rule = code.strip_prefix("shape.")?;
    let rule = Rule::ALL
        .iter()
        .copied()
        .find(|r| r.code() == rule && !r.is_class_rule())?;
    Some(format!(
        "A definite shape error under rule {}: the statement needs {}, and that fails for every value of the unknown extents, so the statement always fails.",
        rule.name(),
        rule.requirement()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_listed_codes_and_wild_calls_are_explained() {
        assert!(explain("shape.mtimes")
            .unwrap()
            .contains("columns of the left operand"));
        assert!(explain("shape.elementwise.expansion").is_some());
        assert!(explain("syntax.too-deep").is_some());
        assert!(explain("class.mixed").unwrap().contains("same class"));
        assert!(explain("class.integer-matrix").is_some());
        assert_eq!(explain("shape.class-mixed"), None);
        assert!(explain("tame.wild.evalin").unwrap().contains("evalin"));
        assert_eq!(explain("shape.no-such-rule"), None);
        assert_eq!(explain("nonsense"), None);
        for &r in Rule::ALL {
            assert!(!r.code().contains(' '), "{r:?}");
        }
    }
}

//! Programs of a chosen length for the analysis benchmark (see
//! `shapex::samples`).

pub use shapex::samples::scaling_program as program;

#[cfg(test)]
mod tests {
    #[test]
    fn programs_have_the_requested_length_and_analyse_cleanly() {
        let p = super::program(100);
        let n = p.lines().count();
        assert!((100..113).contains(&n), "{n} lines");
        let report = shapex::analyze(&p, &shapex::Options::new("matlab"));
        assert!(report.parse_ok);
        assert_eq!(report.error_count(), 0, "{:?}", report.diagnostics);
    }
}

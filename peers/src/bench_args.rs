//! The command line of a benchmark's parts that run outside criterion
//! (timed runs, tail latencies, memory), read the way criterion reads it:
//! `cargo bench --bench NAME -- FILTER` runs the parts whose name contains
//! `FILTER`, and cargo's `--list` and `--test` runs run none.

/// Criterion's options that take a value, so the value is no filter.
const TAKE_A_VALUE: [&str; 15] = [
    "--output-format",
    "--save-baseline",
    "--baseline",
    "--baseline-lenient",
    "--load-baseline",
    "--color",
    "--profile-time",
    "--sample-size",
    "--warm-up-time",
    "--measurement-time",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--plotting-backend",
];

/// Which parts of a benchmark run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    filter: Option<String>,
}

impl Parts {
    /// From this process's arguments; `None` for a `--list` or `--test`
    /// run, in which no part runs.
    pub fn from_args() -> Option<Parts> {
        Parts::parse(std::env::args().skip(1))
    }

    /// From `args`, as [`from_args`](Self::from_args) reads them: the
    /// filter is the first argument that is neither an option nor the
    /// value of one.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Option<Parts> {
        let mut filter = None;
        let mut after_option = false;
        for arg in args {
            if arg == "--list" || arg == "--test" {
                return None;
            }
            if arg.starts_with('-') {
                after_option = TAKE_A_VALUE.contains(&arg.as_str());
            } else if !std::mem::take(&mut after_option) && filter.is_none() {
                filter = Some(arg);
            }
        }
        Some(Parts { filter })
    }

    /// Whether the part named `name` runs: every part without a filter,
    /// else those whose name contains it.
    pub fn runs(&self, name: &str) -> bool {
        self.filter
            .as_deref()
            .is_none_or(|filter| name.contains(filter))
    }
}

#[cfg(test)]
mod tests {
    use super::Parts;

    fn parts(args: &[&str]) -> Option<Parts> {
        Parts::parse(args.iter().map(|arg| arg.to_string()))
    }

    #[test]
    fn a_filter_selects_the_parts_whose_name_contains_it() {
        let all = parts(&["--bench"]).expect("a run");
        assert!(all.runs("frame-times/ysort"));
        let some = parts(&["--bench", "ysort"]).expect("a run");
        assert!(some.runs("frame-times/ysort"));
        assert!(!some.runs("frame-times/particles"));
    }

    #[test]
    fn an_option_s_value_is_no_filter() {
        let run = parts(&["--sample-size", "10", "--bench"]).expect("a run");
        assert!(run.runs("anything"));
        let run = parts(&["--color", "never", "jelly"]).expect("a run");
        assert!(!run.runs("ysort") && run.runs("jelly-600"));
    }

    #[test]
    fn listing_and_testing_run_nothing() {
        assert_eq!(parts(&["--list"]), None);
        assert_eq!(parts(&["ysort", "--test"]), None);
    }
}

//! The performance targets the report checks, each against one run's rows:
//! a ratio to plain MPI of one method's median at one size, with a bound.

use crate::csv::Row;

/// One target: `method`'s median of `bench`/`metric` at `size` over plain MPI's, at most
/// (`at_most`) or at least `bound`.
pub struct Target {
    /// The target in words.
    pub what: &'static str,
    pub bench: &'static str,
    pub metric: &'static str,
    pub method: &'static str,
    pub size: u64,
    pub at_most: bool,
    pub bound: f64,
}

/// The targets, as `docs/performance.md` states them.
pub const TARGETS: &[Target] = &[
    Target { what: "same-process 8 B latency", bench: "pingpong", metric: "latency", method: "EP, same process", size: 8, at_most: true, bound: 0.5 },
    Target { what: "cross-process 8 B latency", bench: "pingpong", metric: "latency", method: "EP, 2 processes", size: 8, at_most: true, bound: 1.1 },
    Target { what: "cross-process 1 MiB bandwidth", bench: "pingpong", metric: "bandwidth", method: "EP, 2 processes", size: 1 << 20, at_most: false, bound: 0.95 },
    Target {
        what: "same-process EP_Allreduce of 8 doubles",
        bench: "collectives",
        metric: "Allreduce",
        method: "EP, 1 process x 2 endpoints",
        size: 64,
        at_most: true,
        bound: 0.5,
    },
    Target {
        what: "plain MPI program linked with the standard-names layer, 8 B latency",
        bench: "names_host",
        metric: "latency",
        method: "libepmpi_mpi",
        size: 8,
        at_most: true,
        bound: 1.02,
    },
];

/// Outcome of one target: the method's row and plain MPI's (None: not in this run), and
/// whether the ratio meets the bound.
pub fn check<'a>(t: &Target, rows: &'a [Row]) -> (Option<&'a Row>, Option<&'a Row>, bool) {
    let at = |r: &&Row| r.bench == t.bench && r.metric == t.metric && r.size == t.size;
    let row = rows.iter().filter(at).find(|r| r.method == t.method);
    let plain = rows.iter().filter(at).find(|r| r.method.starts_with("plain MPI"));
    let pass = row.and_then(|r| r.ratio).is_some_and(|x| if t.at_most { x <= t.bound } else { x >= t.bound });
    (row, plain, pass)
}

//! The performance targets the report checks, each against one run's rows: one method's
//! median against plain MPI's in the same run (a ratio) or against an absolute bound, at one
//! size or at every size of a range (then the worst size decides).

use crate::csv::Row;

/// A target's bound.
#[derive(Clone, Copy)]
pub enum Bound {
    /// The ratio to plain MPI's median at the same size is at most this.
    RatioAtMost(f64),
    /// The ratio is at least this (rates, bandwidths).
    RatioAtLeast(f64),
    /// The median itself, in the row's unit, is at most this.
    ValueAtMost(f64),
}

/// One target: `method`'s median of `bench`/`metric` at every size from `from` to `to`
/// (inclusive; the same for one size) against `bound`.
pub struct Target {
    /// The target in words.
    pub what: &'static str,
    pub bench: &'static str,
    pub metric: &'static str,
    pub method: &'static str,
    pub from: u64,
    pub to: u64,
    pub bound: Bound,
}

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

const fn at(what: &'static str, bench: &'static str, metric: &'static str, method: &'static str, size: u64, bound: Bound) -> Target {
    Target { what, bench, metric, method, from: size, to: size, bound }
}

#[allow(clippy::too_many_arguments, reason = "one target's fields, named in the table below")]
const fn range(
    what: &'static str,
    bench: &'static str,
    metric: &'static str,
    method: &'static str,
    from: u64,
    to: u64,
    bound: Bound,
) -> Target {
    Target { what, bench, metric, method, from, to, bound }
}

const SAME: &str = "EP, same process";
const CROSS: &str = "EP, 2 processes";
const ONE_BY_TWO: &str = "EP, 1 process x 2 endpoints";
use Bound::*;

/// The targets, as `docs/performance.md` states them.
pub const TARGETS: &[Target] = &[
    at("same-process 8 B latency", "pingpong", "latency", SAME, 8, RatioAtMost(0.5)),
    range("same-process latency, 1 KiB to 16 MiB", "pingpong", "latency", SAME, KIB, 16 * MIB, RatioAtMost(0.6)),
    at("cross-process 8 B latency", "pingpong", "latency", CROSS, 8, RatioAtMost(1.05)),
    range("cross-process latency, every size", "pingpong", "latency", CROSS, 0, u64::MAX, RatioAtMost(1.1)),
    range("cross-process bandwidth, every size", "pingpong", "bandwidth", CROSS, 0, u64::MAX, RatioAtLeast(0.95)),
    at("same-process EP_Allreduce of 8 doubles", "collectives", "Allreduce", ONE_BY_TWO, 64, RatioAtMost(0.5)),
    range("same-process EP_Bcast, 8 B to 1 MiB", "collectives", "Bcast", ONE_BY_TWO, 8, MIB, RatioAtMost(0.6)),
    range("same-process EP_Allreduce, 8 B to 1 MiB", "collectives", "Allreduce", ONE_BY_TWO, 8, MIB, RatioAtMost(0.6)),
    range("same-process EP_Allgather, 8 B to 1 MiB", "collectives", "Allgather", ONE_BY_TWO, 8, MIB, RatioAtMost(0.6)),
    range("same-process EP_Alltoall, 8 B to 1 MiB", "collectives", "Alltoall", ONE_BY_TWO, 8, MIB, RatioAtMost(0.6)),
    at("message rate, 2 x 2 endpoints vs 2 x 2 threads", "msgrate", "message rate", "EP, 2 processes x 2 endpoints", 8, RatioAtLeast(1.0)),
    at("message rate, 1 x 4 endpoints vs 2 x 2 threads", "msgrate", "message rate", "EP, 1 process x 4 endpoints", 8, RatioAtLeast(1.0)),
    at("ring of 16 ranks on 2 cores, 4 x 4 endpoints vs 16 processes", "ring", "ring time", "EP, 4 processes x 4 endpoints", 16, RatioAtMost(1.0)),
    at("creating 1024 endpoints in one process (us)", "creation", "Comm_create_endpoints, one thread", "EP, 1 process", 1024, ValueAtMost(50_000.0)),
    at("memory per endpoint at 1024 endpoints (KiB)", "creation", "memory per endpoint, created", "EP, 1 process", 1024, ValueAtMost(16.0)),
    at(
        "memory per endpoint and communicator at 1024 endpoints (KiB)",
        "creation",
        "memory per endpoint and communicator, EP_Comm_dup",
        "EP, 1 process",
        1024,
        ValueAtMost(16.0),
    ),
    at(
        "plain MPI program linked with the standard-names layer, 8 B latency",
        "names_host",
        "latency",
        "libepmpi_mpi",
        8,
        RatioAtMost(1.02),
    ),
];

/// Outcome of one target: the row that decides it (the worst size of the range) and plain
/// MPI's row at that size (None: not in this run), and whether it meets the bound.
pub fn check<'a>(t: &Target, rows: &'a [Row]) -> (Option<&'a Row>, Option<&'a Row>, bool) {
    let in_range = |r: &&Row| r.bench == t.bench && r.metric == t.metric && r.size >= t.from && r.size <= t.to;
    let score = |r: &Row| match t.bound {
        RatioAtMost(_) => r.ratio.unwrap_or(f64::INFINITY),
        RatioAtLeast(_) => -r.ratio.unwrap_or(0.0),
        ValueAtMost(_) => r.median,
    };
    let row = rows.iter().filter(in_range).filter(|r| r.method == t.method).max_by(|a, b| score(a).total_cmp(&score(b)));
    let plain = row.and_then(|w| rows.iter().filter(in_range).find(|r| r.size == w.size && r.method.starts_with("plain MPI")));
    let pass = row.is_some_and(|r| match t.bound {
        RatioAtMost(b) => r.ratio.is_some_and(|x| x <= b),
        RatioAtLeast(b) => r.ratio.is_some_and(|x| x >= b),
        ValueAtMost(b) => r.median <= b,
    });
    (row, plain, pass)
}

/// The bound in words: `<= 0.60x`, `>= 0.95x`, `<= 50000` (in the row's unit).
pub fn bound_text(b: Bound) -> String {
    match b {
        RatioAtMost(x) => format!("<= {x:.2}x"),
        RatioAtLeast(x) => format!(">= {x:.2}x"),
        ValueAtMost(x) => format!("<= {x}"),
    }
}

//! Message sizes, repetitions and iteration counts, each with an environment override so the
//! suite can be made shorter or longer without editing code:
//! `EPMPI_BENCH_SIZES` (comma-separated byte counts, suffixes `K` and `M` for KiB and MiB),
//! `EPMPI_BENCH_REPS` (timed repetitions after one warm-up) and `EPMPI_BENCH_SCALE`
//! (a factor on every iteration count).

/// `lo, 4*lo, 16*lo, ...` up to `hi` inclusive.
pub fn powers_of_4(lo: u64, hi: u64) -> Vec<u64> {
    std::iter::successors(Some(lo), |&s| Some(s * 4)).take_while(|&s| s <= hi).collect()
}

/// Parses `"8,1K,16M"` into byte counts.
pub fn parse_sizes(text: &str) -> Option<Vec<u64>> {
    text.split(',')
        .map(|t| {
            let t = t.trim();
            let (num, mul) = match t.char_indices().last()? {
                (i, 'K' | 'k') => (&t[..i], 1u64 << 10),
                (i, 'M' | 'm') => (&t[..i], 1 << 20),
                _ => (t, 1),
            };
            num.parse::<u64>().ok().map(|n| n * mul)
        })
        .collect()
}

/// `default`, or the sizes of `EPMPI_BENCH_SIZES` that lie within `[lo, hi]` when it is set.
pub fn sizes(default: &[u64], lo: u64, hi: u64) -> Vec<u64> {
    match std::env::var("EPMPI_BENCH_SIZES").ok().and_then(|t| parse_sizes(&t)) {
        Some(v) => v.into_iter().filter(|&s| s >= lo && s <= hi).collect(),
        None => default.to_vec(),
    }
}

/// Timed repetitions: `EPMPI_BENCH_REPS`, default 9.
pub fn reps() -> usize {
    std::env::var("EPMPI_BENCH_REPS").ok().and_then(|t| t.parse().ok()).filter(|&n| n > 0).unwrap_or(9)
}

/// Timed repetitions of one round of an interleaved comparison: [`reps`] shared between the
/// [`rounds`].
pub fn reps_per_round() -> usize {
    reps().div_ceil(rounds())
}

/// Rounds of a comparison: `EPMPI_BENCH_ROUNDS`, default 3 (see `interleaved` in the
/// common module).
pub fn rounds() -> usize {
    std::env::var("EPMPI_BENCH_ROUNDS").ok().and_then(|t| t.parse().ok()).filter(|&n| n > 0).unwrap_or(3)
}

/// Iterations for one repetition moving `bytes` per iteration: `small` for small messages,
/// fewer as messages grow (about `budget` bytes per repetition), at least 2; scaled by
/// `EPMPI_BENCH_SCALE`.
pub fn iters(bytes: u64, small: usize, budget: u64) -> usize {
    let scale: f64 = std::env::var("EPMPI_BENCH_SCALE").ok().and_then(|t| t.parse().ok()).unwrap_or(1.0);
    let n = (budget / bytes.max(1)).min(small as u64).max(2) as f64 * scale;
    (n as usize).max(2)
}

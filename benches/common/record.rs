//! Results of one benchmark process as CSV rows: one row per (metric, method, size) with the
//! median, minimum and maximum over repetitions and the ratio of the median to plain MPI's.
//!
//! Rows go to `$EPMPI_BENCH_DIR/<bench>-np<procs>.csv` when that variable names a directory
//! (`benches/run_suite.sh` sets it), and always to stdout as a Markdown table.
//! The columns are those `benches/report` reads (it documents them too):
//! `bench,metric,method,procs,size,xunit,unit,reps,median,min,max,ratio`.

use std::fmt::Write as _;

/// Methods whose name starts with this are the baseline of ratios.
pub const BASELINE_PREFIX: &str = "plain MPI";

/// What the size column counts: bytes of a message, endpoints per process, objects or ranks.
#[derive(Clone, Copy, PartialEq)]
pub enum XUnit {
    /// Message size in bytes.
    Bytes,
    /// Endpoints per process.
    Endpoints,
    /// Number of objects created (memory measurements).
    Count,
    /// Ranks taking part, over all processes.
    Ranks,
}

impl XUnit {
    fn text(self) -> &'static str {
        match self {
            XUnit::Bytes => "bytes",
            XUnit::Endpoints => "endpoints",
            XUnit::Count => "count",
            XUnit::Ranks => "ranks",
        }
    }
}

/// One summarised measurement.
pub struct Row {
    /// What is measured (`latency`, `Allreduce`, ...).
    pub metric: String,
    /// Who is measured (`plain MPI, 2 processes`, `EP, same process`, ...).
    pub method: String,
    /// Where on the x axis, in `xunit`.
    pub size: u64,
    pub xunit: XUnit,
    /// Unit of the values (`us`, `GB/s`, ...).
    pub unit: &'static str,
    /// Number of repetitions summarised.
    pub reps: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// Collects the rows of one benchmark process (rank 0).
pub struct Recorder {
    bench: &'static str,
    procs: i32,
    rows: Vec<Row>,
}

/// A CSV field: in double quotes (inner quotes doubled) when it holds a comma or a quote.
fn quoted(field: &str) -> String {
    if field.contains([',', '"']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// Median, minimum and maximum of `v` (empty: NaN).
pub fn stats(v: &[f64]) -> (f64, f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (s[s.len() / 2], s[0], s[s.len() - 1])
}

impl Recorder {
    /// A recorder for benchmark `bench` run on `procs` processes.
    pub fn new(bench: &'static str, procs: i32) -> Self {
        Recorder { bench, procs, rows: Vec::new() }
    }

    /// Adds the repetitions `values` (already in `unit`) of `metric` by `method` at `size`.
    pub fn add(&mut self, metric: &str, method: &str, size: u64, xunit: XUnit, unit: &'static str, values: &[f64]) {
        let (median, min, max) = stats(values);
        self.rows.push(Row { metric: metric.into(), method: method.into(), size, xunit, unit, reps: values.len(), median, min, max });
    }

    /// Adds seconds-per-operation repetitions as microseconds.
    pub fn add_us(&mut self, metric: &str, method: &str, size: u64, xunit: XUnit, seconds: &[f64]) {
        let us: Vec<f64> = seconds.iter().map(|t| t * 1e6).collect();
        self.add(metric, method, size, xunit, "us", &us);
    }

    /// Adds seconds-per-transfer repetitions of `bytes` bytes as GB/s.
    pub fn add_gbs(&mut self, metric: &str, method: &str, bytes: u64, seconds: &[f64]) {
        let gbs: Vec<f64> = seconds.iter().map(|t| bytes as f64 / t / 1e9).collect();
        self.add(metric, method, bytes, XUnit::Bytes, "GB/s", &gbs);
    }

    /// The baseline median of `metric` at `size`: plain MPI's at that size, else plain MPI's
    /// only row of that metric (a cost that has no size, such as `MPI_Comm_dup`'s); None when
    /// there is none or it is not positive.
    fn baseline(&self, metric: &str, size: u64) -> Option<f64> {
        let plain: Vec<&Row> = self.rows.iter().filter(|r| r.metric == metric && r.method.starts_with(BASELINE_PREFIX)).collect();
        let base = plain.iter().find(|r| r.size == size).or(if plain.len() == 1 { plain.first() } else { None })?.median;
        (base.is_finite() && base > 0.0).then_some(base)
    }

    /// The CSV text, header included.
    pub fn csv(&self) -> String {
        let mut out = String::from("bench,metric,method,procs,size,xunit,unit,reps,median,min,max,ratio\n");
        for r in &self.rows {
            let ratio = self.baseline(&r.metric, r.size).map(|b| format!("{:.4}", r.median / b)).unwrap_or_default();
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{}",
                self.bench,
                quoted(&r.metric),
                quoted(&r.method),
                self.procs,
                r.size,
                r.xunit.text(),
                r.unit,
                r.reps,
                r.median,
                r.min,
                r.max,
                ratio
            );
        }
        out
    }

    /// Prints the rows as a Markdown table and writes the CSV file when `EPMPI_BENCH_DIR` is set.
    pub fn finish(self) {
        println!("# {} on {} processes: median [min, max] of repetitions; ratio to plain MPI", self.bench, self.procs);
        println!("| metric | method | size | value | ratio |");
        println!("|---|---|---|---|---|");
        for r in &self.rows {
            let ratio = self.baseline(&r.metric, r.size).map(|b| format!("{:.2}x", r.median / b)).unwrap_or_default();
            println!(
                "| {} | {} | {} {} | {:.3} [{:.3}, {:.3}] {} | {} |",
                r.metric,
                r.method,
                r.size,
                r.xunit.text(),
                r.median,
                r.min,
                r.max,
                r.unit,
                ratio
            );
        }
        if let Some(dir) = std::env::var_os("EPMPI_BENCH_DIR") {
            let path = std::path::Path::new(&dir).join(format!("{}-np{}.csv", self.bench, self.procs));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, self.csv()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}

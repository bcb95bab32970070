//! `epmpi-bench-report <run directory> [label]`: reads the CSV files an EPMPI benchmark run
//! wrote there (`benches/run_suite.sh`), and writes `report.md` (the targets with PASS/MISS,
//! one table per benchmark metric with ratios to plain MPI) and one PNG plot per metric measured
//! at several sizes into the same directory. `run.txt` there, when present, heads the report.

mod csv;
mod plot;
mod table;
mod targets;

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!("usage: epmpi-bench-report <run directory> [label]");
        std::process::exit(2);
    };
    let label = args.get(1).cloned().unwrap_or_else(|| dir.display().to_string());
    let rows = csv::read_dir(&dir).unwrap_or_else(|e| {
        eprintln!("epmpi-bench-report: {e}");
        std::process::exit(1);
    });
    if rows.is_empty() {
        eprintln!("epmpi-bench-report: no CSV rows in {}", dir.display());
        std::process::exit(1);
    }
    let mut md = format!("# EPMPI benchmark report: {label}\n\n");
    if let Ok(run) = std::fs::read_to_string(dir.join("run.txt")) {
        let _ = writeln!(md, "```\n{}\n```\n", run.trim_end());
    }
    md.push_str(
        "Medians over repetitions, [min, max] of the repetitions, (ratio of the median to plain \
         MPI's). Times are per operation; on a small shared machine the spread is large and runs \
         differ: compare methods within one run, not across runs.\n\n",
    );
    md.push_str(&targets_section(&rows));
    let font = plot::register_font();
    if font.is_none() {
        md.push_str("No TrueType font found (set `EPMPI_REPORT_FONT`): no plots.\n\n");
    }
    for group in table::groups(&rows) {
        let r = group[0];
        let better = if r.higher_is_better() { "higher is better" } else { "lower is better" };
        let title = format!("{}: {} ({}, {better})", r.bench, r.metric, r.unit);
        let _ = writeln!(md, "## {title}\n\n{}", table::table(&group));
        if font.is_some() && plot::plottable(&group) {
            let name = plot::file_name(&group);
            match plot::draw(&group, &format!("{label} - {}: {} ({})", r.bench, r.metric, r.unit), &dir.join(&name)) {
                Ok(()) => {
                    let _ = writeln!(md, "![{title}]({name})\n");
                }
                Err(e) => eprintln!("epmpi-bench-report: plot {name}: {e}"),
            }
        }
    }
    let out = dir.join("report.md");
    std::fs::write(&out, md).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    println!("{}", out.display());
}

/// The targets table: each target's method and plain MPI medians (at the worst size of a
/// range), ratio, bound and result.
fn targets_section(rows: &[csv::Row]) -> String {
    let mut md = String::from(
        "## Targets\n\nResult from the ratio of medians (over a range of sizes, the worst size's); the ratio \
         of the best repetitions of each (min for times, max for rates) shows what a quiet machine would give \
         when the two differ.\n\n\
         | target | EP | plain MPI | ratio | best-repetition ratio | required | result |\n|---|---|---|---|---|---|---|\n",
    );
    for t in targets::TARGETS {
        let (row, plain, pass) = targets::check(t, rows);
        let value = |r: Option<&csv::Row>| {
            r.map(|r| format!("{} {} at {}", table::num(r.median), r.unit, table::size_text(r.size, &r.xunit)))
                .unwrap_or_else(|| "not measured".into())
        };
        let ratio = row.and_then(|r| r.ratio).map(|x| format!("{x:.2}x")).unwrap_or_else(|| "n/a".into());
        let best = match (row, plain) {
            (Some(r), Some(p)) if r.higher_is_better() => format!("{:.2}x", r.max / p.max),
            (Some(r), Some(p)) => format!("{:.2}x", r.min / p.min),
            _ => "n/a".into(),
        };
        let result = match (row, pass) {
            (None, _) => "not run",
            (_, true) => "PASS",
            (_, false) => "MISS",
        };
        let _ = writeln!(
            md,
            "| {} ({}) | {} | {} | {ratio} | {best} | {} | {result} |",
            t.what,
            t.method,
            value(row),
            value(plain),
            targets::bound_text(t.bound)
        );
    }
    md.push('\n');
    md
}

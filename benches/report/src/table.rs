//! Markdown tables of one run: one table per (benchmark, metric), a row per size and a column
//! per method, each cell the median with [min, max] and the ratio to plain MPI.

use crate::csv::Row;
use std::fmt::Write as _;

/// Rows grouped by (bench, metric), groups and rows in the order they were read.
pub fn groups(rows: &[Row]) -> Vec<Vec<&Row>> {
    let mut out: Vec<Vec<&Row>> = Vec::new();
    for r in rows {
        match out.iter_mut().find(|g| g[0].bench == r.bench && g[0].metric == r.metric) {
            Some(g) => g.push(r),
            None => out.push(vec![r]),
        }
    }
    out
}

/// Distinct values of `key` over `rows`, in first-seen order.
pub fn distinct<T: PartialEq>(rows: &[&Row], key: impl Fn(&Row) -> T) -> Vec<T> {
    let mut v = Vec::new();
    for r in rows {
        let k = key(r);
        if !v.contains(&k) {
            v.push(k);
        }
    }
    v
}

/// `size` in words for its unit: `8 B`, `4 KiB`, `16 MiB`, `2 ep/process`, `16 ranks`, `64`.
pub fn size_text(size: u64, xunit: &str) -> String {
    match xunit {
        "bytes" if size >= 1 << 20 && size.is_multiple_of(1 << 20) => format!("{} MiB", size >> 20),
        "bytes" if size >= 1 << 10 && size.is_multiple_of(1 << 10) => format!("{} KiB", size >> 10),
        "bytes" => format!("{size} B"),
        "endpoints" => format!("{size} ep/process"),
        "ranks" => format!("{size} ranks"),
        _ => size.to_string(),
    }
}

/// A number with about 3 significant digits.
pub fn num(x: f64) -> String {
    match x.abs() {
        v if !v.is_finite() => "n/a".into(),
        v if v >= 100.0 => format!("{x:.0}"),
        v if v >= 10.0 => format!("{x:.1}"),
        v if v >= 1.0 => format!("{x:.2}"),
        _ => format!("{x:.3}"),
    }
}

/// The Markdown table of one group.
pub fn table(group: &[&Row]) -> String {
    let methods = distinct(group, |r| r.method.clone());
    let mut sizes = distinct(group, |r| r.size);
    sizes.sort();
    let mut out = String::new();
    let _ = writeln!(out, "| size | {} |", methods.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(methods.len()));
    for s in sizes {
        let cells: Vec<String> = methods
            .iter()
            .map(|m| match group.iter().find(|r| r.size == s && &r.method == m) {
                None => String::new(),
                Some(r) if r.reps <= 1 => format!("{}{}", num(r.median), ratio_text(r)),
                Some(r) => format!("{} [{}, {}]{}", num(r.median), num(r.min), num(r.max), ratio_text(r)),
            })
            .collect();
        let _ = writeln!(out, "| {} | {} |", size_text(s, &group[0].xunit), cells.join(" | "));
    }
    out
}

fn ratio_text(r: &Row) -> String {
    r.ratio.map(|x| format!(" ({x:.2}x)")).unwrap_or_default()
}

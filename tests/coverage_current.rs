//! The README's MPI coverage table (written by `docs/mpi_coverage.py` from the MPI Forum's
//! `pympistandard`) agrees with `include/ep_mpi.h`: every function the table calls provided
//! exists, every `EP_` function of the header is either a provided row or listed among the
//! functions outside the table's chapters, and no row says "no" or "host" for a function the
//! header has. Checked without Python, so that adding a function without regenerating the
//! table fails here.

use std::collections::BTreeSet;
use std::path::Path;

const BEGIN: &str = "<!-- mpi-coverage:begin";
const END: &str = "<!-- mpi-coverage:end -->";

fn header_functions(header: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in header.lines() {
        let line = line.trim_start();
        for ret in ["int ", "double "] {
            let Some(rest) = line.strip_prefix(ret) else { continue };
            if let Some((name, _)) = rest.split_once('(') {
                if name.starts_with("EP_") && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.insert(name.to_string());
                }
            }
        }
    }
    out
}

/// (MPI name, state cell) of every table row, and the names of the "outside" list.
fn table(readme: &str) -> (Vec<(String, String)>, BTreeSet<String>) {
    let start = readme.find(BEGIN).expect("README has no coverage table (run docs/mpi_coverage.py)");
    let end = start + readme[start..].find(END).expect("coverage table has no end marker");
    let body = &readme[start..end];
    let mut rows = Vec::new();
    let mut outside = BTreeSet::new();
    let mut in_outside = false;
    for line in body.lines() {
        if line.starts_with("#### EPMPI functions outside") {
            in_outside = true;
        } else if let Some(cells) = line.strip_prefix("| `MPI_") {
            let cells: Vec<&str> = cells.split('|').map(str::trim).collect();
            rows.push((format!("MPI_{}", cells[0].trim_end_matches('`')), cells[1].to_string()));
        } else if in_outside {
            outside.extend(line.split(", ").map(|f| f.trim_matches('`').to_string()).filter(|f| f.starts_with("EP_")));
        }
    }
    (rows, outside)
}

#[test]
fn coverage_table_matches_header() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(dir.join("include/ep_mpi.h")).unwrap();
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let functions = header_functions(&header);
    assert!(functions.len() > 50, "found only {} functions in the header", functions.len());
    let (rows, outside) = table(&readme);
    assert!(rows.len() > 250, "the coverage table has only {} rows", rows.len());
    let mut problems = Vec::new();
    let mut covered = BTreeSet::new();
    for (mpi, state) in &rows {
        let ep = format!("EP_{}", &mpi[4..]);
        let provided = state.starts_with("yes");
        if provided && state != &format!("yes: `{ep}`") {
            problems.push(format!("{mpi}: state {state:?} does not name {ep}"));
        }
        match (provided, functions.contains(&ep)) {
            (true, false) => problems.push(format!("{mpi}: table says provided, the header has no {ep}")),
            (false, true) => problems.push(format!("{mpi}: the header has {ep}, the table says {state:?}")),
            _ => {}
        }
        covered.insert(ep);
    }
    for f in &functions {
        if !covered.contains(f) && !outside.contains(f) {
            problems.push(format!("{f} is in the header but not in the coverage table"));
        }
    }
    for f in &outside {
        if !functions.contains(f) {
            problems.push(format!("{f} is listed outside the chapters but not in the header"));
        }
    }
    assert!(problems.is_empty(), "regenerate the table (python3 docs/mpi_coverage.py):\n{}", problems.join("\n"));
}

//! The Fortran module keeps step with the C header (`include/ep_mpi.h`):
//! * every numeric `#define EP_*` of the header is a parameter of `fortran/ep_mpi.f90` with the
//!   same value, and every `EP_*` parameter of the module is in the header, except the
//!   Fortran-only status indices `EP_SOURCE`, `EP_TAG`, `EP_ERROR`, which must point at the
//!   fields `MPI_SOURCE`, `MPI_TAG`, `MPI_ERROR` of `EP_Status` (1-based), whose int count is
//!   `EP_STATUS_SIZE`;
//! * every function `EP_*` of the header has its routine `ep_*` in the module (public),
//!   unless listed in `NOT_YET_IN_FORTRAN`.
//!
//! No MPI needed: this reads the two files.

use std::collections::BTreeMap;

/// C functions knowingly without a Fortran routine yet. Adding a C function? Bind it in
/// fortran/ep_mpi.f90 (and ep_mpi_c.f90 / ep_mpi_glue.c), or list it here for the time being.
const NOT_YET_IN_FORTRAN: &[&str] = &[];

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `#define EP_NAME <integer>` of the header.
fn header_constants(header: &str) -> BTreeMap<String, i64> {
    header
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            (words.next()? == "#define").then_some(())?;
            let name = words.next()?;
            let value = words.next()?.parse::<i64>().ok()?;
            name.starts_with("EP_").then(|| (name.to_string(), value))
        })
        .collect()
}

/// `integer, parameter, public :: EP_A = 1, EP_B = -2` of the module (names upper-cased).
fn module_constants(module: &str) -> BTreeMap<String, i64> {
    let mut found = BTreeMap::new();
    for line in module.lines().map(str::trim) {
        let lower = line.to_ascii_lowercase();
        if !(lower.starts_with("integer, parameter") && lower.contains("::")) {
            continue;
        }
        let decls = line.split_once("::").unwrap().1;
        for decl in decls.split(',') {
            if let Some((name, value)) = decl.split_once('=') {
                let name = name.trim().to_ascii_uppercase();
                if let (true, Ok(v)) = (name.starts_with("EP_"), value.trim().parse::<i64>()) {
                    found.insert(name, v);
                }
            }
        }
    }
    found
}

/// Field names of `typedef struct { ... } EP_Status;`, in order.
fn status_fields(header: &str) -> Vec<String> {
    let end = header.find("} EP_Status;").expect("EP_Status in the header");
    let start = header[..end].rfind("typedef struct {").expect("typedef struct of EP_Status");
    header[start..end]
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("int ").and_then(|f| f.strip_suffix(';')))
        .map(str::to_string)
        .collect()
}

#[test]
fn module_constants_equal_header_constants() {
    let header = read("include/ep_mpi.h");
    let module = read("fortran/ep_mpi.f90");
    let c = header_constants(&header);
    let f = module_constants(&module);
    assert!(c.len() > 30 && f.len() > 30, "parsing found too few constants: {} in C, {} in Fortran", c.len(), f.len());
    let mut problems = Vec::new();
    for (name, value) in &c {
        match f.get(name) {
            None => problems.push(format!("{name} = {value} is missing from fortran/ep_mpi.f90")),
            Some(v) if v != value => problems.push(format!("{name}: {value} in the header, {v} in the module")),
            _ => {}
        }
    }
    let fields = status_fields(&header);
    for (index_name, field) in [("EP_SOURCE", "MPI_SOURCE"), ("EP_TAG", "MPI_TAG"), ("EP_ERROR", "MPI_ERROR")] {
        let position = fields.iter().position(|f| f == field).map(|p| p as i64 + 1);
        if f.get(index_name).copied() != position {
            problems.push(format!("{index_name} must be {position:?} (field {field} of EP_Status), is {:?}", f.get(index_name)));
        }
    }
    if c.get("EP_STATUS_SIZE").copied() != Some(fields.len() as i64) {
        problems.push(format!("EP_STATUS_SIZE is not the {} int fields of EP_Status", fields.len()));
    }
    for name in f.keys() {
        if !c.contains_key(name) && !["EP_SOURCE", "EP_TAG", "EP_ERROR"].contains(&name.as_str()) {
            problems.push(format!("{name} of the module is not in the header"));
        }
    }
    assert!(problems.is_empty(), "fortran/ep_mpi.f90 and include/ep_mpi.h disagree:\n{}", problems.join("\n"));
}

#[test]
fn every_c_function_has_a_fortran_routine() {
    let header = read("include/ep_mpi.h");
    let module = read("fortran/ep_mpi.f90").to_ascii_lowercase();
    let c_functions: Vec<&str> = header
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("int ").or_else(|| l.strip_prefix("double "))?;
            let name = rest.split('(').next()?;
            name.starts_with("EP_").then_some(name)
        })
        .collect();
    assert!(c_functions.len() > 40, "parsing found only {} C functions", c_functions.len());
    let public: String = module.lines().filter(|l| l.trim_start().starts_with("public ::")).collect::<Vec<_>>().join(",");
    let missing: Vec<String> = c_functions
        .iter()
        .filter(|name| !NOT_YET_IN_FORTRAN.contains(name))
        .map(|name| name.to_ascii_lowercase())
        .filter(|routine| {
            let declared = module.contains(&format!("subroutine {routine}("))
                || module.contains(&format!("function {routine}("));
            let exported = public.split([',', ' ', ':']).any(|w| w == routine.as_str());
            !(declared && exported)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "C functions without a public Fortran routine in fortran/ep_mpi.f90: {}\n(bind them, or list the C \
         names in NOT_YET_IN_FORTRAN of tests/fortran_constants.rs for the time being)",
        missing.join(", ")
    );
}

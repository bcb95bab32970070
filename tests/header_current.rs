//! The committed `include/ep_mpi.h` must equal what cbindgen generates from the sources
//! (build.rs writes the fresh one into OUT_DIR). Regenerate with
//! `EPMPI_BLESS_HEADER=1 cargo build` and commit the result.

#[test]
fn committed_header_is_current() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/ep_mpi.h"));
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/ep_mpi.h"))
        .expect("include/ep_mpi.h exists");
    assert!(
        generated == committed,
        "include/ep_mpi.h is stale: run `EPMPI_BLESS_HEADER=1 cargo build` and commit it"
    );
}

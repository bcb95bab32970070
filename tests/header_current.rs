//! The committed `include/ep_mpi.h` must equal what cbindgen generates from the sources
//! (`src/ffi` and the types it exports, configured by `cbindgen.toml`), so a stale header cannot
//! land. The same test is the explicit step that writes it: after changing the C interface run
//!
//! ```sh
//! EPMPI_BLESS_HEADER=1 cargo test --test header_current
//! ```
//!
//! and commit `include/ep_mpi.h`. Generation lives here rather than in `build.rs` so that
//! building the library never writes into the source tree (a read-only checkout, a vendored
//! copy or a packaging build must not change) and does not compile cbindgen at all.

use std::path::Path;

/// Generates the header from the crate's sources with the committed configuration.
fn generate_header(crate_dir: &Path) -> String {
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is readable");
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates ep_mpi.h from the sources");
    let mut bytes = Vec::new();
    bindings.write(&mut bytes);
    String::from_utf8(bytes).expect("cbindgen writes UTF-8")
}

#[test]
fn committed_header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let committed_path = crate_dir.join("include").join("ep_mpi.h");
    let generated = generate_header(crate_dir);
    if std::env::var("EPMPI_BLESS_HEADER").is_ok_and(|v| v == "1") {
        std::fs::write(&committed_path, &generated).expect("write include/ep_mpi.h");
        eprintln!("wrote {}", committed_path.display());
        return;
    }
    let committed = std::fs::read_to_string(&committed_path).expect("include/ep_mpi.h exists");
    assert!(
        generated == committed,
        "include/ep_mpi.h is stale: run `EPMPI_BLESS_HEADER=1 cargo test --test header_current` \
         and commit it"
    );
}

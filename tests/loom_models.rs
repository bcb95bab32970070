//! The loom model checks of `tests/loom`: a separate crate (no MPI) whose first build takes a
//! minute or two (loom and its dependencies); the models then run for about 5 minutes on the
//! 2-core development machine. Ignored by a plain `cargo test` for that; `tests/run_all.sh`
//! runs it (`cargo test --test loom_models -- --include-ignored`, unless `EPMPI_TEST_LOOM=0`).
//! By hand, without this wrapper:
//! `cargo test --release --manifest-path tests/loom/Cargo.toml`.

use std::path::PathBuf;
use std::process::Command;

#[test]
#[ignore = "loom model checks, minutes: run with --include-ignored (tests/run_all.sh does)"]
fn loom_models() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // One target directory for every MPI: the loom crate does not depend on it.
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "--release", "--manifest-path"])
        .arg(dir.join("tests/loom/Cargo.toml"))
        .arg("--target-dir")
        .arg(dir.join("target/loom"))
        .env_remove("RUSTFLAGS")
        .status()
        .expect("run cargo");
    assert!(status.success(), "loom models failed");
}

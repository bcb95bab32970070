//! The loom model checks of `tests/loom` (issue 10), run from `cargo test` when
//! `EPMPI_TEST_LOOM=1`: a separate crate (no MPI) whose first build takes a minute or two
//! (loom and its dependencies), then seconds. By hand:
//! `cargo test --release --manifest-path tests/loom/Cargo.toml`.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn loom_models() {
    if std::env::var("EPMPI_TEST_LOOM").as_deref() != Ok("1") {
        eprintln!("loom models skipped (set EPMPI_TEST_LOOM=1)");
        return;
    }
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

//! Build script: compiles the host-MPI shim and generates the C header.
//!
//! * `src/host_shim.c` (and `src/host_rma_shim.c`, the one-sided constants) is compiled with the host MPI's C compiler wrapper (`$MPICC`, default
//!   `mpicc`), because predefined handles such as `MPI_BYTE` or `MPI_IN_PLACE` are macros or
//!   link-time objects that bindgen (inside mpi-sys) cannot see.
//! * `src/host_probe.c`, preprocessed with the same wrapper, tells which host this is: Open
//!   MPI 4.x sets the cfg `epmpi_ompi4` (the workaround in `src/engine/win/ompi4.rs`).
//! * cbindgen writes `ep_mpi.h` into `OUT_DIR`. The committed `include/ep_mpi.h` is only
//!   rewritten when it is missing or `EPMPI_BLESS_HEADER=1` is set; the test
//!   `tests/header_current.rs` fails when the two differ, so a stale header cannot land.
use std::{env, fs, path::PathBuf};

fn main() {
    let mpicc = env::var("MPICC").unwrap_or_else(|_| "mpicc".to_string());
    println!("cargo:rerun-if-env-changed=MPICC");
    println!("cargo:rerun-if-env-changed=EPMPI_BLESS_HEADER");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=src/host_shim.c");
    println!("cargo:rerun-if-changed=cbindgen.toml");

    cc::Build::new()
        .compiler(&mpicc)
        .file("src/host_shim.c")
        .file("src/host_rma_shim.c")
        .file("src/thread_slot.c")
        .warnings(true)
        .extra_warnings(true)
        .compile("epmpi_host_shim");

    // Which host MPI this is, for host workarounds compiled on the Rust side only.
    println!("cargo:rustc-check-cfg=cfg(epmpi_ompi4)");
    let probe = cc::Build::new().compiler(&mpicc).file("src/host_probe.c").expand();
    if String::from_utf8_lossy(&probe).contains("EPMPI_PROBE_OMPI4") {
        println!("cargo:rustc-cfg=epmpi_ompi4");
    }

    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is readable");
    let generated = out_dir.join("ep_mpi.h");
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates ep_mpi.h")
        .write_to_file(&generated);

    let committed = crate_dir.join("include").join("ep_mpi.h");
    let bless = env::var("EPMPI_BLESS_HEADER").map(|v| v == "1").unwrap_or(false);
    if bless || !committed.exists() {
        fs::create_dir_all(committed.parent().unwrap()).unwrap();
        fs::copy(&generated, &committed).expect("write include/ep_mpi.h");
    }
}

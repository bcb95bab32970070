// The model-checked files switch their atomics to loom's on cfg(loom): set it for this crate
// only (RUSTFLAGS would rebuild every dependency with it).
fn main() {
    println!("cargo:rustc-cfg=loom");
}

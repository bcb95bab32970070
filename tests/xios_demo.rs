//! The XIOS demo of `examples/xios_demo` (what `examples/run_demo.sh` runs), built here as the
//! script builds it: the Fortran modules `ep_mpi` (`fortran/sources.cmake`) and `ep_xios`
//! (`EPMPI_XIOS_FORTRAN_SOURCES` of `xios_adapter/sources.cmake`), the protocol
//! (`EPMPI_XIOS_PROTOCOL_SOURCES`), the model (Fortran) and the server (C, NetCDF), with the host
//! MPI's wrappers named like `$MPICC`, under `-Wall -Wextra -Werror`, against the
//! `libepmpi.so` of this build. Each test runs one MPMD job (`mpirun -np N model ... : -np S
//! server ...`) and checks the server's report and `xios_demo: VERIFIED`, then the NetCDF file
//! on its own: `ncdump -h` (dimensions, variables, CF attributes) and every value printed by
//! `ncdump -v`, compared with the formulas of `examples/xios_demo/fields.h` re-derived here.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::*;

/// Flags of every Fortran compilation (those of tests/fortran_programs.rs).
const FFLAGS: &[&str] = &["-std=f2018", "-Wall", "-Wextra", "-Werror", "-fopenmp", "-O1", "-g"];
/// Flags of every C compilation.
const CFLAGS: &[&str] = &["-std=c11", "-O1", "-g", "-fopenmp", "-pthread", "-Wall", "-Wextra", "-Werror"];
/// Sources of the demo, in compile order.
const MODEL_SOURCES: &[&str] = &["demo_fields.f90", "demo_options.f90", "demo_client.f90", "model.f90"];
const SERVER_SOURCES: &[&str] = &["server.c", "assemble.c", "output.c"];

fn mpif90() -> String {
    std::env::var("EPMPI_MPIF90").unwrap_or_else(|_| mpi_tool("mpif90"))
}

/// `nc-config --cflags` or `--libs`, split into arguments.
fn nc_config(what: &str) -> Vec<String> {
    run_checked(Command::new("nc-config").arg(what), "nc-config").split_whitespace().map(String::from).collect()
}

/// Compiles one C or Fortran source into `dir` (Fortran modules go to `dir` too).
fn compile(src: &Path, dir: &Path, extra: &[&str], extra_owned: &[String]) -> PathBuf {
    let obj = dir.join(src.file_stem().unwrap()).with_extension("o");
    let mut cmd;
    if src.extension().map(|e| e == "c").unwrap_or(false) {
        cmd = Command::new(mpicc());
        cmd.args(CFLAGS)
            .arg(format!("-I{}", project_dir().join("include").display()))
            .arg(format!("-I{}", project_dir().join("xios_adapter/include").display()));
    } else {
        cmd = Command::new(mpif90());
        cmd.args(FFLAGS).arg(format!("-J{}", dir.display())).arg(format!("-I{}", dir.display()));
    }
    cmd.args(extra).args(extra_owned).arg("-c").arg(src).arg("-o").arg(&obj);
    run_checked(&mut cmd, &format!("compiling {}", src.display()));
    obj
}

/// The objects of the modules `ep_mpi` and `ep_xios`, compiled into `dir` with `kinds` flags.
fn module_objects(dir: &Path, kinds: &[&str]) -> Vec<PathBuf> {
    let fortran = cmake_source_list(&project_dir().join("fortran/sources.cmake"), "EPMPI_FORTRAN_SOURCES");
    let adapter = project_dir().join("xios_adapter/sources.cmake");
    let xios = cmake_source_list(&adapter, "EPMPI_XIOS_FORTRAN_SOURCES");
    fortran
        .iter()
        .chain(xios.iter())
        .map(|s| {
            let is_fortran = s.extension().map(|e| e == "f90").unwrap_or(false);
            compile(s, dir, if is_fortran { kinds } else { &[] }, &[])
        })
        .collect()
}

/// The demo's two programs.
struct Demo {
    model: PathBuf,
    server: PathBuf,
    /// tests/xios/fortran_server.f90: the server side of `ep_xios`, checking every event.
    fortran_server: PathBuf,
}

/// Builds the demo once per test binary.
fn demo() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        let dir = target_profile_dir().join("xios-demo").join("build");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let lib = library_dir();
        assert!(lib.join("libepmpi.so").exists(), "libepmpi.so not found in {}", lib.display());
        let link = [
            format!("-L{}", lib.display()),
            "-lepmpi".to_string(),
            format!("-Wl,--disable-new-dtags,-rpath,{}", lib.display()),
        ];
        let adapter = project_dir().join("xios_adapter/sources.cmake");
        let protocol: Vec<PathBuf> = cmake_source_list(&adapter, "EPMPI_XIOS_PROTOCOL_SOURCES")
            .iter()
            .map(|s| compile(s, &dir, &[], &[]))
            .collect();
        let examples = project_dir().join("examples/xios_demo");

        let mut model_objects = module_objects(&dir, &[]);
        model_objects.extend(MODEL_SOURCES.iter().map(|s| compile(&examples.join(s), &dir, &[], &[])));
        let model = dir.join("model");
        run_checked(
            Command::new(mpif90()).arg("-fopenmp").args(&model_objects).args(&protocol).arg("-o").arg(&model).args(&link),
            "linking the model",
        );
        // The Fortran server: the modules and demo_fields/demo_options (not the model's client).
        let mut fortran_server_objects: Vec<PathBuf> =
            model_objects.iter().filter(|o| !o.ends_with("demo_client.o") && !o.ends_with("model.o")).cloned().collect();
        fortran_server_objects.push(compile(&project_dir().join("tests/xios/fortran_server.f90"), &dir, &[], &[]));
        let fortran_server = dir.join("fortran_server");
        run_checked(
            Command::new(mpif90())
                .arg("-fopenmp")
                .args(&fortran_server_objects)
                .args(&protocol)
                .arg("-o")
                .arg(&fortran_server)
                .args(&link),
            "linking the Fortran server",
        );

        let nc_cflags = nc_config("--cflags");
        let server_objects: Vec<PathBuf> =
            SERVER_SOURCES.iter().map(|s| compile(&examples.join(s), &dir, &[], &nc_cflags)).collect();
        let server = dir.join("server");
        run_checked(
            Command::new(mpicc())
                .args(&server_objects)
                .args(&protocol)
                .arg("-o")
                .arg(&server)
                .args(nc_config("--libs"))
                .args(&link)
                .args(["-fopenmp", "-lm"]),
            "linking the server",
        );
        Demo { model, server, fortran_server }
    })
}

// ---- the formulas of examples/xios_demo/fields.h, written again --------------------------------

fn lon(i: usize, j: usize, nx: usize, ny: usize) -> f64 {
    let (xi, yj) = ((i as f64 + 0.5) / nx as f64, (j as f64 + 0.5) / ny as f64);
    -180.0 + 360.0 * xi + 15.0 * (2.0 * std::f64::consts::PI * yj).sin()
}

fn lat(i: usize, j: usize, nx: usize, ny: usize) -> f64 {
    let (xi, yj) = ((i as f64 + 0.5) / nx as f64, (j as f64 + 0.5) / ny as f64);
    -75.0 + 150.0 * yj + 5.0 * (2.0 * std::f64::consts::PI * xi).cos()
}

fn field(f: usize, t: usize, k: usize, lat: f64, lon: f64) -> f64 {
    let (la, lo) = (lat.to_radians(), lon.to_radians());
    if f == 0 {
        28.0 * la.cos() * la.cos() - 2.0 * k as f64 + 1.5 * (lo + 0.3 * t as f64).sin()
    } else {
        35.0 + 0.5 * (2.0 * la).sin() * (lo - 0.2 * t as f64).cos() + 0.05 * k as f64
    }
}

/// The values of variable `name` in `ncdump -v` output (`name = v, v, ... ;` in the data part).
fn ncdump_values(dump: &str, name: &str) -> Vec<f64> {
    let data = &dump[dump.find("\ndata:").expect("ncdump output has no data section")..];
    let start = data.find(&format!("\n {name} =")).unwrap_or_else(|| panic!("no data of {name}")) + name.len() + 4;
    let end = start + data[start..].find(';').expect("end of the values");
    data[start..end]
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|v| !v.is_empty())
        .map(|v| v.parse().unwrap_or_else(|e| panic!("{name}: value {v:?}: {e}")))
        .collect()
}

fn assert_close(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{what}: file has {got}, the formula gives {want}");
}

/// A demo run: `clients` model processes with `threads` each (cycled), `servers` servers.
struct Run {
    clients: u32,
    threads: &'static str,
    servers: u32,
    transport: &'static str,
    timesteps: usize,
    grid: (usize, usize, usize),
}

impl Run {
    fn name(&self) -> String {
        format!("{}x({})+{}-{}", self.clients, self.threads, self.servers, self.transport)
    }

    /// Runs the job and checks the report, then the file with ncdump.
    fn check(&self) {
        let demo = demo();
        let dir = target_profile_dir().join("xios-demo").join(self.name());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.nc");
        let (nx, ny, nz) = self.grid;
        let grid = format!("{nx}x{ny}x{nz}");
        let steps = self.timesteps.to_string();
        let model_args = ["--threads", self.threads, "--transport", self.transport, "--timesteps", &steps, "--grid", &grid];
        let path_arg = path.to_str().unwrap();
        let server_args = ["--output", path_arg];
        let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
        let start = Instant::now();
        let out = mpirun_mpmd(
            &[
                App { procs: self.clients, exe: &demo.model, args: &model_args },
                App { procs: self.servers, exe: &demo.server, args: &server_args },
            ],
            Duration::from_secs(60),
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let counts: Vec<u32> = self.threads.split(',').map(|c| c.parse().unwrap()).collect();
        let endpoints: u32 = (0..self.clients as usize).map(|p| counts[p % counts.len()]).sum();
        let layout: Vec<String> = (0..self.clients as usize).map(|p| counts[p % counts.len()].to_string()).collect();
        let expected = [
            format!("xios_demo: VERIFIED {}", path.display()),
            format!(
                "clients {endpoints} = {} processes x threads {}; servers {}; transport {}",
                self.clients,
                layout.join(","),
                self.servers,
                self.transport
            ),
            format!("{} timesteps; grid {nx} x {ny} x {nz}", self.timesteps),
            format!("{} values checked", (2 + 2 * self.timesteps * nz) * nx * ny),
            format!("xios_demo model: {endpoints} clients ({} processes x threads {})", self.clients, layout.join(",")),
        ];
        for line in &expected {
            assert!(
                out.status.success() && stdout.contains(line.as_str()),
                "xios demo {}: missing {line:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
                self.name()
            );
        }
        eprintln!("xios_demo {}: VERIFIED in {:.1} s", self.name(), start.elapsed().as_secs_f64());
        self.check_file(&path);
    }

    /// The file on its own, through ncdump.
    fn check_file(&self, path: &Path) {
        let (nx, ny, nz) = self.grid;
        let header = run_checked(Command::new("ncdump").arg("-h").arg(path), "ncdump -h");
        for line in [
            format!("time = UNLIMITED ; // ({} currently)", self.timesteps),
            format!("z = {nz} ;"),
            format!("y = {ny} ;"),
            format!("x = {nx} ;"),
            "double time(time) ;".into(),
            "double nav_lon(y, x) ;".into(),
            "double nav_lat(y, x) ;".into(),
            "nav_lon:units = \"degrees_east\" ;".into(),
            "nav_lat:units = \"degrees_north\" ;".into(),
            "double temperature(time, z, y, x) ;".into(),
            "temperature:units = \"degC\" ;".into(),
            "temperature:coordinates = \"nav_lat nav_lon\" ;".into(),
            "double salinity(time, z, y, x) ;".into(),
            "salinity:long_name = \"sea water salinity\" ;".into(),
            ":Conventions = \"CF-1.8\" ;".into(),
        ] {
            assert!(header.contains(&line), "ncdump -h {}: no {line:?}\n{header}", path.display());
        }
        let dump = run_checked(
            Command::new("ncdump").args(["-p", "9,17", "-v", "time,nav_lon,nav_lat,temperature,salinity"]).arg(path),
            "ncdump -v",
        );
        let (lons, lats) = (ncdump_values(&dump, "nav_lon"), ncdump_values(&dump, "nav_lat"));
        assert_eq!(lons.len(), nx * ny, "nav_lon values");
        assert_eq!(lats.len(), nx * ny, "nav_lat values");
        for j in 0..ny {
            for i in 0..nx {
                assert_close(lons[j * nx + i], lon(i, j, nx, ny), &format!("nav_lon(y {j}, x {i})"));
                assert_close(lats[j * nx + i], lat(i, j, nx, ny), &format!("nav_lat(y {j}, x {i})"));
            }
        }
        let times = ncdump_values(&dump, "time");
        assert_eq!(times, (0..self.timesteps).map(|t| t as f64).collect::<Vec<_>>(), "time values");
        for (f, name) in ["temperature", "salinity"].iter().enumerate() {
            let values = ncdump_values(&dump, name);
            assert_eq!(values.len(), self.timesteps * nz * ny * nx, "{name} values");
            for (n, got) in values.iter().enumerate() {
                let (i, j, k, t) = (n % nx, n / nx % ny, n / (nx * ny) % nz, n / (nx * ny * nz));
                let want = field(f, t, k, lat(i, j, nx, ny), lon(i, j, nx, ny));
                assert_close(*got, want, &format!("{name}(time {t}, z {k}, y {j}, x {i})"));
            }
        }
    }
}

#[test]
fn two_processes_of_two_threads_one_server_one_sided() {
    Run { clients: 2, threads: "2", servers: 1, transport: "one-sided", timesteps: 4, grid: (100, 100, 5) }.check();
}

/// Uneven threads and an uneven split: 37 columns over 4 clients, 23 rows over 2 servers.
#[test]
fn uneven_threads_two_servers_one_sided() {
    Run { clients: 2, threads: "3,1", servers: 2, transport: "one-sided", timesteps: 3, grid: (37, 23, 3) }.check();
}

#[test]
fn uneven_threads_two_servers_two_sided() {
    Run { clients: 2, threads: "1,3", servers: 2, transport: "two-sided", timesteps: 3, grid: (37, 23, 3) }.check();
}

/// The model with `tests/xios/fortran_server.f90` as servers: module `ep_xios` on the server
/// side (accept, test/wait, metadata and payload copies, errors through ierror, finalize).
fn fortran_servers(transport: &str) {
    let demo = demo();
    let model_args = ["--threads", "2,1", "--transport", transport, "--timesteps", "2", "--grid", "13x11x2"];
    let server_args = ["--grid", "13x11x2"];
    let _guard = MPI_JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let out = mpirun_mpmd(
        &[
            App { procs: 2, exe: &demo.model, args: &model_args },
            App { procs: 2, exe: &demo.fortran_server, args: &server_args },
        ],
        Duration::from_secs(60),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // 3 clients x 2 fields x 2 timesteps, to each of the 2 servers.
    assert!(
        out.status.success() && stdout.contains("xios_fortran_server: PASS 2 servers, 3 clients, 24 field events checked"),
        "Fortran servers ({transport}) failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

#[test]
fn fortran_servers_one_sided() {
    fortran_servers("one-sided");
}

#[test]
fn fortran_servers_two_sided() {
    fortran_servers("two-sided");
}

/// `ep_xios` builds cleanly with 8-byte default integers and reals too (with `ep_mpi`, as a
/// user compiling that way would build both).
#[test]
fn ep_xios_module_is_clean_with_default_integer_8() {
    let dir = target_profile_dir().join("xios-demo").join("eight-byte-kinds");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let objects = module_objects(&dir, &["-fdefault-integer-8", "-fdefault-real-8"]);
    assert!(dir.join("ep_xios.mod").exists() && objects.len() >= 5, "no ep_xios.mod in {}", dir.display());
}

/// Module `ep_xios` keeps step with `xios_adapter/include/ep_xios.h`: every `#define EPX_*` is
/// a parameter of the module with the same value, and every function `EPX_*` has its public
/// subroutine `epx_*`. No MPI needed: this reads the two files.
#[test]
fn ep_xios_module_matches_the_header() {
    let header = std::fs::read_to_string(project_dir().join("xios_adapter/include/ep_xios.h")).unwrap();
    let module = std::fs::read_to_string(project_dir().join("xios_adapter/fortran/ep_xios.f90")).unwrap();
    // `NAME = value` of the module's parameters, values as written (kind suffixes dropped).
    let mut parameters = std::collections::BTreeMap::new();
    for line in module.lines().map(str::trim).filter(|l| l.contains("parameter, public ::")) {
        for decl in line.split_once("::").unwrap().1.split(", ") {
            if let Some((name, value)) = decl.split_once('=') {
                let value = value.trim().split('_').next().unwrap().trim_matches('\'').to_string();
                parameters.insert(name.trim().to_string(), value);
            }
        }
    }
    let mut defines = 0;
    for line in header.lines().filter(|l| l.starts_with("#define EPX_")) {
        let mut words = line.splitn(3, char::is_whitespace).skip(1);
        let name = words.next().unwrap();
        let text = words.next().unwrap().trim();
        let value = match text {
            "(1 << 20)" => "1048576".to_string(),
            t if t.starts_with('(') => t.trim_matches(|c| c == '(' || c == ')').to_string(),
            t => t.trim_matches('"').to_string(),
        };
        assert_eq!(parameters.get(name), Some(&value), "{name} (header: {text}) in ep_xios.f90: {parameters:?}");
        defines += 1;
    }
    assert!(defines >= 10, "only {defines} #define EPX_* found in the header");
    let lower = module.to_ascii_lowercase();
    let mut functions = 0;
    for name in header.lines().filter_map(|l| l.strip_prefix("int EPX_")).map(|l| l.split('(').next().unwrap()) {
        let routine = format!("epx_{}", name.to_ascii_lowercase());
        assert!(lower.contains(&format!("subroutine {routine}(")), "EPX_{name} has no subroutine {routine}");
        assert!(
            lower.lines().any(|l| l.trim_start().starts_with("public ::")
                && (l.contains(&format!(" {routine},")) || l.ends_with(&format!(" {routine}")))),
            "{routine} is not public"
        );
        functions += 1;
    }
    assert_eq!(functions, 14, "functions of ep_xios.h");
}

//! EPMPI: MPI endpoints on top of an unmodified host MPI (Open MPI or MPICH).
//!
//! An endpoints communicator gives every thread of a process its own MPI rank. After
//! [`EP_Comm_create_endpoints`] (or the team form [`EP_Comm_create_endpoint`]) each endpoint
//! handle behaves like a separate MPI process: point-to-point with wildcards and probes,
//! completion calls, collectives called once per endpoint, communicator split, dup and
//! intercommunicators, one-sided windows.
//!
//! # The C interface
//!
//! The exported `EP_*` functions (re-exported here from [`ffi`]) are the C interface of
//! `include/ep_mpi.h`, which cbindgen generates from these docstrings; the Fortran module
//! `ep_mpi` calls the same functions. Names, argument order and meaning are MPI's (MPI 4.1),
//! with these rules throughout:
//!
//! * **Handles** ([`EP_Comm`], [`EP_Request`], [`EP_Message`], [`EP_Win`]) are `int`s with the
//!   same value in C and Fortran. One communicator handle names one endpoint (one rank) of one
//!   communicator; the endpoint's identity lives in the handle, never in the calling thread.
//!   A handle that is null, freed, of another kind or never issued gives its error class
//!   (`EP_ERR_COMM`, `EP_ERR_REQUEST`, ...), never a crash.
//! * **Host objects**: datatypes (predefined and derived), reduction ops (predefined and
//!   user-defined), `MPI_Info`, `MPI_Aint`, `MPI_IN_PLACE` and `MPI_BOTTOM` are the host MPI's
//!   own. Counts are in elements of the datatype, displacements in elements or bytes as the
//!   MPI function says.
//! * **Constants** (`EP_ANY_SOURCE`, `EP_PROC_NULL`, `EP_UNDEFINED`, the error classes
//!   `EP_ERR_*`, ...) are EPMPI's own, the same under every host MPI ([`ffi::types`]).
//! * **Errors**: every function returns `EP_SUCCESS` (0) or an error code;
//!   [`EP_Error_class`] gives its class, [`EP_Error_string`] a message naming the call and the
//!   cause. The communicator's error handler applies: `EP_ERRORS_ARE_FATAL` (the default)
//!   prints that message and aborts the job, `EP_ERRORS_RETURN` returns the code. Bad input
//!   never writes past a buffer or truncates a tag; no Rust panic crosses the C boundary (it
//!   becomes `EP_ERR_INTERN`).
//! * **Threads**: the host must provide `MPI_THREAD_MULTIPLE` (creation fails with
//!   `EP_ERR_THREAD_LEVEL` otherwise). Any thread may call on any endpoint, and many threads
//!   may call at once on different endpoints; one endpoint is used by one thread at a time, as
//!   one MPI process is by its own calls.
//! * **Progress**: an endpoint makes progress when it is used: its blocking calls and
//!   completion calls advance its pending operations, as in MPI. A blocked endpoint never
//!   waits for another thread of its process to enter EPMPI.
//! * **Statuses**: [`EP_Status`] has MPI's public fields `MPI_SOURCE`, `MPI_TAG`, `MPI_ERROR`;
//!   `EP_STATUS_IGNORE` and `EP_STATUSES_IGNORE` are accepted everywhere.
//! * **Tags** up to the `EP_TAG_UB` attribute (2^31 - 1 on every host) travel whole.
//!
//! Calls that are valid outside `MPI_Init_thread` .. `MPI_Finalize` are those MPI allows
//! there (`EP_Error_class`, `EP_Error_string`, `EP_Get_library_version`, ...); every other call
//! then returns `EP_ERR_NOT_INITIALIZED`.
//!
//! # Layers
//!
//! After MPICH's second-generation device interface: [`ffi`] is the C ABI; `handles` maps
//! integer handles to objects; `engine` holds communicators and rank maps, the matching
//! queues, the local (shared memory) and remote (host MPI) transports, and requests; `host`
//! wraps the host MPI. Only the C interface is public; `tests/layers.rs` checks that each
//! layer uses only those below it and that no module imports form a cycle. The design
//! contract is `DESIGN.md`; the user guide is the README.

#![warn(clippy::undocumented_unsafe_blocks)]

pub(crate) mod engine;
pub mod error;
pub mod ffi;
pub(crate) mod handles;
pub(crate) mod host;
pub(crate) mod live;

pub use ffi::*;

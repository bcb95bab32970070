//! EPMPI: MPI endpoints on top of an unmodified host MPI (Open MPI or MPICH).
//!
//! An endpoints communicator gives every thread of a process its own MPI rank. After
//! `EP_Comm_create_endpoints` (or the team form `EP_Comm_create_endpoint`) each endpoint
//! handle behaves like a separate MPI process: point-to-point with wildcards and probes,
//! completion calls, communicator management. See `DESIGN.md` and `include/ep_mpi.h`.
//!
//! Layers (after MPICH's second-generation device interface): [`ffi`] is the C ABI;
//! [`handles`] maps integer handles to objects; [`engine`] holds communicators and rank maps,
//! the matching queues, the local (shared memory) and remote (host MPI) transports, and
//! requests; [`host`] wraps the host MPI.

#![allow(clippy::missing_safety_doc)]
// Engine functions carry the addresses of user buffers that the C boundary took from the user,
// as MPI calls do (the user keeps them valid, MPI 4.1 section 3.7.2); marking each such
// function `unsafe` would spread `unsafe` blocks through the engine without adding a check.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod engine;
pub mod error;
pub mod ffi;
pub mod handles;
pub mod host;
pub mod live;

pub use ffi::*;

//! The C ABI of `include/ep_mpi.h`. Every exported function carries `#[c_export]`
//! (`macros/`), which checks its signature and runs its body through `boundary::run` under
//! the function's own name: panics caught, pointers and handles checked, errors mapped to
//! codes and passed to the error handler.

pub mod attr_api;
pub mod attr_mpi1_api;
pub(crate) mod boundary;
pub mod bsend_api;
pub mod coll_api;
mod coll_args;
mod coll_inter;
pub mod comm_api;
pub mod completion_api;
pub mod errhandler_api;
pub mod graph_api;
pub mod group_api;
pub mod host_comm_api;
pub mod icoll_api;
pub mod misc_api;
pub mod neighbor_api;
mod object_name;
pub mod p2p_api;
pub mod pcoll_api;
pub mod persistent_api;
pub mod sendrecv_api;
pub mod status_api;
pub mod team_api;
pub mod topo_api;
pub mod types;
pub mod win_api;
pub mod win_cache_api;

pub use attr_api::*;
pub use attr_mpi1_api::*;
pub use bsend_api::*;
pub use coll_api::*;
pub use comm_api::*;
pub use completion_api::*;
pub use errhandler_api::*;
pub use graph_api::*;
pub use group_api::*;
pub use host_comm_api::*;
pub use icoll_api::*;
pub use misc_api::*;
pub use neighbor_api::*;
pub use p2p_api::*;
pub use pcoll_api::*;
pub use persistent_api::*;
pub use sendrecv_api::*;
pub use status_api::*;
pub use team_api::*;
pub use topo_api::*;
pub use types::*;
pub use win_api::*;
pub use win_cache_api::*;

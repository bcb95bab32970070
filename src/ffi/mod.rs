//! The C ABI of `include/ep_mpi.h`. Every exported function carries `#[c_export]`
//! (`macros/`), which checks its signature and runs its body through `boundary::run` under
//! the function's own name: panics caught, pointers and handles checked, errors mapped to
//! codes and passed to the error handler.

pub(crate) mod boundary;
pub mod coll_api;
pub mod comm_api;
pub mod completion_api;
pub mod host_comm_api;
pub mod icoll_api;
pub mod misc_api;
pub mod p2p_api;
pub mod types;
pub mod win_api;

pub use coll_api::*;
pub use comm_api::*;
pub use completion_api::*;
pub use host_comm_api::*;
pub use icoll_api::*;
pub use misc_api::*;
pub use p2p_api::*;
pub use types::*;
pub use win_api::*;

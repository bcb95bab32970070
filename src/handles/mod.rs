//! The handle registry, between the C boundary ([`crate::ffi`]) and the [`crate::engine`]:
//! integer handles of every kind map to engine objects ([`table`]), one table per kind with
//! the lookups the C functions use ([`registry`], and [`comm_lookup`] for communicators,
//! through a per-thread cache), and the per-thread record of the call in progress
//! ([`call_state`]).

pub(crate) mod call_state;
pub(crate) mod comm_lookup;
pub(crate) mod registry;
mod table;
pub(crate) mod teams;

pub(crate) use comm_lookup::{endpoint, endpoint_ref, remove_endpoint, EpRef};
pub(crate) use registry::{
    call_user_handler, errhandler, free_group, group, keyval, message, new_group, new_request, request, requests, window, MessageObj, Taken,
    COMMS, ERRHANDLERS, KEYVALS, MESSAGES, REQUESTS, WINS,
};
pub(crate) use table::{Kind, Lookup, Table};

//! The handle tables of every kind and the lookups of requests, messages and windows: the
//! layer between the C boundary and the engine. A handle that is null, freed, of another kind
//! or never issued becomes its error class with a message naming the handle.

use super::call_state::note_handler;
use super::{Kind, Lookup, Table};
use crate::engine::comm::Endpoint;
use crate::engine::envelope::Envelope;
use crate::engine::p2p::Payload;
use crate::engine::request::Request;
use crate::engine::win::WinEndpoint;
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_INTERN, ERR_REQUEST, ERR_WIN};
use std::os::raw::c_int;
use std::sync::{Arc, LazyLock};

/// A message taken by `EP_Mprobe`/`EP_Improbe`, waiting for `EP_Mrecv`.
pub(crate) struct MessageObj {
    pub ep: Arc<Endpoint>,
    pub envelope: Envelope,
    /// The message itself until `EP_Mrecv`/`EP_Imrecv` takes it.
    pub taken: parking_lot::Mutex<Option<Taken>>,
}

/// Where a taken message waits: the engine's payload, or the host (direct mode).
pub(crate) enum Taken {
    Engine(Payload),
    Host(crate::engine::direct::DirectMessage),
}

pub(crate) static COMMS: LazyLock<Table<Endpoint>> = LazyLock::new(|| Table::new(Kind::Comm));
pub(crate) static REQUESTS: LazyLock<Table<Request>> = LazyLock::new(|| Table::new(Kind::Request));
pub(crate) static MESSAGES: LazyLock<Table<MessageObj>> =
    LazyLock::new(|| Table::new(Kind::Message));
pub(crate) static WINS: LazyLock<Table<WinEndpoint>> = LazyLock::new(|| Table::new(Kind::Win));

/// The error of a failed lookup of handle `h` of kind `what`, with its class.
pub(crate) fn lookup_error(what: &str, h: c_int, why: Lookup, class: c_int) -> EpError {
    let reason = match why {
        Lookup::Null => "is the null handle",
        Lookup::WrongKind => "is not a handle of this kind",
        Lookup::Stale => "was freed or never existed",
    };
    ep_err!(class, "{what} handle {h} {reason}")
}

/// The request behind a request handle.
#[inline]
pub(crate) fn request(h: c_int) -> EpResult<Arc<Request>> {
    let r = REQUESTS
        .get(h)
        .map_err(|why| lookup_error("request", h, why, ERR_REQUEST))?;
    if let Some(ep) = &r.ep {
        note_handler(ep.errhandler());
    }
    Ok(r)
}

/// The message behind a message handle.
pub(crate) fn message(h: c_int) -> EpResult<Arc<MessageObj>> {
    let m = MESSAGES
        .get(h)
        .map_err(|why| lookup_error("message", h, why, ERR_REQUEST))?;
    note_handler(m.ep.errhandler());
    Ok(m)
}

/// The window endpoint behind a window handle.
pub(crate) fn window(h: c_int) -> EpResult<Arc<WinEndpoint>> {
    let w = WINS
        .get(h)
        .map_err(|why| lookup_error("window", h, why, ERR_WIN))?;
    note_handler(w.errhandler());
    Ok(w)
}

/// Withdraws the pre-posted host receives of every endpoint still alive at `MPI_Finalize`
/// (a program that never freed its communicators), so the host finalizes cleanly.
pub(crate) fn withdraw_host_receives() {
    COMMS.for_each(|ep| {
        ep.state().queues.lock().remote_rx = None;
        crate::engine::topo::create::withdraw_host_receives(&ep.shared, ep.local);
    });
    for ep in crate::engine::request::orphanage_endpoints() {
        ep.state().queues.lock().remote_rx = None;
    }
}

/// Stores endpoint `ep` (local index `hint` of its process, which spreads the endpoints of one
/// communicator over the table's shards), returning its communicator handle. The first one
/// arranges that [`withdraw_host_receives`] runs when the host MPI finalizes.
pub(crate) fn insert_endpoint(ep: Arc<Endpoint>, hint: usize) -> EpResult<c_int> {
    let _ = crate::host::BEFORE_FINALIZE.set(withdraw_host_receives);
    COMMS
        .insert_near(ep, hint)
        .ok_or_else(|| ep_err!(ERR_INTERN, "too many live communicator handles"))
}

/// Stores a request, returning its handle.
pub(crate) fn new_request(r: Arc<Request>) -> EpResult<c_int> {
    REQUESTS
        .insert(r)
        .ok_or_else(|| ep_err!(ERR_INTERN, "too many live requests"))
}

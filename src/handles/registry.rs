//! The handle tables of every kind and the lookups of requests, messages and windows: the
//! layer between the C boundary and the engine. A handle that is null, freed, of another kind
//! or never issued becomes its error class with a message naming the handle.

use super::call_state::{note_endpoint, note_handler, note_handler_of};
use super::{Kind, Lookup, Table};
use crate::engine::comm::Endpoint;
use crate::engine::envelope::Envelope;
use crate::engine::p2p::Payload;
use crate::engine::request::Request;
use crate::engine::win::WinEndpoint;
use crate::ep_err;
use crate::engine::attr::Keyval;
use crate::engine::errhandler::Errhandler;
use crate::engine::group::Group;
use crate::error::{EpError, EpResult, ERR_ARG, ERR_GROUP, ERR_INTERN, ERR_KEYVAL, ERR_REQUEST, ERR_WIN};
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
pub(crate) static GROUPS: LazyLock<Table<Group>> = LazyLock::new(|| Table::new(Kind::Group));
pub(crate) static KEYVALS: LazyLock<Table<Keyval>> = LazyLock::new(|| Table::new(Kind::Keyval));
pub(crate) static ERRHANDLERS: LazyLock<Table<Errhandler>> = LazyLock::new(|| Table::new(Kind::Errhandler));

/// `EP_GROUP_EMPTY` (the header's value): the predefined empty group, never in the table.
pub(crate) const GROUP_EMPTY: c_int = 1;
static EMPTY_GROUP: LazyLock<Arc<Group>> = LazyLock::new(|| Arc::new(Group::new(Vec::new()).expect("empty")));

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
    note_request(&r);
    Ok(r)
}

/// Records the error handler of request `r`'s communicator for the call in progress: its
/// endpoint's, or for a request without endpoint the one it started with (`origin`).
fn note_request(r: &Request) {
    match (&r.ep, r.origin) {
        (Some(ep), _) => note_endpoint(ep),
        (None, (0, 0)) => {}
        (None, (handler, comm)) => note_handler_of(handler, comm),
    }
}

/// The requests behind an array of request handles, `None` for the null ones and for those
/// `keep` refuses; the table's shards locked once per run of handles in the same shard (see
/// `Table::get_each`). Errors: `EP_ERR_REQUEST` for the first handle that is invalid, freed
/// or of another kind.
pub(crate) fn requests(hs: &[c_int], keep: impl Fn(&Request) -> bool) -> EpResult<Vec<Option<Arc<Request>>>> {
    let mut out = Vec::with_capacity(hs.len());
    let mut first_bad = None;
    REQUESTS.get_each(hs, |r| match r {
        Ok(r) => out.push(Some(r)),
        Err(why) => {
            if why != Lookup::Null && first_bad.is_none() {
                first_bad = Some((out.len(), why));
            }
            out.push(None);
        }
    });
    // As one `request` per handle in turn would: the requests before a bad one are noted
    // (the last one's error handler reports the error).
    let good = first_bad.as_ref().map_or(out.len(), |(i, _)| *i);
    out[..good].iter().flatten().for_each(|r| note_request(r));
    if let Some((i, why)) = first_bad {
        return Err(lookup_error("request", hs[i], why, ERR_REQUEST));
    }
    for r in out.iter_mut() {
        if r.as_deref().is_some_and(|q| !keep(q)) {
            *r = None;
        }
    }
    Ok(out)
}

/// The message behind a message handle.
pub(crate) fn message(h: c_int) -> EpResult<Arc<MessageObj>> {
    let m = MESSAGES
        .get(h)
        .map_err(|why| lookup_error("message", h, why, ERR_REQUEST))?;
    note_endpoint(&m.ep);
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

/// The group behind a group handle (`EP_GROUP_EMPTY` included). Errors: `EP_ERR_GROUP`.
pub(crate) fn group(h: c_int) -> EpResult<Arc<Group>> {
    if h == GROUP_EMPTY {
        return Ok(EMPTY_GROUP.clone());
    }
    GROUPS.get(h).map_err(|why| lookup_error("group", h, why, ERR_GROUP))
}

/// A handle for group `g`: `EP_GROUP_EMPTY` when it has no member (as MPI's group calls
/// return `MPI_GROUP_EMPTY`).
pub(crate) fn new_group(g: Group) -> EpResult<c_int> {
    if g.size() == 0 {
        return Ok(GROUP_EMPTY);
    }
    GROUPS.insert(Arc::new(g)).ok_or_else(|| ep_err!(ERR_INTERN, "too many live groups"))
}

/// Frees a group handle (`EP_GROUP_EMPTY`: nothing to free). Errors: `EP_ERR_GROUP`.
pub(crate) fn free_group(h: c_int) -> EpResult<()> {
    if h == GROUP_EMPTY {
        return Ok(());
    }
    GROUPS.remove(h).map(drop).map_err(|why| lookup_error("group", h, why, ERR_GROUP))
}

/// The keyval behind a keyval handle. Errors: `EP_ERR_KEYVAL`.
pub(crate) fn keyval(h: c_int) -> EpResult<Arc<Keyval>> {
    KEYVALS.get(h).map_err(|why| lookup_error("keyval", h, why, ERR_KEYVAL))
}

/// The user error handler behind a handle, while the user holds it. Errors: `EP_ERR_ARG`
/// (MPI has no error class for error handlers; MPICH and Open MPI use `MPI_ERR_ARG` too).
pub(crate) fn errhandler(h: c_int) -> EpResult<Arc<Errhandler>> {
    let e = ERRHANDLERS.get(h).map_err(|why| lookup_error("error handler", h, why, ERR_ARG))?;
    if !e.is_held() {
        return Err(lookup_error("error handler", h, Lookup::Stale, ERR_ARG));
    }
    Ok(e)
}

/// Calls user error handler `h` (still registered while endpoints use it, even after the
/// user freed it) with endpoint handle `comm` and error `code`; false when `h` is no user
/// handler. The handler is the user's code: the caller holds no lock of the library.
pub(crate) fn call_user_handler(h: c_int, mut comm: c_int, mut code: c_int) -> bool {
    let Ok(e) = ERRHANDLERS.get(h) else { return false };
    // SAFETY: the user's handler with the arguments MPI gives it: pointers to live copies of
    // the endpoint's handle and the error code, and no further argument.
    unsafe { (e.func)(&mut comm, &mut code) };
    true
}

/// Stores endpoint `ep` (local index `hint` of its process, which spreads the endpoints of one
/// communicator over the table's shards), returning its communicator handle.
pub(crate) fn insert_endpoint(ep: Arc<Endpoint>, hint: usize) -> EpResult<c_int> {
    let h = COMMS
        .insert_near(ep.clone(), hint)
        .ok_or_else(|| ep_err!(ERR_INTERN, "too many live communicator handles"))?;
    ep.set_handle(h);
    Ok(h)
}

/// Stores a request, returning its handle.
pub(crate) fn new_request(r: Arc<Request>) -> EpResult<c_int> {
    REQUESTS
        .insert(r)
        .ok_or_else(|| ep_err!(ERR_INTERN, "too many live requests"))
}

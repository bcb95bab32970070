//! The buffer of buffered-mode sends (MPI 4.1 section 3.6): `EP_Buffer_attach` and
//! `EP_Buffer_detach`, and the accounting of the messages that `EP_Bsend`/`EP_Ibsend` left
//! in it.
//!
//! Scope: one buffer per process, shared by every endpoint of every communicator of the
//! process, as MPI's `MPI_Buffer_attach` is per process (its C signature names no
//! communicator). Any thread may attach, detach and send; one lock guards the state.
//!
//! The attached memory is a budget, never written: a buffered message is packed into memory
//! of EPMPI's own and sent from there, and the bytes it holds (packed size plus
//! `EP_BSEND_OVERHEAD`) are charged to the attached size until the send completes. A message
//! is charged before it is started, so that a message that does not fit is refused
//! (`EP_ERR_BUFFER`) with nothing sent; one that completes at once (eager, same process or
//! short host message) gives its charge back before the call returns. The outstanding bytes
//! never exceed the attached size.

use super::backoff::Backoff;
use super::p2p::SendState;
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_BUFFER};
use parking_lot::Mutex;
use std::os::raw::c_void;

/// Bytes charged to the attached buffer per buffered message beyond its data (the public
/// `EP_BSEND_OVERHEAD`).
pub(crate) const BSEND_OVERHEAD: usize = 96;

/// An attached buffer: the user's address (given back by detach) and size.
struct Attached {
    addr: usize,
    size: usize,
}

/// A buffered message still being sent: its send and the packed copy it reads.
struct Outstanding {
    send: SendState,
    _data: Vec<u8>,
    charge: usize,
}

struct State {
    attached: Option<Attached>,
    /// Bytes charged: reserved by sends being started and held by outstanding ones.
    used: usize,
    outstanding: Vec<Outstanding>,
}

static STATE: Mutex<State> = Mutex::new(State {
    attached: None,
    used: 0,
    outstanding: Vec::new(),
});

/// A charge against the attached buffer, reserved by [`reserve`]; give it back with
/// [`release`] or hand it with the message to [`keep`].
#[must_use]
pub struct Charge(usize);

/// Tests the outstanding messages once, giving back the charges of those complete. Errors of
/// a completed send belong to nobody any more (the call that started it has returned): such a
/// send counts as complete.
fn progress(st: &mut State) {
    let mut freed = 0;
    st.outstanding.retain_mut(|o| {
        let done = o.send.test().unwrap_or(true);
        if done {
            freed += o.charge;
        }
        !done
    });
    st.used -= freed;
}

/// Attaches `size` bytes at `addr` as the process's buffer (MPI 4.1 section 3.6.1). Errors:
/// `EP_ERR_BUFFER` when a buffer is already attached, `EP_ERR_ARG` for a negative size or a
/// NULL address with a positive size.
pub fn attach(addr: *mut c_void, size: i64) -> EpResult<()> {
    if size < 0 {
        return Err(ep_err!(ERR_ARG, "buffer size {size} is negative"));
    }
    if addr.is_null() && size > 0 {
        return Err(ep_err!(ERR_ARG, "buffer is NULL with size {size}"));
    }
    let mut st = STATE.lock();
    if st.attached.is_some() {
        return Err(ep_err!(
            ERR_BUFFER,
            "a buffer is already attached to this process (detach it first)"
        ));
    }
    st.attached = Some(Attached { addr: addr as usize, size: size as usize });
    Ok(())
}

/// Detaches the process's buffer once every message buffered in it has been delivered
/// (MPI 4.1 section 3.6.1); returns its address and size. Blocks meanwhile, progressing the
/// process (the patient waiter's progress). Errors: `EP_ERR_BUFFER` when no buffer is
/// attached.
pub fn detach() -> EpResult<(*mut c_void, usize)> {
    let mut b = Backoff::new();
    loop {
        {
            let mut st = STATE.lock();
            if st.attached.is_none() {
                return Err(ep_err!(ERR_BUFFER, "no buffer is attached to this process"));
            }
            progress(&mut st);
            if st.outstanding.is_empty() && st.used == 0 {
                let a = st.attached.take().expect("checked above");
                return Ok((a.addr as *mut c_void, a.size));
            }
        }
        b.snooze();
    }
}

/// Charges a message of `bytes` packed bytes to the attached buffer, after giving back the
/// charges of the messages delivered since. Errors: `EP_ERR_BUFFER` when no buffer is
/// attached or the message does not fit in what is left.
pub fn reserve(bytes: usize) -> EpResult<Charge> {
    let mut st = STATE.lock();
    progress(&mut st);
    let Some(a) = &st.attached else {
        return Err(ep_err!(
            ERR_BUFFER,
            "no buffer is attached for buffered-mode sends (EP_Buffer_attach)"
        ));
    };
    let need = bytes.saturating_add(BSEND_OVERHEAD);
    let free = a.size - st.used;
    if need > free {
        return Err(ep_err!(
            ERR_BUFFER,
            "a buffered message of {bytes} bytes needs {need} bytes of the attached buffer \
             (EP_BSEND_OVERHEAD included); {free} of its {} bytes are free",
            a.size
        ));
    }
    st.used += need;
    Ok(Charge(need))
}

/// Gives back the charge of a message that needs no room (sent at once, or not sent).
pub fn release(c: Charge) {
    STATE.lock().used -= c.0;
}

/// Keeps a started message, its packed data and its charge until its send completes.
pub fn keep(send: SendState, data: Vec<u8>, c: Charge) {
    STATE.lock().outstanding.push(Outstanding { send, _data: data, charge: c.0 });
}

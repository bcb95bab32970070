//! Nonblocking collectives: `EP_Ibarrier` and `EP_Ibcast` (MPI 4.1 section 6.12).
//!
//! The k-th nonblocking collective of every endpoint of a process on one communicator is
//! one shared instance, found through the communicator's meeting point for nonblocking
//! collectives (keyed by k, see [`crate::engine::meeting::MeetingPoint::join`]). Each
//! endpoint's call joins it and returns a request at once; the last
//! endpoint to join starts the process's host operation (`MPI_Ibarrier`, `MPI_Ibcast`). Host
//! operations thus start in the order every endpoint called its collectives, which is the
//! order MPI requires (and blocking collectives cannot overtake: their host call needs every
//! endpoint to have arrived, so after every earlier start). Testing a request tests the host
//! request; a broadcast lands in the instance's buffer and each endpoint unpacks its copy.

use super::board::Kind;
use super::host_bytes::c_bytes;
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::engine::host_op::HostOp;
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_OTHER};
use crate::host::{check, sys, HostRequest, HOST};
use parking_lot::Mutex;
use std::os::raw::c_void;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// One nonblocking collective of this process's endpoints.
pub struct Instance {
    kind: Kind,
    state: Mutex<State>,
}

struct State {
    arrived: usize,
    /// Every endpoint has joined and the host part is under way (or not needed).
    started: bool,
    host: Option<HostRequest>,
    host_done: bool,
    /// `EP_Ibcast`: the packed data (the root's copy, or where the host broadcast lands).
    data: Vec<u8>,
    error: Option<EpError>,
}

impl Drop for State {
    /// An instance dropped while its host operation runs (every endpoint's request gone, or
    /// an error before the requests were made) hands the host request and the buffer it
    /// fills to the orphanage (see [`crate::engine::host_op`]).
    fn drop(&mut self) {
        if let Some(req) = self.host.take() {
            if !self.host_done {
                drop(HostOp::one(req, std::mem::take(&mut self.data)));
            }
        }
    }
}

/// One endpoint's part of a nonblocking collective, behind its request.
pub struct CollRequest {
    instance: Arc<Instance>,
    /// `EP_Ibcast` on a non-root: where the data goes.
    recv: Option<UserBuf>,
    done: bool,
}

/// Joins the next nonblocking collective of `ep`'s communicator. `bcast`: the buffer and the
/// root rank (checked by the caller).
pub fn start(ep: &Endpoint, kind: Kind, bcast: Option<(UserBuf, i32)>) -> EpResult<CollRequest> {
    let s = &ep.shared;
    let seq = ep.state().nb_seq.fetch_add(1, Ordering::Relaxed) + 1;
    let bytes = bcast.map_or(0, |(b, _)| b.bytes());
    let instance = s.nb_collectives.join(seq, s.local_count(), ep.local as usize, || Instance {
        kind,
        state: Mutex::new(State {
            arrived: 0,
            started: false,
            host: None,
            host_done: false,
            data: vec![0; bytes],
            error: None,
        }),
    })?;
    let mut st = instance.state.lock();
    st.arrived += 1;
    if instance.kind != kind {
        st.error = Some(ep_err!(
            ERR_OTHER,
            "endpoints of one process started different nonblocking collectives at the same point ({:?} and {kind:?})",
            instance.kind
        ));
    }
    let mut recv = None;
    if let Some((buf, root)) = bcast {
        if root == ep.rank {
            if st.data.len() == bytes {
                // A failure belongs to the collective, not to this call alone: this endpoint
                // has arrived, so the instance must still start and every request report it.
                if let Err(e) = buf.pack_to(&mut st.data) {
                    st.error = Some(e);
                }
            } else {
                st.error = Some(ep_err!(ERR_OTHER, "EP_Ibcast byte counts differ between endpoints"));
            }
        } else {
            recv = Some(buf);
        }
    }
    if st.arrived == s.local_count() {
        st.started = true;
        if st.error.is_none() && s.is_multi_process() {
            let mut req = HostRequest(HOST.request_null);
            let rc = match bcast {
                // SAFETY: `s.host` lives while `s` does; the host writes `req.0`, a live local.
                None => unsafe { check(sys::MPI_Ibarrier(s.host.0, &mut req.0), "MPI_Ibarrier") },
                Some((_, root)) => {
                    let root_proc = s.location(root).expect("root checked by the caller").proc as i32;
                    // An empty Vec's address is 0x1, which is Open MPI's MPI_IN_PLACE: give the
                    // host a real address even for zero bytes.
                    let ptr = if st.data.is_empty() { &mut st.host_done as *mut bool as *mut c_void } else { st.data.as_mut_ptr() as *mut c_void };
                    // SAFETY: `ptr` is `st.data` (`len` bytes) or, when empty, the address of
                    // `st.host_done`; both live in the instance, which each endpoint's request holds and
                    // tests until the host request completes (`data` is not resized meanwhile). A request
                    // dropped before then (no `Drop` waits for the host) would free it under the host.
                    c_bytes(st.data.len()).and_then(|len| unsafe {
                        check(sys::MPI_Ibcast(ptr, len, HOST.byte, root_proc, s.host.0, &mut req.0), "MPI_Ibcast")
                    })
                }
            };
            match rc {
                Ok(()) => st.host = Some(req),
                Err(e) => st.error = Some(e),
            }
        } else {
            st.host_done = true;
        }
    }
    drop(st);
    Ok(CollRequest { instance, recv, done: false })
}

impl CollRequest {
    /// True once this endpoint's part is complete (its broadcast data unpacked).
    pub fn test(&mut self) -> EpResult<bool> {
        if self.done {
            return Ok(true);
        }
        let mut st = self.instance.state.lock();
        if !st.started {
            return Ok(false);
        }
        if let Some(e) = &st.error {
            self.done = true;
            return Err(e.clone());
        }
        if !st.host_done {
            let req = st.host.as_mut().expect("started with a host request");
            let mut flag = 0;
            // SAFETY: `req` is the instance's started host request, under its lock; the host writes
            // it and `flag`, and the status is ignored.
            unsafe { check(sys::MPI_Test(&mut req.0, &mut flag, HOST.status_ignore), "MPI_Test")? };
            if flag == 0 {
                return Ok(false);
            }
            st.host_done = true;
        }
        if let Some(buf) = &self.recv {
            if st.data.len() != buf.bytes() {
                self.done = true;
                return Err(ep_err!(ERR_OTHER, "EP_Ibcast byte counts differ between endpoints"));
            }
            buf.unpack_from(&st.data)?;
        }
        self.done = true;
        Ok(true)
    }
}

//! Host operations that own their memory: host requests together with the
//! buffer they read or write, and the orphanage of those whose owner went first.
//!
//! An operation the host still works on owns its host requests together with the memory
//! those requests read or write ([`HostOp`]). When the owner goes first (a request freed
//! while active, a blocking call that returns an error while its host part is in flight, a
//! communicator freed with a nonblocking collective under way), the host operation and its
//! memory move to this module's orphanage, and patient blocked calls test them until the host
//! is done, then free both: the scheme of the MPICH ADI2 note for freed requests (the device
//! keeps a freed request until its operation completes). Nothing is cancelled: a cancelled
//! data receive would leave its peer's send waiting forever.
//!
//! Below the transports, which start host operations, and everything that keeps them: it
//! knows only the host MPI.

use crate::error::EpResult;
use crate::host::{self, check, sys, HostRequest, HOST};
use super::orphanage::Orphanage;
use std::os::raw::c_int;

/// Host requests and the memory they use, owned together: dropping a `HostOp` whose requests
/// are still live hands it to the orphanage instead of freeing memory the host reads or writes.
/// Two requests are held inline (a message's header and its data); the parts of a striped
/// message (docs/teams.md) add theirs in `more`, which stays empty, and unallocated, otherwise.
pub struct HostOp {
    requests: [HostRequest; 2],
    active: usize,
    more: Vec<HostRequest>,
    keep: Vec<u8>,
}

impl HostOp {
    /// An operation of the `active` (1 or 2) first started requests of `requests`, reading
    /// or writing `keep` (which must not be resized while they are live).
    #[inline]
    pub fn new(requests: [HostRequest; 2], active: usize, keep: Vec<u8>) -> HostOp {
        debug_assert!(active <= 2);
        HostOp { requests, active, more: Vec::new(), keep }
    }

    /// One started request with its memory.
    #[inline]
    pub fn one(request: HostRequest, keep: Vec<u8>) -> HostOp {
        HostOp::new([request, HostRequest(HOST.request_null)], 1, keep)
    }

    /// Adds a second started request using the same memory.
    #[inline]
    pub fn add(&mut self, request: HostRequest) {
        debug_assert!(self.active == 1);
        self.requests[1] = request;
        self.active = 2;
    }

    /// Adds a started request using the same memory, whatever the number already held.
    pub fn push(&mut self, request: HostRequest) {
        if self.active < 2 {
            self.requests[self.active] = request;
            self.active += 1;
        } else {
            self.more.push(request);
        }
    }

    /// The memory the host requests use.
    pub fn keep(&self) -> &[u8] {
        &self.keep
    }

    /// The memory of an operation whose host requests are complete ([`HostOp::test`] said
    /// so), handed back to its owner.
    pub fn into_keep(mut self) -> Vec<u8> {
        debug_assert!(!self.is_live());
        std::mem::take(&mut self.keep)
    }

    /// True once every host request completed (they are then `MPI_REQUEST_NULL`); errors of
    /// `MPI_Testall` (host failures) are the operation's own.
    #[inline]
    pub fn test(&mut self) -> EpResult<bool> {
        let mut flag = 0;
        // SAFETY: `requests` holds the `active` (at most 2) started host requests, contiguous
        // `MPI_Request`s (`HostRequest` is `repr(transparent)`); the host writes them and `flag`,
        // and the statuses are ignored. Completed ones are `MPI_REQUEST_NULL`, which the host
        // skips.
        unsafe {
            check(
                sys::MPI_Testall(
                    self.active as c_int,
                    self.requests.as_mut_ptr() as *mut sys::MPI_Request,
                    &mut flag,
                    HOST.status_ignore,
                ),
                "MPI_Testall",
            )?
        };
        if flag == 0 || self.more.is_empty() {
            return Ok(flag != 0);
        }
        // SAFETY: as above, for the `more.len()` started requests of `more`.
        unsafe {
            check(
                sys::MPI_Testall(
                    self.more.len() as c_int,
                    self.more.as_mut_ptr() as *mut sys::MPI_Request,
                    &mut flag,
                    HOST.status_ignore,
                ),
                "MPI_Testall",
            )?
        };
        Ok(flag != 0)
    }

    /// True while a host request is still live.
    #[inline]
    fn is_live(&self) -> bool {
        self.requests[..self.active].iter().chain(&self.more).any(|r| !r.is_null())
    }

    /// Takes the operation out of `self`, leaving nothing live behind.
    fn take(&mut self) -> HostOp {
        let null = HostRequest(HOST.request_null);
        HostOp {
            requests: std::mem::replace(&mut self.requests, [null, null]),
            active: std::mem::take(&mut self.active),
            more: std::mem::take(&mut self.more),
            keep: std::mem::take(&mut self.keep),
        }
    }
}

impl Drop for HostOp {
    fn drop(&mut self) {
        if !self.is_live() {
            return;
        }
        let op = self.take();
        if host::finalizing() || !host::mpi_is_active() {
            // The host can no longer be asked; its memory must not be freed under it.
            std::mem::forget(op);
            return;
        }
        ORPHANAGE.adopt([op]);
    }
}

/// The host operations of the process whose owners are gone.
static ORPHANAGE: Orphanage<HostOp> = Orphanage::new();

/// Tests the orphaned host operations once; frees those the host is done with. Callable from
/// any thread.
pub fn progress_orphans() {
    // Errors belong to nobody now (the handles are gone): such an orphan counts as complete.
    ORPHANAGE.progress(|op| match op.test() {
        Ok(done) => !done,
        Err(_) => {
            // A failed host: what it holds is leaked, never freed under it.
            std::mem::forget(op.take());
            false
        }
    });
}

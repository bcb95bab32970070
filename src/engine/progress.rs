//! The progress of blocked calls: of one endpoint (pull in its messages, finish its freed
//! requests), and of every endpoint of the process with posted receives, which any patient
//! blocked call makes, whichever thread posted them.
//!
//! Above point-to-point draining, which it drives, and below requests, whose tests call it.
//! The registry of endpoints with posted receives is [`super::pending`]; operations whose
//! owners are gone wait in the orphanages of [`super::request`] (requests) and
//! [`super::host_op`] (host operations).

use super::comm::CommShared;
use super::p2p::drain::{drain, Drain};
use super::pending;
use crate::error::EpResult;

/// Progress for one endpoint: pull in its messages (`how`, widened now and then, see
/// [`Drain::now_and_then_all`]), finish its orphaned requests. Errors: only failures of the
/// endpoint itself (the host refusing or failing its pre-posted header receives, a malformed
/// header), which concern every call on it; an error in delivering a message completes that
/// receive instead (see `p2p::deliver_posted`), and an orphan's error has nobody to go to.
/// Thread-safe: works under the endpoint's queue lock.
pub fn progress(shared: &CommShared, local: u32, how: Drain) -> EpResult<()> {
    {
        let mut q = shared.endpoints[local as usize].queues.lock();
        let how = how.now_and_then_all(&mut q.polls);
        drain(shared, local, &mut q, how)?;
        if q.orphans.is_empty() {
            return Ok(());
        }
    }
    progress_orphans(shared, local)
}

/// Tests the requests freed while active; drops those that completed.
pub(crate) fn progress_orphans(shared: &CommShared, local: u32) -> EpResult<()> {
    let mut q = shared.endpoints[local as usize].queues.lock();
    if q.orphans.is_empty() {
        return Ok(());
    }
    let mut orphans = std::mem::take(&mut q.orphans);
    drop(q);
    // An orphan's error has no handle left to report it: it counts as complete.
    orphans.retain(|r| !r.is_complete());
    shared.endpoints[local as usize]
        .queues
        .lock()
        .orphans
        .extend(orphans);
    Ok(())
}

/// Progress for every endpoint of the process with posted receives: called by blocked calls
/// once patient, from any thread. Matching is per endpoint and a blocked call drains only its
/// own, so without this an endpoint blocked in, say, a synchronous send on one communicator
/// would never match the large or synchronous message a peer sends it on another against a
/// receive posted there, and two such endpoints would wait for each other forever. MPI's
/// progress rule (MPI 4.1 section 3.5) says a posted receive and its matching send complete
/// whatever else the receiver does, which does not depend on the OS thread that posted it (an
/// OpenMP task may migrate; a thread may post and end). Endpoints in use by another thread
/// are left to it; endpoints without posted receives left, and freed communicators, drop out
/// (see [`pending::visit`]).
pub(crate) fn progress_pending() {
    pending::visit(|shared, local, q| {
        if q.matching.posted_len() > 0 {
            // Errors of deliveries complete their receives; what is left is a failure of that
            // endpoint, which its own calls meet again and report.
            let _ = drain(shared, local, q, Drain::All);
        }
        q.matching.posted_len() > 0
    });
}

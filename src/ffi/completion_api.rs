//! Completion calls (MPI 4.1 sections 3.7.3 to 3.7.5, 3.8.4). A completed request's handle is
//! freed and set to `EP_REQUEST_NULL`; null handles in arrays are skipped, as MPI says.
//! Persistent requests (MPI 4.1 section 3.9): completing one ends its round and leaves it
//! inactive with its handle unchanged; an inactive one counts as a null request everywhere.

use super::boundary::{completion_error, input, out, write_status};
use crate::handles::{request, requests, REQUESTS};
use super::types::*;
use crate::engine::p2p::Completion;
use crate::engine::request::{self, Backoff, Request};
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_COUNT, ERR_IN_STATUS};
use epmpi_macros::c_export;
use crate::error;
use std::os::raw::c_int;
use std::sync::Arc;

/// The status of a null or inactive request (MPI 4.1 section 3.7.3).
fn empty() -> Completion {
    request::inactive_completion()
}

/// Fills an optional status as MPI does for a null or inactive request.
///
/// # Safety
/// `status` is NULL or points at a writable `EP_Status`.
unsafe fn write_empty(status: *mut EP_Status) {
    // SAFETY: this function's contract.
    unsafe { write_status(status, &empty()) };
    // SAFETY: a non-null `status` points at an `EP_Status` the caller may write, by
    // the contract of every function that takes one (NULL is `EP_STATUS_IGNORE`).
    if let Some(s) = unsafe { status.as_mut() } {
        s.MPI_ERROR = EP_SUCCESS;
    }
}

/// Frees a request's handle and sets it to `EP_REQUEST_NULL`.
fn remove(h: &mut EP_Request) {
    let _ = REQUESTS.remove(*h);
    *h = EP_REQUEST_NULL;
}

/// Ends a completed request `r` (handle `*h`): a persistent one becomes inactive, keeping its
/// handle; any other is freed (its object goes when the caller drops its reference, into the
/// thread's spares: see [`Resolved`]).
fn retire(h: &mut EP_Request, r: &Request) {
    retire_then(h, r, |h| drop(REQUESTS.remove(h)));
}

/// [`retire`] with the freeing of the handle left to `free` (given the handle, which is then
/// set to `EP_REQUEST_NULL`).
fn retire_then(h: &mut EP_Request, r: &Request, free: impl FnOnce(EP_Request)) {
    if r.is_persistent() {
        r.deactivate();
    } else {
        free(*h);
        *h = EP_REQUEST_NULL;
    }
}

/// The request behind a handle that completion calls act on: `None` for a null handle or an
/// inactive persistent request (MPI 4.1 section 3.7.3). Errors: `EP_ERR_REQUEST`.
fn active(h: EP_Request) -> EpResult<Option<Arc<Request>>> {
    if h == EP_REQUEST_NULL {
        return Ok(None);
    }
    let r = request(h)?;
    Ok(r.is_active().then_some(r))
}

/// Waits for one request; `status` may be `EP_STATUS_IGNORE` (MPI 4.1 section 3.7.3).
/// A null or inactive persistent request returns at once with an empty status; a persistent
/// request's round ends and the request stays, inactive, with its handle. Errors: `EP_ERR_REQUEST` (invalid or
/// freed handle), `EP_ERR_TRUNCATE` (receive truncated; status filled), `EP_ERR_ARG`.
/// Thread safety: one thread per endpoint at a time.
///
/// # Safety
/// `req` points at a readable and writable `EP_Request` (NULL gives `EP_ERR_ARG`); `status` is
/// `EP_STATUS_IGNORE` (NULL) or points at a writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Wait(req: *mut EP_Request, status: *mut EP_Status) -> c_int {
    let h = out(req, "request")?;
    let Some(r) = active(*h)? else {
        write_empty(status);
        return Ok(());
    };
    let c = request::wait(&r)?;
    retire(h, &r);
    request::recycle(r);
    write_status(status, &c);
    completion_error(&c)
}

/// Tests one request (MPI 4.1 section 3.7.3): `*flag = 1` and the handle freed when it is
/// complete, `*flag = 0` otherwise; progresses the request's endpoint. Errors as `EP_Wait`.
///
/// # Safety
/// `req` points at a readable and writable `EP_Request` (NULL gives `EP_ERR_ARG`); `flag`
/// points at a writable `int` (NULL gives `EP_ERR_ARG`); `status` is `EP_STATUS_IGNORE` (NULL)
/// or points at a writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Test(
    req: *mut EP_Request,
    flag: *mut c_int,
    status: *mut EP_Status,
) -> c_int {
    let h = out(req, "request")?;
    let flag = out(flag, "flag")?;
    let Some(r) = active(*h)? else {
        *flag = 1;
        write_empty(status);
        return Ok(());
    };
    match r.test()? {
        Some(c) => {
            retire(h, &r);
            request::recycle(r);
            *flag = 1;
            write_status(status, &c);
            completion_error(&c)
        }
        None => {
            *flag = 0;
            Ok(())
        }
    }
}

/// The requests behind an array of handles (null and inactive ones `None`), as the array
/// calls hold them, and the handles the call freed. Handles are looked up and freed in
/// batches, one lock of the handle table's shard for a window of requests one thread made
/// (`Table::get_each`, `Table::remove_each`), where each request took a lock to be found and
/// another to be freed. Dropping it frees the handles, then hands each request to
/// `request::recycle`: the requests the call completed are then referred to by nothing else,
/// and their allocations are kept for the thread's next nonblocking calls.
struct Resolved {
    reqs: Vec<Option<Arc<Request>>>,
    freed: std::cell::RefCell<Vec<c_int>>,
}

impl Resolved {
    /// Ends completed request `r` (handle `*h`) as [`retire`] does, its handle freed when
    /// `self` is dropped.
    fn retire(&self, h: &mut EP_Request, r: &Request) {
        retire_then(h, r, |h| {
            let mut freed = self.freed.borrow_mut();
            // Sized on the first completion, not before: a test call that completes nothing
            // (a polling loop of `EP_Testany`) allocates nothing for it.
            if freed.capacity() == 0 {
                freed.reserve_exact(self.reqs.len());
            }
            freed.push(h);
        });
    }
}

impl std::ops::Deref for Resolved {
    type Target = [Option<Arc<Request>>];
    fn deref(&self) -> &Self::Target {
        &self.reqs
    }
}

impl Drop for Resolved {
    fn drop(&mut self) {
        // Out of the table first: a request the table still holds is not unique, and
        // `recycle` keeps only unique ones.
        REQUESTS.remove_each(&self.freed.borrow());
        self.reqs.drain(..).flatten().for_each(request::recycle);
    }
}

/// Resolves an array of request handles (null ones give `None`).
unsafe fn resolve(count: c_int, reqs: *mut EP_Request) -> EpResult<Resolved> {
    if count < 0 {
        return Err(ep_err!(ERR_COUNT, "count {count} is negative"));
    }
    if count > 0 && reqs.is_null() {
        return Err(ep_err!(ERR_ARG, "array_of_requests is NULL"));
    }
    let hs: &[EP_Request] = if count == 0 { &[] } else { std::slice::from_raw_parts(reqs, count as usize) };
    Ok(Resolved {
        reqs: requests(hs, Request::is_active)?,
        freed: std::cell::RefCell::new(Vec::new()),
    })
}

/// Stores the outcome of request `i` of an array call into `statuses[i]` (when not ignored),
/// MPI_ERROR included; returns whether it failed.
unsafe fn record(statuses: *mut EP_Status, i: usize, c: &Completion, name: &str) -> bool {
    let failed = c.error != 0;
    if !statuses.is_null() {
        let s = statuses.add(i);
        write_status(s, c);
        (*s).MPI_ERROR = match completion_error(c) {
            Ok(()) => EP_SUCCESS,
            Err(e) => error::register(e.class, format!("{name}: {}", e.msg)),
        };
    }
    failed
}

fn in_status() -> EpResult<()> {
    Err(ep_err!(
        ERR_IN_STATUS,
        "a request failed; its status says how"
    ))
}

/// Waits for all `count` requests (MPI 4.1 section 3.7.5); `statuses` has `count` entries or
/// is `EP_STATUSES_IGNORE`. Errors: `EP_ERR_IN_STATUS` when one failed (see each status's
/// `MPI_ERROR`), `EP_ERR_REQUEST`, `EP_ERR_COUNT`, `EP_ERR_ARG`.
///
/// # Safety
/// `reqs` holds `count` readable and writable `EP_Request`s (NULL only when `count` is 0);
/// `statuses` is `EP_STATUSES_IGNORE` (NULL) or holds `count` writable `EP_Status`es.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Waitall(
    count: c_int,
    reqs: *mut EP_Request,
    statuses: *mut EP_Status,
) -> c_int {
    let rs = resolve(count, reqs)?;
    let mut pending: Vec<usize> = (0..rs.len()).collect();
    let mut failed = false;
    let mut b = Backoff::new();
    // Every pending request is tested, then each endpoint progressed once for all of them
    // (`Request::progress_each`), then each tested again: what testing each one in turn
    // would do, without repeating the same drain for every request of a window.
    let mut sweep = |pending: &mut Vec<usize>| -> EpResult<bool> {
        let mut progressed = false;
        let mut k = 0;
        while k < pending.len() {
            let i = pending[k];
            let c = match &rs[i] {
                None => Some(empty()),
                Some(r) => r.test_without_progress()?,
            };
            match c {
                Some(c) => {
                    failed |= record(statuses, i, &c, "EP_Waitall");
                    if let Some(r) = &rs[i] {
                        rs.retire(&mut *reqs.add(i), r);
                    }
                    pending.swap_remove(k);
                    progressed = true;
                }
                None => k += 1,
            }
        }
        Ok(progressed)
    };
    // Each round after the first sweep: progress, then one sweep (a sweep before the
    // progress as well would test every pending request twice per round for what only the
    // progress can change). A wait only follows a progress that changed nothing.
    sweep(&mut pending)?;
    let mut progressed = true;
    while !pending.is_empty() {
        if !progressed {
            request::snooze_for(&mut b, request::common_bell(pending.iter().filter_map(|&i| rs[i].as_deref())));
        }
        Request::progress_each(pending.iter().filter_map(|&i| rs[i].as_deref()))?;
        progressed = sweep(&mut pending)?;
    }
    if failed {
        in_status()
    } else {
        Ok(())
    }
}

/// Tests all requests (MPI 4.1 section 3.7.5): `*flag = 1` and every handle freed when all
/// are complete; otherwise `*flag = 0` and no handle changes. Errors as `EP_Waitall`.
///
/// # Safety
/// `reqs` holds `count` readable and writable `EP_Request`s (NULL only when `count` is 0);
/// `flag` points at a writable `int` (NULL gives `EP_ERR_ARG`); `statuses` is
/// `EP_STATUSES_IGNORE` (NULL) or holds `count` writable `EP_Status`es.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Testall(
    count: c_int,
    reqs: *mut EP_Request,
    flag: *mut c_int,
    statuses: *mut EP_Status,
) -> c_int {
    test_all(count, reqs, flag, statuses, "EP_Testall", true)
}

/// The body of `EP_Testall` (`retire`: complete the requests) and of
/// `EP_Request_get_status_all` (leave them as they are).
///
/// # Safety
/// As `EP_Testall`; `reqs` is written only when `retire`.
pub(super) unsafe fn test_all(
    count: c_int,
    reqs: *mut EP_Request,
    flag: *mut c_int,
    statuses: *mut EP_Status,
    name: &str,
    retire: bool,
) -> EpResult<()> {
    let flag = out(flag, "flag")?;
    let rs = resolve(count, reqs)?;
    let mut done = Vec::with_capacity(rs.len());
    for r in rs.iter() {
        match r {
            None => done.push(empty()),
            Some(r) => match r.test()? {
                Some(c) => done.push(c),
                None => {
                    *flag = 0;
                    return Ok(());
                }
            },
        }
    }
    *flag = 1;
    let mut failed = false;
    for (i, c) in done.iter().enumerate() {
        failed |= record(statuses, i, c, name);
        if let (true, Some(r)) = (retire, &rs[i]) {
            rs.retire(&mut *reqs.add(i), r);
        }
    }
    if failed {
        in_status()
    } else {
        Ok(())
    }
}

/// One pass over the active requests: the first complete one, if any. `None` inside means no
/// active request at all.
fn first_complete(rs: &[Option<Arc<Request>>]) -> EpResult<Option<Option<(usize, Completion)>>> {
    let mut any_active = false;
    for (i, r) in rs.iter().enumerate() {
        if let Some(r) = r {
            any_active = true;
            if let Some(c) = r.test()? {
                return Ok(Some(Some((i, c))));
            }
        }
    }
    Ok(if any_active { None } else { Some(None) })
}

/// Waits for any one request (MPI 4.1 section 3.7.5): `*index` is its position (0-based),
/// its handle is freed; with no active request `*index = EP_UNDEFINED` and an empty status.
/// Errors: `EP_ERR_TRUNCATE` for the completed receive, `EP_ERR_REQUEST`, `EP_ERR_COUNT`,
/// `EP_ERR_ARG`.
///
/// # Safety
/// `reqs` holds `count` readable and writable `EP_Request`s (NULL only when `count` is 0);
/// `index` points at a writable `int` (NULL gives `EP_ERR_ARG`); `status` is `EP_STATUS_IGNORE`
/// (NULL) or points at a writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Waitany(
    count: c_int,
    reqs: *mut EP_Request,
    index: *mut c_int,
    status: *mut EP_Status,
) -> c_int {
    let index = out(index, "index")?;
    let rs = resolve(count, reqs)?;
    let bell = request::common_bell(rs.iter().flatten().map(|r| &**r));
    let mut b = Backoff::new();
    loop {
        match first_complete(&rs)? {
            Some(Some((i, c))) => {
                rs.retire(&mut *reqs.add(i), rs[i].as_ref().expect("a completed request is active"));
                *index = i as c_int;
                write_status(status, &c);
                return completion_error(&c);
            }
            Some(None) => {
                *index = EP_UNDEFINED;
                write_empty(status);
                return Ok(());
            }
            None => request::snooze_for(&mut b, bell),
        }
    }
}

/// Tests for any one complete request (MPI 4.1 section 3.7.5): `*flag = 1` with `*index` set
/// when one completed (its handle freed), or with `*index = EP_UNDEFINED` when none is
/// active; `*flag = 0` otherwise. Errors as `EP_Waitany`.
///
/// # Safety
/// `reqs` holds `count` readable and writable `EP_Request`s (NULL only when `count` is 0);
/// `index` and `flag` point at writable `int`s (NULL gives `EP_ERR_ARG`); `status` is
/// `EP_STATUS_IGNORE` (NULL) or points at a writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Testany(
    count: c_int,
    reqs: *mut EP_Request,
    index: *mut c_int,
    flag: *mut c_int,
    status: *mut EP_Status,
) -> c_int {
    test_any(count, reqs, index, flag, status, true)
}

/// The body of `EP_Testany` (`retire`: complete the request found) and of
/// `EP_Request_get_status_any` (leave it as it is).
///
/// # Safety
/// As `EP_Testany`; `reqs` is written only when `retire`.
pub(super) unsafe fn test_any(
    count: c_int,
    reqs: *mut EP_Request,
    index: *mut c_int,
    flag: *mut c_int,
    status: *mut EP_Status,
    retire: bool,
) -> EpResult<()> {
    let (index, flag) = (out(index, "index")?, out(flag, "flag")?);
    let rs = resolve(count, reqs)?;
    match first_complete(&rs)? {
        Some(Some((i, c))) => {
            if retire {
                rs.retire(&mut *reqs.add(i), rs[i].as_ref().expect("a completed request is active"));
            }
            *index = i as c_int;
            *flag = 1;
            write_status(status, &c);
            completion_error(&c)
        }
        Some(None) => {
            *index = EP_UNDEFINED;
            *flag = 1;
            write_empty(status);
            Ok(())
        }
        None => {
            *index = EP_UNDEFINED;
            *flag = 0;
            Ok(())
        }
    }
}

/// One pass over every active request, reporting the complete ones (and completing them when
/// `retire`); `None` when no request is active.
unsafe fn some_complete(
    rs: &Resolved,
    reqs: *mut EP_Request,
    indices: *mut c_int,
    statuses: *mut EP_Status,
    name: &str,
    retire: bool,
) -> EpResult<Option<(c_int, bool)>> {
    if rs.iter().all(Option::is_none) {
        return Ok(None);
    }
    let (mut n, mut failed) = (0usize, false);
    for (i, r) in rs.iter().enumerate() {
        if let Some(r) = r {
            if let Some(c) = r.test()? {
                if retire {
                    rs.retire(&mut *reqs.add(i), r);
                }
                *indices.add(n) = i as c_int;
                failed |= record(statuses, n, &c, name);
                n += 1;
            }
        }
    }
    Ok(Some((n as c_int, failed)))
}

/// Waits until at least one request completes and completes all that have (MPI 4.1 section
/// 3.7.5): `*outcount` of them, positions in `indices[0..outcount]`, statuses likewise;
/// `*outcount = EP_UNDEFINED` when none is active. `indices` holds `incount` ints.
/// Errors: `EP_ERR_IN_STATUS`, `EP_ERR_REQUEST`, `EP_ERR_COUNT`, `EP_ERR_ARG`.
///
/// # Safety
/// `reqs` holds `incount` readable and writable `EP_Request`s (NULL only when `incount` is 0);
/// `outcount` points at a writable `int` (NULL gives `EP_ERR_ARG`); `indices` holds `incount`
/// writable `int`s; `statuses` is `EP_STATUSES_IGNORE` (NULL) or holds `incount` writable
/// `EP_Status`es.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Waitsome(
    incount: c_int,
    reqs: *mut EP_Request,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut EP_Status,
) -> c_int {
    let outcount = out(outcount, "outcount")?;
    if incount > 0 && indices.is_null() {
        return Err(ep_err!(ERR_ARG, "array_of_indices is NULL"));
    }
    let rs = resolve(incount, reqs)?;
    let bell = request::common_bell(rs.iter().flatten().map(|r| &**r));
    let mut b = Backoff::new();
    loop {
        match some_complete(&rs, reqs, indices, statuses, "EP_Waitsome", true)? {
            None => {
                *outcount = EP_UNDEFINED;
                return Ok(());
            }
            Some((0, _)) => request::snooze_for(&mut b, bell),
            Some((n, failed)) => {
                *outcount = n;
                return if failed { in_status() } else { Ok(()) };
            }
        }
    }
}

/// Completes every request that is complete, without waiting (MPI 4.1 section 3.7.5);
/// `*outcount` may be 0. Arguments and errors as `EP_Waitsome`.
///
/// # Safety
/// `reqs` holds `incount` readable and writable `EP_Request`s (NULL only when `incount` is 0);
/// `outcount` points at a writable `int` (NULL gives `EP_ERR_ARG`); `indices` holds `incount`
/// writable `int`s; `statuses` is `EP_STATUSES_IGNORE` (NULL) or holds `incount` writable
/// `EP_Status`es.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Testsome(
    incount: c_int,
    reqs: *mut EP_Request,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut EP_Status,
) -> c_int {
    test_some(incount, reqs, outcount, indices, statuses, "EP_Testsome", true)
}

/// The body of `EP_Testsome` (`retire`: complete the requests found) and of
/// `EP_Request_get_status_some` (leave them as they are).
///
/// # Safety
/// As `EP_Testsome`; `reqs` is written only when `retire`.
pub(super) unsafe fn test_some(
    incount: c_int,
    reqs: *mut EP_Request,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut EP_Status,
    name: &str,
    retire: bool,
) -> EpResult<()> {
    let outcount = out(outcount, "outcount")?;
    if incount > 0 && indices.is_null() {
        return Err(ep_err!(ERR_ARG, "array_of_indices is NULL"));
    }
    let rs = resolve(incount, reqs)?;
    match some_complete(&rs, reqs, indices, statuses, name, retire)? {
        None => *outcount = EP_UNDEFINED,
        Some((n, failed)) => {
            *outcount = n;
            if failed {
                return in_status();
            }
        }
    }
    Ok(())
}

/// Frees a request handle and sets it to `EP_REQUEST_NULL` (MPI 4.1 section 3.7.3). An
/// active operation still completes: a send's data is still delivered, a posted receive
/// still fills its buffer when it matches. A persistent request is freed whether inactive
/// or active (its round then completes as above). Errors: `EP_ERR_REQUEST`, `EP_ERR_ARG`.
///
/// # Safety
/// `req` points at a readable and writable `EP_Request` (NULL gives `EP_ERR_ARG`); the buffers
/// of an active request stay the caller's to keep valid until the operation completes, as in
/// MPI.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Request_free(req: *mut EP_Request) -> c_int {
    let h = out(req, "request")?;
    let r = request(*h)?;
    if r.test()?.is_none() {
        r.orphan();
    }
    remove(h);
    Ok(())
}

/// Marks a request for cancellation (MPI 4.1 section 3.8.4). A receive that has not matched
/// is cancelled; a matched receive or a send completes normally. Complete the request with a
/// completion call, then ask `EP_Test_cancelled`. Errors: `EP_ERR_REQUEST`, `EP_ERR_ARG`.
///
/// # Safety
/// `req` points at a readable `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Cancel(req: *mut EP_Request) -> c_int {
    let h = out(req, "request")?;
    request(*h)?.cancel()?;
    Ok(())
}

/// `*flag = 1` when the status is that of a cancelled operation (MPI 4.1 section 3.8.4).
/// Errors: `EP_ERR_ARG`. Thread safety: any thread.
///
/// # Safety
/// `status` points at a readable `EP_Status` filled by EPMPI (NULL gives `EP_ERR_ARG`)
/// and `flag` at a writable `int` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Test_cancelled(status: *const EP_Status, flag: *mut c_int) -> c_int {
    let st = input(status, "status")?;
    *out(flag, "flag")? = st.ep_cancelled;
    Ok(())
}

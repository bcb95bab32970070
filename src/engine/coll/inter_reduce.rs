//! `EP_Reduce`, `EP_Reduce_scatter` and `EP_Reduce_scatter_block` on intercommunicators
//! (MPI 4.1 sections 6.2.2, 6.9.1, 6.10): as `EP_Allreduce` there ([`super::inter`]), each
//! group reduces at its rank 0 in its own rank order (so non-commutative ops are exact), then
//! - reduce: that rank 0 sends the result to the root in the other group;
//! - reduce-scatter: the two ranks 0 swap their groups' results and each scatters the other
//!   group's result in its own group, `recvcounts` of its own group deciding the blocks.

use super::board::AlignedBuf;
use super::gather::{scatterv, ScattervArgs};
use super::inter::{recv_exact, start, view_endpoint, ROOT};
use super::{reduce, Blocks, Layout, ReduceArgs};
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::engine::envelope::PROC_NULL;
use crate::error::EpResult;
use crate::host::{check, sys, HOST};
use std::os::raw::c_int;

/// The group's reduction at the view's rank 0, in engine memory `mem` (typed, the input's
/// layout); `None` on the other ranks.
fn reduce_at_leader(view: &Endpoint, args: &ReduceArgs, mem: &mut AlignedBuf) -> (Option<UserBuf>, EpResult<()>) {
    let ours = (view.rank == 0).then(|| {
        mem.resize(args.input.span());
        // SAFETY: `mem` was just resized to the input's span, which holds `count` elements of
        // its datatype from `base_for(mem.ptr())`; the caller keeps `mem` while it uses `ours`.
        unsafe {
            UserBuf::from_parts(args.input.base_for(mem.ptr()), args.input.count, args.input.dtype, args.input.info)
        }
    });
    let done = reduce(view, &ReduceArgs { recv: ours, root: Some(0), in_place: false, scatter: None, ..*args });
    (ours, done)
}

/// `EP_Reduce` on an intercommunicator: at `EP_ROOT` only `args.recv` is used (the result of
/// the remote group's inputs goes there); with `EP_PROC_NULL` nothing; in the other group
/// `root` is the root's rank there and `args.input` this endpoint's input.
pub fn reduce_inter(ep: &Endpoint, args: &ReduceArgs, root: c_int) -> EpResult<()> {
    let c = start(ep)?;
    match root {
        PROC_NULL => Ok(()),
        ROOT => {
            let recv = args.recv.expect("the root has a receive buffer");
            recv_exact(&recv, c.remote_proc(0), c.to_us(), c.groups.cross, "the remote group")
        }
        _ => {
            let view = view_endpoint(ep, &c.groups);
            let mut mem = AlignedBuf::default();
            let (ours, reduced) = reduce_at_leader(&view, args, &mut mem);
            let Some(ours) = ours else { return reduced };
            let dest = c.remote_proc(root);
            // The root waits for this message even when the reduction failed here.
            // SAFETY: `ours` is typed memory in `mem`, alive until the end of the function; a
            // blocking send on `c.groups.cross`, which lives while the intercommunicator does.
            let sent = unsafe {
                check(
                    sys::MPI_Send(ours.addr, ours.count, ours.dtype, dest as c_int, c.to_them(), c.groups.cross.0),
                    "MPI_Send",
                )
            };
            reduced.and(sent)
        }
    }
}

/// `EP_Reduce_scatter(_block)` on an intercommunicator: `args.input` holds this endpoint's
/// input (the same count in both groups), `args.recv` its block, `args.scatter` the blocks of
/// this group's ranks (with `Layout::Varied`, `displs` is ignored: blocks follow each other).
pub fn reduce_scatter_inter(ep: &Endpoint, args: &ReduceArgs) -> EpResult<()> {
    let c = start(ep)?;
    let view = view_endpoint(ep, &c.groups);
    let mut mem = AlignedBuf::default();
    let (ours, reduced) = reduce_at_leader(&view, args, &mut mem);
    let mut theirs_mem = AlignedBuf::default();
    let mut swapped = Ok(());
    let theirs = ours.map(|ours| {
        theirs_mem.resize(args.input.span());
        // SAFETY: as in `reduce_at_leader`, for `theirs_mem`, alive until the end of the function.
        let theirs = unsafe {
            UserBuf::from_parts(
                args.input.base_for(theirs_mem.ptr()),
                args.input.count,
                args.input.dtype,
                args.input.info,
            )
        };
        let peer = c.remote_proc(0);
        let mut req = HOST.request_null;
        // SAFETY: `ours` is typed memory in `mem`, alive until the end of the function, after
        // the `MPI_Wait` below completes the send; the host writes `req`, a live local.
        let started = unsafe {
            check(
                sys::MPI_Isend(
                    ours.addr,
                    ours.count,
                    ours.dtype,
                    peer as c_int,
                    c.to_them(),
                    c.groups.cross.0,
                    &mut req,
                ),
                "MPI_Isend",
            )
        };
        let received = recv_exact(&theirs, peer, c.to_us(), c.groups.cross, "the remote group");
        // SAFETY: `req` is the send started above, or `MPI_REQUEST_NULL` if it did not start.
        let sent = unsafe { check(sys::MPI_Wait(&mut req, HOST.status_ignore), "MPI_Wait") };
        swapped = started.and(received).and(sent);
        theirs
    });
    let layout = args.scatter.expect("reduce_scatter has a layout");
    let n = view.shared.map.size();
    let displs: Vec<c_int> = match layout {
        Layout::Varied { counts, .. } => {
            counts[..n].iter().scan(0, |at, &c| Some(std::mem::replace(at, *at + c))).collect()
        }
        Layout::Uniform(_) => Vec::new(),
    };
    let layout = match layout {
        Layout::Varied { counts, .. } => Layout::Varied { counts, displs: &displs },
        uniform => uniform,
    };
    let send = theirs.map(|t| Blocks { base: t.addr, dtype: t.dtype, info: t.info, layout });
    let varied = matches!(layout, Layout::Varied { .. });
    let spread = scatterv(&view, &ScattervArgs { send, recv: args.recv, root: 0, varied });
    reduced.and(swapped).and(spread)
}

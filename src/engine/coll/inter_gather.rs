//! `EP_Gather(v)`, `EP_Scatter(v)`, `EP_Allgather(v)` and `EP_Alltoall(v)` on
//! intercommunicators (MPI 4.1 sections 6.2.2, 6.5 to 6.8): every step is an
//! intracommunicator collective of one group (its "view", see [`super::inter`]) or one message
//! between the groups (a parcel, see [`super::inter_parcel`]), never an algorithm of its own.
//!
//! - gather: the sending group gathers at its rank 0, which sends the parcel to the root;
//! - scatter: the root sends every block as one parcel to the receiving group's rank 0, which
//!   scatters it in its group;
//! - allgather: each group gathers at its rank 0, the two swap, each broadcasts what it got;
//! - all-to-all: each group gathers every rank's row of blocks (one per rank of the other
//!   group) at its rank 0, the two swap, each scatters to rank `j` the blocks addressed to it,
//!   in the other group's rank order.
//!
//! Messages go to and from the groups' rank 0 (the root of a rooted call): each group's tag of
//! the collective ([`super::inter::Groups`]) tells them apart.

use super::gather::{scatterv, ScattervArgs};
use super::host_bytes::{c_bytes, displs_of};
use super::inter::{start, view_endpoint, ROOT};
use super::inter_parcel::{
    byte_blocks, byte_buf, gather_rows, open_parcel, pack_row, pack_row_or_nothing, place, recv_parcel, send_rows,
    swap_rows,
};
use super::{bcast, Blocks};
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::engine::envelope::PROC_NULL;
use crate::error::EpResult;
use std::os::raw::c_int;

/// `EP_Gather(v)` on an intercommunicator: `root` is `EP_ROOT` (then `recv` holds a block per
/// rank of the remote group), `EP_PROC_NULL`, or the root's rank in the remote group (then
/// `send` is this endpoint's data). Checked by the caller.
pub fn gather_inter(ep: &Endpoint, send: Option<UserBuf>, recv: Option<Blocks>, root: c_int) -> EpResult<()> {
    let c = start(ep)?;
    match root {
        PROC_NULL => Ok(()),
        ROOT => {
            let blocks = recv.expect("the root has receive blocks");
            let parcel = recv_parcel(&c.groups, c.remote_proc(0), c.to_us())?;
            let (sizes, data) = open_parcel(&parcel, c.remote.size(), "the remote group")?;
            place(&blocks, c.remote.size(), Some(&sizes), data, "EP_Gather on an intercommunicator")
        }
        _ => {
            let view = view_endpoint(ep, &c.groups);
            let send = send.expect("the sending group has send buffers");
            let (sizes, row, packed) = pack_row_or_nothing(std::iter::once(send), 1);
            let rows = gather_rows(&view, &sizes, &row);
            let sent =
                if view.rank == 0 { send_rows(&c.groups, c.remote_proc(root), c.to_them(), &rows) } else { Ok(()) };
            packed.and(rows.map(|_| ())).and(sent)
        }
    }
}

/// `EP_Scatter(v)` on an intercommunicator: `root` as for [`gather_inter`]; at `EP_ROOT`,
/// `send` holds a block per rank of the remote group; in the other group `recv` is this
/// endpoint's buffer.
pub fn scatter_inter(ep: &Endpoint, send: Option<Blocks>, recv: Option<UserBuf>, root: c_int) -> EpResult<()> {
    let c = start(ep)?;
    match root {
        PROC_NULL => Ok(()),
        ROOT => {
            let blocks = send.expect("the root has send blocks");
            let rows = pack_row((0..c.remote.size() as i32).map(|r| blocks.of(r)))
                .map(|(sizes, data)| Some(super::inter_parcel::Rows { sizes, data }));
            let sent = send_rows(&c.groups, c.remote_proc(0), c.to_them(), &rows);
            rows.map(|_| ()).and(sent)
        }
        _ => {
            let view = view_endpoint(ep, &c.groups);
            let n = view.shared.map.size();
            let mut parcel = Vec::new();
            let mut opened = Ok(());
            let (mut counts, mut data) = (vec![0 as c_int; n], Vec::new());
            if view.rank == 0 {
                opened = recv_parcel(&c.groups, c.remote_proc(root), c.to_us()).and_then(|p| {
                    parcel = p;
                    let (sizes, d) = open_parcel(&parcel, n, "the root")?;
                    counts = sizes.iter().map(|&c| c_bytes(c as usize)).collect::<EpResult<_>>()?;
                    data = d.to_vec();
                    Ok(())
                });
                if opened.is_err() {
                    counts = vec![0; n];
                    data.clear();
                }
            }
            let displs = displs_of(&counts)?;
            let blocks = if view.rank == 0 { Some(byte_blocks(&mut data, &counts, &displs)?) } else { None };
            let spread = scatterv(&view, &ScattervArgs { send: blocks, recv, root: 0, varied: true });
            opened.and(spread)
        }
    }
}

/// `EP_Allgather(v)` on an intercommunicator: `send` is this endpoint's data, `recv` a block
/// per rank of the remote group.
pub fn allgather_inter(ep: &Endpoint, send: UserBuf, recv: Blocks) -> EpResult<()> {
    let c = start(ep)?;
    let view = view_endpoint(ep, &c.groups);
    let (sizes, row, packed) = pack_row_or_nothing(std::iter::once(send), 1);
    let rows = gather_rows(&view, &sizes, &row);
    let n = c.remote.size();
    let total: usize = (0..n as i32).map(|r| recv.bytes(r)).sum();
    let mut data = vec![0u8; total];
    let mut swapped = Ok(());
    if view.rank == 0 {
        swapped = swap_rows(&c.groups, c.remote_proc(0), (c.to_them(), c.to_us()), &rows).and_then(|parcel| {
            let (sizes, theirs) = open_parcel(&parcel, n, "the remote group")?;
            // The sizes are checked here against this rank's receive blocks, the data placed below.
            let mut at = 0usize;
            for r in 0..n {
                if sizes[r] != recv.bytes(r as i32) as u64 {
                    return place(&recv, n, Some(&sizes), theirs, "EP_Allgather on an intercommunicator");
                }
                at += sizes[r] as usize;
            }
            data.copy_from_slice(&theirs[..at]);
            Ok(())
        });
    }
    // SAFETY: `data` holds `total` bytes and outlives the blocking broadcast.
    let spread = unsafe { byte_buf(data.as_mut_ptr(), total) }.and_then(|b| bcast(&view, b, 0));
    let placed = spread.and_then(|_| place(&recv, n, None, &data, "EP_Allgather on an intercommunicator"));
    packed.and(rows.map(|_| ())).and(swapped).and(placed)
}

/// `EP_Alltoall(v)` on an intercommunicator: `send` and `recv` hold a block per rank of the
/// remote group.
pub fn alltoall_inter(ep: &Endpoint, send: Blocks, recv: Blocks) -> EpResult<()> {
    let c = start(ep)?;
    let view = view_endpoint(ep, &c.groups);
    let (nr, nl) = (c.remote.size(), view.shared.map.size());
    let (sizes, row, packed) = pack_row_or_nothing((0..nr as i32).map(|j| send.of(j)), nr);
    let rows = gather_rows(&view, &sizes, &row);
    // At rank 0: the blocks for each rank of this group, in the remote group's rank order.
    let (mut counts, mut columns) = (vec![0 as c_int; nl], Vec::new());
    let mut swapped = Ok(());
    if view.rank == 0 {
        swapped = swap_rows(&c.groups, c.remote_proc(0), (c.to_them(), c.to_us()), &rows).and_then(|parcel| {
            // The remote matrix: row i (remote rank i) holds its blocks for ranks 0..nl here.
            let (sizes, theirs) = open_parcel(&parcel, nr * nl, "the remote group")?;
            let starts = displs_of(&sizes.iter().map(|&c| c_bytes(c as usize)).collect::<EpResult<Vec<_>>>()?)?;
            for (j, count) in counts.iter_mut().enumerate() {
                let mut sum = 0usize;
                for i in 0..nr {
                    let (at, len) = (starts[i * nl + j] as usize, sizes[i * nl + j] as usize);
                    columns.extend_from_slice(&theirs[at..at + len]);
                    sum += len;
                }
                *count = c_bytes(sum)?;
            }
            Ok(())
        });
        if swapped.is_err() {
            counts = vec![0; nl];
            columns.clear();
        }
    }
    let displs = displs_of(&counts)?;
    let total: usize = (0..nr as i32).map(|i| recv.bytes(i)).sum();
    let mut mine = vec![0u8; total];
    let spread = (|| {
        let blocks = if view.rank == 0 { Some(byte_blocks(&mut columns, &counts, &displs)?) } else { None };
        // SAFETY: `mine` holds `total` bytes and outlives the blocking scatter.
        let into = unsafe { byte_buf(mine.as_mut_ptr(), total)? };
        scatterv(&view, &ScattervArgs { send: blocks, recv: Some(into), root: 0, varied: true })
    })();
    let placed = spread.and_then(|_| place(&recv, nr, None, &mine, "EP_Alltoall on an intercommunicator"));
    packed.and(rows.map(|_| ())).and(swapped).and(placed)
}

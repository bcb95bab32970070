//! The nonblocking collectives on intercommunicators (MPI 4.1 sections 6.2.2 and 6.12) as
//! parts of [`super::nonblocking`]: the ranks a part names are the other group's, so each
//! group gets the other group's data, in that group's rank order. The barrier, allgather(v)
//! and all-to-all(v,w) need nothing else (the builders of [`super::immediate`] serve both
//! kinds of communicator); the rooted calls and the reductions are here.
//!
//! Rooted calls: `root` is [`ROOT`] at the root, [`PROC_NULL`] at the other endpoints of its
//! group (which send and expect nothing), and the root's rank elsewhere. Reductions: each
//! receiving endpoint gets every input of the other group and folds them in that group's
//! rank order with its own `op` (MPI requires the same op everywhere), so non-commutative and
//! user-defined ops give MPI's result on any rank map. Arguments are checked by the caller.

use super::board::{AlignedBuf, Kind};
use super::immediate::{finish, fold_packed, packed, peers, store_result, unpack, Reduction};
use super::inter::ROOT;
use super::nonblocking::{start, CollRequest, Delivered, Part};
use super::typed::{Elems, HostOp};
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::engine::envelope::PROC_NULL;
use crate::error::EpResult;

/// `EP_Ibcast` on an intercommunicator: `buf` is the root's data, or where the other group's
/// endpoints receive it (`None` with [`PROC_NULL`]).
pub fn ibcast_inter(ep: &Endpoint, buf: Option<UserBuf>, root: i32, type_held: bool) -> EpResult<CollRequest> {
    let mut part = Part::new(peers(ep));
    let (Some(buf), false) = (buf, root == PROC_NULL) else { return start(ep, Kind::Bcast, part, None) };
    if root == ROOT {
        part.send_every(&buf)?;
        return start(ep, Kind::Bcast, part, None);
    }
    part.expect_every(root, buf.bytes());
    let buf = part.keep(buf, type_held);
    start(ep, Kind::Bcast, part, finish(move |d| unpack(&buf, d.every(root))))
}

/// `EP_Igather(v)` on an intercommunicator: the root's `recv` holds a block per rank of the
/// other group, whose endpoints each `send` one.
pub fn igatherv_inter(
    ep: &Endpoint,
    send: Option<UserBuf>,
    recv: Option<Vec<UserBuf>>,
    root: i32,
    type_held: bool,
) -> EpResult<CollRequest> {
    let mut part = Part::new(peers(ep));
    if let (Some(b), true) = (&send, root >= 0) {
        part.send_to(root, b)?;
    }
    let (Some(recv), ROOT) = (recv, root) else { return start(ep, Kind::Gatherv, part, None) };
    let recv = part.keep(recv, type_held);
    for (r, b) in recv.iter().enumerate() {
        part.expect(r as i32, b.bytes());
    }
    let unpack_all = move |d: &Delivered| recv.iter().enumerate().try_for_each(|(r, b)| unpack(b, d.from(r as i32)));
    start(ep, Kind::Gatherv, part, finish(unpack_all))
}

/// `EP_Iscatter(v)` on an intercommunicator: the root's `send` holds a block per rank of the
/// other group, whose endpoints each `recv` one.
pub fn iscatterv_inter(
    ep: &Endpoint,
    send: Option<Vec<UserBuf>>,
    recv: Option<UserBuf>,
    root: i32,
    type_held: bool,
) -> EpResult<CollRequest> {
    let mut part = Part::new(peers(ep));
    if let (Some(send), ROOT) = (&send, root) {
        for (d, b) in send.iter().enumerate() {
            part.send_to(d as i32, b)?;
        }
    }
    let (Some(recv), true) = (recv, root >= 0) else { return start(ep, Kind::Scatterv, part, None) };
    let recv = part.keep(recv, type_held);
    part.expect(root, recv.bytes());
    start(ep, Kind::Scatterv, part, finish(move |d| unpack(&recv, d.from(root))))
}

/// The nonblocking reductions on an intercommunicator. `how` is [`Reduction::Root`] (with
/// `EP_ROOT`, `EP_PROC_NULL` or the root's rank), [`Reduction::All`] or
/// [`Reduction::Scatter`] (the counts of this endpoint's group: each endpoint's input is the
/// whole vector, which the other group scatters by its own counts). `input` is what the
/// endpoint brings (`None` at the root and with `EP_PROC_NULL`); `template` gives the count
/// and datatype of the result it folds (its input's, or its `recv`'s at the root); `recv`
/// where it stores its result (`None` where it gets none).
pub fn ireduce_inter(
    ep: &Endpoint,
    input: Option<Elems>,
    template: Elems,
    recv: Option<UserBuf>,
    op: HostOp,
    how: Reduction,
) -> EpResult<CollRequest> {
    let kind = how.kind();
    let mut part = Part::new(peers(ep));
    let rank = ep.rank;
    let remote = peers(ep) as i32;
    let from_root = matches!(how, Reduction::Root(_));
    match (&how, &input) {
        (Reduction::Root(ROOT), _) => (0..remote).for_each(|r| part.expect(r, packed(&template).bytes())),
        (Reduction::Root(PROC_NULL), _) => {}
        (Reduction::Root(root), Some(input)) => part.send_to(*root, &packed(input))?,
        (_, Some(input)) => {
            part.send_every(&packed(input))?;
            (0..remote).for_each(|r| part.expect_every(r, packed(&template).bytes()));
        }
        (_, None) => {}
    }
    let (Some(recv), true) = (recv, remote > 0) else { return start(ep, kind, part, None) };
    let fold_store = move |d: &Delivered| {
        let mut acc = AlignedBuf::default();
        let inputs = (0..remote).map(|r| if from_root { d.from(r) } else { d.every(r) });
        let result = fold_packed(inputs, &template, op, &mut acc)?;
        store_result(result, &how, rank, &recv)
    };
    start(ep, kind, part, finish(fold_store))
}

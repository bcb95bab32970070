//! `EP_Scan` and `EP_Exscan` (MPI 4.1 sections 6.11.1 and 6.11.2).
//!
//! On blocked maps the leader folds its process's inputs, one host `MPI_Exscan` gives the
//! prefix of the processes before it, and the leader walks its endpoints in rank order
//! extending that prefix. Otherwise every input is gathered and each prefix folded in rank
//! order.

use super::board::{AlignedBuf, Kind};
use super::typed::{fold, reduce_local, Elems, HostOp};
use super::{all_inputs, elems_in, process_ordered};
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::error::EpResult;
use crate::host::{check, sys, HOST};
use std::os::raw::c_void;

pub struct ScanArgs {
    /// `sendbuf`, or `recvbuf` with `MPI_IN_PLACE`.
    pub input: Elems,
    pub in_place: bool,
    pub recv: UserBuf,
    pub op: HostOp,
    /// `EP_Exscan` (the prefix excludes the rank's own input; rank 0 gets nothing).
    pub exclusive: bool,
}

pub fn scan(ep: &Endpoint, args: &ScanArgs) -> EpResult<()> {
    let s = &ep.shared;
    if process_ordered(s) {
        let send = if args.in_place { HOST.in_place } else { args.input.base };
        let (recv, n, t, op) = (args.recv.addr, args.input.count, args.input.dtype, args.op.0);
        // SAFETY: the user's scan passed through (`process_ordered`): `send` (or
        // `MPI_IN_PLACE`) and `recv` are the user's buffers of `count` elements of `dtype`, valid for
        // the call (MPI 4.1 section 6.11).
        return unsafe {
            if args.exclusive {
                check(sys::MPI_Exscan(send, recv, n, t, op, s.host.0), "MPI_Exscan")
            } else {
                check(sys::MPI_Scan(send, recv, n, t, op, s.host.0), "MPI_Scan")
            }
        };
    }
    let kind = if args.exclusive { Kind::Exscan } else { Kind::Scan };
    s.board.run(
        ep.local as usize,
        kind,
        args,
        false,
        |all, scratch| {
            let a = all[0];
            let inputs: Vec<Elems> = all.iter().map(|x| x.input).collect();
            if s.map.is_blocked() {
                // Prefix of the processes before this one (none on the first process).
                let mut prefix: Option<Elems> = None;
                if s.is_multi_process() {
                    let total = fold(&inputs, &mut scratch.bytes2, a.op)?;
                    let p = total.copy_into(&mut scratch.bytes);
                    // SAFETY: `total` (in `scratch.bytes2`) and `p` (its copy in `scratch.bytes`) are
                    // typed memory of the same shape, `count` elements of `dtype`, held by the leader alone.
                    unsafe {
                        check(
                            sys::MPI_Exscan(total.base, p.base as *mut c_void, p.count, p.dtype, a.op.0, s.host.0),
                            "MPI_Exscan",
                        )?
                    };
                    if s.my_proc > 0 {
                        prefix = Some(p);
                    }
                }
                let ordered: Vec<(&ScanArgs, Elems)> = all.iter().map(|x| (*x, x.input)).collect();
                return walk(prefix, &ordered, a.op);
            }
            // Interleaved ranks: every input, folded per endpoint over the ranks before it.
            let every = all_inputs(s, &inputs, None)?.expect("every process receives");
            let ordered: Vec<Elems> = every.iter().map(|b| elems_in(b, &a.input)).collect();
            let mut acc = AlignedBuf::default();
            for (local, x) in all.iter().enumerate() {
                let rank = s.map.my_rank(local as u32) as usize;
                let upto = if x.exclusive { rank } else { rank + 1 };
                if upto > 0 {
                    fold(&ordered[..upto], &mut acc, a.op)?.store(&x.recv)?;
                }
            }
            Ok(())
        },
        |_, _| Ok(()),
    )
}

/// Extends `prefix` by each endpoint's input in order, storing each endpoint's result
/// (inclusive or exclusive). An endpoint's input is read before its result is written, so
/// `MPI_IN_PLACE` works.
fn walk(prefix: Option<Elems>, endpoints: &[(&ScanArgs, Elems)], op: HostOp) -> EpResult<()> {
    let (mut run_buf, mut next_buf) = (AlignedBuf::default(), AlignedBuf::default());
    let mut run: Option<Elems> = prefix.map(|p| p.copy_into(&mut run_buf));
    for (args, input) in endpoints {
        let mine = input.copy_into(&mut next_buf);
        if args.exclusive {
            if let Some(r) = &run {
                r.store(&args.recv)?;
            }
        }
        if let Some(r) = &run {
            // mine = run op mine: the earlier ranks on the left.
            reduce_local(r, mine.base as *mut c_void, op)?;
        }
        std::mem::swap(&mut run_buf, &mut next_buf);
        let r = elems_in(&run_buf, &mine);
        if !args.exclusive {
            r.store(&args.recv)?;
        }
        run = Some(r);
    }
    Ok(())
}

//! The remote transport: endpoints of other processes, through the host MPI.
//!
//! A message's header (envelope, protocol, size) and, up to `REMOTE_EAGER_BYTES`, its packed
//! data travel as one host message on the communicator's host communicator, with host tag
//! = destination local index. Each endpoint keeps two host receives pre-posted for them
//! (`MPI_Irecv(MPI_ANY_SOURCE, my index)`), so arriving packets land at once and draining is
//! an `MPI_Test`: the fastest path of both Open MPI and MPICH. The host fills same-tag
//! receives in posting order and they are tested in that order, which keeps the host's
//! order, hence MPI's non-overtaking. Larger and synchronous messages add a data
//! message on the data communicator, sent from the user's buffer (`MPI_Issend` for
//! synchronous mode) and received into the matched receive's buffer.

use super::comm::CommShared;
use super::datatype::UserBuf;
use super::envelope::{Envelope, Protocol, WireHeader, EAGER_HEADER_BYTES, MAX_HEADER_BYTES};
use super::p2p::{arrive, Catcher, Payload, Queues, SendState};
use super::progress::HostOp;
use super::rankmap::Location;
use crate::ep_err;
use crate::error::{EpResult, ERR_INTERN};
use crate::host::{self, check, sys, HostComm, HostRequest, HostType, HOST};
use std::os::raw::{c_int, c_void};

/// Remote messages up to this size travel packed behind their header.
pub(crate) const REMOTE_EAGER_BYTES: usize = 16 * 1024;
/// Blocking sends of packets up to this size use `MPI_Send` (here and in direct mode,
/// whatever the thread owes): far below every host's eager limit, so the host completes them
/// without the receiver's help. Larger ones use `MPI_Isend` and the caller's wait loop, which
/// keeps draining this endpoint's own incoming headers: two endpoints sending large messages
/// to each other against pre-posted receives would otherwise both sit in `MPI_Send` with
/// nobody posting the host receives.
pub(crate) const BLOCKING_HOST_SEND_BYTES: usize = 1024;
const PACKET_BYTES: usize = MAX_HEADER_BYTES + REMOTE_EAGER_BYTES;
const _: () = assert!(REMOTE_EAGER_BYTES as u64 <= super::envelope::MAX_EAGER_BYTES);

/// Host receives kept posted per endpoint. Two, so that one is always waiting while the
/// other's packet is processed: re-posting happens at the start of the next drain, off the
/// path from a packet's arrival to the user's return.
const POSTED: usize = 2;

struct Slot {
    request: HostRequest,
    buf: Vec<u8>,
    active: bool,
}

/// The pre-posted host receives of one endpoint, tested in the order they were posted (the
/// host fills same-tag receives in posting order, which keeps messages in order).
pub struct PrePosted {
    slots: Vec<Slot>,
    /// Index of the oldest posted receive.
    front: usize,
}

impl PrePosted {
    fn new() -> PrePosted {
        PrePosted {
            slots: (0..POSTED)
                .map(|_| Slot { request: HostRequest(HOST.request_null), buf: vec![0u8; PACKET_BYTES], active: false })
                .collect(),
            front: 0,
        }
    }

    /// Posts every inactive slot, in ring order after the active ones.
    fn top_up(&mut self, host_comm: HostComm, local: u32) -> EpResult<()> {
        for k in 0..POSTED {
            let slot = &mut self.slots[(self.front + k) % POSTED];
            if slot.active {
                continue;
            }
            // SAFETY: `slot.buf` holds `PACKET_BYTES` bytes and stays in place (never resized) while
            // the receive is posted: `slot.active` marks it until `MPI_Test` completes it, or `Drop`
            // cancels and waits for it; the host writes `slot.request`. `host_comm` is the endpoint's
            // communicator, which outlives its queues.
            unsafe {
                check(
                    sys::MPI_Irecv(
                        slot.buf.as_mut_ptr() as *mut c_void,
                        PACKET_BYTES as c_int,
                        HOST.byte,
                        HOST.any_source,
                        local as c_int,
                        host_comm.0,
                        &mut slot.request.0,
                    ),
                    "MPI_Irecv",
                )?
            };
            slot.active = true;
        }
        Ok(())
    }
}

impl Drop for PrePosted {
    /// Withdraws the receives before their communicator goes (never after MPI_Finalize).
    fn drop(&mut self) {
        if host::finalizing() || !host::mpi_is_active() {
            return;
        }
        for slot in self.slots.iter_mut().filter(|s| s.active) {
            // SAFETY: the slot's receive is posted (`active`) on a communicator that is still
            // alive (the queues go before their `CommShared` frees it) and MPI is active (checked
            // above); the wait completes it before `slot.buf` is freed with `self`.
            unsafe {
                sys::MPI_Cancel(&mut slot.request.0);
                sys::MPI_Wait(&mut slot.request.0, HOST.status_ignore);
            }
        }
    }
}

/// Pulls every arrived remote packet of endpoint `local` into its matching state.
/// A `catcher` (a blocking receive) may take the first eager packet that matches it and no
/// posted receive; draining stops there, so later packets keep their place in the host.
pub fn drain(shared: &CommShared, local: u32, q: &mut Queues, mut catcher: Option<&mut Catcher>) -> EpResult<()> {
    let rx = q.remote_rx.get_or_insert_with(PrePosted::new);
    if !rx.slots.iter().all(|s| s.active) {
        rx.top_up(shared.host, local)?;
    }
    loop {
        let rx = q.remote_rx.as_mut().unwrap();
        let front = rx.front;
        let slot = &mut rx.slots[front];
        if !slot.active {
            // Both packets taken this round: post again and keep draining.
            rx.top_up(shared.host, local)?;
            continue;
        }
        let mut flag: c_int = 0;
        // SAFETY: `MPI_Status` is a plain C struct of integers, for which all zeros is a value.
        let mut st: sys::MPI_Status = unsafe { std::mem::zeroed() };
        // SAFETY: the slot's receive is posted (`active`); the host writes the request, `flag` and
        // `st`, all live.
        unsafe { check(sys::MPI_Test(&mut slot.request.0, &mut flag, &mut st), "MPI_Test")? };
        if flag == 0 {
            return Ok(());
        }
        slot.active = false;
        rx.front = (front + 1) % POSTED;
        let h = WireHeader::decode(&slot.buf).ok_or_else(|| ep_err!(ERR_INTERN, "malformed message header"))?;
        let env = h.envelope;
        let payload = match h.protocol {
            Protocol::Eager => {
                // The packet is the header and `bytes` of data (no MPI_Get_count needed).
                let data = slot
                    .buf
                    .get(EAGER_HEADER_BYTES..EAGER_HEADER_BYTES + h.bytes as usize)
                    .ok_or_else(|| ep_err!(ERR_INTERN, "malformed message header (eager size {})", h.bytes))?;
                // Straight from the receive buffer when a receive is waiting.
                if let Some(recv) = q.matching.take_posted(&env) {
                    super::p2p::deliver_bytes(&recv, &env, data);
                    continue;
                }
                if let Some(c) = catcher.as_deref_mut() {
                    if c.try_catch(&env, data)? {
                        return Ok(());
                    }
                }
                Payload::Eager(data.to_vec())
            }
            Protocol::Rendezvous { data_tag } => Payload::Remote { proc: st.MPI_SOURCE, data_tag, bytes: h.bytes },
        };
        // A message the blocking receive matches that goes to the unexpected queue (a
        // rendezvous header) is the one it must get: no later packet may be caught past it,
        // or a small message would overtake a large one from the same source (MPI 4.1
        // section 3.5, non-overtaking).
        if let Some(c) = catcher.as_deref_mut() {
            c.queued(&env);
        }
        arrive(shared, q, env, payload);
    }
}

/// Sends to an endpoint of another process. `blocking` lets small packets go by `MPI_Send`.
/// The latency path is inlined into the send calls; everything else is `send_general`.
#[inline(always)]
pub fn send(
    shared: &CommShared,
    dest: Location,
    env: Envelope,
    buf: UserBuf,
    sync: bool,
    blocking: bool,
) -> EpResult<SendState> {
    let bytes = buf.bytes();
    let proc = dest.proc as c_int;
    let tag = dest.local as c_int;
    if !sync && blocking && buf.info.contiguous() && EAGER_HEADER_BYTES + bytes <= BLOCKING_HOST_SEND_BYTES {
        // The latency path: header and data assembled on the stack, one MPI_Send.
        // Only the bytes sent are written: zeroing the whole array cost more than the copy.
        let mut packet = std::mem::MaybeUninit::<[u8; BLOCKING_HOST_SEND_BYTES]>::uninit();
        let header = WireHeader { envelope: env, protocol: Protocol::Eager, bytes: bytes as u64 }.encode();
        // SAFETY: header and data fit (checked above) and are written before MPI_Send reads them.
        let packet = unsafe {
            let p = packet.as_mut_ptr() as *mut u8;
            std::ptr::copy_nonoverlapping(header.as_ptr(), p, EAGER_HEADER_BYTES);
            super::datatype::copy_bytes(buf.data_ptr(), p.add(EAGER_HEADER_BYTES), bytes);
            std::slice::from_raw_parts(p, EAGER_HEADER_BYTES + bytes)
        };
        let len = packet.len() as c_int;
        // SAFETY: `packet`'s `len` bytes are initialised above and live across the blocking send;
        // `shared.host` is the communicator's host communicator, alive while `shared` is.
        unsafe {
            check(sys::MPI_Send(packet.as_ptr() as *const c_void, len, HOST.byte, proc, tag, shared.host.0), "MPI_Send")?
        };
        return Ok(SendState::Done);
    }
    send_general(shared, dest, env, buf, sync, blocking)
}

/// The rest of [`send`]: packed eager packets, and rendezvous.
#[inline(never)]
fn send_general(shared: &CommShared, dest: Location, env: Envelope, buf: UserBuf, sync: bool, blocking: bool) -> EpResult<SendState> {
    let bytes = buf.bytes();
    let proc = dest.proc as c_int;
    let tag = dest.local as c_int;
    if !sync && bytes <= REMOTE_EAGER_BYTES {
        let mut packet = Vec::with_capacity(EAGER_HEADER_BYTES + bytes);
        packet.extend_from_slice(&WireHeader { envelope: env, protocol: Protocol::Eager, bytes: bytes as u64 }.encode()[..EAGER_HEADER_BYTES]);
        buf.pack_into(&mut packet)?;
        let ptr = packet.as_ptr() as *const c_void;
        let len = packet.len() as c_int;
        if blocking && packet.len() <= BLOCKING_HOST_SEND_BYTES {
            // SAFETY: a blocking send of `len` initialised bytes of `packet`, alive across the call.
            unsafe { check(sys::MPI_Send(ptr, len, HOST.byte, proc, tag, shared.host.0), "MPI_Send")? };
            return Ok(SendState::Done);
        }
        let mut r = HostRequest(HOST.request_null);
        // SAFETY: the host reads `packet` until the request completes: the returned `SendState`
        // owns both (`HostOp`), and dropping it before completion hands them to the orphanage.
        unsafe { check(sys::MPI_Isend(ptr, len, HOST.byte, proc, tag, shared.host.0, &mut r.0), "MPI_Isend")? };
        return Ok(SendState::Host(HostOp::one(r, packet)));
    }
    let data_tag = shared.next_data_tag();
    let header = WireHeader { envelope: env, protocol: Protocol::Rendezvous { data_tag }, bytes: bytes as u64 };
    let header = header.encode()[..header.wire_bytes()].to_vec();
    let (hp, hl) = (header.as_ptr() as *const c_void, header.len() as c_int);
    let data_comm = shared.host_data.0;
    let t = HostType(buf.dtype);
    let mut r = HostRequest(HOST.request_null);
    // SAFETY: the header send reads `header`, which moves (unchanged, the heap block stays) into
    // the `HostOp` that owns the request from here on, so it outlives the host's reading.
    unsafe { check(sys::MPI_Isend(hp, hl, HOST.byte, proc, tag, shared.host.0, &mut r.0), "MPI_Isend")? };
    let mut op = HostOp::one(r, header);
    // A synchronous host send completes once the receiver has matched the header and posted
    // the data receive, which is MPI's synchronous-mode guarantee.
    let isend = if sync { sys::MPI_Issend } else { sys::MPI_Isend };
    let mut d = HostRequest(HOST.request_null);
    // SAFETY: the data send reads `count` elements of `dtype` at `buf.addr`, which the user keeps
    // valid and unchanged until the send completes (MPI 4.1 section 3.7.2); the host writes `d`.
    // When it fails, `op` (the header send) goes to the orphanage with the early return.
    unsafe { check(isend(buf.addr, buf.count, t.0, proc, data_tag, data_comm, &mut d.0), "MPI_Isend(data)")? };
    op.add(d);
    Ok(SendState::Host(op))
}

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
//! synchronous mode) and received into the matched receive's buffer; a large one sent by a
//! member of an endpoint team adds several, its parts ([`super::stripe`]).
//!
//! Below the matching: draining hands each arrived packet to a closure of the caller's (see
//! [`drain`]), which matches it; a send says how it left ([`Sent`]), and a started host
//! operation owns its memory ([`HostOp`]).

use crate::engine::datatype::UserBuf;
use crate::engine::envelope::Envelope;
use crate::engine::host_op::HostOp;
use crate::engine::rankmap::Location;
use crate::engine::spare;
use super::stripe;
use crate::ep_err;
use crate::error::{EpResult, ERR_INTERN};
use crate::host::{self, check, sys, HostComm, HostRequest, HostType, HOST};
use std::ops::ControlFlow;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicU32, Ordering};

// The wire header: the user's tag and the source rank travel in it (12 bytes for eager
// messages, 20 for rendezvous, 24 for striped rendezvous), so tags are never packed into host
// tag bits and nothing is truncated: any tag up to `i32::MAX` works.

/// How a remote message's data travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// The packed data follows the header in the same host message.
    Eager,
    /// The data is a separate host message on the data communicator with `data_tag`, sent
    /// straight from the user's buffer and received straight into the matched receive's.
    /// With `part_bytes` > 0 the message is striped ([`super::stripe`]): its data travels as
    /// consecutive parts of `part_bytes` bytes (the last one shorter), part `k` with the `k`-th
    /// data tag after `data_tag` ([`RemoteComm::part_tags`]).
    Rendezvous { data_tag: i32, part_bytes: u32 },
}

/// The header of a remote message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireHeader {
    pub envelope: Envelope,
    pub protocol: Protocol,
    /// Size of the data in bytes (packed size).
    pub bytes: u64,
}

/// Bytes of an eager header: source, tag, and the data's size (at most [`MAX_EAGER_BYTES`]).
/// Kept short because the hosts send small messages faster: MPICH 4.0 over UCX took 8-12 % longer
/// per 8 B ping-pong once the host message grew past 28 bytes (header and data), Open MPI past
/// 40 (docs/performance.md, the host's size classes). A 24-byte header put every 8 B message past both.
pub(crate) const EAGER_HEADER_BYTES: usize = 12;
// 8 B of data with its header stays within MPICH's 28-byte class.
const _: () = assert!(EAGER_HEADER_BYTES + 8 <= 28);
/// Bytes of a rendezvous header: source, tag, data tag (flagged), and the data's size.
pub(crate) const RENDEZVOUS_HEADER_BYTES: usize = 20;
/// Bytes of a striped rendezvous header: a rendezvous header whose size word is flagged
/// ([`STRIPED_FLAG`]), then the size of its parts.
pub(crate) const STRIPED_HEADER_BYTES: usize = 24;
/// The longest header.
pub(crate) const MAX_HEADER_BYTES: usize = STRIPED_HEADER_BYTES;
/// Eager data travels in one host message with its header; its size fits the header's word.
pub(crate) const MAX_EAGER_BYTES: u64 = (RENDEZVOUS_FLAG - 1) as u64;
/// Set in the third word of a rendezvous header, whose low bits hold the data tag (host tags
/// are non-negative `int`s); clear in an eager header, whose word is the data's size.
const RENDEZVOUS_FLAG: u32 = 1 << 31;
/// Set in the size word of a striped rendezvous header (no message has 2^63 bytes).
const STRIPED_FLAG: u64 = 1 << 63;

impl WireHeader {
    /// Length of this header on the wire, in bytes: `EAGER_HEADER_BYTES` (12),
    /// `RENDEZVOUS_HEADER_BYTES` (20) or `STRIPED_HEADER_BYTES` (24). The format is this
    /// library's own, between its processes (no MPI structure); pure, so callable from any thread.
    #[inline]
    pub fn wire_bytes(&self) -> usize {
        match self.protocol {
            Protocol::Eager => EAGER_HEADER_BYTES,
            Protocol::Rendezvous { part_bytes: 0, .. } => RENDEZVOUS_HEADER_BYTES,
            Protocol::Rendezvous { .. } => STRIPED_HEADER_BYTES,
        }
    }

    /// The header's bytes, little-endian: source and tag (4 bytes each), then a word holding
    /// the eager data's size in bytes, or the top bit set with the data tag followed by the
    /// data's size (8 bytes; its top bit set when the data is striped, then the size of the
    /// parts in 4 bytes). Only the first [`wire_bytes`](Self::wire_bytes) of the array are
    /// sent (the rest are zero). Eager data must not exceed `MAX_EAGER_BYTES` (2^31 - 1), and a data tag
    /// must be non-negative (checked in debug builds; the engine never makes others).
    #[inline]
    pub fn encode(&self) -> [u8; MAX_HEADER_BYTES] {
        let mut out = [0u8; MAX_HEADER_BYTES];
        out[0..4].copy_from_slice(&self.envelope.source.to_le_bytes());
        out[4..8].copy_from_slice(&self.envelope.tag.to_le_bytes());
        match self.protocol {
            Protocol::Eager => {
                debug_assert!(self.bytes <= MAX_EAGER_BYTES);
                out[8..12].copy_from_slice(&(self.bytes as u32).to_le_bytes());
            }
            Protocol::Rendezvous { data_tag, part_bytes } => {
                debug_assert!(data_tag >= 0 && self.bytes & STRIPED_FLAG == 0);
                out[8..12].copy_from_slice(&(RENDEZVOUS_FLAG | data_tag as u32).to_le_bytes());
                let striped = if part_bytes > 0 { STRIPED_FLAG } else { 0 };
                out[12..20].copy_from_slice(&(self.bytes | striped).to_le_bytes());
                if part_bytes > 0 {
                    out[20..24].copy_from_slice(&part_bytes.to_le_bytes());
                }
            }
        }
        out
    }

    /// Decodes the header at the start of `b` (the received packet, header first); `None` when
    /// `b` is shorter than the header its third word announces. Trailing bytes (the eager
    /// data) are left to the caller, which checks the announced size against them.
    #[inline]
    pub fn decode(b: &[u8]) -> Option<WireHeader> {
        let word_at = |o: usize| Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().unwrap()));
        let envelope = Envelope { source: word_at(0)? as i32, tag: word_at(4)? as i32 };
        let word = word_at(8)?;
        if word & RENDEZVOUS_FLAG == 0 {
            return Some(WireHeader { envelope, protocol: Protocol::Eager, bytes: word as u64 });
        }
        let data_tag = (word & !RENDEZVOUS_FLAG) as i32;
        let size = u64::from_le_bytes(b.get(12..20)?.try_into().unwrap());
        let part_bytes = if size & STRIPED_FLAG != 0 { word_at(20)? } else { 0 };
        let protocol = Protocol::Rendezvous { data_tag, part_bytes };
        Some(WireHeader { envelope, protocol, bytes: size & !STRIPED_FLAG })
    }
}


/// Remote messages up to this size travel packed behind their header; larger ones as a header
/// and a data message straight from the user's buffer. Chosen by measurement on both hosts
/// (docs/performance.md, "Cross-process: the host's size classes"): at 12 and 16 KiB the two
/// host messages beat one packed message (its packing and the receiver's copy out of the
/// pre-posted buffer); at 8 KiB MPICH still favours one message and Open MPI slightly the
/// other.
pub(crate) const REMOTE_EAGER_BYTES: usize = 8 * 1024;
/// Blocking sends of packets up to this size use `MPI_Send` (here and in direct mode,
/// whatever the thread owes): a 1 KiB payload with its header, below every host's eager limit
/// (Open MPI's shared memory takes 4 KiB eagerly, MPICH's more), so the host completes them
/// without the receiver's help. Larger ones use `MPI_Isend` and the caller's wait loop, which
/// keeps draining this endpoint's own incoming headers: two endpoints sending large messages
/// to each other against pre-posted receives would otherwise both sit in `MPI_Send` with
/// nobody posting the host receives.
pub(crate) const BLOCKING_HOST_SEND_BYTES: usize = 2048;
const PACKET_BYTES: usize = MAX_HEADER_BYTES + REMOTE_EAGER_BYTES;
const _: () = assert!(REMOTE_EAGER_BYTES as u64 <= MAX_EAGER_BYTES);

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

/// A remote packet as it arrives, for the matching above to place.
pub enum Arrival<'a> {
    /// The packed data of an eager message, still in the host's receive buffer.
    Eager(&'a [u8]),
    /// A rendezvous header: the data waits in the host, `bytes` bytes from process `proc`
    /// with `data_tag` on the data communicator, in parts of `part_bytes` when that is not 0
    /// (see [`receive_data`]).
    Rendezvous { proc: c_int, data_tag: c_int, bytes: u64, part_bytes: u32 },
}

/// Pulls every arrived remote packet of endpoint `local` (whose pre-posted receives are `rx`,
/// posted on header communicator `host` on first use) and hands each, in the host's order,
/// to `arrive`. When `arrive` says `Break` (a blocking receive took the packet), draining
/// stops there, so later packets keep their place in the host.
#[inline]
pub fn drain(
    host: HostComm,
    local: u32,
    rx: &mut Option<PrePosted>,
    mut arrive: impl FnMut(Envelope, Arrival<'_>) -> EpResult<ControlFlow<()>>,
) -> EpResult<()> {
    let rx = rx.get_or_insert_with(PrePosted::new);
    if !rx.slots.iter().all(|s| s.active) {
        rx.top_up(host, local)?;
    }
    loop {
        let front = rx.front;
        let slot = &mut rx.slots[front];
        if !slot.active {
            // Both packets taken this round: post again and keep draining.
            rx.top_up(host, local)?;
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
        let arrival = match h.protocol {
            Protocol::Eager => {
                // The packet is the header and `bytes` of data (no MPI_Get_count needed).
                let data = slot
                    .buf
                    .get(EAGER_HEADER_BYTES..EAGER_HEADER_BYTES + h.bytes as usize)
                    .ok_or_else(|| ep_err!(ERR_INTERN, "malformed message header (eager size {})", h.bytes))?;
                Arrival::Eager(data)
            }
            Protocol::Rendezvous { data_tag, part_bytes } => {
                Arrival::Rendezvous { proc: st.MPI_SOURCE, data_tag, bytes: h.bytes, part_bytes }
            }
        };
        if arrive(h.envelope, arrival)?.is_break() {
            return Ok(());
        }
    }
}

/// Payloads share the header communicator when the host has at least this many tags above
/// the header tags (Open MPI and MPICH have hundreds of millions).
pub(crate) const MIN_DATA_TAGS: u32 = 1 << 20;

/// Host tags at the top of the host's range that no message of the transport uses: there
/// `MPI_Comm_create_group` on the header communicator exchanges its own messages (Open MPI
/// sends them as point-to-point messages with the given tag, which a payload receive with the
/// same tag would otherwise take). An eighth of the host's range, `2^MIN_GROUP_TAG_BITS` at
/// least (the host's range is then too small for payloads on the header communicator, which
/// get their own) and `2^MAX_GROUP_TAG_BITS` at most (`MPI_TAG_UB` is 2^31 - 1 in Open MPI
/// 4.1 here, 2^28 - 1 in MPICH 4.0: 2^27 and 2^24 tags kept, 7/8 left to payloads).
const MIN_GROUP_TAG_BITS: u32 = 12;
const MAX_GROUP_TAG_BITS: u32 = 28;

/// The number of bits of the kept range on a host whose largest tag is `tag_ub`.
fn group_tag_bits(tag_ub: u32) -> u32 {
    (tag_ub / 8).checked_ilog2().unwrap_or(0).clamp(MIN_GROUP_TAG_BITS, MAX_GROUP_TAG_BITS)
}

/// The remote transport's state in one communicator. Rendezvous payloads travel on the
/// communicator's host communicator with host tags from a per-communicator counter, above
/// every local index of every process, so payloads never match the pre-posted header
/// receives. Only a host whose tag range is too small for that gets a second host
/// communicator for payloads.
pub struct RemoteComm {
    /// Where rendezvous payloads travel: the header communicator, or its duplicate.
    data_comm: HostComm,
    /// `data_comm` is a duplicate this struct frees.
    own_data_comm: bool,
    next_data_tag: AtomicU32,
    /// Payload tags are `data_tag_base + (counter % data_tag_modulus)`.
    data_tag_base: u32,
    data_tag_modulus: u32,
    /// The first of the `2^group_tag_bits` host tags kept for `MPI_Comm_create_group`.
    group_tag_base: u32,
    group_tag_bits: u32,
    /// Header tags are `0..headers`.
    headers: u32,
}

impl RemoteComm {
    /// The state for header communicator `host`, on which processes have at most `headers`
    /// endpoints (header tags `0..headers`). Collective over `host` only when the host's tag
    /// range needs a duplicate. Errors: the host's.
    pub(crate) fn new(host: HostComm, headers: u32) -> EpResult<RemoteComm> {
        let tag_ub = host::tag_ub()? as u32;
        let group_tag_bits = group_tag_bits(tag_ub);
        let data_top = tag_ub.saturating_sub(1 << group_tag_bits);
        let (data_comm, own_data_comm, data_tag_base) = if data_top.saturating_sub(headers) >= MIN_DATA_TAGS {
            (host, false, headers)
        } else {
            let mut data = HostComm(HOST.comm_null);
            // SAFETY: the host writes `data.0`, a live local; `host` is the communicator being
            // built on, live until it is freed with its `CommShared`.
            unsafe { check(sys::MPI_Comm_dup(host.0, &mut data.0), "MPI_Comm_dup")? };
            (data, true, 0)
        };
        Ok(RemoteComm {
            data_comm,
            own_data_comm,
            next_data_tag: AtomicU32::new(0),
            data_tag_base,
            data_tag_modulus: data_top.saturating_sub(data_tag_base).saturating_add(1),
            group_tag_base: data_top + 1,
            group_tag_bits,
            headers,
        })
    }

    /// A host tag for one rendezvous payload on the data communicator, unique among this
    /// process's outstanding ones on this communicator (the counter wraps after at least
    /// `MIN_DATA_TAGS` messages). Thread-safe.
    #[inline]
    pub fn next_data_tag(&self) -> i32 {
        self.data_tags(1)
    }

    /// The first of `n` consecutive data tags ([`Self::part_tags`]) for the parts of one striped
    /// payload, unique as [`Self::next_data_tag`]'s. Thread-safe.
    #[inline]
    pub fn data_tags(&self, n: u32) -> i32 {
        (self.data_tag_base + self.next_data_tag.fetch_add(n, Ordering::Relaxed) % self.data_tag_modulus) as i32
    }

    /// The data tags of a striped payload whose first data tag is `first`: the `k`-th after it
    /// in the payload range for part `k`, wrapping as the counter does. Every process of the
    /// communicator computes the same (same host tag range, same header count).
    #[inline]
    pub(crate) fn part_tags(&self, first: i32) -> stripe::PartTags {
        stripe::PartTags { comm: self.data_comm, first, base: self.data_tag_base, modulus: self.data_tag_modulus }
    }

    /// The host tag for `MPI_Comm_create_group` on the header communicator by the group
    /// whose first member has rank `first >= 0` and whose member list hashes to `hash`: one
    /// of the tags no transport message uses, its low half of bits from `first`, its high half
    /// from `hash`. Creations running at once on one communicator must have different tags
    /// when they share a process. Their groups are disjoint or share only endpoints that
    /// call them one after the other. Disjoint groups have different first members, hence
    /// different tags in a communicator of up to `2^(bits / 2)` endpoints (2^13 on Open MPI,
    /// 2^12 on MPICH here); groups with the same first member (one endpoint creating with
    /// several groups in turn) differ by their hash, alike by chance only (2^-14, 2^-12).
    /// Errors: `EP_ERR_INTERN` when the host's tag range is too small to keep these tags
    /// apart from the header tags.
    pub fn group_tag(&self, first: c_int, hash: u64) -> EpResult<c_int> {
        if self.group_tag_base < self.headers {
            return Err(ep_err!(ERR_INTERN, "the host's tag range is too small for MPI_Comm_create_group here"));
        }
        let low_bits = self.group_tag_bits / 2;
        let high_bits = self.group_tag_bits - low_bits;
        let low = first as u32 & ((1 << low_bits) - 1);
        let high = (hash & ((1 << high_bits) - 1)) as u32;
        Ok((self.group_tag_base + (high << low_bits | low)) as c_int)
    }

    /// The host communicator rendezvous payloads travel on.
    #[inline]
    pub fn data_comm(&self) -> HostComm {
        self.data_comm
    }
}

impl Drop for RemoteComm {
    fn drop(&mut self) {
        if self.own_data_comm {
            host::free_comm(self.data_comm);
        }
    }
}

/// Starts the host receive of a rendezvous message's data (`bytes` bytes from process
/// `proc` with `data_tag`, on the data communicator, in parts of `part_bytes` when that is not
/// 0) into `buf`, or, when the message is longer than `buf` (`truncated`) or striped into a
/// non-contiguous `buf`, into a buffer of its own that the returned `HostOp` owns (the caller
/// unpacks what fits once it completes: see [`HostOp::keep`]). Errors: the host's.
pub(crate) fn receive_data(
    remote: &RemoteComm,
    buf: &UserBuf,
    proc: c_int,
    data_tag: c_int,
    bytes: u64,
    part_bytes: u32,
    truncated: bool,
) -> EpResult<HostOp> {
    if part_bytes > 0 {
        return receive_striped(remote, buf, proc, data_tag, bytes, part_bytes, truncated);
    }
    let mut request = HostRequest(HOST.request_null);
    let data_comm = remote.data_comm().0;
    if !truncated {
        // SAFETY: the host writes at most the message's `bytes <= buf.bytes()` into the user's
        // buffer, valid for `count` elements of `dtype` until the receive completes (MPI 4.1
        // section 3.7.2); the host writes `request`, a live local.
        unsafe {
            check(
                sys::MPI_Irecv(buf.addr, buf.count, buf.dtype, proc, data_tag, data_comm, &mut request.0),
                "MPI_Irecv",
            )?
        };
        return Ok(HostOp::one(request, Vec::new()));
    }
    let len = c_int::try_from(bytes).map_err(|_| ep_err!(ERR_INTERN, "rendezvous message of {bytes} bytes"))?;
    let mut tmp = vec![0u8; bytes as usize];
    // SAFETY: the host writes the message's `bytes` into `tmp`, whose heap block moves into the
    // returned `HostOp` (dropped early, it goes to the orphanage until the host is done).
    unsafe {
        check(
            sys::MPI_Irecv(tmp.as_mut_ptr() as *mut c_void, len, HOST.byte, proc, data_tag, data_comm, &mut request.0),
            "MPI_Irecv",
        )?
    };
    Ok(HostOp::one(request, tmp))
}

/// [`receive_data`] of a striped message: its parts straight into `buf` when it is contiguous
/// and the message fits, else into a buffer of the message's length that the `HostOp` owns.
fn receive_striped(
    remote: &RemoteComm,
    buf: &UserBuf,
    proc: c_int,
    first_tag: c_int,
    bytes: u64,
    part_bytes: u32,
    truncated: bool,
) -> EpResult<HostOp> {
    let null = HostRequest(HOST.request_null);
    if !truncated && buf.info.contiguous() {
        let mut op = HostOp::new([null, null], 0, Vec::new());
        let tags = remote.part_tags(first_tag);
        // SAFETY: the message's `bytes <= buf.bytes()` land in the user's contiguous buffer,
        // valid until the receive completes (MPI 4.1 section 3.7.2), which waits for `op`.
        unsafe { stripe::receive_parts(buf.data_ptr(), bytes, part_bytes, proc, tags, &mut op)? };
        return Ok(op);
    }
    let len = usize::try_from(bytes).map_err(|_| ep_err!(ERR_INTERN, "striped message of {bytes} bytes"))?;
    let mut tmp = vec![0u8; len];
    let dst = tmp.as_mut_ptr();
    let mut op = HostOp::new([null, null], 0, tmp);
    // SAFETY: `op` owns the `len` bytes at `dst` (the heap block moved into it unchanged, never
    // resized), and dropped before its requests complete it goes to the orphanage with them.
    // The host is the only writer; nothing reads them until the requests complete.
    unsafe { stripe::receive_parts(dst, bytes, part_bytes, proc, remote.part_tags(first_tag), &mut op)? };
    Ok(op)
}

/// How a remote send left.
pub enum Sent {
    /// Complete: the host has the packet.
    Done,
    /// The host still reads the send's memory: its requests and the packet, owned together.
    Host(HostOp),
}

/// Sends to an endpoint of another process: headers on host communicator `host`, rendezvous
/// data as `remote` says. `blocking` lets small packets go by `MPI_Send`. The latency path is
/// inlined into the send calls; everything else is `send_general`.
#[inline(always)]
pub fn send(
    host: HostComm,
    remote: &RemoteComm,
    dest: Location,
    env: Envelope,
    buf: UserBuf,
    sync: bool,
    blocking: bool,
) -> EpResult<Sent> {
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
            crate::engine::datatype::copy_bytes(buf.data_ptr(), p.add(EAGER_HEADER_BYTES), bytes);
            std::slice::from_raw_parts(p, EAGER_HEADER_BYTES + bytes)
        };
        let len = packet.len() as c_int;
        // SAFETY: `packet`'s `len` bytes are initialised above and live across the blocking send;
        // `host` is the communicator's host communicator, alive while the caller's communicator is.
        unsafe {
            check(sys::MPI_Send(packet.as_ptr() as *const c_void, len, HOST.byte, proc, tag, host.0), "MPI_Send")?
        };
        return Ok(Sent::Done);
    }
    send_general(host, remote, dest, env, buf, sync, blocking)
}

/// The rest of [`send`]: packed eager packets, and rendezvous.
#[inline(never)]
fn send_general(host: HostComm, remote: &RemoteComm, dest: Location, env: Envelope, buf: UserBuf, sync: bool, blocking: bool) -> EpResult<Sent> {
    let bytes = buf.bytes();
    let proc = dest.proc as c_int;
    let tag = dest.local as c_int;
    if !sync && bytes <= REMOTE_EAGER_BYTES {
        let mut packet = spare::packet(EAGER_HEADER_BYTES + bytes);
        packet.extend_from_slice(&WireHeader { envelope: env, protocol: Protocol::Eager, bytes: bytes as u64 }.encode()[..EAGER_HEADER_BYTES]);
        buf.pack_into(&mut packet)?;
        let ptr = packet.as_ptr() as *const c_void;
        let len = packet.len() as c_int;
        if blocking && packet.len() <= BLOCKING_HOST_SEND_BYTES {
            // SAFETY: a blocking send of `len` initialised bytes of `packet`, alive across the call.
            unsafe { check(sys::MPI_Send(ptr, len, HOST.byte, proc, tag, host.0), "MPI_Send")? };
            spare::keep_packet(packet);
            return Ok(Sent::Done);
        }
        let mut r = HostRequest(HOST.request_null);
        // SAFETY: the host reads `packet` until the request completes: the returned `Sent`
        // owns both (`HostOp`), and dropping it before completion hands them to the orphanage.
        unsafe { check(sys::MPI_Isend(ptr, len, HOST.byte, proc, tag, host.0, &mut r.0), "MPI_Isend")? };
        return Ok(Sent::Host(HostOp::one(r, packet)));
    }
    let team = stripe::team_for(&buf);
    let part_bytes = team.as_ref().map_or(0, |t| stripe::part_bytes(bytes, t.members()));
    let data_tag = match team {
        Some(_) => remote.data_tags(stripe::parts_of(bytes as u64, part_bytes) as u32),
        None => remote.next_data_tag(),
    };
    let protocol = Protocol::Rendezvous { data_tag, part_bytes };
    let header = WireHeader { envelope: env, protocol, bytes: bytes as u64 };
    let header = header.encode()[..header.wire_bytes()].to_vec();
    let (hp, hl) = (header.as_ptr() as *const c_void, header.len() as c_int);
    let data_comm = remote.data_comm().0;
    let t = HostType(buf.dtype);
    let mut r = HostRequest(HOST.request_null);
    // SAFETY: the header send reads `header`, which moves (unchanged, the heap block stays) into
    // the `HostOp` that owns the request from here on, so it outlives the host's reading.
    unsafe { check(sys::MPI_Isend(hp, hl, HOST.byte, proc, tag, host.0, &mut r.0), "MPI_Isend")? };
    let mut op = HostOp::one(r, header);
    if let Some(team) = team {
        // When a part fails to start, `op` (the header and the started parts) goes to the
        // orphanage with the early return.
        stripe::send_parts(&team, &buf, proc, remote.part_tags(data_tag), part_bytes, sync, &mut op)?;
        return Ok(Sent::Host(op));
    }
    // A synchronous host send completes once the receiver has matched the header and posted
    // the data receive, which is MPI's synchronous-mode guarantee.
    let isend = if sync { sys::MPI_Issend } else { sys::MPI_Isend };
    let mut d = HostRequest(HOST.request_null);
    // SAFETY: the data send reads `count` elements of `dtype` at `buf.addr`, which the user keeps
    // valid and unchanged until the send completes (MPI 4.1 section 3.7.2); the host writes `d`.
    // When it fails, `op` (the header send) goes to the orphanage with the early return.
    unsafe { check(isend(buf.addr, buf.count, t.0, proc, data_tag, data_comm, &mut d.0), "MPI_Isend(data)")? };
    op.add(d);
    Ok(Sent::Host(op))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kept range: an eighth of the host's, within its bounds, always below `tag_ub`.
    #[test]
    fn group_tags_fit_the_host_range() {
        assert_eq!(group_tag_bits(i32::MAX as u32), 27);
        assert_eq!(group_tag_bits((1 << 28) - 1), 24);
        assert_eq!(group_tag_bits((1 << 23) - 1), 19);
        assert_eq!(group_tag_bits(32767), 12);
        for tag_ub in [32767u32, (1 << 23) - 1, i32::MAX as u32] {
            let bits = group_tag_bits(tag_ub);
            assert!(tag_ub - (1 << bits) >= (1 << 20) || tag_ub < 1 << 21, "payloads keep their range at {tag_ub}");
        }
    }

    /// The tags of a striped payload's parts follow its first tag in the payload range and wrap
    /// to its start, as the counter that hands them out does.
    #[test]
    fn part_tags_follow_the_counter() {
        let remote = RemoteComm {
            data_comm: HostComm(HOST.comm_null),
            own_data_comm: false,
            next_data_tag: AtomicU32::new(0),
            data_tag_base: 8,
            data_tag_modulus: 10,
            group_tag_base: 18,
            group_tag_bits: 12,
            headers: 8,
        };
        assert_eq!(remote.data_tags(1), 8);
        let first = remote.data_tags(7);
        assert_eq!(first, 9);
        let tags = remote.part_tags(first);
        assert_eq!((0..7).map(|k| tags.tag(k)).collect::<Vec<_>>(), [9, 10, 11, 12, 13, 14, 15]);
        let tags = remote.part_tags(remote.data_tags(4));
        assert_eq!((0..4).map(|k| tags.tag(k)).collect::<Vec<_>>(), [16, 17, 8, 9]);
        assert_eq!(remote.next_data_tag(), 10, "the next payload after the wrap");
    }

    #[test]
    fn header_round_trip_keeps_full_tags() {
        for h in [
            WireHeader { envelope: Envelope { source: 0, tag: 0 }, protocol: Protocol::Eager, bytes: 0 },
            WireHeader { envelope: Envelope { source: 5, tag: i32::MAX }, protocol: Protocol::Eager, bytes: MAX_EAGER_BYTES },
            WireHeader {
                envelope: Envelope { source: 1023, tag: i32::MAX },
                protocol: Protocol::Rendezvous { data_tag: 77, part_bytes: 0 },
                bytes: 1 << 40,
            },
            WireHeader {
                envelope: Envelope { source: i32::MAX, tag: 0 },
                protocol: Protocol::Rendezvous { data_tag: i32::MAX, part_bytes: 0 },
                bytes: u64::MAX >> 1,
            },
            WireHeader {
                envelope: Envelope { source: 3, tag: 9 },
                protocol: Protocol::Rendezvous { data_tag: 12, part_bytes: u32::MAX },
                bytes: (1 << 62) + 1,
            },
            WireHeader {
                envelope: Envelope { source: 0, tag: 0 },
                protocol: Protocol::Rendezvous { data_tag: 0, part_bytes: 1 },
                bytes: 0,
            },
        ] {
            let wire = h.encode();
            assert!(wire[h.wire_bytes()..].iter().all(|&b| b == 0), "nothing past the header's length");
            assert_eq!(WireHeader::decode(&wire[..h.wire_bytes()]), Some(h));
            assert_eq!(WireHeader::decode(&wire[..h.wire_bytes() - 1]), None, "a cut header is no header");
        }
        assert_eq!(WireHeader::decode(&[0u8; 11]), None);
    }
}

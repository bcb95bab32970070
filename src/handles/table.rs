//! The integer handle table: `EP_Comm`, `EP_Request`, `EP_Message`, `EP_Win`, `EP_Group`,
//! keyval and `EP_Errhandler` values map to engine objects, one table per kind.
//!
//! # Layout
//! A handle is a positive 32-bit C `int`, the same in C and Fortran, read from the high bit down
//! as `0 | kind (3 bits) | generation (10 bits) | shard (4 bits) | slot (14 bits)`. Kinds are
//! 1..=7, so every handle lies in `2^28 .. 2^31`: never negative, never 0 (the null handle
//! of every kind) nor 1 (`EP_MESSAGE_NO_PROC`, `EP_GROUP_EMPTY`), nor a predefined keyval or
//! error handler. A value whose kind bits name another kind (or
//! none) is [`Lookup::WrongKind`]: a request handle passed as a communicator gives
//! `EP_ERR_COMM`, never the wrong object.
//!
//! # Freed handles
//! Freeing a handle advances its slot's generation, so the old value no longer resolves. Freed
//! slots wait in a first-in first-out queue per shard, and a slot leaves the queue only when
//! more than `QUARANTINE` slots are queued, all freed after it; until then insertion takes a
//! fresh slot. A slot is therefore reused only after `QUARANTINE` other handles of its shard
//! were freed, and its generation (10 bits) comes back to a value only after 2^10 reuses.
//! Together: **a freed handle value is not issued again before `STALE_FREES` = 2^10 * 1025 - 1
//! = 1,049,599 (more than 2^20) further handles of its kind have been freed** (counting only
//! those of its own shard, which is stricter). The bound is reached exactly by a thread that
//! allocates and frees one handle at a time: its freed value comes back on the 1,049,600th
//! cycle. Until then a lookup of the freed value is [`Lookup::Stale`]. Later the value may name
//! a new object: 31 bits cannot keep every freed value apart forever, and a program holding on
//! to a freed handle for a million reuses is erroneous in MPI anyway.
//!
//! # Capacity
//! 16 shards of 2^14 slots: 262,144 slots per kind. Insertion always succeeds while fewer than
//! `GUARANTEED_LIVE` = 16 * (2^14 - 1024) = 245,760 handles of the kind are live (beyond that
//! it may fail rather than cut a freed slot's quarantine short). Tables grow as used, a
//! shard's slot array at most to 2^14 entries of 16 bytes.
//!
//! # Concurrency
//! Reads take one shard's lock and clone an `Arc`; threads insert into the shard picked by
//! their thread id (or by the caller's hint), so concurrent endpoints rarely meet on a lock.
//! The lock is the engine's spin lock, released by a store ([`SpinMutex`]): a shard is mostly
//! used by one thread, and a read-write lock would take two read-modify-writes per lookup (lock
//! and unlock) where this takes one: six per nonblocking call with insertion and removal.
//! Each shard has its own cache lines, its live count included: every nonblocking call inserts
//! and removes a request, and one count for the table (an atomic beside the shards' address)
//! made every insertion and removal of every thread a cross-core read-modify-write of one line.

use crate::engine::spinlock::{SpinGuard, SpinMutex};
use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const SLOT_BITS: u32 = 14;
const SHARD_BITS: u32 = 4;
const GEN_BITS: u32 = 10;
const KIND_BITS: u32 = 3;
const SHARDS: usize = 1 << SHARD_BITS;
const SLOTS_PER_SHARD: usize = 1 << SLOT_BITS;
const SHARD_SHIFT: u32 = SLOT_BITS;
const GEN_SHIFT: u32 = SLOT_BITS + SHARD_BITS;
const KIND_SHIFT: u32 = GEN_SHIFT + GEN_BITS;
const GEN_MASK: u32 = (1 << GEN_BITS) - 1;

/// Freed slots a shard keeps queued before it reuses the oldest of them (see the module
/// documentation).
pub(crate) const QUARANTINE: usize = 1024;

/// Frees of handles of the same kind that must happen after a handle is freed before its value
/// can be issued again: `2^GEN_BITS` reuses of the slot, each after `QUARANTINE` other frees,
/// plus the slot's own frees in between.
pub(crate) const STALE_FREES: u64 = (1u64 << GEN_BITS) * (QUARANTINE as u64 + 1) - 1;

/// Live handles of one kind that always fit in a table.
pub(crate) const GUARANTEED_LIVE: usize = SHARDS * (SLOTS_PER_SHARD - QUARANTINE);

const _: () = {
    assert!(KIND_SHIFT + KIND_BITS == 31, "handles use the 31 value bits of a C int");
    assert!((Kind::Errhandler as u32) < 1 << KIND_BITS, "every kind fits its bits");
    // The smallest handle (kind 1, all else 0) is above every reserved value (0, 1).
    assert!(1u32 << KIND_SHIFT > 1);
    assert!(STALE_FREES >= 1 << 20, "freed handles stay invalid for 2^20 reuses");
    assert!(QUARANTINE < SLOTS_PER_SHARD);
    // DESIGN.md section 3: no fixed limit of endpoints per process below 1024.
    assert!(GUARANTEED_LIVE >= 100 * 1024);
};

/// Kinds of handles (the top bits of the value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Comm = 1,
    Request = 2,
    Message = 3,
    Win = 4,
    Group = 5,
    Keyval = 6,
    Errhandler = 7,
}

struct Slot<T> {
    generation: u32,
    object: Option<Arc<T>>,
}

struct Shard<T> {
    slots: Vec<Slot<T>>,
    /// Freed slots, oldest first.
    free: VecDeque<u32>,
    /// Handles of this shard in use.
    live: usize,
}

/// A shard's lock and contents on cache lines of their own (two: the adjacent-line
/// prefetcher pulls lines in pairs), so that threads using neighbouring shards never write
/// the same line.
#[repr(align(128))]
struct Padded<T>(SpinMutex<Shard<T>>);

impl<T> Shard<T> {
    /// A slot for a new object: the oldest freed slot once more than `QUARANTINE` wait, else
    /// a fresh one; `None` when the shard has no fresh slot left and its quarantine is short.
    fn take_slot(&mut self) -> Option<usize> {
        if self.free.len() > QUARANTINE {
            return self.free.pop_front().map(|i| i as usize);
        }
        if self.slots.len() < SLOTS_PER_SHARD {
            self.slots.push(Slot { generation: 0, object: None });
            return Some(self.slots.len() - 1);
        }
        None
    }
}

/// One table per kind of object. All methods take `&self` and may be called from any thread.
pub struct Table<T> {
    kind: Kind,
    shards: Vec<Padded<T>>,
}

thread_local! {
    static SHARD_OF_THREAD: Cell<usize> = const { Cell::new(usize::MAX) };
}
static NEXT_THREAD_SHARD: AtomicUsize = AtomicUsize::new(0);

fn my_shard() -> usize {
    SHARD_OF_THREAD.with(|s| {
        if s.get() == usize::MAX {
            s.set(NEXT_THREAD_SHARD.fetch_add(1, Ordering::Relaxed) % SHARDS);
        }
        s.get()
    })
}

/// Why a handle did not resolve.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The value 0.
    Null,
    /// Negative, or the kind bits name another kind or none.
    WrongKind,
    /// Of this kind, but freed (within the guarantee of the module documentation) or never
    /// issued.
    Stale,
}

impl<T> Table<T> {
    /// An empty table for handles of `kind`; it allocates as handles are inserted.
    pub fn new(kind: Kind) -> Self {
        Table {
            kind,
            shards: (0..SHARDS).map(|_| Padded(SpinMutex::new(Shard { slots: Vec::new(), free: VecDeque::new(), live: 0 }))).collect(),
        }
    }

    /// (shard, slot, generation) of a handle of this table's kind.
    #[inline]
    fn decode(&self, h: i32) -> Result<(usize, usize, u32), Lookup> {
        if h == 0 {
            return Err(Lookup::Null);
        }
        let u = h as u32;
        // A negative value has the top bit set, so its kind bits match no kind.
        if u >> KIND_SHIFT != self.kind as u32 {
            return Err(Lookup::WrongKind);
        }
        let slot = (u & (SLOTS_PER_SHARD as u32 - 1)) as usize;
        let shard = ((u >> SHARD_SHIFT) & (SHARDS as u32 - 1)) as usize;
        let generation = (u >> GEN_SHIFT) & GEN_MASK;
        Ok((shard, slot, generation))
    }

    fn encode(&self, shard: usize, slot: usize, generation: u32) -> i32 {
        (((self.kind as u32) << KIND_SHIFT) | (generation << GEN_SHIFT) | ((shard as u32) << SHARD_SHIFT) | slot as u32)
            as i32
    }

    /// Stores an object, returning its handle (a positive value, see the module
    /// documentation); `None` when the table is full, which cannot happen while fewer than
    /// `GUARANTEED_LIVE` handles are live. Starts with the calling thread's shard.
    pub fn insert(&self, object: Arc<T>) -> Option<i32> {
        self.insert_near(object, my_shard())
    }

    /// [`Self::insert`] starting with shard `hint % 16`: the endpoints of one process go to
    /// different shards so that their threads' lookups never share a lock's cache line. A
    /// full shard passes the object on to the next.
    pub fn insert_near(&self, object: Arc<T>, hint: usize) -> Option<i32> {
        let start = hint % SHARDS;
        for k in 0..SHARDS {
            let shard_ix = (start + k) % SHARDS;
            let mut shard = self.shards[shard_ix].0.lock();
            let Some(slot_ix) = shard.take_slot() else { continue };
            let slot = &mut shard.slots[slot_ix];
            slot.object = Some(object);
            let h = self.encode(shard_ix, slot_ix, slot.generation);
            shard.live += 1;
            return Some(h);
        }
        None
    }

    /// The object behind a handle: one shard lock, a compare, an `Arc` clone.
    #[inline]
    pub fn get(&self, h: i32) -> Result<Arc<T>, Lookup> {
        let (shard, slot, generation) = self.decode(h)?;
        let shard = self.shards[shard].0.lock();
        match shard.slots.get(slot) {
            Some(s) if s.generation == generation => s.object.clone().ok_or(Lookup::Stale),
            _ => Err(Lookup::Stale),
        }
    }

    /// Removes a handle's object; the value then resolves to nothing (see the module
    /// documentation for how long).
    pub fn remove(&self, h: i32) -> Result<Arc<T>, Lookup> {
        let (shard_ix, slot_ix, generation) = self.decode(h)?;
        let mut shard = self.shards[shard_ix].0.lock();
        let slot = shard.slots.get_mut(slot_ix).ok_or(Lookup::Stale)?;
        if slot.generation != generation {
            return Err(Lookup::Stale);
        }
        let object = slot.object.take().ok_or(Lookup::Stale)?;
        // Wraps after 2^GEN_BITS reuses; the quarantine makes those reuses slow to come.
        slot.generation = (slot.generation + 1) & GEN_MASK;
        shard.free.push_back(slot_ix as u32);
        shard.live -= 1;
        Ok(object)
    }

    /// [`Self::get`] for each of `hs`, in order, handed to `found`, taking a shard's lock
    /// once per run of consecutive handles of that shard: an array call over a window of
    /// requests that one thread made finds them all in its shard, one lock for the window
    /// instead of one per handle. `found` runs under the lock: it must not use this table nor
    /// drop an object.
    pub fn get_each(&self, hs: &[i32], mut found: impl FnMut(Result<Arc<T>, Lookup>)) {
        let mut held: Option<(usize, SpinGuard<'_, Shard<T>>)> = None;
        for &h in hs {
            found(self.decode(h).and_then(|(shard_ix, slot, generation)| {
                match self.lock_run(&mut held, shard_ix).slots.get(slot) {
                    Some(s) if s.generation == generation => s.object.clone().ok_or(Lookup::Stale),
                    _ => Err(Lookup::Stale),
                }
            }));
        }
    }

    /// [`Self::remove`] for each of `hs`, one lock per run of consecutive handles of a shard
    /// (see [`Self::get_each`]); handles that do not resolve are skipped. The objects are
    /// dropped after the last lock is released: dropping one may free what it holds, which
    /// may use this table.
    pub fn remove_each(&self, hs: &[i32]) {
        let mut removed = Vec::with_capacity(hs.len());
        let mut held: Option<(usize, SpinGuard<'_, Shard<T>>)> = None;
        for &h in hs {
            let Ok((shard_ix, slot_ix, generation)) = self.decode(h) else { continue };
            let shard = self.lock_run(&mut held, shard_ix);
            let Some(slot) = shard.slots.get_mut(slot_ix).filter(|s| s.generation == generation) else { continue };
            let Some(object) = slot.object.take() else { continue };
            slot.generation = (slot.generation + 1) & GEN_MASK;
            shard.free.push_back(slot_ix as u32);
            shard.live -= 1;
            removed.push(object);
        }
        drop(held);
        drop(removed);
    }

    /// Shard `ix` locked: the lock `held` already when it is that shard's, else after
    /// releasing `held`'s.
    fn lock_run<'a, 'g>(&'a self, held: &'g mut Option<(usize, SpinGuard<'a, Shard<T>>)>, ix: usize) -> &'g mut Shard<T> {
        if held.as_ref().is_none_or(|(i, _)| *i != ix) {
            *held = None;
            *held = Some((ix, self.shards[ix].0.lock()));
        }
        &mut held.as_mut().expect("locked above").1
    }

    /// Number of live handles (for leak checks): each shard's count under its lock, so
    /// a snapshot only while no other thread inserts or removes.
    pub fn live(&self) -> usize {
        self.shards.iter().map(|s| s.0.lock().live).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::types::{EP_COMM_NULL, EP_MESSAGE_NO_PROC, EP_MESSAGE_NULL, EP_REQUEST_NULL, EP_WIN_NULL};

    #[test]
    fn insert_get_remove() {
        let t = Table::new(Kind::Comm);
        let h = t.insert(Arc::new(5)).unwrap();
        assert!(h > 0);
        assert_eq!(*t.get(h).unwrap(), 5);
        assert_eq!(t.live(), 1);
        assert_eq!(*t.remove(h).unwrap(), 5);
        assert_eq!(t.get(h).unwrap_err(), Lookup::Stale);
        assert_eq!(t.remove(h).unwrap_err(), Lookup::Stale);
        assert_eq!(t.live(), 0);
    }

    #[test]
    fn batched_lookups_and_removals_match_single_ones() {
        let t = Table::new(Kind::Request);
        // Handles of several shards, interleaved, with bad values among them.
        let mut hs: Vec<i32> = (0..40i32).map(|i| t.insert_near(Arc::new(i), i as usize % 3).unwrap()).collect();
        let freed = t.insert(Arc::new(-1)).unwrap();
        t.remove(freed).unwrap();
        hs.insert(7, freed);
        hs.insert(20, 0);
        hs.insert(30, -5);
        let mut got = Vec::new();
        t.get_each(&hs, |g| got.push(g));
        assert_eq!(got.len(), hs.len());
        for (h, g) in hs.iter().zip(&got) {
            assert_eq!(g.as_ref().map(|o| **o), t.get(*h).as_ref().map(|o| **o), "handle {h}");
        }
        t.remove_each(&hs);
        assert_eq!(t.live(), 0);
        assert!(hs.iter().all(|h| t.get(*h).is_err()));
        // A handle given twice in one batch is freed once.
        let h = t.insert_near(Arc::new(1), 0).unwrap();
        t.remove_each(&[h, h]);
        assert_eq!(t.live(), 0);
        assert_eq!(t.remove(h).unwrap_err(), Lookup::Stale);
    }

    #[test]
    fn reused_slot_does_not_revive_old_handle() {
        let t = Table::new(Kind::Request);
        let h1 = t.insert(Arc::new(1)).unwrap();
        t.remove(h1).unwrap();
        let h2 = t.insert(Arc::new(2)).unwrap();
        assert_ne!(h1, h2);
        assert!(t.get(h1).is_err());
        assert_eq!(*t.get(h2).unwrap(), 2);
    }

    #[test]
    fn kinds_and_nulls_are_rejected() {
        let comms = Table::new(Kind::Comm);
        let reqs: Table<i32> = Table::new(Kind::Request);
        let h = comms.insert(Arc::new(1)).unwrap();
        assert_eq!(reqs.get(h).unwrap_err(), Lookup::WrongKind);
        assert_eq!(reqs.remove(h).unwrap_err(), Lookup::WrongKind);
        assert_eq!(comms.get(0).unwrap_err(), Lookup::Null);
        assert_eq!(comms.get(-7).unwrap_err(), Lookup::WrongKind);
        assert_eq!(comms.get(i32::MIN).unwrap_err(), Lookup::WrongKind);
        assert_eq!(comms.get(-1 - h).unwrap_err(), Lookup::WrongKind);
        assert_eq!(comms.get(12345).unwrap_err(), Lookup::WrongKind);
        assert_eq!(comms.get(i32::MAX).unwrap_err(), Lookup::WrongKind);
        // Right kind, a slot never used.
        assert_eq!(comms.get(h | 0x3ff0).unwrap_err(), Lookup::Stale);
    }

    #[test]
    fn many_handles_are_distinct() {
        let t = Table::new(Kind::Message);
        let hs: Vec<i32> = (0..5000).map(|i| t.insert(Arc::new(i)).unwrap()).collect();
        let mut sorted = hs.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), hs.len());
        for (i, h) in hs.iter().enumerate() {
            assert_eq!(*t.get(*h).unwrap(), i);
        }
    }

    /// A request freed by a thread that then allocates and frees one request at a time (a
    /// loop of `EP_Isend` + `EP_Wait`) stays invalid for `STALE_FREES` (more than 2^20)
    /// cycles; then its value comes back, on the cycle the module documentation says.
    #[test]
    fn freed_handle_stays_invalid_for_2_pow_20_cycles() {
        let t = Table::new(Kind::Request);
        let keep = t.insert(Arc::new(-1)).unwrap();
        let freed = t.insert(Arc::new(0)).unwrap();
        t.remove(freed).unwrap();
        let mut cycle: u64 = 0;
        let came_back = loop {
            cycle += 1;
            let h = t.insert(Arc::new(cycle as i64)).unwrap();
            assert!(h >= 1 << 28, "{h} is not a handle value");
            if h == freed {
                break cycle;
            }
            if cycle == 1 << 20 || cycle == STALE_FREES {
                assert_eq!(t.get(freed).unwrap_err(), Lookup::Stale, "after {cycle} cycles");
                assert_eq!(t.remove(freed).unwrap_err(), Lookup::Stale, "after {cycle} cycles");
            }
            assert_eq!(*t.remove(h).unwrap(), cycle as i64);
            assert!(cycle <= 2 * STALE_FREES, "the generation never wrapped");
        };
        assert!(came_back > STALE_FREES, "freed handle reissued after {came_back} cycles");
        // The round-robin over QUARANTINE + 1 slots meets the bound exactly.
        assert_eq!(came_back, STALE_FREES + 1);
        assert_eq!(*t.get(keep).unwrap(), -1);
    }

    /// Threads inserting into their own shards and removing across shards (a request freed
    /// by another thread than the one that made it): the live count sums every shard's, and
    /// each shard keeps its own lines.
    #[test]
    fn live_counts_add_up_across_threads_and_shards() {
        assert_eq!(std::mem::align_of::<Padded<u8>>(), 128);
        let t = Arc::new(Table::new(Kind::Request));
        let made: Vec<Vec<i32>> = (0..4)
            .map(|k| {
                let t = t.clone();
                std::thread::spawn(move || (0..1000).map(|i| t.insert_near(Arc::new(k * 1000 + i), k as usize).unwrap()).collect())
            })
            .map(|j| j.join().unwrap())
            .collect();
        assert_eq!(t.live(), 4000);
        // Each thread frees the first half of the next thread's handles.
        let removers: Vec<_> = (0..4)
            .map(|k| {
                let (t, theirs) = (t.clone(), made[(k + 1) % 4][..500].to_vec());
                std::thread::spawn(move || theirs.iter().for_each(|&h| drop(t.remove(h).unwrap())))
            })
            .collect();
        removers.into_iter().for_each(|j| j.join().unwrap());
        assert_eq!(t.live(), 2000);
        for (k, hs) in made.iter().enumerate() {
            assert!(hs[..500].iter().all(|&h| t.get(h).is_err()));
            assert!(hs[500..].iter().enumerate().all(|(i, &h)| *t.get(h).unwrap() == (k * 1000 + 500 + i) as i32));
        }
    }

    /// Many live handles freed in a scrambled order: no freed value is issued again before
    /// `STALE_FREES` further frees.
    #[test]
    fn freed_handles_stay_invalid_with_many_live() {
        let t = Table::new(Kind::Request);
        let mut live: Vec<i32> = Vec::new();
        let mut freed_at: std::collections::HashMap<i32, u64> = std::collections::HashMap::new();
        let mut frees: u64 = 0;
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut seen_reissue = 0u64;
        while frees < 2 * STALE_FREES {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Between 0 and 300 live handles, drifting.
            if live.is_empty() || (live.len() < 300 && x & 1 == 0) {
                let h = t.insert(Arc::new(())).unwrap();
                if let Some(at) = freed_at.remove(&h) {
                    assert!(frees - at >= STALE_FREES, "value {h:#x} reissued {} frees after it was freed", frees - at);
                    seen_reissue += 1;
                }
                live.push(h);
            } else {
                let h = live.swap_remove((x >> 8) as usize % live.len());
                t.remove(h).unwrap();
                frees += 1;
                freed_at.insert(h, frees);
            }
        }
        assert!(seen_reissue > 0, "the test never reached a generation wrap");
        for h in live {
            t.remove(h).unwrap();
        }
        assert_eq!(t.live(), 0);
    }

    /// Handles of every kind are positive C ints that never equal a reserved value, at the
    /// extremes of the encoding and as issued (the wrap test above also checks every value it
    /// sees through a whole generation cycle).
    #[test]
    fn handles_are_positive_and_never_reserved() {
        let reserved = [EP_COMM_NULL, EP_REQUEST_NULL, EP_MESSAGE_NULL, EP_MESSAGE_NO_PROC, EP_WIN_NULL];
        for kind in [Kind::Comm, Kind::Request, Kind::Message, Kind::Win] {
            let t = Table::new(kind);
            let extremes = [(0, 0, 0), (SHARDS - 1, SLOTS_PER_SHARD - 1, GEN_MASK)];
            for (shard, slot, generation) in extremes {
                let h = t.encode(shard, slot, generation);
                assert!(h >= 1 << 28 && !reserved.contains(&h), "{kind:?}: {h}");
                assert_eq!(t.decode(h), Ok((shard, slot, generation)));
            }
            for i in 0..20_000 {
                let h = t.insert_near(Arc::new(()), i).unwrap();
                assert!(h >= 1 << 28 && !reserved.contains(&h), "{kind:?}: {h}");
                t.remove(h).unwrap();
            }
        }
    }

    /// No limit below 1024 endpoints per process (DESIGN.md section 3): 4096 communicator
    /// handles spread by local index, and the whole guaranteed capacity of a table from one
    /// thread.
    #[test]
    fn tables_hold_many_live_handles() {
        let comms = Table::new(Kind::Comm);
        let hs: Vec<i32> = (0..4096).map(|local| comms.insert_near(Arc::new(local), local).unwrap()).collect();
        for (local, h) in hs.iter().enumerate() {
            assert_eq!(*comms.get(*h).unwrap(), local);
        }
        let reqs = Table::new(Kind::Request);
        let hs: Vec<i32> = (0..GUARANTEED_LIVE).map(|i| reqs.insert(Arc::new(i)).unwrap()).collect();
        assert_eq!(reqs.live(), GUARANTEED_LIVE);
        assert_eq!(*reqs.get(hs[GUARANTEED_LIVE - 1]).unwrap(), GUARANTEED_LIVE - 1);
        // Free half and take as many again: the new values differ from the freed ones.
        let freed: std::collections::HashSet<i32> = hs.iter().step_by(2).copied().collect();
        for h in &freed {
            reqs.remove(*h).unwrap();
        }
        for i in 0..freed.len() {
            let h = reqs.insert(Arc::new(i)).unwrap();
            assert!(!freed.contains(&h), "freed value {h:#x} reissued at once");
        }
        assert_eq!(reqs.live(), GUARANTEED_LIVE);
    }
}

//! Integer handle tables: `EP_Comm`, `EP_Request`, `EP_Message` values map to engine objects.
//!
//! A handle is a positive 32-bit integer, the same in C and Fortran:
//! `kind (4 bits) | generation (7 bits) | shard (4 bits) | slot (16 bits)`.
//! The kind makes a request handle passed as a communicator an `EP_ERR_COMM` rather than a
//! wrong object; the generation makes a freed handle invalid even after its slot is reused
//! (the XIOS library's map returned freed communicators for reused values). Value 0 is the
//! null handle of every kind.
//!
//! Reads take one shard's read lock and clone an `Arc`; threads insert into the shard picked
//! by their thread id, so concurrent endpoints rarely meet on a lock.

use parking_lot::RwLock;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const SLOT_BITS: u32 = 16;
const SHARD_BITS: u32 = 4;
const GEN_BITS: u32 = 7;
const SHARDS: usize = 1 << SHARD_BITS;
const SLOTS_PER_SHARD: usize = 1 << SLOT_BITS;
const GEN_SHIFT: u32 = SLOT_BITS + SHARD_BITS;
const KIND_SHIFT: u32 = GEN_SHIFT + GEN_BITS;

/// Kinds of handles (the top bits of the value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Comm = 1,
    Request = 2,
    Message = 3,
    Win = 4,
}

struct Slot<T> {
    generation: u32,
    object: Option<Arc<T>>,
}

struct Shard<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
}

/// One table per kind of object.
pub struct Table<T> {
    kind: Kind,
    shards: Vec<RwLock<Shard<T>>>,
    live: AtomicUsize,
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
    Null,
    WrongKind,
    Stale,
}

impl<T> Table<T> {
    pub fn new(kind: Kind) -> Self {
        Table {
            kind,
            shards: (0..SHARDS).map(|_| RwLock::new(Shard { slots: Vec::new(), free: Vec::new() })).collect(),
            live: AtomicUsize::new(0),
        }
    }

    fn decode(&self, h: i32) -> Result<(usize, usize, u32), Lookup> {
        if h == 0 {
            return Err(Lookup::Null);
        }
        let u = h as u32;
        if h < 0 || u >> KIND_SHIFT != self.kind as u32 {
            return Err(Lookup::WrongKind);
        }
        let slot = (u & (SLOTS_PER_SHARD as u32 - 1)) as usize;
        let shard = ((u >> SLOT_BITS) & (SHARDS as u32 - 1)) as usize;
        let generation = (u >> GEN_SHIFT) & ((1 << GEN_BITS) - 1);
        Ok((shard, slot, generation))
    }

    fn encode(&self, shard: usize, slot: usize, generation: u32) -> i32 {
        (((self.kind as u32) << KIND_SHIFT) | (generation << GEN_SHIFT) | ((shard as u32) << SLOT_BITS) | slot as u32)
            as i32
    }

    /// Stores an object, returning its handle; `None` when the table is full.
    pub fn insert(&self, object: Arc<T>) -> Option<i32> {
        self.insert_near(object, my_shard())
    }

    /// Stores an object starting with shard `hint % 16`: the endpoints of one process go to
    /// different shards so that their threads' lookups never share a lock's cache line.
    pub fn insert_near(&self, object: Arc<T>, hint: usize) -> Option<i32> {
        let start = hint % SHARDS;
        for k in 0..SHARDS {
            let shard_ix = (start + k) % SHARDS;
            let mut shard = self.shards[shard_ix].write();
            let slot_ix = match shard.free.pop() {
                Some(i) => i as usize,
                None if shard.slots.len() < SLOTS_PER_SHARD => {
                    // Generation starts at 1 so that no valid handle equals a null one.
                    shard.slots.push(Slot { generation: 1, object: None });
                    shard.slots.len() - 1
                }
                None => continue,
            };
            let slot = &mut shard.slots[slot_ix];
            slot.object = Some(object);
            let h = self.encode(shard_ix, slot_ix, slot.generation);
            self.live.fetch_add(1, Ordering::Relaxed);
            return Some(h);
        }
        None
    }

    /// The object behind a handle.
    pub fn get(&self, h: i32) -> Result<Arc<T>, Lookup> {
        let (shard, slot, generation) = self.decode(h)?;
        let shard = self.shards[shard].read();
        match shard.slots.get(slot) {
            Some(s) if s.generation == generation => s.object.clone().ok_or(Lookup::Stale),
            _ => Err(Lookup::Stale),
        }
    }

    /// Removes a handle's object; the handle value is not valid afterwards.
    pub fn remove(&self, h: i32) -> Result<Arc<T>, Lookup> {
        let (shard_ix, slot_ix, generation) = self.decode(h)?;
        let mut shard = self.shards[shard_ix].write();
        let slot = shard.slots.get_mut(slot_ix).ok_or(Lookup::Stale)?;
        if slot.generation != generation || slot.object.is_none() {
            return Err(Lookup::Stale);
        }
        let object = slot.object.take().unwrap();
        slot.generation = slot.generation % ((1 << GEN_BITS) - 1) + 1;
        shard.free.push(slot_ix as u32);
        self.live.fetch_sub(1, Ordering::Relaxed);
        Ok(object)
    }

    /// Calls `f` on every live object (a snapshot per shard).
    pub fn for_each(&self, mut f: impl FnMut(&Arc<T>)) {
        for shard in &self.shards {
            let objects: Vec<Arc<T>> = shard.read().slots.iter().filter_map(|s| s.object.clone()).collect();
            objects.iter().for_each(&mut f);
        }
    }

    /// Number of live handles (for leak checks).
    pub fn live(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(comms.get(0).unwrap_err(), Lookup::Null);
        assert_eq!(comms.get(-7).unwrap_err(), Lookup::WrongKind);
        assert_eq!(comms.get(12345).unwrap_err(), Lookup::WrongKind);
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
}

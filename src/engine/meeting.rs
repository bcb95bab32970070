//! Where the endpoints of one process meet for the process's part of a collective operation:
//! communicator management (dup, split, merge, intercommunicator and team creation), window
//! creation, fence and free, and the start of nonblocking collectives.
//!
//! A [`MeetingPoint`] holds meetings by key: a communicator's own point uses the key `()`,
//! process-wide points use a key that every participant computes alike (the parent
//! communicator of a team creation, the (leaders, tag) of an intercommunicator creation, the
//! sequence number of a nonblocking collective). The k-th arrival of local index `idx` at a
//! key joins the k-th meeting there (its generation), so an endpoint that comes back for the
//! next operation before the others have left the previous one joins the next meeting and
//! never disturbs the previous one.
//!
//! Two ways to arrive:
//! - [`MeetingPoint::meet`]: each endpoint brings an input and possibly a fault (an error in
//!   its own arguments); the last to arrive, the leader, runs the process's part (usually one
//!   host call) with every input in local-index order and the process's first fault, and
//!   everyone leaves with the shared result or the shared error.
//! - [`MeetingPoint::join`]: each endpoint leaves at once with the meeting's shared object
//!   (made by the first to arrive); the object's own state tells which arrival is the last
//!   (which then starts the host part). Nonblocking collectives use this.
//!
//! Error agreement. Every participant of a meeting returns an error when any participant of
//! any process brought a fault, and none waits forever: an endpoint with a bad argument still
//! arrives (with a harmless placeholder input and its fault), the leader carries a failure
//! flag, the fault's error class ([`Gathered::fault_class`]), inside the data its host
//! exchange sends anyway (an allgather, a broadcast, a reduction), so every process learns of
//! it without another host call on the success path, and then every process returns the
//! error. An endpoint gets its own error when it brought a fault, otherwise
//! [`failed_elsewhere`] with the largest class any participant brought (the same on every
//! endpoint of every process). A leader that fails on its own (a host error) or panics gives
//! its error (`EP_ERR_INTERN` for a panic) to every endpoint of its process.
//!
//! Blocking on a condition variable is fine here: these operations are rare. The blocking
//! collectives have their own lock-free meeting place, [`super::coll::board::Board`].

use crate::ep_err;
use crate::error::{class_text, EpError, EpResult, ERR_ARG, ERR_INTERN};
use parking_lot::{Condvar, Mutex};
use std::any::Any;
use std::collections::BTreeMap;
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

type Shared = Arc<dyn Any + Send + Sync>;

/// One meeting: who has arrived, what they brought, and what they leave with.
struct Room {
    n: usize,
    joined: Vec<bool>,
    arrived: usize,
    inputs: Vec<Option<Box<dyn Any + Send>>>,
    faults: Vec<Option<EpError>>,
    /// `meet`: the leader's result, once it has run. `join`: the shared object.
    outcome: Option<Result<Shared, EpError>>,
    /// Participants that have taken the outcome.
    left: usize,
    id: u64,
}

struct Rooms<K> {
    next_id: u64,
    /// Meetings by key, oldest first (a key's meetings complete in order).
    by_key: BTreeMap<K, Vec<Room>>,
}

/// A meeting point for the endpoints of one process (see the module documentation).
/// Thread safety: any number of threads arrive at once; each local index arrives from one
/// thread at a time.
pub struct MeetingPoint<K = ()> {
    rooms: Mutex<Rooms<K>>,
    done: Condvar,
}

impl<K: Ord + Clone> Default for MeetingPoint<K> {
    fn default() -> Self {
        Self::new()
    }
}

/// What the leader of a [`MeetingPoint::meet`] receives.
pub struct Gathered<I> {
    /// Every participant's input, in local-index order (placeholders from faulty ones).
    pub inputs: Vec<I>,
    /// The fault of the participant with the lowest local index that brought one.
    pub fault: Option<EpError>,
}

impl<I> Gathered<I> {
    /// The failure flag the leader sends along its host exchange: the class of the process's
    /// fault, 0 without one.
    pub fn fault_class(&self) -> c_int {
        self.fault.as_ref().map_or(0, |e| e.class)
    }
}

/// The error of an endpoint whose own arguments were fine when the operation failed on
/// another endpoint: `class` is the largest error class the faulty endpoints reported (as the
/// failure flags of every process show it).
pub fn failed_elsewhere(class: c_int) -> EpError {
    ep_err!(class, "the operation failed on another endpoint ({}); no endpoint completed it", class_text(class))
}

/// The agreed outcome once every process's failure flag is known (`flags`, 0 for none):
/// `Ok` when no flag is set, else [`failed_elsewhere`] with the largest one.
pub fn agree(flags: impl IntoIterator<Item = c_int>) -> EpResult<()> {
    match flags.into_iter().max() {
        Some(class) if class != 0 => Err(failed_elsewhere(class)),
        _ => Ok(()),
    }
}

/// The text of a caught panic's payload.
fn panic_text(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Runs the leader's part: its result, or its error, or the process's first fault when the
/// leader returned a result anyway, or `EP_ERR_INTERN` when it panicked.
fn run_leader<I, R>(leader: impl FnOnce(Gathered<I>) -> EpResult<R>, gathered: Gathered<I>) -> EpResult<Arc<R>> {
    let first_fault = gathered.fault.clone();
    match catch_unwind(AssertUnwindSafe(|| leader(gathered))) {
        Ok(Ok(r)) => match first_fault {
            Some(f) => Err(f),
            None => Ok(Arc::new(r)),
        },
        Ok(Err(e)) => Err(e),
        Err(payload) => Err(ep_err!(
            ERR_INTERN,
            "the process's part of the operation panicked (a bug, please report it): {}",
            panic_text(&*payload)
        )),
    }
}

impl<K: Ord + Clone> MeetingPoint<K> {
    /// An empty meeting point (usable in a `static`).
    pub const fn new() -> Self {
        MeetingPoint { rooms: Mutex::new(Rooms { next_id: 0, by_key: BTreeMap::new() }), done: Condvar::new() }
    }

    /// Arrives at the next meeting of local index `idx` at `key`; returns the index of its
    /// room in the key's list and whether this arrival completed it. Every participant of
    /// a meeting must pass the same `n` and a distinct `idx < n`; otherwise `EP_ERR_ARG` for
    /// this participant alone (the others cannot know it belonged to them).
    fn arrive(&self, rooms: &mut Rooms<K>, key: &K, n: usize, idx: usize) -> EpResult<(u64, bool)> {
        if idx >= n {
            return Err(ep_err!(ERR_ARG, "local index {idx} is outside 0..{n}"));
        }
        let next_id = rooms.next_id;
        let list = rooms.by_key.entry(key.clone()).or_default();
        // A room with fewer participants counts as not joined, so that a mismatch of `n`
        // is reported below instead of opening a meeting no one else joins.
        let pos = match list.iter().position(|r| r.joined.get(idx) != Some(&true)) {
            Some(p) => p,
            None => {
                list.push(Room {
                    n,
                    joined: vec![false; n],
                    arrived: 0,
                    inputs: (0..n).map(|_| None).collect(),
                    faults: vec![None; n],
                    outcome: None,
                    left: 0,
                    id: next_id,
                });
                rooms.next_id += 1;
                list.len() - 1
            }
        };
        let room = &mut list[pos];
        if room.n != n {
            let other = room.n;
            return Err(ep_err!(ERR_ARG, "{n} participants differ from the {other} other endpoints of this process gave"));
        }
        room.joined[idx] = true;
        room.arrived += 1;
        Ok((room.id, room.arrived == n))
    }

    fn room<'a>(rooms: &'a mut Rooms<K>, key: &K, id: u64) -> &'a mut Room {
        let list = rooms.by_key.get_mut(key).expect("a key with a pending meeting");
        list.iter_mut().find(|r| r.id == id).expect("a pending meeting")
    }

    /// Takes the outcome of meeting `id` once it is there; the last to take it removes the
    /// meeting.
    fn take(rooms: &mut Rooms<K>, key: &K, id: u64) -> Option<Result<Shared, EpError>> {
        let list = rooms.by_key.get_mut(key).expect("a key with a pending meeting");
        let pos = list.iter().position(|r| r.id == id).expect("a pending meeting");
        let room = &mut list[pos];
        let outcome = room.outcome.clone()?;
        room.left += 1;
        if room.left == room.n {
            list.remove(pos);
            if list.is_empty() {
                rooms.by_key.remove(key);
            }
        }
        Some(outcome)
    }

    /// Meets the other `n - 1` endpoints of this process at `key` as local index `idx`,
    /// bringing `input` and `fault` (the error in this endpoint's own arguments, if any; its
    /// `input` is then a placeholder the leader can process like any other). The last to
    /// arrive runs `leader` with every input in local-index order and the first fault; every
    /// participant returns its result, or an error: its own fault if it brought one, else the
    /// leader's error (or the process's first fault when the leader ignored it). A panic in
    /// `leader` becomes `EP_ERR_INTERN` for everyone. Blocks until the leader is done.
    ///
    /// The leader's result travels as `Arc<R>`; every participant passes the same `I`, `R`.
    pub fn meet<I, R>(
        &self,
        key: K,
        n: usize,
        idx: usize,
        input: I,
        fault: Option<EpError>,
        leader: impl FnOnce(Gathered<I>) -> EpResult<R>,
    ) -> EpResult<Arc<R>>
    where
        I: Send + 'static,
        R: Send + Sync + 'static,
    {
        if n == 1 && idx == 0 {
            // Alone: nobody to wait for or to hand the result to.
            let outcome = run_leader(leader, Gathered { inputs: vec![input], fault: fault.clone() });
            return match fault {
                Some(f) => Err(f),
                None => outcome,
            };
        }
        let mut rooms = self.rooms.lock();
        let (id, last) = match self.arrive(&mut rooms, &key, n, idx) {
            Ok(a) => a,
            Err(e) => return Err(fault.unwrap_or(e)),
        };
        let own_fault = fault.clone();
        {
            let room = Self::room(&mut rooms, &key, id);
            room.inputs[idx] = Some(Box::new(input));
            room.faults[idx] = fault;
        }
        if last {
            let room = Self::room(&mut rooms, &key, id);
            let inputs = room.inputs.iter_mut().map(|x| *x.take().expect("every input").downcast::<I>().expect("one input type")).collect();
            let first_fault = room.faults.iter().flatten().next().cloned();
            // Everyone of this meeting has arrived and waits for the outcome, so the leader
            // runs without the lock (host calls can take long, and other meetings go on).
            drop(rooms);
            let outcome = run_leader(leader, Gathered { inputs, fault: first_fault }).map(|r| r as Shared);
            rooms = self.rooms.lock();
            Self::room(&mut rooms, &key, id).outcome = Some(outcome);
            self.done.notify_all();
        }
        let outcome = loop {
            if let Some(o) = Self::take(&mut rooms, &key, id) {
                break o;
            }
            self.done.wait(&mut rooms);
        };
        drop(rooms);
        if let Some(f) = own_fault {
            return Err(f);
        }
        outcome.map(|r| r.downcast::<R>().expect("one result type"))
    }

    /// Joins the next meeting of local index `idx` at `key` and leaves at once with its
    /// shared object (`make` runs in the first to arrive); the meeting is gone once all `n`
    /// have joined. Every participant passes the same `n` and `T`, and a distinct `idx < n`;
    /// otherwise `EP_ERR_ARG` for this participant.
    pub fn join<T: Send + Sync + 'static>(&self, key: K, n: usize, idx: usize, make: impl FnOnce() -> T) -> EpResult<Arc<T>> {
        let mut rooms = self.rooms.lock();
        let (id, _) = self.arrive(&mut rooms, &key, n, idx)?;
        let room = Self::room(&mut rooms, &key, id);
        let shared = match &room.outcome {
            Some(Ok(s)) => s.clone(),
            _ => {
                let s: Shared = Arc::new(make());
                room.outcome = Some(Ok(s.clone()));
                s
            }
        };
        let taken = Self::take(&mut rooms, &key, id);
        debug_assert!(taken.is_some());
        drop(rooms);
        Ok(shared.downcast::<T>().expect("one shared type"))
    }

    /// Number of meetings not everyone has left (for tests).
    #[cfg(test)]
    fn pending(&self) -> usize {
        self.rooms.lock().by_key.values().map(Vec::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ERR_COMM;

    /// Runs `f(idx)` on `n` threads and returns their results by index.
    fn on_threads<T: Send + 'static>(n: usize, f: impl Fn(usize) -> T + Send + Sync + 'static) -> Vec<T> {
        let f = Arc::new(f);
        let handles: Vec<_> = (0..n)
            .map(|idx| {
                let f = f.clone();
                std::thread::spawn(move || f(idx))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }

    #[test]
    fn leader_sees_all_inputs_in_order_many_times() {
        let m = Arc::new(MeetingPoint::<()>::new());
        let n = 4;
        let mm = m.clone();
        let all = on_threads(n, move |idx| {
            (0..200u64)
                .map(|round| *mm.meet((), n, idx, round * 10 + idx as u64, None, |g| Ok(g.inputs.iter().sum::<u64>())).unwrap())
                .collect::<Vec<u64>>()
        });
        for sums in all {
            for (round, s) in sums.iter().enumerate() {
                assert_eq!(*s, 40 * round as u64 + 6);
            }
        }
        assert_eq!(m.pending(), 0);
    }

    /// One endpoint's fault reaches the leader, the faulty endpoint gets its own error and
    /// the others the leader's agreed error; the next meeting works again.
    #[test]
    fn a_fault_fails_every_participant_and_the_next_meeting_works() {
        let m = Arc::new(MeetingPoint::<()>::new());
        let mm = m.clone();
        let n = 3;
        let all = on_threads(n, move |idx| {
            let fault = (idx == 1).then(|| ep_err!(ERR_ARG, "bad color"));
            let first = mm.meet((), n, idx, idx, fault, |g: Gathered<usize>| {
                assert_eq!(g.fault_class(), ERR_ARG);
                agree([0, g.fault_class()])?;
                Ok(())
            });
            let second = mm.meet((), n, idx, idx, None, |g| Ok(g.inputs.len()));
            (first.map(|_| ()), second.map(|r| *r))
        });
        for (idx, (first, second)) in all.into_iter().enumerate() {
            let e = first.unwrap_err();
            assert_eq!(e.class, ERR_ARG, "endpoint {idx}");
            if idx == 1 {
                assert_eq!(e.msg, "bad color");
            } else {
                assert!(e.msg.contains("another endpoint"), "{}", e.msg);
            }
            assert_eq!(second.unwrap(), n);
        }
        assert_eq!(m.pending(), 0);
    }

    /// A leader that ignores the process's fault still fails everyone.
    #[test]
    fn a_fault_wins_over_a_leader_that_ignores_it() {
        let m = Arc::new(MeetingPoint::<()>::new());
        let all = on_threads(2, move |idx| {
            let fault = (idx == 0).then(|| ep_err!(ERR_COMM, "null output"));
            m.meet((), 2, idx, (), fault, |_| Ok(7)).map(|r| *r)
        });
        assert!(all.iter().all(|r| r.as_ref().unwrap_err().class == ERR_COMM));
    }

    /// A panic in the leader reaches every participant as `EP_ERR_INTERN`, and the meeting
    /// point keeps working.
    #[test]
    fn a_leader_panic_is_an_error_for_everyone() {
        let m = Arc::new(MeetingPoint::<()>::new());
        let mm = m.clone();
        let all = on_threads(4, move |idx| {
            let r = mm.meet((), 4, idx, (), None, |_| -> EpResult<()> { panic!("leader broke") });
            let again = mm.meet((), 4, idx, idx, None, |g| Ok(g.inputs.iter().sum::<usize>()));
            (r.map(|_| ()), again.map(|r| *r))
        });
        for (r, again) in all {
            let e = r.unwrap_err();
            assert_eq!(e.class, ERR_INTERN);
            assert!(e.msg.contains("leader broke"), "{}", e.msg);
            assert_eq!(again.unwrap(), 6);
        }
        assert_eq!(m.pending(), 0);
    }

    /// A meeting of one (a process with one endpoint) runs the leader at once, with the same
    /// outcomes.
    #[test]
    fn a_meeting_of_one_behaves_alike() {
        let m = MeetingPoint::<()>::new();
        assert_eq!(*m.meet((), 1, 0, 5, None, |g| Ok(g.inputs[0] * 2)).unwrap(), 10);
        let e = m.meet((), 1, 0, 5, Some(ep_err!(ERR_COMM, "mine")), |g| agree([g.fault_class()])).unwrap_err();
        assert_eq!((e.class, e.msg.as_str()), (ERR_COMM, "mine"));
        let e = m.meet((), 1, 0, (), None, |_| -> EpResult<()> { panic!("alone") }).unwrap_err();
        assert_eq!(e.class, ERR_INTERN);
        assert_eq!(m.pending(), 0);
    }

    /// Meetings under different keys are independent; a key's meetings go in generations.
    #[test]
    fn keys_and_generations_keep_meetings_apart() {
        static POINT: MeetingPoint<u64> = MeetingPoint::new();
        let all = on_threads(4, |t| {
            let (key, idx) = ((t % 2) as u64, t / 2);
            (0..50u64).map(|round| POINT.meet(key, 2, idx, (key, round), None, |g| Ok(g.inputs)).unwrap().to_vec()).collect::<Vec<_>>()
        });
        for (t, rounds) in all.into_iter().enumerate() {
            for (round, inputs) in rounds.into_iter().enumerate() {
                assert_eq!(inputs, vec![((t % 2) as u64, round as u64); 2]);
            }
        }
        assert_eq!(POINT.pending(), 0);
    }

    /// `join`: everyone gets the one shared object, made once; the next join at the key
    /// makes a new one.
    #[test]
    fn join_shares_one_object_per_meeting() {
        let m = Arc::new(MeetingPoint::<u64>::new());
        let made = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (mm, mk) = (m.clone(), made.clone());
        let all = on_threads(5, move |idx| {
            let mk = mk.clone();
            mm.join(9, 5, idx, move || mk.fetch_add(1, std::sync::atomic::Ordering::SeqCst)).unwrap()
        });
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(all.iter().all(|s| Arc::ptr_eq(s, &all[0])));
        assert_eq!(m.pending(), 0);
        assert_eq!(*m.join(9, 1, 0, || 42usize).unwrap(), 42);
    }
}

//! A meeting point for the endpoints of one process: each brings an input, the last to
//! arrive runs the process's part of a collective operation (usually one host MPI call) with
//! all inputs in local-index order, and everyone leaves with the shared result.
//!
//! Used for communicator management (dup, free-standing creation), which is rare; it blocks
//! on a condition variable. Generations keep consecutive operations apart: an endpoint that
//! comes back for the next operation waits until everyone has left the previous one.

use parking_lot::{Condvar, Mutex};
use std::any::Any;
use std::sync::Arc;

#[derive(Default)]
struct State {
    generation: u64,
    arrived: usize,
    inputs: Vec<Option<Box<dyn Any + Send>>>,
    result: Option<Arc<dyn Any + Send + Sync>>,
    leaving: usize,
}

#[derive(Default)]
pub struct Meeting {
    state: Mutex<State>,
    cv: Condvar,
}

impl Meeting {
    /// Joins the meeting of `n` endpoints as local index `idx`. Every participant must pass
    /// the same `n`, the same `I` and `R`, and a distinct `idx < n`.
    pub fn meet<I, R>(&self, n: usize, idx: usize, input: I, leader: impl FnOnce(Vec<I>) -> R) -> Arc<R>
    where
        I: Send + 'static,
        R: Send + Sync + 'static,
    {
        let mut s = self.state.lock();
        while s.result.is_some() {
            self.cv.wait(&mut s);
        }
        if s.inputs.len() != n {
            s.inputs.resize_with(n, || None);
        }
        s.inputs[idx] = Some(Box::new(input));
        s.arrived += 1;
        let generation = s.generation;
        if s.arrived == n {
            let inputs: Vec<I> =
                s.inputs.iter_mut().map(|x| *x.take().unwrap().downcast::<I>().expect("same input type")).collect();
            // Everyone of this generation has arrived and waits for the result, so the leader
            // may run without the lock (host collectives can take long).
            drop(s);
            let result: Arc<dyn Any + Send + Sync> = Arc::new(leader(inputs));
            s = self.state.lock();
            s.result = Some(result);
            s.arrived = 0;
            s.leaving = n;
            s.generation += 1;
            self.cv.notify_all();
        } else {
            while s.generation == generation {
                self.cv.wait(&mut s);
            }
        }
        let r = s.result.clone().unwrap();
        s.leaving -= 1;
        if s.leaving == 0 {
            s.result = None;
            self.cv.notify_all();
        }
        drop(s);
        r.downcast::<R>().expect("same result type")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leader_sees_all_inputs_in_order_many_times() {
        let m = Arc::new(Meeting::default());
        let n = 4;
        let handles: Vec<_> = (0..n)
            .map(|idx| {
                let m = m.clone();
                std::thread::spawn(move || {
                    (0..200u64)
                        .map(|round| *m.meet(n, idx, round * 10 + idx as u64, |v: Vec<u64>| v.iter().sum::<u64>()))
                        .collect::<Vec<u64>>()
                })
            })
            .collect();
        for h in handles {
            let sums = h.join().unwrap();
            for (round, s) in sums.iter().enumerate() {
                assert_eq!(*s, 40 * round as u64 + 6);
            }
        }
    }
}

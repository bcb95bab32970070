//! The team form of creation, `EP_Comm_create_endpoint`: `my_num_ep` threads of a process
//! each call once with their own index. The k-th call of index i on a parent communicator
//! joins the k-th creation on that parent; the last thread to arrive performs the collective
//! part for the whole process, the others wait for it.
//!
//! Identity comes from the `index` argument, never from `omp_get_thread_num()`, so nested
//! regions, teams of any size and non-OpenMP threads all work.

use super::comm::{check_num_ep, create_shared, CommShared};
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_ARG};
use crate::host::{handle_bits, sys};
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    Absent,
    Waiting,
    Left,
}

struct Creation {
    id: u64,
    num_ep: c_int,
    members: Vec<Member>,
    arrived: usize,
    left: usize,
    result: Option<Result<Arc<CommShared>, EpError>>,
}

#[derive(Default)]
struct Registry {
    next_id: u64,
    /// Pending creations per parent communicator, oldest first.
    by_parent: HashMap<u64, Vec<Creation>>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);
static ARRIVALS: Condvar = Condvar::new();

/// Joins the team creation on `parent` as `index` of `my_num_ep`; returns the shared state
/// every member gets.
pub fn join(parent: sys::MPI_Comm, my_num_ep: c_int, index: c_int) -> EpResult<Arc<CommShared>> {
    check_num_ep(my_num_ep)?;
    if my_num_ep == 0 {
        return Err(ep_err!(ERR_ARG, "my_num_ep = 0: a process with no endpoints calls EP_Comm_create_endpoints"));
    }
    if !(0..my_num_ep).contains(&index) {
        return Err(ep_err!(ERR_ARG, "index {index} is outside 0..{my_num_ep}"));
    }
    let key = handle_bits(parent);
    let ix = index as usize;
    let mut guard = REGISTRY.lock();
    let reg = guard.get_or_insert_with(Registry::default);
    let next_id = reg.next_id;
    let list = reg.by_parent.entry(key).or_default();
    // The first creation this index has not joined yet (creations complete in order).
    let pos = match list.iter().position(|c| c.members[ix] == Member::Absent) {
        Some(p) => p,
        None => {
            list.push(Creation {
                id: next_id,
                num_ep: my_num_ep,
                members: vec![Member::Absent; my_num_ep as usize],
                arrived: 0,
                left: 0,
                result: None,
            });
            list.len() - 1
        }
    };
    if list[pos].num_ep != my_num_ep {
        return Err(ep_err!(
            ERR_ARG,
            "my_num_ep = {my_num_ep} differs from {} given by other threads of this process",
            list[pos].num_ep
        ));
    }
    let c = &mut list[pos];
    let id = c.id;
    c.members[ix] = Member::Waiting;
    c.arrived += 1;
    let last = c.arrived == my_num_ep as usize;
    reg.next_id += 1;
    if last {
        // Last to arrive: do the collective part without holding the registry.
        drop(guard);
        let result = create_shared(parent, my_num_ep).map(|s| s.expect("my_num_ep > 0 gives a communicator"));
        guard = REGISTRY.lock();
        let list = guard.as_mut().unwrap().by_parent.get_mut(&key).unwrap();
        list.iter_mut().find(|c| c.id == id).unwrap().result = Some(result);
        ARRIVALS.notify_all();
    }
    loop {
        let reg = guard.as_mut().unwrap();
        let list = reg.by_parent.get_mut(&key).unwrap();
        let pos = list.iter().position(|c| c.id == id).unwrap();
        let c = &mut list[pos];
        if let Some(result) = c.result.clone() {
            c.members[ix] = Member::Left;
            c.left += 1;
            if c.left == c.num_ep as usize {
                list.remove(pos);
                if list.is_empty() {
                    reg.by_parent.remove(&key);
                }
            }
            return result;
        }
        ARRIVALS.wait(&mut guard);
    }
}

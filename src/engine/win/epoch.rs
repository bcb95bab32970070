//! Access epochs of one endpoint on one window (MPI 4.1 section 12.5): which targets it may
//! access now, so that an operation outside an epoch is `EP_ERR_RMA_SYNC` with a message
//! rather than whatever the host does with it, and so that unlock and flush know which
//! host targets the endpoint holds.

use crate::ep_err;
use crate::error::{EpResult, ERR_RMA_SYNC};

/// The epochs an endpoint is in. Used only by the endpoint's own thread.
#[derive(Default)]
pub struct Epochs {
    /// Targets locked with `EP_Win_lock` (rank, exclusive).
    pub locked: Vec<(i32, bool)>,
    /// Inside `EP_Win_lock_all`.
    pub lock_all: bool,
    /// A fence opened an active-target epoch (every fence does, unless it asserts
    /// `MPI_MODE_NOSUCCEED`).
    pub fence: bool,
    /// Targets of the access epoch `EP_Win_start` opened (window ranks, sorted), each locked
    /// shared in the host (see [`super::pscw`]).
    pub access: Option<Vec<i32>>,
    /// Origins of the exposure epoch `EP_Win_post` opened whose complete notice has not
    /// been taken yet.
    pub exposure: Option<Vec<i32>>,
}

impl Epochs {
    /// The lock this endpoint holds on `rank`, if any (exclusive flag).
    pub fn lock_of(&self, rank: i32) -> Option<bool> {
        self.locked.iter().find(|l| l.0 == rank).map(|l| l.1)
    }

    /// True when the endpoint holds any passive-target lock.
    pub fn in_passive(&self) -> bool {
        self.lock_all || !self.locked.is_empty()
    }

    /// True when `rank` is a target of the access epoch `EP_Win_start` opened.
    pub fn in_start(&self, rank: i32) -> bool {
        self.access.as_ref().is_some_and(|a| a.binary_search(&rank).is_ok())
    }

    /// True inside an epoch of post, start, complete and wait (access or exposure).
    pub fn in_general_active(&self) -> bool {
        self.access.is_some() || self.exposure.is_some()
    }

    /// Checks that an operation on `rank` is inside an access epoch.
    pub fn check_access(&self, rank: i32) -> EpResult<()> {
        if self.fence || self.lock_all || self.lock_of(rank).is_some() || self.in_start(rank) {
            Ok(())
        } else {
            Err(ep_err!(ERR_RMA_SYNC, "target rank {rank} is not in an access epoch of this endpoint (no lock, lock_all, fence or start)"))
        }
    }

    /// Checks that a flush of `rank` is inside a passive-target epoch on it.
    pub fn check_passive(&self, rank: i32) -> EpResult<()> {
        if self.lock_all || self.lock_of(rank).is_some() {
            Ok(())
        } else {
            Err(ep_err!(ERR_RMA_SYNC, "target rank {rank} is not locked by this endpoint"))
        }
    }
}

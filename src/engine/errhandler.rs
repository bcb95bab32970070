//! User-defined communicator error handlers (MPI 4.1 section 9.3.1): the user's function and
//! the references to it that `EP_Errhandler_free` releases.

use std::os::raw::c_int;
use std::sync::atomic::{AtomicI32, Ordering};

/// `MPI_Comm_errhandler_function` on EPMPI handles: `(comm *, error code *, ...)`.
pub type ErrhandlerFn = unsafe extern "C" fn(*mut c_int, *mut c_int, ...);

/// An error handler made by `EP_Comm_create_errhandler`.
pub struct Errhandler {
    pub func: ErrhandlerFn,
    /// Handles the user holds (one from creation, one per `EP_Comm_get_errhandler` that
    /// returned it); each `EP_Errhandler_free` releases one. Endpoints that use the handler
    /// keep it working after the user's last free, as MPI says.
    user_refs: AtomicI32,
}

impl Errhandler {
    pub fn new(func: ErrhandlerFn) -> Errhandler {
        Errhandler { func, user_refs: AtomicI32::new(1) }
    }

    /// True while the user holds a handle to it.
    pub fn is_held(&self) -> bool {
        self.user_refs.load(Ordering::Acquire) > 0
    }

    /// Another handle given to the user.
    pub fn hold(&self) {
        self.user_refs.fetch_add(1, Ordering::AcqRel);
    }

    /// Releases one of the user's handles; false when none was held.
    pub fn release(&self) -> bool {
        self.user_refs
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n > 0).then_some(n - 1))
            .is_ok()
    }
}

//! Endpoint team handles (`EP_Endpoint_team`): one per creating call, naming the team the
//! calls with the same `team_id` share. Values lie in `2^27 .. 2^28`, below every handle of
//! the other kinds (`table`: `2^28 .. 2^31`) and above the reserved 0 and 1, so a handle of
//! another kind passed as a team (or a team as one of them) is reported, never confused.

use crate::engine::endpoint_team::Team;
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_INTERN};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::{Arc, LazyLock};

const BASE: u32 = 1 << 27;

struct Handles {
    live: HashMap<c_int, Arc<Team>>,
    /// The next value's offset from `BASE`: values are reused only after 2^27 creations.
    next: u32,
}

static HANDLES: LazyLock<Mutex<Handles>> = LazyLock::new(|| Mutex::new(Handles { live: HashMap::new(), next: 0 }));

/// A new handle for `team`. Errors: `EP_ERR_INTERN` when 2^27 handles are live.
pub(crate) fn new_team(team: Arc<Team>) -> EpResult<c_int> {
    let mut h = HANDLES.lock();
    for _ in 0..BASE {
        let value = (BASE | h.next) as c_int;
        h.next = (h.next + 1) % BASE;
        if let std::collections::hash_map::Entry::Vacant(e) = h.live.entry(value) {
            e.insert(team);
            return Ok(value);
        }
    }
    Err(ep_err!(ERR_INTERN, "too many live endpoint team handles"))
}

fn lookup_error(h: c_int) -> crate::error::EpError {
    if h == 0 {
        ep_err!(ERR_ARG, "endpoint team handle {h} is the null handle")
    } else {
        ep_err!(ERR_ARG, "endpoint team handle {h} was destroyed or never existed")
    }
}

/// The team behind a handle. Errors: `EP_ERR_ARG` (MPI has no class for teams).
pub(crate) fn team(h: c_int) -> EpResult<Arc<Team>> {
    HANDLES.lock().live.get(&h).cloned().ok_or_else(|| lookup_error(h))
}

/// Destroys handle `h` once `release` (the team's own checks and accounting) agrees; the handle
/// stays when it fails. Errors: `EP_ERR_ARG` for a handle that is not a team's, and
/// `release`'s.
pub(crate) fn destroy_team(h: c_int, release: impl FnOnce(&Arc<Team>) -> EpResult<()>) -> EpResult<()> {
    let t = team(h)?;
    release(&t)?;
    HANDLES.lock().live.remove(&h);
    Ok(())
}

//! Faults injected into message delivery, in debug builds only, so that tests reach the
//! error paths that well-formed programs meet only when the host fails (an unpack or a data
//! receive refused by the host MPI): with `EPMPI_TEST_FAULT_TAG=t` in the environment, the
//! delivery of every message with user tag `t` into a receive fails with `EP_ERR_OTHER`.
//! Release builds compile this to nothing.

use super::envelope::Envelope;
use crate::error::EpResult;

/// The environment variable naming the tag whose deliveries fail.
#[cfg(debug_assertions)]
const FAULT_TAG_VAR: &str = "EPMPI_TEST_FAULT_TAG";

/// `Err` when the delivery of the message `env` is to fail (debug builds, see the module
/// notes); `Ok` otherwise. Thread-safe (the variable is read once per process).
#[cfg(debug_assertions)]
pub(crate) fn delivery(env: &Envelope) -> EpResult<()> {
    static TAG: std::sync::OnceLock<Option<i32>> = std::sync::OnceLock::new();
    let tag = *TAG.get_or_init(|| std::env::var(FAULT_TAG_VAR).ok().and_then(|v| v.trim().parse().ok()));
    if tag == Some(env.tag) {
        return Err(crate::ep_err!(
            crate::error::ERR_OTHER,
            "fault injected into the delivery of the message from rank {} with tag {} ({FAULT_TAG_VAR})",
            env.source,
            env.tag
        ));
    }
    Ok(())
}

/// Release builds inject nothing.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub(crate) fn delivery(_env: &Envelope) -> EpResult<()> {
    Ok(())
}

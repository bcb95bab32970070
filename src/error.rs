//! Error classes, error codes with their messages, and the engine's error type.
//!
//! An error code is `class + 128 * serial`: the class (`EP_ERR_*`, below 128) says what went
//! wrong, the serial finds the full message ("EP_Send: tag 70000 above EP_TAG_UB ...") in a
//! ring of recent messages, so `EP_Error_string` can name the call and the cause as MPI
//! implementations do. A code whose message has left the ring still maps to its class and
//! the class's text. Codes are positive, as MPI requires (MPI 4.1 section 9.4).

use parking_lot::Mutex;
use std::os::raw::c_int;

pub(crate) const SUCCESS: c_int = 0;
pub(crate) const ERR_BUFFER: c_int = 1;
pub(crate) const ERR_COUNT: c_int = 2;
pub(crate) const ERR_TYPE: c_int = 3;
pub(crate) const ERR_TAG: c_int = 4;
pub(crate) const ERR_COMM: c_int = 5;
pub(crate) const ERR_RANK: c_int = 6;
pub(crate) const ERR_REQUEST: c_int = 7;
#[allow(dead_code)] // used once collectives and windows land
pub(crate) const ERR_ROOT: c_int = 8;
#[allow(dead_code)] // used once collectives and windows land
pub(crate) const ERR_OP: c_int = 9;
pub(crate) const ERR_ARG: c_int = 10;
pub(crate) const ERR_TRUNCATE: c_int = 11;
pub(crate) const ERR_IN_STATUS: c_int = 12;
#[allow(dead_code)] // used once collectives and windows land
pub(crate) const ERR_PENDING: c_int = 13;
pub(crate) const ERR_WIN: c_int = 14;
pub(crate) const ERR_THREAD_LEVEL: c_int = 15;
pub(crate) const ERR_NOT_INITIALIZED: c_int = 16;
pub(crate) const ERR_UNSUPPORTED: c_int = 17;
pub(crate) const ERR_INTERN: c_int = 18;
#[allow(dead_code)] // used once collectives and windows land
pub(crate) const ERR_OTHER: c_int = 19;
pub(crate) const ERR_RMA_SYNC: c_int = 20;
pub(crate) const ERR_RMA_RANGE: c_int = 21;
pub(crate) const ERR_LOCKTYPE: c_int = 22;
pub(crate) const ERR_DISP: c_int = 23;
pub(crate) const ERR_SIZE: c_int = 24;
#[allow(dead_code)] // raised by the group, attribute and topology calls
pub(crate) const ERR_GROUP: c_int = 25;
#[allow(dead_code)] // raised by the group, attribute and topology calls
pub(crate) const ERR_KEYVAL: c_int = 26;
pub(crate) const ERR_TOPOLOGY: c_int = 27;
pub(crate) const ERR_DIMS: c_int = 28;
pub(crate) const ERR_LASTCODE: c_int = 28;

/// Text of each class, indexed by class.
const CLASS_TEXT: [&str; 29] = [
    "no error",
    "invalid buffer pointer",
    "invalid count argument",
    "invalid datatype",
    "invalid tag",
    "invalid communicator",
    "invalid rank",
    "invalid request",
    "invalid root",
    "invalid operation",
    "invalid argument",
    "message truncated",
    "error code is in status",
    "pending request (not failed, not completed)",
    "invalid window",
    "host MPI does not provide MPI_THREAD_MULTIPLE",
    "MPI is not initialized or already finalized",
    "operation not supported",
    "internal error in EPMPI",
    "other error",
    "one-sided operation or synchronisation outside its epoch",
    "target memory out of the window",
    "invalid lock type",
    "invalid displacement or displacement unit",
    "invalid size",
    "invalid group",
    "invalid key value",
    "invalid topology",
    "invalid dimension argument",
];

/// The text of an error class (unknown classes give "unknown error class").
pub fn class_text(class: c_int) -> &'static str {
    usize::try_from(class).ok().and_then(|c| CLASS_TEXT.get(c)).copied().unwrap_or("unknown error class")
}

/// An engine error: a class and a message saying what exactly was wrong. Boxed, so that an
/// `EpResult` is its value plus at most a pointer: the calls on the message path return
/// results through registers or whole words, not a 32-byte error written piecewise (which
/// made every caller stall reading it back).
#[derive(Debug, Clone, PartialEq)]
pub struct EpError(Box<ErrorInfo>);

#[derive(Debug, Clone, PartialEq)]
pub struct ErrorInfo {
    pub class: c_int,
    pub msg: String,
}

impl EpError {
    #[cold]
    pub fn new(class: c_int, msg: impl Into<String>) -> Self {
        EpError(Box::new(ErrorInfo { class, msg: msg.into() }))
    }
}

impl std::ops::Deref for EpError {
    type Target = ErrorInfo;

    fn deref(&self) -> &ErrorInfo {
        &self.0
    }
}

impl std::ops::DerefMut for EpError {
    fn deref_mut(&mut self) -> &mut ErrorInfo {
        &mut self.0
    }
}

pub type EpResult<T> = Result<T, EpError>;

/// Builds an `EpError` with a formatted message: `ep_err!(ERR_TAG, "tag {} < 0", t)`.
#[macro_export]
macro_rules! ep_err {
    ($class:expr, $($fmt:tt)*) => { $crate::error::EpError::new($class, format!($($fmt)*)) };
}

const RING: usize = 1024;
const SERIAL_LIMIT: u32 = 1 << 23; // keeps class + 128 * serial inside a positive int

struct Ring {
    next: u32,
    slots: Vec<(u32, String)>,
}

static MESSAGES: Mutex<Ring> = Mutex::new(Ring { next: 0, slots: Vec::new() });

/// Records the full message of an error and returns its code.
pub fn register(class: c_int, full_message: String) -> c_int {
    let mut ring = MESSAGES.lock();
    if ring.slots.is_empty() {
        ring.slots = vec![(u32::MAX, String::new()); RING];
    }
    let serial = ring.next % SERIAL_LIMIT + 1;
    ring.next = serial;
    ring.slots[serial as usize % RING] = (serial, full_message);
    class + 128 * serial as c_int
}

/// The class of an error code (the code itself when it is a class). `None` for invalid codes.
pub fn class_of(code: c_int) -> Option<c_int> {
    if code < 0 {
        return None;
    }
    let class = code % 128;
    (class <= ERR_LASTCODE).then_some(class)
}

/// The message of an error code: the full one while it is in the ring, else the class text.
pub fn message_of(code: c_int) -> Option<String> {
    let class = class_of(code)?;
    let serial = (code / 128) as u32;
    if serial > 0 {
        let ring = MESSAGES.lock();
        if let Some((s, msg)) = ring.slots.get(serial as usize % RING) {
            if *s == serial {
                return Some(msg.clone());
            }
        }
    }
    Some(class_text(class).to_string())
}

/// Writes one line to stderr in a single `write`, so a process killed right after (by
/// `MPI_Abort` of a peer) never leaves half a message.
pub fn write_stderr_line(text: &str) {
    use std::io::Write;
    let line = format!("{text}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ring is global: these tests must not interleave.
    static RING_TESTS: Mutex<()> = Mutex::new(());

    #[test]
    fn codes_keep_class_and_message() {
        let _g = RING_TESTS.lock();
        let code = register(ERR_TAG, "EP_Send: tag -5 is negative".into());
        assert!(code > 0);
        assert_eq!(class_of(code), Some(ERR_TAG));
        assert_eq!(message_of(code).unwrap(), "EP_Send: tag -5 is negative");
        assert_eq!(class_of(ERR_RANK), Some(ERR_RANK));
        assert_eq!(message_of(ERR_RANK).unwrap(), "invalid rank");
        assert_eq!(class_of(-3), None);
        assert_eq!(class_of(127), None);
    }

    #[test]
    fn old_messages_fall_back_to_class_text() {
        let _g = RING_TESTS.lock();
        let first = register(ERR_COUNT, "first".into());
        for i in 0..RING {
            register(ERR_ARG, format!("filler {i}"));
        }
        assert_eq!(message_of(first).unwrap(), "invalid count argument");
    }
}

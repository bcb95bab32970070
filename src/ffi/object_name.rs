//! Object names as MPI passes them (MPI 4.1 section 7.8): NUL-terminated strings of at most
//! `EP_MAX_OBJECT_NAME - 1` bytes, read from and written to the program's buffers. Shared by
//! communicator and window names.

use super::boundary::{input, out};
use super::types::EP_MAX_OBJECT_NAME;
use crate::error::EpResult;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

/// The name at `name`, cut to `EP_MAX_OBJECT_NAME - 1` bytes. Errors: `EP_ERR_ARG` (NULL).
///
/// # Safety
/// `name` is NULL or points at a readable NUL-terminated string.
pub(crate) unsafe fn read(name: *const c_char) -> EpResult<String> {
    input(name, "name")?;
    // SAFETY: non-null (checked above) and NUL-terminated (this function's contract).
    let bytes = unsafe { CStr::from_ptr(name) }.to_bytes();
    let kept = &bytes[..bytes.len().min(EP_MAX_OBJECT_NAME as usize - 1)];
    Ok(String::from_utf8_lossy(kept).into_owned())
}

/// Writes `text` NUL-terminated to `name` and its length without the NUL to `*resultlen`.
/// Errors: `EP_ERR_ARG` (NULL pointers).
///
/// # Safety
/// `name` is NULL or points at `EP_MAX_OBJECT_NAME` writable chars; `resultlen` is NULL or
/// points at a writable `int`.
pub(crate) unsafe fn write(text: &str, name: *mut c_char, resultlen: *mut c_int) -> EpResult<()> {
    out(name, "name")?;
    let resultlen = out(resultlen, "resultlen")?;
    // The name may hold a multi-byte character cut short; the bytes go out as stored.
    let bytes = text.as_bytes();
    let n = bytes.len().min(EP_MAX_OBJECT_NAME as usize - 1);
    // SAFETY: `name` holds `EP_MAX_OBJECT_NAME` writable chars (this function's contract) and
    // `n + 1` is at most that.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr() as *const c_char, name, n);
        *name.add(n) = 0;
    }
    *resultlen = n as c_int;
    Ok(())
}

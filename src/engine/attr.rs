//! What MPI caches on a communicator or a window besides its ranks (MPI 4.1 sections 7.7 and
//! 7.8): the endpoint's name and its attributes, with the keyvals that give their copy and
//! delete callbacks. Each endpoint is a rank, so each has its own cache, as each MPI process
//! has.
//!
//! The callbacks are the user's C functions; this module only stores them. The C boundary
//! runs them, on the calling thread and with no lock of the library held (a callback may
//! call EPMPI), from copies of what is stored here.

use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// A keyval's copy callback, `MPI_Comm_copy_attr_function` on EPMPI handles:
/// `(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag) -> error code`.
pub type CopyFn = unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_void, *mut c_void, *mut c_int) -> c_int;
/// A keyval's delete callback, `MPI_Comm_delete_attr_function` on EPMPI handles:
/// `(comm, keyval, attribute_val, extra_state) -> error code`.
pub type DeleteFn = unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_void) -> c_int;

/// The objects a keyval caches attributes on: a keyval of one kind names no attribute of the
/// other (MPI 4.1 sections 7.7.2 and 7.7.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyvalKind {
    Comm,
    Win,
}

/// An attribute key made by `EP_Comm_create_keyval` or `EP_Win_create_keyval`. Attributes
/// hold it, so its callbacks outlive the keyval's free for the attributes still set (MPI 4.1
/// section 7.7.2). The callbacks take the handle of the object's kind (`EP_Comm` or `EP_Win`,
/// both C ints); a window's copy callback is never run, since windows are not duplicated.
pub struct Keyval {
    pub kind: KeyvalKind,
    pub copy: CopyFn,
    pub delete: DeleteFn,
    /// The user's `extra_state`, an address passed back to the callbacks untouched.
    pub extra_state: usize,
}

/// One attribute: its keyval's handle and object, and the value (an address-sized integer,
/// as MPI's `void *` attribute values are).
#[derive(Clone)]
pub struct Attr {
    pub key: c_int,
    pub keyval: Arc<Keyval>,
    pub value: usize,
}

/// An endpoint's cache: its name (`None`: never set, the empty name) and attributes in the
/// order they were set.
#[derive(Default)]
pub struct Cache {
    pub name: Option<String>,
    pub attrs: Vec<Attr>,
}

impl Cache {
    /// The attribute of `key`, if set.
    pub fn get(&self, key: c_int) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.key == key)
    }

    /// Sets (or replaces in place) the attribute of `attr.key`; returns the replaced one.
    pub fn put(&mut self, attr: Attr) -> Option<Attr> {
        match self.attrs.iter_mut().find(|a| a.key == attr.key) {
            Some(a) => Some(std::mem::replace(a, attr)),
            None => {
                self.attrs.push(attr);
                None
            }
        }
    }

    /// Removes the attribute of `key`, if set.
    pub fn remove(&mut self, key: c_int) -> Option<Attr> {
        let i = self.attrs.iter().position(|a| a.key == key)?;
        Some(self.attrs.remove(i))
    }
}

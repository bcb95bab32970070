//! The host MPI as the tests' and benchmarks' plain-MPI side sees it: mpi-sys's bindings and
//! the handful of predefined handles they use, read from mpi-sys's exported constants. EPMPI's
//! own view of the host is private to the library, as a user's would be.

pub use mpi_sys as sys;
use std::os::raw::c_int;
use std::sync::LazyLock;

/// Predefined host handles (MPI 4.1 appendix A.1). Byte data travels as `MPI_UINT8_T` and
/// integers as `MPI_INT32_T` (contiguous 1- and 4-byte types, as `MPI_BYTE` and `MPI_INT`
/// here), addresses as `MPI_INT64_T` (`MPI_Aint` on these 64-bit machines).
pub struct Host {
    pub comm_world: sys::MPI_Comm,
    pub comm_null: sys::MPI_Comm,
    pub comm_self: sys::MPI_Comm,
    pub byte: sys::MPI_Datatype,
    pub int_: sys::MPI_Datatype,
    pub aint: sys::MPI_Datatype,
    pub info_null: sys::MPI_Info,
    pub status_ignore: *mut sys::MPI_Status,
    pub thread_multiple: c_int,
    pub op_sum: sys::MPI_Op,
    pub win_null: sys::MPI_Win,
}

// SAFETY: the struct holds handle values (ints or addresses of the host's predefined objects)
// that never change; the host allows any thread to use them under MPI_THREAD_MULTIPLE.
unsafe impl Send for Host {}
// SAFETY: as for `Send`: shared references only read the handle values.
unsafe impl Sync for Host {}

/// The host's predefined handles, read on first use.
// SAFETY: mpi-sys's `RSMPI_*` statics are initialised constants of its C shim, never written;
// reading them is valid before `MPI_Init` as well.
pub static HOST: LazyLock<Host> = LazyLock::new(|| unsafe {
    Host {
        comm_world: sys::RSMPI_COMM_WORLD,
        comm_null: sys::RSMPI_COMM_NULL,
        comm_self: sys::RSMPI_COMM_SELF,
        byte: sys::RSMPI_UINT8_T,
        int_: sys::RSMPI_INT32_T,
        aint: sys::RSMPI_INT64_T,
        info_null: sys::RSMPI_INFO_NULL,
        status_ignore: sys::RSMPI_STATUS_IGNORE,
        thread_multiple: sys::RSMPI_THREAD_MULTIPLE,
        op_sum: sys::RSMPI_SUM,
        win_null: sys::RSMPI_WIN_NULL,
    }
});

/// A host communicator handle that threads may share (`MPI_Comm` is a pointer under Open MPI,
/// which Rust does not send between threads on its own).
#[derive(Clone, Copy)]
pub struct HostComm(pub sys::MPI_Comm);
// SAFETY: a communicator handle is a plain value; under MPI_THREAD_MULTIPLE any thread may use it.
unsafe impl Send for HostComm {}
// SAFETY: as for `Send`.
unsafe impl Sync for HostComm {}

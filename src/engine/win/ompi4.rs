//! Workarounds for dynamic windows on Open MPI 4.x's UCX one-sided component (osc/ucx, the
//! only one that makes windows work on the development machine; README, host limitations).
//!
//! Every process keeps the regions attached to a dynamic window in a table sorted by address
//! (`module->state.dynamic_wins`, at most 32 entries); an origin reads the target's whole
//! table at every operation and looks the target address up with
//! `ompi_osc_find_attached_region_position`, then unpacks the remote key of the entry it
//! found. Open MPI 4.0.0 to 4.1.8 get this wrong in two ways (fixed only by the rewrite in
//! 5.0, open-mpi/ompi commits 9bd8115627, 72cd4eaa90 and 6233e0d576):
//!
//! 1. The three callers (`ompi_osc_ucx_win_attach`, `ompi_osc_ucx_win_detach`,
//!    `get_dynamic_win_info`) pass `dynamic_win_count` as the last index to search instead
//!    of `count - 1`, and the search asks `base + len < end` instead of `<=`. A region
//!    attached above every attached one is stored at `count + 1`, leaving an empty entry at
//!    `count`; the binary search then misses other regions, the caller uses entry -1 (memory
//!    before the table), and UCX reports "failed to unpack remote key" or crashes. An access
//!    starting at the last byte of a region is not found either.
//! 2. `MPI_Rput` and `MPI_Rget` on a dynamic window look up the address of the target's
//!    state (where they later count completions) instead of the target address, which is in
//!    no region: entry -1 again, so they fail or crash at random (sometimes the bytes before
//!    the table happen to unpack).
//!
//! For (1) this library defines `ompi_osc_find_attached_region_position` itself, correct for
//! those callers: the component calls it through its procedure linkage table, and the
//! dynamic linker binds that to the first definition in the global scope, which is this
//! library's when a program links it (C and Fortran programs do). [`lookup_fixed`] says
//! whether that happened; when it did not (a Rust program linking the rlib, a library opened
//! with `RTLD_LOCAL`), `EP_Win_attach` refuses the attachments that would corrupt the table.
//! For (2) the engine issues `MPI_Put`/`MPI_Get` and completes them locally instead
//! (`ops.rs`). Plus, since `get_dynamic_win_info` destroys the previous remote key of the
//! target at every operation, even while an earlier operation may still use it, each
//! operation on a dynamic window in a passive-target epoch is completed locally before the
//! next one starts.

use std::os::raw::c_int;

/// The host is Open MPI 4.x (`build.rs` probes `OMPI_MAJOR_VERSION`).
pub const HOST_IS_OMPI4: bool = cfg!(epmpi_ompi4);

/// Entries of the host's table (`OMPI_OSC_UCX_ATTACH_MAX`).
#[cfg_attr(not(epmpi_ompi4), allow(dead_code, reason = "used by the replacement of Open MPI 4's function only"))]
const ATTACH_MAX: c_int = 32;

/// `ompi_osc_dynamic_win_info_t` of Open MPI 4.0.0 to 4.1.8 (same layout in all of them).
#[repr(C)]
#[cfg_attr(not(epmpi_ompi4), allow(dead_code, reason = "used by the replacement of Open MPI 4's function only"))]
pub struct HostDynamicRegion {
    pub base: u64,
    pub size: u64,
    pub rkey_buffer: [u8; 1024],
}

/// Finds the region that holds `[base, base + len)` among the entries `lo..=hi` of a table
/// sorted by address (`entry(i)` gives base and size): its index, or -1 with `*insert` set
/// to where such a region goes. Entries at the end with base and size 0 are empty (the host
/// passes one past the last region; a region never starts at address 0).
#[cfg_attr(not(epmpi_ompi4), allow(dead_code, reason = "used by the replacement of Open MPI 4's function only"))]
pub fn find_region(entry: impl Fn(c_int) -> (u64, u64), lo: c_int, hi: c_int, base: u64, len: u64, insert: &mut c_int) -> c_int {
    let (mut lo, mut hi) = (lo.max(0), hi.min(ATTACH_MAX - 1));
    while hi >= lo && entry(hi) == (0, 0) {
        hi -= 1;
    }
    while lo <= hi {
        let mid = lo + (hi - lo) / 2;
        let (b, s) = entry(mid);
        if base < b {
            hi = mid - 1;
        } else if base as u128 + len as u128 <= b as u128 + s as u128 {
            return mid;
        } else {
            lo = mid + 1;
        }
    }
    *insert = lo;
    -1
}

/// Replaces Open MPI 4's function of the same name (see the module documentation): same
/// signature, correct for its callers.
///
/// # Safety
/// Called by the host with a table of at least `min(max_index + 1, 32)` entries and a
/// valid `insert`.
#[cfg(epmpi_ompi4)]
#[no_mangle]
pub unsafe extern "C" fn ompi_osc_find_attached_region_position(
    dynamic_wins: *const HostDynamicRegion,
    min_index: c_int,
    max_index: c_int,
    base: u64,
    len: usize,
    insert: *mut c_int,
) -> c_int {
    // The host's own table is `volatile` (remote processes read it): read it as such.
    let entry = |i: c_int| {
        let r = dynamic_wins.add(i as usize);
        (std::ptr::read_volatile(std::ptr::addr_of!((*r).base)), std::ptr::read_volatile(std::ptr::addr_of!((*r).size)))
    };
    let mut at = -1;
    let found = find_region(entry, min_index, max_index, base, len as u64, &mut at);
    if found < 0 {
        *insert = at;
    }
    found
}

/// True when the host's osc/ucx component looks regions up with this library's
/// `ompi_osc_find_attached_region_position` (always false on other hosts).
pub fn lookup_fixed() -> bool {
    #[cfg(epmpi_ompi4)]
    {
        static FIXED: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
            // Which object the global scope binds the name to, against the object holding
            // this (unexported, so not interposable) function: taking the address of the
            // exported function here would go through the same binding.
            let name = c"ompi_osc_find_attached_region_position";
            let object_of = |addr: *const libc::c_void| {
                // SAFETY: `Dl_info` is a plain C struct of pointers and integers, for which all
                // zeros is a value.
                let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
                // SAFETY: `dladdr` accepts any address and writes only `info`, a live local.
                (unsafe { libc::dladdr(addr, &mut info) } != 0).then_some(info.dli_fbase as usize)
            };
            // SAFETY: `name` is a NUL-terminated C string literal; `dlsym` only looks the
            // name up.
            let bound = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
            !bound.is_null() && object_of(bound).is_some() && object_of(bound) == object_of(lookup_fixed as *const libc::c_void)
        });
        *FIXED
    }
    #[cfg(not(epmpi_ompi4))]
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(table: &[(u64, u64)], hi: c_int, base: u64, len: u64) -> (c_int, c_int) {
        let mut insert = -7;
        let at = find_region(|i| table.get(i as usize).copied().unwrap_or((0, 0)), 0, hi, base, len, &mut insert);
        (at, insert)
    }

    #[test]
    fn empty_tail_entries_are_skipped() {
        // The host passes count (here 2) as the last index: entry 2 is empty.
        let t = [(100, 10), (200, 10), (0, 0)];
        assert_eq!(find(&t, 2, 300, 10), (-1, 2));
        assert_eq!(find(&t, 2, 150, 10), (-1, 1));
        assert_eq!(find(&t, 2, 50, 10), (-1, 0));
        assert_eq!(find(&t, 2, 100, 1).0, 0);
        assert_eq!(find(&t, 2, 205, 1).0, 1);
        // One table of one region, searched up to the empty entry after it.
        assert_eq!(find(&[(100, 10), (0, 0)], 1, 100, 1).0, 0);
        assert_eq!(find(&[(0, 0)], 0, 100, 1), (-1, 0));
    }

    #[test]
    fn last_byte_and_whole_region_are_inside() {
        let t = [(100, 10), (200, 10)];
        assert_eq!(find(&t, 1, 109, 1).0, 0);
        assert_eq!(find(&t, 1, 100, 10).0, 0);
        assert_eq!(find(&t, 1, 200, 10).0, 1);
        assert_eq!(find(&t, 1, 110, 1), (-1, 1));
        assert_eq!(find(&t, 1, 105, 10), (-1, 1));
    }

    #[test]
    fn never_reads_beyond_the_host_table() {
        let t: Vec<(u64, u64)> = (1..=32).map(|i| (i * 100, 10)).collect();
        // count 32 passed as the last index: entry 32 does not exist.
        let mut insert = 0;
        let at = find_region(|i| t[i as usize], 0, 32, 3205, 1, &mut insert);
        assert_eq!(at, 31);
        assert_eq!(find(&t, 32, 5000, 1), (-1, 32));
    }

    #[test]
    fn ascending_attachments_stay_dense() {
        // The host's attach: search with last index = count, insert where told.
        let mut table: Vec<(u64, u64)> = Vec::new();
        for k in 1..=8u64 {
            let base = k * 1000;
            let (at, insert) = find(&table, table.len() as c_int, base, 100);
            assert_eq!(at, -1);
            assert_eq!(insert as usize, table.len());
            table.insert(insert as usize, (base, 100));
        }
        for (i, &(b, _)) in table.iter().enumerate() {
            assert_eq!(find(&table, table.len() as c_int, b + 99, 1).0, i as c_int);
        }
    }
}

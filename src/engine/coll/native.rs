//! Reductions done by the engine itself for predefined ops on predefined number types.
//!
//! `MPI_Reduce_local` is correct for everything but costly on the hot path of small
//! reductions between endpoints of one process: MPICH takes its global lock for it, so two
//! threads reducing at once queue on a futex. The common cases (`MPI_SUM`, `MPI_MAX`, ... on
//! integers and floating point, contiguous) run here; everything else (derived types,
//! `MPI_MAXLOC`, user ops, logical ops on floats, which MPI forbids) goes to the host.

use crate::engine::handle_table::HandleTable;
use crate::host::{handle_bits, sys};
use std::sync::LazyLock;
use std::os::raw::c_int;

/// Number types the engine reduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
}

/// Predefined ops the engine applies, in the order `epmpi_host_predefined_ops` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeOp {
    Sum,
    Prod,
    Min,
    Max,
    Land,
    Lor,
    Lxor,
    Band,
    Bor,
    Bxor,
}

const NATIVE_OPS: [NativeOp; 10] = [
    NativeOp::Sum,
    NativeOp::Prod,
    NativeOp::Min,
    NativeOp::Max,
    NativeOp::Land,
    NativeOp::Lor,
    NativeOp::Lxor,
    NativeOp::Band,
    NativeOp::Bor,
    NativeOp::Bxor,
];

extern "C" {
    fn epmpi_host_native_types(out: *mut sys::MPI_Datatype, cls: *mut c_int, max: c_int) -> c_int;
    fn epmpi_host_predefined_ops(out: *mut sys::MPI_Op, max: c_int) -> c_int;
}

/// Number type of each predefined datatype the engine reduces (`Some`), by handle.
static TYPES: LazyLock<HandleTable<Option<Num>>> = LazyLock::new(|| {
    // SAFETY: with `max` 0 the C function writes nothing and returns the count.
    let n = unsafe { epmpi_host_native_types(std::ptr::null_mut(), std::ptr::null_mut(), 0) };
    let mut types: Vec<sys::MPI_Datatype> = Vec::with_capacity(n as usize);
    let mut cls = vec![0 as c_int; n as usize];
    // SAFETY: the C function writes at most `n` entries into each of `types` (capacity `n`)
    // and `cls` (length `n`), and `set_len` covers only those it wrote.
    unsafe {
        let got = epmpi_host_native_types(types.as_mut_ptr(), cls.as_mut_ptr(), n);
        types.set_len(got.min(n) as usize);
    }
    HandleTable::build(
        types
            .iter()
            .zip(cls)
            .filter(|(t, _)| handle_bits(**t) != handle_bits(crate::host::HOST.datatype_null))
            .filter_map(|(&t, c)| {
                let mut size: c_int = 0;
                // SAFETY: `t` is a predefined datatype of the host (not `MPI_DATATYPE_NULL`, filtered
                // above); the host writes `size`, a live local.
                if unsafe { sys::MPI_Type_size(t, &mut size) } != crate::host::HOST.success {
                    return None;
                }
                let num = match (c, size) {
                    (1, 1) => Num::I8,
                    (1, 2) => Num::I16,
                    (1, 4) => Num::I32,
                    (1, 8) => Num::I64,
                    (2, 1) => Num::U8,
                    (2, 2) => Num::U16,
                    (2, 4) => Num::U32,
                    (2, 8) => Num::U64,
                    (3, 4) => Num::F32,
                    (3, 8) => Num::F64,
                    _ => return None,
                };
                Some((handle_bits(t), Some(num)))
            }),
    )
});

/// Every predefined op, by handle: the native op, or `None` for the ones the host applies.
static OPS: LazyLock<HandleTable<Option<NativeOp>>> = LazyLock::new(|| {
    // SAFETY: with `max` 0 the C function writes nothing and returns the count.
    let n = unsafe { epmpi_host_predefined_ops(std::ptr::null_mut(), 0) };
    let mut ops: Vec<sys::MPI_Op> = Vec::with_capacity(n as usize);
    // SAFETY: the C function writes at most `n` handles into `ops`' capacity of `n`, and
    // `set_len` covers only those it wrote.
    unsafe {
        let got = epmpi_host_predefined_ops(ops.as_mut_ptr(), n);
        ops.set_len(got.min(n) as usize);
    }
    HandleTable::build(ops.iter().enumerate().map(|(i, &op)| (handle_bits(op), NATIVE_OPS.get(i).copied())))
});

/// `Some(native op or None)` for a predefined op, `None` for a user-defined one.
#[inline]
pub fn predefined_op(op: sys::MPI_Op) -> Option<Option<NativeOp>> {
    OPS.get(handle_bits(op))
}

/// The number type of a predefined datatype the engine reduces.
#[inline]
pub fn num_type(t: sys::MPI_Datatype) -> Option<Num> {
    TYPES.get(handle_bits(t)).flatten()
}

/// An (op, number type) pair the engine reduces itself, found once per collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Native {
    op: NativeOp,
    num: Num,
}

impl Native {
    /// The pair for `op` on `t`, when the engine does that reduction (`None`: the host does).
    #[inline]
    pub fn of(op: sys::MPI_Op, t: sys::MPI_Datatype) -> Option<Native> {
        let (Some(Some(op)), Some(num)) = (predefined_op(op), num_type(t)) else { return None };
        Native::admits(op, num).then_some(Native { op, num })
    }

    /// True when the engine applies `op` to `num` itself. Logical and bitwise ops on floating
    /// point are erroneous in MPI (MPI 4.1 section 6.9.2): the host reports them.
    fn admits(op: NativeOp, num: Num) -> bool {
        matches!(op, NativeOp::Sum | NativeOp::Prod | NativeOp::Min | NativeOp::Max) || !matches!(num, Num::F32 | Num::F64)
    }

    /// `inout = input op inout` over `count` contiguous elements.
    ///
    /// # Safety
    /// Both pointers address `count` elements of the pair's number type.
    #[inline]
    pub unsafe fn apply(self, input: *const u8, inout: *mut u8, count: usize) {
        let done = match self.num {
            Num::I8 => i8::apply_all(self.op, input, inout, count),
            Num::I16 => i16::apply_all(self.op, input, inout, count),
            Num::I32 => i32::apply_all(self.op, input, inout, count),
            Num::I64 => i64::apply_all(self.op, input, inout, count),
            Num::U8 => u8::apply_all(self.op, input, inout, count),
            Num::U16 => u16::apply_all(self.op, input, inout, count),
            Num::U32 => u32::apply_all(self.op, input, inout, count),
            Num::U64 => u64::apply_all(self.op, input, inout, count),
            Num::F32 => f32::apply_all(self.op, input, inout, count),
            Num::F64 => f64::apply_all(self.op, input, inout, count),
        };
        debug_assert!(done, "Native::of admits only pairs that apply_all does");
    }
}

trait Number: Copy + PartialOrd {
    /// `inout[i] = input[i] op inout[i]` for `count` elements at possibly unaligned
    /// addresses; false (nothing written) when the engine does not do `op` on this type.
    /// The op is chosen once per call, not per element: one loop per op, which the compiler
    /// can vectorise (a match per element was most of a small reduction's cost).
    unsafe fn apply_all(op: NativeOp, input: *const u8, inout: *mut u8, count: usize) -> bool;
}

/// The loop of one op over `count` elements (see [`Number::apply_all`]).
#[inline(always)]
unsafe fn each<T: Copy>(input: *const u8, inout: *mut u8, count: usize, f: impl Fn(T, T) -> T) -> bool {
    let (src, dst) = (input as *const T, inout as *mut T);
    for i in 0..count {
        dst.add(i).write_unaligned(f(src.add(i).read_unaligned(), dst.add(i).read_unaligned()));
    }
    true
}

macro_rules! int_number {
    ($($t:ty),*) => {$(
        impl Number for $t {
            unsafe fn apply_all(op: NativeOp, i: *const u8, o: *mut u8, n: usize) -> bool {
                match op {
                    NativeOp::Sum => each(i, o, n, |a: $t, b| a.wrapping_add(b)),
                    NativeOp::Prod => each(i, o, n, |a: $t, b| a.wrapping_mul(b)),
                    NativeOp::Min => each(i, o, n, |a: $t, b| if a < b { a } else { b }),
                    NativeOp::Max => each(i, o, n, |a: $t, b| if a > b { a } else { b }),
                    NativeOp::Land => each(i, o, n, |a: $t, b| (a != 0 && b != 0) as $t),
                    NativeOp::Lor => each(i, o, n, |a: $t, b| (a != 0 || b != 0) as $t),
                    NativeOp::Lxor => each(i, o, n, |a: $t, b| ((a != 0) != (b != 0)) as $t),
                    NativeOp::Band => each(i, o, n, |a: $t, b| a & b),
                    NativeOp::Bor => each(i, o, n, |a: $t, b| a | b),
                    NativeOp::Bxor => each(i, o, n, |a: $t, b| a ^ b),
                }
            }
        }
    )*};
}
int_number!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_number {
    ($($t:ty),*) => {$(
        impl Number for $t {
            unsafe fn apply_all(op: NativeOp, i: *const u8, o: *mut u8, n: usize) -> bool {
                match op {
                    NativeOp::Sum => each(i, o, n, |a: $t, b| a + b),
                    NativeOp::Prod => each(i, o, n, |a: $t, b| a * b),
                    NativeOp::Min => each(i, o, n, |a: $t, b| if a < b { a } else { b }),
                    NativeOp::Max => each(i, o, n, |a: $t, b| if a > b { a } else { b }),
                    _ => false,
                }
            }
        }
    )*};
}
float_number!(f32, f64);

#[cfg(test)]
mod tests {
    use super::*;

    /// One element through `apply_all`: `Some(input op inout)`, or None when refused.
    fn one<T: Number>(op: NativeOp, a: T, b: T) -> Option<T> {
        let mut out = b;
        // SAFETY: one element of `T` at each of `&a` and `&mut out`, both live locals.
        unsafe { T::apply_all(op, &a as *const T as *const u8, &mut out as *mut T as *mut u8, 1) }.then_some(out)
    }

    #[test]
    fn integer_ops_wrap_and_compare() {
        assert_eq!(one(NativeOp::Sum, i32::MAX, 1), Some(i32::MIN));
        assert_eq!(one(NativeOp::Max, 3u8, 250), Some(250));
        assert_eq!(one(NativeOp::Min, -5i64, 2), Some(-5));
        assert_eq!(one(NativeOp::Lxor, 2i16, 0), Some(1));
        assert_eq!(one(NativeOp::Land, 2i16, 0), Some(0));
        assert_eq!(one(NativeOp::Lor, 0u64, 7), Some(1));
        assert_eq!(one(NativeOp::Bxor, 0b1100u32, 0b1010), Some(0b0110));
        assert_eq!(one(NativeOp::Prod, -3i8, 5), Some(-15));
        assert_eq!(one(NativeOp::Band, 1.0f64, 2.0), None);
        assert_eq!(one(NativeOp::Min, 1.5f32, -2.0), Some(-2.0));
    }

    /// Every pair the engine admits is one `apply_all` does (`Native::apply` relies on it),
    /// and the pairs MPI forbids go to the host.
    #[test]
    fn admitted_pairs_are_the_ones_applied() {
        let nums = [Num::I8, Num::I16, Num::I32, Num::I64, Num::U8, Num::U16, Num::U32, Num::U64, Num::F32, Num::F64];
        for op in NATIVE_OPS {
            for num in nums {
                let (mut a, b) = ([0u8; 8], [0u8; 8]);
                // SAFETY: `a` and `b` hold 8 bytes, one element of every number type.
                let applied = unsafe {
                    let (i, o) = (b.as_ptr(), a.as_mut_ptr());
                    match num {
                        Num::I8 => i8::apply_all(op, i, o, 1),
                        Num::I16 => i16::apply_all(op, i, o, 1),
                        Num::I32 => i32::apply_all(op, i, o, 1),
                        Num::I64 => i64::apply_all(op, i, o, 1),
                        Num::U8 => u8::apply_all(op, i, o, 1),
                        Num::U16 => u16::apply_all(op, i, o, 1),
                        Num::U32 => u32::apply_all(op, i, o, 1),
                        Num::U64 => u64::apply_all(op, i, o, 1),
                        Num::F32 => f32::apply_all(op, i, o, 1),
                        Num::F64 => f64::apply_all(op, i, o, 1),
                    }
                };
                assert_eq!(Native::admits(op, num), applied, "{op:?} on {num:?}");
            }
        }
        assert!(!Native::admits(NativeOp::Land, Num::F64));
    }

    #[test]
    fn unaligned_arrays() {
        let mut bytes = [0u8; 17];
        let input: [f64; 2] = [1.5, -2.0];
        // SAFETY: `bytes` holds 17 bytes, so 16 from offset 1 fit; `out` holds the 2 `f64`s
        // written.
        unsafe {
            std::ptr::copy_nonoverlapping(input.as_ptr() as *const u8, bytes.as_mut_ptr().add(1), 16);
            let mut out = [1.0f64, 1.0];
            assert!(f64::apply_all(NativeOp::Sum, bytes.as_ptr().add(1), out.as_mut_ptr() as *mut u8, 2));
            assert_eq!(out, [2.5, -1.0]);
        }
    }
}

//! Reductions done by the engine itself for predefined ops on predefined number types.
//!
//! `MPI_Reduce_local` is correct for everything but costly on the hot path of small
//! reductions between endpoints of one process: MPICH takes its global lock for it, so two
//! threads reducing at once queue on a futex. The common cases (`MPI_SUM`, `MPI_MAX`, ... on
//! integers and floating point, contiguous) run here; everything else (derived types,
//! `MPI_MAXLOC`, user ops, logical ops on floats, which MPI forbids) goes to the host.

use crate::host::{handle_bits, sys};
use once_cell::sync::Lazy;
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

/// (handle bits, number type), sorted by handle bits.
static TYPES: Lazy<Vec<(u64, Num)>> = Lazy::new(|| {
    let n = unsafe { epmpi_host_native_types(std::ptr::null_mut(), std::ptr::null_mut(), 0) };
    let mut types: Vec<sys::MPI_Datatype> = Vec::with_capacity(n as usize);
    let mut cls = vec![0 as c_int; n as usize];
    unsafe {
        let got = epmpi_host_native_types(types.as_mut_ptr(), cls.as_mut_ptr(), n);
        types.set_len(got.min(n) as usize);
    }
    let mut v: Vec<(u64, Num)> = types
        .iter()
        .zip(cls)
        .filter(|(t, _)| handle_bits(**t) != handle_bits(crate::host::HOST.datatype_null))
        .filter_map(|(&t, c)| {
            let mut size: c_int = 0;
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
            Some((handle_bits(t), num))
        })
        .collect();
    v.sort_unstable_by_key(|e| e.0);
    v.dedup_by_key(|e| e.0);
    v
});

/// (handle bits, native op or `None` for the other predefined ops), sorted by handle bits.
static OPS: Lazy<Vec<(u64, Option<NativeOp>)>> = Lazy::new(|| {
    let n = unsafe { epmpi_host_predefined_ops(std::ptr::null_mut(), 0) };
    let mut ops: Vec<sys::MPI_Op> = Vec::with_capacity(n as usize);
    unsafe {
        let got = epmpi_host_predefined_ops(ops.as_mut_ptr(), n);
        ops.set_len(got.min(n) as usize);
    }
    let mut v: Vec<(u64, Option<NativeOp>)> =
        ops.iter().enumerate().map(|(i, &op)| (handle_bits(op), NATIVE_OPS.get(i).copied())).collect();
    v.sort_unstable_by_key(|e| e.0);
    v
});

/// `Some(native op or None)` for a predefined op, `None` for a user-defined one.
pub fn predefined_op(op: sys::MPI_Op) -> Option<Option<NativeOp>> {
    let bits = handle_bits(op);
    OPS.binary_search_by_key(&bits, |e| e.0).ok().map(|i| OPS[i].1)
}

/// The number type of a predefined datatype the engine reduces.
pub fn num_type(t: sys::MPI_Datatype) -> Option<Num> {
    let bits = handle_bits(t);
    TYPES.binary_search_by_key(&bits, |e| e.0).ok().map(|i| TYPES[i].1)
}

trait Number: Copy + PartialOrd {
    fn apply(op: NativeOp, a: Self, b: Self) -> Option<Self>;
}

macro_rules! int_number {
    ($($t:ty),*) => {$(
        impl Number for $t {
            #[inline]
            fn apply(op: NativeOp, a: Self, b: Self) -> Option<Self> {
                let (x, y) = (a != 0, b != 0);
                Some(match op {
                    NativeOp::Sum => a.wrapping_add(b),
                    NativeOp::Prod => a.wrapping_mul(b),
                    NativeOp::Min => if a < b { a } else { b },
                    NativeOp::Max => if a > b { a } else { b },
                    NativeOp::Land => (x && y) as $t,
                    NativeOp::Lor => (x || y) as $t,
                    NativeOp::Lxor => (x != y) as $t,
                    NativeOp::Band => a & b,
                    NativeOp::Bor => a | b,
                    NativeOp::Bxor => a ^ b,
                })
            }
        }
    )*};
}
int_number!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_number {
    ($($t:ty),*) => {$(
        impl Number for $t {
            #[inline]
            fn apply(op: NativeOp, a: Self, b: Self) -> Option<Self> {
                match op {
                    NativeOp::Sum => Some(a + b),
                    NativeOp::Prod => Some(a * b),
                    NativeOp::Min => Some(if a < b { a } else { b }),
                    NativeOp::Max => Some(if a > b { a } else { b }),
                    _ => None,
                }
            }
        }
    )*};
}
float_number!(f32, f64);

/// `inout[i] = input[i] op inout[i]` for `count` elements at possibly unaligned addresses.
/// False when the pair is not one the engine does (the caller asks the host).
unsafe fn apply_all<T: Number>(op: NativeOp, input: *const u8, inout: *mut u8, count: usize) -> bool {
    let (src, dst) = (input as *const T, inout as *mut T);
    for i in 0..count {
        let a = src.add(i).read_unaligned();
        let b = dst.add(i).read_unaligned();
        match T::apply(op, a, b) {
            Some(v) => dst.add(i).write_unaligned(v),
            None => return false,
        }
    }
    true
}

/// Reduces natively when `(op, t)` is a supported pair: `inout = input op inout` over
/// `count` contiguous elements. Returns false (nothing written) otherwise.
///
/// # Safety
/// Both pointers address `count` elements of `t`.
pub unsafe fn reduce(op: sys::MPI_Op, t: sys::MPI_Datatype, input: *const u8, inout: *mut u8, count: usize) -> bool {
    let (Some(Some(op)), Some(num)) = (predefined_op(op), num_type(t)) else { return false };
    if count == 0 {
        return true;
    }
    // Floats take only arithmetic and min/max: checked on the first element, before any
    // write, by the op itself.
    if matches!(num, Num::F32 | Num::F64) && !matches!(op, NativeOp::Sum | NativeOp::Prod | NativeOp::Min | NativeOp::Max) {
        return false;
    }
    match num {
        Num::I8 => apply_all::<i8>(op, input, inout, count),
        Num::I16 => apply_all::<i16>(op, input, inout, count),
        Num::I32 => apply_all::<i32>(op, input, inout, count),
        Num::I64 => apply_all::<i64>(op, input, inout, count),
        Num::U8 => apply_all::<u8>(op, input, inout, count),
        Num::U16 => apply_all::<u16>(op, input, inout, count),
        Num::U32 => apply_all::<u32>(op, input, inout, count),
        Num::U64 => apply_all::<u64>(op, input, inout, count),
        Num::F32 => apply_all::<f32>(op, input, inout, count),
        Num::F64 => apply_all::<f64>(op, input, inout, count),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_ops_wrap_and_compare() {
        assert_eq!(i32::apply(NativeOp::Sum, i32::MAX, 1), Some(i32::MIN));
        assert_eq!(u8::apply(NativeOp::Max, 3, 250), Some(250));
        assert_eq!(i64::apply(NativeOp::Min, -5, 2), Some(-5));
        assert_eq!(i16::apply(NativeOp::Lxor, 2, 0), Some(1));
        assert_eq!(u32::apply(NativeOp::Bxor, 0b1100, 0b1010), Some(0b0110));
        assert_eq!(f64::apply(NativeOp::Band, 1.0, 2.0), None);
    }

    #[test]
    fn unaligned_arrays() {
        let mut bytes = [0u8; 17];
        let input: [f64; 2] = [1.5, -2.0];
        unsafe {
            std::ptr::copy_nonoverlapping(input.as_ptr() as *const u8, bytes.as_mut_ptr().add(1), 16);
            let mut out = [1.0f64, 1.0];
            assert!(apply_all::<f64>(NativeOp::Sum, bytes.as_ptr().add(1), out.as_mut_ptr() as *mut u8, 2));
            assert_eq!(out, [2.5, -1.0]);
        }
    }
}

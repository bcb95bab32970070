//! A fixed table from host handles (predefined datatypes, predefined ops) to what the engine
//! knows about them, for lookups on the hot path with no MPI call.
//!
//! Open-addressed, keyed by the handle's bits, never more than a quarter full: a lookup
//! takes one or two probes. Built once, when the host is initialised; read-only afterwards.

/// Handle bits -> `V`. Empty slots hold key 0, which no predefined handle has (MPICH's are
/// nonzero integers, Open MPI's are addresses).
pub struct HandleTable<V> {
    slots: Box<[(u64, V)]>,
}

impl<V: Copy + Default> HandleTable<V> {
    /// The table of `entries`; a key given twice keeps its first value, key 0 is dropped.
    pub fn build(entries: impl IntoIterator<Item = (u64, V)>) -> HandleTable<V> {
        let entries: Vec<(u64, V)> = entries.into_iter().filter(|&(bits, _)| bits != 0).collect();
        let len = (entries.len() * 4).next_power_of_two().max(16);
        let mut table = HandleTable { slots: vec![(0, V::default()); len].into_boxed_slice() };
        for (bits, v) in entries {
            let mut i = table.home(bits);
            while table.slots[i].0 != 0 && table.slots[i].0 != bits {
                i = (i + 1) & (len - 1);
            }
            if table.slots[i].0 == 0 {
                table.slots[i] = (bits, v);
            }
        }
        table
    }

    /// Fibonacci hashing: handles differ in their middle bits (MPICH) or by small strides
    /// (Open MPI's objects in one array); the multiply spreads both over the index bits.
    #[inline]
    fn home(&self, bits: u64) -> usize {
        (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & (self.slots.len() - 1)
    }

    /// The value of handle bits `bits`, `None` when the handle is not in the table.
    #[inline]
    pub fn get(&self, bits: u64) -> Option<V> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(bits);
        loop {
            match self.slots[i] {
                (0, _) => return None,
                (k, v) if k == bits => return Some(v),
                _ => i = (i + 1) & mask,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::HandleTable;

    #[test]
    fn finds_every_key_and_only_those() {
        // Shapes of both hosts' handles: MPICH-like integers and Open MPI-like addresses with
        // a fixed stride, plus keys that share their home slot.
        let mpich: Vec<(u64, usize)> = (0..40u64).map(|i| (0x4c00_0101 + (i << 8), i as usize + 1)).collect();
        let ompi: Vec<(u64, usize)> = (0..40u64).map(|i| (0x7f00_1234_0000 + i * 0x188, 100 + i as usize)).collect();
        for keys in [mpich, ompi] {
            let t = HandleTable::build(keys.iter().copied());
            for &(k, size) in &keys {
                assert_eq!(t.get(k), Some(size), "key {k:#x}");
            }
            assert_eq!(t.get(12345), None);
            assert_eq!(t.get(keys[0].0 + 1), None);
        }
        let colliding = HandleTable::build([(1u64, 1usize)]);
        let home = colliding.home(1);
        let twin = (2..).find(|&k| colliding.home(k) == home).unwrap();
        let t = HandleTable::build([(1, 1), (twin, 2)]);
        assert_eq!((t.get(1), t.get(twin)), (Some(1), Some(2)));
    }

    #[test]
    fn a_repeated_key_keeps_its_first_value() {
        // MPICH gives some predefined names the same handle (MPI_LONG_LONG and
        // MPI_LONG_LONG_INT); the first description wins, as `dedup` did in sorted tables.
        let t = HandleTable::build([(7u64, 'a'), (7, 'b')]);
        assert_eq!(t.get(7), Some('a'));
    }
}

//! Rank maps: endpoint rank <-> (process, local index), and endpoint identities.
//!
//! A communicator's ranks may be contiguous per process (after creation) or interleaved (after
//! split or merge), so the map stores one location per rank rather than per-process offsets;
//! 16 bytes per endpoint, 160 KB for 10,000 endpoints.

/// Where an endpoint lives: the rank of its process in the communicator's host communicator
/// and its index among that process's endpoints of this communicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub proc: u32,
    pub local: u32,
}

/// An endpoint's identity across communicators: the world rank of its process and a number
/// unique inside that process. Endpoints of a dup or split keep the identity of the endpoint
/// they come from, so `EP_Comm_compare` can compare groups as MPI does.
pub type Identity = u64;

pub fn identity(world_rank: u32, serial: u32) -> Identity {
    ((world_rank as u64) << 32) | serial as u64
}

#[derive(Clone, Debug)]
pub struct RankMap {
    locations: Vec<Location>,
    identities: Vec<Identity>,
    /// Ranks of each process's endpoints, by process then local index.
    procs: Vec<Vec<i32>>,
    /// This process's rank in the host communicator.
    my_proc: u32,
    /// Ranks are contiguous per process, in process order, and local indices follow rank
    /// order: hierarchical algorithms then keep MPI's rank order without reordering.
    blocked: bool,
    /// Every process's local indices are `0..count`.
    dense: bool,
}

impl RankMap {
    /// Map of a communicator made by `EP_Comm_create_endpoints`: process `p` (rank in the
    /// host communicator) has `counts[p]` endpoints, ranked by (process, index).
    /// `id_bases[p]` is the first identity serial of process `p`; `world[p]` its world rank.
    pub fn from_counts(counts: &[u32], world: &[u32], id_bases: &[u32], my_proc: u32) -> RankMap {
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        let mut locations = Vec::with_capacity(total);
        let mut identities = Vec::with_capacity(total);
        for (p, &c) in counts.iter().enumerate() {
            for i in 0..c {
                locations.push(Location { proc: p as u32, local: i });
                identities.push(identity(world[p], id_bases[p] + i));
            }
        }
        RankMap::from_locations(locations, identities, counts.len(), my_proc)
    }

    /// Map from one location and identity per rank, over `nprocs` processes. Local indices
    /// of a process are distinct; they are `0..count` for intracommunicators, and may leave
    /// gaps in the group maps of an intercommunicator (whose local indices number all of a
    /// process's endpoints, of both groups).
    pub fn from_locations(locations: Vec<Location>, identities: Vec<Identity>, nprocs: usize, my_proc: u32) -> RankMap {
        let mut procs: Vec<Vec<i32>> = vec![Vec::new(); nprocs];
        for (r, l) in locations.iter().enumerate() {
            procs[l.proc as usize].push(r as i32);
        }
        for list in procs.iter_mut() {
            list.sort_by_key(|&r| locations[r as usize].local);
        }
        let dense = procs.iter().all(|ranks| ranks.iter().enumerate().all(|(i, &r)| locations[r as usize].local == i as u32));
        let mut next = 0i32;
        let blocked = dense
            && procs.iter().all(|ranks| {
                ranks.iter().all(|&r| {
                    let ok = r == next;
                    next += 1;
                    ok
                })
            });
        RankMap { locations, identities, procs, my_proc, blocked, dense }
    }

    /// True when ranks are contiguous per process, in process order, locals in rank order.
    #[inline]
    pub fn is_blocked(&self) -> bool {
        self.blocked
    }

    /// Ranks of process `p`'s endpoints in local-index order.
    pub fn ranks_of(&self, p: u32) -> &[i32] {
        &self.procs[p as usize]
    }

    /// Number of processes (with at least one endpoint).
    pub fn nprocs(&self) -> usize {
        self.procs.len()
    }

    /// Number of endpoints.
    pub fn size(&self) -> usize {
        self.locations.len()
    }

    /// Location of a rank, `None` when out of range.
    #[inline]
    pub fn location(&self, rank: i32) -> Option<Location> {
        usize::try_from(rank).ok().and_then(|r| self.locations.get(r)).copied()
    }

    /// Rank of this process's endpoint with a local index.
    pub fn my_rank(&self, local: u32) -> i32 {
        let mine = &self.procs[self.my_proc as usize];
        if self.dense {
            return mine[local as usize];
        }
        *mine.iter().find(|&&r| self.locations[r as usize].local == local).expect("an endpoint of this group")
    }


    /// This process's rank in the host communicator.
    pub fn my_proc(&self) -> u32 {
        self.my_proc
    }

    /// Number of this process's endpoints.
    pub fn my_count(&self) -> usize {
        self.procs[self.my_proc as usize].len()
    }

    /// Identities in rank order.
    pub fn identities(&self) -> &[Identity] {
        &self.identities
    }
}

/// How two groups of endpoints compare (MPI 4.1 section 7.4.1): same members in the same
/// order (`Congruent` when contexts differ), same members in another order (`Similar`), or not.
#[derive(Debug, PartialEq, Eq)]
pub enum GroupOrder {
    Same,
    Permuted,
    Different,
}

pub fn compare_groups(a: &[Identity], b: &[Identity]) -> GroupOrder {
    if a == b {
        return GroupOrder::Same;
    }
    if a.len() != b.len() {
        return GroupOrder::Different;
    }
    let (mut x, mut y) = (a.to_vec(), b.to_vec());
    x.sort_unstable();
    y.sort_unstable();
    if x == y {
        GroupOrder::Permuted
    } else {
        GroupOrder::Different
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uneven_and_empty_processes() {
        // Three processes with 1, 0 and 3 endpoints: ranks 0 | - | 1 2 3.
        let m = RankMap::from_counts(&[1, 0, 3], &[0, 1, 2], &[10, 0, 20], 2);
        assert_eq!(m.size(), 4);
        assert_eq!(m.location(0), Some(Location { proc: 0, local: 0 }));
        assert_eq!(m.location(1), Some(Location { proc: 2, local: 0 }));
        assert_eq!(m.location(3), Some(Location { proc: 2, local: 2 }));
        assert_eq!(m.location(4), None);
        assert_eq!(m.location(-1), None);
        assert_eq!(m.my_count(), 3);
        assert_eq!(m.my_rank(2), 3);
        assert_eq!(m.identities()[1], identity(2, 20));
        assert!(m.is_blocked());
        assert_eq!(m.ranks_of(2), &[1, 2, 3]);
    }

    #[test]
    fn interleaved_map_is_not_blocked() {
        let loc = |proc, local| Location { proc, local };
        let m = RankMap::from_locations(vec![loc(0, 0), loc(1, 0), loc(0, 1)], vec![1, 2, 3], 2, 0);
        assert!(!m.is_blocked());
        assert_eq!(m.ranks_of(0), &[0, 2]);
        assert_eq!(m.my_rank(1), 2);
        // Contiguous per process but processes out of order: not blocked either.
        let m = RankMap::from_locations(vec![loc(1, 0), loc(0, 0)], vec![1, 2], 2, 0);
        assert!(!m.is_blocked());
    }

    #[test]
    fn group_comparison() {
        assert_eq!(compare_groups(&[1, 2, 3], &[1, 2, 3]), GroupOrder::Same);
        assert_eq!(compare_groups(&[1, 2, 3], &[3, 1, 2]), GroupOrder::Permuted);
        assert_eq!(compare_groups(&[1, 2, 3], &[1, 2]), GroupOrder::Different);
        assert_eq!(compare_groups(&[1, 2, 3], &[1, 2, 4]), GroupOrder::Different);
    }
}

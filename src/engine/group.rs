//! Groups of endpoints (MPI 4.1 section 7.3): ordered lists of endpoint identities, and the
//! group algebra on them. A group is a process-local value: nothing here communicates.
//!
//! Members are endpoint identities ([`Identity`]: process and endpoint), which endpoints keep
//! through dup, split and merge, so the groups of two communicators over the same endpoints
//! compare `Same` or `Permuted` as MPI says.

use super::rankmap::{compare_groups, GroupOrder, Identity};
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_RANK};
use std::collections::HashMap;
use std::os::raw::c_int;

/// An ordered set of endpoints; rank `r` of the group is `members[r]`.
///
/// A group also remembers the endpoint it belongs to (the one whose communicator it came
/// from; a group made from others belongs to its first operand's): that endpoint plays the
/// calling process of `MPI_Group_rank`, since one process holds many endpoints.
#[derive(Debug)]
pub struct Group {
    members: Vec<Identity>,
    rank_of: HashMap<Identity, c_int>,
    owner: Option<Identity>,
}

impl Group {
    /// The group of `members` in this order. Errors: `EP_ERR_RANK` when an endpoint appears
    /// twice (a group is a set).
    pub fn new(members: Vec<Identity>) -> EpResult<Group> {
        let mut rank_of = HashMap::with_capacity(members.len());
        for (r, &m) in members.iter().enumerate() {
            if rank_of.insert(m, r as c_int).is_some() {
                return Err(ep_err!(ERR_RANK, "an endpoint appears twice in the group (rank {r})"));
            }
        }
        Ok(Group { members, rank_of, owner: None })
    }

    /// This group, belonging to endpoint `owner` (see [`Group`]).
    pub fn owned_by(mut self, owner: Option<Identity>) -> Group {
        self.owner = owner;
        self
    }

    /// The endpoint the group belongs to.
    pub fn owner(&self) -> Option<Identity> {
        self.owner
    }

    /// Rank of the endpoint the group belongs to, `None` when it is not a member.
    pub fn my_rank(&self) -> Option<c_int> {
        self.owner.and_then(|o| self.rank(o))
    }

    pub fn size(&self) -> usize {
        self.members.len()
    }

    pub fn members(&self) -> &[Identity] {
        &self.members
    }

    /// Rank of endpoint `id` in the group, `None` when it is not a member.
    pub fn rank(&self, id: Identity) -> Option<c_int> {
        self.rank_of.get(&id).copied()
    }

    pub fn contains(&self, id: Identity) -> bool {
        self.rank_of.contains_key(&id)
    }

    /// Checks a rank of this group. Errors: `EP_ERR_RANK`.
    fn check_rank(&self, r: c_int) -> EpResult<usize> {
        usize::try_from(r)
            .ok()
            .filter(|&r| r < self.size())
            .ok_or_else(|| ep_err!(ERR_RANK, "rank {r} is outside the group (size {})", self.size()))
    }

    /// `MPI_Group_incl`: the members of ranks `ranks`, in that order. Errors: `EP_ERR_RANK`
    /// (out of range or repeated).
    pub fn incl(&self, ranks: &[c_int]) -> EpResult<Group> {
        let mut seen = vec![false; self.size()];
        let mut members = Vec::with_capacity(ranks.len());
        for &r in ranks {
            let i = self.check_rank(r)?;
            if std::mem::replace(&mut seen[i], true) {
                return Err(ep_err!(ERR_RANK, "rank {r} appears twice in the list"));
            }
            members.push(self.members[i]);
        }
        Group::new(members)
    }

    /// `MPI_Group_excl`: the members not in `ranks`, in group order. Errors: `EP_ERR_RANK`
    /// (out of range or repeated).
    pub fn excl(&self, ranks: &[c_int]) -> EpResult<Group> {
        let mut out = vec![false; self.size()];
        for &r in ranks {
            let i = self.check_rank(r)?;
            if std::mem::replace(&mut out[i], true) {
                return Err(ep_err!(ERR_RANK, "rank {r} appears twice in the list"));
            }
        }
        Group::new(self.members.iter().zip(&out).filter(|(_, &o)| !o).map(|(&m, _)| m).collect())
    }

    /// The ranks of range triplets `(first, last, stride)` in order (MPI 4.1 section 7.3.2).
    /// Errors: `EP_ERR_ARG` (stride 0, or a range that runs away from `last`), `EP_ERR_RANK`
    /// (a rank outside the group).
    pub fn range_ranks(&self, ranges: &[[c_int; 3]]) -> EpResult<Vec<c_int>> {
        let mut ranks = Vec::new();
        for &[first, last, stride] in ranges {
            if stride == 0 {
                return Err(ep_err!(ERR_ARG, "range ({first}, {last}, {stride}) has stride 0"));
            }
            self.check_rank(first)?;
            self.check_rank(last)?;
            if (stride > 0 && first > last) || (stride < 0 && first < last) {
                return Err(ep_err!(ERR_ARG, "range ({first}, {last}, {stride}) runs away from its last rank"));
            }
            let (mut r, stride) = (first as i64, stride as i64);
            while (stride > 0 && r <= last as i64) || (stride < 0 && r >= last as i64) {
                ranks.push(r as c_int);
                r += stride;
            }
        }
        Ok(ranks)
    }

    /// `MPI_Group_union`: this group's members, then `other`'s that are not in this one.
    pub fn union(&self, other: &Group) -> Group {
        let extra = other.members.iter().filter(|m| !self.contains(**m));
        Group::new(self.members.iter().chain(extra).copied().collect()).expect("distinct members")
    }

    /// `MPI_Group_intersection`: this group's members that are in `other`, in this order.
    pub fn intersection(&self, other: &Group) -> Group {
        Group::new(self.members.iter().filter(|m| other.contains(**m)).copied().collect()).expect("distinct members")
    }

    /// `MPI_Group_difference`: this group's members that are not in `other`, in this order.
    pub fn difference(&self, other: &Group) -> Group {
        Group::new(self.members.iter().filter(|m| !other.contains(**m)).copied().collect()).expect("distinct members")
    }

    /// `MPI_Group_translate_ranks`: the rank in `other` of each of `ranks` of this group, or
    /// `undefined` when not a member; `proc_null` translates to itself. Errors: `EP_ERR_RANK`.
    pub fn translate(&self, ranks: &[c_int], other: &Group, undefined: c_int, proc_null: c_int) -> EpResult<Vec<c_int>> {
        ranks
            .iter()
            .map(|&r| {
                if r == proc_null {
                    return Ok(proc_null);
                }
                let i = self.check_rank(r)?;
                Ok(other.rank(self.members[i]).unwrap_or(undefined))
            })
            .collect()
    }

    /// `MPI_Group_compare`: same members in the same order, in another order, or not.
    pub fn compare(&self, other: &Group) -> GroupOrder {
        compare_groups(&self.members, &other.members)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ERR_RANK;

    fn g(m: &[u64]) -> Group {
        Group::new(m.to_vec()).unwrap()
    }

    #[test]
    fn incl_excl_and_ranges_follow_mpi() {
        let a = g(&[10, 11, 12, 13, 14, 15]);
        assert_eq!(a.incl(&[4, 0, 2]).unwrap().members(), &[14, 10, 12]);
        assert_eq!(a.excl(&[4, 0, 2]).unwrap().members(), &[11, 13, 15]);
        assert_eq!(a.incl(&[1, 1]).unwrap_err().class, ERR_RANK);
        assert_eq!(a.incl(&[6]).unwrap_err().class, ERR_RANK);
        assert_eq!(a.excl(&[-1]).unwrap_err().class, ERR_RANK);
        assert_eq!(a.range_ranks(&[[5, 0, -2], [0, 0, 1]]).unwrap(), vec![5, 3, 1, 0]);
        assert_eq!(a.range_ranks(&[[1, 5, 3]]).unwrap(), vec![1, 4]);
        assert_eq!(a.range_ranks(&[[0, 3, 0]]).unwrap_err().class, ERR_ARG);
        assert_eq!(a.range_ranks(&[[3, 0, 1]]).unwrap_err().class, ERR_ARG);
        assert_eq!(a.range_ranks(&[[0, 6, 1]]).unwrap_err().class, ERR_RANK);
        // A range repeating a rank is refused by incl.
        let r = a.range_ranks(&[[0, 2, 1], [2, 3, 1]]).unwrap();
        assert_eq!(a.incl(&r).unwrap_err().class, ERR_RANK);
        assert_eq!(Group::new(vec![1, 2, 1]).unwrap_err().class, ERR_RANK);
    }

    #[test]
    fn set_operations_keep_the_first_group_order() {
        let a = g(&[5, 3, 1, 7]);
        let b = g(&[7, 2, 5, 9]);
        assert_eq!(a.union(&b).members(), &[5, 3, 1, 7, 2, 9]);
        assert_eq!(a.intersection(&b).members(), &[5, 7]);
        assert_eq!(a.difference(&b).members(), &[3, 1]);
        assert_eq!(b.difference(&a).members(), &[2, 9]);
        assert_eq!(a.translate(&[0, 1, 3, -1], &b, -32766, -1).unwrap(), vec![2, -32766, 0, -1]);
        assert_eq!(a.translate(&[4], &b, -32766, -1).unwrap_err().class, ERR_RANK);
        assert_eq!(a.compare(&g(&[5, 3, 1, 7])), GroupOrder::Same);
        assert_eq!(a.compare(&g(&[7, 3, 1, 5])), GroupOrder::Permuted);
        assert_eq!(a.compare(&b), GroupOrder::Different);
    }
}

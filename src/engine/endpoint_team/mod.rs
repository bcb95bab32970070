//! Endpoint teams (docs/teams.md): threads of a process that lend themselves to the large
//! copies and local reductions of the team's other members between `EP_Endpoint_join` and
//! `EP_Endpoint_leave`.
//!
//! A team is found by its `team_id` while created, and counts its creators (each holds a
//! handle) and the members of its current round. Leave is the round's barrier: the last of the
//! `team_size` members to leave starts the next round before it releases the others, so a
//! member that joins again at once joins the next round. Members in leave take chunks of the
//! team's work list ([`crate::engine::share`]) until released.

pub mod split;

use super::backoff::Backoff;
use super::share::{self, WorkList};
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG};
use parking_lot::Mutex;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};

/// One team of a process.
pub struct Team {
    pub id: i32,
    pub size: usize,
    /// The chunks members publish and help with.
    work: Arc<WorkList>,
    state: Mutex<Round>,
    /// The number of the current round, read by the members waiting in leave.
    round: AtomicU64,
}

/// Counts of the team and of its current round.
#[derive(Default)]
struct Round {
    /// Handles not yet destroyed.
    creators: usize,
    /// Members that joined the current round, and those of them that called leave.
    joined: usize,
    left: usize,
}

/// Teams alive in this process, by `team_id`.
static TEAMS: LazyLock<Mutex<HashMap<i32, Arc<Team>>>> = LazyLock::new(|| Mutex::new(HashMap::new()));

thread_local! {
    /// The team the calling thread is a member of (between join and leave).
    static MEMBER: RefCell<Option<Arc<Team>>> = const { RefCell::new(None) };
}

fn member_team() -> Option<Arc<Team>> {
    MEMBER.with(|m| m.borrow().clone())
}

/// Creates team `team_id` of `team_size` members, or meets the creation of the other
/// members' calls with the same id; returns the team. Does not wait. Errors (`EP_ERR_ARG`):
/// `team_id` < 0, `team_size` < 1, a live team of that id with another size, or already
/// created by `team_size` calls.
pub fn create(team_id: i32, team_size: i32) -> EpResult<Arc<Team>> {
    if team_id < 0 {
        return Err(ep_err!(ERR_ARG, "team_id {team_id} is negative"));
    }
    if team_size < 1 {
        return Err(ep_err!(ERR_ARG, "team_size {team_size} is below 1"));
    }
    let mut teams = TEAMS.lock();
    if let Some(t) = teams.get(&team_id) {
        if t.size != team_size as usize {
            return Err(ep_err!(ERR_ARG, "team {team_id} exists with team_size {}, not {team_size}", t.size));
        }
        let mut st = t.state.lock();
        if st.creators >= t.size {
            return Err(ep_err!(ERR_ARG, "team {team_id} was already created by its {} members", t.size));
        }
        st.creators += 1;
        drop(st);
        return Ok(t.clone());
    }
    let t = Arc::new(Team {
        id: team_id,
        size: team_size as usize,
        work: Arc::new(WorkList::new()),
        state: Mutex::new(Round { creators: 1, ..Round::default() }),
        round: AtomicU64::new(0),
    });
    teams.insert(team_id, t.clone());
    Ok(t)
}

/// Releases one creator's hold on `team`; the id is free again after the last. Errors
/// (`EP_ERR_ARG`): the caller is a member (between join and leave), or a member is in.
pub fn destroy(team: &Arc<Team>) -> EpResult<()> {
    if member_team().is_some_and(|m| Arc::ptr_eq(&m, team)) {
        let id = team.id;
        return Err(ep_err!(ERR_ARG, "the calling thread is a member of team {id} (call EP_Endpoint_leave first)"));
    }
    let mut teams = TEAMS.lock();
    let mut st = team.state.lock();
    if st.joined > 0 {
        return Err(ep_err!(ERR_ARG, "team {} is in a round ({} joined, {} left)", team.id, st.joined, st.left));
    }
    st.creators -= 1;
    if st.creators == 0 && teams.get(&team.id).is_some_and(|t| Arc::ptr_eq(t, team)) {
        teams.remove(&team.id);
    }
    Ok(())
}

/// Makes the calling thread a member of `team` for its current round. Does not wait.
/// Errors (`EP_ERR_ARG`): the thread is a member of a team already, or `team_size` members
/// have joined this round.
pub fn join(team: &Arc<Team>) -> EpResult<()> {
    if let Some(m) = member_team() {
        let id = m.id;
        return Err(ep_err!(ERR_ARG, "the calling thread is already a member of team {id} (one team at a time)"));
    }
    let mut st = team.state.lock();
    if st.joined >= team.size {
        return Err(ep_err!(ERR_ARG, "team {} has its {} members in this round already", team.id, team.size));
    }
    st.joined += 1;
    drop(st);
    team.work.count_member(true);
    MEMBER.with(|m| *m.borrow_mut() = Some(team.clone()));
    share::set_current(Some(team.work.clone()));
    Ok(())
}

/// Leaves `team`: waits until every member of the round has called leave, taking chunks of
/// the team's work (and progressing the process as any waiter) meanwhile. Errors
/// (`EP_ERR_ARG`): the calling thread is not a member of `team`.
pub fn leave(team: &Arc<Team>) -> EpResult<()> {
    match member_team() {
        Some(m) if Arc::ptr_eq(&m, team) => {}
        Some(m) => {
            let (mine, other) = (m.id, team.id);
            return Err(ep_err!(ERR_ARG, "the calling thread is a member of team {mine}, not of team {other}"));
        }
        None => return Err(ep_err!(ERR_ARG, "the calling thread did not join team {}", team.id)),
    }
    let mine = {
        let mut st = team.state.lock();
        let mine = team.round.load(Ordering::Acquire);
        st.left += 1;
        if st.left == team.size {
            st.joined = 0;
            st.left = 0;
            team.round.store(mine + 1, Ordering::Release);
            team.work.bell.ring();
        }
        mine
    };
    // Under the passive wait policy a member with nothing to take parks until a job is listed
    // or the round is over (both ring the team's bell).
    let mut b = Backoff::new();
    while team.round.load(Ordering::Acquire) == mine {
        if team.work.help() {
            b = Backoff::new();
        } else {
            b.snooze_on(&team.work.bell);
        }
    }
    team.work.count_member(false);
    share::set_current(None);
    MEMBER.with(|m| *m.borrow_mut() = None);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds keep apart members that leave and join again at once: three threads join and
    /// leave 1000 times, and every leave returns only after all three left that round (the
    /// count of leaves seen by each returning member is at least the round's full count).
    #[test]
    fn rounds_in_a_loop() {
        let team = create(4242, 3).unwrap();
        let others: Vec<_> = (0..2).map(|_| create(4242, 3).unwrap()).collect();
        assert!(create(4242, 3).is_err(), "a fourth creator");
        assert!(create(4242, 2).is_err(), "another size");
        let leaves = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for t in [&team, &others[0], &others[1]] {
                let leaves = &leaves;
                s.spawn(move || {
                    for round in 0..1000 {
                        join(t).unwrap();
                        assert!(join(t).is_err(), "join twice");
                        leaves.fetch_add(1, Ordering::SeqCst);
                        leave(t).unwrap();
                        assert!(leaves.load(Ordering::SeqCst) >= 3 * (round + 1), "left before the round was over");
                    }
                    assert!(leave(t).is_err(), "leave without join");
                });
            }
        });
        for t in [&team, &others[0], &others[1]] {
            destroy(t).unwrap();
        }
        let again = create(4242, 1).unwrap();
        destroy(&again).unwrap();
    }
}

//! Endpoint teams (docs/teams.md): the same large operation without a team, with a team of one
//! (the caller alone: what joining costs) and with a team of two (a second thread shares the
//! work), side by side in one run, on process 0 of 2 (process 1 sleeps except in the
//! cross-process case, where it receives):
//! * `same-process send`: endpoint 0 sends to endpoint 1 of the same process (`EP_Send` /
//!   `EP_Recv`); the sender waiting in `EP_Send` takes half of the receiver's single copy, with
//!   or without a team (without one, through `src/engine/shared_copy.rs`);
//! * `same-process send, sender waiting elsewhere`: endpoint 0 starts `EP_Isend` to endpoint 1,
//!   then waits in `EP_Recv` for endpoint 1's zero-byte acknowledgement, sent once its `EP_Recv`
//!   of the message has returned, and only then completes the send (`EP_Wait`). Without a team
//!   the receiver copies alone (the sender does not test its send while it waits for the
//!   acknowledgement); in the team of two, the sender, blocked in its receive, takes its share of
//!   the receiver's copy from the team's work list: the proposal's helper that lends itself from
//!   wherever it waits;
//! * `Allreduce, 1 endpoint`: one thread reduces (sum of doubles) on a communicator where it is
//!   alone, the proposal's Example 1: the copy of its input into its output is shared with a
//!   helper thread waiting in `EP_Endpoint_leave` (without a team the helper is not there);
//! * `Allreduce, 2 endpoints`: two endpoints of one process reduce; the fold of their inputs is
//!   shared with the other endpoint's thread when both are in the team;
//! * `cross-process send`: endpoint 0 of process 0 sends to the endpoint of process 1
//!   (`EP_Send` / `EP_Recv` on a communicator of 2 + 1 endpoints, so that Open MPI does not take
//!   its direct mode, which has no header to stripe); with a team of two the message is striped
//!   (from 8 MiB, one part per member: two of 8 MiB at 16 MiB) and a helper thread waiting in
//!   `EP_Endpoint_leave` starts its share of the parts' host sends (without a team the helper is
//!   not there; with a team of one nothing is striped). Process 1 receives with no team; a control message from
//!   process 0 starts each of its repetitions, and the receiver's zero-byte reply after the last
//!   message ends the sender's timing.
//!
//! Each repetition: members join, a warm-up call, `iters` timed calls, members leave. Medians
//! over repetitions with the spread; the last table gives each method's median over the
//! no-team median (and the best repetition's ratio). Sizes from `EPMPI_BENCH_SIZES` (default 16M; multiples of 8).
//! `cargo bench --bench teams`.

mod common;

use common::record::{stats, Recorder, XUnit};
use common::{sys, HOST};
use epmpi::*;
use std::os::raw::c_void;
use std::time::{Duration, Instant};

#[derive(Clone, Copy)]
enum Case {
    Send,
    SendAside,
    AllreduceLone,
    AllreducePair,
    Remote,
}

impl Case {
    fn metric(self) -> &'static str {
        match self {
            Case::Send => "same-process send",
            Case::SendAside => "same-process send, sender waiting elsewhere",
            Case::AllreduceLone => "Allreduce, 1 endpoint",
            Case::AllreducePair => "Allreduce, 2 endpoints",
            Case::Remote => "cross-process send",
        }
    }
}

/// Members of the team: 0 (no team), 1 (the caller) or 2 (the caller and a second thread).
type Members = usize;

struct Comms {
    lone: EP_Comm,
    pair: [EP_Comm; 2],
    /// Over both processes: endpoints 0 and 1 here, 2 in process 1.
    world: [EP_Comm; 2],
}

/// Host tag of the control messages that start process 1's repetitions of the cross-process
/// case: `[bytes, iters]`, or `[0, 0]` at the end.
const CONTROL_TAG: i32 = 98;
/// Endpoint rank of process 1's receiver on `Comms::world`.
const RECEIVER: i32 = 2;

/// Joins a team of `members` if `join`; returns its handle.
fn join(id: i32, members: Members, join: bool) -> EP_Endpoint_team {
    let mut t = EP_ENDPOINT_TEAM_NULL;
    if join {
        unsafe {
            assert_eq!(EP_Endpoint_team_create(id, members as i32, &mut t), 0);
            assert_eq!(EP_Endpoint_join(t), 0);
        }
    }
    t
}

fn leave(mut t: EP_Endpoint_team) {
    if t != EP_ENDPOINT_TEAM_NULL {
        unsafe {
            assert_eq!(EP_Endpoint_leave(t), 0);
            assert_eq!(EP_Endpoint_team_destroy(&mut t), 0);
        }
    }
}

/// Seconds per call, one repetition.
fn repetition(comms: &Comms, case: Case, members: Members, bytes: u64) -> f64 {
    let n = (bytes / 8) as usize;
    let iters = common::sizes::iters(bytes, 50, 256 << 20);
    let count = n as i32;
    let helper_present = !matches!(case, Case::AllreduceLone | Case::Remote) || members == 2;
    if matches!(case, Case::Remote) {
        let control = [bytes as i64, iters as i64];
        unsafe { sys::MPI_Send(control.as_ptr() as *const c_void, 16, HOST.byte, 1, CONTROL_TAG, HOST.comm_world) };
    }
    let start = std::sync::Barrier::new(1 + helper_present as usize);
    // Thread 0 is the caller; thread 1 is the receiver (send), the helper (lone allreduce) or
    // the second endpoint (pair allreduce). Each thread times its own loop; thread 0's counts.
    let work = |who: usize| -> f64 {
        // Read here: Open MPI's handles are pointers, which threads may not share.
        let (double, sum) = unsafe { (sys::RSMPI_DOUBLE, sys::RSMPI_SUM) };
        let send = vec![1.0f64 + who as f64; n];
        let mut recv = vec![0.0f64; n];
        let (s, r) = (send.as_ptr() as *const c_void, recv.as_mut_ptr() as *mut c_void);
        let in_team = members > who;
        let team = join(1, members, in_team);
        let call = || unsafe {
            match (case, who) {
                (Case::Send, 0) => EP_Send(s, count, double, 1, 0, comms.pair[0]),
                (Case::Send, _) => EP_Recv(r, count, double, 0, 0, comms.pair[1], std::ptr::null_mut()),
                (Case::SendAside, 0) => {
                    let mut req = EP_REQUEST_NULL;
                    let rc = EP_Isend(s, count, double, 1, 0, comms.pair[0], &mut req);
                    assert_eq!(rc, 0);
                    let ack = std::ptr::null_mut();
                    assert_eq!(EP_Recv(ack, 0, double, 1, 1, comms.pair[0], std::ptr::null_mut()), 0);
                    EP_Wait(&mut req, std::ptr::null_mut())
                }
                (Case::SendAside, _) => {
                    assert_eq!(EP_Recv(r, count, double, 0, 0, comms.pair[1], std::ptr::null_mut()), 0);
                    EP_Send(std::ptr::null(), 0, double, 0, 1, comms.pair[1])
                }
                (Case::AllreduceLone, _) => EP_Allreduce(s, r, count, double, sum, comms.lone),
                (Case::AllreducePair, w) => EP_Allreduce(s, r, count, double, sum, comms.pair[w]),
                (Case::Remote, _) => EP_Send(s, count, double, RECEIVER, 0, comms.world[0]),
            }
        };
        let lone_helper = matches!(case, Case::AllreduceLone | Case::Remote) && who == 1;
        // Every member is in before the first call, so the calls timed find their helpers.
        start.wait();
        let mut seconds = 0.0;
        if !lone_helper {
            assert_eq!(call(), 0);
            if matches!(case, Case::Send | Case::SendAside | Case::AllreducePair) {
                unsafe { EP_Barrier(comms.pair[who]) };
            }
            let t = Instant::now();
            for _ in 0..iters {
                assert_eq!(call(), 0);
            }
            if matches!(case, Case::Remote) {
                let end = std::ptr::null_mut();
                let rc = unsafe { EP_Recv(end, 0, double, RECEIVER, 1, comms.world[0], std::ptr::null_mut()) };
                assert_eq!(rc, 0);
            }
            seconds = t.elapsed().as_secs_f64() / iters as f64;
        }
        leave(team);
        if !lone_helper {
            let expect = match case {
                Case::Send | Case::SendAside => 1.0,
                Case::AllreduceLone => 1.0,
                Case::AllreducePair => 3.0,
                Case::Remote => 1.0,
            };
            let sender = matches!(case, Case::Send | Case::SendAside | Case::Remote) && who == 0;
            let got = if sender { expect } else { recv[n / 2] };
            assert!(n == 0 || got == expect, "{} got {got}", case.metric());
        }
        seconds
    };
    std::thread::scope(|sc| {
        let other = helper_present.then(|| sc.spawn(|| work(1)));
        let t = work(0);
        if let Some(h) = other {
            h.join().unwrap();
        }
        t
    })
}

/// Process 1: receives the cross-process case's messages on its endpoint of `world` when
/// process 0's control messages say so, sleeping in between, until the last control message.
fn receiver(world: EP_Comm) {
    let double = unsafe { sys::RSMPI_DOUBLE };
    loop {
        let mut flag = 0;
        unsafe { sys::MPI_Iprobe(0, CONTROL_TAG, HOST.comm_world, &mut flag, HOST.status_ignore) };
        if flag == 0 {
            std::thread::sleep(Duration::from_millis(2));
            continue;
        }
        let mut control = [0i64; 2];
        let buf = control.as_mut_ptr() as *mut c_void;
        unsafe { sys::MPI_Recv(buf, 16, HOST.byte, 0, CONTROL_TAG, HOST.comm_world, HOST.status_ignore) };
        let [bytes, iters] = control;
        if bytes == 0 {
            return;
        }
        let n = bytes as usize / 8;
        let mut recv = vec![0.0f64; n];
        let r = recv.as_mut_ptr() as *mut c_void;
        // The warm-up message, then the timed ones, then the reply that ends the timing.
        for _ in 0..=iters {
            let rc = unsafe { EP_Recv(r, n as i32, double, 0, 0, world, std::ptr::null_mut()) };
            assert_eq!(rc, 0);
        }
        assert_eq!(unsafe { EP_Send(std::ptr::null(), 0, double, 0, 1, world) }, 0);
        assert!(n == 0 || (recv[0] == 1.0 && recv[n / 2] == 1.0 && recv[n - 1] == 1.0), "cross-process data");
    }
}

fn child() {
    let mut provided = 0;
    unsafe { sys::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), HOST.thread_multiple, &mut provided) };
    let mut rank = 0;
    unsafe { sys::MPI_Comm_rank(HOST.comm_world, &mut rank) };
    let mut world = [EP_COMM_NULL; 2];
    let here = if rank == 0 { 2 } else { 1 };
    unsafe { EP_Comm_create_endpoints(HOST.comm_world, here, HOST.info_null, world.as_mut_ptr()) };
    if rank != 0 {
        receiver(world[0]);
        unsafe {
            EP_Comm_free(&mut world[0]);
            sys::MPI_Finalize()
        };
        return;
    }
    let mut comms = Comms { lone: EP_COMM_NULL, pair: [EP_COMM_NULL; 2], world };
    unsafe {
        EP_Comm_create_endpoints(HOST.comm_self, 1, HOST.info_null, &mut comms.lone);
        EP_Comm_create_endpoints(HOST.comm_self, 2, HOST.info_null, comms.pair.as_mut_ptr());
    }
    let sizes: Vec<u64> =
        common::sizes::sizes(&[16 << 20], 8, 1 << 30).into_iter().filter(|s| s.is_multiple_of(8)).collect();
    let items: Vec<(Case, u64)> =
        [Case::Send, Case::SendAside, Case::AllreduceLone, Case::AllreducePair, Case::Remote]
            .iter()
            .flat_map(|&c| sizes.iter().map(move |&s| (c, s)))
            .collect();
    let methods: [(&str, Members); 3] = [("EP, no team", 0), ("EP, team of 1", 1), ("EP, team of 2", 2)];
    let rows = common::interleaved(&methods, items.len(), |&members, i| {
        let (case, bytes) = items[i];
        (0..common::sizes::reps_per_round()).map(|_| repetition(&comms, case, members, bytes)).collect()
    });
    let mut rec = Recorder::new("teams", common::world_size());
    for (method, times) in rows.iter() {
        for ((case, bytes), t) in items.iter().zip(times) {
            rec.add_us(case.metric(), method, *bytes, XUnit::Bytes, t);
        }
    }
    rec.finish();
    // Medians, and best repetitions: on a loaded machine the best are those least disturbed.
    println!("\n| metric | size | team of 1 / no team | team of 2 / no team | best of 2 / best of none |");
    println!("|---|---|---|---|---|");
    for (i, (case, bytes)) in items.iter().enumerate() {
        let median = |m: usize| stats(&rows[m].1[i]).0;
        let best = |m: usize| stats(&rows[m].1[i]).1;
        let (m0, m1, m2) = (median(0), median(1), median(2));
        println!("| {} | {} | {:.2}x | {:.2}x | {:.2}x |", case.metric(), bytes, m1 / m0, m2 / m0, best(2) / best(0));
    }
    let mut load = String::new();
    if let Ok(l) = std::fs::read_to_string("/proc/loadavg") {
        load = l.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    }
    println!("load average at the end: {load}");
    let mut c = comms.lone;
    unsafe {
        EP_Comm_free(&mut c);
        for mut p in comms.pair {
            EP_Comm_free(&mut p);
        }
    }
    let end = [0i64; 2];
    unsafe { sys::MPI_Send(end.as_ptr() as *const c_void, 16, HOST.byte, 1, CONTROL_TAG, HOST.comm_world) };
    for mut w in comms.world {
        unsafe { EP_Comm_free(&mut w) };
    }
    unsafe { sys::MPI_Finalize() };
}

fn main() {
    common::main_with(child, Duration::from_secs(900));
}

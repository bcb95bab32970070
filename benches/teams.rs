//! Endpoint teams (docs/teams.md): the same large operation without a team, with a team of one
//! (the caller alone: what joining costs) and with a team of two (a second thread shares the
//! work), side by side in one run, on process 0 of 2 (process 1 sleeps):
//! * `same-process send`: endpoint 0 sends to endpoint 1 of the same process (`EP_Send` /
//!   `EP_Recv`); the receiver's single copy is shared with the team (in the team of two, the
//!   sender waiting in `EP_Send` takes half);
//! * `Allreduce, 1 endpoint`: one thread reduces (sum of doubles) on a communicator where it is
//!   alone, the proposal's Example 1: the copy of its input into its output is shared with a
//!   helper thread waiting in `EP_Endpoint_leave` (without a team the helper is not there);
//! * `Allreduce, 2 endpoints`: two endpoints of one process reduce; the fold of their inputs is
//!   shared with the other endpoint's thread when both are in the team.
//!
//! The striped cross-process send of docs/teams.md is not implemented, so it is not measured.
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
    AllreduceLone,
    AllreducePair,
}

impl Case {
    fn metric(self) -> &'static str {
        match self {
            Case::Send => "same-process send",
            Case::AllreduceLone => "Allreduce, 1 endpoint",
            Case::AllreducePair => "Allreduce, 2 endpoints",
        }
    }
}

/// Members of the team: 0 (no team), 1 (the caller) or 2 (the caller and a second thread).
type Members = usize;

struct Comms {
    lone: EP_Comm,
    pair: [EP_Comm; 2],
}

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
    let helper_present = !matches!(case, Case::AllreduceLone) || members == 2;
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
                (Case::AllreduceLone, _) => EP_Allreduce(s, r, count, double, sum, comms.lone),
                (Case::AllreducePair, w) => EP_Allreduce(s, r, count, double, sum, comms.pair[w]),
            }
        };
        let lone_helper = matches!(case, Case::AllreduceLone) && who == 1;
        // Every member is in before the first call, so the calls timed find their helpers.
        start.wait();
        let mut seconds = 0.0;
        if !lone_helper {
            assert_eq!(call(), 0);
            if !matches!(case, Case::AllreduceLone) {
                unsafe { EP_Barrier(comms.pair[who]) };
            }
            let t = Instant::now();
            for _ in 0..iters {
                assert_eq!(call(), 0);
            }
            seconds = t.elapsed().as_secs_f64() / iters as f64;
        }
        leave(team);
        if !lone_helper {
            let expect = match case {
                Case::Send => 1.0,
                Case::AllreduceLone => 1.0,
                Case::AllreducePair => 3.0,
            };
            let got = if matches!(case, Case::Send) && who == 0 { expect } else { recv[n / 2] };
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

fn child() {
    let mut provided = 0;
    unsafe { sys::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), HOST.thread_multiple, &mut provided) };
    let mut rank = 0;
    unsafe { sys::MPI_Comm_rank(HOST.comm_world, &mut rank) };
    if rank != 0 {
        common::idle_until_done();
        unsafe { sys::MPI_Finalize() };
        return;
    }
    let mut comms = Comms { lone: EP_COMM_NULL, pair: [EP_COMM_NULL; 2] };
    unsafe {
        EP_Comm_create_endpoints(HOST.comm_self, 1, HOST.info_null, &mut comms.lone);
        EP_Comm_create_endpoints(HOST.comm_self, 2, HOST.info_null, comms.pair.as_mut_ptr());
    }
    let sizes: Vec<u64> =
        common::sizes::sizes(&[16 << 20], 8, 1 << 30).into_iter().filter(|s| s.is_multiple_of(8)).collect();
    let items: Vec<(Case, u64)> =
        [Case::Send, Case::AllreduceLone, Case::AllreducePair]
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
    common::release_idle();
    unsafe { sys::MPI_Finalize() };
}

fn main() {
    common::main_with(child, Duration::from_secs(900));
}

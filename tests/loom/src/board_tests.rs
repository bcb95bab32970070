//! Models of the collective board (`src/engine/coll/board.rs`): the endpoints of one process
//! arrive, the leader (local index 0) combines their arguments into the scratch space and
//! releases them, every endpoint reads its result (and, in collectives that hold, another
//! endpoint's buffer), and the same board carries the next collectives. loom reports a data
//! race if the leader could touch the scratch space, or an endpoint its buffer, while another
//! endpoint still reads it, and the sums below catch a collective mixing with the next one.
//!
//! Two endpoints only. With three, loom 0.7 never finishes: while the leader is delayed, the
//! two others spinning on the release may take turns forever (after a yield loom switches to
//! any other runnable thread without counting a preemption, and each turn is a new path), so
//! even one collective at a preemption bound of 1 exceeds any branch limit. The three-slot
//! cases (the leader's loop over several arrivals, several readers of the scratch space) are
//! the same code as with two; the board's own tests run four threads for real.

use crate::board::{Board, Kind};
use crate::error::EpResult;
use crate::tests::model;
use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;

/// One collective of the sequence every endpoint runs.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// [`Board::run`]: the leader sums every endpoint's input into the scratch space, each
    /// endpoint reads the sum; with `hold`, each endpoint also reads its right neighbour's
    /// input in its `after` part (as collectives that copy straight out of another
    /// endpoint's buffer do), which is safe only because nobody returns before all are done.
    Run { hold: bool },
    /// [`Board::exchange`]: every endpoint sums every endpoint's inline input of
    /// `words[me]` words (at most 32; 1: one input line; 8: 64 bytes, two lines, each stamped
    /// on its own; 29: 232 bytes, five lines, which a reader awaits by their first and last
    /// lines). Uneven lengths take the paths of a reader whose input is shorter or longer than
    /// a peer's.
    Exchange { words: [u64; 2] },
    /// [`Board::barrier`] (no data, the header line only).
    Barrier,
    /// A broadcast through the exchange: endpoint `root` publishes its input and leaves at
    /// once ([`Arrival::depart`](crate::board::Arrival::depart)), the other reads the root's
    /// input alone (`meet_one`). Its next exchange must not overwrite that input before the
    /// reader is done.
    Bcast { root: usize },
    /// [`Op::Bcast`] of 64 bytes, two input lines: the root writes them last line first and
    /// the reader polls the first line alone, then reads the second on the strength of its
    /// stamp.
    WideBcast { root: usize },
    /// A broadcast too long for an input: endpoint `root` stages 16 bytes in a buffer of its
    /// own and leaves at once ([`Board::stage`]), the other reads them
    /// ([`crate::board::Arrival::meet_staged`]). Its next stage must not overwrite them before
    /// the reader is done.
    Staged { root: usize },
    /// An all-to-all whose endpoints all stage 16 bytes ([`Board::stage_as`]) and read every
    /// endpoint's, their own included ([`crate::board::Arrival::read_staged`]), then leave:
    /// the one that has read everything goes on while the other may still be reading, so its
    /// next stage in the same place must wait for that reader.
    StagedAll,
    /// Endpoint 0 stages a broadcast as its root where endpoint 1 stages an all-to-all (another
    /// collective at the same point): endpoint 1 gets the mismatch error from the stamp of
    /// endpoint 0's data instead of taking it for its block; the root leaves as roots do.
    StagedKindMismatch,
    /// Endpoint 0 stages a broadcast where endpoint 1 reads an inline one, then the reverse
    /// (a count that differs between them, so that they chose different paths): endpoint 1
    /// gets the mismatch error each time instead of a hang.
    StagedMismatch,
    /// Endpoint 1 enters a barrier while the others exchange: everyone gets the mismatch error
    /// (the exchange from the peer's header, once its wait drags on) instead of a hang.
    ExchangeMismatch,
    /// [`Board::run`] with endpoint 1 calling a different collective than the others: every
    /// endpoint gets the leader's error (and the board goes on working).
    RunMismatch,
    /// [`Board::run_or_copy`]: every endpoint's ballot is its input and whether it offers its
    /// buffer (`offer[me]`); the decision checks that each ballot is this collective's (a
    /// ballot of the collective before or after would change it for one endpoint only) and
    /// copies when everyone offers: each endpoint then reads its right neighbour's buffer,
    /// which is safe only because nobody returns before all have copied. Otherwise the
    /// leader's sum, as [`Op::Run`].
    Copy { offer: [bool; 2] },
    /// Endpoint 1 calls [`Board::run`] where endpoint 0 calls [`Board::run_or_copy`] for the
    /// same collective: both get the mismatch error instead of waiting for each other.
    CopyMismatch,
}

/// A ballot's bit saying that its endpoint offers its buffer.
const OFFER: u64 = 1 << 62;

/// An endpoint's user buffer: written by its owner between collectives, read by the leader
/// (and by a neighbour in collectives that hold) during one.
struct Input(UnsafeCell<u64>);

impl Input {
    fn read(&self) -> u64 {
        self.0.with(|p| unsafe { *p })
    }
}

/// What endpoint `me` contributes to collective `round`.
fn value(me: usize, round: usize) -> u64 {
    (10 * round + me + 1) as u64
}

/// Fills a staging op's 16 bytes for value `v`: `v` and `v + 1`.
fn pair(v: u64) -> impl FnOnce(&mut [u8]) -> EpResult<()> {
    move |data| {
        data[..8].copy_from_slice(&v.to_ne_bytes());
        data[8..].copy_from_slice(&(v + 1).to_ne_bytes());
        Ok(())
    }
}

/// Checks that staged `data` is the 16 bytes [`pair`] writes for `v`; `what` names the read.
fn check_pair(data: &[u8], v: u64, what: &str) -> EpResult<()> {
    assert_eq!(data.len(), 16, "{what}: wrong length");
    let got = (u64::from_ne_bytes(data[..8].try_into().unwrap()), u64::from_ne_bytes(data[8..].try_into().unwrap()));
    assert_eq!(got, (v, v + 1), "{what}: wrong data");
    Ok(())
}

/// Endpoint `me` runs `ops` in order and checks every result.
fn endpoint(board: &Board, inputs: &[Input], me: usize, ops: &[Op]) {
    let n = inputs.len();
    let sum = |round: usize| (0..n).map(|i| value(i, round)).sum::<u64>();
    for (round, &op) in ops.iter().enumerate() {
        // A scheduling point of our own before each arrival (see `model`'s caveat on loads
        // before stores: each endpoint loads its own `seq` before storing it).
        thread::yield_now();
        // The user fills the buffer for this collective: this write races with any read of
        // it still running from the previous collective.
        inputs[me].0.with_mut(|p| unsafe { *p = value(me, round) });
        match op {
            Op::Run { hold } => {
                let (mut out, mut neighbour) = (0, 0);
                board
                    .run(
                        me,
                        Kind::Allreduce,
                        &inputs[me],
                        hold,
                        |all, scratch| {
                            let total: u64 = all.iter().map(|input| input.read()).sum();
                            scratch.bytes.resize(8).copy_from_slice(&total.to_ne_bytes());
                            Ok(())
                        },
                        |_, scratch| {
                            out = u64::from_ne_bytes(scratch.bytes.as_ref().try_into().unwrap());
                            if hold {
                                neighbour = inputs[(me + 1) % n].read();
                            }
                            Ok(())
                        },
                    )
                    .unwrap();
                assert_eq!(out, sum(round), "endpoint {me}, collective {round}: wrong sum");
                if hold {
                    assert_eq!(neighbour, value((me + 1) % n, round), "endpoint {me}, collective {round}: neighbour's buffer");
                }
            }
            Op::Exchange { words } => {
                // Word j of an input is the value plus j: a word from another collective or
                // another line's place changes the sums.
                let mine: Vec<u8> = (0..words[me]).flat_map(|j| (inputs[me].read() + j).to_ne_bytes()).collect();
                let mut out = [0u64; 32];
                board
                    .exchange(me, Kind::Allreduce, &mine, |all| {
                        for input in all {
                            for (j, word) in input.chunks(8).enumerate() {
                                out[j] += u64::from_ne_bytes(word.try_into().unwrap());
                            }
                        }
                        Ok(())
                    })
                    .unwrap();
                for (j, &o) in out.iter().enumerate() {
                    let expected: u64 = (0..n).filter(|&i| words[i] > j as u64).map(|i| value(i, round) + j as u64).sum();
                    assert_eq!(o, expected, "endpoint {me}, exchange {round}, word {j}: wrong sum");
                }
            }
            Op::Barrier => board.barrier(me).unwrap(),
            Op::Bcast { root } => {
                if me == root {
                    board.arrive(me, Kind::Bcast, &inputs[me].read().to_ne_bytes()).depart();
                } else {
                    let mut got = 0;
                    board
                        .arrive(me, Kind::Bcast, &[])
                        .meet_one(root, 8, |data| {
                            got = u64::from_ne_bytes(data.try_into().unwrap());
                            Ok(())
                        })
                        .unwrap();
                    assert_eq!(got, value(root, round), "endpoint {me}, broadcast {round}: wrong data");
                }
            }
            Op::WideBcast { root } => {
                let words = |v: u64| (0..8).flat_map(move |j| (v + j).to_ne_bytes()).collect::<Vec<u8>>();
                if me == root {
                    board.arrive(me, Kind::Bcast, &words(inputs[me].read())).depart();
                } else {
                    let mut got = Vec::new();
                    board
                        .arrive(me, Kind::Bcast, &[])
                        .meet_one(root, 64, |data| {
                            got = data.to_vec();
                            Ok(())
                        })
                        .unwrap();
                    assert_eq!(got, words(value(root, round)), "endpoint {me}, broadcast {round}: wrong data");
                }
            }
            Op::Staged { root } => {
                if me == root {
                    let v = inputs[me].read();
                    board.stage(me, 16, pair(v)).unwrap();
                } else {
                    let what = format!("endpoint {me}, broadcast {round}");
                    board.arrive(me, Kind::Bcast, &[]).meet_staged(root, |data| check_pair(data, value(root, round), &what)).unwrap();
                }
            }
            Op::StagedAll => {
                let v = inputs[me].read();
                let (arrival, filled) = board.stage_as(me, Kind::Alltoallv, 16, pair(v));
                filled.unwrap();
                for from in 0..n {
                    let what = format!("endpoint {me}, collective {round}, from {from}");
                    arrival.read_staged(from, |data| check_pair(data, value(from, round), &what)).unwrap();
                }
                arrival.depart();
            }
            Op::StagedKindMismatch => {
                if me == 0 {
                    board.stage(me, 16, pair(1)).unwrap();
                } else {
                    let (arrival, filled) = board.stage_as(me, Kind::Alltoallv, 16, pair(2));
                    filled.unwrap();
                    let e = arrival.read_staged(0, |_| panic!("took a broadcast for an all-to-all's blocks")).expect_err("mismatched collectives succeeded");
                    assert!(e.msg.contains("different collectives"), "endpoint {me}: {}", e.msg);
                    arrival.depart();
                }
            }
            Op::StagedMismatch => {
                if me == 0 {
                    board
                        .stage(me, 8, |data| {
                            data.fill(1);
                            Ok(())
                        })
                        .unwrap();
                    board.arrive(me, Kind::Bcast, &[1; 8]).depart();
                } else {
                    let inline = board.arrive(me, Kind::Bcast, &[]).meet_one(0, 8, |_| panic!("read a staged broadcast inline"));
                    let staged = board.arrive(me, Kind::Bcast, &[]).meet_staged(0, |_| panic!("read an inline broadcast as staged"));
                    for e in [inline, staged] {
                        let e = e.expect_err("mismatched broadcasts succeeded");
                        assert!(e.msg.contains("differ"), "endpoint {me}: {}", e.msg);
                    }
                }
            }
            Op::ExchangeMismatch => {
                let r = if me == 1 {
                    board.barrier(me)
                } else {
                    board.exchange(me, Kind::Allreduce, &[1], |_| panic!("fold despite the mismatch"))
                };
                let e = r.expect_err("mismatched collectives succeeded");
                assert!(e.msg.contains("different collectives"), "endpoint {me}: {}", e.msg);
            }
            Op::Copy { offer } => {
                let (mut out, mut copied, mut summed) = (0, false, 0);
                let ballot = value(me, round) | if offer[me] { OFFER } else { 0 };
                board
                    .run_or_copy(
                        me,
                        Kind::Allgatherv,
                        &inputs[me],
                        ballot,
                        |ballot_of| {
                            for i in 0..n {
                                assert_eq!(ballot_of(i) & !OFFER, value(i, round), "endpoint {me}, collective {round}: ballot {i}");
                            }
                            (0..n).all(|i| ballot_of(i) & OFFER != 0)
                        },
                        |mine, peer| {
                            out = mine.read() + peer((me + 1) % n).read();
                            copied = true;
                            Ok(())
                        },
                        |all, scratch| {
                            let total: u64 = all.iter().map(|input| input.read()).sum();
                            scratch.bytes.resize(8).copy_from_slice(&total.to_ne_bytes());
                            Ok(())
                        },
                        |_, scratch| {
                            summed = u64::from_ne_bytes(scratch.bytes.as_ref().try_into().unwrap());
                            Ok(())
                        },
                    )
                    .unwrap();
                if !copied {
                    out = summed;
                }
                if offer.iter().all(|&o| o) {
                    assert!(copied, "endpoint {me}, collective {round}: every endpoint offered, yet no copy");
                    assert_eq!(out, value(me, round) + value((me + 1) % n, round), "endpoint {me}, collective {round}: copied");
                } else {
                    assert!(!copied, "endpoint {me}, collective {round}: copied without every offer");
                    assert_eq!(out, sum(round), "endpoint {me}, collective {round}: wrong sum");
                }
            }
            Op::CopyMismatch => {
                let r = if me == 1 {
                    board.run(me, Kind::Allgatherv, &inputs[me], false, |_, _| panic!("leader's part despite the mismatch"), |_, _| {
                        panic!("after part despite the mismatch")
                    })
                } else {
                    board.run_or_copy(
                        me,
                        Kind::Allgatherv,
                        &inputs[me],
                        OFFER,
                        |_| true,
                        |_, _| panic!("copies despite the mismatch"),
                        |_, _| panic!("leader's part despite the mismatch"),
                        |_, _| panic!("after part despite the mismatch"),
                    )
                };
                let e = r.expect_err("mismatched paths succeeded");
                assert!(e.msg.contains("different paths"), "endpoint {me}: {}", e.msg);
            }
            Op::RunMismatch => {
                let kind = if me == 1 { Kind::Bcast } else { Kind::Allreduce };
                let r = board.run(me, kind, &inputs[me], false, |_, _| panic!("leader's part despite the mismatch"), |_, _| {
                    panic!("after part despite the mismatch")
                });
                let e = r.expect_err("mismatched collectives succeeded");
                assert!(e.msg.contains("different collectives"), "endpoint {me}: {}", e.msg);
            }
        }
    }
    // The collectives are over: the buffer is the user's again.
    inputs[me].0.with_mut(|p| unsafe { *p = 0 });
}

/// Preemption bound of the board models: beyond 12 no new interleaving appears (25 explores
/// the same number, in about a second), so within loom's reduction the exploration is complete.
const BOARD_PREEMPTIONS: usize = 12;

/// `n` endpoints (the leader on the model's main thread, the others spawned) run `ops` on one
/// board, in every interleaving loom finds within [`BOARD_PREEMPTIONS`].
fn board_model(n: usize, ops: &'static [Op]) {
    board_model_bounded(n, ops, BOARD_PREEMPTIONS)
}

/// [`board_model`] within `bound` preemptions.
fn board_model_bounded(n: usize, ops: &'static [Op], bound: usize) {
    model(bound, move || {
        let board = Arc::new(Board::new(n));
        let inputs: Arc<Vec<Input>> = Arc::new((0..n).map(|_| Input(UnsafeCell::new(0))).collect());
        let others: Vec<_> = (1..n)
            .map(|me| {
                let (board, inputs) = (board.clone(), inputs.clone());
                thread::spawn(move || endpoint(&board, &inputs, me, ops))
            })
            .collect();
        endpoint(&board, &inputs, 0, ops);
        for t in others {
            t.join().unwrap();
        }
    });
}

/// Two collectives in a row on two endpoints: the second reuses the slots, the release
/// counter and the scratch space of the first.
#[test]
fn loom_board_two_collectives() {
    board_model(2, &[Op::Run { hold: false }, Op::Run { hold: false }]);
}

/// A collective that holds (its `after` parts read another endpoint's buffer) between two
/// that do not: nobody may refill its buffer before the others have read it.
#[test]
fn loom_board_hold() {
    board_model(2, &[Op::Run { hold: true }, Op::Run { hold: false }]);
}

/// Inputs of one word each (one line).
const NARROW: Op = Op::Exchange { words: [1, 1] };

/// Three leaderless exchanges: the third reuses the first one's half of the double buffer,
/// which is safe only once every endpoint has arrived at the second.
#[test]
fn loom_board_exchanges_reuse_buffers() {
    board_model(2, &[NARROW, NARROW, NARROW]);
}

/// Inputs of two lines, each line's data under its own stamp, then inputs of one and two
/// lines; the third collective reuses the first one's half of the double buffer. A barrier
/// in the middle: three wide exchanges take loom longer than the test suite can wait, and
/// so does a preemption bound above 5 here (`EPMPI_LOOM_WIDE_BOUND` sets another).
#[test]
fn loom_board_wide_exchanges_reuse_buffers() {
    let bound = std::env::var("EPMPI_LOOM_WIDE_BOUND").ok().and_then(|b| b.parse().ok()).unwrap_or(5);
    board_model_bounded(2, &[Op::Exchange { words: [8, 8] }, Op::Barrier, Op::Exchange { words: [1, 8] }], bound);
}

/// Inputs of five lines, awaited by their first and last lines only (the others are read on
/// the strength of the last line's stamp), then inputs of one and five lines: a reader
/// expecting one line meets a longer input, and one expecting five meets a shorter one.
#[test]
fn loom_board_long_exchanges_awaited_at_their_ends() {
    board_model_bounded(2, &[Op::Exchange { words: [29, 29] }, Op::Barrier, Op::Exchange { words: [1, 29] }], 4);
}

/// Broadcasts of two lines whose root runs ahead of its reader: the third reuses the first
/// one's lines, which the reader may still be reading.
#[test]
fn loom_board_wide_broadcasts_run_ahead() {
    board_model(2, &[Op::WideBcast { root: 0 }, Op::WideBcast { root: 0 }, Op::WideBcast { root: 0 }]);
}

/// Staged broadcasts whose root leaves at once and runs ahead of its reader: the third reuses
/// the first one's staging buffer, which the reader may still be reading.
#[test]
fn loom_board_staged_broadcasts_run_ahead() {
    board_model(2, &[Op::Staged { root: 0 }, Op::Staged { root: 0 }, Op::Staged { root: 0 }]);
}

/// A staged broadcast, an exchange that reuses nothing of it but must still see the reader
/// done, then a staged broadcast from the other endpoint.
#[test]
fn loom_board_staged_broadcast_then_exchange() {
    board_model(2, &[Op::Staged { root: 1 }, NARROW, Op::Staged { root: 0 }]);
}

/// All-to-alls whose every endpoint stages its data and reads everyone's, in a row, each
/// place used twice: the endpoint that has read everything goes on while the other still
/// reads. Within 6 preemptions (the full bound takes two minutes here).
#[test]
fn loom_board_staged_exchanges_in_a_row() {
    board_model_bounded(2, &[Op::StagedAll, Op::StagedAll, Op::StagedAll], 6);
}

/// Two staged broadcasts whose root runs ahead, then a staged all-to-all whose stage reuses the
/// first broadcast's place, which the reader may still be reading. Within 4 preemptions.
#[test]
fn loom_board_staged_broadcasts_then_staged_exchange() {
    board_model_bounded(2, &[Op::Staged { root: 1 }, Op::Staged { root: 1 }, Op::StagedAll], 4);
}

/// A staged broadcast against a staged all-to-all at the same point fails on the all-to-all's
/// side without a hang, and the board goes on: an exchange follows.
#[test]
fn loom_board_staged_kind_mismatch_then_exchange() {
    board_model(2, &[Op::StagedKindMismatch, NARROW]);
}

/// Broadcasts whose endpoints chose different paths (staged and inline, both ways) fail on the
/// reader without a hang, and the board goes on: an exchange follows.
#[test]
fn loom_board_staged_mismatch_then_exchange() {
    board_model(2, &[Op::StagedMismatch, NARROW]);
}

/// Barriers (header line) between exchanges (input lines): each sees the other's arrivals.
#[test]
fn loom_board_barriers_and_exchanges() {
    board_model(2, &[Op::Barrier, NARROW, Op::Barrier, NARROW]);
}

/// Broadcasts whose root leaves at once and runs ahead of its reader (the board's depth less
/// one: 1 in the models): the root's third broadcast reuses the first one's place, which the
/// reader may still be reading.
#[test]
fn loom_board_broadcasts_run_ahead() {
    board_model(2, &[Op::Bcast { root: 0 }, Op::Bcast { root: 0 }, Op::Bcast { root: 0 }]);
}

/// A departed root that goes on into a barrier (whose kind takes the other place of its header)
/// and an exchange that reuses the broadcast's place; then a broadcast from the other endpoint.
/// Within 6 preemptions: the full bound takes over a minute here.
#[test]
fn loom_board_broadcast_ahead_then_barrier_and_exchange() {
    board_model_bounded(2, &[Op::Bcast { root: 0 }, Op::Barrier, NARROW, Op::Bcast { root: 1 }], 6);
}

/// A broadcast's departed root followed by an exchange (which reuses nothing of the
/// broadcast's half, but must still see the reader done), then a broadcast from the other
/// endpoint.
#[test]
fn loom_board_broadcast_then_exchange() {
    board_model(2, &[Op::Bcast { root: 1 }, NARROW, Op::Bcast { root: 0 }]);
}

/// A barrier, a departed root, then a leader round of another kind: the root must not enter
/// the round (overwriting the kind its header keeps for the barrier's parity) while the other
/// endpoint still checks the barrier's kinds.
#[test]
fn loom_board_barrier_broadcast_run() {
    board_model(2, &[Op::Barrier, Op::Bcast { root: 0 }, Op::Run { hold: false }]);
}

/// A departed root followed by a leader round, then a broadcast that reuses its half.
#[test]
fn loom_board_broadcast_then_run() {
    board_model(2, &[Op::Bcast { root: 0 }, Op::Run { hold: false }, Op::Bcast { root: 0 }]);
}

/// An exchange against a barrier: both get the error, and the next exchange works.
#[test]
fn loom_board_exchange_mismatch_then_exchange() {
    board_model(2, &[Op::ExchangeMismatch, NARROW]);
}

/// Exchanges and leader rounds mixed on one board (the library picks per collective).
#[test]
fn loom_board_exchange_then_run() {
    board_model(2, &[NARROW, Op::Run { hold: false }, NARROW]);
}

/// Mismatched collectives: every endpoint gets the leader's error through the board, and
/// the next collective works.
#[test]
fn loom_board_mismatch_then_collective() {
    board_model(2, &[Op::RunMismatch, Op::Run { hold: false }]);
}


/// Direct copies twice, then a leader round: the second copy reuses the slots' arguments and
/// the first one's finished marks; the round must not see the copies' ballots or holds.
#[test]
fn loom_board_copies_then_run() {
    board_model(2, &[Op::Copy { offer: [true, true] }, Op::Copy { offer: [true, true] }, Op::Run { hold: false }]);
}

/// The leader's path (one endpoint does not offer), then copies, then the leader's path:
/// each decision reads this collective's ballots, although a released endpoint may already
/// have published its next one.
#[test]
fn loom_board_copy_ballots_by_parity() {
    board_model(2, &[Op::Copy { offer: [true, false] }, Op::Copy { offer: [true, true] }, Op::Copy { offer: [false, true] }]);
}

/// A departed broadcast root, then copies: the root's copy must not start before the reader
/// is done with the broadcast.
#[test]
fn loom_board_broadcast_then_copies() {
    board_model(2, &[Op::Bcast { root: 0 }, Op::Copy { offer: [true, true] }, NARROW]);
}

/// `run` against `run_or_copy` for one collective: both fail, and the next copies work.
#[test]
fn loom_board_copy_mismatch_then_copies() {
    board_model(2, &[Op::CopyMismatch, Op::Copy { offer: [true, true] }]);
}

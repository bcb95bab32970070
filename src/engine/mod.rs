//! The engine below the C interface: communicators, matching, transports, requests.

pub mod backoff;
pub mod coll;
pub mod comm;
pub mod create;
pub mod datatype;
pub mod direct;
pub mod envelope;
mod fault;
pub mod handle_table;
pub mod host_op;
pub mod inter;
pub mod matching;
pub mod meeting;
pub mod orphanage;
pub mod message;
pub mod p2p;
pub mod pending;
pub mod progress;
pub mod rankmap;
pub mod request;
pub mod spinlock;
pub mod split;
pub mod spsc;
pub mod sync;
pub mod team;
pub mod transport;
pub mod win;

//! The bgammon.org bot account: a client of the server's TCP line protocol (JSON events
//! after `loginjson`) that creates matches and plays them with the engine.
//!
//! [`protocol`] reads the server's events into typed values, [`board`] turns a board event
//! into our position and the decision it asks for, [`client`] runs the account (login,
//! matches, keepalive, recovery, reconnection) and [`metrics`] counts for operators.

pub mod board;
pub mod client;
pub mod metrics;
pub mod protocol;

pub use client::{BgammonError, Bot, BotConfig, BotStats, Timing};

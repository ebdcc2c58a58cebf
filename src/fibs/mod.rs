//! The FIBS bot account: a CLIP client that plays on FIBS-style servers.
//!
//! [`clip`] turns the server's telnet-flavoured byte stream into classified lines,
//! [`config`] holds the account settings and the invitation policy, and [`client`] runs
//! the account: login, settings, invitations, the board-driven decision loop, pacing and
//! reconnection. The decisions themselves come from a [`brain::Brain`], which runs any
//! [`crate::players::Decide`] on a worker pool.

pub mod brain;
pub mod client;
pub mod clip;
pub mod config;
pub mod metrics;
pub mod watchdog;

pub use brain::{Brain, BrainError};
pub use client::{run_accounts, Client, ClientStats, FibsError, Password, Stop};
pub use config::{FibsConfig, InvitePolicy};

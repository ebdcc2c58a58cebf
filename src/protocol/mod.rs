//! Wire protocols as pure functions: parse a line into a request, format a decision into a
//! reply. No I/O here; [`crate::server`] and the UBGI command do the reading and writing.
//!
//! - [`lines`]: bounded line splitting with gnubg's `\n` + NUL terminator;
//! - [`gnubg`]: gnubg's external-player replies and its external-interface requests;
//! - [`ubgi`]: the Universal Backgammon Interface (stdin/stdout engine protocol).

pub mod gnubg;
pub mod lines;
pub mod tavli;
pub mod ubgi;

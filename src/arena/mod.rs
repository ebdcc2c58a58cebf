//! Games between engines: the referee and engines reached over sockets.

pub mod referee;
pub mod socket;

pub mod arena;
pub mod bench;
pub mod cli;
pub mod eval;
pub mod fibs;
pub mod game;
pub mod notation;

pub mod bench;
pub mod cli;
pub mod cube;
pub mod eval;
pub mod game;
pub mod notation;

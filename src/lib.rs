pub mod bench;
pub mod cli;
pub mod cube;
pub mod engine;
pub mod eval;
pub mod game;
pub mod notation;
pub mod protocol;

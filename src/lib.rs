pub mod arena;
pub mod bench;
pub mod cli;
pub mod eval;
pub mod game;
pub mod search;
pub mod train;

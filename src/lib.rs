//! Stargammon: a backgammon bot server. The modules below are layers, listed from the
//! bottom up; each imports only from the ones listed before it (`tests/layers.rs` checks
//! this on every test run). ARCHITECTURE.md maps them file by file.
//!
//! | layer | what it holds |
//! |---|---|
//! | [`game`] | the rules: positions, dice, legal plays, match state |
//! | [`notation`] | text around the rules: moves, gnubg ids, XGID, FIBS boards |
//! | [`tavli`] | Portes, Plakoto, Fevga: positions, legal plays, game end, notation |
//! | [`eval`] | evaluators: the nets, pubeval, a pip sigmoid, deterministic noise |
//! | [`cube`] | match equity, cubeful equity, double and take decisions |
//! | [`search`] | Expectimax, Star1, Star2, the transposition table, the worker pool |
//! | [`engine`] | the facade ("what do I do here?"), [`engine::EngineSpec`] and its builder |
//! | [`rollout`] | rollouts: games played out from a position or from each play of a roll |
//! | [`analysis`] | match files replayed and every decision scored (errors, rating, luck) |
//! | [`protocol`] | gnubg and UBGI lines: parse requests, format replies (no I/O) |
//! | [`config`] | the server's TOML configuration, environment overrides of any config file |
//! | [`players`] | the one decision trait, [`players::Decide`], and every player |
//! | [`arena`] | playing games: duels, the referee, engines over sockets |
//! | [`train`] | TD(lambda) self-play |
//! | [`server`] | the tokio server and its operator's log (games, latencies) |
//! | [`http`] | the HTTP/JSON API, `/metrics` and the board page (axum) |
//! | [`fibs`] | the FIBS bot |
//! | [`mod@bench`] | benchmark kernels |
//! | [`cli`] | one module per subcommand |

pub mod analysis;
pub mod arena;
pub mod bench;
pub mod cli;
pub mod config;
pub mod cube;
pub mod engine;
pub mod eval;
pub mod fibs;
pub mod game;
pub mod http;
pub mod notation;
pub mod players;
pub mod protocol;
pub mod rollout;
pub mod search;
pub mod server;
pub mod tavli;
pub mod train;

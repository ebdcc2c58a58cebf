//! Stargammon: a backgammon bot server, and the library it is built from. The library
//! knows the rules of backgammon and of the Greek Tavli games, reads and writes the usual
//! notations (moves, gnubg's Position and Match IDs, XGID, FIBS boards), evaluates
//! positions with neural nets, searches with expectimax and its pruned Star1/Star2 forms,
//! makes cube decisions, rolls out and analyses matches, and speaks gnubg's socket
//! protocols, UBGI, an HTTP/JSON API and FIBS as a client. The modules below are layers,
//! listed from the bottom up: the rules and their notation first; evaluation, the cube,
//! search and the engine facade built on them; rollouts and match analysis, which use an
//! engine; the wire formats as pure functions and the configuration; the players and the
//! arena where they meet; training; and last the servers (TCP, HTTP, FIBS), benchmarks and
//! the command line. Each imports only from the ones listed before it
//! (`tests/layers.rs` checks this on every test run); ARCHITECTURE.md maps them file by
//! file, and docs/protocols.md and docs/cli.md describe the protocols and commands.
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
//!
//! # Examples
//!
//! A position from a gnubg Position ID (the checkers, seen by the player on roll) or from
//! an XGID (the whole state: cube, score, dice):
//!
//! ```
//! use stargammon::game::{Decision, Dice, Position};
//! use stargammon::notation::{decode_position_id, Xgid};
//!
//! assert_eq!(decode_position_id("4HPwATDgc/ABMA")?, Position::OPENING);
//! let xgid = Xgid::parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10")?;
//! let state = xgid.to_match_state()?;
//! assert_eq!(state.position, Position::OPENING);
//! assert_eq!(state.decision, Decision::Move(Dice::new(5, 2)?));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The legal plays of a roll, written in gnubg's notation:
//!
//! ```
//! use stargammon::game::{legal_plays, Dice, Position};
//! use stargammon::notation::{format_play, MoveStyle};
//!
//! let plays = legal_plays(&Position::OPENING, Dice::new(6, 4)?);
//! let texts: Vec<String> = plays
//!     .iter()
//!     .map(|p| format_play(&Position::OPENING, p, MoveStyle::Gnubg))
//!     .collect();
//! assert_eq!(plays.len(), 14);
//! assert!(texts.iter().any(|t| t == "24/14"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The shipped nets' evaluation of a position: the five probabilities (win, win gammon,
//! win backgammon, lose gammon, lose backgammon) of the side to act, before it rolls:
//!
//! ```
//! use stargammon::eval::Evaluator;
//! use stargammon::game::Position;
//!
//! let nets = stargammon::engine::build::nets(None)?;
//! let p = nets.evaluate(&Position::OPENING);
//! assert!(p.0[0] > 0.5 && p.0[0] < 0.6, "{p:?}");
//! assert!(p.equity() > 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A play chosen by an engine described by a spec, as `stargammon hint --depth 3` and the
//! players of `duel` read them (here the nets with a search to depth 3):
//!
//! ```
//! use stargammon::engine::{build, Action, EngineSpec};
//! use stargammon::game::{Decision, Dice, MatchState, Position};
//! use stargammon::notation::{format_play, MoveStyle};
//! use stargammon::search::Cancel;
//!
//! let spec: EngineSpec = "net,depth=3".parse()?;
//! let engine = build::engine(&spec)?;
//! let state = MatchState::money(Position::OPENING, Decision::Move(Dice::new(3, 1)?));
//! let Action::Move(play) = engine.decide(&state, &Cancel::new())? else {
//!     panic!("a checker play was asked for");
//! };
//! assert_eq!(format_play(&Position::OPENING, &play, MoveStyle::Gnubg), "8/5 6/5");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A short duel: cubeless money games on mirrored dice pairs, as `stargammon duel` plays
//! them:
//!
//! ```
//! use stargammon::arena::{duel, DuelConfig};
//! use stargammon::players::{build, BuildOptions, PlayerSpec};
//!
//! let a = build(&PlayerSpec::parse("net")?, BuildOptions::default())?;
//! let b = build(&PlayerSpec::parse("random")?, BuildOptions::default())?;
//! let config = DuelConfig {
//!     games: 4,
//!     seed: 1,
//!     threads: 1,
//!     progress: false,
//!     // Luck-adjusted results too: every roll's luck judged by the shipped nets.
//!     judge: Some(stargammon::arena::luck::judge("net")?),
//! };
//! let result = duel(&a, &b, &config);
//! assert_eq!((result.games, result.pairs), (4, 2));
//! assert!(result.adjusted.is_some());
//! assert!(result.ppg > 0.0, "the nets lost to random play: {result:?}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod analysis;
pub mod arena;
pub mod bench;
pub mod bgammon;
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
#[doc(hidden)]
pub mod testing;
pub mod train;

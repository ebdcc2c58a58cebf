//! The referee: plays games and matches between two engines under the project's own rules.
//!
//! Engines are only trusted to *answer*: the referee rolls the dice, keeps the board, the
//! cube and the score, asks each side exactly the questions the rules allow (the same ones
//! gnubg asks an external player) and checks every answer against [`crate::game`]. An answer
//! that is not one of the allowed replies, a play that is not legal, or no answer at all
//! forfeits the game for that side; the forfeit is recorded with the request and the reply
//! so it can be reproduced.
//!
//! Dice come from a seeded stream per game (money play) or per match, so a run is
//! reproducible whatever the thread count. Money games are played in mirrored pairs: both
//! games of a pair use the same dice stream with the engines in swapped seats, which
//! cancels most of the luck from a comparison.
//!
//! The parts, all re-exported here:
//! Each side is a [`crate::players::Decide`] (in-process players, or engines over TCP from
//! [`crate::players::socket`]), made per worker by a [`crate::players::MakeDecider`].
//!
//! - `game`: one game ([`play_game`]) or match ([`play_match`]): the table, the dice
//!   streams and the records;
//! - `cube`: the cube dialogue of a turn (double, take or drop);
//! - `tally`: a series' running totals, points per game and their interval
//!   ([`crate::arena::stats`]);
//! - `series`: money pairs or matches on worker threads, handed on in order
//!   ([`run_series`]).
//!
//! Matches are written as `.mat` files by [`crate::arena::export`].

mod cube;
mod game;
mod series;
mod tally;
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod testing;

pub use crate::arena::export::write_mat;
pub use game::{
    play_game, play_match, stream_seed, DiceStream, Ending, Event, GameRecord, GameSetup,
    MatchRecord, MAX_CUBE, MAX_DECISIONS,
};
pub use series::{
    judge_unit, play_unit, run_series, run_series_judged, run_series_until, seat_name,
    SeriesConfig, SeriesGame, SeriesKind, SeriesSummary, UnitResult,
};
pub use tally::Tally;
#[cfg(test)]
pub(crate) use testing::FirstPlay;

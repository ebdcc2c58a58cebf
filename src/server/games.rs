//! What the operator's log says about a connection: how many decisions it asked for and how
//! long they took, and, for gnubg's external player, one line per game.
//!
//! gnubg's external-player protocol has no game boundaries: it only sends boards. A game is
//! inferred from them. A board starts a new game when
//! - the match changes (other names or match length), or the score changes: the points
//!   gained name the winner of the game that ended and what it was worth (gnubg's boards
//!   carry a money session's running score as well as a match's);
//! - or it shows the starting position with the dice to play (the bot won the opening
//!   roll) after the current game already had decisions: the game before ended without a
//!   change of score on the boards, so its result is not known.
//!
//! The game in progress when the connection closes is reported then, its result unknown
//! (the last board of a game is the last decision, not the end).

use std::fmt;
use std::time::Duration;

use crate::game::{Decision, MatchState, Position};

/// How many decisions, and their mean and longest time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Latencies {
    pub count: u64,
    pub total: Duration,
    pub max: Duration,
}

impl Latencies {
    pub fn record(&mut self, took: Duration) {
        self.count += 1;
        self.total += took;
        self.max = self.max.max(took);
    }

    /// Mean in milliseconds (0 without decisions).
    pub fn mean_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total.as_secs_f64() * 1000.0 / self.count as f64
        }
    }

    pub fn max_ms(&self) -> f64 {
        self.max.as_secs_f64() * 1000.0
    }
}

impl fmt::Display for Latencies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} decision(s), mean {:.1} ms, max {:.1} ms",
            self.count,
            self.mean_ms(),
            self.max_ms()
        )
    }
}

/// One game as the log reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct GameSummary {
    /// 1 for the connection's first game.
    pub number: u32,
    /// The bot's name on gnubg's boards, then the opponent's.
    pub players: (String, String),
    /// 0 for money play.
    pub match_length: u32,
    /// The bot's score and the opponent's when the game started.
    pub score: (u32, u32),
    /// Who won and how many points, when the boards told.
    pub result: Option<(String, u32)>,
    pub decisions: Latencies,
}

impl GameSummary {
    /// "gnubg won 2 points", or "result not seen".
    pub fn result_text(&self) -> String {
        match &self.result {
            Some((winner, points)) => format!(
                "{winner} won {points} point{}",
                if *points == 1 { "" } else { "s" }
            ),
            None => "result not seen".to_string(),
        }
    }

    /// "money" or "7-point match at 2-3".
    pub fn kind_text(&self) -> String {
        if self.match_length == 0 {
            "money".to_string()
        } else {
            format!(
                "{}-point match at {}-{}",
                self.match_length, self.score.0, self.score.1
            )
        }
    }
}

#[derive(Debug, Clone)]
struct Current {
    summary: GameSummary,
}

/// Infers games from the boards of one connection (see the module docs).
#[derive(Debug, Default)]
pub struct GameTracker {
    current: Option<Current>,
    games: u32,
}

impl GameTracker {
    /// Notes a board about to be decided; returns the game it showed to have ended.
    pub fn board(&mut self, state: &MatchState) -> Option<GameSummary> {
        let players = (state.names.0.clone(), state.names.1.clone());
        let score = (state.score, state.opp_score);
        let opening =
            matches!(state.decision, Decision::Move(_)) && state.position == Position::OPENING;
        let ended = match &mut self.current {
            None => None,
            Some(c) => {
                let g = &c.summary;
                let same_match = g.players == players && g.match_length == state.match_length;
                if !same_match {
                    Some(None)
                } else if score != g.score {
                    let gained_us = score.0.saturating_sub(g.score.0);
                    let gained_them = score.1.saturating_sub(g.score.1);
                    Some(match (gained_us, gained_them) {
                        (p, 0) if p > 0 => Some((g.players.0.clone(), p)),
                        (0, p) if p > 0 => Some((g.players.1.clone(), p)),
                        _ => None,
                    })
                } else if opening && g.decisions.count > 0 {
                    Some(None)
                } else {
                    None
                }
            }
        };
        let finished = match ended {
            Some(result) => self.current.take().map(|c| GameSummary {
                result,
                ..c.summary
            }),
            None => None,
        };
        if self.current.is_none() {
            self.games += 1;
            self.current = Some(Current {
                summary: GameSummary {
                    number: self.games,
                    players,
                    match_length: state.match_length,
                    score,
                    result: None,
                    decisions: Latencies::default(),
                },
            });
        }
        finished
    }

    /// Notes a decision of the game in progress.
    pub fn decided(&mut self, took: Duration) {
        if let Some(c) = &mut self.current {
            c.summary.decisions.record(took);
        }
    }

    /// The game in progress, at the connection's close.
    pub fn finish(&mut self) -> Option<GameSummary> {
        self.current.take().map(|c| c.summary)
    }

    /// Games seen so far (the one in progress included).
    pub fn games(&self) -> u32 {
        self.games
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::Dice;

    fn board(pos: Position, score: (u32, u32), length: u32) -> MatchState {
        let mut s = MatchState::money(pos, Decision::Move(Dice::new(3, 1).unwrap()));
        s.match_length = length;
        s.score = score.0;
        s.opp_score = score.1;
        s.names = ("bot".into(), "gnubg".into());
        s
    }

    #[test]
    fn a_score_change_ends_a_game_and_names_its_winner() {
        let mut t = GameTracker::default();
        let mid = crate::game::legal_plays(&Position::OPENING, Dice::new(3, 1).unwrap())[0]
            .position
            .swap();
        assert_ne!(mid, Position::OPENING);
        assert!(t.board(&board(Position::OPENING, (0, 0), 7)).is_none());
        t.decided(Duration::from_millis(4));
        assert!(t.board(&board(mid, (0, 0), 7)).is_none());
        t.decided(Duration::from_millis(8));
        let g = t.board(&board(mid, (0, 2), 7)).unwrap();
        assert_eq!(g.number, 1);
        assert_eq!(g.result, Some(("gnubg".to_string(), 2)));
        assert_eq!(g.result_text(), "gnubg won 2 points");
        assert_eq!(g.kind_text(), "7-point match at 0-0");
        assert_eq!(g.decisions.count, 2);
        assert_eq!(g.decisions.mean_ms(), 6.0);
        assert_eq!(g.decisions.max_ms(), 8.0);
        t.decided(Duration::from_millis(1));
        let last = t.finish().unwrap();
        assert_eq!((last.number, last.result.clone()), (2, None));
        assert_eq!(last.score, (0, 2));
    }

    #[test]
    fn the_starting_position_starts_a_money_game() {
        let mut t = GameTracker::default();
        assert!(t.board(&board(Position::OPENING, (0, 0), 0)).is_none());
        // The same opening board again without a decision in between is the same game.
        assert!(t.board(&board(Position::OPENING, (0, 0), 0)).is_none());
        t.decided(Duration::from_millis(1));
        let g = t.board(&board(Position::OPENING, (0, 0), 0)).unwrap();
        assert_eq!((g.number, g.result_text()), (1, "result not seen".into()));
        assert_eq!(t.games(), 2);
    }
}

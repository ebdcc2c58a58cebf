//! Turning real-FIBS board lines into commands with any [`Seat`] as the decision-maker.
//!
//! The board is read with [`crate::notation::fibs_board`] in [`Convention::Fibs`]; a board
//! needs an answer only when the acting side is the bot and there is a decision (a move with
//! checkers to move, a roll-or-double question, a pending double). The seat's answer is
//! checked once more against the rules before it becomes a command: a move must be one of
//! the legal plays of the board and is written in FIBS absolute numbers (`move 8-5 6-5`,
//! `bar-22`, `6-off`), a double only when the board gives the bot the cube.

use crate::arena::referee::{Reply, Seat};
use crate::engine::{Action, Engine, Work};
use crate::game::{legal_plays, Decision, Play, Position};
use crate::notation::fibs_board::{Convention, FibsBoard, FibsSeat};
use crate::notation::{format_play, FibsOrientation, MoveStyle};
use crate::search::Cancel;

use super::client::{Brain, BrainError};

/// A [`Brain`] that asks a [`Seat`] and, for resignations, an optional engine.
pub struct SeatBrain<S: Seat> {
    seat: S,
    judge: Option<Engine>,
}

impl<S: Seat> std::fmt::Debug for SeatBrain<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeatBrain")
            .field("seat", &self.seat.name())
            .field("judge", &self.judge.as_ref().map(|j| j.decider_name()))
            .finish()
    }
}

impl<S: Seat> SeatBrain<S> {
    /// Decisions from `seat`; resignations judged by `judge` (without one, only an offer
    /// of the most the position could still give is accepted).
    pub fn new(seat: S, judge: Option<Engine>) -> SeatBrain<S> {
        SeatBrain { seat, judge }
    }
}

/// Writes a play in FIBS absolute numbers for a player sitting at `seat`, one sub-move per
/// die in an order the server can apply.
pub fn fibs_move_text(before: &Position, play: &Play, seat: FibsSeat) -> String {
    let o = FibsOrientation::from_direction(seat.direction as i32);
    format_play(before, play, MoveStyle::Fibs(o))
}

/// The most a side can still win from `pos` (its view) at cube value 1: 1 once the
/// opponent has borne off a checker, else up to a backgammon.
fn most_points(pos: &Position) -> f64 {
    if pos.opp_off() > 0 {
        1.0
    } else {
        3.0
    }
}

impl<S: Seat> Brain for SeatBrain<S> {
    fn on_board(&mut self, line: &str) -> Result<Option<String>, BrainError> {
        let board = FibsBoard::parse(line).map_err(|e| BrainError(e.to_string()))?;
        let state = board
            .to_match_state(Convention::Fibs)
            .map_err(|e| BrainError(e.to_string()))?;
        if state.acting_player != 0 {
            return Ok(None);
        }
        let seat = board.seat();
        match state.decision {
            Decision::GameOver | Decision::BeaverAnswer => Ok(None),
            Decision::Move(dice) => {
                let plays = legal_plays(&state.position, dice);
                if plays.iter().all(|p| p.steps().is_empty()) {
                    return Ok(None);
                }
                let chosen = if plays.len() == 1 {
                    plays[0]
                } else {
                    match self.seat.act(&state) {
                        Ok(Reply::Move(p)) => p,
                        Ok(other) => {
                            return Err(BrainError(format!("asked for a move, got {other}")))
                        }
                        Err(e) => return Err(BrainError(e.to_string())),
                    }
                };
                if !plays.iter().any(|p| p.position == chosen.position) {
                    return Err(BrainError(format!("{chosen:?} is not a legal play here")));
                }
                Ok(Some(format!(
                    "move {}",
                    fibs_move_text(&state.position, &chosen, seat)
                )))
            }
            Decision::DoubleOrRoll => {
                if !state.may_double {
                    return Ok(Some("roll".into()));
                }
                match self.seat.act(&state) {
                    Ok(Reply::Double) => Ok(Some("double".into())),
                    Ok(Reply::Roll) => Ok(Some("roll".into())),
                    Ok(other) => Err(BrainError(format!("asked double or roll, got {other}"))),
                    Err(e) => Err(BrainError(e.to_string())),
                }
            }
            Decision::TakeOrDrop => match self.seat.act(&state) {
                Ok(Reply::Take) => Ok(Some("accept".into())),
                Ok(Reply::Drop) => Ok(Some("reject".into())),
                Ok(other) => Err(BrainError(format!("asked take or drop, got {other}"))),
                Err(e) => Err(BrainError(e.to_string())),
            },
        }
    }

    fn accept_resignation(&mut self, line: &str, points: u32) -> bool {
        let Ok(board) = FibsBoard::parse(line) else {
            return false;
        };
        let Ok(state) = board.to_match_state(Convention::Fibs) else {
            return false;
        };
        if let Some(engine) = &self.judge {
            // The engine values the offer against playing on, from the acting side; when
            // the opponent is acting, ask from our side with the opponent to roll.
            let ours = if state.acting_player == 0 {
                state.clone()
            } else {
                let mut s = state.clone();
                s.position = state.position.swap();
                s.decision = Decision::TakeOrDrop;
                s.cube_owner = state.cube_owner.swap();
                std::mem::swap(&mut s.score, &mut s.opp_score);
                std::mem::swap(&mut s.may_double, &mut s.opp_may_double);
                s.acting_player = 0;
                s.names = (state.names.1.clone(), state.names.0.clone());
                s
            };
            // The engine wants the offer per cube: 1 single, 2 gammon, 3 backgammon.
            let level = (points / state.cube.max(1)).clamp(1, 3);
            return matches!(
                engine.run(&Work::Resignation(ours, level), &Cancel::new()),
                Ok(crate::engine::Outcome::Action(Action::AcceptResignation))
            );
        }
        let our_view = if state.acting_player == 0 {
            state.position
        } else {
            state.position.swap()
        };
        points as f64 >= most_points(&our_view) * state.cube as f64
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::arena::referee::FirstPlaySeat;

    const FIRST_PLAY: FirstPlaySeat = FirstPlaySeat {
        at_roll: Reply::Double,
    };

    const O_62: &str = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
    const X_45: &str = "board:You:gnubot:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:4:5:0:0:1:1:1:0:-1:1:25:0:0:0:0:0:2:0:0:0";

    #[test]
    fn moves_are_written_in_absolute_numbers_for_either_colour() {
        let mut b = SeatBrain::new(FIRST_PLAY, None);
        let o = b.on_board(O_62).unwrap().unwrap();
        let x = b.on_board(X_45).unwrap().unwrap();
        assert!(o.starts_with("move "), "{o}");
        assert!(x.starts_with("move "), "{x}");
        // O moves down the board numbers, X up.
        for part in o[5..].split_whitespace() {
            let (a, c) = part.split_once('-').unwrap();
            assert!(a.parse::<u8>().unwrap() > c.parse::<u8>().unwrap(), "{o}");
        }
        for part in x[5..].split_whitespace() {
            let (a, c) = part.split_once('-').unwrap();
            assert!(a.parse::<u8>().unwrap() < c.parse::<u8>().unwrap(), "{x}");
        }
    }

    #[test]
    fn the_opponents_turn_needs_no_answer() {
        // O_62 with the turn given to X and X's dice set.
        let theirs = O_62.replace(":0:1:6:2:0:0:1:", ":0:-1:0:0:6:2:1:");
        let mut b = SeatBrain::new(FIRST_PLAY, None);
        assert_eq!(b.on_board(&theirs).unwrap(), None);
        assert!(b.on_board("board:bad").is_err());
    }

    #[test]
    fn resignations_without_an_evaluator_need_the_most_points() {
        let mut b = SeatBrain::new(FIRST_PLAY, None);
        assert!(!b.accept_resignation(O_62, 1));
        assert!(b.accept_resignation(O_62, 3));
    }
}

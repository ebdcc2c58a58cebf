//! Replaying a match file's games through the rules: every action is checked (turn order,
//! legal plays, cube access) and becomes a decision with the full match state it was
//! taken in.

use std::fmt;

use crate::game::{legal_plays, Decision, Dice, MatchState, Play, Position, Rules, SeatTable};
use crate::notation::match_file::{ActionText, MatchText};
use crate::notation::{parse_move, MoveStyle};

/// What a player decided, with the state (from the acting side's view) it was decided in.
#[derive(Debug, Clone)]
pub enum Choice {
    /// A checker play of `dice`; `legal` is how many distinct plays there were.
    Checker {
        state: MatchState,
        dice: Dice,
        play: Play,
        legal: usize,
        /// The game's first roll (the opening roll, no cube decision before it).
        opening: bool,
    },
    /// Before rolling, with access to the cube: doubled or not.
    Cube { state: MatchState, doubled: bool },
    /// Answer to a double: took or dropped.
    Response { state: MatchState, took: bool },
}

/// One decision of a replayed game.
#[derive(Debug, Clone)]
pub struct Replayed {
    /// 1-based number of the file's row (move number) it belongs to.
    pub move_no: usize,
    /// Seat (0 or 1) of the player who decided.
    pub seat: usize,
    pub choice: Choice,
}

/// One replayed game.
#[derive(Debug, Clone)]
pub struct ReplayedGame {
    pub names: [String; 2],
    pub score: [u32; 2],
    pub decisions: Vec<Replayed>,
}

/// Why a game of a file cannot be replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayError {
    /// 1-based game number.
    pub game: usize,
    /// 1-based action number within the game.
    pub action: usize,
    pub reason: String,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game {}, action {}: {}",
            self.game, self.action, self.reason
        )
    }
}

impl std::error::Error for ReplayError {}

struct Table {
    length: u32,
    score: [u32; 2],
    names: [String; 2],
    crawford: bool,
    post_crawford: bool,
    cube: u32,
    owner: Option<usize>,
}

impl Table {
    /// The table as the rules module reads it (the cube is always in use in a match file).
    fn seats(&self) -> SeatTable<'_> {
        SeatTable {
            match_length: self.length,
            score: self.score,
            names: &self.names,
            crawford: self.crawford,
            post_crawford: self.post_crawford,
            cube_in_use: true,
            cube: self.cube,
            owner: self.owner,
            rules: Rules::default(),
        }
    }

    fn may_double(&self, seat: usize) -> bool {
        self.seats().may_double(seat)
    }

    fn state(&self, seat: usize, position: Position, decision: Decision) -> MatchState {
        self.seats().state(seat, position, decision)
    }
}

/// Replays every game of `m`. The Crawford game is the first game played with one side
/// at one point away (files do not mark it).
pub fn replay(m: &MatchText) -> Result<Vec<ReplayedGame>, ReplayError> {
    let mut out = Vec::new();
    let mut crawford_seen = false;
    for (g, game) in m.games.iter().enumerate() {
        let fail = |action: usize, reason: String| ReplayError {
            game: g + 1,
            action,
            reason,
        };
        let at_one = m.length > 0
            && game.score.iter().any(|&s| s + 1 == m.length)
            && !game.score.iter().any(|&s| s >= m.length);
        if m.length > 0 && game.score.iter().any(|&s| s >= m.length) {
            return Err(fail(
                0,
                format!("score {:?} ends a {}-point match", game.score, m.length),
            ));
        }
        let crawford = at_one && !crawford_seen;
        if at_one {
            crawford_seen = true;
        }
        let mut table = Table {
            length: m.length,
            score: game.score,
            names: game.names.clone(),
            crawford,
            post_crawford: at_one && !crawford,
            cube: 1,
            owner: None,
        };
        let mut decisions = Vec::new();
        let mut position = Position::OPENING;
        let mut turn: Option<usize> = None;
        let mut pending_double = false;
        let mut doubled_this_turn = false;
        let mut over = false;
        // Row numbers as in the file: a row per pair of cells, starting at 1.
        let first_seat = game.actions.first().map(|a| a.seat()).unwrap_or(0);
        for (k, action) in game.actions.iter().enumerate() {
            let a = k + 1;
            let move_no = (k + first_seat) / 2 + 1;
            if over {
                return Err(fail(a, "action after the end of the game".into()));
            }
            let seat = action.seat();
            match action {
                ActionText::Roll { dice, play, .. } => {
                    if pending_double {
                        return Err(fail(a, "a roll while a double is unanswered".into()));
                    }
                    let opening = turn.is_none();
                    if let Some(t) = turn {
                        if t != seat {
                            return Err(fail(a, "rolled out of turn".into()));
                        }
                        if !doubled_this_turn && table.may_double(seat) {
                            decisions.push(Replayed {
                                move_no,
                                seat,
                                choice: Choice::Cube {
                                    state: table.state(seat, position, Decision::DoubleOrRoll),
                                    doubled: false,
                                },
                            });
                        }
                    }
                    doubled_this_turn = false;
                    let plays = legal_plays(&position, *dice);
                    let chosen = if play.trim().is_empty() {
                        match plays.as_slice() {
                            [only] if only.steps().is_empty() => *only,
                            _ => {
                                return Err(fail(
                                    a,
                                    format!("roll {dice} not played although a play is legal"),
                                ))
                            }
                        }
                    } else {
                        parse_move(play, &position, *dice, MoveStyle::Plain)
                            .map_err(|e| fail(a, format!("play {play:?} of {dice}: {e}")))?
                    };
                    decisions.push(Replayed {
                        move_no,
                        seat,
                        choice: Choice::Checker {
                            state: table.state(seat, position, Decision::Move(*dice)),
                            dice: *dice,
                            play: chosen,
                            legal: plays.len(),
                            opening,
                        },
                    });
                    if chosen.position.mover_result().is_some() {
                        over = true;
                    }
                    position = chosen.position.swap();
                    turn = Some(1 - seat);
                }
                ActionText::Double { cube, .. } => {
                    if turn != Some(seat) || pending_double || doubled_this_turn {
                        return Err(fail(a, "doubled out of turn".into()));
                    }
                    if !table.may_double(seat) {
                        return Err(fail(a, "doubled without access to the cube".into()));
                    }
                    if *cube != 0 && *cube != table.cube * 2 {
                        return Err(fail(
                            a,
                            format!("doubled to {cube} with the cube at {}", table.cube),
                        ));
                    }
                    decisions.push(Replayed {
                        move_no,
                        seat,
                        choice: Choice::Cube {
                            state: table.state(seat, position, Decision::DoubleOrRoll),
                            doubled: true,
                        },
                    });
                    pending_double = true;
                    doubled_this_turn = true;
                }
                ActionText::Take { .. } | ActionText::Drop { .. } => {
                    if !pending_double || turn != Some(1 - seat) {
                        return Err(fail(a, "an answer without a double".into()));
                    }
                    let took = matches!(action, ActionText::Take { .. });
                    decisions.push(Replayed {
                        move_no,
                        seat,
                        choice: Choice::Response {
                            state: table.state(seat, position.swap(), Decision::TakeOrDrop),
                            took,
                        },
                    });
                    pending_double = false;
                    if took {
                        table.cube *= 2;
                        table.owner = Some(seat);
                    } else {
                        over = true;
                    }
                }
            }
        }
        out.push(ReplayedGame {
            names: game.names.clone(),
            score: game.score,
            decisions,
        });
    }
    Ok(out)
}

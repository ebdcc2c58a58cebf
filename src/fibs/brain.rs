//! Turning real-FIBS board lines into commands with any [`Decide`] as the decision-maker,
//! off the async runtime.
//!
//! The board is read with [`crate::notation::fibs_board`] in [`Convention::Fibs`]; a board
//! needs an answer only when the acting side is the bot and there is a decision (a move with
//! checkers to move, a roll-or-double question, a pending double). The decider's answer is
//! checked once more against the rules before it becomes a command: a move must be one of
//! the legal plays of the board and is written in FIBS absolute numbers (`move 8-5 6-5`,
//! `bar-22`, `6-off`), a double only when the board gives the bot the cube.
//!
//! Deciding is CPU work (a search can take seconds) or blocking I/O (an engine over a
//! socket), so [`Brain`] hands each decision to a worker [`Pool`], the server's pool type,
//! and awaits the answer; the client's connection task never blocks.

use std::fmt;
use std::sync::Arc;

use tokio::sync::oneshot;

use crate::engine::{Action, Engine, Outcome, Work};
use crate::eval::simple::PipSigmoid;
use crate::game::{legal_plays, Decision, MatchState, Play, Position};
use crate::notation::fibs_board::{Convention, FibsBoard, FibsSeat};
use crate::notation::{format_play, FibsOrientation, MoveStyle};
use crate::players::Decide;
use crate::search::{Cancel, Pool, PoolConfig, Searcher, TranspositionTable};

/// Why a board got no command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrainError(pub String);

impl fmt::Display for BrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for BrainError {}

/// Whose move a board shows, as the watchdog needs to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardStatus {
    /// The bot decides (the board's answer is a command).
    Ours,
    /// The bot's turn before the roll without access to the cube: the server should roll
    /// for it (FIBS does; a server that does not needs a `roll`).
    ServerRolls,
    /// The bot's move with no legal play: the server moves on by itself.
    ServerMoves,
    /// The opponent is to act (a roll, a move, an answer to a double).
    Theirs,
    /// The game is over.
    Over,
}

/// A board's answer and whose move it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardAnswer {
    pub command: Option<String>,
    pub status: BoardStatus,
}

/// Whose move `state` is, for the bot (seat 0).
pub fn board_status(state: &MatchState) -> BoardStatus {
    if matches!(state.decision, Decision::GameOver) {
        return BoardStatus::Over;
    }
    if state.acting_player != 0 || matches!(state.decision, Decision::BeaverAnswer) {
        return BoardStatus::Theirs;
    }
    match state.decision {
        Decision::DoubleOrRoll if !state.may_double => BoardStatus::ServerRolls,
        Decision::Move(dice) => {
            if legal_plays(&state.position, dice)
                .iter()
                .all(|p| p.steps().is_empty())
            {
                BoardStatus::ServerMoves
            } else {
                BoardStatus::Ours
            }
        }
        _ => BoardStatus::Ours,
    }
}

/// The bot's decision-maker: a decider for the boards, an optional engine to judge
/// resignation offers, and the worker pool both run on.
pub struct Brain {
    /// Out on a worker while it decides; `None` only if a decision panicked.
    decider: Option<Box<dyn Decide>>,
    judge: Option<Engine>,
    pool: Arc<Pool>,
    /// Resign at or below this winning chance (0 = never); see [`hopeless`].
    resign_below: f64,
    /// A resignation was offered in this game (it is offered once per game).
    resigned: bool,
}

impl fmt::Debug for Brain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Brain")
            .field("decider", &self.decider.as_ref().map(|d| d.name()))
            .field("judge", &self.judge.as_ref().map(|j| j.name()))
            .finish()
    }
}

impl Brain {
    /// Decisions from `decider`; resignations judged by `judge` (without one, only an offer
    /// of the most the position could still give is accepted). Starts one worker thread,
    /// sharing the judge's table when there is one.
    pub fn new(decider: Box<dyn Decide>, judge: Option<Engine>) -> std::io::Result<Brain> {
        let pool = Brain::pool(judge.as_ref(), 1, 4)?;
        Ok(Brain::with_pool(decider, judge, pool))
    }

    /// A worker pool for brains to share: `threads` workers, `queue` tasks waiting
    /// (each brain has at most one decision out at a time), on the judge's table when
    /// there is one.
    pub fn pool(
        judge: Option<&Engine>,
        threads: usize,
        queue: usize,
    ) -> std::io::Result<Arc<Pool>> {
        let searcher = match judge {
            Some(j) => j.searcher().clone(),
            None => Searcher::new(Arc::new(PipSigmoid), Arc::new(TranspositionTable::new(1))),
        };
        Ok(Arc::new(Pool::with_searcher(
            searcher,
            // Its work comes as tasks (whole decisions), which the sharing never touches.
            PoolConfig {
                threads,
                queue,
                share_idle: false,
            },
        )?))
    }

    /// Decisions from `decider` on a pool shared with other brains (other accounts).
    pub fn with_pool(decider: Box<dyn Decide>, judge: Option<Engine>, pool: Arc<Pool>) -> Brain {
        Brain {
            decider: Some(decider),
            judge,
            pool,
            resign_below: 0.0,
            resigned: false,
        }
    }

    /// Resign hopeless games: at or below winning chance `p` (0 = never). Only a brain
    /// with a judge can tell.
    pub fn with_resign_below(mut self, p: f64) -> Brain {
        self.resign_below = p;
        self
    }

    /// A new game began: a resignation may be offered again.
    pub fn new_game(&mut self) {
        self.resigned = false;
    }

    /// The command for this board line, decided on the pool.
    pub async fn on_board(&mut self, line: &str) -> Result<Option<String>, BrainError> {
        self.answer(line).await.map(|a| a.command)
    }

    /// The command for this board line and whose move it shows, decided on the pool.
    pub async fn answer(&mut self, line: &str) -> Result<BoardAnswer, BrainError> {
        let mut decider = self
            .decider
            .take()
            .ok_or_else(|| BrainError("the decider was lost to an earlier failure".into()))?;
        let line = line.to_string();
        let resign = match (&self.judge, self.resigned) {
            (Some(j), false) if self.resign_below > 0.0 => Some((j.clone(), self.resign_below)),
            _ => None,
        };
        let (tx, rx) = oneshot::channel();
        self.pool
            .try_run(move || {
                // The line is read once; a hopeless game is resigned before the decider
                // is asked.
                let (answer, resigned) = match read_board(&line) {
                    Err(e) => (Err(e), false),
                    Ok((board, state)) => {
                        let status = board_status(&state);
                        let give_up =
                            resign.and_then(|(judge, below)| hopeless(&judge, &state, below));
                        let (command, resigned) = match give_up {
                            Some(level) => (
                                Ok(Some(format!("resign {}", ["n", "g", "b"][level - 1]))),
                                true,
                            ),
                            None => (answer_state(&mut *decider, &board, &state), false),
                        };
                        (
                            command.map(|command| BoardAnswer { command, status }),
                            resigned,
                        )
                    }
                };
                // The receiver only goes away if the client stopped waiting.
                let _ = tx.send((decider, answer, resigned));
            })
            .map_err(|e| BrainError(e.to_string()))?;
        let (decider, answer, resigned) = rx
            .await
            .map_err(|_| BrainError("the decision failed on its worker".into()))?;
        self.decider = Some(decider);
        self.resigned |= resigned;
        answer
    }

    /// Whether to accept the opponent's resignation worth `points`, given the last board;
    /// judged on the pool.
    pub async fn accept_resignation(&mut self, line: &str, points: u32) -> bool {
        let (judge, line) = (self.judge.clone(), line.to_string());
        let (tx, rx) = oneshot::channel();
        let queued = self.pool.try_run(move || {
            let _ = tx.send(judge_resignation(judge.as_ref(), &line, points));
        });
        queued.is_ok() && rx.await.unwrap_or(false)
    }
}

/// Writes a play in FIBS absolute numbers for a player sitting at `seat`, one sub-move per
/// die in an order the server can apply.
pub fn fibs_move_text(before: &Position, play: &Play, seat: FibsSeat) -> String {
    let o = FibsOrientation::from_direction(seat.direction as i32);
    format_play(before, play, MoveStyle::Fibs(o))
}

/// Whether the bot, acting in `state`, should resign, and at which level (1 single,
/// 2 gammon, 3 backgammon): when its winning chance is at most `below` and the level
/// is the lowest whose worse outcomes together have at most that chance too, so the
/// offer gives away no more than about `below` per cube. Only at the bot's own turn
/// (before a roll or a move), never in a finished game.
pub fn hopeless(judge: &Engine, state: &MatchState, below: f64) -> Option<usize> {
    if state.acting_player != 0
        || !matches!(state.decision, Decision::DoubleOrRoll | Decision::Move(_))
    {
        return None;
    }
    // Before the roll: the position as it stands; at a move, the dice are already out,
    // and the value before them is what the opponent weighs too.
    let p = judge
        .probabilities_for(
            &state.position,
            judge.settings().cube_depth,
            crate::engine::utility(&crate::engine::cube_view(state)),
            &Cancel::new(),
        )
        .ok()?
        .0;
    // What the rules settle overrides the estimate: no gammon once we have borne a checker
    // off, no backgammon without a checker of ours on the bar or in the opponent's home.
    let pos = &state.position;
    let bg_possible = pos.slots()[19..=25].iter().any(|&c| c > 0);
    let gammon_possible = pos.off() == 0;
    let lose_bg = if bg_possible && gammon_possible {
        p[4] as f64
    } else {
        0.0
    };
    let lose_gammon = if gammon_possible { p[3] as f64 } else { 0.0 };
    let win = p[0] as f64;
    if win > below {
        return None;
    }
    if lose_gammon <= below {
        Some(1)
    } else if lose_bg <= below {
        Some(2)
    } else {
        Some(3)
    }
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

/// The command for a board line (None when the bot need not act), asking `decider`.
pub fn answer_board(decider: &mut dyn Decide, line: &str) -> Result<Option<String>, BrainError> {
    let (board, state) = read_board(line)?;
    answer_state(decider, &board, &state)
}

/// A board line and the match state it describes, in real-FIBS convention.
fn read_board(line: &str) -> Result<(FibsBoard, MatchState), BrainError> {
    let board = FibsBoard::parse(line).map_err(|e| BrainError(e.to_string()))?;
    let mut state = board
        .to_match_state(Convention::Fibs)
        .map_err(|e| BrainError(e.to_string()))?;
    // FIBS has no beavers, whatever the engine's money defaults say.
    state.rules.beavers = Some(false);
    Ok((board, state))
}

/// The command for a board already read (see [`answer_board`]).
fn answer_state(
    decider: &mut dyn Decide,
    board: &FibsBoard,
    state: &MatchState,
) -> Result<Option<String>, BrainError> {
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
                match decider.decide(state, &plays) {
                    Ok(Action::Move(p)) => p,
                    Ok(other) => {
                        return Err(BrainError(format!("asked for a move, got {other:?}")))
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
            // A side that cannot double (the opponent owns the cube, the Crawford game) is
            // rolled for by the server: a `roll` now would be refused.
            if !state.may_double {
                return Ok(None);
            }
            match decider.decide(state, &[]) {
                Ok(Action::Double) => Ok(Some("double".into())),
                Ok(Action::Roll) => Ok(Some("roll".into())),
                Ok(other) => Err(BrainError(format!("asked double or roll, got {other:?}"))),
                Err(e) => Err(BrainError(e.to_string())),
            }
        }
        // Beavers are not part of FIBS: keeping the doubled cube is accepting it.
        Decision::TakeOrDrop => match decider.decide(state, &[]) {
            Ok(Action::Take | Action::Beaver) => Ok(Some("accept".into())),
            Ok(Action::Drop) => Ok(Some("reject".into())),
            Ok(other) => Err(BrainError(format!("asked take or drop, got {other:?}"))),
            Err(e) => Err(BrainError(e.to_string())),
        },
    }
}

/// Whether to accept a resignation worth `points` at the board `line`, by `judge`'s
/// equity, or without a judge only an offer of the most the position could still give.
pub fn judge_resignation(judge: Option<&Engine>, line: &str, points: u32) -> bool {
    let Ok(board) = FibsBoard::parse(line) else {
        return false;
    };
    let Ok(state) = board.to_match_state(Convention::Fibs) else {
        return false;
    };
    if let Some(engine) = judge {
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
            Ok(Outcome::Action(Action::AcceptResignation))
        );
    }
    let our_view = if state.acting_player == 0 {
        state.position
    } else {
        state.position.swap()
    };
    points as f64 >= most_points(&our_view) * state.cube as f64
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::MatchState;
    use crate::players::DecideError;

    /// The first legal play; doubles whenever asked. Remembers the thread it last ran on.
    #[derive(Default)]
    struct FirstPlay(Option<String>);

    impl Decide for FirstPlay {
        fn name(&self) -> String {
            self.0.clone().unwrap_or_default()
        }
        fn decide(&mut self, state: &MatchState, plays: &[Play]) -> Result<Action, DecideError> {
            self.0 = std::thread::current().name().map(str::to_string);
            Ok(match state.decision {
                Decision::Move(_) => Action::Move(plays[0]),
                Decision::DoubleOrRoll => Action::Double,
                _ => Action::Take,
            })
        }
    }

    const O_62: &str = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
    const X_45: &str = "board:You:gnubot:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:4:5:0:0:1:1:1:0:-1:1:25:0:0:0:0:0:2:0:0:0";

    #[test]
    fn moves_are_written_in_absolute_numbers_for_either_colour() {
        let o = answer_board(&mut FirstPlay::default(), O_62)
            .unwrap()
            .unwrap();
        let x = answer_board(&mut FirstPlay::default(), X_45)
            .unwrap()
            .unwrap();
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
        assert_eq!(
            answer_board(&mut FirstPlay::default(), &theirs).unwrap(),
            None
        );
        assert!(answer_board(&mut FirstPlay::default(), "board:bad").is_err());
    }

    #[test]
    fn no_roll_is_sent_when_the_server_rolls() {
        // O_62 before the roll, cube 2 owned by the opponent: the server rolls for us.
        let before_roll = O_62.replace(":0:1:6:2:0:0:1:1:1:0:1:-1:", ":0:1:0:0:0:0:2:0:1:0:1:-1:");
        assert_eq!(
            answer_board(&mut FirstPlay::default(), &before_roll).unwrap(),
            None
        );
        // With cube access the decider is asked (this one doubles).
        let may = O_62.replace(":0:1:6:2:0:0:1:1:1:0:1:-1:", ":0:1:0:0:0:0:1:1:1:0:1:-1:");
        assert_eq!(
            answer_board(&mut FirstPlay::default(), &may).unwrap(),
            Some("double".into())
        );
    }

    #[test]
    fn only_hopeless_positions_are_resigned_at_the_lowest_fair_level() {
        let judge = crate::engine::build::engine(&"net".parse().unwrap()).unwrap();
        let at = |position: Position| MatchState::money(position, Decision::DoubleOrRoll);
        // All 15 of ours on our 7-point against one opponent checker on its 1-point: lost,
        // and gammoned (we cannot bear off in one roll), but not backgammoned.
        let mut slots = [0i8; 26];
        slots[7] = 15;
        slots[24] = -1;
        let lost = Position::from_slots(slots).unwrap();
        assert_eq!(hopeless(&judge, &at(lost), 0.001), Some(2));
        // The opening is not hopeless, nor is a lost game when it is not our turn.
        assert_eq!(hopeless(&judge, &at(Position::OPENING), 0.001), None);
        let mut theirs = at(lost);
        theirs.acting_player = 1;
        assert_eq!(hopeless(&judge, &theirs, 0.001), None);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_hopeless_game_is_resigned_once() {
        use crate::notation::fibs_board::FibsSeat;
        let judge = crate::engine::build::engine(&"net".parse().unwrap()).unwrap();
        let mut slots = [0i8; 26];
        slots[7] = 15;
        slots[24] = -1;
        let lost = MatchState::money(Position::from_slots(slots).unwrap(), Decision::DoubleOrRoll);
        let line = FibsBoard::from_match_state(&lost, Convention::Fibs, FibsSeat::default())
            .unwrap()
            .to_line();
        let mut b = Brain::new(Box::<FirstPlay>::default(), Some(judge))
            .unwrap()
            .with_resign_below(0.001);
        assert_eq!(b.on_board(&line).await.unwrap(), Some("resign g".into()));
        // Offered once per game: the decider answers the same board from now on ...
        assert_eq!(b.on_board(&line).await.unwrap(), Some("double".into()));
        // ... until the next game.
        b.new_game();
        assert_eq!(b.on_board(&line).await.unwrap(), Some("resign g".into()));
        // Without a threshold the bot never resigns.
        let judge = crate::engine::build::engine(&"net".parse().unwrap()).unwrap();
        let mut never = Brain::new(Box::<FirstPlay>::default(), Some(judge)).unwrap();
        assert_eq!(never.on_board(&line).await.unwrap(), Some("double".into()));
    }

    #[test]
    fn resignations_without_an_evaluator_need_the_most_points() {
        assert!(!judge_resignation(None, O_62, 1));
        assert!(judge_resignation(None, O_62, 3));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn decisions_run_on_the_pool_and_the_decider_comes_back() {
        let mut b = Brain::new(Box::<FirstPlay>::default(), None).unwrap();
        let first = b.on_board(O_62).await.unwrap().unwrap();
        // The decider ran on a pool worker, not on the runtime's thread.
        let ran_on = b.decider.as_ref().unwrap().name();
        assert!(ran_on.starts_with("search-"), "{ran_on:?}");
        assert_eq!(b.on_board(O_62).await.unwrap().unwrap(), first);
        assert!(b.on_board("board:bad").await.is_err());
        assert!(b.accept_resignation(O_62, 3).await);
        assert!(!b.accept_resignation(O_62, 1).await);
    }
}

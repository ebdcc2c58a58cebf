//! One game or one match between two seats: the table the referee keeps, the dice
//! streams, and the records of what happened.

use crate::game::Rng;
use std::ops::ControlFlow;

use super::cube;
use crate::engine::Action;
use crate::game::{
    legal_plays, Decision, Dice, GameResult, MatchState, Play, Position, Rules, SeatTable,
};
use crate::players::{Decide, DecideError, DecideErrorKind};

/// The largest cube value the referee lets a side double to (gnubg's limit).
pub const MAX_CUBE: u32 = 4096;

/// A turn cannot run forever: a game longer than this many decisions is stopped and
/// counted as a forfeit of the side to act (no sensible engine gets near it).
pub const MAX_DECISIONS: u32 = 5000;

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Played to the end.
    Played(GameResult),
    /// The loser dropped a double.
    Dropped,
    /// The loser gave an unacceptable answer.
    Forfeit,
}

impl Ending {
    /// A lower-case word for reports and JSON.
    pub fn word(self) -> &'static str {
        match self {
            Ending::Played(GameResult::Single) => "single",
            Ending::Played(GameResult::Gammon) => "gammon",
            Ending::Played(GameResult::Backgammon) => "backgammon",
            Ending::Dropped => "drop",
            Ending::Forfeit => "forfeit",
        }
    }
}

/// One event of a game, for game records and .mat files. Seats are 0 and 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// `seat` rolled `dice` and played `play` (empty steps when it could not move).
    Move {
        seat: usize,
        dice: Dice,
        play: Play,
    },
    /// `seat` doubled to `cube`.
    Double {
        seat: usize,
        cube: u32,
    },
    Take {
        seat: usize,
    },
    Drop {
        seat: usize,
    },
}

/// The table state at the start of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSetup {
    /// Points to win the match; 0 for money play.
    pub match_length: u32,
    /// Scores of seat 0 and seat 1 before the game.
    pub score: [u32; 2],
    /// This game is the Crawford game.
    pub crawford: bool,
    /// The Crawford game has already been played.
    pub post_crawford: bool,
    /// The doubling cube is in use.
    pub cube: bool,
    /// Names of seat 0 and seat 1 (written into requests).
    pub names: [String; 2],
}

/// The outcome of one game.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The winning seat.
    pub winner: usize,
    /// Points the winner gets (cube value times the result).
    pub points: u32,
    pub ending: Ending,
    /// The final cube value.
    pub cube: u32,
    /// Opening dice for seat 0 and seat 1.
    pub opening: (u8, u8),
    pub events: Vec<Event>,
    /// The rejected answer, when the game was forfeited.
    pub forfeit: Option<DecideError>,
}

/// A reproducible stream of dice.
#[derive(Debug, Clone)]
pub struct DiceStream {
    rng: Rng,
}

impl DiceStream {
    pub fn new(seed: u64) -> DiceStream {
        DiceStream {
            rng: Rng::seeded(seed),
        }
    }

    /// The next roll.
    pub fn roll(&mut self) -> Dice {
        Dice::roll(&mut self.rng)
    }

    /// The opening roll: one die per seat, rolled again while equal.
    pub fn opening(&mut self) -> (u8, u8) {
        loop {
            let a: u8 = self.rng.die();
            let b: u8 = self.rng.die();
            if a != b {
                return (a, b);
            }
        }
    }
}

/// Mixes a run seed and an index into the seed of one dice stream.
pub fn stream_seed(seed: u64, index: u64) -> u64 {
    // SplitMix64 finaliser: nearby indices give unrelated streams.
    let mut z = seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What the referee keeps besides the board: the game's setup and the cube.
pub(super) struct Table {
    setup: GameSetup,
    pub(super) cube: u32,
    /// Seat that owns the cube, None when centred.
    pub(super) owner: Option<usize>,
}

impl Table {
    /// The table as the rules module reads it.
    fn seats(&self) -> SeatTable<'_> {
        SeatTable {
            match_length: self.setup.match_length,
            score: self.setup.score,
            names: &self.setup.names,
            crawford: self.setup.crawford,
            post_crawford: self.setup.post_crawford,
            cube_in_use: self.setup.cube,
            cube: self.cube,
            owner: self.owner,
            // The referee's own money rules: no Jacoby rule, no beavers (a beaver is played
            // as a take). Stated in every state, so deciders value the cube under them
            // whatever their own defaults are.
            rules: Rules {
                jacoby: Some(false),
                beavers: Some(false),
            },
        }
    }

    fn may_double(&self, seat: usize) -> bool {
        self.seats().may_double(seat)
    }

    pub(super) fn state(&self, seat: usize, position: Position, decision: Decision) -> MatchState {
        self.seats().state(seat, position, decision)
    }
}

pub(super) fn forfeit_record(
    loser: usize,
    table: &Table,
    opening: (u8, u8),
    events: Vec<Event>,
    error: DecideError,
) -> GameRecord {
    GameRecord {
        winner: 1 - loser,
        points: table.cube,
        ending: Ending::Forfeit,
        cube: table.cube,
        opening,
        events,
        forfeit: Some(error),
    }
}

pub(super) fn wrong_kind(state: &MatchState, reply: &Action, wanted: &str) -> DecideError {
    DecideError {
        kind: DecideErrorKind::Illegal(format!("expected {wanted}, got {reply}")),
        request: format!("{:?}", state.decision),
        reply: reply.to_string(),
    }
}

/// Plays one game between `seats[0]` and `seats[1]` with dice from `dice`.
pub fn play_game(
    seats: &mut [&mut dyn Decide; 2],
    dice: &mut DiceStream,
    setup: &GameSetup,
) -> GameRecord {
    let mut table = Table {
        setup: setup.clone(),
        cube: 1,
        owner: None,
    };
    let mut events = Vec::new();
    let opening = dice.opening();
    let mut turn = if opening.0 > opening.1 { 0 } else { 1 };
    // The opening roll is the starter's first roll (no cube decision before it).
    let mut roll = Some(Dice::new(opening.0, opening.1).unwrap_or_else(|_| dice.roll()));
    let mut position = Position::OPENING;
    let mut decisions = 0u32;

    loop {
        decisions += 1;
        if decisions > MAX_DECISIONS {
            let error = DecideError {
                kind: DecideErrorKind::Illegal(format!(
                    "game longer than {MAX_DECISIONS} decisions"
                )),
                request: position.debug_string(),
                reply: String::new(),
            };
            return forfeit_record(turn, &table, opening, events, error);
        }
        let this_roll = match roll.take() {
            Some(r) => r,
            None => {
                if table.may_double(turn) {
                    events = match cube::double_or_roll(
                        seats, &mut table, turn, position, opening, events,
                    ) {
                        ControlFlow::Continue(events) => events,
                        ControlFlow::Break(record) => return record,
                    };
                }
                dice.roll()
            }
        };

        let plays = legal_plays(&position, this_roll);
        let chosen = if plays.len() <= 1 {
            // Forced (or no) play: nothing to ask.
            match plays.first() {
                Some(p) => *p,
                None => Play::none(position),
            }
        } else {
            let state = table.state(turn, position, Decision::Move(this_roll));
            match seats[turn].decide(&state, &plays) {
                Err(e) => return forfeit_record(turn, &table, opening, events, e),
                Ok(Action::Move(play)) => {
                    if !plays.iter().any(|p| p.position == play.position) {
                        let e = DecideError {
                            kind: DecideErrorKind::Illegal(format!(
                                "{play:?} is not a legal play of {}",
                                position.debug_string()
                            )),
                            request: format!("{:?}", state.decision),
                            reply: format!("{play:?}"),
                        };
                        return forfeit_record(turn, &table, opening, events, e);
                    }
                    play
                }
                Ok(other) => {
                    let e = wrong_kind(&state, &other, "a move");
                    return forfeit_record(turn, &table, opening, events, e);
                }
            }
        };
        events.push(Event::Move {
            seat: turn,
            dice: this_roll,
            play: chosen,
        });
        if let Some(result) = chosen.position.mover_result() {
            return GameRecord {
                winner: turn,
                points: table.cube * result.points() as u32,
                ending: Ending::Played(result),
                cube: table.cube,
                opening,
                events,
                forfeit: None,
            };
        }
        position = chosen.position.swap();
        turn = 1 - turn;
    }
}

/// The outcome of a match.
#[derive(Debug, Clone)]
pub struct MatchRecord {
    /// Final scores of seat 0 and seat 1.
    pub score: [u32; 2],
    pub winner: usize,
    /// Every game with the score before it and whether it was the Crawford game.
    pub games: Vec<(GameSetup, GameRecord)>,
}

/// Plays a match to `length` points, all games drawing dice from one stream.
pub fn play_match(
    seats: &mut [&mut dyn Decide; 2],
    dice: &mut DiceStream,
    length: u32,
    cube: bool,
    names: [String; 2],
) -> MatchRecord {
    let length = length.max(1);
    let mut score = [0u32; 2];
    let mut crawford_done = false;
    let mut games = Vec::new();
    loop {
        let leader_at_one = score.iter().any(|&s| s + 1 == length);
        let crawford = leader_at_one && !crawford_done;
        let setup = GameSetup {
            match_length: length,
            score,
            crawford,
            post_crawford: crawford_done,
            cube,
            names: names.clone(),
        };
        let record = play_game(seats, dice, &setup);
        if crawford {
            crawford_done = true;
        }
        score[record.winner] += record.points;
        games.push((setup, record));
        if let Some(w) = (0..2).find(|&s| score[s] >= length) {
            return MatchRecord {
                score,
                winner: w,
                games,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::referee::testing::{money, seat};

    #[test]
    fn cubeless_games_finish_with_a_result() {
        for s in 0..20 {
            let mut a = seat(s, 0.0, true);
            let mut b = seat(s + 100, 0.0, true);
            let mut seats: [&mut dyn Decide; 2] = [&mut a, &mut b];
            let g = play_game(&mut seats, &mut DiceStream::new(s), &money(false));
            assert!(matches!(g.ending, Ending::Played(_)));
            assert_eq!(g.cube, 1);
            assert!((1..=3).contains(&g.points));
            assert!(g.forfeit.is_none());
        }
    }

    #[test]
    fn matches_play_the_crawford_game_once() {
        for s in 0..10 {
            let mut a = seat(s, 0.3, true);
            let mut b = seat(s + 50, 0.3, true);
            let mut seats: [&mut dyn Decide; 2] = [&mut a, &mut b];
            let m = play_match(
                &mut seats,
                &mut DiceStream::new(s),
                5,
                true,
                ["a".into(), "b".into()],
            );
            assert!(m.score[m.winner] >= 5);
            let crawfords = m.games.iter().filter(|(s, _)| s.crawford).count();
            assert!(crawfords <= 1);
            for (setup, game) in &m.games {
                if setup.crawford {
                    assert!(game
                        .events
                        .iter()
                        .all(|e| !matches!(e, Event::Double { .. })));
                    assert!(setup.score.contains(&4));
                }
            }
            let total: [u32; 2] = m.games.iter().fold([0, 0], |mut acc, (_, g)| {
                acc[g.winner] += g.points;
                acc
            });
            assert_eq!(total, m.score);
        }
    }

    #[test]
    fn mirrored_streams_repeat_the_dice() {
        let mut x = DiceStream::new(stream_seed(3, 4));
        let mut y = DiceStream::new(stream_seed(3, 4));
        for _ in 0..50 {
            assert_eq!(x.roll(), y.roll());
        }
        assert_ne!(stream_seed(3, 4), stream_seed(3, 5));
    }
}

//! Tavli: the three Greek games on a backgammon board (Portes, Plakoto, Fevga), with the
//! rules of docs/VARIANTS.md (which follows the project's rules text for these games).
//!
//! A shared core ([`TavliPosition`], [`TavliPlay`], [`GameEnd`], [`RuleSwitches`], the generic
//! step search in `movegen.rs`) and one module per game with its per-step rules. The
//! search settles most positions in one canonical order of steps, backgammon's (a
//! double's sources non-increasing, a non-double's higher die first), and tries every
//! order where a game end or a per-step check is within reach. Backgammon keeps its own
//! generator, untouched.

pub mod driver;
pub mod fevga;
mod game;
mod movegen;
pub mod notation;
pub mod plakoto;
pub mod portes;
pub mod position;

pub use movegen::Split;

pub use driver::{opening, play_game_with, play_random_game, RandomGame};
pub use notation::{
    draw_board, format_play, parse_play, parse_position_string, position_string, PlayTextError,
    PositionStringError,
};
pub use position::{TavliPosition, TavliPositionError, CHECKERS};

use crate::game::{Dice, Variant};

/// The rule switches of the rules text. Every switch is off by default, which is the
/// rule set the engine implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct RuleSwitches {
    /// Plakoto (PL10): a pinned checker in the home board does not stop the side's
    /// other checkers being borne off.
    pub pinned_counts_home: bool,
    /// Fevga (FE8): instead of the no-full-trap rule (FE5), when every opposing checker on
    /// the board stands on the single point directly behind a wall of the mover at the
    /// start of the turn, the play must empty one of the wall's points if any allowed
    /// play does. The starting-quarter rule (FE4) stays.
    pub unblock_when_piled: bool,
    /// Fevga (FE8): the starting-quarter rule (FE4) and no other wall rule. When both
    /// Fevga switches are set, `unblock_when_piled` applies.
    pub start_quarter_only: bool,
}

/// How a game ended, from the view of the side that made the ending step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameEnd {
    /// The side wins this many points (1 single, 2 double game or mother win).
    Win(u8),
    /// Plakoto: both mothers pinned; nobody scores.
    Tie,
}

impl GameEnd {
    /// Points won by the side that ended the game (0 for a tie).
    /// How plays and answers name the end: `win 1`, `win 2` or `tie`.
    pub fn name(self) -> String {
        match self {
            GameEnd::Win(p) => format!("win {p}"),
            GameEnd::Tie => "tie".to_string(),
        }
    }

    pub fn points(self) -> u8 {
        match self {
            GameEnd::Win(p) => p,
            GameEnd::Tie => 0,
        }
    }
}

/// One checker step in the mover's own numbering: from a point (25 = the bar, Portes
/// only) to a point (0 = borne off). `mark` is a hit in Portes, a pin in Plakoto. Four
/// bytes with a fixed layout, so that the step search writes a play's four steps as one
/// 16-byte word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(C, align(4))]
pub struct TavliStep {
    pub from: u8,
    pub to: u8,
    pub mark: bool,
}

/// A legal play: the position after it (still from the mover's view), the steps that
/// lead there in an order in which each is legal, and the game's end if a step ended it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TavliPlay {
    pub after: TavliPosition,
    steps: [TavliStep; 4],
    len: u8,
    /// Set when the play's last step ended the game (C5), from the mover's view.
    pub end: Option<GameEnd>,
}

impl TavliPlay {
    pub(crate) fn new(
        after: TavliPosition,
        steps: [TavliStep; 4],
        len: u8,
        end: Option<GameEnd>,
    ) -> TavliPlay {
        TavliPlay {
            after,
            steps,
            len: len.min(4),
            end,
        }
    }

    /// Pushes onto `out` the play of the first `len` of `steps` from `start`, its
    /// position built in place: the start copied whole, then the mover's checkers moved
    /// along the steps (what they did to the opponent is the caller's to write). Changing
    /// a copy on the stack and moving it would read those few bytes back as wide words
    /// before their stores complete.
    pub(crate) fn push_from<'a>(
        out: &'a mut Vec<TavliPlay>,
        start: &TavliPosition,
        steps: [TavliStep; 4],
        len: u8,
        end: Option<GameEnd>,
    ) -> Option<&'a mut TavliPlay> {
        out.push(TavliPlay::new(*start, steps, len, end));
        let play = out.last_mut()?;
        for st in &steps[..play.len as usize] {
            play.after.sides[0][st.from as usize] -= 1;
            if st.to > 0 {
                play.after.sides[0][st.to as usize] += 1;
            }
        }
        Some(play)
    }

    /// The steps, in an order in which each is legal.
    pub fn steps(&self) -> &[TavliStep] {
        &self.steps[..self.len as usize]
    }

    /// The position after the play with the opponent to act.
    pub fn next_position(&self) -> TavliPosition {
        self.after.swap()
    }
}

/// A reusable buffer of plays and the generator's scratch space.
#[derive(Debug, Default, Clone)]
pub struct TavliPlayList {
    plays: Vec<TavliPlay>,
    scratch: movegen::Scratch,
    backgammon: crate::game::PlayList,
}

impl TavliPlayList {
    pub fn new() -> TavliPlayList {
        TavliPlayList::default()
    }

    /// The plays of the last generation.
    pub fn as_slice(&self) -> &[TavliPlay] {
        &self.plays
    }
}

impl std::ops::Deref for TavliPlayList {
    type Target = [TavliPlay];
    fn deref(&self) -> &[TavliPlay] {
        &self.plays
    }
}

/// Fills `list` with every distinct legal play of `dice` in `pos` under `rules`. With no
/// legal step the list holds the one empty play. A finished game (see
/// [`TavliPosition::result`]) has no plays at all: the list is empty.
pub fn generate_plays(
    pos: &TavliPosition,
    dice: Dice,
    rules: &RuleSwitches,
    list: &mut TavliPlayList,
) {
    generate(pos, dice, rules, list, false);
}

/// The plays of [`generate_plays`], found by trying every order of steps alone (the full
/// search), never by the canonical order that [`generate_plays`] settles most positions
/// with: the same plays, more slowly, so that the two can be checked against each other
/// on any position (tests/tavli_orders.rs, the `tavli` fuzz target).
pub fn legal_plays_every_order(
    pos: &TavliPosition,
    dice: Dice,
    rules: &RuleSwitches,
) -> Vec<TavliPlay> {
    let mut list = TavliPlayList::new();
    generate(pos, dice, rules, &mut list, true);
    list.plays
}

/// [`generate_plays`], by the full search alone when `every_order`.
fn generate(
    pos: &TavliPosition,
    dice: Dice,
    rules: &RuleSwitches,
    list: &mut TavliPlayList,
    every_order: bool,
) {
    list.plays.clear();
    if pos.result().is_some() {
        return;
    }
    let (s, out, all) = (&mut list.scratch, &mut list.plays, every_order);
    match pos.variant() {
        Variant::Portes => movegen::generate::<portes::Portes>(pos, dice, rules, s, out, all),
        Variant::Plakoto => movegen::generate::<plakoto::Plakoto>(pos, dice, rules, s, out, all),
        Variant::Fevga => fevga::generate(pos, dice, rules, s, out, all),
        Variant::Backgammon => portes::generate(pos, dice, &mut list.backgammon, out),
    }
}

/// How [`generate_plays`] spends its time on `set` (positions of one game): the
/// positions its canonical step order settles, those the full search decides, and the
/// time of each, the fastest of `rounds` passes (`stargammon bench movegen --split`).
pub fn movegen_split(set: &[(TavliPosition, Dice)], rules: &RuleSwitches, rounds: u32) -> Split {
    movegen::split(set, rules, rounds)
}

/// Convenience: the plays of `dice` in `pos` as a new vector.
pub fn legal_plays(pos: &TavliPosition, dice: Dice, rules: &RuleSwitches) -> Vec<TavliPlay> {
    let mut list = TavliPlayList::new();
    generate_plays(pos, dice, rules, &mut list);
    list.plays
}

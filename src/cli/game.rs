//! The command line's one choice between games. `with_game!` turns a [`Variant`] into
//! the game's position type once; the commands are written once over [`CliGame`], which
//! holds what differs between games at the command line: how POS reads, how plays and
//! positions are written, what `show` and `hint` print around the shared steps, the
//! movegen sets of `bench movegen` and the game's lines in a duel report.
//!
//! A new game is one `impl CliGame` and one arm in `with_game!`.

use crate::arena::{DuelResult, Judged};
use crate::game::{Dice, Ending, GamePlay, GamePosition, MatchState, Position, Variant};
use crate::notation::{format_play, position_id, MoveStyle};
use crate::tavli::{parse_position_string, PositionStringError, TavliPosition};

use super::hint::HintArgs;
use super::CliError;
use crate::engine::EngineSpec;
use serde_json::Value;

/// Runs `$body` with `$G` the position type of the game of `$variant`: the one `match`
/// of the command line on the game.
macro_rules! with_game {
    ($variant:expr, $G:ident => $body:expr) => {
        match $variant {
            $crate::game::Variant::Backgammon => {
                type $G = $crate::game::Position;
                $body
            }
            $crate::game::Variant::Portes
            | $crate::game::Variant::Plakoto
            | $crate::game::Variant::Fevga => {
                type $G = $crate::tavli::TavliPosition;
                $body
            }
        }
    };
}
pub(crate) use with_game;

/// What differs between games at the command line.
pub trait CliGame: Judged {
    /// A position as POS states it: backgammon's with the cube, the score and perhaps the
    /// roll (a [`MatchState`]), a Tavli game's the position alone.
    type Given;

    /// The JSON key of [`CliGame::position_text`] in the lists of plays.
    const POSITION_KEY: &'static str;

    /// Whether the lists of plays name how a play ended the game (`end`).
    const NAMES_ENDINGS: bool;

    /// Reads POS as a position of `variant`; without POS, the game's start (backgammon's
    /// POS states a cube and a score, and must be given).
    fn read(variant: Variant, text: Option<&str>) -> Result<Self::Given, CliError>;

    /// The board of the side on roll (at a take question, the doubler's).
    fn on_roll(given: &Self::Given) -> Self;

    /// A play of `pos` in the game's notation (gnubg's); the empty play is empty.
    fn play_text(pos: &Self, play: &Self::Play) -> String;

    /// Reads a play of `dice` in `pos` in that notation (`moves --play`); an illegal one,
    /// or a game whose plays `moves` does not check, is an error.
    fn parse_play(pos: &Self, dice: Dice, text: &str) -> Result<Self::Play, CliError>;

    /// A position as the game writes it: gnubg's Position ID, a Tavli position string.
    fn position_text(pos: &Self) -> String;

    /// `show`: the position as text or one JSON object (`text`: POS as given).
    fn show(given: &Self::Given, text: Option<&str>, json: bool) -> Result<String, CliError>;

    /// `hint` in this game, with the engine of `spec`.
    fn hint(a: &HintArgs, variant: Variant, spec: &EngineSpec) -> Result<(), CliError>;

    /// The set of `bench movegen --games GAMES` and the flag that reproduces it.
    fn movegen_set(
        variant: Variant,
        games: Option<&str>,
    ) -> Result<(Vec<(Self, Dice)>, String), CliError>;

    /// `bench movegen --split`: how the generator's time on `set` divides, where the game
    /// has more than one way of generating.
    fn movegen_split(set: &[(Self, Dice)], rounds: u32) -> Option<crate::tavli::Split>;

    /// The game's own entries in a duel report: the JSON fields and the text line that
    /// count how games were won.
    fn duel_counts(r: &DuelResult, json: &mut Value, percent: &dyn Fn(u64) -> f64) -> String;
}

/// How a play ended the game, as outputs name it: `win 1`, `win 2` or `tie`.
pub fn end_name<G: GamePosition>(play: &G::Play) -> Option<String> {
    play.ending().map(|e| match e {
        Ending::Won(r) => format!("win {}", r.points()),
        Ending::Tie => "tie".to_string(),
    })
}

impl CliGame for Position {
    type Given = MatchState;
    const POSITION_KEY: &'static str = "position_id";
    const NAMES_ENDINGS: bool = false;

    fn read(_variant: Variant, text: Option<&str>) -> Result<MatchState, CliError> {
        let text = text.ok_or("show needs POS (or a Tavli --variant for its starting position)")?;
        Ok(super::pos_arg::parse_pos_arg(text)?)
    }

    fn on_roll(given: &MatchState) -> Position {
        crate::engine::roller(given).0
    }

    fn play_text(pos: &Position, play: &crate::game::Play) -> String {
        format_play(pos, play, MoveStyle::Gnubg)
    }

    /// Backgammon's plays are checked where they are played (`hint`, the server).
    fn parse_play(_: &Position, _: Dice, _: &str) -> Result<crate::game::Play, CliError> {
        Err("--play checks a play of a Tavli game (with --variant)".into())
    }

    fn position_text(pos: &Position) -> String {
        position_id(pos)
    }

    fn show(given: &MatchState, text: Option<&str>, json: bool) -> Result<String, CliError> {
        super::show::backgammon(given, text.unwrap_or_default(), json)
    }

    fn hint(a: &HintArgs, _variant: Variant, spec: &EngineSpec) -> Result<(), CliError> {
        super::hint::backgammon(a, spec)
    }

    fn movegen_set(
        _variant: Variant,
        games: Option<&str>,
    ) -> Result<(Vec<(Position, Dice)>, String), CliError> {
        Ok(match games {
            Some("random") => (
                crate::bench::random_movegen_set(),
                " --games random".to_string(),
            ),
            _ => (crate::bench::movegen_set()?, String::new()),
        })
    }

    fn movegen_split(_set: &[(Position, Dice)], _rounds: u32) -> Option<crate::tavli::Split> {
        None
    }

    fn duel_counts(r: &DuelResult, _: &mut Value, percent: &dyn Fn(u64) -> f64) -> String {
        format!(
            "gammons: A {} ({:.1}%), B {} ({:.1}%); backgammons: A {}, B {}",
            r.gammons_a,
            percent(r.gammons_a),
            r.gammons_b,
            percent(r.gammons_b),
            r.backgammons_a,
            r.backgammons_b
        )
    }
}

impl CliGame for TavliPosition {
    type Given = TavliPosition;
    const POSITION_KEY: &'static str = "position";
    const NAMES_ENDINGS: bool = true;

    /// A full position string naming `variant`, or `MOVER:OPPONENT` alone.
    fn read(variant: Variant, text: Option<&str>) -> Result<TavliPosition, CliError> {
        let Some(t) = text.map(str::trim) else {
            return Ok(TavliPosition::start(variant));
        };
        let parsed = match parse_position_string(t) {
            Err(PositionStringError::Parts) if t.split(':').count() == 2 => {
                parse_position_string(&format!("{variant}:{t}"))
            }
            other => other,
        };
        let pos = parsed.map_err(|e| format!("bad {variant} position: {e}"))?;
        if pos.variant() != variant {
            return Err(format!(
                "the position is a {} position but --variant is {variant}",
                pos.variant()
            )
            .into());
        }
        Ok(pos)
    }

    fn on_roll(given: &TavliPosition) -> TavliPosition {
        *given
    }

    fn play_text(_pos: &TavliPosition, play: &crate::tavli::TavliPlay) -> String {
        crate::tavli::format_play(play)
    }

    fn parse_play(
        pos: &TavliPosition,
        dice: Dice,
        text: &str,
    ) -> Result<crate::tavli::TavliPlay, CliError> {
        let rules = crate::tavli::RuleSwitches::default();
        Ok(crate::tavli::parse_play(pos, dice, &rules, text)?)
    }

    fn position_text(pos: &TavliPosition) -> String {
        crate::tavli::position_string(pos)
    }

    fn show(given: &TavliPosition, _text: Option<&str>, json: bool) -> Result<String, CliError> {
        super::show::tavli(given, json)
    }

    fn hint(a: &HintArgs, variant: Variant, spec: &EngineSpec) -> Result<(), CliError> {
        super::hint::tavli(a, variant, spec)
    }

    fn movegen_set(
        variant: Variant,
        games: Option<&str>,
    ) -> Result<(Vec<(TavliPosition, Dice)>, String), CliError> {
        let games = games.unwrap_or("random");
        let set = if games == "engine" {
            crate::bench::tavli_engine_movegen_set(variant)?
        } else {
            crate::bench::tavli_movegen_set(variant)
        };
        Ok((set, format!(" --variant {variant} --games {games}")))
    }

    fn movegen_split(set: &[(TavliPosition, Dice)], rounds: u32) -> Option<crate::tavli::Split> {
        let rules = crate::tavli::RuleSwitches::default();
        Some(crate::tavli::movegen_split(set, &rules, rounds))
    }

    fn duel_counts(r: &DuelResult, json: &mut Value, percent: &dyn Fn(u64) -> f64) -> String {
        // The Tavli games' names of the double-game counts, kept for one release.
        json["doubles_a"] = serde_json::json!(r.gammons_a);
        json["doubles_b"] = serde_json::json!(r.gammons_b);
        format!(
            "won with 2 points: A {} ({:.1}%), B {} ({:.1}%)",
            r.gammons_a,
            percent(r.gammons_a),
            r.gammons_b,
            percent(r.gammons_b)
        )
    }
}

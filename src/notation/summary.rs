//! The one summary of a backgammon position and its match state, as `show --json` prints
//! it and the HTTP API returns it: every notation of the position, the board to draw, and
//! the figures a reader looks at first. Sides are named from the side to act's view:
//! `[side to act, opponent]`, `self` and `opponent`.

use serde::Serialize;

use super::ids::{encode_match_state, position_id};
use super::xgid::Xgid;
use crate::game::{CubeOwner, Decision, MatchState};

/// A position summary (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PositionSummary {
    /// Always `backgammon` (a Tavli game's summary names its game here too).
    pub variant: &'static str,
    pub position_id: String,
    /// gnubg's Match ID; None for a state it cannot encode.
    pub match_id: Option<String>,
    pub xgid: String,
    /// Checkers per slot in the side to act's numbering: 0 the opponent's bar, 1-24 the
    /// points, 25 the own bar; positive the side to act's, negative the opponent's.
    pub board: [i8; 26],
    pub pips: [u32; 2],
    /// Checkers borne off.
    pub off: [u8; 2],
    /// Checkers on the bar.
    pub bar: [u8; 2],
    pub cube: u32,
    /// `centered`, `self` (the side to act) or `opponent`.
    pub cube_owner: &'static str,
    /// 0 in money play.
    pub match_length: u32,
    pub score: [u32; 2],
    pub crawford: bool,
    /// `move`, `double_or_roll`, `take_or_drop`, `beaver_answer` or `game_over`.
    pub decision: &'static str,
    /// The roll to play at a checker play.
    pub dice: Option<[u8; 2]>,
    /// gnubg's number (0 or 1) of the side to act.
    pub acting_player: u8,
}

/// The word of a decision in a summary.
pub fn decision_word(d: Decision) -> &'static str {
    match d {
        Decision::Move(_) => "move",
        Decision::DoubleOrRoll => "double_or_roll",
        Decision::TakeOrDrop => "take_or_drop",
        Decision::BeaverAnswer => "beaver_answer",
        Decision::GameOver => "game_over",
    }
}

impl PositionSummary {
    /// The summary of `state`.
    pub fn of(state: &MatchState) -> PositionSummary {
        let p = &state.position;
        let (position_id, match_id) = match encode_match_state(state) {
            Ok((pid, mid)) => (pid, Some(mid)),
            Err(_) => (position_id(p), None),
        };
        PositionSummary {
            variant: "backgammon",
            position_id,
            match_id,
            xgid: Xgid::from_match_state(state).to_string(),
            board: *p.slots(),
            pips: [p.pips(), p.opp_pips()],
            off: [p.off(), p.opp_off()],
            bar: [p.bar(), p.opp_bar()],
            cube: state.cube,
            cube_owner: match state.cube_owner {
                CubeOwner::Centered => "centered",
                CubeOwner::Me => "self",
                CubeOwner::Opponent => "opponent",
            },
            match_length: state.match_length,
            score: [state.score, state.opp_score],
            crawford: state.crawford,
            decision: decision_word(state.decision),
            dice: match state.decision {
                Decision::Move(d) => Some([d.high(), d.low()]),
                _ => None,
            },
            acting_player: state.acting_player & 1,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::{Dice, Position};

    #[test]
    fn the_opening_summarised() {
        let state = MatchState::money(Position::OPENING, Decision::Move(Dice::new(3, 1).unwrap()));
        let s = PositionSummary::of(&state);
        assert_eq!(s.position_id, "4HPwATDgc/ABMA");
        assert_eq!((s.pips, s.off, s.bar), ([167, 167], [0, 0], [0, 0]));
        assert_eq!(
            (s.decision, s.dice, s.cube_owner),
            ("move", Some([3, 1]), "centered")
        );
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["variant"], "backgammon");
        assert_eq!(v["board"].as_array().unwrap().len(), 26);
    }
}

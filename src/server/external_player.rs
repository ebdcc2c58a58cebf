//! gnubg's external player (`set player N external`): every line is a board in gnubg's
//! convention and every reply is something gnubg acts on
//! ([`crate::protocol::gnubg::player_reply`]); when a decision fails the reply is one that
//! needs no search, so gnubg never stalls. The boards also tell the games apart for the
//! operator's log ([`super::games`]).

use tracing::{error, info};

use super::connection::{log_game, Closed, Connection, Failure};
use crate::engine::{Outcome, Work};
use crate::notation::fibs_board::{Convention, FibsBoard};
use crate::protocol::gnubg;
use crate::protocol::lines::Frame;

/// A reply gnubg accepts without searching, for when a decision failed: the first legal
/// play, `roll` at a double question, `take` at a take question. gnubg must never stall.
fn fallback_player_reply(state: &crate::game::MatchState) -> String {
    use crate::game::Decision;
    match state.decision {
        Decision::Move(d) => crate::game::legal_plays(&state.position, d)
            .first()
            .map(|p| gnubg::format_play(p, gnubg::MoveStyle::Gnubg))
            .unwrap_or_default(),
        Decision::DoubleOrRoll => "roll".to_string(),
        Decision::TakeOrDrop | Decision::BeaverAnswer => "take".to_string(),
        Decision::GameOver => String::new(),
    }
}

impl Connection {
    /// gnubg's external player: answer every board with something gnubg acts on.
    pub(super) async fn player_frame(&mut self, frame: Frame) -> Result<(), Closed> {
        let Frame::Line { bytes, .. } = frame else {
            error!("over-long line from gnubg; answering with an empty line");
            self.count_error();
            return self.write_line("").await;
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if text.trim().is_empty() {
            return Ok(());
        }
        let state = match FibsBoard::parse(&text).and_then(|b| b.to_match_state(Convention::Gnubg))
        {
            Ok(s) => s,
            Err(e) => {
                // Nothing gnubg sends should fail here; an empty line is the only reply that
                // neither stops gnubg nor resigns.
                error!(error = %e, board = %text, "unreadable board from gnubg");
                self.count_error();
                return self.write_line("").await;
            }
        };
        if let Some(g) = self.games.board(&state) {
            log_game(&g);
        }
        let work = Work::Decide(state.clone());
        let reply = match self.answer(work, self.shared.engine.clone()).await {
            Ok(Outcome::Action(a)) => gnubg::player_reply(&a).unwrap_or_else(|| {
                error!(action = ?a, "action without a player reply");
                fallback_player_reply(&state)
            }),
            Ok(Outcome::Evaluation(_)) => fallback_player_reply(&state),
            Err(Failure::ClientGone(c)) => return Err(c),
            Err(Failure::Engine(e)) => {
                error!(error = %e, "decision failed; answering without a search");
                self.count_error();
                fallback_player_reply(&state)
            }
            Err(Failure::Internal) => {
                error!("search failed; answering without a search");
                self.count_error();
                fallback_player_reply(&state)
            }
            Err(Failure::Unavailable) => return Err(Closed::Shutdown),
        };
        if self.debug {
            info!(%text, %reply, "decision");
        }
        self.write_line(&reply).await
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::{Decision, Dice, MatchState, Position};

    #[test]
    fn fallback_replies_are_always_acceptable_to_gnubg() {
        let dice = Dice::new(6, 4).unwrap();
        let moved =
            fallback_player_reply(&MatchState::money(Position::OPENING, Decision::Move(dice)));
        let legal: Vec<String> = crate::game::legal_plays(&Position::OPENING, dice)
            .iter()
            .map(|p| gnubg::format_play(p, gnubg::MoveStyle::Gnubg))
            .collect();
        assert!(legal.contains(&moved));
        let roll = MatchState::money(Position::OPENING, Decision::DoubleOrRoll);
        assert_eq!(fallback_player_reply(&roll), "roll");
        let take = MatchState::money(Position::OPENING, Decision::TakeOrDrop);
        assert_eq!(fallback_player_reply(&take), "take");
    }
}

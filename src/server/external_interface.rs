//! gnubg's external interface: one request a line (`board:...` with its options,
//! `evaluation ...`, `version`, `help`, `set debug`, `exit`), answered with one reply or
//! an `Error: ...` line; a line in the Tavli request form goes to `tavli.rs`. Boards are
//! read in the listener's convention (`server.board_convention`).

use tracing::{debug, info};

use super::connection::{Closed, Connection, Failure};
use crate::config::BoardConvention;
use crate::engine::{EvalOptions, Outcome, Work};
use crate::notation::fibs_board::{Convention, FibsBoard};
use crate::protocol::gnubg::{self, Request};
use crate::protocol::lines::Frame;

impl Connection {
    /// The external interface: requests and `Error:` replies.
    pub(super) async fn interface_frame(&mut self, frame: Frame) -> Result<(), Closed> {
        let bytes = match frame {
            Frame::TooLong => {
                let e = gnubg::RequestError::TooLong {
                    max: self.shared.server.max_line_bytes,
                };
                return self.write_line(&gnubg::error_reply(&e)).await;
            }
            Frame::Line { bytes, .. } => bytes,
        };
        if let Ok(text) = std::str::from_utf8(&bytes) {
            if crate::protocol::tavli::is_tavli_line(text, self.shared.server.variant) {
                let line = self.tavli_line(text).await?;
                return self.write_line(&line).await;
            }
        }
        let request = match gnubg::parse_request(&bytes) {
            Ok(r) => r,
            Err(e) => {
                debug!(error = %e, "bad request");
                return self.write_line(&gnubg::error_reply(&e)).await;
            }
        };
        if self.debug {
            info!(request = %String::from_utf8_lossy(&bytes).trim_end(), "request");
        }
        match request {
            Request::Version => {
                for l in gnubg::version_lines(&self.shared.engine.name()) {
                    self.write_line(&l).await?;
                }
                Ok(())
            }
            Request::Help => self.write_line(gnubg::help_line()).await,
            Request::SetDebug(on) => {
                self.debug = on;
                self.write_line(&gnubg::debug_reply(on)).await
            }
            Request::Exit => Err(Closed::Exit),
            Request::Board { board, options } => {
                let mut state = match self.read_board(&board) {
                    Ok(s) => s,
                    Err(line) => return self.write_line(&line).await,
                };
                if state.decision == crate::game::Decision::GameOver {
                    return self
                        .write_line("Error: the game is over; nothing to decide")
                        .await;
                }
                // The request's options, then any rules the board's text states, then
                // the configuration.
                let mut cube = self.shared.engine.rules_for(&state);
                if let Some(j) = options.jacoby {
                    cube.jacoby = j;
                }
                if let Some(b) = options.beavers {
                    cube.beavers = b;
                }
                if options.crawford == Some(false) && state.crawford {
                    state.crawford = false;
                    state.may_double = state.cube_owner != crate::game::CubeOwner::Opponent;
                    state.opp_may_double = state.cube_owner != crate::game::CubeOwner::Me;
                }
                let engine = self.shared.engine.with_cube(cube);
                let work = match options.resignation {
                    Some(n) => Work::Resignation(state, n),
                    None => Work::Decide(state),
                };
                match self.answer(work, engine).await {
                    Ok(Outcome::Action(a)) => self.write_line(&gnubg::interface_reply(&a)).await,
                    Ok(Outcome::Evaluation(_)) => self.write_line("Error: internal error").await,
                    Err(f) => self.failure_reply(f).await,
                }
            }
            Request::Evaluation { board, options } => {
                let state = match self.read_board(&board) {
                    Ok(s) => s,
                    Err(line) => return self.write_line(&line).await,
                };
                let opts = EvalOptions {
                    depth: options.depth(),
                    cubeful: options.cubeful,
                    noise: options.noise,
                    deterministic: options.deterministic,
                };
                match self
                    .answer(Work::Evaluate(state, opts), self.shared.engine.clone())
                    .await
                {
                    Ok(Outcome::Evaluation(r)) => {
                        self.write_line(&gnubg::evaluation_reply(&r)).await
                    }
                    Ok(Outcome::Action(_)) => self.write_line("Error: internal error").await,
                    Err(f) => self.failure_reply(f).await,
                }
            }
        }
    }

    async fn failure_reply(&mut self, f: Failure) -> Result<(), Closed> {
        match f {
            Failure::ClientGone(c) => Err(c),
            Failure::Engine(e) => self.write_line(&gnubg::error_reply(&e)).await,
            Failure::Unavailable => {
                self.write_line("Error: the server is shutting down")
                    .await?;
                Err(Closed::Shutdown)
            }
            Failure::Internal => self.write_line("Error: internal error in the search").await,
        }
    }

    /// Parses a board in the listener's convention; `Err` holds the error reply.
    fn read_board(&self, board: &str) -> Result<crate::game::MatchState, String> {
        let parsed = FibsBoard::parse(board)
            .map_err(|e| gnubg::error_reply(&format!("badly formed board ({e})")))?;
        let convention: Convention = match self.shared.server.board_convention {
            BoardConvention::Auto => self.shared.server.board_convention.resolve(&parsed),
            c => c.resolve(&parsed),
        };
        parsed
            .to_match_state(convention)
            .map_err(|e| gnubg::error_reply(&format!("badly formed board ({e})")))
    }
}

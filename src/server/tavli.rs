//! The Tavli games on the server: request lines of the external interface (a position
//! string and a roll, `server.variant` the game of a line without its prefix) answered
//! with the chosen play, and the ranking of a roll's plays by the game's net that the HTTP
//! API's `/v1/tavli/move` shares, run on the pool as a task.

use std::time::Instant;

use super::connection::{Closed, Connection};
use super::Shared;
use crate::protocol::gnubg;

impl Connection {
    /// A Tavli request of the external interface: the chosen play in gnubg's notation (an
    /// empty line when no play is legal), or an `Error:` line.
    pub(super) async fn tavli_line(&mut self, text: &str) -> Result<String, Closed> {
        let request = match crate::protocol::tavli::parse_request(text, self.shared.server.variant)
        {
            Ok(r) => r,
            Err(e) => return Ok(gnubg::error_reply(&e)),
        };
        let started = Instant::now();
        let depth = self.shared.tavli_depth();
        match self.shared.tavli_plays(request, depth).await {
            Ok(plays) => {
                self.shared.note_decision(started.elapsed());
                Ok(plays
                    .first()
                    .map(|p| p.notation.clone())
                    .unwrap_or_default())
            }
            Err(e) => {
                self.count_error();
                Ok(gnubg::error_reply(&e))
            }
        }
    }
}

impl Shared {
    /// The nets of a Tavli game (loaded once, at the first request).
    pub fn tavli_nets(
        &self,
        variant: crate::tavli::Variant,
    ) -> Result<crate::players::tavli::TavliNets, String> {
        let i = match variant {
            crate::tavli::Variant::Portes => 0,
            crate::tavli::Variant::Plakoto => 1,
            crate::tavli::Variant::Fevga => 2,
            crate::tavli::Variant::Backgammon => {
                return Err("backgammon is not a Tavli game".into())
            }
        };
        self.tavli[i]
            .get_or_init(|| crate::players::tavli::TavliNets::load(variant, None))
            .clone()
    }

    /// The depth Tavli requests are searched to: 3 when the engine searches 3 or more,
    /// else 1 (the Tavli players' two depths).
    pub fn tavli_depth(&self) -> u8 {
        crate::search::tavli::depth_for(self.engine.settings().depth)
    }

    /// The plays of a Tavli request ranked on the pool (best first).
    pub async fn tavli_plays(
        &self,
        request: crate::protocol::tavli::TavliRequest,
        depth: u8,
    ) -> Result<Vec<crate::players::tavli::TavliHintPlay>, String> {
        let searcher = crate::search::tavli::TavliSearcher::star2(
            self.tavli_nets(request.position.variant())?,
            depth,
        );
        self.run_task(move || {
            crate::players::tavli::hint(&searcher, &request.position, request.dice)
        })
        .await
        .map_err(|e| e.to_string())
    }
}

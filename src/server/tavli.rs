//! The Tavli games on the server: request lines of the external interface (a position
//! string and a roll, `server.variant` the game of a line without its prefix) answered
//! with the chosen play, and the ranking of a roll's plays by the game's net that the HTTP
//! API's `/v1/tavli/move` shares, searched on the pool as backgammon's decisions are.

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
        match self.shared.tavli_plays(request, None, 1).await {
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
    /// The searcher of a Tavli game: the game's own net under the configured search,
    /// sharing the pool's table (built at the game's first request).
    pub fn tavli_searcher(
        &self,
        variant: crate::game::Variant,
    ) -> Result<crate::search::Searcher<crate::tavli::TavliPosition>, String> {
        let i = match variant {
            crate::game::Variant::Portes => 0,
            crate::game::Variant::Plakoto => 1,
            crate::game::Variant::Fevga => 2,
            crate::game::Variant::Backgammon => return Err("backgammon is not a Tavli game".into()),
        };
        self.tavli[i]
            .get_or_init(|| {
                crate::engine::build::tavli_with(
                    &self.tavli_spec,
                    variant,
                    self.pool.searcher().table().clone(),
                )
                .map(|e| e.searcher)
                .map_err(|e| e.to_string())
            })
            .clone()
    }

    /// The depth Tavli requests are searched to unless they ask: the engine's, at most 5
    /// ([`crate::engine::build::tavli_spec`]).
    pub fn tavli_depth(&self) -> u32 {
        self.tavli_spec.depth.get()
    }

    /// The plays of a Tavli request ranked on the pool (best first): through
    /// [`Shared::search_tavli`], at `depth` (the Tavli depth when `None`), the best `rank`
    /// valued at the deepest iteration.
    pub async fn tavli_plays(
        &self,
        request: crate::protocol::tavli::TavliRequest,
        depth: Option<u32>,
        rank: usize,
    ) -> Result<Vec<crate::players::tavli::TavliHintPlay>, String> {
        let detail = if rank > 1 {
            super::work::Detail::Ranked(rank)
        } else {
            super::work::Detail::Decision
        };
        let decision = self
            .search_tavli(request.position, request.dice, depth, detail)
            .await?;
        Ok(crate::players::tavli::hint_plays(&decision))
    }
}

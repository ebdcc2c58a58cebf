//! CPU work of other front ends (the HTTP API) on the server's worker pool, under the same
//! backpressure and per-request caps as the line protocols: searches as pool jobs, anything
//! else (a rollout) as pool tasks. The async caller only awaits; nothing here runs CPU work
//! on the runtime.

use std::time::Duration;

use tokio::sync::oneshot;

use super::metrics::{Metrics, Protocol};
use super::{request_settings, Shared};
use crate::config::ServerConfig;
use crate::search::{Cancel, Job, Query, SearchOutcome, SearchSettings};

/// Why work given to the pool produced no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolError {
    /// The pool's queue is full (a task: no slot free at once).
    Busy,
    /// The pool is shutting down.
    ShuttingDown,
    /// The search was stopped before its first iteration completed.
    Cancelled,
    /// The work panicked.
    Failed,
}

impl std::fmt::Display for PoolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PoolError::Busy => "the server is busy; try again",
            PoolError::ShuttingDown => "the server is shutting down",
            PoolError::Cancelled => "the search was stopped before it completed",
            PoolError::Failed => "internal error in the search",
        })
    }
}

impl std::error::Error for PoolError {}

/// A search's outcome with the depth asked for when the server's cap lowered it.
#[derive(Debug, Clone, PartialEq)]
pub struct Searched {
    pub outcome: SearchOutcome,
    pub capped_from: Option<u32>,
}

/// Cancels a search whose caller stopped waiting (an HTTP client that went away drops the
/// request's future) and counts it as abandoned; once the answer is in, dropping it only
/// lowers the flag of a finished search.
struct AbandonGuard<'a> {
    cancel: Cancel,
    metrics: &'a Metrics,
    answered: bool,
}

impl Drop for AbandonGuard<'_> {
    fn drop(&mut self) {
        if !self.answered {
            self.metrics.abandoned(Protocol::Http);
            tracing::info!("HTTP client went away during a search; cancelled");
        }
        self.cancel.cancel();
    }
}

impl Shared {
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The `[server]` settings the server runs with (limits, caps).
    pub fn server_config(&self) -> &ServerConfig {
        &self.server
    }

    /// Worker threads of the pool.
    pub fn pool_threads(&self) -> usize {
        self.pool.threads()
    }

    /// Jobs and tasks waiting for a worker.
    pub fn pool_queued(&self) -> usize {
        self.pool.queued()
    }

    /// Searches `query` at `depth` on the pool, within the server's per-request caps
    /// (`adjust` may change other settings: ranked plays, probabilities). Waits for a queue
    /// slot like the line protocols (backpressure); dropping the future cancels the search.
    pub async fn search(
        &self,
        query: Query,
        depth: u32,
        adjust: impl FnOnce(&mut SearchSettings),
    ) -> Result<Searched, PoolError> {
        self.search_then(query, depth, adjust, |s| s).await
    }

    /// As [`Shared::search`], then `finish` turns the outcome into the caller's answer on
    /// the worker thread too (valuing plays, formatting a reply), as the line protocols
    /// complete their decisions in the job's reply.
    pub async fn search_then<T: Send + 'static>(
        &self,
        query: Query,
        depth: u32,
        adjust: impl FnOnce(&mut SearchSettings),
        finish: impl FnOnce(Searched) -> T + Send + 'static,
    ) -> Result<T, PoolError> {
        let (mut settings, capped_from) = request_settings(&self.plan, depth, &self.server);
        adjust(&mut settings);
        let slots = self.slots_for(&settings);
        let slot = slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| PoolError::ShuttingDown)?;
        let (tx, rx) = oneshot::channel::<Result<T, PoolError>>();
        let cancel = Cancel::new();
        let mut guard = AbandonGuard {
            cancel: cancel.clone(),
            metrics: &self.metrics,
            answered: false,
        };
        let job = Job::new(query, settings, move |outcome| {
            drop(slot);
            let answer = match outcome {
                SearchOutcome::Cancelled => Err(PoolError::Cancelled),
                outcome => Ok(finish(Searched {
                    outcome,
                    capped_from,
                })),
            };
            // The receiver is gone only if the caller stopped waiting.
            let _ = tx.send(answer);
        })
        .with_cancel(cancel);
        self.pool
            .try_submit(job)
            .map_err(|_| PoolError::ShuttingDown)?;
        // The reply dropped unanswered: the search (or `finish`) panicked.
        let answer = rx.await.unwrap_or(Err(PoolError::Failed));
        guard.answered = true;
        answer
    }

    /// Runs `task` on a pool worker and awaits its result. The task holds a queue slot
    /// while it waits and runs; none free at once is [`PoolError::Busy`] (a long task is
    /// not worth queueing behind a full queue).
    pub async fn run_task<T: Send + 'static>(
        &self,
        task: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, PoolError> {
        // Tasks (rollouts and the like) are expensive: they share the deep lane's slots.
        let slot = self
            .deep_slots
            .clone()
            .try_acquire_owned()
            .map_err(|_| PoolError::Busy)?;
        let (tx, rx) = oneshot::channel::<T>();
        self.pool
            .try_run(move || {
                let out = task();
                drop(slot);
                let _ = tx.send(out);
            })
            .map_err(|e| match e {
                crate::search::pool::TaskError::Full => PoolError::Busy,
                crate::search::pool::TaskError::Closed => PoolError::ShuttingDown,
            })?;
        rx.await.map_err(|_| PoolError::Failed)
    }

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

    /// The longest one request may search (`server.max_request_ms`; `None`: no cap).
    pub fn request_time_cap(&self) -> Option<Duration> {
        (self.server.max_request_ms > 0).then(|| Duration::from_millis(self.server.max_request_ms))
    }
}

//! The one path from a front end into the worker pool. Every decision, evaluation and
//! ranking, whichever protocol asked (gnubg's external player, its external-interface
//! requests, the HTTP API), is a [`Work`] item answered by [`Shared::answer_with`]:
//! [`Engine::need`] says what to search, the server's per-request caps
//! ([`request_settings`]: `server.max_request_depth`, `server.max_request_ms`) bound it,
//! the lane's queue slots give backpressure, the search runs as a pool job with a cancel
//! flag that dropping the future raises, and the front end's `finish` turns the result
//! into its answer on the worker thread ([`Engine::complete`] for the line protocols).
//! A Tavli game's roll takes the same path ([`Shared::search_tavli`]: the same caps, lanes
//! and cancellation, the game's own searcher sharing the pool's table). CPU work that is
//! not a search (a rollout) goes to the pool as a task ([`Shared::run_task`]). The async caller only awaits; nothing here runs CPU work on
//! the runtime.

use std::time::Duration;

use tokio::sync::oneshot;
use tracing::{info, warn};

use super::metrics::Metrics;
use super::Shared;
use crate::config::ServerConfig;
use crate::engine::{Engine, EngineError, Found, Need, Outcome, PlayProbs, SearchPlan, Work};
use crate::search::{Cancel, Job, MoveDecision, Query, SearchOutcome, SearchSettings};
use crate::tavli::{TavliPlay, TavliPosition};

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

/// How much of the search a front end wants back beyond what [`Engine::complete`] needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// The decision only: the search's own ranking and static probabilities of the plays.
    Decision,
    /// The best `n` plays valued exactly at the full depth, and every ranked play's
    /// probabilities at the searched depth (the HTTP API's ranked list).
    Ranked(usize),
}

/// What the pool found for a piece of work: the search's outcome (`None` when the engine
/// needed no search) and the depth asked for when the server's cap lowered it.
#[derive(Debug, Clone, PartialEq)]
pub struct Searched {
    pub outcome: Option<SearchOutcome>,
    pub capped_from: Option<u32>,
}

impl Searched {
    /// The result in the facade's terms, for [`Engine::complete`].
    pub fn found(&self) -> Result<Found, EngineError> {
        match &self.outcome {
            None => Ok(Found::Nothing),
            Some(SearchOutcome::Move(d)) => {
                Ok(Found::Plays(d.plays.iter().map(PlayProbs::from).collect()))
            }
            Some(SearchOutcome::Position(p)) => Ok(Found::Position(p.clone())),
            Some(SearchOutcome::Cancelled) => Err(EngineError::Cancelled),
            // A backgammon request never gets a Tavli answer.
            Some(SearchOutcome::Tavli(_)) => Err(EngineError::WrongResult),
        }
    }
}

/// Raises a search's cancel flag when dropped: the caller stopped waiting (a client that
/// went away, a connection stopped at shutdown) or the answer is in, when lowering the
/// flag of a finished search does nothing.
struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// The search settings of one request at `depth` under the server's per-request caps, and
/// the depth asked for when the cap lowered it.
pub fn request_settings(
    plan: &SearchPlan,
    depth: u32,
    server: &ServerConfig,
) -> (SearchSettings, Option<u32>) {
    let cap = server.max_request_depth.get();
    let mut settings = plan.settings(depth.min(cap));
    if server.max_request_ms > 0 {
        let limit = Duration::from_millis(server.max_request_ms);
        settings.time_budget = Some(settings.time_budget.map_or(limit, |b| b.min(limit)));
    }
    (settings, (depth > cap).then_some(depth))
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

    /// Answers `work` as `engine` decides it, through [`Engine::complete`]: the line
    /// protocols' actions and evaluations.
    pub async fn answer(
        &self,
        work: Work,
        engine: Engine,
    ) -> Result<Result<Outcome, EngineError>, PoolError> {
        self.answer_with(work, engine, Detail::Decision, |engine, work, searched| {
            searched.found().and_then(|f| engine.complete(work, f))
        })
        .await
    }

    /// Searches what `engine` needs for `work` ([`Engine::need`]) on the pool, within the
    /// server's per-request caps, then `finish` turns the result into the caller's answer
    /// on the worker thread (on the caller's when no search is needed), with the engine
    /// and the work. Waits for a queue slot of the search's lane (backpressure); dropping
    /// the future cancels the search. A search cancelled before its first iteration is
    /// [`PoolError::Cancelled`].
    pub async fn answer_with<T: Send + 'static>(
        &self,
        work: Work,
        engine: Engine,
        detail: Detail,
        finish: impl FnOnce(&Engine, &Work, Searched) -> T + Send + 'static,
    ) -> Result<T, PoolError> {
        let (query, depth, utility) = match engine.need(&work) {
            Need::Nothing => {
                let searched = Searched {
                    outcome: None,
                    capped_from: None,
                };
                return Ok(finish(&engine, &work, searched));
            }
            Need::Plays {
                position,
                dice,
                depth,
                utility,
            } => (Query::Move { position, dice }, depth, utility),
            Need::Probabilities {
                position,
                depth,
                utility,
            } => (Query::Position { position }, depth, utility),
        };
        let (mut settings, capped_from) = self.capped_settings(depth, detail);
        settings.utility = utility;
        self.submit(query, settings, move |outcome| {
            finish(
                &engine,
                &work,
                Searched {
                    outcome: Some(outcome),
                    capped_from,
                },
            )
        })
        .await
    }

    /// Ranks the plays of a Tavli game's roll on the pool, as backgammon's decisions are
    /// searched: at the Tavli depth ([`Shared::tavli_depth`], or `depth`) under the
    /// server's per-request caps, in the lane of its depth, cancelled when the caller stops
    /// waiting. `detail` as for [`Shared::answer_with`].
    pub async fn search_tavli(
        &self,
        position: TavliPosition,
        dice: crate::game::Dice,
        depth: Option<u32>,
        detail: Detail,
    ) -> Result<MoveDecision<TavliPlay>, String> {
        let searcher = self.tavli_searcher(position.variant())?;
        let asked = depth.unwrap_or(self.tavli_depth());
        let (settings, _) = self.capped_settings(asked, detail);
        let query = Query::Tavli {
            searcher,
            position,
            dice,
        };
        match self.submit(query, settings, |outcome| outcome).await {
            Ok(SearchOutcome::Tavli(d)) => Ok(d),
            Ok(_) => Err(PoolError::Failed.to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The settings of a request at `depth` under the server's caps ([`request_settings`])
    /// with `detail`'s ranking, and the depth asked for when the cap lowered it (logged).
    fn capped_settings(&self, depth: u32, detail: Detail) -> (SearchSettings, Option<u32>) {
        let (mut settings, capped_from) = request_settings(&self.plan, depth, &self.server);
        if let Detail::Ranked(n) = detail {
            settings.rank = n;
            settings.probabilities = true;
        }
        if let Some(asked) = capped_from {
            info!(
                asked,
                cap = self.server.max_request_depth.get(),
                "request deeper than server.max_request_depth: answered at the cap"
            );
        }
        (settings, capped_from)
    }

    /// Submits one query to the pool with a queue slot of its lane (waiting for one:
    /// backpressure) and a cancel flag that dropping the future raises; `done` turns the
    /// outcome into the answer on the worker thread. A search cancelled before its first
    /// iteration is [`PoolError::Cancelled`].
    async fn submit<T: Send + 'static>(
        &self,
        query: Query,
        settings: SearchSettings,
        done: impl FnOnce(SearchOutcome) -> T + Send + 'static,
    ) -> Result<T, PoolError> {
        let slot = self
            .slots_for(&settings)
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| PoolError::ShuttingDown)?;
        let (tx, rx) = oneshot::channel::<Result<T, PoolError>>();
        let cancel = Cancel::new();
        let _guard = CancelOnDrop(cancel.clone());
        let job = Job::new(query, settings, move |outcome| {
            drop(slot);
            let answer = match outcome {
                SearchOutcome::Cancelled => Err(PoolError::Cancelled),
                outcome => Ok(done(outcome)),
            };
            // The receiver is gone only if the caller stopped waiting.
            let _ = tx.send(answer);
        })
        .with_cancel(cancel);
        if let Err(e) = self.pool.try_submit(job) {
            warn!(error = %e, "search pool refused a job");
            return Err(PoolError::ShuttingDown);
        }
        // The reply dropped unanswered: the search (or `done`) panicked.
        rx.await.unwrap_or(Err(PoolError::Failed))
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

    /// The longest one request may search (`server.max_request_ms`; `None`: no cap).
    pub fn request_time_cap(&self) -> Option<Duration> {
        (self.server.max_request_ms > 0).then(|| Duration::from_millis(self.server.max_request_ms))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_searched_within_the_servers_caps() {
        let server = ServerConfig::default();
        let plan = SearchPlan::default();
        // `plies 7` asks for depth 15: answered at the cap, depth 7, noted.
        let (s, capped) = request_settings(&plan, 15, &server);
        assert_eq!((s.depth, capped), (7, Some(15)));
        assert_eq!(s.time_budget, Some(Duration::from_millis(10_000)));
        let (s, capped) = request_settings(&plan, 3, &server);
        assert_eq!((s.depth, capped), (3, None));
        // The plan's own budget stays when it is the shorter one; no cap keeps it as is.
        let tight = SearchPlan {
            time_budget: Some(Duration::from_millis(200)),
            ..plan
        };
        let (s, _) = request_settings(&tight, 3, &server);
        assert_eq!(s.time_budget, Some(Duration::from_millis(200)));
        let open = ServerConfig {
            max_request_ms: 0,
            ..server
        };
        assert_eq!(request_settings(&plan, 3, &open).0.time_budget, None);
    }

    /// Every `.rs` file under `dir`.
    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn searches_reach_the_pool_only_through_answer_with() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut submitting: Vec<String> = files
            .iter()
            .filter(|f| !f.starts_with(src.join("search")))
            .filter(|f| {
                let text = std::fs::read_to_string(f).unwrap();
                text.contains("Job::new(") || text.contains(".try_submit(")
            })
            .map(|f| {
                f.strip_prefix(&src)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        submitting.sort();
        assert_eq!(submitting, ["server/work.rs"]);
    }
}

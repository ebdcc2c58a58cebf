//! The bot server (tokio): gnubg's external-player protocol, its external-interface
//! requests and Tavli request lines on one TCP port, and the shared state the HTTP API
//! ([`crate::http`]) serves from too.
//!
//! Shape (after tokio's mini-redis): the whole API is [`run`] (or [`run_with`]) taking a bound
//! listener and a shutdown future, so tests and benchmarks bind port 0 and talk to a real
//! server over a real socket. One file per concern:
//!
//! - **Listener** (`listener.rs`): a semaphore caps connections (`server.max_connections`; a
//!   client beyond the cap gets `Error: too many connections` and is closed). Each runs in
//!   its own task and tracing span.
//! - **Connection** (`connection.rs`): lines are read through a bounded line codec
//!   ([`crate::protocol::lines`], a `tokio_util` decoder over a `BytesMut`): over-long lines,
//!   binary data, half lines and abrupt disconnects end in an error reply or a clean close,
//!   never in unbounded memory or a panic, and never affect other connections. An optional
//!   idle timeout closes silent connections. The first line decides the protocol: a
//!   `board:` line terminated by `\n` and a NUL byte is gnubg as an external player (`set
//!   player N external`); anything else is the external interface. If the NUL has not
//!   arrived with the first line, the server waits `server.nul_wait_ms` for it.
//! - **Protocols**, one file each: gnubg's external player (`external_player.rs`: every
//!   line a board in gnubg's convention, every reply something gnubg acts on,
//!   [`crate::protocol::gnubg::player_reply`]), its external interface
//!   (`external_interface.rs`: requests, with `Error: ...` replies for bad input) and the
//!   Tavli request lines the external interface also takes (`tavli.rs`).
//! - **Work** (`work.rs`): CPU work never runs on the async runtime. Every front end's
//!   decision, the HTTP API's included, takes one path into the search worker pool
//!   ([`crate::search::pool`]): [`Shared::answer_with`] asks [`Engine::need`] what to
//!   search, bounds it by the per-request caps, waits for a slot of the lane's queue
//!   (backpressure: callers wait instead of growing a queue) and submits a job whose reply
//!   callback finishes the answer on the worker thread ([`Engine::complete`] for the line
//!   protocols) and sends it back through a oneshot channel. While a decision runs the
//!   connection keeps reading, so a client that goes away cancels its decision at once.
//! - **Shutdown**: "tell, remember, wait": a `CancellationToken` tells every connection to
//!   stop (their running decisions are cancelled), a `TaskTracker` remembers them, and the
//!   server waits at most `server.shutdown_grace_ms` for them.
//! - **Logs** (for the operator, at INFO): one line per connection when it closes (reason,
//!   protocol, decisions with their mean and longest time), one per game of gnubg's external
//!   player (inferred from its boards, see [`games`]), a warning per connection turned away,
//!   and [`ServerSummary`], which [`run`] returns for the stop line. [`metrics`] counts
//!   every protocol for `/metrics`.

mod connection;
mod external_interface;
mod external_player;
pub mod games;
mod listener;
pub mod metrics;
mod tavli;
mod work;

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tracing::debug;

use crate::config::{Config, ServerConfig};
use crate::engine::build::{self as engine_build, BuildError};
use crate::engine::{Engine, SearchPlan};
use crate::eval::Evaluator;
use crate::search::pool::Lane;
use crate::search::{Pool, PoolConfig, TranspositionTable};
use games::Latencies;
use metrics::Metrics;

pub use listener::{local_addr, run_with, shutdown_signal};
pub use work::{request_settings, Detail, PoolError, Searched};

/// Why the server could not start or run.
#[derive(Debug)]
pub enum ServerError {
    Evaluator(BuildError),
    Io(std::io::Error),
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerError::Evaluator(e) => write!(f, "{e}"),
            ServerError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ServerError {}

/// Everything connections share: the engine, the worker pool, the limits.
pub struct Shared {
    engine: Engine,
    pool: Pool,
    plan: SearchPlan,
    /// Slots in the pool's queues (backpressure), one set per lane so that expensive
    /// requests can never hold the slots cheap ones need.
    quick_slots: Arc<Semaphore>,
    deep_slots: Arc<Semaphore>,
    server: ServerConfig,
    /// Decisions answered (for benchmarks and logs).
    decisions: AtomicU64,
    next_id: AtomicU64,
    /// Connections turned away at `server.max_connections`.
    refused: AtomicU64,
    /// Every decision's time, over all connections (for the stop summary).
    latencies: std::sync::Mutex<Latencies>,
    started: Instant,
    /// Counters for `/metrics`, for every protocol.
    metrics: Metrics,
    /// The Tavli games' searchers (Portes, Plakoto, Fevga), built at their first request.
    tavli: [std::sync::OnceLock<
        Result<crate::search::Searcher<crate::tavli::TavliPosition>, String>,
    >; 3],
    /// The configured engine's search as the Tavli games play it (each game's own net).
    tavli_spec: crate::engine::EngineSpec,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("engine", &self.engine)
            .field("pool", &self.pool)
            .finish()
    }
}

impl Shared {
    /// Loads the evaluator and starts the worker pool described by `config`.
    pub fn from_config(config: &Config) -> Result<Arc<Shared>, ServerError> {
        let evaluator =
            engine_build::evaluator_with(&config.engine.evaluator, config.engine.precision)
                .map_err(ServerError::Evaluator)?;
        Shared::with_evaluator(config, evaluator)
    }

    /// As [`Shared::from_config`] with a given evaluator.
    pub fn with_evaluator(
        config: &Config,
        evaluator: Arc<dyn Evaluator>,
    ) -> Result<Arc<Shared>, ServerError> {
        // The bear-off database now, not on the first request that reaches a bear-off:
        // its third of a second would be shared by every request queued behind it.
        let started = std::time::Instant::now();
        crate::eval::bearoff::database();
        debug!(
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "bear-off database ready"
        );
        let spec = config.engine_spec();
        let evaluator = engine_build::with_noise(&spec, evaluator);
        let tt = Arc::new(TranspositionTable::new(spec.tt_megabytes.max(1)));
        let threads = config.engine.worker_threads();
        let pool = Pool::with_searcher(
            engine_build::searcher_over(evaluator, tt),
            PoolConfig {
                threads,
                queue: config.engine.queue,
                share_idle: config.engine.share_idle_cores,
            },
        )
        .map_err(ServerError::Io)?;
        let engine = engine_build::engine_with(&spec, pool.searcher().clone());
        let plan = *engine.plan();
        Ok(Arc::new(Shared {
            engine,
            pool,
            plan,
            quick_slots: Arc::new(Semaphore::new(config.engine.queue)),
            deep_slots: Arc::new(Semaphore::new(config.engine.queue)),
            server: config.server.clone(),
            decisions: AtomicU64::new(0),
            next_id: AtomicU64::new(1),
            refused: AtomicU64::new(0),
            latencies: std::sync::Mutex::new(Latencies::default()),
            started: Instant::now(),
            metrics: Metrics::default(),
            tavli: Default::default(),
            tavli_spec: engine_build::tavli_spec(&spec),
        }))
    }

    /// The queue slots of the lane a search with `settings` runs in.
    fn slots_for(&self, settings: &crate::search::SearchSettings) -> &Arc<Semaphore> {
        match Lane::of(settings) {
            Lane::Quick => &self.quick_slots,
            Lane::Deep => &self.deep_slots,
        }
    }

    /// Decisions answered so far.
    pub fn decisions(&self) -> u64 {
        self.decisions.load(Ordering::Relaxed)
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// What the server did since it started, for the stop line.
    pub fn summary(&self) -> ServerSummary {
        ServerSummary {
            uptime: self.started.elapsed(),
            connections: self.next_id.load(Ordering::Relaxed).saturating_sub(1),
            refused: self.refused.load(Ordering::Relaxed),
            decisions: self.latencies.lock().map(|l| *l).unwrap_or_default(),
        }
    }

    fn note_decision(&self, took: Duration) {
        self.decisions.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut l) = self.latencies.lock() {
            l.record(took);
        }
    }
}

/// What a server did over its life (the line `serve` logs when it stops).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerSummary {
    pub uptime: Duration,
    /// Connections served (those turned away not counted).
    pub connections: u64,
    /// Connections turned away at the limit.
    pub refused: u64,
    pub decisions: Latencies,
}

impl std::fmt::Display for ServerSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = self.uptime.as_secs();
        write!(
            f,
            "up {}h{:02}m{:02}s, {} connection(s) served, {} turned away at the limit, {}",
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            self.connections,
            self.refused,
            self.decisions
        )
    }
}

/// Runs the server described by `config` on `listener` until `shutdown` completes.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> Result<ServerSummary, ServerError> {
    let shared = Shared::from_config(&config)?;
    run_with(listener, shared.clone(), shutdown).await;
    let summary = shared.summary();
    // Dropping the pool joins its threads: do it off the runtime.
    let _ = tokio::task::spawn_blocking(move || drop(shared)).await;
    Ok(summary)
}

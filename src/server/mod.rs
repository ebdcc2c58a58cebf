//! The bot server (tokio): gnubg's external-player protocol and its external-interface
//! requests on one TCP port.
//!
//! Shape (after tokio's mini-redis): the whole API is [`run`] (or [`run_with`]) taking a bound
//! listener and a shutdown future, so tests and benchmarks bind port 0 and talk to a real
//! server over a real socket.
//!
//! - **Connections**: a semaphore caps them (`server.max_connections`; a client beyond the
//!   cap gets `Error: too many connections` and is closed). Each runs in its own task and
//!   tracing span. Lines are read through a bounded line codec
//!   ([`crate::protocol::lines`], a `tokio_util` decoder over a `BytesMut`): over-long lines, binary data, half lines and abrupt
//!   disconnects end in an error reply or a clean close, never in unbounded memory or a
//!   panic, and never affect other connections. An optional idle timeout closes silent
//!   connections.
//! - **Protocol detection**: the first line decides. A `board:` line terminated by `\n` and a
//!   NUL byte is gnubg as an external player (`set player N external`); from then on every
//!   line is a board in gnubg's convention and every reply is something gnubg acts on
//!   ([`crate::protocol::gnubg::player_reply`]). Anything else is the external interface:
//!   requests, with `Error: ...` replies for bad input. If the NUL has not arrived with the
//!   first line, the server waits `server.nul_wait_ms` for it.
//! - **Decisions**: CPU work never runs on the async runtime. A decision goes to the search
//!   worker pool ([`crate::search::pool`]) as a job; the job's reply callback finishes the
//!   decision on the worker thread ([`Engine::complete`]) and sends it back through a oneshot
//!   channel. A semaphore sized to the pool's queue gives backpressure: connections wait for a
//!   slot instead of growing a queue. While a decision runs the connection keeps reading, so
//!   a client that goes away cancels its decision at once.
//! - **Shutdown**: "tell, remember, wait": a `CancellationToken` tells every connection to
//!   stop (their running decisions are cancelled), a `TaskTracker` remembers them, and the
//!   server waits at most `server.shutdown_grace_ms` for them.
//! - **Logs** (for the operator, at INFO): one line per connection when it closes (reason,
//!   protocol, decisions with their mean and longest time), one per game of gnubg's external
//!   player (inferred from its boards, see [`games`]), a warning per connection turned away,
//!   and [`ServerSummary`], which [`run`] returns for the stop line.

pub mod games;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, Semaphore};
use tokio_util::codec::Decoder;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, error, info, info_span, warn, Instrument};

use crate::config::{BoardConvention, Config, ServerConfig};
use crate::engine::build::{self as engine_build, BuildError};
use crate::engine::{
    Engine, EngineError, EvalOptions, Found, Need, Outcome, RankedPlay, SearchPlan, Work,
};
use crate::eval::Evaluator;
use crate::notation::fibs_board::{Convention, FibsBoard};
use crate::protocol::gnubg::{self, Request};
use crate::protocol::lines::{Frame, LineCodec};
use crate::search::pool::Lane;
use crate::search::{Cancel, Job, Pool, PoolConfig, Query, SearchOutcome, TranspositionTable};
use games::{GameSummary, GameTracker, Latencies};

pub mod metrics;
mod work;

use metrics::{Metrics, Protocol};
pub use work::{PoolError, Searched};

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
    /// The Tavli games' nets (Portes, Plakoto, Fevga), loaded at their first request.
    tavli: [std::sync::OnceLock<Result<crate::players::tavli::TavliNets, String>>; 3],
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
            engine_build::evaluator(&config.engine.evaluator).map_err(ServerError::Evaluator)?;
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
        let pool = Pool::new(
            evaluator,
            tt,
            PoolConfig {
                threads,
                queue: config.engine.queue,
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

/// Runs a server over prepared shared state until `shutdown` completes, then stops every
/// connection and waits for them (at most `server.shutdown_grace_ms`).
pub async fn run_with(
    listener: TcpListener,
    shared: Arc<Shared>,
    shutdown: impl Future<Output = ()>,
) {
    let token = CancellationToken::new();
    let tracker = TaskTracker::new();
    let connections = Arc::new(Semaphore::new(shared.server.max_connections));
    if let Ok(addr) = listener.local_addr() {
        info!(%addr, engine = %shared.engine.name(), "listening");
    }
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            r = listener.accept() => r,
        };
        let (mut stream, peer) = match accepted {
            Ok(x) => x,
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            shared.refused.fetch_add(1, Ordering::Relaxed);
            warn!(%peer, limit = shared.server.max_connections, "connection refused: server.max_connections reached");
            shared.metrics.tcp_refused();
            tracker.spawn(async move {
                let _ = stream.write_all(b"Error: too many connections\n").await;
                let _ = stream.shutdown().await;
            });
            continue;
        };
        let _ = stream.set_nodelay(true);
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let span = info_span!("conn", id, %peer, mode = tracing::field::Empty);
        let shared = shared.clone();
        let token = token.child_token();
        tracker.spawn(
            async move {
                debug!("connected");
                let _open = shared.metrics.tcp_accepted();
                Connection::new(stream, shared.clone(), token).serve().await;
                drop(permit);
            }
            .instrument(span),
        );
    }
    info!("shutting down");
    token.cancel();
    tracker.close();
    let grace = Duration::from_millis(shared.server.shutdown_grace_ms);
    if tokio::time::timeout(grace, tracker.wait()).await.is_err() {
        warn!("connections still open after the grace period");
    }
}

/// A future that completes on SIGINT or SIGTERM (SIGINT only where SIGTERM does not exist).
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    // The handlers are installed here, at once, not when the future is first polled:
    // a signal that arrives while the server is still starting (loading nets, allocating
    // the table) then stops it cleanly instead of killing the process.
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let term = signal(SignalKind::terminate()).ok();
        let int = signal(SignalKind::interrupt()).ok();
        async move {
            match (term, int) {
                (Some(mut term), Some(mut int)) => {
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = int.recv() => {}
                    }
                }
                (Some(mut term), None) => {
                    term.recv().await;
                }
                (None, Some(mut int)) => {
                    int.recv().await;
                }
                (None, None) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async move {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// Which protocol a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// gnubg connected as its external player's bot.
    Player,
    /// Requests of gnubg's external interface.
    Interface,
}

/// Why a connection ended (for the log).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closed {
    Eof,
    HalfLine,
    Idle,
    Shutdown,
    Exit,
    ReadError,
    WriteError,
}

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Closed::Eof => "end of input",
            Closed::HalfLine => "end of input inside a line",
            Closed::Idle => "idle timeout",
            Closed::Shutdown => "server shutdown",
            Closed::Exit => "client said exit",
            Closed::ReadError => "read error",
            Closed::WriteError => "write error",
        })
    }
}

/// Raises a search's cancel flag when dropped (the client went away, or the connection task
/// was stopped), unless the search has finished.
struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Why a decision produced no answer.
enum Failure {
    Engine(EngineError),
    /// The client closed the connection while it was being decided.
    ClientGone(Closed),
    /// The pool refused the job (shutting down).
    Unavailable,
    /// The search ended without an answer (it panicked).
    Internal,
}

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

/// How much a connection reads at a time.
const READ_CHUNK: usize = 4096;

struct Connection {
    reader: OwnedReadHalf,
    writer: OwnedWriteHalf,
    codec: LineCodec,
    /// Bytes read and not yet framed.
    buf: BytesMut,
    shared: Arc<Shared>,
    token: CancellationToken,
    mode: Option<Mode>,
    debug: bool,
    /// End of input seen while frames were still buffered.
    eof: bool,
    /// This connection's decisions and their times.
    latencies: Latencies,
    /// Games inferred from gnubg's boards (external player only).
    games: GameTracker,
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(mode) = self.mode {
            self.shared.metrics.connection_closed(mode.protocol());
        }
    }
}

impl Mode {
    fn protocol(self) -> Protocol {
        match self {
            Mode::Player => Protocol::GnubgPlayer,
            Mode::Interface => Protocol::GnubgInterface,
        }
    }
}

impl Connection {
    fn new(stream: TcpStream, shared: Arc<Shared>, token: CancellationToken) -> Connection {
        let (reader, writer) = stream.into_split();
        let max = shared.server.max_line_bytes;
        Connection {
            reader,
            writer,
            codec: LineCodec::new(max),
            buf: BytesMut::with_capacity(READ_CHUNK),
            shared,
            token,
            mode: None,
            debug: false,
            eof: false,
            latencies: Latencies::default(),
            games: GameTracker::default(),
        }
    }

    /// Reads once into the buffer; `Err` when the connection is over.
    async fn read_more(&mut self, idle: Option<Duration>) -> Result<(), Closed> {
        if self.eof {
            return Err(self.end_reason());
        }
        self.buf.reserve(READ_CHUNK);
        let read = self.reader.read_buf(&mut self.buf);
        let n = tokio::select! {
            _ = self.token.cancelled() => return Err(Closed::Shutdown),
            r = async {
                match idle {
                    Some(t) => tokio::time::timeout(t, read).await.map_err(|_| Closed::Idle),
                    None => Ok(read.await),
                }
            } => r?,
        };
        match n {
            Ok(0) => {
                self.eof = true;
                Err(self.end_reason())
            }
            Ok(_) => Ok(()),
            Err(_) => Err(Closed::ReadError),
        }
    }

    fn end_reason(&mut self) -> Closed {
        // Whole lines still buffered are dropped: the connection is over.
        while let Ok(Some(_)) = self.codec.decode_eof(&mut self.buf) {}
        match self.codec.take_remainder(&mut self.buf) {
            Some(rest) => {
                warn!(bytes = rest.len(), "connection closed inside a line");
                Closed::HalfLine
            }
            None => Closed::Eof,
        }
    }

    async fn next_frame(&mut self) -> Result<Frame, Closed> {
        loop {
            if self.mode.is_none() && self.codec.ends_at_newline(&self.buf) && !self.eof {
                // The first line decides the protocol: give gnubg's NUL a moment to arrive.
                let wait = Duration::from_millis(self.shared.server.nul_wait_ms);
                self.buf.reserve(READ_CHUNK);
                let read = self.reader.read_buf(&mut self.buf);
                if let Ok(r) = tokio::time::timeout(wait, read).await {
                    match r {
                        Ok(0) => self.eof = true,
                        Ok(_) => {}
                        Err(_) => return Err(Closed::ReadError),
                    }
                }
            }
            match self.codec.decode(&mut self.buf) {
                Ok(Some(f)) => return Ok(f),
                Ok(None) => {}
                Err(_) => return Err(Closed::ReadError),
            }
            self.read_more(self.shared.server.idle_timeout()).await?;
        }
    }

    async fn write_line(&mut self, line: &str) -> Result<(), Closed> {
        if line.starts_with("Error") {
            self.count_error();
        }
        let mut out = Vec::with_capacity(line.len() + 1);
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
        self.writer
            .write_all(&out)
            .await
            .map_err(|_| Closed::WriteError)
    }

    /// An error reply or a failed decision, for `/metrics`.
    fn count_error(&self) {
        let mode = self.mode.unwrap_or(Mode::Interface);
        self.shared.metrics.error(mode.protocol());
    }

    /// Serves the connection to its end, then logs its summary (and the game in progress).
    async fn serve(mut self) -> Closed {
        let reason = self.serve_frames().await;
        if let Some(g) = self.games.finish() {
            log_game(&g);
        }
        let l = self.latencies;
        let games = self.games.games();
        let mode = match self.mode {
            Some(Mode::Player) => "gnubg external player",
            Some(Mode::Interface) => "external interface",
            None => "no request",
        };
        if reason == Closed::Idle {
            info!(
                reason = %reason,
                idle_timeout_secs = self.shared.server.idle_timeout_secs,
                protocol = mode,
                decisions = l.count,
                games,
                "connection closed"
            );
        } else {
            info!(
                reason = %reason,
                protocol = mode,
                decisions = l.count,
                mean_ms = round1(l.mean_ms()),
                max_ms = round1(l.max_ms()),
                games,
                "connection closed"
            );
        }
        reason
    }

    async fn serve_frames(&mut self) -> Closed {
        loop {
            let frame = match self.next_frame().await {
                Ok(f) => f,
                Err(c) => return c,
            };
            if self.mode.is_none() {
                let mode = match &frame {
                    Frame::Line { bytes, nul: true } if bytes.starts_with(b"board:") => {
                        Mode::Player
                    }
                    _ => Mode::Interface,
                };
                let name = match mode {
                    Mode::Player => "player",
                    Mode::Interface => "interface",
                };
                tracing::Span::current().record("mode", name);
                debug!(mode = name, "protocol detected");
                self.shared.metrics.connection_opened(mode.protocol());
                self.mode = Some(mode);
            }
            let r = match self.mode {
                Some(Mode::Player) => self.player_frame(frame).await,
                _ => self.interface_frame(frame).await,
            };
            if let Err(c) = r {
                return c;
            }
        }
    }

    /// gnubg's external player: answer every board with something gnubg acts on.
    async fn player_frame(&mut self, frame: Frame) -> Result<(), Closed> {
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

    /// The external interface: requests and `Error:` replies.
    async fn interface_frame(&mut self, frame: Frame) -> Result<(), Closed> {
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

    /// A Tavli request of the external interface: the chosen play in gnubg's notation (an
    /// empty line when no play is legal), or an `Error:` line.
    async fn tavli_line(&mut self, text: &str) -> Result<String, Closed> {
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

    /// Runs `work` on the worker pool, reading on meanwhile so that a client leaving cancels
    /// the search.
    async fn answer(&mut self, work: Work, engine: Engine) -> Result<Outcome, Failure> {
        let started = Instant::now();
        let r = self.answer_inner(work, engine).await;
        if r.is_ok() {
            let took = started.elapsed();
            self.latencies.record(took);
            self.games.decided(took);
            self.shared.note_decision(took);
            let mode = self.mode.unwrap_or(Mode::Interface);
            self.shared.metrics.decision(mode.protocol(), took);
            debug!(ms = took.as_secs_f64() * 1000.0, "decided");
        }
        r
    }

    async fn answer_inner(&mut self, work: Work, engine: Engine) -> Result<Outcome, Failure> {
        let need = engine.need(&work);
        let query = match need {
            Need::Nothing => {
                return engine
                    .complete(&work, Found::Nothing)
                    .map_err(Failure::Engine);
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
        let (mut settings, capped) =
            request_settings(&self.shared.plan, query.1, &self.shared.server);
        settings.utility = query.2;
        if let Some(asked) = capped {
            info!(
                asked,
                cap = self.shared.server.max_request_depth.get(),
                "request deeper than server.max_request_depth: answered at the cap"
            );
        }
        let slots = self.shared.slots_for(&settings);
        let slot = tokio::select! {
            _ = self.token.cancelled() => return Err(Failure::Unavailable),
            s = slots.clone().acquire_owned() => {
                s.map_err(|_| Failure::Unavailable)?
            }
        };
        let (tx, mut rx) = oneshot::channel::<Result<Outcome, EngineError>>();
        let cancel = Cancel::new();
        let _guard = CancelOnDrop(cancel.clone());
        let job = Job::new(query.0, settings, move |outcome| {
            drop(slot);
            let found = match outcome {
                SearchOutcome::Move(d) => Ok(Found::Plays(
                    d.plays
                        .iter()
                        .map(|r| RankedPlay {
                            play: r.play,
                            probs: r.probs,
                        })
                        .collect(),
                )),
                SearchOutcome::Position(p) => Ok(Found::Probabilities(p.probs)),
                SearchOutcome::Cancelled => Err(EngineError::Cancelled),
            };
            let result = found.and_then(|f| engine.complete(&work, f));
            // The receiver is gone only if the connection stopped waiting.
            let _ = tx.send(result);
        })
        .with_cancel(cancel);
        if let Err(e) = self.shared.pool.try_submit(job) {
            warn!(error = %e, "search pool refused a job");
            return Err(Failure::Unavailable);
        }
        let held_cap = self.codec.max_len() + 2 * READ_CHUNK;
        loop {
            self.buf.reserve(READ_CHUNK);
            tokio::select! {
                r = &mut rx => {
                    return match r {
                        Ok(Ok(o)) => Ok(o),
                        Ok(Err(e)) => Err(Failure::Engine(e)),
                        // The callback was dropped unanswered: the search panicked.
                        Err(_) => Err(Failure::Internal),
                    };
                }
                _ = self.token.cancelled() => return Err(Failure::Unavailable),
                // Reading on notices a client that leaves; pipelined input beyond the cap
                // waits in the socket (backpressure) until the decision is answered.
                r = self.reader.read_buf(&mut self.buf), if !self.eof && self.buf.len() < held_cap => {
                    match r {
                        Ok(0) | Err(_) => {
                            // The client left: dropping the guard cancels the search.
                            self.eof = true;
                            let mode = self.mode.unwrap_or(Mode::Interface);
                            self.shared.metrics.abandoned(mode.protocol());
                            info!("client went away during a decision; cancelled");
                            return Err(Failure::ClientGone(self.end_reason()));
                        }
                        Ok(_) => {}
                    }
                }
            }
        }
    }
}

/// One INFO line for a game of gnubg's external player.
fn log_game(g: &GameSummary) {
    info!(
        game = g.number,
        players = %format!("{} vs {}", g.players.0, g.players.1),
        kind = %g.kind_text(),
        result = %g.result_text(),
        decisions = g.decisions.count,
        mean_ms = round1(g.decisions.mean_ms()),
        max_ms = round1(g.decisions.max_ms()),
        "game over"
    );
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The search settings of one request at `depth` under the server's per-request caps, and
/// the depth asked for when the cap lowered it.
pub fn request_settings(
    plan: &SearchPlan,
    depth: u32,
    server: &ServerConfig,
) -> (crate::search::SearchSettings, Option<u32>) {
    let cap = server.max_request_depth.get();
    let mut settings = plan.settings(depth.min(cap));
    if server.max_request_ms > 0 {
        let limit = Duration::from_millis(server.max_request_ms);
        settings.time_budget = Some(settings.time_budget.map_or(limit, |b| b.min(limit)));
    }
    (settings, (depth > cap).then_some(depth))
}

/// The address a listener is bound to, for tests and the benchmark.
pub fn local_addr(listener: &TcpListener) -> Option<SocketAddr> {
    listener.local_addr().ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::{Decision, Dice, MatchState, Position};

    #[test]
    fn requests_are_searched_within_the_servers_caps() {
        let server = ServerConfig::default();
        let plan = SearchPlan::default();
        // `plies 7` asks for depth 15: answered at depth 5, noted.
        let (s, capped) = request_settings(&plan, 15, &server);
        assert_eq!((s.depth, capped), (5, Some(15)));
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

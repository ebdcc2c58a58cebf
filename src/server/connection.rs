//! One connection of the line protocols: bytes framed into bounded lines, the first line
//! sniffed for the protocol (gnubg's external player when it ends in a NUL and is a board,
//! the external interface otherwise), the loop that hands each frame to its protocol, and
//! a decision on the pool awaited while reading on, so that a client that leaves cancels
//! it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio_util::codec::Decoder;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::games::{GameSummary, GameTracker, Latencies};
use super::metrics::Protocol;
use super::{PoolError, Shared};
use crate::engine::{Engine, EngineError, Outcome, Work};
use crate::protocol::lines::{Frame, LineCodec};

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
pub(super) enum Closed {
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

/// Why a decision produced no answer.
pub(super) enum Failure {
    Engine(EngineError),
    /// The client closed the connection while it was being decided.
    ClientGone(Closed),
    /// The pool refused the job (shutting down).
    Unavailable,
    /// The search ended without an answer (it panicked).
    Internal,
}

/// How much a connection reads at a time.
const READ_CHUNK: usize = 4096;

pub(super) struct Connection {
    reader: OwnedReadHalf,
    writer: OwnedWriteHalf,
    codec: LineCodec,
    /// Bytes read and not yet framed.
    buf: BytesMut,
    pub(super) shared: Arc<Shared>,
    token: CancellationToken,
    mode: Option<Mode>,
    pub(super) debug: bool,
    /// End of input seen while frames were still buffered.
    eof: bool,
    /// This connection's decisions and their times.
    latencies: Latencies,
    /// Games inferred from gnubg's boards (external player only).
    pub(super) games: GameTracker,
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
    pub(super) fn new(
        stream: TcpStream,
        shared: Arc<Shared>,
        token: CancellationToken,
    ) -> Connection {
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

    pub(super) async fn write_line(&mut self, line: &str) -> Result<(), Closed> {
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
    pub(super) fn count_error(&self) {
        let mode = self.mode.unwrap_or(Mode::Interface);
        self.shared.metrics.error(mode.protocol());
    }

    /// Serves the connection to its end, then logs its summary (and the game in progress).
    pub(super) async fn serve(mut self) -> Closed {
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

    /// Runs `work` on the worker pool, reading on meanwhile so that a client leaving cancels
    /// the search.
    pub(super) async fn answer(&mut self, work: Work, engine: Engine) -> Result<Outcome, Failure> {
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
        let shared = self.shared.clone();
        let decided = shared.answer(work, engine);
        tokio::pin!(decided);
        let held_cap = self.codec.max_len() + 2 * READ_CHUNK;
        loop {
            self.buf.reserve(READ_CHUNK);
            tokio::select! {
                // An answer that is in wins over a client that left meanwhile.
                biased;
                r = &mut decided => {
                    return match r {
                        Ok(Ok(o)) => Ok(o),
                        Ok(Err(e)) => Err(Failure::Engine(e)),
                        Err(PoolError::Cancelled) => Err(Failure::Engine(EngineError::Cancelled)),
                        // The reply was dropped unanswered: the search panicked.
                        Err(PoolError::Failed) => Err(Failure::Internal),
                        Err(PoolError::Busy | PoolError::ShuttingDown) => Err(Failure::Unavailable),
                    };
                }
                _ = self.token.cancelled() => return Err(Failure::Unavailable),
                // Reading on notices a client that leaves; pipelined input beyond the cap
                // waits in the socket (backpressure) until the decision is answered.
                r = self.reader.read_buf(&mut self.buf), if !self.eof && self.buf.len() < held_cap => {
                    match r {
                        Ok(0) | Err(_) => {
                            // The client left: dropping the decision cancels its search.
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
pub(super) fn log_game(g: &GameSummary) {
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

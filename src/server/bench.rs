//! The server load benchmark behind `stargammon bench server`: the server runs in-process on
//! 127.0.0.1:0 and C loopback clients each send `board:` requests from a fixed set (built
//! from the committed movegen position set), one at a time, timing every reply.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::config::Config;
use crate::game::{Decision, MatchState};
use crate::notation::fibs_board::{Convention, FibsBoard, FibsSeat};

use super::{run_with, Shared};

/// What to run.
#[derive(Debug, Clone)]
pub struct ServerBench {
    pub connections: usize,
    pub depth: u32,
    pub requests: usize,
    pub config: Config,
}

/// What was measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerBenchResult {
    pub decisions: usize,
    pub seconds: f64,
    pub decisions_per_sec: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Replies that were `Error:` lines (should be 0).
    pub errors: usize,
}

/// The fixed request set: money move decisions from the movegen set, as gnubg-convention
/// board lines (the server detects the convention from the equal dice pairs).
pub fn request_set(limit: usize) -> Result<Vec<String>, String> {
    let set = crate::bench::movegen_set()?;
    let mut out = Vec::with_capacity(limit.min(set.len()));
    for (pos, dice) in set.into_iter().take(limit) {
        let state = MatchState::money(pos, Decision::Move(dice));
        let b = FibsBoard::from_match_state(&state, Convention::Gnubg, FibsSeat::default())
            .map_err(|e| e.to_string())?;
        out.push(b.to_line());
    }
    Ok(out)
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

async fn client(
    addr: std::net::SocketAddr,
    requests: Vec<String>,
) -> std::io::Result<(Vec<f64>, usize)> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (r, mut w) = stream.into_split();
    let mut r = BufReader::new(r);
    let mut latencies = Vec::with_capacity(requests.len());
    let mut errors = 0;
    let mut line = String::new();
    for req in requests {
        let t = Instant::now();
        w.write_all(req.as_bytes()).await?;
        line.clear();
        if r.read_line(&mut line).await? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "server closed the connection",
            ));
        }
        latencies.push(t.elapsed().as_secs_f64() * 1e3);
        if line.starts_with("Error") {
            errors += 1;
        }
    }
    Ok((latencies, errors))
}

/// Runs the benchmark (blocking; builds its own runtime).
pub fn run(b: &ServerBench) -> Result<ServerBenchResult, Box<dyn std::error::Error + Send + Sync>> {
    let mut config = b.config.clone();
    config.engine.depth = b.depth;
    config.server.max_connections = config.server.max_connections.max(b.connections + 1);
    config.validate()?;
    let shared = Shared::from_config(&config)?;
    let set = request_set(2000)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let server = tokio::spawn(run_with(listener, shared.clone(), async {
            let _ = stop_rx.await;
        }));
        // Warm-up: one pass of a few requests per connection-sized batch.
        let warm: Vec<String> = set.iter().take(64).map(|s| format!("{s}\n")).collect();
        client(addr, warm).await?;

        let c = b.connections.max(1);
        let per = (b.requests / c).max(1);
        let mut tasks = Vec::with_capacity(c);
        let start = Instant::now();
        for i in 0..c {
            let reqs: Vec<String> = (0..per)
                .map(|k| format!("{}\n", set[(i * 7919 + k) % set.len()]))
                .collect();
            tasks.push(tokio::spawn(client(addr, reqs)));
        }
        let mut lat = Vec::with_capacity(c * per);
        let mut errors = 0;
        for t in tasks {
            let (l, e) = t.await??;
            lat.extend(l);
            errors += e;
        }
        let seconds = start.elapsed().as_secs_f64();
        let _ = stop_tx.send(());
        let _ = tokio::time::timeout(Duration::from_secs(5), server).await;
        lat.sort_by(|a, b| a.total_cmp(b));
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(ServerBenchResult {
            decisions: lat.len(),
            seconds,
            decisions_per_sec: lat.len() as f64 / seconds,
            p50_ms: percentile(&lat, 0.50),
            p99_ms: percentile(&lat, 0.99),
            max_ms: lat.last().copied().unwrap_or(0.0),
            errors,
        })
    })?;
    drop(runtime);
    // The pool joins its threads on drop.
    drop(Arc::try_unwrap(shared).ok());
    Ok(result)
}

//! The server load benchmark behind `stargammon bench server`: the server runs in-process on
//! 127.0.0.1:0 and C loopback clients send `board:` requests from a fixed set (built from the
//! committed movegen position set), timing every reply from the moment its request was
//! written.
//!
//! Two load models:
//! - closed loop (the default): each client sends its next request as soon as the reply to
//!   the last one arrives, so the figures are the server's peak throughput and the latency
//!   at that saturation;
//! - open loop (`rate`): the clients together send `rate` requests per second on a fixed
//!   schedule whatever the replies do (each connection an evenly spaced stream, the streams
//!   staggered), as independent users would; this measures latency at a given load.
//!
//! The clients run on their own single-threaded runtime on their own thread, apart from the
//! server's runtime, as separate client processes would.
//!
//! With `heavy` set, that many further connections send the most expensive request a peer
//! may send (`evaluation fibsboard ... plies 7`, answered at the server's depth and time
//! caps) one after another for the whole run, starting before the measured load: the
//! latencies then show whether cheap requests wait behind expensive ones.
//!
//! With `http`, the same decisions go to the HTTP API instead (`POST /v1/move` with a gnubg
//! Position ID, the dice and the depth, on keep-alive HTTP/1.1 connections; each reply is
//! read whole, the ranked plays with their probabilities), served by the same pool.
//!
//! With `target`, the load goes to a server already running at that address (another
//! process, or a balancer in front of several) instead of one started in-process. With
//! `retry` (closed loop only), a client whose connection fails (refused, reset, or closed
//! before the reply), or whose server answers that it is shutting down (or, over HTTP,
//! 503), opens a new connection and sends the same request again, for up to [`RETRY_FOR`]
//! per request; the request's latency then includes the reconnection, and `retries`
//! counts them. Requests are safe to repeat: a decision changes no state.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::config::Config;
use crate::game::{Decision, MatchState};
use crate::notation::fibs_board::{Convention, FibsBoard, FibsSeat};
use crate::notation::position_id;

use crate::server::{run_with, Shared};

/// What to run.
#[derive(Debug, Clone)]
pub struct ServerBench {
    pub connections: usize,
    pub depth: u32,
    pub requests: usize,
    /// Open loop at this many requests per second in total; `None`: closed loop.
    pub rate: Option<f64>,
    /// Connections sending maximal requests throughout (see the module docs).
    pub heavy: usize,
    pub config: Config,
    /// Load the HTTP API (`POST /v1/move`) instead of the line protocol.
    pub http: bool,
    /// Load a server already running here instead of one started in-process (`config`
    /// then only shapes nothing but the request's depth for HTTP).
    pub target: Option<std::net::SocketAddr>,
    /// Closed loop: on a failed connection, reconnect and send the request again.
    pub retry: bool,
}

/// How long a client with `retry` keeps trying one request (reconnecting) before it
/// gives up with the error.
pub const RETRY_FOR: Duration = Duration::from_secs(15);

/// What was measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerBenchResult {
    pub decisions: usize,
    pub seconds: f64,
    pub decisions_per_sec: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Replies that were `Error:` lines or HTTP errors (should be 0).
    pub errors: usize,
    /// Maximal requests answered on the heavy connections.
    pub heavy_answered: usize,
    /// Requests sent again on a new connection after the old one failed (`retry`).
    pub retries: usize,
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

/// The same decisions as HTTP requests: `POST /v1/move` with the position's gnubg id, the
/// dice and `depth`, on a keep-alive connection.
pub fn http_request_set(limit: usize, depth: u32) -> Result<Vec<String>, String> {
    let set = crate::bench::movegen_set()?;
    Ok(set
        .into_iter()
        .take(limit)
        .map(|(pos, dice)| {
            let body = format!(
                r#"{{"position":"{}","dice":[{},{}],"depth":{depth}}}"#,
                position_id(&pos),
                dice.high(),
                dice.low()
            );
            format!(
                "POST /v1/move HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\n\r\n{body}",
                body.len()
            )
        })
        .collect())
}

/// What a reply said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reply {
    Answered,
    /// An error reply (`Error: ...`, an HTTP error status).
    Failed,
    /// The server will not answer here: it is shutting down (`Error: the server is
    /// shutting down`, then it closes) or, over HTTP, unavailable (503). A retrying client
    /// asks again on a new connection; otherwise it counts as an error reply.
    Unavailable,
}

impl Reply {
    /// Whether the request counts as an error reply when not retried.
    fn failed(self) -> bool {
        self != Reply::Answered
    }
}

/// The line the server answers a request with when it stops before answering.
const SHUTTING_DOWN: &str = "Error: the server is shutting down";

/// Reads one reply: a line, or with `http` a whole HTTP response (status line, headers,
/// `Content-Length` body). `Err` when the server closed.
async fn read_reply(
    r: &mut BufReader<OwnedReadHalf>,
    http: bool,
    line: &mut String,
    body: &mut Vec<u8>,
) -> std::io::Result<Reply> {
    let closed = || {
        std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "server closed the connection",
        )
    };
    line.clear();
    if r.read_line(line).await? == 0 {
        return Err(closed());
    }
    if !http {
        return Ok(if line.starts_with(SHUTTING_DOWN) {
            Reply::Unavailable
        } else if line.starts_with("Error") {
            Reply::Failed
        } else {
            Reply::Answered
        });
    }
    let reply = if line.starts_with("HTTP/1.1 200") {
        Reply::Answered
    } else if line.starts_with("HTTP/1.1 503") {
        Reply::Unavailable
    } else {
        Reply::Failed
    };
    let mut length = 0usize;
    loop {
        line.clear();
        if r.read_line(line).await? == 0 {
            return Err(closed());
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((k, v)) = header.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().map_err(|_| {
                    std::io::Error::new(std::io::ErrorKind::InvalidData, "bad Content-Length")
                })?;
            }
        }
    }
    body.resize(length, 0);
    r.read_exact(body).await?;
    Ok(reply)
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// One client connection, split for reading replies and writing requests.
struct Conn {
    r: BufReader<OwnedReadHalf>,
    w: OwnedWriteHalf,
}

async fn connect(addr: std::net::SocketAddr) -> std::io::Result<Conn> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (r, w) = stream.into_split();
    Ok(Conn {
        r: BufReader::new(r),
        w,
    })
}

/// What a closed-loop client measured: latencies, error replies, retries.
type ClientResult = (Vec<f64>, usize, usize);

async fn client(
    addr: std::net::SocketAddr,
    requests: Vec<String>,
    http: bool,
    retry: bool,
) -> std::io::Result<ClientResult> {
    let mut conn = if retry {
        None
    } else {
        Some(connect(addr).await?)
    };
    let mut latencies = Vec::with_capacity(requests.len());
    let mut errors = 0;
    let mut retries = 0;
    let mut line = String::new();
    let mut body = Vec::new();
    for req in requests {
        let t = Instant::now();
        let failed = loop {
            let attempt = async {
                let c = match conn.as_mut() {
                    Some(c) => c,
                    None => conn.insert(connect(addr).await?),
                };
                c.w.write_all(req.as_bytes()).await?;
                read_reply(&mut c.r, http, &mut line, &mut body).await
            }
            .await;
            match attempt {
                Ok(Reply::Unavailable) if retry && t.elapsed() < RETRY_FOR => {
                    conn = None;
                    retries += 1;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Ok(reply) => break reply.failed(),
                Err(e) if !retry || t.elapsed() >= RETRY_FOR => return Err(e),
                Err(_) => {
                    // A new connection next time round, after a pause that lets a
                    // balancer notice a server that went away.
                    conn = None;
                    retries += 1;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        };
        latencies.push(t.elapsed().as_secs_f64() * 1e3);
        if failed {
            errors += 1;
        }
    }
    Ok((latencies, errors, retries))
}

/// One open-loop connection: writes `requests` at `start + offset + k * interval` whatever
/// the replies do, and times each reply from the moment its request was written (replies
/// come back in request order).
async fn paced_client(
    addr: std::net::SocketAddr,
    requests: Vec<String>,
    start: tokio::time::Instant,
    offset: Duration,
    interval: Duration,
    http: bool,
) -> std::io::Result<(Vec<f64>, usize)> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (r, mut w) = stream.into_split();
    let n = requests.len();
    let (sent_tx, mut sent_rx) = tokio::sync::mpsc::unbounded_channel::<Instant>();
    let writer = tokio::spawn(async move {
        for (k, req) in requests.into_iter().enumerate() {
            tokio::time::sleep_until(start + offset + interval * k as u32).await;
            w.write_all(req.as_bytes()).await?;
            if sent_tx.send(Instant::now()).is_err() {
                break;
            }
        }
        Ok::<_, std::io::Error>(w)
    });
    let mut r = BufReader::new(r);
    let mut latencies = Vec::with_capacity(n);
    let mut errors = 0;
    let mut line = String::new();
    let mut body = Vec::new();
    for _ in 0..n {
        let failed = read_reply(&mut r, http, &mut line, &mut body)
            .await?
            .failed();
        let Some(sent) = sent_rx.recv().await else {
            return Err(std::io::Error::other("a reply came before its request"));
        };
        latencies.push(sent.elapsed().as_secs_f64() * 1e3);
        if failed {
            errors += 1;
        }
    }
    writer
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))??;
    Ok((latencies, errors))
}

/// What the load phase measured: sorted latencies, error replies, retries, wall time.
type LoadResult = (Vec<f64>, usize, usize, f64);

/// Runs every client to completion on a runtime of its own.
fn drive_clients(
    addr: std::net::SocketAddr,
    b: &ServerBench,
    set: &[String],
) -> std::io::Result<LoadResult> {
    // Never more connections than requests, so none is opened only to stay idle.
    let c = b.connections.clamp(1, b.requests.max(1));
    // Exactly `requests` in all: the first `requests % c` connections send one more.
    let batches: Vec<Vec<String>> = (0..c)
        .map(|i| {
            let n = b.requests / c + usize::from(i < b.requests % c);
            (0..n)
                .map(|k| {
                    let req = &set[(i * 7919 + k) % set.len()];
                    if b.http {
                        req.clone()
                    } else {
                        format!("{req}\n")
                    }
                })
                .collect()
        })
        .collect();
    let rate = b.rate;
    let http = b.http;
    let retry = b.retry;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let start = Instant::now();
        let t0 = tokio::time::Instant::now() + Duration::from_millis(20);
        let mut tasks = Vec::with_capacity(c);
        for (i, reqs) in batches.into_iter().enumerate() {
            tasks.push(match rate {
                Some(rate) => {
                    // Each connection sends every c / rate seconds; connection i starts
                    // i / rate seconds in, so the streams interleave evenly.
                    let interval = Duration::from_secs_f64(c as f64 / rate);
                    let offset = Duration::from_secs_f64(i as f64 / rate);
                    tokio::spawn(async move {
                        let (l, e) = paced_client(addr, reqs, t0, offset, interval, http).await?;
                        Ok::<_, std::io::Error>((l, e, 0))
                    })
                }
                None => tokio::spawn(client(addr, reqs, http, retry)),
            });
        }
        let mut lat = Vec::with_capacity(b.requests);
        let mut errors = 0;
        let mut retries = 0;
        for t in tasks {
            let (l, e, r) = t
                .await
                .map_err(|e| std::io::Error::other(e.to_string()))??;
            lat.extend(l);
            errors += e;
            retries += r;
        }
        let seconds = start.elapsed().as_secs_f64();
        lat.sort_by(|a, b| a.total_cmp(b));
        Ok((lat, errors, retries, seconds))
    })
}

/// One heavy connection: maximal requests (a new position each time, so that no answer
/// comes from the transposition table) back to back until `stop` is raised; returns how
/// many were answered.
async fn heavy_client(
    addr: std::net::SocketAddr,
    boards: Vec<String>,
    stop: tokio::sync::watch::Receiver<bool>,
) -> std::io::Result<usize> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (r, mut w) = stream.into_split();
    let mut r = BufReader::new(r);
    let mut answered = 0;
    let mut line = String::new();
    for board in boards.iter().cycle() {
        if *stop.borrow() {
            break;
        }
        let request = format!("evaluation fibsboard {board} plies 7\n");
        w.write_all(request.as_bytes()).await?;
        line.clear();
        let mut stop = stop.clone();
        tokio::select! {
            n = r.read_line(&mut line) => {
                if n? == 0 {
                    break;
                }
                answered += 1;
            }
            // Closing the connection cancels the search in progress.
            _ = stop.wait_for(|s| *s) => break,
        }
    }
    Ok(answered)
}

/// Runs the benchmark (blocking; builds its own runtimes).
pub fn run(b: &ServerBench) -> Result<ServerBenchResult, Box<dyn std::error::Error + Send + Sync>> {
    if let Some(addr) = b.target {
        return run_remote(addr, b);
    }
    let mut config = b.config.clone();
    config.engine.depth = crate::engine::Depth::new(b.depth).map_err(|e| e.to_string())?;
    config.server.max_connections = config
        .server
        .max_connections
        .max(b.connections + b.heavy + 1);
    config.validate()?;
    let shared = Shared::from_config(&config)?;
    let set = if b.http {
        http_request_set(2000, b.depth)?
    } else {
        request_set(2000)?
    };
    // The heavy connections always speak the line protocol (its `evaluation` request is
    // the most expensive a peer can send), whatever protocol the measured load uses.
    let heavy_set = if b.heavy > 0 {
        request_set(2000)?
    } else {
        Vec::new()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let mut addr = listener.local_addr()?;
        let line_addr = addr;
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let stop = tokio_util::sync::CancellationToken::new();
        let trigger = stop.clone();
        tokio::spawn(async move {
            let _ = stop_rx.await;
            trigger.cancel();
        });
        let mut http_server = None;
        if b.http {
            let l = TcpListener::bind("127.0.0.1:0").await?;
            addr = l.local_addr()?;
            http_server = Some(tokio::spawn(crate::http::serve(
                l,
                shared.clone(),
                config.clone(),
                stop.clone().cancelled_owned(),
            )));
        }
        let server = tokio::spawn(run_with(listener, shared.clone(), stop.cancelled_owned()));
        // Warm-up: one pass of a few requests per connection-sized batch.
        let warm: Vec<String> = set
            .iter()
            .take(64)
            .map(|s| if b.http { s.clone() } else { format!("{s}\n") })
            .collect();
        client(addr, warm, b.http, false).await?;

        let (stop_heavy, heavy_stop) = tokio::sync::watch::channel(false);
        let heavy: Vec<_> = (0..b.heavy)
            .map(|i| {
                // Every 7th board of the set from a different start: no two alike.
                let boards = heavy_set
                    .iter()
                    .skip(1000 + i)
                    .step_by(7)
                    .cloned()
                    .collect();
                tokio::spawn(heavy_client(line_addr, boards, heavy_stop.clone()))
            })
            .collect();
        if b.heavy > 0 {
            // Let the expensive searches start and take the workers first.
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        let load = {
            let b = b.clone();
            let set = set.clone();
            std::thread::Builder::new()
                .name("bench-clients".into())
                .spawn(move || drive_clients(addr, &b, &set))?
        };
        let (lat, errors, retries, seconds) = tokio::task::spawn_blocking(move || load.join())
            .await?
            .map_err(|_| std::io::Error::other("the client thread panicked"))??;
        let _ = stop_heavy.send(true);
        let mut heavy_answered = 0;
        for h in heavy {
            heavy_answered += h
                .await
                .map_err(|e| std::io::Error::other(e.to_string()))??;
        }
        let _ = stop_tx.send(());
        let _ = tokio::time::timeout(Duration::from_secs(5), server).await;
        if let Some(h) = http_server {
            let _ = tokio::time::timeout(Duration::from_secs(5), h).await;
        }
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(summary(
            &lat,
            errors,
            retries,
            seconds,
            heavy_answered,
        ))
    })?;
    drop(runtime);
    // The pool joins its threads on drop.
    drop(Arc::try_unwrap(shared).ok());
    Ok(result)
}

/// The figures of a load phase.
fn summary(
    lat: &[f64],
    errors: usize,
    retries: usize,
    seconds: f64,
    heavy_answered: usize,
) -> ServerBenchResult {
    ServerBenchResult {
        decisions: lat.len(),
        seconds,
        decisions_per_sec: lat.len() as f64 / seconds,
        p50_ms: percentile(lat, 0.50),
        p99_ms: percentile(lat, 0.99),
        max_ms: lat.last().copied().unwrap_or(0.0),
        errors,
        heavy_answered,
        retries,
    }
}

/// The load on a server running elsewhere (`target`): a warm-up, then the measured run.
fn run_remote(
    addr: std::net::SocketAddr,
    b: &ServerBench,
) -> Result<ServerBenchResult, Box<dyn std::error::Error + Send + Sync>> {
    if b.heavy > 0 {
        return Err("heavy connections need the in-process server (no --target)".into());
    }
    if b.retry && b.rate.is_some() {
        return Err("retrying is for the closed loop (no --rate)".into());
    }
    let set = if b.http {
        http_request_set(2000, b.depth)?
    } else {
        request_set(2000)?
    };
    let warm: Vec<String> = set
        .iter()
        .take(64)
        .map(|s| if b.http { s.clone() } else { format!("{s}\n") })
        .collect();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(client(addr, warm, b.http, b.retry))?;
    let (lat, errors, retries, seconds) = drive_clients(addr, b, &set)?;
    Ok(summary(&lat, errors, retries, seconds, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bench(rate: Option<f64>) -> ServerBenchResult {
        let b = ServerBench {
            connections: 4,
            depth: 1,
            requests: 200,
            rate,
            heavy: 0,
            config: Config::throughput(),
            http: false,
            target: None,
            retry: false,
        };
        run(&b).expect("the benchmark runs")
    }

    #[test]
    fn closed_loop_answers_every_request() {
        let r = bench(None);
        assert_eq!(r.decisions, 200);
        assert_eq!(r.errors, 0);
        assert!(r.p50_ms <= r.p99_ms && r.p99_ms <= r.max_ms);
    }

    #[test]
    fn the_request_count_is_exact_when_connections_do_not_divide_it() {
        let b = ServerBench {
            connections: 16,
            depth: 1,
            requests: 203,
            rate: None,
            heavy: 0,
            config: Config::throughput(),
            http: false,
            target: None,
            retry: false,
        };
        let r = run(&b).expect("the benchmark runs");
        assert_eq!(r.decisions, 203);
        assert_eq!(r.errors, 0);
    }

    #[test]
    fn the_http_api_answers_every_request_in_both_load_models() {
        for rate in [None, Some(1000.0)] {
            let b = ServerBench {
                connections: 4,
                depth: 1,
                requests: 200,
                rate,
                heavy: 0,
                config: Config::throughput(),
                http: true,
                target: None,
                retry: false,
            };
            let r = run(&b).expect("the benchmark runs");
            assert_eq!((r.decisions, r.errors), (200, 0), "{rate:?}");
        }
    }

    /// A stand-in server on loopback that answers every line with a play, and closes its
    /// second connection (the first is the warm-up's) after `first` answers, without
    /// answering the next request or (`say`) answering that it is shutting down: as a
    /// replica that stops mid-run does.
    fn flaky_server(first: usize, say: bool) -> std::net::SocketAddr {
        use std::io::{BufRead, Write};
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let addr = l.local_addr().expect("its address");
        std::thread::spawn(move || {
            for (n, stream) in l.incoming().enumerate() {
                let Ok(stream) = stream else { return };
                std::thread::spawn(move || {
                    let Ok(mut w) = stream.try_clone() else {
                        return;
                    };
                    for (k, line) in std::io::BufReader::new(stream).lines().enumerate() {
                        if line.is_err() {
                            return;
                        }
                        if n == 1 && k == first {
                            if say {
                                let _ = w.write_all(format!("{SHUTTING_DOWN}\n").as_bytes());
                            }
                            return;
                        }
                        if w.write_all(b"8/5 6/5\n").is_err() {
                            return;
                        }
                    }
                });
            }
        });
        addr
    }

    fn remote(addr: std::net::SocketAddr, retry: bool) -> ServerBench {
        ServerBench {
            connections: 1,
            depth: 1,
            requests: 100,
            rate: None,
            heavy: 0,
            config: Config::throughput(),
            http: false,
            target: Some(addr),
            retry,
        }
    }

    #[test]
    fn a_retrying_client_carries_on_over_a_new_connection() {
        for say in [false, true] {
            let r = run(&remote(flaky_server(10, say), true)).expect("the benchmark runs");
            assert_eq!((r.decisions, r.errors, r.retries), (100, 0, 1), "{say}");
        }
        // Without retrying, a closed connection ends the run, and the shutdown line is an
        // error reply (the client then finds the connection closed).
        assert!(run(&remote(flaky_server(10, false), false)).is_err());
        assert!(run(&remote(flaky_server(10, true), false)).is_err());
    }

    #[test]
    fn open_loop_keeps_to_its_schedule() {
        // 200 requests at 1,000 per second take about 0.2 s whatever the server's speed.
        let r = bench(Some(1000.0));
        assert_eq!(r.decisions, 200);
        assert_eq!(r.errors, 0);
        assert!(r.seconds >= 0.19, "finished in {} s", r.seconds);
    }
}

//! What several integration tests share: where gnubg is, what a test that needs it does
//! without it, and the board lines captured from gnubg 1.07 and a FIBS server
//! (docs/protocols.md, "FIBS board lines").

#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

/// The apt package's binary.
pub const GNUBG: &str = "/usr/games/gnubg";

/// Set to `1`, lets the tests that need gnubg skip when it is missing (they fail
/// otherwise). Not honoured under `CI=true`, where every gnubg test must run.
pub const SKIP_GNUBG: &str = "STARGAMMON_SKIP_GNUBG";

/// A file each test skipped for want of gnubg appends its name to, so that
/// scripts/test.sh can report skips the harness itself counts as passes.
pub const SKIP_LOG: &str = "STARGAMMON_SKIP_LOG";

/// Overrides where gnubg is looked for; a missing file here stands for "no gnubg", which
/// is how the behaviour without gnubg is checked on a machine that has it.
pub const GNUBG_OVERRIDE: &str = "STARGAMMON_GNUBG";

/// Where gnubg is: `STARGAMMON_GNUBG` when set, else the apt package's binary, else
/// `gnubg` on `PATH`; `None` when that file does not exist.
pub fn gnubg_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(GNUBG_OVERRIDE).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    let apt = PathBuf::from(GNUBG);
    if apt.is_file() {
        return Some(apt);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("gnubg"))
        .find(|p| p.is_file())
}

/// The first line of every test that needs gnubg: gnubg's path, or `None` when the test
/// is to return at once. A missing gnubg fails the test, so that a machine without it
/// cannot pass the gnubg tests by accident. With `STARGAMMON_SKIP_GNUBG=1` (outside CI)
/// the test is skipped instead, and loudly: a SKIPPED line goes straight to stderr, past
/// the harness's output capture, and into the file named by `STARGAMMON_SKIP_LOG` when
/// that is set.
pub fn gnubg_or_skip(test: &str) -> Option<PathBuf> {
    peer_or_skip(
        test,
        "gnubg",
        gnubg_path(),
        SKIP_GNUBG,
        &format!("({GNUBG_OVERRIDE}, {GNUBG}, PATH): install the Debian package gnubg"),
    )
}

/// As [`gnubg_or_skip`] for any outside program a test needs (`found`: where it is, if
/// anywhere): a missing one fails the test unless `skip_env=1` is set outside CI.
pub fn peer_or_skip(
    test: &str,
    what: &str,
    found: Option<PathBuf>,
    skip_env: &str,
    install: &str,
) -> Option<PathBuf> {
    if let Some(p) = found {
        return Some(p);
    }
    let name = format!("{}::{test}", env!("CARGO_CRATE_NAME"));
    let ci = std::env::var("CI").as_deref() == Ok("true");
    let opted_out = std::env::var(skip_env).as_deref() == Ok("1");
    if ci || !opted_out {
        panic!(
            "{name} needs {what}, which was not found {install} (scripts/test.sh does){}",
            if ci {
                format!(" ({skip_env} is not honoured under CI=true)")
            } else {
                format!(", or set {skip_env}=1 to skip the tests that need it")
            }
        );
    }
    let line = format!("SKIPPED ({skip_env}=1): {name} needs {what}\n");
    // `eprintln!` would be captured by the harness and shown only for failing tests.
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(log) = std::env::var_os(SKIP_LOG).filter(|p| !p.is_empty()) {
        // One short append-mode write per test, so lines from parallel tests and test
        // binaries do not interleave.
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = appended {
            panic!("cannot record the skip of {name} in {log:?}: {e}");
        }
    }
    None
}

/// The first file of `names` found in a directory of `PATH`.
pub fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for n in names {
            let p = dir.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// gnubg in text mode, quiet, ignoring the user's rc files (`-t -q -r`).
pub fn gnubg_command() -> std::process::Command {
    let mut c = std::process::Command::new(gnubg_path().unwrap_or_else(|| PathBuf::from(GNUBG)));
    c.args(["-t", "-q", "-r"]);
    c
}

/// Runs gnubg in text mode with `script` on stdin and waits for it to exit.
pub fn run_gnubg(script: &str) -> std::process::Output {
    use std::process::Stdio;
    let mut child = gnubg_command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gnubg starts");
    child
        .stdin
        .take()
        .expect("gnubg's stdin")
        .write_all(script.as_bytes())
        .expect("the script reaches gnubg");
    child.wait_with_output().expect("gnubg's output")
}

// Real-FIBS convention boards.
pub const FIBS_O_OPENING: &str = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
pub const FIBS_X_OPENING: &str = "board:You:gnubot:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:4:5:0:0:1:1:1:0:-1:1:25:0:0:0:0:0:2:0:0:0";

// Boards written by gnubg's external player.
pub const GNUBG_OPENING_21: &str = "board:probe:gnubg0ply:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:2:1:2:1:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1";
pub const GNUBG_BAR_23: &str = "board:gnubg:root:5:0:0:-2:-1:0:1:0:0:4:0:4:0:0:0:-4:4:0:0:0:-3:1:-5:0:0:1:0:0:0:-1:2:3:2:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1";
pub const GNUBG_DOUBLE_Q: &str = "board:probe:gnubg0ply:0:0:0:0:-1:0:-1:0:0:5:0:3:0:0:1:-5:4:0:0:0:-2:-1:-5:0:0:0:1:1:0:-1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1";
pub const GNUBG_TAKE_Q: &str = "board:gnubg0ply:probe:0:0:0:0:-1:0:-1:0:0:5:0:3:0:0:1:-5:4:0:0:0:-1:0:-5:-1:0:-1:1:1:0:1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1";
pub const GNUBG_TAKE_11: &str = "board:gnubgP1:extP0:11:2:8:0:-1:0:0:3:0:5:0:3:0:0:0:-2:3:-1:-1:-1:-3:0:-4:-2:0:0:0:1:0:1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1";
pub const GNUBG_CRAWFORD: &str = "board:gnubgP0:probeP1:7:6:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:4:3:4:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0";

/// A server on an ephemeral loopback port, running on its own multi-thread runtime thread
/// so that blocking test code (gnubg, the referee) can talk to it. Stops and joins when
/// dropped.
pub struct ServerThread {
    pub addr: std::net::SocketAddr,
    /// The HTTP listener's address, when started with [`ServerThread::with_http`].
    pub http: Option<std::net::SocketAddr>,
    pub shared: std::sync::Arc<stargammon::server::Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ServerThread {
    /// Starts a server with the engine, limits and settings of `config`.
    pub fn from_config(config: &stargammon::config::Config) -> ServerThread {
        ServerThread::start(config, false)
    }

    /// As [`ServerThread::from_config`], with the HTTP API on a second loopback port of the
    /// same runtime and pool.
    pub fn with_http(config: &stargammon::config::Config) -> ServerThread {
        ServerThread::start(config, true)
    }

    fn start(config: &stargammon::config::Config, http: bool) -> ServerThread {
        let shared = stargammon::server::Shared::from_config(config).expect("server state");
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let s = shared.clone();
        let config = config.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a tokio runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("a loopback port");
                let addr = listener.local_addr().expect("the bound address");
                let stop = tokio_util::sync::CancellationToken::new();
                let mut http_addr = None;
                let mut http_task = None;
                if http {
                    let l = tokio::net::TcpListener::bind("127.0.0.1:0")
                        .await
                        .expect("a loopback port");
                    http_addr = Some(l.local_addr().expect("the bound address"));
                    http_task = Some(tokio::spawn(stargammon::http::serve(
                        l,
                        s.clone(),
                        config,
                        stop.clone().cancelled_owned(),
                    )));
                }
                addr_tx
                    .send((addr, http_addr))
                    .expect("the test waits for the address");
                let trigger = stop.clone();
                tokio::spawn(async move {
                    let _ = stop_rx.await;
                    trigger.cancel();
                });
                stargammon::server::run_with(listener, s, stop.cancelled()).await;
                if let Some(t) = http_task {
                    let _ = t.await;
                }
            });
        });
        let (addr, http) = addr_rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the server binds within 60 s");
        ServerThread {
            addr,
            http,
            shared,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }
}

/// One HTTP/1.1 exchange on a fresh connection: (status, content type, body).
pub fn http_request(
    addr: std::net::SocketAddr,
    method: &str,
    target: &str,
    body: Option<&[u8]>,
) -> (u16, String, Vec<u8>) {
    use std::io::Read;
    let mut stream = std::net::TcpStream::connect(addr).expect("the HTTP port answers");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(120)))
        .expect("a read timeout");
    let mut request =
        format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(b) = body {
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            b.len()
        ));
    }
    request.push_str("\r\n");
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body.unwrap_or_default());
    stream.write_all(&bytes).expect("the request is sent");
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .expect("the response is read");
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let status: u16 = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    let content_type = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-type")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_default();
    (status, content_type, response[split + 4..].to_vec())
}

/// A JSON exchange: (status, parsed body).
pub fn http_json(
    addr: std::net::SocketAddr,
    method: &str,
    target: &str,
    body: Option<&str>,
) -> (u16, serde_json::Value) {
    let (status, ct, bytes) = http_request(addr, method, target, body.map(str::as_bytes));
    assert!(
        ct.starts_with("application/json"),
        "{status} {ct}: {}",
        String::from_utf8_lossy(&bytes)
    );
    match serde_json::from_slice(&bytes) {
        Ok(v) => (status, v),
        Err(e) => panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)),
    }
}

impl Drop for ServerThread {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Runs the `stargammon` binary of this build with `args`.
pub fn stargammon(args: &[&str]) -> std::process::Output {
    match std::process::Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args(args)
        .output()
    {
        Ok(out) => out,
        Err(e) => panic!("cannot run stargammon: {e}"),
    }
}

/// The JSON object a successful run printed on stdout.
pub fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)),
    }
}

/// A test decider: random legal plays, doubles now and then, drops some doubles (in that
/// order of draws from its generator, so seeded games repeat).
pub struct RandomSeat {
    rng: stargammon::game::Rng,
    double: f64,
    drop: f64,
}

impl RandomSeat {
    /// Doubles with probability `double` when it may, drops a double with probability
    /// `drop`.
    pub fn new(seed: u64, double: f64, drop: f64) -> RandomSeat {
        RandomSeat {
            rng: stargammon::game::Rng::seeded(seed),
            double,
            drop,
        }
    }
}

impl stargammon::players::Decide for RandomSeat {
    fn name(&self) -> String {
        "random".into()
    }

    fn decide(
        &mut self,
        state: &stargammon::game::MatchState,
        plays: &[stargammon::game::Play],
    ) -> Result<stargammon::engine::Action, stargammon::players::DecideError> {
        use stargammon::engine::Action;
        use stargammon::game::Decision;
        Ok(match state.decision {
            Decision::Move(_) => match self.rng.pick(plays) {
                Some(p) => Action::Move(*p),
                None => panic!("a move decision without legal plays"),
            },
            Decision::DoubleOrRoll if self.rng.chance(self.double) => Action::Double,
            Decision::TakeOrDrop if self.rng.chance(self.drop) => Action::Drop,
            Decision::TakeOrDrop => Action::Take,
            _ => Action::Roll,
        })
    }
}

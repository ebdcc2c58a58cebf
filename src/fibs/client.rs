//! The FIBS bot account: one long-running client that logs in, keeps its settings right,
//! accepts invitations by policy, plays from board lines and reconnects after any drop.
//!
//! Decisions are taken from `board:` lines only (see docs/protocols.md, "FIBS bot"): prose lines
//! merely trigger a request for a fresh board, a `join` or bookkeeping. Each distinct
//! board is answered at most once per connection, so a board the server repeats (autoboard
//! plus an explicit `board` request, a re-sent board after an error) never produces a
//! second answer. After a reconnect the set is cleared: an answer lost with the connection
//! must be given again for the match to go on. Everything sent goes through a token-bucket
//! pacer, and the password is never written to a log.
//!
//! This file holds the account's state, the connection loop and the sending of lines;
//! `lines.rs` what each server line does, `invitations.rs` the invitations and saved
//! matches, and `timers.rs` what happens when a wait runs out.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use super::brain::Brain;
use super::clip::{valid_name, InviteKind, LineBuffer, WhoInfo};
use super::config::{FibsConfig, Finish, Lookup};
use super::metrics::AccountMetrics;
use super::watchdog::Watch;

mod invitations;
mod lines;
mod timers;

/// The CLIP protocol version sent at login.
pub const CLIP_VERSION: u32 = 1008;

/// How many boards the answered-set remembers (older ones cannot come back).
const ANSWERED_MEMORY: usize = 256;

/// How many times the same board may be answered again after the server rejected an
/// answer to it.
const RETRIES_PER_BOARD: u32 = 3;

/// A password that never shows in logs or debug output.
#[derive(Clone)]
pub struct Password(String);

impl Password {
    pub fn new(text: String) -> Password {
        Password(text)
    }

    pub(crate) fn reveal(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Password(****)")
    }
}

/// Why a session or the whole client stopped.
#[derive(Debug)]
pub enum FibsError {
    /// The server answered the login with a new login prompt.
    LoginRejected,
    Io(std::io::Error),
    /// No bytes from the server for longer than the idle limit.
    Idle,
    /// The server closed the connection.
    Closed,
    ConnectTimeout,
}

impl fmt::Display for FibsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FibsError::LoginRejected => write!(f, "login rejected (wrong user or password?)"),
            FibsError::Io(e) => write!(f, "connection error: {e}"),
            FibsError::Idle => write!(f, "connection idle for too long"),
            FibsError::Closed => write!(f, "server closed the connection"),
            FibsError::ConnectTimeout => write!(f, "connect timed out"),
        }
    }
}

impl std::error::Error for FibsError {}

impl From<std::io::Error> for FibsError {
    fn from(e: std::io::Error) -> FibsError {
        FibsError::Io(e)
    }
}

/// Counters over the client's life, for logs and tests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientStats {
    /// Successful logins.
    pub logins: u32,
    /// Connections that ended (any reason).
    pub disconnects: u32,
    pub boards_answered: u32,
    /// Boards seen again after they had been answered (not answered twice).
    pub repeated_boards: u32,
    pub invitations_joined: u32,
    pub invitations_declined: u32,
    pub games_won: u32,
    pub games_lost: u32,
    pub matches_won: u32,
    pub matches_lost: u32,
    /// Matches the bot left because the opponent stayed away (saved by the server).
    pub matches_left: u32,
    pub resignations_accepted: u32,
    pub resignations_rejected: u32,
    pub brain_errors: u32,
    /// Waits that ran out (every step the watchdog took).
    pub watchdog_firings: u32,
    /// Server lines logged and ignored as odd (bad names, contradicting boards).
    pub odd_lines: u32,
}

impl std::fmt::Display for ClientStats {
    /// The stop summary an operator reads: one line, words not field names.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} login(s), {} disconnect(s); {} board(s) answered ({} repeated, {} without a \
             decision); invitations {} joined, {} declined; games {} won, {} lost; matches {} \
             won, {} lost, {} left; resignations {} accepted, {} rejected; {} watchdog \
             firing(s); {} odd line(s)",
            self.logins,
            self.disconnects,
            self.boards_answered,
            self.repeated_boards,
            self.brain_errors,
            self.invitations_joined,
            self.invitations_declined,
            self.games_won,
            self.games_lost,
            self.matches_won,
            self.matches_lost,
            self.matches_left,
            self.resignations_accepted,
            self.resignations_rejected,
            self.watchdog_firings,
            self.odd_lines
        )
    }
}

/// Token-bucket pacing of outgoing lines.
#[derive(Debug)]
struct Pacer {
    tokens: f64,
    burst: f64,
    interval: Duration,
    last: Instant,
}

impl Pacer {
    fn new(burst: u32, interval: Duration) -> Pacer {
        Pacer {
            tokens: burst as f64,
            burst: burst as f64,
            interval,
            last: Instant::now(),
        }
    }

    /// Takes one token and returns how long to wait before sending.
    fn reserve(&mut self, now: Instant) -> Duration {
        if self.interval.is_zero() {
            return Duration::ZERO;
        }
        let elapsed = now.saturating_duration_since(self.last);
        self.last = now;
        self.tokens =
            (self.tokens + elapsed.as_secs_f64() / self.interval.as_secs_f64()).min(self.burst);
        self.tokens -= 1.0;
        if self.tokens >= 0.0 {
            Duration::ZERO
        } else {
            self.interval.mul_f64(-self.tokens)
        }
    }
}

/// A saved match the bot knows of.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Saved {
    name: String,
    /// None: unlimited or not known.
    length: Option<u32>,
    score: (u32, u32),
}

/// The match in progress, for the status line at its end.
#[derive(Debug, Clone)]
struct MatchRecord {
    opponent: String,
    resumed: bool,
    started: Instant,
    games_won: u32,
    games_lost: u32,
    /// (length, our score, theirs) from the last board.
    head: Option<(u32, u32, u32)>,
}

/// What survives a reconnect.
#[derive(Debug, Default)]
struct Memory {
    /// Saved (unfinished) matches, by lower-case opponent name.
    saved: HashMap<String, Saved>,
    /// The opponent of the match in progress.
    opponent: Option<String>,
    current: Option<MatchRecord>,
    /// When each opponent's new matches began (per-opponent limits), by lower-case name.
    recent: HashMap<String, VecDeque<Instant>>,
    /// When each player was last invited by `autoinvite`.
    autoinvited: HashMap<String, Instant>,
    last_autoinvite: Option<Instant>,
    /// When each opponent of a saved match was last invited to resume it (by the idle
    /// chores), by lower-case name.
    resume_invited: HashMap<String, Instant>,
    /// The rating the server last told.
    rating: Option<f64>,
}

/// An invitation waiting for what the policy needs to know about the inviter.
#[derive(Debug, Clone)]
struct Pending {
    from: String,
    kind: InviteKind,
    since: Instant,
    asked: Vec<Lookup>,
}

/// Per-connection state.
#[derive(Debug)]
struct Session {
    answered: HashSet<String>,
    answered_order: VecDeque<String>,
    retries: HashMap<String, u32>,
    last_board: Option<String>,
    last_answered: Option<String>,
    login_sent: bool,
    logged_in: bool,
    settings_fixed: bool,
    /// When each declined inviter was last told why.
    told: HashMap<String, Instant>,
    /// A keep-alive went out since the server last said anything.
    keepalive_sent: bool,
    watch: Watch,
    /// The watchdog asked for the board the bot had answered: if it comes back unchanged,
    /// the answer was lost and is given again.
    reanswer: bool,
    /// Who-info by lower-case name.
    who: HashMap<String, WhoInfo>,
    /// Players known to be logged in, by lower-case name.
    online: HashSet<String>,
    /// `show savedcount` answers by lower-case name.
    saved_counts: HashMap<String, u32>,
    pending: Vec<Pending>,
    /// The invitation being joined or sent: (name, command).
    joining: Option<(String, String)>,
    /// Rows of a `show saved` table being read.
    saved_rows: Option<Vec<Saved>>,
    /// Stopping after the game: log out at the next line that ends it.
    quit_after_game: bool,
}

/// A declined inviter is told why at most this often.
const TELL_INTERVAL: Duration = Duration::from_secs(60);

impl Session {
    fn new(now: Instant) -> Session {
        Session {
            answered: HashSet::new(),
            answered_order: VecDeque::new(),
            retries: HashMap::new(),
            last_board: None,
            last_answered: None,
            login_sent: false,
            logged_in: false,
            settings_fixed: false,
            told: HashMap::new(),
            keepalive_sent: false,
            watch: Watch::new(now),
            reanswer: false,
            who: HashMap::new(),
            online: HashSet::new(),
            saved_counts: HashMap::new(),
            pending: Vec::new(),
            joining: None,
            saved_rows: None,
            quit_after_game: false,
        }
    }

    /// Whether `name` may be told why it was declined now (and notes that it is).
    fn may_tell(&mut self, name: &str, now: Instant) -> bool {
        let key = name.to_ascii_lowercase();
        match self.told.get(&key) {
            Some(&t) if now.duration_since(t) < TELL_INTERVAL => false,
            _ => {
                self.told.insert(key, now);
                true
            }
        }
    }

    fn remember(&mut self, board: &str) {
        if self.answered.insert(board.to_string()) {
            self.answered_order.push_back(board.to_string());
            if self.answered_order.len() > ANSWERED_MEMORY {
                if let Some(old) = self.answered_order.pop_front() {
                    self.answered.remove(&old);
                    self.retries.remove(&old);
                }
            }
        }
        self.last_answered = Some(board.to_string());
    }

    /// Forgets the answered boards: a new game or match began (its boards may repeat
    /// boards of an earlier game, the same opening roll at the same score), or the
    /// opponent acted since (a board seen before is a new question now).
    fn forget_answers(&mut self) {
        self.answered.clear();
        self.answered_order.clear();
        self.retries.clear();
        self.last_answered = None;
    }

    /// The server rejected our answer to the last board, or lost it: allow one more
    /// answer to it.
    fn forget_last(&mut self) -> bool {
        let Some(b) = self.last_answered.clone() else {
            return false;
        };
        let n = self.retries.entry(b.clone()).or_insert(0);
        if *n >= RETRIES_PER_BOARD {
            return false;
        }
        *n += 1;
        self.answered.remove(&b);
        true
    }

    fn is_online(&self, name: &str) -> bool {
        self.online.contains(&name.to_ascii_lowercase())
    }
}

/// What handling a line or a timer asks of the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Go,
    /// Log out (`bye` was sent) and stop the client.
    Stop,
}

/// The stop signals of [`Client::run_graceful`].
#[derive(Debug, Clone, Default)]
pub struct Stop {
    /// Finish the current game or match (`[shutdown] finish`), then log out.
    pub finish: CancellationToken,
    /// Log out now.
    pub now: CancellationToken,
}

/// The FIBS bot account.
pub struct Client {
    config: FibsConfig,
    server: String,
    user: String,
    password: Password,
    brain: Brain,
    pacer: Pacer,
    memory: Memory,
    stats: ClientStats,
    metrics: Arc<AccountMetrics>,
    /// When the first stop signal came.
    draining: Option<Instant>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.server)
            .field("user", &self.user)
            .field("stats", &self.stats)
            .finish()
    }
}

type Writer = tokio::net::tcp::OwnedWriteHalf;

impl Client {
    /// A client for `server` (`HOST:PORT`) logging in as `user`.
    pub fn new(
        config: FibsConfig,
        server: String,
        user: String,
        password: Password,
        brain: Brain,
    ) -> Client {
        let pacer = Pacer::new(
            config.connection.send_burst,
            Duration::from_millis(config.connection.min_send_interval_ms),
        );
        let metrics = Arc::new(AccountMetrics::new(&user));
        Client {
            config,
            server,
            user,
            password,
            brain,
            pacer,
            memory: Memory::default(),
            stats: ClientStats::default(),
            metrics,
            draining: None,
        }
    }

    /// Counts into `metrics` (shared with a metrics listener) instead of its own.
    pub fn with_metrics(mut self, metrics: Arc<AccountMetrics>) -> Client {
        self.metrics = metrics;
        self
    }

    /// The counters so far.
    pub fn stats(&self) -> &ClientStats {
        &self.stats
    }

    /// The account's metrics.
    pub fn metrics(&self) -> &Arc<AccountMetrics> {
        &self.metrics
    }

    /// The account's name.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// Runs until `shutdown` is cancelled (then logs out at once), reconnecting with
    /// exponential back-off after every disconnect. Stops early only when the login is
    /// rejected.
    pub async fn run(&mut self, shutdown: CancellationToken) -> Result<ClientStats, FibsError> {
        self.run_graceful(Stop {
            finish: CancellationToken::new(),
            now: shutdown,
        })
        .await
    }

    /// Runs until stopped: after `stop.finish` the bot takes no new match, finishes the
    /// game or match in progress (`[shutdown]`), then logs out; after `stop.now` it logs
    /// out at once. A disconnect while finishing ends the run (the server saves the
    /// match).
    pub async fn run_graceful(&mut self, stop: Stop) -> Result<ClientStats, FibsError> {
        let mut failures = 0u32;
        loop {
            if stop.now.is_cancelled() || (stop.finish.is_cancelled() && self.draining.is_some()) {
                return Ok(self.stats.clone());
            }
            let started = Instant::now();
            let logins_before = self.stats.logins;
            let outcome = self.session(&stop).await;
            self.metrics.set_connected(false);
            self.metrics.set_in_match(false);
            if let Some(opp) = self.memory.opponent.take() {
                self.remember_saved(&opp);
            }
            match outcome {
                Ok(()) => return Ok(self.stats.clone()),
                Err(FibsError::LoginRejected) => return Err(FibsError::LoginRejected),
                Err(e) => {
                    self.stats.disconnects += 1;
                    self.metrics.reconnect();
                    if self.draining.is_some() {
                        tracing::info!("fibs: {}: {e} while stopping; stopped", self.user);
                        return Ok(self.stats.clone());
                    }
                    let stable = Duration::from_secs(self.config.connection.stable_after_s);
                    if self.stats.logins > logins_before && started.elapsed() >= stable {
                        failures = 0;
                    }
                    let wait = self.config.connection.backoff(failures);
                    failures = failures.saturating_add(1);
                    tracing::warn!(
                        "fibs: {}: {e}; reconnecting in {:.1} s",
                        self.user,
                        wait.as_secs_f64()
                    );
                    tokio::select! {
                        _ = stop.now.cancelled() => return Ok(self.stats.clone()),
                        _ = stop.finish.cancelled() => return Ok(self.stats.clone()),
                        _ = tokio::time::sleep(wait) => {}
                    }
                }
            }
        }
    }

    /// Notes a saved match with `name` (the score as the last board showed it).
    fn remember_saved(&mut self, name: &str) {
        let head = self
            .memory
            .current
            .take()
            .filter(|m| m.opponent.eq_ignore_ascii_case(name))
            .and_then(|m| m.head);
        let entry = Saved {
            name: name.to_string(),
            length: head.map(|h| h.0).filter(|&l| l > 0),
            score: head.map_or((0, 0), |h| (h.1, h.2)),
        };
        self.memory.saved.insert(name.to_ascii_lowercase(), entry);
    }

    async fn session(&mut self, stop: &Stop) -> Result<(), FibsError> {
        let timeout = Duration::from_millis(self.config.connection.connect_timeout_ms);
        let stream = tokio::select! {
            _ = stop.now.cancelled() => return Ok(()),
            r = tokio::time::timeout(timeout, TcpStream::connect(&self.server)) => match r {
                Err(_) => return Err(FibsError::ConnectTimeout),
                Ok(s) => s?,
            },
        };
        stream.set_nodelay(true)?;
        tracing::info!("fibs: {}: connected to {}", self.user, self.server);
        let (mut reader, mut writer) = stream.into_split();
        let mut buf = LineBuffer::new();
        let mut session = Session::new(Instant::now());
        let idle = Duration::from_secs(self.config.connection.idle_timeout_s.max(1));
        let keepalive = match self.config.connection.keepalive_s {
            0 => None,
            k => Some(Duration::from_secs(k)),
        };
        let mut last_heard = Instant::now();
        let mut chunk = vec![0u8; 8192];
        loop {
            let now = Instant::now();
            let silent = now.saturating_duration_since(last_heard);
            let mut deadline = match keepalive {
                Some(k) if silent < k => last_heard + k,
                _ => last_heard + idle,
            };
            if session.logged_in {
                if let Some((at, _)) = session.watch.next(&self.config.watchdog) {
                    deadline = deadline.min(at);
                }
                let join = Duration::from_millis(self.config.watchdog.join_ms);
                if let Some(p) = session.pending.iter().map(|p| p.since + join).min() {
                    deadline = deadline.min(p);
                }
                if session.saved_rows.is_some() {
                    deadline = deadline.min(now + Duration::from_millis(200));
                }
            }
            if let Some(t) = self.draining {
                deadline = deadline.min(t + Duration::from_secs(self.config.shutdown.max_wait_s));
            }
            let wait = deadline.saturating_duration_since(now);
            let draining = self.draining.is_some();
            let n = tokio::select! {
                _ = stop.now.cancelled() => {
                    let _ = self.send(&mut writer, "bye", false).await;
                    return Ok(());
                }
                _ = stop.finish.cancelled(), if !draining => {
                    if self.begin_stop(&mut writer, &session).await? == Flow::Stop {
                        return Ok(());
                    }
                    continue;
                }
                r = tokio::time::timeout(wait, reader.read(&mut chunk)) => match r {
                    Err(_) => {
                        let now = Instant::now();
                        if let Some(t) = self.draining {
                            if now >= t + Duration::from_secs(self.config.shutdown.max_wait_s) {
                                tracing::warn!("fibs: {}: stopping took too long; logging out", self.user);
                                let _ = self.send(&mut writer, "bye", false).await;
                                return Ok(());
                            }
                        }
                        let silent = now.saturating_duration_since(last_heard);
                        if silent >= idle {
                            return Err(FibsError::Idle);
                        }
                        // Quiet for the keep-alive interval: one harmless command, once
                        // per silence (the reply, or the idle limit, ends it).
                        if keepalive.is_some_and(|k| silent >= k) && !session.keepalive_sent {
                            session.keepalive_sent = true;
                            let cmd = self.config.connection.keepalive_command.clone();
                            tracing::debug!("fibs: quiet for {}s, keep-alive", silent.as_secs());
                            self.send(&mut writer, &cmd, false).await?;
                        }
                        if session.logged_in
                            && self.on_timer(&mut writer, &mut session, now).await? == Flow::Stop
                        {
                            return Ok(());
                        }
                        continue;
                    }
                    Ok(r) => r?,
                },
            };
            if n == 0 {
                return Err(FibsError::Closed);
            }
            last_heard = Instant::now();
            session.keepalive_sent = false;
            for line in buf.push(&chunk[..n]) {
                if self.handle_line(&mut writer, &mut session, &line).await? == Flow::Stop {
                    return Ok(());
                }
            }
            if buf.at_login_prompt() {
                buf.clear_partial();
                if session.login_sent {
                    return Err(FibsError::LoginRejected);
                }
                let login = format!(
                    "login {} {} {} {}",
                    self.config.client_name,
                    CLIP_VERSION,
                    self.user,
                    self.password.reveal()
                );
                self.send(&mut writer, &login, true).await?;
                session.login_sent = true;
            }
        }
    }

    async fn send(
        &mut self,
        writer: &mut Writer,
        line: &str,
        secret: bool,
    ) -> Result<(), FibsError> {
        if line.chars().any(char::is_control) {
            // Never put a line break or a control byte from outside into a command.
            tracing::warn!(
                "fibs: {}: not sending a line with control characters",
                self.user
            );
            return Ok(());
        }
        let wait = self.pacer.reserve(Instant::now());
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        if secret {
            tracing::debug!(
                "fibs > login {} {} {} ****",
                self.config.client_name,
                CLIP_VERSION,
                self.user
            );
        } else {
            tracing::debug!("fibs > {line}");
        }
        writer.write_all(line.as_bytes()).await?;
        writer.write_all(b"\r\n").await?;
        Ok(())
    }

    /// The first stop signal: finish what the settings say, or log out now.
    async fn begin_stop(&mut self, w: &mut Writer, s: &Session) -> Result<Flow, FibsError> {
        self.draining = Some(Instant::now());
        let busy = self.memory.opponent.is_some();
        if self.config.shutdown.finish == Finish::Now || !busy || !s.logged_in {
            tracing::info!("fibs: {}: stopping; logging out", self.user);
            self.send(w, "bye", false).await?;
            return Ok(Flow::Stop);
        }
        let what = match self.config.shutdown.finish {
            Finish::Match => "match",
            _ => "game",
        };
        tracing::info!(
            "fibs: {}: stopping after this {what} (a second signal stops at once)",
            self.user
        );
        Ok(Flow::Go)
    }

    async fn bye(&mut self, w: &mut Writer, why: &str) -> Result<Flow, FibsError> {
        tracing::info!("fibs: {}: {why}; logging out", self.user);
        self.send(w, "bye", false).await?;
        Ok(Flow::Stop)
    }

    /// A player command that names `name`, sent only when the name is a player's.
    async fn send_to(
        &mut self,
        w: &mut Writer,
        cmd: &str,
        name: &str,
        rest: &str,
    ) -> Result<bool, FibsError> {
        if !valid_name(name) {
            tracing::warn!(
                "fibs: {}: not sending {cmd} to the odd name {name:?}",
                self.user
            );
            return Ok(false);
        }
        let line = if rest.is_empty() {
            format!("{cmd} {name}")
        } else {
            format!("{cmd} {name} {rest}")
        };
        self.send(w, &line, false).await?;
        Ok(true)
    }
}

/// Runs several accounts side by side until stopped; each has its own connection and
/// state, so one account's stall, drop or rejected login leaves the others alone.
/// Returns each account's name and result, in the order given.
pub async fn run_accounts(
    clients: Vec<Client>,
    stop: Stop,
) -> Vec<(String, Result<ClientStats, FibsError>)> {
    let mut tasks = Vec::new();
    for mut c in clients {
        let stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            let r = c.run_graceful(stop).await;
            if let Err(e) = &r {
                tracing::error!("fibs: {}: stopped: {e}", c.user());
            }
            (c.user().to_string(), r, c.stats().clone())
        }));
    }
    let mut out = Vec::new();
    for t in tasks {
        match t.await {
            Ok((user, r, _)) => out.push((user, r)),
            Err(e) => out.push((
                "?".to_string(),
                Err(FibsError::Io(std::io::Error::other(e.to_string()))),
            )),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn pacer_allows_a_burst_then_spaces_lines() {
        let mut p = Pacer::new(2, Duration::from_millis(100));
        let t = p.last;
        assert_eq!(p.reserve(t), Duration::ZERO);
        assert_eq!(p.reserve(t), Duration::ZERO);
        assert_eq!(p.reserve(t), Duration::from_millis(100));
        assert_eq!(p.reserve(t), Duration::from_millis(200));
        // After a long pause the bucket is full again, not more.
        let later = t + Duration::from_secs(10);
        assert_eq!(p.reserve(later), Duration::ZERO);
        assert_eq!(p.reserve(later), Duration::ZERO);
        assert!(p.reserve(later) > Duration::ZERO);
    }

    #[test]
    fn declined_inviters_are_told_at_most_once_a_minute() {
        let mut s = Session::new(Instant::now());
        let t = Instant::now();
        assert!(s.may_tell("alice", t));
        assert!(!s.may_tell("Alice", t + Duration::from_secs(30)));
        assert!(s.may_tell("bob", t + Duration::from_secs(30)));
        assert!(s.may_tell("alice", t + TELL_INTERVAL));
    }

    #[test]
    fn a_new_game_may_answer_a_board_seen_in_an_earlier_one() {
        let mut s = Session::new(Instant::now());
        s.remember("board:opening");
        assert!(s.answered.contains("board:opening"));
        s.forget_answers();
        assert!(!s.answered.contains("board:opening"));
    }

    #[test]
    fn password_is_hidden_in_debug_output() {
        let p = Password::new("hunter2".into());
        assert!(!format!("{p:?}").contains("hunter2"));
    }

    #[test]
    fn a_rejected_answer_may_be_retried_a_bounded_number_of_times() {
        let mut s = Session::new(Instant::now());
        s.remember("board:a");
        assert!(s.answered.contains("board:a"));
        for _ in 0..RETRIES_PER_BOARD {
            assert!(s.forget_last());
            assert!(!s.answered.contains("board:a"));
            s.remember("board:a");
        }
        assert!(!s.forget_last());
        assert!(s.answered.contains("board:a"));
    }
}

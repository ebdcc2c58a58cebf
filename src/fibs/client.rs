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

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use super::brain::{BoardAnswer, BoardStatus, Brain};
use super::clip::{classify, valid_name, ClipLine, InviteKind, LineBuffer, Who, WhoInfo};
use super::config::{DeclineReason, FibsConfig, Finish, Inviter, Lookup, Verdict};
use super::metrics::{AccountMetrics, MatchEnd};
use super::watchdog::{Phase, Step, Watch};

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

    fn reveal(&self) -> &str {
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

/// A player is invited by `autoinvite` at most this often.
const AUTOINVITE_AGAIN: Duration = Duration::from_secs(3600);

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

/// Whether a server error line is about an answer to a board (a move, roll, double,
/// accept or reject) rather than about invitations or other commands.
fn refuses_a_board_answer(error: &str) -> bool {
    let e = error.to_ascii_lowercase();
    !(e.contains("invite")
        || e.contains("join")
        || e.contains("unknown command")
        || e.contains("no one called")
        || e.contains("saved"))
}

/// The head of a board line: opponent, match length, our score, theirs.
fn board_head(line: &str) -> Option<(&str, u32, u32, u32)> {
    let mut f = line.split(':').skip(2);
    let opponent = f.next()?;
    let length = f.next()?.parse().ok()?;
    let ours = f.next()?.parse().ok()?;
    let theirs = f.next()?.parse().ok()?;
    Some((opponent, length, ours, theirs))
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

    /// The watchdog, pending invitations and a finished `show saved` table.
    async fn on_timer(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        now: Instant,
    ) -> Result<Flow, FibsError> {
        if s.saved_rows.is_some() {
            self.apply_saved_rows(w, s).await?;
        }
        let join = Duration::from_millis(self.config.watchdog.join_ms);
        let expired: Vec<Pending> = s
            .pending
            .iter()
            .filter(|p| now >= p.since + join)
            .cloned()
            .collect();
        s.pending.retain(|p| now < p.since + join);
        for p in expired {
            self.decline(
                w,
                s,
                &p.from,
                p.kind,
                DeclineReason::Unknown,
                "Sorry, I could not look you up in time; please invite me again.".into(),
            )
            .await?;
        }
        while let Some(step) = s.watch.fire(&self.config.watchdog, now) {
            if self.watchdog_step(w, s, step, now).await? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Go)
    }

    async fn watchdog_step(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        step: Step,
        now: Instant,
    ) -> Result<Flow, FibsError> {
        let phase = s.watch.phase();
        if step != Step::Reinvite {
            self.stats.watchdog_firings += 1;
            self.metrics.watchdog_fired(step);
            tracing::info!(
                "fibs: {}: waited {:.1} s ({phase:?}): {}",
                self.user,
                now.saturating_duration_since(s.watch.since()).as_secs_f64(),
                step.label()
            );
        }
        match step {
            Step::Board => {
                if matches!(phase, Phase::OwnBoard | Phase::Answered) {
                    s.reanswer = true;
                }
                self.send(w, "board", false).await?;
            }
            Step::Roll => self.send(w, "roll", false).await?,
            Step::Rejoin => match (phase, s.joining.clone()) {
                (Phase::Joining, Some((_, cmd))) => self.send(w, &cmd, false).await?,
                (Phase::NextGame, _) => self.send(w, "join", false).await?,
                _ => {}
            },
            Step::GiveUp => {
                if let Some((name, _)) = s.joining.take() {
                    tracing::info!("fibs: {}: no match with {name} began; giving up", self.user);
                }
                s.watch.enter(Phase::Idle, now);
            }
            Step::Remind => {
                if let Some(o) = self.memory.opponent.clone() {
                    let text = self.config.watchdog.reminder.clone();
                    self.send_to(w, "tell", &o, &text).await?;
                }
            }
            Step::Leave => {
                let Some(o) = self.memory.opponent.take() else {
                    s.watch.enter(Phase::Idle, now);
                    return Ok(Flow::Go);
                };
                self.send(w, "leave", false).await?;
                self.stats.matches_left += 1;
                self.metrics.match_ended(MatchEnd::Left);
                self.metrics.set_in_match(false);
                self.status_line("left (the opponent stayed away; the match is saved)");
                self.remember_saved(&o);
                s.forget_answers();
                s.watch.enter(Phase::Idle, now);
                if self.draining.is_some() {
                    return self.bye(w, "stopping").await;
                }
            }
            Step::Reinvite => self.idle_chores(w, s, now).await?,
        }
        Ok(Flow::Go)
    }

    /// With no match: invite an online opponent of a saved match, or (`autoinvite`) an
    /// idle player who is ready.
    async fn idle_chores(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        now: Instant,
    ) -> Result<(), FibsError> {
        if self.memory.opponent.is_some() || s.joining.is_some() || self.draining.is_some() {
            return Ok(());
        }
        let policy = &self.config.invitations;
        // An opponent who did not come back when invited is asked again only after the
        // time the bot waits for an opponent (or when they log in anew).
        let again = Duration::from_millis(self.config.watchdog.opponent_leave_ms);
        let mut saved: Vec<&Saved> = self
            .memory
            .saved
            .values()
            .filter(|m| s.is_online(&m.name) && policy.listed_ok(&m.name))
            .filter(|m| {
                !self
                    .memory
                    .resume_invited
                    .get(&m.name.to_ascii_lowercase())
                    .is_some_and(|&t| now.saturating_duration_since(t) < again)
            })
            .collect();
        saved.sort_by(|a, b| a.name.cmp(&b.name));
        if let Some(m) = saved.first() {
            let name = m.name.clone();
            self.memory
                .resume_invited
                .insert(name.to_ascii_lowercase(), now);
            self.invite(w, s, &name, format!("invite {name}"), now)
                .await?;
            return Ok(());
        }
        if !policy.autoinvite {
            return Ok(());
        }
        let every = Duration::from_secs(policy.autoinvite_every_s);
        if self
            .memory
            .last_autoinvite
            .is_some_and(|t| now.saturating_duration_since(t) < every)
        {
            return Ok(());
        }
        let me = self.user.to_ascii_lowercase();
        let mut candidates: Vec<&WhoInfo> = s
            .who
            .values()
            .filter(|p| {
                let key = p.name.to_ascii_lowercase();
                key != me
                    && p.ready
                    && !p.away
                    && p.opponent.is_none()
                    && valid_name(&p.name)
                    && !self
                        .memory
                        .autoinvited
                        .get(&key)
                        .is_some_and(|&t| now.saturating_duration_since(t) < AUTOINVITE_AGAIN)
            })
            .filter(|p| {
                let who = Inviter {
                    name: p.name.clone(),
                    rating: Some(p.rating),
                    experience: Some(p.experience),
                    saved_count: Some(0),
                    recent_matches: self.recent_matches(&p.name, now),
                };
                policy.judge(&who, InviteKind::Points(policy.autoinvite_length)) == Verdict::Join
            })
            .collect();
        candidates.sort_by(|a, b| a.name.cmp(&b.name));
        if let Some(p) = candidates.first() {
            let name = p.name.clone();
            let len = policy.autoinvite_length;
            self.memory.last_autoinvite = Some(now);
            self.memory
                .autoinvited
                .insert(name.to_ascii_lowercase(), now);
            tracing::info!(
                "fibs: {}: inviting {name} to a {len} point match",
                self.user
            );
            self.invite(w, s, &name, format!("invite {name} {len}"), now)
                .await?;
        }
        Ok(())
    }

    /// Sends `cmd` (a `join NAME` or `invite NAME ...`) and waits for the match to begin.
    async fn invite(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        name: &str,
        cmd: String,
        now: Instant,
    ) -> Result<(), FibsError> {
        if !valid_name(name) {
            return Ok(());
        }
        self.send(w, &cmd, false).await?;
        s.joining = Some((name.to_string(), cmd));
        s.watch.enter(Phase::Joining, now);
        Ok(())
    }

    /// New matches with `name` within the per-opponent window.
    fn recent_matches(&self, name: &str, now: Instant) -> u32 {
        let window = Duration::from_secs(self.config.invitations.per_opponent_window_h * 3600);
        self.memory
            .recent
            .get(&name.to_ascii_lowercase())
            .map_or(0, |q| {
                q.iter()
                    .filter(|&&t| now.saturating_duration_since(t) < window)
                    .count() as u32
            })
    }

    async fn decline(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        from: &str,
        kind: InviteKind,
        reason: DeclineReason,
        why: String,
    ) -> Result<(), FibsError> {
        self.stats.invitations_declined += 1;
        self.metrics.refused(reason);
        tracing::info!(
            "fibs: {}: declining {from} ({kind:?}, {}): {why}",
            self.user,
            reason.label()
        );
        // One explanation per inviter per minute: repeated invitations must not make the
        // bot flood anyone.
        if s.may_tell(from, Instant::now()) {
            self.send_to(w, "tell", from, &why).await?;
        }
        Ok(())
    }

    /// Judges an invitation with what is known; asks the server what the policy needs
    /// (`asked`: what was asked already for it).
    async fn consider(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        from: &str,
        kind: InviteKind,
        asked: Vec<Lookup>,
    ) -> Result<(), FibsError> {
        let now = Instant::now();
        if self.draining.is_some() {
            let why = "Sorry, I am about to log out; please invite me again later.".to_string();
            return self
                .decline(w, s, from, kind, DeclineReason::ShuttingDown, why)
                .await;
        }
        let busy_with = |o: &str| !o.eq_ignore_ascii_case(from);
        let busy = self.memory.opponent.as_deref().is_some_and(busy_with)
            || s.joining.as_ref().is_some_and(|(n, _)| busy_with(n));
        if self
            .memory
            .opponent
            .as_deref()
            .is_some_and(|o| o.eq_ignore_ascii_case(from))
        {
            // Already playing this opponent (a repeated invitation): nothing to do.
            return Ok(());
        }
        let key = from.to_ascii_lowercase();
        let info = s.who.get(&key);
        let who = Inviter {
            name: from.to_string(),
            rating: info.map(|i| i.rating),
            experience: info.map(|i| i.experience),
            saved_count: s.saved_counts.get(&key).copied(),
            recent_matches: self.recent_matches(from, now),
        };
        // The policy speaks first, so that an inviter it turns away hears the real reason
        // even while the bot is busy.
        match self.config.invitations.judge(&who, kind) {
            Verdict::Join if busy => {
                let why = "Sorry, I am in a match right now; please invite me again later.".into();
                self.decline(w, s, from, kind, DeclineReason::Busy, why)
                    .await
            }
            Verdict::Join => {
                self.stats.invitations_joined += 1;
                self.metrics.joined();
                tracing::info!("fibs: {}: accepting {from} ({kind:?})", self.user);
                // A saved match is resumed by inviting, never by joining: the bot's own
                // invitation names the match the server will load.
                let cmd = if kind == InviteKind::Resume {
                    format!("invite {from}")
                } else {
                    format!("join {from}")
                };
                self.invite(w, s, from, cmd, now).await
            }
            Verdict::Decline(reason, why) => self.decline(w, s, from, kind, reason, why).await,
            Verdict::Ask(lookup) if asked.contains(&lookup) => {
                let why = "Sorry, I could not look you up; please invite me again.".into();
                self.decline(w, s, from, kind, DeclineReason::Unknown, why)
                    .await
            }
            Verdict::Ask(lookup) => {
                let cmd = match lookup {
                    Lookup::Who => "rawwho",
                    Lookup::SavedCount => "show savedcount",
                };
                s.pending.retain(|p| !p.from.eq_ignore_ascii_case(from));
                let mut asked = asked;
                asked.push(lookup);
                s.pending.push(Pending {
                    from: from.to_string(),
                    kind,
                    since: now,
                    asked,
                });
                self.send_to(w, cmd, from, "").await?;
                Ok(())
            }
        }
    }

    /// Judges again the invitations that waited for news of `name`.
    async fn retry_pending(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        name: &str,
    ) -> Result<(), FibsError> {
        let (mine, rest): (Vec<Pending>, Vec<Pending>) = std::mem::take(&mut s.pending)
            .into_iter()
            .partition(|p| p.from.eq_ignore_ascii_case(name));
        s.pending = rest;
        for p in mine {
            self.consider(w, s, &p.from, p.kind, p.asked).await?;
        }
        Ok(())
    }

    /// A `show saved` table has been read: it is the list of saved matches now.
    async fn apply_saved_rows(&mut self, w: &mut Writer, s: &mut Session) -> Result<(), FibsError> {
        let Some(rows) = s.saved_rows.take() else {
            return Ok(());
        };
        self.replace_saved(rows);
        if s.watch.phase() == Phase::Idle {
            self.idle_chores(w, s, Instant::now()).await?;
        }
        Ok(())
    }

    /// The server's list of saved matches replaces the bot's: matches it no longer lists
    /// were finished elsewhere or expired.
    fn replace_saved(&mut self, rows: Vec<Saved>) {
        let listed: HashSet<String> = rows.iter().map(|r| r.name.to_ascii_lowercase()).collect();
        for gone in self
            .memory
            .saved
            .values()
            .filter(|m| !listed.contains(&m.name.to_ascii_lowercase()))
        {
            tracing::info!(
                "fibs: {}: the match with {} is no longer saved (finished or expired)",
                self.user,
                gone.name
            );
        }
        self.memory.saved.clear();
        for r in rows {
            if !self.config.invitations.listed_ok(&r.name) {
                tracing::info!(
                    "fibs: {}: not resuming the saved match with {} (the allow and deny lists)",
                    self.user,
                    r.name
                );
                continue;
            }
            tracing::info!(
                "fibs: {}: saved match with {} ({}, {}-{}); the server deletes saved matches \
                 left unfinished too long",
                self.user,
                r.name,
                r.length
                    .map_or("unlimited".to_string(), |l| format!("{l} points")),
                r.score.0,
                r.score.1
            );
            self.memory.saved.insert(r.name.to_ascii_lowercase(), r);
        }
    }

    /// The log line of a match that ended.
    fn status_line(&self, result: &str) {
        let Some(m) = &self.memory.current else {
            return;
        };
        let (length, ours, theirs) = m.head.unwrap_or((0, 0, 0));
        let length = if length == 0 {
            "unlimited".to_string()
        } else {
            format!("{length} points")
        };
        let rating = self
            .memory
            .rating
            .map_or("not known".to_string(), |r| format!("{r:.2}"));
        tracing::info!(
            account = %self.user,
            opponent = %m.opponent,
            result,
            "fibs: {}: match with {} ({length}{}): {result}, last score {ours}-{theirs}, games {} won \
             {} lost, {:.1} min; rating {rating}",
            self.user,
            m.opponent,
            if m.resumed { ", resumed" } else { "" },
            m.games_won,
            m.games_lost,
            m.started.elapsed().as_secs_f64() / 60.0
        );
    }

    /// Warns about a board that does not fit the match in progress (it is still acted on:
    /// the board is what the server will referee by).
    fn check_board(&mut self, board: &str) {
        let Some((opp, length, ours, theirs)) = board_head(board) else {
            return;
        };
        let mut odd = Vec::new();
        if let Some(o) = &self.memory.opponent {
            if !o.eq_ignore_ascii_case(opp) {
                odd.push(format!("opponent {opp:?}, not {o}"));
            }
        }
        if let Some(m) = &mut self.memory.current {
            if let Some((l, a, b)) = m.head {
                if l != length || ours < a || theirs < b {
                    odd.push(format!(
                        "score {ours}-{theirs} of {length} after {a}-{b} of {l}"
                    ));
                }
            }
            m.head = Some((length, ours, theirs));
        }
        if !odd.is_empty() {
            self.stats.odd_lines += 1;
            self.metrics.unreadable_line();
            tracing::warn!(
                "fibs: {}: a board that contradicts the last one ({}): {board}",
                self.user,
                odd.join("; ")
            );
        }
    }

    async fn handle_line(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        line: &str,
    ) -> Result<Flow, FibsError> {
        if line.is_empty() {
            return Ok(Flow::Go);
        }
        tracing::trace!("fibs < {line}");
        let now = Instant::now();
        let class = classify(line);
        if s.saved_rows.is_some()
            && !matches!(class, ClipLine::SavedEntry { .. } | ClipLine::SavedHeader)
        {
            self.apply_saved_rows(w, s).await?;
        }
        match class {
            ClipLine::Welcome { user } => {
                if user.eq_ignore_ascii_case(&self.user) {
                    s.logged_in = true;
                    s.watch.enter(Phase::Idle, now);
                    self.stats.logins += 1;
                    self.metrics.login();
                    self.metrics.set_connected(true);
                    tracing::info!("fibs: logged in as {user}");
                }
            }
            ClipLine::OwnInfo(info) => {
                if !s.settings_fixed {
                    s.settings_fixed = true;
                    for cmd in info.fixes() {
                        self.send(w, &cmd, false).await?;
                    }
                    // The saved matches, to resume them; the answer replaces what the bot
                    // remembers.
                    self.send(w, "show saved", false).await?;
                }
            }
            ClipLine::LoginBlock => {}
            ClipLine::PlayerInfo(info) => {
                let key = info.name.to_ascii_lowercase();
                if info.name.eq_ignore_ascii_case(&self.user) {
                    self.memory.rating = Some(info.rating);
                    self.metrics.set_rating(info.rating);
                }
                s.online.insert(key.clone());
                let name = info.name.clone();
                s.who.insert(key, info);
                if s.pending.iter().any(|p| p.from.eq_ignore_ascii_case(&name)) {
                    self.retry_pending(w, s, &name).await?;
                }
            }
            ClipLine::SavedHeader => s.saved_rows = Some(Vec::new()),
            ClipLine::SavedEntry {
                name,
                online,
                length,
                score,
            } => {
                if online {
                    s.online.insert(name.to_ascii_lowercase());
                }
                s.saved_rows.get_or_insert_with(Vec::new).push(Saved {
                    name,
                    length,
                    score,
                });
            }
            ClipLine::NoSaved => {
                self.replace_saved(Vec::new());
            }
            ClipLine::SavedCount { name, count } => {
                s.saved_counts.insert(name.to_ascii_lowercase(), count);
                if s.pending.iter().any(|p| p.from.eq_ignore_ascii_case(&name)) {
                    self.retry_pending(w, s, &name).await?;
                }
            }
            ClipLine::Board(board) => return self.on_board(w, s, board, now).await,
            ClipLine::Invitation { from, kind } => {
                if !valid_name(&from) {
                    self.odd(&format!("an invitation from an odd name: {line:?}"));
                    return Ok(Flow::Go);
                }
                s.online.insert(from.to_ascii_lowercase());
                self.consider(w, s, &from, kind, Vec::new()).await?;
            }
            ClipLine::MatchStarted { opponent } => {
                if !valid_name(&opponent) {
                    self.odd(&format!("a match with an odd name: {line:?}"));
                }
                s.forget_answers();
                s.joining = None;
                let key = opponent.to_ascii_lowercase();
                let resumed = self.memory.saved.remove(&key).is_some();
                if !resumed {
                    let window =
                        Duration::from_secs(self.config.invitations.per_opponent_window_h * 3600);
                    let q = self.memory.recent.entry(key).or_default();
                    while q
                        .front()
                        .is_some_and(|&t| now.saturating_duration_since(t) >= window)
                    {
                        q.pop_front();
                    }
                    q.push_back(now);
                }
                self.metrics.match_started(resumed);
                self.metrics.set_in_match(true);
                tracing::info!(
                    "fibs: {}: {} a match with {opponent}",
                    self.user,
                    if resumed { "resuming" } else { "starting" }
                );
                self.memory.current = Some(MatchRecord {
                    opponent: opponent.clone(),
                    resumed,
                    started: Instant::now(),
                    games_won: 0,
                    games_lost: 0,
                    head: None,
                });
                self.memory.opponent = Some(opponent);
                self.send(w, "board", false).await?;
                s.watch.enter(Phase::OwnBoard, now);
            }
            ClipLine::NewGame => {
                self.brain.new_game();
                s.forget_answers();
                self.send(w, "board", false).await?;
                s.watch.enter(Phase::OwnBoard, now);
            }
            ClipLine::MatchLoaded | ClipLine::YourTurn | ClipLine::Doubled { .. } => {
                self.send(w, "board", false).await?;
                s.watch.enter(Phase::OwnBoard, now);
            }
            ClipLine::ResignOffer { by, points } => {
                let accept = match &s.last_board {
                    Some(b) => self.brain.accept_resignation(b, points).await,
                    None => false,
                };
                if accept {
                    self.stats.resignations_accepted += 1;
                } else {
                    self.stats.resignations_rejected += 1;
                }
                tracing::info!(
                    "fibs: {by} offers to resign for {points}: {}",
                    if accept { "accept" } else { "reject" }
                );
                self.send(w, if accept { "accept" } else { "reject" }, false)
                    .await?;
                s.watch.enter(Phase::Opponent, now);
            }
            ClipLine::GameOver { winner, points } => {
                let won = winner == Who::Me;
                if won {
                    self.stats.games_won += 1;
                } else {
                    self.stats.games_lost += 1;
                }
                self.metrics.game_ended(won);
                if let Some(m) = &mut self.memory.current {
                    if won {
                        m.games_won += 1;
                    } else {
                        m.games_lost += 1;
                    }
                }
                tracing::info!("fibs: {}: game over ({winner:?} +{points})", self.user);
                s.watch.enter(Phase::Opponent, now);
                if self.draining.is_some() && self.config.shutdown.finish != Finish::Match {
                    s.quit_after_game = true;
                }
            }
            ClipLine::JoinNextGame => {
                if s.quit_after_game {
                    return self
                        .bye(w, "the game is over and the bot is stopping")
                        .await;
                }
                self.send(w, "join", false).await?;
                s.watch.enter(Phase::NextGame, now);
            }
            ClipLine::MatchOver { winner } => {
                let won = winner == Who::Me;
                if won {
                    self.stats.matches_won += 1;
                } else {
                    self.stats.matches_lost += 1;
                }
                self.metrics
                    .match_ended(if won { MatchEnd::Won } else { MatchEnd::Lost });
                self.metrics.set_in_match(false);
                if let Some(m) = &mut self.memory.current {
                    // The last board shows the score before the final game.
                    if let Some((l, a, b)) = m.head {
                        m.head = Some(if won {
                            (l, a.max(l), b)
                        } else {
                            (l, a, b.max(l))
                        });
                    }
                }
                self.status_line(if won { "won" } else { "lost" });
                self.memory.current = None;
                if let Some(o) = self.memory.opponent.take() {
                    self.memory.saved.remove(&o.to_ascii_lowercase());
                }
                s.forget_answers();
                s.watch.enter(Phase::Idle, now);
                if self.draining.is_some() {
                    return self
                        .bye(w, "the match is over and the bot is stopping")
                        .await;
                }
            }
            ClipLine::OpponentGone { name } => {
                s.online.remove(&name.to_ascii_lowercase());
                // Only our opponent's departure saves a match of ours; anyone else's
                // logout is none of the bot's business.
                let ours = self
                    .memory
                    .opponent
                    .as_deref()
                    .is_some_and(|o| o.eq_ignore_ascii_case(&name));
                if ours {
                    self.memory.opponent = None;
                    self.metrics.set_in_match(false);
                    tracing::info!("fibs: {}: {name} left; the match is saved", self.user);
                    self.remember_saved(&name);
                    s.forget_answers();
                    s.watch.enter(Phase::Idle, now);
                    if self.draining.is_some() {
                        return self
                            .bye(w, "the opponent left and the bot is stopping")
                            .await;
                    }
                }
            }
            ClipLine::CommandError(e) => {
                tracing::warn!("fibs: {}: server refused a command: {e}", self.user);
                // Only a refused play, roll or cube answer makes the last board's answer
                // void; a refused `join` or `invite` says nothing about the board (and
                // answering the board again would play the same move twice).
                if refuses_a_board_answer(&e) {
                    if s.forget_last() {
                        self.send(w, "board", false).await?;
                        s.watch.enter(Phase::OwnBoard, now);
                    }
                } else if s.watch.phase() == Phase::Joining {
                    if let Some((name, _)) = s.joining.take() {
                        tracing::info!("fibs: {}: no match with {name}", self.user);
                    }
                    s.watch.enter(Phase::Idle, now);
                }
            }
            ClipLine::LoggedIn { name } => {
                if !valid_name(&name) {
                    self.odd(&format!("a login notice with an odd name: {line:?}"));
                    return Ok(Flow::Go);
                }
                s.online.insert(name.to_ascii_lowercase());
                // Someone logged in: resume a saved match with them.
                let saved = self.memory.saved.contains_key(&name.to_ascii_lowercase());
                if saved
                    && self.memory.opponent.is_none()
                    && s.joining.is_none()
                    && self.draining.is_none()
                    && self.config.invitations.listed_ok(&name)
                {
                    self.invite(w, s, &name, format!("invite {name}"), now)
                        .await?;
                }
            }
            ClipLine::NotPlaying => {
                // No game is on: a board request crossed the end of a game, or the match
                // ended or was saved. Waiting for a board of the bot's own would wait
                // forever; the opponent's wait (board, reminder, leaving) covers the rest.
                if s.watch.phase().bot_due() {
                    s.reanswer = false;
                    let phase = if self.memory.opponent.is_some() {
                        Phase::Opponent
                    } else {
                        Phase::Idle
                    };
                    s.watch.enter(phase, now);
                }
            }
            ClipLine::Refusing => {}
            ClipLine::Other(text) => {
                // The opponent acted (`alice rolls 4 and 4.`, `alice can't move.`, ...): a
                // board seen before may now be a new question (both sides blocked give the
                // same board twice), so the memory of answered boards starts afresh.
                let by_opponent = self.memory.opponent.as_deref().is_some_and(|o| {
                    text.strip_prefix(o)
                        .is_some_and(|rest| rest.starts_with(' '))
                });
                if by_opponent {
                    s.forget_answers();
                    s.watch.progress(now);
                    // Their play is over: the bot's turn comes, and a board with it.
                    let rest = self
                        .memory
                        .opponent
                        .as_deref()
                        .and_then(|o| text.get(o.len()..))
                        .unwrap_or("");
                    if rest.starts_with(" moves") || rest.starts_with(" can't move") {
                        s.watch.enter(Phase::OwnBoard, now);
                    } else if !matches!(s.watch.phase(), Phase::OwnBoard | Phase::ServerRoll) {
                        s.watch.enter(Phase::Opponent, now);
                    }
                }
            }
        }
        Ok(Flow::Go)
    }

    fn odd(&mut self, what: &str) {
        self.stats.odd_lines += 1;
        self.metrics.unreadable_line();
        tracing::warn!("fibs: {}: ignoring {what}", self.user);
    }

    async fn on_board(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        board: String,
        now: Instant,
    ) -> Result<Flow, FibsError> {
        self.check_board(&board);
        if s.last_board.as_deref() != Some(board.as_str()) {
            s.watch.progress(now);
        }
        s.last_board = Some(board.clone());
        if s.answered.contains(&board) {
            // Asked for by the watchdog and unchanged: the answer never arrived.
            let lost =
                s.reanswer && s.last_answered.as_deref() == Some(board.as_str()) && s.forget_last();
            if !lost {
                s.reanswer = false;
                self.stats.repeated_boards += 1;
                return Ok(Flow::Go);
            }
            tracing::info!(
                "fibs: {}: the answer to this board was lost; answering again",
                self.user
            );
        }
        s.reanswer = false;
        match self.brain.answer(&board).await {
            Ok(BoardAnswer {
                command: Some(cmd), ..
            }) => {
                s.remember(&board);
                self.stats.boards_answered += 1;
                self.metrics.board_answered();
                self.send(w, &cmd, false).await?;
                // After a double or a resignation the opponent answers; after a play or a
                // cube answer the board should change.
                let phase = if cmd.starts_with("double") || cmd.starts_with("resign") {
                    Phase::Opponent
                } else {
                    Phase::Answered
                };
                s.watch.enter(phase, now);
            }
            Ok(BoardAnswer {
                command: None,
                status,
            }) => match status {
                BoardStatus::ServerRolls => s.watch.enter(Phase::ServerRoll, now),
                BoardStatus::ServerMoves => s.watch.stay_or_enter(Phase::Answered, now),
                BoardStatus::Theirs | BoardStatus::Over => {
                    s.watch.stay_or_enter(Phase::Opponent, now)
                }
                BoardStatus::Ours => {}
            },
            Err(e) => {
                self.stats.brain_errors += 1;
                self.metrics.decision_error();
                tracing::warn!("fibs: {}: no decision for {board}: {e}", self.user);
            }
        }
        Ok(Flow::Go)
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
    fn only_errors_about_play_void_a_board_answer() {
        assert!(refuses_a_board_answer("** It's not your turn to move."));
        assert!(refuses_a_board_answer("** You must give 2 moves."));
        assert!(!refuses_a_board_answer(
            "** Error: alice didn't invite you."
        ));
        assert!(!refuses_a_board_answer("** Unknown command: 'time'"));
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

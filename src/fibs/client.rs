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
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use super::brain::Brain;
use super::clip::{classify, ClipLine, LineBuffer, Who};
use super::config::FibsConfig;

/// The CLIP protocol version sent at login.
pub const CLIP_VERSION: u32 = 1008;

/// How many boards the answered-set remembers (older ones cannot come back).
const ANSWERED_MEMORY: usize = 256;

/// How many times the same board may be answered again after the server rejected an
/// answer to it.
const RETRIES_PER_BOARD: u32 = 2;

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
    pub resignations_accepted: u32,
    pub resignations_rejected: u32,
    pub brain_errors: u32,
}

impl std::fmt::Display for ClientStats {
    /// The stop summary an operator reads: one line, words not field names.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} login(s), {} disconnect(s); {} board(s) answered ({} repeated, {} without a \
             decision); invitations {} joined, {} declined; games {} won, {} lost; matches {} \
             won, {} lost; resignations {} accepted, {} rejected",
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
            self.resignations_accepted,
            self.resignations_rejected
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

/// What survives a reconnect.
#[derive(Debug, Default)]
struct Memory {
    /// Opponents with a saved (unfinished) match.
    saved_with: HashSet<String>,
    /// The opponent of the match in progress.
    opponent: Option<String>,
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
}

/// A declined inviter is told why at most this often.
const TELL_INTERVAL: Duration = Duration::from_secs(60);

impl Session {
    fn new() -> Session {
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

    /// The server rejected our answer to the last board: allow one more answer to it.
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
}

/// Whether a server error line is about an answer to a board (a move, roll, double,
/// accept or reject) rather than about invitations or other commands.
fn refuses_a_board_answer(error: &str) -> bool {
    let e = error.to_ascii_lowercase();
    !(e.contains("invite") || e.contains("join") || e.contains("unknown command"))
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
        Client {
            config,
            server,
            user,
            password,
            brain,
            pacer,
            memory: Memory::default(),
            stats: ClientStats::default(),
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> &ClientStats {
        &self.stats
    }

    /// Runs until `shutdown` is cancelled, reconnecting with exponential back-off after
    /// every disconnect. Stops early only when the login is rejected.
    pub async fn run(&mut self, shutdown: CancellationToken) -> Result<ClientStats, FibsError> {
        let mut failures = 0u32;
        loop {
            if shutdown.is_cancelled() {
                return Ok(self.stats.clone());
            }
            let started = Instant::now();
            let logins_before = self.stats.logins;
            let outcome = self.session(&shutdown).await;
            if let Some(opp) = self.memory.opponent.take() {
                self.memory.saved_with.insert(opp);
            }
            match outcome {
                Ok(()) => return Ok(self.stats.clone()),
                Err(FibsError::LoginRejected) => return Err(FibsError::LoginRejected),
                Err(e) => {
                    self.stats.disconnects += 1;
                    let stable = Duration::from_secs(self.config.connection.stable_after_s);
                    if self.stats.logins > logins_before && started.elapsed() >= stable {
                        failures = 0;
                    }
                    let wait = self.config.connection.backoff(failures);
                    failures = failures.saturating_add(1);
                    tracing::warn!("fibs: {e}; reconnecting in {:.1} s", wait.as_secs_f64());
                    tokio::select! {
                        _ = shutdown.cancelled() => return Ok(self.stats.clone()),
                        _ = tokio::time::sleep(wait) => {}
                    }
                }
            }
        }
    }

    async fn session(&mut self, shutdown: &CancellationToken) -> Result<(), FibsError> {
        let timeout = Duration::from_millis(self.config.connection.connect_timeout_ms);
        let stream = tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            r = tokio::time::timeout(timeout, TcpStream::connect(&self.server)) => match r {
                Err(_) => return Err(FibsError::ConnectTimeout),
                Ok(s) => s?,
            },
        };
        stream.set_nodelay(true)?;
        tracing::info!("fibs: connected to {}", self.server);
        let (mut reader, mut writer) = stream.into_split();
        let mut buf = LineBuffer::new();
        let mut session = Session::new();
        let idle = Duration::from_secs(self.config.connection.idle_timeout_s.max(1));
        let keepalive = match self.config.connection.keepalive_s {
            0 => None,
            k => Some(Duration::from_secs(k)),
        };
        let mut last_heard = Instant::now();
        let mut chunk = vec![0u8; 8192];
        loop {
            let silent = last_heard.elapsed();
            let wait = match keepalive {
                Some(k) if silent < k => k - silent,
                _ => idle.saturating_sub(silent),
            };
            let n = tokio::select! {
                _ = shutdown.cancelled() => {
                    let _ = self.send(&mut writer, "bye", false).await;
                    return Ok(());
                }
                r = tokio::time::timeout(wait, reader.read(&mut chunk)) => match r {
                    Err(_) => {
                        let silent = last_heard.elapsed();
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
                self.handle_line(&mut writer, &mut session, &line).await?;
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
        writer: &mut tokio::net::tcp::OwnedWriteHalf,
        line: &str,
        secret: bool,
    ) -> Result<(), FibsError> {
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

    async fn handle_line(
        &mut self,
        w: &mut tokio::net::tcp::OwnedWriteHalf,
        s: &mut Session,
        line: &str,
    ) -> Result<(), FibsError> {
        if line.is_empty() {
            return Ok(());
        }
        tracing::trace!("fibs < {line}");
        match classify(line) {
            ClipLine::Welcome { user } => {
                if user.eq_ignore_ascii_case(&self.user) {
                    s.logged_in = true;
                    self.stats.logins += 1;
                    tracing::info!("fibs: logged in as {user}");
                }
            }
            ClipLine::OwnInfo(info) => {
                if !s.settings_fixed {
                    s.settings_fixed = true;
                    for cmd in info.fixes() {
                        self.send(w, &cmd, false).await?;
                    }
                    // Saved matches from before a drop: ask those opponents to resume.
                    let names: Vec<String> = self.memory.saved_with.iter().cloned().collect();
                    for name in names {
                        self.send(w, &format!("invite {name}"), false).await?;
                    }
                }
            }
            ClipLine::LoginBlock => {}
            ClipLine::Board(board) => {
                s.last_board = Some(board.clone());
                if s.answered.contains(&board) {
                    self.stats.repeated_boards += 1;
                    return Ok(());
                }
                match self.brain.on_board(&board).await {
                    Ok(Some(cmd)) => {
                        s.remember(&board);
                        self.stats.boards_answered += 1;
                        self.send(w, &cmd, false).await?;
                    }
                    Ok(None) => {}
                    Err(e) => {
                        self.stats.brain_errors += 1;
                        tracing::warn!("fibs: no decision for {board}: {e}");
                    }
                }
            }
            ClipLine::Invitation { from, kind } => {
                let reason = match &self.memory.opponent {
                    Some(o) if !o.eq_ignore_ascii_case(&from) => Some(
                        "Sorry, I am in a match right now; please invite me again later.".into(),
                    ),
                    _ => self.config.invitations.decline_reason(&from, kind),
                };
                match reason {
                    None => {
                        self.stats.invitations_joined += 1;
                        tracing::info!("fibs: joining {from} ({kind:?})");
                        self.send(w, &format!("join {from}"), false).await?;
                    }
                    Some(why) => {
                        self.stats.invitations_declined += 1;
                        tracing::info!("fibs: declining {from} ({kind:?}): {why}");
                        // One explanation per inviter per minute: repeated invitations
                        // must not make the bot flood anyone.
                        if s.may_tell(&from, Instant::now()) {
                            self.send(w, &format!("tell {from} {why}"), false).await?;
                        }
                    }
                }
            }
            ClipLine::MatchStarted { opponent } => {
                s.forget_answers();
                self.memory.saved_with.remove(&opponent);
                self.memory.opponent = Some(opponent);
                self.send(w, "board", false).await?;
            }
            ClipLine::NewGame => {
                self.brain.new_game();
                s.forget_answers();
                self.send(w, "board", false).await?;
            }
            ClipLine::MatchLoaded | ClipLine::YourTurn => {
                self.send(w, "board", false).await?;
            }
            ClipLine::Doubled { .. } => {
                self.send(w, "board", false).await?;
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
            }
            ClipLine::GameOver { winner, points } => {
                match winner {
                    Who::Me => self.stats.games_won += 1,
                    Who::Player(_) => self.stats.games_lost += 1,
                }
                tracing::info!("fibs: game over ({winner:?} +{points})");
            }
            ClipLine::JoinNextGame => {
                self.send(w, "join", false).await?;
            }
            ClipLine::MatchOver { winner } => {
                match winner {
                    Who::Me => self.stats.matches_won += 1,
                    Who::Player(_) => self.stats.matches_lost += 1,
                }
                if let Some(o) = self.memory.opponent.take() {
                    self.memory.saved_with.remove(&o);
                }
                tracing::info!("fibs: match over ({winner:?})");
            }
            ClipLine::OpponentGone { name } => {
                // Only our opponent's departure saves a match of ours; anyone else's
                // logout is none of the bot's business.
                let ours = self
                    .memory
                    .opponent
                    .as_deref()
                    .is_some_and(|o| o.eq_ignore_ascii_case(&name));
                if ours {
                    self.memory.opponent = None;
                    tracing::info!("fibs: {name} left; the match is saved");
                    self.memory.saved_with.insert(name);
                }
            }
            ClipLine::CommandError(e) => {
                tracing::warn!("fibs: server refused a command: {e}");
                // Only a refused play, roll or cube answer makes the last board's answer
                // void; a refused `join` or `invite` says nothing about the board (and
                // answering the board again would play the same move twice).
                if refuses_a_board_answer(&e) && s.forget_last() {
                    self.send(w, "board", false).await?;
                }
            }
            ClipLine::LoggedIn { name } => {
                // Someone logged in: resume a saved match with them.
                if self.memory.opponent.is_none() && self.memory.saved_with.contains(&name) {
                    let cmd = format!("invite {name}");
                    self.send(w, &cmd, false).await?;
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
                }
            }
        }
        Ok(())
    }
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
        let mut s = Session::new();
        let t = Instant::now();
        assert!(s.may_tell("alice", t));
        assert!(!s.may_tell("Alice", t + Duration::from_secs(30)));
        assert!(s.may_tell("bob", t + Duration::from_secs(30)));
        assert!(s.may_tell("alice", t + TELL_INTERVAL));
    }

    #[test]
    fn a_new_game_may_answer_a_board_seen_in_an_earlier_one() {
        let mut s = Session::new();
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
        let mut s = Session::new();
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

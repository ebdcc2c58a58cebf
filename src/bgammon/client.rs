//! The bot account's connection: login, matches created and played, keepalive, recovery
//! from refused commands, and reconnection with back-off.
//!
//! One connection is a session. After `loginjson` the server sends `welcome`; a match in
//! progress is rejoined by the server itself (a `joined` and a `board` follow the
//! welcome), so the bot waits [`Timing::settle`] before it creates a match of its own.
//! From then on the bot answers boards: each board is read by [`super::board::read`], and
//! a board that asks for a decision gets one answer (the same board is never answered
//! twice). A refused command (`failedmove`, `failedok`, `failedroll`) makes the bot undo
//! the turn's steps (`reset`), ask for the board (`board`) and decide again; after
//! [`REFUSALS_BEFORE_FOLLOWING`] refusals in one turn it plays the steps the server
//! lists as available instead. The bot writes at least every [`Timing::keepalive`] (the
//! server drops clients quiet for 40 s) and reconnects when the server is silent for
//! [`Timing::silence`] (it pings every 30 s).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::board::{move_commands, read, server_step, Need};
use super::metrics::{inc, BgammonMetrics};
use super::protocol::{parse_line, shown, Event, GameState, ProtocolError, MAX_LINE};
use crate::engine::Action;
use crate::fibs::Password;
use crate::game::{legal_plays, Decision, MatchState};
use crate::players::Decide;

/// Refused commands in one turn before the bot plays the server's available steps.
pub const REFUSALS_BEFORE_FOLLOWING: u32 = 3;

/// The waits of a session.
#[derive(Debug, Clone)]
pub struct Timing {
    pub connect: Duration,
    /// From connecting to the `welcome` (the server drops clients that have not logged in
    /// after 30 s).
    pub login: Duration,
    /// After the welcome, for the server to rejoin a match in progress.
    pub settle: Duration,
    /// The longest the bot stays quiet (the server's limit is 40 s).
    pub keepalive: Duration,
    /// The longest the server may stay quiet before the bot reconnects.
    pub silence: Duration,
    /// After the bot acted, the wait for any answer before it asks for the board.
    pub answer: Duration,
    /// How long a match waits for an opponent who left before the bot leaves it.
    pub opponent_wait: Duration,
    /// Before creating a match again after the server refused one.
    pub create_retry: Duration,
    pub backoff_min: Duration,
    pub backoff_max: Duration,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            connect: Duration::from_secs(15),
            login: Duration::from_secs(20),
            settle: Duration::from_secs(2),
            keepalive: Duration::from_secs(20),
            silence: Duration::from_secs(75),
            answer: Duration::from_secs(20),
            opponent_wait: Duration::from_secs(300),
            create_retry: Duration::from_secs(10),
            backoff_min: Duration::from_secs(1),
            backoff_max: Duration::from_secs(120),
        }
    }
}

/// What the bot is and does.
#[derive(Debug, Clone)]
pub struct BotConfig {
    /// HOST:PORT (bgammon.org: `bgammon.org:1337`).
    pub server: String,
    /// The account, `bot_...` (the server calls it `BOT_...`).
    pub user: String,
    /// None logs in as a guest under the same name.
    pub password: Option<Password>,
    /// The length of the matches the bot creates.
    pub points: u32,
    /// Stop after this many finished matches.
    pub matches: Option<u64>,
    pub timing: Timing,
}

/// Counters over the bot's life.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BotStats {
    pub matches_won: u64,
    pub matches_lost: u64,
    /// Matches the bot left because the opponent went away.
    pub matches_left: u64,
    pub games_won: u64,
    pub games_lost: u64,
    pub logins: u64,
    pub reconnects: u64,
    pub refused_commands: u64,
    pub unreadable_lines: u64,
    pub bad_boards: u64,
    pub resyncs: u64,
}

impl BotStats {
    pub fn matches(&self) -> u64 {
        self.matches_won + self.matches_lost
    }
}

impl fmt::Display for BotStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "matches {}-{} ({} left), games {}-{}, {} logins, {} reconnects, {} refused \
             commands, {} unreadable lines, {} bad boards, {} resyncs",
            self.matches_won,
            self.matches_lost,
            self.matches_left,
            self.games_won,
            self.games_lost,
            self.logins,
            self.reconnects,
            self.refused_commands,
            self.unreadable_lines,
            self.bad_boards,
            self.resyncs
        )
    }
}

/// Why a session or the bot stopped.
#[derive(Debug)]
pub enum BgammonError {
    /// The server refused the login for good (wrong password, invalid name, ban).
    Refused(String),
    Io(std::io::Error),
    ConnectTimeout,
    /// No `welcome` in time (with the server's last words, if any).
    LoginTimeout(String),
    /// The server closed the connection (with its last notice, if any).
    Closed(String),
    /// Nothing from the server for longer than [`Timing::silence`].
    Silent,
    /// The decider was lost (it panicked).
    Decider,
}

impl fmt::Display for BgammonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BgammonError::Refused(m) => write!(f, "login refused: {m}"),
            BgammonError::Io(e) => write!(f, "connection error: {e}"),
            BgammonError::ConnectTimeout => f.write_str("connect timed out"),
            BgammonError::LoginTimeout(m) => write!(f, "no welcome after the login {m}"),
            BgammonError::Closed(m) => write!(f, "the server closed the connection {m}"),
            BgammonError::Silent => f.write_str("the server went quiet"),
            BgammonError::Decider => f.write_str("the decider failed"),
        }
    }
}

impl std::error::Error for BgammonError {}

impl From<std::io::Error> for BgammonError {
    fn from(e: std::io::Error) -> BgammonError {
        BgammonError::Io(e)
    }
}

/// Whether the server's reason for closing a login means retrying is pointless.
fn permanent_refusal(reason: &str) -> bool {
    [
        "No account was found",
        "Invalid username",
        "banned",
        "Failed to log in",
    ]
    .iter()
    .any(|m| reason.contains(m))
}

/// The bot account.
pub struct Bot {
    cfg: BotConfig,
    decider: Option<Box<dyn Decide>>,
    metrics: Arc<BgammonMetrics>,
    stats: BotStats,
}

enum End {
    /// `--matches` reached.
    Done,
    Stopped,
}

/// One connection's state.
struct Session {
    me: String,
    in_match: bool,
    /// An opponent has joined the current match.
    started: bool,
    opponent_gone: Option<Instant>,
    /// The board last answered (never answered twice).
    answered: Option<GameState>,
    /// The bot's steps of this turn are on their way.
    in_flight: bool,
    /// A refusal is being recovered from (reset and board sent).
    resyncing: bool,
    refusals: u32,
    waiting: Option<Instant>,
    settle: Option<Instant>,
    create_at: Option<Instant>,
    match_done: bool,
    last_sent: Instant,
    last_recv: Instant,
    /// Borne-off counts of the last board, to notice boards that contradict it.
    last_off: Option<(i64, i64)>,
    /// The bot has sent its opening roll of this game (the opponent's roll changes the
    /// board before the bot's shows on it).
    opening_rolled: bool,
}

impl Bot {
    pub fn new(cfg: BotConfig, decider: Box<dyn Decide>) -> Bot {
        let metrics = Arc::new(BgammonMetrics::new(&cfg.user, &cfg.server));
        Bot {
            cfg,
            decider: Some(decider),
            metrics,
            stats: BotStats::default(),
        }
    }

    pub fn metrics(&self) -> &Arc<BgammonMetrics> {
        &self.metrics
    }

    pub fn stats(&self) -> &BotStats {
        &self.stats
    }

    /// Runs sessions until `--matches` is reached, `stop` is cancelled or the login is
    /// refused for good; reconnects with back-off after every other failure.
    pub async fn run(&mut self, stop: CancellationToken) -> Result<BotStats, BgammonError> {
        let mut failures = 0u32;
        loop {
            if stop.is_cancelled() {
                return Ok(self.stats.clone());
            }
            let logins = self.stats.logins;
            let result = self.session(&stop).await;
            BgammonMetrics::set(&self.metrics.connected, false);
            BgammonMetrics::set(&self.metrics.in_match, false);
            match result {
                Ok(End::Done) | Ok(End::Stopped) => return Ok(self.stats.clone()),
                Err(e @ (BgammonError::Refused(_) | BgammonError::Decider)) => return Err(e),
                Err(e) => {
                    failures = if self.stats.logins > logins {
                        1
                    } else {
                        failures + 1
                    };
                    let exp = failures.saturating_sub(1).min(16);
                    let wait = (self.cfg.timing.backoff_min * 2u32.pow(exp))
                        .min(self.cfg.timing.backoff_max);
                    tracing::warn!(
                        "bgammon: {}: {e}; reconnecting in {:.1} s",
                        self.cfg.user,
                        wait.as_secs_f64()
                    );
                    tokio::select! {
                        _ = stop.cancelled() => return Ok(self.stats.clone()),
                        _ = tokio::time::sleep(wait) => {}
                    }
                    self.stats.reconnects += 1;
                    inc(&self.metrics.reconnects);
                }
            }
        }
    }

    async fn session(&mut self, stop: &CancellationToken) -> Result<End, BgammonError> {
        let t = self.cfg.timing.clone();
        let stream = tokio::time::timeout(t.connect, TcpStream::connect(&self.cfg.server))
            .await
            .map_err(|_| BgammonError::ConnectTimeout)??;
        let (read_half, mut w) = stream.into_split();
        let (tx, mut rx) = mpsc::channel(64);
        let reader = tokio::spawn(read_lines(read_half, tx));
        let _abort = AbortOnDrop(reader);
        let password = self
            .cfg
            .password
            .as_ref()
            .map(|p| format!(" {}", p.reveal().replace(' ', "_")))
            .unwrap_or_default();
        let login = format!(
            "loginjson stargammon-{}/en {}{password}",
            env!("CARGO_PKG_VERSION"),
            self.cfg.user
        );
        w.write_all(format!("{login}\n").as_bytes()).await?;
        let now = Instant::now();
        let mut s = Session {
            me: String::new(),
            in_match: false,
            started: false,
            opponent_gone: None,
            answered: None,
            in_flight: false,
            resyncing: false,
            refusals: 0,
            waiting: None,
            settle: None,
            create_at: None,
            match_done: false,
            last_sent: now,
            last_recv: now,
            last_off: None,
            opening_rolled: false,
        };
        let login_by = now + t.login;
        let mut last_notice = String::new();
        loop {
            let mut deadline = s.last_recv + t.silence;
            if s.me.is_empty() {
                deadline = deadline.min(login_by);
            } else {
                deadline = deadline.min(s.last_sent + t.keepalive);
            }
            for d in [s.settle, s.create_at, s.waiting.map(|w| w + t.answer)]
                .into_iter()
                .flatten()
            {
                deadline = deadline.min(d);
            }
            if let Some(g) = s.opponent_gone {
                deadline = deadline.min(g + t.opponent_wait);
            }
            let mut out: Vec<String> = Vec::new();
            tokio::select! {
                _ = stop.cancelled() => {
                    let _ = w.write_all(b"disconnect\n").await;
                    return Ok(End::Stopped);
                }
                line = rx.recv() => {
                    let Some(line) = line else {
                        if s.me.is_empty() && permanent_refusal(&last_notice) {
                            return Err(BgammonError::Refused(last_notice));
                        }
                        return Err(BgammonError::Closed(if last_notice.is_empty() {
                            String::new()
                        } else {
                            format!("({})", shown(&last_notice))
                        }));
                    };
                    s.last_recv = Instant::now();
                    match line {
                        Err(e) => self.unreadable(&e),
                        Ok(bytes) => match parse_line(&bytes) {
                            Err(e) => self.unreadable(&e),
                            Ok(ev) => {
                                if let Event::Notice { message } = &ev {
                                    last_notice = message.clone();
                                }
                                if let Some(end) = self.on_event(ev, &mut s, &mut out).await? {
                                    send(&mut w, &mut s, &out).await?;
                                    return Ok(end);
                                }
                            }
                        },
                    }
                }
                _ = tokio::time::sleep_until(deadline) => {
                    let now = Instant::now();
                    if s.me.is_empty() && now >= login_by {
                        return Err(BgammonError::LoginTimeout(if last_notice.is_empty() {
                            String::new()
                        } else {
                            format!("({})", shown(&last_notice))
                        }));
                    }
                    if now >= s.last_recv + t.silence {
                        return Err(BgammonError::Silent);
                    }
                    self.on_timer(&mut s, now, &mut out);
                    if out.is_empty() && !s.me.is_empty() && now >= s.last_sent + t.keepalive {
                        out.push("pong keepalive".into());
                    }
                }
            }
            send(&mut w, &mut s, &out).await?;
        }
    }

    fn unreadable(&mut self, e: &ProtocolError) {
        self.stats.unreadable_lines += 1;
        inc(&self.metrics.unreadable_lines);
        tracing::warn!("bgammon: {}: unreadable line skipped: {e}", self.cfg.user);
    }

    fn on_timer(&mut self, s: &mut Session, now: Instant, out: &mut Vec<String>) {
        let t = &self.cfg.timing;
        if s.settle.is_some_and(|d| now >= d) {
            s.settle = None;
            if !s.in_match {
                s.create_at = Some(now);
            }
        }
        if s.create_at.is_some_and(|d| now >= d) {
            s.create_at = None;
            if !s.in_match {
                out.push(format!("create public {} 0", self.cfg.points));
            }
        }
        if s.waiting.is_some_and(|d| now >= d + t.answer) {
            tracing::info!(
                "bgammon: {}: no answer; asking for the board",
                self.cfg.user
            );
            self.stats.resyncs += 1;
            inc(&self.metrics.resyncs);
            s.answered = None;
            s.in_flight = false;
            s.waiting = Some(now);
            out.push("board".into());
        }
        if s.opponent_gone.is_some_and(|g| now >= g + t.opponent_wait) {
            tracing::info!(
                "bgammon: {}: the opponent did not come back; leaving the match",
                self.cfg.user
            );
            s.opponent_gone = None;
            if s.in_match && !s.match_done {
                self.stats.matches_left += 1;
                inc(&self.metrics.matches[2]);
            }
            self.leave(s, out);
            s.create_at = Some(now);
        }
    }

    fn leave(&mut self, s: &mut Session, out: &mut Vec<String>) {
        out.push("leave".into());
        s.in_match = false;
        s.started = false;
        s.answered = None;
        s.in_flight = false;
        s.waiting = None;
        s.opponent_gone = None;
        s.last_off = None;
        BgammonMetrics::set(&self.metrics.in_match, false);
    }

    async fn on_event(
        &mut self,
        ev: Event,
        s: &mut Session,
        out: &mut Vec<String>,
    ) -> Result<Option<End>, BgammonError> {
        let user = self.cfg.user.clone();
        match ev {
            Event::Welcome { name } => {
                if s.me.is_empty() {
                    tracing::info!("bgammon: {user}: logged in as {}", shown(&name));
                    s.me = name;
                    s.settle = Some(Instant::now() + self.cfg.timing.settle);
                    self.stats.logins += 1;
                    inc(&self.metrics.logins);
                    BgammonMetrics::set(&self.metrics.connected, true);
                }
            }
            Event::Ping { message } => {
                let token: String = message
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric())
                    .take(32)
                    .collect();
                out.push(format!("pong {token}"));
            }
            Event::Joined { game_id, player } => {
                if player == s.me {
                    s.in_match = true;
                    s.match_done = false;
                    s.settle = None;
                    s.create_at = None;
                    BgammonMetrics::set(&self.metrics.in_match, true);
                    tracing::info!("bgammon: {user}: in match {game_id}");
                } else if s.in_match {
                    tracing::info!("bgammon: {user}: {} joined", shown(&player));
                    s.opponent_gone = None;
                }
            }
            Event::Left { player } => {
                if player == s.me {
                    s.in_match = false;
                } else if s.in_match && !s.match_done {
                    tracing::info!("bgammon: {user}: {} left the match", shown(&player));
                    s.opponent_gone.get_or_insert(Instant::now());
                }
            }
            Event::Board(state) => return self.on_board(*state, s, out).await,
            Event::Win { player, points } => {
                let won = player == s.me;
                if won {
                    self.stats.games_won += 1;
                    inc(&self.metrics.games[0]);
                } else {
                    self.stats.games_lost += 1;
                    inc(&self.metrics.games[1]);
                }
                tracing::info!(
                    "bgammon: {user}: game {} ({} points)",
                    if won { "won" } else { "lost" },
                    points.max(1)
                );
                s.answered = None;
                s.in_flight = false;
                s.last_off = None;
                s.opening_rolled = false;
            }
            Event::FailedMove { reason }
            | Event::FailedOk { reason }
            | Event::FailedRoll { reason } => {
                self.stats.refused_commands += 1;
                inc(&self.metrics.refused_commands);
                tracing::warn!("bgammon: {user}: refused: {}", shown(&reason));
                s.answered = None;
                s.in_flight = false;
                if !s.resyncing {
                    s.resyncing = true;
                    s.refusals += 1;
                    out.push("reset".into());
                    out.push("board".into());
                }
            }
            Event::FailedCreate { reason } => {
                self.stats.refused_commands += 1;
                inc(&self.metrics.refused_commands);
                tracing::warn!("bgammon: {user}: match not created: {}", shown(&reason));
                if !s.in_match {
                    s.create_at = Some(Instant::now() + self.cfg.timing.create_retry);
                }
            }
            Event::Notice { message } => {
                tracing::info!("bgammon: {user}: notice: {}", shown(&message))
            }
            Event::Say { player, message } => tracing::info!(
                "bgammon: {user}: {} says: {}",
                shown(&player),
                shown(&message)
            ),
            Event::Text(t) => tracing::debug!("bgammon: {user}: text: {}", shown(&t)),
            other => tracing::debug!("bgammon: {user}: {other:?}"),
        }
        Ok(None)
    }

    async fn on_board(
        &mut self,
        state: GameState,
        s: &mut Session,
        out: &mut Vec<String>,
    ) -> Result<Option<End>, BgammonError> {
        let user = self.cfg.user.clone();
        if state.spectating {
            return Ok(None);
        }
        s.waiting = None;
        let reading = match read(&state) {
            Ok(r) => r,
            Err(e) => {
                self.stats.bad_boards += 1;
                inc(&self.metrics.bad_boards);
                tracing::warn!("bgammon: {user}: board refused: {e}");
                return Ok(None);
            }
        };
        if !s.in_match {
            s.in_match = true;
            BgammonMetrics::set(&self.metrics.in_match, true);
        }
        if state.player2.name.is_empty() {
            if s.started && !s.match_done {
                s.opponent_gone.get_or_insert(Instant::now());
            }
        } else {
            s.opponent_gone = None;
            if !s.started {
                s.started = true;
                self.stats_match_started(&state);
            }
        }
        if let Some((off, opp_off)) = s.last_off {
            if state.turn != 0 && (reading.off.0 < off || reading.off.1 < opp_off) {
                tracing::warn!(
                    "bgammon: {user}: this board contradicts the last one (borne-off checkers \
                     went back); playing on from it"
                );
            }
        }
        s.last_off = Some(reading.off);
        if state.turn != 0 {
            s.opening_rolled = false;
        }
        if state.turn != 1 || state.roll1 == 0 {
            s.refusals = 0;
        }
        if s.resyncing {
            if state.turn == 1 && state.moves.as_ref().is_some_and(|m| !m.is_empty()) {
                return Ok(None);
            }
            s.resyncing = false;
        }
        if s.answered.as_ref() == Some(&state) {
            return Ok(None);
        }
        let following = s.refusals >= REFUSALS_BEFORE_FOLLOWING;
        let act = |s: &mut Session, out: &mut Vec<String>, cmds: Vec<String>| {
            s.answered = Some(state.clone());
            s.waiting = Some(Instant::now());
            out.extend(cmds);
        };
        match reading.need {
            Need::Wait => s.in_flight = false,
            Need::Over { won, match_over } => {
                s.in_flight = false;
                if match_over && !s.match_done {
                    s.match_done = true;
                    let (a, b) = reading.score;
                    let i = if won {
                        self.stats.matches_won += 1;
                        0
                    } else {
                        self.stats.matches_lost += 1;
                        1
                    };
                    inc(&self.metrics.matches[i]);
                    tracing::info!(
                        "bgammon: {user}: match {} against {} {a}-{b} ({}-point); {}",
                        if won { "won" } else { "lost" },
                        shown(&state.player2.name),
                        state.points,
                        self.stats
                    );
                    self.leave(s, out);
                    if self.cfg.matches.is_some_and(|n| self.stats.matches() >= n) {
                        out.push("disconnect".into());
                        return Ok(Some(End::Done));
                    }
                    s.create_at = Some(Instant::now());
                }
            }
            Need::Pending if following => {
                let cmd = server_step(&state).unwrap_or_else(|| "ok".into());
                act(s, out, vec![cmd]);
            }
            Need::Pending => {
                if !s.in_flight {
                    act(s, out, vec!["reset".into()]);
                }
            }
            Need::OpeningRoll => {
                if !s.opening_rolled {
                    s.opening_rolled = true;
                    act(s, out, vec!["roll".into()]);
                }
            }
            Need::Roll => act(s, out, vec!["roll".into()]),
            Need::Pass => act(s, out, vec!["ok".into()]),
            Need::Move(_) if following => {
                let cmd = server_step(&state).unwrap_or_else(|| "ok".into());
                tracing::info!("bgammon: {user}: following the server's steps: {cmd}");
                act(s, out, vec![cmd]);
            }
            Need::Move(m) => {
                let mut cmds = self.play(*m).await?;
                cmds.push("ok".into());
                s.in_flight = true;
                act(s, out, cmds);
            }
            Need::CubeOrRoll(m) => {
                let cmd = match self.decide(*m, Vec::new()).await? {
                    Some(Action::Double) => "double",
                    _ => "roll",
                };
                act(s, out, vec![cmd.into()]);
            }
            Need::TakeOrDrop(m) => {
                let cmd = match self.decide(*m, Vec::new()).await? {
                    Some(Action::Drop) => "resign",
                    _ => "ok",
                };
                act(s, out, vec![cmd.into()]);
            }
        }
        Ok(None)
    }

    fn stats_match_started(&mut self, state: &GameState) {
        inc(&self.metrics.matches_started);
        tracing::info!(
            "bgammon: {}: match against {} ({}-point) begins",
            self.cfg.user,
            shown(&state.player2.name),
            state.points
        );
    }

    /// The steps of the decider's play (the first legal play if it fails).
    async fn play(&mut self, m: MatchState) -> Result<Vec<String>, BgammonError> {
        let Decision::Move(dice) = m.decision else {
            return Ok(Vec::new());
        };
        let plays = legal_plays(&m.position, dice);
        let chosen = if plays.len() == 1 {
            Some(plays[0])
        } else {
            match self.decide(m, plays.clone()).await? {
                Some(Action::Move(p)) if plays.iter().any(|q| q.position == p.position) => Some(p),
                _ => None,
            }
        };
        let play = chosen.unwrap_or(plays[0]);
        Ok(move_commands(&play))
    }

    /// The decider's action, off the runtime's threads; None when it failed (counted and
    /// logged; the caller falls back to a safe answer).
    async fn decide(
        &mut self,
        m: MatchState,
        plays: Vec<crate::game::Play>,
    ) -> Result<Option<Action>, BgammonError> {
        let mut decider = self.decider.take().ok_or(BgammonError::Decider)?;
        let joined = tokio::task::spawn_blocking(move || {
            let r = decider.decide(&m, &plays);
            (decider, r)
        })
        .await;
        let Ok((decider, r)) = joined else {
            return Err(BgammonError::Decider);
        };
        self.decider = Some(decider);
        inc(&self.metrics.decisions);
        match r {
            Ok(a) => Ok(Some(a)),
            Err(e) => {
                inc(&self.metrics.decision_errors);
                tracing::warn!("bgammon: {}: the decider failed: {e}", self.cfg.user);
                Ok(None)
            }
        }
    }
}

impl fmt::Debug for Bot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bot")
            .field("cfg", &self.cfg)
            .field("stats", &self.stats)
            .finish()
    }
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn send(
    w: &mut OwnedWriteHalf,
    s: &mut Session,
    cmds: &[String],
) -> Result<(), BgammonError> {
    if cmds.is_empty() {
        return Ok(());
    }
    let mut text = String::new();
    for c in cmds {
        tracing::debug!("bgammon: -> {c}");
        text.push_str(c);
        text.push('\n');
    }
    tokio::time::timeout(Duration::from_secs(30), w.write_all(text.as_bytes()))
        .await
        .map_err(|_| BgammonError::Io(std::io::ErrorKind::TimedOut.into()))??;
    s.last_sent = Instant::now();
    Ok(())
}

/// Reads lines (at most [`MAX_LINE`] bytes; longer ones are skipped and reported) until
/// the connection ends.
async fn read_lines(
    r: tokio::net::tcp::OwnedReadHalf,
    tx: mpsc::Sender<Result<Vec<u8>, ProtocolError>>,
) {
    let mut r = BufReader::new(r);
    loop {
        let mut buf = Vec::new();
        match (&mut r)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .await
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let item = if buf.last() == Some(&b'\n') {
            buf.pop();
            Ok(buf)
        } else if buf.len() > MAX_LINE {
            // Skip the rest of the long line.
            let mut skipped = buf.len();
            loop {
                let mut rest = Vec::new();
                match (&mut r)
                    .take(MAX_LINE as u64)
                    .read_until(b'\n', &mut rest)
                    .await
                {
                    Ok(0) | Err(_) => return,
                    Ok(n) => skipped += n,
                }
                if rest.last() == Some(&b'\n') {
                    break;
                }
            }
            Err(ProtocolError::TooLong(skipped))
        } else {
            Ok(buf)
        };
        if tx.send(item).await.is_err() {
            return;
        }
    }
}

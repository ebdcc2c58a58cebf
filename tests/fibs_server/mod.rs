//! A FIBS-protocol test server, after docs/protocols.md, "FIBS bot", for the bot client's
//! integration tests.
//!
//! It behaves like the real thing where a client could notice: CRLF line ends, telnet
//! negotiation bytes around the login prompt, a `login: ` prompt without newline, the
//! CLIP login block, settings that start out wrong and change only through `set`/`toggle`/
//! `back`, invitations (one the bot's policy must decline), boards in real-FIBS convention
//! from the bot's view with colours drawn afresh every game, alternating bear-off echo
//! styles (`off`, `home`), doubles both ways, the Crawford rule, resignation offers,
//! an opponent who drops and comes back to resume the saved match, and restarts of the
//! whole server with the match saved.
//!
//! The opponent (`alice`) is scripted: random legal plays from a seeded generator, doubles
//! at chosen moments, a resignation offer at a chosen moment. The server referees every
//! command the bot sends with `crate::game` rules and records what it saw in [`Log`].
//!
//! For the bot's watchdogs it can also misbehave: not roll for the bot in the Crawford game
//! (as CLIP servers other than FIBS do), lose boards it sends and commands it receives,
//! have alice go quiet at her turn, hang altogether, or refuse the login (a banned
//! account). It answers `show saved`, `show savedcount NAME`, `rawwho NAME` and `leave`,
//! keeps the saved match across the bot's reconnects and restarts, and measures how long
//! the bot stays silent while the game waits for it.

#![allow(dead_code, clippy::unwrap_used)]

use stargammon::game::Rng;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use stargammon::game::{legal_plays, Dice, Play, Position};
use stargammon::notation::{parse_move, FibsOrientation, MoveStyle};

mod game;

pub const OPPONENT: &str = "alice";
pub const SPAMMER: &str = "spammer";

/// How the scripted opponent and the server behave.
#[derive(Debug, Clone)]
pub struct Script {
    pub seed: u64,
    pub match_length: u32,
    pub user: String,
    pub password: String,
    /// Keep inviting to new matches until a Crawford game and a double by each side have
    /// been seen, at most this many matches.
    pub max_matches: u32,
    /// Alice doubles at her first chance in each game with this probability.
    pub alice_double_prob: f64,
    /// Alice offers to resign (a single game) at her turn number `.1` of game `.0`
    /// (counting games over the whole run from 1).
    pub resign_at: Option<(u32, u32)>,
    /// Alice drops connection at her turn number `.1` of game `.0`, and logs in again
    /// a moment later.
    pub drop_at: Option<(u32, u32)>,
    /// Ask the harness to restart the server after this many legal bot moves.
    pub restart_after_bot_moves: Option<u32>,
    /// Word drops, logouts and resumes as an independent FIBS-compatible server does:
    /// `8 alice alice drops connection.`, `alice logs out. The game was saved.` and
    /// `You are now playing with alice. Your running match was loaded.`
    pub independent_lines: bool,
    /// Play all `max_matches` matches (instead of stopping once a Crawford game and a
    /// double by each side were seen).
    pub play_all_matches: bool,
    /// Chaos for soak runs: after each alice turn she drops with this probability (and
    /// comes back a moment later); after each legal bot move that does not end the game,
    /// the server kicks the bot (closes its connection) or restarts with these.
    pub alice_drop_prob: f64,
    pub kick_prob: f64,
    pub restart_prob: f64,
    /// Roll for the bot in the Crawford game (FIBS does; other CLIP servers wait for
    /// `roll`).
    pub roll_in_crawford: bool,
    /// Lose each board line the server sends with this probability.
    pub drop_board_prob: f64,
    /// Lose each game command the bot sends (`move`, `roll`, `accept`, `reject`, `join`,
    /// `board`, `invite`) with this probability: no effect, no answer.
    pub drop_command_prob: f64,
    /// At each of her turns alice goes quiet with this probability ...
    pub alice_quiet_prob: f64,
    /// ... or at her turn `.1` of game `.0`.
    pub quiet_at: Option<(u32, u32)>,
    /// A quiet alice plays on after a `tell` with this probability (else she stays quiet
    /// until the bot leaves; she accepts its invitation to resume later).
    pub quiet_wakes_on_tell: f64,
    /// Alice never offers to resume a saved match: the bot must invite her.
    pub alice_waits_for_invite: bool,
    /// Players who invite the bot once at the start and whom its policy must decline.
    pub inviters: Vec<Inviter>,
    /// Saved matches with other (offline) players, listed by `show saved`.
    pub other_saved: Vec<(String, u32, u32, u32)>,
    /// After this many legal bot moves the server hangs: it reads and answers nothing,
    /// not even new connections' logins.
    pub hang_after_bot_moves: Option<u32>,
    /// Refuse every login (a banned account).
    pub banned: bool,
    /// Alice refuses the bot's doubles with this probability (else she takes unless far
    /// behind in the race): more, shorter games, and more Crawford games.
    pub alice_pass_prob: f64,
}

/// A player who invites the bot, with what `rawwho` and `show savedcount` say of them.
#[derive(Debug, Clone)]
pub struct Inviter {
    pub name: String,
    pub rating: f64,
    pub experience: u32,
    pub saved: u32,
    pub length: u32,
}

impl Script {
    pub fn new(seed: u64) -> Script {
        Script {
            seed,
            match_length: 5,
            user: "starbot".into(),
            password: "s3cret-pw".into(),
            max_matches: 4,
            alice_double_prob: 0.7,
            resign_at: None,
            drop_at: None,
            restart_after_bot_moves: None,
            independent_lines: false,
            play_all_matches: false,
            alice_drop_prob: 0.0,
            kick_prob: 0.0,
            restart_prob: 0.0,
            roll_in_crawford: true,
            drop_board_prob: 0.0,
            drop_command_prob: 0.0,
            alice_quiet_prob: 0.0,
            quiet_at: None,
            quiet_wakes_on_tell: 0.0,
            alice_waits_for_invite: false,
            inviters: Vec::new(),
            other_saved: Vec::new(),
            hang_after_bot_moves: None,
            banned: false,
            alice_pass_prob: 0.0,
        }
    }
}

/// What the server observed.
#[derive(Debug, Clone, Default)]
pub struct Log {
    pub logins: u32,
    pub failed_logins: u32,
    /// Every raw line the bot sent (the login line with its password masked).
    pub received: Vec<String>,
    pub password_seen: bool,
    pub legal_moves: u32,
    pub illegal_moves: Vec<String>,
    /// Commands the bot sent when they were not allowed (not its turn, no double ...).
    pub protocol_errors: Vec<String>,
    pub joined_spammer: bool,
    pub bot_doubles: u32,
    pub alice_doubles: u32,
    pub bot_takes: u32,
    pub bot_drops: u32,
    pub resign_offers: u32,
    pub resign_accepted: u32,
    /// Resignations the bot offered, by level (1 single, 2 gammon, 3 backgammon).
    pub bot_resigns: Vec<u32>,
    pub crawford_games: u32,
    pub crawford_doubles: u32,
    pub games: Vec<(bool, u32)>,
    /// Final scores (bot, alice) of each finished match.
    pub matches: Vec<(u32, u32)>,
    pub drops: u32,
    pub resumes: u32,
    pub restarts: u32,
    pub colours: Vec<i8>,
    /// Times the server closed the bot's connection on its own.
    pub kicks: u32,
    /// The last lines the server sent, for the report of a stalled run.
    pub sent_tail: std::collections::VecDeque<String>,
    /// `tell` commands the bot sent: (to whom, text).
    pub tells: Vec<(String, String)>,
    /// Players the bot joined although the policy forbids it (the spammer, `inviters`).
    pub joined_forbidden: Vec<String>,
    pub dropped_boards: u32,
    pub dropped_commands: u32,
    /// Rolls the bot sent in Crawford games the server did not roll for it.
    pub crawford_rolls: u32,
    /// Times alice went quiet, the bot reminded her, and left the match.
    pub quiet_spells: u32,
    pub reminders: u32,
    pub leaves: u32,
    /// From alice going quiet to the bot's `leave`.
    pub quiet_to_leave: Vec<Duration>,
    /// The longest the bot stayed silent while the game waited for it (its roll, move,
    /// cube answer or `join`), and the number of such waits measured.
    pub max_due_silence: Duration,
    pub due_waits: u32,
    /// Saved-match listings, `rawwho` and `show savedcount` queries the bot sent.
    pub show_saved: u32,
    pub lookups: Vec<String>,
    /// Lines the bot sent after the server hung.
    pub hung_lines: u32,
}

/// How a game ended, for the server's wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Played,
    /// A double was refused.
    Dropped,
    /// A resignation was accepted.
    Resigned,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Bot,
    Alice,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::Bot => Side::Alice,
            Side::Alice => Side::Bot,
        }
    }
    fn idx(self) -> usize {
        match self {
            Side::Bot => 0,
            Side::Alice => 1,
        }
    }
}

#[derive(Debug, Clone)]
struct Game {
    /// The board from the bot's side (bot moves 24 -> 1 in these numbers).
    bot_view: Position,
    /// +1 O, -1 X.
    bot_colour: i8,
    turn: Side,
    dice: Option<Dice>,
    cube: u32,
    owner: Option<Side>,
    /// A double by this side awaits an answer.
    pending_double: Option<Side>,
    /// Alice offered to resign for this many points.
    pending_resign: Option<u32>,
    crawford: bool,
    alice_turns: u32,
    alice_doubled: bool,
    number: u32,
}

#[derive(Debug, Clone)]
struct MatchState {
    score: [u32; 2],
    crawford_done: bool,
    game: Option<Game>,
    /// Waiting for `join` between games.
    between_games: bool,
}

/// The server's world: survives restarts (the match is saved).
#[derive(Debug)]
pub struct World {
    script: Script,
    rng: Rng,
    pub log: Log,
    online: bool,
    logged_in: bool,
    boardstyle: u32,
    autoboard: bool,
    autodouble: bool,
    away: bool,
    bell: bool,
    crawford_setting: bool,
    moreboards: bool,
    ready: bool,
    redoubles: String,
    invited: Vec<String>,
    alice_online: bool,
    the_match: Option<MatchState>,
    /// The match is saved (a drop or restart) and must be resumed.
    saved: bool,
    matches_started: u32,
    games_started: u32,
    pub finished: bool,
    pub restart_requested: bool,
    restart_done: bool,
    /// Close the bot's connection after the current command's reply.
    kick_requested: bool,
    /// The bot's newest connection: notices about other players (alice logging in) go
    /// there, as a real server tells whoever is logged in now.
    outbox: Option<mpsc::UnboundedSender<Vec<u8>>>,
    /// A game ended during the current command.
    game_ended_now: bool,
    /// Alice is at her turn and saying nothing; since when.
    alice_quiet: Option<Instant>,
    /// The game has been waiting for the bot since then.
    due_since: Option<Instant>,
    /// When the bot last sent a line.
    last_bot_line: Instant,
    pub hung: bool,
    /// When the server hung.
    pub hung_at: Option<Instant>,
}

fn line(s: impl Into<String>) -> String {
    s.into()
}

impl World {
    pub fn new(script: Script) -> World {
        World {
            rng: Rng::seeded(script.seed),
            script,
            log: Log::default(),
            online: false,
            logged_in: false,
            boardstyle: 2,
            autoboard: false,
            autodouble: true,
            away: true,
            bell: true,
            crawford_setting: false,
            moreboards: false,
            ready: false,
            redoubles: "unlimited".into(),
            invited: Vec::new(),
            alice_online: true,
            the_match: None,
            saved: false,
            matches_started: 0,
            games_started: 0,
            finished: false,
            restart_requested: false,
            restart_done: false,
            kick_requested: false,
            outbox: None,
            game_ended_now: false,
            alice_quiet: None,
            due_since: None,
            last_bot_line: Instant::now(),
            hung: false,
            hung_at: None,
        }
    }

    /// The script the server runs.
    pub fn script(&self) -> &Script {
        &self.script
    }

    /// Whether the game waits for a command from the bot now.
    fn bot_due(&self) -> bool {
        if !self.logged_in || self.saved || self.hung {
            return false;
        }
        let Some(m) = self.the_match.as_ref() else {
            return false;
        };
        if m.between_games {
            return true;
        }
        m.game.as_ref().is_some_and(|g| {
            g.pending_resign.is_some()
                || g.pending_double == Some(Side::Alice)
                || (g.turn == Side::Bot && g.pending_double.is_none())
        })
    }

    /// Measures the bot's silence while the game waits for it: called for every line it
    /// sends (`at_line`) and after every change of state.
    fn track_due(&mut self, at_line: bool) {
        let now = Instant::now();
        if at_line {
            if let Some(since) = self.due_since {
                let from = since.max(self.last_bot_line);
                let gap = now.saturating_duration_since(from);
                self.log.max_due_silence = self.log.max_due_silence.max(gap);
                self.log.due_waits += 1;
            }
            self.last_bot_line = now;
        }
        if self.bot_due() {
            if self.due_since.is_none() {
                self.due_since = Some(now);
            }
        } else {
            self.due_since = None;
        }
    }

    fn settings_ok(&self) -> bool {
        self.boardstyle == 3
            && self.autoboard
            && !self.autodouble
            && !self.away
            && !self.bell
            && self.crawford_setting
            && self.moreboards
            && self.ready
            && self.redoubles == "none"
    }

    fn own_info(&self) -> String {
        let b = |x: bool| if x { "1" } else { "0" };
        format!(
            "2 {} 1 {} {} 0 {} {} {} 1 42 0 {} 0 1 1523.45 310 {} {} 1 0 UTC",
            self.script.user,
            b(self.autoboard),
            b(self.autodouble),
            b(self.away),
            b(self.bell),
            b(self.crawford_setting),
            b(self.moreboards),
            b(self.ready),
            self.redoubles
        )
    }

    /// The greeting sent on connect: banner, telnet bytes, prompt without newline.
    pub fn greeting(&self) -> Vec<u8> {
        if self.hung {
            return Vec::new();
        }
        let mut out = b"\r\nFIBS-style test server\r\n\r\n".to_vec();
        out.extend_from_slice(&[0xFF, 0xFB, 0x01]); // IAC WILL ECHO
        out.extend_from_slice(&[0xFF, 0xFC, 0x01]); // IAC WONT ECHO
        out.extend_from_slice(b"login: ");
        out
    }

    fn rng_die(&mut self) -> u8 {
        self.rng.die()
    }

    fn roll(&mut self) -> Dice {
        let a = self.rng_die();
        let b = self.rng_die();
        Dice::new(a, b).unwrap()
    }

    /// Handles one line from the bot; returns what to send back (and whether to close).
    /// Answers one line from the bot; the flag says to close the connection after the
    /// reply (`bye`, or a kick).
    pub fn handle(&mut self, raw: &str) -> (Vec<String>, bool) {
        self.game_ended_now = false;
        if self.hung {
            self.log.hung_lines += 1;
            return (Vec::new(), false);
        }
        self.track_due(true);
        let verb = raw.split_whitespace().next().unwrap_or("");
        let game_command = matches!(
            verb,
            "move" | "roll" | "accept" | "reject" | "join" | "board" | "invite"
        );
        if self.logged_in
            && game_command
            && self.script.drop_command_prob > 0.0
            && self.rng.chance(self.script.drop_command_prob)
        {
            self.log.received.push(format!("{} (lost)", raw.trim()));
            self.log.dropped_commands += 1;
            return (Vec::new(), false);
        }
        let (mut out, close) = self.handle_command(raw);
        if self.script.drop_board_prob > 0.0 {
            let before = out.len();
            let p = self.script.drop_board_prob;
            let mut keep = Vec::with_capacity(out.len());
            for l in out {
                if l.starts_with("board:") && self.rng.chance(p) {
                    continue;
                }
                keep.push(l);
            }
            self.log.dropped_boards += (before - keep.len()) as u32;
            out = keep;
        }
        if let Some(n) = self.script.hang_after_bot_moves {
            if self.log.legal_moves >= n && !self.hung {
                self.hung = true;
                self.hung_at = Some(Instant::now());
            }
        }
        self.track_due(false);
        for l in &out {
            self.log.sent_tail.push_back(l.clone());
            if self.log.sent_tail.len() > 40 {
                self.log.sent_tail.pop_front();
            }
        }
        if std::mem::take(&mut self.kick_requested) {
            self.log.kicks += 1;
            return (out, true);
        }
        (out, close)
    }

    fn handle_command(&mut self, raw: &str) -> (Vec<String>, bool) {
        let cmd = raw.trim();
        let shown = if cmd.starts_with("login ") {
            let parts: Vec<&str> = cmd.split_whitespace().collect();
            format!(
                "login {}",
                parts
                    .iter()
                    .skip(1)
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        } else {
            cmd.to_string()
        };
        if cmd.contains(&self.script.password) && !cmd.starts_with("login ") {
            self.log.password_seen = true;
        }
        self.log.received.push(shown);
        let mut out = Vec::new();
        if !self.logged_in {
            let parts: Vec<&str> = cmd.split_whitespace().collect();
            if !self.script.banned
                && parts.len() == 5
                && parts[0] == "login"
                && parts[2] == "1008"
                && parts[3] == self.script.user
                && parts[4] == self.script.password
            {
                self.logged_in = true;
                self.log.logins += 1;
                out.push(format!("1 {} 1041253132 127.0.0.1", self.script.user));
                out.push(self.own_info());
                out.push(line("3"));
                out.push(line("+--------------------------------------+"));
                out.push(line("| Welcome to the FIBS-style test server |"));
                out.push(line("+--------------------------------------+"));
                out.push(line("4"));
                out.push(format!(
                    "5 {} - - 0 0 1612.20 2011 4 1041253100 127.0.0.1 - -",
                    OPPONENT
                ));
                out.push(format!(
                    "5 {} - - {} {} 1523.45 310 0 1041253132 127.0.0.1 stargammon -",
                    self.script.user,
                    u8::from(self.ready),
                    u8::from(self.away)
                ));
                out.push(line("6"));
                self.after_settings_change(&mut out);
            } else {
                self.log.failed_logins += 1;
                out.push(line("login: "));
            }
            return (out, false);
        }
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let Some(&verb) = words.first() else {
            return (out, false);
        };
        match verb {
            "set" if words.len() == 3 => {
                match words[1] {
                    "boardstyle" => self.boardstyle = words[2].parse().unwrap_or(0),
                    "redoubles" => self.redoubles = words[2].to_string(),
                    _ => {}
                }
                out.push(format!("Value of '{}' set to {}.", words[1], words[2]));
                self.after_settings_change(&mut out);
            }
            "toggle" if words.len() == 2 => {
                let (name, value) = match words[1] {
                    "autoboard" => ("autoboard", &mut self.autoboard),
                    "autodouble" => ("autodouble", &mut self.autodouble),
                    "bell" => ("bell", &mut self.bell),
                    "crawford" => ("crawford", &mut self.crawford_setting),
                    "moreboards" => ("moreboards", &mut self.moreboards),
                    "ready" => ("ready", &mut self.ready),
                    other => {
                        out.push(format!("** Don't know how to toggle {other}"));
                        return (out, false);
                    }
                };
                *value = !*value;
                let now = *value;
                out.push(if name == "ready" {
                    if now {
                        line("You're now ready to invite or join someone.")
                    } else {
                        line("You're now refusing to play with someone.")
                    }
                } else {
                    format!("** You {} {name}.", if now { "set" } else { "unset" })
                });
                self.after_settings_change(&mut out);
            }
            "back" => {
                self.away = false;
                out.push(line("Welcome back."));
                self.after_settings_change(&mut out);
            }
            "bye" => {
                out.push(line("Goodbye."));
                return (out, true);
            }
            "join" => self.cmd_join(&words, &mut out),
            "invite" => self.cmd_invite(&words, &mut out),
            "board" => match self.game() {
                Some(_) => out.push(self.board_line()),
                None => out.push(line("** You're not playing.")),
            },
            "roll" => self.cmd_roll(&mut out),
            "double" => self.cmd_double(&mut out),
            "accept" => self.cmd_accept(&mut out),
            "reject" => self.cmd_reject(&mut out),
            "move" => self.cmd_move(&words[1..], raw, &mut out),
            "resign" => self.cmd_resign(&words, &mut out),
            "leave" => self.cmd_leave(&mut out),
            "tell" if words.len() >= 3 => {
                let text = raw.splitn(3, ' ').nth(2).unwrap_or("").trim().to_string();
                self.log.tells.push((words[1].to_string(), text));
                if words[1] == OPPONENT && self.alice_quiet.is_some() && !self.saved {
                    self.log.reminders += 1;
                    if self.rng.chance(self.script.quiet_wakes_on_tell) {
                        self.alice_quiet = None;
                        self.alice_act(&mut out);
                    }
                }
            }
            "show" if words.get(1) == Some(&"saved") => self.cmd_show_saved(&mut out),
            "show" if words.get(1) == Some(&"savedcount") && words.len() == 3 => {
                self.log.lookups.push(cmd.to_string());
                let n = self
                    .script
                    .inviters
                    .iter()
                    .find(|i| i.name == words[2])
                    .map_or(0, |i| i.saved);
                out.push(format!("{} has {n} saved games.", words[2]));
            }
            "rawwho" if words.len() == 2 => {
                self.log.lookups.push(cmd.to_string());
                if let Some(i) = self.script.inviters.iter().find(|i| i.name == words[1]) {
                    out.push(format!(
                        "5 {} - - 1 0 {:.2} {} 0 1041253100 127.0.0.1 - -",
                        i.name, i.rating, i.experience
                    ));
                } else if words[1] == OPPONENT && self.alice_online {
                    out.push(format!(
                        "5 {OPPONENT} - - 0 0 1612.20 2011 4 1041253100 127.0.0.1 - -"
                    ));
                }
                out.push(line("6"));
            }
            _ => out.push(format!("** Unknown command: '{verb}'")),
        }
        (out, false)
    }

    /// `show saved`: the saved match with alice (a star when she is logged in) and the
    /// script's others.
    fn cmd_show_saved(&mut self, out: &mut Vec<String>) {
        self.log.show_saved += 1;
        let mut rows = Vec::new();
        if let (Some(m), true) = (self.the_match.as_ref(), self.saved) {
            let star = if self.alice_online { "*" } else { " " };
            rows.push(format!(
                "  {star}{OPPONENT:<16} {:>5}          {:>2} - {:>2}",
                self.script.match_length, m.score[0], m.score[1]
            ));
        }
        for (name, len, a, b) in &self.script.other_saved {
            rows.push(format!("   {name:<16} {len:>5}          {a:>2} - {b:>2}"));
        }
        if rows.is_empty() {
            out.push(line("no saved games."));
        } else {
            out.push(line(
                "  opponent          matchlength   score (your points first)",
            ));
            out.extend(rows);
        }
    }

    /// The bot leaves the match: it is saved; a quiet alice is herself again.
    fn cmd_leave(&mut self, out: &mut Vec<String>) {
        if self.the_match.is_none() || self.saved {
            out.push(line("** You're not playing."));
            return;
        }
        self.log.leaves += 1;
        self.saved = true;
        if let Some(since) = self.alice_quiet.take() {
            self.log.quiet_to_leave.push(since.elapsed());
            // She never took the turn: on resuming she takes it afresh.
            if let Some(g) = self.game_mut() {
                g.alice_turns -= 1;
            }
        }
        out.push(format!(
            "You left the match with {OPPONENT}. The match was saved."
        ));
    }

    fn error(&mut self, out: &mut Vec<String>, what: &str, cmd: &str) {
        let recent: Vec<&String> = self.log.sent_tail.iter().rev().take(14).rev().collect();
        let asked: Vec<&String> = self.log.received.iter().rev().take(10).rev().collect();
        self.log.protocol_errors.push(format!(
            "{cmd}: {what}; server's last lines {recent:#?}; bot's last lines {asked:?}"
        ));
        out.push(format!("** {what}"));
    }

    fn after_settings_change(&mut self, out: &mut Vec<String>) {
        if !self.settings_ok() || self.finished {
            return;
        }
        if self.the_match.is_some() && self.saved && self.alice_online {
            if !self.script.alice_waits_for_invite && !self.invited.iter().any(|n| n == OPPONENT) {
                self.invited.push(OPPONENT.into());
                out.push(format!(
                    "{OPPONENT} wants to resume a saved match with you."
                ));
                out.push(format!("Type 'join {OPPONENT}' to accept."));
            }
            return;
        }
        if self.the_match.is_none() && self.invited.is_empty() {
            self.invite_new(out);
        }
    }

    fn invite_new(&mut self, out: &mut Vec<String>) {
        if self.matches_started == 0 {
            // An invitation the bot's policy must decline.
            self.invited.push(SPAMMER.into());
            out.push(format!(
                "{SPAMMER} wants to play a 99 point match with you."
            ));
            out.push(format!("Type 'join {SPAMMER}' to accept."));
            for i in self.script.inviters.clone() {
                self.invited.push(i.name.clone());
                out.push(format!(
                    "{} wants to play a {} point match with you.",
                    i.name, i.length
                ));
            }
        }
        self.invited.push(OPPONENT.into());
        out.push(format!(
            "{OPPONENT} wants to play a {} point match with you.",
            self.script.match_length
        ));
        out.push(format!("Type 'join {OPPONENT}' to accept."));
    }
}

/// A running server (one listener plus its connections).
pub struct FibsTestServer {
    pub addr: SocketAddr,
    pub world: Arc<Mutex<World>>,
    tasks: Arc<Mutex<Vec<JoinHandle<()>>>>,
    listener_task: JoinHandle<()>,
}

impl FibsTestServer {
    /// Starts a server on `addr` (port 0 for any) over `world`.
    pub async fn start(addr: &str, world: Arc<Mutex<World>>) -> FibsTestServer {
        let listener = TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        world.lock().unwrap().online = true;
        let tasks: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::new(Mutex::new(Vec::new()));
        let w = world.clone();
        let t = tasks.clone();
        let listener_task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let w2 = w.clone();
                let handle = tokio::spawn(serve_connection(stream, w2));
                t.lock().unwrap().push(handle);
            }
        });
        FibsTestServer {
            addr,
            world,
            tasks,
            listener_task,
        }
    }

    /// Stops the listener and drops every connection (the match stays saved).
    pub async fn stop(self) -> (SocketAddr, Arc<Mutex<World>>) {
        self.listener_task.abort();
        let _ = self.listener_task.await;
        let handles: Vec<JoinHandle<()>> = std::mem::take(&mut *self.tasks.lock().unwrap());
        for h in handles {
            h.abort();
            let _ = h.await;
        }
        {
            let mut w = self.world.lock().unwrap();
            w.online = false;
            w.shut_down();
        }
        (self.addr, self.world)
    }
}

async fn serve_connection(stream: tokio::net::TcpStream, world: Arc<Mutex<World>>) {
    let (mut reader, mut writer) = stream.into_split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let greeting = {
        let mut w = world.lock().unwrap();
        w.outbox = Some(tx.clone());
        w.greeting()
    };
    let _ = tx.send(greeting);
    let writer_task = tokio::spawn(async move {
        while let Some(bytes) = rx.recv().await {
            if writer.write_all(&bytes).await.is_err() {
                return;
            }
        }
    });
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = [0u8; 4096];
    let mut closed_by_bye = false;
    'outer: loop {
        let n = match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buf[..n]);
        while let Some(pos) = pending.iter().position(|&b| b == b'\n') {
            let raw: Vec<u8> = pending.drain(..=pos).collect();
            let text = String::from_utf8_lossy(&raw).trim_end().to_string();
            let (lines, close, alice_gone) = {
                let mut w = world.lock().unwrap();
                let before = w.alice_online;
                let (lines, close) = w.handle(&text);
                (lines, close, before && !w.alice_online)
            };
            let mut bytes = Vec::new();
            for l in &lines {
                if l == "login: " {
                    bytes.extend_from_slice(b"login: ");
                } else {
                    bytes.extend_from_slice(l.as_bytes());
                    bytes.extend_from_slice(b"\r\n");
                }
            }
            let _ = tx.send(bytes);
            if alice_gone {
                let w2 = world.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    let mut w = w2.lock().unwrap();
                    let lines = w.alice_returns();
                    let mut bytes = Vec::new();
                    for l in lines {
                        bytes.extend_from_slice(l.as_bytes());
                        bytes.extend_from_slice(b"\r\n");
                    }
                    // Whoever is logged in now hears of it (the bot may have reconnected
                    // meanwhile); nobody does while the server is down.
                    if let Some(out) = w.outbox.as_ref().filter(|_| w.online && w.logged_in) {
                        let _ = out.send(bytes);
                    }
                });
            }
            if close {
                closed_by_bye = true;
                break 'outer;
            }
        }
    }
    // First the world forgets this connection (its outbox is a sender too), then the
    // writer can drain and close.
    world.lock().unwrap().bot_disconnected();
    drop(tx);
    let _ = writer_task.await;
    let _ = closed_by_bye;
}

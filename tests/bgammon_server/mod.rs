//! A stand-in for a bgammon.org server, written after the protocol document and the
//! server code of tslocum/bgammon (see docs/protocols.md, "bgammon.org bot"), for the bot
//! client's integration tests.
//!
//! Where a client could notice it behaves like the real server: a `hello` text line, then
//! JSON events after `loginjson`; bot names (`bot_x` becomes `BOT_x`), accounts with
//! passwords and guests, "That username is already in use.", commands before the login
//! ignored, the 30 s login limit and the 40 s read limit (both configurable), a `ping`
//! every 30 s; `create public N 0` seats the creator at random as player 1 or 2; boards
//! turned round for player 2 so every reader is player 1; the opening roll by both sides,
//! automatic rolls when the side to roll cannot double; one `move` step per die validated
//! against our rules (`failedmove` "Illegal move."), `ok` refused with `failedok` while a
//! legal step remains, `reset`, `board`, `double`, `ok`/`resign` to a double, the Crawford
//! rule, a declined double scored as the server scores it (the game's value on the board:
//! gammon when the decliner has borne nothing off), `win` events, match ends, `leave`, and
//! the rejoin of a match in progress at the next login. Steps spanning several dice in
//! one `from/to`, text-mode output and the database are not implemented.
//!
//! The opponent (`alice`) joins each match at once and plays random legal plays from a
//! seeded generator, doubles now and then and takes most doubles. Faults can be injected:
//! drop the connection mid-game, refuse a valid step once, go quiet (send nothing and
//! ignore everything), and send garbage lines (unknown events, bytes that are not UTF-8,
//! impossible boards, odd names, overlong lines). A watchdog counts stalls: waits for the
//! bot's answer longer than a limit while the connection is healthy.

#![allow(dead_code, clippy::unwrap_used)]

use stargammon::game::{legal_plays, Dice, Rng};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// Per-mille chances of the injected faults.
#[derive(Debug, Clone, Copy, Default)]
pub struct Faults {
    /// Per bot command in a game: close the connection.
    pub drop: u32,
    /// Per valid step: refuse it once with `failedmove`.
    pub reject: u32,
    /// Per bot command in a game: go quiet for the rest of the connection.
    pub quiet: u32,
    /// Per event sent: a garbage line after it.
    pub garbage: u32,
}

#[derive(Debug, Clone)]
pub struct Options {
    pub login_limit: Duration,
    pub read_limit: Duration,
    pub ping_every: Duration,
    /// Accounts with passwords (lower-case names).
    pub accounts: Vec<(String, String)>,
    pub faults: Faults,
    pub seed: u64,
    /// A wait for the bot longer than this counts as a stall.
    pub stall_limit: Duration,
    /// Chance in per mille that alice doubles when she may.
    pub alice_doubles: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            login_limit: Duration::from_secs(30),
            read_limit: Duration::from_secs(40),
            ping_every: Duration::from_secs(30),
            accounts: vec![("bot_star".into(), "secret".into())],
            faults: Faults::default(),
            seed: 1,
            stall_limit: Duration::from_secs(10),
            alice_doubles: 150,
        }
    }
}

/// What the stand-in saw and did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub connections: u64,
    pub logins: u64,
    pub refused_logins: u64,
    pub login_timeouts: u64,
    pub read_timeouts: u64,
    pub games: u64,
    pub games_won_by_bot: u64,
    pub matches: u64,
    pub doubles_by_bot: u64,
    pub doubles_by_alice: u64,
    pub drops: u64,
    pub rejections: u64,
    pub quiets: u64,
    pub garbage: u64,
    /// Steps the bot sent that our rules refuse, and `ok`s refused, outside a turn with an
    /// injected refusal.
    pub illegal_steps: u64,
    pub failed_oks: u64,
    /// The same after an injected refusal in the turn (the rest of the bot's batch).
    pub after_rejection: u64,
    pub rejoins: u64,
    pub stalls: u64,
    pub longest_wait: Duration,
}

pub struct StandIn {
    pub addr: SocketAddr,
    world: Arc<Mutex<World>>,
}

impl StandIn {
    pub fn report(&self) -> Report {
        self.world.lock().unwrap().report.clone()
    }
}

type Tx = mpsc::UnboundedSender<Vec<u8>>;

mod commands;
mod rules;
use rules::Game;

struct Match {
    id: i64,
    points: u32,
    bot: String,
    bot_seat: u8,
    conn: Option<(u64, Tx)>,
    g: Game,
    /// The bot must answer since then.
    waiting_since: Option<Instant>,
    /// A valid step was refused on purpose this turn: the bot's later steps and `ok` of
    /// the same batch fail in consequence.
    tainted: bool,
    over: bool,
}

struct World {
    opts: Options,
    rng: Rng,
    online: HashMap<String, u64>,
    matches: Vec<Match>,
    next_id: i64,
    next_conn: u64,
    quiet: Vec<u64>,
    report: Report,
}

pub async fn start(opts: Options) -> StandIn {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let world = Arc::new(Mutex::new(World {
        rng: Rng::seeded(opts.seed),
        opts,
        online: HashMap::new(),
        matches: Vec::new(),
        next_id: 1,
        next_conn: 1,
        quiet: Vec::new(),
        report: Report::default(),
    }));
    let w = world.clone();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            tokio::spawn(connection(sock, w.clone()));
        }
    });
    let w = world.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let mut w = w.lock().unwrap();
            let limit = w.opts.stall_limit;
            let now = Instant::now();
            let quiet = w.quiet.clone();
            let mut stalls = 0;
            let mut longest = w.report.longest_wait;
            for m in w.matches.iter_mut() {
                let healthy = m.conn.as_ref().is_some_and(|(c, _)| !quiet.contains(c));
                if let (Some(t), true) = (m.waiting_since, healthy) {
                    longest = longest.max(now - t);
                    if now - t > limit {
                        stalls += 1;
                        m.waiting_since = Some(now);
                    }
                }
            }
            w.report.stalls += stalls;
            w.report.longest_wait = longest;
        }
    });
    StandIn { addr, world }
}

fn line(v: &Value) -> Vec<u8> {
    let mut b = serde_json::to_vec(v).unwrap();
    b.push(b'\n');
    b
}

fn notice(msg: &str) -> Vec<u8> {
    line(&json!({"Type":"notice","Player":"","Message":msg}))
}

async fn connection(sock: TcpStream, world: Arc<Mutex<World>>) {
    let (r, mut wr) = sock.into_split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let (id, opts) = {
        let mut w = world.lock().unwrap();
        w.report.connections += 1;
        w.next_conn += 1;
        (w.next_conn, w.opts.clone())
    };
    let writer = tokio::spawn(async move {
        while let Some(b) = rx.recv().await {
            if b.is_empty() || wr.write_all(&b).await.is_err() {
                break;
            }
        }
        let _ = wr.shutdown().await;
    });
    let _ = tx.send(
        b"hello Welcome to the stand-in! Please log in by sending the 'login' command.\n".to_vec(),
    );
    let mut reader = BufReader::new(r);
    let mut name: Option<String> = None;
    let connected = Instant::now();
    let mut next_ping = connected + opts.ping_every;
    loop {
        let mut buf = Vec::new();
        let login_left = (connected + opts.login_limit).saturating_duration_since(Instant::now());
        let limit = if name.is_none() {
            login_left.min(opts.read_limit)
        } else {
            opts.read_limit
        };
        let until_ping = next_ping.saturating_duration_since(Instant::now());
        let read =
            tokio::time::timeout(limit.min(until_ping), reader.read_until(b'\n', &mut buf)).await;
        let quiet = world.lock().unwrap().quiet.contains(&id);
        match read {
            Err(_) => {
                let now = Instant::now();
                if name.is_none() && now >= connected + opts.login_limit {
                    world.lock().unwrap().report.login_timeouts += 1;
                    let _ = tx.send(notice(
                        "Connection terminated: User did not send login command within 30 seconds.",
                    ));
                    break;
                }
                if now >= next_ping {
                    next_ping = now + opts.ping_every;
                    if name.is_some() && !quiet {
                        let _ = tx.send(line(&json!({"Type":"ping","Player":"","Message":format!("{}", now.duration_since(connected).as_secs())})));
                    }
                    continue;
                }
                world.lock().unwrap().report.read_timeouts += 1;
                break;
            }
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(_)) => {}
        }
        if quiet {
            continue;
        }
        let text = String::from_utf8_lossy(&buf).trim().to_string();
        let mut w = world.lock().unwrap();
        let keep = w.command(id, &tx, &mut name, &text);
        if !keep {
            break;
        }
    }
    {
        let mut w = world.lock().unwrap();
        if let Some(n) = &name {
            if w.online.get(n) == Some(&id) {
                w.online.remove(n);
            }
        }
        for m in w.matches.iter_mut() {
            if m.conn.as_ref().is_some_and(|(c, _)| *c == id) {
                m.conn = None;
            }
        }
        w.quiet.retain(|q| *q != id);
    }
    // Closing: drop the sender; a close without notice when the writer is still busy.
    let _ = tx.send(Vec::new());
    drop(tx);
    let _ = writer.await;
}

const ALICE: &str = "alice";

/// Space in the reader's numbering (bar 26, off 0) to a slot of the mover's view.
fn parse_space(t: &str) -> Option<i64> {
    match t.to_ascii_lowercase().as_str() {
        "bar" | "b" => Some(26),
        "off" | "o" | "home" | "h" => Some(0),
        n => n.parse::<i64>().ok(),
    }
}

impl World {
    fn roll_die(&mut self) -> u8 {
        self.rng.die()
    }

    fn chance(&mut self, per_mille: u32) -> bool {
        per_mille > 0 && self.rng.below(1000) < per_mille as u64
    }

    fn send(&mut self, tx: &Tx, v: Value) {
        let _ = tx.send(line(&v));
        let g = self.opts.faults.garbage;
        if self.chance(g) {
            self.report.garbage += 1;
            let i = self.rng.index(9);
            let junk: Vec<u8> = match i {
                0 => b"this is not json at all\n".to_vec(),
                1 => b"{\"Type\":\"fireworks\",\"Colour\":\"green\"}\n".to_vec(),
                2 => b"{\"Type\":\"board\",\"Board\":\"many\"}\n".to_vec(),
                3 => vec![0xff, 0xfe, b'{', 0x80, b'\n'],
                4 => line(
                    &json!({"Type":"say","Player":"\u{1b}[31mevil\u{0}\u{202e}","Message":"\u{7}hi"}),
                ),
                5 => {
                    let mut b = vec![b'x'; 70_000];
                    b.push(b'\n');
                    b
                }
                6 => line(
                    &json!({"Type":"board","Player":"","Board":[0,15,15,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"Turn":1,"Roll1":3,"Roll2":1,"Points":3,"DoubleValue":1,"Player1":{"Name":"x"},"Player2":{"Name":"y"}}),
                ),
                7 => line(
                    &json!({"Type":"joined","Player":"\u{0}\u{1}BOT_\u{fffd}","GameID":-5,"PlayerNumber":9}),
                ),
                _ => b"{\"Type\":\"notice\",\"Message\":12345678901234567890123}\n".to_vec(),
            };
            let _ = tx.send(junk);
        }
    }

    fn board_json(&self, m: &Match, seat: u8) -> Value {
        let g = &m.g;
        let q = g.view(seat);
        let s = q.slots();
        let mut b = vec![0i64; 28];
        for (i, item) in b.iter_mut().enumerate().take(25).skip(1) {
            *item = s[i] as i64;
        }
        b[26] = s[25] as i64;
        b[27] = s[0] as i64;
        b[0] = q.off() as i64;
        b[25] = -(q.opp_off() as i64);
        let rel = |v: u8| -> u8 {
            match v {
                0 => 0,
                v if v == seat => 1,
                _ => 2,
            }
        };
        let other = 3 - seat;
        let name = |k: u8| {
            if k == m.bot_seat {
                m.bot.clone()
            } else {
                ALICE.to_string()
            }
        };
        let (r1, r2) = if g.turn == 0 {
            (g.dice[(seat - 1) as usize], g.dice[(other - 1) as usize])
        } else {
            (g.dice[0], g.dice[1])
        };
        let mover = g.turn == seat;
        let moves: Vec<Vec<i64>> = g
            .steps
            .iter()
            .map(|&(f, t)| {
                let sp = |x: u8| -> i64 {
                    match x {
                        25 => 26,
                        x => x as i64,
                    }
                };
                if mover {
                    vec![sp(f), sp(t)]
                } else {
                    vec![
                        if f == 25 { 27 } else { 25 - f as i64 },
                        if t == 0 { 25 } else { 25 - t as i64 },
                    ]
                }
            })
            .collect();
        let available: Vec<Vec<i64>> = if mover && g.dice[0] != 0 && g.winner == 0 {
            g.available()
                .iter()
                .map(|&(f, t, _)| vec![if f == 25 { 26 } else { f as i64 }, t as i64])
                .collect()
        } else {
            Vec::new()
        };
        json!({
            "Type": "board", "Player": "",
            "Started": 1, "Ended": 0,
            "Player1": {"Number":1,"Name":name(seat),"Rating":0,"Points":g.score[(seat-1) as usize],"Entered":true,"Inactive":0,"Icon":0},
            "Player2": {"Number":2,"Name":name(other),"Rating":0,"Points":g.score[(other-1) as usize],"Entered":true,"Inactive":0,"Icon":0},
            "Variant": 0, "Board": b, "Turn": rel(g.turn),
            "Roll1": r1, "Roll2": r2, "Roll3": 0,
            "Moves": if moves.is_empty() { Value::Null } else { json!(moves) },
            "Winner": rel(g.winner), "Points": m.points, "Crawford": g.crawford,
            "DoubleValue": g.cube, "DoublePlayer": rel(g.owner), "DoubleOffered": g.offered,
            "Reroll": false, "PlayerNumber": 1,
            "Available": if available.is_empty() { Value::Null } else { json!(available) },
            "Forced": false, "Spectating": false
        })
    }

    fn match_of(&self, conn: u64) -> Option<usize> {
        self.matches
            .iter()
            .position(|m| !m.over && m.conn.as_ref().is_some_and(|(c, _)| *c == conn))
    }

    /// Sends the board to the bot and notes whether it must answer.
    fn show(&mut self, mi: usize) {
        let m = &self.matches[mi];
        let Some((_, tx)) = m.conn.clone() else {
            return;
        };
        let v = self.board_json(m, m.bot_seat);
        let g = &m.g;
        let bs = m.bot_seat;
        let must = g.winner == 0
            && ((g.turn == 0 && g.dice[(bs - 1) as usize] == 0)
                || (g.turn == bs && !g.offered)
                || (g.turn != bs && g.turn != 0 && g.offered));
        self.matches[mi].waiting_since = if must { Some(Instant::now()) } else { None };
        self.send(&tx, v);
    }

    fn tell_bot(&mut self, mi: usize, v: Value) {
        if let Some((_, tx)) = self.matches[mi].conn.clone() {
            self.send(&tx, v);
        }
    }

    fn name_of(&self, mi: usize, seat: u8) -> String {
        let m = &self.matches[mi];
        if seat == m.bot_seat {
            m.bot.clone()
        } else {
            ALICE.into()
        }
    }

    /// The turn passes to `seat`: an automatic roll when it cannot double.
    fn next_turn(&mut self, mi: usize, seat: u8) {
        let points = self.matches[mi].points;
        self.matches[mi].tainted = false;
        let g = &mut self.matches[mi].g;
        g.turn = seat;
        g.dice = [0, 0];
        g.left.clear();
        g.steps.clear();
        if !g.may_double(seat, points) {
            let mut rng = std::mem::replace(&mut self.rng, Rng::seeded(0));
            self.matches[mi].g.roll(&mut rng);
            self.rng = rng;
            let d = self.matches[mi].g.dice;
            let who = self.name_of(mi, seat);
            self.tell_bot(mi, json!({"Type":"rolled","Player":who,"Roll1":d[0],"Roll2":d[1],"Roll3":0,"Selected":false}));
        }
        self.show(mi);
        self.alice(mi);
    }

    /// A game ended: score it, start the next game or end the match.
    fn win(&mut self, mi: usize, winner: u8, value: u32) {
        let points = self.matches[mi].points;
        let bot_seat = self.matches[mi].bot_seat;
        self.matches[mi].tainted = false;
        let g = &mut self.matches[mi].g;
        let pts = value * g.cube;
        g.winner = winner;
        g.score[(winner - 1) as usize] += pts;
        let score = g.score;
        self.report.games += 1;
        if winner == bot_seat {
            self.report.games_won_by_bot += 1;
        }
        let who = self.name_of(mi, winner);
        self.tell_bot(mi, json!({"Type":"win","Player":who,"Points": if points > 1 { pts } else { 0 },"Rating":0,"Resigned":""}));
        if score[(winner - 1) as usize] >= points {
            self.report.matches += 1;
            self.matches[mi].over = true;
            self.show(mi);
            self.matches[mi].waiting_since = None;
            return;
        }
        let old = self.matches[mi].g.crawford;
        let crawford = match old {
            0 if points > 1 && (score[0] + 1 == points || score[1] + 1 == points) => 1,
            1 => 2,
            c => c,
        };
        self.matches[mi].g = Game::new(score, crawford);
        self.show(mi);
        self.alice(mi);
    }

    /// Alice acts while it is her turn.
    fn alice(&mut self, mi: usize) {
        for _ in 0..8 {
            let (bot_seat, points) = (self.matches[mi].bot_seat, self.matches[mi].points);
            let a = 3 - bot_seat;
            let g = &self.matches[mi].g;
            if g.winner != 0 || self.matches[mi].over {
                return;
            }
            if g.turn == 0 {
                if g.dice[(a - 1) as usize] == 0 {
                    let d = self.roll_die();
                    self.matches[mi].g.dice[(a - 1) as usize] = d;
                    self.opening(mi);
                    continue;
                }
                return;
            }
            if g.turn != a {
                // The bot doubled: alice answers.
                if g.offered {
                    if self.chance(800) {
                        let g = &mut self.matches[mi].g;
                        g.offered = false;
                        g.cube *= 2;
                        g.owner = a;
                        self.tell_bot(
                            mi,
                            json!({"Type":"notice","Player":"","Message":"alice accepted double."}),
                        );
                        self.show(mi);
                    } else {
                        let v = self.matches[mi].g.value(bot_seat);
                        self.tell_bot(mi, json!({"Type":"notice","Player":"","Message":"alice declined double offer."}));
                        self.matches[mi].g.offered = false;
                        self.win(mi, bot_seat, v);
                    }
                }
                return;
            }
            if g.offered {
                return; // Waiting for the bot's answer to her double.
            }
            if g.dice[0] == 0 {
                let double = g.may_double(a, points) && {
                    let p = self.opts.alice_doubles;
                    self.chance(p)
                };
                if double {
                    self.matches[mi].g.offered = true;
                    self.report.doubles_by_alice += 1;
                    self.tell_bot(
                        mi,
                        json!({"Type":"notice","Player":"","Message":"alice offers a double."}),
                    );
                    self.show(mi);
                    return;
                }
                let mut rng = std::mem::replace(&mut self.rng, Rng::seeded(0));
                self.matches[mi].g.roll(&mut rng);
                self.rng = rng;
                let d = self.matches[mi].g.dice;
                self.tell_bot(mi, json!({"Type":"rolled","Player":ALICE,"Roll1":d[0],"Roll2":d[1],"Roll3":0,"Selected":false}));
            }
            // Play a random legal play.
            let g = &self.matches[mi].g;
            let d = Dice::new(g.dice[0], g.dice[1]).unwrap();
            let plays = legal_plays(&g.start, d);
            let i = self.rng.index(plays.len());
            let play = plays[i];
            let g = &mut self.matches[mi].g;
            g.set_view(a, play.position);
            let n = play.steps().len();
            if n > 0 {
                let steps: Vec<Vec<i64>> = play
                    .steps()
                    .iter()
                    .map(|s| {
                        vec![
                            if s.from == 25 { 27 } else { 25 - s.from as i64 },
                            if s.to == 0 { 25 } else { 25 - s.to as i64 },
                        ]
                    })
                    .collect();
                self.tell_bot(mi, json!({"Type":"moved","Player":ALICE,"Moves":steps}));
            }
            if play.position.off() == 15 {
                let v = self.matches[mi].g.value(a);
                self.win(mi, a, v);
                return;
            }
            self.next_turn(mi, bot_seat);
            return;
        }
    }

    /// Both opening dice are out: the higher side moves with them (equal: roll again).
    fn opening(&mut self, mi: usize) {
        let g = &self.matches[mi].g;
        if g.dice[0] == 0 || g.dice[1] == 0 {
            self.show(mi);
            return;
        }
        loop {
            let g = &self.matches[mi].g;
            if g.dice[0] != g.dice[1] {
                break;
            }
            let (a, b) = (self.roll_die(), self.roll_die());
            self.matches[mi].g.dice = [a, b];
        }
        let g = &mut self.matches[mi].g;
        g.turn = if g.dice[0] > g.dice[1] { 1 } else { 2 };
        let d = g.dice;
        g.left = d.to_vec();
        g.start = g.view(g.turn);
        g.steps.clear();
        self.show(mi);
    }

    /// One command from connection `id`; false closes the connection.
    fn command(&mut self, id: u64, tx: &Tx, name: &mut Option<String>, text: &str) -> bool {
        let mut words = text.split_whitespace();
        let Some(first) = words.next() else {
            return true;
        };
        let keyword = first.to_ascii_lowercase();
        let params: Vec<&str> = words.collect();
        if name.is_none() {
            if !matches!(keyword.as_str(), "login" | "loginjson" | "lj") {
                return true; // The real server holds these back until the login.
            }
            return self.login(id, tx, name, &keyword, &params);
        }
        let me = name.clone().unwrap();
        let mi = self.match_of(id);
        if let Some(mi) = mi {
            if !self.matches[mi].over
                && matches!(
                    keyword.as_str(),
                    "roll"
                        | "r"
                        | "move"
                        | "m"
                        | "mv"
                        | "ok"
                        | "k"
                        | "double"
                        | "d"
                        | "resign"
                        | "reset"
                )
            {
                self.matches[mi].waiting_since = None;
                let (drop, quiet) = (self.opts.faults.drop, self.opts.faults.quiet);
                if self.chance(drop) {
                    self.report.drops += 1;
                    return false;
                }
                if self.chance(quiet) {
                    self.report.quiets += 1;
                    self.quiet.push(id);
                    return true;
                }
            }
        }
        match keyword.as_str() {
            "pong" | "say" | "s" | "json" | "set" => {}
            "disconnect" => return false,
            "list" | "ls" => {
                let games: Vec<Value> = self
                    .matches
                    .iter()
                    .filter(|m| !m.over)
                    .map(|m| json!({"ID":m.id,"Password":false,"Points":m.points,"Players":2,"Rating":0,"Name":format!("{}'s match", m.bot)}))
                    .collect();
                self.send(tx, json!({"Type":"list","Player":"","Games":games}));
            }
            "create" | "c" => {
                if mi.is_some() {
                    self.send(tx, json!({"Type":"failedcreate","Player":"","Reason":"Please leave the match you are in before creating another."}));
                    return true;
                }
                let points = match params.as_slice() {
                    ["public", p, "0", ..] => p.parse::<u32>().ok().filter(|p| *p >= 1),
                    _ => None,
                };
                let Some(points) = points else {
                    self.send(tx, json!({"Type":"failedcreate","Player":"","Reason":"To create a public match please specify whether it is public or private, and also specify how many points are needed to win the match."}));
                    return true;
                };
                let seat = 1 + self.rng.below(2) as u8;
                let gid = self.next_id;
                self.next_id += 1;
                self.matches.push(Match {
                    id: gid,
                    points: points.min(127),
                    bot: me.clone(),
                    bot_seat: seat,
                    conn: Some((id, tx.clone())),
                    g: Game::new([0, 0], 0),
                    waiting_since: None,
                    tainted: false,
                    over: false,
                });
                let mi = self.matches.len() - 1;
                // Joined and board for the creator, then alice joins.
                self.send(
                    tx,
                    json!({"Type":"joined","Player":me,"GameID":gid,"PlayerNumber":1}),
                );
                let _ = tx.send(notice(&format!("Created match: {me}'s match")));
                self.send(
                    tx,
                    json!({"Type":"joined","Player":ALICE,"GameID":gid,"PlayerNumber":2}),
                );
                self.show(mi);
                self.alice(mi);
            }
            "join" | "j" => {
                self.send(tx, json!({"Type":"failedjoin","Player":"","Reason":"Bots are not allowed to join player matches. Please create a match instead."}));
            }
            "leave" | "l" => {
                if let Some(mi) = mi.or_else(|| {
                    self.matches
                        .iter()
                        .position(|m| m.conn.as_ref().is_some_and(|(c, _)| *c == id))
                }) {
                    self.matches[mi].conn = None;
                    self.matches[mi].over = true;
                    self.matches[mi].waiting_since = None;
                    self.send(tx, json!({"Type":"left","Player":me}));
                } else {
                    self.send(tx, json!({"Type":"failedleave","Player":"","Reason":"You are not currently in a match."}));
                }
            }
            "board" | "b" => match mi {
                Some(mi) => self.show(mi),
                None => {
                    let _ = tx.send(notice("You are not currently in a match."));
                }
            },
            _ => {
                let Some(mi) = mi else {
                    let _ = tx.send(notice("You are not currently in a match."));
                    return true;
                };
                self.game_command(mi, tx, &keyword, &params);
            }
        }
        true
    }

    fn login(
        &mut self,
        id: u64,
        tx: &Tx,
        name: &mut Option<String>,
        keyword: &str,
        params: &[&str],
    ) -> bool {
        let (user, password) = if keyword == "login" {
            (params.first().copied(), params.get(1).copied())
        } else {
            (params.get(1).copied(), params.get(2).copied())
        };
        let user = user.unwrap_or("guest_1").to_ascii_lowercase();
        let valid = user.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !user.bytes().all(|b| b.is_ascii_digit());
        let refuse = |w: &mut World, msg: &str| {
            w.report.refused_logins += 1;
            let _ = tx.send(notice(&format!("Connection terminated: {msg}")));
            false
        };
        if !valid {
            return refuse(
                self,
                "Invalid username: must contain only letters, numbers and underscores.",
            );
        }
        if user.len() > 18 {
            return refuse(self, "Invalid username: must be 18 characters or less.");
        }
        if let Some(p) = password {
            if !self
                .opts
                .accounts
                .iter()
                .any(|(u, pw)| *u == user && pw == p)
            {
                return refuse(self, "No account was found with the provided username and password. To log in as a guest, do not enter a password.");
            }
        }
        let shown = if let Some(rest) = user.strip_prefix("bot_") {
            format!("BOT_{rest}")
        } else if password.is_some() {
            user.clone()
        } else {
            format!("Guest_{user}")
        };
        if self.online.contains_key(&shown) {
            return refuse(self, "That username is already in use.");
        }
        self.online.insert(shown.clone(), id);
        *name = Some(shown.clone());
        self.report.logins += 1;
        self.send(tx, json!({"Type":"welcome","Player":"","PlayerName":shown,"Clients":self.online.len(),"Games":self.matches.len()}));
        self.send(tx, json!({"Type":"list","Player":"","Games":null}));
        let _ = tx.send(notice(
            "Connect with other players and stay up to date on the latest changes.",
        ));
        // Rejoin a match in progress.
        if let Some(mi) = self.matches.iter().position(|m| !m.over && m.bot == shown) {
            self.report.rejoins += 1;
            self.matches[mi].conn = Some((id, tx.clone()));
            let gid = self.matches[mi].id;
            self.send(
                tx,
                json!({"Type":"joined","Player":shown,"GameID":gid,"PlayerNumber":1}),
            );
            self.show(mi);
            let _ = tx.send(notice("Rejoined match."));
        }
        true
    }

    fn failed_move(&mut self, mi: usize, reason: &str) {
        self.tell_bot(
            mi,
            json!({"Type":"failedmove","Player":"","From":0,"To":0,"Reason":reason}),
        );
        let m = &mut self.matches[mi];
        m.waiting_since = Some(Instant::now());
    }
}

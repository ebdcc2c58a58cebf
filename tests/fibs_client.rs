//! The FIBS bot client against the FIBS-protocol test server (tests/fibs_server): full
//! matches with doubles and the Crawford game, resignation offers, an opponent who drops
//! and resumes, and a server restart in the middle of a match.
//!
//! The bot side is the real client (`stargammon::fibs::Client`) over a loopback socket;
//! its decisions come from a seeded random-but-legal test player, so the tests exercise
//! the protocol handling, not playing strength. The server referees every move the bot
//! sends with the project's rules.

#![allow(clippy::unwrap_used)]

mod common;
mod fibs_server;

use stargammon::engine::build;
use stargammon::fibs::config::WatchdogConfig;
use stargammon::fibs::{Brain, Client, ClientStats, FibsConfig, FibsError, Password, Stop};
use stargammon::players::{EnginePlayer, PlayerSpec};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

use fibs_server::{FibsTestServer, Log, Script, World, SPAMMER};

fn client_config() -> FibsConfig {
    let mut cfg = FibsConfig::default();
    cfg.connection.backoff_initial_ms = 50;
    cfg.connection.backoff_max_ms = 400;
    cfg.connection.min_send_interval_ms = 1;
    cfg.connection.send_burst = 20;
    cfg.connection.idle_timeout_s = 30;
    cfg.connection.keepalive_s = 10;
    cfg.invitations.max_length = 11;
    cfg.invitations.deny = vec![fibs_server::SPAMMER.to_string()];
    cfg.watchdog = WatchdogConfig {
        board_ms: 400,
        roll_ms: 200,
        join_ms: 800,
        opponent_board_ms: 1500,
        opponent_remind_ms: 2500,
        opponent_leave_ms: 4000,
        reinvite_ms: 500,
        ..WatchdogConfig::default()
    };
    cfg
}

/// The longest the bot may stay silent while the game waits for it under
/// [`client_config`]: its longest watchdog limit on its own turn, plus time to decide
/// and for the test machine's scheduling.
const DUE_SILENCE_LIMIT: Duration = Duration::from_millis(800 + 700);

/// Runs the bot against a server with `script` until the server says the run is over
/// (or the time limit passes), restarting the server when the script asks for it.
async fn run(script: Script, limit: Duration) -> (Log, ClientStats) {
    let brain = Brain::new(
        Box::new(common::RandomSeat::new(script.seed ^ 77, 0.15, 0.2)),
        None,
    )
    .unwrap();
    run_with(script, limit, brain).await
}

async fn run_with(script: Script, limit: Duration, brain: Brain) -> (Log, ClientStats) {
    run_config(script, limit, brain, client_config()).await
}

async fn run_config(
    script: Script,
    limit: Duration,
    brain: Brain,
    config: FibsConfig,
) -> (Log, ClientStats) {
    let mut out = run_accounts_against(
        vec![Account {
            script,
            config,
            brain,
            password: None,
        }],
        limit,
    )
    .await;
    let (log, stats, result) = out.remove(0);
    assert!(result.is_ok(), "client stopped with {result:?}");
    (log, stats)
}

/// One bot account and the test server it plays on.
struct Account {
    script: Script,
    config: FibsConfig,
    brain: Brain,
    /// Log in with this password instead of the script's.
    password: Option<String>,
}

/// A test server that restarts itself when its script asks.
struct Rig {
    world: Arc<Mutex<World>>,
    server: Option<FibsTestServer>,
    /// Bot lines seen, and when that count last grew.
    heard: (usize, tokio::time::Instant),
}

/// Runs every account in one process against a test server of its own until every
/// server that can finish says its run is over (or the time limit passes).
async fn run_accounts_against(
    accounts: Vec<Account>,
    limit: Duration,
) -> Vec<(Log, ClientStats, Result<ClientStats, FibsError>)> {
    let stop = Stop::default();
    let mut rigs = Vec::new();
    let mut bots = Vec::new();
    for a in accounts {
        let world = Arc::new(Mutex::new(World::new(a.script.clone())));
        let server = FibsTestServer::start("127.0.0.1:0", world.clone()).await;
        let mut client = Client::new(
            a.config,
            server.addr.to_string(),
            a.script.user.clone(),
            Password::new(a.password.unwrap_or(a.script.password.clone())),
            a.brain,
        );
        let s2 = stop.clone();
        bots.push(tokio::spawn(async move {
            let r = client.run_graceful(s2).await;
            (r, client.stats().clone())
        }));
        rigs.push(Rig {
            world,
            server: Some(server),
            heard: (0, tokio::time::Instant::now()),
        });
    }
    let deadline = tokio::time::Instant::now() + limit;
    // A run where the bot sends nothing for this long is stuck: stop and show why.
    let stall = Duration::from_secs(20);
    let mut report_at = tokio::time::Instant::now();
    'outer: loop {
        tokio::time::sleep(Duration::from_millis(20)).await;
        if std::env::var_os("FIBS_PROGRESS").is_some()
            && report_at.elapsed() > Duration::from_secs(30)
        {
            report_at = tokio::time::Instant::now();
            for rig in &rigs {
                let w = rig.world.lock().unwrap();
                if w.finished {
                    continue;
                }
                let tail: Vec<_> = w.log.received.iter().rev().take(40).rev().collect();
                eprintln!(
                    "progress {}: {} matches, {} bot lines; last {tail:?}; server's last {:?}",
                    w.script().user,
                    w.log.matches.len(),
                    w.log.received.len(),
                    w.log.sent_tail
                );
            }
        }
        let mut all_done = true;
        for rig in &mut rigs {
            let (finished, restart, received, can_finish) = {
                let w = rig.world.lock().unwrap();
                let s = w.script();
                let can_finish = !s.banned && s.hang_after_bot_moves.is_none();
                // A hung server's run is over once its bot had time to notice.
                let hang_seen = w
                    .hung_at
                    .is_some_and(|t| t.elapsed() > Duration::from_secs(6));
                let hang_pending = s.hang_after_bot_moves.is_some() && !hang_seen;
                (
                    w.finished,
                    w.restart_requested,
                    w.log.received.len(),
                    can_finish || hang_pending,
                )
            };
            if can_finish && !finished {
                all_done = false;
                if received != rig.heard.0 {
                    rig.heard = (received, tokio::time::Instant::now());
                } else if rig.heard.1.elapsed() > stall {
                    let w = rig.world.lock().unwrap();
                    let tail: Vec<_> = w.log.received.iter().rev().take(12).rev().collect();
                    eprintln!(
                        "stalled: the bot sent nothing for {stall:?}; its last lines: {tail:?}; \
                         the server's last lines: {:#?}",
                        w.log.sent_tail
                    );
                    break 'outer;
                }
            }
            if restart {
                rig.world.lock().unwrap().restart_requested = false;
                if let Some(server) = rig.server.take() {
                    let (a, w) = server.stop().await;
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    rig.server = Some(FibsTestServer::start(&a.to_string(), w).await);
                }
            }
        }
        if all_done || tokio::time::Instant::now() > deadline {
            break;
        }
    }
    // Let the last lines reach the bots before stopping them.
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.now.cancel();
    let mut out = Vec::new();
    for (rig, bot) in rigs.into_iter().zip(bots) {
        let (result, stats) = bot.await.unwrap();
        let log = rig.world.lock().unwrap().log.clone();
        let script = rig.world.lock().unwrap().script().clone();
        eprintln!(
            "seed {}: matches {:?}, games {}, bot moves {}, doubles bot/alice {}/{}, takes/drops {}/{}, \
             crawford games {}, resign offers {}, drops {}, resumes {}, restarts {}, logins {}, \
             max silence while due {:?}; {stats:?}",
            script.seed,
            log.matches,
            log.games.len(),
            log.legal_moves,
            log.bot_doubles,
            log.alice_doubles,
            log.bot_takes,
            log.bot_drops,
            log.crawford_games,
            log.resign_offers,
            log.drops,
            log.resumes,
            log.restarts,
            log.logins,
            log.max_due_silence
        );
        if let Some(server) = rig.server {
            let _ = server.stop().await;
        }
        out.push((log, stats, result));
    }
    out
}

fn check_common(log: &Log, stats: &ClientStats, script: &Script) {
    assert!(
        log.illegal_moves.is_empty(),
        "illegal moves: {:#?}",
        log.illegal_moves
    );
    assert!(
        log.protocol_errors.is_empty(),
        "commands sent out of turn: {:#?}",
        log.protocol_errors
    );
    assert!(
        !log.password_seen,
        "the password was sent outside the login"
    );
    assert!(
        log.joined_forbidden.is_empty(),
        "joined an invitation the policy forbids: {:?}",
        log.joined_forbidden
    );
    assert!(
        log.max_due_silence <= DUE_SILENCE_LIMIT,
        "silent for {:?} while the game waited for the bot",
        log.max_due_silence
    );
    assert_eq!(log.failed_logins, 0);
    assert!(log.legal_moves > 0);
    // Every match was played to the end with consistent scores.
    assert!(!log.matches.is_empty(), "no match finished: {log:#?}");
    for &(me, her) in &log.matches {
        assert!(me >= script.match_length || her >= script.match_length);
        assert!(me.min(her) < script.match_length);
    }
    let games_total: usize = log.games.len();
    assert!(games_total >= log.matches.len());
    // The bot answered boards and never twice the same one (the server would have
    // flagged the second answer as out of turn).
    assert!(stats.boards_answered > 0);
    assert_eq!(stats.brain_errors, 0, "{stats:?}");
    // Every game was counted, however it ended (played out, a refused double, an accepted
    // resignation).
    assert_eq!(
        (stats.games_won + stats.games_lost) as usize,
        log.games.len(),
        "{stats:?}"
    );
    assert_eq!(
        stats.matches_won + stats.matches_lost,
        log.matches.len() as u32,
        "{stats:?}"
    );
    let bot_wins = log
        .matches
        .iter()
        .filter(|(me, _)| *me >= script.match_length)
        .count();
    assert_eq!(stats.matches_won, bot_wins as u32);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plays_full_five_point_matches_with_doubles_and_the_crawford_game() {
    let mut script = Script::new(3);
    script.resign_at = Some((2, 3));
    let (log, stats) = run(script.clone(), Duration::from_secs(120)).await;
    check_common(&log, &stats, &script);
    assert!(log.crawford_games >= 1, "no Crawford game: {log:#?}");
    assert!(
        log.bot_doubles + log.alice_doubles >= 1,
        "no double: {log:#?}"
    );
    assert!(log.resign_offers == 1);
    assert_eq!(stats.resignations_accepted + stats.resignations_rejected, 1);
    // Colours were drawn afresh and both occurred.
    assert!(log.colours.contains(&1) && log.colours.contains(&-1));
    // Settings were put right after login and the login line carried CLIP's version.
    let sent = &log.received;
    assert!(sent[0].starts_with("login stargammon 1008 starbot"));
    for cmd in [
        "set boardstyle 3",
        "toggle ready",
        "toggle autoboard",
        "back",
    ] {
        assert!(sent.iter().any(|s| s == cmd), "never sent {cmd}");
    }
    assert_eq!(sent.iter().filter(|s| *s == "toggle ready").count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resumes_a_saved_match_after_the_opponent_drops() {
    let mut script = Script::new(11);
    script.drop_at = Some((1, 4));
    script.max_matches = 1;
    let (log, stats) = run(script.clone(), Duration::from_secs(120)).await;
    check_common(&log, &stats, &script);
    assert_eq!(log.drops, 1);
    assert_eq!(log.resumes, 1, "{log:#?}");
    assert!(log.received.iter().any(|s| s == "invite alice"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_independent_servers_drop_logout_and_resume_lines_are_understood() {
    let mut script = Script::new(11);
    script.drop_at = Some((1, 4));
    script.max_matches = 1;
    script.independent_lines = true;
    let (log, stats) = run(script.clone(), Duration::from_secs(120)).await;
    check_common(&log, &stats, &script);
    assert_eq!(log.drops, 1);
    assert_eq!(log.resumes, 1, "{log:#?}");
    // The name comes from the CLIP logout line, not its number.
    assert!(log.received.iter().any(|s| s == "invite alice"));
    assert!(
        !log.received.iter().any(|s| s.starts_with("invite 8")),
        "{:?}",
        log.received
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declined_inviters_are_told_why() {
    let mut script = Script::new(17);
    script.max_matches = 1;
    let (log, stats) = run(script.clone(), Duration::from_secs(120)).await;
    check_common(&log, &stats, &script);
    // The spammer (on the deny list) is declined with a reason, once.
    let to_spammer: Vec<_> = log.tells.iter().filter(|(to, _)| to == SPAMMER).collect();
    assert_eq!(to_spammer.len(), 1, "{:?}", log.tells);
    assert!(
        to_spammer[0].1.contains("not taking invitations"),
        "{:?}",
        to_spammer[0]
    );
    // Nobody else was told anything (alice's invitations were joined).
    assert_eq!(log.tells.len(), 1, "{:?}", log.tells);
}

/// The soak's chaos for one account's server (seed `seed`): everything the watchdogs are
/// for at once.
fn chaos_script(seed: u64, user: &str, matches: u32) -> Script {
    let mut script = Script::new(seed);
    script.user = user.to_string();
    script.match_length = 3;
    script.alice_pass_prob = 0.6;
    script.max_matches = matches;
    script.play_all_matches = true;
    script.roll_in_crawford = false;
    script.alice_drop_prob = 0.01;
    script.kick_prob = 0.004;
    script.restart_prob = 0.002;
    script.drop_board_prob = 0.01;
    script.drop_command_prob = 0.01;
    script.alice_quiet_prob = 0.004;
    script.quiet_wakes_on_tell = 0.5;
    script
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "soak run of 510 matches on 3 accounts, about 12 minutes: scripts/fibs_soak.sh"]
async fn soak_three_accounts_through_every_fault() {
    let total: u32 = std::env::var("SOAK_MATCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(510);
    let users = ["starbot", "starbot2", "starbot3"];
    let per = total.div_ceil(users.len() as u32);
    // One engine, one worker pool for every account: the net at depth 1.
    let spec = PlayerSpec::parse("net").unwrap();
    let judge = build::engine(&spec.engine).unwrap();
    let players =
        stargammon::players::build(&spec, stargammon::players::BuildOptions { cube: true })
            .unwrap();
    let pool = Brain::pool(Some(&judge), 1, 8).unwrap();
    let started = std::time::Instant::now();
    let accounts = users
        .iter()
        .enumerate()
        .map(|(i, user)| Account {
            script: chaos_script(101 + i as u64, user, per),
            config: client_config(),
            brain: Brain::with_pool(players.make(), Some(judge.clone()), pool.clone())
                .with_resign_below(0.001),
            password: None,
        })
        .collect();
    let out = run_accounts_against(accounts, Duration::from_secs(3 * 3600)).await;
    let wall = started.elapsed();
    let mut sum = Log::default();
    let mut stats_sum = ClientStats::default();
    let mut max_quiet_to_leave = Duration::ZERO;
    for ((log, stats, result), user) in out.iter().zip(users) {
        assert!(result.is_ok(), "{user}: {result:?}");
        let script = chaos_script(0, user, per);
        check_common(log, stats, &script);
        assert_eq!(log.matches.len(), per as usize, "{user}: {stats:?}");
        assert!(log.resumes >= log.drops, "{user}: {log:#?}");
        for d in &log.quiet_to_leave {
            max_quiet_to_leave = max_quiet_to_leave.max(*d);
        }
        sum.matches.extend(&log.matches);
        sum.games.extend(&log.games);
        sum.drops += log.drops;
        sum.kicks += log.kicks;
        sum.restarts += log.restarts;
        sum.resumes += log.resumes;
        sum.logins += log.logins;
        sum.crawford_games += log.crawford_games;
        sum.crawford_rolls += log.crawford_rolls;
        sum.dropped_boards += log.dropped_boards;
        sum.dropped_commands += log.dropped_commands;
        sum.quiet_spells += log.quiet_spells;
        sum.reminders += log.reminders;
        sum.leaves += log.leaves;
        sum.legal_moves += log.legal_moves;
        sum.due_waits += log.due_waits;
        sum.max_due_silence = sum.max_due_silence.max(log.max_due_silence);
        stats_sum.watchdog_firings += stats.watchdog_firings;
    }
    let leave_limit = Duration::from_millis(client_config().watchdog.opponent_leave_ms + 700);
    assert!(max_quiet_to_leave <= leave_limit, "{max_quiet_to_leave:?}");
    assert!(
        sum.crawford_rolls > 0 && sum.dropped_boards > 0 && sum.dropped_commands > 0,
        "{sum:#?}"
    );
    assert!(sum.drops > 0 && sum.kicks > 0 && sum.restarts > 0 && sum.leaves > 0);
    eprintln!(
        "soak: {} accounts, {} matches (length 3), {} games, {} bot moves; illegal moves 0, \
         commands out of turn 0; Crawford games {} with {} rolls by the bot; lost boards {}, \
         lost commands {}; alice drops {}, kicks {}, server restarts {}; quiet spells {}, \
         reminders {}, leaves {} (longest quiet to leave {:.2} s); resumes {}, logins {}; \
         watchdog firings {}; longest silence while due {:.3} s over {} waits; wall {:.0} s",
        users.len(),
        sum.matches.len(),
        sum.games.len(),
        sum.legal_moves,
        sum.crawford_games,
        sum.crawford_rolls,
        sum.dropped_boards,
        sum.dropped_commands,
        sum.drops,
        sum.kicks,
        sum.restarts,
        sum.quiet_spells,
        sum.reminders,
        sum.leaves,
        max_quiet_to_leave.as_secs_f64(),
        sum.resumes,
        sum.logins,
        stats_sum.watchdog_firings,
        sum.max_due_silence.as_secs_f64(),
        sum.due_waits,
        wall.as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crawford_game_goes_on_when_the_server_does_not_roll() {
    let mut script = Script::new(3);
    script.roll_in_crawford = false;
    let (log, stats) = run(script.clone(), Duration::from_secs(120)).await;
    check_common(&log, &stats, &script);
    assert!(log.crawford_games >= 1, "no Crawford game: {log:#?}");
    assert!(log.crawford_rolls >= 1, "{log:#?}");
    assert!(stats.watchdog_firings >= log.crawford_rolls, "{stats:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lost_boards_and_commands_are_asked_for_and_sent_again() {
    let mut script = Script::new(41);
    script.max_matches = 2;
    script.play_all_matches = true;
    script.drop_board_prob = 0.08;
    script.drop_command_prob = 0.08;
    let (log, stats) = run(script.clone(), Duration::from_secs(180)).await;
    check_common(&log, &stats, &script);
    assert_eq!(log.matches.len(), 2);
    assert!(
        log.dropped_boards > 0 && log.dropped_commands > 0,
        "{log:#?}"
    );
    assert!(stats.watchdog_firings > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_opponent_is_reminded_then_left_and_the_match_resumed_later() {
    let mut script = Script::new(11);
    script.max_matches = 1;
    script.quiet_at = Some((1, 3));
    script.alice_waits_for_invite = true;
    let config = client_config();
    let brain = Brain::new(Box::new(common::RandomSeat::new(5, 0.15, 0.2)), None).unwrap();
    let (log, stats) = run_config(
        script.clone(),
        Duration::from_secs(120),
        brain,
        config.clone(),
    )
    .await;
    check_common(&log, &stats, &script);
    assert_eq!(
        (log.quiet_spells, log.reminders, log.leaves),
        (1, 1, 1),
        "{log:#?}"
    );
    assert_eq!(stats.matches_left, 1);
    let waited = log.quiet_to_leave[0];
    let leave = Duration::from_millis(config.watchdog.opponent_leave_ms);
    assert!(
        waited >= leave && waited <= leave + Duration::from_millis(700),
        "{waited:?}"
    );
    let reminder: Vec<_> = log.tells.iter().filter(|(to, _)| to == "alice").collect();
    assert_eq!(reminder.len(), 1, "{:?}", log.tells);
    assert_eq!(reminder[0].1, config.watchdog.reminder);
    // The bot invited her back to the saved match, which was then finished.
    assert_eq!(log.resumes, 1);
    assert_eq!(log.matches.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_bot_reads_its_saved_match_and_invites_to_resume_it() {
    let mut script = Script::new(29);
    script.max_matches = 1;
    script.alice_waits_for_invite = true;
    let world = Arc::new(Mutex::new(World::new(script.clone())));
    let server = FibsTestServer::start("127.0.0.1:0", world.clone()).await;
    let new_client = |seed: u64| {
        let brain = Brain::new(Box::new(common::RandomSeat::new(seed, 0.15, 0.2)), None).unwrap();
        Client::new(
            client_config(),
            server.addr.to_string(),
            script.user.clone(),
            Password::new(script.password.clone()),
            brain,
        )
    };
    // The first process plays a few moves and is stopped at once.
    let mut first = new_client(1);
    let stop = CancellationToken::new();
    let s2 = stop.clone();
    let bot = tokio::spawn(async move { first.run(s2).await });
    while world.lock().unwrap().log.legal_moves < 6 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    stop.cancel();
    bot.await.unwrap().unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let before = world.lock().unwrap().log.received.len();
    assert!(world.lock().unwrap().log.matches.is_empty());
    // A new process knows nothing but what the server lists.
    let mut second = new_client(2);
    let stop = CancellationToken::new();
    let s2 = stop.clone();
    let bot = tokio::spawn(async move { second.run(s2).await });
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !world.lock().unwrap().finished && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.cancel();
    let stats = bot.await.unwrap().unwrap();
    let log = world.lock().unwrap().log.clone();
    let _ = server.stop().await;
    assert!(
        log.illegal_moves.is_empty() && log.protocol_errors.is_empty(),
        "{log:#?}"
    );
    assert_eq!(log.matches.len(), 1, "{log:#?}");
    assert_eq!(log.resumes, 1);
    assert!(log.show_saved >= 2, "{log:#?}");
    let after: Vec<&String> = log.received[before..].iter().collect();
    assert!(after.iter().any(|l| *l == "show saved"), "{after:?}");
    assert!(after.iter().any(|l| *l == "invite alice"), "{after:?}");
    // A saved match is resumed by inviting, never by joining.
    assert!(
        !after.iter().any(|l| l.starts_with("join alice")),
        "{after:?}"
    );
    assert_eq!(stats.matches_won + stats.matches_lost, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inviters_are_screened_by_rating_experience_and_saved_matches() {
    let mut script = Script::new(17);
    script.max_matches = 1;
    let inviter = |name: &str, rating: f64, experience: u32, saved: u32| fibs_server::Inviter {
        name: name.into(),
        rating,
        experience,
        saved,
        length: 5,
    };
    script.inviters = vec![
        inviter("lowrated", 1200.0, 900, 0),
        inviter("newbie", 1500.0, 10, 0),
        inviter("hoarder", 1600.0, 800, 40),
        inviter("longer", 1600.0, 800, 0),
    ];
    script.inviters[3].length = 17;
    let mut config = client_config();
    config.invitations.min_rating = 1400.0;
    config.invitations.min_experience = 100;
    config.invitations.max_inviter_saved = 10;
    let brain = Brain::new(Box::new(common::RandomSeat::new(5, 0.15, 0.2)), None).unwrap();
    let (log, stats) = run_config(script.clone(), Duration::from_secs(120), brain, config).await;
    check_common(&log, &stats, &script);
    let told = |who: &str| -> String {
        log.tells
            .iter()
            .filter(|(to, _)| to == who)
            .map(|(_, t)| t.clone())
            .collect::<Vec<_>>()
            .join(" | ")
    };
    assert!(
        told("lowrated").contains("rated at least 1400"),
        "{:?}",
        log.tells
    );
    assert!(
        told("newbie").contains("experience of 100"),
        "{:?}",
        log.tells
    );
    assert!(
        told("hoarder").contains("40 saved matches"),
        "{:?}",
        log.tells
    );
    assert!(told("longer").contains("1 to 11 points"), "{:?}", log.tells);
    assert!(told("alice").is_empty());
    // Rating and experience came from `rawwho` (alice's from the login block), the saved
    // count from `show savedcount`.
    for q in [
        "rawwho lowrated",
        "rawwho newbie",
        "show savedcount hoarder",
        "show savedcount alice",
    ] {
        assert!(log.lookups.iter().any(|l| l == q), "{q}: {:?}", log.lookups);
    }
    assert!(
        !log.lookups.iter().any(|l| l == "rawwho alice"),
        "{:?}",
        log.lookups
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_accounts_ban_or_hung_server_leaves_the_others_playing() {
    let spec = PlayerSpec::parse("net").unwrap();
    let judge = build::engine(&spec.engine).unwrap();
    let players =
        stargammon::players::build(&spec, stargammon::players::BuildOptions { cube: true })
            .unwrap();
    let pool = Brain::pool(Some(&judge), 1, 8).unwrap();
    let brain = || Brain::with_pool(players.make(), Some(judge.clone()), pool.clone());
    let mut playing = Script::new(7);
    playing.max_matches = 2;
    playing.play_all_matches = true;
    let mut banned = Script::new(8);
    banned.user = "bannedbot".into();
    banned.banned = true;
    let mut hung = Script::new(9);
    hung.user = "hungbot".into();
    hung.hang_after_bot_moves = Some(3);
    let mut quick_idle = client_config();
    quick_idle.connection.idle_timeout_s = 3;
    quick_idle.connection.keepalive_s = 1;
    let accounts = vec![
        Account {
            script: banned.clone(),
            config: client_config(),
            brain: brain(),
            password: None,
        },
        Account {
            script: hung.clone(),
            config: quick_idle,
            brain: brain(),
            password: None,
        },
        Account {
            script: playing.clone(),
            config: client_config(),
            brain: brain(),
            password: None,
        },
    ];
    let out = run_accounts_against(accounts, Duration::from_secs(240)).await;
    let (banned_log, _, banned_result) = &out[0];
    assert!(
        matches!(banned_result, Err(FibsError::LoginRejected)),
        "{banned_result:?}"
    );
    assert_eq!(banned_log.failed_logins, 1);
    let (hung_log, hung_stats, hung_result) = &out[1];
    assert!(hung_result.is_ok());
    assert!(
        hung_log.legal_moves >= 3 && hung_log.hung_lines > 0,
        "{hung_log:#?}"
    );
    // The hung account's watchdog asked for boards, then the idle limit reconnected it.
    assert!(
        hung_stats.watchdog_firings > 0 && hung_stats.disconnects > 0,
        "{hung_stats:?}"
    );
    let (log, stats, result) = &out[2];
    assert!(result.is_ok());
    check_common(log, stats, &playing);
    assert_eq!(log.matches.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnects_after_a_server_restart_and_finishes_the_match() {
    let mut script = Script::new(29);
    script.restart_after_bot_moves = Some(6);
    script.max_matches = 1;
    let (log, stats) = run(script.clone(), Duration::from_secs(120)).await;
    check_common(&log, &stats, &script);
    assert_eq!(log.restarts, 1);
    assert_eq!(log.logins, 2, "{log:#?}");
    assert!(log.resumes >= 1);
    assert!(stats.disconnects >= 1);
    assert_eq!(stats.logins, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_plays_a_match_and_judges_a_resignation() {
    let mut script = Script::new(5);
    script.max_matches = 1;
    script.resign_at = Some((1, 2));
    let spec = PlayerSpec::parse("engine:config/throughput.toml").unwrap();
    let engine = build::engine(&spec.engine).unwrap();
    let player = EnginePlayer {
        name: spec.text().to_string(),
        engine: engine.clone(),
    };
    let brain = Brain::new(Box::new(player), Some(engine)).unwrap();
    let (log, stats) = run_with(script.clone(), Duration::from_secs(240), brain).await;
    check_common(&log, &stats, &script);
    assert_eq!(log.resign_offers, 1);
    assert_eq!(stats.resignations_accepted + stats.resignations_rejected, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keep_alive_goes_out_before_the_idle_limit() {
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut cfg = client_config();
    cfg.connection.keepalive_s = 1;
    cfg.connection.idle_timeout_s = 3;
    let brain = Brain::new(Box::new(common::RandomSeat::new(1, 0.15, 0.2)), None).unwrap();
    let mut client = Client::new(
        cfg,
        addr.to_string(),
        "starbot".into(),
        Password::new("pw".into()),
        brain,
    );
    let token = CancellationToken::new();
    let t2 = token.clone();
    let bot = tokio::spawn(async move { client.run(t2).await });
    let (mut sock, _) = listener.accept().await.unwrap();
    // The server says nothing: after about a second the bot sends its keep-alive, once.
    let started = std::time::Instant::now();
    let mut buf = vec![0u8; 256];
    let n = tokio::time::timeout(Duration::from_secs(3), sock.read(&mut buf))
        .await
        .unwrap()
        .unwrap();
    let waited = started.elapsed();
    assert_eq!(&buf[..n], b"time\r\n");
    assert!(waited >= Duration::from_millis(900), "{waited:?}");
    token.cancel();
    let _ = bot.await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_login_stops_the_client_without_retrying() {
    let script = Script::new(1);
    let world = Arc::new(Mutex::new(World::new(script.clone())));
    let server = FibsTestServer::start("127.0.0.1:0", world.clone()).await;
    let brain = Brain::new(Box::new(common::RandomSeat::new(1, 0.15, 0.2)), None).unwrap();
    let mut client = Client::new(
        client_config(),
        server.addr.to_string(),
        script.user.clone(),
        Password::new("wrong-password".into()),
        brain,
    );
    let result = tokio::time::timeout(
        Duration::from_secs(30),
        client.run(CancellationToken::new()),
    )
    .await
    .unwrap();
    assert!(
        matches!(result, Err(stargammon::fibs::FibsError::LoginRejected)),
        "{result:?}"
    );
    let log = world.lock().unwrap().log.clone();
    assert_eq!(log.failed_logins, 1);
    assert_eq!(log.logins, 0);
    let _ = server.stop().await;
}

/// Reads the bot's lines until one satisfies `want` (or a few seconds pass); returns all
/// read.
async fn read_until(
    sock: &mut tokio::net::TcpStream,
    pending: &mut Vec<u8>,
    want: impl Fn(&str) -> bool,
) -> Vec<String> {
    use tokio::io::AsyncReadExt;
    let mut lines = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        while let Some(i) = pending.iter().position(|&b| b == b'\n') {
            let raw: Vec<u8> = pending.drain(..=i).collect();
            let l = String::from_utf8_lossy(&raw).trim_end().to_string();
            let done = want(&l);
            lines.push(l);
            if done {
                return lines;
            }
        }
        let mut buf = [0u8; 4096];
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match tokio::time::timeout(left, sock.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => pending.extend_from_slice(&buf[..n]),
            _ => panic!("the bot did not send what was wanted; it sent {lines:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_server_lines_are_logged_and_survived() {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let brain = Brain::new(Box::new(common::RandomSeat::new(1, 0.15, 0.2)), None).unwrap();
    let mut client = Client::new(
        client_config(),
        addr.to_string(),
        "starbot".into(),
        Password::new("pw".into()),
        brain,
    );
    let token = CancellationToken::new();
    let t2 = token.clone();
    let bot = tokio::spawn(async move {
        let r = client.run(t2).await;
        (r, client.stats().clone())
    });
    let (mut sock, _) = listener.accept().await.unwrap();
    let mut pending = Vec::new();
    sock.write_all(b"login: ").await.unwrap();
    read_until(&mut sock, &mut pending, |l| l.starts_with("login ")).await;
    let mut garbage: Vec<u8> = Vec::new();
    garbage.extend_from_slice(b"1 starbot 1041253132 127.0.0.1\r\n");
    garbage.extend_from_slice(b"2 starbot 1 1 0 0 0 0 1 1 5 0 1 0 1 1500.00 0 1 none 1 0 UTC\r\n");
    // Bytes that are not text, telnet commands cut short, a line far over any limit.
    garbage.extend_from_slice(b"\xc3\x28\xa0\xa1 \xf0\x28\x8c\x28\r\n\xff\xfa\x18");
    garbage.extend_from_slice(b"\xff\xf0\r\n");
    garbage.extend(std::iter::repeat_n(b'x', 200_000));
    garbage.extend_from_slice(b"\r\n");
    for l in [
        "board:You:alice:5:0:0:1:2:3",
        "board:You:alice:five:0:0",
        "board:",
        "al\x01ice wants to play a 5 point match with you.",
        "b\x07b wants to resume a saved match with you.",
        "7 e\x1bvil e\x1bvil logs in.",
        "5 x y z",
        "5 bob - - 1 0 nan 12 0 0 host - -",
        "2 garbage",
        "bob has lots of saved games.",
        "  opponent          matchlength   score (your points first)",
        "  *gh\x02ost   5   1 - ",
        "  *bob   99999999999999   1 - 2",
        "wants to play a 5 point match with you.",
        "** Player  has joined you for a 5 point match.",
        "You win the 99999999999999999999 point match 1-0 .",
        "alice wants to resign. You will win 4294967296 points.",
        "It's your turn. Please roll or double.",
    ] {
        garbage.extend_from_slice(l.as_bytes());
        garbage.extend_from_slice(b"\r\n");
    }
    sock.write_all(&garbage).await.unwrap();
    // Still serving: a proper invitation is joined ...
    sock.write_all(b"alice wants to play a 5 point match with you.\r\n")
        .await
        .unwrap();
    let sent = read_until(&mut sock, &mut pending, |l| l == "join alice").await;
    assert!(
        !sent.iter().any(|l| l.bytes().any(|b| b.is_ascii_control())),
        "{sent:?}"
    );
    assert!(
        !sent
            .iter()
            .any(|l| l.contains("ice") && !l.contains("alice")),
        "{sent:?}"
    );
    // ... a match begins, and a board that names another opponent (contradicting the
    // match) is logged and still answered; so is one whose score went backwards.
    sock.write_all(b"** Player alice has joined you for a 5 point match.\r\n")
        .await
        .unwrap();
    read_until(&mut sock, &mut pending, |l| l == "board").await;
    let board = "board:You:someplayer:5:2:1:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
    sock.write_all(format!("{board}\r\n").as_bytes())
        .await
        .unwrap();
    read_until(&mut sock, &mut pending, |l| l.starts_with("move ")).await;
    let back = board
        .replace("someplayer:5:2:1", "alice:7:0:0")
        .replace(":6:2:", ":5:3:");
    sock.write_all(format!("{back}\r\n").as_bytes())
        .await
        .unwrap();
    read_until(&mut sock, &mut pending, |l| l.starts_with("move ")).await;
    token.cancel();
    let (result, stats) = bot.await.unwrap();
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(stats.disconnects, 0, "{stats:?}");
    assert!(stats.odd_lines >= 4, "{stats:?}");
}

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
use stargammon::fibs::{Brain, Client, ClientStats, FibsConfig, Password};
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
    cfg.invitations.max_length = 11;
    cfg.invitations.deny = vec![fibs_server::SPAMMER.to_string()];
    cfg
}

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
    let world = Arc::new(Mutex::new(World::new(script.clone())));
    let mut server = FibsTestServer::start("127.0.0.1:0", world.clone()).await;
    let addr = server.addr;
    let token = CancellationToken::new();
    let mut client = Client::new(
        client_config(),
        addr.to_string(),
        script.user.clone(),
        Password::new(script.password.clone()),
        brain,
    );
    let t2 = token.clone();
    let bot = tokio::spawn(async move {
        let r = client.run(t2).await;
        (r, client.stats().clone())
    });
    let deadline = tokio::time::Instant::now() + limit;
    // A run where the bot sends nothing for this long is stuck: stop and show why.
    let stall = Duration::from_secs(20);
    let (mut heard, mut heard_at) = (0usize, tokio::time::Instant::now());
    loop {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let (finished, restart, received) = {
            let w = world.lock().unwrap();
            (w.finished, w.restart_requested, w.log.received.len())
        };
        if received != heard {
            (heard, heard_at) = (received, tokio::time::Instant::now());
        } else if heard_at.elapsed() > stall {
            let w = world.lock().unwrap();
            let tail: Vec<_> = w.log.received.iter().rev().take(12).rev().collect();
            eprintln!(
                "stalled: the bot sent nothing for {stall:?}; its last lines: {tail:?}; \
                 the server's last lines: {:#?}",
                w.log.sent_tail
            );
            break;
        }
        if finished || tokio::time::Instant::now() > deadline {
            break;
        }
        if restart {
            world.lock().unwrap().restart_requested = false;
            let (a, w) = server.stop().await;
            tokio::time::sleep(Duration::from_millis(150)).await;
            server = FibsTestServer::start(&a.to_string(), w).await;
        }
    }
    // Let the last lines reach the bot before stopping it.
    tokio::time::sleep(Duration::from_millis(100)).await;
    token.cancel();
    let (result, stats) = bot.await.unwrap();
    assert!(result.is_ok(), "client stopped with {result:?}");
    let log = world.lock().unwrap().log.clone();
    eprintln!(
        "seed {}: matches {:?}, games {}, bot moves {}, doubles bot/alice {}/{}, takes/drops {}/{}, \
         crawford games {}, resign offers {}, drops {}, resumes {}, restarts {}, logins {}; {stats:?}",
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
        log.logins
    );
    let _ = server.stop().await;
    (log, stats)
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
        !log.joined_spammer,
        "joined an invitation the policy forbids"
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "soak run of 200 matches, a few minutes: scripts/fibs_soak.sh"]
async fn soak_matches_with_drops_kicks_and_restarts() {
    let matches: u32 = std::env::var("SOAK_MATCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut script = Script::new(101);
    script.max_matches = matches;
    script.play_all_matches = true;
    script.alice_drop_prob = 0.01;
    script.kick_prob = 0.004;
    script.restart_prob = 0.002;
    let (log, stats) = run(script.clone(), Duration::from_secs(1800)).await;
    check_common(&log, &stats, &script);
    assert_eq!(log.matches.len(), matches as usize, "{stats:?}");
    assert!(
        log.drops > 0 && log.kicks > 0 && log.restarts > 0,
        "{log:#?}"
    );
    // Every interruption ended in a resumed match: each drop, kick and restart in the
    // middle of a match was followed by a resume.
    assert!(log.resumes >= log.drops, "{log:#?}");
    eprintln!(
        "soak: {} matches, {} games, {} alice drops, {} kicks, {} restarts, {} resumes, {} logins",
        log.matches.len(),
        log.games.len(),
        log.drops,
        log.kicks,
        log.restarts,
        log.resumes,
        log.logins
    );
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

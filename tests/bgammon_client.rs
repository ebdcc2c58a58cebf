//! The bgammon.org bot against a stand-in server (tests/bgammon_server/) on loopback:
//! matches played to the end with the cube, a dropped connection, refused steps, garbage
//! lines, a server that goes quiet, the login limit, and `--matches N` on the command line.

#![allow(clippy::unwrap_used)]

mod bgammon_server;

use std::path::Path;
use std::time::{Duration, Instant};

use bgammon_server::{Faults, Options, Report};
use stargammon::bgammon::{BgammonError, Bot, BotConfig, BotStats, Timing};
use stargammon::config::Config;
use stargammon::fibs::Password;
use stargammon::players::EnginePlayer;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

fn engine() -> EnginePlayer {
    let config = Config::load(Path::new("config/throughput.toml")).unwrap();
    let engine = stargammon::engine::build::engine(&config.engine_spec()).unwrap();
    EnginePlayer {
        name: engine.name(),
        engine,
    }
}

fn fast() -> Timing {
    Timing {
        connect: Duration::from_secs(5),
        login: Duration::from_secs(5),
        settle: Duration::from_millis(100),
        keepalive: Duration::from_millis(500),
        silence: Duration::from_secs(2),
        answer: Duration::from_secs(2),
        opponent_wait: Duration::from_secs(5),
        create_retry: Duration::from_millis(200),
        backoff_min: Duration::from_millis(50),
        backoff_max: Duration::from_millis(400),
    }
}

fn stand_in_options(faults: Faults, seed: u64) -> Options {
    Options {
        ping_every: Duration::from_millis(400),
        faults,
        seed,
        stall_limit: Duration::from_secs(5),
        alice_doubles: 300,
        ..Options::default()
    }
}

/// Runs the bot for `matches` matches of `points` against a stand-in with `faults`.
async fn play(
    faults: Faults,
    matches: u64,
    points: u32,
    seed: u64,
    limit: Duration,
) -> (Result<BotStats, BgammonError>, Report) {
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_env_filter(std::env::var("BG_LOG").unwrap_or("info".into()))
        .try_init();
    let server = bgammon_server::start(stand_in_options(faults, seed)).await;
    let cfg = BotConfig {
        server: server.addr.to_string(),
        user: "bot_star".into(),
        password: Some(Password::new("secret".into())),
        points,
        matches: Some(matches),
        timing: fast(),
    };
    let mut bot = Bot::new(cfg, Box::new(engine()));
    let r = tokio::time::timeout(limit, bot.run(CancellationToken::new()))
        .await
        .unwrap_or_else(|_| panic!("no {matches} matches in {limit:?}: {:?}", server.report()));
    (r, server.report())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_is_played_to_the_end_with_the_cube() {
    let (r, rep) = play(Faults::default(), 2, 5, 7, Duration::from_secs(120)).await;
    let stats = r.unwrap();
    assert_eq!(stats.matches(), 2, "{stats}");
    assert_eq!(rep.matches, 2, "{rep:?}");
    assert!(rep.games >= 2, "{rep:?}");
    assert_eq!(
        stats.games_won + stats.games_lost,
        rep.games,
        "{stats} {rep:?}"
    );
    assert!(rep.doubles_by_alice + rep.doubles_by_bot > 0, "{rep:?}");
    assert_eq!(rep.illegal_steps, 0, "{rep:?}");
    assert_eq!(rep.failed_oks, 0, "{rep:?}");
    assert_eq!(rep.stalls, 0, "{rep:?}");
    assert_eq!(stats.reconnects, 0);
    assert_eq!(stats.refused_commands, 0, "{stats}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bot_reconnects_after_a_drop_and_rejoins_its_match() {
    let faults = Faults {
        drop: 40,
        ..Faults::default()
    };
    let (r, rep) = play(faults, 1, 5, 11, Duration::from_secs(120)).await;
    let stats = r.unwrap();
    assert_eq!(stats.matches(), 1);
    assert!(rep.drops >= 1, "{rep:?}");
    assert!(rep.rejoins >= 1, "{rep:?}");
    assert!(stats.reconnects >= 1, "{stats}");
    assert_eq!(rep.illegal_steps, 0, "{rep:?}");
    assert_eq!(rep.stalls, 0, "{rep:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_steps_are_recovered_from() {
    let faults = Faults {
        reject: 150,
        ..Faults::default()
    };
    let (r, rep) = play(faults, 1, 3, 5, Duration::from_secs(120)).await;
    let stats = r.unwrap();
    assert_eq!(stats.matches(), 1);
    assert!(rep.rejections >= 1, "{rep:?}");
    assert!(stats.refused_commands >= rep.rejections, "{stats} {rep:?}");
    assert_eq!(rep.illegal_steps, 0, "{rep:?}");
    assert_eq!(rep.stalls, 0, "{rep:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_from_the_server_is_logged_and_survived() {
    let faults = Faults {
        garbage: 120,
        ..Faults::default()
    };
    let (r, rep) = play(faults, 1, 3, 3, Duration::from_secs(120)).await;
    let stats = r.unwrap();
    assert_eq!(stats.matches(), 1);
    assert!(rep.garbage >= 5, "{rep:?}");
    assert!(stats.unreadable_lines >= 1, "{stats}");
    assert_eq!(rep.stalls, 0, "{rep:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_goes_quiet_is_left_for_a_new_connection() {
    let faults = Faults {
        quiet: 30,
        ..Faults::default()
    };
    let (r, rep) = play(faults, 1, 3, 13, Duration::from_secs(120)).await;
    let stats = r.unwrap();
    assert_eq!(stats.matches(), 1);
    assert!(rep.quiets >= 1, "{rep:?}");
    assert!(stats.reconnects >= rep.quiets, "{stats} {rep:?}");
    assert_eq!(rep.stalls, 0, "{rep:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_login_limit_and_a_wrong_password() {
    let server = bgammon_server::start(Options {
        login_limit: Duration::from_millis(500),
        read_limit: Duration::from_millis(900),
        ..Options::default()
    })
    .await;
    // No login: the stand-in says why and closes, as the server does after 30 s.
    let sock = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let mut lines = BufReader::new(sock).lines();
    let t = Instant::now();
    let mut last = String::new();
    while let Ok(Some(l)) = lines.next_line().await {
        last = l;
    }
    assert!(last.contains("did not send login command"), "{last}");
    assert!(t.elapsed() >= Duration::from_millis(450));
    // Logged in, then quiet: dropped after the read limit.
    let mut sock = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    sock.write_all(b"loginjson test/en bot_quiet\n")
        .await
        .unwrap();
    let mut lines = BufReader::new(sock).lines();
    let mut welcomed = false;
    while let Ok(Some(l)) = lines.next_line().await {
        welcomed |= l.contains("\"welcome\"") && l.contains("BOT_quiet");
    }
    assert!(welcomed);
    assert_eq!(server.report().read_timeouts, 1);
    // A wrong password stops the bot for good.
    let cfg = BotConfig {
        server: server.addr.to_string(),
        user: "bot_star".into(),
        password: Some(Password::new("wrong".into())),
        points: 3,
        matches: Some(1),
        timing: fast(),
    };
    let mut bot = Bot::new(cfg, Box::new(engine()));
    let r = tokio::time::timeout(Duration::from_secs(20), bot.run(CancellationToken::new()))
        .await
        .unwrap();
    assert!(matches!(r, Err(BgammonError::Refused(_))), "{r:?}");
}

#[test]
fn the_command_stops_after_n_matches() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(bgammon_server::start(Options::default()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args([
            "bgammon",
            "--server",
            &server.addr.to_string(),
            "--user",
            "bot_star",
            "--password-env",
            "BGAMMON_TEST_PASSWORD",
            "--config",
            "config/throughput.toml",
            "--matches",
            "2",
            "--points",
            "1",
        ])
        .env("BGAMMON_TEST_PASSWORD", "secret")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert_eq!(server.report().matches, 2, "{log}");
    assert!(log.contains("stopped: matches"), "{log}");
}

/// The figure in docs/BENCHMARKS.md ("FIBS bot", "bgammon"): 200 games with every fault
/// injected, no stall.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "soak: 200 games with faults injected, a few minutes in release"]
async fn soak_200_games_with_faults() {
    let faults = Faults {
        drop: 4,
        reject: 20,
        quiet: 2,
        garbage: 10,
    };
    let server = bgammon_server::start(stand_in_options(faults, 2026)).await;
    let cfg = BotConfig {
        server: server.addr.to_string(),
        user: "bot_star".into(),
        password: Some(Password::new("secret".into())),
        points: 5,
        matches: None,
        timing: fast(),
    };
    let mut bot = Bot::new(cfg, Box::new(engine()));
    let stop = CancellationToken::new();
    let t = Instant::now();
    let limit = std::env::var("SOAK_LIMIT_S")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1800);
    let watch = async {
        while server.report().games < 200 {
            assert!(
                t.elapsed() < Duration::from_secs(limit),
                "{:?}",
                server.report()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        stop.cancel();
    };
    let (result, ()) = tokio::join!(bot.run(stop.clone()), watch);
    let stats = result.unwrap();
    let rep = server.report();
    println!(
        "soak: {} games, {} matches in {:.1} s; faults: {} drops, {} refused steps, {} quiet \
         connections, {} garbage lines; stalls {}, longest wait for the bot {:.2} s; bot: {stats}",
        rep.games,
        rep.matches,
        t.elapsed().as_secs_f64(),
        rep.drops,
        rep.rejections,
        rep.quiets,
        rep.garbage,
        rep.stalls,
        rep.longest_wait.as_secs_f64()
    );
    assert_eq!(rep.stalls, 0, "{rep:?}");
    assert_eq!(rep.illegal_steps, 0, "{rep:?}");
}

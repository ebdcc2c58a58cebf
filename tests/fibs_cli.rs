//! `stargammon fibs` as a user runs it: the binary, the password from an environment
//! variable, a config file, the shipped engine deciding; against the FIBS-protocol test
//! server until a match is over, then stopped with SIGTERM. The password must not appear
//! in anything the program prints.

#![allow(clippy::unwrap_used)]

mod common;
mod fibs_server;

use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fibs_server::{FibsTestServer, Script, World};

/// A scratch directory of this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("stargammon-fibs-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Starts `stargammon fibs` with `args`, the environment `env` and a debug log.
fn start_bot(args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stargammon"));
    cmd.arg("fibs").args(args).env("RUST_LOG", "debug");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn sigterm(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits until `done` holds of the world (or panics after `limit`).
async fn wait_for(world: &Arc<Mutex<World>>, limit: Duration, done: impl Fn(&World) -> bool) {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if done(&world.lock().unwrap()) {
            return;
        }
        if tokio::time::Instant::now() >= deadline {
            let tail: Vec<String> = world
                .lock()
                .unwrap()
                .log
                .received
                .iter()
                .rev()
                .take(20)
                .cloned()
                .collect();
            panic!("gave up waiting; the bot's last lines: {tail:?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn exit_of(child: std::process::Child) -> (std::process::ExitStatus, String) {
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()),
    )
    .await
    .expect("the bot exits")
    .unwrap();
    (out.status, String::from_utf8_lossy(&out.stderr).to_string())
}

const QUICK_CONFIG: &str = "[invitations]\nmax_length = 61\ndeny = [\"spammer\"]\n\
     [connection]\nbackoff_initial_ms = 50\nbackoff_max_ms = 500\n\
     min_send_interval_ms = 1\nsend_burst = 20\n\
     [play]\nengine = \"net\"\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_finishes_the_game_and_a_restarted_bot_resumes_the_match() {
    let mut script = Script::new(23);
    script.max_matches = 1;
    script.match_length = 61;
    script.alice_waits_for_invite = true;
    let world = Arc::new(Mutex::new(World::new(script.clone())));
    let server = FibsTestServer::start("127.0.0.1:0", world.clone()).await;
    let dir = scratch("sigterm");
    let config = dir.join("fibs.toml");
    std::fs::write(&config, QUICK_CONFIG).unwrap();
    let addr = server.addr.to_string();
    let args = [
        "--server",
        &addr,
        "--user",
        &script.user,
        "--password-env",
        "STARGAMMON_TEST_FIBS_PW",
        "--config",
        config.to_str().unwrap(),
    ];
    let env = [("STARGAMMON_TEST_FIBS_PW", script.password.as_str())];

    // First SIGTERM in the middle of a game: the bot finishes that game, then logs out.
    let child = start_bot(&args, &env);
    wait_for(&world, Duration::from_secs(60), |w| w.log.legal_moves >= 3).await;
    let games_before = world.lock().unwrap().log.games.len();
    sigterm(child.id());
    let (status, stderr) = exit_of(child).await;
    assert!(status.success(), "{stderr}");
    let log = world.lock().unwrap().log.clone();
    assert_eq!(log.games.len(), games_before + 1, "{stderr}");
    assert!(
        log.matches.is_empty(),
        "the 61-point match went on: {log:#?}"
    );
    assert_eq!(log.received.last().map(String::as_str), Some("bye"));
    assert!(stderr.contains("stopping after this game"), "{stderr}");

    // A new process reads the saved match from the server and invites alice to resume.
    // This time a stop finishes the whole match (set from the environment).
    let env = [
        ("STARGAMMON_TEST_FIBS_PW", script.password.as_str()),
        ("STARGAMMON_SHUTDOWN__FINISH", "match"),
    ];
    let child = start_bot(&args, &env);
    wait_for(&world, Duration::from_secs(60), |w| w.log.resumes >= 1).await;
    let moves = world.lock().unwrap().log.legal_moves;
    wait_for(&world, Duration::from_secs(60), |w| {
        w.log.legal_moves >= moves + 2
    })
    .await;
    // Two signals: the second one logs out at once, whatever is unfinished.
    let pid = child.id();
    sigterm(pid);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let signalled = std::time::Instant::now();
    sigterm(pid);
    let (status, stderr) = exit_of(child).await;
    assert!(status.success(), "{stderr}");
    assert!(signalled.elapsed() < Duration::from_secs(10));
    assert!(stderr.contains("stopping after this match"), "{stderr}");
    assert!(stderr.contains("second stop signal"), "{stderr}");
    let log = world.lock().unwrap().log.clone();
    let _ = server.stop().await;
    assert_eq!(log.resumes, 1);
    assert!(log.received.iter().any(|l| l == "show saved"));
    // After the restart the saved match was resumed by an invitation, never a join.
    let second = log
        .received
        .iter()
        .rposition(|l| l.starts_with("login "))
        .unwrap();
    let after = &log.received[second..];
    assert!(after.iter().any(|l| l == "invite alice"), "{after:?}");
    assert!(!after.iter().any(|l| l == "join alice"), "{after:?}");
    assert!(log.illegal_moves.is_empty(), "{:#?}", log.illegal_moves);
    assert!(log.protocol_errors.is_empty(), "{:#?}", log.protocol_errors);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_accounts_play_in_one_process_with_metrics() {
    let mut worlds = Vec::new();
    let mut servers = Vec::new();
    for (seed, user) in [(31, "starbot"), (32, "starbot2")] {
        let mut script = Script::new(seed);
        script.user = user.into();
        script.max_matches = 1;
        script.match_length = 3;
        let world = Arc::new(Mutex::new(World::new(script)));
        servers.push(FibsTestServer::start("127.0.0.1:0", world.clone()).await);
        worlds.push(world);
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = scratch("accounts");
    let pw_file = dir.join("pw2");
    std::fs::write(&pw_file, "s3cret-pw\n").unwrap();
    let config = dir.join("fibs.toml");
    std::fs::write(
        &config,
        format!(
            "{QUICK_CONFIG}\n[status]\nmetrics_listen = \"127.0.0.1:{port}\"\n\
             [[account]]\nuser = \"starbot\"\npassword_env = \"STARGAMMON_TEST_FIBS_PW\"\n\
             [[account]]\nuser = \"starbot2\"\npassword_file = {:?}\nserver = \"{}\"\n",
            pw_file.to_str().unwrap(),
            servers[1].addr
        ),
    )
    .unwrap();
    let addr = servers[0].addr.to_string();
    let child = start_bot(
        &["--server", &addr, "--config", config.to_str().unwrap()],
        &[("STARGAMMON_TEST_FIBS_PW", "s3cret-pw")],
    );
    for w in &worlds {
        wait_for(w, Duration::from_secs(120), |w| w.log.logins >= 1).await;
    }
    // Both bots declined the spammer: the metrics say so (and say why).
    for w in &worlds {
        wait_for(w, Duration::from_secs(60), |w| !w.log.tells.is_empty()).await;
    }
    let metrics_addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let (status, _, body) = tokio::task::spawn_blocking(move || {
        common::http_request(metrics_addr, "GET", "/metrics", None)
    })
    .await
    .unwrap();
    let text = String::from_utf8_lossy(&body).to_string();
    assert_eq!(status, 200);
    for needle in [
        "stargammon_fibs_connected{account=\"starbot\"} 1",
        "stargammon_fibs_connected{account=\"starbot2\"} 1",
        "stargammon_fibs_invitations_refused_total{account=\"starbot\",reason=\"listed\"} 1",
        "stargammon_fibs_invitations_refused_total{account=\"starbot2\",reason=\"listed\"} 1",
    ] {
        assert!(text.contains(needle), "{needle} not in\n{text}");
    }
    for w in &worlds {
        wait_for(w, Duration::from_secs(120), |w| w.finished).await;
    }
    sigterm(child.id());
    let (status, stderr) = exit_of(child).await;
    assert!(status.success(), "{stderr}");
    for w in &worlds {
        let log = w.lock().unwrap().log.clone();
        assert_eq!(log.matches.len(), 1);
        assert!(
            log.illegal_moves.is_empty() && log.protocol_errors.is_empty(),
            "{log:#?}"
        );
    }
    // A status line per finished match.
    assert_eq!(
        stderr.matches("match with alice (3 points").count(),
        2,
        "{stderr}"
    );
    assert!(!stderr.contains("s3cret-pw"));
    for s in servers {
        let _ = s.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_logs_in_plays_a_match_and_stops_on_sigterm() {
    let mut script = Script::new(21);
    script.max_matches = 1;
    script.match_length = 3;
    let world = Arc::new(Mutex::new(World::new(script.clone())));
    let server = FibsTestServer::start("127.0.0.1:0", world.clone()).await;

    let dir = std::env::temp_dir().join(format!("stargammon-fibs-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("fibs.toml");
    std::fs::write(
        &config,
        "client_name = \"stargammon\"\n\
         [invitations]\nmax_length = 7\ndeny = [\"spammer\"]\n\
         [connection]\nbackoff_initial_ms = 50\nbackoff_max_ms = 500\n\
         min_send_interval_ms = 1\nsend_burst = 20\n\
         [play]\nengine = \"engine\"\n",
    )
    .unwrap();

    let child = Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args([
            "fibs",
            "--server",
            &server.addr.to_string(),
            "--user",
            &script.user,
            "--password-env",
            "STARGAMMON_TEST_FIBS_PW",
            "--config",
            config.to_str().unwrap(),
        ])
        .env("STARGAMMON_TEST_FIBS_PW", &script.password)
        .env("RUST_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();

    let deadline = tokio::time::Instant::now() + Duration::from_secs(240);
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if world.lock().unwrap().finished || tokio::time::Instant::now() > deadline {
            break;
        }
    }
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let log = world.lock().unwrap().log.clone();
    let _ = server.stop().await;

    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "exit {:?}\n{stderr}", out.status);
    assert!(!stderr.contains(&script.password) && !stdout.contains(&script.password));
    assert!(stderr.contains("logged in as starbot"), "{stderr}");
    assert_eq!(log.matches.len(), 1, "{log:#?}\n{stderr}");
    assert!(log.illegal_moves.is_empty(), "{:#?}", log.illegal_moves);
    assert!(log.protocol_errors.is_empty(), "{:#?}", log.protocol_errors);
    assert!(!log.joined_spammer);
    // The debug log shows the login line with the password masked.
    assert!(
        stderr.contains("login stargammon 1008 starbot ****"),
        "{stderr}"
    );
}

#[test]
fn a_missing_password_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args([
            "fibs",
            "--server",
            "127.0.0.1:1",
            "--user",
            "bot",
            "--password-env",
            "STARGAMMON_TEST_UNSET_VARIABLE",
        ])
        .env_remove("STARGAMMON_TEST_UNSET_VARIABLE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("STARGAMMON_TEST_UNSET_VARIABLE"), "{err}");
}

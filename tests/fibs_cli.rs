//! `stargammon fibs` as a user runs it: the binary, the password from an environment
//! variable, a config file, the shipped engine deciding; against the FIBS-protocol test
//! server until a match is over, then stopped with SIGTERM. The password must not appear
//! in anything the program prints.

#![allow(clippy::unwrap_used)]

mod fibs_server;

use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fibs_server::{FibsTestServer, Script, World};

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

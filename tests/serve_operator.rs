//! `stargammon serve` as its operator sees it: configuration from environment variables,
//! the start-up line with the money rules, JSON log lines per game and per connection, and
//! the summary at stop.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::GNUBG_OPENING_21;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A `serve` process whose stderr lines arrive on a channel.
struct Served {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Served {
    fn start(env: &[(&str, String)], args: &[&str]) -> Served {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stargammon"));
        cmd.arg("serve")
            .args(args)
            .env("RUST_LOG", "info")
            .env("STARGAMMON_ENGINE__THREADS", "1")
            .env("STARGAMMON_ENGINE__TT_MEGABYTES", "8")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Served {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits for a log line satisfying `want` (at most 60 s), keeping every line seen.
    fn wait_for(
        &mut self,
        what: &str,
        want: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| {
                    panic!("no log line for {what}; seen:\n{}", self.seen.join("\n"))
                });
            self.seen.push(line.clone());
            let v: serde_json::Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("log line is not JSON ({e}): {line}"));
            if want(&v) {
                return v;
            }
        }
    }

    fn terminate(&mut self) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn message(v: &serde_json::Value) -> &str {
    v["message"].as_str().unwrap_or("")
}

#[test]
fn the_operator_sees_rules_games_connections_and_a_stop_summary() {
    let port = free_port();
    let mut s = Served::start(
        &[("STARGAMMON_SERVER__LISTEN", format!("127.0.0.1:{port}"))],
        &["--log-format", "json"],
    );
    let overridden = s.wait_for("the overrides", |v| {
        message(v).contains("overridden by the environment")
    });
    let vars = overridden["variables"].as_str().unwrap();
    assert!(
        vars.contains(&format!("STARGAMMON_SERVER__LISTEN=127.0.0.1:{port}")),
        "{overridden}"
    );
    let rules = s.wait_for("the money rules", |v| message(v).starts_with("money rules"));
    assert!(
        message(&rules).contains("Jacoby on, beavers on"),
        "gnubg's defaults: {rules}"
    );
    s.wait_for("listening", |v| message(v) == "listening");

    // gnubg's external player: the same opening board twice, score unchanged (the second
    // starting position after a decision is a new game, its predecessor's result unknown).
    let mut conn = TcpStream::connect(("127.0.0.1", port)).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut reply = [0u8; 256];
    for _ in 0..2 {
        conn.write_all(format!("{GNUBG_OPENING_21}\n\0").as_bytes())
            .unwrap();
        let n = conn.read(&mut reply).unwrap();
        assert!(n > 0 && reply[..n].ends_with(b"\n"));
    }
    let first = s.wait_for("the first game", |v| message(v) == "game over");
    assert_eq!(first["game"], 1, "{first}");
    assert_eq!(first["decisions"], 1, "{first}");
    assert_eq!(first["players"], "probe vs gnubg0ply", "{first}");
    assert_eq!(first["result"], "result not seen", "{first}");
    assert_eq!(first["kind"], "money", "{first}");
    assert!(first["max_ms"].as_f64().unwrap() >= 0.0);
    drop(conn);
    let second = s.wait_for("the game in progress at close", |v| {
        message(v) == "game over"
    });
    assert_eq!(second["game"], 2, "{second}");
    let closed = s.wait_for("the connection's summary", |v| {
        message(v) == "connection closed"
    });
    assert_eq!(closed["decisions"], 2, "{closed}");
    assert_eq!(closed["games"], 2, "{closed}");
    assert_eq!(closed["protocol"], "gnubg external player", "{closed}");
    assert_eq!(closed["reason"], "end of input", "{closed}");
    assert!(closed["mean_ms"].as_f64().unwrap() <= closed["max_ms"].as_f64().unwrap());

    s.terminate();
    let stopped = s.wait_for("the stop summary", |v| message(v).starts_with("stopped"));
    let text = message(&stopped);
    assert!(
        text.contains("1 connection(s) served") && text.contains("2 decision(s)"),
        "{text}"
    );
    assert!(s.child.wait().unwrap().success());
}

#[test]
fn idle_connections_are_closed_with_a_line_saying_so() {
    let port = free_port();
    let mut s = Served::start(
        &[
            ("STARGAMMON_SERVER__LISTEN", format!("127.0.0.1:{port}")),
            ("STARGAMMON_SERVER__IDLE_TIMEOUT_SECS", "1".to_string()),
        ],
        &["--log-format", "json"],
    );
    s.wait_for("listening", |v| message(v) == "listening");
    let mut conn = TcpStream::connect(("127.0.0.1", port)).unwrap();
    conn.write_all(b"version\n").unwrap();
    let closed = s.wait_for("the idle close", |v| message(v) == "connection closed");
    assert_eq!(closed["reason"], "idle timeout", "{closed}");
    assert_eq!(closed["idle_timeout_secs"], 1, "{closed}");
    assert_eq!(closed["protocol"], "external interface", "{closed}");
}

#[test]
fn a_bad_environment_variable_stops_serve_with_its_name() {
    for (var, value, says) in [
        (
            "STARGAMMON_SERVR__LISTEN",
            "127.0.0.1:0",
            "no configuration has a section",
        ),
        ("STARGAMMON_SERVER__MAX_CONNECTIONS", "lots", "lots"),
        ("STARGAMMON_ENGINE__DEPTH", "2", "depth"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_stargammon"))
            .arg("serve")
            .env(var, value)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{var}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(var) && err.contains(says), "{err}");
    }
}

//! Engines that answer badly lose the game, not the series: an illegal play, an
//! unreadable reply, a reply too late and a closed connection are each recorded as a
//! forfeit with the request and the reply, and the series goes on (reconnecting when the
//! connection is gone). Also checks the command-line output of `stargammon match`.

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::time::Duration;

use stargammon::arena::referee::{run_series, Ending, SeriesConfig, SeriesKind};
use stargammon::players::socket::TcpFactory;
use stargammon::players::{self, BuildOptions, DecideErrorKind};

/// How the fake engine misbehaves on move requests.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// Answers a play that is never legal from the opening (moving backwards).
    Illegal,
    /// Answers words.
    Garbage,
    /// Never answers.
    Silent,
    /// Closes the connection.
    Hangup,
}

/// Serves connections on a loopback port with `fault`, forever (threads end with the
/// test process).
fn fake_engine(fault: Fault) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            std::thread::spawn(move || serve(stream, fault));
        }
    });
    addr
}

fn serve(stream: TcpStream, fault: Fault) {
    let mut w = stream.try_clone().unwrap();
    let r = BufReader::new(stream);
    for line in r.lines() {
        let Ok(line) = line else { return };
        let reply = match fault {
            Fault::Illegal => "1/7 1/4".to_string(),
            Fault::Garbage => "I resign, I think".to_string(),
            Fault::Silent => {
                std::thread::sleep(Duration::from_secs(3));
                continue;
            }
            Fault::Hangup => return,
        };
        let _ = line;
        if w.write_all(format!("{reply}\n").as_bytes()).is_err() {
            return;
        }
    }
}

fn tcp(addr: String, timeout: Duration) -> TcpFactory {
    TcpFactory::gnubg(format!("tcp://{addr}"), vec![addr], timeout)
}

#[test]
fn bad_answers_forfeit_the_game_and_the_series_goes_on() {
    let good = players::factory("pubeval", BuildOptions::default()).unwrap();
    for (fault, expect) in [
        (Fault::Illegal, "illegal"),
        (Fault::Garbage, "unparseable"),
        (Fault::Silent, "timeout"),
        (Fault::Hangup, "io"),
    ] {
        let bad = tcp(fake_engine(fault), Duration::from_millis(300));
        let cfg = SeriesConfig {
            kind: SeriesKind::Money { games: 4 },
            cube: false,
            seed: 2,
            parallel: 1,
        };
        let mut seen = Vec::new();
        let summary = run_series(&cfg, &good, &bad, &mut |u| {
            for g in u.games() {
                seen.push(g.clone());
            }
        })
        .unwrap();
        assert_eq!(summary.tally.games, 4, "{fault:?}");
        // The bad engine forfeits every game in which it had a real choice to make.
        assert!(
            summary.tally.forfeits_b >= 1,
            "{fault:?}: {:?}",
            summary.tally
        );
        assert_eq!(summary.tally.forfeits_a, 0);
        for g in &seen {
            if g.record.ending == Ending::Forfeit {
                assert_ne!(
                    g.record.winner,
                    1 - g.a_seat,
                    "{fault:?}: B forfeited but won"
                );
                let f = g.record.forfeit.as_ref().unwrap();
                assert!(f.request.starts_with("board:"), "{f}");
                let kind = match &f.kind {
                    DecideErrorKind::Illegal(_) => "illegal",
                    DecideErrorKind::Unparseable(_) => "unparseable",
                    DecideErrorKind::Timeout => "timeout",
                    DecideErrorKind::Io(_) => "io",
                    DecideErrorKind::EngineError => "error",
                };
                assert_eq!(kind, expect, "{fault:?}: {f}");
                let json = g.to_json();
                assert_eq!(json["forfeit"]["side"], "b");
                assert_eq!(json["ending"], "forfeit");
            }
        }
    }
}

#[test]
fn the_match_command_prints_one_json_object() {
    let out = Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args([
            "match",
            "--a",
            "engine:config/throughput.toml",
            "--b",
            "pubeval",
            "--games",
            "6",
            "--seed",
            "9",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["games"], 6);
    assert_eq!(v["forfeits"]["a"], 0);
    assert_eq!(v["forfeits"]["b"], 0);
    for key in ["ppg", "ci95", "a_wins", "gammons_a", "gammons_b", "seconds"] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }

    let bad = Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args(["match", "--a", "engine", "--b", "nonsense", "--games", "2"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&bad.stderr).lines().count(), 1);
}

/// `--a-cube` gives A's cube decisions to another engine: the match runs, its JSON and
/// command name that engine, and without the cube the flag is refused in one line.
#[test]
fn a_side_may_take_its_cube_decisions_from_another_engine() {
    let run = |extra: &[&str]| {
        let mut args = vec!["match", "--a", "net", "--b", "net", "--seed", "4", "--json"];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_stargammon"))
            .args(&args)
            .output()
            .unwrap()
    };
    let out = run(&[
        "--length",
        "3",
        "--matches",
        "4",
        "--a-cube",
        "net,cube_noise=0.3",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["matches"], 4);
    assert_eq!(v["a_cube"], "net,cube_noise=0.3");
    assert!(v["b_cube"].is_null());
    assert_eq!(v["forfeits"]["a"], 0);
    let command = v["command"].as_str().unwrap();
    assert!(command.contains("--a-cube net,cube_noise=0.3"), "{command}");

    let money = run(&["--games", "2", "--b-cube", "net"]);
    assert_eq!(money.status.code(), Some(2));
    let err = String::from_utf8_lossy(&money.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--b-cube needs the cube"), "{err}");
}

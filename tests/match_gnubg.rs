//! The match runner against GNU Backgammon's own `external` server (docs/protocols.md,
//! "Engines over TCP in duels and matches"): every request the referee writes must be a
//! board gnubg understands and every answer gnubg gives must be read as the play gnubg
//! meant, so a series between engines served by gnubg ends with zero forfeits. gnubg is an
//! independent implementation, so this checks the board writer, the reply reader and the
//! referee's rules against it.
//!
//! gnubg must be installed (`/usr/games/gnubg`): its absence fails the tests unless
//! `STARGAMMON_SKIP_GNUBG=1` skips them (see `common::gnubg_or_skip`).

#![allow(clippy::unwrap_used)]

mod common;

use common::{gnubg_command, gnubg_or_skip};
use std::io::Write;
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use stargammon::arena::referee::{run_series, SeriesConfig, SeriesKind, UnitResult};
use stargammon::players::socket::TcpFactory;
use stargammon::players::{self, BuildOptions};

/// A gnubg `external` server on a free loopback port, stopped on drop.
#[derive(Debug)]
pub struct GnubgServer {
    child: Child,
    pub addr: String,
}

impl GnubgServer {
    pub fn start() -> GnubgServer {
        // Find a free port, then let gnubg bind it.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = gnubg_command()
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let cmds = format!(
            "set evaluation chequerplay evaluation plies 0\n\
             set evaluation cubedecision evaluation plies 0\n\
             set jacoby off\nset beavers 0\n\
             external 127.0.0.1:{port}\n"
        );
        // Keep stdin open (held in the child) so gnubg keeps serving.
        child
            .stdin
            .as_mut()
            .unwrap()
            .write_all(cmds.as_bytes())
            .unwrap();
        let addr = format!("127.0.0.1:{port}");
        let start = Instant::now();
        loop {
            // A probe connection is accepted and closed; gnubg then listens again.
            if TcpStream::connect(&addr).is_ok() {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "gnubg did not start listening on {addr}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(100));
        GnubgServer { child, addr }
    }
}

impl Drop for GnubgServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn factory(server: &GnubgServer, name: &str) -> TcpFactory {
    TcpFactory::gnubg(
        format!("{name}:tcp://{}", server.addr),
        vec![server.addr.clone()],
        Duration::from_secs(20),
    )
}

fn forfeit_report(units: &[String]) -> String {
    units.join("\n")
}

#[test]
fn gnubg_against_gnubg_through_the_referee_has_no_forfeits() {
    if gnubg_or_skip("gnubg_against_gnubg_through_the_referee_has_no_forfeits").is_none() {
        return;
    }
    let a = GnubgServer::start();
    let b = GnubgServer::start();
    let fa = factory(&a, "gnubgA");
    let fb = factory(&b, "gnubgB");

    // Ten cubeless money games.
    let cfg = SeriesConfig {
        kind: SeriesKind::Money { games: 10 },
        cube: false,
        seed: 17,
        parallel: 1,
    };
    let mut forfeits = Vec::new();
    let summary = run_series(&cfg, &fa, &fb, &mut |u| {
        for g in u.games() {
            if let Some(f) = &g.record.forfeit {
                forfeits.push(format!("game {}: {f}", g.index));
            }
        }
    })
    .unwrap();
    assert_eq!(summary.tally.games, 10);
    assert!(forfeits.is_empty(), "{}", forfeit_report(&forfeits));
    assert_eq!(summary.tally.forfeits_a + summary.tally.forfeits_b, 0);
    // Same engine, mirrored dice, deterministic 0-ply: each pair cancels.
    assert_eq!(summary.tally.ppg(), 0.0, "{:?}", summary.tally);

    // One 5-point match with the cube: doubles, takes/drops and the Crawford rule.
    let cfg = SeriesConfig {
        kind: SeriesKind::Matches {
            length: 5,
            matches: 1,
        },
        cube: true,
        seed: 4,
        parallel: 1,
    };
    let mut cube_actions = 0;
    let mut records = Vec::new();
    let summary = run_series(&cfg, &fa, &fb, &mut |u| {
        for g in u.games() {
            if let Some(f) = &g.record.forfeit {
                forfeits.push(format!("match game {}: {f}", g.index));
            }
            cube_actions += g
                .record
                .events
                .iter()
                .filter(|e| !matches!(e, stargammon::arena::referee::Event::Move { .. }))
                .count();
        }
        if let UnitResult::Match { record, .. } = u {
            records.push(record.clone());
        }
    })
    .unwrap();
    assert!(forfeits.is_empty(), "{}", forfeit_report(&forfeits));
    assert_eq!(summary.tally.matches, 1);
    let m = &records[0];
    assert!(m.score[m.winner] >= 5);
    eprintln!(
        "5-point match: score {:?} in {} games, {} cube actions",
        m.score,
        m.games.len(),
        cube_actions
    );
}

#[test]
fn the_engine_against_gnubg_has_no_forfeits() {
    if gnubg_or_skip("the_engine_against_gnubg_has_no_forfeits").is_none() {
        return;
    }
    let g = GnubgServer::start();
    let gnubg = factory(&g, "gnubg");
    let engine =
        players::factory("engine:config/throughput.toml", BuildOptions { cube: true }).unwrap();
    let mut forfeits = Vec::new();
    for (kind, cube) in [
        (SeriesKind::Money { games: 10 }, false),
        (
            SeriesKind::Matches {
                length: 3,
                matches: 1,
            },
            true,
        ),
    ] {
        let cfg = SeriesConfig {
            kind,
            cube,
            seed: 8,
            parallel: 1,
        };
        let summary = run_series(&cfg, &engine, &gnubg, &mut |u| {
            for g in u.games() {
                if let Some(f) = &g.record.forfeit {
                    forfeits.push(format!("game {}: {f}", g.index));
                }
            }
        })
        .unwrap();
        assert!(summary.tally.games >= 1);
        eprintln!(
            "engine vs gnubg 0-ply, {kind:?}: ppg {:+.3} over {} games",
            summary.tally.ppg(),
            summary.tally.games
        );
    }
    assert!(forfeits.is_empty(), "{}", forfeit_report(&forfeits));
}

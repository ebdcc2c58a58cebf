//! Luck-adjusted (variance-reduced) duels and refereed series: the plain figures do not
//! change, the adjusted ones are unbiased by construction and cancel exactly where the
//! plain ones do, and the command line reports both.
#![allow(clippy::unwrap_used)]

mod common;

use common::{json_of, stargammon};
use stargammon::arena::luck::judge;
use stargammon::arena::referee::{run_series, run_series_judged, SeriesConfig, SeriesKind};
use stargammon::arena::{duel, DuelConfig};
use stargammon::players::{factory, BuildOptions};

fn config(games: u64, threads: usize, judged: bool) -> DuelConfig {
    DuelConfig {
        games,
        seed: 21,
        threads,
        progress: false,
        judge: judged.then(|| judge("net").unwrap()),
    }
}

#[test]
fn a_judged_duel_keeps_the_plain_figures_and_adds_adjusted_ones() {
    let a = factory("net", BuildOptions::default()).unwrap();
    let b = factory("pubeval", BuildOptions::default()).unwrap();
    let plain = duel(&a, &b, &config(60, 2, false));
    let judged = duel(&a, &b, &config(60, 2, true));
    assert!(plain.adjusted.is_none());
    let adj = judged.adjusted.clone().unwrap();
    // Same games, same plain result.
    assert_eq!(
        (plain.ppg, plain.ci95, plain.a_wins, plain.gammons_a),
        (judged.ppg, judged.ci95, judged.a_wins, judged.gammons_a)
    );
    // Luck explains much of a game's result: the adjusted interval is narrower, and the
    // adjusted mean lies inside the plain interval.
    assert!(adj.variance_ratio > 1.5, "{adj:?}");
    assert!(adj.ci95 < plain.ci95, "{adj:?}");
    assert!(
        (adj.mean - plain.ppg).abs() < plain.ci95,
        "{adj:?} {plain:?}"
    );
    assert!(adj.needed_adjusted < adj.needed_plain);
    assert_eq!(adj.judge, "net");
    // The same figures on one thread.
    let one = duel(&a, &b, &config(60, 1, true));
    assert_eq!(one.adjusted.unwrap(), adj);
}

#[test]
fn identical_players_cancel_exactly_after_adjustment_too() {
    // Mirrored dice and one deterministic player: the second game of a pair replays the
    // first with the seats exchanged, so the luck of each seat cancels as the points do.
    let p = factory("pubeval", BuildOptions::default()).unwrap();
    let r = duel(&p, &p, &config(20, 2, true));
    assert_eq!(r.ppg, 0.0);
    let adj = r.adjusted.unwrap();
    assert!(adj.mean.abs() < 1e-12, "{adj:?}");
    assert!(adj.ci95.abs() < 1e-12, "{adj:?}");
}

#[test]
fn refereed_series_measure_luck_in_points_and_in_match_winning_chance() {
    let a = factory("net", BuildOptions { cube: true }).unwrap();
    let b = factory("pipsigmoid", BuildOptions { cube: true }).unwrap();
    let j = judge("net").unwrap();
    // Money with the cube: the judged series plays the same games as the plain one.
    let cfg = SeriesConfig {
        kind: SeriesKind::Money { games: 16 },
        cube: true,
        seed: 3,
        parallel: 2,
    };
    let plain = run_series(&cfg, &a, &b, &mut |_| {}).unwrap();
    let mut lucks = Vec::new();
    let judged = run_series_judged(&cfg, &a, &b, Some(&j), &mut |u| {
        for g in u.games() {
            lucks.push(g.luck.unwrap());
        }
    })
    .unwrap();
    assert_eq!(plain.tally.sum, judged.tally.sum);
    assert_eq!(plain.tally.games, judged.tally.games);
    assert_eq!(lucks.len(), 16);
    let (mean, ci) = judged.tally.adjusted().unwrap();
    let total_luck: f64 = lucks.iter().sum();
    assert!((mean - (judged.tally.sum - total_luck) / 16.0).abs() < 1e-9);
    assert!(ci.is_finite());
    assert!(plain.tally.adjusted().is_none());
    // Matches: one adjusted sample per match, in match wins.
    let cfg = SeriesConfig {
        kind: SeriesKind::Matches {
            length: 3,
            matches: 4,
        },
        cube: true,
        seed: 5,
        parallel: 2,
    };
    let m = run_series_judged(&cfg, &a, &b, Some(&j), &mut |u| {
        for g in u.games() {
            // A game's luck in match-winning chance is at most a match either way.
            assert!(g.luck.unwrap().abs() <= 2.0);
        }
    })
    .unwrap();
    assert_eq!(m.tally.adjusted_matches.n, 4);
    assert!(m.tally.adjusted_matches.mean().is_finite());
}

#[test]
fn the_command_line_reports_plain_and_adjusted_results() {
    let out = stargammon(&[
        "duel", "--a", "net", "--b", "pubeval", "--games", "8", "--seed", "2", "--vr", "--json",
    ]);
    let v = json_of(&out);
    for key in [
        "ppg",
        "ci95",
        "adjusted_ppg",
        "adjusted_ci95",
        "variance_ratio",
        "judge",
        "games_needed",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["judge"], "net");
    assert_eq!(v["games_needed"]["ci95"], 0.02);
    assert!(v["command"].as_str().unwrap().contains("--vr --judge net"));
    let out = stargammon(&[
        "match", "--a", "net", "--b", "pubeval", "--games", "4", "--seed", "2", "--vr", "--json",
    ]);
    let v = json_of(&out);
    assert!(v["adjusted_ppg"].is_number(), "{v}");
    assert!(v["adjusted_ci95"].is_number(), "{v}");
    // A judge must value positions at depth 1; a bad one is a one-line error, status 2.
    for judge in ["pubeval", "net,depth=3", "nonsense"] {
        let out = stargammon(&[
            "duel", "--a", "net", "--b", "pubeval", "--games", "4", "--vr", "--judge", judge,
        ]);
        assert_eq!(out.status.code(), Some(2), "{judge}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--judge"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // --judge without --vr is refused.
    let out = stargammon(&[
        "duel", "--a", "net", "--b", "pubeval", "--games", "4", "--judge", "net",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

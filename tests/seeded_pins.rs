//! Seeded results pinned to the exact score: duels, a match with the cube and a rollout.
//!
//! Every figure in docs/BENCHMARKS.md made with a seed repeats only if the dice, the
//! players' choices and the statistics repeat bit for bit. Randomness comes from
//! src/game/rng.rs (rand_xoshiro's value-stable generator under our own samplers), so an
//! ordinary dependency upgrade does not move these numbers; a change that does (to the
//! generator, the nets, move generation or a player) must re-measure the seeded figures with
//! scripts/seeded_figures.sh and update the pins here together.

#![allow(clippy::unwrap_used)]

mod common;

use common::{json_of, stargammon};

/// The TD-trained nets, named by file so that these pins (and the figures of
/// docs/BENCHMARKS.md measured with them) do not move when other nets are shipped.
const TD: &str = "net:weights/td.sgnet";

fn run(args: &[&str]) -> serde_json::Value {
    json_of(&stargammon(args))
}

fn int(v: &serde_json::Value, key: &str) -> i64 {
    v[key]
        .as_i64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

fn num(v: &serde_json::Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

#[test]
fn net_against_pubeval_on_seed_2_on_any_thread_count() {
    for threads in ["1", "2"] {
        let v = run(&[
            "duel",
            "--a",
            TD,
            "--b",
            "pubeval",
            "--games",
            "400",
            "--seed",
            "2",
            "--threads",
            threads,
            "--json",
        ]);
        let got = (
            int(&v, "a_wins"),
            int(&v, "gammons_a"),
            int(&v, "gammons_b"),
            int(&v, "backgammons_a"),
            int(&v, "backgammons_b"),
        );
        assert_eq!(got, (272, 89, 26, 5, 1), "threads {threads}: {v}");
        assert_eq!(num(&v, "ppg"), 0.5275);
    }
}

#[test]
fn net_against_random_on_seed_1() {
    let v = run(&[
        "duel", "--a", TD, "--b", "random", "--games", "100", "--seed", "1", "--json",
    ]);
    assert_eq!(
        (
            int(&v, "a_wins"),
            int(&v, "gammons_a"),
            int(&v, "backgammons_a")
        ),
        (100, 94, 64),
        "{v}"
    );
    assert_eq!(num(&v, "ppg"), 2.58);
}

#[test]
fn depth_three_search_against_the_net_on_seed_800() {
    let v = run(&[
        "duel",
        "--a",
        "net:weights/td.sgnet,depth=3",
        "--b",
        TD,
        "--games",
        "20",
        "--seed",
        "800",
        "--json",
    ]);
    assert_eq!(
        (
            int(&v, "a_wins"),
            int(&v, "gammons_a"),
            int(&v, "gammons_b")
        ),
        (9, 1, 2),
        "{v}"
    );
    assert_eq!(num(&v, "ppg"), -0.15);
}

/// The engine of `config/throughput.toml` plays the shipped nets: this pin moves when
/// other nets are shipped.
#[test]
fn five_point_matches_with_the_cube_on_seed_3() {
    let v = run(&[
        "match",
        "--a",
        "engine:config/throughput.toml",
        "--b",
        TD,
        "--length",
        "5",
        "--matches",
        "6",
        "--seed",
        "3",
        "--json",
    ]);
    assert_eq!(
        (
            int(&v, "match_wins_a"),
            int(&v, "games"),
            int(&v, "a_wins"),
            int(&v, "gammons_a"),
            int(&v, "gammons_b")
        ),
        (5, 23, 17, 3, 2),
        "{v}"
    );
}

#[test]
fn truncated_rollout_on_seed_1_on_any_thread_count() {
    for threads in ["1", "2"] {
        let v = run(&[
            "rollout",
            "4HPwATDgc/ABMA",
            "--eval",
            TD,
            "--trials",
            "72",
            "--truncate",
            "6",
            "--seed",
            "1",
            "--threads",
            threads,
            "--json",
        ]);
        assert_eq!(
            (num(&v, "equity"), num(&v, "se")),
            (0.079802, 0.004503),
            "{v}"
        );
        assert_eq!(num(&v["raw"], "equity"), 0.114427, "{v}");
    }
}

//! Rollouts: stratified dice, determinism across threads, variance reduction, exact cases,
//! plays on common dice, and the `stargammon rollout` command line.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use stargammon::engine::build as engine_build;
use stargammon::engine::{Depth, EngineSpec, EvaluatorKind};
use stargammon::eval::{Evaluator, Probabilities};
use stargammon::game::{legal_plays, Dice, Position, ALL_ROLLS};
use stargammon::notation::position_id;
use stargammon::rollout::{Hooks, Rollout, RolloutError, RolloutSettings, Strata, STRATA};

fn spec(kind: EvaluatorKind) -> EngineSpec {
    EngineSpec {
        tt_megabytes: 1,
        ..EngineSpec::of(kind)
    }
}

fn pip() -> Rollout {
    Rollout::new(&spec(EvaluatorKind::PipSigmoid)).unwrap()
}

fn settings(trials: u64, truncate: Option<u32>, vr: bool, threads: usize) -> RolloutSettings {
    RolloutSettings {
        trials,
        seed: 7,
        truncate,
        variance_reduction: vr,
        threads,
    }
}

/// `[w, wg, wbg, lg, lbg, equity]` of probabilities, in f64.
fn value(p: &Probabilities) -> [f64; 6] {
    let v = p.0.map(f64::from);
    let e = 2.0 * v[0] - 1.0 + v[1] - v[3] + v[2] - v[4];
    [v[0], v[1], v[2], v[3], v[4], e]
}

/// The value for the mover after the evaluator's best play of `dice` (the first of equals),
/// and the position after it (opponent to act).
fn best(ev: &dyn Evaluator, pos: &Position, dice: Dice) -> ([f64; 6], Position) {
    let mut best: Option<([f64; 6], Position)> = None;
    for play in legal_plays(pos, dice) {
        let v = match play.position.mover_result() {
            Some(r) => value(&Probabilities::from_result(r, true)),
            None => invert(value(&ev.evaluate(&play.next_position()))),
        };
        if best.is_none_or(|b| v[5] > b.0[5]) {
            best = Some((v, play.next_position()));
        }
    }
    best.unwrap()
}

fn best_after(ev: &dyn Evaluator, pos: &Position, dice: Dice) -> [f64; 6] {
    best(ev, pos, dice).0
}

fn invert(v: [f64; 6]) -> [f64; 6] {
    [1.0 - v[0], v[3], v[4], v[1], v[2], -v[5]]
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn stratification_covers_every_pair_of_first_rolls_once() {
    for seed in [1, 2, 99] {
        let s = Strata::new(seed);
        let pairs: HashSet<_> = (0..STRATA).map(|i| s.first_rolls(i)).collect();
        assert_eq!(pairs.len(), 36 * 36, "seed {seed}");
    }
    // Through the rollout itself: 1,296 trials truncated after two plies, without variance
    // reduction, are the exact two-ply average over the 36 x 36 ordered rolls.
    let ev = engine_build::evaluator(&EvaluatorKind::PipSigmoid).unwrap();
    let pos = Position::OPENING;
    let r = pip()
        .position(&pos, &settings(STRATA, Some(2), false, 2), Hooks::none())
        .unwrap();
    assert_eq!(r.trials, STRATA);
    let mut exact = [0.0; 6];
    for a in 1..=6u8 {
        for b in 1..=6u8 {
            let first = Dice::new(a, b).unwrap();
            let play = best_play(ev.as_ref(), &pos, first);
            for c in 1..=6u8 {
                for d in 1..=6u8 {
                    let reply = best_after(ev.as_ref(), &play, Dice::new(c, d).unwrap());
                    for (e, v) in exact.iter_mut().zip(invert(reply)) {
                        *e += v / 1296.0;
                    }
                }
            }
        }
    }
    assert!(
        close(&r.estimate.mean, &exact, 1e-9),
        "{:?} vs {exact:?}",
        r.estimate.mean
    );
}

/// The position after the evaluator's best play (opponent to act).
fn best_play(ev: &dyn Evaluator, pos: &Position, dice: Dice) -> Position {
    best(ev, pos, dice).1
}

#[test]
fn same_seed_same_numbers_on_any_thread_count() {
    let r = pip();
    let pos = Position::OPENING;
    let one = r
        .position(&pos, &settings(60, Some(12), true, 1), Hooks::none())
        .unwrap();
    let two = r
        .position(&pos, &settings(60, Some(12), true, 2), Hooks::none())
        .unwrap();
    assert_eq!(one.estimate, two.estimate);
    assert_eq!(one.raw, two.raw);
    let other = r
        .position(
            &pos,
            &RolloutSettings {
                seed: 8,
                ..settings(60, Some(12), true, 2)
            },
            Hooks::none(),
        )
        .unwrap();
    assert_ne!(one.estimate.mean, other.estimate.mean);
    // Plays too, and with a searching player.
    let deep = Rollout::new(&EngineSpec {
        depth: Depth::new(3).unwrap(),
        ..spec(EvaluatorKind::PipSigmoid)
    })
    .unwrap();
    let d = Dice::new(4, 2).unwrap();
    let a = deep
        .plays(&pos, d, 2, &settings(6, Some(3), true, 1), Hooks::none())
        .unwrap();
    let b = deep
        .plays(&pos, d, 2, &settings(6, Some(3), true, 2), Hooks::none())
        .unwrap();
    assert_eq!(a.trials, b.trials);
    assert_eq!(a.plays, b.plays);
}

/// On the integer nets too (whose sums each thread carries from one position to the
/// next, and whose first plies each thread remembers across its trials), with and without
/// variance reduction: the same numbers on one, two and three threads.
#[test]
fn integer_nets_give_the_same_numbers_on_any_thread_count() {
    let spec: EngineSpec = "net,precision=int16".parse().unwrap();
    let r = Rollout::new(&spec).unwrap();
    let pos = Position::OPENING;
    for (vr, trials, truncate) in [(false, 180, None), (true, 40, Some(16))] {
        let runs: Vec<_> = [1, 2, 3]
            .iter()
            .map(|&threads| {
                r.position(
                    &pos,
                    &settings(trials, truncate, vr, threads),
                    Hooks::none(),
                )
                .unwrap()
            })
            .collect();
        for other in &runs[1..] {
            assert_eq!(runs[0].estimate, other.estimate, "vr {vr}");
            assert_eq!(runs[0].raw, other.raw, "vr {vr}");
        }
    }
}

#[test]
fn variance_reduction_shrinks_the_error_and_agrees() {
    let r = Rollout::new(&spec(EvaluatorKind::Net(None))).unwrap();
    let pos = Position::OPENING;
    let vr = r
        .position(&pos, &settings(144, Some(6), true, 2), Hooks::none())
        .unwrap();
    let plain = r
        .position(&pos, &settings(144, Some(6), false, 2), Hooks::none())
        .unwrap();
    // The same trials: the plain average of the reduced run is the run without it.
    assert_eq!(vr.raw, plain.estimate);
    let (se_vr, se_plain) = (vr.estimate.equity_se(), plain.estimate.equity_se());
    assert!(
        se_vr < 0.5 * se_plain,
        "se {se_vr} with, {se_plain} without"
    );
    let gap = (vr.estimate.equity() - plain.estimate.equity()).abs();
    assert!(
        gap < 4.0 * (se_vr * se_vr + se_plain * se_plain).sqrt(),
        "{} vs {}",
        vr.estimate.equity(),
        plain.estimate.equity()
    );
    for i in 0..5 {
        assert!(
            vr.estimate.se[i] <= plain.estimate.se[i] + 1e-12,
            "component {i}"
        );
    }
}

#[test]
fn a_sure_gammon_is_exactly_two_points() {
    // One checker left on the 1-point; the opponent has borne off nothing.
    let mut slots = [0i8; 26];
    slots[1] = 1;
    slots[24] = -15;
    let pos = Position::from_slots(slots).unwrap();
    for vr in [true, false] {
        let r = pip()
            .position(&pos, &settings(40, None, vr, 2), Hooks::none())
            .unwrap();
        assert_eq!(r.estimate.equity(), 2.0);
        assert_eq!(r.estimate.probs(), [1.0, 1.0, 0.0, 0.0, 0.0]);
        assert_eq!(r.estimate.se, [0.0; 6]);
    }
}

#[test]
fn one_ply_truncation_is_the_average_after_the_best_play() {
    let ev = engine_build::evaluator(&EvaluatorKind::Net(None)).unwrap();
    // After the opening 6-2 played 13/5, the opponent on roll.
    let mut slots = *Position::OPENING.slots();
    slots[13] -= 1;
    slots[5] += 1;
    let pos = Position::from_slots(slots).unwrap().swap();
    let mut exact = [0.0; 6];
    for d in ALL_ROLLS {
        let v = best_after(ev.as_ref(), &pos, d);
        for (e, x) in exact.iter_mut().zip(v) {
            *e += d.probability() * x;
        }
    }
    let r = Rollout::new(&spec(EvaluatorKind::Net(None))).unwrap();
    // With variance reduction every trial is that average, whatever the trial count.
    let vr = r
        .position(&pos, &settings(5, Some(1), true, 2), Hooks::none())
        .unwrap();
    assert!(
        close(&vr.estimate.mean, &exact, 1e-6),
        "{:?} vs {exact:?}",
        vr.estimate.mean
    );
    assert!(vr.estimate.equity_se() < 1e-9);
    // Without it, 36 stratified trials hold each ordered roll once.
    let plain = r
        .position(&pos, &settings(36, Some(1), false, 2), Hooks::none())
        .unwrap();
    assert!(close(&plain.estimate.mean, &exact, 1e-6));
    assert!(plain.estimate.equity_se() > 0.0);
}

#[test]
fn plays_are_legal_best_first_and_share_their_dice() {
    let ev = engine_build::evaluator(&EvaluatorKind::Net(None)).unwrap();
    let pos = Position::OPENING;
    let dice = Dice::new(3, 1).unwrap();
    let s = settings(30, Some(1), false, 2);
    let r = Rollout::new(&spec(EvaluatorKind::Net(None)))
        .unwrap()
        .plays(&pos, dice, 4, &s, Hooks::none())
        .unwrap();
    assert_eq!(r.trials, 30);
    assert_eq!(r.plays.len(), 4);
    let legal: HashSet<Position> = legal_plays(&pos, dice).iter().map(|p| p.position).collect();
    let strata = Strata::new(s.seed);
    for w in r.plays.windows(2) {
        assert!(w[0].estimate.equity() >= w[1].estimate.equity());
    }
    for p in &r.plays {
        assert!(legal.contains(&p.play.position));
        // Trial i of every play answers with trial i's first roll.
        let mut mean = [0.0; 6];
        for i in 0..30 {
            let (a, b) = strata.first_rolls(i)[0];
            let reply = best_after(
                ev.as_ref(),
                &p.play.next_position(),
                Dice::new(a, b).unwrap(),
            );
            for (m, v) in mean.iter_mut().zip(invert(reply)) {
                *m += v / 30.0;
            }
        }
        assert!(close(&p.estimate.mean, &mean, 1e-6), "{:?}", p.play);
    }
    assert_eq!(r.plays[0].diff, 0.0);
    // Common dice: the difference is known better than either play.
    let second = &r.plays[1];
    assert!(second.diff <= 0.0);
    assert!(second.diff_se < second.estimate.equity_se());
}

#[test]
fn a_raised_stop_flag_returns_a_partial_rollout() {
    let stop = AtomicBool::new(false);
    let progress = |n: u64| {
        if n >= 3 {
            stop.store(true, Ordering::Relaxed);
        }
    };
    let r = pip()
        .position(
            &Position::OPENING,
            &settings(100_000, None, true, 2),
            Hooks {
                stop: &stop,
                progress: &progress,
            },
        )
        .unwrap();
    assert!(r.partial);
    assert!(r.trials >= 3 && r.trials < 100_000, "{}", r.trials);
}

/// Two checkers on the bar against a closed board: no roll has a legal play.
fn closed_out() -> Position {
    let mut slots = [0i8; 26];
    slots[25] = 2;
    slots[6] = 13;
    for p in 19..=24 {
        slots[p] = -2;
    }
    slots[12] = -3;
    Position::from_slots(slots).unwrap()
}

#[test]
fn refused_rollouts() {
    let r = pip();
    let pos = Position::OPENING;
    let e = r
        .plays(
            &closed_out(),
            Dice::new(6, 6).unwrap(),
            5,
            &settings(10, None, true, 1),
            Hooks::none(),
        )
        .unwrap_err();
    assert!(matches!(e, RolloutError::NoLegalPlay(_)), "{e}");
    let e = r
        .position(&pos, &settings(0, None, true, 1), Hooks::none())
        .unwrap_err();
    assert_eq!(e, RolloutError::NoTrials);
    let e = r
        .position(&pos, &settings(10, Some(0), false, 1), Hooks::none())
        .unwrap_err();
    assert_eq!(e, RolloutError::ZeroTruncation);
    // A forced play (bar/24, the last checker against a five-point board) is rolled out
    // on its own.
    let mut slots = [0i8; 26];
    slots[25] = 1;
    for p in 19..=23 {
        slots[p] = -2;
    }
    slots[12] = -5;
    let one = Position::from_slots(slots).unwrap();
    let d = Dice::new(1, 1).unwrap();
    let single = r
        .plays(&one, d, 5, &settings(4, Some(2), true, 1), Hooks::none())
        .unwrap();
    assert_eq!(legal_plays(&one, d).len(), 1);
    assert_eq!(single.plays.len(), 1);
}

// ---- the command line ----

fn stargammon(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args(args)
        .output()
        .unwrap()
}

fn rollout_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["rollout"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--evaluator", "pipsigmoid", "--json"]);
    let out = stargammon(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn cli_json_fields_and_thread_independence() {
    let base = ["4HPwATDgc/ABMA", "--trials", "24", "--truncate", "8"];
    let with = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        rollout_json(&a)
    };
    let one = with(&["--threads", "1"]);
    for key in [
        "trials",
        "seed",
        "truncate",
        "variance_reduction",
        "partial",
        "seconds",
        "equity",
        "se",
        "probs",
    ] {
        assert!(one.get(key).is_some(), "missing {key}: {one}");
    }
    assert_eq!(one["trials"], 24);
    assert_eq!(one["truncate"], 8);
    assert_eq!(one["variance_reduction"], true);
    assert_eq!(one["partial"], false);
    assert_eq!(one["probs"].as_array().unwrap().len(), 5);
    let two = with(&["--threads", "2"]);
    for key in ["equity", "se", "probs"] {
        assert_eq!(one[key], two[key], "{key}");
    }
    let other = with(&["--threads", "2", "--seed", "2"]);
    assert_ne!(one["equity"], other["equity"]);
    let full = rollout_json(&["4HPwATDgc/ABMA", "--trials", "2", "--no-vr"]);
    assert_eq!(full["truncate"], serde_json::Value::Null);
    assert_eq!(full["variance_reduction"], false);

    let plays = with(&["--dice", "6", "5", "--top", "3"]);
    assert!(plays.get("equity").is_none());
    let list = plays["plays"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    for p in list {
        for key in ["move", "equity", "se", "probs"] {
            assert!(p.get(key).is_some(), "missing {key}: {p}");
        }
    }
    let moves: HashSet<&str> = list.iter().map(|p| p["move"].as_str().unwrap()).collect();
    assert_eq!(moves.len(), 3);
    let eq: Vec<f64> = list.iter().map(|p| p["equity"].as_f64().unwrap()).collect();
    assert!(eq.windows(2).all(|w| w[0] >= w[1]), "{eq:?}");
}

#[test]
fn cli_bad_input_is_one_line_and_status_two() {
    let closed = position_id(&closed_out());
    let cases: [&[&str]; 5] = [
        &["4HPwATDgc/ABMA", "--trials", "0"],
        &["4HPwATDgc/ABMA", "--truncate", "0", "--no-vr"],
        &[closed.as_str(), "--dice", "6", "6"],
        &["4HPwATDgc/ABMA", "--dice", "7", "1"],
        &["no-such-position"],
    ];
    for args in cases {
        let mut all = vec!["rollout"];
        all.extend_from_slice(args);
        let out = stargammon(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn cli_ctrl_c_prints_a_partial_rollout() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args([
            "rollout",
            "4HPwATDgc/ABMA",
            "--trials",
            "10000000",
            "--evaluator",
            "pipsigmoid",
            "--threads",
            "1",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command says it is rolling out once its handler is in place.
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("rolling out"), "{line}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["partial"], true);
    let trials = v["trials"].as_u64().unwrap();
    assert!(trials < 10_000_000, "{trials}");
}

//! `stargammon analyse --rollout`: every flagged decision settled by a cubeful rollout. The
//! rollout's verdict follows from its rolled-out values (checker plays, cube decisions and
//! answers, money and match play), what the analysis said stays beside it, the totals are
//! summed again, the result does not depend on the thread count or on single-file against
//! batch runs, and bad rollout arguments are one-line errors.

#![allow(clippy::unwrap_used)]

mod common;

use common::{json_of, stargammon};
use serde_json::Value;

/// A money session: a double after the opponent's opening 3-1, its pass, a double in the
/// opening position of the second game and a doubtful 2-1.
const CUBE: &str = "tests/data/analyse/cube_errors.mat";
/// A 1-point match with one blunder (13/7(2) 8/2(2) with 6-6).
const BAD_66: &str = "tests/data/analyse/bad_66.mat";

fn analyse(file: &str, extra: &[&str]) -> Value {
    let mut args = vec!["analyse", file, "--json", "--quiet"];
    args.extend_from_slice(extra);
    json_of(&stargammon(&args))
}

fn decisions(v: &Value) -> Vec<Value> {
    v["games"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["decisions"].as_array().unwrap().clone())
        .collect()
}

fn value_of(rollout: &Value, choice: &str) -> f64 {
    rollout["choices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["choice"] == choice)
        .unwrap_or_else(|| panic!("{choice} in {rollout}"))["value"]
        .as_f64()
        .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-5
}

/// The loss the rolled-out values give for decision `d` (EMG per unit of `scale`).
fn loss_from_values(d: &Value, scale: f64) -> f64 {
    let r = &d["rollout"];
    let played = d["played"].as_str().unwrap();
    match played {
        "double" | "no double" => {
            let nd = value_of(r, "no double");
            let double = value_of(r, "double, take").min(value_of(r, "double, pass"));
            let best = nd.max(double);
            let chosen = if played == "double" { double } else { nd };
            (best - chosen) * scale
        }
        "take" | "pass" => {
            let dt = value_of(r, "double, take");
            let dp = value_of(r, "double, pass");
            let chosen = if played == "take" { dt } else { dp };
            (chosen - dt.min(dp)) * scale
        }
        play => {
            let best = r["choices"][0]["value"].as_f64().unwrap();
            (best - value_of(r, play)) * scale
        }
    }
}

#[test]
fn flagged_decisions_are_settled_by_their_rollouts() {
    let plain = analyse(CUBE, &[]);
    let rolled = analyse(
        CUBE,
        &["--rollout", "--rollout-trials", "36", "--threads", "1"],
    );
    let flagged: Vec<(usize, Value)> = decisions(&plain)
        .into_iter()
        .enumerate()
        .filter(|(_, d)| d["counted"] == true && d["skill"] != "none")
        .collect();
    // The double, the pass, the second double and the 2-1.
    assert_eq!(flagged.len(), 4, "{plain}");
    let summary = &rolled["rollout"];
    assert_eq!(summary["flagged"], 4, "{summary}");
    assert_eq!(summary["rolled_out"], 4, "{summary}");
    assert_eq!(summary["trials"], 36);
    assert_eq!(summary["min_skill"], "doubtful");
    assert_eq!(summary["stopped"], false);
    let after = decisions(&rolled);
    assert_eq!(after.len(), decisions(&plain).len());
    let mut cube = 0;
    for (i, before) in &flagged {
        let d = &after[*i];
        let r = &d["rollout"];
        assert_eq!(r["trials"], 36, "{d}");
        assert_eq!(r["partial"], false);
        assert_eq!(r["value_kind"], "equity");
        // What the analysis said stays beside the rollout's verdict.
        assert_eq!(r["evaluated_best"], before["best"], "{d}");
        assert_eq!(r["evaluated_equity_lost"], before["equity_lost"], "{d}");
        assert_eq!(r["evaluated_skill"], before["skill"], "{d}");
        assert_eq!(d["played"], before["played"]);
        // The verdict follows from the rolled-out values (money: one unit per EMG).
        let lost = d["equity_lost"].as_f64().unwrap();
        assert!(
            close(lost, loss_from_values(d, 1.0).max(0.0)),
            "{lost} against the values of {d}"
        );
        assert!(r["equity_lost_se"].as_f64().unwrap() >= 0.0);
        if d["kind"] == "cube" {
            cube += 1;
            let names: Vec<&str> = r["choices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["choice"].as_str().unwrap())
                .collect();
            assert_eq!(names, ["no double", "double, take", "double, pass"]);
            // A pass costs the doubler's cube exactly.
            assert_eq!(value_of(r, "double, pass"), 1.0);
            assert_eq!(r["choices"][2]["se"], 0.0);
        } else {
            assert_eq!(r["choices"].as_array().unwrap().len(), 2, "{d}");
            assert_eq!(d["best"], r["choices"][0]["choice"]);
        }
    }
    assert_eq!(cube, 3);
    // Unflagged decisions are as the analysis scored them.
    for (i, d) in decisions(&plain).iter().enumerate() {
        if !flagged.iter().any(|(k, _)| *k == i) {
            assert_eq!(&after[i], d);
        }
    }
    // A pass of an early double stays a blunder however the dice fall.
    let pass = after.iter().find(|d| d["played"] == "pass").unwrap();
    assert_eq!(pass["skill"], "blunder", "{pass}");
    assert_eq!(pass["best"], "take");
    // The totals are summed again from the verdicts.
    for (seat, p) in rolled["players"].as_array().unwrap().iter().enumerate() {
        let name = p["name"].as_str().unwrap();
        let total: f64 = after
            .iter()
            .filter(|d| d["player"] == name && d["counted"] == true)
            .map(|d| d["equity_lost"].as_f64().unwrap())
            .sum();
        assert!(
            (p["total_error"].as_f64().unwrap() - total).abs() < 1e-4,
            "seat {seat}: {p} against {total}"
        );
    }
}

#[test]
fn match_play_losses_are_in_emg() {
    // At one point all to play, a game is the match: EMG = 2 x the match-winning chance.
    let v = analyse(
        BAD_66,
        &[
            "--rollout",
            "--rollout-trials",
            "36",
            "--rollout-skill",
            "blunder",
        ],
    );
    assert_eq!(v["rollout"]["rolled_out"], 1, "{v}");
    let d = decisions(&v)
        .into_iter()
        .find(|d| d["played"] == "13/7(2) 8/2(2)")
        .unwrap();
    assert_eq!(d["rollout"]["value_kind"], "mwc");
    let lost = d["equity_lost"].as_f64().unwrap();
    assert!(close(lost, loss_from_values(&d, 2.0).max(0.0)), "{d}");
    assert!(lost > 0.12, "a blunder by any count: {d}");
}

#[test]
fn rollouts_do_not_depend_on_threads_or_batches() {
    let one = analyse(
        CUBE,
        &[
            "--rollout",
            "--rollout-trials",
            "36",
            "--rollout-seed",
            "7",
            "--threads",
            "1",
        ],
    );
    let dir = std::env::temp_dir().join(format!("sg-analyse-rollout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(CUBE, dir.join("cube.mat")).unwrap();
    std::fs::write(dir.join("list.txt"), "cube.mat\n").unwrap();
    let out = dir.join("out.jsonl");
    let batch = stargammon(&[
        "analyse",
        "--files",
        dir.join("list.txt").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--threads",
        "2",
        "--rollout",
        "--rollout-trials",
        "36",
        "--rollout-seed",
        "7",
    ]);
    assert!(batch.status.success(), "{batch:?}");
    let line: Value = serde_json::from_str(std::fs::read_to_string(&out).unwrap().trim()).unwrap();
    assert_eq!(line["games"], one["games"]);
    assert_eq!(line["players"], one["players"]);
    assert_eq!(line["rollout"], one["rollout"]);
    assert_eq!(one["rollout"]["seed"], 7);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_rollout_arguments_are_one_line_errors() {
    for args in [
        vec!["analyse", CUBE, "--rollout", "--rollout-trials", "0"],
        vec!["analyse", CUBE, "--rollout", "--rollout-skill", "awful"],
        vec!["analyse", CUBE, "--rollout-trials", "36"],
        vec![
            "analyse",
            CUBE,
            "--rollout",
            "--rollout-engine",
            "net,depth=x",
        ],
        vec!["analyse", CUBE, "--rollout", "--rollout-engine", "n\u{e9}t"],
    ] {
        let out = stargammon(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

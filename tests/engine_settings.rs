//! One name per engine setting: `--engine SPEC` on each command that builds an engine gives
//! the result of the equivalent flags, the new names work on every surface, and each old
//! name still works with one warning naming the new one.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const POS: &str = "4HPwATDgc/ABMA";

#[test]
fn hint_engine_equals_the_flags_and_old_names_warn() {
    let base = ["hint", POS, "--dice", "3", "1", "--json"];
    let with = |extra: &[&str]| run(&[&base[..], extra].concat());
    let spec = with(&["--engine", "net,depth=3,algorithm=star1,tt_megabytes=8"]);
    let flags = with(&[
        "--engine",
        "net",
        "--depth",
        "3",
        "--algorithm",
        "star1",
        "--tt-megabytes",
        "8",
    ]);
    assert_eq!(json(&spec)["plays"], json(&flags)["plays"]);
    assert_eq!(json(&spec)["algo"], "star1");
    assert!(stderr(&spec).is_empty(), "{}", stderr(&spec));
    // The old names: the same answer, one warning each naming the new word.
    let old_spec = with(&["--engine", "net,depth=3,algo=star1,tt=8"]);
    assert_eq!(json(&old_spec)["plays"], json(&spec)["plays"]);
    let e = stderr(&old_spec);
    assert!(
        e.contains("algo= is deprecated") && e.contains("algorithm="),
        "{e}"
    );
    assert!(
        e.contains("tt= is deprecated") && e.contains("tt_megabytes="),
        "{e}"
    );
    let old_flags = with(&[
        "--engine", "net", "--depth", "3", "--algo", "star1", "--tt-mb", "8", "--eval", "net",
    ]);
    assert_eq!(json(&old_flags)["plays"], json(&spec)["plays"]);
    let e = stderr(&old_flags);
    for (old, new) in [
        ("--algo", "--algorithm"),
        ("--tt-mb", "--tt-megabytes"),
        ("--eval", "--evaluator"),
    ] {
        assert!(
            e.contains(&format!("{old} is deprecated")) && e.contains(new),
            "{e}"
        );
    }
    // Without --engine, the flags alone.
    let plain = with(&["--depth", "1"]);
    let engine = with(&["--engine", "engine", "--depth", "1", "--time-ms", "0"]);
    assert_eq!(json(&plain)["depth"], json(&engine)["depth"]);
}

#[test]
fn rollout_engine_equals_the_flags() {
    let base = [
        "rollout",
        POS,
        "--trials",
        "36",
        "--truncate",
        "4",
        "--threads",
        "2",
        "--json",
    ];
    let with = |extra: &[&str]| json(&run(&[&base[..], extra].concat()));
    let strip = |mut v: serde_json::Value| {
        v["seconds"] = serde_json::Value::Null;
        v
    };
    let spec = strip(with(&["--engine", "pipsigmoid"]));
    let flags = strip(with(&["--evaluator", "pipsigmoid"]));
    let old = strip(with(&["--eval", "pipsigmoid"]));
    assert_eq!(spec, flags);
    assert_eq!(spec, old);
    assert_eq!(spec["evaluator"], "pipsigmoid");
    let over = strip(with(&["--engine", "net", "--evaluator", "pipsigmoid"]));
    assert_eq!(over, spec);
}

#[test]
fn an_old_config_key_warns_and_reads_as_the_new_one() {
    let dir = std::env::temp_dir().join(format!("stargammon-settings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let old = dir.join("old.toml");
    std::fs::write(&old, "[engine]\ntime_budget_ms = 0\n").unwrap();
    let new = dir.join("new.toml");
    std::fs::write(&new, "[engine]\ntime_ms = 0\n").unwrap();
    let hint = |config: &std::path::Path| {
        run(&[
            "hint",
            POS,
            "--dice",
            "3",
            "1",
            "--depth",
            "1",
            "--json",
            "--engine",
            &format!("engine:{}", config.display()),
        ])
    };
    let (a, b) = (hint(&old), hint(&new));
    assert_eq!(json(&a)["plays"], json(&b)["plays"]);
    let e = stderr(&a);
    assert!(
        e.contains("engine.time_budget_ms is deprecated") && e.contains("engine.time_ms"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(stderr(&b).is_empty(), "{}", stderr(&b));
}

#[test]
fn bench_strength_takes_engine_and_its_old_name() {
    let spec = run(&[
        "bench",
        "strength",
        "--engine",
        "pubeval",
        "--threads",
        "2",
        "--json",
    ]);
    let old = run(&[
        "bench",
        "strength",
        "--player",
        "pubeval",
        "--threads",
        "2",
        "--json",
    ]);
    assert_eq!(json(&spec)["error_mppg"], json(&old)["error_mppg"]);
    assert!(
        stderr(&old).contains("--player is deprecated"),
        "{}",
        stderr(&old)
    );
    assert!(json(&spec)["command"]
        .as_str()
        .is_some_and(|c| c.contains("--engine pubeval")));
}

//! The trainer resumes exactly: stopping and resuming gives the same weights as an
//! uninterrupted run, and the thread count does not change the result.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

mod common;

use stargammon::eval::encoding::{Encoding, INPUTS};
use stargammon::eval::inputs_v2::INPUTS_V2;
use stargammon::eval::NetSet;
use stargammon::train::{ScheduleStep, StopReason, TrainConfig, Trainer};

fn config(dir: PathBuf, threads: usize, max_games: u64) -> TrainConfig {
    TrainConfig {
        name: "tiny".into(),
        run_dir: dir,
        seed: 42,
        threads,
        games_per_round: 3,
        contact_hidden: 8,
        contact_encoding: 1,
        race_hidden: 4,
        init_scale: 0.1,
        init_weights: None,
        max_games,
        max_minutes: 0.0,
        checkpoint_minutes: 10.0,
        bench_every: 6,
        bench_games: 4,
        bench_seed: 1,
        schedule: vec![
            ScheduleStep {
                until: 6,
                alpha: 0.1,
                lambda: 0.7,
            },
            ScheduleStep {
                until: 100,
                alpha: 0.05,
                lambda: 0.0,
            },
        ],
    }
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sg-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn resume_matches_an_uninterrupted_run() {
    let stop = AtomicBool::new(false);
    let d1 = temp("whole");
    let mut whole = Trainer::create(config(d1.clone(), 2, 12)).unwrap();
    assert_eq!(whole.run(&stop, false).unwrap(), StopReason::MaxGames);
    assert_eq!(whole.state.games, 12);

    let d2 = temp("split");
    let mut first = Trainer::create(config(d2.clone(), 2, 12)).unwrap();
    first.config.max_games = 6;
    first.run(&stop, false).unwrap();
    assert_eq!(first.state.games, 6);
    drop(first);
    let mut second = Trainer::resume(&d2, None).unwrap();
    assert_eq!(second.state.games, 6);
    second.run(&stop, false).unwrap();
    assert_eq!(second.state.games, 12);
    assert_eq!(second.nets, whole.nets, "identical weights");

    // A fresh load of the final checkpoint holds the same nets.
    let reloaded = Trainer::resume(&d2, None).unwrap();
    assert_eq!(reloaded.nets, whole.nets);
    // The learning curve has one row per benchmark, none repeated.
    let csv = std::fs::read_to_string(d2.join("curve.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 3, "{csv}");
    assert!(d2.join("curve.svg").exists());
    assert!(d2.join("best.sgnet").exists());

    // One thread gives the same weights as two.
    let d3 = temp("one-thread");
    let mut single = Trainer::create(config(d3.clone(), 1, 12)).unwrap();
    single.run(&stop, false).unwrap();
    assert_eq!(single.nets, whole.nets);

    for d in [d1, d2, d3] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_set_stop_flag_checkpoints_and_stops() {
    let d = temp("stop");
    let mut t = Trainer::create(config(d.clone(), 1, 100)).unwrap();
    let stop = AtomicBool::new(true);
    assert_eq!(t.run(&stop, false).unwrap(), StopReason::Signal);
    let again = Trainer::resume(&d, None).unwrap();
    assert_eq!(again.state.games, 0);
    assert!(
        Trainer::create(config(d.clone(), 1, 100)).is_err(),
        "no overwrite"
    );
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn bad_configs_are_refused() {
    let mut c = config(temp("bad"), 1, 10);
    c.schedule.clear();
    assert!(c.check().is_err());
    let mut c = config(temp("bad"), 0, 10);
    assert!(c.check().is_err());
    c.threads = 1;
    c.schedule[1].until = 3;
    assert!(c.check().is_err(), "until must increase");
    let text = std::fs::read_to_string("config/train.toml").unwrap();
    let shipped: TrainConfig = toml::from_str(&text).unwrap();
    shipped.check().unwrap();
}

fn v2_config(dir: PathBuf, max_games: u64) -> TrainConfig {
    let mut c = config(dir, 2, max_games);
    c.contact_encoding = 2;
    c
}

#[test]
fn an_encoding_2_run_trains_resumes_exactly_and_keeps_its_encoding() {
    let stop = AtomicBool::new(false);
    let d1 = temp("v2-whole");
    let mut whole = Trainer::create(v2_config(d1.clone(), 12)).unwrap();
    assert_eq!(whole.nets.encoding, Encoding::V2);
    assert_eq!(whole.nets.contact.inputs(), INPUTS_V2);
    assert_eq!(whole.nets.race.inputs(), INPUTS);
    whole.run(&stop, false).unwrap();

    let d2 = temp("v2-split");
    let mut first = Trainer::create(v2_config(d2.clone(), 6)).unwrap();
    first.run(&stop, false).unwrap();
    drop(first);
    // Resuming with no config, and with a config that leaves the encoding out (1): the
    // second is refused, the run keeps encoding 2.
    let mut no_key = v2_config(d2.clone(), 12);
    no_key.contact_encoding = 1;
    let e = Trainer::resume(&d2, Some(no_key)).unwrap_err();
    assert!(e.to_string().contains("keeps its contact encoding"), "{e}");
    let mut second = Trainer::resume(&d2, None).unwrap();
    second.config.max_games = 12;
    second.run(&stop, false).unwrap();
    assert_eq!(second.nets, whole.nets, "identical weights");
    assert_eq!(second.nets.encoding, Encoding::V2);
    let best = NetSet::load(&d2.join("best.sgnet")).unwrap();
    assert_eq!(best.encoding, Encoding::V2);
    for d in [d1, d2] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn configs_without_the_encoding_key_mean_encoding_1() {
    // The TD run's config (the run behind weights/td.sgnet; its checkpoint is in git
    // history) predates the key, so it resumes as encoding 1.
    let stored = TrainConfig::load(std::path::Path::new("weights/td-main/config.toml")).unwrap();
    assert_eq!(stored.contact_encoding, 1);
    assert_eq!(stored.encoding().unwrap(), Encoding::V1);
    let shipped = TrainConfig::load(std::path::Path::new("config/train.toml")).unwrap();
    assert_eq!(shipped.contact_encoding, 1);
    let v2 = TrainConfig::load(std::path::Path::new("config/train-v2.toml")).unwrap();
    assert_eq!(v2.encoding().unwrap(), Encoding::V2);
    assert_eq!(v2.run_dir, PathBuf::from("runs/td-v2"));
    assert_eq!(v2.contact_hidden, 128);
    assert_eq!(v2.schedule, shipped.schedule);
    let mut bad = config(temp("bad-encoding"), 1, 10);
    bad.contact_encoding = 3;
    let e = bad.check().unwrap_err();
    assert!(e.to_string().contains("contact_encoding 3"), "{e}");
}

/// The command line end to end with encoding 2: a short run, a resume, the export, and
/// the evaluation benchmark on the exported nets.
#[test]
fn encoding_2_through_the_command_line() {
    let dir = temp("v2-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let run = dir.join("run");
    let mut c = v2_config(run.clone(), 6);
    c.threads = 1;
    let cfg = dir.join("train.toml");
    std::fs::write(&cfg, toml::to_string(&c).unwrap()).unwrap();
    let ok = |out: std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let log = ok(common::stargammon(&[
        "train",
        "--config",
        cfg.to_str().unwrap(),
        "--quiet",
    ]));
    assert!(log.contains("(encoding 2)"), "{log}");
    let log = ok(common::stargammon(&[
        "train",
        "--resume",
        run.to_str().unwrap(),
        "--max-games",
        "12",
        "--quiet",
    ]));
    assert!(log.contains("6 games so far"), "{log}");
    assert_eq!(stargammon::train::read_state(&run).unwrap().games, 12);
    let out = dir.join("v2.sgnet");
    ok(common::stargammon(&[
        "train",
        "--resume",
        run.to_str().unwrap(),
        "--export",
        out.to_str().unwrap(),
        "--latest",
    ]));
    let nets = NetSet::load(&out).unwrap();
    assert_eq!((nets.encoding, nets.games), (Encoding::V2, 12));
    let j = common::json_of(&common::stargammon(&[
        "bench",
        "eval",
        "--rounds",
        "1",
        "--json",
        "--weights",
        out.to_str().unwrap(),
    ]));
    assert_eq!(j["net"], format!("contact {INPUTS_V2}x8x5, encoding 2"));
    assert!(j["evals_per_sec"].as_f64().unwrap() > 0.0);
    std::fs::remove_dir_all(dir).unwrap();
}

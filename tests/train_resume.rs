//! The trainer resumes exactly: stopping and resuming gives the same weights as an
//! uninterrupted run, and the thread count does not change the result.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use stargammon::train::{ScheduleStep, StopReason, TrainConfig, Trainer};

fn config(dir: PathBuf, threads: usize, max_games: u64) -> TrainConfig {
    TrainConfig {
        name: "tiny".into(),
        run_dir: dir,
        seed: 42,
        threads,
        games_per_round: 3,
        contact_hidden: 8,
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
    assert_eq!(csv.lines().count(), 1 + 2, "{csv}");
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

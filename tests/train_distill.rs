//! Self-distillation data and training: chunks are deterministic for their config, shards
//! merge into exactly what one run makes, a stopped run resumes, other settings are refused
//! in the same directory, damage is detected, and training keeps the nets with the lowest
//! held-out loss.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use stargammon::eval::neural::DEFAULT_WEIGHTS;
use stargammon::eval::NetSet;
use stargammon::train::distill::{self, DataConfig, FitConfig, RolloutLabels};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sg-distill-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn config(dir: &Path) -> DataConfig {
    DataConfig {
        dir: dir.to_path_buf(),
        seed: 5,
        games_per_chunk: 2,
        chunks: 4,
        keep: 0.2,
        labeller: "net,depth=3".to_string(),
        sources: vec![
            "net,noise=0.04 vs net".to_string(),
            "net vs pubeval".to_string(),
        ],
        threads: 2,
        rollout: None,
        only: None,
    }
}

fn quiet(_: usize, _: usize, _: usize) {}

fn chunks_of(d: &Path) -> Vec<(u64, Vec<u8>)> {
    let mut m = distill::read_manifest(d).unwrap();
    m.sort_by_key(|r| r.chunk);
    m.iter()
        .map(|r| (r.chunk, std::fs::read(d.join(&r.file)).unwrap()))
        .collect()
}

#[test]
fn shards_and_resumed_runs_make_the_chunks_of_one_run() {
    let go = AtomicBool::new(false);
    let whole = dir("whole");
    assert_eq!(
        distill::generate(&config(&whole), (0, 1), &go, &quiet).unwrap(),
        4
    );
    let reference = chunks_of(&whole);
    assert_eq!(reference.len(), 4);
    let examples = distill::load(std::slice::from_ref(&whole)).unwrap();
    let positions: usize = examples.iter().map(|(_, e)| e.len()).sum();
    assert!(positions > 0);
    for (_, ex) in &examples {
        for e in ex {
            let t = e.target;
            assert!(t.iter().all(|p| (0.0..=1.0).contains(p)), "{t:?}");
            assert!(t[1] <= t[0] + 1e-6 && t[3] <= 1.0 - t[0] + 1e-6, "{t:?}");
        }
    }
    // Nothing left to do: a second run writes nothing.
    assert_eq!(
        distill::generate(&config(&whole), (0, 1), &go, &quiet).unwrap(),
        0
    );

    // Two shards, merged.
    let (a, b, merged) = (dir("a"), dir("b"), dir("merged"));
    distill::generate(&config(&a), (0, 2), &go, &quiet).unwrap();
    distill::generate(&config(&b), (1, 2), &go, &quiet).unwrap();
    assert!(chunks_of(&a).iter().all(|(k, _)| k % 2 == 0));
    assert_eq!(distill::merge(&merged, &a).unwrap(), 2);
    assert_eq!(distill::merge(&merged, &b).unwrap(), 2);
    assert_eq!(distill::merge(&merged, &b).unwrap(), 0);
    assert_eq!(chunks_of(&merged), reference);

    // A run stopped after its first chunk resumes with the rest.
    let stopped = dir("stopped");
    let stop = AtomicBool::new(false);
    let stop_now = |_: usize, _: usize, _: usize| stop.store(true, Ordering::Relaxed);
    let mut one_thread = config(&stopped);
    one_thread.threads = 1;
    assert_eq!(
        distill::generate(&one_thread, (0, 1), &stop, &stop_now).unwrap(),
        1
    );
    assert_eq!(
        distill::generate(&one_thread, (0, 1), &go, &quiet).unwrap(),
        3
    );
    assert_eq!(chunks_of(&stopped), reference);

    // Other settings in the same directory are refused, and so is merging them.
    let mut other = config(&whole);
    other.seed = 6;
    let e = distill::generate(&other, (0, 1), &go, &quiet).unwrap_err();
    assert!(e.to_string().contains("other settings"), "{e}");
    let odd = dir("odd");
    let mut other = config(&odd);
    other.keep = 0.5;
    other.chunks = 1;
    distill::generate(&other, (0, 1), &go, &quiet).unwrap();
    assert!(distill::merge(&merged, &odd).is_err());
    assert!(distill::generate(&config(&whole), (2, 2), &go, &quiet).is_err());

    // A damaged chunk is detected when loaded.
    let m = distill::read_manifest(&stopped).unwrap();
    let file = stopped.join(&m[0].file);
    let mut bytes = std::fs::read(&file).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&file, bytes).unwrap();
    assert!(distill::load(std::slice::from_ref(&stopped)).is_err());

    for d in [whole, a, b, merged, stopped, odd] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// Rollout labels: consistent probabilities, the same chunks from one thread or two, the
/// rollout's settings in the manifest, and a directory of search labels refuses them.
#[test]
fn rollout_labels_are_consistent_deterministic_and_kept_apart() {
    let go = AtomicBool::new(false);
    let rolled = dir("rolled");
    let mut cfg = config(&rolled);
    cfg.labeller = "net".to_string();
    cfg.chunks = 2;
    cfg.rollout = Some(RolloutLabels {
        trials: 4,
        truncate: Some(3),
        variance_reduction: true,
    });
    assert_eq!(distill::generate(&cfg, (0, 1), &go, &quiet).unwrap(), 2);
    let m = distill::read_manifest(&rolled).unwrap();
    assert!(
        m.iter()
            .all(|r| r.labeller.contains("rollout") && r.labeller.contains("truncate=3")),
        "{m:?}"
    );
    let examples = distill::load(std::slice::from_ref(&rolled)).unwrap();
    let mut n = 0;
    for (_, ex) in &examples {
        for e in ex {
            let t = e.target;
            assert!(t.iter().all(|p| (0.0..=1.0).contains(p)), "{t:?}");
            assert!(t[1] <= t[0] && t[2] <= t[1], "{t:?}");
            assert!(t[3] <= 1.0 - t[0] + 1e-6 && t[4] <= t[3], "{t:?}");
            n += 1;
        }
    }
    assert!(n > 0);

    // `distill dump` lists them: chunk, Position ID, equity, the five probabilities.
    let out = common::stargammon(&[
        "distill",
        "dump",
        "--data",
        rolled.to_str().unwrap(),
        "--limit",
        "3",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let first: Vec<_> = examples.iter().flat_map(|(_, e)| e).take(3).collect();
    assert_eq!(text.lines().count(), first.len().min(3));
    for (line, e) in text.lines().zip(first) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 4, "{line}");
        let pos = stargammon::notation::ids::decode_position_id(fields[1]).unwrap();
        assert_eq!(pos, e.position);
        let probs: Vec<f32> = fields[3].split(' ').map(|p| p.parse().unwrap()).collect();
        for (p, t) in probs.iter().zip(e.target) {
            assert!((p - t).abs() < 1e-4, "{line}");
        }
    }

    // One thread makes the same chunks.
    let again = dir("rolled-again");
    let mut one = cfg.clone();
    one.dir = again.clone();
    one.threads = 1;
    distill::generate(&one, (0, 1), &go, &quiet).unwrap();
    assert_eq!(chunks_of(&again), chunks_of(&rolled));

    // Labels of another kind never join a directory: search labels, or other trials.
    let mut search = cfg.clone();
    search.rollout = None;
    search.chunks = 3;
    let e = distill::generate(&search, (0, 1), &go, &quiet).unwrap_err();
    assert!(e.to_string().contains("other settings"), "{e}");
    let mut more = cfg.clone();
    more.chunks = 3;
    more.rollout = Some(RolloutLabels {
        trials: 5,
        truncate: Some(3),
        variance_reduction: true,
    });
    assert!(distill::generate(&more, (0, 1), &go, &quiet).is_err());

    // Zero trials or a truncation at 0 plies are refused.
    let mut zero = cfg.clone();
    zero.rollout = Some(RolloutLabels {
        trials: 0,
        truncate: None,
        variance_reduction: true,
    });
    assert!(zero.check().is_err());
    zero.rollout = Some(RolloutLabels {
        trials: 2,
        truncate: Some(0),
        variance_reduction: true,
    });
    assert!(zero.check().is_err());

    for d in [rolled, again] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn training_keeps_the_nets_with_the_lowest_held_out_loss() {
    let go = AtomicBool::new(false);
    let d = dir("fit");
    let mut cfg = config(&d);
    cfg.chunks = 10;
    cfg.keep = 0.5;
    distill::generate(&cfg, (0, 1), &go, &quiet).unwrap();
    let data = distill::load(std::slice::from_ref(&d)).unwrap();
    let start = NetSet::from_bytes(DEFAULT_WEIGHTS).unwrap();
    let mut reports = Vec::new();
    let fit = FitConfig {
        epochs: 3,
        batch: 16,
        learning_rate: 1e-3,
        seed: 1,
    };
    let nets = distill::train(&start, &data, &fit, &go, &mut |r| reports.push(r));
    assert_eq!(nets.contact.hidden(), start.contact.hidden());
    assert_eq!(nets.contact.inputs(), start.contact.inputs());
    let contact: Vec<_> = reports
        .iter()
        .filter(|r| r.net == stargammon::game::Phase::Contact)
        .collect();
    assert_eq!(contact.len(), 4, "epoch 0 and three epochs");
    let best = contact
        .iter()
        .map(|r| r.held_out_loss)
        .fold(f64::INFINITY, f64::min);
    let held_out: Vec<_> = data
        .iter()
        .filter(|(k, _)| k % 10 == 9)
        .flat_map(|(_, e)| e.iter())
        .filter(|e| e.position.phase() == stargammon::game::Phase::Contact)
        .collect();
    let kept = distill::loss(&nets.contact, nets.encoding, &held_out);
    assert!((kept - best).abs() < 1e-9, "kept {kept}, best {best}");
    // The labels are the nets' own depth-3 values, so the training loss goes down.
    assert!(contact[3].train_loss < contact[0].train_loss, "{contact:?}");
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn the_commands_refuse_bad_arguments_in_one_line() {
    for args in [
        vec!["distill", "generate", "--config", "no/such/file.toml"],
        vec![
            "distill",
            "generate",
            "--config",
            "config/distill.toml",
            "--shard",
            "2/2",
        ],
        vec![
            "distill",
            "train",
            "--data",
            "no/such/dir",
            "--out",
            "x.sgnet",
        ],
        vec![
            "distill", "train", "--data", "x", "--out", "x.sgnet", "--lr", "0",
        ],
        vec![
            "distill", "train", "--data", "x", "--out", "x.sgnet", "--epochs", "0",
        ],
        vec![
            "distill",
            "train",
            "--data",
            "x",
            "--out",
            "x.sgnet",
            "--encoding",
            "9",
        ],
        vec![
            "distill",
            "train",
            "--data",
            "x",
            "--out",
            "x.sgnet",
            "--contact-hidden",
            "16",
        ],
        vec!["distill", "dump", "--data", "no/such/dir"],
        vec!["distill", "dump", "--data", "x", "--every", "0"],
        // Fresh nets need both sizes, and no starting nets.
        vec![
            "distill", "train", "--data", "x", "--out", "x.sgnet", "--fresh",
        ],
        vec![
            "distill", "train", "--data", "x", "--out", "x.sgnet", "--fresh", "--from", "y",
        ],
    ] {
        let out = common::stargammon(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn pruning_nets_are_taught_from_fresh_nets_reading_the_board_alone() {
    let go = AtomicBool::new(false);
    let d = dir("fresh");
    let mut cfg = config(&d);
    cfg.labeller = "net".to_string();
    cfg.keep = 0.5;
    distill::generate(&cfg, (0, 1), &go, &quiet).unwrap();
    let out = d.join("prune.sgnet");
    let run = common::stargammon(&[
        "distill",
        "train",
        "--data",
        d.to_str().unwrap(),
        "--fresh",
        "--encoding",
        "3",
        "--contact-hidden",
        "8",
        "--race-hidden",
        "4",
        "--epochs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let nets = NetSet::load(&out).unwrap();
    assert_eq!(nets.encoding, stargammon::eval::encoding::Encoding::Board);
    assert_eq!((nets.contact.hidden(), nets.race.hidden()), (8, 4));
    assert_eq!(
        nets.contact.inputs(),
        stargammon::eval::encoding::FEATURES_START
    );
    // They rank plays: the pruning evaluator reads them.
    assert!(stargammon::eval::prune::PruneEvaluator::new(&nets, "p").is_ok());
    std::fs::remove_dir_all(d).unwrap();
}

/// A set kept to back games holds back-game positions only, fewer than the same games
/// give unfiltered, and its manifest says so; full rollouts without variance reduction
/// label them, and the manifest's labeller says that too.
#[test]
fn a_set_kept_to_back_games_holds_only_back_games() {
    let go = AtomicBool::new(false);
    let all = dir("all-plans");
    let mut cfg = config(&all);
    cfg.labeller = "net".to_string();
    cfg.keep = 1.0;
    cfg.games_per_chunk = 10;
    cfg.chunks = 1;
    cfg.sources = vec!["net,noise=0.3 vs net,noise=0.3".to_string()];
    cfg.rollout = Some(RolloutLabels {
        trials: 2,
        truncate: None,
        variance_reduction: false,
    });
    distill::generate(&cfg, (0, 1), &go, &quiet).unwrap();
    let kept = dir("back-games");
    let mut only = cfg.clone();
    only.dir = kept.clone();
    only.only = Some(distill::Plan::BackGame);
    distill::generate(&only, (0, 1), &go, &quiet).unwrap();
    let positions = |d: &Path| -> Vec<stargammon::game::Position> {
        distill::load(&[d.to_path_buf()])
            .unwrap()
            .into_iter()
            .flat_map(|(_, ex)| ex.into_iter().map(|e| e.position))
            .collect()
    };
    let (every, back) = (positions(&all), positions(&kept));
    let expected: Vec<_> = every.iter().filter(|p| p.back_game()).copied().collect();
    assert!(
        !back.is_empty() && back.len() < every.len() / 4,
        "{} {}",
        back.len(),
        every.len()
    );
    assert_eq!(back, expected);
    let m = distill::read_manifest(&kept).unwrap();
    assert!(m
        .iter()
        .all(|r| r.only == Some(distill::Plan::BackGame)
            && r.labeller.contains("no variance reduction")));
    assert!(distill::read_manifest(&all)
        .unwrap()
        .iter()
        .all(|r| r.only.is_none()));
    // The two runs differ in what they keep, so one directory refuses the other's chunks.
    let mut mixed = only.clone();
    mixed.dir = all.clone();
    assert!(distill::generate(&mixed, (0, 1), &go, &quiet).is_err());
}

//! The strength benchmark: sampling is deterministic and draws decisions of every phase from
//! games between different players; labels are rollouts of legal plays, best first; a
//! stopped labelling run resumes; merging checks coverage; scores do not depend on the
//! thread count and order players as they are known to rank; the shipped set is as large
//! as promised.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;

use stargammon::bench::strength::{
    self, label_file, label_one, merge, parse_sample, parse_set, sample, LabelConfig, Labelled,
    SampleConfig, SetPhase, SOURCES,
};
use stargammon::game::legal_plays;
use stargammon::notation::ids::position_key;
use stargammon::players::{factory, BuildOptions};
use stargammon::rollout::Rollout;

fn small() -> SampleConfig {
    SampleConfig {
        seed: 9,
        contact: 12,
        race: 6,
        bearoff: 4,
        every: 4,
        ..SampleConfig::default()
    }
}

fn cheap() -> LabelConfig {
    LabelConfig {
        top: 3,
        trials: 4,
        truncate: Some(2),
        ..LabelConfig::default()
    }
}

#[test]
fn sampling_is_seeded_fills_each_quota_and_round_trips() {
    let a = sample(&small()).unwrap();
    let b = sample(&small()).unwrap();
    assert_eq!(a.decisions, b.decisions);
    let count = |p: SetPhase| a.decisions.iter().filter(|d| d.phase == p).count();
    assert_eq!(
        (
            count(SetPhase::Contact),
            count(SetPhase::Race),
            count(SetPhase::Bearoff)
        ),
        (12, 6, 4)
    );
    let mut seen = HashSet::new();
    for (i, d) in a.decisions.iter().enumerate() {
        assert_eq!(d.id as usize, i);
        assert_eq!(SetPhase::of(&d.position), d.phase);
        assert!(legal_plays(&d.position, d.dice).len() >= 2, "a real choice");
        assert!(
            seen.insert((position_key(&d.position), d.dice)),
            "no duplicates"
        );
    }
    // Decisions come from more than one pair of players.
    let sources: HashSet<u8> = a.decisions.iter().map(|d| d.source).collect();
    assert!(sources.len() >= 3, "{sources:?} of {}", SOURCES.len());
    let text: String = a.decisions.iter().map(|d| d.line() + "\n").collect();
    assert_eq!(parse_sample(&text).unwrap(), a.decisions);
    // Another seed, other decisions.
    let c = sample(&SampleConfig {
        seed: 10,
        ..small()
    })
    .unwrap();
    assert_ne!(a.decisions, c.decisions);
}

#[test]
fn labels_are_legal_plays_best_first_and_round_trip() {
    let s = sample(&small()).unwrap().decisions;
    let cfg = cheap();
    let rollout = Rollout::new(&cfg.spec).unwrap();
    for d in s.iter().step_by(5) {
        let l = label_one(&rollout, d, &cfg).unwrap();
        let legal: HashSet<[u8; 10]> = legal_plays(&d.position, d.dice)
            .iter()
            .map(|p| position_key(&p.position))
            .collect();
        assert_eq!(l.plays.len(), legal.len().min(3));
        assert!(l.plays.iter().all(|p| legal.contains(&p.1)));
        assert!(l.plays.windows(2).all(|w| w[0].2 >= w[1].2));
        // The same seed gives the same labels.
        assert_eq!(label_one(&rollout, d, &cfg).unwrap(), l);
        let back = parse_set(&l.line()).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].decision, l.decision);
        for (x, y) in back[0].plays.iter().zip(&l.plays) {
            assert_eq!(x.1, y.1);
            assert!((x.2 - y.2).abs() < 1e-5);
        }
    }
}

#[test]
fn bad_set_lines_are_refused_with_the_line_number() {
    let s = sample(&small()).unwrap().decisions;
    let cfg = cheap();
    let l = label_one(&Rollout::new(&cfg.spec).unwrap(), &s[0], &cfg).unwrap();
    let good = l.line();
    assert!(parse_set(&good).is_ok());
    let fields: Vec<&str> = good.split_whitespace().collect();
    let swapped = {
        // Plays out of order.
        let mut f = fields.clone();
        f.swap(5, 6);
        f.join(" ")
    };
    let other_roll = {
        let mut f = fields.clone();
        f[3] = if f[3] == "11" { "66" } else { "11" };
        f.join(" ")
    };
    for bad in [
        "x contact 4HPwATDgc/ABMA 31 0 4HPwATDgc/ABMA:0.1".to_string(),
        "0 middle 4HPwATDgc/ABMA 31 0".to_string(),
        "0 race 4HPwATDgc/ABMA 31 0 4HPwATDgc/ABMA:0.1".to_string(),
        "0 contact 4HPwATDgc/ABMA 71 0".to_string(),
        "0 contact 4HPwATDgc/ABMA 31 99".to_string(),
        format!("{} {}", fields[..5].join(" "), "nonsense"),
        format!("{}:NaN", fields[..6].join(" ").rsplit_once(':').unwrap().0),
        swapped,
        other_roll,
        fields[..5].join(" "),
        "0 contact \u{e9}\u{e9} 31 0".to_string(),
    ] {
        let text = format!("# header\n{good}\n{bad}\n");
        let e = parse_set(&text).unwrap_err();
        assert!(e.starts_with("line 3:"), "{bad:?}: {e}");
    }
    assert!(parse_sample("0 contact 4HPwATDgc/ABMA 31 0 extra\n").is_err());
}

#[test]
fn labelling_resumes_after_a_stop_and_shards_merge_into_the_set() {
    let s = sample(&small()).unwrap().decisions;
    let cfg = cheap();
    let dir = std::env::temp_dir().join(format!("sg-strength-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
    let _ = std::fs::remove_file(&a);
    let _ = std::fs::remove_file(&b);
    let go = AtomicBool::new(false);
    let quiet = |_: usize, _: usize| {};
    // Shard 0 of 2: a run stopped after its first decisions leaves a line cut short...
    let stopped = AtomicBool::new(false);
    let stop_early = |done: usize, _: usize| {
        if done >= 2 {
            stopped.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let n = label_file(&s, &a, &cfg, (0, 2), 1, &stopped, &stop_early).unwrap();
    assert!((2..s.len() / 2).contains(&n), "{n}");
    let mut text = std::fs::read_to_string(&a).unwrap();
    text.push_str("13 contact 4HPw");
    std::fs::write(&a, &text).unwrap();
    // ... and the next run drops it and labels only the rest.
    let rest = label_file(&s, &a, &cfg, (0, 2), 2, &go, &quiet).unwrap();
    assert_eq!(n + rest, s.len().div_ceil(2));
    assert_eq!(label_file(&s, &a, &cfg, (0, 2), 2, &go, &quiet).unwrap(), 0);
    label_file(&s, &b, &cfg, (1, 2), 2, &go, &quiet).unwrap();
    let la = parse_set(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let lb = parse_set(&std::fs::read_to_string(&b).unwrap()).unwrap();
    assert!(la.iter().all(|l| l.decision.id % 2 == 0));
    assert!(lb.iter().all(|l| l.decision.id % 2 == 1));
    let set = merge(&s, &[la.clone(), lb.clone()], &["made here".to_string()]).unwrap();
    assert!(set.starts_with("# made here\n"));
    let parsed = parse_set(&set).unwrap();
    let ids: Vec<u32> = parsed.iter().map(|l| l.decision.id).collect();
    assert_eq!(ids, (0..s.len() as u32).collect::<Vec<_>>());
    // Shards labelled alone give the labels of a single run.
    let whole = dir.join("whole.txt");
    let _ = std::fs::remove_file(&whole);
    label_file(&s, &whole, &cfg, (0, 1), 2, &go, &quiet).unwrap();
    let single = parse_set(&std::fs::read_to_string(&whole).unwrap()).unwrap();
    let merged_single = parse_set(&merge(&s, &[single], &[]).unwrap()).unwrap();
    assert_eq!(merged_single, parsed);
    // Missing and doubled decisions are refused.
    assert!(merge(&s, std::slice::from_ref(&la), &[])
        .unwrap_err()
        .contains("not labelled"));
    assert!(merge(&s, &[la.clone(), la, lb], &[])
        .unwrap_err()
        .contains("twice"));
    assert!(label_file(&s, &a, &cfg, (2, 2), 1, &go, &quiet).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn small_set() -> Vec<Labelled> {
    strength::shipped_set()
        .unwrap()
        .into_iter()
        .step_by(20)
        .collect()
}

#[test]
fn scores_do_not_depend_on_threads_and_rank_known_players() {
    let set = small_set();
    let score = |spec: &str, threads: usize| {
        strength::score(
            &set,
            &factory(spec, BuildOptions::default()).unwrap(),
            threads,
        )
        .unwrap()
    };
    let net1 = score(strength::TD_NETS, 1);
    let net2 = score(strength::TD_NETS, 2);
    assert_eq!(net1.all, net2.all);
    assert_eq!(net1.by_phase, net2.by_phase);
    assert_eq!(net1.all.decisions, set.len());
    assert_eq!(
        net1.by_phase.values().map(|p| p.decisions).sum::<usize>(),
        set.len()
    );
    // The TD nets' own choice is among the candidates they ranked, except in bear-offs where
    // more plays than listed tie (a lost position): any of them costs nothing.
    assert_eq!(net1.by_phase[&SetPhase::Contact].unlisted, 0);
    assert_eq!(net1.by_phase[&SetPhase::Race].unlisted, 0);
    assert_eq!(net1.by_phase[&SetPhase::Bearoff].error_mppg, 0.0);
    let pubeval = score("pubeval", 2);
    let random = score("random", 2);
    let shipped = score("net", 2);
    assert!(
        shipped.all.error_mppg < pubeval.all.error_mppg,
        "shipped {} pubeval {}",
        shipped.all.error_mppg,
        pubeval.all.error_mppg
    );
    assert!(
        net1.all.error_mppg < pubeval.all.error_mppg
            && pubeval.all.error_mppg < random.all.error_mppg,
        "net {} pubeval {} random {}",
        net1.all.error_mppg,
        pubeval.all.error_mppg,
        random.all.error_mppg
    );
    assert!(random.all.unlisted > 0);
}

#[test]
fn the_shipped_set_has_the_promised_decisions() {
    let set = strength::shipped_set().unwrap();
    let count = |p: SetPhase| set.iter().filter(|l| l.decision.phase == p).count();
    assert!(count(SetPhase::Contact) >= 5000);
    assert!(count(SetPhase::Race) >= 2000);
    assert!(count(SetPhase::Bearoff) >= 1);
    let sources: HashSet<u8> = set.iter().map(|l| l.decision.source).collect();
    assert_eq!(sources.len(), SOURCES.len());
    // The header names how the set was made.
    assert!(strength::STRENGTH_SET.contains("stargammon bench strength-set sample"));
    assert!(strength::STRENGTH_SET.contains("rollouts of the top"));
}

#[test]
fn the_shipped_set_is_what_its_sampling_command_draws() {
    // The first 30 games of the shipped sampling fill no quota, so their decisions are the
    // set's first ones, position for position and roll for roll.
    let prefix = sample(&SampleConfig {
        max_games: 30,
        ..SampleConfig::default()
    })
    .unwrap();
    assert_eq!(prefix.games, 30);
    let set = strength::shipped_set().unwrap();
    assert!(prefix.decisions.len() > 50, "{}", prefix.decisions.len());
    for (d, l) in prefix.decisions.iter().zip(&set) {
        assert_eq!(*d, l.decision);
    }
}

#[test]
fn the_command_reports_json_by_phase_and_refuses_bad_arguments() {
    let dir = std::env::temp_dir().join(format!("sg-strength-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("set.txt");
    let text: String = small_set().iter().map(|l| l.line() + "\n").collect();
    std::fs::write(&file, text).unwrap();
    let f = file.to_str().unwrap();
    let out = common::stargammon(&[
        "bench", "strength", "--set", f, "--engine", "pubeval", "--json",
    ]);
    let v = common::json_of(&out);
    assert_eq!(v["player"], "pubeval");
    assert_eq!(v["decisions"].as_u64().unwrap() as usize, small_set().len());
    for phase in ["contact", "race", "bearoff"] {
        let e = v["by_phase"][phase].as_f64().unwrap();
        assert!(e >= 0.0, "{v}");
        assert_eq!(v["phases"][phase]["error_mppg"].as_f64().unwrap(), e);
        assert!(v["phases"][phase]["decisions"].as_u64().unwrap() > 0);
    }
    assert!(v["error_mppg"].as_f64().unwrap() > 0.0);
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "0 contact nonsense 31 0\n").unwrap();
    for args in [
        vec!["bench", "strength", "--set", bad.to_str().unwrap()],
        vec!["bench", "strength", "--engine", "nosuchplayer"],
        vec!["bench", "strength", "--threads", "0"],
        vec![
            "bench",
            "strength-set",
            "label",
            "--sample",
            f,
            "--out",
            f,
            "--shard",
            "3/2",
        ],
        vec![
            "bench",
            "strength-set",
            "sample",
            "--out",
            f,
            "--every",
            "0",
        ],
    ] {
        let out = common::stargammon(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

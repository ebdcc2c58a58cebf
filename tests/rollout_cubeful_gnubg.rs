//! Cubeful rollouts checked against GNU Backgammon's own cubeful rollouts on the same
//! positions and settings (both sides' checker play and cube decisions at 0-ply, cubeful
//! trials played to the end, variance reduction on, money without Jacoby or beavers, or
//! match play with the Kazaross table).
//!
//! gnubg's `rollout` rolls out the current position cubefully with no cube decision
//! before its first roll, so "no double" is the position with the cube where it is, and
//! "double, take" the position with the cube doubled and owned by the taker (gnubg prints
//! money equity per unit of that cube: twice it is per unit of the cube now). The plays of
//! a roll are the positions after them, the opponent to roll. gnubg prints a rollout's
//! results only to a terminal, so it runs under `script`.
//!
//! Decisions are compared where gnubg's margin is clear (larger than gnubg's and our
//! standard errors added); the long comparison of 30 cube and 30 checker-play decisions is
//! behind `#[ignore]` (docs/BENCHMARKS.md, "Cubeful rollouts").
#![allow(clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::time::Instant;

use stargammon::engine::{EngineSpec, EvaluatorKind};
use stargammon::game::{CubeOwner, Decision, Dice, MatchState, Play, Position, Rng, Rules};
use stargammon::notation::{encode_match_state, format_play, MoveStyle};
use stargammon::rollout::{Hooks, Rollout, RolloutSettings};

/// Our rollout engine: the shipped nets at depth 1, cube decisions at depth 1, money
/// without Jacoby or beavers.
fn ours() -> Rollout {
    let mut spec = EngineSpec {
        tt_megabytes: 1,
        ..EngineSpec::of(EvaluatorKind::Net(None))
    };
    spec.cube.jacoby = false;
    spec.cube.beavers = false;
    Rollout::new(&spec).unwrap()
}

/// The numbers of a text, `%` signs and other words around them ignored.
fn numbers(line: &str) -> Vec<f64> {
    line.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .filter_map(|t| t.parse().ok())
        .collect()
}

/// One of gnubg's cubeful rollouts: the roller's value (money: per unit of the cube in the
/// state; match: match-winning chance) and its standard error.
#[derive(Debug, Clone, Copy)]
struct GnubgValue {
    value: f64,
    se: f64,
}

/// CPU seconds this process has used so far (all its threads), from /proc.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The numeric fields after the command's closing parenthesis (the state letter left
    // out): utime and stime are the 11th and 12th, in clock ticks (100 a second on Linux).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    if f.len() > 11 {
        (f[10] + f[11]) / 100.0
    } else {
        0.0
    }
}

/// Rolls out every state (each with its acting side to roll) with gnubg in one session;
/// returns the values, the seconds the session took and the CPU seconds gnubg used.
fn gnubg_rollouts(states: &[MatchState], trials: u64) -> (Vec<GnubgValue>, f64, f64) {
    let mut script = String::from(
        "set player 0 human\nset player 1 human\nset threads 1\nset beavers 0\n\
         set output mwc on\nset rollout cubeful on\nset rollout varredn on\n\
         set rollout chequerplay plies 0\nset rollout cubedecision plies 0\n\
         set rollout later enable off\nset rollout truncation enable off\n\
         set rollout quasirandom on\nset rollout seed 1\n",
    );
    script.push_str(&format!("set rollout trials {trials}\n"));
    // The Match ID sets the match length, score, cube and turn of each state.
    script.push_str("new match 7\n");
    for s in states {
        let (pid, mid) = encode_match_state(s).unwrap();
        script.push_str(&format!("set matchid {mid}\nset board {pid}\nrollout\n"));
    }
    let path = std::env::temp_dir().join(format!(
        "stargammon-cubeful-{}-{}.txt",
        std::process::id(),
        states.len()
    ));
    std::fs::File::create(&path)
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let gnubg = common::gnubg_path().unwrap();
    // gnubg's CPU time where GNU time is installed (only the speed figure needs it).
    let timer = if std::path::Path::new("/usr/bin/time").is_file() {
        "/usr/bin/time -f 'gnubg CPU seconds %U %S' "
    } else {
        ""
    };
    let started = Instant::now();
    // gnubg prints a rollout's results only to a terminal: `script` gives it one.
    let out = std::process::Command::new("script")
        .args(["-qec"])
        .arg(format!(
            "{timer}{} -t -q -r < {}",
            gnubg.display(),
            path.display()
        ))
        .arg("/dev/null")
        .output()
        .expect("script (util-linux) runs gnubg on a terminal");
    let seconds = started.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&path);
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "\n");
    let mut values = Vec::new();
    for block in text.split("Rollout done. Printing final results.").skip(1) {
        let mut lines = block.lines().filter(|l| l.contains("CF"));
        let (Some(mean), Some(se)) = (lines.next(), lines.next()) else {
            continue;
        };
        let cf = |l: &str| {
            let tail = &l[l.find("CF").unwrap() + 2..];
            let n = numbers(tail)[0];
            if l.contains('%') {
                n / 100.0
            } else {
                n
            }
        };
        values.push(GnubgValue {
            value: cf(mean),
            se: cf(se).abs(),
        });
    }
    assert_eq!(
        values.len(),
        states.len(),
        "gnubg rolled out {} of {} states:\n{}",
        values.len(),
        states.len(),
        &text[text.len().saturating_sub(3000)..]
    );
    let cpu = text
        .lines()
        .find_map(|l| l.split_once("gnubg CPU seconds "))
        .map_or(0.0, |(_, t)| numbers(t).iter().sum());
    (values, seconds, cpu)
}

/// A value of the other side: money `-v`, match `1 - v`.
fn other(v: f64, money: bool) -> f64 {
    if money {
        -v
    } else {
        1.0 - v
    }
}

/// A cube decision to compare.
struct CubeCase {
    state: MatchState,
}

/// A checker-play decision to compare: the two best plays of a roll by our 0-ply.
struct PlayCase {
    state: MatchState,
    plays: [Play; 2],
}

/// The kinds of cube and score the cases cycle through: money with a centred cube, money
/// with the roller owning a 2-cube, and 7-point matches at several scores.
fn kinds() -> Vec<MatchState> {
    let money = MatchState {
        rules: Rules {
            jacoby: Some(false),
            beavers: Some(false),
        },
        ..MatchState::money(Position::OPENING, Decision::DoubleOrRoll)
    };
    let in_match = |score: u32, opp_score: u32| MatchState {
        match_length: 7,
        score,
        opp_score,
        rules: Rules::default(),
        ..money.clone()
    };
    vec![
        money.clone(),
        MatchState {
            cube: 2,
            cube_owner: CubeOwner::Me,
            ..money.clone()
        },
        in_match(0, 0),
        in_match(3, 5),
        in_match(5, 3),
        in_match(4, 4),
    ]
}

/// Positions of seeded games of the engine's 0-ply plays (both sides), with plies from the
/// opening to the bear-off, in the kinds of [`kinds`]: `cubes` cube decisions with the
/// roller's winning chance between 60% and 85%, and `plays` rolls whose two best plays
/// lie within 0.1 of each other by our 0-ply.
fn cases(r: &Rollout, cubes: usize, plays: usize, seed: u64) -> (Vec<CubeCase>, Vec<PlayCase>) {
    let kinds = kinds();
    let mut rng = Rng::seeded(seed);
    let (mut cube_cases, mut play_cases) = (Vec::new(), Vec::new());
    let mut game = 0u64;
    while (cube_cases.len() < cubes || play_cases.len() < plays) && game < 2000 {
        game += 1;
        let mut pos = Position::OPENING;
        // Sample from a game at a ply drawn for it, so the set spans the game's phases.
        let stop_at = 4 + (rng.below(40) as u32);
        for ply in 0..200u32 {
            if pos.is_game_over() {
                break;
            }
            let dice = Dice::roll(&mut rng);
            if ply >= stop_at {
                let kind = &kinds[(cube_cases.len() + play_cases.len()) % kinds.len()];
                let state = MatchState {
                    position: pos,
                    ..kind.clone()
                };
                let p = r
                    .engine()
                    .probabilities(&pos, 1, &stargammon::search::Cancel::new())
                    .unwrap();
                let w = p.0[0] as f64;
                if cube_cases.len() < cubes && (0.6..=0.85).contains(&w) && game.is_multiple_of(2) {
                    cube_cases.push(CubeCase { state });
                    break;
                }
                if play_cases.len() < plays && game % 2 == 1 {
                    let mover = MatchState {
                        decision: Decision::Move(dice),
                        ..state
                    };
                    let ranked = r
                        .engine()
                        .rank_plays(&pos, dice, 1, &stargammon::search::Cancel::new())
                        .unwrap();
                    let valued = r.engine().value_plays(&mover, ranked);
                    if valued.len() >= 2 && (valued[0].1 - valued[1].1).abs() < 0.1 {
                        play_cases.push(PlayCase {
                            state: mover,
                            plays: [valued[0].0.play, valued[1].0.play],
                        });
                        break;
                    }
                }
            }
            let best = r
                .candidates(&pos, dice, 1)
                .ok()
                .and_then(|c| c.first().copied());
            pos = match best {
                Some(p) => p.next_position(),
                None => pos.swap(),
            };
        }
    }
    (cube_cases, play_cases)
}

/// One compared value: ours and gnubg's with their standard errors.
#[derive(Debug, Clone, Copy)]
struct Pair {
    ours: f64,
    ours_se: f64,
    gnubg: f64,
    gnubg_se: f64,
}

/// Whether two choices compare the same way in both rollouts where gnubg's margin is
/// clear: `Some(agree)`, or `None` where the margin is within the standard errors.
fn agree(a: Pair, b: Pair) -> Option<bool> {
    let margin = a.gnubg - b.gnubg;
    let noise = a.gnubg_se + b.gnubg_se + a.ours_se + b.ours_se;
    (margin.abs() > noise).then(|| (a.ours - b.ours).signum() == margin.signum())
}

/// What a comparison found.
#[derive(Debug, Default)]
struct Tally {
    compared: usize,
    agreed: usize,
    unclear: usize,
    money_diffs: Vec<f64>,
    match_diffs: Vec<f64>,
    our_trials: f64,
    our_seconds: f64,
    our_cpu: f64,
    gnubg_trials: f64,
    gnubg_seconds: f64,
    gnubg_cpu: f64,
    disagreements: Vec<String>,
}

impl Tally {
    fn decision(&mut self, what: String, verdict: Option<bool>) {
        match verdict {
            None => self.unclear += 1,
            Some(true) => {
                self.compared += 1;
                self.agreed += 1;
            }
            Some(false) => {
                self.compared += 1;
                self.disagreements.push(what);
            }
        }
    }

    fn value(&mut self, money: bool, p: Pair) {
        let d = (p.ours - p.gnubg).abs();
        if money {
            self.money_diffs.push(d);
        } else {
            self.match_diffs.push(d);
        }
    }
}

fn summary(xs: &[f64]) -> String {
    if xs.is_empty() {
        return "none".into();
    }
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let max = xs.iter().cloned().fold(0.0, f64::max);
    format!("n {} mean {mean:.4} max {max:.4}", xs.len())
}

/// Rolls out the cases with both engines (ours on one thread while gnubg runs on another)
/// and compares them.
fn compare(cubes: &[CubeCase], plays: &[PlayCase], trials: u64) -> Tally {
    let r = ours();
    let settings = RolloutSettings {
        trials,
        seed: 1,
        truncate: None,
        variance_reduction: true,
        threads: 1,
    };
    // gnubg's states: per cube case "no double" then "double, take"; per play case the
    // position after each play.
    let mut states = Vec::new();
    for c in cubes {
        states.push(c.state.clone());
        states.push(MatchState {
            cube: c.state.cube * 2,
            cube_owner: CubeOwner::Opponent,
            ..c.state.clone()
        });
    }
    for c in plays {
        for p in &c.plays {
            states.push(c.state.after_play(p));
        }
    }
    let n_states = states.len();
    let gnubg = std::thread::spawn(move || gnubg_rollouts(&states, trials));
    let mut tally = Tally::default();
    let started = Instant::now();
    let cpu = cpu_seconds();
    let mut cube_results = Vec::new();
    for c in cubes {
        cube_results.push(r.cube(&c.state, &settings, Hooks::none()).unwrap());
    }
    let mut play_results = Vec::new();
    for c in plays {
        play_results.push(
            r.these_plays_cubeful(&c.state, &c.plays, &settings, Hooks::none())
                .unwrap(),
        );
    }
    tally.our_seconds = started.elapsed().as_secs_f64();
    tally.our_cpu = cpu_seconds() - cpu;
    tally.our_trials = (trials as usize * n_states) as f64;
    let (g, seconds, gnubg_cpu) = gnubg.join().unwrap();
    tally.gnubg_seconds = seconds;
    tally.gnubg_cpu = gnubg_cpu;
    tally.gnubg_trials = (trials as usize * n_states) as f64;
    let mut k = 0;
    for (c, ours) in cubes.iter().zip(&cube_results) {
        let money = c.state.is_money();
        let (nd, dt) = (g[k], g[k + 1]);
        k += 2;
        // gnubg's money values are per unit of the cube of the state rolled out.
        let dt_value = if money { 2.0 * dt.value } else { dt.value };
        let dt_se = if money { 2.0 * dt.se } else { dt.se };
        let o_dt = ours.double_take.unwrap();
        let nd = Pair {
            ours: ours.no_double.equity(),
            ours_se: ours.no_double.equity_se(),
            gnubg: nd.value,
            gnubg_se: nd.se,
        };
        let dt = Pair {
            ours: o_dt.equity(),
            ours_se: o_dt.equity_se(),
            gnubg: dt_value,
            gnubg_se: dt_se,
        };
        let dp = Pair {
            ours: ours.double_pass,
            ours_se: 0.0,
            gnubg: ours.double_pass,
            gnubg_se: 0.0,
        };
        tally.value(money, nd);
        tally.value(money, dt);
        let id = encode_match_state(&c.state).unwrap();
        // The taker: take (the doubler's value after a take is lower) or pass.
        tally.decision(
            format!("{}:{} take/pass nd {nd:?} dt {dt:?}", id.0, id.1),
            agree(dp, dt),
        );
        // The doubler: double (the taker's right answer) or not.
        let after = if dt.gnubg <= dp.gnubg { dt } else { dp };
        tally.decision(
            format!("{}:{} double/no double nd {nd:?} dt {dt:?}", id.0, id.1),
            agree(after, nd),
        );
    }
    for (c, ours) in plays.iter().zip(&play_results) {
        let money = c.state.is_money();
        let pair = |i: usize| {
            let mine = ours.plays.iter().find(|p| p.play == c.plays[i]).unwrap();
            let theirs = g[k + i];
            Pair {
                ours: mine.estimate.equity(),
                ours_se: mine.estimate.equity_se(),
                gnubg: other(theirs.value, money),
                gnubg_se: theirs.se,
            }
        };
        let (a, b) = (pair(0), pair(1));
        k += 2;
        tally.value(money, a);
        tally.value(money, b);
        let id = encode_match_state(&c.state).unwrap();
        tally.decision(
            format!(
                "{}:{} {} vs {}: {a:?} {b:?}",
                id.0,
                id.1,
                format_play(&c.state.position, &c.plays[0], MoveStyle::Gnubg),
                format_play(&c.state.position, &c.plays[1], MoveStyle::Gnubg)
            ),
            agree(a, b),
        );
    }
    tally
}

fn report(t: &Tally) -> String {
    format!(
        "decisions with a clear gnubg margin: {} of which {} agree ({} within the errors)\n\
         |ours - gnubg| money equity: {}\n|ours - gnubg| match-winning chance: {}\n\
         trials per second, one thread each, side by side: ours {:.1} ({:.0} trials in {:.0} s, \
         {:.1} per CPU second), gnubg {:.1} ({:.0} trials in {:.0} s, {:.1} per CPU second)\n\
         disagreements: {:#?}",
        t.compared,
        t.agreed,
        t.unclear,
        summary(&t.money_diffs),
        summary(&t.match_diffs),
        t.our_trials / t.our_seconds,
        t.our_trials,
        t.our_seconds,
        t.our_trials / t.our_cpu,
        t.gnubg_trials / t.gnubg_seconds,
        t.gnubg_trials,
        t.gnubg_seconds,
        t.gnubg_trials / t.gnubg_cpu,
        t.disagreements
    )
}

#[test]
fn cubeful_rollouts_agree_with_gnubgs_where_its_margin_is_clear() {
    if common::gnubg_or_skip("cubeful_rollouts_agree_with_gnubgs_where_its_margin_is_clear")
        .is_none()
    {
        return;
    }
    let r = ours();
    let (cubes, plays) = cases(&r, 2, 1, 5);
    assert_eq!((cubes.len(), plays.len()), (2, 1));
    let t = compare(&cubes, &plays, 36);
    let text = report(&t);
    eprintln!("{text}");
    assert_eq!(t.agreed, t.compared, "{text}");
    // The values themselves are close: the two engines' nets and cube models differ, the
    // games are the same kind of game.
    for d in &t.money_diffs {
        assert!(*d < 0.5, "{text}");
    }
    for d in &t.match_diffs {
        assert!(*d < 0.12, "{text}");
    }
}

#[test]
#[ignore = "long: 30 cube and 30 checker-play decisions rolled out by both engines (about 6 minutes in release on two cores)"]
fn thirty_cube_and_thirty_checker_play_decisions_against_gnubg() {
    if common::gnubg_or_skip("thirty_cube_and_thirty_checker_play_decisions_against_gnubg")
        .is_none()
    {
        return;
    }
    let trials = std::env::var("STARGAMMON_CUBEFUL_TRIALS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(36);
    let r = ours();
    let (cubes, plays) = cases(&r, 30, 30, 2026);
    assert_eq!((cubes.len(), plays.len()), (30, 30));
    let t = compare(&cubes, &plays, trials);
    let text = report(&t);
    println!("{trials} trials per rollout\n{text}");
    assert_eq!(t.agreed, t.compared, "{text}");
}

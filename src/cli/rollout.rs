//! `stargammon rollout POS [--dice D1 D2] [--trials N] [--truncate PLIES] [--depth D]
//! [--top K] [--seed S] [--threads T] [--no-vr] [--json]`.
//!
//! Without dice (in `--dice` or in POS): the position, its side on roll before rolling.
//! With dice: the top K plays by the search at `--depth`, rolled out on the same dice, best
//! first. A roll with no legal play is an error (nothing to compare); a roll with a single
//! legal play rolls that play out. Ctrl-C stops the rollout and prints what it has, marked
//! partial (a second Ctrl-C ends the process at once).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::Args;

use super::hint::{parse_depth_arg, parse_evaluator_arg};
use super::pos_arg::parse_pos_arg;
use super::{CliError, Report};
use crate::engine::{Depth, EngineSpec, EvaluatorKind};
use crate::game::{Decision, Dice, MatchState, Position};
use crate::notation::{format_play, position_id, MoveStyle};
use crate::rollout::{
    Estimate, Hooks, PlaysRollout, PositionRollout, Rollout, RolloutSettings, STRATA,
};

#[derive(Debug, Args)]
pub struct RolloutArgs {
    /// The position: gnubg Position ID (with optional Match ID), XGID or FIBS board.
    #[arg(required_unless_present_any = ["positions", "merge"])]
    pub pos: Option<String>,
    /// Roll out every position of FILE instead: one per line, `POS` or `POS D1 D2` (the
    /// plays of that roll), any notation POS takes; blank lines and lines starting with
    /// `#` are skipped. Writes one JSON line per position (to --out, or stdout), each with
    /// the same figures as `--json` for that position alone and the same seed, without the
    /// timing; a bad line gets a line with its `error`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["pos", "dice", "merge"])]
    pub positions: Option<std::path::PathBuf>,
    /// With --positions: only the positions with index % N == I (counting positions from
    /// 0 in file order), for job arrays; `--merge` joins the parts.
    #[arg(
        long,
        value_name = "I/N",
        default_value = "0/1",
        requires = "positions"
    )]
    pub shard: String,
    /// The JSON-lines file of --positions (appended to: positions already in it are not
    /// rolled out again, so a stopped run resumes) or of --merge.
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
    /// Join the JSON-lines files of the shards of one --positions run into --out (or
    /// stdout), in file order; the result is byte for byte what one unsharded run writes.
    #[arg(long, value_name = "PART", num_args = 1.., conflicts_with_all = ["pos", "dice"])]
    pub merge: Vec<std::path::PathBuf>,
    /// Roll out the plays of this roll (overrides dice in POS).
    #[arg(long, num_args = 2, value_names = ["D1", "D2"])]
    pub dice: Option<Vec<u8>>,
    /// Games per position or play.
    #[arg(long, default_value_t = STRATA)]
    pub trials: u64,
    /// Value games with the evaluator after this many plies (default: play to the end).
    #[arg(long)]
    pub truncate: Option<u32>,
    /// The players' engine as a spec (`net,depth=3`, as duel and match players take);
    /// --depth and --evaluator, where given, override it. Default: the shipped nets at
    /// depth 1. Without `tt_megabytes=` each trial's players get a 4 MB table.
    #[arg(long, value_name = "SPEC")]
    pub engine: Option<String>,
    /// Checker-play depth of the players (1 = the evaluator's best play, the default; 3,
    /// 5: search); with dice also the depth that picks the plays to roll out.
    #[arg(long, value_parser = parse_depth_arg)]
    pub depth: Option<Depth>,
    /// How many of the best plays to roll out (with dice).
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// No variance reduction (luck adjustment).
    #[arg(long)]
    pub no_vr: bool,
    /// Evaluator: net (the shipped nets, default), net:PATH, or pipsigmoid.
    #[arg(long, value_parser = parse_evaluator_arg)]
    pub evaluator: Option<EvaluatorKind>,
    /// The old name of --evaluator.
    #[arg(long, hide = true, value_parser = parse_evaluator_arg, conflicts_with = "evaluator")]
    pub eval: Option<EvaluatorKind>,
    /// Cubeful rollout: every trial is played with the cube alive, both sides taking the
    /// engine's cube decisions (at the spec's `cube_depth`), from the cube and match score
    /// of POS; values are cubeful equity per unit of the cube now (money) or match-winning
    /// chance (match play).
    #[arg(long, conflicts_with_all = ["positions", "merge"])]
    pub cubeful: bool,
    /// Roll out the cube decision of POS (no double, double/take, double/pass) cubefully,
    /// with the proper action and what each wrong one costs. POS without dice.
    #[arg(long, conflicts_with_all = ["positions", "merge", "dice", "top"])]
    pub cube: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Transposition table of each trial's searching players: games are short searches, and
/// a fresh table per trial keeps trials independent of each other.
pub const TRIAL_TT_MB: usize = 4;

pub fn run(a: RolloutArgs) -> Result<(), CliError> {
    if !a.merge.is_empty() {
        return super::rollout_batch::merge(&a.merge, a.out.as_deref());
    }
    if a.positions.is_some() {
        return super::rollout_batch::run(&a);
    }
    let text = a
        .pos
        .as_deref()
        .ok_or("give a position, --positions FILE or --merge")?;
    let state = parse_pos_arg(text)?;
    let (pos, dice) = roll_out_target(&state, a.dice.as_deref())?;
    let threads = super::threads_arg(a.threads)?;
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_ctrl_c(stop.clone(), "finishing with the trials completed so far")?;
    let bar = indicatif::ProgressBar::new(a.trials);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} trials {per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let progress = |n: u64| bar.set_position(n);
    let hooks = Hooks {
        stop: &stop,
        progress: &progress,
    };
    let units = if dice.is_some() {
        "trials per play"
    } else {
        "trials"
    };
    let announce = || {
        eprintln!(
            "rolling out {} ({} {units}); Ctrl-C stops and prints the trials so far",
            position_id(&pos),
            a.trials
        )
    };
    let target = Target {
        state: &state,
        pos: &pos,
        dice,
    };
    let report = report(&a, &spec(&a)?, threads, &target, hooks, &announce);
    bar.finish_and_clear();
    report?.print(a.json);
    Ok(())
}

/// What a rollout rolls out: the state of POS, the position of its side about to roll (the
/// doubler at a take question) and the roll whose plays are compared, if any.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub state: &'a MatchState,
    pub pos: &'a Position,
    pub dice: Option<Dice>,
}

/// Rolls out the target's position (the side about to roll, before rolling) or, with dice,
/// the best `a.top` plays of that roll side by side, or with `--cube` the cube decision,
/// with the settings of `a` and the players of `spec` on `threads` threads, and reports it
/// as `rollout` prints it. `announce` is called once the input is accepted, before the
/// first trial.
pub fn report(
    a: &RolloutArgs,
    spec: &EngineSpec,
    threads: usize,
    target: &Target<'_>,
    hooks: Hooks<'_>,
    announce: &dyn Fn(),
) -> Result<Report, CliError> {
    let (pos, dice) = (target.pos, target.dice);
    let settings = settings(a, threads)?;
    let rollout = Rollout::new(spec)?;
    let header = Header {
        args: a,
        spec,
        threads,
        pos,
    };
    if a.cube {
        if dice.is_some() {
            return Err(
                "--cube rolls out the cube decision before the roll: give a position without dice"
                    .into(),
            );
        }
        announce();
        let r = rollout.cube(target.state, &settings, hooks)?;
        return super::rollout_cube::cube_report(&header, target.state, &rollout, &r);
    }
    // Refused input is reported before the rollout announces itself.
    let candidates = match dice {
        Some(d) => Some(rollout.candidates(pos, d, a.top)?),
        None => None,
    };
    announce();
    match (dice, candidates) {
        (Some(d), Some(candidates)) => {
            let r = if a.cubeful {
                // The plays are the acting side's: its state, the roll aside.
                let mover = MatchState {
                    decision: Decision::Move(d),
                    ..target.state.clone()
                };
                rollout.these_plays_cubeful(&mover, &candidates, &settings, hooks)?
            } else {
                rollout.these_plays(&candidates, &settings, hooks)?
            };
            Ok(Report {
                json: plays_json(&header, d, &r),
                text: plays_text(&header, d, &r)?,
            })
        }
        _ => {
            let r = if a.cubeful {
                rollout.position_cubeful(target.state, &settings, hooks)?
            } else {
                rollout.position(pos, &settings, hooks)?
            };
            Ok(Report {
                json: position_json(&header, &r),
                text: position_text(&header, &r)?,
            })
        }
    }
}

/// The position to roll out from a position text and optional dice: the side about to
/// roll (the doubler at a take question) and the roll whose plays are compared, if any.
pub(super) fn what_to_roll_out(
    text: &str,
    dice: Option<&[u8]>,
) -> Result<(Position, Option<Dice>), CliError> {
    roll_out_target(&parse_pos_arg(text)?, dice)
}

/// The position to roll out in `state` (the side about to roll; the doubler at a take
/// question) and the roll whose plays are compared, if any: `dice` (`--dice`) or the
/// state's own roll.
pub fn roll_out_target(
    state: &MatchState,
    dice: Option<&[u8]>,
) -> Result<(Position, Option<Dice>), CliError> {
    let dice = super::pos_arg::roll_arg(dice, state)?;
    if state.decision == Decision::GameOver {
        return Err("the game is over: nothing to roll out".into());
    }
    // At a take question the doubler is the one about to roll.
    let pos = if dice.is_none() && state.decision == Decision::TakeOrDrop {
        state.position.swap()
    } else {
        state.position
    };
    if pos.is_game_over() {
        return Err("the game is over: nothing to roll out".into());
    }
    Ok((pos, dice))
}

/// The rollout settings of the arguments, checked.
pub fn settings(a: &RolloutArgs, threads: usize) -> Result<RolloutSettings, CliError> {
    if a.trials == 0 {
        return Err("--trials must be at least 1".into());
    }
    if a.truncate == Some(0) {
        return Err("--truncate must be at least 1 ply (0 would play no roll)".into());
    }
    if a.top == 0 {
        return Err("--top must be at least 1".into());
    }
    Ok(RolloutSettings {
        trials: a.trials,
        seed: a.seed,
        truncate: a.truncate,
        variance_reduction: !a.no_vr,
        threads,
    })
}

/// The players' engine spec: `--engine` (default: the shipped nets) with `--depth` and
/// `--evaluator` on top, and a small table per trial unless the spec names a size.
pub fn spec(a: &RolloutArgs) -> Result<EngineSpec, CliError> {
    let mut spec = match &a.engine {
        Some(text) => super::engine_arg::engine_arg(text)?,
        None => EngineSpec::of(EvaluatorKind::Net(None)),
    };
    if let Some(e) = super::engine_arg::renamed(&a.evaluator, &a.eval, "--evaluator", "--eval") {
        spec.evaluator = e;
    }
    if let Some(d) = a.depth {
        spec.depth = d;
        spec.min_depth = spec.min_depth.min(d);
    }
    if spec.tt_megabytes == crate::engine::spec::DEFAULT_TT_MB {
        spec.tt_megabytes = TRIAL_TT_MB;
    }
    Ok(spec)
}

pub(super) struct Header<'a> {
    pub args: &'a RolloutArgs,
    pub spec: &'a EngineSpec,
    pub threads: usize,
    pub pos: &'a Position,
}

impl Header<'_> {
    pub(super) fn json(&self, trials: u64, partial: bool, seconds: f64) -> serde_json::Value {
        let a = self.args;
        let mut v = serde_json::json!({
            "trials": trials,
            "seed": a.seed,
            "truncate": a.truncate,
            "variance_reduction": !a.no_vr,
            "partial": partial,
            "seconds": seconds,
            "depth": self.spec.depth.get(),
            "evaluator": self.spec.evaluator.to_string(),
            "threads": self.threads,
            "position_id": position_id(self.pos),
        });
        if a.cubeful || a.cube {
            v["cubeful"] = serde_json::json!(true);
            v["cube_depth"] = serde_json::json!(self.spec.cube_depth.get());
        }
        v
    }

    pub(super) fn text(&self, trials: u64, partial: bool, seconds: f64) -> String {
        let a = self.args;
        format!(
            "{trials} trials{}, seed {}, {}, depth {}{}, variance reduction {}, {:.1} s",
            if partial { " (stopped early)" } else { "" },
            a.seed,
            match a.truncate {
                Some(p) => format!("truncated after {p} plies"),
                None => "full games".to_string(),
            },
            self.spec.depth,
            if a.cubeful || a.cube {
                format!(", cubeful (cube depth {})", self.spec.cube_depth)
            } else {
                String::new()
            },
            if a.no_vr { "off" } else { "on" },
            seconds
        )
    }
}

pub(super) use crate::engine::cube_detail::r6;

/// The figures of an estimate; none (null) when no trial completed.
pub(super) fn estimate_fields(
    e: &Estimate,
    raw: &Estimate,
    trials: u64,
    vr: bool,
    out: &mut serde_json::Value,
) {
    if trials == 0 {
        for key in ["equity", "se", "probs", "probs_se"] {
            out[key] = serde_json::Value::Null;
        }
        return;
    }
    out["equity"] = serde_json::json!(r6(e.equity()));
    out["se"] = serde_json::json!(r6(e.equity_se()));
    out["probs"] = serde_json::json!(e.probs().map(r6));
    out["probs_se"] = serde_json::json!(e.probs_se().map(r6));
    if vr {
        out["raw"] = serde_json::json!({
            "equity": r6(raw.equity()),
            "se": r6(raw.equity_se()),
        });
    }
}

pub(super) fn position_json(h: &Header<'_>, r: &PositionRollout) -> serde_json::Value {
    let mut v = h.json(r.trials, r.partial, r.seconds);
    estimate_fields(&r.estimate, &r.raw, r.trials, !h.args.no_vr, &mut v);
    v
}

pub(super) fn plays_json(h: &Header<'_>, dice: Dice, r: &PlaysRollout) -> serde_json::Value {
    let mut v = h.json(r.trials, r.partial, r.seconds);
    v["dice"] = serde_json::json!([dice.high(), dice.low()]);
    let plays: Vec<serde_json::Value> = r
        .plays
        .iter()
        .map(|p| {
            let mut o = serde_json::json!({
                "move": format_play(h.pos, &p.play, MoveStyle::Gnubg),
                "diff": r6(p.diff),
                "diff_se": r6(p.diff_se),
                "search_rank": p.search_rank + 1,
            });
            estimate_fields(&p.estimate, &p.raw, r.trials, !h.args.no_vr, &mut o);
            o
        })
        .collect();
    v["plays"] = serde_json::json!(plays);
    v
}

pub(super) fn probs_text(e: &Estimate) -> String {
    let p = e.probs();
    format!(
        "win {:.3} {:.3} {:.3} - lose {:.3} {:.3} {:.3}",
        p[0],
        p[1],
        p[2],
        1.0 - p[0],
        p[3],
        p[4]
    )
}

fn position_text(h: &Header<'_>, r: &PositionRollout) -> Result<String, CliError> {
    let mut t = String::new();
    writeln!(
        t,
        "rollout of {} (side on roll, before rolling)",
        position_id(h.pos)
    )?;
    writeln!(t, "{}", h.text(r.trials, r.partial, r.seconds))?;
    writeln!(
        t,
        "{} {:+.4}  se {:.4}   {}",
        if h.args.cubeful {
            "cubeful value"
        } else {
            "cubeless equity"
        },
        r.estimate.equity(),
        r.estimate.equity_se(),
        probs_text(&r.estimate)
    )?;
    if !h.args.no_vr {
        writeln!(
            t,
            "without variance reduction: {:+.4}  se {:.4}",
            r.raw.equity(),
            r.raw.equity_se()
        )?;
    }
    Ok(t)
}

fn plays_text(h: &Header<'_>, dice: Dice, r: &PlaysRollout) -> Result<String, CliError> {
    let mut t = String::new();
    writeln!(
        t,
        "rollout of the plays of {dice} in {}",
        position_id(h.pos)
    )?;
    writeln!(t, "{}", h.text(r.trials, r.partial, r.seconds))?;
    for (k, p) in r.plays.iter().enumerate() {
        writeln!(
            t,
            "{:>3}. {:<24} {:+.4}  se {:.4}  diff {:+.4} (se {:.4})  {}",
            k + 1,
            format_play(h.pos, &p.play, MoveStyle::Gnubg),
            p.estimate.equity(),
            p.estimate.equity_se(),
            p.diff,
            p.diff_se,
            probs_text(&p.estimate)
        )?;
    }
    Ok(t)
}

/// Raises `stop` at the first SIGINT; a second one ends the process. The handler is
/// registered before this returns, so a Ctrl-C right after start is not lost.
pub(super) fn stop_on_ctrl_c(stop: Arc<AtomicBool>, what: &'static str) -> Result<(), CliError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("signal handler: {e}"))?;
    #[cfg(unix)]
    let mut interrupts = {
        let _guard = rt.enter();
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
            .map_err(|e| format!("signal handler: {e}"))?
    };
    std::thread::Builder::new()
        .name("rollout-signals".into())
        .spawn(move || {
            rt.block_on(async move {
                #[cfg(unix)]
                {
                    if interrupts.recv().await.is_none() {
                        return;
                    }
                    stop.store(true, Ordering::Relaxed);
                    eprintln!("interrupted: {what}");
                    if interrupts.recv().await.is_some() {
                        std::process::exit(130);
                    }
                }
                #[cfg(not(unix))]
                {
                    if tokio::signal::ctrl_c().await.is_ok() {
                        stop.store(true, Ordering::Relaxed);
                        eprintln!("interrupted: {what}");
                    }
                    if tokio::signal::ctrl_c().await.is_ok() {
                        std::process::exit(130);
                    }
                }
            });
        })
        .map_err(|e| format!("signal handler: {e}"))?;
    Ok(())
}

//! `stargammon rollout --positions FILE [--shard I/N] [--out FILE]` and `stargammon rollout
//! --merge PART... [--out FILE]`: rollouts of many positions as JSON lines, split into
//! shards for job arrays and joined again.
//!
//! Each position is rolled out exactly as `stargammon rollout POS --json` would with the
//! same settings and seed, and written as one line: the position's 1-based `line` in FILE,
//! its `input` text, then the single rollout's JSON fields without the timing (`seconds`,
//! `threads`), so that the lines depend only on FILE and the settings. A line that cannot
//! be rolled out gets `error` (the one-line message the single command prints) instead.
//! With --out, lines already in the file are kept and their positions skipped: a run
//! stopped by Ctrl-C (the position under way is dropped, never written half done), a
//! crash or a scheduler's time limit resumes where it stopped. `--merge` orders the lines
//! of the parts by `line` and refuses two different lines for one position, so the parts
//! of any sharding merge into the bytes of one unsharded run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::batch::{self, Entry};
use super::rollout::{
    plays_json, position_json, settings, spec, stop_on_ctrl_c, what_to_roll_out, Header,
    RolloutArgs,
};
use super::CliError;
use crate::engine::EngineSpec;
use crate::rollout::{Hooks, Rollout, RolloutSettings};

/// What `resume` and `merge` call this command's output.
const WHAT: &str = "rollout --positions";

/// What one position gives: its JSON line, or None when the rollout was stopped first.
fn roll_out(
    a: &RolloutArgs,
    spec: &EngineSpec,
    rollout: &Rollout,
    settings: &RolloutSettings,
    entry: &Entry,
    stop: &AtomicBool,
) -> Option<serde_json::Value> {
    let mut v = serde_json::json!({"line": entry.line, "input": entry.text});
    match roll_out_fields(a, spec, rollout, settings, &entry.text, stop) {
        Ok(Some(fields)) => {
            if let (Some(obj), serde_json::Value::Object(f)) = (v.as_object_mut(), fields) {
                for (k, x) in f {
                    if k != "seconds" && k != "threads" {
                        obj.insert(k, x);
                    }
                }
            }
        }
        Ok(None) => return None,
        Err(e) => v["error"] = serde_json::json!(super::one_line(&e.to_string())),
    }
    Some(v)
}

fn roll_out_fields(
    a: &RolloutArgs,
    spec: &EngineSpec,
    rollout: &Rollout,
    settings: &RolloutSettings,
    text: &str,
    stop: &AtomicBool,
) -> Result<Option<serde_json::Value>, CliError> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let (pos_text, dice): (&str, Option<Vec<u8>>) = match tokens.as_slice() {
        [p] => (p, None),
        [p, d1, d2] => {
            let die = |d: &str| {
                d.parse::<u8>()
                    .map_err(|_| format!("bad die {d:?}: a die shows 1 to 6"))
            };
            (p, Some(vec![die(d1)?, die(d2)?]))
        }
        _ => return Err("expected `POS` or `POS D1 D2` on the line".into()),
    };
    let (pos, dice) = what_to_roll_out(pos_text, dice.as_deref())?;
    let header = Header {
        args: a,
        spec,
        threads: settings.threads,
        pos: &pos,
    };
    let hooks = Hooks {
        stop,
        progress: &|_| {},
    };
    let v = match dice {
        Some(d) => {
            let candidates = rollout.candidates(&pos, d, a.top)?;
            let r = rollout.these_plays(&candidates, settings, hooks)?;
            if r.partial {
                return Ok(None);
            }
            plays_json(&header, d, &r)
        }
        None => {
            let r = rollout.position(&pos, settings, hooks)?;
            if r.partial {
                return Ok(None);
            }
            position_json(&header, &r)
        }
    };
    Ok(Some(v))
}

/// `rollout --positions FILE`.
pub fn run(a: &RolloutArgs) -> Result<(), CliError> {
    let file = a.positions.as_deref().ok_or("--positions needs a FILE")?;
    let (shard, shards) = super::shard_arg(&a.shard)?;
    let threads = super::threads_arg(a.threads)?;
    let settings = settings(a, threads)?;
    let share = batch::share(file, shard, shards, a.out.as_deref(), WHAT)?;
    let todo = &share.todo;
    let mut out = batch::open_out(a.out.as_deref())?;
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_ctrl_c(stop.clone(), "stopping after the position under way")?;
    let spec = spec(a)?;
    let rollout = Rollout::new(&spec)?;
    eprintln!(
        "rolling out {} of {} positions (shard {shard}/{shards}, {} already done), {} trials each",
        todo.len(),
        share.total,
        share.total - todo.len(),
        a.trials
    );
    let bar = indicatif::ProgressBar::new(todo.len() as u64);
    for entry in todo {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let Some(v) = roll_out(a, &spec, &rollout, &settings, entry, &stop) else {
            break;
        };
        batch::write_line(&mut out, &v)?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    if stop.load(Ordering::Relaxed) {
        return Err("stopped: run the same command again to resume".into());
    }
    Ok(())
}

/// `rollout --merge PART... [--out FILE]`.
pub fn merge(parts: &[std::path::PathBuf], out: Option<&std::path::Path>) -> Result<(), CliError> {
    batch::merge(parts, out, WHAT)
}

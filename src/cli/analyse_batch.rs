//! `stargammon analyse --files LIST [--shard I/N] [--out FILE]` and `stargammon analyse
//! --merge PART... [--out FILE]`: the analysis of many match files as JSON lines, split
//! into shards for job arrays and joined again.
//!
//! Each file is analysed as `stargammon analyse FILE --json` would at the same depth, by
//! engines built afresh for it (no table carried over from the file before), and written
//! as one line: the file's 1-based `line` in LIST, its `input` text (the path as listed),
//! then the single command's JSON fields without `seconds`, `file` being the path as
//! listed; so the lines depend only on LIST, the files and the depth. A file that cannot
//! be read or replayed gets `error` (the one-line message the single command prints)
//! instead. Relative paths are read from LIST's directory, so a job array finds the files
//! wherever its tasks run. Resuming, shards and the merge are those of
//! [`super::batch`].

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::analyse::{file_json, AnalyseArgs, RolloutPlan};
use super::batch::{self, Entry};
use super::CliError;
use crate::engine::EngineSpec;
use crate::search::Cancel;

/// What `resume` and `merge` call this command's output.
const WHAT: &str = "analyse --files";

/// The path of a listed file: as listed when absolute, else from the list's directory.
fn listed_path(list: &Path, listed: &str) -> PathBuf {
    let p = Path::new(listed);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    match list.parent() {
        Some(dir) => dir.join(p),
        None => p.to_path_buf(),
    }
}

/// One file's line.
fn analyse_one(
    list: &Path,
    entry: &Entry,
    spec: &EngineSpec,
    threads: usize,
    plan: Option<&RolloutPlan>,
) -> Result<serde_json::Value, CliError> {
    let mut v = serde_json::json!({"line": entry.line, "input": entry.text});
    let path = listed_path(list, &entry.text);
    // A file's rollouts run whole: a stop is seen between files, so that each line
    // written is what an uninterrupted run writes.
    let fields = file_json(&path, &entry.text, spec, threads, plan, &Cancel::new());
    match fields {
        Ok(serde_json::Value::Object(f)) => {
            if let Some(obj) = v.as_object_mut() {
                obj.extend(f);
            }
        }
        Ok(_) => return Err("the analysis is not a JSON object".into()),
        Err(e) => v["error"] = serde_json::json!(super::one_line(&e.to_string())),
    }
    Ok(v)
}

/// `analyse --files LIST`.
pub fn run(a: &AnalyseArgs, spec: &EngineSpec, threads: usize) -> Result<(), CliError> {
    let list = a.files.as_deref().ok_or("--files needs a LIST")?;
    let (shard, shards) = super::shard_arg(&a.shard)?;
    let share = batch::share(list, shard, shards, a.out.as_deref(), WHAT)?;
    let todo = &share.todo;
    let mut out = batch::open_out(a.out.as_deref())?;
    let plan = RolloutPlan::of(a, threads)?;
    let stop = Arc::new(AtomicBool::new(false));
    super::rollout::stop_on_ctrl_c(stop.clone(), "stopping after the match file under way")?;
    eprintln!(
        "analysing {} of {} match files (shard {shard}/{shards}, {} already done) at depth {}",
        todo.len(),
        share.total,
        share.total - todo.len(),
        spec.depth.get()
    );
    let bar = if a.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(todo.len() as u64)
    };
    for entry in todo {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let v = analyse_one(list, entry, spec, threads, plan.as_ref())?;
        // A stop raised during the file leaves its analysis whole: it is written.
        batch::write_line(&mut out, &v)?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    if stop.load(Ordering::Relaxed) {
        return Err("stopped: run the same command again to resume".into());
    }
    Ok(())
}

/// `analyse --merge PART... [--out FILE]`.
pub fn merge(parts: &[PathBuf], out: Option<&Path>) -> Result<(), CliError> {
    batch::merge(parts, out, WHAT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_paths_are_read_from_the_list_directory() {
        let list = Path::new("runs/matches/list.txt");
        assert_eq!(
            listed_path(list, "a/m1.mat"),
            PathBuf::from("runs/matches/a/m1.mat")
        );
        assert_eq!(listed_path(list, "/x/m2.mat"), PathBuf::from("/x/m2.mat"));
        assert_eq!(
            listed_path(Path::new("list.txt"), "m3.mat"),
            PathBuf::from("m3.mat")
        );
    }
}

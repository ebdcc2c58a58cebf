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

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::rollout::{
    plays_json, position_json, settings, spec, stop_on_ctrl_c, what_to_roll_out, Header,
    RolloutArgs,
};
use super::CliError;
use crate::rollout::{Hooks, Rollout, RolloutSettings};

/// One position of the input: its 1-based line number and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub line: u64,
    pub text: String,
}

/// The positions of an input file, in order: every line but blank ones and `#` comments.
/// Bytes that are not UTF-8 are kept as replacement characters (the line then fails to
/// parse as a position and gets its error line).
pub fn entries(input: &[u8]) -> Vec<Entry> {
    String::from_utf8_lossy(input)
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim();
            (!t.is_empty() && !t.starts_with('#')).then(|| Entry {
                line: i as u64 + 1,
                text: t.to_string(),
            })
        })
        .collect()
}

/// The `line` of a JSON line already written, if it is a complete object with one.
fn line_of(text: &str) -> Option<u64> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()?
        .get("line")?
        .as_u64()
}

/// Reads an output file to resume: the lines complete so far (a final line cut short by
/// a stop is dropped, and the file truncated to before it) and the positions they cover.
fn resume(path: &Path) -> Result<BTreeMap<u64, ()>, CliError> {
    let mut done = BTreeMap::new();
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(done),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display()).into()),
    };
    let mut keep = 0usize;
    for chunk in bytes.split_inclusive(|&b| b == b'\n') {
        let complete = chunk.ends_with(b"\n");
        let line = std::str::from_utf8(chunk)
            .ok()
            .and_then(|t| line_of(t.trim_end()));
        match (complete, line) {
            (true, Some(n)) => {
                done.insert(n, ());
                keep += chunk.len();
            }
            (false, _) => break,
            (true, None) => {
                return Err(format!(
                    "{} is not an output of `rollout --positions` (a line without its `line`)",
                    path.display()
                )
                .into())
            }
        }
    }
    if keep < bytes.len() {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        f.set_len(keep as u64)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(done)
}

/// What one position gives: its JSON line, or None when the rollout was stopped first.
fn roll_out(
    a: &RolloutArgs,
    rollout: &Rollout,
    settings: &RolloutSettings,
    entry: &Entry,
    stop: &AtomicBool,
) -> Option<serde_json::Value> {
    let mut v = serde_json::json!({"line": entry.line, "input": entry.text});
    match roll_out_fields(a, rollout, settings, &entry.text, stop) {
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
    let input = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let mine: Vec<Entry> = entries(&input)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % shards == shard)
        .map(|(_, e)| e)
        .collect();
    let done = match &a.out {
        Some(p) => resume(p)?,
        None => BTreeMap::new(),
    };
    let todo: Vec<&Entry> = mine
        .iter()
        .filter(|e| !done.contains_key(&e.line))
        .collect();
    let mut out: Box<dyn Write> = match &a.out {
        Some(p) => Box::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| format!("cannot write {}: {e}", p.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_ctrl_c(stop.clone(), "stopping after the position under way")?;
    let rollout = Rollout::new(&spec(a))?;
    eprintln!(
        "rolling out {} of {} positions (shard {shard}/{shards}, {} already done), {} trials each",
        todo.len(),
        mine.len(),
        mine.len() - todo.len(),
        a.trials
    );
    let bar = indicatif::ProgressBar::new(todo.len() as u64);
    for entry in todo {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let Some(v) = roll_out(a, &rollout, &settings, entry, &stop) else {
            break;
        };
        // One write per line, flushed at once, so a stop leaves whole lines behind.
        out.write_all(format!("{v}\n").as_bytes())?;
        out.flush()?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    if stop.load(Ordering::Relaxed) {
        return Err("stopped: run the same command again to resume".into());
    }
    Ok(())
}

/// `rollout --merge PART... [--out FILE]`.
pub fn merge(parts: &[std::path::PathBuf], out: Option<&Path>) -> Result<(), CliError> {
    let mut lines: BTreeMap<u64, String> = BTreeMap::new();
    for p in parts {
        let f = std::fs::File::open(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        for (i, l) in std::io::BufReader::new(f).lines().enumerate() {
            let l = l.map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            if l.trim().is_empty() {
                continue;
            }
            let n = line_of(&l).ok_or_else(|| {
                format!(
                    "{}:{}: not a line of `rollout --positions` output",
                    p.display(),
                    i + 1
                )
            })?;
            if let Some(old) = lines.get(&n) {
                if *old != l {
                    return Err(format!(
                        "{}: two different results for input line {n}: the parts come from different runs",
                        p.display()
                    )
                    .into());
                }
            }
            lines.insert(n, l);
        }
    }
    let mut text = String::new();
    for l in lines.values() {
        text.push_str(l);
        text.push('\n');
    }
    match out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_skip_blanks_and_comments_and_keep_line_numbers() {
        let e = entries(b"# header\n\n4HPwATDgc/ABMA\n  4HPwATDgc/ABMA 3 1  \n\xff\xfe\n");
        assert_eq!(e.len(), 3);
        assert_eq!(e[0].line, 3);
        assert_eq!(e[1].text, "4HPwATDgc/ABMA 3 1");
        assert_eq!(e[2].line, 5);
    }

    #[test]
    fn line_numbers_come_from_complete_objects_only() {
        assert_eq!(line_of(r#"{"line":7,"input":"x"}"#), Some(7));
        assert_eq!(line_of(r#"{"line":7,"inp"#), None);
        assert_eq!(line_of("[1,2]"), None);
        assert_eq!(line_of(""), None);
    }
}

//! What the batch commands share (`rollout --positions`, `analyse --files`): an input file
//! of one item per line, JSON-lines output that resumes after a stop, shards for job
//! arrays, and the merge of the shards' outputs.
//!
//! Every output line is one JSON object whose `line` is the 1-based line number of its
//! item in the input file. A run writes whole lines only (one write each, flushed), so a
//! stop leaves at most a last line cut short, which [`resume`] drops. [`merge`] orders the
//! parts' lines by `line` and refuses two different lines for one item: the parts of any
//! sharding join into the bytes of one unsharded run, provided each line depends only on
//! its item and the settings (no timings, no thread counts).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use super::CliError;

/// One item of the input: its 1-based line number and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub line: u64,
    pub text: String,
}

/// The items of an input file, in order: every line but blank ones and `#` comments.
/// Bytes that are not UTF-8 are kept as replacement characters (the item then fails to
/// parse and gets its error line).
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

/// The items of shard `shard` of `shards`: those with index % shards == shard, counting
/// items (not lines) from 0 in file order.
pub fn shard_of(all: Vec<Entry>, shard: u64, shards: u64) -> Vec<Entry> {
    all.into_iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % shards == shard)
        .map(|(_, e)| e)
        .collect()
}

/// One task's share of a batch input file: its entries (shard `shard` of `shards`) and,
/// of those, the ones the output file `out` does not hold yet.
#[derive(Debug)]
pub struct Share {
    /// Entries in this task's shard.
    pub total: usize,
    /// Entries in this task's shard still to do, in file order.
    pub todo: Vec<Entry>,
}

/// Reads `input`, keeps shard `shard` of `shards`, and drops what the output file `out`
/// already covers (see [`resume`]; `what` names the command).
pub fn share(
    input: &Path,
    shard: u64,
    shards: u64,
    out: Option<&Path>,
    what: &str,
) -> Result<Share, CliError> {
    let bytes =
        std::fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let mine = shard_of(entries(&bytes), shard, shards);
    let done = match out {
        Some(p) => resume(p, what)?,
        None => BTreeSet::new(),
    };
    let total = mine.len();
    let todo = mine
        .into_iter()
        .filter(|e| !done.contains(&e.line))
        .collect();
    Ok(Share { total, todo })
}

/// The `line` of a JSON line already written, if it is a complete object with one.
pub fn line_of(text: &str) -> Option<u64> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()?
        .get("line")?
        .as_u64()
}

/// Reads an output file to resume: the items its complete lines cover. A final line cut
/// short by a stop is dropped, and the file truncated to before it. `what` names the
/// command whose output the file should be (for the error on a foreign file).
pub fn resume(path: &Path, what: &str) -> Result<BTreeSet<u64>, CliError> {
    let mut done = BTreeSet::new();
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
                done.insert(n);
                keep += chunk.len();
            }
            (false, _) => break,
            (true, None) => {
                return Err(format!(
                    "{} is not an output of `{what}` (a line without its `line`)",
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

/// Where a batch writes: `--out FILE` opened for appending, or stdout.
pub fn open_out(out: Option<&Path>) -> Result<Box<dyn Write>, CliError> {
    Ok(match out {
        Some(p) => Box::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| format!("cannot write {}: {e}", p.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    })
}

/// Writes one output line at once and flushes it, so that a stop leaves whole lines.
pub fn write_line(out: &mut dyn Write, v: &serde_json::Value) -> Result<(), CliError> {
    out.write_all(format!("{v}\n").as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Joins the parts of one batch run into `out` (or stdout), ordered by `line`; the same
/// line in two parts must be the same bytes. `what` names the command that wrote them.
pub fn merge(parts: &[PathBuf], out: Option<&Path>, what: &str) -> Result<(), CliError> {
    let mut lines: BTreeMap<u64, String> = BTreeMap::new();
    for p in parts {
        let f = std::fs::File::open(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        for (i, l) in std::io::BufReader::new(f).lines().enumerate() {
            let l = l.map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            if l.trim().is_empty() {
                continue;
            }
            let n = line_of(&l).ok_or_else(|| {
                format!("{}:{}: not a line of `{what}` output", p.display(), i + 1)
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
    fn shards_count_items_not_lines_and_cover_each_once() {
        let all = entries(b"a\n# c\nb\n\nc\nd\ne\n");
        let parts: Vec<Vec<u64>> = (0..3)
            .map(|s| shard_of(all.clone(), s, 3).iter().map(|e| e.line).collect())
            .collect();
        assert_eq!(parts, vec![vec![1, 6], vec![3, 7], vec![5]]);
    }

    #[test]
    fn line_numbers_come_from_complete_objects_only() {
        assert_eq!(line_of(r#"{"line":7,"input":"x"}"#), Some(7));
        assert_eq!(line_of(r#"{"line":7,"inp"#), None);
        assert_eq!(line_of("[1,2]"), None);
        assert_eq!(line_of(""), None);
    }
}

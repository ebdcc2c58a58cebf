//! Batch analysis of many match files (`analyse --files`): each line is what the single
//! command gives for that file, shards merge into the bytes of one unsharded run, a run
//! cut short resumes from the lines it wrote, and bad input gets typed errors.
#![allow(clippy::unwrap_used)]

mod common;

use common::{json_of, stargammon};
use std::path::{Path, PathBuf};

/// A list naming the committed matches from its own directory (relative paths), one file
/// twice, and one that does not exist.
const LIST: &str = "# matches\n\
net_vs_noisy.mat\n\
\n\
bad_66.mat\n\
missing.mat\n\
net_vs_noisy.mat\n";

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sg-analyse-batch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for f in ["net_vs_noisy.mat", "bad_66.mat"] {
        std::fs::copy(Path::new("tests/data/analyse").join(f), d.join(f)).unwrap();
    }
    std::fs::write(d.join("list.txt"), LIST).unwrap();
    d
}

fn batch(list: &Path, out: &Path, shard: &str) -> std::process::Output {
    stargammon(&[
        "analyse",
        "--files",
        list.to_str().unwrap(),
        "--threads",
        "2",
        "--quiet",
        "--shard",
        shard,
        "--out",
        out.to_str().unwrap(),
    ])
}

#[test]
fn shards_merge_into_the_unsharded_run_and_runs_resume() {
    let d = dir("shards");
    let list = d.join("list.txt");
    let whole = d.join("whole.jsonl");
    let out = batch(&list, &whole, "0/1");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&whole).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines
            .iter()
            .map(|v| v["line"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![2, 4, 5, 6]
    );
    // The missing file gets its one-line error; the others their analysis, the same for
    // the same file wherever it stands in the list.
    assert!(
        lines[2]["error"]
            .as_str()
            .unwrap()
            .starts_with("missing.mat: "),
        "{}",
        lines[2]
    );
    assert!(lines[1]["players"].is_array());
    let mut first = lines[0].as_object().unwrap().clone();
    let mut last = lines[3].as_object().unwrap().clone();
    first.remove("line");
    last.remove("line");
    assert_eq!(first, last);

    // Each line is the single command's JSON for that file, timing aside.
    let single = json_of(&stargammon(&[
        "analyse",
        d.join("bad_66.mat").to_str().unwrap(),
        "--threads",
        "1",
        "--json",
        "--quiet",
    ]));
    let mut expected = single.as_object().unwrap().clone();
    expected.remove("seconds");
    expected.insert("file".into(), "bad_66.mat".into());
    let mut got = lines[1].as_object().unwrap().clone();
    assert_eq!(got.remove("line").unwrap(), 4);
    assert_eq!(got.remove("input").unwrap(), "bad_66.mat");
    assert_eq!(got, expected);

    // Three shards on one thread each, merged: the same bytes.
    let parts: Vec<PathBuf> = (0..3).map(|i| d.join(format!("part{i}.jsonl"))).collect();
    for (i, p) in parts.iter().enumerate() {
        let out = stargammon(&[
            "analyse",
            "--files",
            list.to_str().unwrap(),
            "--threads",
            "1",
            "--quiet",
            "--shard",
            &format!("{i}/3"),
            "--out",
            p.to_str().unwrap(),
        ]);
        assert!(out.status.success());
    }
    let merged = d.join("merged.jsonl");
    let mut args = vec!["analyse", "--out", merged.to_str().unwrap(), "--merge"];
    args.extend(parts.iter().rev().map(|p| p.to_str().unwrap()));
    assert!(stargammon(&args).status.success());
    assert_eq!(std::fs::read(&merged).unwrap(), text.as_bytes());

    // A run cut off mid-line: the complete lines stay, the cut one is redone.
    let resumed = d.join("resumed.jsonl");
    let cut = text.find('\n').unwrap() + 1 + 40;
    std::fs::write(&resumed, &text.as_bytes()[..cut]).unwrap();
    assert!(batch(&list, &resumed, "0/1").status.success());
    assert_eq!(std::fs::read_to_string(&resumed).unwrap(), text);
    // Run again when complete: nothing to do, nothing changes.
    assert!(batch(&list, &resumed, "0/1").status.success());
    assert_eq!(std::fs::read_to_string(&resumed).unwrap(), text);

    // Parts of different runs do not merge.
    let other = d.join("other.jsonl");
    std::fs::write(&other, text.replacen("\"line\":2", "\"line\":2,\"x\":1", 1)).unwrap();
    let out = stargammon(&[
        "analyse",
        "--merge",
        whole.to_str().unwrap(),
        other.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_batch_arguments_are_one_line_errors() {
    let d = dir("bad");
    let missing = d.join("missing.txt");
    for args in [
        vec!["analyse", "--files", missing.to_str().unwrap()],
        vec!["analyse", "--files", "x", "--shard", "3/3"],
        vec!["analyse", "--files", "x", "--shard", "1/0"],
        vec!["analyse", "m.mat", "--files", "x"],
        vec!["analyse", "m.mat", "--shard", "0/2"],
        vec!["analyse", "--merge", missing.to_str().unwrap()],
        vec!["analyse"],
    ] {
        let out = stargammon(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).lines().count(),
            1,
            "{args:?}"
        );
    }
    // A file that is not our output is refused rather than appended to.
    let junk = d.join("junk.jsonl");
    std::fs::write(&junk, "hello\n").unwrap();
    assert_eq!(
        batch(&d.join("list.txt"), &junk, "0/1").status.code(),
        Some(2)
    );
    assert_eq!(std::fs::read_to_string(&junk).unwrap(), "hello\n");
    let _ = std::fs::remove_dir_all(&d);
}

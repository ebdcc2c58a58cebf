//! Batch rollouts of a position file (`rollout --positions`): each line is what the single
//! command gives for that position, shards merge into the bytes of one unsharded run, and a
//! run cut short resumes from the lines it wrote.
#![allow(clippy::unwrap_used)]

mod common;

use common::{json_of, stargammon};
use std::path::{Path, PathBuf};

const INPUT: &str = "# a few positions, one with its roll, one bad\n\
4HPwATDgc/ABMA\n\
\n\
4HPwATDgc/ABMA 3 1\n\
not-a-position\n\
sGfwATDgc/ABMA\n\
XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10\n";

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sg-rollout-batch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn batch(input: &Path, out: &Path, shard: &str) -> std::process::Output {
    stargammon(&[
        "rollout",
        "--positions",
        input.to_str().unwrap(),
        "--trials",
        "36",
        "--truncate",
        "6",
        "--top",
        "2",
        "--threads",
        "2",
        "--shard",
        shard,
        "--out",
        out.to_str().unwrap(),
    ])
}

#[test]
fn shards_merge_into_the_unsharded_run_and_runs_resume() {
    let d = dir("shards");
    let input = d.join("positions.txt");
    std::fs::write(&input, INPUT).unwrap();
    let whole = d.join("whole.jsonl");
    let out = batch(&input, &whole, "0/1");
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
        vec![2, 4, 5, 6, 7]
    );
    // The bad line gets its one-line error; the others their figures.
    assert!(
        lines[2]["error"].as_str().unwrap().len() > 5,
        "{}",
        lines[2]
    );
    assert_eq!(lines[1]["plays"].as_array().unwrap().len(), 2);
    assert!(lines[0]["equity"].is_number());

    // Each line is the single command's JSON for that position, timing aside.
    let single = json_of(&stargammon(&[
        "rollout",
        "4HPwATDgc/ABMA",
        "--dice",
        "3",
        "1",
        "--trials",
        "36",
        "--truncate",
        "6",
        "--top",
        "2",
        "--threads",
        "1",
        "--json",
    ]));
    let mut expected = single.as_object().unwrap().clone();
    expected.remove("seconds");
    expected.remove("threads");
    let mut got = lines[1].as_object().unwrap().clone();
    assert_eq!(got.remove("line").unwrap(), 4);
    assert_eq!(got.remove("input").unwrap(), "4HPwATDgc/ABMA 3 1");
    assert_eq!(got, expected);

    // Three shards, merged: the same bytes.
    let parts: Vec<PathBuf> = (0..3).map(|i| d.join(format!("part{i}.jsonl"))).collect();
    for (i, p) in parts.iter().enumerate() {
        let out = batch(&input, p, &format!("{i}/3"));
        assert!(out.status.success());
    }
    let merged = d.join("merged.jsonl");
    let mut args = vec!["rollout", "--out", merged.to_str().unwrap(), "--merge"];
    args.extend(parts.iter().rev().map(|p| p.to_str().unwrap()));
    assert!(stargammon(&args).status.success());
    assert_eq!(std::fs::read(&merged).unwrap(), text.as_bytes());

    // A run cut off mid-line: the complete lines stay, the cut one is redone.
    let resumed = d.join("resumed.jsonl");
    let cut = text.find('\n').unwrap() + 1 + 40;
    std::fs::write(&resumed, &text.as_bytes()[..cut]).unwrap();
    assert!(batch(&input, &resumed, "0/1").status.success());
    assert_eq!(std::fs::read_to_string(&resumed).unwrap(), text);
    // Run again when complete: nothing to do, nothing changes.
    assert!(batch(&input, &resumed, "0/1").status.success());
    assert_eq!(std::fs::read_to_string(&resumed).unwrap(), text);

    // Parts of different runs do not merge.
    let other = d.join("other.jsonl");
    std::fs::write(
        &other,
        text.replacen("\"line\":2,", "\"line\":2,\"x\":1,", 1),
    )
    .unwrap();
    let out = stargammon(&[
        "rollout",
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
        vec!["rollout", "--positions", missing.to_str().unwrap()],
        vec!["rollout", "--positions", "x", "--shard", "3/3"],
        vec!["rollout", "4HPwATDgc/ABMA", "--positions", "x"],
        vec!["rollout", "--merge", missing.to_str().unwrap()],
        vec!["rollout"],
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
    let input = d.join("in.txt");
    std::fs::write(&input, "4HPwATDgc/ABMA\n").unwrap();
    let junk = d.join("junk.jsonl");
    std::fs::write(&junk, "hello\n").unwrap();
    assert_eq!(batch(&input, &junk, "0/1").status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&junk).unwrap(), "hello\n");
    let _ = std::fs::remove_dir_all(&d);
}

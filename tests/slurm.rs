//! The long jobs as Slurm job arrays (scripts/slurm/), on a real single-node cluster started
//! here by scripts/slurm/local_cluster.sh (Debian's slurm-wlm and munge, run as root):
//! distillation data, batch rollouts, the strength set's labels and batch analysis, each
//! submitted as a 4-task array with its merge as a dependent job, give byte for byte what
//! the same commands give run once on this machine. In the distillation and rollout jobs
//! one task fails on purpose (its output path is taken by a file or directory of the wrong
//! kind), the merge is cancelled, and the task resubmitted alone (`--array K`) with a new
//! merge gives the same bytes.
//!
//! Slurm missing fails the test (scripts/test.sh installs it); STARGAMMON_SKIP_SLURM=1
//! skips it outside CI.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_stargammon");
const SKIP: &str = "STARGAMMON_SKIP_SLURM";

/// Where Slurm's and munge's programs are, if all are installed.
fn slurm() -> Option<PathBuf> {
    let sbin = |n: &str| {
        let p = Path::new("/usr/sbin").join(n);
        p.is_file().then_some(p).or_else(|| common::on_path(&[n]))
    };
    sbin("munged")?;
    sbin("slurmd")?;
    common::on_path(&["sbatch"])?;
    sbin("slurmctld")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Two free consecutive loopback ports (slurmctld's and slurmd's).
fn free_port_pair() -> u16 {
    for _ in 0..50 {
        let a = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let p = a.local_addr().unwrap().port();
        if p < u16::MAX && std::net::TcpListener::bind(("127.0.0.1", p + 1)).is_ok() {
            return p;
        }
    }
    panic!("no two free consecutive ports");
}

/// The cluster, stopped when the test ends however it ends.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

impl Cluster {
    fn start(dir: &Path) -> Cluster {
        let out = Command::new("scripts/slurm/local_cluster.sh")
            .arg("start")
            .arg(dir)
            .env("SG_SLURM_PORT", free_port_pair().to_string())
            .output()
            .unwrap();
        let cluster = Cluster {
            dir: dir.to_path_buf(),
            conf: dir.join("slurm.conf"),
        };
        assert!(
            out.status.success(),
            "the cluster did not start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        cluster
    }

    /// A command with this cluster's configuration and the binary under test.
    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf)
            .env("SG_BIN", BIN)
            .env("PATH", path_with_sbin());
        c
    }

    /// `submit.sh JOB OUT 4 [--array K] -- ARGS` with `input` (its variable and path):
    /// the array's and the merge's job ids.
    fn submit(
        &self,
        job: &str,
        out: &Path,
        array: Option<&str>,
        input: (&str, &Path),
        args: &[&str],
    ) -> Vec<String> {
        let mut c = self.command("scripts/slurm/submit.sh");
        c.arg(job).arg(out).arg("4");
        if let Some(k) = array {
            c.args(["--array", k]);
        }
        c.arg("--").args(args).env(input.0, input.1);
        let o = c.output().unwrap();
        assert!(
            o.status.success(),
            "submit {job}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let ids: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .map(String::from)
            .collect();
        assert_eq!(ids.len(), 2, "{ids:?}");
        ids
    }

    /// Waits for jobs with scripts/slurm/wait.sh: each job or task with its state.
    fn wait(&self, ids: &[String]) -> Vec<(String, String)> {
        let o = self
            .command("scripts/slurm/wait.sh")
            .args(ids)
            .env("SG_WAIT_SECONDS", "150")
            .output()
            .unwrap();
        assert_ne!(
            o.status.code(),
            Some(124),
            "jobs still running; logs in {}",
            self.dir.display()
        );
        let mut states: Vec<(String, String)> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| {
                let (id, state) = l.split_once(' ')?;
                Some((id.to_string(), state.to_string()))
            })
            .collect();
        states.sort();
        states
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("scripts/slurm/local_cluster.sh")
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

fn path_with_sbin() -> String {
    format!("{}:/usr/sbin", std::env::var("PATH").unwrap_or_default())
}

/// The states of an array's tasks (in task order) and then of the merge job.
fn states_of(states: &[(String, String)], ids: &[String]) -> (Vec<String>, String) {
    let tasks: Vec<String> = (0..4)
        .map(|k| {
            let id = format!("{}_{k}", ids[0]);
            states
                .iter()
                .find(|(i, _)| *i == id)
                .map(|(_, s)| s.clone())
                .unwrap_or_else(|| panic!("no state for {id} in {states:?}"))
        })
        .collect();
    let merge = states
        .iter()
        .find(|(i, _)| *i == ids[1])
        .map(|(_, s)| s.clone())
        .unwrap_or_else(|| panic!("no state for {} in {states:?}", ids[1]));
    (tasks, merge)
}

fn run(args: &[&str]) {
    let o = Command::new(BIN).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every file of a data directory, by name.
fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                read(&e.path()),
            )
        })
        .collect();
    v.sort();
    v
}

const DISTILL: &str = "dir = \"unused\"\n\
seed = 7\n\
games_per_chunk = 2\n\
chunks = 8\n\
keep = 0.2\n\
labeller = \"net,depth=3\"\n\
sources = [\"net,noise=0.04 vs net,noise=0.04\", \"net vs pubeval\"]\n\
threads = 1\n";

const ROLLOUT_ARGS: [&str; 4] = ["--trials", "36", "--truncate", "5"];
const LABEL_ARGS: [&str; 8] = [
    "--spec",
    "net",
    "--trials",
    "36",
    "--truncate",
    "5",
    "--top",
    "3",
];

#[test]
fn job_arrays_on_a_real_cluster_merge_into_the_one_machine_run() {
    let Some(_) = common::peer_or_skip(
        "job_arrays_on_a_real_cluster_merge_into_the_one_machine_run",
        "Slurm and munge (slurmctld, slurmd, sbatch, munged) and root",
        slurm().filter(|_| is_root()),
        SKIP,
        "(/usr/sbin, PATH; as root): apt-get install slurm-wlm munge",
    ) else {
        return;
    };
    let started = Instant::now();
    let t = std::env::temp_dir().join(format!("sg-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&t);
    std::fs::create_dir_all(&t).unwrap();
    let p = |name: &str| t.join(name);
    let s = |path: &Path| path.to_str().unwrap().to_string();

    // The inputs, and every job run once on this machine, unsharded, on one thread.
    std::fs::write(p("distill.toml"), DISTILL).unwrap();
    let one = p("one");
    std::fs::create_dir_all(&one).unwrap();
    run(&[
        "distill",
        "generate",
        "--config",
        &s(&p("distill.toml")),
        "--threads",
        "1",
        "--dir",
        &s(&one.join("distill")),
    ]);
    let dump = Command::new(BIN)
        .args(["distill", "dump", "--every", "3", "--limit", "8", "--data"])
        .arg(one.join("distill"))
        .output()
        .unwrap();
    let mut positions: String = String::from_utf8_lossy(&dump.stdout)
        .lines()
        .filter_map(|l| l.split('\t').nth(1))
        .map(|id| format!("{id}\n"))
        .collect();
    positions.push_str("# the opening roll's plays\n4HPwATDgc/ABMA 3 1\n");
    assert_eq!(positions.lines().count(), 10, "{positions}");
    std::fs::write(p("positions.txt"), &positions).unwrap();
    let mut rollout = vec!["rollout", "--positions"];
    let positions_path = s(&p("positions.txt"));
    let one_rollouts = s(&one.join("rollouts.jsonl"));
    rollout.extend([positions_path.as_str(), "--threads", "1", "--out"]);
    rollout.push(&one_rollouts);
    rollout.extend(ROLLOUT_ARGS);
    run(&rollout);
    run(&[
        "bench",
        "strength-set",
        "sample",
        "--out",
        &s(&p("sample.txt")),
        "--contact",
        "6",
        "--race",
        "3",
        "--bearoff",
        "3",
    ]);
    let mut label = vec!["bench", "strength-set", "label", "--threads", "1"];
    let (sample, labels) = (s(&p("sample.txt")), s(&one.join("labels.txt")));
    label.extend(["--sample", &sample, "--out", &labels]);
    label.extend(LABEL_ARGS);
    run(&label);
    run(&[
        "bench",
        "strength-set",
        "merge",
        "--sample",
        &sample,
        "--out",
        &s(&one.join("set.txt")),
        &labels,
    ]);
    for f in ["net_vs_noisy.mat", "bad_66.mat"] {
        std::fs::copy(Path::new("tests/data/analyse").join(f), p(f)).unwrap();
    }
    std::fs::write(
        p("matches.txt"),
        "net_vs_noisy.mat\nbad_66.mat\nmissing.mat\nnet_vs_noisy.mat\nbad_66.mat\n",
    )
    .unwrap();
    run(&[
        "analyse",
        "--files",
        &s(&p("matches.txt")),
        "--threads",
        "1",
        "--quiet",
        "--out",
        &s(&one.join("analysis.jsonl")),
    ]);
    let one_machine = started.elapsed().as_secs_f64();

    // The cluster, and the four jobs at once; distillation's task 1 and the rollouts'
    // task 2 fail: their output paths are taken.
    let cluster = Cluster::start(&p("cluster"));
    let jobs = p("jobs");
    for j in ["distill", "rollout", "strength", "analyse"] {
        std::fs::create_dir_all(jobs.join(j)).unwrap();
    }
    std::fs::write(jobs.join("distill/shard-1"), "not a directory").unwrap();
    std::fs::create_dir_all(jobs.join("rollout/part-2.jsonl")).unwrap();
    let submitted = Instant::now();
    let distill = cluster.submit(
        "distill",
        &jobs.join("distill"),
        None,
        ("SG_CONFIG", &p("distill.toml")),
        &[],
    );
    let roll = cluster.submit(
        "rollout",
        &jobs.join("rollout"),
        None,
        ("SG_POSITIONS", &p("positions.txt")),
        &ROLLOUT_ARGS,
    );
    let strength = cluster.submit(
        "strength",
        &jobs.join("strength"),
        None,
        ("SG_SAMPLE", &p("sample.txt")),
        &LABEL_ARGS,
    );
    let analyse = cluster.submit(
        "analyse",
        &jobs.join("analyse"),
        None,
        ("SG_FILES", &p("matches.txt")),
        &[],
    );
    let all: Vec<String> = [&distill, &roll, &strength, &analyse]
        .iter()
        .flat_map(|ids| ids.iter().cloned())
        .collect();
    let states = cluster.wait(&all);
    let done = |n: usize| vec!["COMPLETED".to_string(); n];
    let failed_at = |k: usize| {
        let mut v = done(4);
        v[k] = "FAILED".into();
        v
    };
    assert_eq!(
        states_of(&states, &distill),
        (failed_at(1), "CANCELLED".into()),
        "{states:?}"
    );
    assert_eq!(
        states_of(&states, &roll),
        (failed_at(2), "CANCELLED".into()),
        "{states:?}"
    );
    assert_eq!(states_of(&states, &strength), (done(4), "COMPLETED".into()));
    assert_eq!(states_of(&states, &analyse), (done(4), "COMPLETED".into()));
    assert!(!jobs.join("distill/merged").exists());
    assert!(!jobs.join("rollout/rollouts.jsonl").exists());
    let first_round = submitted.elapsed().as_secs_f64();

    // The two failed tasks, fixed and resubmitted alone, each with a new merge.
    std::fs::remove_file(jobs.join("distill/shard-1")).unwrap();
    std::fs::remove_dir(jobs.join("rollout/part-2.jsonl")).unwrap();
    let resubmitted = Instant::now();
    let distill2 = cluster.submit(
        "distill",
        &jobs.join("distill"),
        Some("1"),
        ("SG_CONFIG", &p("distill.toml")),
        &[],
    );
    let roll2 = cluster.submit(
        "rollout",
        &jobs.join("rollout"),
        Some("2"),
        ("SG_POSITIONS", &p("positions.txt")),
        &ROLLOUT_ARGS,
    );
    let mut ids = distill2.clone();
    ids.extend(roll2.iter().cloned());
    let states = cluster.wait(&ids);
    assert!(
        states.iter().all(|(_, s)| s == "COMPLETED") && states.len() == 4,
        "{states:?}"
    );
    let second_round = resubmitted.elapsed().as_secs_f64();

    // Byte for byte what one machine wrote.
    assert_eq!(
        files_of(&jobs.join("distill/merged")),
        files_of(&one.join("distill"))
    );
    assert_eq!(
        read(&jobs.join("rollout/rollouts.jsonl")),
        read(&one.join("rollouts.jsonl"))
    );
    assert_eq!(
        read(&jobs.join("strength/set.txt")),
        read(&one.join("set.txt"))
    );
    assert_eq!(
        read(&jobs.join("analyse/analysis.jsonl")),
        read(&one.join("analysis.jsonl"))
    );
    // Every job wrote only in its own directory (and Slurm's logs in its logs/).
    let mut written: Vec<String> = std::fs::read_dir(jobs.join("rollout"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            "logs",
            "part-0.jsonl",
            "part-1.jsonl",
            "part-2.jsonl",
            "part-3.jsonl",
            "rollouts.jsonl"
        ]
    );
    drop(cluster);
    eprintln!(
        "slurm test: one machine {one_machine:.1} s; first round (4 arrays, 2 failures) \
         {first_round:.1} s; resubmission {second_round:.1} s; in all {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&t);
}

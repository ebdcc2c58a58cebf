//! The Kubernetes manifests of deploy/: valid against the Kubernetes API's schemas
//! (kubernetes-validate, strict, offline), in agreement with the image (docker/Dockerfile:
//! its environment, working directory, config path and ports) and with the binary (every
//! STARGAMMON_* variable is one the configuration accepts, the pool's workers match the
//! CPUs requested, the autoscaler's metric is one /metrics serves), and the Indexed Jobs'
//! commands, run here with the volume in a temporary directory, merge their shards into
//! the bytes of a one-shard run.
//!
//! kubernetes-validate (and the PyYAML it brings) missing fails the tests; scripts/test.sh
//! installs it, and STARGAMMON_SKIP_KUBEVAL=1 skips them outside CI.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const SKIP: &str = "STARGAMMON_SKIP_KUBEVAL";
/// A Kubernetes version whose schemas kubernetes-validate bundles.
const KUBERNETES: &str = "1.33.0";

fn manifests() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![PathBuf::from("deploy")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    files
}

fn kubeval(test: &str) -> Option<PathBuf> {
    common::peer_or_skip(
        test,
        "kubernetes-validate",
        common::on_path(&["kubernetes-validate"]),
        SKIP,
        "(PATH): python3 -m pip install kubernetes-validate",
    )
}

fn validate(files: &[PathBuf]) -> std::process::Output {
    Command::new("kubernetes-validate")
        .args(["--strict", "--quiet", "-k", KUBERNETES])
        .args(files)
        .output()
        .unwrap()
}

#[test]
fn manifests_match_the_kubernetes_api_schemas() {
    if kubeval("manifests_match_the_kubernetes_api_schemas").is_none() {
        return;
    }
    let files = manifests();
    let out = validate(&files);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The check is strict: a field the API does not know fails it.
    let d = std::env::temp_dir().join(format!("sg-deploy-strict-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let bad = d.join("bad.yaml");
    let text = std::fs::read_to_string("deploy/server/service.yaml").unwrap();
    std::fs::write(&bad, text.replace("  selector:", "  selectr:")).unwrap();
    assert!(!validate(&[bad]).status.success());
    let _ = std::fs::remove_dir_all(&d);
}

/// Every document of deploy/, as (file, document).
fn documents() -> Vec<(String, Value)> {
    let out = Command::new("python3")
        .arg("scripts/yaml_json.py")
        .args(manifests())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    all.into_iter()
        .map(|v| (v["file"].as_str().unwrap().to_string(), v["doc"].clone()))
        .collect()
}

fn find<'a>(docs: &'a [(String, Value)], kind: &str, name: &str) -> &'a Value {
    docs.iter()
        .map(|(_, d)| d)
        .find(|d| d["kind"] == kind && d["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in deploy/"))
}

/// A container's environment as name -> value.
fn env_of(container: &Value) -> BTreeMap<String, String> {
    container["env"]
        .as_array()
        .map(|vars| {
            vars.iter()
                .map(|v| {
                    (
                        v["name"].as_str().unwrap().to_string(),
                        v["value"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What docker/Dockerfile's runtime stage sets: ENV variables, WORKDIR, CMD.
struct Image {
    env: BTreeMap<String, String>,
    workdir: String,
    cmd: Vec<String>,
}

fn image() -> Image {
    let text = std::fs::read_to_string("docker/Dockerfile").unwrap();
    // Join continued lines, then read the last stage.
    let joined = text.replace("\\\n", " ");
    let last_stage = joined.rsplit("\nFROM ").next().unwrap();
    let mut img = Image {
        env: BTreeMap::new(),
        workdir: String::new(),
        cmd: Vec::new(),
    };
    for line in last_stage.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("ENV ") {
            for pair in rest.split_whitespace() {
                let (k, v) = pair.split_once('=').unwrap();
                img.env.insert(k.to_string(), v.to_string());
            }
        } else if let Some(rest) = line.strip_prefix("WORKDIR ") {
            img.workdir = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("CMD ") {
            img.cmd = serde_json::from_str(rest).unwrap();
        }
    }
    assert!(!img.env.is_empty() && !img.workdir.is_empty() && !img.cmd.is_empty());
    img
}

fn port_of(addr: &str) -> u64 {
    addr.rsplit_once(':').unwrap().1.parse().unwrap()
}

fn stargammon_vars(env: &BTreeMap<String, String>) -> Vec<(String, String)> {
    env.iter()
        .filter(|(k, _)| k.starts_with("STARGAMMON_"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[test]
fn the_server_manifests_agree_with_the_image_and_the_binary() {
    if kubeval("the_server_manifests_agree_with_the_image_and_the_binary").is_none() {
        return;
    }
    let docs = documents();
    let img = image();
    let deployment = find(&docs, "Deployment", "stargammon");
    let pod = &deployment["spec"]["template"]["spec"];
    let c = &pod["containers"][0];
    let env = env_of(c);

    // The image's variables: kept as the image sets them, or not set here.
    for (k, v) in &img.env {
        if let Some(mine) = env.get(k) {
            assert_eq!(mine, v, "{k}: the Deployment and docker/Dockerfile differ");
        }
    }
    // The image's command, with the config the image ships (from its working directory).
    let command: Vec<String> = serde_json::from_value(c["command"].clone()).unwrap();
    assert_eq!(command, img.cmd);
    let config_path = &command[command.iter().position(|a| a == "--config").unwrap() + 1];
    let in_repo = config_path
        .strip_prefix(&format!("{}/", img.workdir))
        .unwrap_or_else(|| panic!("{config_path} is not under the image's {}", img.workdir));
    assert!(Path::new(in_repo).is_file(), "{in_repo}");

    // Every STARGAMMON_* variable (the image's and the Deployment's) is one the binary
    // accepts, over the config the image runs with.
    let mut all = img.env.clone();
    all.extend(env.clone());
    let config =
        stargammon::config::Config::load_with_env(Some(Path::new(in_repo)), stargammon_vars(&all))
            .unwrap_or_else(|e| panic!("the binary refuses the manifest's variables: {e}"));

    // Ports: the listeners' ports are the container's named ports, which the Service and
    // the probes use.
    let ports: BTreeMap<String, u64> = c["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["containerPort"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(ports["line"], port_of(&config.server.listen));
    assert_eq!(ports["http"], port_of(&config.http.listen));
    let exposed: Vec<u64> = std::fs::read_to_string("docker/Dockerfile")
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("EXPOSE "))
        .flat_map(|l| l.split_whitespace().map(|p| p.parse::<u64>().unwrap()))
        .collect();
    assert!(exposed.contains(&ports["line"]), "{exposed:?}");
    for probe in ["startupProbe", "readinessProbe", "livenessProbe"] {
        assert_eq!(c[probe]["httpGet"]["path"], "/healthz", "{probe}");
        assert_eq!(c[probe]["httpGet"]["port"], "http", "{probe}");
    }
    let service = find(&docs, "Service", "stargammon");
    for p in service["spec"]["ports"].as_array().unwrap() {
        let target = p["targetPort"].as_str().unwrap();
        assert!(ports.contains_key(target), "Service targets {target}");
    }
    assert_eq!(
        service["spec"]["selector"],
        deployment["spec"]["selector"]["matchLabels"]
    );

    // The pool's workers are the CPUs requested (and the limit: no worker waits for a CPU
    // it was not given).
    let cpu = |what: &str| -> f64 {
        let s = c["resources"][what]["cpu"].as_str().unwrap();
        match s.strip_suffix('m') {
            Some(m) => m.parse::<f64>().unwrap() / 1000.0,
            None => s.parse().unwrap(),
        }
    };
    assert_eq!(config.engine.threads as f64, cpu("requests"));
    assert_eq!(cpu("limits"), cpu("requests"));
    // A stop has time to finish: the grace period exceeds the server's.
    let grace_s = pod["terminationGracePeriodSeconds"].as_u64().unwrap();
    assert!(grace_s * 1000 > config.server.shutdown_grace_ms);

    // That server, on loopback: /healthz reports the workers, /metrics serves the metric
    // the autoscaler scales on.
    let mut local = config.clone();
    local.server.listen = "127.0.0.1:0".into();
    local.http.listen = "127.0.0.1:0".into();
    let server = common::ServerThread::with_http(&local);
    let http = server.http.unwrap();
    let (status, health) = common::http_json(http, "GET", "/healthz", None);
    assert_eq!(status, 200);
    assert_eq!(health["workers"], config.engine.threads);
    let (status, _, metrics) = common::http_request(http, "GET", "/metrics", None);
    assert_eq!(status, 200);
    let metrics = String::from_utf8(metrics).unwrap();
    let hpa = find(&docs, "HorizontalPodAutoscaler", "stargammon");
    assert_eq!(hpa["spec"]["scaleTargetRef"]["name"], "stargammon");
    let mut custom = 0;
    for m in hpa["spec"]["metrics"].as_array().unwrap() {
        if m["type"] == "Pods" {
            let name = m["pods"]["metric"]["name"].as_str().unwrap();
            assert!(
                metrics
                    .lines()
                    .any(|l| l.starts_with(&format!("{name} "))
                        || l.starts_with(&format!("{name}{{"))),
                "/metrics has no {name}"
            );
            custom += 1;
        }
    }
    assert_eq!(custom, 1);
}

/// The Indexed Jobs and their merges: (job, task command, merge command, shards).
fn jobs(docs: &[(String, Value)]) -> Vec<(String, String, String, u64)> {
    let command = |job: &Value| -> (String, u64, Value) {
        let c = &job["spec"]["template"]["spec"]["containers"][0];
        let cmd = c["command"].as_array().unwrap();
        assert_eq!(cmd[0], "sh");
        assert_eq!(cmd[1], "-c");
        let shards: u64 = env_of(c)["SG_SHARDS"].parse().unwrap();
        (cmd[2].as_str().unwrap().to_string(), shards, c.clone())
    };
    let mut out = Vec::new();
    for (file, d) in docs {
        if d["kind"] != "Job" || d["spec"]["completionMode"] != "Indexed" {
            continue;
        }
        let name = d["metadata"]["name"].as_str().unwrap();
        let (task, shards, c) = command(d);
        assert_eq!(d["spec"]["completions"], shards, "{file}: SG_SHARDS");
        assert!(task.contains("$JOB_COMPLETION_INDEX/$SG_SHARDS"), "{file}");
        // The image's user, and the volume the merge reads.
        assert_eq!(c["workingDir"], image().workdir.as_str(), "{file}");
        let merge = find(docs, "Job", &format!("{name}-merge"));
        let (merge_cmd, merge_shards, _) = command(merge);
        assert_eq!(merge_shards, shards, "{file}: the merge's SG_SHARDS");
        out.push((name.to_string(), task, merge_cmd, shards));
    }
    out
}

/// Runs a Job's shell command as its pod would, with the volume at `data`, the binary
/// under test as `stargammon`, `shards` shards and index `index`.
fn run_pod(command: &str, data: &Path, bin_dir: &Path, shards: u64, index: Option<u64>) {
    let command = command.replace("/data/", &format!("{}/", data.display()));
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(&command)
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin_dir.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("SG_SHARDS", shards.to_string());
    if let Some(i) = index {
        c.env("JOB_COMPLETION_INDEX", i.to_string());
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A file's bytes, or a directory's files by name.
fn contents(p: &Path) -> Vec<(String, Vec<u8>)> {
    if p.is_file() {
        return vec![(String::new(), std::fs::read(p).unwrap())];
    }
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn the_indexed_jobs_merge_their_shards_into_a_one_shard_run() {
    if kubeval("the_indexed_jobs_merge_their_shards_into_a_one_shard_run").is_none() {
        return;
    }
    let docs = documents();
    let jobs = jobs(&docs);
    let mut names: Vec<&str> = jobs.iter().map(|j| j.0.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "stargammon-analyse",
            "stargammon-distill",
            "stargammon-rollout",
            "stargammon-strength"
        ]
    );
    let t = std::env::temp_dir().join(format!("sg-deploy-jobs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&t);
    let bin_dir = t.join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_stargammon"), bin_dir.join("stargammon"))
        .unwrap();

    // The inputs on each "volume": one for a one-shard run, one for three shards.
    let one = t.join("one");
    let three = t.join("three");
    for data in [&one, &three] {
        let input = data.join("input");
        std::fs::create_dir_all(&input).unwrap();
        std::fs::write(
            input.join("positions.txt"),
            "4HPwATDgc/ABMA\nsGfwATDgc/ABMA\n4HPwATDgc/ABMA 3 1\nnot-a-position\n",
        )
        .unwrap();
        for f in ["net_vs_noisy.mat", "bad_66.mat"] {
            std::fs::copy(Path::new("tests/data/analyse").join(f), input.join(f)).unwrap();
        }
        std::fs::write(
            input.join("matches.txt"),
            "net_vs_noisy.mat\nbad_66.mat\nmissing.mat\n",
        )
        .unwrap();
        std::fs::write(
            input.join("distill.toml"),
            "dir = \"unused\"\nseed = 3\ngames_per_chunk = 2\nchunks = 5\nkeep = 0.2\n\
             labeller = \"net,depth=3\"\nsources = [\"net vs pubeval\"]\nthreads = 1\n",
        )
        .unwrap();
        let out = common::stargammon(&[
            "bench",
            "strength-set",
            "sample",
            "--out",
            input.join("sample.txt").to_str().unwrap(),
            "--contact",
            "3",
            "--race",
            "2",
            "--bearoff",
            "1",
        ]);
        assert!(out.status.success());
    }
    // What each merge leaves, and the settings made small enough for a test.
    let results = [
        ("stargammon-rollout", "jobs/rollout/rollouts.jsonl"),
        ("stargammon-analyse", "jobs/analyse/analysis.jsonl"),
        ("stargammon-strength", "jobs/strength/set.txt"),
        ("stargammon-distill", "jobs/distill/merged"),
    ];
    let small = |cmd: &str| {
        cmd.replace("--trials 1296 --truncate 11", "--trials 36 --truncate 5")
            .replace("--plies 2", "--plies 0")
            .replace(
                "--sample /data/input/sample.txt --shard",
                "--sample /data/input/sample.txt --trials 12 --top 3 --shard",
            )
    };
    for (name, task, merge, _) in &jobs {
        let task = small(task);
        run_pod(&task, &one, &bin_dir, 1, Some(0));
        run_pod(merge, &one, &bin_dir, 1, None);
        for i in 0..3 {
            run_pod(&task, &three, &bin_dir, 3, Some(i));
        }
        run_pod(merge, &three, &bin_dir, 3, None);
        // The merge can run again: the same result.
        run_pod(merge, &three, &bin_dir, 3, None);
        let result = results.iter().find(|r| r.0 == name).unwrap().1;
        let a = contents(&one.join(result));
        assert!(
            !a.is_empty() && a.iter().all(|(_, b)| !b.is_empty()),
            "{name}"
        );
        assert_eq!(a, contents(&three.join(result)), "{name}");
    }
    let _ = std::fs::remove_dir_all(&t);
}

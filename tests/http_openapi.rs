//! The OpenAPI document is kept true by a schema-based fuzzer: schemathesis reads
//! `/openapi.json` from a running server and sends every operation its documented examples
//! and generated requests, valid and invalid, checking that nothing answers with a server
//! error, that every status, content type and body is the documented one, and that
//! schema-violating requests are refused.
//!
//! One check is left out: "positive data acceptance" (every schema-valid request gets a
//! 2xx). A schema cannot say which strings are legal positions or which boards hold 15
//! checkers a side, so a schema-valid request may rightly get a 400.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{on_path, peer_or_skip, ServerThread};
use stargammon::config::Config;

/// Set to `1`, lets this test skip when schemathesis is missing (not under `CI=true`).
const SKIP: &str = "STARGAMMON_SKIP_SCHEMATHESIS";

fn schemathesis() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("STARGAMMON_SCHEMATHESIS").filter(|p| !p.is_empty()) {
        let p = std::path::PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    on_path(&["schemathesis"])
}

#[test]
fn the_server_keeps_to_its_openapi_document() {
    let Some(st) = peer_or_skip(
        "the_server_keeps_to_its_openapi_document",
        "schemathesis",
        schemathesis(),
        SKIP,
        "(STARGAMMON_SCHEMATHESIS, PATH): pip install schemathesis",
    ) else {
        return;
    };
    let mut config = Config::throughput();
    config.engine.threads = 2;
    config.engine.tt_megabytes = 8;
    // Deep searches and long rollouts are cut short, so the run stays brief.
    config.server.max_request_ms = 300;
    config.http.max_rollout_trials = 64;
    let server = ServerThread::with_http(&config);
    let http = server.http.unwrap();
    let work = std::env::temp_dir().join(format!("sg-schemathesis-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let mut child = Command::new(&st)
        .args([
            "run",
            &format!("http://{http}/openapi.json"),
            "--max-examples",
            "25",
            "--seed",
            "1",
            "--no-color",
            "--request-timeout",
            "60",
            "--exclude-checks",
            "positive_data_acceptance",
            "--generation-database",
            "none",
        ])
        .current_dir(&work)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(400);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let output = reader.join().unwrap();
    let _ = std::fs::remove_dir_all(&work);
    let status = status.unwrap_or_else(|| panic!("schemathesis ran over 400 s:\n{output}\n{err}"));
    assert!(
        status.success(),
        "schemathesis found problems:\n{output}\n{err}"
    );
    assert!(output.contains("passed"), "{output}");
    // The fuzzer reached the decision routes, not only the error paths.
    let decisions = server
        .shared
        .metrics()
        .decisions(stargammon::server::metrics::Protocol::Http);
    assert!(
        decisions >= 11,
        "only {decisions} answered requests:\n{output}"
    );
}

//! The board page end to end in the real browser: headless Chromium, driven over its
//! DevTools pipe by `scripts/board_page_check.mjs`, loads `/` from a running server, gets an
//! XGID pasted into its box, shows the ranked plays and the cube decision the API gives, and
//! redraws the board when a play is clicked.
//!
//! `STARGAMMON_UPDATE_SCREENSHOT=1` writes the page as the test leaves it to
//! docs/board_page.png.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{http_json, on_path, peer_or_skip, ServerThread};
use serde_json::Value;
use stargammon::config::Config;

/// Set to `1`, lets this test skip when Chromium or Node.js is missing (not under
/// `CI=true`).
const SKIP: &str = "STARGAMMON_SKIP_BROWSER";

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("STARGAMMON_CHROMIUM").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    let apt = PathBuf::from("/usr/bin/chromium");
    if apt.is_file() {
        return Some(apt);
    }
    on_path(&["chromium", "chromium-browser"])
}

#[test]
fn the_board_page_shows_plays_and_cube_and_follows_a_click() {
    let test = "the_board_page_shows_plays_and_cube_and_follows_a_click";
    let install =
        "(STARGAMMON_CHROMIUM, /usr/bin/chromium, PATH): install the Debian package chromium";
    let Some(browser) = peer_or_skip(test, "Chromium", chromium(), SKIP, install) else {
        return;
    };
    let Some(node) = peer_or_skip(
        test,
        "Node.js",
        on_path(&["node"]),
        SKIP,
        "(PATH): install the Debian package nodejs",
    ) else {
        return;
    };
    let mut config = Config::throughput();
    config.engine.threads = 2;
    config.engine.tt_megabytes = 8;
    let server = ServerThread::with_http(&config);
    let http = server.http.unwrap();
    // The opening, 3-1 to play, as a user would paste it.
    let xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10";
    let (_, api) = http_json(
        http,
        "POST",
        "/v1/move",
        Some(&format!(r#"{{"position":"{xgid}"}}"#)),
    );
    let (_, cube) = http_json(
        http,
        "POST",
        "/v1/cube",
        Some(&format!(r#"{{"position":"{xgid}"}}"#)),
    );
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shot = if std::env::var("STARGAMMON_UPDATE_SCREENSHOT").as_deref() == Ok("1") {
        root.join("docs/board_page.png")
    } else {
        std::env::temp_dir().join(format!("sg-board-page-{}.png", std::process::id()))
    };
    let out = Command::new(node)
        .arg(root.join("scripts/board_page_check.mjs"))
        .args(["--url", &format!("http://{http}/")])
        .args(["--position", xgid])
        .args(["--play", "2"])
        .args(["--screenshot", shot.to_str().unwrap()])
        .args(["--chromium", browser.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the page check failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The ranked plays as the API ranks them, best first.
    let shown: Vec<&str> = page["plays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row[1].as_str().unwrap())
        .collect();
    let ranked: Vec<&str> = api["plays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["move"].as_str().unwrap())
        .collect();
    assert_eq!(shown, ranked);
    assert_eq!(shown[0], "8/5 6/5");
    // The cube decision.
    assert_eq!(page["cube"], cube["cube"]["action"]);
    assert_eq!(page["cube_equities"].as_array().unwrap().len(), 3);
    // The board: the opening with 30 checkers drawn, then the position after the second
    // play once it is clicked.
    let joined = |v: &Value| -> String {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    assert_eq!(
        page["analysed_board"],
        joined(&api["position"]["board"]).as_str()
    );
    assert_eq!(page["checkers_drawn"], 30);
    assert_eq!(
        page["after_board"],
        joined(&api["plays"][1]["board"]).as_str()
    );
    assert_ne!(page["after_board"], page["analysed_board"]);
    assert_eq!(page["shown_row"], "1");
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    if !shot.starts_with(root.join("docs")) {
        let _ = std::fs::remove_file(&shot);
    }
}

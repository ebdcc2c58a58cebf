//! The HTTP API over a real loopback socket: its answers against the command line's
//! (`hint --json`, the same engine and nets), every position format, errors as JSON with
//! 4xx statuses for any bytes, rollouts, and `/metrics` counting all three protocols.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};

use common::{http_json, http_request, json_of, stargammon, ServerThread, GNUBG_OPENING_21};
use serde_json::Value;
use stargammon::config::Config;

/// A 5-point match, 2-1, player on roll with 4-3 (XGID), and money positions by id.
const XGID_MATCH: &str = "XGID=-b----E-C---eE---c-e----B-:0:0:1:43:2:1:0:5:10";
const CONTACT_ID: &str = "4HPwATDgc/ABMA";
const MIDGAME: &str = "XGID=-a-BaBC-B---cD--ac-d---A--:0:0:1:00:0:0:0:0:10";

fn server() -> ServerThread {
    let mut config = Config::throughput();
    config.engine.threads = 2;
    config.engine.tt_megabytes = 8;
    config.http.max_rollout_trials = 200;
    ServerThread::with_http(&config)
}

fn post(s: &ServerThread, path: &str, body: &str) -> (u16, Value) {
    http_json(s.http.unwrap(), "POST", path, Some(body))
}

fn get(s: &ServerThread, target: &str) -> (u16, Value) {
    http_json(s.http.unwrap(), "GET", target, None)
}

fn round(x: &Value) -> i64 {
    (x.as_f64().unwrap() * 1e4).round() as i64
}

/// `stargammon hint POS --depth 1 --json` with `extra` arguments, on the server's
/// configuration (the throughput one, float nets).
fn hint_at_depth_1(pos: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "hint",
        pos,
        "--depth",
        "1",
        "--json",
        "--config",
        "config/throughput.toml",
    ];
    args.extend_from_slice(extra);
    json_of(&stargammon(&args))
}

#[test]
fn plays_agree_with_the_command_line() {
    let s = server();
    for (pos, dice) in [
        (XGID_MATCH, None),
        (CONTACT_ID, Some([6, 4])),
        (MIDGAME, Some([5, 5])),
    ] {
        let body = match dice {
            Some([a, b]) => format!(r#"{{"position":"{pos}","dice":[{a},{b}],"depth":1}}"#),
            None => format!(r#"{{"position":"{pos}","depth":1}}"#),
        };
        let (status, api) = post(&s, "/v1/move", &body);
        assert_eq!(status, 200, "{api}");
        let dice_text: Vec<String> = dice.iter().flatten().map(|d| d.to_string()).collect();
        let dice_args: Vec<&str> = match dice_text.as_slice() {
            [a, b] => vec!["--dice", a, b],
            _ => vec![],
        };
        let cli = hint_at_depth_1(pos, &dice_args);
        // The same plays with the same cubeless equities and probabilities.
        let table = |v: &Value| -> BTreeMap<String, (i64, Vec<i64>)> {
            v["plays"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    let probs = p["probs"].as_array().unwrap().iter().map(round).collect();
                    (
                        p["move"].as_str().unwrap().to_string(),
                        (round(&p["equity"]), probs),
                    )
                })
                .collect()
        };
        assert_eq!(table(&api), table(&cli), "{pos}");
        assert!(!api["plays"].as_array().unwrap().is_empty());
        // Best first by the engine's own value at the score.
        let values: Vec<f64> = api["plays"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["cubeful"].as_f64().unwrap())
            .collect();
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
        let unit = if pos == XGID_MATCH {
            "match winning chance"
        } else {
            "equity"
        };
        assert_eq!(api["cubeful_unit"], unit);
        assert_eq!(api["depth"], 1);
        // One position summary: `show --json` gives the API's, key for key.
        let shown = json_of(&stargammon(&["show", pos, "--json"]));
        let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
        assert_eq!(keys(&shown), keys(&api["position"]), "{pos}");
        for key in [
            "variant",
            "position_id",
            "board",
            "pips",
            "off",
            "bar",
            "cube",
            "cube_owner",
            "match_length",
            "score",
            "crawford",
            "acting_player",
        ] {
            assert_eq!(shown[key], api["position"][key], "{pos}: {key}");
        }
    }
}

#[test]
fn the_cube_decision_agrees_with_the_command_line() {
    let s = server();
    for pos in [
        CONTACT_ID,
        MIDGAME,
        "XGID=-a-BaBC-B---cD--ac-d---A--:0:0:1:D:0:0:0:0:10",
        // The side to roll may not double: the cube is the opponent's, or this is the
        // Crawford game. The analysis still comes, saying "no double".
        "XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:4:1:7:10",
    ] {
        let (status, api) = post(&s, "/v1/cube", &format!(r#"{{"position":"{pos}"}}"#));
        assert_eq!(status, 200, "{api}");
        let cli = hint_at_depth_1(pos, &[]);
        assert_eq!(api["cube"]["action"], cli["cube"]["action"], "{pos}");
        assert_eq!(api["cube"]["cube_available"], cli["cube"]["cube_available"]);
        assert_eq!(api["cube"]["reason"], cli["cube"]["reason"], "{pos}");
        for k in ["no_double", "double_take", "double_pass"] {
            // Where the roller may not double, the command line gives no_double alone.
            if cli["cube"]["equities"].get(k).is_some() {
                assert_eq!(
                    round(&api["cube"]["equities"][k]),
                    round(&cli["cube"]["equities"][k]),
                    "{pos} {k}"
                );
            }
        }
        assert_eq!(api["evaluation"]["roller"], cli["evaluation"]["roller"]);
        // The detail: gnubg's wording, take and cash points, costs, market losers.
        for k in ["proper_text", "too_good"] {
            assert_eq!(api["cube"][k], cli["cube"][k], "{pos} {k}");
        }
        let numbers = |v: &Value| -> Vec<(String, i64)> {
            let mut out = Vec::new();
            for k in ["cubeless", "take_point", "cash_point", "too_good_point"] {
                if let Some(x) = v.get(k).filter(|x| !x.is_null()) {
                    out.push((k.to_string(), round(x)));
                }
            }
            for group in ["take_points", "cash_points", "costs", "market_losers"] {
                if let Some(m) = v.get(group).and_then(Value::as_object) {
                    out.extend(m.iter().map(|(k, x)| (format!("{group}.{k}"), round(x))));
                }
            }
            out
        };
        assert_eq!(numbers(&api["cube"]), numbers(&cli["cube"]), "{pos}");
        let available = cli["cube"]["cube_available"] == true;
        assert_eq!(api["cube"].get("costs").is_some(), available, "{pos}");
        assert_eq!(
            api["cube"].get("market_losers").is_some(),
            available,
            "{pos}"
        );
    }
}

#[test]
fn every_position_format_and_get_give_the_same_answer() {
    let s = server();
    let opening = "0,-2,0,0,0,0,5,0,3,0,0,0,-5,5,0,0,0,-3,0,-5,0,0,0,0,2,0";
    let (_, by_id) = post(
        &s,
        "/v1/move",
        r#"{"position":"4HPwATDgc/ABMA","dice":[3,1]}"#,
    );
    let (_, by_board) = post(
        &s,
        "/v1/move",
        &format!(r#"{{"position":[{opening}],"dice":[3,1]}}"#),
    );
    let (_, by_xgid) = post(
        &s,
        "/v1/move",
        // Jacoby and beavers (rules field 3), as the server's defaults: a position's own
        // rules win, and cubeful values depend on them.
        r#"{"position":"XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:3:0:10"}"#,
    );
    let (_, by_get) = get(&s, "/v1/move?position=4HPwATDgc%2FABMA&dice=3-1");
    let (_, by_fibs) = post(
        &s,
        "/v1/move",
        &format!(r#"{{"position":"{GNUBG_OPENING_21}","dice":[3,1]}}"#),
    );
    let plays = |v: &Value| v["plays"].clone();
    assert_eq!(plays(&by_id)[0]["move"], "8/5 6/5");
    for other in [&by_board, &by_xgid, &by_get, &by_fibs] {
        assert_eq!(plays(other), plays(&by_id));
    }
    assert_eq!(by_id["position"]["position_id"], "4HPwATDgc/ABMA");
    assert_eq!(by_board["position"]["board"].as_array().unwrap().len(), 26);
    // The board after the best play, from the mover's view, and its id with the
    // opponent on roll (as `stargammon moves`).
    let best = &plays(&by_id)[0];
    assert_eq!(best["board"][5], 2);
    assert_eq!(best["board"][8], 2);
    let moves = json_of(&stargammon(&[
        "moves",
        "4HPwATDgc/ABMA",
        "3",
        "1",
        "--json",
    ]));
    let after = moves["plays"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["move"] == "8/5 6/5")
        .unwrap();
    assert_eq!(best["position_id"], after["position_id"]);
    // Evaluations: the opening is close to even, and a cubeless equity matches the
    // probabilities.
    let (status, e) = get(&s, "/v1/eval?position=4HPwATDgc%2FABMA&depth=1");
    assert_eq!(status, 200, "{e}");
    let ev = &e["evaluation"];
    let p: Vec<f64> = ev["probs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let eq = 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4];
    assert!((eq - ev["equity"].as_f64().unwrap()).abs() < 1e-3, "{e}");
    assert!(ev["equity"].as_f64().unwrap().abs() < 0.15, "{e}");
}

#[test]
fn bad_input_is_a_json_error_with_a_4xx_status() {
    let s = server();
    let addr = s.http.unwrap();
    let finished =
        r#"{"position":[0,-15,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"dice":[1,2]}"#;
    let cases: [(&str, &str, Option<&str>, u16, &str); 11] = [
        ("POST", "/v1/move", Some(finished), 400, "game is over"),
        ("POST", "/v1/move", Some("not json"), 400, "not JSON"),
        (
            "POST",
            "/v1/move",
            Some(r#"{"position":"4HPwATDgc/ABMA"}"#),
            400,
            "no dice",
        ),
        (
            "POST",
            "/v1/move",
            Some(r#"{"position":"nonsense","dice":[1,2]}"#),
            400,
            "position",
        ),
        (
            "POST",
            "/v1/cube",
            Some(r#"{"position":"4HPwATDgc/ABMA","x":1}"#),
            400,
            "unknown",
        ),
        ("GET", "/v1/eval", None, 400, "position is required"),
        (
            "GET",
            "/v1/eval?position=4HPwATDgc%2FABMA&depth=4",
            None,
            400,
            "odd depth",
        ),
        ("GET", "/v1/move?position=%FF%FE", None, 400, "position"),
        ("DELETE", "/v1/move", None, 405, "method"),
        ("GET", "/v2/move", None, 404, "no such"),
        (
            "POST",
            "/v1/rollout",
            Some(r#"{"position":"4HPwATDgc/ABMA","trials":100000}"#),
            400,
            "trials",
        ),
    ];
    for (method, target, body, status, text) in cases {
        let (got, v) = http_json(addr, method, target, body);
        assert_eq!(got, status, "{method} {target}: {v}");
        let msg = v["error"].as_str().unwrap();
        assert!(msg.contains(text), "{method} {target}: {msg}");
    }
    let big = format!(r#"{{"position":"{}"}}"#, "a".repeat(20_000));
    let (status, v) = http_json(addr, "POST", "/v1/move", Some(&big));
    assert_eq!(status, 413, "{v}");
    // Any bytes: a client error, never a server error or a dropped connection.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for n in 0..200 {
        let len = (n * 7) % 300;
        let junk: Vec<u8> = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // Mostly JSON-ish bytes, so the parser gets past the first character.
                let alphabet = b"{}[]\",:0123456789-. abcdefghijklmnopqrstuvwxyz\\\xff\x00";
                alphabet[(seed % alphabet.len() as u64) as usize]
            })
            .collect();
        let path = ["/v1/move", "/v1/cube", "/v1/eval", "/v1/rollout"][n % 4];
        let (status, ct, body) = http_request(addr, "POST", path, Some(&junk));
        assert!(
            (400..500).contains(&status) || status == 200,
            "{status} for {:?}: {}",
            String::from_utf8_lossy(&junk),
            String::from_utf8_lossy(&body)
        );
        assert!(ct.starts_with("application/json"));
    }
}

#[test]
fn rollouts_repeat_for_a_seed() {
    let s = server();
    let body = r#"{"position":"4HPwATDgc/ABMA","trials":36,"seed":7,"truncate":8}"#;
    let (status, a) = post(&s, "/v1/rollout", body);
    assert_eq!(status, 200, "{a}");
    let (_, b) = post(&s, "/v1/rollout", body);
    assert_eq!(a["trials"], 36);
    assert_eq!(a["partial"], false);
    assert_eq!(a["equity"], b["equity"]);
    assert_eq!(a["probs"], b["probs"]);
    let (status, plays) = post(
        &s,
        "/v1/rollout",
        r#"{"position":"4HPwATDgc/ABMA","dice":[4,3],"trials":18,"truncate":4,"top":2}"#,
    );
    assert_eq!(status, 200, "{plays}");
    let list = plays["plays"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["diff"], 0.0);
}

#[test]
fn cube_rollouts_agree_with_the_command_line() {
    let s = server();
    let pos = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10";
    let body = format!(r#"{{"position":"{pos}","cube":true,"trials":24,"seed":5,"truncate":6}}"#);
    let (status, api) = post(&s, "/v1/rollout", &body);
    assert_eq!(status, 200, "{api}");
    assert_eq!(api["trials"], 24);
    assert_eq!(api["cube"]["evaluation"], "rollout");
    for key in ["no_double", "double_take", "double_pass"] {
        assert!(api["cube"]["equities"][key].is_number(), "{key}: {api}");
    }
    assert!(api["no_double"]["se"].is_number(), "{api}");
    let cli = json_of(&stargammon(&[
        "rollout",
        pos,
        "--cube",
        "--engine",
        "net,cube_depth=1",
        "--trials",
        "24",
        "--seed",
        "5",
        "--truncate",
        "6",
        "--json",
    ]));
    for key in ["no_double", "double_take", "double_pass"] {
        assert_eq!(
            api["cube"]["equities"][key], cli["cube"]["equities"][key],
            "{key}: {api} {cli}"
        );
    }
    assert_eq!(api["cube"]["action"], cli["cube"]["action"]);
    // A cube rollout comes before the roll; a flag that is no boolean is refused.
    let with_dice = format!(r#"{{"position":"{pos}","cube":true,"dice":[3,1]}}"#);
    assert_eq!(post(&s, "/v1/rollout", &with_dice).0, 400);
    let bad = format!(r#"{{"position":"{pos}","cube":"yes"}}"#);
    let (status, e) = post(&s, "/v1/rollout", &bad);
    assert_eq!(status, 400);
    assert!(
        e["error"].as_str().unwrap().contains("true or false"),
        "{e}"
    );
}

#[test]
fn metrics_count_every_protocol() {
    let s = server();
    // gnubg as an external player: a board ending in NUL.
    let mut player = std::net::TcpStream::connect(s.addr).unwrap();
    player
        .write_all(format!("{GNUBG_OPENING_21}\r\n\0").as_bytes())
        .unwrap();
    let mut reader = BufReader::new(player.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(!line.trim().is_empty());
    // The external interface: one request and one error.
    let mut iface = std::net::TcpStream::connect(s.addr).unwrap();
    iface.write_all(b"version\nnonsense\n").unwrap();
    let mut r2 = BufReader::new(iface.try_clone().unwrap());
    let mut errors = 0;
    for _ in 0..8 {
        line.clear();
        if r2.read_line(&mut line).unwrap() == 0 {
            break;
        }
        if line.starts_with("Error") {
            errors += 1;
            break;
        }
    }
    assert_eq!(errors, 1);
    let (status, _) = post(&s, "/v1/cube", r#"{"position":"4HPwATDgc/ABMA"}"#);
    assert_eq!(status, 200);
    let (status, _) = post(&s, "/v1/cube", r#"{"position":"?"}"#);
    assert_eq!(status, 400);
    let (status, ct, body) = http_request(s.http.unwrap(), "GET", "/metrics", None);
    assert_eq!(status, 200);
    assert!(ct.starts_with("text/plain"), "{ct}");
    let text = String::from_utf8(body).unwrap();
    let sample = |series: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no {series} in\n{text}"))
    };
    let p = |proto: &str, name: &str| sample(&format!("stargammon_{name}{{protocol=\"{proto}\"}}"));
    assert_eq!(p("gnubg_player", "decisions_total"), 1.0);
    assert_eq!(p("gnubg_player", "connections_open"), 1.0);
    assert_eq!(p("gnubg_interface", "errors_total"), 1.0);
    assert_eq!(p("gnubg_interface", "connections_total"), 1.0);
    assert_eq!(p("http", "decisions_total"), 1.0);
    assert_eq!(p("http", "errors_total"), 1.0);
    // This request's own connection is open.
    assert!(p("http", "connections_open") >= 1.0);
    assert_eq!(
        sample("stargammon_decision_seconds_count{protocol=\"gnubg_player\"}"),
        1.0
    );
    assert_eq!(
        sample("stargammon_http_responses_total{route=\"/v1/cube\",status=\"400\"}"),
        1.0
    );
    assert_eq!(sample("stargammon_tcp_connections_open"), 2.0);
    drop(player);
    drop(iface);
    // The document, the health check and the page are served as they are built in.
    let (status, ct, body) = http_request(s.http.unwrap(), "GET", "/openapi.json", None);
    assert_eq!((status, ct.as_str()), (200, "application/json"));
    assert_eq!(body, stargammon::http::OPENAPI.as_bytes());
    let (status, health) = get(&s, "/healthz");
    assert_eq!((status, health["status"].as_str()), (200, Some("ok")));
    let (status, ct, body) = http_request(s.http.unwrap(), "GET", "/", None);
    assert_eq!(status, 200);
    assert!(ct.starts_with("text/html"));
    assert_eq!(body, stargammon::http::PAGE.as_bytes());
}

#[test]
fn serve_turns_the_http_listener_on_from_the_config() {
    // The binary with a config holding one [http] line answers on that port.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dir = std::env::temp_dir().join(format!("sg-http-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("http.toml");
    std::fs::write(
        &cfg,
        format!("[server]\nlisten = \"127.0.0.1:0\"\n[http]\nlisten = \"127.0.0.1:{port}\"\n"),
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args(["serve", "--config", cfg.to_str().unwrap()])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut health = None;
    while std::time::Instant::now() < deadline {
        if std::net::TcpStream::connect(addr).is_ok() {
            health = Some(http_json(addr, "GET", "/healthz", None));
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    let (status, v) = health.expect("the HTTP listener came up");
    assert_eq!(status, 200);
    assert_eq!(v["status"], "ok");
}

#[test]
fn a_client_that_leaves_cancels_its_search() {
    // One worker and a search far too deep to finish, with no time cap: only a cancelled
    // search frees the worker for the next deep request.
    let mut config = Config::throughput();
    config.engine.threads = 1;
    config.engine.tt_megabytes = 8;
    config.server.max_request_depth = stargammon::engine::Depth::new(9).unwrap();
    config.server.max_request_ms = 0;
    let s = ServerThread::with_http(&config);
    let addr = s.http.unwrap();
    let abandoned = || {
        let (_, _, body) = http_request(addr, "GET", "/metrics", None);
        let text = String::from_utf8(body).unwrap();
        text.lines()
            .find_map(|l| {
                l.strip_prefix("stargammon_searches_abandoned_total{protocol=\"http\"} ")
                    .map(|n| n.parse::<u64>().unwrap())
            })
            .unwrap()
    };
    assert_eq!(abandoned(), 0);
    let body = format!(r#"{{"position":"{MIDGAME}","dice":[3,1],"depth":9}}"#);
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /v1/move HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    drop(stream);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while abandoned() == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the search was not cancelled"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The worker is free again: a depth-3 search (the deep lane) is answered.
    let (status, v) = post(
        &s,
        "/v1/move",
        &format!(r#"{{"position":"{MIDGAME}","dice":[3,1],"depth":3}}"#),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(abandoned(), 1);
}

#[test]
fn tavli_plays_agree_with_the_command_line_and_follow_the_servers_variant() {
    let mut config = Config::throughput();
    config.engine.threads = 2;
    config.server.variant = stargammon::game::Variant::Fevga;
    let s = ServerThread::with_http(&config);
    for (position, dice) in [
        ("plakoto:24-15:24-15", [6, 5]),
        ("portes:24-2,13-5,8-3,6-5:24-2,13-5,8-3,6-5", [3, 1]),
        ("fevga:24-14,19-1:24-15", [4, 2]),
    ] {
        let body = format!(
            r#"{{"position":"{position}","dice":[{},{}],"depth":1}}"#,
            dice[0], dice[1]
        );
        let (status, api) = post(&s, "/v1/tavli/move", &body);
        assert_eq!(status, 200, "{api}");
        let variant = position.split(':').next().unwrap();
        let d: Vec<String> = dice.iter().map(|d| d.to_string()).collect();
        let cli = json_of(&stargammon(&[
            "hint",
            "--variant",
            variant,
            position,
            "--dice",
            &d[0],
            &d[1],
            "--depth",
            "1",
            "--json",
        ]));
        assert_eq!(
            api["plays"][0]["move"], cli["plays"][0]["move"],
            "{position}"
        );
        assert_eq!(
            api["plays"].as_array().unwrap().len(),
            cli["plays"].as_array().unwrap().len()
        );
        assert_eq!(
            round(&api["plays"][0]["value"]),
            round(&cli["plays"][0]["value"])
        );
    }
    // Without a prefix the position is the server's variant (fevga here); by GET too.
    let (status, a) = get(&s, "/v1/tavli/move?position=24-15:24-15&dice=6,5&depth=1");
    assert_eq!(status, 200, "{a}");
    assert_eq!(a["variant"], "fevga");
    assert_eq!(a["plays"][0]["move"], "24/13");
    for (body, what) in [
        (
            r#"{"position":"plakoto:24-16:24-15","dice":[6,5]}"#,
            "impossible position",
        ),
        (
            r#"{"position":"plakoto:24-15:24-15","dice":[6,7]}"#,
            "bad roll",
        ),
        (
            r#"{"variant":"portes","position":"plakoto:24-15:24-15","dice":[6,5]}"#,
            "variant",
        ),
        (
            r#"{"position":"plakoto:24-15:24-15","dice":[6,5],"depth":4}"#,
            "depth",
        ),
        ("{\"position\":\"\u{e9}\",\"dice\":[6,5]}", "not a position"),
    ] {
        let (status, e) = post(&s, "/v1/tavli/move", body);
        assert_eq!(status, 400, "{what}: {e}");
        assert!(e["error"].is_string(), "{what}");
    }
    // A deeper search is the configured search's, capped by server.max_request_depth
    // (the throughput configuration's depth-5 cap).
    let (status, deep) = post(
        &s,
        "/v1/tavli/move",
        r#"{"position":"fevga:24-14,19-1:24-15","dice":[4,2],"depth":9}"#,
    );
    assert_eq!(status, 200, "{deep}");
    assert!(
        deep["depth"].as_u64().is_some_and(|d| (1..=5).contains(&d)),
        "{deep}"
    );
}

#[test]
fn the_external_interface_answers_tavli_lines() {
    let s = server();
    let stream = std::net::TcpStream::connect(s.addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut w = stream.try_clone().unwrap();
    let mut r = BufReader::new(stream);
    let mut ask = |line: &[u8]| {
        w.write_all(line).unwrap();
        w.write_all(b"\n").unwrap();
        let mut reply = String::new();
        r.read_line(&mut reply).unwrap();
        reply.trim_end().to_string()
    };
    assert_eq!(ask(b"fevga:24-15:24-15 65"), "24/13");
    let plakoto = ask(b"plakoto:24-15:24-15 6-5");
    assert!(plakoto.starts_with("24/"), "{plakoto}");
    // A backgammon server reads no prefix-less position as Tavli: a gnubg-style error.
    assert!(ask(b"24-15:24-15 65").starts_with("Error:"));
    assert!(ask(b"plakoto:24-15:24-15 0").starts_with("Error: bad roll"));
    assert!(ask(b"plakoto:24-15:24-14,1-1 65").starts_with("Error: bad position"));
    assert!(ask(b"plakoto:\xff:24-15 65").starts_with("Error:"));
    // The connection still serves.
    assert_eq!(ask(b"fevga:24-15:24-15 65"), "24/13");
}

//! The Rust side of the package's overhead benchmark (docs/BENCHMARKS.md, "Python
//! package"): `hint` on a set of positions through the library call the package makes,
//! timed, after writing the positions as XGIDs for `python/bench/hint_timing.py` to time
//! the same calls from Python.
//!
//! `cargo run --release -p stargammon-python --example hint_timing -- FILE [COUNT] [SPEC]`
//! (defaults: 1,000 positions, `net,depth=3`).

use std::io::Write;
use std::time::Instant;

use stargammon::cli::hint::{play_hint, search_settings};
use stargammon::engine::{build, EngineSpec};
use stargammon::game::{Decision, MatchState};
use stargammon::notation::Xgid;
use stargammon::search::positions::self_play_positions;
use stargammon::search::Cancel;

/// The process's time on a CPU so far, every thread's (exited ones included), in
/// seconds: user plus system time from /proc/self/stat, in clock ticks of 1/100 s (Linux;
/// 0 elsewhere). On a loaded machine it varies far less than the wall clock; the Python
/// side reads the same figure, which counts the threads that a call of the package runs
/// its work on.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // The fields after the command name (in parentheses, which may hold spaces): state is
    // the first of them, utime the 12th, stime the 13th.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = args
        .first()
        .ok_or("usage: hint_timing FILE [COUNT] [SPEC]")?;
    let count: usize = args.get(1).map_or(Ok(1000), |c| c.parse())?;
    let spec: EngineSpec = args.get(2).map_or("net,depth=3", String::as_str).parse()?;
    let nets = build::nets(None)?;
    let states: Vec<MatchState> = self_play_positions(&nets, 1, count, 3)
        .into_iter()
        .map(|(p, d)| MatchState::money(p, Decision::Move(d)))
        .collect();
    let mut out = std::io::BufWriter::new(std::fs::File::create(file)?);
    for s in &states {
        writeln!(out, "{}", Xgid::from_match_state(s))?;
    }
    out.flush()?;
    // Built before the timed loops on both sides (the package's `Engine()` builds it).
    stargammon::eval::bearoff::database();
    for with_json in [false, true] {
        let engine = build::engine(&spec)?;
        let start = Instant::now();
        let cpu = cpu_seconds();
        let mut plays = 0;
        for s in &states {
            let Decision::Move(dice) = s.decision else {
                continue;
            };
            let settings = search_settings(&spec, 5, 1);
            let hint = play_hint(&engine, s, dice, &settings, &Cancel::new());
            plays += hint.valued.len();
            if with_json {
                plays += hint.json()["plays"].as_array().map_or(0, Vec::len);
            }
        }
        let s = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu;
        let what = if with_json {
            "play_hint + json"
        } else {
            "play_hint"
        };
        println!(
            "rust {what}: {} positions, {plays} plays, {s:.3} s wall, {cpu:.3} s on the CPU, {:.3} ms per hint",
            states.len(),
            1000.0 * cpu / states.len() as f64
        );
    }
    Ok(())
}

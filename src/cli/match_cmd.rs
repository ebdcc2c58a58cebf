//! `stargammon match`: games or matches between two engines, refereed by this project.
//!
//! Engines are `tcp://HOST:PORT` (anything answering gnubg's external-interface `board:`
//! requests: `stargammon serve`, gnubg's own `external` server) or an in-process player
//! spec as `stargammon duel` takes. The referee rolls seeded dice, checks every answer and
//! writes the results: a summary (ppg with its 95% interval, wins, gammons, forfeits,
//! match wins), optionally one JSON line per game and a `.mat` file gnubg imports.

use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use clap::{Args, ValueEnum};

use std::fmt::Write as _;

use super::{CliError, Report};

/// Writes matches of one length to a file: the .mat and .sgf writers.
type MatchWriter = fn(&mut dyn Write, u32, &[MatchRecord]) -> std::io::Result<()>;
use crate::arena::luck::Adjusted;
use crate::arena::referee::Tally;
use crate::arena::referee::{
    run_series_until, write_mat, MatchRecord, SeriesConfig, SeriesKind, UnitResult,
};
use crate::arena::stats::json_number;
use crate::eval::luck::Judge;
use crate::players::socket::{parse_tcp_engine, TcpFactory};
use crate::players::split::SplitFactory;
use crate::players::timed::TimedFactory;
use crate::players::{build, BuildOptions, MakeDecider, PlayerSpec};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

#[derive(Debug, Args)]
pub struct MatchArgs {
    /// Engine A: `tcp://HOST:PORT[,HOST:PORT...]` (worker i uses address i mod n),
    /// `engine[:CONFIG][,key=value...]` (the bot as `serve` runs it), or a duel player
    /// spec (`net`, `net,depth=3`, `pubeval`, ...; with the cube, only evaluator specs).
    #[arg(long)]
    pub a: String,
    /// Engine B, as for --a.
    #[arg(long)]
    pub b: String,
    /// A's cube decisions (double, take, drop) by this engine instead, as for --a; A's
    /// checker plays stay A's. Needs the cube.
    #[arg(long)]
    pub a_cube: Option<String>,
    /// B's cube decisions by this engine instead, as for --a-cube.
    #[arg(long)]
    pub b_cube: Option<String>,
    /// Money games to play (in mirrored pairs).
    #[arg(long, conflicts_with_all = ["length", "matches"])]
    pub games: Option<u64>,
    /// Match length in points (with --matches).
    #[arg(long, requires = "matches")]
    pub length: Option<u32>,
    /// Number of matches (with --length).
    #[arg(long, requires = "length")]
    pub matches: Option<u64>,
    /// Use the doubling cube (default: off for money games, on for matches).
    #[arg(long, value_enum)]
    pub cube: Option<OnOff>,
    /// Seed of the dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once (one connection per tcp engine each).
    #[arg(long, default_value_t = 1)]
    pub parallel: usize,
    /// Seconds an engine may take for one answer before it forfeits the game.
    #[arg(long, default_value_t = 30.0)]
    pub timeout: f64,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Write one JSON line per game to this file.
    #[arg(long)]
    pub games_out: Option<std::path::PathBuf>,
    /// Write the matches as .mat files gnubg imports (match play only; with several
    /// matches, FILE-001.mat, FILE-002.mat, ...).
    #[arg(long)]
    pub mat: Option<std::path::PathBuf>,
    /// Write the matches as gnubg SGF files (`load match`), numbered as for --mat.
    #[arg(long)]
    pub sgf: Option<std::path::PathBuf>,
    /// A Tavli game (portes, plakoto, fevga), or `tavli` for Tavli matches (Portes,
    /// Plakoto and Fevga in turn); the engines are Tavli player specs (`net`,
    /// `net,depth=3`, `net:PATH`, `heuristic`, `random`).
    #[arg(long)]
    pub variant: Option<String>,
    #[command(flatten)]
    pub luck: super::duel::LuckArgs,
}

/// `match --variant ...`: Tavli matches (or money games of one game) between two seats.
fn play_tavli(
    args: &MatchArgs,
    variant: &str,
    progress: bool,
    stop: &AtomicBool,
) -> Result<Report, CliError> {
    use crate::arena::tavli::{play_matches_until, Seat, TAVLI_ROTATION};
    use crate::game::Variant;
    let rotation: Vec<Variant> = match variant.trim().to_ascii_lowercase().as_str() {
        "tavli" => TAVLI_ROTATION.to_vec(),
        other => match other.parse::<Variant>() {
            Ok(Variant::Backgammon) => return Err("backgammon matches take no --variant".into()),
            Ok(v) => vec![v],
            Err(e) => return Err(format!("{e} (or tavli)").into()),
        },
    };
    if args.cube == Some(OnOff::On) || args.a_cube.is_some() || args.b_cube.is_some() {
        return Err("the Tavli games have no cube".into());
    }
    if args.luck.vr {
        // The Tavli games have no judge: this says so.
        <crate::tavli::TavliPosition as crate::arena::Judged>::judge(&args.luck.judge)?;
    }
    if args.mat.is_some() || args.sgf.is_some() {
        return Err(
            "--mat and --sgf are backgammon match files; Tavli matches write --games-out".into(),
        );
    }
    if args.parallel == 0 {
        return Err("--parallel must be at least 1".into());
    }
    let seat = |text: &str, flag: &str| -> Result<Seat, CliError> {
        rotation
            .iter()
            .map(|&v| {
                let p =
                    crate::players::tavli::factory(text, v).map_err(|e| format!("{flag}: {e}"))?;
                Ok((v, p))
            })
            .collect()
    };
    let a = seat(&args.a, "--a")?;
    let b = seat(&args.b, "--b")?;
    let (length, matches) = match (args.games, args.length, args.matches) {
        (Some(g), None, None) if g > 0 && rotation.len() == 1 => {
            // Money games of one game: a duel.
            let r = crate::arena::duel_until(
                crate::tavli::TavliPosition::start(rotation[0]),
                &a[0].1,
                &b[0].1,
                &crate::arena::DuelConfig {
                    games: g,
                    seed: args.seed,
                    threads: args.parallel,
                    progress: false,
                    judge: None,
                },
                stop,
            );
            let mut json = r.to_json();
            json["variant"] = serde_json::json!(rotation[0].name());
            let text = format!("{json}\n");
            return Ok(Report { json, text });
        }
        (Some(_), None, None) => {
            return Err("--variant tavli plays matches: give --length L --matches M".into())
        }
        (None, Some(l), Some(m)) if l > 0 && m > 0 => (l, m),
        (None, Some(l), None) if l > 0 => (l, 1),
        _ => return Err("give --length L --matches M (both positive)".into()),
    };
    let mut games_out = match &args.games_out {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| format!("cannot write {}: {e}", p.display()))?,
        )),
        None => None,
    };
    let started = std::time::Instant::now();
    let mut io_error: Option<std::io::Error> = None;
    let mut records = Vec::new();
    let bar = if args.json || !progress {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(matches)
    };
    play_matches_until(
        length,
        &rotation,
        [&a, &b],
        matches,
        args.seed,
        args.parallel,
        stop,
        &mut |i, r| {
            if let Some(w) = games_out.as_mut() {
                if let Err(e) = writeln!(w, "{}", r.to_json(i)) {
                    io_error.get_or_insert(e);
                }
            }
            records.push(r.clone());
            bar.inc(1);
        },
    );
    bar.finish_and_clear();
    if let Some(e) = io_error {
        return Err(format!("writing games: {e}").into());
    }
    if let Some(mut w) = games_out {
        w.flush()?;
    }
    let wins_a = records.iter().filter(|r| r.a_won == Some(true)).count() as u64;
    let unfinished = records.iter().filter(|r| r.a_won.is_none()).count() as u64;
    let games: Vec<_> = records.iter().flat_map(|r| r.games.iter()).collect();
    let ties = games
        .iter()
        .filter(|g| g.points == 0 && !g.unfinished)
        .count();
    let forfeits = games.iter().filter(|g| g.forfeit.is_some()).count();
    if let Some(g) = games.iter().find(|g| g.forfeit.is_some()) {
        eprintln!(
            "match: {forfeits} game(s) forfeited; the first: {}",
            g.forfeit.as_deref().unwrap_or("")
        );
    }
    let points_a: i64 = games.iter().map(|g| i64::from(g.points)).sum();
    let rate = wins_a as f64 / matches as f64;
    let ci = 1.96 * (rate * (1.0 - rate) / matches as f64).sqrt();
    let name = if rotation.len() > 1 {
        "tavli"
    } else {
        rotation[0].name()
    };
    let command = format!(
        "stargammon match --variant {name} --a {} --b {} --length {length} --matches {matches} --seed {} --parallel {}",
        args.a, args.b, args.seed, args.parallel
    );
    let json = {
        // Every game of every match in one list, each with its match's index.
        let mut game_list = Vec::new();
        let mut scores = Vec::new();
        for (i, r) in records.iter().enumerate() {
            let j = r.to_json(i as u64);
            scores.push(j["score"].clone());
            if let Some(gs) = j["games"].as_array() {
                for g in gs {
                    let mut g = g.clone();
                    g["match"] = serde_json::json!(i);
                    game_list.push(g);
                }
            }
        }
        serde_json::json!({
            "variant": name,
            "a": args.a,
            "b": args.b,
            "length": length,
            "matches": matches,
            "match_wins_a": wins_a,
            "match_win_rate_a": rate,
            "ci95": ci,
            "games": game_list,
            "game_count": games.len(),
            "scores": scores,
            "ties": ties,
            "forfeits": forfeits,
            "points_a_minus_b": points_a,
            "unfinished": unfinished,
            "seed": args.seed,
            "seconds": started.elapsed().as_secs_f64(),
            "command": command,
        })
    };
    let mut t = String::new();
    {
        writeln!(
            t,
            "{name} {length}-point matches: A {}  B {}",
            args.a, args.b
        )?;
        writeln!(
            t,
            "matches {matches}  A won {wins_a} ({:.1}% +- {:.1})  games {}  ties {ties}  unfinished {unfinished}",
            100.0 * rate,
            100.0 * ci,
            games.len()
        )?;
        writeln!(t, "{:.1} s  ({command})", started.elapsed().as_secs_f64())?;
    }
    Ok(Report { json, text: t })
}

/// Builds the decider factory for an engine argument; `cube` says whether cube questions
/// will be asked.
pub fn engine_factory(
    spec: &str,
    timeout: Duration,
    cube: bool,
) -> Result<Box<dyn MakeDecider>, CliError> {
    if spec.starts_with("tcp://") {
        let addrs = parse_tcp_engine(spec).ok_or_else(|| {
            format!("bad engine {spec:?}: expected tcp://HOST:PORT[,HOST:PORT...]")
        })?;
        return Ok(Box::new(TcpFactory::gnubg(
            spec.to_string(),
            addrs,
            timeout,
        )));
    }
    let parsed = PlayerSpec::parse(spec)?;
    Ok(Box::new(build(&parsed, BuildOptions { cube })?))
}

pub fn run(args: MatchArgs) -> Result<(), CliError> {
    play(&args, true)?.print(args.json);
    Ok(())
}

/// Plays the games or matches `args` describes (`progress`: a progress bar on stderr),
/// writes the files it names, and reports them as `match` prints them.
pub fn play(args: &MatchArgs, progress: bool) -> Result<Report, CliError> {
    play_until(args, progress, &AtomicBool::new(false))
}

/// [`play`] that stops early when `stop` is raised: no game or match starts after it,
/// and the report and files have those finished by then.
pub fn play_until(args: &MatchArgs, progress: bool, stop: &AtomicBool) -> Result<Report, CliError> {
    if let Some(v) = &args.variant {
        return play_tavli(args, v, progress, stop);
    }
    let kind = match (args.games, args.length, args.matches) {
        (Some(g), None, None) if g > 0 => SeriesKind::Money { games: g },
        (None, Some(l), Some(m)) if l > 0 && m > 0 => SeriesKind::Matches {
            length: l,
            matches: m,
        },
        (None, None, None) => return Err("give --games N or --length L --matches M".into()),
        _ => return Err("--games, --length and --matches must be positive".into()),
    };
    if args.parallel == 0 {
        return Err("--parallel must be at least 1".into());
    }
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        return Err("--timeout must be a positive number of seconds".into());
    }
    if (args.mat.is_some() || args.sgf.is_some()) && matches!(kind, SeriesKind::Money { .. }) {
        return Err("--mat and --sgf need match play (--length L --matches M)".into());
    }
    let cube = match args.cube {
        Some(OnOff::On) => true,
        Some(OnOff::Off) => false,
        None => matches!(kind, SeriesKind::Matches { .. }),
    };
    let timeout = Duration::from_secs_f64(args.timeout);
    let seat = |spec: &str, flag: &str, cube_spec: &Option<String>| {
        let checkers = engine_factory(spec, timeout, cube).map_err(|e| format!("{flag}: {e}"))?;
        let Some(cube_spec) = cube_spec else {
            return Ok::<_, CliError>(checkers);
        };
        if !cube {
            return Err(format!("{flag}-cube needs the cube (match play, or --cube on)").into());
        }
        let cube_player =
            engine_factory(cube_spec, timeout, cube).map_err(|e| format!("{flag}-cube: {e}"))?;
        Ok(Box::new(SplitFactory::new(checkers, cube_player)) as Box<dyn MakeDecider>)
    };
    let a = seat(&args.a, "--a", &args.a_cube)?;
    let b = seat(&args.b, "--b", &args.b_cube)?;
    let cfg = SeriesConfig {
        kind,
        cube,
        seed: args.seed,
        parallel: args.parallel,
    };

    let mut games_out = match &args.games_out {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| format!("cannot write {}: {e}", p.display()))?,
        )),
        None => None,
    };
    let bar = if progress {
        indicatif::ProgressBar::new(cfg.units())
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} {msg} (eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let mut records: Vec<MatchRecord> = Vec::new();
    let mut io_error: Option<std::io::Error> = None;
    let mut sum = 0i64;
    let mut games = 0u64;
    let judge = args.luck.judge()?;
    let (a, b) = (TimedFactory::new(a.as_ref()), TimedFactory::new(b.as_ref()));
    let summary = run_series_until(&cfg, &a, &b, judge.as_ref(), stop, &mut |unit| {
        for g in unit.games() {
            games += 1;
            let pts = g.record.points as i64;
            sum += if g.record.winner == g.a_seat {
                pts
            } else {
                -pts
            };
            if let Some(f) = &g.record.forfeit {
                let side = if g.record.winner == g.a_seat {
                    "B"
                } else {
                    "A"
                };
                bar.suspend(|| {
                    eprintln!(
                        "match: game {} forfeited by {side}: {} (request {:?}, reply {:?})",
                        g.index, f.kind, f.request, f.reply
                    )
                });
            }
            if let Some(w) = games_out.as_mut() {
                if let Err(e) = writeln!(w, "{}", g.to_json()) {
                    io_error.get_or_insert(e);
                }
            }
        }
        if let UnitResult::Match { record, .. } = unit {
            if args.mat.is_some() || args.sgf.is_some() {
                records.push(record.clone());
            }
        }
        bar.set_message(format!("ppg {:+.3}", sum as f64 / games.max(1) as f64));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    if let Some(e) = io_error {
        return Err(format!("writing games: {e}").into());
    }
    if let Some(mut w) = games_out {
        w.flush()?;
    }
    if let SeriesKind::Matches { length, .. } = kind {
        // gnubg imports one match per .mat file (and loads one per .sgf file): several
        // matches go to numbered files.
        let formats: [(_, MatchWriter); 2] = [
            (&args.mat, write_mat),
            (&args.sgf, crate::arena::export::write_sgf),
        ];
        for (path, write) in formats {
            let Some(path) = path else { continue };
            for (i, record) in records.iter().enumerate() {
                let file = if records.len() == 1 {
                    path.clone()
                } else {
                    numbered(path, i + 1)
                };
                let mut f = std::io::BufWriter::new(
                    std::fs::File::create(&file)
                        .map_err(|e| format!("cannot write {}: {e}", file.display()))?,
                );
                write(&mut f, length, std::slice::from_ref(record))?;
                f.flush()?;
            }
        }
    }

    let t = &summary.tally;
    let command = reproduce(args, cube);
    let obj = {
        let mut obj = serde_json::json!({
            "a": args.a,
            "b": args.b,
            "a_cube": args.a_cube,
            "b_cube": args.b_cube,
            "games": t.games,
            "ppg": t.ppg(),
            "ci95": json_number(t.ci95()),
            "a_wins": t.a_wins,
            "gammons_a": t.gammons_a,
            "gammons_b": t.gammons_b,
            "backgammons_a": t.backgammons_a,
            "backgammons_b": t.backgammons_b,
            "forfeits": {"a": t.forfeits_a, "b": t.forfeits_b},
            "cube": cube,
            "seed": args.seed,
            "seconds": summary.seconds,
            "ms_per_play": {"a": json_number(a.clock().mean_ms()), "b": json_number(b.clock().mean_ms())},
            "plays": {"a": a.clock().plays(), "b": b.clock().plays()},
            "command": command,
        });
        if let SeriesKind::Matches { length, .. } = kind {
            obj["matches"] = serde_json::json!(t.matches);
            obj["match_wins_a"] = serde_json::json!(t.match_wins_a);
            obj["length"] = serde_json::json!(length);
            let (rate, ci) = t.match_win_rate();
            obj["match_win_rate"] = json_number(rate);
            obj["match_ci95"] = json_number(ci);
        }
        if let Some(adj) = adjusted(t, kind, judge.as_ref()) {
            match kind {
                SeriesKind::Money { .. } => {
                    adj.add_to_json(&mut obj, "adjusted_ppg", "adjusted_ci95")
                }
                SeriesKind::Matches { .. } => {
                    adj.add_to_json(&mut obj, "adjusted_match_win_rate", "adjusted_match_ci95")
                }
            }
        }
        obj
    };
    let mut out = String::new();
    {
        writeln!(out, "A: {}  B: {}", args.a, args.b)?;
        let ci = if t.ci95().is_finite() {
            format!("{:.4}", t.ci95())
        } else {
            "n/a".to_string()
        };
        writeln!(
            out,
            "games {}  ppg (A) {:+.4} +- {ci} (95%)  A won {} ({:.1}%)",
            t.games,
            t.ppg(),
            t.a_wins,
            100.0 * t.a_wins as f64 / t.games.max(1) as f64
        )?;
        writeln!(
            out,
            "gammons A/B {}/{}  backgammons A/B {}/{}  forfeits A/B {}/{}",
            t.gammons_a, t.gammons_b, t.backgammons_a, t.backgammons_b, t.forfeits_a, t.forfeits_b
        )?;
        writeln!(
            out,
            "ms per checker play A/B {:.2}/{:.2} ({}/{} plays)",
            a.clock().mean_ms(),
            b.clock().mean_ms(),
            a.clock().plays(),
            b.clock().plays()
        )?;
        if let SeriesKind::Matches { length, .. } = kind {
            let (rate, ci) = t.match_win_rate();
            writeln!(
                out,
                "{}-point matches {}  A won {} ({:.1}% +- {:.1})",
                length,
                t.matches,
                t.match_wins_a,
                100.0 * rate,
                100.0 * ci
            )?;
        }
        if let Some(adj) = adjusted(t, kind, judge.as_ref()) {
            let what = match kind {
                SeriesKind::Money { .. } => "ppg",
                SeriesKind::Matches { .. } => "match win rate",
            };
            writeln!(out, "{}", adj.text(what))?;
        }
        writeln!(out, "{:.1} s  ({command})", summary.seconds)?;
    }
    Ok(Report {
        json: obj,
        text: out,
    })
}

/// The luck-adjusted figures of a judged series: points per game in money play, match wins
/// in match play.
fn adjusted(t: &Tally, kind: SeriesKind, judge: Option<&Judge>) -> Option<Adjusted> {
    let judge = judge?;
    match kind {
        SeriesKind::Money { .. } => {
            let (mean, ci) = t.adjusted()?;
            Some(Adjusted::new(
                judge.name(),
                t.sample_variance(),
                t.adjusted_sample_variance(),
                mean,
                ci,
            ))
        }
        SeriesKind::Matches { .. } => {
            let m = &t.adjusted_matches;
            if m.n == 0 {
                return None;
            }
            Some(Adjusted::new(
                judge.name(),
                (t.match_variance(), 1.0),
                (m.variance(), 1.0),
                m.mean(),
                m.ci95(),
            ))
        }
    }
}

/// `dir/name.mat` -> `dir/name-007.mat`.
fn numbered(path: &std::path::Path, n: usize) -> std::path::PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "match".into());
    let ext = path
        .extension()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "mat".into());
    path.with_file_name(format!("{stem}-{n:03}.{ext}"))
}

fn reproduce(args: &MatchArgs, cube: bool) -> String {
    let mut c = format!("stargammon match --a {} --b {}", args.a, args.b);
    for (flag, spec) in [("--a-cube", &args.a_cube), ("--b-cube", &args.b_cube)] {
        if let Some(spec) = spec {
            c += &format!(" {flag} {spec}");
        }
    }
    if let Some(g) = args.games {
        c += &format!(" --games {g}");
    }
    if let (Some(l), Some(m)) = (args.length, args.matches) {
        c += &format!(" --length {l} --matches {m}");
    }
    c += &format!(
        " --cube {} --seed {} --parallel {}",
        if cube { "on" } else { "off" },
        args.seed,
        args.parallel
    );
    c += &args.luck.command_suffix();
    c
}

//! `stargammon bench ...`: figures plus the command that reproduces them.

use clap::{Args, Subcommand};

use super::game::{with_game, CliGame};
use super::CliError;
use crate::bench;
use crate::game::Variant;

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub which: BenchCommand,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Legal-play generation over the committed set of (position, roll) pairs.
    Movegen(MovegenArgs),
    /// Search algorithms and depths over the committed set of contact decisions.
    Search(Box<super::search_bench::SearchBenchArgs>),
    /// Static evaluations per second of the contact net on one thread, the float nets and
    /// their integer form (`precision=int16`) round by round in turn (`--bearoff`: of
    /// bear-off positions from the database).
    Eval(EvalArgs),
    /// Decisions per second and latency of the bot server under loopback load.
    Server(ServerArgs),
    /// Random playouts (full games) per second on one thread, as MCTS plays them.
    Mcts(MctsArgs),
    /// A player's error rate (millipoints per decision, by phase) on the shipped decision
    /// set, whose plays carry reference equities from rollouts.
    Strength(super::strength::StrengthArgs),
    /// How the strength benchmark's decision set is made: sample, label, merge.
    StrengthSet(super::strength::StrengthSetArgs),
}

#[derive(Debug, Args)]
pub struct MctsArgs {
    /// Games to play out from the opening position.
    #[arg(long, default_value_t = 100_000)]
    pub playouts: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ServerArgs {
    /// Concurrent client connections.
    #[arg(long, default_value_t = 64)]
    pub connections: usize,
    /// Search depth of the checker plays (1 = gnubg 0-ply).
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// Requests in total, spread over the connections.
    #[arg(long, default_value_t = 20000)]
    pub requests: usize,
    /// Open loop: send this many requests per second in total on a fixed schedule, whatever
    /// the replies do (default: closed loop, each client waits for its reply).
    #[arg(long)]
    pub rate: Option<f64>,
    /// Further connections that send the most expensive request allowed (`evaluation ...
    /// plies 7`, answered at the server's caps) back to back during the whole run.
    #[arg(long, default_value_t = 0)]
    pub heavy: usize,
    /// Server configuration file (default: the depth-1 throughput configuration,
    /// config/throughput.toml; --depth sets the depth of the checker plays either way).
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Load the HTTP API (`POST /v1/move`, keep-alive connections) instead of the
    /// line protocol.
    #[arg(long)]
    pub http: bool,
    /// Load a server already running at HOST:PORT (its line port, or its HTTP port with
    /// --http; a balancer in front of several) instead of one started in-process.
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["config", "heavy"])]
    pub target: Option<String>,
    /// Closed loop: when a connection fails (refused, reset, closed before the reply),
    /// open a new one and send the request again, for up to 15 s per request; the
    /// reconnections are counted as `retries`.
    #[arg(long, conflicts_with = "rate")]
    pub retry: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Passes over the position set.
    #[arg(long, default_value_t = 20)]
    pub rounds: u32,
    /// A weights file instead of the embedded default nets.
    #[arg(long)]
    pub weights: Option<std::path::PathBuf>,
    /// Instead: evaluations of 10,000 seeded bear-off positions (both sides home, answered
    /// by the bear-off database) and the time to compute the database.
    #[arg(long)]
    pub bearoff: bool,
    /// The positions timed: `games`, the contact positions of the committed movegen set
    /// (pubeval's games), or `calibrate`, 10,000 seeded random boards made as gnubg's
    /// `calibrate` makes the boards it times (15 checkers a side on the 24 points).
    #[arg(long, value_enum, default_value_t = EvalBoards::Games, conflicts_with = "bearoff")]
    pub boards: EvalBoards,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// The position set of `bench eval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EvalBoards {
    Games,
    Calibrate,
}

#[derive(Debug, Args)]
pub struct MovegenArgs {
    /// Passes over the whole set.
    #[arg(long, default_value_t = 20)]
    pub rounds: u32,
    /// The game: backgammon (the committed set, default), or portes, plakoto or fevga
    /// (12,000 pairs from seeded random games of the variant).
    #[arg(long)]
    pub variant: Option<Variant>,
    /// The games the positions come from. With --variant: `random` (random legal plays,
    /// the default) or `engine` (self-play of the shipped net at depth 1, as backgammon's
    /// set comes from pubeval's games). Backgammon: `engine` is the committed set
    /// (pubeval's games, the default), `random` the first 12,000 pairs of seeded games of
    /// random legal plays, the counterpart of the variants' random sets.
    #[arg(long, value_parser = ["random", "engine"])]
    pub games: Option<String>,
    /// With --variant: also report how many positions the canonical step order settles
    /// and how many the full search decides, and the time of each.
    #[arg(long)]
    pub split: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: BenchArgs) -> Result<(), CliError> {
    match args.which {
        BenchCommand::Movegen(a) => movegen(a),
        BenchCommand::Search(a) => super::search_bench::run(*a),
        BenchCommand::Eval(a) => eval(a),
        BenchCommand::Server(a) => server(a),
        BenchCommand::Mcts(a) => mcts(a),
        BenchCommand::Strength(a) => super::strength::run(a),
        BenchCommand::StrengthSet(a) => super::strength::run_set(a),
    }
}

fn server(a: ServerArgs) -> Result<(), CliError> {
    if a.connections == 0 || a.requests == 0 {
        return Err("--connections and --requests must be at least 1".into());
    }
    if a.requests < a.connections {
        return Err(format!(
            "--requests ({}) must be at least --connections ({}): each connection sends one",
            a.requests, a.connections
        )
        .into());
    }
    if let Some(rate) = a.rate {
        if !(1.0..=1e6).contains(&rate) {
            return Err("--rate must be between 1 and 1000000 requests per second".into());
        }
    }
    let config = match &a.config {
        Some(p) => crate::config::Config::load(p)?,
        None => crate::config::Config::throughput(),
    };
    let target = match &a.target {
        Some(t) => Some(
            std::net::ToSocketAddrs::to_socket_addrs(t.as_str())
                .map_err(|e| format!("--target {t}: {e}"))?
                .next()
                .ok_or_else(|| format!("--target {t}: no address"))?,
        ),
        None => None,
    };
    let b = crate::bench::server::ServerBench {
        connections: a.connections,
        depth: a.depth,
        requests: a.requests,
        rate: a.rate,
        heavy: a.heavy,
        config,
        http: a.http,
        target,
        retry: a.retry,
    };
    let r = crate::bench::server::run(&b)?;
    let mut command = format!(
        "stargammon bench server --connections {} --depth {} --requests {}",
        a.connections, a.depth, a.requests
    );
    if let Some(rate) = a.rate {
        command.push_str(&format!(" --rate {rate}"));
    }
    if a.heavy > 0 {
        command.push_str(&format!(" --heavy {}", a.heavy));
    }
    if let Some(p) = &a.config {
        command.push_str(&format!(" --config {}", p.display()));
    }
    if a.http {
        command.push_str(" --http");
    }
    if let Some(t) = &a.target {
        command.push_str(&format!(" --target {t}"));
    }
    if a.retry {
        command.push_str(" --retry");
    }
    if a.json {
        command.push_str(" --json");
        println!(
            "{}",
            serde_json::json!({
                "connections": a.connections,
                "protocol": if a.http { "http" } else { "gnubg" },
                "depth": a.depth,
                "load": if a.rate.is_some() { "open" } else { "closed" },
                "rate": a.rate,
                "decisions": r.decisions,
                "decisions_per_sec": r.decisions_per_sec,
                "p50_ms": r.p50_ms,
                "p99_ms": r.p99_ms,
                "max_ms": r.max_ms,
                "errors": r.errors,
                "heavy": a.heavy,
                "heavy_answered": r.heavy_answered,
                "target": a.target,
                "retries": r.retries,
                "seconds": r.seconds,
                "command": command,
            })
        );
    } else {
        let over = if a.http { "HTTP API" } else { "line protocol" };
        match a.rate {
            Some(rate) => println!(
                "server ({over}): {} connections, depth {}, open loop at {rate} requests/s",
                a.connections, a.depth
            ),
            None => println!(
                "server ({over}): {} connections, depth {}, closed loop",
                a.connections, a.depth
            ),
        }
        if let Some(t) = &a.target {
            println!("target:        {t}");
        }
        println!(
            "decisions:     {} in {:.2} s ({} error replies)",
            r.decisions, r.seconds, r.errors
        );
        if a.retry {
            println!(
                "retries:       {} (requests sent again on a new connection)",
                r.retries
            );
        }
        if a.heavy > 0 {
            println!(
                "heavy:         {} connections sending maximal requests ({} answered)",
                a.heavy, r.heavy_answered
            );
        }
        println!("decisions/s:   {:.0}", r.decisions_per_sec);
        println!("latency p50:   {:.3} ms", r.p50_ms);
        println!("latency p99:   {:.3} ms", r.p99_ms);
        println!("latency max:   {:.3} ms", r.max_ms);
        println!("command:       {command}");
    }
    Ok(())
}

fn mcts(a: MctsArgs) -> Result<(), CliError> {
    if a.playouts == 0 {
        return Err("--playouts must be at least 1".into());
    }
    let r =
        crate::search::mcts::random_playouts(&crate::game::Position::OPENING, a.playouts, a.seed);
    let command = format!(
        "stargammon bench mcts --playouts {} --seed {}",
        a.playouts, a.seed
    );
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "playouts": r.games,
                "seconds": r.seconds,
                "playouts_per_sec": r.games_per_sec,
                "mean_plies": r.mean_plies,
                "mean_points": r.mean_points,
                "threads": 1,
                "command": command,
            })
        );
    } else {
        println!(
            "mcts: {} random playouts from the opening, one thread",
            r.games
        );
        println!("playouts/s:   {:.0}", r.games_per_sec);
        println!("plies/game:   {:.1}", r.mean_plies);
        println!("seconds:      {:.2}", r.seconds);
        println!("command:      {command}");
    }
    Ok(())
}

fn movegen(a: MovegenArgs) -> Result<(), CliError> {
    if a.rounds == 0 {
        return Err("--rounds must be at least 1".into());
    }
    let variant = a.variant.unwrap_or(Variant::Backgammon);
    with_game!(variant, G => movegen_game::<G>(&a, variant))
}

/// `bench movegen` in the game of `variant`.
fn movegen_game<G: CliGame>(a: &MovegenArgs, variant: Variant) -> Result<(), CliError> {
    let (set, flag) = G::movegen_set(variant, a.games.as_deref())?;
    let no_split = "--split needs --variant portes, plakoto or fevga";
    let split = a.split.then(|| G::movegen_split(&set, a.rounds));
    let split = split.map(|s| s.ok_or(no_split)).transpose()?;
    let r = bench::run_movegen(&set, a.rounds);
    let len = set.len();
    let command = format!(
        "stargammon bench movegen{flag} --rounds {}{}",
        a.rounds,
        if a.split { " --split" } else { "" }
    );
    let variant = variant.name();
    if a.json {
        let split = split.map(|s| {
            serde_json::json!({
                "positions": s.positions,
                "canonical": s.canonical,
                "handed_back": s.handed_back,
                "not_order_free": s.not_order_free,
                "canonical_ns_per_decision": s.canonical_ns,
                "full_ns_per_decision": s.full_ns,
            })
        });
        println!(
            "{}",
            serde_json::json!({
                "decisions": r.decisions,
                "plays": r.plays,
                "ns_per_decision": r.ns_per_decision,
                "decisions_per_sec": r.decisions_per_sec,
                "min_round_ns_per_decision": r.min_round_ns_per_decision,
                "median_round_ns_per_decision": r.median_round_ns_per_decision,
                "positions": len,
                "variant": variant,
                "split": split,
                "command": command,
            })
        );
    } else {
        println!(
            "movegen ({variant}): {} (position, roll) pairs x {} rounds",
            len, a.rounds
        );
        println!("decisions:        {}", r.decisions);
        println!("plays generated:  {}", r.plays);
        println!(
            "ns per decision:  {:.1} (rounds: fastest {:.1}, median {:.1})",
            r.ns_per_decision, r.min_round_ns_per_decision, r.median_round_ns_per_decision
        );
        println!("decisions/s:      {:.0}", r.decisions_per_sec);
        if let Some(s) = split {
            println!(
                "canonical order:  settles {} of {} positions, {:.1} ns per decision (fastest round, every position it applies to)",
                s.canonical, s.positions, s.canonical_ns
            );
            println!(
                "full search:      decides {} ({} handed back, {} where the canonical order does not apply), {:.1} ns per decision of the set",
                s.handed_back + s.not_order_free,
                s.handed_back,
                s.not_order_free,
                s.full_ns
            );
        }
        println!("command:          {command}");
    }
    Ok(())
}

fn eval(a: EvalArgs) -> Result<(), CliError> {
    use crate::eval::NeuralEvaluator;
    if a.rounds == 0 {
        return Err("--rounds must be at least 1".into());
    }
    let ev = match &a.weights {
        Some(p) => NeuralEvaluator::load(p)?,
        None => NeuralEvaluator::default_nets()?,
    };
    if a.bearoff {
        return eval_bearoff(&ev, &a);
    }
    let positions = match a.boards {
        EvalBoards::Games => bench::eval_positions()?,
        EvalBoards::Calibrate => bench::calibrate_positions(2026, 10_000),
    };
    use crate::eval::qnet::Precision;
    let (float, int) = (
        ev.clone().with_precision(Precision::Float),
        ev.with_precision(Precision::Int16),
    );
    // The float nets (the default precision) and the integer ones, round by round in
    // turn so that a load that comes and goes weighs on both alike.
    let (mut r, mut r_int) = (
        bench::run_eval(&float, &positions, 1),
        bench::run_eval(&int, &positions, 1),
    );
    let (mut secs, mut secs_int) = (0.0, 0.0);
    for _ in 0..a.rounds {
        r = bench::run_eval(&float, &positions, 1);
        secs += r.evals as f64 / r.evals_per_sec;
        r_int = bench::run_eval(&int, &positions, 1);
        secs_int += r_int.evals as f64 / r_int.evals_per_sec;
    }
    r.evals = positions.len() as u64 * a.rounds as u64;
    r.evals_per_sec = r.evals as f64 / secs;
    r_int.evals = r.evals;
    r_int.evals_per_sec = r.evals as f64 / secs_int;
    let ev = float;
    let c = &ev.nets().contact;
    let net = format!(
        "contact {}x{}x5, encoding {}",
        c.inputs(),
        c.hidden(),
        ev.nets().encoding.id()
    );
    let simd = crate::eval::net::simd::available();
    let mut command = format!("stargammon bench eval --rounds {}", a.rounds);
    let boards = match a.boards {
        EvalBoards::Games => "games",
        EvalBoards::Calibrate => "calibrate",
    };
    if a.boards != EvalBoards::Games {
        command.push_str(&format!(" --boards {boards}"));
    }
    if let Some(p) = &a.weights {
        command.push_str(&format!(" --weights {}", p.display()));
    }
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "evals": r.evals,
                "int16_evals_per_sec": r_int.evals_per_sec,
                "evals_per_sec": r.evals_per_sec,
                "threads": 1,
                "net": net,
                "positions": r.positions,
                "boards": boards,
                "avx2_fma": simd,
                "command": command,
            })
        );
    } else {
        println!(
            "eval: {} contact positions ({boards}) x {} rounds, one thread",
            r.positions, a.rounds
        );
        println!("net:         {net} (AVX2/FMA path: {simd})");

        println!("evaluations: {}", r.evals);
        println!("evals/s:     {:.0}", r.evals_per_sec);
        println!(
            "int16:       {:.0} evals/s (precision=int16)",
            r_int.evals_per_sec
        );
        println!("command:     {command}");
    }
    Ok(())
}

fn eval_bearoff(ev: &crate::eval::NeuralEvaluator, a: &EvalArgs) -> Result<(), CliError> {
    let positions = bench::bearoff_positions(1, 10_000);
    let r = bench::run_bearoff(ev, &positions, a.rounds);
    let command = format!("stargammon bench eval --bearoff --rounds {}", a.rounds);
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "evals": r.eval.evals,
                "evals_per_sec": r.eval.evals_per_sec,
                "threads": 1,
                "positions": r.eval.positions,
                "generation_seconds": r.generation_secs,
                "memory_bytes": r.memory_bytes,
                "max_rolls": r.max_rolls,
                "command": command,
            })
        );
    } else {
        println!(
            "eval --bearoff: {} bear-off positions x {} rounds, one thread",
            r.eval.positions, a.rounds
        );
        println!(
            "database:    computed in {:.3} s, {} bytes, at most {} rolls",
            r.generation_secs, r.memory_bytes, r.max_rolls
        );
        println!("evaluations: {}", r.eval.evals);
        println!("evals/s:     {:.0}", r.eval.evals_per_sec);
        println!("command:     {command}");
    }
    Ok(())
}

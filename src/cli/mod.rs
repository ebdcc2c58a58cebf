//! The command-line interface: argument types and one module per subcommand. The
//! binary only parses and dispatches here; behaviour lives in the library modules.

use clap::{Parser, Subcommand};

pub mod analyse;
pub mod analyse_batch;
pub mod batch;
pub mod bearoff;
pub mod bench;
pub mod bgammon;
pub mod distill;
pub mod duel;
pub mod engine_arg;
pub mod fibs;
pub mod game;
pub mod hint;
pub mod match_cmd;
pub mod moves;
pub mod pos_arg;
pub mod rollout;
pub mod rollout_batch;
pub mod rollout_cube;
mod search_bench;
pub mod serve;
pub mod show;
mod strength;

pub mod train;
pub mod ubgi;

/// The error type at the command-line edge: a one-line message.
pub type CliError = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, Parser)]
#[command(
    name = "stargammon",
    version,
    about = "Backgammon bot server and engine"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Scores every checker play and cube decision of a match file (.mat or .sgf).
    Analyse(analyse::AnalyseArgs),
    /// Benchmarks: movegen, eval, search, server.
    Bench(bench::BenchArgs),
    /// Bear-off database: expected rolls and exact win chances with both sides home.
    Bearoff(bearoff::BearoffArgs),
    /// Ranks the plays of a roll with the search (equities and probabilities).
    Hint(hint::HintArgs),
    /// In-process cubeless money games between two players, mirrored dice pairs.
    Duel(duel::DuelArgs),
    /// TD(lambda) self-play training with checkpoints.
    Train(train::TrainArgs),
    /// Self-distillation: positions labelled by the engine's deeper search, and nets
    /// trained on them.
    Distill(distill::DistillArgs),
    /// Games or matches between two engines (sockets or in-process), refereed here.
    Match(match_cmd::MatchArgs),
    /// Runs the FIBS bot account until stopped.
    Fibs(fibs::FibsArgs),
    /// Runs a bot account on bgammon.org (or a server of its protocol) until stopped.
    Bgammon(bgammon::BgammonArgs),
    /// Rolls out a position, or the best plays of a roll side by side.
    Rollout(rollout::RolloutArgs),
    /// Every legal play of a roll, with the Position ID after each (or, with --variant
    /// portes|plakoto|fevga, the Tavli position string after each).
    Moves(moves::MovesArgs),
    /// Draw a position with its ids, pip counts, cube, score and dice (or a Tavli
    /// position with --variant, the starting one when POS is left out).
    Show(show::ShowArgs),
    /// The bot server: gnubg external players and external-interface requests over TCP.
    Serve(serve::ServeArgs),
    /// The Universal Backgammon Interface on stdin/stdout.
    Ubgi(ubgi::UbgiArgs),
}

/// A command's result both ways: the object `--json` prints and the text printed
/// without it. Library callers (the Python package) take the JSON; `print` is the
/// command line's.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub json: serde_json::Value,
    pub text: String,
}

impl Report {
    /// Prints the JSON object on one line, or the text.
    pub fn print(&self, json: bool) {
        if json {
            println!("{}", self.json);
        } else {
            print!("{}", self.text);
        }
    }
}

/// `--threads`: at least 1; absent, one per available core.
pub fn threads_arg(threads: Option<usize>) -> Result<usize, CliError> {
    match threads {
        Some(0) => Err("--threads must be at least 1".into()),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// `--shard I/N`: the part `I` of `N` (0 <= I < N) a sharded job does.
pub fn shard_arg(text: &str) -> Result<(u64, u64), CliError> {
    text.split_once('/')
        .and_then(|(i, n)| Some((i.parse::<u64>().ok()?, n.parse::<u64>().ok()?)))
        .filter(|&(i, n)| n > 0 && i < n)
        .ok_or_else(|| "--shard must be I/N with 0 <= I < N".into())
}

/// `text` on one line: the contract gives every error message one line of stderr, and a
/// wrapped message (a TOML parser's, an OS error's) is joined with spaces.
pub fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The one line a bad command line gets: clap's message without its usage block (its
/// first paragraph, joined, so a list of missing arguments stays with its heading), and
/// the `--help` hint on the same line. `None` for `--help` and `--version`, which clap
/// prints as it always does.
pub fn argument_error_line(e: &clap::Error) -> Option<String> {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => return None,
        // clap would print the whole help here; the contract wants one line.
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            return Some("a subcommand is missing (for more information, try '--help')".into())
        }
        _ => {}
    }
    let rendered = e.render().to_string();
    let first: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    let text = first.join(" ");
    let text = text.strip_prefix("error:").unwrap_or(&text).trim();
    let text = if text.is_empty() {
        "bad arguments"
    } else {
        text
    };
    Some(format!("{text} (for more information, try '--help')"))
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Analyse(args) => analyse::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Bearoff(args) => bearoff::run(args),
        Command::Hint(args) => hint::run(args),
        Command::Duel(args) => duel::run(args),
        Command::Train(args) => train::run(args),
        Command::Distill(args) => distill::run(args),
        Command::Match(args) => match_cmd::run(args),
        Command::Fibs(args) => fibs::run(args),
        Command::Bgammon(args) => bgammon::run(args),
        Command::Rollout(args) => rollout::run(args),
        Command::Moves(args) => moves::run(args),
        Command::Show(args) => show::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Ubgi(args) => ubgi::run(args),
    }
}

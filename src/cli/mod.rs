//! The command-line interface: argument types and one module per subcommand. The
//! binary only parses and dispatches here; behaviour lives in the library modules.

use clap::{Parser, Subcommand};

pub mod bench;
pub mod duel;
pub mod fibs;
pub mod hint;
pub mod match_cmd;
pub mod moves;
pub mod pos_arg;
pub mod rollout;
mod search_bench;
pub mod serve;
pub mod show;
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
    /// Benchmarks: movegen, eval, search, server.
    Bench(bench::BenchArgs),
    /// Ranks the plays of a roll with the search (equities and probabilities).
    Hint(hint::HintArgs),
    /// In-process cubeless money games between two players, mirrored dice pairs.
    Duel(duel::DuelArgs),
    /// TD(lambda) self-play training with checkpoints.
    Train(train::TrainArgs),
    /// Games or matches between two engines (sockets or in-process), refereed here.
    Match(match_cmd::MatchArgs),
    /// Runs the FIBS bot account until stopped.
    Fibs(fibs::FibsArgs),
    /// Rolls out a position, or the best plays of a roll side by side.
    Rollout(rollout::RolloutArgs),
    /// Every legal play of a roll, with the Position ID after each.
    Moves(moves::MovesArgs),
    /// Draw a position with its ids, pip counts, cube, score and dice.
    Show(show::ShowArgs),
    /// The bot server: gnubg external players and external-interface requests over TCP.
    Serve(serve::ServeArgs),
    /// The Universal Backgammon Interface on stdin/stdout.
    Ubgi(ubgi::UbgiArgs),
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Bench(args) => bench::run(args),
        Command::Hint(args) => hint::run(args),
        Command::Duel(args) => duel::run(args),
        Command::Train(args) => train::run(args),
        Command::Match(args) => match_cmd::run(args),
        Command::Fibs(args) => fibs::run(args),
        Command::Rollout(args) => rollout::run(args),
        Command::Moves(args) => moves::run(args),
        Command::Show(args) => show::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Ubgi(args) => ubgi::run(args),
    }
}
